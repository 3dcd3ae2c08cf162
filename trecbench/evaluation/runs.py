"""Each run of an evaluation scored where it goes: held whole, in blocks of whole topics
(a file longer than a block), on Dask (:class:`trecbench.dask.DaskRun`), in this process
or in worker processes (:func:`_workers`; :mod:`trecbench.processes` runs them)."""

from __future__ import annotations

import os
import stat
import warnings
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .. import provenance
from ..callers import outside_trecbench
from ..errors import (
    DuplicateError,
    InputError,
    InputWarning,
    Setting,
    SettingsText,
    UsageError,
    excerpt,
)
from ..escaping import id_list
from ..gated.reading import _BlocksAhead, _in_blocks, _is_stdin, _read_blocks, load
from ..inputs import held
from ..inputs.integer_ids import lost_zeros_refusal, refuse_lost_zeros
from ..inputs.tables import duplicate_in_files, lines_are_rows
from ..memory import Budget
from ..plurals import counted
from .assembly import run_result
from .plan import _Plan
from .scoring import _Block, score_block

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
        except (OSError, ValueError):  # ValueError: a NUL in a name
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
    names: list[str]  # one per run (evaluation._named)
    plan: _Plan
    budget: Budget
    read_whole: SettingsText | None  # why run files are read whole (:func:`_read_whole`)
    checksums: bool = True  # whether the files' checksums are taken (in worker processes too)
    # what the call read of files that can be read once (a FIFO --ontology): a worker
    # process takes it, never opens them (provenance.read_so_far)
    read_once: dict = field(default_factory=dict)

    def score(self, index: int, tie_bounds: bool, progress=None, ahead=None) -> tuple:
        """``(result, columns, flagged topics, warnings)`` of run ``index``."""
        source, name, plan = self.sources[index], self.names[index], self.plan
        if hasattr(source, "score_run"):  # scored elsewhere (trecbench.dask.DaskRun)
            if self.read_whole is not None:
                raise UsageError(
                    "a run on Dask is scored as trec_eval 9.0.8 without ",
                    Setting("rel_format"), ", ", Setting("zscores"), ", ",
                    Setting("debug_level"), " or the measures of trecbench's native ports; "
                    "this call has ", self.read_whole,
                )  # fmt: skip
            return source.score_run(plan, tie_bounds, name, progress)
        in_blocks = ahead is None and self.read_whole is None and _in_blocks(source, self.budget)
        if in_blocks or isinstance(ahead, _BlocksAhead):
            path = os.fspath(source)
            # one run: its topics scored are counted (several: the runs are)
            counted = progress if len(self.sources) == 1 else None
            return _evaluate_blocks(
                path, name, plan, self.budget, progress, tie_bounds, ahead, counted
            )
        run = _loaded(source, name, ahead, progress, plan)
        if isinstance(source, Mapping):
            _say_empty_topics(source, name, plan)
        truth, label = plan.truth, run.path or held.named(name, run.origin)
        refuse_lost_zeros(truth.table, truth.path, run.table, label)
        # a run held whole, read from a file (a pipe, standard input): scored in blocks of
        # whole topics, as a file read in blocks is, its topics counted when it is the
        # only run (several: the runs are); with or without a bar, one path: it peaks at
        # under half the memory of the run scored as one block (7M lines piped, -m
        # official: 882 against 2,100 MiB, and 10.6 against 15.2 s)
        lines = self.budget.block_lines
        parts = isinstance(source, (str, os.PathLike)) and run.table.num_rows > lines
        try:
            if self.read_whole is None and parts:
                counted = progress if len(self.sources) == 1 else None
                result, columns, flags = _evaluate_in_parts(
                    run.table, name, run.path, plan, tie_bounds, lines, counted
                )
            else:
                result, columns, flags = _evaluate_run(run.table, name, run.path, plan, tie_bounds)
        except DuplicateError as error:
            if error.rule != "R7":
                raise  # the qrels' (Q5)
            if run.path is not None:
                rows = [lines_are_rows(run.table)]
                raise duplicate_in_files(error, files=[error.path], rows=rows) from None
            raise held.renamed(error, source, label) from None
        result.record = run.record
        return result, columns, flags, list(run.warnings)


def _loaded(source, name: str, ahead, progress, plan: _Plan):
    """:func:`load` of a run; the error of a run held in memory names the run
    (``run 'mine' (run DataFrame): row 2: ...``): several frames are all a "run DataFrame"."""
    with held.naming(source, name):
        return load(source, "run", ahead, progress, plan.version, plan.drill is not None)


