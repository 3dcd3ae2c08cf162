"""dict converter: pytrec_eval/BEIR run dicts, qrels JSON and BEIR TSV."""

from __future__ import annotations

import json

import pytest

from trecbench.convert.dicts import convert_dict, read_beir_qrels
from trecbench.errors import InputError

RUN = {
    "q1": {"d1": 0.5, "d3": 0.5, "d2": 0.9, "d10": 0.5},  # three-way tie
    "q2": {"d5": 1.0, "d4": 2.0},
}
QRELS = {"q1": {"d1": 1, "d10": 2, "d2": 0}, "q2": {"d5": 1}, "q3": {"d9": 0}}


def test_order_is_pytrec_evals_and_scores_agree(tmp_path):
    import pytrec_eval

    from trecbench.evaluate import evaluate

    run = tmp_path / "bm25.json"
    run.write_text(json.dumps(RUN))
    qrels = tmp_path / "test.json"
    qrels.write_text(json.dumps(QRELS))
    conversion = convert_dict(run, qrels_json=qrels)
    (out,) = conversion.runs
    assert out.tag == "bm25" and out.qrels == "test"
    # score desc, then docid desc (byte-wise: "d3" > "d10" > "d1")
    assert out.table["docno"].tolist() == ["d2", "d3", "d10", "d1", "d4", "d5"]
    assert out.original_scores == [0.9, 0.5, 0.5, 0.5, 2.0, 1.0]
    assert out.stats["tied_adjacent_scores"] == 2
    assert conversion.qrels_info["test"]["without_relevant"] == ["q3"]

    names = {"ndcg_cut_3": "nDCG@3", "recip_rank": "recip_rank", "P_2": "P@2", "map": "MAP"}
    reference = pytrec_eval.RelevanceEvaluator(QRELS, set(names)).evaluate(RUN)
    mine = evaluate(conversion.qrels["test"], out.table, ["ndcg_cut.3", "recip_rank", "P.2", "map"])
    values = mine.per_query.set_index(["qid", "measure"])["value"]
    for qid, measures in reference.items():
        if qid == "q3":  # not in the run
            continue
        for measure, value in measures.items():
            assert values[(qid, names[measure])] == pytest.approx(value, abs=1e-12)


def test_beir_qrels_tsv(tmp_path):
    tsv = tmp_path / "test.tsv"
    tsv.write_text("query-id\tcorpus-id\tscore\nq1\td1\t1\nq1\t001\t0\nq2\tNA\t2\n")
    frame = read_beir_qrels(tsv)
    assert frame.values.tolist() == [["q1", "d1", 1], ["q1", "001", 0], ["q2", "NA", 2]]
    run = tmp_path / "r.json"
    run.write_text(json.dumps(RUN))
    conversion = convert_dict(run, beir_qrels=tsv, name="beir", tag="dense")
    assert list(conversion.qrels) == ["beir"] and conversion.runs[0].tag == "dense"

    tsv.write_text("q1\td1\t1\n")
    with pytest.raises(InputError, match="test.tsv:1: expected a tab-separated header"):
        read_beir_qrels(tsv)
    tsv.write_text("query-id\tcorpus-id\tscore\nq1\td1\t0.5\n")
    with pytest.raises(InputError, match="test.tsv:2: relevance '0.5' is not an integer"):
        read_beir_qrels(tsv)


def test_run_without_qrels_and_bad_dicts(tmp_path):
    run = tmp_path / "r.json"
    run.write_text(json.dumps(RUN))
    conversion = convert_dict(run, depth=1)
    assert conversion.qrels == {} and conversion.runs[0].qrels is None
    assert conversion.runs[0].table["docno"].tolist() == ["d2", "d4"]
    run.write_text(json.dumps({"q1": ["d1"]}))
    with pytest.raises(InputError, match="expected a run dict"):
        convert_dict(run)
    run.write_text(json.dumps({"q1": {"d1": "high"}}))
    with pytest.raises(InputError, match="'high' not a number"):
        convert_dict(run)
