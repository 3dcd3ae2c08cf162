"""Measure names: three spellings, one meaning; trec_eval's -m rules and refusals."""

from __future__ import annotations

import dataclasses
import warnings

import pytest

import trecbench
from trecbench.errors import UsageError
from trecbench.measures import (
    KPI_PRESET,
    MeasureParameterError,
    display_name,
    parse_measure,
    parse_measures,
    presentation_order,
)

SAME_MEANING = [
    ("ndcg_cut.10", "nDCG@10", "ndcg@10"),
    ("map_cut.100", "AP@100", "MAP@100"),
    ("recall.50", "R@50", "Recall@50"),
    ("P.10", "P@10", "precision@10"),
    ("HitRate@10", "Success@10", "hitrate@10"),
    ("MRR@10", "RR@10", "recip_rank_cut.10"),
    ("map", "AP", "MAP"),
]


@pytest.mark.parametrize("spellings", SAME_MEANING, ids=[s[0] for s in SAME_MEANING])
def test_spellings_share_one_meaning(spellings):
    parsed = [parse_measure(text) for text in spellings]
    assert all(p == parsed[0] for p in parsed)
    assert [p.requested for p in parsed] == list(spellings)


def test_mrr_at_10_is_not_the_uncut_recip_rank():
    mrr = parse_measure("MRR@10")
    assert mrr != parse_measure("recip_rank")
    assert (mrr.provider, mrr.family, mrr.k) == ("local", "MRR", 10)


def test_kpi_preset_is_the_default():
    assert [m.requested for m in parse_measures(None)] == list(KPI_PRESET)
    assert [m.canonical for m in parse_measures(None)] == [
        "ndcg_cut.10",
        "map_cut.100",
        "MRR@10",
        "recall.50",
        "recall.100",
        "HitRate@10",
    ]


def test_nicknames_and_trec_order():
    official = parse_measures(["official"])
    assert [m.family for m in official] == (
        "runid num_q num_ret num_rel num_rel_ret map gm_map Rprec bpref recip_rank "
        "iprec_at_recall P".split()
    )
    ordered = presentation_order(parse_measures(["P.5", "map", "runid"]))
    assert [m.family for m in ordered] == ["runid", "map", "P"]
    friendly = parse_measures(["P@5", "MAP@100"])
    assert presentation_order(friendly) == friendly  # friendly names keep request order
    # docs/measures.md: trec_eval's order when every name is spelt its way (trec_eval -m
    # ndcg_cut.5 -m Rprec -m num_q prints num_q, Rprec, ndcg_cut_5); a mix keeps the
    # order asked
    spelled = parse_measures(["ndcg_cut.5 Rprec num_q"])
    assert [m.requested for m in presentation_order(spelled)] == ["num_q", "Rprec", "ndcg_cut.5"]
    mixed = parse_measures(["ndcg_cut.5 Rprec num_q P@5"])
    assert presentation_order(mixed) == mixed


@pytest.mark.parametrize("text", ["official.5", "all_trec.5,7", "set.x"])
def test_a_nickname_with_parameters_is_refused_saying_they_would_change_nothing(text):
    # trec_eval 9.0.8 and 10.0 print -m official.5 as -m official (the parameters are
    # ignored); it was refused as "not a measure name"
    from trecbench.errors import UsageError

    nickname = text.partition(".")[0]
    with pytest.raises(UsageError, match=f"the nickname {nickname} takes no parameters") as error:
        parse_measures([text])
    assert parse_measures([nickname])  # the nickname alone is one
    # in the words of what was given the names: a list of them (it was -m's words alone)
    assert str(error.value).endswith(f"after it, e.g. measures=['{nickname}', 'P.5']")
    assert error.value.worded({"measures": "-m"}).endswith(f"after it, e.g. -m '{nickname} P.5'")


