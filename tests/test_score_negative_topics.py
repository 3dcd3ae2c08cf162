"""Topics whose every judgment is negative: trec_eval 9.0.8 fails or crashes on some of them.

Expected behaviour read off the reference binary (trec_eval 9.0.8):
- all grades -1, first evaluated topic: "Can't calculate measure 'num_ret'", exit 4;
- all grades -2, first evaluated topic: exit 4 (later: a segmentation fault);
- all grades -1, not the first topic: evaluated normally (map 0.5000 over 2 topics below).
pytrec_eval shares that C code and crashes the interpreter, so trecbench must refuse first.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

RUN = "0 Q0 b 1 1 t\n1 Q0 a 1 1 t\n"


def _score(tmp_path, qrels: str, run: str):
    (tmp_path / "q").write_text(qrels)
    (tmp_path / "r").write_text(run)
    command = [sys.executable, "-m", "trecbench", "score", "-m", "official", "q", "r"]
    return subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, check=False)


@pytest.mark.parametrize("grade", ["-1", "-2"])
def test_first_topic_with_only_negative_grades_exits_4(tmp_path, grade):
    done = _score(tmp_path, f"0 0 b {grade}\n1 0 a 1\n", RUN)
    assert done.returncode == 4
    assert done.stdout == ""
    assert done.stderr == (
        f"trecbench: q:1: every judgment of topic 0 is negative (largest grade {grade}): "
        "trec_eval cannot evaluate it (exit 4 or a crash)\n"
    )


def test_grade_minus_two_later_is_refused_too(tmp_path):
    done = _score(tmp_path, "0 0 b 1\n1 0 a -2\n", RUN)
    assert done.returncode == 4 and done.stdout == ""


def test_later_topic_with_only_minus_one_is_scored_like_trec_eval(tmp_path):
    done = _score(tmp_path, "1 0 a 1\n2 0 b -1\n2 0 c -1\n", "1 Q0 a 1 1 t\n2 Q0 b 1 1 t\n")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert "num_q                 \tall\t2" in lines
    assert "map                   \tall\t0.5000" in lines
    assert "gm_map                \tall\t0.0032" in lines


def test_qrels_held_in_memory_cite_the_topic_by_its_row_as_their_other_errors():
    """A DataFrame's all-negative topic was "qrels DataFrame:2: ... (exit 4 or a crash)"
    (a line from 1, and the command line's exit code), its missing grade "qrels
    DataFrame: row 1: relevance is missing" (a row from 0): both now cite row 1 (a
    unique index's label, else the position from 0; records from 0; a dict its topic)."""
    import ir_measures
    import pandas as pd
    import pyarrow as pa

    import trecbench
    from trecbench.errors import InputError, UnevaluableTopicError

    run = {"0": {"b": 1.0}, "1": {"a": 1.0}}
    columns = {"qid": ["1", "0"], "docno": ["a", "b"]}
    said = "every judgment of topic 0 is negative (largest grade -1): trec_eval cannot evaluate it"
    for qrels, where in (
        (pd.DataFrame({**columns, "rel": [1, -1]}), "qrels DataFrame: row 1"),
        (pd.DataFrame({**columns, "rel": [1, -1]}, index=[5, 7]), "qrels DataFrame: row 7"),
        (pa.table({**columns, "rel": [1, -1]}), "qrels table: row 1"),
        (
            [ir_measures.Qrel("1", "a", 1), ir_measures.Qrel("0", "b", -1)],
            "qrels records: record 1",
        ),
        ({"1": {"a": 1}, "0": {"b": -1}}, "qrels dict"),
    ):
        with pytest.raises(UnevaluableTopicError) as caught:
            trecbench.evaluate(qrels, run, ["P@5"])
        assert str(caught.value) == f"{where}: {said}"
    with pytest.raises(InputError) as caught:
        trecbench.evaluate(pd.DataFrame({**columns, "rel": [1, None]}), run, ["P@5"])
    assert str(caught.value) == "qrels DataFrame: row 1: relevance is missing"
