"""ir_metadata blocks: a run's description in YAML at the top of its file (Breuer et al.,
"ir_metadata: An Extensible Metadata Schema for IR Experiments", SIGIR 2022; used by TIRA
and repro_eval).

The block is the file's first lines: ``# ir_metadata.start``, then YAML with each line
prefixed by ``#`` (and a space, dropped when every line has one: :func:`_yaml_lines`),
then ``# ir_metadata.end``; the TREC lines follow. Readers take the block out and read the
rest exactly as trec_eval reads the file without it; line numbers stay those of the file.
"""

from __future__ import annotations

import base64
import datetime
import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

from ..errors import InputError, excerpt_plain, int_text, one_line
from ..yaml_versions import NOT_TEXT

START = b"# ir_metadata.start"
END = b"# ir_metadata.end"
# a block is read whole, in memory: at most this many lines and bytes, whatever --memory
# (so a block's size never decides whether it is read); a longer one is not metadata
MOST_LINES = 100_000
MOST_BYTES = 64 << 20
# the run's tag is an id, the text written: `tag: 007` is not YAML's octal 7
_ID_KEYS = frozenset({"tag"})


@dataclass(frozen=True)
class Block:
    """The block found at the top of a file: its ``lines`` (physical lines 1 to ``lines``,
    the markers included), its YAML ``text`` and the ``size`` in bytes it takes; ``crlf``:
    its lines that end in CRLF (R24, as any line of the file)."""

    lines: int
    text: str
    size: int
    mixed: bool = False  # lines prefixed ``#`` and ``# `` both (:func:`_yaml_lines`)
    crlf: tuple[int, ...] = ()


# said of a mixed block's YAML refused
MIXED = (
    " (its lines start with '#' and with '# ' both: each is read without its '#' alone, as "
    "repro_eval reads it; give every line the same prefix)"
)


@dataclass(frozen=True)
class Found:
    """What the top of a run held: the block's ``lines`` and the ``size`` in bytes they
    take (taken out of the run) and its ``value``; or the ``error`` that makes it bad input
    (``score`` raises it, ``validate`` reports it at its line), with ``lines`` and
    ``size`` 0: no metadata, the block's lines stay run lines, as trec_eval 9.x reads
    them."""

    lines: int
    value: dict[str, Any] | None = None
    error: InputError | None = None
    size: int = 0
    crlf: tuple[int, ...] = ()  # the block's lines that end in CRLF


def split(data: bytes, path: str) -> Found | None:
    """What the top of ``data`` (a run's first lines) holds: None when it starts with no
    ir_metadata block; a malformed block (without its end marker, not YAML, not a
    mapping...) takes nothing (its lines stay run lines, the error is reported)."""
    if not starts_with_block(data[: len(START) + 64]):
        return None
    try:
        block = find_block(data, path)
        return Found(block.lines, parse(block, path), size=block.size, crlf=block.crlf)
    except InputError as error:  # validate's R30.malformed, said so by score too
        return Found(0, None, InputError(path, error.line, error.message, "R30", finding=True))


def starts_with_block(head: bytes) -> bool:
    """Whether text starting with ``head`` (its first line at least) begins with an
    ir_metadata block."""
    first = head.split(b"\n", 1)[0]
    return first.rstrip() == START


def find_block(data: bytes, path: str) -> Block | None:
    """The ir_metadata block at the top of ``data`` (a file's text, or its first part
    holding more than :data:`MOST_BYTES` bytes), or None when the text does not start
    with one. A block without its end marker, or with a line that is not a ``#`` line, is
    bad input at its line; one longer than :data:`MOST_LINES` lines or :data:`MOST_BYTES`
    bytes (by where it ends, whatever part of the file ``data`` holds) at line 1, naming
    the bound (it may end further down: "never ends" would be untrue)."""
    if not starts_with_block(data[: len(START) + 64]):
        return None
    lines, position, text = 1, data.find(b"\n") + 1, []
    crlf = [1] if data[: position - 1].endswith(b"\r") else []
    while 0 < position < len(data):
        end = data.find(b"\n", position)
        line_end = end if end >= 0 else len(data)
        if lines >= MOST_LINES or line_end > MOST_BYTES:
            raise InputError(path, 1, _too_long(lines >= MOST_LINES))
        line = data[position:line_end]
        lines += 1
        if line.endswith(b"\r"):
            crlf.append(lines)
        line = line.rstrip(b"\r")
        if line.rstrip() == END:
            # every YAML line keeps its line break, the last one's too: a literal block
            # scalar (`|`) that ends the block ends with "\n", as YAML reads it
            spaced = {rest.startswith(b" ") for rest in text if rest.strip()}
            yaml_text = b"".join(yaml_line + b"\n" for yaml_line in _yaml_lines(text, spaced))
            size = end + 1 if end >= 0 else len(data)
            mixed = len(spaced) == 2
            return Block(lines, _decoded(yaml_text, path), size, mixed, tuple(crlf))
        if not line.startswith(b"#"):
            raise InputError(path, lines, _not_comment(data, position))
        text.append(line[1:])
        position = end + 1 if end >= 0 else 0
    raise InputError(path, 1, f"an ir_metadata block that never ends ({END.decode()} missing)")