def test_each_request_keeps_its_parameters_but_under_trec_eval_s_rule():
    """parse_measures computes every request as given (pytrec_eval's {'P.5', 'P.10'} is
    both); trec_eval's -m rule, score's, keeps a family's first parameters, and says what
    it left out."""
    from trecbench.errors import FirstParametersWarning
    from trecbench.measures.first_parameters import first_parameters

    assert [m.canonical for m in parse_measures(["P.5", "P.10"])] == ["P.5", "P.10"]
    assert [m.canonical for m in parse_measures({"P.10", "P.5", "P.20"})] == [
        "P.5", "P.10", "P.20"
    ]  # fmt: skip
    cases = [
        (
            ["P.5", "P.10"],
            ["P.5"],
            "'P.10' not computed: .* \\(P.5\\); for both, 'P.5,10' given first or 'P@10' "
            "in measures",
        ),
        (["ndcg.1=3", "ndcg.1=4"], ["ndcg.1=3"], "; for both, 'ndcg_1=4' in measures$"),
        (
            ["success.5", "success.10"],
            ["success.5"],
            "'success.5,10' given first or 'success_10' in measures$",
        ),
    ]
    for names, kept, said in cases:
        with pytest.warns(FirstParametersWarning, match=said):
            assert [m.canonical for m in first_parameters(parse_measures(names))] == kept
    # names of one natural key (P.5, P.05) in the set's hash order no more
    assert [m.requested for m in parse_measures({"P.5", "P.05"})] == ["P.05", "P.5"]
    # nothing left out, nothing said: P_10 is printed ('P.10 not computed' was said)
    for names in (["P.5,10", "P.10"], ["P.10", "P.010"], ["ndcg_cut.5,10", "ndcg_cut.10"]):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            first_parameters(parse_measures(names, repeats=True))
    with pytest.warns(FirstParametersWarning, match="^'P.5,10': P_10 not computed: "):
        first_parameters(parse_measures(["P.5", "P.5,10"], repeats=True))
    # the first -m spelling wins wherever another spelling of it stands (a P_5 before
    # P.5 made P.10 the first list: P_5 and P_10 printed)
    for names in (["P_5", "P.5", "P.10"], ["P.5", "P_5", "P.10"]):
        with pytest.warns(FirstParametersWarning, match="'P.10' not computed"):
            kept = first_parameters(parse_measures(names, repeats=True))
        assert [m.canonical for m in kept] == ["P.5"], names
    # a friendly spelling, or a label, is its own request; a bare family takes the list
    # given, as in pytrec_eval ({'P', 'P.10'}: P_10 alone), unsaid
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert [m.canonical for m in first_parameters(parse_measures(["P", "P.10"]))] == ["P.10"]
    for names in (["P.5", "P@10"], ["P.5", "P_10"], ["P.5", "P.5"]):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert len(first_parameters(parse_measures(names))) == len(set(names))


@pytest.mark.parametrize("texts", ["", " ", ["map", ""], ["\t\n"]])
def test_an_empty_measure_name_is_a_usage_error(texts):
    # it computed nothing and exited 0
    with pytest.raises(UsageError, match="empty measure name"):
        parse_measures(texts)


@pytest.mark.parametrize("empty", [[], (), iter([])])
def test_an_empty_list_of_measures_is_a_usage_error(empty):
    # evaluate() returned an empty table without a word
    with pytest.raises(UsageError, match="no measure asked"):
        trecbench.evaluate({"q": {"d": 1}}, {"q": {"d": 1.0}}, empty)


def test_parameters_read_like_trec_eval():
    from trecbench.errors import ParameterDomainWarning

    with pytest.warns(ParameterDomainWarning, match="reads '23.4' only in part"):
        assert parse_measure("ndcg_cut.10,20,23.4").cutoffs == (10, 20, 23)  # atol
    assert parse_measure("P").cutoffs == (5, 10, 15, 20, 30, 100, 200, 500, 1000)
    assert parse_measure("success").cutoffs == (1, 5, 10)
    assert parse_measure("map.5").params is None  # parameters of plain measures are ignored


@pytest.mark.parametrize("spelling", ["map.5", "ndcg_cut.10,20,23.4"])
def test_a_parsed_measure_warns_once(spelling):
    """parse_measure warns of a trec_eval spelling's parameters; evaluating the measure it
    returns says nothing more (the same fact twice), a name given as text says it once."""
    from trecbench.errors import ParameterDomainWarning

    qrels, run = {"q": {"d": 1}}, {"q": {"d": 1.0, "e": 0.5}}
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        measure = parse_measure(spelling)
        trecbench.evaluate(qrels, run, [measure])
        trecbench.evaluate(qrels, run, [spelling])
    kinds = [w.category for w in said]
    assert kinds == [ParameterDomainWarning, ParameterDomainWarning], [str(w.message) for w in said]
    # a Measure built otherwise (the class is public) is warned of when evaluated
    built = dataclasses.replace(measure, requested=f" {measure.requested}")
    with pytest.warns(ParameterDomainWarning):
        trecbench.evaluate(qrels, run, [built])


