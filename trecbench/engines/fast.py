"""Vectorised engine for the measures that matter at scale: the run joined with the qrels
(from an Arrow table or a :class:`trecbench.ranking.RankedRun`) into the sparse view whose
measures :mod:`trecbench.sparse_measures` computes, bit for bit those of trec_eval 9.0.8.
Arrow is imported by the methods that need it (the numpy core imports none)."""

from __future__ import annotations

import numpy as np

from ..errors import UnevaluableTopicError
from ..kernels import segment_cumsum
from ..measures import registry
from ..sparse_measures import (
    CUTOFF_FAMILIES,
    ERR_MAX_GRADE,
    REQUEST_FAMILIES,
    GradeAboveErrError,
    SparseRanking,
    compute,
    plan_requests,
    planned_values,
    supports,
    supports_request,
)

NAME = "fast"
# read here by the tests and the engine registry (the measures live in sparse_measures)
__all__ = [
    "CUTOFF_FAMILIES",
    "Evaluator",
    "SparseRanking",
    "compute",
    "segment_cumsum",
    "supports",
    "supports_request",
]


class Evaluator:
    """The fast engine over one qrels table, reused for every run of a call.

    ``truth`` provides the qrels ``table`` (qid, docno, rel) and the call's
    ``relevance_level``; a measure's ``rel`` parameter overrides it for that measure.
    """

    before_judged_only = False
    wants_table = False  # a RankedRun is enough (no row is moved)

    def __init__(self, truth, measures, settings: dict | None = None):
        from .. import arrow_compute as pc

        self.truth = truth  # its judgments of the evaluated topics (Qrels.judgments)
        judged = truth.table
        largest = pc.max(judged.column("rel")).as_py()
        self.plan, self.levels = plan_requests(measures, truth.relevance_level, largest)
        self._docnos = pc.unique(judged.column("docno"))

    def evaluate(self, ranked, qids: list[str]) -> dict:
        """Per measure, ``(label, display, values)`` for each of its values, ``values``
        aligned with ``qids`` (sorted), from a ranked table in trec_eval order (``qid``,
        ``docno``, 1-based ``rank``; one block per topic, as
        :func:`trecbench.ranking.rank_table` makes it) or a RankedRun."""
        try:
            return self._evaluate(ranked, qids)
        except GradeAboveErrError:
            raise self._grade_above_err(qids) from None

    def _evaluate(self, ranked, qids: list[str]) -> dict:
        from .. import arrow, ranking
        from .. import arrow_compute as pc

        if isinstance(ranked, ranking.RankedRun):
            return self._evaluate_ranked_run(ranked, qids)
        codes, present = ranking.topic_codes(ranked.column("qid"))
        to_topic = pc.index_in(present, value_set=arrow.array(qids, present.type))
        topic = arrow.to_numpy(pc.fill_null(to_topic, arrow.scalar(-1, to_topic.type))).astype(
            np.int64
        )[codes]
        pos = arrow.to_numpy(ranked.column("rank")) - 1
        docnos = ranked.column("docno")
        judged = pc.is_in(docnos, value_set=self._docnos.cast(docnos.type))
        rows = np.flatnonzero(arrow.to_numpy(judged) & (topic >= 0))
        hit_docnos = ranking.take_rows(docnos, rows)
        return self._compute(len(qids), topic, pos, rows, hit_docnos, self.truth.judgments(qids))

    def _grade_above_err(self, qids: list[str]) -> UnevaluableTopicError:
        """The error of ERR@k or nERR@k on judgments graded above :data:`ERR_MAX_GRADE`,
        at the qrels line of the first such judgment of the first topic of ``qids`` (in
        trec_eval's order, as a run read in blocks finds it too) that has one. Exit 4: a
        measure the judgments cannot give, as trec_eval's measures that -R's format cannot
        give."""
        from .. import arrow
        from .. import arrow_compute as pc

        table = self.truth.table
        qid = table.column("qid")
        found = pc.index_in(qid, value_set=arrow.array(qids, qid.type))
        topic = arrow.to_numpy(pc.fill_null(found, arrow.scalar(-1, found.type)))
        grade, line = (arrow.to_numpy(table.column(name)) for name in ("rel", "line"))
        rows = np.flatnonzero((topic >= 0) & (grade > ERR_MAX_GRADE))
        row = rows[np.lexsort((line[rows], topic[rows]))[0]]
        names = ", ".join(
            measure.requested or measure.canonical
            for measure, _, requests in self.plan
            if any(kind in ("ERR", "nERR") for kind, _ in requests)
        )
        qid, docno = (table.column(name)[int(row)].as_py() for name in ("qid", "docno"))
        message = (
            f"{names}: grade {grade[row]} of document {docno} for topic {qid} is above "
            f"{ERR_MAX_GRADE}, the largest grade gdeval's ERR is defined for (gdeval refuses "
            "such qrels too)"
        )
        return UnevaluableTopicError(self.truth.path, int(line[row]), message)

    def _evaluate_ranked_run(self, ranked, qids):
        """The same from a :class:`trecbench.ranking.RankedRun`: no row is moved; each
        judgment is looked up in the run's (topic, docno) hash index and the few matches
        are verified as strings (the lookup the run's unjudged count made, reused)."""
        topic, pos = ranked.row_arrays()
        judged, (rows, which) = ranked.judged(self.truth)
        num_ret = np.bincount(ranked.topic, minlength=len(qids))
        return self._finish(topic[rows], pos[rows], judged[2][which], judged, num_ret)

    def _compute(self, n_topics, topic, pos, rows, hit_docnos, judged):
        """The values from the ranked rows: ``topic`` and ``pos`` per row, ``rows`` those
        whose docno the qrels hold, ``judged``: ``(topic, docno, grade)`` of the evaluated
        topics' judgments (:meth:`trecbench.evaluation.Qrels.judgments`)."""
        import pyarrow as pa

        from .. import arrow
        from .. import arrow_compute as pc

        judged_topic, judged_docno, judged_rel = judged
        # both sides as large_string: files tokenize to string or large_string
        candidates = pa.table(
            {
                "topic": arrow.array(topic[rows], pa.int32()),
                "docno": pc.cast(hit_docnos, pa.large_string()),
                "pos": arrow.array(pos[rows]),
            }
        )
        labels = pa.table(
            {
                "topic": arrow.array(judged_topic, pa.int32()),  # candidates' key type
                "docno": pc.cast(judged_docno, pa.large_string()),
                "rel": arrow.array(judged_rel),
            }
        )
        hits = candidates.join(labels, ["topic", "docno"], join_type="inner")
        num_ret = np.bincount(topic[topic >= 0], minlength=n_topics)
        return self._finish(
            arrow.to_numpy(hits.column("topic")),
            arrow.to_numpy(hits.column("pos")),
            arrow.to_numpy(hits.column("rel")),
            judged,
            num_ret,
        )

    def _finish(self, hit_topic, hit_pos, hit_rel, judged, num_ret):
        hit_topic, hit_pos = hit_topic.astype(np.int64), hit_pos.astype(np.int64)
        hit_rel = hit_rel.astype(np.int64)
        order = np.lexsort((hit_pos, hit_topic))
        sparse = SparseRanking(
            num_ret=num_ret.astype(np.int64),
            hit_topic=hit_topic[order],
            hit_pos=hit_pos[order],
            hit_rel=hit_rel[order],
            judged_topic=judged[0],
            judged_rel=judged[2],
        )
        return planned_values(sparse, self.plan, self.levels)


registry.register_engine(
    NAME,
    __name__,
    [family for family in REQUEST_FAMILIES if registry.find(family)] + ["RBP", "Q"],
    supports=supports,
    description="vectorised (numpy): trec_eval's numbers for its families, bit for bit, "
    "and the measures beyond trec_eval equal to their providers' (RBP: its formula's)",
)
