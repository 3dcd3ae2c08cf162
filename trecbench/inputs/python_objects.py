"""Python values held in memory (the ids, scores and grades of a dict, records or an
object column of a DataFrame) as Arrow arrays: read by what they are, whatever their
spelling (numpy's or Python's), or refused in trecbench's words, naming the first value
that is of no kind its role takes and where it is (:func:`from_python`)."""

from __future__ import annotations

import math
import sys
from collections.abc import Callable
from decimal import Decimal

import numpy as np
import pyarrow as pa

from .. import arrow
from ..errors import InputError, excerpt, excerpt_plain, int_text
from ..text_bytes import encodable
from ..type_names import python_type

Where = Callable[[int], str]


def row_named(i: int) -> str:
    """How a message names row ``i`` of values held in memory."""
    return f"row {i}"


# what Arrow raises for Python values it cannot hold as one type (a TypeError for
# Decimal("Infinity"))
ARROW_REFUSALS = (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError, TypeError)

# the Python numbers a score or grade may be given as (numpy's as the values they hold)
_NUMBERS = (int, float, Decimal)


def python_values(values: list) -> list:
    """``values`` with numpy's numbers, booleans and text as the Python values they hold
    (``np.int64(2**53 + 1)`` as that int): a value is read by what it is, not by how it is
    spelt (and Arrow reads an ``np.uint64`` beside a float as the int64 of its bits: 2**64
    - 1 as -1.0). See :func:`_python_value`."""
    if not any(issubclass(kind, np.generic) for kind in set(map(type, values))):
        return values
    return [_python_value(value) if isinstance(value, np.generic) else value for value in values]


def _python_value(value: np.generic) -> object:
    """A numpy scalar's Python value: a ``longdouble`` (whose ``item()`` is itself) as the
    Decimal of its text, read as any number written so; a date or a duration stays as it
    is, to be named (its ``item()`` at nanoseconds is a bare int: it would pass for a
    number)."""
    if isinstance(value, np.longdouble):
        return Decimal(str(value))
    if isinstance(value, np.timedelta64):  # an np.signedinteger, to numpy
        return value
    if isinstance(value, np.number | np.bool_ | np.str_ | np.bytes_):
        return value.item()
    return value


def _taken(value: object, numbers: bool) -> bool:
    """Whether ``value`` is read through its decimal text when Arrow cannot hold the values
    as one type: an integer (of any width), or with ``numbers`` any number."""
    kinds = _NUMBERS if numbers else int
    return value is None or (isinstance(value, kinds) and not isinstance(value, bool))


def _number_text(value: int | float | Decimal) -> str:
    """A number's exact decimal text: an integral one as an integer (a grade reads 2.0 as
    2), a float as its shortest round-trip text, a Decimal as written."""
    if isinstance(value, int):
        return int_text(value)
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else repr(value)
    integral = value.is_finite() and value == value.to_integral_value()
    return str(int(value)) if integral else str(value)


def _id_kind(kind: type, missing: bool) -> bool:
    integer = issubclass(kind, int) and not issubclass(kind, bool)
    return issubclass(kind, str) or integer or (missing and kind is type(None))


def stray_id(values: list, missing: bool = False) -> int | None:
    """The row of the first of Python ids ``values`` that is neither text nor an integer (a
    bool is none; None is none unless ``missing``: a missing id, which
    :func:`~trecbench.inputs.tables.ids` names), or None. The distinct types are looked
    at first: ids are almost always all text."""
    if all(_id_kind(kind, missing) for kind in set(map(type, values))):
        return None
    return next(i for i, value in enumerate(values) if not _id_kind(type(value), missing))


def kind_in_role(value: object, numbers: bool) -> str:
    """What ``value`` is, in a message's words: among the ids' kinds (text, an integer)
    or the numbers' (text, a number), else its type (an id that is a float: ``a float``)."""
    if isinstance(value, _NUMBERS if numbers else int) and not isinstance(value, bool):
        return "a number" if numbers else "an integer"
    return python_type(value)


# how to give an id refused (a float, a Decimal, bytes): a number has lost how the id was
# written (1e3, 1000 and 1000.0 are one float), so the id is asked for as its text
ID_FIX = "; give ids as text (str), as they are written where they come from"


def _stray(value: object, what: str, located: str, numbers: bool) -> str:
    """The message for ``value``, of no kind the role ``what`` takes, at ``located``."""
    expected = "an int, float or Decimal" if numbers else "text or an integer"
    fix = "" if numbers else ID_FIX
    kind = kind_in_role(value, numbers)
    return f"{located}: {what} {excerpt(value)} is {kind}, not {expected}{fix}"


def python_ids(
    values: list, what: str, origin: str, where: Where = row_named, keys: bool = False
) -> pa.Array:
    """Python ids (records' query or document ids, a dict's keys) as :func:`from_python`
    reads them, but the first that is neither text nor an integer is named even where
    every id is of its kind (all bytes, all floats: Arrow holds them as one column, whose
    type :func:`~trecbench.inputs.tables.ids` would refuse in a DataFrame's words); ids
    that are all None are missing ones. With ``keys`` the ids are a dict's keys, which
    ``where`` shows: None is a key of no id kind, not a missing id, and the message names
    the kind alone (``query 2.5: a query id must be text or an integer, not a float``)."""
    if not values:  # no id to type: an empty string column (built without pandas)
        return arrow.array([], pa.string())
    given, values = values, python_values(values)  # np.str_('a') is the text 'a'
    row = stray_id(values, missing=not keys)
    if row is not None:  # quoted as given: np.float64(1000.0), not the float it holds
        value, located = given[row], where(row)
        if not keys:
            raise InputError(origin, None, _stray(value, what, located, numbers=False))
        kind = kind_in_role(value, numbers=False)
        if value is not values[row]:  # the key ``located`` shows is the value it holds
            kind += f" ({excerpt(value)})"
        message = f"{located}: a {what} must be text or an integer, not {kind}{ID_FIX}"
        raise InputError(origin, None, message)
    array = from_python(values, what, origin, where)
    return array.cast(pa.string()) if pa.types.is_null(array.type) else array


