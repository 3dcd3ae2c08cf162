"""``trecbench measures NAMES``: each name read as ``score`` reads it (its trec_eval
version, its output name), with what the table says of the same family."""

from __future__ import annotations

import json

from trecbench.cli import run


def _said(capsys, *argv: str) -> list[dict]:
    assert run(["measures", "--format", "json", *argv]) == 0
    return json.loads(capsys.readouterr().out)


def test_names_are_read_as_score_reads_them(capsys):
    # measures read names with no version: rbp was 10.0's (p=0.9) where score -m rbp
    # computes trecbench's RBP (p=0.8), and unj.10 was described where score refuses it
    [rbp] = _said(capsys, "rbp")
    assert (rbp["canonical"], rbp["compat"]) == ("RBP", "9.0.8")
    assert "p = 0.8" in rbp["parameters"][0]
    [rbp] = _said(capsys, "--compat", "10.0", "rbp")
    assert (rbp["canonical"], rbp["compat"]) == ("rbp", "10.0")
    assert "p = 0.9" in rbp["parameters"][0]
    assert run(["measures", "unj.10"]) == 1
    assert "read it with --compat 10.0" in capsys.readouterr().err
    assert [e["canonical"] for e in _said(capsys, "--compat", "10.0", "unj.10")] == ["unj.10"]
    names = {e["canonical"] for e in _said(capsys, "all_trec")}
    assert "rbp" not in names and "unj" not in names
    names = {e["canonical"] for e in _said(capsys, "--compat", "10.0", "all_trec")}
    assert {"rbp", "unj"} <= names
    assert run(["measures", "rbp"]) == 0
    assert "read as trec_eval 9.0.8's names" in capsys.readouterr().out
