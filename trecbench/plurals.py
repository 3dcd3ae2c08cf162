"""Counts in messages, written as English reads them: "1 document", "2 documents"."""

from __future__ import annotations


def counted(count: int, singular: str, plural: str | None = None) -> str:
    """``count`` and the noun it counts, singular for exactly one: ``counted(1, "topic")``
    is ``"1 topic"``, ``counted(0, "query", "queries")`` is ``"0 queries"`` (``plural``: when
    it is not the singular with an s)."""
    noun = singular if count == 1 else plural or f"{singular}s"
    return f"{count} {noun}"


def first_few(items: list[str], limit: int = 5) -> str:
    """The first ``limit`` of ``items`` as a message lists them: ``a, b, c, d, e, ...``."""
    return ", ".join(items[:limit]) + (", ..." if len(items) > limit else "")
