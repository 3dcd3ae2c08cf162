"""Compare runs: means with bootstrap intervals, differences against a baseline, paired
significance tests and multiple-comparison correction — overall, per stratum and as macro
means over strata; topic movers, every pair of runs, tie bounds.

:func:`compare` scores the runs with :func:`trecbench.evaluate` (each against the qrels it
was given: one shared qrels, or each run its own) and hands the per-query values to
:func:`compare_scores`, which does the statistics (see :mod:`trecbench.stats` for the
conventions) on one ``queries x runs x measures`` array per section. Rendering is
:mod:`trecbench.comparison_text`'s job, plotting :mod:`trecbench.plots`'.

Topics are paired by qid across runs. Which count (``missing``, recorded in the report):

* ``"zero"`` (default, trec_eval ``-c``): every topic of the qrels counts; a run without
  results for a topic scores 0 on it. With a qrels per run, the topics that every run's
  qrels judge (the others cannot be paired; each run lists its unpaired ones).
* ``"drop"``: only topics that every run was evaluated on (the pairs all runs share).

Sections (``group_by``, repeatable): ``all`` (every topic), then for each field its
**macro** section ``FIELD:macro`` (every stratum counts the same: the mean of the strata's
means, as code-chunk's published "overall"; stratified bootstrap, weighted tests, see
:mod:`trecbench.stats`) and one section per value ``FIELD=VALUE``. Each section has its own
resamples from the same seed and its own family for the p-value correction.

Which way is better (:func:`direction`, recorded in the report's ``settings.better``) is
the measure registry's ``better`` (:func:`trecbench.measures.better`): higher for every
measure of a ranking's quality, lower for ``num_nonrel_judged_ret`` (judged non-relevant
documents retrieved), and neither for counts such as ``num_ret`` and ``num_rel`` and for
diagnostics such as ``Judged@k``; higher for a name the registry does not know.
"Best run", the ▲/▼ markers, wins and losses, movers and the all-pairs letters follow
it; a measure without a direction gets no best run, ↑/↓ (significantly higher/lower),
and counts "higher" as a win.
"""

from __future__ import annotations

import math
import numbers
import os
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from . import extras, outputs, statistical_tests, stats
from .errors import UsageError
from .inputs import QrelsInput, RunInput

MISSING = ("zero", "drop")
ALL = "all"  # label of the section over all topics
MACRO = "macro"  # a macro section is labelled FIELD:macro; a stratum FIELD=VALUE
# the registry's names (trecbench.statistical_tests): in reports, and on macro means
TEST_NAMES = {name: test.label for name, test in statistical_tests.TESTS.items()}
MACRO_TEST_NAMES = {
    name: test.macro_label or f"none: the {test.label} has no form for macro means"
    for name, test in statistical_tests.TESTS.items()
}
CORRECTION_NAMES = {
    "holm": "Holm",
    "bonferroni": "Bonferroni",
    "bh": "Benjamini-Hochberg",
    "none": "no correction",
}
REPORT_FILE = "BenchmarkReport.json"
MARKDOWN_FILE = "BenchmarkComparison.md"
LATEX_FILE = "AllPairs.tex"
# With more runs the all-pairs rows are not kept (they grow with the square of the runs:
# 800 runs made 1.9 million); the comparisons with the baseline always are.
PAIRS_RUNS = 100
SCHEMA_VERSION = 2
HIGHER, LOWER = "higher", "lower"
MOVERS = 5  # topics listed per run, measure and direction

Progress = Callable[[int, int], None]


def run_name(path: str | os.PathLike) -> str:
    """Default display name of a run file: its file name without ``.gz`` and ``.run``."""
    return Path(path).name.removesuffix(".gz").removesuffix(".run")


def direction(measure: str) -> str | None:
    """``"higher"`` or ``"lower"``: which values of ``measure`` (a display name) are
    better; None for counts that are neither (see the module docstring)."""
    from .measures import better

    return better(measure)


@dataclass(frozen=True)
class Section:
    """One analysis: ``kind`` ``all``, ``macro`` (over the strata of ``field``) or
    ``stratum`` (``field`` = ``value``), over ``topics`` topics. ``smallest_p``: the
    smallest p-value the chosen test can give over them (None with one run); ``notes``:
    what the reader must know about its tests (e.g. that they cannot reach alpha)."""

    label: str
    kind: str
    field: str | None
    value: str | None
    topics: int
    smallest_p: float | None = None
    notes: tuple[str, ...] = ()

    @property
    def title(self) -> str:
        if self.kind == ALL:
            return "All topics"
        if self.kind == MACRO:
            return f"Macro over {self.field}: each {self.field} counts the same"
        return f"{self.field} = {self.value}"


