"""Validation of TREC runs and qrels: the rules of ``docs/validator-rules.md`` as findings.

Every rule is vectorised over the columns of :class:`trecbench.files.Tokens` (numpy and
pyarrow, no Python loop per line) and files are read chunk by chunk, so a 10^7-line run
validates in bounded memory. State kept between chunks is per topic (document counts, first
lines) plus one compact 64-bit hash per (qid, docno) to find duplicates of topics that come
back in several blocks.

Each check has a stable rule id (``R1``-``R28`` for runs as in the rule table, ``Q1``-``Q9``
for qrels, ``X1``-``X4`` across files) and a severity per profile:

* ``default``: NIST-like submission checks plus score, ordering and encoding checks;
* ``strict``: ``default`` with the submission conventions (``Q0``, ranks, ordering, tag
  charset) raised to errors;
* ``lenient``: only what makes trec_eval's numbers wrong or makes it fail is an error;
  everything else is at most a warning. ``trecbench score`` uses it as its gate.

Line numbers are physical and 1-based (blank and comment lines count); trec_eval's own
"Malformed line N" counts content lines only.
"""

from __future__ import annotations

import os
import queue
import re
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from . import arrow, files
from .errors import ExitCode, InputError, TrecbenchError
from .files import RUN_FIELDS, SCORE_PATTERN, Tokens
from .ranking import as_float32, rank_run, string_hash, truncate

PROFILES = ("default", "strict", "lenient")
SEVERITIES = ("error", "warning", "info")
DEFAULT_LIMIT = 1000  # findings kept per check and file; totals are always counted
# smaller than the reader's default: peak memory is several times the chunk, speed the same
CHUNK_BYTES = 16 << 20
TAG_PATTERN = r"^[A-Za-z0-9_.-]{1,25}$"
QRELS_FIELDS = files.QRELS_FIELDS
E, W, I = "error", "warning", "info"  # noqa: E741 - the rule table's own letters


@dataclass(frozen=True)
class Check:
    """One check: its rule id, severity under each profile, and what it catches."""

    rule: str
    default: str
    strict: str
    lenient: str
    summary: str

    def severity(self, profile: str) -> str:
        return getattr(self, profile)


CHECKS: dict[str, Check] = {
    "R1.short": Check("R1", E, E, E, "fewer than 6 fields"),
    "R1.extra": Check("R1", E, E, W, "tokens after the tag (trec_eval ignores them)"),
    "R2": Check("R2", E, E, W, "Unicode blank, zero-width char, VT/FF/lone CR as separator"),
    "R3": Check("R3", W, E, W, "field 2 is not Q0"),
    "R4": Check("R4", E, E, W, "qid not in --topics"),
    "R5": Check("R5", E, E, W, "topic of --topics without any document"),
    "R6": Check("R6", E, E, W, "docno with a blank/control char or not matching --docid-regex"),
    "R7": Check("R7", E, E, E, "duplicate docno within a topic"),
    "R8": Check("R8", E, E, W, "topic deeper than --max-depth"),
    "R9.empty": Check("R9", E, E, E, "no data lines"),
    "R9.shallow": Check("R9", W, W, W, "topic shallower than --min-depth"),
    "R10": Check("R10", E, E, W, "rank is not a non-negative ASCII integer"),
    "R11": Check("R11", W, E, W, "ranks not 1..n, unique, per topic"),
    "R12": Check("R12", E, E, E, "score not a finite ASCII number"),
    "R13": Check("R13", W, E, W, "scores increase down the file within a topic"),
    "R14": Check("R14", W, W, W, "rank order disagrees with score order"),
    "R15.tie": Check("R15", W, W, W, "tied scores (trec_eval orders them by docno desc)"),
    "R15.float32": Check("R15", W, W, W, "scores tied only at float32 precision"),
    "R16": Check("R16", I, I, I, "score in scientific notation"),
    "R17": Check("R17", E, E, W, "more than one run tag"),
    "R18": Check("R18", W, E, W, "tag not ^[A-Za-z0-9_.-]{1,25}$"),
    "R19": Check("R19", E, E, W, "tag differs from the file name (--tag-is-filename)"),
    "R20.order": Check("R20", I, I, I, "topics not in ascending order"),
    "R20.split": Check("R20", W, W, W, "topic split into non-contiguous blocks"),
    "R21": Check("R21", W, W, W, "blank line"),
    "R22": Check("R22", W, W, W, "comment line"),
    "R23.bom": Check("R23", E, E, E, "UTF-8 byte-order mark"),
    "R23.nul": Check("R23", E, E, E, "NUL byte"),
    "R23.utf8": Check("R23", E, E, E, "invalid UTF-8"),
    "R23.utf16": Check("R23", E, E, E, "UTF-16 file"),
    "R23.control": Check("R23", E, E, W, "C0 control character or DEL"),
    "R24": Check("R24", W, W, W, "CRLF line end"),
    "R25.trailing": Check("R25", I, I, I, "trailing blanks"),
    "R25.spacing": Check("R25", I, I, I, "irregular separators"),
    "R25.newline": Check("R25", I, I, I, "no final newline"),
    "R26": Check("R26", E, E, E, "empty file"),
    "R27": Check("R27", E, E, E, "truncated, corrupt or doubly gzipped file"),
    "R28": Check("R28", E, E, E, "header line"),
    "Q1": Check("Q1", E, E, E, "not exactly 4 fields"),
    "Q2": Check("Q2", E, E, E, "blank line (fatal in trec_eval)"),
    "Q3": Check("Q3", E, E, E, "grade is not an integer"),
    "Q4": Check("Q4", E, E, E, "grade beyond +-1,000,000"),
    "Q5": Check("Q5", E, E, E, "duplicate (qid, docno)"),
    "Q6": Check("Q6", W, W, W, "negative grade"),
    "Q7": Check("Q7", W, W, W, "topic without a relevant document"),
    "Q8.comment": Check("Q8", W, W, W, "comment line"),
    "Q8.fatal": Check("Q8", E, E, W, "consecutive or trailing comment lines"),
    "Q9": Check("Q9", E, E, E, "header line"),
    "Q10": Check("Q10", W, W, W, "topic whose every judgment is negative"),
    "X1": Check("X1", W, W, W, "run topic absent from the qrels"),
    "X2": Check("X2", W, W, W, "qrels topic absent from the run"),
    "X3": Check("X3", E, E, E, "no topic in both run and qrels"),
    "X4": Check("X4", I, I, I, "unjudged documents in the top 10"),
    "X5": Check("X5", E, E, E, "run topic whose every judgment is negative"),
}
# --fix repairs these; any other error makes it refuse
FIXABLE = {"R1.extra", "R3", "R7", "R8", "R10", "R11", "R13", "R14", "R21", "R22", "R28"}
_RULE_ORDER = {key: i for i, key in enumerate(CHECKS)}


@dataclass(frozen=True)
class Finding:
    """One problem: rule id, severity, physical line (None: whole file), field, message."""

    rule: str
    severity: str
    line: int | None
    field: str | None
    message: str
    path: str = ""
    check: str = ""

    def format(self) -> str:
        """``FILE:LINE:FIELD: severity[RULE]: message`` (``FILE: ...`` for whole-file ones)."""
        where = self.path if self.line is None else f"{self.path}:{self.line}:{self.field or '-'}"
        return f"{where}: {self.severity}[{self.rule}]: {self.message}"

    def to_dict(self) -> dict:
        return {
            "rule": self.rule,
            "severity": self.severity,
            "line": self.line,
            "field": self.field,
            "message": self.message,
        }


@dataclass
class QrelsInfo:
    """What run checks need from qrels: topics, relevant topics, judged (qid, docno) pairs."""

    topics: set[str]
    judged: pa.Array | None = None  # "qid\tdocno" of non-negative judgments
    negative_only: frozenset[str] = frozenset()  # topics whose every grade is negative


