""":func:`run_benchmark`: validate, fuse, score and compare the modes of one benchmark, then
mark the means against the targets, find incomplete modes, reranking improvements and the
routing metrics. Each step is a function of its own, reading the typed settings."""

from __future__ import annotations

import contextlib
import math
import os
import warnings
from functools import partial
from typing import Any

import pyarrow as pa

from .. import arrow, input_warnings, outputs
from ..callbacks import refuse_uncallable
from ..callers import outside_trecbench
from ..errors import ParameterDomainWarning, TooManySamplesError, UsageError
from ..inputs.streams import steps
from ..naming import path_argument
from .checks import (
    InvalidRuns,
    Progress,
    Validated,
    check_fused,
    summary,
    validate_inputs,
)
from .completeness import completeness
from .loading import load_benchmark_config
from .result import Benchmark, ModeResult, fused_run_file
from .settings import ACTIONS, BenchmarkSettings, reranking_measure

# where a configuration's resamples are set (the statistics table's line when not written)
_SAMPLES = ("statistics", "samples")


@outputs.in_input_scope  # as compare and evaluate: what was read is not read again
@input_warnings.carried
def run_benchmark(
    config: BenchmarkSettings | str | os.PathLike, *, progress: Progress | None = None
) -> Benchmark:
    """Validate, fuse, score and compare the modes of a benchmark configuration, ``config``
    (:func:`load_benchmark_config`'s settings or the file's path; see
    :mod:`trecbench.benchmarking`), into a :class:`Benchmark` (``write`` writes its
    files). Raises :class:`InvalidRuns` (exit 2) when the qrels or a run fails validation.
    ``progress(label, done, total)`` is told of each step, as
    ``trecbench benchmark`` draws them: ``reading FILE`` and ``validating FILE`` (bytes),
    ``parsing`` (files), ``ranking`` (modes), ``fusing MODE`` (steps), ``checking modes``
    (modes), ``scoring`` (modes) and ``scoring topics``, ``resampling`` (samples)."""
    refuse_uncallable(progress)
    from ..evaluation import evaluate
    from ..measures.per_topic import listed_before

    if not isinstance(config, BenchmarkSettings):
        config = load_benchmark_config(path_argument(config, "config"))
    _check_grouping(config)
    log = _routing_log(config)  # a bad log refused before the runs are read
    validated, qrels, loaded = _read_inputs(config, progress)
    qrels_table = qrels.table
    topics = sorted(arrow.distinct(qrels_table.column("qid")).to_pylist())
    ranked = _fuse_modes(config, {name: run.table for name, run in loaded.items()}, progress)
    results = _mode_results(config, validated, ranked, qrels_table, topics, progress)
    names = [mode.name for mode in config.modes]
    # a parameter outside its domain was said when the configuration was read
    with config.reading(config.ontology, "ontology"), listed_before():
        evaluation = evaluate(
            qrels,  # read once, and named by its path in what the scoring says of it
            [ranked[name] for name in names],
            config.measures,
            complete=True,
            run_names=names,
            options=config.measure_options,
            progress=progress,
        )
    comparison = _compare(config, evaluation, topics, progress)
    routing = None if log is None else _routing(config, log, topics)
    # the qrels' and runs' records (checksums, counts) were taken while they were read
    inputs = [qrels.record, *(loaded[m.name].record for m in config.modes if m.run is not None)]
    inputs = _input_records(config, inputs)
    _record_inputs(config, comparison, inputs, results, evaluation)
    kpis = _kpis(config, comparison)
    return Benchmark(
        config=config,
        profile=config.profile,
        modes=results,
        evaluation=evaluation,
        comparison=comparison,
        kpis=kpis,
        reranking=_reranking(config, kpis),
        routing=routing,
        qrels_flags=_qrels_flags(evaluation),
        qrels_validation=summary(validated.qrels),
        inputs=inputs,
        qrels_table=qrels_table,
    )


def _read_inputs(config: BenchmarkSettings, progress: Progress | None = None):
    """The qrels and run files validated, then each parsed once from the read it was
    validated on: ``(validated, qrels, runs by mode)``."""
    from ..evaluation import load

    with contextlib.ExitStack() as held:
        validated = validate_inputs(config, held, progress)
        step = steps(progress, "parsing", 1 + len(validated.run_sources))
        qrels = load(validated.qrels_source, "qrels")  # the one parse of the qrels
        step()
        loaded = {}
        for name, source in validated.run_sources.items():
            loaded[name] = load(source, "run")
            step()
    return validated, qrels, loaded


