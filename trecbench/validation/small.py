"""``trecbench validate`` of small plain files, without Arrow or numpy (issue 31).

On a 1,000-line run nearly all of the general path's time is start-up: importing Arrow and
numpy takes longer than checking the file. A plain file (:func:`trecbench.small_text.
plain_text`: at most 1 MiB of printable ASCII, one separator, six fields a run line with a
non-negative integer rank and a decimal score, four a qrels line with a grade of at most 6
digits, no blank or ``#`` line) can break none of the rules of bytes, encoding, spacing,
field counts, headers, comments, swapped files or what ``convert`` reads (R32, Q12), so
what remains are the rules of values and topics: R3-R5, R7-R9, R11, R13-R20 and X1-X5 for
runs, Q5 and Q7 for qrels. This module finds those with Python lists, in the general path's
order and with its words (:mod:`.wording`, :mod:`.cross_checks`), into the same
:class:`~.findings.Collector`; the reports are then the general path's, byte for byte
(``tests/test_validate_small.py`` compares both on seeded random and mutated files).

It declines (None: the general path takes the call) what it does not mirror: any file
that is not plain, a topic in several blocks, more than 100 run tags, a rank of more than
18 digits, a score beyond float32's range, a topics file that is not printable ASCII or
is JSON (lines).
``validate`` gives it no call with ``--docid-regex``, ``--docids`` or ``--fix``.

A file of at most 1 MiB is one chunk to the general path, whose run checker checks the
topics but the last, then the last (it could go on in the next chunk): two calls of
:class:`~.run_topics.TopicChecks`, whose "is this call in score order" (R15's pairs) is
per call; :func:`_calls` splits the topics likewise.
"""

from __future__ import annotations

import itertools
import re
from array import array
from dataclasses import dataclass

from .. import small_text
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

_RANK_DIGITS = 18  # a longer rank is not an int64 to the general path (R10)
_TEXT = re.compile(rb"[ -~\t\n\r\v\f]+")  # a topics file of printable ASCII


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

    qid: tuple[str, ...]
    docno: tuple[str, ...]
    rank: list[int]
    score: list[float]
    score32: list[float]  # as trec_eval 9.x compares them


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
    """The distinct ids of a small topics file of printable ASCII (not compressed: no
    compression's magic bytes are all printable but bz2's), or None."""
    data = small_text.small_bytes(path)
    if data is None or data.startswith(b"BZh"):
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


def _lines(path: str, kind: str) -> list[list[str]] | None:
    """The fields of each line of a small plain ``kind`` file; None for any other file."""
    found = small_text.plain_text(path, kind)
    if found is None:
        return None
    text, separator = found
    return [line.split(separator) for line in text[:-1].split("\n")]


def _qrels(path: str, settings: SmallSettings) -> tuple[ValidationResult, set] | None:
    """The qrels' result (Q5, Q7) and its judged (qid, docno) pairs, or None."""
    lines = _lines(path, "qrels")
    if lines is None:
        return None
    report = Collector(path, settings.profile, settings.limit)
    seen: dict[tuple[str, str], tuple[int, str]] = {}
    best: dict[str, int] = {}
    first: dict[str, int] = {}
    for number, (qid, _, docno, grade) in enumerate(lines, 1):
        before = seen.get((qid, docno))
        if before is not None:
            message = wording.duplicate_judgment(docno, qid, before[0], before[1], grade)
            report.add("Q5", number, "docno", message)
        seen.setdefault((qid, docno), (number, grade))
        first.setdefault(qid, number)
        best[qid] = max(best.get(qid, 0), int(grade))
    level = settings.relevance_level
    unjudged = [q for q, grade in best.items() if grade < level]
    report.add_many(
        "Q7", [first[q] for q in unjudged], "qid", lambda i: wording.no_relevant(unjudged[i], level)
    )
    counts = report.counts(lines=len(lines), records=len(lines), topics=len(best))
    info = QrelsInfo(set(best))
    result = ValidationResult(path, "qrels", report.findings(), counts, info, dict(report.checks))
    return result, set(seen)


