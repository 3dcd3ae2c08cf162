"""The fast engine against pytrec_eval (trec_eval 9.0.8 inside) on seeded random cases.

The ranking here is an independent, deliberately naive re-implementation of trec_eval's
order (Python ``sorted`` on float32 score, then docno bytes, both descending), so the engine
is checked on its own, whatever :mod:`trecbench.ranking` does.
"""

from __future__ import annotations

import math

import numpy as np
import pyarrow as pa
import pytest

from tests.random_cases import random_case
from trecbench.engines import fast

pytrec_eval = pytest.importorskip("pytrec_eval")

CUTOFFS = (1, 3, 5, 10, 20, 1000)
TREC_CUTOFF_FAMILIES = sorted(fast.CUTOFF_FAMILIES - {"recall_all"})
# trec_eval measure (pytrec_eval spelling) -> fast-engine request
REQUESTS = {
    "map": ("map", None),
    "ndcg": ("ndcg", None),
    "recip_rank": ("recip_rank", None),
    "Rprec": ("Rprec", None),
    "num_ret": ("num_ret", None),
    "num_rel": ("num_rel", None),
    "num_rel_ret": ("num_rel_ret", None),
    **{f"{family}_{k}": (family, k) for family in TREC_CUTOFF_FAMILIES for k in CUTOFFS},
}
PYTREC_MEASURES = {"map", "ndcg", "recip_rank", "Rprec", "num_ret", "num_rel", "num_rel_ret"} | {
    f"{family}.{','.join(map(str, CUTOFFS))}" for family in TREC_CUTOFF_FAMILIES
}
# iprec_at_recall's levels: trec_eval's defaults, levels between them (where C's
# (long) (level * num_rel + 0.9) rounds otherwise), a negative one and one beyond 1
IPREC_LEVELS = sorted(
    {i / 10 for i in range(11)} | {-0.5, 0.05, 0.15, 0.25, 1 / 3, 0.35, 0.45, 0.95, 1.5}
)


def _parse(text: str, width: int) -> list[list[str]]:
    return [line.split()[:width] for line in text.splitlines() if line.split()]


def _dicts(qrels_text: str, run_text: str):
    qrels: dict[str, dict[str, int]] = {}
    for qid, _, docno, rel in _parse(qrels_text, 4):
        qrels.setdefault(qid, {})[docno] = int(rel)
    run: dict[str, dict[str, float]] = {}
    for qid, _, docno, _, score, _ in _parse(run_text, 6):
        run.setdefault(qid, {})[docno] = float(score)
    return qrels, run


def _trec_order(docs: dict[str, float]) -> list[str]:
    """trec_eval 9.x order: float32 score descending, then docno bytes descending."""
    return sorted(docs, key=lambda d: (float(np.float32(docs[d])), d.encode()), reverse=True)


def _sparse(qrels, run, depth=None):
    topics = sorted(set(qrels) & set(run))
    num_ret, hit_topic, hit_pos, hit_rel, judged_topic, judged_rel = [], [], [], [], [], []
    for t, qid in enumerate(topics):
        ranked = _trec_order(run[qid])[:depth]
        num_ret.append(len(ranked))
        for pos, docno in enumerate(ranked):
            if docno in qrels[qid]:
                hit_topic.append(t)
                hit_pos.append(pos)
                hit_rel.append(qrels[qid][docno])
        for rel in qrels[qid].values():
            judged_topic.append(t)
            judged_rel.append(rel)
    arrays = [
        np.array(a, dtype=np.int64)
        for a in (num_ret, hit_topic, hit_pos, hit_rel, judged_topic, judged_rel)
    ]
    return topics, fast.SparseRanking(*arrays)


def _check(qrels, run, relevance_level):
    topics, ranking = _sparse(qrels, run)
    ours = fast.compute(ranking, REQUESTS.values(), relevance_level=relevance_level)
    evaluator = pytrec_eval.RelevanceEvaluator(
        qrels, PYTREC_MEASURES, relevance_level=relevance_level
    )
    reference = evaluator.evaluate(run)
    assert sorted(reference) == topics
    _check_iprec(qrels, run, relevance_level, topics, ranking)
    for name, request in REQUESTS.items():
        for t, qid in enumerate(topics):
            want, got = reference[qid][name], float(ours[request][t])
            assert abs(got - want) <= 1e-12, (name, qid, got, want)
            assert f"{got:6.4f}" == f"{want:6.4f}", (name, qid, got, want)
    # Recall_all@k (trecbench's): 1 exactly when recall@k is 1
    recall_all = fast.compute(ranking, [("recall_all", k) for k in CUTOFFS], relevance_level)
    for k in CUTOFFS:
        want = [float(reference[q][f"recall_{k}"] == 1.0) for q in topics]
        assert recall_all[("recall_all", k)].tolist() == want
    # MRR@k: recip_rank on the run cut at k (trec_eval -M k)
    for k in (1, 3, 10):
        cut = {qid: {d: run[qid][d] for d in _trec_order(run[qid])[:k]} for qid in run}
        reference = pytrec_eval.RelevanceEvaluator(
            qrels, {"recip_rank"}, relevance_level=relevance_level
        ).evaluate(cut)
        got = fast.compute(ranking, [("recip_rank", k)], relevance_level)[("recip_rank", k)]
        for t, qid in enumerate(topics):
            assert abs(got[t] - reference[qid]["recip_rank"]) <= 1e-12


