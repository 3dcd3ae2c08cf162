"""compare's statistics that cannot mislead: undefined p-values, tests that cannot reach
alpha over so few topics, the test registry, the all-pairs bound, plots of such sections."""

from __future__ import annotations

import csv
import io
import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from trecbench import statistical_tests, stats, tukey
from trecbench.comparison import compare_scores
from trecbench.errors import UsageError
from trecbench.report import validate_against_schema

SCHEMAS = Path(__file__).resolve().parent.parent / "trecbench" / "schemas"


def _frame(values: dict[str, list[float]], measure: str = "m@2") -> pd.DataFrame:
    # "m@2": a name the registry does not bound (the values are synthetic, any number)
    rows = [
        (run, f"q{i}", measure, value)
        for run, column in values.items()
        for i, value in enumerate(column)
    ]
    return pd.DataFrame(rows, columns=["run", "qid", "measure", "value"])


# the issue's case: 2 topics whose per-topic differences are equal
EQUAL = {"a": [0.5, 0.5], "b": [1.0, 1.0]}


@pytest.mark.parametrize(
    ("test", "rests_on"),
    [
        ("t", "the paired t-test's smaller p-values rest wholly on the differences' normality"),
        ("bootstrap", "bootstrap test's smaller p-values rest wholly on a resampling"),
        ("randomization", None),
    ],
)
def test_the_note_of_too_few_topics_agrees_with_the_p_printed_above_it(test, rests_on):
    # with 3 topics t printed p 0.0002 (scipy's ttest_rel: 0.000208) under a note saying
    # "the smallest p it can honestly give is 0.25"
    from scipy.stats import ttest_rel

    a, b = [0.1, 0.2, 0.3], [0.5, 0.61, 0.69]
    result = compare_scores(_frame({"a": a, "b": b}), test=test, samples=1000)
    (note,) = result.sections[0].notes
    p = result.comparisons["p_value"].iloc[0]
    if test == "t":
        assert p == pytest.approx(ttest_rel(b, a).pvalue, rel=1e-9) and p < 0.25
    if rests_on is None:  # its p cannot go below the bound: the note says so of it
        assert p >= 0.25 and "the smallest p it can honestly give is 0.25" in note
    else:
        assert "assumes nothing of the differences' distribution cannot reach p < 0.05" in note
        assert rests_on in note and "it can honestly give" not in note
    assert not result.comparisons["significant"].iloc[0]


@pytest.mark.parametrize("test", ["t", "bootstrap"])
def test_constant_differences_give_no_p_and_say_why_in_every_format(test):
    result = compare_scores(_frame(EQUAL), test=test, samples=200)
    (row,) = result.comparisons.to_dict(orient="records")
    assert math.isnan(row["p_value"]) and math.isnan(row["p_adjusted"])
    assert not row["significant"]
    assert row["p_undefined"].startswith("the per-topic differences do not vary")
    (section,) = result.sections
    assert section.smallest_p == 0.5  # 2 / 2**2
    (note,) = section.notes
    assert "With 2 topics" in note and "cannot reach p < 0.05" in note
    table = result.render("table")
    body = table[table.index("\nAll topics") :]  # after the legend, which shows the markers
    assert "▼" not in body and "▲" not in body and "*" not in body
    assert table.count("With 2 topics") == 1 and "p n/a (undefined" in table
    assert "+100.0%  2/0/0  n/a" in table  # not "p 0.0e+00 ▼***"
    markdown = result.render("markdown")
    assert markdown.count("> With 2 topics") == 1 and "> p n/a (undefined" in markdown
    latex = result.render("latex")
    assert latex.count("With 2 topics") == 1
    report = json.loads(result.render("json"))
    validate_against_schema(report, "benchmark_report")
    (part,) = report["results"]
    assert part["smallest_p"] == 0.5 and part["notes"] == [note]
    assert part["comparisons"][0]["p_value"] is None
    assert part["comparisons"][0]["p_undefined"] == row["p_undefined"]
    rows = list(csv.DictReader(io.StringIO(result.render("csv"))))
    assert [r["notes"].count("With 2 topics") for r in rows] == [1, 0]  # once per section
    assert rows[1]["p_value"] == "" and rows[1]["p_undefined"] == row["p_undefined"]


def test_the_issue_s_case_on_the_command_line(tmp_path):
    from test_compare import _invoke

    (tmp_path / "qrels").write_text("q1 0 d1 1\nq1 0 d2 1\nq2 0 d1 1\nq2 0 d2 1\n")
    (tmp_path / "a.run").write_text(
        "q1 Q0 d1 1 2 a\nq1 Q0 x 2 1 a\nq2 Q0 d1 1 2 a\nq2 Q0 x 2 1 a\n"
    )
    (tmp_path / "b.run").write_text(
        "q1 Q0 d1 1 2 b\nq1 Q0 d2 2 1 b\nq2 Q0 d1 1 2 b\nq2 Q0 d2 2 1 b\n"
    )
    files = [str(tmp_path / name) for name in ("qrels", "a.run", "b.run")]
    for test in ("t", "bootstrap", "randomization", "wilcoxon", "tukey"):
        done = _invoke("compare", [*files, "-m", "P@2", "--test", test, "--quiet", "--format",
                                   "table"])  # fmt: skip
        assert done.exit_code == 0, done.output
        done = _invoke("compare", [*files, "-m", "P@2", "--test", test])
        assert done.exit_code == 0, done.output
        body = done.output[done.output.index("\nAll topics") :]
        assert "0.0e+00" not in body and "▲" not in body and "*" not in body, test
        assert done.output.count("With 2 topics") == 1, test


