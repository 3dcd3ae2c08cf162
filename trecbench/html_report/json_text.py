"""A JSON document as a page shows it in a ``<pre>`` (:func:`json_shown`): the provenance
of each page, report.html's and the leaderboard's."""

from __future__ import annotations

import json
import re

from ..invisible import shows

# a JSON text's strings (no quote stands outside one)
_JSON_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')


def _unseen(character: str) -> str:
    """A character the page cannot show as itself (a control, a U+202E, a line
    separator, a lone surrogate, one that draws nothing: U+034F) as JSON writes it
    escaped: ``\\u202e``."""
    code = ord(character)
    if code > 0xFFFF:
        code -= 0x10000
        return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"
    return f"\\u{code:04x}"


def json_shown(document: dict):
    """``document`` as JSON text (the report's values: a text read from an input as read,
    a right-to-left name without the page's isolates), for a ``<pre>``: a character the
    page cannot show as itself written as JSON's escape (the same JSON value), and each
    string of any other than ASCII between ``<bdi>`` (markup, no character of the text),
    so that a right-to-left name cannot reorder the JSON's own punctuation around it. The
    provenance of each page (provenance.html.j2): report.html's, the leaderboard's."""
    from markupsafe import Markup, escape  # Jinja2's

    text = json.dumps(document, indent=1, ensure_ascii=False, default=str)

    def string(match) -> str:
        inner = "".join(c if shows(c) else _unseen(c) for c in match.group(1))
        shown, quote = escape(inner), escape('"')  # &#34;, as the template escapes it
        return f"{quote}{shown}{quote}" if inner.isascii() else f"{quote}<bdi>{shown}</bdi>{quote}"

    parts, last = [], 0
    for match in _JSON_STRING.finditer(text):
        parts += [str(escape(text[last : match.start()])), string(match)]
        last = match.end()
    return Markup("".join([*parts, str(escape(text[last:]))]))
