"""TREC text: run files (``qid Q0 docno rank score tag``) and qrels (``qid iter docno rel``),
plain or compressed (see :mod:`trecbench.inputs.streams`: every file is opened, hashed and
decompressed there, once).

Three layers:

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
* :func:`read_regular_run` reads a regular run (the scoring path's common case, plain or
  compressed) straight into typed columns with the same CSV reader, skipping the tokens;
  the bytes are checked for regularity as the reader pulls them, in one pass.

Ids are strings and are never type-inferred (``001``, ``NA``, ``1e5`` survive unchanged).
Writing TREC text is :mod:`trecbench.files`' job.
"""

from __future__ import annotations

import dataclasses
import io
import os
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pv

from .. import arrow
from ..errors import InputError
from .streams import Progress, ReadOnly, Source

RUN_FIELDS = ("qid", "q0", "docno", "rank", "score", "tag")
QRELS_FIELDS = ("qid", "iter", "docno", "rel")

# ASCII grammars: Python's float()/int() would accept nan, inf, 1_000, Unicode digits.
SCORE_PATTERN = r"^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?$"
REL_PATTERN = r"^[+-]?[0-9]+$"  # C's atol reads "+1" as 1 (trec_eval accepts it)

BOM = b"\xef\xbb\xbf"
DEFAULT_CHUNK_BYTES = 64 << 20
# bytes of text tokenized at a time when a file is read whole: the tokenizer's arrays cost
# tens of bytes a line, and a line may be one byte (a 10 MB run of newlines, read at once,
# peaked at 367 MB under --memory 256); what is kept of a chunk is its fields
WHOLE_CHUNK_BYTES = 1 << 20
# what separates fields within a line (C isspace but the newline, as trec_eval reads them)
C_SPACE = " \t\r\v\f"
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
    # the ir_metadata block atop a run (inputs.ir_metadata.Found), when the tokens start it
    ir_metadata: Any = None

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
        for item in dataclasses.fields(self):
            value = getattr(self, item.name)
            if item.name.endswith("_lines") and isinstance(value, np.ndarray):
                changes[item.name] = value[~np.isin(value, lines)]
        return dataclasses.replace(self, **changes)


# ---------------------------------------------------------------------------------------
# bytes


def iter_byte_chunks(
    source: Source, chunk_bytes: int = DEFAULT_CHUNK_BYTES
) -> Iterator[tuple[bytes, int]]:
    """Yield ``(chunk, first_line)``: chunks of the decompressed content that end on a
    newline (but the last one).

    ``first_line`` is the physical 1-based number of the chunk's first line. A truncated or
    corrupt compressed stream raises :class:`InputError` (rule R27) instead of yielding a
    partial file that would look valid.
    """
    first_line = 1
    carry = b""
    stream = source.stream()
    while block := stream.read(chunk_bytes):
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
    """The whole (decompressed) content of a file, read once (checksum remembered)."""
    with Source(path) as source:
        data = source.read()
        source.record()
    return data


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


# blanks trec_eval splits at and Arrow's CSV reader does not (NUL ends the file for
# trec_eval 9.x): text holding one is never regular
_IRREGULAR_BLANKS = (b"\r", b"\v", b"\f", b"\x00")


def _blanks(block: bytes | bytearray) -> tuple[bool, bool] | None:
    """Whether ``block`` holds tabs and whether it holds spaces; None if it holds one of
    :data:`_IRREGULAR_BLANKS`."""
    if any(c in block for c in _IRREGULAR_BLANKS):
        return None
    return b"\t" in block, b" " in block


def _read_regular(source, sep: bytes, ncols: int, block_size: int) -> pa.Table | None:
    """Every column (``f0``, ``f1``, ..., as strings) of regular text, or None if the text
    is not regular.

    Regular: every line holds ``ncols`` non-empty fields separated by one ``sep`` each (no
    blank line). On such text Arrow's multithreaded CSV reader, without quoting or nulls,
    splits lines exactly as :func:`tokenize` does.
    """
    names = [f"f{i}" for i in range(ncols)]
    kinds = dict.fromkeys(names, pa.string())
    try:
        table = pv.read_csv(source, **_csv_options(sep, ncols, block_size, kinds, check_utf8=True))
    except pa.ArrowInvalid:
        return None  # ragged lines: the tokenizer explains them
    for column in table.columns:
        if _shortest(column) == 0:
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
    table = _read_regular(io.BytesIO(data), sep, ncols, len(data) + 1)
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


