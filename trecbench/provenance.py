"""Provenance: checksums of the inputs as they are read, versions, the git commit, time.

Below every reader and every report (it imports nothing of trecbench but its errors and
version), so that :mod:`trecbench.inputs`, :mod:`trecbench.ontology` and
:mod:`trecbench.report` can all use it without an import circle.

Inputs are read once. A reader wraps the raw bytes of a file in a :class:`Digest` while it
parses them, and :func:`remember` keeps the result (size, sha256 and whatever the reader
counted) for the current call; :func:`file_digest` and the reports then take the checksum
from there instead of reading the file again, which a FIFO or a pipe (``<(...)``) could not
give twice. Only a file no reader of the call has read is read here, once. What a reader
made of a file that can be read only once is kept for the call as well
(:func:`read_in_call`: the ``--ontology`` every evaluation of a call reads).
"""

from __future__ import annotations

import contextlib
import contextvars
import errno
import os
import platform
import stat
import sys
from collections.abc import Callable, Iterator
from datetime import datetime, timezone
from typing import Any, TypeVar

from . import __version__
from .errors import InputError
from .naming import examined

# Distributions whose versions can change a number or a file trecbench writes (with the
# packages of ir_measures' providers, which the reports add: trecbench.report.environment);
# pyyaml reads YAML configurations and ir_metadata blocks (and writes fuse's), ir-datasets
# serves the qrels of a dataset id, jinja2 and bokeh make report.html (its template, and
# its figures' inlined JavaScript), dask and distributed score --dask's runs. Each is
# recorded when installed, whether or not the call used it: a version read from package
# metadata costs no import, and a record of the call's environment stays one shape.
# Not the python lz4 package: Arrow's own codec reads .lz4 inputs (pyarrow's version).
PACKAGES = ("numpy", "pandas", "pyarrow", "pytrec-eval-terrier", "ir-measures", "click", "pyyaml")
OPTIONAL_PACKAGES = (
    "hpo3", "scipy", "matplotlib", "ir-datasets", "jinja2", "bokeh", "dask", "distributed",
)  # fmt: skip

_BLOCK = 1 << 20
# the most a small input read whole (a configuration, a suite, an ir_metadata block) may
# hold: past it, a device or an endless pipe (/dev/zero, `yes |`) grew to the machine's
# memory before any parser saw a byte
MOST_SMALL_FILE_BYTES = 64 << 20

# what the readers of the current call recorded, by file identity (see identity)
_records: contextvars.ContextVar[dict | None] = contextvars.ContextVar(
    "trecbench_input_records", default=None
)


# what the readers of the current call made of a file that can be read only once (a FIFO,
# a pipe), by its identity and what it was read as (see read_in_call)
_read_once: contextvars.ContextVar[dict | None] = contextvars.ContextVar(
    "trecbench_read_once", default=None
)

T = TypeVar("T")

# whether the readers of the current call take the sha256 of what they read
_checksums: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "trecbench_checksums", default=True
)


@contextlib.contextmanager
def taking_checksums(taken: bool) -> Iterator[None]:
    """Whether readers inside the block take the sha256 of what they read. Without it
    they count the bytes only (hashing a 230 MB run takes 0.15 s of CPU time, measured by
    hand), for a call that records no file: ``trecbench score`` without ``--report`` or
    ``--manifest``. What is read without a checksum is not remembered (:func:`remember`):
    a record asked for later reads the file again."""
    token = _checksums.set(taken)
    try:
        yield
    finally:
        _checksums.reset(token)


def checksums_taken() -> bool:
    """Whether readers take checksums here (see :func:`taking_checksums`)."""
    return _checksums.get()


def _sha256(data: bytes = b""):
    """hashlib's sha256 of ``data``; hashlib imported here, by a call that takes a
    checksum (3 ms of OpenSSL's start-up that a plain ``score`` never needs)."""
    import hashlib

    return hashlib.sha256(data)


class Digest:
    """Size and sha256 of bytes seen one block at a time (hashlib releases the GIL on
    large blocks, so hashing overlaps with parsing in other threads); the size only
    where no checksum is taken (:func:`taking_checksums`), unless ``checksum`` says
    (an output's record: what is written is always checksummed)."""

    def __init__(self, checksum: bool | None = None) -> None:
        taken = _checksums.get() if checksum is None else checksum
        self._sha256 = _sha256() if taken else None
        self.size = 0

    def update(self, block: bytes | bytearray | memoryview) -> None:
        if self._sha256 is not None:
            self._sha256.update(block)
        self.size += len(block)

    @property
    def sha256(self) -> str | None:
        return None if self._sha256 is None else self._sha256.hexdigest()

    def record(self) -> dict[str, Any]:
        """``{"size", "sha256"}``, as in a report's file record."""
        return {"size": self.size, "sha256": self.sha256}


