"""The per-topic values power and agree are computed from, arranged without pandas
(trecbench.conclusions.scores), equal compare's pandas cube (values_cube of the
evaluation's per_query table) bit for bit, and refuse what it refuses in its words."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import ROOT

import trecbench
from trecbench import evaluation as evaluation_module
from trecbench.cli import run as cli_run
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


def _undefined_on_t2(tmp_path) -> list[str]:
    """``[qrels, run a, run b]``: under ``-J -M 1`` nothing judged is left in either run's
    cut on t2 (u1 unjudged), where trec_eval 9.0.8 prints -nan for iprec_at_recall.0.00
    and 11pt_avg (and for ``all``); both runs have results for every topic."""
    files = {
        "q.qrels": "t1 0 r1 1\nt1 0 n1 0\nt2 0 r2 1\nt3 0 r3 1\nt3 0 n3 0\n",
        "a.run": "t1 Q0 r1 1 3 a\nt1 Q0 n1 2 2 a\nt2 Q0 u1 1 3 a\nt2 Q0 u2 2 2 a\n"
        "t3 Q0 n3 1 3 a\nt3 Q0 r3 2 2 a\n",
        "b.run": "t1 Q0 n1 1 3 b\nt1 Q0 r1 2 2 b\nt2 Q0 u1 1 3 b\nt2 Q0 r2 2 2 b\n"
        "t3 Q0 r3 1 3 b\nt3 Q0 n3 2 2 b\n",
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    return [str(tmp_path / name) for name in files]


@pytest.mark.parametrize("measure", ["iprec_at_recall.0.00", "11pt_avg"])
def test_a_value_undefined_on_a_topic_the_run_has_is_refused_as_compare_does(
    tmp_path, measure, capsys
):
    # power and agree filled it as a topic the run lacks: agree's mean of a was
    # (1 + 0 + 0) / 3 where trec_eval prints -nan, and asked for it alone, both said
    # "a: no results for 1 of the 3 topics (t2)" of a run with results for t2
    from click.testing import CliRunner

    from trecbench.cli import cli

    qrels, a, b = _undefined_on_t2(tmp_path)
    flags = ["-J", "-M", "1", "-m", measure]
    evaluation = trecbench.evaluate(qrels, [a, b], [measure], judged_only=True, max_docs=1)
    assert all("t2" in run.qids for run in evaluation.runs)
    compared = CliRunner().invoke(cli, ["compare", qrels, a, b, *flags])
    # still a UsageError for the Python callers that caught it so
    assert isinstance(compared.exception, UsageError)
    assert "is undefined for 't2'" in str(compared.exception)
    for argv in (["power", qrels, a, b, *flags, "-m", "P@1"], ["agree", qrels, a, b, *flags]):
        done = CliRunner().invoke(cli, argv)
        assert (done.exit_code, done.output) == (1, ""), done.output  # an exception raised
        assert str(done.exception) == str(compared.exception)
    # the command's exit: a measure the inputs cannot give, 4 (it was 1, a usage error's)
    for command in ("compare", "power", "agree"):
        assert cli_run([command, qrels, a, b, *flags, "-m", "P@1"]) == 4
    said = capsys.readouterr()
    assert said.out == "" and said.err.count(f"trecbench: {compared.exception}\n") == 3
    settings = EvaluationFlags(judged_only=True, max_docs=1)
    with pytest.raises(UsageError, match=r"^run 'a': .* is undefined for 't2'$"):
        topic_scores(qrels, [a, b], [measure, "P@1"], settings)


def test_an_infinite_value_is_refused_in_compares_words(tmp_path):
    # utility's coefficients near 1e308 make -inf and NaN (inf - inf) on the topics: the
    # first in run, topic order, as compare names it
    qrels, a, b = _undefined_on_t2(tmp_path)
    measure = "utility.1e308,-1e308,0,0"
    with pytest.raises(UsageError) as expected:
        trecbench.compare(qrels, [a, b], [measure])
    with pytest.raises(UsageError) as found:
        topic_scores(qrels, [a, b], [measure], EvaluationFlags())
    assert str(found.value) == str(expected.value)
