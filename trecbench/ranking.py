"""trec_eval's ranking policy, applied once, in one place.

Per topic, documents are ordered by score descending, ties broken by docno descending
compared byte-wise (``strcmp``: ``D9`` before ``D10``); the rank column of the file plays no
part. trec_eval 9.x holds scores as 32-bit floats, so scores equal at float32 precision
tie (:mod:`trecbench.score_precision`: when, and the scores so compared). Every engine
consumes the table :func:`rank_table` returns; none re-sorts.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from . import arrow
from . import arrow_compute as pc
from .errors import DuplicateError
from .hash_index import HashIndex, in_stretch_order, non_decreasing, string_hash
from .plurals import counted
from .score_precision import comparable_scores


def rank_table(run_table: pa.Table, float32: bool = True) -> pa.Table:
    """The typed run table (string ids, finite scores: as :mod:`trecbench.inputs` reads
    every run) sorted by qid, then score desc (float32 when ``float32``), then docno desc.

    Returns the input's columns in that order with ``rank`` recomputed (int64, 1-based
    within each topic). Topics come in byte-wise qid order, as trec_eval prints them.
    Any other run goes through :func:`trecbench.inputs.rank_run` (a NaN score compares
    false with every score and would be left where it stands).
    """
    order = order_run(run_table, float32)
    ranked = run_table if order.identity else pc.take(run_table, arrow.array(order.order))
    ranks = arrow.array(order.positions() + 1, pa.int64())
    if "rank" in ranked.column_names:
        return ranked.set_column(ranked.column_names.index("rank"), "rank", ranks)
    return ranked.append_column("rank", ranks)


@dataclass
class RunOrder:
    """trec_eval's order of a run, without moving its rows.

    ``order[i]`` is the input row ranked ``i``-th (topics in byte-wise qid order, each in
    trec_eval order); ``topic[i]`` its topic, an index into ``qids`` (the sorted distinct
    qids); ``starts[t]`` where topic ``t`` begins. ``identity`` tells that the input was
    already in that order (``order`` is then ``arange``).
    """

    order: np.ndarray
    topic: np.ndarray
    qids: pa.Array
    starts: np.ndarray
    identity: bool
    # per *input* row, its topic and 0-based position, when known without scattering (the
    # rows already in trec_eval order within each topic, topics in one stretch each)
    row_topic: np.ndarray | None = None
    row_position: np.ndarray | None = None

    def positions(self) -> np.ndarray:
        """0-based position of each ranked row within its topic."""
        return _positions(self.starts, len(self.topic), self.order.dtype)


def _positions(starts: np.ndarray, n: int, dtype) -> np.ndarray:
    """0-based position of each of ``n`` rows within its stretch, the stretches starting
    at ``starts`` (ascending)."""
    positions = np.arange(n, dtype=dtype)
    # each stretch's start repeated: a third of a gather's time
    positions -= np.repeat(starts.astype(dtype), np.diff(starts, append=n))
    return positions


def _index_type(n: int):
    """int32 indices when they fit: half the memory of int64 on 10M-line runs."""
    return np.int32 if n < 2**31 - 1 else np.int64


class RankedRun:
    """A run in trec_eval order, kept to some topics and cut at ``-M``, without moving rows.

    ``rows`` are the input rows in ranked order, ``topic`` their index in ``qids`` and
    ``position`` their 0-based rank within the topic; ``docno_hashes``: each input row's
    :func:`string_hash` of its docno, when made already. :meth:`table` materialises what
    ``truncate(rank_table(...).filter(topics), max_docs)`` returns, for engines that need a
    table; the fast engine reads the arrays directly.
    """

    def __init__(
        self,
        run_table: pa.Table,
        order: RunOrder,
        qids: list[str],
        max_docs=None,
        docno_hashes: np.ndarray | None = None,
    ):
        if docno_hashes is not None and len(docno_hashes) != run_table.num_rows:
            held = counted(len(docno_hashes), "hash", "hashes")
            raise ValueError(f"docno_hashes holds {held} for {counted(run_table.num_rows, 'row')}")
        self.run_table = run_table
        self.docno_hashes = docno_hashes
        self.qids = qids
        wanted = pc.index_in(order.qids, value_set=arrow.array(qids, order.qids.type))
        topic_of = arrow.to_numpy(pc.fill_null(wanted, arrow.scalar(-1, wanted.type))).astype(
            order.topic.dtype
        )
        position = order.positions()
        # every run topic kept, in order (qids may also name topics the run lacks: 10.0)
        every_topic = len(qids) == len(order.qids) and bool(
            np.array_equal(topic_of, np.arange(len(qids)))
        )
        topic = order.topic if every_topic else topic_of[order.topic]
        keep = topic >= 0
        if max_docs is not None:
            keep &= position < max_docs
        self.everything = bool(keep.all())  # every input row is kept
        self.identity = self.everything and order.identity  # ... and already in order
        self.rows = order.order if self.everything else order.order[keep]
        self.topic = topic if self.everything else topic[keep]
        self.position = position if self.everything else position[keep]
        self._row_arrays = None
        if order.row_topic is not None:
            row_topic = order.row_topic if every_topic else topic_of[order.row_topic]
            if max_docs is not None:
                row_topic = np.where(order.row_position < max_docs, row_topic, -1)
            self._row_arrays = row_topic, order.row_position
        self._index = None
        self._judged = None

    def row_arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """Per *input* row: its topic (-1 if dropped) and position."""
        if self.identity:
            return self.topic, self.position
        if self._row_arrays is None:
            n = self.run_table.num_rows
            topic = np.full(n, -1, self.topic.dtype)
            position = np.zeros(n, self.position.dtype)
            topic[self.rows] = self.topic
            position[self.rows] = self.position
            self._row_arrays = topic, position
        return self._row_arrays

    def table(self) -> pa.Table:
        """The ranked rows as a table with the 1-based ``rank`` column (dictionary-encoded
        columns decoded: engines get plain strings)."""
        ranked = (
            self.run_table if self.identity else pc.take(self.run_table, arrow.array(self.rows))
        )
        ranked = arrow.decoded(ranked)
        ranks = arrow.array(self.position.astype(np.int64) + 1)
        if "rank" in ranked.column_names:
            return ranked.set_column(ranked.column_names.index("rank"), "rank", ranks)
        return ranked.append_column("rank", ranks)

    def index(self) -> HashIndex:
        """The kept rows indexed by a hash of (topic, docno): see :class:`HashIndex`."""
        if self._index is None:
            keys = self.docno_hashes
            if keys is None:
                keys = string_hash(self.run_table.column("docno"))
            # topics ascending, sorted a stretch of topics at a time: in the file's order
            # when that is how its topics come (rows moved only within topics, every row
            # kept: no gather of the keys; the ranked order itself among them), else in
            # ranked order
            topic, _ = self.row_arrays()
            if self.everything and non_decreasing(topic):
                self._index = HashIndex(keys, None, topic)
            else:
                self._index = HashIndex(keys, self.rows, self.topic)
        return self._index

    def match(self, topic: np.ndarray, docnos) -> tuple[np.ndarray, np.ndarray]:
        """``(rows, which)``: the kept input ``rows`` holding the pairs ``(topic[which],
        docnos[which])`` (``topic``: index into ``qids``), found in :meth:`index` and
        verified as strings, so a hash collision never makes a false match."""
        run_topic, _ = self.row_arrays()
        which, rows = self.index().lookup(string_hash(docnos), topic)
        same = arrow.to_numpy(
            pc.equal(
                pc.cast(take_rows(self.run_table.column("docno"), rows), pa.large_string()),
                pc.cast(take_rows(docnos, which), pa.large_string()),
            )
        ) & (run_topic[rows] == topic[which])
        return rows[same], which[same]

    def judged(self, qrels) -> tuple[tuple, tuple[np.ndarray, np.ndarray]]:
        """``(judgments, (rows, which))``: ``qrels.judgments(self.qids)`` (``(topic,
        docno, grade)``, see :meth:`trecbench.evaluation.Qrels.judgments`) and their
        :meth:`match`. Computed once: the unjudged count and the fast engine both need them
        for the same run (one lookup of every judgment, not two), always of the one qrels
        of the evaluation that ranked it."""
        if self._judged is None:
            judgments = qrels.judgments(self.qids)
            self._judged = judgments, self.match(*judgments[:2])
        return self._judged

    def judged_rows(self, qrels) -> np.ndarray:
        """Per input row of :attr:`run_table`, whether ``qrels`` judge it at a grade of 0
        or more (:meth:`judged`'s lookup): a negative grade is trec_eval's "in the pool,
        unjudged", as no judgment is (a document of diversity qrels judged for several
        subtopics: once, judged where one of its grades is)."""
        judgments, (rows, which) = self.judged(qrels)
        judged = np.zeros(self.run_table.num_rows, bool)
        judged[rows[judgments[2][which] >= 0]] = True
        return judged

    def first_duplicate(self) -> tuple[str, str, int, int] | None:
        """``(qid, docno, first line, second line)`` of a document listed twice in a topic
        among the kept rows (trec_eval checks only what it evaluates: after ``-M``), the
        one whose second listing comes first in the file; None if there is none. Found
        without materialising the rows."""
        topic, _ = self.row_arrays()
        table = self.run_table
        lines = table.column("line") if "line" in table.column_names else None
        found = find_duplicate(topic, table.column("docno"), lines, index=self.index())
        return None if found is None else (self.qids[int(found[0])], *found[1:])

    def check_duplicates(self, path: str) -> None:
        """Raise :class:`DuplicateError` (exit 4) for :meth:`first_duplicate`; the message
        names both lines."""
        found = self.first_duplicate()
        if found is not None:
            raise duplicate_error(path, *found)


def topic_codes(
    qids: pa.Array | pa.ChunkedArray, stretches: tuple[np.ndarray, list[str]] | None = None
) -> tuple[np.ndarray, pa.Array]:
    """Per row: the index of its qid among the distinct qids sorted byte-wise; and those
    (only those that occur: a dictionary-encoded column may hold values no row has).

    Topics listed in one stretch each (as runs list them) are found by comparing
    neighbours (``stretches``: where each stretch starts and its qid, when the reader told
    them: :class:`trecbench.inputs.blocks.Block`); other orders by hashing (Arrow's
    dictionary encoding)."""
    if not pa.types.is_dictionary(qids.type):
        if stretches is None:
            starts, names = arrow.stretches(qids)
        else:
            starts, names = stretches[0], arrow.array(stretches[1], qids.type)
        if len(pc.unique(names)) == len(names):  # every topic in one stretch
            by_bytes = arrow.to_numpy(pc.sort_indices(names))
            rank = np.empty(len(by_bytes), np.int32)
            rank[by_bytes] = np.arange(len(by_bytes), dtype=np.int32)
            lengths = np.diff(np.append(starts, len(qids)))
            return np.repeat(rank, lengths), pc.take(names, arrow.array(by_bytes))
    encoded = pc.dictionary_encode(pa.chunked_array([qids]) if isinstance(qids, pa.Array) else qids)
    encoded = encoded.unify_dictionaries()
    if encoded.num_chunks == 0 or len(encoded) == 0:
        return np.empty(0, np.int32), arrow.array([], pa.string())
    dictionary = encoded.chunk(0).dictionary
    codes = [arrow.to_numpy(c.indices) for c in encoded.chunks]
    used = np.zeros(len(dictionary), bool)
    for chunk in codes:
        used[chunk] = True
    if not used.all():  # a sliced or filtered column keeps its whole dictionary
        dictionary = dictionary.filter(arrow.array(used))
        renumber = np.cumsum(used, dtype=np.int32) - 1
        codes = [renumber[chunk] for chunk in codes]
    by_bytes = arrow.to_numpy(pc.sort_indices(dictionary))
    sorted_index = np.empty(len(by_bytes), np.int32)
    sorted_index[by_bytes] = np.arange(len(by_bytes))
    topic = np.concatenate([sorted_index[chunk] for chunk in codes])
    return topic, pc.take(dictionary, arrow.array(by_bytes))


def _descending_key(scores: np.ndarray) -> np.ndarray:
    """uint32 keys whose ascending order is the float32 ``scores``' descending order."""
    bits = scores.view(np.uint32)
    ascending = np.where(bits >> 31, ~bits, bits | np.uint32(0x80000000))
    return ~ascending