def _check_iprec(qrels, run, relevance_level, topics, ranking):
    """iprec_at_recall bit for bit (==) against trec_eval's code, at IPREC_LEVELS (the raw
    evaluator: pytrec_eval's wrapper refuses negative levels)."""
    from pytrec_eval_ext import RelevanceEvaluator

    measure = "iprec_at_recall." + ",".join(map(repr, IPREC_LEVELS))
    reference = RelevanceEvaluator(qrels, {measure}, relevance_level, False).evaluate(run)
    requests = [("iprec_at_recall", level) for level in IPREC_LEVELS]
    ours = fast.compute(ranking, requests, relevance_level)
    for request in requests:
        want = [reference[qid][f"iprec_at_recall_{request[1]:3.2f}"] for qid in topics]
        assert ours[request].tolist() == want, request


@pytest.mark.parametrize("seed", range(60))
def test_random_cases_match_pytrec_eval(seed):
    qrels, run = _dicts(*random_case(seed))
    _check(qrels, run, relevance_level=1)


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("level", [2, 3])
def test_relevance_levels_match_pytrec_eval(seed, level):
    qrels, run = _dicts(*random_case(1000 + seed, label_style="graded"))
    _check(qrels, run, relevance_level=level)


@pytest.mark.parametrize("score_style", ["float32_ties", "exact_ties", "large"])
def test_ties_match_pytrec_eval(score_style):
    for seed in range(5):
        qrels, run = _dicts(*random_case(2000 + seed, score_style=score_style, max_docs=80))
        _check(qrels, run, relevance_level=1)


def test_every_trec_cutoff_family_the_engine_claims_needs_its_cutoff_and_equals_pytrec_eval():
    """The engine's cutoffs come from the registry: each trec_eval family registered for it
    that takes a cutoff list (P.5,10) is computed at a cutoff, not without one, and gives
    pytrec_eval's values there."""
    from trecbench.measures import LONG_CUTOFFS, registry

    claimed = sorted(
        definition.name
        for definition in registry.definitions()
        if definition.name in registry.engine("fast").families
        and definition.source == "pytrec_eval"
        and definition.trec_params == LONG_CUTOFFS
    )
    assert set(claimed) >= {"P", "recall", "success", "map_cut", "ndcg_cut"}
    qrels, run = _dicts(*random_case(7))
    topics, ranking = _sparse(qrels, run)
    reference = pytrec_eval.RelevanceEvaluator(qrels, {f"{f}.3" for f in claimed}).evaluate(run)
    for family in claimed:
        assert fast.supports_request(family, 3) and not fast.supports_request(family, None)
        got = fast.compute(ranking, [(family, 3)], relevance_level=1)[(family, 3)]
        for t, qid in enumerate(topics):
            assert abs(got[t] - reference[qid][f"{family}_3"]) <= 1e-12, (family, qid)


def test_segment_cumsum_is_sequential_per_segment():
    rng = np.random.default_rng(7)
    lengths = rng.integers(1, 300, size=40)
    lengths[3] = 5000  # a long segment in its own length class
    segment = np.repeat(np.arange(len(lengths)), lengths)
    values = rng.random(len(segment)) / rng.integers(1, 1000, size=len(segment))
    got = fast.segment_cumsum(values, segment)
    start = 0
    for length in lengths:
        running = 0.0
        for i in range(start, start + length):
            running += values[i]  # the C loop, in Python floats (IEEE doubles)
            assert got[i] == running
        start += length


def test_hand_worked_example():
    # one topic, 4 retrieved: rel, non, (unjudged -1), rel(2); 3 relevant in qrels
    ranking = fast.SparseRanking(
        num_ret=np.array([4]),
        hit_topic=np.array([0, 0, 0, 0]),
        hit_pos=np.array([0, 1, 2, 3]),
        hit_rel=np.array([1, 0, -1, 2]),
        judged_topic=np.array([0, 0, 0, 0, 0]),
        judged_rel=np.array([1, 0, -1, 2, 1]),
    )
    got = fast.compute(
        ranking,
        [
            ("P", 2),
            ("map", None),
            ("ndcg_cut", 2),
            ("recip_rank", None),
            ("recall", 4),
            ("success", 1),
        ],
    )
    assert got[("P", 2)][0] == 0.5
    assert got[("map", None)][0] == pytest.approx((1 + 2 / 4) / 3)
    dcg = 1.0  # rank 1 gain 1 / log2(2)
    idcg = 2.0 + 1 / math.log2(3)
    assert got[("ndcg_cut", 2)][0] == pytest.approx(dcg / idcg)
    assert got[("recip_rank", None)][0] == 1.0
    assert got[("recall", 4)][0] == pytest.approx(2 / 3)
    assert got[("success", 1)][0] == 1.0


def test_iprec_at_recall_hand_worked():
    """Ranks 1, 4, 5 relevant of 6 retrieved, 4 relevant judged: precisions 1, 2/4, 3/5 at
    them, best at or below: 1, 0.6, 0.6. C's (long) (level * 4 + 0.9) relevant documents
    per level: 0 (the best of all), 1, 1, 2, 2, 2 (0.5: 2.9), 3, 3, 4, 4, 4 (0.8: 4.1;
    10.0's lround gives 3 there: 0.6); 4 > 3 retrieved: 0. A topic with no relevant
    document: 0 everywhere; an empty ranking (-J): 0/0 at the levels needing none."""
    ranking = fast.SparseRanking(
        num_ret=np.array([6, 2, 0]),
        hit_topic=np.array([0, 0, 0, 0, 1]),
        hit_pos=np.array([0, 3, 4, 5, 0]),
        hit_rel=np.array([1, 1, 2, 0, 0]),
        judged_topic=np.array([0, 0, 0, 0, 0, 1, 2]),
        judged_rel=np.array([1, 1, 2, 0, 1, 0, 1]),
    )
    levels = [i / 10 for i in range(11)]
    got = fast.compute(ranking, [("iprec_at_recall", level) for level in levels])
    values = [got[("iprec_at_recall", level)].tolist() for level in levels]
    expected = [1.0, 1.0, 1.0, 0.6, 0.6, 0.6, 0.6, 0.6, 0.0, 0.0, 0.0]
    assert [v[0] for v in values] == expected
    assert [v[1] for v in values] == [0.0] * 11
    assert math.isnan(values[0][2]) and [v[2] for v in values[1:]] == [0.0] * 10
    level_2 = fast.compute(ranking, [("iprec_at_recall", 0.5)], relevance_level=2)
    assert level_2[("iprec_at_recall", 0.5)].tolist()[:2] == [0.2, 0.0]  # 1 of 1 (1.4): 1/5


