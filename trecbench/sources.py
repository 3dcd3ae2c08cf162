"""Reading the files converters and sidecar readers take: once, checked, errors located.

* :func:`read_source` reads a file's bytes **once** through the readers' one way in
  (:class:`trecbench.inputs.streams.Source`: a pipe works; gzip, bz2, zstd, lz4 or xz told
  by the content, not the name; size and sha256 of the bytes as stored taken while
  reading and remembered for the call's reports).
* :func:`read_json` and :func:`read_jsonl` parse JSON and JSON lines with limits against
  hostile input: nesting deeper than :data:`~trecbench.json_limits.MAX_DEPTH`, integers
  longer than :data:`MAX_DIGITS` digits, numbers beyond a double or too small for one (a
  nonzero number that would read as 0), ``NaN``/``Infinity`` (not JSON), lone UTF-16
  surrogates (not Unicode) and duplicate keys (a JSON reader silently keeps the last) are
  refused with ``file:line: message``.
* :class:`At` names a place in a parsed document (``test_cases[3].text``) and checks the
  type of the value there; its errors carry the file, the physical line (found in the text
  only when an error is raised) and the path.
"""

from __future__ import annotations

import contextlib
import contextvars
import json
import math
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from . import type_names
from .callbacks import refuse_uncallable
from .compressions import compression_of
from .errors import InputError, UsageError, excerpt
from .inputs import streams
from .json_limits import (
    STRING,
    check_depth,
    check_surrogates,
    in_cell,
    line_at,
    parser_message,
    too_deep,
)
from .resource_bounds import MAX_DIGITS
from .text_encoding import utf8_text

JSON_SPACE = " \t\n\r"  # JSON's white space (what may surround a value)


# ---------------------------------------------------------------------------------------
# bytes


# ``progress(label, done, total)`` told of each file read_source reads in this context
_shown: contextvars.ContextVar[streams.LabelledProgress | None] = contextvars.ContextVar(
    "trecbench_reading_shown", default=None
)


@contextlib.contextmanager
def reading_shown(progress: streams.LabelledProgress | None) -> Iterator[None]:
    """Within the block, :func:`read_source` tells ``progress("reading PATH", bytes read,
    bytes stored)`` as it reads each file (None: nothing told). A converter reads every
    input through it: a command draws their bars without each converter taking a
    ``progress`` of its own. A ``progress`` that is no function is refused first."""
    refuse_uncallable(progress)
    token = _shown.set(progress)
    try:
        yield
    finally:
        _shown.reset(token)


@dataclass
class Content:
    """A file's content (decompressed) and its record: ``path``, ``kind``, ``size`` and
    ``sha256`` of the bytes as stored, as in :func:`trecbench.report.input_record`."""

    path: str
    data: bytes
    record: dict


def read_source(path: str | os.PathLike, kind: str) -> Content:
    """Read ``path`` once: its (decompressed) bytes and its record (each block read told to
    the progress of :func:`reading_shown`); a ``path`` of no path refused naming ``kind``
    (os.fspath's TypeError named nothing)."""
    if not isinstance(path, (str, bytes, os.PathLike)):
        raise UsageError(
            f"{kind}: give a path (text or os.PathLike), not {type_names.python_type(path)}"
        )
    told = streams.labelled(_shown.get(), f"reading {os.fspath(path)}")
    with streams.Source(path, told) as source:
        data = source.read()
        record = {"path": str(path), "kind": kind, **source.record()}
    twice = compression_of(data)
    if source.compression is not None and twice is not None:
        raise InputError(str(path), None, f"compressed twice ({twice}): decompress it first")
    return Content(str(path), data, record)


def source_text(source: Content, invalid: str | None = None) -> str:
    """The content as text (:func:`~trecbench.text_encoding.utf8_text`: a byte-order mark
    dropped, UTF-16 refused, a byte that is not UTF-8 refused at its line saying
    ``invalid``)."""
    return utf8_text(source.data, source.path, invalid)


# ---------------------------------------------------------------------------------------
# JSON parsing with limits


class _Refused(Exception):
    """Raised by the decoder hooks: a value trecbench does not accept."""

    def __init__(self, message: str, token: str | None = None, key: str | None = None):
        super().__init__(message)
        self.message = message
        self.token = token  # a number or constant refused, found again by its text
        self.key = key  # a key given twice in one object


class _MinusZero(int):
    """JSON's ``-0``: 0 as a number, ``-0`` as text (an id). Of the integers JSON can
    write (no leading zero, no ``+``), the only one whose decimal is not its text: read
    as 0, ids ``-0`` and ``0`` would become one."""

    def __str__(self) -> str:
        return "-0"

    __repr__ = __str__


MINUS_ZERO = _MinusZero(0)


