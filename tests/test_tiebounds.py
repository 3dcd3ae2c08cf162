"""Tie bounds against brute force: every order of every tie group of small runs, scored by
the same engines; the bounds must be the lowest and highest values found."""

from __future__ import annotations

import functools
import itertools
import math

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import trecbench
from trecbench import tiebounds
from trecbench.evaluation.settings import EvalSettings
from trecbench.measures import GEOMETRIC, MEAN, SUM

MEASURES = [
    "P.1,2,3,5", "recall.2,5", "success.1,3", "recip_rank", "map", "map_cut.3", "gm_map",
    "ndcg", "ndcg_cut.2,5", "Rprec", "bpref", "gm_bpref", "iprec_at_recall", "11pt_avg",
    "Rprec_mult", "relative_P.3", "set_P", "set_recall", "set_F", "set_map",
    "set_relative_P", "num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret",
    "HitRate@2", "MRR@3", "Recall_all@4", "P(rel=2)@3", 'nDCG(dcg="exp-log2")@5',
    "nDCG(judged_only=True)@5",
]  # fmt: skip
OPTIONS = [
    {},
    {"max_docs": 4},
    {"relevance_level": 2},
    {"judged_only": True},
    {"judged_only": True, "max_docs": 4},
    {"judged_only": True, "max_docs": 2},
    {"max_docs": 3, "relevance_level": 2},
]


def _case(seed: int = 0, topics: int = 8) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Topics of 5-7 documents with scores from {1, 2, 3} (many ties) and grades -1
    (unjudged in the pool), 0, 1, 2, 3 or no judgment; relevant documents the run misses
    too."""
    rng = np.random.default_rng(seed)
    run, qrels = [], []
    for t in range(topics):
        qid = f"q{t}"
        n = int(rng.integers(5, 8))
        for d in range(n):
            docno = f"d{d}"
            run.append((qid, docno, float(rng.integers(1, 4))))
            grade = int(rng.integers(-2, 4))  # -2: no judgment at all
            if grade >= -1:
                qrels.append((qid, docno, grade))
        qrels.append((qid, "missed", 1))
    # a tie group straddling -M 2 that mixes relevant, judged non-relevant, unjudged and
    # negative grades: with -J the unjudged must sort between non-relevant and relevant
    # (set_P's extremes are 0.5 and 1)
    run += [("edge", "d4", 2.0)] + [("edge", f"d{d}", 1.0) for d in range(4)]
    qrels += [("edge", "d4", 2), ("edge", "d0", 0), ("edge", "d2", -1), ("edge", "d3", 1)]
    # a topic without ties and one whose only tie group holds unjudged documents: no order
    # changes them (the extreme orders leave them out and keep their reported values)
    run += [("calm", f"d{d}", float(5 - d)) for d in range(4)]
    run += [("same", "d0", 3.0), ("same", "u1", 2.0), ("same", "u2", 2.0), ("same", "d3", 1.0)]
    qrels += [("calm", "d1", 1), ("calm", "d2", 0), ("same", "d0", 1), ("same", "d3", 0)]
    return (
        pd.DataFrame(run, columns=["qid", "docno", "score"]),
        pd.DataFrame(qrels, columns=["qid", "docno", "rel"]),
    )


def _orders(run: pd.DataFrame, qrels: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame, dict]:
    """Every order of every topic's tie groups as its own topic ``qid~k`` (distinct
    scores), with the topic's qrels copied: ``(run, qrels, {qid: [copies]})``."""
    rows, copies = [], {}
    for qid, part in run.groupby("qid", sort=True):
        groups = [list(g["docno"]) for _, g in part.sort_values("score").groupby("score")][::-1]
        choices = [list(itertools.permutations(group)) for group in groups]
        copies[qid] = []
        for k, combination in enumerate(itertools.product(*choices)):
            copies[qid].append(f"{qid}~{k}")
            order = [docno for group in combination for docno in group]
            rows += [(f"{qid}~{k}", d, float(len(order) - i)) for i, d in enumerate(order)]
    topics = pd.DataFrame(
        [(qid, copy) for qid, names in copies.items() for copy in names], columns=["qid", "copy"]
    )
    judged = qrels.merge(topics, on="qid").drop(columns="qid").rename(columns={"copy": "qid"})
    return pd.DataFrame(rows, columns=["qid", "docno", "score"]), judged, copies


