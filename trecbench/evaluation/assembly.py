"""A run's result assembled from the blocks its topics were scored in (one for a run
held whole): trec_eval's errors in trec_eval's order, with what it printed before it
stopped; its summary values (sequential sums, ``-c``, geometric means); its tie bounds;
the topics worth a warning."""

from __future__ import annotations

import math
import warnings
from dataclasses import replace
from typing import Any

import numpy as np

from .. import ranking, tiebounds
from ..callers import outside_trecbench
from ..errors import (
    NoOverlapError,
    ProviderWarning,
    TrecbenchError,
    excerpt,
    one_line,
    some_topics,
)
from ..id_forms import forms_apart
from ..kernels import sequential_sum
from ..measures import COUNTS, GEOMETRIC, NUM_Q, NUM_REL, RUNID, STRING, SUM, Measure
from ..measures.params import CWL_HORIZON
from ..plurals import counted
from . import bounds
from .drill import DrillDown, joined, topic_curves
from .plan import _Plan, _plan_topics, _TopicPlan
from .results import Column, FlaggedTopic, RunResult
from .scoring import _Block, evaluated_depth
from .settings import EvalSettings
from .unjudged import Unjudged

MIN_GEO_MEAN = 1e-5  # trec_eval's floor for geometric means (log(1e-5) per missing topic)


def _stopped_run(name, path, runid, qids, values, strings, stop: int, **extra) -> RunResult:
    """What trec_eval printed of a run before it stopped at topic ``stop``: the topics
    before it (``values`` and ``strings`` follow ``qids``), no summary."""
    kept = slice(0, stop)
    return RunResult(
        name,
        path,
        runid,
        qids[kept],
        {label: column[kept] for label, column in values.items()},
        {label: column[kept] for label, column in strings.items()},
        {},
        complete=False,
        **extra,
    )


def run_result(blocks: list[_Block], name, path, runid, plan: _Plan, tie_bounds=False):
    """One run's :class:`RunResult`, columns and flagged topics from the blocks its
    topics were scored in (one for a run held whole), with trec_eval's errors in
    trec_eval's order (the topics before the one trec_eval stops at are the error's
    ``partial_run``)."""
    truth, settings = plan.truth, plan.settings
    run_qids = [q for block in blocks for q in block.run_qids]
    topics = _run_topics(blocks, run_qids, plan, path or name)
    qids = topics.qids
    flags = _topic_flags(name, run_qids, truth.qids, topics.looped, settings.complete)
    stops = _stops(blocks, topics, path or name)
    scored = [block for block in blocks if block.qids and block.error is None]
    measured = sorted(q for block in scored for q in block.qids)
    columns = scored[0].columns if scored else None
    values = _assembled(scored, measured, lambda block: block.values)
    strings = _assembled(scored, measured, lambda block: block.strings)
    traces = scored[0].traces if len(scored) == 1 else None  # -D: runs held whole
    if stops:
        stop, error, trailing = min(stops, key=lambda found: found[0])
        # measured: every topic before the stop (see score_block)
        error.partial_run = _stopped_run(
            name, path, runid, qids, values, strings, stop,
            traces=traces[:stop] if traces is not None else None, trailing=trailing,
        )  # fmt: skip
        if columns is not None:
            error.partial_columns = columns
        raise error
    warn_past_horizon(name, [block.past_horizon for block in scored])
    counted = [block.unjudged for block in scored if block.unjudged is not None]
    unjudged = None
    if counted:
        depth = evaluated_depth(plan.measures, settings.max_docs)
        unjudged = Unjudged(depth, *(sum(column) for column in zip(*counted, strict=True)))

    def summarise(column: Column, per_topic) -> Any:
        judged = len(truth.qids), _judged_relevant(truth, column)
        return _summarise(column, per_topic, len(qids), judged, settings, runid)

    summary = {c.label: summarise(c, values.get(c.label)) for c in columns}
    result = RunResult(
        name, path, runid, qids, values, strings, summary, unjudged=unjudged, traces=traces
    )
    if tie_bounds:
        result.tie_bounds = _tie_bounds(result, scored, columns, plan, summarise)
    if plan.drill is not None:
        result.drill_down = _drill_down(blocks, name, path, runid, plan)
    if plan.bounds is not None:
        result.unjudged_high = _high_end(blocks, result, plan)
    return result, columns, flags


