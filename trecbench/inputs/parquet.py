"""Parquet runs and qrels (read by content: the file starts with ``PAR1``).

Columns are named as in a DataFrame (see :mod:`trecbench.inputs.tables`): trecbench
writes ``qid, docno, rank, score, tag`` for runs and ``qid, docno, rel`` for qrels, with
ids as strings. The file is read once, into memory (Parquet needs random access), and
hashed as it is read.
"""

from __future__ import annotations

import pyarrow as pa

from ..errors import InputError
from . import tables
from .streams import Source


def to_table(source: Source, kind: str) -> pa.Table:
    """The typed ``kind`` table of a Parquet file."""
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(pa.BufferReader(source.raw_bytes()))
    except (pa.ArrowException, OSError) as exc:
        raise InputError(source.path, None, f"not a readable Parquet file: {exc}") from None
    return tables.typed(table, kind, source.path, file=True)


def table_bytes(table: pa.Table) -> bytes:
    """The Parquet bytes of ``table`` (zstd-compressed when pyarrow has zstd)."""
    import pyarrow.parquet as pq

    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, compression="zstd" if pa.Codec.is_available("zstd") else None)
    return sink.getvalue().to_pybytes()
