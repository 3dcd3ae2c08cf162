"""score shows a measure asked by two spellings under both (issue 27 item 1): the table,
Markdown, CSV and JSON carry a column, row or key per spelling, one value each, with the
canonical name beside it in CSV and JSON; trec_eval's text prints the measure once, as
trec_eval 9.0.8 prints ``-m ndcg_cut.10 -m ndcg_cut.10`` (one ``ndcg_cut_10`` line)."""

from __future__ import annotations

import csv
import io
import json
import re

import pytest
from conftest import ROOT

from trecbench.cli import run as cli_run

QRELS = str(ROOT / "qrels" / "hpo-demo.qrels")
RUN = str(ROOT / "runs" / "tfidf-char.run")
ASKED = ["-m", "ndcg_cut.10", "-m", "P.5", "-m", "nDCG@10"]


@pytest.fixture(scope="module")
def reference():
    """pytrec_eval's (trec_eval's code) per-topic ndcg_cut_10 and P_5 of the run."""
    import pytrec_eval

    def table(path, column, kind):
        out: dict = {}
        for line in open(path):
            fields = line.split()
            out.setdefault(fields[0], {})[fields[2]] = kind(fields[column])
        return out

    qrels, run = table(QRELS, 3, int), table(RUN, 4, float)
    return pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut_10", "P_5"}).evaluate(run)


def _mean(reference, label):
    return sum(v[label] for v in reference.values()) / len(reference)


def _score(capsys, *args):
    assert cli_run(["score", *args, QRELS, RUN]) == 0
    return capsys.readouterr().out


def test_table_and_markdown_have_a_column_per_spelling(capsys, reference):
    ndcg, p5 = f"{_mean(reference, 'ndcg_cut_10'):.4f}", f"{_mean(reference, 'P_5'):.4f}"
    table = _score(capsys, *ASKED, "--format", "table").splitlines()
    assert table[0].split() == ["run", "topics", "P.5", "ndcg_cut.10", "nDCG@10"]
    assert table[1].split() == ["tfidf-char", "56", p5, ndcg, ndcg]
    markdown = _score(capsys, *ASKED, "--format", "markdown").splitlines()
    assert markdown[0] == "| run | topics | P.5 | ndcg_cut.10 | nDCG@10 |"
    assert markdown[2] == f"| tfidf-char | 56 | {p5} | {ndcg} | {ndcg} |"
    # display names: one name, one column
    display = _score(capsys, *ASKED, "--format", "table", "--labels", "display")
    assert display.splitlines()[0].split() == ["run", "topics", "P@5", "nDCG@10"]


def test_csv_rows_pair_each_spelling_with_its_canonical_name(capsys, reference):
    rows = list(csv.DictReader(io.StringIO(_score(capsys, "-q", *ASKED, "--format", "csv"))))
    assert list(rows[0]) == ["run", "qid", "measure", "canonical", "value"]
    summary = [(r["measure"], r["canonical"]) for r in rows if r["qid"] == "all"]
    assert summary == [("P.5", "P@5"), ("ndcg_cut.10", "nDCG@10"), ("nDCG@10", "nDCG@10")]
    for spelling in ("ndcg_cut.10", "nDCG@10"):
        topics = {r["qid"]: float(r["value"]) for r in rows if r["measure"] == spelling}
        assert topics.pop("all") == pytest.approx(_mean(reference, "ndcg_cut_10"), abs=1e-12)
        expected = {qid: values["ndcg_cut_10"] for qid, values in reference.items()}
        assert topics == pytest.approx(expected, abs=1e-12)
    assert len(rows) == 3 * (len(reference) + 1)
    trec = list(
        csv.DictReader(io.StringIO(_score(capsys, *ASKED, "--format", "csv", "--labels", "trec")))
    )
    assert [(r["measure"], r["canonical"]) for r in trec] == [
        ("P_5", "P@5"),
        ("ndcg_cut_10", "nDCG@10"),
    ]


