"""TREC text as an entry of the format registry (:mod:`trecbench.inputs.formats`): read
whole, in blocks and for the validator, by :mod:`trecbench.inputs.trec_text`."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from ..compressions import HEAD_BYTES
from ..errors import InputError
from . import trec_regular, trec_tables, trec_text
from .formats import Whole
from .streams import Source

if TYPE_CHECKING:
    from . import Check


def read_whole(
    source: Source,
    kind: str,
    *,
    check: Check | None,
    full: bool,
    comments: bool,
    score_text: bool = False,
) -> Whole:
    """The file as a typed ``kind`` table (see :func:`trecbench.inputs.load`): a regular
    run straight from Arrow's reader (unless ``full`` asks for every column), anything
    else through the tokenizer and ``check`` (regular text holds nothing ``check`` warns
    of, nor a ``#`` line); ``comments`` skips trec_eval 10.0's ``#`` lines; ``score_text``
    keeps a run's scores as written too (:data:`~trecbench.inputs.trec_tables.SCORE_TEXT`)."""
    if kind == "run" and not full:
        table = trec_regular.read_regular_run(source, score_text)
        if table is not None:
            return Whole(table)
    if comments:  # trec_eval 10.0's '#' lines
        from .comments import tokens_without_comments

        tokens = tokens_without_comments(source, kind)
    else:
        tokens = trec_text.tokenize_file(source, 6 if kind == "run" else 4, kind == "run")
    metadata = _ir_metadata(tokens)
    warnings = tuple(check(tokens, kind)) if check is not None else ()
    if kind == "run":
        table = trec_tables.run_table(tokens, score_text)
    else:
        table = trec_tables.qrels_table(tokens)
    return Whole(table, warnings, metadata)


def _ir_metadata(tokens: trec_text.Tokens) -> dict | None:
    """The run's ir_metadata (None without a block); a malformed block is bad input."""
    found = tokens.ir_metadata
    if found is not None and found.error is not None:
        raise found.error
    return None if found is None else found.value


def read_blocks(source: Source, reading: Any) -> Iterator:
    """A run's tables in file order: the regular-file reader's (described by
    ``reading.describe`` in the threads that parse them), or (from the first irregular
    block on) the tokenizer's and ``reading.check``'s, which read the file again from its
    start and take over after the rows that came; the check's warnings go to
    ``reading.warnings``, the run's ir_metadata (a malformed block is bad input) to
    ``reading.ir_metadata``; the scores' text kept when ``reading.score_text``."""
    came = 0
    try:
        for piece in trec_regular.iter_regular_run(
            source, reading.read_bytes, then=reading.describe, score_text=reading.score_text
        ):
            came += piece.table.num_rows
            yield piece
        return
    except trec_regular.Irregular:
        pass
    check = reading.check(source.path) if reading.check is not None else None
    for tokens in trec_text.iter_tokens(source, 6, reading.read_bytes, metadata=True):
        metadata = _ir_metadata(tokens)  # the first tokens hold the block, if any
        if metadata is not None:
            reading.ir_metadata = metadata
        if check is not None:
            check.feed(tokens)
            if check.failed:
                continue  # the check's report says what is wrong
        if not len(tokens):
            continue
        table = trec_tables.run_table(tokens, reading.score_text)
        skipped = min(came, table.num_rows)
        came -= skipped
        if skipped < table.num_rows:
            yield table.slice(skipped)
    if check is not None:
        reading.warnings = list(check.finish())


def validate_tokens(
    source: Source, kind: str, keep: int, chunk_bytes: int
) -> Iterator[trec_text.Tokens]:
    """The file's tokens chunk by chunk (``keep`` fields a line), for the validator. The
    first chunk's ``head`` (what the file is told to be by: JSON lines, a wide encoding)
    is the content's first :data:`~trecbench.compressions.HEAD_BYTES` whatever
    ``chunk_bytes``: a smaller first chunk's alone changed the verdict with the chunk
    size (JSON lines up to a TREC line at line 41 were JSON lines at 100 bytes a chunk)."""
    head = _head(source) if chunk_bytes < HEAD_BYTES else None  # read before the chunks
    for tokens in trec_text.iter_tokens(source, keep, chunk_bytes, metadata=kind == "run"):
        if head and tokens.head and len(tokens.head) < len(head) and head.startswith(tokens.head):
            tokens = dataclasses.replace(tokens, head=head)
        head = None  # the first chunk's only
        yield tokens


def _head(source: Source) -> bytes | None:
    """The content's first :data:`~trecbench.compressions.HEAD_BYTES` (all of a shorter
    one), read apart from the chunks (every :meth:`Source.stream` starts again); None
    where they cannot be read: the chunks' reading says why, after the lines before."""
    stream = source.stream()
    parts, size = [], 0
    try:
        while size < HEAD_BYTES and (block := stream.read(HEAD_BYTES - size)):
            parts.append(block)
            size += len(block)
    except InputError:
        return None
    return b"".join(parts)
