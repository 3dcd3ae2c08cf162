"""Compare runs: means with bootstrap intervals, differences against a baseline, paired
significance tests and multiple-comparison correction — overall and per stratum.

:func:`compare` scores the runs with :func:`trecbench.evaluate` and hands the per-query
values to :func:`compare_scores`, which does the statistics (see :mod:`trecbench.stats` for
the conventions) on one ``queries x runs x measures`` array per stratum.

Which queries count (``missing``), recorded in the report:

* ``"zero"`` (default, trec_eval ``-c``): every topic of the qrels counts; a run without
  results for a topic scores 0 on it.
* ``"drop"``: only topics that every run was evaluated on (the pairs all runs share).

Strata (``group_by``) are analysed like the whole: the same seed, their own resamples and
their own family for the p-value correction.

Which way is better (:func:`direction`, recorded in the report's ``settings.better``) is
the measure registry's ``better`` (:func:`trecbench.measures.better`): higher for every
measure of a ranking's quality, lower for ``num_nonrel_judged_ret`` (judged non-relevant
documents retrieved), and neither for counts such as ``num_ret`` and ``num_rel`` and for
diagnostics such as ``Judged@k``; higher for a name the registry does not know.
"Best run" and the ▲/▼ markers (significantly better/worse) follow it; a measure without a
direction gets no best run and ↑/↓ (significantly higher/lower).
"""

from __future__ import annotations

import math
import numbers
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from . import outputs, stats
from .errors import UsageError
from .inputs import QrelsInput, RunInput

MISSING = ("zero", "drop")
ALL = "all"  # stratum label of the analysis over all topics; strata are "FIELD=VALUE"
TEST_NAMES = {
    "t": "paired t-test",
    "bootstrap": "paired bootstrap test",
    "randomization": "randomisation (sign-flip permutation) test",
}
CORRECTION_NAMES = {
    "holm": "Holm",
    "bonferroni": "Bonferroni",
    "bh": "Benjamini-Hochberg",
    "none": "no correction",
}
REPORT_FILE = "BenchmarkReport.json"
MARKDOWN_FILE = "BenchmarkComparison.md"
SCHEMA = "benchmark_report"  # trecbench/schemas/benchmark_report.schema.json
SCHEMA_VERSION = 1
HIGHER, LOWER = "higher", "lower"

Progress = Callable[[int, int], None]


def run_name(path: str | os.PathLike) -> str:
    """Default display name of a run file: its file name without ``.gz`` and ``.run``."""
    return Path(path).name.removesuffix(".gz").removesuffix(".run")


def direction(measure: str) -> str | None:
    """``"higher"`` or ``"lower"``: which values of ``measure`` (a display name) are
    better; None for counts that are neither (see the module docstring)."""
    from .measures import better

    return better(measure)


def measure_group(measure: str) -> str:
    """Table a measure belongs to: recall-type measures apart from rank-sensitive ones."""
    family = measure.split("@")[0].split("_cut")[0].lower()
    if family in ("recall", "r", "recall_all", "hitrate", "success"):
        return "Recall and hit rate"
    return "Ranking quality"


