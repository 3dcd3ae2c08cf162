"""Evaluate runs against qrels, exactly as trec_eval 9.0.8 (or 10.0) would.

:func:`evaluate` reads the qrels once, and for every run: ranks it once (trec_eval's policy,
:mod:`trecbench.ranking`), keeps the evaluated topics (run ∩ qrels), applies ``-M`` and
``-J``, hands each measure to its engine (:mod:`trecbench.engines`) and redoes trec_eval's
averaging (``-c``, geometric means, summed counts). The result, an :class:`Evaluation`,
keeps per-topic values, aggregates, the measures as requested, the options and the topics
worth a warning; rendering it is :mod:`trecbench.trec_format`'s job.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .. import arrow, inputs, outputs, provenance, ranking, tiebounds
from ..engines import META, NATIVE, PYTREC_EVAL
from ..errors import (
    InputError,
    NoOverlapError,
    TrecbenchError,
    UsageError,
)
from ..measures import (
    GEOMETRIC,
    NUM_Q,
    NUM_REL,
    RUNID,
    STRING,
    SUM,
    Measure,
)
from ..memory import Budget
from ..trec_eval import compat as _compat
from ..trec_eval import placeholder
from ..trec_eval import zscores as zscores_module
from ..trec_eval.prefs_files import PREFS_FORMATS
from .gate import ValidationFailed, _Gate, _gate  # noqa: F401 - ValidationFailed: re-exported
from .judgments import Preferences, Qrels, load_judgments  # noqa: F401 - re-exported
from .plan import _check_rel_format, _measures, _Plan, _plan_topics, _read_whole, _TopicPlan
from .reading import (  # noqa: F401 - load, _blocks_ahead: re-exported
    Progress,
    _blocks_ahead,
    _BlocksAhead,
    _in_background,
    _in_blocks,
    _is_stdin,
    _read_blocks,
    _start_reading,
    load,
)
from .results import (  # noqa: F401
    UNJUDGED_THRESHOLD,
    Column,
    Evaluation,
    FlaggedTopic,
    RunResult,
    Unjudged,
    _few,  # noqa: F401 - re-exported (comparison.py)
)
from .settings import REL_FORMATS, EvalSettings  # noqa: F401 - REL_FORMATS: re-exported

MIN_GEO_MEAN = 1e-5  # trec_eval's floor for geometric means (log(1e-5) per missing topic)


# ---------------------------------------------------------------------------------------
# inputs


# ---------------------------------------------------------------------------------------
# evaluation


@outputs.in_input_scope
def evaluate(
    qrels: inputs.QrelsInput,
    runs: inputs.RunInput | Sequence[inputs.RunInput] | Mapping[str, inputs.RunInput],
    measures: str | Sequence[str] | None = None,
    *,
    relevance_level: int = 1,
    complete: bool = False,
    max_docs: int | None = None,
    judged_only: bool = False,
    num_docs: int | None = None,
    float32: bool = True,
    engine: str = "auto",
    run_names: Sequence[str] | None = None,
    options: Mapping[str, Any] | None = None,
    progress: Progress | None = None,
    tie_bounds: bool = False,
    memory: int | None = None,
    jobs: int | None = None,
    compat: str = _compat.DEFAULT,
    rel_format: str = "qrels",
    zscores=None,
    debug_level: int = 0,
    debug_query: str | None = None,
) -> Evaluation:
    """Evaluate one run or several against qrels, as trec_eval does (9.0.8 by default).

    ``qrels`` and each run are any input :mod:`trecbench.inputs` reads: paths (TREC text,
    plain or compressed, or Parquet), pandas DataFrames or Arrow tables with trec,
    ir_measures or ranx column names, ``{qid: {docno: value}}`` dicts, ir_measures'
    Qrel/ScoredDoc iterables, and for qrels an ir_datasets id (``irds:ID``). ``runs`` is
    one run, a list of runs or a dict ``{name: run}`` (``run_names`` names a list's
    runs; by default a run is named after its file, else ``run1``, ``run2``...).
    ``measures``: names in any spelling (see
    :func:`trecbench.measures.parse_measure`) or trec_eval nicknames; None means the KPI
    preset. trec_eval's flags: ``relevance_level`` (``-l``), ``complete`` (``-c``),
    ``max_docs`` (``-M``), ``judged_only`` (``-J``), ``num_docs`` (``-N``), ``rel_format``
    (``-R``: ``qrels``, ``prefs``, ``qrels_prefs`` or ``qrels_jg``), ``zscores`` (``-Z``, a
    z-scores file), ``debug_level``/``debug_query`` (``-D level.qid``: trace output, one
    topic); ``float32`` compares scores at float32 precision like 9.x. ``compat="10.0"``
    reproduces trec_eval 10.0 instead (:mod:`trecbench.trec_eval.compat` lists what
    differs). ``options`` go to local measures (``maxontsim_formula``, ``ontology``).
    ``progress(label, done, total)`` is told how reading files (bytes) and scoring runs
    advance. ``tie_bounds``: also compute, per run and measure, the lowest and highest
    value over all orders of tied documents (:attr:`Evaluation.tie_bounds`; see
    :mod:`trecbench.tiebounds`).

    ``memory``: the budget in MiB (default: half of the memory available,
    :mod:`trecbench.memory`). A run file longer than a block of lines is read and scored
    in blocks of whole topics, a run whose topics are scattered and that does not fit is
    spilled to disk (:mod:`trecbench.inputs.blocks`); the results are those of the run
    scored whole. Runs are read whole, whatever ``memory`` is, with ``-R`` other than
    qrels, ``-Z``, ``-D``, ``compat="10.0"`` or a measure only trecbench's ports of
    trec_eval compute (with 9.0.8: ``dcg``, ``ideal_dcg``, ``yaap``, ``rbp_resid``,
    ``unj``). ``jobs``: processes scoring several run files at once (default: the cores
    available, when the files are large enough to gain from it; 1: in this process); the
    results, their order and the errors are those of one process.

    Each run records how many of the documents it retrieved within the evaluated depth
    have no judgment (``RunResult.unjudged``; :meth:`Evaluation.unjudged_runs`): a run
    scored against another run's qrels shows up there.

    Raises :class:`trecbench.errors.InputError` for malformed input,
    :class:`~trecbench.errors.DuplicateError` for a document listed twice in an evaluated
    topic and :class:`~trecbench.errors.NoOverlapError` when a run shares no topic with
    the qrels. Where trec_eval stops part-way (exit 4) the error's ``partial`` is an
    :class:`Evaluation` of what trec_eval printed before stopping (the topics before).

    >>> result = evaluate("qrels.txt", "run.txt", ["nDCG@10", "P.5,10"])  # doctest: +SKIP
    >>> result.per_query.head()  # run, qid, measure, value               # doctest: +SKIP
    """
    config = EvalSettings(
        relevance_level=relevance_level, complete=complete, max_docs=max_docs,
        judged_only=judged_only, num_docs=num_docs, float32=float32, engine=engine,
        compat=compat, rel_format=rel_format, zscores=zscores, debug_level=debug_level,
        debug_query=debug_query, options=dict(options or {}), tie_bounds=tie_bounds,
        memory=memory, jobs=jobs,
    )  # fmt: skip
    version = config.version
    sources, names = inputs.split_runs(runs)
    names = list(run_names) if run_names else names
    if version.stdin and sum(map(_is_stdin, sources)) > 1:
        raise UsageError("standard input ('-') holds one run: give it once")
    requested, ordered, engines = _measures(measures, config)
    # the engines decide, with the flags, whether run files may be read in blocks
    read_whole = _read_whole(config, engines)
    workers = _workers(jobs, sources)
    budget = Budget.of(memory, workers=workers)
    # Arrow's threads read the first run while the qrels are loaded (after every check of
    # the arguments: a reader started is stopped only where the qrels may fail)
    ahead = _start_reading(sources, read_whole, workers, budget, qrels, progress, version)
    try:
        truth, loaded_qrels = load_judgments(qrels, rel_format, relevance_level, version, progress)
        _check_rel_format(ordered, engines, rel_format)
        z_table = zscores_module.read_zscores(zscores) if zscores is not None else None
        plan = _Plan(ordered, engines, truth, config, z_table)
        results, columns, flagged = [], None, truth.flagged()
        if progress is not None:
            progress("scoring", 0, len(sources))
    except BaseException:
        if isinstance(ahead, _BlocksAhead):
            ahead.close()  # its reader stops before the file is read on
        raise
    warnings = list(loaded_qrels.warnings)
    qrels_path = loaded_qrels.path
    runs = _Runs(
        sources,
        names,
        plan,
        budget.with_qrels(len(truth.table)),
        read_whole,
        provenance.checksums_taken(),
    )
    if workers > 1:
        from .. import processes

        for source in sources:
            outputs.note_input(source)  # read by the workers: inputs of this call all the same
        done = processes.ordered_map(_score_in_worker, range(len(sources)), workers,
                                     _start_worker, (runs, tie_bounds))  # fmt: skip
    else:
        done = (
            runs.score(index, tie_bounds, progress, ahead if index == 0 else None)
            for index in range(len(sources))
        )
    index = 0
    while True:
        try:
            scored = next(done, None)
        except TrecbenchError as error:
            stopped = getattr(error, "partial_run", None)
            if stopped is not None:  # trec_eval printed the runs and topics before
                partial_columns = columns or getattr(error, "partial_columns", None) or []
                error.partial = Evaluation(
                    requested, partial_columns, [*results, stopped], config, qrels_path
                )
            raise
        if scored is None:
            break
        result, run_columns, run_flags, run_warnings = scored
        if workers > 1 and result.record is not None:
            file_record = {key: result.record[key] for key in ("size", "sha256")}
            provenance.remember(provenance.identity(result.path), file_record)
        warnings += run_warnings
        results.append(result)
        flagged += run_flags
        columns = columns or run_columns
        index += 1
        if progress is not None:
            progress("scoring", index, len(sources))
    return Evaluation(
        requested,
        columns or [],
        results,
        config,
        qrels_path,
        flagged,
        warnings,
        loaded_qrels.record,
        truth.qids,
    )


# run files smaller than this in all are scored in this process: starting workers costs
# more than it saves
PARALLEL_BYTES = 16 << 20


def _workers(jobs: int | None, sources: list) -> int:
    """Processes to score ``sources`` with: ``jobs`` (None: the cores available when run
    files hold :data:`PARALLEL_BYTES` or more), never more than the runs; 1 when a run is
    not a file (tables and dicts stay in this process)."""
    if jobs == 1 or len(sources) < 2:
        return 1
    if not all(isinstance(source, (str, os.PathLike)) for source in sources):
        return 1
    if any(map(_is_stdin, sources)):
        return 1
    if jobs is None:
        try:
            size = sum(os.stat(source).st_size for source in sources)
        except OSError:
            return 1  # the reader says what is wrong
        if size < PARALLEL_BYTES:
            return 1
        from ..processes import available_cores

        jobs = available_cores()
    return max(1, min(jobs, len(sources)))


@dataclass
class _Runs:
    """What scoring the runs of a call needs (a worker process gets it once)."""

    sources: list
    names: list[str] | None
    plan: _Plan
    budget: Budget
    read_whole: str | None  # why run files are read whole (:func:`_read_whole`)
    checksums: bool = True  # whether the files' checksums are taken (in worker processes too)

    def score(self, index: int, tie_bounds: bool, progress=None, ahead=None) -> tuple:
        """``(result, columns, flagged topics, warnings)`` of run ``index``."""
        source, names, plan = self.sources[index], self.names, self.plan
        if hasattr(source, "score_run"):  # scored elsewhere (trecbench.dask.DaskRun)
            if self.read_whole is not None:
                raise UsageError(
                    "a run on Dask is scored as trec_eval 9.0.8 without -R, -Z, -D or the "
                    f"measures of trecbench's native ports; this call has {self.read_whole}"
                )
            name = names[index] if names else None
            return source.score_run(plan, tie_bounds, name)
        in_blocks = ahead is None and self.read_whole is None and _in_blocks(source, self.budget)
        if in_blocks or isinstance(ahead, _BlocksAhead):
            path = os.fspath(source)
            name = names[index] if names else path
            return _evaluate_blocks(path, name, plan, self.budget, progress, tie_bounds, ahead)
        run = load(source, "run", ahead, progress, plan.version)
        name = names[index] if names else run.path or f"run{index + 1}"
        result, columns, flags = _evaluate_run(run.table, name, run.path, plan, tie_bounds)
        result.record = run.record
        return result, columns, flags, list(run.warnings)


_worker: tuple[_Runs, bool] | None = None  # what a worker process scores runs with


def _start_worker(runs: _Runs, tie_bounds: bool) -> None:
    global _worker
    _worker = runs, tie_bounds


def _score_in_worker(index: int) -> tuple:
    runs, tie_bounds = _worker
    with provenance.taking_checksums(runs.checksums):
        return runs.score(index, tie_bounds)


# measures that credit retrieved documents the qrels do not list (by their similarity to
# the listed ones): documents without judgment are not lost on them
_CREDIT_UNJUDGED = frozenset({"MaxOntSim"})


def evaluated_depth(measures, max_docs: int | None) -> int | None:
    """The deepest rank ``measures`` look at: their largest cutoff when every one has a
    cutoff (``P@10``, ``MRR@10``...), else the whole ranking (None), never beyond ``-M``.
    Measures that credit unjudged documents (MaxOntSim) do not count."""
    depths = []
    for measure in measures:
        if measure.family in ("runid", "num_q", "num_rel") or measure.family in _CREDIT_UNJUDGED:
            continue  # facts of the qrels or the call; or judgments are not all they use
        definition = measure.definition
        if measure.cutoffs:
            depths.append(max(measure.cutoffs))
        elif definition.trec_params is None and definition.cutoff and measure.params:
            depths.append(int(float(measure.params)))  # an @k of a non-trec_eval measure
        else:
            depths.append(None)
    if not depths or None in depths:
        return max_docs
    return min(max(depths), max_docs) if max_docs is not None else max(depths)


def _unjudged(ranked_run: ranking.RankedRun, truth: Qrels, depth: int | None) -> tuple:
    """(retrieved, unjudged, topics, topics with nothing judged) within ``depth``."""
    _, (rows, _) = ranked_run.judged(truth)  # the lookup the fast engine reuses
    # diversity qrels judge a document once per subtopic: each row counts once
    judged_rows = np.zeros(ranked_run.run_table.num_rows, bool)
    judged_rows[rows] = True
    rows = np.flatnonzero(judged_rows)
    topic, position = ranked_run.row_arrays()
    if depth is None:
        retrieved, judged = len(ranked_run.rows), rows
    else:
        retrieved = int(np.count_nonzero(ranked_run.position < depth))
        judged = rows[position[rows] < depth]
    topics = _distinct(ranked_run.topic, len(ranked_run.qids))
    filled = _distinct(topic[judged], len(ranked_run.qids))
    return retrieved, retrieved - len(judged), topics, topics - filled


def _distinct(codes: np.ndarray, n: int) -> int:
    """How many distinct values ``codes`` (each in ``range(n)``) holds (no sort, no hash)."""
    seen = np.zeros(n, bool)
    seen[codes] = True
    return int(np.count_nonzero(seen))


def _evaluate_run(table, name, path, plan: _Plan, tie_bounds=False):
    """A run held whole, in any setting: one block of all its topics (:func:`_score_block`
    with ``whole``), its errors decided as for a run in blocks (:func:`_run_result`);
    ``(result, columns, flags)``."""
    runid = table.column("tag")[table.num_rows - 1].as_py() if table.num_rows else ""
    block = _score_block(table, plan, tie_bounds, whole=path or name)
    return _run_result([block], name, path, runid, plan, tie_bounds)


def _float32(plan: _Plan) -> bool:
    """Whether scores compare at float32 precision: asked for, and the trec_eval version
    holds them so (9.x)."""
    return plan.settings.float32 and plan.version.float32


def _produced(ranked, qids, plan: _Plan, engines: list[str]) -> dict:
    """``{measure: [(label, display, per-topic values)]}`` of ``engines`` on a ranked run
    (a :class:`~trecbench.ranking.RankedRun`, or its table in trec_eval order)."""
    produced: dict[Measure, list[tuple]] = {}
    first = [n for n in engines if plan.evaluator(n).before_judged_only]
    for engine_name in first:  # trec_eval's code applies -J itself
        produced.update(plan.evaluator(engine_name).evaluate(ranked, qids))
    rest = [n for n in engines if n not in first]
    settings = plan.settings
    if rest and settings.judged_only and settings.rel_format not in PREFS_FORMATS:
        ranked = ranking.judged_only(ranked, _same_id_types(plan.truth.table, ranked))
    for engine_name in rest:
        produced.update(plan.evaluator(engine_name).evaluate(ranked, qids))
    return produced


def _measure(ranked, qids, plan: _Plan, produced=None) -> tuple:
    """``(columns, values, strings)``: every engine of the plan on a ranked run (see
    :func:`_produced`; ``produced``: what the engines gave, when already computed)."""
    if produced is None:
        produced = _produced(ranked, qids, plan, list(plan.groups))
    columns: list[Column] = []
    values: dict[str, np.ndarray] = {}
    strings: dict[str, list[str]] = {}
    seen: set[str] = set()
    for measure in plan.measures:
        engine = plan.engines[measure]
        if engine == META:
            columns.append(Column(measure.family, measure.family, measure, engine))
            continue
        for label, display, value in produced[measure]:
            if display in seen:  # two spellings of one value (success.10, HitRate@10)
                continue
            seen.add(display)
            columns.append(Column(label, display, measure, engine))
            if measure.summary == STRING:
                strings[label] = value
            else:
                values[label] = value
    return columns, values, strings


def _stopped_run(name, path, runid, qids, values, strings, stop: int, **extra) -> RunResult:
    """What trec_eval printed of a run before it stopped at topic ``stop``: the topics
    before it (``values`` and ``strings`` follow ``qids``), no summary."""
    kept = slice(0, stop)
    return RunResult(
        name,
        path,
        runid,
        qids[kept],
        {label: column[kept] for label, column in values.items()},
        {label: column[kept] for label, column in strings.items()},
        {},
        complete=False,
        **extra,
    )


def _traces(native, plan: _Plan, qids: list[str]) -> list[str]:
    """What each topic prints while computed (``-D``), measures in trec_eval's order."""
    texts = [""] * len(qids)
    if native is None:
        return texts
    from ..engines.native import labels_of

    for measure in plan.measures:
        if plan.engines[measure] == NATIVE:
            for t, text in enumerate(native.traces.get(labels_of(measure)[0], ())):
                texts[t] += text
    return texts


