"""Scratch folders of large data (a run's spill, the workers' folder) that a killed call
does not leave behind for good.

A folder made here holds a lock file that its process keeps locked (``fcntl.flock``,
exclusive) for as long as the folder lives, and is removed when it is closed, as
``tempfile.TemporaryDirectory`` does. A call killed with SIGKILL (out of memory,
``kill -9``) runs no clean-up, but the kernel drops its lock as the process dies: the
next folder made in the same parent *sweeps* it, removing every folder there with a
trecbench scratch prefix whose lock it can take at once (its owner is gone). Never a
folder without a lock file (one being made, one of an older trecbench), never one whose
lock is held, by whatever process in whatever container shares the folder: no process
ids are compared, which mean nothing across pid namespaces. Where ``fcntl`` is missing
(not POSIX) folders are made and removed as before, and nothing is swept.

The lock file is made under a passing name, locked, then renamed into place, so that a
sweep never finds it unlocked while its folder is in use. A forked child inherits the
lock (the same open file): the folder stays held while any process of the call lives.
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
import weakref
from collections.abc import Iterator
from contextlib import contextmanager

from .errors import OutputError

try:
    import fcntl
except ImportError:  # not POSIX: no lock, no sweep
    fcntl = None  # type: ignore[assignment]


def unwritable(folder: str, what: str, reason: str) -> OutputError:
    """The one line of scratch data (``what``: a spill, a temporary file) that ``folder``
    could not take, ``reason`` the system's words (a full ``TMPDIR``), with the remedies:
    said alike wherever large data goes to disk."""
    return OutputError(
        f"{folder}: cannot write {what} ({reason}); free space in TMPDIR, point TMPDIR to a "
        "larger folder, or give a larger --memory"
    )


# every prefix of trecbench's scratch folders: a sweep removes an abandoned one of each
PREFIXES = ("trecbench-spill-", "trecbench-workers-", "trecbench-convert.", "trecbench-dask-")
LOCK_NAME = ".trecbench-scratch.lock"
_MAKING_LOCK = ".trecbench-scratch.lock.making"


class Scratch:
    """A folder made in ``dir`` (default: ``TMPDIR``) named ``prefix`` and random
    characters, held by this process until :meth:`close` removes it; making it sweeps
    the abandoned scratch folders of ``dir`` first."""

    def __init__(self, prefix: str, dir: str | os.PathLike | None = None) -> None:
        parent = tempfile.gettempdir() if dir is None else os.fspath(dir)
        sweep(parent)
        self.path = tempfile.mkdtemp(prefix=prefix, dir=parent)
        _LIVE.add(self.path)
        try:
            lock = _held_lock(self.path)
        except BaseException:
            _LIVE.discard(self.path)
            shutil.rmtree(self.path, ignore_errors=True)
            raise
        # removed at exit at the latest, as tempfile.TemporaryDirectory is: a spill's
        # generator that a SIGTERM's SystemExit left suspended is never closed
        self._remove = weakref.finalize(self, _removed, self.path, lock)

    def close(self) -> None:
        """The folder removed, then its lock let go (once)."""
        self._remove()


# the scratch folders this process holds (and a forked child inherits): never swept by
# it, though a filesystem that makes flock a POSIX lock (NFS) lets a process take its own
# lock again through a second open
_LIVE: set[str] = set()


def _removed(path: str, lock: int | None) -> None:
    _LIVE.discard(path)
    shutil.rmtree(path, ignore_errors=True)
    if lock is not None:
        # closed, not unlocked: a forked child shares the lock, and LOCK_UN here would
        # drop it for the child as well
        os.close(lock)


@contextmanager
def scratch_folder(prefix: str, dir: str | os.PathLike | None = None) -> Iterator[str]:
    """A :class:`Scratch` folder's path inside the block, removed however it ends."""
    scratch = Scratch(prefix, dir)
    try:
        yield scratch.path
    finally:
        scratch.close()


def _held_lock(folder: str) -> int | None:
    """The lock file of ``folder``, made and locked, as an open descriptor (None without
    ``fcntl``)."""
    if fcntl is None:
        return None
    making = os.path.join(folder, _MAKING_LOCK)
    handle = os.open(making, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    try:
        fcntl.flock(handle, fcntl.LOCK_EX)
    except OSError:  # a filesystem without locks (ENOLCK): a folder no sweep removes
        os.close(handle)
        os.unlink(making)
        return None
    try:
        os.rename(making, os.path.join(folder, LOCK_NAME))
    except BaseException:
        os.close(handle)
        raise
    return handle


def sweep(parent: str) -> list[str]:
    """Every abandoned scratch folder of ``parent`` removed (see the module's words);
    the paths removed. Nothing without ``fcntl``, nothing on any error reading."""
    if fcntl is None:
        return []
    try:
        names = [name for name in os.listdir(parent) if name.startswith(PREFIXES)]
    except OSError:
        return []
    removed = []
    for name in names:
        path = os.path.join(parent, name)
        if path not in _LIVE and _remove_abandoned(path):
            removed.append(path)
    return removed


def _remove_abandoned(path: str) -> bool:
    """``path`` removed if it is a folder of this user's whose lock, and those of the
    scratch folders inside it (a worker's spill in a workers' folder), can be taken."""
    try:
        info = os.lstat(path)
    except OSError:
        return False
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
        return False
    handles = []
    try:
        handle = _taken_lock(path)
        if handle is None:
            return False
        handles.append(handle)
        for name in _listed(path):
            if name.startswith(PREFIXES) and os.path.isdir(os.path.join(path, name)):
                inner = os.path.join(path, name)
                if os.path.lexists(os.path.join(inner, LOCK_NAME)):
                    handle = _taken_lock(inner)
                    if handle is None:  # a process still works in it
                        return False
                    handles.append(handle)
        shutil.rmtree(path, ignore_errors=True)
        return True
    finally:
        for handle in handles:
            os.close(handle)


def _taken_lock(folder: str) -> int | None:
    """The lock file of ``folder`` opened and locked now, or None: no lock file, or its
    lock held (LOCK_NB failed)."""
    try:
        handle = os.open(os.path.join(folder, LOCK_NAME), os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        return None
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(handle)
        return None
    return handle


def _listed(path: str) -> list[str]:
    try:
        return os.listdir(path)
    except OSError:
        return []
