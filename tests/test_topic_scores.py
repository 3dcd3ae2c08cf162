"""The per-topic values power and agree are computed from, arranged without pandas
(trecbench.conclusions.scores), equal compare's pandas cube (values_cube of the
evaluation's per_query table) bit for bit, and refuse what it refuses in its words."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import ROOT

import trecbench
from trecbench import evaluation as evaluation_module
from trecbench.comparison.tables import values_cube
from trecbench.conclusions.scores import EvaluationFlags, topic_scores
from trecbench.errors import UsageError

QRELS = str(ROOT / "qrels/hpo-demo.qrels")
MEASURES = ["nDCG@10", "P.5,10", "recip_rank", "map"]


def _runs(tmp_path) -> list[str]:
    """The bundled word run; the char run on English topics only; the parents run with a
    topic the qrels do not judge."""
    lines = (ROOT / "runs/tfidf-char.run").read_text(encoding="utf-8").splitlines(keepends=True)
    english = tmp_path / "english.run"
    english.write_text("".join(line for line in lines if line.startswith("en-")), encoding="utf-8")
    extra = tmp_path / "extra.run"
    parents = (ROOT / "runs/tfidf-word-parents.run").read_text(encoding="utf-8")
    extra.write_text(parents + "unjudged Q0 d1 1 1.0 x\n", encoding="utf-8")
    return [str(ROOT / "runs/tfidf-word.run"), str(english), str(extra)]


def test_the_values_are_compares_cube_to_the_last_bit(tmp_path):
    runs = _runs(tmp_path)
    scores = topic_scores(QRELS, runs, MEASURES, EvaluationFlags())
    evaluation = trecbench.evaluate(QRELS, runs, MEASURES, run_names=list(scores.runs))
    topics = sorted(evaluation.qrels_topics)
    expected = values_cube(evaluation.per_query, list(scores.runs), list(scores.measures), topics)
    assert np.isnan(expected).any()  # the English run has no value for other topics
    expected[np.isnan(expected)] = 0.0
    assert scores.measures == ("nDCG@10", "P@5", "P@10", "recip_rank", "MAP")
    assert scores.topics == tuple(topics) and "unjudged" not in topics
    np.testing.assert_array_equal(scores.values, expected)
    assert scores.values.dtype == expected.dtype


def _one_more_topic(monkeypatch, qid: str | None):
    """``evaluate`` whose second run holds one more value: for topic ``qid`` (None: its
    first topic again), 0.75 on every measure."""
    real = evaluation_module.evaluate

    def evaluate(*args, **kwargs):
        evaluation = real(*args, **kwargs)
        run = evaluation.runs[1]
        run.qids = [*run.qids, run.qids[0] if qid is None else qid]
        run.values = {label: np.append(v, 0.75) for label, v in run.values.items()}
        return evaluation

    monkeypatch.setattr(evaluation_module, "evaluate", evaluate)
    return evaluate


def test_a_topic_the_qrels_do_not_hold_is_left_out_as_compare_leaves_it(tmp_path, monkeypatch):
    evaluate = _one_more_topic(monkeypatch, "zz-unjudged")
    runs = _runs(tmp_path)
    names = ["tfidf-word", "english", "extra"]
    evaluation = evaluate(QRELS, runs, ["nDCG@10"], run_names=names)
    topics = sorted(evaluation.qrels_topics)
    assert "zz-unjudged" not in topics
    expected = values_cube(evaluation.per_query, names, ["nDCG@10"], topics)
    expected[np.isnan(expected)] = 0.0
    scores = topic_scores(QRELS, runs, ["nDCG@10"], EvaluationFlags())
    np.testing.assert_array_equal(scores.values, expected)


def test_a_topic_valued_twice_is_refused_as_compare_refuses_it(tmp_path, monkeypatch):
    evaluate = _one_more_topic(monkeypatch, None)
    runs = _runs(tmp_path)
    names = ["tfidf-word", "english", "extra"]
    evaluation = evaluate(QRELS, runs, ["nDCG@10"], run_names=names)
    topics = sorted(evaluation.qrels_topics)
    with pytest.raises(UsageError) as expected:
        values_cube(evaluation.per_query, names, ["nDCG@10"], topics)
    with pytest.raises(UsageError) as found:
        topic_scores(QRELS, runs, ["nDCG@10"], EvaluationFlags())
    assert str(found.value) == str(expected.value)
    assert "two values of nDCG@10 for topic" in str(found.value)
