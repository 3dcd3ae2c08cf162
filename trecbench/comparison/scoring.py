"""``compare``: score the runs (each against its qrels), then :func:`compare_scores`."""

from __future__ import annotations

import numbers
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

import pandas as pd

from .. import input_warnings, outputs
from ..callbacks import refuse_uncallable
from ..errors import NoOverlapError, UsageError
from ..escaping import id_list
from ..inputs import QrelsInput, RunInput, named_runs
from ..measures.per_topic import asked_per_topic
from ..measures.spellings import refuse_two_spellings
from ..type_names import flag_from
from .analysis import check_baseline, compare_scores, scoreless
from .keywords import keywords_of, refuse_unknown, settings_from
from .result import Comparison
from .settings import StatsSettings
from .tables import NOT_IN_EVERY_QRELS, check_grouping, dropped_strata_warnings, strata_map


def _qrels_per_run(qrels, run_qrels, named: Mapping[str, Any]) -> list[tuple[Any, list[str]]]:
    """``[(qrels, run names)]``: the runs grouped by the qrels they are scored with, their
    own (``run_qrels``: run name -> qrels) or else the shared ``qrels``."""
    run_qrels = {str(name): source for name, source in (run_qrels or {}).items()}
    unknown = sorted(set(run_qrels) - set(named))
    if unknown:
        named_runs = id_list(unknown, limit=None)  # each as a list's item
        raise UsageError(f"qrels given for {named_runs}, which is not a run")
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


@dataclass(frozen=True)
class ScoringSettings:
    """How ``compare`` scores the runs before the statistics: :func:`trecbench.evaluate`'s
    ``relevance_level`` (``-l``), ``max_docs`` (``-M``), ``judged_only`` (``-J``), local
    measure ``options`` (``maxontsim_formula``, ``ontology``), ``tie_bounds``, ``memory``,
    ``jobs`` and ``drill_depth`` (what report.html's drill-down and the precision-recall
    curve need, kept as the runs are scored: see :attr:`Comparison.drill_downs`; None:
    nothing kept); ``unjudged_bounds``: keep each run's values with its unjudged
    documents judged relevant (:attr:`Comparison.unjudged_values`); and whether a run
    whose retrieved documents the qrels mostly do not know (over ``unjudged_threshold``)
    is refused (unless ``allow_unjudged``).
    """

    relevance_level: int = 1
    max_docs: int | None = None
    judged_only: bool = False
    options: Mapping[str, Any] | None = None
    allow_unjudged: bool = False
    unjudged_threshold: float = 0.5
    tie_bounds: bool = True
    memory: int | None = None
    jobs: int | None = None
    drill_depth: int | None = None
    unjudged_bounds: bool = False

    def __post_init__(self) -> None:
        from ..evaluation.settings import EvalSettings, local_options

        object.__setattr__(self, "options", local_options(self.options))
        # evaluate's fields checked as evaluate checks them, here at construction (and by
        # dataclasses.replace): allow_unjudged="no" was truthy and let refused runs be
        # compared, relevance_level="1" waited for compare to be refused
        checked = EvalSettings(**self.evaluate_flags())
        for name in self.evaluate_flags():
            object.__setattr__(self, name, getattr(checked, name))  # numpy's made Python's
        object.__setattr__(self, "allow_unjudged", flag_from("allow_unjudged", self.allow_unjudged))
        threshold = self.unjudged_threshold
        # a bool is a number to Python, never a share of topics (as fusion.check_number)
        real = isinstance(threshold, numbers.Real) and not isinstance(threshold, bool)
        if not real or not 0 <= threshold <= 1:
            raise UsageError(f"unjudged threshold must be between 0 and 1, not {threshold!r}")

    def evaluate_flags(self) -> dict[str, Any]:
        """:func:`trecbench.evaluate`'s keyword arguments for these settings."""
        return {
            "relevance_level": self.relevance_level,
            "max_docs": self.max_docs,
            "judged_only": self.judged_only,
            "options": dict(self.options),
            "tie_bounds": self.tie_bounds,
            "memory": self.memory,
            "jobs": self.jobs,
            "drill_depth": self.drill_depth,
            "unjudged_bounds": self.unjudged_bounds,
        }

    # the local options are a mapping in the API (evaluate's); compare reads the ontology
    @property
    def ontology(self) -> str | os.PathLike | None:
        """The HPO file MaxOntSim measures use (None: the bundled one)."""
        return self.options.get("ontology")


