"""What a value is, in a message's words: one vocabulary for a value read from JSON (its
types: ``null``, ``a string``, ``a number``, ``a boolean``, ``an array``, ``an object``),
one for a value held in memory (Python's: ``None``, ``text``, ``a bool``, ``bytes``, ``a
dict``, ``a tuple``). Every message that names a value's type takes its words here: the
converters' JSON and SQLite values, JSONL runs, dicts read from JSON or given in memory,
records and object columns, a configuration's value that must be text. Standard library
only, as the messages it serves are raised on paths that import no numpy."""

from __future__ import annotations

from collections.abc import Mapping

# JSON's types by what json.loads makes of them, bool before int (a bool is an int)
_JSON_TYPES = (
    (bool, "boolean"),
    (str, "string"),
    (int | float, "number"),
    (Mapping, "object"),
    (list, "array"),
)


def json_type(value: object) -> str | None:
    """JSON's name of the type of a value :func:`json.loads` made, without an article
    (``string``, ``number``, ``boolean``, ``object``, ``array``, ``null``), or None for a
    value JSON has no type for (an SQLite BLOB's bytes)."""
    if value is None:
        return "null"
    return next((name for kind, name in _JSON_TYPES if isinstance(value, kind)), None)


def a_json_type(value: object) -> str:
    """What a message says a value read from JSON is: ``null``, ``a string``, ``an
    array``; a value of no JSON type in Python's words (:func:`python_type`)."""
    name = json_type(value)
    if name is None:
        return python_type(value)
    return name if value is None else with_article(name)


def python_type(value: object) -> str:
    """What a value held in memory is, by its type: ``None``, ``text``, ``a bool``,
    ``bytes``, ``a dict`` (any mapping), ``a float``, ``a tuple``; pandas' NA as ``a
    missing value (pd.NA)`` (its type's name, NAType, says nothing to whoever put it in a
    dict)."""
    if value is None:
        return "None"
    if isinstance(value, str):
        return "text"
    if isinstance(value, bytes):
        return "bytes"
    kind = type(value)
    if kind.__name__ == "NAType" and kind.__module__.startswith("pandas"):
        return "a missing value (pd.NA)"
    return with_article("dict" if isinstance(value, Mapping) else kind.__name__)


def yes_or_no(value: object) -> bool | None:
    """``value`` as a flag's True or False (Python's bool, numpy's too), or None when it
    is something else (1, "yes"): a flag given a number is refused, not read as true."""
    kind = getattr(getattr(value, "dtype", None), "kind", None)
    return bool(value) if isinstance(value, bool) or kind == "b" else None


def flag_from(name: str, value: object, none: str = "") -> bool:
    """The keyword ``name``'s True or False (:func:`yes_or_no`); anything else ("False",
    which is true, or 1) a :class:`~trecbench.errors.UsageError` naming it. ``none``: what
    None means, for a keyword that takes it too (its caller has let None through)."""
    flag = yes_or_no(value)
    if flag is None:
        from .errors import UsageError

        either = f"True, False or None ({none})" if none else "True or False"
        raise UsageError(f"{name} must be {either}, not {value!r}")
    return flag


def printed_float(value: object) -> float:
    """A real number as Python's float, numpy's 32- and 16-bit floats as the decimals they
    print as (``np.float32(0.95)`` as 0.95, which Python's float reads as 0.949999988...):
    a setting given so is the level it says, as a float32 column's values are read."""
    dtype = getattr(value, "dtype", None)
    if getattr(dtype, "kind", None) == "f" and dtype.itemsize < 8:
        return float(str(value))
    return float(value)  # type: ignore[arg-type]


def with_article(noun: str) -> str:
    """``noun`` after its indefinite article: ``an array``, ``a string``, ``an int64``."""
    return f"{'an' if noun[0] in 'aeiouAEIOU' else 'a'} {noun}"


def not_text(value: object, what: str) -> str | None:
    """Why a configuration's value that is text, kept as written (``what``: ``a meta
    value``, ``a strata value``), is not, or None when it is text: a number, boolean,
    date or time its parser made of what was written (TOML ``1.10`` is 1.1, ``1e0`` 1.0,
    YAML ``1.50`` 1.5, ``True`` True; its text is lost, so it is to be quoted; a NaN or
    infinity is said as written, ``.nan``), nothing (YAML
    ``key:``), a table or a list."""
    if isinstance(value, str):
        return None
    if isinstance(value, bool):
        return f"read as the boolean {str(value).lower()}, not as written: quote it"
    if isinstance(value, (int, float)):
        # a NaN or infinity keeps its text (yaml_loader.WrittenFloat: .nan, -inf, 1e400)
        written = getattr(value, "text", None)
        if isinstance(written, str):
            return f"read as the number {written}, not as text: quote it"
        return f"read as the number {value!r}, not as written: quote it"
    if value is None:
        return "empty: give it a value, in quotes"
    if isinstance(value, (Mapping, list)):
        kind = "table" if isinstance(value, Mapping) else "list"
        return f"a {kind}: {what} is one piece of text"
    # a date or a time (TOML and YAML read 2024-01-01 so)
    return f"read as the {type(value).__name__} {value}, not as written: quote it"
