"""Text read from an input (a run's name, an id, a stratum's value, a path) made safe for
one field of a line-based output or a web page, reversibly, in one way for every output:
no such text can inject a line or a cell into an output. Stdlib only, at the bottom of the
package: the renderers escape with it, and so do the validator's findings and reports, which
the evaluation's gate imports (below the renderers)."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

from .invisible import INVISIBLE, shows

# what a Markdown table cell escapes besides: "|" would end the cell, "*" would emphasise
# (and read as compare's significance stars)
MARKDOWN = "|*"
# the other ASCII punctuation Markdown reads as syntax inside a cell (CommonMark, GFM: a
# backslash, code, emphasis, strike-through, raw HTML and comments, entities, links; and
# GitHub's math, which set a run named $x$ as an italic x), backslash-escaped as CommonMark
# lets any ASCII punctuation be: rendered, it reads as given
_MARKDOWN_SYNTAX = re.compile(r"([\\`_~<>&\[\]$])")
# (after up to three blanks, which CommonMark allows before any of them; a line of three
# or more '-' is a thematic break, which showed a benchmark's description "---" as a rule)
_BLOCK_START = re.compile(
    r"^( {0,3}\d*)([.)](?<=\d[.)])(?=\s|$)|#{1,6}(?=\s|$)|[-+](?=\s|$)|-(?=(?:[ \t]*-){2,}[ \t]*$))"
)
# the blanks at a text's ends, which Markdown drops (a table's cell is trimmed, " a" shown
# "a") or reads as syntax (four at a line's start indent a code block): as %20, reversibly
_END_BLANKS = re.compile(r"^ +| +$")
# what closes a heading where the text ends its line ("# Benchmark: a ##" showed "a"): a
# run of '#' at the text's end, after a blank or as the whole text
_HEADING_END = re.compile(r"(?:^|(?<= ))(#+ *)$")
# what ends a list of ids that goes on (plurals.first_few's "a, b, c, d, e, ...")
_MORE = "..."


def escape_text(text, also: str = "") -> str:
    """``text`` made safe for one field of a line-based output, reversibly: ``%``, control
    characters, line breaks, every blank but the ASCII space, the characters that draw
    nothing (:mod:`trecbench.invisible`: ``r`` and ``r`` + U+034F read as one) (and each
    character of ``also``, e.g. ``" "`` where fields are whitespace-separated,
    :data:`MARKDOWN` in Markdown)
    become ``%XX`` of their UTF-8 bytes; :func:`urllib.parse.unquote` gives ``text`` back.
    A newline in a run name or a stratum value can then never start a line of its own. A
    byte of a file name that is not UTF-8 (held as a lone surrogate, as ``os.fsdecode``
    gives it) becomes ``%XX`` of that byte: ``os.fsdecode(unquote_to_bytes(...))`` gives
    the name back."""
    text = str(text)
    # no generator for ``any`` without ``also``, no call for the invisible characters: a
    # page escapes a million document ids
    if (
        "%" not in text
        and text.isprintable()
        and (text.isascii() or INVISIBLE.search(text) is None)
        and not (also and any(c in text for c in also))
    ):
        return text
    if text.isascii():  # no invisible character to look for in each
        return "".join(
            _quoted(c) if c == "%" or c in also or not c.isprintable() else c for c in text
        )
    return "".join(_quoted(c) if c == "%" or c in also or not shows(c) else c for c in text)


def group_place(by: str, kind: str, group=None, blanks: bool = True) -> str:
    """Where ``score --group-by`` puts a mean in place of the topic, as its trec text
    prints it: ``<by>=<group>`` for a group (``kind`` "group"), ``<by>:<kind>`` for the
    means over the groups (macro, micro, spread). The field's ``=`` and blanks and the
    group's blanks are escaped (:func:`escape_text`): one place, one name (the field
    ``a`` and group ``b=c`` are ``a=b=c``, the field ``a=b`` and group ``c`` are
    ``a%3Db=c``), in one field of a whitespace-separated line. Without ``blanks`` (CSV,
    whose fields hold any text) the field's ``=`` alone is escaped, the group as it is."""
    field = escape_text(by, " =" if blanks else "=")
    if kind != "group":
        return f"{field}:{kind}"
    return f"{field}={escape_text(group, ' ') if blanks else group}"


