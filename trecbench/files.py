"""Reading and writing TREC qrels and run files.

Two layers:

* :func:`tokenize` / :func:`iter_tokens` turn raw bytes into whitespace-separated fields
  (C ``isspace`` semantics, like trec_eval) with the **physical 1-based line number** of every
  line, plus the byte-level anomalies (blank lines, NUL bytes, invalid UTF-8) the validator
  reports. A byte-scan picks a fast path (pyarrow's multithreaded CSV reader,
  :func:`_read_regular`) for regular single-separator files and falls back to a vectorised
  whitespace split otherwise; neither loops in Python per line.
* :func:`run_table` / :func:`qrels_table` convert tokens into typed tables (string ids,
  float64 score, integer rank/relevance, the line number), raising :class:`InputError` with
  ``file:line`` for anything that would make trec_eval silently wrong. What a valid score
  or rank is (:func:`parse_scores`, :func:`parse_ranks`) the validator uses too.
* :func:`read_regular_run` reads a regular run file (the scoring path's common case)
  straight into typed columns with the same CSV reader, skipping the tokens.

``read_run`` and ``read_qrels`` combine both and return pandas DataFrames; ids are strings
and are never type-inferred (``001``, ``NA``, ``1e5`` survive unchanged).
"""

from __future__ import annotations

import contextlib
import gzip
import io
import os
import zlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pv

from . import arrow, outputs
from .errors import InputError

RUN_FIELDS = ("qid", "q0", "docno", "rank", "score", "tag")
QRELS_FIELDS = ("qid", "iter", "docno", "rel")

# ASCII grammars: Python's float()/int() would accept nan, inf, 1_000, Unicode digits.
SCORE_PATTERN = r"^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?$"
REL_PATTERN = r"^[+-]?[0-9]+$"  # C's atol reads "+1" as 1 (trec_eval accepts it)

GZIP_MAGIC = b"\x1f\x8b"
BOM = b"\xef\xbb\xbf"
DEFAULT_CHUNK_BYTES = 64 << 20
_C_SPACE = b" \t\r\v\f"
# C0 controls and DEL that are not whitespace to trec_eval (NUL is reported on its own)
_CONTROL_BYTES = bytes([*range(1, 9), *range(14, 32), 127])
# Unicode whitespace, zero-width and bidi characters that look like nothing or a blank
UNICODE_SPACE_PATTERN = (
    r"[\x{0085}\x{00A0}\x{1680}\x{180E}\x{2000}-\x{200F}\x{2028}-\x{202F}"
    r"\x{205F}-\x{2064}\x{3000}\x{FEFF}]"
)


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
    start it (for BOM, UTF-16 and double-gzip sniffing); ``separator`` is the file's field
    separator (tab or space) the spacing check compared with.
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
    control_lines: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))
    unicode_space_lines: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))
    trailing_space_lines: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))
    irregular_space_lines: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))
    head: bytes = b""
    separator: bytes = b""

    def __len__(self) -> int:
        return len(self.line)


# ---------------------------------------------------------------------------------------
# bytes


def _open_binary(path: str | os.PathLike) -> io.BufferedIOBase:
    """Open a file for reading bytes, transparently un-gzipping it (detected by magic)."""
    outputs.note_input(path)
    try:
        raw = open(path, "rb")  # noqa: SIM115 - returned to the caller
    except OSError as exc:
        raise InputError(str(path), None, f"cannot read: {exc.strerror}") from None
    if raw.peek(2)[:2] == GZIP_MAGIC:
        return gzip.GzipFile(fileobj=raw, mode="rb")  # type: ignore[return-value]
    return raw


