"""Several runs, one rule (trecbench.inputs.split_runs) for every call that takes them:
``{name: run}`` names them, any other collection (a generator, a dict's values, a folder's
glob) is read once into runs, and a table, records or a ``{qid: {docno: score}}`` dict is
one run. Expected values are worked by hand on two tiny runs."""

from __future__ import annotations

import pandas as pd
import pyarrow as pa
import pytest

import trecbench
from trecbench import inputs
from trecbench.errors import InputError, UsageError

# q1 judges d1 and d3 relevant: A ranks d1 d2 d3 (P@2 = 1/2), B d3 d1 d2 (P@2 = 2/2)
QRELS = {"q1": {"d1": 1, "d2": 0, "d3": 1}}
A = {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}}
B = {"q1": {"d3": 3.0, "d1": 2.0, "d2": 1.0}}


def _files(folder):
    for name, run in (("a", A), ("b", B)):
        lines = [f"q1 Q0 {d} 0 {s} {name}\n" for d, s in run["q1"].items()]
        (folder / f"{name}.run").write_text("".join(lines))


def _p2(evaluation) -> dict[str, float]:
    frame = evaluation.per_query
    return dict(zip(frame["run"], frame["value"], strict=True))


def test_a_glob_and_a_dict_s_values_are_runs_not_records(tmp_path):
    _files(tmp_path)
    assert _p2(trecbench.evaluate(QRELS, tmp_path.glob("*.run"), ["P.2"])) == {"a": 0.5, "b": 1.0}
    values = {"x": str(tmp_path / "a.run"), "y": str(tmp_path / "b.run")}.values()
    assert _p2(trecbench.evaluate(QRELS, values, ["P.2"])) == {"a": 0.5, "b": 1.0}
    generator = (run for run in (A, B))
    assert _p2(trecbench.evaluate(QRELS, generator, ["P.2"])) == {"run1": 0.5, "run2": 1.0}
    # told from a run dict by its values' shapes: runs (records, a frame), not documents
    records = [{"qid": "q1", "docno": d, "score": s} for d, s in B["q1"].items()]
    frame = pd.DataFrame(records)
    runs = {"a": A, "b": records, "c": frame}
    assert _p2(trecbench.evaluate(QRELS, runs, ["P.2"])) == {"a": 0.5, "b": 1.0, "c": 1.0}


def test_one_run_stays_one_run_whatever_it_is_iterable_by():
    rows = [{"qid": "q1", "docno": d, "score": s} for d, s in A["q1"].items()]
    frame = pd.DataFrame(rows)
    for one in (A, frame, pa.Table.from_pandas(frame), rows, frame["qid"]):
        sources, names = inputs.split_runs(one)
        assert len(sources) == 1 and sources[0] is one and names is None
    records = (row for row in rows)  # a generator of records: one run, read once
    assert inputs.split_runs(records) == ([rows], None)
    assert _p2(trecbench.evaluate(QRELS, (row for row in rows), ["P.2"])) == {"run1": 0.5}
    assert inputs.split_runs(iter([])) == ([], None)


def test_fuse_takes_runs_by_name_as_pool_and_similarity_do():
    # RRF, k = 60: d1 1/61 + 1/62, d3 1/63 + 1/61, d2 1/62 + 1/63
    expected = {"d1": 1 / 61 + 1 / 62, "d3": 1 / 63 + 1 / 61, "d2": 1 / 62 + 1 / 63}
    for runs in ({"a": A, "b": B}, (run for run in (A, B)), {"a": A, "b": B}.values()):
        fused = trecbench.fuse(runs, "rrf", k=60)
        assert list(fused["docno"]) == list(expected)
        assert list(fused["score"]) == pytest.approx(list(expected.values()), abs=1e-15)
    one = trecbench.fuse(A, "rrf", k=60)  # a {qid: {docno: score}} dict is one run
    assert list(one["score"]) == pytest.approx([1 / 61, 1 / 62, 1 / 63], abs=1e-15)
    with pytest.raises(InputError, match=r"^run 'broken' \(run dict\)"):
        trecbench.fuse({"good": A, "broken": {"q1": {"d1": "x"}}})


# three topics, each judging one of two documents: A ranks it first on q1 and q3, B on q2
TOPICS = {"q1": "dA", "q2": "dB", "q3": "dA"}
TUNE_QRELS = {q: {d: int(d == right) for d in ("dA", "dB")} for q, right in TOPICS.items()}
TUNE_A = {q: {"dA": 1.0, "dB": 0.5} for q in TOPICS}
TUNE_B = {q: {"dB": 1.0, "dA": 0.5} for q in TOPICS}


def test_optimize_fusion_takes_runs_by_name_and_from_a_generator():
    # combsum, min-max, step 0.5: weights (0,1) scores B's order (P@1 0,1,0), (1,0) A's
    # (1,0,1), (0.5,0.5) ties dA and dB, dB first by docno (0,1,0): (1,0) is best, 2/3
    for runs in ({"a": TUNE_A, "b": TUNE_B}, (run for run in (TUNE_A, TUNE_B))):
        tuned = trecbench.optimize_fusion(runs, TUNE_QRELS, "P@1", "combsum", step=0.5)
        assert tuned.best.weights == (1.0, 0.0)
        assert tuned.training == pytest.approx(2 / 3, abs=1e-15)


@pytest.mark.parametrize(
    "one", [TUNE_A, pd.DataFrame({"qid": ["q1"], "docno": ["dA"], "score": [1.0]})]
)
def test_optimize_fusion_refuses_one_run_in_a_line(one):
    with pytest.raises(UsageError, match="^optimize_fusion chooses how runs are fused: give two"):
        trecbench.optimize_fusion(one, TUNE_QRELS, "P@1")
