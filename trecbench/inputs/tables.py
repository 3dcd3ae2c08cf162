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

A qrels' ``score`` is ranx's and BEIR's alone: beside other query ids, or beside a run's
``rank``, ``tag`` or ``Q0``, the columns are a run's and are refused as qrels.

PyTerrier's results hold both ``docno`` (the document's name) and ``docid`` (Terrier's
internal number): ``docno`` is read, ``docid`` ignored, as beside any other name of the
document id (``doc_id``: the frame renamed for ir_measures). A run whose only document id is
an integer ``docid`` is refused: Terrier's number would match numeric docnos (MS MARCO's)
silently; Pyserini's ``docid``, text, is read.

A qrels' ``iter`` is a qrels file's second column: the subtopic of diversity measures and
the judgment group of ``-R qrels_jg``, ignored by the other measures. Other columns
(``rank``, ``query``...) are ignored, but for ``line`` (the physical line a row came from,
as :func:`trecbench.inputs.read_run` gives it), which error messages then cite.

Ids are strings and are never inferred: string columns are kept as they are, integer
columns are written in decimal (and marked: scoring refuses them beside the other input's
ids that no integer prints as, ``0123``); floating-point, boolean or mixed id columns are refused,
because they show that something already inferred types (``001`` became 1, ``1e5`` became
100000.0, ``NA`` became NaN) and the ids are lost; text that is not UTF-8 (a Parquet
file's strings are read unchecked) is refused, as in TREC text. Scores must be finite numbers (or
decimal text); grades integers (or integral numbers, or integer text) within
±:data:`~trecbench.inputs.trec_text.MAX_GRADE`. The first bad row is named in the error.
"""

from __future__ import annotations

import re
from decimal import Decimal
from functools import partial

import numpy as np
import pyarrow as pa

from .. import arrow
from .. import arrow_compute as pc
from ..errors import DuplicateError, InputError, excerpt
from .columns import (  # noqa: F401  (their names, imported from here by other modules)
    DOCNO_NAMES,
    QID_NAMES,
    REL_NAMES,
    SCORE_NAMES,
    SUBTOPIC_NAMES,
    column_error,
    need_column,
    pick_column,
    refuse_a_run,
    refuse_named_twice,
)
from .python_objects import ARROW_REFUSALS, Where, from_python, index_label, row_named
from .trec_tables import (
    MAX_GRADE,
    grade_beyond,
    parse_grades,
    parse_ranks,
    parse_scores,
    rank_too_large,
    shown_value,
)

DEFAULT_TAG = "run"
# a run's only document id an integer `docid`: PyTerrier's, Terrier's internal number, which
# would match the qrels' numeric docnos (MS MARCO's) silently (Pyserini's, text, is read)
_TERRIER_DOCID = (
    "{noun} 'docid' holds integers: a PyTerrier docid is Terrier's internal document "
    "number, not the docno; keep the docno {noun} beside it, or give the ids as text"
)


def _file_row(i: int) -> str:
    return f"row {i + 1}"


def _shifted(where: Where, first: int, row: int) -> str:
    return where(first + row)


def _refuse_nulls(values: pa.Array, what: str, origin: str, where: Where, hint: str = "") -> None:
    if values.null_count:
        row = int(np.flatnonzero(arrow.to_numpy(values.is_null()))[0])
        raise InputError(origin, None, f"{where(row)}: {what} is missing{hint}")


def _valid_utf8(values: pa.Array) -> bool:
    try:
        values.validate(full=True)  # every string's UTF-8, in one vectorised pass
    except pa.ArrowInvalid:
        return False
    return True


def _refuse_invalid_utf8(values: pa.Array, name: str, origin: str, where: Where) -> None:
    """Refuse a string column holding a value that is not UTF-8 (a Parquet file's bytes
    are not checked as they are read): as in TREC text (R23), a mis-encoded id never
    matches its judgment, and every file written of it is unreadable. The first such
    row is found by halving (on the error path only)."""
    if _valid_utf8(values):
        return
    low, high = 0, len(values)  # the first bad value is in [low, high)
    while high - low > 1:
        middle = (low + high) // 2
        if _valid_utf8(values.slice(low, middle - low)):
            low = middle
        else:
            high = middle
    written = pc.cast(values.slice(low, 1), pa.binary())[0].as_py()
    message = f"{where(low)}: {name} {excerpt(written)} is invalid UTF-8"
    raise InputError(origin, None, message, "R23")


_NUL = re.compile(b"\x00")


def first_nul(values: pa.Array) -> int | None:
    """The row of the first of the string ``values`` holding a NUL, or None: one search of
    the column's bytes (no Python per row), the row then found among its offsets."""
    data = values.buffers()[2] if len(values) else None
    if data is None:
        return None
    width = np.int64 if pa.types.is_large_string(values.type) else np.int32
    offsets = np.frombuffer(values.buffers()[1], width)[values.offset :][: len(values) + 1]
    found = _NUL.search(memoryview(data), int(offsets[0]), int(offsets[-1]))
    if found is None:
        return None
    # side="right": an empty value starting where the id does is not the row
    return int(np.searchsorted(offsets, found.start(), side="right")) - 1