def _convert_to_zscores(values: dict[str, np.ndarray], qids, table) -> None:
    """``-Z``: every per-topic value as a z-score (:mod:`trecbench.trec_eval.zscores`)."""
    labels = list(values)
    for t, qid in enumerate(qids):
        converted = zscores_module.convert(table, qid, labels, [values[lb][t] for lb in labels])
        for label, value in zip(labels, converted, strict=True):
            values[label][t] = value


# ---------------------------------------------------------------------------------------
# runs in blocks of whole topics (files longer than a block, Dask partitions)


@dataclass
class _Block:
    """What scoring one block of whole topics gives (:func:`_score_block`).

    ``run_qids``: the block's distinct topics; ``qids``: those measured (in the qrels,
    sorted, not the ones trec_eval stops at), which ``values``, ``strings`` and ``traces``
    (``-D``) follow (``columns`` None when nothing was measured). ``topics``: trec_eval's
    loop over the topics, for a block that is the whole run.
    ``unjudged``: (retrieved, unjudged, topics, topics with nothing judged).
    ``duplicate``: a document the run lists twice, ``(qid, docno, first line, second
    line)``; ``failure``: where the native engine stopped, ``(qid, error, what it printed
    of that topic)``; ``error``: what an engine raised. With tie bounds: ``extremes``, the
    values of the best and the worst order (None: no tie group mixes keys), ``ties`` and
    ``tied_topics``.
    """

    run_qids: list[str]
    qids: list[str] = field(default_factory=list)
    topics: _TopicPlan | None = None
    columns: list[Column] | None = None
    values: dict[str, np.ndarray] = field(default_factory=dict)
    strings: dict[str, list[str]] = field(default_factory=dict)
    traces: list[str] | None = None
    unjudged: tuple[int, int, int, int] | None = None
    duplicate: tuple[str, str, int, int] | None = None
    failure: tuple[str, TrecbenchError, str] | None = None
    error: Exception | None = None
    extremes: tuple[dict, dict] | None = None
    ties: bool = False
    tied_topics: int = 0


