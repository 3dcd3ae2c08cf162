"""What a fusion computes (:mod:`trecbench.fusion` gives the formulas): each run's values
(normalised scores, or ranks), combined per (topic, document), ranked and checked for
ties at float32.

A :class:`FusionPlan` holds what does not depend on the weights (nor on RRF's k): the
documents of all runs stacked and grouped by (topic, document), each run's normalised
scores (rank-based methods: its ranks) and each group's topic and document. ``fuse
--optimize`` builds one per search and fuses each candidate of its grid on it: building
them was half of each candidate's time (500 topics x 100 documents x 4 runs: 286
candidates in about 20 s). :func:`trecbench.fusion.fused_and_ties` fuses on a plan of
its own: one code path.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from functools import partial

import numpy as np
import pyarrow as pa

from . import arrow, fused_ties, ranking
from . import arrow_compute as pc
from .errors import UsageError, excerpt
from .inputs.tables import carry_integer_ids
from .naming import check_run_tag
from .plurals import counted

RANK_BASED = ("rrf", "isr")
SCORE_BASED = ("combsum", "combmnz", "combmax", "combmin", "combmed", "combanz", "wmnz")
WEIGHTED = ("rrf", "combsum", "wmnz")
FLOOR = 1e-9  # ranx's floor under every normalisation denominator
DEFAULT_K = 60  # RRF's k unless given (Cormack et al. 2009)


def check_number(name: str, value, minimum: float) -> float:
    """``value`` as a float, refused unless a finite real number of at least ``minimum``."""
    if (
        isinstance(value, bool)
        or not isinstance(value, numbers.Real)
        or not _finite(value)
        or value < minimum
    ):
        at_least = f" >= {minimum:g}" if math.isfinite(minimum) else ""
        raise UsageError(f"{name} must be a finite number{at_least}, not {excerpt(value)}")
    return float(value)


def _finite(value: numbers.Real) -> bool:
    """Whether ``value`` is a finite double: an integer beyond one (a configuration's
    ``10**400``) is not, where math.isfinite raised OverflowError (an internal error)."""
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


def checked_weights(weights, n_runs: int, method: str) -> np.ndarray:
    """One weight per run (None: 1 each), each a finite number >= 0, not all 0, for a
    method that takes them (wmnz: given)."""
    if weights is None:
        if method == "wmnz":
            raise UsageError("wmnz needs one weight per run")
        return np.ones(n_runs)
    if method not in WEIGHTED:
        raise UsageError(f"weights apply to {', '.join(WEIGHTED)}, not to {method}")
    # a dict gave its keys (the runs' names) as weights, a set its hash order, not the runs'
    if isinstance(weights, (str, bytes, Mapping, AbstractSet)) or not isinstance(weights, Iterable):
        raise UsageError(f"weights are one number per run, not {excerpt(weights)}")
    weights = list(weights)
    if len(weights) != n_runs:
        raise UsageError(
            f"{counted(len(weights), 'weight')} for {counted(n_runs, 'run')}: give one per run"
        )
    # a weight is a run's share of the fused score: below 0, the documents a run ranks
    # highest would lose the most, falling below those it never retrieved
    checked = np.array([check_number("a weight", w, 0) for w in weights], np.float64)
    if not checked.any():
        raise UsageError("the weights are all 0: every fused score would be 0")
    return checked


class FusionPlan:
    """What fusing ``runs`` (ranked: :func:`trecbench.fusion.ranked_table`) by ``method``
    after ``norm`` (both canonical, :func:`trecbench.fusion.norm_name`), cut at ``depth``,
    computes whatever the weights (RRF: k): :meth:`fused_and_ties` fuses one setting of
    them. ``step()``: told as the runs' values are stacked, then grouped."""

    def __init__(self, runs: Sequence[pa.Table], method: str, norm: str, depth: int | None,
                 step: Callable[[], None] = lambda: None):  # fmt: skip
        self.runs, self.method, self.norm, self.depth = list(runs), method, norm, depth
        self.deepest = max(_deepest_rank(t) for t in runs) if method == "rrf" else 0
        qids, docnos, values = [], [], []
        for ranked in runs:
            qids.append(pc.cast(ranked.column("qid"), pa.large_string()).combine_chunks())
            docnos.append(pc.cast(ranked.column("docno"), pa.large_string()).combine_chunks())
            values.append(_values(ranked, method, norm))
        qid, docno = pa.concat_arrays(qids), pa.concat_arrays(docnos)
        step()
        self.groups = arrow.Groups(arrow.row_keys(qid, docno))
        step()
        # rrf: the ranks, 1 / (k + rank) per candidate
        self.values = np.concatenate(values)
        self.lengths = [ranked.num_rows for ranked in runs]
        first = arrow.array(self.groups.first)
        self.qid, self.docno = qid.take(first), docno.take(first)  # each group's

    def fused_and_ties(
        self,
        weights: Sequence[float] | None = None,
        k: float | None = None,
        tag: str | None = None,
        searched: bool = False,
        step: Callable[[], None] = lambda: None,
    ) -> tuple[pa.Table, dict[str, str]]:
        """:func:`trecbench.fusion.fused_and_ties` of these runs with ``weights`` (None:
        1 each) and RRF's ``k`` (None: the default), checked as it checks them; ``step()``
        told as they are combined, then ranked and checked for ties."""
        method, norm, groups = self.method, self.norm, self.groups
        k = check_number("k", DEFAULT_K if k is None else k, 0)  # checked_settings' order
        check_run_tag(tag)
        weight = checked_weights(weights, len(self.runs), method)
        ties = {}
        if method == "rrf":
            ties["rrf ranks"] = fused_ties.rrf_ranks(k, self.deepest)
        values = 1.0 / (k + self.values) if method == "rrf" else self.values
        row_weights = np.repeat(weight, self.lengths)
        with np.errstate(over="ignore", invalid="ignore"):  # refused below, not warned about
            # + 0.0: a zero is 0.0 whatever the runs' order (the max, min or median of 0.0
            # and -0.0 took the sign of the one that came first or last)
            fused = _combine(method, groups, values, row_weights) + 0.0
        refusal = (method, norm, weights is not None and not searched)
        _refuse_non_finite(fused, self.qid, self.docno, refusal)
        table = pa.table(
            {
                "qid": self.qid,
                "docno": self.docno,
                "score": arrow.array(fused),
                "tag": pa.repeat(arrow.scalar(tag or method, pa.large_string()), len(fused)),
                "group": arrow.array(np.arange(len(fused))),  # its row of sizes, below
            }
        )
        step()
        whole = ranking.rank_table(table)
        ranked = ranking.truncate(whole, self.depth)
        remedies = {"overflow": _remedies(*refusal)}
        if not ties.get("rrf ranks"):  # RRF of a huge k: said already
            remedies["underflow"] = _remedies(*refusal, weight_size="larger")
            remedies["precision"] = fused_ties.kept_apart(given_k=method == "rrf" and not searched)
        sizes = partial(_combine, method, groups, np.abs(values), row_weights)  # when asked
        roundings = fused_ties.own_roundings(method, norm, groups.counts)
        ties.update(fused_ties.against_order(whole, remedies, sizes, self.depth, roundings))
        step()
        fused_table = ranked.select(["qid", "docno", "rank", "score", "tag"])
        found = {kind: message for kind, message in ties.items() if message is not None}
        return carry_integer_ids(self.runs, fused_table), found