@dataclass
class ValidationResult:
    """Findings of one file (at most ``limit`` kept per check) and their full counts."""

    path: str
    kind: str
    findings: list[Finding]
    counts: dict
    qrels_info: QrelsInfo | None = None

    @property
    def errors(self) -> int:
        return self.counts["error"]

    @property
    def ok(self) -> bool:
        return self.counts["error"] == 0

    def to_dict(self) -> dict:
        return {
            "file": self.path,
            "kind": self.kind,
            "findings": [f.to_dict() for f in self.findings],
            "counts": self.counts,
        }


class UnfixableError(TrecbenchError):
    """``--fix`` met errors it cannot repair (bad scores, encoding, mixed tags, ...)."""

    exit_code = ExitCode.INPUT


# ---------------------------------------------------------------------------------------
# collecting findings


class _Report:
    def __init__(self, path: str, profile: str, limit: int):
        if profile not in PROFILES:
            raise ValueError(f"unknown profile {profile!r}; choose one of {', '.join(PROFILES)}")
        self.path, self.profile, self.limit = path, profile, limit
        self.kept: dict[str, list[Finding]] = {}
        self.rules: Counter[str] = Counter()
        self.severities: Counter[str] = Counter()

    def add(self, key: str, line: int | None, fld: str | None, message: str, count: int = 1):
        self.add_many(key, [line], fld, lambda _: message, count)

    def add_many(
        self,
        key: str,
        lines: Sequence[int | None] | np.ndarray,
        fld: str | None | Callable[[int], str | None],
        message: Callable[[int], str],
        count: int | None = None,
    ) -> None:
        """Record ``count`` (default ``len(lines)``) findings; build messages for kept ones."""
        total = len(lines) if count is None else count
        if total == 0:
            return
        check = CHECKS[key]
        severity = check.severity(self.profile)
        self.rules[check.rule] += total
        self.severities[severity] += total
        kept = self.kept.setdefault(key, [])
        for i in range(min(len(lines), self.limit - len(kept))):
            line = None if lines[i] is None else int(lines[i])
            name = fld(i) if callable(fld) else fld
            kept.append(Finding(check.rule, severity, line, name, message(i), self.path, key))

    def findings(self) -> list[Finding]:
        found = [f for kept in self.kept.values() for f in kept]
        found.sort(key=lambda f: (f.line or 0, _RULE_ORDER[f.check]))
        return found

    def counts(self, **extra) -> dict:
        return {
            **{s: self.severities[s] for s in SEVERITIES},
            "rules": dict(sorted(self.rules.items(), key=lambda kv: _rule_sort_key(kv[0]))),
            **extra,
        }


def _rule_sort_key(rule: str) -> tuple[str, int]:
    return rule[0], int(rule[1:])


# ---------------------------------------------------------------------------------------
# vectorised helpers


def qrels_info(qrels: pa.Table) -> QrelsInfo:
    """Topics of a typed qrels table (:func:`trecbench.files.qrels_table`) for run checks."""
    groups = arrow.Groups(qrels.column("qid"))
    qids = groups.keys.to_pylist()
    best = dict(zip(qids, groups.reduce(np.maximum, qrels.column("rel")).tolist(), strict=True))
    return QrelsInfo(set(best), None, frozenset(q for q, g in best.items() if g < 0))


def _pair_text(qid, docno) -> pa.Array:
    """``qid<TAB>docno`` (large strings), the exact key of a judgment."""
    large = pa.large_string()
    return pc.binary_join_element_wise(
        pc.cast(qid, large), pc.cast(docno, large), arrow.scalar("\t", large)
    )


def _segment_starts(codes: np.ndarray) -> np.ndarray:
    return np.concatenate(([0], np.flatnonzero(codes[1:] != codes[:-1]) + 1)).astype(np.int64)


def _first_per_segment(rows: np.ndarray, segment: np.ndarray) -> np.ndarray:
    """Among ``rows`` (ascending), the first one of each segment."""
    if len(rows) == 0:
        return rows
    _, first = np.unique(segment[rows], return_index=True)
    return rows[first]


def _duplicate_pairs(keys: np.ndarray, docno: pa.Array, codes: np.ndarray, line: np.ndarray):
    """Sorted keys and the row pairs (earlier, later) holding the same (qid, docno).

    Sorting plain keys is cheap; only rows whose key repeats are sorted with their index.
    Each later occurrence is paired with the one before it, ordered by the later's line.
    """
    ordered = np.sort(keys)
    repeated = ordered[1:][ordered[1:] == ordered[:-1]]
    if not len(repeated):
        return ordered, np.empty(0, np.int64), np.empty(0, np.int64)
    rows = np.flatnonzero(np.isin(keys, repeated))
    rows = rows[np.argsort(keys[rows], kind="stable")]
    pair = np.flatnonzero(keys[rows[1:]] == keys[rows[:-1]])
    first, second = rows[pair], rows[pair + 1]
    # confirm: a 64-bit hash collision must not invent a duplicate
    same = arrow.to_numpy(pc.equal(docno.take(arrow.array(first)), docno.take(arrow.array(second))))
    same &= codes[first] == codes[second]
    first, second = first[same], second[same]
    later = np.argsort(line[second], kind="stable")
    return ordered, first[later], second[later]


class _HashSet:
    """A compact set of 64-bit keys (8 bytes per line): one sorted numpy block per chunk.

    Blocks are never merged (a merge would briefly double the memory); lookups happen only
    for topics that come back after other topics, which are rare.
    """

    def __init__(self) -> None:
        self.blocks: list[np.ndarray] = []

    def add(self, sorted_keys: np.ndarray) -> None:
        self.blocks.append(sorted_keys)

    def contains(self, keys: np.ndarray) -> np.ndarray:
        found = np.zeros(len(keys), bool)
        for block in self.blocks:
            where = np.minimum(np.searchsorted(block, keys), len(block) - 1)
            found |= block[where] == keys
        return found


def read_topics(path: str | os.PathLike) -> list[str]:
    """Topic ids of a file: one per line, or a TREC topics file with ``<num> Number: 301``."""
    text = files.read_bytes(path).decode("utf-8", "replace")
    if "<num>" in text:
        ids = re.findall(r"<num>\s*(?:Number:)?\s*(\S+)", text)
    else:
        ids = [line.split()[0] for line in text.splitlines() if line.strip()]
    if not ids:
        raise InputError(str(path), None, "no topic ids found")
    return ids


def _near_miss(qid: str, known: dict[str, str]) -> str:
    hit = known.get(_normal_id(qid))
    return f" (did you mean {hit!r}?)" if hit is not None else ""


def _normal_id(qid: str) -> str:
    return qid.lstrip("\ufeff").lower().lstrip("0") or "0"


# ---------------------------------------------------------------------------------------
# checks shared by runs and qrels


