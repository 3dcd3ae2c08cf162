"""ir_measures' spelling of a measure, ``Name(key=value,...)@cutoff``, read by a small
parser of its own.

Python's parser would read it too, but it prints warnings about the user's text
(``nDCG@10ish``: ``SyntaxWarning: invalid decimal literal``) and accepts far more than a
measure name holds. Values are numbers, quoted strings without escapes, ``True``,
``False``, ``None`` and maps of those (``gains={1:2,2:5}``); the cutoff is a number, or
left as the text given so that the caller can say what a cutoff must be.
:func:`split_names` splits a ``-m`` value holding several names at its spaces
(:func:`entry_names`: an entry of no name kept as it is).
"""

from __future__ import annotations

import re
from typing import Any

from ..errors import UsageError, excerpt, shortened

_NUMBER = r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
_TOKEN = re.compile(
    rf"""\s*(?:
      (?P<number>{_NUMBER})(?![\w.])
    | (?P<string>'[^'\\]*'|"[^"\\]*")
    | (?P<name>[^\W\d]\w*)
    | (?P<mark>[(),=:{{}}])
    )""",
    re.VERBOSE,
)
# a measure's name: an identifier, after digits for trec_eval's 11pt_avg (a number alone
# is none)
_NAME = re.compile(r"\s*([0-9]*[^\W\d]\w*)")
_INTEGER = re.compile(r"[+-]?[0-9]+")
_CONSTANTS = {"True": True, "False": False, "None": None}


class ExpressionError(ValueError):
    """The text is not ``Name(key=value,...)@cutoff``; ``unknown``: it is not even a name
    with parameters (the caller then names the nearest measures)."""

    def __init__(self, message: str, unknown: bool = False):
        super().__init__(message)
        self.unknown = unknown


def parse_expression(text: str) -> tuple[str, dict[str, Any], Any]:
    """``(name, keyword parameters, cutoff)`` of ``Name(k=v,...)@cutoff`` (cutoff None
    when there is no ``@``; the text after ``@`` when it is not a number)."""
    match = _NAME.match(text)
    if match is None:
        raise ExpressionError("not a measure name", unknown=True)
    name, position = match.group(1), match.end()
    params: dict[str, Any] = {}
    rest = text[position:].lstrip()
    if rest.startswith("("):
        tokens = _Tokens(rest, 1)
        params = _keywords(tokens)
        rest = rest[tokens.position :].lstrip()
    if not rest:
        return name, params, None
    if not rest.startswith("@"):
        raise ExpressionError("not a measure name", unknown=True)
    cutoff = rest[1:].strip()
    return name, params, number(cutoff) if re.fullmatch(_NUMBER, cutoff) else cutoff


def number(text: str) -> int | float:
    """An integer when ``text`` is written as one, else a float (``1e400`` is inf: the
    domains refuse it); ints too long for Python to read are refused."""
    if not _INTEGER.fullmatch(text):
        return float(text)
    try:
        return int(text)
    except ValueError:  # beyond Python's digit limit for int(): no measure takes one
        raise ExpressionError(f"the number {text[:20]}... is too long") from None


class _Tokens:
    """The tokens of a parameter list, read from ``position`` on."""

    def __init__(self, text: str, position: int):
        self.text, self.position = text, position

    def next(self) -> tuple[str, str]:
        """``(kind, text)`` of the next token: number, string, name, mark, or ``end`` /
        ``other`` (a character no token starts with)."""
        match = _TOKEN.match(self.text, self.position)
        if match is None:
            rest = self.text[self.position :].strip()
            return ("other", rest[:1]) if rest else ("end", "")
        self.position = match.end()
        kind = match.lastgroup or "other"
        return kind, match.group(kind)

    def take(self, mark: str) -> bool:
        """Consume ``mark`` when it comes next."""
        match = _TOKEN.match(self.text, self.position)
        if match is not None and match.group("mark") == mark:
            self.position = match.end()
            return True
        return False


def _keywords(tokens: _Tokens) -> dict[str, Any]:
    """``key=value`` pairs up to the closing parenthesis (a trailing comma allowed)."""
    params: dict[str, Any] = {}
    while not tokens.take(")"):
        kind, key = tokens.next()
        if kind != "name" or not tokens.take("="):
            raise ExpressionError("parameters are key=value")
        if key in params:
            raise ExpressionError(f"{key} is given twice")
        params[key] = _value(tokens, key, mapping=True)
        if not tokens.take(","):
            if tokens.take(")"):
                break
            if tokens.next()[0] == "end":  # P(rel=2: its value read, nothing after it
                raise ExpressionError("the parenthesis is not closed")
            raise ExpressionError(f"{key} must be a literal value")
    return params


