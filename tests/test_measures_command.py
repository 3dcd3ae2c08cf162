"""``trecbench measures NAMES``: each name read as ``score`` reads it (its trec_eval
version, its output name), with what the table says of the same family."""

from __future__ import annotations

import json
import re

import pytest
from conftest import ROOT

from trecbench.cli import run


def _said(capsys, *argv: str) -> list[dict]:
    assert run(["measures", "--format", "json", *argv]) == 0
    return json.loads(capsys.readouterr().out)


def test_names_are_read_as_score_reads_them(capsys):
    # measures read names with no version: rbp was 10.0's (p=0.9) where score -m rbp
    # computes trecbench's RBP (p=0.8), and unj.10 was described where score refuses it
    [rbp] = _said(capsys, "rbp")
    assert (rbp["canonical"], rbp["compat"]) == ("RBP", "9.0.8")
    assert "p = 0.8" in rbp["parameters"][0]
    [rbp] = _said(capsys, "--compat", "10.0", "rbp")
    assert (rbp["canonical"], rbp["compat"]) == ("rbp", "10.0")
    assert "p = 0.9" in rbp["parameters"][0]
    assert run(["measures", "unj.10"]) == 1
    assert "reads it with --compat 10.0" in capsys.readouterr().err
    assert [e["canonical"] for e in _said(capsys, "--compat", "10.0", "unj.10")] == ["unj.10"]
    names = {e["canonical"] for e in _said(capsys, "all_trec")}
    assert "rbp" not in names and "unj" not in names
    names = {e["canonical"] for e in _said(capsys, "--compat", "10.0", "all_trec")}
    assert {"rbp", "unj"} <= names
    assert run(["measures", "rbp"]) == 0
    assert "read as trec_eval 9.0.8's names" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("text", "meant"),
    [("offical", "official"), ("all_trc", "all_trec"), ("al_trec", "all_trec"),
     ("qrels_j", "qrels_jg")],
)  # fmt: skip
def test_a_nickname_is_suggested(text, meant, capsys, tmp_path):
    # did_you_mean offered the nicknames but checked each with parse_measure, which
    # refuses them: no suggestion at all
    (tmp_path / "q").write_text("1 0 d1 1\n")
    (tmp_path / "r").write_text("1 Q0 d1 1 1 r\n")
    assert run(["score", "-m", text, str(tmp_path / "q"), str(tmp_path / "r")]) == 1
    assert f"(did you mean {meant}" in capsys.readouterr().err
    assert run(["measures", meant]) == 0  # what is suggested is taken


def test_the_nicknames_are_listed(capsys):
    from trecbench.measures.catalog import NICKNAMES

    said = _said(capsys)
    nicknames = {r["name"]: r for r in said if r["nickname"]}
    assert list(nicknames) == list(NICKNAMES) and len(nicknames) == 6
    assert nicknames["official"]["measures"] == NICKNAMES["official"]
    assert {"unj", "rbp", "rbp_resid"} <= set(nicknames["all_trec"]["measures_10"])
    assert run(["measures"]) == 0
    text = capsys.readouterr().out
    assert run(["measures", "--format", "markdown"]) == 0
    markdown = capsys.readouterr().out
    for name in NICKNAMES:
        assert f"\n{name}: trec_eval's nickname for " in text
        assert f"\n| {name} | `{name}` | — | trec_eval's nickname for " in markdown


def _suggested(text: str, version: str | None = "9.0.8") -> list[str]:
    from trecbench.errors import TrecbenchError
    from trecbench.measures import parse_measure

    with pytest.raises(TrecbenchError) as error:
        parse_measure(text, version)
    said = re.search(r"\(did you mean (.*)\?\);", str(error.value))
    return [] if said is None else re.split(r", (?![^(]*\))", said[1])


