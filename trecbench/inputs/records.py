"""Iterables of ir_measures' ``Qrel``/``ScoredDoc`` (and ir_datasets' ``TrecQrel``,
any record with the same field names) or of dicts → the typed run/qrels table.

A record has ``query_id`` and ``doc_id``, and ``score`` (runs) or ``relevance`` (qrels),
and a qrels record may have ``iteration`` or ``subtopic_id`` (ir_datasets' ``TrecSubQrel``;
the subtopic: a qrels file's second column):
named tuples are read by field position, other objects by attribute; a named tuple of
other fields (a DataFrame's ``itertuples()``) is read as a dict of them is. A dict record
(``DataFrame.to_dict("records")``, a JSON list, a Hugging Face dataset's rows) has the
keys a DataFrame's columns may have (:mod:`trecbench.inputs.tables`: ``qid``/``docno``,
``query_id``/``doc_id``, ...), the first record's keys for every record (a later record
with a key read that record 0 has not refused, never its value dropped). Each record is
read as the first is: after a named tuple (read by position), a record of another type
is refused, naming it, unless it is a named tuple of the same fields in the same order;
after an object read by attribute, any object with those attributes is read, a dict
refused, and a qrels record with an ``iteration`` (or ``subtopic_id``) is refused after a
record 0 without one (and one without after one with: its subtopic is never dropped). The
iterable is consumed once (a generator works).
"""

from __future__ import annotations

import operator
import sys
from collections.abc import Iterable, Mapping
from numbers import Number
from typing import Any

import numpy as np
import pyarrow as pa

from .. import arrow
from ..errors import InputError
from ..type_names import python_type
from . import python_objects, tables

FIELDS = {"run": ("query_id", "doc_id", "score"), "qrels": ("query_id", "doc_id", "relevance")}
# a qrels record's subtopic: ir_measures' and ir_datasets' iteration, the subtopic_id of
# ir_datasets' diversity qrels (TrecSubQrel: TREC Web 2009-2014), dropped no more
SUBTOPIC_FIELDS = ("iteration", "subtopic_id")
_IR_IDS = {"query_id", "doc_id"}  # an ir_measures record's, whichever its kind


def to_table(records: Iterable, kind: str, origin: str) -> pa.Table:
    """The typed ``kind`` table of ``records`` (see the module docstring)."""
    rows = list(records)
    wanted = FIELDS[kind]
    names = ("qid", "docno", "score" if kind == "run" else "rel")
    if not rows:
        empty = pa.table({name: arrow.array([], pa.string()) for name in names[:2]})
        value_type = pa.float64() if kind == "run" else pa.int64()
        empty = empty.append_column(names[2], arrow.array([], value_type))
        return tables.typed(empty, kind, origin)
    first = rows[0]
    if isinstance(first, Mapping):
        return _mapping_table(rows, kind, origin)
    subtopic = next((name for name in SUBTOPIC_FIELDS if hasattr(first, name)), None)
    if kind == "qrels" and subtopic is not None:
        # ir_measures' Qrel and GenericQrel, ir_datasets' TrecQrel (iteration) and its
        # diversity qrels' TrecSubQrel (subtopic_id): a qrels file's second column
        wanted = ("query_id", subtopic, *wanted[1:])
    fields = getattr(type(first), "_fields", None)
    positional = fields is not None and all(name in fields for name in wanted)
    if positional:
        getters = [operator.itemgetter(fields.index(name)) for name in wanted]
    elif all(hasattr(first, name) for name in wanted):
        getters = [operator.attrgetter(name) for name in wanted]
    elif isinstance(first, tuple) and fields is not None and not _IR_IDS <= set(fields):
        # a DataFrame's itertuples(): fields named as its columns (qid, docno, label), read
        # as a dict record's keys are, by name (as DataFrame.to_dict("records") is read);
        # an ir_measures record of the other kind (a Qrel as a run) is refused as such
        _one_type(rows, origin, True)
        return _mapping_table([dict(zip(fields, row, strict=True)) for row in rows], kind, origin)
    else:
        raise InputError(origin, None, _no_record(first, wanted))
    _one_type(rows, origin, positional)
    if kind == "qrels" and not positional and subtopic is None:
        _no_later_subtopic(rows, origin)
    columns = {}  # named by the records' fields, as the errors name them (query_id)
    for field, get in zip(wanted, getters, strict=True):
        try:
            values = [get(row) for row in rows]
        except (AttributeError, IndexError, KeyError, TypeError):
            bad = next(i for i, row in enumerate(rows) if not _has(row, get))
            raise InputError(origin, None, f"record {bad} has no field {field}") from None
        columns[field] = _column(values, field, origin)
    return tables.typed(pa.table(columns), kind, origin, _record)


