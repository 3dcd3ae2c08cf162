"""``-R qrels_jg``: qrels whose second column names a judgment group (a user), and the three
measures averaged over a topic's judgment groups (m_map_avgjg.c, m_P_avgjg.c,
m_Rprec_mult_avgjg.c).

Each (topic, judgment group) is evaluated like a topic of its own (``form_res_rels_jg``):
documents the group did not judge are unjudged for it. A topic's value is the sum over
its groups, divided by the number of groups when there are several. A document judged
twice by one group is an error when the file is read (trec_eval: exit 2), wherever it is.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from .. import arrow
from .. import arrow_compute as pc
from ..errors import InputError
from .res_rels import ResRels, form_res_rels, precision_sums

_SEP = "\t"  # ids never hold a tab: qid<TAB>jg is a (topic, group) key
_LARGE_SEP = arrow.scalar(_SEP, pa.large_string())


def check_duplicates(table: pa.Table, path: str) -> None:
    """Refuse a (qid, jg, docno) listed twice (trec_eval's get_qrels_jg: exit 2)."""
    columns = [pc.cast(table.column(name), pa.large_string()) for name in ("qid", "iter", "docno")]
    key = pc.binary_join_element_wise(*columns, _LARGE_SEP)
    counts = pc.value_counts(key)
    repeated = pc.filter(counts.field("values"), pc.greater(counts.field("counts"), 1))
    if len(repeated):
        qid, jg, docno = repeated[0].as_py().split(_SEP)
        rows = np.flatnonzero(arrow.to_numpy(pc.equal(key, repeated[0])))
        lines = arrow.to_numpy(table.column("line"))[rows]
        raise InputError(
            path,
            int(lines[1]),
            f"duplicate docs {docno} for topic {qid} in judgment group {jg} "
            f"(first on line {int(lines[0])})",
            "Q5",
        )


def group_res_rels(
    ranked: pa.Table, qrels: pa.Table, qids: list[str], *, relevance_level: int, judged_only: bool
) -> tuple[ResRels, np.ndarray]:
    """``form_res_rels_jg``: a :class:`ResRels` with one entry per (topic, judgment group),
    groups in ``strcmp`` order within each topic, and the topic of each entry. The ranked
    rows of a topic are repeated once per group of the topic."""
    keys = arrow.array(qids, pa.large_string())
    judged = pa.table(
        {
            "qid": pc.cast(qrels.column("qid"), pa.large_string()),
            "jg": pc.cast(qrels.column("iter"), pa.large_string()),
            "docno": pc.cast(qrels.column("docno"), pa.large_string()),
            "rel": qrels.column("rel"),
        }
    )
    judged = judged.filter(pc.is_in(judged.column("qid"), value_set=keys))
    pairs = judged.group_by(["qid", "jg"]).aggregate([])
    pairs = pairs.append_column("topic", pc.index_in(pairs.column("qid"), value_set=keys))
    pairs = pairs.sort_by([("topic", "ascending"), ("jg", "ascending")])
    pairs = pairs.append_column("pair", arrow.array(np.arange(pairs.num_rows, dtype=np.int64)))
    names = pc.binary_join_element_wise(pairs.column("qid"), pairs.column("jg"), _LARGE_SEP)
    run = pa.table(
        {
            "qid": pc.cast(ranked.column("qid"), pa.large_string()),
            "docno": pc.cast(ranked.column("docno"), pa.large_string()),
            "row": arrow.array(np.arange(ranked.num_rows, dtype=np.int64)),
        }
    )
    repeated = run.join(pairs.select(["qid", "jg", "pair"]), "qid", join_type="inner")
    repeated = repeated.sort_by([("pair", "ascending"), ("row", "ascending")])
    repeated = pa.table(
        {
            "qid": pc.binary_join_element_wise(
                repeated.column("qid"), repeated.column("jg"), _LARGE_SEP
            ),
            "docno": repeated.column("docno"),
        }
    )
    grouped = pa.table(
        {
            "qid": pc.binary_join_element_wise(
                judged.column("qid"), judged.column("jg"), _LARGE_SEP
            ),
            "docno": judged.column("docno"),
            "rel": judged.column("rel"),
        }
    )
    res = form_res_rels(
        repeated,
        grouped,
        names.to_pylist(),
        relevance_level=relevance_level,
        judged_only=judged_only,
    )
    return res, arrow.to_numpy(pairs.column("topic")).astype(np.int64)


def _average(values: np.ndarray, topic: np.ndarray, n_topics: int) -> np.ndarray:
    """Sum each topic's group values in order, divided by the number of groups if > 1."""
    # bincount adds the weights one by one in input order onto 0.0: trec_eval's loop
    out = np.bincount(topic, weights=values, minlength=n_topics)
    groups = np.bincount(topic, minlength=n_topics)
    several = groups > 1
    out[several] /= groups[several]
    return out


def map_avgjg(res: ResRels, topic: np.ndarray, n_topics: int) -> np.ndarray:
    """``map`` of each group (0 for a group without a relevant document retrieved)."""
    relevant = res.rel >= res.relevance_level
    group = res.topic
    sums = precision_sums(relevant, group, res.position, res.n_topics)
    found = np.bincount(group[relevant], minlength=res.n_topics) > 0
    per_group = np.zeros(res.n_topics)
    per_group[found] = sums[found] / res.num_rel[found].astype(np.float64)
    return _average(per_group, topic, n_topics)


def p_avgjg(res: ResRels, topic: np.ndarray, n_topics: int, cutoffs) -> dict[int, np.ndarray]:
    """``P_k`` of each group, averaged."""
    relevant = res.rel >= res.relevance_level
    rel_topic, rel_pos = res.topic[relevant], res.position[relevant]
    out = {}
    for k in cutoffs:
        hits = np.bincount(rel_topic[rel_pos < k], minlength=res.n_topics)
        out[k] = _average(hits / float(k), topic, n_topics)
    return out


def rprec_mult_avgjg(
    res: ResRels, topic: np.ndarray, n_topics: int, percents: list[float]
) -> list[np.ndarray]:
    """Precision at ``(long)(p * R + 0.9)`` documents of each group (``R`` its number of
    relevant documents), averaged; one array per multiple ``p``."""
    relevant = res.rel >= res.relevance_level
    num_ret = res.num_ret
    out = []
    for pct in percents:
        values = np.zeros(res.n_topics)
        for t in range(res.n_topics):
            k = int(pct * float(res.num_rel[t]) + 0.9)  # C's (long) cast truncates
            if k <= 0:
                continue
            start = res.starts[t]
            hits = int(np.count_nonzero(relevant[start : start + min(k, int(num_ret[t]))]))
            values[t] = hits / float(k)
        out.append(_average(values, topic, n_topics))
    return out
