"""Fuse ranked runs into one: reciprocal rank fusion, CombSUM and its relatives.

Every input run is first put in trecbench's one ranking (:mod:`trecbench.ranking`: score
descending at float32, ties by docno descending), so a rank-based method sees the ranks
trec_eval would see. Each run then gives every document it retrieved for a topic a value:

* rank-based methods use the 1-based rank ``r``: ``rrf`` ``1 / (k + r)`` (Cormack et al.
  2009), ``isr`` ``1 / r**2`` (Mourão et al. 2014);
* score-based methods use the score after a per-topic normalisation (``norm``), as ranx
  defines them, floors included, so that results equal ranx's:

  ==========  ========================================================
  ``none``    the score as it is
  ``min-max`` ``(s - min) / max(max - min, 1e-9)``
  ``z-score`` ``(s - mean) / max(sd, 1e-9)``, population sd (ranx ``zmuv``)
  ``max``     ``s / max(max, 1e-9)``
  ``sum``     ``(s - min) / max(sum(s) - n * min, 1e-9)``
  ``rank``    ``1 - (r - 1) / n`` (``n`` documents in the topic)
  ==========  ========================================================

Per (topic, document), over the runs that retrieved it (``w`` the runs' weights, 1 by
default; a run that did not retrieve a document adds nothing):

============  ===============================================  ==============
method        fused score                                      ranx name
============  ===============================================  ==============
``rrf``       sum of ``w * 1 / (k + r)``                        ``rrf``
``isr``       sum of ``1 / r**2`` times the number of runs      ``isr``
``combsum``   sum of ``w * v`` (a weighted sum with weights)   ``sum``/``wsum``
``combmnz``   sum of ``v`` times the number of runs            ``mnz``
``combmax``   largest ``v``                                    ``max``
``combmin``   smallest ``v``                                   ``min``
``combmed``   median of the ``v``                              ``med``
``combanz``   mean of the ``v``                                ``anz``
``wmnz``      sum of ``v`` times the sum of those runs' ``w``  ``wmnz``
============  ===============================================  ==============

The fused run is ranked by the same policy and cut at ``depth`` documents per topic;
scores keep full double precision. No intermediate value overflows: the normalisations
are computed on each topic's scores divided by a power of two at least their largest
magnitude (exact, so the values are those of the formulas bit for bit), and a fused score
beyond a double's range (huge weights, scores near 1e308 under ``none``) is refused in one
line rather than written as ``inf`` or ``nan``. Fused scores that differ as doubles but
tie at float32, which trec_eval 9.x then ranks by docno, are warned of wherever that
ranking puts a smaller score above a larger one, by more than rounding (2**-40 of their
size): out of float32's range (beyond ±3.4e38, read as infinity; within ±1.2e-38, read as
0 or with few bits) or within it (sums over several runs: RRF from a k of about 1e3), each
kind in a warning (:mod:`trecbench.fused_ties`). Every sum adds one term after the other
in ranx's order, so that the values are ranx's bit for bit (:func:`sums_in_order`): a
topic's sums (``sum``; ``z-score``'s mean and sd) its scores, the doubles descending; a
document's its runs' values, in the order the runs are given. Everything is vectorised:
a topic's extremes are a ``reduceat`` over topic blocks, and the documents of all runs
are grouped once by (topic, document).
"""

from __future__ import annotations

import math
import numbers
import os
import warnings
from collections.abc import Iterable, Sequence
from functools import partial
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from . import arrow, fused_ties, input_warnings, ranking
from .callers import outside_trecbench
from .errors import ParameterDomainWarning, UsageError, excerpt, one_line
from .inputs import split_runs
from .inputs.streams import steps
from .inputs.tables import carry_integer_ids
from .naming import check_run_tag
from .score_precision import compares_float32
from .trec_eval import compat as versions

if TYPE_CHECKING:
    from .gated.reading import Progress

RANK_BASED = ("rrf", "isr")
SCORE_BASED = ("combsum", "combmnz", "combmax", "combmin", "combmed", "combanz", "wmnz")
METHODS = RANK_BASED + SCORE_BASED
# ranx's names (and the common "wsum") for the same methods
METHOD_ALIASES = {"wsum": "combsum", "sum": "combsum", "mnz": "combmnz", "max": "combmax",
                  "min": "combmin", "med": "combmed", "anz": "combanz"}  # fmt: skip
WEIGHTED = ("rrf", "combsum", "wmnz")
NORMS = ("none", "min-max", "z-score", "max", "sum", "rank")
NORM_ALIASES = {"min_max": "min-max", "minmax": "min-max", "zmuv": "z-score", "zscore": "z-score"}
DEFAULT_NORM = "min-max"  # ranx's default for score-based methods
FLOOR = 1e-9  # ranx's floor under every normalisation denominator


