"""Scoring a block of whole topics (a run held whole, or any part of one): ranked once,
every engine of the plan on its measured topics (:func:`score_block`), ``-Z``'s z-scores,
``-D``'s traces, the documents without judgment and the values of the extreme orders of
tied documents (tie bounds). :mod:`.assembly` makes a run's result of its blocks."""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa

from .. import arrow, ranking, tiebounds
from ..callers import outside_trecbench
from ..engines import META, NATIVE, PROVIDERS, PYTREC_EVAL, computed_by
from ..errors import TrecbenchError
from ..measures import STRING, Measure
from ..measures.spellings import spelled
from ..score_precision import compares_float32
from ..trec_eval import placeholder
from ..trec_eval import zscores as zscores_module
from ..trec_eval.prefs_files import PREFS_FORMATS
from . import bounds
from .drill import top_rows
from .judgments import Qrels
from .plan import _Plan, _plan_topics, _TopicPlan
from .results import Column

# measures that credit retrieved documents the qrels do not list (by their similarity to
# the listed ones): documents without judgment are not lost on them
_CREDIT_UNJUDGED = frozenset({"MaxOntSim"})


def evaluated_depth(measures, max_docs: int | None) -> int | None:
    """The deepest rank ``measures`` look at: their largest cutoff when every one has a
    cutoff (``P@10``, ``MRR@10``...), else the whole ranking (None), never beyond ``-M``.
    Measures that credit unjudged documents (MaxOntSim) do not count."""
    depths = []
    for measure in measures:
        if measure.family in ("runid", "num_q", "num_rel") or measure.family in _CREDIT_UNJUDGED:
            continue  # facts of the qrels or the call; or judgments are not all they use
        definition = measure.definition
        if measure.cutoffs:
            depths.append(max(measure.cutoffs))
        elif definition.trec_params is None and definition.cutoff and measure.params:
            depths.append(int(float(measure.params)))  # an @k of a non-trec_eval measure
        else:
            depths.append(None)
    if not depths or None in depths:
        return max_docs
    return min(max(depths), max_docs) if max_docs is not None else max(depths)


def _unjudged(ranked_run: ranking.RankedRun, truth: Qrels, depth: int | None) -> tuple:
    """(retrieved, unjudged, topics, topics with nothing judged) within ``depth``; unjudged
    as the bounds, validate's X4 and 10.0's ``unj`` count it: no judgment, or a negative
    grade (:meth:`~trecbench.ranking.RankedRun.judged_rows`)."""
    rows = np.flatnonzero(ranked_run.judged_rows(truth))
    topic, position = ranked_run.row_arrays()
    if depth is None:
        retrieved, judged = len(ranked_run.rows), rows
    else:
        retrieved = int(np.count_nonzero(ranked_run.position < depth))
        judged = rows[position[rows] < depth]
    topics = _stretches(ranked_run.topic)
    filled = _distinct(topic[judged], len(ranked_run.qids))
    return retrieved, retrieved - len(judged), topics, topics - filled


def _distinct(codes: np.ndarray, n: int) -> int:
    """How many distinct values ``codes`` (each in ``range(n)``) holds (no sort, no hash)."""
    seen = np.zeros(n, bool)
    seen[codes] = True
    return int(np.count_nonzero(seen))


def _stretches(codes: np.ndarray) -> int:
    """How many stretches of equal values ``codes`` holds: its distinct values where each
    comes in one stretch, as a ranked run's topics do (one comparison per row: a thirtieth
    of :func:`_distinct`'s scatter over half a million rows)."""
    return int(np.count_nonzero(codes[1:] != codes[:-1])) + 1 if len(codes) else 0


def _float32(plan: _Plan) -> bool:
    """Whether this plan's ranking compares scores as float32
    (:func:`~trecbench.score_precision.compares_float32`)."""
    return compares_float32(plan.version, plan.settings.float32)


def _produced(ranked, qids, plan: _Plan, engines: list[str]) -> dict:
    """``{measure: [(label, display, per-topic values)]}`` of ``engines`` on a ranked run
    (a :class:`~trecbench.ranking.RankedRun`, or its table in trec_eval order)."""
    produced: dict[Measure, list[tuple]] = {}
    first = [n for n in engines if plan.evaluator(n).before_judged_only]
    for engine_name in first:  # trec_eval's code applies -J itself
        produced.update(plan.evaluator(engine_name).evaluate(ranked, qids))
    rest = [n for n in engines if n not in first]
    if rest:
        ranked = _judged_only(ranked, plan)
    for engine_name in rest:
        produced.update(plan.evaluator(engine_name).evaluate(ranked, qids))
    return produced


