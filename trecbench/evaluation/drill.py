"""What a report's drill-down needs of each run, kept from the one pass that scores it
(inputs are read once): each topic's first documents in the ranking the scoring used (its
trec_eval version's: scores as float32 under 9.0.8, as doubles under 10.0) with their
scores as the run writes them, their float32 ties (9.0.8) and their grades, and the run's
interpolated precision at the 11 recall levels, as that version computes it.

:attr:`EvalSettings.drill_depth <trecbench.evaluation.settings.EvalSettings>` asks for it;
:mod:`.scoring` keeps each block's first documents (:func:`top_rows`) and scores the
curve's measure on the block (:func:`kept`'s plan), :mod:`.assembly` joins the blocks into a
run's :class:`DrillDown`. Only ``depth`` documents per topic are kept, never the ranking.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pyarrow as pa

from .. import arrow, ranking, score_precision
from .. import arrow_compute as pc
from ..inputs.trec_tables import SCORE_TEXT
from .plan import _measures, _Plan
from .settings import EvalSettings

RECALL_LEVELS = [f"iprec_at_recall_{level / 10:.2f}" for level in range(11)]
_KEYS = ["qid", "docno"]
# the columns of the documents kept, before their grade (see DrillDown)
SHOWN = ["qid", "docno", "score", SCORE_TEXT, "tie"]


@dataclass(frozen=True)
class DrillDown:
    """One run's part of a report's drill-down. ``documents``: qid, docno, score,
    score_text (the score as the run file writes it; null where the run holds numbers,
    not text: a table, Parquet, JSONL), tie (:func:`float32_ties`), rel (null: unjudged;
    a document judged twice: its last grade), each topic's first ``depth`` documents of
    every topic the run has, topics byte-wise, documents ranked;
    ``precision_recall``: per topic of the run, trec_eval's iprec_at_recall at recall
    0.0, 0.1, ..., 1.0 (with the call's -l, -M and -J), averaged over the topics a report
    shows (:func:`mean_curves`)."""

    depth: int
    documents: pa.Table
    precision_recall: dict[str, list[float]]

    def cut(self, depth: int) -> DrillDown:
        """This drill-down with each topic's first ``depth`` documents (``depth`` at most
        the depth kept)."""
        if depth >= self.depth:
            return self
        rank = ranking.ranks_within(self.documents.column("qid"))
        documents = self.documents.filter(arrow.array(rank <= depth))
        return replace(self, depth=depth, documents=documents)


@dataclass(frozen=True)
class DrillPlan:
    """What scoring keeps for the drill-down: ``depth`` documents per topic, and the
    curve's measure scored by ``curves`` (a :class:`~trecbench.evaluation.plan._Plan`)."""

    depth: int
    curves: _Plan


def wanted(settings: EvalSettings) -> bool:
    """Whether an evaluation with ``settings`` keeps a drill-down (:func:`kept`): one is
    asked for (``drill_depth``) and the judgments are qrels (not -R: preferences grade no
    document). Its runs are then read with their scores' text."""
    return settings.drill_depth is not None and settings.rel_format == "qrels"


def kept(plan: _Plan) -> DrillPlan | None:
    """The :class:`DrillPlan` of ``plan`` (asked for by its ``drill_depth``): the curve
    scored with its judgments, -l, -M, -J, -c, its trec_eval version and its precision of
    scores, as ``evaluate(..., ["iprec_at_recall"])`` with those would (10.0 rounds the
    recall cutoffs otherwise, and ranks by the doubles). None where none is
    :func:`wanted`."""
    settings = plan.settings
    if not wanted(settings):
        return None
    own = EvalSettings(**curve_options(settings))
    _, ordered, engines = _measures(["iprec_at_recall"], own)
    curves = _Plan(ordered, engines, plan.truth, own, None)
    return DrillPlan(settings.drill_depth, curves)


# what of an evaluation's settings the drill-down's curve and ranking follow
CURVE_SETTINGS = ("relevance_level", "max_docs", "judged_only", "complete", "compat", "float32")


def curve_options(settings: EvalSettings) -> dict:
    """The settings of ``settings`` the drill-down's curve and ranking follow, by name
    (:data:`CURVE_SETTINGS`): -l, -M, -J, -c, the trec_eval version and whether scores
    compare as float32."""
    return {name: getattr(settings, name) for name in CURVE_SETTINGS}


def top_rows(table: pa.Table, order, float32: bool, depth: int) -> pa.Table:
    """:data:`SHOWN` of the first ``depth`` documents of each topic of ``table`` (whole
    topics) in ``order``, the scoring's ranking (scores compared as float32 when
    ``float32``: only then are float32 ties marked)."""
    # no more than the rows: any whole depth is taken here (one past LONG_MAX is the
    # report's to refuse), and the ranks are compared with an int64
    depth = min(depth, table.num_rows)
    # one document more than shown, whose score the last shown may tie with
    ranked = ranking.RankedRun(table, order, order.qids.to_pylist(), depth + 1)
    return shown_rows(ranked.table(), depth, float32)