def test_randomisation_and_t_below_the_bound_mark_nothing_though_p_is_small():
    # 5 topics, every difference positive and varying: the t-test's p is far below 0.05,
    # but 2 / 2**5 = 0.0625: no distribution-free test could say so; nothing is marked
    values = {"a": [0.1, 0.2, 0.3, 0.4, 0.5], "b": [0.6, 0.75, 0.8, 0.95, 1.0]}
    result = compare_scores(_frame(values), test="t")
    (row,) = result.comparisons.to_dict(orient="records")
    assert row["p_value"] < 0.001 and not row["significant"]
    assert result.sections[0].smallest_p == 2 / 32
    result = compare_scores(_frame({k: v + [v[-1] + 0.01] for k, v in values.items()}), test="t")
    assert result.comparisons["significant"].all()  # 6 topics: 2 / 64 < 0.05
    assert result.sections[0].notes == ()
    exact = compare_scores(_frame(values), test="randomization")
    assert exact.comparisons["p_value"].tolist() == [2 / 32]  # exact: every sign pattern


def test_macro_and_strata_sections_each_say_it_once():
    rng = np.random.default_rng(1)
    values = {"a": list(rng.random(8)), "b": list(rng.random(8) + 0.3)}
    strata = {f"q{i}": "x" if i < 2 else "y" for i in range(8)}
    result = compare_scores(_frame(values), strata=strata, group_by="g", test="t", samples=100)
    notes = {section.label: section.notes for section in result.sections}
    assert notes["all"] == () and len(notes["g=x"]) == 1 and len(notes["g=y"]) == 0
    table = result.render("table")
    assert table.count("x: With 2 topics") == 1  # the stratum, under its compact table
    markdown = result.render("markdown")
    assert markdown.count("> With 2 topics") == 1
    report = result.report()
    validate_against_schema(report, "benchmark_report")
    # wilcoxon has no macro form: undefined there, with the reason
    result = compare_scores(_frame(values), strata=strata, group_by="g", test="wilcoxon")
    macro = result.part(result.comparisons, "g:macro")
    assert macro["p_value"].isna().all()
    assert "no form for macro means" in macro["p_undefined"].iloc[0]


def test_a_macro_section_of_a_test_without_a_macro_form_has_no_cannot_reach_note():
    # the note read "With 4 topics the none: the Wilcoxon signed-rank test (zero
    # differences dropped) has no form for macro means cannot reach p < 0.05: ..."
    values = {"a": [1.0, 0.0, 1.0, 0.0], "b": [1.0, 1.0, 1.0, 0.0]}
    strata = {"q0": "g1", "q1": "g2", "q2": "g2", "q3": "g2"}
    result = compare_scores(_frame(values), strata=strata, group_by="g", test="wilcoxon")
    macro = result.section("g:macro")
    assert macro.notes == () and macro.smallest_p is None
    assert result.section("all").notes  # 4 topics: out of the Wilcoxon test's reach
    report = result.report()
    validate_against_schema(report, "benchmark_report")
    texts = [result.render(fmt) for fmt in ("table", "markdown", "latex", "csv", "json")]
    for text in [*texts, result.markdown()]:
        assert "the none:" not in text and "macro means cannot reach" not in text
    assert "has no form for macro means — b vs a on m@2" in " ".join(texts[0].split())


def test_stratified_t_with_a_one_topic_stratum_says_why():
    values = {"a": [0.1, 0.2, 0.3, 0.4, 0.5], "b": [0.3, 0.1, 0.6, 0.9, 0.2]}
    strata = {"q0": "x", "q1": "y", "q2": "y", "q3": "y", "q4": "y"}
    result = compare_scores(_frame(values), strata=strata, group_by="g", test="t")
    macro = result.part(result.comparisons, "g:macro")
    assert macro["p_undefined"].iloc[0].startswith("a stratum has fewer than 2 topics")
    one = result.part(result.comparisons, "g=x")
    assert one["p_undefined"].iloc[0] == "fewer than 2 topics"
    assert result.section("g=x").notes == (
        "With fewer than 2 topics no paired test is defined: no p-value.",
    )


# --- the registry ---------------------------------------------------------------------


def test_schema_enums_cli_choices_and_analysis_are_the_registry_s():
    from conftest import option_choices

    from trecbench.cli.compare import compare as command
    from trecbench.comparison import MACRO_TEST_NAMES, TEST_NAMES

    names = list(statistical_tests.NAMES)
    report = json.loads((SCHEMAS / "benchmark_report.schema.json").read_text())
    config = json.loads((SCHEMAS / "benchmark_config.schema.json").read_text())
    assert report["properties"]["settings"]["properties"]["test"]["enum"] == names
    assert config["properties"]["statistics"]["properties"]["test"]["enum"] == names
    corrections = list(statistical_tests.CORRECTIONS)
    assert report["properties"]["settings"]["properties"]["correction"]["enum"] == corrections
    assert config["properties"]["statistics"]["properties"]["correction"]["enum"] == corrections
    assert list(option_choices(command, "test")) == names == list(stats.TESTS)
    assert list(TEST_NAMES) == names == list(MACRO_TEST_NAMES)
    for name, test in statistical_tests.TESTS.items():
        assert callable(statistical_tests.function(name)), name
        assert test.function.startswith("trecbench."), name
        assert set(test.options) <= {"samples", "seed", "correction"}


def test_the_registry_loads_without_numpy():
    import subprocess
    import sys

    code = (
        "import sys, trecbench.statistical_tests as t; t.smallest_p('t', 3, 10); "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('numpy', 'scipy', 'pandas')))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