@dataclass
class Comparison:
    """Result of :func:`compare`.

    ``summary``: stratum, run, measure, queries, mean, ci_low, ci_high, normal_low,
    normal_high (normal-approximation interval: the weaker, unpaired view), tie_low,
    tie_high (the mean's bounds over all orders of tied documents; NaN when not known).
    ``comparisons`` (against the baseline): stratum, run, baseline, measure, queries,
    difference, ci_low, ci_high (interval of the difference), relative_change (percent of
    the baseline mean; NaN when that is 0), effect_size (d_z), p_value, p_adjusted,
    significant (p_adjusted < alpha), wins, ties, losses (topics), welch_t, welch_df,
    welch_p, welch_p_adjusted (independent two-sample Welch t-test: the weaker design).
    ``pairs`` (every pair of runs): stratum, run, other, measure, difference (run − other),
    p_value, p_adjusted (over all pairs of the section), significant, winner.
    ``movers``: stratum, run, baseline, measure, kind (``gain``/``loss``), rank, qid,
    baseline_value, value, difference: the topics that moved most.
    ``per_query``: run, qid, measure, value after the ``missing`` policy.
    ``missing``: per run, the topics it had no result for (scored 0 or dropped).
    ``strata``: field -> qid -> stratum value when grouped, else None.
    ``run_qrels``: per run the qrels file it was scored with; ``unpaired``: per run the
    topics of its qrels left out because another run's qrels lack them; ``unjudged``: per
    run its documents without judgment; ``warnings``: what the caller should print.
    ``evaluation``: the options :func:`trecbench.evaluate` was called with (None when the
    per-query values were given); ``ontology``: provenance of the ontology behind MaxOntSim.
    """

    runs: list[str]
    baseline: str
    measures: list[str]
    queries: list[str]
    settings: dict
    sections: list[Section]
    summary: pd.DataFrame
    comparisons: pd.DataFrame
    pairs: pd.DataFrame
    movers: pd.DataFrame
    per_query: pd.DataFrame
    missing: dict[str, list[str]]
    strata: dict[str, dict[str, str]] | None = None
    inputs: list[dict] | None = None
    run_inputs: dict[str, str] | None = None
    evaluation: dict | None = None
    ontology: dict | None = None
    run_qrels: dict[str, str | None] | None = None
    unpaired: dict[str, list[str]] | None = None
    unjudged: dict[str, dict] | None = None
    warnings: list[str] = field(default_factory=list)

    @property
    def stratum_labels(self) -> list[str]:
        """Section labels: ``"all"``, then per grouping field ``"FIELD:macro"`` and one
        ``"FIELD=VALUE"`` per stratum (values sorted)."""
        return [section.label for section in self.sections]

    def section(self, label: str) -> Section:
        return next(section for section in self.sections if section.label == label)

    def part(self, frame: pd.DataFrame, label: str) -> pd.DataFrame:
        """Rows of ``summary``, ``comparisons``, ``pairs`` or ``movers`` for one section."""
        return frame[frame["stratum"] == label]

    def topics_of(self, label: str) -> list[str]:
        """The topics of a section (a macro section's: every topic with a stratum)."""
        section = self.section(label)
        if section.kind == ALL:
            return list(self.queries)
        mapping = (self.strata or {})[section.field]
        if section.kind == MACRO:
            return [qid for qid in self.queries if qid in mapping]
        return [qid for qid in self.queries if mapping.get(qid) == section.value]

    def report(self, experiment_id: str | None = None, meta: Mapping[str, str] | None = None):
        """The BenchmarkReport as a JSON-ready dict (schema ``benchmark_report``).

        ``experiment_id`` links it to its ExperimentManifest; ``meta`` repeats the user's
        ``--meta`` pairs so the report stands alone.
        """
        from . import __version__
        from .report import _json_safe, environment, utc_now

        results = []
        for section in self.sections:
            results.append(
                {
                    "stratum": section.label,
                    "kind": section.kind,
                    "field": section.field,
                    "value": section.value,
                    "topics": section.topics,
                    "smallest_p": section.smallest_p,
                    "notes": list(section.notes),
                    **{
                        name: _json_safe(_rows(self.part(frame, section.label)))
                        for name, frame in (
                            ("summary", self.summary),
                            ("comparisons", self.comparisons),
                            ("pairs", self.pairs),
                            ("movers", self.movers),
                        )
                    },
                }
            )
        wide = self.per_query.pivot_table(
            index=["run", "qid"], columns="measure", values="value", sort=False
        )
        # finite floats already: compare_scores refuses NaN and infinities and zero-fills
        # absent topics
        per_query = {run: wide.loc[run][self.measures].to_dict(orient="index") for run in self.runs}
        document = {
            "type": "BenchmarkReport",
            "schema_version": SCHEMA_VERSION,
            "created": utc_now(),
            "experiment_id": experiment_id,
            "tool": {"name": "trecbench", "version": __version__},
            "environment": environment(),
            "meta": {str(key): str(value) for key, value in (meta or {}).items()},
            "settings": self.settings,
            "evaluation": self.evaluation,
            "inputs": self.inputs or [],
            "runs": [
                {
                    "name": run,
                    "baseline": run == self.baseline,
                    "input": (self.run_inputs or {}).get(run),
                    "qrels": (self.run_qrels or {}).get(run),
                    "missing_queries": self.missing[run],
                    "unpaired_topics": (self.unpaired or {}).get(run, []),
                    "unjudged": (self.unjudged or {}).get(run),
                }
                for run in self.runs
            ],
            "topics": self.queries,
            "strata": self.strata,
            "results": results,
            "per_query": per_query,
        }
        if self.ontology is not None:
            document["ontology"] = self.ontology
        return document

    def to_frame(self) -> pd.DataFrame:
        """One row per section, run and measure: the summary (``mean, ci_low, ci_high``,
        ...) and, for runs other than the baseline, the comparison with it
        (``difference, diff_ci_low, diff_ci_high, relative_change, effect_size, p_value,
        p_adjusted, significant``, ...; NaN for the baseline)."""
        tests = self.comparisons.drop(columns=["baseline", "queries"]).rename(
            columns={"ci_low": "diff_ci_low", "ci_high": "diff_ci_high"}
        )
        return self.summary.merge(tests, on=["stratum", "run", "measure"], how="left")

    def _describe(self) -> str:
        from .evaluation import _few

        return (
            f"Comparison(runs={_few(self.runs)}, baseline={self.baseline!r}, "
            f"measures={_few(self.measures)}, topics={len(self.queries)}, "
            f"test={self.settings['test']!r}, correction={self.settings['correction']!r})"
        )

    def __repr__(self) -> str:
        return self._describe()

    def _repr_html_(self) -> str:
        """Means with intervals and significance markers over all topics, for notebooks."""
        from html import escape

        from .comparison_text import mean_cells

        rows = mean_cells(self, ALL, self.measures)
        head = "".join(f"<th>{escape(cell)}</th>" for cell in rows[0])
        body = "".join(
            "<tr>" + "".join(f"<td>{escape(cell)}</td>" for cell in row) + "</tr>"
            for row in rows[1:]
        )
        return (
            f"<p><code>{escape(self._describe())}</code></p>"
            f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
        )

    def render(self, fmt: str = "table") -> str:
        """The comparison as ``table`` (terminal), ``markdown``, ``csv``, ``json`` (the
        report) or ``latex`` (the all-pairs table); see :mod:`trecbench.comparison_text`."""
        from . import comparison_text

        return comparison_text.render(self, fmt)

    def markdown(self) -> str:
        """The BenchmarkComparison Markdown text."""
        return self.render("markdown")

    def plot_files(self, order: str = "difference") -> dict[str, bytes]:
        """File name -> bytes of every plot (see :func:`plot_files`)."""
        return plot_files(self, order)

    def write(
        self,
        outdir: str | os.PathLike,
        plots: bool = False,
        *,
        manifest: str | os.PathLike | None = None,
        meta: Mapping[str, str] | None = None,
        argv: Sequence[str] | None = None,
        plot_order: str = "difference",
    ) -> list[Path]:
        """Write BenchmarkReport.json, BenchmarkComparison.md, AllPairs.tex, (with
        ``plots``) the PNG and SVG plots into ``outdir`` and, if ``manifest`` is given, an
        ExperimentManifest there (inputs and outputs with sha256, ``meta``, the command line
        ``argv``, default ``sys.argv``); returns the paths written, manifest last.

        Everything is prepared first and committed together: on any failure no file is
        replaced. Inputs are never overwritten. The report and the manifest share one
        ``experiment_id``.
        """
        import uuid

        from .outputs import OutputSet
        from .report import build_manifest, bytes_record, json_bytes

        out = Path(outdir)
        inputs = [record["path"] for record in self.inputs or []]
        experiment_id = str(uuid.uuid4())
        files = {
            out / REPORT_FILE: (json_bytes(self.report(experiment_id, meta)), "report"),
            out / MARKDOWN_FILE: (self.markdown().encode("utf-8"), "markdown"),
            out / LATEX_FILE: (self.render("latex").encode("utf-8"), "latex"),
        }
        if plots:
            files |= {
                out / name: (data, "plot") for name, data in self.plot_files(plot_order).items()
            }
        if manifest is not None:
            manifest = Path(manifest)
            _check_manifest(manifest, files)
            outputs = [bytes_record(path, kind, data) for path, (data, kind) in files.items()]
            document = build_manifest(
                sys.argv if argv is None else argv,
                self.inputs or [],
                outputs,
                meta or {},
                experiment_id,
            )
            files[manifest] = (json_bytes(document), "manifest")
        with OutputSet(inputs) as staged:
            for path, (data, _) in files.items():
                staged.write(path, data)
        return list(files)


