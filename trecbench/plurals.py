"""Counts in messages, written as English reads them: "1 document", "2 documents"; shares
and confidence levels as the exact percentages they are ("99.5%", never "100%")."""

from __future__ import annotations

from collections.abc import Callable, Sequence


def counted(count: int, singular: str, plural: str | None = None) -> str:
    """``count`` and the noun it counts, singular for exactly one: ``counted(1, "topic")``
    is ``"1 topic"``, ``counted(0, "query", "queries")`` is ``"0 queries"`` (``plural``: when
    it is not the singular with an s)."""
    noun = singular if count == 1 else plural or f"{singular}s"
    return f"{count} {noun}"


def first_few(items: Sequence, limit: int = 5, shown: Callable[..., str] = str) -> str:
    """The first ``limit`` of ``items`` as a message lists them: ``a, b, c, d, e, ...``,
    each as ``shown`` shows it (only those shown are)."""
    return ", ".join(map(shown, items[:limit])) + (", ..." if len(items) > limit else "")


def few_and_more(items: Sequence, limit: int = 5, shown: Callable[..., str] = str) -> str:
    """The first ``limit`` of ``items`` and how many more: ``a, b, c, d, e and 2 more``
    (a message that asks the user to act on each says how many there are), each as
    ``shown`` shows it."""
    rest = len(items) - limit
    return ", ".join(map(shown, items[:limit])) + (f" and {rest} more" if rest > 0 else "")


def few_reprs(names: list[str], shown: int = 6) -> str:
    """``['a', 'b', ...]`` with at most ``shown`` names and a count of the rest, as a
    result's ``repr`` lists its runs and measures, each a :func:`short_repr`."""
    more = f", ... {len(names) - shown} more" if len(names) > shown else ""
    return "[" + ", ".join(map(short_repr, names[:shown])) + more + "]"


SHORT_REPR = 40  # characters of a name a result's repr keeps (a repr is one short line)


def short_repr(value: object) -> str:
    """``repr(value)``, a text of more than :data:`SHORT_REPR` characters cut there and
    marked (``'aaaa…'``): a run named by 10,000 characters made a repr as long."""
    if isinstance(value, str) and len(value) > SHORT_REPR:
        return repr(value[:SHORT_REPR] + "…")
    return repr(value)


def exact_percent(share: float) -> str:
    """A threshold or a confidence level as a percentage, exactly as set: the decimal the
    float reads as, moved two places (0.4285: ``42.85%``, 0.995: ``99.5%``, 0.001:
    ``0.1%``; never rounded to a whole percent, nor written with an exponent)."""
    from decimal import Decimal  # (1 ms to import: only where a percentage is written)

    return f"{Decimal(repr(float(share))).scaleb(2).normalize():f}%"


def percent_beside(value: float, *thresholds: float, sign: str = "%") -> str:
    """``value`` as a percentage with the decimals that keep it on its side of each of
    ``thresholds`` (0.50001 beside 0.5: ``50.001%``, never 50.0% > 50%), then ``sign``
    (``" percent"`` where a message's own words hold no ``%``)."""
    for digits in range(1, 12):
        shown = round(value * 100, digits)
        if all(
            (shown > threshold * 100) == (value > threshold)
            and (shown != threshold * 100) == (value != threshold)
            for threshold in thresholds
        ):
            return f"{shown:.{digits}f}{sign}"
    return f"{value * 100:.12g}{sign}"


def share_percent(share: float, sign: str = "%") -> str:
    """A share (0 to 1) as a percentage that reads 0% or 100% only when it is: 1 of 3,001
    is ``0.03%``, 3,000 of 3,001 ``99.97%`` (:func:`percent_beside` 0 and 1)."""
    return percent_beside(share, 0.0, 1.0, sign=sign)
