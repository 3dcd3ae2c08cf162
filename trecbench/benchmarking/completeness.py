"""How complete a mode's evaluation is: query coverage, judged pool depth, unjudged share
(:func:`completeness`), each threshold not met named with the R-task reference's recovery
action."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pyarrow as pa

from .. import arrow, ranking
from .. import arrow_compute as pc
from ..number_text import exact_number
from ..plurals import counted, exact_percent, percent_beside
from .settings import ACTIONS, Completeness


def completeness(
    ranked: pa.Table,
    qrels: pa.Table,
    qrels_topics: Sequence[str],
    settings: Completeness | Mapping[str, Any],
) -> dict:
    """How complete a mode's evaluation is: ``coverage`` (share of the qrels topics the run
    has results for), ``pool_depth`` (per evaluated topic the number of leading documents
    that are judged — a judgment with a grade >= 0; its median and minimum) and
    ``unjudged`` (share of unjudged documents in the top ``unjudged_at`` of the evaluated
    topics, the validator's X4). ``problems`` lists each threshold of ``settings`` that is
    not met, with the R-task reference's recovery action. ``settings`` are
    :class:`~trecbench.benchmarking.settings.Completeness` (or a mapping of its fields).

    ``ranked`` is the run in trec_eval order with ``rank`` (:func:`trecbench.rank_run`).
    """
    if isinstance(settings, Mapping):  # the API's string-keyed form, read here once
        settings = Completeness(**settings)
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
    top = position < settings.unjudged_at
    unjudged = float((~judged & top).sum() / top.sum()) if top.any() else 0.0
    evaluated, total = len(starts), len(qrels_topics)
    coverage = evaluated / total if total else 0.0
    median = float(np.median(depth)) if len(depth) else 0.0
    problems = _problems(settings, evaluated, total, coverage, median, depth, lengths, unjudged)
    return {
        "topics": evaluated,
        "qrels_topics": total,
        "coverage": coverage,
        "pool_depth": {"median": median, "min": int(depth.min()) if len(depth) else 0},
        "unjudged": unjudged,
        "unjudged_at": int(settings.unjudged_at),
        "complete": not problems,
        "problems": problems,
    }


def _problems(
    settings: Completeness,
    evaluated: int,
    total: int,
    coverage: float,
    median: float,
    depth: np.ndarray,
    lengths: np.ndarray,
    unjudged: float,
) -> list[dict]:
    """Each threshold of ``settings`` not met, with its recovery action: the ``coverage``
    (``evaluated`` of ``total`` qrels topics), the judged pool ``depth`` of the evaluated
    topics (``median``: its median; ``lengths``: their run's sizes) and the ``unjudged``
    share at the top."""
    problems = []
    if coverage < settings.min_coverage:
        problems.append(
            {
                "check": "coverage",
                "message": f"results for {evaluated} of {total} qrels topics "
                f"({percent_beside(coverage, settings.min_coverage)} < "
                f"{exact_percent(settings.min_coverage)})",
                "action": ACTIONS["invalid_run"],
            }
        )
    # a topic judged to its last document shows no shallow pool, only a short run
    ended = depth >= lengths
    to_the_end = np.maximum(depth, settings.min_pool_depth)
    pooled = np.median(np.where(ended, to_the_end, depth)) if len(depth) else 0.0
    if pooled < settings.min_pool_depth:
        problems.append(
            {
                "check": "pool_depth",
                "message": _shallow(median, settings.min_pool_depth, ended),
                "action": ACTIONS["shallow_pool"],
            }
        )
    if unjudged > settings.max_unjudged:
        problems.append(
            {
                "check": "unjudged",
                "message": f"{percent_beside(unjudged, settings.max_unjudged)} of the top "
                f"{settings.unjudged_at} documents are unjudged "
                f"(> {exact_percent(settings.max_unjudged)})",
                "action": ACTIONS["shallow_pool"],
            }
        )
    return problems


def _shallow(median: float, least: int, ended: np.ndarray) -> str:
    """The shallow pool's message: the median the table shows, and the topics judged to
    their last document, which the check counts as ``least`` deep (the median of those
    counts, 6 for depths 2 and 10, is no topic's depth: it is not written)."""
    shown = f"median judged depth {exact_number(median)} < {least} "
    shown += "(documents judged before the first unjudged one"
    if ended.any():
        many = int(ended.sum())
        verb = "counts" if many == 1 else "count"
        shown += f"; {many} of {counted(len(ended), 'topic')} judged to the end {verb} as "
        shown += f"{least} deep"
    return shown + ")"
