"""The small path's pure-Python measures (trecbench.small_measures, issue 31) are a second
implementation of the fast engine's trec_eval families: on seeded random runs (exact score
ties, ties only as float32, graded labels, cutoffs beyond the run, one-document topics,
relevance levels) every per-topic value and every summary value is the general path's,
bit for bit (compared as float.hex, not approximately)."""

from __future__ import annotations

import random

import pytest

import trecbench
from trecbench import small_measures
from trecbench.small_score import small_evaluation

# every family the small path computes, with cutoffs inside and beyond the runs (at most
# 60 documents a topic), trec_eval's and ir_measures' spellings, relevance levels 1 to 3
MEASURES = [
    "P.1,5,10,100,1000",
    "recall.5,100,1000",
    "success.1,3,1000",
    "map",
    "map_cut.5,10,1000",
    "ndcg",
    "ndcg_cut.1,5,10,1000",
    "recip_rank",
    "Rprec",
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "MRR@3",
    "MRR@1000",
    "HitRate@2",
    "Recall_all@5",
    "Recall_all@1000",
    "P(rel=2)@5",
    "R(rel=3)@10",
    "AP(rel=2)",
    "RR(rel=3)",
    "Rprec(rel=2)",
    "NumRelRet(rel=2)",
]
_SCORES = [0.0, -0.0, 0.1, 1 / 3, 0.5, 2.0, 12345.678, -7.25]
_NUDGES = [0.0, 0.0, 1e-9, -1e-9, 2.0**-30, 1.0]  # 1e-9 and 2^-30: ties only as float32


def _case(seed: int) -> tuple[str, str]:
    """Qrels and a run the small path takes (see the module docstring)."""
    rng = random.Random(seed)
    qrels, run = [], []
    for topic in range(rng.randint(1, 40)):
        size = 1 if rng.random() < 0.2 else rng.randint(1, 60)
        docnos = rng.sample([f"d{i}" for i in range(400)], size)
        scores = [rng.choice(_SCORES) + rng.choice(_NUDGES) for _ in docnos]
        top = max(range(size), key=lambda i: (scores[i], docnos[i]))  # judged: no warning
        judged = [docnos[top]] + [d for d in docnos if d != docnos[top] and rng.random() < 0.4]
        judged += [f"u{i}" for i in range(rng.randint(0, 4))]  # judged, not retrieved
        grades = [rng.randint(1, 4)] + [rng.randint(0, 4) for _ in judged[1:]]
        qrels += [f"t{topic} 0 {d} {g}" for d, g in zip(judged, grades, strict=True)]
        run += [f"t{topic} Q0 {d} 1 {s!r} tag" for d, s in zip(docnos, scores, strict=True)]
    rng.shuffle(qrels)
    rng.shuffle(run)
    return "".join(f"{line}\n" for line in qrels), "".join(f"{line}\n" for line in run)


def _bits(values) -> list[str]:
    return [float(value).hex() for value in values]


@pytest.mark.parametrize("seed", range(40))
def test_every_value_is_the_general_paths_bit_for_bit(tmp_path, seed):
    qrels_text, run_text = _case(seed)
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text(qrels_text)
    run.write_text(run_text)
    small = small_evaluation(str(qrels), str(run), MEASURES)
    assert small is not None  # the small path takes every case built here
    general = trecbench.evaluate(str(qrels), str(run), MEASURES)  # --engine auto, as score
    assert [c.label for c in small.columns] == [c.label for c in general.columns]
    (ours,), (theirs,) = small.runs, general.runs
    assert ours.qids == list(theirs.qids)
    for column in small.columns:
        label = column.label
        assert _bits(ours.values[label]) == _bits(theirs.values[label]), label
        assert _bits([ours.summary[label]]) == _bits([theirs.summary[label]]), label


def test_sums_are_sequential_not_compensated():
    # 0.1 + 0.2 + 0.3 is 0.6000000000000001 summed one by one (C's sum += x); sum() of
    # Python 3.12 and math.fsum give 0.6
    assert small_measures.sequential([0.1, 0.2, 0.3]) == 0.6000000000000001
