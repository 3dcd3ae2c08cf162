"""The bundled HPO demo benchmark is reproducible from scripts/make_demo_data.py."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from trecbench.ontology import load_ontology

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "data" / "hpo-demo"
RUNS = ("tfidf-word", "tfidf-char", "tfidf-word-parents")


def _generator():
    spec = importlib.util.spec_from_file_location(
        "make_demo_data", ROOT / "scripts/make_demo_data.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def regenerated(tmp_path_factory):
    out = tmp_path_factory.mktemp("hpo-demo")
    _generator().main(["--out", str(out)])
    return out


def test_committed_files_are_what_the_script_writes(regenerated):
    for name in ["cases.json", *(f"results/{run}/terms.jsonl" for run in RUNS)]:
        assert (regenerated / name).read_bytes() == (DEMO / name).read_bytes(), name


def test_cases_are_valid_and_balanced():
    onto = load_ontology()
    cases = json.loads((DEMO / "cases.json").read_text(encoding="utf-8"))["test_cases"]
    assert len(cases) == 56
    assert sum(c["language"] == "de" for c in cases) == 28
    assert len({c["case_id"] for c in cases}) == 56
    for case in cases:
        assert case["expected_hpo_ids"] and all(onto.is_active(t) for t in case["expected_hpo_ids"])
        assert case["difficulty"] in {"easy", "medium", "hard"}
        assert case["category"] in {
            "exact_match",
            "synonym",
            "abbreviation",
            "layperson",
            "complex",
        }


def test_runs_are_ranked_terms_of_the_ontology():
    onto = load_ontology()
    for run in RUNS:
        lines = (DEMO / "results" / run / "terms.jsonl").read_text(encoding="utf-8").splitlines()
        records = [json.loads(line) for line in lines]
        assert len(records) == 56 * 50
        for first, second in zip(records, records[1:], strict=False):
            if first["case_id"] == second["case_id"]:
                assert second["rank"] == first["rank"] + 1 and second["score"] <= first["score"]
        assert all(onto.is_active(r["hpo_id"]) for r in records)
