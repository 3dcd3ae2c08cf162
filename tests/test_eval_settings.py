"""EvalSettings: evaluate()'s settings, typed and checked once (issue 26)."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from trecbench.errors import UsageError
from trecbench.evaluation import EvalSettings, evaluate

QRELS = "1 0 a 1\n1 0 b 0\n2 0 c 1\n"
RUN = "1 Q0 a 1 2.0 t\n1 Q0 b 2 1.0 t\n2 Q0 d 1 1.0 t\n"


def test_to_json_is_the_options_dict_of_the_outputs():
    settings = EvalSettings(
        relevance_level=2, complete=True, max_docs=10, compat="10", zscores=Path("z.txt"),
        debug_level=1, debug_query="5", options={"ontology": "hp.obo"},
    )  # fmt: skip
    # the dict evaluate() built by hand before, key for key and in its order; float32 as
    # the ranking does it: 10.0 holds scores as doubles
    assert list(settings.to_json().items()) == [
        ("relevance_level", 2), ("complete", True), ("max_docs", 10), ("judged_only", False),
        ("num_docs", None), ("float32", False), ("engine", "auto"), ("compat", "10.0"),
        ("rel_format", "qrels"), ("zscores", "z.txt"), ("debug_level", 1),
        ("debug_query", "5"), ("maxontsim_formula", None), ("ontology", "hp.obo"),
    ]  # fmt: skip
    assert settings.version.version == "10.0" and settings.traced
    with pytest.raises(dataclasses.FrozenInstanceError):
        settings.complete = False  # type: ignore[misc]


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"rel_format": "bogus"}, "Illegal rel_format 'bogus'"),
        ({"tie_bounds": True, "rel_format": "prefs"}, "need graded qrels, not rel_format=.prefs.$"),
        ({"relevance_level": 0}, "^relevance_level=0: levels below 1"),
        ({"num_docs": 2**63}, "from 0 to trec_eval's 64-bit count"),
        ({"num_docs": -1}, "^num_docs=-1: a collection's number of documents"),
        ({"max_docs": 0}, "^max_docs must be at least 1, got 0"),
        ({"compat": "8"}, "unknown trec_eval version '8'"),
        ({"options": {"complete": True, "ontology": "x"}}, "options complete: trec_eval flags"),
        # taken for something else: -M 2.5 kept 3 documents, "False" applied -J, -l 1.5
        # judged nothing relevant (trec_eval reads 1), "1" raised a TypeError
        ({"max_docs": 2.5}, "max_docs must be a whole number, not 2.5"),
        ({"judged_only": "False"}, "judged_only must be True or False, not 'False'"),
        ({"relevance_level": 1.5}, "relevance_level must be a whole number, not 1.5"),
        ({"relevance_level": "1"}, "relevance_level must be a whole number, not '1'"),
        ({"num_docs": "5"}, "num_docs must be a whole number"),
        ({"complete": 1}, "complete must be True or False, not 1"),
        # a misspelt key was computed with its default and recorded as if applied
        (
            {"options": {"formula": "simple"}},
            "options 'formula': no such local measure option "
            r"\(known: maxontsim_formula, ontology\)",
        ),
        ({"options": {"ontolgy": "x.obo"}}, "options 'ontolgy': no such local measure option"),
        ({"options": [1, 2]}, r"options must map local measure options \(.*\), not be a list"),
        # the command line's bounds (--jobs, --memory from 1): -3 and -1 ran, the others
        # raised Python's TypeError or ValueError
        ({"jobs": -3}, "^jobs must be a whole number from 1, not -3$"),
        ({"jobs": 0}, "^jobs must be a whole number from 1, not 0$"),
        ({"jobs": 1.5}, "^jobs must be a whole number from 1, not 1.5$"),
        ({"jobs": "2"}, "^jobs must be a whole number from 1, not '2'$"),
        ({"memory": -1}, "^memory must be a whole number from 1, not -1$"),
        ({"memory": "big"}, "^memory must be a whole number from 1, not 'big'$"),
        ({"memory": True}, "^memory must be a whole number from 1, not True$"),
        # 301 was taken and matched no topic: "-D names topic 301, not one of them"
        ({"debug_query": 301}, "^debug_query must be a topic id as text, not an int$"),
        ({"debug_query": b"301"}, "^debug_query must be a topic id as text, not bytes$"),
        # an unknown engine was refused only once the qrels and the run were read
        ({"engine": "fastest"}, r"^unknown engine 'fastest' \(choose from auto, pytrec_eval, "),
        ({"engine": None}, "^engine must be an engine's name, not None$"),
        ({"engine": ["fast"]}, "^engine must be an engine's name, not a list$"),
    ],
)
def test_settings_are_checked_once_before_any_file_is_read(arguments, message):
    with pytest.raises(UsageError, match=message):
        EvalSettings(**arguments)
    # evaluate() refuses them before reading anything: these files do not exist
    with pytest.raises(UsageError, match=message):
        evaluate("missing.qrels", "missing.run", ["P.5"], **arguments)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"options": [1, 2]}, "options must map local measure options"),
        ({"options": {"formula": "simple"}}, "options 'formula': no such local measure option"),
    ],
)
def test_compare_refuses_the_options_evaluate_refuses(arguments, message):
    from trecbench import compare

    with pytest.raises(UsageError, match=message):  # before reading: no such files
        compare("missing.qrels", ["a.run", "b.run"], ["P.5"], samples=40, **arguments)


def test_numpy_integers_are_taken_as_jobs_and_memory():
    import numpy as np

    settings = EvalSettings(jobs=np.int64(2), memory=np.int32(300), drill_depth=np.int8(0))
    assert (settings.jobs, settings.memory, settings.drill_depth) == (2, 300, 0)
    assert {type(settings.jobs), type(settings.memory), type(settings.drill_depth)} == {int}


def test_an_engine_given_as_numpy_text_is_python_s():
    import numpy as np

    # it stayed np.str_, refused as "unknown engine np.str_('fastest')"
    assert type(EvalSettings(engine=np.str_("fast")).engine) is str
    with pytest.raises(UsageError, match=r"^unknown engine 'fastest' \("):
        EvalSettings(engine=np.str_("fastest"))


def test_the_evaluation_keeps_its_settings(tmp_path):
    qrels, run = tmp_path / "q", tmp_path / "r"
    qrels.write_text(QRELS)
    run.write_text(RUN)
    result = evaluate(qrels, run, ["P.5"], complete=True, options={"maxontsim_formula": None})
    assert result.settings.complete and result.settings.compat == "9.0.8"
    assert result.options == result.settings.to_json()
    assert result.options["complete"] is True and "maxontsim_formula" in result.options


def test_engines_are_given_the_settings_typed(tmp_path, monkeypatch):
    # issue 26: engines read EvalSettings' fields, not a dict of options; the relevance
    # level is the one the judgments hold (-l above every grade: one more than the top)
    from trecbench.engines import local

    seen = []
    original = local.Evaluator.__init__

    def spy(self, truth, measures, settings):
        seen.append(settings)
        original(self, truth, measures, settings)

    monkeypatch.setattr(local.Evaluator, "__init__", spy)
    qrels, run = tmp_path / "q", tmp_path / "r"
    qrels.write_text(QRELS)
    run.write_text(RUN)
    ontology = {"maxontsim_formula": "simple"}
    measures = ["relstring", "MaxOntSim@3"]  # the options need a MaxOntSim measure
    evaluate(qrels, run, measures, relevance_level=7, max_docs=3, options=ontology)
    (settings,) = seen
    assert isinstance(settings, EvalSettings)
    assert (settings.max_docs, settings.maxontsim_formula, settings.ontology) == (3, "simple", None)
    assert settings.relevance_level == max(int(line.split()[3]) for line in QRELS.splitlines()) + 1


def test_every_engine_and_the_settings_have_what_the_engine_protocols_name():
    # engines/interface.py writes the engine interface down: each engine's Evaluator and
    # EvalSettings must hold every member it names (a Protocol is not checked at run time)
    import inspect

    from trecbench.engines import PREFERENCE, engine_module, interface

    def members(protocol) -> set[str]:
        own = set(vars(protocol)) | set(protocol.__annotations__)
        return {name for name in own if not name.startswith("_")}

    assert {"relevance_level", "version", "ontology", "maxontsim_formula"} <= members(
        interface.Settings
    )
    settings = EvalSettings()
    for name in members(interface.Settings):
        assert hasattr(settings, name), name
    for engine in PREFERENCE:
        evaluator = engine_module(engine).Evaluator
        for name in members(interface.Evaluator):
            assert hasattr(evaluator, name), (engine, name)
        assert list(inspect.signature(evaluator.__init__).parameters)[1:4] == [
            "truth",
            "measures",
            "settings",
        ], engine


def test_numpy_flags_are_python_s_and_an_evaluation_needs_a_run(tmp_path):
    import numpy as np

    settings = EvalSettings(max_docs=np.int64(2), judged_only=np.bool_(True))
    assert (settings.max_docs, settings.judged_only) == (2, True)
    assert type(settings.max_docs) is int and type(settings.judged_only) is bool
    for runs in ([], ()):  # the evaluation of nothing lost its measures, then crashed
        with pytest.raises(UsageError, match="nothing to evaluate: no run given"):
            evaluate({"1": {"a": 1}}, runs, ["P.5"])


@pytest.mark.parametrize(
    ("options", "said"),
    [
        ({"maxontsim_formula": "simple"}, "options maxontsim_formula: no MaxOntSim measure"),
        ({"ontology": "hp.obo"}, "options ontology: no MaxOntSim measure .* leave it out"),
    ],
)
def test_maxontsim_options_without_a_maxontsim_measure_are_refused(tmp_path, options, said):
    # evaluate(..., options={"maxontsim_formula": "simple"}) with no MaxOntSim measure
    # changed nothing without a word, where score, compare and benchmark refuse it
    qrels, run = tmp_path / "q", tmp_path / "r"
    qrels.write_text(QRELS)
    run.write_text(RUN)
    with pytest.raises(UsageError, match=said):
        evaluate(qrels, run, ["P@5"], options=options)
    evaluate(qrels, run, ["P@5"], options={"maxontsim_formula": None})  # the default: taken


GRADED_QRELS = "1 0 a 2\n1 0 b 0\n1 0 c 1\n2 0 c 1\n2 0 e 3\n"
GRADED_RUN = "1 Q0 a 1 2.0 t\n1 Q0 b 2 1.0 t\n1 Q0 c 3 1.0 t\n2 Q0 d 1 1.0 t\n2 Q0 e 2 0.5 t\n"
TRACED = ["ndcg", "ndcg_cut.1,3", "ndcg_rel", "Rndcg", "G", "binG", "gm_bpref", "ndcg.1=0,2=3"]


@pytest.mark.parametrize("measure", TRACED)
def test_the_native_engine_asked_by_name_computes_its_traced_families(measure, tmp_path):
    """engine="native" took these families (its ports compute them for -D) and raised
    "the native engine does not compute ndcg" without -D; its values are pytrec_eval's."""
    qrels, run = tmp_path / "q", tmp_path / "r"
    qrels.write_text(GRADED_QRELS)
    run.write_text(GRADED_RUN)
    for level in (1, 2):
        native = evaluate(qrels, run, [measure], engine="native", relevance_level=level)
        reference = evaluate(qrels, run, [measure], engine="pytrec_eval", relevance_level=level)
        assert native.to_dict() == reference.to_dict()
        # gm_bpref has no per-topic values (to_dict: {}): its mean is compared
        assert native.aggregates.values.tolist() == reference.aggregates.values.tolist()
        assert {column.engine for column in native.columns} == {"native"}


