"""The command group: every command registers itself on :data:`cli` (its own module of
this package, imported when the command is looked up), which lists them in workflow order
and gives usage errors trec_eval's exit code. Kept apart from the package's ``__init__``
(the guard around a command line) so that the commands import nothing that imports them."""

from __future__ import annotations

import contextlib
import contextvars
import importlib
from collections.abc import Callable

import click

from .. import __version__
from ..errors import ExitCode, SaysSettings, one_line
from .stdout import check_writable

WORKFLOW = (
    "convert", "validate", "score", "compare", "power", "agree", "fuse", "benchmark",
    "leaderboard", "similarity", "pool", "diff", "measures",
)  # fmt: skip
# commands that open their input scope themselves (:func:`open_input_scope`), once they
# know they need one: score's and validate's small paths read small files and write only
# standard output, and trecbench.outputs (hashlib, json, shutil, tempfile) would cost them
# a tenth of their time
SCOPE_THEIR_OWN = frozenset({"score", "validate"})

# the library's keywords its refusals name (trecbench.errors.Setting) and the flag each is
# on the command line (one meaning per flag: docs/cli-conventions.md), said as the flag
# by a command that takes it: `score -l 0` is told of -l, evaluate(relevance_level=0) of
# relevance_level
KEYWORD_FLAGS = {
    "relevance_level": "-l", "max_docs": "-M", "num_docs": "-N", "rel_format": "-R",
    "judged_only": "-J",
    "rbo_p": "--rbo-p", "group_by": "--group-by", "strata": "--strata", "names": "--names",
    "qrels_json": "--qrels-json", "beir_qrels": "--beir-qrels", "results": "--results",
    "tags": "--tag", "tag": "--tag", "name": "--name", "fix_tag": "--fix-tag",
    "language": "--language", "client": "--dask", "manifest": "--manifest",
    "html_depth": "--html-depth", "report": "--report", "html": "--html",
    "jobs": "--jobs", "memory": "--memory", "measures": "-m", "ontology": "--ontology",
    "outdir": "-o", "compat": "--compat", "zscores": "-Z", "debug_level": "-D",
    "line_offsets": "--line-offset", "grades": "--grade", "graded": "--graded", "iou": "--iou",
    "f1_threshold": "--f1-threshold", "ignore_identical_ids": "--ignore-identical-ids",
    "min_depth": "--min-depth", "max_depth": "--max-depth",
}  # fmt: skip
# where the command group keeps the command it runs (a subcommand's: `convert dict`), in
# the meta its contexts share
_RUNNING = "trecbench.command"

_debug: contextvars.ContextVar[bool] = contextvars.ContextVar("trecbench_debug", default=False)


