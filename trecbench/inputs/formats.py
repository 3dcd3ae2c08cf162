"""Input file formats as a registry: how a file is recognised, and what reads it.

Each :class:`Format` names the module that reads it and the capabilities that module
has, each a function of that name (imported when first used, so that no format's
libraries load before a file needs them):

* ``read_whole(source, kind, *, check, full, comments, score_text) -> Whole``: the whole
  file as a typed table (:func:`trecbench.inputs.load`; ``score_text``: a run's scores
  as written too, where the format writes numbers as text);
* ``read_blocks(source, reading) -> Iterator[pa.Table]``: a run's typed tables in file
  order, for :class:`trecbench.inputs.blocks.RunBlocks` (``reading`` is the RunBlocks:
  its ``read_bytes``, ``check``, ``describe``, ``score_text``, ``warnings`` and
  ``ir_metadata``, which a format with such blocks sets);
* ``dask_frame(path) -> dask.dataframe.DataFrame``: a run's raw columns partitioned for
  Dask (:mod:`trecbench.dask`); a format without it is read whole by one worker per file;
* ``validate_tokens(source, kind, keep, chunk_bytes) -> Iterator[Tokens]``: the tokens
  of the TREC text the file stands for, for the validator (what the reader refuses a
  finding of :func:`finding_check`'s check);
* ``rows(path) -> int | None``: how many rows the file holds, told without reading it
  (:mod:`trecbench.memory` guesses the others' from their size).

A format is told by the first and last bytes of the file (as stored: :class:`Ends`) and
its name (see each entry's ``matches``); an input whose name says nothing (standard input
``-``, a pipe's ``/dev/fd/63``: :func:`~trecbench.naming.nameless`) also by what it holds
(each entry's ``holds``: the first bytes of its content, decompressed). TREC text is the
last entry and takes everything else.
A capability a format lacks is refused in one line naming the file
(:meth:`Format.reader`), never read as another format. Adding a format is one module
with its functions and one entry in :data:`FORMATS`.
"""

from __future__ import annotations

import importlib
import json
import re
from codecs import BOM_UTF8
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

from ..errors import InputError
from ..naming import JSONL_SUFFIX, named_as
from .unconverted import CONVERT_DOCS, JSON_CONVERTERS

# the validator's check of a reader's refusal, where the refusal's rule has several: text
# not UTF-8 as in TREC text; a NUL an error under every profile (R31's other characters
# are warnings under lenient: score reads them exactly, and refuses a NUL)
_FINDING_CHECKS = {"R23": "R23.utf8", "R31": "R31.nul"}


def finding_check(rule: str | None, otherwise: str) -> str:
    """The validator's check of a reader's refusal of ``rule`` (without one ``otherwise``)."""
    return _FINDING_CHECKS.get(rule, rule) or otherwise


# what a capability does, as refusals say it ("Parquet runs cannot be ...")
CAPABILITIES = {
    "read_whole": "read",
    "read_blocks": "read in blocks (--memory)",
    "dask_frame": "partitioned on Dask",
    "validate_tokens": "validated",
    "rows": "counted without reading them",
}
PARQUET_MAGIC = b"PAR1"
# a Parquet file's last bytes: its footer's length (4 bytes, little-endian), its magic
PARQUET_TAIL_BYTES = 8
# the fewest bytes a Parquet file holds: its magic, its footer's length, its magic again
PARQUET_LEAST_BYTES = 12
# the bytes of a nameless input's content its format is told by (blank lines skipped)
CONTENT_HEAD = 4096
# what is said of a compressed file whose content is Parquet (a plain one is read as
# Parquet: its magic is looked for as stored)
COMPRESSED_PARQUET = (
    "the file is compressed Parquet: Parquet compresses its own columns; give the "
    ".parquet file as it is, not compressed again"
)


class Ends(NamedTuple):
    """What a file's format is told by of its bytes (as stored, or a compressed file's
    content): the first ones, the last :data:`PARQUET_TAIL_BYTES` (all of a shorter
    file) and how many it holds."""

    head: bytes
    tail: bytes
    size: int


def parquet_laid_out(ends: Ends) -> bool:
    """Whether bytes with these ``ends`` are a Parquet file, whole or cut short: its magic
    first and, either last with its footer's length before it, which fits between the
    two, or followed by a control byte (a page header's, 0x15: a truncated file, which
    the Parquet reader refuses in one line). TREC text whose first qid starts ``PAR1``
    (trec_eval reads it as any other) goes on with the qid or a blank, and, ending
    ``PAR1`` too, has before it a text that reads as hundreds of megabytes (`` Q0 `` as
    542,060,576) where the file holds fewer."""
    if not ends.head.startswith(PARQUET_MAGIC):
        return False
    after = ends.head[len(PARQUET_MAGIC) : len(PARQUET_MAGIC) + 1]
    if after and after < b" " and after not in b"\t\n\r":
        return True
    if ends.size < PARQUET_LEAST_BYTES:
        return False
    footer, magic = ends.tail[-PARQUET_TAIL_BYTES : -len(PARQUET_MAGIC)], ends.tail[-4:]
    fits = int.from_bytes(footer, "little") <= ends.size - PARQUET_LEAST_BYTES
    return magic == PARQUET_MAGIC and fits