def method_name(method: str) -> str:
    """The canonical name of a fusion method (``"wsum"`` -> ``"combsum"``)."""
    name = METHOD_ALIASES.get(str(method).lower(), str(method).lower())
    if name not in METHODS:
        known = ", ".join([*METHODS, *METHOD_ALIASES])
        raise UsageError(f"unknown fusion method {method!r}; choose one of {known}")
    return name


def norm_name(norm: str | None, method: str) -> str:
    """The canonical normalisation for ``method``: rank-based methods take none; score-based
    ones default to min-max."""
    if method in RANK_BASED:
        if norm not in (None, "none"):
            raise UsageError(f"{method} fuses ranks: a score normalisation ({norm}) does not apply")
        return "none"
    if norm is None:
        return DEFAULT_NORM
    name = NORM_ALIASES.get(str(norm).lower(), str(norm).lower())
    if name not in NORMS:
        known = ", ".join([*NORMS, *NORM_ALIASES])
        raise UsageError(f"unknown normalisation {norm!r}; choose one of {known}")
    return name


def check_number(name: str, value, minimum: float) -> float:
    """``value`` as a float, refused unless a finite real number of at least ``minimum``."""
    if (
        isinstance(value, bool)
        or not isinstance(value, numbers.Real)
        or not math.isfinite(value)
        or value < minimum
    ):
        at_least = f" >= {minimum:g}" if math.isfinite(minimum) else ""
        raise UsageError(f"{name} must be a finite number{at_least}, not {value!r}")
    return float(value)


DEFAULT_K = 60  # RRF's k unless given (Cormack et al. 2009)


def k_as_given(k: float) -> float:
    """RRF's (checked) ``k`` as given: a whole number as an integer (``--k 60`` and the
    default 60 come as 60.0 from the option's type; records say 60), else as it is."""
    whole = isinstance(k, float) and k.is_integer() and abs(k) < 2**53
    return int(k) if whole else k


def _weights(weights, n_runs: int, method: str) -> np.ndarray:
    if weights is None:
        if method == "wmnz":
            raise UsageError("wmnz needs one weight per run")
        return np.ones(n_runs)
    if method not in WEIGHTED:
        raise UsageError(f"weights apply to {', '.join(WEIGHTED)}, not to {method}")
    if isinstance(weights, (str, bytes)) or not isinstance(weights, Iterable):
        raise UsageError(f"weights are one number per run, not {excerpt(weights)}")
    weights = list(weights)
    if len(weights) != n_runs:
        raise UsageError(f"{len(weights)} weight(s) for {n_runs} run(s): give one per run")
    # a weight is a run's share of the fused score: below 0, the documents a run ranks
    # highest would lose the most, falling below those it never retrieved
    checked = np.array([check_number("a weight", w, 0) for w in weights], np.float64)
    if not checked.any():
        raise UsageError("the weights are all 0: every fused score would be 0")
    return checked


# what a run given twice is told to do instead: in the command line's words, the API's
WEIGH_BY_OPTION = f"to weigh a run more, give it a weight (-w, with {', '.join(WEIGHTED)})"
WEIGH_BY_ARGUMENT = f"to weigh a run more, give it a weight (weights=, with {', '.join(WEIGHTED)})"


def check_distinct_files(runs, others: Sequence = (), advice=WEIGH_BY_ARGUMENT) -> None:
    """Refuse a run file given twice (by any path: a link too; standard input ``-`` twice),
    before anything is read: fused with itself it would weigh double without a word (the
    refusal ends with ``advice``, unless None); and one pipe or standard input both a run
    and one of ``others`` (the qrels of a search, an ir_metadata file): it is read once."""
    from .naming import check_read_once, repeated_file

    repeated = repeated_file([run for run in runs if isinstance(run, (str, os.PathLike))])
    if repeated is not None:
        path, first = repeated
        also = "" if first == path else f" (also as {one_line(first)})"
        raise UsageError(_with(f"{one_line(path)}: this run is given twice{also}", advice))
    check_read_once([*runs, *others])