def _judged_only(ranked, plan: _Plan):
    """``ranked`` (a table in trec_eval order) as the engines that leave ``-J`` to
    trecbench get it: with ``-J``, its judged documents alone (not with preferences)."""
    settings = plan.settings
    if settings.judged_only and settings.rel_format not in PREFS_FORMATS:
        return ranking.judged_only(ranked, plan.truth.table)
    return ranked


def _past_horizon(ranked_run: ranking.RankedRun, plan: _Plan) -> dict:
    """The providers engine's topics with a gain past cwl_eval's horizon, per measure
    (:func:`trecbench.engines.providers.past_horizon`), in ``ranked_run`` as that engine
    gets it (a table, ``-J`` applied): ranked again for the measures it concerns alone."""
    from ..engines.providers import past_horizon, uncut

    measures = uncut(plan.groups[PROVIDERS])
    if not measures:
        return {}
    ranked = _judged_only(ranked_run.table(), plan)
    return past_horizon(ranked, ranked_run.qids, measures, plan.truth.as_dict)


def _measure(ranked, qids, plan: _Plan, produced=None) -> tuple:
    """``(columns, values, strings)``: every engine of the plan on a ranked run (see
    :func:`_produced`; ``produced``: what the engines gave, when already computed), each
    value named as :func:`~trecbench.measures.spellings.spelled` names it."""
    if produced is None:
        produced = _produced(ranked, qids, plan, list(plan.groups))

    def names(measure: Measure) -> list[tuple[str, str]]:
        if plan.engines[measure] == META:  # runid, num_q: evaluate's own
            return [(measure.family, measure.family)]
        return [(label, display) for label, display, _ in produced[measure]]

    columns: list[Column] = []
    values: dict[str, np.ndarray] = {}
    strings: dict[str, list[str]] = {}
    for value, index in spelled(plan.measures, names, plan.aliases, plan.asked_at):
        measure = value.measure
        engine = plan.engines[measure]
        by = computed_by(measure, engine)  # what reports record
        columns.append(
            Column(value.label, value.display, measure, by, value.asked, value.also, value.at)
        )
        if engine == META:
            continue
        label, _, array = produced[measure][index]
        if measure.summary == STRING:
            strings[label] = array
        else:
            values[label] = array
    return columns, values, strings


def _traces(native, plan: _Plan, qids: list[str]) -> list[str]:
    """What each topic prints while computed (``-D``), measures in trec_eval's order."""
    texts = [""] * len(qids)
    if native is None:
        return texts
    from ..measures.labels import labels_of

    for measure in plan.measures:
        if plan.engines[measure] == NATIVE:
            for t, text in enumerate(native.traces.get(labels_of(measure)[0], ())):
                texts[t] += text
    return texts


def _convert_to_zscores(values: dict[str, np.ndarray], qids, table, columns) -> None:
    """``-Z``: every per-topic value as a z-score (:mod:`trecbench.trec_eval.zscores`),
    looked up by the name trec_eval prints for it (its ``columns``' :attr:`Column.trec_label`);
    those that overflow a double from finite numbers (a stddev too small for the value's
    distance from the mean) warned of, as trec_eval prints them (inf), and so are those
    given trec_eval's -1000000 (no line, or a stddev of 0) and those converted with the
    next topic's first line (no line of their own: trec_eval's search looks one past)."""
    labels = list(values)
    printed = {column.label: column.trec_label for column in columns}
    names = [printed.get(label, label) for label in labels]
    overflows, missing, borrowed = [], [], []
    for t, qid in enumerate(qids):
        given = [values[lb][t] for lb in labels]
        converted = zscores_module.convert(table, qid, names, given, overflows, missing, borrowed)
        for label, z in zip(labels, converted, strict=True):
            values[label][t] = z
    for found, warning in ((overflows, zscores_module.overflow_warning),
                           (missing, zscores_module.missing_warning),
                           (borrowed, zscores_module.borrowed_warning)):  # fmt: skip
        if found:
            warnings.warn(warning(table, found), stacklevel=outside_trecbench())


# ---------------------------------------------------------------------------------------
# runs in blocks of whole topics (files longer than a block, Dask partitions)


