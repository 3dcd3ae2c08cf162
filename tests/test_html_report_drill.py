"""The page's drill-down and precision-recall curve follow the scoring they sit beside: trec_eval
10.0's ranking and curve under --compat 10.0, each run's own qrels under --run-qrels."""

from __future__ import annotations

import json
import re

import pytest
from test_html_report import _data

import trecbench
from trecbench.cli import run
from trecbench.comparison import from_evaluation
from trecbench.report import validate_against_schema

pytest.importorskip("bokeh")

# q1: b's score 3.00000001 and d's 3 are one float32 (9.0.8: d first, docno descending;
# 10.0: b first), and 4 relevant documents put recall 0.8 at (long) 4.1 = 4 documents in
# 9.0.8, at lround(3.2) = 3 in 10.0; q2: a 1.00000001 and b 1, a relevant. The first line
# is a comment to 10.0, a topic "#q1" to 9.0.8.
QRELS = "q1 0 a 1\nq1 0 c 1\nq1 0 d 1\nq1 0 e 1\nq2 0 a 1\n"
RUN = """#q1 Q0 z 1 9 r
q1 Q0 a 1 6 r
q1 Q0 x 2 5 r
q1 Q0 c 3 4 r
q1 Q0 b 4 3.00000001 r
q1 Q0 d 5 3 r
q2 Q0 a 1 1.00000001 r
q2 Q0 b 2 1 r
"""
# /work/tools/te100/trec_eval -m iprec_at_recall -m P.1 qrels r.run (trec_eval 10.0)
TREC_EVAL_10 = ["1.0000", "1.0000", "1.0000", "1.0000", "0.8333", "0.8333", "0.8333",
                "0.8000", "0.8000", "0.5000", "0.5000"]  # fmt: skip
TREC_EVAL_10_P1 = "1.0000"
# trec_eval 10.0's order (-q: P_1 of q2 is 1, a first); no two differing scores tie there
RANKED_10 = {
    "q1": [["a", "6", 1], ["x", "5", None], ["c", "4", 1], ["b", "3.00000001", None],
           ["d", "3", 1]],
    "q2": [["a", "1.00000001", 1], ["b", "1", None]],
}  # fmt: skip


@pytest.fixture
def files(tmp_path):
    (tmp_path / "q").write_text(QRELS)
    (tmp_path / "r.run").write_text(RUN)
    return str(tmp_path / "q"), str(tmp_path / "r.run")


def _curve_texts(page: str) -> list[str]:
    """The precision-recall figure's values as its hover writes them (one run)."""
    found = re.findall(r'"precision_text",\[([^\]]*)\]', page)
    assert len(found) == 1
    return json.loads(f"[{found[0]}]")


def test_score_html_under_compat_10_ranks_and_draws_as_trec_eval_10(files, tmp_path, capsys):
    # the drill-down listed 9.0.8's order (unjudged b first, marked a float32 tie) and the
    # curve was 9.0.8's (0.5 at recall 0.0 on the reviewer's run) beside 10.0's numbers
    page = tmp_path / "c10.html"
    assert run(["score", "--compat", "10.0", "-m", "P.1", *files, "--html", str(page)]) == 0
    assert capsys.readouterr().out.split() == ["P_1", "all", TREC_EVAL_10_P1]
    text = page.read_text()
    shown = _data(text)["documents"]
    assert {qid: runs["r"] for qid, runs in shown.items()} == RANKED_10
    assert _curve_texts(text) == TREC_EVAL_10


def test_a_compat_10_page_read_again_ranks_and_scores_as_trec_eval_10(files):
    # scored without keeping the drill-down: the files are read again, by 10.0 too
    qrels, run_file = files
    evaluation = trecbench.evaluate(qrels, [run_file], ["P.1"], compat="10.0")
    comparison = from_evaluation(evaluation)
    shown = _data(comparison.to_html())["documents"]
    assert {qid: runs["r"] for qid, runs in shown.items()} == RANKED_10
    assert [f"{v:.4f}" for v in comparison.precision_recall()["r"]] == TREC_EVAL_10
    # the report it writes follows the schema (compat, float32 and complete were refused)
    validate_against_schema(comparison.report(), "benchmark_report")