def _say_empty_topics(run: Mapping, name: str, plan: _Plan) -> None:
    """Warn of a run dict's qrels topics given without a document: left out (unless -c),
    as trec_eval has no such topic, where pytrec_eval scores them 0 (its users' means
    would differ)."""
    if plan.settings.complete:  # counted as 0, as pytrec_eval scores them
        return
    qids = set(plan.truth.qids)
    empty = [str(q) for q, docs in run.items() if isinstance(docs, Mapping) and not docs]
    empty = [q for q in empty if q in qids]
    if empty:
        warnings.warn(
            f"run {name!r}: {counted(len(empty), 'qrels topic')} without a document "
            f"({id_list(empty)}): left out, as trec_eval has no such topic, where "
            "pytrec_eval scores them 0 (complete=True, trec_eval -c, counts them as 0)",
            InputWarning,
            stacklevel=outside_trecbench(),
        )


# what a worker process scores runs with, and where it writes the bytes it has read of
# each (None: no progress told)
_worker: tuple[_Runs, bool, Any] | None = None


def _start_worker(runs: _Runs, tie_bounds: bool, bytes_read=None) -> None:
    global _worker
    _worker = runs, tie_bounds, bytes_read


def _score_in_worker(index: int) -> tuple:
    """``(run index's score, the warnings raised scoring it)``: a worker's warnings are
    said by the calling process (:func:`said_again`), not printed by each worker, where a
    caller catching them never saw them."""
    runs, tie_bounds, bytes_read = _worker
    progress = None if bytes_read is None else _reading_told(bytes_read, index)
    with provenance.taking_checksums(runs.checksums), provenance.reading_as(runs.read_once):
        return with_warnings(runs.score, index, tie_bounds, progress)


def _reading_told(bytes_read, index: int):
    """A worker's ``progress`` for run ``index``: the bytes read of its file written where
    the calling process reads them (:class:`WorkersProgress`)."""

    def told(label: str, done: int, total: int | None = None) -> None:
        if label.startswith("reading "):  # the run's file; nothing else is read here
            bytes_read[index] = done

    return told


class WorkersProgress:
    """How the runs scored in worker processes advance, told by the calling process to
    its ``progress`` (a worker cannot draw on the caller's bar): the bytes read of all
    the runs (``reading N runs``, each worker writing its run's into shared memory) until
    every byte is read, then the runs finished (``scoring``), in whatever order they
    finish. :func:`trecbench.processes.ordered_map` calls :meth:`tell`."""

    def __init__(self, sources: list, progress):
        import multiprocessing

        self.progress = progress
        self.bytes_read = multiprocessing.RawArray("q", len(sources))  # by run
        self.sizes = [file_size(source) for source in sources]
        # the bar's total: every run's size, when each is known (a pipe's is not)
        self.total = None if None in self.sizes else sum(self.sizes)
        self.label = f"reading {len(sources)} runs"
        self.all_read = False

    def tell(self, finished: list[bool]) -> None:
        # a run finished is read, whether or not its reader told of its bytes (Parquet)
        read = sum(
            size if done and size is not None else got
            for size, got, done in zip(self.sizes, self.bytes_read, finished, strict=True)
        )
        if (read < self.total) if self.total is not None else not all(finished):
            self.progress(self.label, read, self.total)
            return
        if not self.all_read:  # its bar finished: the runs finished take over at once
            self.progress(self.label, read, self.total)
            self.all_read = True
        self.progress("scoring", sum(finished), len(finished))


def file_size(source) -> int | None:
    """The size of a run file, as its reader counts the bytes read; None for a pipe."""
    try:
        status = os.stat(source)
    except OSError:
        return None  # the worker's reader says what is wrong
    return status.st_size if stat.S_ISREG(status.st_mode) else None


