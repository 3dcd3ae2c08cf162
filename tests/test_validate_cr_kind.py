"""Fields split off by a VT, FF or lone CR (R2) do not make a file look like the other
kind (issue 444 item 1): qrels with old-Mac line ends (a bare CR between lines) are one
line of many fields to trec_eval ('Malformed line 1'), not a run given as qrels (Q11)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from trecbench.validation import validate_qrels, validate_run

TREC_EVALS = ["/work/tools/te908/trec_eval", "/work/tools/te100/trec_eval"]
CR_QRELS = b"q1 0 a 1\rq2 0 b 1\rq3 0 c 1\r"
SWAPPED = {"Q11", "R29", "R32", "Q12"}


def _rules(result) -> list[tuple[str, int | None]]:
    return [(f.rule, f.line) for f in result.findings if f.severity == "error"]


def test_qrels_with_cr_line_ends_are_r2_not_a_swapped_run(tmp_path):
    path = tmp_path / "cr.qrels"
    path.write_bytes(CR_QRELS)
    found = _rules(validate_qrels(path))
    assert ("R2", 1) in found and ("Q1", 1) in found
    assert not SWAPPED & {rule for rule, _ in found}


@pytest.mark.parametrize(
    ("name", "data", "expected"),
    [
        # a run line split by a lone CR into qrels' shape (4 fields, an integer last)
        ("four", b"q1 Q0 d1\r1\n", "R1"),
        # ... or into MS MARCO's (3 fields)
        ("three", b"q1 d1\r1\n", "R1"),
        # CR-only line ends: one line of 18 fields
        ("cr-only", b"q1 Q0 a 1 1.0 t\rq1 Q0 b 2 0.5 t\rq2 Q0 c 1 1 t\r", "R1"),
    ],
)
def test_a_run_split_by_lone_crs_is_r2_not_swapped_qrels(tmp_path, name, data, expected):
    path = tmp_path / f"{name}.run"
    path.write_bytes(data)
    found = _rules(validate_run(path))
    assert ("R2", 1) in found and (expected, 1) in found
    assert not SWAPPED & {rule for rule, _ in found}


def test_a_qrels_line_with_a_lone_cr_is_left_out_of_the_verdict_alone(tmp_path):
    """The other lines still tell a run given as qrels: one Q11, as before."""
    path = tmp_path / "run.qrels"
    path.write_bytes(b"q1 Q0 a 1 1.0\rt\nq1 Q0 b 2 0.5 t\n")
    assert [rule for rule, _ in _rules(validate_qrels(path))] == ["Q11"]


def test_score_says_the_line_is_malformed_not_forgotten_qrels(tmp_path):
    qrels, run = tmp_path / "cr.qrels", tmp_path / "a.run"
    qrels.write_bytes(CR_QRELS)
    run.write_bytes(b"q1 Q0 a 1 1 t\n")
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    done = subprocess.run(
        [sys.executable, "-m", "trecbench", "score", str(qrels), str(run)],
        capture_output=True,
        text=True,
        env=env,
    )
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"trecbench: {qrels}:1:line: error[Q1]: expected 4 fields (qid iter docno rel), found 12"
    ]


@pytest.mark.parametrize("binary", TREC_EVALS)
def test_trec_eval_calls_line_1_malformed(tmp_path, binary):
    """The independent source: trec_eval 9.0.8 and 10.0 refuse line 1, not the file's kind."""
    if not os.access(binary, os.X_OK):
        pytest.skip(f"{binary} not installed")
    qrels, run = tmp_path / "cr.qrels", tmp_path / "a.run"
    qrels.write_bytes(CR_QRELS)
    run.write_bytes(b"q1 Q0 a 1 1 t\n")
    done = subprocess.run([binary, str(qrels), str(run)], capture_output=True, text=True)
    assert done.returncode != 0
    assert "Malformed line 1" in done.stderr
