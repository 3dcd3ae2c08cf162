"""Plain ranked lists (RAG evaluators such as remem's ``retrieval_eval``) → qrels and a run.

Input: ``{"gold_docs": [[...], ...], "retrieved_chunks": [[...], ...], "query_ids"?: [...]}``,
lists aligned by position; the qid is the position (0-based) when ``query_ids`` is absent.
Any other key is refused (a misspelt ``query_ids`` would number the queries silently).

``match="ids"`` (default): the entries are ids; a retrieved id is relevant when it equals a
gold id (what remem's Recall@k computes). ``match="chunks"``: the entries are texts; each
retrieved chunk is assigned to the gold document it comes from by remem's rules
(:mod:`trecbench.convert.chunks`, what remem's Recall_all@k and NDCG_any@k use). Gold
document ``j`` of a query becomes the docno ``gold-j`` and a chunk assigned to none (or to a
document already retrieved) ``chunk-i`` (``i``: its 0-based position), so ranks never move;
every assignment and its rule go to the sidecar's ``matching`` section.
"""

from __future__ import annotations

import enum
import numbers
import os

import pandas as pd

from ..errors import UsageError
from ..ids import STR
from ..naming import path_argument
from ..plurals import counted
from ..resource_bounds import depth_from
from ..sources import At, JsonDocument, read_json
from .chunks import FUZZY_THRESHOLD, RULES, assign, empty_text
from .common import (
    Conversion,
    Report,
    escaped,
    make_qrels,
    qrels_summary,
    ranked_run,
    refuse_repeat,
    single_input_names,
)

MATCHES = ("ids", "chunks")
LIST_KEYS = ("gold_docs", "retrieved_chunks", "query_ids")


def _lists(at: At, value, texts: bool, gold: bool) -> list[list[str]]:
    outer = at.expect_list(value, "an array of arrays")
    out = []
    for i, inner in enumerate(outer):
        place = at / i
        items = place.expect_list(inner)
        if texts:
            out.append([_text(place / j, item, gold) for j, item in enumerate(items)])
        else:
            out.append([(place / j).expect_id(item) for j, item in enumerate(items)])
    return out


def _text(at: At, value, gold: bool) -> str:
    """A text of ``--match chunks``; an empty gold document is refused (every chunk
    would come from it, as ``--match ids`` refuses an empty id)."""
    text = at.expect_string(value)
    if gold and not text:
        raise at.error("empty gold document (every chunk's text is found in it)")
    return text