def _not_comment(data: bytes, position: int) -> str:
    """Why the line at ``position`` of the block, not a ``#`` line, is bad: inside a
    block whose end marker comes below, or where the block never ended."""
    # the marker as find_block reads it: the line stripped of bytes.isspace's blanks
    if re.search(rb"\n" + re.escape(END) + rb"[ \t\r\x0b\x0c]*(\n|\Z)", data[position - 1 :]):
        return "a line that is not a '#' line inside the ir_metadata block of line 1"
    return f"the ir_metadata block of line 1 has no {END.decode()!r} before this line"


def _yaml_lines(rests: list[bytes], spaced: set[bool]) -> list[bytes]:
    """The block's YAML lines from its lines without their ``#`` (``rests``; ``spaced``:
    whether those holding text start with a space): without the space after the ``#``
    too when every line holding text has one (``# key: value``, as
    ir_metadata's examples write it). A block mixing ``#key`` and ``# key`` lines keeps
    every space, as repro_eval reads blocks (each line without its ``#``): dropping a
    space from some lines only would indent them otherwise than that reader does, and
    the YAML would say another thing (``#a:`` over ``# b: 1``: ``b`` is inside ``a``)."""
    if False not in spaced:
        return [rest[1:] for rest in rests]
    return rests


def _too_long(by_lines: bool) -> str:
    """What a block past :data:`MOST_LINES` (``by_lines``) or :data:`MOST_BYTES` is."""
    if by_lines:
        bound = f"{MOST_LINES:,} lines"
    elif MOST_BYTES % (1 << 20) == 0:
        bound = f"{MOST_BYTES >> 20} MiB"
    else:
        bound = f"{MOST_BYTES:,} bytes"
    return f"an ir_metadata block longer than {bound}, the most read"


def _decoded(text: bytes, path: str) -> str:
    """The block's YAML ``text`` (its lines from the file's line 2, each ending in
    ``\n``) as text; a byte that is not UTF-8 is bad input at the line holding it."""
    try:
        return text.decode("utf-8")
    except UnicodeDecodeError as error:
        line = 2 + text.count(b"\n", 0, error.start)
        raise InputError(path, line, "the ir_metadata block is not UTF-8") from None


def parse(block: Block, path: str) -> dict[str, Any]:
    """The block's YAML as a mapping; malformed YAML is bad input at its line in the file."""
    try:
        return _mapping(block.text, path, first_line=2)  # the YAML starts on line 2
    except InputError as error:
        if not block.mixed or "YAML" not in error.message or not _read_if_unmixed(block):
            raise
        raise InputError(path, error.line, error.message + MIXED) from None


def _read_if_unmixed(block: Block) -> bool:
    """Whether a mixed block's YAML reads with the space after every ``#`` dropped: then
    the mix is what breaks it, and the refusal says so (a ``## comment`` line mixes the
    prefixes too, beside YAML broken otherwise)."""
    lines = block.text.splitlines(keepends=True)
    try:
        _mapping("".join(line.removeprefix(" ") for line in lines), "", first_line=2)
    except InputError:
        return False
    return True


def _mapping(text: str, path: str, first_line: int) -> dict[str, Any]:
    """YAML ``text`` (read with the bounded loader) as a mapping, errors at their line."""
    import yaml

    from ..yaml_loader import error_line, error_problem, load_yaml
    from ..yaml_versions import read_apart

    if _nothing_said(text):  # an empty description, however it is laid out
        return {}
    try:
        value = load_yaml(text, id_keys=_ID_KEYS, first_line=first_line)
    except yaml.YAMLError as error:
        line = error_line(error, text, first_line)
        problem = error_problem(error, text, first_line)
        refused = "ambiguous YAML" if read_apart(error) else "not valid YAML"
        raise InputError(path, line, f"ir_metadata: {refused}: {problem}") from None
    if not isinstance(value, dict):
        raise InputError(path, first_line, "ir_metadata: the YAML is not a mapping")
    return value


def _nothing_said(text: str) -> bool:
    """Whether YAML ``text`` holds blank, comment and document-marker lines only (``---``,
    ``...``): no content, as an empty file (an explicit ``~`` or ``null`` is content, and
    not a mapping)."""
    return all(
        not line.strip() or line.lstrip().startswith("#") or line.rstrip() in ("---", "...")
        for line in text.splitlines()
    )


