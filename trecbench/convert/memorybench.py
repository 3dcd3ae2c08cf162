"""memorybench results (export JSON or ``results.db``, plain or compressed) → one qrels/run pair
per provider.

Relevance comes from one of memorybench's strategies, chosen per result in its priority
order (``relevance="auto"``) or forced for all:

* ``explicit`` (A): ``metadata.relevantIds`` / ``relevantChunkIds`` / ``groundTruthIds``
  / ``qrels`` (ids trimmed, empty ones dropped, as memorybench does): complete judgments.
* pack-owned (B): the benchmark pack's ``isRelevant`` on each retrieved chunk.
  ``pack`` for LoCoMo (a chunk's dialog ids, from its metadata, a ``[CTXID:...]`` prefix
  or ``D<n>:<n>`` in its id or content, meet ``metadata.evidence``) and LongMemEval (the
  chunk's corpus id contains ``answer`` but not ``noans``, or is one of
  ``metadata.answerCorpusIds``, possibly with a ``_<n>`` turn suffix; abstention items
  ``_abs`` have no relevant chunk). The number of relevant items is the evidence's or the
  answer corpus ids' count when given: relevant items nobody retrieved are added to the
  qrels as ``unretrieved-relevant-<n>`` so that trec_eval's ideal DCG uses memorybench's
  count. ``location`` is the code-retrieval packs' rule: a chunk is relevant when it is in
  the ground-truth file (normalised path, suffix match at ``/``, case-insensitive) and its
  lines overlap the ground truth, or reach line IoU ≥ ``iouThreshold`` when that is > 0;
  chunk lines are shifted by a per-provider offset (code-chunk-ast's are 0-based, other
  providers' 1-based, the ground truth 0-based).
* ``token-f1`` (C): a chunk is relevant when the token F1 between it and the expected
  answer reaches the threshold (memorybench's default 0.3; tokens: lower case, ``[^\\w\\s]``
  replaced by blanks, split on blanks, as sets).

Judgments other than explicit ones cover retrieved chunks only (**pooled**); without a
count of relevant items they know only the relevant chunks found (**found-only**): the
sidecar marks those qrels and carries the seed's warning that the ideal DCG may be
underestimated.
"""

from __future__ import annotations

import contextlib
import os
import re
import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd

from ..errors import InputError, UsageError
from ..ids import STR
from ..sources import At, Content, Rows, json_document, parse_json, read_source
from .common import (
    Conversion,
    Report,
    make_qrels,
    qrels_summary,
    ranked_run,
    unique_tag,
)

SQLITE_MAGIC = b"SQLite format 3\x00"
EXPLICIT_KEYS = ("relevantIds", "relevantChunkIds", "groundTruthIds", "qrels")
STRATEGIES = ("explicit", "pack", "location", "token-f1")
AUTO = "auto"
F1_THRESHOLD = 0.3  # memorybench's NDCGAtKMetric default
PACK_BENCHMARKS = ("locomo", "longmemeval")
NONE = "none"
_REQUIRED_COLUMNS = ("run_id", "provider", "item_id", "retrieved_context", "metadata")
_OPTIONAL_COLUMNS = ("benchmark", "expected")
_CTXID = re.compile(r"^\[CTXID:([^\]]+)\]\s*")
_DIALOG_ID = re.compile(r"D\d+:\d+")
_TURN_SUFFIX = re.compile(r"_(\d+)$")
# JavaScript's \s (memorybench tokenises in TypeScript) and its ASCII-only \w
_JS_SPACE = "\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
_JS_NOT_WORD = re.compile(f"[^A-Za-z0-9_{_JS_SPACE}]")
_JS_SPLIT = re.compile(f"[{_JS_SPACE}]+")


# ---------------------------------------------------------------------------------------
# reading


