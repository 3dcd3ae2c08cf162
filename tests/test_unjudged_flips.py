"""compare --unjudged-bounds' could flip: a sign it says no judgment can flip never flips.

Two runs' ranges (each run's unjudged documents non-relevant / at the qrels' top grade)
bound their difference only for measures whose value reads the judgments of the run's own
documents alone (trecbench.conclusions.unjudged proves which); for the others could flip
is n/a with the reason. The kept measures are checked here by brute force: every grade of
every unjudged document of small random cases, each value computed by its definition in
plain Python (not trecbench's code); where the runs share no unjudged document, a sign
said to flip does flip (the ranges' ends are then reached together)."""

from __future__ import annotations

import itertools
import json
import math
import random

import numpy as np
import pytest

from trecbench.conclusions.unjudged import UnjudgedSensitivity, unjudged_bounds

TOP = 2  # the qrels' top grade: the unjudged documents' grades go up to it
GRADES = (-1, 0, 1, TOP)


def _ranking(docs: dict[str, float]) -> list[str]:
    """trec_eval's order: score descending (float32), docno descending."""
    order = sorted(docs.items(), key=lambda item: (np.float32(item[1]), item[0]), reverse=True)
    return [doc for doc, _ in order]


def _first_relevant(grades: list[int], level: int, depth: int | None) -> float:
    hits = [i for i, grade in enumerate(grades[:depth]) if grade >= level]
    return 1 / (hits[0] + 1) if hits else 0.0


# the kept measures by their definitions: name -> (value of a topic's grades in rank order,
# unjudged -1; whether trec_eval sums the topics rather than averaging them)
KEPT = {
    "P@2": (lambda g: sum(x >= 1 for x in g[:2]) / 2, False),
    "P(rel=2)@2": (lambda g: sum(x >= 2 for x in g[:2]) / 2, False),
    "P(denominator='retrieved')@5": (
        lambda g: sum(x >= 1 for x in g[:5]) / len(g[:5]) if g else 0.0,
        False,
    ),
    "recip_rank": (lambda g: _first_relevant(g, 1, None), False),
    "RR@2": (lambda g: _first_relevant(g, 1, 2), False),
    "success.2": (lambda g: float(any(x >= 1 for x in g[:2])), False),
    "HitRate(rel=2)@3": (lambda g: float(any(x >= 2 for x in g[:3])), False),
    "num_rel_ret": (lambda g: sum(x >= 1 for x in g), True),
    "set_P": (lambda g: sum(x >= 1 for x in g) / len(g) if g else 0.0, False),
    "num_ret": (lambda g: len(g), True),
    # 10.0's dcg: a grade's gain is the grade, a negative grade's (and unjudged) 0
    "dcg": (lambda g: sum(max(x, 0) / math.log2(i + 2) for i, x in enumerate(g)), False),
}


def _mean(measure: str, qrels: dict, run: dict) -> float:
    """``measure`` of ``run`` over the qrels' topics (a topic the run lacks: 0), by KEPT."""
    value, summed = KEPT[measure]
    per_topic = [
        value([qrels[qid].get(doc, -1) for doc in _ranking(run.get(qid, {}))]) for qid in qrels
    ]
    return sum(per_topic) if summed else sum(per_topic) / len(per_topic)


def _case(rng: random.Random) -> tuple[dict, dict]:
    """Qrels and two runs of two topics: judged documents of every grade (a negative one
    is trec_eval's "in the pool, unjudged"), and one unjudged document a topic, which
    either run may retrieve."""
    qrels = {"t0": {"z": TOP}}  # the top grade, in a topic no run retrieves
    runs = {"A": {}, "B": {}}
    for qid in ("t1", "t2"):
        qrels[qid] = {f"j{i}": rng.choice(GRADES[1:]) for i in range(4)}
        qrels[qid]["j4"] = rng.choice(GRADES)
        for run in runs.values():
            docs = rng.sample([*qrels[qid], "u"], rng.randint(1, 5))
            run[qid] = {doc: float(rng.randint(0, 3)) for doc in docs}  # ties too
    return qrels, runs


def _assignments(qrels: dict, runs: dict):
    """The qrels with every grade of every document the runs retrieve and they lack, or
    judge at a negative grade (trec_eval's "in the pool, unjudged")."""
    unjudged = sorted(
        {(qid, doc) for run in runs.values() for qid in run for doc in run[qid]}
        - {(qid, doc) for qid in qrels for doc, grade in qrels[qid].items() if grade >= 0}
    )
    for grades in itertools.product(GRADES, repeat=len(unjudged)):
        judged = {qid: dict(docs) for qid, docs in qrels.items()}
        for (qid, doc), grade in zip(unjudged, grades, strict=True):
            judged[qid][doc] = grade
        yield judged