def _run(
    path: str, settings: SmallSettings, info: QrelsInfo | None, judged: set, topics
) -> ValidationResult | None:
    """The run's result (checked against the qrels' ``info`` and ``judged`` pairs, and
    the ``topics`` ids, when given), or None."""
    lines = _lines(path, "run")
    if lines is None:
        return None
    qid, q0, docno, rank, score, tag = zip(*lines, strict=True)
    scores = [float(s) for s in score]
    if any(len(r) > _RANK_DIGITS for r in rank) or not small_text.finite_float32(scores):
        return None
    blocks = _blocks(qid)
    tags = list(dict.fromkeys(tag))
    if blocks is None or len(tags) > MOST_TAGS:
        return None
    report = Collector(path, settings.profile, settings.limit)
    _fields(report, q0, score)
    expected = file_name(path) if settings.tag_is_filename else None
    _tags(report, tag, tags, expected)
    run = _Run(qid, docno, [int(r) for r in rank], scores, list(array("f", scores)))
    checks = _TopicChecks(report, run, settings.max_depth, info)
    unjudged = [0, 0]
    for call in _calls(blocks):
        checks.check(call)
        if info is not None:
            _count_unjudged(run, call, info, judged, unjudged)
    _order(report, blocks)
    counts = {name: stop - start for name, start, stop in blocks}
    first = {name: start + 1 for name, start, _ in blocks}
    if settings.min_depth is not None:
        too_shallow(report, settings.min_depth, counts, first)
    if topics is not None:
        against_topics(report, topics, counts, first)
    if info is not None:
        against_qrels(report, info, counts, first, (unjudged[0], unjudged[1]))
    totals = report.counts(lines=len(qid), records=len(qid), topics=len(blocks))
    return ValidationResult(path, "run", report.findings(), totals, None, dict(report.checks))


def _blocks(qid: tuple[str, ...]) -> list[tuple[str, int, int]] | None:
    """Each topic's (id, first row, row after its last); None when a topic comes back."""
    blocks, start = [], 0
    for name, rows in itertools.groupby(qid):
        stop = start + sum(1 for _ in rows)
        blocks.append((name, start, stop))
        start = stop
    return blocks if len({name for name, _, _ in blocks}) == len(blocks) else None


def _calls(blocks: list) -> list[list]:
    """The topics as the general path's run checker hands them to its topic checks: all
    but the last, then the last (see the module docstring)."""
    return [blocks[:-1], blocks[-1:]] if len(blocks) > 1 else [blocks]


def _fields(report: Collector, q0: tuple[str, ...], score: tuple[str, ...]) -> None:
    """R3 (field 2 not ``Q0``) and R16 (a score in scientific notation)."""
    wrong = [i for i, value in enumerate(q0) if value != "Q0"]
    report.add_many("R3", [i + 1 for i in wrong], "q0", lambda k: wording.not_q0(q0[wrong[k]]))
    sci = [i for i, value in enumerate(score) if "e" in value or "E" in value]
    report.add_many(
        "R16", [i + 1 for i in sci], "score", lambda k: wording.scientific(score[sci[k]])
    )


def _tags(report: Collector, tag: tuple[str, ...], tags: list[str], expected: str | None):
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


def _count_unjudged(run: _Run, call: list, info: QrelsInfo, judged: set, counts: list) -> None:
    """X4's counts: unjudged and all documents in the top 10, in trec_eval's order (score
    as float32 descending, then docno descending), of the topics the qrels have."""
    for name, start, stop in call:
        if name not in info.topics:
            continue
        ranked = sorted(range(start, stop), key=lambda i: (run.score32[i], run.docno[i]))
        top = ranked[::-1][:10]
        counts[0] += sum((name, run.docno[i]) not in judged for i in top)
        counts[1] += len(top)