def check_outputs(
    outdir: str | os.PathLike,
    *,
    plots: bool = False,
    runs: int = 1,
    manifest: str | os.PathLike | None = None,
    inputs: Sequence[str | os.PathLike] = (),
) -> None:
    """Refuse, before a comparison of ``runs`` runs is computed, what
    :meth:`Comparison.write` would refuse only once it is: one of the files it writes
    whatever the results (report, Markdown, LaTeX, with ``plots`` the plots over all
    topics, the ``manifest``) that is one of ``inputs``, a symbolic link or not a regular
    file, or a manifest that is one of the others. (Plots per stratum are named after the
    strata, known once read: they are checked when written.)"""
    from .plots import FORMATS, file_suffixes

    out = Path(outdir)
    files = [out / name for name in (REPORT_FILE, MARKDOWN_FILE, LATEX_FILE)]
    if plots:
        figures = ("means", "differences") if runs > 1 else ("means",)
        suffix = file_suffixes([ALL])[ALL]
        files += [out / _plot_file(figure, suffix, fmt) for figure in figures for fmt in FORMATS]
    if manifest is not None:
        _check_manifest(Path(manifest), files)
        files.append(Path(manifest))
    for path in files:
        outputs.check_target(path, inputs)


def _check_manifest(manifest: Path, files: Iterable[Path]) -> None:
    """Refuse a manifest that is another output of compare, or the folder it writes into."""
    for path in files:
        found = outputs.collision(manifest, path)
        if found == "same":
            raise UsageError(f"--manifest {manifest} would overwrite an output of compare")
        if found == "holds":
            raise UsageError(f"--manifest {manifest} is a folder compare writes {path} into")


def _rows(frame: pd.DataFrame) -> list[dict]:
    """Rows of one section as dicts of Python scalars, without ``stratum`` and ``queries``
    (the report states them once per section)."""
    columns = [c for c in ("stratum", "queries") if c in frame.columns]
    return frame.drop(columns=columns).to_dict(orient="records")


def _check_settings(test, correction, samples, seed, confidence, missing) -> None:
    statistical_tests.get(test)  # an unknown test is refused, naming the known ones
    if correction not in stats.CORRECTIONS:
        raise UsageError(
            f"unknown correction {correction!r}; choose one of {', '.join(stats.CORRECTIONS)}"
        )
    if not isinstance(samples, numbers.Integral) or samples < 1:
        raise UsageError(f"samples must be a positive integer, not {samples!r}")
    if not isinstance(seed, numbers.Integral) or seed < 0:
        raise UsageError(f"seed must be a non-negative integer, not {seed!r}")
    if not isinstance(confidence, numbers.Real) or not 0 < confidence < 1:
        raise UsageError(f"confidence must be between 0 and 1, not {confidence!r}")
    if missing not in MISSING:
        raise UsageError(f"unknown missing policy {missing!r}; choose one of {', '.join(MISSING)}")


def _cube(
    per_query: pd.DataFrame,
    runs: list[str],
    measures: list[str],
    queries: list[str],
    column: str = "value",
) -> np.ndarray:
    """``queries x runs x measures`` values of ``column``; absent (run, qid) pairs NaN."""
    frame = per_query.set_index(["qid", "run", "measure"])[column]
    if frame.index.duplicated().any():
        qid, run, measure = frame.index[frame.index.duplicated()][0]
        raise UsageError(f"run {run!r}: two values of {measure} for topic {qid!r}")
    index = pd.MultiIndex.from_product([queries, runs, measures], names=frame.index.names)
    values = frame.reindex(index).to_numpy(dtype=np.float64, copy=True)
    return values.reshape(len(queries), len(runs), len(measures))


def _better(difference: np.ndarray, measure: str) -> np.ndarray:
    """The difference turned so that positive means better (higher for a measure without
    a direction)."""
    return -difference if direction(measure) == LOWER else difference


@dataclass
class _Section:
    """What :func:`_analyse` needs about one section besides the values."""

    section: Section
    rows: np.ndarray
    strata: np.ndarray | None  # per topic its stratum (macro sections only)


def _analyse(
    part: _Section,
    cube: np.ndarray,
    bounds: tuple[np.ndarray, np.ndarray] | None,
    qids: list[str],
    runs: list[str],
    measures: list[str],
    baseline: int,
    settings: dict,
    advance: Callable[[int], None] | None,
) -> tuple[dict[str, list[dict]], Section]:
    """Summary, comparison, pair and mover rows of one section (``cube``: queries x runs
    x measures of its topics, ``bounds`` the per-topic tie bounds alike), and the section
    with what its tests can say (:func:`_tested_section`).

    ``advance(done)`` is told how many resamples of this section are done (bootstrap
    first, then the test's own).
    """
    n, n_runs, n_measures = cube.shape
    view = _View(part, cube.transpose(0, 2, 1).reshape(n, n_measures * n_runs), n_runs)
    boot = stats.bootstrap_means(
        view.flat, settings["samples"], settings["seed"], _stage(advance, 0), strata=part.strata
    )
    result = {
        "summary": _summary_rows(view, boot, bounds, runs, measures, settings),
        "comparisons": [],
        "pairs": [],
        "movers": [],
    }
    section = _tested_section(part.section, settings, n_runs)
    if n_runs < 2:
        return result, section
    every = n_runs <= PAIRS_RUNS
    pairs = [
        (m, i, j)
        for m in range(n_measures)
        for i in range(n_runs)
        for j in range(i + 1, n_runs)
        if every or baseline in (i, j)
    ]
    p, why = _pair_tests(view, pairs, boot, settings, _stage(advance, settings["samples"]))
    if every:
        result["pairs"] = _pair_rows(view, pairs, p, why, runs, measures, settings, section)
    p_of = {pair: k for k, pair in enumerate(pairs)}
    compared = [(m, r) for m in range(n_measures) for r in range(n_runs) if r != baseline]
    chosen = [p_of[(m, min(r, baseline), max(r, baseline))] for m, r in compared]
    tested = (p[chosen], [why[k] for k in chosen])
    result["comparisons"], result["movers"] = _comparison_rows(
        view, boot, compared, tested, qids, runs, measures, baseline, settings, section
    )
    if not every:
        section = replace(section, notes=(*section.notes, _pairs_left_out(n_runs)))
    return result, section