class _Checker:
    kind = "run"
    field_names: tuple[str, ...] = RUN_FIELDS

    def __init__(self, path: str, report: _Report):
        self.path, self.report = path, report
        self.lenient = report.profile == "lenient"
        self.physical = 0
        self.records = 0
        self.ends_with_newline = True
        self.stopped = False  # a fatal whole-file problem (UTF-16, double gzip)
        self.seen_keys = _HashSet()  # (qid, docno) keys of earlier chunks

    def feed(self, tokens: Tokens) -> None:
        if self.stopped:
            return
        if tokens.n_physical_lines:
            starts = self.physical == 0
            self.physical += tokens.n_physical_lines
            self.ends_with_newline = tokens.ends_with_newline
            if starts and self._head(tokens.head):
                self.stopped = True
                return
        self._bytes(tokens)
        if len(tokens):
            self._rows(tokens)

    def _head(self, head: bytes) -> bool:
        add = self.report.add
        if head.startswith((b"\xff\xfe", b"\xfe\xff")):
            add("R23.utf16", None, None, "the file is UTF-16; TREC files must be ASCII/UTF-8")
            return True
        if head.startswith(files.GZIP_MAGIC):
            add("R27", None, None, "the file is gzip-compressed twice; decompress it once more")
            return True
        if head.startswith(files.BOM):
            add(
                "R23.bom",
                1,
                self.field_names[0],
                "UTF-8 byte-order mark: trec_eval reads it as part of the first qid, "
                "which becomes a phantom topic",
            )
        return False

    def _bytes(self, tokens: Tokens) -> None:
        add = self.report.add_many
        add(
            "R23.nul",
            tokens.nul_lines,
            "line",
            lambda _: "NUL byte (trec_eval 9.x silently stops reading the file here)",
        )
        add("R23.utf8", tokens.bad_utf8_lines, "line", lambda _: "invalid UTF-8")
        add(
            "R23.control",
            tokens.control_lines,
            "line",
            lambda _: "C0 control character or DEL (invisible, and part of an id to trec_eval)",
        )
        add(
            "R2",
            tokens.space_control_lines,
            "line",
            lambda _: "vertical tab, form feed or lone CR: trec_eval splits fields there",
        )
        self._unicode(tokens)
        add("R24", tokens.crlf_lines, "line", lambda _: "CRLF line end (Windows)")
        add("R25.trailing", tokens.trailing_space_lines, "line", lambda _: "trailing blanks")
        add(
            "R25.spacing",
            tokens.irregular_space_lines,
            "line",
            lambda _: "irregular separators (tabs mixed with spaces, or several blanks)",
        )
        self._blank(tokens.blank_lines)

    def _unicode(self, tokens: Tokens) -> None:
        """Unicode blanks, attributed to the field that holds them (docno: R6, else R2)."""
        lines = tokens.unicode_space_lines
        if not len(lines) or not len(tokens):
            return
        rows = np.searchsorted(tokens.line, lines)
        rows = rows[
            (rows < len(tokens)) & (tokens.line[np.minimum(rows, len(tokens) - 1)] == lines)
        ]
        index = arrow.array(rows)
        where = np.full(len(rows), -1)
        for column in reversed(range(len(tokens.fields))):
            hit = files.matches(tokens.fields[column].take(index), files.UNICODE_SPACE_PATTERN)
            if column == 0 and tokens.head.startswith(files.BOM):
                hit &= tokens.line[rows] != 1  # the BOM itself is R23
            where[hit] = column
        # a blank between fields leaves no trace in the fields but the count: whole line
        docno = self.field_names.index("docno")
        in_docno = rows[where == docno]
        elsewhere = rows[where != docno]
        message = "Unicode blank or zero-width character (invisible; not a separator to trec_eval)"
        self.report.add_many("R6", tokens.line[in_docno], "docno", lambda _: message)
        names = [self.field_names[c] if c >= 0 else "line" for c in where[where != docno]]
        self.report.add_many("R2", tokens.line[elsewhere], lambda i: names[i], lambda _: message)

    def _blank(self, lines: np.ndarray) -> None:
        raise NotImplementedError

    def _rows(self, tokens: Tokens) -> None:
        raise NotImplementedError

    def _finish_file(self) -> None:
        if self.physical == 0:
            self.report.add("R26", None, None, "empty file")
        elif not self.ends_with_newline:
            self.report.add("R25.newline", self.physical, "line", "no newline at the end of file")

    def _duplicates_of(self, qids: pa.Array, codes: np.ndarray, docno: pa.Array, line, rows=None):
        """Rows repeating a (qid, docno): ``(first, second)`` pairs within this chunk (see
        :func:`_duplicate_pairs`), and those of ``rows`` (default: all) held by an earlier
        chunk. ``qids``: the chunk's distinct qids, ``codes`` each row's index into them."""
        # salted with the qid's hash, not its code (codes change per chunk): one key per
        # (qid, docno) in every chunk
        keys = string_hash(docno, salt=string_hash(qids)[codes])
        ordered, first, second = _duplicate_pairs(keys, docno, codes, line)
        rows = np.arange(len(keys)) if rows is None else rows
        again = rows[self.seen_keys.contains(keys[rows])] if len(rows) else rows
        self.seen_keys.add(ordered)
        return first, second, again

    def result(self, topics: int, qrels_info: QrelsInfo | None = None) -> ValidationResult:
        counts = self.report.counts(lines=self.physical, records=self.records, topics=topics)
        return ValidationResult(self.path, self.kind, self.report.findings(), counts, qrels_info)


# ---------------------------------------------------------------------------------------
# runs


@dataclass
class _Rows:
    """Data rows of a run waiting for topic checks (a topic block is checked once whole)."""

    qid: pa.Array
    docno: pa.Array
    rank: np.ndarray  # -1 where the rank is not an integer
    score: np.ndarray  # float64, NaN where the score is not a number
    line: np.ndarray

    def __len__(self) -> int:
        return len(self.line)

    def slice(self, start: int, stop: int | None = None) -> _Rows:
        stop = len(self) if stop is None else stop
        return _Rows(
            self.qid.slice(start, stop - start),
            self.docno.slice(start, stop - start),
            self.rank[start:stop],
            self.score[start:stop],
            self.line[start:stop],
        )

    def take(self, order: np.ndarray) -> _Rows:
        index = arrow.array(order)
        return _Rows(
            self.qid.take(index),
            self.docno.take(index),
            self.rank[order],
            self.score[order],
            self.line[order],
        )

    @staticmethod
    def concat(a: _Rows, b: _Rows) -> _Rows:
        return _Rows(
            pa.concat_arrays([a.qid, b.qid.cast(a.qid.type)]),
            pa.concat_arrays([a.docno, b.docno.cast(a.docno.type)]),
            np.concatenate((a.rank, b.rank)),
            np.concatenate((a.score, b.score)),
            np.concatenate((a.line, b.line)),
        )


HEADER_WORDS = set(
    "qid query query_id query-id queryid topic topic_id iteration docno docid doc_id doc "
    "corpus-id corpus_id rank score sim tag run run_id runid rel relevance label grade "
    "judgment".split()
)


def _classify(
    tokens: Tokens, lenient: bool, first_record: bool, number: int
) -> tuple[np.ndarray, np.ndarray]:
    """Masks of comment lines and of a header line.

    The header is the file's first record when its field ``number`` (score, grade) is not a
    number and two of its fields are usual column names (``qid``, ``docno``, ``score``...).

    Comments start with ``#`` (a ``#`` inside an id is not one); under ``lenient`` there are
    none, because trec_eval 9.x reads them as data.
    """
    comment = np.zeros(len(tokens), bool)
    if not lenient:
        comment = arrow.to_numpy(
            pc.fill_null(pc.starts_with(tokens.fields[0], "#"), arrow.scalar(False))
        )
    header = np.zeros(len(tokens), bool)
    candidates = np.flatnonzero(~comment)
    if first_record and len(candidates):
        first = int(candidates[0])
        words = [f[first].as_py() for f in tokens.fields]
        named = sum(w is not None and w.lower() in HEADER_WORDS for w in words)
        value = words[number] or ""
        header[first] = named >= 2 and not re.fullmatch(SCORE_PATTERN, value)
    return comment, header


