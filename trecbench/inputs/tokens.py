"""The tokens of TREC text: the fields of its lines, with their physical line numbers and
the byte-level findings the validator reports (made by :mod:`trecbench.inputs.trec_text`,
typed by :mod:`trecbench.inputs.trec_tables`)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa

# the longest line of TREC text read: no run's or qrels' line comes near it (the longest
# docno of the benchmark's runs is 100,000 bytes); a file without newlines, binary or
# of NUL bytes, is refused at it, where it was tokenized whole at 10 to 30 times its size
MOST_LINE_BYTES = 16 << 20


@dataclass
class Tokens:
    """Fields of the non-blank lines of (a chunk of) a file.

    ``fields[i]`` is a string array aligned with ``line``; it is null where the line has
    ``i`` fields or fewer. ``nfields`` counts all fields of a line, including those beyond
    the ones kept.

    The ``*_lines`` arrays list physical line numbers of byte-level anomalies for the
    validator: CRLF endings, VT/FF/lone CR (whitespace to trec_eval, invisible to people),
    other C0 controls and DEL, Unicode blanks (NBSP, U+3000, zero-width, BOM past the
    start), trailing blanks, and irregular separators (tabs mixed with spaces, runs of
    blanks, leading blanks). ``head`` holds the first bytes of the file when the tokens
    start it (up to :data:`~trecbench.compressions.HEAD_BYTES`: for BOM, UTF-16 and double-gzip
    sniffing, and to tell JSON, :func:`~.unconverted.json_content`); ``separator`` is the
    file's field separator (tab or space) the spacing check compared with. ``table`` marks
    the tokens of a table's rows (JSONL, Parquet, one held in memory): their ids were never
    split at blanks nor scanned as bytes, so the validator checks each id's characters
    itself (R31); ``rows`` marks a table whose lines are its file's rows (Parquet's:
    :func:`~.tables.lines_are_rows`), which findings citing another line cite as rows.
    ``rank_given`` (a table's tokens only) says per row whether the table gave its rank
    (None: every row did); a row without one has its place in trec_eval's order within the
    tokens, which the rank rules (R11, R14) do not check: a table read in chunks (JSONL)
    could only number each chunk's part of a topic on its own.
    """

    path: str
    line: np.ndarray
    nfields: np.ndarray
    fields: list[pa.Array]
    blank_lines: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))
    nul_lines: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))
    bad_utf8_lines: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))
    n_physical_lines: int = 0
    ends_with_newline: bool = True
    crlf_lines: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))
    space_control_lines: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))
    # VT/FF/lone CR with only blanks after them on their line: trailing whitespace
    trailing_control_lines: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))
    control_lines: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))
    unicode_space_lines: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))
    trailing_space_lines: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))
    irregular_space_lines: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))
    # of irregular_space_lines, those irregular only by a separator other than the file's
    other_separator_lines: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))
    # lines starting with blanks (of irregular_space_lines): a qrels '#' after them is data
    # to trec_eval 10.0 too, which skips only a '#' in the first column
    leading_blank_lines: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))
    head: bytes = b""
    separator: bytes = b""
    # the ir_metadata block atop a run (inputs.ir_metadata.Found), when the tokens start it
    ir_metadata: Any = None
    table: bool = False
    rows: bool = False
    rank_given: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.line)

    def without_lines(self, lines: np.ndarray) -> Tokens:
        """These tokens without the given physical lines (their rows and byte-level
        findings)."""
        if not len(lines):
            return self
        keep = ~np.isin(self.line, lines)
        changes = {
            "line": self.line[keep],
            "nfields": self.nfields[keep],
            "fields": [column.filter(keep) for column in self.fields],
        }
        if self.rank_given is not None:
            changes["rank_given"] = self.rank_given[keep]
        for item in dataclasses.fields(self):
            value = getattr(self, item.name)
            if item.name.endswith("_lines") and isinstance(value, np.ndarray):
                changes[item.name] = value[~np.isin(value, lines)]
        return dataclasses.replace(self, **changes)
