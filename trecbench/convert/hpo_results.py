"""Phentrieve's result artefacts as run rows (see :mod:`trecbench.convert.hpo`):
``terms.jsonl`` (one line per candidate), ``cases.jsonl`` (one record per case) and
Chroma-style query results; the producer's gold ids checked against the test cases."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

import pandas as pd

from ..errors import InputError, UsageError
from ..escaping import escape_text, id_list
from ..naming import named_as
from ..sources import (
    At,
    JsonDocument,
    JsonLines,
    described,
    json_document,
    parse_json,
    parse_jsonl,
    read_source,
    source_text,
)
from .common import Report, escaped, input_stem, output_name, refuse_repeat
from .identifiers import RankPolicy

RESULT_FORMATS = ("terms", "cases", "chroma")
_GENERIC_STEMS = {"terms", "cases", "chroma", "results", "result", "run"}
# keys of a terms.jsonl or cases.jsonl record (a Chroma result is keyed by its cases)
_RECORD_KEYS = {"hpo_id", "retrieved_hpo_ids", "status"}


def read_results(path: str | os.PathLike, results_format: str | None):
    """``(format, parsed file)``: ``terms``/``cases`` (JSON lines, told apart by the first
    record's keys) or ``chroma`` (JSON) unless ``results_format`` is given: JSON lines
    when the name says ``.jsonl`` or the first line is a record by itself, whatever the
    file is called (a pipe, a ``.json`` name, a gzip file)."""
    if results_format is not None and results_format not in RESULT_FORMATS:
        raise UsageError(f"unknown results format {results_format!r}")
    source = read_source(path, "results")
    text = source_text(source)
    named = named_as(path, ".jsonl")  # terms.jsonl.bz2 too, not .gz alone
    jsonl = named or lines_of_results(text)
    if results_format == "chroma" or (results_format is None and not jsonl):
        doc = json_document(source, text)
        if _test_cases(doc.value):  # else "metadata.ids: expected an array of arrays..."
            raise InputError(doc.path, None, "test cases, not results: give them as CASES")
        return "chroma", doc
    doc = JsonLines(source, parse_jsonl(text, source.path))
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


def lines_of_results(text: str) -> bool:
    """Whether ``text`` is JSON lines of result records (a terms.jsonl or cases.jsonl, also
    when given as the test cases): its first non-blank line is a terms or cases record by
    itself (a Chroma result's first line is ``{`` or the whole
    ``{case: result}`` object, keyed by cases)."""
    try:  # with the limits against hostile JSON: json.loads let a deep array overflow
        record = parse_json(_first_line(text), "")
    except InputError:
        return False
    return result_record(record)


def result_record(value: Any) -> bool:
    """Whether a JSON value is a terms.jsonl or cases.jsonl record (has one of a record's
    keys)."""
    return isinstance(value, dict) and bool(_RECORD_KEYS & set(value))


def _test_cases(value: Any) -> bool:
    """Whether a JSON value is test cases (``{"test_cases": [...]}`` or an array of cases,
    each with ``expected_hpo_ids``), not Chroma results (keyed by case, each ``ids``)."""
    if isinstance(value, dict):
        return isinstance(value.get("test_cases"), list)
    first = value[0] if isinstance(value, list) and value else None
    return isinstance(first, dict) and "expected_hpo_ids" in first


def _first_line(text: str) -> str:
    """The first line of ``text`` that is not blank (without splitting the rest)."""
    start = 0
    while start < len(text):
        end = text.find("\n", start)
        end = len(text) if end < 0 else end
        if text[start:end].strip():
            return text[start:end]
        start = end + 1
    return ""


def terms_rows(doc: JsonLines) -> tuple[pd.DataFrame, dict[str, set[str]], list[str]]:
    """Run rows from ``terms.jsonl`` (one line per candidate, ordered by ``rank``), the
    candidates the producer marked ``is_gold`` per case (for :func:`check_gold`), and the
    cases in order."""
    rows = []
    gold: dict[str, set[str]] = {}
    ranks = RankPolicy("record")
    for at, record in doc:
        record = at.expect_object(record)
        qid = (at / "case_id").expect_id(record.get("case_id"))
        docno = (at / "hpo_id").expect_id(record.get("hpo_id"))
        rank = ranks.read(at, record.get("rank"), at.line)
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
    cases in order. Failed and not-evaluable cases have no run lines; each is reported. A
    case twice (whatever its status) is refused: its records would be merged into one
    query, or a case both failed and answered."""
    rows = []
    expected: dict[str, set[str]] = {}
    failed, not_evaluable, complete = [], [], []
    first: dict[str, str] = {}
    for at, record in doc:
        record = at.expect_object(record)
        qid = (at / "case_id").expect_id(record.get("case_id"))
        refuse_repeat(first, qid, at, "case_id", repr(qid))
        status = record.get("status", "complete")
        if status == "failed":
            error = _error_text(record.get("error"))
            failed.append({"qid": qid, "line": at.line, "error": error})
            continue
        if status == "not_evaluable":
            not_evaluable.append({"qid": qid, "line": at.line})
            continue
        if status != "complete":
            # JSON's words for a value not text: null, not Python's None
            found = repr(status) if isinstance(status, str) else described(status)
            raise (at / "status").error(
                f"unknown status {found} (complete, failed or not_evaluable)"
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
    if not complete and (failed or not_evaluable):
        _refuse_none_complete(doc, failed, not_evaluable)
    report.drop("failed case (no results; -c counts it as 0)", _as_written(failed))
    report.drop("case marked not_evaluable by the producer", _as_written(not_evaluable))
    return pd.DataFrame(rows, columns=["qid", "docno", "order", "score"]), expected, complete


def _error_text(error: Any) -> str:
    """A failed case's ``error`` as the sidecar keeps it: text as given, another JSON value
    in JSON's spelling (str() wrote Python's: {'code': 5}, True, None)."""
    if error is None:
        return ""
    return error if isinstance(error, str) else json.dumps(error, ensure_ascii=False)


def _refuse_none_complete(doc: JsonLines, failed: list[dict], not_evaluable: list[dict]) -> None:
    """Refuse a ``cases.jsonl`` of which no case completed, at its first line: "no retrieved
    document" said nothing of why (the ids a failed case lists are no results)."""
    counts = [f"{len(failed)} failed"] * bool(failed) + [
        f"{len(not_evaluable)} not_evaluable"
    ] * bool(not_evaluable)
    line = min(item["line"] for item in failed + not_evaluable)
    # the ids a failed case lists are the only ones a reader might have expected used
    unused = " (a failed case's retrieved_hpo_ids are not used)" if failed else ""
    raise InputError(
        doc.path,
        line,
        f"no case completed ({' and '.join(counts)}): no result to write as a run{unused}",
    )


def _as_written(items: list[dict]) -> list[dict]:
    """``items`` naming their ``qid`` as it is written (escaped), as every other entry of
    the sidecar names a query."""
    qids = escaped(item["qid"] for item in items)
    return [{**item, "qid": qid} for item, qid in zip(items, qids, strict=True)]


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
                    "producer_only": escaped(sorted(producer - expected)),
                    "test_cases_only": escaped(sorted(expected - producer)),
                }
            )
    report.repair(
        f"producer's gold ids differ from the test cases ({tag}; the test cases are used)",
        _as_written(differences),
    )


