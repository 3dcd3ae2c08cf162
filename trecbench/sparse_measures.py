"""The fast engine's measures on a sparse view of a ranked run (numpy only).

Every supported measure depends only on *where the judged documents sit* in each topic's
ranking, so the engine works on a sparse view of a ranked run: for each topic the number of
retrieved documents, and for each retrieved document that appears in the qrels its 0-based
position and its label. Nothing here loops over lines in Python; per-topic loops are avoided
as well (topics are processed together with ``bincount`` and segment-wise cumulative sums).

Exactness: the values are those of trec_eval 9.0.8 (``m_P.c``, ``m_recall.c``,
``m_success.c``, ``m_recip_rank.c``, ``m_map.c``, ``m_map_cut.c``, ``m_ndcg.c``,
``m_ndcg_cut.c``, ``m_Rprec.c``, ``m_num_*.c``, ``m_iprec_at_recall.c``), computed with the
same floating-point operations in the same order: counts are integers, sums of precisions
and of discounted gains are accumulated document by document per topic
(:func:`trecbench.kernels.segment_cumsum`), and the discount is C's ``log2`` (via
:func:`math.log2`) rather than a SIMD approximation.

The engine consumes a run already in trec_eval order (see :mod:`trecbench.ranking`); it
never sorts documents itself. This module imports no Arrow and nothing of the engines
package (whose engines import it): :mod:`trecbench.engines.fast` joins runs with qrels and
registers the engine. Which requests compute a measure is planned in the numpy-free
:mod:`trecbench.measure_requests`; :mod:`trecbench.small_measures` computes the trec_eval
families again in pure Python for the small-input path, and a test holds the two equal.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from .kernels import log2_ranks, precisions_at_relevant, segment_cumsum
from .measure_requests import (
    BEYOND_PARAMETER,
    CUTOFF_FAMILIES,
    REQUEST_FAMILIES,
    Request,
    plan_requests,
    planned,
    supports,
    supports_request,
)

# the planning lives in the numpy-free measure_requests; the fast engine reads it here
__all__ = [
    "CUTOFF_FAMILIES",
    "ERR_MAX_GRADE",
    "GradeAboveErrError",
    "REQUEST_FAMILIES",
    "SparseRanking",
    "compute",
    "plan_requests",
    "planned_values",
    "supports",
    "supports_request",
]
ERR_MAX_GRADE = 4  # gdeval's MAX_JUDGMENT: ERR's stop probability is (2^g - 1) / 2^4
# nDCG(dcg='exp-log2')'s gains 2^g - 1 are scaled by 2^-s in a topic whose top grade is
# EXP_GAIN_GRADE + s (s > 0): 2^1024 and beyond overflow a double (nan), and scaled ones
# sum below its largest however many there are. A power of two changes no rounding of
# the gains, their sums or DCG over the ideal DCG (only terms below a double's normal
# range round otherwise, and the ideal DCG, at least 2^959, leaves them nothing to move):
# the value is the one doubles of unbounded range give; topics graded at most
# EXP_GAIN_GRADE are computed as they always were
EXP_GAIN_GRADE = 960


class GradeAboveErrError(ValueError):
    """A judgment of an evaluated topic graded above :data:`ERR_MAX_GRADE`, which gdeval's
    ERR has no stop probability for (gdeval refuses such qrels). It carries no text: the
    engine's error names the measures asked and the first such judgment's qrels line
    (the sparse view holds neither)."""


@dataclass
class SparseRanking:
    """What the measures need from a ranked run joined with qrels, topic by topic.

    ``num_ret[t]``: documents retrieved for topic ``t`` (after any depth cut).
    ``hit_topic``, ``hit_pos``, ``hit_rel``: one entry per retrieved document that has a
    qrels line, sorted by (topic, position); ``hit_pos`` is the 0-based rank; ``hit_rel``
    the label (negative labels mean "in the pool, unjudged").
    ``judged_topic``, ``judged_rel``: every qrels line of the evaluated topics (retrieved or
    not), in any order; they give the number of relevant documents and the ideal gains.
    """

    num_ret: np.ndarray
    hit_topic: np.ndarray
    hit_pos: np.ndarray
    hit_rel: np.ndarray
    judged_topic: np.ndarray
    judged_rel: np.ndarray

    @property
    def n_topics(self) -> int:
        return len(self.num_ret)


def _last_index_below(topic: np.ndarray, pos: np.ndarray, n_topics: int, k: float):
    """Per topic: how many entries have ``pos < k`` and the index of the last of them."""
    below = pos < k
    count = np.bincount(topic[below], minlength=n_topics)
    first = np.searchsorted(topic, np.arange(n_topics), side="left")
    return count, first + count - 1


def _segment_totals(
    ranking: SparseRanking, values: np.ndarray, topic: np.ndarray, pos: np.ndarray, k: float
) -> np.ndarray:
    """Per topic: sequential sum of ``values`` over entries with ``pos < k`` (else 0)."""
    return _totals_below(segment_cumsum(values, topic), topic, pos, ranking.n_topics, k)


def _totals_below(
    sums: np.ndarray, topic: np.ndarray, pos: np.ndarray, n_topics: int, k: float
) -> np.ndarray:
    """Per topic: the running sum ``sums`` (:func:`segment_cumsum`) at its last entry with
    ``pos < k`` (else 0). The running sums do not depend on ``k``: a family asked at many
    cutoffs computes them once and reads them here per cutoff."""
    count, last = _last_index_below(topic, pos, n_topics, k)
    out = np.zeros(n_topics, dtype=np.float64)
    has = count > 0
    out[has] = sums[last[has]]
    return out


def _safe_divide(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """``numerator / denominator`` where the denominator is positive, 0 elsewhere."""
    out = np.zeros(len(numerator), dtype=np.float64)
    ok = denominator > 0
    out[ok] = numerator[ok] / denominator[ok]
    return out


class _Terms:
    """The per-topic pieces the measures share, built once per :func:`compute` call (the
    relevant and gaining documents, their precisions, discounted gains and ideal gains)."""

    def __init__(self, ranking: SparseRanking, relevance_level: int):
        self.ranking = ranking
        self.n = n = ranking.n_topics
        self.num_ret = np.asarray(ranking.num_ret, dtype=np.int64)
        rel_judged = (ranking.judged_rel >= relevance_level) & (ranking.judged_rel >= 0)
        self.num_rel = np.bincount(ranking.judged_topic[rel_judged], minlength=n)
        relevant = ranking.hit_rel >= relevance_level
        self.rel_topic, self.rel_pos = ranking.hit_topic[relevant], ranking.hit_pos[relevant]
        gain = ranking.hit_rel > 0
        self.gain_topic, self.gain_pos = ranking.hit_topic[gain], ranking.hit_pos[gain]
        self.gain_value = ranking.hit_rel[gain]

    @cached_property
    def precisions(self) -> np.ndarray:
        return precisions_at_relevant(self.rel_topic, self.rel_pos)

    @cached_property
    def ideal(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The topic's positive labels, best first: gains of a perfect ranking."""
        positive = self.ranking.judged_rel > 0
        topic, pos, labels = _ideal_order(
            self.ranking.judged_topic[positive], self.ranking.judged_rel[positive]
        )
        terms = labels.astype(np.float64) / log2_ranks(int(pos.max(initial=-1)) + 1)[pos]
        return topic, pos, terms

    @cached_property
    def dcg_terms(self) -> np.ndarray:
        discount = log2_ranks(int(self.gain_pos.max(initial=-1)) + 1)[self.gain_pos]
        return self.gain_value.astype(np.float64) / discount

    # the running sums per topic, once per compute() whatever the cutoffs asked (ndcg_cut
    # at 400 cutoffs summed the same terms 400 times: 5x trec_eval's time)
    @cached_property
    def dcg_sums(self) -> np.ndarray:
        return segment_cumsum(self.dcg_terms, self.gain_topic)

    @cached_property
    def ideal_sums(self) -> np.ndarray:
        ideal_topic, _, ideal_terms = self.ideal
        return segment_cumsum(ideal_terms, ideal_topic)

    @cached_property
    def precision_sums(self) -> np.ndarray:
        return segment_cumsum(self.precisions, self.rel_topic)

    def ndcg_at(self, k: float) -> np.ndarray:
        dcg = _totals_below(self.dcg_sums, self.gain_topic, self.gain_pos, self.n, k)
        ideal_topic, ideal_pos, _ = self.ideal
        best = _totals_below(self.ideal_sums, ideal_topic, ideal_pos, self.n, k)
        return _safe_divide(dcg, best)

    def relevant_within(self, k: float) -> np.ndarray:
        return np.bincount(self.rel_topic[self.rel_pos < k], minlength=self.n)

    def average_precision(self, k: float, denominator: np.ndarray) -> np.ndarray:
        total = _totals_below(self.precision_sums, self.rel_topic, self.rel_pos, self.n, k)
        return _safe_divide(total, denominator)

    def reciprocal_rank(self, k: float) -> np.ndarray:
        count, first = np.zeros(self.n, np.int64), np.zeros(self.n, np.int64)
        take = self.rel_pos < k
        topics, index = np.unique(self.rel_topic[take], return_index=True)
        count[topics] = 1
        first[topics] = self.rel_pos[take][index]
        return np.where(count > 0, 1.0 / (first + 1).astype(np.float64), 0.0)

    @cached_property
    def interpolated(self) -> np.ndarray:
        """Per relevant retrieved document: the best precision at its rank or below it in
        its topic (m_iprec_at_recall.c's ``int_precis`` when its loop, walking the ranking
        upwards, reaches it). A precision is highest at a relevant document, so the best of
        those at or below is the best of all ranks there; the maxima are taken over exact
        integer codes of the precisions, one code range per topic, so the values returned
        are the precisions themselves."""
        levels, codes = np.unique(self.precisions, return_inverse=True)
        span = len(levels)  # codes of topic t: (n - 1 - t) * span + code, rising backwards
        keys = codes.astype(np.int64) + (self.n - 1 - self.rel_topic) * span
        best = np.maximum.accumulate(keys[::-1])[::-1]
        return levels[best - (self.n - 1 - self.rel_topic) * span]

    def iprec_at_recall(self, level: float) -> np.ndarray:
        """trec_eval 9.0.8's interpolated precision at the recall fraction ``level``: the
        count of relevant documents the level needs, C's ``(long) (level * num_rel +
        0.9)``; 0 beyond the relevant retrieved; else the best precision at or below the
        rank where that many (at least one) are retrieved. No relevant retrieved: levels
        needing none get ``num_rel_ret / num_ret`` (0, or 0/0 = NaN on an empty ranking)."""
        needed = (level * self.num_rel.astype(np.float64) + 0.9).astype(np.int64)
        reached = np.bincount(self.rel_topic, minlength=self.n)
        first = np.searchsorted(self.rel_topic, np.arange(self.n), side="left")
        out = np.zeros(self.n, dtype=np.float64)
        met = (reached > 0) & (needed <= reached)
        out[met] = self.interpolated[first[met] + np.maximum(needed[met], 1) - 1]
        none = (reached == 0) & (needed <= 0)
        with np.errstate(invalid="ignore"):
            out[none] = 0.0 / self.num_ret[none].astype(np.float64)
        return out

    def rprec(self) -> np.ndarray:
        depth = np.minimum(self.num_ret, self.num_rel)
        rel_topic, rel_pos = self.rel_topic, self.rel_pos
        count = np.bincount(rel_topic[rel_pos < depth[rel_topic]], minlength=self.n)
        return _safe_divide(count.astype(np.float64), self.num_rel)