def order_run(run_table: pa.Table, float32: bool = True, stretches=None, step=None) -> RunOrder:
    """trec_eval's order of ``run_table`` (see :func:`rank_table`) as a :class:`RunOrder`.

    Sorting is skipped when the rows already come in that order within each topic (as
    written by most systems), and topics are then only re-sequenced; ties on the score are
    ordered by docno (descending, byte-wise) among the tied rows only. ``stretches``: see
    :func:`topic_codes`; ``step()``, if given, is called once the rows are sorted, before
    the ties are ordered (a progress's step).
    """
    topic, qids = topic_codes(run_table.column("qid"), stretches)
    scores = comparable_scores(run_table.column("score"), float32)
    n = len(topic)
    index = _index_type(n)
    order, identity, row_topic, row_position, ranked_topic = None, False, None, None, None
    if n and _sorted_within_topics(topic, scores, len(qids)):
        starts = np.flatnonzero(np.r_[True, topic[1:] != topic[:-1]])
        order = np.arange(n, dtype=index)
        if np.all(np.diff(topic[starts]) > 0):
            identity = True
        else:  # topics contiguous but not in byte-wise order: move whole blocks
            lengths = np.diff(np.r_[starts, n])
            blocks = np.argsort(topic[starts])
            moved_to = np.cumsum(lengths[blocks]) - lengths[blocks]
            order += np.repeat((starts[blocks] - moved_to).astype(index), lengths[blocks])
            ranked_topic = np.repeat(topic[starts[blocks]], lengths[blocks])  # topic[order]
            row_topic, row_position = topic, _positions(starts, n, index)
    if order is None:
        if float32:
            key = (topic.astype(np.uint64) << np.uint64(32)) | _descending_key(scores)
            order = np.argsort(key, kind="stable").astype(index)
            del key
        else:
            order = np.lexsort((-scores, topic)).astype(index)
    if ranked_topic is None:
        ranked_topic = topic if identity else topic[order]
    ranked_scores = scores if identity else scores[order]
    if step is not None:
        step()
    starts = np.searchsorted(ranked_topic, np.arange(len(qids), dtype=ranked_topic.dtype))
    moved = _order_ties(order, ranked_topic, ranked_scores, run_table.column("docno"))
    if moved is not None:
        if identity:  # each input row's topic and position, as ranked before the move
            row_topic, row_position = topic, _positions(starts, n, index)
            identity = False
        if row_topic is not None:  # tied rows moved within their topic: same topic, and
            # each the position of the rank it moved to (no scatter of every row)
            row_position[order[moved]] = moved - starts[ranked_topic[moved]]
    if row_topic is None:
        return RunOrder(order, ranked_topic, qids, starts, identity)
    return RunOrder(order, ranked_topic, qids, starts, identity, row_topic, row_position)


