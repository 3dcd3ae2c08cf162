"""`validate`'s options from the spec (validator-rules.md): the relevance level of Q7
(`-l`) and a list of docids for R6 (`--docids`)."""

from __future__ import annotations

import pytest

from trecbench.cli import run
from trecbench.validation import validate_files, validate_qrels


def call(capsys, *args) -> tuple[int, str, str]:
    code = run([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


Q7_AT_2 = (
    "lv.qrels:1:qid: warning[Q7]: topic 1 has no relevant document (grade >= 2): it scores 0 "
    "on every measure"
)


@pytest.mark.parametrize("flag", ["-l", "--relevance-level"])
@pytest.mark.parametrize("grade", ["2", "+2"])  # small plain qrels, and the general path
def test_relevance_level_chooses_q7s_level(tmp_path, capsys, monkeypatch, flag, grade):
    """`-l` was "No such option"; Q7 was always judged at level 1."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "lv.qrels").write_text(f"1 0 a 1\n2 0 b {grade}\n")
    code, out, _ = call(capsys, "validate", "--qrels", "lv.qrels", flag, "2")
    assert code == 0 and Q7_AT_2 in out.splitlines(), out
    assert "Q7" not in call(capsys, "validate", "--qrels", "lv.qrels")[1]


def test_relevance_level_is_given_to_the_qrels_of_runs_too(tmp_path):
    qrels, path = tmp_path / "lv.qrels", tmp_path / "r.run"
    qrels.write_text("1 0 a 1\n2 0 b 3\n")
    path.write_text("1 Q0 a 1 1 t\n2 Q0 b 1 1 t\n")
    results = validate_files([path], qrels=qrels, relevance_level=3)
    assert [f.check for f in results[0].findings] == ["Q7"]
    assert [f.check for f in validate_qrels(qrels, relevance_level=3).findings] == ["Q7"]
    assert not validate_files([path], qrels=qrels)[0].findings


def test_a_relevance_level_below_1_is_refused_as_score_refuses_it(tmp_path, capsys):
    (tmp_path / "lv.qrels").write_text("1 0 a 1\n")
    code, _, err = call(capsys, "validate", "--qrels", tmp_path / "lv.qrels", "-l", "0")
    assert code == 1 and "0 is not in the range x>=1" in err
