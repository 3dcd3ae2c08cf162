"""Ids that print alike and are not one id: the same text in two of Unicode's
normalization forms (``café`` as one code point é, NFC, or as e and a combining acute
accent, NFD: what macOS file names hold). trec_eval compares ids as bytes, and so does
trecbench, so a run's NFD topic is not the qrels' NFC one, though every message prints
them alike: the messages that say so (validate's near misses, score's flagged topics)
name the other form."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable


def nfc(text: str) -> str:
    """``text`` in Unicode's composed form (NFC): ids that are one text in two forms
    (:func:`same_text`) have the same."""
    return text if text.isascii() else unicodedata.normalize("NFC", text)


def same_text(one: str, other: str) -> bool:
    """Are ``one`` and ``other`` two ids, one text in two normalization forms?"""
    return one != other and nfc(one) == nfc(other)


def form(text: str) -> str:
    """The normalization form ``text`` is in: ``NFC``, ``NFD``, or neither."""
    for name in ("NFC", "NFD"):
        if unicodedata.is_normalized(name, text):
            return name
    return "neither NFC nor NFD"


def counterparts(given: Iterable[str], others: Iterable[str]) -> list[tuple[str, str]]:
    """``(id, other)`` for each of ``given`` (ids ``others`` lack, in order) that is one
    text with ``other``, one of ``others``, in another normalization form; an ASCII id is
    in every form, one of none."""
    composed = {nfc(text): text for text in sorted(others) if not text.isascii()}
    if not composed:
        return []
    found = ((text, composed.get(nfc(text))) for text in given if not text.isascii())
    return [(text, other) for text, other in found if other is not None and other != text]


def alike(given: Iterable[str], others: Iterable[str]) -> list[str]:
    """Those of ``given`` that are one of ``others`` in another form
    (:func:`counterparts`)."""
    return [text for text, _ in counterparts(given, others)]


def forms_apart(given: Iterable[str], others: Iterable[str], mine: str, theirs: str) -> str:
    """What a refusal of inputs without a topic in common adds where one of ``given``
    (``mine``: whose, "the run's") is one of ``others`` (``theirs``'s) in another
    normalization form: printed alike, they read as the same topic; "" where none is."""
    from .errors import excerpt

    pairs = counterparts(given, others)
    if not pairs:
        return ""
    text, other = pairs[0]
    more = f" (and {len(pairs) - 1:,} more)" if len(pairs) > 1 else ""
    return (
        f"; {mine} {excerpt(text)} is {theirs} {excerpt(other)}{more} in another Unicode "
        f"normalization form ({form(text)}, {form(other)}): ids are compared as bytes"
    )
