"""Every bad input of the validator's catalogue gives `trecbench score` a clean outcome.

For each run and qrels case of tests/test_validate.py: no traceback; when the validator's
lenient profile (what would make trec_eval wrong or crash) finds an error, score stops with
a one-line ``file:line`` message, a non-zero exit and nothing on stdout; otherwise it scores.
"""

from __future__ import annotations

import pytest
from test_score_suite import run_score
from test_validate import QRELS_CASES, RUN_CASES

from trecbench.inputs.trec_text import tokenize
from trecbench.validation import check_tokens

# Topic ids used across the catalogue; every run case shares at least one with these qrels.
GOOD_QRELS = "".join(f"{q} 0 a 1\n{q} 0 b 0\n" for q in ("q", "q1", "q2", "1", "2", "01"))
GOOD_RUN = "".join(f"{q} Q0 a 1 2 t\n{q} Q0 b 2 1 t\n" for q in ("q", "q1", "1"))
# Checked by score itself with trec_eval's scope (duplicates within evaluated topics, after
# -M) or reported as flagged topics rather than stopping.
SCORE_SCOPED = {"R7", "Q5", "Q6", "Q7"}


def _lenient_errors(content: bytes, kind: str) -> list:
    keep = 6 if kind == "run" else 4
    findings = check_tokens(tokenize(content, "x", keep=keep), kind, profile="lenient")
    return [f for f in findings if f.severity == "error" and f.rule not in SCORE_SCOPED]


CASES = [pytest.param("run", case[1], id=f"run: {case[0]}") for case in RUN_CASES] + [
    pytest.param("qrels", case[1], id=f"qrels: {case[0]}") for case in QRELS_CASES
]


@pytest.mark.parametrize(("kind", "content"), CASES)
def test_score_gives_a_clean_outcome(kind, content, tmp_path, monkeypatch):
    (tmp_path / "bad").write_bytes(content)
    (tmp_path / "qrels").write_text(GOOD_QRELS)
    (tmp_path / "run").write_text(GOOD_RUN)
    argv = ["qrels", "bad"] if kind == "run" else ["bad", "run"]
    stdout, message, code = run_score(argv, tmp_path, monkeypatch)  # raises on a traceback
    errors = _lenient_errors(content, kind)
    if errors:
        assert code != 0 and stdout == b""
        line = errors[0].line
        assert ("bad:" if line is None else f"bad:{line}:") in message.split("\n")[0], message
    else:
        # what remains is trec_eval's own verdict: scores, or duplicates (4), no overlap (7)
        assert code in (0, 4, 7), message
        if code:
            assert stdout == b""


def test_judgments_whose_ids_hold_a_tab_are_no_duplicates():
    """(1<TAB>x, y) and (1, x<TAB>y) are two judgments of two topics, not one twice."""
    import pandas as pd

    import trecbench

    qrels = pd.DataFrame({"qid": ["1\tx", "1"], "docno": ["y", "x\ty"], "rel": [1, 1]})
    run = pd.DataFrame({"qid": ["1", "1\tx"], "docno": ["x\ty", "z"], "score": [1.0, 1.0]})
    result = trecbench.evaluate(qrels, run, ["P@1"])
    assert result.runs[0].values["P_1"].tolist() == [1.0, 0.0]


@pytest.mark.parametrize("encoding", ["UTF-16", "UTF-32"])
def test_a_utf16_trec_file_is_refused_with_its_remedy(tmp_path, monkeypatch, encoding):
    """ "TREC files must be ASCII/UTF-8" said what is wrong, not what to do; the converters'
    readers now say the same of a UTF-16 JSON or TSV (one message). A UTF-32 file was said
    to be UTF-16."""
    (tmp_path / "wide.qrels").write_bytes(GOOD_QRELS.encode(encoding))  # with its mark
    (tmp_path / "run").write_text(GOOD_RUN)
    _, message, code = run_score(["wide.qrels", "run"], tmp_path, monkeypatch)
    said = f"wide.qrels: error[R23]: the file is {encoding}; save it as UTF-8"
    assert (message, code) == (said, 2)
