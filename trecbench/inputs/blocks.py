"""A run file read in blocks of whole topics, for runs larger than memory.

:class:`RunBlocks` yields typed tables (``qid, docno, score, tag, line``), each holding
every line of its topics, so that each block can be scored on its own (topics are
independent in every measure) in bounded memory:

* **Contiguous topics** (every topic in one stretch of lines, as retrieval systems write
  them): the file is read once, in Arrow tables (by its format's block reader,
  :mod:`~trecbench.inputs.formats`: for TREC text the regular-file reader of
  :mod:`~trecbench.inputs.trec_text` or its tokenizer, for Parquet the file's batches),
  and cut between topics once a block holds ``rows`` lines.
* **Topics in several stretches**: found while reading, the file is read again from its
  start (as the regular-file reader does when it finds irregular text). A run of at most
  ``whole_rows`` lines then comes as one block; a larger one is *spilled*: written to a
  temporary Arrow dataset partitioned by a hash of the qid (:mod:`pyarrow.dataset`), whose
  partitions are read back a few at a time. Rows keep their physical line number, and
  every block comes in file order.

After the iteration, :attr:`RunBlocks.record` holds the file's provenance (size, sha256,
lines, topics, run tags, ir_metadata: what :func:`trecbench.inputs.load_run` records),
:attr:`RunBlocks.runid` the tag of its last line (what trec_eval reports) and
:attr:`RunBlocks.warnings` what the check said.
"""

from __future__ import annotations

import itertools
import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from functools import partial
from typing import Any, NamedTuple, Protocol

import numpy as np
import pyarrow as pa

from .. import arrow
from .. import arrow_compute as pc
from ..errors import OutputError
from ..scratch import scratch_folder, unwritable
from . import trec_text
from .ir_metadata import recorded
from .streams import Progress, Source
from .tables import carry_integer_ids, integer_ids, lines_are_rows, with_integer_ids
from .trec_tables import SCORE_TEXT

RUN_COLUMNS = ("qid", "docno", "score", "tag", "line")
# bytes of text per table read (the regular reader's blocks, the tokenizer's chunks) when
# not told less: fewer, larger tables cost less per line to describe and gather into blocks
# (measured by hand on a 7M-line run: a tenth less wall time than 1 MiB; 16 MiB is slower
# again); a small memory budget reads less at a time (trecbench.memory.Budget.read_bytes)
READ_BYTES = 4 << 20
# the columns' types in a block and in a spill
_TYPES = {"qid": pa.string(), "docno": pa.string(), "score": pa.float64(), "tag": pa.string(),
          "line": pa.int64(), SCORE_TEXT: pa.string()}  # fmt: skip
# partitions of a spill per block: a block gathers several, so a topic-hash partition
# larger than the average rarely makes a block larger than asked
_PARTITIONS_PER_BLOCK = 4


class StreamCheck(Protocol):
    """A check of a TREC text file fed chunk by chunk (``trecbench score`` passes the
    validator's lenient profile): :meth:`feed` each chunk's tokens, then :meth:`finish`,
    which raises on errors and returns the warnings. Once ``failed`` (errors found), chunks
    are no longer made into tables: the check's report is what the caller gets."""

    failed: bool

    def feed(self, tokens: trec_text.Tokens) -> None: ...

    def finish(self) -> list[str]: ...


class NotContiguous(Exception):
    """A topic came back after other topics (internal: the file is read again)."""


class Stopped(Exception):
    """Raised by an iteration of :class:`RunBlocks` once :meth:`RunBlocks.stop` was
    called (its consumer has gone)."""


# yielded by :class:`RunBlocks` when a topic came back after blocks were yielded: those
# blocks are void, the run follows again from its start (read again, or spilled)
RESTART = None


