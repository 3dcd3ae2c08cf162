"""MS MARCO runs: three columns ``qid pid rank`` (tab-separated, plain or compressed) → a
TREC run.

The producer's order is the rank (1-based, at most the largest 64-bit integer, as
validate reads ranks; documents sharing a rank keep file order and are counted); there
are no scores, so the sidecar's ``original_scores`` is null. MS MARCO's qrels are TREC
qrels already (``qid 0 pid 1``).
"""

from __future__ import annotations

import os
import re

import numpy as np
import pandas as pd

from .. import arrow_compute as pc
from ..ids import STR
from ..inputs import trec_text
from ..naming import path_argument
from ..resource_bounds import depth_from
from .common import Conversion, Report, ranked_run, single_input_names
from .textfiles import read_fields

COLUMNS = ("qid", "pid", "rank")


def convert_msmarco(
    path: str | os.PathLike,
    *,
    name: str | None = None,
    tag: str | None = None,
    depth: int | None = None,
) -> Conversion:
    """Convert an MS MARCO ``qid pid rank`` run at ``path`` into a TREC run: ``name`` names
    the sidecar, ``tag`` the run and its file (default: made of the file's name,
    :func:`~trecbench.convert.identifiers.single_input_names`); ``depth``: the first
    documents kept per query (default: all).
    Returns the :class:`~trecbench.convert.model.Conversion` (qrels, runs, sidecar) that
    :func:`trecbench.write_conversion` writes."""
    path_argument(path, "path")  # 5: a pathlib TypeError naming nothing, as the others'
    depth = depth_from(depth)
    report = Report()
    name, run_name, tag = single_input_names(path, name, tag, report)  # checked before reading
    frame, record = _rows(path, report, tag)
    run = ranked_run(frame, tag, None, report, depth, name=run_name)
    return Conversion(
        name=name,
        converter="msmarco",
        qrels={},
        runs=[run],
        report=report,
        provenance={"inputs": [record], "options": {"depth": depth}},
    )


def _rows(path: str | os.PathLike, report: Report, tag: str) -> tuple[pd.DataFrame, dict]:
    """The run's rows as :func:`~trecbench.convert.tables.ranked_run` takes them, and the
    file's record (the file's bytes and fields let go once the rows are made); the
    queries whose ranks skip one counted in ``report`` (of the run ``tag``)."""
    fields = read_fields(path, "msmarco run", COLUMNS, report)
    qid, pid, rank = fields.columns
    ranks = trec_text.parse_ranks(rank)
    values, valid = np.asarray(ranks.fill_null(0)), np.asarray(ranks.is_valid())
    too_large = ~valid & np.asarray(pc.ascii_is_decimal(rank))  # digits beyond a C long

    def bad_rank(row: int) -> str:
        shown = repr(rank[row].as_py())
        if too_large[row]:
            return f"rank {trec_text.rank_too_large(shown)}"
        if re.fullmatch(r"\+[0-9]+", rank[row].as_py()):  # "+2" is a positive integer
            return (
                f"rank {shown} has a sign: a rank is digits alone, from 1, as validate reads "
                "it (R10)"
            )
        return f"rank {shown} is not a positive integer (ranks start at 1)"

    fields.first(~valid | (values < 1), bad_rank)
    report.count(
        f"queries whose ranks skip one (a 3 after a 1, or a first rank above 1; {tag}: "
        "written 1..n in the producer's order)",
        _skipping(np.asarray(pc.dictionary_encode(qid).indices), values),
    )
    frame = pd.DataFrame(
        {
            "qid": qid.to_pandas(types_mapper=lambda _: STR),
            "docno": pid.to_pandas(types_mapper=lambda _: STR),
            "order": values,
            "score": np.full(len(values), np.nan),
        }
    )
    return frame, fields.source.record


def _skipping(query: np.ndarray, ranks: np.ndarray) -> int:
    """How many queries (``query``: each row's, numbered by first appearance) hold ranks
    that skip one: the written run numbers each query's documents 1..n, so such ranks are
    written otherwise. A run in query and rank order, as MS MARCO's are, is not sorted."""
    same = query[1:] == query[:-1]
    if not np.all((query[1:] > query[:-1]) | (same & (ranks[1:] >= ranks[:-1]))):
        order = np.lexsort((ranks, query))
        query, ranks = query[order], ranks[order]
        same = query[1:] == query[:-1]
    # each rank's step from the one before in its query, a query's first from 0
    step = ranks - np.r_[0, np.where(same, ranks[:-1], 0)]
    return np.unique(query[step > 1]).size
