"""An independent cross-check: ir_measures (through its pytrec_eval provider, whose ranking is
trec_eval's) per query equals trecbench for the KPI-style measures, on the trec_eval suite
and on the seeded fixtures that stress ties, float32-only ties, odd docnos and grades."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from conftest import TREC_EVAL_SUITE

import trecbench

FIXTURES = Path(__file__).parent / "fixtures" / "trec_eval_random"
# ir_measures name -> trecbench display name (trecbench accepts both spellings)
MEASURES = {
    "nDCG@10": "nDCG@10",
    "AP@100": "MAP@100",
    "R@50": "Recall@50",
    "R@100": "Recall@100",
    "P@10": "P@10",
    "Success@10": "HitRate@10",
    # pytrec_eval's success under -J (ir_measures' provider for it): the judged documents
    "Success(judged_only=True)@1": "Success(judged_only=True)@1",
    "Success(judged_only=True)@10": "Success(judged_only=True)@10",
}
CASES = [
    pytest.param(TREC_EVAL_SUITE / "qrels.test", TREC_EVAL_SUITE / "results.test", id="suite"),
    *(
        pytest.param(FIXTURES / f"{name}.qrels", FIXTURES / f"{name}.run", id=name)
        for name in ("exact_ties", "float32_ties", "cutoff_ties", "docnos", "graded", "mixed")
    ),
]


@pytest.mark.parametrize(("qrels_path", "run_path"), CASES)
def test_ir_measures_agrees_per_query(qrels_path, run_path):
    ir_measures = pytest.importorskip("ir_measures")
    if not qrels_path.exists():
        pytest.skip(f"{qrels_path} not available")
    theirs = {
        (str(m.measure), m.query_id): m.value
        for m in ir_measures.iter_calc(
            [ir_measures.parse_measure(name) for name in MEASURES],
            ir_measures.read_trec_qrels(str(qrels_path)),
            ir_measures.read_trec_run(str(run_path)),
        )
    }
    ours = trecbench.evaluate(qrels_path, run_path, measures=list(MEASURES)).per_query
    for name, display in MEASURES.items():
        rows = ours[ours["measure"] == display]
        assert len(rows) > 0
        values = dict(zip(rows["qid"], rows["value"], strict=True))
        expected = {qid: v for (measure, qid), v in theirs.items() if measure == name}
        # ir_measures also lists qrels topics absent from the run (as 0); trecbench's
        # per-query table holds the evaluated topics, as trec_eval -q prints them
        assert values.keys() <= expected.keys(), name
        for qid, value in values.items():
            assert value == pytest.approx(expected[qid], abs=1e-12), (name, qid)


# grades -2 to 5; t3 judges only grade 1 (a gain map can leave it no positive gain), every
# topic retrieves an unjudged document, t1 judges more relevant documents than it retrieves
GRADED_QRELS = """\
t1 0 d1 3
t1 0 d2 2
t1 0 d3 1
t1 0 d4 0
t1 0 d5 -1
t1 0 d6 2
t1 0 d7 5
t1 0 d8 1
t2 0 d1 1
t2 0 d2 -2
t2 0 d3 0
t2 0 d4 1
t2 0 d8 3
t3 0 d1 1
t3 0 d2 1
"""
GRADED_RUN = """\
t1 Q0 d5 1 9 r
t1 Q0 d9 2 8 r
t1 Q0 d3 3 7 r
t1 Q0 d1 4 7 r
t1 Q0 d4 5 5 r
t1 Q0 d7 6 4 r
t2 Q0 d2 1 9 r
t2 Q0 d3 2 8 r
t2 Q0 d8 3 7 r
t2 Q0 d9 4 6 r
t2 Q0 d4 5 5 r
t3 Q0 d9 1 9 r
t3 Q0 d2 2 8 r
"""
GAIN_MAPS = [
    {1: 3000},  # larger than any grade (trec_eval walks every grade up to it)
    {0: 7},  # the judged non-relevant given a gain
    {1: 2},  # a gain equal to an existing grade
    {1: 3, 3: 1},  # two grades swapped
    {2: 0, 5: -3},  # gains of 0 and below: a relevant document judged negative
    {-1: 4, -2: 0},  # negative grades given gains: judged again under -J
    {1: -1},  # t3 left with no positive gain (all -1)
]


@pytest.mark.parametrize("gains", GAIN_MAPS, ids=str)
@pytest.mark.parametrize("compat", ["9.0.8", "10.0"])
def test_gain_maps_equal_ir_measures_bit_for_bit(tmp_path, gains, compat):
    """nDCG with a gain map is ir_measures' (pytrec_eval on the qrels with each grade
    replaced by ``gains.get(grade, grade)``), bit for bit: on the whole ranking and cut,
    with a measure's judged_only and with -J, at -l 2 (nDCG's gains ignore it)."""
    ir_measures = pytest.importorskip("ir_measures")
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text(GRADED_QRELS)
    run.write_text(GRADED_RUN)
    spelled = "{" + ",".join(f"{grade}:{gain}" for grade, gain in gains.items()) + "}"
    theirs_measures = {
        f"nDCG(gains={spelled})": ir_measures.nDCG(gains=gains),
        f"nDCG(gains={spelled})@3": ir_measures.nDCG(gains=gains) @ 3,
        f"nDCG(gains={spelled},judged_only=True)": ir_measures.nDCG(gains=gains, judged_only=True),
        f"nDCG(gains={spelled},judged_only=True)@3": ir_measures.nDCG(gains=gains, judged_only=True)
        @ 3,
    }
    theirs = {
        (str(m.measure), m.query_id): m.value
        for m in ir_measures.iter_calc(
            list(theirs_measures.values()),
            ir_measures.read_trec_qrels(str(qrels)),
            ir_measures.read_trec_run(str(run)),
        )
    }

    def values(measures, **settings) -> dict[str, list[float]]:
        result = trecbench.evaluate(qrels, run, measures, compat=compat, **settings)
        (ours,) = result.runs
        assert ours.qids == ["t1", "t2", "t3"]
        return {c.measure.requested: ours.values[c.label].tolist() for c in result.columns}

    def expected(name: str) -> list[float]:
        return [theirs[(str(theirs_measures[name]), qid)] for qid in ("t1", "t2", "t3")]

    names = list(theirs_measures)
    assert values(names, relevance_level=2) == {name: expected(name) for name in names}
    judged = values(names[:2], judged_only=True)
    assert judged == {
        name: expected(name.replace(")", ",judged_only=True)", 1)) for name in names[:2]
    }


def test_a_gain_map_leaving_a_later_topic_gains_below_minus_one_scores_it_0(tmp_path):
    """t3 (not the first topic) mapped to gains of -5 alone: no positive gain, nDCG 0 as
    with gains of -1. trec_eval's code (ir_measures' too) sized its buffer of grade levels
    by the largest grade + 1, wrote before it and crashed (exit 139): run in a process of
    its own."""
    (tmp_path / "qrels").write_text(GRADED_QRELS)
    (tmp_path / "run").write_text(GRADED_RUN)
    measures = ["-m", "nDCG(gains={1:-5})", "-m", "nDCG(gains={1:-1})@3"]
    done = subprocess.run(
        [sys.executable, "-m", "trecbench", "score", "-q", *measures, "qrels", "run"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    lines = [line.split("\t") for line in done.stdout.splitlines()]
    assert {(name.strip(), value) for name, qid, value in lines if qid == "t3"} == {
        ("nDCG(gains={1:-5})", "0.0000"),
        ("nDCG(gains={1:-1})@3", "0.0000"),
    }
