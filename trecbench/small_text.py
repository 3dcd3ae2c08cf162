"""Small plain TREC files read without Arrow (issue 31): a run or qrels of at most
:data:`SMALL_BYTES` whose every line is *plain*, as lists of its fields' strings.

A 1,000-line run costs its start-up: importing Arrow (and starting its thread pools) takes
longer than reading and scoring the file. Plain text is a strict part of what the regular
reader (:func:`trecbench.inputs.trec_text.read_regular_run`) takes, on which trec_eval, the
tokenizer and Arrow's parser all agree and the validator's lenient gate finds nothing to
say: printable ASCII only, one space or one tab (never both in one file) between fields,
``\\n`` line ends with one after the last line, no blank line, no line starting with
``#``; a run has exactly 6 fields, a non-negative integer rank and a finite decimal score;
qrels exactly 4 fields and a grade of at most 6 digits. Anything else (and every larger,
compressed or non-regular file) gives None: the caller takes the general path, which reads
everything and explains every problem with its line number. A file named as a JSONL run
(:data:`trecbench.naming.JSONL_SUFFIX`) is never plain, whatever it holds: it is read as
JSONL. This module imports nothing but the standard library and :mod:`trecbench.naming`
(the package's ``inputs`` imports Arrow).
"""

from __future__ import annotations

import os
import re
import stat

from .naming import JSONL_SUFFIX, named_as

LARGEST_SCORE = 3.4e38  # below float32's largest finite value, 3.4028235e38
SMALL_BYTES = 1 << 20  # larger files gain from Arrow's threads more than its start-up costs

_FIELD = r"[!-~]+"  # printable ASCII, no blank
_FIRST = r"[!-\"$-~][!-~]*"  # the same, not starting with '#' (a comment or ir_metadata)
_SCORE = r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]{1,2})?"
_LINES = {
    # qid Q0 docno rank score tag
    "run": rf"({_FIRST})S{_FIELD}S({_FIELD})S[0-9]+S({_SCORE})S({_FIELD})\n",
    # qid iteration docno grade
    "qrels": rf"({_FIRST})S{_FIELD}S({_FIELD})S([0-9]{{1,6}})\n",
}
_PATTERNS = {
    (kind, sep): (re.compile(line.replace("S", sep)), re.compile(f"(?:{line.replace('S', sep)})+"))
    for kind, line in _LINES.items()
    for sep in (" ", "\t")
}


def small_file(path: str) -> bool:
    """Whether ``path`` names a regular file of at most :data:`SMALL_BYTES` (not standard
    input, a FIFO or a device, which could be read only once)."""
    try:
        status = os.stat(path)
    except (OSError, ValueError):
        return False
    return stat.S_ISREG(status.st_mode) and 0 < status.st_size <= SMALL_BYTES


def read_plain(path: str, kind: str) -> list[tuple[str, ...]] | None:
    """The fields of every line of a small plain ``kind`` file (``run``: qid, docno,
    score, tag; ``qrels``: qid, docno, grade), in file order; None for any other file."""
    found = plain_text(path, kind)
    if found is None:
        return None
    text, separator = found
    return _PATTERNS[kind, separator][0].findall(text)


def small_bytes(path: str) -> bytes | None:
    """The bytes of a regular file of at most :data:`SMALL_BYTES`, else None (read once:
    a file that grew since :func:`small_file` looked is read no further than the bound).
    A file that cannot be read (no permission) is None too: the general path's reader says
    so as every reader does, ``FILE: cannot read: Permission denied`` (raised here, the
    bare OSError was said as ``FILE: Permission denied`` by score and validate only)."""
    if not small_file(path):
        return None
    try:
        with open(path, "rb") as handle:
            data = handle.read(SMALL_BYTES + 1)
    except OSError:
        return None
    return data if len(data) <= SMALL_BYTES else None


def finite_float32(scores) -> bool:
    """Whether every score is below :data:`LARGEST_SCORE`, safely finite as a float32
    (near float32's largest value one rounds to infinity, which the general path reports):
    the small paths decline any other file."""
    return all(abs(score) < LARGEST_SCORE for score in scores)


def plain_text(path: str, kind: str) -> tuple[str, str] | None:
    """The text of a small plain ``kind`` file (as :func:`read_plain` takes it) and its
    separator (a space or a tab), for the validator's small path, which needs every field
    of a line; None for any other file."""
    if named_as(path, JSONL_SUFFIX):
        return None  # a JSONL run to the general path, whatever it holds
    data = small_bytes(path)
    if data is None or not data.isascii():
        return None
    text = data.decode("ascii")
    tabs, spaces = "\t" in text, " " in text
    if tabs == spaces:
        return None  # both separators, or neither (one field a line)
    separator = "\t" if tabs else " "
    if _PATTERNS[kind, separator][1].fullmatch(text) is None:
        return None
    return text, separator
