"""The regular run reader of TREC text: a run whose every line holds six non-empty
fields, one tab (or one space) apart, printable ASCII (what retrieval systems write) is
read straight into typed columns by Arrow's multithreaded CSV reader, without tokens; the
bytes are checked for regularity as the reader pulls them, in one pass. Anything else
raises :class:`Irregular` (or gives None), and the tokenizer
(:mod:`trecbench.inputs.trec_text`) reads it and explains any problem with a line number.
Score reads regular text without the validator's gate, so regular text holds nothing the
gate warns of (control bytes, ``#`` lines, fields after the tag): such text is irregular.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.csv as pv

from .. import arrow_compute as pc
from ..errors import BROKEN_OFF, InputError
from .arrow_handover import read_csv
from .streams import ReadOnly, Source
from .tokens import MOST_LINE_BYTES
from .trec_tables import RUN_FIELDS, SCORE_TEXT

# blanks trec_eval splits at and Arrow's CSV reader does not (NUL ends the file for
# trec_eval 9.x): text holding one is never regular
_IRREGULAR_BLANKS = (b"\r", b"\v", b"\f", b"\x00")
# C0 controls and DEL that are not whitespace to trec_eval (NUL is reported on its own):
# parts of a field, which the validator warns of (R23.control), so never regular
CONTROL_BYTES = bytes([*range(1, 9), *range(14, 32), 127])


def blanks_in(block: bytes | bytearray) -> tuple[bool, bool] | None:
    """Whether ``block`` holds tabs and whether it holds spaces; None if it holds one of
    :data:`_IRREGULAR_BLANKS`."""
    if any(c in block for c in _IRREGULAR_BLANKS):
        return None
    return b"\t" in block, b" " in block


# the UTF-8 byte-order mark: Arrow's CSV reader drops it where its input starts (each
# buffer it is given), trec_eval reads it as part of the qid
BOM = b"\xef\xbb\xbf"


def read_regular(data: bytes, sep: bytes, ncols: int) -> pa.Table | None:
    """Every column (``f0``, ``f1``, ..., as strings) of regular text ``data`` (whole
    lines, parsed as one block), or None if the text is not regular.

    Regular: every line holds ``ncols`` non-empty fields separated by one ``sep`` each (no
    blank line), and the text does not start with a UTF-8 byte-order mark (Arrow's reader
    would drop it from the first qid: at a file's start, or a chunk's). On such text
    Arrow's multithreaded CSV reader, without quoting or nulls, splits lines exactly as
    :func:`~trecbench.inputs.trec_text.tokenize` does.
    """
    if data.startswith(BOM):
        return None
    names = [f"f{i}" for i in range(ncols)]
    kinds = dict.fromkeys(names, pa.string())
    # one block: columns come as one chunk each, no copy to combine them (and small
    # default blocks are several times slower)
    options = _csv_options(sep, ncols, len(data) + 1, kinds, check_utf8=True)
    try:
        table = read_csv(data, **options)
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


class Irregular(Exception):
    """Raised by the regular-run readers: the text is not regular (the tokenizer reads
    it, and explains any problem with a line number)."""


def _unbroken(read, *args):
    """``read(*args)`` of the decompressed text; a stream broken off (R27, at no line)
    as :class:`Irregular`: the tokenizer reads the text again and says after which line
    it broke (:meth:`~trecbench.errors.InputError.broken_off_after`), as ``validate`` does."""
    try:
        return read(*args)
    except InputError as error:
        if error.line is None and error.message.startswith(BROKEN_OFF):
            raise Irregular from None
        raise


def _regular_block(block, other: bytes, at_line_start: bool = True) -> bool:
    """No CR, no DEL, no space in tab-separated text (one fast scan each), no line
    starting with ``#`` (``at_line_start``: whether ``block`` starts a line). Every other
    byte below 32 but the separators and newlines (VT, FF, NUL, a tab in space-separated
    text), and every byte past ASCII, is counted once the block is parsed
    (:func:`_low_bytes`), and refused then: it adds to the count and not to the lines,
    where a CR, a line's end to Arrow's reader, adds to both, so it alone is searched for
    before.

    Empty lines are not searched for here: a two-byte search is twenty times slower than
    these one-byte ones (0.18 s of the 7M-line run's 0.23 GB), and Arrow's reader already
    refuses them (an empty line is a row whose score is empty: a conversion error), at
    the first block holding one. The first block is searched (:func:`_regular_layout`),
    so a file of blank lines is never parsed as CSV."""
    return not any(c in block for c in _searched_before(other)) and not _comment_line(
        block, at_line_start
    )


def _searched_before(other: bytes) -> tuple[bytes, ...]:
    """The bytes :func:`_regular_block` searches for: CR, DEL and a space in tab-separated
    text (``other``, the separator not used; a tab is below 32, counted after)."""
    return (b"\r", b"\x7f", other) if other == b" " else (b"\r", b"\x7f")


def _low_bytes(block) -> int:
    """How many bytes of ``block`` are below 32 or past ASCII (128 and up: negative as
    signed bytes, so one comparison counts both): in regular text, only its newlines and
    separators (:func:`_controls_free`)."""
    return int(np.count_nonzero(np.frombuffer(block, np.int8) < 32))


# the text :func:`_scanned` compares at a time: its bytes and their comparisons stay in the
# first-level cache between the two checks (a 7M-line run's checks: 23 ms less CPU)
_SCAN_SLICE = 1 << 16


def _scanned(block, sep: bytes) -> tuple[bool, int]:
    """``(adjacent, low)``: whether two ``sep`` are adjacent in ``block``
    (:func:`_adjacent_separators`) and its :func:`_low_bytes`, in one pass over the text,
    a slice at a time (``low`` counts the slices up to the first pair found)."""
    data = np.frombuffer(block, np.uint8)
    low = 0
    for start in range(0, len(data), _SCAN_SLICE):
        stop = start + _SCAN_SLICE
        low += _low_bytes(data[start:stop])
        if _paired(data[start : stop + 1], sep):  # a byte more: the pair across the cut
            return True, low
    return False, low


def _controls_free(low: int, rows: int, sep: bytes, ends_line: bool) -> bool:
    """Whether text of ``rows`` parsed lines (the last ending in a newline if
    ``ends_line``), ``low`` of whose bytes are below 32 or past ASCII
    (:func:`_low_bytes`), holds no control byte (:data:`CONTROL_BYTES`) and is ASCII:
    each line of 6 fields has 5 separators and a newline, and only tabs and newlines may
    be those bytes (one pass over the text, after Arrow's parse has counted the lines: a
    third of the time of counting tabs and newlines too)."""
    per_line = len(RUN_FIELDS) if sep == b"\t" else 1
    return low == rows * per_line - (not ends_line)


def _comment_line(block, at_line_start: bool) -> bool:
    """Whether a line of ``block`` starts with ``#`` (to trec_eval 9.x a document, to
    10.0 a comment: the validator warns of it, R22); a two-byte search only when the
    one-byte one finds a ``#``."""
    if b"#" not in block:
        return False
    return (at_line_start and block[:1] == b"#") or b"\n#" in block


