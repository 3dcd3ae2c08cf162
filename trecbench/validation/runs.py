"""The run checker: the rules of one run line (R1-R3, R6, R10, R12, R16-R19, R21, R22, R28),
then whole topic blocks to :class:`~.run_topics.TopicChecks`, then the whole file (R9, and
R4, R5, X1-X5 against ``--topics`` and qrels)."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Iterable

import numpy as np
import pyarrow as pa

from .. import arrow
from .. import arrow_compute as pc
from ..errors import NO_DATA_LINES, excerpt_plain
from ..inputs import ir_metadata, trec_text
from ..inputs.trec_text import Tokens
from . import wording
from .checker import Checker, invisible_character, segment_starts
from .cross_checks import against_qrels, against_topics, tag_names_file, too_shallow
from .docids import DocidList
from .findings import Collector, QrelsInfo
from .rules import MOST_TAGS, TAG_PATTERN
from .run_topics import Rows, TopicChecks

COMMENT_HINT = " (a comment line: trec_eval 9.x reads it as data, 10.0 skips it)"


def full_match_pattern(pattern: str) -> str:
    """The RE2 pattern (Arrow's) that matches a string when ``pattern`` matches all of it
    (``--docid-regex``); ValueError, quoting ``pattern``, when it is no regular expression
    on its own.

    Compiled alone first: wrapped at once, an unbalanced ``a)|(?:q`` became the valid
    ``^(?:a)|(?:q)$``, which matches a prefix. A pattern valid alone is whole inside
    ``(?:...)``, its top-level alternation too; only a ``\\Q`` left open quotes the
    wrapper's ``)$``, so it is closed (``\\E``) first."""
    _compiled(pattern, pattern)
    with contextlib.suppress(ValueError):
        return _compiled(f"^(?:{pattern})$", pattern)
    return _compiled(f"^(?:{pattern}\\E)$", pattern)


def _compiled(regex: str, pattern: str) -> str:
    """``regex`` once Arrow compiled it; ValueError in ``pattern``'s words otherwise."""
    try:
        pc.match_substring_regex(arrow.array([""]), regex)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as error:
        reason = " ".join(str(error).removeprefix("Invalid regular expression: ").split())
        raise ValueError(f"invalid regular expression {pattern!r}: {reason}") from None
    return regex


class RunChecker(Checker):
    def __init__(
        self,
        path: str,
        report: Collector,
        *,
        max_depth: int | None,
        min_depth: int | None,
        topics: Iterable[str] | None,
        qrels: QrelsInfo | None,
        docid_regex: str | None,
        expected_tag: str | None,
        docids: DocidList | None = None,
    ):
        super().__init__(path, report)
        self.min_depth = min_depth
        self.topics = None if topics is None else list(dict.fromkeys(topics))
        self.qrels = qrels
        self.docid_pattern = None if docid_regex is None else full_match_pattern(docid_regex)
        self.docids = docids
        self.expected_tag = expected_tag
        self.carry: Rows | None = None
        self.first_tag: str | None = None
        self.tags_seen: set[str] = set()
        self.blocks = TopicChecks(report, max_depth, qrels, self._duplicates_of, lambda: self.unit)

    @property
    def topic_count(self) -> int:
        return len(self.blocks.counts_by_topic)

    def _blank(self, lines: np.ndarray) -> None:
        self.report.add_many("R21", lines, "line", lambda _: "blank line (trec_eval skips it)")

    def _rows(self, tokens: Tokens) -> None:
        fields = tokens.fields
        comment, header = self._classify(tokens, 4)
        # comment lines stay data: trec_eval 9.x reads them as it reads any other line
        data = (tokens.nfields >= 6) & ~header
        add = self.report.add_many
        commented = np.flatnonzero(comment)

        def comment_message(i: int) -> str:
            row = commented[i]
            if tokens.nfields[row] < 6:  # trec_eval 9.x stops at it: R1 says so
                return "comment line: trec_eval 9.x reads it as data, 10.0 skips it"
            return wording.run_line_comment(fields[0][row].as_py())

        add("R22", tokens.line[commented], "line", comment_message)
        for row in np.flatnonzero(header):
            self.report.add(
                "R28",
                int(tokens.line[row]),
                "line",
                "header line: TREC runs have no header; remove it",
            )
        self.records += int(np.count_nonzero(~comment & ~header))
        self.read_as_data += int(np.count_nonzero(~header))
        nf = tokens.nfields
        short = np.flatnonzero((nf < 6) & ~header)

        def short_message(i: int) -> str:
            row = short[i]
            hint = ""
            joined = joined_fields(fields, row, min(int(nf[row]), len(fields)))
            if comment[row]:
                hint = COMMENT_HINT
            elif fields[0][row].as_py().startswith("\ufeff#"):
                pass  # a comment behind a byte-order mark (R23): no column missing
            elif joined:
                hint = joined
            elif nf[row] == 5 and fields[0][row].as_py() == "Q0":  # "  Q0 doc 9 2.9 t"
                hint = " (is the query id column missing? the line starts with Q0)"
            elif nf[row] == 5 and fields[1][row].as_py() != "Q0":
                hint = " (is the Q0 column missing?)"
            elif nf[row] == 3:
                hint = trec_text.MSMARCO_HINT
            return f"expected 6 fields (qid Q0 docno rank score tag), found {nf[row]}{hint}"

        add("R1.short", tokens.line[short], "line", short_message)
        extra = np.flatnonzero((nf > 6) & data)
        # records a lone CR (VT, FF) joins: a line of two records' fields or more
        joined = (nf[extra] >= 12) & np.isin(tokens.line[extra], tokens.space_control_lines)
        records = extra[joined]
        add(
            "R1.joined",
            tokens.line[records],
            "line",
            lambda i: (
                f"{nf[records[i]]} fields on one line split by a lone CR, vertical tab or form "
                "feed: trec_eval reads one record of them, the first (classic Mac line ends?)"
            ),
        )
        extra = extra[~joined]
        add(
            "R1.extra",
            tokens.line[extra],
            "tag",
            lambda i: (
                f"{nf[extra[i]]} fields: trec_eval ignores everything after the 6th "
                "(a tag with a space?)"
            ),
        )
        rank_given = tokens.rank_given
        if not data.all():
            index = arrow.array(np.flatnonzero(data))
            fields = [f.take(index) for f in fields[:6]]
            line = tokens.line[data]
            rank_given = None if rank_given is None else rank_given[data]
        else:
            fields, line = fields[:6], tokens.line
        if len(line):
            self._fields(fields, line, rank_given)

    def _fields(
        self, fields: list[pa.Array], line: np.ndarray, rank_given: np.ndarray | None
    ) -> None:
        """The per-line rules of the data lines' ``fields``, then their topic blocks to
        :class:`TopicChecks` (``rank_given``: :attr:`Tokens.rank_given`)."""
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
            lambda r: wording.not_q0(q0[r].as_py()),
        )
        if self.docid_pattern is not None:
            flag(
                "R6",
                ~trec_text.matches(docno, self.docid_pattern),
                "docno",
                lambda r: f"docno {wording.quoted(docno[r].as_py())} does not match --docid-regex",
            )
        if self.docids is not None:
            flag(
                "R6",
                self.docids.missing(docno),
                "docno",
                lambda r: f"docno {wording.quoted(docno[r].as_py())} is not in --docids",
            )
        ranks = trec_text.parse_ranks(rank)
        good_rank = arrow.to_numpy(pc.is_valid(ranks))
        flag(
            "R10",
            ~good_rank,
            "rank",
            lambda r: _bad_rank(rank[r].as_py()),
        )
        good_score, scores = trec_text.parse_scores(score)
        flag("R12", ~good_score, "score", lambda r: _bad_score(score[r].as_py()))
        overflow = good_score & np.isnan(scores)
        flag(
            "R12",
            overflow,
            "score",
            lambda r: f"score {excerpt_plain(score[r].as_py())} overflows a double",
        )
        flag(
            "R16",
            good_score
            & arrow.to_numpy(
                pc.or_(pc.match_substring(score, "e"), pc.match_substring(score, "E"))
            ),
            "score",
            lambda r: wording.scientific(score[r].as_py()),
        )
        self._tags(tag, line)
        ranks = arrow.to_numpy(pc.fill_null(ranks, arrow.scalar(-1)))
        if rank_given is not None:  # a made-up rank is no rank to check (as one not valid)
            ranks = np.where(rank_given, ranks, -1)
        rows = Rows(qid, docno, ranks, scores, line)
        fed = len(rows)
        if self.carry is not None:
            rows = Rows.concat(self.carry, rows)
        codes = arrow.to_numpy(pc.dictionary_encode(rows.qid).indices)
        cut = _held_back(codes, most=fed)
        self.carry = rows.slice(cut)
        if cut:
            self.blocks.check(rows.slice(0, cut))

    def _tags(self, tag: pa.Array, line: np.ndarray) -> None:
        if self.first_tag is None:
            self.first_tag = tag[0].as_py()
            if ir_metadata.contradicts_tag(self.block_tag, self.first_tag):
                message = wording.block_tag_differs(self.block_tag, self.first_tag)
                self.report.add("R30.tag", int(line[0]), "tag", message)
        new = [t for t in pc.unique(tag).to_pylist() if t not in self.tags_seen]
        capped = len(self.tags_seen) > MOST_TAGS  # the tags beyond were said (once a file)
        room = max(0, MOST_TAGS - len(self.tags_seen))
        for value in new[:room]:  # a tag per line is one R17 finding per tag: cap the lookups
            self.tags_seen.add(value)
            row = pc.index(tag, arrow.scalar(value, tag.type)).as_py()
            at = int(line[row])
            if value != self.first_tag:
                number = len(self.tags_seen)  # the first tag is seen first
                self.report.add("R17", at, "tag", wording.other_tag(value, self.first_tag, number))
            if not re.fullmatch(TAG_PATTERN, value):
                self.report.add("R18", at, "tag", wording.bad_tag(value))
            if self.expected_tag is not None and not tag_names_file(value, self.expected_tag):
                self.report.add("R19", at, "tag", wording.tag_not_name(value, self.expected_tag))
        beyond = new[room:]  # past the file's first 100 tags, not each chunk's
        if not beyond:
            return
        if capped:  # counted in the one finding said at the first of them
            self.report.add_many("R17", [], "tag", lambda _: "", count=len(beyond))
        else:
            at = int(line[pc.index(tag, arrow.scalar(beyond[0], tag.type)).as_py()])
            message = f"more than {MOST_TAGS} distinct run tags"
            self.report.add("R17", at, "tag", message, count=len(beyond))
        self.tags_seen.update(beyond)

    def finish(self) -> None:
        if self._settle():
            return
        if self.carry is not None and len(self.carry):
            self.blocks.check(self.carry)
        self.carry = None
        self.blocks.finish()
        self._finish_file()
        # a run cut short (R27) may hold the rest of its last topic, and other topics, in
        # the part never read: what it lacks is not said
        whole = not self.cut_short
        if self.physical and self.read_as_data == 0 and whole:
            self.report.add("R9.empty", None, None, NO_DATA_LINES)
        counts, first = self.blocks.counts_by_topic, self.blocks.first_line
        if self.min_depth is not None and whole:
            too_shallow(self.report, self.min_depth, counts, first)
        if self.topics is not None:
            against_topics(self.report, self.topics, counts, first, whole)
        if self.qrels is not None:
            against_qrels(self.report, self.qrels, counts, first, self.blocks.unjudged(), whole)