def shown_rows(ranked: pa.Table, depth: int, float32: bool = True) -> pa.Table:
    """:data:`SHOWN` of the documents ranked ``depth`` or better in ``ranked`` (a run in
    trec_eval's order with its ``rank``, holding the document after those where there is
    one: the tie of the last shown is with it); ``score_text`` null where ``ranked`` has
    none; ``tie`` false throughout unless the ranking compared scores as ``float32``
    (trec_eval 10.0 orders by the doubles: no two differing scores tie there)."""
    tie = float32_ties(ranked) if float32 else np.zeros(ranked.num_rows, bool)
    if SCORE_TEXT not in ranked.column_names:
        ranked = ranked.append_column(SCORE_TEXT, pa.nulls(ranked.num_rows, pa.string()))
    ranked = ranked.append_column("tie", arrow.array(tie))
    return ranked.filter(pc.less_equal(ranked.column("rank"), depth)).select(SHOWN)


def float32_ties(ranked: pa.Table) -> np.ndarray:
    """Per row of ``ranked`` (a run in trec_eval's order with its ``rank``), whether its
    score and the next document's of its topic differ and are equal as float32: trec_eval
    9.0.8 compares scores as float32, so those two are ordered by docno (descending), not
    by their scores."""
    score = score_precision.comparable_scores(ranked.column("score"), float32=False)
    narrow = score_precision.comparable_scores(ranked.column("score"), float32=True)
    rank = arrow.to_numpy(ranked.column("rank"))
    tie = np.zeros(ranked.num_rows, bool)
    tie[:-1] = (rank[1:] != 1) & (narrow[1:] == narrow[:-1]) & (score[1:] != score[:-1])
    return tie


def joined(parts: list[pa.Table]) -> pa.Table:
    """The blocks' :func:`top_rows` as one table of a run (topics byte-wise, as the run
    ranked whole has them; a stable sort keeps each topic's ranking), not yet graded
    (:func:`grade`)."""
    top = parts[0] if len(parts) == 1 else pa.concat_tables(parts, promote_options="permissive")
    if len(parts) > 1:
        top = top.take(pc.sort_indices(top, [("qid", "ascending")]))
    return top


def grade(runs, qrels: pa.Table, progress=None) -> None:
    """Give each run's kept documents (``runs``: RunResults) their grade in ``qrels``:
    in the process that called the evaluation, once its runs are in (a worker process
    would pay Arrow's join set-up again for it); ``progress(label, done, total)`` told
    each run graded (``grading documents``: half a second a run of 15,000 topics)."""
    grades = None
    kept = [run for run in runs if run.drill_down is not None]
    if progress is not None and kept:
        progress("grading documents", 0, len(kept))
    for done, run in enumerate(kept, 1):
        grades = last_grades(qrels) if grades is None else grades
        documents = graded(run.drill_down.documents, grades)
        run.drill_down = replace(run.drill_down, documents=documents)
        if progress is not None:
            progress("grading documents", done, len(kept))


def last_grades(qrels: pa.Table) -> pa.Table:
    """``qid, docno, rel``: one row per judged document, its last grade in the qrels."""
    keyed = pa.table(
        {
            **{key: pc.cast(qrels.column(key), pa.large_string()) for key in _KEYS},
            "row": arrow.array(np.arange(qrels.num_rows, dtype=np.int64)),
        }
    )
    last = keyed.group_by(_KEYS, use_threads=False).aggregate([("row", "max")])
    rows = last.column("row_max").combine_chunks()
    return last.select(_KEYS).append_column("rel", qrels.column("rel").take(rows))


def graded(top: pa.Table, grades: pa.Table) -> pa.Table:
    """``top`` (:data:`SHOWN`) with each document's ``rel`` (null: unjudged), in
    ``top``'s order."""
    keyed = pa.table(
        {
            **{key: pc.cast(top.column(key), pa.large_string()) for key in _KEYS},
            **{name: top.column(name) for name in SHOWN if name not in _KEYS},
            "position": arrow.array(np.arange(top.num_rows, dtype=np.int64)),
        }
    )
    joined_rows = keyed.join(grades, _KEYS, join_type="left outer", use_threads=False)
    return joined_rows.sort_by("position").drop_columns(["position"])


def topic_curves(result) -> dict[str, list[float]]:
    """``{qid: [iprec_at_recall at 0.0, ..., 1.0]}`` of a RunResult scored for them."""
    columns = [result.values[level].tolist() for level in RECALL_LEVELS]
    return dict(zip(result.qids, map(list, zip(*columns, strict=True)), strict=True))


def mean_curves(curves: dict[str, dict[str, list[float]]], topics) -> dict[str, list[float]]:
    """Per run, the mean over ``topics`` of its curve (``curves``: run -> qid -> the 11
    interpolated precisions), a topic it lacks counting 0: trec_eval's iprec_at_recall
    means under ``-c`` over every topic of a comparison, summed in trec_eval's order of
    topics (byte-wise). The topics a comparison pairs its runs on (missing ``drop``) are
    every run's; a run's other topics are left out, as from its means."""
    ordered = sorted(topics)
    means = {}
    for run, per_topic in curves.items():
        sums = [0.0] * len(RECALL_LEVELS)
        for qid in ordered:
            for index, value in enumerate(per_topic.get(qid, ())):
                sums[index] += value
        means[run] = [total / len(ordered) if ordered else float("nan") for total in sums]
    return means
