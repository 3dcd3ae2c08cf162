"""pytrec_eval / BEIR / MTEB result dicts → a run, with qrels from JSON or a BEIR TSV.

A run dict ``{qid: {docid: score}}`` has no order but its scores. Its producer's ranking is
what pytrec_eval (and so BEIR and MTEB) evaluates: score descending, ties broken by docid
descending; the converter writes that order with trecbench's strictly decreasing scores,
so the run's meaning no longer depends on float32 rounding. Qrels come from
``{qid: {docid: grade}}`` JSON or a BEIR TSV with the header ``query-id corpus-id score``.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import InputError
from ..inputs import mappings, to_pandas
from ..report import input_record
from .common import (
    STR,
    Conversion,
    Report,
    clean_tag,
    load_json,
    make_qrels,
    qrels_summary,
    ranked_run,
)

BEIR_HEADER = ("query-id", "corpus-id", "score")


def _nested(path, data, kind: str) -> pd.DataFrame:
    """Rows ``qid, docno, value`` of ``{qid: {docid: number}}`` (read, and checked, by
    :mod:`trecbench.inputs`: grades must be integers)."""
    if not isinstance(data, dict):
        raise InputError(str(path), None, f"expected a {kind} dict {{qid: {{docid: value}}}}")
    table = mappings.to_table(data, kind, str(path))
    columns = {"qid": "qid", "docno": "docno", "score" if kind == "run" else "rel": "value"}
    frame = to_pandas(table.select(list(columns))).rename(columns=columns)
    return frame.astype({"qid": STR, "docno": STR})


def _grades(path, values: pd.Series, where: pd.Series) -> pd.Series:
    numbers = pd.to_numeric(values, errors="coerce")
    bad = ~np.isfinite(numbers.fillna(np.nan).astype(float)) | (numbers != np.floor(numbers))
    if bad.any():
        first = int(np.flatnonzero(bad.to_numpy())[0])
        raise InputError(
            str(path), where.iloc[first], f"relevance {values.iloc[first]!r} is not an integer"
        )
    return numbers.astype(np.int64)


def read_beir_qrels(path: str | os.PathLike) -> pd.DataFrame:
    """``qid, docno, rel`` from a BEIR qrels TSV (header ``query-id corpus-id score``)."""
    try:
        frame = pd.read_csv(
            path, sep="\t", dtype=str, keep_default_na=False, na_filter=False, header=None
        )
    except (OSError, pd.errors.ParserError, UnicodeDecodeError) as exc:
        raise InputError(str(path), None, f"cannot read a BEIR qrels TSV: {exc}") from None
    if frame.shape[1] != 3 or tuple(frame.iloc[0]) != BEIR_HEADER:
        raise InputError(str(path), 1, "expected a tab-separated header 'query-id corpus-id score'")
    frame = frame.iloc[1:]
    lines = pd.Series(np.arange(2, len(frame) + 2))
    rel = _grades(path, frame[2].reset_index(drop=True), lines)
    return pd.DataFrame(
        {"qid": frame[0].to_numpy(), "docno": frame[1].to_numpy(), "rel": rel.to_numpy()}
    ).astype({"qid": STR, "docno": STR})


def convert_dict(
    run: str | os.PathLike,
    *,
    qrels_json: str | os.PathLike | None = None,
    beir_qrels: str | os.PathLike | None = None,
    name: str | None = None,
    tag: str | None = None,
    depth: int | None = None,
) -> Conversion:
    """Convert a ``{qid: {docid: score}}`` run (and its qrels, if given) to TREC files."""
    if qrels_json is not None and beir_qrels is not None:
        raise InputError(str(run), None, "give --qrels-json or --beir-qrels, not both")
    path = Path(run)
    tag = clean_tag(tag or path.stem)
    report = Report()
    scores = _nested(path, load_json(path), "run")
    # pytrec_eval's order: score descending, then docid descending; queries keep file order
    scores = scores.assign(_query=pd.factorize(scores["qid"])[0])
    ordered = scores.sort_values(["_query", "value", "docno"], ascending=[True, False, False])
    ordered = ordered.assign(order=ordered.groupby("qid", sort=False).cumcount())
    rows = ordered.rename(columns={"value": "score"})[["qid", "docno", "order", "score"]]
    inputs = [input_record(path, "run dict")]

    qrels_tables, info = {}, {}
    qrels_name = None
    if qrels_json is not None or beir_qrels is not None:
        source = Path(qrels_json if qrels_json is not None else beir_qrels)
        qrels_name = name or source.stem
        if qrels_json is not None:
            frame = _nested(source, load_json(source), "qrels").rename(columns={"value": "rel"})
        else:
            frame = read_beir_qrels(source)
        table = make_qrels(frame, qrels_name, report)
        qrels_tables[qrels_name] = table
        info[qrels_name] = qrels_summary(
            table,
            dict.fromkeys(table["qid"]),
            report,
            "judged query without a relevant document (scores 0 everywhere)",
        )
        inputs.append(input_record(source, "qrels json" if qrels_json else "beir qrels"))
    run_out = ranked_run(rows, tag, qrels_name, report, depth)
    return Conversion(
        name=name or qrels_name or tag,
        converter="dict",
        qrels=qrels_tables,
        runs=[run_out],
        report=report,
        provenance={"inputs": inputs, "options": {"depth": depth}},
        qrels_info=info,
    )
