"""The regular file a command's standard output writes into, which no input of the call may
be: ``fuse a.run b.run -o - >> a.run`` appended the fused run to its own input (``1<>a.run``
overwrote it; ``score QRELS RUN >> RUN`` appended the scores), where every file output is
refused in that case. Refused as GNU cat refuses it ("input file is output file"), by the
file's identity (device, inode): however the input is named, whether it is read before or
after anything is written. Nor may a file the call writes be it (:func:`check_output`).

The command line notes the file for the call (:func:`noted`); every input named on the
command line is checked as it is parsed (before any work, small paths included), and every
file read as it is noted (:func:`trecbench.outputs.note_input`: a run a leaderboard's suite
names). Outside the command line nothing is noted and nothing is refused. Its own small
module: the small paths of ``score`` and ``validate`` import it without
:mod:`trecbench.outputs`.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import stat
from collections.abc import Iterator
from typing import IO

from .errors import OutputError, one_line
from .naming import file_key

_written: contextvars.ContextVar[tuple[int, int] | None] = contextvars.ContextVar(
    "trecbench_standard_output", default=None
)


@contextlib.contextmanager
def noted(stream: IO | None) -> Iterator[None]:
    """Inside the block, no input may be the regular file ``stream`` (standard output)
    writes into (a terminal, a pipe or a device is no input's file: nothing is noted)."""
    token = _written.set(_regular_file(stream))
    try:
        yield
    finally:
        _written.reset(token)


def _regular_file(stream: IO | None) -> tuple[int, int] | None:
    try:
        info = os.fstat(stream.fileno())
    except (AttributeError, ValueError, OSError):  # no file under it (a test's capture)
        return None
    return (info.st_dev, info.st_ino) if stat.S_ISREG(info.st_mode) else None


def check_input(path: str | os.PathLike) -> None:
    """Refuse ``path`` (``-``: standard input's file) as an input when it is the file
    standard output writes into (see :func:`noted`)."""
    written = _written.get()
    if written is not None and file_key(path) == written:
        name = one_line(os.fsdecode(path))
        raise OutputError(f"{name}: input file is standard output; refusing to write into it")


def check_output(path: str | os.PathLike, info: os.stat_result | None) -> None:
    """Refuse ``path`` (``info``: its ``lstat``, None if missing) as a file output when it
    is the file standard output writes into: what the command prints and the file it puts
    in place would each replace the other (``--report r.json > r.json`` left the report
    alone), as two outputs at one path would."""
    written = _written.get()
    if written is not None and info is not None and (info.st_dev, info.st_ino) == written:
        name = one_line(os.fsdecode(path))
        raise OutputError(f"{name}: written twice by one command, as a file and as standard output")
