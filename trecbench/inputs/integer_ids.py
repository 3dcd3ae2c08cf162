"""Ids a table held as integers (pandas read ``0123`` as 123) against the other input's
ids as text: the leading zeros the integers lost would silently unmatch judged documents,
so such a pair of inputs is refused, naming a lost id."""

from __future__ import annotations

from typing import NoReturn

import pyarrow as pa

from .. import arrow_compute as pc
from ..errors import InputError
from .tables import integer_ids

# a number written in ASCII decimal (its sign, point, exponent and blanks around it, as
# pandas reads one; not 31_1, a TREC CAsT topic pandas keeps as text) ...
_NUMBER_TEXT = r"^\s*[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?\s*$"
# ... and as an integer prints: the ids of a column read from integers are these
_INTEGER_TEXT = r"^(0|-?[1-9][0-9]*)$"
_ROLES = {"qid": "query id", "docno": "document id"}


def refuse_lost_zeros(qrels: pa.Table, qrels_origin: str, run: pa.Table, run_origin: str) -> None:
    """Refuse a qrels or run whose ``qid`` or ``docno`` column was read from integers when
    the other holds ids of that column that are numbers no integer prints as (``0123``,
    ``+5``, ``5.0``)."""
    found = lost_zeros_refusal(qrels, qrels_origin, run, run_origin)
    if found is not None:
        raise found[1]


def lost_zeros_refusal(
    qrels: pa.Table, qrels_origin: str, run: pa.Table, run_origin: str
) -> tuple[tuple[int, int], InputError] | None:
    """What :func:`refuse_lost_zeros` raises, or None, with its place among those of the
    run's other blocks of whole topics: the check that found it, then the ``line`` of the
    run's id it names (0 when it names the qrels'). A spilled run's blocks come by topic
    hash, not in file order: the least place is what the run checked whole names."""
    sides = ((qrels, qrels_origin, run, run_origin), (run, run_origin, qrels, qrels_origin))
    checks = ((role, side) for role in _ROLES for side in sides)
    for check, (role, (numbers, numbers_origin, text, text_origin)) in enumerate(checks):
        if not integer_ids(numbers, role) or integer_ids(text, role):
            continue
        found = _lost_zeros(text.column(role))
        if pc.any(found).as_py():
            lines = text.column("line") if text is run and "line" in run.column_names else None
            line = 0 if lines is None else lines.filter(found)[0].as_py()
            example = text.column(role).filter(found)[0].as_py()
            return (check, line), _refusal(numbers_origin, text_origin, role, example)
    return None


def lost_zero(ids: pa.Array | pa.ChunkedArray) -> str | None:
    """The first of ``ids`` that is a number no integer prints as (``0123``, ``+5``,
    ``5.0``: :func:`_lost_zeros`), or None."""
    found = pc.filter(ids, _lost_zeros(ids))
    return found[0].as_py() if len(found) else None


def _lost_zeros(ids: pa.Array | pa.ChunkedArray) -> pa.ChunkedArray:
    """Per id, whether it is a number that no integer prints as (``0123``, ``+5``,
    ``-0``, ``5.0``, `` 5``, ``1e3``): an integer id read from it lost how it was written.
    Text that is no number (``d1``) an integer could not have been read from."""
    number = pc.match_substring_regex(ids, _NUMBER_TEXT)
    return pc.and_(number, pc.invert(pc.match_substring_regex(ids, _INTEGER_TEXT)))


def refuse(numbers_origin: str, text_origin: str, role: str, example: str) -> NoReturn:
    """The refusal of ``role`` ids read from integers in ``numbers_origin`` beside
    ``example``, an id of ``text_origin`` that no integer prints as."""
    raise _refusal(numbers_origin, text_origin, role, example)


def _refusal(numbers_origin: str, text_origin: str, role: str, example: str) -> InputError:
    what = _ROLES[role]
    return InputError(
        numbers_origin,
        None,
        f"its {what}s are integers (written in decimal), while {text_origin} has "
        f"{what}s such as {example!r} that no integer prints as: the integers lost how "
        "the ids were written (a leading zero, a sign, a decimal point or exponent); read "
        "the ids as text (pandas: dtype=str)",
    )


def refuse_lost_zeros_among(tables: list[pa.Table], names: list[str]) -> None:
    """:func:`refuse_lost_zeros` between runs (fused, compared): a run read from integers
    beside one whose ids no integer prints as would make two topics of one."""
    for i, (table, name) in enumerate(zip(tables, names, strict=True)):
        for other, other_name in zip(tables[i + 1 :], names[i + 1 :], strict=True):
            refuse_lost_zeros(table, name, other, other_name)