@pytest.mark.parametrize("seed", range(30))
def test_a_kept_measure_s_ranges_hold_every_judgment_and_a_sign_said_fixed_stays(seed):
    qrels, runs = _case(random.Random(seed))
    bounds = unjudged_bounds(qrels, runs, list(KEPT), topics=sorted(qrels))
    found = {name: [b for b in bounds if b.run == name] for name in runs}  # KEPT's order
    flips = [flip for _, _, flip, _ in UnjudgedSensitivity("A", bounds).flips()]
    values = {name: [] for name in runs}
    for judged in _assignments(qrels, runs):
        for name, run in runs.items():
            values[name].append([_mean(measure, judged, run) for measure in KEPT])
    for i, measure in enumerate(KEPT):
        for name, run in runs.items():
            bound = found[name][i]
            assert bound.difference_unbounded is None, measure
            assert bound.low == pytest.approx(_mean(measure, qrels, run), abs=1e-12)
            reached = [row[i] for row in values[name]]
            low, high = sorted((bound.low, bound.high))
            assert low - 1e-12 <= min(reached) and max(reached) <= high + 1e-12, (name, measure)
            # the ends are reached: every unjudged document non-relevant, and at the top
            assert (min(reached), max(reached)) == pytest.approx((low, high), abs=1e-12)
        signs = {_sign(b[i] - a[i]) for a, b in zip(values["A"], values["B"], strict=True)}
        observed = _sign(found["B"][i].low - found["A"][i].low)
        other_signs = signs - {0, observed}  # a tie reverses nothing; from a tie, any sign
        assert flips[i] is not None, measure
        if not flips[i]:  # no judgment takes the difference to the other sign
            assert not other_signs, measure
        elif not _shared_unjudged(qrels, runs):  # each run's ends reached apart: exact
            assert other_signs, measure


def _sign(difference: float) -> int:
    """The sign of a difference of means computed in plain Python (their last bits: 0)."""
    return 0 if abs(difference) <= 1e-12 else 1 if difference > 0 else -1


def _shared_unjudged(qrels: dict, runs: dict) -> bool:
    """Whether both runs retrieve one unjudged document (one grade for both: the two
    ranges taken apart may allow what no judgment gives)."""
    unjudged = [
        {(qid, doc) for qid in run for doc in run[qid] if qrels.get(qid, {}).get(doc, -1) < 0}
        for run in runs.values()
    ]
    return bool(unjudged[0] & unjudged[1])


def _write(folder, name: str, lines: list[str]) -> str:
    path = folder / name
    path.write_text("".join(f"{line}\n" for line in lines))
    return str(path)


def _ranked(qid: str, tag: str, docs: str) -> list[str]:
    return [f"{qid} Q0 {doc} {i} {20 - i} {tag}" for i, doc in enumerate(docs.split(), 1)]


def _compare(capsys, folder, runs: dict[str, str], measure: str, *args: str) -> tuple:
    """compare's table, its Markdown and its report (validated against the schema)."""
    from trecbench.cli import run
    from trecbench.report import validate_against_schema

    paths = [
        _write(folder, f"{name}.run", _ranked("t1", name, docs)) for name, docs in runs.items()
    ]
    common = [str(folder / "q.qrels"), *paths, "-m", measure, "--unjudged-bounds"]
    common += ["--allow-unjudged", "--samples", "100", *args]
    texts = []
    for output_format in ("table", "markdown"):
        assert run(["compare", *common, "--format", output_format]) == 0
        texts.append(capsys.readouterr().out)
    out = folder / "out"
    assert run(["compare", *common, "-o", str(out), "--quiet"]) == 0
    capsys.readouterr()
    report = json.loads((out / "BenchmarkReport.json").read_text())
    validate_against_schema(report, "benchmark_report")
    rows = {row["run"]: row for row in report["unjudged_bounds"]["rows"]}
    return *texts, rows, (out / "report.html").read_text()


def test_ndcg_ranges_apart_are_no_guarantee_judging_the_other_run_s_document_flips_it(
    tmp_path, capsys
):
    # the reviewer's case: A's nDCG@10 0.5000-0.5000, B's 0.3155-0.4806 were said to have
    # "none" whose sign could flip; judging B's document u at grade 2 raises the ideal DCG
    # A is divided by too: t1 goes from A 1.0000 / B 0.6309 to A 0.3801 / B 1.0000
    # (trec_eval 9.0.8 -q -m ndcg_cut.10, and pytrec_eval below)
    import pytrec_eval

    judged = ["t0 0 z 2", "t1 0 r1 1", *(f"t1 0 n{i} 0" for i in range(1, 10))]
    _write(tmp_path, "q.qrels", judged)
    runs = {"A": "r1 " + " ".join(f"n{i}" for i in range(1, 10))}
    runs["B"] = "u r1 " + " ".join(f"v{i}" for i in range(3, 11))
    table, markdown, rows, page = _compare(capsys, tmp_path, runs, "nDCG@10")
    qrels = {"t1": {line.split()[2]: int(line.split()[3]) for line in judged[1:]}}
    ndcg = {}
    for grade in (None, 2):
        if grade is not None:
            qrels["t1"]["u"] = grade
        evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut_10"})
        ranked = {
            name: {"t1": {doc: 20.0 - i for i, doc in enumerate(docs.split())}}
            for name, docs in runs.items()
        }
        ndcg[grade] = {n: evaluator.evaluate(r)["t1"]["ndcg_cut_10"] for n, r in ranked.items()}
    assert ndcg[None]["A"] > ndcg[None]["B"] and ndcg[2]["A"] < ndcg[2]["B"]  # it flips
    assert rows["B"]["could_flip"] is None
    assert "one judgment can move both runs" in rows["B"]["could_flip_undefined"]
    assert rows["A"]["could_flip"] is None and rows["A"]["could_flip_undefined"] is None
    for text in (table, markdown, page):
        assert "differences whose sign could flip" not in text  # no measure it bounds
        assert "could flip n/a: the ranges do not bound a difference" in text
        assert "B vs A, nDCG@10" in text
    # in Markdown a paragraph of its own, not one more row of the table above it
    assert "|\n\ncould flip n/a: " in markdown


