"""ECMA-262 (JavaScript) regular expressions as Python's ``re`` reads them.

A JSON Schema ``pattern`` is one (``jsonschema`` would search it with ``re`` as it is:
:mod:`trecbench.report` searches :func:`ecma_pattern`'s translation instead), and so are
the expressions memorybench tokenises with (:mod:`trecbench.convert.memorybench_rules`).
Python's pieces below mean other things than ECMA-262's:

- ``$`` is the end of the text (Python's also matches before a final newline);
- ``.`` is any character but the line terminators ``\\n \\r \\u2028 \\u2029`` (Python's
  takes ``\\r``, ``\\u2028`` and ``\\u2029``);
- ``\\d`` is ``[0-9]`` and ``\\w`` ``[0-9A-Z_a-z]``, ``\\b`` and ``\\B`` their boundaries
  (Python's take every Unicode digit and letter);
- ``\\s`` is ECMA-262's WhiteSpace and LineTerminator, ``\\t`` to ``\\r``, the space
  separators and ``\\ufeff`` (Python's takes ``\\x1c``-``\\x1f`` and not ``\\ufeff``);
- ``[]`` matches nothing and ``[^]`` any character (Python reads a ``]`` there as a
  member and runs on to the next ``]``).

An escaped letter the two read differently or only one reads (``\\A``, ``\\Z``, ``\\a``,
``\\c``, ``\\p``, ``\\k``) is refused (``ValueError``) rather than read as Python means
it. Other syntax only one of them has is not translated: ECMA-262's (named groups
``(?<name>``, ``\\u{...}``) ``re`` refuses, Python's (inline flags, ``(?P<name>``) it
would read as its own. No shipped schema uses any (a test lists their patterns).
"""

from __future__ import annotations

import functools

_LAST_CODE_POINT = 0x10FFFF
# ECMA-262's CharacterClassEscape sets (22.2.2.9), as ranges of code points
_CLASS_ESCAPES = {
    "d": ((0x30, 0x39),),
    "w": ((0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A)),
    # WhiteSpace (tab, vertical tab, form feed, U+FEFF, Unicode's space separators Zs)
    # and LineTerminator (\n, \r, U+2028, U+2029)
    "s": (
        (0x09, 0x0D),
        (0x20, 0x20),
        (0xA0, 0xA0),
        (0x1680, 0x1680),
        (0x2000, 0x200A),
        (0x2028, 0x2029),
        (0x202F, 0x202F),
        (0x205F, 0x205F),
        (0x3000, 0x3000),
        (0xFEFF, 0xFEFF),
    ),
}
_WORD = "[0-9A-Z_a-z]"
_BOUNDARY = f"(?:(?<={_WORD})(?!{_WORD})|(?<!{_WORD})(?={_WORD}))"
_NOT_BOUNDARY = f"(?:(?<={_WORD})(?={_WORD})|(?<!{_WORD})(?!{_WORD}))"
_OUTSIDE_A_CLASS = {"$": r"\Z", ".": r"[^\n\r\u2028\u2029]"}
# escaped letters both read alike: controls, \xHH, \uHHHH (\b in a class: backspace)
_SHARED_LETTERS = frozenset("fnrtvxu")
# members a Python class warns of as a future nested set or set operation
_SET_OPERATORS = frozenset("[&~|")


@functools.cache
def ecma_pattern(pattern: str) -> str:
    """``pattern``, an ECMA-262 regular expression (a JSON Schema ``pattern``), as a
    Python one that matches the same texts (the module's docstring lists what is
    translated).

    Raises ``ValueError`` for an escaped letter the two read differently."""
    out, at = [], 0
    while at < len(pattern):
        character = pattern[at]
        if character == "\\":
            out.append(_escape(pattern, at, in_class=False))
            at += 2
        elif character == "[":
            translated, at = _character_class(pattern, at)
            out.append(translated)
        else:
            out.append(_OUTSIDE_A_CLASS.get(character, character))
            at += 1
    return "".join(out)


def _character_class(pattern: str, at: int) -> tuple[str, int]:
    """The class opening at ``at`` translated, and where the pattern goes on after it."""
    negated = pattern.startswith("[^", at)
    at += 2 if negated else 1
    if pattern.startswith("]", at):
        return ("(?s:.)" if negated else "(?!)"), at + 1
    members = []
    while at < len(pattern) and pattern[at] != "]":
        if pattern[at] == "\\":
            members.append(_escape(pattern, at, in_class=True))
            at += 2
        else:
            members.append("\\" * (pattern[at] in _SET_OPERATORS) + pattern[at])
            at += 1
    # an unclosed class stays unclosed: re refuses it as ECMA-262 does
    closing = pattern[at : at + 1]
    return "[" + "^" * negated + "".join(members) + closing, at + 1


def _escape(pattern: str, at: int, *, in_class: bool) -> str:
    """The escape at ``at`` (a backslash and one character) translated."""
    letter = pattern[at + 1 : at + 2]
    if letter.lower() in _CLASS_ESCAPES:
        members = _members(letter)
        return members if in_class else f"[{members}]"
    if letter in ("b", "B") and not in_class:
        return _BOUNDARY if letter == "b" else _NOT_BOUNDARY
    shared = _SHARED_LETTERS | ({"b"} if in_class else set())
    if letter.isascii() and letter.isalpha() and letter not in shared:
        raise ValueError(
            f"pattern {pattern!r}: \\{letter} does not mean in Python's re what it means in"
            " ECMA-262"
        )
    return "\\" + letter


def _members(letter: str) -> str:
    """ECMA-262's ``\\d \\D \\s \\S \\w \\W`` as the members of a Python class."""
    ranges = _CLASS_ESCAPES[letter.lower()]
    if letter.isupper():
        ranges = _complement(ranges)
    return "".join(
        f"\\U{low:08x}" + ("" if low == high else f"-\\U{high:08x}") for low, high in ranges
    )


def _complement(ranges: tuple[tuple[int, int], ...]) -> tuple[tuple[int, int], ...]:
    """The code points outside ``ranges`` (sorted, apart), as ranges."""
    outside, start = [], 0
    for low, high in ranges:
        if start < low:
            outside.append((start, low - 1))
        start = high + 1
    if start <= _LAST_CODE_POINT:
        outside.append((start, _LAST_CODE_POINT))
    return tuple(outside)
