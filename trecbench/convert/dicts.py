"""pytrec_eval / BEIR / MTEB result dicts → a run, with qrels from JSON or a BEIR TSV.

A run dict ``{qid: {docid: score}}`` has no order but its scores. Its producer's ranking is
what pytrec_eval (and so BEIR and MTEB) evaluates: score descending, held as float32 as in
trec_eval 9.x (scores equal at that precision tie), ties broken by docid descending. The
converter writes that order with trecbench's strictly decreasing scores, so the run's
meaning no longer depends on float32 rounding. Qrels come from
``{qid: {docid: grade}}`` JSON or a BEIR TSV with the header ``query-id corpus-id score``.

A result whose docid is its qid (a corpus that holds the queries: ArguAna, Quora,
CQADupStack) is kept, with a warning: BEIR's ``EvaluateRetrieval.evaluate`` drops them by
default (``ignore_identical_ids=True``), and so does ``ignore_identical_ids=True`` here.
"""

from __future__ import annotations

import dataclasses
import os
import warnings

import pandas as pd

from ..callers import outside_trecbench
from ..errors import InputWarning, Setting, SettingsText, UsageError
from ..escaping import id_list
from ..ids import unescape_id
from ..inputs import mappings, to_pandas
from ..naming import check_read_once, path_argument
from ..resource_bounds import depth_from
from ..score_precision import as_float32
from ..sources import JsonDocument, read_json
from ..type_names import flag_from
from .beir import read_beir_qrels
from .common import (
    Conversion,
    Report,
    default_name,
    escaped,
    given_name,
    make_qrels,
    missing_options,
    qrels_summary,
    ranked_run,
    run_naming,
)


def _nested(doc: JsonDocument, kind: str) -> tuple[pd.DataFrame, list[str]]:
    """Rows ``qid, docno, value`` of ``{qid: {docid: number}}`` (checked by the one reader
    of dicts, :mod:`trecbench.inputs.mappings`: numbers, integer grades within the limits),
    and every query of the dict in order (those without a document included)."""
    data = doc.root.expect_object(doc.value)
    if not data:
        raise doc.root.error(f"no query in the {kind} dict")
    # empty ids refused there; a NUL kept, as every id the conversion percent-escapes
    table = mappings.to_table(data, kind, doc.path, doc.line_of, nul=True)
    value = "score" if kind == "run" else "rel"
    frame = to_pandas(table.select(["qid", "docno", value])).rename(columns={value: "value"})
    return frame, list(data)


def convert_dict(
    run: str | os.PathLike,
    *,
    qrels_json: str | os.PathLike | None = None,
    beir_qrels: str | os.PathLike | None = None,
    name: str | None = None,
    tag: str | None = None,
    depth: int | None = None,
    ignore_identical_ids: bool = False,
) -> Conversion:
    """Convert a ``{qid: {docid: score}}`` ``run`` (JSON, plain or compressed) and its qrels,
    if given (``qrels_json``: ``{qid: {docid: grade}}`` JSON; ``beir_qrels``: a BEIR TSV),
    to TREC files. ``name`` names the qrels and sidecar files, ``tag`` the run and its
    file (default: made of the run file's name); ``depth``: the first documents kept per
    query (default: all); ``ignore_identical_ids``: drop each result whose docid is its
    qid, as BEIR's evaluation does by default (default: kept, with an
    :class:`~trecbench.errors.InputWarning`).
    Returns the :class:`~trecbench.convert.model.Conversion` (qrels, runs, sidecar) that
    :func:`trecbench.write_conversion` writes."""
    depth = depth_from(depth)
    ignore_identical_ids = flag_from("ignore_identical_ids", ignore_identical_ids)
    if qrels_json is not None and beir_qrels is not None:
        raise UsageError(
            "give ", Setting("qrels_json"), " or ", Setting("beir_qrels"), ", not both"
        )
    # None or 5 raised pathlib's TypeError naming nothing, in their default names
    path_argument(run, "run")
    for keyword, given in (("qrels_json", qrels_json), ("beir_qrels", beir_qrels)):
        if given is not None:
            path_argument(given, keyword)
    check_read_once([run, qrels_json, beir_qrels])  # one pipe twice: its second read is empty
    name = given_name(name)
    report = Report()
    has_qrels = qrels_json is not None or beir_qrels is not None
    # the run file's name names the conversion too when there are no qrels to name it
    names_outputs = name is None and not has_qrels
    instead = missing_options(name=names_outputs, tag=tag is None)
    own = default_name(run, report, instead) if tag is None or names_outputs else None
    run_name, tag = run_naming(tag, own, report)
    doc = read_json(run, "run dict")
    scores, queries = _nested(doc, "run")
    # pytrec_eval's order: score descending as trec_eval 9.x holds it (float32, so that
    # 1.00000001 and 1.0 tie), then docid descending; queries keep file order
    scores = scores.assign(
        _query=pd.factorize(scores["qid"])[0], _single=as_float32(scores["value"].to_numpy())
    )
    ordered = scores.sort_values(["_query", "_single", "docno"], ascending=[True, False, False])
    ordered = ordered.assign(order=ordered.groupby("qid", sort=False).cumcount())
    rows = ordered.rename(columns={"value": "score"})[["qid", "docno", "order", "score"]]
    rows = _identical_ids(rows, doc, tag, report, ignore_identical_ids, depth)
    inputs = [doc.source.record]

    qrels_tables, info = {}, {}
    qrels_name, qrels_sources, qrels_lines = None, {}, {}
    judged_queries: list[str] = []  # the qrels' queries, those without a judgment included
    if has_qrels:
        source = qrels_json if qrels_json is not None else beir_qrels
        qrels_name = default_name(source, report) if name is None else name
        qrels_sources[qrels_name] = str(source)
        frame, judged_queries, record, qrels_lines[qrels_name] = _qrels(
            qrels_json, beir_qrels, report
        )
        # a JSON qrels holds each judgment once; BEIR's TSV keeps a repeated one's last grade
        table = make_qrels(frame, qrels_name, report, keep="max" if qrels_json else "last")
        qrels_tables[qrels_name] = table
        info[qrels_name] = qrels_summary(  # the run's queries the qrels lack too
            table,
            dict.fromkeys([*judged_queries, *queries]),
            report,
            "query not in the qrels (no judgment: no measure counts it)",
        )
        inputs.append(record)
    # the qrels' queries the dict lacks are reported as absent from the run, apart from its
    # own queries without a document: BEIR's mean counts those 0 and leaves these out
    answered = set(queries)
    unanswered = [q for q in judged_queries if q not in answered]
    run_out = ranked_run(
        rows, tag, qrels_name, report, depth, queries=queries, name=run_name, unanswered=unanswered
    )
    return Conversion(
        name=(qrels_name or own) if name is None else name,
        converter="dict",
        qrels=qrels_tables,
        runs=[run_out],
        report=report,
        provenance={
            "inputs": inputs,
            "options": {"depth": depth, "ignore_identical_ids": ignore_identical_ids},
        },
        qrels_info=info,
        qrels_sources=qrels_sources,
        qrels_lines=qrels_lines,
        tie_order="pytrec_eval's order (docid descending)",
    )


