"""A named measure's keyword parameters (``P(rel=2)@5``, ``AP(judged_only=False)``) checked
against its definition: unknown ones and values outside their domains refused in one line,
defaults dropped, and those a call's option would otherwise set kept in sight
(``judged_only=False`` beside ``-J``: :attr:`~.names.Measure.pinned`)."""

from __future__ import annotations

from typing import Any

from ..errors import ParameterDomainError, UsageError
from .params import JUDGED_ONLY
from .registry import Definition


def keyword_options(
    definition: Definition, params: dict[str, Any], text: str, named: str = ""
) -> tuple[tuple[tuple[str, Any], ...], tuple[str, ...]]:
    """``(options, pinned)``: keyword parameters checked against the definition, sorted,
    those at their default dropped from ``options``, and among these the ones a call's
    option sets when they are not given (``judged_only=False``, not ``-J``'s True) named
    in ``pinned``; ``named``: the measure as a refusal names it (the name asked, and the
    family)."""
    options, pinned = [], []
    for key, value in sorted(params.items()):
        param = definition.param(key)
        if param is None and definition.unset_in_ir_measures(key, value):
            # RR(judged_only=False)@5: ir_measures' default, changing nothing but under -J
            pinned += [key] if key == JUDGED_ONLY.name else []
            continue
        if param is None:
            known = ", ".join(p.name for p in definition.params) or "none"
            raise UsageError(
                f"illegal measure '{text}': {named or definition.name} has no parameter "
                f"'{key}' (parameters: {known})"
            )
        refuse(param.check(value), text)
        if param.type is float:
            value = float(value)
        if value == param.default:
            pinned += [key] if param.unset_by is not None else []
            continue
        if isinstance(value, dict):  # gain maps: hashable, in one order
            value = tuple(sorted(value.items()))
        options.append((key, value))
    for param in definition.params:  # min_rel < max_rel, when both are known here
        if param.below is None:
            continue
        low = params.get(param.name, param.default)
        high = params.get(param.below, definition.param(param.below).default)
        if low is not None and high is not None and not low < high:
            refuse(f"{param.name} must be below {param.below}, not {low} >= {high}", text)
    return tuple(options), tuple(pinned)


def refuse(problem: str | None, text: str) -> None:
    """Raise the one-line refusal of a parameter outside its domain (nothing for None)."""
    if problem:
        raise ParameterDomainError(f"illegal measure '{text}': {problem}")
