"""``trecbench compare``: runs against a baseline with intervals, paired tests, movers, all
pairs and tie bounds; a table on stdout, report files with ``-o``."""

from __future__ import annotations

import contextlib
import functools
import os
from dataclasses import dataclass
from pathlib import Path

import click

from .. import extras, statistical_tests
from ..errors import UsageError
from ..resampling_bounds import LEVELS
from ..text_bytes import utf8
from .evaluation_options import (
    check_formula_used,
    compare_memory_option,
    evaluation_options,
    jobs_option,
    unjudged_threshold_option,
)
from .group import cli, echo_input_warnings, echo_warning, echo_written, given
from .paths import INPUT_FILE, OUTPUT_FOLDER, QRELS_INPUT, file_path
from .progress import TaskProgress, drawn, wanted
from .report_options import manifest_options
from .shared_options import (
    DecimalInt,
    FiniteFloat,
    format_option,
    given_correction,
    html_depth_option,
    measures_option,
    resampling_options,
    samples_checked,
)
from .stdout import echo_bytes

# compare.MISSING, comparison_text.FORMATS and plots.ORDERS are repeated so that loading
# the CLI (every command registers this one) imports neither numpy nor pandas; a test
# keeps them and the defaults below equal to the library's (the tests and corrections
# are shared_options').
_CHOICES = {
    "missing": ("zero", "drop"),
    "output_format": ("table", "markdown", "csv", "json", "latex"),
    "plot_order": ("difference", "baseline"),
}


def runs_and_qrels(
    arguments: tuple[Path, ...], names: tuple[str, ...], run_qrels: tuple[tuple[Path, Path], ...]
) -> tuple[dict[str, str], str | None, dict[str, str]]:
    """``({name: run path}, shared qrels or None, {name: its own qrels})`` from
    ``[QRELS] [RUN]...``, ``--names`` and ``--run-qrels RUN QRELS``: positional and named
    runs use QRELS unless they have their own; QRELS may be left out when every run has
    its own."""
    own = {str(file_path(run)): str(qrels) for run, qrels in run_qrels}
    if len(own) < len(run_qrels):
        raise UsageError("--run-qrels: a run is given twice")
    shared = str(arguments[0]) if arguments else None
    from ..naming import check_runs_once, named_pairs, named_runs, normalised, run_names

    positional = [str(file_path(p)) for p in arguments[1:]]
    listed = {normalised(p) for p in positional} | {normalised(r) for r, _ in run_qrels}

    def is_run(path: str) -> bool:  # a run listed, or a file (a run named only here)
        return path in listed or os.path.isfile(path)

    named_paths = [str(file_path(path)) for path in named_pairs(names, is_run)]
    for path in named_paths:  # a run named only by --names: checked as RUNS are, up front
        if normalised(path) not in listed:
            INPUT_FILE.convert(path, None, None)
    check_runs_once(positional)  # twice, it was merged into one run without a word
    # a run may be both listed and named (--names) or given its qrels (--run-qrels)
    paths = list(dict.fromkeys(positional + named_paths + list(own)))
    check_runs_once(paths)
    if not paths:
        raise UsageError("compare: give QRELS and at least one RUN (or --run-qrels RUN QRELS)")
    if shared is not None and all(path in own for path in paths):
        raise UsageError(
            f"compare: every run has its own qrels (--run-qrels), so {shared} would be "
            "unused; leave QRELS out, or list the runs it is for after it"
        )
    named, qrels = {}, {}
    for path, name in zip(paths, named_runs(paths, names) or run_names(paths), strict=True):
        if path not in own and shared is None:
            raise UsageError(f"compare: run {path} has no qrels: give QRELS first or --run-qrels")
        named[name] = path
        if path in own:
            qrels[name] = own[path]
    return named, shared, qrels


