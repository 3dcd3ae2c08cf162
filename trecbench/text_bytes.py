"""Text made bytes for every output: UTF-8, and a file name's byte that is not UTF-8 as an
escape, never an internal error."""

from __future__ import annotations

import re
from typing import Any

# a surrogate code point: alone in a str (never a pair there), a byte of a file name that
# is not UTF-8 as os.fsdecode holds it
_SURROGATE = re.compile("[\ud800-\udfff]")


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


def json_dumps(value: Any, **options) -> str:
    """``json.dumps(value, ensure_ascii=False, **options)`` with each lone surrogate (a
    byte of a file name that is not UTF-8) written as its JSON escape ``\\udcff``: a
    JSON text printed to a terminal or a pipe held the byte itself, and was no UTF-8
    (RFC 8259 §8.1); the escape reads back as the same name."""
    import json

    text = json.dumps(value, ensure_ascii=False, **options)
    return _SURROGATE.sub(lambda found: f"\\u{ord(found.group()):04x}", text)
