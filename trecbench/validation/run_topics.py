"""Per-topic run checks: depth, duplicates, ranks, score order, ties and topic order.

:class:`TopicChecks` gets whole topic blocks (:class:`Rows`) from the run checker
(:mod:`.runs`, which holds back a chunk's last block until the next chunk) and keeps
what must survive between chunks: documents and first line per topic, the last score of
each topic, the per-topic findings noted (said at the end), and each row's rank, score and
line, to check a topic that comes back in a later chunk again whole (:mod:`.split_topics`).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from .. import arrow
from .. import arrow_compute as pc
from ..errors import excerpt_plain
from ..invalid_utf8 import stored_bytes
from ..plurals import few_and_more
from ..score_precision import as_float32
from . import wording
from .checker import first_per_segment, segment_starts
from .cross_checks import count_unjudged, top_ten
from .findings import Collector, QrelsInfo, may_judge
from .split_topics import KeptRows, Told
from .topic_order import Descent, TopicOrder, is_digits, numeric_key


@dataclass
class Rows:
    """Data rows of a run waiting for topic checks (a topic block is checked once whole)."""

    qid: pa.Array
    docno: pa.Array
    rank: np.ndarray  # -1 where the rank is not an integer, or the line gave none
    score: np.ndarray  # float64, NaN where the score is not a number
    line: np.ndarray

    def __len__(self) -> int:
        return len(self.line)

    def slice(self, start: int, stop: int | None = None) -> Rows:
        stop = len(self) if stop is None else stop
        return Rows(
            self.qid.slice(start, stop - start),
            self.docno.slice(start, stop - start),
            self.rank[start:stop],
            self.score[start:stop],
            self.line[start:stop],
        )

    def take(self, order: np.ndarray) -> Rows:
        index = arrow.array(order)
        return Rows(
            self.qid.take(index),
            self.docno.take(index),
            self.rank[order],
            self.score[order],
            self.line[order],
        )

    @staticmethod
    def concat(a: Rows, b: Rows) -> Rows:
        return Rows(
            pa.concat_arrays([a.qid, pc.cast(b.qid, a.qid.type)]),
            pa.concat_arrays([a.docno, pc.cast(b.docno, a.docno.type)]),
            np.concatenate((a.rank, b.rank)),
            np.concatenate((a.score, b.score)),
            np.concatenate((a.line, b.line)),
        )


class TopicChecks:
    """R7, R8, R11, R13-R15, R20 and X4's counts over whole topic blocks.

    ``duplicates_of``: the checker's lookup of repeated (qid, docno) pairs, which also
    remembers the keys of earlier chunks (:meth:`.checker.Checker._duplicates_of`);
    ``unit``: what the checker's line numbers are ("row" in a Parquet file), as a finding
    citing another one names it (:attr:`.checker.Checker.unit`, known once it is fed).
    """

    def __init__(
        self,
        report: Collector,
        max_depth: int | None,
        qrels: QrelsInfo | None,
        duplicates_of: Callable,
        unit: Callable[[], str],
    ):
        self.report, self.max_depth, self.qrels = report, max_depth, qrels
        self.duplicates_of, self.unit = duplicates_of, unit
        self.counts_by_topic: dict[str, int] = {}
        self.first_line: dict[str, int] = {}
        self.split_reported: set[str] = set()
        self.last_block_qid: str | None = None
        self.order = TopicOrder()  # R20.order, said once
        self.tops: list[pa.Table] = []  # the top 10 of judged topics, a part at a time (X4)
        self.last_score: dict[str, float] = {}  # per topic, for R13 across chunks
        self.reported: dict[str, set[str]] = {}  # per check, topics already reported
        # R15 per check and topic, [tied documents, first tied line, one score], said at
        # :meth:`finish`: a topic checked in parts adds up what each part has
        self.tied: dict[str, dict[str, list]] = {"R15.tie": {}, "R15.float32": {}}
        # R11 and R14 per check and topic, (line, message), said at :meth:`finish`
        self.notes: dict[str, dict[str, tuple[int, str]]] = {
            "R11.unique": {},
            "R11.sequence": {},
            "R14": {},
        }
        # topics checked in parts (blocks the streaming reader met in different chunks),
        # checked again whole at :meth:`finish` from the rows kept (:mod:`.split_topics`)
        self.parted: set[str] = set()
        self.kept = KeptRows()
        self.told: Told | None = None  # the re-check's progress (:data:`.split_topics.Told`)

    def check(self, rows: Rows) -> None:
        """Check ``rows``: whole topic blocks (a topic may come back in a later call)."""
        encoded = pc.dictionary_encode(rows.qid)
        codes = arrow.to_numpy(encoded.indices).astype(np.int64)
        names_array = encoded.dictionary
        names = names_array.to_pylist()
        block_start = segment_starts(codes)
        self._order(names, codes[block_start], rows.line[block_start])
        if len(block_start) != len(names):
            order = np.argsort(codes, kind="stable")
            rows, codes = rows.take(order), codes[order]
        start = segment_starts(codes)
        length = np.diff(np.append(start, len(codes)))
        topic = codes[start]
        segment = np.repeat(np.arange(len(start)), length)
        prior = np.array([self.counts_by_topic.get(names[c], 0) for c in topic], np.int64)
        local = np.arange(len(codes)) - np.repeat(start, length) + 1
        position = local + np.repeat(prior, length)
        for c, n, first, before in zip(topic, length, rows.line[start], prior, strict=True):
            name = names[c]
            if before:
                self.parted.add(name)
            self.counts_by_topic[name] = self.counts_by_topic.get(name, 0) + int(n)
            self.first_line.setdefault(name, int(first))
        qname = [names[c] for c in topic]  # topic name of each segment
        self.kept.add(qname, length, rows.rank, rows.score, rows.line)

        self._depth(rows, position, segment, qname)
        self._duplicates(rows, codes, names_array, segment, prior, qname)
        whole = prior[segment] == 0  # topic entirely in this batch
        self._ranks(rows, local, segment, whole, qname)
        score32 = as_float32(rows.score)
        self._score_order(rows, score32, start, segment, qname)
        self._rank_vs_score(rows, score32, local, segment, qname)
        # file order is score order only without increases as doubles (R13's, as float32,
        # are among them; scores in float32 order may not be in double order, and their
        # ties as doubles would not be neighbours) and without NaN (R12) in between
        up = (rows.score[1:] > rows.score[:-1]) & (segment[1:] == segment[:-1])
        in_order = not up.any() and not np.isnan(rows.score).any()
        self._ties(rows, score32, segment, length, qname, sorted_by_score=in_order)
        if self.qrels is not None and self.qrels.judged is not None:
            top = top_ten(self.qrels, rows.qid, rows.docno, rows.score, names, codes)
            if top is not None:
                self.tops.append(top)

    def unjudged(self) -> tuple[int, int]:
        """X4's counts: unjudged and all documents in the top 10 of judged topics."""
        return count_unjudged(self.qrels, self.tops) if self.qrels is not None else (0, 0)

    def _order(self, names, block_codes, block_lines) -> None:
        """R20: topics split into several blocks (W), topics not ascending (I). A block is a
        stretch of lines of one topic: as many as lines when topics are scattered, so
        nothing here loops over blocks in Python, only over topics."""
        every = np.arange(len(block_codes))
        first_block = first_per_segment(every, block_codes)  # per code (codes 0..n-1)
        seen_before = np.array([name in self.counts_by_topic for name in names], bool)
        # the second block of a topic within this batch, or its first if seen before
        again = seen_before[block_codes]
        again[np.delete(every, first_block)] = True
        for block in np.sort(first_per_segment(np.flatnonzero(again), block_codes)):
            name = names[block_codes[block]]
            if name in self.split_reported:
                continue
            self.split_reported.add(name)
            code = block_codes[block]
            first = self.first_line[name] if seen_before[code] else block_lines[first_block[code]]
            self.report.add(
                "R20.split",
                int(block_lines[block]),
                "qid",
                f"topic {excerpt_plain(name)} comes back after other topics (first at "
                f"{self.unit()} {int(first)}); list each topic in one block",
            )
        if self.order.said:
            return
        previous = [self.last_block_qid] if self.last_block_qid is not None else []
        self.last_block_qid = names[block_codes[-1]]
        ids = previous + names
        digits = all(is_digits(qid) for qid in ids)

        def descent(key: Callable) -> Descent | None:
            at = _first_descent([key(qid) for qid in ids], len(previous), block_codes)
            if at is None:
                return None
            at -= len(previous)  # a block of this batch; the one before it
            before = names[block_codes[at - 1]] if at > 0 else previous[0]
            return Descent(int(block_lines[at]), names[block_codes[at]], before)

        numeric = descent(numeric_key) if digits and self.order.digits else None
        self._say_order(self.order.add(digits, numeric, descent(stored_bytes)))

    def _say_order(self, found: Descent | None) -> None:
        if found is not None:
            self.report.add(
                "R20.order", found.line, "qid", wording.descending_topic(found.topic, found.before)
            )

    def _depth(self, rows: Rows, position, segment, qname) -> None:
        if self.max_depth is None:
            return
        depth = self.max_depth
        beyond = np.flatnonzero(position == depth + 1)
        self.report.add_many(
            "R8",
            rows.line[beyond],
            "docno",
            lambda i: wording.too_deep(qname[segment[beyond[i]]], depth),
        )

    def _duplicates(self, rows: Rows, codes, names_array, segment, prior, qname) -> None:
        # only topics seen before can repeat a document of an earlier chunk
        again = np.flatnonzero(prior[segment] > 0)
        repeats, first = self.duplicates_of(names_array, codes, rows.docno, rows.line, again)
        # a topic the qrels lack: R7.unjudged, a warning where trec_eval's numbers are kept;
        # asked once a topic (2M duplicates of few topics: few questions)
        topics = segment[repeats]
        each = np.array(sorted(set(topics.tolist())), dtype=topics.dtype)
        asked = np.array([may_judge(self.qrels, qname[t]) for t in each.tolist()], bool)
        judged = asked[np.searchsorted(each, topics)] if len(each) else asked
        for check, mine in (("R7", judged), ("R7.unjudged", ~judged)):
            picked = np.flatnonzero(mine)
            self.report.add_many(
                check,
                rows.line[repeats[picked]],
                "docno",
                lambda i, picked=picked, judged=check == "R7": wording.duplicate_docno(
                    rows.docno[int(repeats[picked[i]])].as_py(),
                    qname[segment[repeats[picked[i]]]],
                    first[picked[i], 0],
                    self.unit(),
                    judged,
                ),
            )

    def _ranks(self, rows: Rows, local, segment, whole, qname) -> None:
        """R11: ranks of a topic are unique and exactly 1..n (a part of a topic seen
        before: unique within the part, the topic checked again whole at :meth:`finish`
        if its rows were kept); the first repeated rank and the first bad start or gap of
        each topic."""
        invalid = np.zeros(segment[-1] + 1, bool)
        invalid[segment[rows.rank < 0]] = True
        check = whole & ~invalid[segment]  # a gap beside a rank that is none is no gap
        unique = rows.rank >= 0  # a repeat among the others is one (it hid every R11)
        if check.all() and np.array_equal(rows.rank, local):
            return
        order = np.lexsort((rows.rank, segment))
        ranks, seg = rows.rank[order], segment[order]
        at_start = np.ones(len(seg), bool)
        at_start[1:] = seg[1:] != seg[:-1]
        step = np.diff(ranks, prepend=0)
        bad_start = at_start & (ranks != 1)
        duplicate = ~at_start & (step == 0)
        gap = ~at_start & (step > 1)

        def message(k: int) -> str:
            name, rank = qname[seg[k]], int(ranks[k])
            if bad_start[k]:
                return wording.bad_rank_start(name, rank)
            if duplicate[k]:
                return wording.repeated_rank(name, rank, rows.line[order[k - 1]], self.unit())
            return wording.rank_gap(name, int(ranks[k - 1]), rank)

        for key, problem in (
            ("R11.unique", duplicate & unique[order]),
            ("R11.sequence", (bad_start | gap) & check[order]),
        ):
            firsts = first_per_segment(np.flatnonzero(problem), seg)
            names = [qname[seg[k]] for k in firsts]
            self._note(key, names, rows.line[order[firsts]], lambda i, f=firsts: message(f[i]))

    def _score_order(self, rows: Rows, score32, start, segment, qname) -> None:
        """R13: first score increase per topic (as float32, what trec_eval 9.x compares).

        The first row of a topic compares with the topic's last row of an earlier chunk.
        """
        previous = np.empty(len(rows))
        previous[1:] = rows.score[:-1]
        previous[start] = [self.last_score.get(name, np.nan) for name in qname]
        up = np.flatnonzero(score32 > as_float32(previous))
        ends = np.append(start[1:], len(rows)) - 1
        self.last_score.update(zip(qname, rows.score[ends].tolist(), strict=True))
        firsts = first_per_segment(up, segment)
        firsts = self._once("R13", firsts, [qname[segment[k]] for k in firsts])
        self.report.add_many(
            "R13",
            rows.line[firsts],
            "score",
            lambda i: wording.score_up(
                qname[segment[firsts[i]]], rows.score[firsts[i]], previous[firsts[i]]
            ),
        )

    def _note(self, key: str, names: list[str], lines, message: Callable[[int], str]) -> None:
        """Note the finding ``key`` of each topic of ``names`` (at ``lines[i]``,
        ``message(i)``) that has none yet: said at :meth:`finish`."""
        notes = self.notes[key]
        for i, name in enumerate(names):
            if name not in notes:
                notes[name] = (int(lines[i]), message(i))

    def _once(self, key: str, rows: np.ndarray, names: list[str]) -> np.ndarray:
        """The ``rows`` whose topic has no ``key`` finding yet (per-topic checks say it once)."""
        done = self.reported.setdefault(key, set())
        keep = [i for i, name in enumerate(names) if name not in done]
        done.update(names[i] for i in keep)
        return rows[keep]

    def _rank_vs_score(self, rows: Rows, score32, local, segment, qname) -> None:
        """R14: sorted by rank, scores must not increase (MS MARCO eval uses ranks)."""
        valid = rows.rank >= 0
        if np.array_equal(rows.rank, local):
            order = np.arange(len(rows))  # ranks already follow the file order
        else:
            order = np.lexsort((rows.rank, segment))
        s, r, seg, ok = score32[order], rows.rank[order], segment[order], valid[order]
        bad = (
            np.flatnonzero(
                (s[1:] > s[:-1]) & (seg[1:] == seg[:-1]) & (r[1:] > r[:-1]) & ok[1:] & ok[:-1]
            )
            + 1
        )
        firsts = first_per_segment(bad, seg)
        self._note(
            "R14",
            [qname[seg[k]] for k in firsts],
            rows.line[order[firsts]],
            lambda i: wording.rank_against_score(
                qname[seg[firsts[i]]],
                r[firsts[i]],
                rows.score[order[firsts[i]]],
                r[firsts[i] - 1],
                rows.score[order[firsts[i] - 1]],
            ),
        )

    def _ties(self, rows: Rows, score32, segment, length, qname, sorted_by_score) -> None:
        """R15: ties per topic, and ties that exist only at float32 precision (noted in
        :attr:`tied`, said at :meth:`finish`)."""
        if sorted_by_score:
            order = np.arange(len(rows))
        else:
            order = np.lexsort((-rows.score, segment))
        s64, s32, seg = rows.score[order], score32[order], segment[order]
        same = seg[1:] == seg[:-1]
        tie64 = same & (s64[1:] == s64[:-1])
        tie32 = same & (s32[1:] == s32[:-1])
        for key, member in (
            ("R15.tie", _pair_members(tie64)),
            ("R15.float32", _float32_only_members(tie32, tie64)),
        ):
            if not member.any():
                continue
            count = np.bincount(seg[member], minlength=seg[-1] + 1)
            # one score for the whole topic: each of its adjacent pairs tied
            tied_pairs = np.bincount(seg[1:][tie64], minlength=seg[-1] + 1)
            first_line = np.full(seg[-1] + 1, np.iinfo(np.int64).max)
            np.minimum.at(first_line, seg[member], rows.line[order[member]])
            noted = self.tied[key]
            for t in np.flatnonzero(count).tolist():
                one_score = bool(tied_pairs[t] == length[t] - 1)
                part = [int(count[t]), int(first_line[t]), one_score]
                if (earlier := noted.get(qname[t])) is None:
                    noted[qname[t]] = part
                else:  # another part of the topic: ties within each part, added up
                    earlier[:] = [earlier[0] + part[0], min(earlier[1], part[1]), False]

    def finish(self) -> None:
        """Check the topics checked in parts again, whole; then say R11's and R14's
        findings, a topic's once, in the order of the topics' first lines, and R15's in
        the order of their first lines: the same findings whatever the chunks."""
        self._recheck_parted()
        self._say_order(self.order.finish())
        for key, notes in self.notes.items():
            noted = sorted(notes.items(), key=lambda item: self.first_line[item[0]])
            self.report.add_many(
                key,
                [line for _, (line, _) in noted],
                "rank",
                lambda i, noted=noted: noted[i][1][1] + self._in_stretches(noted[i][0]),
            )
            self.notes[key] = {}
        for key, text in (("R15.tie", wording.TIE), ("R15.float32", wording.FLOAT32_TIE)):
            noted = sorted(self.tied[key].items(), key=lambda item: item[1][1])
            self.report.add_many(
                key,
                [first for _, (_, first, _) in noted],
                "score",
                lambda i, noted=noted, text=text: wording.ties(
                    noted[i][0], noted[i][1][0], text, noted[i][1][2], noted[i][0] in self.parted
                ),
            )
            self.tied[key] = {}

    def _in_stretches(self, topic: str) -> str:
        """What R11's and R14's finding of ``topic`` adds when it was checked in parts."""
        if topic not in self.parted:
            return ""
        return (
            f" (checked within each stretch of the file: topic {excerpt_plain(topic)} is split, "
            "R20, and the temporary file of the rows to check it whole could not be written: "
            f"{self.kept.failed})"
        )

    def _recheck_parted(self) -> None:
        """R11, R14 and R15 of the topics checked in parts, again over all their rows in
        file order (what one chunk would have checked), in place of each part's, in groups
        of topics (:meth:`.split_topics.KeptRows.sort`, then ``groups``); then no topic is
        said to be checked in parts. When the rows could not be kept (none is), each part's stand,
        said so (:meth:`_in_stretches`)."""
        self.kept.settle()
        parted = sorted(self.parted, key=self.first_line.__getitem__)
        if parted and not self.kept.failed:  # may fail too: the rows to sort are written
            sizes = [self.counts_by_topic[name] for name in parted]
            self.kept.sort(parted, sizes, self.told)
        if self.kept.failed or not self.parted:
            # a stretch is not the topic: its ranks' start and gaps tell nothing (a shard's
            # odd ranks, its even ranks later), only its repeated ranks (R11.unique) do
            for name in parted:
                self.notes["R11.sequence"].pop(name, None)
            if self.kept.failed and parted:  # said even when no stretch shows anything
                self.report.add(
                    "R20.unchecked", self.first_line[parted[0]], "qid",
                    f"{'topic' if len(parted) == 1 else 'topics'} {few_and_more(parted)} "
                    "(split, R20) could not be re-checked whole (TMPDIR: "
                    f"{self.kept.failed}): R11/R14/R15 checked within each stretch only",
                )  # fmt: skip
            self.kept.close()
            return
        for notes in (*self.notes.values(), *self.tied.values()):
            for name in parted:
                notes.pop(name, None)
        if self.told is not None:  # a bar at 0 while the first group (maybe a large topic) is
            self.told("checking", 0, len(self.kept.bounds))
        for checked, (names, code, rank, score, line) in enumerate(self.kept.groups(), 1):
            n = len(code)
            nothing = pa.nulls(n, pa.string())
            rows = Rows(nothing, nothing, rank, score, line)
            start = segment_starts(code)
            length = np.diff(np.append(start, n))
            segment = np.repeat(np.arange(len(start)), length)
            local = np.arange(n) - np.repeat(start, length) + 1
            qname = [names[c] for c in code[start]]
            self._ranks(rows, local, segment, np.ones(n, bool), qname)
            score32 = as_float32(rows.score)
            self._rank_vs_score(rows, score32, local, segment, qname)
            self._ties(rows, score32, segment, length, qname, sorted_by_score=False)
            if self.told is not None:
                self.told("checking", checked, len(self.kept.bounds))
        self.kept.close()
        self.parted = set()