def _value(tokens: _Tokens, key: str, mapping: bool = False) -> Any:
    """A number, string, constant or (when ``mapping``) a map of those."""
    kind, text = tokens.next()
    if kind == "number":
        return number(text)
    if kind == "string":
        return text[1:-1]
    if kind == "name" and text in _CONSTANTS:
        return _CONSTANTS[text]
    if mapping and kind == "mark" and text == "{":
        return _map(tokens, key)
    sign = ""
    if kind == "other" and text in ("+", "-"):  # -inf: a sign no number follows
        tokens.position = tokens.text.index(text, tokens.position) + 1
        sign, (kind, text) = text, tokens.next()
    if kind == "name" and text.lower() in ("nan", "inf", "infinity"):
        # an ir_measures object's float('nan') prints as nan: a number, but none a
        # parameter takes ("must be a literal value" said nan was no number)
        raise ExpressionError(f"{key} must be a finite number, not {sign}{text}")
    raise ExpressionError(f"{key} must be a literal value")


def _map(tokens: _Tokens, key: str) -> dict:
    """``{grade: gain, ...}`` up to its closing brace (a trailing comma allowed)."""
    pairs: dict = {}
    while not tokens.take("}"):
        grade = _value(tokens, key)
        if not tokens.take(":"):
            raise ExpressionError(f"{key} must be a literal value")
        if grade in pairs:  # a dict literal would keep the last gain, silently
            raise ExpressionError(f"{key}: the grade {grade!r} is given twice")
        pairs[grade] = _value(tokens, key)
        if not tokens.take(","):
            if tokens.take("}"):
                break
            raise ExpressionError(f"{key} must be a literal value")
    return pairs


def split_names(text: str) -> list[str]:
    """Split a ``-m`` value at spaces outside parentheses and quotes."""
    names, depth, quote, current = [], 0, "", []
    for char in text:
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif char.isspace() and depth == 0:
            if current:
                names.append("".join(current))
                current = []
            continue
        current.append(char)
    if current:
        names.append("".join(current))
    return names


def entry_names(entry: str) -> list[str]:
    """The names of one measure entry as a user writes it (a ``-m`` or ``--optimize``
    value, an entry of a configuration's ``measures``): :func:`split_names`, an entry of
    no name (``""``, blanks) kept as it is, to be refused as an empty name."""
    return split_names(entry) or [entry]


def one_name_each(items: list) -> None:
    """Refuse (:class:`UsageError`, one line quoting the whole entry) an entry of the
    Python API's list of measures that holds a blank outside its parentheses: each entry
    is one name, where ``"nDCG@10 "`` would be computed and keyed as ``nDCG@10`` (a
    KeyError for its caller), ``"P@ 5"`` refused as ``'P@'``, ``"nDCG@10 map"`` computed
    as two. A blank entry is left to the parser (an empty name); a string alone, as
    ``-m``'s value, holds names separated by spaces."""
    for item in items:
        if isinstance(item, str) and item.strip() and split_names(item) != [item]:
            raise blank_in(
                item,
                "each entry of a list of measures is one name, without blanks around or "
                "inside it; several measures are several entries",
            )


def refuse_unprintable(text: str) -> None:
    """Refuse a measure name holding a character that does not print (a line break or
    tab inside its parentheses, which ir_measures' syntax reads as a blank; a control
    character, which trec_eval's ``P.5<ESC>`` ignores after its number), in one line
    naming it escaped (:func:`~trecbench.escaping.escape_text`: ``%0A``). No measure
    takes such a character: the name asked is echoed in many messages and outputs, where
    it would break the line."""
    if text.isprintable():
        return
    from ..escaping import escape_text

    raise UsageError(
        f"illegal measure '{shortened(escape_text(text))}': a character that does not print "
        "(shown as %XX) in a measure's name; give the name without it"
    )


def blank_in(text: str, advice: str) -> UsageError:
    """The refusal of a measure name holding a blank, one line quoting it as given."""
    return UsageError(f"illegal measure {excerpt(text)}: a blank in a measure's name ({advice})")
