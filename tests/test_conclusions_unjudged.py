"""Unjudged sensitivity: high equals trec_eval's own code (pytrec_eval) on the qrels with the
run's unjudged documents added at the highest grade, built here in plain Python."""

from __future__ import annotations

import json
import random

import pytest
from conftest import ROOT

from trecbench.conclusions.unjudged import unjudged_bounds
from trecbench.evaluation.bounds import column_depth
from trecbench.evaluation.results import Column
from trecbench.measures import parse_measure

QRELS = ROOT / "qrels" / "hpo-demo.qrels"
RUN = ROOT / "runs" / "tfidf-char.run"
# trecbench's name -> (pytrec_eval's measure, the depth it looks at)
COLUMNS = {
    "nDCG@10": ("ndcg_cut_10", 10),
    "P@5": ("P_5", 5),
    "MAP": ("map", None),
    "Recall@100": ("recall_100", 100),
    "recip_rank": ("recip_rank", None),
}
SPELLED = ["nDCG@10", "P.5", "map", "Recall@100", "recip_rank"]


def _trec(path, score_column):
    table = {}
    for line in path.read_text().splitlines():
        fields = line.split()
        table.setdefault(fields[0], {})[fields[2]] = fields[score_column]
    return table


def _ranking(docs: dict[str, float]) -> list[str]:
    """trec_eval's order: score descending (float32), docno descending."""
    import numpy as np

    return [
        d for d, _ in sorted(docs.items(), key=lambda x: (np.float32(x[1]), x[0]), reverse=True)
    ]


def _reference(qrels: dict, run: dict, measure: str, depth):
    import pytrec_eval

    top = max(g for docs in qrels.values() for g in docs.values())
    augmented = {q: dict(docs) for q, docs in qrels.items()}
    for qid, docs in run.items():
        if qid not in qrels:
            continue
        for doc in _ranking(docs)[:depth]:
            augmented[qid].setdefault(doc, top)
    values = pytrec_eval.RelevanceEvaluator(augmented, {measure}).evaluate(run)
    return sum(v[measure] for v in values.values()) / len(values)


def test_high_equals_trec_eval_on_augmented_qrels_and_low_the_value():
    qrels = {q: {d: int(g) for d, g in docs.items()} for q, docs in _trec(QRELS, 3).items()}
    run = {q: {d: float(s) for d, s in docs.items()} for q, docs in _trec(RUN, 4).items()}
    bounds = {b.measure: b for b in unjudged_bounds(str(QRELS), [str(RUN)], SPELLED)}
    assert set(bounds) == set(COLUMNS)
    import pytrec_eval

    for name, (measure, depth) in COLUMNS.items():
        plain = pytrec_eval.RelevanceEvaluator(qrels, {measure}).evaluate(run)
        low = sum(v[measure] for v in plain.values()) / len(plain)
        assert bounds[name].low == pytest.approx(low, abs=1e-9), name
        assert bounds[name].high == pytest.approx(_reference(qrels, run, measure, depth), abs=1e-9)
        assert bounds[name].high >= bounds[name].low


def test_unjudged_share_and_random_runs():
    rng = random.Random(3)
    qrels = {
        f"q{t}": {f"d{i}": rng.randint(0, 2) for i in rng.sample(range(30), 6)} for t in range(6)
    }
    run = {
        f"q{t}": {f"d{i}": float(rng.randint(0, 9)) for i in rng.sample(range(30), 12)}
        for t in range(7)
    }
    bounds = {b.measure: b for b in unjudged_bounds(qrels, {"r": run}, ["P.5", "ndcg_cut.10"])}
    for name, (measure, depth) in {"P@5": ("P_5", 5), "nDCG@10": ("ndcg_cut_10", 10)}.items():
        assert bounds[name].high == pytest.approx(_reference(qrels, run, measure, depth), abs=1e-9)
        looked = [(q, d) for q in qrels if q in run for d in _ranking(run[q])[:depth]]
        unjudged = sum(d not in qrels[q] for q, d in looked)
        assert bounds[name].unjudged == pytest.approx(unjudged / len(looked))


@pytest.mark.parametrize(
    ("asked", "label", "depth"),
    [
        ("ndcg_cut.10", "ndcg_cut_10", 10),
        ("P.5,10", "P_5", 5),
        ("P.5,10", "P_10", 10),
        ("P", "P_30", 30),
        ("recip_rank_cut.10", "recip_rank_cut_10", 10),
        ("map", "map", None),
        ("iprec_at_recall.0.10", "iprec_at_recall_0.10", None),
        ("Rprec_mult.0.20", "Rprec_mult_0.20", None),
        # labelled as asked: the cutoff is the measure's (the label's '_5' was looked for)
        ("R(rel=2)@5", "R(rel=2)@5", 5),
        ("P(rel=2)@5", "P(rel=2)@5", 5),
        ("nDCG(dcg='exp-log2')@5", "nDCG(dcg='exp-log2')@5", 5),
        ("AP(rel=2)", "AP(rel=2)", None),
    ],
)
def test_column_depth(asked, label, depth):
    measure = parse_measure(asked)
    assert column_depth(Column(label, label, measure, "engine")) == depth


