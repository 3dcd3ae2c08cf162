"""One meaning of ``topics`` in every output of ``score``: the topics a run's means are
averaged over, as trec_eval's ``num_q`` counts them (under ``-c`` every qrels topic).
``score -c --format json`` said ``topics: 2`` where the table said 3 (the JSON counted the
topics with per-topic values); that count is now the JSON's ``topics_with_values``."""

from __future__ import annotations

import json

import pytest
from test_score_friendly import QRELS, RUN
from test_score_suite import run_score

from trecbench import report

# What the reference builds print on QRELS (q1, q2, q3) and RUN (q1, q2, q4) with
# `-q -m num_q -m P.2`: 9.0.8 with -c evaluates q1 and q2 and averages over all three; 10.0
# with -c evaluates q3 on a placeholder as well; without -c both average over q1 and q2.
TREC_EVAL = {  # (compat, -c): (num_q, topics with per-topic lines, P_2 all)
    ("9.0.8", True): (3, ["q1", "q2"], 0.1667),
    ("9.0.8", False): (2, ["q1", "q2"], 0.2500),
    ("10.0", True): (3, ["q1", "q2", "q3"], 0.1667),
}


@pytest.fixture
def example(tmp_path):
    (tmp_path / "qrels").write_text(QRELS)
    (tmp_path / "run").write_text(RUN)
    return tmp_path


def _options(compat: str, complete: bool) -> list[str]:
    return ["--compat", compat, "-m", "P.2"] + (["-c"] if complete else [])


@pytest.mark.parametrize(("compat", "complete"), list(TREC_EVAL))
def test_json_topics_is_the_tables_and_num_q(example, monkeypatch, compat, complete):
    num_q, evaluated, p2 = TREC_EVAL[compat, complete]
    options = _options(compat, complete)
    out, _, code = run_score([*options, "--format", "json", "qrels", "run"], example, monkeypatch)
    assert code == 0
    (entry,) = json.loads(out)["runs"]
    assert entry["topics"] == num_q
    assert entry["topics_with_values"] == len(evaluated)
    assert list(entry["per_query"]) == evaluated
    assert round(entry["aggregates"]["P.2"], 4) == p2
    for fmt in ("table", "markdown"):
        out, _, code = run_score([*options, "--format", fmt, "qrels", "run"], example, monkeypatch)
        assert code == 0
        row = out.decode().splitlines()[-1].replace("|", " ").split()
        assert row[:2] == ["run", str(num_q)]
    out, _, code = run_score([*options, "-m", "num_q", "qrels", "run"], example, monkeypatch)
    assert f"num_q                 \tall\t{num_q}\n".encode() in out


def test_the_reports_topics_mean_the_same(example, monkeypatch):
    target = example / "r.json"
    argv = ["-c", "-m", "P.2", "--report", str(target), "qrels", "run"]
    assert run_score(argv, example, monkeypatch)[2] == 0
    document = json.loads(target.read_text())
    report.validate_against_schema(document, report.REPORT_SCHEMA)
    (entry,) = document["results"]
    assert (entry["topics"], entry["topics_with_values"]) == (3, 2)
    assert list(entry["per_query"]) == ["q1", "q2"]