def nul_message(name: str, value: str) -> str:
    """What an error says of the id ``value`` (column ``name``) holding a NUL (R31)."""
    read_as = excerpt(value.partition("\0")[0])
    return (
        f"{name} {excerpt(value)} holds a NUL (R31): trec_eval's and pytrec_eval's C "
        f"strings end at a NUL, so they would read it as {read_as} (two ids as one, values "
        "computed on other documents); rename it"
    )


def _refuse_nul(values: pa.Array, name: str, origin: str, where: Where) -> None:
    """Refuse an id holding a NUL (R31): every reader of a table, a dict or records gives its
    ids here, and JSONL its own (:func:`first_nul`)."""
    row = first_nul(values)
    if row is not None:
        message = f"{where(row)}: {nul_message(name, values[row].as_py())}"
        raise InputError(origin, None, message, "R31")


def is_text(kind: pa.DataType) -> bool:
    return pa.types.is_string(kind) or pa.types.is_large_string(kind) or str(kind) == "string_view"


def _integers(kind: pa.DataType) -> bool:
    """Whether a column of type ``kind`` holds integers (dictionary-encoded ones too),
    told by its type alone."""
    return pa.types.is_integer(kind.value_type if pa.types.is_dictionary(kind) else kind)


def _decoded(values: pa.Array) -> pa.Array:
    """A dictionary-encoded column (a pandas ``category``) as its plain values."""
    if pa.types.is_dictionary(values.type):
        return values.dictionary_decode()
    return values


def _subtopics(values: pa.Array, name: str, origin: str, where: Where, nul: bool) -> pa.Array:
    """A qrels' subtopic column as :func:`ids` reads it; one it cannot read (floats, a
    missing value: pandas makes a column float as soon as one value is missing) is kept
    as missing values, refused by :func:`subtopics` only when a measure reads it. Text no
    id may hold (not UTF-8, a NUL) is refused here, as in any other id."""
    try:
        return ids(values, name, origin, where, empty=True, nul=nul)
    except InputError as error:
        if error.rule is not None:  # text it cannot hold (not UTF-8, a NUL): refused now
            raise
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
            "missing values, or text beside integers); give strings or integers: the "
            "diversity measures and -R qrels_jg read it",
        )
    return column