def refuse_unmatched(
    kind: str, doc: JsonLines | JsonDocument, answered: list[str], qids: list[str], cases: str
) -> None:
    """Refuse results of ``kind`` none of whose case ids is one of the test cases'
    (``qids``, of the file ``cases``), at the first record that names one: the results
    are at fault (another test set's), and the run would have no query to score. Every
    case id a record names counts (a failed case's, one that retrieved nothing): Chroma's
    are ``answered``, its result's keys."""
    if not set(answered).isdisjoint(qids):  # the usual case, told without reading again
        return
    if kind == "chroma":  # only {case id: result} names its cases
        named = [(doc.root / qid, qid) for qid in answered]
    else:
        named = [(at / "case_id", (at / "case_id").expect_id(r.get("case_id"))) for at, r in doc]
    if not named or not {qid for _, qid in named}.isdisjoint(qids):
        return
    place, first = named[0]
    # cases without a case_id are numbered by position: said, or "0" looks like a typo
    numbered = qids == [str(i) for i in range(len(qids))]
    hint = "; a case without a case_id is numbered by its position, from 0" if numbered else ""
    raise place.error(
        f"'{escape_text(first)}' matches no test case of {escape_text(cases)}, nor does any "
        f"other case id these results name (the test cases: {id_list(qids)}{hint})"
    )


