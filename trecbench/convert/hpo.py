"""Phentrieve's HPO term-retrieval benchmark: test cases → qrels, result artefacts → runs.

Test cases are a bare JSON array of ``{"text", "expected_hpo_ids", ...}`` or the richer
``{"metadata": {...}, "test_cases": [...]}`` with optional ``case_id``, ``difficulty``,
``category``, ``hpo_domain`` and ``language``; both are checked against the shipped JSON
Schema ``phentrieve_test_cases`` (the plan's schema), errors naming the line and the case.
The qid is ``case_id`` when present, else the 0-based index (what Phentrieve's runner uses).
Runs come from ``terms.jsonl`` (one line per candidate), ``cases.jsonl`` (one record per
case with ``retrieved_hpo_ids``) or Chroma-style query results, plain or compressed.

Relevance is binary (1 per expected id) or, with ``graded="ontology"``, graded: the expected
term gets ``exact`` (2), its direct is_a parents ``parent`` (1) and children ``child`` (1)
(:data:`GRADES`; a term reached several ways keeps its highest grade).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from ..errors import InputError, TrecbenchError, UsageError
from ..ids import STR
from ..sources import At, JsonDocument, JsonLines, read_json, read_jsonl
from .common import (
    Conversion,
    Report,
    clean_tag,
    escaped,
    input_stem,
    make_qrels,
    qrels_summary,
    ranked_run,
)

CASES_SCHEMA = "phentrieve_test_cases"
STRATA_FIELDS = ("language", "difficulty", "category", "hpo_domain")
RESULT_FORMATS = ("terms", "cases", "chroma")
GRADINGS = ("ontology",)
GRADES = {"exact": 2, "parent": 1, "child": 1}
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


def _path_language(path: Path) -> str | None:
    words = [p.lower() for p in path.parent.parts]
    words += input_stem(path).lower().replace("-", "_").split("_")
    for word in reversed(words):
        if word in LANGUAGE_WORDS:
            return LANGUAGE_WORDS[word]
    return None


def check_cases(doc: JsonDocument) -> None:
    """Check test cases against the shipped schema; the first problem (in file order)
    becomes an error naming its line and path."""
    import jsonschema

    from ..report import load_schema

    validator = jsonschema.Draft202012Validator(load_schema(CASES_SCHEMA))
    errors = list(validator.iter_errors(doc.value))
    if errors:
        key = lambda e: [(isinstance(s, str), s) for s in e.absolute_path]  # noqa: E731
        first = min(errors, key=key)
        raise At(doc, tuple(first.absolute_path)).error(first.message)


def read_cases(path: str | os.PathLike, report: Report, language: str | None = None):
    """Parse a test-case file into ``(qrels rows, strata, qids in order, metadata, the
    input's record)``."""
    path = Path(path)
    doc = read_json(path, "cases")
    check_cases(doc)
    data = doc.value
    if isinstance(data, dict):
        metadata, cases = data.get("metadata") or {}, data["test_cases"]
        at = doc.root / "test_cases"
    else:
        metadata, cases, at = {}, data, doc.root
    default_language = language or metadata.get("language")
    if default_language is None:
        default_language = _path_language(path)
        if default_language is not None:
            report.note(f"language {default_language!r} inferred from the file's path")

    qids, rows, strata, places = [], [], [], {}
    for index, case in enumerate(cases):
        # the same id rule as the terms file's case_id: the schema lets 1.0 through as an
        # integer, and str() made it qid "1.0" where the terms' case_id 1 is "1"
        place = at / index / "case_id"
        qid = place.expect_id(case["case_id"]) if "case_id" in case else str(index)
        if qid in places:
            raise place.error(f"case_id {qid!r} is used twice (first at {places[qid]})")
        places[qid] = (at / index).place
        qids.append(qid)
        rows += [(qid, term) for term in case["expected_hpo_ids"]]
        fields = {"qid": qid, **{name: case.get(name) for name in STRATA_FIELDS}}
        if fields["language"] is None:
            fields["language"] = default_language
        strata.append(fields)
    if not qids:
        raise doc.root.error("no test cases")
    expected = pd.DataFrame(rows, columns=["qid", "docno"], dtype=STR).assign(rel=1)
    strata = pd.DataFrame(strata, dtype=STR)
    strata = strata[["qid"] + [c for c in STRATA_FIELDS if strata[c].notna().any()]]
    return expected, strata, qids, metadata, doc.source.record


def graded_qrels(expected: pd.DataFrame, ontology, grades: Mapping[str, int]) -> pd.DataFrame:
    """Graded judgments: each expected term ``grades["exact"]``, its direct is_a parents
    ``grades["parent"]`` and children ``grades["child"]`` (zero grades are left out);
    a term reached several ways keeps its highest grade, in order of first appearance."""
    rows = []
    for qid, term in zip(expected["qid"], expected["docno"], strict=True):
        rows.append((qid, term, grades["exact"]))
        rows += [(qid, parent, grades["parent"]) for parent in ontology.parents(term)]
        rows += [(qid, child, grades["child"]) for child in ontology.children(term)]
    frame = pd.DataFrame(rows, columns=["qid", "docno", "rel"]).astype({"qid": STR, "docno": STR})
    frame = frame[frame["rel"] > 0]
    best = frame.groupby(["qid", "docno"], sort=False)["rel"].max().reset_index()
    return best


# ---------------------------------------------------------------------------------------
# result artefacts


def read_results(path: str | os.PathLike, results_format: str | None):
    """``(format, parsed file)``: ``terms``/``cases`` (JSON lines, told apart by the first
    record's keys) or ``chroma`` (JSON); by the name (``.jsonl``, ``.jsonl.gz``) unless
    ``results_format`` is given."""
    if results_format is not None and results_format not in RESULT_FORMATS:
        raise UsageError(f"unknown results format {results_format!r}")
    jsonl = Path(str(path).removesuffix(".gz")).suffix.lower() == ".jsonl"
    if results_format == "chroma" or (results_format is None and not jsonl):
        return "chroma", read_json(path, "results (chroma)")
    doc = read_jsonl(path, "results")
    if results_format is not None:
        return results_format, doc
    if not doc.records:
        raise InputError(doc.path, None, "no records")
    line, first = doc.records[0]
    if isinstance(first, dict) and "hpo_id" in first:
        return "terms", doc
    if isinstance(first, dict) and ("retrieved_hpo_ids" in first or "status" in first):
        return "cases", doc
    raise InputError(
        doc.path, line, "neither a terms.jsonl (hpo_id) nor a cases.jsonl (status) record"
    )


def terms_rows(doc: JsonLines) -> tuple[pd.DataFrame, dict[str, set[str]], list[str]]:
    """Run rows from ``terms.jsonl`` (one line per candidate, ordered by ``rank``), the
    candidates the producer marked ``is_gold`` per case (for :func:`check_gold`), and the
    cases in order."""
    rows = []
    gold: dict[str, set[str]] = {}
    for at, record in doc:
        record = at.expect_object(record)
        qid = (at / "case_id").expect_id(record.get("case_id"))
        docno = (at / "hpo_id").expect_id(record.get("hpo_id"))
        rank = record.get("rank")
        rank = at.line if rank is None else (at / "rank").expect_integer(rank, 1)
        score = (at / "score").expect_number(record.get("score"))
        rows.append((qid, docno, rank, score))
        marked = record.get("is_gold")
        if marked is not None:
            if (at / "is_gold").expect_bool(marked):
                gold.setdefault(qid, set()).add(docno)
            else:
                gold.setdefault(qid, set())
    frame = pd.DataFrame(rows, columns=["qid", "docno", "order", "score"])
    return frame, gold, list(dict.fromkeys(frame["qid"]))


def cases_rows(
    doc: JsonLines, report: Report
) -> tuple[pd.DataFrame, dict[str, set[str]], list[str]]:
    """Run rows from ``cases.jsonl``: ``retrieved_hpo_ids`` of the completed cases in order,
    each completed case's ``expected_hpo_ids`` (for :func:`check_gold`), and the completed
    cases in order. Failed and not-evaluable cases have no run lines; each is reported."""
    rows = []
    expected: dict[str, set[str]] = {}
    failed, not_evaluable, complete = [], [], []
    for at, record in doc:
        record = at.expect_object(record)
        qid = (at / "case_id").expect_id(record.get("case_id"))
        status = record.get("status", "complete")
        if status == "failed":
            error = "" if record.get("error") is None else str(record["error"])
            failed.append({"qid": qid, "line": at.line, "error": error})
            continue
        if status == "not_evaluable":
            not_evaluable.append({"qid": qid, "line": at.line})
            continue
        if status != "complete":
            raise (at / "status").error(
                f"unknown status {status!r} (complete, failed or not_evaluable)"
            )
        complete.append(qid)
        retrieved = (at / "retrieved_hpo_ids").expect_ids(record.get("retrieved_hpo_ids"))
        scores = record.get("retrieved_scores")
        if scores is None:
            scores = [None] * len(retrieved)
        elif len((at / "retrieved_scores").expect_list(scores)) != len(retrieved):
            raise (at / "retrieved_scores").error(
                f"{len(scores)} scores for {len(retrieved)} retrieved_hpo_ids"
            )
        for position, (term, score) in enumerate(zip(retrieved, scores, strict=True)):
            value = (at / "retrieved_scores" / position).expect_number(score)
            rows.append((qid, term, position + 1, value))
        if record.get("expected_hpo_ids") is not None:
            ids = (at / "expected_hpo_ids").expect_ids(record["expected_hpo_ids"])
            expected[qid] = set(ids)
    report.drop("failed case (no results; -c counts it as 0)", failed)
    report.drop("case marked not_evaluable by the producer", not_evaluable)
    return pd.DataFrame(rows, columns=["qid", "docno", "order", "score"]), expected, complete


def check_gold(
    claimed: dict[str, set[str]],
    expected: pd.DataFrame,
    rows: pd.DataFrame,
    tag: str,
    report: Report,
    *,
    retrieved_only: bool,
) -> None:
    """Report cases where the producer's gold ids differ from the test cases' ``expected``
    ids (results made against another version of the test set). ``retrieved_only``: the
    producer only marked retrieved candidates (``is_gold``), so only those are compared."""
    truth = {qid: set(docs) for qid, docs in expected.groupby("qid")["docno"]}
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


def _chroma_one(result: Any, at: At, batch_index: int = 0) -> list[tuple]:
    result = at.expect_object(result)
    ids_at = at / "ids"
    outer = ids_at.expect_list(result.get("ids"), "a list of lists of ids")
    if len(outer) <= batch_index:
        raise ids_at.error(f"no list for query {batch_index}")
    ids = (ids_at / batch_index).expect_ids(outer[batch_index])

    def column(key):
        value = result.get(key)
        if value is None:
            return None
        place = at / key
        value = place.expect_list(value, "a list of lists")
        if len(value) <= batch_index:
            raise place.error(f"no list for query {batch_index}")
        inner = (place / batch_index).expect_list(value[batch_index])
        if len(inner) != len(ids):
            raise (place / batch_index).error(f"{len(inner)} values for {len(ids)} ids")
        return inner

    metadatas = column("metadatas") or [None] * len(ids)
    similarities = column("similarities")
    distances = column("distances")
    rows = []
    for position, (chunk_id, meta) in enumerate(zip(ids, metadatas, strict=True)):
        docno = chunk_id
        if meta is not None:
            meta = (at / "metadatas" / batch_index / position).expect_object(meta)
            if meta.get("hpo_id"):
                docno = (at / "metadatas" / batch_index / position / "hpo_id").expect_id(
                    meta["hpo_id"]
                )
        if similarities is not None:
            score = (at / "similarities" / batch_index / position).expect_number(
                similarities[position]
            )
        elif distances is not None:
            # Phentrieve: similarity = clamp(1 - cosine distance, 0, 1)
            distance = (at / "distances" / batch_index / position).expect_number(
                distances[position]
            )
            score = min(max(1.0 - distance, 0.0), 1.0)
        else:
            score = float("nan")
        rows.append((docno, position + 1, score))
    return rows


def chroma_rows(doc: JsonDocument, qids: list[str]) -> tuple[pd.DataFrame, list[str]]:
    """Run rows from Chroma-style results: one batched result aligned with the cases, a
    list of per-case results aligned with the cases, or ``{qid: result}``; and the cases
    answered, in order."""
    data = doc.value
    root = doc.root
    if isinstance(data, dict) and "ids" in data:
        batches = (root / "ids").expect_list(data["ids"], "a list of lists of ids")
        if len(batches) != len(qids):
            raise (root / "ids").error(
                f"batched result has {len(batches)} queries, cases {len(qids)}"
            )
        per_query = [(q, _chroma_one(data, root, i)) for i, q in enumerate(qids)]
    elif isinstance(data, list):
        if len(data) != len(qids):
            raise root.error(f"{len(data)} results for {len(qids)} cases")
        pairs = enumerate(zip(qids, data, strict=True))
        per_query = [(q, _chroma_one(r, root / i)) for i, (q, r) in pairs]
    else:
        data = root.expect_object(data)
        per_query = [((root / q).expect_id(q), _chroma_one(r, root / q)) for q, r in data.items()]
    rows = [(qid, *row) for qid, result in per_query for row in result]
    frame = pd.DataFrame(rows, columns=["qid", "docno", "order", "score"])
    return frame, [q for q, _ in per_query]


def default_tag(path: str | os.PathLike) -> str:
    """Run tag from a results path: its stem, or its folder when the stem is generic."""
    path = Path(path).resolve()
    stem = input_stem(path)
    return clean_tag(path.parent.name if stem.lower() in _GENERIC_STEMS else stem)


# ---------------------------------------------------------------------------------------
# ontology


def _load_ontology(ontology: str | os.PathLike | None):
    from ..ontology import load_ontology

    return load_ontology(ontology)


def check_ontology(ids: pd.Series, loaded, report: Report) -> dict:
    """Check HPO ids against the ontology release; report unknown and obsolete ones."""
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


def _grades(grades: Mapping[str, int] | None) -> dict[str, int]:
    chosen = {**GRADES, **(grades or {})}
    unknown = sorted(set(chosen) - set(GRADES))
    if unknown:
        raise UsageError(f"unknown grade {unknown[0]!r}: expected {', '.join(GRADES)}")
    for key, value in chosen.items():
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 1000:
            raise UsageError(f"grade {key}={value!r} must be an integer from 0 to 1000")
    if chosen["exact"] < 1:
        raise UsageError("the exact term's grade must be at least 1")
    return chosen


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
    graded: str | None = None,
    grades: Mapping[str, int] | None = None,
) -> Conversion:
    """Convert Phentrieve test cases (and optionally result artefacts) to qrels and runs.

    ``results`` are ``terms.jsonl``, ``cases.jsonl`` or Chroma JSON files, plain or compressed
    (format detected unless ``results_format`` is given); ``tags`` name the runs (default:
    from each path). ``check_ids`` checks every HPO id against ``ontology`` (hpo3's
    release when None). ``graded="ontology"`` grades the qrels by ontology neighbourhood
    with ``grades`` (default :data:`GRADES`).
    """
    if graded is not None and graded not in GRADINGS:
        raise UsageError(f"unknown grading {graded!r}: expected {', '.join(GRADINGS)}")
    grade_map = _grades(grades) if graded else None
    tags = list(tags)
    if tags and len(tags) != len(results):
        raise UsageError(f"{len(tags)} --tag for {len(results)} --results")
    report = Report()
    name = name or input_stem(cases)
    expected, strata, qids, metadata, record = read_cases(cases, report, language)
    loaded, ontology_info = _ontology_wanted(ontology, check_ids, graded, report)
    judged = graded_qrels(expected, loaded, grade_map) if graded else expected
    qrels = make_qrels(judged, name, report)
    info = qrels_summary(
        qrels,
        qids,
        report,
        "case without expected ids (not evaluable: not in the qrels, so no measure counts it)",
    )
    if graded:
        info["graded"] = {"by": graded, "grades": grade_map, "release": loaded.release}
    # evaluable cases as written (escaped, like info["without_relevant"]), in order
    empty = set(info["without_relevant"])
    evaluable = [q for q in escaped(qids) if q not in empty]
    runs = []
    inputs = [record]
    for index, path in enumerate(results):
        kind, doc = read_results(path, results_format)
        tag = clean_tag(tags[index]) if tags else default_tag(path)
        rows, answered = _result_rows(kind, doc, tag, expected, qids, report)
        runs.append(ranked_run(rows, tag, name, report, depth, queries=answered))
        inputs.append({**doc.source.record, "kind": f"results ({kind})"})
        _note_missing(tag, answered, evaluable, report)

    if check_ids and loaded is not None:
        ids = pd.concat([qrels["docno"]] + [r.table["docno"] for r in runs])
        ontology_info = check_ontology(ids, loaded, report)
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
            "options": {
                "depth": depth,
                "language": language,
                "graded": graded,
                "grades": grade_map,
            },
        },
        qrels_info={name: info},
    )