def _refusal(values: list, what: str, where: Where, numbers: bool) -> str:
    """Why ``values`` are not one column: the first value of no kind the role takes, else
    the first of another kind than the first value's."""
    accepted = ("text", "a number" if numbers else "an integer")
    present = [(row, value, kind_in_role(value, numbers)) for row, value in enumerate(values)]
    present = [item for item in present if item[1] is not None]  # missing: the role says
    stray = next((item for item in present if item[2] not in accepted), None)
    if stray is not None:
        row, value, _ = stray
        return _stray(value, what, where(row), numbers)
    first, _, first_group = present[0]
    seen = where(first)  # before the row's: a dict from JSON cites the last key path named
    row, value, group = next(item for item in present if item[2] != first_group)
    return f"{where(row)}: {what} {excerpt(value)} is {group}, not {first_group} as in {seen}"


def _refuse_unwritable(values: list, what: str, origin: str, where: Where, numbers: bool):
    """Refuse the first int longer than Python writes (:func:`~trecbench.errors.int_text`):
    as a number it overflows a double (a shorter one is read through its text, as
    trec_eval's ``atof`` reads it); an id is printed as it is, and this one has no text
    but a rounded one."""
    limit = sys.get_int_max_str_digits()
    for row, value in enumerate(values):
        if isinstance(value, int) and value.bit_length() > 3 * limit:
            text = int_text(value)
            if "E" not in text:
                continue
            said = (
                "overflows a double"
                if numbers
                else f"has more than {limit:,} digits, more than Python writes as text: "
                "an id must be written as it is"
            )
            raise InputError(origin, None, f"{where(row)}: {what} {text} {said}")


def _beyond_double(value: object) -> bool:
    """Whether ``value`` is a finite Decimal a double cannot hold."""
    if isinstance(value, Decimal) and value.is_finite():
        return math.isinf(float(value))
    return False


def _refuse_overflow(values: list, what: str, origin: str, where: Where) -> None:
    """Refuse the first number beyond a double's range (``Decimal("1E+400")``,
    ``10**5000``) as it is written, as TREC text's ``1e400`` is: a score it overflows, a
    grade it lies far beyond ±MAX_GRADE, and its integer's text (:func:`_number_text`)
    would run to 401 digits, or for ``1E+999999999`` fill the memory."""
    row = next((i for i, value in enumerate(values) if _beyond_double(value)), None)
    if row is not None:
        value = values[row]
        shown = excerpt_plain(int_text(value) if isinstance(value, int) else str(value))
        raise InputError(origin, None, f"{where(row)}: {what} {shown} overflows a double")


def from_python(
    values, what: str, origin: str, where: Where = row_named, numbers=False
) -> pa.Array:
    """Python values (ids, scores or grades of a dict, records or an object column) as an
    Arrow array, or a one-line :class:`InputError` naming the first value that is of no
    kind the role takes, or of another kind than the first value's.

    Integers beyond 64 bits (with ``numbers``, mixed with floats or Decimals too: numbers
    Arrow cannot hold as one type) become their exact decimal text, which each role then
    reads by its own rule: an id as written, a score as trec_eval's ``atof`` reads the
    text (the nearest double), a grade refused beyond ±MAX_GRADE. A numpy scalar is read
    as the Python value it holds; a bool among numbers is refused wherever it is. A lone
    surrogate (``"\\udc80"``, what ``surrogateescape`` makes of bad bytes) is not text
    UTF-8 can hold: refused."""
    values = python_values(values)
    if numbers and bool in set(map(type, values)):
        # a bool is no number, wherever it is: Arrow refuses it first or beside ints, but
        # reads it after a float as 1.0 or 0.0 ([0.5, True] is a double column)
        raise InputError(origin, None, _refusal(values, what, where, numbers))
    try:
        return pa.array(values)
    except UnicodeEncodeError:
        row = next(
            i for i, value in enumerate(values) if isinstance(value, str) and not encodable(value)
        )
        message = f"{where(row)}: {what} {excerpt(values[row])} holds a lone surrogate"
        raise InputError(origin, None, f"{message}, which UTF-8 cannot encode") from None
    except (OverflowError, *ARROW_REFUSALS):
        if all(_taken(value, numbers) for value in values):
            if numbers:  # an id is text however long: 10**400 is written in full
                _refuse_overflow(values, what, origin, where)
            _refuse_unwritable(values, what, origin, where, numbers)
            texts = [None if value is None else _number_text(value) for value in values]
            return pa.array(texts, pa.string())
        raise InputError(origin, None, _refusal(values, what, where, numbers)) from None


def index_label(value: object) -> str:
    """A DataFrame's index label (or a dict's key) as errors cite it: ``20``, ``'a'`` (a
    numpy number as the Python value it holds, not ``np.int64(20)``; a date as a date, not
    the bare int its ``item()`` is at nanoseconds); a MultiIndex's tuple so in each of its
    values: ``('r', 3)``, not ``('r', np.int64(3))``)."""
    return excerpt(_label_value(value))


def _label_value(value: object) -> object:
    """:func:`index_label`'s value: a tuple's values each as the Python values they hold."""
    if isinstance(value, tuple):
        return tuple(_label_value(part) for part in value)
    return python_values([value])[0]
