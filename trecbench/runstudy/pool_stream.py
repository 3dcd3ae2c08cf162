"""The runs' pooled pairs, read run by run: every few runs their kept rows are folded into
the pool's distinct (topic, document) pairs and only each row's pair number is kept, so
memory follows the pool, not the runs (:func:`stream`, :class:`Streamed`: what
:func:`trecbench.runstudy.pool.pool` counts and writes)."""

from __future__ import annotations

import os
from contextlib import closing
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from .. import arrow
from .. import arrow_compute as pc
from . import ranked as ranked_runs
from .ranked import SLICE


class _IntegerRuns:
    """Which runs' id columns were read from integers, against the others': checked on the
    pooled ids at the end, as the runs' rows are not kept (a topic ``01`` of one run and
    ``1`` of a run read from integers would be pooled as two)."""

    def __init__(self) -> None:
        self.first: dict[str, str] = {}  # role -> the first run read from integers
        self.text: set[str] = set()  # roles some run holds as text
        self.names: list[str] = []  # every run's, in the order read

    def add(self, table: pa.Table, name: str) -> None:
        from ..inputs.tables import integer_ids

        self.names.append(name)
        for role in ("qid", "docno"):
            if integer_ids(table, role):
                self.first.setdefault(role, name)
            else:
                self.text.add(role)

    def refuse_lost_zeros(self, pooled, numbers: list[np.ndarray]) -> None:
        """Refuse runs read from integers beside runs with ids no integer prints as (found
        among the ``pooled`` pairs' ids of each role: only the text runs' can be such),
        naming the run that holds one (``numbers``: each run's pairs)."""
        from ..inputs.integer_ids import lost_zero, refuse

        ids = {"qid": pooled.qids.take(arrow.array(pooled.topic)), "docno": pooled.docno}
        for role, name in self.first.items():
            example = lost_zero(ids[role]) if role in self.text else None
            if example is not None:
                pairs = np.flatnonzero(arrow.to_numpy(pc.equal(ids[role], example)))
                holders = zip(self.names, numbers, strict=True)
                holder = next(n for n, held in holders if np.isin(held, pairs).any())
                refuse(name, holder, role, example)


# kept rows read before they are folded into the pool's distinct pairs (at least as many
# as the pool holds, so each pair is folded a bounded number of times: linear in rows)
BATCH_ROWS = 1 << 22
# runs read ahead of the one being folded
READ_AHEAD = 2


@dataclass(frozen=True)
class Streamed:
    """The pool's pairs: each one's ``topic`` (an index into ``qids``, the distinct qids in
    byte-wise order), ``docno`` and how many ``runs`` pooled it; each run's rows' pair
    ``numbers``."""

    qids: pa.Array
    topic: np.ndarray
    docno: pa.Array
    runs: np.ndarray
    numbers: list[np.ndarray]
    unwritable: dict  # Pool.unwritable


def stream(sources: list, labels: list, depth: int, progress, against: tuple | None) -> Streamed:
    """The runs' kept rows, read run by run: every few runs their rows are folded into the
    pool's distinct pairs and only each row's pair number is kept, so memory follows the
    pool, not the runs (20 runs held at once faulted in 1 GB). ``against``: the qrels'
    table and name, refused beside a run that lost its ids' leading zeros."""
    from ..conclusions.scores import source_name
    from ..inputs.integer_ids import refuse_lost_zeros

    distinct, batch, numbers, integers, unwritable = None, [], [], _IntegerRuns(), {}

    def read(index: int):
        return ranked_runs.read_run(sources[index], progress, labels[index])

    # the next runs read while these are checked and folded (the reading thread had read
    # one and waited while a batch was folded); closed on an error: the reads not
    # started are dropped
    with closing(ranked_runs.read_ahead(read, range(len(sources)), READ_AHEAD)) as read_runs:
        for index, loaded in enumerate(read_runs):
            table = ranked_runs.kept_rows(loaded, sources[index], depth, labels[index])
            del loaded
            name = source_name(sources[index]) or labels[index]
            if against is not None:  # the qrels' table and name: ids read from integers
                refuse_lost_zeros(*against, table, name)
            integers.add(table, name)
            if isinstance(sources[index], (str, os.PathLike)):  # a file's lines: said at one
                table = _note_unwritable(table, name, unwritable)
            elif "line" in table.column_names:  # a table's rows: said as check_text_ids says
                table = table.drop_columns(["line"])
            batch.append(table)
            size = 0 if distinct is None else distinct.num_rows
            if index == len(sources) - 1 or sum(t.num_rows for t in batch) >= max(size, BATCH_ROWS):
                folded = _fold(distinct, batch, progress)
                numbers = [folded.order[n] for n in numbers] + folded.numbers
                distinct, batch = folded.distinct, []
                pa.default_memory_pool().release_unused()  # (Arrow's allocator would keep it)
    pooled, runs = folded.pooled, np.zeros(len(folded.pooled.topic), np.int64)
    integers.refuse_lost_zeros(pooled, numbers)
    for number in numbers:  # a run's pairs are distinct
        runs[number] += 1
    return Streamed(pooled.qids, pooled.topic, pooled.docno, runs, numbers, unwritable)


