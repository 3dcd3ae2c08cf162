"""Every file trecbench writes goes through here.

Three rules hold for every output of every command and API function:

* **Only regular files are replaced.** A target that exists must be a regular file: a
  device node (``/dev/null``), a FIFO, a directory, a socket or a symbolic link (whose
  target may lie anywhere) is refused, never replaced.
* **Inputs are never touched.** Every file read during a call is noted
  (:func:`note_input`, called by the readers themselves); a target that is one of them —
  same path, or same file through another name — is refused. Callers may name more
  inputs explicitly.
* **All or nothing.** An :class:`OutputSet` stages its files in a staging folder beside
  their targets, each folder it writes into locked; :meth:`OutputSet.commit` renames them
  into place together, with signals held off, and, if one rename fails, puts back what the
  others replaced (:mod:`trecbench.publication`). On an error, SIGTERM, SIGHUP or SIGINT
  before the commit, the staged files (and folders the set created) are removed. A set
  spanning several folders has one journal, one commit point: a process killed mid-commit
  leaves the old set or the new one in every folder, once the next call locking any of
  them (or looking at its files first: :func:`settle`) has finished it.

Errors are :class:`~trecbench.errors.OutputError` (exit 2) with the path in the message.
"""

from __future__ import annotations

import contextlib
import contextvars
import errno
import functools
import os
import stat
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import IO, ParamSpec, TypeVar

from . import provenance, publication, standard_output
from .errors import OutputError, UsageError
from .naming import file_key, listed
from .output_identity import inside, same_target
from .plurals import few_and_more
from .publication import HTML_PAGE as HTML_PAGE  # what write_file is told it writes
from .signals import SignalGuard, raise_landed
from .text_bytes import utf8

PathLike = str | os.PathLike
P = ParamSpec("P")
R = TypeVar("R")

# the sets whose commit waits for the end of a :func:`commits_held` block, if one is open
_held: contextvars.ContextVar[list[OutputSet] | None] = contextvars.ContextVar(
    "trecbench_commits_held", default=None
)
# (st_dev, st_ino) and resolved paths of the files read in the current call
_inputs: contextvars.ContextVar[tuple[set, set] | None] = contextvars.ContextVar(
    "trecbench_inputs", default=None
)


@contextlib.contextmanager
def input_scope() -> Iterator[None]:
    """Collect the files read inside the block as the call's inputs (nested scopes join the
    outermost one). Commands and API entry points open one; readers call
    :func:`note_input`."""
    if _inputs.get() is not None:
        yield
        return
    token = _inputs.set((set(), set()))
    try:
        with provenance.record_scope():  # and their checksums, taken as they were read
            yield
    finally:
        _inputs.reset(token)


def in_input_scope(function: Callable[P, R]) -> Callable[P, R]:
    """Decorator for API entry points: the call runs in an :func:`input_scope`."""

    @functools.wraps(function)
    def scoped(*args: P.args, **kwargs: P.kwargs) -> R:
        with input_scope():
            return function(*args, **kwargs)

    return scoped


def note_input(path: PathLike) -> None:
    """Record ``path`` as an input of the current call (no-op outside :func:`input_scope`);
    refuse it if the command line's standard output writes into it
    (:func:`trecbench.standard_output.check_input`)."""
    standard_output.check_input(path)
    scope = _inputs.get()
    if scope is None:
        return
    identities, resolved = scope
    _note(path, identities, resolved)


def _note(path: PathLike, identities: set, resolved: set) -> None:
    """Add ``path``'s (device, inode) and resolved name (``-``: standard input's file)."""
    key = file_key(path)
    if key is not None:
        identities.add(key)
    if os.fspath(path) != "-":
        with contextlib.suppress(OSError, RuntimeError, ValueError):  # ValueError: a NUL
            resolved.add(str(Path(path).resolve()))


def _is_input(target: Path, info: os.stat_result | None, extra: Iterable[PathLike]) -> bool:
    identities, resolved = _inputs.get() or (set(), set())
    identities, resolved = set(identities), set(resolved)
    for path in extra:
        if path is not None:  # None: an optional input not given
            _note(path, identities, resolved)
    if info is not None and (info.st_dev, info.st_ino) in identities:
        return True
    with contextlib.suppress(OSError, RuntimeError):
        return str(target.resolve()) in resolved
    return False