def _sqlite_rows(source: Content) -> tuple[Rows, list[tuple[At, dict]]]:
    """``(place, EvalResult dict)`` of each row of a ``results.db``, read from its bytes."""
    path = source.path
    try:
        with contextlib.closing(sqlite3.connect(":memory:")) as db:
            db.deserialize(source.data)  # the bytes already read: the file is read once
            columns = [row[1] for row in db.execute("PRAGMA table_info(results)")]
            missing = [c for c in _REQUIRED_COLUMNS if c not in columns]
            if missing:
                raise InputError(path, None, f"no results table with {', '.join(missing)}")
            wanted = list(_REQUIRED_COLUMNS) + [c for c in _OPTIONAL_COLUMNS if c in columns]
            rows = db.execute(f"SELECT rowid, {', '.join(wanted)} FROM results ORDER BY rowid")
            records = [dict(zip(["rowid", *wanted], row, strict=True)) for row in rows]
    except sqlite3.Error as exc:
        raise InputError(path, None, f"cannot read the results table: {exc}") from None
    table = Rows(source)
    out = []
    for number, row in enumerate(records, 1):
        at = table.row(f"row {number} (rowid {row['rowid']})")
        result = {
            "runId": row["run_id"],
            "benchmark": row.get("benchmark"),
            "provider": row["provider"],
            "itemId": row["item_id"],
            "expected": row.get("expected"),
            "retrievedContext": _json_column(row["retrieved_context"], at / "retrievedContext"),
            "metadata": _json_column(row["metadata"], at / "metadata"),
        }
        out.append((at, result))
    return table, out


def _json_column(text: Any, at: At) -> Any:
    if text is None:
        return None
    if not isinstance(text, str):
        raise at.error(f"expected JSON text, found {type(text).__name__}")
    try:
        return parse_json(text, at.doc.path)
    except InputError as exc:
        raise at.error(exc.message) from None


def read_results(path: str | os.PathLike) -> tuple[dict, list[tuple[At, Any]]]:
    """The input's record and ``(place, EvalResult)`` of each result, from an export JSON
    ``{run, results: [...]}`` or a ``results.db`` (SQLite, detected by its header)."""
    source = read_source(path, "memorybench results")
    if source.data.startswith(SQLITE_MAGIC):
        _, results = _sqlite_rows(source)
        return source.record, results
    doc = json_document(source)
    root = doc.root.expect_object(doc.value)
    results = (doc.root / "results").expect_list(root.get("results"))
    return doc.source.record, [(doc.root / "results" / i, r) for i, r in enumerate(results)]


# ---------------------------------------------------------------------------------------
# relevance rules


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


def tokens(text: str | None) -> set[str]:
    """memorybench's ``tokenize`` as a set: lower case, ``[^\\w\\s]`` → blank, split."""
    if not text:
        return set()
    return {t for t in _JS_SPLIT.split(_JS_NOT_WORD.sub(" ", text.lower())) if t}


def token_f1(expected: str | None, content: str | None) -> float:
    """Token F1 of a chunk against the expected answer, as memorybench's fallback computes
    it (sets; precision over the chunk's tokens, recall over the answer's)."""
    answer, chunk = tokens(expected), tokens(content)
    overlap = len(answer & chunk)
    precision = overlap / len(chunk) if chunk else 0.0
    recall = overlap / len(answer) if answer else 0.0
    return 0.0 if precision + recall == 0 else 2 * precision * recall / (precision + recall)


@dataclass
class Chunk:
    """One retrieved item: its docno, content and metadata (for the relevance rules)."""

    docno: str
    content: str | None
    meta: dict
    location: tuple[str, int, int] | None = None  # file, start and end line (type-checked)


def _listed(value: Any) -> list[str]:
    values = value if isinstance(value, list) else [value]
    return [str(v).strip() for v in values if str(v).strip()]


def locomo_relevant(evidence: Any, chunk: Chunk) -> bool:
    """LoCoMo's pack rule: a dialog id of the chunk is one of the evidence ids."""
    wanted = set(_listed(evidence)) if evidence else set()
    if not wanted:
        return False
    found = set()
    listed = chunk.meta.get("dialogIds")
    if isinstance(listed, list):
        found |= {i.strip() for i in listed if isinstance(i, str) and i.strip()}
    single = chunk.meta.get("dialogId", chunk.meta.get("dia_id"))
    if isinstance(single, str) and single.strip():
        found.add(single.strip())
    content = chunk.content or ""
    prefix = _CTXID.match(content)
    if prefix:
        found |= {i.strip() for i in prefix.group(1).split(",") if i.strip()}
    found |= set(_DIALOG_ID.findall(chunk.docno)) | set(_DIALOG_ID.findall(content))
    return not wanted.isdisjoint(found)