def _matched(
    qids: list[str], gold: list[list[str]], retrieved: list[list[str]], fuzzy, report: Report
) -> tuple[list, list, dict]:
    """Qrels rows, run rows and the sidecar's ``matching`` section of chunk matching; the
    sidecar names each query as the files write it (escaped)."""
    gold_rows, run_rows, assignments = [], [], {}
    counts = dict.fromkeys((*RULES, "repeat", "ambiguous", "unmatched", "empty"), 0)
    for qid, written, documents, chunks in zip(qids, escaped(qids), gold, retrieved, strict=True):
        unique = list(dict.fromkeys(documents))
        report.drop(
            "duplicate gold document in a query (same text; counted once)",
            (
                {"qid": written, "gold": j}
                for j, t in enumerate(documents)
                if documents.index(t) != j
            ),
        )
        gold_rows += [(qid, f"gold-{documents.index(text)}", 1) for text in unique]
        result = assign(unique, chunks, fuzzy)
        for item in result:
            if item.gold is None:
                counts["unmatched"] += 1
                counts["empty"] += empty_text(chunks[item.chunk])
                docno = f"chunk-{item.chunk}"
            else:
                item.gold = documents.index(unique[item.gold])  # position in the input
                item.also = [documents.index(unique[g]) for g in item.also]
                counts["repeat" if item.repeat else item.rule] += 1
                counts["ambiguous"] += bool(item.also)
                docno = f"chunk-{item.chunk}" if item.repeat else f"gold-{item.gold}"
            run_rows.append((qid, docno, item.chunk + 1, float("nan")))  # chunk-i's rank
        assignments[written] = [item.as_dict() for item in result if item.gold is not None]
    section = {
        "mode": "chunks",
        "rules": (
            "remem's is_chunk_from_original (a first 'Date: ' line dropped; after 'user: ' or "
            "'assistant: ' the text up to the next ': '; exact substring, then its JSON-escaped "
            "form), then fuzzy: rapidfuzz.fuzz.partial_ratio (ratio for a chunk longer than "
            "the document) >= fuzzy_threshold"
        ),
        "fuzzy_threshold": fuzzy,
        "rapidfuzz": _rapidfuzz_version() if fuzzy is not None else None,
        "docnos": "gold-<j>: gold document j of the query; chunk-<i>: retrieved chunk i not "
        "assigned to a gold document (or a repeat of one already retrieved)",
        "empty": "a chunk whose text is empty once reduced (after a first 'Date: ' line or "
        "a role) matches no gold document (remem finds '' in every one); counted in empty, "
        "and in unmatched",
        "counts": counts,
        "assignments": assignments,
    }
    report.count(
        "retrieved chunk whose text is empty once reduced by remem's rules (matches no gold "
        "document; remem credits it to every one)",
        counts["empty"],
    )
    if counts["ambiguous"]:
        report.note(
            f"{counted(counts['ambiguous'], 'chunk')} "
            f"{'matches' if counts['ambiguous'] == 1 else 'match'} several gold documents and "
            f"{'counts' if counts['ambiguous'] == 1 else 'count'} for one "
            "(remem's Recall_all credits them all)"
        )
    return gold_rows, run_rows, section


def _rapidfuzz_version() -> str:
    import rapidfuzz

    return rapidfuzz.__version__


def _fuzzy_threshold(value, match: str) -> float | None:
    """``fuzzy_threshold`` as given, refused where it changes nothing (as ``convert lists``
    refuses ``--fuzzy-threshold`` and ``--no-fuzzy`` without ``--match chunks``: any value
    was taken and dropped) or outside (0, 100]; a number as a Python float (numpy's too:
    the sidecar records it, as the command line's --fuzzy-threshold)."""
    if value is _NotGiven.FUZZY:
        return FUZZY_THRESHOLD if match == "chunks" else None
    if match != "chunks":
        raise UsageError(
            f"fuzzy_threshold={value!r}: the fuzzy step matches chunks to documents, "
            'give match="chunks"'
        )
    real = isinstance(value, numbers.Real) and not isinstance(value, bool)
    if value is not None and not (real and 0 < value <= 100):
        raise UsageError(f"fuzzy_threshold must be in (0, 100], not {value!r}")
    return None if value is None else float(value)


def _read_lists(
    doc: JsonDocument, texts: bool
) -> tuple[list[list[str]], list[list[str]], list[str]]:
    """The lists file's aligned ``gold_docs`` and ``retrieved_chunks`` lists (texts when
    ``texts``, else ids) and each query's qid (its position without ``query_ids``); an
    unknown key, lists of different lengths, no gold doc at all or a repeated qid refused
    at its place."""
    data = doc.root.expect_object(doc.value)
    gold = _lists(doc.root / "gold_docs", data.get("gold_docs"), texts, True)
    retrieved = _lists(doc.root / "retrieved_chunks", data.get("retrieved_chunks"), texts, False)
    # after the keys it needs: a missing one is said with the keys the object has
    unknown = [key for key in data if key not in LIST_KEYS]
    if unknown:  # a misspelt query_ids would number the queries by position
        raise (doc.root / unknown[0]).error(
            "unknown key (a lists file holds gold_docs, retrieved_chunks and optionally query_ids)"
        )
    if len(gold) != len(retrieved):
        raise doc.root.error(
            f"{len(gold)} gold_docs lists but {len(retrieved)} retrieved_chunks lists"
        )
    if not any(gold):  # said at its key, not of the whole file at writing
        raise (doc.root / "gold_docs").error("no gold doc in any list: no judgment for qrels")
    ids = data.get("query_ids")
    if ids is None:
        qids = [str(i) for i in range(len(gold))]
    else:
        qids = (doc.root / "query_ids").expect_ids(ids)
        if len(qids) != len(gold):
            said = f"{counted(len(qids), 'id')} for {counted(len(gold), 'query', 'queries')}"
            raise (doc.root / "query_ids").error(said)
    first: dict[str, str] = {}
    for index, qid in enumerate(qids):
        refuse_repeat(first, qid, doc.root / "query_ids" / index, None, repr(qid))
    return gold, retrieved, qids


