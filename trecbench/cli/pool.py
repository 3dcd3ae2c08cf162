"""``trecbench pool``: the depth-k judgment pool of runs, and its bias."""

from __future__ import annotations

import click

from ..resource_bounds import MOST_DEPTH
from .group import cli, echo_input_warnings, echo_warning, echo_written, given
from .paths import INPUT_FILE, OUTPUT_FILE
from .shared_options import (
    DEPTH,
    DecimalInt,
    format_option,
    names_option,
    quiet_option,
    runs_argument,
)


@cli.command()
@runs_argument
@click.option(
    "--depth",
    type=DEPTH,  # as fuse's and convert's: refused as the line is read
    default=100,
    show_default=True,
    help="Documents of each run pooled per topic (its top k in trecbench's ranking).",
)
@click.option(
    "--qrels",
    type=INPUT_FILE,
    default=None,
    help="Judgments made so far: judged documents are left out of the pool, and each run's "
    "relevant documents that no other run pooled are counted.",
)
@click.option(
    "-l",
    "--level_for_rel",
    "level",
    type=DecimalInt(1, MOST_DEPTH),  # the library's bound, refused naming the option
    default=1,
    show_default=True,
    help="Minimum grade counted as relevant (with --qrels).",
)
@click.option(
    "--unjudged-grade",
    default=None,
    help="A grade written as the fourth column of every pool line (default: none, three "
    "columns: qid 0 docno).",
)
@names_option
@format_option(
    ("table", "json"),
    "The summary on stdout: each run's pooled, unique (and judged, relevant-only) counts.",
)
@click.option(
    "-o",
    "--output",
    required=True,
    type=OUTPUT_FILE,
    help="The pool: qrels-shaped lines 'qid 0 docno', by qid then docno (byte-wise).",
)
@quiet_option
def pool(runs, depth, qrels, level, unjudged_grade, names, output_format, output, quiet):
    """Pool the top DEPTH documents of each of RUNS per topic, as TREC builds judgment
    pools, write the pool for assessors to -o, and print what each run contributed.

    With --qrels, documents already judged are left out, and for each run the relevant
    documents it alone retrieved within the depth are counted (leave-one-run-out pool
    bias, Zobel 1998). See the docs' runs.md.

    \b
    Examples:
      trecbench pool runs/tfidf-word.run runs/tfidf-char.run --depth 10 -o out/pool.txt
      trecbench pool runs/*.run --depth 20 --qrels qrels/hpo-demo.qrels -o out/new.txt
    """
    from .. import outputs
    from ..errors import UsageError, option_excerpt
    from ..files import parquet_named
    from ..naming import check_runs_once, named_runs
    from ..plurals import counted
    from ..runstudy.pool import grade_text
    from ..runstudy.pool import pool as compute
    from ..runstudy.text import pool_text
    from .progress import drawn

    if qrels is None and given("level"):
        raise UsageError("-l goes with --qrels: without judgments no grade is counted")
    grade = unjudged_grade
    if grade is not None and (not grade or grade.split() != [grade]):
        raise UsageError(f"--unjudged-grade must be one word, not {option_excerpt(grade)}")
    if grade is not None:
        # before the runs are read, not after the summary is printed
        grade = grade_text(grade, "--unjudged-grade", option_excerpt)
    check_runs_once(runs)  # a run twice would be counted twice
    inputs = [*runs, *([qrels] if qrels else [])]
    outputs.check_target(output, inputs)
    if parquet_named(output, "qrels", parquet=False):  # (.jsonl, .gz: refused there)
        raise UsageError(f"{output}: a pool file is TREC text (qid 0 docno), not Parquet")
    names = named_runs(runs, names)
    settings = {"depth": depth, "qrels": qrels, "relevance_level": level, "names": names}
    with drawn(quiet) as progress:
        result = compute(list(runs), **settings, progress=progress)
        if progress is not None:
            progress.close()  # the bar ended before the warnings, not run into by them
        echo_input_warnings()
        for warning in result.warnings:
            echo_warning(warning)
        # an id no TREC file holds: refused first (its ids checked, its lines made: a bar)
        pool_file = result.to_text(grade, progress)
    # the file written whole, the summary printed, then the file put in place (no space
    # needed): a full disk prints no summary of a pool never written, a full stdout
    # replaces no file (docs/cli-conventions.md, Complete writes)
    with outputs.commits_held():
        outputs.write_file(output, pool_file, inputs)
        click.echo(pool_text(result, output_format, grade), nl=False)
    echo_written(output, counted(len(result.qid), "document"))