class _TopicChecks:
    """R7, R8, R11, R13-R15 of whole topics (:class:`~.run_topics.TopicChecks`'s rules)."""

    def __init__(
        self, report: Collector, run: _Run, max_depth: int | None, qrels: QrelsInfo | None
    ):
        self.report, self.run, self.max_depth, self.qrels = report, run, max_depth, qrels

    def check(self, call: list) -> None:
        """One call of the general path's topic checks (R15's order is per call)."""
        for name, start, stop in call:
            rows = range(start, stop)
            self._depth(name, start, stop)
            self._duplicates(name, rows)
            by_rank = sorted(rows, key=self.run.rank.__getitem__)
            self._ranks(name, rows, by_rank)
            self._score_order(name, rows)
            self._rank_vs_score(name, by_rank)
        # ties in score order (as doubles): neighbours there are what trec_eval ties; file
        # order can be float32's and part apart two scores equal as doubles
        for name, start, stop in call:
            self._ties(name, sorted(range(start, stop), key=lambda i: -self.run.score[i]))

    def _depth(self, name: str, start: int, stop: int) -> None:
        if self.max_depth is not None and stop - start > self.max_depth:
            line = start + self.max_depth + 1
            self.report.add("R8", line, "docno", wording.too_deep(name, self.max_depth))

    def _duplicates(self, name: str, rows: range) -> None:
        first: dict[str, int] = {}
        for i in rows:
            docno = self.run.docno[i]
            if docno in first:
                judged = may_judge(self.qrels, name)
                message = wording.duplicate_docno(docno, name, first[docno] + 1, judged=judged)
                self.report.add("R7", i + 1, "docno", message)
            else:
                first[docno] = i

    def _ranks(self, name: str, rows: range, by_rank: list[int]) -> None:
        """R11: the first repeated rank, the first bad start or gap (ranks sorted)."""
        rank = self.run.rank
        if [rank[i] for i in rows] == list(range(1, len(rows) + 1)):
            return  # 1..n in file order
        start = rank[by_rank[0]]
        if start != 1:
            message = wording.bad_rank_start(name, start)
            self.report.add("R11.sequence", by_rank[0] + 1, "rank", message)
        repeated, gap = False, start != 1  # R11.sequence: the first problem only
        for before, row in itertools.pairwise(by_rank):
            step = rank[row] - rank[before]
            if step == 0 and not repeated:
                repeated = True
                message = wording.repeated_rank(name, rank[row], before + 1)
                self.report.add("R11.unique", row + 1, "rank", message)
            elif step > 1 and not gap:
                gap = True
                message = wording.rank_gap(name, rank[before], rank[row])
                self.report.add("R11.sequence", row + 1, "rank", message)

    def _score_order(self, name: str, rows: range) -> None:
        """R13: the first score above the one before (as float32)."""
        score32 = self.run.score32
        up = next((i for i in rows[1:] if score32[i] > score32[i - 1]), None)
        if up is not None:
            message = wording.score_up(name, self.run.score[up], self.run.score[up - 1])
            self.report.add("R13", up + 1, "score", message)

    def _rank_vs_score(self, name: str, by_rank: list[int]) -> None:
        """R14: sorted by rank, the first score above the one before (as float32)."""
        rank, score32, score = self.run.rank, self.run.score32, self.run.score
        for before, row in itertools.pairwise(by_rank):
            if score32[row] > score32[before] and rank[row] > rank[before]:
                message = wording.rank_against_score(
                    name, rank[row], score[row], rank[before], score[before]
                )
                self.report.add("R14", row + 1, "rank", message)
                return

    def _ties(self, name: str, rows) -> None:
        """R15: documents in a tie (``rows`` in score order): exactly, with a neighbour,
        and at float32 precision only, with a document of the same float32 score and
        another double (:func:`~.run_topics._float32_only_members`)."""
        score, score32 = self.run.score, self.run.score32
        exact = [(a, b) for a, b in itertools.pairwise(rows) if score[a] == score[b]]
        doubles: dict[float, set[float]] = {}
        for row in rows:
            doubles.setdefault(score32[row], set()).add(score[row])
        float32_only = [row for row in rows if len(doubles[score32[row]]) > 1]
        for key, text, members in (
            ("R15.tie", wording.TIE, {row for pair in exact for row in pair}),
            ("R15.float32", wording.FLOAT32_TIE, float32_only),
        ):
            if members:
                one_score = len(exact) == len(rows) - 1  # every adjacent pair tied
                message = wording.ties(name, len(members), text, one_score)
                self.report.add(key, min(members) + 1, "score", message)
