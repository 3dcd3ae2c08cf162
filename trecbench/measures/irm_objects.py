"""ir_measures' measure objects (``nDCG @ 10``, ``P(rel=1) @ 2``) read by what they were
given, without importing ir_measures.

An object prints without the parameters equal to ir_measures' own defaults (``P(rel=1)@2``
prints ``P@2``), and here such a parameter may mean something else unset (``rel`` unset
is the call's ``relevance_level``): :func:`explicit_spelling` writes every parameter the
object holds, so that an object means what its explicit string spelling means.
"""

from __future__ import annotations

import sys
from typing import Any


def is_ir_measure(item: object) -> bool:
    """Whether ``item`` is an ir_measures measure (``nDCG@10``); ir_measures not imported."""
    return any(
        cls.__module__ == "ir_measures.measures.base" and cls.__name__ == "Measure"
        for cls in type(item).__mro__
    )


def printed(measure: Any) -> str | None:
    """What ``measure`` prints, or None when it cannot print (ir_measures' repr raises
    KeyError for a parameter it does not know: its explicit spelling then names it)."""
    try:
        return str(measure)
    except KeyError:
        return None


def explicit_spelling(measure: Any) -> str:
    """``Name(key=value,...)@cutoff`` with every parameter ``measure`` was given, numpy
    scalars as their Python values (``np.float64(0.5)`` prints so under numpy 2)."""
    params = {key: _python_value(value) for key, value in measure.params.items()}
    text = measure.__name__
    at = measure.AT_PARAM  # what @ sets: cutoff, or IPrec's recall
    shown = [f"{key}={_literal(value)}" for key, value in params.items() if key != at]
    if shown:
        text += "(" + ",".join(shown) + ")"
    if at in params:
        text += f"@{_literal(params[at])}"
    return text


def _python_value(value: Any) -> Any:
    """A numpy scalar as the Python value it holds (``np.int64(2)`` is 2, ``np.True_``
    True: refused where True is), a map's keys and values alike; others as they are."""
    numpy = sys.modules.get("numpy")  # a numpy scalar comes with numpy imported
    if numpy is not None and isinstance(value, numpy.generic):
        return value.item()
    if isinstance(value, dict):
        return {_python_value(key): _python_value(gain) for key, gain in value.items()}
    return value


def _literal(value: Any) -> str:
    """``value`` as the measure expression reader reads it back (a map whole: ir_measures
    prints ``gains={1:1,2:3}`` as ``{2:3}``)."""
    if isinstance(value, dict):
        return "{" + ",".join(f"{_literal(k)}:{_literal(v)}" for k, v in value.items()) + "}"
    return repr(value)
