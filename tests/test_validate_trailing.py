"""A VT, FF or lone CR that ends a line separates nothing: trailing whitespace (R25), as
trec_eval reads it, never R2, and ``--fix`` drops it (issue 418 item 3)."""

from __future__ import annotations

import os
import subprocess

import pytest

from trecbench.validation import fix_run, validate_run

TREC_EVAL = "/work/tools/te908/trec_eval"
CLEAN = b"1 Q0 d1 1 3 t\n1 Q0 d2 2 2 t\n"
ENDS = [b"t\r", b"t\f\n", b"t\r\r\n", b"t\v \n", b"t \f\t\n"]


def _with_end(end: bytes) -> bytes:
    return CLEAN[: -len(b"t\n")] + end


@pytest.mark.parametrize("end", ENDS)
def test_whitespace_ending_a_line_is_trailing_not_a_separator(tmp_path, end):
    path = tmp_path / "a.run"
    path.write_bytes(_with_end(end))
    found = validate_run(path).findings
    assert "R2" not in {f.rule for f in found}
    trailing = [f for f in found if f.check == "R25.trailing"]
    assert [f.line for f in trailing] == [2]
    assert "at the end of the line" in trailing[0].message
    out = tmp_path / "fixed.run"
    fix_run(path, out)
    assert out.read_bytes() == CLEAN.replace(b" ", b"\t")


def test_a_lone_cr_between_fields_is_still_r2(tmp_path):
    path = tmp_path / "a.run"
    path.write_bytes(b"1 Q0 d1 1 3.0\rt\n")
    found = validate_run(path).findings
    assert [(f.rule, f.line) for f in found if f.rule == "R2"] == [("R2", 1)]


@pytest.mark.skipif(not os.access(TREC_EVAL, os.X_OK), reason="trec_eval 9.0.8 not installed")
@pytest.mark.parametrize("end", ENDS)
def test_trec_eval_reads_such_a_line_as_the_clean_one(tmp_path, end):
    """The independent source: trec_eval 9.0.8 scores the file as the clean one."""
    qrels = tmp_path / "q"
    qrels.write_bytes(b"1 0 d1 1\n1 0 d2 0\n")

    def scored(data: bytes) -> str:
        run = tmp_path / "r"
        run.write_bytes(data)
        done = subprocess.run(
            [TREC_EVAL, "-q", str(qrels), str(run)], capture_output=True, check=True
        )
        return done.stdout.decode()

    assert scored(_with_end(end)) == scored(CLEAN)
