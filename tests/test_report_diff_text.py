"""diff's text: an undefined value, a report of no runs and counts printed as score prints
them (reviewer 425)."""

from __future__ import annotations

import json

import pytest
from conftest import ROOT, diff_reports

from trecbench.cli import run

QRELS = str(ROOT / "qrels" / "hpo-demo.qrels")
RUN = str(ROOT / "runs" / "tfidf-word.run")


@pytest.fixture
def reports(tmp_path, capsys):
    """Reports of the bundled demo, named by what was changed."""

    def report(name: str, *args: str) -> str:
        path = str(tmp_path / f"{name}.json")
        assert run(["score", "--report", path, *args, QRELS, RUN]) == 0
        capsys.readouterr()
        return path

    return report


def _edited(path: str, tmp_path, edit) -> str:
    report = json.loads(open(path).read())
    edit(report)
    edited = tmp_path / "edited.json"
    edited.write_text(json.dumps(report))
    return str(edited)


def test_an_undefined_topic_value_is_a_dash_as_an_undefined_mean(reports, tmp_path, capsys):
    # the mean's undefined value was "-", a topic's change to it JSON's "null"
    a = reports("a", "-m", "map")
    qid = next(iter(json.loads(open(a).read())["results"][0]["per_query"]))

    def undefine(report):
        report["results"][0]["per_query"][qid]["MAP"] = None

    b = _edited(a, tmp_path, undefine)
    code, out = diff_reports(capsys, a, b)
    assert code == 1
    (line,) = [line for line in out.splitlines() if line.startswith("value: ")]
    assert line.endswith(f"(moved most: {qid} -)"), line
    assert "null" not in out
    document = json.loads(diff_reports(capsys, a, b, "--format", "json")[1])
    assert document["values"][0]["movers"] == [{"qid": qid, "change": None}]  # JSON's own


def test_a_report_of_no_runs_says_none(reports, tmp_path, capsys):
    # schema-valid "results": [] left the cause and the runs line ending in nothing
    a = reports("a", "-m", "map")
    empty = _edited(a, tmp_path, lambda report: report.update(results=[]))
    code, out = diff_reports(capsys, a, empty)
    assert code == 1
    lines = out.splitlines()
    assert lines[0] == "likely cause: the runs differ: tfidf-word vs (none)"
    assert "runs: tfidf-word -> (none)" in lines
    code, out = diff_reports(capsys, empty, a)
    assert "runs: (none) -> tfidf-word" in out.splitlines()


def test_run_names_holding_a_comma_are_one_item_of_the_lists(tmp_path, capsys):
    # "x, y" and tfidf-char listed as "x, y, tfidf-char": three runs read where two were
    # (reviewer 731)
    second = str(ROOT / "runs" / "tfidf-char.run")

    def report(name: str, *args: str) -> str:
        path = str(tmp_path / f"{name}.json")
        assert run(["score", "--report", path, *args]) == 0
        capsys.readouterr()
        return path

    alone = report("alone", QRELS, RUN)
    both = report("both", "--names", f"x, y={RUN}", QRELS, RUN, second)
    renamed = report("renamed", "--names", f"u, v={RUN}", QRELS, RUN, second)
    lines = diff_reports(capsys, both, alone)[1].splitlines()
    assert lines[0] == "likely cause: the runs differ: x%2C y, tfidf-char vs tfidf-word"
    assert "runs: x%2C y, tfidf-char -> tfidf-word" in lines
    lines = diff_reports(capsys, both, renamed)[1].splitlines()
    cause = "likely cause: the runs are named otherwise (the same files): x%2C y -> u%2C v"
    assert lines[0] == cause