def _score_block(
    table,
    plan: _Plan,
    tie_bounds=False,
    whole: str | None = None,
    checks: bool = True,
) -> _Block:
    """A :class:`_Block` of ``table``, a run or any part of one that holds whole topics;
    the run's errors are decided over all its blocks, in trec_eval's order
    (:func:`_run_result`). ``checks=False`` (an extreme order of tie bounds, only its
    values wanted): no duplicate check and no unjudged count.

    ``whole``: the run's label (its path, else its name) when ``table`` is all of it (any
    setting): its topics are trec_eval's loop over them (:func:`_plan_topics`: 10.0's
    qrels topics, ``-D``'s topic), measured up to the one trec_eval stops at. A part of a
    run (trec_eval 9.0.8's reading, :func:`_read_whole`) cannot know where that is: every
    topic an engine may be given wherever it comes is measured
    (:meth:`Qrels.measurable`)."""
    truth, settings = plan.truth, plan.settings
    order = ranking.order_run(table, float32=_float32(plan))
    run_qids = order.qids.to_pylist()
    lead, placeholders = None, []
    if whole is not None:
        topics = _plan_topics(run_qids, plan, whole)
        block = _Block(run_qids, topics=topics)
        measured = topics.qids[: topics.stop]
        kept = set(measured)
        placeholders = [q for q in topics.placeholders if q in kept]
    else:
        block = _Block(run_qids)
        measured = sorted(q for q in run_qids if q in truth.topics)
        if plan.groups and measured:
            measured = truth.measurable(measured, plan.diversity_only)
            lead = truth.lead(measured) if measured else None
            if measured and lead is None and truth.topics[measured[0]][0] < 0:
                # no judged topic sorts before it: the run's first topic has only negative
                # grades too, where trec_eval stops before printing anything
                measured = []
    if not measured:
        return block
    block.qids = measured
    prefs = settings.rel_format in PREFS_FORMATS
    # preferences rank every retrieved document their own way, then cut at -M themselves
    ranked_run = ranking.RankedRun(table, order, measured, None if prefs else settings.max_docs)
    duplicate = None
    if checks and plan.groups and not prefs:
        ranked_run.index()  # built once, before the thread: the fast engine uses it too
        duplicate = _in_background(ranked_run.first_duplicate)
    credited = any(m.family not in _CREDIT_UNJUDGED and m.provider != META for m in plan.measures)
    if checks and settings.rel_format == "qrels" and credited:
        depth = evaluated_depth(plan.measures, settings.max_docs)
        block.unjudged = _unjudged(ranked_run, truth, depth)
    try:
        *measures, native = _measure_block(table, ranked_run, lead, placeholders, plan)
        block.columns, block.values, block.strings = measures
        if settings.debug_level > 0:
            block.traces = _traces(native, plan, measured)
        if native is not None and native.failed_at is not None:
            block.failure = measured[native.failed_at], native.error, native.trailing
    except Exception as error:  # noqa: BLE001 - raised in trec_eval's order (_run_result)
        block.error = error
    block.duplicate = duplicate.result() if duplicate is not None else None
    # a run held whole that trec_eval stops in raises that before any bound is computed
    # (a part of a run cannot know: the stop may come earlier, in another block)
    stops = whole is not None and (
        block.topics.stop is not None or block.duplicate is not None or block.failure is not None
    )
    if tie_bounds and block.error is None and not stops:
        judgments, matched = ranked_run.judged(truth)
        # without -M the ranked run keeps every row of the measured topics: its match is
        # the one the extreme orders need; with -M it lacks the rows beyond the cut
        matched = matched if settings.max_docs is None else None
        try:
            _extremes(block, table, order, judgments, matched, plan, whole)
        except Exception as error:  # noqa: BLE001 - as above
            block.error = error
    return block