def list_item(escaped: str) -> str:
    """An input's ``escaped`` text (:func:`escape_text`'s, or an output's :func:`escaper`'s,
    which escape ``%``) as one item of a list a message joins with ``", "``
    (:func:`~trecbench.plurals.first_few`): its commas and the blanks at its ends as
    ``%XX``, and an item that reads as the list's ``...`` with its first character so
    (:func:`unlike`). The separator then never occurs in an item (the ids ``a, b`` and
    ``c`` list as ``a%2C b, c``, never as the three ids ``a``, ``b`` and ``c``), nor does an
    item read as the list's end or lose a blank at the line's end;
    :func:`urllib.parse.unquote` gives the text back."""
    return unlike(_ends_escaped(escaped.replace(",", "%2C")), (_MORE,))


def id_list(texts: Sequence, shown=escape_text, limit: int | None = 5) -> str:
    """The first ``limit`` (None: every one) of ``texts`` read from an input (ids) as a
    message lists them, ``a, b, c, d, e, ...`` (:func:`~trecbench.plurals.first_few`),
    each shown by ``shown``
    (an output's :func:`escaper`) as a :func:`list_item`. A plain message's (and CSV's)
    ``str`` escapes as :func:`escape_text` here: whatever the output, an item of a list
    must not hold its separator, nor ``%2C`` read as a comma escaped."""
    from .plurals import first_few

    show = escape_text if shown is str else shown
    every = len(texts) if limit is None else limit
    return first_few(texts, every, lambda text: list_item(show(text)))


def unlike(escaped: str, labels) -> str:
    """An input's ``escaped`` text (:func:`escape_text`) told apart from the output's own
    ``labels`` (a summary row's ``all`` or ``(macro)``): one that reads as a label gets its
    first character as ``%XX``, as escaping writes it (:func:`urllib.parse.unquote` gives
    the text back; a ``%`` of the text itself is already ``%25``)."""
    if escaped not in labels:
        return escaped
    return "".join(f"%{byte:02X}" for byte in escaped[0].encode()) + escaped[1:]


def _quoted(character: str) -> str:
    from urllib.parse import quote  # only for text to escape

    try:  # a file name's byte that is not UTF-8 as that byte
        data = character.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # any other lone surrogate as its code point's bytes
        data = character.encode("utf-8", "surrogatepass")
    return quote(data, safe="")


def markdown_text(text) -> str:
    """``text`` read from an input for a Markdown cell: :func:`escape_text` with
    :data:`MARKDOWN`, then the other characters Markdown reads as syntax backslash-escaped
    (``a_b_`` as ``a\\_b\\_``, ``<!--`` as ``\\<!--``), and the blanks at its ends as
    ``%20`` (Markdown trims them, and four at a line's start make a code block): rendered,
    it shows as given."""
    escaped = _ends_escaped(_MARKDOWN_SYNTAX.sub(r"\\\1", escape_text(text, MARKDOWN)))
    escaped = _HEADING_END.sub(r"\\\1", escaped, count=1)
    # what starts a block where the text starts a line or a list item: a heading, a list,
    # a thematic break
    return _BLOCK_START.sub(r"\1\\\2", escaped, count=1)


# the bidirectional classes of right-to-left text (Hebrew, Arabic letters; Arabic digits,
# which turn the blanks and commas between two of them right to left)
_RIGHT_TO_LEFT = frozenset(("R", "AL", "AN"))
# Unicode's isolates: the text between them is one neutral character to its surroundings
FIRST_STRONG_ISOLATE, POP_DIRECTIONAL_ISOLATE = "\u2068", "\u2069"