@pytest.mark.parametrize("text", ["P.0", "P.5,5", "ndcg.1=3,,2", "iprec_at_recall..1,.10"])
def test_bad_parameters_exit_2(text):
    with pytest.raises(MeasureParameterError) as error:
        parse_measure(text)
    assert error.value.exit_code == 2


@pytest.mark.parametrize(
    ("text", "said"),
    [  # trec_eval 9.0.8 refuses each ("negative cutoff detected in 'a'" for P.a)
        ("P.a", "'a' is not a cutoff (a positive integer; trec_eval reads it as 0)"),
        ("ndcg_cut.0", "the cutoff '0' is not positive (a cutoff is a rank: 1 or more)"),
        ("success.-1", "the cutoff '-1' is not positive (a cutoff is a rank: 1 or more)"),
        ("P.5,,10", "an empty cutoff (cutoffs are positive integers, separated by commas)"),
        ("P.5,05", "the cutoff 5 is given twice ('5' and '05'); trec_eval takes each once"),
        ("iprec_at_recall.0.1,.10", "the recall level 0.1 is given twice ('0.1' and '.10')"),
        ("ndcg.10", "'10' is not a grade=gain pair (ndcg takes a gain map, e.g. "
         "'ndcg.1=1,2=3'); a cutoff is ndcg_cut's: 'ndcg_cut.10'"),
        ("G.10", "'10' is not a grade=gain pair (G takes a gain map, e.g. 'G.1=1,2=3')"),
        ("Rndcg.10", "'10' is not a grade=gain pair (Rndcg takes a gain map"),
        ("ndcg_rel.10", "'10' is not a grade=gain pair (ndcg_rel takes a gain map"),
        ("ndcg.1=2,3", "'3' is not a grade=gain pair (ndcg takes a gain map, e.g. "
         "'ndcg.1=1,2=3')"),
    ],
)  # fmt: skip
def test_bad_parameter_lists_name_the_measure_and_the_part(text, said):
    """trec_eval's words, without the measure: "negative cutoff detected in 'a'" for
    P.a (not negative), "malformed pair parameters in '10'" for ndcg.10."""
    with pytest.raises(MeasureParameterError) as error:
        parse_measure(text)
    assert str(error.value).startswith(f"illegal measure '{text}': {said}")
    assert error.value.exit_code == 2
    if text == "ndcg.1=2,3":  # not a list of cutoffs: no cut family offered
        assert "ndcg_cut" not in str(error.value)


@pytest.mark.parametrize("family", ["P", "success", "ndcg_cut", "recall", "map_cut"])
def test_a_label_with_cutoff_0_is_refused_as_the_trec_spelling_is(family):
    """P_0 (pytrec_eval's spelling) was "no such measure" (ndcg_cut_0: "did you mean
    ndcg_cut?", recall_0 other families) where P.0 says why: the same words for both."""
    said = "the cutoff '0' is not positive (a cutoff is a rank: 1 or more)"
    for text in (f"{family}.0", f"{family}_0"):
        with pytest.raises(MeasureParameterError) as error:
            parse_measure(text)
        assert str(error.value) == f"illegal measure '{text}': {said}"


@pytest.mark.parametrize("text", ["foo", "P.", "nDCG@0", "nDCG@x", "HitRate", "Judgd@10"])
def test_unknown_measures_exit_1(text):
    with pytest.raises(UsageError) as error:
        parse_measure(text)
    assert error.value.exit_code == 1


def test_display_names():
    assert [display_name(x) for x in ("ndcg_cut_10", "map_cut_100", "recall_50")] == [
        "nDCG@10",
        "MAP@100",
        "Recall@50",
    ]
    assert [display_name(x) for x in ("success_10", "P_5", "map", "bpref")] == [
        "HitRate@10",
        "P@5",
        "MAP",
        "bpref",
    ]


# ---------------------------------------------------------------------------------------
# issue 25 (measure lists matched in linear time) and issue 27 (typos)


