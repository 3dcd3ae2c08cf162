"""Small plain TREC files read without Arrow (issue 31): a run or qrels of at most a
bound (:data:`VALIDATED_BYTES`, validate's; :data:`SCORED_BYTES`, score's) whose every
line is *plain*, as columns of its fields' strings.

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
JSONL. Nor is a file whose first bytes are a compression's
(:func:`trecbench.compressions.compression_of`: bz2's ``BZh`` is printable, but text
whose first topic is ``BZh1`` has no block magic after it), which the general path
decompresses. This module imports nothing but the
standard library, :mod:`trecbench.naming`, :mod:`trecbench.compressions` and
:mod:`trecbench.collector` (the package's ``inputs`` imports Arrow).
"""

from __future__ import annotations

import os
import re
import stat
from itertools import groupby

from . import collector
from .compressions import compression_of
from .naming import JSONL_SUFFIX, named_as, nameless

LARGEST_SCORE = 3.4e38  # below float32's largest finite value, 3.4028235e38
# the small paths' bounds, about where the pure-Python path stops costing less than the
# general path's start-up (paired by hand, 2026-12-03; docs/performance.md). validate's
# is also at most one chunk of the general validator, which its small path mirrors
# (trecbench.validation.reader.CHUNK_BYTES, 4 MiB: tests/test_validate_small.py checks);
# at 4.1 MB (130 topics x 1,000 documents) it took 0.243 s against 0.260 s. score's:
# 100 x 1,000, 3.1 MB, 0.27 s against 0.35 s; 200 x 1,000, 6.3 MB, 0.35 s against 0.30 s
VALIDATED_BYTES = 4 << 20
SCORED_BYTES = 4 << 20

_FIELD = r"[!-~]+"  # printable ASCII, no blank
_FIRST = r"[!-\"$-~][!-~]*"  # the same, not starting with '#' (a comment or ir_metadata)
_SCORE = r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]{1,2})?"
_LINES = {
    # qid Q0 docno rank score tag
    "run": rf"{_FIRST}S{_FIELD}S{_FIELD}S[0-9]+S{_SCORE}S{_FIELD}\n",
    # qid iteration docno grade
    "qrels": rf"{_FIRST}S{_FIELD}S{_FIELD}S[0-9]{{1,6}}\n",
}
# what read_plain keeps of each line's fields (run: qid, docno, score, tag; qrels: qid,
# docno, grade), and how many a line has
_KEPT = {"run": (0, 2, 4, 5), "qrels": (0, 2, 3)}
_WIDTH = {"run": 6, "qrels": 4}

# each kind's line with each separator: a text is plain when re.sub of every line leaves
# nothing (in a sixth of the time a fullmatch of the lines repeated took: 8 ms against
# 48 ms on 50,000 lines)
_PATTERNS = {
    (kind, sep): re.compile(line.replace("S", sep))
    for kind, line in _LINES.items()
    for sep in (" ", "\t")
}


def small_file(path: str, limit: int) -> bool:
    """Whether ``path`` names a regular file of at most ``limit`` bytes (not standard
    input, a FIFO or a device, which could be read only once), by a name that says what
    it holds: a :func:`~trecbench.naming.nameless` one (``-``, whatever file of that name
    the current directory holds; ``/dev/stdin`` or ``/dev/fd/3`` of a regular file) is
    told by its content by the general path (a JSONL run when a line is a JSON object,
    ``{"k": "a b 1 2 t"}``, which is a plain run line too)."""
    if nameless(path):
        return False
    try:
        status = os.stat(path)
    except (OSError, ValueError):
        return False
    return stat.S_ISREG(status.st_mode) and 0 < status.st_size <= limit


def read_plain(
    path: str, kind: str, limit: int, every_field: bool = False
) -> tuple[list[str], ...] | None:
    """The fields of a plain ``kind`` file of at most ``limit`` bytes as columns (``run``:
    qid, docno, score, tag; ``qrels``: qid, docno, grade; ``every_field``: every column,
    for the validator's small path), in file order; None for any other file."""
    found = _plain_text(path, kind, limit)
    if found is None:
        return None
    # plain: every line holds its fields, one blank between two, and no other blank
    fields = found.split()
    collector.left_to_exit(fields, len(found))
    width = _WIDTH[kind]
    return tuple(fields[i::width] for i in (range(width) if every_field else _KEPT[kind]))


def topic_blocks(qid: list[str]) -> list[tuple[str, int, int]] | None:
    """Each topic's (id, first row, row after its last) of a column of qids; None when a
    topic comes back (its lines apart). One C pass (``groupby``), no Python per line."""
    blocks, start = [], 0
    for name, rows in groupby(qid):
        stop = start + len(list(rows))
        blocks.append((name, start, stop))
        start = stop
    return blocks if len({name for name, _, _ in blocks}) == len(blocks) else None


def small_bytes(path: str, limit: int) -> bytes | None:
    """The bytes of a regular file of at most ``limit`` bytes that the general path reads
    as they are, else None (a file that starts as a compressed one does, which it
    decompresses; read once: a file that grew since :func:`small_file` looked is read no
    further than the bound).
    A file that cannot be read (no permission) is None too: the general path's reader says
    so as every reader does, ``FILE: cannot read: Permission denied`` (raised here, the
    bare OSError was said as ``FILE: Permission denied`` by score and validate only)."""
    if not small_file(path, limit):
        return None
    try:
        with open(path, "rb") as handle:
            data = handle.read(limit + 1)
    except OSError:
        return None
    if len(data) > limit or compression_of(data) is not None:
        return None
    return data


def finite_float32(scores) -> bool:
    """Whether every score is below :data:`LARGEST_SCORE`, safely finite as a float32
    (near float32's largest value one rounds to infinity, which the general path reports):
    the small paths decline any other file."""
    return all(map(LARGEST_SCORE.__gt__, map(abs, scores)))  # NaN: False


def _plain_text(path: str, kind: str, limit: int) -> str | None:
    """The text of a plain ``kind`` file of at most ``limit`` bytes; None for any other
    file."""
    if named_as(path, JSONL_SUFFIX):
        return None  # a JSONL run to the general path, whatever it holds
    data = small_bytes(path, limit)
    if data is None or not data.isascii():
        return None
    text = data.decode("ascii")
    tabs, spaces = "\t" in text, " " in text
    if tabs == spaces:
        return None  # both separators, or neither (one field a line)
    separator = "\t" if tabs else " "
    if _PATTERNS[kind, separator].sub("", text):
        return None  # a line that is not plain (what no line matched is left)
    return text
