"""compare's views beyond the baseline table: movers, every pair of runs, the unpaired
(Welch) view, macro sections, tie bounds, the output formats, the plots' data and the CLI
— each number against scipy, a hand count or trecbench.evaluate."""

from __future__ import annotations

import csv
import io
import json
import math
import re
import statistics
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

import trecbench
from trecbench import stats
from trecbench.comparison import compare_scores
from trecbench.errors import UsageError
from trecbench.report import validate_against_schema


def _frame(values: dict[str, list[float]], measure: str = "P@5") -> pd.DataFrame:
    """Per-query values ``{run: [value per topic t00, t01, ...]}`` as compare_scores takes
    (topic ids sort as the lists: compare orders topics by id)."""
    return pd.DataFrame(
        [
            (run, f"t{i:02d}", measure, value)
            for run, column in values.items()
            for i, value in enumerate(column)
        ],
        columns=["run", "qid", "measure", "value"],
    )


def _holm(pvalues):
    from test_compare import _holm

    return _holm(list(pvalues))


def test_movers_and_wins_ties_losses_hand_counted():
    base = [0.5, 0.2, 0.8, 0.4, 0.0, 0.6]
    run = [0.9, 0.2, 0.3, 0.4, 0.1, 0.7]  # +0.4, 0, -0.5, 0, +0.1, +0.1
    result = compare_scores(_frame({"base": base, "run": run}), samples=40, movers=2)
    row = result.comparisons.iloc[0]
    assert (row["wins"], row["ties"], row["losses"]) == (3, 2, 1)
    movers = result.movers
    gains = movers[movers["kind"] == "gain"]
    # largest first; equal gains (t4, t5: +0.1) in topic order
    assert gains["qid"].tolist() == ["t00", "t04"] and gains["rank"].tolist() == [1, 2]
    assert gains["difference"].tolist() == pytest.approx([0.4, 0.1])
    losses = movers[movers["kind"] == "loss"]
    assert losses[["qid", "baseline_value", "value"]].values.tolist() == [["t02", 0.8, 0.3]]
    # lower is better: the same differences are the other way round
    lower = compare_scores(
        _frame({"base": base, "run": run}, "num_nonrel_judged_ret"), samples=40, movers=1
    )
    row = lower.comparisons.iloc[0]
    assert (row["wins"], row["ties"], row["losses"]) == (1, 2, 3)
    assert lower.movers.set_index("kind").loc["gain", "qid"] == "t02"


def test_movers_zero_leaves_the_section_out_never_saying_no_topic_moved():
    # --movers 0 printed "no topic moved" under a run that gains on 3 of 4 topics
    values = {"base": [0.0, 0.0, 0.0, 0.0], "run": [0.3, 0.4, 0.3, 0.0]}
    asked = compare_scores(_frame(values), samples=40, movers=0)
    assert asked.movers.empty
    table = asked.render("table")
    assert "Topic movers" not in table and "no topic moved" not in table
    assert "Topic movers" not in asked.markdown()
    # asked for and none moved: the text says so (hand count: every difference is 0)
    still = compare_scores(_frame({"base": [0.2, 0.4], "run": [0.2, 0.4]}), samples=40)
    assert "Topic movers against base (all topics)\n  no topic moved\n" in still.render("table")
    shown = compare_scores(_frame(values), samples=40, movers=2).render("table")
    assert "gains:  t01 +0.4000 (0.0000→0.4000); t00 +0.3000 (0.0000→0.3000)" in shown


def test_moves_equal_on_paper_are_in_topic_order():
    # 0.7 - 0.6, 0.8 - 0.7 and 0.9 - 0.8 are +0.1 each, but not as doubles: t02 came
    # before t01
    result = compare_scores(_frame({"base": [0.6, 0.7, 0.8], "run": [0.7, 0.8, 0.9]}), samples=40)
    gains = result.movers[result.movers["kind"] == "gain"]
    assert gains["qid"].tolist() == ["t00", "t01", "t02"]
    assert len({0.7 - 0.6, 0.8 - 0.7, 0.9 - 0.8}) > 1  # as doubles, not all equal


