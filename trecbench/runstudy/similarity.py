"""How alike two runs' rankings are, per topic: rank-biased overlap, top-k overlap and
Kendall's tau on the documents both retrieved.

Rankings are taken in trecbench's one order (score descending at float32, docno
descending), so tied scores are ordered as trec_eval orders them. For a topic, ``S`` is the
shorter list (``s`` documents) and ``L`` the longer (``l``); ``X_d`` is the number of
documents in both ``S[:min(d, s)]`` and ``L[:d]``. With persistence ``p``
(Webber, Moffat & Zobel, "A similarity measure for indefinite rankings", TOIS 28(4), 2010):

* ``rbo_ext`` (eq. 32, uneven lists): ``(1-p)/p * (sum_{d<=l} X_d/d p^d +
  sum_{s<d<=l} X_s (d-s)/(s d) p^d) + ((X_l - X_s)/l + X_s/s) p^l``, as the ``rbo``
  package's ``rbo_ext``;
* ``rbo_min``: the RBO if no document beyond the lists' ends agrees,
  ``(1-p)/p * (sum_{d<=l} (X_d - X_l)/d p^d - X_l ln(1-p))`` (eq. 11, with ``k = l``);
* ``rbo_res``: ``rbo_max - rbo_min``, ``rbo_max`` the RBO if every document beyond the
  ends agrees as far as it can: ``X_d + d - s`` for ``s < d <= l``, ``X_l + 2d - s - l`` for
  ``l < d <= f = s + l - X_l`` and ``d`` beyond (sec. 4.3).

A topic that only one run holds has ``rbo_ext = rbo_min = 0`` and ``rbo_res = 1``; two
runs without a topic in common have no similarity: their pair's statistics are undefined
(``reason`` says why), and when no pair has one the call is refused
(:class:`~trecbench.errors.NoOverlapError`, exit 7, as trec_eval without a topic).
``overlap`` is the Jaccard index of the two top-``k`` sets; ``kendall_tau`` is tau between
the two runs' ranks of the documents both retrieved (undefined below two such documents).
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import numbers
from dataclasses import asdict, dataclass

import numpy as np
import pyarrow as pa

from .. import arrow, input_warnings, outputs
from .. import arrow_compute as pc
from ..callbacks import refuse_uncallable
from ..errors import NoOverlapError, Setting, UsageError
from ..inputs.streams import steps
from ..kendall import pair_counts
from ..type_names import printed_float, python_type
from . import ranked as ranked_runs
from .ranked import SLICE


@dataclass(frozen=True)
class SimilaritySettings:
    """``rbo_p``: RBO's persistence in (0, 1); ``overlap_k``: the depth of ``overlap``;
    ``depth``: documents of each run kept per topic before anything is computed (None:
    all)."""

    rbo_p: float = 0.9
    overlap_k: int = 10
    depth: int | None = None

    def __post_init__(self):
        p = self.rbo_p
        if isinstance(p, bool) or not isinstance(p, numbers.Real):  # Decimal is no Real
            raise UsageError(
                Setting("rbo_p"), f" must be a number in (0, 1) (a persistence), not "
                f"{python_type(p)} ({p!r}): give a float, as 0.9"
            )  # fmt: skip
        if not 0 < p < 1:
            raise UsageError(Setting("rbo_p"), f" must be in (0, 1) (a persistence), not {p!r}")
        # numpy's numbers taken, made Python's (JSON writes neither np.float32 nor np.int64),
        # a float32 as the decimal it prints as (0.9, not 0.8999999762: another RBO)
        object.__setattr__(self, "rbo_p", printed_float(p))
        object.__setattr__(self, "overlap_k", ranked_runs.check_count("overlap k", self.overlap_k))
        if self.depth is not None:
            object.__setattr__(self, "depth", ranked_runs.check_count("depth", self.depth))


# up to this many pairs of shared documents (per pair of runs, over all topics: about 3 ms,
# 50 topics of 100) Kendall's tau compares every pair rather than import scipy.stats' counter
SMALL_PAIRS = 300_000
STATISTICS = ("rbo_ext", "rbo_min", "rbo_res", "overlap", "kendall_tau")


@dataclass(frozen=True)
class PairSimilarity:
    """Two runs' similarity: per topic (``qids`` in byte-wise order) each statistic of
    :data:`STATISTICS` (``kendall_tau`` NaN where undefined), the documents of each run and
    those both hold; ``mean`` over the topics (``kendall_tau`` over those where defined)."""

    run_a: str
    run_b: str
    qids: list[str]
    values: dict[str, np.ndarray]
    length_a: np.ndarray
    length_b: np.ndarray
    shared: np.ndarray
    reason: str | None = None  # why every statistic is undefined (no topic in common)

    @property
    def topics_in_common(self) -> int:
        """How many topics both runs hold documents for."""
        return int(((self.length_a > 0) & (self.length_b > 0)).sum())

    def partial_tau(self) -> str | None:
        """What the mean ``kendall_tau`` leaves out, when it averages fewer topics than the
        other statistics (those with fewer than two documents both runs hold have none),
        or that no topic has one; None when it averages them all, or when the runs share
        no topic (:attr:`reason` says why every statistic is undefined)."""
        defined = int((~np.isnan(self.values["kendall_tau"])).sum())
        if self.reason or defined == len(self.qids):
            return None
        if not defined:
            return (
                f"{self.run_a} and {self.run_b}: no kendall_tau: no topic has two documents "
                "both runs retrieved"
            )
        return (
            f"{self.run_a} and {self.run_b}: the mean kendall_tau is over {defined:,} of "
            f"{len(self.qids):,} topics (the rest have fewer than two documents both runs "
            "retrieved)"
        )

    def mean(self) -> dict[str, float | None]:
        """Each statistic's mean over the topics (``kendall_tau``'s over those where it is
        defined: :meth:`partial_tau`), None where no topic defines it."""
        from ..rounding import mean_difference

        means: dict[str, float | None] = {}
        for name in STATISTICS:
            defined = self.values[name][~np.isnan(self.values[name])]
            if not len(defined):
                means[name] = None
            elif name == "kendall_tau":
                # signed: taus that cancel on paper (0.6, -0.2, -0.4) had a float mean of
                # 1.9e-17, printed so, not 0.0000; summed exactly, rounding is no mean
                means[name] = float(mean_difference(defined)[0])
            else:
                means[name] = float(defined.mean())
        # each topic's rbo_ext is within its bounds, but the mean of rbo_min plus that of
        # rbo_res rounds apart from the mean of their sums (three topics of one document,
        # the same in both runs, p = 0.001: 1 ulp below the mean rbo_ext of 1): the mean
        # rbo_ext stays the mean of the topics', rbo_res moves up by that rounding
        if means["rbo_ext"] is not None:
            means["rbo_ext"] = ext = max(means["rbo_ext"], means["rbo_min"])
            residual = means["rbo_res"]
            if means["rbo_min"] + residual < ext:  # by the rounding of the means alone
                residual = ext - means["rbo_min"]
                for _ in range(4):  # the difference rounded down: an ulp or two more
                    if means["rbo_min"] + residual >= ext:
                        break
                    residual = float(np.nextafter(residual, math.inf))
                means["rbo_res"] = residual
        return means


@dataclass(frozen=True)
class Similarity:
    """Every pair of the runs, in the order given (``a`` before ``b``)."""

    def __repr__(self) -> str:  # its arrays printed whole ran to thousands of characters
        from ..plurals import few_reprs

        pairs = few_reprs([f"{pair.run_a} vs {pair.run_b}" for pair in self.pairs])
        settings = self.settings
        return (
            f"Similarity(pairs={pairs}, rbo_p={settings.rbo_p}, "
            f"overlap_k={settings.overlap_k}, depth={settings.depth})"
        )

    settings: SimilaritySettings
    pairs: list[PairSimilarity]
    input_warnings: tuple[str, ...] = ()  # what its inputs warned: input_warnings.carried
    # the records of its run files (trecbench.report.input_record), taken as they were read
    inputs: tuple[dict, ...] = ()

    def to_json(self) -> dict:
        """The JSON document of ``similarity --format json``, with what made it, as
        leaderboard's JSON records it (``tool``, ``environment``, ``settings``, ``inputs``)."""
        from ..report import environment, tool

        return {
            "tool": tool(),
            "environment": environment(),
            "settings": asdict(self.settings),
            "inputs": list(self.inputs),
            "pairs": [_pair_json(pair) for pair in self.pairs],
        }


