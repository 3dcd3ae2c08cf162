"""`#` lines: `validate` (every profile) and `score` agree with trec_eval 9.0.8, which reads
them as data (tests/fixtures/trec_eval_comments.json, from make_trec_eval_comments.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_score_suite import run_score

from trecbench.inputs.trec_text import tokenize
from trecbench.validation import (
    PROFILES,
    UnfixableError,
    fix_run,
    validate_files,
    validate_tokens,
)

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "trec_eval_comments.json"
CASES = json.loads(FIXTURE.read_text())
# trec_eval 9.0.8 reads the grade "me" with atol as 0; trecbench refuses it (Q3), in score
# and in every profile of validate alike
REFUSED_THOUGH_TREC_EVAL_READS_IT = {"qrels: 4-field comment, word grade"}


@pytest.mark.parametrize("case", CASES["cases"], ids=[c["name"] for c in CASES["cases"]])
def test_validate_and_score_agree_with_trec_eval(case, tmp_path, monkeypatch):
    (tmp_path / "qrels").write_text(case["qrels"])
    (tmp_path / "run").write_text(case["run"])
    stdout, message, code = run_score([*CASES["args"], "qrels", "run"], tmp_path, monkeypatch)
    verdicts = {
        profile: all(r.ok for r in validate_files(["run"], qrels="qrels", profile=profile))
        for profile in PROFILES
    }
    accepted = case["exit_code"] == 0 and case["name"] not in REFUSED_THOUGH_TREC_EVAL_READS_IT
    if accepted:
        assert (code, stdout.decode()) == (0, case["stdout"]), message
        assert verdicts["lenient"], "score's gate passes this file"
    else:
        assert code == 2 and stdout == b"", message
        # the one-line error names the comment line
        assert "(a comment line" in message or "error[Q3]" in message, message
        assert not any(verdicts.values()), verdicts


def test_the_fixture_covers_both_verdicts():
    codes = {case["exit_code"] for case in CASES["cases"]}
    assert codes == {0, 2} and CASES["binary"] == "trec_eval 9.0.8"


def test_a_comment_line_is_data_with_a_note(tmp_path):
    data = b"1 Q0 a 1 3 t\n# Q0 z 1 9 t\n1 Q0 b 2 2 t\n"
    result = validate_tokens(tokenize(data, "r"), "run", qrels_topics=["1"])
    found = {(f.rule, f.severity, f.line) for f in result.findings}
    # a line of topic '#' to trec_eval 9.x: not in the qrels, and topic 1 comes back after it
    assert {("R22", "warning", 2), ("X1", "warning", 2), ("R20", "warning", 3)} <= found
    assert result.counts["topics"] == 2 and result.counts["records"] == 2


def test_only_bad_grades_are_not_negative_grades():
    # the topic's only grade is not an integer: Q3, and no "every judgment is negative"
    result = validate_tokens(tokenize(b"1 0 a 1\n# judged by me\n", "q", keep=4), "qrels")
    assert {f.rule for f in result.findings} == {"Q3", "Q8"}


def test_fix_drops_comment_lines_that_trec_eval_would_refuse(tmp_path):
    path = tmp_path / "r.run"
    path.write_bytes(b"# my run\n1 Q0 a 1 3 t\n1 Q0 b 2 2 t\n")
    out = tmp_path / "fixed.run"
    changes = {c.what: c.lines for c in fix_run(path, out)}
    assert changes["dropped comment lines"] == (1,)
    assert out.read_text() == "1\tQ0\ta\t1\t3\tt\n1\tQ0\tb\t2\t2\tt\n"
    # a short line that is not a comment still stops --fix
    path.write_bytes(b"1 Q0 a 1 3 t\n1 Q0 b 2\n")
    with pytest.raises(UnfixableError, match="R1"):
        fix_run(path, out)
