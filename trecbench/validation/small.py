"""``trecbench validate`` of small plain files, without Arrow or numpy (issue 31).

On a 1,000-line run nearly all of the general path's time is start-up: importing Arrow and
numpy takes longer than checking the file. A plain file (:func:`trecbench.small_text.
read_plain`: at most :data:`~trecbench.small_text.VALIDATED_BYTES`, 4 MiB, of printable
ASCII, one separator, six fields a run line with a non-negative integer rank and a decimal
score, four a qrels line with a grade of at most 6 digits, no blank or ``#`` line) can
break none of the rules of bytes, encoding, spacing, field counts, headers, comments,
swapped files or what ``convert`` reads (R32, Q12), so what remains are the rules of values
and topics: R3-R5, R7-R9, R11, R13-R20 and X1-X5 for runs, Q5 and Q7 for qrels. This
module finds those with Python lists, in the general path's order and with its words
(:mod:`.wording`, :mod:`.cross_checks`), into the same :class:`~.findings.Collector`; the
reports are then the general path's, byte for byte (``tests/test_validate_small.py``
compares both on seeded random and mutated files, of up to 4 MiB). Every pass over the
lines is a C loop: the columns from one ``str.split`` of the text, each check a slice,
``map``, ``compress``, ``sorted`` (one pass on a run's usual order), a set or a dict per
topic; Python code runs per topic and per finding, never per line (a loop a line cost
twice the general path's time at 100,000 lines).

It declines (None: the general path takes the call) what it does not mirror: any file
that is not plain, a topic in several blocks, more than 100 run tags, a rank of 10^18 or
more, a score beyond float32's range, a topics file that is not printable ASCII or is JSON
(lines).
``validate`` gives it no call with ``--docid-regex``, ``--docids`` or ``--fix``.

A file of at most 4 MiB is one chunk to the general path (:data:`.reader.CHUNK_BYTES`: a
file of that size is one read, cut after its last newline, the file's last byte, with no
line carried to a next chunk; ``tests/test_validate_small.py`` checks that the bound is at
most a chunk). Its run checker checks the topics but the last, then the last (it could go
on in the next chunk): two calls of :class:`~.run_topics.TopicChecks`, each looking for
R15's ties in file order when the call has no rise as doubles, else in score order. Either
way equal scores are neighbours, so no finding depends on how topics fall into calls (nor
on the chunk size: ``tests/test_validate_differential.py``), and this module checks every
topic in one call.
"""

from __future__ import annotations

import re
from array import array
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import compress, count, islice, repeat
from operator import and_, eq, gt, ne, not_, sub

from .. import collector, small_text
from ..errors import InputError
from . import wording
from .cross_checks import (
    against_qrels,
    against_topics,
    file_name,
    json_topics,
    tag_names_file,
    too_shallow,
    topic_ids,
)
from .findings import DEFAULT_LIMIT, Collector, QrelsInfo, ValidationResult, may_judge
from .rules import MOST_TAGS, TAG_PATTERN
from .topic_order import out_of_order

_RANK_DIGITS = 18  # a rank of more digits (10**18 or more) may not be an int64 (R10)
_TEXT = re.compile(rb"[ -~\t\n\r\v\f]+")  # a topics file of printable ASCII
_TOP = 10  # X4's documents of a topic (its top 10)


@dataclass(frozen=True)
class SmallSettings:
    """The options of a small ``validate`` call (``max_depth``: resolved, None for none)."""

    profile: str
    max_depth: int | None
    min_depth: int | None = None
    tag_is_filename: bool = False
    relevance_level: int = 1  # the least grade counted relevant (Q7)
    limit: int = DEFAULT_LIMIT


@dataclass(frozen=True)
class _Run:
    """A plain run's columns (rows in file order; row ``i`` is line ``i + 1``)."""

    qid: list[str]
    docno: list[str]
    rank: list[int]
    score: list[float]
    score32: list[float]  # as trec_eval 9.x compares them


