"""TOML configurations (benchmark configurations, leaderboard suites) read one way:
:func:`load_toml`; their relative paths start from :func:`config_folder`, and every path
a configuration gives (TOML or YAML) is made one by :func:`config_path`.

A UTF-8 byte-order mark before the first key is skipped: editors on Windows write one,
and in a configuration it carries no meaning (in a run or qrels it is an error, R23, for
trec_eval reads it as part of the first topic's id). Nesting is bounded as in YAML
(:data:`~trecbench.yaml_loader.MAX_DEPTH`): tomllib recurses, and thousands of brackets
ended in an internal RecursionError.
"""

from __future__ import annotations

import os
import re
import stat
import sys
from pathlib import Path
from typing import Any

from .errors import InputError, UsageError, json_excerpt
from .text_encoding import utf8_text


def load_toml(data: bytes, path: str | Path, what: str) -> dict[str, Any]:
    """The document of a TOML file's bytes; anything but valid TOML is refused as
    ``path:line: not WHAT: ...`` (``what``: "valid TOML", "a valid TOML suite"), text that
    is not UTF-8 as every reader of text refuses it (:func:`~.text_encoding.utf8_text`)."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib
    from .yaml_loader import MAX_DEPTH, nesting_depth, read_float

    text = utf8_text(data, str(path))  # UTF-16, or a byte not UTF-8: at its line
    try:
        document = tomllib.loads(
            text, parse_float=lambda written: read_float(float(written), written)
        )
    except tomllib.TOMLDecodeError as error:  # its line where errors are cited: file:line
        found = re.fullmatch(r"(.*) \(at line (\d+), column (\d+)\)", str(error), re.DOTALL)
        if found is None:
            raise InputError(str(path), None, f"not {what}: {error}") from None
        problem, line, column = found.groups()
        raise InputError(str(path), int(line), f"not {what}: {problem} (column {column})") from None
    except RecursionError:  # tomllib parses nested arrays and tables recursively
        document = None
    if document is None or nesting_depth(document) > MAX_DEPTH:
        raise InputError(str(path), None, f"nested deeper than {MAX_DEPTH} levels")
    return document


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
    file given as ``/dev/stdin`` (``< suite.toml``), the folder of the file behind it."""
    if piped(path):
        return Path.cwd()
    if str(path).startswith(("/dev/", "/proc/")):  # a descriptor's name: its file's folder
        return Path(os.path.realpath(path)).parent
    return Path(path).parent


def config_path(config: str | Path, base: Path, value: str, where: str) -> Path:
    """The path ``value`` a configuration ``config`` gives at ``where`` (``modes/b/run``,
    as its schema's errors name a key), from ``base`` (:func:`config_folder`). A NUL byte,
    which no file name holds (the system refuses it), is refused as the schema refuses a
    value: a usage error naming the file and the key."""
    if "\0" in value:
        message = f"{json_excerpt(value)} holds a NUL byte: no path can"
        raise UsageError(f"{config}: {where}: {message}")
    return base / value
