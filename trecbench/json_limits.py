"""What every JSON reader refuses before a JSON parser sees the text, once for the
converters' and sidecars' readers (:mod:`trecbench.sources`), JSONL runs and the JSON
told where TREC text is read (:mod:`trecbench.inputs`): nesting deeper than
:data:`MAX_DEPTH` (Python's parser recurses, and a thousand brackets would exhaust its
stack) and ``\\uD800``-``\\uDFFF`` escapes that form no surrogate pair (Python reads them
as text no UTF-8 can hold). Each is an :class:`~trecbench.errors.InputError` at its line;
what the parser then refuses each says alike (:func:`parser_message`)."""

from __future__ import annotations

import json
import re

from .errors import InputError

MAX_DEPTH = 100  # trecbench's JSON inputs need fewer than 10 levels

# a JSON string (possessive: linear time on hostile input) or a bracket
STRING = re.compile(r'"(?:[^"\\]++|\\.)*+"', re.S)
# a string, a bracket or a line end: what locating the depth walks over
_STRING_OR_STRUCTURE = re.compile(STRING.pattern + r"|[\[\]{}\n]", re.S)
_NOT_STRUCTURE = re.compile(r"[^\[\]{}\n]++")
_SURROGATE_HINT = re.compile(r"\\u[dD][89a-fA-F]")
_ESCAPE = re.compile(r"\\(?:\\|u([0-9a-fA-F]{4}))")


def parser_message(error: json.JSONDecodeError, cell: bool = False) -> str:
    """What the JSON parser refused, and its column (the line is the caller's to say):
    ``Unterminated string starting at column 17``, ``Expecting value at column 5``
    (some of json's messages end in "at", its position left for ``str()`` to add).
    ``cell``: the text is a value in a file (a database's cell), not lines of it, so no
    caller says its line: a text of several lines says it (``at line 3 column 8``)."""
    line = f"line {error.lineno} " if cell and "\n" in error.doc else ""
    return f"{error.msg.removesuffix(' at')} at {line}column {error.colno}"


def in_cell(message: str, text: str, line: int) -> str:
    """``message`` of what is refused at ``line`` of JSON ``text`` that is a value in a
    file (a database's cell), whose lines are not the file's: the line said as
    :func:`parser_message` says a syntax error's, when the text has several (``duplicate
    key 'a' in an object (...) at line 3``). Only the line: the parser gives no position
    for what trecbench refuses itself, located by its own scan of the text."""
    return f"{message} at line {line}" if "\n" in text else message


def line_at(text: str, position: int) -> int:
    """The 1-based line of a character position."""
    return text.count("\n", 0, position) + 1


def check_depth(text: str, path: str, first_line: int = 1, *, per_line: bool) -> None:
    """Refuse nesting deeper than :data:`MAX_DEPTH` (brackets outside strings) in JSON
    text starting at line ``first_line`` of ``path``. With ``per_line`` (JSON lines)
    each line starts again at 0; a JSON document may put one bracket per line, so there
    a newline must not reset the count."""
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        return
    structure = _NOT_STRUCTURE.sub("", STRING.sub("", text))
    if not per_line:
        structure = structure.replace("\n", "")
    depth = 0
    for char in structure:
        if char == "\n":
            depth = 0
            continue
        depth += 1 if char in "[{" else -1
        if depth > MAX_DEPTH:
            break
    else:
        return
    # locate it: walk the original text (only on this error path)
    depth, line = 0, first_line
    for match in _STRING_OR_STRUCTURE.finditer(text):
        char = match.group(0)
        if char == "\n":
            line += 1
            if per_line:
                depth = 0
        elif char in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                break
        elif char in "]}":
            depth -= 1
    raise InputError(path, line, too_deep())


def too_deep() -> str:
    """What is said of JSON nested deeper than :data:`MAX_DEPTH`."""
    return f"JSON nested deeper than {MAX_DEPTH} levels"


def check_surrogates(text: str, path: str, first_line: int = 1) -> None:
    """Refuse ``\\uD800``-``\\uDFFF`` escapes that do not form a surrogate pair in JSON
    text starting at line ``first_line`` of ``path``."""
    if not _SURROGATE_HINT.search(text):
        return
    pending = None  # a high surrogate waiting for its low half
    for match in _ESCAPE.finditer(text):
        unit = int(match.group(1), 16) if match.group(1) else None
        if pending is not None:
            if unit is not None and 0xDC00 <= unit <= 0xDFFF and match.start() == pending.end():
                pending = None
                continue
            break
        if unit is not None and 0xD800 <= unit <= 0xDBFF:
            pending = match
        elif unit is not None and 0xDC00 <= unit <= 0xDFFF:
            pending = match
            break
    else:
        if pending is None:
            return
    raise InputError(
        path,
        line_at(text, pending.start()) + first_line - 1,
        f"lone surrogate {pending.group(0)} (not a Unicode character)",
    )