def _sorted_within_topics(topic: np.ndarray, scores: np.ndarray, n_topics: int) -> bool:
    """True if every topic's rows are contiguous with non-increasing scores."""
    same = topic[1:] == topic[:-1]
    if np.any(same & (scores[1:] > scores[:-1])):
        return False
    return np.count_nonzero(~same) == n_topics - 1


def _order_ties(
    order: np.ndarray, topic: np.ndarray, scores: np.ndarray, docnos
) -> np.ndarray | None:
    """Put rows with equal (topic, score) in docno-descending order, in place; the ranks
    (indices into ``order``) of every tied row if that moved any row, else None."""
    n = len(order)
    tied = np.flatnonzero((topic[1:] == topic[:-1]) & (scores[1:] == scores[:-1]))
    if len(tied) == 0:
        return None
    first, second = take_rows(docnos, order[tied]), take_rows(docnos, order[tied + 1])
    if pc.all(pc.greater(first, second)).as_py():
        return None  # already docno-descending (or duplicates, reported elsewhere)
    pair_tied = np.zeros(n, bool)
    pair_tied[tied] = True  # rows i and i + 1 tie
    in_group = pair_tied.copy()
    in_group[tied + 1] = True
    positions = np.flatnonzero(in_group)
    group = np.cumsum((positions == 0) | ~pair_tied[np.maximum(positions - 1, 0)])
    members = order[positions]
    tied_rows = pa.table({"group": arrow.array(group), "docno": take_rows(docnos, members)})
    inner = pc.sort_indices(tied_rows, [("group", "ascending"), ("docno", "descending")])
    order[positions] = members[arrow.to_numpy(inner)]
    return positions