def _stage(advance: Callable[[int], None] | None, offset: int) -> stats.Progress | None:
    return None if advance is None else lambda done, _total: advance(offset + done)


@dataclass
class _View:
    """One section's values as ``topics x (measures * runs)`` columns (column ``m * R +
    r``), and how to take its means."""

    part: _Section
    flat: np.ndarray
    runs: int

    def column(self, m: int, r: int) -> int:
        return m * self.runs + r

    @property
    def weights(self) -> np.ndarray | None:
        return None if self.part.strata is None else stats.macro_weights(self.part.strata)

    def mean_of(self, matrix: np.ndarray) -> np.ndarray:
        weights = self.weights
        return matrix.mean(axis=0) if weights is None else (matrix * weights[:, None]).sum(axis=0)


def _summary_rows(view: _View, boot, bounds, runs, measures, settings) -> list[dict]:
    n = view.flat.shape[0]
    means = view.mean_of(view.flat)
    low, high = stats.percentile_interval(boot, settings["confidence"])
    nan = np.full(view.flat.shape[1], np.nan)
    macro = view.part.strata is not None
    normal = (nan, nan) if macro else stats.normal_interval(view.flat, settings["confidence"])
    ties = (nan, nan)
    if bounds is not None:
        ties = tuple(view.mean_of(b.transpose(0, 2, 1).reshape(n, -1)) for b in bounds)
    label = {"stratum": view.part.section.label}
    return [
        label
        | {
            "run": run,
            "measure": measure,
            "queries": n,
            "mean": means[c],
            "ci_low": low[c],
            "ci_high": high[c],
            "normal_low": normal[0][c],
            "normal_high": normal[1][c],
            "tie_low": ties[0][c],
            "tie_high": ties[1][c],
        }
        for m, measure in enumerate(measures)
        for r, run in enumerate(runs)
        for c in (view.column(m, r),)
    ]


def _tested_section(section: Section, settings: dict, runs: int) -> Section:
    """``section`` with the smallest p its test can reach over its topics and, when that
    is not below alpha, a note saying so (nothing of it is then marked significant)."""
    name, alpha = settings["test"], settings["alpha"]
    if runs < 2:
        return section
    floor = statistical_tests.smallest_p(name, section.topics, settings["samples"], runs)
    notes: tuple[str, ...] = ()
    if section.topics < 2:
        notes = ("With fewer than 2 topics no paired test is defined: no p-value.",)
    elif floor >= alpha:
        label = settings["names"]["macro_test" if section.kind == MACRO else "test"]
        notes = (
            f"With {section.topics} topics the {label} cannot reach p < {alpha:g}: the "
            f"smallest p it can honestly give is {floor:.3g} "
            f"({_floor_reason(name, section.topics, settings['samples'], runs)}). Nothing is "
            "marked significant here.",
        )
    return replace(section, smallest_p=floor, notes=notes)


def _floor_reason(name: str, topics: int, samples: int, runs: int) -> str:
    test = statistical_tests.get(name)
    if test.family_wise and statistical_tests.smallest_p(name, topics, samples, runs) > 1 / (
        samples + 1
    ):
        return (
            f"{runs}!/{runs}!^{topics}: the same permutation of every topic keeps the means' range"
        )
    if test.family_wise:
        return f"1/(samples + 1) with {samples:,} samples"
    if test.exact_below and 2**topics > samples:
        return f"1/(samples + 1) with {samples:,} sampled sign patterns"
    return (
        f"2/2^{topics}: the exact sign-flip test's smallest p, below which no test that "
        "assumes nothing of the differences' distribution can go"
    )


def _pair_tests(view: _View, pairs, boot, settings, progress) -> tuple[np.ndarray, list]:
    """p-value of every pair ``(m, i, j)`` under the chosen test (NaN where it is
    undefined) and, per pair, why it is undefined (None where it is not)."""
    name = settings["test"]
    left = np.array([view.column(m, i) for m, i, _ in pairs], dtype=np.int64)
    right = np.array([view.column(m, j) for m, _, j in pairs], dtype=np.int64)
    n_measures = view.flat.shape[1] // view.runs
    paired = stats.Paired(
        view.flat,
        left,
        right,
        settings["samples"],
        settings["seed"],
        strata=view.part.strata,
        resampled=boot,
        families=tuple(np.arange(m * view.runs, (m + 1) * view.runs) for m in range(n_measures)),
        progress=progress,
    )
    topics = view.flat.shape[0]
    p = np.full(len(pairs), np.nan) if topics < 2 else stats.pair_p_values(name, paired)
    undefined = np.flatnonzero(np.isnan(p))
    why: list[str | None] = [None] * len(pairs)
    for k in undefined:
        diffs = view.flat[:, left[k]] - view.flat[:, right[k]]
        why[k] = _undefined_reason(name, diffs, view.part.strata)
    return p, why


def _undefined_reason(name: str, diffs: np.ndarray, strata) -> str:
    """Why test ``name`` gives no p-value for these per-topic differences."""
    test = statistical_tests.get(name)
    if diffs.size < 2:
        return "fewer than 2 topics"
    if strata is not None and test.macro_label is None:
        return f"the {test.label} has no form for macro means"
    if strata is not None and name == "t" and np.unique(strata, return_counts=True)[1].min() < 2:
        return "a stratum has fewer than 2 topics (no variance for the stratified t-test)"
    if not diffs.any():
        return "every per-topic difference is 0"
    if test.undefined_if_constant and stats.constant(diffs, strata)[0]:
        within = " within every stratum" if strata is not None else ""
        return f"the per-topic differences do not vary{within}: {test.undefined_if_constant}"
    return "the test is undefined for these differences"


def _pairs_left_out(runs: int) -> str:
    return (
        f"All pairs: not listed for {runs} runs (over {PAIRS_RUNS}: the table would grow "
        "with the square of the runs); the comparisons with the baseline are complete."
    )


