"""``trecbench similarity``: how alike runs rank, per topic and on average."""

from __future__ import annotations

import click

from .group import cli, echo_input_warnings, echo_warning
from .shared_options import (
    DEPTH,
    FiniteFloat,
    format_option,
    names_option,
    quiet_option,
    runs_argument,
)


@cli.command()
@runs_argument
@click.option(
    "--rbo-p",
    type=FiniteFloat(0, 1, min_open=True, max_open=True),
    default=0.9,
    show_default=True,
    help="RBO's persistence p in (0, 1): the higher, the deeper it looks (p = 0.9: the top "
    "10 documents carry 86% of the weight; Webber et al. 2010).",
)
@click.option(
    "--overlap-k",
    type=DEPTH,  # a depth in the ranking: refused naming the option, as --depth is
    default=10,
    show_default=True,
    help="The depth of overlap@k, the Jaccard index of the two top-k sets.",
)
@click.option(
    "--depth",
    type=DEPTH,  # as fuse's and convert's: refused as the line is read
    default=None,
    help="Documents of each run kept per topic before comparing (default: all).",
)
@names_option
@click.option("-q", "per_topic", is_flag=True, help="Also print every topic's row.")
@format_option(
    ("table", "json"),
    "table: one row per pair of runs (with -q, per topic too); json: every topic.",
)
@quiet_option
def similarity(runs, rbo_p, overlap_k, depth, names, per_topic, output_format, quiet):
    """How alike RUNS rank, for every pair of them: rank-biased overlap (RBO_ext, with its
    lower bound RBO_min and residual RBO_res; Webber, Moffat & Zobel 2010), overlap@k (the
    Jaccard index of the top k) and Kendall's tau on the documents both retrieved.

    Rankings are trecbench's (score descending, ties by docno descending, as trec_eval).
    A topic only one run holds counts with RBO 0. See the docs' runs.md.

    \b
    Examples:
      trecbench similarity runs/tfidf-word.run runs/tfidf-char.run
      trecbench similarity runs/tfidf-word.run runs/tfidf-char.run --rbo-p 0.98 -q
    """
    from ..naming import check_runs_once, named_runs
    from ..runstudy.similarity import similarity as compute
    from ..runstudy.text import similarity_text
    from .progress import drawn

    check_runs_once(runs)  # a run twice would be compared (counted) with itself
    names = named_runs(runs, names)
    settings = {"names": names, "rbo_p": rbo_p, "overlap_k": overlap_k, "depth": depth}
    with drawn(quiet) as progress:
        result = compute(list(runs), **settings, progress=progress)
    echo_input_warnings()
    for pair in result.pairs:
        if said := pair.reason or pair.partial_tau():
            echo_warning(said)
    click.echo(similarity_text(result, output_format, per_topic), nl=False)