def iter_byte_chunks(
    path: str | os.PathLike, chunk_bytes: int = DEFAULT_CHUNK_BYTES
) -> Iterator[tuple[bytes, int]]:
    """Yield ``(chunk, first_line)``: chunks that end on a newline (but the last one).

    ``first_line`` is the physical 1-based number of the chunk's first line. A truncated or
    corrupt gzip stream raises :class:`InputError` (rule R27) instead of yielding a partial
    file that would look valid.
    """
    first_line = 1
    carry = b""
    with contextlib.closing(_open_binary(path)) as stream:
        while True:
            try:
                block = stream.read(chunk_bytes)
            except (EOFError, zlib.error, gzip.BadGzipFile, OSError) as exc:
                raise InputError(
                    str(path), None, f"corrupt or truncated gzip data: {exc}", "R27"
                ) from None
            if not block:
                break
            block = carry + block
            cut = block.rfind(b"\n") + 1
            if cut == 0:
                carry = block
                continue
            chunk, carry = block[:cut], block[cut:]
            yield chunk, first_line
            first_line += chunk.count(b"\n")
    if carry:
        yield carry, first_line


def read_bytes(path: str | os.PathLike) -> bytes:
    """The whole (decompressed) content of a file."""
    with contextlib.closing(_open_binary(path)) as stream:
        if isinstance(stream, gzip.GzipFile):
            return b"".join(chunk for chunk, _ in iter_byte_chunks(path))
        return stream.read()


# ---------------------------------------------------------------------------------------
# tokenizing


def _line_starts(buf: np.ndarray) -> np.ndarray:
    newlines = np.flatnonzero(buf == 10)
    return np.concatenate(([0], newlines + 1)).astype(np.int64)