def longmemeval_relevant(item_id: str, meta: dict, chunk: Chunk) -> bool:
    """LongMemEval's pack rule: the chunk's corpus id contains ``answer`` (not ``noans``)
    or is an answer corpus id (possibly with a ``_<n>`` turn suffix); never for
    abstention items."""
    if "_abs" in item_id or meta.get("isAbstention") is True:
        return False
    corpus = chunk.meta.get("corpusId")
    if not isinstance(corpus, str) or not corpus:
        prefix = _CTXID.match(chunk.content or "")
        corpus = prefix.group(1) if prefix else chunk.docno
    lower = corpus.lower()
    if "noans" in lower:
        return False
    if "answer" in lower:
        return True
    answers = meta.get("answerCorpusIds")
    if isinstance(answers, list):
        known = {str(a) for a in answers}
        return corpus in known or _TURN_SUFFIX.sub("", corpus) in known
    return False


def pack_total(meta: dict) -> int | None:
    """The number of relevant items a pack knows from an item's metadata (memorybench's
    ``inferTotalRelevant``): the evidence's count, else the answer corpus ids'; None when
    only the relevant chunks found can be counted."""
    evidence = meta.get("evidence")
    if evidence is not None:
        if isinstance(evidence, list):
            return len(evidence)
        if isinstance(evidence, str) and evidence.strip():
            return 1
    answers = meta.get("answerCorpusIds")
    if isinstance(answers, list) and answers:
        return len(answers)
    return None


# ---------------------------------------------------------------------------------------
# conversion


@dataclass
class _Judged:
    """What one relevance strategy made of one result."""

    strategy: str
    rows: list[tuple[str, int]]  # (docno, grade)
    found_only: bool = False
    unretrieved: int = 0


def _explicit(meta: dict, at: At, report: Report, where: dict) -> list[str] | None:
    """memorybench's explicit ids (trimmed; empty ones dropped), or None when absent."""
    key = next((k for k in EXPLICIT_KEYS if meta.get(k) is not None), None)
    if key is None:
        return None
    place = at / key
    items = place.expect_list(meta[key], "a list of ids")
    ids = []
    for position, item in enumerate(items):
        text = (place / position).expect_id(item) if item != "" else ""
        if text.strip() != text:
            report.repair("blanks around an explicit relevant id removed", [{**where, "id": text}])
        if text.strip():
            ids.append(text.strip())
        else:
            report.drop("empty explicit relevant id", [{**where, "position": position}])
    return ids or None


def _location(
    truth: Any, chunks: list[Chunk], at: At, offset: int, iou: float | None,
    meta: dict, report: Report, where: dict,
) -> _Judged | None:  # fmt: skip
    if truth is None:
        return None
    truth = (at / "groundTruth").expect_object(truth)
    file = truth.get("file")
    if file is None:
        return None
    file = (at / "groundTruth" / "file").expect_string(file)
    gt_start = (at / "groundTruth" / "startLine").expect_integer(truth.get("startLine"))
    gt_end = (at / "groundTruth" / "endLine").expect_integer(truth.get("endLine"))
    threshold = iou
    if threshold is None:
        threshold = (at / "iouThreshold").expect_number(meta.get("iouThreshold"))
        threshold = 0.0 if threshold != threshold else threshold  # NaN: none given
    rows, no_location = [], []
    for chunk in chunks:
        if chunk.location is None:
            no_location.append({**where, "docno": chunk.docno})
            rows.append((chunk.docno, 0))
            continue
        chunk_file, start, end = chunk.location
        relevant = same_file(chunk_file, file) and line_relevant(
            start + offset, end + offset, gt_start, gt_end, threshold
        )
        rows.append((chunk.docno, int(relevant)))
    report.repair("retrieved chunk without file/lines (judged not relevant)", no_location)
    return _Judged("location", rows, found_only=True)