def test_iprec_at_recall_of_trec_eval_10_stays_native(tmp_path):
    """10.0 rounds the levels' document counts (lround): the fast engine reproduces 9.0.8
    only, so --compat 10.0 leaves iprec_at_recall to trecbench's port, as before."""
    from trecbench.evaluation import evaluate

    (tmp_path / "q").write_text("1 0 a 1\n1 0 b 1\n1 0 c 1\n1 0 d 1\n")
    (tmp_path / "r").write_text("1 Q0 a 1 6 t\n1 Q0 x 2 5 t\n1 Q0 b 3 4 t\n1 Q0 c 4 3 t\n")
    args = (str(tmp_path / "q"), str(tmp_path / "r"), ["iprec_at_recall"])
    v9, v10 = evaluate(*args), evaluate(*args, compat="10.0")
    assert {c.engine for c in v9.columns} == {"fast"}
    assert {c.engine for c in v10.columns} == {"native"}
    at = {c.label: i for i, c in enumerate(v9.columns)}["iprec_at_recall_0.80"]
    # 0.8 of 4: 9.0.8 needs (long) 4.1 = 4 > 3 retrieved (0), 10.0 lround(3.2) = 3 (3/4)
    assert v9.per_query["value"].tolist()[at] == 0.0
    assert v10.per_query["value"].tolist()[at] == 0.75


@pytest.mark.filterwarnings("ignore::trecbench.errors.ParameterDomainWarning")
def test_unsupported_requests_are_refused():
    from trecbench.measures import parse_measure

    assert not fast.supports_request("bpref")
    assert not fast.supports_request("P", None)
    assert not fast.supports_request("P", 10, relevance_level=0)
    assert fast.supports_request("recip_rank", 10)
    for name in ("nDCG@10", "MAP@100", "MRR@10", "Recall@50", "HitRate@10", "P.5,10", "map"):
        assert fast.supports(parse_measure(name)), name
    for name in ("iprec_at_recall..10", "IPrec(rel=2)@0.25", "iprec_at_recall.-1,1.5"):
        assert fast.supports(parse_measure(name)), name
    for name in ("ndcg.1=3,2=9", "bpref", "MaxOntSim@10", "iprec_at_recall.1e300", "runid"):
        assert not fast.supports(parse_measure(name)), name
    with pytest.raises(ValueError):
        fast.compute(fast.SparseRanking(*[np.zeros(0, np.int64)] * 6), [("bpref", None)])


# ---------------------------------------------------------------------------------------
# the fast ranking path (trecbench.ranking.order_run, find_duplicate) against naive oracles


def _run_table(run_text: str):
    from trecbench.inputs import trec_text

    return trec_text.run_table(trec_text.tokenize(run_text.encode()))


@pytest.mark.parametrize("seed", range(40))
@pytest.mark.parametrize("float32", [True, False])
def test_order_run_matches_a_naive_sort(seed, float32):
    from trecbench import ranking

    table = _run_table(random_case(seed, shuffle=seed % 3 == 0)[1])
    qid, docno = table["qid"].to_pylist(), table["docno"].to_pylist()
    score = table["score"].to_pylist()
    cast = (lambda s: float(np.float32(s))) if float32 else float
    expected = sorted(
        range(len(qid)),
        key=lambda i: (qid[i].encode(), -cast(score[i]), [-b for b in docno[i].encode()] + [1]),
    )
    order = ranking.order_run(table, float32)
    assert order.order.tolist() == expected
    assert [order.qids[t].as_py() for t in order.topic] == [qid[i] for i in expected]
    ranked = ranking.rank_table(table, float32)
    assert ranked["line"].to_pylist() == [i + 1 for i in expected]


def test_order_run_keeps_presorted_runs_in_place():
    from trecbench import ranking

    text = "".join(
        f"{q} Q0 D{d} 1 {s} t\n" for q in ("2", "10") for d, s in ((9, 3), (8, 3), (7, 1))
    )
    order = ranking.order_run(_run_table(text))
    assert order.order.tolist() == [3, 4, 5, 0, 1, 2]  # "10" before "2", blocks moved whole
    assert order.positions().tolist() == [0, 1, 2, 0, 1, 2]


@pytest.mark.parametrize("seed", range(12))
def test_row_arrays_of_presorted_runs_with_ties_match_a_scatter(seed):
    """Rows in trec_eval order within topics, but for score ties listed docno-ascending
    (moved by the ranking): each input row's topic and position, told without scattering
    every row, are those of the rank it took (topics in byte-wise order and not, some
    topics dropped, -M)."""
    from trecbench import ranking

    rng = np.random.default_rng(seed)
    qids = [str(q) for q in rng.permutation(12)[: int(rng.integers(2, 12))]]
    if seed % 2:
        qids.sort()  # byte-wise already: the input is (nearly) the ranked order
    lines = []
    for qid in qids:
        scores = np.sort(rng.integers(0, 4, int(rng.integers(1, 9))))[::-1]
        docnos = rng.permutation(20)[: len(scores)]  # ties in any docno order
        lines += [f"{qid} Q0 D{d:02d} 0 {s} t" for d, s in zip(docnos, scores, strict=True)]
    table = _run_table("\n".join(lines) + "\n")
    order = ranking.order_run(table)
    kept = sorted(rng.choice(qids, int(rng.integers(1, len(qids) + 1)), replace=False))
    for max_docs in (None, 3):
        ranked = ranking.RankedRun(table, order, kept, max_docs)
        topic = np.full(table.num_rows, -1)
        position = np.zeros(table.num_rows, np.int64)
        topic[ranked.rows] = ranked.topic
        position[ranked.rows] = ranked.position
        got_topic, got_position = ranked.row_arrays()
        assert got_topic.tolist() == topic.tolist()
        kept_rows = topic >= 0
        assert got_position[kept_rows].tolist() == position[kept_rows].tolist()