@dataclass(frozen=True)
class _Ranked:
    """One topic's rows sorted by rank (a stable sort: file order among equal ranks), with
    their ranks and float32 scores in that order."""

    rows: range | list[int]
    ranks: list[int]
    score32: list[float]


def validate_small(
    runs, qrels, settings: SmallSettings, topics=None
) -> list[ValidationResult] | None:
    """What :func:`~.api.validate_files` gives for ``runs``, ``qrels`` (or None) and a
    ``topics`` file (or None), when every file is small and plain; None when the general
    path must take the call."""
    results, info, judged = [], None, set()
    ids = None if topics is None else _topic_ids(str(topics))
    if topics is not None and ids is None:
        return None
    with collector.paused():  # a (qid, docno) tuple a judgment, none in a cycle
        if qrels is not None:
            checked = _qrels(str(qrels), settings)
            if checked is None:
                return None
            results.append(checked[0])
            info, judged = checked[0].qrels_info, checked[1]
        for path in runs:
            result = _run(str(path), settings, info, judged, ids)
            if result is None:
                return None
            results.append(result)
    return results


def _topic_ids(path: str) -> list[str] | None:
    """The distinct ids of a small topics file of printable ASCII, or None."""
    data = small_text.small_bytes(path, small_text.VALIDATED_BYTES)
    if data is None:
        return None
    if not _TEXT.fullmatch(data):
        return None
    text = data.decode("ascii")
    if json_topics(text, path):  # JSON's reader (trecbench.sources) imports Arrow
        return None
    try:
        return list(dict.fromkeys(topic_ids(text, path)))
    except InputError:
        return None  # the general path reports it


def _columns(path: str, kind: str) -> tuple[list[str], ...] | None:
    """Every field of a small plain ``kind`` file, as columns; None for any other file."""
    return small_text.read_plain(path, kind, small_text.VALIDATED_BYTES, every_field=True)


def _first(flags) -> int | None:
    """The index of the first true flag, or None (in C: no Python code a line)."""
    return next(compress(count(), flags), None)


def _descending(values: list[float]) -> bool:
    """Whether no value is above the one before (a sort of sorted values is one pass, in
    a fifth of the time of comparing each with the one before)."""
    return values == sorted(values, reverse=True)


def _first_rise(values: list[float]) -> int | None:
    """The index of the first value above the one before, or None."""
    if _descending(values):
        return None
    return 1 + _first(map(gt, islice(values, 1, None), values))


def _qrels(path: str, settings: SmallSettings) -> tuple[ValidationResult, set] | None:
    """The qrels' result (Q5, Q7) and its judged (qid, docno) pairs, or None."""
    columns = _columns(path, "qrels")
    if columns is None:
        return None
    qid, _, docno, grade = columns
    report = Collector(path, settings.profile, settings.limit)
    pairs = list(zip(qid, docno, strict=True))
    judged = _first_rows(pairs)
    if len(judged) < len(pairs):
        _duplicate_judgments(report, pairs, judged, grade)
    level = settings.relevance_level
    relevant = set(compress(qid, map(level.__le__, map(int, grade))))
    graded = set(compress(qid, map((0).__lt__, map(int, grade))))  # a positive grade
    topics = list(dict.fromkeys(qid))  # in order of first appearance
    unjudged = [q for q in topics if q not in relevant]
    if unjudged:
        first = _first_rows(qid)
        report.add_many(
            "Q7",
            [first[q] + 1 for q in unjudged],
            "qid",
            lambda i: wording.no_relevant(unjudged[i], level, unjudged[i] in graded),
        )
    counts = report.counts(lines=len(qid), records=len(qid), topics=len(topics))
    info = QrelsInfo(set(topics))
    result = ValidationResult(path, "qrels", report.findings(), counts, info, dict(report.checks))
    return result, set(judged)


