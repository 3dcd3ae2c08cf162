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
ranking puts a smaller score above a larger one, by more than rounding (a few units of
2**-53 of their size for the runs' own values, 2**-40 after a normalisation): out of
float32's range (beyond ±3.4e38, read as infinity; within ±1.2e-38, read as 0 or with
few bits) or within it (sums over several runs: RRF from a k of about 1e3), each
kind in a warning (:mod:`trecbench.fused_ties`). Every sum adds one term after the other
(:func:`trecbench.fusion_plan.sums_in_order`): a topic's sums (``sum``; ``z-score``'s mean
and sd) its scores, the doubles descending, as ranx adds them; a document's its runs'
values from the smallest up, where ranx adds them in the runs' order, so that the fused
run does not depend on the order of the runs and the same values are the same double
(ranx's bit for bit where two runs or one hold the document). Everything is vectorised:
a topic's extremes are a ``reduceat`` over topic blocks, and the documents of all runs
are grouped once by (topic, document).
"""

from __future__ import annotations

import numbers
import os
import warnings
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

from . import input_warnings, ranking
from .callbacks import refuse_uncallable
from .callers import outside_trecbench
from .errors import ParameterDomainWarning, UsageError, one_line
from .fusion_plan import (
    DEFAULT_K,
    RANK_BASED,
    SCORE_BASED,
    WEIGHTED,
    FusionPlan,
    check_number,
    checked_weights,
)
from .inputs import no_run_given, split_runs
from .inputs.streams import steps
from .inputs.tables import carry_integer_ids
from .naming import check_run_tag
from .score_precision import compares_float32
from .trec_eval import compat as versions

if TYPE_CHECKING:
    from .gated.reading import Progress

METHODS = RANK_BASED + SCORE_BASED
# ranx's names (and the common "wsum") for the same methods
METHOD_ALIASES = {"wsum": "combsum", "sum": "combsum", "mnz": "combmnz", "max": "combmax",
                  "min": "combmin", "med": "combmed", "anz": "combanz"}  # fmt: skip
NORMS = ("none", "min-max", "z-score", "max", "sum", "rank")
NORM_ALIASES = {"min_max": "min-max", "minmax": "min-max", "zmuv": "z-score", "zscore": "z-score"}
DEFAULT_NORM = "min-max"  # ranx's default for score-based methods


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


def k_as_given(k: float) -> float:
    """RRF's (checked) ``k`` as given: a whole number as an integer (``--k 60`` and the
    default 60 come as 60.0 from the option's type; records say 60), else as it is."""
    whole = isinstance(k, float) and k.is_integer() and abs(k) < 2**53
    return int(k) if whole else k


# what a run given twice is told to do instead: in the command line's words, the API's
WEIGH_BY_OPTION = f"to weigh a run more, give it a weight (-w, with {', '.join(WEIGHTED)})"
WEIGH_BY_ARGUMENT = f"to weigh a run more, give it a weight (weights=, with {', '.join(WEIGHTED)})"


def check_distinct_files(runs, others: Sequence = (), advice=WEIGH_BY_ARGUMENT) -> None:
    """Refuse a run file given twice (by any path: a link too; standard input ``-`` twice),
    before anything is read: fused with itself it would weigh double without a word (the
    refusal ends with ``advice``, unless None); and one pipe or standard input both a run
    and one of ``others`` (the qrels of a search, an ir_metadata file): it is read once."""
    from .naming import check_read_once, repeated_file

    # a pipe or standard input given twice first: it cannot be read twice, whatever the
    # weights (as every command says it)
    check_read_once([*runs, *others])
    repeated = repeated_file([run for run in runs if isinstance(run, (str, os.PathLike))])
    if repeated is not None:
        path, first = repeated
        also = "" if first == path else f" (also as {one_line(first)})"
        raise UsageError(_with(f"{one_line(path)}: this run is given twice{also}", advice))


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


def _replayable(weights):
    """``weights`` as a list when given as an iterator (a generator): the settings are
    checked before the runs are read and the weights read again to fuse, which found an
    iterator used up ("0 weight(s) for 2 run(s)")."""
    return list(weights) if isinstance(weights, Iterator) else weights


def checked_settings(
    method: str, norm: str | None, k, weights, n_runs: int, depth, tag
) -> tuple[str, str, float, np.ndarray]:
    """``(method, norm, k, weight per run)`` of ``n_runs`` runs, checked before any is read."""
    if not n_runs:
        raise UsageError("nothing to fuse: no run given")
    method = method_name(method)
    norm = norm_name(norm, method)
    if k is not None and method != "rrf":  # as fuse --k: it was ignored without a word
        raise UsageError(f"k: {method} has no k (it is RRF's constant)")
    k = check_number("k", DEFAULT_K if k is None else k, 0)  # None: as a candidate holds it
    check_depth(depth)
    check_run_tag(tag)
    return method, norm, k, checked_weights(weights, n_runs, method)


def fuse_tables(
    runs: Sequence[pa.Table],
    method: str = "rrf",
    *,
    k: float | None = None,
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
    k: float | None = None,
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
    weights = _replayable(weights)
    method, norm, _, _ = checked_settings(method, norm, k, weights, len(runs), depth, tag)
    step = steps(progress, "fusing", 4)
    plan = FusionPlan(runs, method, norm, depth, step)
    return plan.fused_and_ties(weights, k, tag, searched, step)


def fusion_plan(runs: Sequence[pa.Table], method: str = "rrf", *, norm: str | None = None,
                depth: int | None = None) -> FusionPlan:  # fmt: skip
    """What fusing ``runs`` (ranked, as :func:`fuse_tables` takes them) computes whatever
    the weights (RRF: k), prepared once for a search that fuses many settings of them
    (:meth:`FusionPlan.fused_and_ties`, as :func:`fused_and_ties` fuses one); ``method``,
    ``norm`` and ``depth`` checked as it checks them."""
    if not runs:
        raise UsageError("nothing to fuse: no run given")
    method = method_name(method)
    norm = norm_name(norm, method)
    check_depth(depth)
    return FusionPlan(runs, method, norm, depth)


@input_warnings.carried
def fuse(
    runs,
    method: str = "rrf",
    *,
    k: float | None = None,
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
    ``rrf`` (``k``: 60 unless given; no other method takes one), ``isr``, ``combsum`` (weighted
    by ``weights``), ``combmnz``, ``combmax``, ``combmin``, ``combmed``, ``combanz``, ``wmnz``
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
    refuse_uncallable(progress)
    sources, names = split_runs(runs)
    if not sources:
        raise no_run_given("fuse", runs)
    weights = _replayable(weights)
    checked_settings(method, norm, k, weights, len(sources), depth, tag)  # before reading
    tables = ranked_tables(sources, progress, names)
    settings = {"k": k, "norm": norm, "weights": weights, "depth": depth, "tag": tag}
    return run_frame(fuse_tables(tables, method, **settings, progress=progress))


def run_frame(fused: pa.Table):
    """A fused table (:func:`fuse_tables`) as :func:`fuse` returns it: a DataFrame ``qid,
    q0, docno, rank, score, tag``."""
    from .inputs import to_pandas

    frame = to_pandas(fused)
    frame.insert(1, "q0", "Q0")
    return frame