def isolated_text(text) -> str:
    """``text`` read from an input for a web page: :func:`escape_text` (a U+202E, a line
    break as ``%XX``), and, where right-to-left letters or digits remain, between
    U+2068 FIRST STRONG ISOLATE and U+2069 POP DIRECTIONAL ISOLATE, what HTML's ``<bdi>``
    does as text (it isolates in an attribute, a script's string, a figure's canvas too):
    the browser then cannot reorder the page's own text around it (runs named with the
    Arabic digits two and one: "٢ − ١" drawn as "١ − ٢").
    The blanks at its ends, which a page drops, are ``%20`` (runs named ``r`` and ``r ``
    read as one name), as the Markdown report writes them; a run of blanks within it is
    left as it is, as there (prose holds them: a benchmark's description, a path in the
    command the page gives to paste).
    The two marks are the page's own (the text's own are escaped): without them,
    :func:`urllib.parse.unquote` gives ``text`` back."""
    escaped = _ends_escaped(escape_text(text))
    if escaped.isascii() or not any(
        unicodedata.bidirectional(character) in _RIGHT_TO_LEFT for character in escaped
    ):
        return escaped
    return f"{FIRST_STRONG_ISOLATE}{escaped}{POP_DIRECTIONAL_ISOLATE}"


def _ends_escaped(escaped: str) -> str:
    """``escaped`` with the blanks at its ends as ``%20``."""
    return _END_BLANKS.sub(lambda blanks: "%20" * len(blanks.group()), escaped)


def latex_text(text) -> str:
    """``text`` read from an input for a LaTeX cell (whose ``%`` the table escapes in turn):
    :func:`escape_text`, and the blanks at its ends as ``%20``: LaTeX drops them, and runs
    named ``r`` and `` r`` printed as one name."""
    return _ends_escaped(escape_text(text))


def table_text(text) -> str:
    """``text`` read from an input for a terminal table's cell: :func:`escape_text`, and
    the blanks at its end as ``%20``: the table pads its cells with blanks and cuts them at
    a line's end, so that runs named ``r`` and ``r `` (or groups ``x`` and ``x ``) read as
    one name."""
    escaped = escape_text(text)
    if not escaped.endswith(" "):
        return escaped
    kept = escaped.rstrip(" ")
    return kept + "%20" * (len(escaped) - len(kept))


def escaper(output_format: str):
    """How ``output_format`` shows a text read from an input (a run's name, an id, a
    path): :func:`escape_text`, with :data:`MARKDOWN`'s characters too in ``markdown``,
    isolated where it is right to left and its end's blanks as ``%20`` in ``html``
    (:func:`isolated_text`), its end's blanks as ``%20`` in ``table`` (:func:`table_text`);
    as it is in
    ``csv``, which quotes what it must; its ends' blanks as ``%20`` in ``latex``
    (:func:`latex_text`), whose table escapes the ``%`` of the escaped text in turn."""
    if output_format == "csv":
        return str
    if output_format == "markdown":
        return markdown_text
    if output_format == "html":
        return isolated_text
    if output_format == "table":
        return table_text
    if output_format == "latex":
        return latex_text
    return escape_text


class ShownWarning(str):
    """A warning that quotes input text (a run's name, a path, a stratum's value): the
    message as printed plainly, a ``str``, built from its parts (named by ``parts``, kept
    as attributes), and :meth:`text`, the message with that text as each output shows it
    (:func:`escaper`). A kind defines ``parts`` and ``said(*parts, shown)``."""

    parts: tuple[str, ...] = ()
    # the option that let through what it warns of (--allow-unjudged), which a
    # comparison's header names beside it; None: no option did
    allowed_by: str | None = None

    def __new__(cls, *values):
        warning = super().__new__(cls, cls.said(*values, shown=str))
        for name, value in zip(cls.parts, values, strict=True):
            setattr(warning, name, value)
        return warning

    def __getnewargs__(self) -> tuple:  # pickled and copied by its parts
        return tuple(getattr(self, name) for name in self.parts)

    def text(self, shown) -> str:
        """The message with its input text as ``shown`` shows it."""
        return self.said(*self.__getnewargs__(), shown=shown)

    @staticmethod
    def said(*values, shown) -> str:  # pragma: no cover - each kind says its own
        raise NotImplementedError
