"""ir_metadata blocks: a run's description in YAML at the top of its file (Breuer et al.,
"ir_metadata: An Extensible Metadata Schema for IR Experiments", SIGIR 2022; used by TIRA
and repro_eval).

The block is the file's first lines: ``# ir_metadata.start``, then YAML with each line
prefixed by ``#`` (and a space, which is dropped), then ``# ir_metadata.end``; the TREC
lines follow. Readers take the block out and read the rest exactly as trec_eval reads the
file without it; line numbers stay those of the file.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import InputError

START = b"# ir_metadata.start"
END = b"# ir_metadata.end"
_SCAN_LINES = 100_000  # a block longer than this is not metadata


@dataclass(frozen=True)
class Block:
    """The block found at the top of a file: its ``lines`` (physical lines 1 to ``lines``,
    the markers included), its YAML ``text`` and the ``size`` in bytes it takes."""

    lines: int
    text: str
    size: int


def starts_with_block(head: bytes) -> bool:
    """Whether text starting with ``head`` (its first line at least) begins with an
    ir_metadata block."""
    first = head.split(b"\n", 1)[0]
    return first.rstrip() == START


def find_block(data: bytes, path: str) -> Block | None:
    """The ir_metadata block at the top of ``data`` (a file's text, or its first part), or
    None when the text does not start with one. A block without its end marker, or with a
    line that is not a ``#`` line, is bad input at its line."""
    if not starts_with_block(data[: len(START) + 64]):
        return None
    lines, position, text = 1, data.find(b"\n") + 1, []
    while 0 < position < len(data) and lines < _SCAN_LINES:
        end = data.find(b"\n", position)
        line = data[position : end if end >= 0 else len(data)].rstrip(b"\r")
        lines += 1
        if line.rstrip() == END:
            return Block(
                lines, _decoded(b"\n".join(text), path), end + 1 if end >= 0 else len(data)
            )
        if not line.startswith(b"#"):
            message = f"the ir_metadata block of line 1 has no {END.decode()!r} before this line"
            raise InputError(path, lines, message)
        text.append(line[2:] if line.startswith(b"# ") else line[1:])
        position = end + 1 if end >= 0 else 0
    raise InputError(path, 1, f"an ir_metadata block that never ends ({END.decode()} missing)")


def _decoded(text: bytes, path: str) -> str:
    try:
        return text.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(path, 1, "the ir_metadata block is not UTF-8") from None


def parse(block: Block, path: str) -> dict[str, Any]:
    """The block's YAML as a mapping; malformed YAML is bad input at its line in the file."""
    import yaml

    try:
        value = yaml.safe_load(block.text) if block.text.strip() else {}
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        line = 2 + mark.line if mark is not None else 1  # the YAML starts on line 2
        problem = getattr(error, "problem", None) or "malformed"
        raise InputError(path, line, f"ir_metadata: not valid YAML: {problem}") from None
    if not isinstance(value, dict):
        raise InputError(path, 2, "ir_metadata: the YAML is not a mapping (key: value lines)")
    return value


def block_text(metadata: dict[str, Any]) -> str:
    """``metadata`` as an ir_metadata block, to write at the top of a run."""
    import yaml

    text = yaml.safe_dump(metadata, sort_keys=False, allow_unicode=True)
    body = "".join(f"# {line}\n" if line else "#\n" for line in text.splitlines())
    return f"{START.decode()}\n{body}{END.decode()}\n"
