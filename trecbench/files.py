"""Writing runs and qrels: TREC text in canonical form, or Parquet when the file name ends
in ``.parquet``.

Reading every kind of input is :mod:`trecbench.inputs`' job.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from . import arrow, outputs
from .errors import OutputError, UsageError, one_line
from .inputs import rank_run, to_pandas

RUN_COLUMNS = ("qid", "docno", "rank", "score", "tag")
QRELS_COLUMNS = ("qid", "docno", "rel")


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


def check_text_ids(columns: dict, where: str, source: str = "the run") -> None:
    """Refuse an id (``{"qid": ids, "docno": ids}``, lists, Series or Arrow arrays) that a
    line of TREC text cannot hold: empty, or with a blank or NUL, where a reader ends a
    field, it would read back as other ids. Only tables and dicts hold such ids; ``source``
    names what holds them (the message says to rename it there)."""
    for what, ids in columns.items():
        if isinstance(ids, list) and all(isinstance(one, str) for one in ids):
            ids = arrow.array(ids, pa.string())  # pa.array of a list imports pandas (0.2 s)
        elif not isinstance(ids, (pa.Array, pa.ChunkedArray)):
            ids = pa.array(ids)  # a Series (or a list of other values), converted in C
        ids = pc.cast(ids, pa.large_string())
        bad = pc.or_(
            pc.equal(pc.utf8_length(ids), arrow.scalar(0, pa.int64())),  # 0 would import pandas
            pc.match_substring_regex(ids, "[ \t\n\v\f\r\x00]"),
        )
        if pc.any(bad).as_py():
            shown = str(ids[int(np.flatnonzero(arrow.to_numpy(bad))[0])])
            raise OutputError(
                f"{where} cannot hold the {what} {shown[:40]!r} (empty, or with a blank or "
                f"NUL, where a field ends): rename it in {source}"
            )


# rows made into text at a time: a bounded copy of a large run, and a bar that moves
RUN_PIECE_ROWS = 1 << 20


def run_bytes(run) -> bytes:
    """A run in canonical TREC form: ``qid Q0 docno rank score tag``, tab-separated.

    ``run`` is a DataFrame, or a pyarrow table, with at least qid, docno, rank, score,
    tag; rows are written in the order given. Scores are written losslessly.
    """
    return b"".join(run_pieces(run))


def run_pieces(run, progress: Callable[[int, int], None] | None = None) -> Iterator[bytes]:
    """:func:`run_bytes` in pieces of :data:`RUN_PIECE_ROWS` lines, each made when asked;
    ``progress(rows done, rows)`` after each."""
    rows = len(run)
    for start in range(0, rows, RUN_PIECE_ROWS):
        if isinstance(run, pa.Table):
            yield _run_lines(_table_run_columns(run.slice(start, RUN_PIECE_ROWS)))
        else:
            yield _run_lines(_frame_run_columns(run.iloc[start : start + RUN_PIECE_ROWS]))
        if progress is not None:
            progress(min(start + RUN_PIECE_ROWS, rows), rows)


def _frame_run_columns(frame) -> dict[str, pa.Array]:
    columns = {what: _string_column(frame, what) for what in ("qid", "docno", "tag")}
    scores = format_scores(frame["score"].to_numpy(dtype=np.float64))
    return columns | {"rank": _integer_text(frame, "rank"), "score": scores}


def _table_run_columns(table: pa.Table) -> dict[str, pa.Array]:
    columns = {
        what: pc.cast(_contiguous(table.column(what)), pa.string())
        for what in ("qid", "docno", "tag", "rank")
    }
    scores = format_scores(arrow.to_numpy(table.column("score")))
    return columns | {"score": scores}


def _run_lines(columns: dict[str, pa.Array]) -> bytes:
    check_text_ids({what: columns[what] for what in ("qid", "docno", "tag")}, "a TREC run")
    q0 = pa.repeat(pa.scalar("Q0", pa.string()), len(columns["qid"]))
    order = [columns["qid"], q0, columns["docno"], columns["rank"], columns["score"]]
    return _text_lines([*order, columns["tag"]], "\t")


def qrels_bytes(qrels) -> bytes:
    """Qrels in canonical TREC form: ``qid iter docno rel``, space-separated; ``iter`` as
    the qrels hold it (the subtopic of the diversity measures, the judgment group of
    ``qrels_jg``), ``0`` when they have none."""
    ids = {what: _string_column(qrels, what) for what in ("qid", "docno")}
    if "iter" in qrels.columns:
        ids["iter"] = _string_column(qrels, "iter")
    check_text_ids(ids, "TREC qrels", "the qrels")
    iteration = ids.get("iter", pa.array(["0"] * len(qrels), pa.string()))
    columns = [ids["qid"], iteration, ids["docno"], _integer_text(qrels, "rel")]
    return _text_lines(columns, " ")


def parquet_named(path: str | os.PathLike) -> bool:
    """Whether a run or qrels written to ``path`` is Parquet (by its name, any case), else
    TREC text (``-``, standard output, too); a name the readers would take for another
    format is refused: a ``.jsonl`` (read as JSONL) or a compression suffix (the text is
    not compressed)."""
    from .compressions import SUFFIXES

    suffixes = [suffix.lower() for suffix in Path(path).suffixes]
    # as the readers tell: a name ending in a compression suffix, or in .jsonl (before one)
    ending = suffixes[-2:] if suffixes[-1:] and suffixes[-1] in SUFFIXES else suffixes[-1:]
    other = next((s for s in reversed(ending) if s in (".jsonl", *SUFFIXES)), None)
    if other is not None:
        raise UsageError(
            f"{one_line(os.fspath(path))}: trecbench writes TREC text here, or Parquet for a "
            f".parquet name, not {other[1:]}: name it otherwise (.run, .txt, .parquet)"
        )
    return bool(suffixes) and suffixes[-1] == ".parquet"


def run_frame(run):
    """``run`` as a DataFrame with :data:`RUN_COLUMNS`: as given when it has them (rows
    in the order given), else read by :func:`trecbench.inputs.load_run` (any input kind)
    and put in trec_eval's order with ranks 1..n."""
    import pandas as pd

    if isinstance(run, pd.DataFrame) and set(RUN_COLUMNS) <= set(run.columns):
        return run
    return to_pandas(rank_run(run))