def test_json_keys_each_spelling_and_names_its_canonical(capsys, reference):
    document = json.loads(_score(capsys, *ASKED, "--format", "json"))
    assert document["canonical"] == {"P.5": "P@5", "ndcg_cut.10": "nDCG@10", "nDCG@10": "nDCG@10"}
    run = document["runs"][0]
    mean = _mean(reference, "ndcg_cut_10")
    assert run["aggregates"]["ndcg_cut.10"] == run["aggregates"]["nDCG@10"]
    assert run["aggregates"]["nDCG@10"] == pytest.approx(mean, abs=1e-12)
    assert set(run["per_query"]) == set(reference)
    for qid, values in run["per_query"].items():
        assert list(values) == ["P.5", "ndcg_cut.10", "nDCG@10"]
        assert values["nDCG@10"] == values["ndcg_cut.10"]
        assert values["nDCG@10"] == pytest.approx(reference[qid]["ndcg_cut_10"], abs=1e-12)
    # an entry per spelling, as the values are keyed (nDCG@10 had none): one value each
    entries = [(m["requested"], m["label"]) for m in document["measures"]]
    assert entries == [("P.5", "P_5"), ("ndcg_cut.10", "ndcg_cut_10"), ("nDCG@10", "ndcg_cut_10")]


def test_trec_eval_text_prints_each_measure_once(capsys):
    once = _score(capsys, "-q", "-m", "ndcg_cut.10", "-m", "P.5")
    assert _score(capsys, "-q", *ASKED) == once
    assert _score(capsys, "-q", *ASKED, "--labels", "asked") == once.replace(
        "ndcg_cut_10 ", "ndcg_cut.10 "
    ).replace("P_5 ", "P.5 ")


def test_a_command_showing_each_measure_once_refuses_two_spellings():
    from trecbench.errors import UsageError
    from trecbench.measures.spellings import refuse_two_spellings

    with pytest.raises(UsageError) as refused:
        refuse_two_spellings(["ndcg_cut.10", "P.5", "nDCG@10"], "compare")
    assert str(refused.value) == (
        "ndcg_cut.10 and nDCG@10 are one measure (nDCG@10): compare shows and tests each "
        "measure once, by that name; ask it by one spelling"
    )
    # one spelling twice, or one measure of several values, is no second spelling
    refuse_two_spellings(["P.5", "P.5", "recall.10,20"], "compare")
    refuse_two_spellings(iter(["P@5", "P@5"]), "compare")  # a generator, read once


@pytest.mark.parametrize(
    ("asked", "shown"),
    [
        (["SetF(beta=0.5)", "set_F.0.50"], "set_F_0.5"),
        (["set_F.1", "SetF"], "set_F_1"),
        (["set_F.1", "set_F_1.0"], "set_F_1"),
        (["utility.1,-1,0,0", "utility_1.0,-1,0,0"], "utility_1,-1,0,0"),
        (["11pt_avg.0.5", "11pt_avg_0.50"], "11pt_avg_0.5"),
        (["ndcg.1=3,2=9", "ndcg_+1=3.0,2=9"], "ndcg_1=3,2=9"),
    ],
)
def test_two_spellings_of_one_parameter_read_alike_are_one_measure(asked, shown):
    """set_F, utility, 11pt_avg and the gain maps are labelled by their parameters as
    written: set_F.0.5 and set_F.0.50 were two measures to compare, tested (and counted
    in Holm's correction) twice (helper-595). One value, read alike, is one measure."""
    from trecbench.errors import UsageError
    from trecbench.measures.spellings import refuse_two_spellings

    with pytest.raises(UsageError, match=re.escape(f"are one measure ({shown})")):
        refuse_two_spellings(asked, "compare")


def test_two_parameters_read_apart_are_two_measures():
    from trecbench.measures.spellings import refuse_two_spellings

    refuse_two_spellings(["set_F.0.5", "set_F_0.6", "ndcg.1=3,2=9", "ndcg_1=3,2=8"], "compare")
    # a grade given twice: the gain it takes hangs on trec_eval's reading, kept apart
    refuse_two_spellings(["ndcg.1=3,1=4", "ndcg_1=4,1=3"], "compare")
    # gains less than 1 apart keep their written order in trec_eval's sorted table, and
    # the ideal ranking walks it: two values (helper-597: 0.8328 and 0.8635 by trec_eval)
    refuse_two_spellings(["ndcg.1=3,2=3.5", "ndcg_2=3.5,1=3", "G.1=3,2=3.5", "G_2=3.5,1=3"], "x")