class _RunChecker(_Checker):
    def __init__(
        self,
        path: str,
        report: _Report,
        *,
        max_depth: int | None,
        min_depth: int | None,
        topics: Iterable[str] | None,
        qrels: QrelsInfo | None,
        docid_regex: str | None,
        expected_tag: str | None,
    ):
        super().__init__(path, report)
        self.max_depth, self.min_depth = max_depth, min_depth
        self.topics = None if topics is None else list(dict.fromkeys(topics))
        self.qrels = qrels
        self.docid_regex = docid_regex
        self.expected_tag = expected_tag
        self.carry: _Rows | None = None
        self.counts_by_topic: dict[str, int] = {}
        self.first_line: dict[str, int] = {}
        self.split_reported: set[str] = set()
        self.last_block_qid: str | None = None
        self.order_reported = False
        self.first_tag: str | None = None
        self.tags_seen: set[str] = set()
        self.unjudged = [0, 0]  # unjudged and all documents in the top 10 of judged topics
        self.last_score: dict[str, float] = {}  # per topic, for R13 across chunks
        self.reported: dict[str, set[str]] = {}  # per check, topics already reported

    def _blank(self, lines: np.ndarray) -> None:
        self.report.add_many("R21", lines, "line", lambda _: "blank line (trec_eval skips it)")

    def _rows(self, tokens: Tokens) -> None:
        fields = tokens.fields
        comment, header = _classify(tokens, self.lenient, self.records == 0, 4)
        data = (tokens.nfields >= 6) & ~comment & ~header
        add = self.report.add_many
        add(
            "R22",
            tokens.line[comment],
            "line",
            lambda _: "comment line (trec_eval 9.x reads it as data and fails; 10.0 skips it)",
        )
        for row in np.flatnonzero(header):
            self.report.add(
                "R28",
                int(tokens.line[row]),
                "line",
                "header line: TREC runs have no header; remove it",
            )
        self.records += int(np.count_nonzero(~comment & ~header))
        nf = tokens.nfields
        short = np.flatnonzero((nf < 6) & ~comment & ~header)

        def short_message(i: int) -> str:
            row = short[i]
            hint = ""
            if nf[row] == 5 and fields[1][row].as_py() != "Q0":
                hint = " (is the Q0 column missing?)"
            return f"expected 6 fields (qid Q0 docno rank score tag), found {nf[row]}{hint}"

        add("R1.short", tokens.line[short], "line", short_message)
        extra = np.flatnonzero((nf > 6) & data)
        add(
            "R1.extra",
            tokens.line[extra],
            "tag",
            lambda i: (
                f"{nf[extra[i]]} fields: trec_eval ignores everything after the 6th "
                "(a tag with a space?)"
            ),
        )
        if not data.all():
            index = arrow.array(np.flatnonzero(data))
            fields = [f.take(index) for f in fields[:6]]
            line = tokens.line[data]
        else:
            fields, line = fields[:6], tokens.line
        if len(line):
            self._fields(fields, line)

    def _fields(self, fields: list[pa.Array], line: np.ndarray) -> None:
        qid, q0, docno, rank, score, tag = fields
        add = self.report.add_many

        def flag(key: str, mask: np.ndarray, name: str, message: Callable[[int], str]):
            rows = np.flatnonzero(mask)
            add(key, line[rows], name, lambda i: message(int(rows[i])))

        flag(
            "R3",
            # a typed scalar: comparing with a bare str is 50 times slower
            arrow.to_numpy(pc.not_equal(q0, arrow.scalar("Q0", q0.type))),
            "q0",
            lambda r: f"field 2 is {q0[r].as_py()!r}, expected 'Q0'",
        )
        if self.docid_regex is not None:
            flag(
                "R6",
                ~files.matches(docno, f"^(?:{self.docid_regex})$"),
                "docno",
                lambda r: f"docno {docno[r].as_py()!r} does not match --docid-regex",
            )
        ranks = files.parse_ranks(rank)
        good_rank = arrow.to_numpy(ranks.is_valid())
        flag(
            "R10",
            ~good_rank,
            "rank",
            lambda r: f"rank {rank[r].as_py()!r} is not a non-negative integer",
        )
        good_score, scores = files.parse_scores(score)
        flag("R12", ~good_score, "score", lambda r: _bad_score(score[r].as_py()))
        overflow = good_score & np.isnan(scores)
        flag("R12", overflow, "score", lambda r: f"score {score[r].as_py()} overflows a double")
        flag(
            "R16",
            good_score
            & arrow.to_numpy(
                pc.or_(pc.match_substring(score, "e"), pc.match_substring(score, "E"))
            ),
            "score",
            lambda r: f"score {score[r].as_py()} is in scientific notation",
        )
        self._tags(tag, line)
        ranks = arrow.to_numpy(pc.fill_null(ranks, arrow.scalar(-1)))
        rows = _Rows(qid, docno, ranks, scores, line)
        if self.carry is not None:
            rows = _Rows.concat(self.carry, rows)
        # hold back the last topic block: it may go on in the next chunk
        codes = arrow.to_numpy(pc.dictionary_encode(rows.qid).indices)
        cut = int(_segment_starts(codes)[-1])
        self.carry = rows.slice(cut)
        if cut:
            self._topics(rows.slice(0, cut))

    def _tags(self, tag: pa.Array, line: np.ndarray) -> None:
        if self.first_tag is None:
            self.first_tag = tag[0].as_py()
        new = [t for t in pc.unique(tag).to_pylist() if t not in self.tags_seen]
        for value in new[:100]:  # a tag per line is one R17 finding per tag: cap the lookups
            self.tags_seen.add(value)
            row = pc.index(tag, arrow.scalar(value, tag.type)).as_py()
            at = int(line[row])
            if value != self.first_tag:
                self.report.add(
                    "R17",
                    at,
                    "tag",
                    f"second run tag {value!r} (first: {self.first_tag!r}); trec_eval "
                    "reports the tag of the last line only",
                )
            if not re.fullmatch(TAG_PATTERN, value):
                self.report.add("R18", at, "tag", f"tag {value!r} is not 1-25 of A-Z a-z 0-9 _ . -")
            if self.expected_tag is not None and value != self.expected_tag:
                self.report.add(
                    "R19",
                    at,
                    "tag",
                    f"tag {value!r} differs from the file name {self.expected_tag!r}",
                )
        if len(new) > 100:
            self.report.add(
                "R17", int(line[0]), "tag", "more than 100 distinct run tags", count=len(new) - 100
            )
            self.tags_seen.update(new)

    # -- per topic ------------------------------------------------------------------------

    def _topics(self, rows: _Rows) -> None:
        encoded = pc.dictionary_encode(rows.qid)
        codes = arrow.to_numpy(encoded.indices).astype(np.int64)
        names_array = encoded.dictionary
        names = names_array.to_pylist()
        block_start = _segment_starts(codes)
        self._order(names, names_array, codes[block_start], rows.line[block_start])
        if len(block_start) != len(names):
            order = np.argsort(codes, kind="stable")
            rows, codes = rows.take(order), codes[order]
        start = _segment_starts(codes)
        length = np.diff(np.append(start, len(codes)))
        topic = codes[start]
        segment = np.repeat(np.arange(len(start)), length)
        prior = np.array([self.counts_by_topic.get(names[c], 0) for c in topic], np.int64)
        local = np.arange(len(codes)) - np.repeat(start, length) + 1
        position = local + np.repeat(prior, length)
        for c, n, first in zip(topic, length, rows.line[start], strict=True):
            name = names[c]
            self.counts_by_topic[name] = self.counts_by_topic.get(name, 0) + int(n)
            self.first_line.setdefault(name, int(first))
        qname = [names[c] for c in topic]  # topic name of each segment

        self._depth(rows, position, segment, qname)
        self._duplicates(rows, codes, names_array, segment, prior, qname)
        whole = prior[segment] == 0  # topic entirely in this batch
        self._ranks(rows, local, segment, whole, qname)
        score32 = as_float32(rows.score)
        increasing = self._score_order(rows, score32, start, segment, qname)
        self._rank_vs_score(rows, score32, local, segment, qname)
        # file order is score order only without increases and without NaN (R12) in between
        in_order = not increasing and not np.isnan(rows.score).any()
        self._ties(rows, score32, segment, length, qname, sorted_by_score=in_order)
        if self.qrels is not None and self.qrels.judged is not None:
            self._judged(rows, codes, names_array)

    def _order(self, names, names_array, block_codes, block_lines) -> None:
        """R20: topics split into several blocks (W), topics not ascending (I)."""
        block_names = [names[c] for c in block_codes]
        seen_before = {n for n in names if n in self.counts_by_topic}
        # the second block of a topic within this batch, or its first if seen before
        first_seen = {n: self.first_line[n] for n in seen_before}
        for name, line in zip(block_names, block_lines, strict=True):
            if name not in first_seen:
                first_seen[name] = int(line)
            elif name not in self.split_reported:
                self.split_reported.add(name)
                self.report.add(
                    "R20.split",
                    int(line),
                    "qid",
                    f"topic {name} comes back after other topics (first at line "
                    f"{first_seen[name]}); list each topic in one block",
                )
        if self.order_reported:
            return
        previous = [self.last_block_qid] if self.last_block_qid is not None else []
        sequence = previous + block_names
        self.last_block_qid = block_names[-1]
        descending = _first_descent(sequence)
        if descending is not None:
            self.order_reported = True
            line = int(block_lines[descending - len(previous)])
            self.report.add(
                "R20.order",
                line,
                "qid",
                f"topic {sequence[descending]} after {sequence[descending - 1]}: topics are "
                "not in ascending order",
            )

    def _depth(self, rows: _Rows, position, segment, qname) -> None:
        if self.max_depth is None:
            return
        beyond = np.flatnonzero(position == self.max_depth + 1)
        self.report.add_many(
            "R8",
            rows.line[beyond],
            "docno",
            lambda i: (
                f"topic {qname[segment[beyond[i]]]} has more than {self.max_depth} "
                f"documents (--max-depth); trec_eval -M{self.max_depth} would drop the rest"
            ),
        )

    def _duplicates(self, rows: _Rows, codes, names_array, segment, prior, qname) -> None:
        # only topics seen before can repeat a document of an earlier chunk
        again = np.flatnonzero(prior[segment] > 0)
        first, second, hits = self._duplicates_of(names_array, codes, rows.docno, rows.line, again)
        self.report.add_many(
            "R7",
            rows.line[second],
            "docno",
            lambda i: (
                f"duplicate docno {rows.docno[int(second[i])].as_py()} in topic "
                f"{qname[segment[second[i]]]} (first at line {rows.line[first[i]]}); trec_eval "
                "stops with 'duplicate docs' (exit 4)"
            ),
        )
        self.report.add_many(
            "R7",
            rows.line[hits],
            "docno",
            lambda i: (
                f"duplicate docno {rows.docno[int(hits[i])].as_py()} in topic "
                f"{qname[segment[hits[i]]]} (listed in an earlier block of the topic)"
            ),
        )

    def _ranks(self, rows: _Rows, local, segment, whole, qname) -> None:
        """R11: ranks of a topic are exactly 1..n (topics split across chunks: skipped)."""
        invalid = np.zeros(segment[-1] + 1, bool)
        invalid[segment[rows.rank < 0]] = True
        check = whole & ~invalid[segment]
        if np.array_equal(rows.rank[check], local[check]):
            return
        order = np.lexsort((rows.rank, segment))
        ranks, seg = rows.rank[order], segment[order]
        at_start = np.ones(len(seg), bool)
        at_start[1:] = seg[1:] != seg[:-1]
        step = np.diff(ranks, prepend=0)
        bad_start = at_start & (ranks != 1)
        duplicate = ~at_start & (step == 0)
        gap = ~at_start & (step > 1)
        problem = (bad_start | duplicate | gap) & check[order]
        firsts = _first_per_segment(np.flatnonzero(problem), seg)
        firsts = self._once("R11", firsts, [qname[seg[k]] for k in firsts])

        def message(i: int) -> str:
            k = firsts[i]
            name, rank = qname[seg[k]], int(ranks[k])
            if bad_start[k]:
                base = " (zero-based?)" if rank == 0 else ""
                return f"ranks of topic {name} start at {rank}, not 1{base}"
            if duplicate[k]:
                return (
                    f"rank {rank} appears twice in topic {name} (also line "
                    f"{rows.line[order[k - 1]]})"
                )
            return f"ranks of topic {name} jump from {int(ranks[k - 1])} to {rank}"

        self.report.add_many("R11", rows.line[order[firsts]], "rank", message)

    def _score_order(self, rows: _Rows, score32, start, segment, qname) -> bool:
        """R13: first score increase per topic (as float32, what trec_eval 9.x compares).

        The first row of a topic compares with the topic's last row of an earlier chunk.
        """
        previous = np.empty(len(rows))
        previous[1:] = rows.score[:-1]
        previous[start] = [self.last_score.get(name, np.nan) for name in qname]
        up = np.flatnonzero(score32 > as_float32(previous))
        ends = np.append(start[1:], len(rows)) - 1
        self.last_score.update(zip(qname, rows.score[ends].tolist(), strict=True))
        firsts = _first_per_segment(up, segment)
        firsts = self._once("R13", firsts, [qname[segment[k]] for k in firsts])
        self.report.add_many(
            "R13",
            rows.line[firsts],
            "score",
            lambda i: (
                f"score {_show(rows.score[firsts[i]])} is higher than the one before "
                f"({_show(previous[firsts[i]])}) in topic {qname[segment[firsts[i]]]}"
            ),
        )
        return len(up) > 0

    def _once(self, key: str, rows: np.ndarray, names: list[str]) -> np.ndarray:
        """The ``rows`` whose topic has no ``key`` finding yet (per-topic checks say it once)."""
        done = self.reported.setdefault(key, set())
        keep = [i for i, name in enumerate(names) if name not in done]
        done.update(names[i] for i in keep)
        return rows[keep]

    def _rank_vs_score(self, rows: _Rows, score32, local, segment, qname) -> None:
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
        firsts = _first_per_segment(bad, seg)
        firsts = self._once("R14", firsts, [qname[seg[k]] for k in firsts])
        self.report.add_many(
            "R14",
            rows.line[order[firsts]],
            "rank",
            lambda i: (
                f"rank {r[firsts[i]]} has a higher score ({_show(rows.score[order[firsts[i]]])})"
                f" than rank {r[firsts[i] - 1]} ({_show(rows.score[order[firsts[i] - 1]])})"
                " in topic "
                f"{qname[seg[firsts[i]]]}: trec_eval ranks by score, rank-based tools by rank"
            ),
        )

    def _ties(self, rows: _Rows, score32, segment, length, qname, sorted_by_score) -> None:
        """R15: ties per topic, and ties that exist only at float32 precision."""
        if sorted_by_score:
            order = np.arange(len(rows))
        else:
            order = np.lexsort((-rows.score, segment))
        s64, s32, seg = rows.score[order], score32[order], segment[order]
        same = seg[1:] == seg[:-1]
        tie64 = same & (s64[1:] == s64[:-1])
        tie32 = same & (s32[1:] == s32[:-1]) & ~tie64
        for key, pairs, text in (
            ("R15.tie", tie64, "share their score with another document"),
            (
                "R15.float32",
                tie32,
                "tie with another only at float32 precision (trec_eval "
                "9.x ties them, 10.0 does not)",
            ),
        ):
            if not pairs.any():
                continue
            member = np.zeros(len(order), bool)
            member[:-1] |= pairs
            member[1:] |= pairs
            count = np.bincount(seg[member], minlength=seg[-1] + 1)
            first_line = np.full(seg[-1] + 1, np.iinfo(np.int64).max)
            np.minimum.at(first_line, seg[member], rows.line[order[member]])
            tied = np.flatnonzero(count)
            tied = self._once(key, tied, [qname[t] for t in tied])

            def message(i: int, tied=tied, count=count, text=text) -> str:
                t = tied[i]
                if count[t] == length[t] and text.startswith("share"):
                    return (
                        f"all {count[t]} documents of topic {qname[t]} have the same score; "
                        "trec_eval orders them by docno, descending"
                    )
                return (
                    f"{count[t]} documents of topic {qname[t]} {text}; trec_eval orders "
                    "tied documents by docno, descending"
                )

            self.report.add_many(key, first_line[tied], "score", message)

    def _judged(self, rows: _Rows, codes, names_array) -> None:
        in_qrels = np.array([n in self.qrels.topics for n in names_array.to_pylist()], bool)
        keep = np.flatnonzero(in_qrels[codes] & ~np.isnan(rows.score))
        if not len(keep):
            return
        index = arrow.array(keep)
        table = pa.table(
            {
                "qid": rows.qid.take(index),
                "docno": rows.docno.take(index),
                "score": arrow.array(rows.score[keep]),
            }
        )
        ranked = rank_run(table)
        # a mask, not an expression: filtering by expression loads pyarrow.dataset (pandas)
        top = ranked.filter(pc.less_equal(ranked.column("rank"), arrow.scalar(10)))
        keys = _pair_text(top.column("qid"), top.column("docno"))
        judged = arrow.to_numpy(pc.is_in(keys, value_set=self.qrels.judged))
        self.unjudged[0] += int(np.count_nonzero(~judged))
        self.unjudged[1] += len(judged)

    def finish(self) -> None:
        if self.stopped:
            return
        if self.carry is not None and len(self.carry):
            self._topics(self.carry)
        self.carry = None
        self._finish_file()
        if self.physical and self.records == 0:
            self.report.add("R9.empty", None, None, "no data lines")
        counts, first = self.counts_by_topic, self.first_line
        if self.min_depth is not None:
            shallow = [q for q, n in counts.items() if n < self.min_depth]
            self.report.add_many(
                "R9.shallow",
                [first[q] for q in shallow],
                "qid",
                lambda i: (
                    f"topic {shallow[i]} has {counts[shallow[i]]} documents, fewer than "
                    f"--min-depth {self.min_depth}"
                ),
            )
        if self.topics is not None:
            self._against_topics(counts, first)
        if self.qrels is not None:
            self._against_qrels(counts, first)

    def _against_topics(self, counts: dict[str, int], first: dict[str, int]) -> None:
        known = set(self.topics)
        near = {_normal_id(t): t for t in self.topics}
        unknown = [q for q in counts if q not in known]
        self.report.add_many(
            "R4",
            [first[q] for q in unknown],
            "qid",
            lambda i: f"topic {unknown[i]!r} is not in --topics{_near_miss(unknown[i], near)}",
        )
        near_run = {_normal_id(q): q for q in counts}
        missing = [t for t in self.topics if t not in counts]
        self.report.add_many(
            "R5",
            [None] * len(missing),
            None,
            lambda i: (
                f"topic {missing[i]!r} of --topics has no document in the run"
                f"{_near_miss(missing[i], near_run)}"
            ),
        )

    def _against_qrels(self, counts: dict[str, int], first: dict[str, int]) -> None:
        judged = self.qrels.topics
        near = {_normal_id(t): t for t in judged}
        absent = [q for q in counts if q not in judged]
        self.report.add_many(
            "X1",
            [first[q] for q in absent],
            "qid",
            lambda i: (
                f"topic {absent[i]!r} is not in the qrels: trec_eval ignores it"
                f"{_near_miss(absent[i], near)}"
            ),
        )
        fatal = [q for q in counts if q in self.qrels.negative_only]
        self.report.add_many(
            "X5",
            [first[q] for q in fatal],
            "qid",
            lambda i: (
                f"every judgment of topic {fatal[i]!r} is negative: trec_eval stops with "
                "'Can't calculate measure' (exit 4)"
            ),
        )
        missing = sorted(t for t in judged if t not in counts)
        self.report.add_many(
            "X2",
            [None] * len(missing),
            None,
            lambda i: (
                f"qrels topic {missing[i]!r} has no document in the run: trec_eval skips "
                "it, or scores it 0 with -c"
            ),
        )
        if counts and not any(q in judged for q in counts):
            self.report.add(
                "X3",
                None,
                None,
                "no topic is in both the run and the qrels (trec_eval exits 7)",
            )
        unjudged, total = self.unjudged
        if total:
            self.report.add(
                "X4",
                None,
                None,
                f"{unjudged} of {total} documents in the top 10 of judged topics are unjudged "
                f"({100 * unjudged / total:.1f}%)",
            )


