"""TREC text: run files (``qid Q0 docno rank score tag``) and qrels (``qid iter docno rel``),
plain or compressed (see :mod:`trecbench.inputs.streams`: every file is opened, hashed and
decompressed there, once).

Three layers, each a module (this one re-exports the other two's names):

* the tokenizer, here: :func:`tokenize` / :func:`iter_tokens` / :func:`tokenize_file` turn
  raw bytes into whitespace-separated fields (C ``isspace`` semantics, like trec_eval) with
  the **physical 1-based line number** of every line, plus the byte-level anomalies (blank
  lines, NUL bytes, invalid UTF-8) the validator reports. A byte-scan picks a fast path
  (pyarrow's multithreaded CSV reader) for regular single-separator text and falls back to
  a vectorised whitespace split otherwise; neither loops in Python per line.
* typed tables (:mod:`~trecbench.inputs.trec_tables`): :func:`run_table` /
  :func:`qrels_table` convert tokens into typed tables, raising :class:`InputError` with
  ``file:line`` for anything that would make trec_eval silently wrong.
* the regular reader (:mod:`~trecbench.inputs.trec_regular`): :func:`read_regular_run`
  reads a regular run (the scoring path's common case) straight into typed columns with
  the same CSV reader, skipping the tokens.

The chunks of whole lines a file is tokenized in, and the refusal of a line longer than
the most read, are :mod:`~trecbench.inputs.text_chunks`'. Ids are strings and are never
type-inferred (``001``, ``NA``, ``1e5`` survive unchanged). Writing TREC text is
:mod:`trecbench.files`' job.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterator
from typing import Any

import numpy as np
import pyarrow as pa

from .. import arrow
from .. import arrow_compute as pc
from ..compressions import HEAD_BYTES
from ..invisible import UNICODE_SPACE_PATTERN as UNICODE_SPACE_PATTERN
from ..invisible import python_pattern as python_pattern
from .invalid_utf8_lines import fields_as_bytes, invalid_utf8_lines
from .streams import Progress, Source
from .text_chunks import (
    DEFAULT_CHUNK_BYTES,
    block_first,
    first_long_line,
    refuse_long_line,
    starts_block,
    too_long_at,
)
from .text_chunks import iter_byte_chunks as iter_byte_chunks
from .tokens import MOST_LINE_BYTES
from .tokens import Tokens as Tokens

# (the regular reader's and the typed tables' names are re-exported: callers read TREC
# text from this module)
from .trec_regular import BOM as BOM
from .trec_regular import CONTROL_BYTES, blanks_in, read_regular
from .trec_regular import Irregular as Irregular
from .trec_regular import iter_regular_run as iter_regular_run
from .trec_regular import read_regular_run as read_regular_run
from .trec_tables import BEIR_HINT as BEIR_HINT
from .trec_tables import MAX_GRADE as MAX_GRADE
from .trec_tables import MSMARCO_HINT as MSMARCO_HINT
from .trec_tables import QRELS_FIELDS as QRELS_FIELDS
from .trec_tables import RUN_FIELDS as RUN_FIELDS
from .trec_tables import SCORE_PATTERN as SCORE_PATTERN
from .trec_tables import UNCONVERTED_RULES as UNCONVERTED_RULES
from .trec_tables import beir_ready as beir_ready
from .trec_tables import columns_shape as columns_shape
from .trec_tables import grade_beyond as grade_beyond
from .trec_tables import matches as matches
from .trec_tables import other_kind as other_kind
from .trec_tables import parse_grades as parse_grades
from .trec_tables import parse_ranks as parse_ranks
from .trec_tables import parse_scores as parse_scores
from .trec_tables import qrels_table as qrels_table
from .trec_tables import rank_too_large as rank_too_large
from .trec_tables import refuse_rows as refuse_rows
from .trec_tables import run_table as run_table
from .trec_tables import swapped_message as swapped_message
from .trec_tables import unconverted as unconverted

# what a UTF-8 byte-order mark does to trec_eval, which has no notion of one
BOM_IN_FIRST_QID = (
    "UTF-8 byte-order mark: trec_eval reads it as part of the first qid, which becomes a "
    "phantom topic; save the file without it (UTF-8 without signature)"
)
# bytes of text tokenized at a time when a file is read whole: the tokenizer's arrays cost
# tens of bytes a line, and a line may be one byte (a 10 MB run of newlines, read at once,
# peaked at 367 MB under --memory 256); what is kept of a chunk is its fields
WHOLE_CHUNK_BYTES = 1 << 20
# the most fields a line of text read by the fast path may hold: Arrow's CSV reader costs
# some kilobytes a column, so a line of 200,000 fields took a gigabyte (the general path's
# cost follows the bytes); a regular run has 6, qrels 4
MOST_FAST_FIELDS = 64
# what separates fields within a line (C isspace but the newline, as trec_eval reads them)
C_SPACE = " \t\r\v\f"

# the characters no id of TREC text holds: what ends a field (C isspace, NUL), the other C0
# controls and DEL (R23.control) and the Unicode blanks and invisible characters (R2, R6).
# One definition: the writers refuse them (trecbench.files), convert escapes them
# (trecbench.ids), validate flags them in a table's ids (R31)
CHARACTERS_NO_TREC_ID_HOLDS = r"[\x00-\x20\x7f]|" + UNICODE_SPACE_PATTERN


# ---------------------------------------------------------------------------------------
# tokenizing


def _line_starts(buf: np.ndarray) -> np.ndarray:
    newlines = np.flatnonzero(buf == 10)
    return np.concatenate(([0], newlines + 1)).astype(np.int64)


def _line_index(starts: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """0-based line index of each byte position."""
    return np.searchsorted(starts, positions, side="right") - 1


def _tokenize_fast(data: bytes, sep: bytes, keep: int) -> tuple[int, list[pa.Array]] | None:
    """Field count and first ``keep`` fields of regular ``data`` (see
    :func:`~trecbench.inputs.trec_regular.read_regular`); None for text that is not
    regular, or whose first line holds more than :data:`MOST_FAST_FIELDS` fields."""
    ncols = data[: data.find(b"\n")].count(sep) + 1
    if ncols > MOST_FAST_FIELDS:
        return None
    # every column is read, to see any empty field
    table = read_regular(data, sep, ncols)
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


def physical_lines(data: bytes) -> int:
    """The lines of ``data`` (whole lines, the last with or without its newline)."""
    return data.count(b"\n") + (0 if data.endswith(b"\n") or not data else 1)


def tokenize(
    data: bytes,
    path: str = "<bytes>",
    first_line: int = 1,
    keep: int = 6,
    separator: bytes | None = None,
) -> Tokens:
    """Split ``data`` into lines and whitespace-separated fields, keeping the first ``keep``;
    a line longer than :data:`~trecbench.inputs.tokens.MOST_LINE_BYTES` is refused
    (:class:`InputError`, at its line).

    ``separator`` (tab or space) is the file's separator for the spacing check, as found in
    an earlier chunk; by default the first line with several fields sets it.

    Lines are separated by ``\\n`` only (a lone CR is whitespace, as in trec_eval); fields by
    any of space, tab, CR, VT, FF. Lines with invalid UTF-8 are listed in ``bad_utf8_lines``;
    the rest of the file is still checked, each bad byte read as its escape (``\\xff``) in
    the line checks and held apart from that escape's text in the fields
    (:mod:`~trecbench.invalid_utf8`: ids differ as their bytes do).
    """
    refuse_long_line(data, path, first_line, keep)
    head = data[:HEAD_BYTES] if first_line == 1 else b""
    if data.isascii():
        return _tokenize_text(data, path, first_line, keep, separator, head)
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        starts = _line_starts(np.frombuffer(data, dtype=np.uint8))
        bad = invalid_utf8_lines(data, starts)
        # the line checks read each bad byte as its escape \xff, never a newline or a NUL
        # (the same lines, the same fields); the fields of those lines are then read from
        # their bytes, apart from the escape's text
        text = data.decode("utf-8", "backslashreplace").encode("utf-8")
        tokens = _tokenize_text(text, path, first_line, keep, separator, head, bad + first_line)
        return fields_as_bytes(tokens, data, starts, bad, first_line)
    return _tokenize_text(data, path, first_line, keep, separator, head)


def _tokenize_text(
    data: bytes, path: str, first_line: int, keep: int, separator, head: bytes, bad_lines=None
) -> Tokens:
    """:func:`tokenize` of ``data`` that is UTF-8 (``separator``: :func:`tokenize`'s;
    ``head``: the file's first bytes as read; ``bad_lines``: the numbers of the lines that
    were not UTF-8, an array)."""
    buf = np.frombuffer(data, dtype=np.uint8)
    ends_with_newline = data.endswith(b"\n")
    n_physical = physical_lines(data)
    bad_lines = np.empty(0, np.int64) if bad_lines is None else bad_lines
    blanks = blanks_in(data)
    control = len(data.translate(None, CONTROL_BYTES)) != len(data)
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
            other_separator_lines=numbers if other else np.empty(0, np.int64),
            separator=separator or b"",
            **common,
        )

    starts = _line_starts(buf) if starts is None else starts
    compact, compact_starts, empty, kept = _without_empty_lines(data, buf, starts)
    counts, fields, lines = _tokenize_general(compact, compact_starts, keep)
    numbers = kept[: len(counts)] + first_line
    trailing, irregular, other, separator, leading = _spacing_anomalies(lines, counts, separator)
    return Tokens(
        separator=separator or b"",
        line=numbers[counts > 0],
        nfields=counts[counts > 0],
        fields=fields,
        blank_lines=_merged(empty + first_line, numbers[counts == 0]),
        trailing_space_lines=numbers[trailing],
        irregular_space_lines=numbers[irregular],
        other_separator_lines=numbers[other],
        leading_blank_lines=numbers[leading],
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
    # at a line's end, only blanks after it, it separates nothing: trailing whitespace
    trailing = _only_blanks_after(buf, starts, spacing) if len(spacing) else spacing > 0
    found["space_control_lines"] = lines_of(spacing[~trailing])
    found["trailing_control_lines"] = lines_of(spacing[trailing])
    if control:
        found["control_lines"] = lines_of(
            np.flatnonzero(np.isin(buf, np.frombuffer(CONTROL_BYTES, np.uint8)))
        )
    if not data.isascii():
        found["unicode_space_lines"] = _unicode_space_lines(
            _raw_lines(data, starts), head, first_line
        )
    return found


def _only_blanks_after(buf: np.ndarray, starts: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """Mask of the byte ``positions`` with only C whitespace after them on their line."""
    blank = np.isin(buf, np.frombuffer(b" \t\n\r\v\f", np.uint8))
    printed = np.concatenate(([0], np.cumsum(~blank)))  # printed bytes before each one
    ends = np.append(starts, len(buf))[_line_index(starts, positions) + 1]  # the next line
    return printed[ends] == printed[positions]


def _unicode_space_lines(lines: pa.Array, head: bytes, first_line: int) -> np.ndarray:
    """Lines holding Unicode blanks or zero-width characters (a leading BOM is not one)."""
    hits = matches(lines, UNICODE_SPACE_PATTERN)
    if head.startswith(BOM) and len(hits):
        hits[0] = bool(matches(arrow.array([lines[0].as_py()[1:]]), UNICODE_SPACE_PATTERN)[0])
    return np.flatnonzero(hits) + first_line


def _spacing_anomalies(
    lines: pa.Array, counts: np.ndarray, separator: bytes | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray, bytes | None, np.ndarray]:
    """Masks of lines with trailing blanks, with irregular separators, and of those whose
    only irregularity is another separator than the file's, the separator, and the mask of
    lines with leading blanks (a qrels ``#`` after them is no comment to trec_eval 10.0).

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
    other = np.zeros(len(counts), dtype=bool)
    if separator is not None:
        other = (counts > 1) & (uses_tabs != (separator == b"\t")) & ~irregular
        irregular |= other
    return trailing, irregular & nonblank, other & nonblank, separator, leading


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
    """The tokens of ``source`` chunk by chunk. With ``metadata``, the first chunks are
    joined while they start an ir_metadata block whose end marker they do not hold (the
    marker may be on the file's last line, which a chunk of its own holds when it has no
    newline), up to the most bytes of a block read: read whole or streamed, with any
    memory given, a block is read alike. A line longer than the most read is refused
    after the lines before it are tokenized (:func:`~.text_chunks.too_long_at`)."""
    separator = None
    chunks = iter_byte_chunks(source, chunk_bytes, MOST_LINE_BYTES)
    for chunk, first_line in block_first(chunks) if metadata else chunks:
        run_start = metadata and first_line == 1
        long_line, refusal = first_long_line(chunk), None
        if long_line is not None:
            refusal = too_long_at(chunk, long_line, source.path, first_line, keep)
            # an ir_metadata block cut there would be one that never ends
            chunk = b"" if run_start and starts_block(chunk) else chunk[:long_line]
        if chunk:
            if run_start:
                tokens = tokenize_run_start(chunk, source.path, keep, separator)
            else:
                tokens = tokenize(chunk, source.path, first_line, keep, separator)
            separator = tokens.separator or None
            yield tokens
        if refusal is not None:
            raise refusal


def tokenize_run_start(data: bytes, path: str, keep: int = 6, separator=None) -> Tokens:
    """The tokens of a run's first lines, an ir_metadata block atop them read apart
    (``Tokens.ir_metadata``; :mod:`trecbench.inputs.ir_metadata`): the lines after it are
    tokenized as the file without it, their numbers those of the file."""
    from . import ir_metadata

    refuse_long_line(data, path, 1, keep)  # the block's lines too, not tokenized after
    found = ir_metadata.split(data, path)
    if found is None or not found.size:
        tokens = tokenize(data, path, 1, keep, separator)
        return tokens if found is None else dataclasses.replace(tokens, ir_metadata=found)
    tokens = tokenize(data[found.size :], path, found.lines + 1, keep, separator)
    physical = tokens.n_physical_lines + found.lines
    # the chunk's last line ends with a newline: the block's own, when nothing follows it
    ends = data.endswith(b"\n")
    return dataclasses.replace(
        tokens, ir_metadata=found, n_physical_lines=physical, ends_with_newline=ends
    )


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
    chunks = _source_tokens(path, keep, WHOLE_CHUNK_BYTES, metadata)
    parts = [_compact(part) for part in chunks]
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
