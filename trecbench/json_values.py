"""Values as JSON holds them, one way for every JSON trecbench writes (reports, ``score
--format json``, a run's ir_metadata in its record): NaN and infinities null (an undefined
value), paths text, tuples lists, sets sorted lists, numpy numbers Python's, dates and
times ISO 8601, bytes (YAML's ``!!binary``) base64, keys JSON cannot hold as text (a NaN
key ``"NaN"``); any other object as its text."""

from __future__ import annotations

import base64
import datetime
import json
import math
import os
from collections.abc import Mapping
from typing import Any


def set_order(items) -> list:
    """A set's ``items`` in one order whatever the hashes' seed: sorted, or by kind and
    text where their kinds do not compare (null and "None" apart: as text alone they tied,
    and kept the hash order)."""
    try:
        return sorted(items)
    except TypeError:  # items of kinds that do not compare
        return sorted(items, key=lambda item: (type(item).__name__, str(item)))


def json_safe(value: Any) -> Any:
    """``value`` with what JSON cannot hold made what it can (see the module docstring);
    text, numbers, booleans and null as they are, keys too (``2022:`` stays a number:
    JSON writes it ``"2022"``)."""
    if isinstance(value, Mapping):
        return {_key(key): json_safe(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(item) for item in value]
    if isinstance(value, (set, frozenset)):
        return set_order([json_safe(item) for item in value])
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    if value is None or isinstance(value, (str, bool)):
        return value
    if isinstance(value, int) or (hasattr(value, "dtype") and value.dtype.kind in "iu"):
        return int(value)
    if isinstance(value, float) or hasattr(value, "dtype"):
        number = float(value)
        return number if math.isfinite(number) else None
    if isinstance(value, (datetime.date, datetime.time)):
        return value.isoformat()
    if isinstance(value, bytes):
        return base64.b64encode(value).decode("ascii")
    return str(value)


def json_key(key: Any) -> str:
    """The text JSON writes for the mapping key ``key`` once :func:`json_safe` has made
    it what JSON can hold: ``1`` and ``"1"`` are both ``"1"``, ``true`` is ``"true"``."""
    key = _key(key)
    return key if isinstance(key, str) else json.dumps(key)


def _key(key: Any) -> Any:
    if isinstance(key, float) and not math.isfinite(key):  # JSON has no NaN key, as no NaN
        return json.dumps(key)  # as Python's JSON writes it where allowed: "NaN", "Infinity"
    return key if key is None or isinstance(key, (str, int, float, bool)) else str(json_safe(key))