def _measure_block(table, ranked_run, lead, placeholders, plan: _Plan):
    """``(columns, values, strings, native)``: every engine of the plan on the topics of
    ``ranked_run`` (``table`` ranked), ``lead`` going ahead of them for pytrec_eval
    (:func:`_measure_led`), 10.0's empty rankings for the ``placeholders`` (``-c``), the
    values as z-scores with ``-Z``; ``native``: the native engine's result (traces, where
    it stopped), None without it."""
    qids = ranked_run.qids
    if lead is not None:
        columns, values, strings = _measure_led(table, ranked_run, lead, plan)
    else:
        # rows are moved into trec_eval order only for engines that need a table
        ranked = ranked_run.table() if plan.table_needed or placeholders else ranked_run
        if placeholders:
            ranked = placeholder.with_placeholders(ranked, qids, placeholders)
        columns, values, strings = _measure(ranked, qids, plan)
    native = plan.evaluator(NATIVE).last if NATIVE in plan.groups else None
    if placeholders:
        rows = np.flatnonzero(np.isin(np.array(qids, dtype=object), placeholders))
        placeholder.clear(values, strings, rows)
    if plan.zscores is not None:
        _convert_to_zscores(values, qids, plan.zscores)
    return columns, values, strings, native


def _measure_led(table, ranked_run, lead: str, plan: _Plan):
    """:func:`_measure` for a block whose first topic has only negative judgments, which
    trec_eval's code (pytrec_eval) cannot start a call with (it sizes a buffer by the first
    topic's largest grade; :meth:`Qrels.first_failure`): for that engine the topic
    ``lead``, judged and sorting first, goes ahead with one document, and its values are
    dropped; the other engines get the block as it is. Topics are independent: the values
    are those the whole run gives."""
    qids = ranked_run.qids
    led_engines = [name for name in plan.groups if name == PYTREC_EVAL]
    others = [name for name in plan.groups if name != PYTREC_EVAL]
    produced = {}
    if others:
        ranked = ranked_run.table() if plan.table_needed else ranked_run
        produced = _produced(ranked, qids, plan, others)
    if led_engines:
        from ..inputs.tables import is_text

        plain = arrow.decoded(table)
        row = {
            column.name: [lead if column.name == "qid" else "" if is_text(column.type) else 0]
            for column in plain.schema
        }
        led = pa.concat_tables([pa.table(row, schema=plain.schema), plain])
        order = ranking.order_run(led, _float32(plan))
        led_run = ranking.RankedRun(led, order, [lead, *qids], plan.settings.max_docs)
        ranked = led_run.table() if plan.table_needed else led_run
        for measure, outputs in _produced(ranked, [lead, *qids], plan, led_engines).items():
            produced[measure] = [(label, display, value[1:]) for label, display, value in outputs]
    return _measure(None, qids, plan, produced)


