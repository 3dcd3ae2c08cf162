"""diff tells of its long work (reviewer 365): each report read, checked and compared;
its schema check does not descend into every per-topic value (seconds for a large report)
and refuses what the schema refuses, as the schema says it."""

from __future__ import annotations

import json

import pytest
from conftest import ROOT

from trecbench import report as report_module
from trecbench.cli import progress as progress_module
from trecbench.cli import run
from trecbench.errors import InputError, OutputError
from trecbench.runstudy import reportview
from trecbench.runstudy.reportdiff import diff_reports

QRELS = str(ROOT / "qrels" / "hpo-demo.qrels")
RUNS = [str(ROOT / "runs" / f"{name}.run") for name in ("tfidf-word", "tfidf-char")]


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    """Two EvaluationReports of the demo's two runs, the second at -l 2."""
    folder = tmp_path_factory.mktemp("reports")
    a, b = str(folder / "a.json"), str(folder / "b.json")
    assert run(["score", "--quiet", "--report", a, QRELS, *RUNS]) == 0
    assert run(["score", "--quiet", "--report", b, "-l", "2", QRELS, *RUNS]) == 0
    return a, b


@pytest.fixture(scope="module")
def benchmark_report(tmp_path_factory):
    folder = tmp_path_factory.mktemp("benchmark")
    config = ROOT / "data" / "hpo-rtask" / "benchmark.toml"
    assert run(["benchmark", str(config), "-o", str(folder / "o"), "--quiet"]) == 0
    return folder / "o" / "BenchmarkReport.json"


def test_diff_tells_each_report_read_checked_then_the_values_compared(reports):
    a, b = reports
    told = []
    result = diff_reports(a, b, progress=lambda *call: told.append(call))
    assert not result.same
    labels = list(dict.fromkeys(label for label, *_ in told))
    assert labels == [
        f"reading {a}",
        f"checking {a}",
        f"reading {b}",
        f"checking {b}",
        "diffing values",
    ]
    for path in (a, b):
        size = len(open(path, "rb").read())
        assert [c[1:] for c in told if c[0] == f"reading {path}"][-1] == (size, size)
        # a step per run's per-topic values, then the rest of the report
        assert [c[1:] for c in told if c[0] == f"checking {path}"] == [(i, 3) for i in range(4)]
    pairs = 2 * len(result.a.values[next(iter(result.a.values))])  # runs x measures
    assert [c[1:] for c in told if c[0] == "diffing values"] == [
        (i, pairs) for i in range(pairs + 1)
    ]


def test_diff_draws_its_bars_unless_quiet(reports, capsys, monkeypatch):
    monkeypatch.setattr(progress_module, "wanted", lambda quiet: not quiet)
    monkeypatch.setattr(progress_module.TaskProgress.__init__, "__defaults__", (None, 0.5, 0, 0))
    a, b = reports
    assert run(["diff", a, b]) == 1
    err = capsys.readouterr().err
    assert f"checking {b}" in err and "diffing values" in err
    assert run(["diff", a, b, "--quiet"]) == 1
    captured = capsys.readouterr()
    assert captured.err == "" and captured.out.startswith("likely cause: the options differ")


def _checked(monkeypatch) -> list:
    """What the schema is given to check, recorded as read_view checks a report."""
    seen = []
    check = report_module.validate_against_schema

    def recorded(obj, schema):
        seen.append(obj)
        check(obj, schema)

    monkeypatch.setattr(report_module, "validate_against_schema", recorded)
    return seen


def test_the_schema_is_not_given_every_per_topic_value(reports, benchmark_report, monkeypatch):
    # jsonschema descended into each of a 22 MB report's values: 85% of diff's 5.4 s
    seen = _checked(monkeypatch)
    view = reportview.read_view(reports[0])
    assert [len(r["per_query"]) for r in seen[0]["results"]] == [0, 0]
    assert all(len(topics) > 10 for topics in view.per_query.values())  # still read
    seen.clear()
    view = reportview.read_view(str(benchmark_report))
    assert len(seen) == 1 and seen[0]["per_query"] == {} and view.per_query


def _set(*keys, value):
    def edit(report):
        node = report
        for key in keys[:-1]:
            node = node[key] if not callable(key) else key(node)
        node[keys[-1]] = value

    return edit


def _first(node):
    return node[next(iter(node))]


EVALUATION_EDITS = {
    "a text value": _set("results", 0, "per_query", _first, "P_5", value="0.5"),
    "a boolean value": _set("results", 1, "per_query", _first, "P_5", value=True),
    "a list value": _set("results", 0, "per_query", _first, "map", value=[0.5]),
    "a topic's values a list": lambda r: _set("results", 0, "per_query", value=[1])(r),
    "a topic's values a number": lambda r: (
        _first(r["results"][0]["per_query"]).clear() or r["results"][0]["per_query"].update(x=3)
    ),
    "per_query null": _set("results", 0, "per_query", value=None),
    "and an error elsewhere": lambda r: (
        _set("results", 0, "per_query", _first, "P_5", value="x")(r),
        _set("results", 1, "topics", value=-1)(r),
    ),
    "an error elsewhere only": _set("results", 1, "topics", value="5"),
    "a result not an object": _set("results", 1, value="run"),
    "a value in aggregates": _set("results", 0, "aggregates", "P_5", value="x"),
}


@pytest.mark.parametrize("edit", EVALUATION_EDITS, ids=list(EVALUATION_EDITS))
def test_an_evaluation_report_is_refused_as_the_schema_refuses_it(reports, tmp_path, edit):
    report = json.loads(open(reports[0]).read())
    EVALUATION_EDITS[edit](report)
    _refused_as_the_schema_says(report, "evaluation_report", "EvaluationReport", tmp_path)


BENCHMARK_EDITS = {
    "a text value": lambda r: _set(_first, _first, "x", value="0.5")(r["per_query"]),
    "a boolean value": lambda r: _set(_first, _first, "x", value=False)(r["per_query"]),
    "a run's topics a list": lambda r: r["per_query"].update({next(iter(r["per_query"])): []}),
    "per_query a number": _set("per_query", value=3),
    "and an error elsewhere": lambda r: (
        _set(_first, _first, "x", value="0.5")(r["per_query"]),
        r.pop("settings"),
    ),
}


@pytest.mark.parametrize("edit", BENCHMARK_EDITS, ids=list(BENCHMARK_EDITS))
def test_a_benchmark_report_is_refused_as_the_schema_refuses_it(benchmark_report, tmp_path, edit):
    report = json.loads(benchmark_report.read_text())
    BENCHMARK_EDITS[edit](report)
    _refused_as_the_schema_says(report, "benchmark_report", "BenchmarkReport", tmp_path)


def _refused_as_the_schema_says(report: dict, schema: str, kind: str, tmp_path) -> None:
    """read_view refuses ``report`` with the message of the schema's check of it whole."""
    with pytest.raises(OutputError) as expected:
        report_module.validate_against_schema(report, schema)
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(report))
    with pytest.raises(InputError) as refused:
        reportview.read_view(str(path))
    assert refused.value.message == f"does not match the {kind} schema: {expected.value}"