@pytest.mark.parametrize(
    ("text", "first"),
    [("P10", "P@10"), ("P5", "P@5"), ("map100", "MAP@100"), ("ndcg10", "nDCG@10"),
     ("nDCG10", "nDCG@10"), ("MaxOntSim5", "MaxOntSim@5"), ("Success.10", "success.10")],
)  # fmt: skip
def test_a_cutoff_glued_on_suggests_the_cut_form_first(text, first):
    # P10 had no suggestion, P5 -> P, ndcg10 -> nDCG, MaxOntSim5 -> MaxOntSim@10,
    # Success.10 -> Success (its cutoff dropped)
    from trecbench.measures import parse_measure

    suggested = _suggested(text)
    assert suggested[0] == first, suggested
    k = int(re.search(r"[0-9]+$", text)[0])
    assert parse_measure(first, "9.0.8").params in (k, str(k))


def _typos(name: str) -> list[str]:
    """A name with a letter dropped, two swapped, one doubled, and a cutoff glued on."""
    out = [name[:i] + name[i + 1 :] for i in range(len(name))]
    out += [name[:i] + name[i + 1] + name[i] + name[i + 2 :] for i in range(len(name) - 1)]
    out += [name[:i] + name[i] + name[i:] for i in range(len(name))]
    return [*out, f"{name}10", f"{name}.5", name.lower() + "3"]


@pytest.mark.filterwarnings("ignore::trecbench.errors.ParameterDomainWarning")
def test_every_suggestion_for_generated_typos_parses():
    from trecbench.errors import TrecbenchError
    from trecbench.measures import parse_measures, registry

    names = {
        s
        for d in registry.definitions()
        for s in (d.trec_name, d.label, d.display, d.ir_measures, d.name)
        if s
    }
    for version in ("9.0.8", "10.0"):
        for name in sorted(names):
            for typo in _typos(name):
                try:
                    parse_measures([typo], version)
                except TrecbenchError:  # a refusal: its suggestions are checked
                    for suggestion in _suggested(typo, version) if " " not in typo else []:
                        assert parse_measures([suggestion], version), (typo, suggestion)


@pytest.mark.parametrize(
    "text", ["RBP", "HitRate@10", "MRR@10", "Recall_all@5", "Q", "relstring.5", "P@5", "ERR@10"]
)
def test_a_name_and_the_table_say_the_same_checked_against(text, capsys):
    # measures RBP said "checked against local" where the table said cwl_eval's
    [said] = _said(capsys, text)
    rows = {r["name"]: r for r in _said(capsys)}
    from trecbench.measures import parse_measure

    family = parse_measure(text, "9.0.8").family
    assert said["checked_against"] == rows[family]["source"]
    assert said["checked_against"] not in ("local", "pytrec_eval")


def test_a_family_lists_no_spelling_that_reads_as_another():
    # HitRate listed success.k, which is trec_eval's success family
    from trecbench.measures import listing, parse_measure, registry

    for definition in registry.definitions():
        for spelling in listing.spellings(definition):
            if spelling.endswith(".k") and "(" not in spelling:
                measure = parse_measure(spelling.replace(".k", ".10"))
                assert measure.family == definition.name, spelling


@pytest.mark.parametrize(
    "text",
    [
        "RR@10", "hit@10", "MaxOntSim@5", "Judged@10", "P", "iprec_at_recall", "map",
        # a level trec_eval prints with two decimals (%3.2f): said in full before
        "IPrec@0.005", "iprec_at_recall.0.125", "Rprec_mult.0.123456789,2",
    ],
)  # fmt: skip
def test_a_name_says_what_score_prints_it_as(text, capsys, tmp_path):
    # measures RR@10 never said score prints recip_rank_cut_10, nor P its 9 cutoffs
    (tmp_path / "q").write_text("1 0 d1 1\n1 0 d2 0\n")
    (tmp_path / "r").write_text("1 Q0 d1 1 2 r\n1 Q0 d2 2 1 r\n")
    assert run(["score", "-m", text, str(tmp_path / "q"), str(tmp_path / "r")]) == 0
    printed = [line.split()[0] for line in capsys.readouterr().out.splitlines()]
    [said] = _said(capsys, text)
    assert said["prints_as"] == printed
    assert run(["measures", text]) == 0
    assert f"  prints as {', '.join(printed)} (score's trec format)\n" in capsys.readouterr().out