def test_gain_maps_in_two_orders_score_as_trec_eval_scores_each(tmp_path, capsys):
    from trecbench.cli import run as cli_run

    qrels = tmp_path / "q.qrels"
    qrels.write_text("1 0 d1 1\n1 0 d2 2\n1 0 d3 0\n1 0 d4 1\n2 0 d1 2\n2 0 d2 1\n2 0 d5 2\n")
    run = tmp_path / "r.run"
    lines = ["1 Q0 d1 1 4 r", "1 Q0 d2 2 3 r", "1 Q0 d3 3 2 r", "1 Q0 d4 4 1 r"]
    run.write_text("\n".join([*lines, "2 Q0 d2 1 3 r", "2 Q0 d1 2 2 r", "2 Q0 d9 3 1 r"]) + "\n")
    asked = [
        "-m",
        "ndcg_1=3,2=3.5",
        "-m",
        "ndcg_2=3.5,1=3",
        "-m",
        "G_1=3,2=3.5",
        "-m",
        "G_2=3.5,1=3",
    ]
    assert cli_run(["score", *asked, str(qrels), str(run)]) == 0
    # trec_eval 9.0.8 -m ndcg.1=3,2=3.5 (and the others, one call each) prints these
    assert sorted(capsys.readouterr().out.splitlines()) == [
        "G_1=3,2=3.5           \tall\t0.6491",
        "G_2=3.5,1=3           \tall\t0.8974",
        "ndcg_1=3,2=3.5        \tall\t0.8328",
        "ndcg_2=3.5,1=3        \tall\t0.8635",
    ]


def test_a_first_parameters_warning_of_the_same_value_says_so():
    """-m set_F.0.5 -m set_F.0.50 computes set_F_0.5 alone, as trec_eval does; the
    warning said 'for both, -m set_F_0.50', which gives that one value again."""
    from trecbench.errors import FirstParametersWarning
    from trecbench.measures.asked import parse_measures
    from trecbench.measures.first_parameters import first_parameters

    with pytest.warns(FirstParametersWarning) as said:
        first_parameters(parse_measures(["set_F.0.5", "set_F.0.50"], repeats=True))
    assert str(said[0].message).endswith("(set_F.0.5), which give the same value")


