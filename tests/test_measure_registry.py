"""The measure registry: described once, spelled every way, computed by a registered engine,
accepted by score, compare and the Python API in every output format."""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import trecbench
from trecbench.errors import PerTopicWarning, UsageError
from trecbench.measures import parse_measure, parse_measures, registry
from trecbench.renderers import trec_format

ROOT = Path(__file__).resolve().parents[1]
ir_measures = pytest.importorskip("ir_measures")


def test_measure_descriptions_never_import_engines():
    package = ROOT / "trecbench" / "measures"
    for path in package.glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        imported = [
            node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
        ] + [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
        assert not [m for m in imported if "engines" in m], path.name
    code = "import sys, trecbench.measures; print([m for m in sys.modules if '.engines' in m])"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stdout.strip() == "[]", done.stderr


def test_facts_for_a_misspelt_family_are_refused(monkeypatch):
    # the catalog states ties and group by family name; a name no module defines would
    # have left its family without them, silently (measures' import checks every name)
    monkeypatch.setattr(registry, "_FACTS", dict(registry._FACTS))
    registry.check_facts()  # the catalog's own facts all name a family
    assert registry.get("MRR").ties == registry.TIES_BOUNDED
    registry.state_facts({"nDCG_cutt": {"ties": registry.TIES_BOUNDED}})
    with pytest.raises(ValueError, match=r"undefined measures \['nDCG_cutt'\]"):
        registry.check_facts()


def test_every_definition_is_complete_and_computed():
    import trecbench.engines  # noqa: F401  (registers the engines)

    for d in registry.definitions():
        assert d.description and d.summary and d.better in ("higher", "lower", None), d.name
        assert d.trec_eval in ((), ("9.0.8", "10.0"), ("10.0",)), d.name
        for p in d.params:
            assert p.default is None or p.check(p.default) is None, (d.name, p.name)
        if d.source != "trecbench":
            assert registry.engines_for(d), f"no engine computes {d.name}"


def test_every_ir_measures_measure_is_accepted():
    """Every name in ir_measures' registry parses (a cutoff or recall level added where
    the measure needs one), into the family ir_measures means."""
    for name in ir_measures.measures.registry:
        for text in (name, f"{name}@10", f"{name}@0.2"):
            try:
                parse_measure(text)
                break
            except UsageError as error:
                last = error
        else:
            raise AssertionError(f"{name}: {last}")


def test_an_ir_measures_parameter_given_at_its_default_keys_the_name_it_prints():
    """SetF(beta=1.0) prints SetF and computes it, but was keyed 'SetF(beta=1.0)' (its
    beta, trec_eval's parameter, was kept at its default, where RBP(p=0.8) is RBP): every
    ir_measures parameter with a plain default, given so, keys the object by what it
    prints, and its spelling means that name's measure; but rel and judged_only, which
    unset are the call's relevance_level and -J (docs/python-api.md)."""
    from trecbench.measures.names import ir_measure_name

    checked = set()
    for definition in registry.definitions():
        measure = getattr(ir_measures, definition.ir_measures or "", None)
        if measure is None:
            continue
        at = ""
        if definition.cutoff_required:
            at = "@0.5" if measure.AT_PARAM == "recall" else "@5"
            measure = ir_measures.parse_measure(definition.ir_measures + at)
        for key, info in measure.SUPPORTED_PARAMS.items():
            plain = isinstance(info.default, (bool, int, float, str))
            if key in ("rel", "judged_only", measure.AT_PARAM) or not plain:
                continue
            given = measure(**{key: info.default})
            assert ir_measure_name(given) == str(given), (definition.name, key)
            spelt = f"{definition.ir_measures}({key}={info.default!r}){at}"
            assert parse_measure(spelt) == parse_measure(str(given)), spelt
            checked.add(f"{definition.ir_measures}.{key}")
    assert {"SetF.beta", "RBP.p", "Compat.p", "NRBP.alpha", "INST.T"} <= checked


@pytest.mark.parametrize("name", ["MRR_10", "HitRate_10", "Success_10", "mrr_10"])
def test_a_name_and_a_number_is_no_label_but_one_printed(name):
    """MRR_10 and HitRate_10 were taken (helper-595) though no output prints them (score
    prints recip_rank_cut_10 and success_10) and measures.md says a name, _ and a number
    is no measure; Judged_10 and ERR_10 are printed, and taken."""
    with pytest.raises(UsageError, match="no such measure"):
        parse_measure(name)


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("ndcg_cut_10", "ndcg_cut.10"),
        ("P_5", "P.5"),
        ("recip_rank_cut_10", "MRR@10"),
        ("iprec_at_recall_0.20", "IPrec@0.2"),
        ("recall_all_10", "Recall_all@10"),
        ("success_10", "success.10"),
        ("Judged_10", "Judged@10"),
        ("alpha_nDCG_20", "alpha_nDCG@20"),
        ("SetP(relative=True)", "SetRelP"),
        ("NumRet(rel=1)", "NumRet(rel=1)"),
        ("NumRelRet", "num_rel_ret"),
        ("RBP(p=0.8)", "RBP"),
        ("nDCG(dcg='log2')@10", "nDCG@10"),
        ("α_nDCG@5", "alpha_nDCG@5"),
        ("R-prec", "Rprec"),
        ("MAP_IA", "AP_IA"),
        # recip_rank is ir_measures' RR, whose RR@10 is MRR@10: as map@10 is map_cut.10
        # (it was refused: "RR takes no cutoff", though RR@10 is taken)
        ("recip_rank@10", "MRR@10"),
        ("recip_rank(rel=2)@5", "RR(rel=2)@5"),
        ("map@10", "map_cut.10"),
    ],
)
def test_labels_and_spellings_share_one_meaning(one, other):
    assert parse_measure(one) == parse_measure(other)
    # under either version too (score passes it): the labels of measures trec_eval has
    # not, recip_rank_cut_10 and recall_all_10, were refused as another version's
    for version in ("9.0.8", "10.0"):
        assert parse_measure(one, version) == parse_measure(other, version)