@contextlib.contextmanager
def record_scope() -> Iterator[None]:
    """Keep what the readers inside the block record, and what they made of a file that can
    be read once (:func:`read_in_call`); nested scopes join the outermost.

    Opened with every call's input scope (:func:`trecbench.outputs.input_scope`)."""
    if _records.get() is not None:
        yield
        return
    token, read_token = _records.set({}), _read_once.set({})
    try:
        yield
    finally:
        _read_once.reset(read_token)
        _records.reset(token)


def read_in_call(path: str | os.PathLike, kind: str, read: Callable[[], T]) -> T:
    """``read()``, what a reader makes of ``path`` as ``kind`` (``"strata"``), made once
    in the current call (:func:`record_scope`): a second reader of the call gets what the
    first made of it. A file that can be read only once (a FIFO, a pipe) would have made
    it wait for a writer for good, and a regular file read twice could say two things in
    one call (compare's output checks and its analysis read the strata). One read
    outside a call is read by each."""
    info = examined(path)
    kept = _read_once.get()
    if kept is None or info is None:
        return read()
    key = (info.st_dev, info.st_ino, kind)
    if key not in kept:
        kept[key] = read()
    return kept[key]


def read_so_far() -> dict:
    """What :func:`read_in_call` kept in the current call, for a worker process to take
    (:func:`reading_as`): it cannot open again a file its parent read once."""
    return dict(_read_once.get() or {})


@contextlib.contextmanager
def reading_as(read: dict) -> Iterator[None]:
    """Inside the block, :func:`read_in_call` finds what a call read so far (``read``, its
    :func:`read_so_far`): a worker process scoring for its parent's call."""
    token = _read_once.set(dict(read))
    try:
        yield
    finally:
        _read_once.reset(token)


def identity(path: str | os.PathLike) -> tuple | None:
    """Which file ``path`` is now, the key of what :func:`remember` keeps (None if it
    cannot be examined): device and inode, plus size and modification time for a
    regular file (so that a file changed since it was read is read again). A FIFO or pipe
    keeps its identity while its content flows; ``-`` is standard input, as readers read
    it."""
    info = examined(path)
    if info is None:
        return None
    if stat.S_ISREG(info.st_mode):
        return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns)
    return (info.st_dev, info.st_ino)


def remember(key: tuple | None, record: dict[str, Any]) -> None:
    """Keep ``record`` (``size`` and ``sha256``, and what else the reader counted) for the
    file whose :func:`identity` was ``key`` when it was opened, for the current call (not
    a record without its sha256: see :func:`taking_checksums`)."""
    records = _records.get()
    if records is not None and key is not None and record.get("sha256") is not None:
        records[key] = {**records.get(key, {}), **record}


def recorded(path: str | os.PathLike) -> dict[str, Any] | None:
    """What a reader of the current call recorded for ``path``, or None."""
    records = _records.get()
    if not records:
        return None
    key = identity(path)
    return dict(records[key]) if key in records else None


def opened(path: str | os.PathLike) -> tuple[Any, bool]:
    """``path`` opened for reading, unbuffered, and whether the object is borrowed (not
    to be closed): ``-`` is standard input's descriptor (left open), or ``sys.stdin``'s
    bytes where it has none (a test runner's, a notebook's)."""
    if "\0" in os.fsdecode(path):  # open() raised a bare ValueError ("embedded null byte")
        raise OSError(errno.EINVAL, "a file name cannot hold a NUL byte")
    if os.fspath(path) != "-":
        return open(path, "rb", buffering=0), False  # noqa: SIM115 - the caller closes it
    stdin = getattr(sys.stdin, "buffer", None)
    if stdin is None:
        raise OSError(errno.EBADF, "there is no standard input")
    try:
        descriptor = stdin.fileno()
    except (AttributeError, OSError, ValueError):  # io.UnsupportedOperation is an OSError
        return stdin, True
    return open(descriptor, "rb", buffering=0, closefd=False), False  # noqa: SIM115


def _read_at_most(handle, size: int) -> bytes:
    """Up to ``size`` bytes of ``handle``: an unbuffered read gives what one system call
    does (a pipe's 64 KiB), so it is asked again until the end or ``size``."""
    pieces, got = [], 0
    while got < size:
        piece = handle.read(min(_BLOCK, size - got))
        if not piece:
            break
        pieces.append(piece)
        got += len(piece)
    return b"".join(pieces)