def warn_past_horizon(run: str, blocks: list[dict[Measure, list[tuple]]]) -> None:
    """Say, in one line for the measures that found the same, where a document with a
    gain lies past cwl_eval's horizon in ``run`` (its name), of the ``past_horizon`` of
    each block of its topics (:func:`trecbench.engines.providers.past_horizon`): the first
    topic and how many others, the same whether the run was scored whole, in blocks, by a
    worker or on Dask."""
    found: dict[Measure, list[tuple]] = {}
    for block in blocks:
        for measure, topics in block.items():
            found.setdefault(measure, []).extend(topics)
    alike: dict[tuple, list[Measure]] = {}
    for measure, topics in found.items():
        alike.setdefault(tuple(sorted(topics)), []).append(measure)
    for topics, measures in alike.items():
        qid, docno, rank = topics[0]
        more = f" (and in {counted(len(topics) - 1, 'other topic')})" if len(topics) > 1 else ""
        named = ", ".join(m.requested or m.family for m in measures)
        warnings.warn(
            f"{one_line(run)}: {named}: cwl_eval reads the top {CWL_HORIZON} ranks of a "
            f"topic: document {one_line(docno)} of topic {one_line(qid)}, at rank {rank}, "
            f"has a gain and counts nothing{more}",
            ProviderWarning,
            stacklevel=outside_trecbench(),
        )


def _drill_down(blocks: list[_Block], name, path, runid, plan: _Plan) -> DrillDown:
    """The run's :class:`DrillDown` from what its blocks kept: the curve per topic as the
    run scored for iprec_at_recall alone would have it (its blocks assembled as any)."""
    curves = plan.drill.curves
    result, _, _ = run_result([block.curve for block in blocks], name, path, runid, curves)
    curve = topic_curves(result)
    documents = joined([block.top for block in blocks])  # graded by the caller: drill.grade
    return DrillDown(plan.drill.depth, documents, curve)


def _high_end(blocks: list[_Block], result: RunResult, plan: _Plan) -> bounds.HighEnd:
    """The run's :class:`~.bounds.HighEnd` from what its blocks kept: per depth, the
    blocks scored against the completed qrels assembled as any (a block without a
    measured topic adds its topics only), and the documents counted per topic."""
    again = bounds.plain(plan, plan.truth)  # the run's topics are the judged qrels'
    kept = [block for block in blocks if block.highs]
    values, looked, unjudged = {}, {}, {}
    place = {qid: i for i, qid in enumerate(result.qids)}
    for depth in kept[0].highs if kept else ():
        if kept[0].highs[depth][0] is not None:
            parts = [block.highs[depth][0] if block.highs else _Block(block.run_qids)
                     for block in blocks]  # fmt: skip
            high, _, _ = run_result(parts, result.name, result.path, result.runid, again)
            values[depth] = high.values
        looked[depth], unjudged[depth] = _counted(kept, depth, place)
    positives, grade = plan.bounds.positives, plan.bounds.grade
    return bounds.HighEnd(result.qids, values, looked, unjudged, positives, grade)


def _counted(blocks: list[_Block], depth, place: dict[str, int]) -> tuple:
    """``(looked, unjudged)`` per topic of the run (``place``: qid -> its index) within
    ``depth``, from what its ``blocks`` counted of their topics."""
    looked, unjudged = np.zeros(len(place), np.int64), np.zeros(len(place), np.int64)
    for block in blocks:
        at = np.array([place[qid] for qid in block.qids], np.int64)
        _, block_looked, block_unjudged = block.highs[depth]
        looked[at] = block_looked
        unjudged[at] = block_unjudged
    return looked, unjudged


