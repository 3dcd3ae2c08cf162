"""compare's JSON report written fast (Comparison.report_json) is json.dumps' text byte for
byte: the per-topic values go through a template per topic instead of json's encoder."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from trecbench import report as report_module
from trecbench.comparison import compare_scores
from trecbench.comparison.json_text import per_query_json
from trecbench.json_values import json_safe

# ids json must escape or keep as they are (ensure_ascii off), a % the template must keep
QIDS = ["q1", "q\u00e92", 'q"3', "q\\4", "q\n5", "q\u200f6", "q%r7", "q\x008", "\U0001f600"]


def _comparison(measures=("nDCG@10", "P%s@5")):
    rng = np.random.default_rng(5)
    rows = [
        (run, qid, measure, float(rng.random()) * 10.0 ** float(rng.integers(-300, 3)))
        for run in ("bm25", "r\u00e9n%d", "3")
        for qid in QIDS
        for measure in measures
    ]
    return compare_scores(pd.DataFrame(rows, columns=["run", "qid", "measure", "value"]))


@pytest.mark.parametrize("indent", [1, 2])
@pytest.mark.parametrize("measures", [("nDCG@10",), ("nDCG@10", "P%s@5")])
def test_report_json_is_json_dumps_text(monkeypatch, indent, measures):
    monkeypatch.setattr(report_module, "utc_now", lambda: "2026-01-01T00:00:00Z")
    comparison = _comparison(measures)
    expected = json.dumps(json_safe(comparison.report()), indent=indent, ensure_ascii=False)
    assert comparison.report_json(indent=indent) == expected
    assert comparison.render("json") == comparison.report_json(indent=1) + "\n"


@pytest.mark.parametrize(
    "per_query",
    [
        {},
        {"a": {}},
        {"a": {"q": {}}},
        {"a": {"q": {}, "r": {"m": 1.5}}},
        {"a": {"q": {"m": 0.5, "n": 2.0}, "r": {"n": 1.5, "m": -0.0}}, "b": {"q": {"m": 5e-324}}},
    ],
)
def test_nested_values_are_written_as_json_dumps_writes_them(per_query):
    for indent in (1, 2, 4):
        document = {"x": 1, "per_query": per_query, "y": [1]}
        expected = json.dumps(document, indent=indent, ensure_ascii=False)
        text = json.dumps({**document, "per_query": "T"}, indent=indent, ensure_ascii=False)
        assert text.replace('"T"', per_query_json(per_query, indent, 1), 1) == expected


def test_the_report_file_is_json_bytes_of_the_report(monkeypatch):
    monkeypatch.setattr(report_module, "utc_now", lambda: "2026-01-01T00:00:00Z")
    comparison = _comparison()
    expected = report_module.json_bytes(comparison.report("id-1", {"k": "v"}))
    assert comparison.report_file("id-1", {"k": "v"}) == expected


def test_values_that_are_not_floats_take_json_dumps_whole(monkeypatch):
    import dataclasses

    monkeypatch.setattr(report_module, "utc_now", lambda: "2026-01-01T00:00:00Z")
    comparison = _comparison()
    per_query = comparison.per_query.assign(value=comparison.per_query["value"].astype(object))
    comparison = dataclasses.replace(comparison, per_query=per_query)
    expected = json.dumps(json_safe(comparison.report()), indent=1, ensure_ascii=False)
    assert comparison.report_json() == expected