def _parse_int(text: str) -> int:
    digits = len(text.lstrip("-"))
    if digits > MAX_DIGITS:
        raise _Refused(f"integer with {digits} digits (at most {MAX_DIGITS} are accepted)", text)
    return MINUS_ZERO if text == "-0" else int(text)


# a nonzero digit before any exponent: a number written other than as a zero
_NONZERO_MANTISSA = re.compile(r"^[^eE]*[1-9]")


def _parse_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _Refused(f"number {text[:40]}{'...' * (len(text) > 40)} is beyond a double", text)
    # underflow (1e-400): a nonzero number read as 0 would be another value, silently (a
    # score tied with the zeros); the text is looked at only where the value is 0
    if not value and _NONZERO_MANTISSA.match(text):
        shown = f"{text[:40]}{'...' * (len(text) > 40)}"
        raise _Refused(f"number {shown} is too small for a double (it would read as 0)", text)
    return value


def _parse_constant(text: str) -> float:
    raise _Refused(f"{text} is not a JSON number", text)


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict:
    value = dict(pairs)
    if len(value) != len(pairs):
        seen: set[str] = set()
        key = next(k for k, _ in pairs if k in seen or seen.add(k))
        message = f"duplicate key {excerpt(key)} in an object (JSON readers keep only the last)"
        raise _Refused(message, key=key)
    return value


# every string (a brace inside one is text), a key when a colon follows; and the braces
_STRING_OR_BRACE = re.compile(r'"(?:\\.|[^"\\])*"(\s*:)?|[{}]')


def _duplicate_key_line(text: str, key: str) -> int | None:
    """Line of the second ``key`` of one object (error path only: a scan of the keys and
    braces outside strings, each key in the object it belongs to)."""
    stack, seen, objects = [], set(), 0
    for match in _STRING_OR_BRACE.finditer(text):
        token = match.group(0)
        if token == "{":
            objects += 1
            stack.append(objects)
        elif token == "}":
            if stack:
                stack.pop()
        elif match.group(1) and stack and json.loads(token[: token.rindex('"') + 1]) == key:
            if stack[-1] in seen:
                return line_at(text, match.start())
            seen.add(stack[-1])
    return None


_DECODER = json.JSONDecoder(
    object_pairs_hook=_unique_keys,
    parse_int=_parse_int,
    parse_float=_parse_float,
    parse_constant=_parse_constant,
)


def _token_line(text: str, token: str | None) -> int | None:
    """Line of the first occurrence of a number or constant outside strings."""
    if token is None:
        return None
    pattern = re.compile(rf"(?<![\w.+-]){re.escape(token)}(?![\w.])")
    for match in pattern.finditer(STRING.sub(lambda m: " " * len(m.group(0)), text)):
        return line_at(text, match.start())
    return None


def parse_json(
    text: str, path: str, first_line: int = 1, cell: bool = False, file_names: bool = False
) -> Any:
    """Parse JSON text with the limits of this module; errors name ``path`` and the line
    (``first_line`` is the line the text starts at). ``cell``: the text is a value in
    ``path`` (a database's cell), whose lines are not the file's: every refusal's message
    says the line within it, the error none (:func:`~trecbench.json_limits.parser_message`,
    :func:`~trecbench.json_limits.in_cell`). ``file_names``: the text records file names
    (trecbench's reports), whose bytes that are not UTF-8 it holds as lone surrogates, as
    :func:`~trecbench.text_bytes.utf8` writes them: taken, not refused."""
    try:
        check_depth(text, path, first_line, per_line=False)
        if not file_names:
            check_surrogates(text, path, first_line)
        return _decode(text, path, first_line, cell)
    except InputError as error:
        if not cell or error.line is None:
            raise
        raise InputError(path, None, in_cell(error.message, text, error.line)) from None


def _decode(text: str, path: str, first_line: int, cell: bool = False) -> Any:
    try:
        return _DECODER.decode(text)
    except json.JSONDecodeError as exc:
        # a cell's line is said by the parser's message, before the column
        line = None if cell else exc.lineno + first_line - 1
        raise InputError(path, line, f"invalid JSON: {parser_message(exc, cell)}") from None
    except _Refused as exc:
        if exc.key is not None:
            line = _duplicate_key_line(text, exc.key)
        else:
            line = _token_line(text, exc.token)
        line = None if line is None else line + first_line - 1
        raise InputError(path, line, exc.message) from None
    except RecursionError:  # a backstop: the depth check runs first
        raise InputError(path, None, too_deep()) from None


# ---------------------------------------------------------------------------------------
# documents