def _without_empty_lines(
    data: bytes, buf: np.ndarray, starts: np.ndarray
) -> tuple[bytes, np.ndarray, np.ndarray, np.ndarray]:
    """``(data without its empty lines, the kept lines' starts in it, the empty lines'
    and the kept lines' 0-based indices)``. An empty line (a lone newline) is blank
    whatever the rules: found from the line starts alone, it costs no string work, which
    costs ~150 bytes a line (a 10 MB run of newlines peaked at 1 GB under --memory 256)."""
    ends = np.append(starts[1:], len(data))
    empty = ends - starts == 1  # one byte long, so the newline itself (if not the end)
    empty[empty] = buf[starts[empty]] == 10
    del ends
    if not empty.any():
        return data, starts, np.empty(0, np.int64), np.arange(len(starts), dtype=np.int64)
    dropped = np.ones(len(buf), bool)
    dropped[starts[empty]] = False
    kept = np.flatnonzero(~empty)
    shifted = starts[kept] - np.cumsum(empty)[kept]  # each empty line before: one byte less
    return buf[dropped].tobytes(), shifted, np.flatnonzero(empty), kept


def _merged(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """Two sorted arrays of distinct line numbers as one sorted array."""
    if not len(second):
        return first
    return np.sort(np.concatenate((first, second)), kind="stable")


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
    # (regular text has no empty line: the CSV reader would work through them in vain)
    empty_line = data.startswith(b"\n") or b"\n\n" in data
    regular = data and blanks and not all(blanks) and not empty_line
    fast = _tokenize_fast(data, sep, keep) if regular else None
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
    compact, compact_starts, empty, kept = _without_empty_lines(data, buf, starts)
    counts, fields, lines = _tokenize_general(compact, compact_starts, keep)
    numbers = kept[: len(counts)] + first_line
    trailing, irregular, separator = _spacing_anomalies(lines, counts, separator)
    return Tokens(
        separator=separator or b"",
        line=numbers[counts > 0],
        nfields=counts[counts > 0],
        fields=fields,
        blank_lines=_merged(empty + first_line, numbers[counts == 0]),
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
    path: str | os.PathLike | Source,
    keep: int = 6,
    chunk_bytes: int = DEFAULT_CHUNK_BYTES,
    progress: Progress | None = None,
    metadata: bool = False,
) -> Iterator[Tokens]:
    """Tokenize a file (a path or an open :class:`~trecbench.inputs.streams.Source`, whose
    owner records its checksum) chunk by chunk (bounded memory); line numbers stay
    physical. ``progress`` (for a path): bytes read, see :class:`Source`. ``metadata``: a
    run's ir_metadata block is taken out of the first tokens (``Tokens.ir_metadata``)."""
    if isinstance(path, Source):
        yield from _source_tokens(path, keep, chunk_bytes, metadata)
        return
    with Source(path, progress) as source:
        yield from _source_tokens(source, keep, chunk_bytes, metadata)
        source.record()


def _source_tokens(
    source: Source, keep: int, chunk_bytes: int, metadata: bool = False
) -> Iterator[Tokens]:
    separator = None
    for chunk, first_line in iter_byte_chunks(source, chunk_bytes):
        if metadata and first_line == 1:
            tokens = _run_start(chunk, source.path, keep, separator)
        else:
            tokens = tokenize(chunk, source.path, first_line, keep, separator)
        separator = tokens.separator or None
        yield tokens


def _run_start(data: bytes, path: str, keep: int, separator=None) -> Tokens:
    """The tokens of a run's first lines, an ir_metadata block atop them read apart
    (``Tokens.ir_metadata``; :mod:`trecbench.inputs.ir_metadata`): the lines after it are
    tokenized as the file without it, their numbers those of the file."""
    from . import ir_metadata

    found, size = ir_metadata.split(data, path)
    if found is None or not size:
        tokens = tokenize(data, path, 1, keep, separator)
        return tokens if found is None else dataclasses.replace(tokens, ir_metadata=found)
    tokens = tokenize(data[size:], path, found.lines + 1, keep, separator)
    physical = tokens.n_physical_lines + found.lines
    return dataclasses.replace(tokens, ir_metadata=found, n_physical_lines=physical)


def tokenize_file(
    path: str | os.PathLike | Source, keep: int = 6, metadata: bool = False
) -> Tokens:
    """Tokenize a whole file (a path or an open source, plain or compressed) at once; with
    ``metadata``, a run's ir_metadata block goes to ``Tokens.ir_metadata``."""
    if not isinstance(path, Source):
        with Source(path) as source:
            tokens = tokenize_file(source, keep, metadata)
            source.record()
        return tokens
    parts = [_compact(part) for part in _source_tokens(path, keep, WHOLE_CHUNK_BYTES, metadata)]
    return concat_tokens(parts) if parts else tokenize(b"", path.path, 1, keep)


def _line_arrays(tokens: Tokens) -> list[str]:
    """The names of the arrays of line numbers of byte-level findings."""
    return [item.name for item in dataclasses.fields(tokens) if item.name.endswith("_lines")
            and item.name != "n_physical_lines"]  # fmt: skip


def _compact(tokens: Tokens) -> Tokens:
    """``tokens`` with their findings' line numbers in 32 bits when they fit (a finding
    can repeat on every line: a file of newlines lists each as blank)."""
    for name in _line_arrays(tokens):
        lines = getattr(tokens, name)
        if len(lines) and lines.max() < 2**31 and lines.dtype != np.int32:
            setattr(tokens, name, lines.astype(np.int32))
    return tokens


def concat_tokens(parts: list[Tokens]) -> Tokens:
    """The tokens of consecutive chunks of one file as the tokens of the whole."""
    if len(parts) == 1:
        return parts[0]
    first, last = parts[0], parts[-1]
    changes: dict[str, Any] = {
        "line": np.concatenate([part.line for part in parts]),
        "nfields": np.concatenate([part.nfields for part in parts]),
        "fields": [
            _concat_arrays([part.fields[i] for part in parts]) for i in range(len(first.fields))
        ],
        "n_physical_lines": sum(part.n_physical_lines for part in parts),
        "ends_with_newline": last.ends_with_newline,
        "separator": next((part.separator for part in parts if part.separator), b""),
    }
    for name in _line_arrays(first):
        changes[name] = _concat_lines(parts, name)
    return dataclasses.replace(first, **changes)


def _concat_lines(parts: list[Tokens], name: str) -> np.ndarray:
    """The line numbers ``name`` of all parts as one array, each part's let go once
    copied (a file of blank lines lists every line: never held twice)."""
    arrays = [getattr(part, name) for part in parts]
    whole = np.empty(sum(map(len, arrays)), np.result_type(*arrays))
    del arrays
    at = 0
    for part in parts:
        lines = getattr(part, name)
        whole[at : at + len(lines)] = lines
        at += len(lines)
        setattr(part, name, np.empty(0, np.int64))  # not a view: the part's array goes
    return whole


def _concat_arrays(arrays: list[pa.Array]) -> pa.Array:
    """String arrays (plain or large) as one array (large strings when they differ)."""
    if len({array.type for array in arrays}) > 1:
        arrays = [array.cast(pa.large_string()) for array in arrays]
    return pa.concat_arrays(arrays)


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


def refuse_rows(tokens: Tokens, bad: np.ndarray, rule: str, message: Callable[[int], str]) -> None:
    """Raise :class:`InputError` at the first row where ``bad`` (a boolean per row);
    ``message(row)`` says why."""
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise InputError(tokens.path, int(tokens.line[row]), message(row), rule)


MSMARCO_HINT = " (an MS MARCO qid pid rank run? convert it with 'trecbench convert msmarco')"


def other_kind(tokens: Tokens, kind: str) -> str | None:
    """``"qrels"`` or ``"run"`` when ``tokens``, read as a ``kind``, have the other kind's
    shape on every line: a run's (6 fields or more) or qrels' (4 fields, an integer last).

    A run given as qrels (or the reverse) is then reported once, as swapped arguments,
    instead of once per line.
    """
    if not len(tokens):
        return None
    if kind == "qrels":
        return "run" if (tokens.nfields >= 6).all() else None
    if (tokens.nfields != 4).any() or len(tokens.fields) < 4:
        return None
    return "qrels" if matches(tokens.fields[3], REL_PATTERN).all() else None


def swapped_message(found: str) -> str:
    """What to say about a file that looks like a ``found`` (``"run"`` or ``"qrels"``) file
    where the other kind was expected (:func:`other_kind`)."""
    if found == "run":
        return (
            "this looks like a run, not qrels (every line has 6 or more fields): are the run "
            "and qrels arguments swapped?"
        )
    return (
        "this looks like qrels, not a run (every line has 4 fields, an integer last): are "
        "the run and qrels arguments swapped?"
    )


def _refuse_swapped(tokens: Tokens, kind: str) -> None:
    found = other_kind(tokens, kind)
    if found is not None:
        rule = "Q11" if found == "run" else "R29"
        raise InputError(tokens.path, None, swapped_message(found), rule)


def run_table(tokens: Tokens) -> pa.Table:
    """Typed run table from tokens; raises :class:`InputError` on malformed lines.

    Accepted like trec_eval: blank lines (skipped) and tokens after the tag (ignored).
    Rejected, unlike trec_eval, because trec_eval would silently use a wrong value: a score
    that is not a finite ASCII number (``atof`` turns ``abc`` into 0), NUL bytes, invalid
    UTF-8. A rank that is not a non-negative integer is kept as null: trec_eval never reads
    the rank column.
    """
    _refuse_swapped(tokens, "run")
    _check_bytes(tokens, blank_is_error=False)
    nfields = tokens.nfields
    refuse_rows(
        tokens,
        nfields < 6,
        "R1",
        lambda r: (
            "expected 6 fields (qid Q0 docno rank score tag), found "
            f"{nfields[r]}{MSMARCO_HINT if nfields[r] == 3 else ''}"
        ),
    )
    qid, q0, docno, rank, score, tag = tokens.fields[:6]
    good_score, scores = parse_scores(score)
    refuse_rows(
        tokens, ~good_score, "R12", lambda r: f"score {score[r].as_py()!r} is not a finite number"
    )
    refuse_rows(
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
    _refuse_swapped(tokens, "qrels")
    _check_bytes(tokens, blank_is_error=True)
    nfields = tokens.nfields

    def wrong(row: int) -> str:
        hint = " (a 3-column BEIR qrels? convert it with 'trecbench convert beir-qrels')"
        found = f"{nfields[row]}{hint if nfields[row] == 3 else ''}"
        return f"expected 4 fields (qid iter docno rel), found {found}"

    refuse_rows(tokens, nfields != 4, "Q1", wrong)
    qid, iteration, docno, rel = tokens.fields[:4]
    grades = parse_grades(rel)
    refuse_rows(
        tokens, ~grades.integer, "Q3", lambda r: f"relevance {rel[r].as_py()!r} is not an integer"
    )
    refuse_rows(
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


class Irregular(Exception):
    """Raised by the regular-run readers: the text is not regular (the tokenizer reads
    it, and explains any problem with a line number)."""


def _regular_block(block: bytes, other: bytes) -> bool:
    """ASCII, no CR, VT, FF or NUL, no ``other`` separator and no empty line (one scan
    each): a run of empty lines is found at its first block, before Arrow's reader has
    worked through them (~60 bytes a line) in vain."""
    return block.isascii() and not any(c in block for c in (*_IRREGULAR_BLANKS, other, b"\n\n"))


class _CheckedText(ReadOnly):
    """The decompressed text as Arrow's reader pulls it, checked block by block (see
    :func:`read_regular_run`): the block read ahead first, then the rest of the stream.
    Raises :class:`Irregular` at the first irregular block."""

    def __init__(self, stream, first: bytes, sep: bytes):
        self.stream, self.pending = stream, first
        self.other = b" " if sep == b"\t" else b"\t"
        self.last = first[-1:]  # the byte before the next block

    def read(self, size: int = -1) -> bytes:
        if self.pending:
            block = self.pending if size < 0 else self.pending[:size]
            self.pending = self.pending[len(block) :]
            return block  # checked when the separator was chosen
        block = self.stream.read(size)
        if block and not _regular_block(self.last + block, self.other):
            raise Irregular  # (with the byte before: an empty line across two blocks)
        self.last = block[-1:] or self.last
        return block


# 4 MB blocks: as fast as larger ones, a third less peak memory
_REGULAR_BLOCK = 4 << 20


def _regular_layout(first: bytes) -> tuple[bytes, int]:
    """The separator and field count of regular text starting with ``first``
    (:class:`Irregular` for irregular bytes, both separators or fewer than 6 fields)."""
    blanks = _blanks(first) if first.isascii() else None
    if not first or blanks is None or blanks[0] == blanks[1]:
        raise Irregular
    if first.startswith(b"\n") or b"\n\n" in first:
        raise Irregular  # an empty line
    sep = b"\t" if blanks[0] else b" "
    end = first.find(b"\n")
    ncols = (first if end < 0 else first[:end]).count(sep) + 1
    if ncols < len(RUN_FIELDS):
        raise Irregular
    return sep, ncols


def _regular_options(sep: bytes, ncols: int, block_size: int) -> dict:
    """Arrow's CSV reading options for a regular run (see :func:`read_regular_run`)."""
    # every field as a plain string (the fastest: dictionary-encoding the qid and the tag
    # costs a hash per line, a fifth of the reading), but the score; q0 and rank are read
    # only to prove that no field is empty (a doubled separator would shift every later
    # field)
    kinds = {f"f{i}": pa.string() for i in range(4)} | {"f4": pa.float64(), "f5": pa.string()}
    # regular text is ASCII, checked block by block: not checking UTF-8 is a fifth faster
    return _csv_options(sep, ncols, block_size, kinds, check_utf8=False)


def _csv_options(
    sep: bytes, ncols: int, block_size: int, kinds: dict[str, pa.DataType], check_utf8: bool
) -> dict:
    """Arrow's CSV reading options for regular text of ``ncols`` fields: one ``sep``
    between fields, no quoting, no null (an empty field is an empty string, a missing one
    an error), the columns of ``kinds`` read with their types."""
    return dict(
        read_options=_read_options(ncols, block_size, threads=True),
        parse_options=pv.ParseOptions(
            delimiter=sep.decode(), quote_char=False, ignore_empty_lines=False
        ),
        convert_options=pv.ConvertOptions(
            column_types=kinds,
            include_columns=list(kinds),
            null_values=[],
            strings_can_be_null=False,
            quoted_strings_can_be_null=False,
            check_utf8=check_utf8,
        ),
    )


def _read_options(ncols: int, block_size: int, threads: bool) -> pv.ReadOptions:
    return pv.ReadOptions(
        column_names=[f"f{i}" for i in range(ncols)], block_size=block_size, use_threads=threads
    )


def _regular_columns(table: pa.Table) -> pa.Table:
    """``qid, docno, score, tag`` of the reader's columns; :class:`Irregular` if a field
    is empty (a separator at the start or end of a line or after another: empty fields
    beyond the tag go unnoticed, as trec_eval ignores those fields) or a score is not
    finite (Arrow's parser takes ``nan`` and ``inf``)."""
    if not table.num_rows:
        return table
    for column in table.columns:
        if not pa.types.is_floating(column.type) and _shortest(column) == 0:
            raise Irregular
    if not pc.all(pc.is_finite(table.column("f4"))).as_py():
        raise Irregular
    return pa.table(
        {
            "qid": table.column("f0"),
            "docno": table.column("f2"),
            "score": table.column("f4"),
            "tag": table.column("f5"),
        }
    )


def read_regular_run(source: Source | str | os.PathLike) -> pa.Table | None:
    """``qid, docno, score, tag`` of a regular run, or None for any other text.

    ``source``, a path or an open :class:`~trecbench.inputs.streams.Source` (whose owner
    records its checksum), is read from its start, plain or compressed alike. There is no
    ``line`` column: in a regular file, row ``i`` is line ``i + 1``.

    Regular: plain ASCII text, no CR/VT/FF/NUL, exactly one space or one tab (never both)
    between fields, the same number (at least 6) of non-empty fields on every line (no
    blank line), every score a finite decimal number. On
    such text Arrow's CSV reader splits lines exactly as :func:`tokenize` does, and its
    float parser accepts exactly ``SCORE_PATTERN`` (plus ``nan``/``inf``, rejected here),
    so the values equal :func:`run_table`'s — without per-field strings for the columns
    scoring never reads. The separator is chosen from the first block; every later block
    is checked as the reader pulls it, so the text is read once. Any other text (and every
    malformed one) returns None: the tokenizer then explains the problem with a line
    number.
    """
    if not isinstance(source, Source):
        with Source(source) as opened:
            table = read_regular_run(opened)
            opened.record()
        return table
    stream = source.stream()
    first = stream.read(_REGULAR_BLOCK)
    try:
        sep, ncols = _regular_layout(first)
        text = pa.PythonFile(_CheckedText(stream, first, sep), mode="r")
        table = _regular_columns(pv.read_csv(text, **_regular_options(sep, ncols, _REGULAR_BLOCK)))
    except (Irregular, pa.ArrowInvalid):
        return None  # ragged lines, a number that is none: the tokenizer explains it
    if table.num_rows == 0:
        return None
    pa.default_memory_pool().release_unused()  # the parser's buffers, q0 and rank
    return table


# the blocks parsed at once when streaming: each is whole lines of about this many bytes
_STREAMED_BLOCK = 1 << 20
# blocks parsed at the same time (Arrow's parser, without the GIL, on this many threads)
_STREAM_WORKERS = 2


def iter_regular_run(
    source: Source,
    block_size: int = _STREAMED_BLOCK,
    then: Callable[[pa.Table], Any] | None = None,
) -> Iterator:
    """:func:`read_regular_run` in tables of about ``block_size`` bytes of text each, for
    runs larger than memory; ``then(table)``, when given, is applied to each table in the
    thread that parsed it, and its results come instead of the tables.

    The text is read (and hashed) and checked in the calling thread, in blocks of whole
    lines; the blocks are parsed in a few threads at once, and come in file order. Raises
    :class:`Irregular` at the first block found not to be regular (after the tables of
    the blocks before it: they hold its first lines, exactly as the tokenizer reads them).
    """
    stream = source.stream()
    first = stream.read(block_size)
    sep, ncols = _regular_layout(first)
    options = _regular_options(sep, ncols, block_size)
    other = b" " if sep == b"\t" else b"\t"

    def parse(text: memoryview | None):
        if text is None:  # raised in its turn: after the tables of the blocks before it
            raise Irregular
        # one block per text (a longer line than the reader's blocks would not parse)
        reading = {**options, "read_options": _read_options(ncols, len(text) + 1, False)}
        try:
            table = _regular_columns(pv.read_csv(pa.py_buffer(text), **reading))
        except pa.ArrowInvalid:
            raise Irregular from None
        return table if then is None else then(table)

    pool = ThreadPoolExecutor(_STREAM_WORKERS, thread_name_prefix="trecbench-parse")
    pending: deque[Future] = deque()
    texts = _line_blocks(stream, first, block_size, other)
    try:
        for text in texts:
            pending.append(pool.submit(parse, text))
            if len(pending) > _STREAM_WORKERS:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()
    finally:
        texts.close()
        for future in pending:
            future.cancel()
        pool.shutdown(wait=True)


def _line_blocks(
    stream, first: bytes, block_size: int, other: bytes
) -> Iterator[memoryview | None]:
    """The text of ``stream`` (``first`` already read from it) in blocks of whole lines of
    about ``block_size`` bytes (a longer line makes a longer block), each read into a
    buffer of its own (blocks are parsed while the next ones are read): no copy of the text
    but the line cut between two blocks. Each block is checked to be regular; the first
    that is not comes as None, and ends the blocks."""
    read_into = getattr(stream, "readinto", None)
    held = first
    while True:
        # a line longer than a block: reads double, so each byte is checked a few times
        size = max(block_size, len(held))
        buffer = bytearray(len(held) + size)
        buffer[: len(held)] = held
        if read_into is not None:
            got = read_into(memoryview(buffer)[len(held) :])
        else:
            more = stream.read(size)
            got = len(more)
            buffer[len(held) : len(held) + got] = more
        del buffer[len(held) + got :]
        if not buffer:
            return
        if not _regular_block(buffer, other):
            yield None
            return
        end = buffer.rfind(b"\n", len(held)) + 1 if got else len(buffer)
        if end:
            held = bytes(buffer[end:])
            yield memoryview(buffer)[:end]
        else:
            held = bytes(buffer)
