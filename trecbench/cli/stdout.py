"""Standard output written whole, buffered or not; /dev/null in place of a standard stream
the command line closed.

Python's text stdout does not check what the operating system took: with
``PYTHONUNBUFFERED=1`` (many Docker images and CI systems) ``sys.stdout`` writes straight
to the file, and a short write (a disk filling up) loses the rest of the text without an
error. :func:`whole_writes` puts, for the length of a command, a stdout whose every write
is repeated until all its bytes are taken and raises :class:`OSError` when the system
takes none, so that the guard (:func:`trecbench.cli.run`) reports it as it reports a
failed write: one line, exit 2; and a stderr that drops what its file refuses (a full
one, ``2>/dev/full``), as it drops everything when closed: messages never end a call.

A stream the command line closed (``>&-``, ``2>&-``) Python makes None, to which click
writes nothing without a word: a closed stdout lost every result with exit 0, and a
closed stderr failed every call with an internal error. :func:`closed_streams_held` puts,
for the length of a command, ``/dev/null`` in their place: read-only for stdout, so that
every write to it fails as it does under ``1<file`` (and :func:`check_writable` refuses a
command that prints before its work), write-only for stderr, as ``2>/dev/null``.

Output made bytes (UTF-8, untranslated) goes out through :func:`echo_bytes`: to the
stream's binary buffer, or as text to a stream that has none (a ``StringIO`` under
``contextlib.redirect_stdout``, a notebook's output), where a byte write fails.
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
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


class DroppingWriter(WholeWriter):
    """A :class:`WholeWriter` for stderr whose write, when the system refuses it (a full
    file, ``2>/dev/full``; a reader gone), drops the bytes instead of raising: a message
    that cannot be said must not change how the call ends (``wrote PATH`` after the files
    were put in place turned a call that replaced them into exit 2; a warning ended a
    call before its work), as a closed stderr is ``/dev/null``."""

    def write(self, data) -> int:
        with contextlib.suppress(OSError):
            return super().write(data)
        return memoryview(data).nbytes


def _stdout_file(stream) -> io.RawIOBase | None:
    """The :class:`io.FileIO` under a text stream (straight, or under its buffer); None
    for anything else (a test's capture, a replaced stream)."""
    binary = getattr(stream, "buffer", None)
    raw = binary if isinstance(binary, io.FileIO) else getattr(binary, "raw", None)
    return raw if isinstance(raw, io.FileIO) else None


@contextlib.contextmanager
def whole_writes() -> Iterator[None]:
    """Inside the block, ``sys.stdout`` (text and ``.buffer``) writes whole: same file,
    encoding and buffering as before, every write checked (see :class:`WholeWriter`);
    ``sys.stderr`` writes whole or drops what its file refuses (:class:`DroppingWriter`)."""
    with _rewritten("stdout", WholeWriter), _rewritten("stderr", DroppingWriter):
        yield


@contextlib.contextmanager
def _rewritten(name: str, writer: type[WholeWriter]) -> Iterator[None]:
    """Inside the block, the standard stream ``name`` writes through ``writer`` over its
    file: same encoding and buffering as before."""
    stream = getattr(sys, name)
    raw = _stdout_file(stream)
    if raw is None or not isinstance(stream, io.TextIOWrapper):
        yield
        return
    stream.flush()
    unbuffered = isinstance(stream.buffer, io.RawIOBase)  # PYTHONUNBUFFERED, python -u
    setattr(
        sys,
        name,
        io.TextIOWrapper(
            writer(raw) if unbuffered else io.BufferedWriter(writer(raw)),
            encoding=stream.encoding,
            errors=stream.errors,
            line_buffering=stream.line_buffering,
            write_through=stream.write_through,
        ),
    )
    try:
        yield
    finally:
        replaced = getattr(sys, name)
        setattr(sys, name, stream)
        # the guard flushed stdout and reported a failure (and then sent it to /dev/null)
        with contextlib.suppress(OSError, ValueError):
            replaced.flush()


def echo_bytes(data: bytes) -> None:
    """Write ``data`` to standard output: its bytes to ``sys.stdout.buffer``, or, for a
    text-only stream (a ``StringIO``, a Jupyter ``OutStream``: callers of
    :func:`trecbench.cli.run`), the text they were made from. A byte that is not UTF-8
    becomes its ``surrogateescape`` character, as ``os.fsdecode`` holds it, so that a
    stream encoding with ``surrogateescape`` writes it back as it was. A stream without
    a buffer is none of :func:`closed_streams_held`'s (a read-only ``/dev/null`` with a
    buffer), so that a closed stdout still fails with EBADF on the buffer's write."""
    stream = sys.stdout
    if stream is None:  # no stream at all (outside the guard): nothing, as click writes
        return
    binary = getattr(stream, "buffer", None)
    if binary is None:
        stream.write(data.decode("utf-8", "surrogateescape"))
        stream.flush()
        return
    stream.flush()  # text written before it first
    binary.write(data)
    binary.flush()


class UnwritableStdout(OSError):
    """Standard output takes no write at all: closed, or opened for reading only."""


def check_writable() -> None:
    """Raise :class:`UnwritableStdout` (EBADF, what any write would raise) when standard
    output is open for reading only (``1<file``; closed, ``>&-``: see
    :func:`closed_streams_held`), so that a command that prints is refused before its work
    and writes no file; another stream (a test's capture) passes."""
    try:
        import fcntl  # POSIX only: elsewhere the first write tells

        mode = fcntl.fcntl(sys.stdout.fileno(), fcntl.F_GETFL) & os.O_ACCMODE
    except (ImportError, AttributeError, ValueError, OSError):
        return
    if mode == os.O_RDONLY:
        raise UnwritableStdout(errno.EBADF, os.strerror(errno.EBADF))


@contextlib.contextmanager
def closed_streams_held() -> Iterator[None]:
    """Inside the block, a standard stream Python has none of (the command line closed it)
    is ``/dev/null``: stdout read-only (every write fails with EBADF, as under
    ``1</dev/null``), stderr write-only (progress, warnings and errors dropped, as under
    ``2>/dev/null``: the exit code still says how the call ended). A closed descriptor 1
    or 2 is held on it too, so that no file the command opens takes its number, where a
    library's or a worker process's write to the stream would land in that file."""
    held = []
    try:
        for name, fd, access in (("stdout", 1, os.O_RDONLY), ("stderr", 2, os.O_WRONLY)):
            if getattr(sys, name) is None:
                with contextlib.suppress(OSError):  # no /dev/null (a bare chroot): left so
                    held.append((name, *_null_in_place(fd, access)))
                    setattr(sys, name, held[-1][1])
        yield
    finally:
        for name, stream, taken in held:
            setattr(sys, name, None)
            with contextlib.suppress(OSError, ValueError):
                stream.close()
            if taken is not None:  # closed again, as the command line left it
                with contextlib.suppress(OSError):
                    os.close(taken)


def _null_in_place(fd: int, access: int) -> tuple[io.TextIOWrapper, int | None]:
    """A text stream on ``/dev/null`` opened with ``access``, and ``fd`` if it was closed
    and is now held on it (to close again after the command; None: not taken)."""
    try:
        os.fstat(fd)
        closed = False
    except OSError:
        closed = True
    null = os.open(os.devnull, access)  # the lowest free number: fd itself, if no lower is closed
    taken = None
    if closed and null != fd:
        os.dup2(null, fd)
        taken = fd
    return open(null, "w", buffering=1, encoding="utf-8", errors="backslashreplace"), taken