def _first_descent(sequence: list[str]) -> int | None:
    """Index of the first id smaller than its predecessor (numerically if all are digits)."""
    if all(s.isdigit() and s.isascii() for s in sequence):
        values = [int(s) for s in sequence]
    else:
        values = [s.encode() for s in sequence]
    for i in range(1, len(values)):
        if values[i] < values[i - 1]:
            return i
    return None


def _show(value: float) -> str:
    return repr(float(value))


def _bad_score(value: str) -> str:
    lowered = value.lower().lstrip("+-")
    if lowered in ("nan", "inf", "infinity"):
        return f"score {value!r} is not finite (trec_eval sorts it arbitrarily)"
    return f"score {value!r} is not an ASCII decimal number (trec_eval's atof reads a prefix or 0)"


# ---------------------------------------------------------------------------------------
# qrels


class _QrelsChecker(_Checker):
    kind = "qrels"
    field_names = QRELS_FIELDS

    def __init__(self, path: str, report: _Report, relevance_level: int, collect_judged: bool):
        super().__init__(path, report)
        self.relevance_level = relevance_level
        self.collect_judged = collect_judged
        self.max_grade: dict[str, int] = {}
        self.first_line: dict[str, int] = {}
        self.judged: list[pa.Array] = []
        self.last_comment_line = -1
        self.last_record_line = -1

    def _blank(self, lines: np.ndarray) -> None:
        self.report.add_many(
            "Q2", lines, "line", lambda _: "blank line (trec_eval stops: 'Malformed line')"
        )

    def _rows(self, tokens: Tokens) -> None:
        fields, nf, line = tokens.fields, tokens.nfields, tokens.line
        comment, header = _classify(tokens, self.lenient, self.records == 0, 3)
        add = self.report.add_many
        commented = line[comment]
        add(
            "Q8.comment",
            commented,
            "line",
            lambda _: "comment line (trec_eval 9.x reads it as data; 10.0 skips it)",
        )
        follows = np.diff(commented, prepend=self.last_comment_line) == 1
        add(
            "Q8.fatal",
            commented[follows],
            "line",
            lambda _: "second comment line in a row (trec_eval 10.0 fails or misreads it)",
        )
        if len(commented):
            self.last_comment_line = int(commented[-1])
        self.last_record_line = int(line[-1])
        for row in np.flatnonzero(header):
            self.report.add(
                "Q9", int(line[row]), "line", "header line: TREC qrels have no header; remove it"
            )
        records = ~comment & ~header
        self.records += int(np.count_nonzero(records))
        wrong = np.flatnonzero((nf != 4) & records)

        def wrong_message(i: int) -> str:
            count = int(nf[wrong[i]])
            hint = ""
            if count == 3:
                hint = " (3-column BEIR-style qrels? convert with 'trecbench convert')"
            return f"expected 4 fields (qid iter docno rel), found {count}{hint}"

        add("Q1", line[wrong], "line", wrong_message)
        data = (nf == 4) & records
        if not data.any():
            return
        index = arrow.array(np.flatnonzero(data))
        qid, _, docno, rel = (f.take(index) for f in fields[:4])
        self._judgments(qid, docno, rel, line[data])

    def _judgments(self, qid: pa.Array, docno: pa.Array, rel: pa.Array, line: np.ndarray):
        add = self.report.add_many
        integer, small, grades, too_big = files.parse_grades(rel)
        bad = np.flatnonzero(~integer)
        add(
            "Q3",
            line[bad],
            "rel",
            lambda i: (
                f"grade {rel[int(bad[i])].as_py()!r} is not an integer (trec_eval's atol "
                "reads 1.5 as 1 and abc as 0)"
            ),
        )
        huge = np.flatnonzero(too_big)
        add(
            "Q4",
            line[huge],
            "rel",
            lambda i: (
                f"grade {rel[int(huge[i])].as_py()} is beyond +-{files.MAX_GRADE:,} (trec_eval's "
                "nDCG would run for hours)"
            ),
        )
        negative = np.flatnonzero(small & (grades < 0))
        add(
            "Q6",
            line[negative],
            "rel",
            lambda i: (
                f"negative grade {grades[negative[i]]}: trec_eval treats the document as "
                "judged but not relevant and leaves it out of num_rel"
            ),
        )
        encoded = pc.dictionary_encode(qid)
        codes = arrow.to_numpy(encoded.indices).astype(np.int64)
        names = encoded.dictionary.to_pylist()
        first, second, hits = self._duplicates_of(encoded.dictionary, codes, docno, line)

        def duplicate(i: int) -> str:
            a, b = rel[int(first[i])].as_py(), rel[int(second[i])].as_py()
            grade = f"same grade {a}" if a == b else f"conflicting grades {a} and {b}"
            return (
                f"duplicate judgment of {docno[int(second[i])].as_py()} for topic "
                f"{names[codes[second[i]]]} (first at line {line[first[i]]}; {grade})"
            )

        add("Q5", line[second], "docno", duplicate)
        add(
            "Q5",
            line[hits],
            "docno",
            lambda i: (
                f"duplicate judgment of {docno[int(hits[i])].as_py()} for topic "
                f"{names[codes[hits[i]]]} (judged in an earlier part of the file)"
            ),
        )
        # per topic: the highest grade and the first line
        top = np.full(len(names), np.iinfo(np.int64).min)
        np.maximum.at(top, codes[small], grades[small])
        starts = np.full(len(names), np.iinfo(np.int64).max)
        np.minimum.at(starts, codes, line)
        for name, grade, start in zip(names, top, starts, strict=True):
            self.max_grade[name] = max(self.max_grade.get(name, int(grade)), int(grade))
            self.first_line.setdefault(name, int(start))
        if self.collect_judged:
            judged = small & (grades >= 0)
            index = arrow.array(np.flatnonzero(judged))
            self.judged.append(_pair_text(qid.take(index), docno.take(index)))

    def finish(self) -> None:
        if self.stopped:
            return
        self._finish_file()
        if self.physical and self.records == 0:
            self.report.add("R9.empty", None, None, "no judgments")
        if self.last_record_line >= 0 and self.last_comment_line == self.last_record_line:
            self.report.add(
                "Q8.fatal",
                self.last_record_line,
                "line",
                "comment on the last line (trec_eval 10.0 fails or misreads it)",
            )
        negative = [q for q, g in self.max_grade.items() if g < 0]
        self.report.add_many(
            "Q10",
            [self.first_line[q] for q in negative],
            "qid",
            lambda i: (
                f"every judgment of topic {negative[i]} is negative: trec_eval stops "
                "('Can't calculate measure', exit 4) if a run has this topic"
            ),
        )
        level = self.relevance_level
        unjudged = [q for q, g in self.max_grade.items() if 0 <= g < level]
        self.report.add_many(
            "Q7",
            [self.first_line[q] for q in unjudged],
            "qid",
            lambda i: (
                f"topic {unjudged[i]} has no relevant document (grade >= {level}): it "
                "scores 0 on every measure"
            ),
        )

    def info(self) -> QrelsInfo:
        judged = None
        if self.collect_judged:
            judged = (
                pa.concat_arrays(self.judged) if self.judged else arrow.array([], pa.large_string())
            )
        negative = frozenset(q for q, g in self.max_grade.items() if g < 0)
        return QrelsInfo(set(self.max_grade), judged, negative)


