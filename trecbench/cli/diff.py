"""``trecbench diff``: why two evaluation reports disagree."""

from __future__ import annotations

import click

from .group import AnswerInExitCode, cli
from .paths import INPUT_FILE
from .shared_options import quiet_option


@cli.command(cls=AnswerInExitCode)
@click.argument("report_a", type=INPUT_FILE)
@click.argument("report_b", type=INPUT_FILE)
@click.option(
    "--format",
    "output_format",
    type=click.Choice(("text", "json")),
    default="text",
    show_default=True,
    help="text: the likeliest cause, then one line per difference; json: every difference.",
)
@quiet_option
@click.pass_context
def diff(ctx, report_a, report_b, output_format, quiet):
    """Compare two EvaluationReports (score --report) or two BenchmarkReports: which
    inputs differ (sha256 and size), which options, measure spellings and versions, and
    which topics only one report holds, and which values differ beyond the printed
    precision, a mean or a topic's value (with the topics that moved most), and their
    power, unjudged bounds, tie bounds, routing metrics and grouped means.
    The first line names the most likely cause.

    Exits as diff does: 0 when the evaluations are the same (versions may differ), 1
    when they differ, 2 on bad input or a usage error. See the docs' runs.md.

    \b
    Examples:
      trecbench score --report out/a.json qrels/hpo-demo.qrels runs/tfidf-word.run
      trecbench score --report out/b.json -l 2 qrels/hpo-demo.qrels runs/tfidf-word.run
      trecbench diff out/a.json out/b.json    # exits 1: the reports differ (-l 2)
    """
    from ..runstudy.reportdiff import diff_reports
    from ..runstudy.text import diff_text
    from ..text_bytes import utf8
    from .progress import drawn
    from .stdout import echo_bytes

    with drawn(quiet) as progress:
        result = diff_reports(report_a, report_b, progress=progress)
    # a report's path of a byte that is not UTF-8 (a lone surrogate) as the reports write
    # it, its escape \udcff: written raw, the JSON was no UTF-8 (json.load failed on it)
    echo_bytes(utf8(diff_text(result, output_format)))
    if not result.same:
        ctx.exit(1)