def _adjacent_separators(block, sep: bytes, before: bytes = b"") -> bool:
    """Whether two ``sep`` are adjacent in ``before + block`` (``before``: the byte read
    just before ``block``, if any): an empty field between them.

    Compared as 16-bit words at even and at odd offsets (no copy): a tenth of the time of
    a two-byte search, and less than reading q0 and rank as strings only to measure them
    (a 7M-line run: 27 ms against 65 ms)."""
    if before == sep and block[:1] == sep:
        return True
    return _paired(np.frombuffer(block, np.uint8), sep)


def _paired(data: np.ndarray, sep: bytes) -> bool:
    """Whether two bytes of ``data`` in a row are both ``sep`` (one byte), as the 16-bit
    word they make."""
    pair = np.uint16(sep[0] * 0x101)
    n = len(data)
    even, odd = data[: n - n % 2], data[1 : n - (n - 1) % 2]
    return bool((even.view(np.uint16) == pair).any() or (odd.view(np.uint16) == pair).any())


class _CheckedText(ReadOnly):
    """The decompressed text as Arrow's reader pulls it, checked block by block (see
    :func:`read_regular_run`): the block read ahead first, then the rest of the stream.
    Raises :class:`Irregular` at the first block found irregular before it is parsed
    (past ASCII among those: the file's parse would otherwise go on to its end before
    the count of low bytes refused it); the control bytes the count finds refuse the
    text once it is parsed (:meth:`controls_free`)."""

    def __init__(self, stream, first: bytes, sep: bytes):
        self.stream, self.pending, self.sep = stream, first, sep
        self.other = b" " if sep == b"\t" else b"\t"
        self.last = first[-1:]  # the last byte returned once ``first`` is
        self.low = _low_bytes(first)  # of every block: see :meth:`controls_free`
        # the bytes of the line not yet ended (a line is longer than a block only across
        # blocks: its ends are the only newlines to find)
        self.open_line = len(first) - first.rfind(b"\n") - 1

    def read(self, size: int = -1) -> bytes:
        if self.pending:
            block = self.pending if size < 0 else self.pending[:size]
            self.pending = self.pending[len(block) :]
            return block  # checked when the separator was chosen
        block = _unbroken(self.stream.read, size)
        if not block:
            return block
        at_line_start = self.last == b"\n"
        if (
            not block.isascii()
            or not _regular_block(block, self.other, at_line_start)
            or _adjacent_separators(block, self.sep, self.last)
            or self._too_long(block)
        ):
            raise Irregular
        self.last = block[-1:]
        self.low += _low_bytes(block)
        return block

    def _too_long(self, block: bytes) -> bool:
        """Whether ``block`` ends or goes on a line longer than the tokenizer reads
        (:data:`~trecbench.inputs.tokens.MOST_LINE_BYTES`: it refuses the text, at the line)."""
        first = block.find(b"\n")
        if first < 0:
            self.open_line += len(block)
            return self.open_line > MOST_LINE_BYTES
        ended, self.open_line = self.open_line + first, len(block) - block.rfind(b"\n") - 1
        return ended > MOST_LINE_BYTES

    def controls_free(self, rows: int) -> bool:
        """Whether the text read, ``rows`` lines, holds no control byte."""
        return _controls_free(self.low, rows, self.sep, self.last == b"\n")