def working_folder() -> str | None:
    """The working folder now (None when it was removed): where a result made by the
    library read its inputs, for :func:`refuse_other_folder` when it writes later."""
    try:
        return os.getcwd()
    except OSError:
        return None


def refuse_other_folder(read_in: str | None, inputs: Iterable[PathLike | None]) -> None:
    """Refuse (:class:`UsageError`) a result's writing (or reading its inputs again) from
    a working folder other than ``read_in``, the one it read ``inputs`` in, when one of
    them is a relative path: there it names another file, so an input could be written
    over (and another file read) after an ``os.chdir`` between making and writing."""
    now = working_folder()
    if now == read_in:
        return
    relative = next(
        (p for p in inputs if p is not None and os.fspath(p) != "-" and not os.path.isabs(p)),
        None,
    )
    if relative is not None:
        raise UsageError(
            f"the inputs were read in {read_in} ({os.fspath(relative)!r} among them), the "
            f"working folder is now {now}: write (or read them again) from the folder they were "
            "read in"
        )


def check_target(path: PathLike, inputs: Iterable[PathLike] = ()) -> Path:
    """Refuse ``path`` as an output unless it is missing or a regular file that is not an
    input of the call (nor one of ``inputs``, where None stands for an optional input not
    given) nor the file the command line's standard output writes into; return it as a
    :class:`Path`.

    Called by :class:`OutputSet` for every file, and by commands before long work, so that
    a bad output path fails first.
    """
    publication.refuse_unwritable_name(path)
    target = Path(path)
    try:
        info = os.lstat(target)
    except FileNotFoundError:
        info = None
    except NotADirectoryError:
        raise OutputError(f"{target}: a folder on its path is not a directory") from None
    except OSError as error:
        raise OutputError(f"{target}: cannot write here ({error.strerror})") from None
    if info is not None:
        if stat.S_ISLNK(info.st_mode):
            raise OutputError(f"{target}: is a symbolic link; refusing to replace it")
        if stat.S_ISDIR(info.st_mode):
            raise OutputError(f"{target}: is a directory")
        if not stat.S_ISREG(info.st_mode):
            raise OutputError(f"{target}: is not a regular file; refusing to replace it")
    if _is_input(target, info, inputs):
        raise OutputError(f"{target}: refusing to overwrite an input file")
    standard_output.check_output(target, info)
    _check_writable(target)
    if info is not None:
        publication.refuse_sticky(target, info)
    return target


def dangling_folder(folder: Path) -> OutputError:
    """The error of a folder to write into that is a symbolic link to nothing (making
    it would fail once the work is done), or to itself through others: a loop, said as
    the system says it (it was "a folder that does not exist")."""
    try:
        os.stat(folder)
    except OSError as error:
        if error.errno == errno.ELOOP:
            return OutputError(f"{folder}: cannot write here ({error.strerror})")
    return OutputError(f"{folder}: a symbolic link to a folder that does not exist")


def _cannot_write(error: OSError, said: Callable[[str], PathLike] = str) -> OutputError:
    """An OSError of writing, said as the output it failed on (``said``: how the set names
    a path of its staging folders, :meth:`OutputSet._names`), in the system's words."""
    path = None if error.filename is None else said(os.fsdecode(error.filename))
    return OutputError(f"{path or 'output'}: cannot write ({error.strerror})")


def _check_writable(target: Path) -> None:
    """Refuse a target whose folder (its nearest existing one, when folders are to be
    made) this process may not write into: found before the work, not after it has
    printed its results. Checked with the process's effective rights (root without its
    capabilities too); where that cannot be told, the write itself says so. A folder to
    be made that is a symbolic link to nothing could not be made: refused here too. The
    target's own folder is read too (opened to be locked): a folder one may write into
    but not read (mode 0733, a drop box) was refused once the work was done."""
    folder = target.parent
    while not folder.exists() and folder != folder.parent:
        if folder.is_symlink():
            raise dangling_folder(folder)
        folder = folder.parent
    _refuse_long_names(target, folder)
    if os.access not in os.supports_effective_ids or not folder.is_dir():
        return
    rights = os.W_OK | os.X_OK | (os.R_OK if folder == target.parent else 0)
    if not os.access(folder, rights, effective_ids=True):
        raise OutputError(f"{folder}: cannot write here ({_why_not_writable(folder)})")


