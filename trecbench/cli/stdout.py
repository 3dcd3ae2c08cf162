"""Standard output written whole, buffered or not.

Python's text stdout does not check what the operating system took: with
``PYTHONUNBUFFERED=1`` (many Docker images and CI systems) ``sys.stdout`` writes straight
to the file, and a short write (a disk filling up) loses the rest of the text without an
error. :func:`whole_writes` puts, for the length of a command, a stdout whose every write
is repeated until all its bytes are taken and raises :class:`OSError` when the system
takes none, so that the guard (:func:`trecbench.cli.run`) reports it as it reports a
failed write: one line, exit 2.
"""

from __future__ import annotations

import contextlib
import errno
import io
import select
import sys
from collections.abc import Iterator


class WholeWriter(io.RawIOBase):
    """A raw binary stream over ``raw`` (stdout's :class:`io.FileIO`) whose :meth:`write`
    writes every byte or raises. Closing it leaves ``raw`` open: stdout is not ours."""

    def __init__(self, raw: io.RawIOBase):
        super().__init__()
        self.raw = raw

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self.raw.fileno()

    def isatty(self) -> bool:
        return self.raw.isatty()

    def write(self, data) -> int:
        view = memoryview(data).cast("B")
        done = 0
        while done < len(view):
            written = self.raw.write(view[done:])
            if written is None:  # a full non-blocking pipe: wait until it drains
                select.select([], [self.raw], [])
                continue
            if written <= 0:
                raise OSError(errno.EIO, f"short write: {done} of {len(view)} bytes written")
            done += written
        return done


def _stdout_file(stream) -> io.RawIOBase | None:
    """The :class:`io.FileIO` under a text stream (straight, or under its buffer); None
    for anything else (a test's capture, a replaced stream)."""
    binary = getattr(stream, "buffer", None)
    raw = binary if isinstance(binary, io.FileIO) else getattr(binary, "raw", None)
    return raw if isinstance(raw, io.FileIO) else None


@contextlib.contextmanager
def whole_writes() -> Iterator[None]:
    """Inside the block, ``sys.stdout`` (text and ``.buffer``) writes whole: same file,
    encoding and buffering as before, every write checked (see :class:`WholeWriter`)."""
    stream = sys.stdout
    raw = _stdout_file(stream)
    if raw is None or not isinstance(stream, io.TextIOWrapper):
        yield
        return
    stream.flush()
    whole = WholeWriter(raw)
    unbuffered = isinstance(stream.buffer, io.RawIOBase)  # PYTHONUNBUFFERED, python -u
    sys.stdout = io.TextIOWrapper(
        whole if unbuffered else io.BufferedWriter(whole),
        encoding=stream.encoding,
        errors=stream.errors,
        line_buffering=stream.line_buffering,
        write_through=stream.write_through,
    )
    try:
        yield
    finally:
        replaced, sys.stdout = sys.stdout, stream
        # the guard flushed it and reported a failure (and then sent stdout to /dev/null)
        with contextlib.suppress(OSError, ValueError):
            replaced.flush()
