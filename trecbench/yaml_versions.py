"""A plain YAML scalar as YAML 1.2's core schema reads it
(https://yaml.org/spec/1.2.2/#1032-tag-resolution), beside YAML 1.1's reading, PyYAML's and
so trecbench's. The two versions part on some spellings: YAML 1.1 reads ``010`` as the
octal 8 (1.2: 10), ``1:40`` as 100 (base 60), ``0b101`` as 5, ``1_0`` as 10, ``-0x10`` as
-16 and ``yes``, ``no``, ``on``, ``off`` as booleans, all text to YAML 1.2 but ``010``; and
``9e-1``, ``0o17``, ``08``, ``-.5`` as text, numbers to YAML 1.2 (and, but ``0o17``, to
JSON and TOML). A configuration must mean one thing to every reader: :func:`disagreement`
says how the two read a scalar when they part, :func:`number_in_yaml_1_2` whether YAML 1.2
reads a number where YAML 1.1 reads text, :func:`writable_int` whether Python can write
an integer either read."""

from __future__ import annotations

import math
import re
import sys
from decimal import Decimal
from functools import cache
from typing import Any

from .errors import excerpt_plain, int_text, one_line

# a plain scalar YAML 1.2's core schema reads as null, a boolean or a number
NOT_TEXT = re.compile(
    r"null|Null|NULL|~|true|True|TRUE|false|False|FALSE"
    r"|[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+"
    r"|[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?"
    r"|[-+]?\.(inf|Inf|INF)|\.(nan|NaN|NAN)"
)
_NULL = ("null", "Null", "NULL", "~", "")
_BOOLEANS = {"true": True, "True": True, "TRUE": True}
_BOOLEANS |= {"false": False, "False": False, "FALSE": False}
_DECIMAL = re.compile(r"[-+]?[0-9]+")
_BASES = {"0o": 8, "0x": 16}
_INFINITY = re.compile(r"([-+]?)\.(inf|Inf|INF)")


def yaml_1_2_value(text: str) -> Any:
    """The plain scalar ``text`` as YAML 1.2's core schema reads it: None, a bool, an int
    (a :class:`~decimal.Decimal` past the digits Python reads as an int), a float, or
    ``text`` itself."""
    if not NOT_TEXT.fullmatch(text):
        return text
    if text in _NULL:
        return None
    if text in _BOOLEANS:
        return _BOOLEANS[text]
    if _DECIMAL.fullmatch(text):
        try:
            return int(text)
        except ValueError:  # more digits than Python reads: exactly as a Decimal
            return Decimal(text)
    if text[:2] in _BASES:
        return int(text[2:], _BASES[text[:2]])
    if infinity := _INFINITY.fullmatch(text):
        return -math.inf if infinity.group(1) == "-" else math.inf
    if text.startswith(".n") or text.startswith(".N"):  # .nan, .NaN, .NAN
        return math.nan
    return float(text)  # the rest of the pattern: decimals, exponents


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float, Decimal)) and not isinstance(value, bool)


def number_in_yaml_1_2(text: str) -> bool:
    """Whether YAML 1.2 reads the plain scalar ``text`` as a number (what YAML 1.1 reads
    as text, asked of a scalar it read as text)."""
    return _is_number(yaml_1_2_value(text))


def _same(yaml_1_1: Any, yaml_1_2: Any) -> bool:
    """Whether two readings of one scalar are one value of one kind (True is no 1)."""
    if _is_number(yaml_1_1) and _is_number(yaml_1_2):
        both_nan = yaml_1_1 != yaml_1_1 and yaml_1_2 != yaml_1_2
        return both_nan or yaml_1_1 == yaml_1_2
    return type(yaml_1_1) is type(yaml_1_2) and yaml_1_1 == yaml_1_2


