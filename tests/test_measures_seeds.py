"""The seeds' own formulas, by name: their worked examples, and their code transcribed.

Sources (../shared/seeds): the RAG retrieval metrics spec (003), the TREC R-task KPI
reference (004), the Phentrieve benchmark plan (000) and memorybench's code-chunk metrics
(001). Where a worked example contradicts the formula it illustrates, the test checks
what the formula defines and says so (the seeds' README lists these).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import trecbench
from trecbench.measures import parse_measure


def evaluate(judgments: dict, ranking: list[str], measures: list[str], qid: str = "q"):
    """``{display: value}`` for one topic: ``judgments`` docno -> grade, ``ranking`` the
    retrieved docnos best first."""
    return evaluate_topics({qid: (judgments, ranking)}, measures)[qid]


def evaluate_topics(topics: dict, measures: list[str]) -> dict[str, dict[str, float]]:
    qrels = pd.DataFrame(
        [(q, d, g) for q, (judged, _) in topics.items() for d, g in judged.items()],
        columns=["qid", "docno", "rel"],
    )
    run = pd.DataFrame(
        [
            (q, d, float(len(ranked) - i))
            for q, (_, ranked) in topics.items()
            for i, d in enumerate(ranked)
        ],
        columns=["qid", "docno", "score"],
    ).assign(tag="t")
    frame = trecbench.evaluate(qrels, run, measures).per_query
    out: dict[str, dict[str, float]] = {}
    for qid, measure, value in frame[["qid", "measure", "value"]].itertuples(index=False):
        out.setdefault(qid, {})[measure] = value
    return out


def random_topics(seed: int, grades: list[int]) -> dict:
    """Eight topics: ``(judgments, ranking)`` with grades drawn from ``grades`` for about
    half of a 40-document pool (at least one relevant) and a random-depth ranking."""
    rng = np.random.default_rng(seed)
    topics = {}
    for t in range(8):
        pool = [f"HP:{i:07d}" for i in rng.permutation(60)[:40]]
        judged = {d: int(rng.choice(grades)) for d in pool if rng.random() < 0.5}
        if not any(g > 0 for g in judged.values()):
            judged[pool[int(rng.integers(40))]] = 1
        topics[str(t)] = (judged, pool[: int(rng.integers(1, 40))])
    return topics


def value(judgments, ranking, name):
    ((_, got),) = evaluate(judgments, ranking, [name]).items()
    return got


# ---------------------------------------------------------------------------------------
# the seeds' spellings map to the right measure


@pytest.mark.parametrize(
    ("seed_name", "meaning"),
    [
        ("hit@3", "success.3"),  # RAG spec 3.1, Phentrieve HR@K
        ("ndcg@5", "ndcg_cut.5"),  # RAG spec 3.2 (linear gain)
        ("mrr", "recip_rank"),  # RAG spec 3.3: over the whole ranking
        ("map@10", "map_cut.10"),  # RAG spec 3.4: divided by |G|
        ("recall@10", "recall.10"),  # RAG spec 3.5
        ("precision@5", "P.5"),  # see test_precision_over_retrieved for |R_k|
        ("ndcg_at_5", "ndcg_cut.5"),  # memorybench's metric names
        ("precision_at_5", "P.5"),
        ("recall_at_10", "recall.10"),
    ],
)
def test_seed_spellings(seed_name, meaning):
    got, want = parse_measure(seed_name), parse_measure(meaning)
    assert (got.family, got.params, got.options) == (want.family, want.params, want.options) or (
        got.family == "HitRate" and want.family == "success"
    )


# ---------------------------------------------------------------------------------------
# RAG spec (003): worked examples and "Known Test Cases"

DOCS = {"doc1": 1, "doc2": 1, "doc3": 1, "doc4": 0, "doc5": 1, "doc6": 0}


def test_rag_hit_at_3_example():
    judged = {"doc1": 1, "doc3": 1, "doc5": 1, "doc2": 0, "doc4": 0}
    assert value(judged, ["doc2", "doc1", "doc4"], "hit@3") == 1.0


def test_rag_ndcg_example_as_its_formula_defines():
    """§3.2: grades 3, 2, 1, 0; 'Retrieved ranking: [3, 0, 2, 1]'. The spec's arithmetic
    (DCG 4.693, nDCG ≈ 0.985) puts grade 2 second, i.e. the ranking [3, 2, 0, 1]; for the
    ranking it states, the formula gives 0.930."""
    judged = {"a": 3, "b": 2, "c": 1, "d": 0}
    idcg = 3 + 2 / math.log2(3) + 1 / 2
    stated = value(judged, ["a", "d", "b", "c"], "ndcg@4")
    assert stated == pytest.approx((3 + 2 / 2 + 1 / math.log2(5)) / idcg, abs=1e-12)
    assert round(stated, 3) == 0.930
    arithmetic = value(judged, ["a", "b", "d", "c"], "ndcg@4")
    assert round(idcg, 3) == 4.762 and round(arithmetic, 3) == 0.985


def test_rag_mrr_example():
    topics = {
        "1": ({"a": 1, "b": 0}, ["a", "b"]),
        "2": ({"c": 1}, ["x", "y", "c"]),
        "3": ({"d": 1}, ["x", "y"]),
    }
    got = evaluate_topics(topics, ["mrr"])
    values = [got[q]["recip_rank"] for q in ("1", "2", "3")]
    assert values == pytest.approx([1.0, 1 / 3, 0.0])
    assert round(sum(values) / 3, 3) == 0.444


def test_rag_map_at_5_example():
    """§3.4: [rel, non, rel, non, rel], 3 relevant in all: (1/3)(1 + 2/3 + 3/5) ≈ 0.756."""
    judged = {"r1": 1, "r2": 1, "r3": 1}
    got = value(judged, ["r1", "n1", "r2", "n2", "r3"], "map@5")
    assert got == pytest.approx((1 + 2 / 3 + 3 / 5) / 3) and round(got, 3) == 0.756


def test_rag_known_test_cases():
    relevant = {"doc1": 1, "doc2": 1}
    perfect = evaluate(
        relevant, ["doc1", "doc2", "doc3", "doc4"], ["hit@1", "hit@2", "ndcg@2", "mrr"]
    )
    assert list(perfect.values()) == [1.0, 1.0, 1.0, 1.0]
    none = evaluate(relevant, ["doc3", "doc4", "doc5", "doc6"], ["hit@10", "ndcg@10", "mrr"])
    assert list(none.values()) == [0.0, 0.0, 0.0]
    # case 3: the spec expects NDCG@4 ≈ 0.693; its own ndcg_at_k code (and the formula)
    # give DCG = 1/log2(3) + 1/log2(5) over IDCG = 1 + 1/log2(3) + 1/2: 0.498
    three = {"doc1": 1, "doc2": 1, "doc3": 1}
    got = evaluate(three, ["doc4", "doc1", "doc5", "doc2"], ["hit@2", "hit@1", "ndcg@4", "mrr"])
    hit2, hit1, ndcg4, mrr = got.values()
    assert (hit2, hit1, mrr) == (1.0, 0.0, 0.5)
    idcg = 1 + 1 / math.log2(3) + 1 / 2
    assert ndcg4 == pytest.approx((1 / math.log2(3) + 1 / math.log2(5)) / idcg, abs=1e-12)
    assert round(ndcg4, 3) == 0.498


def test_precision_over_retrieved():
    """§3.6: Precision@k = |R_k ∩ G| / |R_k|; trec_eval's P@k divides by k. They differ
    only for topics that retrieve fewer than k documents."""
    judged = {"a": 1, "b": 1, "c": 0}
    names = ["P(denominator='retrieved')@10", "P@10", "P(denominator='retrieved')@2"]
    got = evaluate(judged, ["a", "c", "b", "x"], names)
    assert list(got.values()) == [0.5, 0.2, 0.5]


# ---------------------------------------------------------------------------------------
# TREC R-task KPI reference (004), memorybench (001), Phentrieve (000)


def test_rtask_exponential_ndcg():
    """nDCG@10 = (1/IDCG@10) sum (2^rel_i - 1)/log2(i+1), the ideal from the qrels."""
    judged = {"a": 3, "b": 1, "c": 2, "n": 0}
    got = value(judged, ["a", "n", "b"], "nDCG(dcg='exp-log2')@10")
    dcg = 7 / 1 + 0 + 1 / math.log2(4)
    idcg = 7 / 1 + 3 / math.log2(3) + 1 / math.log2(4)
    assert got == pytest.approx(dcg / idcg, abs=1e-12) and round(got, 4) == 0.7985


def test_rtask_map_normalised_by_min_rel_k():
    """MAP@100 divides by min(|Rel|, 100): two relevant found in the top 2 of 3 relevant
    give AP(normalize='min')@2 = 1, where trec_eval's map_cut.2 gives 2/3."""
    judged = {"a": 1, "b": 1, "c": 1}
    got = evaluate(
        judged, ["a", "b", "x", "c"], ["AP(normalize='min')@2", "AP@2", "AP(normalize='min')@100"]
    )
    assert list(got.values()) == pytest.approx([1.0, 2 / 3, (1 + 1 + 3 / 4) / 3])