def test_a_family_says_its_default_cutoffs(capsys):
    # measures P said "cutoff;" with no value though score -m P prints 9 cutoffs
    assert run(["measures", "P"]) == 0
    said = capsys.readouterr().out
    assert "  cutoff = 5, 10, 15, 20, 30, 100, 200, 500, 1000 (trec_eval's defaults); " in said


_QRELS = "1 0 a 0\n1 0 b 1\n1 0 c 0\n2 0 e 1\n"
_RUN = "1 Q0 x 1 9 r\n1 Q0 a 2 8 r\n1 Q0 y 3 7 r\n1 Q0 b 4 6 r\n1 Q0 c 5 5 r\n"
_RUN += "2 Q0 z 1 9 r\n2 Q0 w 2 8 r\n2 Q0 e 3 7 r\n"
# by hand: the judged documents in order are a b c (b relevant, rank 2) and e (rank 1)
_RR_JUDGED = {1: {"1": 0.0, "2": 1.0}, 2: {"1": 0.5, "2": 1.0}, 3: {"1": 0.5, "2": 1.0}}


@pytest.mark.parametrize("k", [1, 2, 3])
@pytest.mark.parametrize("name", ["RR", "MRR"])
def test_rr_at_k_takes_judged_only_as_rr_does(name, k, tmp_path, capsys):
    # RR(judged_only=True)@10 was refused "has no parameter 'judged_only'" though
    # RR(judged_only=True) and ir_measures' RR(judged_only=True)@k compute
    (tmp_path / "q").write_text(_QRELS)
    (tmp_path / "r").write_text(_RUN)
    text = f"{name}(judged_only=True)@{k}"
    argv = ["score", "-q", "--format", "csv", "-m", text, str(tmp_path / "q"), str(tmp_path / "r")]
    assert run(argv) == 0
    rows = [line.split(",") for line in capsys.readouterr().out.splitlines()[1:]]
    got = {qid: float(value) for _, qid, _, _, value in rows if qid != "all"}
    assert got == _RR_JUDGED[k]
    ir_measures = pytest.importorskip("ir_measures")
    qrels = list(ir_measures.read_trec_qrels(str(tmp_path / "q")))
    run_ = list(ir_measures.read_trec_run(str(tmp_path / "r")))
    provider = ir_measures.providers.registry["pytrec_eval"]
    measure = ir_measures.parse_measure(f"RR(judged_only=True)@{k}")
    theirs = {m.query_id: m.value for m in provider.iter_calc([measure], qrels, run_)}
    if k >= 2:  # pytrec_eval's recip_rank ignores the cutoff: it agrees where k reaches b
        assert theirs == _RR_JUDGED[k]


