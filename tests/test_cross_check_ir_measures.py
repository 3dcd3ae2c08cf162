"""An independent cross-check: ir_measures (through its pytrec_eval provider, whose ranking is
trec_eval's) per query equals trecbench for the KPI-style measures, on the trec_eval suite
and on the seeded fixtures that stress ties, float32-only ties, odd docnos and grades."""

from __future__ import annotations

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
