"""``trecbench agree``: do measures and judgments order the systems alike, and how often
can each measure tell two systems apart?"""

from __future__ import annotations

import click

from ..statistical_tests import NAMES as TESTS  # the registry: numpy-free
from .conclusion_options import FORMATS, conclusion_options, echo_result, flags, named_runs
from .group import cli
from .paths import INPUT_FILE, QRELS_INPUT

# stats.CORRECTIONS, repeated so that loading the CLI imports no numpy
# (tests/test_agree.py keeps them equal to the library's)
CORRECTIONS = ("holm", "bonferroni", "bh", "none")


@cli.command()
@click.argument("qrels", type=QRELS_INPUT)
@click.argument("runs", nargs=-1, required=True, type=INPUT_FILE)
@click.option(
    "--qrels-b",
    "qrels_b",
    type=QRELS_INPUT,
    default=None,
    help="A second set of judgments (e.g. LLM-made): Cohen's kappa with QRELS on the "
    "documents both judge, and the runs' orderings under each.",
)
@click.option(
    "--test",
    type=click.Choice(TESTS),
    default="t",
    show_default=True,
    help="Paired test of every pair of runs (discriminative power).",
)
@click.option(
    "--correction",
    type=click.Choice(CORRECTIONS),
    default="holm",
    show_default=True,
    help="Multiple-comparison correction over the pairs of runs, per measure.",
)
@click.option(
    "--samples",
    type=click.IntRange(min=1),
    default=10_000,
    show_default=True,
    help="Resamples of the bootstrap and randomisation tests.",
)
@click.option(
    "--seed", type=click.IntRange(min=0), default=0, show_default=True, help="Seed of resampling."
)
@conclusion_options(FORMATS)
def agree(
    qrels,
    runs,
    qrels_b,
    test,
    correction,
    samples,
    seed,
    measures,
    alpha,
    output_format,
    level,
    max_docs,
    judged,
    maxontsim_formula,
    ontology,
):
    """How the measures (-m) and two sets of judgments (--qrels-b) agree on
    RUNS (two or more). For each pair of measures Kendall's tau-b and tau_AP (the first
    measure's ordering the reference) between the runs ordered by mean; per measure the
    discriminative power: the share of pairs of runs significantly different at --alpha
    (--test, --correction) and the smallest difference found significant. With
    --qrels-b: Cohen's kappa (binary at -l) and linearly weighted kappa on the documents
    judged in both, and per measure tau-b and tau_AP between the orderings under each
    set. See docs/conclusions.md.

    \b
    Examples:
      trecbench agree qrels/hpo-demo.qrels runs/tfidf-word.run runs/tfidf-char.run \\
          runs/tfidf-word-parents.run -m nDCG@10 -m MRR@10 -m Recall@100
      trecbench agree data/hpo-rtask/hpo-rtask.qrels data/hpo-rtask/*.run -m nDCG@10 \\
          --qrels-b qrels/hpo-demo.qrels --test randomization --seed 1 --format json
    """
    from ..conclusions.agree import agree as run_agree

    result = run_agree(
        qrels,
        named_runs(runs),
        list(measures) or None,
        qrels_b=qrels_b,
        alpha=alpha,
        test=test,
        correction=correction,
        samples=samples,
        seed=seed,
        **flags(level, max_docs, judged, maxontsim_formula, ontology),
    )
    echo_result(result, output_format)