class Whole(NamedTuple):
    """A file read whole: its typed table, the check's warnings and the run's
    ir_metadata (None without such a block)."""

    table: Any
    warnings: tuple[str, ...] = ()
    metadata: dict | None = None


@dataclass(frozen=True)
class Format:
    """One input format (see the module docstring): ``name`` as messages say it,
    ``module`` (relative to :mod:`trecbench.inputs`) with a function per capability,
    ``capabilities`` (keys of :data:`CAPABILITIES`), the ``kinds`` it holds (``run``,
    ``qrels``) and ``matches(path, ends, compression)``: whether a file is this format,
    from its path, the :class:`Ends` of its bytes as stored and their compression (None
    when plain);
    ``holds(content)``: whether a :func:`~trecbench.naming.nameless` input is, from the
    first bytes of its content (None: never told by content)."""

    name: str
    module: str
    capabilities: frozenset[str]
    kinds: tuple[str, ...]
    matches: Callable[[str, Ends, str | None], bool]
    holds: Callable[[bytes], bool] | None = None

    def can(self, capability: str) -> bool:
        """Whether the format has ``capability``."""
        return capability in self.capabilities

    def reader(self, capability: str, path: str, kind: str = "run") -> Callable:
        """The function of ``capability`` for a ``kind`` file ``path`` of this format;
        :class:`InputError` naming the file when the format has none."""
        if kind not in self.kinds:
            holders = " or ".join(f.name for f in FORMATS if kind in f.kinds)
            raise InputError(
                path,
                None,
                f"{self.name} files hold {' or '.join(self.kinds)}, not {kind}: give {kind} as "
                f"{holders}, or convert what a benchmark wrote first ({JSON_CONVERTERS}; "
                f"{CONVERT_DOCS})",
            )
        if capability not in self.capabilities:
            what = CAPABILITIES[capability]
            raise InputError(path, None, f"{self.name} {kind}s cannot be {what}")
        return getattr(importlib.import_module(self.module, __package__), capability)


def _parquet(path: str, ends: Ends, compression: str | None) -> bool:
    return compression is None and parquet_laid_out(ends)


PARQUET = Format(
    "Parquet",
    ".parquet",
    frozenset({"read_whole", "read_blocks", "dask_frame", "validate_tokens", "rows"}),
    ("run", "qrels"),
    _parquet,
)
TREC_TEXT = Format(
    "TREC text",
    ".trec_text_format",
    frozenset({"read_whole", "read_blocks", "validate_tokens"}),
    ("run", "qrels"),
    lambda path, ends, compression: True,
)


def _json_object_first(content: bytes) -> bool:
    """Whether ``content``, past what is blank (a byte order mark, white space, empty
    lines), opens with a line that is a JSON object with a key: ``{"`` and, where the line
    ends within ``content``, an object to its end. A TREC text line may start so (trec_eval
    takes the qid ``{"q1"}``); one that is a whole JSON object is taken for JSONL, and so
    is one followed by a line that is (a broken first object is then refused as bad JSON
    at line 1, not read as TREC text with an error about a score on every line)."""
    text = content.removeprefix(BOM_UTF8)
    opening = re.match(rb'[ \t\r\n]*\{[ \t]*"', text)
    if opening is None:
        return False
    line_end = text.find(b"\n", opening.end())
    if line_end < 0:
        return True  # a line longer than what is looked at: its start decides
    # (JSON's white space takes the blank lines before it, and a CR)
    if _json_object(text[:line_end]):
        return True
    *whole_lines, _ = text[line_end + 1 :].split(b"\n")  # the last may be cut short
    following = next((line for line in whole_lines if line.strip()), b"")
    return _json_object(following)


def _json_object(line: bytes) -> bool:
    """Whether ``line`` is a JSON object."""
    try:
        return isinstance(json.loads(line), dict)
    except ValueError:  # not JSON, or not UTF-8 (UnicodeDecodeError is a ValueError)
        return False


JSONL = Format(
    "JSONL",
    ".jsonl",
    frozenset({"read_whole", "read_blocks", "validate_tokens"}),
    ("run",),
    lambda path, ends, compression: named_as(path, JSONL_SUFFIX),
    _json_object_first,
)
# tried in order: the first that matches is the file's format
FORMATS: tuple[Format, ...] = (PARQUET, JSONL, TREC_TEXT)


def detect(path: str, ends: Ends, compression: str | None, content: bytes | None = None) -> Format:
    """The format of the file ``path`` whose bytes as stored have these ``ends``
    (compressed with ``compression`` or None); ``content``: the first bytes of what a
    :func:`~trecbench.naming.nameless` input holds (decompressed), by which its format is
    told too."""
    return next(
        found
        for found in FORMATS
        if found.matches(path, ends, compression)
        or (content is not None and found.holds is not None and found.holds(content))
    )