def ids(
    values: pa.Array,
    name: str,
    origin: str,
    where: Where = row_named,
    empty: bool = False,
    nul: bool = False,
) -> pa.Array:
    """A string id column (plain or large strings as they are; dictionary-encoded ones
    decoded); integers are written in decimal. An empty id is refused unless ``empty``
    (a subtopic's: a label, not a field of a TREC line the measures read), one holding a
    NUL unless ``nul`` (a converter's, percent-escaped before any C string holds it)."""
    values = _decoded(values)
    kind = values.type
    if pa.types.is_string(kind) or pa.types.is_large_string(kind):
        pass
    elif is_text(kind) or pa.types.is_integer(kind):
        values = pc.cast(values, pa.string())
    elif not len(values):  # no id, so no type inferred (an empty DataFrame's are floats)
        values = pa.array([], pa.string())
    else:
        raise InputError(
            origin,
            None,
            f"{name} column has type {kind}: ids must be "
            f"{'strings' if name == 'docid' else 'strings (or integers)'}, never "
            "inferred; read the data with dtype=str (pandas: dtype=str, "
            "keep_default_na=False) so that ids like 001, 1e5 or NA stay as written",
        )
    _refuse_nulls(values, name, origin, where, " (NaN or None: was NA read as a missing value?)")
    _refuse_invalid_utf8(values, name, origin, where)
    if not nul:
        _refuse_nul(values, name, origin, where)
    blank = pc.equal(pc.binary_length(values), 0)
    if not empty and pc.any(blank).as_py():  # no TREC file holds it, as JSONL refuses it
        row = int(np.flatnonzero(arrow.to_numpy(blank))[0])
        raise InputError(origin, None, f"{where(row)}: {name} is empty")
    return values


def _numbers_given(values: pa.Array, name: str, origin: str, where: Where) -> pa.Array:
    """``values`` of a column of numbers (``name``: score, relevance, rank...) decoded, a
    missing one refused, and text refused where it is not UTF-8: what every such column
    is checked for before its numbers are read."""
    values = _decoded(values)
    _refuse_nulls(values, name, origin, where)
    if is_text(values.type):
        _refuse_invalid_utf8(values, name, origin, where)
    return values


