"""leaderboard: its JSON records how it was made (versions, settings, every input with
its sha256, checked against hashlib on the files' bytes), a measure asked by two
spellings is refused at the suite's line as compare and benchmark refuse it, and a run
of several collections that has no topic in one of them names that collection."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from conftest import ROOT

from trecbench import __version__
from trecbench.cli import run
from trecbench.report import environment

SUITE = ROOT / "data" / "leaderboard.toml"
SYSTEMS = ["lexical", "vector", "reranked"]


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_the_json_records_tool_environment_settings_and_every_input(capsys):
    # it held name, baseline, collections, measures and warnings: nothing said what made it
    assert run(["leaderboard", str(SUITE), "--format", "json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["tool"] == {"name": "trecbench", "version": __version__}
    assert document["environment"] == environment()
    # and what it records, against sources of its own (reviewer 373: the line above
    # compares the report with the function that made it)
    import platform
    from importlib.metadata import version

    recorded = document["environment"]
    assert (recorded["python"], recorded["machine"]) == (
        platform.python_version(),
        platform.machine(),
    )
    for package in ("numpy", "pyarrow", "scipy", "pytrec-eval-terrier", "ir-measures"):
        assert recorded["packages"][package] == version(package), package
    assert document["created"].endswith("Z")
    settings = document["settings"]
    assert (settings["test"], settings["correction"], settings["seed"]) == ("t", "holm", None)
    assert settings["measures"] == ["nDCG@10", "MRR@10", "Recall@100"]
    assert settings["baseline"] == "lexical"
    data = SUITE.parent
    expected = [
        (SUITE, "suite"),
        (data / "hpo-rtask" / "hpo-rtask.qrels", "qrels"),
        *((data / "hpo-rtask" / f"{s}.run", "run") for s in SYSTEMS),
        (ROOT / "qrels" / "hpo-demo.sidecar.json", "strata"),
    ]
    inputs = document["inputs"]  # each file once, though both collections name them
    assert [(Path(r["path"]).resolve(), r["kind"]) for r in inputs] == [
        (path.resolve(), kind) for path, kind in expected
    ]
    for record, (path, _) in zip(inputs, expected, strict=True):
        assert (record["size"], record["sha256"]) == (path.stat().st_size, _sha256(path))
    assert [r["name"] for r in inputs if r["kind"] == "run"] == SYSTEMS
    runs = {record["name"]: record["path"] for record in inputs if record["kind"] == "run"}
    assert document["collections"][0]["runs"] == runs


def test_the_html_page_shows_what_the_json_records_of_what_made_it(capsys):
    # --format html said nothing of its version, date, settings or inputs
    pytest.importorskip("jinja2")
    import html
    import re

    assert run(["leaderboard", str(SUITE), "--format", "html", "--quiet"]) == 0
    page = capsys.readouterr().out
    start = '<h2 id="provenance">Provenance</h2>\n<pre>'
    shown = page[page.index(start) + len(start) : page.index("</pre>")]
    provenance = json.loads(html.unescape(re.sub("</?bdi>", "", shown)))
    assert run(["leaderboard", str(SUITE), "--format", "json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert provenance["created"].endswith("Z")  # the calls' times may differ
    del document["measures"], document["created"], provenance["created"]  # tables: the page's
    assert provenance == document
    assert provenance["tool"] == {"name": "trecbench", "version": __version__}
    for record in provenance["inputs"]:  # checked on the files' bytes
        assert record["sha256"] == _sha256(Path(record["path"])), record


def test_the_suite_read_from_a_pipe_is_recorded_as_it_was_read():
    # a pipe can be read once: its checksum is the one taken as the suite was read
    import os
    import subprocess
    import sys

    command = [sys.executable, "-m", "trecbench", "leaderboard", "-", "--format", "json"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    text = SUITE.read_bytes()
    done = subprocess.run(
        command, input=text, cwd=SUITE.parent, env=env, capture_output=True, check=False
    )
    assert (done.returncode, done.stderr) == (0, b"")
    suite = json.loads(done.stdout)["inputs"][0]
    assert suite == {
        "path": "-",
        "kind": "suite",
        "size": len(text),
        "sha256": hashlib.sha256(text).hexdigest(),
    }


def _suite(folder: Path, measures: str, second_qrels: str = "q") -> Path:
    """A suite ranking runs a and b on collections one and two (their qrels ``q`` and
    ``second_qrels``), asking ``measures`` on its second line."""
    (folder / "q").write_text("1 0 d1 1\n2 0 d2 1\n")
    (folder / "q2").write_text("1 0 d2 1\n")
    (folder / "other").write_text("9 0 d1 1\n")
    (folder / "a.run").write_text("1 Q0 d1 1 2 a\n2 Q0 d2 1 2 a\n")
    (folder / "b.run").write_text("1 Q0 d2 1 2 b\n2 Q0 d2 1 2 b\n")
    suite = folder / "suite.toml"
    suite.write_text(
        f'name = "s"\nmeasures = {measures}\nsystems = ["a", "b"]\n'
        '[collections.one]\nqrels = "q"\nruns = "{system}.run"\n'
        f'[collections.two]\nqrels = "{second_qrels}"\nruns = "{{system}}.run"\n'
    )
    return suite


@pytest.mark.parametrize(
    ("measures", "spellings", "shown"),
    [
        ('["nDCG@10", "ndcg_cut.10"]', "nDCG@10 and ndcg_cut.10", "nDCG@10"),
        ('["P@10", "P.10", "P_10"]', "P@10 and P.10 and P_10", "P@10"),
    ],
)
def test_a_measure_asked_by_two_spellings_is_refused_at_the_suite_s_line(
    tmp_path, capsys, measures, spellings, shown
):
    # one board was shown, by the first spelling, without a word
    suite = _suite(tmp_path, measures)
    assert run(["leaderboard", str(suite)]) == 1
    assert capsys.readouterr() == (
        "",
        f"trecbench: {suite}:2: measures: {spellings} are one measure ({shown}): "
        "leaderboard shows and tests each measure once, by that name; ask it by one "
        "spelling\n",
    )


def test_one_spelling_given_twice_is_one_measure_in_all_three_commands(tmp_path, capsys):
    # compare takes -m P@10 -m P@10 as trec_eval does (its test_score_spellings says so);
    # benchmark and leaderboard take a repeated name alike: one board, one row
    suite = _suite(tmp_path, '["P@1", "P@1"]', "q2")
    assert run(["leaderboard", str(suite), "--format", "json"]) == 0
    assert [m["measure"] for m in json.loads(capsys.readouterr().out)["measures"]] == ["P@1"]
    runs = [str(tmp_path / "a.run"), str(tmp_path / "b.run")]
    compared = ["compare", "--format", "json", "-m", "P@1", "-m", "P@1", str(tmp_path / "q")]
    assert run([*compared, *runs]) == 0
    summary = json.loads(capsys.readouterr().out)["results"][0]["summary"]
    assert sorted({row["measure"] for row in summary}) == ["P@1"]


def test_a_run_of_two_collections_with_no_topic_in_one_names_that_collection(tmp_path, capsys):
    # "a.run: No queries with both results..." did not say in which collection (reviewer
    # 331); then "...in collection two" put it last, where every other refusal of a suite
    # starts file:line: at the suite's entry of the collection ([collections.two], line 7)
    suite = _suite(tmp_path, '["P@1"]', "other")
    assert suite.read_text().splitlines()[6] == "[collections.two]"
    assert run(["leaderboard", str(suite)]) == 7
    assert capsys.readouterr().err == (
        f"trecbench: {suite}:7: collections.two: {tmp_path / 'a.run'}: No queries with both "
        "results and relevance info (no topic of the run is in the qrels: the run's '1', '2'; "
        "the qrels' '9')\n"
    )


def test_a_suite_loaded_earlier_is_recorded_as_it_was_read_not_read_again(tmp_path, monkeypatch):
    # leaderboard(load_suite(...)) read the suite file again for its record: a suite
    # from a pipe failed after all the work, an edited one was recorded as edited
    import dataclasses

    from trecbench.runstudy.leaderboard import leaderboard
    from trecbench.runstudy.suite import load_suite

    monkeypatch.chdir(SUITE.parent)
    copy = tmp_path / "suite.toml"
    text = SUITE.read_text().replace('"hpo-rtask/', f'"{SUITE.parent}/hpo-rtask/')
    text = text.replace('"../qrels/', f'"{ROOT}/qrels/')
    copy.write_text(text)
    suite = load_suite(copy)
    copy.write_text(text + "# edited after it was read\n")
    recorded = leaderboard(suite).inputs[0]
    assert recorded == {"path": str(copy), "kind": "suite", "size": len(text.encode()),
                        "sha256": hashlib.sha256(text.encode()).hexdigest()}  # fmt: skip
    copy.unlink()  # gone: nothing to read again
    assert leaderboard(suite).inputs[0] == recorded
    made = dataclasses.replace(suite, record=None)  # a Suite made in Python: no file read
    assert leaderboard(made).inputs[0] == {"path": str(copy), "kind": "suite", "size": None,
                                           "sha256": None}  # fmt: skip


def test_a_measures_entry_is_a_dash_m_value_its_names_separated_by_blanks(tmp_path, capsys):
    # "P@1 map" was two boards until evaluate refused an entry holding a blank (07a64243):
    # the suite was then refused after reading its runs, at no line. By hand, one relevant
    # document a topic: on q, a ranks it first on both topics (P@1 = AP = R@1 = 1), b on
    # topic 2 only (0.5); on q2 (topic 1: d2), b ranks it first, a not at all (0)
    suite = _suite(tmp_path, '["P@1 map", "R@1 "]', "q2")
    assert run(["leaderboard", str(suite), "--format", "json"]) == 0
    boards = json.loads(capsys.readouterr().out)["measures"]
    assert [board["measure"] for board in boards] == ["P@1", "MAP", "Recall@1"]
    means = {"a": {"one": 1.0, "two": 0.0}, "b": {"one": 0.5, "two": 1.0}}
    for board in boards:
        assert {row["system"]: row["means"] for row in board["systems"]} == means
    suite.write_text(suite.read_text().replace('"R@1 "', '"R@ 1"'))
    assert run(["leaderboard", str(suite)]) == 1
    assert capsys.readouterr().err == (
        f"trecbench: {suite}:2: measures[1]: illegal measure 'R@': the cutoff must be a "
        "positive integer (in the entry 'R@ 1', whose blanks separate names)\n"
    )


def test_a_measure_with_parameters_trec_eval_refuses_is_cited_at_the_suite_s_line(tmp_path, capsys):
    # P.abc (trec_eval's exit 2) was told without the suite's file or line, where benchmark
    # cites it at its entry
    suite = _suite(tmp_path, '["P@10", "P.abc"]')
    assert run(["leaderboard", str(suite)]) == 1
    assert capsys.readouterr().err == (
        f"trecbench: {suite}:2: measures[1]: illegal measure 'P.abc': 'abc' is not a cutoff "
        "(a positive integer; trec_eval reads it as 0)\n"
    )


def test_a_refused_measure_is_cited_at_its_own_entry_s_line(tmp_path, capsys):
    # a list over several lines was cited at its first line (the key's), where benchmark
    # cites the refused entry's own
    suite = _suite(tmp_path, '[\n  "P@10",\n  "map",\n  "P.abc",\n]')
    assert run(["leaderboard", str(suite)]) == 1
    assert capsys.readouterr().err.startswith(f"trecbench: {suite}:5: measures[2]: illegal ")


def test_the_suite_s_description_is_recorded_as_written(tmp_path, capsys):
    # the suite file's schema takes a description, which nothing recorded (reviewer 731)
    from trecbench.report import validate_against_schema

    (tmp_path / "q.qrels").write_text("a1 0 d1 1\nb1 0 d2 1\n")
    for system in "xy":
        (tmp_path / f"{system}.run").write_text(f"a1 Q0 d1 1 2 {system}\nb1 Q0 d2 1 2 {system}\n")
    body = 'systems = ["x", "y"]\n[collections.c]\nqrels = "q.qrels"\nruns = "{system}.run"\n'
    for description, recorded in (('"two,\\n lines"\n', "two,\n lines"), ("", None)):
        suite = tmp_path / "s.toml"
        suite.write_text(f"description = {description}" * bool(description) + body)
        assert run(["leaderboard", str(suite), "--format", "json"]) == 0
        document = json.loads(capsys.readouterr().out)
        assert document["description"] == recorded
        validate_against_schema(document, "leaderboard")
