"""DataFrames and Arrow tables: any accepted column naming → the typed run/qrels table.

Accepted names (one per role; two names for one role are ambiguous and refused):

=========  =========================================  ==================================
role       run                                        qrels
=========  =========================================  ==================================
qid        ``qid``, ``query_id`` (ir_measures), ``q_id`` (ranx), ``query-id`` (BEIR)
docno      ``docno``, ``doc_id`` (ir_measures, ranx), ``docid``, ``corpus-id`` (BEIR)
value      ``score``                                  ``rel``, ``relevance`` (ir_measures),
                                                      ``score`` (ranx, BEIR)
tag        ``tag`` (optional; default ``run``)        —
=========  =========================================  ==================================

Other columns are ignored, but for ``line`` (the physical line a row came from, as
:func:`trecbench.inputs.read_run` gives it), which error messages then cite.

Ids are strings and are never inferred: string columns are kept as they are, integer
columns are written in decimal; floating-point, boolean or mixed id columns are refused,
because they show that something already inferred types (``001`` became 1, ``1e5`` became
100000.0, ``NA`` became NaN) and the ids are lost. Scores must be finite numbers (or
decimal text); grades integers (or integral numbers, or integer text) within
±:data:`~trecbench.inputs.trec_text.MAX_GRADE`. The first bad row is named in the error.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .. import arrow
from ..errors import InputError, UsageError
from .trec_text import MAX_GRADE, parse_grades, parse_scores

QID_NAMES = ("qid", "query_id", "q_id", "query-id")
DOCNO_NAMES = ("docno", "doc_id", "docid", "corpus-id")
SCORE_NAMES = ("score",)
REL_NAMES = ("rel", "relevance", "score")
DEFAULT_TAG = "run"

Where = Callable[[int], str]


def _row(i: int) -> str:
    return f"row {i}"


def _shifted(where: Where, first: int, row: int) -> str:
    return where(first + row)


def _column_error(origin: str, file: bool, message: str) -> InputError | UsageError:
    """A column missing or named twice: bad input in a file read (exit 2), a usage error
    in a table the caller built (exit 1)."""
    return InputError(origin, None, message) if file else UsageError(f"{origin}: {message}")


def _pick(
    table: pa.Table, names: tuple[str, ...], role: str, origin: str, file: bool
) -> str | None:
    present = [name for name in names if name in table.column_names]
    if len(present) > 1:
        raise _column_error(origin, file, f"columns {present} all name the {role}; keep one")
    return present[0] if present else None


def _need(table: pa.Table, names: tuple[str, ...], role: str, origin: str, file: bool) -> str:
    name = _pick(table, names, role, origin, file)
    if name is None:
        columns = ", ".join(map(str, table.column_names))
        message = f"no {role} column (one of {', '.join(names)}); columns: {columns}"
        raise _column_error(origin, file, message)
    return name


def _refuse_nulls(values: pa.Array, what: str, origin: str, where: Where, hint: str = "") -> None:
    if values.null_count:
        row = int(np.flatnonzero(arrow.to_numpy(values.is_null()))[0])
        raise InputError(origin, None, f"{where(row)}: {what} is missing{hint}")


def is_text(kind: pa.DataType) -> bool:
    return pa.types.is_string(kind) or pa.types.is_large_string(kind) or str(kind) == "string_view"


def _text(values: pa.Array) -> bool:
    return is_text(values.type)


def ids(values: pa.Array, name: str, origin: str, where: Where = _row) -> pa.Array:
    """A string (or dictionary-of-string) id column; integers are written in decimal."""
    kind = values.type
    if pa.types.is_dictionary(kind) and is_text(kind.value_type):
        values = values if kind.value_type == pa.string() else pc.cast(values, pa.string())
    elif pa.types.is_string(kind) or pa.types.is_large_string(kind):
        pass
    elif is_text(kind) or pa.types.is_integer(kind):
        values = pc.cast(values, pa.string())
    else:
        raise InputError(
            origin,
            None,
            f"{name} column has type {kind}: ids must be strings (or integers), never "
            "inferred; read the data with dtype=str (pandas: dtype=str, "
            "keep_default_na=False) so that ids like 001, 1e5 or NA stay as written",
        )
    _refuse_nulls(values, name, origin, where, " (NaN or None: was NA read as a missing value?)")
    return values


def scores(values: pa.Array, origin: str, where: Where = _row) -> pa.Array:
    """float64 scores: numbers, or text that is an ASCII decimal number; all finite."""
    _refuse_nulls(values, "score", origin, where)
    if _text(values):
        good, numbers = parse_scores(pc.cast(values, pa.string()))
        if not good.all():
            row = int(np.flatnonzero(~good)[0])
            raise InputError(origin, None, f"{where(row)}: score {values[row]} is not a number")
    elif pa.types.is_integer(values.type) or pa.types.is_floating(values.type):
        numbers = arrow.to_numpy(pc.cast(values, pa.float64()))
    else:
        raise InputError(origin, None, f"score column has type {values.type}: expected numbers")
    finite = np.isfinite(numbers)
    if not finite.all():
        row = int(np.flatnonzero(~finite)[0])
        raise InputError(origin, None, f"{where(row)}: score {numbers[row]} is not finite")
    return arrow.array(numbers)


def grades(values: pa.Array, origin: str, where: Where = _row) -> pa.Array:
    """int64 grades: integers, integral numbers or integer text, within ±MAX_GRADE."""
    _refuse_nulls(values, "relevance", origin, where)
    kind = values.type
    if _text(values):
        parsed = parse_grades(pc.cast(values, pa.string()))
        bad = ~parsed.integer
        numbers = parsed.values
        too_big = parsed.huge
    elif pa.types.is_integer(kind) or pa.types.is_floating(kind):
        floats = arrow.to_numpy(pc.cast(values, pa.float64()))
        bad = ~np.isfinite(floats) | (floats != np.round(floats))
        too_big = ~bad & (np.abs(floats) > MAX_GRADE)
        numbers = np.where(bad | too_big, 0, floats).astype(np.int64)
        if pa.types.is_integer(kind):  # exact, also beyond 2^53
            numbers = np.where(too_big, 0, arrow.to_numpy(pc.cast(values, pa.int64())))
    else:
        raise InputError(origin, None, f"relevance column has type {kind}: expected integers")
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise InputError(origin, None, f"{where(row)}: relevance {values[row]} is not an integer")
    if too_big.any():
        row = int(np.flatnonzero(too_big)[0])
        raise InputError(
            origin,
            None,
            f"{where(row)}: relevance {values[row]} is beyond +-{MAX_GRADE:,} (trec_eval's "
            "nDCG would run for hours)",
        )
    return arrow.array(numbers.astype(np.int64))


def _lines(table: pa.Table, first: int) -> pa.Array:
    if "line" in table.column_names and pa.types.is_integer(table.column("line").type):
        return pc.cast(table.column("line"), pa.int64()).combine_chunks()
    return arrow.array(np.arange(first + 1, first + table.num_rows + 1, dtype=np.int64))


def typed(
    table: pa.Table,
    kind: str,
    origin: str,
    where: Where = _row,
    file: bool = False,
    first: int = 0,
) -> pa.Table:
    """The typed ``kind`` (``"run"`` or ``"qrels"``) table of an Arrow table with any
    accepted column naming (see the module docstring). ``origin`` names the input in
    errors, ``where(row)`` a row; ``file``: the table was read from the file ``origin``
    (a column missing or named twice is then bad input, not a usage error); ``first``:
    the input's row the table starts at (a batch of a larger file: rows and lines are
    numbered in the whole input)."""
    if first:
        where = partial(_shifted, where, first)
    table = table.combine_chunks()

    def column(name: str) -> pa.Array:
        return table.column(name).combine_chunks()

    qid_name = _need(table, QID_NAMES, "query id", origin, file)
    doc_name = _need(table, DOCNO_NAMES, "document id", origin, file)
    columns = {
        "qid": ids(column(qid_name), qid_name, origin, where),
        "docno": ids(column(doc_name), doc_name, origin, where),
    }
    if kind == "run":
        score_name = _need(table, SCORE_NAMES, "score", origin, file)
        columns["score"] = scores(column(score_name), origin, where)
        tag_name = _pick(table, ("tag",), "run tag", origin, file)
        columns["tag"] = (
            ids(column(tag_name), tag_name, origin, where)
            if tag_name
            else pa.array([DEFAULT_TAG] * table.num_rows, pa.string())
        )
    else:
        rel_name = _need(table, REL_NAMES, "relevance", origin, file)
        columns["rel"] = grades(column(rel_name), origin, where)
    columns["line"] = _lines(table, first)
    return pa.table(columns)


def frame_table(frame, origin: str) -> tuple[pa.Table, Where]:
    """An Arrow table of a pandas DataFrame's columns (each converted on its own, so that
    a column of mixed types is named) and a ``where`` that cites the frame's index."""
    columns = {}
    for name in frame.columns:
        try:
            columns[str(name)] = pa.Array.from_pandas(frame[name])
        except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
            if str(name) in QID_NAMES + DOCNO_NAMES + REL_NAMES + ("tag",):
                raise InputError(origin, None, f"column {name!r} mixes types: {exc}") from None
            continue  # a column nobody reads
    index = frame.index

    def where(row: int) -> str:
        return f"row {index[row]!r}"

    return pa.table(columns) if columns else pa.table({}), where
