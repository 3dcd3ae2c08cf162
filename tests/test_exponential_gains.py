"""Gains 2^grade: nDCG(dcg='exp-log2')@k on grades whose gain is beyond a double (2^1024
and up: it printed -nan under numpy's overflow warnings), checked against exact fractions;
ERR@k and nERR@k, which gdeval defines up to grade 4, refused at the qrels line of the
first grade above it.
"""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import pandas as pd
import pytest

import trecbench
from trecbench.errors import ExitCode, UnevaluableTopicError


def _files(tmp_path, qrels: str, run: str):
    (tmp_path / "q").write_text(qrels)
    (tmp_path / "r").write_text(run)
    return str(tmp_path / "q"), str(tmp_path / "r")


def _exact_ndcg(ranked: list[int], judged: list[int], k: int) -> Fraction:
    """nDCG@k of the grades ``ranked`` (in rank order) against the ideal of ``judged``:
    exact gains 2^g - 1 over the discounts trecbench uses (C's log2 as doubles)."""

    def dcg(grades):
        return sum(
            Fraction(2**g - 1) / Fraction(math.log2(i + 2))
            for i, g in enumerate(grades[:k])
            if g > 0
        )

    return dcg(ranked) / dcg(sorted(judged, reverse=True))


def _ours(qrels: dict, order: dict[str, list[str]], k: int) -> dict[str, float]:
    run = {q: {d: float(len(docs) - i) for i, d in enumerate(docs)} for q, docs in order.items()}
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # numpy's overflow warnings reached the terminal
        found = trecbench.evaluate(qrels, run, [f"nDCG(dcg='exp-log2')@{k}"]).per_query
    return dict(zip(found["qid"], found["value"], strict=True))


def test_a_single_document_graded_1024_is_one():
    assert _ours({"1": {"a": 1024}}, {"1": ["a"]}, 5) == {"1": 1.0}


@pytest.mark.parametrize("k", [2, 4, 10])
def test_grades_beyond_a_double_equal_exact_fractions(k):
    qrels = {
        "1": {"a": 1100, "b": 1099, "c": 1024, "d": 1097, "e": 3, "f": 0},
        "2": {"a": 10**6, "b": 10**6 - 1, "c": 10**6 - 40},  # the largest grade read
        "3": {"x": 1023, "y": 1023, "z": 1022},  # sums of 2^1023 overflow too
    }
    order = {"1": ["d", "e", "zz", "b", "a", "c"], "2": ["b", "c", "a"], "3": ["z", "y", "x"]}
    got = _ours(qrels, order, k)
    for qid, docs in order.items():
        ranked = [qrels[qid].get(d, 0) for d in docs]
        want = float(_exact_ndcg(ranked, list(qrels[qid].values()), k))
        assert got[qid] == pytest.approx(want, rel=1e-12, abs=0), (qid, got[qid], want)
        assert 0 < got[qid] < 1


def test_grades_a_double_holds_are_computed_as_ever():
    """Topics graded at most 960 keep the unscaled doubles, summed rank by rank."""
    qrels = {"1": {"a": 960, "b": 958, "c": 7, "d": 1}}
    order = {"1": ["c", "b", "d", "a"]}

    def dcg(grades):
        total = 0.0
        for i, g in enumerate(grades):
            total += (2.0**g - 1.0) / math.log2(i + 2)
        return total

    want = dcg([7, 958, 1, 960]) / dcg([960, 958, 7, 1])
    assert _ours(qrels, order, 10) == {"1": want}


def test_err_above_grade_4_is_refused_at_the_first_such_qrels_line(tmp_path, capsys):
    from trecbench.cli import run

    # topic 3 (line 1) is no topic of the run: its grade is not read; topic 1 is the first
    # evaluated (trec_eval's order, as a run read in blocks meets it), its first grade
    # above 4 at line 5
    qrels, results = _files(
        tmp_path,
        "3 0 c 9\n2 0 z 1\n2 0 b 6\n1 0 z 1\n1 0 a 7\n1 0 b 5\n",
        "1 Q0 a 1 2 r\n1 Q0 b 2 1 r\n2 Q0 b 1 1 r\n",
    )
    with pytest.raises(UnevaluableTopicError) as raised:
        trecbench.evaluate(qrels, results, ["ERR@5"])
    assert (raised.value.path, raised.value.line) == (qrels, 5)
    assert run(["score", "-m", "ERR@5 nERR@3 P@5", qrels, results]) == ExitCode.DUPLICATE == 4
    out, err = capsys.readouterr()
    assert out == ""
    assert err == (
        f"trecbench: {qrels}:5: ERR@5, nERR@3: grade 7 of document a for topic 1 is above 4, "
        "the largest grade gdeval's ERR is defined for (gdeval refuses such qrels too)\n"
    )
    # judgments held in memory: the row or the dict's topic and document, not a line
    judged = {"1": {"z": 1, "a": 7}}
    in_memory = [
        (judged, "qrels dict: ERR@5: grade 7 of document a for topic 1 is above 4"),
        (
            pd.DataFrame({"qid": ["1", "1"], "docno": ["z", "a"], "rel": [1, 7]}, index=[10, 30]),
            "qrels DataFrame: row 30: ERR@5: grade 7 of document a for topic 1 is above 4",
        ),
    ]
    for held, said in in_memory:
        # given as it is, or loaded first (load_qrels, as optimize_fusion loads it): the
        # loaded one was cited by its position, "row 1", not the DataFrame's label 30
        for given in (held, trecbench.load_qrels(held)):
            with pytest.raises(UnevaluableTopicError) as raised:
                trecbench.evaluate(given, {"1": {"a": 2.0, "b": 1.0}}, ["ERR@5"])
            assert str(raised.value).startswith(said)