def _why_not_writable(folder: Path) -> str:
    """Why ``folder`` may not be written into, as the system says it: its file system
    mounted read-only (EROFS, a read-only bind mount: not a matter of rights), else
    permission denied (EACCES). os.access() tells no reason."""
    with contextlib.suppress(OSError, AttributeError):  # no statvfs: the rights it is
        if os.statvfs(folder).f_flag & os.ST_RDONLY:
            return os.strerror(errno.EROFS)
    return os.strerror(errno.EACCES)


def _refuse_long_names(target: Path, folder: Path) -> None:
    """Refuse a name on ``target``'s path below ``folder`` (its nearest existing one) that
    is longer than ``folder``'s file system takes: the system says so of a file in a
    folder that exists, but of one in a folder still to be made only when it is made, once
    the work is done (a plot named after a long stratum in a new ``-o`` folder). So is a
    target whose path fits the system's limit but whose staged copy's does not (it lies
    two folders deeper): it failed once the work was done."""
    too_long = os.strerror(errno.ENAMETOOLONG)
    try:
        limit = os.pathconf(folder, "PC_NAME_MAX")
        below = target.relative_to(folder).parts
    except (OSError, ValueError):  # no limit told, or no folder of it: the write says
        return
    if any(len(os.fsencode(name)) > limit for name in below):
        raise OutputError(f"{target}: cannot write here ({too_long})")
    with contextlib.suppress(OSError):  # no limit told: the write says
        staged = os.fsencode(publication.Stage.longest_path(target.parent, target.name))
        path_limit = os.pathconf(folder, "PC_PATH_MAX")  # with the closing NUL
        if len(staged) >= path_limit:
            raise OutputError(
                f"{target}: cannot write here ({too_long}: staged beside it, in a path of "
                f"{len(staged)} bytes, beyond the {path_limit - 1} a path can have)"
            )


class _Staged:
    """One file of a set: its target, its staged path, its open handle."""

    def __init__(self, target: Path, temporary: Path, handle: IO[bytes]):
        self.target = target
        self.temporary = temporary
        self.handle = handle


def _led(target: Path) -> str:
    """What leads ``target`` out of its output folder when its name lies in it: a symbolic
    link of its folders (`` (a symbolic link leads it to /elsewhere/h.run)``), else ""."""
    with contextlib.suppress(OSError, RuntimeError):
        resolved = target.parent.resolve() / target.name
        if resolved != Path(os.path.normpath(target.parent.absolute())) / target.name:
            return f" (a symbolic link leads it to {resolved})"
    return ""


