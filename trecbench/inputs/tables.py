"""DataFrames and Arrow tables: any accepted column naming → the typed run/qrels table.

Accepted names (one per role; two names for one role are ambiguous and refused):

=========  =========================================  ==================================
role       run                                        qrels
=========  =========================================  ==================================
qid        ``qid``, ``query_id`` (ir_measures), ``q_id`` (ranx), ``query-id`` (BEIR)
docno      ``docno``, ``doc_id`` (ir_measures, ranx), ``docid``, ``corpus-id`` (BEIR)
value      ``score``                                  ``rel``, ``relevance`` (ir_measures),
                                                      ``label`` (PyTerrier), ``score``
                                                      (ranx, BEIR)
tag        ``tag`` (optional; default ``run``)        —
iter       —                                          ``iter``, ``iteration`` (ir_measures,
                                                      PyTerrier; optional)
=========  =========================================  ==================================

PyTerrier's results hold both ``docno`` (the document's name) and ``docid`` (Terrier's
internal number): ``docno`` is read, ``docid`` ignored.

A qrels' ``iter`` is a qrels file's second column: the subtopic of diversity measures and
the judgment group of ``-R qrels_jg``, ignored by the other measures. Other columns
(``rank``, ``query``...) are ignored, but for ``line`` (the physical line a row came from,
as :func:`trecbench.inputs.read_run` gives it), which error messages then cite.

Ids are strings and are never inferred: string columns are kept as they are, integer
columns are written in decimal (and marked: scoring refuses them beside the other input's
ids that no integer prints as, ``0123``); floating-point, boolean or mixed id columns are refused,
because they show that something already inferred types (``001`` became 1, ``1e5`` became
100000.0, ``NA`` became NaN) and the ids are lost. Scores must be finite numbers (or
decimal text); grades integers (or integral numbers, or integer text) within
±:data:`~trecbench.inputs.trec_text.MAX_GRADE`. The first bad row is named in the error.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from decimal import Decimal
from functools import partial

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .. import arrow
from ..errors import EXCERPT_LIMIT, InputError, UsageError, excerpt, shortened
from .trec_tables import MAX_GRADE, parse_grades, parse_scores

QID_NAMES = ("qid", "query_id", "q_id", "query-id")
DOCNO_NAMES = ("docno", "doc_id", "docid", "corpus-id")
SCORE_NAMES = ("score",)
REL_NAMES = ("rel", "relevance", "label", "score")
SUBTOPIC_NAMES = ("iter", "iteration")
DEFAULT_TAG = "run"

Where = Callable[[int], str]


def _row(i: int) -> str:
    return f"row {i}"


def _file_row(i: int) -> str:
    return f"row {i + 1}"


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
    if "docno" in present and "docid" in present:
        present.remove("docid")  # PyTerrier's frames: docid is Terrier's internal number
    if len(present) > 1:
        raise _column_error(origin, file, f"columns {present} all name the {role}; keep one")
    return present[0] if present else None


def _need(table: pa.Table, names: tuple[str, ...], role: str, origin: str, file: bool) -> str:
    name = _pick(table, names, role, origin, file)
    if name is None:
        columns = shortened(", ".join(map(str, table.column_names)))
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


def _decoded(values: pa.Array) -> pa.Array:
    """A dictionary-encoded column (a pandas ``category``) as its plain values."""
    if pa.types.is_dictionary(values.type):
        return values.dictionary_decode()
    return values


def _subtopics(values: pa.Array, name: str, origin: str, where: Where) -> pa.Array:
    """A qrels' subtopic column as :func:`ids` reads it; one it cannot read (floats, a
    missing value: pandas makes a column float as soon as one value is missing) is kept
    as missing values, refused by :func:`subtopics` only when a measure reads it."""
    try:
        return ids(values, name, origin, where, empty=True)
    except InputError:
        return pa.nulls(len(values), pa.string())


def subtopics(table: pa.Table, origin: str) -> pa.Array | None:
    """The subtopic (judgment group) of each judgment of a typed qrels ``table``: a qrels
    file's second column, a table's ``iter`` or ``iteration``; None without one. A column
    that could not be read as ids is refused here, by the measures that need it."""
    if "iter" not in table.column_names:
        return None
    column = table.column("iter")
    if column.null_count:
        raise InputError(
            origin,
            None,
            "the subtopic (iter or iteration) column holds values that are not ids (floats, "
            "or missing values); give strings or integers: the diversity measures and "
            "-R qrels_jg read it",
        )
    return column


def ids(
    values: pa.Array, name: str, origin: str, where: Where = _row, empty: bool = False
) -> pa.Array:
    """A string id column (plain or large strings as they are; dictionary-encoded ones
    decoded); integers are written in decimal. An empty id is refused unless ``empty``
    (a subtopic's: a label, not a field of a TREC line the measures read)."""
    values = _decoded(values)
    kind = values.type
    if pa.types.is_string(kind) or pa.types.is_large_string(kind):
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
    blank = pc.equal(pc.binary_length(values), 0)
    if not empty and pc.any(blank).as_py():  # no TREC file holds it, as JSONL refuses it
        row = int(np.flatnonzero(arrow.to_numpy(blank))[0])
        raise InputError(origin, None, f"{where(row)}: {name} is empty")
    return values


def scores(values: pa.Array, origin: str, where: Where = _row) -> pa.Array:
    """float64 scores: numbers, or text that is an ASCII decimal number; all finite.

    Integers of any width are taken as trec_eval takes their decimal text (``atof``): the
    nearest double, so a score beyond 2^53 is rounded as it would be in a TREC file."""
    values = _decoded(values)
    _refuse_nulls(values, "score", origin, where)
    if _text(values) or pa.types.is_decimal(values.type):  # decimals: as their text reads
        good, numbers = parse_scores(pc.cast(values, pa.string()))
        if not good.all():
            row = int(np.flatnonzero(~good)[0])
            shown = _shown(values[row])
            raise InputError(origin, None, f"{where(row)}: score {shown} is not a number")
    elif pa.types.is_integer(values.type):
        numbers = arrow.to_numpy(values).astype(np.float64)  # rounds to nearest, as atof
    elif pa.types.is_floating(values.type):
        numbers = arrow.to_numpy(pc.cast(values, pa.float64()))
    else:
        raise InputError(origin, None, f"score column has type {values.type}: expected numbers")
    finite = np.isfinite(numbers)
    if not finite.all():
        row = int(np.flatnonzero(~finite)[0])
        if _text(values):  # a number written beyond a double's range, named as written
            message = f"score {_shown(values[row])} overflows a double"
        else:
            message = f"score {numbers[row]} is not finite"
        raise InputError(origin, None, f"{where(row)}: {message}")
    return arrow.array(numbers)


def grades(values: pa.Array, origin: str, where: Where = _row) -> pa.Array:
    """int64 grades: integers, integral numbers or integer text, within ±MAX_GRADE."""
    values = _decoded(values)
    _refuse_nulls(values, "relevance", origin, where)
    kind = values.type
    if _text(values):
        parsed = parse_grades(pc.cast(values, pa.string()))
        bad = ~parsed.integer
        numbers = parsed.values
        too_big = parsed.huge
    elif pa.types.is_integer(kind):  # compared as integers: exact at any width
        exact = arrow.to_numpy(values)
        too_big = (exact > MAX_GRADE) | (exact < -MAX_GRADE)
        bad = np.zeros(len(exact), bool)
        numbers = np.where(too_big, 0, exact).astype(np.int64)
    elif pa.types.is_floating(kind) or pa.types.is_decimal(kind):
        floats = arrow.to_numpy(pc.cast(values, pa.float64(), safe=False))
        bad = ~np.isfinite(floats) | (floats != np.round(floats))
        too_big = ~bad & (np.abs(floats) > MAX_GRADE)
        numbers = np.where(bad | too_big, 0, floats).astype(np.int64)
    else:
        raise InputError(origin, None, f"relevance column has type {kind}: expected integers")
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        shown = _shown(values[row])
        raise InputError(origin, None, f"{where(row)}: relevance {shown} is not an integer")
    if too_big.any():
        row = int(np.flatnonzero(too_big)[0])
        raise InputError(
            origin,
            None,
            f"{where(row)}: relevance {_shown(values[row])} is beyond +-{MAX_GRADE:,} (trec_eval's "
            "nDCG would run for hours)",
        )
    return arrow.array(numbers.astype(np.int64))


def _shown(value: pa.Scalar) -> str:
    """A value as the message shows it: its text, cut short (a hostile cell can be huge)."""
    return shortened(str(value.as_py()), EXCERPT_LIMIT)


def _lines(table: pa.Table, first: int) -> pa.Array:
    """The ``line`` column if it holds line numbers (integers from 1, no nulls, within
    int64, each once: a table read from a file, sorted anew or not), else the rows
    numbered from ``first + 1`` (a message citing line 0, or -3, or one line for two rows
    would point nowhere)."""
    given = table.column("line") if "line" in table.column_names else None
    if given is not None and pa.types.is_integer(given.type) and not given.null_count:
        try:
            lines = pc.cast(given, pa.int64()).combine_chunks()
        except pa.ArrowInvalid:  # uint64 beyond int64: not line numbers
            lines = None
        if lines is not None and _line_numbers(arrow.to_numpy(lines)):
            return lines
    return arrow.array(np.arange(first + 1, first + table.num_rows + 1, dtype=np.int64))


def _line_numbers(values: np.ndarray) -> bool:
    """Whether ``values`` are distinct integers from 1 (ascending ones, a file's order,
    are told without a sort)."""
    if not len(values):
        return True
    if values.min() < 1:
        return False
    return bool(np.all(values[1:] > values[:-1]) or len(np.unique(values)) == len(values))


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
    if file and where is _row:  # a file's rows from 1, as its duplicates cite them
        where = _file_row
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
        subtopic_name = _pick(table, SUBTOPIC_NAMES, "subtopic (iteration)", origin, file)
        if subtopic_name:  # a qrels file's second column, in its place
            subtopic = _subtopics(column(subtopic_name), subtopic_name, origin, where)
            columns = {"qid": columns["qid"], "iter": subtopic, "docno": columns["docno"]}
        rel_name = _need(table, REL_NAMES, "relevance", origin, file)
        columns["rel"] = grades(column(rel_name), origin, where)
    columns["line"] = _lines(table, first)
    typed = pa.table(columns)
    integers = [  # read from integers here, or marked so by an earlier reading
        role
        for role, name in (("qid", qid_name), ("docno", doc_name))
        if pa.types.is_integer(_decoded(column(name)).type)
        or table.schema.field(name).metadata == INTEGER_IDS
    ]
    return with_integer_ids(typed, integers) if integers else typed


# field metadata of an id column read from integers (written in decimal): scoring refuses
# such ids beside the other input's ids with leading zeros, which the integers lost
INTEGER_IDS = {b"trecbench": b"ids read from integers"}


def with_integer_ids(table: pa.Table, roles: list[str]) -> pa.Table:
    """``table`` with its ``roles`` columns (``qid``, ``docno``) marked as read from
    integers (:data:`INTEGER_IDS`)."""
    fields = [
        field.with_metadata(INTEGER_IDS) if field.name in roles else field for field in table.schema
    ]
    return pa.Table.from_arrays(table.columns, schema=pa.schema(fields))


def carry_integer_ids(source: pa.Table | list[pa.Table], table: pa.Table) -> pa.Table:
    """``table`` (made from ``source``, or from several) with the marks of ids read from
    integers that any of them has."""
    sources = source if isinstance(source, list) else [source]
    roles = [role for role in ("qid", "docno") if any(integer_ids(s, role) for s in sources)]
    return with_integer_ids(table, roles) if roles else table


def integer_ids(table: pa.Table, role: str) -> bool:
    """Whether ``table``'s ``role`` column was read from integers."""
    names = table.schema.names
    return role in names and table.schema.field(role).metadata == INTEGER_IDS


# what Arrow raises for Python values it cannot hold as one type (a TypeError for
# Decimal("Infinity"))
_ARROW_REFUSALS = (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError, TypeError)

# the Python numbers a score or grade may be given as (numpy's as the values they hold)
_NUMBERS = (int, float, Decimal)


def _encodable(value: object) -> bool:
    if not isinstance(value, str):
        return True
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def python_values(values: list) -> list:
    """``values`` with numpy's numbers, booleans and text as the Python values they hold
    (``np.int64(2**53 + 1)`` as that int): a value is read by what it is, not by how it is
    spelt (and Arrow reads an ``np.uint64`` beside a float as the int64 of its bits: 2**64
    - 1 as -1.0). See :func:`_python_value`."""
    if not any(issubclass(kind, np.generic) for kind in set(map(type, values))):
        return values
    return [_python_value(value) if isinstance(value, np.generic) else value for value in values]


def _python_value(value: np.generic) -> object:
    """A numpy scalar's Python value: a ``longdouble`` (whose ``item()`` is itself) as the
    Decimal of its text, read as any number written so; a date or a duration stays as it
    is, to be named (its ``item()`` at nanoseconds is a bare int: it would pass for a
    number)."""
    if isinstance(value, np.longdouble):
        return Decimal(str(value))
    if isinstance(value, np.timedelta64):  # an np.signedinteger, to numpy
        return value
    if isinstance(value, np.number | np.bool_ | np.str_ | np.bytes_):
        return value.item()
    return value


def _taken(value: object, numbers: bool) -> bool:
    """Whether ``value`` is read through its decimal text when Arrow cannot hold the values
    as one type: an integer (of any width), or with ``numbers`` any number."""
    kinds = _NUMBERS if numbers else int
    return value is None or (isinstance(value, kinds) and not isinstance(value, bool))


def _number_text(value: int | float | Decimal) -> str:
    """A number's exact decimal text: an integral one as an integer (a grade reads 2.0 as
    2), a float as its shortest round-trip text, a Decimal as written."""
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else repr(value)
    integral = value.is_finite() and value == value.to_integral_value()
    return str(int(value)) if integral else str(value)


def kind_named(value: object) -> str:
    """What a Python value is, by its type, in a message's words: ``None``, ``a bool``,
    ``bytes``, ``a tuple``; pandas' NA as ``a missing value (pd.NA)`` (its type's name,
    NAType, says nothing to whoever put it in a dict)."""
    if value is None:
        return "None"
    if isinstance(value, bytes):
        return "bytes"
    kind = type(value)
    if kind.__name__ == "NAType" and kind.__module__.startswith("pandas"):
        return "a missing value (pd.NA)"
    name = "dict" if isinstance(value, Mapping) else kind.__name__
    return f"{'an' if name[0] in 'aeiouAEIOU' else 'a'} {name}"


def _id_kind(kind: type, missing: bool) -> bool:
    integer = issubclass(kind, int) and not issubclass(kind, bool)
    return issubclass(kind, str) or integer or (missing and kind is type(None))


def stray_id(values: list, missing: bool = False) -> int | None:
    """The row of the first of Python ids ``values`` that is neither text nor an integer (a
    bool is none; None is none unless ``missing``: a missing id, which :func:`ids` names),
    or None. The distinct types are looked at first: ids are almost always all text."""
    if all(_id_kind(kind, missing) for kind in set(map(type, values))):
        return None
    return next(i for i, value in enumerate(values) if not _id_kind(type(value), missing))


def _group(value: object, numbers: bool) -> str:
    """What ``value`` is, in a message's words: among the ids' kinds (text, an integer)
    or the numbers' (text, a number), else its type (an id that is a float: ``a float``)."""
    if isinstance(value, str):
        return "text"
    if isinstance(value, bool):
        return "a bool"
    if isinstance(value, _NUMBERS if numbers else int):
        return "a number" if numbers else "an integer"
    return kind_named(value)


def _stray(value: object, what: str, located: str, numbers: bool) -> str:
    """The message for ``value``, of no kind the role ``what`` takes, at ``located``."""
    expected = "an int, float or Decimal" if numbers else "text or an integer"
    return f"{located}: {what} {excerpt(value)} is {_group(value, numbers)}, not {expected}"


def python_ids(values: list, what: str, origin: str, where: Where = _row) -> pa.Array:
    """Python ids (records' query or document ids) as :func:`from_python` reads them, but
    the first that is neither text nor an integer is named even where every id is of its
    kind (all bytes, all floats: Arrow holds them as one column, whose type :func:`ids`
    would refuse in a DataFrame's words); ids that are all None are missing ones."""
    values = python_values(values)
    row = stray_id(values, missing=True)
    if row is not None:
        raise InputError(origin, None, _stray(values[row], what, where(row), numbers=False))
    array = from_python(values, what, origin, where)
    return array.cast(pa.string()) if pa.types.is_null(array.type) else array


def _refusal(values: list, what: str, where: Where, numbers: bool) -> str:
    """Why ``values`` are not one column: the first value of no kind the role takes, else
    the first of another kind than the first value's."""
    accepted = ("text", "a number" if numbers else "an integer")
    present = [(row, value, _group(value, numbers)) for row, value in enumerate(values)]
    present = [item for item in present if item[1] is not None]  # missing: the role says
    stray = next((item for item in present if item[2] not in accepted), None)
    if stray is not None:
        row, value, _ = stray
        return _stray(value, what, where(row), numbers)
    first, _, first_group = present[0]
    seen = where(first)  # before the row's: a dict from JSON cites the last key path named
    row, value, group = next(item for item in present if item[2] != first_group)
    return f"{where(row)}: {what} {excerpt(value)} is {group}, not {first_group} as in {seen}"


def _refuse_overflow(values: list, what: str, origin: str, where: Where) -> None:
    """Refuse the first Decimal beyond a double's range (``Decimal("1E+400")``) as it is
    written, as TREC text's ``1e400`` is: a score it overflows, a grade it lies far beyond
    ±MAX_GRADE, and its integer's text (:func:`_number_text`) would run to 401 digits, or
    for ``1E+999999999`` fill the memory."""
    row = next(
        (
            i
            for i, value in enumerate(values)
            if isinstance(value, Decimal) and value.is_finite() and math.isinf(float(value))
        ),
        None,
    )
    if row is not None:
        shown = shortened(str(values[row]), EXCERPT_LIMIT)
        raise InputError(origin, None, f"{where(row)}: {what} {shown} overflows a double")


def from_python(values, what: str, origin: str, where: Where = _row, numbers=False) -> pa.Array:
    """Python values (ids, scores or grades of a dict, records or an object column) as an
    Arrow array, or a one-line :class:`InputError` naming the first value that is of no
    kind the role takes, or of another kind than the first value's.

    Integers beyond 64 bits (with ``numbers``, mixed with floats or Decimals too: numbers
    Arrow cannot hold as one type) become their exact decimal text, which each role then
    reads by its own rule: an id as written, a score as trec_eval's ``atof`` reads the
    text (the nearest double), a grade refused beyond ±MAX_GRADE. A numpy scalar is read
    as the Python value it holds. A lone surrogate (``"\\udc80"``, what
    ``surrogateescape`` makes of bad bytes) is not text UTF-8 can hold: refused."""
    values = python_values(values)
    try:
        return pa.array(values)
    except UnicodeEncodeError:
        row = next(i for i, value in enumerate(values) if not _encodable(value))
        message = f"{where(row)}: {what} {excerpt(values[row])} holds a lone surrogate"
        raise InputError(origin, None, f"{message}, which UTF-8 cannot encode") from None
    except (OverflowError, *_ARROW_REFUSALS):
        if all(_taken(value, numbers) for value in values):
            _refuse_overflow(values, what, origin, where)
            texts = [None if value is None else _number_text(value) for value in values]
            return pa.array(texts, pa.string())
        raise InputError(origin, None, _refusal(values, what, where, numbers)) from None


def index_label(value: object) -> str:
    """A DataFrame's index label (or a dict's key) as errors cite it: ``20``, ``'a'`` (a
    numpy number as the Python value it holds, not ``np.int64(20)``; a date as a date, not
    the bare int its ``item()`` is at nanoseconds)."""
    return excerpt(python_values([value])[0])


def frame_table(frame, origin: str) -> tuple[pa.Table, Where]:
    """An Arrow table of a pandas DataFrame's columns (each converted on its own, so that
    a column of mixed types is named) and a ``where`` that cites the frame's index (its
    positions when two rows share a label: ``pd.concat`` keeps the labels)."""
    index = frame.index

    def labelled(row: int) -> str:
        return f"row {index_label(index[row])}"

    where = labelled if index.is_unique else _row

    read = QID_NAMES + DOCNO_NAMES + REL_NAMES + ("tag", "line")
    columns = {}
    for position, name in enumerate(map(str, frame.columns)):
        if name in columns and name in read:
            raise UsageError(f"{origin}: two columns are named {excerpt(name)}; keep one")
        column = frame.iloc[:, position]
        numbers = name in SCORE_NAMES + REL_NAMES
        if numbers and column.dtype == object:  # Python numbers: read as a dict's are
            values = column.where(column.notna(), None).tolist()  # NaN, NA: missing
            columns[name] = from_python(values, name, origin, where, numbers)
            continue
        try:
            columns[name] = pa.Array.from_pandas(column)
        # an object column of Python values of mixed types, or a type Arrow has not
        # (complex): read as a dict's values are, or refused naming the row
        except (UnicodeEncodeError, OverflowError, *_ARROW_REFUSALS):
            if name in read:
                columns[name] = from_python(column.tolist(), name, origin, where, numbers)
    return pa.table(columns) if columns else pa.table({}), where