@pytest.mark.parametrize(
    ("text", "message", "example"),
    [  # recip_rank_cut is only the prefix of its values' labels (recip_rank_cut_10)
        ("recip_rank_cut", "measure 'recip_rank_cut' needs a cutoff, e.g. "
         "'recip_rank_cut.10' or 'MRR@10'", "recip_rank_cut.10"),
        ("recip_rank_cut(rel=2)@5", "illegal measure 'recip_rank_cut(rel=2)@5': recip_rank_cut "
         "takes a cutoff alone, after a dot, e.g. 'recip_rank_cut.5' or 'MRR(rel=2)@5'",
         "MRR(rel=2)@5"),
        ("recip_rank_cut@5", "e.g. 'recip_rank_cut.5' or 'MRR@5'", "MRR@5"),
    ],
)  # fmt: skip
def test_a_label_without_its_cutoff_says_what_it_needs(text, message, example):
    """It said "no such measure (did you mean recip_rank_cut, recip_rank?)": itself."""
    with pytest.raises(UsageError) as error:
        parse_measure(text)
    assert message in str(error.value) and "did you mean" not in str(error.value)
    assert parse_measure(example).family == "MRR"  # the example given reads


@pytest.mark.parametrize(
    ("text", "suggested"),
    [  # each suggestion reads as a measure: the ones that need a cutoff with one
        ("RR_cut", "recip_rank_cut.10"),
        ("RR_cut@5", "recip_rank_cut.5"),
        ("Recall_cut@5", "Recall@5"),
        ("IPrec_cut", "IPrec@0.5"),
        ("HitRat", "HitRate@10"),
    ],
)
def test_suggestions_read_as_measures_and_never_repeat_the_name(text, suggested):
    with pytest.raises(UsageError) as error:
        parse_measure(text)
    shown = re.search(r"did you mean (.+)\?\)", str(error.value))[1].split(", ")
    assert suggested in shown and text not in shown
    for name in shown:
        parse_measure(name)  # refused names were suggested bare: recip_rank_cut, HitRate


