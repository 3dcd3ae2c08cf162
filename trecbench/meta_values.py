"""The user's metadata a report and a manifest record: ``--meta KEY=VALUE`` pairs, whose
values stay text as given (never read as numbers: ``1.10`` is not 1.1), and a Python
caller's ``meta=``, whose values are recorded as the JSON values they are. Keys follow
one rule (:data:`META_KEY_RULE`, the schemas' ``propertyNames``) wherever they are given:
the command line, a configuration's ``meta``, the Python API."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from typing import Any

from .errors import UsageError, excerpt, option_excerpt
from .json_limits import MAX_DEPTH, too_deep

_META_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*")  # whole keys: fullmatch

META_KEY_RULE = (
    "must start with an ASCII letter or '_' and contain only ASCII letters and digits, "
    "'_', '.', '-'"
)


def meta_key_taken(key: object) -> bool:
    """Whether ``key`` is a metadata key: text, an identifier-like word (:data:`META_KEY_RULE`:
    ``--meta``'s and a configuration's ``meta`` alike)."""
    # fullmatch: $ would match before a final newline
    return isinstance(key, str) and _META_KEY.fullmatch(key) is not None


def recorded_meta(meta: Mapping | None) -> dict[str, Any]:
    """``meta`` as a report or manifest records it: ``--meta``'s values text, as given
    (never read as numbers), a Python caller's as the JSON values they are
    (:func:`meta_json`: ``{"k1": 0.9, "layers": [2, 3]}``, where they were recorded as
    their ``str()``, ``"[2, 3]"``, an object as ``"<object at 0x...>"``); a value JSON
    cannot hold refused, naming its key. A key outside :data:`META_KEY_RULE` (the
    schemas' ``propertyNames``) refused: the Python API's ``meta=`` wrote files their own
    schema refuses (and ``1`` and ``"1"`` as one key)."""
    if meta is not None and not isinstance(meta, Mapping):
        raise UsageError(f"meta: give a mapping of key to value, not {excerpt(meta)}")
    recorded = {}
    for key, value in (meta or {}).items():
        if not meta_key_taken(key):
            raise UsageError(f"meta: key {excerpt(key)} {META_KEY_RULE}")
        try:
            recorded[key] = meta_json(value)
        except UsageError as error:
            raise UsageError(f"meta: key {key!r}: {error}") from None
    return recorded


# the longest integer Python writes as digits (sys.int_info's 4,300 by default; json.dumps
# raises past it): 4,300 digits hold 14,284 bits at least
_LONGEST_INT_BITS = 14_000


def meta_json(value: Any, depth: int = 0) -> Any:
    """A ``meta`` value as JSON holds it: text, a boolean, None, an integer, a finite
    number (a numpy scalar as Python's), a list (a tuple too) or a mapping with text keys
    of them, nested at most as deep as a JSON input may be
    (:data:`~trecbench.json_limits.MAX_DEPTH`: a list holding itself recursed until
    Python's stack ran out); anything else (NaN or an infinity, which JSON lacks, a set,
    bytes, a path, an object) a :class:`~trecbench.errors.UsageError` saying what it is,
    not text it was never given as. ``depth``: how deep ``value`` lies."""
    if depth > MAX_DEPTH:
        raise UsageError(f"{too_deep()} (a list or a dict holding itself?)")
    if getattr(value, "shape", None) == () and getattr(value, "dtype", None) is not None:
        if value.dtype.kind in "biuf":  # a numpy scalar: as the Python number it holds
            value = value.item()
    if value is None or isinstance(value, (str, bool)):
        return value
    if isinstance(value, int) and value.bit_length() <= _LONGEST_INT_BITS:
        return value
    if isinstance(value, float) and math.isfinite(value):
        return value
    if isinstance(value, (list, tuple)):
        return [meta_json(item, depth + 1) for item in value]
    if isinstance(value, Mapping) and all(isinstance(key, str) for key in value):
        return {key: meta_json(item, depth + 1) for key, item in value.items()}
    from .type_names import python_type

    why = (
        "JSON has no NaN or infinity" if isinstance(value, float)
        else "its keys are not all text, as JSON's are" if isinstance(value, Mapping)
        else "more digits than Python writes" if isinstance(value, int)
        else "JSON cannot hold it"
    )  # fmt: skip
    raise UsageError(
        f"{excerpt(value)} ({python_type(value)}): {why}; give text, a number, a boolean, "
        "None, or a list or a dict with text keys of them"
    )


def parse_meta(pairs: Iterable[str]) -> dict[str, str]:
    """``["model=bm25", "k1=0.9"]`` → ``{"model": "bm25", "k1": "0.9"}``.

    Values stay strings (split at the first ``=``; they may contain ``=``). A pair without
    ``=``, a key that is not an identifier-like word (ASCII letters, digits, ``_ . -``) or a key
    given twice raises :class:`UsageError`.
    """
    meta: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        shown = option_excerpt(pair)  # a byte that is not UTF-8 as \xff, not '\udcff'
        if not sep:
            raise UsageError(f"--meta {shown}: expected KEY=VALUE")
        if not meta_key_taken(key):
            raise UsageError(f"--meta {shown}: key {option_excerpt(key)} {META_KEY_RULE}")
        if key in meta:
            raise UsageError(f"--meta {shown}: key {key!r} given twice")
        meta[key] = value
    return meta
