"""The files of a run scored on Dask (:mod:`trecbench.dask`): a path, a glob, a folder or
a list of them, each a regular file the workers can open again, and its format (whether
Dask reads it in partitions). Without Dask itself: the client checks them before any
task is sent."""

from __future__ import annotations

import glob
import os
import sys
from collections.abc import Iterable, Mapping
from typing import Any

from . import outputs
from .errors import InputError, UsageError
from .type_names import python_type

# bytes of text per topic partition of the files a worker reads whole (TREC text): a file
# is read by one worker, then its topics are shuffled into partitions of about this much,
# so that their scoring is spread over the workers and its bar moves as they finish (an
# 85 MB run in one partition sat at 0/1 partitions for 5.8 s); compressed files count
# trecbench.memory.COMPRESSION_RATIO times their bytes
TEXT_PARTITION_BYTES = 16 << 20


def naming_path(data: Any) -> str | None:
    """What a run given as ``data`` is named by when it is more than one file
    (:func:`trecbench.naming.run_names` names it as a file): a folder by itself, a glob by
    itself, or by the folder it searches where its file names are wildcards alone
    (``shards/*.parquet``: shards, not ``*``); None for a list or a DataFrame."""
    if not isinstance(data, (str, os.PathLike)):
        return None
    text = os.fspath(data)
    folder, name = os.path.split(text.rstrip("/"))
    if not glob.has_magic(name) or name.split(".")[0].strip("*?"):
        return text
    # a glob of the current folder (*.run, ./*.run, x/../*.run) names no folder: run1..N
    folder = os.path.normpath(folder) if folder else folder
    return folder if os.path.basename(folder) not in ("", ".", "..") else None


def run_files(data: Any) -> list[str]:
    """The files of a path, a glob, a folder (every file below it, sorted) or a list of them; a
    :class:`UsageError` naming what else ``data`` is (a pandas DataFrame's column names
    were read as files)."""
    items = [data] if isinstance(data, (str, os.PathLike)) else _paths(data)
    files: list[str] = []
    for item in items:
        text = os.fspath(item)
        if os.path.isdir(text):
            found = _folder_files(text)
            if not found:  # as a glob matching nothing, not "needs at least one file"
                raise InputError(text, None, "no file in this folder")
            files += found
        elif glob.has_magic(text) and not os.path.exists(text):
            found = sorted(glob.glob(text))
            if not found:
                raise InputError(text, None, "no file matches")
            files += found
        else:
            files.append(text)
    if not files:
        raise UsageError("a Dask run needs a DataFrame or at least one file")
    for path in files:  # read by the workers, not here: recorded so no output replaces one
        check_regular(path)
        outputs.note_input(path)
    return files


def _folder_files(folder: str) -> list[str]:
    """Every entry of ``folder`` and of its subfolders (a Hive or Spark layout,
    ``run/b=1/part-0.parquet``) but the folders themselves, in name order, names starting
    with ``.`` or ``_`` left out as Arrow's and Dask's readers leave them out (``_SUCCESS``,
    ``_metadata``, a failed job's ``_temporary``). A subfolder's files were left out
    without a word, and so were broken links and pipes, which :func:`check_regular` and
    the readers now refuse as they refuse them matched by a glob; a folder that cannot be
    listed is refused, and one reached again by a link (a loop) read once."""
    found: list[str] = []
    seen: set[tuple[int, int]] = set()
    pending = [folder]
    while pending:
        top = pending.pop()
        try:
            status = os.stat(top)
            if (status.st_dev, status.st_ino) in seen:
                continue
            seen.add((status.st_dev, status.st_ino))
            entries = list(os.scandir(top))
        except OSError as error:
            raise InputError.unreadable(top, error) from None
        for entry in entries:
            if entry.name.startswith((".", "_")):
                continue
            if _is_folder(entry):
                pending.append(entry.path)
            else:
                found.append(entry.path)
    return sorted(found)


