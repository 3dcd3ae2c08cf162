"""Click parameter types for the files a command reads and writes.

Paths are checked while the command line is parsed, so that a bad one fails before any
work, with the exit code every command gives it: 2, as an unreadable input or a refused
output (click's own path checks would make it a usage error, 1). A usage error of the
command line itself (a required option left out, a bad value) is said first: a refused
path is held until the whole line is parsed (:func:`held_refusals`), as click would have
stopped at the usage error before reading any file (a rule between options that a command
checks after parsing comes after the paths' refusals).
"""

from __future__ import annotations

import contextlib
import errno
import os
from collections.abc import Iterator
from pathlib import Path

import click

from .. import standard_output
from ..errors import InputError, OutputError, UsageError
from ..naming import file_path

# where a command's context holds the path refusals of its parsing (held_refusals)
_REFUSED = "trecbench.refused_paths"


@contextlib.contextmanager
def held_refusals(ctx: click.Context) -> Iterator[None]:
    """Parse a command line inside the block: a path the types below refuse is held, its
    value passed on as given, and the first refused is raised once the block ends without
    a usage error (``pool a.run b.run >> b.run``, no -o: click's "Missing option '-o'",
    exit 1, not "input file is standard output", exit 2)."""
    refused: list[Exception] = []
    ctx.meta[_REFUSED] = refused
    try:
        yield
    finally:
        del ctx.meta[_REFUSED]
    if refused:
        raise refused[0]


def _refused(ctx: click.Context | None, error: Exception, value):
    """``value`` for now, ``error`` held, while a command line is parsed (held_refusals);
    ``error`` raised at once elsewhere (a type called outside click's parsing)."""
    held = ctx.meta.get(_REFUSED) if ctx is not None else None
    if held is None:
        raise error
    held.append(error)
    return value


class InputFile(click.ParamType):
    """A file to read: it must exist and not be a folder (pipes and process substitutions,
    ``<(...)``, are files here; nothing is read); ``-`` passes (standard input, which only
    ``score --compat 10.0`` reads, as trec_eval 10.0 does; elsewhere it cannot be read). With
    ``dataset_ids``, also an ir_datasets id, ``irds:ID`` (qrels, which the library reads).
    With ``patterns``, also a glob that names no file here and a folder (``score --dask``'s
    runs, which the library expands, a folder to its files as
    :func:`trecbench.dask_files.run_files` does; without --dask it refuses them as a
    missing file and a folder)."""

    name = "file"

    def __init__(self, path_type=str, dataset_ids: bool = False, patterns: bool = False):
        self.path_type = path_type  # what the command gets: str, or pathlib.Path
        self.dataset_ids = dataset_ids
        self.patterns = patterns

    def convert(self, value, param, ctx):
        try:
            return self._checked(value, param, ctx)
        except (InputError, OutputError) as error:
            return _refused(ctx, error, self.path_type(os.fsdecode(value)))

    def _checked(self, value, param, ctx):
        path = os.fsdecode(value)
        standard_output.check_input(path)  # a path it cannot examine passes
        if path == "-":
            return self.path_type(path)
        if os.path.isdir(path) and not self.patterns:
            raise InputError.unreadable(path, "Is a directory")
        if not os.path.exists(path):
            if self.dataset_ids and _is_dataset_id(path):
                return self.path_type(path)
            if self.patterns and any(c in path for c in "*?["):
                return self.path_type(path)
            if isinstance(param, click.Option):  # --qrels -l: -l taken for want of a file
                refuse_taken_option(ctx, param.opts[-1], path, f"give {param.opts[-1]} a file")
            reason = _why_missing(path) + _measures_hint(ctx, path) + _irds(path)
            raise InputError.unreadable(path, reason)
        return self.path_type(path) if self.path_type is str else file_path(path)


def _why_missing(path: str) -> str:
    """Why ``path``, which :func:`os.path.exists` says is not there, cannot be read: a
    symbolic link to nothing, links in a loop (it was called broken), the system's reason
    (a name too long, a file taken for a folder), or no such file."""
    try:
        os.stat(path)
    except OSError as error:
        if error.errno == errno.ELOOP:
            return "symbolic links in a loop (Too many levels of symbolic links)"
        if error.errno != errno.ENOENT:  # a name too long, a file taken for a folder...
            return error.strerror
    return "broken symbolic link" if os.path.islink(path) else "No such file"


def _irds(path: str) -> str:
    """Where an ``irds:ID`` names no file where no dataset id is taken: where it is."""
    if not _is_dataset_id(path):
        return ""
    from ..inputs.datasets import NOT_QRELS_HERE

    return f"; {NOT_QRELS_HERE}"


def _measures_hint(ctx: click.Context | None, path: str) -> str:
    """Where a file named after measures was not found by a command taking ``-m``: how it
    takes them (``score QRELS RUN nDCG@10``, ir_measures' command line's order), else
    nothing."""
    import warnings

    from ..errors import TrecbenchError
    from ..measures import parse_measures
    from ..measures.suggestions import shell_word

    command = ctx.command if ctx is not None else None
    if not any("-m" in p.opts for p in getattr(command, "params", ())):
        return ""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a trec_eval spelling's domain warning
            parse_measures(path)  # names separated by spaces, as -m's value
    except TrecbenchError:
        return ""
    return f" (measures are given with -m: -m {shell_word(path)})"


