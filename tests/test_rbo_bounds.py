"""similarity's RBO: rbo_min <= rbo_ext <= rbo_min + rbo_res in the values returned, per
topic and in the mean, whatever rounding the three sums meet (Webber et al. 2010)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from trecbench.runstudy.similarity import similarity

DOCS = [f"d{i}" for i in range(12)]
RANKING = st.lists(st.sampled_from(DOCS), min_size=1, max_size=len(DOCS), unique=True)
PERSISTENCE = st.one_of(
    st.floats(0, 1, exclude_min=True, exclude_max=True),
    st.sampled_from([1e-8, 0.3, 0.5, 0.9, 0.98]),
)


def _run(ranking: list[str]) -> dict:
    return {doc: float(len(ranking) - i) for i, doc in enumerate(ranking)}


def _within_bounds(pair) -> bool:
    """Every topic's and the mean's rbo_ext within [rbo_min, rbo_min + rbo_res]."""
    values, mean = pair.values, pair.mean()
    low, residual = values["rbo_min"], values["rbo_res"]
    return bool(
        (low <= values["rbo_ext"]).all() and (values["rbo_ext"] <= low + residual).all()
    ) and (mean["rbo_min"] <= mean["rbo_ext"] <= mean["rbo_min"] + mean["rbo_res"])


def test_rbo_ext_is_not_returned_outside_its_bounds_for_rounding():
    # found by search: rbo_ext 1.7e-16 below rbo_min (p = 1e-8: rbo_min's sums cancel),
    # and 1.1e-16 above rbo_min + rbo_res (p = 0.3)
    for short, long, p in ((["d0"], ["d1", "d0"], 1e-8), (["d0", "d1"], ["d0", "d1", "d2"], 0.3)):
        pair = similarity({"a": {"q": _run(short)}, "b": {"q": _run(long)}}, rbo_p=p).pairs[0]
        assert _within_bounds(pair), (short, long, p)
    # every topic within its bounds, the means not: mean rbo_min + mean rbo_res 1 ulp below
    # the mean rbo_ext of 1
    same = {f"q{t}": _run(["d0"]) for t in range(3)}
    copy = {qid: dict(documents) for qid, documents in same.items()}  # one object: refused
    assert _within_bounds(similarity({"a": same, "b": copy}, rbo_p=0.001).pairs[0])


@settings(derandomize=True, database=None, deadline=None, max_examples=300)
@given(st.lists(st.tuples(RANKING, RANKING), min_size=1, max_size=6), PERSISTENCE)
def test_rbo_ext_lies_between_rbo_min_and_rbo_min_plus_rbo_res(topics, p):
    a = {f"q{t}": _run(ranking) for t, (ranking, _) in enumerate(topics)}
    b = {f"q{t}": _run(ranking) for t, (_, ranking) in enumerate(topics)}
    pair = similarity({"a": a, "b": b}, rbo_p=p).pairs[0]
    assert _within_bounds(pair)


@settings(derandomize=True, database=None, deadline=None, max_examples=100)
@given(st.lists(RANKING, min_size=1, max_size=6), PERSISTENCE)
def test_equal_rankings_have_an_rbo_ext_of_exactly_one(rankings, p):
    # a run against its copy printed a mean rbo_ext of 0.9999999999999999 (the sums of
    # rbo_min and rbo_res an ulp below 1, and rbo_ext clipped under them)
    run = {f"q{t}": _run(ranking) for t, ranking in enumerate(rankings)}
    pair = similarity({"a": run, "b": dict(run)}, rbo_p=p).pairs[0]
    assert (pair.values["rbo_ext"] == 1.0).all() and pair.mean()["rbo_ext"] == 1.0
    assert _within_bounds(pair)


def test_a_ranking_that_differs_anywhere_is_not_made_one():
    a, b = _run(["d0", "d1", "d2"]), _run(["d0", "d2", "d1"])
    pair = similarity({"a": {"q": a}, "b": {"q": b}}, rbo_p=0.9).pairs[0]
    assert pair.values["rbo_ext"][0] < 1.0 and _within_bounds(pair)
    longer = similarity({"a": {"q": a}, "b": {"q": _run(["d0", "d1", "d2", "d3"])}}, rbo_p=0.9)
    assert longer.pairs[0].values["rbo_ext"][0] < 1.0  # X_d = d to 3 of 4 documents