def _ontology_wanted(ontology, check_ids: bool, graded: str | None, report: Report):
    """``(the ontology or None, the sidecar's ontology record)``: loaded when ids are
    checked or graded; without one, ids go unchecked (said in a note) unless grading needs
    it or it was named."""
    loaded, ontology_info = None, {"checked": False, "reason": "disabled"}
    if check_ids or graded:
        try:
            loaded = _load_ontology(ontology)
        except (ImportError, TrecbenchError, OSError) as exc:
            if graded or ontology is not None:
                raise
            report.note(f"HPO ids not checked: no ontology available ({exc})")
            ontology_info = {"checked": False, "reason": str(exc)}
    return loaded, ontology_info


def _result_rows(kind: str, doc, tag: str, expected: pd.DataFrame, qids, report: Report):
    """``(run rows, cases answered)`` of one result file of ``kind``; the producer's gold
    ids checked against the test cases, queries not among them reported."""
    if kind == "terms":
        rows, gold, answered = terms_rows(doc)
        check_gold(gold, expected, rows, tag, report, retrieved_only=True)
    elif kind == "cases":
        rows, gold, answered = cases_rows(doc, report)
        check_gold(gold, expected, rows, tag, report, retrieved_only=False)
    else:
        rows, answered = chroma_rows(doc, qids)
    unknown = sorted(set(answered) - set(qids))
    report.drop(
        f"run query not among the test cases ({tag}; kept, but no measure counts it)",
        ({"run": tag, "qid": q} for q in unknown),
    )
    return rows, answered


def _note_missing(tag: str, answered, evaluable: list[str], report: Report) -> None:
    """A note when evaluable cases (as written) have no results in the run ``tag``."""
    written = set(escaped(answered))
    missing = [q for q in evaluable if q not in written]
    if missing:
        report.note(
            f"{tag}: {len(missing)} evaluable case(s) have no results; trec_eval averages "
            "over the run's queries unless -c counts them as 0"
        )
