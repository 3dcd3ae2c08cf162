"""The rows kept to check a topic split across chunks again whole (R11, R14, R15).

A topic split into blocks (R20) that the streaming reader meets in different chunks is
checked per stretch as it comes; :class:`KeptRows` keeps each row's topic, rank, score and
line (:data:`ROW_BYTES` a row: an int32 code of the topic's name, an int64 rank, a float64
score, an int64 line), so that :meth:`.run_topics.TopicChecks.finish` checks such topics
again over all their rows. Which topics come back is known only at the end, so every row is
kept: up to :data:`MEMORY_ROWS` in memory; past them, all of them in four files (a column
each, appended batch by batch) in a scratch folder of ``TMPDIR``
(:class:`trecbench.scratch.Scratch`: removed at the end, at exit, or by the next call's
sweep after a SIGKILL). When none came back the files are dropped unread. If they cannot be
written (a full disk: an :class:`OSError`) none is kept (:attr:`KeptRows.failed`), and a
split topic's findings stand per stretch. At the end the split topics are gathered in
groups of at most :data:`GROUP_ROWS` rows (a topic larger than that alone): in memory, each
group's rows are freed as it is taken; on disk, one read through the files (:data:`READ_ROWS`
rows at a time) copies each split topic's rows to its group's own file, then each group reads
its file: linear in the rows kept (in rounds of :data:`OPEN_BUCKETS` groups, a read each,
when there are more groups than that).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator

import numpy as np

# bytes a row kept: topic code (int32), rank (int64), score (float64), line (int64)
ROW_BYTES = 4 + 8 + 8 + 8
# most rows of split topics checked again at once (a topic larger than that: alone); the
# check holds ~150 bytes a row besides what is kept (40 MB)
GROUP_ROWS = 1 << 18
# most rows kept in memory (7 MB); past them every row goes to the files
MEMORY_ROWS = 1 << 18
# rows read from the files at a time at the end (7 MB: a million, 28 MB, added ~40 MB to
# the peak of a scattered 4M-line run)
READ_ROWS = 1 << 18
# most groups' files open at once while the rows are routed to them (a write buffer of
# 8 KB each); more groups are routed in rounds, a read through the files each
OPEN_BUCKETS = 64
_COLUMNS = (("code", np.int32), ("rank", np.int64), ("score", np.float64), ("line", np.int64))
_ROW = np.dtype(list(_COLUMNS))  # a group's file: the four columns a row, packed
# ``told(stage, done, total)``: the re-check's progress, "routing" (rows read of the kept
# rows, once a round) and "checking" (groups checked)
Told = Callable[[str, int, int], None]


class KeptRows:
    """Each row's topic (as a code), rank, score and line, batch by batch, in file order
    within each topic; in memory up to :data:`MEMORY_ROWS`, then in files."""

    def __init__(self) -> None:
        self.code_of: dict[str, int] = {}  # topic name -> code
        self.batches: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []
        self.rows = 0
        self.files: _Files | None = None  # past MEMORY_ROWS
        self.failed = ""  # why the files could not be written: nothing is kept
        # set by sort() for groups(): the topics asked for, each code's index among them
        # (-1: not asked for), and each group's first and past-last index
        self.topics: list[str] = []
        self.wanted = np.empty(0, np.int64)
        self.bounds: list[tuple[int, int]] = []

    def add(self, qname: list[str], length: np.ndarray, rank, score, line) -> None:
        """Keep a batch's rows: sorted by topic, ``length[i]`` rows of topic ``qname[i]``."""
        if self.failed:
            return
        code_of = self.code_of
        codes = np.array([code_of.setdefault(name, len(code_of)) for name in qname], np.int32)
        batch = (
            np.repeat(codes, length),
            np.asarray(rank, np.int64),
            np.asarray(score, np.float64),
            np.asarray(line, np.int64),
        )
        self.rows += len(batch[0])
        if self.files is None and self.rows <= MEMORY_ROWS:
            self.batches.append(tuple(np.array(column) for column in batch))
            return
        try:
            if self.files is None:
                self.files = _Files()
                for earlier in self.batches:
                    self.files.write(earlier)
                self.batches = []
            self.files.write(batch)
        except OSError as error:
            self._give_up(error)

    def settle(self) -> None:
        """The files (if any) flushed, or, if they cannot be (a full disk), dropped, none
        kept (:attr:`failed`)."""
        try:
            if self.files is not None:
                self.files.flush()
        except OSError as error:
            self._give_up(error)

    def _give_up(self, error: OSError) -> None:
        """Keep no row, the files that could not be written (``error``: a full disk)
        removed: :attr:`failed` says why."""
        self.close()
        self.failed = f"{error.strerror or error}"

    def close(self) -> None:
        """Every row let go, the files (if any) removed; :attr:`failed` stays."""
        self.batches, self.code_of = [], {}
        if self.files is not None:
            self.files.close()
            self.files = None

    def sort(self, topics: list[str], sizes: list[int], told: Told | None = None) -> None:
        """Make ready the rows of ``topics`` (``sizes[i]`` rows of ``topics[i]``) for
        :meth:`groups`, in groups of at most :data:`GROUP_ROWS` rows taken in the order
        given (a topic larger than that alone), and let go of every other row. On disk,
        each group's rows go to a file of their own (:meth:`_Files.route`); if that cannot
        be written (a full disk) none is kept (:attr:`failed`); ``told`` hears the rows
        routed."""
        wanted = np.full(len(self.code_of), -1, np.int64)
        wanted[[self.code_of[name] for name in topics]] = np.arange(len(topics))
        self.code_of = {}
        self._keep_only(wanted >= 0)
        begin, bounds = 0, []
        while begin < len(topics):
            end, held = begin + 1, sizes[begin]
            while end < len(topics) and held + sizes[end] <= GROUP_ROWS:
                held += sizes[end]
                end += 1
            bounds.append((begin, end))
            begin = end
        self.topics, self.wanted, self.bounds = topics, wanted, bounds
        if self.files is None:
            return
        # each topic's group, by code (-1: a topic not asked for)
        group_of = np.repeat(
            np.arange(len(bounds), dtype=np.int32), np.diff([0, *(e for _, e in bounds)])
        )
        group_of = np.where(wanted >= 0, group_of[np.maximum(wanted, 0)], -1).astype(np.int32)
        try:
            self.files.route(group_of, self.rows, len(bounds), told)
        except OSError as error:
            self._give_up(error)

    def groups(self) -> Iterator[tuple[list[str], np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
        """The rows made ready by :meth:`sort`, a group at a time: its topics and its rows'
        code (an index into them), rank, score and line, sorted by topic in the order
        given and by line within each. Each group's rows are let go of before the next is
        gathered (in memory: its rows in the batches; on disk: its file)."""
        wanted = self.wanted
        for index, (begin, end) in enumerate(self.bounds):
            if self.files is None:
                group = (wanted >= begin) & (wanted < end)
                pieces = []
                for code, rank, score, line in self.batches:
                    take = group[code]
                    pieces.append((code[take], rank[take], score[take], line[take]))
                self._keep_only(~group & (wanted >= end))
                columns = zip(*pieces, strict=True)
                code, rank, score, line = (np.concatenate(column) for column in columns)
                del pieces
            else:
                code, rank, score, line = self.files.bucket(index)
            code = wanted[code] - begin
            order = np.argsort(code, kind="stable")  # rows come in file order
            yield self.topics[begin:end], code[order], rank[order], score[order], line[order]

    def _keep_only(self, wanted: np.ndarray) -> None:
        """Free the rows in memory whose topic's code is not ``wanted`` (a mask over
        codes)."""
        batches, self.batches = self.batches, []
        while batches:
            code, rank, score, line = batches.pop(0)
            take = wanted[code]
            if take.any():
                self.batches.append((code[take], rank[take], score[take], line[take]))


class _Files:
    """The kept rows' columns, a file each, appended to in a scratch folder."""

    def __init__(self) -> None:
        from ..scratch import Scratch

        self.scratch = Scratch("trecbench-spill-")
        self.handles: list = []
        try:
            for name, _ in _COLUMNS:
                self.handles.append(open(os.path.join(self.scratch.path, name), "wb"))  # noqa: SIM115
        except BaseException:
            self.close()
            raise

    def write(self, batch: tuple[np.ndarray, ...]) -> None:
        """Append ``batch``'s columns, each to its file."""
        for handle, column in zip(self.handles, batch, strict=True):
            handle.write(memoryview(np.ascontiguousarray(column)).cast("B"))

    def read(self, rows: int) -> Iterator[tuple[np.ndarray, ...]]:
        """The ``rows`` written, :data:`READ_ROWS` at a time, in the order written (read,
        not mapped: pages of a mapped file read through would count in the process's
        resident memory)."""
        for start in range(0, rows, READ_ROWS):
            count = min(READ_ROWS, rows - start)
            yield tuple(
                _read(h.name, kind, start, count)
                for h, (_, kind) in zip(self.handles, _COLUMNS, strict=True)
            )

    def route(self, group_of: np.ndarray, rows: int, groups: int, told: Told | None) -> None:
        """Copy each row of the ``rows`` written whose topic's code has a group
        (``group_of[code]``, ``-1``: none) to that group's own file, in the order written,
        then remove the columns' files. At most :data:`OPEN_BUCKETS` groups' files are
        open at once: more groups are routed in rounds, a read through the files each;
        ``told("routing", rows read, rows to read)`` after each read."""
        self.flush()
        rounds, done = -(-groups // OPEN_BUCKETS), 0
        for first in range(0, groups, OPEN_BUCKETS):
            last = min(groups, first + OPEN_BUCKETS)
            buckets: list = []
            try:
                for index in range(first, last):
                    buckets.append(open(self._bucket(index), "wb"))  # noqa: SIM115
                for columns in self.read(rows):
                    group = group_of[columns[0]]
                    take = np.flatnonzero((group >= first) & (group < last))
                    order = take[np.argsort(group[take], kind="stable")]
                    record = np.empty(len(order), _ROW)
                    for (name, _), column in zip(_COLUMNS, columns, strict=True):
                        record[name] = column[order]
                    cut = np.searchsorted(group[order], np.arange(first, last + 1))
                    for handle, start, stop in zip(buckets, cut[:-1], cut[1:], strict=True):
                        if start < stop:
                            handle.write(record[start:stop].view(np.uint8))
                    done += len(columns[0])
                    if told is not None:
                        told("routing", done, rows * rounds)
            finally:
                for handle in buckets:
                    handle.close()
        for handle in self.handles:
            handle.close()
            os.remove(handle.name)
        self.handles = []

    def bucket(self, index: int) -> tuple[np.ndarray, ...]:
        """Group ``index``'s rows (:meth:`route`), its file removed once read."""
        path = self._bucket(index)
        record = np.fromfile(path, _ROW)
        os.remove(path)
        return tuple(np.ascontiguousarray(record[name]) for name, _ in _COLUMNS)

    def _bucket(self, index: int) -> str:
        return os.path.join(self.scratch.path, f"group{index}")

    def flush(self) -> None:
        for handle in self.handles:
            handle.flush()

    def close(self) -> None:
        for handle in self.handles:
            handle.close()
        self.handles = []
        self.scratch.close()


def _read(path: str, kind, start: int, count: int) -> np.ndarray:
    """``count`` values of ``kind`` from value ``start`` of the file ``path``."""
    size = np.dtype(kind).itemsize
    return np.fromfile(path, kind, count, offset=start * size)