@dataclass
class JsonDocument:
    """A parsed JSON file: ``value``, its :class:`Content` and its text (for locating)."""

    source: Content
    value: Any
    text: str = field(repr=False)

    @property
    def path(self) -> str:
        return self.source.path

    @property
    def root(self) -> At:
        """The place of the whole document."""
        return At(self)

    def line_of(self, where: tuple) -> int | None:
        """The line where the value at ``where`` starts; for a missing key, the line of the
        object that lacks it (None if neither can be found)."""
        for depth in range(len(where), -1, -1):
            try:
                return line_at(self.text, _walk(self.text, where[:depth]))
            except (ValueError, IndexError, _NotFound):
                continue
        return None


@dataclass
class JsonLines:
    """A parsed JSON-lines file: ``records`` are ``(line number, value)`` per non-blank
    line."""

    source: Content
    records: list[tuple[int, Any]]

    @property
    def path(self) -> str:
        return self.source.path

    def __iter__(self) -> Iterator[tuple[At, Any]]:
        """``(place, value)`` of each record."""
        for line, value in self.records:
            yield At(self, (), line), value

    def line_of(self, where: tuple) -> int | None:
        return None


@dataclass
class Rows:
    """Records of a file without lines (a database table); places name the row."""

    source: Content

    @property
    def path(self) -> str:
        return self.source.path

    def row(self, label: str) -> At:
        """The place of one row, e.g. ``row 4``."""
        return At(self, (), None, label)

    def line_of(self, where: tuple) -> int | None:
        return None


def read_json(path: str | os.PathLike, kind: str, file_names: bool = False) -> JsonDocument:
    """Read and parse a JSON file (plain or compressed) once; see the module's limits
    (``file_names``: see :func:`parse_json`)."""
    return json_document(read_source(path, kind), file_names=file_names)


def json_document(
    source: Content, text: str | None = None, file_names: bool = False
) -> JsonDocument:
    """Parse a source already read as JSON (see the module's limits; ``text``: its
    :func:`source_text`, when taken already; ``file_names``: see :func:`parse_json`).
    Nothing but blanks is an empty file, as score says of one, not JSON's "Expecting
    value"."""
    text = source_text(source) if text is None else text
    if not text.strip(JSON_SPACE):
        raise InputError(source.path, None, streams.EMPTY_FILE)
    return JsonDocument(source, parse_json(text, source.path, file_names=file_names), text)


def read_jsonl(path: str | os.PathLike, kind: str, blank: str | None = None) -> JsonLines:
    """Read and parse a JSON-lines file (plain or compressed) once: one value per non-blank
    line (``blank``: see :func:`parse_jsonl`)."""
    source = read_source(path, kind)
    return JsonLines(source, parse_jsonl(source_text(source), source.path, blank))


def parse_jsonl(text: str, path: str, blank: str | None = None) -> list[tuple[int, Any]]:
    """``(line number, value)`` of each non-blank line of JSON-lines text, parsed with the
    limits of this module (errors name ``path`` and the line); with ``blank``, a blank
    line is an error saying so (none follows a final newline)."""
    check_depth(text, path, per_line=True)
    check_surrogates(text, path)
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()  # what follows the final newline
    records = []
    for number, line in enumerate(lines, 1):
        if line.strip():
            records.append((number, _decode(line, path, number)))
        elif blank is not None:
            raise InputError(path, number, blank)
    return records


class _NotFound(Exception):
    pass


