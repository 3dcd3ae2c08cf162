"""Fused scores that differ as doubles but tie at float32, the precision trec_eval 9.x reads
scores at, so that its docno order ranks a smaller score above a larger one: warned of
for every method, against hand-worked values (exact fractions); fused scores equal on
paper (their doubles a rounding apart) and the documented examples are not."""

from __future__ import annotations

import warnings
from fractions import Fraction

import numpy as np
import pytest
from conftest import ROOT

import trecbench
from trecbench import fusion
from trecbench.cli import run as main
from trecbench.errors import ParameterDomainWarning

# reviewer 284's runs: RRF at k 20000 gives d1 ranks 1 and 4, d2 4 and 1, d3 2 and 3, d4
# 3 and 2
RUN_A = "1 Q0 d1 1 4 a\n1 Q0 d3 2 3 a\n1 Q0 d4 3 2 a\n1 Q0 d2 4 1 a\n"
RUN_B = "1 Q0 d2 1 4 b\n1 Q0 d4 2 3 b\n1 Q0 d3 3 2 b\n1 Q0 d1 4 1 b\n"
K = 20000
LARGER = Fraction(1, K + 1) + Fraction(1, K + 4)  # d1 and d2
SMALLER = Fraction(1, K + 2) + Fraction(1, K + 3)  # d3 and d4
SAID = (
    "fused scores within float32's range tie at float32 (as 9.9987505e-05), the precision "
    "trec_eval 9.x reads scores at, so it ranks them by docno: 4 documents of 1 topic are "
    "ranked against their scores (topic 1: d3 9.998750162478128e-05 above d2 "
    "9.998750212459383e-05); give a smaller k; trec_eval 10.0 (score --compat 10.0) reads "
    "the scores written at full precision"
)


def test_the_hand_worked_sums_are_apart_as_doubles_and_tied_at_float32():
    # (2k + 5) / ((k + 1)(k + 4)) against (2k + 5) / ((k + 2)(k + 3)): larger by
    # 2(2k + 5) / ((k + 1)(k + 2)(k + 3)(k + 4)), 5e-9 of them, below float32's 6e-8
    assert LARGER - SMALLER == Fraction(2 * (2 * K + 5), (K + 1) * (K + 2) * (K + 3) * (K + 4))
    assert float(LARGER) > float(SMALLER)
    assert np.float32(float(LARGER)) == np.float32(float(SMALLER))


def test_rrf_sums_that_tie_at_float32_against_their_order_are_warned_of(tmp_path, capsys):
    """Reviewer 284: the file written ranks d4, d3 above d2, d1, whose fused scores are
    larger, without a word: trec_eval 9.0.8 (float32) and 10.0 (doubles) then score it
    differently. On it, with d1 and d2 relevant, /work/tools/te908/trec_eval -m P.2 prints
    P_2 0.0000 and /work/tools/te100/trec_eval -m P.2 prints P_2 1.0000."""
    (tmp_path / "rA.run").write_text(RUN_A)
    (tmp_path / "rB.run").write_text(RUN_B)
    paths = [str(tmp_path / "rA.run"), str(tmp_path / "rB.run")]
    assert main(["fuse", *paths, "--k", str(K), "-o", "-"]) == 0
    out, err = capsys.readouterr()
    written = [line.split("\t") for line in out.splitlines()]
    # trec_eval 9.x's order: all four equal at float32, docno descending
    assert [fields[2] for fields in written] == ["d4", "d3", "d2", "d1"]
    exact = {"d1": LARGER, "d2": LARGER, "d3": SMALLER, "d4": SMALLER}
    for fields in written:
        assert float(fields[4]) == pytest.approx(float(exact[fields[2]]), rel=1e-15, abs=0)
    assert err.splitlines()[:-1] == [f"trecbench: warning: ParameterDomainWarning: {SAID}"]
    # the Python API says it as fusion's other warnings: a ParameterDomainWarning
    with pytest.warns(ParameterDomainWarning) as said:
        fused = trecbench.fuse(paths, "rrf", k=K)
    assert [str(w.message) for w in said] == [SAID]
    assert list(fused["docno"]) == ["d4", "d3", "d2", "d1"]


