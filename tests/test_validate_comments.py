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
    # the topic's only grade is not an integer: Q3, and no "every judgment is negative";
    # trec_eval 9.x reads 'me' as atol does, 0: topic # has no relevant document (Q7)
    result = validate_tokens(tokenize(b"1 0 a 1\n# judged by me\n", "q", keep=4), "qrels")
    assert {f.rule for f in result.findings} == {"Q3", "Q7", "Q8"}


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


# a judged topic '#7': trec_eval 9.0.8 scores its lines as any other topic's (its output,
# run with the binary: `trec_eval -q -m num_ret -m map -m P.5 qrels run`), and so does score
JUDGED_QRELS = "#7 0 d 1\n#7 0 e 0\nq1 0 a 1\n"
HASH_TOPIC_RUN = b"#7 Q0 d 1 1 t\n#7 Q0 e 2 0.5 t\nq1 Q0 a 1 1 t\n"
TREC_EVAL_908 = (
    "num_ret               \t#7\t2\nmap                   \t#7\t1.0000\n"
    "P_5                   \t#7\t0.2000\nnum_ret               \tq1\t1\n"
    "map                   \tq1\t1.0000\nP_5                   \tq1\t0.2000\n"
    "num_ret               \tall\t3\nmap                   \tall\t1.0000\n"
    "P_5                   \tall\t0.2000\n"
)


def test_score_scores_a_hash_topic_as_trec_eval_9_does(tmp_path, monkeypatch):
    (tmp_path / "qrels").write_text(JUDGED_QRELS)
    (tmp_path / "run").write_bytes(HASH_TOPIC_RUN)
    args = ["-q", "-m", "num_ret", "-m", "map", "-m", "P.5", "qrels", "run"]
    stdout, message, code = run_score(args, tmp_path, monkeypatch)
    assert (code, stdout.decode()) == (0, TREC_EVAL_908), message


def test_a_comment_line_trec_eval_reads_as_a_document_names_its_topic():
    # it said "trec_eval 9.x reads it as data", as of a line trec_eval stops at
    data = HASH_TOPIC_RUN + b"# my run\n"
    result = validate_tokens(tokenize(data, "r"), "run")
    messages = {f.line: f.message for f in result.findings if f.rule == "R22"}
    assert messages == {
        1: "comment line: trec_eval 9.x reads it as a document of topic #7, 10.0 skips it",
        2: "comment line: trec_eval 9.x reads it as a document of topic #7, 10.0 skips it",
        4: "comment line: trec_eval 9.x reads it as data, 10.0 skips it",  # and R1
    }


def test_fix_names_the_comment_lines_trec_eval_reads_as_documents(tmp_path):
    # they were "dropped comment lines", as a "# my run" trec_eval stops at
    path = tmp_path / "r.run"
    path.write_bytes(HASH_TOPIC_RUN + b"#8 Q0 d 1 1 t\n# my run\n")
    out = tmp_path / "fixed.run"
    changes = {c.what: c.lines for c in fix_run(path, out)}
    read = (
        "dropped comment lines trec_eval 9.x reads as documents of topics #7, #8 (10.0 skips them)"
    )
    assert changes[read] == (1, 2, 4)
    assert changes["dropped comment lines"] == (5,)
    assert out.read_text() == "q1\tQ0\ta\t1\t1\tt\n"


@pytest.mark.parametrize("topic", [b"#a\x1bb", b"#a\xffb"])
def test_fix_names_the_topics_of_comment_lines_escaped_as_items(tmp_path, topic):
    # the topics were joined as the run's tokens hold them: an escape of one reached the
    # terminal (a byte not UTF-8 is held with a line feed); each topic is a list's item
    # (%XX), unquote gives the topic back as the tokens hold it
    from urllib.parse import unquote

    data = topic + b" Q0 d 1 1 t\n#8 Q0 d 1 1 t\nq1 Q0 a 1 1 t\n"
    path = tmp_path / "r.run"
    path.write_bytes(data)
    (change,) = [c.what for c in fix_run(path, tmp_path / "fixed.run") if "#8" in c.what]
    assert change.isprintable(), change
    named = change.split("documents of topics ")[1].split(" (10.0")[0].split(", ")
    held = tokenize(data, "r").fields[0].to_pylist()[0]
    assert [unquote(name) for name in named] == [held, "#8"]