@pytest.mark.parametrize("test", list(statistical_tests.NAMES))
def test_every_test_runs_through_compare_and_validates(test):
    rng = np.random.default_rng(4)
    values = {
        run: list(rng.random(12) + shift) for run, shift in zip("abc", (0, 0.2, 0.5), strict=True)
    }
    result = compare_scores(_frame(values), test=test, samples=300, seed=2)
    assert result.comparisons["p_value"].between(0, 1).all()
    validate_against_schema(result.report(), "benchmark_report")
    tests = result.comparisons.set_index("run")
    pairs = result.pairs.set_index(["run", "other"])
    assert tests.loc["c", "p_value"] == pairs.loc[("a", "c"), "p_value"]
    # reviewer 228: "adjusted with no correction" (a family-wise test takes no correction
    # given: its Welch view's is the default, Holm, below)
    if test != "tukey":
        unadjusted = compare_scores(_frame(values), test=test, correction="none", samples=300)
        said = " ".join(unadjusted.render("table").split())
        assert "adjusted with no correction" not in said and "p-values not adjusted" in said
    if test == "tukey":  # family-wise already: not corrected again; seeded and recorded
        assert (result.pairs["p_value"] == result.pairs["p_adjusted"]).all()
        assert result.settings["names"]["correction"] == "family-wise"
        assert "(the Welch t-test's p-values are adjusted with Holm)" in " ".join(
            result.render("table").split()
        )
        frame = _frame(values).pivot(index="qid", columns="run", values="value")
        expected = tukey.tukey_hsd(frame[list("abc")].to_numpy(), 300, 2)
        assert pairs.loc[("a", "c"), "p_value"] == expected[0, 2]
        assert result.settings["family_wise"] and result.settings["random_streams"]["tukey"] == [
            2,
            stats.TUKEY_STREAM,
        ]
    if test == "wilcoxon":
        from scipy.stats import wilcoxon

        d = np.array(values["b"]) - np.array(values["a"])
        assert tests.loc["b", "p_value"] == pytest.approx(wilcoxon(d).pvalue, rel=1e-12)


@pytest.mark.parametrize("test", list(statistical_tests.NAMES))
def test_no_p_value_depends_on_the_order_the_runs_are_given_in(test):
    # Tukey HSD's did (issue 198): compare a b c d and a d c b gave b against a 0.99600
    # and 0.99201; agree's (stats.all_pairs_p) moved the same way
    rng = np.random.default_rng(6)
    values = {run: list(rng.integers(0, 4, 12) / 3) for run in "abcd"}
    compared, matrices = [], []
    for runs in ("abcd", "adcb", "dbca"):
        frame = _frame({run: values[run] for run in runs})
        result = compare_scores(frame, baseline="a", test=test, samples=300, seed=2)
        pairs = result.pairs
        compared.append({
            tuple(sorted(pair)): p
            for *pair, p in zip(pairs["run"], pairs["other"], pairs["p_value"], strict=True)
        })  # fmt: skip
        matrix = np.array([values[run] for run in runs]).T
        by_name = np.argsort(list(runs))  # rows and columns back in the order a b c d
        matrices.append(stats.all_pairs_p(matrix, test, 300, 2)[np.ix_(by_name, by_name)])
    assert compared[1] == compared[0] and compared[2] == compared[0]
    for other in matrices[1:]:
        np.testing.assert_array_equal(other, matrices[0])


# --- many runs: the all-pairs rows are bounded -------------------------------------------


def test_all_pairs_rows_are_left_out_beyond_the_bound_saying_so(monkeypatch):
    from trecbench.comparison import significance

    rng = np.random.default_rng(5)
    values = {f"r{i}": list(rng.random(10) + i / 20) for i in range(6)}
    whole = compare_scores(_frame(values), test="t")
    monkeypatch.setattr(significance, "PAIRS_RUNS", 4)
    bounded = compare_scores(_frame(values), test="t")
    assert len(whole.pairs) == 15 and bounded.pairs.empty
    assert bounded.comparisons.equals(whole.comparisons)
    (note,) = bounded.sections[0].notes
    assert note.startswith("All pairs: not listed for 6 runs (over 4")
    for fmt in ("table", "markdown", "latex"):
        assert bounded.render(fmt).count("All pairs: not listed") == 1, fmt
    validate_against_schema(bounded.report(), "benchmark_report")


# --- plots of sections whose interval misses the mean by a rounding error ----------------


def test_means_plot_of_one_topic_strata_draws_intervals_missing_the_mean_by_rounding():
    from trecbench import plots

    # a macro mean over 257 one-topic strata: every stratified resample is the same
    # topics, summed in another order than the mean; the interval misses it in the last bit
    rng = np.random.default_rng(257)
    values = rng.random((257, 3))
    labels = np.arange(257)
    mean = (values * stats.macro_weights(labels)[:, None]).sum(axis=0)
    low, high = stats.percentile_interval(stats.bootstrap_means(values, 40, 0, strata=labels))
    assert ((mean < low) | (mean > high)).any()
    figure = plots.means_figure(
        ["a", "b", "c"], ["m"], mean[None, :], low[None, :], high[None, :], title="t"
    )  # was ValueError: 'yerr' must not contain negative values
    (axis,) = figure.axes
    (bars,) = [c for c in axis.collections if c.__class__.__name__ == "LineCollection"]
    drawn = [segment[:, 1].tolist() for segment in bars.get_segments()]
    assert drawn == [pytest.approx([lo, hi], abs=1e-15) for lo, hi in zip(low, high, strict=True)]


