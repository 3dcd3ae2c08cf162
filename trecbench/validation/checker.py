"""What run and qrels checkers share: bytes and encoding, comments and headers, duplicates.

A checker is fed :class:`trecbench.inputs.trec_text.Tokens` chunk by chunk (:mod:`.reader`)
and reports into a :class:`~.findings.Collector`; every check is vectorised over the columns
(numpy and pyarrow, no Python loop per line). State kept between chunks is per topic plus
a 64-bit hash per (qid, docno) with its first line (:class:`SeenKeys`) to find duplicates
of topics that come back in several blocks, named by their first line whatever the chunks.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from typing import NamedTuple

import numpy as np
import pyarrow as pa

from .. import arrow
from .. import arrow_compute as pc
from ..compressions import compression_of
from ..errors import EMPTY_FILE
from ..hash_index import string_hash
from ..inputs import trec_text
from ..inputs.trec_text import RUN_FIELDS, Tokens
from ..inputs.unconverted import columns_message
from ..invisible import INVISIBLE
from ..text_encoding import wide_encoding, wide_file
from . import wording
from .duplicates import SeenKeys, duplicate_pairs
from .findings import Collector, ValidationResult
from .headers import classify

# what ends a field of TREC text (C isspace, NUL), or what the byte checks flag in one (other
# C0 controls and DEL: R23.control; Unicode blanks and zero-width characters: R2, R6): the
# writers refuse it and convert escapes it, one definition
HOSTILE_ID = trec_text.CHARACTERS_NO_TREC_ID_HOLDS
# as Python's: \x{0085} -> \u0085, \x{E0000} -> \U000E0000
_HOSTILE_CHAR = re.compile(trec_text.python_pattern(HOSTILE_ID))
_FIELD_ENDS = {
    " ": "a space",
    "\t": "a tab",
    "\n": "a line feed",
    "\r": "a carriage return",
    "\v": "a vertical tab",
    "\f": "a form feed",
    "\0": "a NUL",
}


# R2's and R6's message when no field read holds the character (one past the kept fields)
CRLF_END = "CRLF line end (Windows)"  # R24, of a run line or an ir_metadata block's
_INVISIBLE_MESSAGE = (
    "Unicode blank, zero-width, C1 control or other invisible character (part of the field "
    "to trec_eval, not a separator)"
)


def invisible_character(text: str, start: int = 0) -> tuple[str, int] | None:
    """The first Unicode blank, C1 control or other invisible character (R2, R6) of
    ``text`` from ``start`` on, named (``U+00A0 (NO-BREAK SPACE)``), and its 1-based
    character position; None when ``text`` holds none."""
    found = INVISIBLE.search(text, start)
    if found is None:
        return None
    char = found.group()
    name = "a C1 control" if "\x80" <= char <= "\x9f" else unicodedata.name(char, "unnamed")
    return f"U+{ord(char):04X} ({name})", found.start() + 1


def invisible_message(field: str, text: str, start: int = 0) -> str:
    """R2's or R6's message of the field ``field`` (its name), read as ``text``."""
    found = invisible_character(text, start)
    if found is None:
        return _INVISIBLE_MESSAGE
    named, at = found
    return (
        f"{named} at character {at} of the {field} {wording.quoted(text)}: invisible, and "
        "part of the field to trec_eval, not a separator"
    )


def hostile_id(what: str, text: str) -> str:
    """R31's message for the id ``text`` (field ``what``): its first character where a
    field of TREC text ends, else its first other bad character, and why it is bad. The id
    is quoted as every finding quotes one (:func:`~.wording.quoted`; printed ``%XX``
    escaped, which ``unquote`` undoes): as Python's ``repr`` cut at 40 characters, ``c\x01``
    read like the id of those four characters, and two long ids alike but for their ends
    read as one."""
    ends = (c for c in text if c in _FIELD_ENDS)  # what no TREC file can hold, named first
    char = next(ends, None) or _HOSTILE_CHAR.search(text).group()
    shown = wording.quoted(text)
    # where it is: a long id is quoted cut in its middle, where the character may be
    at = f"at character {text.index(char) + 1}"
    if char in _FIELD_ENDS:
        return (
            f"{what} {shown} holds {_FIELD_ENDS[char]} {at}, where a field of TREC text ends: no "
            "TREC file can hold it (`write_run`, `fuse` and trec_eval's text output refuse "
            "it; `convert` percent-escapes it)"
        )
    control = char < " " or "\x7f" <= char <= "\x9f"  # C0, DEL, C1
    kind = "control character" if control else "invisible character"
    return (
        f"{what} {shown} holds the {kind} U+{ord(char):04X} {at}, which the checks of a TREC file "
        "flag (R23, R2, R6): it looks like nothing, and a judgment spelled without it never "
        "matches (`write_run` and `fuse` refuse it in TREC text; `convert` percent-escapes it)"
    )


def _beyond_printable_ascii(column: pa.Array) -> bool:
    """Whether any byte of the strings of ``column`` is not printable ASCII (a blank, a
    control, DEL or part of a non-ASCII character): one pass over its data buffer."""
    if len(column) == 0 or column.buffers()[2] is None:
        return False
    width = np.int64 if pa.types.is_large_string(column.type) else np.int32
    bounds = np.frombuffer(column.buffers()[1], width)[[column.offset, column.offset + len(column)]]
    data = np.frombuffer(column.buffers()[2], np.uint8)[bounds[0] : bounds[1]]
    return bool(((data - np.uint8(0x21)) >= 0x5E).any())  # outside 0x21-0x7E: wraps around


def _messages(what: str, texts: list[str]):
    """``message(i)``: :func:`hostile_id` of ``texts[i]`` (for :meth:`Collector.add_many`)."""
    return lambda i: hostile_id(what, texts[i])


def pair_text(qid, docno) -> pa.Array:
    """``qid<TAB>docno`` (large strings), the exact key of a judgment."""
    large = pa.large_string()
    return pc.binary_join_element_wise(
        pc.cast(qid, large), pc.cast(docno, large), arrow.scalar("\t", large)
    )


def segment_starts(codes: np.ndarray) -> np.ndarray:
    """Rows where a run of equal ``codes`` starts (the first row included)."""
    return np.concatenate(([0], np.flatnonzero(codes[1:] != codes[:-1]) + 1)).astype(np.int64)


def first_per_segment(rows: np.ndarray, segment: np.ndarray) -> np.ndarray:
    """Among ``rows`` (ascending), the first one of each segment."""
    if len(rows) == 0:
        return rows
    _, first = np.unique(segment[rows], return_index=True)
    return rows[first]


class Verdict(NamedTuple):
    """A whole-file finding said of a file's first data lines (its ``check``), and whether
    later lines bear it out (``holds(tokens)``)."""

    check: str
    holds: Callable[[Tokens], bool]


class Checker:
    """The checks runs and qrels share; subclasses check the rows (``_rows``)."""

    kind = "run"
    field_names: tuple[str, ...] = RUN_FIELDS
    swapped_check = "R29"  # the check that says this file looks like the other kind
    # what a duplicate names of the first occurrence: its line (qrels: and its grade)
    duplicate_numbers = 1

    def __init__(self, path: str, report: Collector):
        self.path, self.report = path, report
        self.physical = 0
        self.cut_short = False  # the stream broke off (R27): no line read is not "empty"
        self.records = 0  # data lines that are not comments or a header
        # a line that is not a comment read (a header too): the header is looked for there
        self.first_record_read = False
        self.read_as_data = 0  # lines trec_eval 9.0.8 reads (comments too): R9.empty
        self.ends_with_newline = True
        # refused at its first bytes (UTF-16, double gzip): read no further
        self.stopped = False
        # not read as this kind: stopped, or a whole-file verdict that held to the end
        self.refused = False
        # a whole-file verdict (what convert reads, the other kind) stands for the findings
        # of every line, held apart until a line breaks it: decided by the first data lines
        # (whichever chunk they are in), weighed against every later chunk
        self.decided = False
        self.verdict: Verdict | None = None
        self.seen_keys = SeenKeys(width=self.duplicate_numbers)  # keys of earlier chunks
        # what the file's line numbers are, as a finding citing another one names it
        self.unit = "line"
        self.block_tag = None  # the tag an ir_metadata block atop a run gives

    def _classify(self, tokens: Tokens, number: int) -> tuple[np.ndarray, np.ndarray]:
        """:func:`classify` of a chunk, a header looked for at the file's first record
        only: a header alone in a chunk made the next chunk's first record one too."""
        comment, header = classify(tokens, not self.first_record_read, number)
        self.first_record_read = self.first_record_read or not comment.all()
        return comment, header

    def feed(self, tokens: Tokens) -> None:
        if self.stopped:
            return
        if tokens.rows:  # a Parquet file's rows: it has no lines
            self.unit = "row"
        if tokens.n_physical_lines:
            starts = self.physical == 0
            self.physical += tokens.n_physical_lines
            self.ends_with_newline = tokens.ends_with_newline
            if starts and self._head(tokens):
                self.stopped = self.refused = True
                self.physical = 0  # not TREC text: no line of it is counted
                return
        if len(tokens):
            self._weigh(tokens)
        with self.report.apart(hold=not self.decided or self.verdict is not None):
            if tokens.ir_metadata is not None:
                self._ir_metadata(tokens.ir_metadata)
            self._bytes(tokens)
            if tokens.table:
                self._ids(tokens)
            if len(tokens):
                self._rows(tokens)

    def _weigh(self, tokens: Tokens) -> None:
        """Decide the whole-file verdict on the first data lines, or weigh it against
        later ones: a chunk it does not hold for overturns it, and the findings held apart
        are said (the verdict depends on the file, not on where its chunks end)."""
        if not self.decided:
            self.decided = True
            self.verdict = self._unconverted(tokens) or self._swapped(tokens)
            if self.verdict is None:
                self.report.release()
        elif self.verdict is not None and not self.verdict.holds(tokens):
            self.report.retract(self.verdict.check)
            self.verdict = None
            self.report.release()

    def _settle(self) -> bool:
        """At the end of the file: whether it is refused as a whole (a verdict that held
        to the end stands alone, the findings held apart dropped)."""
        if self.verdict is not None:
            self.report.discard()
            self.refused = True
        else:
            self.report.release()  # a file without data lines: nothing decided
        return self.refused

    def _ir_metadata(self, found) -> None:
        """A run's ir_metadata block: noted (R30), or bad at its line (R30.malformed)."""
        if found.error is not None:
            # FIELD "line": a line of the block, no field of a run line
            self.report.add("R30.malformed", found.error.line, "line", found.error.message)
        else:
            lines = f"lines 1-{found.lines}"
            message = (
                f"ir_metadata block ({lines}) read as metadata; trec_eval 9.0.8 cannot read "
                "the file ('Malformed line 1'), 10.0 and trecbench skip the block"
            )
            self.report.add("R30", 1, "line", message)
            self.block_tag = found.value.get("tag")  # as YAML read it (a list is no tag)
            self.report.add_many("R24", found.crlf, "line", lambda _: CRLF_END)

    def _head(self, tokens: Tokens) -> bool:
        head, add = tokens.head, self.report.add
        if encoding := wide_encoding(head):
            add("R23.utf16", None, None, wide_file(encoding))
            return True
        # the text decompressed starts as a compressed file (zstd in gzip, gzip in zstd):
        # read on, its bytes were some 20 findings of binary garbage
        if (inner := compression_of(head)) is not None:
            message = f"the file is compressed twice ({inner} inside); decompress it once more"
            add("R27", None, None, message)
            return True
        if head.startswith(trec_text.BOM):
            fix = ", or let validate --fix drop it" if self.kind == "run" else ""
            add("R23.bom", 1, self.field_names[0], trec_text.BOM_IN_FIRST_QID + fix)
        return False

    def _unconverted(self, tokens: Tokens) -> Verdict | None:
        """One finding for first data lines that are what ``trecbench convert`` reads (JSON,
        three fields on every line) and no TREC text of this kind."""
        message = trec_text.unconverted(tokens, self.kind)
        if message is None:
            return None
        check = trec_text.UNCONVERTED_RULES[self.kind]
        self.report.add(check, None, None, message)
        shape = trec_text.columns_shape(tokens, self.kind)
        said = columns_message(self.kind, shape, trec_text.beir_ready(tokens)) if shape else None
        if message != said:  # JSON, told by the file's first bytes
            return Verdict(check, lambda later: True)
        # later lines of the same shape (BEIR's header is on the first line alone)
        return Verdict(
            check,
            lambda later: (
                trec_text.unconverted(later, self.kind) is not None
                and trec_text.columns_shape(later, self.kind) == shape
            ),
        )

    def _swapped(self, tokens: Tokens) -> Verdict | None:
        """One finding for first data lines that have the other kind's shape on every line."""
        found = trec_text.other_kind(tokens, self.kind)
        if found is None:
            return None
        self.report.add(self.swapped_check, None, None, trec_text.swapped_message(found))
        return Verdict(
            self.swapped_check, lambda later: trec_text.other_kind(later, self.kind) == found
        )

    def _bytes(self, tokens: Tokens) -> None:
        add = self.report.add_many
        add(
            "R23.nul",
            tokens.nul_lines,
            "line",
            lambda _: (
                "NUL byte (trec_eval stops reading the line or the file here without a "
                "word, or crashes: 9.0.8 and 10.0 alike)"
            ),
        )
        add("R23.utf8", tokens.bad_utf8_lines, "line", lambda _: "invalid UTF-8")
        add(
            "R23.control",
            tokens.control_lines,
            "line",
            # any field's: in a rank or a score it is no id's (R10, R12 say more)
            lambda _: "C0 control character or DEL (invisible, and part of its field to trec_eval)",
        )
        add(
            "R2",
            tokens.space_control_lines,
            "line",
            lambda _: "vertical tab, form feed or lone CR: trec_eval splits fields there",
        )
        self._unicode(tokens)
        add("R24", tokens.crlf_lines, "line", lambda _: CRLF_END)
        trailing = tokens.trailing_space_lines
        control = np.isin(trailing, tokens.trailing_control_lines)
        add(
            "R25.trailing",
            trailing,
            "line",
            lambda i: (
                "trailing whitespace: a vertical tab, form feed or lone CR at the end of the "
                "line (a blank to trec_eval, which skips it)"
                if control[i]
                else "trailing blanks"
            ),
        )
        irregular = tokens.irregular_space_lines
        other = np.isin(irregular, tokens.other_separator_lines)
        used, first = ("spaces", "tabs") if tokens.separator == b"\t" else ("tabs", "spaces")
        add(
            "R25.spacing",
            irregular,
            "line",
            lambda i: (
                f"fields separated by {used}, where the file's first data line uses {first}"
                if other[i]
                else "irregular separators (tabs mixed with spaces, several blanks, or "
                "leading blanks)"
            ),
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
        bom = tokens.head.startswith(trec_text.BOM)
        for column in reversed(range(len(tokens.fields))):
            hit = trec_text.matches(
                tokens.fields[column].take(index), trec_text.UNICODE_SPACE_PATTERN
            )
            # the BOM itself is R23: the first qid's other characters are looked at
            for k in np.flatnonzero(hit & (tokens.line[rows] == 1)) if column == 0 and bom else ():
                first_qid = tokens.fields[0][int(rows[k])].as_py()
                hit[k] = invisible_character(first_qid, 1) is not None
            where[hit] = column
        # a blank between fields leaves no trace in the fields but the count: whole line
        docno = self.field_names.index("docno")
        in_docno = rows[where == docno]
        elsewhere = rows[where != docno]

        def message(row: int, column: int) -> str:
            if column < 0:  # in no field read
                return _INVISIBLE_MESSAGE
            text = tokens.fields[column][int(row)].as_py()
            start = 1 if bom and column == 0 and tokens.line[row] == 1 else 0  # R23's BOM
            return invisible_message(self.field_names[column], text, start)

        self.report.add_many(
            "R6", tokens.line[in_docno], "docno", lambda i: message(in_docno[i], docno)
        )
        columns = where[where != docno]
        names = [self.field_names[c] if c >= 0 else "line" for c in columns]
        self.report.add_many(
            "R2",
            tokens.line[elsewhere],
            lambda i: names[i],
            lambda i: message(elsewhere[i], columns[i]),
        )

    def _ids(self, tokens: Tokens) -> None:
        """R31: ids of a table's rows holding what no field of TREC text holds, or what the
        byte checks flag in a TREC file's field (a text file's ids are never checked here)."""
        for name in ("qid", "docno", "tag"):
            if name not in self.field_names:
                continue
            column = tokens.fields[self.field_names.index(name)]
            if not _beyond_printable_ascii(column):
                continue  # the usual column: no regex over millions of ids
            rows = np.flatnonzero(trec_text.matches(column, HOSTILE_ID))
            texts = column.take(arrow.array(rows[: self.report.limit])).to_pylist()
            self.report.add_many("R31", tokens.line[rows], name, _messages(name, texts))

    def _blank(self, lines: np.ndarray) -> None:
        raise NotImplementedError

    def _rows(self, tokens: Tokens) -> None:
        raise NotImplementedError

    def _finish_file(self) -> None:
        if self.physical == 0 and not self.cut_short:
            self.report.add("R26", None, None, EMPTY_FILE)
        elif not self.ends_with_newline:
            self.report.add("R25.newline", self.physical, "line", "no newline at the end of file")

    def _duplicates_of(
        self, qids: pa.Array, codes: np.ndarray, docno: pa.Array, line, rows=None, notes=None
    ) -> tuple[np.ndarray, np.ndarray]:
        """Rows repeating a (qid, docno) of an earlier row, in line order, and for each the
        numbers of the pair's first occurrence, in this chunk or an earlier one: its line,
        and its entry of ``notes`` (a number per row; qrels: the grade) after it.

        ``qids``: the chunk's distinct qids, ``codes`` each row's index into them; only the
        rows of ``rows`` (default: all) may repeat a pair of an earlier chunk."""
        # salted with the qid's hash, not its code (codes change per chunk): one key per
        # (qid, docno) in every chunk
        keys = string_hash(docno, salt=string_hash(qids)[codes])
        key_first, first, second = duplicate_pairs(keys, docno, codes, line)
        numbers = line[:, None] if notes is None else np.column_stack((line, notes))
        # a key's rows are all asked or none (one topic): its first row asks for them all
        asked = np.arange(len(key_first))
        if rows is not None:
            may = np.zeros(len(keys), bool)
            may[rows] = True
            asked = asked[may[key_first]]
        held, earlier_numbers = self.seen_keys.lookup(keys[key_first[asked]])  # ascending
        new = np.ones(len(key_first), bool)
        new[asked[held]] = False
        self.seen_keys.add(keys[key_first[new]], numbers[key_first[new]])
        if not held.any():
            return second, numbers[first]
        # every row of a pair an earlier chunk holds repeats it, named by its first line
        # there (a repeat within this chunk too, once)
        held_keys = keys[key_first[asked[held]]]
        earlier = np.flatnonzero(np.isin(keys, held_keys))
        earlier_numbers = earlier_numbers[np.searchsorted(held_keys, keys[earlier])]
        in_chunk = ~np.isin(second, earlier)
        repeats = np.concatenate((second[in_chunk], earlier))
        order = np.argsort(line[repeats], kind="stable")
        firsts = np.concatenate((numbers[first[in_chunk]], earlier_numbers))
        return repeats[order], firsts[order]

    def finish(self) -> None:
        raise NotImplementedError

    def result(self, topics: int, qrels_info=None) -> ValidationResult:
        report = self.report
        if self.refused:  # not read as this kind: no record or topic of it
            topics = self.records = 0
        counts = report.counts(lines=self.physical, records=self.records, topics=topics)
        return ValidationResult(
            self.path, self.kind, report.findings(), counts, qrels_info, dict(report.checks)
        )