def test_a_measure_with_parameters_is_bounded_at_its_cutoff(tmp_path):
    # R(rel=2)@5 counted every retrieved unjudged document as relevant: high 0.5446 where
    # R@5 with -l 2 (the same measure) gave 0.8750, as trec_eval on the augmented qrels
    qrels = tmp_path / "u.qrels"
    qrels.write_text("t1 0 a 1\nt1 0 b 0\nt1 0 z 3\nt2 0 x 2\n")
    docs = {"t1": "a u1 b u2 u3 u4 u5 u6 u7".split(), "t2": "v1 x v2 v3 v4 v5 v6".split()}
    run = tmp_path / "u.run"
    run.write_text(
        "".join(
            f"{q} Q0 {d} {i} {20 - i} r\n" for q, ds in docs.items() for i, d in enumerate(ds, 1)
        )
    )
    labelled = unjudged_bounds(str(qrels), [str(run)], ["R(rel=2)@5", "AP(rel=2)@5"])
    plain = unjudged_bounds(str(qrels), [str(run)], ["R@5", "AP@5"], relevance_level=2)
    high = [b.high for b in labelled]
    assert high == pytest.approx([b.high for b in plain], abs=1e-12)
    assert high == pytest.approx([0.875, 0.7], abs=1e-12)  # trec_eval -l2 -m recall.5 -m map_cut.5
    assert [b.unjudged for b in labelled] == [b.unjudged for b in plain] == [0.7, 0.7]


@pytest.mark.parametrize("complete", [False, True])
def test_num_rel_with_its_own_rel_is_bounded_at_its_grade(tmp_path, complete):
    # by hand: judgments at 3 or above a: 2, b (not in the run): 1, c: 1; at 2 or above
    # a: 3, b: 1, c: 2; above 0 a: 4, b: 2, c: 2. The run's one unjudged document (d9, in
    # a) judged at the top grade, 3, adds 1 to each. -c counts b (num_rel: trec_eval's
    # quirk, every judgment above 0); NumRel(rel=3) under -c had high 9, num_rel's
    qrels = tmp_path / "q"
    qrels.write_text("a 0 d1 1\na 0 d2 2\na 0 d3 3\na 0 d4 3\nb 0 d1 3\nb 0 d2 1\n"
                     "c 0 d1 0\nc 0 d2 3\nc 0 d3 2\n")  # fmt: skip
    run = tmp_path / "r"
    run.write_text("a Q0 d1 1 2 r\na Q0 d9 2 1 r\nc Q0 d2 1 1 r\n")
    names = ["num_rel", "NumRel(rel=3)", "NumRel(rel=2)"]
    bounds = unjudged_bounds(str(qrels), [str(run)], names, complete=complete)
    expected = [(8, 9), (4, 5), (6, 7)] if complete else [(6, 7), (3, 4), (5, 6)]
    assert [(b.low, b.high) for b in bounds] == expected


def test_score_json_with_the_bounds_is_plain_score_json_with_one_key_more(capsys, tmp_path):
    # the bounds' document was written with two blanks of indent and non-ASCII as is,
    # plain --format json with one and non-ASCII escaped; now both are written alike
    from trecbench.cli import run

    named = tmp_path / "système.run"  # a run name beyond ASCII
    named.write_bytes(RUN.read_bytes())
    args = ["score", "-q", "-m", "P.5", "--format", "json", str(QRELS), str(named)]
    assert run(args) == 0
    plain = capsys.readouterr().out
    assert run([*args, "--unjudged-bounds"]) == 0
    bounded = capsys.readouterr().out
    assert '"syst\\u00e8me"' in plain and plain.endswith("\n}\n")
    assert bounded.startswith(plain[: -len("\n}\n")] + ',\n "unjudged_bounds": [\n  {\n   "run"')
    assert json.loads(bounded)["unjudged_bounds"][0]["run"] == "système"


def test_the_bounds_table_keeps_a_run_named_with_a_bar_or_a_comma_in_its_cell():
    # the table, Markdown and CSV are text_tables'; its Markdown and CSV were written out
    # by hand, with neither a | escaped nor a field holding a comma quoted
    import csv

    from trecbench.conclusions.unjudged import UnjudgedBound, render_bounds

    bounds = [UnjudgedBound("a|b,c", "P@5", 0.25, 0.5, 0.125, None)]
    assert render_bounds(bounds, "table").splitlines()[1:] == [
        "run    measure  value (low)  high    unjudged",
        "a|b,c  P@5      0.2500       0.5000  12.5%",
    ]
    assert render_bounds(bounds, "markdown").splitlines() == [
        "| run | measure | value (low) | high | unjudged |",
        "|---|---|---:|---:|---:|",
        "| a%7Cb,c | P@5 | 0.2500 | 0.5000 | 12.5% |",  # as score escapes a name
    ]
    # in CSV, rows of score's tidy table at full precision (a second header and rounded
    # strings made the CSV two tables), the measure as asked
    records = list(csv.reader(render_bounds(bounds, "csv", {"P@5": ["P.5"]}).splitlines()))
    assert records == [
        ["a|b,c", "all", "P.5:unjudged_high", "P@5:unjudged_high", "0.5"],
        ["a|b,c", "all", "P.5:unjudged_share", "P@5:unjudged_share", "0.125"],
    ]


def test_a_flip_is_possible_when_the_ranges_overlap():
    from trecbench.conclusions.unjudged import UnjudgedBound

    a = UnjudgedBound("a", "m", 0.30, 0.40, 0.1, None)
    assert a.flips(UnjudgedBound("b", "m", 0.35, 0.50, 0.1, None))
    assert a.flips(UnjudgedBound("b", "m", 0.41, 0.50, 0.1, None)) is False
    # ranges that do not bound a difference say nothing of it (n/a), apart or not
    assert a.flips(UnjudgedBound("b", "m", 0.41, 0.50, 0.1, "a judgment moves both")) is None