class _NotGiven(enum.Enum):
    """Sentinel of ``fuzzy_threshold``: not given (:data:`FUZZY_THRESHOLD` for chunks)."""

    FUZZY = "FUZZY_THRESHOLD"


def convert_lists(
    source: str | os.PathLike,
    *,
    name: str | None = None,
    tag: str | None = None,
    depth: int | None = None,
    match: str = "ids",
    fuzzy_threshold: float | None | _NotGiven = _NotGiven.FUZZY,
) -> Conversion:
    """Convert aligned ``gold_docs`` / ``retrieved_chunks`` lists (``source``: plain or
    compressed JSON) into qrels and a run; ``match`` is ``ids`` or ``chunks`` (see the
    module), with the fuzzy step's ``fuzzy_threshold`` (``match="chunks"`` alone; in
    (0, 100], 90 unless given; None: no fuzzy step). ``name`` names the qrels and sidecar
    files, ``tag`` the run and its file (default: made of the file's name); ``depth``: the
    first documents kept per query (default: all).
    Returns the :class:`~trecbench.convert.model.Conversion` (qrels, runs, sidecar) that
    :func:`trecbench.write_conversion` writes."""
    depth = depth_from(depth)
    if match not in MATCHES:
        raise UsageError(f"unknown match {match!r}: expected one of {', '.join(MATCHES)}")
    fuzzy_threshold = _fuzzy_threshold(fuzzy_threshold, match)
    path = path_argument(source, "source")  # Path(None) named no argument
    report = Report()
    name, run_name, tag = single_input_names(path, name, tag, report)
    doc = read_json(path, "lists")
    texts = match == "chunks"
    gold, retrieved, qids = _read_lists(doc, texts)

    sections = {}
    if texts:
        gold_rows, run_rows, sections["matching"] = _matched(
            qids, gold, retrieved, fuzzy_threshold, report
        )
    else:
        gold_rows = [(q, d, 1) for q, docs in zip(qids, gold, strict=True) for d in docs]
        run_rows = [
            (q, d, j, float("nan"))
            for q, docs in zip(qids, retrieved, strict=True)
            for j, d in enumerate(docs, 1)  # its rank: a dropped copy's order, reported
        ]
    qrels = make_qrels(
        pd.DataFrame(gold_rows, columns=["qid", "docno", "rel"]).astype({"qid": STR}), name, report
    )
    info = qrels_summary(qrels, qids, report, "query without gold docs (not in the qrels)")
    run = ranked_run(
        pd.DataFrame(run_rows, columns=["qid", "docno", "order", "score"]),
        tag,
        name,
        report,
        depth,
        queries=qids,
        name=run_name,
    )
    return Conversion(
        name=name,
        converter="lists",
        qrels={name: qrels},
        runs=[run],
        report=report,
        provenance={
            "inputs": [doc.source.record],
            "options": {
                "depth": depth,
                "match": match,
                "fuzzy_threshold": fuzzy_threshold if texts else None,
            },
        },
        qrels_info={name: info},
        sections=sections,
    )
