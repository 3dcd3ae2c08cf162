"""``trecbench agree``: do measures and judgments order the systems alike, and how often
can each measure tell two systems apart?"""

from __future__ import annotations

import click

from .conclusion_options import FORMATS, conclusion_options, named_runs
from .group import cli
from .paths import QRELS_INPUT
from .shared_options import (
    given_correction,
    resampling_options,
    runs_argument,
    samples_checked,
)


@cli.command()
@click.argument("qrels", type=QRELS_INPUT)
@runs_argument
@click.option(
    "--qrels-b",
    "qrels_b",
    type=QRELS_INPUT,
    default=None,
    help="A second set of judgments (e.g. LLM-made): Cohen's kappa with QRELS on the "
    "documents both judge (a negative grade judges nothing: in the pool, unjudged), and "
    "the runs' orderings under each.",
)
@resampling_options(
    test="Paired test of every pair of runs (discriminative power).",
    correction="Multiple-comparison correction over the pairs of runs, per measure.",
    samples="Resamples of the bootstrap and randomisation tests and Tukey HSD; at least "
    "1/alpha (20 at 0.05) with these, so that a p-value, never below 1/(samples + 1), can "
    "fall below --alpha.",
    seed="Seed of resampling.",
)
@conclusion_options(FORMATS)
def agree(qrels, runs, qrels_b, test, correction, samples, seed, shared):
    """How the measures (-m) and two sets of judgments (--qrels-b) agree on
    RUNS (two or more). For each pair of measures Kendall's tau-b and tau_AP (the first
    measure's ordering the reference) between the runs ordered by mean; per measure the
    discriminative power: the share of pairs of runs significantly different at --alpha
    (--test, --correction) and the smallest difference found significant. With
    --qrels-b: Cohen's kappa (binary at -l) and linearly weighted kappa on the documents
    judged in both, and per measure tau-b and tau_AP between the orderings under each
    set. See the docs' conclusions.md.

    \b
    Examples:
      trecbench agree qrels/hpo-demo.qrels runs/tfidf-word.run runs/tfidf-char.run \\
          runs/tfidf-word-parents.run -m nDCG@10 -m MRR@10 -m Recall@100
      trecbench agree data/hpo-rtask/hpo-rtask.qrels data/hpo-rtask/*.run -m nDCG@10 \\
          --qrels-b qrels/hpo-demo.qrels --test randomization --seed 1 --format json
    """
    from ..conclusions.agree import agree as run_agree

    correction = given_correction(test, correction)
    drawn = _drawn(test, samples, seed)
    with samples_checked(), shared.progress() as progress:  # settings checked first
        result = run_agree(
            qrels,
            named_runs(runs),
            qrels_b=qrels_b,
            test=test,
            correction=correction,
            **drawn,
            progress=progress,
            **shared.keywords(),
        )
    shared.echo(result)


def _drawn(test: str, samples: int, seed: int) -> dict:
    """--samples and --seed as the library takes them: None where left at their defaults
    (the library's own); given with a test that draws nothing at random, refused."""
    from ..statistical_tests import SAMPLES, SEED, refuse_undrawn
    from .group import given

    chosen = given(SAMPLES, SEED)
    refuse_undrawn(test, chosen, "--")
    return {
        SAMPLES: samples if SAMPLES in chosen else None,
        SEED: seed if SEED in chosen else None,
    }
