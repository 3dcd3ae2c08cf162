"""Runs as trecbench ranks them, for the commands that study runs rather than score them:
each run in trec_eval's order (score descending at float32, docno descending), cut at a
depth, its rows numbered by topic."""

from __future__ import annotations

import pyarrow as pa

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
