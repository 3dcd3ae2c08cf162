"""Plain ranked lists (RAG evaluators such as a ``retrieval_eval`` module) → qrels and a run.

Input: ``{"gold_docs": [[...], ...], "retrieved_chunks": [[...], ...], "query_ids"?: [...]}``,
lists aligned by position; the qid is the position (0-based) when ``query_ids`` is absent.
"""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd

from ..errors import InputError
from ..report import input_record
from .common import (
    STR,
    Conversion,
    Report,
    clean_tag,
    id_text,
    load_json,
    make_qrels,
    qrels_summary,
    ranked_run,
)


def _lists(data: dict, key: str, path) -> list[list]:
    value = data.get(key)
    if not isinstance(value, list) or not all(isinstance(v, list) for v in value):
        raise InputError(str(path), None, f"{key} must be a list of lists")
    return value


def convert_lists(
    source: str | os.PathLike,
    *,
    name: str | None = None,
    tag: str | None = None,
    depth: int | None = None,
) -> Conversion:
    """Convert aligned ``gold_docs`` / ``retrieved_chunks`` lists into qrels and a run."""
    path = Path(source)
    name = name or path.stem
    tag = clean_tag(tag or path.stem)
    data = load_json(path)
    if not isinstance(data, dict):
        raise InputError(str(path), None, "expected an object with gold_docs and retrieved_chunks")
    gold = _lists(data, "gold_docs", path)
    retrieved = _lists(data, "retrieved_chunks", path)
    if len(gold) != len(retrieved):
        raise InputError(
            str(path), None, f"{len(gold)} gold_docs lists but {len(retrieved)} retrieved_chunks"
        )
    ids = data.get("query_ids")
    if ids is None:
        qids = [str(i) for i in range(len(gold))]
    elif isinstance(ids, list) and len(ids) == len(gold):
        qids = [id_text(q, path, f"query_ids[{i}]") for i, q in enumerate(ids)]
    else:
        raise InputError(str(path), None, "query_ids must be a list as long as gold_docs")
    if len(set(qids)) != len(qids):
        raise InputError(str(path), None, "query_ids has duplicates")

    report = Report()
    gold_rows = [
        (qid, id_text(doc, path, f"gold_docs[{i}][{j}]"), 1)
        for i, (qid, docs) in enumerate(zip(qids, gold, strict=True))
        for j, doc in enumerate(docs)
    ]
    run_rows = [
        (qid, id_text(doc, path, f"retrieved_chunks[{i}][{j}]"), j, float("nan"))
        for i, (qid, docs) in enumerate(zip(qids, retrieved, strict=True))
        for j, doc in enumerate(docs)
    ]
    qrels = make_qrels(
        pd.DataFrame(gold_rows, columns=["qid", "docno", "rel"]).astype({"qid": STR}), name, report
    )
    info = qrels_summary(qrels, qids, report, "query without gold docs (not in the qrels)")
    run = ranked_run(
        pd.DataFrame(run_rows, columns=["qid", "docno", "order", "score"]), tag, name, report, depth
    )
    no_results = sorted(set(qids) - set(run.table["qid"]) - set(info["without_relevant"]))
    if no_results:
        report.note(
            f"{len(no_results)} query(ies) retrieved nothing; trec_eval skips them unless -c "
            "counts them as 0"
        )
    return Conversion(
        name=name,
        converter="lists",
        qrels={name: qrels},
        runs=[run],
        report=report,
        provenance={"inputs": [input_record(path, "lists")], "options": {"depth": depth}},
        qrels_info={name: info},
    )