def _note_unwritable(table: pa.Table, name: str, found: dict) -> pa.Table:
    """``table`` (a run's kept rows, ``name``) without its ``line`` column, noting in
    ``found`` where each id no TREC line can hold was first read (:attr:`Pool.unwritable`;
    a pool file refuses it only if it holds it: a judged one is left out)."""
    from ..files import unwritable_ids

    lines = table.column("line") if "line" in table.column_names else None
    for what in ("qid", "docno"):
        bad = unwritable_ids(table.column(what), what)
        if bad is None or not bad.any():
            continue
        rows = np.flatnonzero(bad)
        ids = pc.cast(table.column(what), pa.large_string()).take(arrow.array(rows))
        at = [None] * len(rows) if lines is None else lines.take(arrow.array(rows)).to_pylist()
        for one, line in sorted(zip(ids.to_pylist(), at, strict=True),
                                key=lambda pair: (pair[1] is None, pair[1] or 0)):  # fmt: skip
            found.setdefault((what, one), (name, line))
    return table.drop_columns(["line"]) if lines is not None else table


@dataclass(frozen=True)
class _Folded:
    """The pool's ``distinct`` pairs (``qid, docno``) after a fold, in their numbers'
    order; ``order``: the new number of each earlier pair; ``numbers``: the pair numbers
    of each folded run's rows, as read; ``pooled``: the fold's :class:`_Pooled`."""

    distinct: pa.Table
    order: np.ndarray
    numbers: list[np.ndarray]
    pooled: _Pooled


def _fold(distinct: pa.Table | None, batch: list[pa.Table], progress=None) -> _Folded:
    """Number the pairs of the earlier ``distinct`` ones (as one more run, first) and the
    ``batch`` of runs' rows together; ``progress`` told of the rows (``pooling``)."""
    from ..inputs.streams import labelled

    tables = ([] if distinct is None else [distinct]) + batch
    lengths = [t.num_rows for t in tables]
    told = labelled(progress, "pooling")
    if told is not None:  # from its start: the topics' codes and the docnos' copy count
        told(0, sum(lengths))
    qids, topics = ranked_runs.topic_codes(tables)
    pooled = _pooled_rows(qids, topics, _column(tables, "docno"), told)
    del tables, topics
    numbers = np.empty(len(pooled.pair), pooled.pair.dtype)
    numbers[pooled.order] = pooled.pair  # back in the order read
    pieces = np.split(numbers, np.cumsum(lengths)[:-1])
    earlier = pieces.pop(0) if distinct is not None else np.empty(0, np.int32)
    table = pa.table({"qid": pooled.qids.take(arrow.array(pooled.topic)), "docno": pooled.docno})
    return _Folded(table, earlier, pieces, pooled)


@dataclass(frozen=True)
class _Pooled:
    """Every run's pooled rows, grouped by topic: each row's ``pair`` (its (topic,
    document) pair's number); each pair's ``topic`` (an index into ``qids``, the distinct
    qids in byte-wise order) and ``docno``; ``order``: the rows as given that ``pair``
    lists."""

    qids: pa.Array
    pair: np.ndarray
    topic: np.ndarray
    docno: pa.Array
    order: np.ndarray


def _pooled_rows(qids: pa.Array, topics: list, docno: pa.Array, told=None) -> _Pooled:
    """:class:`_Pooled` of the runs' kept rows (their ``topics``, indices into ``qids``,
    and ``docno``, every run's rows in turn), pairs numbered in the order they first come
    (runs in the order given), a few whole topics at a time (``told(rows done, rows)``
    after each)."""
    topic = np.concatenate(topics, dtype=np.int32) if topics else np.empty(0, np.int32)
    n = len(topic)
    topic_ends = np.cumsum(np.bincount(topic, minlength=len(qids)))
    # every run's rows of a topic together, in the runs' order (a stable sort: a radix
    # sort on 16-bit codes)
    by_topic = np.argsort(topic.astype(np.uint16) if len(qids) <= 1 << 16 else topic,
                          kind="stable")  # fmt: skip
    near = topic_ends[np.searchsorted(topic_ends, np.arange(SLICE, n, SLICE))]
    cuts = ranked_runs.distinct_sorted(np.r_[near, n]).astype(np.int64)
    pair = np.empty(n, np.int32 if n < 1 << 31 else np.int64)
    first_topics, first_docnos, numbered = [], [], 0
    for start, stop in zip(np.r_[0, cuts[:-1]], cuts, strict=True):
        rows = by_topic[start:stop]
        text = docno.take(arrow.array(rows))
        number = ranked_runs.pair_numbers(text, topic[rows])
        # numbered by first appearance: a pair's first row is the one whose number is
        # higher than every one before it, and those rows come numbered 0, 1, 2...
        seen = np.maximum.accumulate(number)
        firsts = np.flatnonzero(np.r_[True, seen[1:] > seen[:-1]]) if len(rows) else rows
        pair[start:stop] = number
        pair[start:stop] += numbered
        first_topics.append(topic[rows[firsts]])
        first_docnos.append(text.take(arrow.array(firsts)))
        numbered += len(firsts)
        if told is not None:
            told(int(stop), n)
    return _Pooled(
        qids,
        pair,
        np.concatenate([np.empty(0, np.int32), *first_topics]),
        pa.concat_arrays([arrow.array([], docno.type), *first_docnos]),
        by_topic,
    )


def _column(tables: list[pa.Table], name: str) -> pa.Array:
    """Every table's column ``name`` as one string array, copied once: 32-bit offsets
    when every chunk has them and the text fits (a cast to 64-bit ones took three times
    the copy), else large_string."""
    chunks = [chunk for t in tables for chunk in t.column(name).chunks]
    size = sum(chunk.buffers()[2].size for chunk in chunks if chunk.buffers()[2] is not None)
    if all(chunk.type == pa.string() for chunk in chunks) and size < (1 << 31) - 1:
        return pa.concat_arrays([arrow.array([], pa.string()), *chunks])
    return pa.concat_arrays(
        [arrow.array([], pa.large_string()), *(pc.cast(c, pa.large_string()) for c in chunks)]
    )
