"""Phentrieve's HPO term-retrieval benchmark: test cases → qrels, result artefacts → runs.

Test cases are a bare JSON array of ``{"text", "expected_hpo_ids", ...}`` or the richer
``{"metadata": {...}, "test_cases": [...]}`` with optional ``case_id``, ``difficulty``,
``category``, ``hpo_domain`` and ``language``. The qid is ``case_id`` when present, else the
0-based index (what Phentrieve's runner uses). Runs come from ``terms.jsonl`` (one line per
candidate), ``cases.jsonl`` (one record per case with ``retrieved_hpo_ids``) or Chroma-style
query results; see the README's convert section.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Any

import pandas as pd

from ..errors import InputError, TrecbenchError
from ..report import input_record
from .common import (
    STR,
    Conversion,
    Report,
    clean_tag,
    id_text,
    iter_jsonl,
    load_json,
    load_jsonl,
    make_qrels,
    number,
    qrels_summary,
    ranked_run,
)

STRATA_FIELDS = ("language", "difficulty", "category", "hpo_domain")
RESULT_FORMATS = ("terms", "cases", "chroma")
# Folder or file-name words that name the benchmark's language (Phentrieve keeps each
# language's cases in its own folder, e.g. ``german/``).
LANGUAGE_WORDS = {
    "german": "de",
    "english": "en",
    "french": "fr",
    "spanish": "es",
    "italian": "it",
    "dutch": "nl",
    "portuguese": "pt",
}
_GENERIC_STEMS = {"terms", "cases", "chroma", "results", "result", "run"}


def _stratum(value: Any) -> str | None:
    if value is None or value == "":
        return None
    if isinstance(value, list):
        return "+".join(str(v) for v in value) or None
    return str(value)


def _path_language(path: Path) -> str | None:
    words = [p.lower() for p in path.parent.parts]
    words += path.stem.lower().replace("-", "_").split("_")
    for word in reversed(words):
        if word in LANGUAGE_WORDS:
            return LANGUAGE_WORDS[word]
    return None


def read_cases(path: str | os.PathLike, report: Report, language: str | None = None):
    """Parse a test-case file into ``(qrels rows, strata, qids in order, metadata)``."""
    path = Path(path)
    data = load_json(path)
    metadata: dict = {}
    if isinstance(data, dict) and isinstance(data.get("test_cases"), list):
        metadata = data.get("metadata") or {}
        cases = data["test_cases"]
        where = "test_cases"
    elif isinstance(data, list):
        cases = data
        where = ""
    else:
        raise InputError(
            str(path), None, "expected a JSON array of test cases or {metadata, test_cases}"
        )
    default_language = language or _stratum(metadata.get("language"))
    if default_language is None:
        default_language = _path_language(path)
        if default_language is not None:
            report.note(f"language {default_language!r} inferred from the file's path")

    qids, rows, strata = [], [], []
    stripped = []
    for index, case in enumerate(cases):
        here = f"{where}[{index}]"
        if not isinstance(case, dict):
            raise InputError(str(path), None, f"{here}: expected an object")
        qid = id_text(case["case_id"], path, f"{here}.case_id") if "case_id" in case else str(index)
        expected = case.get("expected_hpo_ids")
        if not isinstance(expected, list):
            raise InputError(str(path), None, f"{here}: expected_hpo_ids must be a list")
        qids.append(qid)
        for position, term in enumerate(expected):
            text = id_text(term, path, f"{here}.expected_hpo_ids[{position}]")
            if text != text.strip():
                stripped.append({"qid": qid, "from": text, "to": text.strip()})
            rows.append((qid, text.strip()))
        fields = {"qid": qid}
        for name in STRATA_FIELDS:
            fields[name] = _stratum(case.get(name))
        if fields["language"] is None:
            fields["language"] = default_language
        strata.append(fields)
    if stripped:
        report.repair("whitespace around an HPO id removed", stripped)
    duplicated = pd.Series(qids)[pd.Series(qids).duplicated()]
    if len(duplicated):
        raise InputError(str(path), None, f"case_id {duplicated.iloc[0]!r} is used twice")
    if not qids:
        raise InputError(str(path), None, "no test cases")
    expected = pd.DataFrame(rows, columns=["qid", "docno"], dtype=STR).assign(rel=1)
    strata = pd.DataFrame(strata, dtype=STR)
    strata = strata[["qid"] + [c for c in STRATA_FIELDS if strata[c].notna().any()]]
    return expected, strata, qids, metadata


# ---------------------------------------------------------------------------------------
# result artefacts


def detect_format(path: str | os.PathLike) -> str:
    """``terms``, ``cases`` or ``chroma``: from the first record's keys (or the extension).

    Only the first record is read; the reader of the detected format parses the file.
    """
    path = Path(path)
    if path.suffix.lower() != ".jsonl":
        return "chroma"
    with contextlib.closing(iter_jsonl(path)) as records:
        line, first = next(records, (None, None))
    if first is None:
        raise InputError(str(path), None, "no records")
    if "hpo_id" in first:
        return "terms"
    if "retrieved_hpo_ids" in first or "status" in first:
        return "cases"
    raise InputError(
        str(path), line, "neither a terms.jsonl (hpo_id) nor a cases.jsonl (status) record"
    )


def _require(record: dict, key: str, path, line) -> Any:
    if key not in record:
        raise InputError(str(path), line, f"missing {key!r}")
    return record[key]


def terms_rows(path: str | os.PathLike) -> tuple[pd.DataFrame, dict[str, set[str]]]:
    """Run rows from ``terms.jsonl`` (one line per candidate, ordered by ``rank``), and the
    candidates the producer marked ``is_gold`` per case (for :func:`check_gold`)."""
    rows = []
    gold: dict[str, set[str]] = {}
    for line, record in load_jsonl(path):
        qid = id_text(_require(record, "case_id", path, line), path, f"line {line}: case_id")
        docno = id_text(_require(record, "hpo_id", path, line), path, f"line {line}: hpo_id")
        rank = record.get("rank")
        if rank is not None and (isinstance(rank, bool) or not isinstance(rank, int)):
            raise InputError(str(path), line, f"rank {rank!r} is not an integer")
        score = number(record.get("score"), path, line, "score")
        rows.append((qid, docno, line if rank is None else rank, score))
        if record.get("is_gold") is not None:
            marked = gold.setdefault(qid, set())
            if record["is_gold"]:
                marked.add(docno)
    return pd.DataFrame(rows, columns=["qid", "docno", "order", "score"]), gold


def cases_rows(path: str | os.PathLike, report: Report) -> tuple[pd.DataFrame, dict[str, set[str]]]:
    """Run rows from ``cases.jsonl``: ``retrieved_hpo_ids`` of the completed cases in order,
    and each completed case's ``expected_hpo_ids`` (for :func:`check_gold`).

    Failed and not-evaluable cases have no run lines; each is reported with its error.
    """
    rows = []
    expected: dict[str, set[str]] = {}
    failed, not_evaluable = [], []
    for line, record in load_jsonl(path):
        qid = id_text(_require(record, "case_id", path, line), path, f"line {line}: case_id")
        status = record.get("status", "complete")
        if status == "failed":
            failed.append({"qid": qid, "line": line, "error": str(record.get("error", ""))})
            continue
        if status == "not_evaluable":
            not_evaluable.append({"qid": qid, "line": line})
            continue
        if status != "complete":
            raise InputError(str(path), line, f"unknown status {status!r}")
        retrieved = _require(record, "retrieved_hpo_ids", path, line)
        scores = record.get("retrieved_scores") or [None] * len(retrieved)
        if not isinstance(retrieved, list) or len(scores) != len(retrieved):
            raise InputError(str(path), line, "retrieved_hpo_ids must be a list (scores aligned)")
        for position, (term, score) in enumerate(zip(retrieved, scores, strict=True), 1):
            docno = id_text(term, path, f"line {line}: retrieved_hpo_ids[{position - 1}]")
            rows.append((qid, docno, position, number(score, path, line, "score")))
        if isinstance(record.get("expected_hpo_ids"), list):
            expected[qid] = {str(t) for t in record["expected_hpo_ids"]}
    report.drop("failed case (no results; -c counts it as 0)", failed)
    report.drop("case marked not_evaluable by the producer", not_evaluable)
    return pd.DataFrame(rows, columns=["qid", "docno", "order", "score"]), expected


def check_gold(
    claimed: dict[str, set[str]],
    qrels: pd.DataFrame,
    rows: pd.DataFrame,
    tag: str,
    report: Report,
    *,
    retrieved_only: bool,
) -> None:
    """Report cases where the producer's gold ids differ from the test cases' (results made
    against another version of the test set). ``retrieved_only``: the producer only marked
    retrieved candidates (``is_gold``), so only those are compared."""
    truth = {qid: set(docs) for qid, docs in qrels.groupby("qid")["docno"]}
    seen = {qid: set(docs) for qid, docs in rows.groupby("qid")["docno"]}
    differences = []
    for qid, producer in claimed.items():
        expected = truth.get(qid, set())
        if retrieved_only:
            expected = expected & seen.get(qid, set())
        if producer != expected:
            differences.append(
                {
                    "run": tag,
                    "qid": qid,
                    "producer_only": sorted(producer - expected),
                    "test_cases_only": sorted(expected - producer),
                }
            )
    report.repair(
        f"producer's gold ids differ from the test cases ({tag}; the test cases are used)",
        differences,
    )


def _chroma_one(result: Any, path, where: str, batch_index: int = 0) -> list[tuple]:
    if not isinstance(result, dict) or "ids" not in result:
        raise InputError(str(path), None, f"{where}: expected a Chroma result with 'ids'")

    def column(key):
        value = result.get(key)
        if value is None:
            return None
        if not isinstance(value, list) or len(value) <= batch_index:
            raise InputError(str(path), None, f"{where}.{key}: expected a list of lists")
        inner = value[batch_index]
        if not isinstance(inner, list) or len(inner) != len(result["ids"][batch_index]):
            raise InputError(str(path), None, f"{where}.{key}: lengths differ from ids")
        return inner

    ids = column("ids")
    metadatas = column("metadatas") or [None] * len(ids)
    similarities = column("similarities")
    distances = column("distances")
    rows = []
    for position, (chunk_id, meta) in enumerate(zip(ids, metadatas, strict=True)):
        term = meta.get("hpo_id") if isinstance(meta, dict) and meta.get("hpo_id") else chunk_id
        docno = id_text(term, path, f"{where}.ids[{batch_index}][{position}]")
        if similarities is not None:
            score = number(similarities[position], path, None, "similarity")
        elif distances is not None:
            # Phentrieve: similarity = clamp(1 - cosine distance, 0, 1)
            score = min(max(1.0 - number(distances[position], path, None, "distance"), 0), 1)
        else:
            score = float("nan")
        rows.append((docno, position + 1, score))
    return rows


def chroma_rows(path: str | os.PathLike, qids: list[str]) -> pd.DataFrame:
    """Run rows from Chroma-style results: one batched result aligned with the cases, a
    list of per-case results aligned with the cases, or ``{qid: result}``."""
    data = load_json(path)
    per_query: list[tuple[str, list[tuple]]] = []
    if isinstance(data, dict) and "ids" in data:
        batches = data["ids"]
        if not isinstance(batches, list) or len(batches) != len(qids):
            raise InputError(
                str(path), None, f"batched result has {len(batches)} queries, cases {len(qids)}"
            )
        per_query = [(q, _chroma_one(data, path, "result", i)) for i, q in enumerate(qids)]
    elif isinstance(data, list):
        if len(data) != len(qids):
            raise InputError(str(path), None, f"{len(data)} results for {len(qids)} cases")
        per_query = [
            (q, _chroma_one(r, path, f"[{i}]"))
            for i, (q, r) in enumerate(zip(qids, data, strict=True))
        ]
    elif isinstance(data, dict):
        per_query = [(str(q), _chroma_one(r, path, f"[{q!r}]")) for q, r in data.items()]
    else:
        raise InputError(str(path), None, "expected Chroma query results")
    rows = [(qid, *row) for qid, result in per_query for row in result]
    return pd.DataFrame(rows, columns=["qid", "docno", "order", "score"])


def default_tag(path: str | os.PathLike) -> str:
    """Run tag from a results path: its stem, or its folder when the stem is generic."""
    path = Path(path).resolve()
    stem = path.stem
    return clean_tag(path.parent.name if stem.lower() in _GENERIC_STEMS else stem)


# ---------------------------------------------------------------------------------------
# ontology


def check_ontology(ids: pd.Series, ontology: str | os.PathLike | None, report: Report) -> dict:
    """Check HPO ids against the ontology release; report unknown and obsolete ones.

    Never fails the conversion: when no ontology can be loaded the check is skipped and
    the sidecar says so.
    """
    try:
        from ..ontology import load_ontology

        loaded = load_ontology(ontology)
    except (ImportError, TrecbenchError, OSError) as exc:
        report.note(f"HPO ids not checked: no ontology available ({exc})")
        return {"checked": False, "reason": str(exc)}
    status = loaded.status(pd.unique(ids.dropna()))
    found = {s: sorted(t for t, v in status.items() if v == s) for s in ("unknown", "obsolete")}
    for kind, terms in found.items():
        if terms:
            hint = " (absent from this release; a newer one may have them)" * (kind == "unknown")
            report.note(
                f"{len(terms)} {kind} HPO id(s) in HPO {loaded.release}{hint}: "
                + ", ".join(terms[:10])
                + (" ..." if len(terms) > 10 else "")
            )
    return {"checked": True, **loaded.info(), **found}


# ---------------------------------------------------------------------------------------
# conversion


def convert_hpo(
    cases: str | os.PathLike,
    results: list[str | os.PathLike] = (),
    *,
    tags: list[str] = (),
    name: str | None = None,
    depth: int | None = None,
    results_format: str | None = None,
    language: str | None = None,
    ontology: str | os.PathLike | None = None,
    check_ids: bool = True,
) -> Conversion:
    """Convert Phentrieve test cases (and optionally result artefacts) to qrels and runs.

    ``results`` are ``terms.jsonl``, ``cases.jsonl`` or Chroma JSON files (format detected
    unless ``results_format`` is given); ``tags`` name the runs (default: from each path).
    ``check_ids`` checks every HPO id against ``ontology`` (hpo3's release when None).
    """
    report = Report()
    cases = Path(cases)
    name = name or cases.stem
    expected, strata, qids, metadata = read_cases(cases, report, language)
    qrels = make_qrels(expected, name, report)
    info = qrels_summary(
        qrels,
        qids,
        report,
        "case without expected ids (not evaluable: not in the qrels, so no measure counts it)",
    )
    empty = info["without_relevant"]
    tags = list(tags)
    if tags and len(tags) != len(results):
        raise InputError(str(cases), None, f"{len(tags)} --tag for {len(results)} --results")
    runs = []
    inputs = [input_record(cases, "cases")]
    for index, path in enumerate(results):
        kind = results_format or detect_format(path)
        if kind not in RESULT_FORMATS:
            raise InputError(str(path), None, f"unknown results format {kind!r}")
        tag = clean_tag(tags[index]) if tags else default_tag(path)
        if kind == "terms":
            rows, gold = terms_rows(path)
            check_gold(gold, qrels, rows, tag, report, retrieved_only=True)
        elif kind == "cases":
            rows, gold = cases_rows(path, report)
            check_gold(gold, qrels, rows, tag, report, retrieved_only=False)
        else:
            rows = chroma_rows(path, qids)
        unknown = sorted(set(rows["qid"]) - set(qids))
        report.drop(
            f"run query not among the test cases ({tag}; kept, but no measure counts it)",
            ({"run": tag, "qid": q} for q in unknown),
        )
        runs.append(ranked_run(rows, tag, name, report, depth))
        inputs.append(input_record(path, f"results ({kind})"))
        answered = set(rows["qid"]) | set(empty)
        missing = [q for q in qids if q not in answered]
        if missing:
            report.note(
                f"{tag}: {len(missing)} evaluable case(s) have no results; trec_eval averages "
                "over the run's queries unless -c counts them as 0"
            )

    ontology_info = {"checked": False, "reason": "disabled"}
    if check_ids:
        ids = pd.concat([qrels["docno"]] + [r.table["docno"] for r in runs])
        ontology_info = check_ontology(ids, ontology, report)
    return Conversion(
        name=name,
        converter="hpo",
        qrels={name: qrels},
        runs=runs,
        report=report,
        strata=strata,
        provenance={
            "inputs": inputs,
            "metadata": metadata,
            "ontology": ontology_info,
            "options": {"depth": depth, "language": language},
        },
        qrels_info={name: info},
    )
