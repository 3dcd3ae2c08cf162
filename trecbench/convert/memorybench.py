"""memorybench results (export JSON or ``results.db``) → one qrels/run pair per provider.

Relevance, in priority order: explicit ``metadata.relevantIds`` / ``relevantChunkIds``
(complete judgments); else the **location rule**: a retrieved chunk is relevant when it
is in the ground-truth file (normalised path, suffix match at ``/``, case-insensitive) and
its lines overlap the ground truth, or reach line IoU ≥ ``iouThreshold`` when that is > 0.
Location judgments only exist for retrieved chunks, so such qrels are marked **pooled**.
Chunk line numbers are shifted by a per-provider offset (code-chunk-ast's are 0-based,
other providers' 1-based, the ground truth 0-based).
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from .. import outputs
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
    number,
    qrels_summary,
    ranked_run,
)

SQLITE_MAGIC = b"SQLite format 3\x00"
_COLUMNS = "run_id, provider, item_id, retrieved_context, metadata"


def _json_column(text: Any, path, where: str) -> Any:
    if text is None or isinstance(text, (dict, list)):
        return text
    try:
        return json.loads(text)
    except (TypeError, json.JSONDecodeError) as exc:
        raise InputError(str(path), None, f"{where}: invalid JSON ({exc})") from None


def read_results(path: str | os.PathLike) -> list[dict]:
    """EvalResult dicts (camelCase keys) from an export JSON or a ``results.db``."""
    path = Path(path)
    outputs.note_input(path)
    try:
        with open(path, "rb") as handle:
            magic = handle.read(len(SQLITE_MAGIC))
    except OSError as exc:
        raise InputError(str(path), None, f"cannot read: {exc.strerror}") from None
    if magic == SQLITE_MAGIC:
        try:
            # read-only: a converter never changes its input
            uri = f"{path.resolve().as_uri()}?mode=ro"
            with contextlib.closing(sqlite3.connect(uri, uri=True)) as db:
                rows = db.execute(f"SELECT {_COLUMNS} FROM results ORDER BY rowid").fetchall()
        except sqlite3.Error as exc:
            raise InputError(str(path), None, f"cannot read the results table: {exc}") from None
        return [
            {
                "runId": run_id,
                "provider": provider,
                "itemId": item,
                "retrievedContext": _json_column(context, path, f"row {n}: retrieved_context"),
                "metadata": _json_column(meta, path, f"row {n}: metadata"),
            }
            for n, (run_id, provider, item, context, meta) in enumerate(rows, 1)
        ]
    data = load_json(path)
    if not isinstance(data, dict) or not isinstance(data.get("results"), list):
        raise InputError(str(path), None, "expected an export {run, results: [...]} object")
    return data["results"]


def normalise_path(text: str) -> str:
    """Path for comparison: forward slashes, lower case, no leading ``./`` or ``/``."""
    text = text.replace("\\", "/").lower()
    while text.startswith("./"):
        text = text[2:]
    return text.lstrip("/")


def same_file(a: str, b: str) -> bool:
    """Equal normalised paths, or one a suffix of the other at a ``/`` boundary."""
    a, b = normalise_path(a), normalise_path(b)
    return a == b or a.endswith("/" + b) or b.endswith("/" + a)


def line_relevant(start: int, end: int, gt_start: int, gt_end: int, iou: float) -> bool:
    """Inclusive line ranges: overlap, or IoU ≥ ``iou`` when ``iou`` > 0."""
    inter = min(end, gt_end) - max(start, gt_start) + 1
    if inter <= 0:
        return False
    if iou <= 0:
        return True
    union = (end - start + 1) + (gt_end - gt_start + 1) - inter
    return inter / union >= iou


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def convert_memorybench(
    source: str | os.PathLike,
    *,
    name: str | None = None,
    line_offsets: Mapping[str, int] | None = None,
    iou: float | None = None,
) -> Conversion:
    """Convert memorybench results into a qrels/run pair per provider (tag = provider).

    ``line_offsets`` maps a provider to the number added to its chunks' line numbers
    (e.g. ``-1`` for 1-based providers against 0-based ground truth); ``iou`` overrides
    each item's ``iouThreshold``.
    """
    path = Path(source)
    name = name or "memorybench"
    offsets = dict(line_offsets or {})
    report = Report()
    results = read_results(path)
    if not results:
        raise InputError(str(path), None, "no results")
    runs_keys = {(str(r.get("runId")), str(r.get("provider"))) for r in results}
    providers = [p for _, p in runs_keys]
    unknown_offsets = sorted(set(offsets) - set(providers))
    if unknown_offsets:
        report.note(f"--line-offset for absent provider(s): {', '.join(unknown_offsets)}")

    retrieved, judged, strata, methods, tag_provider = [], [], {}, {}, {}
    no_location, no_truth = [], []
    for index, result in enumerate(results):
        where = f"results[{index}]"
        provider = id_text(result.get("provider"), path, f"{where}.provider")
        run_id = str(result.get("runId"))
        tag = provider if providers.count(provider) == 1 else f"{provider}-{run_id}"
        qid = id_text(result.get("itemId"), path, f"{where}.itemId")
        meta = result.get("metadata") or {}
        strata[qid] = meta.get("repo")
        context = result.get("retrievedContext") or []
        offset = offsets.get(provider, 0)
        explicit = meta.get("relevantIds", meta.get("relevantChunkIds"))
        truth = meta.get("groundTruth") or {}
        threshold = iou if iou is not None else float(meta.get("iouThreshold") or 0)
        method = "explicit" if explicit is not None else "location"
        methods.setdefault(tag, set()).add(method)
        tag_provider[tag] = provider
        if explicit is not None:
            for position, doc in enumerate(explicit):
                judged.append((tag, qid, id_text(doc, path, f"{where}.relevantIds[{position}]"), 1))
        elif not truth.get("file"):
            no_truth.append({"run": tag, "qid": qid})
        for position, chunk in enumerate(context):
            cmeta = chunk.get("metadata") or {}
            start, end = _int(cmeta.get("startLine")), _int(cmeta.get("endLine"))
            file = cmeta.get("filepath") or cmeta.get("absolutePath")
            docno = chunk.get("id")
            if docno is None and file is not None and start is not None and end is not None:
                docno = f"{file}:{start}-{end}"
            docno = id_text(docno, path, f"{where}.retrievedContext[{position}].id")
            score = chunk.get("score")
            score = number(score, path, None, f"{where}.retrievedContext[{position}].score")
            retrieved.append((tag, qid, docno, position, score))
            if method != "location" or not truth.get("file"):
                continue
            gt_start, gt_end = _int(truth.get("startLine")), _int(truth.get("endLine"))
            if file is None or None in (start, end, gt_start, gt_end):
                no_location.append({"run": tag, "qid": qid, "docno": docno})
                rel = 0
            else:
                rel = int(
                    same_file(file, truth["file"])
                    and line_relevant(start + offset, end + offset, gt_start, gt_end, threshold)
                )
            judged.append((tag, qid, docno, rel))
    report.drop("item without explicit relevant ids or ground truth (not judged)", no_truth)
    report.repair("retrieved chunk without file/lines (judged not relevant)", no_location)

    run_rows = pd.DataFrame(retrieved, columns=["tag", "qid", "docno", "order", "score"])
    judgments = pd.DataFrame(judged, columns=["tag", "qid", "docno", "rel"])
    qrels, runs, info = {}, [], {}
    for tag in dict.fromkeys(run_rows["tag"].tolist() + judgments["tag"].tolist()):
        qrels_name = f"{name}-{clean_tag(tag)}"
        table = make_qrels(
            judgments.loc[judgments["tag"] == tag, ["qid", "docno", "rel"]], qrels_name, report
        )
        qids = list(dict.fromkeys(run_rows.loc[run_rows["tag"] == tag, "qid"]))
        pooled = "location" in methods.get(tag, set())
        qrels[qrels_name] = table
        info[qrels_name] = qrels_summary(
            table,
            qids,
            report,
            f"query without a relevant document ({tag}; scores 0 where judged)",
            pooled=pooled,
            relevance=sorted(methods.get(tag, set())),
            line_offset=offsets.get(tag_provider.get(tag, tag), 0),
        )
        if pooled:
            report.note(
                f"{qrels_name}: judged by location over retrieved chunks only (pooled): "
                "relevant chunks nobody retrieved are missing, so recall is over-estimated"
            )
        rows = run_rows.loc[run_rows["tag"] == tag, ["qid", "docno", "order", "score"]]
        runs.append(ranked_run(rows, clean_tag(tag), qrels_name, report))

    return Conversion(
        name=name,
        converter="memorybench",
        qrels=qrels,
        runs=runs,
        report=report,
        strata=pd.DataFrame({"qid": list(strata), "repo": list(strata.values())}, dtype=STR)
        if any(v is not None for v in strata.values())
        else None,
        provenance={
            "inputs": [input_record(path, "memorybench results")],
            "options": {"line_offsets": offsets, "iou": iou},
        },
        qrels_info=info,
    )