def read_file(path) -> dict[str, Any]:
    """An ir_metadata description written as YAML (``--ir-metadata FILE.yaml``); a
    UTF-16 file refused as every text reader refuses it, a byte not UTF-8 at its line, a
    compressed file as such (its first byte was "not UTF-8")."""
    from .. import outputs, provenance
    from ..compressions import compression_of
    from ..text_encoding import utf8_text

    outputs.note_input(path)
    try:
        data = provenance.read_file(path)
    except OSError as error:
        raise InputError.unreadable(path, error) from None
    compression = compression_of(data)
    if compression is not None:
        message = f"{compression}-compressed: an ir_metadata description is YAML text"
        raise InputError(str(path), None, message + ": decompress it first")
    text = utf8_text(data, str(path))
    value = _mapping(text, str(path), first_line=1)
    if "tag" in value and value["tag"] is None:  # `tag:` gives none: the run's is recorded
        del value["tag"]
    return Description(value, str(path), text)


def contradicts_tag(given: Any, tag: str) -> bool:
    """Whether a block's or a description's ``tag`` (``given``, as YAML read it) names
    another tag than ``tag``: compared as text, as written (``tag: 007`` is ``007``); a
    null one names none (R30.tag, ``--fix-tag``, ``fuse`` and ``convert --ir-metadata``)."""
    return given is not None and str(given) != tag


class Description(dict):
    """A description read from a YAML file (:func:`read_file`): its mapping, and the text
    its refusals find a key's line in."""

    def __init__(self, value: dict[str, Any], path: str, text: str):
        super().__init__(value)
        self.path, self.text = path, text

    def contradicts_tag(self, tag: str) -> bool:
        """Whether the description gives a ``tag`` other than ``tag`` (compared as text,
        as written)."""
        return contradicts_tag(self.get("tag"), tag)

    def refusal(self, keys: tuple, message: str) -> InputError:
        """An error at the line where the file writes the key at ``keys``."""
        from ..yaml_loader import key_line

        return InputError(self.path, key_line(self.text, keys), message)

    def merged_under(self, known: dict[str, Any]) -> dict[str, Any]:
        """:func:`merged` of ``known`` and this description, a clash refused at its line."""
        try:
            return merged(known, self)
        except Clash as error:
            raise self.refusal(error.keys, str(error)) from None


class Clash(ValueError):
    """A value the description gives and trecbench records otherwise; ``keys``: where."""

    def __init__(self, message: str, keys: tuple):
        super().__init__(message)
        self.keys = keys


def merged(known: dict[str, Any], given: dict[str, Any], at: tuple = ()) -> dict[str, Any]:
    """``known`` (what trecbench records of a run it writes) and ``given`` (the user's
    description) together, mapping by mapping: the description adds what trecbench does
    not record; a value both give and that differs is a :class:`Clash` naming its key
    (neither is dropped without a word). A list of texts both give (the libraries of
    ``platform.software.libraries.python``: trecbench's, and the system's that made the
    runs) is both lists, trecbench's first, each text once."""
    result = {}
    for key in dict.fromkeys([*known, *given]):  # trecbench's keys first, in its order
        mine, theirs = known.get(key), given.get(key)
        keys = (*at, key)
        where = ".".join(map(str, keys))
        if isinstance(mine, dict) and isinstance(theirs, dict):
            result[key] = merged(mine, theirs, keys)
        elif _texts(mine) and _texts(theirs):
            result[key] = list(dict.fromkeys([*mine, *theirs]))
        elif key in known and key in given and mine != theirs:
            if isinstance(mine, dict):  # a text where trecbench keeps a mapping
                names = ", ".join(f"{where}.{name}" for name in mine)
                raise Clash(
                    f"{where}: the description gives {as_written(theirs)} where trecbench "
                    f"records a mapping ({names}): give a mapping of other keys",
                    keys,
                )
            raise Clash(
                f"{where}: the description gives {as_written(theirs)} where trecbench records "
                f"{as_written(mine)}; leave it out (trecbench records it)",
                keys,
            )
        else:
            result[key] = mine if key in known else theirs
    return result


def _texts(value: Any) -> bool:
    """Whether ``value`` is a list of texts (a list of names, such as libraries)."""
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def as_written(value: Any) -> str:
    """A value of an ir_metadata block (the user's description or what trecbench records)
    as every message quotes it: as YAML and JSON write it (null, true, 5, 60.0, "text"
    with JSON's escapes, [1, 2], {"name": "rrf"}), not as Python does (None, True,
    'text'); what JSON has no text for as YAML writes it (.nan, .inf, 2022-01-01,
    !!binary); on one line, cut as an error quotes a long value."""
    return excerpt_plain(one_line(_written(value)))