def _one_type(rows: list, origin: str, positional: bool) -> None:
    """Refuse a record that would be misread as record 0 is read. Read by record 0's
    field positions (a named tuple), a record of another type is, unless a named tuple of
    the same fields in the same order: ``Doc(doc_id, query_id, score)`` after a
    ``ScoredDoc`` would have its ids swapped, a ``Qrel`` after a ``ScoredDoc`` its grade
    read as a score, a ``Qrel`` after a ``GenericQrel`` its subtopic dropped. Read by
    attribute, any object holding them is read by its names (a subclass, a
    SimpleNamespace), but a dict. One set of the records' types: no Python work per record
    besides."""
    kinds = set(map(type, rows))
    if len(kinds) == 1:
        return
    first = type(rows[0])
    fields = getattr(first, "_fields", None)
    if positional:
        same = {kind for kind in kinds if kind is first or getattr(kind, "_fields", ()) == fields}
    else:
        same = {kind for kind in kinds if not issubclass(kind, Mapping)}
    if len(same) == len(kinds):
        return
    bad = next(i for i, row in enumerate(rows) if type(row) not in same)
    shown = [python_type(rows[bad]), python_type(rows[0])]
    other = getattr(type(rows[bad]), "_fields", None)
    if isinstance(rows[bad], tuple) and other is not None:  # the fields tell them apart
        shown = [f"{shown[0]} ({', '.join(other)})", f"{shown[1]} ({', '.join(fields or ())})"]
    raise InputError(origin, None, f"record {bad} is {shown[0]}, not {shown[1]} as record 0")


def _no_later_subtopic(rows: list, origin: str) -> None:
    """Refuse a qrels record read by attribute with an ``iteration`` or a ``subtopic_id``
    after a record 0 without either: read as record 0 is, its subtopic was dropped silently
    (written qrels and reports then held another iteration than it). The reverse, record 0
    with one and a later record without, is refused already (``record N has no field
    iteration``)."""
    iteration, subtopic_id = SUBTOPIC_FIELDS
    bad = next(
        (i for i, row in enumerate(rows) if hasattr(row, iteration) or hasattr(row, subtopic_id)),
        None,
    )
    if bad is not None:
        field = iteration if hasattr(rows[bad], iteration) else subtopic_id
        raise InputError(
            origin, None, f"record {bad} has field {field}, record 0 has not: give it "
            "every record or none"
        )  # fmt: skip


def _no_record(first: object, wanted: tuple[str, ...]) -> str:
    """Why ``first``, record 0, is none: what it is (a named tuple with its fields)."""
    shown = "a numpy array" if isinstance(first, np.ndarray) else python_type(first)
    fields = getattr(type(first), "_fields", None)
    if isinstance(first, tuple) and fields is not None:
        shown += f" with fields {', '.join(map(str, fields))}"
    return f"record 0 is {shown}: expected {', '.join(wanted)} (ir_measures' ScoredDoc/Qrel)"


def _field_value(value: object) -> bool:
    """Whether ``value`` is one value a record's field holds (text, a number, None), not a
    run or a query's documents."""
    return value is None or isinstance(value, str | bytes | Number | np.generic)