def _judge(
    requested: str,
    result: dict,
    meta: dict,
    chunks: list[Chunk],
    at: At,
    settings: dict,
    report: Report,
    where: dict,
) -> _Judged:
    """The judgments of one result by the requested strategy (``auto``: the first that
    applies, in memorybench's priority order)."""
    order = STRATEGIES if requested == AUTO else (requested,)
    for strategy in order:
        if strategy == "explicit":
            ids = _explicit(meta, at / "metadata", report, where)
            if ids is not None:
                return _Judged("explicit", [(i, 1) for i in ids])
        elif strategy == "pack":
            benchmark = result.get("benchmark")
            if benchmark == "locomo":
                evidence = meta.get("evidence")
                rows = [(c.docno, int(locomo_relevant(evidence, c))) for c in chunks]
            elif benchmark == "longmemeval":
                rows = [(c.docno, int(longmemeval_relevant(where["qid"], meta, c))) for c in chunks]
            else:
                continue
            total = pack_total(meta)
            found = len({d for d, r in rows if r})
            missing = max(0, total - found) if total is not None else 0
            taken, extra, n = {d for d, _ in rows}, [], 0
            while len(extra) < missing:  # stand-ins for the relevant items not retrieved
                n += 1
                if f"unretrieved-relevant-{n}" not in taken:
                    extra.append((f"unretrieved-relevant-{n}", 1))
            return _Judged("pack", rows + extra, total is None, missing)
        elif strategy == "location":
            judged = _location(
                meta.get("groundTruth"), chunks, at / "metadata",
                settings["offset"], settings["iou"], meta, report, where,
            )  # fmt: skip
            if judged is not None:
                return judged
        elif strategy == "token-f1":
            expected = result.get("expected")
            if isinstance(expected, str) and expected.strip():
                threshold = settings["f1_threshold"]
                rows = [(c.docno, int(token_f1(expected, c.content) >= threshold)) for c in chunks]
                return _Judged("token-f1", rows, found_only=True)
    return _Judged(NONE, [])


def _chunk_location(meta: dict, at: At) -> tuple[str, int, int] | None:
    """A chunk's file (``filepath``, else ``absolutePath``) and lines, checked here once:
    both its made-up docno and the location rule use them; None when one is missing."""
    key = "filepath" if "filepath" in meta else "absolutePath"
    file, start, end = meta.get(key), meta.get("startLine"), meta.get("endLine")
    if file is None or start is None or end is None:
        return None
    return (
        (at / key).expect_string(file),
        (at / "startLine").expect_integer(start),
        (at / "endLine").expect_integer(end),
    )


def _chunks(context: Any, at: At) -> tuple[list[Chunk], list[float]]:
    place = at / "retrievedContext"
    items = [] if context is None else place.expect_list(context)
    chunks, scores = [], []
    for position, item in enumerate(items):
        here = place / position
        item = here.expect_object(item)
        meta = item.get("metadata")
        meta = {} if meta is None else (here / "metadata").expect_object(meta)
        location = _chunk_location(meta, here / "metadata")
        docno = item.get("id")
        if docno is None and location is not None:
            docno = "{}:{}-{}".format(*location)
        docno = (here / "id").expect_id(docno)
        content = item.get("content")
        content = None if content is None else (here / "content").expect_string(content)
        scores.append((here / "score").expect_number(item.get("score")))
        chunks.append(Chunk(docno, content, meta, location))
    return chunks, scores


