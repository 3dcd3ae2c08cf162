"""``{qid: {docno: value}}`` dicts (pytrec_eval, ir_measures, BEIR/MTEB result JSON) → the
typed run/qrels table.

The value is the score of a run or the grade of qrels, a number. Ids are keys as given: strings
(integers are written in decimal); any other key type is refused (see
:mod:`trecbench.inputs.tables`). Documents keep the dict's order; an empty inner dict is
a query without documents and adds no row.
"""

from __future__ import annotations

from collections.abc import Mapping
from numbers import Number

import numpy as np
import pyarrow as pa

from .. import arrow
from ..errors import InputError, excerpt
from . import tables


def _array(values: list, what: str, origin: str, where) -> pa.Array:
    if not values:  # no id to type: an empty string column
        return arrow.array([], pa.string())
    return tables.from_python(values, what, origin, where)


def _not_number(value: object) -> bool:
    return isinstance(value, bool) or not isinstance(value, Number)


def _numbers(values: list, origin: str, where) -> pa.Array:
    """The values as numbers (ints of any width, floats, Decimals); the first that is none
    (text, a bool, None) is named."""
    if not values:  # only queries without documents: no value to type
        return arrow.array([], pa.float64())
    row = next((i for i, value in enumerate(values) if _not_number(value)), None)
    if row is None:  # numbers Arrow cannot hold (2^64, NaN Decimals...) are named by it
        return tables.from_python(values, "dict", origin, where, numbers=True)
    raise InputError(origin, None, f"{where(row)}: {excerpt(values[row])} not a number")


def to_table(mapping: Mapping, kind: str, origin: str = "dict") -> pa.Table:
    """The typed ``kind`` table of ``{qid: {docno: score or grade}}``."""
    docnos: list = []
    values: list = []
    sizes = np.empty(len(mapping), np.int64)
    for i, (qid, documents) in enumerate(mapping.items()):
        if not isinstance(documents, Mapping):
            raise InputError(
                origin,
                None,
                f"query {excerpt(qid)}: expected a {kind} dict {{qid: {{docno: value}}}}, got "
                f"{type(documents).__name__}",
            )
        sizes[i] = len(documents)
        docnos.extend(documents)
        values.extend(documents.values())
    starts = np.concatenate(([0], np.cumsum(sizes)))
    keys = list(mapping)

    def where(row: int) -> str:
        query = int(np.searchsorted(starts, row, side="right") - 1)
        return f"query {excerpt(keys[query])}, document {excerpt(docnos[row])}"

    def query(row: int) -> str:
        return f"query {excerpt(keys[row])}"

    qids = _array(keys, "query id", origin, query)
    rows = np.repeat(np.arange(len(mapping)), sizes)
    table = pa.table(
        {
            "qid": qids.take(pa.array(rows, pa.int64())),
            "docno": _array(docnos, "document id", origin, where),
            "score" if kind == "run" else "rel": _numbers(values, origin, where),
        }
    )
    return tables.typed(table, kind, origin, where)
