"""The fast engine sums each cut family's running sums once per call and reads them per
cutoff: ``score -m ndcg_cut.1,...,400`` summed the same DCG and ideal terms 400 times (5x
trec_eval 9.0.8's time). The values stay trec_eval 9.0.8's, byte for byte."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from tests.random_cases import random_case
from tests.test_score_suite import run_score

FOLDER = Path(__file__).parent / "fixtures" / "trec_eval_random"


@pytest.mark.parametrize("case", ["mixed__many_cuts", "graded__many_cuts"])
def test_many_cutoffs_print_trec_eval_s_lines(case, monkeypatch):
    """``score --engine fast`` with 50 cutoffs each of ndcg_cut, P, map_cut, recall and
    success, -q: trec_eval 9.0.8's output (make_trec_eval_random.py), byte for byte."""
    manifest = json.loads((FOLDER / "cases.json").read_text())
    (entry,) = [c for c in manifest["cases"] if c["name"] == case]
    argv = ["--engine", "fast", *entry["trecbench_argv"]]
    stdout, _, code = run_score(argv, FOLDER, monkeypatch)
    assert code == 0
    assert stdout.decode() == (FOLDER / entry["stdout"]).read_text()


def test_the_running_sums_are_computed_once_per_family(monkeypatch, tmp_path):
    from trecbench import sparse_measures
    from trecbench.evaluation import evaluate

    qrels_text, run_text = random_case(4242, label_style="graded")
    (tmp_path / "q").write_text(qrels_text)
    (tmp_path / "r").write_text(run_text)
    cuts = ",".join(str(k) for k in range(1, 31))
    measures = [f"ndcg_cut.{cuts}", f"map_cut.{cuts}", "ndcg", "map"]
    args = (str(tmp_path / "q"), str(tmp_path / "r"), measures)
    want = evaluate(*args, engine="pytrec_eval").per_query
    summed = []
    real = sparse_measures.segment_cumsum

    def counting(values, segment):
        summed.append(len(values))
        return real(values, segment)

    monkeypatch.setattr(sparse_measures, "segment_cumsum", counting)
    got = evaluate(*args, engine="fast").per_query
    # DCG terms, ideal terms, precisions at relevant documents: once each
    assert len(summed) == 3
    assert got[["qid", "measure"]].equals(want[["qid", "measure"]])
    assert np.abs(got["value"].to_numpy() - want["value"].to_numpy()).max() <= 1e-12