def _tie_bounds(evaluations: list) -> pd.DataFrame:
    """Every run's tie bounds per query, as one table."""
    return pd.concat([e.tie_bounds_per_query_values for e, _ in evaluations], ignore_index=True)


@keywords_of(StatsSettings, ScoringSettings)
@outputs.in_input_scope
@input_warnings.carried
def compare(
    qrels: QrelsInput | None,
    runs: RunInput | Sequence[RunInput] | Mapping[str, RunInput],
    measures: Sequence[str] | None = None,
    *,
    run_qrels: Mapping[str, QrelsInput] | None = None,
    baseline: str | None = None,
    strata=None,
    group_by: str | Sequence[str] | None = None,
    progress: Callable[[str, int, int | None], None] | None = None,
    statistics: StatsSettings | None = None,
    scoring: ScoringSettings | None = None,
    **settings,
) -> Comparison:
    """Score ``runs`` against ``qrels`` and compare them with statistics.

    ``qrels`` and each run: any input :mod:`trecbench.inputs` reads (paths, DataFrames,
    Arrow tables, dicts, ir_measures records; an ir_datasets id for the qrels). ``runs``:
    one run, a sequence of them (named after their files without ``.run``/``.gz``;
    in-memory runs ``run1``, ``run2``...) or a mapping ``{name: run}``. ``run_qrels``:
    ``{run name: qrels}`` for runs with qrels of their own (e.g. code-chunk's chunkers,
    whose chunk ids differ; ``qrels`` may then be None); topics are paired by qid across
    runs. ``measures``: any spelling :func:`trecbench.measures.parse_measure` accepts;
    default the KPI preset. ``baseline``: a run name (default: the first run).
    ``strata``: a converter sidecar path or the table :func:`trecbench.load_strata` reads,
    with ``group_by`` naming its field(s) (or ``group_by="qid-prefix"`` without sidecar:
    the qid up to its last ``/``), or a mapping as :func:`compare_scores` takes it
    (``{qid: value}``, ``{field: {qid: value}}``, ``{qid: {field: value}}``; a missing
    value is the stratum ``(none)``). ``progress(label, done, total)`` is told how reading
    the files, scoring the runs (see :func:`trecbench.evaluate`) and resampling (label
    ``resampling``) advance.

    The settings are two typed values, given whole or field by field as keywords (which
    then replace the value's own):

    * ``statistics`` (:class:`StatsSettings`): ``test``: ``t`` | ``bootstrap`` |
      ``randomization`` | ...; ``correction``: ``holm`` | ``bonferroni`` | ``bh`` |
      ``none``, applied over all comparisons of a section (unset: Holm; refused with the
      family-wise ``tukey``, whose Welch view then takes Holm); ``samples`` bootstrap (and
      randomisation) resamples drawn from ``seed``; ``confidence``; ``missing``: ``zero``
      (trec_eval ``-c``) or ``drop``; ``movers``: topics listed per direction.
    * ``scoring`` (:class:`ScoringSettings`): :func:`trecbench.evaluate`'s options
      (trec_eval's flags of ``trecbench score``): ``relevance_level`` (``-l``),
      ``max_docs`` (``-M``), ``judged_only`` (``-J``) and ``options`` for local measures
      (``maxontsim_formula``, ``ontology``: an HPO file for MaxOntSim), recorded in the
      report with the ontology's release and checksum when a MaxOntSim measure is
      compared; ``tie_bounds``: the means' bounds over all orders of tied documents
      (:mod:`trecbench.tiebounds`); ``memory`` (MiB) and ``jobs`` (processes);
      ``unjudged_bounds``: each run's values with its unjudged documents judged relevant,
      kept as it is scored (for :func:`trecbench.conclusions.unjudged.with_unjudged_bounds`).
      A run whose retrieved documents the qrels mostly do not know
      (:meth:`trecbench.evaluation.Unjudged.flagged` with ``unjudged_threshold``) is
      refused (:class:`~trecbench.errors.UsageError`) unless ``allow_unjudged``; it then
      stays in ``Comparison.warnings``.
    """
    refuse_uncallable(progress)
    named = named_runs(runs)
    statistics = settings_from(StatsSettings, statistics, settings, "statistics")
    scoring = settings_from(ScoringSettings, scoring, settings, "scoring")
    refuse_unknown("compare", settings)
    measures = asked_per_topic(measures, "compare's means and tests are")
    refuse_two_spellings(measures, "compare")
    check_baseline(baseline, list(named))  # these and the strata before any run is scored
    sidecar = _sidecar_read(strata)
    check_grouping(strata, group_by)
    evaluations = _evaluations(qrels, run_qrels, named, measures, scoring, progress)
    warnings = _flag_warnings(evaluations) + _unjudged_warnings(evaluations, scoring, sidecar)
    warnings += _outside_qrels(sidecar, group_by, evaluations)
    topics, unpaired = _paired_topics(evaluations, named)
    warnings += _unpaired_strata(strata, group_by, topics, unpaired)
    per_query = pd.concat([e.per_query_values for e, _ in evaluations], ignore_index=True)
    bounds = _tie_bounds(evaluations) if scoring.tie_bounds else None
    comparison = compare_scores(
        per_query[per_query["qid"].isin(topics)],
        statistics=statistics,
        queries=topics,
        baseline=baseline,
        strata=strata_map(
            None if sidecar is not None and not group_by else strata, group_by, topics
        ),
        group_by=group_by,
        progress=None if progress is None else partial(progress, "resampling"),
        bounds=bounds,
        empty={name: e.empty_values() for e, names in evaluations for name in names},
    )
    comparison.settings["unjudged_threshold"] = float(scoring.unjudged_threshold)
    comparison.settings["allow_unjudged"] = bool(scoring.allow_unjudged)
    comparison.warnings = [*warnings, *comparison.warnings]  # compare_scores' of strata
    comparison.scoreless = scoreless([e.flagged for e, _ in evaluations], comparison.queries)
    comparison.unpaired = unpaired
    if scoring.unjudged_bounds:
        comparison.unjudged_values = _unjudged_values(
            evaluations, comparison.queries, comparison.measures, sidecar
        )
    _record_provenance(comparison, evaluations, strata)
    # every flag, as score's report records them; --missing zero counts a run's absent
    # topics as -c does: recorded as -c (as power's, agree's) to reproduce the means
    complete = {"complete": statistics.missing == "zero"}
    comparison.evaluation = evaluations[0][0].settings.record() | complete
    return comparison