def _extremes(block: _Block, table, order, judgments, matched, plan: _Plan, whole: str | None):
    """The block's values in the best and the worst order of its tied documents
    (``judgments`` and, when exact, their ``matched`` rows: see
    :func:`tiebounds.extreme_orders`). Each order is scored for its values only, whole
    (``whole``: the run's label; the same topics as the reported order) or a part of a run
    alike, without the run's checks: those belong to the reported order, as trec_eval
    reads the run (an extreme order may bring within -M a second listing the reported one
    leaves beyond it). What an engine raises is raised."""
    float32 = _float32(plan)
    orders = tiebounds.extreme_orders(table, order, block.qids, judgments, float32, matched)
    block.ties, block.tied_topics = orders.ties, orders.tied_topics
    if orders.best is not None:
        extremes = []
        for alternative in (orders.best, orders.worst):
            scored = _score_block(alternative, plan, whole=whole, checks=False)
            if scored.error is not None:
                raise scored.error
            extremes.append(scored.values)
        block.extremes = extremes[0], extremes[1]


def _run_result(blocks: list[_Block], name, path, runid, plan: _Plan, tie_bounds=False):
    """One run's :class:`RunResult`, columns and flagged topics from the blocks its
    topics were scored in (one for a run held whole), with trec_eval's errors in
    trec_eval's order (the topics before the one trec_eval stops at are the error's
    ``partial_run``)."""
    truth, settings = plan.truth, plan.settings
    run_qids = [q for block in blocks for q in block.run_qids]
    planned = [block.topics for block in blocks if block.topics is not None]  # held whole
    topics = planned[0] if planned else _plan_topics(run_qids, plan, path or name)
    qids = topics.qids
    if not qids:
        why = (
            f"-D names topic {settings.debug_query}, not one of them"
            if topics.looped
            else "no topic of the run is in the qrels"
        )
        raise NoOverlapError(
            f"{path or name}: No queries with both results and relevance info ({why})"
        )
    flags = _topic_flags(name, run_qids, truth.qids, topics.looped, settings.complete)
    # trec_eval's order: a topic it stops at before any other (a judgment, 10.0's missing
    # topic); what an engine raised on the topics before the first such stop; the first
    # topic (sorted) that it stops at, with what it printed before (``partial_run``)
    stops: list[tuple[int, TrecbenchError, str]] = []
    if topics.stop is not None:
        stops.append((topics.stop, topics.error, ""))
    judged = topics.stop if topics.stop is not None else len(qids)
    failed = [
        block
        for block in blocks
        if block.error is not None and judged > 0 and block.qids[0] <= qids[judged - 1]
    ]
    if failed:
        raise min(failed, key=lambda block: block.qids[0]).error
    duplicates = [block.duplicate for block in blocks if block.duplicate is not None]
    if duplicates:  # the first topic with one; in it, the second listing first in the file
        found = min(duplicates, key=lambda duplicate: (duplicate[0], duplicate[3]))
        stops.append((qids.index(found[0]), ranking.duplicate_error(path or name, *found), ""))
    for block in blocks:
        if block.failure is not None:  # the native engine stopped part-way
            qid, error, trailing = block.failure
            stops.append((qids.index(qid), error, trailing))
    scored = [block for block in blocks if block.qids and block.error is None]
    measured = sorted(q for block in scored for q in block.qids)
    columns = scored[0].columns if scored else None
    values = _assembled(scored, measured, lambda block: block.values)
    strings = _assembled(scored, measured, lambda block: block.strings)
    traces = scored[0].traces if len(scored) == 1 else None  # -D: runs held whole
    if stops:
        stop, error, trailing = min(stops, key=lambda found: found[0])
        # measured: every topic before the stop (see _score_block)
        error.partial_run = _stopped_run(
            name, path, runid, qids, values, strings, stop,
            traces=traces[:stop] if traces is not None else None, trailing=trailing,
        )  # fmt: skip
        if columns is not None:
            error.partial_columns = columns
        raise error
    counted = [block.unjudged for block in scored if block.unjudged is not None]
    unjudged = None
    if counted:
        depth = evaluated_depth(plan.measures, settings.max_docs)
        unjudged = Unjudged(depth, *(sum(column) for column in zip(*counted, strict=True)))

    def summarise(column: Column, per_topic) -> Any:
        return _summarise(column, per_topic, len(qids), truth, settings, runid)

    summary = {c.label: summarise(c, values.get(c.label)) for c in columns}
    result = RunResult(
        name, path, runid, qids, values, strings, summary, unjudged=unjudged, traces=traces
    )
    if tie_bounds:
        orders = tiebounds.Orders(
            None,
            None,
            any(block.ties for block in scored),
            sum(block.tied_topics for block in scored),
        )
        evaluated = []
        if any(block.extremes is not None for block in scored):
            evaluated = [
                RunResult(name, path, runid, qids, _assembled(
                    scored, qids,
                    lambda block, side=side: block.values if block.extremes is None
                    else block.extremes[side],
                ), {}, {})
                for side in (0, 1)
            ]  # fmt: skip
        result.tie_bounds = tiebounds.run_bounds(
            result, orders, evaluated, columns, plan.engine_options, summarise
        )
    return result, columns, flags