def _pair_json(pair: PairSimilarity) -> dict:
    topics = []
    for t, qid in enumerate(pair.qids):
        row = {"qid": qid}
        for name in STATISTICS:
            value = float(pair.values[name][t])
            row[name] = None if math.isnan(value) else value
        row |= {"n_a": int(pair.length_a[t]), "n_b": int(pair.length_b[t])}
        topics.append(row | {"shared": int(pair.shared[t])})
    return {
        "a": pair.run_a,
        "b": pair.run_b,
        "topics": topics,
        "mean": pair.mean(),
        "undefined": pair.reason,
    }


@outputs.in_input_scope  # each input's record taken as it is read, not read again
@input_warnings.carried
def similarity(
    runs, *, names=None, rbo_p: float = 0.9, overlap_k: int = 10, depth=None, progress=None
):
    """Similarity of every pair of ``runs`` (paths, DataFrames, Arrow tables, dicts; at
    least two), per topic and averaged: see :mod:`trecbench.runstudy.similarity`.
    ``names``: one per run (default: as :func:`trecbench.evaluate` names them);
    ``rbo_p``: RBO's persistence, in (0, 1); ``overlap_k``: the depth of overlap@k;
    ``depth``: the documents of each run kept per topic before comparing (None: all).
    Returns a :class:`Similarity` (``pairs``, each pair's values per topic).
    ``progress(label, done, total)``: the bytes of each file read (``reading <file>``)
    and the steps of ranking it (``ordering <run>``, :func:`ranked.load_ranked`), then the
    pairs compared (``comparing pairs``), each pair's topics as they are measured
    (``measuring <a> vs <b>``, :func:`pair_similarity`). Runs without a topic in common
    are found before any pair is measured.

    >>> result = similarity(["bm25.run", "rerank.run"], rbo_p=0.9)  # doctest: +SKIP
    >>> result.pairs[0].mean()["rbo_ext"]  # doctest: +SKIP
    """
    refuse_uncallable(progress)
    from ..conclusions.scores import source_name
    from ..inputs import refuse_repeated, split_runs
    from ..inputs.integer_ids import refuse_lost_zeros_among
    from ..naming import run_names
    from ..report import read_records

    settings = SimilaritySettings(rbo_p, overlap_k, depth)
    sources, given = split_runs(runs)
    if len(sources) < 2:
        raise UsageError("similarity compares runs: give at least two")
    refuse_repeated(sources, lambda: run_names(sources, names if names is not None else given))
    labels = run_names(sources, names if names is not None else given)
    tables = [
        ranked_runs.load_ranked(source, settings.depth, progress, label)
        for source, label in zip(sources, labels, strict=True)
    ]
    named = [source_name(source) or label for source, label in zip(sources, labels, strict=True)]
    refuse_lost_zeros_among(tables, named)  # a topic 1 from integers beside a 01
    every = list(itertools.combinations(range(len(tables)), 2))
    # the pairs without a topic in common, from the runs' topics alone: refused (when no
    # pair has one) before any pair is measured, not after measuring all of them
    topics = [_topics(table) for table in tables]

    def no_topic_in_common(names: list[str], i: int, j: int) -> str:
        return f"{names[j]}: no topic in common with {names[i]}: no similarity to measure"

    # a pair's reason names its runs as its row does (--names), the error their files
    apart = {
        (i, j): no_topic_in_common(labels, i, j)
        for i, j in every
        if topics[i].isdisjoint(topics[j])
    }
    if len(apart) == len(every):  # nothing to show: as trec_eval without a topic
        if len(every) == 1:
            raise NoOverlapError(no_topic_in_common(named, 0, 1))
        raise NoOverlapError(
            f"no two of the {len(tables)} runs have a topic in common: no similarity to measure"
        )
    pairs = []
    for i, j in every:
        if progress is not None:
            progress("comparing pairs", len(pairs), len(every))
        if (i, j) in apart:
            pair = _undefined(_unmeasured(tables[i], tables[j], labels[i], labels[j]), apart[i, j])
        else:
            pair = pair_similarity(tables[i], tables[j], labels[i], labels[j], settings, progress)
        pairs.append(pair)
    if progress is not None:
        progress("comparing pairs", len(pairs), len(every))
    return Similarity(settings, pairs, inputs=tuple(read_records((s, "run") for s in sources)))


