"""Where a fused run, ranked as trec_eval 9.x reads it (scores at float32, ties by docno),
ranks documents against their fused scores: an RRF k so large that neighbouring ranks tie
(:func:`rrf_ranks`), and fused scores out of float32's range (:func:`out_of_range`), beyond
it (read as infinity) or within its smallest normal value (read as 0 or with few bits).
Each is a warning's text, for :mod:`trecbench.fusion` to say."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from . import arrow
from .errors import one_line
from .plurals import counted
from .score_precision import as_float32

FLOAT32_MAX = float(np.finfo(np.float32).max)
FLOAT32_TINY = float(np.finfo(np.float32).tiny)  # its smallest normal value


def rrf_ranks(k: float, deepest: int) -> str | None:
    """The warning (None: none is due) when RRF's ``1/(k + rank)`` of two neighbouring
    ranks within ``deepest`` tie at float32, the precision trec_eval 9.x reads scores at:
    it would rank those documents by docno, not as the runs do (a k of millions)."""
    with np.errstate(divide="ignore"):
        single = (1 / (k + np.arange(1, deepest + 1, dtype=np.float64))).astype(np.float32)
    tied = np.flatnonzero(single[1:] == single[:-1])
    if not len(tied):
        return None
    rank = int(tied[0]) + 1
    return (
        f"k {k:g}: RRF's scores of ranks {rank} and {rank + 1} tie at float32, the "
        "precision trec_eval 9.x reads scores at: it ranks such documents by docno, "
        "not as the runs do (a smaller k keeps the ranks apart)"
    )


def out_of_range(ranked: pa.Table, remedy: str, *, beyond: bool) -> str | None:
    """The warning (None: none is due) when fused scores out of float32's range tie at
    float32, trec_eval 9.x's precision, and so the ranking written (ties by docno) puts a
    smaller score above a larger one: ``beyond`` it (about ±3.4e38: ``--norm none`` or
    ``max``, huge weights), or else within its smallest normal value (about ±1.2e-38: tiny
    weights or scores, which float32 reads as 0 or with few bits). Equal scores in a tie
    are no contradiction: no warning. ``ranked``: the fused run in trecbench's ranking;
    ``remedy``: what keeps the scores in range, as the fusion words it."""
    score = arrow.to_numpy(ranked.column("score"))
    rank = arrow.to_numpy(ranked.column("rank"))
    # ranked as float32, descending: a larger double below within a topic is a float32 tie
    below = (rank[1:] != 1) & (score[1:] > score[:-1])
    size = np.maximum(np.abs(score[1:]), np.abs(score[:-1]))
    out = size > FLOAT32_MAX if beyond else size < FLOAT32_TINY
    pairs = np.flatnonzero(below & out)
    if not len(pairs):
        return None
    rows = misplaced(score, rank, pairs)
    qids, docnos = ranked.column("qid"), ranked.column("docno")
    topics = len(pc.unique(qids.take(arrow.array(rows))))
    first = int(pairs[0])
    low, high = float(score[first]), float(score[first + 1])
    example = (
        f"topic {one_line(qids[first].as_py())}: {one_line(docnos[first].as_py())} {low!r} "
        f"above {one_line(docnos[first + 1].as_py())} {high!r}"
    )
    where = (
        f"beyond float32's range (±{FLOAT32_MAX:.2g})"
        if beyond
        else f"within float32's smallest normal value (±{FLOAT32_TINY:.2g})"
    )
    return (
        f"fused scores {where} tie at float32 (as {float(as_float32(low)):g}), the "
        f"precision trec_eval 9.x reads scores at, so it ranks them by docno: "
        f"{counted(len(rows), 'document')} of {counted(topics, 'topic')} are ranked "
        f"against their scores ({example}); to keep the scores in range, {remedy}"
    )


def misplaced(score: np.ndarray, rank: np.ndarray, pairs: np.ndarray) -> np.ndarray:
    """The rows placed by docno against their scores: in every float32 tie (a topic's
    neighbouring rows equal at float32) that holds one of ``pairs`` (row i above row i + 1
    against its score), the rows not where their scores would put them (z, y, x by docno
    for 1e-50, 1.7e-50, 1.25e-50: all three, not only the neighbours out of order)."""
    with np.errstate(over="ignore"):
        single = score.astype(np.float32)
    starts = np.ones(len(score), bool)
    starts[1:] = (rank[1:] == 1) | (single[1:] != single[:-1])
    tie = np.cumsum(starts)
    rows = np.flatnonzero(np.isin(tie, tie[pairs + 1]))
    by_score = np.lexsort((-score[rows], tie[rows]))  # stable: equal scores keep their place
    return rows[by_score != np.arange(len(rows))]