# ---------------------------------------------------------------------------------------
# public API


def _checker(
    kind: str,
    path: str,
    report: _Report,
    *,
    max_depth: int | None = 100,
    topics: str | os.PathLike | Iterable[str] | None = None,
    qrels: QrelsInfo | None = None,
    min_depth: int | None = None,
    docid_regex: str | None = None,
    expected_tag: str | None = None,
    relevance_level: int = 1,
    collect_judged: bool = False,
) -> _Checker:
    if kind == "qrels":
        return _QrelsChecker(path, report, relevance_level, collect_judged)
    if kind != "run":
        raise ValueError(f"kind must be 'run' or 'qrels', not {kind!r}")
    if isinstance(topics, (str, os.PathLike)):
        topics = read_topics(topics)
    return _RunChecker(
        path,
        report,
        max_depth=max_depth,
        min_depth=min_depth,
        topics=topics,
        qrels=qrels,
        docid_regex=docid_regex,
        expected_tag=expected_tag,
    )


def check_tokens(
    tokens: Tokens,
    kind: str,
    *,
    profile: str = "default",
    max_depth: int | None = 100,
    topics: Iterable[str] | None = None,
    qrels_topics: Iterable[str] | QrelsInfo | None = None,
    limit: int = DEFAULT_LIMIT,
    **options,
) -> list[Finding]:
    """Findings for tokens already in memory (``kind``: ``"run"`` or ``"qrels"``).

    ``qrels_topics``: the qrels' topic ids for X1-X3, or a :class:`QrelsInfo` (from
    :func:`qrels_info`) for X5 as well.

    ``trecbench score`` calls it with ``profile="lenient"``: any error means trec_eval would
    fail or compute wrong numbers on this input. ``options``: ``min_depth``,
    ``docid_regex``, ``expected_tag`` (runs), ``relevance_level`` (qrels).
    """
    report = _Report(tokens.path, profile, limit)
    qrels = qrels_topics
    if qrels is not None and not isinstance(qrels, QrelsInfo):
        qrels = QrelsInfo(set(qrels))
    checker = _checker(
        kind, tokens.path, report, max_depth=max_depth, topics=topics, qrels=qrels, **options
    )
    checker.feed(tokens)
    checker.finish()
    return report.findings()