def convert_memorybench(
    source: str | os.PathLike,
    *,
    name: str | None = None,
    line_offsets: Mapping[str, int] | None = None,
    iou: float | None = None,
    relevance: str = AUTO,
    f1_threshold: float = F1_THRESHOLD,
) -> Conversion:
    """Convert memorybench results into a qrels/run pair per provider (tag = provider, or
    ``provider-runId`` when a provider has several runs).

    ``relevance`` is ``auto`` (memorybench's priority, per result) or one strategy for all
    (``explicit``, ``pack``, ``location``, ``token-f1``); results it cannot judge are
    reported and left out of the qrels. ``line_offsets`` maps a provider to the number added
    to its chunks' line numbers (e.g. ``-1`` for 1-based providers against 0-based ground
    truth); ``iou`` overrides each item's ``iouThreshold``; ``f1_threshold`` is the token-F1
    strategy's threshold.
    """
    if relevance not in (AUTO, *STRATEGIES):
        raise UsageError(f"unknown relevance strategy {relevance!r}")
    if not 0 <= f1_threshold <= 1:
        raise UsageError(f"the F1 threshold must be between 0 and 1, not {f1_threshold}")
    if iou is not None and not 0 <= iou <= 1:  # NaN too: it passes click's FloatRange
        raise UsageError(f"the IoU threshold must be between 0 and 1, not {iou}")
    name = name or "memorybench"
    offsets = dict(line_offsets or {})
    report = Report()
    record, results = read_results(source)
    if not results:
        raise InputError(str(source), None, "no results")

    parsed = []
    for at, result in results:
        result = at.expect_object(result)
        provider = (at / "provider").expect_id(result.get("provider"))
        run_id = result.get("runId")
        run_id = None if run_id is None else (at / "runId").expect_id(run_id)
        benchmark = result.get("benchmark")
        if benchmark is not None:
            (at / "benchmark").expect_string(benchmark)
        qid = (at / "itemId").expect_id(result.get("itemId"))
        expected = result.get("expected")
        if expected is not None and not isinstance(expected, str):
            (at / "expected").expect_string(expected)
        meta = result.get("metadata")
        meta = {} if meta is None else (at / "metadata").expect_object(meta)
        parsed.append((at, result, provider, run_id, qid, meta))
    runs_of: dict[str, set] = {}
    for _, _, provider, run_id, _, _ in parsed:
        runs_of.setdefault(provider, set()).add(run_id)
    unknown_offsets = sorted(set(offsets) - set(runs_of))
    if unknown_offsets:
        report.note(f"--line-offset for absent provider(s): {', '.join(unknown_offsets)}")

    retrieved, judged, strata, seen = [], [], {}, {}
    per_tag: dict[str, dict] = {}
    owners: dict[str, str] = {}  # run tag -> the provider (or provider-runId) it is for
    for at, result, provider, run_id, qid, meta in parsed:
        single = len(runs_of[provider]) == 1
        tag = provider if single else f"{provider}-{run_id}"
        if (tag, qid) in seen:
            raise (at / "itemId").error(
                f"itemId {qid!r} appears twice in run {tag!r} (first at {seen[tag, qid]})"
            )
        seen[tag, qid] = at.place
        repo = meta.get("repo")
        strata[qid] = None if repo is None else (at / "metadata" / "repo").expect_id(repo)
        state = per_tag.get(tag)
        if state is None:
            what, field = ("provider", "provider") if single else ("provider-runId", "runId")
            run_tag = unique_tag(tag, owners, at / field, what)
            state = per_tag[tag] = (
                {"provider": provider, "run_tag": run_tag, "qids": [],
                 "strategies": dict.fromkeys((*STRATEGIES, NONE), 0),
                 "found_only": 0, "unretrieved": 0}
            )  # fmt: skip
        chunks, scores = _chunks(result.get("retrievedContext"), at)
        settings = {"offset": offsets.get(provider, 0), "iou": iou, "f1_threshold": f1_threshold}
        where = {"run": state["run_tag"], "qid": qid}
        outcome = _judge(relevance, result, meta, chunks, at, settings, report, where)
        state["qids"].append(qid)
        state["strategies"][outcome.strategy] += 1
        state["found_only"] += outcome.found_only
        state["unretrieved"] += outcome.unretrieved
        if outcome.strategy == NONE:
            report.drop(f"item not judged (relevance {relevance}: no strategy applies)", [where])
        judged += [(tag, qid, docno, grade) for docno, grade in outcome.rows]
        retrieved += [
            (tag, qid, chunk.docno, position, score)
            for position, (chunk, score) in enumerate(zip(chunks, scores, strict=True))
        ]

    run_rows = pd.DataFrame(retrieved, columns=["tag", "qid", "docno", "order", "score"])
    judgments = pd.DataFrame(judged, columns=["tag", "qid", "docno", "rel"])
    qrels, runs, info = {}, [], {}
    for tag, state in per_tag.items():
        qrels_name = f"{name}-{state['run_tag']}"
        table = make_qrels(
            judgments.loc[judgments["tag"] == tag, ["qid", "docno", "rel"]], qrels_name, report
        )
        counts = {k: v for k, v in state["strategies"].items() if v}
        pooled = any(counts.get(k) for k in ("pack", "location", "token-f1"))
        qrels[qrels_name] = table
        info[qrels_name] = qrels_summary(
            table,
            state["qids"],
            report,
            f"query without a relevant document ({tag}; not in the qrels)",
            pooled=pooled,
            found_only=state["found_only"] > 0,
            relevance=counts,
            unretrieved_relevant=state["unretrieved"],
            line_offset=offsets.get(state["provider"], 0),
        )
        if state["found_only"]:
            report.note(
                f"{qrels_name}: {state['found_only']} of {len(state['qids'])} queries judged "
                "found-only (the relevant items nobody retrieved are unknown): the ideal DCG "
                "may be underestimated"
            )
        rows = run_rows.loc[run_rows["tag"] == tag, ["qid", "docno", "order", "score"]]
        runs.append(ranked_run(rows, state["run_tag"], qrels_name, report, queries=state["qids"]))

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
            "inputs": [record],
            "options": {
                "relevance": relevance,
                "f1_threshold": f1_threshold,
                "line_offsets": offsets,
                "iou": iou,
            },
        },
        qrels_info=info,
    )