def test_several_measures_in_one_value():
    parsed = parse_measures(["nDCG@10 P@5", "RBP(p=0.9, rel=2)  Judged@10"])
    assert [m.canonical for m in parsed] == ["ndcg_cut.10", "P.5", "RBP(p=0.9,rel=2)", "Judged@10"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("nDGC@10", "did you mean nDCG@10"),
        ("Presicion@5", "did you mean Precision@5"),
        ("map_cutt.10", "did you mean map_cut.10"),
        ("HitRate", "needs a cutoff, e.g. 'HitRate@10'"),
        ("SetP@5", "SetP takes no cutoff"),
        # the name given: it said "MAP takes no cutoff", and MAP@10 is taken (map_cut)
        ("mean_ap@10", "mean_ap takes no cutoff"),
        ("bpref@10", "bpref takes no cutoff"),
        ("P(foo=1)@5", "P has no parameter 'foo' (parameters: rel, judged_only, denominator)"),
        # the name asked, then the family it reads as: it said "MRR has no parameter"
        ("RR(foo=1)@10", "RR@k (MRR) has no parameter 'foo' (parameters: rel, judged_only)"),
        ("nDCG(dcg='exp')@5", "dcg must be one of 'log2', 'exp-log2'"),
        ("P(rel=0)@5", "rel must be in [1, 2147483647] (the smallest grade counted relevant"),
        ("P(rel='2')@5", "rel must be int"),
        ("IPrec@2", "the recall level must be in [0, 1]"),
        ("nDCG(gains={1:'a'})@5", "gains[1] must be an integer in [-2147483648, 2147483647]"),
        ("nDCG(gains={'a':1})@5", "gains map integer grades to gains, got grade 'a'"),
        # a Python dict (ir_measures' parser) keeps the last gain of a grade given twice
        ("nDCG(gains={1:1,1:2})@5", "gains: the grade 1 is given twice"),
        ("nDCG(gains={1:1,1.0:2})@5", "gains: the grade 1.0 is given twice"),
    ],
)
def test_bad_names_say_what_is_wrong(text, message):
    with pytest.raises(UsageError) as error:
        parse_measure(text)
    assert message in str(error.value) and error.value.exit_code == 1


def test_a_name_said_to_take_no_cutoff_takes_none():
    """recip_rank@10 said "RR takes no cutoff" and mean_ap@10 "MAP takes no cutoff", while
    RR@10 and MAP@10 are taken: every refusal of a cutoff names a name that refuses one."""
    for spelling in registry.index().names:
        for k in ("10", "0.5"):
            try:
                parse_measure(f"{spelling}@{k}")
            except UsageError as error:
                said = re.search(r": (.+) takes no cutoff$", str(error))
                if said is not None:
                    with pytest.raises(UsageError):
                        parse_measure(f"{said[1]}@{k}")


def test_every_cutoff_a_bare_name_is_told_to_take_is_one_it_takes():
    """score -m IPrec said "e.g. 'IPrec@10'", which is refused (recall level in [0, 1]):
    each hint's example comes from the measure's definition and reads back as it."""
    hints = {}
    for definition in registry.definitions():
        if not definition.cutoff_required:
            continue
        spellings = (
            definition.name,
            definition.display,
            definition.ir_measures,
            *definition.aliases,
        )
        for name in filter(None, spellings):
            try:
                parse_measure(name)
            except UsageError as error:
                example = re.search(r"needs a cutoff, e\.g\. '(.+)'$", str(error))
                if example is not None:
                    hints[name] = example[1]
    assert hints["IPrec"] == "IPrec@0.5" and hints["HitRate"] == "HitRate@10"
    for name, example in hints.items():
        assert parse_measure(example) == parse_measure(f"{name}@{example.partition('@')[2]}")


def test_a_name_starting_with_digits_takes_the_parameters_it_lists():
    # 11pt_avg listed rel and judged_only, and '11pt_avg(rel=2)' was "not a measure name"
    assert [p.name for p in registry.get("11pt_avg").params] == ["rel", "judged_only"]
    measure = parse_measure("11pt_avg(rel=2, judged_only=True)")
    assert measure.family == "11pt_avg"
    assert measure.options == (("judged_only", True), ("rel", 2))
    with pytest.raises(UsageError, match="'5@10': not a measure name"):  # a number is none
        parse_measure("5@10")