def bound_rows(evaluation, topics=None, complete=frozenset(), means=False) -> list[tuple]:
    """``(run, measure, low, high, unjudged share, why the ranges of two runs do not bound
    their difference or None, why high is not the value with every unjudged document
    relevant or None, whether the values are counts, why the value is no low end or None:
    :data:`bounds.LOW_JUDGED_ONLY` under -J)`` of each run of ``evaluation`` (scored with
    :attr:`~EvalSettings.unjudged_bounds`) and each bounded column (display names), as
    :func:`bound_values`, :func:`bounds.difference_unbounded` and
    :func:`bounds.high_undefined` give them. A run named in ``complete`` (its qrels
    vouched for by a sidecar, :func:`trecbench.strata.vouched_runs`) has no unjudged
    relevant document: its high is its low, whatever the measure, for
    :data:`bounds.COMPLETE_QRELS`. A count is a column the registry sums over topics
    (:data:`~trecbench.measures.COUNTS`: ``num_ret``...), printed as an integer as score
    prints it; under ``-Z`` its values are z-scores, and with ``means`` (a comparison's,
    over ``topics``) means per topic, as :func:`bound_values` gives them: no count."""
    settings = evaluation.settings
    level = settings.relevance_level
    rows = []
    no_low = bounds.LOW_JUDGED_ONLY if settings.judged_only else None
    for run in evaluation.runs:
        values = bound_values(
            run, evaluation.columns, settings, topics, evaluation.relevant_counts, means
        )
        for column, low, high, share in values:
            count = column.summary in COUNTS and not settings.zscores and not means
            # -J changes nothing where the column looks at no unjudged document
            low_undefined = no_low if share > 0 else None
            if run.name in complete:
                high, unbounded, undefined = low, None, bounds.COMPLETE_QRELS
            else:
                unbounded = bounds.difference_unbounded(column.measure, settings.judged_only)
                undefined = bounds.high_undefined(column.measure, run.unjudged_high.grade,
                                                  level, low, high)  # fmt: skip
            rows.append((run.name, column.display, low, high, share, unbounded, undefined,
                         count, low_undefined))  # fmt: skip
    return rows


def bound_values(
    run: RunResult, columns, settings: EvalSettings, topics=None, relevant_counts=None, means=False
) -> list[tuple]:
    """``(column, low, high, unjudged share)`` of each bounded column of ``run`` (scored
    with ``settings`` and :attr:`~EvalSettings.unjudged_bounds`): over its own topics,
    summarised as ``settings`` say (``low`` is its summary value); or over ``topics``
    only, each counting (a topic the run lacks: 0, trec_eval ``-c``), as a comparison's
    means over its topics are. ``means``: a column trec_eval sums over them (``num_ret``,
    ``num_rel``) as its mean per topic instead, as a comparison's tables show it.
    ``relevant_counts``: the evaluation's, for the ``num_rel`` columns given their own
    ``rel``."""
    high_end = run.unjudged_high
    complete = settings.complete if topics is None else True
    wanted = high_end.positives if topics is None else set(topics) & set(high_end.positives)
    keep = np.array([i for i, qid in enumerate(run.qids) if qid in wanted], np.int64)
    settings = replace(settings, complete=complete)
    rows = []
    for column in bounds.bounded(columns):
        depth = bounds.column_depth(column)
        added = int(high_end.unjudged[depth][keep].sum())
        looked = int(high_end.looked[depth][keep].sum())
        relevant, least = _bound_relevant(column, high_end.positives, relevant_counts, wanted)

        def summary(values, added: int, column=column, relevant=relevant, least=least) -> float:
            per_topic = None if values is None else values[keep]
            judged = len(wanted), relevant + (added if high_end.grade >= least else 0)
            value = float(_summarise(column, per_topic, len(keep), judged, settings, run.runid))
            summed = means and column.summary in (SUM, NUM_REL)
            return value / max(len(wanted), 1) if summed else value

        if topics is None:
            low = float(run.summary[column.label])  # as printed
        else:
            low = summary(run.values.get(column.label), 0)
        scored = high_end.values.get(depth, {}).get(column.label)
        high = low if scored is None else summary(scored, added)
        rows.append((column, low, high, added / max(looked, 1)))
    return rows