@dataclass
class Comparison:
    """Result of :func:`compare`.

    ``summary``: stratum, run, measure, queries, mean, ci_low, ci_high.
    ``comparisons``: stratum, run, baseline, measure, queries, difference, ci_low, ci_high
    (interval of the difference), relative_change (percent of the baseline mean; NaN when
    that is 0), effect_size (d_z), p_value, p_adjusted, significant (p_adjusted < alpha).
    ``per_query``: run, qid, measure, value after the ``missing`` policy.
    ``missing``: per run, the topics it had no result for (scored 0 or dropped).
    ``strata``: qid -> stratum value when grouped, else None.
    ``evaluation``: the options :func:`trecbench.evaluate` was called with (None when the
    per-query values were given); ``ontology``: provenance of the ontology behind MaxOntSim.
    """

    runs: list[str]
    baseline: str
    measures: list[str]
    queries: list[str]
    settings: dict
    summary: pd.DataFrame
    comparisons: pd.DataFrame
    per_query: pd.DataFrame
    missing: dict[str, list[str]]
    strata: dict[str, str] | None = None
    inputs: list[dict] | None = None
    run_inputs: dict[str, str] | None = None
    evaluation: dict | None = None
    ontology: dict | None = None

    @property
    def stratum_labels(self) -> list[str]:
        """``"all"`` followed by one ``"FIELD=VALUE"`` label per stratum, values sorted."""
        return list(dict.fromkeys(self.summary["stratum"]))

    def part(self, frame: pd.DataFrame, label: str) -> pd.DataFrame:
        """Rows of ``summary`` or ``comparisons`` for one stratum label."""
        return frame[frame["stratum"] == label]

    def report(self, experiment_id: str | None = None, meta: Mapping[str, str] | None = None):
        """The BenchmarkReport as a JSON-ready dict (schema ``benchmark_report``).

        ``experiment_id`` links it to its ExperimentManifest; ``meta`` repeats the user's
        ``--meta`` pairs so the report stands alone.
        """
        from . import __version__
        from .report import _json_safe, environment, utc_now

        results = []
        for label in self.stratum_labels:
            summary = self.part(self.summary, label)
            comparisons = self.part(self.comparisons, label)
            field = None if label == ALL else self.settings["group_by"]
            results.append(
                {
                    "stratum": label,
                    "field": field,
                    "value": None if field is None else label[len(field) + 1 :],
                    "topics": int(summary["queries"].iloc[0]),
                    "summary": _json_safe(_rows(summary)),
                    "comparisons": _json_safe(_rows(comparisons)),
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
                    "missing_queries": self.missing[run],
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

    def markdown(self) -> str:
        """The BenchmarkComparison Markdown text (one table per measure group and stratum)."""
        return _markdown(self)

    def to_frame(self) -> pd.DataFrame:
        """One row per stratum, run and measure: the mean with its interval (``mean,
        ci_low, ci_high``) and, for runs other than the baseline, the comparison with it
        (``difference, diff_ci_low, diff_ci_high, relative_change, effect_size, p_value,
        p_adjusted, significant``; NaN for the baseline)."""
        tests = self.comparisons.drop(columns=["baseline", "queries"]).rename(
            columns={"ci_low": "diff_ci_low", "ci_high": "diff_ci_high"}
        )
        return self.summary.merge(tests, on=["stratum", "run", "measure"], how="left")

    def _describe(self) -> str:
        from .evaluate import _few

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

        rows = _cells(self, ALL, self.measures)
        head = "".join(f"<th>{escape(cell)}</th>" for cell in rows[0])
        body = "".join(
            "<tr>" + "".join(f"<td>{escape(cell)}</td>" for cell in row) + "</tr>"
            for row in rows[1:]
        )
        return (
            f"<p><code>{escape(self._describe())}</code></p>"
            f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
        )

    def write(
        self,
        outdir: str | os.PathLike,
        plots: bool = True,
        *,
        manifest: str | os.PathLike | None = None,
        meta: Mapping[str, str] | None = None,
        argv: Sequence[str] | None = None,
    ) -> list[Path]:
        """Write BenchmarkReport.json, BenchmarkComparison.md, (unless ``plots`` is false)
        the PNG and SVG plots into ``outdir`` and, if ``manifest`` is given, an
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
        }
        if plots:
            from .plots import plot_files

            files |= {out / name: (data, "plot") for name, data in plot_files(self).items()}
        if manifest is not None:
            manifest = Path(manifest)
            if any(manifest.resolve() == path.resolve() for path in files):
                raise UsageError(f"--manifest {manifest} would overwrite an output of compare")
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


def _rows(frame: pd.DataFrame) -> list[dict]:
    """Rows of one stratum as dicts of Python scalars, without ``stratum`` and ``queries``
    (the report states them once per stratum)."""
    return frame.drop(columns=["stratum", "queries"]).to_dict(orient="records")


def _check_settings(test, correction, samples, seed, confidence, missing) -> None:
    if test not in stats.TESTS:
        raise UsageError(f"unknown test {test!r}; choose one of {', '.join(stats.TESTS)}")
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
    per_query: pd.DataFrame, runs: list[str], measures: list[str], queries: list[str]
) -> np.ndarray:
    """``queries x runs x measures`` values; absent (run, qid) pairs are NaN."""
    frame = per_query.set_index(["qid", "run", "measure"])["value"]
    if frame.index.duplicated().any():
        qid, run, measure = frame.index[frame.index.duplicated()][0]
        raise UsageError(f"run {run!r}: two values of {measure} for topic {qid!r}")
    index = pd.MultiIndex.from_product([queries, runs, measures], names=frame.index.names)
    values = frame.reindex(index).to_numpy(dtype=np.float64)
    return values.reshape(len(queries), len(runs), len(measures))


def _analyse(
    cube: np.ndarray,
    runs: list[str],
    measures: list[str],
    baseline: int,
    settings: dict,
    advance: Callable[[int], None] | None,
) -> tuple[list[dict], list[dict]]:
    """Summary and comparison rows of one stratum (``cube``: queries x runs x measures).

    ``advance(done)`` is told how many resamples of this stratum are done (bootstrap
    first, then randomisation).
    """
    n, n_runs, n_measures = cube.shape
    seed, samples, confidence = settings["seed"], settings["samples"], settings["confidence"]
    flat = cube.transpose(0, 2, 1).reshape(n, n_measures * n_runs)  # column = m * R + r

    def column(m: int, r: int) -> int:
        return m * n_runs + r

    def stage(offset: int) -> stats.Progress | None:
        return None if advance is None else lambda done, _total: advance(offset + done)

    boot = stats.bootstrap_means(flat, samples, seed, stage(0))
    means = flat.mean(axis=0)
    low, high = stats.percentile_interval(boot, confidence)
    summary = [
        {
            "run": run,
            "measure": measure,
            "queries": n,
            "mean": means[column(m, r)],
            "ci_low": low[column(m, r)],
            "ci_high": high[column(m, r)],
        }
        for m, measure in enumerate(measures)
        for r, run in enumerate(runs)
    ]
    pairs = [(m, r) for m in range(n_measures) for r in range(n_runs) if r != baseline]
    if not pairs:
        return summary, []
    left = [column(m, r) for m, r in pairs]
    right = [column(m, baseline) for m, _ in pairs]
    diffs = flat[:, left] - flat[:, right]
    diff_boot = boot[:, left] - boot[:, right]
    diff_low, diff_high = stats.percentile_interval(diff_boot, confidence)
    if settings["test"] == "t":
        p = stats.paired_t_test(diffs)
    elif settings["test"] == "bootstrap":
        p = stats.bootstrap_p(diffs, diff_boot)
    else:
        p = stats.randomization_test(diffs, samples, seed, stage(samples))
    adjusted = stats.adjust(p, settings["correction"])
    effect = stats.effect_size(diffs)
    comparisons = []
    for i, (m, r) in enumerate(pairs):
        base_mean = means[column(m, baseline)]
        difference = diffs[:, i].mean()
        comparisons.append(
            {
                "run": runs[r],
                "baseline": runs[baseline],
                "measure": measures[m],
                "queries": n,
                "difference": difference,
                "ci_low": diff_low[i],
                "ci_high": diff_high[i],
                "relative_change": 100 * difference / base_mean if base_mean else math.nan,
                "effect_size": effect[i],
                "p_value": p[i],
                "p_adjusted": adjusted[i],
                "significant": bool(adjusted[i] < settings["alpha"]),
            }
        )
    return summary, comparisons


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
    strata: Mapping[str, str] | None = None,
    group_by: str | None = None,
    progress: Progress | None = None,
) -> Comparison:
    """Statistics over per-query values (``run, qid, measure, value``; see :func:`compare`).

    ``queries`` are the topics that count with ``missing="zero"`` (the qrels topics);
    default: every qid in ``per_query``. ``strata`` maps qid to a stratum value (topics
    without one are left out of the strata, not out of the overall analysis).
    """
    _check_settings(test, correction, samples, seed, confidence, missing)
    if strata is not None and group_by is None:
        group_by = "stratum"
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
    cube = np.nan_to_num(cube, nan=0.0)  # only absent (run, qid) pairs are NaN here
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
        "group_by": group_by,
        "better": {measure: direction(measure) for measure in measures},
        "interval": "bootstrap percentile",
        "effect_size": "cohen_dz",
        "alternative": "two-sided",
        "random_streams": {
            "bootstrap": [seed, stats.BOOTSTRAP_STREAM],
            "randomization": [seed, stats.RANDOMIZATION_STREAM],
        },
    }
    labels: dict[str, np.ndarray] = {ALL: np.arange(len(universe))}
    if strata is not None:
        values = np.array([strata.get(qid) for qid in universe], dtype=object)
        for label in sorted({v for v in values if v is not None}, key=str):
            labels[f"{group_by}={label}"] = np.flatnonzero(values == label)

    passes = 2 if test == "randomization" and len(runs) > 1 else 1
    total = passes * samples * len(labels)
    summary, comparisons = [], []
    for k, (label, rows) in enumerate(labels.items()):
        advance = None
        if progress is not None:

            def advance(done: int, _offset: int = k * passes * samples) -> None:
                progress(_offset + done, total)

        s, c = _analyse(cube[rows], runs, measures, runs.index(baseline), settings, advance)
        summary += [{"stratum": label} | row for row in s]
        comparisons += [{"stratum": label} | row for row in c]

    tidy = pd.DataFrame(
        {
            "run": np.repeat(runs, len(universe) * len(measures)),
            "qid": np.tile(np.repeat(universe, len(measures)), len(runs)),
            "measure": np.tile(measures, len(universe) * len(runs)),
            "value": cube.transpose(1, 0, 2).ravel(),
        }
    )
    comparison_columns = [
        "stratum", "run", "baseline", "measure", "queries", "difference", "ci_low", "ci_high",
        "relative_change", "effect_size", "p_value", "p_adjusted", "significant",
    ]  # fmt: skip
    return Comparison(
        runs=runs,
        baseline=baseline,
        measures=measures,
        queries=universe,
        settings=settings,
        summary=pd.DataFrame(summary),
        comparisons=pd.DataFrame(comparisons, columns=comparison_columns),
        per_query=tidy,
        missing=absent,
        strata=None if strata is None else {q: strata[q] for q in universe if q in strata},
    )


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


def _qrels_topics(qrels) -> list[str]:
    """Every topic of the qrels (what trec_eval -c averages over); ``qrels`` as
    :func:`trecbench.inputs.load_qrels` gives them."""
    import pyarrow.compute as pc

    return sorted(pc.unique(qrels.table.column("qid")).to_pylist())


def _strata_map(strata, group_by: str | None, topics: list[str]) -> dict[str, str] | None:
    """topic -> stratum: a given mapping, or :func:`trecbench.strata.group_labels` of the
    topics (a sidecar's field, or ``qid-prefix``; topics without a value: ``(none)``)."""
    if isinstance(strata, Mapping):
        return {str(qid): str(value) for qid, value in strata.items()}
    if group_by is None:
        if strata is not None:
            raise UsageError("--strata needs --group-by FIELD (which stratum to compare by)")
        return None
    from .strata import group_labels, load_strata

    frame = None if strata is None else load_strata(strata)
    labels = group_labels(pd.Series(topics, dtype=object), frame, group_by)
    return dict(zip(topics, labels.astype(str), strict=True))


@outputs.in_input_scope
def compare(
    qrels: QrelsInput,
    runs: RunInput | Sequence[RunInput] | Mapping[str, RunInput],
    measures: Sequence[str] | None = None,
    *,
    baseline: str | None = None,
    test: str = "t",
    correction: str = "holm",
    samples: int = 10_000,
    seed: int = 0,
    confidence: float = 0.95,
    missing: str = "zero",
    strata=None,
    group_by: str | None = None,
    progress: Callable[[str, int, int | None], None] | None = None,
    relevance_level: int = 1,
    max_docs: int | None = None,
    judged_only: bool = False,
    options: Mapping[str, Any] | None = None,
) -> Comparison:
    """Score ``runs`` against ``qrels`` and compare them with statistics.

    ``qrels`` and each run: any input :mod:`trecbench.inputs` reads (paths, DataFrames,
    Arrow tables, dicts, ir_measures records; an ir_datasets id for the qrels). ``runs``:
    one run, a sequence of them (named after their files without ``.run``/``.gz``;
    in-memory runs ``run1``, ``run2``...) or a mapping ``{name: run}``. ``measures``: any
    spelling :func:`trecbench.measures.parse_measure` accepts; default the KPI preset.
    ``baseline``: a run name (default: the first run). ``test``: ``t`` | ``bootstrap`` |
    ``randomization``; ``correction``: ``holm`` | ``bonferroni`` | ``bh`` | ``none``,
    applied over all comparisons of a stratum. ``samples`` bootstrap (and randomisation)
    resamples drawn from ``seed``. ``missing``: ``zero`` (trec_eval ``-c``) or ``drop``.
    ``strata``: a converter sidecar path, with ``group_by`` naming the field (or
    ``group_by="qid-prefix"`` without sidecar: the qid up to its last ``/``), or a mapping
    ``{qid: value}``. ``progress(label, done, total)`` is told how reading the files,
    scoring the runs (see :func:`trecbench.evaluate`) and resampling (label
    ``resampling``) advance.

    The evaluation options are :func:`trecbench.evaluate`'s (trec_eval's flags of
    ``trecbench score``): ``relevance_level`` (``-l``), ``max_docs`` (``-M``),
    ``judged_only`` (``-J``) and ``options`` for local measures (``maxontsim_formula``,
    ``ontology``: an HPO file for MaxOntSim). They are recorded in the report, with the
    ontology's release and checksum when a MaxOntSim measure is compared.
    """
    from .evaluate import evaluate, load
    from .report import evaluation_provenance, input_record

    named = _named_runs(runs)
    _check_settings(test, correction, samples, seed, confidence, missing)
    qrels = load(qrels, "qrels", progress=progress)  # once: for topics and evaluation
    topics = _qrels_topics(qrels)
    stratum_map = _strata_map(strata, group_by, topics)
    evaluation = evaluate(
        qrels,
        list(named.values()),
        measures,
        relevance_level=relevance_level,
        max_docs=max_docs,
        judged_only=judged_only,
        run_names=list(named),
        options=dict(options or {}),
        progress=progress,
    )
    comparison = compare_scores(
        evaluation.per_query,
        queries=topics,
        baseline=baseline,
        test=test,
        correction=correction,
        samples=samples,
        seed=seed,
        confidence=confidence,
        missing=missing,
        strata=stratum_map,
        group_by=group_by,
        progress=None if progress is None else partial(progress, "resampling"),
    )
    files, comparison.ontology = evaluation_provenance(evaluation)
    if strata is not None and not isinstance(strata, Mapping):
        files.append((strata, "strata"))
    known = evaluation.input_records  # taken when the evaluation read them
    comparison.inputs = [known.get(spec) or input_record(*spec) for spec in files]
    comparison.run_inputs = {run.name: run.path for run in evaluation.runs}
    comparison.evaluation = {
        "relevance_level": relevance_level,
        "max_docs": max_docs,
        "judged_only": judged_only,
        "maxontsim_formula": evaluation.options.get("maxontsim_formula"),
        "ontology": _path_text(evaluation.options.get("ontology")),
    }
    return comparison


def _path_text(path) -> str | None:
    return None if path is None else os.fspath(path)


def _fmt(value: float, digits: int = 4) -> str:
    return "n/a" if not math.isfinite(value) else f"{value:.{digits}f}"


def _fmt_p(value: float) -> str:
    if not math.isfinite(value):
        return "n/a"
    return f"{value:.4f}" if value >= 1e-4 else f"{value:.1e}"


def _marker(row: Mapping, alpha: float, measure: str) -> str:
    """ " ▲"/" ▼" (significantly better/worse; " ↑"/" ↓" higher/lower for a measure
    without a direction) plus one to three stars for adjusted p below alpha, alpha/5,
    alpha/50."""
    p = row["p_adjusted"]
    if not (math.isfinite(p) and p < alpha):
        return ""
    stars = "*" * (1 + (p < alpha / 5) + (p < alpha / 50))
    better = direction(measure)
    if better is None:
        return (" ↑" if row["difference"] > 0 else " ↓") + stars
    improved = row["difference"] > 0 if better == HIGHER else row["difference"] < 0
    return (" ▲" if improved else " ▼") + stars


def _best(means: pd.Series, runs: list[str], measure: str) -> list[str]:
    """Runs with the best mean (ties listed); none for a measure without a direction."""
    better = direction(measure)
    if better == HIGHER:
        return [run for run in runs if means[run] >= means.max() - 1e-12]
    if better == LOWER:
        return [run for run in runs if means[run] <= means.min() + 1e-12]
    return []


def _cells(
    comparison: Comparison, label: str, measures: list[str], bold: str = ""
) -> list[list[str]]:
    """Header and rows of a stratum's table: runs as columns, one row per measure (mean,
    interval, change and marker; the best mean between ``bold`` marks), a "best run"
    column."""
    alpha = comparison.settings["alpha"]
    summary = comparison.part(comparison.summary, label)
    summary = summary.set_index(["measure", "run"])
    tests = comparison.part(comparison.comparisons, label).set_index(["measure", "run"])
    header = [f"{run} (baseline)" if run == comparison.baseline else run for run in comparison.runs]
    rows = [["Measure", *header, "Best run"]]
    for measure in measures:
        means = summary.loc[measure]["mean"]
        best = _best(means, comparison.runs, measure)
        cells = []
        for run in comparison.runs:
            row = summary.loc[(measure, run)]
            mean = _fmt(row["mean"])
            cell = f"{bold}{mean}{bold}" if run in best else mean
            cell += f" [{_fmt(row['ci_low'])}, {_fmt(row['ci_high'])}]"
            if run != comparison.baseline:
                test = tests.loc[(measure, run)]
                change = test["relative_change"]
                if math.isfinite(change):
                    cell += f" {change:+.1f}%"
                cell += _marker(test, alpha, measure)
            cells.append(cell)
        name = f"{measure} (lower is better)" if direction(measure) == LOWER else measure
        rows.append([name, *cells, ", ".join(best) if best else "n/a"])
    return rows


def _table(comparison: Comparison, label: str, measures: list[str]) -> list[str]:
    """:func:`_cells` as a Markdown table, the best mean in bold."""
    rows = _cells(comparison, label, measures, bold="**")
    lines = ["| " + " | ".join(rows[0]) + " |", "|---|" + "---:|" * len(comparison.runs) + "---|"]
    return lines + ["| " + " | ".join(row) + " |" for row in rows[1:]]


def _differences(comparison: Comparison, label: str) -> list[str]:
    settings = comparison.settings
    level = f"{settings['confidence']:.0%}"
    correction = CORRECTION_NAMES[settings["correction"]]
    tests = comparison.part(comparison.comparisons, label)
    lines = [
        f"| Measure | Run | Difference [{level} CI] | Change | d_z | p | p ({correction}) |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for row in tests.to_dict(orient="records"):
        change = row["relative_change"]
        lines.append(
            f"| {row['measure']} | {row['run']} | {row['difference']:+.4f} "
            f"[{row['ci_low']:+.4f}, {row['ci_high']:+.4f}] | "
            + (f"{change:+.1f}%" if math.isfinite(change) else "n/a")
            + f" | {_fmt(row['effect_size'], 2)} | {_fmt_p(row['p_value'])} | "
            f"{_fmt_p(row['p_adjusted'])}{_marker(row, settings['alpha'], row['measure'])} |"
        )
    return lines


def _flags(evaluation: Mapping[str, Any]) -> str:
    """The non-default evaluation options as command-line flags (``-l 2 -M 100 -J``)."""
    flags = []
    if evaluation.get("relevance_level", 1) != 1:
        flags.append(f"-l {evaluation['relevance_level']}")
    if evaluation.get("max_docs") is not None:
        flags.append(f"-M {evaluation['max_docs']}")
    if evaluation.get("judged_only"):
        flags.append("-J")
    for key in ("maxontsim_formula", "ontology"):
        if evaluation.get(key) is not None:
            flags.append(f"--{key.replace('_', '-')} {evaluation[key]}")
    return " ".join(flags)


def _markdown(comparison: Comparison) -> str:
    settings = comparison.settings
    alpha = settings["alpha"]
    level = f"{settings['confidence']:.0%}"
    topics = len(comparison.queries)
    policy = (
        "a run without results for a topic scores 0 on it (trec_eval -c)"
        if settings["missing"] == "zero"
        else "only topics every run was evaluated on"
    )
    runs = ", ".join(
        f"{run} (baseline)" if run == comparison.baseline else run for run in comparison.runs
    )
    lines = [
        "# Benchmark comparison",
        "",
        f"- Runs: {runs}",
        f"- Topics: {topics}; {policy}",
        f"- Means with {level} bootstrap percentile intervals over topics "
        f"({settings['samples']:,} resamples, seed {settings['seed']})",
    ]
    if len(comparison.runs) > 1:
        lines.append(
            f"- Significance: two-sided {TEST_NAMES[settings['test']]} against "
            f"{comparison.baseline}; p-values adjusted with "
            f"{CORRECTION_NAMES[settings['correction']]} over all comparisons of a section"
        )
    flags = _flags(comparison.evaluation or {})
    if flags:
        lines.append(f"- Scored with {flags} (as trecbench score)")
    ontology = comparison.ontology
    if ontology is not None:
        sha = f", sha256 {ontology['sha256'][:12]}…" if ontology.get("sha256") else ""
        lines.append(
            f"- Ontology: HPO release {ontology['release'] or 'unknown'} "
            f"({ontology['source']}{sha}); MaxOntSim formula {ontology['formula']}"
        )
    for run, absent in comparison.missing.items():
        if absent:
            shown = ", ".join(absent[:10]) + (", ..." if len(absent) > 10 else "")
            lines.append(f"- {run}: no results for {len(absent)} topic(s): {shown}")
    lines += [
        "",
        f"Legend: **bold** = best mean of the measure; [a, b] = {level} confidence interval; "
        "+x% = change relative to the baseline; ▲/▼ = significantly better/worse than the "
        rf"baseline, adjusted p < {alpha:g} (\*), < {alpha / 5:g} (\*\*), "
        rf"< {alpha / 50:g} (\*\*\*); Best run = best mean (ties listed). Higher is "
        "better unless a measure says lower is better; counts without a better direction "
        "(num_ret, num_rel) get ↑/↓ (significantly higher/lower) and no best run.",
    ]
    groups: dict[str, list[str]] = {}
    for measure in comparison.measures:
        groups.setdefault(measure_group(measure), []).append(measure)
    for label in comparison.stratum_labels:
        queries = int(comparison.part(comparison.summary, label)["queries"].iloc[0])
        title = "All topics" if label == ALL else label.replace("=", " = ", 1)
        lines += ["", f"## {title} ({queries} topics)"]
        for group, measures in groups.items():
            lines += ["", f"### {group}", ""] + _table(comparison, label, measures)
        if len(comparison.runs) > 1:
            lines += ["", f"### Differences against {comparison.baseline}", ""]
            lines += _differences(comparison, label)
    return "\n".join(lines) + "\n"