@dataclass
class _Block:
    """What scoring one block of whole topics gives (:func:`score_block`).

    ``run_qids``: the block's distinct topics; ``qids``: those measured (in the qrels,
    sorted, not the ones trec_eval stops at), which ``values``, ``strings`` and ``traces``
    (``-D``) follow (``columns`` None when nothing was measured). ``topics``: trec_eval's
    loop over the topics, for a block that is the whole run.
    ``unjudged``: (retrieved, unjudged, topics, topics with nothing judged).
    ``duplicate``: a document the run lists twice, ``(qid, docno, first line, second
    line)``; ``failure``: where the native engine stopped, ``(qid, error, what it printed
    of that topic)``; ``error``: what an engine raised. With tie bounds: ``extremes``, the
    values of the best and the worst order (None: no tie group mixes keys), ``ties`` and
    ``tied_topics``. ``top`` and ``curve``: what a report's drill-down keeps
    (:mod:`.drill`); ``highs``: what the unjudged bounds keep (:func:`_high_blocks`).
    ``past_horizon``: the providers engine's topics with a gain past cwl_eval's horizon,
    per measure (:func:`_past_horizon`; :func:`.assembly.warn_past_horizon` says the run's).
    """

    run_qids: list[str]
    qids: list[str] = field(default_factory=list)
    topics: _TopicPlan | None = None
    columns: list[Column] | None = None
    values: dict[str, np.ndarray] = field(default_factory=dict)
    strings: dict[str, list[str]] = field(default_factory=dict)
    traces: list[str] | None = None
    unjudged: tuple[int, int, int, int] | None = None
    duplicate: tuple[str, str, int, int] | None = None
    failure: tuple[str, TrecbenchError, str] | None = None
    error: Exception | None = None
    extremes: tuple[dict, dict] | None = None
    ties: bool = False
    tied_topics: int = 0
    top: pa.Table | None = None
    curve: _Block | None = None
    highs: dict = field(default_factory=dict)
    past_horizon: dict = field(default_factory=dict)


def score_block(
    table,
    plan: _Plan,
    tie_bounds=False,
    whole: str | None = None,
    checks: bool = True,
    stretches: tuple | None = None,
    order: ranking.RunOrder | None = None,
    docno_hashes=None,
) -> _Block:
    """A :class:`_Block` of ``table``, a run or any part of one that holds whole topics;
    the run's errors are decided over all its blocks, in trec_eval's order
    (:func:`run_result`). ``checks=False`` (an extreme order of tie bounds, only its
    values wanted): no duplicate check and no unjudged count.

    ``whole``: the run's label (its path, else its name) when ``table`` is all of it (any
    setting): its topics are trec_eval's loop over them (:func:`_plan_topics`: 10.0's
    qrels topics, ``-D``'s topic), measured up to the one trec_eval stops at. A part of a
    run (trec_eval 9.0.8's reading, :func:`_read_whole`) cannot know where that is: every
    topic an engine may be given wherever it comes is measured
    (:meth:`Qrels.measurable`). ``stretches``: where the table's topics start and their
    qids, when known (:class:`trecbench.inputs.blocks.Block`); ``order``: the table's
    :func:`~trecbench.ranking.order_run` at this plan's precision, when already made;
    ``docno_hashes``: see :class:`~trecbench.ranking.RankedRun`."""
    truth, settings = plan.truth, plan.settings
    if order is None:
        order = ranking.order_run(table, float32=_float32(plan), stretches=stretches)
    run_qids = order.qids.to_pylist()
    lead, placeholders = None, []
    if whole is not None:
        topics = _plan_topics(run_qids, plan, whole)
        block = _Block(run_qids, topics=topics)
        measured = topics.qids[: topics.stop]
        kept = set(measured)
        placeholders = [q for q in topics.placeholders if q in kept]
        if checks and topics.stop is not None:
            stop = topics.qids[topics.stop]
            block.duplicate = _run_duplicate(table, order, [stop] if stop in run_qids else [], plan)
    else:
        block = _Block(run_qids)
        measured, lead = _measured_in_part(block, table, order, plan, checks)
    if checks and plan.drill is not None:  # from this read: the report reads no run again
        block.top = top_rows(table, order, _float32(plan), plan.drill.depth)
        # the curve's plan compares scores as this one does: the run is ranked once
        block.curve = score_block(
            table, plan.drill.curves, whole=whole, checks=False, stretches=stretches,
            order=order,
        )  # fmt: skip
    if not measured:
        return block
    block.qids = measured
    prefs = settings.rel_format in PREFS_FORMATS
    # preferences rank every retrieved document their own way, then cut at -M themselves
    max_docs = None if prefs else settings.max_docs
    ranked_run = ranking.RankedRun(table, order, measured, max_docs, docno_hashes)
    # checked here, not in a thread of its own: the hash index it reads is built once for
    # the fast engine too, and what is left (the colliding hashes, 0.4 ms a 600k-line
    # block) cost less than starting a thread, which stalled this one for the GIL (up to
    # 15 ms a block while the reader's threads ran)
    check_duplicates = checks and bool(plan.groups) and not prefs
    credited = any(m.family not in _CREDIT_UNJUDGED and m.provider != META for m in plan.measures)
    if checks and settings.rel_format == "qrels" and credited:
        depth = evaluated_depth(plan.measures, settings.max_docs)
        block.unjudged = _unjudged(ranked_run, truth, depth)
    try:
        *measures, native = _measure_block(table, ranked_run, lead, placeholders, plan)
        block.columns, block.values, block.strings = measures
        if settings.debug_level > 0:
            block.traces = _traces(native, plan, measured)
        if native is not None and native.failed_at is not None:
            block.failure = measured[native.failed_at], native.error, native.trailing
        if checks and PROVIDERS in plan.groups:  # this order's, with these judgments
            block.past_horizon = _past_horizon(ranked_run, plan)
    except Exception as error:  # noqa: BLE001 - raised in trec_eval's order (run_result)
        block.error = error
    if check_duplicates:
        block.duplicate = _earliest(ranked_run.first_duplicate(), block.duplicate)
    if checks and plan.bounds is not None and block.columns is not None:
        block.highs = _high_blocks(table, order, ranked_run, block.columns, plan, whole, stretches)
    # a run held whole that trec_eval stops in raises that before any bound is computed
    # (a part of a run cannot know: the stop may come earlier, in another block)
    stops = whole is not None and (
        block.topics.stop is not None or block.duplicate is not None or block.failure is not None
    )
    if tie_bounds and block.error is None and not stops:
        judgments, matched = ranked_run.judged(truth)
        # without -M the ranked run keeps every row of the measured topics: its match is
        # the one the extreme orders need; with -M it lacks the rows beyond the cut
        matched = matched if settings.max_docs is None else None
        try:
            _extremes(block, table, order, judgments, matched, plan)
        except Exception as error:  # noqa: BLE001 - as above
            block.error = error
    return block