def test_benchmark_says_it_too(tmp_path):
    """``trecbench benchmark`` takes compare's statistics: on 3 topics of the bundled R-task
    demo every section of its report says the t-test cannot reach 0.05, once."""
    import shutil

    from conftest import ROOT
    from test_compare import _invoke

    demo = tmp_path / "demo"
    shutil.copytree(ROOT / "data" / "hpo-rtask", demo)
    qrels = (demo / "hpo-rtask.qrels").read_text().splitlines()
    kept = sorted({line.split()[0] for line in qrels})[:3]
    (demo / "hpo-rtask.qrels").write_text(
        "".join(f"{line}\n" for line in qrels if line.split()[0] in kept)
    )
    config = (demo / "benchmark.toml").read_text()
    sidecar = (ROOT / "qrels" / "hpo-demo.sidecar.json").as_posix()
    (demo / "benchmark.toml").write_text(
        config.replace("../../qrels/hpo-demo.sidecar.json", sidecar)
    )
    done = _invoke(
        "benchmark", [str(demo / "benchmark.toml"), "-o", str(tmp_path / "out"), "--quiet"]
    )
    assert done.exit_code == 0, done.output
    report = json.loads((tmp_path / "out" / "BenchmarkReport.json").read_text())
    validate_against_schema(report, "benchmark_report")
    for part in report["results"]:
        assert part["topics"] <= 3 and part["smallest_p"] >= 0.25
        assert len(part["notes"]) == 1 and "cannot reach p < 0.05" in part["notes"][0]
        assert not any(row["significant"] for row in part["comparisons"] + part["pairs"])
    markdown = (tmp_path / "out" / "BenchmarkComparison.md").read_text()
    assert markdown.count("cannot reach p < 0.05") == len(report["results"])


# --- adversarial: ties, constant differences, 1 to 3 topics (issue 25 item 11) -----------

_STATS_EXAMPLES = int(__import__("os").environ.get("TRECBENCH_HOSTILE_EXAMPLES", "15"))


def _hostile_values():
    from hypothesis import strategies as st

    value = st.sampled_from([0.0, 0.25, 0.5, 1.0]) | st.floats(0, 1, allow_nan=False)
    return st.integers(1, 4).flatmap(
        lambda topics: st.lists(
            st.lists(value, min_size=topics, max_size=topics), min_size=2, max_size=4
        )
    )


@pytest.mark.filterwarnings("error")  # a numpy warning: arithmetic on undefined values
def test_hostile_small_inputs_never_print_a_number_that_cannot_be_right():
    import re

    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    @settings(
        max_examples=_STATS_EXAMPLES,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow],
    )
    @given(_hostile_values(), st.sampled_from(statistical_tests.NAMES), st.booleans())
    def check(columns, test, grouped):
        values = {f"r{i}": column for i, column in enumerate(columns)}
        strata = {f"q{t}": "x" if t % 2 else "y" for t in range(len(columns[0]))}
        result = compare_scores(
            _frame(values),
            test=test,
            samples=50,
            strata=strata if grouped else None,
            group_by="g" if grouped else None,
        )
        for frame in (result.comparisons, result.pairs):
            defined = frame["p_value"].notna()
            assert frame.loc[defined, "p_value"].between(0, 1, inclusive="right").all()
            assert frame.loc[~defined, "p_undefined"].notna().all()
            assert not frame.loc[~defined, "significant"].any()
        for section in result.sections:
            # an interval is n/a exactly where its section says why
            shown = result.part(result.summary, section.label)[["ci_low", "ci_high"]]
            assert shown.isna().all().all() == (section.interval_undefined is not None)
            if section.smallest_p is not None and section.smallest_p >= 0.05:
                for frame in (result.comparisons, result.pairs):
                    assert not result.part(frame, section.label)["significant"].any()
        for fmt in ("table", "markdown", "csv", "latex", "json"):
            text = result.render(fmt)
            assert not re.search(r"\b(nan|inf|infinity)\b", text, re.IGNORECASE), fmt
        validate_against_schema(result.report(), "benchmark_report")

    check()


@pytest.mark.filterwarnings("error")
def test_relative_change_against_a_subnormal_baseline_is_n_a_not_inf():
    # found by the property test: 100 * 0.25 / 5e-324 overflows
    result = compare_scores(_frame({"a": [5e-324, 5e-324], "b": [0.25, 0.5]}), samples=50)
    assert math.isnan(result.comparisons["relative_change"].iloc[0])
    assert "inf" not in result.render("table")


def test_a_relative_change_against_a_zero_baseline_says_why_in_every_format():
    # n/a in the table and Markdown, empty in CSV, null in JSON: with no reason anywhere
    result = compare_scores(_frame({"a": [0.0, 0.0, 0.0], "b": [0.5, 1.0, 0.5]}), samples=50)
    note = "change n/a (undefined): the baseline's mean is 0 — b vs a on m@2."
    for fmt in ("table", "markdown", "csv", "latex"):
        assert note in " ".join(result.render(fmt).split()), fmt
    assert note in " ".join(result.markdown().split())
    report = result.report()
    validate_against_schema(report, "benchmark_report")
    (row,) = report["results"][0]["comparisons"]
    assert row["relative_change"] is None
    assert row["relative_change_undefined"] == "the baseline's mean is 0"
    (record,) = [r for r in csv.DictReader(io.StringIO(result.render("csv"))) if r["run"] == "b"]
    assert record["relative_change_undefined"] == "the baseline's mean is 0"
    tiny = compare_scores(_frame({"a": [5e-324, 5e-324], "b": [0.25, 0.5]}), samples=50)
    assert tiny.comparisons["relative_change_undefined"].iloc[0] == (
        "the baseline's mean (4.94e-324) is so near 0 that the change overflows"
    )