def topic_starts(qids: pa.ChunkedArray | pa.Array) -> np.ndarray:
    """Start offsets of each run of equal qids (the table must be grouped by qid)."""
    qids = pa.chunked_array([qids]) if isinstance(qids, pa.Array) else qids
    n = len(qids)
    if n == 0:
        return np.empty(0, np.int64)
    codes = arrow.to_numpy(pc.dictionary_encode(qids.combine_chunks()).indices)
    change = np.flatnonzero(codes[1:] != codes[:-1]) + 1
    return np.concatenate(([0], change)).astype(np.int64)


def ranks_within(qids) -> np.ndarray:
    """Each row's rank within its topic, from 1 (the rows grouped by qid: each topic's
    start found by comparing neighbours, no hash of every row)."""
    starts, n = arrow.stretches(qids)[0], len(qids)
    return np.arange(n, dtype=np.int64) - np.repeat(starts, np.diff(np.append(starts, n))) + 1


def truncate(ranked: pa.Table, max_docs: int | None) -> pa.Table:
    """Keep the first ``max_docs`` documents of each topic (trec_eval ``-M``); the table
    itself when no topic holds more (no copy of every row for a depth nothing exceeds)."""
    if max_docs is None or ranked.num_rows == 0:
        return ranked
    if pc.max(ranked.column("rank")).as_py() <= max_docs:
        return ranked
    return ranked.filter(pc.less_equal(ranked.column("rank"), arrow.scalar(max_docs)))


