"""ir_measures' measure objects (``nDCG @ 10``, ``P(rel=1) @ 2``) read by what they were
given, without importing ir_measures.

An object prints without the parameters equal to ir_measures' own defaults (``P(rel=1)@2``
prints ``P@2``), and here such a parameter may mean something else unset (``rel`` unset
is the call's ``relevance_level``): :func:`_explicit_spelling` writes every parameter the
object holds, so that an object means what its explicit string spelling means — but
for a parameter at ir_measures' default that the measure it means here does not take
(``RR(judged_only=False)@5``: MRR@5 has no ``judged_only``), which changes nothing and is
left out (:func:`name_of`).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Collection
from typing import Any

from ..errors import TrecbenchError


def is_ir_measure(item: object) -> bool:
    """Whether ``item`` is an ir_measures measure (``nDCG@10``); ir_measures not imported."""
    return any(
        cls.__module__ == "ir_measures.measures.base" and cls.__name__ == "Measure"
        for cls in type(item).__mro__
    )


def _printed(measure: Any) -> str | None:
    """What ``measure`` prints, or None when it cannot print (ir_measures' repr raises
    KeyError for a parameter it does not know: its explicit spelling then names it)."""
    try:
        return str(measure)
    except KeyError:
        return None


def name_of(measure: Any, meaning: Callable[[str], Any]) -> str:
    """The name an ir_measures measure object is asked by: the name it prints when that
    means the measure its parameters make, else its spelling with every parameter it
    holds (``P(rel=1)@2`` prints ``P@2``, which here counts the call's relevance_level as
    relevant; ``P(judged_only=False)@2`` too, which ``-J`` would make judged-only); one name
    never stands for two measures. ``meaning``: the measure a
    spelling means here (a trecbench ``Measure``), raising TrecbenchError if refused."""
    explicit = _explicit_spelling(measure, _changing_nothing(measure, meaning))
    shown = _printed(measure)
    if shown is None or shown == explicit:
        return explicit
    try:
        printed, given = meaning(shown), meaning(explicit)
    except TrecbenchError:  # refused, naming what it was given, when it is read
        return explicit
    same = printed == given and printed.pinned == given.pinned
    return shown if same else explicit


def _changing_nothing(measure: Any, meaning: Callable[[str], Any]) -> set[str]:
    """The parameters ``measure`` holds at ir_measures' own default for it that the
    measure it means here does not take (``RR(judged_only=False)@5``): ir_measures
    computes them as unset, and so does trecbench. Never ``rel`` (unset here, it is the
    call's relevance_level), ``judged_only`` (unset here, it is the call's ``-J``, which
    refuses an explicit False) nor a parameter trecbench's definition takes."""
    supported = getattr(measure, "SUPPORTED_PARAMS", {})
    at_default = {
        key
        for key, value in measure.params.items()
        if key not in ("rel", "judged_only", measure.AT_PARAM)
        and key in supported
        and _same_value(_python_value(value), supported[key].default)
    }
    if not at_default:
        return set()
    try:
        definition = meaning(_explicit_spelling(measure, at_default)).definition
    except TrecbenchError:  # refused as given, naming every parameter, when it is read
        return set()
    return {key for key in at_default if definition.param(key) is None}


def _same_value(value: Any, default: Any) -> bool:
    """Whether ``value`` is ``default``: equal, and a bool only where a bool is (1 is
    not ir_measures' ``judged_only=False``'s kind, whatever ``1 == True`` says)."""
    if isinstance(value, bool) != isinstance(default, bool):
        return False
    try:
        return bool(value == default)
    except (TypeError, ValueError):  # a value whose == is not a truth (an array)
        return False


def _explicit_spelling(measure: Any, left_out: Collection[str] = ()) -> str:
    """``Name(key=value,...)@cutoff`` with every parameter ``measure`` was given but
    those ``left_out``, numpy scalars as their Python values (``np.float64(0.5)`` prints
    so under numpy 2)."""
    params = {
        key: _python_value(value) for key, value in measure.params.items() if key not in left_out
    }
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