def _held_back(codes: np.ndarray, most: int) -> int:
    """Where to cut rows of topic ``codes`` to hold the rest back until the next chunk.

    The last topic block may go on in the next chunk. Held back with it is every topic
    block back to the last place that no topic crosses, so that a topic split into blocks
    within a chunk is checked whole (its ties are counted together): the whole of a file
    of one chunk. When that holds back more than ``most`` rows (topics scattered over the
    chunks), only the last block is held back, which bounds the memory.
    """
    last_block = int(segment_starts(codes)[-1])
    first_row = np.full(int(codes.max()) + 1, len(codes))
    np.minimum.at(first_row, codes, np.arange(len(codes)))
    # from each row on, the earliest first row of a topic there: a cut at row c leaves no
    # topic on both sides when that is c itself
    earliest = np.minimum.accumulate(first_row[codes][::-1])[::-1]
    whole = np.flatnonzero(earliest[: last_block + 1] == np.arange(last_block + 1))
    cut = int(whole[-1])
    return cut if len(codes) - cut <= most else last_block


def joined_fields(fields: list[pa.Array], row: int, count: int) -> str:
    """R1's and Q1's hint for a short line whose field ``row`` holds a Unicode blank or other
    invisible character (R2, R6), or a C0 control or DEL (R23.control: ``q1\\x1fQ0``, a
    unit separator, was hinted "is the Q0 column missing?"), which trec_eval reads as part
    of a field, not between two: ``""`` when none does."""
    for column in range(count):
        text = fields[column][row].as_py()
        # a byte order mark that starts a line is no blank between fields, but a mark
        # before it (R23.bom): `# comment` behind one is no comment to trec_eval
        probe = text[1:] if column == 0 and text and text[0] == "\ufeff" else text
        found = probe and (invisible_character(probe) or _control_character(probe))
        if found:
            return (
                f" (the {found[0]} in {wording.quoted(text)} is no separator to trec_eval: "
                "it splits fields at ASCII blanks only)"
            )
    return ""