def _assembled(blocks: list[_Block], qids: list[str], part) -> dict:
    """``part(block)`` (label -> per-topic values) of every block, in the order of
    ``qids`` (the run's measured topics, sorted: trec_eval's summing order)."""
    if len(blocks) == 1:
        return part(blocks[0])
    if not blocks:
        return {}
    where = {qid: i for i, qid in enumerate(qids)}
    index = np.array([where[q] for block in blocks for q in block.qids], np.int64)
    out: dict = {}
    for label in part(blocks[0]):
        pieces = [part(block)[label] for block in blocks]
        if isinstance(pieces[0], list):
            merged = [None] * len(qids)
            for i, value in zip(index, (v for piece in pieces for v in piece), strict=True):
                merged[i] = value
            out[label] = merged
        else:
            merged = np.empty(len(qids), np.result_type(*pieces))
            merged[index] = np.concatenate(pieces)
            out[label] = merged
    return out


def _evaluate_blocks(path: str, name: str, plan: _Plan, budget, progress, tie_bounds, ahead=None):
    """A run file scored block by block (:class:`~trecbench.inputs.blocks.RunBlocks`), the
    next block read while one is scored; ``(result, columns, flags, warnings)``.
    ``ahead``: its reading, started earlier (:func:`_blocks_ahead`)."""
    from ..inputs.blocks import RESTART

    if ahead is None:
        ahead = _read_blocks(path, budget, progress)
    else:  # started under a bound on the qrels: the qrels read leave the budget's room
        ahead.blocks.resize(budget.whole_lines, budget.spill_lines)
    blocks = ahead.blocks
    scored: list[_Block] = []
    for table in ahead.tables:
        if table is RESTART:  # a topic came back: the run follows again from its start
            scored.clear()
            continue
        scored.append(_score_block(table, plan, tie_bounds))
        del table
    if not blocks.record["lines"]:
        raise InputError(path, None, "empty run file")
    result, columns, flags = _run_result(scored, name, path, blocks.runid, plan, tie_bounds)
    result.record = blocks.record
    return result, columns, flags, blocks.warnings


