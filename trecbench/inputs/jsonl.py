"""JSONL runs: one JSON object a line, ``{"qid": "301", "docno": "d1", "score": 12.5}``.

Told by the name: ``.jsonl``, or ``.jsonl`` and a compression suffix (``run.jsonl.gz``;
the compression itself is told by the content, as for every file); an input whose name
says nothing (standard input ``-``, ``/dev/fd/63``) by its content, a JSON object first
(:func:`trecbench.naming.nameless`). Each line holds

* ``qid`` and ``docno``: JSON strings, not empty (a number is refused: ids are never
  inferred, ``1`` and ``"01"`` would be one id);
* ``score``: a finite JSON number (read as the nearest double, as trec_eval's ``atof``
  reads the same decimal text);
* optionally ``rank`` (a JSON integer: trec_eval ignores it, the validator shows it) and
  ``tag`` (a JSON string, the run tag; ``run`` when absent, as for Parquet and tables;
  ``"tag": null`` is refused, as a null qid or docno is: no tag is inferred).

Any other key, a key given twice, bad JSON (or JSON nested deeper than
:data:`~trecbench.json_limits.MAX_DEPTH`, or a lone surrogate escape) or a value of the
wrong type is refused at its line, ``file:line: message``; lines holding only white
space are skipped, and so is a byte-order mark starting the file (one further on is
refused). A JSON document (what ``convert`` reads: a ``{qid: {docno: score}}`` dict) is
no JSONL run: it is read as TREC text, as it is under any other name (R32 with the
converter's hint where its text is no run). Lines are parsed by
Arrow's JSON reader (no Python per line); only a chunk found wrong is read again line by
line, to name the first bad line. Read whole, in blocks of whole lines (``--memory``), on
Dask (each file read whole by one worker) and by ``validate``. An entry of
:mod:`trecbench.inputs.formats`.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import math
import re
from collections.abc import Iterator
from functools import partial
from typing import Any

import numpy as np
import pyarrow as pa

from .. import arrow, type_names
from .. import arrow_compute as pc
from ..compressions import HEAD_BYTES
from ..errors import InputError, shortened
from ..json_limits import check_depth, check_surrogates, parser_message
from ..text_encoding import wide_encoding, wide_file
from . import tables
from .formats import Whole, finding_check
from .streams import Source
from .trec_text import BOM as _BOM
from .trec_text import Tokens, iter_byte_chunks, physical_lines, tokenize
from .unconverted import JSONL_RUN_KEYS, json_content, line_object_keys

KEYS = (*JSONL_RUN_KEYS, "rank", "tag")
_SCHEMA = pa.schema(
    [("qid", pa.string()), ("docno", pa.string()), ("score", pa.float64()),
     ("rank", pa.int64()), ("tag", pa.string())]
)  # fmt: skip
# the longest line Arrow's reader is given room for when a file is read whole
_MOST_BLOCK = 64 << 20
DEFAULT_TAG = "run"


def read_whole(source: Source, kind: str, *, check: Any = None, **reading: Any) -> Whole:
    """The run as a typed table ``qid, docno, score, tag, line`` (TREC text's ``reading``
    options do not apply); a file without a row goes to ``check`` (score's gate), which
    refuses it as validate does: empty (R26), or blank lines only (R9). A JSON document
    is read as TREC text (:func:`_as_trec_text`'s reason)."""
    data = source.read()
    try:
        table = _table(data, source.path, 1)
    except InputError:
        read_trec_text = _document_reader(data, 1, source.path, "read_whole")
        if read_trec_text is None:
            raise
        return read_trec_text(source, kind, check=check, **reading)
    if check is None or table.num_rows:
        return Whole(table)
    return Whole(table, tuple(check(_tokens(data, source.path, 1), kind)))


def read_blocks(source: Source, reading: Any) -> Iterator[pa.Table]:
    """The run's typed tables, each of about ``reading.read_bytes`` bytes of whole lines;
    a file without a row goes to ``reading.check`` as in :func:`read_whole`."""
    lines = rows = 0
    for chunk, first_line in iter_byte_chunks(source, reading.read_bytes):
        try:
            table = _table(chunk, source.path, first_line)
        except InputError:
            read_trec_text = _document_reader(chunk, first_line, source.path, "read_blocks")
            if read_trec_text is None:
                raise
            yield from read_trec_text(source, reading)  # from its start again
            return
        lines, rows = lines + physical_lines(chunk), rows + table.num_rows
        yield table
    if not rows and reading.check is not None:
        check = reading.check(source.path)
        check.feed(dataclasses.replace(_tokens(b"", source.path, 1), n_physical_lines=lines))
        reading.warnings = list(check.finish())


def validate_tokens(source: Source, kind: str, keep: int, chunk_bytes: int) -> Iterator[Tokens]:
    """The tokens of the TREC text each chunk stands for, for the validator.

    A line that is no run's is a finding (R32.jsonl at its line, :attr:`InputError.finding`:
    the lines after it are not read), not an error that stops validate with no finding
    and no report. A JSON document or trecbench's sidecar (what ``convert`` reads, no JSONL
    run: standard input is told JSONL by its first ``{"``) is read as TREC text, as a
    file of another name: R32 with the converter's hint, the same findings for the same
    bytes however they arrive."""
    chunks = iter_byte_chunks(source, chunk_bytes)
    for chunk, first_line in chunks:
        try:
            tokens = _tokens(chunk, source.path, first_line)
        except InputError as error:
            if first_line == 1 and _convert_reads(chunk, source.path):
                yield from _as_trec_text(itertools.chain([(chunk, 1)], chunks), source.path, keep)
                return
            if error.line is None:
                raise
            if error.line > first_line:  # the lines before it are read and checked
                before = chunk[: _line_offset(chunk, error.line - first_line)]
                yield _tokens(before, source.path, first_line)
            message = f"{error.message}; the lines after it are not read"
            rule = finding_check(error.rule, "R32.jsonl")  # a NUL: R31.nul
            raise InputError(error.path, error.line, message, rule, finding=True) from None
        yield tokens


def _line_offset(data: bytes, lines: int) -> int:
    """Where line ``lines`` + 1 of ``data`` starts (0-based: after its ``lines`` newlines)."""
    ends = np.flatnonzero(np.frombuffer(data, np.uint8) == 10)
    return int(ends[lines - 1]) + 1


def _document_reader(chunk: bytes, first_line: int, path: str, capability: str):
    """TREC text's ``capability`` reader (:mod:`.trec_text_format`) when ``chunk``, whose
    first line is ``first_line``, starts a JSON document (:func:`_as_trec_text`'s
    reason); None when the JSONL reader's error stands."""
    if first_line > 1 or not _convert_reads(chunk, path):
        return None
    from . import trec_text_format

    return getattr(trec_text_format, capability)


def _convert_reads(head: bytes, path: str) -> bool:
    """Whether a file starting with ``head`` is a JSON document or trecbench's sidecar,
    not one line of a JSONL run gone wrong: an object naming a ``qid`` or a ``docno``
    (``{"qid": "1", "docno": "a", "socre": 1.5}`` is said to hold an unknown key, where
    a document would be told to be converted)."""
    try:
        content = json_content(head[:HEAD_BYTES], path)
    except InputError:  # nested too deep to tell: the JSONL reader's error stands
        return False
    return content in ("sidecar", "report") or (content == "document" and not _run_line_meant(head))


# the ids' keys of a run's line, trecbench's and ir_measures' (ScoredDoc: query_id, doc_id)
_RUN_LINE_IDS = frozenset({"qid", "docno", "query_id", "doc_id"})


def _run_line_meant(head: bytes) -> bool:
    """Whether ``head`` (one JSON value, UTF-8 as :func:`json_content` found it) is one
    line holding an object naming a run line's ids; its first bytes only, as
    :func:`json_content` reads them (``head`` is the whole file when it is read whole)."""
    keys = line_object_keys(head[:HEAD_BYTES].decode(errors="ignore"))  # a character cut
    return keys is not None and not keys.isdisjoint(_RUN_LINE_IDS)


def _as_trec_text(chunks: Iterator[tuple[bytes, int]], path: str, keep: int) -> Iterator[Tokens]:
    """The tokens of ``chunks`` read as TREC text (:func:`trec_text.iter_tokens`'s; JSON
    starts with no ir_metadata block). A JSON document that is no JSONL run is read so by
    every reader, score's as validate's, whatever its name: the same bytes piped in or
    named ``x.run`` give the same result (R32 with the converter's hint where the text is
    no run; trec_eval's reading of it where it is one)."""
    separator = None
    for chunk, first_line in chunks:
        tokens = tokenize(chunk, path, first_line, keep, separator)
        separator = tokens.separator or None
        yield tokens


def _tokens(data: bytes, path: str, first_line: int) -> Tokens:
    """The tokens of the TREC text whole lines ``data`` stand for (each row at its line,
    the ``rank`` given or, where none is, the place in trec_eval's order within ``data``,
    which the rank rules do not check: ``Tokens.rank_given``); their physical lines are
    those of ``data``, blank ones too (a row is at its physical line)."""
    from .parquet import table_tokens

    table, rank = _parsed(data, path, first_line)
    tokens = table_tokens(table, "run", path, rank)
    return dataclasses.replace(tokens, n_physical_lines=physical_lines(data))


def _table(data: bytes, path: str, first_line: int) -> pa.Table:
    return _parsed(data, path, first_line)[0]


def _parsed(data: bytes, path: str, first_line: int) -> tuple[pa.Table, pa.ChunkedArray]:
    """The typed table of whole lines ``data`` starting at line ``first_line``, and its
    ``rank`` column (nulls where a line has none)."""
    lines = _object_lines(data, first_line)
    if not len(lines):
        return _typed(_SCHEMA.empty_table(), lines), pa.chunked_array([], pa.int64())
    refused = None
    try:
        table = _read_json(data)
    except (pa.ArrowException, UnicodeDecodeError) as exc:
        table, refused = None, str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    if (
        table is None
        or not _well_formed(table, len(lines))
        or not _object_a_line(data, first_line)
        or _null_tag(table, data)
    ):
        _raise_first_error(data, path, first_line)
        # every line is well formed as JSON, yet Arrow refused them (a line beyond its
        # block): its reason, so the line can be found
        reason = f": {refused}" if refused else ""
        raise InputError(path, first_line, f"not a JSONL run Arrow can read{reason}")
    typed = _typed(table, lines)
    _refuse_nul(typed, path)
    return typed, table.column("rank")


def _refuse_nul(table: pa.Table, path: str) -> None:
    """Refuse an id holding a NUL at its line (R31), found as every table's is
    (:func:`trecbench.inputs.tables.first_nul`)."""
    for name in ("qid", "docno", "tag"):
        start = 0
        for chunk in table.column(name).chunks:
            row = tables.first_nul(chunk)
            if row is not None:
                line = table.column("line")[start + row].as_py()
                message = tables.nul_message(name, chunk[row].as_py())
                raise InputError(path, line, message, "R31")
            start += len(chunk)


def _read_json(data: bytes) -> pa.Table:
    import pyarrow.json as pj

    block = min(_MOST_BLOCK, max(1 << 20, len(data) + 1))
    return pj.read_json(
        pa.py_buffer(data),
        read_options=pj.ReadOptions(use_threads=False, block_size=block),
        parse_options=pj.ParseOptions(explicit_schema=_SCHEMA, unexpected_field_behavior="error"),
    )


def _well_formed(table: pa.Table, lines: int) -> bool:
    """Whether Arrow's table holds a row for each line, every id a non-empty UTF-8
    string, every score finite (else the lines are read one by one for the error)."""
    if table.num_rows != lines:
        return False
    try:
        table.validate(full=True)  # UTF-8
    except pa.ArrowInvalid:
        return False
    for name in ("qid", "docno", "score"):
        if table.column(name).null_count:
            return False
    for name in ("qid", "docno", "tag"):
        if pc.any(pc.equal(pc.binary_length(table.column(name)), 0)).as_py():
            return False
    return bool(pc.all(pc.is_finite(table.column("score"))).as_py())


# a "tag" key, each letter as itself or its \u escape (JSON spells a key no other way),
# then null; any match is a line refused (a key ending in "tag", escaped quote and all, is
# unknown, a match over a line break an object over two lines)
_NULL_TAG = re.compile(rb'"(?:t|\\u0074)(?:a|\\u0061)(?:g|\\u0067)"[ \t\r\n]*:[ \t\r\n]*null')


def _null_tag(table: pa.Table, data: bytes) -> bool:
    """Whether a line of ``data`` gives ``"tag": null``, which Arrow reads as a line
    without a tag: refused (an id is a string, never the default tag put in its place)."""
    return bool(table.column("tag").null_count) and _NULL_TAG.search(data) is not None


def _bom_bytes(data: bytes, first_line: int) -> int:
    """How many bytes a byte-order mark starting the file takes (0 when none): it is read
    past, as Arrow's reader does. Arrow also reads past one starting a later block, a
    mark inside the file, which the line checks see and refuse."""
    return len(_BOM) if first_line == 1 and data.startswith(_BOM) else 0


def _object_a_line(data: bytes, first_line: int) -> bool:
    """Whether every line holding more than white space starts with ``{`` and ends with
    ``}``. Arrow's reader also takes two objects on a line, or one over several lines;
    with this, as many rows as such lines means one object on each: a ``}`` ending a
    line and followed by a ``{`` can only end a whole object."""
    buffer = np.frombuffer(data, np.uint8)
    newlines = np.flatnonzero(buffer == 10)
    starts, ends = np.r_[0, newlines + 1], np.r_[newlines, len(buffer)]
    starts[0] = min(_bom_bytes(data, first_line), ends[0])
    ends -= (ends > starts) & (buffer[np.maximum(ends - 1, 0)] == 13)  # CRLF
    filled = ends > starts
    starts, ends = starts[filled], ends[filled]
    plain = (buffer[starts] == ord("{")) & (buffer[ends - 1] == ord("}"))
    for i in np.flatnonzero(~plain):  # blank or padded lines (few), or bad ones
        line = data[starts[i] : ends[i]].strip(b" \t\r")
        if line and not (line.startswith(b"{") and line.endswith(b"}")):
            return False
    return True


def _object_lines(data: bytes, first_line: int) -> np.ndarray:
    """The line numbers of the lines of ``data`` that hold more than white space."""
    buffer = np.frombuffer(data, np.uint8)
    if not len(buffer):
        return np.empty(0, np.int64)
    starts = np.r_[0, np.flatnonzero(buffer[:-1] == 10) + 1]
    # each line with its newline: one holding a byte above the space holds more than white
    # space (other control bytes are bad JSON, which the reader refuses)
    visible = buffer > 32
    visible[: _bom_bytes(data, first_line)] = False  # a mark then a blank line: blank
    filled = np.logical_or.reduceat(visible, starts)
    return first_line + np.flatnonzero(filled)


def _typed(table: pa.Table, lines: np.ndarray) -> pa.Table:
    tags = table.column("tag")
    if tags.null_count:
        tags = pc.fill_null(tags, DEFAULT_TAG)
    return pa.table(
        {
            "qid": table.column("qid"),
            "docno": table.column("docno"),
            "score": table.column("score"),
            "tag": tags,
            "line": arrow.array(lines.astype(np.int64)),
        }
    )


def _raise_first_error(data: bytes, path: str, first_line: int) -> None:
    """Read ``data`` line by line and raise at the first line that is not a JSONL run's."""
    for number, raw in enumerate(data.split(b"\n"), first_line):
        if number == 1 and (encoding := wide_encoding(raw)):
            raise InputError(path, None, wide_file(encoding))
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InputError(path, number, f"not UTF-8: {exc.reason}") from None
        if number == 1:
            text = text.removeprefix("\ufeff")
        if text.strip(" \t\r"):
            # what Python's parser would take (a lone surrogate) or overflow its stack on
            check_depth(text, path, number, per_line=True)
            check_surrogates(text, path, number)
            problem = _line_problem(text)
            if problem is not None:
                raise InputError(path, number, problem)


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for key, value in pairs:
        if key in found:
            raise ValueError(f"key {key!r} given twice")
        found[key] = value
    return found


class _Written(float):
    """A JSON number a double cannot hold (``1e400``, an integer of 310 digits or more), as
    the nearest double (infinity, as trec_eval's ``atof`` reads it), its ``text`` and
    whether JSON wrote it as an ``integer`` (a rank of so many digits is one, out of
    range)."""

    text: str
    integer: bool


def _number(text: str, kind=float) -> float | int:
    """A JSON number as ``kind`` reads it, or, past a double's range (or the 4,300 digits
    Python turns into an int), :class:`_Written` keeping its text for the message."""
    if kind is int and len(text) < 300:  # below 10**300: a double holds it
        return int(text)
    written = _Written(text)
    if math.isinf(written):
        written.text, written.integer = text, kind is int
        return written
    return kind(text)


def _line_problem(text: str) -> str | None:
    """What is wrong with one line, or None."""
    try:
        numbers = {"parse_float": _number, "parse_int": partial(_number, kind=int)}
        value = json.loads(text, object_pairs_hook=_pairs, **numbers)
    except json.JSONDecodeError as exc:
        return f"bad JSON: {parser_message(exc)}"
    except ValueError as exc:  # a key twice
        return f"bad JSON: {exc}"
    if not isinstance(value, dict):
        return f"not a JSON object but {_what(value)}"
    unknown = sorted(set(value) - set(KEYS))
    if unknown:
        keys = "qid, docno, score and optionally rank and tag"
        said = f"unknown key {shortened(json.dumps(unknown[0]))} (a line holds {keys})"
        if "case_id" in value:  # a record of Phentrieve's results (terms.jsonl, cases.jsonl)
            said += ": Phentrieve's results are converted first (trecbench convert hpo CASES "
            said += "--results FILE)"
        return said
    for key in JSONL_RUN_KEYS:
        if key not in value:
            return f"no {key!r}"
    for key in ("qid", "docno", "tag"):
        if key not in value:  # only tag may be absent (the run's tag is then "run")
            continue
        given = value[key]  # null too: an id never inferred, "tag": null no "run"
        if not isinstance(given, str):
            return f"{key} must be a JSON string, not {_what(given)} (ids are never inferred)"
        if not given:
            return f"empty {key}"
    score = value["score"]
    if isinstance(score, bool) or not isinstance(score, (int, float)):
        return f"score must be a JSON number, not {_what(score)}"
    if isinstance(score, _Written):  # as TREC text's 1e400
        return f"score {shortened(score.text)} overflows a double"
    if not _finite(score):
        return f"score {shortened(str(score))} is not finite"
    return None if "rank" not in value else _rank_problem(value["rank"])


def _rank_problem(rank: Any) -> str | None:
    """What is wrong with a line's ``rank``, or None."""
    if isinstance(rank, _Written) and rank.integer:  # more digits than a double holds
        return f"rank {shortened(rank.text)} is beyond 64 bits"
    if rank is not None and (isinstance(rank, bool) or not isinstance(rank, int)):
        return f"rank must be a JSON integer, not {_what(rank)}"
    if rank is not None and not -(2**63) <= rank < 2**63:
        return f"rank {shortened(str(rank))} is beyond 64 bits"
    return None


def _finite(number: int | float) -> bool:
    """Whether ``number`` is a finite double (an integer beyond a double's range reads as
    infinity, as trec_eval's ``atof`` reads its text)."""
    try:
        return math.isfinite(float(number))
    except OverflowError:
        return False


def _what(value: Any) -> str:
    """A JSON value as messages name it: its type and (shortened) text."""
    if value is None:
        return "null"
    text = value.text if isinstance(value, _Written) else json.dumps(value)
    return f"the {type_names.json_type(value)} {shortened(text)}"