@dataclass(frozen=True)
class Output:
    """What ``compare`` shows and writes: ``output_format`` on stdout (nothing when
    ``quiet``, which also hides progress); with ``outdir``, the report files, the figures
    (``plots``, topics in ``plot_order``), report.html's drill-down to ``html_depth``
    documents and a ``manifest`` (with ``meta``)."""

    output_format: str
    outdir: Path | None
    plots: bool
    html_depth: int
    plot_order: str
    manifest: Path | None
    meta: dict[str, str]
    quiet: bool

    def check(self) -> None:
        """Refuse, before any work, what needs files without a folder to write them (a
        drill-down depth with no report.html), an order of no figure, and --meta where no
        report records it."""
        if self.plots and self.outdir is None:
            raise UsageError("--plots writes files: give -o OUTDIR")
        if self.plots:  # before the work, not after it
            extras.require("matplotlib", "--plots")
        if given("html_depth") and self.outdir is None:  # taken, and no page to use it
            raise UsageError("--html-depth is the drill-down depth of report.html: give -o OUTDIR")
        if given("plot_order") and not self.plots:  # taken, and no figure to order
            raise UsageError("--plot-order orders the topics of the --plots figures: give --plots")
        if self.manifest is not None and self.outdir is None:
            raise UsageError("--manifest lists the files compare writes: give -o OUTDIR")
        printed = self.output_format == "json" and not self.quiet
        if self.meta and self.outdir is None and not printed:  # recorded nowhere: no word
            raise UsageError(
                "--meta is recorded in the BenchmarkReport: give -o OUTDIR (or print the "
                "report with --format json, without --quiet)"
            )

    def show(self, comparison) -> None:
        """Write the files whole (with ``outdir``; report.html's making drawn unless
        ``quiet``), print the comparison, then put the files in place and say them: a
        full disk prints nothing, a full standard output replaces no file, and nothing
        printed is followed by a failure to write (:func:`~trecbench.outputs.commits_held`).
        ``--format json`` prints BenchmarkReport.json as the call writes it, byte for byte
        (its ``meta`` and experiment id), and, without ``outdir``, as it would write it."""
        from ..provenance import new_stamp

        written = []
        if self.outdir is not None:
            # plots named after strata only the comparison knows, an earlier call's files
            # left in the folder: refused before anything is printed
            from ..comparison import html_available
            from ..comparison.targets import check_folder

            check_folder(
                comparison, self.outdir, plots=self.plots, manifest=self.manifest,
                html=html_available(),
            )  # fmt: skip
            warn_without_html()
        # one id per call: the report printed and the one written are one document
        # and one time: the report's, the page's and the manifest's
        stamp, report = new_stamp(), None
        if self.output_format == "json" and not self.quiet:
            report = comparison.report_file(stamp["experiment_id"], self.meta, stamp["created"])
        with self._files_after_stdout():
            if self.outdir is not None:
                with drawn(self.quiet) as progress:  # ended before the table is printed
                    written = comparison.write(
                        self.outdir, plots=self.plots, manifest=self.manifest,
                        meta=self.meta, plot_order=self.plot_order,
                        html_depth=self.html_depth, progress=progress,
                        experiment_id=stamp["experiment_id"], report=report,
                        created=stamp["created"],
                    )  # fmt: skip
            if not self.quiet:
                echo_bytes(report or utf8(comparison.render(self.output_format)))
        for path in written:
            echo_written(path)

    def _files_after_stdout(self):
        """:func:`trecbench.outputs.commits_held` when the call writes files."""
        if self.outdir is None:
            return contextlib.nullcontext()
        from ..outputs import commits_held

        return commits_held()


def _typed_settings(command):
    """Hand ``command`` its statistics, scoring and output options as the three typed
    values they make (:class:`~trecbench.comparison.StatsSettings`,
    :class:`~trecbench.comparison.ScoringSettings`, :class:`Output`)."""

    @functools.wraps(command)
    def typed(
        *, test, correction, samples, seed, confidence, missing, movers, level, max_docs,
        judged, maxontsim_formula, ontology, allow_unjudged, unjudged_threshold,
        no_tie_bounds, memory, jobs, output_format, outdir, plots, html_depth, plot_order,
        manifest, meta, quiet, unjudged_bounds, **arguments,
    ):  # fmt: skip
        from ..comparison import ScoringSettings, StatsSettings

        correction = given_correction(test, correction)
        with samples_checked():
            statistics = StatsSettings(test, correction, samples, seed, confidence, missing, movers)
        scoring = ScoringSettings(
            relevance_level=1 if level is None else level, max_docs=max_docs,
            judged_only=judged,
            options={"maxontsim_formula": maxontsim_formula, "ontology": ontology},
            allow_unjudged=allow_unjudged, unjudged_threshold=unjudged_threshold,
            tie_bounds=not no_tie_bounds, memory=memory, jobs=jobs,
            # report.html's drill-down and --plots' curve, kept as the runs are read
            drill_depth=html_depth if _drawn(outdir, plots) else None,
            unjudged_bounds=unjudged_bounds,  # kept as the runs are read, too
        )  # fmt: skip
        output = Output(output_format, outdir, plots, html_depth, plot_order, manifest, meta, quiet)
        return command(
            statistics=statistics, scoring=scoring, output=output,
            unjudged_bounds=unjudged_bounds, **arguments,
        )  # fmt: skip

    return typed


