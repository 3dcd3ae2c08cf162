"""Measures over ``form_res_rels`` that pytrec_eval does not compute, ported from trec_eval.

``yaap`` (both versions, m_yaap.c) and 10.0's ``rbp``, ``rbp_resid``, ``unj``, ``dcg``,
``ideal_dcg`` and ``iprec_at_recall``/``11pt_avg`` (whose recall cutoffs 10.0 rounds with
``lround`` where 9.0.8 added 0.9 and truncated). Every value is computed with the C code's
operations in its order: sums accumulate document by document (:func:`.res_rels.segment_sums`),
products of ``p`` are repeated multiplications, ``log``/``log2`` are the C library's.

Each function takes a :class:`~.res_rels.ResRels` and the measure's parameters and returns
one array per label, aligned with the topics.
"""

from __future__ import annotations

import math

import numpy as np

from ..kernels import log2_ranks
from . import leftovers
from .clib import lround
from .gains import gain_lookup, ideal_gains, parse_pairs, setup_gains
from .res_rels import NONPOOL, UNJUDGED, ResRels, precision_sums


def yaap(res: ResRels) -> np.ndarray:
    """Robertson's "yet another average precision": log((1 + s) / (1 + R - s)), s the sum
    of precisions at the relevant retrieved documents."""
    relevant = res.rel >= res.relevance_level
    sums = precision_sums(relevant, res.topic, res.position, res.n_topics)
    return np.array(
        [
            math.log((1.0 + s) / (1.0 + float(r) - s))
            for s, r in zip(sums.tolist(), res.num_rel.tolist(), strict=True)
        ]
    )


def unjudged(res: ResRels, cutoffs: tuple[int, ...]) -> dict[int, np.ndarray]:
    """``unj_k``: the fraction of the first k retrieved documents that are not judged."""
    missing = (res.rel == NONPOOL) | (res.rel == UNJUDGED)
    topic, position = res.topic[missing], res.position[missing]
    return {k: np.bincount(topic[position < k], minlength=res.n_topics) / float(k) for k in cutoffs}


def persistence(params: str | None) -> float:
    """rbp's ``p``: the last ``p=`` of the parameters, 0.9 by default."""
    p = 0.9
    for name, value in parse_pairs(params):
        if name == "p":
            p = value
    return p


def _powers(p: float, n: int) -> np.ndarray:
    """``cur_p`` at each rank: 1, p, p*p, ... multiplied one step at a time."""
    steps = np.full(n, p, np.float64)
    if n:
        steps[0] = 1.0
    return np.multiply.accumulate(steps)


def rbp_gains(res: ResRels, t: int, pairs, earlier=()) -> list:
    """rbp's gain table: ``setup_gains``, then rescaled to [0, 1] when a gain lies outside,
    from a running minimum and maximum that 10.0 leaves uninitialised: they start from what
    the measures computed before it for the topic (``earlier``) left on the stack, as in
    its default build (:mod:`.leftovers`)."""
    gains = setup_gains(pairs, res.rel_levels[t], int(res.num_rel_levels[t]), skip_invalid=True)
    low, high = leftovers.slots(res, t, earlier)
    for g in gains:
        if g.gain < low:
            low = g.gain
        if g.gain > high:
            high = g.gain
    if low < 0 or high > 1:
        with np.errstate(divide="ignore", invalid="ignore"):
            for g in gains:
                g.gain = float((np.float64(g.gain) - low) / (np.float64(high) - low))
    return gains


def rbp(res: ResRels, params: str | None, earlier=()) -> np.ndarray:
    """Rank-biased precision (Moffat and Zobel): (1 - p) * sum of gain * p^(rank - 1)."""
    p = persistence(params)
    pairs = parse_pairs(params)
    out = np.zeros(res.n_topics, np.float64)
    for t in range(res.n_topics):
        rels = res.topic_rels(t)
        gains = gain_lookup(rbp_gains(res, t, pairs, earlier), rels)
        weights = _powers(p, len(rels))
        hit = gains != 0
        terms = gains[hit] * weights[hit]
        total = float(np.cumsum(terms)[-1]) if len(terms) else 0.0
        out[t] = (1.0 - p) * total
    return out