@pytest.mark.parametrize("seed", range(30))
def test_find_duplicate_matches_a_naive_check(seed):
    from trecbench import hash_index, ranking

    rng = np.random.default_rng(seed)
    lines = random_case(seed)[1].splitlines()
    for _ in range(int(rng.integers(0, 3))):  # repeat a line, maybe with another score
        fields = lines[int(rng.integers(len(lines)))].split()
        fields[4] = str(rng.normal())
        lines.insert(int(rng.integers(len(lines) + 1)), " ".join(fields))
    table = _run_table("\n".join(lines) + "\n")
    # the first topic (byte-wise: where trec_eval stops) with a document listed twice, and
    # in it the smallest such docno byte-wise (trec_eval's docno-sorted check), its first
    # two listings
    listed: dict[tuple[str, str], list[int]] = {}
    for line, (q, d) in enumerate(
        zip(table["qid"].to_pylist(), table["docno"].to_pylist(), strict=True), 1
    ):
        listed.setdefault((q, d), []).append(line)
    twice = [(q.encode(), d.encode(), q, d) for (q, d), at in listed.items() if len(at) > 1]
    expected = None
    if twice:
        _, _, q, d = min(twice)
        expected = (q, d, *listed[(q, d)][:2])
    topic, qids = ranking.topic_codes(table["qid"])
    found = ranking.find_duplicate(topic, table["docno"], table["line"])
    got = None if found is None else (qids[int(found[0])].as_py(), *found[1:])
    assert got == expected
    # hashes of few values: documents listed once collide with the duplicates, and their
    # candidates interleave (the second line was once taken from another document's rows)
    few = hash_index.string_hash(table["docno"]) % np.uint64(3) * np.uint64(0x9E3779B97F4A7C15)
    index = hash_index.HashIndex(few, topics=topic)
    found = ranking.find_duplicate(topic, table["docno"], table["line"], index=index)
    assert (None if found is None else (qids[int(found[0])].as_py(), *found[1:])) == expected


def test_string_hash_depends_only_on_the_bytes():
    import pyarrow as pa

    from trecbench import hash_index

    words = ["", "a", "ab", "abcdefgh", "abcdefghi", "abcdefgh" * 3, "é", "1e5", "x" * 17]
    whole = pa.array(words * 3, pa.string())
    pieces = pa.chunked_array([whole.slice(0, 5), whole.slice(5, 11), whole.slice(16)])
    large = whole.cast(pa.large_string())
    for hashes in (hash_index.string_hash(pieces), hash_index.string_hash(large)):
        assert hashes.tolist() == hash_index.string_hash(whole).tolist()
    first = hash_index.string_hash(whole)[: len(words)]
    assert len(set(first.tolist())) == len(words)


# ---------------------------------------------------------------------------------------
# through trecbench.evaluate: the fast engine against the reference engines


FAST_MEASURES = [
    "num_ret", "num_rel", "num_rel_ret", "map", "Rprec", "recip_rank", "ndcg",
    "P.1,5,10,30", "recall.5,10,1000", "success.1,5,10", "map_cut.5,100", "ndcg_cut.3,10",
    "MRR@10", "MRR@3", "HitRate@2", "Recall_all@10",
]  # fmt: skip


def _evaluations(qrels, run, **options):
    from trecbench.evaluation import evaluate

    return [
        evaluate(qrels, run, FAST_MEASURES, engine=engine, **options)
        for engine in ("fast", "pytrec_eval")
    ]


@pytest.mark.parametrize("seed", range(24))
def test_evaluate_with_the_fast_engine_matches_the_reference(seed, tmp_path):
    qrels_text, run_text = random_case(3000 + seed)
    (tmp_path / "q").write_text(qrels_text)
    (tmp_path / "r").write_text(run_text)
    options = [
        {},
        {"complete": True},
        {"max_docs": 1 + seed % 7},
        {"relevance_level": 2},
        {"judged_only": True},
    ][seed % 5]
    fast_result, reference = _evaluations(str(tmp_path / "q"), str(tmp_path / "r"), **options)
    assert {c.engine for c in fast_result.columns} == {"fast"}
    assert "fast" not in {c.engine for c in reference.columns}
    assert [c.label for c in fast_result.columns] == [c.label for c in reference.columns]
    got, want = fast_result.per_query, reference.per_query
    assert got[["qid", "measure"]].equals(want[["qid", "measure"]])
    assert np.abs(got["value"].to_numpy() - want["value"].to_numpy()).max() <= 1e-12
    got, want = fast_result.aggregates, reference.aggregates
    assert got["measure"].tolist() == want["measure"].tolist()
    assert [f"{v:.4f}" for v in got["value"]] == [f"{v:.4f}" for v in want["value"]]