@pytest.mark.parametrize(
    ("b_docs", "flips"),
    [
        ("u1 n1", False),  # B's P@2 at most 0.25 over the two topics, A's 0.5
        ("u1 u2", True),  # B's from 0 to 0.5: above A's 0.25 or below it
    ],
)
def test_p_at_k_says_none_or_names_the_difference_and_is_right(tmp_path, capsys, b_docs, flips):
    _write(tmp_path, "q.qrels", ["t0 0 z 2", "t1 0 r1 1", "t1 0 r2 1", "t1 0 n1 0"])
    a_docs = "r1 r2" if not flips else "r1 n1"
    table, markdown, rows, _ = _compare(capsys, tmp_path, {"A": a_docs, "B": b_docs}, "P@2")
    said = "B vs A, P@2" if flips else "none"
    for text in (table, markdown):
        assert f"differences whose sign could flip within the ranges: {said}\n" in text
        assert "could flip n/a" not in text
    assert rows["B"]["could_flip"] is flips and rows["B"]["could_flip_undefined"] is None
    # every grade of B's unjudged documents: the sign flips exactly when it was said to
    qrels = {"t0": {"z": 2}, "t1": {"r1": 1, "r2": 1, "n1": 0}}
    runs = {
        name: {"t1": {doc: 9.0 - i for i, doc in enumerate(docs.split())}}
        for name, docs in (("A", a_docs), ("B", b_docs))
    }
    signs = {
        np.sign(_mean("P@2", judged, runs["B"]) - _mean("P@2", judged, runs["A"]))
        for judged in _assignments(qrels, runs)
    }
    assert (len(signs) > 1) is flips


def test_under_judged_only_no_range_bounds_a_difference(tmp_path, capsys):
    # -J drops unjudged documents from the ranking: A's P@3 is 1 with u1 and u2 unjudged
    # and with them relevant, so its range is [1, 1] and B's [2/3, 2/3] lies below; but
    # judged non-relevant they enter A's top 3 and push two relevant documents out: 1/3
    import pytrec_eval

    judged = {"t1": {"r1": 1, "r2": 1, "r3": 1, "n1": 0}}
    _write(tmp_path, "q.qrels", [f"t1 0 {doc} {grade}" for doc, grade in judged["t1"].items()])
    runs = {"A": "u1 u2 r1 r2 r3", "B": "r1 r2 n1"}
    table, _, rows, _ = _compare(capsys, tmp_path, runs, "P@3", "-J")
    assert rows["A"]["value"] == rows["A"]["high"] == 1.0 and rows["B"]["high"] == 2 / 3
    assert rows["A"]["low"] is None and "no lower bound" in rows["A"]["low_undefined"]
    # B looks at no unjudged document: -J changes nothing, and its value is its low
    assert rows["B"]["low"] == rows["B"]["value"] and rows["B"]["low_undefined"] is None
    judged["t1"] |= {"u1": 0, "u2": 0}
    evaluator = pytrec_eval.RelevanceEvaluator(judged, {"P_3"}, judged_docs_only_flag=True)
    ranked = {
        name: {"t1": {doc: 9.0 - i for i, doc in enumerate(docs.split())}}
        for name, docs in runs.items()
    }
    assert evaluator.evaluate(ranked["A"])["t1"]["P_3"] == pytest.approx(1 / 3)  # below B
    assert rows["B"]["could_flip"] is None and "-J" in rows["B"]["could_flip_undefined"]
    assert "could flip n/a: the ranges do not bound a difference: with judged_only (-J)" in table


def test_the_differences_that_could_flip_are_apart_by_semicolons():
    # each item ("B vs A, P@2") holds a comma: joined by commas, where one ended was lost
    from trecbench.conclusions.unjudged import UnjudgedBound

    bounds = [
        UnjudgedBound(run, measure, low, high, 0.5, None)
        for measure in ("P@2", "recip_rank")
        for run, low, high in (("A", 0.5, 0.5), ("B", 0.0, 1.0), ("C", 0.0, 1.0))
    ]
    said = "B vs A, P@2; C vs A, P@2; B vs A, recip_rank; C vs A, recip_rank"
    for fmt in ("table", "markdown"):
        text = UnjudgedSensitivity("A", bounds).render(fmt)
        assert f"differences whose sign could flip within the ranges: {said}\n" in text