# 4 MB blocks: as fast as larger ones, a third less peak memory
_REGULAR_BLOCK = 4 << 20


def _regular_layout(first: bytes) -> tuple[bytes, int]:
    """The separator and field count of regular text starting with ``first``
    (:class:`Irregular` for irregular bytes, both separators or other than 6 fields)."""
    blanks = blanks_in(first) if first.isascii() else None
    if not first or blanks is None or blanks[0] == blanks[1]:
        raise Irregular
    sep, other = (b"\t", b" ") if blanks[0] else (b" ", b"\t")
    if not _regular_block(first, other):
        raise Irregular
    if first.startswith(b"\n") or b"\n\n" in first:
        raise Irregular  # an empty line
    end = first.find(b"\n")
    ncols = (first if end < 0 else first[:end]).count(sep) + 1
    if ncols != len(RUN_FIELDS):
        raise Irregular  # fewer: an error; more: fields after the tag (R1.extra)
    return sep, ncols


def _regular_options(sep: bytes, ncols: int, block_size: int, score_text: bool) -> dict:
    """Arrow's CSV reading options for a regular run (see :func:`read_regular_run`)."""
    # the fields scoring reads as plain strings (the fastest: dictionary-encoding the qid
    # and the tag costs a hash per line, a fifth of the reading), but the score unless its
    # text is kept; q0 and rank are not read: the text holds no two adjacent separators
    # (checked with the blocks, :func:`_adjacent_separators`), so neither is empty (an
    # empty field would shift every later one)
    score = pa.string() if score_text else pa.float64()
    kinds = {"f0": pa.string(), "f2": pa.string(), "f4": score, "f5": pa.string()}
    # regular text is ASCII (what is not is refused: before the parse, or by the count of
    # low bytes after it): not checking UTF-8 is a fifth faster
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
    """``qid, docno, score, tag`` of the reader's columns, and ``score_text`` when the
    score was read as text (:data:`~trecbench.inputs.trec_tables.SCORE_TEXT`, its number
    parsed here by the parser Arrow's CSV reader uses); :class:`Irregular` if a field
    read is empty (a separator at the start or end of a line: one after another is
    refused with its block, :func:`_adjacent_separators`) or a score is not finite
    (Arrow's parser takes ``nan`` and ``inf``)."""
    if not table.num_rows:
        return table
    for column in table.columns:
        if not pa.types.is_floating(column.type) and _shortest(column) == 0:
            raise Irregular
    score = table.column("f4")
    text = None if pa.types.is_floating(score.type) else score
    if text is not None:
        score = pc.cast(text, pa.float64())  # ArrowInvalid for no number, as the reader's
    if not pc.all(pc.is_finite(score)).as_py():
        raise Irregular
    columns = {
        "qid": table.column("f0"),
        "docno": table.column("f2"),
        "score": score,
        "tag": table.column("f5"),
    }
    return pa.table(columns | ({SCORE_TEXT: text} if text is not None else {}))