class RunBlocks:
    """A run file as blocks of whole topics (see the module docstring).

    ``rows``: lines per block (a block holds more when a topic does); ``whole_rows``: the
    most lines a run with scattered topics may have to come as one block rather than
    through a spill; ``spill_rows``: lines per block read back from a spill (default
    ``rows``; at most that many, unless a partition holds more); ``check``: makes the
    :class:`StreamCheck` of a path, for TREC text that is not regular; ``progress``: bytes
    read (see :class:`~trecbench.inputs.streams.Source`); ``spill_dir``: where a spill goes
    (default: the system's temporary folder, ``TMPDIR``); ``read_bytes``: bytes of text
    per table read (default :data:`READ_BYTES`; a memory budget may ask for less:
    :attr:`trecbench.memory.Budget.read_bytes`); ``score_text``: the blocks also hold each
    score as written (``score_text``; null where the format holds numbers, not text).
    """

    def __init__(
        self,
        path: str | os.PathLike,
        rows: int,
        whole_rows: int,
        check: Callable[[str], StreamCheck] | None = None,
        progress: Progress | None = None,
        spill_dir: str | os.PathLike | None = None,
        spill_rows: int | None = None,
        read_bytes: int | None = None,
        score_text: bool = False,
    ):
        self.path = os.fspath(path)
        self.score_text = score_text
        self.columns = (*RUN_COLUMNS, SCORE_TEXT) if score_text else RUN_COLUMNS
        self.rows, self.whole_rows = max(1, rows), whole_rows
        self.spill_rows = self.rows if spill_rows is None else max(1, spill_rows)
        self.read_bytes = READ_BYTES if read_bytes is None else max(1, read_bytes)
        self.check, self.progress, self.spill_dir = check, progress, spill_dir
        self.record: dict[str, Any] | None = None
        self.runid = ""
        self.warnings: list[str] = []
        self.ir_metadata: dict[str, Any] | None = None  # set by the format's block reader
        self.spilled = False  # whether the topics came through a spill
        # the run's topics, once all its lines are read before its blocks are scored (a
        # spill, or a scattered run held as one block): the total of a bar of topics
        self.topics: int | None = None
        self._lines_estimate: Callable[[], int] | None = None  # while read in one pass
        # whether the lines are the file's rows (Parquet's: tables.lines_are_rows), which
        # errors then cite; told by the tables read (_pieces)
        self.lines_are_rows = True
        self._stopped = False

    def resize(self, whole_rows: int, spill_rows: int) -> None:
        """New ``whole_rows`` and ``spill_rows``, for a reading already started (a run
        with scattered topics decides with the values it finds when it needs them)."""
        self.whole_rows, self.spill_rows = whole_rows, max(1, spill_rows)

    def stop(self) -> None:
        """Stop an iteration (in another thread) at its next table: it raises
        :class:`Stopped` there."""
        self._stopped = True

    def __iter__(self) -> Iterator[pa.Table | None]:
        """The blocks in file order; :data:`RESTART` voids those before it."""
        blocks = self.described()
        try:
            for block in blocks:
                yield RESTART if block is RESTART else block.table
        finally:
            blocks.close()

    def described(self) -> Iterator[Block | None]:
        """The blocks of :meth:`__iter__`, each with its topics' stretches where the
        tables read told them (see :class:`Block`)."""
        with Source(self.path, self.progress) as source:
            counts = Counts()
            pieces = self._pieces(source, counts)
            self._lines_estimate = partial(counts.lines_estimate, source)
            try:
                yield from _topic_blocks(pieces, self.rows, _near_end(source, counts, self.rows))
            except NotContiguous:
                yield RESTART  # the blocks yielded so far are void
                pieces.close()  # its reader stops before the file is read again
                counts = Counts()
                self._lines_estimate = None  # all lines are read before a block comes
                tables = (piece.table for piece in self._pieces(source, counts))
                estimate = partial(counts.lines_estimate, source)
                for table in self._scattered(tables, estimate, lambda: len(counts.qids)):
                    yield Block(table)
            file_record = source.record()
        self.runid = counts.last_tag
        self.record = {"path": self.path, "kind": "run", **file_record, **counts.record()}
        self.record |= recorded(self.ir_metadata)

    def _scattered(
        self, tables: Iterator[pa.Table], estimate: Callable[[], int], topics: Callable[[], int]
    ) -> Iterator[pa.Table]:
        """A run whose topics come in several stretches: one block if it has at most
        ``whole_rows`` lines, else through a spill; ``estimate()``: the file's lines, told
        from those read so far (asked once they are many: the reader's threads read
        ahead of the lines counted, which misleads an early guess); ``topics()``: the
        topics read so far, :attr:`topics` once every line is read."""
        held: deque[pa.Table] = deque()
        lines = 0
        for table in tables:
            held.append(table)
            lines += table.num_rows
            if lines > self.whole_rows:
                break
        else:
            self.topics = topics()
            if held:
                yield _concat(list(held))
            return
        # each held table is let go once written: none is in memory while the spill is
        # read back (they are most of what the budget allows)
        del table
        self.spilled = True
        spilled = self._spilled(itertools.chain(_emptied(held), tables), max(estimate(), lines))
        for block in spilled:
            self.topics = topics()  # all read (written to the spill) before the first block
            yield block

    def topics_expected(self, lines: int, topics: int) -> int | None:
        """The run's topics for a bar of those scored (``topics`` of them, in ``lines``
        lines): :attr:`topics` when known, else, while the file is read in one pass, as
        many more as its lines not yet scored would hold at the same rate (an ETA from
        the bytes read); None when there is nothing to tell it from."""
        if self.topics is not None:
            return self.topics
        if self._lines_estimate is None or not lines:
            return None
        return max(topics, -(-topics * self._lines_estimate() // lines))

    def _pieces(self, source: Source, counts: Counts) -> Iterator[_Piece]:
        """The run's rows from its start, in typed tables (:attr:`columns`) with their
        physical line numbers, each described (:func:`_described`), as the file's format
        reads it in blocks (:mod:`~trecbench.inputs.formats`)."""
        line = 0
        read_blocks = source.format.reader("read_blocks", source.path)
        for piece in read_blocks(source, self):
            if self._stopped:
                raise Stopped
            if not isinstance(piece, _Piece):
                piece = _described(piece)
            table = piece.table
            self.lines_are_rows = self.lines_are_rows and lines_are_rows(table)
            if "line" not in table.column_names:
                numbers = np.arange(line + 1, line + table.num_rows + 1, dtype=np.int64)
                table = table.append_column("line", arrow.array(numbers))
            if self.score_text and SCORE_TEXT not in table.column_names:  # no text: numbers
                table = table.append_column(SCORE_TEXT, pa.nulls(table.num_rows, pa.string()))
            line += table.num_rows
            counts.add(table.num_rows, piece.stretch, piece.tags, piece.last_tag)
            columns = [_typed(table.column(name), name) for name in self.columns]
            typed = carry_integer_ids(table, pa.table(columns, self.columns))  # as whole
            yield piece._replace(table=typed)

    @staticmethod
    def describe(table: pa.Table) -> _Piece:
        """``table`` described for the blocks (:func:`_described`): what a format's block
        reader may apply in the threads that parse its tables."""
        return _described(table)

    def _spilled(self, tables: Iterator[pa.Table], lines: int) -> Iterator[pa.Table]:
        """Blocks of whole topics through a dataset partitioned by a hash of the qid:
        ``tables`` (about ``lines`` lines) are written, then read back a few partitions
        at a time, each block in file order."""
        import pyarrow.dataset as ds

        partitions = max(1, _PARTITIONS_PER_BLOCK * -(-lines // self.spill_rows))
        parts = pa.schema([("part", pa.int32())])
        schema = pa.schema([(name, _TYPES[name]) for name in self.columns] + list(parts))

        integers: set[str] = set()  # the marks of ids read from integers, which a spill
        # drops: the blocks read back carry them as the tables written did

        failed: list[BaseException] = []  # the run's reading, whose errors are its own

        def parted() -> Iterator[pa.RecordBatch]:
            try:
                for table in tables:
                    integers.update(r for r in ("qid", "docno") if integer_ids(table, r))
                    columns = [pc.cast(table.column(n), _TYPES[n]) for n in self.columns]
                    part = arrow.array(_partition(table.column("qid"), partitions))
                    yield from pa.table([*columns, part], schema=schema).to_batches()
            except BaseException as error:
                failed.append(error)
                raise

        # locked while it lives: one a SIGKILL leaves is removed by the next spill (scratch)
        with scratch_folder("trecbench-spill-", self.spill_dir) as folder:
            try:
                ds.write_dataset(
                    parted(),
                    folder,
                    schema=schema,
                    format="arrow",
                    partitioning=ds.partitioning(parts),
                    existing_data_behavior="overwrite_or_ignore",
                    # Arrow refuses a batch spread over more than 1024 partitions by
                    # default; beyond its 1024 open files it closes the least recently used
                    max_partitions=partitions,
                )
            except OSError as error:
                if failed:
                    raise
                raise _unwritable(self.path, folder, error) from error
            # a partition's files are in its folder (none when it has no row): read alone,
            # not filtered out of the whole dataset (a scan per partition of every file)
            present = set(os.listdir(folder))
            pending: list[pa.Table] = []
            held = 0
            for part in range(partitions):
                if str(part) not in present:
                    continue
                where = os.path.join(folder, str(part))
                piece = ds.dataset(where, format="arrow").to_table(columns=list(self.columns))
                if pending and held + piece.num_rows > self.spill_rows:
                    yield with_integer_ids(_in_file_order(pending, self.columns), [*integers])
                    pending, held = [], 0
                pending.append(piece)
                held += piece.num_rows
            if pending:
                yield with_integer_ids(_in_file_order(pending, self.columns), [*integers])


def _unwritable(path: str, folder: str, error: OSError) -> OutputError:
    """The error of a spill of the run ``path`` that could not be written in ``folder``
    (a full ``TMPDIR``): :func:`~trecbench.scratch.unwritable`'s line, the system's words
    for why, not Arrow's ("Error writing bytes to file. Detail: ...")."""
    reason = os.strerror(error.errno) if error.errno else str(error)
    return unwritable(os.path.dirname(folder), f"the spill of {path}", reason)


class Block(NamedTuple):
    """A block of whole topics and, when the tables read told them, its ``stretches``:
    where each topic starts (row numbers, ascending) and its qid, as
    :func:`trecbench.arrow.stretches` finds them (scoring need not compare every row with
    its neighbour again: :func:`trecbench.ranking.topic_codes`)."""

    table: pa.Table
    stretches: tuple[np.ndarray, list[str]] | None = None
    # each row's docno hashed (trecbench.hash_index.string_hash), when the reader made it
    docno_hashes: np.ndarray | None = None


class _Piece(NamedTuple):
    """A table of the run as read, described: where each stretch of equal qids starts
    (row numbers), its qid, the distinct run tags and the last line's tag."""

    table: pa.Table
    starts: np.ndarray
    stretch: list[str]
    tags: list[str]
    last_tag: str


def _described(table: pa.Table) -> _Piece:
    """``table`` as a :class:`_Piece` (in the thread that read it, for the regular reader:
    comparing neighbours is most of what blocks cost beyond parsing)."""
    if not table.num_rows:
        return _Piece(table, np.empty(0, np.int64), [], [], "")
    starts, stretch = arrow.stretches(table.column("qid"))
    tags = table.column("tag")
    last_tag = tags[len(tags) - 1].as_py()
    return _Piece(table, starts, stretch.to_pylist(), arrow.distinct(tags).to_pylist(), last_tag)


class Counts:
    """The provenance counts of a run read in pieces (the blocks of a file, the partitions
    of a file on Dask): lines, topics, run tags, as :meth:`record` gives them."""

    def __init__(self) -> None:
        self.lines = 0
        self.qids: set[str] = set()
        self.tags: set[str] = set()
        self.last_tag = ""

    def add(self, lines: int, qids: Iterable[str], tags: Iterable[str], last_tag: str) -> None:
        """The next piece of the run, in file order: its number of ``lines``, its topics
        ``qids``, its run ``tags`` and its last line's tag ``last_tag``."""
        if not lines:
            return
        self.lines += lines
        self.qids.update(qids)
        self.tags.update(tags)
        self.last_tag = last_tag

    def lines_estimate(self, source: Source) -> int:
        """How many lines the whole file has, from the lines and bytes read so far."""
        if not self.lines or not source.total or not source.bytes_read:
            return self.lines
        return -(-self.lines * source.total // source.bytes_read)

    def record(self) -> dict[str, Any]:
        """The counts of the run's record (:func:`trecbench.report.input_record`)."""
        return {
            "lines": self.lines,
            "topics": len(self.qids),
            "run_tag": self.last_tag if self.lines else None,
            "run_tags": sorted(self.tags),
        }


def _typed(values: pa.ChunkedArray, name: str) -> pa.ChunkedArray:
    """A column as blocks hold it (:data:`_TYPES`: ids as plain strings)."""
    return values if values.type == _TYPES[name] else pc.cast(values, _TYPES[name])


def _partition(qids: pa.ChunkedArray, partitions: int) -> np.ndarray:
    """Per row, ``hash(qid) % partitions`` (:func:`trecbench.hash_index.string_hash`: a
    function of the qid's bytes only, so a topic always lands in one partition)."""
    from ..hash_index import string_hash

    parts = []
    for chunk in qids.chunks:
        if pa.types.is_dictionary(chunk.type):
            hashes = string_hash(pc.cast(chunk.dictionary, pa.string())) % np.uint64(partitions)
            parts.append(hashes[arrow.to_numpy(chunk.indices)])
        else:
            parts.append(string_hash(pc.cast(chunk, pa.string())) % np.uint64(partitions))
    return (np.concatenate(parts) if parts else np.empty(0, np.uint64)).astype(np.int32)


def _in_file_order(pieces: list[pa.Table], columns: tuple[str, ...]) -> pa.Table:
    """A block of spilled partitions, its rows in file order."""
    block = _concat(pieces)
    block = block.take(pc.sort_indices(block, [("line", "ascending")]))
    return pa.table([_typed(block.column(name), name) for name in columns], columns)


def _emptied(items: deque) -> Iterator:
    """The items of ``items``, each removed from it as it comes."""
    while items:
        yield items.popleft()


def _concat(pieces: list[pa.Table]) -> pa.Table:
    return pieces[0] if len(pieces) == 1 else pa.concat_tables(pieces)


def _near_end(source: Source, counts: Counts, rows: int) -> Callable[[], bool]:
    """Whether fewer than ``rows`` lines are left to come, told from the bytes read
    (asked after each table). The last block is scored once the file is read, on one core
    while the other idles: cut there at every table, it is a table's lines, not a block's
    (a tenth of the 7M-line run's scoring, off its wall time). Never where the first
    table comes once every byte is read (a file of a few tables; Parquet, read at once),
    or from a pipe: the bytes read then tell nothing of the lines left."""
    streamed = None

    def near() -> bool:
        nonlocal streamed
        if streamed is None:
            streamed = bool(source.total) and source.bytes_read < source.total
        return streamed and counts.lines_estimate(source) - counts.lines < rows

    return near


def _topic_blocks(
    pieces: Iterator[_Piece], rows: int, near_end: Callable[[], bool] | None = None
) -> Iterator[Block]:
    """Blocks of whole topics, each of at least ``rows`` lines but the first, cut at the
    first table (its consumer starts while the next tables are parsed), and the last
    (and, once ``near_end()``, those cut at every table), from tables whose topics come
    in one stretch each, with their stretches; raises :class:`NotContiguous` at a topic
    that comes back."""
    closed: set[str] = set()
    pending: list[pa.Table] = []
    held = 0
    # the stretches of the pending tables: where each starts (from the first's start), qids
    starts_held: list[np.ndarray] = []
    qids_held: list[str] = []
    current = None  # the topic the last table ended in
    first = True  # no block cut yet
    for table, starts, stretch, _, _ in pieces:
        if not table.num_rows:
            continue
        if stretch[0] == current:
            starts, stretch = starts[1:], stretch[1:]
        for qid in stretch:
            if qid in closed:
                raise NotContiguous(qid)
            if current is not None:
                closed.add(current)
            current = qid
        pending.append(table)
        starts_held.append(starts + held)
        qids_held += stretch
        held += table.num_rows
        if len(starts) and (held >= rows or first or (near_end is not None and near_end())):
            first = False
            cut = int(starts[-1])  # the last topic may go on in the next table
            head = pending[:-1] + ([table.slice(0, cut)] if cut else [])
            if head:  # every stretch but the last, which goes on in the next block
                yield Block(_concat(head), (np.concatenate(starts_held)[:-1], qids_held[:-1]))
            pending = [table.slice(cut)]
            held = pending[0].num_rows
            starts_held, qids_held = [np.zeros(1, np.int64)], [current]
    if pending:
        yield Block(_concat(pending), (np.concatenate(starts_held), qids_held))
