"""Runs as trecbench ranks them, for the commands that study runs rather than score them:
each run in trec_eval's order (score descending at float32, docno descending), cut at a
depth, its rows numbered by topic."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .. import arrow
from ..errors import UsageError
from ..trec_eval.clib import LONG_MAX  # ranks are 64-bit integers, in Arrow as in trec_eval


def check_count(name: str, value) -> None:
    """Refuse a depth or cutoff that is not a whole number from 1 to :data:`LONG_MAX`
    (beyond it Arrow cannot compare it with a rank)."""
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= LONG_MAX:
        raise UsageError(f"the {name} must be a positive integer up to {LONG_MAX}, not {value!r}")


def load_ranked(source, depth: int | None = None) -> pa.Table:
    """``qid, docno, rank`` of a run (any input :mod:`trecbench.inputs` reads) in
    trecbench's ranking, each topic cut at ``depth`` documents."""
    from .. import ranking
    from ..fusion import ranked_table

    ranked = ranking.truncate(ranked_table(source), depth)
    return ranked.select(["qid", "docno", "rank"])


def all_qids(tables: list[pa.Table]) -> pa.Array:
    """The distinct qids of ``tables``, in byte-wise order as trec_eval lists topics."""
    qids = pa.chunked_array(
        [pc.cast(t.column("qid"), pa.large_string()) for t in tables], pa.large_string()
    )
    distinct = pc.unique(qids)
    order = pc.sort_indices(pc.cast(distinct, pa.large_binary()))
    return distinct.take(order)


def topic_lengths(table: pa.Table, qids: pa.Array) -> np.ndarray:
    """How many documents ``table`` (from :func:`load_ranked`) holds for each of ``qids``."""
    qid = pc.cast(table.column("qid"), pa.large_string())
    topic = arrow.to_numpy(pc.index_in(qid, value_set=qids)).astype(np.int64)
    return np.bincount(topic, minlength=len(qids))


def shared_ranks(a: pa.Table, b: pa.Table, qids: pa.Array) -> tuple[np.ndarray, ...]:
    """``(topic, rank in a, rank in b)`` of every document both runs hold for a topic."""
    left = a.select(["qid", "docno", "rank"]).rename_columns(["qid", "docno", "rank_a"])
    right = b.select(["qid", "docno", "rank"]).rename_columns(["qid", "docno", "rank_b"])
    keys = ["qid", "docno"]
    left = left.set_column(0, "qid", pc.cast(left.column("qid"), pa.large_string()))
    left = left.set_column(1, "docno", pc.cast(left.column("docno"), pa.large_string()))
    right = right.set_column(0, "qid", pc.cast(right.column("qid"), pa.large_string()))
    right = right.set_column(1, "docno", pc.cast(right.column("docno"), pa.large_string()))
    joined = left.join(right, keys=keys, join_type="inner", use_threads=False)
    topic = arrow.to_numpy(pc.index_in(joined.column("qid"), value_set=qids)).astype(np.int64)
    rank_a = arrow.to_numpy(joined.column("rank_a")).astype(np.int64)
    rank_b = arrow.to_numpy(joined.column("rank_b")).astype(np.int64)
    order = np.lexsort((rank_a, topic))
    return topic[order], rank_a[order], rank_b[order]