def read_regular_run(
    source: Source | str | os.PathLike, score_text: bool = False
) -> pa.Table | None:
    """``qid, docno, score, tag`` of a regular run, or None for any other text;
    ``score_text``: also each score's text (:data:`~trecbench.inputs.trec_tables.SCORE_TEXT`).

    ``source``, a path or an open :class:`~trecbench.inputs.streams.Source` (whose owner
    records its checksum), is read from its start, plain or compressed alike. There is no
    ``line`` column: in a regular file, row ``i`` is line ``i + 1``.

    Regular: plain ASCII text (so no byte-order mark, which Arrow's reader would drop
    from the first qid), no control byte but tab and newline (no CR/VT/FF/NUL, no DEL),
    exactly one space or one tab (never both) between fields, 6 non-empty fields on every
    line (no blank line), no line starting with ``#``, every score a finite decimal
    number. Score's gate (:mod:`trecbench.gated.gate`) does not read regular text: on
    it the gate would say nothing but duplicates, which the ranking reports itself (what
    it warns of, fields after the tag, ``#`` lines, control bytes, makes text irregular).
    On such text Arrow's CSV reader splits lines exactly as
    :func:`~trecbench.inputs.trec_text.tokenize` does, and its float parser accepts
    exactly ``SCORE_PATTERN`` (plus ``nan``/``inf``, rejected here), so the values equal
    :func:`~trecbench.inputs.trec_tables.run_table`'s — without per-field strings for the
    columns scoring never reads. The separator is chosen from the first block; every
    later block is checked as the reader pulls it, so the text is read once. Any other
    text (and every malformed one) returns None: the tokenizer then explains the problem
    with a line number.
    """
    if not isinstance(source, Source):
        with Source(source) as opened:
            table = read_regular_run(opened, score_text)
            opened.record()
        return table
    stream = source.stream()
    try:
        first = _unbroken(stream.read, _REGULAR_BLOCK)
        sep, ncols = _regular_layout(first)
        if _adjacent_separators(first, sep):
            raise Irregular
        checked = _CheckedText(stream, first, sep)
        options = _regular_options(sep, ncols, _REGULAR_BLOCK, score_text)
        table = _regular_columns(read_csv(checked, **options))
    except (Irregular, pa.ArrowInvalid):
        return None  # ragged lines, a number that is none: the tokenizer explains it
    if table.num_rows == 0 or not checked.controls_free(table.num_rows):
        return None
    pa.default_memory_pool().release_unused()  # the parser's buffers
    return table