@pytest.mark.filterwarnings("ignore::trecbench.errors.ParameterDomainWarning")
def test_small_things_said_of_a_name(capsys, tmp_path):
    # measures utility.inf exited 4 (a scoring code) where it describes a name
    assert run(["measures", "utility.inf"]) == 1
    assert "utility needs 4 coefficients" in capsys.readouterr().err
    # score -m recip_rank_cut_0 quoted 'recip_rank_cut.0', not what was typed
    (tmp_path / "q").write_text(_QRELS)
    (tmp_path / "r").write_text(_RUN)
    assert run(["score", "-m", "recip_rank_cut_0", str(tmp_path / "q"), str(tmp_path / "r")]) == 1
    assert capsys.readouterr().err.startswith("trecbench: illegal measure 'recip_rank_cut_0': ")
    # P_5.1 was P.5.1, warned of as trec_eval's reading of P.5.1 (trec_eval 9.0.8 refuses
    # P_5.1: "illegal measure 'P_5'"); a label trec_eval prints holds whole numbers
    for label, value in (("P_5.1", "5.1"), ("recall_5.0", "5.0"), ("ndcg_cut_10,5.5", "5.5")):
        assert run(["score", "-m", label, str(tmp_path / "q"), str(tmp_path / "r")]) == 1
        assert capsys.readouterr().err == (
            f"trecbench: illegal measure '{label}': no label trec_eval prints: trec_eval reads "
            f"'{value}' only in part (what follows its number is ignored)\n"
        )
    # relstring.0's cutoff was 0.0, Rprec_mult.0's name Rprec_mult.0.0
    assert run(["measures", "relstring.0", "Rprec_mult.0"]) == 0
    said = capsys.readouterr().out
    assert "  cutoff = 0; " in said and "Rprec_mult.0: Rprec_mult.0 — " in said
    # an unclosed parenthesis was "rel must be a literal value"
    assert run(["measures", "P(rel=2"]) == 1
    assert (
        capsys.readouterr().err
        == "trecbench: illegal measure 'P(rel=2': the parenthesis is not closed\n"
    )
    assert run(["measures", "P(rel=2x)"]) == 1
    assert "rel must be a literal value" in capsys.readouterr().err


def test_set_f_says_beta_once(capsys):
    # its row read "`beta=1.0 (> 0)`, beta > 0"
    assert run(["measures", "--format", "markdown"]) == 0
    [row] = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| set_F ")]
    assert row.split(" | ")[2].count("beta") == 1


def test_a_number_is_said_with_every_digit(capsys):
    # %g said Rprec_mult.0.123456789 was Rprec_mult.0.123457, its multiplier 0.123457
    assert run(["measures", "Rprec_mult.0.123456789", "IPrec@0.123456789"]) == 0
    said = capsys.readouterr().out
    assert "Rprec_mult.0.123456789: Rprec_mult.0.123456789 — " in said
    assert "  multiplier = 0.123456789; " in said
    assert "IPrec@0.123456789: iprec_at_recall.0.123456789 — " in said
    assert "0.123457" not in said


@pytest.mark.parametrize("compat", ["9.0.8", "10.0"])
def test_no_name_suggested_that_score_cannot_calculate(compat, tmp_path, capsys):
    # score -m utility10 suggested utility.10, which score refuses (4 coefficients)
    (tmp_path / "q").write_text(_QRELS)
    (tmp_path / "r").write_text(_RUN)
    files = [str(tmp_path / "q"), str(tmp_path / "r")]
    assert run(["score", "--compat", compat, "-m", "utility10", *files]) == 1
    [suggested] = re.findall(r"\(did you mean (.*)\?\)", capsys.readouterr().err)
    assert "utility.10" not in suggested.split(", ")
    for name in suggested.split(", "):
        assert run(["score", "--compat", compat, "-m", name, *files]) == 0, name
        capsys.readouterr()


@pytest.mark.parametrize("blank", ["", " "])
def test_a_blank_name_is_refused_in_the_command_lines_words(blank, capsys):
    # it suggested measures='map', the library's keyword, to a command with no such option
    assert run(["measures", "P_5", blank]) == 1
    err = capsys.readouterr().err
    assert err == (
        f"trecbench: empty measure name {blank!r}: give a measure, e.g. trecbench measures map\n"
    )


def test_the_10_0_family_refusal_names_only_commands_as_they_are(capsys):
    # compare -m unj.10 said "score and compare read it with --compat 10.0", and compare
    # has no --compat ("No such option"): the commands it names take the option or not
    from trecbench.cli.group import cli
    from trecbench.measures.names import WITHOUT_COMPAT

    def options(command: str) -> set[str]:
        params = cli.get_command(None, command).params
        return {spelling for param in params for spelling in param.opts}

    assert "--compat" in options("score")
    for command in re.split(r", | and ", WITHOUT_COMPAT):
        assert "--compat" not in options(command), command
    runs = [str(ROOT / "runs" / f"{name}.run") for name in ("tfidf-word", "tfidf-char")]
    assert run(["compare", str(ROOT / "qrels/hpo-demo.qrels"), *runs, "-m", "unj.10"]) == 1
    said = capsys.readouterr().err
    assert "score reads it with --compat 10.0, which compare, power, agree" in said
    assert "compare read it" not in said