def _measured_in_part(block: _Block, table, order, plan: _Plan, checks: bool) -> tuple:
    """``(measured topics, lead)`` of a part of a run (see :func:`score_block`); with
    ``checks``, the block's duplicate in the topics its judgments stop trec_eval at."""
    truth, lead = plan.truth, None
    measured = sorted(q for q in block.run_qids if q in truth.topics)
    if plan.groups and measured:
        judged, measured = measured, truth.measurable(measured, plan.diversity_only)
        if checks:  # the topics trec_eval stops at for their judgments
            left_out = sorted(set(judged) - set(measured))
            block.duplicate = _run_duplicate(table, order, left_out, plan)
        lead = truth.lead(measured) if measured else None
        if measured and lead is None and truth.topics[measured[0]][0] < 0:
            # no judged topic sorts before it: the run's first topic has only negative
            # grades too, where trec_eval stops before printing anything
            measured = []
    if plan.uncalculable is not None:  # stopped at the run's first topic (_plan_topics)
        measured = []
    return measured, lead


def _run_duplicate(table, order, qids: list[str], plan: _Plan) -> tuple | None:
    """A document the run lists twice in one of ``qids``, topics whose judgments stop
    trec_eval (not measured): in a topic, trec_eval checks the run's documents before its
    judgments (form_res_rels.c), so such a duplicate is the error it names there."""
    if not qids or not plan.groups or plan.settings.rel_format in PREFS_FORMATS:
        return None
    return ranking.RankedRun(table, order, qids, plan.settings.max_docs).first_duplicate()


def _earliest(*found: tuple | None) -> tuple | None:
    """The duplicate (``(qid, ...)``) of the topic trec_eval evaluates first."""
    return min((one for one in found if one is not None), key=lambda one: one[0], default=None)


