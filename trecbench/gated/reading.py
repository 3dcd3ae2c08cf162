"""Reading runs for an evaluation: whole (:func:`load`, through the validation gate),
ahead of their turn in a thread (:func:`_read_ahead`), or in blocks of whole topics that
a thread reads one block ahead (:func:`_read_blocks`, spilled to disk when a run's topics
are scattered: :mod:`trecbench.inputs.blocks`)."""

from __future__ import annotations

import contextvars
import os
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from .. import input_warnings, inputs, memory
from ..errors import InputError, SettingsText
from ..escaping import id_list
from ..inputs.streams import STANDARD_INPUT
from ..memory import Budget, most_qrels_lines, read_into_memory
from ..trec_eval import compat as _compat
from ..trec_eval.compat import Compat
from .gate import _Gate, _gate

# ``progress(label, done, total)``: reading a file (bytes as stored; total None when not
# known in advance), scoring the runs (runs done of all)
Progress = inputs.streams.LabelledProgress


def _reading(progress: Progress | None, source) -> inputs.streams.Progress | None:
    if not isinstance(source, (str, os.PathLike)):
        return None
    return inputs.streams.labelled(progress, f"reading {os.fspath(source)}")


def _is_stdin(source) -> bool:
    """Whether a run is ``-``: standard input (a name, never the text of a table or dict,
    which can be long to make), read once, whole, as any pipe (10.0 skips its comment
    lines as in any file; 9.0.8, which has no ``-``, reads them as data)."""
    return isinstance(source, (str, os.PathLike)) and os.fspath(source) == STANDARD_INPUT


def _read_ahead(
    source,
    progress: Progress | None = None,
    version: Compat = _compat.V9,
    score_text: bool = False,
) -> Future | None:
    """Start reading a run file as :func:`load` reads it, in a worker thread (in this
    call's input scope); :func:`load` takes it with ``ahead``."""
    if not isinstance(source, (str, os.PathLike)) or _is_stdin(source):
        return None
    in_scope = contextvars.copy_context().run  # the thread sees this call's inputs
    return _in_background(lambda: in_scope(_read, source, "run", progress, version, score_text))


def load(
    source,
    kind: str,
    ahead: Future | None = None,
    progress: Progress | None = None,
    version: Compat = _compat.V9,
    score_text: bool = False,
) -> inputs.Loaded:
    """A run or qrels of any input kind (see :mod:`trecbench.inputs`) as a typed table.

    TREC text files go through the validator's lenient profile first (when it is
    installed): a malformed file raises before anything is computed. Regular run files
    are read directly by :func:`trecbench.inputs.trec_text.read_regular_run` instead: on
    them the lenient gate can only find duplicates, which the ranking reports itself
    (exit 4, after -M, as trec_eval does), and what it leaves to `trecbench validate`
    (ties, order); text holding what it warns of (control bytes, ``#`` lines, fields
    after the tag) is not regular (:mod:`trecbench.inputs.trec_regular`). ``ahead``: this
    call, started earlier (:func:`_read_ahead`).
    ``version``: trec_eval 10.0 skips ``#`` comment lines (:mod:`trecbench.inputs.comments`).
    ``score_text``: a run's scores as written kept too (:func:`trecbench.inputs.load`).
    A run named ``-`` is standard input, and named so in messages and reports. Its
    warnings are kept for the command to say (:mod:`trecbench.input_warnings`).
    """
    if ahead is not None:
        loaded = ahead.result()
    else:
        loaded = _read(source, kind, progress, version, score_text)
    # kept here, not by the thread reading ahead: in the order the inputs are taken
    input_warnings.keep(loaded.warnings)
    if loaded.table.num_rows == 0:
        raise InputError(loaded.origin, None, f"empty {kind}" + (" file" if loaded.path else ""))
    return loaded


def _read(source, kind: str, progress, version: Compat, score_text: bool) -> inputs.Loaded:
    """:func:`load`'s reading (through the gate) of a ``source`` not read ahead."""
    reading = _reading(progress, source)
    return inputs.load(
        source, kind, check=_gate, progress=reading, comments=version.comments,
        score_text=score_text,
    )  # fmt: skip


def _in_background(function: Callable[[], Any]) -> Future:
    """``function()`` in a worker thread (numpy and Arrow release the GIL: reading the
    next run overlaps the measures on a second core). Starting one costs the caller up to
    several ms (the new thread takes the GIL first): worth it for long tasks only."""
    pool = ThreadPoolExecutor(max_workers=1)
    future = pool.submit(function)
    pool.shutdown(wait=False)  # the thread ends with its one task
    return future


@dataclass
class _BlocksAhead:
    """A run file being read in blocks (:class:`~trecbench.inputs.blocks.RunBlocks`) by a
    thread, one block ahead of its consumer (``tables``: its described blocks,
    :meth:`~trecbench.inputs.blocks.RunBlocks.described`)."""

    blocks: Any
    tables: Any  # trecbench.validation.reader.Prefetched

    def close(self) -> None:
        """Stop the reading at its next table (a run with scattered topics is otherwise
        read whole, or spilled, before its first block) and wait for the thread."""
        self.blocks.stop()
        self.tables.close()


