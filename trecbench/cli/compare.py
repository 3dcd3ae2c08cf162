"""``trecbench compare``: runs against a baseline with intervals, paired tests and plots."""

from __future__ import annotations

from pathlib import Path

import click

from ..errors import UsageError
from . import cli
from .evaluation_options import evaluation_options
from .paths import INPUT_FILE, OUTPUT_FOLDER
from .progress import TaskProgress, wanted
from .report_options import manifest_options

# stats.TESTS, stats.CORRECTIONS and compare.MISSING, repeated so that loading the CLI
# (every command registers this one) imports neither numpy nor pandas; a test keeps them
# and the defaults below equal to the library's.
_CHOICES = {
    "test": ("t", "bootstrap", "randomization"),
    "correction": ("holm", "bonferroni", "bh", "none"),
    "missing": ("zero", "drop"),
}


def _names(pairs: tuple[str, ...]) -> dict[str, str]:
    """``("lexical=runs/a.run", ...)`` -> ``{"runs/a.run": "lexical"}``."""
    names: dict[str, str] = {}
    for pair in pairs:
        name, sep, path = pair.partition("=")
        if not sep or not name or not path:
            raise UsageError(f"--names {pair!r}: expected NAME=RUN")
        if name in names.values():
            raise UsageError(f"--names: the name {name!r} is given twice")
        names[str(Path(path))] = name
    return names


@cli.command()
@click.argument("qrels", type=INPUT_FILE)
@click.argument("runs", nargs=-1, type=INPUT_FILE)
@click.option(
    "-m",
    "--measure",
    "measures",
    multiple=True,
    help="Measure (repeatable; trec_eval, ir_measures or display spelling). "
    "Default: nDCG@10 MAP@100 MRR@10 Recall@50 Recall@100 HitRate@10.",
)
@click.option("--baseline", help="Run (name or file) the others are compared with. [first run]")
@click.option(
    "--test",
    type=click.Choice(_CHOICES["test"]),
    default="t",
    show_default=True,
    help="Paired significance test.",
)
@click.option(
    "--correction",
    type=click.Choice(_CHOICES["correction"]),
    default="holm",
    show_default=True,
    help="Multiple-comparison correction over all comparisons (per stratum).",
)
@click.option(
    "--samples",
    type=click.IntRange(min=1),
    default=10_000,
    show_default=True,
    help="Bootstrap (and randomisation) resamples.",
)
@click.option(
    "--seed",
    type=click.IntRange(min=0),
    default=0,
    show_default=True,
    help="Seed of all resampling.",
)
@click.option(
    "--confidence",
    type=click.FloatRange(0, 1, min_open=True, max_open=True),
    default=0.95,
    show_default=True,
    help="Level of the confidence intervals; 1 - confidence is the significance level.",
)
@click.option(
    "--missing",
    type=click.Choice(_CHOICES["missing"]),
    default="zero",
    show_default=True,
    help="Topics of the qrels a run has no results for: score 0 (trec_eval -c) or drop "
    "them (only topics every run was evaluated on).",
)
@click.option(
    "--strata",
    type=INPUT_FILE,
    help="Sidecar JSON with per-topic fields (written by trecbench convert).",
)
@click.option(
    "--group-by",
    help="Stratum field of the --strata sidecar (language, difficulty, category, repo, ...), "
    "or qid-prefix (the qid up to its last '/').",
)
@click.option(
    "--names",
    "names",
    multiple=True,
    metavar="NAME=RUN",
    help="Name a run in tables and plots (repeatable); RUN need not be repeated as argument.",
)
@click.option(
    "-o",
    "--outdir",
    required=True,
    type=OUTPUT_FOLDER,
    help="Folder for BenchmarkReport.json, BenchmarkComparison.md and the plots.",
)
@click.option("--no-plots", is_flag=True, help="Skip the PNG/SVG plots.")
@click.option("--quiet", is_flag=True, help="No progress, no table on stdout.")
@evaluation_options
@manifest_options
def compare(
    qrels,
    runs,
    measures,
    baseline,
    test,
    correction,
    samples,
    seed,
    confidence,
    missing,
    strata,
    group_by,
    names,
    outdir,
    no_plots,
    quiet,
    level,
    max_docs,
    judged,
    maxontsim_formula,
    ontology,
    manifest,
    meta,
):
    """Compare RUNs on QRELS: means with bootstrap intervals, differences against the
    baseline, paired significance tests with correction, per stratum with --group-by.

    Writes BenchmarkReport.json, BenchmarkComparison.md, means.png/.svg and
    differences.png/.svg (and, with --group-by, means_FIELD-VALUE.png... per stratum) to
    OUTDIR and prints the Markdown tables. -l, -M, -J, --maxontsim-formula and --ontology
    mean what they mean for trecbench score. With --manifest, an ExperimentManifest lists
    every input and output with its sha256; nothing is written unless everything succeeded.

    \b
    Examples:
      trecbench compare qrels/hpo-demo.qrels runs/tfidf-word.run runs/tfidf-char.run \\
          runs/tfidf-word-parents.run --test randomization --seed 42 -o out/compare
      trecbench compare qrels.txt a.run b.run -l 2 -M 100 -m MaxOntSim@10 \\
          --manifest out/manifest.json --meta model=bm25 -o out
    """
    from .. import outputs
    from ..compare import MARKDOWN_FILE, REPORT_FILE, run_name
    from ..compare import compare as run_compare

    for name in (REPORT_FILE, MARKDOWN_FILE):
        outputs.check_target(outdir / name)  # a bad output fails before the resampling

    named_paths = _names(names)
    paths = list(dict.fromkeys([str(path) for path in runs] + list(named_paths)))
    if not paths:
        raise UsageError("compare: give at least one RUN (or --names NAME=RUN)")
    named = {named_paths.get(path, run_name(path)): path for path in paths}
    if len(named) < len(paths):
        raise UsageError("compare: two runs have the same name; name them with --names")
    if baseline is not None and baseline not in named:
        by_path = {path: name for name, path in named.items()}
        baseline = by_path.get(str(Path(baseline)), baseline)
    progress = TaskProgress() if wanted(quiet) else None
    try:
        comparison = run_compare(
            qrels,
            named,
            list(measures) or None,
            baseline=baseline,
            test=test,
            correction=correction,
            samples=samples,
            seed=seed,
            confidence=confidence,
            missing=missing,
            strata=strata,
            group_by=group_by,
            progress=progress,
            relevance_level=1 if level is None else level,
            max_docs=max_docs,
            judged_only=judged,
            options={"maxontsim_formula": maxontsim_formula, "ontology": ontology},
        )
    finally:
        if progress is not None:
            progress.close()
    written = comparison.write(outdir, plots=not no_plots, manifest=manifest, meta=meta)
    if not quiet:
        click.echo(comparison.markdown())
    for path in written:
        click.echo(f"wrote {path}", err=True)