def test_all_pairs_p_values_are_scipy_s_with_holm_over_every_pair():
    rng = np.random.default_rng(21)
    a = rng.random(30)
    # c: a + 0.01 with some spread (a + 0.01 exactly varies by rounding only: p undefined),
    # within [0, 1] as P@5 is
    c = np.clip(a + 0.01 + rng.normal(0, 0.002, 30), 0, 1)
    values = {"a": a, "b": np.clip(a + rng.normal(0.15, 0.1, 30), 0, 1), "c": c}
    frame = pd.concat([_frame(values, "P@5"), _frame({k: v / 2 for k, v in values.items()}, "MAP")])
    result = compare_scores(frame, samples=40, baseline="a")
    pairs = result.pairs
    assert len(pairs) == 3 * 2  # three pairs, two measures, each pair once
    expected = []
    for row in pairs.itertuples():
        m = 1.0 if row.measure == "P@5" else 0.5
        x, y = values[row.run] * m, values[row.other] * m
        assert row.difference == pytest.approx(x.mean() - y.mean())
        expected.append(sps.ttest_rel(x, y).pvalue)
        assert row.p_value == pytest.approx(expected[-1], rel=1e-10)
    assert pairs["p_adjusted"].tolist() == pytest.approx(_holm(expected))
    # the baseline comparisons' p-values are the pairs' (their own Holm family)
    for row in result.comparisons.itertuples():
        pair = pairs[
            (pairs["measure"] == row.measure)
            & pairs[["run", "other"]].isin([row.run, "a"]).all(axis=1)
        ]
        assert row.p_value == pair["p_value"].item()
    # b is clearly better than a and c; c (about a + 0.01 everywhere) better than a
    winners = pairs[pairs["measure"] == "P@5"].set_index(["run", "other"])["winner"]
    assert winners[("a", "b")] == "b" and winners[("b", "c")] == "b" and winners[("a", "c")] == "c"
    latex = result.render("latex")
    a_row = next(line for line in latex.splitlines() if line.startswith("a & a & "))
    assert "$^" not in a_row  # a beats nobody: no superscript
    b_row = next(line for line in latex.splitlines() if line.startswith("b & b & "))
    assert b_row.count("$^{ac}$") == 2 and "\\textbf{" in b_row
    assert "\\begin{tabular}{clrr}" in latex and "\\toprule" in latex
    markdown = result.markdown()
    assert "<sup>ac</sup>" in markdown and "### All pairs" in markdown
    assert "^ac" in result.render("table")


def test_randomization_all_pairs_reuse_one_set_of_sign_flips():
    rng = np.random.default_rng(3)
    values = {run: rng.random(12) for run in ("x", "y", "z")}
    result = compare_scores(_frame(values), test="randomization", samples=300, seed=5)
    for row in result.pairs.itertuples():
        diffs = values[row.run] - values[row.other]
        assert row.p_value == stats.randomization_test(diffs, 300, 5)[0]


def test_welch_and_normal_intervals_are_scipy_s():
    rng = np.random.default_rng(4)
    values = {"base": rng.random(25), "run": rng.random(25) * 0.8 + 0.2}
    result = compare_scores(_frame(values), samples=40)
    row = result.comparisons.iloc[0]
    expected = sps.ttest_ind(values["run"], values["base"], equal_var=False)
    assert row["welch_t"] == pytest.approx(expected.statistic, rel=1e-12)
    assert row["welch_df"] == pytest.approx(expected.df, rel=1e-12)
    assert row["welch_p"] == pytest.approx(expected.pvalue, rel=1e-10)
    summary = result.summary.set_index("run")
    for run, column in values.items():
        sem = column.std(ddof=1) / math.sqrt(column.size)
        low, high = sps.norm.interval(0.95, loc=column.mean(), scale=sem)
        assert summary.loc[run, ["normal_low", "normal_high"]].tolist() == pytest.approx(
            [low, high], rel=1e-12
        )
    text = result.render("table")
    assert "Independent-samples view (weaker design: ignores that the runs answer the same" in text
    assert f"{expected.pvalue:.4f}" in text