def duplicate_error(
    path: str,
    qid: str,
    docno: str,
    first: int,
    second: int,
    rule: str = "R7",
    subtopic: str | None = None,
) -> DuplicateError:
    """The error trec_eval's "duplicate docs" becomes (a run's, R7; a judgment's, Q5, of a
    ``subtopic`` for the diversity measures), naming both lines (kept as ``listing``:
    ``(what is listed twice, first, second)``, for a table held in memory to cite its rows
    instead: :func:`trecbench.inputs.held.renamed`)."""
    # an empty subtopic (a table's iteration) named as such, not left unsaid
    shown = "" if subtopic is None else f" subtopic {subtopic or repr(subtopic)}"
    what = f"docs {docno} for topic {qid}{shown}"
    error = DuplicateError(path, second, f"duplicate {what} (first on line {first})", rule)
    error.listing = what, first, second
    return error


def find_duplicate(topic: np.ndarray, docnos, lines, index=None):
    """``(topic, docno, first line, second line)`` of a document listed twice in a topic
    (in the first topic that has one, where trec_eval stops, the smallest such docno
    byte-wise, as trec_eval finds it in its docno-sorted ranking), or None.

    ``lines`` None means row ``i`` is line ``i + 1``; ``index``: a :class:`HashIndex` of
    the rows to check (by default all) by ``string_hash(docnos)`` in their ``topic``.
    Candidates are rows whose hashes collide; only they are compared as strings, so a hash
    collision can never produce a false report.
    """
    if index is None:  # any numbering of the topics finds the same rows
        index = HashIndex(string_hash(docnos), topics=in_stretch_order(topic))
    candidates = index.row_at(index.colliding_positions())
    if len(candidates) == 0:
        return None
    docno = take_rows(docnos, candidates)
    line = (
        candidates + 1 if lines is None else arrow.to_numpy(take_rows(lines, candidates))
    ).astype(np.int64)
    # ids never hold a tab: topic<TAB>docno is the pair's key
    topic_text = pc.cast(arrow.array(topic[candidates]), docno.type)
    groups = arrow.Groups(
        pc.binary_join_element_wise(topic_text, docno, arrow.scalar("\t", docno.type))
    )
    dupes = np.flatnonzero(groups.counts > 1)
    if not len(dupes):
        return None
    # each row has its own line: a pair's second line is its smallest line but the first
    first = groups.reduce(np.minimum, line)
    grouped = line[groups.order]  # in group order already: reduced as it stands
    grouped[grouped == np.repeat(first, groups.counts)] = np.iinfo(np.int64).max
    second = np.minimum.reduceat(grouped, groups.starts)
    topics = topic[candidates[groups.first[dupes]]]
    dupes = dupes[topics == topics.min()]
    pick = min(dupes, key=lambda d: docno[int(groups.first[d])].as_py())  # as UTF-8 bytes
    row = int(groups.first[pick])
    return int(topic[candidates[row]]), docno[row].as_py(), int(first[pick]), int(second[pick])


