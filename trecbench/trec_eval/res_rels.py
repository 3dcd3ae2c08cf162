"""trec_eval's ``form_res_rels`` for every evaluated topic at once.

For each topic: the relevance of each retrieved document in rank order (its grade, or
``NONPOOL`` when the qrels do not list it, ``UNJUDGED`` when they list it with a negative
grade), and the counts of the topic's grades (``rel_levels``, from every judgment of the
topic, retrieved or not). ``-J`` keeps only judged documents, in order.

One C detail is kept on purpose: trec_eval caches these arrays in static buffers, and a
topic whose judgments are all ``-1`` allocates nothing — it sees the grade counts (and
``num_rel_levels``) of the topic evaluated before it. Measures that read them (nDCG's gain
table, ``rbp``) therefore depend on the order topics are evaluated in; :class:`ResRels`
carries those stale values for such topics, exactly as trec_eval reads them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from .. import arrow
from .. import arrow_compute as pc
from ..kernels import precisions_at_relevant, segment_cumsum

NONPOOL = -1  # RELVALUE_NONPOOL: retrieved, not in the qrels
UNJUDGED = -2  # RELVALUE_UNJUDGED: in the qrels with a negative grade


@dataclass
class ResRels:
    """``form_res_rels`` of every topic, in evaluation order.

    ``rel[starts[t]:starts[t + 1]]`` is topic ``t``'s ranked relevance list;
    ``rel_levels[t][g]`` counts its judgments of grade ``g``; ``num_rel_levels[t]`` is one
    more than its largest grade counted (trec_eval's loop bound).
    """

    qids: list[str]
    starts: np.ndarray
    rel: np.ndarray
    rel_levels: list[np.ndarray]
    num_rel_levels: np.ndarray
    num_rel: np.ndarray
    relevance_level: int

    @property
    def n_topics(self) -> int:
        return len(self.qids)

    @property
    def num_ret(self) -> np.ndarray:
        return np.diff(self.starts)

    @property
    def topic(self) -> np.ndarray:
        """Topic index of every entry of ``rel``."""
        return np.repeat(np.arange(self.n_topics), self.num_ret)

    @property
    def position(self) -> np.ndarray:
        """0-based rank of every entry of ``rel`` within its topic."""
        return np.arange(len(self.rel)) - np.repeat(self.starts[:-1], self.num_ret)

    @property
    def num_rel_ret(self) -> np.ndarray:
        relevant = self.rel >= self.relevance_level
        return np.bincount(self.topic[relevant], minlength=self.n_topics)

    def topic_rels(self, t: int) -> np.ndarray:
        return self.rel[self.starts[t] : self.starts[t + 1]]


def segment_sums(values: np.ndarray, topic: np.ndarray, n_topics: int) -> np.ndarray:
    """Per topic, the sum of its ``values`` accumulated left to right (0 for none);
    ``topic`` is sorted."""
    out = np.zeros(n_topics, np.float64)
    if len(values):
        sums = segment_cumsum(values, topic)
        last = np.flatnonzero(np.r_[topic[1:] != topic[:-1], True])
        out[topic[last]] = sums[last]
    return out


def precision_sums(
    relevant: np.ndarray, topic: np.ndarray, position: np.ndarray, n_topics: int
) -> np.ndarray:
    """Per topic, the sum of the precisions at its relevant retrieved documents, added
    rank by rank as trec_eval's AP loops do (yaap, map_avgjg; the fast engine's map sums
    the same terms); ``relevant``, ``topic`` (sorted) and ``position`` (0-based rank) are
    aligned per retrieved document."""
    rel_topic = topic[relevant]
    terms = precisions_at_relevant(rel_topic, position[relevant])
    return segment_sums(terms, rel_topic, n_topics)


def _large(column) -> pa.ChunkedArray | pa.Array:
    return pc.cast(column, pa.large_string())


def form_res_rels(
    ranked: pa.Table,
    qrels: pa.Table,
    qids: list[str],
    *,
    relevance_level: int = 1,
    judged_only: bool = False,
) -> ResRels:
    """``ranked``: the run in trec_eval order (qid blocks in the order of ``qids``, each
    ranked and cut at ``-M``); ``qrels``: ``qid, docno, rel``; ``qids``: the topics to
    evaluate, in evaluation order (a topic absent from ``ranked`` retrieved nothing)."""
    n = len(qids)
    keys = arrow.array(qids, pa.large_string())
    run_topic = arrow.to_numpy(pc.index_in(_large(ranked.column("qid")), value_set=keys))
    counts = np.bincount(run_topic, minlength=n) if len(run_topic) else np.zeros(n, np.int64)
    judged = pa.table(
        {
            "qid": _large(qrels.column("qid")),
            "docno": _large(qrels.column("docno")),
            "rel": pc.cast(qrels.column("rel"), pa.int64()),
        }
    )
    keyed = pa.table(
        {
            "qid": _large(ranked.column("qid")),
            "docno": _large(ranked.column("docno")),
            "__row": arrow.array(np.arange(ranked.num_rows, dtype=np.int64)),
        }
    )
    joined = keyed.join(judged, ["qid", "docno"], join_type="inner")
    rel = np.full(ranked.num_rows, NONPOOL, np.int64)
    grades = arrow.to_numpy(joined.column("rel"))
    rel[arrow.to_numpy(joined.column("__row"))] = np.where(grades < 0, UNJUDGED, grades)
    topic_rows = np.argsort(run_topic, kind="stable")  # rows grouped by evaluation order
    rel = rel[topic_rows]
    if judged_only:
        kept = rel >= 0
        counts = np.bincount(np.repeat(np.arange(n), counts)[kept], minlength=n)
        rel = rel[kept]
    starts = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
    levels, top = _rel_levels(judged, keys, n)
    num_rel_levels = np.zeros(n, np.int64)
    num_rel = np.zeros(n, np.int64)
    previous: np.ndarray = np.zeros(0, np.int64)
    previous_num = 0
    for t in range(n):
        if top[t] < 0:  # nothing allocated: trec_eval reads the previous topic's buffer
            levels[t] = previous
            num_rel_levels[t] = previous_num
            continue  # num_rel stays 0
        nonzero = np.flatnonzero(levels[t])
        num_rel_levels[t] = nonzero[-1] + 1 if len(nonzero) else previous_num
        num_rel[t] = levels[t][relevance_level:].sum()
        previous, previous_num = levels[t], num_rel_levels[t]
    return ResRels(qids, starts, rel, levels, num_rel_levels, num_rel, relevance_level)


def _rel_levels(judged: pa.Table, keys: pa.Array, n: int) -> tuple[list[np.ndarray], np.ndarray]:
    """Per topic: counts of each grade >= 0 (index = grade) and the largest grade."""
    topic = arrow.to_numpy(pc.fill_null(pc.index_in(judged.column("qid"), value_set=keys), -1))
    grade = arrow.to_numpy(judged.column("rel"))
    mine = topic >= 0
    topic, grade = topic[mine], grade[mine]
    top = np.full(n, np.iinfo(np.int64).min, np.int64)
    np.maximum.at(top, topic, grade)
    counted = grade >= 0
    levels = [np.zeros(max(int(top[t]) + 1, 0), np.int64) for t in range(n)]
    order = np.lexsort((grade[counted], topic[counted]))
    topic, grade = topic[counted][order], grade[counted][order]
    bounds = np.searchsorted(topic, np.arange(n + 1))
    for t in range(n):
        levels[t] += np.bincount(grade[bounds[t] : bounds[t + 1]], minlength=len(levels[t]))
    return levels, top