def _trec_eval_value(terms: _Terms, family: str, k) -> np.ndarray | None:
    """One trec_eval family's per-topic values (and trecbench's cutoff variants of them),
    or None for a family beyond trec_eval."""
    limit = math.inf if k is None else k
    if family == "num_ret":
        return terms.num_ret.astype(np.float64)
    if family == "num_rel":
        return terms.num_rel.astype(np.float64)
    if family == "num_rel_ret":
        return terms.relevant_within(math.inf).astype(np.float64)
    if family == "P":
        return terms.relevant_within(k) / float(k)
    if family == "recall":
        return _safe_divide(terms.relevant_within(k).astype(np.float64), terms.num_rel)
    if family == "success":
        return (terms.relevant_within(k) > 0).astype(np.float64)
    if family == "recall_all":  # trecbench's Recall_all@k: every relevant doc in top k
        within = terms.relevant_within(k)
        return ((terms.num_rel > 0) & (within == terms.num_rel)).astype(np.float64)
    if family == "Rprec":
        return terms.rprec()
    if family == "recip_rank":
        return terms.reciprocal_rank(limit)
    if family in ("map", "map_cut"):
        return terms.average_precision(limit, terms.num_rel)
    if family in ("ndcg", "ndcg_cut"):
        return terms.ndcg_at(limit)
    if family == "map_cut_min":  # AP@k over min(|Rel|, k)
        return terms.average_precision(k, np.minimum(terms.num_rel, k))
    if family == "P_retrieved":  # relevant in the top k over the documents there
        within = terms.relevant_within(k).astype(np.float64)
        return _safe_divide(within, np.minimum(terms.num_ret, k))
    if family == "iprec_at_recall":  # k: the recall fraction
        return terms.iprec_at_recall(k)
    return None