def _high_blocks(table, order, ranked_run, columns, plan: _Plan, whole, stretches) -> dict:
    """``{depth: (block, looked, unjudged)}`` for each depth ``columns`` look at (see
    :mod:`.bounds`): the block scored again, from this read, against the qrels with its
    unjudged documents within that depth judged at the top grade (None where only a META
    column looks at it), and per topic its documents within it and the unjudged among
    them."""
    counted, scored = bounds.depths(columns)
    highs = {}
    for depth in counted:
        looked, unjudged, added = bounds.counted(ranked_run, plan.truth, depth)
        high = None
        if depth in scored:
            high = score_block(
                table, bounds.completed(plan, ranked_run, added), whole=whole, checks=False,
                stretches=stretches, order=order,
            )  # fmt: skip
        highs[depth] = (high, looked, unjudged)
    return highs


def _measure_block(table, ranked_run, lead, placeholders, plan: _Plan):
    """``(columns, values, strings, native)``: every engine of the plan on the topics of
    ``ranked_run`` (``table`` ranked), ``lead`` going ahead of them for pytrec_eval
    (:func:`_measure_led`), 10.0's empty rankings for the ``placeholders`` (``-c``), the
    values as z-scores with ``-Z``; ``native``: the native engine's result (traces, where
    it stopped), None without it."""
    qids = ranked_run.qids
    if lead is not None:
        columns, values, strings = _measure_led(table, ranked_run, lead, plan)
    else:
        # rows are moved into trec_eval order only for engines that need a table
        ranked = ranked_run.table() if plan.table_needed or placeholders else ranked_run
        if placeholders:
            ranked = placeholder.with_placeholders(ranked, qids, placeholders)
        columns, values, strings = _measure(ranked, qids, plan)
    native = plan.evaluator(NATIVE).last if NATIVE in plan.groups else None
    if placeholders:
        rows = np.flatnonzero(np.isin(np.array(qids, dtype=object), placeholders))
        placeholder.clear(values, strings, rows)
    if plan.zscores is not None:
        _convert_to_zscores(values, qids, plan.zscores, columns)
    return columns, values, strings, native


def _measure_led(table, ranked_run, lead: str, plan: _Plan):
    """:func:`_measure` for a block whose first topic has only negative judgments, which
    trec_eval's code (pytrec_eval) cannot start a call with (it sizes a buffer by the first
    topic's largest grade; :meth:`Qrels.first_failure`): for that engine the topic
    ``lead``, judged and sorting first, goes ahead with one document, and its values are
    dropped; the other engines get the block as it is. Topics are independent: the values
    are those the whole run gives."""
    qids = ranked_run.qids
    led_engines = [name for name in plan.groups if name == PYTREC_EVAL]
    others = [name for name in plan.groups if name != PYTREC_EVAL]
    produced = {}
    if others:
        ranked = ranked_run.table() if plan.table_needed else ranked_run
        produced = _produced(ranked, qids, plan, others)
    if led_engines:
        from ..inputs.tables import is_text

        plain = arrow.decoded(table)
        row = {
            column.name: [lead if column.name == "qid" else "" if is_text(column.type) else 0]
            for column in plain.schema
        }
        led = pa.concat_tables([pa.table(row, schema=plain.schema), plain])
        order = ranking.order_run(led, _float32(plan))
        led_run = ranking.RankedRun(led, order, [lead, *qids], plan.settings.max_docs)
        ranked = led_run.table() if plan.table_needed else led_run
        for measure, outputs in _produced(ranked, [lead, *qids], plan, led_engines).items():
            produced[measure] = [(label, display, value[1:]) for label, display, value in outputs]
    return _measure(None, qids, plan, produced)


def _extremes(block: _Block, table, order, judgments, matched, plan: _Plan):
    """The block's values in the best and the worst order of its tied documents
    (``judgments`` and, when exact, their ``matched`` rows: see
    :func:`tiebounds.extreme_orders`). Only the topics whose order can change are scored
    again, as a part of the run (:func:`tiebounds.extreme_values`), for their values only,
    without the run's checks: those belong to the reported order, as trec_eval reads the
    run (an extreme order may bring within -M a second listing the reported one leaves
    beyond it). What an engine raises is raised."""
    float32 = _float32(plan)
    orders = tiebounds.extreme_orders(
        table, order, block.qids, judgments, float32, matched, only_tied=True
    )
    block.ties, block.tied_topics = orders.ties, orders.tied_topics

    def scored(alternative) -> tuple[list[str], dict]:
        part = score_block(alternative, plan, checks=False)
        if part.error is not None:
            raise part.error
        return part.qids, part.values

    block.extremes = tiebounds.extreme_values(orders, block.qids, block.values, scored)