@pytest.mark.parametrize(
    ("text", "example", "given"),
    [  # the example dropped the parameters given: P(rel=2) was told 'P@10' (reviewer)
        ("P(rel=2)", "P(rel=2)@10", ("rel", 2)),
        ("R(rel=2)", "R(rel=2)@10", ("rel", 2)),
        ("P(denominator='retrieved')", "P(denominator='retrieved')@10",
         ("denominator", "retrieved")),
        ("IPrec(rel=2)", "IPrec(rel=2)@0.5", ("rel", 2)),
        ("HitRate(rel=2)", "HitRate(rel=2)@10", ("rel", 2)),
        # a parameter of AP at a cutoff (map_cut's): it was 'AP (map) has no parameter'
        ("AP(normalize='min')", "AP(normalize='min')@10", ("normalize", "min")),
        ("MAP(normalize='min')", "MAP(normalize='min')@10", ("normalize", "min")),
    ],
)  # fmt: skip
def test_a_name_needing_a_cutoff_is_answered_with_its_own_parameters(text, example, given):
    with pytest.raises(UsageError) as error:
        parse_measure(text)
    assert str(error.value) == f"measure '{text}' needs a cutoff, e.g. '{example}'"
    assert parse_measure(example).options == (given,)  # the example keeps what was given


@pytest.mark.parametrize(
    ("text", "message"),
    [  # a parameter refused is refused in the words given, not with the example's cutoff
        ("P(foo=1)", "illegal measure 'P(foo=1)': P has no parameter 'foo'"),
        ("Success(rel=0)", "illegal measure 'Success(rel=0)': rel must be in [1, "),
    ],
)
def test_a_bad_parameter_without_a_cutoff_is_refused_as_written(text, message):
    with pytest.raises(UsageError) as error:
        parse_measure(text)
    assert str(error.value).startswith(message)


# a family of trec_eval's cutoff lists given keyword parameters but no cutoff: its
# default cutoffs would give several values with one name (it crashed, exit 70)
NO_CUTOFF = [
    "Success(rel=2)", "Success(rel=1)", "Success(judged_only=True)",
    "Success(judged_only=False)", "success(rel=2)", "relative_P(rel=2)", "Rprec_mult(rel=2)",
]  # fmt: skip


@pytest.mark.parametrize("text", NO_CUTOFF)
def test_cutoff_lists_with_keyword_parameters_need_a_cutoff(text, tmp_path, capsys):
    from trecbench.cli import run

    with pytest.raises(UsageError) as error:
        parse_measure(text)
    message = str(error.value)
    # Rprec_mult's number is a multiplier (R x m documents), its example one of its defaults
    needs = "a multiplier" if text.startswith("Rprec_mult") else "a cutoff"
    example = re.search(rf"needs {needs},.* e\.g\. '(.+)'$", message)[1]
    assert example != "Rprec_mult.10"
    parse_measure(example)  # the example given reads as a measure
    (tmp_path / "q").write_text("1 0 d1 2\n")
    (tmp_path / "r").write_text("1 Q0 d1 1 1 r\n")
    for command in (["score", "-m", text, str(tmp_path / "q"), str(tmp_path / "r")],
                    ["measures", text]):  # fmt: skip
        assert run(command) == 1
        assert capsys.readouterr().err == f"trecbench: {message}\n"
    if text.startswith("Success"):  # ir_measures' name: it refuses it too (no cutoff)
        measure = ir_measures.parse_measure(text)
        with pytest.raises(AssertionError, match="invalid param cutoff"):
            ir_measures.calc_aggregate([measure], [ir_measures.Qrel("1", "d1", 2)], [])
        if "=False" not in text:  # judged_only=False, its default: the object prints Success
            with pytest.raises(UsageError, match="needs a cutoff"):
                trecbench.evaluate(tmp_path / "q", tmp_path / "r", [measure])


def test_the_documented_suggestion():
    with pytest.raises(UsageError) as error:
        parse_measure("nDGC@10")
    docs = (ROOT / "docs" / "measures.md").read_text(encoding="utf-8")
    assert f"trecbench: {error.value}" in docs


def test_direction_comes_from_the_registry():
    from trecbench.comparison import direction

    assert direction("P(rel=2)@5") == "higher" and direction("ERR@10") == "higher"
    assert direction("Judged@10") is None and direction("NumRet") is None
    assert direction("num_nonrel_judged_ret") == "lower" and direction("my_metric") == "higher"


