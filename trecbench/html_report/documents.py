"""The drill-down's documents: each run's top documents per topic in trecbench's ranking,
with their grades, and the runs' interpolated precision at the 11 recall levels.

The run files are read again here (the comparison kept only per-topic values); a file
whose sha256 is not the one recorded when it was scored is refused, so that a page never
shows documents of another file than the numbers it prints.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .. import arrow, ranking
from ..errors import InputError, UsageError

RECALL_LEVELS = [f"iprec_at_recall_{level / 10:.2f}" for level in range(11)]


def _check_unchanged(path: str, recorded: Mapping | None) -> None:
    expected = (recorded or {}).get("sha256")
    if expected is None:
        return
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while block := handle.read(1 << 20):
            digest.update(block)
    if digest.hexdigest() != expected:
        raise InputError(path, None, "changed since it was scored: the report would mix two files")


def ranked_runs(runs: Mapping[str, object], records: Mapping[str, Mapping]) -> dict:
    """``{run: ranked table}`` (qid, docno, rank, score) of each run: a file (read again,
    refused if changed since it was scored) or a table already in memory."""
    return {run: _ranked(source, records) for run, source in runs.items()}


def _ranked(source, records: Mapping[str, Mapping]) -> pa.Table:
    from ..fusion import ranked_table

    if isinstance(source, str):
        _check_unchanged(source, records.get(source))
    return ranked_table(source).select(["qid", "docno", "rank", "score"])


def drill_down(
    runs: Mapping[str, object], records: Mapping[str, Mapping], qrels: pa.Table, depth: int,
    options: Mapping,
) -> tuple[dict, dict]:  # fmt: skip
    """``(top_documents, precision_recall)`` of ``runs`` (as :func:`ranked_runs` reads
    them): each run read, ranked, used and let go in turn, so that one run's table is in
    memory at a time, not every run's (5 runs of 500,000 lines: the page's peak 70 MB lower)."""
    _check_depth(depth)
    grades = _last_grades(qrels)
    topics: dict[str, dict] = {}
    curves: dict[str, list[float]] = {}
    for run, source in runs.items():
        table = _ranked(source, records)
        _add_top_documents(topics, run, table, grades, depth)
        curves |= precision_recall(qrels, {run: table}, options)
        del table  # before the next run is read
    return topics, curves


def top_documents(ranked: Mapping[str, pa.Table], qrels: pa.Table, depth: int) -> dict:
    """``{qid: {run: [[docno, score, grade or None], ...]}}``: each run's first ``depth``
    documents of each topic, with their grade in the qrels (None: unjudged; a document
    judged twice: its last grade)."""
    _check_depth(depth)
    grades = _last_grades(qrels)
    topics: dict[str, dict] = {}
    for run, table in ranked.items():
        _add_top_documents(topics, run, table, grades, depth)
    return topics


def _check_depth(depth: int) -> None:
    from ..trec_eval.clib import LONG_MAX

    if isinstance(depth, bool) or not isinstance(depth, int) or not 0 <= depth <= LONG_MAX:
        raise UsageError(f"--html-depth must be from 0 to {LONG_MAX}, not {depth!r}")


def _add_top_documents(topics: dict, run: str, table: pa.Table, grades: pa.Table, depth: int):
    """Add ``run``'s first ``depth`` documents per topic to ``topics`` (see
    :func:`top_documents`)."""
    top = table.filter(pc.less_equal(table.column("rank"), depth))
    graded = _graded(top.select(["qid", "docno", "score"]), grades)
    documents = list(
        map(
            list,
            zip(
                map(str, graded.column("docno").to_pylist()),
                map(float, graded.column("score").to_pylist()),
                graded.column("rel").to_pylist(),
                strict=True,
            ),
        )
    )
    # one Python step per topic, not per document
    qids = graded.column("qid")
    starts = ranking.topic_starts(qids)
    heads = ranking.take_rows(qids, starts).to_pylist()
    for qid, (start, end) in zip(heads, spans(starts, len(documents)), strict=True):
        topics.setdefault(str(qid), {}).setdefault(run, []).extend(documents[start:end])


def spans(starts: np.ndarray, total: int) -> list[tuple[int, int]]:
    """``(start, end)`` of each block of rows, given the blocks' ``starts`` (ascending)
    and the number of rows."""
    bounds = np.append(starts, total).tolist()
    return list(zip(bounds[:-1], bounds[1:], strict=True))


_KEYS = ["qid", "docno"]


def _last_grades(qrels: pa.Table) -> pa.Table:
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


def _graded(top: pa.Table, grades: pa.Table) -> pa.Table:
    """``top`` (qid, docno, score) with each document's ``rel`` (null: unjudged), in
    ``top``'s order."""
    keyed = pa.table(
        {
            **{key: pc.cast(top.column(key), pa.large_string()) for key in _KEYS},
            "score": top.column("score"),
            "position": arrow.array(np.arange(top.num_rows, dtype=np.int64)),
        }
    )
    joined = keyed.join(grades, _KEYS, join_type="left outer", use_threads=False)
    return joined.sort_by("position")


def precision_recall(qrels: pa.Table, ranked: Mapping[str, pa.Table], options) -> dict:
    """``{run: [interpolated precision at recall 0.0, 0.1, ..., 1.0]}``: trec_eval's
    iprec_at_recall means, scored on the tables read for the drill-down."""
    from ..evaluation import evaluate

    evaluation = evaluate(qrels, dict(ranked), ["iprec_at_recall"], **options)
    frame = evaluation.aggregates
    curves = {}
    for run in ranked:
        rows = frame[frame["run"] == run].set_index("measure")["value"]
        curves[run] = [float(rows[level]) for level in RECALL_LEVELS]
    return curves