def test_measure_lists_are_matched_in_linear_time(monkeypatch):
    """Duplicates are found by hash: comparisons grow with the list, not with its pairs
    (8,000 distinct -m took ~10 s, 10^5 half an hour, compared pairwise)."""
    from trecbench.measures import Measure

    names = [f"P@{k}" for k in range(1, 3001)] + ["P@1", "P.1"]
    compared = []
    original = Measure.__eq__

    def counted(self, other):
        compared.append(1)
        return original(self, other)

    monkeypatch.setattr(Measure, "__eq__", counted)
    parsed = parse_measures(names)
    assert len(parsed) == 3000 and len(compared) < 100  # pairwise: ~4.5 million


def _refusal(text: str) -> str:
    with pytest.raises(UsageError) as error:
        parse_measure(text)
    return str(error.value)


def test_a_bad_cutoff_is_named_not_echoed_in_suggestions():
    assert _refusal("ndcg@1O") == "illegal measure 'ndcg@1O': the cutoff must be a positive integer"
    message = _refusal("ndcgg@1O")
    assert "did you mean nDCG, " in message and "@1O," not in message and "@1O?" not in message


@pytest.mark.parametrize(
    "text, each",
    [
        ("maxontsim.1,10", "MaxOntSim@1 MaxOntSim@10"),
        ("MaxOntSim@1,10", "MaxOntSim@1 MaxOntSim@10"),
        ("nDCG@5,10,20", "nDCG@5 nDCG@10 nDCG@20"),
        # the advice dropped the keyword parameters: P@5 P@10 (rel=1), MRR@10 MRR@20
        ("P(rel=2)@5,10", "P(rel=2)@5 P(rel=2)@10"),
        ("RR(judged_only=True)@10,20", "RR(judged_only=True)@10 RR(judged_only=True)@20"),
    ],
)
def test_a_list_of_cutoffs_outside_trec_evals_spelling_is_said_to_be_no_list(text, each):
    # it was "the cutoff must be a positive integer", though P.5,10 takes a list
    said = f"illegal measure '{text}': this name takes one cutoff, not a list: give each, "
    assert _refusal(text) == said + f"measures={each.split()!r}"  # the library's list
    with pytest.raises(UsageError) as error:
        parse_measure(text)
    assert error.value.worded({"measures": "-m"}) == said + f"-m '{each}'"  # a command's
    cutoffs = text.replace("@", ".").split(".")[-1].split(",")
    suggested = parse_measures([each])  # what the message says to give is taken
    assert [m.canonical.replace("@", ".").split(".")[-1] for m in suggested] == cutoffs
    options = {m.options for m in parse_measures([text[: text.index(",")]])}
    assert {m.options for m in suggested} == options  # each with the parameters given
    assert _refusal("MaxOntSim@1,x").endswith("the cutoff must be a positive integer")


@pytest.mark.parametrize("text", ["P@5,P@10", "nDCG@10,P@5,map"])
def test_names_listed_in_one_are_said_to_be_a_list(text, capsys):
    # it was "the cutoff must be a positive integer" (its cutoff read '5,P@10')
    said = f"illegal measure '{text}': a list of names, not one: give each, "
    each = text.split(",")
    assert _refusal(text) == said + f"measures={each!r}"
    with pytest.raises(UsageError) as error:
        parse_measure(text)
    assert error.value.worded({"measures": "-m"}) == said + f"-m '{' '.join(each)}'"
    assert len(parse_measures(each)) == len(each)  # what it says to give is taken
    assert _refusal("P@5,bogus").endswith("the cutoff must be a positive integer")
    from trecbench.cli import run

    assert run(["measures", text]) == 1  # its own advice, the same problem
    said_there = f"illegal measure '{text}': a list of names, not one: give each: "
    assert capsys.readouterr().err == f"trecbench: {said_there}{' '.join(each)}\n"


def test_suggestions_keep_the_users_parameters_only_where_valid():
    message = _refusal("nDGC@10")
    assert "nDCG@10" in message and "Rndcg, " in message and "Rndcg@10" not in message
    assert "did you mean RBP?" in _refusal("RPB(p=1.5)")  # p=1.5 is outside RBP's domain
    assert "did you mean RBP(p=0.5)?" in _refusal("RPB(p=0.5)")


