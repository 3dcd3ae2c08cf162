"""A measure's value and a difference as every table and figure prints them: four
decimals, a difference signed but 0 unsigned (:func:`signed_text`), and never 0 where the
value is not (:func:`value_text`). Its own module, among the foundations: the renderers'
tables, the pages and the plots drawn from plain arrays print numbers alike."""

from __future__ import annotations

import math
from collections.abc import Callable


def signed_text(value: float, digits: int = 4) -> str:
    """A difference as every table prints it: ``digits`` decimals with its sign
    (``+0.0123``, ``-0.0123``), ``n/a`` when undefined; one that rounds to 0 there
    unsigned (``0.0000``): no gain and no loss, where ``-0.0000`` beside ``+0.0%`` read
    as contradicting signs."""
    if not math.isfinite(value):
        return "n/a"
    text = f"{value:+.{digits}f}"
    return text[1:] if float(text) == 0 else text


def value_text(value: float, signed: bool = False, digits: int = 4) -> str:
    """A measure's value (a mean, a difference, an interval's end) as every table prints it:
    ``digits`` decimals (``signed``: with its sign, 0 unsigned, :func:`signed_text`),
    ``n/a`` when undefined; but a value that is not 0 and would print as 0 there (below
    half a unit of the last decimal, 0.00005 at four) with two significant digits in
    scientific notation: ``1.7e-15``, ``+1.7e-15``, ``-1.7e-15``. RBP(p=0.01)'s values are
    1e-15 and below, and its difference of 1.7e-15 read ``0.0000`` beside ``▼*``: no
    difference beside a significant one. An exact 0 stays ``0.0000``; other values keep
    their decimals (trec_eval's ``%.4f``)."""
    if not math.isfinite(value):
        return "n/a"
    text = signed_text(value, digits) if signed else f"{value:.{digits}f}"
    if value != 0 and float(text) == 0:
        return f"{value:+.1e}" if signed else f"{value:.1e}"
    return text


def below_one_text(value: float, digits: int = 4) -> str:
    """A value of at most 1 by its meaning (a test's power, a rate) as :func:`value_text`
    prints it, but one below 1 that would print as 1 there (0.99996 as ``1.0000``, power
    reached for certain, every query routed right) with the decimals it needs to print
    below 1 (``0.99996``); a value the double holds as 1 exactly prints ``1.0000``."""
    text = value_text(value, digits=digits)
    if not value < 1 or float(text) < 1:
        return text
    return fewest_digits(value, lambda shown: float(shown) < 1, digits + 1, "f")


def fewest_digits(value: float, keeps: Callable[[str], bool], least: int = 3, style="g") -> str:
    """``value`` with the fewest digits, ``least`` at least (significant ones for ``g``,
    decimals for ``f``), whose text ``keeps`` accepts: a power below 1 never printed 1, a
    floor at or above alpha never printed below it; its ``repr`` where 17 do not do."""
    texts = (f"{value:.{count}{style}}" for count in range(least, 18))
    return next((text for text in texts if keeps(text)), repr(value))


def exact_number(value: float) -> str:
    """A setting, or a number derived from one, as ``:g`` prints it where its six digits
    read back as the double, else with the fewest more that do (60.123456789, not 60.1235;
    1234567, not 1.23457e+06; 0.012345679, the alpha of a 98.7654321% confidence)."""
    return fewest_digits(value, lambda shown: float(shown) == value, 6)
