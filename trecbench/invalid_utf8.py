"""The fields of TREC text lines holding bytes that are not UTF-8 (R23.utf8), held as text
that keeps apart what trec_eval keeps apart: ids that differ in their bytes.

Arrow strings and Python's text hold no such byte, and its escape alone (``\\xff``, as
Python's ``backslashreplace`` writes it) is also the text of the four characters ``\\``,
``x``, ``f``, ``f``: the docno ``a`` 0xFF ``b`` and the docno ``a\\xffb`` were one to
every check comparing ids (a duplicate in a topic, R7; a document judged by the qrels,
X4), where trec_eval, comparing bytes, reads two. Each such byte is held as its escape
after :data:`MARK`, a line feed, which no field of TREC text holds (a line ends there):
held so, two fields are the same text exactly when they are the same bytes, and a field
that is UTF-8 is unchanged. Findings and reports show such a field without the marks
(:func:`shown`, :func:`shown_message`); what orders ids as trec_eval does takes their
bytes back (:func:`stored_bytes`).
"""

from __future__ import annotations

import re

# what precedes the escape of a byte that is not UTF-8 in a field's text: what ends a line
# of TREC text, so in no field of one (a table's id holding it is an error, R31)
MARK = "\n"
_MARKED_BYTE = re.compile(r"\n\\x([0-9a-f]{2})")
# surrogateescape's stand-ins of the bytes that are not UTF-8 (0x80 to 0xFF)
_ESCAPED_BYTE = re.compile("[\udc80-\udcff]")
# said after a finding quoting such a field: the escape alone reads as its four characters
# too (the docno a\xffb), which the bytes are not
NOT_UTF8_NOTE = "; an id's bytes that are not UTF-8 are shown as \\xNN"


def _marked(found: re.Match) -> str:
    return f"{MARK}\\x{ord(found.group()) - 0xDC00:02x}"


def marked_text(field: bytes) -> str:
    """The bytes of a field of TREC text as the text that holds them: UTF-8 decoded, each
    byte that is not UTF-8 as :data:`MARK` and its escape (``\\n\\xff``)."""
    return _ESCAPED_BYTE.sub(_marked, field.decode("utf-8", "surrogateescape"))


def stored_bytes(text: str) -> bytes:
    """The bytes of the field :func:`marked_text` made ``text`` of (UTF-8 for any other
    text)."""
    if MARK not in text:
        return text.encode()
    escaped = _MARKED_BYTE.sub(lambda found: chr(0xDC00 + int(found.group(1), 16)), text)
    return escaped.encode("utf-8", "surrogateescape")


def shown(text: str) -> str:
    """``text`` as it is shown: a field's bytes that are not UTF-8 as their escapes
    (``\\xff``, as ``backslashreplace`` writes them), the marks dropped."""
    return text.replace(MARK + "\\x", "\\x") if MARK in text else text


def shown_message(message: str) -> str:
    """A finding's ``message`` as it is shown (:func:`shown`), with a note saying what the
    escapes are when it quotes a field holding bytes that are not UTF-8: an escape reads
    as the four characters it is made of too."""
    if MARK + "\\x" not in message:
        return message
    return shown(message) + NOT_UTF8_NOTE
