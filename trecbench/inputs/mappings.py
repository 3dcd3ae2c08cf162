"""``{qid: {docno: value}}`` dicts (pytrec_eval, ir_measures, BEIR/MTEB result JSON) → the
typed run/qrels table.

The value is the score of a run or the grade of qrels, a number. Ids are keys as given: strings
(integers are written in decimal); the first key of any other kind (None, a bool, bytes, a
float) is refused, named. Documents keep the dict's order; an empty inner dict is
a query without documents and adds no row (evaluate warns of a run's: pytrec_eval scores
it 0).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from decimal import Decimal
from numbers import Number

import numpy as np
import pyarrow as pa

from .. import arrow, type_names
from ..errors import InputError, excerpt
from . import python_objects, tables
from .python_objects import index_label as label  # np.True_ as True

LineOf = Callable[[tuple], "int | None"]


def _not_number(value: object) -> bool:
    # numpy counts a duration among the integers (np.timedelta64 is an np.signedinteger)
    return isinstance(value, bool | np.timedelta64) or not isinstance(value, Number)


def _kind(value: object, json_text: bool) -> tuple[str, str | None]:
    """What ``value`` is and the text that shows it (None for no value, a container or
    another object): in JSON's words for a dict read from a JSON file (``a boolean``,
    ``null``, ``an array``), else in Python's (``a bool``, ``None``, ``a list``)."""
    if json_text:
        kind = type_names.a_json_type(value)
    else:
        value = python_objects.python_values([value])[0]  # np.int64(3) is the number 3
        kind = python_objects.kind_in_role(value, numbers=True)
    if isinstance(value, bool):
        return kind, str(value).lower() if json_text else str(value)
    if isinstance(value, str | int | float | Decimal):
        return kind, excerpt(value)
    return kind, None


def _is_kind(value: object, json_text: bool) -> str:
    """``'x' is text``, ``true is a boolean``, ``a list``: what a message says ``value`` is."""
    kind, shown = _kind(value, json_text)
    return kind if shown is None else f"{shown} is {kind}"


def _kind_shown(value: object, json_text: bool) -> str:
    """``text ('x')``, ``a number (3)``, ``None``: ``value`` named after what it must be."""
    kind, shown = _kind(value, json_text)
    return kind if shown is None else f"{kind} ({shown})"


def _numbers(values: list, what: str, origin: str, where, json_text: bool) -> pa.Array:
    """The values as numbers (ints of any width, floats, Decimals); the first that is none
    (text, a boolean, null) is named. ``what`` (score, relevance) names a number of no
    kind a role reads (a complex) in :func:`~trecbench.inputs.python_objects.from_python`'s
    message."""
    if not values:  # only queries without documents: no value to type
        return arrow.array([], pa.float64())
    values = python_objects.python_values(values)  # np.str_('0.5') is the text '0.5'
    row = next((i for i, value in enumerate(values) if _not_number(value)), None)
    if row is None:  # numbers no float64 holds exactly are read through their text
        return python_objects.from_python(values, what, origin, where, numbers=True)
    message = (
        f"{where(row)}: {_is_kind(values[row], json_text)}, not a number (a dict holds numbers)"
    )
    raise InputError(origin, None, message)


def to_table(
    mapping: Mapping,
    kind: str,
    origin: str = "dict",
    line_of: LineOf | None = None,
    nul: bool = False,
) -> pa.Table:
    """The typed ``kind`` table of ``{qid: {docno: score or grade}}``. ``line_of``: the
    line of the file ``origin`` where the value at a key path (``(qid,)`` or ``(qid,
    docno)``) is, for the errors (a dict read from a JSON file); ``nul``: ids may hold a
    NUL (:func:`trecbench.inputs.tables.ids`)."""
    located: list[tuple] = []  # the key path of the value an error names

    def where(row: int) -> str:
        query = int(np.searchsorted(starts, row, side="right") - 1)
        located.append((keys[query], docnos[row]))
        return f"query {label(keys[query])}, document {label(docnos[row])}"

    def query(row: int) -> str:
        located.append((keys[row],))
        return f"query {label(keys[row])}"

    keys = list(mapping)
    try:
        json_text = line_of is not None  # read from a JSON file: its words in messages
        docnos, values, starts = _flattened(mapping, kind, origin, query, json_text)
        flat = _flat_table(keys, kind, origin, docnos, values, starts, where, query, json_text)
        return tables.typed(flat, kind, origin, where, nul=nul)
    except InputError as error:
        if error.line is not None or line_of is None or not located:
            raise
        raise InputError(error.path, line_of(located[-1]), error.message, error.rule) from None


def _flattened(
    mapping: Mapping, kind: str, origin: str, query, json_text: bool
) -> tuple[list, list, np.ndarray]:
    """The docnos and values of every query in order, and where each query's start."""
    docnos: list = []
    values: list = []
    sizes = np.empty(len(mapping), np.int64)
    for i, documents in enumerate(mapping.values()):
        if not isinstance(documents, Mapping):
            documents_are = "a JSON object" if json_text else "a mapping"
            value = "score" if kind == "run" else "grade"
            raise InputError(
                origin,
                None,
                f"{query(i)}: its documents must be {documents_are} of docno to {value}, not "
                f"{_kind_shown(documents, json_text)}",
            )
        sizes[i] = len(documents)
        docnos.extend(documents)
        values.extend(documents.values())
    return docnos, values, np.concatenate(([0], np.cumsum(sizes)))


def _flat_table(keys: list, kind, origin, docnos, values, starts, where, query, json_text):
    """The flattened dict as a table for :func:`tables.typed` to type, ``keys`` its qids
    (see :func:`to_table`)."""
    qids = python_objects.python_ids(keys, "query id", origin, query, keys=True)
    rows = np.repeat(np.arange(len(keys)), np.diff(starts))
    return pa.table(
        {
            "qid": qids.take(pa.array(rows, pa.int64())),
            "docno": python_objects.python_ids(docnos, "document id", origin, where, keys=True),
            "score" if kind == "run" else "rel": _numbers(
                values, "score" if kind == "run" else "relevance", origin, where, json_text
            ),
        }
    )