def _qrels(qrels_json, beir_qrels, report: Report) -> tuple:
    """``(rows qid, docno, rel; the qrels' queries, those without a judgment included;
    the file's record; a query's line)`` of the one qrels given."""
    if qrels_json is None:
        frame, record, line_of = read_beir_qrels(beir_qrels, report)
        return frame, list(dict.fromkeys(frame["qid"])), record, line_of
    qdoc = read_json(qrels_json, "qrels json")
    frame, judged_queries = _nested(qdoc, "qrels")
    # the text alone locates a query: the parsed dicts and bytes are freed before the
    # write (where memory peaks), not kept alive with the Conversion
    located = JsonDocument(dataclasses.replace(qdoc.source, data=b""), None, qdoc.text)
    record = qdoc.source.record
    del qdoc
    frame = frame.rename(columns={"value": "rel"})
    return frame, judged_queries, record, lambda qid: located.line_of((unescape_id(qid),))


def _identical_ids(
    rows: pd.DataFrame,
    doc: JsonDocument,
    tag: str,
    report: Report,
    ignore: bool,
    depth: int | None,
) -> pd.DataFrame:
    """``rows`` (in pytrec_eval's order) without the results whose docid is their qid when
    ``ignore`` (BEIR's ``ignore_identical_ids``: each one reported, the documents after it
    one rank higher; then cut at ``depth``, as BEIR's results are its retriever's top
    k); else all of them, with a warning of those within ``depth``: BEIR would score the
    run without them, and nothing in a TREC run says so."""
    same = (rows["qid"] == rows["docno"]).to_numpy(dtype=bool)
    if not same.any():
        return rows
    found = rows[same]
    if ignore:
        report.drop(
            f"result whose docid is its qid ({tag}; dropped as BEIR's evaluation drops it: "
            "the documents after it one rank higher)",
            (
                {"run": tag, "qid": q, "docno": d, "rank": int(order) + 1, "score": float(s)}
                for q, d, order, s in zip(
                    escaped(found["qid"]),
                    escaped(found["docno"], "docno"),
                    found["order"],
                    found["score"],
                    strict=True,
                )
            ),
        )
        return rows[~same]
    kept = found if depth is None else found[found["order"] < depth]
    if len(kept):
        _warn_identical(kept, doc)
    return rows


def _warn_identical(found: pd.DataFrame, doc: JsonDocument) -> None:
    """Warn of the results ``found`` whose docid is their qid, kept: how many, their
    topics and the line of the first."""
    first = found["qid"].iloc[0]
    line = doc.line_of((first, first))
    topics = list(dict.fromkeys(found["qid"]))  # as read: id_list escapes them for a message
    results = (
        "1 result whose docid is its qid"
        if len(found) == 1
        else f"{len(found)} results whose docid is their qid"
    )
    warnings.warn(
        InputWarning(
            SettingsText(
                f"{doc.path}{'' if line is None else f':{line}'}: {results} kept "
                f"({'topic' if len(topics) == 1 else 'topics'} {id_list(topics)}): BEIR's "
                "evaluation drops them by default (ignore_identical_ids=True), so its "
                "scores differ from this run's; ",
                Setting("ignore_identical_ids", True),
                " drops them too",
            )
        ),
        stacklevel=outside_trecbench(),
    )