def read_file(path: str | os.PathLike) -> bytes:
    """The bytes of a small input file (``-``: standard input), read once and remembered
    with their checksum; one past :data:`MOST_SMALL_FILE_BYTES` is refused, read no
    further."""
    key = identity(path)
    digest = Digest()
    try:
        handle, borrowed = opened(path)
        try:
            data = _read_at_most(handle, MOST_SMALL_FILE_BYTES + 1)
        finally:
            if not borrowed:
                handle.close()
    except OSError as exc:
        raise InputError.unreadable(path, exc) from None
    if len(data) > MOST_SMALL_FILE_BYTES:
        raise InputError(
            os.fspath(path),
            None,
            f"more than {MOST_SMALL_FILE_BYTES >> 20} MiB: no configuration, suite or "
            "ir_metadata file (read whole, so refused, read no further)",
        )
    digest.update(data)
    remember(key, digest.record())
    return data


def file_digest(path: str | os.PathLike) -> tuple[int, str | None]:
    """``(size, sha256 hex)`` of a file's bytes as stored (a gzip file is hashed
    compressed: that identifies the file one has).

    Taken from what a reader of the current call recorded when it read the file; a file
    nobody read yet is read here (in 1 MiB blocks) and remembered.
    """
    known = recorded(path)
    if known is not None:
        return known["size"], known["sha256"]
    key = identity(path)
    digest = Digest()
    try:
        with open(path, "rb") as handle:
            while block := handle.read(_BLOCK):
                digest.update(block)
    except OSError as exc:
        raise InputError.unreadable(path, exc) from None
    remember(key, digest.record())
    return digest.size, digest.sha256


def bytes_record(path: str | os.PathLike, kind: str, data: bytes) -> dict:
    """The record (``path``, ``kind``, ``size``, ``sha256``) of ``data`` written to ``path``."""
    return {
        "path": str(path),
        "kind": kind,
        "size": len(data),
        "sha256": _sha256(data).hexdigest(),
    }


def utc_now() -> str:
    """The current UTC time as ISO-8601 with a ``Z`` suffix, to the second."""
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def new_stamp(experiment_id: str | None = None) -> dict[str, str]:
    """``{"created", "experiment_id"}`` of one call's outputs, made once: its report,
    manifest and HTML page record the same time and id (each taking the time itself, a
    page made seconds before its report said another). ``experiment_id``: a new uuid4
    unless given."""
    import uuid

    return {"created": utc_now(), "experiment_id": experiment_id or str(uuid.uuid4())}


def command_argv() -> list[str]:
    """This process's command line as it can be run again: ``sys.argv``, but for a module
    run with ``python -m`` (``python -m trecbench score ...``), whose ``sys.argv[0]`` is
    the path of its ``__main__.py`` (a file that does not run by itself: not executable,
    its imports relative), the interpreter (``sys.executable``) with the options it was
    given (``sys.orig_argv``) and ``-m`` and the module."""
    import sys

    spec = getattr(sys.modules.get("__main__"), "__spec__", None)
    if spec is None:  # a script or a console script: its path runs it again
        return list(sys.argv)
    arguments = sys.argv[1:]
    # sys.orig_argv: the interpreter, its options, -m and the module, then the arguments
    options = sys.orig_argv[1 : len(sys.orig_argv) - len(arguments)]
    if options[-2:-1] == ["-m"]:
        options = options[:-2]
    elif options[-1:] and options[-1].startswith("-m"):  # -mtrecbench
        options = options[:-1]
    else:  # run otherwise (runpy.run_module; -Im): its options unknown, left out
        options = []
    module = spec.name.removesuffix(".__main__")
    return [sys.executable or "python", *options, "-m", module, *arguments]


def _version(distribution: str) -> str | None:
    from importlib import metadata  # ~15 ms: kept off the CLI's start-up path

    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


def environment(more: tuple[str, ...] = ()) -> dict:
    """Python, platform and the versions of :data:`PACKAGES`, :data:`OPTIONAL_PACKAGES`
    and the distributions ``more`` (from package metadata: nothing is imported).

    Optional packages that are not installed are recorded as ``null``.
    """
    names = dict.fromkeys(PACKAGES + OPTIONAL_PACKAGES + tuple(more))
    return {
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "machine": platform.machine(),
        "trecbench": __version__,
        "packages": {name: _version(name) for name in names},
    }


def git_commit(cwd: str | os.PathLike | None = None) -> dict | None:
    """``{"commit": sha, "dirty": bool}`` of the git work tree holding ``cwd``, else None.

    ``dirty`` is true when tracked files differ from the commit (untracked files are
    ignored). No git, no repository or any git failure gives None, never an error.
    """
    import subprocess  # only reports ask: kept off the start-up path

    def git(*args: str) -> str | None:
        try:
            done = subprocess.run(
                ["git", *args],
                cwd=cwd,
                capture_output=True,
                text=True,
                timeout=10,
                check=False,
            )
        except (OSError, subprocess.SubprocessError):
            return None
        return done.stdout if done.returncode == 0 else None

    commit = git("rev-parse", "--verify", "HEAD")
    if commit is None:
        return None
    status = git("status", "--porcelain", "--untracked-files=no")
    return {"commit": commit.strip(), "dirty": bool(status and status.strip())}
