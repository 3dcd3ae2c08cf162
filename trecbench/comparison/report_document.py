"""The BenchmarkReport of a :class:`~trecbench.comparison.Comparison`: the JSON-ready
document (schema ``benchmark_report``) and its text, written faster than json alone."""

from __future__ import annotations

import json
import uuid

import numpy as np

from .json_text import per_query_json

SCHEMA_VERSION = 2


def report_document(comparison, experiment_id=None, meta=None, created=None) -> dict:
    """:meth:`Comparison.report <trecbench.comparison.Comparison.report>`'s document."""
    from ..meta_values import recorded_meta
    from ..report import environment, tool, utc_now

    with comparison.split_by_section():
        results = [_section_report(comparison, section) for section in comparison.sections]
    per_query = per_query_document(comparison)
    document = {
        "type": "BenchmarkReport",
        "schema_version": SCHEMA_VERSION,
        "created": created or utc_now(),
        "experiment_id": experiment_id,
        "tool": tool(),
        "environment": environment(),
        "meta": recorded_meta(meta),
        "settings": comparison.settings,
        "evaluation": comparison.evaluation,
        "inputs": comparison.inputs or [],
        "runs": [
            {
                "name": run,
                "baseline": run == comparison.baseline,
                "input": (comparison.run_inputs or {}).get(run),
                "qrels": (comparison.run_qrels or {}).get(run),
                "missing_queries": comparison.missing[run],
                "unpaired_topics": (comparison.unpaired or {}).get(run, []),
                "unjudged": (comparison.unjudged or {}).get(run),
            }
            for run in comparison.runs
        ],
        "topics": comparison.queries,
        "strata": comparison.strata,
        "results": results,
        "per_query": per_query,
    }
    if comparison.scoreless:
        document["topics_without_relevant"] = comparison.scoreless
    if comparison.warnings:  # what compare printed on stderr: the report stands alone
        document["warnings"] = list(comparison.warnings)
    if comparison.power is not None:
        document["power"] = comparison.power.to_dict()
    if comparison.unjudged_sensitivity is not None:
        document["unjudged_bounds"] = comparison.unjudged_sensitivity.to_json()
    if comparison.ontology is not None:
        document["ontology"] = comparison.ontology
    return document


def _section_report(comparison, section) -> dict:
    """One section of the report: what it is and its rows of each table."""
    from ..json_values import json_safe

    return {
        "stratum": section.label,
        "kind": section.kind,
        "field": section.field,
        "value": section.value,
        "topics": section.topics,
        "smallest_p": section.smallest_p,
        "notes": list(section.notes),
        "interval_undefined": section.interval_undefined,
        **{
            name: json_safe(_rows(comparison.records(frame, section.label)))
            for name, frame in (
                ("summary", comparison.summary),
                ("comparisons", comparison.comparisons),
                ("pairs", comparison.pairs),
                ("movers", comparison.movers),
            )
        },
    }


def report_text(comparison, experiment_id, meta, indent: int, dumps, created=None) -> str:
    """``dumps(comparison.report(...))`` (a JSON text with ``indent``), with the per-topic
    values, most of its bytes (finite floats: see :func:`per_query_document`), written
    by :func:`~.json_text.per_query_json` rather than json's pure-Python indenting
    encoder (0.75 s against 0.24 s on 20 runs x 10,000 topics). Values that are not all
    finite floats go through ``dumps`` with the rest."""
    document = report_document(comparison, experiment_id, meta, created)
    values = comparison.per_query["value"]
    if values.dtype.kind != "f" or not np.isfinite(values.to_numpy()).all():
        return dumps(document)
    per_query = document["per_query"]
    token = f"per_query {uuid.uuid4().hex}"  # a string no other part of the report holds
    document["per_query"] = token
    fast = per_query_json(per_query, indent, 1)
    return dumps(document).replace(json.dumps(token), fast, 1)


def per_query_document(comparison) -> dict[str, dict[str, dict[str, float]]]:
    """``{run: {qid: {measure: value}}}`` from the comparison's ``per_query``
    (compare_scores' tidy table: one row per run, topic and measure, measures in order
    within a topic).
    Finite floats already: compare_scores refuses NaN and infinities and zero-fills
    absent topics. Built from the columns as lists: pandas' pivot and ``to_dict`` took
    five times as long on 20 runs x 10,000 topics."""
    frame = comparison.per_query
    document: dict[str, dict[str, dict[str, float]]] = {run: {} for run in comparison.runs}
    columns = (frame[name].tolist() for name in ("run", "qid", "measure", "value"))
    for run, qid, measure, value in zip(*columns, strict=True):
        document[run].setdefault(qid, {})[measure] = value
    return document


def _rows(records: list[dict]) -> list[dict]:
    """Rows of one section without ``stratum`` and ``queries`` (the report states them
    once per section)."""
    for row in records:
        row.pop("stratum", None)
        row.pop("queries", None)
    return records