def rbp_resid(res: ResRels, params: str | None) -> np.ndarray:
    """rbp's residual: how much rbp could still grow if every unjudged document retrieved
    were relevant (0 when there is none)."""
    p = persistence(params)
    out = np.zeros(res.n_topics, np.float64)
    for t in range(res.n_topics):
        rels = res.topic_rels(t)
        weights = _powers(p, len(rels) + 1)
        unknown = weights[:-1][rels < 0]
        if len(unknown):
            out[t] = weights[-1] + (1 - p) * float(np.cumsum(unknown)[-1])
    return out


def discounted_gains(res: ResRels, params: str | None) -> tuple[np.ndarray, np.ndarray]:
    """``dcg`` and ``ideal_dcg`` (10.0's m_ndcg.c with its 10.0 gain table)."""
    pairs = parse_pairs(params)
    dcg, ideal = np.zeros(res.n_topics), np.zeros(res.n_topics)
    for t in range(res.n_topics):
        table = setup_gains(pairs, res.rel_levels[t], int(res.num_rel_levels[t]), skip_invalid=True)
        rels = res.topic_rels(t)
        gains = gain_lookup(table, rels)
        hit = np.flatnonzero(gains != 0)
        terms = gains[hit] / log2_ranks(len(rels))[hit]
        dcg[t] = float(np.cumsum(terms)[-1]) if len(terms) else 0.0
        best = ideal_gains(table)
        terms = best / log2_ranks(len(best))
        ideal[t] = float(np.cumsum(terms)[-1]) if len(terms) else 0.0
    return dcg, ideal


def _recall_cutoffs(res: ResRels, percents: list[float]):
    """Per topic: the interpolated precision each recall cutoff gets, in the order 10.0's
    m_iprec_at_recall.c / m_11pt_avg.c loop assigns them (from the last cutoff down).

    The C loop walks the ranking upwards keeping the best precision seen (``int_precis``)
    and, at the relevant document that brings the count down to a cutoff, assigns it;
    cutoffs it never meets (beyond the relevant documents retrieved, 0, or out of order
    in an unsorted 11pt_avg list) get the final ``int_precis`` after the walk, those
    beyond the relevant retrieved at the start get nothing (0).
    """
    with np.errstate(invalid="ignore", divide="ignore"):
        for t in range(res.n_topics):
            rels = res.topic_rels(t)
            num_ret, num_rel = len(rels), int(res.num_rel[t])
            relevant = rels >= res.relevance_level
            num_rel_ret = int(relevant.sum())
            cutoffs = [lround(pct * num_rel) for pct in percents]
            precision = np.cumsum(relevant) / np.arange(1, num_ret + 1, dtype=np.float64)
            best = np.maximum.accumulate(precision[::-1])[::-1]  # int_precis at each rank
            at_rank = np.flatnonzero(relevant)  # 0-based rank of the k-th relevant doc
            start = np.float64(num_rel_ret) / np.float64(num_ret)  # 0/0 is -nan, as in C
            final = float(best[at_rank[0]]) if num_rel_ret else float(start)
            current = len(cutoffs) - 1
            while current >= 0 and cutoffs[current] > num_rel_ret:
                current -= 1
            assigned, reached = [], num_rel_ret
            while current >= 0 and 1 <= cutoffs[current] <= reached:
                reached = cutoffs[current]
                assigned.append((current, float(best[at_rank[reached - 1]])))
                current -= 1
            assigned += [(index, final) for index in range(current, -1, -1)]
            yield t, assigned


def iprec_at_recall(res: ResRels, percents: list[float]) -> list[np.ndarray]:
    """10.0's ``iprec_at_recall``: one array per cutoff (in the order given)."""
    out = [np.zeros(res.n_topics) for _ in percents]
    for t, assigned in _recall_cutoffs(res, percents):
        for index, value in assigned:
            out[index][t] = value
    return out


def eleven_point_average(res: ResRels, percents: list[float]) -> np.ndarray:
    """10.0's ``11pt_avg``: the interpolated precisions summed in the order assigned,
    divided by the number of cutoffs."""
    out = np.zeros(res.n_topics)
    for t, assigned in _recall_cutoffs(res, percents):
        total = 0.0
        for _, value in assigned:
            total += value
        out[t] = total / float(len(percents))
    return out