def _topics(table: pa.Table) -> set[str]:
    """The qids of a ranked table, as :func:`ranked.topic_codes` reads them (text)."""
    _, qids = arrow.stretches(table.column("qid"))
    return set(pc.cast(qids, pa.large_string()).to_pylist())


def _undefined(pair: PairSimilarity, reason: str) -> PairSimilarity:
    """``pair`` with every statistic undefined (NaN: printed ``-``, null in JSON), and why:
    RBO 0 would say the runs disagree, where they have nothing to compare."""
    values = {name: np.full(len(pair.qids), np.nan) for name in pair.values}
    return dataclasses.replace(pair, values=values, reason=reason)


def pair_similarity(
    a: pa.Table, b: pa.Table, name_a: str, name_b: str, settings, progress=None
) -> PairSimilarity:
    """:class:`PairSimilarity` of two ranked tables (:func:`ranked.load_ranked`);
    ``progress("measuring <a> vs <b>", done, total)`` told of the topics as each pass
    over them goes (their documents matched, RBO, Kendall's tau: three steps a topic)."""
    qids, (topic_a, topic_b) = ranked_runs.topic_codes([a, b])
    length_a = np.bincount(topic_a, minlength=len(qids))
    length_b = np.bincount(topic_b, minlength=len(qids))
    told = steps(progress, f"measuring {name_a} vs {name_b}", 3 * len(qids))
    topic, rank_a, rank_b = _shared_ranks(a, b, topic_a, topic_b, len(qids), told)
    values = rbo(topic, np.maximum(rank_a, rank_b), length_a, length_b, settings.rbo_p, told)
    values["overlap"] = _top_overlap(topic, rank_a, rank_b, length_a, length_b, settings)
    values["kendall_tau"] = _kendall_tau(topic, rank_a, rank_b, len(qids), told)
    shared = np.bincount(topic, minlength=len(qids))
    return PairSimilarity(name_a, name_b, qids.to_pylist(), values, length_a, length_b, shared)