def _chroma_one(result: Any, at: At, batch_index: int | None = None) -> list[tuple]:
    """Run rows ``(docno, order, score, clamped)`` (``clamped``: the cosine distance of a
    score clamped to [0, 1], else None) of one query of the Chroma result at ``at``: query
    ``batch_index`` of a batched result (a list per case), or (None) the one query of a
    case's own result, whose further lists would be left unread, so they are refused.
    Every column read holds as many lists as ``ids``."""
    result = at.expect_object(result)
    ids_at = at / "ids"
    outer = ids_at.expect_list(result.get("ids"), "an array of arrays of ids")
    if batch_index is None:
        if len(outer) != 1:
            raise ids_at.error(f"{len(outer)} query lists in one case's result (one expected)")
        batch_index = 0
    ids = (ids_at / batch_index).expect_ids(outer[batch_index])

    def column(key):
        value = result.get(key)
        if value is None:
            return None
        place = at / key
        value = place.expect_list(value, "an array of arrays")
        if len(value) != len(outer):
            raise place.error(f"{len(value)} lists where ids has {len(outer)} (one per query)")
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
            place = at / "metadatas" / batch_index / position
            meta = place.expect_object(meta)
            # an id as every id is read ("" and false refused, 7 is "7"); none (the key
            # left out, or null) leaves the Chroma id
            if meta.get("hpo_id") is not None:
                docno = (place / "hpo_id").expect_id(meta["hpo_id"])
        clamped = None  # the distance of a score clamped, reported (chroma_rows)
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
            if math.isnan(distance):  # null: no score, as a null similarity, not clamped
                score = distance
            elif score != 1.0 - distance:
                clamped = distance
        else:
            score = float("nan")
        rows.append((docno, position + 1, score, clamped))
    return rows


def chroma_rows(
    doc: JsonDocument, qids: list[str], tag: str, report: Report
) -> tuple[pd.DataFrame, list[str]]:
    """Run rows from Chroma-style results: one batched result aligned with the cases, a
    list of per-case results aligned with the cases, or ``{qid: result}``; and the cases
    answered, in order. A score clamped to [0, 1] (a cosine distance below 0, as rounding
    gives an exact match, or above 1) is reported: the documents it ties are ranked by
    docno, as trec_eval ranks ties, not by their distances."""
    data = doc.value
    root = doc.root
    if isinstance(data, dict) and "ids" in data:
        batches = (root / "ids").expect_list(data["ids"], "an array of arrays of ids")
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
    rows = [(qid, *row[:3]) for qid, result in per_query for row in result]
    clamped = [(qid, row) for qid, result in per_query for row in result if row[3] is not None]
    docnos = escaped((row[0] for _, row in clamped), "docno")
    items = [
        {"run": tag, "qid": qid, "docno": docno, "distance": row[3]}
        for (qid, row), docno in zip(clamped, docnos, strict=True)
    ]
    report.repair(
        "score clamped to [0, 1] from a cosine distance outside it (Phentrieve's "
        "clamp(1 - distance, 0, 1)): it ties documents their distances rank apart (the run "
        "keeps the producer's order; by the scores as clamped, trec_eval ranks them by docno)",
        _as_written(items),
    )
    frame = pd.DataFrame(rows, columns=["qid", "docno", "order", "score"])
    return frame, [q for q, _ in per_query]


def results_name(path: str | os.PathLike, report: Report) -> str:
    """The default name of the run read from a results ``path`` (:func:`output_name`):
    its stem, or its folder's when the stem is generic (``bm25/terms.jsonl``: ``bm25``;
    links not followed: a pipe ``/dev/fd/63`` is ``stdin``, as other converters name it,
    never the pipe's inode)."""
    stem = input_stem(path)
    if stem.lower() in _GENERIC_STEMS:
        stem = Path(os.path.abspath(path)).parent.name
    return output_name(stem, report, path, "--tag")
