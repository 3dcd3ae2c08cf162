"""trec_eval's ranking policy, applied once, in one place.

Per topic, documents are ordered by score descending, ties broken by docno descending
compared byte-wise (``strcmp``: ``D9`` before ``D10``); the rank column of the file plays no
part. trec_eval 9.x holds scores as 32-bit floats, so scores equal at float32 precision
tie. Every engine consumes the table :func:`rank_run` returns; none re-sorts.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .errors import DuplicateError


def rank_run(run_table: pa.Table, float32: bool = True) -> pa.Table:
    """The run sorted by qid, then score desc (float32 when ``float32``), then docno desc.

    Returns the input's columns in that order with ``rank`` recomputed (int64, 1-based
    within each topic). Topics come in byte-wise qid order, as trec_eval prints them.
    """
    keyed = run_table
    score_key = "score"
    if float32:
        score_key = "__score32"
        score32 = pc.cast(run_table.column("score"), pa.float32(), safe=False)
        keyed = run_table.append_column(score_key, score32)
    order = pc.sort_indices(
        keyed,
        sort_keys=[("qid", "ascending"), (score_key, "descending"), ("docno", "descending")],
    )
    ranked = run_table.take(order)
    ranks = pa.array(_ranks_within(ranked.column("qid")), pa.int64())
    if "rank" in ranked.column_names:
        ranked = ranked.set_column(ranked.column_names.index("rank"), "rank", ranks)
    else:
        ranked = ranked.append_column("rank", ranks)
    return ranked


def _topic_starts(qids: pa.ChunkedArray | pa.Array) -> np.ndarray:
    """Start offsets of each run of equal qids (the table must be grouped by qid)."""
    qids = pa.chunked_array([qids]) if isinstance(qids, pa.Array) else qids
    n = len(qids)
    if n == 0:
        return np.empty(0, np.int64)
    codes = pc.dictionary_encode(qids.combine_chunks()).indices.to_numpy(zero_copy_only=False)
    change = np.flatnonzero(codes[1:] != codes[:-1]) + 1
    return np.concatenate(([0], change)).astype(np.int64)


def _ranks_within(qids) -> np.ndarray:
    n = len(qids)
    starts = _topic_starts(qids)
    lengths = np.diff(np.append(starts, n))
    return np.arange(n, dtype=np.int64) - np.repeat(starts, lengths) + 1


def truncate(ranked: pa.Table, max_docs: int | None) -> pa.Table:
    """Keep the first ``max_docs`` documents of each topic (trec_eval ``-M``)."""
    if max_docs is None:
        return ranked
    return ranked.filter(pc.less_equal(ranked.column("rank"), max_docs))


def check_duplicates(ranked: pa.Table, path: str) -> None:
    """Raise :class:`DuplicateError` (exit 4) if a topic lists a document twice.

    trec_eval checks only the documents it evaluates (after ``-M``); so does the caller by
    passing the truncated table. The message names both lines.
    """
    keys = ranked.select(["qid", "docno"])
    grouped = keys.group_by(["qid", "docno"]).aggregate([("qid", "count")])
    dupes = grouped.filter(pc.greater(grouped.column("qid_count"), 1))
    if dupes.num_rows == 0:
        return
    qid, docno = dupes.column("qid")[0].as_py(), dupes.column("docno")[0].as_py()
    mask = pc.and_(pc.equal(ranked.column("qid"), qid), pc.equal(ranked.column("docno"), docno))
    lines = sorted(ranked.filter(mask).column("line").to_pylist())
    raise DuplicateError(
        path,
        lines[1],
        f"duplicate docs {docno} for topic {qid} (first on line {lines[0]})",
        "R7",
    )


def judged_only(ranked: pa.Table, qrels: pa.Table) -> pa.Table:
    """Drop documents without a non-negative judgment, keep the order, re-rank (``-J``)."""
    judged = qrels.filter(pc.greater_equal(qrels.column("rel"), 0)).select(["qid", "docno"])
    judged = judged.append_column("__judged", pa.array(np.ones(judged.num_rows, bool)))
    position = pa.array(np.arange(ranked.num_rows, dtype=np.int64))
    keyed = ranked.append_column("__pos", position)
    joined = keyed.join(judged, ["qid", "docno"], join_type="inner")
    joined = joined.take(pc.sort_indices(joined, [("__pos", "ascending")]))
    kept = joined.drop_columns(["__pos", "__judged"])
    ranks = pa.array(_ranks_within(kept.column("qid")), pa.int64())
    return kept.set_column(kept.column_names.index("rank"), "rank", ranks)
