"""``compare``: score the runs (each against its qrels), then :func:`compare_scores`."""

from __future__ import annotations

import numbers
import os
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any

import pandas as pd

from .. import outputs
from ..errors import UsageError
from ..inputs import QrelsInput, RunInput
from .analysis import analyse
from .result import Comparison
from .settings import MOVERS, StatsSettings
from .tables import strata_map


def named_runs(runs) -> dict[str, Any]:
    """``{name: run}`` from one run, a sequence of runs or a mapping (see
    :func:`trecbench.inputs.split_runs`), named as every command names runs
    (:func:`trecbench.naming.run_names`: a file by its stem, made distinct by its shortest
    parent folders; an in-memory run ``run1``, ``run2``...)."""
    from ..inputs import split_runs
    from ..naming import run_names

    sources, names = split_runs(runs)
    if not sources:
        raise UsageError("nothing to compare: no run given")
    return dict(zip(run_names(sources, names), sources, strict=True))


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
    from ..evaluation import evaluate

    named = named_runs(runs)
    statistics = StatsSettings(test, correction, samples, seed, confidence, missing, movers)
    if not isinstance(unjudged_threshold, numbers.Real) or not 0 <= unjudged_threshold <= 1:
        raise UsageError(f"unjudged threshold must be between 0 and 1, not {unjudged_threshold!r}")
    flags = {
        "relevance_level": relevance_level,
        "max_docs": max_docs,
        "judged_only": judged_only,
        "options": dict(options or {}),
        "progress": progress,
        "tie_bounds": tie_bounds,
        "memory": memory,
        "jobs": jobs,
    }
    evaluations = [
        (
            evaluate(source, [named[name] for name in names], measures, run_names=names, **flags),
            names,
        )
        for source, names in _qrels_per_run(qrels, run_qrels, named)
    ]
    warnings = _unjudged_warnings(evaluations, unjudged_threshold, allow_unjudged)
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
    comparison = analyse(
        per_query[per_query["qid"].isin(shared)],
        statistics,
        queries=topics,
        baseline=baseline,
        strata=strata_map(strata, group_by, topics),
        group_by=group_by,
        progress=None if progress is None else partial(progress, "resampling"),
        bounds=bounds,
    )
    comparison.settings["unjudged_threshold"] = float(unjudged_threshold)
    comparison.settings["allow_unjudged"] = bool(allow_unjudged)
    comparison.warnings = warnings
    comparison.unpaired = unpaired
    _record_provenance(comparison, evaluations, strata)
    comparison.evaluation = {
        "relevance_level": relevance_level,
        "max_docs": max_docs,
        "judged_only": judged_only,
        "maxontsim_formula": evaluations[0][0].options.get("maxontsim_formula"),
        "ontology": _path_text(evaluations[0][0].options.get("ontology")),
    }
    return comparison


def _path_text(path) -> str | None:
    return None if path is None else os.fspath(path)


def _unjudged_warnings(evaluations, threshold: float, allow: bool) -> list[str]:
    """What to say about runs whose retrieved documents the qrels mostly do not know;
    refused (:class:`~trecbench.errors.UsageError`) unless ``allow``."""
    warnings = [
        run.unjudged.message(run.name, evaluation.qrels_path)
        for evaluation, _ in evaluations
        for run in evaluation.unjudged_runs(threshold)
    ]
    if warnings and not allow:
        raise UsageError(
            "; ".join(warnings) + ". compare refuses to rank runs on documents the qrels "
            "do not know (--allow-unjudged, allow_unjudged=True: compare anyway)"
        )
    return warnings


def _record_provenance(comparison: Comparison, evaluations, strata) -> None:
    """The inputs (with checksums), each run's file, qrels and unjudged documents and the
    ontology, from the evaluations that scored the runs."""
    from ..report import evaluation_provenance, input_record

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
