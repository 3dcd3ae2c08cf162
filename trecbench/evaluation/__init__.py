"""Evaluate runs against qrels, exactly as trec_eval 9.0.8 (or 10.0) would.

:func:`evaluate` reads the qrels once, and for every run: ranks it once (trec_eval's policy,
:mod:`trecbench.ranking`), keeps the evaluated topics (run ∩ qrels), applies ``-M`` and
``-J``, hands each measure to its engine (:mod:`trecbench.engines`) and redoes trec_eval's
averaging (``-c``, geometric means, summed counts). The result, an :class:`Evaluation`,
keeps per-topic values, aggregates, the measures as requested, the options and the topics
worth a warning; rendering it is :mod:`trecbench.trec_format`'s job.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .. import inputs, outputs, provenance
from ..errors import (
    InputError,
    TrecbenchError,
    UsageError,
)
from ..memory import Budget
from ..trec_eval import compat as _compat
from ..trec_eval import zscores as zscores_module
from .assembly import MIN_GEO_MEAN, _run_result  # noqa: F401 - re-exported
from .gate import ValidationFailed, _Gate, _gate  # noqa: F401 - ValidationFailed: re-exported
from .judgments import Preferences, Qrels, load_judgments  # noqa: F401 - re-exported
from .plan import _check_rel_format, _measures, _Plan, _read_whole
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
from .scoring import _Block, _score_block, evaluated_depth  # noqa: F401 - re-exported
from .settings import REL_FORMATS, EvalSettings  # noqa: F401 - REL_FORMATS: re-exported

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


def _evaluate_run(table, name, path, plan: _Plan, tie_bounds=False):
    """A run held whole, in any setting: one block of all its topics (:func:`_score_block`
    with ``whole``), its errors decided as for a run in blocks (:func:`_run_result`);
    ``(result, columns, flags)``."""
    runid = table.column("tag")[table.num_rows - 1].as_py() if table.num_rows else ""
    block = _score_block(table, plan, tie_bounds, whole=path or name)
    return _run_result([block], name, path, runid, plan, tie_bounds)


# ---------------------------------------------------------------------------------------
# runs in blocks of whole topics (files longer than a block, Dask partitions)


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
