"""``trecbench power``: power and topic-set size of runs compared with a baseline."""

from __future__ import annotations

import click

from .conclusion_options import FORMATS, conclusion_options, named_runs
from .group import cli
from .paths import INPUT_FILE, QRELS_INPUT
from .shared_options import FiniteFloat, runs_argument


@cli.command()
@click.argument("qrels", type=QRELS_INPUT)
@click.argument("baseline", type=INPUT_FILE)
@runs_argument
@click.option(
    "--power",
    "target",
    type=FiniteFloat(0, 1, min_open=True, max_open=True),
    default=0.8,
    show_default=True,
    help="Target power (1 - beta) for the detectable difference and the topics needed.",
)
@conclusion_options(FORMATS)
def power(qrels, baseline, runs, target, shared):
    """Can the topics tell RUNS from BASELINE? Per run and measure, from the per-topic
    differences (run - baseline; a run without results for a topic scores 0 on it, but
    num_rel its count of the qrels) and
    the paired two-sided t-test at --alpha: the effect size d_z (mean / sd), the power
    at the current number of topics, the smallest difference detectable at --power
    (MDE, in the measure's units) and the topics needed to detect the observed effect
    at --power. Figures that are undefined (sd 0, no difference) are shown as – with
    the reason. See the docs' conclusions.md.

    \b
    Examples:
      trecbench power qrels/hpo-demo.qrels runs/tfidf-word.run runs/tfidf-char.run \\
          -m nDCG@10 -m MRR@10
      trecbench power qrels/hpo-demo.qrels runs/tfidf-word.run runs/tfidf-char.run \\
          -m nDCG@10 --alpha 0.01 --power 0.9 --format json
    """
    from ..conclusions.power import power as run_power

    named = named_runs([baseline, *runs])
    first = next(iter(named))
    with shared.progress() as progress:
        result = run_power(
            qrels,
            {first: named.pop(first)},
            named,
            target_power=target,
            progress=progress,
            **shared.keywords(),
        )
    shared.echo(result)