def test_the_canonical_name_of_one_value_is_one_for_every_spelling(capsys):
    import trecbench
    from trecbench.cli import run as cli_run

    result = trecbench.evaluate(
        ROOT / "qrels/hpo-demo.qrels",
        ROOT / "runs/tfidf-char.run",
        ["set_F.1", "set_F_1.0", "SetF"],
    )
    rows = result.to_long()
    assert set(rows["canonical"]) == {"set_F_1"}
    assert list(dict.fromkeys(rows["measure"])) == ["set_F.1", "set_F_1.0", "SetF"]
    # utility bare is trec_eval's 1,-1,0,0 (m_utility.c): one value (helper-597)
    asked = ["-m", "utility", "-m", "utility_1,-1,0,0", "--format", "csv"]
    assert cli_run(["score", *asked, QRELS, RUN]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [(r["measure"], r["canonical"]) for r in rows] == [
        ("utility", "utility"),
        ("utility_1,-1,0,0", "utility"),
    ]


@pytest.mark.parametrize(
    ("asked", "version"),
    [
        (["ndcg_cut.10", "nDCG@10"], "9.0.8"),
        (["P", "P@10"], "9.0.8"),
        (["iprec_at_recall", "IPrec@0.5"], "9.0.8"),
        (["success.10", "HitRate@10"], "9.0.8"),
        (["recall.10,20", "R@10"], "9.0.8"),
        (["P@3", "nDCG@3", "P_3"], "9.0.8"),
        (["P.2,3", "P@3"], "9.0.8"),
        (["map", "MAP", "AP", "mean_ap"], "9.0.8"),
        (["runid", "num_q", "P.5", "num_rel_ret", "NumRelRet"], "9.0.8"),
        (["IPrec(rel=2)@0.5", "IPrec@0.5", "iprec_at_recall"], "9.0.8"),
        (["recip_rank", "MRR", "RR", "MRR@10"], "9.0.8"),
        (["relstring.10", "Rprec_mult", "Rprec_mult.0.2", "11pt_avg", "set_F.0.5"], "9.0.8"),
        (["Recall_all@10", "Recall@10", "Judged@10", "RBP(p=0.8)", "RBP", "Q"], "9.0.8"),
        (["P(rel=2)@5", "P@5", "P.5", "map_cut.10", "MAP@10", "AP@10"], "9.0.8"),
        (["all_trec"], "9.0.8"),
        (["all_trec"], "10.0"),
        (["rbp", "unj.10", "dcg", "yaap", "iprec_at_recall", "IPrec@0.5"], "10.0"),
    ],
)
def test_the_names_told_before_reading_are_the_evaluation_s(asked, version):
    # compare, benchmark and leaderboard refuse two spellings from the names alone
    # (shown_values), before any run is read: they must be the names the engines give
    import warnings

    import trecbench
    from trecbench.measures.spellings import shown_values

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        evaluation = trecbench.evaluate(QRELS, RUN, asked, compat=version)
    columns = [(c.label, c.display, c.measure, c.asked, c.also) for c in evaluation.columns]
    told = [(v.label, v.display, v.measure, v.asked, v.also) for v in shown_values(asked, version)]
    assert told == columns


@pytest.mark.parametrize("output_format", ["table", "markdown", "json"])
def test_compare_refuses_two_spellings_of_one_measure_in_one_line(capsys, output_format):
    args = ["compare", "-m", "ndcg_cut.10", "-m", "nDCG@10", "--format", output_format]
    assert cli_run([*args, QRELS, RUN, str(ROOT / "runs" / "tfidf-word.run")]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (
        "trecbench: ndcg_cut.10 and nDCG@10 are one measure (nDCG@10): compare shows and "
        "tests each measure once, by that name; ask it by one spelling\n"
    )


def test_a_10_0_family_with_parameters_under_9_0_8_names_the_version(capsys):
    # 'unj.10' was "not a measure name (did you mean unj?)": the name typed
    from conftest import ROOT

    from trecbench.cli import run

    args = [str(ROOT / "qrels" / "hpo-demo.qrels"), str(ROOT / "runs" / "tfidf-char.run")]
    # its label too: unj_10 (and dcg_1=2) were computed under 9.0.8, unj.10 refused
    for measure in ("unj.10", "rbp_resid.p=0.8", "unj_10", "dcg_1=2", "ideal_dcg_1=3"):
        assert run(["score", "-m", measure, *args]) == 1
        assert f"'{measure}': trec_eval 10.0's" in capsys.readouterr().err
        assert run(["score", "--compat", "10.0", "-m", measure, *args]) == 0
        assert capsys.readouterr().out.startswith(measure.replace(".", "_", 1))


def test_each_spelling_of_a_measure_is_shown_where_it_was_asked(capsys, tmp_path):
    """-m "P@3 nDCG@3 P_3" printed P@3, P_3, nDCG@3 (a measure's second spelling beside
    its first) where a mix of spellings prints every name where it was asked
    (docs/measures.md); the JSON's measures had no entry for P_3. By hand on this topic:
    P@3 = 2/3 (d1, d3 of dX, d1, d3); trec_eval 9.0.8 prints ndcg_cut_3 0.6934."""
    import trecbench

    (tmp_path / "q").write_text("1 0 d1 1\n1 0 d2 0\n1 0 d3 1\n")
    (tmp_path / "r").write_text("1 Q0 dX 1 3 r\n1 Q0 d1 2 2 r\n1 Q0 d3 3 1 r\n")
    files = [str(tmp_path / "q"), str(tmp_path / "r")]
    asked = ["P@3", "nDCG@3", "P_3"]
    values = [0.6667, 0.6934, 0.6667]

    def score(output_format):
        assert cli_run(["score", "-m", " ".join(asked), "--format", output_format, *files]) == 0
        return capsys.readouterr().out

    rows = list(csv.DictReader(io.StringIO(score("csv"))))
    assert [(r["measure"], round(float(r["value"]), 4)) for r in rows] == list(
        zip(asked, values, strict=True)
    )
    table = score("table").splitlines()
    assert table[0].split()[2:] == asked and table[1].split()[2:] == [f"{v:.4f}" for v in values]
    document = json.loads(score("json"))
    assert [m["requested"] for m in document["measures"]] == asked
    assert list(document["canonical"]) == asked
    assert list(document["runs"][0]["aggregates"]) == asked
    assert list(document["runs"][0]["per_query"]["1"]) == asked
    evaluation = trecbench.evaluate(*files, asked)
    assert list(evaluation.to_frame().columns) == asked
    assert list(evaluation.to_long()["measure"]) == asked
    assert list(evaluation.to_long(per_query=True)["measure"]) == asked
    # trec_eval's spellings alone print in its order, a measure's spellings together
    trec = trecbench.evaluate(*files, ["P.3", "ndcg_cut.3", "P_3"]).to_frame()
    assert list(trec.columns) == ["P.3", "P_3", "ndcg_cut.3"]


def test_a_lists_values_keep_their_order_when_another_spelling_holds_one(capsys, tmp_path):
    """-m "P@3 map P.2,3" printed P@3, map, P_3, P_2: P_3, one value with P@3 asked
    before, took P@3's place among the list's values. By hand: P@2 = 1/2, P@3 = 2/3,
    AP = (1/2 + 2/3) / 2."""
    (tmp_path / "q").write_text("1 0 d1 1\n1 0 d2 0\n1 0 d3 1\n")
    (tmp_path / "r").write_text("1 Q0 dX 1 3 r\n1 Q0 d1 2 2 r\n1 Q0 d3 3 1 r\n")
    files = [str(tmp_path / "q"), str(tmp_path / "r")]
    assert cli_run(["score", "-m", "P@3 map P.2,3", "--format", "csv", *files]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    shown = [(r["measure"], round(float(r["value"]), 4)) for r in rows]
    assert shown == [("P@3", 0.6667), ("map", 0.5833), ("P_2", 0.5), ("P_3", 0.6667)]


def test_to_dict_keys_each_topics_measures_in_the_order_asked_as_to_frame():
    """to_dict() put a measure's second spelling beside its first ('P.5', 'map', 'AP',
    'nDCG@10') where to_frame() and to_long() keep the order asked. By hand: one relevant
    document, retrieved first: P@5 = 1/5, AP = 1, nDCG@10 = 1."""
    import trecbench

    asked = ["P.5", "map", "nDCG@10", "AP"]
    evaluation = trecbench.evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, asked)
    assert list(evaluation.to_frame().columns) == asked
    assert list(evaluation.to_long(per_query=True)["measure"]) == asked
    assert evaluation.to_dict() == {"q": dict(zip(asked, [0.2, 1.0, 1.0, 1.0], strict=True))}
    assert list(evaluation.to_dict()["q"]) == asked


@pytest.mark.parametrize(
    "asked, keys",
    [
        (["set_F.0.5", "set_F", "SetF"], ["set_F.0.5", "SetF"]),
        (["SetF", "set_F.0.5", "set_F"], ["SetF", "set_F.0.5"]),
        (["ndcg.1=3,2=9", "ndcg", "nDCG(dcg='log2')"], ["ndcg.1=3,2=9", "nDCG(dcg='log2')"]),
        (["set_F", "SetF"], ["set_F", "SetF"]),  # no list given: set_F is its default, SetF's
    ],
)
def test_a_bare_name_stands_for_the_lists_given_whatever_else_is_asked(asked, keys):
    """A bare trec_eval name stands for its family's lists given (set_F beside set_F.0.5:
    no value of its own, as trec_eval prints set_F_0.5 alone); asking SetF beside them too
    keyed set_F with SetF's value, beta 1 (reviewer 695)."""
    import trecbench

    values = trecbench.evaluate(QRELS, RUN, asked).to_frame()
    assert list(values.columns) == keys
    if "SetF" in keys and "set_F.0.5" in keys:
        assert values["SetF"].tolist() != values["set_F.0.5"].tolist()
