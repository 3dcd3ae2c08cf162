"""How an :class:`~trecbench.outputs.OutputSet` puts its files in place: folder locks,
staging folders, one journal for the whole set, and signals held off while files are
renamed.

For every folder an output set writes into:

1. the folder is **locked** (``flock`` on the folder itself, exclusive) from the first file
   staged in it until the set is published or abandoned: two calls writing into one folder
   take turns (the second waits; it fails in one line only when it already holds another
   folder and the wait exceeds :data:`WAIT_HOLDING` seconds, which is how two sets locking
   two folders in opposite orders cannot wait for each other for ever);
2. a fresh **staging folder** ``.trecbench-stage.XXXX`` is made inside it, and every file
   is written there under its own name (``new/NAME``), created with mode 0666 for the
   kernel to apply the umask: nothing reads or changes the process-wide umask;
3. at the commit, a hard link (else a copy) to each target it replaces is kept
   (``old/NAME``, to undo a failed rename); every staging folder but the first one's gets
   a note (``set``) of where the set's journal is, and then the first folder's staging
   folder gets the **journal** (``journal``, by rename: it exists whole or not at all),
   which names every folder of the set, its staging folder and its files — the one commit
   point of the whole set, however many folders it spans;
4. then every staged file is renamed over its target, with SIGINT, SIGTERM and SIGHUP held
   off (:func:`signals_held`): a signal that lands meanwhile takes effect once every file
   is in place and the staging folders are gone.

A rename that fails puts back what the others replaced (the journal removed first). A
process killed outright (SIGKILL; power loss is not covered: nothing is fsynced) leaves
staging folders: the next output set locking **any** folder of the set finishes the whole
set (:func:`recover`), before the call looks at the folder's files: a staging folder whose
set's journal exists (its own, or the one its ``set`` note points to, naming it) was
committed, and the files still staged in every folder the journal names are renamed into
place, each of those folders locked meanwhile, the staging folders removed, the journal's
last; without a journal, nothing was replaced, and the staging folder is removed. Old or
new, never a mix, across every folder of the set. Calls that look at a folder before
writing into it (an earlier call's files, refused) finish it first (:func:`settle`).
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import shutil
import signal
import stat
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

from .errors import OutputError, UsageError, one_line

try:
    import fcntl
except ImportError:  # not POSIX: no locks
    fcntl = None

STAGE_PREFIX = ".trecbench-stage."
JOURNAL = "journal"
SET = "set"  # in every staging folder of a set but the first: where the set's journal is
NEW, OLD = "new", "old"
WAIT_HOLDING = 10.0  # seconds a set that holds another folder waits for one more
HELD_OFF = tuple(
    getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)
)

# folders locked by this process, (st_dev, st_ino) -> the thread holding the lock
_held: dict[tuple[int, int], int] = {}
_held_guard = threading.Lock()
_UNSUPPORTED = {errno.ENOLCK, errno.EBADF, errno.EINVAL, errno.EOPNOTSUPP, errno.ENOSYS}


class FolderLock:
    """An exclusive ``flock`` on a folder, taken by :meth:`acquire` (``locked`` is False
    where the file system has no locks: NFS without lockd, or not POSIX)."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.fd: int | None = None
        self.locked = False

    def acquire(self, holding_others: bool) -> None:
        """Take the lock, waiting for another call's set (at most :data:`WAIT_HOLDING`
        seconds when ``holding_others``). However it ends (an error, a signal),
        :meth:`release` releases what it took."""
        flags = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0)
        try:
            with signals_held():  # the descriptor noted as it is opened, for release()
                self.fd = os.open(self.folder, flags)
        except OSError as error:
            raise OutputError(f"{self.folder}: cannot write here ({error.strerror})") from None
        info = os.fstat(self.fd)
        self.key = (info.st_dev, info.st_ino)
        with _held_guard:
            owner = _held.get(self.key)
        if owner == threading.get_ident():
            self.release()
            raise OutputError(f"{self.folder}: another output set of this thread is writing here")
        try:
            self.locked = _flock(self.fd, self.folder, WAIT_HOLDING if holding_others else None)
        except BaseException:
            self.release()
            raise
        if self.locked:
            with _held_guard:
                _held[self.key] = threading.get_ident()

    def release(self) -> None:
        if self.fd is None:
            return
        if self.locked:
            with _held_guard:
                _held.pop(self.key, None)
        # forgotten before it is closed: a second call never closes a number reused since
        fd, self.fd, self.locked = self.fd, None, False
        os.close(fd)  # closing the only descriptor releases the lock


