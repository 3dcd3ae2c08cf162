"""Per-topic values of several runs under one qrels, as a ``topics x runs x measures``
array: what power, agreement and discriminative power are computed from.

The values come from :func:`trecbench.evaluate` (no scoring here). Topics are those of the
qrels and a run without results for a topic scores 0 on it, but ``num_rel`` its count of
the qrels (trec_eval ``-c``, compare's
default ``missing="zero"``), so every run is paired with every other on the same topics.
A value undefined (or infinite) on a topic the run has results for is refused, as compare
refuses it: it is no absent topic's 0.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..escaping import id_list
from ..stats import topic_mean


def check_level(name: str, value, above: float = 0.0, above_name: str = "") -> None:
    """Refuse a level (alpha, a target power) that is not a real number in (above, 1);
    ``above_name``: what ``above`` is (the target power must exceed alpha)."""
    import numbers

    from ..errors import UsageError

    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not above < value < 1:
        shown = repr(float(above)).removesuffix(".0")  # in full: 0.8000001 is not 0.8
        low = f"{above_name} ({shown})" if above_name else shown
        raise UsageError(f"{name} must be above {low} and below 1, not {value!r}")


def source_name(source) -> str | None:
    """A file input's path as text (a loaded one's too); None for in-memory inputs (frames,
    dicts...)."""
    from ..inputs import Loaded

    if isinstance(source, Loaded):
        return source.path
    return str(source) if isinstance(source, (str, os.PathLike)) else None


@dataclass(frozen=True)
class EvaluationFlags:
    """trec_eval's flags the runs are scored with (``-l``, ``-M``, ``-J``) and the options
    of trecbench's local measures (``maxontsim_formula``, ``ontology``)."""

    relevance_level: int = 1
    max_docs: int | None = None
    judged_only: bool = False
    options: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Provenance:
    """What a power or agreement result was computed from, as compare's report records it:
    the settings the runs were scored with (``evaluation``: the evaluation's
    :attr:`~trecbench.evaluation.Evaluation.options`, trec_eval's flags ``-l``, ``-M``,
    ``-J``... and MaxOntSim's options, as score's report records them; ``complete`` true,
    trec_eval's ``-c``: the topics a run lacks count as -c counts them, as compare's
    ``missing`` ``zero``), each input file's
    record (path, size, sha256, lines, topics; a run's name and tags: ``inputs``) and the
    ontology of a MaxOntSim measure (None without one)."""

    evaluation: dict[str, Any]
    inputs: tuple[dict[str, Any], ...]
    ontology: dict[str, Any] | None = None

    def record(self) -> dict[str, Any]:
        """The JSON's ``tool``, ``environment`` (versions), ``evaluation``, ``inputs`` and,
        with one, ``ontology``: the keys of compare's report
        (:meth:`trecbench.comparison.Comparison.report`)."""
        from ..json_values import json_safe
        from ..report import environment, tool

        document = {
            "tool": tool(),
            "environment": environment(),
            "evaluation": self.evaluation,
            "inputs": list(self.inputs),
        }
        return json_safe(document | ({} if self.ontology is None else {"ontology": self.ontology}))


def provenance(*scores: TopicScores, qrels_kinds: Sequence[str] = ()) -> Provenance:
    """The :class:`Provenance` of results computed from ``scores`` (each with the
    evaluation that scored it; the first's settings, which every one shares);
    ``qrels_kinds``: the kind of each one's judgments in ``inputs`` (agree's second set:
    ``qrels_b``), ``qrels`` where not given."""
    from ..report import evaluation_provenance, evaluation_records

    evaluations = [s.evaluation for s in scores]
    ontologies = (evaluation_provenance(e)[1] for e in evaluations)
    ontology = next((found for found in ontologies if found is not None), None)
    records = tuple(evaluation_records(*evaluations, qrels_kinds=qrels_kinds))
    # the runs were scored without -c and their absent topics filled as -c fills them
    # (topic_scores): recorded as -c, whose options reproduce the means, not as scored
    options = evaluations[0].settings.record() | {"complete": True}
    return Provenance(options, records, ontology)