def test_memorybench_idcg_uses_every_relevant_item():
    """IDCG@5 with 3 relevant items is 1 + 0.63 + 0.5 = 2.13, whatever was found."""
    judged = {"a": 1, "b": 1, "c": 1}
    got = value(judged, ["a", "x", "y", "z", "w"], "ndcg_at_5")
    assert round(1 / got, 2) == 2.13


def test_phentrieve_recall_versus_hit_rate_table():
    judged = {"e1": 1, "e2": 1, "e3": 1}
    rows = {0: ["x", "y"], 1: ["e1", "y"], 2: ["e1", "e2"], 3: ["e1", "e2", "e3"]}
    for found, ranking in rows.items():
        recall, hit = evaluate(judged, ranking, ["Recall@3", "hit@3"]).values()
        assert recall == pytest.approx(found / 3) and hit == float(found > 0)


def _phentrieve_average_precision_at_k(retrieved, expected, k):
    """Phentrieve plan §3.4, ``average_precision_at_k``, transcribed."""
    retrieved_ids = retrieved[:k]
    expected_set = set(expected)
    relevant_count, precision_sum = 0, 0.0
    for i, hpo_id in enumerate(retrieved_ids):
        if hpo_id in expected_set:
            relevant_count += 1
            precision_sum += relevant_count / (i + 1)
    if relevant_count == 0:
        return 0.0
    return precision_sum / min(len(expected), k)


