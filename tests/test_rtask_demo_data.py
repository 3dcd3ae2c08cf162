"""The bundled R-task demo (data/hpo-rtask/) is what scripts/make_rtask_demo.py writes, and
its qrels are graded from the ontology as documented."""

from __future__ import annotations

import importlib.util
import json

import pytest
from conftest import ROOT

from trecbench.inputs import read_qrels, read_run
from trecbench.ontology import load_ontology

DEMO = ROOT / "data" / "hpo-rtask"
FILES = ("hpo-rtask.qrels", "lexical.run", "vector.run", "reranked.run", "routing.jsonl")


def _generator():
    pytest.importorskip("bm25s")
    pytest.importorskip("sklearn")
    spec = importlib.util.spec_from_file_location(
        "make_rtask_demo", ROOT / "scripts/make_rtask_demo.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_committed_files_are_what_the_script_writes(tmp_path):
    _generator().main(["--out", str(tmp_path)])
    for name in FILES:
        assert (tmp_path / name).read_bytes() == (DEMO / name).read_bytes(), name


def test_qrels_grades_come_from_the_ontology():
    onto = load_ontology()
    cases = json.loads((ROOT / "data/hpo-demo/cases.json").read_text(encoding="utf-8"))
    expected = {case["case_id"]: set(case["expected_hpo_ids"]) for case in cases["test_cases"]}
    qrels = read_qrels(DEMO / "hpo-rtask.qrels")
    assert set(qrels["rel"]) == {0, 1, 2}
    for qid, docno, rel in zip(qrels["qid"], qrels["docno"], qrels["rel"], strict=True):
        gold = expected[qid]
        near = any(docno in onto.parents(t) or t in onto.parents(docno) for t in gold)
        assert rel == (2 if docno in gold else 1 if near else 0), (qid, docno)
    # every expected term is judged 2, whether a run found it or not
    for qid, gold in expected.items():
        assert gold <= set(qrels[(qrels["qid"] == qid) & (qrels["rel"] == 2)]["docno"])


def test_runs_are_at_most_100_deep_and_the_vector_run_exactly():
    for name in ("lexical", "vector", "reranked"):
        depth = read_run(DEMO / f"{name}.run").groupby("qid").size()
        assert depth.max() <= 100
    vector = read_run(DEMO / "vector.run").groupby("qid").size()
    assert len(vector) == 56 and set(vector) == {100}