def _skip(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in JSON_SPACE:
        pos += 1
    return pos


def _walk(text: str, where: tuple) -> int:
    """Character position of the value at ``where`` (keys and indices) in JSON ``text``."""
    plain = json.JSONDecoder()
    pos = _skip(text, 0)
    for step in where:
        if isinstance(step, int):
            if text[pos] != "[":
                raise _NotFound
            pos = _skip(text, pos + 1)
            for _ in range(step):
                _, pos = plain.raw_decode(text, pos)
                pos = _skip(text, pos)
                if text[pos] != ",":
                    raise _NotFound
                pos = _skip(text, pos + 1)
            continue
        if text[pos] != "{":
            raise _NotFound
        pos = _skip(text, pos + 1)
        while text[pos] == '"':
            key, pos = json.decoder.scanstring(text, pos + 1)
            pos = _skip(text, pos)
            pos = _skip(text, pos + 1)  # the colon
            if key == step:
                break
            _, pos = plain.raw_decode(text, pos)
            pos = _skip(text, pos)
            if text[pos] == ",":
                pos = _skip(text, pos + 1)
        else:
            raise _NotFound
    return pos


# ---------------------------------------------------------------------------------------
# places and typed values


def path_text(where: tuple) -> str:
    """``test_cases[3].text`` for ``("test_cases", 3, "text")``."""
    out = ""
    for step in where:
        if isinstance(step, int):
            out += f"[{step}]"
        elif re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", step):
            out += f".{step}" if out else step
        else:
            out += f"[{json.dumps(step, ensure_ascii=False)}]"
    return out


def described(value: Any) -> str:
    """A value read from JSON (or an SQLite column) as a message names what was found: its
    type in JSON's words and, when short, its JSON text (``a string ("x")``, ``null``)."""
    if value is None:
        return "null"
    if isinstance(value, (bytes, bytearray, memoryview)):  # an SQLite BLOB
        return f"bytes ({len(value)} of them, not text)"
    kind = type_names.a_json_type(value)
    shown = json.dumps(value, ensure_ascii=False, default=repr)
    return kind if len(shown) > 40 else f"{kind} ({shown})"


@dataclass(frozen=True)
class At:
    """A place in a parsed input: the document, the path to a value and, for JSON lines,
    the physical line. ``at / "key"`` and ``at / 3`` go deeper; the ``expect_*`` methods
    return the value at this place if it has the expected type, else raise an
    :class:`~trecbench.errors.InputError` naming the file, line and path."""

    doc: JsonDocument | JsonLines | Rows
    where: tuple = ()
    line: int | None = None
    label: str | None = None  # names the record where neither line nor path does ("row 4")

    def __truediv__(self, step: str | int) -> At:
        return At(self.doc, self.where + (step,), self.line, self.label)

    @property
    def place(self) -> str:
        """This place in words: ``row 4: metadata``, ``results[3].itemId``."""
        return ": ".join(part for part in (self.label, path_text(self.where)) if part)

    def error(self, message: str) -> InputError:
        """An input error at this place."""
        line = self.line if self.line is not None else self.doc.line_of(self.where)
        where = self.place
        return InputError(self.doc.path, line, f"{where}: {message}" if where else message)

    def _unexpected(self, what: str, value: Any) -> InputError:
        """The error of ``value`` found here where ``what`` was expected; a key its object
        lacks (read as null by ``get``) is said to be missing, with the keys it has."""
        keys = self._keys_without_this() if value is None else None
        if keys is None:
            return self.error(f"expected {what}, found {described(value)}")
        has = ", ".join(json.dumps(key, ensure_ascii=False) for key in keys[:10])
        has = has + (", ..." if len(keys) > 10 else "") if keys else "no key"
        return self.error(f"missing (expected {what}; the object has {has})")

    def _keys_without_this(self) -> list[str] | None:
        """The keys of the object this place is a key of, when it lacks this key; None when
        it has it, or when the parsed value cannot be walked to (a database row)."""
        if not self.where or not isinstance(self.where[-1], str):
            return None
        if isinstance(self.doc, JsonDocument):
            value = self.doc.value
        elif isinstance(self.doc, JsonLines):
            value = next((v for line, v in self.doc.records if line == self.line), None)
        else:
            return None
        for step in self.where[:-1]:
            try:
                value = value[step]
            except (KeyError, IndexError, TypeError):
                return None
        return list(value) if isinstance(value, dict) and self.where[-1] not in value else None

    def _typed(self, value: Any, kind: type, what: str):
        if not isinstance(value, kind):
            raise self._unexpected(what, value)
        return value

    def expect_object(self, value: Any) -> dict:
        return self._typed(value, dict, "an object")

    def expect_list(self, value: Any, what: str = "an array") -> list:
        return self._typed(value, list, what)

    def expect_string(self, value: Any) -> str:
        return self._typed(value, str, "a string")

    def expect_bool(self, value: Any) -> bool:
        return self._typed(value, bool, "true or false")

    def expect_id(self, value: Any) -> str:
        """An id as a string: a non-empty string as it is, an integer in decimal.

        Floats and booleans are refused: ``1.0`` or ``true`` as an id is almost certainly
        a mistake, and its text is not what the producer meant.
        """
        if isinstance(value, str) and value:
            return value
        if isinstance(value, int) and not isinstance(value, bool):
            return str(value)
        raise self._unexpected("a non-empty string id", value)

    def expect_ids(self, value: Any) -> list[str]:
        """An array of ids (a string is refused: it is not split into characters)."""
        items = self.expect_list(value, "an array of ids")
        return [(self / i).expect_id(item) for i, item in enumerate(items)]

    def expect_number(self, value: Any, *, optional: bool = True) -> float:
        """A finite number as float; NaN for null when ``optional``."""
        if value is None and optional:
            return math.nan
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self._unexpected("a number", value)
        number = float(value)  # integers have at most MAX_DIGITS digits
        if not math.isfinite(number):
            raise self.error(f"number {value} is beyond a double")
        return number

    def expect_integer(self, value: Any, minimum: int | None = None) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise self._unexpected("an integer", value)
        if minimum is not None and value < minimum:
            raise self.error(f"expected an integer of at least {minimum}, found {value}")
        return value
