"""What ``--unjudged-bounds`` needs of each run, kept from the one pass that scores it
(inputs are read once): the run's values had its unjudged documents been judged relevant
at the qrels' top grade (:mod:`trecbench.conclusions.unjudged` says what the bounds mean).

:attr:`EvalSettings.unjudged_bounds <trecbench.evaluation.settings.EvalSettings>` asks
for it. For each depth the block's columns look at (:func:`column_depth`: a cutoff ``k``
looks at the top ``k``, any other column at every document retrieved, to ``-M``),
:mod:`.scoring` scores each block of whole topics again against the qrels with the block's
unjudged documents within that depth added (:func:`completed`), and counts per topic the
documents within it and the unjudged among them (:func:`counted`); :mod:`.assembly`
joins the blocks into the run's :class:`HighEnd`. Nothing of the ranking is kept.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from .. import arrow, ranking
from .. import arrow_compute as pc
from ..engines import META
from ..measures import RUNID, STRING
from ..measures.registry import (
    INT_CUTOFF,
    LONG_CUTOFFS,
    OWN_JUDGMENTS,
    OWN_JUDGMENTS_WITHOUT_PARAMS,
)
from .plan import _Plan

_CUTOFF = re.compile(r"_(\d+)$")

# why two runs' ranges need not bound their difference (compare --unjudged-bounds' could
# flip; the proof of the rest: trecbench.conclusions.unjudged)
_BEYOND_OWN = (
    "the ranges do not bound a difference: one judgment can move both runs' values (the "
    "measure is not shown to read only its own documents' judgments; nDCG's ideal DCG and "
    "the number of relevant documents read others)"
)
_JUDGED_ONLY = (
    "the ranges do not bound a difference: with judged_only (-J) a document judged "
    "non-relevant enters the ranking and can push a relevant one past the cutoff"
)
# why a run's value is no low end under -J (its low is n/a: score --unjudged-bounds)
LOW_JUDGED_ONLY = (
    "with judged_only (-J) the value leaves the unjudged documents out, and judged "
    "non-relevant they would enter the ranking and could push a relevant one past a "
    "cutoff: it is no lower bound (without -J it is one)"
)
_GAIN_MAP = (
    "the ranges do not bound a difference: with a gain map a grade may gain less than a "
    "lower one, so a judgment can lower the value"
)
# keyword parameters the proof covers: a relevance level, P's denominator
_PROVEN_OPTIONS = frozenset({"rel", "denominator"})


def column_depth(column) -> int | None:
    """The documents a :class:`~.results.Column` looks at: its cutoff (``ndcg_cut_10``,
    ``R(rel=2)@5``), or None for every retrieved document. A measure of one cutoff says
    it; one of several (``P.5,10``) gives a column per cutoff, labelled with it."""
    measure = column.measure
    definition = measure.definition
    if definition.cutoff != INT_CUTOFF and definition.trec_params != LONG_CUTOFFS:
        return None
    if measure.params is not None and measure.params.isdigit():
        return int(measure.params)
    found = _CUTOFF.search(column.label)
    return int(found[1]) if found else None


def difference_unbounded(measure, judged_only: bool) -> str | None:
    """None when two runs' ranges of ``measure`` (each run's unjudged documents
    non-relevant, and at the qrels' top grade) bound every value of their difference, so
    ranges apart mean a sign no judgment can flip (proved in
    :mod:`trecbench.conclusions.unjudged` for the families its registry entry says read
    only their own judgments); otherwise why not. ``judged_only``: the evaluation's
    ``-J``."""
    own = dict(measure.options)  # the measure's keyword parameters that are not defaults
    if judged_only or own.pop("judged_only", False):
        return _JUDGED_ONLY
    judgments = measure.definition.judgments
    if judgments == OWN_JUDGMENTS_WITHOUT_PARAMS and measure.params is not None:
        return _GAIN_MAP
    if judgments not in (OWN_JUDGMENTS, OWN_JUDGMENTS_WITHOUT_PARAMS):
        return _BEYOND_OWN
    unknown = sorted(set(own) - _PROVEN_OPTIONS)
    if unknown:
        return f"the ranges do not bound a difference: not shown with {', '.join(unknown)}"
    return None


def high_undefined(
    measure, grade: int, relevance_level: int, low: float, high: float
) -> str | None:
    """Why ``high`` is not the value with every unjudged document relevant, as its table
    says: the qrels' top ``grade`` (the unjudged documents' grade) is below the level at
    which ``measure`` counts a document relevant (its ``rel``, else ``-l``), so no
    document is, and judging them at it changed nothing (``high`` equals ``low``) or only
    the count of judged non-relevant ones (``num_nonrel_judged_ret``); None when it is
    not. A measure that gives them credit all the same is not one that reads the level
    (nDCG's gains ignore ``-l``): its ``high`` is their value at that grade."""
    level = measure.option("rel") or relevance_level
    if grade >= level or (high != low and not measure.definition.counts_nonrelevant):
        return None
    return (
        f"the qrels' top grade {grade} is below the relevance level {level}: no unjudged "
        "document can be judged relevant"
    )


# why high is low for a run whose qrels a convert sidecar describes as complete
# (:func:`trecbench.strata.vouches`): there is no unjudged relevant document to find
COMPLETE_QRELS = (
    "the sidecar given describes the qrels as complete for the run: a document they do "
    "not judge is not relevant"
)


def bounded(columns) -> list:
    """The columns that have bounds: every summary value but the run's id and strings."""
    return [column for column in columns if column.summary not in (RUNID, STRING)]


@dataclass(frozen=True)
class BoundsPlan:
    """What scoring keeps for the bounds: the qrels' ``grade`` (their top grade, the
    unjudged documents' grade) and ``positives``, per qrels topic its judgments above 0
    (trec_eval ``-c``'s num_rel)."""

    grade: int
    positives: dict[str, int]


@dataclass(frozen=True)
class HighEnd:
    """One run's values with its unjudged documents judged relevant, kept as it was
    scored. ``qids``: its evaluated topics (:attr:`RunResult.qids`); per ``depth`` a
    column looks at: ``values`` (label -> per-topic values, as :attr:`RunResult.values`)
    against the qrels with the run's unjudged documents within that depth added at the
    top grade (only columns computed by an engine: ``num_q`` is the call's), and per
    topic the documents within it (``looked``) and the unjudged among them
    (``unjudged``); ``positives`` and ``grade`` as :class:`BoundsPlan`'s."""

    qids: list[str]
    values: dict[int | None, dict[str, np.ndarray]]
    looked: dict[int | None, np.ndarray]
    unjudged: dict[int | None, np.ndarray]
    positives: dict[str, int]
    grade: int


def kept(plan: _Plan) -> BoundsPlan | None:
    """The :class:`BoundsPlan` of ``plan`` (asked for by its ``unjudged_bounds``; the
    settings refuse it without graded qrels), else None."""
    if not plan.settings.unjudged_bounds:
        return None
    table = plan.truth.table
    qids = table.column("qid").filter(pc.greater(table.column("rel"), arrow.scalar(0)))
    counts = pc.value_counts(qids)
    positives = dict.fromkeys(plan.truth.qids, 0)
    found = counts.field("values").to_pylist(), counts.field("counts").to_pylist()
    positives.update(zip(*found, strict=True))
    return BoundsPlan(plan.truth.top_grade, positives)


def depths(columns) -> tuple[list[int | None], list[int | None]]:
    """``(counted, scored)``: the depths the bounded ``columns`` look at, and those of the
    columns an engine computes (a META column's value is the call's, not the ranking's)."""
    counted = list(dict.fromkeys(column_depth(c) for c in bounded(columns)))
    scored = {column_depth(c) for c in bounded(columns) if c.engine != META}
    return counted, [depth for depth in counted if depth in scored]


def counted(ranked_run: ranking.RankedRun, truth, depth: int | None) -> tuple:
    """``(looked, unjudged, rows)``: per topic of ``ranked_run`` (cut at ``-M``) its
    documents within ``depth`` and how many of them ``truth`` (the call's
    :class:`~.judgments.Qrels`) does not judge, or judges at a negative grade (trec_eval's
    "in the pool, unjudged"); ``rows``: the input rows of those."""
    judged = ranked_run.judged_rows(truth)
    topic, position = ranked_run.row_arrays()
    within = topic >= 0 if depth is None else (topic >= 0) & (position < depth)
    added = np.flatnonzero(within & ~judged)
    n = len(ranked_run.qids)
    looked = np.bincount(topic[within], minlength=n)
    return looked, np.bincount(topic[added], minlength=n), added


def completed(plan: _Plan, ranked_run: ranking.RankedRun, added: np.ndarray) -> _Plan:
    """``plan`` judging by its qrels with the ``added`` input rows of ``ranked_run`` (its
    unjudged documents within a depth: :func:`counted`) judged at the top grade."""
    truth = plan.truth
    table = truth.table
    rows = arrow.decoded(ranked_run.run_table.take(arrow.array(added)))
    n = rows.num_rows
    extra = {
        "qid": rows.column("qid"),
        "docno": rows.column("docno"),
        "rel": pa.array(np.full(n, plan.bounds.grade, np.int64)),
        # after the qrels' lines: a topic's first line stays the qrels'
        "line": pa.array(np.arange(n, dtype=np.int64) + table.num_rows + 1),
    }
    columns = []
    for field in table.schema:
        column = extra.get(field.name)
        if column is None:  # iter: no group
            text = pa.types.is_string(field.type) or pa.types.is_large_string(field.type)
            column = pa.repeat(pa.scalar("0", field.type), n) if text else pa.nulls(n)
        columns.append(pc.cast(column, field.type))
    added_rows = pa.Table.from_arrays(columns, schema=table.schema)
    return plain(plan, truth.with_rows(added_rows, plan.bounds.grade))


def plain(plan: _Plan, truth) -> _Plan:
    """``plan`` with ``truth``, keeping nothing for a report or bounds: how a run's
    blocks are scored again, or assembled again, for its high end."""
    return _Plan(
        plan.measures, plan.engines, truth, plan.settings, plan.zscores, plan.aliases,
        plan.asked_at,
    )  # fmt: skip