def _values(ranked: pa.Table, method: str, norm: str) -> np.ndarray:
    """What one ranked run contributes for each of its rows, whatever the weights: its
    ranks for rrf (whose values depend on k), else its values."""
    ranks = arrow.to_numpy(ranked.column("rank")).astype(np.float64)
    if method == "rrf":
        return ranks
    if method == "isr":
        return 1.0 / (ranks * ranks)
    scores = arrow.to_numpy(ranked.column("score")).astype(np.float64)
    return normalise(scores, ranks, ranking.topic_starts(ranked.column("qid")), norm)


def _combine(method: str, groups: arrow.Groups, values, weights) -> np.ndarray:
    """The fused score of every group of (topic, document) rows (its sums add a group's
    values from the smallest up: :func:`_group_sums`)."""
    if method in ("rrf", "combsum"):
        return _group_sums(groups, values * weights)
    if method == "combmax":
        return groups.reduce(np.maximum, values)
    if method == "combmin":
        return groups.reduce(np.minimum, values)
    total = _group_sums(groups, values)
    if method in ("combmnz", "isr"):
        return total * groups.counts
    if method == "combanz":  # a mean: the sum may overflow where the mean does not
        mean = total / groups.counts
        over = ~np.isfinite(total)
        if over.any():
            counts = np.empty(len(values))
            counts[groups.order] = np.repeat(groups.counts, groups.counts)
            mean[over] = _group_sums(groups, values / counts)[over]
        return mean
    if method == "wmnz":
        return total * _group_sums(groups, weights)
    # combmed: the average of each group's two middle values (one when odd)
    low, high = np.empty(len(groups.counts)), np.empty(len(groups.counts))
    for blocks, columns in _sorted_groups(groups, values):
        low[blocks], high[blocks] = columns[(len(columns) - 1) // 2], columns[len(columns) // 2]
    total = low + high  # a sum beyond a double's range: halves first (exact)
    return np.where(np.isfinite(total), total / 2, low / 2 + high / 2)


def _group_sums(groups: arrow.Groups, values: np.ndarray) -> np.ndarray:
    """Each group's sum of ``values``, added one after the other from 0 as ranx's loops
    add, but from the smallest up (:func:`_sorted_groups`), where ranx adds them in the
    runs' order: the sum of the same values whatever the order of the runs, so that a
    document's scores equal on paper are equal doubles, which trec_eval 10.0 (reading
    doubles) ranks by docno as 9.0.8 does (in the runs' order, RRF at k 1 of ranks 2, 3
    and 4 was 0.7833333333333332 or ...33 by the order the runs came in)."""
    sums = np.zeros(len(groups.counts))
    for blocks, columns in _sorted_groups(groups, values):
        total = np.zeros(len(blocks))  # from 0: a sum of -0.0s is 0.0, as ranx's
        for column in columns:
            total += column
        sums[blocks] = total
    return sums


NETWORK_SIZE = 16  # groups of up to so many values sorted by compare-exchanges


def _sorted_groups(groups: arrow.Groups, values: np.ndarray) -> Iterable[tuple]:
    """For each size of group, its groups and their ``values`` as columns, the first the
    smallest of each group: a group holds a value per run at most, so the groups of a size
    are sorted at once, by an odd-even transposition network of ``np.minimum`` and
    ``np.maximum`` over whole columns (a sort per row is slower), larger ones by a sort."""
    ordered = values[groups.order]
    for size in np.flatnonzero(np.bincount(groups.counts)):
        blocks = np.flatnonzero(groups.counts == size)
        rows = groups.starts[blocks, None] + np.arange(size)
        if size > NETWORK_SIZE:
            yield blocks, list(np.sort(ordered[rows], axis=1).T)
            continue
        columns = list(ordered[rows].T)
        for sweep in range(size):
            for i in range(sweep % 2, size - 1, 2):
                low, high = columns[i], columns[i + 1]
                columns[i], columns[i + 1] = np.minimum(low, high), np.maximum(low, high)
        yield blocks, columns


def _topic_scale(scores: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Per topic, the power of two ``2**(e-1)`` with ``2**e > max |s|`` (1 when every
    ``|s| < 2``), so that every scaled score lies within (-2, 2).

    The score normalisations are ratios of differences, sums and square roots of squares:
    computed on ``s / 2**(e-1)`` (and the floor scaled alike) they give bit for bit the
    values of the direct formulas, since scaling by a power of two is exact, but no
    difference, sum or square can overflow (scores near ±1e300 made the z-score infinite
    and reversed the fused order). ``2**(e-1)`` rather than ``2**e``: the largest doubles
    (1.7e308) have ``e = 1024``, and ``2**1024`` is no double."""
    largest = np.maximum.reduceat(np.abs(scores), starts)
    _, exponent = np.frexp(largest)
    return np.ldexp(1.0, np.maximum(exponent - 1, 0))


def normalise(scores: np.ndarray, ranks: np.ndarray, starts: np.ndarray, norm: str) -> np.ndarray:
    """Per-topic normalised scores of one ranked run (rows grouped by topic, ``starts`` the
    topics' first rows, ``ranks`` 1-based); see the module docstring. Computed on scores
    scaled per topic (:func:`_topic_scale`): no intermediate value overflows."""
    lengths = np.diff(np.append(starts, len(scores)))
    block = np.repeat(np.arange(len(starts)), lengths)
    if norm == "none":
        return scores
    if norm == "rank":
        return 1 - (ranks - 1) / lengths[block]
    scale = _topic_scale(scores, starts)
    scores = scores / scale[block]
    over = partial(_over_floored, scale=scale, block=block)
    low = np.minimum.reduceat(scores, starts)
    if norm == "min-max":
        return over(scores - low[block], np.maximum.reduceat(scores, starts) - low)
    if norm == "max":
        return over(scores, np.maximum.reduceat(scores, starts))
    order = _ranx_order(scores, block)
    total = sums_in_order(scores[order], starts, lengths)
    if norm == "sum":
        return over(scores - low[block], total - low * lengths)
    deviation = scores - (total / lengths)[block]
    squares = (deviation * deviation)[order]
    return over(deviation, np.sqrt(sums_in_order(squares, starts, lengths) / lengths))


def _ranx_order(scores: np.ndarray, block: np.ndarray) -> slice | np.ndarray:
    """The rows in the order ranx adds a topic's scores: the doubles descending. A ranked
    run is in that order but where scores tie only at float32 (1.00000005 and 1, ranked by
    docno); only then are its rows sorted again."""
    if not ((np.diff(scores) > 0) & (np.diff(block) == 0)).any():
        return slice(None)
    return np.lexsort((-scores, block))


def sums_in_order(values: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The sum of each block of rows (``lengths[i]`` rows from ``starts[i]``), added one
    row after the other from 0 as ranx's loops add, so that the last bit is ranx's too
    (``np.add.reduceat`` adds in pairs: its last bit differs). Vectorised: the blocks of
    at most √rows rows advance one position at a time, all at once; each longer block
    (fewer than √rows of them) is summed by a running sum (``np.cumsum`` adds in order)."""
    sums = np.zeros(len(starts))
    longest = math.isqrt(len(values))
    for block in np.flatnonzero(lengths > longest):
        start = starts[block]
        # + 0.0: ranx's sum starts at 0, so that a sum of -0.0s is 0.0
        sums[block] = np.cumsum(values[start : start + lengths[block]])[-1] + 0.0
    short = np.flatnonzero(lengths <= longest)
    short = short[np.argsort(-lengths[short], kind="stable")]  # the longest first
    # at each position, the blocks that reach it are the first `count` of them
    deepest = int(lengths[short].max(initial=0))
    reach = np.searchsorted(-lengths[short], -np.arange(deepest), side="left")
    for position, count in enumerate(reach):
        blocks = short[:count]
        sums[blocks] += values[starts[blocks] + position]
    return sums


def _over_floored(numerator, denominator, scale, block) -> np.ndarray:
    """``numerator / max(denominator, FLOOR)`` per row, of values scaled per topic by
    ``scale`` (the denominator per topic): where the floor is the larger it divides the
    value unscaled, as the scaled floor beside the largest doubles is subnormal and
    loses bits. (The floor under a negative largest score can still overflow: refused
    later, :func:`_refuse_non_finite`.)"""
    floor = FLOOR / scale
    floored = denominator < floor
    with np.errstate(over="ignore"):
        result = numerator / np.maximum(denominator, floor)[block]
        rows = floored[block]
        result[rows] = numerator[rows] * scale[block][rows] / FLOOR
    return result


def _refuse_non_finite(fused: np.ndarray, qids: pa.Array, docnos: pa.Array, settings) -> None:
    """A fused score beyond a double (huge weights, or scores near the largest double under
    ``none`` or ``max``) is refused: written, it would be ``inf`` or ``nan``. ``settings``:
    the call's method, normalisation and whether it gave weights (:func:`_remedies`)."""
    bad = np.flatnonzero(~np.isfinite(fused))
    if len(bad):
        row = int(bad[0])
        raise UsageError(
            f"the fused score of document {excerpt(docnos[row].as_py())} in topic "
            f"{excerpt(qids[row].as_py())} is {fused[row]} (beyond a double's range): "
            f"{_remedies(*settings)}"
        )


def _remedies(method: str, norm: str, weighted: bool, weight_size: str = "smaller") -> str:
    """What keeps the fused scores within range (a double's; float32's, where
    ``weight_size``, smaller or larger, says which way they are out of it), among what
    this call did not choose: weights of that size (where the caller gave them:
    --optimize's sum to 1 whatever its grid); a normalisation that bounds the scores
    (min-max: within [0, 1]); a method of ranks."""
    ways = [f"{weight_size} weights"] if weighted else []
    if method in SCORE_BASED and norm in ("none", "max"):
        ways.append("a normalisation such as min-max")
    if method in SCORE_BASED:
        ways.append("a rank-based method (rrf)")
    if not ways:  # RRF of a huge k: its own warning names k
        return "give a smaller k"
    return "give " + (", ".join(ways[:-1]) + " or " if len(ways) > 1 else "") + ways[-1]


def _deepest_rank(ranked: pa.Table) -> int:
    """The deepest rank of a ranked run (its row count when it has no ranks)."""
    if "rank" not in ranked.column_names or not ranked.num_rows:
        return ranked.num_rows
    return int(pc.max(ranked.column("rank")).as_py())