class OutputSet:
    """Files written as a unit: stage each with :meth:`write` or :meth:`open`, then
    :meth:`commit`. As a context manager it commits on success and discards otherwise.

    ``inputs`` are more paths to protect besides the files read in the current call;
    ``root``, when given, is a folder no target may lie outside of. Each folder written
    into is locked from its first staged file to the end of the commit, and the files are
    staged in a folder of their own beside their targets (:mod:`trecbench.publication`).

    >>> with OutputSet() as out:                    # doctest: +SKIP
    ...     out.write("out/a.qrels", qrels_bytes)
    ...     out.write("out/b.json", report_bytes)
    """

    def __init__(self, inputs: Iterable[PathLike] = (), root: PathLike | None = None):
        # a string is refused, not read as its characters: inputs="run.txt" protected the
        # files "r", "u", "n"... and run.txt was written over
        self.inputs = [Path(p) for p in listed(inputs, "inputs", "paths to protect")]
        self.root = None if root is None else Path(root)
        self._staged: list[_Staged] = []
        self._stages: dict[tuple[int, int], publication.Stage] = {}  # by folder identity
        self._created: list[Path] = []  # folders made for targets, deepest last
        self._signals = SignalGuard()

    # -- staging

    def check(self, path: PathLike) -> Path:
        """Check one target now (see :func:`check_target`) and that it is new to the set."""
        target = check_target(path, self.inputs)
        if self.root is not None and not inside(target, self.root):
            raise OutputError(f"{target}: lies outside the output folder {self.root}{_led(target)}")
        if any(same_target(target, staged.target) for staged in self._staged):
            raise OutputError(f"{target}: written twice by one command")
        return target

    def open(self, path: PathLike) -> IO[bytes]:
        """A binary handle whose content becomes ``path`` at :meth:`commit`."""
        target = self.check(path)
        self._signals.install()
        self._make_parent(target.parent)
        stage = self._stage(target.parent)
        try:
            fd, temporary = stage.create(target.name)
        except OSError as error:
            raise OutputError(f"{target}: cannot write here ({error.strerror})") from None
        staged = _Staged(target, temporary, os.fdopen(fd, "wb"))
        self._staged.append(staged)
        return staged.handle

    def hold(self, folder: PathLike) -> None:
        """Lock ``folder`` now (made if missing), as its first staged file would: what the
        call checks of the folder before writing (an earlier call's files beside its own,
        :func:`refuse_strays`) stays true until the commit, another call writing there
        waiting meanwhile; checked before the lock, a second call into the folder passed
        the check while the first was writing, and replaced the first one's sidecar."""
        folder = Path(folder)
        self._signals.install()
        self._make_parent(folder)
        self._stage(folder)

    def write(self, path: PathLike, data: bytes | str | Iterable[bytes]) -> Path:
        """Stage ``data`` (text is written as UTF-8; an iterable of bytes piece by piece,
        each made as the last is written) as the content of ``path``.

        Returns the staged file: complete and readable until the commit (to validate it
        before anything is put in place, say).
        """
        handle = self.open(path)
        pieces = [data] if isinstance(data, (bytes, str)) else data
        try:
            for piece in pieces:
                handle.write(utf8(piece) if isinstance(piece, str) else piece)
            handle.flush()
        except OSError as error:
            raise OutputError(f"{path}: cannot write ({error.strerror})") from None
        return self._staged[-1].temporary

    @property
    def targets(self) -> list[Path]:
        """The staged targets, in staging order."""
        return [staged.target for staged in self._staged]

    def _stage(self, folder: Path) -> publication.Stage:
        """The staging folder of ``folder``: made (and ``folder`` locked) on first use."""
        try:
            info = os.stat(folder)
        except OSError as error:
            raise OutputError(f"{folder}: cannot write here ({error.strerror})") from None
        key = (info.st_dev, info.st_ino)
        if key not in self._stages:
            holding_others = bool(self._stages)
            # noted before anything is made, so that abort() undoes all open() did, whatever
            # interrupts it (a signal between making the staging folder and noting it
            # left the folder behind)
            self._stages[key] = publication.Stage(folder)
            self._stages[key].open(holding_others)
        return self._stages[key]

    def _make_parent(self, folder: Path) -> None:
        missing = []
        probe = folder
        while not probe.exists():
            missing.append(probe)
            if probe.parent == probe:
                break
            probe = probe.parent
        if probe.exists() and not probe.is_dir():
            raise OutputError(f"{probe}: is not a directory")
        for created in reversed(missing):
            try:
                with publication.signals_held():  # noted as it is made: abort() removes it
                    created.mkdir()
                    self._created.append(created)
            except FileExistsError:
                continue
            except OSError as error:
                why = publication.not_made(created.parent, error)
                raise OutputError(f"{created}: cannot create folder ({why})") from None

    # -- committing

    def commit(self) -> list[Path]:
        """Rename every staged file into place; all of them or, on failure, none (see
        :mod:`trecbench.publication` for what holds when the process is killed)."""
        targets = self.targets
        try:
            self._finish_writing()
            with self._undone_on_failure():
                for staged in self._staged:
                    check_target(staged.target, self.inputs)  # nothing changed meanwhile
            raise_landed()  # a signal whose exception a finalizer's call ignored
            with publication.signals_held():
                try:
                    publication.publish(list(self._stages.values()))
                except OSError as error:
                    raise _cannot_write(error, self._names()) from None
                finally:
                    self._close()
        except BaseException:
            # a signal that landed between the checks and the renames' signals held: the
            # staging folders stayed, the folders locked (the thread's next set into them
            # refused); after the renames (or their undoing) there is nothing left to abort
            self.abort()
            raise
        finally:
            self._signals.remove()
        return targets

    def _finish_writing(self) -> None:
        """Close every staged file, its last bytes written (a full disk fails here, not
        in the renames); on failure remove them all."""
        with self._undone_on_failure():
            for staged in self._staged:
                staged.handle.close()

    @contextlib.contextmanager
    def _undone_on_failure(self):
        """Within: any failure removes every staged file (:meth:`abort`); an OSError is
        said as the output it failed on."""
        try:
            yield
        except BaseException as error:
            names = self._names()  # before abort() forgets them
            self.abort()
            if isinstance(error, OSError):
                raise _cannot_write(error, names) from None
            raise

    def _names(self) -> Callable[[str], PathLike]:
        """How a path in a staging folder is said in an error: a staged file as its
        target (``out/report.html``, not ``out/.trecbench-stage.x/new/report.html``); any
        other (the journal, a target's backup) as the folder staged into. Taken now:
        abort() forgets the staged files."""
        targets = {os.fspath(staged.temporary): staged.target for staged in self._staged}
        stages = [stage for stage in self._stages.values() if stage.path is not None]

        def said(path: str) -> PathLike:
            if path in targets:
                return targets[path]
            for stage in stages:
                if Path(path).is_relative_to(stage.path):
                    return stage.folder
            return path

        return said

    def abort(self) -> None:
        """Remove every staged file and the folders the set created (if still empty)."""
        with publication.signals_held():  # a second Ctrl-C does not cut the clean-up short
            for staged in self._staged:
                with contextlib.suppress(OSError):
                    staged.handle.close()
            self._close()
        self._signals.remove()

    def _close(self) -> None:
        """Remove the staging folders, release the locks, remove the folders made for the
        targets if still empty."""
        for stage in self._stages.values():
            stage.close()
        for folder in reversed(self._created):
            with contextlib.suppress(OSError):
                folder.rmdir()
        self._staged, self._stages, self._created = [], {}, []

    def __enter__(self) -> OutputSet:
        return self

    def __exit__(self, kind, value, traceback) -> None:
        held = _held.get()
        if kind is not None:
            self.abort()
        elif held is None:
            self.commit()
        else:  # written whole now, put in place as the commits_held block ends
            self._finish_writing()
            held.append(self)