# trec_eval 9.0.8 and 10.0 apart on it: recall 0.6 of 2 relevant documents is 1.2 of them,
# 9.0.8 needs 2 (the second relevant at rank 4: 0.5), 10.0 rounds to 1 (rank 1: 1.0);
# the values are te908's and te100's -m iprec_at_recall on these files
CUTOFF_QRELS = "1 0 r0 1\n1 0 r1 1\n"
CUTOFF_RUN = "1 Q0 r1 1 4 t\n1 Q0 n0 2 3 t\n1 Q0 n1 3 2 t\n1 Q0 r0 4 1 t\n"


@pytest.mark.parametrize(
    "measure, v9, v10", [("iprec_at_recall.0.6", 0.5, 1.0), ("IPrec@0.7", 0.5, 1.0)]
)
def test_the_native_engine_asked_by_name_gives_9_0_8_s_recall_cutoffs(measure, v9, v10, tmp_path):
    """engine="native" computed 10.0's rounded cutoffs under compat 9.0.8, without a word
    (reviewer 689): 9.0.8's come from another engine, which a warning names."""
    from trecbench.errors import EngineWarning

    qrels, run = tmp_path / "q", tmp_path / "r"
    qrels.write_text(CUTOFF_QRELS)
    run.write_text(CUTOFF_RUN)
    # the warning said "does not compute" (reviewer 693): it does, as 10.0
    with pytest.warns(EngineWarning, match="^engine native computes trec_eval 10.0's rounded "
                      r"recall cutoffs \(compat='10.0'\); 9.0.8's computed: "
                      f"{re.escape(measure)} by pytrec_eval$"):  # fmt: skip
        nine = evaluate(qrels, run, [measure], engine="native")
    assert nine.to_dict() == {"1": {measure: v9}}
    ten = evaluate(qrels, run, [measure], engine="native", compat="10.0")
    assert ten.to_dict() == {"1": {measure: v10}}
    assert {column.engine for column in ten.columns} == {"native"}