def test_an_undefined_welch_test_says_why_in_every_format():
    # both runs constant per run (+0.3 on every topic): Welch t/df/p were n/a with no reason
    values = {"base": [0.2] * 6, "run": [0.5] * 6, "other": [0.1, 0.3, 0.2, 0.4, 0.2, 0.3]}
    # by hand: both variances are 0 (Python's statistics sums exactly; scipy's mean of six
    # 0.2s is off by a rounding and its t came out 2.4e16, p 2e-81)
    assert statistics.variance(values["run"]) == statistics.variance(values["base"]) == 0
    result = compare_scores(_frame(values), samples=40, baseline="base")
    rows = result.comparisons.set_index("run")
    reason = (
        "both runs' values are constant: Welch's t = difference / sqrt(sd1²/n1 + sd2²/n2) "
        "divides by 0"
    )
    assert rows.loc["run", "welch_undefined"] == reason
    assert math.isnan(rows.loc["run", "welch_p"]) and math.isnan(rows.loc["run", "welch_t"])
    # one side varies: defined (scipy's p), no reason
    with warnings.catch_warnings():  # scipy's "catastrophic cancellation" of base's
        warnings.simplefilter("ignore", RuntimeWarning)
        expected = sps.ttest_ind(values["other"], values["base"], equal_var=False).pvalue
    assert rows.loc["other", "welch_p"] == pytest.approx(expected, rel=1e-10)
    assert pd.isna(rows.loc["other", "welch_undefined"])
    note = f"Welch t, df and p n/a (undefined): {reason} — run vs base on P@5."
    for text in (result.render("table"), result.markdown()):
        flat = " ".join(text.split())
        assert flat.count(note) == 1 and flat.index(note) > flat.index("Welch t-test against")
    report = result.report()
    validate_against_schema(report, "benchmark_report")
    records = {r["run"]: r for r in report["results"][0]["comparisons"]}
    assert records["run"]["welch_undefined"] == reason and records["run"]["welch_p"] is None
    assert records["other"]["welch_undefined"] is None
    (record,) = [r for r in csv.DictReader(io.StringIO(result.render("csv"))) if r["run"] == "run"]
    assert record["welch_undefined"] == reason and record["welch_p"] == ""
    # one topic, and a macro section (no independent-samples view of means of strata)
    one = compare_scores(_frame({"base": [0.2], "run": [0.4]}), samples=40)
    assert one.comparisons["welch_undefined"].tolist() == ["fewer than 2 topics"]
    grouped = compare_scores(
        _frame({"base": [0.2, 0.4, 0.6, 0.2], "run": [0.4, 0.4, 1.0, 0.6]}),
        samples=40,
        strata={"t00": "x", "t01": "x", "t02": "y", "t03": "y"},
    )
    reasons = grouped.comparisons.set_index("stratum")["welch_undefined"]
    assert pd.isna(reasons["all"])
    assert reasons[grouped.sections[1].label].startswith("the independent-samples view is of")
    validate_against_schema(grouped.report(), "benchmark_report")


def test_strata_that_differ_by_a_trailing_nul_are_two_strata():
    # numpy's text arrays drop trailing NULs: strata "s" and "s\0" given as a list were
    # one, the macro mean 1/4 where the strata's means 1, 0 and 0 give 1/3 (review of
    # 1aa7e130; compare passes objects, which kept them apart)
    from trecbench.stats import strata_mean

    matrix = np.array([[1.0], [0.0], [0.0]])
    assert strata_mean(matrix, ["s", "s\0", "t"]).tolist() == [1 / 3]


def test_macro_sections_are_the_mean_of_strata_means_with_weighted_tests():
    rng = np.random.default_rng(5)
    n = 20
    strata = {f"t{i:02d}": "big" if i < 14 else "small" for i in range(n)}
    values = {"base": rng.random(n), "run": rng.random(n)}
    frame = _frame(values)
    for test in ("t", "bootstrap", "randomization"):
        result = compare_scores(
            frame, samples=400, seed=2, strata=strata, group_by="size", test=test
        )
        macro = result.part(result.summary, "size:macro").set_index("run")["mean"]
        grouped = trecbench.group_means(
            frame, pd.DataFrame({"qid": list(strata), "size": list(strata.values())}), "size"
        )
        expected = grouped[grouped["kind"] == "macro"].set_index("run")["value"]
        assert macro.to_dict() == pytest.approx(expected.to_dict(), rel=1e-12)
        row = result.part(result.comparisons, "size:macro").iloc[0]
        diffs = values["run"] - values["base"]
        labels = np.array(list(strata.values()))
        weights = stats.macro_weights(labels)
        if test == "t":
            expected_p = stats.stratified_t_test(diffs, labels)[0]
        elif test == "bootstrap":
            boot = stats.bootstrap_means(
                np.column_stack([values["base"], values["run"]]), 400, 2, strata=labels
            )
            expected_p = stats.bootstrap_p(diffs, (boot[:, 1] - boot[:, 0])[:, None], weights)[0]
        else:
            expected_p = stats.randomization_test(diffs, 400, 2, weights=weights)[0]
        assert row["p_value"] == pytest.approx(expected_p, rel=1e-12), test
        assert math.isnan(row["welch_p"]) and math.isnan(row["effect_size"])
    assert result.stratum_labels == ["all", "size:macro", "size=big", "size=small"]


def test_group_by_repeats(tmp_path):
    values = {"a": [0.1, 0.5, 0.9, 0.3], "b": [0.2, 0.4, 0.8, 0.6]}
    frame = _frame(values)
    strata = {
        "language": {"t00": "de", "t01": "de", "t02": "en", "t03": "en"},
        "difficulty": {"t00": "easy", "t01": "hard", "t02": "easy", "t03": "hard"},
    }
    result = compare_scores(frame, samples=40, strata=strata)
    assert result.stratum_labels == [
        "all",
        "language:macro",
        "language=de",
        "language=en",
        "difficulty:macro",
        "difficulty=easy",
        "difficulty=hard",
    ]
    assert result.settings["group_by"] == ["language", "difficulty"]
    validate_against_schema(result.report(), "benchmark_report")


