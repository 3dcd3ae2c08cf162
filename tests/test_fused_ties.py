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
    # reviewer 725: trec_eval 10.0 cannot rank what the cut left out: said so
    dropped = (
        "; at the depth cut (2) 2 documents of larger scores were left out of the run "
        "written this way: a larger depth keeps them"
    )
    assert [str(w.message) for w in said] == [SAID + dropped]
    with pytest.warns(ParameterDomainWarning) as said:  # the cut past the tie: unsaid
        trecbench.fuse(paths, "rrf", k=K, depth=4)
    assert [str(w.message) for w in said] == [SAID]
    # a tie wholly beyond the cut is not in the file: no warning
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        trecbench.fuse(
            [{"q": {"a": 1.00000005, "b": 1.0, "c": 7.0}}], "combsum", norm="none", depth=1
        )


def test_scores_equal_on_paper_are_not_warned_of():
    # x ranks 1, 2 and 7 in the three runs, y 7, 1 and 2: the same sum on paper, whose
    # doubles differed by one unit in the last place (0.0474478480153437 and ...369) when
    # added in the runs' order; from the smallest up, the same double: ranked by docno,
    # y above x, as trec_eval 9.0.8 and 10.0 both rank them, and no warning
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
    assert scores[0] == scores[1]
    exact = [sum(Fraction(1, 60 + r) for r in ranks) for ranks in ((7, 1, 2), (1, 2, 7))]
    assert exact[0] == exact[1]


@pytest.mark.parametrize(
    ("runs", "kwargs", "pair"),
    [  # 1/(k + 1) + 1/(k + 3) is 2/(k + 2) and 2/k^3 more: 1e-13 of it at k 2e6
        ([{"1": {"d1": 3, "d2": 2, "d3": 1}}, {"1": {"d3": 3, "d2": 2, "d1": 1}}],
         {"k": 2e6}, "d2 9.99999000001e-07 above d1 9.9999900000125e-07"),
        # a run's own scores 1e-13 apart under --norm none
        ([{"1": {"a": 1.0000000000001, "b": 1.0}}, {"1": {"c": 5.0}}],
         {"method": "combsum", "norm": "none"}, "b 1.0 above a 1.0000000000001"),
        # combmax and combmin keep a run's value as it is: an ulp apart is apart (they had
        # the sums' slack: trec_eval 9.0.8 and 10.0 gave recip_rank 0.5 and 1, reviewer 679)
        ([{"1": {"a": 1.000000000000001, "z": 1.0}}, {"1": {"a": 0.5, "z": 0.25}}],
         {"method": "combmax", "norm": "none"}, "z 1.0 above a 1.000000000000001"),
        ([{"1": {"a": 1.000000000000001, "z": 1.0}}, {"1": {"a": 7.0, "z": 8.0}}],
         {"method": "combmin", "norm": "none"}, "z 1.0 above a 1.000000000000001"),
        # so do combmed (a value, or one rounding of the mean of two) and a document one
        # run alone gives (reviewer 680)
        ([{"1": {"a": 1.000000000000001, "z": 1.0}}, {"1": {"a": 0.5, "z": 0.25}},
          {"1": {"z": 8.0, "a": 7.0}}],
         {"method": "combmed", "norm": "none"}, "z 1.0 above a 1.000000000000001"),
        ([{"1": {"a": 1.000000000000001, "z": 1.0}}, {"1": {"c": 5.0}}],
         {"method": "combsum", "norm": "none"}, "z 1.0 above a 1.000000000000001"),
    ],
)  # fmt: skip
def test_scores_apart_on_paper_by_less_than_2_to_the_40_are_warned_of(runs, kwargs, pair):
    """Reviewer 672: trec_eval 9.0.8 and 10.0 scored the file differently (recip_rank
    0.3333 and 0.5 with d1 or a relevant) and nothing was said: pairs within 2**-40 of
    their size were taken as rounding. Unnormalised values are a few roundings apart."""
    with pytest.warns(ParameterDomainWarning) as said:
        trecbench.fuse(runs, **kwargs)
    (message,) = [str(warning.message) for warning in said]
    assert f"ranked against their scores (topic 1: {pair})" in message


def test_rrf_float32_ties_are_warned_of_exactly_where_exact_sums_differ():
    """Random RRF fusions at k where float32 ties abound: a warning where some pair docno
    order ranks against its scores differs in exact arithmetic (fractions), and pairs
    equal on paper (as in a Latin square's, every document with the same ranks) equal
    doubles, ranked by docno: no warning. Of these 40 fusions, 4 hold pairs apart on paper
    (seed 28's, 3e-15 apart at k 3e6, were taken for rounding: no warning), and 20 hold
    pairs equal on paper (14 of them doubles a rounding apart when the runs' values were
    added in the runs' order)."""
    found = [_check_rrf_float32_ties(seed) for seed in range(40)]
    assert [sum(kind) for kind in zip(*found, strict=True)] == [4, 20]


def _check_rrf_float32_ties(seed: int) -> tuple[bool, bool]:
    """Whether the fusion of ``seed`` holds pairs of float32 ties ranked against their
    scores apart on paper (warned of: checked), and such pairs equal on paper."""
    rng = np.random.default_rng(seed)
    n_runs, n_docs = int(rng.integers(2, 7)), 12
    k = float(rng.choice([60.0, 1e4, 3e5, 3e6]))
    weights = [float(w) for w in rng.choice([1.0, 0.5, 0.25, 2.0], n_runs)]
    if seed % 2:  # a Latin square: every document has the same ranks
        n_runs = n_docs = int(rng.integers(3, 9))
        weights, shuffled = [1.0] * n_runs, rng.permutation(n_docs)
        orders = [np.roll(shuffled, shift) for shift in rng.permutation(n_docs)]
    else:
        orders = [rng.permutation(n_docs)[: int(rng.integers(6, 13))] for _ in range(n_runs)]
    runs = [{"q": {f"d{d:02}": float(100 - r) for r, d in enumerate(o)}} for o in orders]
    exact = dict.fromkeys((f"d{d:02}" for o in orders for d in o), Fraction(0))
    for weight, order in zip(weights, orders, strict=True):
        for rank, doc in enumerate(order, 1):
            exact[f"d{doc:02}"] += Fraction(weight) / (Fraction(k) + rank)
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        fused = trecbench.fuse(runs, "rrf", k=k, weights=weights)
    docnos, scores = list(fused["docno"]), fused["score"].tolist()
    against = [
        i
        for i in range(len(docnos) - 1)
        if np.float32(scores[i]) == np.float32(scores[i + 1])
        and exact[docnos[i]] < exact[docnos[i + 1]]
    ]
    precision = [w for w in said if "within float32's range tie" in str(w.message)]
    assert bool(precision) == bool(against), (seed, k, [str(w.message) for w in said])
    equal = [i for i in range(len(docnos) - 1) if exact[docnos[i]] == exact[docnos[i + 1]]]
    # the same ranks (and weights) are the same values, added from the smallest up: the
    # same double, ranked by docno as trec_eval 9.0.8 and 10.0 both rank it
    assert all(scores[i] == scores[i + 1] and docnos[i] > docnos[i + 1] for i in equal), seed
    return bool(against), bool(equal)


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