def _phentrieve_precision_at_k(retrieved, expected, k):
    """Phentrieve plan §3.3, ``precision_at_k``, transcribed (the RAG spec's §3.6)."""
    retrieved_ids = retrieved[:k]
    if not retrieved_ids:
        return 0.0
    return sum(1 for hpo_id in retrieved_ids if hpo_id in expected) / len(retrieved_ids)


@pytest.mark.parametrize("seed", range(4))
def test_phentrieve_code_on_random_topics(seed):
    topics = random_topics(seed, grades=[0, 0, 0, 0, 0, 0, 1])  # a few expected ids each
    names = [f"AP(normalize='min')@{k}" for k in (1, 3, 10)]
    names += [f"P(denominator='retrieved')@{k}" for k in (1, 3, 10)]
    got = evaluate_topics(topics, names)
    for qid, (judged, ranking) in topics.items():
        expected = [d for d, g in judged.items() if g > 0]
        for k in (1, 3, 10):
            ap = _phentrieve_average_precision_at_k(ranking, expected, k)
            assert got[qid][f"AP(normalize='min')@{k}"] == pytest.approx(ap, abs=1e-12)
            p = _phentrieve_precision_at_k(ranking, expected, k)
            assert got[qid][f"P(denominator='retrieved')@{k}"] == pytest.approx(p, abs=1e-12)


# ---------------------------------------------------------------------------------------
# Sakai's Q-measure (RAG spec §10.1), as issue 11 defines it


def _q_measure(grades_in_order, all_grades, beta, level=1):
    """(1/R) sum over relevant ranks r of (C(r) + beta cg(r)) / (r + beta cg*(r))."""
    ideal = sorted((g for g in all_grades if g >= level), reverse=True)
    if not ideal:
        return 0.0
    ideal_cg = np.cumsum(ideal)
    count, cg, total = 0, 0.0, 0.0
    for rank, grade in enumerate(grades_in_order, start=1):
        if grade >= level:
            count += 1
            cg += grade
            total += (count + beta * cg) / (rank + beta * ideal_cg[min(rank, len(ideal)) - 1])
    return total / len(ideal)


def test_q_measure_hand_example():
    """A(2), X(0), B(1) with R = 2, beta = 1: (3/3 + 5/6) / 2 = 11/12."""
    got = value({"A": 2, "B": 1, "X": 0}, ["A", "X", "B"], "Q(beta=1)")
    assert got == pytest.approx(11 / 12, abs=1e-15)


@pytest.mark.parametrize("seed", range(4))
def test_q_measure_formula_and_ap_at_beta_zero(seed):
    topics = random_topics(seed, grades=[-1, 0, 0, 1, 2, 3])
    got = evaluate_topics(topics, ["Q", "Q(beta=0.5)", "Q(beta=0)", "map", "Q(rel=2)"])
    for qid, (judged, ranking) in topics.items():
        grades = [judged.get(d, 0) for d in ranking]
        values = list(judged.values())
        assert got[qid]["Q"] == pytest.approx(_q_measure(grades, values, 1.0), abs=1e-12)
        assert got[qid]["Q(beta=0.5)"] == pytest.approx(_q_measure(grades, values, 0.5), abs=1e-12)
        assert got[qid]["Q(rel=2)"] == pytest.approx(_q_measure(grades, values, 1.0, 2), abs=1e-12)
        # beta = 0 is AP, here checked against trec_eval's map
        assert got[qid]["Q(beta=0.0)"] == pytest.approx(got[qid]["MAP"], abs=1e-12)