def _adjusted(p: np.ndarray, settings: dict, section: Section) -> tuple[np.ndarray, np.ndarray]:
    """Adjusted p-values (family-wise tests: as they are) and which are significant
    (none where the test cannot reach alpha over the section's topics)."""
    family_wise = statistical_tests.get(settings["test"]).family_wise
    adjusted = p.copy() if family_wise else stats.adjust(p, settings["correction"])
    reachable = section.smallest_p is None or section.smallest_p < settings["alpha"]
    return adjusted, (adjusted < settings["alpha"]) & reachable


def _pair_rows(view, pairs, p, why, runs, measures, settings, section) -> list[dict]:
    adjusted, significant = _adjusted(p, settings, section)
    label = {"stratum": section.label}
    rows = []
    for k, (m, i, j) in enumerate(pairs):
        columns = [view.column(m, i)], [view.column(m, j)]
        difference = view.mean_of(view.flat[:, columns[0]] - view.flat[:, columns[1]])[0]
        winner = None
        if significant[k] and difference != 0:
            ahead = _better(np.array([difference]), measures[m])[0] > 0
            winner = runs[i] if ahead else runs[j]
        rows.append(
            label
            | {
                "run": runs[i],
                "other": runs[j],
                "measure": measures[m],
                "difference": difference,
                "p_value": p[k],
                "p_adjusted": adjusted[k],
                "significant": bool(significant[k]),
                "winner": winner,
                "p_undefined": why[k],
            }
        )
    return rows


def _comparison_rows(
    view, boot, compared, tested, qids, runs, measures, baseline, settings, section
) -> tuple[list[dict], list[dict]]:
    """Rows against the baseline and their topic movers."""
    flat, macro = view.flat, view.part.strata is not None
    left = [view.column(m, r) for m, r in compared]
    right = [view.column(m, baseline) for m, _ in compared]
    diffs = flat[:, left] - flat[:, right]
    means = view.mean_of(flat)
    diff_low, diff_high = stats.percentile_interval(
        boot[:, left] - boot[:, right], settings["confidence"]
    )
    p, why = tested
    adjusted, significant = _adjusted(p, settings, section)
    effect = np.full(len(compared), np.nan) if macro else stats.effect_size(diffs)
    welch = [np.full(len(compared), np.nan)] * 3
    if not macro:
        welch = list(stats.welch_t_test(flat[:, left], flat[:, right]))
    welch_adjusted = stats.adjust(welch[2], settings["correction"])
    label = {"stratum": section.label}
    rows, movers = [], []
    for k, (m, r) in enumerate(compared):
        base_mean = means[right[k]]
        difference = means[left[k]] - base_mean
        better = _better(diffs[:, k], measures[m])
        head = label | {"run": runs[r], "baseline": runs[baseline], "measure": measures[m]}
        rows.append(
            head
            | {
                "queries": flat.shape[0],
                "difference": difference,
                "ci_low": diff_low[k],
                "ci_high": diff_high[k],
                "relative_change": 100 * difference / base_mean if base_mean else math.nan,
                "effect_size": effect[k],
                "p_value": p[k],
                "p_adjusted": adjusted[k],
                "significant": bool(significant[k]),
                "wins": int(np.count_nonzero(better > 0)),
                "ties": int(np.count_nonzero(better == 0)),
                "losses": int(np.count_nonzero(better < 0)),
                "welch_t": welch[0][k],
                "welch_df": welch[1][k],
                "welch_p": welch[2][k],
                "welch_p_adjusted": welch_adjusted[k],
                "p_undefined": why[k],
            }
        )
        if not macro:  # a macro section has the same topics as the whole: movers there
            values = flat[:, right[k]], flat[:, left[k]]
            movers += _mover_rows(head, better, diffs[:, k], values, qids, settings["movers"])
    return rows, movers


def _mover_rows(head: dict, better, diffs, values, qids: list[str], count: int) -> list[dict]:
    """The ``count`` topics with the largest gains and losses (``values``: the
    baseline's and the run's per topic; ``better``: the differences turned so that
    positive is better)."""
    rows = []
    for kind, sign in (("gain", 1), ("loss", -1)):
        moved = np.flatnonzero(sign * better > 0)
        # largest moves first; equal moves in topic order
        moved = moved[np.argsort(-sign * better[moved], kind="stable")][:count]
        rows += [
            head
            | {
                "kind": kind,
                "rank": rank,
                "qid": qids[t],
                "baseline_value": values[0][t],
                "value": values[1][t],
                "difference": diffs[t],
            }
            for rank, t in enumerate(moved, start=1)
        ]
    return rows


_COLUMNS = {
    "summary": ["stratum", "run", "measure", "queries", "mean", "ci_low", "ci_high",
                "normal_low", "normal_high", "tie_low", "tie_high"],
    "comparisons": ["stratum", "run", "baseline", "measure", "queries", "difference", "ci_low",
                    "ci_high", "relative_change", "effect_size", "p_value", "p_adjusted",
                    "significant", "wins", "ties", "losses", "welch_t", "welch_df", "welch_p",
                    "welch_p_adjusted", "p_undefined"],
    "pairs": ["stratum", "run", "other", "measure", "difference", "p_value", "p_adjusted",
              "significant", "winner", "p_undefined"],
    "movers": ["stratum", "run", "baseline", "measure", "kind", "rank", "qid",
               "baseline_value", "value", "difference"],
}  # fmt: skip


def _strata_fields(strata, group_by) -> tuple[dict[str, dict[str, str]] | None, list[str]]:
    """``({field: {qid: value}}, fields)`` from ``{qid: value}`` (named ``group_by``,
    default ``stratum``) or ``{field: {qid: value}}``."""
    if strata is None:
        return None, []
    if strata and all(isinstance(value, Mapping) for value in strata.values()):
        fields = {str(f): {str(q): str(v) for q, v in m.items()} for f, m in strata.items()}
    else:
        name = group_by if isinstance(group_by, str) else (list(group_by or []) or ["stratum"])[0]
        fields = {str(name): {str(q): str(v) for q, v in strata.items()}}
    return fields, list(fields)


def _sections(universe: list[str], fields: dict[str, dict[str, str]] | None) -> list[_Section]:
    index = np.arange(len(universe))
    parts = [_Section(Section(ALL, ALL, None, None, len(universe)), index, None)]
    for name, mapping in (fields or {}).items():
        values = np.array([mapping.get(qid) for qid in universe], dtype=object)
        present = np.flatnonzero(values != None)  # noqa: E711 (element-wise)
        if not len(present):
            continue
        labels = values[present].astype(str)
        macro = Section(f"{name}:{MACRO}", MACRO, name, None, len(present))
        parts.append(_Section(macro, present, labels))
        for value in sorted(set(labels)):
            rows = present[labels == value]
            parts.append(
                _Section(Section(f"{name}={value}", "stratum", name, value, len(rows)), rows, None)
            )
    return parts