def _prefetched(items: Iterator) -> Iterator:
    """``items``, produced one ahead by a thread.

    Tokenizing the next chunk (pyarrow and numpy, mostly without the GIL) overlaps with
    checking this one: about 20% faster on two cores, for one more chunk in memory.
    """
    slot: queue.Queue = queue.Queue(maxsize=1)
    stop = threading.Event()
    end = object()

    def put(item) -> bool:
        while not stop.is_set():
            try:
                slot.put(item, timeout=0.05)
                return True
            except queue.Full:
                continue
        return False

    def produce() -> None:
        try:
            for item in items:
                if not put(item):
                    return
            put(end)
        except BaseException as error:  # noqa: BLE001 - raised again by the consumer
            put(error)

    thread = threading.Thread(target=produce, daemon=True)
    thread.start()
    try:
        while (item := slot.get()) is not end:
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:
        stop.set()
        thread.join()


def _stream(checker: _Checker, path, keep: int, chunk_bytes: int, progress=None) -> None:
    lines = 0
    try:
        for tokens in _prefetched(files.iter_tokens(path, keep, chunk_bytes)):
            checker.feed(tokens)
            lines += tokens.n_physical_lines
            if progress is not None:
                progress(str(path), lines)
            if checker.stopped:
                break
    except InputError as error:
        if error.rule != "R27":
            raise
        checker.report.add("R27", error.line, None, error.message)
    checker.finish()


def validate_run(
    path: str | os.PathLike,
    *,
    profile: str = "default",
    qrels: str | os.PathLike | QrelsInfo | None = None,
    limit: int = DEFAULT_LIMIT,
    chunk_bytes: int = CHUNK_BYTES,
    progress: Callable[[str, int], None] | None = None,
    **options,
) -> ValidationResult:
    """Validate a run file (plain or .gz), streaming it chunk by chunk.

    ``qrels`` is a qrels file or a :class:`QrelsInfo` for the cross-file checks (X1-X4).
    ``options``: ``max_depth`` (default 100; None for no limit), ``min_depth``, ``topics``
    (a topics file or a list of ids: R4, R5), ``docid_regex``, ``expected_tag``. At most
    ``limit`` findings are kept per check; ``counts`` has the totals. ``progress(path,
    lines)`` is called after each chunk with the physical lines read so far.
    """
    if qrels is not None and not isinstance(qrels, QrelsInfo):
        qrels = validate_qrels(qrels, collect_judged=True).qrels_info
    report = _Report(str(path), profile, limit)
    checker = _checker("run", str(path), report, qrels=qrels, **options)
    _stream(checker, path, 6, chunk_bytes, progress)
    return checker.result(len(checker.counts_by_topic))