def test_a_small_p_in_a_section_that_cannot_reach_alpha_is_never_marked(tmp_path):
    # 5 topics: the t-test gives p = 0.0002 (scipy), yet no test assuming nothing of the
    # differences can go below 2/2^5 = 0.0625: the section marks nothing, in any format
    from scipy.stats import ttest_rel

    values = {"a": [0.5, 0.5, 0.5, 1 / 3, 1 / 3], "b": [1.0] * 5}
    result = compare_scores(_frame(values, "RR"), samples=1000)
    (row,) = result.comparisons.to_dict(orient="records")
    assert row["p_value"] == pytest.approx(ttest_rel(values["b"], values["a"]).pvalue)
    assert row["p_adjusted"] < 0.001 and not row["significant"]
    table = result.render("table")
    body = table[table.index("\nAll topics") :]
    assert "0.0002" in body and "▲" not in body and "*" not in body
    markdown = result.render("markdown")
    assert "0.0002" in markdown and "▲" not in markdown[markdown.index("## All topics") :]
    html = result.to_html()
    assert "▲" not in html[html.index('<table class="sortable"') :]  # after the legend


def test_compare_refuses_a_summary_measure_and_writes_counts_as_integers(tmp_path, capsys):
    from conftest import ROOT

    from trecbench.cli import run

    qrels = str(ROOT / "qrels" / "hpo-demo.qrels")
    runs = [str(ROOT / "runs" / f"{name}.run") for name in ("tfidf-word", "tfidf-char")]
    # gm_map and num_q have no value per topic: refused by name, not dropped in silence
    assert run(["compare", qrels, *runs, "-m", "gm_map", "-m", "num_q", "-m", "P@5"]) == 1
    err = capsys.readouterr().err
    assert "gm_map, num_q: no value per topic" in err and "compare" in err
    assert run(["compare", qrels, *runs, "-m", "all_trec"]) == 1
    err = capsys.readouterr().err  # what to do said: a nickname holds them
    assert err.endswith(
        "leave them out (a nickname such as all_trec holds some: name the measures)\n"
    )
    assert run(["compare", qrels, *runs, "-m", "P@5", "--format", "csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [(r["wins"], r["ties"], r["losses"]) for r in rows][0] == ("", "", "")
    assert all(r[k].isdigit() for r in rows[1:] for k in ("wins", "ties", "losses"))
    assert sum(int(rows[1][k]) for k in ("wins", "ties", "losses")) == int(rows[1]["topics"])


def test_one_topic_gives_no_bootstrap_interval_not_a_point():
    # every resample of one topic is that topic: [x, x] would read as certainty
    result = compare_scores(_frame({"a": [0.2], "b": [0.6]}), samples=200)
    report = json.loads(result.render("json"))
    validate_against_schema(report, "benchmark_report")
    (part,) = report["results"]
    assert {(row["ci_low"], row["ci_high"]) for row in part["summary"]} == {(None, None)}
    assert (part["comparisons"][0]["ci_low"], part["comparisons"][0]["ci_high"]) == (None, None)
    table = result.render("table")
    assert "All topics (1 topic)" in table and "+0.4000  [n/a, n/a]" in table
    assert "+0.4000 [n/a, n/a]" in result.render("markdown")


def test_a_given_value_outside_its_measures_range_is_refused():
    # nDCG lies in [0, 1]: 1.7 and -0.6 cannot be right, and were compared as numbers
    values = {"a": [0.1, 0.2, 0.3, 0.4], "b": [0.2, 1.7, 0.3, -0.6]}
    with pytest.raises(UsageError, match=r"run 'b': nDCG@10 is 1.7 for 'q1', outside \[0, 1\]"):
        compare_scores(_frame(values, "nDCG@10"), samples=50)
    # a name the registry does not bound is compared as given
    result = compare_scores(_frame(values, "my_score"), samples=50)
    assert result.measures == ["my_score"]


def test_topics_without_a_relevant_document_are_named_in_every_output(
    tmp_path, capsys, monkeypatch
):
    # every mean and topic read 0.0000 with no reason: report.html, the Markdown and
    # BenchmarkReport.json said nothing (score --report records them as flagged topics)
    import html

    from trecbench.cli import run

    monkeypatch.chdir(tmp_path)  # the qrels named as given: q
    Path("q").write_text("q|1 0 d1 0\nq_2 0 d1 0\nq3 0 d1 1\n")
    Path("a.run").write_text("q|1 Q0 d1 1 2 a\nq_2 Q0 d1 1 2 a\nq3 Q0 d1 1 2 a\n")
    Path("b.run").write_text("q|1 Q0 d2 1 2 b\nq_2 Q0 d1 1 2 b\nq3 Q0 d2 1 1 b\n")
    args = ["compare", "q", "a.run", "b.run", "-m", "P.1", "--allow-unjudged", "--samples", "50"]
    assert run([*args, "-o", "out"]) == 0
    # in every command's words (power's, agree's, the leaderboard's: without_relevant_warning),
    # where compare's header said "2 topic(s) without a relevant document in the qrels"
    said = (
        "q: 2 topics without a relevant document (grade >= 1): the measures of relevant "
        "documents are 0 there for every run, and the topics count: "
    )
    assert f"{said}q_2, q|1" in " ".join(capsys.readouterr().out.split())  # lines wrapped
    markdown = Path("out/BenchmarkComparison.md").read_text().splitlines()
    assert f"- {said}q\\_2, q%7C1" in markdown
    page = html.unescape(Path("out/report.html").read_text())
    assert f"{said}q_2, q|1" in page
    # the topics table's marked rows: that line is their legend (its script's data)
    data = page.split('id="report-data">', 1)[1].split("</script>", 1)[0]
    assert json.loads(data)["scoreless_said"] == f"{said}q_2, q|1"
    latex = Path("out/AllPairs.tex").read_text()
    assert "q: 2 topics without a relevant document (grade \\textgreater{}= 1)" in latex
    report = json.loads(Path("out/BenchmarkReport.json").read_text())
    assert report["topics_without_relevant"] == ["q_2", "q|1"]
    validate_against_schema(report, "benchmark_report")


def _runs_with_own_qrels(tmp_path, b_qrels: str) -> list[str]:
    """``--run-qrels`` of runs a and b (each d1 in q1 and q2): a's qrels judge d1
    relevant in q1 alone, b's are ``b_qrels``."""
    (tmp_path / "qa").write_text("q1 0 d1 1\nq2 0 d1 0\n")
    (tmp_path / "qb").write_text(b_qrels)
    for name in ("a", "b"):
        (tmp_path / f"{name}.run").write_text(f"q1 Q0 d1 1 2 {name}\nq2 Q0 d1 1 2 {name}\n")
    return ["--run-qrels", str(tmp_path / "a.run"), str(tmp_path / "qa"),
            "--run-qrels", str(tmp_path / "b.run"), str(tmp_path / "qb")]  # fmt: skip


def test_a_topic_one_runs_qrels_judge_relevant_is_not_named(tmp_path):
    # the runs' flags were merged: q2 was named, where b's qrels judge d1 relevant (P@1 1.0)
    from trecbench.cli import run

    pairs = _runs_with_own_qrels(tmp_path, "q1 0 d1 1\nq2 0 d1 1\n")
    out = tmp_path / "out"
    assert run(["compare", *pairs, "-m", "P.1", "-o", str(out), "--quiet"]) == 0
    report = json.loads((out / "BenchmarkReport.json").read_text())
    assert "topics_without_relevant" not in report
    assert "without a relevant document" not in (out / "BenchmarkComparison.md").read_text()


def test_a_topic_no_runs_qrels_judge_relevant_is_named_of_each_runs_qrels(tmp_path, capsys):
    # with --run-qrels the line is about every run's own qrels, not "the qrels"
    from trecbench.cli import run

    pairs = _runs_with_own_qrels(tmp_path, "q1 0 d1 1\nq2 0 d2 0\n")
    assert run(["compare", *pairs, "-m", "P.1", "--samples", "50", "--allow-unjudged"]) == 0
    said = (
        "each run's qrels: 1 topic without a relevant document (grade >= 1): the measures of "
        "relevant documents are 0 there for every run, and the topics count: q2"
    )
    assert said in " ".join(capsys.readouterr().out.split())


# --- intervals that cannot be estimated: a stratum of one topic --------------------------

ONE_TOPIC_STRATUM = (
    "a stratum has fewer than 2 topics (no variance for the stratified bootstrap: it draws "
    "that topic every time)"
)


def test_one_topic_per_stratum_gives_no_macro_interval_and_says_why_in_every_format():
    # each topic its own stratum: the stratified bootstrap drew every topic every time and
    # printed [0.2500, 0.2500] (a point, as certain) beside the t-test's p n/a
    values = {"a": [0.5, 0.0, 0.5, 0.0], "b": [0.5, 0.5, 0.5, 1.0]}
    strata = {f"q{i}": f"s{i}" for i in range(4)}
    result = compare_scores(_frame(values), strata=strata, group_by="g", samples=200)
    assert result.section("g:macro").interval_undefined == ONE_TOPIC_STRATUM
    assert result.section("g=s0").interval_undefined == "fewer than 2 topics"
    assert result.section("all").interval_undefined is None
    for frame in (result.summary, result.comparisons):
        assert result.part(frame, "g:macro")[["ci_low", "ci_high"]].isna().all().all()
        assert result.part(frame, "all")[["ci_low", "ci_high"]].notna().all().all()
    (row,) = result.part(result.comparisons, "g:macro").to_dict(orient="records")
    assert row["p_undefined"].startswith("a stratum has fewer than 2 topics")
    note = f"Intervals n/a (undefined): {ONE_TOPIC_STRATUM}."
    table = result.render("table")
    macro = table[table.index("Macro over g") : table.index("By g")]
    assert "0.2500  [n/a, n/a]" in macro and "+0.3750  [n/a, n/a]" in macro
    assert note in " ".join(macro.split())  # the terminal wraps it
    markdown = result.render("markdown")
    assert f"> {note}" in markdown and "0.2500 [n/a, n/a]" in markdown
    assert "Intervals n/a" not in result.render("latex")  # its tables show no interval
    assert note in result.to_html()
    report = json.loads(result.render("json"))
    validate_against_schema(report, "benchmark_report")
    part = next(part for part in report["results"] if part["stratum"] == "g:macro")
    assert part["interval_undefined"] == ONE_TOPIC_STRATUM
    assert {(r["ci_low"], r["ci_high"]) for r in part["summary"] + part["comparisons"]} == {
        (None, None)
    }
    rows = [r for r in csv.DictReader(io.StringIO(result.render("csv"))) if r["kind"] == "macro"]
    assert note in rows[0]["notes"] and {(r["ci_low"], r["diff_ci_low"]) for r in rows} == {
        ("", "")
    }


def test_the_macro_interval_of_one_topic_strata_on_the_command_line(tmp_path):
    from test_compare import _invoke

    (tmp_path / "qrels").write_text("".join(f"t{i} 0 d1 1\nt{i} 0 d2 0\n" for i in range(4)))
    for run, first in (("a", ["d1", "d2", "d2", "d1"]), ("b", ["d1", "d1", "d2", "d1"])):
        lines = [
            f"t{i} Q0 {doc} 1 2 {run}\nt{i} Q0 {'d2' if doc == 'd1' else 'd1'} 2 1 {run}\n"
            for i, doc in enumerate(first)
        ]
        (tmp_path / f"{run}.run").write_text("".join(lines))
    sidecar = {
        "strata": {"fields": ["own"], "queries": {f"t{i}": {"own": f"t{i}"} for i in range(4)}}
    }
    (tmp_path / "strata.json").write_text(json.dumps(sidecar))
    files = [str(tmp_path / name) for name in ("qrels", "a.run", "b.run")]
    options = ["-m", "P@1", "--strata", str(tmp_path / "strata.json"), "--group-by", "own"]
    done = _invoke("compare", [*files, *options, "--samples", "100", "--no-tie-bounds"])
    assert done.exit_code == 0, done.output
    macro = done.stdout[done.stdout.index("Macro over own") : done.stdout.index("By own")]
    assert "0.5000  [n/a, n/a]" in macro and "0.7500  [n/a, n/a]" in macro
    assert "Intervals n/a (undefined): a stratum has fewer than 2 topics" in " ".join(macro.split())


def test_a_one_topic_stratum_among_bigger_ones_gives_no_interval_nor_bootstrap_p():
    # stratum x: one topic gaining 0.9; y: ten topics moving by noise. The stratified
    # bootstrap drew x's topic every time: the difference's interval read [0.439, 0.455]
    # and the bootstrap test's p 0.0005 on one topic's gain; the sign-flip test says 0.78
    from test_stats import _exhaustive_sign_flips

    rng = np.random.default_rng(3)
    a = np.r_[0.0, rng.random(10) * 0.5]
    b = np.r_[0.9, a[1:] + rng.normal(0, 0.05, 10)]
    strata = {f"q{i}": "x" if i == 0 else "y" for i in range(11)}
    values = _frame({"a": a.tolist(), "b": b.tolist()})
    result = compare_scores(values, strata=strata, group_by="g", test="bootstrap", samples=4096)
    assert result.section("g:macro").interval_undefined == ONE_TOPIC_STRATUM
    for frame in (result.summary, result.comparisons):
        assert result.part(frame, "g:macro")[["ci_low", "ci_high"]].isna().all().all()
        assert result.part(frame, "g=y")[["ci_low", "ci_high"]].notna().all().all()
    for frame in (result.comparisons, result.pairs):
        (row,) = result.part(frame, "g:macro").to_dict(orient="records")
        assert math.isnan(row["p_value"]) and row["p_undefined"] == ONE_TOPIC_STRATUM
    # the randomisation test flips each topic's sign: defined, and exact (2^11 <= samples)
    result = compare_scores(values, strata=strata, group_by="g", test="randomization", samples=4096)
    weighted = (b - a) * stats.macro_weights(np.array(list(strata.values())))
    (row,) = result.part(result.comparisons, "g:macro").to_dict(orient="records")
    assert row["p_value"] == _exhaustive_sign_flips(weighted) and row["p_value"] > 0.5


def test_plots_of_intervals_that_are_n_a_say_so_and_draw_none(tmp_path):
    """The figures drew no interval under an axis saying "mean, 95% CI", or "+nan" in the
    differences' legend, where the tables say n/a and why (compare --plots)."""
    pytest.importorskip("matplotlib")
    from trecbench.comparison.figures import plot_files

    values = {"a": [0.1, 0.5, 0.9], "b": [0.4, 0.2, 1.0]}
    strata = {"q0": "x", "q1": "y", "q2": "y"}  # x: one topic
    result = compare_scores(_frame(values), strata=strata, group_by="g", samples=100)
    svgs = {
        name: data.decode() for name, data in plot_files(result).items() if name.endswith("svg")
    }
    macro, one_topic = svgs["means_g_macro.svg"], svgs["differences_g-x.svg"]
    assert "intervals n/a: a stratum has fewer than 2 topics" in macro
    assert "95% CI" not in macro and "95% CI" in svgs["means.svg"]
    assert "CI n/a: fewer than 2 topics" in one_topic and "nan" not in one_topic
    assert "band: its 95% CI" in svgs["differences_g-y.svg"]


def test_a_differences_plot_of_few_topics_ticks_whole_topics():
    pytest.importorskip("matplotlib")
    from trecbench import plots

    figure = plots.differences_figure(
        ["r"],
        ["m"],
        np.array([[0.5]]),
        np.array([[[0.7]]]),
        np.array([[[0.2, 0.2, 0.2]]]),
        baseline="b",
        title="t",
    )  # the x axis counts topics: it ticked 0.25, 0.5, ...
    ticks = figure.axes[0].get_xticks()
    assert len(ticks) and all(float(tick).is_integer() for tick in ticks)


@pytest.mark.parametrize("figure_of", ["means", "differences"])
def test_a_folded_title_stays_above_the_panel_titles(figure_of):
    # a title folded to three lines was drawn over the panels' titles ("MAP")
    pytest.importorskip("matplotlib")
    from trecbench import plots

    title = "Means over 2 topics (query_difficulty = hard); baseline " + "bm25-rm3-k1.2-" * 6
    one = np.array([[0.5]])
    if figure_of == "means":
        figure = plots.means_figure(["r"], ["map"], one, one, one, title=title)
    else:
        intervals = np.array([[[0.2, 0.1, 0.3]]])
        figure = plots.differences_figure(
            ["r"], ["map"], one, one[:, None] + 0.2, intervals, baseline="b", title=title
        )
    renderer = figure.canvas.get_renderer()
    heading = figure._suptitle.get_window_extent(renderer)
    panel = figure.axes[0].title.get_window_extent(renderer)
    assert figure._suptitle.get_text().count("\n") >= 2
    assert heading.y0 > panel.y1  # above it: nothing drawn over the panel's title


def test_a_relative_change_against_a_negative_baseline_is_n_a():
    # utility: a run gaining 1.5 on every topic over a baseline of -1.0 read "-150.0%"
    result = compare_scores(_frame({"a": [-1.0, -1.0], "b": [0.5, 0.5]}), samples=50)
    (change,) = result.comparisons["relative_change"]
    assert math.isnan(change)
    assert result.comparisons["relative_change_undefined"].iloc[0] == (
        "the baseline's mean is below 0"
    )
    assert "-150" not in result.render("table")
    positive = compare_scores(_frame({"a": [0.5, 0.5], "b": [0.75, 0.75]}), samples=50)
    assert positive.comparisons["relative_change"].iloc[0] == pytest.approx(50.0)


@pytest.mark.parametrize("command", ["compare", "power", "agree"])
def test_a_summary_measure_is_refused_before_any_input_is_read(command):
    """compare, power and agree refused -m all_trec (runid, num_q, gm_map: no value per
    topic) only once every run was scored; now before anything is read (these files do not
    exist), by the names asked, the measures of a generator read once."""
    import trecbench

    def call(qrels, runs, measures):  # power takes the baseline apart
        if command == "power":
            return trecbench.power(qrels, runs[0], runs[1:], measures)
        return getattr(trecbench, command)(qrels, runs, measures)

    computed = (
        "compare's means and tests are" if command == "compare" else "power and agreement are"
    )
    runs = ["absent-a.run", "absent-b.run"]
    said = r"^runid: no value per topic \(the run's tag\); num_q, gm_map, gm_bpref: .*, which "
    for measures in (["all_trec"], (name for name in ["P@5", "relstring.10", "gm_map"])):
        with pytest.raises(UsageError, match=said if measures == ["all_trec"] else "relstring"):
            call("absent.qrels", runs, measures)
    with pytest.raises(
        UsageError, match=f"^relstring.10: no number per topic .*, which {computed}"
    ):
        call("absent.qrels", runs, ["relstring.10"])


@pytest.mark.parametrize("command", ["compare", "power", "agree"])
def test_a_list_entry_of_two_names_is_refused_as_evaluate_refuses_it(command):
    """["P@5 gm_map"] was refused for gm_map (no value per topic) where evaluate refuses
    the entry itself: each entry of a list is one name; a string alone holds several."""
    import trecbench

    runs = ["absent-a.run", "absent-b.run"]
    args = (runs[0], runs[1:]) if command == "power" else (runs,)
    with pytest.raises(UsageError, match=r"^illegal measure 'P@5 gm_map': a blank in a "):
        getattr(trecbench, command)("absent.qrels", *args, ["P@5 gm_map"])
    with pytest.raises(UsageError, match=r"^gm_map: no value per topic"):
        getattr(trecbench, command)("absent.qrels", *args, "P@5 gm_map")


def test_differences_equal_on_paper_give_the_point_interval():
    # +1/5 on each topic, as floats 0.19999999999999996 to 0.20000000000000007: the
    # interval was [0.19999999999999996, 0.20000000000000007] beside a difference of 0.2,
    # where the documented interval of differences that do not vary is the point [d, d]
    base = [0.2, 0.4, 0.6, 0.2, 0.4, 0.6]
    run = [0.4, 0.6000000000000001, 0.8, 0.4, 0.6000000000000001, 0.8]
    assert len({r - b for r, b in zip(run, base, strict=True)}) > 1  # apart as floats
    result = compare_scores(_frame({"a": base, "b": run}), samples=200)
    (row,) = result.comparisons.to_dict(orient="records")
    assert row["ci_low"] == row["difference"] == row["ci_high"]
    assert row["difference"] == pytest.approx(0.2)


def test_a_topic_s_tie_is_within_its_own_values_rounding():
    # scaled by the largest value of all topics (1.0), 9.9e-16 against 9.9e-17 (an RBP of
    # p = 0.01 deep down) was a tie; 0.25 against 0.24999999999999994 is one
    from trecbench.rounding import per_topic_zero

    zeroed = per_topic_zero([1.0, 9.9e-16, 0.25], [1.0, 9.9e-17, 0.24999999999999994])
    assert zeroed.tolist() == [0.0, 9.9e-16 - 9.9e-17, 0.0]
    result = compare_scores(_frame({"a": [1.0, 9.9e-17, 0.24999999999999994],
                                    "b": [1.0, 9.9e-16, 0.25]}), samples=200)  # fmt: skip
    (row,) = result.comparisons.to_dict(orient="records")
    assert (row["wins"], row["ties"], row["losses"]) == (1, 2, 0)


def test_score_s_page_names_its_qrels_as_compare_s_does(tmp_path, monkeypatch):
    # score --html's page had no "Qrels:" line and said "the qrels: 2 topics without a
    # relevant document", where compare's page of the same runs names the file (reviewer 705)
    import html

    from trecbench.cli import run

    monkeypatch.chdir(tmp_path)
    Path("q").write_text("q|1 0 d1 0\nq_2 0 d1 0\nq3 0 d1 1\n")
    Path("a.run").write_text("q|1 Q0 d1 1 2 a\nq_2 Q0 d1 1 2 a\nq3 Q0 d1 1 2 a\n")
    Path("b.run").write_text("q|1 Q0 d2 1 2 b\nq_2 Q0 d1 1 2 b\nq3 Q0 d2 1 1 b\n")
    assert run(["score", "-m", "P.1", "--html", "s.html", "q", "a.run", "b.run"]) == 0
    page = html.unescape(Path("s.html").read_text())
    assert "<li>Qrels: q</li>" in page
    data = page.split('id="report-data">', 1)[1].split("</script>", 1)[0]
    assert json.loads(data)["scoreless_said"].startswith("q: 2 topics without a relevant")