def _integral(values: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """Float or decimal ``values`` as doubles, and where they are not integral (or not
    finite): the grades and ranks they may hold."""
    floats = arrow.to_numpy(pc.cast(values, pa.float64(), safe=False))
    return floats, ~np.isfinite(floats) | (floats != np.round(floats))


def scores(
    values: pa.Array, origin: str, where: Where = row_named, name: str = "score"
) -> pa.Array:
    """float64 scores (or another role's numbers, ``name``: a per-query value): numbers,
    or text that is an ASCII decimal number; all finite.

    Integers of any width are taken as trec_eval takes their decimal text (``atof``): the
    nearest double, so a score beyond 2^53 is rounded as it would be in a TREC file."""
    values = _numbers_given(values, name, origin, where)
    if is_text(values.type) or pa.types.is_decimal(values.type):  # decimals: as their text reads
        good, numbers = parse_scores(pc.cast(values, pa.string()))
        if not good.all():
            row = int(np.flatnonzero(~good)[0])
            shown = shown_value(values[row])
            infinite = str(values[row].as_py()).lstrip("+-").lower() in ("inf", "infinity")
            what = "is not finite" if infinite else "is not a number"  # Decimal('Infinity')
            raise InputError(origin, None, f"{where(row)}: {name} {shown} {what}")
    elif pa.types.is_integer(values.type):
        numbers = arrow.to_numpy(values).astype(np.float64)  # rounds to nearest, as atof
    elif pa.types.is_floating(values.type):
        numbers = arrow.to_numpy(pc.cast(values, pa.float64()))
    elif not len(values):  # no score, so no type inferred
        numbers = np.empty(0)
    else:
        raise InputError(origin, None, f"{name} column has type {values.type}: expected numbers")
    finite = np.isfinite(numbers)
    if not finite.all():
        row = int(np.flatnonzero(~finite)[0])
        if is_text(values.type):  # a number written beyond a double's range, named as written
            message = f"{name} {shown_value(values[row])} overflows a double"
        else:
            message = f"{name} {numbers[row]} is not finite"
        raise InputError(origin, None, f"{where(row)}: {message}")
    return arrow.array(numbers)


def grades(values: pa.Array, origin: str, where: Where = row_named) -> pa.Array:
    """int64 grades: integers, integral numbers or integer text, within ±MAX_GRADE."""
    values = _numbers_given(values, "relevance", origin, where)
    kind = values.type if len(values) else pa.int64()  # no grade, so no type inferred
    if is_text(values.type):
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
        floats, bad = _integral(values)
        too_big = ~bad & (np.abs(floats) > MAX_GRADE)
        numbers = np.where(bad | too_big, 0, floats).astype(np.int64)
    else:
        raise InputError(origin, None, f"relevance column has type {kind}: expected integers")
    for refused, why in ((bad, lambda _: "is not an integer"), (too_big, grade_beyond)):
        if refused.any():
            row = int(np.flatnonzero(refused)[0])
            said = f"relevance {shown_value(values[row])} {why(values[row].as_py())}"
            raise InputError(origin, None, f"{where(row)}: {said}")
    return arrow.array(numbers.astype(np.int64))


def ranks(values: pa.Array, origin: str, where: Where = row_named) -> pa.Array:
    """int64 ranks as a run's file writes them: non-negative integers within a C long
    (what the validator and TREC text's reader take, R10: :func:`parse_ranks`), integral
    numbers or integer text."""
    values = _numbers_given(values, "rank", origin, where)
    kind = values.type
    if is_text(values.type):
        numbers = parse_ranks(pc.cast(values, pa.string()))
        bad = arrow.to_numpy(numbers.is_null())
        numbers = arrow.to_numpy(pc.fill_null(numbers, 0))
    elif pa.types.is_integer(kind):  # an unsigned one beyond a long, a negative one
        exact = arrow.to_numpy(values)
        bad = (exact < 0) | (exact > np.iinfo(np.int64).max)
        numbers = np.where(bad, 0, exact).astype(np.int64)
    elif pa.types.is_floating(kind) or pa.types.is_decimal(kind):
        floats, bad = _integral(values)
        bad |= (floats < 0) | (floats >= 2.0**63)
        numbers = np.where(bad, 0, floats).astype(np.int64)
    else:
        raise InputError(origin, None, f"rank column has type {kind}: expected integers", "R10")
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        written = str(values[row].as_py())
        digits = written.isascii() and written.isdecimal()  # all digits, too many of them
        shown = shown_value(values[row])
        message = rank_too_large(shown) if digits else f"{shown} is not a non-negative integer"
        raise InputError(origin, None, f"{where(row)}: rank {message}", "R10")
    return arrow.array(numbers.astype(np.int64))


def given_lines(table: pa.Table) -> pa.Array | None:
    """The ``line`` column if it holds line numbers (integers from 1, no nulls, within
    int64, each once: a table read from a file, sorted anew or not), else None: the rows
    are numbered instead (a message citing line 0, or -3, or one line for two rows would
    point nowhere)."""
    given = table.column("line") if "line" in table.column_names else None
    if given is not None and pa.types.is_integer(given.type) and not given.null_count:
        try:
            lines = pc.cast(given, pa.int64()).combine_chunks()
        except pa.ArrowInvalid:  # uint64 beyond int64: not line numbers
            return None
        if _line_numbers(arrow.to_numpy(lines)):
            return lines
    return None


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
    where: Where = row_named,
    file: bool = False,
    first: int = 0,
    nul: bool = False,
    noun: str = "column",
) -> pa.Table:
    """The typed ``kind`` (``"run"`` or ``"qrels"``) table of an Arrow table with any
    accepted column naming (see the module docstring). ``origin`` names the input in
    errors, ``where(row)`` a row; ``file``: the table was read from the file ``origin``
    (a column missing or named twice is then bad input, not a usage error); ``first``:
    the input's row the table starts at (a batch of a larger file: rows and lines are
    numbered in the whole input); ``nul``: ids may hold a NUL (see :func:`ids`); ``noun``:
    what messages call a column (dict records': ``key``)."""
    if file and where is row_named:  # a file's rows from 1, as its duplicates cite them
        where = _file_row
    if first:
        where = partial(_shifted, where, first)
    refuse_named_twice(table.column_names, origin, file, noun)
    table = table.combine_chunks()

    def column(name: str) -> pa.Array:
        return table.column(name).combine_chunks()

    names = partial(need_column, table.column_names, origin=origin, file=file, noun=noun)
    qid_name = names(QID_NAMES, "query id")
    doc_name = names(DOCNO_NAMES, "document id")
    if kind == "run" and doc_name == "docid" and _integers(table.schema.field("docid").type):
        raise InputError(origin, None, _TERRIER_DOCID.format(noun=noun))  # as ids() refuses
    columns = {
        "qid": ids(column(qid_name), qid_name, origin, where, nul=nul),
        "docno": ids(column(doc_name), doc_name, origin, where, nul=nul),
    }
    if kind == "run":
        score_name = names(SCORE_NAMES, "score")
        columns["score"] = scores(column(score_name), origin, where)
        tag_name = pick_column(table.column_names, ("tag",), "run tag", origin, file, noun)
        columns["tag"] = (
            ids(column(tag_name), tag_name, origin, where, nul=nul)
            if tag_name
            else pa.array([DEFAULT_TAG] * table.num_rows, pa.string())
        )
    else:
        subtopic_name = pick_column(
            table.column_names, SUBTOPIC_NAMES, "subtopic (iteration)", origin, file, noun
        )
        if subtopic_name:  # a qrels file's second column, in its place
            subtopic = _subtopics(column(subtopic_name), subtopic_name, origin, where, nul)
            columns = {"qid": columns["qid"], "iter": subtopic, "docno": columns["docno"]}
        rel_name = names(REL_NAMES, "relevance")
        refuse_a_run(table.column_names, (qid_name, doc_name, rel_name), origin, file, noun)
        columns["rel"] = grades(column(rel_name), origin, where)
    lines = given_lines(table)
    rows = lines is None
    if rows:  # numbered from the input's row the table starts at
        lines = arrow.array(np.arange(first + 1, first + table.num_rows + 1, dtype=np.int64))
    columns["line"] = lines
    typed = pa.table(columns)
    if file and rows:  # a file's rows, not lines: its duplicates cite them as rows
        typed = _marked(typed, ["line"], ROW_LINES)
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


