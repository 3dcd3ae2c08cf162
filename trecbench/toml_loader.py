"""TOML configurations (benchmark configurations, leaderboard suites) read one way:
:func:`load_toml`; their relative paths start from :func:`config_folder`, and every path
a configuration gives (TOML or YAML) is made one by :func:`config_path`. A message naming
a configuration's key says where it is once, :meth:`ConfigText.where`: ``file:line: key``,
the key dotted (``modes.h.weights[0]``), its line where the file writes it (found by
tomllib itself, or PyYAML's marks), else the nearest enclosing key's, or none.

A UTF-8 byte-order mark before the first key is skipped: editors on Windows write one,
and in a configuration it carries no meaning (in a run or qrels it is an error, R23, for
trec_eval reads it as part of the first topic's id). Nesting is bounded as in YAML
(:data:`~trecbench.yaml_loader.MAX_DEPTH`): tomllib recurses, and thousands of brackets
ended in an internal RecursionError.
"""

from __future__ import annotations

import ast
import json
import os
import re
import stat
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import EMPTY_FILE, InputError, UsageError, excerpt, json_excerpt, shortened
from .naming import file_path
from .text_encoding import utf8_text

# a value of digits (and TOML's underscores between them) past what Python's int reads
# from text: after a key's "=" or in an array, not inside a string
_LONG_INTEGER = re.compile(r"(?:^|[=\[,{])[ \t]*[+-]?[0-9_]{4301,}", re.MULTILINE)


