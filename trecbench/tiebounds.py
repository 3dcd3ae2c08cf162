"""Tie sensitivity: the lowest and highest value a measure takes over every order of a
run's tied documents.

Every number trecbench reports uses one order, trec_eval's (score descending, ties by docno
descending; :mod:`trecbench.ranking`). Documents of a topic with equal scores (equal at
float32 precision, as trec_eval 9.x compares them) are *tied*: the run does not say which
comes first, and any order of them is an equally faithful reading of it. The bounds here
say how much the reported numbers owe to trec_eval's docno rule. They never change the
reported numbers: they come from two alternative orders of the same ranking, evaluated
with the same engines and options, without enumerating orders.

**Why two orders suffice.** Give each retrieved document a *key*: its grade when it is
judged with a grade >= 0, and 0.5 when it is not in the qrels or has a negative grade
(trec_eval's unjudged), so that judged non-relevant < unjudged < relevant. Within every
tie group the *best* order sorts keys descending, the *worst* ascending (equal keys keep
the reported order). Call a measure swap-monotone when exchanging two adjacent documents
so that the higher key comes first never lowers it. Any order of a tie group becomes the
best one by adjacent exchanges that each move a higher key forward (bubble sort), so for
a swap-monotone measure the best order is a maximum over all orders and, symmetrically,
the worst one a minimum. Exchanges inside one tie group leave every other document where
it is, so groups do not interact; topics are independent, and trec_eval's summaries
(means, sums, geometric means) grow with every topic's value, so the summary bounds are
the summaries of the per-topic bounds.

Swap-monotone measures (relevant = grade >= the ``-l`` level):

* ``P``, ``recall``, ``success`` (HitRate), ``Recall_all``, ``relative_P``, ``Rprec``,
  ``Rprec_mult``, ``num_rel_ret``: functions of how many relevant documents lie above a
  fixed rank, which a relevant document moving up can only raise.
* ``recip_rank``, ``MRR@k``: the first relevant document can only move up.
* ``map``, ``map_cut``, ``gm_map``: moving a relevant document from rank i + 1 to i turns
  its term (c + 1) / (i + 1) into (c + 1) / i and leaves every other term.
* ``iprec_at_recall``, ``11pt_avg``: the same move raises one (recall, precision) point and
  leaves the others, so no interpolated precision can fall.
* ``ndcg`` (without a gain map), ``ndcg_cut``: gains are the grades (never above the key
  order) and discounts fall with the rank, so the larger gain first gives the larger sum;
  the ideal DCG does not depend on the run.
* ``bpref``, ``gm_bpref``: a relevant document passing a judged non-relevant one has one
  fewer above it; passing an unjudged one changes nothing.
* ``set_P``, ``set_recall``, ``set_F``, ``set_map``, ``set_relative_P``, ``num_ret``:
  without ``-M`` the retrieved set is the same for every order; with ``-M`` the best order
  fills the cut with relevant documents, then unjudged ones (which ``-J`` drops), then
  judged non-relevant ones, and each step raises rel_ret or lowers ret.
* ``num_nonrel_judged_ret`` moves the other way (the best order gives its lowest value).
* ``runid``, ``num_q``, ``num_rel`` do not depend on the order at all.

Not bounded, and reported so rather than guessed (:func:`unbounded_reason`):
``MaxOntSim@k`` (ontology similarity, not grades), ``ndcg`` with a gain map (gains need
not grow with the grade), ``ndcg_rel``, ``Rndcg``, ``G``, ``binG``, ``infAP``,
``utility`` (the signs of its coefficients decide its direction), any measure this list
does not name; with ``-M`` and ``-l 2`` or more, the set measures and
``num_nonrel_judged_ret`` (a grade below the level is judged non-relevant yet sorts above
the unjudged), and with ``-J`` and ``-M``, ``num_ret`` (it then counts judged documents
in the cut, which no grade order extremises) and ``iprec_at_recall``, ``11pt_avg`` (an
order that leaves nothing judged in the cut makes them nan). As a safety net, a topic
whose reported value fell outside the two extremes (or were nan in one and not the
other) would mark the measure as not bounded; the tests compare the bounds with every
order of small cases (tests/test_tiebounds.py).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa

from . import arrow, ranking, score_precision
from .measures import registry

UNJUDGED_KEY = 0.5  # between judged non-relevant (grade 0) and relevant (grade >= 1)

# keyword parameters the proofs cover: a relevance level, -J for one measure, and nDCG's
# exponential gain (2^grade - 1, still growing with the grade); not a gain map
_PROVEN_OPTIONS = frozenset({"rel", "judged_only", "dcg"})
_NOT_SHOWN = "not shown to be monotone in the order of tied documents"


def unbounded_reason(measure, settings) -> str | None:
    """None when the best and worst orders bound ``measure`` (see the module docstring)
    under the evaluation's ``settings`` (:class:`~trecbench.evaluation.EvalSettings`:
    ``max_docs``, ``judged_only``, ``relevance_level``) and its own keyword parameters
    (``rel``, ``judged_only``, ``dcg``; any other, such as a gain map, is not covered);
    otherwise why they need not."""
    own = dict(measure.options)  # the measure's keyword parameters that are not defaults
    unknown = sorted(set(own) - _PROVEN_OPTIONS)
    if unknown:
        return f"not shown to be monotone in the order with {', '.join(unknown)}"
    definition = measure.definition  # what the orders do to it: its registry entry's facts
    cut = settings.max_docs is not None
    conditions = {
        registry.TIES_BOUNDED: False,
        registry.TIES_FIXED: False,
        registry.TIES_BOUNDED_WITHOUT_PARAMS: bool(measure.params),
        registry.TIES_BOUNDED_UNLESS_CUT_JUDGED: cut
        and bool(settings.judged_only or own.get("judged_only")),
        registry.TIES_BOUNDED_UNLESS_CUT_LEVELS: cut
        and (own.get("rel") or settings.relevance_level) >= 2,
    }
    if definition.ties in conditions and not conditions[definition.ties]:
        return None
    return definition.ties_reason or _NOT_SHOWN


@dataclass
class TieBounds:
    """One run's bounds. Per topic (aligned with the run's evaluated topics; logs for
    geometric-mean measures, as :class:`~trecbench.evaluation.RunResult` keeps them):
    ``low[label]`` and ``high[label]``; their summaries (trec_eval's summary of the
    per-topic bounds): ``summary_low``, ``summary_high``. ``unbounded``: label -> why the
    measure has no bounds. ``tied_topics``: topics with a tie group that mixes keys (only
    those can change)."""

    low: dict[str, np.ndarray] = field(default_factory=dict)
    high: dict[str, np.ndarray] = field(default_factory=dict)
    summary_low: dict[str, float] = field(default_factory=dict)
    summary_high: dict[str, float] = field(default_factory=dict)
    unbounded: dict[str, str] = field(default_factory=dict)
    tied_topics: int = 0


def tie_groups(order: ranking.RunOrder, scores: np.ndarray) -> np.ndarray:
    """Per row in ranked order, whether it ties with the row before it (same topic, score
    equal as trec_eval compares them); ``scores`` from
    :func:`trecbench.score_precision.comparable_scores`, in input order."""
    ranked = scores[order.order]
    tied = np.zeros(len(ranked), bool)
    tied[1:] = (order.topic[1:] == order.topic[:-1]) & (ranked[1:] == ranked[:-1])
    return tied


@dataclass
class Orders:
    """The alternative orders of one run: ``best`` and ``worst`` (None when no tie group
    mixes keys: every swap-monotone measure is then fixed), whether the run has ``ties``
    at all, and how many topics have a tie group that mixes keys (``tied_topics``).
    ``topics``: when set, ``best`` and ``worst`` hold only these topics (those with a tie
    group that mixes keys, sorted); every other topic is in the reported order in both."""

    best: pa.Table | None
    worst: pa.Table | None
    ties: bool
    tied_topics: int
    topics: list[str] | None = None


def extreme_orders(
    table: pa.Table,
    order: ranking.RunOrder,
    qids: list[str],
    judgments: tuple[np.ndarray, pa.ChunkedArray, np.ndarray],
    float32: bool = True,
    matched: tuple[np.ndarray, np.ndarray] | None = None,
    only_tied: bool = False,
) -> Orders:
    """The run with each tie group in the best and in the worst key order (see the module
    docstring).

    ``order`` is trec_eval's order of ``table``; ``qids`` the evaluated topics;
    ``judgments`` their ``(topic index into qids, docno, grade)``; ``matched``: their
    ``(rows, which)`` among every row of those topics (uncut by -M) when the caller has
    them (:meth:`trecbench.ranking.RankedRun.judged`), else looked up here. The
    alternatives carry strictly decreasing scores (minus the rank), so ranking them keeps
    their order. ``only_tied``: the alternatives hold only the topics whose order can
    change (``Orders.topics``), not the whole run.
    """
    tied = tie_groups(order, score_precision.comparable_scores(table.column("score"), float32))
    if not tied.any():
        return Orders(None, None, False, 0)
    topic, docnos, grades = judgments
    if matched is None:
        matched = ranking.RankedRun(table, order, qids).match(topic, docnos)
    rows, which = matched
    key = np.full(table.num_rows, UNJUDGED_KEY)
    key[rows] = np.where(grades[which] >= 0, grades[which], UNJUDGED_KEY)
    key = key[order.order]
    mixed = tied[1:] & (key[1:] != key[:-1])
    if not mixed.any():
        return Orders(None, None, True, 0)
    changed = np.unique(order.topic[1:][mixed])  # indices into order.qids
    # the ranked positions kept: whole topics, so every tie group is whole in them
    kept = np.flatnonzero(np.isin(order.topic, changed)) if only_tied else np.arange(len(key))
    group = np.cumsum(~tied)[kept]
    scores = arrow.array(-order.positions()[kept].astype(np.float64))
    index = table.column_names.index("score")
    alternatives = []
    for sign in (-1, 1):  # best: keys descending; worst: ascending
        sorted_kept = kept[np.lexsort((kept, sign * key[kept], group))]
        alternative = table.take(arrow.array(order.order[sorted_kept]))
        alternatives.append(alternative.set_column(index, "score", scores))
    topics = order.qids.take(arrow.array(changed)).to_pylist() if only_tied else None
    return Orders(alternatives[0], alternatives[1], True, len(changed), topics)


def extreme_values(
    orders: Orders, qids: list[str], values: dict[str, np.ndarray], score
) -> tuple[dict, dict] | None:
    """The per-topic values (label -> array aligned with ``qids``) of the best and of the
    worst order, from :func:`extreme_orders` with ``only_tied``: ``values`` (the reported
    order's) where no order of the ties changes a topic, and where one does,
    ``score(alternative)``'s (the ``(topics, values)`` of the alternatives' topics,
    scored as a part of the run). None without alternatives.

    Topics are scored independently, so a topic's value is the same in a part as in the
    whole run. A changed topic the part leaves unmeasured is NaN (none does: each was
    measured in the reported order), which :func:`run_bounds` reports as not bounded
    rather than bounding it by the reported value."""
    if orders.best is None:
        return None
    where = {qid: i for i, qid in enumerate(qids)}
    changed = np.array([where[qid] for qid in orders.topics or [] if qid in where], np.int64)
    extremes = []
    for alternative in (orders.best, orders.worst):
        part_qids, part_values = score(alternative)
        rows = np.array([where[qid] for qid in part_qids], np.int64)
        merged = {}
        for label, reported in values.items():
            merged[label] = reported.astype(np.float64)  # a copy
            merged[label][changed] = np.nan
            merged[label][rows] = part_values[label]
        extremes.append(merged)
    return extremes[0], extremes[1]


def run_bounds(result, orders: Orders, evaluated: list | None, columns, settings, summarise):
    """The :class:`TieBounds` of one run from its reported ``result``, its ``orders`` and
    the results of evaluating them (``evaluated``: best and worst; None without them).

    ``columns`` are the evaluation's :class:`~trecbench.evaluation.Column` objects,
    ``summarise(column, per_topic_values)`` trec_eval's summary of a measure.
    """
    bounds = TieBounds(tied_topics=orders.tied_topics)
    for column in columns:
        label = column.label
        value = result.summary.get(label)
        if value is None or isinstance(value, str):
            continue  # runid, relstring: not numbers
        reason = unbounded_reason(column.measure, settings) if orders.ties else None
        if reason is None and evaluated and label in result.values:
            values = result.values[label]
            best, worst = (alternative.values[label] for alternative in evaluated)
            low, high = np.minimum(best, worst), np.maximum(best, worst)
            slack = 1e-12 * np.maximum(1.0, np.abs(values))
            undefined = np.isnan(values)
            outside = (values < low - slack) | (values > high + slack)
            if not (np.any(outside) or np.any(np.isnan(low) != undefined)):
                bounds.low[label], bounds.high[label] = low, high
                bounds.summary_low[label] = summarise(column, low)
                bounds.summary_high[label] = summarise(column, high)
                continue
            reason = "the reported order fell outside the two extreme orders (or is nan)"
        if reason is not None:
            bounds.unbounded[label] = reason
            continue
        # no order of the ties changes it
        if label in result.values:
            bounds.low[label] = bounds.high[label] = result.values[label]
        bounds.summary_low[label] = bounds.summary_high[label] = value
    return bounds


def position(value: float, low: float, high: float) -> str:
    """Where the reported value sits: ``fixed`` (no order changes it), ``lowest``,
    ``highest`` or ``inside`` the bounds (values equal to 12 significant digits);
    ``undefined`` when the value or a bound is (NaN: no order gives a number)."""

    def same(a: float, b: float) -> bool:
        return abs(a - b) <= 1e-12 * max(1.0, abs(a), abs(b))

    if any(map(math.isnan, (value, low, high))):
        return "undefined"
    if same(low, high):
        return "fixed"
    if same(value, low):
        return "lowest"
    return "highest" if same(value, high) else "inside"