@dataclass(frozen=True)
class TopicScores:
    """``values[t, r, m]``: run ``runs[r]``'s value of ``measures[m]`` on ``topics[t]``.
    ``warnings``: score's of the runs' topics the qrels lack and of negative grades, runs
    that look scored against qrels not their own, runs lacking topics, topics without a
    relevant document; ``evaluation``: the
    :class:`~trecbench.evaluation.Evaluation` they come from (its inputs' records:
    :func:`provenance`)."""

    runs: tuple[str, ...]
    measures: tuple[str, ...]
    topics: tuple[str, ...]
    values: np.ndarray
    warnings: tuple[str, ...] = ()
    evaluation: Any = None

    def means(self) -> np.ndarray:
        """``runs x measures``: each run's mean over the topics (summed in topic order, as
        compare's: :func:`~trecbench.stats.topic_mean`)."""
        return topic_mean(self.values)


def topic_scores(
    qrels,
    runs,
    measures: str | Sequence[str] | None,
    flags: EvaluationFlags,
    progress=None,
    where: str | None = None,
) -> TopicScores:
    """Score ``runs`` (one, a list or ``{name: run}``; files are named as compare names
    them) against ``qrels`` with :func:`trecbench.evaluate` and arrange the per-topic
    values (display names of the measures, topics of the qrels in sorted order).
    ``progress(label, done, total)``: evaluate's, told of the reading and scoring.
    ``where``: what score's warnings of the runs' topics the qrels lack and of negative
    grades begin with (agree's two sets of judgments: which; None: nothing)."""
    from ..evaluation import evaluate
    from ..evaluation.flag_warnings import SAID_BY_EVERY_COMMAND, flag_warnings
    from ..inputs import named_runs

    named = named_runs(runs)
    evaluation = evaluate(
        qrels,
        list(named.values()),
        measures,
        run_names=list(named),
        relevance_level=flags.relevance_level,
        max_docs=flags.max_docs,
        judged_only=flags.judged_only,
        options=dict(flags.options),
        progress=progress,
    )
    topics = sorted(evaluation.qrels_topics)
    shown, values = _in_asked_order(evaluation, *_values(evaluation, list(named), topics))
    present = _present(evaluation, list(named), topics)
    _refuse_not_finite(values, present, list(named), shown, topics, where)
    warnings = (
        tuple(flag_warnings(evaluation.flagged, reasons=SAID_BY_EVERY_COMMAND, where=where))
        + tuple(
            run.unjudged.message(run.name, evaluation.qrels_path)
            for run in evaluation.unjudged_runs()
        )
        + _missing_topics(list(named), shown, topics, present, source_name(qrels))
        + _without_relevant(evaluation, topics, flags.relevance_level, source_name(qrels))
    )
    from ..comparison.absent import fill_absent
    from ..comparison.overflow import refuse_overflow

    empty = dict.fromkeys(named, evaluation.empty_values())  # 0, as trec_eval -c, but num_rel
    absent = np.broadcast_to(~present[:, :, np.newaxis], values.shape)
    fill_absent(values, absent, list(named), shown, topics, empty)
    refuse_overflow(values, shown)
    return TopicScores(tuple(named), shown, tuple(topics), values, warnings, evaluation)


def _present(evaluation, runs: list[str], topics: list[str]) -> np.ndarray:
    """``topics x runs``: True where the run has results for the topic (whatever its
    values: a measure may be undefined there)."""
    present = np.zeros((len(topics), len(runs)), dtype=bool)
    row_of = {qid: row for row, qid in enumerate(topics)}
    for run in evaluation.runs:
        rows = [row_of[qid] for qid in run.qids if qid in row_of]
        present[rows, runs.index(run.name)] = True
    return present


def _refuse_not_finite(
    values: np.ndarray,
    present: np.ndarray,
    runs: list[str],
    measures,
    topics: list[str],
    where: str | None,
) -> None:
    """Refuse, as compare does, a value undefined (NaN: ``-J`` leaving nothing judged in
    the cut) or infinite on a topic the run has results for: counting it 0, as a topic the
    run lacks, would make a mean trec_eval prints as -nan a number. ``where``: the
    judgments it is undefined under, said first, as the warnings say them."""
    from ..errors import not_finite

    refused = ~np.isfinite(values) & present[:, :, np.newaxis]
    if refused.any():  # the first in run, topic, measure order
        r, t, m = np.argwhere(refused.transpose(1, 0, 2))[0]
        error = not_finite(runs[r], measures[m], topics[t], float(values[t, r, m]))
        raise error if where is None else type(error)(f"{where}: {error}")