def test_the_defaults_trec_eval_takes_without_parameters_are_listed():
    """measures listed no default for relstring (10) and utility (1,-1,0,0), though it
    lists P's and Rprec_mult's (helper-598); m_relstring.c and m_utility.c take them."""
    import contextlib
    import io

    from trecbench.cli import run

    for name, shown in (
        ("relstring", "cutoff = 10 (trec_eval's defaults)"),
        ("utility", "coefficient = 1, -1, 0, 0 (trec_eval's defaults)"),
    ):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            assert run(["measures", name]) == 0
        assert shown in out.getvalue()


def test_every_view_says_a_diversity_measure_needs_diversity_qrels(capsys):
    # the text listing and a name's lines said nothing of it where the Markdown table did:
    # qrels of one subtopic give alpha-nDCG numbers without meaning
    from trecbench.measures import registry

    diverse = [d.name for d in registry.definitions() if d.diversity]
    assert "alpha_nDCG" in diverse
    assert run(["measures"]) == 0
    blocks = {b.split(":", 1)[0]: b for b in capsys.readouterr().out.split("\n\n")}
    for name in diverse:
        assert "diversity qrels: subtopic in column 2" in blocks[name], name
    assert "diversity qrels" not in blocks["map"]
    assert run(["measures", "alpha_nDCG@10", "map"]) == 0
    said = capsys.readouterr().out
    assert said.count("diversity qrels: subtopic in column 2") == 1
    assert "alpha_nDCG@10: " in said.split("diversity qrels")[0].splitlines()[-1]


def test_parameters_a_family_takes_none_of_are_said_to_be_ignored(capsys, tmp_path):
    """map.5 and recip_rank.10 are map and recip_rank to trec_eval 9.0.8 (it prints 'map'
    and 'recip_rank'), but the API keyed them 'map.5', which reads as AP cut at 5, without
    a word (reviewer 689): a warning says the parameters are ignored, with the cut family
    where there is one; the printed values stay trec_eval's."""
    import warnings

    import trecbench
    from trecbench.errors import ParameterDomainWarning

    (tmp_path / "q").write_text(_QRELS)
    (tmp_path / "r").write_text(_RUN)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        values = trecbench.evaluate(tmp_path / "q", tmp_path / "r", ["map.5", "map", "P.5"])
    said = [str(w.message) for w in caught if w.category is ParameterDomainWarning]
    assert said == [
        "measure 'map.5': map takes no parameters; computed as trec_eval computes it, '5' "
        "ignored (at a cutoff: map_cut.5)"
    ]
    assert values.to_frame()["map.5"].tolist() == values.to_frame()["map"].tolist()
    args = ["score", "-m", "recip_rank.10", str(tmp_path / "q"), str(tmp_path / "r")]
    assert run(args) == 0
    out, err = capsys.readouterr()
    assert out.startswith("recip_rank            \tall\t")  # as trec_eval 9.0.8 prints it
    assert err == (
        "trecbench: warning: ParameterDomainWarning: measure 'recip_rank.10': recip_rank "
        "takes no parameters; computed as trec_eval computes it, '10' ignored (at a cutoff: "
        "RR@10)\n"
    )
    # a hint only where the cut spelling is one (map_cut.x is refused: reviewer 693)
    for asked in ("map.x", "map.5,10", "gm_map.4"):
        with pytest.warns(ParameterDomainWarning, match=r"' ignored$"):
            trecbench.parse_measure(asked)