def _unmeasured(a: pa.Table, b: pa.Table, name_a: str, name_b: str) -> PairSimilarity:
    """Two runs without a topic in common, their topics and lengths, nothing measured (no
    document is shared: every statistic is 0 or undefined, see :func:`_undefined`)."""
    qids, (topic_a, topic_b) = ranked_runs.topic_codes([a, b])
    length_a = np.bincount(topic_a, minlength=len(qids))
    length_b = np.bincount(topic_b, minlength=len(qids))
    values = {name: np.zeros(len(qids)) for name in STATISTICS}
    shared = np.zeros(len(qids), np.int64)
    return PairSimilarity(name_a, name_b, qids.to_pylist(), values, length_a, length_b, shared)


def _shared_ranks(
    a: pa.Table, b: pa.Table, topic_a, topic_b, n_topics: int, told=lambda more: None
) -> tuple:
    """``(topic, rank in a, rank in b)`` of every document both runs hold for a topic, in
    ``a``'s order (topic, then rank; ``topic_a``, ``topic_b``: non-decreasing, each
    table's rows' topics). Matched a few topics at a time, documents by exact text;
    ``told(topics)`` as each few are."""
    bound_a = np.searchsorted(topic_a, np.arange(n_topics + 1))
    bound_b = np.searchsorted(topic_b, np.arange(n_topics + 1))
    both = bound_a + bound_b
    cuts = np.r_[np.searchsorted(both, np.arange(SLICE, both[-1], SLICE)), n_topics]
    cuts = ranked_runs.distinct_sorted(cuts)
    partner = np.full(len(topic_a), -1, np.int64)  # each row of a: its document's row in b
    for first, last in zip(np.r_[0, cuts[:-1]], cuts, strict=True):
        a0, a1, b0, b1 = bound_a[first], bound_a[last], bound_b[first], bound_b[last]
        text = pa.concat_arrays([_text(a, a0, a1), _text(b, b0, b1)])
        number = ranked_runs.pair_numbers(text, np.r_[topic_a[a0:a1], topic_b[b0:b1]])
        # pairs numbered by first appearance: a holds each pair once (no document twice in
        # a topic), so its rows are 0, 1, ... and a row of b numbered below a's count
        # holds that row's document
        in_b = number[a1 - a0 :]
        held = in_b < a1 - a0
        partner[a0 + in_b[held]] = b0 + np.flatnonzero(held)
        told(last - first)
    rows = np.flatnonzero(partner >= 0)
    rank_a = arrow.to_numpy(a.column("rank")).astype(np.int64)[rows]
    rank_b = arrow.to_numpy(b.column("rank")).astype(np.int64)[partner[rows]]
    return topic_a[rows], rank_a, rank_b