@functools.cache
def _brute_case():
    run, qrels = _case()
    return run, qrels, *_orders(run, qrels)


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: ",".join(map(str, o.items())) or "-")
def test_bounds_are_the_extremes_over_every_order(options):
    run, qrels, every_run, every_qrels, copies = _brute_case()
    result = trecbench.evaluate(qrels, run, MEASURES, tie_bounds=True, **options)
    (reported,) = result.runs
    bounds = reported.tie_bounds
    brute = trecbench.evaluate(every_qrels, every_run, MEASURES, **options)
    (enumerated,) = brute.runs
    position = {qid: i for i, qid in enumerate(enumerated.qids)}
    checked = 0
    for column in result.columns:
        label = column.label
        if column.summary not in (MEAN, SUM, GEOMETRIC) or label not in reported.values:
            continue
        reason = tiebounds.unbounded_reason(column.measure, result.settings)
        if reason is not None:
            assert label in bounds.unbounded
            continue
        for t, qid in enumerate(reported.qids):
            found = enumerated.values[label][[position[c] for c in copies[qid]]]
            # (trec_eval's NaNs, e.g. iprec_at_recall with -J and nothing judged, stay NaN)
            np.testing.assert_allclose(
                [bounds.low[label][t], bounds.high[label][t]],
                [found.min(), found.max()],
                rtol=0,
                atol=1e-12,
                err_msg=f"{label} {qid}",
            )
            checked += 1
        # the summaries are trec_eval's summaries of the per-topic bounds
        low, high = bounds.summary_low[label], bounds.summary_high[label]
        if column.summary == MEAN:
            assert low == pytest.approx(bounds.low[label].mean(), nan_ok=True)
            assert high == pytest.approx(bounds.high[label].mean(), nan_ok=True)
        if not math.isnan(reported.summary[label]):
            assert low <= reported.summary[label] + 1e-12 <= high + 2e-12
    assert checked > 250


def test_excluded_measures_do_leave_the_two_extreme_orders():
    # Why num_ret is not bounded with -J and -M: which documents of a tie group straddling
    # the cut are judged decides it, and no grade order gives its extremes. Here the two
    # grade orders keep 1 judged document in the cut, another order keeps 2.
    run = pd.DataFrame({"qid": "q", "docno": ["a", "b", "c"], "score": [1.0, 1.0, 1.0]})
    qrels = pd.DataFrame({"qid": "q", "docno": ["a", "b", "c"], "rel": [1, 0, 0]})
    qrels = qrels[qrels["docno"] != "c"]  # c unjudged
    options = {"judged_only": True, "max_docs": 2}
    result = trecbench.evaluate(qrels, run, ["num_ret"], tie_bounds=True, **options)
    assert "num_ret" in result.runs[0].tie_bounds.unbounded
    every_run, every_qrels, _ = _orders(run, qrels)
    brute = trecbench.evaluate(every_qrels, every_run, ["num_ret"], **options)
    assert sorted(set(brute.runs[0].values["num_ret"])) == [1.0, 2.0]


def test_a_run_without_ties_is_fixed_and_maxontsim_is_not_bounded():
    run = pd.DataFrame({"qid": "q", "docno": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]})
    qrels = pd.DataFrame({"qid": ["q"], "docno": ["b"], "rel": [1]})
    result = trecbench.evaluate(qrels, run, ["P.1", "map"], tie_bounds=True)
    frame = result.tie_bounds
    assert frame["position"].tolist() == ["fixed", "fixed"]
    assert (frame["low"] == frame["value"]).all() and (frame["high"] == frame["value"]).all()
    measure = trecbench.parse_measure("MaxOntSim@5")
    assert "ontology" in tiebounds.unbounded_reason(measure, EvalSettings())


def test_what_ties_do_to_a_measure_is_read_from_its_registry_entry(monkeypatch):
    # issue 26: a measure's tie order lives in its Definition; tiebounds reads it there
    import dataclasses

    from trecbench.measures import registry

    p5, settings = trecbench.parse_measure("P.5"), EvalSettings()
    assert p5.definition.ties == registry.TIES_BOUNDED
    assert tiebounds.unbounded_reason(p5, settings) is None
    stated = dataclasses.replace(p5.definition, ties=None, ties_reason="as the registry says")
    monkeypatch.setitem(registry._DEFINITIONS, "P", stated)
    assert tiebounds.unbounded_reason(p5, settings) == "as the registry says"
    # a condition of the entry: bounded unless -M cuts with -l 2 or more
    set_p = trecbench.parse_measure("set_P")
    assert tiebounds.unbounded_reason(set_p, EvalSettings(max_docs=5)) is None
    reason = tiebounds.unbounded_reason(set_p, EvalSettings(max_docs=5, relevance_level=2))
    assert reason == set_p.definition.ties_reason != ""
    # every family the module docstring proves bounded says so in the registry
    for name in ("recall", "map", "ndcg_cut", "HitRate", "MRR", "Recall_all", "bpref"):
        assert registry.get(name).ties == registry.TIES_BOUNDED, name
    assert registry.get("runid").ties == registry.TIES_FIXED
    assert registry.get("MaxOntSim").ties is None and registry.get("MaxOntSim").ties_reason