# field metadata of the line column of a table read from a file without lines of its own
# (Parquet's: see typed): its lines are the file's rows, which its errors cite as rows
ROW_LINES = {b"trecbench": b"lines are the file's rows"}


def lines_are_rows(table: pa.Table) -> bool:
    """Whether ``table``'s lines are the rows of the file it was read from (:data:`ROW_LINES`)."""
    names = table.schema.names
    return "line" in names and table.schema.field("line").metadata == ROW_LINES


# a run of several files numbers its lines across them (trecbench.dask): line n of its
# file i is i << FILE_LINE_BITS | n (files' lines: below 2**40; a run's files: below 2**23)
FILE_LINE_BITS = 40


def judged_twice(
    table: pa.Table, path: str, qid: str, docno: str, first: int, second: int, subtopic=None
) -> DuplicateError:
    """A document the qrels ``table`` read from ``path`` judge twice (Q5; of a ``subtopic``
    for the diversity measures), at its ``first`` and ``second`` line, cited as rows where
    the table's lines are its file's rows (:func:`duplicate_in_files`)."""
    from ..ranking import duplicate_error

    error = duplicate_error(path, qid, docno, first, second, "Q5", subtopic)
    return duplicate_in_files(error, files=[path], rows=[lines_are_rows(table)], rule="Q5")