def test_counts_are_integers_as_score_prints_them(reports, capsys):
    # num_ret 2800.0000 -> 280.0000: score (and trec_eval) print counts as integers
    a, b = reports("a", "-m", "all_trec"), reports("b", "-m", "all_trec", "-M", "5")
    code, out = diff_reports(capsys, a, b)
    assert code == 1
    lines = {line.split()[2]: line for line in out.splitlines() if line.startswith("value: ")}
    # the bundled run holds 50 documents on each of its 56 topics (score -q's num_ret)
    assert lines["num_ret"].startswith("value: tfidf-word num_ret 2800 -> 280 (moved most: ")
    assert ", de-02 -45," in lines["num_ret"] and "; 56 topics moved)" in lines["num_ret"]
    shown = run(["score", "-m", "num_rel_ret", "-M", "5", QRELS, RUN])
    assert shown == 0
    printed = capsys.readouterr().out.split()  # num_rel_ret all N
    assert lines["num_rel_ret"].split()[5] == printed[-1]
    # a fraction keeps its four decimals
    assert lines["MAP"].split()[3].count(".") == 1 and len(lines["MAP"].split()[3]) == 6


def test_meta_pairs_that_differ_are_listed_and_leave_the_evaluations_the_same(reports, capsys):
    # review 718: reports of --meta model=bm25 and model=dense were "the same", no word
    a = reports("a", "-m", "P.5", "--meta", "model=bm25", "--meta", "k1=0.9")
    b = reports("b", "-m", "P.5", "--meta", "model=dense", "--meta", "k1=0.9")
    assert diff_reports(capsys, a, b) == (
        0,
        'the evaluations are the same\nmeta: model "bm25" -> "dense"\n',
    )
    document = json.loads(diff_reports(capsys, a, b, "--format", "json")[1])
    assert document["meta"] == {"model": {"a": "bm25", "b": "dense"}}
    assert document["ir_metadata"] == {} and document["same"] is True


def test_a_run_s_ir_metadata_entries_that_differ_are_listed(tmp_path, capsys):
    # review 718: a block's change was only "a run file differs", as a change of its lines
    (tmp_path / "q.qrels").write_text("1 0 d1 1\n2 0 d5 1\n")
    block = "# ir_metadata.start\n# tag: r\n# actor:\n#   team: {}\n# ir_metadata.end\n"
    lines = "1 Q0 d1 1 3.0 r\n2 Q0 d5 1 5.0 r\n"
    paths = []
    for name, team in [("a", "lab"), ("b", "other")]:
        (tmp_path / name).mkdir()
        (tmp_path / name / "r.run").write_text(block.format(team) + lines)
        paths.append(str(tmp_path / f"{name}.json"))
        argv = [
            "score",
            "--report",
            paths[-1],
            str(tmp_path / "q.qrels"),
            str(tmp_path / name / "r.run"),
        ]
        assert run(argv) == 0
    capsys.readouterr()
    code, out = diff_reports(capsys, *paths)
    assert code == 1 and out.endswith('\nir_metadata: r actor.team "lab" -> "other"\n'), out
    document = json.loads(diff_reports(capsys, *paths, "--format", "json")[1])
    assert document["ir_metadata"] == {"r": {"actor.team": {"a": "lab", "b": "other"}}}


def test_descriptions_differ_as_the_reports_write_them(reports, tmp_path, capsys):
    # review 719: true and 1 were the same to Python's ==, a nested key and a dotted one
    # were one entry, and a description's invisible characters were printed as they are
    a = reports("a", "-m", "P.5")

    def described(meta, block):
        def edit(report):
            report["meta"] = meta
            if block is not None:
                report["inputs"][-1]["ir_metadata"] = block

        return edit

    x = _edited(a, tmp_path, described({"flag": True}, {"actor": {"team": {"x": 1}, "team.x": 5}}))
    (tmp_path / "x.json").write_text(open(x).read())
    other_block = {"actor": {"team": {"x": 2}, "team.x": 5}}

    def other_file(report):  # the block is compared where the run's file differs
        described({"flag": 1}, other_block)(report)
        report["inputs"][-1]["sha256"] = "0" * 64

    y = _edited(a, tmp_path, other_file)
    code, out = diff_reports(capsys, str(tmp_path / "x.json"), y)
    run_name = json.loads(open(a).read())["inputs"][-1]["name"]
    assert out.splitlines()[-2:] == [
        "meta: flag true -> 1",
        f"ir_metadata: {run_name} actor.team.x 1 -> 2",
    ]
    z = _edited(a, tmp_path, described({"flag": "a\u202eb"}, None))
    assert (
        'meta: flag true -> "a%E2%80%AEb"' in diff_reports(capsys, str(tmp_path / "x.json"), z)[1]
    )