def ranked_tables(
    runs, progress: Progress | None = None, names=None, advice=WEIGH_BY_ARGUMENT
) -> list[pa.Table]:
    """Each of ``runs`` (named in errors by ``names`` or run1, run2...) as :func:`ranked_table`
    gives it, read once (``progress``: the bytes read); a run given twice or a copy of one
    (the same rows, tags included) refused as :func:`check_distinct_files` says."""
    from .gated.reading import load
    from .inputs import held
    from .inputs.integer_ids import refuse_lost_zeros_among

    check_distinct_files(runs, advice=advice)
    names = [one_line(str(run)) if isinstance(run, (str, os.PathLike)) else f"run{i + 1}"
             if names is None else names[i] for i, run in enumerate(runs)]  # fmt: skip
    tables, said = [], []  # said: each run as its errors name it (a file by its path)
    for run, name in zip(runs, names, strict=True):
        with held.naming(run, name):  # as trecbench.naming.run_names names it
            loaded = load(run, "run", progress=progress)
            table = carry_integer_ids(loaded.table, rank_loaded(loaded).table())
        said.append(one_line(loaded.origin) if isinstance(run, (str, os.PathLike)) else name)
        twin = next((i for i, other in enumerate(tables) if same_rows(other, table)), None)
        if twin is not None:
            copy = f"{said[-1]}: this run holds the rows of {said[twin]} (a copy)"
            raise UsageError(_with(copy, advice))
        tables.append(table)
    refuse_lost_zeros_among(tables, names)
    return tables


def _with(refusal: str, advice: str | None) -> str:
    return refusal if advice is None else f"{refusal}; {advice}"


def same_rows(a: pa.Table, b: pa.Table) -> bool:
    """Whether two ranked tables hold the same rows, tags included, in trec_eval's order
    (whatever their string types: a tab-separated file's and a Parquet file's differ)."""
    if a.num_rows != b.num_rows:
        return False
    # the scores first: no cast, and two runs' differ at once (4 ms for 7M rows, where
    # casting and comparing their topic ids took 0.28 s, for every pair of runs)
    text = pa.large_string()
    types = {"score": pa.float64(), "docno": text, "qid": text, "tag": text}
    return all(a.column(c).cast(t).equals(b.column(c).cast(t)) for c, t in types.items())


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


def _values(ranked: pa.Table, method: str, norm: str, k: float) -> np.ndarray:
    """What one ranked run contributes for each of its rows."""
    ranks = arrow.to_numpy(ranked.column("rank")).astype(np.float64)
    if method == "rrf":
        return 1.0 / (k + ranks)
    if method == "isr":
        return 1.0 / (ranks * ranks)
    scores = arrow.to_numpy(ranked.column("score")).astype(np.float64)
    return normalise(scores, ranks, ranking.topic_starts(ranked.column("qid")), norm)


