"""The characters a reader cannot see: Unicode blanks, C1 controls and the characters
Unicode says are ignorable when shown. One definition, stdlib only (at the bottom of the
package): the TREC text readers and the validator flag them in ids (R2, R6, R31), the
writers refuse them, convert escapes them, and every output that escapes input text
(:mod:`trecbench.escaping`) writes them as ``%XX``, so two ids that differ by one read
as two."""

from __future__ import annotations

import re

# Unicode blanks, C1 controls (U+0080-U+009F) and the characters Unicode says are
# ignorable when shown (soft hyphen, fillers, joiners, bidi marks, variation selectors,
# tags): each part of a field to trec_eval, and invisible. Written as RE2 spells it (Arrow's
# compute functions take it); python_pattern gives Python's spelling
UNICODE_SPACE_PATTERN = (
    r"[\x{0080}-\x{00A0}\x{00AD}\x{034F}\x{061C}\x{115F}\x{1160}\x{1680}\x{17B4}"
    r"\x{17B5}\x{180B}-\x{180F}\x{2000}-\x{200F}\x{2028}-\x{202F}\x{205F}-\x{206F}"
    r"\x{3000}\x{3164}\x{FE00}-\x{FE0F}\x{FEFF}\x{FFA0}\x{FFF0}-\x{FFF8}"
    r"\x{E0000}-\x{E0FFF}]"
)


def python_pattern(pattern: str) -> str:
    r"""An RE2 pattern as Python's ``re`` spells it: ``\x{0085}`` as ``\u0085``,
    ``\x{E0000}`` as ``\U000E0000``."""
    four = re.sub(r"\\x\{(\w{4})\}", r"\\u\1", pattern)
    return re.sub(r"\\x\{(\w{5})\}", r"\\U000\1", four)


# compiled once: escape_text tests every id of a page with it (inline, not by a call)
INVISIBLE = re.compile(python_pattern(UNICODE_SPACE_PATTERN))


def shows(char: str) -> bool:
    """Whether ``char`` is shown as itself: printable to Python and not invisible (U+034F,
    U+FE0F and the Hangul fillers are printable to Python, and draw nothing)."""
    return char.isprintable() and (char < "\x80" or INVISIBLE.match(char) is None)


def all_shown(text: str) -> bool:
    """Whether every character of ``text`` :func:`shows` (ASCII text at C speed: whether a
    text is ASCII is a flag of Python's strings)."""
    return text.isprintable() and (text.isascii() or INVISIBLE.search(text) is None)