def _is_folder(entry: os.DirEntry) -> bool:
    """Whether ``entry`` is a folder, or a link to one (a broken link is no folder)."""
    try:
        return entry.is_dir(follow_symlinks=True)
    except OSError:
        return False


def check_regular(path: str) -> None:
    """Refuse, before anything opens it, a run that is not a regular file (standard input,
    a pipe, ``<(...)``): the workers read a run's files, each opening it again, where a
    pipe can be read once and ``/dev/fd/N`` is this process's alone."""
    import stat

    try:
        mode = None if path == "-" else os.stat(path).st_mode
    except OSError:
        return  # a missing file: the reader says so
    if mode is not None and stat.S_ISDIR(mode):
        # a glob's match (shards/* over a subfolder): not a pipe, nor to be written to a file
        raise InputError(path, None, "a folder, not a run file: give the run's files")
    if mode is None or not stat.S_ISREG(mode):
        what = "standard input" if path == "-" else "not a regular file (a pipe?)"
        raise InputError(
            path,
            None,
            f"{what}: a run on Dask is read by the workers, from files; "
            "write it to a file, or score it in this process, not on Dask",
        )


def partitioned(path: str) -> bool:
    """Whether the file's format gives Dask partitions of it (Parquet's row groups);
    others are read whole by one worker a file, as ``score`` reads them."""
    return file_format(path).can("dask_frame")


def file_format(path: str):
    """The format of the file ``path`` (:mod:`trecbench.inputs.formats`)."""
    from .inputs.streams import sniff

    try:
        return sniff(path)[1]
    except OSError as exc:
        raise InputError.unreadable(path, exc) from None


def text_partitions(files: list[str] | None) -> int:
    """The topic partitions of a run's files when its files are read whole (not all of them
    Parquet): one per :data:`TEXT_PARTITION_BYTES` of each file's text, at least one a
    file; 0 for a frame and for Parquet files, which Dask partitions itself."""
    from .inputs.streams import sniff
    from .memory import COMPRESSION_RATIO

    if not files or all(partitioned(path) for path in files):
        return 0
    count = 0
    for path in files:
        try:
            size, compression = os.path.getsize(path), sniff(path)[0]
        except OSError as exc:
            raise InputError.unreadable(path, exc) from None
        size *= COMPRESSION_RATIO if compression else 1
        count += max(1, -(-size // TEXT_PARTITION_BYTES))
    return count


def _paths(data: Any) -> list:
    """``data``, paths in an iterable (a list, a generator of ``Path.glob``), as a list;
    a :class:`UsageError` naming what it is otherwise."""
    pandas = sys.modules.get("pandas")  # a frame given means pandas is imported
    if pandas is not None and isinstance(data, pandas.DataFrame):  # a subclass too
        raise UsageError(
            "a Dask run is a Dask DataFrame or files, not a pandas DataFrame: give "
            "dask.dataframe.from_pandas(frame, npartitions=N), or score it with "
            "trecbench.evaluate"
        )
    expected = "a Dask run is a Dask DataFrame, a path, a glob, a folder or a list of paths"
    if isinstance(data, (Mapping, bytes)) or not isinstance(data, Iterable):
        raise UsageError(f"{expected}, not {python_type(data)}")
    items = list(data)
    for item in items:
        if not isinstance(item, (str, os.PathLike)):
            raise UsageError(f"{expected}, not a list holding {python_type(item)}")
    return items


def worker_path(path: str) -> str:
    """Where a worker opens ``path``: from the client's working folder. A scheduler's
    workers run in folders of their own, where a relative path opened another file of
    that name (scored, exit 0) or none; the path is still named as given. Joined, not
    normalised: ``link/../x`` is where the link's target's parent holds ``x``, as the
    system resolves it (os.path.abspath drops ``link/..`` unread)."""
    return os.path.join(os.getcwd(), path)


def named_as_given(error: InputError, opened: str, given: str) -> InputError:
    """``error`` of the file opened as ``opened`` named as the user gave it (``given``)."""
    return error.moved(given, error.line) if error.path == opened != given else error
