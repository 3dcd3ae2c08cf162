"""TREC text read in chunks of whole lines, for the tokenizer
(:mod:`trecbench.inputs.trec_text`), JSONL runs and the validator: the chunks of a
decompressed stream, the first joined while it starts an ir_metadata block, and the
refusal of a line longer than the most read
(:data:`~trecbench.inputs.tokens.MOST_LINE_BYTES`, R27.long)."""

from __future__ import annotations

from collections.abc import Iterator

from ..compressions import HEAD_BYTES
from ..errors import InputError
from .formats import PARQUET_MAGIC
from .streams import Source
from .tokens import MOST_LINE_BYTES
from .trec_tables import RUN_FIELDS

DEFAULT_CHUNK_BYTES = 64 << 20


def iter_byte_chunks(
    source: Source, chunk_bytes: int = DEFAULT_CHUNK_BYTES, most_line: int | None = None
) -> Iterator[tuple[bytes, int]]:
    """Yield ``(chunk, first_line)``: chunks of the decompressed content that end on a
    newline (but the last one), ``first_line`` the physical 1-based number of the chunk's
    first line. A truncated or corrupt compressed stream (told after which line), or a
    compressed Parquet file, raises :class:`InputError` (R27) instead of yielding a partial
    file that would look valid, or a screen of findings on binary lines. With
    ``most_line``, a line longer than that is not read to its end: the last chunk is its
    first bytes, more than ``most_line`` of them (:func:`first_long_line` finds it)."""
    first_line, carry = 1, b""
    stream = source.stream()
    try:
        block = stream.read(chunk_bytes)
        if source.compression is not None and block.startswith(PARQUET_MAGIC):
            source.refuse_parquet(block, stream)  # read to its end: is its magic there too?
            stream = source.stream()  # no: TREC text, read from its start again
            block = stream.read(chunk_bytes)
        while block:
            block = carry + block
            cut = block.rfind(b"\n") + 1
            if cut == 0:
                carry = block
            else:
                chunk, carry = block[:cut], block[cut:]
                yield chunk, first_line
                first_line += chunk.count(b"\n")
            if most_line is not None and len(carry) > most_line:
                break  # no more of it is read: its reader refuses the line (first_long_line)
            block = stream.read(chunk_bytes)
    except InputError as error:  # broken off: told after which line, for score as validate
        raise error.broken_off_after(first_line - 1) from error.__cause__
    if carry:
        yield carry, first_line


def first_long_line(data: bytes, most_line: int = MOST_LINE_BYTES) -> int | None:
    """Where the first line of ``data`` longer than ``most_line`` bytes starts; None when
    none is. A few searches for the last newline of a window (a line longer than the
    window holds none), not one per line."""
    start = 0
    while len(data) - start > most_line:
        newline = data.rfind(b"\n", start, start + most_line + 1)
        if newline < 0:
            return start
        start = newline + 1
    return None


def too_long_at(data: bytes, start: int, path: str, first_line: int, keep: int) -> InputError:
    """The refusal of the line of ``data`` (the file's lines from ``first_line``, ``keep``
    fields kept: 6 for a run) starting at ``start``, longer than the most read: R27.long,
    a finding (``validate`` reports it and checks the call's other files on); of a JSON
    text on the file's first line, R32's words: what converts it."""
    from .unconverted import json_content, json_message

    line = first_line + data.count(b"\n", 0, start)
    content = json_content(data[:HEAD_BYTES], path) if line == 1 else None
    if content is not None:
        kind = "run" if keep == len(RUN_FIELDS) else "qrels"
        return InputError(path, line, json_message(content, kind), "R32", finding=True)
    message = (
        f"a line longer than {MOST_LINE_BYTES >> 20} MiB: no TREC line is near that long "
        "(is it a TREC file?)"
    )
    return InputError(path, line, message, "R27.long", finding=True)


def refuse_long_line(data: bytes, path: str, first_line: int, keep: int) -> None:
    """Raise :func:`too_long_at` at the first line of ``data`` longer than the most read."""
    start = first_long_line(data)
    if start is not None:
        raise too_long_at(data, start, path, first_line, keep)


def starts_block(data: bytes) -> bool:
    """Whether text starting with ``data`` begins with an ir_metadata block."""
    from . import ir_metadata

    return ir_metadata.starts_with_block(data[: len(ir_metadata.START) + 64])


def block_first(chunks: Iterator[tuple[bytes, int]]) -> Iterator[tuple[bytes, int]]:
    """``chunks``, the first joined with the next ones while it starts an ir_metadata
    block whose end marker it does not hold, until they hold more than the most bytes of
    a block read (:data:`~trecbench.inputs.ir_metadata.MOST_BYTES`): enough for
    :func:`~trecbench.inputs.ir_metadata.find_block` to find the block's end or to tell
    a block past the bound from one that never ends, alike for any chunk size."""
    from . import ir_metadata

    first = next(chunks, None)
    if first is None:
        return
    data, line = first
    if starts_block(data):
        parts, size = [data], len(data)
        while ir_metadata.END not in parts[-1] and size <= ir_metadata.MOST_BYTES:
            if (more := next(chunks, None)) is None:
                break
            parts.append(more[0])
            size += len(more[0])
        data = b"".join(parts)
    yield data, line
    yield from chunks