def _duplicate_judgments(report: Collector, pairs: list, first: dict, grade: list[str]) -> None:
    """Q5: each judgment of a (qid, docno) pair judged on an earlier line (``first``: each
    pair's first row)."""
    again = _repeats(pairs, first)

    def message(k: int) -> str:
        row, before = again[k]
        qid, docno = pairs[row]
        return wording.duplicate_judgment(docno, qid, before + 1, grade[before], grade[row])

    report.add_many("Q5", [row + 1 for row, _ in again], "docno", message)


def _first_rows(keys: list) -> dict:
    """Each key's first index in ``keys`` (written last, from the end)."""
    return dict(zip(reversed(keys), range(len(keys) - 1, -1, -1), strict=True))


def _repeats(keys: list, first: dict) -> list[tuple[int, int]]:
    """Of each key that came before: its index and the index of its first (``first``:
    :func:`_first_rows`), in order."""
    rows = range(len(keys))
    again = compress(rows, map(ne, map(first.__getitem__, keys), rows))
    return [(row, first[keys[row]]) for row in again]


def _run(
    path: str, settings: SmallSettings, info: QrelsInfo | None, judged: set, topics
) -> ValidationResult | None:
    """The run's result (checked against the qrels' ``info`` and ``judged`` pairs, and
    the ``topics`` ids, when given), or None."""
    columns = _columns(path, "run")
    if columns is None:
        return None
    qid, q0, docno, rank, score, tag = columns
    ranks, scores = _ranks(rank), list(map(float, score))
    if ranks is None or not small_text.finite_float32(scores):
        return None
    blocks = small_text.topic_blocks(qid)
    tags = [tag[0]] if tag.count(tag[0]) == len(tag) else list(dict.fromkeys(tag))
    if blocks is None or len(tags) > MOST_TAGS:
        return None
    report = Collector(path, settings.profile, settings.limit)
    _fields(report, q0, score)
    expected = file_name(path) if settings.tag_is_filename else None
    _tags(report, tag, tags, expected)
    run = _Run(qid, docno, ranks, scores, list(array("f", scores)))
    _TopicChecks(report, run, settings.max_depth, info).check(blocks)
    _order(report, blocks)
    counts = {name: stop - start for name, start, stop in blocks}
    first = {name: start + 1 for name, start, _ in blocks}
    if settings.min_depth is not None:
        too_shallow(report, settings.min_depth, counts, first)
    if topics is not None:
        against_topics(report, topics, counts, first)
    if info is not None:
        against_qrels(report, info, counts, first, _count_unjudged(run, blocks, info, judged))
    totals = report.counts(lines=len(qid), records=len(qid), topics=len(blocks))
    return ValidationResult(path, "run", report.findings(), totals, None, dict(report.checks))


def _ranks(rank: list[str]) -> list[int] | None:
    """The ranks' values, or None for a rank of 10**18 or more. Zeros before a rank are no
    digits of its value, and are dropped before ``int`` reads it: it refuses a text of more
    than 4,300 digits (:func:`sys.get_int_max_str_digits`), zeros first too."""
    if max(map(len, rank)) > _RANK_DIGITS:
        rank = list(map("0".__add__, map(str.lstrip, rank, repeat("0"))))  # "0": "00"
        if max(map(len, rank)) > _RANK_DIGITS + 1:
            return None
    return list(map(int, rank))


def _fields(report: Collector, q0: list[str], score: list[str]) -> None:
    """R3 (field 2 not ``Q0``) and R16 (a score in scientific notation)."""
    if q0.count("Q0") < len(q0):
        wrong = list(compress(count(1), map(ne, q0, repeat("Q0"))))
        report.add_many("R3", wrong, "q0", lambda k: wording.not_q0(q0[wrong[k] - 1]))
    if "e" in "".join(score).lower():
        sci = list(compress(count(1), map(str.__contains__, map(str.lower, score), repeat("e"))))
        report.add_many("R16", sci, "score", lambda k: wording.scientific(score[sci[k] - 1]))