def _bound_relevant(column: Column, positives, relevant_counts, wanted) -> tuple[int, int]:
    """What a ``num_rel`` column sums to under ``-c`` over the ``wanted`` topics, as
    :func:`_judged_relevant` says (``positives``: per topic its judgments above 0, what
    trec_eval's num_rel and any other column, whose summary reads none, get), and the
    least grade at which an unjudged document judged at the qrels' top grade adds to it."""
    rel = column.measure.option("rel")
    if column.summary != NUM_REL or rel is None:
        return sum(positives[qid] for qid in wanted), 1
    counts = relevant_counts[rel]
    return sum(counts.get(qid, 0) for qid in wanted), rel


def _run_topics(blocks: list[_Block], run_qids: list[str], plan: _Plan, label) -> _TopicPlan:
    """trec_eval's loop over the run's topics (planned already for a run held whole);
    :class:`~trecbench.errors.NoOverlapError` when it has none."""
    planned = [block.topics for block in blocks if block.topics is not None]  # held whole
    topics = planned[0] if planned else _plan_topics(run_qids, plan, label)
    if not topics.qids:
        why = (
            f"-D names topic {excerpt(plan.settings.debug_query)}, not one of them"
            if topics.looped
            else "no topic of the run is in the qrels: the run's "
            f"{some_topics(run_qids)}; the qrels' {some_topics(plan.truth.topics)}"
            + forms_apart(run_qids, plan.truth.topics, "the run's", "the qrels'")
        )
        raise NoOverlapError(f"{label}: No queries with both results and relevance info ({why})")
    return topics


def _stops(blocks: list[_Block], topics: _TopicPlan, label) -> list[tuple]:
    """``(index, error, trailing)`` of the topics trec_eval stops at, in trec_eval's order:
    a topic it stops at before any other (a judgment, 10.0's missing topic); what an
    engine raised on the topics before the first such stop (raised here); the first topic
    (sorted) that it stops at, with what it printed before (``partial_run``)."""
    qids = topics.qids
    stops: list[tuple[int, TrecbenchError, str]] = []
    if topics.stop is not None:
        stops.append((topics.stop, topics.error, ""))
    judged = topics.stop if topics.stop is not None else len(qids)
    failed = [
        block
        for block in blocks
        if block.error is not None and judged > 0 and block.qids[0] <= qids[judged - 1]
    ]
    if failed:
        raise min(failed, key=lambda block: block.qids[0]).error
    duplicates = [block.duplicate for block in blocks if block.duplicate is not None]
    if duplicates:  # the first topic with one (a topic's rows are in one block)
        found = min(duplicates, key=lambda duplicate: duplicate[0])
        # first in the list: in a topic, trec_eval checks the run's documents before its
        # judgments (form_res_rels.c), so this stop comes before the qrels' there
        stops.insert(0, (qids.index(found[0]), ranking.duplicate_error(label, *found), ""))
    for block in blocks:
        if block.failure is not None:  # the native engine stopped part-way
            qid, error, trailing = block.failure
            stops.append((qids.index(qid), error, trailing))
    return stops


def _tie_bounds(result: RunResult, scored: list[_Block], columns, plan: _Plan, summarise):
    """The run's :class:`~trecbench.tiebounds.TieBounds` from its blocks' extreme orders."""
    orders = tiebounds.Orders(
        None,
        None,
        any(block.ties for block in scored),
        sum(block.tied_topics for block in scored),
    )
    evaluated = []
    if any(block.extremes is not None for block in scored):
        evaluated = [
            RunResult(result.name, result.path, result.runid, result.qids, _assembled(
                scored, result.qids,
                lambda block, side=side: block.values if block.extremes is None
                else block.extremes[side],
            ), {}, {})
            for side in (0, 1)
        ]  # fmt: skip
    return tiebounds.run_bounds(result, orders, evaluated, columns, plan.engine_settings, summarise)