def spelt(value: Any) -> str:
    """A value YAML read, spelt as YAML (and JSON) writes it: ``true``, ``8``, ``0.5``
    (``.inf``, ``-.inf`` and ``.nan`` as YAML alone does)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, Decimal)):  # a Decimal: an int past Python's digits
        return int_text(int(value))
    if isinstance(value, float) and not math.isfinite(value):
        return ".nan" if value != value else ("-.inf" if value < 0 else ".inf")
    return repr(value)


# a YAML 1.2 (JSON, TOML) float with an exponent; YAML 1.1's needs a dot and a signed one
_EXPONENT_FORM = re.compile(r"([-+]?)(\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE]([-+]?)([0-9]+)")


def number_spellings(text: str) -> str:
    """How to write the number YAML 1.2 reads the plain scalar ``text`` as, which YAML 1.1
    reads as text, so that both read that number: ``1e3`` as ``1.0e+3 or 1000.0`` (YAML
    1.1's exponent needs a dot and a sign), ``0o17`` as ``15``, ``-.5`` as ``-0.5``."""
    value = yaml_1_2_value(text)
    exponent = _EXPONENT_FORM.fullmatch(text)
    if not isinstance(value, float) or not exponent or not math.isfinite(value):
        return spelt(value)
    sign, mantissa, exponent_sign, digits = exponent.groups()
    mantissa = f"0{mantissa}" if mantissa.startswith(".") else mantissa
    if "." not in mantissa:
        mantissa += ".0"
    elif mantissa.endswith("."):
        mantissa += "0"
    decimal = repr(value)
    spellings = f"{sign}{mantissa}e{exponent_sign or '+'}{digits}"
    # 0.0 is offered for no 1e-400: it underflows, and is no 0 (0e5 keeps its exponent form)
    return spellings + (f" or {decimal}" if "e" not in decimal and value else "")


def disagreement(text: str, yaml_1_1: Any, as_text: str = "quote it") -> str | None:
    """Why the plain scalar ``text``, read as ``yaml_1_1`` (a number, a boolean or text) by
    YAML 1.1, is refused when YAML 1.2 reads it otherwise, and how to write it; None when the
    two agree. ``as_text``: how to keep it as text (written with a tag, drop the tag too:
    ``!!bool 'yes'`` is still true)."""
    yaml_1_2 = yaml_1_2_value(text)
    if _same(yaml_1_1, yaml_1_2):
        return None
    written = excerpt_plain(one_line(text))
    first = "text" if isinstance(yaml_1_1, str) else spelt(yaml_1_1)
    if isinstance(yaml_1_2, str):
        other, spellings = "as text", first
    elif isinstance(yaml_1_1, str):  # 1e3: text to YAML 1.1, 1000.0 to 1.2
        other, spellings = f"as the number {spelt(yaml_1_2)}", number_spellings(text)
    else:
        other = f"as {spelt(yaml_1_2)}"
        spellings = f"{first} or {spelt(yaml_1_2)}"
    return (
        f"{written} is read as {first} by YAML 1.1 and {other} by YAML 1.2: "
        f"write {spellings}, or {as_text} to keep it as text"
    )


@cache
def read_apart_error() -> type:
    """The class of the errors :func:`disagreement`'s refusals raise (:func:`read_apart`),
    made when first needed (PyYAML is imported on demand)."""
    import yaml

    class ReadApartError(yaml.constructor.ConstructorError):
        """A plain scalar YAML 1.1 and YAML 1.2 read as different values."""

    return ReadApartError


def read_apart(error: Exception) -> bool:
    """Whether ``error`` refuses a plain scalar YAML 1.1 and 1.2 read apart (valid YAML,
    whose meaning depends on the reader): messages say "ambiguous YAML", not "not valid"."""
    return isinstance(error, read_apart_error())


def writable_int(value: int) -> int:
    """``value``, an integer YAML read; a ValueError (refused at its line, as a decimal
    integer past the digits Python reads is) when it has more decimal digits than Python
    writes: ``0x`` and ``0b`` spellings (and ``1:30:...``) read to any size, and the block
    written, the report's JSON and messages then raised Python's error (exit 70)."""
    limit = sys.get_int_max_str_digits()
    # 10**limit has more than 3 * limit bits: a shorter value is below it, said at once
    if limit and value.bit_length() > 3 * limit and abs(value) >= 10**limit:
        raise ValueError(f"more than the {limit:,} decimal digits Python writes")
    return value