def _drawn(outdir, plots: bool) -> bool:
    """Whether report.html or the figures will show the runs' drill-down or curve."""
    from ..comparison import html_available

    return outdir is not None and (plots or html_available())


@cli.command(prints=lambda options: not options["quiet"])
@click.argument("files", nargs=-1, metavar="[QRELS] [RUN]...", type=QRELS_INPUT)
@click.option(
    "--run-qrels",
    "run_qrels",
    nargs=2,
    multiple=True,
    metavar="RUN QRELS",
    type=INPUT_FILE,
    help="A run and its own qrels (repeatable), e.g. each chunker of a code-chunk "
    "conversion; topics are paired by qid across runs. QRELS may then be left out.",
)
@measures_option
@click.option("--baseline", help="Run (name or file) the others are compared with. [first run]")
@resampling_options(
    test="Paired significance test: "
    + "; ".join(f"{name}: {test.label}" for name, test in statistical_tests.TESTS.items())
    + ". Every test is described in the docs' compare.md.",
    correction="Multiple-comparison correction over all comparisons (per section).",
    samples="Bootstrap resamples; also the randomisation test's sign patterns (all of them "
    "when 2^topics is not more) and Tukey HSD's permutations. At least 2/(1 - confidence) "
    "(40 at 95%): fewer leave a tail of the percentile intervals without a resample.",
    seed="Seed of all resampling.",
)
@click.option(
    "--confidence",
    type=FiniteFloat(*LEVELS),  # beyond them alpha is 0 or 1 at the 12 places it is kept to
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
    help="Sidecar JSON with per-topic fields (written by trecbench convert); qrels it "
    "describes as complete are not doubted for their unjudged documents (no warning; "
    "--unjudged-bounds' high is the value).",
)
@click.option(
    "--group-by",
    "group_by",
    multiple=True,
    metavar="FIELD",
    help="Also compare per stratum and as macro means over the strata (every stratum "
    "counts the same), by a field of --strata (language, difficulty, category, repo, ...) "
    "or by qid-prefix (the qid up to its last '/'). Repeatable.",
)
@click.option(
    "--names",
    "names",
    multiple=True,
    metavar="NAME=RUN",
    help="Name a run in tables and plots (repeatable); RUN need not be repeated as argument.",
)
@format_option(
    _CHOICES["output_format"],
    "What stdout shows: an aligned table, the Markdown report, CSV, the JSON report or "
    "the all-pairs LaTeX table.",
)
@click.option(
    "-o",
    "--outdir",
    type=OUTPUT_FOLDER,
    help="Also write BenchmarkReport.json, BenchmarkComparison.md, AllPairs.tex and "
    "report.html here.",
)
@click.option("--plots", is_flag=True, help="Also write PNG/SVG plots into OUTDIR.")
@html_depth_option("Documents per run and topic in report.html's drill-down (0: none).")
@click.option(
    "--plot-order",
    type=click.Choice(_CHOICES["plot_order"]),
    default="difference",
    show_default=True,
    help="Order of the topics in the difference plots: by mean difference or by the "
    "baseline's value.",
)
@click.option(
    "--movers",
    type=DecimalInt(min=0),
    default=5,
    show_default=True,
    help="Topics with the largest gains and losses listed per run and measure (0: no "
    "movers section).",
)
@click.option(
    "--no-tie-bounds",
    is_flag=True,
    help="Skip the bounds over all orders of tied documents (each run is scored in two "
    "more orders when it has ties).",
)
@click.option(
    "--allow-unjudged",
    is_flag=True,
    help="Compare even a run whose retrieved documents the qrels mostly do not know "
    "(refused by default: usually the qrels of another run).",
)
@unjudged_threshold_option
@compare_memory_option
@jobs_option
@click.option(
    "--power",
    "target_power",
    type=FiniteFloat(0, 1, min_open=True, max_open=True),
    default=None,
    metavar="TARGET",
    help="Add the power of each comparison with the baseline (all topics): effect size, "
    "power reached, smallest detectable difference and topics needed at TARGET (e.g. 0.8).",
)
@click.option(
    "--unjudged-bounds",
    "unjudged_bounds",
    is_flag=True,
    help="Add each run's values with its unjudged documents judged relevant (the high end) "
    "and name the differences whose sign could flip within those ranges (n/a, with the "
    "reason, for a measure whose ranges do not bound a difference, such as nDCG or MAP).",
)
@click.option("--quiet", is_flag=True, help="No progress, nothing on stdout.")
@evaluation_options
@manifest_options
@_typed_settings
def compare(
    files,
    run_qrels,
    measures,
    baseline,
    strata,
    group_by,
    names,
    target_power,
    unjudged_bounds,
    statistics,
    scoring,
    output: Output,
):
    """Compare RUNs on QRELS: means with bootstrap intervals, differences against the
    baseline with paired tests and correction, wins/ties/losses and topic movers, every
    pair of runs, bounds over all orders of tied documents — overall, per stratum and as
    macro means with --group-by. Prints a table (--format); -o writes
    BenchmarkReport.json, BenchmarkComparison.md, AllPairs.tex and report.html (one page
    to open in a browser: sortable tables, interactive figures, every topic's documents),
    --plots the figures.

    A run can have its own qrels (--run-qrels RUN QRELS): topics are then paired by qid.
    A run whose retrieved documents the qrels mostly do not know is refused (exit 1)
    unless --allow-unjudged. -l, -M, -J, --maxontsim-formula and --ontology mean what
    they mean for trecbench score. With --manifest, an ExperimentManifest lists every input
    and output with its sha256; nothing is written unless everything succeeded.

    \b
    Examples:
      trecbench compare qrels/hpo-demo.qrels runs/tfidf-char.run runs/tfidf-word.run
      trecbench convert code-chunk data/convert/code-chunk-detailed.json -o out
      trecbench compare --run-qrels out/ast.run out/codechunk-ast.qrels \\
          --run-qrels out/fixed.run out/codechunk-fixed.qrels --baseline fixed \\
          -m nDCG@5 -m P@5 -m R@5 --group-by qid-prefix
      trecbench compare qrels/hpo-demo.qrels runs/tfidf-word.run runs/tfidf-char.run \\
          --test randomization --seed 42 -o out/compare --plots \\
          --manifest out/manifest.json --meta model=tfidf
    """
    output.check()
    check_formula_used(measures, scoring.options["maxontsim_formula"], scoring.ontology)
    named, shared, own = runs_and_qrels(files, names, run_qrels)
    if target_power is not None:  # before the work: one run, or a target below alpha
        from ..conclusions.power import power_settings

        power_settings(len(named), statistics.alpha, target_power)
    if output.outdir is not None:  # a bad output, or one that is an input, fails before the work
        from ..comparison import check_outputs

        given = [*files, *(path for pair in run_qrels for path in pair), strata, scoring.ontology]
        check_outputs(
            output.outdir, plots=output.plots, runs=len(named), manifest=output.manifest,
            inputs=given, strata=strata, group_by=list(group_by) or None,
            curves=True,  # kept as the runs are read, whenever there are plots (_drawn)
        )  # fmt: skip
    if baseline is not None and baseline not in named:  # a file, however spelt
        from ..naming import file_key

        by_file = {file_key(path) or str(file_path(path)): name for name, path in named.items()}
        baseline = by_file.get(file_key(baseline) or str(file_path(baseline)), baseline)
    notes = []
    if strata is not None:  # read now: a bad sidecar is refused before the work
        from ..strata import sidecar_notes

        notes = sidecar_notes(strata, [shared, *own.values()], group_by)
    progress = TaskProgress() if wanted(output.quiet) else None
    from ..comparison import compare as run_compare

    try:
        comparison = run_compare(
            shared, named, list(measures) or None, run_qrels=own, baseline=baseline,
            strata=strata, group_by=list(group_by) or None, progress=progress,
            statistics=statistics, scoring=scoring,
        )  # fmt: skip
    finally:
        if progress is not None:
            progress.close()
    echo_input_warnings()
    for warning in [*notes, *comparison.warnings]:
        echo_warning(warning)
    output.show(_with_conclusions(comparison, target_power, unjudged_bounds))


def _with_conclusions(comparison, target_power: float | None, unjudged_bounds: bool):
    """The comparison with the power of its comparisons (at ``target_power``) and its
    unjudged bounds, when asked."""
    if target_power is not None:
        from ..conclusions.power import with_power

        comparison = with_power(comparison, target_power)
    if unjudged_bounds:
        from ..conclusions.unjudged import with_unjudged_bounds

        comparison = with_unjudged_bounds(comparison)
    return comparison


def warn_without_html() -> None:
    """One line when report.html cannot be written (the html extra is missing)."""
    from ..comparison import html_available
    from ..extras import install_hint

    if not html_available():
        hint = install_hint("html")
        click.echo(f"trecbench: warning: report.html needs Jinja2 and Bokeh: {hint}", err=True)