def _missing_topics(
    runs: list[str], measures, topics: list[str], present: np.ndarray, qrels: str | None
) -> tuple[str, ...]:
    """A warning per run without results for some of the topics of ``qrels`` (its path;
    agree's second judgments are others): they count 0 in its means (trec_eval's mean,
    without -c, leaves them out), but a count of the qrels (``num_rel``)."""
    from ..measures import but_counts

    judged = f"the {len(topics)} topics of {qrels}" if qrels else f"the qrels' {len(topics)} topics"
    warnings = []
    for r, run in enumerate(runs):
        absent = [topics[t] for t in np.flatnonzero(~present[:, r])]
        if absent:
            shown = id_list(absent)
            warnings.append(
                f"{run}: no results for {len(absent)} of {judged} "
                f"({shown}): each counts 0 in its means{but_counts(measures)}, as with "
                "trec_eval -c"
            )
    return tuple(warnings)


def _without_relevant(evaluation, topics: list[str], level: int, qrels: str | None) -> tuple:
    """A warning of the topics of ``qrels`` (its path) without a relevant document at
    ``level``, in the words of compare's reports: every run scores 0 there on a measure
    of relevant documents, and they count, in the means, the differences and their sd
    (score says so on stderr, compare in its header)."""
    from ..scoreless import without_relevant_warning

    scoreless = {flag.qid for flag in evaluation.flagged if flag.reason == "no_relevant"}
    found = [qid for qid in topics if qid in scoreless]
    return (without_relevant_warning(qrels or "the qrels", found, level, "run"),) if found else ()


def _in_asked_order(evaluation, shown: tuple[str, ...], values: np.ndarray) -> tuple:
    """``(shown, values)`` with the measures in the order they were asked: evaluate puts
    trec_eval's names in trec_eval's printing order (``-m P.5 -m map``: map first), but
    agreement's earlier measure is the reference, whatever its spelling. A measure of
    several values (``P.5,10``) keeps its values' order."""
    asked = list(evaluation.measures)

    def position(column) -> int:
        return asked.index(column.measure) if column.measure in asked else len(asked)

    at: dict[str, int] = {}
    for column in evaluation.columns:
        if column.per_query:
            at.setdefault(column.display, position(column))
    order = sorted(range(len(shown)), key=lambda i: at[shown[i]])
    return tuple(shown[i] for i in order), values[:, :, order]


def _values(evaluation, runs: list[str], topics: list[str]) -> tuple[tuple[str, ...], np.ndarray]:
    """``(measures, topics x runs x measures values)`` of the evaluation's per-topic
    values (NaN where a run has no value for a topic), as
    :func:`~trecbench.comparison.tables.values_cube` arranges its ``per_query`` table, but
    without pandas (issue 31: 0.3 s of imports on a few small runs). Where a key repeats
    (two measures shown alike, a run or topic twice) that table refuses it, in its words."""
    columns = [column.display for column in evaluation.columns if column.per_query]
    held = [run for run in evaluation.runs if len(run.qids)]
    shown = tuple(dict.fromkeys(columns)) if held else ()
    names = [run.name for run in evaluation.runs]
    repeated = len(shown) < len(columns) or len(set(names)) < len(names)
    if held and (repeated or any(len(set(run.qids)) < len(run.qids) for run in held)):
        from ..comparison.tables import values_cube

        return shown, values_cube(evaluation.per_query_values, runs, list(shown), topics)
    row_of = {qid: row for row, qid in enumerate(topics)}
    values = np.full((len(topics), len(runs), len(shown)), np.nan)
    for run in held:  # evaluated under the names given: runs.index finds each
        rows = np.array([row_of.get(qid, -1) for qid in run.qids], dtype=np.intp)
        kept = rows >= 0
        values[rows[kept], runs.index(run.name), :] = evaluation.per_query_matrix(run)[kept]
    return shown, values