def _evaluations(qrels, run_qrels, named, measures, scoring: ScoringSettings, progress):
    """``[(evaluation, run names)]``: the runs scored, each group against its qrels."""
    from ..evaluation import evaluate

    flags = scoring.evaluate_flags()
    return [
        (
            evaluate(
                source, [named[name] for name in names], measures, run_names=names,
                progress=progress, **flags,
            ),
            names,
        )
        for source, names in _qrels_per_run(qrels, run_qrels, named)
    ]  # fmt: skip


def _paired_topics(evaluations, named) -> tuple[list[str], dict[str, list[str]]]:
    """``(the topics every run's qrels judge, sorted; {run: its topics left unpaired})``."""
    topics_of = {
        name: evaluation.qrels_topics for evaluation, names in evaluations for name in names
    }
    shared = set.intersection(*(set(topics) for topics in topics_of.values()))
    topics = sorted(shared)
    unpaired = {name: [q for q in topics_of[name] if q not in shared] for name in named}
    if not topics:
        raise NoOverlapError("the runs' qrels share no topic: nothing can be paired")
    return topics, unpaired


def _unpaired_strata(strata, group_by, topics: list[str], unpaired) -> list[str]:
    """The warnings of strata every topic of which some run's qrels lack (``run_qrels``),
    left out of the comparison (a sidecar without ``group_by``: read for its complete
    qrels alone)."""
    dropped = sorted({qid for left in unpaired.values() for qid in left})
    grouped = strata if group_by else None
    return dropped_strata_warnings(grouped, group_by, topics, dropped, NOT_IN_EVERY_QRELS)


def _unjudged_values(evaluations, queries: list[str], measures: list[str], sidecar) -> list:
    """:attr:`Comparison.unjudged_values`: each run's bounds over the compared topics,
    each counting (a topic the run lacks: 0), as the comparison's means are (a count's
    too: ``num_ret``'s mean per topic, not trec_eval's sum); for the
    compared ``measures`` only (a summary-only column such as ``num_q`` is scored, not
    compared); a run whose qrels the strata's ``sidecar`` vouches for complete has its
    high at its low (:func:`~trecbench.evaluation.assembly.bound_rows`)."""
    from ..evaluation.assembly import bound_rows
    from ..strata import vouched_runs

    compared = set(measures)
    return [
        row
        for evaluation, _ in evaluations
        for row in bound_rows(evaluation, queries, vouched_runs(evaluation, sidecar), means=True)
        if row[1] in compared
    ]


