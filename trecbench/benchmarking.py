"""The TREC R-task benchmark workflow: retrieval modes from one configuration file.

:func:`load_benchmark_config` reads a TOML or YAML file (schema
``trecbench/schemas/benchmark_config.schema.json``, described in ``docs/benchmark.md``):
the qrels, the modes (each a run file or a fusion of other modes), the measures (default:
:data:`trecbench.measures.KPI_PRESET`), targets per measure (the R-task reference's ranges
as the preset ``trec2025-rtask``), statistics, strata, completeness thresholds, a routing
log and the output folder. :func:`run_benchmark` then

1. validates the qrels and every run file with the R-task rules (the validator's ``rtask``
   profile, at most 100 documents per topic) and stops with the findings and the
   reference's recovery action when one fails (:class:`InvalidRuns`, exit 2); each file
   is read once, into memory, and the scoring parses the bytes that were validated;
2. fuses the fused modes (:func:`trecbench.fusion.fuse_tables`, 100 deep by default) and
   validates them the same way;
3. scores every mode with one parse of the qrels (:func:`trecbench.evaluate`, trec_eval
   ``-c``: every qrels topic counts, a mode without results for one scores 0 on it);
4. compares the modes with the statistics of :func:`trecbench.comparison.compare_scores`
   (means with bootstrap intervals, paired tests against the baseline mode, correction);
5. marks each mean against the targets (below-baseline / baseline / good / strong), finds
   incomplete modes (query coverage, pool depth, unjudged share: :func:`completeness`),
   computes reranking improvements and the routing metrics of :mod:`trecbench.routing`.

:meth:`Benchmark.write` writes per-mode EvaluationReports, one ExperimentManifest,
``BenchmarkReport.json`` (compare's report with a ``benchmark`` section, schema
``benchmark_workflow``) and ``BenchmarkComparison.md``, as one unit.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import os
import sys
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from . import arrow, outputs, ranking
from .errors import (
    ExitCode,
    InputError,
    OutputError,
    TrecbenchError,
    UsageError,
    excerpt,
    shortened,
)

CONFIG_SCHEMA = "benchmark_config"
MANIFEST_FILE = "ExperimentManifest.json"
REPORTS_DIR = "reports"
RUNS_DIR = "runs"
RTASK_MAX_DEPTH = 100  # the TREC R task's submission cap

# The R-task reference's recovery actions, quoted, per kind of problem.
ACTIONS = {
    "invalid_run": "Empty/invalid runs: re-run generation, check query format",
    "invalid_qrels": "Validation failures: rebuild qrels, verify rank ordering",
    "shallow_pool": "Shallow pools: mark runs as incomplete, document coverage",
}
COMPLETENESS = {"min_coverage": 1.0, "min_pool_depth": 10, "max_unjudged": 0.1, "unjudged_at": 10}
STATISTICS = {"test": "t", "correction": "holm", "samples": 10_000, "seed": 0, "confidence": 0.95}


@dataclass(frozen=True)
class Target:
    """Target ranges of one measure: ``baseline`` (low, high) is the typical baseline (BM25);
    a value below ``low`` is below-baseline, from ``low`` up to ``good`` baseline, from
    ``good`` good, from ``strong`` (if any) strong."""

    baseline: tuple[float, float]
    good: float
    strong: float | None = None
    note: str = ""

    def mark(self, value: float) -> str:
        """``below-baseline``, ``baseline``, ``good`` or ``strong``."""
        if value < self.baseline[0]:
            return "below-baseline"
        if value < self.good:
            return "baseline"
        if self.strong is None or value < self.strong:
            return "good"
        return "strong"

    def to_dict(self) -> dict:
        return {
            "baseline": list(self.baseline),
            "good": self.good,
            "strong": self.strong,
            "note": self.note,
        }


# The TREC 2025 R-task KPI reference's summary table. MAP@100 gives a baseline of
# 0.25-0.27 and "+0.03-0.05 uplift is meaningful": good and strong are the top of the
# baseline plus 0.03 and 0.05. Measures with a single "competitive target" have no strong
# level; "~0.45" is the point 0.45.
PRESETS: dict[str, dict[str, Target]] = {
    "trec2025-rtask": {
        "nDCG@10": Target((0.30, 0.32), 0.35, 0.40, "good >= 0.35, strong >= 0.40"),
        "MAP@100": Target((0.25, 0.27), 0.30, 0.32, "+0.03-0.05 over the baseline's 0.27"),
        "MRR@10": Target((0.45, 0.45), 0.55, None, "baseline ~0.45, target >= 0.55"),
        "Recall@50": Target((0.55, 0.60), 0.62, None, "target >= 0.62"),
        "Recall@100": Target((0.60, 0.65), 0.70, None, "target >= 0.70"),
        "HitRate@10": Target((0.70, 0.75), 0.80, None, "target >= 0.80"),
    },
    "none": {},
}


class InvalidRuns(TrecbenchError):
    """A run or the qrels failed validation; the message lists the findings, one per line
    (exit 2, as validate's)."""

    exit_code = ExitCode.INPUT

    def __init__(self, lines: list[str]):
        self.lines = lines
        super().__init__("\n".join(lines))


# ---------------------------------------------------------------------------------------
# configuration


@dataclass
class Mode:
    """One retrieval mode: a run file, or a fusion of other modes."""

    name: str
    label: str
    run: Path | None = None
    fuse: list[str] | None = None
    method: str = "rrf"
    k: float = 60
    norm: str | None = None
    weights: list[float] | None = None
    depth: int | None = None
    tag: str | None = None
    reranks: str | None = None

    def describe(self) -> str:
        if self.fuse is None:
            return f"run {self.run}"
        from .fusion import method_name, norm_name

        method = method_name(self.method)
        detail = f"k={self.k:g}" if method == "rrf" else f"norm {norm_name(self.norm, method)}"
        weights = f", weights {self.weights}" if self.weights else ""
        return f"{method} ({detail}{weights}) of {', '.join(self.fuse)}, depth {self.depth}"


@dataclass
class BenchmarkConfig:
    """A checked configuration (see :func:`load_benchmark_config`); paths are resolved."""

    path: Path
    name: str
    qrels: Path
    modes: list[Mode]
    measures: list[str] | None = None
    topics: Path | None = None
    output: Path | None = None
    meta: dict[str, str] = field(default_factory=dict)
    profile: str | None = None
    max_depth: int | None = RTASK_MAX_DEPTH
    preset: str = "trec2025-rtask"
    targets: dict[str, Target] = field(default_factory=dict)
    statistics: dict[str, Any] = field(default_factory=dict)
    strata: Path | None = None
    group_by: str | None = None
    completeness: dict[str, float] = field(default_factory=lambda: dict(COMPLETENESS))
    routing: Path | None = None

    @property
    def baseline(self) -> str:
        return self.statistics.get("baseline") or self.modes[0].name

    def mode(self, name: str) -> Mode:
        return next(mode for mode in self.modes if mode.name == name)


def _read_document(path: Path) -> Any:
    from . import provenance

    outputs.note_input(path)
    suffix = path.suffix.lower()
    data = provenance.read_file(path)  # checksum taken on the way
    if suffix == ".toml":
        if sys.version_info >= (3, 11):
            import tomllib
        else:  # pragma: no cover - Python 3.10
            import tomli as tomllib
        from .yaml_loader import MAX_DEPTH, nesting_depth

        try:
            document = tomllib.loads(data.decode("utf-8"))
        except (UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
            raise InputError(str(path), None, f"not valid TOML: {error}") from None
        except RecursionError:  # tomllib parses nested arrays and tables recursively
            document = None
        if document is None or nesting_depth(document) > MAX_DEPTH:
            raise InputError(str(path), None, f"nested deeper than {MAX_DEPTH} levels")
        return document
    if suffix in (".yaml", ".yml"):
        import yaml

        from .yaml_loader import load_yaml

        try:
            return load_yaml(data.decode("utf-8"))
        except (UnicodeDecodeError, yaml.YAMLError) as error:
            where = getattr(error, "problem_mark", None)
            line = where.line + 1 if where is not None else None
            problem = getattr(error, "problem", None) or str(error)
            raise InputError(str(path), line, f"not valid YAML: {shortened(problem)}") from None
    raise UsageError(f"{path}: a benchmark configuration is .toml, .yaml or .yml")


def _check_schema(document: Any, path: Path) -> None:
    from .report import validate_against_schema

    try:
        validate_against_schema(document, CONFIG_SCHEMA)
    except OutputError as error:
        message = str(error).removeprefix(f"{CONFIG_SCHEMA}: ")
        raise UsageError(f"{path}: {shortened(message)}") from None
    _refuse_non_finite(document, path)


def _refuse_non_finite(value: Any, path: Path, where: str = "") -> None:
    """A NaN or infinite number (YAML ``.nan``/``.inf``, TOML ``nan``/``inf``) means nothing
    as a target, weight or threshold: every mean would be marked ``≥ nan``."""
    if isinstance(value, float) and not math.isfinite(value):
        where = shortened(where or "(top level)")
        raise UsageError(f"{path}: {where}: {value!r} is not a finite number")
    if isinstance(value, Mapping):
        for key, item in value.items():
            _refuse_non_finite(item, path, f"{where}/{key}" if where else str(key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _refuse_non_finite(item, path, f"{where}/{index}" if where else str(index))


def _order_fusions(modes: list[Mode], path: Path) -> None:
    """Refuse unknown, self- and circular references between modes."""
    known = {mode.name: mode for mode in modes}
    for mode in modes:
        for other in [*(mode.fuse or []), *([mode.reranks] if mode.reranks else [])]:
            if other not in known:
                unknown = excerpt(other)
                raise UsageError(f"{path}: mode {mode.name!r} refers to unknown mode {unknown}")
            if other == mode.name:
                raise UsageError(f"{path}: mode {mode.name!r} refers to itself")
    state: dict[str, int] = {}

    def visit(name: str, trail: list[str]) -> None:
        if state.get(name) == 2:
            return
        if state.get(name) == 1:
            cycle = " -> ".join([*trail[trail.index(name) :], name])
            raise UsageError(f"{path}: modes fuse each other in a circle: {cycle}")
        state[name] = 1
        for other in known[name].fuse or []:
            visit(other, [*trail, name])
        state[name] = 2

    for mode in modes:
        visit(mode.name, [])


def load_benchmark_config(path: str | os.PathLike) -> BenchmarkConfig:
    """Read and check a benchmark configuration (TOML or YAML; see ``docs/benchmark.md``).

    The document is checked against the shipped JSON Schema ``benchmark_config`` (one-line
    error naming the offending key), then for what a schema cannot say: modes refer to
    modes, fusions do not go in circles, the baseline is a mode. Relative paths are
    resolved against the file's folder.
    """
    path = Path(path)
    document = _read_document(path)
    _check_schema(document, path)
    base = path.parent

    def resolve(value: str | None) -> Path | None:
        return None if value is None else base / value

    validation = document.get("validation", {})
    max_depth = validation.get("max_depth", RTASK_MAX_DEPTH)
    modes = []
    for name, spec in document["modes"].items():
        fused = spec.get("fuse")
        modes.append(
            Mode(
                name=name,
                label=spec.get("label", name),
                run=resolve(spec.get("run")),
                fuse=None if fused is None else list(fused),
                method=spec.get("method", "rrf"),
                k=spec.get("k", 60),
                norm=spec.get("norm"),
                weights=spec.get("weights"),
                depth=spec.get("depth", max_depth) if fused is not None else None,
                tag=spec.get("tag"),
                reranks=spec.get("reranks"),
            )
        )
    _order_fusions(modes, path)
    statistics = dict(STATISTICS) | document.get("statistics", {})
    if statistics.get("baseline") not in (None, *(mode.name for mode in modes)):
        baseline = excerpt(statistics["baseline"])
        raise UsageError(f"{path}: statistics.baseline {baseline} is not a mode")
    targets = document.get("targets", {})
    preset = targets.get("preset", "trec2025-rtask")
    chosen = dict(PRESETS[preset])
    for measure, spec in targets.get("measures", {}).items():
        low, high = spec["baseline"]
        chosen[measure] = Target(
            (low, high), spec["good"], spec.get("strong"), spec.get("note", "")
        )
    strata = document.get("strata", {})
    return BenchmarkConfig(
        path=path,
        name=document.get("name", path.stem),
        qrels=resolve(document["qrels"]),
        modes=modes,
        measures=document.get("measures"),
        topics=resolve(document.get("topics")),
        output=resolve(document.get("output")),
        meta={str(key): str(value) for key, value in document.get("meta", {}).items()},
        profile=validation.get("profile"),
        max_depth=max_depth,
        preset=preset,
        targets=chosen,
        statistics=statistics,
        strata=resolve(strata.get("sidecar")),
        group_by=strata.get("group_by"),
        completeness=dict(COMPLETENESS) | document.get("completeness", {}),
        routing=resolve(document.get("routing")),
    )


# ---------------------------------------------------------------------------------------
# validation


def validation_profile(config: BenchmarkConfig) -> str:
    """The configured validator profile, by default the R task's (``rtask``)."""
    from .validation import PROFILES

    wanted = config.profile or "rtask"
    if wanted not in PROFILES:
        raise UsageError(f"{config.path}: the validator has no profile {wanted!r}")
    return wanted


def _errors(result, action: str, limit: int = 20) -> list[str]:
    errors = [f for f in result.findings if f.severity == "error"]
    lines = [finding.format() for finding in errors[:limit]]
    if result.counts["error"] > len(lines):
        lines.append(f"{result.path}: ... {result.counts['error'] - len(lines)} more error(s)")
    return [*lines, f"{result.path}: recovery: {action} (TREC R-task reference)"]


def _summary(result) -> dict:
    counts = result.counts
    return {
        "errors": counts["error"],
        "warnings": counts["warning"],
        "infos": counts["info"],
        "rules": counts["rules"],
    }


# ---------------------------------------------------------------------------------------
# completeness


def completeness(
    ranked: pa.Table, qrels: pa.Table, qrels_topics: Sequence[str], settings: Mapping[str, Any]
) -> dict:
    """How complete a mode's evaluation is: ``coverage`` (share of the qrels topics the run
    has results for), ``pool_depth`` (per evaluated topic the number of leading documents
    that are judged — a judgment with a grade >= 0; its median and minimum) and
    ``unjudged`` (share of unjudged documents in the top ``unjudged_at`` of the evaluated
    topics, the validator's X4). ``problems`` lists each threshold of ``settings`` that is
    not met, with the R-task reference's recovery action.

    ``ranked`` is the run in trec_eval order with ``rank`` (:func:`trecbench.rank_run`).
    """
    wanted = arrow.array(list(qrels_topics), pa.large_string())
    qid = pc.cast(ranked.column("qid"), pa.large_string())
    ranked = ranked.filter(pc.is_in(qid, value_set=wanted))
    judged_rows = qrels.filter(pc.greater_equal(qrels.column("rel"), arrow.scalar(0)))

    def both(name: str) -> pa.ChunkedArray:  # the run's rows, then the judged ones
        columns = (ranked.column(name), judged_rows.column(name))
        return pa.chunked_array([pc.cast(c, pa.large_string()) for c in columns])

    keys = arrow.row_keys(both("qid"), both("docno"))
    judged = np.isin(keys[: ranked.num_rows], keys[ranked.num_rows :])
    position = arrow.to_numpy(ranked.column("rank")).astype(np.int64) - 1
    starts = ranking.topic_starts(ranked.column("qid"))
    lengths = np.diff(np.append(starts, ranked.num_rows))
    topic = np.repeat(np.arange(len(starts)), lengths)
    # leading judged documents: the position of the first unjudged one (or the topic's size)
    depth = np.minimum.reduceat(np.where(judged, lengths[topic], position), starts)
    top = position < settings["unjudged_at"]
    unjudged = float((~judged & top).sum() / top.sum()) if top.any() else 0.0
    evaluated, total = len(starts), len(qrels_topics)
    coverage = evaluated / total if total else 0.0
    median = float(np.median(depth)) if len(depth) else 0.0
    problems = []
    if coverage < settings["min_coverage"]:
        problems.append(
            {
                "check": "coverage",
                "message": f"results for {evaluated} of {total} qrels topics "
                f"({coverage:.1%} < {settings['min_coverage']:.0%})",
                "action": ACTIONS["invalid_run"],
            }
        )
    if median < settings["min_pool_depth"]:
        problems.append(
            {
                "check": "pool_depth",
                "message": f"median judged depth {median:g} < {settings['min_pool_depth']} "
                "(documents judged before the first unjudged one)",
                "action": ACTIONS["shallow_pool"],
            }
        )
    if unjudged > settings["max_unjudged"]:
        problems.append(
            {
                "check": "unjudged",
                "message": f"{unjudged:.1%} of the top {settings['unjudged_at']} documents "
                f"are unjudged (> {settings['max_unjudged']:.0%})",
                "action": ACTIONS["shallow_pool"],
            }
        )
    return {
        "topics": evaluated,
        "qrels_topics": total,
        "coverage": coverage,
        "pool_depth": {"median": median, "min": int(depth.min()) if len(depth) else 0},
        "unjudged": unjudged,
        "unjudged_at": int(settings["unjudged_at"]),
        "complete": not problems,
        "problems": problems,
    }


# ---------------------------------------------------------------------------------------
# the benchmark


@dataclass
class ModeResult:
    """What the benchmark learned about one mode."""

    mode: Mode
    table: pa.Table
    validation: dict
    completeness: dict
    output: Path | None = None  # where a fused mode's run is written (relative to -o)
    run_bytes: bytes | None = None


@dataclass
class Benchmark:
    """Result of :func:`run_benchmark`: the evaluation, the comparison and what the R task
    adds (targets, completeness, reranking improvements, routing)."""

    config: BenchmarkConfig
    profile: str
    modes: list[ModeResult]
    evaluation: Any
    comparison: Any
    kpis: list[dict]
    reranking: list[dict]
    routing: dict | None
    qrels_flags: list[dict]
    qrels_validation: dict
    inputs: list[dict]
    qrels_table: Any = None  # the one parse of the qrels (the page's grades: not read again)

    def section(self) -> dict:
        """The ``benchmark`` section of BenchmarkReport.json (schema ``benchmark_workflow``)."""
        from .report import _json_safe

        config = self.config
        return _json_safe(
            {
                "name": config.name,
                "config": str(config.path),
                "validation": {
                    "profile": self.profile,
                    "max_depth": config.max_depth,
                    "qrels": self.qrels_validation,
                },
                "modes": [
                    {
                        "name": result.mode.name,
                        "label": result.mode.label,
                        "kind": "run" if result.mode.fuse is None else "fusion",
                        "run": None if result.mode.run is None else str(result.mode.run),
                        "fusion": _fusion_record(result.mode),
                        "reranks": result.mode.reranks,
                        "output": None if result.output is None else str(result.output),
                        "evaluation_report": _report_file(result.mode.name),
                        "validation": result.validation,
                        "completeness": result.completeness,
                    }
                    for result in self.modes
                ],
                "targets": {
                    "preset": config.preset,
                    "measures": {m: t.to_dict() for m, t in config.targets.items()},
                },
                "kpis": self.kpis,
                "reranking": self.reranking,
                "qrels_flags": self.qrels_flags,
                "completeness_settings": config.completeness,
                "routing": self.routing,
            }
        )

    def report(self, experiment_id: str | None = None, meta: Mapping[str, str] | None = None):
        """BenchmarkReport.json: compare's report of the modes plus ``benchmark``."""
        document = self.comparison.report(experiment_id, meta)
        document["benchmark"] = self.section()
        return document

    def markdown(self, statistics: bool = True) -> str:
        """BenchmarkComparison.md; without ``statistics``, only the R-task part (KPI table,
        targets, reranking, completeness, routing), without compare's tables."""
        return _markdown(self, statistics)

    def evaluation_reports(self, experiment_id: str, meta: Mapping[str, str]) -> dict[str, dict]:
        """One EvaluationReport per mode (its values, flagged topics and inputs)."""
        from .report import build_evaluation_report

        qrels_record = next(r for r in self.inputs if r["kind"] == "qrels")
        reports = {}
        for result, run in zip(self.modes, self.evaluation.runs, strict=True):
            own = dataclasses.replace(
                self.evaluation,
                runs=[run],
                flagged=[f for f in self.evaluation.flagged if f.run in (None, run.name)],
            )
            inputs = [qrels_record] + [
                r for r in self.inputs if r["kind"] == "run" and r["path"] == str(result.mode.run)
            ]
            reports[result.mode.name] = build_evaluation_report(
                own, inputs, experiment_id=experiment_id, meta=meta
            )
        return reports

    def to_html(self, depth: int = 20, path: str | os.PathLike | None = None) -> str:
        """The benchmark as one self-contained page (:mod:`trecbench.html_report`): the
        R-task part (KPIs against the targets, reranking, completeness and its recovery
        actions), then compare's tables and figures with the modes as runs and the
        drill-down to each mode's top ``depth`` documents. Written to ``path`` if given."""
        from .html_report import comparison_html

        runs = {result.mode.name: result.table for result in self.modes}
        qrels = self.qrels_table if self.qrels_table is not None else str(self.config.qrels)
        page = comparison_html(
            self.comparison, runs=runs, qrels=qrels, depth=depth,
            title=f"trecbench benchmark: {self.config.name}", preamble=self.markdown(False),
        )  # fmt: skip
        if path is not None:
            outputs.write_file(path, page, [record["path"] for record in self.inputs])
        return page

    def write(
        self,
        outdir: str | os.PathLike,
        *,
        meta: Mapping[str, str] | None = None,
        argv: Sequence[str] | None = None,
    ) -> list[Path]:
        """Write everything into ``outdir`` as one unit (nothing is replaced unless all of it
        could be prepared; inputs are never overwritten): BenchmarkReport.json,
        BenchmarkComparison.md, ``reports/<mode>.json`` (EvaluationReports),
        ``runs/<mode>.run`` (fused modes) and ExperimentManifest.json (last)."""
        import uuid

        from .comparison import HTML_FILE, MARKDOWN_FILE, REPORT_FILE, html_available
        from .outputs import OutputSet
        from .report import build_manifest, bytes_record, json_bytes

        out = Path(outdir)
        meta = dict(self.config.meta) | dict(meta or {})
        experiment_id = str(uuid.uuid4())
        files: dict[Path, tuple[bytes, str]] = {}
        counts: dict[Path, dict] = {}  # what a manifest records of a run beyond its bytes
        for result in self.modes:
            if result.output is not None:
                files[out / result.output] = (result.run_bytes, "run")
                tag = result.mode.tag or result.mode.name
                counts[out / result.output] = {
                    "lines": result.table.num_rows,
                    "topics": pc.count_distinct(result.table.column("qid")).as_py(),
                    "run_tag": tag,
                    "run_tags": [tag],
                }
        for name, document in self.evaluation_reports(experiment_id, meta).items():
            files[out / _report_file(name)] = (json_bytes(document), "report")
        files[out / REPORT_FILE] = (json_bytes(self.report(experiment_id, meta)), "report")
        files[out / MARKDOWN_FILE] = (self.markdown().encode("utf-8"), "markdown")
        if html_available():
            files[out / HTML_FILE] = (self.to_html().encode("utf-8"), "html")
        written = [
            bytes_record(path, kind, data) | counts.get(path, {})
            for path, (data, kind) in files.items()
        ]
        manifest = build_manifest(
            sys.argv if argv is None else argv, self.inputs, written, meta, experiment_id
        )
        files[out / MANIFEST_FILE] = (json_bytes(manifest), "manifest")
        with OutputSet([record["path"] for record in self.inputs]) as staged:
            for path, (data, _) in files.items():
                staged.write(path, data)
        return list(files)


def check_outputs(config: BenchmarkConfig, outdir: str | os.PathLike) -> None:
    """Refuse, before the benchmark of ``config`` is run, what :meth:`Benchmark.write`
    into ``outdir`` would refuse only after it: a file it writes (all named after the
    configuration's modes) that is one of the configuration's inputs, a symbolic link or
    not a regular file."""
    from .comparison import HTML_FILE, MARKDOWN_FILE, REPORT_FILE

    out = Path(outdir)
    files = [out / _fused_run_file(mode.name) for mode in config.modes if mode.fuse is not None]
    files += [out / _report_file(mode.name) for mode in config.modes]
    files += [out / REPORT_FILE, out / MARKDOWN_FILE, out / HTML_FILE, out / MANIFEST_FILE]
    inputs = [config.path, config.qrels, config.topics, config.strata, config.routing]
    inputs += [mode.run for mode in config.modes]
    for path in files:
        outputs.check_target(path, inputs)


def _fused_run_file(name: str) -> Path:
    """Where a fused mode's run is written, relative to the output folder."""
    return Path(RUNS_DIR) / f"{name}.run"


def _report_file(name: str) -> str:
    """Where a mode's EvaluationReport is written, relative to the output folder."""
    return f"{REPORTS_DIR}/{name}.json"


def _fusion_record(mode: Mode) -> dict | None:
    if mode.fuse is None:
        return None
    from .fusion import method_name, norm_name

    method = method_name(mode.method)
    return {
        "of": mode.fuse,
        "method": method,
        "k": mode.k if method == "rrf" else None,
        "norm": norm_name(mode.norm, method),
        "weights": mode.weights,
        "depth": mode.depth,
        "tag": mode.tag or mode.name,
    }


@dataclass
class _Validated:
    """What :func:`_validate_inputs` read: the qrels' and the runs' (by mode) validation
    results, the topic ids of the configured topics file, and the qrels' and runs' open
    sources, for the loader."""

    qrels: Any
    runs: dict[str, Any]
    topics: list[str] | None
    qrels_source: Any
    run_sources: dict[str, Any]


def _validate_inputs(
    config: BenchmarkConfig, profile: str, held: contextlib.ExitStack
) -> _Validated:
    """Validate the qrels and every run file; raise :class:`InvalidRuns` with all errors.

    Each file is opened once, into memory, and held open by ``held``: the loader parses
    what was validated, from the same read (a file could change between two reads, a pipe
    cannot be read twice; R-task runs are small). The topics file too is read once, for
    every run and fused mode.
    """
    from .inputs.streams import Source
    from .validation import read_topics, validate_qrels, validate_run

    qrels_source = held.enter_context(Source(config.qrels, spool=True))
    qrels = validate_qrels(qrels_source, profile=profile, collect_judged=True)
    if not qrels.ok:
        raise InvalidRuns(_errors(qrels, ACTIONS["invalid_qrels"]))
    # read where the first run's validation read it (there is one: fusions end in runs)
    topics = None if config.topics is None else read_topics(config.topics)
    results, sources, lines = {}, {}, []
    for mode in config.modes:
        if mode.run is None:
            continue
        sources[mode.name] = held.enter_context(Source(mode.run, spool=True))
        result = validate_run(
            sources[mode.name],
            profile=profile,
            qrels=qrels.qrels_info,
            topics=topics,
            max_depth=config.max_depth,
        )
        results[mode.name] = result
        if not result.ok:
            lines += _errors(result, ACTIONS["invalid_run"])
    if lines:
        raise InvalidRuns(lines)
    return _Validated(qrels, results, topics, qrels_source, sources)


def _kpis(config: BenchmarkConfig, comparison) -> list[dict]:
    """Per measure: each mode's mean, target mark and significance, and the best modes."""
    import pandas as pd

    from .comparison import ALL, direction
    from .renderers.comparison_cells import best_runs

    summary = comparison.summary[comparison.summary["stratum"] == ALL]
    means = summary.set_index(["measure", "run"])["mean"]
    tests = comparison.comparisons[comparison.comparisons["stratum"] == ALL]
    tests = tests.set_index(["measure", "run"])
    rows = []
    for measure in comparison.measures:
        target = config.targets.get(measure)
        better = direction(measure)
        values = {}
        for mode in comparison.runs:
            mean = float(means[(measure, mode)])
            entry: dict[str, Any] = {"mean": mean, "mark": target.mark(mean) if target else None}
            if mode != comparison.baseline:
                test = tests.loc[(measure, mode)]
                entry["p_adjusted"] = _finite(test["p_adjusted"])
                entry["significant"] = bool(test["significant"])
                entry["difference"] = float(test["difference"])
            values[mode] = entry
        column = pd.Series({mode: values[mode]["mean"] for mode in values})
        best = best_runs(column, list(column.index), better)
        rows.append({"measure": measure, "values": values, "best": best})
    return rows


def _finite(value) -> float | None:
    value = float(value)
    return value if math.isfinite(value) else None


def _reranking(config: BenchmarkConfig, kpis: list[dict]) -> list[dict]:
    """Reranking improvement of nDCG for every mode that reranks another one."""
    from .routing import reranking_improvement

    rows = []
    ndcg = [row for row in kpis if row["measure"].lower().startswith("ndcg")]
    for mode in config.modes:
        if mode.reranks is None:
            continue
        for row in ndcg:
            before = row["values"][mode.reranks]["mean"]
            after = row["values"][mode.name]["mean"]
            rows.append(
                {
                    "mode": mode.name,
                    "reranks": mode.reranks,
                    "measure": row["measure"],
                    "baseline": before,
                    "reranked": after,
                    "improvement": reranking_improvement(before, after),
                }
            )
    return rows


def _fuse_modes(config: BenchmarkConfig, tables: dict[str, pa.Table]) -> dict[str, pa.Table]:
    """Ranked tables of every mode, fused modes computed from their sources (in order)."""
    from .fusion import fuse_tables, ranked_table

    ranked = {name: ranked_table(table) for name, table in tables.items()}
    pending = [mode for mode in config.modes if mode.fuse is not None]
    while pending:
        for mode in [m for m in pending if all(source in ranked for source in m.fuse)]:
            ranked[mode.name] = fuse_tables(
                [ranked[source] for source in mode.fuse],
                mode.method,
                k=mode.k,
                norm=mode.norm,
                weights=mode.weights,
                depth=mode.depth,
                tag=mode.tag or mode.name,
            )
            pending.remove(mode)
    return ranked


@outputs.in_input_scope  # as compare and evaluate: what was read is not read again
def run_benchmark(config: BenchmarkConfig | str | os.PathLike, *, progress=None) -> Benchmark:
    """Validate, fuse, score and compare the modes of a benchmark configuration (see the
    module docstring). Raises :class:`InvalidRuns` (exit 2) when the qrels or a run fails
    validation; ``progress(done, total)`` follows the resampling."""
    from .comparison import compare_scores
    from .evaluation import evaluate, load
    from .files import run_bytes
    from .inputs import to_pandas
    from .inputs.trec_text import tokenize
    from .report import input_record

    if not isinstance(config, BenchmarkConfig):
        config = load_benchmark_config(config)
    profile = validation_profile(config)
    with contextlib.ExitStack() as held:  # each file parsed from the read it was validated on
        validated = _validate_inputs(config, profile, held)
        qrels = load(validated.qrels_source, "qrels")  # the one parse of the qrels
        loaded = {name: load(source, "run") for name, source in validated.run_sources.items()}
    qrels_table = qrels.table
    topics = sorted(arrow.distinct(qrels_table.column("qid")).to_pylist())
    ranked = _fuse_modes(config, {name: run.table for name, run in loaded.items()})

    from .validation import check_tokens

    results, lines = [], []
    for mode in config.modes:
        output, data = None, None
        if mode.fuse is None:
            validation = _summary(validated.runs[mode.name])
        else:
            output = _fused_run_file(mode.name)
            data = run_bytes(to_pandas(ranked[mode.name]))
            findings = check_tokens(
                tokenize(data, path=str(output)),
                "run",
                profile=profile,
                max_depth=config.max_depth,
                topics=validated.topics,
                qrels_topics=validated.qrels.qrels_info,
            )
            errors = [f.format() for f in findings if f.severity == "error"]
            if errors:
                lines += [*errors, f"{output}: recovery: check the fusion of mode {mode.name}"]
            severities = Counter(f.severity for f in findings)
            validation = {
                "errors": severities["error"],
                "warnings": severities["warning"],
                "infos": severities["info"],
                "rules": dict(sorted(Counter(f.rule for f in findings).items())),
            }
        info = completeness(ranked[mode.name], qrels_table, topics, config.completeness)
        results.append(ModeResult(mode, ranked[mode.name], validation, info, output, data))
    if lines:
        raise InvalidRuns(lines)

    names = [mode.name for mode in config.modes]
    evaluation = evaluate(
        qrels_table,
        [ranked[name] for name in names],
        config.measures,
        complete=True,
        run_names=names,
    )
    strata = _strata(config, topics)
    statistics = config.statistics
    comparison = compare_scores(
        evaluation.per_query,
        queries=topics,
        baseline=config.baseline,
        test=statistics["test"],
        correction=statistics["correction"],
        samples=statistics["samples"],
        seed=statistics["seed"],
        confidence=statistics["confidence"],
        strata=strata,
        group_by=config.group_by,
        progress=progress,
    )
    # the qrels' and runs' records (checksums, counts) were taken while they were read
    inputs = [input_record(config.path, "config"), qrels.record]
    inputs += [loaded[mode.name].record for mode in config.modes if mode.run is not None]
    for path, kind in ((config.topics, "topics"), (config.strata, "strata")):
        if path is not None:
            inputs.append(input_record(path, kind))
    routing = None
    if config.routing is not None:
        from .routing import routing_metrics

        routing = routing_metrics(
            config.routing,
            samples=statistics["samples"],
            seed=statistics["seed"],
            confidence=statistics["confidence"],
        )
        inputs.append(input_record(config.routing, "routing"))
    comparison.inputs = inputs
    comparison.run_inputs = {
        r.mode.name: str(r.mode.run if r.mode.run is not None else r.output) for r in results
    }
    comparison.evaluation = {
        "relevance_level": 1,
        "max_docs": None,
        "judged_only": False,
        "maxontsim_formula": None,
        "ontology": None,
    }
    kpis = _kpis(config, comparison)
    flags = [
        {"qid": f.qid, "reason": f.reason, "message": f.message, "action": ACTIONS["invalid_qrels"]}
        for f in evaluation.flagged
        if f.run is None
    ]
    return Benchmark(
        config=config,
        profile=profile,
        modes=results,
        evaluation=evaluation,
        comparison=comparison,
        kpis=kpis,
        reranking=_reranking(config, kpis),
        routing=routing,
        qrels_flags=flags,
        qrels_validation=_summary(validated.qrels),
        inputs=inputs,
        qrels_table=qrels_table,
    )


def _strata(config: BenchmarkConfig, topics: list[str]) -> dict[str, str] | None:
    if config.group_by is None:
        return None
    import pandas as pd

    from .strata import group_labels, load_strata

    table = None if config.strata is None else load_strata(config.strata)
    labels = group_labels(pd.Series(topics, dtype=object), table, config.group_by)
    return dict(zip(topics, labels.astype(str), strict=True))


# ---------------------------------------------------------------------------------------
# Markdown


# the target levels as the tables say them: the reference's "baseline" level is the range a
# typical BM25 run reaches, which must not read as the configured baseline mode
SHOWN_MARKS = {"below-baseline": "under-typical", "baseline": "typical", "good": "good",
               "strong": "strong"}  # fmt: skip


def _cell(entry: dict, best: bool) -> str:
    text = f"{entry['mean']:.4f}"
    if best:
        text = f"**{text}**"
    if entry["mark"]:
        text += f" {SHOWN_MARKS[entry['mark']]}"
    if entry.get("significant"):
        text += " ▲" if entry["difference"] > 0 else " ▼"
    return text


def _markdown(bench: Benchmark, statistics: bool = True) -> str:
    config = bench.config
    comparison = bench.comparison
    settings = comparison.settings
    labels = {result.mode.name: result.mode.label for result in bench.modes}
    baseline = comparison.baseline
    lines = [
        f"# Benchmark: {config.name}",
        "",
        f"- Qrels: {config.qrels} ({len(comparison.queries)} topics); every qrels topic "
        "counts, a mode without results for one scores 0 on it (trec_eval -c)",
        "- Modes: "
        + "; ".join(f"{labels[r.mode.name]} = {r.mode.describe()}" for r in bench.modes),
        f"- Validation: profile {bench.profile}, at most {config.max_depth} documents per topic",
        f"- Targets: {config.preset}; significance: {settings['test']} test against "
        f"{labels[baseline]}, {settings['correction']} correction, adjusted p < "
        f"{settings['alpha']:g}; {settings['samples']:,} bootstrap samples, seed "
        f"{settings['seed']}",
        "",
        "## KPIs",
        "",
        "| Metric | "
        + " | ".join(
            f"{labels[mode]} (baseline)" if mode == baseline else labels[mode]
            for mode in comparison.runs
        )
        + " | Best Mode |",
        "|---|" + "---:|" * len(comparison.runs) + "---|",
    ]
    for row in bench.kpis:
        cells = [_cell(row["values"][mode], mode in row["best"]) for mode in comparison.runs]
        best = ", ".join(labels[mode] for mode in row["best"]) or "n/a"
        lines.append(f"| {row['measure']} | " + " | ".join(cells) + f" | {best} |")
    lines += [
        "",
        "Legend: **bold** = best mean; under-typical / typical / good / strong = the mean "
        "against the targets below (typical: the range a typical BM25 run reaches; the "
        "baseline mode is the configured one); ▲/▼ = significantly better/worse than the "
        "baseline mode "
        f"(adjusted p < {settings['alpha']:g}).",
    ]
    if config.targets:
        lines += ["", "| Target | Typical (BM25) | Good | Strong |", "|---|---|---:|---:|"]
        for measure, target in config.targets.items():
            if measure in comparison.measures:
                low, high = target.baseline
                span = f"{low:g}" if low == high else f"{low:g}-{high:g}"
                strong = "n/a" if target.strong is None else f"≥ {target.strong:g}"
                lines.append(f"| {measure} | {span} | ≥ {target.good:g} | {strong} |")
    if bench.reranking:
        lines += [
            "",
            "## Reranking improvement",
            "",
            "| Mode | Reranks | Measure | Before | After | Improvement |",
            "|---|---|---|---:|---:|---:|",
        ]
        for row in bench.reranking:
            change = "n/a" if row["improvement"] is None else f"{row['improvement']:+.1f}%"
            lines.append(
                f"| {labels[row['mode']]} | {labels[row['reranks']]} | {row['measure']} | "
                f"{row['baseline']:.4f} | {row['reranked']:.4f} | {change} |"
            )
    lines += _completeness_lines(bench, labels)
    if bench.routing is not None:
        from .routing import render_routing

        lines += ["", f"## Routing ({config.routing})", "", render_routing(bench.routing).rstrip()]
    if statistics:
        # compare's own text (its title dropped), one heading level down
        lines += ["", "## Statistics", ""]
        lines += [
            "#" + line if line.startswith("#") else line
            for line in comparison.markdown().split("\n")[2:]
        ]
    return "\n".join(lines).rstrip("\n") + "\n"


def _completeness_lines(bench: Benchmark, labels: Mapping[str, str]) -> list[str]:
    settings = bench.config.completeness
    at = settings["unjudged_at"]
    lines = [
        "",
        "## Completeness",
        "",
        f"| Mode | Coverage | Judged depth (median, min) | Unjudged in top {at} | Status |",
        "|---|---:|---:|---:|---|",
    ]
    actions = []
    for result in bench.modes:
        info = result.completeness
        status = (
            "complete"
            if info["complete"]
            else "incomplete: " + "; ".join(problem["message"] for problem in info["problems"])
        )
        lines.append(
            f"| {labels[result.mode.name]} | {info['topics']}/{info['qrels_topics']} "
            f"({info['coverage']:.1%}) | {info['pool_depth']['median']:g} "
            f"(min {info['pool_depth']['min']}) | {info['unjudged']:.1%} | {status} |"
        )
        actions += [
            f"- {labels[result.mode.name]}: {problem['check']} → {problem['action']}"
            for problem in info["problems"]
        ]
    reasons: dict[str, list[str]] = {}
    for flag in bench.qrels_flags:
        reasons.setdefault(flag["reason"], []).append(flag["qid"])
    for reason, qids in reasons.items():
        shown = ", ".join(qids[:10]) + (", ..." if len(qids) > 10 else "")
        what = "without a relevant document" if reason == "no_relevant" else "with negative grades"
        actions.append(
            f"- qrels: {len(qids)} topic(s) {what} ({shown}) → {ACTIONS['invalid_qrels']}"
        )
    lines += [
        "",
        f"Thresholds: coverage ≥ {settings['min_coverage']:.1%}, median judged depth ≥ "
        f"{settings['min_pool_depth']}, unjudged ≤ {settings['max_unjudged']:.1%} of the top "
        f"{at} (judged: a qrels grade ≥ 0).",
        "",
        "### Problems and recovery actions (TREC R-task reference)",
        "",
    ]
    return lines + (actions or ["- none"])