def is_plain_record(item: Any) -> bool:
    """Whether ``item`` is a tuple, list or 1-D numpy array of values a field holds
    (``("q1", "d1", 1.5)``, a 2-D array's row): a record of no shape that is read (its
    reading names it), not a run, nor a query's documents."""
    plain = isinstance(item, tuple | list) or (isinstance(item, np.ndarray) and item.ndim == 1)
    return plain and len(item) > 0 and all(map(_field_value, item))


def is_series(value: Any) -> bool:
    """Whether ``value`` is a pandas Series (a query's documents in a run dict, never a run)."""
    pandas = sys.modules.get("pandas")
    return pandas is not None and isinstance(value, pandas.Series)


def is_mapping_record(item: Any) -> bool:
    """Whether ``item`` is a dict record, not a run dict ``{qid: {docno: score}}``: a query
    id and a document id under the keys of :mod:`~trecbench.inputs.tables`, or only values
    a field holds (``{"qid": "1", "doc_no": "d1"}``, a key misspelt: its reading names it)."""
    if not isinstance(item, Mapping) or not item:
        return False
    qid = next((name for name in tables.QID_NAMES if name in item), None)
    if qid is not None and any(name in item for name in tables.DOCNO_NAMES):
        return not isinstance(item[qid], Mapping)
    return all(map(_field_value, item.values()))


def _mapping_table(rows: list, kind: str, origin: str) -> pa.Table:
    """The typed table of dict records: the first record's keys that name a role, read
    from every record (each key's values as one column); the other keys as columns of
    nothing, for a message to list among the keys."""
    roles = tables.QID_NAMES + tables.DOCNO_NAMES + tables.REL_NAMES + tables.SUBTOPIC_NAMES
    stray = next((i for i, row in enumerate(rows) if not isinstance(row, Mapping)), None)
    if stray is not None:
        kind_of = python_type(rows[stray])
        raise InputError(origin, None, f"record {stray} is {kind_of}, not a dict as record 0")
    _no_later_key(rows, kind, origin)
    columns = []
    for name in rows[0]:
        if name not in (*roles, "tag"):
            columns.append(pa.nulls(len(rows)))
            continue
        try:
            values = [row[name] for row in rows]
        except KeyError:
            bad = next(i for i, row in enumerate(rows) if name not in row)
            raise InputError(origin, None, f"record {bad} has no key {name!r}") from None
        columns.append(_column(values, name, origin))
    table = pa.Table.from_arrays(columns, names=list(map(str, rows[0])))
    return tables.typed(table, kind, origin, _record, noun="key")


def _no_later_key(rows: list, kind: str, origin: str) -> None:
    """Refuse a dict record holding a key that a ``kind`` reads (an id's, the score's or
    grade's, a run's tag, a qrels' subtopic) and record 0 has not: read with record 0's
    keys, its value was dropped silently (a subtopic or tag written as the default, a
    second query id beside ``qid`` ignored, which a DataFrame of the records refuses)."""
    read = tables.QID_NAMES + tables.DOCNO_NAMES
    read += tables.SCORE_NAMES + ("tag",) if kind == "run" else tables.REL_NAMES
    read += tables.SUBTOPIC_NAMES if kind == "qrels" else ()
    unread = set(read).difference(rows[0])
    bad = next((i for i, row in enumerate(rows) if not unread.isdisjoint(row)), None)
    if bad is not None:
        key = next(name for name in rows[bad] if name in unread)
        message = f"record {bad} has key {key!r}, record 0 has not: give every record the same keys"
        raise InputError(origin, None, message)


def _column(values: list, field: str, origin: str) -> pa.Array:
    """The values of the records' ``field`` (the column of that name) as an Arrow array:
    query and document ids must each be text or an integer, scores and grades numbers."""
    if field in tables.QID_NAMES + tables.DOCNO_NAMES:
        return python_objects.python_ids(values, field, origin, _record)
    numbers = field in tables.SCORE_NAMES + tables.REL_NAMES
    return python_objects.from_python(values, field, origin, _record, numbers=numbers)


def _record(row: int) -> str:
    return f"record {row}"


def _has(row, get) -> bool:
    try:
        get(row)
    except (AttributeError, IndexError, KeyError, TypeError):
        return False
    return True
