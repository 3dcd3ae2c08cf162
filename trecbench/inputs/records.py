"""Iterables of ir_measures' ``Qrel``/``ScoredDoc`` (and ir_datasets' ``TrecQrel``,
any record with the same field names) → the typed run/qrels table.

A record has ``query_id`` and ``doc_id``, and ``score`` (runs) or ``relevance`` (qrels),
and a qrels record may have ``iteration`` (the subtopic: a qrels file's second column):
named tuples are read by field position, other objects by attribute. The iterable is
consumed once (a generator works).
"""

from __future__ import annotations

import operator
from collections.abc import Iterable

import pyarrow as pa

from .. import arrow
from ..errors import InputError
from . import tables

FIELDS = {"run": ("query_id", "doc_id", "score"), "qrels": ("query_id", "doc_id", "relevance")}


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
    if kind == "qrels" and hasattr(first, "iteration"):
        # ir_measures' Qrel and GenericQrel: the subtopic, a qrels file's second column
        names, wanted = ("qid", "iter", "docno", "rel"), ("query_id", "iteration", *wanted[1:])
    fields = getattr(type(first), "_fields", None)
    if fields is not None and all(name in fields for name in wanted):
        getters = [operator.itemgetter(fields.index(name)) for name in wanted]
    elif all(hasattr(first, name) for name in wanted):
        getters = [operator.attrgetter(name) for name in wanted]
    else:
        raise InputError(
            origin,
            None,
            f"record 0 ({type(first).__name__}) has no fields {', '.join(wanted)} "
            "(ir_measures' ScoredDoc/Qrel)",
        )
    columns = {}
    for name, field, get in zip(names, wanted, getters, strict=True):
        try:
            values = [get(row) for row in rows]
        except (AttributeError, IndexError, TypeError):
            bad = next(i for i, row in enumerate(rows) if not _has(row, get))
            raise InputError(origin, None, f"record {bad} has no field {field}") from None
        columns[name] = tables.from_python(
            values, field, origin, _record, numbers=name in ("score", "rel")
        )
    return tables.typed(pa.table(columns), kind, origin, _record)


def _record(row: int) -> str:
    return f"record {row}"


def _has(row, get) -> bool:
    try:
        get(row)
    except (AttributeError, IndexError, TypeError):
        return False
    return True