@pytest.mark.parametrize(
    ("text", "first", "meant"),
    [
        ("ndcg_10", "ndcg_cut_10, nDCG@10, ", "ndcg_cut.10"),
        # it suggested "nDCG, Rndcg, ndcg_rel, ndcg_cut"
        ("NDCG_10", "ndcg_cut_10, nDCG@10, ", "ndcg_cut.10"),
        ("map_10", "map_cut_10, MAP@10, ", "map_cut.10"),
        ("recip_rank_10", "recip_rank_cut_10, MRR@10, ", "RR@10"),
    ],
)
def test_a_cutoff_after_an_underscore_suggests_the_cut_family_first(text, first, meant):
    # trec_eval 9.0.8: "illegal measure 'ndcg_10'" (ndcg_10 was read as ndcg's gain pairs)
    message = _refusal(text)
    assert message.startswith(f"illegal measure '{text}': no such measure (did you mean {first}")
    for suggested in first.split(", ")[:2]:
        assert parse_measure(suggested) == parse_measure(meant)


@pytest.mark.parametrize("text", ["nDCG@10ish", "nDCG(dcg='\\d')@10", "RBP(p=0.5if)", "P@0x10"])
def test_no_python_warning_reaches_the_user(text, capsys):
    import warnings

    from trecbench.cli import run

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(UsageError):
            parse_measure(text)
        assert run(["measures", text]) == 1
    assert [str(w.message) for w in caught] == []
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Warning" not in err, err


def test_all_trec_is_written_once_in_the_catalog():
    from trecbench.measures.catalog import ALL_TREC, NICKNAMES
    from trecbench.trec_eval import compat

    assert not hasattr(compat.V10, "all_trec")
    assert ALL_TREC["9.0.8"] == tuple(NICKNAMES["all_trec"])
    for version, names in ALL_TREC.items():
        assert [m.family for m in parse_measures(["all_trec"], version)] == list(names)
    ten = [n for n in ALL_TREC["10.0"] if n not in ALL_TREC["9.0.8"]]
    assert ten == ["unj", "rbp", "rbp_resid"]


def test_pytrec_eval_labels_keep_every_cutoff():
    """pytrec_eval's P_1 and P_2 are two measures, as pytrec_eval computes them (trec_eval's
    -m refuses P_5: its "first parameter list wins" is for P.5 -m P.10, and dropped P_2)."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels = {"1": {"a": 1, "b": 2, "c": 0}, "2": {"x": 1}}
    run = {"1": {"a": 3.0, "b": 1.0, "c": 2.0, "d": 0.5}, "2": {"x": 0.5, "y": 1.0}}
    names = ["P_1", "P_2", "ndcg_cut_5", "ndcg_cut_10", "recall_10", "recall_20"]
    theirs = pytrec_eval.RelevanceEvaluator(qrels, set(names)).evaluate(run)
    assert trecbench.evaluate(qrels, run, names).to_dict() == theirs
    assert [m.canonical for m in parse_measures(["P.1", "P_2"])] == ["P.1", "P.2"]


def test_relstring_is_in_to_dict():
    """relstring's string per topic (a: 1, c: 0, b: 2, d unjudged: "-", by hand and as
    trec_eval -q prints it) was left out of to_dict without a word."""
    qrels = {"1": {"a": 1, "b": 2, "c": 0}, "2": {"x": 1}}
    run = {"1": {"a": 3.0, "b": 1.0, "c": 2.0, "d": 0.5}, "2": {"x": 1.0}}
    got = trecbench.evaluate(qrels, run, ["relstring", "map"]).to_dict()
    assert {q: v["relstring"] for q, v in got.items()} == {"1": "102-", "2": "1"}
    assert got["2"]["map"] == 1.0


def test_pytrec_eval_labels_print_in_trec_evals_order_and_are_warned_like_it():
    """A label keeps trec_eval's printing order (trec_eval -m P.5 -m map -m num_q prints
    num_q, map, P_5) and its domain warnings (it was refused as illegal)."""
    import warnings

    from trecbench.errors import ParameterDomainWarning
    from trecbench.measures import presentation_order

    ordered = presentation_order(parse_measures(["P_5", "map", "num_q"]))
    assert [m.requested for m in ordered] == ["num_q", "map", "P_5"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        (measure,) = parse_measures(["iprec_at_recall_1.5"])
    assert measure.params == "1.5"
    assert [w.category for w in caught] == [ParameterDomainWarning]


@pytest.mark.parametrize(
    "family, example, label",
    [("iprec_at_recall", "0.3", "iprec_at_recall_0.30"), ("Rprec_mult", "2", "Rprec_mult_2.00")],
)
def test_the_listed_trec_eval_spelling_of_a_level_means_that_level(family, example, label):
    # the listing said "iprec_at_recall..r": "..0.3" reads as .0 (iprec_at_recall_0.00), as
    # trec_eval reads it; the spelling is the family, a dot and the level
    from trecbench.measures import registry
    from trecbench.measures.labels import value_names
    from trecbench.measures.listing import spellings

    listed = spellings(registry.get(family))[0]
    assert listed.endswith("r")
    asked = listed[: -len("r")] + example
    assert [name for name, _ in value_names(parse_measure(asked))] == [label]


@pytest.mark.parametrize("entry", ["nDCG@10 ", "P@ 5", "nDCG@10 map", " map"])
def test_a_list_entry_holding_a_blank_is_refused_quoting_it_whole(entry):
    """An entry of a list of measures is one name: 'nDCG@10 ' was keyed 'nDCG@10' (a
    KeyError for the caller who asked 'nDCG@10 '), 'P@ 5' refused as "illegal measure
    'P@'" (a fragment), 'nDCG@10 map' computed as two measures."""
    with pytest.raises(UsageError) as error:
        trecbench.evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, [entry])
    assert str(error.value) == (
        f"illegal measure {entry!r}: a blank in a measure's name (each entry of a list of "
        "measures is one name, without blanks around or inside it; several measures are "
        "several entries)"
    )