def take_rows(values: pa.Array | pa.ChunkedArray, rows: np.ndarray) -> pa.Array:
    """``values[rows]`` chunk by chunk (Arrow's take on a chunked array may first
    concatenate every chunk: a full copy of a 10M-row column for a few rows)."""
    if isinstance(values, pa.Array):
        return pc.take(values, arrow.array(rows))
    order = np.argsort(rows, kind="stable")
    ordered = rows[order]
    bounds = np.cumsum([0] + [len(c) for c in values.chunks])
    cuts = np.searchsorted(ordered, bounds)
    parts = [
        pc.take(chunk, arrow.array(ordered[cuts[i] : cuts[i + 1]] - bounds[i]))
        for i, chunk in enumerate(values.chunks)
        if cuts[i + 1] > cuts[i]
    ]
    taken = pa.concat_arrays(parts) if parts else arrow.array([], values.type)
    inverse = np.empty_like(order)
    inverse[order] = np.arange(len(order))
    return pc.take(taken, arrow.array(inverse))


def judged_only(ranked: pa.Table, qrels: pa.Table) -> pa.Table:
    """Drop documents without a non-negative judgment, keep the order, re-rank (``-J``)."""
    judged = qrels.filter(pc.greater_equal(qrels.column("rel"), arrow.scalar(0)))
    # the ids as the run's types: files tokenize to string or large_string, joins need one
    judged = judged.select(["qid", "docno"]).cast(ranked.select(["qid", "docno"]).schema)
    judged = judged.append_column("__judged", arrow.array(np.ones(judged.num_rows, bool)))
    position = arrow.array(np.arange(ranked.num_rows, dtype=np.int64))
    keyed = ranked.append_column("__pos", position)
    joined = keyed.join(judged, ["qid", "docno"], join_type="inner")
    joined = joined.take(pc.sort_indices(joined, [("__pos", "ascending")]))
    kept = joined.drop_columns(["__pos", "__judged"])
    ranks = arrow.array(ranks_within(kept.column("qid")), pa.int64())
    return kept.set_column(kept.column_names.index("rank"), "rank", ranks)