def _text(table: pa.Table, start: int, stop: int) -> pa.Array:
    """Rows ``start:stop`` of ``table``'s docnos as one large_string array."""
    return pc.cast(
        table.column("docno").slice(start, stop - start), pa.large_string()
    ).combine_chunks()


def _segments(lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(starts, owner, depth)`` of a flat layout holding ``lengths[t]`` places per topic:
    where each topic starts, each place's topic and its 1-based depth."""
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)
    owner = np.repeat(np.arange(len(lengths)), lengths)
    depth = np.arange(int(lengths.sum()), dtype=np.int64) - starts[owner] + 1
    return starts, owner, depth


def _per_topic(values: np.ndarray, owner: np.ndarray, n_topics: int) -> np.ndarray:
    return np.bincount(owner, weights=values, minlength=n_topics)


# places (topic, depth) computed at a time: some 30 temporaries of that size stay in
# cache, their memory reused, not faulted in afresh for every 10M-place array
PLACES = 1 << 18


def rbo(
    topic, deepest, length_a, length_b, p: float, told=lambda more: None
) -> dict[str, np.ndarray]:
    """RBO_ext, RBO_min and the residual per topic, from the deeper of the two ranks of
    every shared document (``deepest``, with its ``topic``: non-decreasing) and the lists'
    lengths; computed a few whole topics at a time (each topic's values alone), each few
    told to ``told(topics)``."""
    s = np.minimum(length_a, length_b).astype(np.int64)
    l_ = np.maximum(length_a, length_b).astype(np.int64)
    n = len(s)
    overlap_at_l = np.bincount(topic, minlength=n)  # X_l: every shared document
    f = s + l_ - overlap_at_l
    # (1 - p)/p * p^d/d as one factor: (1 - p)/p alone overflows for a subnormal p;
    # computed once per depth, not once per place
    deepest_f = int(f.max(initial=0))
    depths = np.arange(1, deepest_f + _tail_depths(p) + 1)
    by_depth = (1 - p) * np.exp((depths - 1) * math.log(p)) / depths
    beyond = _weight_beyond(by_depth, p)[f]  # sum_{d>f} weight: rbo_min's X_l term
    by_depth = by_depth[:deepest_f]
    bounds = np.searchsorted(topic, np.arange(n + 1))
    ends = np.cumsum(f)
    cuts = np.r_[np.searchsorted(ends, np.arange(PLACES, int(f.sum()), PLACES)), n]
    cuts = ranked_runs.distinct_sorted(cuts)
    cuts = cuts[cuts > 0]  # no block of no topic
    parts = [{name: np.empty(0) for name in ("rbo_ext", "rbo_min", "rbo_res")}]
    for first, last in zip(np.r_[0, cuts[:-1]], cuts, strict=True):
        rows, topics = slice(bounds[first], bounds[last]), slice(first, last)
        shared = (topic[rows] - first, deepest[rows], overlap_at_l[topics])
        parts.append(_rbo_block(*shared, s[topics], l_[topics], beyond[topics], by_depth, p))
        told(last - first)
    return {name: np.concatenate([part[name] for part in parts]) for name in parts[0]}