@pytest.mark.filterwarnings("ignore::trecbench.errors.ParameterDomainWarning")
@pytest.mark.parametrize("seed", range(10))
def test_evaluate_iprec_at_recall_with_the_fast_engine_equals_pytrec_eval(seed, tmp_path):
    """Through trecbench.evaluate, == per topic (NaN where -J empties a ranking: 0/0)."""
    from trecbench.evaluation import evaluate

    qrels_text, run_text = random_case(3100 + seed, label_style="graded" if seed % 2 else None)
    (tmp_path / "q").write_text(qrels_text)
    (tmp_path / "r").write_text(run_text)
    options = [{}, {"complete": True}, {"max_docs": 3}, {"relevance_level": 2}]
    options.append({"judged_only": True})
    measures = ["iprec_at_recall", "IPrec@0.25", "IPrec(rel=2)@0.5", "iprec_at_recall.-1,.33,1.5"]
    args = (str(tmp_path / "q"), str(tmp_path / "r"), measures)
    fast_result, reference = (
        evaluate(*args, engine=engine, **options[seed % 5]) for engine in ("fast", "pytrec_eval")
    )
    assert {c.engine for c in fast_result.columns} == {"fast"}
    assert [c.label for c in fast_result.columns] == [c.label for c in reference.columns]
    got, want = fast_result.per_query, reference.per_query
    assert got[["qid", "measure"]].equals(want[["qid", "measure"]])
    assert np.array_equal(got["value"].to_numpy(), want["value"].to_numpy(), equal_nan=True)


# trec_eval 9.0.8 outputs holding iprec_at_recall (tests/fixtures/trec_eval_random): ties,
# float32-only ties, odd docnos, graded labels at -l2/-l5, -J, -c, -M, levels given
IPREC_CASES = [
    "mixed__all_q", "float32_ties__all_q", "exact_ties__q", "docnos__J_all_q",
    "graded__l2_all_q", "graded__l5_all_q", "negative_labels__J_all_q", "topics__c_all_q",
    "large_scores__M5_all_q", "mixed2__J_c_M_l", "judged_cut__J_M10_all_q",
    "complete_ties__all_q", "cutoff_ties__q", "mixed__params_q", "mixed__negative_cutoffs",
]  # fmt: skip


@pytest.mark.filterwarnings("ignore::trecbench.errors.ParameterDomainWarning")
@pytest.mark.parametrize("case", IPREC_CASES)
def test_score_iprec_at_recall_prints_trec_eval_lines(case, monkeypatch):
    """``trecbench score --engine fast -m iprec_at_recall`` (or the case's levels) with the
    case's flags prints trec_eval's iprec_at_recall lines, byte for byte."""
    import json
    from pathlib import Path

    from tests.test_score_suite import run_score

    folder = Path(__file__).parent / "fixtures" / "trec_eval_random"
    manifest = json.loads((folder / "cases.json").read_text())
    (entry,) = [c for c in manifest["cases"] if c["name"] == case]
    flags, measures, argv = entry["trec_eval_argv"][:-2], [], []
    while flags:
        flag = flags.pop(0)
        if flag.startswith("-m"):
            measures.append(flag[2:] or flags.pop(0))
        else:
            argv.append(flag)
    levels = [m for m in measures if m.startswith("iprec_at_recall")] or ["iprec_at_recall"]
    argv += ["--engine", "fast", "-m", *levels, entry["qrels"], entry["run"]]
    stdout, _, code = run_score(argv, folder, monkeypatch)
    assert code == 0
    expected = [
        line
        for line in (folder / entry["stdout"]).read_text().splitlines()
        if line.startswith("iprec_at_recall")
    ]
    assert expected and stdout.decode().splitlines() == expected


def _trec_lines(path) -> dict[tuple[str, str], str]:
    lines = {}
    for line in path.read_text().splitlines():
        label, qid, value = line.split("\t")
        lines[(label.strip(), qid)] = value
    return lines


@pytest.mark.parametrize(
    "argv",
    [
        ("out.test.aq", "qrels.test", "results.test", {}),
        ("out.test.aqcM", "qrels.test", "results.trunc", {"complete": True, "max_docs": 100}),
        ("out.test.aql", "qrels.rel_level", "results.test", {"relevance_level": 2}),
    ],
)
def test_fast_engine_reproduces_the_trec_eval_suite(argv, trec_eval_suite):
    from trecbench.evaluation import evaluate

    expected_file, qrels, run, options = argv
    expected = _trec_lines(trec_eval_suite / expected_file)
    measures = ["num_ret", "num_rel", "num_rel_ret", "map", "Rprec", "recip_rank", "ndcg", "P"]
    measures += ["recall", "success", "map_cut", "ndcg_cut"]  # all default cutoffs
    result = evaluate(
        str(trec_eval_suite / qrels), str(trec_eval_suite / run), measures, engine="fast",
        **options,
    )  # fmt: skip
    assert {c.engine for c in result.columns} == {"fast"}
    (run_result,) = result.runs
    checked = 0
    for column in result.columns:
        integer = column.label.startswith("num_")
        for qid, value in zip(run_result.qids, run_result.values[column.label], strict=True):
            text = str(int(value)) if integer else f"{value:6.4f}"
            assert text == expected[(column.label, qid)], (column.label, qid)
            checked += 1
        summary = run_result.summary[column.label]
        text = str(summary) if integer else f"{summary:6.4f}"
        assert text == expected[(column.label, "all")], column.label
    assert checked == len(result.columns) * len(run_result.qids) > 0


# ---------------------------------------------------------------------------------------
# trec_text.read_regular_run: the fast reader equals the tokenizer whenever it answers