def _tags(report: Collector, tag: list[str], tags: list[str], expected: str | None):
    """R17-R19, each tag at its first line (``tags``: in order of first appearance)."""
    for number, value in enumerate(tags, 1):
        at = tag.index(value) + 1
        if value != tags[0]:
            report.add("R17", at, "tag", wording.other_tag(value, tags[0], number))
        if not re.fullmatch(TAG_PATTERN, value):
            report.add("R18", at, "tag", wording.bad_tag(value))
        if expected is not None and not tag_names_file(value, expected):
            report.add("R19", at, "tag", wording.tag_not_name(value, expected))


def _order(report: Collector, blocks: list) -> None:
    """R20.order: where the topics leave both ascending orders (:mod:`.topic_order`)."""
    found = out_of_order([name for name, _, _ in blocks], [start + 1 for _, start, _ in blocks])
    if found is not None:
        report.add(
            "R20.order", found.line, "qid", wording.descending_topic(found.topic, found.before)
        )


def _count_unjudged(run: _Run, blocks: list, info: QrelsInfo, judged: set) -> tuple[int, int]:
    """X4's counts: unjudged and all documents in the top 10, in trec_eval's order (score
    as float32 descending, then docno descending), of the topics the qrels have."""
    unjudged = total = 0
    for name, start, stop in blocks:
        if name not in info.topics:
            continue
        score32, docno = run.score32[start:stop], run.docno[start:stop]
        rows: Iterable[int] = range(len(score32))
        ordered = sorted(score32, reverse=True)  # one pass on a run's usual order
        if len(ordered) > _TOP:  # only the rows scored at least the 10th best can be in the top
            least = ordered[_TOP - 1]
            if ordered == score32:  # those rows come first
                rows = range(_TOP + ordered[_TOP:].count(least))
            else:
                rows = compress(rows, map(least.__le__, score32))
        top = sorted([(score32[i], docno[i]) for i in rows], reverse=True)[:_TOP]
        unjudged += sum((name, document) not in judged for _, document in top)
        total += len(top)
    return unjudged, total