# the most depths summed past the deepest list for rbo_min's tail (1M: 8 MB a column); a p
# so near 1 that more are needed (above about 0.99995) takes the rest by subtraction
MOST_TAIL_DEPTHS = 1 << 20


def _tail_depths(p: float) -> int:
    """How many depths past a topic's last one carry its tail's weight to double precision:
    beyond them, ``p**m / (m + 1)`` is below ``2**-53 (1 - p)`` of the first weight past
    it, as the tail is at least that weight (0 where that needs more than
    :data:`MOST_TAIL_DEPTHS`)."""
    needed = math.ceil((53 * math.log(2) - math.log1p(-p)) / -math.log(p))
    return needed if needed <= MOST_TAIL_DEPTHS else 0


def _weight_beyond(by_depth: np.ndarray, p: float) -> np.ndarray:
    """``(1 - p)/p * sum_{d>f} p^d/d`` for every f up to ``len(by_depth)`` (``by_depth``:
    each depth's weight, far enough past the lists' ends, :func:`_tail_depths`), added
    from the deepest up: as the whole series less ``sum_{d<=f}`` it cancelled to rounding
    noise (1e-16), which X_l times made rbo_min (and rbo_ext, held above it) 1.4e-13
    where it is 1.25e-36 (runs sharing documents only below depth 500, p 0.9)."""
    every_depth = (1 - p) * (-math.log1p(-p) / p)
    rest = 0.0
    if _tail_depths(p) == 0:  # p too near 1 to sum far enough: the rest by subtraction
        rest = max(every_depth - math.fsum(by_depth), 0.0)
    from_the_deepest = np.cumsum(by_depth[::-1])[::-1]
    return np.concatenate([from_the_deepest, [0.0]]) + rest