def _same_id_types(table: pa.Table, like: pa.Table) -> pa.Table:
    """``table`` with qid/docno cast to ``like``'s string types (string vs large_string
    depends on how a file was tokenized), so the two can be joined."""
    for name in ("qid", "docno"):
        wanted = like.schema.field(name).type
        if table.schema.field(name).type != wanted:
            index = table.column_names.index(name)
            table = table.set_column(index, name, pc.cast(table.column(name), wanted))
    return table


def _summarise(
    column: Column, values, n_evaluated: int, truth: Qrels, settings: EvalSettings, runid
):
    """trec_eval's summary value: sequential sums (its accumulation order), ``-c`` rules."""
    kind = column.summary
    complete = settings.complete
    denominator = len(truth.qids) if complete else n_evaluated
    if kind == RUNID:
        return runid
    if kind == NUM_Q:
        return denominator
    if kind == STRING:
        return None
    total = float(np.cumsum(values)[-1]) if len(values) else 0.0
    if kind == NUM_REL and complete:
        return truth.positive_judgments
    if kind in (SUM, NUM_REL):
        return total if settings.zscores else int(total)  # -Z: sums of z-scores
    if kind == GEOMETRIC:
        total += (denominator - n_evaluated) * math.log(MIN_GEO_MEAN)
        return math.exp(total / denominator)
    return total / denominator  # MEAN


def _topic_flags(name, run_qids, qrels_qids, evaluated, complete) -> list[FlaggedTopic]:
    evaluated_set = set(evaluated)
    flags = [
        FlaggedTopic(
            qid,
            "run_only",
            f"{name}: topic {qid} is not in the qrels: ignored (with or without -c)",
            name,
        )
        for qid in sorted(set(run_qids) - evaluated_set)
    ]
    effect = (
        "counts as 0 in every average (-c)"
        if complete
        else "ignored; with -c it would count as 0 in every average"
    )
    flags += [
        FlaggedTopic(qid, "qrels_only", f"{name}: topic {qid} is not in the run: {effect}", name)
        for qid in qrels_qids
        if qid not in evaluated_set
    ]
    return flags