def load_toml(data: bytes, path: str | Path, what: str) -> dict[str, Any]:
    """The document of a TOML file's bytes; anything but valid TOML is refused as
    ``path:line: not WHAT: ...`` (``what``: "valid TOML", "a valid TOML suite"), text that
    is not UTF-8 as every reader of text refuses it (:func:`~.text_encoding.utf8_text`)."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib
    from .yaml_loader import MAX_DEPTH, nesting_depth, read_float, text_line

    text = utf8_text(data, str(path))  # UTF-16, or a byte not UTF-8: at its line
    refuse_empty(text, path)
    try:
        document = tomllib.loads(
            text, parse_float=lambda written: read_float(float(written), written)
        )
    except tomllib.TOMLDecodeError as error:  # its line where errors are cited: file:line
        found = re.fullmatch(r"(.*) \(at line (\d+), column (\d+)\)", str(error), re.DOTALL)
        if found is None:  # "(at end of document)": on the file's last line
            last_line = text_line(len(text), text)
            twice = _duplicate_key(str(error), text, last_line)
            raise InputError(str(path), last_line, f"not {what}: {twice or error}") from None
        problem, line, column = found.groups()
        twice = _duplicate_key(problem, text, int(line))
        problem = twice or f"{_inline_table(problem)} (column {column})"
        raise InputError(str(path), int(line), f"not {what}: {problem}") from None
    except RecursionError:  # tomllib parses nested arrays and tables recursively
        document = None
    except ValueError:  # an integer past the 4,300 digits Python's int reads
        longest = _LONG_INTEGER.search(text)
        line = None if longest is None else text_line(longest.start(), text)
        raise InputError(str(path), line, f"not {what}: an integer of over 4300 digits") from None
    if document is None or nesting_depth(document) > MAX_DEPTH:
        line = _deepest_line(text)
        raise InputError(str(path), line, f"nested deeper than {MAX_DEPTH} levels")
    return document


# what a document's nesting is read from: strings (multi-line first) and comments, which
# hold none; table headers and keys at a line's start (their dotted parts); brackets
_NESTING = re.compile(
    r'(?P<text>"""(?:[^\\]|\\.)*?"""|\'\'\'.*?\'\'\'|"(?:[^"\\\n]|\\.)*"|\'[^\'\n]*\'|#[^\n]*)'
    r"|(?P<header>^[ \t]*\[\[?[^\]\n]*\]\]?)"
    r"|(?P<key>^[ \t]*[A-Za-z0-9_.\-\"' \t]+?(?=[ \t]*=))"
    r"|(?P<bracket>[\[\]{}])",
    re.DOTALL | re.MULTILINE,
)


def _deepest_line(text: str) -> int | None:
    """The line where the document first nests deeper than :data:`MAX_DEPTH` levels, as
    :func:`~trecbench.yaml_loader.nesting_depth` counts them (the document, each table
    header's and key's dotted parts, each array and inline table): tomllib says no line.
    None where none is found so (a key's dots inside quotes are counted too)."""
    from .yaml_loader import MAX_DEPTH, text_line

    table = depth = key = 0  # the header's levels, the brackets open, the line's key's
    for token in _NESTING.finditer(text):
        kind, found = token.lastgroup, token.group()
        if kind == "header" and depth == 0:
            table = _parts(found.strip().strip("[]")) + found.strip().startswith("[[")
            level, key = 1 + table, 0
        elif kind == "header":  # an array's element on a line of its own: [1, [2]]
            level = 1 + table + key + depth + _deepest_bracket(found)
            depth += found.count("[") - found.count("]")  # [[1], 2]: "[[1]" matched
        elif kind == "key" and depth == 0:
            key = _parts(found) - 1
            level = 1 + table + key
        elif kind == "bracket" and found in "[{":
            depth += 1
            level = 1 + table + key + depth
        else:
            depth -= kind == "bracket"
            continue
        if level > MAX_DEPTH:
            return text_line(token.start(), text)
    return None


def _parts(dotted: str) -> int:
    """How many keys a dotted key (or table name) names: ``a.b`` 2 (a dot inside quotes
    counted as one, a bound's estimate)."""
    return dotted.count(".") + 1


def _deepest_bracket(text: str) -> int:
    """How deep brackets nest in ``text`` (no strings in it)."""
    depth = deepest = 0
    for char in text:
        depth += (char in "[{") - (char in "]}")
        deepest = max(deepest, depth)
    return deepest


def _duplicate_key(problem: str, text: str, line: int) -> str | None:
    """A key written twice, said as YAML's loader says it: ``duplicate key 'qrels' (first
    on line 1)``, where tomllib said ``Cannot overwrite a value`` (or ``Cannot declare
    ('modes', 'a') twice``) at ``line``, naming neither the key nor its first line. The
    key is read from ``line`` (a table header, or a key under the last header before it);
    None when it cannot be (an inline table, an array of tables, a value over several
    lines), and the message stays tomllib's."""
    if not problem.startswith(("Cannot overwrite a value", "Cannot declare")):
        return None
    lines = text.split("\n")
    while 1 < line <= len(lines) and not lines[line - 1].strip():  # "at end of document"
        line -= 1
    written = lines[line - 1] if 1 <= line <= len(lines) else ""
    header = re.compile(r"\s*\[(?!\[)")
    table: tuple = ()
    if not header.match(written):
        above = next((s for s in reversed(lines[: line - 1]) if re.match(r"\s*\[", s)), None)
        if above is not None:
            table = _written_keys(above) if header.match(above) else None
    keys = _written_keys(written)
    if table is None or not keys:
        return None
    first = toml_key_line("\n".join(lines[: line - 1]), (*table, *keys))
    if first is None:
        return None
    return f"duplicate key {excerpt(keys[-1])} (first on line {first})"


def _inline_table(problem: str) -> str:
    """tomllib's ``Cannot mutate immutable namespace ('modes', 'b')`` and ``Cannot declare
    ('modes', 'b') twice`` (a key or table set inside an inline table, or one declared
    twice) in words naming the key; any other problem as tomllib says it."""
    found = re.fullmatch(r"Cannot (mutate immutable namespace|declare) (\(.*\))( twice)?", problem)
    if found is None:
        return problem
    try:
        keys = ast.literal_eval(found.group(2))
    except (ValueError, SyntaxError):
        return problem
    key = excerpt(key_path(keys))
    if found.group(1) == "declare":
        return f"table {key} is declared twice, or inside an inline table: {_COMPLETE}"
    return f"{key} is written again or added to an inline table: {_COMPLETE}"


# why an inline table takes no key after it is written
_COMPLETE = "an inline table ({...}) is complete where it is written"


def _written_keys(written: str) -> tuple:
    """The keys one TOML line writes (``[modes.a]``: modes, a; ``a.b = 1``: a, b), read
    by tomllib; () when the line alone is no document."""
    document = _toml_document(written)
    keys: tuple = ()
    while isinstance(document, dict) and len(document) == 1:
        key, document = next(iter(document.items()))
        keys = (*keys, key)
    return keys


def refuse_empty(text: str, path: str | Path, yaml: bool = False) -> None:
    """Refuse a configuration with nothing in it: blank lines and comments only (in YAML
    also document markers, ``---`` and ``...``; an explicit ``~`` is content). It is an
    empty file, exit 2, as every other input says of one; TOML read it as an empty table
    and YAML as null, which the schema then refused as a setting ("'collections' is a
    required property", "null is not of type 'object'", exit 1)."""
    markers = ("---", "...") if yaml else ()
    for line in text.lstrip("\ufeff").splitlines():
        stripped = line.strip()
        if stripped and not stripped.startswith("#") and line.rstrip() not in markers:
            return
    raise InputError(str(path), None, EMPTY_FILE)


def piped(path: str | Path) -> bool:
    """Whether ``path`` is a pipe (``<(cat suite.toml)``) or another file that is not
    regular (one that cannot be examined is not: its reader says why)."""
    try:
        return not stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


def config_folder(path: str | Path) -> Path:
    """The folder a configuration's relative paths start from: its own, or the current
    one for a configuration read from a pipe (``/dev/fd`` holds none of its files); for a
    file given as ``/dev/stdin`` (``< suite.toml``), the folder of the file behind it; ``-``
    is standard input, as ``/dev/stdin`` is."""
    if str(path) == "-":
        path = "/dev/stdin"
    if piped(path):
        return Path.cwd()
    if str(path).startswith(("/dev/", "/proc/")):  # a descriptor's name: its file's folder
        return Path(os.path.realpath(path)).parent
    return Path(path).parent


def config_path(
    config: ConfigText, base: Path, value: str, keys: Sequence[str | int], *, folder: bool = False
) -> Path:
    """The path ``value`` a configuration gives at ``keys`` (``("modes", "b", "run")``),
    from ``base`` (:func:`config_folder`). A NUL byte, which no file name holds (the system
    refuses it), is refused as the schema refuses a value: a usage error naming the file,
    the key and its line. Unless the key names a ``folder`` (an output's), a value ending
    in ``/`` names a folder (``a.run/``) that the system finds none of: refused as the
    system refuses it (a Path drops the slash, and ``a.run`` was read)."""
    if "\0" in value:
        message = f"{json_excerpt(value)} holds a NUL byte: no path can"
        raise UsageError(f"{config.where(keys)}: {message}")
    joined = os.path.join(base, value)
    # b.run/ and b.run/. name a folder: a Path drops the slash and the dot
    if not folder and (value.endswith(("/", os.sep)) or os.path.basename(value) == "."):
        try:
            os.stat(joined)
        except OSError as error:  # ENOTDIR for a file named so, ENOENT for none
            message = f"{key_path(keys)}: cannot read {excerpt(joined)}: {error.strerror}"
            raise InputError(os.fspath(config.path), config.line(keys), message) from None
    # a file called - (by a configuration in the current folder): never standard input
    return file_path(joined)


def unreadable_setting(
    error: InputError,
    config: ConfigText | None,
    config_file: str | os.PathLike,
    path: str | os.PathLike,
    keys: Sequence[str | int],
) -> InputError | None:
    """``error`` told of the setting at ``keys`` of the configuration ``config_file`` that
    named ``path``, when it is ``path``'s reader's ``cannot read``
    (:meth:`~trecbench.errors.InputError.unreadable_reason`): ``bench.toml:8: modes.b.run:
    cannot read 'b.run': No such file or directory``, at the key's line (none without
    ``config``: settings built in Python). None for any other error."""
    from .errors import excerpt

    reason = error.unreadable_reason(path)
    if reason is None:
        return None
    line = None if config is None else config.line(keys)
    message = f"{key_path(keys)}: cannot read {excerpt(os.fspath(path))}: {reason}"
    return error.moved(os.fspath(config_file), line, message)


def key_path(keys: Sequence[str | int]) -> str:
    """The key at ``keys`` as every configuration message names it: dotted, a list's item
    by its index (``modes.h.weights[0]``); ``(top level)`` for the document itself. A key
    that is empty or holds a dot, blank or quote is quoted as TOML quotes it
    (``modes.b."bo gus"``, ``targets.measures."ndcg_cut.10"``), not read as two keys."""
    shown = ""
    for key in keys:
        part = key if isinstance(key, int) else _key_part(str(key))
        shown += f"[{part}]" if isinstance(key, int) else f".{part}" if shown else part
    return shown or "(top level)"


def _key_part(key: str) -> str:
    """``key`` as a dotted path writes it: bare, or a TOML basic string (JSON's escapes
    are TOML's) when it is empty or holds a dot, blank, quote or bracket (``weights[0]``
    would read as a list's item) or a character that does not print."""
    if key and not any(
        char in ".\"'[]" or char.isspace() or not char.isprintable() for char in key
    ):
        return key
    return json.dumps(key, ensure_ascii=False)


@dataclass(frozen=True)
class ConfigText:
    """A configuration file's name and text (YAML when ``yaml``, else TOML), for the
    messages that name one of its keys (:meth:`where`)."""

    path: Path
    text: str = ""
    yaml: bool = False

    def where(self, keys: Sequence[str | int]) -> str:
        """``file:line: key`` (:func:`key_path`; the line as :meth:`line` finds it), or
        ``file: key`` when no line is found."""
        line = self.line(keys)
        return f"{self.path}{'' if line is None else f':{line}'}: {shortened(key_path(keys))}"

    def line(self, keys: Sequence[str | int], *, own: bool = False) -> int | None:
        """The line where the file writes the key at ``keys``; when that line is not found
        (the key not written: a default; or not found cheaply: written escaped, a file
        over :data:`MAX_SEARCHED`, see :func:`toml_key_line`), the line of the nearest
        enclosing key that is found, unless ``own``. None: none found."""
        for depth in range(len(keys), 0, -1):
            line = self._own_line(keys[:depth])
            if line is not None or own:
                return line
        return None

    def written(self, keys: Sequence[str | int], value: int) -> str:
        """The integer ``value`` at ``keys`` as the file writes it (``0x10``, ``1_0``, not
        16 and 10): YAML's kept text (:class:`~.yaml_loader.WrittenInt`); in TOML, which
        keeps none, the rest of the key's own line where that reads back as ``value``;
        else ``value`` in decimals."""
        text = getattr(value, "text", None)
        if text is not None or self.yaml:
            return text or f"{value:,}"
        line = self.line(keys, own=True)
        if line is not None:
            _, equals, rest = self.text.split("\n")[line - 1].partition("=")
            written = rest.split("#", 1)[0].strip()
            if equals and _toml_integer(written) == value:
                return written
        return f"{value:,}"

    def _own_line(self, keys: Sequence[str | int]) -> int | None:
        if self.yaml:
            from .yaml_loader import key_line

            return key_line(self.text, keys)
        return toml_key_line(self.text, keys)


def _toml_integer(text: str) -> int | None:
    """The integer a TOML value's ``text`` writes; None when it writes none."""
    read = (_toml_document(f"v = {text}") or {}).get("v")
    return read if type(read) is int else None


MAX_SEARCHED = 200_000  # characters of a TOML text searched for a key's line
MAX_READS = 200  # prefixes of it read in that search


def toml_key_line(text: str, keys: Sequence[str | int]) -> int | None:
    """The line (counted at ``\\n``) where the TOML ``text`` writes the key at ``keys``:
    the first line holding the key's name such that the document read by tomllib up to it
    (and past it, to the end of a value written over several lines) holds the key and
    the document before it does not. tomllib keeps no positions; reading prefixes is
    cheap for a configuration, and bounded (:data:`MAX_SEARCHED`, :data:`MAX_READS`): None
    beyond, or when the key is not written (a default) or written otherwise (escaped)."""
    name = next((key for key in reversed(keys) if isinstance(key, str)), None)
    if name is None or len(text) > MAX_SEARCHED:
        return None
    lines = text.split("\n")
    if len(keys) > 1 and isinstance(keys[-1], int) and isinstance(keys[-2], str):
        start = toml_key_line(text, keys[:-1])  # an array's item: where the item is written
        return None if start is None else _item_line(lines, start, keys[:-1], keys[-1])
    reads = iter(range(MAX_READS))

    def holds(end: int, step: int) -> bool | None:
        """Whether the first ``end`` lines hold the key, ``end`` moved by ``step`` until
        they are a document; None when the reads run out."""
        while 0 <= end <= len(lines) and next(reads, None) is not None:
            document = _toml_document("\n".join(lines[:end]))
            if document is not None:
                return _holds(document, keys)
            end += step
        return None

    for index, line in enumerate(lines):
        if name not in line:
            continue
        after = holds(index + 1, 1)
        if not after:
            if after is None:
                return None
            continue
        return index + 1 if holds(index, -1) is False else None
    return None


def _item_line(lines: list[str], start: int, keys: Sequence[str | int], item: int) -> int | None:
    """The line of the array's ``item`` whose key at ``keys`` is written on line
    ``start``: the first line up to which the key's line and those after it, read alone
    (with the array, and arrays in it, closed after them), hold the item; a list of one
    line is there, one over several (``measures = [`` and an item a line) at the item's
    own. None when not found within :data:`MAX_READS`."""
    for end in range(start, min(len(lines), start - 1 + MAX_READS) + 1):
        written = "\n".join(lines[start - 1 : end])
        for closed in (written + "\n" + "]" * depth for depth in range(4)):  # arrays in it
            document = _toml_document(closed)
            if document is None:
                continue
            for first in range(len(keys)):  # the line names the key's last parts
                if _holds(document, (*keys[first:], item)):
                    return end
            break
    return None


def _toml_document(text: str) -> dict | None:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return None


def _holds(document: Any, keys: Sequence[str | int]) -> bool:
    """Whether ``document`` has a value at ``keys``."""
    for key in keys:
        if isinstance(key, int) and isinstance(document, list) and 0 <= key < len(document):
            document = document[key]
        elif isinstance(key, str) and isinstance(document, dict) and key in document:
            document = document[key]
        else:
            return False
    return True