@pytest.mark.parametrize("method", fusion.SCORE_BASED)
def test_every_method_s_scores_that_tie_at_float32_against_their_order_are_warned_of(method):
    # 1.00000005 and 1 are equal at float32: b above a by docno, against their doubles;
    # with one run and no normalisation every score-based method keeps the score as it is
    run = {"q": {"a": 1.00000005, "b": 1.0, "c": 7.0}}
    weights = [1.0] if method == "wmnz" else None
    with pytest.warns(ParameterDomainWarning) as said:
        fused = trecbench.fuse([run], method, norm="none", weights=weights)
    assert list(fused["docno"]) == ["c", "b", "a"]
    assert [str(w.message) for w in said] == [
        "fused scores within float32's range tie at float32 (as 1), the precision trec_eval "
        "9.x reads scores at, so it ranks them by docno: 2 documents of 1 topic are ranked "
        "against their scores (topic q: b 1.0 above a 1.00000005); trec_eval 10.0 (score "
        "--compat 10.0) reads the scores written at full precision"
    ]


def test_a_depth_cut_that_keeps_the_smaller_scores_of_a_float32_tie_is_warned_of(tmp_path):
    # at depth 2 the file holds d4 and d3 alone: both trec_eval versions score it alike,
    # but the cut dropped d1 and d2, whose fused scores are larger (P@2 0 where it was 1)
    (tmp_path / "rA.run").write_text(RUN_A)
    (tmp_path / "rB.run").write_text(RUN_B)
    paths = [str(tmp_path / "rA.run"), str(tmp_path / "rB.run")]
    with pytest.warns(ParameterDomainWarning) as said:
        fused = trecbench.fuse(paths, "rrf", k=K, depth=2)
    assert list(fused["docno"]) == ["d4", "d3"]
    assert [str(w.message) for w in said] == [SAID]
    # a tie wholly beyond the cut is not in the file: no warning
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        trecbench.fuse(
            [{"q": {"a": 1.00000005, "b": 1.0, "c": 7.0}}], "combsum", norm="none", depth=1
        )


def test_scores_equal_on_paper_are_not_warned_of():
    # x ranks 1, 2 and 7 in the three runs, y 7, 1 and 2: the same sum on paper, whose
    # doubles differ by one unit in the last place (0.0474478480153437 and ...369) as they
    # are added in another order; y's, the smaller, is ranked above by docno: no warning
    runs = []
    for number, (x, y) in enumerate([(1, 7), (2, 1), (7, 2)]):
        others = iter(f"f{number}{i}" for i in range(5))
        docnos = ["x" if r == x else "y" if r == y else next(others) for r in range(1, 8)]
        runs.append({"q": {docno: float(10 - r) for r, docno in enumerate(docnos, 1)}})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fused = trecbench.fuse(runs, "rrf", k=60)
    assert list(fused["docno"][:2]) == ["y", "x"]
    scores = fused["score"][:2].tolist()
    assert scores[0] < scores[1] and np.float32(scores[0]) == np.float32(scores[1])
    exact = [sum(Fraction(1, 60 + r) for r in ranks) for ranks in ((7, 1, 2), (1, 2, 7))]
    assert exact[0] == exact[1]


@pytest.mark.parametrize(
    ("runs", "kwargs"),
    [  # docs/fuse.md's and docs/python-api.md's examples, and RRF of all three bundled runs
        (["data/hpo-rtask/lexical.run", "data/hpo-rtask/vector.run"], {"k": 60, "depth": 100}),
        (
            ["data/hpo-rtask/lexical.run", "data/hpo-rtask/vector.run"],
            {"method": "combsum", "norm": "min-max", "weights": [0.3, 0.7]},
        ),
        (
            ["data/hpo-rtask/lexical.run", "data/hpo-rtask/vector.run"],
            {"method": "combsum", "norm": "z-score", "weights": [0.3, 0.7], "depth": 100},
        ),
        (["runs/tfidf-word.run", "runs/tfidf-char.run"], {}),
        (["runs/tfidf-word.run", "runs/tfidf-char.run", "runs/tfidf-word-parents.run"], {}),
    ],
)
def test_the_documented_fusions_are_not_warned_of(runs, kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        trecbench.fuse([str(ROOT / run) for run in runs], **kwargs)


def test_a_float32_tie_is_said_as_the_float32_holds_it():
    # "(as 0.623457)": :g's six digits of the float32 0.62345677..., whose shortest
    # text is 0.6234568 (a number the project prints exactly)
    from trecbench.fused_ties import _float32_text

    values = (0.62345677, 1.0, 0.0, 1e39, float(LARGER))
    assert [_float32_text(value) for value in values] == [
        "0.6234568", "1", "0", "inf", "9.9987505e-05"
    ]  # fmt: skip