def _sidecar_read(strata) -> str | os.PathLike | None:
    """The sidecar path among ``strata`` (None: none), read now, before the scoring: a bad
    one is refused whatever the runs, as the command line refuses it (read once in the
    call, what it vouches for kept for :func:`_unjudged_warnings`)."""
    if not isinstance(strata, (str, os.PathLike)):
        return None
    from ..strata import read_sidecar

    read_sidecar(strata)
    return strata


def _outside_qrels(sidecar, group_by, evaluations) -> list[str]:
    """The warning of the ``sidecar``'s topics that no qrels judges, when it groups
    (``group_by``): they are no stratum's, and a stratum of such topics alone vanished
    without a word, as score's --group-by (:func:`~trecbench.strata.outside_qrels_warnings`)."""
    if sidecar is None or not group_by:
        return []
    from ..strata import outside_qrels_warnings, read_sidecar

    judged = {qid for evaluation, _ in evaluations for qid in evaluation.qrels_topics}
    return outside_qrels_warnings(read_sidecar(sidecar)[0], judged)


def _flag_warnings(evaluations) -> list[str]:
    """Score's warnings of the runs' topics that their qrels lack (left out of the means
    and tests) and of the qrels' negative grades (read as unjudged), in its words
    (:func:`~trecbench.evaluation.flag_warnings.flag_warnings`); each line names its qrels
    when the runs are scored against several (``run_qrels``)."""
    from ..evaluation.flag_warnings import SAID_BY_EVERY_COMMAND, flag_warnings

    several = len(evaluations) > 1
    return [
        line
        for evaluation, names in evaluations
        for line in flag_warnings(
            evaluation.flagged,
            reasons=SAID_BY_EVERY_COMMAND,
            where=(evaluation.qrels_path or f"qrels of {', '.join(names)}") if several else None,
        )
    ]


def _unjudged_warnings(evaluations, scoring: ScoringSettings, sidecar) -> list[str]:
    """What to say about runs whose retrieved documents the qrels mostly do not know
    (:class:`~trecbench.evaluation.unjudged.UnjudgedWarning`: in parts, so that each output
    escapes the run's name and the qrels path as it escapes the rest), but those whose
    qrels the strata's ``sidecar`` describes as complete; refused
    (:class:`~trecbench.errors.UsageError`) unless ``allow_unjudged``."""
    from ..evaluation.unjudged import UnjudgedWarning
    from ..strata import doubted

    warnings = [
        UnjudgedWarning(run.name, evaluation.qrels_path, run.unjudged, sidecar is not None)
        for evaluation, _ in evaluations
        for run in doubted(evaluation, scoring.unjudged_threshold, sidecar)
    ]
    if warnings and not scoring.allow_unjudged:
        raise UsageError(
            "; ".join(warnings) + ". compare refuses to rank runs on documents the qrels "
            "do not know (--allow-unjudged, allow_unjudged=True: compare anyway)"
        )
    return warnings


def _record_provenance(comparison: Comparison, evaluations, strata) -> None:
    """The inputs (with checksums), each run's file, qrels and unjudged documents and the
    ontology, from the evaluations that scored the runs; the strata's sidecar when they
    were read from one (strata given as a table or a mapping are no file: the report's
    ``strata`` holds them)."""
    from ..report import evaluation_provenance, evaluation_records, input_record

    scored = [evaluation for evaluation, _ in evaluations]
    for evaluation in scored:
        comparison.ontology = comparison.ontology or evaluation_provenance(evaluation)[1]
    comparison.inputs = evaluation_records(*scored)
    if isinstance(strata, (str, os.PathLike)):  # read by compare, not by an evaluation
        comparison.inputs.append(input_record(strata, "strata"))
    results = [(run, e) for e, _ in evaluations for run in e.runs]
    comparison.run_inputs = {run.name: run.path for run, _ in results}
    comparison.keep_drill_downs([run for run, _ in results])
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