# ---------------------------------------------------------------------------------------
# every measure through the API, score, compare and every output format

EVERY = [
    "AP", "AP@10", "nDCG@10", "nDCG(dcg='exp-log2')@10", "nDCG(gains={1:2,2:5})@5", "P@5",
    "P(rel=2)@5", "R@10", "RR", "RR@10", "Rprec", "Bpref", "infAP", "IPrec@0.2",
    "Success@10", "Judged@10", "ERR@10", "nERR@10", "RBP(p=0.8)", "RBP(rel=2)", "NRBP",
    "SetP", "SetR", "SetF", "SetAP", "NumQ", "NumRet", "NumRel", "NumRelRet", "INST",
    "SDCG@10", "StRecall@10", "alpha_nDCG@10", "ERR_IA@10", "AP(normalize='min')@10",
    "P(denominator='retrieved')@10", "Q(beta=1)", "hit@3", "ndcg_at_5",
    "Compat", "Accuracy@5", "NERR8@5", "BPM@5", "INSQ",
]  # fmt: skip


def _case(seed: int):
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for t in range(1, 5):
        docs = [f"d{i}" for i in rng.permutation(30)[:20]]
        qrels += [(str(t), d, int(rng.choice([0, 1, 2, 3]))) for d in docs[::2]]
        run += [(str(t), d, float(s)) for d, s in zip(docs[:15], rng.permutation(15), strict=True)]
    return (
        pd.DataFrame(qrels, columns=["qid", "docno", "rel"]),
        pd.DataFrame(run, columns=["qid", "docno", "score"]).assign(tag="t"),
    )


# the demo qrels have no subtopics: the diversity measures say so, as they should
@pytest.mark.filterwarnings("ignore::trecbench.errors.ProviderWarning")
def test_every_measure_in_every_output_format():
    pytest.importorskip("cwl")
    pytest.importorskip("pyndeval")
    qrels, run = _case(1)
    result = trecbench.evaluate(qrels, [run, run.assign(score=-run["score"])], EVERY)
    requested = {c.measure.requested for c in result.columns}
    assert requested == set(EVERY)
    per_query = [c for c in result.columns if c.per_query]
    with pytest.warns(PerTopicWarning) as said:  # the summaries, num_q among them
        assert len(result.per_query) == 2 * 4 * len(per_query)
    assert any(str(w.message).startswith("NumQ: no value per topic") for w in said)  # as asked
    assert len(result.aggregates) == 2 * len(result.columns)
    outputs = {
        "trec": trec_format.render_trec(result, per_query=True),
        "table": trec_format.render_table(result),
        "markdown": trec_format.render_markdown(result),
        "csv": trec_format.render_csv(result, per_query=True),
        "json": trec_format.render_json(result),
    }
    document = json.loads(outputs["json"])
    for column in result.columns:
        assert column.label in outputs["trec"], column.label
        for name in ("table", "markdown", "csv"):
            assert column.display in outputs[name], (name, column.display)
        assert column.display in document["runs"][0]["aggregates"]
        if column.per_query:
            assert column.display in document["runs"][1]["per_query"]["1"]
            assert outputs["trec"].count(f"{column.label:<22}\t") == 2 * 5


def _cli(argv: list[str], cwd: Path, monkeypatch) -> str:
    """A trecbench command in-process; its stdout."""
    from click.testing import CliRunner

    from trecbench.cli import _register, cli

    _register()
    monkeypatch.chdir(cwd)
    result = CliRunner().invoke(cli, argv)
    assert result.exit_code == 0, (result.output, result.exception)
    return result.stdout