def test_compare_tie_bounds_are_means_of_evaluate_s_per_topic_bounds():
    # topic q1: the relevant d2 ties with d1 (trec_eval puts d2 first: highest);
    # topic q2: the relevant d1 ties with d2 (d2 first: lowest); q3 has no ties
    run = pd.DataFrame(
        [
            ("q1", "d1", 1.0),
            ("q1", "d2", 1.0),
            ("q2", "d1", 1.0),
            ("q2", "d2", 1.0),
            ("q3", "d1", 2.0),
            ("q3", "d2", 1.0),
        ],
        columns=["qid", "docno", "score"],
    )
    qrels = pd.DataFrame(
        [("q1", "d2", 1), ("q2", "d1", 1), ("q3", "d1", 1), ("q4", "d9", 1)],
        columns=["qid", "docno", "rel"],
    )
    result = trecbench.compare(qrels, {"r": run, "s": run.copy()}, ["P@1"], samples=40)
    row = result.summary[result.summary["run"] == "r"].iloc[0]
    # per topic [low, high]: q1 [0, 1], q2 [0, 1], q3 [1, 1], q4 (no results) [0, 0]
    assert (row["mean"], row["tie_low"], row["tie_high"]) == (0.5, 0.25, 0.75)
    assert "P@5" not in result.render("table")
    tie_line = next(
        line for line in result.render("table").splitlines() if " r  " in line and "inside" in line
    )
    assert "0.5000  0.2500   0.7500  inside" in tie_line
    off = trecbench.compare(
        qrels, {"r": run, "s": run.copy()}, ["P@1"], samples=40, tie_bounds=False
    )
    assert off.summary["tie_low"].isna().all() and "Tie sensitivity" not in off.render("table")


def test_formats_csv_json_and_markdown_escape():
    values = {"a|b": [0.2, 0.4, 0.6], "c": [0.3, 0.5, 0.9]}
    result = compare_scores(_frame(values), samples=40)
    rows = list(csv.DictReader(io.StringIO(result.render("csv"))))
    assert [(r["section"], r["kind"], r["run"]) for r in rows] == [
        ("all", "all", "a|b"),
        ("all", "all", "c"),
    ]
    assert float(rows[1]["difference"]) == pytest.approx(0.5 / 3)
    assert rows[0]["difference"] == "" and float(rows[0]["mean"]) == pytest.approx(0.4)
    document = json.loads(result.render("json"))
    validate_against_schema(document, "benchmark_report")
    assert "a%7Cb (baseline)" in result.markdown()  # as score escapes a name in Markdown
    with pytest.raises(UsageError, match="unknown format 'html'; choose one of"):
        result.render("html")  # a ValueError, where every other setting is a UsageError
    with pytest.raises(UsageError, match="no section is labelled 'qid-prefix:marco'"):
        result.part(result.summary, "qid-prefix:marco")  # no rows, as if it had none
    from trecbench.renderers.comparison_text import latex_escape

    assert latex_escape("a_b & 50% #1 {x} ~^\\ |<>") == (
        r"a\_b \& 50\% \#1 \{x\} \textasciitilde{}\textasciicircum{}\textbackslash{} "
        r"\textbar{}\textless{}\textgreater{}"
    )


def _same_section_rows(result):
    for label in result.stratum_labels:
        for table in (result.summary, result.comparisons, result.pairs, result.movers):
            filtered = table[table["stratum"] == label]
            assert result.part(table, label).equals(filtered)  # the index kept too
            expected = filtered.to_dict(orient="records")  # repr: NaN is NaN
            assert repr(result.records(table, label)) == repr(expected)


def test_a_section_s_rows_are_its_own_however_asked_and_never_kept_past_a_rendering():
    values = {"a": [0.2, 0.4, 0.6, 0.1], "b": [0.3, 0.5, 0.9, 0.0]}
    strata = {"t00": "x", "t01": "x", "t02": "y", "t03": "y"}
    result = compare_scores(_frame(values), samples=40, strata=strata, group_by="g")
    _same_section_rows(result)  # each table split at each ask
    with result.split_by_section():  # each split once
        _same_section_rows(result)
        result.records(result.summary, "all")[0]["mean"] = -1.0  # a caller's copy
        assert result.records(result.summary, "all")[0]["mean"] == pytest.approx(0.325)
        keyed = result.by_measure_and_run(result.summary, "g=y")
        assert keyed[("P@5", "b")]["mean"] == pytest.approx(0.45)
        with pytest.raises(UsageError, match="no section is labelled 'g=z'"):
            result.records(result.summary, "g=z")
    result.summary["mean"] = 0.5  # a table changed in place after the rendering
    assert "0.5000" in result.render("table") and "0.3250" not in result.render("table")
    assert result.records(result.summary, "all")[0]["mean"] == 0.5