def _flock(fd: int, folder: Path, timeout: float | None) -> bool:
    """Lock ``fd`` exclusively, waiting without end (``timeout`` None) or polling up to
    ``timeout`` seconds; False where locks are not supported."""
    if fcntl is None:
        return False
    try:
        if timeout is None:
            fcntl.flock(fd, fcntl.LOCK_EX)
            return True
        deadline, pause = time.monotonic() + timeout, 0.005
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return True
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise OutputError(
                        f"{folder}: another trecbench call has been writing here for "
                        f"{timeout:g} s; try again when it ends"
                    ) from None
                time.sleep(pause)
                pause = min(pause * 2, 0.2)
    except OSError as error:
        if error.errno in _UNSUPPORTED:
            return False
        raise OutputError(f"{folder}: cannot lock ({error.strerror})") from None


def not_made(folder: Path, error: OSError) -> str:
    """Why a file or folder could not be made in ``folder`` (the staging folder, a folder
    on an output's path): the system's words, but
    for "No such file or directory" of a folder that is there (a file system of the
    kernel's, as /proc: it makes no file at a name asked)."""
    if error.errno == errno.ENOENT and os.path.isdir(folder):
        return "this file system makes no new files"
    return error.strerror


class Stage:
    """The staging folder of one output folder (which the caller has made): files are
    created in it and renamed from it into the folder. Nothing is made until
    :meth:`open`, so that the caller can note the stage first: :meth:`close` then undoes
    whatever part of :meth:`open` ran, however it ended (a signal included)."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.lock = FolderLock(folder)
        self.path: Path | None = None
        self.names: list[str] = []
        self.published: list[tuple[str, Path | None]] = []
        self.members: Sequence[Stage] = (self,)  # the set's stages, the journal's first

    def open(self, holding_others: bool) -> None:
        """Lock the folder, finish what killed processes left in it, make the staging
        folder."""
        self.lock.acquire(holding_others)
        try:
            if self.lock.locked:
                recover(self.folder)  # what a killed process left, now none can be staging
            with signals_held():  # the folder noted as it is made: close() removes it
                # named from the folder as given (Python 3.12's mkdtemp makes it absolute),
                # as longest_path() says
                made = tempfile.mkdtemp(prefix=STAGE_PREFIX, dir=self.folder)
                self.path = self.folder / os.path.basename(made)
            (self.path / NEW).mkdir()
        except OSError as error:
            self.close()
            raise OutputError(
                f"{self.folder}: cannot write here ({not_made(self.folder, error)})"
            ) from None

    @staticmethod
    def longest_path(folder: Path, name: str) -> Path:
        """The longest path a set staging a file ``name`` into ``folder`` opens: its staged
        copy (or backup) or the journal written aside, the staging folder's random part
        (``mkdtemp``'s eight characters) as ``X``."""
        stage = folder / f"{STAGE_PREFIX}XXXXXXXX"
        paths = (stage / NEW / name, stage / f"{JOURNAL}.tmp")
        return max(paths, key=lambda path: len(os.fsencode(path)))

    def create(self, name: str) -> tuple[int, Path]:
        """A new file to stage as ``name``: its descriptor and path (mode 0666 less the
        umask, applied by the kernel: what ``open()`` would give the target)."""
        path = self.path / NEW / name
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
        fd = os.open(path, flags, 0o666)
        self.names.append(name)
        return fd, path

    def prepare(self) -> None:
        """Keep every target to be replaced (:func:`_keep_old`); then, in the set's first
        stage, write the journal naming every stage of the set (:attr:`members`) and
        its files — the commit point — in every other one a note of where it is."""
        (self.path / OLD).mkdir()
        for name in self.names:
            _keep_old(self.folder / name, self.path / OLD / name, self.path / NEW / name)
        first = self.members[0]
        if first is self:
            base = os.path.realpath(self.folder)
            entries = [
                [
                    os.path.relpath(os.path.realpath(stage.folder), base),
                    stage.path.name,
                    stage.names,
                ]
                for stage in self.members
            ]
            _write_whole(self.path / JOURNAL, {"set": entries})
        else:
            where = os.path.relpath(os.path.realpath(first.path), os.path.realpath(self.folder))
            _write_whole(self.path / SET, where)

    def rename(self) -> None:
        """Rename every staged file over its target."""
        for name in self.names:
            backup = self.path / OLD / name
            os.replace(self.path / NEW / name, self.folder / name)
            self.published.append((name, backup if os.path.lexists(backup) else None))

    def undo(self) -> None:
        """Put back what :meth:`rename` replaced (the journal first: a crash meanwhile
        must not complete a set being undone)."""
        with contextlib.suppress(OSError):
            os.unlink(self.path / JOURNAL)
        for name, backup in reversed(self.published):
            with contextlib.suppress(OSError):
                if backup is not None:
                    os.replace(backup, self.folder / name)
                else:
                    os.unlink(self.folder / name)
        self.published = []

    def close(self) -> None:
        """Remove the staging folder and release the folder's lock."""
        if self.path is not None:
            shutil.rmtree(self.path, ignore_errors=True)
        self.lock.release()


def _keep_old(target: Path, backup: Path, staged: Path) -> None:
    """Keep ``target`` (a file to be replaced; nothing when there is none) as ``backup``, to
    put back if a later rename of the set fails: a hard link, else a copy (a file system
    without hard links; a file of another user, where the kernel protects such links). An
    OSError when neither can be made: the set is refused before anything is replaced (it
    once went on without a backup, and undoing it deleted the file it had replaced).

    ``staged``, the file that replaces it, gets its permission bits: a report kept private
    (0600) stays so when written again, as a file rewritten in place would (the new file
    had 0666 less the umask)."""
    try:
        os.link(target, backup, follow_symlinks=False)
    except FileNotFoundError:
        return
    except OSError:
        with contextlib.suppress(FileNotFoundError):  # gone meanwhile: nothing to keep
            shutil.copyfile(target, backup, follow_symlinks=False)
    with contextlib.suppress(FileNotFoundError):
        os.chmod(staged, stat.S_IMODE(os.stat(target, follow_symlinks=False).st_mode) & 0o777)


def publish(stages: Sequence[Stage]) -> None:
    """Commit staged files: every stage prepared, the first one last (its journal, naming
    them all, is the commit point), then every rename; on a failure, undo them all (the
    journal removed first) and raise. Call it with signals held off (:func:`signals_held`)."""
    stages = list(stages)
    for stage in stages:
        stage.members = stages
    try:
        for stage in stages[1:]:
            stage.prepare()
        stages[0].prepare()
        for stage in stages:
            stage.rename()
    except BaseException:
        with contextlib.suppress(OSError, TypeError):
            os.unlink(stages[0].path / JOURNAL)
        for stage in reversed(stages):
            stage.undo()
        raise


def _write_whole(path: Path, value) -> None:
    """Write ``value`` as JSON into ``path``, whole or not at all (written aside, renamed)."""
    temporary = path.with_name(f"{path.name}.tmp")
    try:
        temporary.write_text(json.dumps(value))
    except OSError as error:  # a write's error names no file: the set says its folder
        if error.filename is None:
            error.filename = os.fspath(temporary)
        raise
    os.rename(temporary, path)


def refuse_unwritable_name(path: str | bytes | os.PathLike) -> None:
    """Refuse an output's name that no file can be written at, whatever is on disk: empty,
    holding a NUL byte, ``-`` (standard input to every reader), a folder's (a last slash,
    ``.`` or ``..``), relative once the working folder is removed, or through a missing
    folder and ``..``."""
    name = os.fsdecode(path)
    if not name:
        raise OutputError("an empty file name: give the file to write")
    if "\0" in name:  # the system's calls raised a bare ValueError ("embedded null byte")
        raise OutputError(f"{one_line(name)}: a file name cannot hold a NUL byte")
    if path in ("-", b"-"):  # readers' standard input (a Path: ./- too, a file: passes)
        raise OutputError("-: give a file name (this output cannot go to standard output)")
    if name.endswith(("/", os.sep)):  # Path() would drop it: open("f/") is ENOTDIR
        raise OutputError(f"{name}: ends in a slash, a folder's name; give a file name")
    last = os.path.basename(name)
    if last in (".", "..") and last != name:  # Path() drops a last ".": f/. wrote the file f
        raise OutputError(f"{name}: ends in {last}, a folder's name; give a file name")
    refuse_lost_working_folder(name)
    refuse_missing_before_up(name)


# what a page written uncompressed is, and the suffix to name it with (score --html too)
HTML_PAGE = ("an HTML page", ".html")


def refuse_compressed_name(path: str | os.PathLike, written: tuple[str, str]) -> None:
    """Refuse (a usage error) a name ending in a compression suffix for an output written
    uncompressed, ``written`` saying what it is and its suffix (:data:`HTML_PAGE`): every
    reader told it compressed by its name (``zcat``, a browser)."""
    from .compressions import SUFFIXES

    name = os.fsdecode(path)
    found = next((s for s in SUFFIXES if name.lower().endswith(s)), None)
    if found is not None:
        raise UsageError(
            f"{one_line(name)}: trecbench writes {written[0]} here, uncompressed, not "
            f"{found[1:]}: name it otherwise ({written[1]})"
        )


def refuse_lost_working_folder(name: str) -> None:
    """Refuse a relative target ``name`` once the working folder was removed (``getcwd``
    fails): nothing can be made there, and spelling it out (``realpath``, ``relpath``)
    failed later, without a path ("No such file or directory"; convert's after its work)."""
    if os.path.isabs(name):
        return
    try:
        os.getcwd()
    except OSError:
        raise OutputError(
            f"{name}: cannot write here ({os.strerror(errno.ENOENT)}: the working folder "
            "was removed; give an absolute path)"
        ) from None


def refuse_missing_before_up(name: str) -> None:
    """Refuse a target named through a folder that does not exist and then ``..``
    (``sub/../a.json``): the set made ``sub`` to write through it and removed it once
    empty, so the path it printed and recorded in the manifest opened nothing."""
    parts = Path(name).parts
    for i in range(1, len(parts)):
        before = os.path.join(*parts[:i])
        if parts[i] == ".." and not os.path.lexists(before):
            raise OutputError(
                f"{name}: the folder {before} does not exist, so {before}/.. names no "
                "folder; give the path without it"
            )


def refuse_sticky(target: Path, info: os.stat_result) -> None:
    """Refuse ``target`` (``info``: its ``lstat``) when its folder has the sticky bit
    (``/tmp``) and neither the file nor the folder is this user's: the kernel refuses the
    rename over it (EPERM) to all but a process with CAP_FOWNER, and that was found at
    the commit, once the results were printed (exit 2 after them)."""
    try:
        folder = os.stat(target.parent)
    except OSError:  # the write says
        return
    uid = getattr(os, "geteuid", lambda: info.st_uid)()
    if not folder.st_mode & stat.S_ISVTX or uid in (info.st_uid, folder.st_uid):
        return
    if uid == 0 and _fowner():
        return
    raise OutputError(
        f"{target}: cannot write here ({os.strerror(errno.EPERM)}: a file of another user, "
        "in a folder with the sticky bit)"
    )


def _fowner() -> bool:
    """Whether this process has CAP_FOWNER (Linux's /proc), True where that cannot be
    told: root, then, is taken to have it, and the rename says if not."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            line = next(line for line in status if line.startswith("CapEff:"))
        return bool(int(line.split()[1], 16) >> 3 & 1)  # CAP_FOWNER is capability 3
    except (OSError, ValueError, StopIteration, IndexError):
        return True


def recover(folder: Path) -> None:
    """Finish what killed processes left in ``folder`` (which the caller has locked): a
    staging folder whose set was committed (:func:`_committed_set`) finishes the whole set,
    in every folder of it (:func:`_finish`); one whose set was not is removed (nothing had
    been replaced)."""
    try:
        entries = [e.name for e in os.scandir(folder) if e.name.startswith(STAGE_PREFIX)]
    except OSError:
        return
    for name in entries:
        stage = folder / name
        if not _ours(stage):
            continue  # not ours to finish: another user's, or a folder of that name
        members = _committed_set(folder, stage)
        if members:
            _finish(folder, members)
        shutil.rmtree(stage, ignore_errors=True)


def settle(folder: Path) -> None:
    """Finish what killed processes left in ``folder`` now, the folder locked meanwhile
    (waiting for a call writing there): for a call that looks at the folder's files before
    it writes into it. A folder this thread holds was finished as it was locked; a missing
    one has nothing to finish."""
    if not os.path.isdir(folder):
        return
    with _held_guard:  # waiting without end while holding a folder could be for ever
        holding = threading.get_ident() in _held.values()
    lock = _lock_unless_held(Path(folder), holding_others=holding)
    if lock is None:
        return
    try:
        if lock.locked:
            recover(Path(folder))
    finally:
        lock.release()


Member = tuple[Path, Path, list[str]]  # a folder of a set, its staging folder, its files


def _committed_set(folder: Path, stage: Path) -> list[Member]:
    """The set ``stage`` (in ``folder``) belongs to, as its journal names it, the
    journal's stage first; empty when not committed: no journal (none written yet, or
    the set was finished and its journal's stage removed), or one not naming ``stage``."""
    first = stage
    try:
        if os.path.lexists(stage / SET):
            where = json.loads((stage / SET).read_text())
            first = Path(os.path.normpath(Path(os.path.realpath(folder)) / where))
            if not first.name.startswith(STAGE_PREFIX) or not _ours(first):
                return []
        journal = json.loads((first / JOURNAL).read_text())
        if isinstance(journal, list):  # one folder's, as trecbench wrote it before sets
            journal = {"set": [[".", first.name, journal]]}
        base = Path(os.path.realpath(first.parent))  # the journal's paths are from there
        members = [
            (Path(os.path.normpath(base / where)), Path(os.path.normpath(base / where)) / name,
             [str(file) for file in files])
            for where, name, files in journal["set"]
        ]  # fmt: skip
    except (OSError, ValueError, TypeError, KeyError):
        return []
    if not any(_same(staged, stage) for _, staged, _ in members):
        return []
    for _, staged, files in members:
        if not staged.name.startswith(STAGE_PREFIX) or any(
            os.sep in name or name in ("", ".", "..") for name in files
        ):
            return []
    return members


def _finish(folder: Path, members: Sequence[Member]) -> None:
    """Rename the files still staged in every folder of a committed set into place, each
    folder but ``folder`` (which the caller holds) locked meanwhile; then remove the
    staging folders, the journal's (the first) last: a kill meanwhile leaves it, to be
    finished again."""
    locks: list[FolderLock] = []
    try:
        for target, staged, _ in members:
            if os.path.lexists(staged) and not _same(target, folder):
                try:
                    lock = _lock_unless_held(target, holding_others=True)
                except OutputError:  # said as what this call was doing: finishing the set
                    raise OutputError(
                        f"{folder}: an interrupted trecbench call's output set here spans "
                        f"{target} too, which another trecbench call has held for "
                        f"{WAIT_HOLDING:g} s; the set is finished by the next call: try "
                        "again when that call ends"
                    ) from None
                if lock is not None:
                    locks.append(lock)
        for target, staged, files in members:
            if not _ours(staged):
                continue  # finished already, or not ours
            for name in files:
                with contextlib.suppress(OSError):  # renamed already
                    os.replace(staged / NEW / name, target / name)
        for _, staged, _ in [*members[1:], members[0]]:
            if _ours(staged):
                shutil.rmtree(staged, ignore_errors=True)
    finally:
        for lock in locks:
            lock.release()


def _lock_unless_held(folder: Path, holding_others: bool) -> FolderLock | None:
    """``folder``'s lock, taken (see :meth:`FolderLock.acquire`); None if this thread holds
    it already, or it cannot be opened."""
    try:
        info = os.stat(folder)
    except OSError:
        return None
    with _held_guard:
        if _held.get((info.st_dev, info.st_ino)) == threading.get_ident():
            return None
    lock = FolderLock(folder)
    lock.acquire(holding_others)
    return lock


def _same(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _ours(stage: Path) -> bool:
    """A staging folder of this user's, holding only what one holds."""
    return _own_private_folder(stage) and _staged_only(stage)


def _staged_only(stage: Path) -> bool:
    """Whether ``stage`` holds only what a stage holds (its new and old files, the
    journal): a folder that merely has the name (a user's, with files of theirs) is never
    removed."""
    try:
        return set(os.listdir(stage)) <= {NEW, OLD, JOURNAL, f"{JOURNAL}.tmp", SET, f"{SET}.tmp"}
    except OSError:
        return False


def _own_private_folder(path: Path) -> bool:
    """A folder (not a link to one) of this user that no one else may write into, as
    ``mkdtemp`` makes them: in a shared folder, a staging folder planted by another user
    must not get its files renamed over this user's."""
    try:
        info = os.lstat(path)
    except OSError:
        return False
    owner = getattr(os, "geteuid", lambda: info.st_uid)()
    return stat.S_ISDIR(info.st_mode) and info.st_uid == owner and not info.st_mode & 0o022


@contextlib.contextmanager
def signals_held(numbers: tuple[int, ...] = HELD_OFF) -> Iterator[list[int]]:
    """Hold the signals ``numbers`` (SIGINT, SIGTERM and SIGHUP) off inside the block,
    then deliver what came (to the handlers of before); the block gets the list of those
    caught so far (a long job that can stop early looks at it). A signal ignored (SIG_IGN:
    ``nohup``) stays ignored. Only the main thread has signal handlers: elsewhere the
    block runs as it is (signals are delivered to the main thread, which does not
    interrupt this one), its list empty."""
    caught: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield caught
        return
    previous = {}
    try:  # a signal landing as the handlers are swapped (SIGTERM's SystemExit) still has
        # those swapped so far put back: Ctrl-C was otherwise caught, into nothing, for ever
        for number in numbers:
            handler = signal.getsignal(number)
            if handler is signal.SIG_IGN:
                continue
            previous[number] = handler  # noted before it is replaced
            try:
                signal.signal(number, lambda number, frame: caught.append(number))
            except (ValueError, OSError):
                del previous[number]
        yield caught
    finally:
        for number, handler in previous.items():
            signal.signal(number, signal.SIG_DFL if handler is None else handler)
        for number in dict.fromkeys(caught):
            signal.raise_signal(number)