def duplicate_in_files(
    error: DuplicateError, *, files: list[str], rows: list[bool], rule: str = "R7"
) -> DuplicateError:
    """``error``, a document a run of ``files`` (one, or the files its lines are numbered
    across: :data:`FILE_LINE_BITS`) lists twice, told at its second listing in its file,
    the first's file named when it is another, each listing cited as a row where its
    file's lines are its rows (``rows``, per file: :func:`lines_are_rows`), as a Parquet
    file's other errors cite them, else as a line. Of ``rule``: a run's ``R7`` unless told;
    another's as it is (the qrels' ``Q5``, told where the qrels are judged, passes a run's
    untouched)."""
    if error.rule != rule:
        return error
    what, first, second = error.listing
    (first_file, first), (file, second) = (divmod(n, 1 << FILE_LINE_BITS) for n in (first, second))
    earlier = f"at row {first}" if rows[first_file] else f"on line {first}"
    elsewhere = f" of {files[first_file]}" if first_file != file else ""
    message = f"duplicate {what} (first {earlier}{elsewhere})"
    if rows[file]:
        return error.moved(files[file], None, f"row {second}: {message}")
    return error.moved(files[file], second, message)


def with_integer_ids(table: pa.Table, roles: list[str]) -> pa.Table:
    """``table`` with its ``roles`` columns (``qid``, ``docno``) marked as read from
    integers (:data:`INTEGER_IDS`)."""
    return _marked(table, roles, INTEGER_IDS)


def _marked(table: pa.Table, names: list[str], metadata: dict) -> pa.Table:
    """``table`` with the field metadata ``metadata`` on its ``names`` columns."""
    fields = [
        field.with_metadata(metadata) if field.name in names else field for field in table.schema
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


def _given_numbers(column) -> list:
    """An object column's Python numbers, pandas' missing markers (None, NaN, NA) as None
    but a Decimal read by its value, as a dict's is (NaN, sNaN: refused naming it): pandas
    took Decimal('NaN') for missing, and raised decimal.InvalidOperation on 'sNaN'."""
    values = column.tolist()
    decimal = np.array([isinstance(value, Decimal) for value in values], dtype=bool)
    missing = column.mask(decimal).isna().tolist()  # no Decimal compared: NaN in its place
    return [
        None if gone and not number else value
        for value, gone, number in zip(values, missing, decimal, strict=True)
    ]


def frame_table(
    frame, origin: str, *, ids: tuple[str, ...] = (), numbers: tuple[str, ...] = ()
) -> tuple[pa.Table, Where]:
    """An Arrow table of a pandas DataFrame's columns (each converted on its own, so that
    a column of mixed types is named) and a ``where`` that cites the frame's index (its
    positions when two rows share a label: ``pd.concat`` keeps the labels). ``ids`` and
    ``numbers``: columns read as ids, and as numbers, besides a run's and a qrels' (a
    per-query table's run and value)."""
    if frame.columns.nlevels > 1:  # ('a', 'qid') names no column: listed, it was escaped
        levels = frame.columns.nlevels
        message = f"its columns are a MultiIndex of {levels} levels: give it one level of names"
        raise column_error(origin, False, message)
    index = frame.index

    def labelled(row: int) -> str:
        return f"row {index_label(index[row])}"

    where = labelled if index.is_unique else row_named

    numbers = SCORE_NAMES + REL_NAMES + numbers
    read = QID_NAMES + DOCNO_NAMES + REL_NAMES + ("tag", "line") + ids + numbers
    columns = {}
    for position, name in enumerate(map(str, frame.columns)):
        if name in columns and name in read:
            raise column_error(origin, False, f"two columns are named {excerpt(name)}; keep one")
        column = frame.iloc[:, position]
        number = name in numbers
        if number and column.dtype == object:  # Python numbers: read as a dict's are
            columns[name] = from_python(_given_numbers(column), name, origin, where, number)
            continue
        try:
            columns[name] = pa.Array.from_pandas(column)
        # an object column of Python values of mixed types, or a type Arrow has not
        # (complex): read as a dict's values are, or refused naming the row
        except (UnicodeEncodeError, OverflowError, *ARROW_REFUSALS):
            if name in read:
                columns[name] = from_python(column.tolist(), name, origin, where, number)
            elif name in SUBTOPIC_NAMES:  # not dropped, as if the qrels had no subtopics:
                columns[name] = pa.nulls(len(column), pa.string())  # refused where read
    return pa.table(columns) if columns else pa.table({}), where