def compute(
    ranking: SparseRanking, requests: Iterable[Request], relevance_level: int = 1
) -> dict[Request, np.ndarray]:
    """Per-topic values (float64, one per topic of ``ranking``) for each request.

    Definitions follow trec_eval 9.0.8: ``relevance_level`` decides what is relevant for
    the binary measures; nDCG uses the label itself as gain (labels <= 0 gain nothing) and
    is unaffected by it. Missing positions beyond ``num_ret`` count as non-relevant.
    """
    terms = _Terms(ranking, relevance_level)
    results: dict[Request, np.ndarray] = {}
    for request in requests:
        family, k = request
        if not supports_request(family, k, relevance_level):
            raise ValueError(f"the fast engine does not compute {family} with cutoff {k}")
        value = _trec_eval_value(terms, family, k)
        if value is None:
            value = _beyond_trec_eval(ranking, family, k, relevance_level)
        results[request] = value
    return results


def _ideal_order(topic: np.ndarray, gains: np.ndarray):
    """``(topic, position)`` of gains sorted best first within each topic."""
    order = np.lexsort((-gains, topic))
    topic, gains = topic[order], gains[order]
    return topic, np.arange(len(topic)) - np.searchsorted(topic, topic, side="left"), gains


def _err_terms(topic: np.ndarray, pos: np.ndarray, grade: np.ndarray) -> np.ndarray:
    """Each document's ERR contribution r/(pos+1) * prod(1 - r) over the earlier ones, with
    gdeval's stop probability r = (2^grade - 1) / 2^4 (``topic``, ``pos`` sorted)."""
    r = (np.exp2(grade.astype(np.float64)) - 1.0) / 2.0**ERR_MAX_GRADE
    keep = np.log1p(-r)
    before = segment_cumsum(keep, topic) - keep  # log of prod(1 - r) over earlier documents
    return r * np.exp(before) / (pos + 1).astype(np.float64)