def _pair_members(pairs: np.ndarray) -> np.ndarray:
    """The rows in a pair: ``pairs[i]`` joins row i and row i + 1."""
    member = np.zeros(len(pairs) + 1, bool)
    member[:-1] |= pairs
    member[1:] |= pairs
    return member


def _float32_only_members(tie32: np.ndarray, tie64: np.ndarray) -> np.ndarray:
    """The rows (in score order) that tie with another only at float32 precision: every
    row of a float32 tie (a stretch of neighbours tied as float32, ``tie32``) that holds two
    scores unequal as doubles, as each of its rows then ties a row of another double (of
    1.00000002, 1.00000001, 1.00000001 all three: the second ties the third as a double,
    the first only as float32)."""
    group = np.concatenate(([0], np.cumsum(~tie32)))  # each row's float32 tie
    mixed = np.zeros(group[-1] + 1, bool)
    mixed[group[1:][tie32 & ~tie64]] = True
    return mixed[group]


def _first_descent(keys: list, previous: int, codes: np.ndarray) -> int | None:
    """Index of the first key smaller than its predecessor in the ``previous`` first of
    ``keys`` followed by the keys of ``codes`` (indices into the rest)."""
    rank = np.empty(len(keys), np.int64)  # each key's place in ascending order (ties equal)
    ordered = sorted(range(len(keys)), key=keys.__getitem__)
    rank[ordered] = np.cumsum([0] + [keys[a] != keys[b] for a, b in itertools.pairwise(ordered)])
    sequence = np.concatenate([rank[:previous], rank[previous:][codes]])
    down = np.flatnonzero(sequence[1:] < sequence[:-1])
    return int(down[0]) + 1 if len(down) else None