def _written(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return int_text(value)  # an int beyond the digits Python writes too
    if isinstance(value, float) and not math.isfinite(value):
        return ".nan" if math.isnan(value) else (".inf" if value > 0 else "-.inf")
    if isinstance(value, (float, str)):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{_written(k)}: {_written(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple, set, frozenset)):
        return "[" + ", ".join(_written(item) for item in value) + "]"
    if isinstance(value, (datetime.date, datetime.time)):
        return value.isoformat()
    if isinstance(value, bytes):
        return "!!binary " + base64.b64encode(value).decode("ascii")
    return str(value)


def platform(environment: dict[str, Any]) -> dict[str, Any]:
    """The ``platform`` entry of a block trecbench writes of what it computed itself (a
    fused run): Python's version and the packages' of ``environment`` (as
    :func:`trecbench.report.environment` gives it, the reports' one source of versions)
    as ``name==version`` under ``software.libraries.python``, the ir_metadata schema's
    place for them; a package not installed is left out."""
    packages = environment["packages"].items()
    libraries = [f"{name}=={number}" for name, number in packages if number is not None]
    python = [f"python=={environment['python']}", *libraries]
    return {"software": {"libraries": {"python": python}}}


def block_text(metadata: dict[str, Any]) -> str:
    """``metadata`` as an ir_metadata block, to write at the top of a run: each text reads
    back as the same text, under YAML 1.1 (PyYAML, trecbench) and 1.2 (the version the
    ir_metadata schema names; ruamel.yaml, repro_eval), and no line break of any reader is
    written raw (see :func:`_block_dumper`)."""
    import yaml

    text = yaml.dump(metadata, Dumper=_block_dumper(), sort_keys=False, allow_unicode=True)
    # lines end at "\n" only, as the readers' (str.splitlines() also ends one at U+2028)
    lines = text.removesuffix("\n").split("\n")
    body = "".join(f"# {line}\n" if line else "#\n" for line in lines)
    return f"{START.decode()}\n{body}{END.decode()}\n"


# text that starts as a number may (a sign, a digit, "." or "_"; a sign alone): quoted,
# as ruamel.yaml (repro_eval's reader) reads 1_0e5, +0o7 and 0o_7 as numbers beyond YAML
# 1.2's core schema (NOT_TEXT), and "+_" not at all. Quotes keep any text text.
_LIKE_A_NUMBER = re.compile(r"[-+]?[0-9._]|[-+]$")


@cache
def _block_dumper() -> type:
    """PyYAML's ``SafeDumper`` writing text that YAML 1.2 reads as something else quoted,
    and text with a character that is not printable (a line break of any reader: \\n,
    \\r, U+0085, U+2028, U+2029; a control, a tab, NUL) double-quoted, where YAML escapes
    each (``\\L``, ``\\r``, ``\\0``): the block's lines are the file's lines."""
    import yaml

    from ..json_values import set_order
    from ..yaml_loader import WrittenFloat

    class BlockDumper(yaml.SafeDumper):
        def represent_str(self, data):
            if not data.isprintable():
                style = '"'
            elif NOT_TEXT.fullmatch(data) or _LIKE_A_NUMBER.match(data):
                style = "'"  # PyYAML writes 1e3, 0o17, 008 plain: text to it
            else:
                return super().represent_str(data)
            return self.represent_scalar("tag:yaml.org,2002:str", data, style=style)

    def represent_set(self, data):
        # in json_safe's order: a set's own follows the seed of the text hashes, and two
        # identical calls wrote two blocks (PYTHONHASHSEED)
        ordered = dict.fromkeys(set_order(data))
        return self.represent_mapping("tag:yaml.org,2002:set", ordered)

    BlockDumper.add_representer(str, BlockDumper.represent_str)
    BlockDumper.add_representer(set, represent_set)
    # a description's .nan, .inf or 1.0e+400, read as the loader's WrittenFloat: written as
    # the float it is (.nan, .inf, -.inf: one value to YAML 1.1 and 1.2), where PyYAML
    # knows no subclass and gave up (exit 70 after the conversion or fusion was done)
    BlockDumper.add_representer(WrittenFloat, BlockDumper.represent_float)
    return BlockDumper


def recorded(metadata: dict[str, Any] | None) -> dict[str, Any]:
    """The ``ir_metadata`` entry of a run's report record (none without a block), its
    values as the reports' JSON holds them (a YAML date, ``!!binary``...): one entry for
    a run read whole or in blocks."""
    if metadata is None:
        return {}
    from ..json_values import json_safe

    return {"ir_metadata": json_safe(metadata)}