def test_9_0_8_pages_keep_its_ranking_and_float32_ties(files, tmp_path):
    page = tmp_path / "c9.html"
    qrels, run_file = files
    assert run(["score", "-m", "P.1", qrels, run_file, "--html", str(page), "--quiet"]) == 0
    shown = _data(page.read_text())["documents"]
    assert shown["q2"]["r"] == [["b", "1", None, 1], ["a", "1.00000001", 1]]
    assert [doc[0] for doc in shown["q1"]["r"]] == ["a", "x", "c", "d", "b"]


def test_compare_with_each_runs_own_qrels_has_its_drill_down_and_curves(tmp_path):
    # compare --run-qrels wrote a page with neither, every topic "documents not included"
    (tmp_path / "qa").write_text("q1 0 d1 2\nq1 0 d2 1\n")
    (tmp_path / "qb").write_text("q1 0 d1 0\nq1 0 d3 1\n")
    (tmp_path / "a.run").write_text("q1 Q0 d1 1 3 a\nq1 Q0 d2 2 2 a\nq1 Q0 d3 3 1 a\n")
    (tmp_path / "b.run").write_text("q1 Q0 d1 1 3 b\nq1 Q0 d3 2 2 b\n")
    own = [f"{tmp_path / 'a.run'}", f"{tmp_path / 'qa'}", f"{tmp_path / 'b.run'}"]
    args = ["compare", "--run-qrels", own[0], own[1], "--run-qrels", own[2], str(tmp_path / "qb")]
    out = tmp_path / "out"
    assert run([*args, "-m", "P@2", "-o", str(out), "--quiet"]) == 0
    text = (out / "report.html").read_text()
    data = _data(text)
    # each run graded by its own qrels: d1 is 2 to a, 0 to b
    assert data["depth"] == 20 and data["documents"] == {
        "q1": {"a": [["d1", "3", 2], ["d2", "2", 1], ["d3", "1", None]],
               "b": [["d1", "3", 0], ["d3", "2", 1]]},
    }  # fmt: skip
    # trec_eval -m iprec_at_recall: a with qa 1.0, b with qb 0.5 at every level
    found = re.findall(r'"precision_text",\[([^\]]*)\]', text)
    assert [json.loads(f"[{texts}]") for texts in found] == [["1.0000"] * 11, ["0.5000"] * 11]
    # from the Python API without keeping them: each run's files read again
    runs = {"a": own[0], "b": own[2]}
    qrels = {"a": own[1], "b": str(tmp_path / "qb")}
    comparison = trecbench.compare(None, runs, ["P@2"], run_qrels=qrels, samples=100)
    assert comparison.drill_downs is None
    assert _data(comparison.to_html())["documents"] == data["documents"]
    assert comparison.precision_recall() == {"a": [1.0] * 11, "b": [0.5] * 11}


def test_a_page_of_preferences_has_no_drill_down_and_scores_as_without_it(tmp_path, capsys):
    # the page read the preferences file again as qrels: "expected 4 fields", exit 2, and
    # no scores, where the call without --html prints trec_eval 9.0.8's prefs_simp 1.0000
    prefs, run_file = tmp_path / "pr", tmp_path / "r.run"
    prefs.write_text("q1 u s a 2\nq1 u s b 1\n")
    run_file.write_text("q1 Q0 a 1 2 r\nq1 Q0 b 2 1 r\n")
    page = tmp_path / "p.html"
    args = ["score", "-R", "prefs", "-m", "prefs_simp", str(prefs), str(run_file)]
    assert run([*args, "--html", str(page)]) == 0
    assert capsys.readouterr().out.split() == ["prefs_simp", "all", "1.0000"]
    assert _data(page.read_text())["documents"] == {}
    evaluation = trecbench.evaluate(str(prefs), [str(run_file)], ["prefs_simp"], rel_format="prefs")
    comparison = from_evaluation(evaluation)
    assert comparison.judged_files() is None
    validate_against_schema(comparison.report(), "benchmark_report")


