"""The C library behaviour trec_eval's results depend on, in Python.

trec_eval prints what glibc computes: ``lround`` rounds halves away from zero, a ``double``
converted to ``int`` truncates (and gives ``INT_MIN`` when it does not fit, on x86-64),
and ``qsort`` (glibc 2.x) is a stable top-down merge sort. The last one matters where
trec_eval's comparator is not a total order (nDCG's gain table compares gains truncated to
int, so 0.5 and 1.0 "tie"): any other sort could order such a table differently. It reads
its measures' parameters with ``atol`` and ``atof``: the leading number (``atof``'s
decimal or C99 hexadecimal), 0 without one.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

INT_MIN = -(2**31)
LONG_MAX = 2**63 - 1  # a C long on x86-64
# what C's atol and atof read of a parameter (trec_eval reads its measures' parameters so)
_ATOL = re.compile(r"^[ \t\n\r\v\f]*([+-]?[0-9]+)")
_ATOF = re.compile(
    r"^[ \t\n\r\v\f]*([+-]?(([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?|inf(inity)?|nan))",
    re.IGNORECASE,
)
# C99's hexadecimal form, which glibc's atof reads too (0x1p-1 is 0.5)
_HEX = re.compile(
    r"^[ \t\n\r\v\f]*([+-]?0x([0-9a-f]+(\.[0-9a-f]*)?|\.[0-9a-f]+)(p[+-]?[0-9]+)?)",
    re.IGNORECASE,
)


def lround(x: float) -> int:
    """C ``lround``: the nearest integer, halves away from zero (exact for every double);
    ``LONG_MIN`` where no long holds it (NaN, infinities, 2^63 and past): glibc converts
    such a value with a plain cast, which x86-64 makes ``LONG_MIN``."""
    if not -LONG_MAX - 1 <= x < LONG_MAX + 1:  # NaN compares false
        return -LONG_MAX - 1
    if x < 0:
        return -lround(-x)
    whole = math.floor(x)
    return whole + 1 if x - whole >= 0.5 else whole  # x - floor(x) is exact


def c_atol(text: str) -> int:
    """C ``atol`` (glibc's, a 64-bit long): the leading integer of ``text``, 0 when there
    is none, held at the long's limits beyond them (``strtol`` saturates)."""
    match = _ATOL.match(text)
    if not match:
        return 0
    digits = match.group(1)
    if len(digits.lstrip("+-").lstrip("0")) > 19:  # beyond any long (and int()'s digit limit)
        return -LONG_MAX - 1 if digits.startswith("-") else LONG_MAX
    return max(-LONG_MAX - 1, min(LONG_MAX, int(digits)))


def atol_saturates(text: str) -> bool:
    """Whether C ``atol`` holds ``text``'s leading integer at a long's limit: beyond it."""
    match = _ATOL.match(text)
    if not match:
        return False
    digits = match.group(1).lstrip("+-").lstrip("0")
    return len(digits) > 19 or not -LONG_MAX - 1 <= int(match.group(1)) <= LONG_MAX


def c_atof(text: str) -> float:
    """C ``atof`` (glibc's decimal and hexadecimal forms, ``inf``, ``infinity`` and ``nan``
    in any case): the leading number of ``text``, 0.0 when there is none."""
    hexadecimal = _HEX.match(text)
    if hexadecimal:
        number = hexadecimal.group(1)
        try:
            return float.fromhex(number)
        except OverflowError:  # strtod gives an infinity, as for 1e999
            return -math.inf if number.startswith("-") else math.inf
    match = _ATOF.match(text)
    return float(match.group(1)) if match else 0.0


def read_whole(text: str, integer: bool) -> bool:
    """Whether C's ``atol`` (``integer``) or ``atof`` reads all of ``text``: what follows
    the number it reads is ignored (``P.5abc`` is ``P_5``, ``ndcg_cut.1e3`` ``ndcg_cut_1``)."""
    patterns = (_ATOL,) if integer else (_HEX, _ATOF)
    return any((found := p.match(text)) and found.end() == len(text) for p in patterns)


def reads_a_number(text: str, integer: bool) -> bool:
    """Whether C's ``atol`` (``integer``) or ``atof`` finds a number at the start of
    ``text`` (``abc`` and an empty text have none: read as 0)."""
    patterns = (_ATOL,) if integer else (_HEX, _ATOF)
    return any(p.match(text) for p in patterns)


def to_long(x: float) -> int:
    """C's conversion of a ``double`` to a 64-bit ``long``: truncation toward zero;
    ``LONG_MIN`` (what x86-64's ``cvttsd2si`` returns) for NaN and values out of range."""
    if math.isnan(x) or not -(2**63) <= x < 2**63:
        return -LONG_MAX - 1
    return int(x)


def to_int(x: float) -> int:
    """C's conversion of a ``double`` to ``int``: truncation toward zero; ``INT_MIN`` (what
    x86-64's ``cvttsd2si`` returns) for NaN and values out of range."""
    if math.isnan(x) or not -(2**31) <= x < 2**31:
        return INT_MIN
    return int(x)


def qsort(items: list[T], compare: Callable[[T, T], int]) -> list[T]:
    """glibc's ``qsort`` (``msort``): halves of ``n // 2`` and ``n - n // 2``, sorted
    recursively, merged taking from the left half while ``compare(left, right) <= 0``."""
    n = len(items)
    if n <= 1:
        return list(items)
    left, right = qsort(items[: n // 2], compare), qsort(items[n // 2 :], compare)
    merged, i, j = [], 0, 0
    while i < len(left) and j < len(right):
        if compare(left[i], right[j]) <= 0:
            merged.append(left[i])
            i += 1
        else:
            merged.append(right[j])
            j += 1
    return merged + left[i:] + right[j:]


class CFloat(float):
    """A float that ``format`` prints as glibc's ``printf`` does: a NaN shows its sign
    (``-nan``: what 0/0 and inf - inf give on x86), where Python prints ``nan``."""

    def __format__(self, spec: str) -> str:
        if math.isnan(self):
            text = "-nan" if math.copysign(1.0, self) < 0 else "nan"
            width = spec.split(".")[0].lstrip("<>^=")
            return text.rjust(int(width)) if width.isdigit() else text
        return float.__format__(self, spec)
