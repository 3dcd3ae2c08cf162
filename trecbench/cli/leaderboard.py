"""``trecbench leaderboard``: systems across collections, one table per measure."""

from __future__ import annotations

import click

from .group import cli, echo_input_warnings, echo_warning
from .paths import INPUT_FILE
from .shared_options import quiet_option


@cli.command()
@click.argument("suite", type=INPUT_FILE)
@click.option(
    "--format",
    "output_format",
    type=click.Choice(("table", "markdown", "latex", "json", "html")),
    default="table",
    show_default=True,
    help="How the tables are printed (html: one self-contained page, sortable tables).",
)
@quiet_option
def leaderboard(suite, output_format, quiet):
    """Score every system of SUITE (a TOML file: collections, each with qrels, a run per
    system and optionally a stratum of topics; the measures) and print one table per
    measure: each system's mean per collection with its rank there, the macro mean over
    collections and the mean rank, and paired t-tests against the baseline (the first
    system) over collections and over all topics, Holm-adjusted. See the docs' leaderboard.md.

    \b
    Examples:
      trecbench leaderboard data/leaderboard.toml
      trecbench leaderboard data/leaderboard.toml --format markdown
      trecbench leaderboard data/leaderboard.toml --format html > leaderboard.html
    """
    from ..runstudy.board_text import leaderboard_text
    from ..runstudy.leaderboard import leaderboard as compute
    from .progress import drawn

    with drawn(quiet) as progress:
        board = compute(suite, progress)
    echo_input_warnings()
    for warning in board.warnings:
        echo_warning(warning)
    click.echo(leaderboard_text(board, output_format), nl=False)