def _read_blocks(path, budget: Budget, progress, score_text: bool = False) -> _BlocksAhead:
    """Start reading the run file ``path`` in the blocks ``budget`` allows (``score_text``:
    as :class:`~trecbench.inputs.blocks.RunBlocks` takes it)."""
    from ..inputs.blocks import RunBlocks
    from ..validation.reader import Prefetched

    path = os.fspath(path)
    blocks = RunBlocks(
        path,
        budget.block_lines,
        budget.whole_lines,
        check=_Gate,
        spill_rows=budget.spill_lines,
        progress=_reading(progress, path),
        read_bytes=budget.read_bytes,
        score_text=score_text,
    )
    return _BlocksAhead(blocks, Prefetched(_hashed(blocks.described())))


def _hashed(blocks):
    """``blocks`` with their docnos hashed (:class:`~trecbench.inputs.blocks.Block`'s
    ``docno_hashes``), in the thread that reads ahead: a fifth of scoring's time on the
    main thread, moved to the other core."""
    from ..hash_index import string_hash
    from ..inputs.blocks import RESTART

    for block in blocks:
        if block is not RESTART:
            block = block._replace(docno_hashes=string_hash(block.table.column("docno")))
        yield block


def _blocks_ahead(
    source, qrels, budget: Budget, progress, score_text: bool = False
) -> _BlocksAhead | None:
    """:func:`_read_blocks` of a run started before the qrels are loaded (its first blocks
    are read meanwhile, as :func:`_read_ahead` reads a run held whole), with a budget that
    holds the most lines the qrels file can hold (the qrels read can only leave more
    room). None when those cannot be told (see :func:`trecbench.memory.most_qrels_lines`)
    or would make the blocks smaller than the largest (a small budget, where the qrels
    read decide them): the run is then read once the qrels are."""
    most = most_qrels_lines(qrels)
    if most is None:
        return None
    bounded = budget.with_qrels(most)
    if (bounded.block_lines, bounded.read_bytes) != (memory.BLOCK_LINES, memory.READ_BYTES):
        return None
    return _read_blocks(source, bounded, progress, score_text)


def _in_blocks(source, budget: Budget) -> bool:
    return isinstance(source, (str, os.PathLike)) and budget.in_blocks(source)


def _start_reading(
    sources: list, read_whole: str | None, workers: int, budget: Budget, qrels, progress,
    version: Compat, score_text: bool,
) -> Future | _BlocksAhead | None:  # fmt: skip
    """The first run read while the qrels are loaded (Arrow's threads read it meanwhile):
    whole, or its first blocks when it is read in blocks; None when workers read the runs
    or it cannot be read ahead. ``score_text``: its scores as written kept too."""
    if not sources or workers > 1:
        return None
    if read_whole is None and _in_blocks(sources[0], budget):
        return _blocks_ahead(sources[0], qrels, budget, progress, score_text)
    return _read_ahead(sources[0], progress, version, score_text)


def _say_pipes_held(sources: list, mib: int | None) -> None:
    """Say, once for the call (an input warning, :mod:`trecbench.input_warnings`), that a
    memory budget given (``mib``; None: the default, said nothing of) cannot hold for the
    runs read from a pipe (``-`` from a pipe, ``<(zcat run.gz)``, a FIFO): each is read
    into memory whole as it arrives (:mod:`trecbench.inputs.streams`), never in blocks; a
    file given by name, or standard input redirected from one, is read in blocks."""
    if mib is None:
        return
    pipes = [os.fspath(source) for source in sources if read_into_memory(source)]
    if pipes:
        input_warnings.keep([
            f"{id_list(pipes, limit=None)}: read from a pipe, so held in memory whole: the "
            f"memory budget ({mib} MiB) cannot hold for it; give the file itself (or "
            "redirect standard input from it) to read it in blocks"
        ])  # fmt: skip


def _say_read_whole(
    sources: list, read_whole: SettingsText | None, budget: Budget, mib: int | None
):
    """Say, once for the call (as :func:`_say_pipes_held` says it of pipes), that a memory
    budget given (``mib``; None: the default, said nothing of) cannot hold for the run
    files the call reads whole (``read_whole``: why, the options of
    :func:`trecbench.evaluation.plan._read_whole`) where they are estimated to need more
    than it: more lines than ``budget`` (the qrels held counted) holds whole
    (:attr:`~trecbench.memory.Budget.whole_lines`, the budget's own costs per line). A run
    within it, as any run smaller than a block, is held whole within the budget."""
    if mib is None or read_whole is None:
        return
    large = [os.fspath(source) for source in sources if _beyond_whole(source, budget)]
    if large:
        them = "them" if len(large) > 1 else "it"
        input_warnings.keep([SettingsText(
            f"{id_list(large, limit=None)}: held in memory whole for ", read_whole, ": the "
            f"memory budget ({mib} MiB) cannot hold for {them} (a run file is otherwise read "
            "in blocks)"
        )])  # fmt: skip


def _beyond_whole(source, budget: Budget) -> bool:
    """Whether the run file ``source`` has more lines than ``budget`` holds whole."""
    if not isinstance(source, (str, os.PathLike)):
        return False
    lines = budget.run_lines(source)
    return lines is not None and lines > budget.whole_lines
