"""A progress callback that is no function (``progress=5``) is refused by every public
function taking one, first and in one line naming the argument: it was a raw "'int' object
is not callable" from wherever the first step was told, after work had begun."""

from __future__ import annotations

import pytest
from conftest import ROOT

import trecbench
from trecbench.benchmarking.result import Benchmark
from trecbench.comparison.result import Comparison
from trecbench.errors import UsageError
from trecbench.validation import validate_files

QRELS = str(ROOT / "qrels" / "hpo-demo.qrels")
RUN = str(ROOT / "runs" / "tfidf-word.run")
LABELLED = "progress must be a function progress(label, done, total) or None, not an int"

# each public function taking progress, called as it would be but for progress=5
CALLS = {
    "evaluate": lambda p: trecbench.evaluate(QRELS, RUN, ["P@1"], progress=p),
    "compare": lambda p: trecbench.compare(QRELS, [RUN, RUN], ["P@1"], progress=p),
    "power": lambda p: trecbench.power(QRELS, RUN, [RUN], progress=p),
    "agree": lambda p: trecbench.agree(QRELS, [RUN, RUN], progress=p),
    "fuse": lambda p: trecbench.fuse([RUN, RUN], progress=p),
    "optimize_fusion": lambda p: trecbench.optimize_fusion([RUN, RUN], QRELS, "P@1", progress=p),
    "run_benchmark": lambda p: trecbench.run_benchmark("bench.toml", progress=p),
    "similarity": lambda p: trecbench.similarity([RUN, RUN], progress=p),
    "pool": lambda p: trecbench.pool([RUN, RUN], progress=p),
    "diff_reports": lambda p: trecbench.diff_reports("a.json", "b.json", progress=p),
    "leaderboard": lambda p: trecbench.leaderboard("suite.toml", progress=p),
    "load_run": lambda p: trecbench.load_run(RUN, progress=p),
    "load_qrels": lambda p: trecbench.load_qrels(QRELS, progress=p),
    "write_conversion": lambda p: trecbench.write_conversion(None, "out", [], progress=p),
    "Comparison.write": lambda p: Comparison.write(None, "out", progress=p),
    "Benchmark.write": lambda p: Benchmark.write(None, "out", progress=p),
    "Benchmark.to_html": lambda p: Benchmark.to_html(None, progress=p),
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_a_progress_that_is_no_function_is_refused_naming_it(name):
    with pytest.raises(UsageError) as caught:
        CALLS[name](5)
    assert str(caught.value) == LABELLED


def test_compare_scores_names_its_own_progress():
    with pytest.raises(UsageError) as caught:
        trecbench.compare_scores({"1": {"a": 1.0}}, progress=True)
    assert str(caught.value) == (
        "progress must be a function progress(done, total) or None, not a bool"
    )


@pytest.mark.parametrize(
    "keyword, call",
    [
        ("progress", "progress(path, lines)"),
        ("read_progress", "read_progress(path, done, total)"),
        ("recheck_progress", "recheck_progress(path, stage, done, total)"),
    ],
)
def test_the_validators_callbacks_are_refused_naming_them(keyword, call):
    for validate in (trecbench.validate_run, validate_files):
        with pytest.raises(UsageError) as caught:
            validate(RUN if validate is trecbench.validate_run else [RUN], **{keyword: 5})
        assert str(caught.value) == f"{keyword} must be a function {call} or None, not an int"
    if keyword != "recheck_progress":
        with pytest.raises(UsageError, match=f"^{keyword} must be a function"):
            trecbench.validate_qrels(QRELS, **{keyword: 5})


def test_the_question_evaluate_was_asked():
    with pytest.raises(UsageError, match="^progress must be a function"):
        trecbench.evaluate({"1": {"a": 1}}, {"1": {"a": 1.0}}, ["P@1"], progress=5)