def with_warnings(call, *args) -> tuple:
    """``(call(*args), the warnings it raised)``, for another process (a worker, a Dask
    worker) to hand its warnings to the calling one, which says them
    (:func:`said_again`, :func:`warn_again`); an error carries those raised before it."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            outcome = call(*args)
        except BaseException as error:  # its warnings go with it (a run may warn, then fail)
            error.__dict__["said"] = _recorded(caught)
            raise
    return outcome, _recorded(caught)


def _recorded(caught) -> list[tuple]:
    """Caught warnings as ``(message, category)``, which cross to the calling process."""
    return [(str(w.message), w.category) for w in caught]


def said_again(scored: Iterator[tuple]) -> Iterator[tuple]:
    """The outcomes of :func:`_score_in_worker`, each after its warnings are raised again
    here (the same text from several workers is shown once, as in one process), and its
    error after them."""
    while True:
        try:
            outcome, said = next(scored)
        except StopIteration:
            return
        except BaseException as error:
            warn_again(error.__dict__.get("said", ()))
            raise
        warn_again(said)
        yield outcome


def warn_again(said) -> None:
    """Raise here the warnings :func:`with_warnings` recorded in another process, located
    at the first caller outside trecbench, as a warning of the run's result said in this
    process is."""
    for message, category in said:
        warnings.warn(message, category, stacklevel=outside_trecbench())


def _evaluate_run(table, name, path, plan: _Plan, tie_bounds=False):
    """A run held whole, in any setting: one block of all its topics (:func:`score_block`
    with ``whole``), its errors decided as for a run in blocks (:func:`run_result`);
    ``(result, columns, flags)``."""
    runid = table.column("tag")[table.num_rows - 1].as_py() if table.num_rows else ""
    block = score_block(table, plan, tie_bounds, whole=path or name)
    return run_result([block], name, path, runid, plan, tie_bounds)


def _evaluate_in_parts(table, name: str, path, plan: _Plan, tie_bounds, lines, counted):
    """A run held whole scored as a file read in blocks is (:func:`_evaluate_blocks`,
    trec_eval 9.0.8's reading without -R, -Z or -D): in blocks of whole topics of about
    ``lines`` lines (:func:`_scored_in_parts`), telling ``counted`` (None: nothing)
    ``("scoring topics", topics scored, topics)`` first and after each, as a file's blocks
    tell it (here with their total: an ETA); ``(result, columns, flags)``."""
    runid = table.column("tag")[table.num_rows - 1].as_py()
    tell = counted or (lambda *_: None)
    if counted is not None:  # a bar from now: sorting millions of lines by topic takes seconds
        from .. import arrow_compute as pc

        counted("scoring topics", 0, pc.count_distinct(table.column("qid")).as_py())
    blocks = list(_scored_in_parts(table, plan, tie_bounds, lines, tell))
    return run_result(blocks, name, path, runid, plan, tie_bounds)


def _scored_in_parts(
    table, plan: _Plan, tie_bounds, lines: int, tell, before: int = 0, total: int | None = None
):
    """The blocks (:func:`score_block`) of ``table``, which holds whole topics, in parts
    of whole topics of about ``lines`` lines (a topic's lines in their order, their line
    numbers kept), ``tell("scoring topics", before + topics scored, total)`` after each:
    one vectorised call for all of a large table's topics would tell nothing until it is
    over (a scattered run of 2M lines: 6 s). ``total``: the run's topics, when known (a
    spilled block's run), else ``before`` + this table's (one block of a spill told its
    own end as the run's: 255/255, then 571/571, each a false 100%)."""
    import numpy as np
    import pyarrow as pa

    from .. import arrow
    from .. import arrow_compute as pc

    if "line" not in table.column_names:  # a regular file's: row i is line i + 1
        table = table.append_column("line", pa.array(np.arange(1, table.num_rows + 1)))
    order = pc.sort_indices(table.column("qid"))  # stable: a topic's lines keep their order
    starts = arrow.stretches(table.column("qid").take(order))[0].tolist()
    rows, total = table.num_rows, before + len(starts) if total is None else total
    topics, first = before, 0
    tell("scoring topics", topics, total)  # all known: a bar with an ETA
    for start in [*starts[1:], rows]:
        if start - first >= lines or start == rows:
            part = table.take(order.slice(first, start - first))
            block = score_block(part, plan, tie_bounds)
            topics += len(block.run_qids)
            yield block
            tell("scoring topics", topics, total)
            first = start


def _evaluate_blocks(
    path: str, name: str, plan: _Plan, budget, progress, tie_bounds, ahead=None, counted=None
):
    """A run file scored block by block (:class:`~trecbench.inputs.blocks.RunBlocks`), the
    next block read while one is scored; ``(result, columns, flags, warnings)``.
    ``ahead``: its reading, started earlier (:func:`_blocks_ahead`); ``counted``: told
    ``("scoring topics", topics scored, topics)`` from the start and after each block (the
    topics :meth:`~trecbench.inputs.blocks.RunBlocks.topics_expected`: known once a
    spill is written, else estimated from the bytes read), and 0 again as the first block
    of a run read whole (held or spilled) is scored: its bar is timed from then; a block
    larger than a block's lines (a scattered run held whole) is scored in parts, telling
    them."""
    from ..inputs.blocks import RESTART

    if ahead is None:
        ahead = _read_blocks(path, budget, progress, plan.drill is not None)
    else:  # started under a bound on the qrels: the qrels read leave the budget's room
        ahead.blocks.resize(budget.whole_lines, budget.spill_lines)
    blocks = ahead.blocks
    scored: list[_Block] = []
    topics = lines = 0
    tell = counted or (lambda *_: None)
    tell("scoring topics", 0, None)  # timed from the start, not from the first block
    anew = False  # the run read whole (held or spilled) before its first block is scored
    # a spilled run's refusal of lost zeros: its blocks come by topic hash, so the one the
    # run read whole names (the least place) is known once every block is checked
    refusal = None
    beyond: list[tuple[str, int]] = []  # the topics longer than a block: held whole
    for block in ahead.tables:
        if block is RESTART:  # a topic came back: the run follows again from its start
            scored.clear()
            beyond.clear()  # a topic's first stretch told as the topic (A's 30,000 of 60,000)
            topics = lines = 0
            anew = True
            continue
        if anew:  # timed from now: the reading was no scoring (an ETA of it was inflated)
            tell("scoring topics", 0, blocks.topics)
            anew = False
        found = lost_zeros_refusal(plan.truth.table, plan.truth.path, block.table, path)
        if found is not None and not blocks.spilled:
            raise found[1]
        if found is not None or refusal is not None:  # refused: no more blocks are scored
            refusal = min(filter(None, (refusal, found)), key=lambda each: each[0])
            continue
        if block.stretches is None and block.table.num_rows > budget.block_lines:
            # a scattered run held whole, or a spill's large block: one call for all its
            # topics would tell nothing; told on the run's total (all read by now)
            lines += block.table.num_rows
            if blocks.spilled:  # a block of the spill is held whole, its topics with it
                beyond += _topics_beyond(block.table, None, budget)
            parts = _scored_in_parts(
                block.table, plan, tie_bounds, budget.block_lines, tell, topics, blocks.topics
            )
            for part in parts:
                scored.append(part)
                topics += len(part.run_qids)
            continue
        beyond += _topics_beyond(block.table, block.stretches, budget)
        scored.append(
            score_block(
                block.table,
                plan,
                tie_bounds,
                stretches=block.stretches,
                docno_hashes=block.docno_hashes,
            )
        )
        lines += block.table.num_rows
        del block
        topics += len(scored[-1].run_qids)
        tell("scoring topics", topics, blocks.topics_expected(lines, topics))
    if refusal is not None:
        raise refusal[1]
    if not blocks.record["lines"]:
        raise InputError(path, None, "empty run file")
    try:
        result, columns, flags = run_result(scored, name, path, blocks.runid, plan, tie_bounds)
    except DuplicateError as error:
        rows = [blocks.lines_are_rows]
        raise duplicate_in_files(error, files=[error.path], rows=rows) from None
    result.record = blocks.record
    said = [_held_beyond(path, beyond, budget)] if beyond else []
    return result, columns, flags, [*blocks.warnings, *said]


def _topics_beyond(table, stretches, budget: Budget) -> list[tuple[str, int]]:
    """The topics of ``table`` (a block of whole topics: its ``stretches`` told, or None
    for a spill's, its topics' lines anywhere in it) longer than a block of the memory
    ``budget`` given (``--memory``), with their lines: held whole all the same (a topic is
    scored whole), past the budget."""
    from .. import arrow_compute as pc

    if not budget.given or len(table) <= budget.block_lines:
        return []
    if stretches is None:
        counted = pc.value_counts(table.column("qid"))
        qids = counted.field("values").to_pylist()  # a block's topics, once (spills only)
        lengths = counted.field("counts").to_numpy()
    else:
        qids, lengths = stretches[1], np.diff(np.append(stretches[0], len(table)))
    long = np.flatnonzero(lengths > budget.block_lines)
    return [(qids[i], int(lengths[i])) for i in long]


def _held_beyond(path: str, beyond: list[tuple[str, int]], budget: Budget) -> str:
    """The warning of the topics held whole past the memory budget
    (:func:`_topics_beyond`): the longest named, the others counted (the first named
    alone understated how far past the budget the call went)."""
    qid, lines = max(beyond, key=lambda topic: topic[1])
    block = f"a block of the memory budget ({budget.mib} MiB: {budget.block_lines:,} lines)"
    if len(beyond) == 1:
        return (
            f"{path}: topic {excerpt(qid)} holds {lines:,} lines, more than {block}: a topic "
            "is scored whole, so it is held beyond the budget"
        )
    return (
        f"{path}: {len(beyond):,} topics hold more lines than {block} (the longest, "
        f"{excerpt(qid)}, holds {lines:,}): a topic is scored whole, so they are held beyond "
        "the budget"
    )
