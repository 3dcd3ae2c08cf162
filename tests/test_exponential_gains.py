"""Gains 2^grade: nDCG(dcg='exp-log2')@k on grades whose gain is beyond a double (2^1024
and up: it printed -nan under numpy's overflow warnings), checked against exact fractions.
"""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import pytest

import trecbench


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
