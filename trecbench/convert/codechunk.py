"""code-chunk's retrieval eval (``detailed_<ts>.json``) → one qrels/run pair per chunker.

Each entry of the file is one (chunker, repo) with its ``queryResults``; chunk ids are
``<absolute path>:<start>-<end>``. Docnos are normalised to ``<repo>/<path in repo>:<start>-<end>``
(the absolute prefix is machine-specific; without the repo, ids collide across repos). The
qid is the ``taskId`` (``repo/N``), the repo is the stratum, and the qrels come from
``relevantChunkIds`` (complete: the producer judged every chunk of the corpus).
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
    number,
    qrels_summary,
    ranked_run,
)


def normalise_ids(ids: pd.Series, repo: pd.Series, report: Report) -> pd.Series:
    """``<repo>/<path inside repo>:<lines>`` from absolute chunk ids.

    The repo folder is located as the first ``/<repo>/`` in the path. Ids already relative
    (not starting with ``/``) get ``<repo>/`` prepended unless they start with it. An
    absolute id without its repo folder is kept as it is and reported.
    """
    ids = ids.astype(STR)
    repo = repo.astype(STR)
    marker = "/" + repo + "/"
    found = pd.Series([i.find(m) for i, m in zip(ids, marker, strict=True)], index=ids.index)
    relative = ~ids.str.startswith("/")
    has_prefix = pd.Series(
        [i.startswith(r + "/") for i, r in zip(ids, repo, strict=True)], index=ids.index
    )
    out = ids.copy()
    inside = found >= 0
    out[inside] = [i[f + 1 :] for i, f in zip(ids[inside], found[inside], strict=True)]
    prepend = ~inside & relative & ~has_prefix
    out[prepend] = repo[prepend] + "/" + ids[prepend]
    stray = ~inside & ~relative
    report.repair(
        "absolute chunk id outside its repo folder (kept unchanged)",
        ({"id": i} for i in pd.unique(ids[stray])),
    )
    return out


def convert_codechunk(detailed: str | os.PathLike, *, name: str | None = None) -> Conversion:
    """Convert a code-chunk ``detailed_*.json`` into qrels and a run per chunker.

    Qrels are named ``<name>-<chunker>`` (chunkers cut the corpus differently, so their
    relevant chunks differ); runs are tagged with the chunker.
    """
    path = Path(detailed)
    name = name or "codechunk"
    data = load_json(path)
    if not isinstance(data, list):
        raise InputError(str(path), None, "expected a JSON array of (chunker, repo) entries")
    report = Report()
    retrieved, relevant, producer = [], [], []
    strata = {}
    for index, entry in enumerate(data):
        where = f"[{index}]"
        if not isinstance(entry, dict) or not isinstance(entry.get("queryResults"), list):
            raise InputError(str(path), None, f"{where}: expected an object with queryResults")
        chunker = id_text(entry.get("chunker"), path, f"{where}.chunker")
        repo = id_text(entry.get("repo"), path, f"{where}.repo")
        for qindex, query in enumerate(entry["queryResults"]):
            here = f"{where}.queryResults[{qindex}]"
            qid = id_text(query.get("taskId"), path, f"{here}.taskId")
            strata[qid] = repo
            chunks = query.get("retrievedChunks") or []
            for position, chunk in enumerate(chunks):
                rank = chunk.get("rank")
                if rank is None:
                    rank = position + 1
                elif isinstance(rank, bool) or not isinstance(rank, int):
                    raise InputError(str(path), None, f"{here}: rank {rank!r} is not an integer")
                score = chunk.get("score")
                retrieved.append(
                    (
                        chunker,
                        repo,
                        qid,
                        id_text(chunk.get("id"), path, f"{here}.retrievedChunks[{position}].id"),
                        rank,
                        number(score, path, None, f"{here}.retrievedChunks[{position}].score"),
                    )
                )
            for position, chunk_id in enumerate(query.get("relevantChunkIds") or []):
                text = id_text(chunk_id, path, f"{here}.relevantChunkIds[{position}]")
                relevant.append((chunker, repo, qid, text))
            producer.append((chunker, qid, query.get("metrics")))
    if not retrieved and not relevant:
        raise InputError(str(path), None, "no query results")

    runs_frame = pd.DataFrame(
        retrieved, columns=["chunker", "repo", "qid", "docno", "order", "score"]
    )
    runs_frame["docno"] = normalise_ids(runs_frame["docno"], runs_frame["repo"], report)
    rel_frame = pd.DataFrame(relevant, columns=["chunker", "repo", "qid", "docno"])
    rel_frame["docno"] = normalise_ids(rel_frame["docno"], rel_frame["repo"], report)

    qrels, runs, info = {}, [], {}
    chunkers = list(dict.fromkeys([c for c, _, _ in producer]))
    for chunker in chunkers:
        tag = clean_tag(chunker)
        qrels_name = f"{name}-{tag}"
        chunker_qids = [q for c, q, _ in producer if c == chunker]
        table = make_qrels(
            rel_frame.loc[rel_frame["chunker"] == chunker, ["qid", "docno"]].assign(rel=1),
            qrels_name,
            report,
        )
        qrels[qrels_name] = table
        info[qrels_name] = qrels_summary(
            table,
            chunker_qids,
            report,
            f"query without relevant chunks ({chunker}; not in the qrels)",
        )
        rows = runs_frame.loc[runs_frame["chunker"] == chunker]
        runs.append(ranked_run(rows[["qid", "docno", "order", "score"]], tag, qrels_name, report))

    config = {str(e.get("chunker")): e.get("config") for e in data if isinstance(e, dict)}
    return Conversion(
        name=name,
        converter="code-chunk",
        qrels=qrels,
        runs=runs,
        report=report,
        strata=pd.DataFrame({"qid": list(strata), "repo": list(strata.values())}, dtype=STR),
        provenance={
            "inputs": [input_record(path, "detailed results")],
            "config": config,
            "producer_metrics": {
                chunker: {q: m for c, q, m in producer if c == chunker} for chunker in chunkers
            },
        },
        qrels_info=info,
    )
