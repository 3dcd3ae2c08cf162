"""Evaluate runs against qrels, exactly as trec_eval 9.0.8 (or 10.0) would.

:func:`evaluate` reads the qrels once, and for every run: ranks it once (trec_eval's policy,
:mod:`trecbench.ranking`), keeps the evaluated topics (run ∩ qrels), applies ``-M`` and
``-J``, hands each measure to its engine (:mod:`trecbench.engines`) and redoes trec_eval's
averaging (``-c``, geometric means, summed counts). The result, an :class:`Evaluation`,
keeps per-topic values, aggregates, the measures as requested, the settings and the topics
worth a warning; rendering it is :mod:`trecbench.renderers.trec_format`'s job.

The package, one concern a module, each importing only those listed before it:
:mod:`.settings` (:class:`EvalSettings`, checked once), :mod:`.results` (the result
types), :mod:`.judgments` (qrels and preferences), :mod:`.plan`
(engines, evaluators, trec_eval's loop over topics), :mod:`.scoring` (a block of whole
topics scored), :mod:`.assembly` (a run's result from its blocks) and :mod:`.runs` (each
run scored where it goes: whole, in blocks, on Dask, in worker processes). The inputs are
read through :mod:`trecbench.gated` (the validator's lenient profile; runs whole, ahead or
in blocks), below this package so that the commands that only read runs import no engine.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from .. import input_warnings, inputs, outputs, provenance
from ..callbacks import refuse_uncallable
from ..errors import DuplicateError, InputError, TrecbenchError, UnevaluableTopicError, UsageError
from ..gated.gate import ValidationFailed, forgotten_qrels, forgotten_run
from ..gated.reading import (
    Progress,
    _blocks_ahead,  # noqa: F401
    _BlocksAhead,
    _say_pipes_held,
    _say_read_whole,
    _start_reading,
    load,
)
from ..inputs import held
from ..lazy import submodules as _submodules
from ..measures import NUM_REL, spellings, trec_mode
from ..measures.asked import requests
from ..measures.expression import one_name_each
from ..memory import Budget
from ..naming import check_read_once, listed_names
from ..trec_eval import compat as _compat
from ..trec_eval import zscores as zscores_module
from . import bounds, drill

# the names marked F401: dask.py scores its partitions with them, and tests/test_blocks.py
# reaches them from here
from .assembly import (
    MIN_GEO_MEAN,
    run_result,  # noqa: F401
)
from .judgments import Preferences, Qrels, load_judgments
from .plan import _measures, _Plan, _read_whole, rbp_leftovers_said
from .results import Column, Evaluation, FlaggedTopic, RunResult
from .runs import (
    PARALLEL_BYTES,
    WorkersProgress,
    _Runs,
    _score_in_worker,
    _start_worker,
    _workers,
    said_again,
)
from .scoring import (
    evaluated_depth,
    score_block,  # noqa: F401
)
from .settings import REL_FORMATS, EvalSettings
from .unjudged import UNJUDGED_THRESHOLD, Unjudged

__all__ = [
    "MIN_GEO_MEAN", "PARALLEL_BYTES", "REL_FORMATS", "UNJUDGED_THRESHOLD", "Column",
    "EvalSettings", "Evaluation", "FlaggedTopic", "Preferences", "Progress", "Qrels",
    "RunResult", "Unjudged", "ValidationFailed", "evaluate", "evaluated_depth", "load",
    "load_judgments",
]  # fmt: skip


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
    float32: bool | None = None,
    engine: str = "auto",
    names: Sequence[str] | None = None,
    run_names: Sequence[str] | None = None,
    options: Mapping[str, Any] | None = None,
    progress: Progress | None = None,
    tie_bounds: bool = False,
    memory: int | None = None,
    jobs: int | None = None,
    drill_depth: int | None = None,
    unjudged_bounds: bool = False,
    compat: str = _compat.DEFAULT,
    rel_format: str = "qrels",
    zscores=None,
    debug_level: int = 0,
    debug_query: str | None = None,
    first_parameters: bool = False,
) -> Evaluation:
    """Evaluate one run or several against qrels, as trec_eval does (9.0.8 by default).

    ``qrels`` and each run are any input :mod:`trecbench.inputs` reads: paths (TREC text,
    plain or compressed, or Parquet), pandas DataFrames or Arrow tables with trec,
    ir_measures or ranx column names, ``{qid: {docno: value}}`` dicts, ir_measures'
    Qrel/ScoredDoc iterables, and for qrels an ir_datasets id (``irds:ID``). ``runs`` is
    one run, runs in any collection (a list, a generator, ``Path.glob``: read once) or a
    dict ``{name: run}`` (:func:`trecbench.inputs.split_runs`). A run is named as every
    command names it (:func:`trecbench.naming.run_names`): by ``names`` (``run_names``, its
    older spelling) or the dict's keys, else by its file's stem made distinct by its parent
    folders (``a/bm25``, ``b/bm25``), else ``run1``, ``run2``... by its place.
    ``measures``: names in any spelling (see :func:`trecbench.measures.parse_measure`) or
    trec_eval nicknames, each computed as given (``{"P.5", "P.10"}``: both, as pytrec_eval
    computes them; a set in the names' natural order); None means the KPI preset. The
    other arguments are the fields of :class:`EvalSettings` (trec_eval's flags,
    ``compat="10.0"``, ``tie_bounds``, ``memory``, ``jobs``, ``drill_depth``,
    ``unjudged_bounds``, ``first_parameters``: trec_eval's ``-m`` rule, local measure
    ``options``);
    ``progress(label, done, total)`` is
    told how reading files (bytes) and scoring runs advance; of runs scored in worker
    processes, the bytes read of them all (``reading N runs``), then the runs finished,
    then, with ``drill_depth``, each run's kept documents graded (``grading documents``).

    A run file longer than a block of lines is read and scored in blocks of whole topics,
    a run whose topics are scattered and that does not fit the memory budget is spilled
    to disk (:mod:`trecbench.inputs.blocks`); the results are those of the run scored
    whole. Runs are read whole, whatever ``memory`` is, with ``-R`` other than qrels,
    ``-Z``, ``-D``, ``compat="10.0"`` or a measure only trecbench's ports of trec_eval
    compute (with 9.0.8: ``dcg``, ``ideal_dcg``, ``yaap``, ``rbp_resid``, ``unj``).
    ``jobs``: processes scoring several run files at once; the results, their order and
    the errors are those of one process. Each run records how many of the documents it
    retrieved within the evaluated depth are unjudged: no judgment or a negative grade
    (``RunResult.unjudged``;
    :meth:`Evaluation.unjudged_runs`): a run scored against another run's qrels shows.

    Raises :class:`trecbench.errors.InputError` for malformed input,
    :class:`~trecbench.errors.DuplicateError` for a document listed twice in an evaluated
    topic and :class:`~trecbench.errors.NoOverlapError` when a run shares no topic with
    the qrels. Where trec_eval stops part-way (exit 4) the error's ``partial`` is an
    :class:`Evaluation` of what trec_eval printed before stopping (the topics before).

    >>> result = evaluate("qrels.txt", "run.txt", ["nDCG@10", "P.5,10"])  # doctest: +SKIP
    >>> result.per_query.head()  # run, qid, measure, value               # doctest: +SKIP
    """
    refuse_uncallable(progress)
    settings = EvalSettings(
        relevance_level=relevance_level, complete=complete, max_docs=max_docs,
        judged_only=judged_only, num_docs=num_docs, float32=float32, engine=engine,
        compat=compat, rel_format=rel_format, zscores=zscores, debug_level=debug_level,
        debug_query=debug_query, options=options, tie_bounds=tie_bounds,
        memory=memory, jobs=jobs, drill_depth=drill_depth, unjudged_bounds=unjudged_bounds,
        first_parameters=first_parameters,
    )  # fmt: skip
    if names is not None and run_names is not None:
        raise UsageError("give names or run_names (its older spelling), not both")
    given = names if names is not None else run_names  # an array has no truth value
    return _evaluate(qrels, runs, measures, settings, given, progress)


def _evaluate(qrels, runs, measures, settings: EvalSettings, run_names, progress) -> Evaluation:
    """:func:`evaluate` with its settings built: the judgments read once (the first run
    read meanwhile), then every run scored, in order."""
    version = settings.version
    if measures is not None and not isinstance(measures, str):  # one list: a generator is
        measures = requests(measures)  # read once, by both of its readers; a string alone
        one_name_each(measures)  # stays one, whose names may be separated by spaces
    sources, names = inputs.split_runs(runs)
    if not sources:  # as compare refuses it: an evaluation of nothing lost its measures
        raise inputs.no_run_given("evaluate", runs)
    check_read_once([qrels, *sources])
    given = listed_names(run_names)
    names = _named(sources, given if given is not None else names)  # [] names no run
    requested, ordered, engines = _measures(measures, settings)
    # the engines decide, with the flags, whether run files may be read in blocks
    read_whole = _read_whole(settings, engines)
    workers = _workers(settings.jobs, sources)
    budget = Budget.of(settings.memory, workers=workers, engines=engines.values())
    with input_warnings.collected() as piped:  # said, and carried by the Evaluation
        _say_pipes_held(sources, settings.memory)
    # Arrow's threads read the first run while the qrels are loaded (after every check of
    # the arguments: a reader started is stopped only where the qrels may fail)
    ahead = _start_reading(
        sources, read_whole, workers, budget, qrels, progress, version, drill.wanted(settings)
    )
    try:
        level = settings.relevance_level
        try:
            truth, loaded = load_judgments(qrels, settings.rel_format, level, version, progress)
        except InputError as error:
            if (forgotten := forgotten_qrels(error, sources)) is None:
                raise
            raise forgotten from None
        with input_warnings.collected() as whole:  # the qrels held counted against it
            _say_read_whole(
                sources, read_whole, budget.with_qrels(len(truth.table)), settings.memory
            )
        z_table = (
            None if settings.zscores is None else zscores_module.read_zscores(settings.zscores)
        )
        aliases = spellings.aliases(measures, requested, settings.compat)
        # trec_eval's order keeps a measure's spellings together: each is placed where
        # it was asked only in a mix of spellings
        asked_at = {} if trec_mode(requested) else spellings.asked_at(measures, settings.compat)
        plan = _Plan(ordered, engines, truth, settings, z_table, aliases, asked_at)
        plan.drill = drill.kept(plan)
        plan.bounds = bounds.kept(plan)
        flagged = truth.flagged()
        if progress is not None:
            progress("scoring", 0, len(sources))
    except BaseException:
        if isinstance(ahead, _BlocksAhead):
            ahead.close()  # its reader stops before the file is read on
        raise
    checksums = provenance.checksums_taken()
    scoring = _Runs(
        sources, names, plan, budget.with_qrels(len(truth.table)), read_whole, checksums
    )
    # what the measures read besides the runs and qrels (MaxOntSim's ontology), read here
    # once for every run, worker and Dask partition: its input warnings carried
    with input_warnings.collected() as measured:
        plan.read_inputs()
    read_aside = (
        *piped,
        *loaded.warnings,
        *whole,
        *(z_table.warnings if z_table is not None else ()),
        *measured,
    )
    evaluation = Evaluation(
        requested, [], [], settings, loaded.path, flagged, list(read_aside), loaded.record,
        truth.qids, _relevant_counts(truth, ordered, settings),
    )  # fmt: skip
    # the ontology's record (release, sha256) made now, in the call that read the file:
    # asked for after the call (a report of the result) a FIFO --ontology was opened again
    # and waited for good, and a regular file changed since was recorded in its place
    _ = evaluation.ontology_record
    done = _scored(scoring, workers, progress, ahead)
    with rbp_leftovers_said(engines):  # 10.0's rbp, where it is printed
        try:
            _collect(evaluation, done, len(sources), workers > 1, progress)
        except (DuplicateError, UnevaluableTopicError) as error:  # held qrels: rows, not lines
            if not held.is_held(qrels):
                raise
            source = qrels if getattr(qrels, "held", None) is None else qrels.held  # a Loaded's
            if error.rule == "Q5":
                raise held.renamed(error, source, loaded.origin) from None
            # at a judgment's line: a topic all of whose judgments are negative (X5), a
            # grade ERR is not defined for
            if isinstance(error, UnevaluableTopicError) and error.path == truth.path:
                raise held.at_row(error, source, loaded.origin) from None
            raise
        except InputError as error:  # a run that looks like the qrels, read as qrels
            if (forgotten := forgotten_run(error)) is None:
                raise
            raise forgotten from None
    if plan.drill is not None:
        drill.grade(evaluation.runs, truth.table, progress)
    return evaluation


def _relevant_counts(truth, measures, settings: EvalSettings) -> dict[int, dict[str, int]]:
    """Per relevance level a num_rel measure counts at (its ``rel``, else ``-l``), each
    qrels topic's relevant documents (:meth:`Evaluation.empty_values`): none without one."""
    levels = {m.option("rel") or settings.relevance_level for m in measures if m.summary == NUM_REL}
    return {level: truth.relevant_counts(level) for level in sorted(levels)}


def _named(sources: list, names: list[str] | None) -> list[str]:
    """Each run's name (:func:`trecbench.naming.run_names`): ``names`` when given, else a
    file's stem made distinct by its parent folders (a run on Dask by its one file, else
    by its folder or glob, :attr:`trecbench.dask.DaskRun.name_path`, where those name the
    runs apart), else ``run1..N``."""
    from ..naming import run_names

    files = [getattr(s, "path", None) or s if hasattr(s, "score_run") else s for s in sources]
    if names is None:
        shown = [getattr(s, "name_path", None) or f for s, f in zip(sources, files, strict=True)]
        if shown != files:
            try:
                return run_names(shown)
            except UsageError:  # two globs of one folder: run1..N, as before they were named
                pass
    return run_names(files, names)


def _scored(runs: _Runs, workers: int, progress, ahead) -> Iterator[tuple]:
    """``(result, columns, flagged topics, warnings)`` of each run, in order: scored in
    this process (the first read ahead), or by ``workers`` processes."""
    tie_bounds = runs.plan.settings.tie_bounds
    if workers == 1:
        return (
            runs.score(index, tie_bounds, progress, ahead if index == 0 else None)
            for index in range(len(runs.sources))
        )
    from .. import processes

    for source in runs.sources:
        outputs.note_input(source)  # read by the workers: inputs of this call all the same
    runs.read_once = provenance.read_so_far()  # a FIFO --ontology read once, for every worker
    setup, waiting = (runs, tie_bounds, None), None
    if progress is not None:  # the workers' bytes read and runs finished, told from here
        told = WorkersProgress(runs.sources, progress)
        setup, waiting = (runs, tie_bounds, told.bytes_read), told.tell
    scored = processes.ordered_map(_score_in_worker, range(len(runs.sources)), workers,
                                   _start_worker, setup, waiting)  # fmt: skip
    return said_again(scored)


def _collect(evaluation: Evaluation, done: Iterator[tuple], total: int, in_workers, progress):
    """Add each of the ``total`` runs scored to ``evaluation``; where trec_eval stops
    (exit 4), the error's ``partial`` is an :class:`Evaluation` of the runs and topics it
    printed before."""
    columns = None
    while True:
        try:
            scored = next(done, None)
        except TrecbenchError as error:
            stopped = getattr(error, "partial_run", None)
            if stopped is not None:  # trec_eval printed the runs and topics before
                partial_columns = columns or getattr(error, "partial_columns", None) or []
                error.partial = Evaluation(
                    evaluation.measures, partial_columns, [*evaluation.runs, stopped],
                    evaluation.settings, evaluation.qrels_path,
                )  # fmt: skip
            raise
        if scored is None:
            break
        result, run_columns, run_flags, run_warnings = scored
        if in_workers and result.record is not None:
            file_record = {key: result.record[key] for key in ("size", "sha256")}
            provenance.remember(provenance.identity(result.path), file_record)
        evaluation.warnings += run_warnings
        # a run read in blocks, by a worker or on Dask was not read by this process's load
        input_warnings.keep(run_warnings)
        evaluation.runs.append(result)
        evaluation.flagged += run_flags
        columns = columns or run_columns
        if progress is not None and not in_workers:  # workers': told as they finish
            progress("scoring", len(evaluation.runs), total)
    if progress is not None and in_workers:  # (WorkersProgress), in any order: all now
        progress("scoring", total, total)
    evaluation.columns = columns or []


__getattr__ = _submodules(__name__)  # trecbench.evaluation.<module> after import trecbench