def _correction_name(test: str, correction: str) -> str:
    """How the p-values are adjusted: a family-wise test's are not adjusted again."""
    if statistical_tests.get(test).family_wise:
        return (
            f"none (the {TEST_NAMES[test]}'s p-values are family-wise over all pairs of runs "
            f"of a measure; --correction {correction} is not applied)"
        )
    return CORRECTION_NAMES[correction]


def compare_scores(
    per_query: pd.DataFrame,
    *,
    queries: Sequence[str] | None = None,
    baseline: str | None = None,
    test: str = "t",
    correction: str = "holm",
    samples: int = 10_000,
    seed: int = 0,
    confidence: float = 0.95,
    missing: str = "zero",
    strata: Mapping | None = None,
    group_by: str | Sequence[str] | None = None,
    progress: Progress | None = None,
    bounds: pd.DataFrame | None = None,
    movers: int = MOVERS,
) -> Comparison:
    """Statistics over per-query values (``run, qid, measure, value``; see :func:`compare`).

    ``queries`` are the topics that count with ``missing="zero"`` (the qrels topics);
    default: every qid in ``per_query``. ``strata`` maps qid to a stratum value (the field
    named ``group_by``), or field to such a mapping (several groupings); topics without a
    value are left out of that field's sections, not out of the overall analysis.
    ``bounds`` (``run, qid, measure, low, high``) are per-topic tie bounds
    (:attr:`trecbench.Evaluation.tie_bounds_per_query`); ``movers`` how many topics to list
    per run, measure and direction.
    """
    _check_settings(test, correction, samples, seed, confidence, missing)
    if not isinstance(movers, numbers.Integral) or movers < 0:
        raise UsageError(f"movers must be a non-negative integer, not {movers!r}")
    fields, group_fields = _strata_fields(strata, group_by)
    per_query = per_query.astype({"run": str, "qid": str, "measure": str})
    finite = np.isfinite(per_query["value"].to_numpy(dtype=np.float64))
    if not finite.all():
        row = per_query[~finite].iloc[0]
        value = "undefined" if math.isnan(row["value"]) else row["value"]
        raise UsageError(f"run {row['run']!r}: {row['measure']} is {value} for {row['qid']!r}")
    runs = list(dict.fromkeys(per_query["run"]))
    measures = list(dict.fromkeys(per_query["measure"]))
    if not runs:
        raise UsageError("nothing to compare: no per-query values")
    baseline = runs[0] if baseline is None else baseline
    if baseline not in runs:
        raise UsageError(f"baseline {baseline!r} is not one of the runs: {', '.join(runs)}")
    evaluated = {run: set(frame["qid"]) for run, frame in per_query.groupby("run", sort=False)}
    topics = sorted(set(map(str, per_query["qid"] if queries is None else queries)))
    absent = {run: [qid for qid in topics if qid not in evaluated[run]] for run in runs}
    universe = topics
    if missing == "drop":
        universe = [qid for qid in topics if all(qid in evaluated[run] for run in runs)]
    if not universe:
        raise UsageError("no topic is evaluated in every run (missing='drop')")

    cube = _cube(per_query, runs, measures, universe)
    absent_pairs = np.isnan(cube)  # only absent (run, qid) pairs are NaN here
    cube[absent_pairs] = 0.0
    tie_cubes = None
    if bounds is not None:
        bounds = bounds.astype({"run": str, "qid": str, "measure": str})
        tie_cubes = tuple(_cube(bounds, runs, measures, universe, side) for side in ("low", "high"))
        for side in tie_cubes:
            side[absent_pairs] = 0.0  # no results: 0 in every order
    settings = {
        "baseline": baseline,
        "measures": measures,
        "test": test,
        "correction": correction,
        "samples": int(samples),
        "seed": int(seed),
        "confidence": float(confidence),
        "alpha": round(1 - confidence, 12),
        "missing": missing,
        "group_by": group_fields,
        "better": {measure: direction(measure) for measure in measures},
        "interval": "bootstrap percentile",
        "macro_interval": "stratified bootstrap percentile",
        "effect_size": "cohen_dz",
        "alternative": "two-sided",
        "movers": int(movers),
        "tie_bounds": bounds is not None,
        "independent": {
            "test": "Welch two-sample t-test",
            "interval": "normal approximation: mean ± z·sd/√n",
            "note": "ignores that runs answer the same topics: weaker than the paired tests",
        },
        "names": {  # for readers of the report (and trecbench.comparison_text)
            "test": TEST_NAMES[test],
            "macro_test": MACRO_TEST_NAMES[test],
            "correction": _correction_name(test, correction),
        },
        "family_wise": statistical_tests.get(test).family_wise,
        "random_streams": {
            "bootstrap": [seed, stats.BOOTSTRAP_STREAM],
            "randomization": [seed, stats.RANDOMIZATION_STREAM],
            "stratified_bootstrap": [seed, stats.STRATIFIED_STREAM],
            "tukey": [seed, stats.TUKEY_STREAM],
        },
    }
    parts = _sections(universe, fields)
    own_draws = statistical_tests.SAMPLES in statistical_tests.get(test).options
    passes = 2 if own_draws and test != "bootstrap" and len(runs) > 1 else 1
    total = passes * samples * len(parts)
    rows: dict[str, list[dict]] = {name: [] for name in _COLUMNS}
    for k, part in enumerate(parts):
        advance = None
        if progress is not None:

            def advance(done: int, _offset: int = k * passes * samples) -> None:
                progress(_offset + done, total)

        section_bounds = None if tie_cubes is None else tuple(c[part.rows] for c in tie_cubes)
        found, tested = _analyse(
            part,
            cube[part.rows],
            section_bounds,
            [universe[i] for i in part.rows],
            runs,
            measures,
            runs.index(baseline),
            settings,
            advance,
        )
        for name, found_rows in found.items():
            rows[name] += found_rows
        part.section = tested

    tidy = pd.DataFrame(
        {
            "run": np.repeat(runs, len(universe) * len(measures)),
            "qid": np.tile(np.repeat(universe, len(measures)), len(runs)),
            "measure": np.tile(measures, len(universe) * len(runs)),
            "value": cube.transpose(1, 0, 2).ravel(),
        }
    )
    frames = {name: pd.DataFrame(rows[name], columns=columns) for name, columns in _COLUMNS.items()}
    return Comparison(
        runs=runs,
        baseline=baseline,
        measures=measures,
        queries=universe,
        settings=settings,
        sections=[part.section for part in parts],
        summary=frames["summary"],
        comparisons=frames["comparisons"],
        pairs=frames["pairs"],
        movers=frames["movers"],
        per_query=tidy,
        missing=absent,
        strata=None
        if fields is None
        else {f: {q: m[q] for q in universe if q in m} for f, m in fields.items()},
    )


