"""The results of the Python API say what they are in a line, as Evaluation and Comparison
do: their dataclass reprs printed every table, array and record (run_benchmark's 327,253
characters, a conversion's 54,596, a pool's 24,124: a notebook cell flooded). Reviewer
677."""

from __future__ import annotations

import json

import pytest
from conftest import ROOT

import trecbench

QRELS = str(ROOT / "qrels" / "hpo-demo.qrels")
RUNS = [str(ROOT / "runs" / name) for name in ("tfidf-word.run", "tfidf-char.run")]
WORD, CHAR = RUNS

RESULTS = {
    "Pool": (
        lambda: trecbench.pool(RUNS, depth=10, qrels=QRELS),
        "Pool(runs=['tfidf-word', 'tfidf-char'], depth=10, topics=56, documents=",
    ),
    "Similarity": (
        lambda: trecbench.similarity(RUNS),
        "Similarity(pairs=['tfidf-word vs tfidf-char'], rbo_p=0.9, overlap_k=10, depth=None)",
    ),
    "FusionTuning": (
        lambda: trecbench.optimize_fusion(RUNS, QRELS, "P@5", method="combsum"),
        "FusionTuning(method='combsum', measure='P@5', chosen=",
    ),
    "PowerResult": (
        lambda: trecbench.power(QRELS, WORD, [CHAR], ["P@5"]),
        "PowerResult(baseline='tfidf-word', rows=1, alpha=0.05, target=0.8)",
    ),
    "Agreement": (
        lambda: trecbench.agree(
            QRELS, RUNS + [str(ROOT / "runs/tfidf-word-parents.run")], ["P@5", "MAP"]
        ),  # fmt: skip
        "Agreement(runs=['tfidf-word', 'tfidf-char', 'tfidf-word-parents'], "
        "measures=['P@5', 'MAP'], qrels_b=None)",
    ),
    "Conversion": (
        lambda: trecbench.convert_msmarco(ROOT / "data" / "convert" / "msmarco-run.tsv"),
        "Conversion(name='msmarco-run', converter='msmarco', qrels=[], runs=['msmarco-run'])",
    ),
    "Benchmark": (
        lambda: trecbench.run_benchmark(ROOT / "data" / "hpo-rtask" / "benchmark.toml"),
        "Benchmark(profile=",
    ),
}


@pytest.mark.parametrize("kind", RESULTS)
def test_a_result_says_what_it_is_in_a_line(kind):
    make, start = RESULTS[kind]
    shown = repr(make())
    assert shown.startswith(start), shown
    assert len(shown) < 300 and "\n" not in shown


def test_a_report_diff_and_a_leaderboard_say_what_they_are_in_a_line(tmp_path):
    paths = []
    for name, measures in (("a", ["P@5"]), ("b", ["P@5", "MAP"])):
        evaluation = trecbench.evaluate(QRELS, WORD, measures)
        records = list(evaluation.input_records.values())
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(trecbench.build_evaluation_report(evaluation, records)))
        paths.append(str(path))
    shown = repr(trecbench.diff_reports(*paths))
    assert shown.startswith("ReportDiff(same=False, cause=") and len(shown) < 300
    shown = repr(trecbench.leaderboard(ROOT / "data" / "leaderboard.toml"))
    assert shown.startswith("Leaderboard(suite=") and len(shown) < 300, shown


def test_a_long_name_is_cut_in_a_repr_and_an_empty_result_says_so():
    # a run named by 10,000 characters made reprs as long; a tuning with no candidate
    # (made by hand) raised IndexError (reviewer 680)
    import dataclasses

    long = "r" * 10_000
    shown = repr(trecbench.pool({long: WORD, "b": CHAR}, depth=5))
    assert len(shown) < 200 and f"'{'r' * 40}…'" in shown
    tuning = trecbench.optimize_fusion(RUNS, QRELS, "P@5", method="combsum")
    assert "chosen=None" in repr(dataclasses.replace(tuning, candidates=[]))
