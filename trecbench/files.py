"""Writing runs and qrels: TREC text in canonical form, or Parquet when the file name ends
in ``.parquet``.

Reading every kind of input is :mod:`trecbench.inputs`' job: what is written is read by
it first, into the typed table :func:`trecbench.evaluate` reads, so that what it refuses
(a missing or float id, a grade 0.6, a score NaN, a document listed twice...) is refused
here in the same one line, never written or dropped. TREC text also refuses an id no
line of it holds (:func:`check_text_ids`), which Parquet holds as it is.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import numpy as np
import pyarrow as pa

from . import arrow, outputs
from . import arrow_compute as pc
from .errors import InputWarning, OutputError, UsageError, one_line
from .inputs import ir_metadata, load_qrels, load_run, rank_loaded, refuse_listed_twice
from .inputs.trec_text import CHARACTERS_NO_TREC_ID_HOLDS, python_pattern
from .naming import path_argument
from .type_names import flag_from

RUN_COLUMNS = ("qid", "docno", "rank", "score", "tag")
QRELS_COLUMNS = ("qid", "docno", "rel")
# as Python's re spells it: an id refused is told by its first such character
_NO_TREC_ID_HOLDS = re.compile(python_pattern(CHARACTERS_NO_TREC_ID_HOLDS))


def format_scores(scores) -> pa.Array:
    """The fewest digits that read back as the same float64 (Arrow's cast is round-trip
    exact); a zero as ``0``, never ``-0`` (a normalised or fused zero can carry the sign,
    which a run's reader ignores: -0.0 + 0.0 is 0.0)."""
    return pc.cast(arrow.array(np.asarray(scores, dtype=np.float64) + 0.0), pa.string())


def text_lines(columns: dict[str, pa.Array | pa.Scalar], sep: str) -> bytes:
    """The bytes of ``columns`` joined by ``sep``, one newline-terminated line per row (a
    scalar, :func:`trecbench.arrow.scalar`: the same field on every line; the first is a
    column); a missing value refused (Arrow would join its row into a missing line: no
    bytes)."""
    values = list(columns.values())
    if not values or len(values[0]) == 0:
        return b""
    for name, column in columns.items():
        if not isinstance(column, pa.Scalar) and column.null_count:
            row = int(np.flatnonzero(arrow.to_numpy(column.is_null()))[0])
            raise OutputError(f"row {row}: the {name} is missing: a TREC line holds every field")
    # separators as Arrow scalars: a Python str given to a compute function imports pandas
    joined = pc.binary_join_element_wise(*values, arrow.scalar(sep))
    lines = pc.binary_join_element_wise(joined, arrow.scalar(""), arrow.scalar("\n"))
    lines = lines.cast(pa.large_string())
    # the rows are contiguous in the data buffer: one copy of that span
    offsets = np.frombuffer(lines.buffers()[1], np.int64)[
        lines.offset : lines.offset + len(lines) + 1
    ]
    start, stop = int(offsets[0]), int(offsets[-1])
    return lines.buffers()[2][start:stop].to_pybytes()


def _contiguous(values: pa.Array | pa.ChunkedArray) -> pa.Array:
    # pandas columns backed by several Arrow chunks (e.g. after pd.concat) convert chunked
    return values.combine_chunks() if isinstance(values, pa.ChunkedArray) else values


def _text(table: pa.Table, name: str) -> pa.Array:
    return pc.cast(_contiguous(table.column(name)), pa.string())


def check_text_ids(columns: dict, where: str, source: str = "the run") -> None:
    """Refuse an id (``{"qid": ids, "docno": ids}``, lists, Series or Arrow arrays) that a
    line of TREC text cannot hold: empty; with a character that ends a field (a blank, a
    NUL: it would read back as other ids) or that validate flags in a field (another
    control, a Unicode blank or invisible character: R23, R2, R6), the characters
    ``convert`` escapes (:data:`~trecbench.inputs.trec_text.CHARACTERS_NO_TREC_ID_HOLDS`);
    or a ``qid`` (a line's first field) starting with ``#``, a comment line to trec_eval
    10.0. Only tables and dicts hold such ids; ``source`` names what holds them (the
    message says to escape or rename them there)."""
    for what, ids in columns.items():
        if isinstance(ids, list) and all(isinstance(one, str) for one in ids):
            ids = arrow.array(ids, pa.string())  # pa.array of a list imports pandas (0.2 s)
        elif not isinstance(ids, (pa.Array, pa.ChunkedArray)):
            ids = pa.array(ids)  # a Series (or a list of other values), converted in C
        bad = unwritable_ids(ids, what)
        if bad is not None and bad.any():
            shown = str(ids[int(np.flatnonzero(bad)[0])])  # a string column: its text
            raise OutputError(
                f"{where} cannot hold the {what} {shown[:40]!r} ({unwritable_reason(shown)}): "
                f"escape it (trecbench.ids.escape_id, as convert does) or rename it in {source}"
            )


def unwritable_ids(ids: pa.Array | pa.ChunkedArray, what: str) -> np.ndarray | None:
    """Which of ``ids`` (Arrow, of the role ``what``: ``qid`` or ``docno``) a line of TREC
    text cannot hold (:func:`check_text_ids`); None when none, told in one pass."""
    if arrow.plain_ids(ids, nonempty=True):  # printable ASCII, no '#': nothing to refuse
        return None
    ids = pc.cast(ids, pa.large_string())
    bad = pc.or_(
        pc.equal(pc.utf8_length(ids), arrow.scalar(0, pa.int64())),  # 0 would import pandas
        pc.match_substring_regex(ids, CHARACTERS_NO_TREC_ID_HOLDS),
    )
    if what == "qid":
        bad = pc.or_(bad, pc.starts_with(ids, "#"))
    return arrow.to_numpy(pc.fill_null(bad, False)).astype(bool)


def unwritable_id(path: str, line: int | None, written: str, what: str, text: str):
    """The :class:`~trecbench.errors.InputError` refusing the ``what`` (``qid``,
    ``docno``) ``text`` of the run ``path`` at ``line``, which no line of the ``written``
    TREC text (``a pool file``, ``a fused run``) can hold (:func:`unwritable_reason`)."""
    from .errors import InputError
    from .escaping import escape_text

    return InputError(
        path,
        line,
        f"{written} cannot hold the {what} '{escape_text(text[:40], ' ')}' "
        f"({unwritable_reason(text)}): escape it (trecbench.ids.escape_id, as convert "
        "does) or rename it in the run",
    )


def unwritable_reason(text: str) -> str:
    """Why a line of TREC text cannot hold the id ``text`` (:func:`check_text_ids`)."""
    found = _NO_TREC_ID_HOLDS.search(text)
    if not text:
        return "empty"
    if found is None:
        return "a leading '#': trec_eval 10.0 reads the line as a comment"
    if found.group() in " \t\n\v\f\r\0":
        return "a blank or NUL, where a field ends"
    character = f"U+{ord(found.group()):04X}, a control or invisible character"
    return f"{character}: validate flags it in a TREC file, R23, R2 or R6"


# rows made into text at a time: a bounded copy of a large run, and a bar that moves
RUN_PIECE_ROWS = 1 << 20


def run_bytes(run, *, ids_read_from_text: bool = False) -> bytes:
    """A run in canonical TREC form: ``qid Q0 docno rank score tag``, tab-separated.

    ``run``: a typed run table as trecbench makes them (a pyarrow table with at least
    qid, docno, rank, score, tag: fused, converted, ranked), written as it is, or anything
    :func:`write_run` takes, read and checked by :func:`run_table`; rows are written in
    the order given. Scores are written losslessly. Ids are checked
    (:func:`check_text_ids`) unless ``ids_read_from_text``: read from a TREC text file
    (``validate --fix``), they are written back as trec_eval read them, what the
    validator flags in them (R2, R6, R23) being its to say.
    """
    return b"".join(run_pieces(run, ids_read_from_text=ids_read_from_text))


def run_pieces(
    run,
    progress: Callable[[int, int], None] | None = None,
    *,
    ids_read_from_text: bool = False,
) -> Iterator[bytes]:
    """:func:`run_bytes` in pieces of :data:`RUN_PIECE_ROWS` lines, each made when asked;
    ``progress(rows done, rows)`` after each."""
    made = isinstance(run, pa.Table) and set(RUN_COLUMNS) <= set(run.column_names)
    table = run if made else run_table(run)
    rows = len(table)
    for start in range(0, rows, RUN_PIECE_ROWS):
        yield _run_lines(table.slice(start, RUN_PIECE_ROWS), not ids_read_from_text)
        if progress is not None:
            progress(min(start + RUN_PIECE_ROWS, rows), rows)


def _run_lines(table: pa.Table, check_ids: bool) -> bytes:
    ids = {what: _text(table, what) for what in ("qid", "docno", "tag")}
    if check_ids:
        check_text_ids(ids, "a TREC run")
    scores = format_scores(arrow.to_numpy(table.column("score")))
    q0 = pa.repeat(arrow.scalar("Q0", pa.string()), len(scores))
    columns = {"qid": ids["qid"], "q0": q0, "docno": ids["docno"], "rank": _text(table, "rank")}
    return text_lines(columns | {"score": scores, "tag": ids["tag"]}, "\t")


def qrels_bytes(qrels) -> bytes:
    """Qrels in canonical TREC form: ``qid iter docno rel``, space-separated; ``iter`` as
    the qrels hold it (the subtopic of the diversity measures, the judgment group of
    ``qrels_jg``), ``0`` when they have none. ``qrels``: anything :func:`write_qrels`
    takes, read and checked by :func:`qrels_table`, rows in the order given."""
    return _qrels_lines(qrels_table(qrels))


def _qrels_lines(table: pa.Table) -> bytes:
    """:func:`qrels_bytes` of a :func:`qrels_table`."""
    names = [what for what in ("qid", "iter", "docno") if what in table.column_names]
    ids = {what: _text(table, what) for what in names}
    check_text_ids(ids, "TREC qrels", "the qrels")
    iteration = ids.get("iter", pa.repeat(arrow.scalar("0", pa.string()), len(table)))
    columns = {"qid": ids["qid"], "iter": iteration, "docno": ids["docno"]}
    return text_lines(columns | {"rel": _text(table, "rel")}, " ")


def parquet_named(path: str | os.PathLike, kind: str = "run", parquet: bool = True) -> bool:
    """Whether a run or qrels (``kind``) written to ``path`` is Parquet (by its name, any
    case), else TREC text (``-``, standard output, too); a name the readers would take for
    another format is refused: a ``.jsonl`` (read as JSONL) or a compression suffix (the
    text is not compressed), the refusal suggesting the kind's names (and ``.parquet``
    where the writer takes Parquet: ``parquet``; a pool file is text alone)."""
    from .compressions import SUFFIXES

    suffixes = [suffix.lower() for suffix in Path(path).suffixes]
    # as the readers tell: a name ending in a compression suffix, or in .jsonl (before one)
    ending = suffixes[-2:] if suffixes[-1:] and suffixes[-1] in SUFFIXES else suffixes[-1:]
    other = next((s for s in reversed(ending) if s in (".jsonl", *SUFFIXES)), None)
    if other is not None:
        parquets = (
            (" here, or Parquet for a .parquet name,", ", .parquet") if parquet else (" here,", "")
        )
        raise UsageError(
            f"{one_line(os.fspath(path))}: trecbench writes TREC text{parquets[0]} not "
            f"{other[1:]}: name it otherwise (.{kind}, .txt{parquets[1]})"
        )
    return bool(suffixes) and suffixes[-1] == ".parquet"


def run_table(run) -> pa.Table:
    """``run`` as the table written (:data:`RUN_COLUMNS`), read and checked as every reader
    and :func:`trecbench.evaluate` read it (:func:`trecbench.inputs.load_run`: ids, scores,
    tags; a document listed twice in a topic, R7), each refused in the same one line: a
    DataFrame with a rank column in the order given, its ranks as given (non-negative
    integers, R10; with or without a tag column), any other run (any input kind) in
    trec_eval's order with ranks 1..n (:func:`trecbench.inputs.rank_run`)."""
    return _run_written(run)[0]


def _run_written(run) -> tuple[pa.Table, dict | None]:
    """:func:`run_table` of ``run`` and the ir_metadata it was read with (a run file's
    block, a loaded run's), or None."""
    loaded = load_run(run)
    refuse_listed_twice(loaded, run)
    if _written_as_given(run):
        table = loaded.table.append_column("rank", _given_ranks(run, loaded.origin))
    else:
        table = rank_loaded(loaded, True)  # checked above, cited at the run's own rows
    return table.select(list(RUN_COLUMNS)), loaded.ir_metadata


def _written_as_given(run) -> bool:
    """Whether ``run`` is a DataFrame with a rank column (and qid, docno, score): its rows
    and ranks are written as given, checked alike with or without a tag column (a
    PyTerrier frame has none: its tag defaults as every reader's does), never replaced by
    1..n."""
    pandas = sys.modules.get("pandas")  # a DataFrame means pandas is imported
    columns = set(map(str, run.columns)) if pandas and isinstance(run, pandas.DataFrame) else ()
    return set(RUN_COLUMNS) - {"tag"} <= set(columns)


def _given_ranks(frame, origin: str) -> pa.Array:
    """A run DataFrame's ranks, checked (:func:`trecbench.inputs.tables.ranks`), its rows
    cited as :func:`trecbench.inputs.load_run` cites them."""
    from .inputs.tables import frame_table, ranks

    table, where = frame_table(frame[["rank"]], origin, numbers=("rank",))
    return ranks(table.column("rank"), origin, where)


def qrels_table(qrels) -> pa.Table:
    """``qrels`` (any input kind, see :func:`trecbench.inputs.load_qrels`) as the table
    written, rows in the order given: :data:`QRELS_COLUMNS` and, when they have one, the
    iteration ``iter`` (a table's ``iter`` or ``iteration``, refused unless it holds ids),
    read and checked as every reader and :func:`trecbench.evaluate` read them (ids, grades;
    a document judged twice in a topic's subtopic, Q5), each refused in the same one line."""
    from .inputs.tables import subtopics

    loaded = load_qrels(qrels)
    subtopics(loaded.table, loaded.origin)  # written: a column of floats or NaN refused
    refuse_listed_twice(loaded, qrels)
    names = loaded.table.column_names
    return loaded.table.select([name for name in ("qid", "iter", "docno", "rel") if name in names])


def _parquet_bytes(table: pa.Table, columns: dict[str, pa.DataType]) -> bytes:
    """The Parquet file of ``table``'s ``columns`` (a table every reader took: ids as
    strings, no NUL, R31)."""
    from .inputs.parquet import table_bytes

    return table_bytes(
        pa.table({name: pc.cast(table.column(name), kind) for name, kind in columns.items()})
    )


@outputs.in_input_scope  # a run read from a path is an input: never written over
def write_run(
    run, path: str | os.PathLike, inputs: Sequence[str | os.PathLike] = (), *, metadata: bool = True
) -> None:
    """Write a run to ``path`` (atomic; never over an input, the files read and those
    in ``inputs``, see :mod:`trecbench.outputs`).

    ``run``: a DataFrame with qid, docno, score and rank (rows and ranks written as
    given, ranks non-negative integers, R10; tag, when it has none, ``run`` as every
    reader's default), or any run :func:`trecbench.inputs.load_run` reads (written in trec_eval's
    order, ranks 1..n); read and checked as :func:`trecbench.evaluate` reads it
    (:func:`run_table`): what it refuses is refused here, in the same one line. A name
    ending in ``.parquet`` gets Parquet (columns qid, docno, rank, score, tag; ids as
    strings), anything else :func:`run_bytes`. A run read with an ir_metadata block (a
    file beginning with one, or :func:`~trecbench.inputs.load_run`'s run of it) keeps it
    atop the text, as ``validate --fix`` keeps it: trec_eval 10.0 and trecbench skip it,
    9.0.8 cannot read such a file (R30); ``metadata=False`` writes the lines alone. A
    Parquet file holds none: the block is dropped with an
    :class:`~trecbench.errors.InputWarning`.
    """
    path_argument(path, "path")  # before the run is read
    keep = flag_from("metadata", metadata)  # "no" was truthy: the block kept
    table, described = _run_written(run)
    described = described if keep else None
    table = _refuse_empty(table, "run", path)
    if parquet_named(path):
        if described is not None:
            _say_dropped(path)
        types = {"qid": pa.string(), "docno": pa.string(), "rank": pa.int64()}
        data = _parquet_bytes(table, types | {"score": pa.float64(), "tag": pa.string()})
    else:
        block = b"" if described is None else ir_metadata.block_text(described).encode()
        data = block + run_bytes(table)
    outputs.write_file(path, data, inputs)


def _say_dropped(path) -> None:
    """Warn that the run's ir_metadata block is not written to the Parquet ``path``."""
    import warnings

    from .callers import outside_trecbench

    message = (
        f"{os.fspath(path)}: the run's ir_metadata block is dropped (a Parquet run holds none)"
    )
    warnings.warn(InputWarning(message), stacklevel=outside_trecbench())


def _refuse_empty(table: pa.Table, kind: str, path) -> pa.Table:
    """``table``, unless it holds no row: a file every reader refuses (R26) is not
    written."""
    if not len(table):
        raise UsageError(f"empty {kind}: nothing to write to {os.fspath(path)}")
    return table


@outputs.in_input_scope
def write_qrels(qrels, path: str | os.PathLike, inputs: Sequence[str | os.PathLike] = ()) -> None:
    """Write qrels to ``path`` (atomic; never over an input, nor the files in
    ``inputs``): Parquet (qid, docno, rel,
    and iter when the qrels have an iteration) when the name ends in ``.parquet``, else
    :func:`qrels_bytes`. ``qrels``: any qrels :func:`trecbench.inputs.load_qrels` reads, in
    the order given, read and checked as :func:`trecbench.evaluate` reads them
    (:func:`qrels_table`): what it refuses is refused here, in the same one line."""
    path_argument(path, "path")  # before the qrels is read
    table = _refuse_empty(qrels_table(qrels), "qrels", path)
    if parquet_named(path, "qrels"):
        iteration = {"iter": pa.string()} if "iter" in table.column_names else {}
        types = {"qid": pa.string(), **iteration, "docno": pa.string(), "rel": pa.int64()}
        data = _parquet_bytes(table, types)
    else:
        data = _qrels_lines(table)
    outputs.write_file(path, data, inputs)
