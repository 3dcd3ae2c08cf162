"""``{qid: {docno: value}}`` dicts (pytrec_eval, ir_measures, BEIR/MTEB result JSON) → the
typed run/qrels table.

The value is the score of a run or the grade of qrels. Ids are keys as given: strings
(integers are written in decimal); any other key type is refused (see
:mod:`trecbench.inputs.tables`). Documents keep the dict's order; an empty inner dict is
a query without documents and adds no row.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pyarrow as pa

from ..errors import InputError
from . import tables


def _array(values: list, what: str, origin: str) -> pa.Array:
    try:
        return pa.array(values)
    except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
        raise InputError(origin, None, f"{what} are not all of one type: {exc}") from None


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
                f"query {qid!r}: expected a dict {{docno: value}}, got {type(documents).__name__}",
            )
        sizes[i] = len(documents)
        docnos.extend(documents)
        values.extend(documents.values())
    qids = _array(list(mapping), "query ids", origin)
    rows = np.repeat(np.arange(len(mapping)), sizes)
    qid_of_row = qids.take(pa.array(rows, pa.int64()))
    value_name = "score" if kind == "run" else "rel"
    table = pa.table(
        {
            "qid": qid_of_row,
            "docno": _array(docnos, "document ids", origin),
            value_name: _array(values, "scores" if kind == "run" else "grades", origin),
        }
    )
    starts = np.concatenate(([0], np.cumsum(sizes)))
    keys = list(mapping)

    def where(row: int) -> str:
        query = int(np.searchsorted(starts, row, side="right") - 1)
        return f"query {keys[query]!r}, document {docnos[row]!r}"

    return tables.typed(table, kind, origin, where)