class OutputFile(click.ParamType):
    """A file to write: missing, or a regular file (see :func:`outputs.check_target`);
    never ``-``, which would be a file of that name where standard output is meant. With
    ``dash_is_usage``, ``-`` is a usage error (1), as the option's other names for what it
    cannot write are (``validate --fix``: ``x.gz``, ``x.jsonl``); else a refused output (2).
    """

    name = "file"

    def __init__(self, dash_is_usage: bool = False, written: tuple[str, str] | None = None):
        # written: what the option writes and its suffix, ("JSON", ".json"): a name that
        # says compressed is refused (r.json.gz held plain JSON), as fuse -o f.run.gz is
        self.dash_is_usage, self.written = dash_is_usage, written

    def convert(self, value, param, ctx) -> Path:
        _refuse_taken_output(ctx, param, value, "a file")
        try:
            return self._checked(value)
        except OutputError as error:
            return _refused(ctx, error, Path(os.fsdecode(value)))

    def _checked(self, value) -> Path:
        path = os.fsdecode(value)
        if self.written is not None:
            from ..publication import refuse_compressed_name

            refuse_compressed_name(path, self.written)
        from .. import outputs  # only for a command writing a file (hashlib, json, tempfile)

        try:
            return outputs.check_target(path)  # "-" refused there, as for the library
        except OutputError as error:
            if path == "-" and self.dash_is_usage:
                raise UsageError(str(error)) from None
            raise


class OutputFolder(click.ParamType):
    """A folder to write into: missing (it is created) or a folder, as are the existing
    folders on its path; ``-`` only where ``stdout`` (convert's single run), never the
    empty name (an unset ``$OUT`` is not the current folder). ``-`` is returned as the
    text itself, not as a Path: ``Path("./-") == Path("-")``, and ``./-`` names a folder."""

    name = "directory"

    def __init__(self, stdout: bool = False):
        self.stdout = stdout

    def convert(self, value, param, ctx) -> Path | str:
        _refuse_taken_output(ctx, param, value, "a folder")
        try:
            return self._checked(value)
        except OutputError as error:
            return _refused(ctx, error, Path(os.fsdecode(value)))

    def _checked(self, value) -> Path | str:
        name = os.fsdecode(value)
        if not name:
            raise OutputError("an empty folder name: give the folder to write into")
        if name == "-":  # the text as given: ./- is a folder named -
            if not self.stdout:
                raise OutputError(
                    "-: this output is a folder, not standard output (./- names one -)"
                )
            return name
        from ..publication import refuse_lost_working_folder

        refuse_lost_working_folder(name)
        folder = Path(name)
        probe = folder
        while not os.path.lexists(probe) and probe.parent != probe:
            probe = probe.parent
        if os.path.lexists(probe) and not probe.is_dir():
            if not probe.exists():  # a symbolic link to nothing (one to a file is not a folder)
                from ..outputs import dangling_folder

                raise dangling_folder(probe)
            raise OutputError(f"{probe}: is not a directory")
        return folder


def refuse_taken_option(ctx: click.Context | None, flag: str, value: str, give: str) -> None:
    """Refuse ``value``, given to the option ``flag``, when it is one of the command's
    options (``--qrels -l``, ``-m -q``, ``--optimize --qrels``; ``--opt=x`` too): click
    hands an option the next argument when its value is left out, which was then read as
    a missing file or a measure, or left the option it took unseen (``--optimize needs
    --qrels`` where --qrels was given). A usage error, exit 1, naming what happened."""
    if ctx is None:
        return
    options = {
        name
        for option in ctx.command.params
        if isinstance(option, click.Option)
        for name in (*option.opts, *option.secondary_opts)
    }
    if value.partition("=")[0] in options:
        raise click.UsageError(f"{flag} took the option '{value}' as its value: {give}", ctx)


def _refuse_taken_output(ctx: click.Context | None, param, value, what: str) -> None:
    """Refuse an output option's ``value`` that is one of the command's options, as an
    input's is (:func:`refuse_taken_option`): ``fuse a b -o --quiet`` wrote a file named
    ``--quiet``, its flag lost (``./--quiet`` names such a file)."""
    if isinstance(param, click.Option):
        flag = param.opts[-1]
        refuse_taken_option(ctx, flag, os.fsdecode(value), f"give {flag} {what}")


def _is_dataset_id(text: str) -> bool:
    """``irds:ID``. Only with the prefix (the library also takes a bare ID when ir_datasets is
    installed), so that a mistyped file name stays a missing file here."""
    from ..inputs.datasets import PREFIX  # imports pyarrow: only for a missing file

    return text.startswith(PREFIX)


INPUT_FILE = InputFile()
QRELS_INPUT = InputFile(dataset_ids=True)  # a qrels file or an ir_datasets id
RUN_PATTERN = InputFile(patterns=True)  # a run file, or a glob of files (--dask)
OUTPUT_FILE = OutputFile()
JSON_FILE = OutputFile(written=("JSON", ".json"))  # --report, --manifest
PAGE_FILE = OutputFile(written=("an HTML page", ".html"))  # score --html
# validate --fix: '-' a usage error, as a name for a format it does not write
FIX_FILE = OutputFile(dash_is_usage=True)
OUTPUT_FOLDER = OutputFolder()
OUTPUT_FOLDER_OR_STDOUT = OutputFolder(stdout=True)