def test_a_rendering_s_split_tables_are_its_thread_s_alone():
    # what a rendering keeps was the comparison's: another thread's rendering of it, or
    # a copy made meanwhile, read the rows as they were when the first one split them
    import copy
    import threading

    values = {"a": [0.2, 0.4, 0.6, 0.1], "b": [0.3, 0.5, 0.9, 0.0]}
    result = compare_scores(_frame(values), samples=40)
    inside, edited = threading.Event(), threading.Event()

    def render_slowly():
        with result.split_by_section():
            result.records(result.summary, "all")
            inside.set()
            edited.wait(10)

    other = threading.Thread(target=render_slowly)
    other.start()
    inside.wait(10)
    with result.split_by_section():
        copied = copy.copy(result)
    result.summary["mean"] = 0.75  # in place, while the other thread renders
    shown = result.render("table")
    edited.set()
    other.join()
    assert "0.7500" in shown and "0.3250" not in shown
    copied.summary["mean"] = 0.625
    assert "0.6250" in copied.render("markdown")


# --- plots: plain data in, same topic at the same x for every run ------------------------


def test_difference_plot_puts_one_topic_at_one_x_and_always_has_a_legend():
    from trecbench import plots

    baseline = np.array([[0.5, 0.1, 0.9, 0.3]])
    runs = np.array([[[0.6, 0.4, 0.8, 0.3], [0.1, 0.2, 1.0, 0.7]]])
    intervals = np.array([[[0.075, -0.1, 0.2], [0.05, -0.2, 0.3]]])
    figure = plots.differences_figure(
        ["r1", "r2"], ["P@5"], baseline, runs, intervals, baseline="b", order="baseline", title="t"
    )
    (axis,) = figure.axes
    markers = [line for line in axis.lines if line.get_marker() == "o"]
    order = np.argsort(baseline[0])  # topics by the baseline's value: t1, t3, t0, t2
    for r, line in enumerate(markers):
        assert line.get_ydata().tolist() == pytest.approx((runs[0, r] - baseline[0])[order])
    by_mean = plots.topic_order(baseline[0], runs[0], "difference")
    assert by_mean.tolist() == np.argsort((runs[0] - baseline[0]).mean(axis=0)).tolist()
    (legend,) = figure.legends  # names the runs; each panel's legend has its numbers
    assert [t.get_text() for t in legend.get_texts()] == ["r1", "r2"]
    assert [t.get_text() for t in axis.get_legend().get_texts()] == [
        "+0.0750 [-0.1000, +0.2000]",
        "+0.0500 [-0.2000, +0.3000]",
    ]
    tiny = plots.differences_figure(  # RBP(p=0.01)'s differences: not +0.0000
        ["r1"],
        ["P@5"],
        baseline,
        runs[:, :1],
        np.array([[[1.7e-15, -2e-16, 0.0]]]),
        baseline="b",
        title="t",
    )
    assert [t.get_text() for t in tiny.axes[0].get_legend().get_texts()] == [
        "+1.7e-15 [-2.0e-16, 0.0000]"
    ]
    single = plots.differences_figure(
        ["r1"], ["P@5"], baseline, runs[:, :1], intervals[:, :1], baseline="b", title="t"
    )
    assert len(single.legends) == 1  # a legend with one run too
    assert [t.get_text() for t in single.legends[0].get_texts()] == ["r1"]
    with pytest.raises(ValueError, match="unknown order"):
        plots.topic_order(baseline[0], runs[0], "random")


def test_plots_do_not_import_compare():
    import ast

    source = (Path(trecbench.__file__).parent / "plots.py").read_text()
    imported = {
        alias.name if isinstance(node, ast.Import) else node.module
        for node in ast.walk(ast.parse(source))
        if isinstance(node, (ast.Import, ast.ImportFrom))
        for alias in getattr(node, "names", [])
    }
    assert not any("comparison" in (name or "") for name in imported)
    for renderer in ("comparison_text", "comparison_cells", "comparison_markdown"):
        path = Path(trecbench.__file__).parent / "renderers" / f"{renderer}.py"
        text_source = path.read_text()
        assert "from ..comparison " not in text_source, renderer
        assert "from ..comparison." not in text_source, renderer
        assert not re.search(r"import comparison\b", text_source), renderer


# --- the command line ----------------------------------------------------------------------


def test_runs_and_their_qrels_from_the_command_line(tmp_path, monkeypatch):
    from trecbench.cli.compare import runs_and_qrels

    monkeypatch.chdir(tmp_path)  # a run only --names gives must be a file: b.run is one
    Path("b.run").write_text("")

    named, shared, own = runs_and_qrels(
        (Path("q.txt"), Path("a.run")), ("x=b.run",), ((Path("c.run"), Path("c.qrels")),)
    )
    assert named == {"a": "a.run", "x": "b.run", "c": "c.run"}
    assert (shared, own) == ("q.txt", {"c": "c.qrels"})
    named, shared, own = runs_and_qrels((), (), ((Path("c.run"), Path("c.qrels")),))
    assert (shared, own) == (None, {"c": "c.qrels"})
    with pytest.raises(UsageError, match="q.txt would be unused"):
        runs_and_qrels((Path("q.txt"),), (), ((Path("c.run"), Path("c.qrels")),))
    with pytest.raises(UsageError, match="run b.run has no qrels"):
        runs_and_qrels((), ("x=b.run",), ((Path("c.run"), Path("c.qrels")),))
    with pytest.raises(UsageError, match="give QRELS and at least one RUN"):
        runs_and_qrels((Path("q.txt"),), (), ())