def test_float32_ties_are_ties_and_the_reported_order_sits_at_an_end():
    # 0.1 and 0.1 + 1e-9 are one float32: trec_eval 9.x ties them and puts d2 (docno
    # descending) first. d2 is not relevant, d1 is: the reported order is the lowest.
    run = pd.DataFrame({"qid": "q", "docno": ["d1", "d2"], "score": [0.1 + 1e-9, 0.1]})
    qrels = pd.DataFrame({"qid": ["q"], "docno": ["d1"], "rel": [1]})
    result = trecbench.evaluate(qrels, run, ["P.1", "recip_rank"], tie_bounds=True)
    frame = result.tie_bounds.set_index("measure")
    assert frame.loc["P@1", ["value", "low", "high"]].tolist() == [0.0, 0.0, 1.0]
    assert frame.loc["recip_rank", ["value", "low", "high"]].tolist() == [0.5, 0.5, 1.0]
    assert set(frame["position"]) == {"lowest"} and set(frame["tied_topics"]) == {1}
    # at float64 precision they do not tie: one order, nothing to bound
    exact = trecbench.evaluate(qrels, run, ["P.1"], tie_bounds=True, float32=False)
    assert exact.tie_bounds["position"].tolist() == ["fixed"]
    assert exact.tie_bounds["value"].tolist() == [1.0]


def test_position_names_the_end_within_twelve_digits():
    assert tiebounds.position(0.5, 0.5, 0.5) == "fixed"
    assert tiebounds.position(0.25, 0.25 + 1e-15, 0.75) == "lowest"
    assert tiebounds.position(0.75, 0.25, 0.75) == "highest"
    assert tiebounds.position(0.5, 0.25, 0.75) == "inside"
    assert math.isnan(float("nan"))  # (rendered as n/a where a measure is not bounded)