def validate_qrels(
    path: str | os.PathLike,
    *,
    profile: str = "default",
    relevance_level: int = 1,
    limit: int = DEFAULT_LIMIT,
    chunk_bytes: int = CHUNK_BYTES,
    collect_judged: bool = False,
    progress: Callable[[str, int], None] | None = None,
) -> ValidationResult:
    """Validate a qrels file (plain or .gz), streaming it chunk by chunk.

    With ``collect_judged`` the result's ``qrels_info`` also holds the judged pairs that
    the run check X4 (unjudged documents in the top 10) needs.
    """
    report = _Report(str(path), profile, limit)
    checker = _checker(
        "qrels", str(path), report, relevance_level=relevance_level, collect_judged=collect_judged
    )
    _stream(checker, path, 4, chunk_bytes, progress)
    return checker.result(len(checker.max_grade), checker.info())


def validate_files(
    runs: Sequence[str | os.PathLike],
    *,
    qrels: str | os.PathLike | None = None,
    profile: str = "default",
    tag_is_filename: bool = False,
    progress: Callable[[str, int], None] | None = None,
    **options,
) -> list[ValidationResult]:
    """Validate the qrels (if any) once, then each run against it; qrels result first."""
    results = []
    info = None
    if qrels is not None:
        result = validate_qrels(
            qrels, profile=profile, collect_judged=bool(runs), progress=progress
        )
        results.append(result)
        info = result.qrels_info
    for run in runs:
        expected = run_name(run) if tag_is_filename else None
        results.append(
            validate_run(
                run,
                profile=profile,
                qrels=info,
                expected_tag=expected,
                progress=progress,
                **options,
            )
        )
    return results


def run_name(path: str | os.PathLike) -> str:
    """A run file's name without the usual extensions (``bm25.run.gz`` -> ``bm25``)."""
    name = Path(path).name
    for suffix in (".gz", ".run", ".trec", ".txt", ".tsv", ".res"):
        name = name.removesuffix(suffix)
    return name


def check_regex(pattern: str) -> None:
    """Raise ValueError if ``pattern`` is not a valid (RE2) regular expression."""
    try:
        pc.match_substring_regex(arrow.array([""]), f"^(?:{pattern})$")
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as error:
        raise ValueError(f"invalid regular expression {pattern!r}: {error}") from None


# ---------------------------------------------------------------------------------------
# --fix


@dataclass(frozen=True)
class Change:
    """One kind of change ``--fix`` made: how many lines, and the first of them."""

    what: str
    count: int
    lines: tuple[int, ...]

    def format(self) -> str:
        shown = ", ".join(map(str, self.lines))
        more = ", ..." if self.count > len(self.lines) else ""
        return f"{self.what}: {self.count} line(s) ({shown}{more})" if shown else self.what

    def to_dict(self) -> dict:
        return {"change": self.what, "count": self.count, "lines": list(self.lines)}


def fix_run(
    path: str | os.PathLike,
    out: str | os.PathLike,
    *,
    profile: str = "default",
    max_depth: int | None = 100,
    result: ValidationResult | None = None,
    inputs: Sequence[str | os.PathLike] = (),
    shown: int = 20,
) -> list[Change]:
    """Write the canonical form of a run to ``out`` and return every change made.

    Canonical: tab-separated ``qid Q0 docno rank score tag``; topics in byte-wise qid
    order, documents in trec_eval order (score desc as float32, docno desc); the first
    occurrence of a duplicate kept; at most ``max_depth`` documents per topic; ranks
    1..n; scores in the shortest text that reads back as the same double. Blank, comment
    and header lines and tokens after the tag are dropped. Refuses (:class:`UnfixableError`)
    if the run has errors that cannot be repaired safely (bad scores or ids, encoding,
    mixed tags...), and never overwrites ``path`` or any of ``inputs``.
    """
    if result is None:
        result = validate_run(path, profile=profile, max_depth=max_depth)
    blocking = [f for f in result.findings if f.severity == "error" and f.check not in FIXABLE]
    if blocking:
        rules = ", ".join(sorted({f.rule for f in blocking}, key=_rule_sort_key))
        raise UnfixableError(f"{path}: --fix cannot repair {rules}; first: {blocking[0].format()}")
    data = files.read_bytes(path)
    tokens = files.tokenize(data, str(path))
    comment, header = _classify(tokens, profile == "lenient", True, 4)
    keep = (tokens.nfields >= 6) & ~comment & ~header
    index = arrow.array(np.flatnonzero(keep))
    qid, q0, docno, rank, score, tag = (f.take(index) for f in tokens.fields[:6])
    line = tokens.line[keep]
    table = pa.table(
        {
            "qid": qid,
            "docno": docno,
            "score": pc.cast(score, pa.float64()),
            "tag": tag,
            "line": arrow.array(line),
            "rank": rank,
        }
    )
    ranked = rank_run(table)
    pair = _pair_text(ranked.column("qid"), ranked.column("docno")).combine_chunks()
    codes = arrow.to_numpy(pc.dictionary_encode(pair).indices)
    _, first = np.unique(codes, return_index=True)
    dropped = np.setdiff1d(np.arange(ranked.num_rows), first)
    duplicates = np.sort(arrow.to_numpy(ranked.column("line"))[dropped])
    deduped = rank_run(ranked.take(arrow.array(np.sort(first))).drop_columns(["rank"]))
    final = truncate(deduped, max_depth)
    cut = np.sort(
        arrow.to_numpy(
            pc.filter(
                deduped.column("line"),
                pc.invert(pc.is_in(deduped.column("line"), value_set=final.column("line"))),
            )
        )
    )

    kept_lines = arrow.to_numpy(final.column("line"))
    rows = np.searchsorted(line, kept_lines)  # line numbers are increasing: row of each
    raw_rank = arrow.to_numpy(rank.take(arrow.array(rows)))
    new_rank = arrow.to_numpy(pc.cast(final.column("rank"), pa.string()))
    raw_score = arrow.to_numpy(score.take(arrow.array(rows)))
    new_score = arrow.to_numpy(files.format_scores(arrow.to_numpy(final.column("score"))))
    fields6 = [f.take(index) for f in tokens.fields[:6]]
    canonical_input = pc.binary_join_element_wise(*fields6, arrow.scalar("\t", fields6[0].type))
    raw = files.raw_lines(data)
    raw_kept = pc.utf8_rtrim(raw.take(arrow.array(line - 1)), "\n")
    spaced = line[~arrow.to_numpy(pc.equal(raw_kept, canonical_input.cast(raw_kept.type)))]
    spaced = np.intersect1d(spaced, kept_lines)
    nf = tokens.nfields

    def change(what: str, lines) -> Change:
        lines = np.sort(np.asarray(lines, np.int64))
        return Change(what, len(lines), tuple(int(n) for n in lines[:shown]))

    moved = kept_lines[1:][np.diff(kept_lines) < 0]
    candidates = [
        change("dropped blank lines", tokens.blank_lines),
        change("dropped comment lines", tokens.line[comment]),
        change("dropped the header line", tokens.line[header]),
        change("dropped tokens after the tag", tokens.line[keep & (nf > 6)]),
        change("dropped duplicate documents (kept the first in trec_eval order)", duplicates),
        change(f"dropped documents beyond --max-depth {max_depth}", cut),
        change("moved into trec_eval order (qid, score desc, docno desc)", moved),
        change(
            "set field 2 to Q0", line[arrow.to_numpy(pc.not_equal(q0, arrow.scalar("Q0", q0.type)))]
        ),
        change("renumbered ranks 1..n", kept_lines[raw_rank != new_rank]),
        change("rewrote scores in shortest round-trip form", kept_lines[raw_score != new_score]),
        change("normalised separators and line ends to single tabs and LF", spaced),
    ]
    changes = [c for c in candidates if c.count]
    files.write_run(files.to_pandas(final), out, inputs=[path, *inputs])
    return changes
