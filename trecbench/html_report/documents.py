"""The drill-down's documents: each run's top documents per topic in trecbench's ranking,
with their grades, and the runs' interpolated precision at the 11 recall levels.

The run files are read again here (the comparison kept only per-topic values); a file
whose sha256 is not the one recorded when it was scored is refused, so that a page never
shows documents of another file than the numbers it prints.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping

import pyarrow as pa
import pyarrow.compute as pc

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
    from ..fusion import ranked_table

    ranked = {}
    for run, source in runs.items():
        if isinstance(source, str):
            _check_unchanged(source, records.get(source))
        ranked[run] = ranked_table(source).select(["qid", "docno", "rank", "score"])
    return ranked


def top_documents(ranked: Mapping[str, pa.Table], qrels: pa.Table, depth: int) -> dict:
    """``{qid: {run: [[docno, score, grade or None], ...]}}``: each run's first ``depth``
    documents of each topic, with their grade in the qrels (None: unjudged)."""
    from ..trec_eval.clib import LONG_MAX

    if isinstance(depth, bool) or not isinstance(depth, int) or not 0 <= depth <= LONG_MAX:
        raise UsageError(f"--html-depth must be from 0 to {LONG_MAX}, not {depth!r}")
    grades = {
        (q, d): g
        for q, d, g in zip(
            qrels.column("qid").to_pylist(),
            qrels.column("docno").to_pylist(),
            qrels.column("rel").to_pylist(),
            strict=True,
        )
    }
    topics: dict[str, dict] = {}
    for run, table in ranked.items():
        top = table.filter(pc.less_equal(table.column("rank"), depth))
        columns = (top.column(name).to_pylist() for name in ("qid", "docno", "score"))
        for qid, docno, score in zip(*columns, strict=True):
            documents = topics.setdefault(str(qid), {}).setdefault(run, [])
            documents.append([str(docno), float(score), grades.get((qid, docno))])
    return topics


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