def _fuse_modes(
    config: BenchmarkSettings, tables: dict[str, pa.Table], progress: Progress | None = None
) -> dict[str, pa.Table]:
    """Ranked tables of every mode, fused modes computed from their sources (in order)."""
    from ..fusion import fused_and_ties, ranked_table

    step = steps(progress, "ranking", len(tables))
    ranked = {}
    for name, table in tables.items():
        ranked[name] = ranked_table(table)
        step()
    pending = [mode for mode in config.modes if mode.fuse is not None]
    while pending:
        for mode in [m for m in pending if all(source in ranked for source in m.fuse)]:
            _check_sources_differ(config, mode, ranked)
            try:
                ranked[mode.name], ties = fused_and_ties(
                    [ranked[source] for source in mode.fuse],
                    mode.method,
                    k=mode.k,
                    norm=mode.norm,
                    weights=mode.weights,
                    depth=mode.depth,
                    tag=mode.run_tag,
                    progress=_relabelled(progress, f"fusing {mode.name}"),
                )
            except UsageError as error:  # a fused score beyond a double: the mode's settings,
                # at the mode's line as the loader's refusals are
                raise config.refused(("modes", mode.name), str(error)) from None
            for message in ties.values():  # which of several fused modes ties: its own name
                said = f"{config.path}: modes.{mode.name}: {message}"
                warnings.warn(ParameterDomainWarning(said), stacklevel=outside_trecbench())
            pending.remove(mode)
    return ranked


def _relabelled(progress: Progress | None, label: str) -> Progress | None:
    """``progress`` told every job as ``label`` (a fusion's steps as its mode's)."""
    if progress is None:
        return None
    return lambda _label, done, total: progress(label, done, total)


def _check_sources_differ(config: BenchmarkSettings, mode, ranked: dict[str, pa.Table]) -> None:
    """Refuse a fusion of two modes that hold one run (a link to one file, or a copy of
    it, plain or compressed): the run would be fused with itself, weighing double. Cited
    at the second one's ``fuse`` item and its line, as the loader's refusals are."""
    from ..fusion import same_rows

    for i, first in enumerate(mode.fuse):
        for j, second in enumerate(mode.fuse[i + 1 :], start=i + 1):
            if same_rows(ranked[first], ranked[second]):
                raise config.refused(
                    ("modes", mode.name, "fuse", j),
                    f"mode {mode.name!r} fuses one run twice: {first!r} and {second!r} hold "
                    "the same rows (a copy or a link)",
                )


def _mode_results(
    config: BenchmarkSettings,
    validated: Validated,
    ranked: dict[str, pa.Table],
    qrels: pa.Table,
    topics: list[str],
    progress: Progress | None = None,
) -> list[ModeResult]:
    """Each mode's validation (a fused one's now, on the run it is written as) and
    completeness; raises :class:`InvalidRuns` when a fused mode's run fails validation."""
    results, lines = [], []
    step = steps(progress, "checking modes", len(config.modes))
    for mode in config.modes:
        output, data = None, None
        if mode.fuse is None:
            validation = summary(validated.runs[mode.name])
        else:
            output = fused_run_file(mode.name)
            data, validation, errors = check_fused(
                mode, ranked[mode.name], output, config, validated
            )
            lines += errors
        info = completeness(ranked[mode.name], qrels, topics, config.completeness)
        results.append(ModeResult(mode, ranked[mode.name], validation, info, output, data))
        step()
    if lines:
        raise InvalidRuns(lines)
    return results


def _compare(config: BenchmarkSettings, evaluation, topics: list[str], progress):
    """compare's statistics over the modes' per-topic values, against the baseline mode
    (a topic a mode has no results for counts as trec_eval -c counts it), with compare's
    warnings of the modes' topics the qrels lack and of negative grades, in score's words
    (:func:`~trecbench.evaluation.flag_warnings.flag_warnings`)."""
    from ..comparison.analysis import compare_scores
    from ..evaluation.flag_warnings import SAID_BY_EVERY_COMMAND, flag_warnings

    strata = _strata(config, topics)
    try:
        empty = evaluation.empty_values()
        comparison = compare_scores(
            evaluation.per_query_values,
            empty={run.name: empty for run in evaluation.runs},
            statistics=config.statistics,
            queries=topics,
            baseline=config.baseline,
            strata=strata,
            group_by=config.group_by,
            progress=None if progress is None else partial(progress, "resampling"),
        )
    except TooManySamplesError as error:  # at the setting asking for them
        text = config.config_text
        place = f"{config.path}: statistics" if text is None else text.where(_SAMPLES)
        raise UsageError(f"{place}: {error}") from None
    except UsageError as error:  # what the statistics refuse of the values (no setting's)
        raise UsageError(f"{config.path}: statistics: {error}") from None
    flagged = flag_warnings(evaluation.flagged, reasons=SAID_BY_EVERY_COMMAND)
    comparison.warnings = [*flagged, *comparison.warnings]
    return comparison


def _strata_table(config: BenchmarkSettings):
    """The strata sidecar's table (None: none configured), read once in the call."""
    from ..strata import load_strata

    with config.reading(config.strata, "strata", "sidecar"):
        return None if config.strata is None else load_strata(config.strata)


