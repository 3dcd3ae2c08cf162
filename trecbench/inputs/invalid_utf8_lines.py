"""The lines of TREC text holding bytes that are not UTF-8 (R23.utf8): found, and their
fields read from their bytes as :mod:`trecbench.invalid_utf8` holds them, for
:func:`~trecbench.inputs.trec_text.tokenize` (which reads the rest of such text with each
bad byte as its escape). Loops over those lines only: UTF-8 text never comes here."""

from __future__ import annotations

import dataclasses

import numpy as np
import pyarrow as pa

from .. import arrow_compute as pc
from ..invalid_utf8 import marked_text
from .tokens import Tokens


def invalid_utf8_lines(data: bytes, starts: np.ndarray) -> np.ndarray:
    """0-based indices of the lines of ``data`` (``starts``: where each starts) holding
    invalid UTF-8: of the lines holding a byte beyond ASCII, those that do not decode, each
    decoded alone: one pass over the bytes (decoding the rest of the text from each bad
    line on took time quadratic in the lines, half a minute and more for a chunk of 4 MiB)."""
    buf = np.frombuffer(data, dtype=np.uint8)
    starts = starts[starts < len(buf)]  # where a last newline ends the text: no line
    if not len(starts):
        return np.empty(0, np.int64)
    wide = np.flatnonzero(np.maximum.reduceat(buf, starts) >= 0x80)
    ends = np.append(starts[1:], len(buf))
    bad: list[int] = []
    for index in wide.tolist():
        try:
            data[starts[index] : ends[index]].decode("utf-8")
        except UnicodeDecodeError:
            bad.append(index)
    return np.array(bad, dtype=np.int64)


def fields_as_bytes(
    tokens: Tokens, data: bytes, starts: np.ndarray, bad: np.ndarray, first_line: int
) -> Tokens:
    """``tokens`` of ``data`` (its first line numbered ``first_line``) whose fields on the
    lines holding bytes that are not UTF-8 (``bad``: their 0-based indices; ``starts``:
    where every line starts) are read from the bytes as
    :func:`~trecbench.invalid_utf8.marked_text` reads them: as the bytes' escapes alone,
    ``a`` 0xFF ``b`` was the docno ``a\\xffb`` (a false duplicate, R7)."""
    ends = np.append(starts[1:], len(data))
    columns: list[list[str | None]] = [[] for _ in tokens.fields]
    for index in bad.tolist():
        fields = data[starts[index] : ends[index]].split()  # at C isspace, as tokenized
        for column, values in enumerate(columns):
            values.append(marked_text(fields[column]) if column < len(fields) else None)
    # a line with a byte that is not UTF-8 is not blank: it has a row
    mask = pa.array(np.isin(tokens.line, bad + first_line))
    held = [
        pc.replace_with_mask(field, mask, pa.array(values, field.type))
        for field, values in zip(tokens.fields, columns, strict=True)
    ]
    return dataclasses.replace(tokens, fields=held)
