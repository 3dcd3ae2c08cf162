"""A UTF-16 or UTF-32 file told by its byte-order mark (or, without one, by its NULs) and
refused in the same words by every reader of text: score's gate (R23), JSONL runs, the
converters' JSON, JSON-lines and TSV, the ontology, the configurations and --ir-metadata's
(:func:`utf8_text`)."""

from __future__ import annotations

import re
from codecs import BOM_UTF16_BE, BOM_UTF16_LE, BOM_UTF32_BE, BOM_UTF32_LE

from .errors import InputError

# UTF-32's first: its little-endian mark, FF FE 00 00, starts with UTF-16's, FF FE
_MARKS = (("UTF-32", (BOM_UTF32_LE, BOM_UTF32_BE)), ("UTF-16", (BOM_UTF16_LE, BOM_UTF16_BE)))


# Without a mark (iconv -t UTF-16LE, .NET's Encoding.Unicode), each character of Latin-1
# text is one non-NUL byte and one NUL (three in UTF-32), on the side of its byte order
_UNMARKED = (
    ("UTF-32", 4, re.compile(rb"(?:[^\x00]\x00{3})+|(?:\x00{3}[^\x00])+")),
    ("UTF-16", 2, re.compile(rb"(?:[^\x00]\x00)+|(?:\x00[^\x00])+")),
)
_SAMPLE = 64  # bytes of the head whose pattern of NULs tells an unmarked wide encoding


def wide_encoding(head: bytes) -> str | None:
    """``"UTF-16"`` or ``"UTF-32"`` when a file that starts with ``head`` starts with that
    encoding's byte-order mark, as Windows editors save "Unicode" text (read as UTF-8, that
    mark is an invalid byte, and every other byte of ASCII text a NUL), or, unmarked, when
    its first characters (up to 32, at least 2) are Latin-1 text in that encoding, either
    byte order: a NUL beside every other byte (three in UTF-32); else None."""
    if marked := next((name for name, marks in _MARKS if head.startswith(marks)), None):
        return marked
    for name, unit, pattern in _UNMARKED:
        sample = head[: min(len(head), _SAMPLE) // unit * unit]
        if len(sample) >= 2 * unit and pattern.fullmatch(sample):
            return name
    return None


def wide_file(encoding: str) -> str:
    """What every reader says of a file in ``encoding`` (:func:`wide_encoding`'s)."""
    return f"the file is {encoding}; save it as UTF-8"


def utf8_text(data: bytes, path: str, invalid: str | None = None) -> str:
    """The file ``path``'s bytes ``data`` as text, without a UTF-8 byte-order mark (kept,
    it would join the first id, header or key). A UTF-16 or UTF-32 file is refused as score
    refuses one; other bytes that are not UTF-8 are an error at their line saying ``invalid``
    (default: ``not UTF-8`` and the decoder's reason), not at Python's byte position."""
    if encoding := wide_encoding(data):
        raise InputError(path, None, wide_file(encoding))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise InputError(path, line, invalid or f"not UTF-8: {exc.reason}") from None
    return text.removeprefix("\ufeff")