# the blocks parsed at once when streaming: each is whole lines of about this many bytes
_STREAMED_BLOCK = 1 << 20
# blocks parsed at the same time (Arrow's parser, without the GIL, on this many threads)
_STREAM_WORKERS = 2


def iter_regular_run(
    source: Source,
    block_size: int = _STREAMED_BLOCK,
    then: Callable[[pa.Table], Any] | None = None,
    score_text: bool = False,
) -> Iterator:
    """:func:`read_regular_run` in tables of about ``block_size`` bytes of text each, for
    runs larger than memory; ``then(table)``, when given, is applied to each table in the
    thread that parsed it, and its results come instead of the tables; ``score_text``:
    as :func:`read_regular_run` takes it.

    The text is read (and hashed) and checked in the calling thread, in blocks of whole
    lines; the blocks are parsed in a few threads at once, and come in file order. Raises
    :class:`Irregular` at the first block found not to be regular (after the tables of
    the blocks before it: they hold its first lines, exactly as the tokenizer reads them).
    """
    stream = source.stream(block=block_size)
    first = _unbroken(stream.read, block_size)
    sep, ncols = _regular_layout(first)
    options = _regular_options(sep, ncols, block_size, score_text)
    other = b" " if sep == b"\t" else b"\t"

    def parse(text: memoryview | None):
        if text is None:  # raised in its turn: after the tables of the blocks before it
            raise Irregular
        # one block per text (a longer line than the reader's blocks would not parse)
        reading = {**options, "read_options": _read_options(ncols, len(text) + 1, False)}
        adjacent, low = _scanned(text, sep)
        if adjacent:  # whole lines: no pair across two blocks
            raise Irregular
        try:
            table = _regular_columns(read_csv(text, **reading))
        except pa.ArrowInvalid:
            raise Irregular from None
        if not _controls_free(low, table.num_rows, sep, text[-1:] == b"\n"):
            raise Irregular
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
    """The text of ``stream`` (``first`` already read from it, and found regular by
    :func:`_regular_layout`) in blocks of whole lines of about ``block_size`` bytes (a
    longer line makes a longer block), each read into a buffer of its own (blocks are
    parsed while the next ones are read): no copy of the text but the line cut between two
    blocks. Each block is searched for what :func:`_regular_block` refuses; the first
    holding it comes as None, and ends the blocks (the control bytes and the bytes past
    ASCII are counted as each block is parsed: its table is then refused in its turn)."""
    read_into = getattr(stream, "readinto", None)
    held = first
    end = first.rfind(b"\n") + 1
    if end:  # the first read's whole lines (checked with it): parsed while more is read
        held = first[end:]
        yield memoryview(first)[:end]
    while True:
        # a line longer than a block: reads double, so each byte is checked a few times
        size = max(block_size, len(held))
        buffer = bytearray(len(held) + size)
        buffer[: len(held)] = held
        try:
            if read_into is not None:
                got = _unbroken(read_into, memoryview(buffer)[len(held) :])
            else:
                more = _unbroken(stream.read, size)
                got = len(more)
                buffer[len(held) : len(held) + got] = more
        except Irregular:
            yield None
            return
        del buffer[len(held) + got :]
        if not buffer:
            return
        # the line ``held`` starts is the only one longer than a block: past the longest
        # the tokenizer reads, it refuses the text (at the line)
        held_line_end = buffer.find(b"\n", len(held))
        too_long = (len(buffer) if held_line_end < 0 else held_line_end) > MOST_LINE_BYTES
        if too_long or not _regular_block(buffer, other):
            yield None
            return
        end = buffer.rfind(b"\n", len(held)) + 1 if got else len(buffer)
        if end:
            held = bytes(buffer[end:])
            yield memoryview(buffer)[:end]
        else:
            held = bytes(buffer)
