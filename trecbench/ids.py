"""Ids are strings: the dtype they are held in, and the one reversible escaping that turns
any string into a valid TREC id.

trec_eval splits its lines on blanks, so an id cannot contain one; the validator also
refuses control characters, Unicode blanks and zero-width characters in ids, and reads a
line whose first field starts with ``#`` as a comment. :func:`escape_id` percent-encodes
exactly those characters (each as the ``%XX`` upper-case hex of its UTF-8 bytes), a query
id's leading ``#`` and every ``%`` that opens what :func:`urllib.parse.unquote` decodes
(``%`` and two hex digits). So the escaping is reversible: :func:`unescape_id` gives back
the original of every escaped id, and two distinct ids never become one (``q 1`` →
``q%201``, ``q%201`` → ``q%25201``). Ids that need none of this are written unchanged,
``100%_pure`` and a document's ``#5`` among them: they match the collection's own qrels.
"""

from __future__ import annotations

import re
from urllib.parse import unquote

import numpy as np
import pandas as pd
import pyarrow as pa

from . import arrow_compute as pc
from .arrow import plain_ids
from .errors import UsageError, excerpt
from .inputs.trec_text import CHARACTERS_NO_TREC_ID_HOLDS, python_pattern
from .type_names import python_type

STR = pd.StringDtype()

# the characters no TREC id holds (blanks, controls, DEL and every character the
# validator's Unicode-blank rule names, R2 and R6: C1 controls, blanks, zero-width, bidi and
# ignorable characters, variation selectors, tags: what the writers refuse), and '%' where
# unquote would decode it ('%' and two hex digits), which keeps the escaping reversible
# while an id such as '100%_pure' is written as it is
_HELD = r"%(?=[0-9A-Fa-f]{2})|" + python_pattern(CHARACTERS_NO_TREC_ID_HOLDS)
# a query id's leading '#' too: a line starting with it is a comment to trec_eval 10.0 (a
# document's is not at a line's start, and a collection's qrels hold it as it is)
_ESCAPED = {"qid": re.compile(r"^#|" + _HELD), "docno": re.compile(_HELD)}
# An ASCII id needs escaping only for these (same rule, as RE2 patterns for Arrow).
_ASCII_ESCAPED = r"[\x00-\x20\x7f]|%[0-9A-Fa-f]{2}"
_ASCII_ESCAPED_BY_ROLE = {"qid": _ASCII_ESCAPED + "|^#", "docno": _ASCII_ESCAPED}


def _role(what: str) -> str:
    """``what``, the id's role, checked: ``qid`` or ``docno`` (their rules differ)."""
    if what not in _ESCAPED:
        raise UsageError(f"what must be 'qid' or 'docno' (the id's role), not {what!r}")
    return what


def _percent(match: re.Match) -> str:
    return "".join(f"%{byte:02X}" for byte in match.group(0).encode("utf-8"))


def escape_id(text: str, what: str = "qid") -> str:
    """``text`` as a valid TREC id of the role ``what`` (``qid`` or ``docno``): blanks,
    controls, zero-width characters, a query id's leading ``#`` and a ``%`` followed by two
    hex digits percent-encoded (UTF-8, ``%XX``); anything else unchanged."""
    return _ESCAPED[_role(what)].sub(_percent, _text(text, "escape_id"))


def unescape_id(text: str) -> str:
    """The original of an id made by :func:`escape_id` (``urllib.parse.unquote``); an id
    :func:`escape_id` makes of no text (``%FF``: no UTF-8) is refused."""
    try:
        return unquote(_text(text, "unescape_id"), errors="strict")
    except UnicodeDecodeError:
        raise UsageError(
            f"unescape_id: {excerpt(text)} is no id escape_id makes: its %XX escapes are not UTF-8"
        ) from None


def _text(text: object, function: str) -> str:
    """``text``, refused unless it is one (an id is a string, never a number)."""
    if not isinstance(text, str):
        raise UsageError(f"{function}: give an id as text, not {python_type(text)}")
    return text


def needs_escaping(values: pa.Array | pa.ChunkedArray, what: str = "qid") -> np.ndarray:
    """Where :func:`escape_id` would change a string of the role ``what`` (vectorised;
    nulls are False)."""
    _role(what)
    if plain_ids(values):
        return np.zeros(len(values), dtype=bool)
    ascii_ = pc.fill_null(pc.string_is_ascii(values), False)
    flagged = pc.fill_null(pc.match_substring_regex(values, _ASCII_ESCAPED_BY_ROLE[what]), False)
    mask = np.asarray(pc.or_(pc.invert(ascii_), flagged))
    if not mask.any():
        return mask
    # non-ASCII strings are decided by the full rule, one by one
    rows = np.flatnonzero(mask & ~np.asarray(flagged))
    texts = pa.chunked_array([values]).take(pa.array(rows)).to_pylist() if len(rows) else []
    mask[rows] = [_ESCAPED[what].search(text) is not None for text in texts]
    return mask


def escape_series(values: pd.Series, what: str = "qid") -> tuple[pd.Series, np.ndarray]:
    """``(escaped ids, where they changed)`` for a column of ids (strings) of the role
    ``what`` (``qid`` or ``docno``)."""
    values = values.astype(STR)
    changed = needs_escaping(pa.array(values), what)
    if not changed.any():
        return values, changed
    # built as plain strings: a masked assignment of a list to a string Series ends in
    # "only integer scalar arrays can be converted to a scalar index" under pandas 3.0
    texts = values.to_numpy(dtype=object)
    texts[changed] = [escape_id(text, what) for text in texts[changed]]
    return pd.Series(texts, index=values.index, dtype=STR), changed