def test_the_schema_names_every_judgments_format():
    from trecbench.evaluation import REL_FORMATS
    from trecbench.json_schemas import load_schema

    evaluation = load_schema("benchmark_report")["properties"]["evaluation"]["oneOf"][1]
    assert tuple(evaluation["properties"]["rel_format"]["enum"]) == REL_FORMATS


def test_a_run_judged_by_a_table_is_not_graded_by_the_other_runs_qrels_file(tmp_path):
    # with one qrels file among the inputs, every run was read again against it, run b's
    # documents graded by q1.txt (d1 1) where its own qrels (a table) give d1 0
    import pandas as pd

    (tmp_path / "q1.txt").write_text("q1 0 d1 1\n")
    (tmp_path / "a.txt").write_text("q1 Q0 d1 1 2 a\n")
    (tmp_path / "b.txt").write_text("q1 Q0 d1 1 2 b\n")
    own = pd.DataFrame({"qid": ["q1"], "docno": ["d1"], "rel": [0]})
    runs = {"a": str(tmp_path / "a.txt"), "b": str(tmp_path / "b.txt")}
    comparison = trecbench.compare(str(tmp_path / "q1.txt"), runs, ["P_1"], run_qrels={"b": own})
    assert comparison.run_qrels == {"a": str(tmp_path / "q1.txt"), "b": None}
    assert comparison.judged_files() is None


def test_a_page_without_documents_says_why(files, tmp_path):
    # every box said "(documents not included)", whatever kept them out
    from types import SimpleNamespace

    from trecbench.html_report.page import _why_no_documents

    page = tmp_path / "c0.html"
    qrels, run_file = files
    args = ["score", "-m", "P.1", qrels, run_file, "--html", str(page), "--html-depth", "0"]
    assert run([*args, "--quiet"]) == 0
    data = _data(page.read_text())
    assert (data["depth"], data["documents"]) == (0, {})
    assert data["no_documents"] == "documents not included: the page was asked for a depth of 0"
    prefs = SimpleNamespace(evaluation={"rel_format": "prefs"})
    assert _why_no_documents(prefs, 20).endswith("preferences (-R) grade no document")
    unread = SimpleNamespace(evaluation={"rel_format": "qrels"})
    assert "cannot be read again" in _why_no_documents(unread, 20)
    # the page's script shows it in each box
    assert '"(" + data.no_documents + ")"' in page.read_text()


def test_a_page_of_per_topic_values_says_it_has_no_runs(tmp_path):
    # compare_scores reads no run: its page said the runs "cannot be read again (standard
    # input, a pipe, or a table given without its file)"
    from trecbench.comparison import compare_scores

    rows = [
        {"run": run, "qid": f"t{i}", "measure": "P@5", "value": v}
        for run, values in {"a": [0.5, 0.2, 0.3], "b": [0.4, 0.6, 0.1]}.items()
        for i, v in enumerate(values)
    ]
    data = _data(compare_scores(rows).to_html(path=tmp_path / "values.html"))
    assert (data["depth"], data["documents"]) == (0, {})
    assert data["no_documents"] == (
        "documents not included: the comparison was made of per-topic values, not runs"
    )


@pytest.mark.parametrize("changed", ["qrels", "run"])
def test_a_qrels_file_changed_since_the_comparison_is_refused_as_a_run_is(files, changed):
    # the curve of a comparison scored without keeping its documents reads the files
    # again: a changed run was refused, changed qrels were read, and the curve (all 0 by
    # then) sat beside means of the qrels as they were
    qrels, run_file = files
    comparison = trecbench.compare(qrels, {"r": run_file}, ["P_1"], samples=100, seed=1)
    unchanged = trecbench.compare(qrels, {"r": run_file}, ["P_1"], samples=100, seed=1)
    assert len(unchanged.precision_recall()["r"]) == 11  # the files as scored: read again
    path = qrels if changed == "qrels" else run_file
    with open(path, "a") as handle:
        handle.write("q2 0 b 1\n" if changed == "qrels" else "q2 Q0 c 3 0 r\n")
    with pytest.raises(trecbench.errors.InputError, match="changed since it was scored"):
        comparison.precision_recall()