def _line_index(starts: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """0-based line index of each byte position."""
    return np.searchsorted(starts, positions, side="right") - 1


def _invalid_utf8_lines(data: bytes, starts: np.ndarray) -> np.ndarray:
    """0-based indices of lines holding invalid UTF-8 (loops over bad lines only)."""
    bad: list[int] = []
    pos = 0
    while True:
        try:
            data[pos:].decode("utf-8")
            break
        except UnicodeDecodeError as exc:
            line = int(_line_index(starts, np.array([pos + exc.start]))[0])
            bad.append(line)
            if line + 1 >= len(starts):
                break
            pos = int(starts[line + 1])
    return np.array(bad, dtype=np.int64)


def _blanks(block: bytes | bytearray) -> tuple[bool, bool] | None:
    """Whether ``block`` holds tabs and whether it holds spaces; None if it holds CR, VT, FF
    or NUL (blanks trec_eval splits at and Arrow's CSV reader does not; NUL ends the file
    for trec_eval 9.x): such text is never regular."""
    if any(c in block for c in (b"\r", b"\v", b"\f", b"\x00")):
        return None
    return b"\t" in block, b" " in block


def _read_regular(
    source, sep: bytes, ncols: int, kinds: Sequence[pa.DataType], block_size: int
) -> pa.Table | None:
    """Columns ``f0``, ``f1``, ... (as many as ``kinds``, typed by them) of regular text, or
    None if the text is not regular.

    Regular: every line holds ``ncols`` non-empty fields separated by one ``sep`` each (no
    blank line). On such text Arrow's multithreaded CSV reader, without quoting or nulls,
    splits lines exactly as :func:`tokenize` does. Empty fields beyond the columns read go
    unnoticed: read every column when they matter.
    """
    names = [f"f{i}" for i in range(ncols)]
    try:
        table = pv.read_csv(
            source,
            read_options=pv.ReadOptions(column_names=names, block_size=block_size),
            parse_options=pv.ParseOptions(
                delimiter=sep.decode(), quote_char=False, ignore_empty_lines=False
            ),
            convert_options=pv.ConvertOptions(
                column_types=dict(zip(names, kinds, strict=False)),
                include_columns=names[: len(kinds)],
                null_values=[],
                strings_can_be_null=False,
                quoted_strings_can_be_null=False,
            ),
        )
    except pa.ArrowInvalid:
        return None  # ragged lines, a number that is none: the tokenizer explains it
    for column in table.columns:
        if column.null_count or (not pa.types.is_floating(column.type) and _shortest(column) == 0):
            return None  # a blank line, an empty field (doubled, leading, trailing separators)
    return table


def _shortest(column: pa.ChunkedArray) -> int:
    """Length of the shortest string of a (dictionary-encoded) string column."""
    if pa.types.is_dictionary(column.type):
        return min((_shortest(pa.chunked_array([c.dictionary])) for c in column.chunks), default=1)
    return pc.min(pc.binary_length(column)).as_py()


def _tokenize_fast(data: bytes, sep: bytes, keep: int) -> tuple[int, list[pa.Array]] | None:
    """Field count and first ``keep`` fields of regular ``data`` (see :func:`_read_regular`)."""
    ncols = data[: data.find(b"\n")].count(sep) + 1
    # one block: columns come as one chunk each, no copy to combine them (and small default
    # blocks are several times slower); every column is read, to see any empty field
    table = _read_regular(io.BytesIO(data), sep, ncols, [pa.string()] * ncols, len(data) + 1)
    if table is None:
        return None
    return ncols, [table.column(i).combine_chunks() for i in range(min(keep, ncols))]


def _raw_lines(data: bytes, starts: np.ndarray) -> pa.Array:
    """Every line of ``data`` (zero-copy), each still ending with its newline if it has one."""
    ends = np.append(starts[1:], len(data))
    if len(starts) and starts[-1] == len(data):  # data ends with a newline
        ends = ends[:-1]
        starts = starts[:-1]
    offsets = np.append(starts, ends[-1] if len(ends) else 0).astype(np.int64)
    return pa.LargeStringArray.from_buffers(len(starts), pa.py_buffer(offsets), pa.py_buffer(data))


def raw_lines(data: bytes) -> pa.Array:
    """The physical lines of ``data`` as strings, each with its newline (if it has one)."""
    return _raw_lines(data, _line_starts(np.frombuffer(data, dtype=np.uint8)))


def _tokenize_general(
    data: bytes, starts: np.ndarray, keep: int
) -> tuple[np.ndarray, list[pa.Array], pa.Array]:
    lines = _raw_lines(data, starts)
    # trimmed first: the split keeps empty tokens for leading/trailing whitespace
    trimmed = pc.ascii_trim_whitespace(lines)
    split = pc.ascii_split_whitespace(trimmed)
    counts = arrow.to_numpy(pc.list_value_length(split)).astype(np.int64)
    counts[arrow.to_numpy(pc.binary_length(trimmed)) == 0] = 0  # [''] otherwise
    flat = pc.list_flatten(split)
    list_offsets = arrow.to_numpy(split.offsets)[:-1]
    nonblank = counts > 0
    nfields = counts[nonblank]
    base = list_offsets[nonblank]
    fields = []
    for i in range(keep):
        present = nfields > i
        index = arrow.array(np.where(present, base + i, 0), mask=~present)
        fields.append(flat.take(index))
    return counts, fields, lines


def tokenize(
    data: bytes,
    path: str = "<bytes>",
    first_line: int = 1,
    keep: int = 6,
    separator: bytes | None = None,
) -> Tokens:
    """Split ``data`` into lines and whitespace-separated fields, keeping the first ``keep``.

    ``separator`` (tab or space) is the file's separator for the spacing check, as found in
    an earlier chunk; by default the first line with several fields sets it.

    Lines are separated by ``\\n`` only (a lone CR is whitespace, as in trec_eval); fields by
    any of space, tab, CR, VT, FF. Lines with invalid UTF-8 are listed in ``bad_utf8_lines``
    and decoded with replacement characters so the rest of the file can still be checked.
    """
    buf = np.frombuffer(data, dtype=np.uint8)
    head = data[:4] if first_line == 1 else b""
    ends_with_newline = data.endswith(b"\n")
    n_physical = data.count(b"\n") + (0 if ends_with_newline or not data else 1)
    bad_lines = np.empty(0, np.int64)
    if not data.isascii():
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            bad_lines = _invalid_utf8_lines(data, _line_starts(buf)) + first_line
            # replacement characters never swallow a newline or a NUL: same lines
            data = data.decode("utf-8", "replace").encode("utf-8")
            buf = np.frombuffer(data, dtype=np.uint8)
    blanks = _blanks(data)
    control = len(data.translate(None, _CONTROL_BYTES)) != len(data)
    # line starts are needed for byte anomalies and by the general path, not by a clean file
    starts = _line_starts(buf) if blanks is None or control or not data.isascii() else None
    common = dict(
        path=path,
        bad_utf8_lines=bad_lines,
        n_physical_lines=n_physical,
        ends_with_newline=ends_with_newline,
        head=head,
        **(
            _byte_anomalies(data, buf, starts, head, first_line, control)
            if starts is not None
            else {}
        ),
    )

    # the fast path takes single separators of one kind only (a tab or a space)
    sep = b"\t" if blanks and blanks[0] else b" "
    fast = _tokenize_fast(data, sep, keep) if data and blanks and not all(blanks) else None
    if fast is not None:
        # irregular only if that kind is not the file's
        ncols, fields = fast
        n = len(fields[0]) if fields else 0
        numbers = np.arange(first_line, first_line + n, dtype=np.int64)
        if ncols > 1 and separator is None:
            separator = sep
        other = ncols > 1 and sep != separator
        return Tokens(
            line=numbers,
            nfields=np.full(n, ncols, dtype=np.int64),
            fields=fields + [pa.nulls(n, pa.string())] * (keep - len(fields)),
            irregular_space_lines=numbers if other else np.empty(0, np.int64),
            separator=separator or b"",
            **common,
        )

    starts = _line_starts(buf) if starts is None else starts
    counts, fields, lines = _tokenize_general(data, starts, keep)
    numbers = np.arange(first_line, first_line + len(counts), dtype=np.int64)
    trailing, irregular, separator = _spacing_anomalies(lines, counts, separator)
    return Tokens(
        separator=separator or b"",
        line=numbers[counts > 0],
        nfields=counts[counts > 0],
        fields=fields,
        blank_lines=numbers[counts == 0],
        trailing_space_lines=numbers[trailing],
        irregular_space_lines=numbers[irregular],
        **common,
    )


def _byte_anomalies(
    data: bytes, buf: np.ndarray, starts: np.ndarray, head: bytes, first_line: int, control: bool
) -> dict[str, np.ndarray]:
    """Lines with NUL, CRLF, VT/FF/lone CR, other control bytes (if ``control``), Unicode
    blanks; as :class:`Tokens` fields."""

    def lines_of(positions: np.ndarray) -> np.ndarray:
        return np.unique(_line_index(starts, positions)) + first_line

    found: dict[str, np.ndarray] = {}
    if b"\x00" in data:
        found["nul_lines"] = lines_of(np.flatnonzero(buf == 0))
    spacing = np.flatnonzero((buf == 11) | (buf == 12))
    if b"\r" in data:
        cr = np.flatnonzero(buf == 13)
        follows = buf[np.minimum(cr + 1, len(buf) - 1)] == 10
        crlf = (cr + 1 < len(buf)) & follows
        found["crlf_lines"] = lines_of(cr[crlf])
        spacing = np.concatenate((spacing, cr[~crlf]))
    found["space_control_lines"] = lines_of(spacing)
    if control:
        found["control_lines"] = lines_of(
            np.flatnonzero(np.isin(buf, np.frombuffer(_CONTROL_BYTES, np.uint8)))
        )
    if not data.isascii():
        found["unicode_space_lines"] = _unicode_space_lines(
            _raw_lines(data, starts), head, first_line
        )
    return found


def _unicode_space_lines(lines: pa.Array, head: bytes, first_line: int) -> np.ndarray:
    """Lines holding Unicode blanks or zero-width characters (a leading BOM is not one)."""
    hits = matches(lines, UNICODE_SPACE_PATTERN)
    if head.startswith(BOM) and len(hits):
        hits[0] = bool(matches(arrow.array([lines[0].as_py()[1:]]), UNICODE_SPACE_PATTERN)[0])
    return np.flatnonzero(hits) + first_line


def _spacing_anomalies(
    lines: pa.Array, counts: np.ndarray, separator: bytes | None
) -> tuple[np.ndarray, np.ndarray, bytes | None]:
    """Masks of lines with trailing blanks and with irregular separators, and the separator.

    Irregular: leading blanks, runs of blanks between fields, a tab and a space in one
    line, or another separator than ``separator`` (default: the first multi-field line's).
    """

    def length(values: pa.Array) -> np.ndarray:
        return arrow.to_numpy(pc.binary_length(values)).astype(np.int64)

    nonblank = counts > 0
    full = length(lines)
    line_end = arrow.to_numpy(pc.ends_with(lines, "\n")).astype(np.int64) + arrow.to_numpy(
        pc.ends_with(lines, "\r\n")
    ).astype(np.int64)
    trailing = nonblank & (full - length(pc.ascii_rtrim_whitespace(lines)) > line_end)
    leading = nonblank & (length(pc.ascii_ltrim_whitespace(lines)) < full)
    trimmed = pc.ascii_trim_whitespace(lines)
    spaces = arrow.to_numpy(pc.count_substring(trimmed, " "))
    tabs = arrow.to_numpy(pc.count_substring(trimmed, "\t"))
    irregular = leading | ((spaces > 0) & (tabs > 0)) | (spaces + tabs > counts - 1)
    multi = np.flatnonzero(counts > 1)
    uses_tabs = tabs > 0
    if separator is None and len(multi):
        separator = b"\t" if uses_tabs[multi[0]] else b" "
    if separator is not None:
        irregular |= (counts > 1) & (uses_tabs != (separator == b"\t"))
    return trailing, irregular & nonblank, separator


def iter_tokens(
    path: str | os.PathLike, keep: int = 6, chunk_bytes: int = DEFAULT_CHUNK_BYTES
) -> Iterator[Tokens]:
    """Tokenize a file chunk by chunk (bounded memory); line numbers stay physical."""
    separator = None
    for chunk, first_line in iter_byte_chunks(path, chunk_bytes):
        tokens = tokenize(chunk, str(path), first_line, keep, separator)
        separator = tokens.separator or None
        yield tokens


def tokenize_file(path: str | os.PathLike, keep: int = 6) -> Tokens:
    """Tokenize a whole file (plain or gzip) at once."""
    return tokenize(read_bytes(path), str(path), 1, keep)


# ---------------------------------------------------------------------------------------
# typed tables


def _check_bytes(tokens: Tokens, blank_is_error: bool) -> None:
    for lines, message, rule in (
        (tokens.nul_lines, "NUL byte (trec_eval 9.x would silently stop reading here)", "R23"),
        (tokens.bad_utf8_lines, "invalid UTF-8", "R23"),
        (
            tokens.blank_lines if blank_is_error else (),
            "blank line (fatal in trec_eval)",
            "Q2",
        ),
    ):
        if len(lines):
            raise InputError(tokens.path, int(lines[0]), message, rule)


def matches(values: pa.Array, pattern: str) -> np.ndarray:
    """Where each string matches the (RE2) ``pattern``; False for nulls."""
    return arrow.to_numpy(
        pc.fill_null(pc.match_substring_regex(values, pattern), arrow.scalar(False))
    )


def _lengths(values: pa.Array) -> np.ndarray:
    return arrow.to_numpy(pc.binary_length(values))


def parse_scores(score: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """Where each score is an ASCII decimal number (``SCORE_PATTERN``), and its float64
    value: NaN where it is none, or where the number overflows a double."""
    good = matches(score, SCORE_PATTERN)
    if not good.all():
        score = pc.if_else(arrow.array(good), score, arrow.scalar(None, score.type))
    values = arrow.to_numpy(pc.cast(score, pa.float64()))
    finite = np.isfinite(values)
    return good, values if finite.all() else np.where(finite, values, np.nan)


def parse_ranks(rank: pa.Array) -> pa.Array:
    """int64 ranks; null where a rank is not a non-negative ASCII integer (``2.0``, ``-1``)
    or has more than 18 digits (beyond int64)."""
    # ascii_is_decimal: ^[0-9]+$, faster than the regex
    good = arrow.to_numpy(pc.fill_null(pc.ascii_is_decimal(rank), arrow.scalar(False)))
    good &= _lengths(rank) <= 18
    return pc.cast(pc.if_else(arrow.array(good), rank, arrow.scalar(None, rank.type)), pa.int64())


# trec_eval 9.0.8 allocates per grade level: a grade of 5,000,000 makes its nDCG run for hours
MAX_GRADE = 1_000_000


class Grades(NamedTuple):
    """Relevance grades read from text (see :func:`parse_grades`)."""

    integer: np.ndarray  # an ASCII integer (REL_PATTERN)
    fits: np.ndarray  # ... of at most 9 digits, so ``values`` holds it exactly
    values: np.ndarray  # int64 where ``fits``, else 0
    huge: np.ndarray  # an integer beyond ±MAX_GRADE


def parse_grades(rel: pa.Array) -> Grades:
    """Check and convert a column of grades once, for the reader and the validator."""
    integer = matches(rel, REL_PATTERN)
    rel = pc.utf8_ltrim(rel, "+") if pc.any(pc.starts_with(rel, "+")).as_py() else rel
    fits = integer & (_lengths(pc.utf8_ltrim(rel, "-")) <= 9)
    kept = pc.if_else(arrow.array(fits), rel, arrow.scalar(None, pa.string()))
    values = arrow.to_numpy(pc.fill_null(pc.cast(kept, pa.int64()), arrow.scalar(0)))
    return Grades(integer, fits, values, integer & (~fits | (np.abs(values) > MAX_GRADE)))


def _refuse(tokens: Tokens, bad: np.ndarray, rule: str, message: Callable[[int], str]) -> None:
    """Raise :class:`InputError` at the first row where ``bad``; ``message(row)`` says why."""
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise InputError(tokens.path, int(tokens.line[row]), message(row), rule)


def run_table(tokens: Tokens) -> pa.Table:
    """Typed run table from tokens; raises :class:`InputError` on malformed lines.

    Accepted like trec_eval: blank lines (skipped) and tokens after the tag (ignored).
    Rejected, unlike trec_eval, because trec_eval would silently use a wrong value: a score
    that is not a finite ASCII number (``atof`` turns ``abc`` into 0), NUL bytes, invalid
    UTF-8. A rank that is not a non-negative integer is kept as null: trec_eval never reads
    the rank column.
    """
    _check_bytes(tokens, blank_is_error=False)
    nfields = tokens.nfields
    _refuse(
        tokens,
        nfields < 6,
        "R1",
        lambda r: f"expected 6 fields (qid Q0 docno rank score tag), found {nfields[r]}",
    )
    qid, q0, docno, rank, score, tag = tokens.fields[:6]
    good_score, scores = parse_scores(score)
    _refuse(
        tokens, ~good_score, "R12", lambda r: f"score {score[r].as_py()!r} is not a finite number"
    )
    _refuse(
        tokens, np.isnan(scores), "R12", lambda r: f"score {score[r].as_py()!r} overflows a double"
    )
    return pa.table(
        {
            "qid": qid,
            "q0": q0,
            "docno": docno,
            "rank": parse_ranks(rank),
            "score": arrow.array(scores),
            "tag": tag,
            "line": arrow.array(tokens.line),
        }
    )


def qrels_table(tokens: Tokens) -> pa.Table:
    """Typed qrels table from tokens; raises :class:`InputError` on malformed lines.

    trec_eval requires exactly four fields and dies on blank lines; it reads the grade with
    ``atol`` (``1.5`` becomes 1, ``abc`` becomes 0), which trecbench refuses instead.
    """
    _check_bytes(tokens, blank_is_error=True)
    nfields = tokens.nfields

    def wrong(row: int) -> str:
        hint = " (a 3-column BEIR qrels? convert it with 'trecbench convert dict')"
        found = f"{nfields[row]}{hint if nfields[row] == 3 else ''}"
        return f"expected 4 fields (qid iter docno rel), found {found}"

    _refuse(tokens, nfields != 4, "Q1", wrong)
    qid, iteration, docno, rel = tokens.fields[:4]
    grades = parse_grades(rel)
    _refuse(
        tokens, ~grades.integer, "Q3", lambda r: f"relevance {rel[r].as_py()!r} is not an integer"
    )
    _refuse(
        tokens,
        grades.huge,
        "Q4",
        lambda r: (
            f"relevance {rel[r].as_py()} is beyond +-{MAX_GRADE:,} (trec_eval's nDCG "
            "would run for hours)"
        ),
    )
    return pa.table(
        {
            "qid": qid,
            "iter": iteration,
            "docno": docno,
            "rel": arrow.array(grades.values),
            "line": arrow.array(tokens.line),
        }
    )


def _regular_separator(path: str | os.PathLike) -> bytes | None:
    """The separator of a plain, "regular" file (see :func:`read_regular_run`), or None.

    One sequential pass over the bytes in blocks (bounded memory): ASCII only, no CR, VT,
    FF or NUL, and fields separated by spaces or by tabs, not both.
    """
    seen_tab = seen_space = False
    outputs.note_input(path)
    if not os.path.isfile(path) or not os.access(path, os.R_OK):
        return None  # the tokenizer reports what is wrong with it
    buffer = bytearray(8 << 20)  # reused: no fresh allocation per block
    with open(path, "rb") as stream:
        if stream.read(2) == GZIP_MAGIC:
            return None
        stream.seek(0)
        while size := stream.readinto(buffer):
            block = buffer if size == len(buffer) else buffer[:size]
            blanks = _blanks(block) if block.isascii() else None
            if blanks is None:
                return None
            seen_tab, seen_space = seen_tab or blanks[0], seen_space or blanks[1]
    if seen_tab == seen_space:  # both, or a file of one-field lines
        return None
    return b"\t" if seen_tab else b" "


def read_regular_run(path: str | os.PathLike) -> pa.Table | None:
    """``qid, docno, score, tag`` of a regular run file, or None for any other file.

    ``qid`` and ``tag`` come dictionary-encoded (one int32 per line); there is no ``line``
    column: in a regular file, row ``i`` is line ``i + 1``.

    Regular: plain ASCII text, no CR/VT/FF/NUL, exactly one space or one tab (never both)
    between fields, at least 6 non-empty fields on every line, every score a finite
    decimal number. On such files Arrow's CSV reader splits lines exactly as
    :func:`tokenize` does (:func:`_read_regular`), and its float parser accepts exactly
    ``SCORE_PATTERN`` (plus ``nan``/``inf``, rejected here), so the values equal
    :func:`run_table`'s — without per-field strings for the columns scoring never reads.
    Every other file (and every malformed one) returns None: the tokenizer then explains the
    problem with a line number.
    """
    sep = _regular_separator(path)
    if sep is None:
        return None
    with open(path, "rb") as stream:
        ncols = stream.readline().count(sep) + 1
    if ncols < len(RUN_FIELDS):
        return None
    # q0 and rank are read too (as plain strings: the fastest), only to prove that no
    # field is empty (a doubled separator would shift every later field); the qid and the
    # tag are dictionary-encoded: few distinct values, an int32 per line instead of a
    # string (and the qid codes are what ranking needs)
    words = pa.dictionary(pa.int32(), pa.string())
    kinds = (words, pa.string(), pa.string(), pa.string(), pa.float64(), words)
    # 4 MB blocks: as fast as larger ones, a third less peak memory
    table = _read_regular(path, sep, ncols, kinds, 4 << 20)
    if table is None or table.num_rows == 0 or not pc.all(pc.is_finite(table.column("f4"))).as_py():
        return None
    result = pa.table(
        {
            "qid": table.column("f0"),
            "docno": table.column("f2"),
            "score": table.column("f4"),
            "tag": table.column("f5"),
        }
    )
    del table
    pa.default_memory_pool().release_unused()  # the parser's buffers, q0 and rank
    return result


def parse_run(path: str | os.PathLike) -> pa.Table:
    """The typed run table of a file, as pyarrow (what the engines consume)."""
    return run_table(tokenize_file(path, keep=6))


def parse_qrels(path: str | os.PathLike) -> pa.Table:
    """The typed qrels table of a file, as pyarrow."""
    return qrels_table(tokenize_file(path, keep=4))


def to_pandas(table: pa.Table):
    """pandas view of a typed table: strings stay strings, nullable integer rank."""
    import pandas as pd

    mapping = {pa.string(): pd.StringDtype("pyarrow"), pa.large_string(): pd.StringDtype("pyarrow")}
    frame = table.to_pandas(types_mapper=mapping.get)
    if "rank" in frame and table.column("rank").null_count:
        frame["rank"] = frame["rank"].astype("Int64")
    return frame


def read_run(path: str | os.PathLike):
    """Read a TREC run (plain or .gz) into a DataFrame.

    Columns: ``qid``, ``q0``, ``docno``, ``tag`` (strings, exactly as written), ``rank``
    (integer; nullable only if some rank is not an integer), ``score`` (float64) and ``line``
    (the physical 1-based line number). Rows keep file order.
    """
    return to_pandas(parse_run(path))


def read_qrels(path: str | os.PathLike):
    """Read TREC qrels (plain or .gz) into a DataFrame: ``qid iter docno rel line``."""
    return to_pandas(parse_qrels(path))


# ---------------------------------------------------------------------------------------
# writing


def format_scores(scores) -> pa.Array:
    """Shortest text that reads back as the same float64 (Arrow's cast is round-trip exact)."""
    return pc.cast(arrow.array(np.asarray(scores, dtype=np.float64)), pa.string())


def _text_lines(columns: Sequence[pa.Array], sep: str) -> bytes:
    """The bytes of ``columns`` joined by ``sep``, one newline-terminated line per row."""
    if not columns or len(columns[0]) == 0:
        return b""
    joined = pc.binary_join_element_wise(*columns, sep)
    lines = pc.binary_join_element_wise(joined, arrow.scalar(""), "\n").cast(pa.large_string())
    # the rows are contiguous in the data buffer: one copy of that span
    offsets = np.frombuffer(lines.buffers()[1], np.int64)[
        lines.offset : lines.offset + len(lines) + 1
    ]
    start, stop = int(offsets[0]), int(offsets[-1])
    return lines.buffers()[2][start:stop].to_pybytes()


def _contiguous(values: pa.Array | pa.ChunkedArray) -> pa.Array:
    # pandas columns backed by several Arrow chunks (e.g. after pd.concat) convert chunked
    return values.combine_chunks() if isinstance(values, pa.ChunkedArray) else values


def _string_column(frame, name: str) -> pa.Array:
    return _contiguous(pa.array(frame[name].astype(str), pa.string()))


def _integer_text(frame, name: str) -> pa.Array:
    return pc.cast(_contiguous(pa.array(frame[name].astype("int64"))), pa.string())


def run_bytes(run) -> bytes:
    """A run in canonical TREC form: ``qid Q0 docno rank score tag``, tab-separated.

    ``run`` is a DataFrame with at least qid, docno, rank, score, tag; rows are written in
    the order given. Scores are written losslessly.
    """
    n = len(run)
    columns = [
        _string_column(run, "qid"),
        pa.array(["Q0"] * n, pa.string()),
        _string_column(run, "docno"),
        _integer_text(run, "rank"),
        format_scores(run["score"].to_numpy(dtype=np.float64)),
        _string_column(run, "tag"),
    ]
    return _text_lines(columns, "\t")


def qrels_bytes(qrels) -> bytes:
    """Qrels in canonical TREC form: ``qid 0 docno rel``, space-separated."""
    n = len(qrels)
    columns = [
        _string_column(qrels, "qid"),
        pa.array(["0"] * n, pa.string()),
        _string_column(qrels, "docno"),
        _integer_text(qrels, "rel"),
    ]
    return _text_lines(columns, " ")


def write_run(run, path: str | os.PathLike, inputs: Sequence[str | os.PathLike] = ()) -> None:
    """Write :func:`run_bytes` to ``path`` (atomic; never over an input, see
    :mod:`trecbench.outputs`)."""
    outputs.write_file(path, run_bytes(run), inputs)


def write_qrels(qrels, path: str | os.PathLike, inputs: Sequence[str | os.PathLike] = ()) -> None:
    """Write :func:`qrels_bytes` to ``path`` (atomic; never over an input)."""
    outputs.write_file(path, qrels_bytes(qrels), inputs)