def qrels_frame(qrels):
    """``qrels`` as a DataFrame with :data:`QRELS_COLUMNS` and, when they have one, the
    iteration ``iter`` (any input kind, see :func:`trecbench.inputs.load_qrels`): a
    DataFrame with those columns and no iteration as given, anything else read (an
    ``iteration`` column as ``iter``, refused unless it holds ids)."""
    import pandas as pd

    from .inputs.tables import SUBTOPIC_NAMES, subtopics

    if isinstance(qrels, pd.DataFrame) and set(QRELS_COLUMNS) <= set(qrels.columns):
        if not set(SUBTOPIC_NAMES) & set(map(str, qrels.columns)):
            return qrels
    from .inputs import load_qrels

    loaded = load_qrels(qrels)
    subtopics(loaded.table, loaded.origin)  # written: a column of floats or NaN refused
    return to_pandas(loaded.table)


def _parquet_bytes(frame, columns: dict[str, pa.DataType]) -> bytes:
    """The Parquet file of ``frame``'s ``columns``; a text value holding a NUL refused, as
    every reader refuses it (R31): the file would not read back."""
    from .inputs.parquet import table_bytes
    from .inputs.tables import first_nul, nul_message

    values = {
        name: _contiguous(
            pa.array(frame[name].astype(str) if kind == pa.string() else frame[name], kind)
        )
        for name, kind in columns.items()
    }
    for name, column in values.items():
        row = first_nul(column) if pa.types.is_string(column.type) else None
        if row is not None:
            raise OutputError(f"row {row}: {nul_message(name, column[row].as_py())}")
    return table_bytes(pa.table(values))


@outputs.in_input_scope  # a run read from a path is an input: never written over
def write_run(run, path: str | os.PathLike, inputs: Sequence[str | os.PathLike] = ()) -> None:
    """Write a run to ``path`` (atomic; never over an input, see :mod:`trecbench.outputs`).

    ``run``: a DataFrame with qid, docno, rank, score, tag (rows written in the order
    given), or any run :func:`trecbench.inputs.load_run` reads (written in trec_eval's
    order, ranks 1..n). A name ending in ``.parquet`` gets Parquet (columns qid, docno,
    rank, score, tag; ids as strings), anything else :func:`run_bytes`.
    """
    frame = _refuse_empty(run_frame(run), "run", path)
    if parquet_named(path):
        types = {"qid": pa.string(), "docno": pa.string(), "rank": pa.int64()}
        data = _parquet_bytes(frame, types | {"score": pa.float64(), "tag": pa.string()})
    else:
        data = run_bytes(frame)
    outputs.write_file(path, data, inputs)


def _refuse_empty(frame, kind: str, path):
    """``frame``, unless it holds no row: a file every reader refuses (R26) is not
    written."""
    if not len(frame):
        raise UsageError(f"empty {kind}: nothing to write to {os.fspath(path)}")
    return frame


@outputs.in_input_scope
def write_qrels(qrels, path: str | os.PathLike, inputs: Sequence[str | os.PathLike] = ()) -> None:
    """Write qrels to ``path`` (atomic; never over an input): Parquet (qid, docno, rel,
    and iter when the qrels have an iteration) when the name ends in ``.parquet``, else
    :func:`qrels_bytes`. ``qrels``: a DataFrame with qid, docno, rel, or any qrels
    :func:`trecbench.inputs.load_qrels` reads (:func:`qrels_frame`)."""
    frame = _refuse_empty(qrels_frame(qrels), "qrels", path)
    if parquet_named(path):
        iteration = {"iter": pa.string()} if "iter" in frame.columns else {}
        types = {"qid": pa.string(), **iteration, "docno": pa.string(), "rel": pa.int64()}
        data = _parquet_bytes(frame, types)
    else:
        data = qrels_bytes(frame)
    outputs.write_file(path, data, inputs)