@pytest.mark.parametrize(
    "name", ["P.5\n", "P.5 ", "\tP.5", "nDCG@10 ", "P@ 5", "P @5", "P(rel=1) @5"]
)
def test_parse_measure_refuses_blanks_around_or_in_a_name(name):
    """parse_measure('P.5\\n') and parse_measure('P@ 5') were P.5 (keyed 'P.5', not as
    asked), where a list entry with the blank is refused: one line quoting it as given;
    the name without its blanks still parses, and so do blanks inside parentheses."""
    with pytest.raises(UsageError) as error:
        parse_measure(name)
    assert str(error.value) == (
        f"illegal measure {name!r}: a blank in a measure's name (give it without blanks "
        "around or inside it)"
    )
    assert str(parse_measure("".join(name.split()))) in {"P.5", "ndcg_cut.10", "P(rel=1)@5"}
    assert str(parse_measure("P(rel = 1)@5")) == "P(rel=1)@5"


def test_a_minus_m_value_s_trailing_newline_separates_names_as_trec_eval_reads_it(capsys):
    """-m 'P.5\\n' is a value of names separated by blanks (docs/measures.md): P_5, as
    trec_eval 9.0.8 prints it (0.2667 on its test data, /work/tools/te908)."""
    from trecbench.cli.shared_options import measure_values

    assert measure_values(None, None, ("P.5\n",)) == ("P.5",)


def test_a_string_alone_and_the_command_line_keep_names_separated_by_spaces(capsys):
    """As docs/measures.md says: a string alone, as -m's value, holds names separated by
    spaces; a blank inside an expression's parentheses is no separator. By hand: one
    relevant document, retrieved first: P@5 = 1/5, AP = 1."""
    from trecbench.cli.shared_options import measure_values

    alone = trecbench.evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, "P@5 map")
    assert alone.to_dict() == {"q": {"P@5": 0.2, "map": 1.0}}
    listed = trecbench.evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, ["P(rel=1, cutoff=5)"])
    assert listed.to_dict()["q"] == {"P(rel=1, cutoff=5)": 0.2}
    assert measure_values(None, None, ("P@5 map", "nDCG(dcg='exp-log2')@10")) == (
        "P@5", "map", "nDCG(dcg='exp-log2')@10"
    )  # fmt: skip


def test_a_list_of_cutoffs_is_advised_in_the_words_of_what_was_given_the_names(tmp_path, capsys):
    # evaluate(..., ["P@5,10"]) was told to "give each, -m 'P@5 P@10'": the library has no
    # -m, and one entry holding both is refused; `measures NAMES` has no -m either
    from trecbench.cli import run

    said = "illegal measure 'P@5,10': this name takes one cutoff, not a list: give each"
    with pytest.raises(UsageError) as refused:
        trecbench.evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, ["P@5,10"])
    assert str(refused.value) == said + ", measures=['P@5', 'P@10']"
    assert trecbench.evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, ["P@5", "P@10"])
    (tmp_path / "q").write_text("q 0 a 1\n")
    (tmp_path / "r").write_text("q Q0 a 1 1 t\n")
    for args, advice in [
        (["score", "-m", "P@5,10", str(tmp_path / "q"), str(tmp_path / "r")], ", -m 'P@5 P@10'"),
        (["measures", "P@5,10"], ": P@5 P@10"),
    ]:
        assert run(args) == 1
        assert capsys.readouterr().err == f"trecbench: {said}{advice}\n"