def test_score_prints_the_bounds_in_every_format(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from trecbench.cli import _register, cli

    _register()
    monkeypatch.chdir(tmp_path)
    # d1 (relevant) and d2 tie; trec_eval puts d2 first (docno descending)
    (tmp_path / "run.run").write_text("q Q0 d1 1 0.5 t\nq Q0 d2 2 0.5 t\nq Q0 d3 3 0.1 t\n")
    (tmp_path / "q.qrels").write_text("q 0 d1 1\nq 0 d3 0\n")
    base = ["score", "-m", "P.1", "-m", "infAP", "--tie-bounds", "q.qrels", "run.run"]
    trec = CliRunner().invoke(cli, [*base, "--format", "trec"])
    assert trec.exit_code == 0, trec.output
    assert trec.stdout.splitlines()[-2:] == [
        "P_1:tie_low           \tall\t0.0000",
        "P_1:tie_high          \tall\t1.0000",
    ]
    # -n prints no summary line: the bounds came after an empty line (reviewer 695)
    alone = CliRunner().invoke(cli, [*base[:1], "-n", *base[1:]])
    assert alone.stdout.startswith("P_1:tie_low           \tall\t0.0000\n"), alone.stdout
    # infAP has no lines there, and was left out without a word: said, as the table says it
    unbounded = (
        "not bounded, infAP: its estimate of unjudged documents is not monotone in the order"
    )
    assert trec.stderr == f"trecbench: warning: --tie-bounds: {unbounded}\n"
    csv = CliRunner().invoke(cli, [*base, "--format", "csv"])
    assert csv.stderr == trec.stderr and "infAP:tie_low" not in csv.stdout
    table = CliRunner().invoke(cli, [*base, "--format", "table"]).stdout
    # the bounds name each measure as the table above them does: as asked (P.1)
    assert "run  topics     P.1   infAP" in table
    assert "P.1      0.0000  0.0000   1.0000  lowest                    1" in table
    assert "infAP    0.5000     n/a      n/a  not bounded               1" in table
    assert "not bounded: infAP: its estimate of unjudged documents" in table
    import json

    document = json.loads(CliRunner().invoke(cli, [*base, "--format", "json"]).stdout)
    assert document["runs"][0]["tie_bounds"] == {
        "tied_topics": 1,
        "measures": {
            "P.1": {"low": 0.0, "high": 1.0, "position": "lowest"},
            "infAP": {"reason": "its estimate of unjudged documents is not monotone in the order"},
        },
    }
    csv_text = CliRunner().invoke(cli, [*base, "--format", "csv"]).stdout
    # one tidy table: the bounds are its rows, as trec text's lines (a second header made
    # it two tables); csv.DictReader reads every row alike
    import csv

    rows = list(csv.DictReader(csv_text.splitlines()))
    bounds = [(r["measure"], r["canonical"], r["value"]) for r in rows if ":tie_" in r["measure"]]
    assert bounds == [
        ("P.1:tie_low", "P@1:tie_low", "0.0"),
        ("P.1:tie_high", "P@1:tie_high", "1.0"),
    ]
    assert {r["qid"] for r in rows} == {"all"}
    both = CliRunner().invoke(cli, [*base, "-m", "P@1", "--format", "csv"]).stdout
    names = {r["measure"] for r in csv.DictReader(both.splitlines()) if ":tie_low" in r["measure"]}
    assert names == {"P.1:tie_low", "P@1:tie_low"}  # under each spelling, as the scores


# d1 (relevant) and d2 tie; trec_eval puts d2 first (docno descending)
TIED_RUN = "q Q0 d1 1 0.5 t\nq Q0 d2 2 0.5 t\nq Q0 d3 3 0.1 t\n"
TIED_QRELS = "q 0 d1 1\nq 0 d3 0\n"


def _scored_tied(tmp_path, *args: str):
    """``trecbench score ARGS`` of :data:`TIED_QRELS` and :data:`TIED_RUN` (run ``r``)."""
    from click.testing import CliRunner

    from trecbench.cli import _register, cli

    _register()
    (tmp_path / "r").write_text(TIED_RUN)
    (tmp_path / "q.qrels").write_text(TIED_QRELS)
    result = CliRunner().invoke(
        cli, ["score", *args, str(tmp_path / "q.qrels"), str(tmp_path / "r")]
    )
    assert result.exit_code == 0, result.output
    return result


def test_score_markdown_gives_each_measure_not_bounded_as_a_list_item(tmp_path):
    # the reasons were lines one under the other: Markdown joined them into one paragraph
    done = _scored_tied(
        tmp_path, "-m", "infAP", "-m", "Rndcg", "--tie-bounds", "--format", "markdown"
    )
    assert done.stdout.endswith(
        " | not bounded | 1 |\n\n"
        "- not bounded: Rndcg: not shown to be monotone in the order of tied documents\n"
        "- not bounded: infAP: its estimate of unjudged documents is not monotone in the order\n"
    )


def _topic_values(qrels: pd.DataFrame, run, measures) -> tuple[list[str], dict]:
    """``(topics, label -> per-topic values)`` of ``run`` as :func:`trecbench.evaluate`
    scores it."""
    (result,) = trecbench.evaluate(qrels, run, measures).runs
    return list(result.qids), result.values


def test_only_the_topics_ties_can_change_are_scored_again():
    # topics whose tie groups mix keys (q0..q7, edge), one whose tie group holds only
    # unjudged documents (same: nothing can move) and one without ties (calm): the
    # alternatives restricted to the changed topics, merged with the reported values,
    # are the whole alternatives' values
    from trecbench import ranking
    from trecbench.arrow import array

    run, qrels = _case(seed=3)
    table = pa.Table.from_pandas(run, preserve_index=False)
    order = ranking.order_run(table, True)
    qids = order.qids.to_pylist()
    where = {qid: i for i, qid in enumerate(qids)}
    judged = qrels[qrels["qid"].isin(where)]
    judgments = (
        judged["qid"].map(where).to_numpy(np.int64),
        pa.chunked_array([array(judged["docno"].tolist(), pa.string())]),
        judged["rel"].to_numpy(np.int64),
    )
    whole = tiebounds.extreme_orders(table, order, qids, judgments)
    part = tiebounds.extreme_orders(table, order, qids, judgments, only_tied=True)
    assert "calm" not in part.topics and "same" not in part.topics
    for alternative in (part.best, part.worst):
        assert sorted(set(alternative.column("qid").to_pylist())) == part.topics
    assert part.tied_topics == whole.tied_topics == len(part.topics) == len(qids) - 2
    measures = ["P.1,2,3,5", "map", "ndcg_cut.2,5", "recip_rank", "bpref", "set_F"]
    reported_qids, reported = _topic_values(qrels, table, measures)
    merged = tiebounds.extreme_values(
        part, reported_qids, reported, lambda table: _topic_values(qrels, table, measures)
    )
    for side, alternative in enumerate((whole.best, whole.worst)):
        alternative_qids, expected = _topic_values(qrels, alternative, measures)
        assert alternative_qids == reported_qids
        assert merged[side].keys() == expected.keys()
        for label, values in expected.items():
            np.testing.assert_array_equal(merged[side][label], values, err_msg=label)
    assert any(not np.array_equal(merged[0][k], reported[k]) for k in reported)


def test_undefined_bounds_are_nan_in_neither_trec_text_nor_csv(tmp_path):
    # -J leaves topic b nothing judged: iprec_at_recall is -nan in every order, so its
    # bounds are undefined; trec text left its lines out unsaid, CSV printed "nan"
    from click.testing import CliRunner

    from trecbench.cli import _register, cli

    _register()
    (tmp_path / "q").write_text("a 0 d1 1\nb 0 d1 1\n")
    (tmp_path / "r").write_text("a Q0 d1 1 3 t\nb Q0 d8 1 3 t\nb Q0 d7 2 3 t\n")
    base = ["score", "-J", "-m", "iprec_at_recall.0", "--tie-bounds"]
    base += [str(tmp_path / "q"), str(tmp_path / "r")]
    trec = CliRunner().invoke(cli, [*base, "--format", "trec"])
    assert trec.exit_code == 0, trec.output
    assert trec.stdout.splitlines()[-2:] == [
        "iprec_at_recall_0.00:tie_low\tall\t  -nan",
        "iprec_at_recall_0.00:tie_high\tall\t  -nan",
    ]
    csv = CliRunner().invoke(cli, [*base, "--format", "csv"]).stdout.splitlines()
    assert csv[-2:] == [
        "r,all,iprec_at_recall.0:tie_low,iprec_at_recall_0.00:tie_low,",
        "r,all,iprec_at_recall.0:tie_high,iprec_at_recall_0.00:tie_high,",
    ]


@pytest.mark.parametrize("output_format", ["table", "markdown"])
def test_an_undefined_bound_is_spelt_in_the_tables_as_the_scores_above_spell_it(
    tmp_path, output_format
):
    # the scores' table printed iprec_at_recall's undefined mean -nan, the bounds' table
    # under it n/a for the same value (and its bounds); n/a stays for a bound not taken
    from click.testing import CliRunner

    from trecbench.cli import _register, cli

    _register()
    (tmp_path / "q").write_text("a 0 d1 1\nb 0 d1 1\n")
    (tmp_path / "r").write_text("a Q0 d1 1 3 t\nb Q0 d8 1 3 t\nb Q0 d7 2 3 t\n")
    args = ["score", "-J", "-m", "iprec_at_recall.0", "-m", "infAP", "--tie-bounds"]
    args += ["--format", output_format, str(tmp_path / "q"), str(tmp_path / "r")]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    rows = [line.replace("|", " ").split() for line in result.stdout.splitlines()]
    assert ["r", "2", "-nan", "0.5000"] in rows  # the scores
    assert ["r", "iprec_at_recall.0", "-nan", "-nan", "-nan", "undefined", "0"] in rows
    assert ["r", "infAP", "0.5000", "n/a", "n/a", "not", "bounded", "0"] in rows


def test_json_bounds_are_under_each_spelling_the_aggregates_use(tmp_path):
    # -m P.1 -m P@1: the aggregates (and CSV's bound rows) had both names, the JSON's
    # tie_bounds only P.1, so tie_bounds["measures"]["P@1"] was missing
    import json

    result = _scored_tied(tmp_path, "-m", "P.1", "-m", "P@1", "--tie-bounds", "--format", "json")
    (run,) = json.loads(result.stdout)["runs"]
    assert list(run["aggregates"]) == ["P.1", "P@1"]
    bound = {"low": 0.0, "high": 1.0, "position": "lowest"}
    assert run["tie_bounds"]["measures"] == {"P.1": bound, "P@1": bound}


@pytest.mark.parametrize("output_format", ["table", "markdown"])
def test_table_bounds_are_under_each_spelling_the_scores_use(tmp_path, output_format):
    # -m P.1 -m P@1: the scores' table had both columns, the bounds' table a row of P.1
    # alone (as JSON's bounds before 6ebb76f0), P@1's bounds not to be found under its name
    argv = ["-m", "P.1", "-m", "P@1", "--tie-bounds", "--format", output_format]
    result = _scored_tied(tmp_path, *argv)
    rows = [line.replace("|", " ").split() for line in result.stdout.splitlines()]
    bounds = [row[1:6] for row in rows if row[:1] == ["r"] and len(row) == 7]
    assert bounds == [[name, "0.0000", "0.0000", "1.0000", "lowest"] for name in ("P.1", "P@1")]