def _rbo_block(topic, deepest, overlap_at_l, s, l_, beyond, by_depth, p: float) -> dict:
    """:func:`rbo` of some topics (``topic`` numbers them from 0); ``beyond``: each topic's
    weight past its last depth f (:func:`_weight_beyond`)."""
    n = len(s)
    f = s + l_ - overlap_at_l
    starts, owner, d = _segments(f)
    counts = np.bincount(starts[topic] + deepest - 1, minlength=len(owner)).astype(np.float64)
    x = np.cumsum(counts)
    x -= np.concatenate([[0.0], x])[starts][owner]  # X_d within each topic
    weight = by_depth[d - 1]
    s_at, l_at = s[owner], l_[owner]
    seen = d <= l_at
    x_s = np.where(s > 0, x[starts + np.maximum(s, 1) - 1], 0.0)
    x_weight = x * weight

    in_l = np.where(seen, x_weight, 0.0)
    # s < d <= l: only where the lists' lengths differ (a sum in the same order, without
    # its zeros)
    longer = np.flatnonzero(seen & (d > s_at))
    at = owner[longer]
    tail = x_s[at] * (d[longer] - s_at[longer]) / np.maximum(s, 1)[at] * weight[longer]
    p_l = np.exp(l_ * math.log(p))
    ext = _per_topic(in_l, owner, n) + _per_topic(tail, at, n)
    ext += ((overlap_at_l - x_s) / np.maximum(l_, 1) + x_s / np.maximum(s, 1)) * p_l
    ext = np.where(s > 0, ext, 0.0)

    # no document lies deeper than l, so x is X_l beyond the lists' ends
    minimum = _per_topic(x_weight, owner, n) + overlap_at_l * beyond

    x_max = np.where(d <= s_at, x, x + d - s_at)
    x_max = np.where(seen, x_max, overlap_at_l[owner] + 2 * d - s_at - l_at)
    maximum = _per_topic(x_max * weight, owner, n) + np.exp(f * math.log(p))
    held = s > 0  # a topic one run lacks: 0 and 1 exactly, not a sum rounded near them
    # the residual's own terms, each at least 0 (x_max - x_min at each depth, then past f
    # sum_{d>f} (d - X_l) p^d...): maximum - minimum cancelled to 0 where the residual is
    # below rbo_min's last bit (two equal lists of 400 documents, p 0.9: 1.2e-21)
    terms = _per_topic((x_max - x) * weight, owner, n) + np.exp(f * math.log(p))
    terms -= overlap_at_l * beyond
    residual = np.maximum(maximum - minimum, np.maximum(terms, 0.0))
    residual = np.where(held, np.clip(residual, 0.0, 1.0), 1.0)
    minimum = np.where(held, np.clip(minimum, 0.0, 1.0), 0.0)
    ext = _bounded(ext, minimum, residual)
    # two equal rankings (X_d = d at every depth): rbo_ext and rbo_max are 1 on paper,
    # where the sums left 0.9999999999999999; rbo_min + (1 - rbo_min) rounds to 1 exactly
    unequal = np.bincount(owner, weights=seen & (x != d), minlength=n)
    same = held & (s == l_) & (unequal == 0)
    residual = np.where(same, np.maximum(1.0 - minimum, residual), residual)
    return {"rbo_ext": np.where(same, 1.0, ext), "rbo_min": minimum, "rbo_res": residual}


def _bounded(ext, minimum, residual):
    """``ext`` within ``[minimum, min(minimum + residual, 1)]``: rbo_min <= rbo_ext <=
    rbo_min + rbo_res holds exactly, but the three are different sums, and rounding alone
    put rbo_ext an ulp or so outside: a value that cannot be right, moved back by no more
    than that rounding."""
    return np.clip(ext, minimum, np.minimum(minimum + residual, 1.0))


def _top_overlap(topic, rank_a, rank_b, length_a, length_b, settings) -> np.ndarray:
    """Jaccard index of the two runs' top-k documents per topic."""
    k = settings.overlap_k
    both = np.bincount(topic[np.maximum(rank_a, rank_b) <= k], minlength=len(length_a))
    union = np.minimum(length_a, k) + np.minimum(length_b, k) - both
    return np.where(union > 0, both / np.maximum(union, 1), np.nan)


def _discordant_counter():
    """scipy's compiled count of discordant pairs (``x`` rising), or None without it."""
    try:
        from scipy.stats._stats import _kendall_dis
    except ImportError:
        return None
    return _kendall_dis


