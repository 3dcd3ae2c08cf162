"""A UTF-16 file told by its byte-order mark and refused in the same words by every reader
of text: score's gate (R23), JSONL runs, the converters' JSON, JSON-lines and TSV, the
ontology and the configurations (:func:`utf8_text`)."""

from __future__ import annotations

from codecs import BOM_UTF16_BE, BOM_UTF16_LE

from .errors import InputError

UTF16_FILE = "the file is UTF-16; save it as UTF-8"


def is_utf16(head: bytes) -> bool:
    """Whether a file that starts with ``head`` is UTF-16: it starts with UTF-16's
    byte-order mark, as Windows editors save "Unicode" text (read as UTF-8, that mark is
    an invalid byte, and every other byte of ASCII text a NUL)."""
    return head.startswith((BOM_UTF16_LE, BOM_UTF16_BE))


def utf8_text(data: bytes, path: str, invalid: str | None = None) -> str:
    """The file ``path``'s bytes ``data`` as text, without a UTF-8 byte-order mark (kept,
    it would join the first id, header or key). A UTF-16 file is refused as score refuses
    one; other bytes that are not UTF-8 are an error at their line saying ``invalid``
    (default: ``not UTF-8`` and the decoder's reason), not at Python's byte position."""
    if is_utf16(data):
        raise InputError(path, None, UTF16_FILE)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise InputError(path, line, invalid or f"not UTF-8: {exc.reason}") from None
    return text.removeprefix("\ufeff")
