"""A UTF-16 or UTF-32 file told by its byte-order mark and refused in the same words by
every reader of text: score's gate (R23), JSONL runs, the converters' JSON, JSON-lines and
TSV, the ontology and the configurations (:func:`utf8_text`)."""

from __future__ import annotations

from codecs import BOM_UTF16_BE, BOM_UTF16_LE, BOM_UTF32_BE, BOM_UTF32_LE

from .errors import InputError

# UTF-32's first: its little-endian mark, FF FE 00 00, starts with UTF-16's, FF FE
_MARKS = (("UTF-32", (BOM_UTF32_LE, BOM_UTF32_BE)), ("UTF-16", (BOM_UTF16_LE, BOM_UTF16_BE)))


def wide_encoding(head: bytes) -> str | None:
    """``"UTF-16"`` or ``"UTF-32"`` when a file that starts with ``head`` starts with that
    encoding's byte-order mark, as Windows editors save "Unicode" text (read as UTF-8, that
    mark is an invalid byte, and every other byte of ASCII text a NUL); else None."""
    return next((name for name, marks in _MARKS if head.startswith(marks)), None)


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