def _check_grouping(config: BenchmarkSettings) -> None:
    """A ``strata.group_by`` field the sidecar lacks, refused at its key before any run
    is read (:func:`~trecbench.strata.check_group_field`), as :func:`_strata` would
    refuse it once every mode is scored."""
    if config.group_by is None:
        return
    from ..strata import check_group_field

    try:
        check_group_field(_strata_table(config), config.group_by, configured=True)
    except UsageError as error:
        raise config.refused(("strata", "group_by"), str(error)) from None


def _strata(config: BenchmarkSettings, topics: list[str]) -> dict[str, str] | None:
    if config.group_by is None:
        return None
    import pandas as pd

    from ..strata import OtherTopics, group_labels

    table = _strata_table(config)
    try:
        qids = pd.Series(topics, dtype=object)
        labels = group_labels(qids, table, config.group_by, configured=True)
    except UsageError as error:  # at the key at fault, and its line
        keys = ("strata", "sidecar" if isinstance(error, OtherTopics) else "group_by")
        raise config.refused(keys, str(error)) from None
    return dict(zip(topics, labels.astype(str), strict=True))


def _input_records(config: BenchmarkSettings, read: list[dict]) -> list[dict]:
    """The records of every input: the configuration, then ``read`` (the qrels and runs),
    the topics, strata and routing files."""
    from ..report import input_record

    records = [input_record(config.path, "config"), *read]
    for path, kind in (
        (config.topics, "topics"),
        (config.strata, "strata"),
        (config.routing, "routing"),
        (config.ontology, "ontology"),
    ):
        if path is not None:
            records.append(input_record(path, kind))
    return records


def _record_inputs(
    config: BenchmarkSettings, comparison, inputs: list[dict], results: list[ModeResult], evaluation
) -> None:
    """What compare's report records of its inputs: every input file, each mode's run (a
    fused mode's none: it is a file only once written, :meth:`Benchmark.report` records
    it there), how the modes were scored (every flag, -c among them, and MaxOntSim's
    options, as score's report records them) and, with a
    MaxOntSim measure, the ontology's provenance as ``score --report`` records it."""
    from ..report import evaluation_provenance

    comparison.inputs = inputs
    comparison.run_inputs = {
        r.mode.name: None if r.mode.run is None else str(r.mode.run) for r in results
    }
    comparison.evaluation = evaluation.settings.record()  # as every report records them
    comparison.ontology = evaluation_provenance(evaluation)[1]


def _qrels_flags(evaluation) -> list[dict]:
    """The topics the qrels' own problems flag (none relevant, negative grades), each with
    the R-task reference's recovery action."""
    action = ACTIONS["invalid_qrels"]
    return [
        {"qid": f.qid, "reason": f.reason, "message": f.message, "action": action}
        for f in evaluation.flagged
        if f.run is None
    ]


def _routing_log(config: BenchmarkSettings):
    """The configured routing log, read and checked (errors at the configuration's
    ``routing`` key), or None."""
    if config.routing is None:
        return None
    from ..routing import read_routing_log

    with config.reading(config.routing, "routing"):
        return read_routing_log(config.routing)


def _routing(config: BenchmarkSettings, log, topics: list[str]) -> dict:
    """The routing metrics of the configured ``log``, with the statistics' resampling
    (what the log and the judged ``topics`` do not share said as its input warning)."""
    from ..routing import coverage, routing_metrics

    warning = coverage(log, topics)
    input_warnings.keep([] if warning is None else [warning])  # the log's, said and carried
    statistics = config.statistics
    return routing_metrics(
        log, samples=statistics.samples, seed=statistics.seed, confidence=statistics.confidence
    )


def _kpis(config: BenchmarkSettings, comparison) -> list[dict]:
    """Per measure: each mode's mean, target mark and significance, and the best modes."""
    import pandas as pd

    from ..comparison import ALL, direction
    from ..renderers.comparison_cells import best_runs

    summary = comparison.summary[comparison.summary["stratum"] == ALL]
    means = summary.set_index(["measure", "run"])["mean"]
    tests = comparison.comparisons[comparison.comparisons["stratum"] == ALL]
    tests = tests.set_index(["measure", "run"])
    rows = []
    for measure in comparison.measures:
        target = config.targets.get(measure)
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
        best = best_runs(column, list(column.index), direction(measure))
        rows.append({"measure": measure, "values": values, "best": best})
    return rows


def _finite(value) -> float | None:
    value = float(value)
    return value if math.isfinite(value) else None


def _reranking(config: BenchmarkSettings, kpis: list[dict]) -> list[dict]:
    """Reranking improvement of nDCG for every mode that reranks another one (the loader
    refuses ``reranks`` when no nDCG measure is benchmarked)."""
    from ..routing import reranking_improvement

    rows = []
    ndcg = [row for row in kpis if reranking_measure(row["measure"])]
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