# ---------------------------------------------------------------------------------------
# scoring runs first


def _named_runs(runs) -> dict[str, Any]:
    """``{name: run}`` from one run, a sequence of runs or a mapping (see
    :func:`trecbench.inputs.split_runs`); a file is named after its file name, an in-memory
    run (DataFrame, Arrow table, dict, records) ``run1``, ``run2``..."""
    from .inputs import split_runs

    sources, names = split_runs(runs)
    if names is not None:
        return dict(zip(names, sources, strict=True))
    named: dict[str, Any] = {}
    for i, run in enumerate(sources, start=1):
        name = run_name(run) if isinstance(run, (str, os.PathLike)) else f"run{i}"
        if name in named:
            raise UsageError(f"two runs are named {name!r}; name them apart (e.g. --names)")
        named[name] = run
    if not named:
        raise UsageError("nothing to compare: no run given")
    return named


def _qrels_per_run(qrels, run_qrels, named: Mapping[str, Any]) -> list[tuple[Any, list[str]]]:
    """``[(qrels, run names)]``: the runs grouped by the qrels they are scored with, their
    own (``run_qrels``: run name -> qrels) or else the shared ``qrels``."""
    run_qrels = {str(name): source for name, source in (run_qrels or {}).items()}
    unknown = sorted(set(run_qrels) - set(named))
    if unknown:
        raise UsageError(f"qrels given for {', '.join(unknown)}, which is not a run")
    if qrels is not None and set(run_qrels) == set(named):
        raise UsageError("every run has its own qrels (run_qrels): the shared qrels is unused")
    groups: dict[Any, tuple[Any, list[str]]] = {}
    for name in named:
        source = run_qrels.get(name, qrels)
        if source is None:
            raise UsageError(f"run {name!r} has no qrels (give one for all, or its own)")
        key = os.path.abspath(source) if isinstance(source, (str, os.PathLike)) else id(source)
        groups.setdefault(key, (source, []))[1].append(name)
    return list(groups.values())


def _strata_map(strata, group_by, topics: list[str]) -> dict[str, dict[str, str]] | None:
    """field -> topic -> stratum: a given mapping, or :func:`trecbench.strata.group_labels`
    of the topics per ``group_by`` field (a sidecar's field, or ``qid-prefix``; topics
    without a value: ``(none)``)."""
    fields = [group_by] if isinstance(group_by, str) else list(group_by or [])
    if isinstance(strata, Mapping):
        mapping, _ = _strata_fields(strata, fields[0] if fields else None)
        return mapping
    if not fields:
        if strata is not None:
            raise UsageError("--strata needs --group-by FIELD (which stratum to compare by)")
        return None
    from .strata import group_labels, load_strata

    frame = None if strata is None else load_strata(strata)
    series = pd.Series(topics, dtype=object)
    return {
        name: dict(zip(topics, group_labels(series, frame, name).astype(str), strict=True))
        for name in dict.fromkeys(fields)
    }


@outputs.in_input_scope
def compare(
    qrels: QrelsInput | None,
    runs: RunInput | Sequence[RunInput] | Mapping[str, RunInput],
    measures: Sequence[str] | None = None,
    *,
    run_qrels: Mapping[str, QrelsInput] | None = None,
    baseline: str | None = None,
    test: str = "t",
    correction: str = "holm",
    samples: int = 10_000,
    seed: int = 0,
    confidence: float = 0.95,
    missing: str = "zero",
    strata=None,
    group_by: str | Sequence[str] | None = None,
    progress: Callable[[str, int, int | None], None] | None = None,
    relevance_level: int = 1,
    max_docs: int | None = None,
    judged_only: bool = False,
    options: Mapping[str, Any] | None = None,
    allow_unjudged: bool = False,
    unjudged_threshold: float = 0.5,
    tie_bounds: bool = True,
    movers: int = MOVERS,
    memory: int | None = None,
    jobs: int | None = None,
) -> Comparison:
    """Score ``runs`` against ``qrels`` and compare them with statistics.

    ``qrels`` and each run: any input :mod:`trecbench.inputs` reads (paths, DataFrames,
    Arrow tables, dicts, ir_measures records; an ir_datasets id for the qrels). ``runs``:
    one run, a sequence of them (named after their files without ``.run``/``.gz``;
    in-memory runs ``run1``, ``run2``...) or a mapping ``{name: run}``. ``run_qrels``:
    ``{run name: qrels}`` for runs with qrels of their own (e.g. code-chunk's chunkers,
    whose chunk ids differ; ``qrels`` may then be None); topics are paired by qid across
    runs. ``measures``: any spelling :func:`trecbench.measures.parse_measure` accepts;
    default the KPI preset.
    ``baseline``: a run name (default: the first run). ``test``: ``t`` | ``bootstrap`` |
    ``randomization``; ``correction``: ``holm`` | ``bonferroni`` | ``bh`` | ``none``,
    applied over all comparisons of a section. ``samples`` bootstrap (and randomisation)
    resamples drawn from ``seed``. ``missing``: ``zero`` (trec_eval ``-c``) or ``drop``.
    ``strata``: a converter sidecar path, with ``group_by`` naming its field(s) (or
    ``group_by="qid-prefix"`` without sidecar: the qid up to its last ``/``), or a mapping
    ``{qid: value}``. ``progress(label, done, total)`` is told how reading the files,
    scoring the runs (see :func:`trecbench.evaluate`) and resampling (label
    ``resampling``) advance.

    A run whose retrieved documents the qrels mostly do not know
    (:meth:`trecbench.evaluation.Unjudged.flagged` with ``unjudged_threshold``) is refused
    (:class:`~trecbench.errors.UsageError`) unless ``allow_unjudged``; it then stays in
    ``Comparison.warnings``. ``tie_bounds``: the means' bounds over all orders of tied
    documents (:mod:`trecbench.tiebounds`). ``movers``: topics listed per direction.
    ``memory`` (MiB) and ``jobs`` (processes) are :func:`trecbench.evaluate`'s.

    The evaluation options are :func:`trecbench.evaluate`'s (trec_eval's flags of
    ``trecbench score``): ``relevance_level`` (``-l``), ``max_docs`` (``-M``),
    ``judged_only`` (``-J``) and ``options`` for local measures (``maxontsim_formula``,
    ``ontology``: an HPO file for MaxOntSim). They are recorded in the report, with the
    ontology's release and checksum when a MaxOntSim measure is compared.
    """
    from .evaluation import evaluate
    from .report import evaluation_provenance, input_record

    named = _named_runs(runs)
    _check_settings(test, correction, samples, seed, confidence, missing)
    if not isinstance(unjudged_threshold, numbers.Real) or not 0 <= unjudged_threshold <= 1:
        raise UsageError(f"unjudged threshold must be between 0 and 1, not {unjudged_threshold!r}")
    evaluations = [
        (
            evaluate(
                source,
                [named[name] for name in names],
                measures,
                relevance_level=relevance_level,
                max_docs=max_docs,
                judged_only=judged_only,
                run_names=names,
                options=dict(options or {}),
                progress=progress,
                tie_bounds=tie_bounds,
                memory=memory,
                jobs=jobs,
            ),
            names,
        )
        for source, names in _qrels_per_run(qrels, run_qrels, named)
    ]
    warnings = [
        run.unjudged.message(run.name, evaluation.qrels_path)
        for evaluation, _ in evaluations
        for run in evaluation.unjudged_runs(unjudged_threshold)
    ]
    if warnings and not allow_unjudged:
        raise UsageError(
            "; ".join(warnings) + ". compare refuses to rank runs on documents the qrels "
            "do not know (--allow-unjudged, allow_unjudged=True: compare anyway)"
        )
    topics_of = {
        name: evaluation.qrels_topics for evaluation, names in evaluations for name in names
    }
    shared = set.intersection(*(set(topics) for topics in topics_of.values()))
    topics = sorted(shared)
    unpaired = {name: [q for q in topics_of[name] if q not in shared] for name in named}
    if not topics:
        raise UsageError("the runs' qrels share no topic: nothing can be paired")
    per_query = pd.concat([e.per_query for e, _ in evaluations], ignore_index=True)
    bounds = None
    if tie_bounds:
        bounds = pd.concat([e.tie_bounds_per_query for e, _ in evaluations], ignore_index=True)
    comparison = compare_scores(
        per_query[per_query["qid"].isin(shared)],
        queries=topics,
        baseline=baseline,
        test=test,
        correction=correction,
        samples=samples,
        seed=seed,
        confidence=confidence,
        missing=missing,
        strata=_strata_map(strata, group_by, topics),
        group_by=group_by,
        progress=None if progress is None else partial(progress, "resampling"),
        bounds=bounds,
        movers=movers,
    )
    comparison.settings["unjudged_threshold"] = float(unjudged_threshold)
    comparison.settings["allow_unjudged"] = bool(allow_unjudged)
    comparison.warnings = warnings
    comparison.unpaired = unpaired
    files: list = []
    for evaluation, _ in evaluations:
        found, ontology = evaluation_provenance(evaluation)
        files += [spec for spec in found if spec not in files]
        comparison.ontology = comparison.ontology or ontology
    if strata is not None and not isinstance(strata, Mapping):
        files.append((strata, "strata"))
    known: dict = {}
    for evaluation, _ in evaluations:
        known |= evaluation.input_records  # taken when the evaluation read them
    comparison.inputs = [known.get(spec) or input_record(*spec) for spec in files]
    results = [(run, e) for e, _ in evaluations for run in e.runs]
    comparison.run_inputs = {run.name: run.path for run, _ in results}
    comparison.run_qrels = {run.name: e.qrels_path for run, e in results}
    comparison.unjudged = {
        run.name: None
        if run.unjudged is None
        else {
            "depth": run.unjudged.depth,
            "retrieved": run.unjudged.retrieved,
            "unjudged": run.unjudged.unjudged,
            "fraction": run.unjudged.fraction,
            "topics": run.unjudged.topics,
            "empty_topics": run.unjudged.empty_topics,
        }
        for run, _ in results
    }
    first = evaluations[0][0]
    comparison.evaluation = {
        "relevance_level": relevance_level,
        "max_docs": max_docs,
        "judged_only": judged_only,
        "maxontsim_formula": first.options.get("maxontsim_formula"),
        "ontology": _path_text(first.options.get("ontology")),
    }
    return comparison


