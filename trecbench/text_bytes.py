"""Text made bytes for every output: UTF-8, and a file name's byte that is not UTF-8 as an
escape, never an internal error."""

from __future__ import annotations


def utf8(text: str) -> bytes:
    """``text`` as UTF-8; a lone surrogate (a byte of a file name that is not UTF-8, as
    ``os.fsdecode`` holds it) as its escape ``\\udcff``: within a JSON string (reports
    record paths) the escape reads back as the same name, where UTF-8 has no bytes for it."""
    return text.encode("utf-8", "backslashreplace")


def encodable(text: str) -> bool:
    """Whether UTF-8 holds ``text`` (no lone surrogate: a byte of a file name that is not
    UTF-8, as ``os.fsdecode`` holds it, or ``surrogateescape``'s)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