MUTATIONS = [
    lambda f, sep: f,
    lambda f, sep: f[:2] + ["", *f[2:]],  # doubled separator
    lambda f, sep: ["", *f],  # leading separator
    lambda f, sep: [*f, ""],  # trailing separator
    lambda f, sep: [*f, "extra"],  # a seventh token
    lambda f, sep: f[:4] + ["nan", f[5]],
    lambda f, sep: f[:4] + ["1e400", f[5]],
    lambda f, sep: f[:4] + ["0x10", f[5]],
    lambda f, sep: f[:3] + ["1.5", *f[4:]],  # a rank that is not an integer
    lambda f, sep: f[:3] + ["+2", *f[4:]],
    lambda f, sep: f[:5],  # a short line
    lambda f, sep: [f[0] + "\r", *f[1:]],
    lambda f, sep: [f[0] + ("\t" if sep == " " else " ") + f[1], *f[2:]],
    lambda f, sep: [f[0].replace(f[0], "é"), *f[1:]],
]


@pytest.mark.parametrize("seed", range(40))
def test_read_regular_run_equals_the_tokenizer(seed, tmp_path):
    from trecbench.errors import InputError
    from trecbench.inputs import trec_text

    rng = np.random.default_rng(seed)
    _, text = random_case(4000 + seed)
    sep = "\t" if "\t" in text else " "
    lines = [line.split(sep) for line in text.splitlines()]
    for _ in range(int(rng.integers(0, 3))):
        i = int(rng.integers(len(lines)))
        lines[i] = MUTATIONS[int(rng.integers(len(MUTATIONS)))](lines[i], sep)
    body = "\n".join(sep.join(fields) for fields in lines)
    body += "\n" if rng.random() < 0.8 else ""
    if rng.random() < 0.1:
        body = "\n" + body  # a blank line
    path = tmp_path / "run"
    path.write_text(body)
    fast = trec_text.read_regular_run(path)
    try:
        reference = trec_text.run_table(trec_text.tokenize_file(path))
    except InputError:
        assert fast is None
        return
    if fast is not None:
        for name in fast.column_names:
            assert fast.column(name).to_pylist() == reference.column(name).to_pylist(), name


@pytest.mark.parametrize("seed", range(10))
def test_read_regular_run_takes_regular_files(seed, tmp_path):
    from trecbench.inputs import trec_text

    path = tmp_path / "run"
    path.write_text(random_case(5000 + seed)[1])
    fast = trec_text.read_regular_run(path)
    reference = trec_text.run_table(trec_text.tokenize_file(path))
    assert fast is not None
    for name in fast.column_names:
        assert fast.column(name).to_pylist() == reference.column(name).to_pylist(), name


def test_read_regular_run_takes_a_plain_run(tmp_path):
    from trecbench.inputs import trec_text

    path = tmp_path / "run"
    path.write_text("1 Q0 D1 1 2.5 tag\n1 Q0 D2 2 -1e-3 tag\n10 Q0 D9 1 .5 other\n")
    table = trec_text.read_regular_run(path)
    assert table.column("docno").to_pylist() == ["D1", "D2", "D9"]
    assert table.column("score").to_pylist() == [2.5, -0.001, 0.5]
    assert "line" not in table.column_names  # row i is line i + 1
    assert table.column("tag").to_pylist()[-1] == "other"


def test_duplicates_in_a_regular_run_name_their_lines(tmp_path):
    from trecbench.errors import DuplicateError
    from trecbench.evaluation import evaluate

    (tmp_path / "qrels").write_text("1 0 D1 1\n2 0 D2 1\n")
    (tmp_path / "run").write_text("1 Q0 D1 1 2 t\n2 Q0 D2 1 3 t\n2 Q0 D3 2 2 t\n2 Q0 D2 3 1 t\n")
    with pytest.raises(DuplicateError, match="duplicate docs D2 for topic 2 .first on line 2."):
        evaluate(str(tmp_path / "qrels"), str(tmp_path / "run"), ["P@1"])
    # trec_eval checks only what -M keeps
    result = evaluate(str(tmp_path / "qrels"), str(tmp_path / "run"), ["P@1"], max_docs=2)
    assert result.per_query["value"].tolist() == [1.0, 1.0]


def test_hash_index_finds_every_row_with_the_same_hash_bits():
    from trecbench import hash_index

    # 8 rows: shift is 3 bits, so keys differing only in the low 3 bits collide
    keys = np.array([0x100, 0x101, 0x200, 0x300, 0x307, 0x400, 0x500, 0x600], np.uint64)
    index = hash_index.HashIndex(keys.copy())
    colliding = sorted(index.row_at(index.colliding_positions()).tolist())
    assert colliding == [0, 1, 3, 4]  # candidates only: callers verify them exactly
    which, rows = index.lookup(np.array([0x305, 0x600, 0x999], np.uint64))
    pairs = sorted(zip(which.tolist(), rows.tolist(), strict=True))
    assert pairs == [(0, 3), (0, 4), (1, 7)]
    subset = hash_index.HashIndex(keys.copy(), rows=np.array([2, 5]))
    assert subset.lookup(np.array([0x400], np.uint64))[1].tolist() == [5]


def test_a_duplicate_is_named_as_trec_eval_names_it_the_smallest_docno(tmp_path):
    # trec_eval sorts a topic's documents by docno and names the first listed twice: "a"
    # here, where trecbench named b (its second listing came first in the file); the
    # qrels alike (d1, not d2)
    from trecbench import evaluate
    from trecbench.errors import DuplicateError

    (tmp_path / "q").write_text("q1 0 a 1\n")
    (tmp_path / "r").write_text("q1 Q0 b 1 1 t\nq1 Q0 a 2 1 t\nq1 Q0 b 3 1 t\nq1 Q0 a 4 1 t\n")
    (tmp_path / "dq").write_text("q1 0 d2 1\nq1 0 d1 0\nq1 0 d2 0\nq1 0 d1 1\n")
    (tmp_path / "c").write_text("q1 Q0 x 1 1 t\n")
    for memory in (None, 1):
        with pytest.raises(
            DuplicateError, match=r":4: duplicate docs a for topic q1 \(first on line 2\)"
        ):
            evaluate(str(tmp_path / "q"), str(tmp_path / "r"), ["map"], memory=memory)
    with pytest.raises(
        DuplicateError, match=r"dq:4: duplicate docs d1 for topic q1 \(first on line 2\)"
    ):
        evaluate(str(tmp_path / "dq"), str(tmp_path / "c"), ["map"])