def test_score_and_compare_accept_the_new_names(tmp_path, monkeypatch):
    qrels, run = _case(2)
    (tmp_path / "qrels").write_text(
        "".join(f"{q} 0 {d} {r}\n" for q, d, r in qrels.itertuples(index=False))
    )
    for name, frame in (("a", run), ("b", run.assign(score=-run["score"]))):
        text = "".join(f"{q} Q0 {d} 1 {s} t\n" for q, d, s, _ in frame.itertuples(index=False))
        (tmp_path / name).write_text(text)
    names = "Judged@10 nDCG(dcg='exp-log2')@10 P(rel=2)@5 Q"
    out = _cli(["score", "-q", "--format", "csv", "-m", names, "qrels", "a"], tmp_path, monkeypatch)
    rows = [line.split(",") for line in out.splitlines()[1:]]
    assert {r[2] for r in rows} == {"Judged@10", "nDCG(dcg='exp-log2')@10", "P(rel=2)@5", "Q"}
    assert len(rows) == 4 * (4 + 1)
    comparison = trecbench.compare(
        tmp_path / "qrels", [tmp_path / "a", tmp_path / "b"], names.split(), samples=200
    )
    assert set(comparison.summary["measure"]) == {
        "Judged@10",
        "nDCG(dcg='exp-log2')@10",
        "P(rel=2)@5",
        "Q",
    }
    assert comparison.settings["better"]["Judged@10"] is None


def test_measures_command_lists_every_definition(tmp_path, monkeypatch):
    rows = json.loads(_cli(["measures", "--format", "json"], tmp_path, monkeypatch))
    families = [r["name"] for r in rows if not r["nickname"]]
    assert families == [d.name for d in registry.definitions()]
    by_name = {r["name"]: r for r in rows}
    assert by_name["ndcg_cut"]["spellings"][:2] == ["ndcg_cut.k", "nDCG@k"]
    assert by_name["ndcg_cut"]["engines"] == ["pytrec_eval", "fast", "native"]  # native: -D
    assert by_name["ERR"]["source"].startswith("gdeval") and by_name["ERR"]["trec_eval"] == []
    assert {"name": "p", "type": "float", "default": 0.8}.items() <= by_name["RBP"]["parameters"][
        0
    ].items()


def test_measures_names_says_each_name_in_the_format_asked(tmp_path, monkeypatch):
    # the names branch printed text whatever --format said, and P_5 beside P@5 got no line
    said = json.loads(_cli(["measures", "--format", "json", "nDCG@10", "P@5", "P_5"], tmp_path,
                           monkeypatch))  # fmt: skip
    assert [(e["name"], e["canonical"]) for e in said] == [
        ("nDCG@10", "ndcg_cut.10"), ("P@5", "P.5"), ("P_5", "P.5"),
    ]  # fmt: skip
    assert said[1]["engine"] == "fast" and said[1]["parameters"][0].startswith("rel = unset")
    text = _cli(["measures", "P.5,10", "P_5", "P@5"], tmp_path, monkeypatch)
    heads = [line.split(":")[0] for line in text.splitlines() if not line.startswith(" ")]
    assert heads == ["P.5,10", "P_5", "P@5"]
    from click.testing import CliRunner

    from trecbench.cli import cli

    refused = CliRunner().invoke(cli, ["measures", "utility.1,-1,0"])  # as score stops
    assert refused.exception.exit_code == 1  # main() exits with it: a name, nothing scored
    assert "utility needs 4 coefficients" in str(refused.exception)
    markdown = _cli(["measures", "--format", "markdown", "P@5"], tmp_path, monkeypatch)
    assert markdown.startswith("- `P@5`: P.5 — relevant documents in the top k")