class Command(click.Command):
    """A command: refused before its work, in one line, exit 2, when it would print and
    standard output takes no write (closed, ``>&-``, or read-only, ``1<file``), so that
    it writes no file either (:func:`trecbench.cli.stdout.check_writable`). ``prints``:
    whether a call prints, from its parameters (default: every call prints)."""

    def __init__(self, *args, prints: Callable[[dict], bool] | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.prints = prints

    def parse_args(self, ctx, args):
        from .paths import held_refusals

        _refuse_repeated_outputs(self, ctx, args)
        # a usage error first, then a path refused as the line was read
        with held_refusals(ctx):
            return super().parse_args(ctx, args)

    def invoke(self, ctx):
        if self.prints is None or self.prints(ctx.params):
            check_writable()
        return super().invoke(ctx)


def _refuse_repeated_outputs(command: click.Command, ctx, args) -> None:
    """A usage error for an output option given twice (``--report a.json --report
    b.json``): click keeps the last value, so the file asked for first was never written
    and nothing said so. Other options keep getopt's way (the last one given counts), as
    trec_eval's do."""
    from .paths import OutputFile, OutputFolder

    if any(arg in ctx.help_option_names for arg in args):
        return  # --help answers first, as for any other error in the line
    _, _, order = command.make_parser(ctx).parse_args(args=list(args))
    seen = set()
    for param in order:
        if isinstance(param.type, OutputFile | OutputFolder) and not param.multiple:
            if param.name in seen:
                raise click.UsageError(
                    f"{param.get_error_hint(ctx)} is given twice: give it once (only "
                    "the last one given would be written)",
                    ctx,
                )
            seen.add(param.name)


class Group(click.Group):
    """Click group that lists commands in workflow order, not alphabetically, and gives
    every usage error of every command trec_eval's exit code 1 (click's is 2).

    The commands named in ``lazy`` are each the module of this package of that name,
    imported when the command is looked up (it registers itself): a command line imports
    only the command it runs."""

    lazy: tuple[str, ...] = ()
    command_class = Command

    def get_command(self, ctx, cmd_name):
        if cmd_name in self.lazy and cmd_name not in self.commands:
            importlib.import_module(f"{__package__}.{cmd_name}")
        return super().get_command(ctx, cmd_name)

    def resolve_command(self, ctx, args):
        name, command, rest = super().resolve_command(ctx, args)
        # the innermost group resolves last: `convert dict`'s flags, not convert's
        ctx.meta[_RUNNING] = command
        return name, command, rest

    def list_commands(self, ctx):
        for name in self.lazy:
            self.get_command(ctx, name)
        known = [name for name in WORKFLOW if name in self.commands]
        return known + sorted(set(self.commands) - set(known))


class _Context(click.Context):
    """The top-level context: a Ctrl-C while it closes (its resources: the input scope,
    staged outputs) is :func:`_our_codes`'s ``click.Abort``, not click's two lines."""

    def __exit__(self, *exc_info):
        try:
            return super().__exit__(*exc_info)
        except KeyboardInterrupt as error:
            raise click.Abort() from error


class _Commands(Group):
    """The top-level group: its commands are imported when looked up."""

    lazy = WORKFLOW
    context_class = _Context

    def make_context(self, *args, **kwargs):
        with _our_codes():
            return super().make_context(*args, **kwargs)

    def invoke(self, ctx):
        # the command's own parsing, option callbacks and work
        with _our_codes(), _flags_said(ctx):
            return super().invoke(ctx)


class AnswerInExitCode(Command):
    """A command whose exit code 1 is an answer (``diff``: the reports differ), so that
    its usage errors exit 2 with the rest of its trouble, as GNU diff's do."""

    usage_exit_code = ExitCode.INPUT


class _StdoutClosed(Exception):
    """stdout's reader went away (click would exit 1 on it: :func:`run` exits 141)."""


@contextlib.contextmanager
def _flags_said(ctx: click.Context):
    """The library's refusals said of the command's flags where they name its keywords
    (:data:`KEYWORD_FLAGS`, those the command run takes, a subcommand's its own): the
    error, of its kind, worded anew."""
    try:
        yield
    except SaysSettings as error:
        error.args = (error.worded(_command_flags(ctx)),)
        raise


def worded_here(text: str) -> str:
    """``text`` in the words of the command running: a library warning's
    :class:`~trecbench.errors.SettingsText` says the command's flags, not its keywords."""
    from ..errors import SettingsText

    if not isinstance(text, SettingsText):
        return text
    return text.worded(_command_flags(click.get_current_context(silent=True)))


def _command_flags(ctx: click.Context | None) -> dict[str, str]:
    """:data:`KEYWORD_FLAGS` of the command ``ctx`` runs (none without one)."""
    command = None if ctx is None else ctx.meta.get(_RUNNING)
    taken = {opt for p in getattr(command, "params", ()) for opt in (*p.opts, *p.secondary_opts)}
    return {keyword: flag for keyword, flag in KEYWORD_FLAGS.items() if flag in taken}


@contextlib.contextmanager
def _our_codes():
    """Usage errors with our exit codes; a reader gone from stdout as
    :class:`_StdoutClosed`; a Ctrl-C as ``click.Abort``: click's ``main`` catches a
    ``KeyboardInterrupt`` itself and prints an empty line first, to end the line a
    terminal echoed ``^C`` on, a second line on stderr wherever it goes (run() ends that
    line itself, on a terminal only)."""
    try:
        yield
    except KeyboardInterrupt as error:
        raise click.Abort() from error
    except click.UsageError as error:
        command = error.ctx.command if error.ctx else None
        error.exit_code = getattr(command, "usage_exit_code", ExitCode.USAGE)
        raise
    except BrokenPipeError as error:
        raise _StdoutClosed() from error


@click.group(cls=_Commands, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="trecbench")
@click.option(
    "--debug",
    is_flag=True,
    help="On an unexpected error, also print the Python traceback (for a bug report).",
)
@click.pass_context
def cli(ctx: click.Context, debug: bool) -> None:
    """trecbench: convert, validate, score and compare retrieval runs, exactly like trec_eval.

    Exit codes: 0 success, 1 usage error (`diff`: the reports differ; its usage errors
    exit 2), 2 bad input or output, 4 duplicate documents or a measure the inputs cannot
    give, 7 no common topic, 70 unexpected error, 130 interrupted, 141 standard output's
    reader went away (more on each: the docs' page "Conventions and exit codes").

    \b
    Examples:
      trecbench validate runs/tfidf-char.run --qrels qrels/hpo-demo.qrels
      trecbench score qrels/hpo-demo.qrels runs/tfidf-char.run
    """
    _debug.set(debug)
    if ctx.invoked_subcommand not in SCOPE_THEIR_OWN:
        open_input_scope(ctx)


def open_input_scope(ctx: click.Context) -> None:
    """Make every file read while ``ctx`` runs one of the call's inputs, which no output
    may replace (:func:`trecbench.outputs.input_scope`), and keep what its reading warns
    of (:func:`echo_input_warnings`). Parsing the command line reads no file, so a command
    may open it in its callback (:data:`SCOPE_THEIR_OWN`)."""
    from .. import input_warnings, outputs

    ctx.with_resource(outputs.input_scope())
    ctx.with_resource(input_warnings.kept())


def given(*names: str, ctx: click.Context | None = None) -> set[str]:
    """Which of the options ``names`` of the running command (or of ``ctx``) were given
    (on the command line or by environment), not left at their defaults."""
    from click.core import ParameterSource

    ctx = ctx or click.get_current_context()
    return {name for name in names if ctx.get_parameter_source(name) is not ParameterSource.DEFAULT}


def echo_written(path, detail: str = "") -> None:
    """``wrote PATH`` (``: detail``) on stderr, in one line: control characters in the
    path escaped, as in every message; a file named ``-`` as ``./-`` (given so: a Path
    drops the ``./``), where ``-`` reads as standard output, and any name starting with
    ``-`` likewise (``./-q``: ``-q`` reads as the option)."""
    name = one_line(str(path))
    name = f"./{name}" if name.startswith("-") else name
    click.echo(f"wrote {name}" + (f": {detail}" if detail else ""), err=True)


def echo_input_warnings() -> None:
    """What the validation gate warned of the runs and qrels read so far (a CRLF file, a
    blank line...), each line once however often its file was read, as warnings on
    stderr: every command that reads them as score does says them so; the settings a
    line names (:class:`~trecbench.errors.SettingsText`) said as the command's flags."""
    from ..errors import SettingsText
    from ..input_warnings import unsaid

    flags = _command_flags(click.get_current_context(silent=True))
    for line in unsaid():
        echo_warning(line.worded(flags) if isinstance(line, SettingsText) else line)


def echo_warning(message: str) -> None:
    """``trecbench: warning: message`` on stderr, in one line: control characters in what
    it quotes (an id from a JSONL or Parquet run, a file name) escaped, as in errors."""
    click.echo(f"trecbench: warning: {one_line(message)}", err=True)
