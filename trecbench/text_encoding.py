"""A UTF-16 file told by its byte-order mark and refused in the same words by every reader
of text: score's gate (R23), JSONL runs, and the converters' JSON, JSON-lines and TSV."""

from __future__ import annotations

from codecs import BOM_UTF16_BE, BOM_UTF16_LE

UTF16_FILE = "the file is UTF-16; save it as UTF-8"


def is_utf16(head: bytes) -> bool:
    """Whether a file that starts with ``head`` is UTF-16: it starts with UTF-16's
    byte-order mark, as Windows editors save "Unicode" text (read as UTF-8, that mark is
    an invalid byte, and every other byte of ASCII text a NUL)."""
    return head.startswith((BOM_UTF16_LE, BOM_UTF16_BE))