def _assembled(blocks: list[_Block], qids: list[str], part) -> dict:
    """``part(block)`` (label -> per-topic values) of every block, in the order of
    ``qids`` (the run's measured topics, sorted: trec_eval's summing order)."""
    if len(blocks) == 1:
        return part(blocks[0])
    if not blocks:
        return {}
    where = {qid: i for i, qid in enumerate(qids)}
    index = np.array([where[q] for block in blocks for q in block.qids], np.int64)
    out: dict = {}
    for label in part(blocks[0]):
        pieces = [part(block)[label] for block in blocks]
        if isinstance(pieces[0], list):
            merged = [None] * len(qids)
            for i, value in zip(index, (v for piece in pieces for v in piece), strict=True):
                merged[i] = value
            out[label] = merged
        else:
            merged = np.empty(len(qids), np.result_type(*pieces))
            merged[index] = np.concatenate(pieces)
            out[label] = merged
    return out


def _judged_relevant(truth, column: Column) -> int | None:
    """What a ``num_rel`` column sums to under ``-c`` (None for any other column): for
    trec_eval's ``num_rel`` every judgment above 0 in the qrels, whatever ``-l`` (its
    quirk, reproduced); for a measure given its own ``rel`` (``NumRel(rel=3)``, which
    trec_eval cannot spell) the judgments at that grade or above, topic by topic as its
    values are counted, the topics the run lacks included."""
    if column.summary != NUM_REL:
        return None
    rel = column.measure.option("rel")
    if rel is None:
        return truth.positive_judgments
    return sum(truth.relevant_counts(rel).values())


def _summarise(
    column: Column, values, n_evaluated: int, judged: tuple[int, int | None],
    settings: EvalSettings, runid,
):  # fmt: skip
    """trec_eval's summary value: sequential sums (its accumulation order), ``-c`` rules
    (``judged``: the qrels' topics and, for a ``num_rel`` column, the judgments it sums
    to: :func:`_judged_relevant`)."""
    kind = column.summary
    complete = settings.complete
    qrels_topics, positive_judgments = judged
    denominator = qrels_topics if complete else n_evaluated
    if kind == RUNID:
        return runid
    if kind == NUM_Q:
        return denominator
    if kind == STRING:
        return None
    with np.errstate(invalid="ignore", over="ignore"):  # -Z's inf + -inf: nan, as in C
        total = sequential_sum(values)  # z-scores of -0.0 alone sum to 0.0, as in C
    if math.isnan(total) and settings.version.last_nan_kept:
        total = _last_nan(values, total)
    if kind == NUM_REL and complete:
        return positive_judgments
    if kind in (SUM, NUM_REL):
        return total if settings.zscores else int(total)  # -Z: sums of z-scores
    if kind == GEOMETRIC:
        total += (denominator - n_evaluated) * math.log(MIN_GEO_MEAN)
        return math.exp(total / denominator)
    return total / denominator  # MEAN


def _last_nan(values, total: float) -> float:
    """The NaN 9.0.8's sum ends with (:attr:`~trecbench.trec_eval.compat.Compat.last_nan_kept`):
    the last NaN added, its sign printed (``-nan``); numpy's sum keeps the first. Without
    a NaN among ``values`` (inf + -inf) both are the hardware's NaN: ``total``."""
    nans = np.flatnonzero(np.isnan(values))
    return math.copysign(math.nan, values[nans[-1]]) if len(nans) else total


def _topic_flags(name, run_qids, qrels_qids, evaluated, complete) -> list[FlaggedTopic]:
    evaluated_set = set(evaluated)
    flags = [
        FlaggedTopic(
            qid,
            "run_only",
            f"{name}: topic {qid} is not in the qrels: ignored (with or without -c)",
            name,
        )
        for qid in sorted(set(run_qids) - evaluated_set)
    ]
    effect = (
        "counts as 0 in every average (-c)"
        if complete
        else "ignored; with -c it would count as 0 in every average"
    )
    flags += [
        FlaggedTopic(qid, "qrels_only", f"{name}: topic {qid} is not in the run: {effect}", name)
        for qid in qrels_qids
        if qid not in evaluated_set
    ]
    return flags
