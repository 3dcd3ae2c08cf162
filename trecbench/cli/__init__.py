"""Command-line interface: a thin layer that parses arguments and prints.

Each command lives in its own module of this package; all logic lives in the library.
Errors raised on purpose (:class:`trecbench.errors.TrecbenchError`) become one line on
stderr and the error's exit code, never a traceback.
"""

from __future__ import annotations

import os
import sys

import click

from .. import __version__, outputs
from ..errors import TrecbenchError

WORKFLOW = ("convert", "validate", "score", "compare", "fuse", "benchmark", "measures")


class Group(click.Group):
    """Click group that lists commands in workflow order, not alphabetically."""

    def list_commands(self, ctx):
        known = [name for name in WORKFLOW if name in self.commands]
        return known + sorted(set(self.commands) - set(known))


@click.group(cls=Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="trecbench")
@click.pass_context
def cli(ctx: click.Context) -> None:
    """trecbench: convert, validate, score and compare retrieval runs, exactly like trec_eval.

    \b
    Examples:
      trecbench validate runs/tfidf-char.run --qrels qrels/hpo-demo.qrels
      trecbench score qrels/hpo-demo.qrels runs/tfidf-char.run
    """
    # every file the command reads is one of its inputs, which no output may replace
    ctx.with_resource(outputs.input_scope())


def fail(error: TrecbenchError) -> None:
    """Print a library error as one line and exit with its code."""
    click.echo(f"trecbench: {error}", err=True)
    sys.exit(error.exit_code)


def _register() -> None:
    # Each module adds its command to `cli`; imported here so `trecbench --help` lists them.
    from . import (
        benchmark,  # noqa: F401
        compare,  # noqa: F401
        convert,  # noqa: F401
        fuse,  # noqa: F401
        measures,  # noqa: F401
        score,  # noqa: F401
        validate,  # noqa: F401
    )


def main() -> None:
    """Console-script entry point."""
    # Arrow's default allocator keeps freed memory; the system one returns it for numpy to
    # reuse: a fifth less peak memory on 10^7-line runs (a user's setting wins)
    os.environ.setdefault("ARROW_DEFAULT_MEMORY_POOL", "system")
    # numpy asks for transparent huge pages on large arrays; where the kernel compacts
    # memory synchronously for them (THP defrag "madvise"), page faults stall: a quarter
    # of `score`'s wall time on a 10^7-line run here (read before numpy is imported)
    os.environ.setdefault("NUMPY_MADVISE_HUGEPAGE", "0")
    _register()
    try:
        cli(standalone_mode=True)
    except TrecbenchError as error:
        fail(error)
