"""The span of cwl_eval's NERR8-11, INST, INSQ and BPM, [0, 1], checked on ir_measures' own
computation (its cwl_eval provider), not on trecbench's registry or engines: hostile qrels
(negative grades, grades above max_rel, huge grades, every document relevant, nothing
judged) and runs (a topic retrieving nothing or one document), with every parameter value
trecbench accepts (T in [1e-9, 1e9], p in (0, 1), any min_rel below max_rel)."""

from __future__ import annotations

import logging
import math

import numpy as np
import pytest

ir_measures = pytest.importorskip("ir_measures")
pytest.importorskip("cwl")
hypothesis = pytest.importorskip("hypothesis")
from hypothesis import example, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from trecbench import parse_measure  # noqa: E402
from trecbench.errors import UsageError  # noqa: E402
from trecbench.measures import span  # noqa: E402

# cwl_eval's weights sum to 1 in doubles: BPM over 1000 relevant ranks gives 1 + 7e-16
ROUNDING = 1e-9
CASES = settings(derandomize=True, deadline=None, database=None, max_examples=150)

GRADES = st.one_of(st.integers(-5, 8), st.sampled_from([-(2**31), -1000, 10**6, 2**31 - 1]))
GOALS = st.one_of(
    st.floats(-9, 9).map(lambda e: 10.0**e),
    st.sampled_from([1e-9, 0.25, 0.5, 1.0, 3.0, 1e9]),
)
PERSISTENCE = st.one_of(
    st.floats(0, 1, exclude_min=True, exclude_max=True),
    st.sampled_from([1e-9, 0.5, 0.999999]),
)
CUTOFFS = st.one_of(st.integers(1, 60), st.sampled_from([1, 2, 1000, 10**6]))


@st.composite
def topic(draw, qid: str):
    """One topic's judgments and ranking: documents judged or not, all relevant or not, a
    ranking empty, of one document or of up to 40 (unjudged ones among them)."""
    size = draw(st.one_of(st.integers(1, 5), st.integers(18, 40)))
    docs = [f"{qid}-d{i}" for i in range(size)]
    shape = draw(st.sampled_from(["mixed", "all relevant", "unjudged", "negative"]))
    if shape == "all relevant":
        top = draw(GRADES.filter(lambda g: g > 0))
        judged = dict.fromkeys(docs, top)
    elif shape == "unjudged":
        judged = {}
    else:
        grades = GRADES.filter(lambda g: g < 0) if shape == "negative" else GRADES
        judged = {d: draw(grades) for d in docs if draw(st.booleans())}
    judged.setdefault(f"{qid}-not-retrieved", draw(GRADES))  # every topic has qrels
    whole = st.permutations(docs)
    retrieved = draw(st.one_of(whole, whole, whole, st.just(docs[:1]), st.just([])))
    ranking = {d: float(len(retrieved) - rank) for rank, d in enumerate(retrieved)}
    return judged, ranking


@st.composite
def case(draw):
    """``(qrels, run, measures)`` for ir_measures: one to three topics, every family with
    parameters drawn from their domains (max_rel below, at or above the largest grade)."""
    qrels, run = {}, {}
    for number in range(draw(st.integers(1, 3))):
        qrels[f"q{number}"], ranking = draw(topic(f"q{number}"))
        if ranking:
            run[f"q{number}"] = ranking
    largest = max(g for judged in qrels.values() for g in judged.values())
    max_rel = draw(st.one_of(st.just(largest), st.integers(-10, 10), GRADES))
    below = st.integers(-(2**31) - 1, max_rel - 1)
    min_rel = draw(st.one_of(st.just(0), below) if max_rel > 0 else below)
    rels = {"min_rel": min_rel, "max_rel": max_rel}
    k, goal, p = draw(CUTOFFS), draw(GOALS), draw(PERSISTENCE)
    measures = [
        ir_measures.NERR8(**rels) @ k,
        ir_measures.NERR9(**rels) @ k,
        ir_measures.NERR10(p=p, **rels),
        ir_measures.NERR11(T=goal, **rels),
        ir_measures.INST(T=goal, **rels),
        ir_measures.INSQ(T=goal, **rels),
        ir_measures.BPM(T=goal, **rels) @ k,
    ]
    return qrels, run, measures


def cwl_values(qrels, run, measures):
    """``[(measure, value)]`` as ir_measures' cwl_eval provider computes them (its gain
    range warnings and numpy's overflow warnings silenced: the values are what is tested)."""
    provider = ir_measures.providers.registry["cwl_eval"]
    logger = logging.getLogger("ir_measures.cwl_eval")
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        with np.errstate(all="ignore"):
            return [(m.measure, m.value) for m in provider.iter_calc(measures, qrels, run)]
    finally:
        logger.setLevel(level)


def _all_relevant(size: int, measures) -> tuple:
    """A case of one topic whose ``size`` documents, all retrieved, are all relevant."""
    docs = [f"d{i}" for i in range(size)]
    return (
        {"q": dict.fromkeys(docs, 1)},
        {"q": {d: float(size - i) for i, d in enumerate(docs)}},
        measures,
    )


@CASES
@given(case())
@example(_all_relevant(30, [ir_measures.INST(T=1e-9, max_rel=1), ir_measures.INST(max_rel=1)]))
def test_every_value_lies_in_zero_one(drawn):
    qrels, run, measures = drawn
    values = cwl_values(qrels, run, measures)
    assert len(values) == len(measures) * len(qrels)  # topics not retrieved: 0
    for measure, value in values:
        if math.isnan(value):
            # INST's continuation (i + 2T - cg(i) - 1)^2 / (i + 2T - cg(i))^2 exceeds 1 for
            # T < 1/4 while the documents so far are all fully relevant: over many ranks
            # cwl_eval's products of it overflow, and the value is nan, in no interval
            assert measure.NAME == "INST" and measure["T"] < 0.25, measure
            continue
        assert -ROUNDING <= value <= 1 + ROUNDING, (measure, value)


@pytest.mark.parametrize(
    "measure",
    [
        ir_measures.INST(T=1.0, max_rel=1),
        ir_measures.BPM(T=1e9, max_rel=1) @ 1000,
        ir_measures.NERR10(p=0.999999, max_rel=1),
    ],
)
def test_a_thousand_relevant_documents_reach_one_and_no_further(measure):
    # cwl_eval weighs its first 1000 ranks
    ((_, value),) = cwl_values(*_all_relevant(1200, [measure]))
    assert value == pytest.approx(1.0, abs=ROUNDING)


def test_a_persistence_below_zero_would_leave_the_span():
    # the span rests on p in (0, 1), which trecbench refuses outside; ir_measures accepts
    # p=-0.5: continuing past a non-relevant document with -0.5, its weights over
    # (non-relevant, relevant) are (2, -1), and the value -1
    qrels = {"q": {"d1": 0, "d2": 1}}
    run = {"q": {"d1": 2.0, "d2": 1.0}}
    ((_, value),) = cwl_values(qrels, run, [ir_measures.NERR10(p=-0.5, max_rel=1)])
    assert value == pytest.approx(-1.0)
    with pytest.raises(UsageError, match="p must be"):
        parse_measure("NERR10(p=-0.5)")


@pytest.mark.parametrize(
    "name",
    ["NERR8@10", "NERR9(min_rel=-3,max_rel=2)@5", "NERR10(p=0.5)", "NERR11(T=0.001)",
     "INST", "INST(T=1e-09)", "INSQ(T=1000.0)", "BPM(T=2.0,max_rel=1)@20"],
)  # fmt: skip
def test_the_registry_states_the_span_checked_here(name):
    assert span(name) == 1.0