def test_a_list_of_cutoffs_advice_pastes_into_a_shell():
    # names with their own single quotes were advised inside single quotes:
    # -m 'nDCG(dcg='exp-log2')@5 ...', which a shell reads as other words
    import shlex

    text = "nDCG(dcg='exp-log2')@5,10"
    with pytest.raises(UsageError) as error:
        parse_measure(text)
    advice = error.value.worded({"measures": "-m"}).split("give each, -m ", 1)[1]
    assert shlex.split(advice) == ["nDCG(dcg='exp-log2')@5 nDCG(dcg='exp-log2')@10"]
    assert [m.options for m in parse_measures(shlex.split(advice))] == [
        m.options for m in parse_measures([text[: text.index(",")]])
    ] * 2


@pytest.mark.parametrize(
    "given, advised",
    [("nDCG@10(rel=2)", "nDCG(rel=2)@10"), ("P@5(rel=2)", "P(rel=2)@5")],
)
def test_parameters_after_the_cutoff_are_advised_before_it(given, advised):
    """ir_measures writes P(rel=2)@5; P@5(rel=2) said only that the cutoff must be a
    positive integer."""
    assert _refusal(given) == (
        f"illegal measure '{given}': the cutoff must be a positive integer; parameters go "
        f"before it: {advised}"
    )
    parse_measure(advised.replace("nDCG", "P"))  # the advice parses (nDCG's has no rel)


def test_ranx_hits_is_said_to_be_another_measure_than_hit():
    # hits@3 (ranx: the relevant documents in the top 3) was told "did you mean hit@3?",
    # which is Success@3, 0 or 1: a different number
    import ranx

    qrels = ranx.Qrels({"q": {"a": 1, "b": 1, "c": 1}})
    run = ranx.Run({"q": {"a": 3.0, "x": 2.0, "b": 1.0}})
    assert ranx.evaluate(qrels, run, "hits@3") == 2  # not 0 or 1: P@3 times 3
    message = _refusal("hits@3")
    assert "did you mean" not in message
    assert "ranx's hits@k, the relevant documents in the top k, is P@k times k here" in message
    assert "did you mean hit@3" in _refusal("hitt@3")  # a misspelt hit is still suggested


def test_parse_measures_refuses_a_repeats_that_is_no_flag():
    # repeats="no" was truthy: every repeated name was kept
    with pytest.raises(UsageError, match=r"^repeats must be True or False, not 'no'$"):
        parse_measures(["P@5", "P@5"], repeats="no")
    assert len(parse_measures(["P@5", "P@5"], repeats=False)) == 1


@pytest.mark.parametrize(
    ("name", "shown"),
    [
        ("P(rel=1\n)@5", "P(rel=1%0A)@5"),  # ir_measures' syntax read the line feed as a blank
        ("nDCG(gains={0:0,\t1:1})@10", "nDCG(gains={0:0,%091:1})@10"),
        ("P.5\x1b", "P.5%1B"),  # trec_eval ignores what follows its number: kept in the name
        ("P(rel=1\u2028)@5", "P(rel=1%E2%80%A8)@5"),
        ("P(rel=1" + "\udcff" + ")@5", "P(rel=1%FF)@5"),  # a byte of -m not UTF-8
    ],
)
def test_a_name_holding_a_character_that_does_not_print_is_refused_escaped(name, shown):
    """parse_measure('P(rel=1\\n)@5') was P(rel=1)@5 asked as 'P(rel=1\\n)@5', a name every
    message naming the measures joined as it is (a line feed split them): refused at the
    parser, in one line naming it escaped, as -m and a list entry alike; blanks inside the
    parentheses are still a name's."""
    said = (
        f"illegal measure '{shown}': a character that does not print (shown as %XX) in a "
        "measure's name; give the name without it"
    )
    with pytest.raises(UsageError) as error:
        parse_measure(name)
    assert str(error.value) == said
    with pytest.raises(UsageError) as error:
        trecbench.evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, [name])
    assert str(error.value) == said
    assert str(parse_measure("nDCG(gains={0:0, 1:1})@10")) == "nDCG(gains={0:0,1:1})@10"
