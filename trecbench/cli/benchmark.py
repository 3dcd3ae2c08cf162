"""``trecbench benchmark``: the TREC R-task workflow from one configuration file."""

from __future__ import annotations

import click

from .group import cli, echo_input_warnings, echo_warning, echo_written
from .paths import INPUT_FILE, OUTPUT_FOLDER
from .progress import drawn
from .report_options import meta_pairs


@cli.command(prints=lambda options: not options["quiet"])
@click.argument("config", type=INPUT_FILE)
@click.option(
    "-o",
    "--outdir",
    type=OUTPUT_FOLDER,
    default=None,
    help="Output folder (default: the configuration's `output`).",
)
@click.option(
    "--meta",
    "meta",
    metavar="KEY=VALUE",
    multiple=True,
    callback=meta_pairs,
    help="Metadata for the reports and manifest (repeatable; adds to the config's `meta`, "
    "replacing a key it sets).",
)
@click.option("--quiet", is_flag=True, help="No progress, no tables on stdout.")
def benchmark(config, outdir, meta, quiet):
    """Run the benchmark described by CONFIG (TOML or YAML, - for standard input; see
    the docs' benchmark.md): validate every run with the TREC R-task rules, fuse the fused
    modes, score every mode with one parse of the qrels, compare them against the baseline
    mode and mark each value against the targets.

    Writes to OUTDIR: BenchmarkReport.json, BenchmarkComparison.md (its R-task part is
    printed; the statistics against the baseline follow in the file), report.html (one
    page for a browser: the tables, interactive figures, each mode's documents per topic),
    reports/<mode>.json (an EvaluationReport per mode), runs/<mode>.run (fused modes) and
    ExperimentManifest.json, all or nothing. Exits 2 with the validator's findings when a
    run (or the qrels) is invalid.

    \b
    Example:
      trecbench benchmark data/hpo-rtask/benchmark.toml -o out/hpo-rtask
    """
    from .. import benchmarking

    settings = benchmarking.load_benchmark_config(config).with_options(outdir, meta)
    benchmarking.check_outputs(settings)  # before the work: an input is never an output
    with drawn(quiet) as progress:  # bars of each step on a terminal (not with --quiet)
        result = benchmarking.run_benchmark(settings, progress=progress)
        if progress is not None:
            progress.close()  # the last bar ended before the tables and warnings
        from .compare import warn_without_html

        echo_input_warnings()
        for warning in result.comparison.warnings:  # as compare says its comparison's
            echo_warning(warning)
        warn_without_html()
        from ..outputs import commits_held

        # the files written whole, the tables printed, then the files renamed into place:
        # a full disk prints nothing, a full standard output replaces none of them
        with commits_held():
            written = result.write(progress=progress)
            if not quiet:
                click.echo(result.markdown(statistics=False))
    for path in written:
        echo_written(path)
