"""Parquet runs and qrels (read by content: the file starts and ends with ``PAR1``).

Columns are named as in a DataFrame (see :mod:`trecbench.inputs.tables`): trecbench
writes ``qid, docno, rank, score, tag`` for runs and ``qid, docno, rel`` for qrels, with
ids as strings. The file is read once, into memory (Parquet needs random access), and
hashed as it is read; in blocks (``--memory``), a run is decoded in batches of
:data:`BATCH_ROWS` rows, a regular file's read from its path, others' (standard input)
from their bytes held. An entry of :mod:`trecbench.inputs.formats`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pyarrow as pa

from .. import arrow
from .. import arrow_compute as pc
from ..errors import InputError, shortened
from . import tables
from .arrow_handover import Handover
from .formats import Whole, finding_check
from .streams import STANDARD_INPUT, Source
from .trec_text import Tokens

# rows per table of a run read in blocks
BATCH_ROWS = 1 << 17


def _read(source: Source) -> pa.Table:
    # its bytes handed over: Arrow's threads may hold them after the read (arrow_handover)
    handover = Handover(source.raw_bytes())
    try:
        return _read_buffer(handover.take(), source.path)
    finally:
        handover.wait()


def _read_buffer(buffer: pa.Buffer, path: str) -> pa.Table:
    import pyarrow.parquet as pq

    try:
        opened = pq.ParquetFile(pa.BufferReader(buffer))
        _refuse_repeated_columns(opened.schema_arrow.names, path)
        return opened.read()
    except (pa.ArrowException, OSError) as exc:
        message = f"not a readable Parquet file: {shortened(str(exc).strip())}"
        raise InputError(path, None, message, "R27") from None


def _refuse_repeated_columns(names: list[str], path: str) -> None:
    """Refuse a file two of whose columns have one name (Arrow's reader named its own
    inner columns, ``__fragment_index``, in a message that said only 'multiple matches')."""
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        said = ", ".join(repr(name) for name in repeated)
        raise InputError(
            path, None, f"columns named twice: {shortened(said)} (each names one column)"
        )


def to_table(source: Source, kind: str) -> pa.Table:
    """The typed ``kind`` table of a Parquet file."""
    return tables.typed(_read(source), kind, source.path, file=True)


def read_whole(source: Source, kind: str, *, check: Any = None, **_: Any) -> Whole:
    """The file as its typed ``kind`` table (the TREC text options do not apply); one
    without a row goes to ``check`` (score's gate), which refuses it as validate does
    (R26)."""
    table = to_table(source, kind)
    if check is None or table.num_rows:
        return Whole(table)
    return Whole(table, tuple(check(table_tokens(table, kind, source.path), kind)))


def read_blocks(source: Source, reading: Any = None) -> Iterator[pa.Table]:
    """Typed batches of a Parquet run (read with random access: a regular file from its
    path, after its checksum was taken; anything else, standard input redirected from a
    file too, whose name opens nothing, from memory)."""
    import pyarrow.parquet as pq

    handover = None
    try:
        if source.regular and source.path != STANDARD_INPUT:
            source.record()
            # column chunks streamed through a small buffer, not read ahead whole: a
            # fifth less peak memory, as fast
            opened = pq.ParquetFile(source.path, pre_buffer=False, buffer_size=1 << 20)
        else:  # its bytes handed over, as _read's
            handover = Handover(source.raw_bytes())
            opened = pq.ParquetFile(pa.BufferReader(handover.take()))
        _refuse_repeated_columns(opened.schema_arrow.names, source.path)
        first = 0
        for batch in opened.iter_batches(batch_size=BATCH_ROWS):
            table = pa.Table.from_batches([batch])
            yield tables.typed(table, "run", source.path, file=True, first=first)
            first += table.num_rows
    except (pa.ArrowException, OSError) as exc:
        raise InputError(source.path, None, f"not a readable Parquet file: {exc}") from None
    finally:
        if handover is not None:
            opened = None
            handover.wait()


def dask_frame(path: str, named: str | None = None):
    """The file's columns as a Dask DataFrame, a partition per row group, opened at
    ``path`` and named ``named`` in errors (default ``path``: a Dask worker's absolute
    path for the one given); a file whose footer cannot be read is refused as one process
    refuses it (Dask's error was an internal one)."""
    import dask.dataframe as dd
    import pyarrow.parquet as pq

    try:
        return dd.read_parquet(path, dtype_backend="pyarrow")
    except (OSError, pa.ArrowException) as exc:
        reason: Exception = exc
        try:  # Dask's message wraps the reader's in its own lines: the reader's own
            pq.read_metadata(path)
        except (OSError, pa.ArrowException) as footer:
            reason = footer
        raise InputError(named or path, None, f"not a readable Parquet file: {reason}") from None


def rows(path: str) -> int | None:
    """The rows of the file, from its footer (None when it cannot be read: its reader
    says why)."""
    import pyarrow.parquet as pq

    try:
        return pq.read_metadata(path).num_rows
    except (OSError, pa.ArrowException):
        return None


def validate_tokens(source: Source, kind: str, keep: int, chunk_bytes: int) -> Iterator[Tokens]:
    """The file as one :func:`to_tokens`, for the validator. What ``score`` refuses of it
    is a finding (:attr:`InputError.finding`), as a TREC text file's bad line is, not an
    error that stops ``validate`` with no finding and no report for the other files: a
    file Arrow cannot read R27 (corrupt); as in TREC text, an id that is not UTF-8
    R23.utf8, one holding a NUL R31.nul (:func:`~.formats.finding_check`); any other table
    that is no run's or qrels' R32.parquet (a column missing or of the wrong type, a
    missing value, a score that is no finite number). Nothing else of the file is checked
    (its ranks are the validator's to check: R10, R11, R14)."""
    try:
        tokens = to_tokens(source, kind)
    except InputError as error:
        if error.finding:
            raise
        rule = finding_check(error.rule, "R32.parquet")
        message = f"{error.message}; nothing else of the file is checked"
        raise InputError(error.path, error.line, message, rule, finding=True) from None
    yield tokens


def to_tokens(source: Source, kind: str) -> Tokens:
    """A Parquet run or qrels as the tokens of the TREC text it stands for, so that the
    validator checks what ``score`` reads: the file is read and typed as ``score`` reads it
    (what it refuses is refused alike), then each row is its line (:func:`table_tokens`;
    the file's integer ``rank`` column when it has one)."""
    raw = _read(source)
    table = tables.typed(raw, kind, source.path, file=True)
    given_rank = raw.column("rank") if "rank" in raw.column_names else None
    return table_tokens(table, kind, source.path, given_rank)


def table_tokens(
    table: pa.Table, kind: str, path: str, given_rank: pa.ChunkedArray | None = None
) -> Tokens:
    """A typed ``kind`` table read from ``path`` as the tokens of the TREC text it stands
    for: each row at its ``line`` with the fields trec_eval would read: ``qid Q0 docno
    rank score tag`` (the score as the shortest text that reads back to the same double;
    the rank as :func:`_given_ranks` says) or ``qid 0 docno rel``."""
    rows = table.num_rows

    def constant(value: str) -> pa.Array:
        return pa.array(np.full(rows, value, dtype=object), pa.string())

    rank_given = None
    if kind == "run":
        rank, rank_given = _given_ranks(table, given_rank)
        fields = [table["qid"], constant("Q0"), table["docno"], rank, table["score"], table["tag"]]
    else:
        fields = [table["qid"], constant("0"), table["docno"], table["rel"]]
    return Tokens(
        path=path,
        line=arrow.to_numpy(table["line"].combine_chunks()).astype(np.int64),
        nfields=np.full(rows, len(fields), dtype=np.int64),
        fields=[_text(values) for values in fields],
        n_physical_lines=rows,
        table=True,
        rows=tables.lines_are_rows(table),
        rank_given=rank_given,
    )


def _text(values) -> pa.Array:
    values = pc.cast(values, pa.string())
    return values.combine_chunks() if isinstance(values, pa.ChunkedArray) else values


def _given_ranks(table: pa.Table, given: pa.ChunkedArray | None) -> tuple:
    """Each row's rank (the ``given`` integer; where there is none, a null or a column
    not of integers, the row's place in trec_eval's order within its topic) and where
    one was given (None: on every row; see :attr:`Tokens.rank_given`)."""
    if given is not None and pa.types.is_integer(given.type) and not given.null_count:
        return given, None
    made_up = arrow.array(_ranks(table))
    if given is None or not pa.types.is_integer(given.type):
        return made_up, np.zeros(table.num_rows, bool)
    valid = given.is_valid()
    return pc.if_else(valid, _text(given), _text(made_up)), arrow.to_numpy(valid)


def _ranks(table: pa.Table) -> np.ndarray:
    """1-based place of each row in trec_eval's order within its topic (score descending,
    then docno descending)."""
    keys = [("qid", "ascending"), ("score", "descending"), ("docno", "descending")]
    order = arrow.to_numpy(pc.sort_indices(table, sort_keys=keys))
    qids = table["qid"].take(pa.array(order))
    codes = arrow.to_numpy(pc.dictionary_encode(qids).combine_chunks().indices)
    starts = np.flatnonzero(np.r_[True, codes[1:] != codes[:-1]])
    place = np.arange(len(order)) - np.repeat(starts, np.diff(np.r_[starts, len(order)]))
    ranks = np.empty(len(order), np.int64)
    ranks[order] = place + 1
    return ranks


def table_bytes(table: pa.Table) -> bytes:
    """The Parquet bytes of ``table`` (zstd-compressed when pyarrow has zstd)."""
    import pyarrow.parquet as pq

    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, compression="zstd" if pa.Codec.is_available("zstd") else None)
    return sink.getvalue().to_pybytes()