def _path_text(path) -> str | None:
    return None if path is None else os.fspath(path)


# ---------------------------------------------------------------------------------------
# plots: the figures take plain arrays (trecbench.plots never sees this module)


def plot_files(comparison: Comparison, order: str = "difference") -> dict[str, bytes]:
    """File name -> bytes of every plot: ``means`` and, with two runs or more,
    ``differences`` (topics ordered by ``order``: ``difference`` or ``baseline``), as PNG
    and SVG, for all topics, each macro section (means only) and each stratum."""
    extras.require("matplotlib", "plots")
    from . import plots

    files = {}
    level = f"{comparison.settings['confidence']:.0%}"
    others = [run for run in comparison.runs if run != comparison.baseline]
    suffixes = plots.file_suffixes(comparison.stratum_labels)
    for section in comparison.sections:
        summary = comparison.part(comparison.summary, section.label)
        where = "" if section.kind == ALL else f" ({section.title})"
        wide = summary.pivot(index="measure", columns="run")
        figures = {
            "means": plots.means_figure(
                comparison.runs,
                comparison.measures,
                *(
                    wide[name]
                    .reindex(index=comparison.measures, columns=comparison.runs)
                    .to_numpy()
                    for name in ("mean", "ci_low", "ci_high")
                ),
                title=f"Means over {section.topics} topics{where}; baseline {comparison.baseline}",
                ylabel=f"mean, {level} CI",
            )
        }
        if others and section.kind != MACRO:
            topics = comparison.topics_of(section.label)
            values = _plot_cube(comparison, topics)  # measures x runs x topics
            tests = comparison.part(comparison.comparisons, section.label)
            tests = tests.set_index(["measure", "run"])
            shown = ["difference", "ci_low", "ci_high"]
            intervals = np.array(
                [
                    [tests.loc[(m, run), shown].to_numpy(float) for run in others]
                    for m in comparison.measures
                ]
            )
            base = comparison.runs.index(comparison.baseline)
            rest = [comparison.runs.index(run) for run in others]
            figures["differences"] = plots.differences_figure(
                others,
                comparison.measures,
                values[:, base, :],
                values[:, rest, :],
                intervals,
                baseline=comparison.baseline,
                order=order,
                title=f"Per-topic difference against {comparison.baseline}{where}",
                level=level,
                colors=[f"C{i}" for i in rest],  # each run's colour in the means figure
            )
        for name, figure in figures.items():
            for fmt in plots.FORMATS:
                files[_plot_file(name, suffixes[section.label], fmt)] = plots.figure_bytes(
                    figure, fmt
                )
    return files


def _plot_file(figure: str, suffix: str, fmt: str) -> str:
    """``means_language-de.png``: the figure, its section's suffix, the format."""
    return f"{figure}{suffix}.{fmt}"


def _plot_cube(comparison: Comparison, topics: list[str]) -> np.ndarray:
    """``measures x runs x topics`` per-topic values of ``topics``."""
    cube = _cube(comparison.per_query, comparison.runs, comparison.measures, topics)
    return cube.transpose(2, 1, 0)