# the C0 controls and DEL that are part of a field to trec_eval (its blanks, tab, LF, VT,
# FF and CR, end one; a NUL ends the line: R23.nul)
_CONTROL = re.compile("[\x01-\x08\x0e-\x1f\x7f]")


def _control_character(text: str) -> tuple[str, int] | None:
    """The first C0 control or DEL of ``text`` (R23.control) named as
    :func:`~.checker.invisible_character` names a character, and its 1-based position."""
    found = _CONTROL.search(text)
    if found is None:
        return None
    code = ord(found.group())
    return f"U+{code:04X} ({'DEL' if code == 0x7F else 'a C0 control'})", found.start() + 1


def _bad_rank(value: str) -> str:
    if value.isascii() and value.isdecimal():  # digits all, but too many of them
        return f"rank {trec_text.rank_too_large(wording.quoted(value))}"
    return f"rank {wording.quoted(value)} is not a non-negative integer"


def _bad_score(value: str) -> str:
    lowered = value.lower().lstrip("+-")
    if lowered == "nan":
        return f"score {wording.quoted(value)} is not a number (trec_eval sorts it arbitrarily)"
    if lowered in ("inf", "infinity"):
        side = "below" if value.startswith("-") else "above"
        return (
            f"score {wording.quoted(value)} is not finite (trec_eval 9.0.8 ties it with any "
            f"score {side} float32's range, 10.0 ranks it {side} them)"
        )
    from ..trec_eval.clib import c_atof

    read = c_atof(value)  # a prefix, a C99 hexadecimal number (0x10 is 16) or 0
    return (
        f"score {wording.quoted(value)} is not an ASCII decimal number (trec_eval's atof reads it "
        f"as {read!r})"
    )