def _combine(method: str, groups: arrow.Groups, values, weights) -> np.ndarray:
    """The fused score of every group of (topic, document) rows (a group's rows in the
    runs' order: its sums add them as ranx does)."""
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
    # combmed: sort each group's values, average the two middle ones (one when odd)
    group = np.repeat(np.arange(len(groups.counts)), groups.counts)
    ordered = values[groups.order]
    ordered = ordered[np.lexsort((ordered, group))]
    low = ordered[groups.starts + (groups.counts - 1) // 2]
    high = ordered[groups.starts + groups.counts // 2]
    total = low + high  # a sum beyond a double's range: halves first (exact)
    return np.where(np.isfinite(total), total / 2, low / 2 + high / 2)


def _group_sums(groups: arrow.Groups, values: np.ndarray) -> np.ndarray:
    """Each group's sum of ``values``, added in the order of its rows (:func:`sums_in_order`)."""
    return sums_in_order(values[groups.order], groups.starts, groups.counts)


def ranked_run(
    source,
    progress: Progress | None = None,
    score_text: bool = False,
    compat: str = versions.DEFAULT,
    float32: bool = True,
) -> ranking.RankedRun:
    """A run (any input kind of :mod:`trecbench.inputs`: path, DataFrame, pyarrow table,
    ``{qid: {docno: score}}``...) in trec_eval's order, its rows not yet moved; a
    document listed twice in a topic is an error (exit 4, as trec_eval). ``progress``:
    as :func:`ranked_tables` takes it; ``score_text``: a run file's scores as written
    kept too (:func:`trecbench.inputs.load`); ``compat``: the trec_eval version that reads
    and ranks it (10.0: ``#`` lines are comments, scores compare as doubles), scores
    compared as float32 where it does and ``float32``."""
    from .gated.reading import load

    version = versions.get(compat)
    loaded = load(source, "run", progress=progress, version=version, score_text=score_text)
    return rank_loaded(loaded, compares_float32(version, float32))


def rank_loaded(loaded, float32: bool = True, step=lambda: None) -> ranking.RankedRun:
    """A run loaded (:func:`trecbench.evaluation.load`) in trec_eval's order, its rows not
    yet moved, a document listed twice in a topic refused; ``step()`` told after its sort,
    its ties ordered and its duplicates checked (:func:`trecbench.inputs.streams.steps`)."""
    order = ranking.order_run(loaded.table, float32, step=step)
    step()
    ranked = ranking.RankedRun(loaded.table, order, order.qids.to_pylist())
    ranked.check_duplicates(loaded.origin)
    step()
    return ranked


def ranked_table(source, score_text: bool = False, **ranked) -> pa.Table:
    """:func:`ranked_run` as a table in trec_eval's order with 1-based ``rank``
    (``ranked``: :func:`ranked_run`'s ``compat`` and ``float32``)."""
    return ranked_run(source, score_text=score_text, **ranked).table()


def check_depth(depth) -> None:
    """The documents a fusion keeps per topic: None (all) or a positive integer."""
    whole = isinstance(depth, numbers.Integral) and not isinstance(depth, bool)
    if depth is not None and (not whole or depth < 1):
        raise UsageError(f"depth must be a positive integer, not {depth!r}")


def checked_settings(
    method: str, norm: str | None, k, weights, n_runs: int, depth, tag
) -> tuple[str, str, float, np.ndarray]:
    """``(method, norm, k, weight per run)`` of a fusion of ``n_runs`` runs, every setting
    checked (before any run is read, where a configuration names them)."""
    if not n_runs:
        raise UsageError("nothing to fuse: no run given")
    method = method_name(method)
    norm = norm_name(norm, method)
    k = check_number("k", DEFAULT_K if k is None else k, 0)  # None: as a candidate holds it
    check_depth(depth)
    check_run_tag(tag)
    return method, norm, k, _weights(weights, n_runs, method)


def fuse_tables(
    runs: Sequence[pa.Table],
    method: str = "rrf",
    *,
    k: float | None = DEFAULT_K,
    norm: str | None = None,
    weights: Sequence[float] | None = None,
    depth: int | None = None,
    tag: str | None = None,
    progress: Progress | None = None,
    searched: bool = False,
) -> pa.Table:
    """:func:`fuse` on runs already ranked by :func:`ranked_table`: a pyarrow table ``qid,
    docno, rank, score, tag`` in trec_eval's order. ``progress(label, done, total)``: the
    steps (``fusing``: the runs' values, their documents matched, combined, ranked). Each
    kind of :func:`fused_and_ties`' ties is warned of in one ParameterDomainWarning (at the
    caller outside trecbench): wherever the ranking written puts a smaller fused score
    above a larger one (beyond rounding) as they tie at float32; ``searched``: as there."""
    fused, ties = fused_and_ties(
        runs, method, k=k, norm=norm, weights=weights, depth=depth, tag=tag,
        progress=progress, searched=searched,
    )  # fmt: skip
    for message in ties.values():
        warnings.warn(ParameterDomainWarning(message), stacklevel=outside_trecbench())
    return fused


def fused_and_ties(
    runs: Sequence[pa.Table],
    method: str = "rrf",
    *,
    k: float | None = DEFAULT_K,
    norm: str | None = None,
    weights: Sequence[float] | None = None,
    depth: int | None = None,
    tag: str | None = None,
    progress: Progress | None = None,
    searched: bool = False,
) -> tuple[pa.Table, dict[str, str]]:
    """:func:`fuse_tables` without its warnings: the fused table and what of it ties at
    float32 against its order, ``{kind: message}`` (``rrf ranks``: RRF's k; fused scores
    ``overflow``: beyond float32's range, ``underflow``: within its smallest normal value,
    ``precision``: within its range; :mod:`trecbench.fused_ties`), for a caller that fuses
    many settings and says each kind once (:func:`~trecbench.runstudy.fusion_tuning.tune_fusion`).
    ``searched``: the weights (RRF: k) are a search's (``--optimize``'s grid, which sums
    weights to 1), not the caller's: what the messages advise leaves them out."""
    method, norm, k, weight = checked_settings(method, norm, k, weights, len(runs), depth, tag)
    ties = {}
    if method == "rrf":
        ties["rrf ranks"] = fused_ties.rrf_ranks(k, max(_deepest_rank(t) for t in runs))
    step = steps(progress, "fusing", 4)
    qids, docnos, values, row_weights = [], [], [], []
    for index, ranked in enumerate(runs):
        qids.append(pc.cast(ranked.column("qid"), pa.large_string()).combine_chunks())
        docnos.append(pc.cast(ranked.column("docno"), pa.large_string()).combine_chunks())
        values.append(_values(ranked, method, norm, k))
        row_weights.append(np.full(ranked.num_rows, weight[index]))
    qid, docno = pa.concat_arrays(qids), pa.concat_arrays(docnos)
    step()
    groups = arrow.Groups(arrow.row_keys(qid, docno))
    step()
    values, row_weights = np.concatenate(values), np.concatenate(row_weights)
    with np.errstate(over="ignore", invalid="ignore"):  # refused below, not warned about
        fused = _combine(method, groups, values, row_weights)
    first = arrow.array(groups.first)
    settings = (method, norm, weights is not None and not searched)
    _refuse_non_finite(fused, qid.take(first), docno.take(first), settings)
    table = pa.table(
        {
            "qid": qid.take(first),
            "docno": docno.take(first),
            "score": arrow.array(fused),
            "tag": pa.repeat(arrow.scalar(tag or method, pa.large_string()), len(fused)),
            "group": arrow.array(np.arange(len(fused))),  # its row of sizes, below
        }
    )
    step()
    ranked = ranking.truncate(ranking.rank_table(table), depth)
    remedies = {"overflow": _remedies(*settings)}
    if not ties.get("rrf ranks"):  # RRF of a huge k: said already
        remedies["underflow"] = _remedies(*settings, weight_size="larger")
        remedies["precision"] = fused_ties.kept_apart(given_k=method == "rrf" and not searched)
    sizes = partial(_combine, method, groups, np.abs(values), row_weights)  # when asked
    ties.update(fused_ties.against_order(ranked, remedies, sizes))
    step()
    fused_table = ranked.select(["qid", "docno", "rank", "score", "tag"])
    found = {kind: message for kind, message in ties.items() if message is not None}
    return carry_integer_ids(list(runs), fused_table), found


@input_warnings.carried
def fuse(
    runs,
    method: str = "rrf",
    *,
    k: float | None = DEFAULT_K,
    norm: str | None = None,
    weights: Sequence[float] | None = None,
    depth: int | None = None,
    tag: str | None = None,
    progress: Progress | None = None,
):
    """Fuse runs into one ranked run.

    ``runs``: paths (plain or .gz), DataFrames or pyarrow tables (``qid, docno, score``)
    or dicts: one, or any number in a collection or ``{name: run}``
    (:func:`trecbench.inputs.split_runs`); their topics need not agree. ``method``:
    ``rrf`` (with ``k``, default 60, as None gives it: an optimize_fusion candidate of
    weights holds k None), ``isr``, ``combsum`` (a weighted sum with ``weights``),
    ``combmnz``, ``combmax``, ``combmin``, ``combmed``, ``combanz``, ``wmnz``
    (ranx's ``sum``, ``wsum``, ``mnz``, ``max``, ``min``, ``med``, ``anz`` are accepted).
    ``norm``: the per-topic score normalisation of score-based methods, ``min-max``
    (default), ``z-score`` (``zmuv``), ``max``, ``sum``, ``rank`` or ``none``. ``weights``:
    one per run, each ``>= 0``, not all 0 (``rrf``, ``combsum``, ``wmnz``). ``depth``:
    documents kept per topic (default: all). ``tag``: the run tag (default: the method's
    name). ``progress(label, done, total)``: reading (bytes of each file) and fusing
    (steps), as ``trecbench fuse`` draws them.

    Returns a DataFrame ``qid, q0, docno, rank, score, tag`` in trec_eval's order (write it
    with :func:`trecbench.write_run`). See :mod:`trecbench.fusion` for the formulas.

    >>> fused = fuse(["lexical.run", "vector.run"], "rrf", k=60, depth=100)  # doctest: +SKIP
    """
    sources, names = split_runs(runs)
    checked_settings(method, norm, k, weights, len(sources), depth, tag)  # before reading
    tables = ranked_tables(sources, progress, names)
    settings = {"k": k, "norm": norm, "weights": weights, "depth": depth, "tag": tag}
    return run_frame(fuse_tables(tables, method, **settings, progress=progress))


def _deepest_rank(ranked: pa.Table) -> int:
    """The deepest rank of a ranked run (its row count when it has no ranks)."""
    if "rank" not in ranked.column_names or not ranked.num_rows:
        return ranked.num_rows
    return int(pc.max(ranked.column("rank")).as_py())


def run_frame(fused: pa.Table):
    """A fused table (:func:`fuse_tables`) as :func:`fuse` returns it: a DataFrame ``qid,
    q0, docno, rank, score, tag``."""
    from .inputs import to_pandas

    frame = to_pandas(fused)
    frame.insert(1, "q0", "Q0")
    return frame