@pytest.mark.parametrize("seed", range(10))
def test_runs_indexed_topic_by_topic_find_duplicates_and_judgments_as_naive_checks(seed):
    """Runs large enough for the hash index to lead its keys with the topic (each
    stretch of topics sorted on its own): the duplicate it finds and the rows it matches
    to judgments are a naive check's (topics of 1 to 1,500 documents, some listed twice,
    rows in and out of trec_eval's order, topics in it or not; one topic of 70,000 in two
    runs)."""
    from trecbench import hash_index, ranking

    rng = np.random.default_rng(seed)
    lines = []
    topics = [str(q) for q in rng.permutation(int(rng.integers(3, 30)))]
    if seed % 4 == 1:
        topics.sort()  # in trec_eval's order, rows moved only within topics (ties)
    for q in topics:
        depth = int(rng.choice([1, 7, 300, 1500]))
        if seed < 2 and q == "0":
            depth = 70_000  # pieces too large for 32-bit keys: 64-bit ones
        span = 3 * depth if seed % 3 == 0 else 10**9  # a third of the runs list some twice
        docnos = rng.integers(0, span, depth)
        scores = np.round(rng.normal(size=depth), 1)  # ties: rows move within topics
        if seed % 2:
            scores = np.sort(scores)[::-1]  # in trec_eval's order but for ties
        lines += [f"{q} Q0 D{d} 0 {s} t" for d, s in zip(docnos, scores, strict=True)]
    table = _run_table("\n".join(lines) + "\n")
    qid, docno = table["qid"].to_pylist(), table["docno"].to_pylist()
    order = ranking.order_run(table)
    ranked = ranking.RankedRun(table, order, order.qids.to_pylist())
    if len(qid) >= 4096:
        layout = ranked.index().layout
        assert isinstance(layout, hash_index._TopicPieces)  # not one sort
        assert layout.width == (64 if seed < 2 else 32)
        assert (layout.rows is None) == (seed % 4 == 1)  # indexed in the file's order
    listed: dict[tuple[str, str], list[int]] = {}
    for line, pair in enumerate(zip(qid, docno, strict=True), 1):
        listed.setdefault(pair, []).append(line)
    twice = sorted((q.encode(), d.encode(), q, d) for (q, d), at in listed.items() if len(at) > 1)
    expected = None if not twice else (*twice[0][2:], *listed[twice[0][2:]][:2])
    assert ranked.first_duplicate() == expected
    # judgments: listed pairs, unlisted docnos, and listed docnos of another topic
    picks = rng.integers(0, len(qid), 200)
    judged_qids = [qid[i] for i in picks] + [qid[0]] * 20 + [qid[-1]] * 20
    judged_docnos = [docno[i] for i in picks] + ["X"] * 20 + [docno[0]] * 20
    topic = np.array([ranked.qids.index(q) for q in judged_qids])
    rows, which = ranked.match(topic, pa.array(judged_docnos))
    got = sorted(zip(which.tolist(), rows.tolist(), strict=True))
    naive = [
        (w, r)
        for w, pair in enumerate(zip(judged_qids, judged_docnos, strict=True))
        for r in (line - 1 for line in listed.get(pair, []))
    ]
    assert got == sorted(naive)