def _kendall_tau(topic, rank_a, rank_b, n_topics: int, told=lambda more: None) -> np.ndarray:
    """Kendall's tau between the ranks of the shared documents, per topic (NaN below two
    shared documents), as ``scipy.stats.kendalltau`` computes it (tau-b) to the last bit,
    but 1 and -1 exactly where no pair or every pair is discordant.

    Ranks are distinct within a run, so no pair ties and tau-b is
    ``(tot - 2 dis) / sqrt(tot) / sqrt(tot)`` with ``tot = n (n - 1) / 2`` pairs, as scipy
    evaluates it; ``rank_a`` rises within each topic (rows in ``a``'s order), so the
    discordant pairs ``dis`` are counted by scipy's own compiled counter (a Fenwick tree
    over ``rank_b``) once per topic, without ``kendalltau``'s checks, re-sorting and
    p-value for every topic (3.7 s of calls on 6,980 topics; the counts take 0.2 s). The
    counter is scipy's private function: were it gone, ``kendalltau`` gives each tau.
    Up to :data:`SMALL_PAIRS` pairs every pair is compared instead
    (:func:`trecbench.kendall.pair_counts`): the same integers, without scipy.stats' 0.4 s
    import (issue 31). ``told(topics)`` as every :data:`TOLD_TOPICS` topics are done."""
    bounds = np.searchsorted(topic, np.arange(n_topics + 1))
    size = np.diff(bounds)
    defined = np.flatnonzero(size >= 2)
    x, y = rank_a.astype(np.intp, copy=False), rank_b.astype(np.intp, copy=False)
    taus = np.full(n_topics, np.nan)
    pairs = size * (size - 1) // 2
    small = pairs.sum() <= SMALL_PAIRS
    count = _discordant_by_comparison if small else _discordant_counter()
    pace = _paced(told, n_topics)
    if count is None:
        from scipy.stats import kendalltau

        for t in defined.tolist():
            taus[t] = kendalltau(x[bounds[t] : bounds[t + 1]], y[bounds[t] : bounds[t + 1]])[0]
            pace(t + 1)
        pace(n_topics)
        return _exact_ends(taus, pairs)
    discordant = np.zeros(n_topics, np.int64)
    for t in defined.tolist():
        discordant[t] = count(x[bounds[t] : bounds[t + 1]], y[bounds[t] : bounds[t + 1]])
        pace(t + 1)
    pace(n_topics)
    root = np.sqrt(pairs[defined])
    taus[defined] = np.clip((pairs[defined] - 2 * discordant[defined]) / root / root, -1.0, 1.0)
    return _exact_ends(taus, pairs)


def _exact_ends(taus: np.ndarray, pairs: np.ndarray) -> np.ndarray:
    """``taus`` with those of no (every) pair discordant 1 (-1) exactly, where scipy's
    two roots can leave 0.9999999999999998 (a run against itself, five shared documents).
    Without ties tau is 1 - 2 dis / pairs on paper, in steps of 2 / pairs: one within
    half a step of 1 is 1 (a rounding error is ten orders of magnitude smaller)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        ends = np.abs(np.abs(taus) - 1.0) < 1.0 / pairs
    return np.where(ends, np.sign(taus), taus)


# Kendall's tau's topics told at a time
TOLD_TOPICS = 1024


def _paced(told, total: int):
    """``pace(done)``: the topics done since ``told`` was last told of them, told when
    they are :data:`TOLD_TOPICS` or more, and once all ``total`` are done."""
    reported = 0

    def pace(done: int) -> None:
        nonlocal reported
        if done - reported >= TOLD_TOPICS or (done == total and done > reported):
            told(done - reported)
            reported = done

    return pace


def _discordant_by_comparison(x: np.ndarray, y: np.ndarray) -> int:
    """The discordant pairs of ``x`` and ``y`` without ties, every pair compared."""
    difference, _, _ = pair_counts(x, y)
    return (len(x) * (len(x) - 1) // 2 - difference) // 2