@pytest.mark.parametrize(
    ("mine", "theirs", "flips"),
    [
        ((0.5, 0.5), (0.5, 0.5), False),  # equal whatever the judgments: no flip
        ((0.5, 0.5), (0.3, 0.5), False),  # ahead; the other reaches a tie at best
        ((0.3, 0.5), (0.5, 0.5), False),  # behind; reaches a tie at best
        ((0.5, 0.5), (0.3, 0.6), True),  # ahead; the other can pass
        ((0.5, 0.5), (0.5, 0.7), True),  # a tie the other can turn into a lead
        ((0.5, 0.6), (0.5, 0.5), True),  # a tie this run can turn into a lead
        ((0.1 + 0.2, 0.1 + 0.2), (0.1, 0.3), False),  # 0.30000000000000004: a tie on paper
    ],
)
def test_ranges_that_touch_or_stay_equal_flip_no_sign(mine, theirs, flips):
    from trecbench.conclusions.unjudged import UnjudgedBound

    a = UnjudgedBound("a", "m", *mine, 0.1, None)
    b = UnjudgedBound("b", "m", *theirs, 0.1, None)
    assert a.flips(b) is flips and b.flips(a) is flips


def test_score_prints_the_librarys_bounds_in_table_and_json(capsys):
    from trecbench.cli import run

    args = ["score", "-m", "nDCG@10", "-m", "P.5", "--unjudged-bounds", str(QRELS), str(RUN)]
    assert run([*args, "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)["unjudged_bounds"]
    expected = unjudged_bounds(str(QRELS), {RUN.stem: str(RUN)}, ["nDCG@10", "P.5"])
    assert rows == [bound.to_json() for bound in expected]
    assert set(rows[0]) == {
        "run",
        "measure",
        "value",
        "low",
        "low_undefined",
        "high",
        "high_undefined",
        "unjudged",
    }
    assert run([*args, "--format", "table"]) == 0
    table = capsys.readouterr().out
    for bound in expected:
        assert f"{bound.high:.4f}" in table and f"{bound.unjudged:.1%}" in table


def test_compare_names_the_differences_whose_sign_could_flip(tmp_path, capsys):
    from trecbench.cli import run
    from trecbench.report import validate_against_schema

    word = ROOT / "runs" / "tfidf-word.run"
    out = tmp_path / "out"
    args = ["compare", str(QRELS), str(word), str(RUN), "-m", "P@5", "--unjudged-bounds"]
    assert run([*args, "-o", str(out)]) == 0
    text = capsys.readouterr().out
    # both runs leave most of their top 5 unjudged: either could end above the other
    assert (
        "differences whose sign could flip within the ranges: tfidf-char vs tfidf-word, P@5" in text
    )
    report = json.loads((out / "BenchmarkReport.json").read_text())
    validate_against_schema(report, "benchmark_report")
    rows = {row["run"]: row for row in report["unjudged_bounds"]["rows"]}
    expected = unjudged_bounds(str(QRELS), {"tfidf-char": str(RUN)}, ["P@5"])[0]
    assert rows["tfidf-char"]["high"] == pytest.approx(expected.high, abs=1e-12)
    assert rows["tfidf-char"]["could_flip"] is True and rows["tfidf-word"]["could_flip"] is None


def test_a_negative_grade_is_unjudged_for_the_bounds_as_for_trec_eval(tmp_path):
    # trec_eval's form_res_rels: a negative grade is "in the pool, unjudged" (-1 as
    # RELVALUE_UNJUDGED); the high end judged such documents non-relevant (P@1 high 0.0)
    import pytrec_eval

    qrels = {q: {d: int(g) for d, g in docs.items()} for q, docs in _trec(QRELS, 3).items()}
    run = {q: {d: float(s) for d, s in docs.items()} for q, docs in _trec(RUN, 4).items()}
    for qid, docs in list(run.items())[::2]:  # the top document of every other topic: -1
        if qid in qrels:
            qrels[qid][_ranking(docs)[0]] = -1
    path = tmp_path / "negative.qrels"
    path.write_text(
        "".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items())
    )
    bounds = {b.measure: b for b in unjudged_bounds(str(path), [str(RUN)], SPELLED)}
    top = max(g for docs in qrels.values() for g in docs.values())
    for name, (measure, depth) in COLUMNS.items():
        augmented = {q: dict(docs) for q, docs in qrels.items()}
        for qid, docs in run.items():
            for doc in _ranking(docs)[:depth] if qid in qrels else ():
                if augmented[qid].get(doc, -1) < 0:  # not judged, or at a negative grade
                    augmented[qid][doc] = top
        values = pytrec_eval.RelevanceEvaluator(augmented, {measure}).evaluate(run)
        expected = sum(v[measure] for v in values.values()) / len(values)
        assert bounds[name].high == pytest.approx(expected, abs=1e-9), name
    assert bounds["P@5"].high > bounds["P@5"].low


def test_compare_of_runs_equal_whatever_the_judgments_names_no_flip(tmp_path, capsys):
    from trecbench.cli import run

    # nothing unjudged, the same rankings: 0.5000 to 0.5000 both, difference exactly 0
    topics = ("t1", "t2", "t3", "t4")
    (tmp_path / "q.qrels").write_text("".join(f"{t} 0 R 1\n{t} 0 N 0\n" for t in topics))
    for name in ("a", "c"):
        text = "".join(
            f"{t} Q0 {first} 1 2 {name}\n{t} Q0 {second} 2 1 {name}\n"
            for t, (first, second) in zip(topics, ["RN", "NR", "RN", "NR"], strict=True)
        )
        (tmp_path / f"{name}.run").write_text(text)
    args = ["compare", *(str(tmp_path / f) for f in ("q.qrels", "a.run", "c.run"))]
    args += ["-m", "P@1", "--unjudged-bounds"]
    assert run(args) == 0
    assert "differences whose sign could flip within the ranges: none" in capsys.readouterr().out
    assert run([*args, "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)["unjudged_bounds"]["rows"]
    assert [row["could_flip"] for row in rows] == [None, False]


def test_a_topic_the_qrels_do_not_judge_is_refused_not_dropped(tmp_path):
    from trecbench.errors import UsageError

    (tmp_path / "q.qrels").write_text("t1 0 d1 1\nt1 0 d9 -1\nt2 0 e2 1\n")
    (tmp_path / "r.run").write_text("t1 Q0 d5 1 10 A\nt1 Q0 d1 2 9 A\nt1 Q0 d9 3 8 A\n")
    qrels, runs = str(tmp_path / "q.qrels"), [str(tmp_path / "r.run")]
    # by hand over t1 and t2 (no results: 0): t1's top 3 has d1 relevant, d5 and d9
    # unjudged; low (1/3 + 0) / 2, high (3/3 + 0) / 2
    (bound,) = unjudged_bounds(qrels, runs, ["P@3"], topics=["t1", "t2"])
    assert (bound.low, bound.high) == (pytest.approx(1 / 6), pytest.approx(0.5))
    with pytest.raises(UsageError, match=r"^topics: the qrels do not judge topic 'zz'$"):
        unjudged_bounds(qrels, runs, ["P@3"], topics=["t2", "zz"])
    # a string is no list of topics: "t1" bounded topics 't' and '1' (refused as unjudged
    # only by luck: qrels judging topics 1 and 2 had topics="12" give their two bounds)
    for given, kind in (("t1", "text"), (b"t1", "bytes"), (5, "an int")):
        with pytest.raises(UsageError, match=f"^topics=.*: give a list of topic ids, not {kind}$"):
            unjudged_bounds(qrels, runs, ["P@3"], topics=given)
    (bound,) = unjudged_bounds(qrels, runs, ["P@3"], topics={"t1", "t2"})  # no order needed
    assert (bound.low, bound.high) == (pytest.approx(1 / 6), pytest.approx(0.5))


def test_the_unjudged_share_reads_0_or_100_percent_only_when_it_is(tmp_path, capsys):
    from trecbench.cli import run
    from trecbench.plurals import share_percent

    assert [share_percent(s) for s in (0.0, 1 / 2001, 1 / 3, 2000 / 2001, 1.0)] == [
        "0.0%", "0.05%", "33.3%", "99.95%", "100.0%"
    ]  # fmt: skip
    # 2,000 judged documents and 1 unjudged at rank 1: 1 of 2,001 (0.04998%), not 0.0%
    (tmp_path / "q.qrels").write_text("".join(f"t1 0 d{i} {int(i == 0)}\n" for i in range(2000)))
    (tmp_path / "r.run").write_text(
        "t1 Q0 u 1 3000 A\n" + "".join(f"t1 Q0 d{i} {i + 2} {2000 - i} A\n" for i in range(2000))
    )
    argv = ["score", "-m", "recip_rank", "-M", "3000", "--unjudged-bounds"]
    assert run([*argv, str(tmp_path / "q.qrels"), str(tmp_path / "r.run")]) == 0
    # by hand: d0 (relevant) at rank 2, 1/2; u relevant at rank 1, 1
    assert "recip_rank  0.5000       1.0000  0.05%" in capsys.readouterr().out


def test_high_is_na_where_the_top_grade_is_below_the_relevance_level(tmp_path, capsys):
    import json

    from trecbench.cli import run

    # t1 ranks d5 (no line), d1 (1), d3 (2); t2 e1 (-1), e7 (no line): top 2, 3 of 4 unjudged
    (tmp_path / "q.qrels").write_text("t1 0 d1 1\nt1 0 d2 0\nt1 0 d3 2\nt2 0 e1 -1\nt2 0 e2 -1\n")
    (tmp_path / "r.run").write_text(
        "t1 Q0 d5 1 10 A\nt1 Q0 d1 2 9 A\nt1 Q0 d3 3 8 A\nt2 Q0 e1 1 10 A\nt2 Q0 e7 2 9 A\n"
    )
    qrels, runs = str(tmp_path / "q.qrels"), [str(tmp_path / "r.run")]
    why = "the qrels' top grade 2 is below the relevance level 3: no unjudged document"
    # P@2 by hand: low (1/2 + 0) / 2; high, d5, e1, e7 at grade 2: (2/2 + 2/2) / 2
    level3, plain = unjudged_bounds(qrels, runs, ["P(rel=3)@2", "P@2"])
    assert (plain.low, plain.high, plain.high_undefined) == (0.25, 1.0, None)
    assert level3.low == level3.high == 0.0 and level3.high_undefined.startswith(why)
    (bound,) = unjudged_bounds(qrels, runs, ["P@2"], relevance_level=3)
    assert bound.unjudged == 0.75 and bound.high_undefined.startswith(why)
    assert run(["score", "-l", "3", "-m", "P.2", "--unjudged-bounds", qrels, *runs]) == 0
    out = capsys.readouterr().out.splitlines()
    assert "P_2      0.0000       n/a   75.0%" in out[-2]  # named as the scores (trec)
    assert out[-1].startswith(f"high n/a: {why}") and out[-1].endswith(" — r, P_2")
    argv = ["score", "-l", "3", "-m", "P.2", "--unjudged-bounds", "--format", "json"]
    assert run([*argv, qrels, *runs]) == 0
    (row,) = json.loads(capsys.readouterr().out)["unjudged_bounds"]
    assert row["high"] is None and row["high_undefined"].startswith(why)
    # nDCG's gains ignore -l: d5, e1, e7 at grade 2 are worth their gain, high defined;
    # 0.9033 is trec_eval 9.0.8's -l 3 -m ndcg_cut.2 on these qrels with d5, e1, e7 at 2
    (ndcg,) = unjudged_bounds(qrels, runs, ["nDCG@2"], relevance_level=3)
    assert (round(ndcg.high, 4), ndcg.high_undefined) == (0.9033, None)
    # qrels of no grade above 0: nothing can be relevant at the default level 1
    (tmp_path / "z.qrels").write_text("t1 0 d1 0\nt2 0 e1 0\n")
    (bound,) = unjudged_bounds(str(tmp_path / "z.qrels"), runs, ["P@2"])
    assert bound.high_undefined.startswith("the qrels' top grade 0 is below the relevance level 1")
    # num_nonrel_judged_ret counts d5, e1, e7 judged at grade 2 as non-relevant under -l 3
    # (t1: 2 to 3, t2: 0 to 2; trec_eval 9.0.8 prints 2, and 5 on the qrels with them at
    # 2): its "high" printed 5 as the value with them relevant, which no grade here is
    (bound,) = unjudged_bounds(qrels, runs, ["num_nonrel_judged_ret"], relevance_level=3)
    assert (bound.low, bound.high) == (2, 5) and bound.high_undefined.startswith(why)
    (bound,) = unjudged_bounds(qrels, runs, ["num_nonrel_judged_ret"])  # at 2, relevant
    assert (bound.low, bound.high, bound.high_undefined) == (0, 0, None)


def test_an_undefined_value_is_n_a_with_its_reason_not_nan(tmp_path, capsys):
    # -J -M 1: t2's one document is unjudged, so it ranks none and 11pt_avg is 0/0 there
    # (trec_eval 9.0.8 prints -nan for t2 and for all). The table printed a bare "nan".
    # Its high: t1 1, t2 with u relevant (R 2, u first) 6 of 11 points at precision 1;
    # (1 + 6/11) / 2 = 0.7727, as trec_eval prints on the qrels with "t2 0 u 1" added.
    from trecbench.cli import run

    (tmp_path / "q").write_text("t1 0 d1 1\nt1 0 d2 0\nt2 0 d9 1\n", encoding="utf-8")
    (tmp_path / "a.run").write_text("t1 Q0 d1 1 2.0 a\nt2 Q0 u 1 1.0 a\n", encoding="utf-8")
    args = ["score", "-J", "-M", "1", "-m", "11pt_avg", "--unjudged-bounds"]
    args += [str(tmp_path / "q"), str(tmp_path / "a.run")]
    # under -J the value is no low end: its column is "value"
    note = "value n/a: the measure's value is undefined here (trec_eval prints -nan)"
    for fmt, row in [
        ("table", "a    11pt_avg  n/a    0.7727  50.0%\n"),
        ("markdown", "| a | 11pt_avg | n/a | 0.7727 | 50.0% |\n"),
    ]:
        assert run([*args, "--format", fmt]) == 0
        out = capsys.readouterr().out
        bounds = out[out.index("unjudged") :]
        assert row in bounds and "nan |" not in bounds and "  nan  " not in bounds
        assert f"{note} — a, 11pt_avg\n" in bounds


def _two_runs(folder):
    """Three topics, each with one relevant and one non-relevant document; runs A and B
    leave two of their six top-2 documents unjudged each. P@2: A 1/3 (high 2/3), B 1/2
    (high 5/6); B - A per topic 0, 0, 1/2."""
    (folder / "q.qrels").write_text(
        "".join(f"t{i} 0 r{i} 1\nt{i} 0 n{i} 0\n" for i in (1, 2, 3)), encoding="utf-8"
    )
    runs = {"A": ["r1 n1", "r2 u2", "u3 n3"], "B": ["u1 r1", "n2 r2", "r3 u4"]}
    for name, topics in runs.items():
        lines = [
            f"t{i} Q0 {doc} {rank} {9 - rank} {name}\n"
            for i, docs in enumerate(topics, 1)
            for rank, doc in enumerate(docs.split(), 1)
        ]
        (folder / f"{name}.run").write_text("".join(lines), encoding="utf-8")
    return [str(folder / name) for name in ("q.qrels", "A.run", "B.run")]


def test_compare_csv_carries_the_power_and_the_unjudged_bounds(tmp_path, capsys):
    # --format csv dropped both without a word; its columns equal the JSON report's
    import csv
    import io

    import numpy as np

    from trecbench.cli import run

    args = ["compare", *_two_runs(tmp_path), "-m", "P@2", "--unjudged-bounds"]
    args += ["--power", "0.8", "--movers", "0", "--no-tie-bounds", "--samples", "100"]
    assert run([*args, "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert run([*args, "--format", "csv"]) == 0
    rows = {row["run"]: row for row in csv.DictReader(io.StringIO(capsys.readouterr().out))}
    bounds = {row["run"]: row for row in report["unjudged_bounds"]["rows"]}
    (power,) = report["power"]["rows"]
    for name, low, high in [("A", 1 / 3, 2 / 3), ("B", 1 / 2, 5 / 6)]:  # by hand, above
        row, bound = rows[name], bounds[name]
        assert float(row["unjudged_low"]) == bound["low"] == pytest.approx(low, abs=1e-12)
        assert float(row["unjudged_high"]) == bound["high"] == pytest.approx(high, abs=1e-12)
        assert float(row["unjudged_share"]) == bound["unjudged"] == 2 / 6
        assert row["unjudged_high_undefined"] == row["could_flip_undefined"] == ""
    # B's lowest 1/2 is below A's highest 2/3: B - A (+1/6) could turn negative
    assert rows["B"]["could_flip"] == "True" and bounds["B"]["could_flip"] is True
    assert rows["A"]["could_flip"] == "" and rows["A"]["power"] == ""
    differences = np.array([0, 0, 0.5])
    assert float(rows["B"]["power_effect_size"]) == power["effect_size"]
    assert power["effect_size"] == pytest.approx(differences.mean() / differences.std(ddof=1))
    for column, key in [("power", "power"), ("power_mde", "mde"), ("power_sd", "sd")]:
        assert float(rows["B"][column]) == power[key]
    assert int(rows["B"]["power_topics_needed"]) == power["topics_needed"]
    assert float(rows["B"]["power_target"]) == 0.8
    # three topics: the JSON's flag that compare marks nothing on so few, as the JSON says it
    assert rows["B"]["power_undefined"] == power["reason"]
    assert power["reason"].startswith("the power on 3 topics is the t-test's alone: ")


def test_compare_latex_carries_the_unjudged_bounds(tmp_path, capsys):
    # it kept --power but dropped --unjudged-bounds
    from trecbench.cli import run

    args = ["compare", *_two_runs(tmp_path), "-m", "P@2", "--unjudged-bounds", "-m", "MAP"]
    assert run([*args, "--movers", "0", "--samples", "100", "--format", "latex"]) == 0
    latex = capsys.readouterr().out
    assert "\\begin{tabular}{llrrr}\n\\toprule\nrun & measure & value (low) & high" in latex
    assert "A & P@2 & 0.3333 & 0.6667 & 33.3\\% \\\\\n" in latex
    assert "B & P@2 & 0.5000 & 0.8333 & 33.3\\% \\\\\n" in latex
    assert "\n% differences whose sign could flip within the ranges: B vs A, P@2\n" in latex
    assert "\n% could flip n/a: the ranges do not bound a difference" in latex


@pytest.mark.parametrize("complete", [True, False])
def test_qrels_a_sidecar_vouches_for_complete_leave_high_at_low(tmp_path, capsys, complete):
    """hpo's qrels list every correct term: a sidecar that says so (``complete``) leaves
    no unjudged document relevant. Its runs' high was 1.0 all the same, and compare said
    their P@5 difference could flip."""
    from trecbench.cli import run

    sidecar = json.loads((ROOT / "qrels" / "hpo-demo.sidecar.json").read_text())
    sidecar["qrels"]["hpo-demo"] |= {"file": str(QRELS), "complete": complete}
    for made in sidecar["runs"].values():  # each run paired with the qrels, where they are
        made["qrels"] = str(QRELS)
    path = tmp_path / "s.json"
    path.write_text(json.dumps(sidecar))
    word = ROOT / "runs" / "tfidf-word.run"
    runs = {"tfidf-char": str(RUN), "tfidf-word": str(word)}
    plain = unjudged_bounds(str(QRELS), runs, ["P@5", "nDCG@10"])
    given = unjudged_bounds(str(QRELS), runs, ["P@5", "nDCG@10"], sidecar=str(path))
    why = "the sidecar given describes the qrels as complete for the run"
    for bound, alone in zip(given, plain, strict=True):
        assert (bound.low, bound.unjudged) == (alone.low, alone.unjudged)
        if complete:  # P@5 at the value, not 1.0; nDCG's ranges now bound the difference
            assert bound.high == bound.low and bound.high_undefined.startswith(why)
            assert bound.difference_unbounded is None and alone.high > alone.low
        else:
            assert bound == alone
    args = ["compare", str(QRELS), str(RUN), str(word), "-m", "P@5", "--unjudged-bounds"]
    assert run([*args, "--strata", str(path), "--allow-unjudged"]) == 0
    text = capsys.readouterr().out
    flips = "differences whose sign could flip within the ranges: "
    assert flips + ("none" if complete else "tfidf-word vs tfidf-char, P@5") in text
    assert (f"high n/a: {why}" in text) is complete
    args = ["score", "-m", "P@5", "--unjudged-bounds", "--format", "json", str(QRELS), str(RUN)]
    assert run([*args, "--strata", str(path)]) == 0
    (row,) = json.loads(capsys.readouterr().out)["unjudged_bounds"]
    assert (row["high"] is None) is complete and row["value"] == plain[0].low


@pytest.mark.parametrize("sidecar", [123, {"qrels": {}}])
def test_a_sidecar_that_is_no_path_is_refused_before_the_runs_are_scored(tmp_path, sidecar):
    """``sidecar=123`` raised a TypeError from os.path, after every run was scored."""
    from trecbench.errors import UsageError

    missing = str(tmp_path / "missing.run")  # never read: the sidecar is refused first
    with pytest.raises(UsageError, match=r"^sidecar: give the path of a sidecar"):
        unjudged_bounds(str(QRELS), [missing], ["P@5"], sidecar=sidecar)


def test_a_sidecar_from_a_pipe_is_read_once_and_vouches(tmp_path):
    """Read before the runs are scored and again to vouch: a FIFO gives its text once."""
    import os
    import subprocess

    sidecar = json.loads((ROOT / "qrels" / "hpo-demo.sidecar.json").read_text())
    sidecar["qrels"]["hpo-demo"]["file"] = str(QRELS)
    for made in sidecar["runs"].values():
        made["qrels"] = str(QRELS)
    (tmp_path / "s.json").write_text(json.dumps(sidecar))
    os.mkfifo(tmp_path / "fifo")
    writer = subprocess.Popen(["sh", "-c", "cat s.json > fifo"], cwd=tmp_path)
    (bound,) = unjudged_bounds(str(QRELS), [str(RUN)], ["P@5"], sidecar=str(tmp_path / "fifo"))
    writer.wait(timeout=10)
    assert bound.high == bound.low and bound.high_undefined.startswith("the sidecar given")


def test_score_markdown_titles_the_unjudged_table_as_the_terminal_table_does(tmp_path, capsys):
    # the terminal table starts with its title; the Markdown's table stood untitled under
    # the scores (and under the tie bounds' titled table), as if one more of theirs
    from trecbench.cli import run
    from trecbench.conclusions.unjudged import TITLE

    (tmp_path / "q").write_text("t1 0 d1 1\n", encoding="utf-8")
    (tmp_path / "a.run").write_text("t1 Q0 u 1 2.0 a\nt1 Q0 d1 2 1.0 a\n", encoding="utf-8")
    args = ["score", "-m", "P.1", "--unjudged-bounds", "--tie-bounds", "--format", "markdown"]
    assert run([*args, str(tmp_path / "q"), str(tmp_path / "a.run")]) == 0
    lines = capsys.readouterr().out.splitlines()
    title = lines.index(f"**{TITLE}**")
    assert lines[title + 1 : title + 3] == ["", "| run | measure | value (low) | high | unjudged |"]
    assert lines[title - 1] == "" and lines[title - 2].startswith("| a | P.1 |")  # tie bounds


@pytest.mark.parametrize(
    ("asked", "names"),
    [
        (["-m", "P.1", "-m", "P@1"], ["P.1", "P@1"]),  # two spellings: a row under each
        (["-m", "P.1", "--labels", "trec"], ["P_1"]),  # the scores' labels, not P@1
    ],
)
def test_the_bounds_table_names_each_measure_as_the_scores_do(capsys, asked, names):
    # the table had one row, under the display name (P@1), beside scores under P.1 and P@1
    # (or P_1), where CSV's rows name each
    from trecbench.cli import run

    args = ["score", *asked, "--unjudged-bounds", "--format", "table", str(QRELS), str(RUN)]
    assert run(args) == 0
    lines = capsys.readouterr().out.splitlines()
    start = lines.index(next(line for line in lines if line.startswith("unjudged sensitivity")))
    rows = [line.split() for line in lines[start + 2 :]]
    assert [row[1] for row in rows] == names
    assert {tuple(row[2:]) for row in rows} == {("0.3571", "1.0000", "64.3%")}


def _retrieved_on_judged_topics() -> int:
    """num_ret over the topics the qrels judge, counted from the files themselves."""
    judged = {line.split()[0] for line in QRELS.read_text().splitlines()}
    return sum(line.split()[0] in judged for line in RUN.read_text().splitlines())


@pytest.mark.parametrize("fmt", ["trec", "table", "markdown", "csv", "json"])
def test_a_count_in_the_bounds_prints_as_the_scores_print_it(capsys, fmt):
    # num_ret's row read 2800.0000 (2800.0 in CSV and JSON) under score's num_ret 2800
    from trecbench.cli import run

    count = str(_retrieved_on_judged_topics())  # no document is unjudged for num_ret
    args = ["score", "-m", "num_ret", "-m", "P.5", "--unjudged-bounds", "--format", fmt]
    assert run([*args, str(QRELS), str(RUN)]) == 0
    out = capsys.readouterr().out
    if fmt == "json":
        document = json.loads(out)
        (row, _) = document["unjudged_bounds"]
        assert document["runs"][0]["aggregates"]["num_ret"] == int(count)
        assert [row["measure"], row["value"], row["low"], row["high"]] == [
            "num_ret",
            *[int(count)] * 3,
        ]
        assert all(type(row[key]) is int for key in ("value", "low", "high"))
        return
    lines = out.splitlines()
    if fmt == "csv":
        assert f"tfidf-char,all,num_ret,num_ret,{count}" in lines
        assert f"tfidf-char,all,num_ret:unjudged_high,num_ret:unjudged_high,{count}" in lines
        return
    row = next(line for line in lines if "num_ret" in line and "%" in line)
    cells = row.strip("| ").split(" | ") if fmt == "markdown" else row.split()
    assert cells[1:4] == ["num_ret", count, count]
    # as score printed it above: trec_eval's num_ret line, or the run's row of the table
    scored = [line.replace("|", " ").split() for line in lines]
    first = next(cells for cells in scored if cells[:1] in (["num_ret"], ["tfidf-char"]))
    assert count in first


def test_compare_bounds_a_count_as_its_mean_per_topic_as_its_tables_show_it(capsys):
    # its bounds table printed num_ret's sum over the topics (2800.0000, then 2800) under
    # a comparison table whose num_ret is the mean per topic (50.0000), and num_rel's
    # sum of judgments beside its mean
    import csv
    import io

    from trecbench.cli import run

    word = ROOT / "runs" / "tfidf-word.run"
    args = ["compare", str(QRELS), str(RUN), str(word), "-m", "num_ret", "-m", "num_rel"]
    args += ["-m", "P@5", "--unjudged-bounds", "--samples", "100", "--movers", "0"]
    judgments = [line.split() for line in QRELS.read_text().splitlines()]
    topics = len({qid for qid, *_ in judgments})
    retrieved = _retrieved_on_judged_topics() / topics  # no document unjudged for num_ret
    relevant = sum(int(grade) > 0 for *_, grade in judgments) / topics  # the qrels' own
    assert run(args) == 0
    rows = [line.split() for line in capsys.readouterr().out.splitlines()]
    mean = f"{retrieved:.4f}"
    assert ["num_ret", "tfidf-char", "(base)", mean, f"[{mean},", f"{mean}]"] in rows
    assert ["tfidf-char", "num_ret", mean, mean, "98.8%"] in rows
    assert ["tfidf-char", "num_rel", f"{relevant:.4f}"] == next(
        row[:3] for row in rows if row[:2] == ["tfidf-char", "num_rel"]
    )
    assert run([*args, "--format", "csv"]) == 0
    records = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    ends = {
        (r["measure"], float(r["mean"]), float(r["unjudged_low"]), r["unjudged_high"])
        for r in records
        if r["run"] == "tfidf-char"
    }
    assert ("num_ret", retrieved, retrieved, repr(retrieved)) in ends
    assert ("P@5", 0.09285714285714289, 0.09285714285714289, "1.0") in ends


def test_a_high_below_the_value_is_said_under_the_table(tmp_path, capsys):
    # map 1.0 -> high 0.8333 and utility.-1,1,0,0 1.0 -> -1.0 were shown under "value
    # (low)" and "high" without a word; by hand: d3 relevant, map (1 + 2/3) / 2 with R 2
    # against 1/1 with R 1; utility -1 * 2 relevant + 1 * 1 nonrelevant = -1, against 1
    from trecbench.cli import run

    (tmp_path / "q").write_text("q1 0 d1 2\nq1 0 d2 0\n")
    (tmp_path / "r").write_text("q1 Q0 d1 1 3 t\nq1 Q0 d2 2 2 t\nq1 Q0 d3 3 1 t\n")
    argv = ["score", "-m", "map", "-m", "P.3", "-m", "utility.-1,1,0,0", "--unjudged-bounds"]
    assert run([*argv, str(tmp_path / "q"), str(tmp_path / "r")]) == 0
    out = capsys.readouterr().out.splitlines()
    assert "r    map               1.0000       0.8333   33.3%" in out
    assert "r    utility_-1,1,0,0  1.0000       -1.0000  33.3%" in out
    assert out[-1] == (
        "high below the value: this measure falls with its unjudged documents judged relevant "
        "(an ideal or an R that grows with the judgments, a negative coefficient of utility) "
        "— r, map; r, utility_-1,1,0,0"
    )


def test_the_falling_note_holds_under_judged_only_and_not_where_the_two_print_alike(
    tmp_path, capsys
):
    # under -J (the value no low end) the note was never said; with 20,000 topics and one
    # falling, map printed 1.0000 and 1.0000 while the note named it
    from trecbench.cli import run

    (tmp_path / "q").write_text("1 0 a 1\n1 0 b 0\n2 0 c 1\n")
    (tmp_path / "r").write_text("1 Q0 a 1 3.0 t\n1 Q0 b 2 2.0 t\n1 Q0 x 3 1.0 t\n2 Q0 c 1 1.0 t\n")
    argv = ["score", "-J", "--unjudged-bounds", "-m", "map", "-m", "P.3"]
    assert run([*argv, str(tmp_path / "q"), str(tmp_path / "r")]) == 0
    out = capsys.readouterr().out.splitlines()
    assert "r    map      1.0000  0.9167  25.0%" in out  # trec_eval -J with x relevant
    assert out[-1].startswith("high below the value: ") and out[-1].endswith(" — r, map")
    many = range(1, 20001)
    (tmp_path / "q").write_text("1 0 b 0\n" + "".join(f"{t} 0 a 1\n" for t in many))
    (tmp_path / "r").write_text(
        "1 Q0 b 2 4.0 t\n1 Q0 x 3 3.0 t\n" + "".join(f"{t} Q0 a 1 5.0 t\n" for t in many)
    )
    assert (
        run(["score", "--unjudged-bounds", "-m", "map", str(tmp_path / "q"), str(tmp_path / "r")])
        == 0
    )
    out = capsys.readouterr().out
    assert "r    map      1.0000       1.0000" in out and "high below" not in out