def test_compare_names_runs_as_every_command_does():
    from trecbench.cli.compare import runs_and_qrels

    runs = (Path("q.txt"), Path("a/bm25.run"), Path("b/bm25.run"))
    named, _, _ = runs_and_qrels(runs, (), ())
    assert named == {"a/bm25": "a/bm25.run", "b/bm25": "b/bm25.run"}  # parents tell them apart
    named, _, _ = runs_and_qrels(runs, ("x=./b/bm25.run",), ())
    assert named == {"a/bm25": "a/bm25.run", "x": "b/bm25.run"}
    with pytest.raises(UsageError, match="'x': expected NAME=RUN"):
        runs_and_qrels(runs, ("x",), ())
    with pytest.raises(UsageError, match="two runs are named 'x'"):
        runs_and_qrels(runs, ("x=a/bm25.run", "x=b/bm25.run"), ())
    with pytest.raises(UsageError, match="b/bm25.run is named twice"):
        runs_and_qrels(runs, ("x=b/bm25.run", "y=b/bm25.run"), ())


def test_terminal_table_by_default_and_files_only_with_o(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from trecbench.cli import _register, cli

    root = Path(__file__).resolve().parents[1]
    _register()
    monkeypatch.chdir(tmp_path)
    args = ["compare", str(root / "qrels" / "hpo-demo.qrels")]
    args += [str(root / "runs" / "tfidf-char.run"), str(root / "runs" / "tfidf-word.run")]
    done = CliRunner().invoke(cli, [*args, "-m", "P@5", "-m", "MAP@100", "--samples", "100"])
    assert done.exit_code == 0, done.output
    assert list(tmp_path.iterdir()) == []  # nothing written without -o
    lines = done.stdout.splitlines()
    header = next(line for line in lines if line.startswith("measure "))
    assert header.split()[:4] == ["measure", "run", "mean", "95%"]
    assert "**0." not in done.stdout and "\\*" not in done.stdout  # no Markdown on a terminal
    plots = CliRunner().invoke(cli, [*args, "--plots"])
    assert plots.exit_code == 1 and "--plots writes files: give -o OUTDIR" in str(plots.exception)


def test_beyond_26_runs_the_letters_of_beaten_runs_are_separated():
    """Run 27's letter is r27: after run 18's r it would read rr27, so letters get commas
    (in the runs' order) once there are more than 26 runs."""
    rng = np.random.default_rng(0)
    values = {
        f"run{r:02d}": list((0.9 if r == 0 else 0.1) + rng.uniform(0, 0.05, 12)) for r in range(28)
    }
    result = compare_scores(_frame(values), test="t")
    from trecbench.renderers.comparison_cells import pairs_rows as _pairs_rows

    first = _pairs_rows(result, "all", lambda text: text)[0]
    assert first[:2] == ["a", "run00"]
    assert first[2][1] == ",".join([*"bcdefghijklmnopqrstuvwxyz", "r27", "r28"])


def test_renderers_read_the_registry_and_the_typed_statistics(monkeypatch):
    # issue 26: a measure's table is its registry entry's group (no matching on names),
    # and the renderers read StatsSettings, not the report's string-keyed record
    import dataclasses

    from trecbench.comparison import StatsSettings
    from trecbench.measures import registry
    from trecbench.renderers.comparison_cells import measure_group

    assert measure_group("Recall@100") == measure_group("R@100") == registry.RECALL
    assert measure_group("nDCG@10") == measure_group("no such measure") == registry.RANKING
    recall_map = dataclasses.replace(registry.get("map_cut"), group=registry.RECALL)
    monkeypatch.setitem(registry._DEFINITIONS, "map_cut", recall_map)
    assert measure_group("MAP@100") == registry.RECALL
    per_query = pd.DataFrame(
        {
            "run": ["a"] * 3 + ["b"] * 3,
            "qid": ["1", "2", "3"] * 2,
            "measure": ["P@5"] * 6,
            "value": [0.1, 0.5, 0.3, 0.2, 0.4, 0.9],
        }
    )
    comparison = compare_scores(per_query, test="wilcoxon", samples=50, seed=3, confidence=0.9)
    assert comparison.statistics == StatsSettings("wilcoxon", "holm", 50, 3, 0.9)
    assert "Wilcoxon" in comparison.render("table") and comparison.tie_bounded is False


def test_a_normal_interval_past_the_measures_range_is_flagged():
    # P@10 of 0.8, 1.0, 0.3 per topic: mean ± 1.96·sd/√3 reached 1.1080, a value no mean of
    # P@10 can take, printed without a word
    frame = _frame({"base": [0.8, 1.0, 0.3], "run": [0.0, 0.9, 0.1]}, "P@10")
    result = compare_scores(frame, samples=40)
    low, high = stats.normal_interval(np.array([0.8, 1.0, 0.3]))
    assert high[0] > 1 > low[0]  # the formula's, as the spec computes it
    text, markdown = result.render("table"), result.render("markdown")
    assert f"[{low[0]:.4f}, {high[0]:.4f}]†" in text
    note = "† the interval passes the measure's range, [0, 1]: a normal approximation"
    assert note in " ".join(text.split()) and note in markdown
    inside = compare_scores(_frame({"base": [0.4, 0.5, 0.6], "run": [0.5, 0.6, 0.6]}, "P@10"))
    assert "†" not in inside.render("table")


def test_an_interval_past_one_by_a_rounding_is_not_flagged():
    # cwl_eval's INSQ over 1,000 relevant ranks is 1.0000000000000002 on every topic: its
    # interval [1.0000, 1.0000] was marked as passing [0, 1], which the per-topic check,
    # allowing a rounding's 1e-9, let through
    rounded = 1.0000000000000002
    frame = _frame({"base": [rounded, rounded], "run": [0.1, 0.2]}, "INSQ")
    text = compare_scores(frame, samples=40).render("table")
    assert "[1.0000, 1.0000]" in text and "†" not in text


@pytest.mark.parametrize(
    "measure",
    ["ERR@10", "nERR@10", "Q", "SDCG@10", "RBP",
     "NERR8@10", "NERR9@10", "NERR10", "NERR11", "INST", "INSQ", "BPM@10"],
)  # fmt: skip
def test_the_interval_of_each_measure_in_zero_one_is_flagged_past_it(measure):
    # the values of ERR, nERR, Q, SDCG, RBP and cwl_eval's NERR8-11, INST, INSQ and BPM
    # lie in [0, 1] too, but their intervals past it went unmarked (the registry stated no
    # span for them); a value beyond it is refused as P@10's is
    frame = _frame({"base": [0.8, 1.0, 0.3], "run": [0.0, 0.9, 0.1]}, measure)
    text = compare_scores(frame, samples=40).render("table")
    assert "]†" in text and "the interval passes the measure's range, [0, 1]" in text
    with pytest.raises(UsageError, match=r"outside \[0, 1\], where every value of it lies"):
        compare_scores(_frame({"base": [0.8, 1.5, 0.3], "run": [0.0, 0.9, 0.1]}, measure))


def test_a_macro_mean_is_the_same_double_in_compare_score_and_leaderboard(tmp_path):
    # P@20 values over strata of 3, 4, 2 and 2 topics: compare's weighted sum gave
    # 0.61875 (printed 0.6188), score --group-by's mean of the group means
    # 0.6187499999999999 (0.6187) for the same macro mean
    import fractions

    from trecbench.renderers.text_tables import value_text

    values = [0.7, 0.3, 0.8, 1.0, 0.8, 0.7, 0.3, 0.6, 0.8, 0.75, 0.2]
    labels = ["a"] * 3 + ["b"] * 4 + ["c"] * 2 + ["d"] * 2
    strata = {f"t{i:02d}": label for i, label in enumerate(labels)}
    frame = _frame({"base": values, "run": values[::-1]})
    result = compare_scores(frame, samples=40, strata=strata, group_by="g")
    compared = result.part(result.summary, "g:macro").set_index("run")["mean"]["base"]
    sidecar = pd.DataFrame({"qid": list(strata), "g": labels})
    grouped = trecbench.group_means(frame, sidecar, "g").set_index(["run", "kind"])["value"]
    # the reference: the group means as trec_eval sums each, their sum exact
    means = [sum(values[i] for i in range(11) if labels[i] == g) / labels.count(g) for g in "abcd"]
    exact = float(sum(map(fractions.Fraction, means)) / 4)
    assert compared == grouped["base", "macro"] == exact
    assert value_text(compared) == "0.6187"


def test_a_mean_of_means_is_exact_and_rounded_once():
    # fsum(means) / 3 rounds twice: 0.22636002886002884 where the rational mean's nearest
    # double is ...887 (a leaderboard's collection means); fsum raised on 1.7e308 twice
    # (an intermediate overflow) and on inf beside -inf, where group_means took means
    import fractions

    from trecbench.kernels import mean_of_means

    means = [0.24642857142857139, 0.21515151515151518, 0.21750000000000003]
    exact = float(sum(map(fractions.Fraction, means)) / 3)
    assert exact == 0.22636002886002887 and mean_of_means(means) == exact
    assert mean_of_means([means, means[::-1]], axis=1).tolist() == [exact, exact]
    assert mean_of_means([1.7e308, 1.7e308]) == 1.7e308
    assert math.isnan(mean_of_means([math.inf, -math.inf]))
    assert mean_of_means([math.inf, 1.0]) == math.inf


@pytest.mark.parametrize(
    ("test", "said"),
    [
        ("randomization", " (300 samples, seed 4; exact, every sign pattern, in a section of 8 "
         "topics or fewer) against a;"),
        ("bootstrap", " (300 samples, seed 4) against a;"),
        ("tukey", " (300 samples, seed 4) against a;"),
        ("t", " against a;"),
    ],
)  # fmt: skip
def test_the_significance_line_says_how_a_resampled_test_drew(test, said):
    # the header named the intervals' resamples only: a randomisation p over 8 topics,
    # exact over all 2^8 = 256 <= 300 sign patterns, read as if drawn
    rng = np.random.default_rng(1)
    frame = _frame({"a": rng.random(8).round(2), "b": rng.random(8).round(2)})
    result = compare_scores(frame, test=test, samples=300, seed=4)
    text = " ".join(result.render("table").split())
    label = result.statistics.label()
    assert f"Significance: two-sided {label}{said}" in text
    assert f"{label}{said}" in " ".join(result.markdown().split())
    if test == "randomization":  # exact: the share of all 256 sign patterns, any seed
        import fractions
        import itertools

        a, b = (map(fractions.Fraction, frame[frame.run == r].value) for r in "ab")
        diffs = [y - x for x, y in zip(a, b, strict=True)]
        observed = abs(sum(diffs))
        patterns = itertools.product((1, -1), repeat=8)
        sums = (abs(sum(s * d for s, d in zip(p, diffs, strict=True))) for p in patterns)
        count = sum(total >= observed for total in sums)
        assert result.comparisons["p_value"][0] == count / 256


@pytest.mark.parametrize(("samples", "said"), [(3, " (3 samples, seed 0) "), (4, "of 2 topics")])
def test_the_exact_randomisation_is_said_only_where_a_section_can_be_tested(samples, said):
    # 3 samples said "exact ... in a section of 1 topics or fewer": one topic has no p
    frame = _frame({"a": [0.1, 0.5, 0.2], "b": [0.3, 0.4, 0.9]})
    result = compare_scores(frame, test="randomization", samples=samples, confidence=1e-9)
    assert said in " ".join(result.render("table").split())


@pytest.mark.parametrize("test", ["t", "wilcoxon", "bootstrap", "randomization"])
def test_a_tiny_difference_beside_large_equal_values_is_not_noise(test):
    # topics equal at 0.99 and 0.5 made the differences of 1e-15 noise of 0.99's size: a
    # mean of -5e-16 printed as 0, the tests "do not vary", W/T/L 0/2/2 (reviewer 709);
    # a topic whose values are the same double carries no rounding into a difference
    values = {"base": [0.99, 2e-15, 0.5, 4e-15], "run": [0.99, 1e-15, 0.5, 3e-15]}
    result = compare_scores(_frame(values), samples=200, test=test)
    row = result.comparisons.iloc[0]
    assert row["difference"] == pytest.approx(np.mean(np.subtract(values["run"], values["base"])))
    assert (row["wins"], row["ties"], row["losses"]) == (0, 2, 2)
    assert row["p_undefined"] is None and 0 < row["p_value"] <= 1
    if test == "t":  # scipy's, on the same differences
        reference = sps.ttest_rel(values["run"], values["base"]).pvalue
        assert row["p_value"] == pytest.approx(reference)
    assert "-5.0e-16" in result.render("table")


def test_the_all_pairs_legend_says_a_count_is_higher_not_better():
    # num_ret's superscripts stood under "significantly better than those runs" alone,
    # where the main table's legend says counts are higher or lower (reviewer 709)
    counts = {"a": [10, 10, 9, 10, 10, 10], "b": [20, 21, 20, 20, 22, 20], "c": [5, 5, 6, 5, 5, 5]}
    shares = {"a": [0.2, 0.4, 0.2, 0.6, 0.2, 0.4], "b": [0.4, 0.4, 0.6, 0.6, 0.4, 0.6],
              "c": [0.0, 0.2, 0.0, 0.2, 0.2, 0.0]}  # fmt: skip
    frame = pd.concat([_frame(counts, "num_ret"), _frame(shares, "P@5")])
    table = " ".join(compare_scores(frame, samples=200).render("table").split())
    assert "of num_ret: significantly higher than them (" in table
    alone = " ".join(compare_scores(_frame(shares, "P@5"), samples=200).render("table").split())
    assert "superscript letters = significantly better than those runs (" in alone
