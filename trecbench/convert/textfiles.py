"""Tab-separated inputs of the converters (BEIR qrels, MS MARCO runs): read once (plain or
compressed), split on tabs only (a blank inside an id belongs to the id, which the converters
escape), vectorised with Arrow; every refusal names its physical line."""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.csv as csv

from .. import arrow_compute as pc
from ..errors import InputError, one_line
from ..inputs.arrow_handover import read_csv
from ..inputs.tokens import MOST_LINE_BYTES
from ..sources import Content, read_source, source_text
from .model import Findings


@dataclass
class Fields:
    """The fields of the non-empty lines of a tab-separated file."""

    source: Content  # its path and record (its bytes let go once read)
    line: np.ndarray | None  # physical 1-based line number of each row; None: row + 1
    columns: list[pa.Array]  # one large_string array per expected field (as pandas holds it)

    def line_at(self, row: int) -> int:
        """The physical line of ``row``."""
        return row + 1 if self.line is None else int(self.line[row])

    def error(self, row: int, message: str) -> InputError:
        return InputError(self.source.path, self.line_at(row), message)

    def first(self, bad: np.ndarray, message) -> None:
        """Raise at the first row where ``bad``; ``message(row)`` says why."""
        if bad.any():
            row = int(np.flatnonzero(bad)[0])
            raise self.error(row, message(row))


def read_fields(
    path: str | os.PathLike, kind: str, names: tuple[str, ...], report: Findings
) -> Fields:
    """The fields of a file whose non-empty lines have exactly ``len(names)`` tab-separated
    fields (a UTF-8 byte-order mark dropped, which ``report`` notes: trec_eval would read
    it as part of the first id; a line is empty once a final ``\\r`` is dropped); refuses
    NUL bytes, invalid UTF-8, other field counts and empty fields."""
    source = read_source(path, kind)
    if source.data.startswith(_BOM):
        report.note(
            f"{one_line(str(path))} starts with a UTF-8 byte-order mark: read as the text's "
            "encoding signature, not as part of its first field"
        )
    fields = _plain_fields(source, names) or _split_fields(source, names)
    fields.source = dataclasses.replace(source, data=b"")
    for name, column in zip(names, fields.columns, strict=True):
        fields.first(np.asarray(pc.equal(column, "")), lambda _, n=name: f"empty {n}")
    # its converted line would be longer still: refused here, at the input's line, not at
    # the output's, which validating the converted file would cite
    lengths = (
        len(names) - 1 + sum(np.asarray(pc.binary_length(c), np.int64) for c in fields.columns)
    )
    fields.first(lengths > MOST_LINE_BYTES, lambda _: _TOO_LONG)
    return fields


_TOO_LONG = (
    f"a line longer than {MOST_LINE_BYTES >> 20} MiB: no TREC line is near that long, and "
    "validate refuses the converted one (R27)"
)


def _plain_fields(source: Content, names: tuple[str, ...]) -> Fields | None:
    """The fields of a plain file, read by Arrow's CSV reader (tab-separated, no quoting;
    several times faster than splitting the text): one with no empty line, no CR, no NUL
    and lines of ``len(names)`` fields, so that row ``i`` is line ``i + 1``. None for any
    other file, which :func:`_split_fields` reads and refuses at the line at fault."""
    # not decoded here: Arrow checks the UTF-8 (ArrowInvalid: None, _split_fields refuses)
    data = source.data.removeprefix(_BOM)
    if not data or data.startswith((b"\n", _BOM)) or any(part in data for part in _NOT_PLAIN):
        return None
    try:
        table = read_csv(
            data,
            # one thread: as fast here, a fifth less memory
            read_options=csv.ReadOptions(column_names=list(names), use_threads=False),
            parse_options=csv.ParseOptions(
                delimiter="\t", quote_char=False, ignore_empty_lines=False
            ),
            convert_options=csv.ConvertOptions(
                column_types=dict.fromkeys(names, pa.large_string()),
                strings_can_be_null=False,
                quoted_strings_can_be_null=False,
            ),
        )
    except pa.ArrowInvalid:  # a line of another field count
        return None
    if table.num_rows != data.count(b"\n") + (not data.endswith(b"\n")):
        return None
    columns = []
    for name in names:  # each column's blocks let go once it is one array
        columns.append(table.column(name).combine_chunks())
        table = table.drop_columns([name])
    return Fields(source, None, columns)


_BOM = "\ufeff".encode()
# what the CSV reader would read otherwise than _split_fields: line numbers shifted by
# empty lines, CR (a line end to it, part of a field or dropped here), NUL (refused); a
# second byte-order mark (part of the first id here) it may drop
_NOT_PLAIN = (b"\n\n", b"\r", b"\0")


def _split_fields(source: Content, names: tuple[str, ...]) -> Fields:
    """The fields of any file, its whole text split on line ends, then on tabs."""
    text = source_text(source, "invalid UTF-8")  # the TREC-text readers' wording
    if "\0" in text:
        raise InputError(source.path, text.count("\n", 0, text.index("\0")) + 1, "NUL byte")
    lines = pc.list_flatten(pc.split_pattern(pa.array([text], pa.large_string()), "\n"))
    # CRLF files: one final CR dropped (another belongs to the last field, and is refused)
    lines = pc.replace_substring_regex(lines, pattern="\r$", replacement="", max_replacements=1)
    # only empty lines are blank: "\t\t" is three empty fields (refused: empty qid), a line
    # of blanks one field (refused: its field count), not lines to skip without a word
    keep = np.flatnonzero(np.asarray(pc.not_equal(lines, "")))
    if not len(keep):
        raise InputError(source.path, None, f"empty: expected lines of {' '.join(names)}")
    kept = lines.take(pa.array(keep))
    split = pc.split_pattern(kept, "\t")
    counts = np.asarray(pc.list_value_length(split))
    fields = Fields(source, keep + 1, [])

    def wrong(row: int) -> str:
        hint = " (fields are separated by tabs)" if counts[row] == 1 else ""
        if "\r" in kept[row].as_py():  # old Macs' line ends: the file one line, its fields many
            hint = " (lines end in a lone CR here: only LF or CRLF end a line)"
        return f"expected {len(names)} fields ({' '.join(names)}), found {counts[row]}{hint}"

    fields.first(counts != len(names), wrong)
    fields.columns = [pc.list_element(split, i) for i in range(len(names))]
    return fields