@contextlib.contextmanager
def commits_held() -> Iterator[None]:
    """The output sets that end inside the block (``with OutputSet() as out: ...``) are
    written whole, closed, but put in place only as the block ends without an error; on
    an error (or a signal) in the block they are removed, nothing replaced. A command
    prints its standard output in the block after its files are staged: a full disk fails
    before anything is printed, a full standard output before any file is put in place,
    and the renames that follow need no space. The sets are committed in the order they
    ended, each all or nothing; one that fails removes those after it. Nested blocks
    join the outermost one."""
    if _held.get() is not None:
        yield
        return
    pending: list[OutputSet] = []
    token = _held.set(pending)
    try:
        yield
    except BaseException:
        for output_set in pending:
            output_set.abort()
        raise
    finally:
        _held.reset(token)
    for done, output_set in enumerate(pending):
        try:
            output_set.commit()
        except BaseException:
            for later in pending[done + 1 :]:
                later.abort()
            raise


def settle(folder: PathLike) -> None:
    """Finish what a killed call left in ``folder`` (its output set, in every folder of it:
    :func:`trecbench.publication.settle`): done before a call looks at the folder's files,
    so that an earlier call's set is whole, not half old, when it is looked at."""
    publication.settle(Path(folder))


def refuse_strays(
    folder: Path, found: Iterable[Path], written: Iterable[Path], inputs: Iterable, whose: str
) -> None:
    """Refuse a ``folder`` holding files of the kinds a call writes there (``found``) that
    this call does not write (``written``), from another call: they would stay beside the
    new files, describing other runs (a folder half old, half new). The call's ``inputs``
    are none of them."""

    read = {file_key(path) for path in inputs if path is not None} - {None}
    written = {os.path.realpath(path) for path in written}  # however each is spelled
    strays = sorted(
        str(path.relative_to(folder))
        for path in found
        if path.is_file() and os.path.realpath(path) not in written and file_key(path) not in read
    )
    if strays:
        shown = few_and_more(strays)  # the user removes each: how many there are
        raise OutputError(
            f"{folder}: {shown} would stay beside {whose} files, not written by this call "
            "(an earlier one's, describing other runs): remove them or write to another folder"
        )


def write_file(
    path: PathLike, data: bytes | str | Iterable[bytes], inputs: Iterable[PathLike] = (),
    written: tuple[str, str] | None = None,
) -> Path:  # fmt: skip
    """Write one file through an :class:`OutputSet` (atomic, inputs protected); ``data``
    as :meth:`OutputSet.write` takes it; ``written``: what it is, a name saying compressed
    refused (:func:`~trecbench.publication.refuse_compressed_name`)."""
    if written is not None:
        publication.refuse_compressed_name(path, written)
    with OutputSet(inputs) as out:
        out.write(path, data)
    return Path(path)