def test_a_new_measure_is_data_and_one_registration(tmp_path, monkeypatch):
    """What the trec_eval 10.0 work will do: define a family, register an engine."""
    for name in ("_DEFINITIONS", "_ENGINES", "_ORDER"):  # restored after the test
        monkeypatch.setattr(registry, name, type(getattr(registry, name))(getattr(registry, name)))
    monkeypatch.setattr(registry, "_index", None)
    (tmp_path / "toy_engine.py").write_text(
        "import numpy as np\n"
        "from trecbench.measures import Definition, define, register_engine, value_names\n"
        "define(Definition('toy', 'always 0.5', trec_name='toy', trec_eval=('10.0',)))\n"
        "class Evaluator:\n"
        "    before_judged_only = False\n"
        "    wants_table = True\n"
        "    def __init__(self, truth, measures, settings):\n"
        "        self.measures = measures\n"
        "    def evaluate(self, ranked, qids):\n"
        "        return {m: [(*value_names(m)[0], np.full(len(qids), 0.5))]\n"
        "                for m in self.measures}\n"
        "register_engine('toy_engine', 'toy_engine', ['toy'])\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "toy_engine", raising=False)
    import toy_engine  # noqa: F401

    qrels = pd.DataFrame({"qid": ["1"], "docno": ["a"], "rel": [1]})
    run = pd.DataFrame({"qid": ["1"], "docno": ["a"], "score": [1.0]})
    # a 10.0 family is trec_eval syntax in 10.0 mode (in 9.0.8 mode an ordinary name)
    result = trecbench.evaluate(qrels, run, ["toy", "P.1"], compat="10.0")
    assert trec_format.render_trec(result).splitlines() == [
        "P_1                   \tall\t1.0000",
        "toy                   \tall\t0.5000",
    ]
    monkeypatch.setattr(registry, "_index", None)


def test_a_cutoff_hint_falls_back_to_10_where_the_domain_holds_no_candidate():
    # an unguarded next(): a definition whose domain holds neither 10 nor a default
    # raised StopIteration (an internal error) where a usage error was being worded
    from types import SimpleNamespace

    from trecbench.measures.suggestions import cutoff_example

    nothing = SimpleNamespace(contains=lambda k: False, what="the cutoff")
    assert cutoff_example(SimpleNamespace(trec_defaults=(5, 100), numbers=nothing)) == 10


def test_the_listing_says_what_every_spelling_takes(capsys):
    """score took p@10, Map, RR_at_3, Judged_at_5, ... which neither `trecbench measures`
    nor docs/measures.md listed: both now say so, and every word of it holds."""
    from trecbench.cli import run
    from trecbench.measures.listing import READING
    from trecbench.measures.registry import INT_CUTOFF
    from trecbench.measures.suggestions import cutoff_example

    docs = (ROOT / "docs" / "measures.md").read_text(encoding="utf-8")
    assert run(["measures"]) == 0
    shown = capsys.readouterr().out
    for note in READING:
        assert f"- {note}\n" in docs and shown.startswith(READING[0])
    for text, same in [("p@10", "P@10"), ("Map", "MAP"), ("rPrEc", "Rprec"),
                       ("NDCG_CUT@10", "nDCG@10"), ("RR_at_3", "RR@3"),
                       ("Judged_at_5", "Judged@5"), ("nDCG_at_10", "nDCG@10")]:  # fmt: skip
        assert parse_measure(text) == parse_measure(same)
    for case_sensitive in ("p.10", "p_10", "NDCG_CUT.10"):
        with pytest.raises(UsageError):
            parse_measure(case_sensitive)
    at_k = 0  # "a name of letters and digits with an integer cutoff": every one
    for definition in registry.definitions():
        k = cutoff_example(definition) if definition.cutoff == INT_CUTOFF else None
        names = {definition.ir_measures, definition.display, definition.name, *definition.aliases}
        for name in names - {None} if k is not None else ():
            if re.fullmatch(r"[A-Za-z][A-Za-z0-9]*", name):
                assert parse_measure(f"{name}_at_{k}") == parse_measure(f"{name}@{k}"), name
                at_k += 1
    assert at_k > 20


def test_no_engine_names_the_parameters_it_cannot_combine(tmp_path):
    """It said only "no engine computes AP(judged_only=True,normalize='min')@5". The way
    it offers gives AP min-normalised on the judged documents d1, d3 (ranks 1, 2): by hand
    (1/1 + 2/2) / min(2, 5) = 1."""
    (tmp_path / "q").write_text("1 0 d1 1\n1 0 d2 0\n1 0 d3 1\n")
    (tmp_path / "r").write_text("1 Q0 dX 1 3 r\n1 Q0 d1 2 2 r\n1 Q0 d3 3 1 r\n")
    files = tmp_path / "q", tmp_path / "r"
    with pytest.raises(UsageError) as error:
        trecbench.evaluate(*files, ["AP(normalize='min',judged_only=True)@5"])
    assert str(error.value) == (
        "no engine computes AP(normalize='min',judged_only=True)@5: no engine takes these "
        "parameters together (AP(judged_only=True)@5 is pytrec_eval's; AP(normalize='min')@5 "
        "is fast's); alone in a call, judged_only=True with AP(normalize='min')@5 computes it"
    )
    offered = trecbench.evaluate(*files, ["AP(normalize='min')@5"], judged_only=True)
    assert offered.to_frame().iloc[0, 0] == 1.0