def test_a_hash_index_sorts_topics_in_pieces_only_when_they_come_in_order():
    from trecbench import hash_index

    keys = np.arange(5000, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    ascending = np.repeat(np.arange(5), 1000)
    index = hash_index.HashIndex(keys.copy(), topics=ascending)
    assert isinstance(index.layout, hash_index._TopicPieces) and index.layout.width == 32
    descending = hash_index.HashIndex(keys.copy(), topics=ascending[::-1].copy())
    assert isinstance(descending.layout, hash_index._OneSort)
    for built, topics in ((index, [0, 4]), (descending, [4, 0])):  # of rows 10 and 4500
        assert np.all(built.packed[1:] >= built.packed[:-1])  # sorted as one array
        which, rows = built.lookup(keys[[10, 4500]], np.array(topics))
        assert sorted(zip(which.tolist(), rows.tolist(), strict=True)) == [(0, 10), (1, 4500)]
    # a key looked up under another topic, or one the run lacks, finds nothing
    assert len(index.lookup(keys[[10, 10, 10]], np.array([1, 7, -1]))[0]) == 0
    # pieces too large for 32-bit keys with enough hash bits: 64-bit keys, same answers
    # topics of a few rows leave 32-bit keys few hash bits, but make few false pairs:
    # 3,000 topics of 7 (a key listed twice in one of them is found)
    small = np.repeat(np.arange(3000), 7)
    seven = np.tile(np.arange(7, dtype=np.uint64), 3000) * np.uint64(0x9E3779B97F4A7C15)
    seven[7 * 1234 + 5] = seven[7 * 1234 + 2]
    index = hash_index.HashIndex(seven.copy(), topics=small)
    assert isinstance(index.layout, hash_index._TopicPieces) and index.layout.width == 32
    assert {7 * 1234 + 2, 7 * 1234 + 5} <= set(index.row_at(index.colliding_positions()))
    many = np.arange(70_000, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    one_topic = hash_index.HashIndex(many.copy(), topics=np.zeros(70_000, np.int64))
    assert one_topic.layout.width == 64
    assert one_topic.lookup(many[[69_999]], np.array([0]))[1].tolist() == [69_999]


def test_topics_in_stretches_are_renumbered_in_the_order_they_come():
    from trecbench import hash_index

    renumbered = hash_index.in_stretch_order(np.array([2, 2, 0, 0, 0, 1], np.int32))
    assert renumbered.tolist() == [0, 0, 1, 1, 1, 2] and renumbered.dtype == np.int32
    ascending = np.array([0, 0, 1, 3])
    assert hash_index.in_stretch_order(ascending) is ascending
    back = np.array([1, 1, 0, 1])  # topic 1 comes back: no numbering keeps it one stretch
    assert hash_index.in_stretch_order(back) is back


@pytest.mark.parametrize("twice", [["7", "12"], ["12"], []])
def test_a_run_listing_topics_in_numeric_order_finds_duplicates_in_pieces(twice):
    """Topics 1, 2, ... 12 listed whole in numeric order, coded byte-wise (1, 10, 11, 12,
    2...): the duplicate check indexes them in the order they come, a few topics at a time
    (:class:`_TopicPieces`, not one sort of every row), and still names the first topic
    byte-wise that lists a document twice, as trec_eval does."""
    from trecbench import hash_index, ranking

    lines = [f"{q} Q0 d{d} {d} {-d} r" for q in range(1, 13) for d in range(300)]
    for q in twice:  # d5 listed again at the end of topic q
        lines.insert(int(q) * 300, f"{q} Q0 d5 300 -300 r")
    table = _run_table("\n".join(lines) + "\n")
    topic, qids = ranking.topic_codes(table["qid"])
    assert not hash_index.non_decreasing(topic)
    keys = hash_index.string_hash(table["docno"])
    index = hash_index.HashIndex(keys, topics=hash_index.in_stretch_order(topic))
    assert isinstance(index.layout, hash_index._TopicPieces)
    found = ranking.find_duplicate(topic, table["docno"], table["line"])
    if not twice:
        assert found is None
        return
    first = min(twice)  # byte-wise: "12" before "7"
    listed = [lines.index(f"{first} Q0 d5 {rank} -{rank} r") + 1 for rank in (5, 300)]
    assert (qids[found[0]].as_py(), *found[1:]) == (first, "d5", *listed)


def test_a_ranked_run_refuses_hashes_that_are_not_one_a_row():
    from trecbench import hash_index, ranking

    table = _run_table("1 Q0 a 1 2 t\n1 Q0 b 2 1 t\n")
    order = ranking.order_run(table)
    hashes = hash_index.string_hash(table["docno"])
    with pytest.raises(ValueError, match="docno_hashes holds 1 hash for 2 rows"):
        ranking.RankedRun(table, order, ["1"], docno_hashes=hashes[:1])
    ranked = ranking.RankedRun(table, order, ["1"], docno_hashes=hashes)
    assert ranked.first_duplicate() is None


@pytest.mark.parametrize(
    ("engine", "said"),
    [
        ("fast", "engine fast does not compute every measure asked: bpref by pytrec_eval"),
        ("pytrec_eval", None),  # it computes both
        ("auto", None),  # auto picks an engine per call: nothing to say
    ],
)
def test_a_measure_the_engine_asked_for_does_not_compute_is_said(capsys, engine, said):
    # --engine fast -m bpref was computed by pytrec_eval without a word
    from conftest import ROOT

    from trecbench.cli import run
    from trecbench.engines import assign
    from trecbench.measures import parse_measures

    args = ["score", "--engine", engine, "-m", "bpref", "-m", "P.5"]
    files = [str(ROOT / "qrels" / "hpo-demo.qrels"), str(ROOT / "runs" / "tfidf-char.run")]
    assert run([*args, *files]) == 0
    err = capsys.readouterr().err
    assert (said in err) if said else "EngineWarning" not in err
    chosen = assign(parse_measures(["bpref", "P.5"]), "auto")
    assert sorted(chosen.values()) == ["pytrec_eval", "pytrec_eval"]  # one engine a call


def test_a_measure_computed_elsewhere_is_said_by_the_engine_that_computes_it(capsys):
    # --engine fast -m gm_bpref -D 1: a port of trec_eval computes gm_bpref (its trace),
    # and the warning said pytrec_eval did
    from conftest import ROOT

    from trecbench.cli import run

    args = ["score", "--engine", "fast", "-m", "gm_bpref", "-D", "1", "--format", "json"]
    files = [str(ROOT / "qrels" / "hpo-demo.qrels"), str(ROOT / "runs" / "tfidf-char.run")]
    assert run([*args, *files]) == 0
    out, err = capsys.readouterr()
    assert '"engine": "native"' in out
    assert "engine fast does not compute every measure asked: gm_bpref by native" in err
    assert "by pytrec_eval" not in err


@pytest.mark.parametrize("flags", [["-D", "1"], ["--compat", "10.0"]])
def test_a_measure_moved_to_the_ports_from_the_engine_asked_for_is_said(capsys, flags):
    # --engine fast -m ndcg -D 1 (its trace) or --compat 10.0 -m iprec_at_recall.0.5
    # (10.0's rounded recall cutoffs): fast computes the measure, but trec_eval's ports
    # did, without a word
    from conftest import ROOT

    from trecbench.cli import run

    measure = "ndcg" if flags[0] == "-D" else "iprec_at_recall.0.5"
    args = ["score", "--engine", "fast", "-m", measure, *flags, "--format", "json"]
    files = [str(ROOT / "qrels" / "hpo-demo.qrels"), str(ROOT / "runs" / "tfidf-char.run")]
    assert run([*args, *files]) == 0
    out, err = capsys.readouterr()
    assert '"engine": "native"' in out
    assert f"engine fast does not compute every measure asked: {measure} by native" in err