class _TopicChecks:
    """R7, R8, R11, R13-R15 of whole topics (:class:`~.run_topics.TopicChecks`'s rules),
    each found by C loops (slices, ``map``, ``compress``, sets), not Python code a line."""

    def __init__(
        self, report: Collector, run: _Run, max_depth: int | None, qrels: QrelsInfo | None
    ):
        self.report, self.run, self.max_depth, self.qrels = report, run, max_depth, qrels

    def check(self, blocks: list) -> None:
        """The checks of each topic block, (id, first row, row after its last)."""
        for name, start, stop in blocks:
            self._depth(name, start, stop)
            self._duplicates(name, start, stop)
            ranked = self._ranked(start, stop)
            self._ranks(name, ranked)
            self._score_order(name, start, stop)
            self._rank_vs_score(name, ranked)
            self._ties(name, start, stop)

    def _ranked(self, start: int, stop: int) -> _Ranked:
        rank, score32 = self.run.rank, self.run.score32
        ranks = rank[start:stop]
        ordered = sorted(ranks)
        if ordered == ranks:  # in file order already
            return _Ranked(range(start, stop), ranks, score32[start:stop])
        rows = sorted(range(start, stop), key=rank.__getitem__)
        return _Ranked(rows, ordered, list(map(score32.__getitem__, rows)))

    def _depth(self, name: str, start: int, stop: int) -> None:
        if self.max_depth is not None and stop - start > self.max_depth:
            line = start + self.max_depth + 1
            self.report.add("R8", line, "docno", wording.too_deep(name, self.max_depth))

    def _duplicates(self, name: str, start: int, stop: int) -> None:
        docnos = self.run.docno[start:stop]
        first = _first_rows(docnos)
        if len(first) == len(docnos):
            return
        again, judged = _repeats(docnos, first), may_judge(self.qrels, name)

        def message(k: int) -> str:
            row, before = again[k]
            return wording.duplicate_docno(docnos[row], name, start + before + 1, judged=judged)

        check = "R7" if judged else "R7.unjudged"  # a warning under lenient: see the rule
        self.report.add_many(check, [start + row + 1 for row, _ in again], "docno", message)

    def _ranks(self, name: str, ranked: _Ranked) -> None:
        """R11: the first repeated rank, the first bad start or gap (ranks sorted)."""
        rows, ranks = ranked.rows, ranked.ranks
        if ranks == list(range(1, len(ranks) + 1)):
            return  # 1..n: no repeat, no gap
        if ranks[0] != 1:
            message = wording.bad_rank_start(name, ranks[0])
            self.report.add("R11.sequence", rows[0] + 1, "rank", message)
        steps = list(map(sub, islice(ranks, 1, None), ranks))  # step k: from row k to k + 1
        repeated = _first(map(not_, steps))
        if repeated is not None:
            message = wording.repeated_rank(name, ranks[repeated], rows[repeated] + 1)
            self.report.add("R11.unique", rows[repeated + 1] + 1, "rank", message)
        gap = _first(map((1).__lt__, steps)) if ranks[0] == 1 else None  # the first problem
        if gap is not None:
            message = wording.rank_gap(name, ranks[gap], ranks[gap + 1])
            self.report.add("R11.sequence", rows[gap + 1] + 1, "rank", message)

    def _score_order(self, name: str, start: int, stop: int) -> None:
        """R13: the first score above the one before (as float32)."""
        up = _first_rise(self.run.score32[start:stop])
        if up is not None:
            row = start + up
            message = wording.score_up(name, self.run.score[row], self.run.score[row - 1])
            self.report.add("R13", row + 1, "score", message)

    def _rank_vs_score(self, name: str, ranked: _Ranked) -> None:
        """R14: sorted by rank, the first score above the one before (as float32)."""
        rows, ranks, score32 = ranked.rows, ranked.ranks, ranked.score32
        if _descending(score32):
            return
        higher = map(gt, islice(score32, 1, None), score32)
        later = map(gt, islice(ranks, 1, None), ranks)
        found = _first(map(and_, higher, later))
        if found is not None:
            before, row = rows[found], rows[found + 1]
            score = self.run.score
            message = wording.rank_against_score(
                name, ranks[found + 1], score[row], ranks[found], score[before]
            )
            self.report.add("R14", row + 1, "rank", message)

    def _ties(self, name: str, start: int, stop: int) -> None:
        """R15: documents in a tie: exactly, with a document of the same score (as double:
        neighbours in score order, which trec_eval ties), and at float32 precision only,
        with a document of the same float32 score and another double
        (:func:`~.run_topics._float32_only_members`)."""
        score, score32 = self.run.score[start:stop], self.run.score32[start:stop]
        ordered = sorted(score, reverse=True)  # one pass on a run's usual order
        pairs = list(map(eq, islice(ordered, 1, None), ordered))  # neighbours tied
        tied = pairs.count(True)
        one_score = tied == len(score) - 1
        if tied:
            # a tie of k documents is k - 1 pairs in a row
            stretches = pairs[0] + sum(map(gt, islice(pairs, 1, None), pairs))
            if ordered == score:
                at = start + pairs.index(True)
            else:
                values = set(compress(ordered, pairs))
                at = start + _first(map(values.__contains__, score))
            message = wording.ties(name, tied + stretches, wording.TIE, one_score)
            self.report.add("R15.tie", at + 1, "score", message)
        ordered32 = sorted(score32, reverse=True)
        if sum(map(eq, islice(ordered32, 1, None), ordered32)) == tied:
            return  # each float32 score is one double's (float32 keeps the order)
        singles = Counter(array("f", set(score)))  # each double's float32
        shared = {value for value, n in singles.items() if n > 1}
        members = sum(map(shared.__contains__, score32))
        at = start + _first(map(shared.__contains__, score32))
        message = wording.ties(name, members, wording.FLOAT32_TIE, one_score)
        self.report.add("R15.float32", at + 1, "score", message)
