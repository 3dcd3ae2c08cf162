"""Text read from an input (a run's name, an id, a stratum's value, a path) made safe for
one field of a line-based output, reversibly, in one way for every renderer: no such text
can inject a line or a cell into an output."""

from __future__ import annotations

# what a Markdown table cell escapes besides: "|" would end the cell, "*" would emphasise
# (and read as compare's significance stars)
MARKDOWN = "|*"


def escape_text(text, also: str = "") -> str:
    """``text`` made safe for one field of a line-based output, reversibly: ``%``, control
    characters, line breaks and every blank but the ASCII space (and each character of
    ``also``, e.g. ``" "`` where fields are whitespace-separated, :data:`MARKDOWN` in Markdown)
    become ``%XX`` of their UTF-8 bytes; :func:`urllib.parse.unquote` gives ``text`` back.
    A newline in a run name or a stratum value can then never start a line of its own. A
    byte of a file name that is not UTF-8 (held as a lone surrogate, as ``os.fsdecode``
    gives it) becomes ``%XX`` of that byte: ``os.fsdecode(unquote_to_bytes(...))`` gives
    the name back."""
    text = str(text)
    if text.isprintable() and "%" not in text and not any(c in text for c in also):
        return text
    return "".join(_quoted(c) if c == "%" or c in also or not c.isprintable() else c for c in text)


def _quoted(character: str) -> str:
    from urllib.parse import quote  # only for text to escape

    try:  # a file name's byte that is not UTF-8 as that byte
        data = character.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # any other lone surrogate as its code point's bytes
        data = character.encode("utf-8", "surrogatepass")
    return quote(data, safe="")


def escaper(output_format: str):
    """How ``output_format`` shows a text read from an input (a run's name, an id, a
    path): :func:`escape_text`, with :data:`MARKDOWN`'s characters too in ``markdown``; as
    it is in ``csv``, which quotes what it must. LaTeX escapes the ``%`` of the escaped
    text in turn."""
    if output_format == "csv":
        return str
    also = MARKDOWN if output_format == "markdown" else ""
    return lambda text: escape_text(text, also)
