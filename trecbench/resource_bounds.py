"""The least memory budget and the fewest worker processes a call takes, once for the
command line's ``--memory``/``--jobs`` and the library's ``memory=``/``jobs=`` (a budget
below 1 MiB or fewer than one process means nothing; ``jobs=-3`` ran as if not given)."""

from __future__ import annotations

import numbers

from .errors import UsageError

LEAST_MEMORY_MIB = 1
FEWEST_JOBS = 1


def whole_from(name: str, value: object, least: int) -> int:
    """``value`` as an int: a whole number (numpy's too; not a bool, a float or text) of
    at least ``least``, else a :class:`~trecbench.errors.UsageError` naming ``name``."""
    whole = isinstance(value, numbers.Integral) and not isinstance(value, bool)
    if not whole or value < least:
        raise UsageError(f"{name} must be a whole number from {least}, not {value!r}")
    return int(value)