def _exp_gains(grade: np.ndarray, shift: np.ndarray) -> np.ndarray:
    """The gains 2^grade - 1 scaled by 2^-shift (see :data:`EXP_GAIN_GRADE`); unscaled,
    ``2^grade - 1.0`` as ever, where ``shift`` is 0."""
    return np.exp2(grade - shift) - np.exp2(-shift)


def _beyond_trec_eval(ranking: SparseRanking, family: str, k, level: int) -> np.ndarray:
    """Measures trec_eval 9.0.8 lacks, on the same sparse view (see the module docstring).

    Judged@k (ir_measures' judged provider), nDCG(dcg='exp-log2')@k, ERR@k and nERR@k
    (gdeval), RBP (Moffat & Zobel's formula, every rank), Q-measure (Sakai; the RAG spec's
    formula).
    """
    n = ranking.n_topics
    topic, pos, rel = ranking.hit_topic, ranking.hit_pos, ranking.hit_rel
    num_ret = np.asarray(ranking.num_ret, dtype=np.int64)
    limit = math.inf if k is None or family in BEYOND_PARAMETER else k
    if family == "Judged":  # every retrieved document with a qrels line counts as judged
        judged = np.bincount(topic[pos < limit], minlength=n).astype(np.float64)
        return _safe_divide(judged, np.minimum(num_ret, limit))
    if family in ("ERR", "nERR"):
        if len(ranking.judged_rel) and ranking.judged_rel.max() > ERR_MAX_GRADE:
            raise GradeAboveErrError
        gain = rel > 0
        terms = _err_terms(topic[gain], pos[gain], rel[gain])
        err = _segment_totals(ranking, terms, topic[gain], pos[gain], limit)
        if family == "ERR":
            return err
        positive = ranking.judged_rel > 0
        i_topic, i_pos, i_grade = _ideal_order(
            ranking.judged_topic[positive], ranking.judged_rel[positive]
        )
        ideal_terms = _err_terms(i_topic, i_pos, i_grade)
        return _safe_divide(err, _segment_totals(ranking, ideal_terms, i_topic, i_pos, limit))
    if family == "ndcg_exp":  # gains 2^grade - 1 (gdeval; the TREC R-task reference)
        positive = ranking.judged_rel > 0
        i_topic, i_pos, i_grade = _ideal_order(
            ranking.judged_topic[positive], ranking.judged_rel[positive]
        )
        top = np.zeros(n, dtype=np.int64)
        np.maximum.at(top, i_topic, i_grade)
        shift = np.maximum(top - EXP_GAIN_GRADE, 0)
        gain = rel > 0
        g_topic, g_pos = topic[gain], pos[gain]
        terms = (
            _exp_gains(rel[gain], shift[g_topic])
            / log2_ranks(int(g_pos.max(initial=-1)) + 1)[g_pos]
        )
        dcg = _segment_totals(ranking, terms, g_topic, g_pos, limit)
        ideal = (
            _exp_gains(i_grade, shift[i_topic]) / log2_ranks(int(i_pos.max(initial=-1)) + 1)[i_pos]
        )
        return _safe_divide(dcg, _segment_totals(ranking, ideal, i_topic, i_pos, limit))
    if family == "RBP":  # (1 - p) sum p^pos gain; binary at ``level`` or grade / max_rel
        p, max_rel = k
        if max_rel is None:
            gain = (rel >= level).astype(np.float64)
        elif max_rel <= 0:  # no positive grade anywhere: no gain (0/0 printed -nan)
            gain = np.zeros(len(rel))
        else:
            gain = np.clip(rel, 0, max_rel).astype(np.float64) / max_rel
        weights = gain * np.power(p, pos.astype(np.float64))
        return (1.0 - p) * _segment_totals(ranking, weights, topic, pos, math.inf)
    # Q-measure (Sakai): (1/R) sum over relevant ranks r of (C(r) + b cg(r)) / (r + b cg*(r))
    beta = float(k)
    relevant = rel >= level
    r_topic, r_pos = topic[relevant], pos[relevant]
    r_gain = rel[relevant].astype(np.float64)
    so_far = np.arange(len(r_topic)) - np.searchsorted(r_topic, r_topic, side="left") + 1
    cg = segment_cumsum(r_gain, r_topic)
    judged_relevant = (ranking.judged_rel >= level) & (ranking.judged_rel >= 0)
    i_topic, i_pos, i_gain = _ideal_order(
        ranking.judged_topic[judged_relevant], ranking.judged_rel[judged_relevant]
    )
    ideal_cg = segment_cumsum(i_gain.astype(np.float64), i_topic)
    num_rel = np.bincount(i_topic, minlength=n)
    first = np.searchsorted(i_topic, np.arange(n), side="left")
    rank = (r_pos + 1).astype(np.float64)
    cg_star = ideal_cg[first[r_topic] + np.minimum(r_pos + 1, num_rel[r_topic]) - 1]
    terms = (so_far + beta * cg) / (rank + beta * cg_star)
    return _safe_divide(_segment_totals(ranking, terms, r_topic, r_pos, math.inf), num_rel)


def planned_values(sparse: SparseRanking, plan: list[tuple], levels: dict) -> dict:
    """Per measure of ``plan``, ``(label, display, values)`` of each of its values
    (:func:`trecbench.measure_requests.planned`), computed once per relevance level."""
    return planned(lambda requests, level: compute(sparse, requests, level), plan, levels)
