"""No text from an input can inject lines into an output: run names, stratum values and
ids are escaped reversibly (``%XX``) in every line-based format."""

from __future__ import annotations

import json
from urllib.parse import unquote

import pytest

from trecbench.cli import run
from trecbench.trec_format import escape_text

HOSTILE = ["de\nP_1                   \tall\t1.0000", "a b", "50%", "x|y", "tab\there", "nul\0"]


@pytest.mark.parametrize("text", [*HOSTILE, "plain", "é\u2028", "", "%41"])
def test_escaping_is_reversible_and_one_line(text):
    for also in ("", " ", "|", " ="):
        escaped = escape_text(text, also)
        assert unquote(escaped) == text
        assert escaped.isprintable() and not any(c in escaped for c in also)
    assert escape_text("plain-id_1.2/x") == "plain-id_1.2/x"


@pytest.fixture
def hostile(tmp_path):
    """Four topics, each in a stratum named by a hostile value, and two runs, one of them
    named with a newline and a fake trec_eval line."""
    (tmp_path / "q").write_text("".join(f"{i} 0 d 1\n" for i in range(len(HOSTILE))))
    lines = "".join(f"{i} Q0 d 1 1.0 t\n" for i in range(len(HOSTILE)))
    (tmp_path / "plain.run").write_text(lines)
    (tmp_path / "fake\nP_1 all 1.0.run").write_text(lines)
    queries = {str(i): {"lang": value} for i, value in enumerate(HOSTILE)}
    sidecar = {"strata": {"fields": ["lang"], "queries": queries}}
    (tmp_path / "s.json").write_text(json.dumps(sidecar))
    return tmp_path


def _score(capsys, folder, output_format):
    args = ["score", "-m", "P.1", "--strata", "s.json", "--group-by", "lang"]
    args += ["--format", output_format, "q", "plain.run", "fake\nP_1 all 1.0.run"]
    code = run(args)
    out, err = capsys.readouterr()
    assert code == 0, err
    return out.splitlines()


def test_trec_format(capsys, hostile, monkeypatch):
    monkeypatch.chdir(hostile)
    lines = _score(capsys, hostile, "trec")
    assert "# fake%0AP_1 all 1.0.run" in lines
    groups = []
    for line in lines:
        if not line or line.startswith("#"):
            continue
        name, where, value = line.split("\t")  # three fields, always
        assert " " not in where and " " not in value.strip()
        if where.startswith("lang="):
            groups.append(unquote(where.removeprefix("lang=")))
    assert sorted(set(groups)) == sorted(HOSTILE)
    # per run: the overall P_1, then per group (and macro, micro, spread) num_q and P_1
    assert sum(line.startswith("P_1 ") for line in lines) == 2 * (1 + len(HOSTILE) + 3)
    assert sum(line.startswith("#") for line in lines) == 4


def test_table_and_markdown(capsys, hostile, monkeypatch):
    monkeypatch.chdir(hostile)
    table = _score(capsys, hostile, "table")
    assert len(table) == 3 + 2 + 2 * (len(HOSTILE) + 3) + 1  # runs, title + groups
    markdown = _score(capsys, hostile, "markdown")
    rows = [line for line in markdown if line.startswith("|")]
    assert {line.count("|") for line in rows[:4]} == {4}  # run, topics, P@1
    assert {line.count("|") for line in rows[4:]} == {5}  # run, group, n, P@1
    assert any("x%7Cy" in line for line in rows)


def test_ids_from_a_dataframe(tmp_path):
    import pandas as pd

    import trecbench
    from trecbench.trec_format import render_trec

    qrels = pd.DataFrame({"qid": ["a b", "c\nd"], "docno": ["x", "y"], "rel": [1, 1]})
    frame = pd.DataFrame({"qid": ["a b", "c\nd"], "docno": ["x", "y"], "score": [1.0, 1.0]})
    frame["tag"] = "my tag"
    evaluation = trecbench.evaluate(qrels, frame, ["P.1", "runid"])
    lines = render_trec(evaluation, per_query=True).splitlines()
    assert [line.split("\t")[1:] for line in lines] == [
        ["a%20b", "1.0000"],
        ["c%0Ad", "1.0000"],
        ["all", "my%20tag"],
        ["all", "1.0000"],
    ]


def test_a_percent_sign_in_ids_and_tags_prints_as_trec_eval_prints_it(capsys, tmp_path):
    """Text a TREC file can hold is printed as it is: only what needs escaping is escaped."""
    (tmp_path / "pct.run").write_text("q1 Q0 d1 1 1 r%1\nq%2 Q0 d1 1 1 r%1\n")
    (tmp_path / "pct.qrels").write_text("q1 0 d1 1\nq%2 0 d1 1\n")
    args = ["score", "-q", "-m", "runid", "-m", "P.1", "--format", "trec"]
    assert run([*args, str(tmp_path / "pct.qrels"), str(tmp_path / "pct.run")]) == 0
    # trec_eval 9.0.8 -q -m runid -m P.1 pct.qrels pct.run
    assert capsys.readouterr().out == (
        "P_1                   \tq%2\t1.0000\n"
        "P_1                   \tq1\t1.0000\n"
        "runid                 \tall\tr%1\n"
        "P_1                   \tall\t1.0000\n"
    )
