"""Counts in messages, written as English reads them: "1 document", "2 documents"; shares
and confidence levels as the exact percentages they are ("99.5%", never "100%")."""

from __future__ import annotations

from decimal import Decimal


def counted(count: int, singular: str, plural: str | None = None) -> str:
    """``count`` and the noun it counts, singular for exactly one: ``counted(1, "topic")``
    is ``"1 topic"``, ``counted(0, "query", "queries")`` is ``"0 queries"`` (``plural``: when
    it is not the singular with an s)."""
    noun = singular if count == 1 else plural or f"{singular}s"
    return f"{count} {noun}"


def first_few(items: list[str], limit: int = 5) -> str:
    """The first ``limit`` of ``items`` as a message lists them: ``a, b, c, d, e, ...``."""
    return ", ".join(items[:limit]) + (", ..." if len(items) > limit else "")


def few_reprs(names: list[str], shown: int = 6) -> str:
    """``['a', 'b', ...]`` with at most ``shown`` names and a count of the rest, as a
    result's ``repr`` lists its runs and measures."""
    more = f", ... {len(names) - shown} more" if len(names) > shown else ""
    return "[" + ", ".join(map(repr, names[:shown])) + more + "]"


def exact_percent(share: float) -> str:
    """A threshold or a confidence level as a percentage, exactly as set: the decimal the
    float reads as, moved two places (0.4285: ``42.85%``, 0.995: ``99.5%``, 0.001:
    ``0.1%``; never rounded to a whole percent, nor written with an exponent)."""
    return f"{Decimal(repr(float(share))).scaleb(2).normalize():f}%"


def percent_beside(value: float, threshold: float) -> str:
    """``value`` as a percentage with the decimals that keep it on its side of
    ``threshold`` (0.50001 beside 0.5: ``50.001%``, never 50.0% > 50%)."""
    for digits in range(1, 12):
        shown = round(value * 100, digits)
        same_side = (shown > threshold * 100) == (value > threshold)
        if same_side and (shown != threshold * 100) == (value != threshold):
            return f"{shown:.{digits}f}%"
    return f"{value * 100:.12g}%"
