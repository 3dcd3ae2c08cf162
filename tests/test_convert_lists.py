"""Plain-list converter: the input-formats example, scored and checked by hand."""

from __future__ import annotations

import json

import pytest

from trecbench.convert.lists import convert_lists
from trecbench.errors import InputError

EXAMPLE = {
    "gold_docs": [["doc1", "doc2"], ["doc3"], []],
    "retrieved_chunks": [["doc1", "doc3", "doc2"], ["doc4", "doc3", "doc4"], ["doc9"]],
}


def test_example_with_index_qids(tmp_path):
    path = tmp_path / "rag_eval.json"
    path.write_text(json.dumps(EXAMPLE))
    conversion = convert_lists(path)
    assert conversion.qrels["rag_eval"].values.tolist() == [
        ["0", "doc1", 1],
        ["0", "doc2", 1],
        ["1", "doc3", 1],
    ]
    (run,) = conversion.runs
    assert run.tag == "rag_eval"
    assert run.table[["qid", "docno", "rank", "score"]].values.tolist() == [
        ["0", "doc1", 1, 3.0],
        ["0", "doc3", 2, 2.0],
        ["0", "doc2", 3, 1.0],
        ["1", "doc4", 1, 2.0],
        ["1", "doc3", 2, 1.0],
        ["2", "doc9", 1, 1.0],
    ]
    assert conversion.report.counts == {
        "duplicate document in a query (rag_eval; the best-ranked copy is kept)": 1,
        "query without gold docs (not in the qrels)": 1,
    }


def test_scores_match_hand_worked_values(tmp_path):
    """MRR and Recall@2 of the example, by hand: q0 rr 1, R@2 1/2; q1 rr 1/2, R@2 1."""
    from trecbench.evaluate import evaluate

    path = tmp_path / "rag_eval.json"
    path.write_text(json.dumps(EXAMPLE))
    conversion = convert_lists(path)
    result = evaluate(conversion.qrels["rag_eval"], conversion.runs[0].table, ["RR", "R@2"])
    values = result.per_query.pivot(index="qid", columns="measure", values="value")
    assert values.loc[["0", "1"], "recip_rank"].tolist() == [1.0, 0.5]
    assert values.loc[["0", "1"], "Recall@2"].tolist() == [0.5, 1.0]


def test_query_ids_depth_and_errors(tmp_path):
    path = tmp_path / "x.json"
    path.write_text(json.dumps({**EXAMPLE, "query_ids": ["a", "b", 7]}))
    conversion = convert_lists(path, tag="mine", depth=1)
    assert conversion.runs[0].table["qid"].tolist() == ["a", "b", "7"]
    assert conversion.runs[0].tag == "mine"
    for bad, message in (
        ({"gold_docs": [[]], "retrieved_chunks": []}, "1 gold_docs lists but 0"),
        ({"gold_docs": [["a"]], "retrieved_chunks": "a"}, "retrieved_chunks must be a list"),
        ({**EXAMPLE, "query_ids": ["a", "a", "b"]}, "query_ids has duplicates"),
        ({"gold_docs": [[1.5]], "retrieved_chunks": [[]]}, r"gold_docs\[0\]\[0\]"),
    ):
        path.write_text(json.dumps(bad))
        with pytest.raises(InputError, match=message):
            convert_lists(path)
