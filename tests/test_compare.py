"""trecbench compare: statistics on per-query values, report, Markdown, plots, CLI."""

from __future__ import annotations

import json
import os
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from trecbench import resampling, stats
from trecbench.comparison import compare_scores
from trecbench.errors import UsageError
from trecbench.evaluation.settings import EvalSettings
from trecbench.report import validate_against_schema
from trecbench.rounding import enclosing

MEASURES = ["nDCG@10", "MAP@100", "Recall@50", "HitRate@10"]


def _per_query(n: int = 30, seed: int = 0, skip: dict | None = None) -> pd.DataFrame:
    """Three runs with growing means; ``skip`` = {run: [qids absent from that run]}."""
    rng = np.random.default_rng(seed)
    rows = []
    for run, shift in [("lexical", 0.0), ("vector", 0.05), ("hybrid", 0.3)]:
        for i in range(n):
            qid = f"q{i:02d}"
            if qid in (skip or {}).get(run, ()):
                continue
            for measure in MEASURES:
                rows.append((run, qid, measure, float(np.clip(rng.random() * 0.6 + shift, 0, 1))))
    return pd.DataFrame(rows, columns=["run", "qid", "measure", "value"])


def _wide(frame: pd.DataFrame, measure: str) -> pd.DataFrame:
    part = frame[frame["measure"] == measure]
    return part.pivot(index="qid", columns="run", values="value")


def test_means_differences_and_t_test_match_independent_computation():
    frame = _per_query()
    result = compare_scores(frame, samples=500)
    assert result.baseline == "lexical"
    summary = result.summary.set_index(["measure", "run"])
    tests = result.comparisons.set_index(["measure", "run"])
    for measure in MEASURES:
        wide = _wide(frame, measure)
        for run in ["lexical", "vector", "hybrid"]:
            assert summary.loc[(measure, run), "mean"] == pytest.approx(wide[run].mean())
        for run in ["vector", "hybrid"]:
            row = tests.loc[(measure, run)]
            diff = wide[run] - wide["lexical"]
            assert row["difference"] == pytest.approx(diff.mean())
            assert row["relative_change"] == pytest.approx(
                100 * diff.mean() / wide["lexical"].mean()
            )
            assert row["effect_size"] == pytest.approx(diff.mean() / diff.std(ddof=1))
            assert row["p_value"] == pytest.approx(
                sps.ttest_rel(wide[run], wide["lexical"]).pvalue, rel=1e-12
            )
    # Holm over all 8 comparisons of the stratum (the adjustment itself is hand-checked
    # in test_stats).
    assert result.comparisons["p_adjusted"].to_numpy() == pytest.approx(
        stats.adjust(result.comparisons["p_value"].to_numpy(), "holm")
    )
    assert (
        result.comparisons["significant"].tolist()
        == (result.comparisons["p_adjusted"] < 0.05).tolist()
    )


def test_intervals_are_the_shared_bootstrap_of_the_columns():
    frame = _per_query()
    result = compare_scores(frame, samples=800, seed=5, confidence=0.9)
    wide = _wide(frame, "MAP@100")
    boot = stats.bootstrap_means(wide[["lexical", "hybrid"]].to_numpy(), 800, 5)
    low, high = stats.percentile_interval(boot, 0.9)
    row = result.summary.set_index(["measure", "run"]).loc[("MAP@100", "hybrid")]
    # hybrid and lexical share resamples with every other column: the same draws
    assert (row["ci_low"], row["ci_high"]) == pytest.approx((low[1], high[1]), rel=1e-12)
    diff_low, diff_high = stats.percentile_interval(boot[:, 1] - boot[:, 0], 0.9)
    test = result.comparisons.set_index(["measure", "run"]).loc[("MAP@100", "hybrid")]
    assert (test["ci_low"], test["ci_high"]) == pytest.approx((diff_low, diff_high), rel=1e-9)


def _thirds(runs: dict[str, list[int]]) -> pd.DataFrame:
    """P@3-like values (relevant documents / 3) per topic, one list per run."""
    rows = [(run, f"t{i:02d}", "P@3", k / 3) for run, ks in runs.items() for i, k in enumerate(ks)]
    return pd.DataFrame(rows, columns=["run", "qid", "measure", "value"])


@pytest.mark.parametrize("seed", range(40))
def test_an_interval_holds_its_own_estimate_when_the_values_do_not_vary(seed):
    # a mean sums its topics in order (as trec_eval does), the resamples exactly: ten
    # topics of 1/3 had the mean 0.33333333333333337 and the interval [0.3333333333333333,
    # 0.3333333333333333], and a difference of 1/3 on every topic fell outside its interval
    rng = np.random.default_rng(seed)
    ks = rng.integers(0, 3, int(rng.integers(2, 30))).tolist()
    runs = {"base": ks, "plus": [k + 1 for k in ks], "flat": [1] * len(ks)}
    result = compare_scores(_thirds(runs), samples=200, seed=seed)
    for row in result.summary.itertuples():
        assert row.ci_low <= row.mean <= row.ci_high, row
        assert row.normal_low <= row.mean <= row.normal_high, row
    for row in result.comparisons.itertuples():
        assert row.ci_low <= row.difference <= row.ci_high, row
    flat = result.summary.set_index("run").loc["flat"]
    assert flat["ci_high"] - flat["ci_low"] <= 1e-15  # still the point: [d, d]


def test_an_interval_that_leaves_out_its_estimate_by_more_than_rounding_is_left():
    low, high = enclosing(np.array([0.5, 0.5]), np.array([0.5 + 1e-12, 0.6]),
                                np.array([0.7, 0.7]), np.array([0.5, 0.5]))  # fmt: skip
    assert low.tolist() == [0.5, 0.6] and high.tolist() == [0.7, 0.7]


@pytest.mark.parametrize("test", ["bootstrap", "randomization"])
def test_resampling_tests_repeat_with_a_seed_and_change_with_another(test):
    frame = _per_query(n=25)
    first = compare_scores(frame, test=test, samples=400, seed=1)
    again = compare_scores(frame, test=test, samples=400, seed=1)
    other = compare_scores(frame, test=test, samples=400, seed=2)
    assert first.comparisons.equals(again.comparisons)
    assert first.summary.equals(again.summary)
    assert not first.comparisons["p_value"].equals(other.comparisons["p_value"])
    assert not first.summary["ci_low"].equals(other.summary["ci_low"])
    assert first.settings["seed"] == 1 and first.settings["samples"] == 400


@pytest.mark.parametrize("test", stats.TESTS)
def test_p_values_computed_a_few_pairs_at_a_time_are_the_same(monkeypatch, test):
    """The pairs' p-values are computed in blocks (bounded memory): any block size gives
    the same numbers."""
    frame = _per_query(n=25)
    whole = compare_scores(frame, test=test, samples=300, seed=3)
    # the pairs' p-values (stats) and their intervals (resampling), each in its blocks
    monkeypatch.setattr(stats, "PAIRS", 1)
    monkeypatch.setattr(resampling, "PAIRS", 1)
    blocked = compare_scores(frame, test=test, samples=300, seed=3)
    assert whole.pairs.equals(blocked.pairs) and whole.comparisons.equals(blocked.comparisons)


def test_bootstrap_and_randomization_p_values_come_from_stats():
    frame = _per_query(n=20)
    wide = _wide(frame, "nDCG@10")
    diff = (wide["vector"] - wide["lexical"]).to_numpy()
    result = compare_scores(frame, test="randomization", samples=300, seed=4)
    row = result.comparisons.set_index(["measure", "run"]).loc[("nDCG@10", "vector")]
    assert row["p_value"] == stats.randomization_test(diff, 300, 4)[0]
    # the bootstrap test's p, from resamples drawn one at a time (stream of the report)
    result = compare_scores(frame, test="bootstrap", samples=300, seed=4)
    streams = result.settings["random_streams"]["bootstrap"]
    tests = result.comparisons.set_index(["measure", "run"])
    for measure in MEASURES:
        wide = _wide(frame, measure)[["lexical", "vector", "hybrid"]].to_numpy()
        boot = _naive_bootstrap(wide, 300, streams)
        for r, run in [(1, "vector"), (2, "hybrid")]:
            observed = (wide[:, r] - wide[:, 0]).mean()
            shifted = boot[:, r] - boot[:, 0] - observed
            expected = (np.sum(np.abs(shifted) >= abs(observed) - 1e-12) + 1) / 301
            assert tests.loc[(measure, run), "p_value"] == expected, (measure, run)


def test_missing_topics_count_as_zero_by_default():
    frame = _per_query(n=10, skip={"vector": ["q03", "q07"]})
    qrels_topics = [f"q{i:02d}" for i in range(10)] + ["q99"]
    result = compare_scores(frame, queries=qrels_topics, samples=200)
    assert result.missing == {
        "lexical": ["q99"],
        "vector": ["q03", "q07", "q99"],
        "hybrid": ["q99"],
    }
    assert result.queries == qrels_topics
    wide = _wide(frame, "nDCG@10").reindex(qrels_topics).fillna(0.0)
    summary = result.summary.set_index(["measure", "run"])
    assert summary.loc[("nDCG@10", "vector"), "mean"] == pytest.approx(wide["vector"].mean())
    assert result.settings["missing"] == "zero"


def test_missing_topics_can_be_dropped():
    frame = _per_query(n=10, skip={"vector": ["q03", "q07"]})
    result = compare_scores(
        frame, queries=[f"q{i:02d}" for i in range(12)], missing="drop", samples=200
    )
    assert len(result.queries) == 8 and "q03" not in result.queries
    wide = _wide(frame, "nDCG@10").dropna()
    summary = result.summary.set_index(["measure", "run"])
    assert summary.loc[("nDCG@10", "lexical"), "mean"] == pytest.approx(wide["lexical"].mean())
    assert summary["queries"].eq(8).all()


def test_no_topic_to_pair_the_runs_on_exits_7_as_trec_eval_without_a_topic(tmp_path, capsys):
    # it exited 1, a usage error; power, agree and similarity exit 7 in the same case
    from trecbench.cli import run as main

    (tmp_path / "q").write_text("q1 0 d1 1\nq3 0 d5 1\n")
    (tmp_path / "q1").write_text("q1 0 d1 1\n")
    (tmp_path / "q3").write_text("q3 0 d5 1\n")
    (tmp_path / "m.run").write_text("q1 Q0 d1 1 3 m\n")
    (tmp_path / "o.run").write_text("q3 Q0 d5 1 3 o\n")
    m, o = str(tmp_path / "m.run"), str(tmp_path / "o.run")
    dropped = ["compare", str(tmp_path / "q"), m, o, "-m", "P@1", "--missing", "drop"]
    own_qrels = ["compare", "--run-qrels", m, str(tmp_path / "q1")]
    own_qrels += ["--run-qrels", o, str(tmp_path / "q3"), "-m", "P@1"]
    for args, said in [
        (dropped, "no topic is evaluated in every run (missing='drop')"),
        (own_qrels, "the runs' qrels share no topic: nothing can be paired"),
    ]:
        assert main(args) == 7
        captured = capsys.readouterr()
        assert captured.out == "" and captured.err == f"trecbench: {said}\n"


def test_the_header_counts_the_topics_a_run_s_own_qrels_leave_unpaired(tmp_path, capsys):
    # it said "1 topic(s) of its qrels are not judged for every run"
    from trecbench.cli import run as main

    (tmp_path / "qm").write_text("q1 0 d1 1\nq2 0 d1 1\nq3 0 d1 1\n")
    (tmp_path / "qo").write_text("q1 0 d1 1\nq4 0 d1 1\n")
    (tmp_path / "m.run").write_text("q1 Q0 d1 1 3 m\n")
    (tmp_path / "o.run").write_text("q1 Q0 d1 1 3 o\n")
    args = ["compare", "-m", "P@1", "--samples", "40"]
    for run in ("m", "o"):
        args += ["--run-qrels", str(tmp_path / f"{run}.run"), str(tmp_path / f"q{run}")]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "m: 2 topics of its qrels are not judged for every run, left out: q2, q3\n" in out
    assert "o: 1 topic of its qrels is not judged for every run, left out: q4\n" in out


def test_strata_are_analysed_like_the_whole():
    frame = _per_query(n=24)
    strata = {f"q{i:02d}": ("easy" if i % 3 else "hard") for i in range(24)}
    result = compare_scores(frame, samples=300, seed=3, strata=strata, group_by="difficulty")
    # a macro section (every stratum counts the same) comes before the strata
    labels = ["all", "difficulty:macro", "difficulty=easy", "difficulty=hard"]
    assert result.stratum_labels == labels
    hard = [qid for qid, value in strata.items() if value == "hard"]
    alone = compare_scores(frame[frame["qid"].isin(hard)], samples=300, seed=3)
    got = result.part(result.comparisons, "difficulty=hard").reset_index(drop=True)
    expected = alone.comparisons
    assert got["p_adjusted"].to_numpy() == pytest.approx(expected["p_adjusted"].to_numpy())
    got_summary = result.part(result.summary, "difficulty=hard").reset_index(drop=True)
    assert got_summary["ci_low"].to_numpy() == pytest.approx(alone.summary["ci_low"].to_numpy())
    assert got_summary["queries"].eq(8).all()


def test_report_matches_its_schema_and_holds_every_number():
    frame = _per_query(n=12, skip={"hybrid": ["q05"]})
    strata = {f"q{i:02d}": ("de" if i % 2 else "en") for i in range(12)}
    result = compare_scores(
        frame, samples=200, test="bootstrap", strata=strata, group_by="language"
    )
    report = json.loads(json.dumps(result.report(), allow_nan=False))
    validate_against_schema(report, "benchmark_report")
    sections = ["all", "language:macro", "language=de", "language=en"]
    assert [r["stratum"] for r in report["results"]] == sections
    assert [r["kind"] for r in report["results"]] == ["all", "macro", "stratum", "stratum"]
    assert report["results"][2]["value"] == "de"
    assert len(report["results"][0]["comparisons"]) == 2 * len(MEASURES)
    assert report["per_query"]["hybrid"]["q05"] == {m: 0.0 for m in MEASURES}
    assert report["runs"][2] == {
        "name": "hybrid",
        "baseline": False,
        "input": None,
        "qrels": None,
        "missing_queries": ["q05"],
        "unpaired_topics": [],
        "unjudged": None,
    }
    assert report["strata"] == {"language": strata}
    assert report["settings"]["test"] == "bootstrap" and report["settings"]["seed"] == 0


def test_markdown_table_bold_best_markers_and_legend():
    result = compare_scores(_per_query(n=40), samples=500)
    text = result.markdown()
    assert "### Ranking quality" in text and "### Recall and hit rate" in text
    assert "| Measure | lexical (baseline) | vector | hybrid | Best run |" in text
    ndcg = next(line for line in text.splitlines() if line.startswith("| nDCG@10 |"))
    cells = [cell.strip() for cell in ndcg.strip("|").split("|")]
    row = result.summary.set_index(["measure", "run"]).loc[("nDCG@10", "hybrid")]
    # hybrid is 0.3 better on average over 40 topics: best, bold and highly significant
    assert cells[3].startswith(f"**{row['mean']:.4f}** [{row['ci_low']:.4f}, {row['ci_high']:.4f}]")
    assert cells[3].endswith("▲***") and cells[4] == "hybrid"
    assert "**" not in cells[1]
    assert "Legend:" in text and "adjusted p < 0.05" in text


@pytest.mark.parametrize(
    "test, correction, marked",
    [("t", "none", "p"), ("t", "holm", "adjusted p"), ("t", "bh", "adjusted p"),
     ("tukey", None, "adjusted p")],
)  # fmt: skip
def test_the_legends_say_adjusted_p_only_where_a_correction_adjusts_it(test, correction, marked):
    # --correction none: the legend said "adjusted p < 0.05" beside "p-values not adjusted"
    result = compare_scores(_per_query(n=12), samples=100, test=test, correction=correction)
    for text in (result.render("table"), result.markdown()):
        legend = text[text.index("Legend:") :]
        assert f"baseline, {marked} < 0.05 (" in " ".join(legend.split())
        assert ("adjusted p <" in text) == (marked != "p")
    latex = result.render("latex")  # its captions: the all-pairs letters
    assert f"measures, {marked} \\textless{{}} 0.05)" in latex or test == "tukey"
    assert ("adjusted p \\textless" in latex) == (marked != "p")


def test_the_legends_print_an_odd_significance_level_as_set():
    # --confidence 0.987654321: the legends said "adjusted p < 0.0123457" (6 digits of
    # 0.012345679, the level the tests use and the JSON records), < 0.00246914, < 0.000246914
    result = compare_scores(_per_query(n=12), samples=500, confidence=0.987654321)
    assert result.statistics.alpha == 0.012345679
    for text in (result.render("table"), result.markdown()):
        legend = " ".join(text[text.index("Legend:") :].split())
        assert "adjusted p < 0.012345679 (" in legend
        assert "< 0.0024691358 (" in legend and "< 0.00024691358 (" in legend
        assert "adjusted p < 0.012345679)" in legend  # the all-pairs letters'


def test_the_star_levels_are_the_decimal_alphas_fifth_and_fiftieth():
    # --confidence 0.93: "< 0.014000000000000002 (**)", the double's 0.07/5, above which a
    # p of 0.014 (14 of 999 resamples) was given two stars: p < alpha/5 read 0.014 < 0.014
    from trecbench.renderers.comparison_cells import star_levels, star_text

    assert star_levels(0.07) == (0.07, 0.014, 0.0014) and star_text(0.014, 0.07) == "*"
    assert star_text(0.0139, 0.07) == "**" and star_levels(0.05) == (0.05, 0.01, 0.001)
    result = compare_scores(_per_query(n=12), samples=500, confidence=0.93)
    legend = " ".join(result.markdown()[result.markdown().index("Legend:") :].split())
    assert "< 0.07 (\\*), < 0.014 (\\*\\*), < 0.0014 (\\*\\*\\*)" in legend


@pytest.mark.parametrize(
    "command",
    [["compare", "--samples", "100"], ["power"], ["agree", "-m", "map"],
     ["fuse", "-o", "OUT", "--qrels", "Q", "--optimize"]],
)  # fmt: skip
def test_a_measure_of_other_judgments_is_refused_before_a_run_is_read(command, tmp_path, capsys):
    # "P_avgjg: trec_eval cannot calculate this measure from -R qrels judgments (exit 4)",
    # after the runs were read, naming -R, an option none of these has
    from conftest import ROOT

    from trecbench.cli import run

    qrels = str(ROOT / "data" / "hpo-rtask" / "hpo-rtask.qrels")
    (tmp_path / "bad.run").write_text("not a run\n")
    runs = [str(ROOT / "data" / "hpo-rtask" / "lexical.run"), str(tmp_path / "bad.run")]
    places = {"Q": qrels, "OUT": str(tmp_path / "f.run")}
    given = [places.get(part, part) for part in command[1:]]
    argv = [command[0], *given, "P_avgjg"] if command[0] == "fuse" else [
        command[0], *given, "-m", "P_avgjg", qrels]  # fmt: skip
    assert run([*argv, *runs]) == 1
    said = capsys.readouterr().err
    assert said.startswith(
        "trecbench: P_avgjg: trec_eval computes it from judgment groups (-R qrels_jg) only, "
    )
    assert said.endswith(" computed from standard qrels\n")


@pytest.mark.parametrize(
    "correction, heading", [("none", "p (no correction)"), ("holm", "p adjusted")]
)
def test_a_column_of_p_values_nothing_adjusts_is_not_headed_adjusted(correction, heading):
    # --correction none: the Welch view (text, Markdown) and the page's summary headed a
    # column of the p-values as they are "p adjusted", beside "p-values not adjusted"
    pytest.importorskip("jinja2")
    result = compare_scores(_per_query(n=12), samples=100, correction=correction)
    table, markdown = result.render("table"), result.markdown()
    assert re.search(rf"Welch t +df +p +{re.escape(heading)}\n", table)
    assert f"| Welch t | df | p | {heading} |" in markdown
    assert ("p adjusted" in table + markdown) == (correction != "none")
    page = result.to_html(depth=0)
    assert re.search(rf">p</th><th [^>]*>{re.escape(heading)}</th>", page)
    assert (">p adjusted</th>" in page) == (correction != "none")


def test_a_single_run_gets_intervals_only():
    frame = _per_query(n=8)
    result = compare_scores(frame[frame["run"] == "vector"], samples=100)
    assert result.comparisons.empty and len(result.summary) == len(MEASURES)
    assert "Differences against" not in result.markdown()
    validate_against_schema(result.report(), "benchmark_report")


def test_outputs_are_written_without_plots(tmp_path):
    # (plots are checked once, on the bundled demo: rendering is the slow part)
    result = compare_scores(_per_query(n=15), samples=200)
    written = result.write(tmp_path / "out")  # plots only when asked
    names = ["BenchmarkReport.json", "BenchmarkComparison.md", "AllPairs.tex", "report.html"]
    assert [path.name for path in written] == names
    assert sorted(path.name for path in (tmp_path / "out").iterdir()) == sorted(
        path.name for path in written
    )
    report = json.loads((tmp_path / "out" / "BenchmarkReport.json").read_text())
    validate_against_schema(report, "benchmark_report")
    assert (tmp_path / "out" / "BenchmarkComparison.md").read_text() == result.markdown()


def test_progress_counts_up_to_the_total():
    calls = []
    compare_scores(
        _per_query(n=10),
        samples=600,
        test="randomization",
        strata={f"q{i:02d}": str(i % 2) for i in range(10)},
        progress=lambda done, total: calls.append((done, total)),
    )
    done = [d for d, _ in calls]
    # all topics, the macro section and two strata, each bootstrap then randomisation
    assert done == sorted(done) and calls[-1] == (4 * 2 * 600, 4 * 2 * 600)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"baseline": "bm25"}, "baseline 'bm25' is not one of the runs"),
        ({"test": "anova"}, "unknown test"),
        ({"correction": "sidak"}, "unknown correction"),
        ({"missing": "ignore"}, "unknown missing policy"),
        ({"samples": 0}, "samples must be a positive integer"),
        ({"confidence": 95}, "confidence must be between 1e-12 and 1 - 1e-12"),
    ],
)
def test_bad_options_are_usage_errors(options, message):
    with pytest.raises(UsageError, match=message):
        compare_scores(_per_query(n=5), **options)


@pytest.mark.parametrize(
    ("value", "shown"), [(np.nan, "undefined"), (np.inf, "inf"), (-np.inf, "-inf")]
)
def test_undefined_or_infinite_values_are_usage_errors(value, shown):
    # (an infinity must not be averaged as the largest float, as np.nan_to_num would)
    frame = _per_query(n=5)
    frame.loc[7, "value"] = value
    qid, measure = frame.loc[7, "qid"], frame.loc[7, "measure"]
    with pytest.raises(UsageError, match=f"run 'lexical': {measure} is {shown} for '{qid}'"):
        compare_scores(frame)


def test_cli_choices_and_defaults_are_the_library_s():
    import inspect

    from conftest import option_choices

    from trecbench.cli.compare import _CHOICES
    from trecbench.cli.compare import compare as command
    from trecbench.comparison import (
        CORRECTION_NAMES,
        MISSING,
        MOVERS,
        TEST_NAMES,
        compare,
        plot_files,
    )
    from trecbench.plots import ORDERS
    from trecbench.renderers.comparison_text import FORMATS

    assert option_choices(command, "test") == stats.TESTS
    assert option_choices(command, "correction") == stats.CORRECTIONS
    assert _CHOICES == {
        "missing": MISSING,
        "output_format": FORMATS,
        "plot_order": ORDERS,
    }
    assert tuple(TEST_NAMES) == stats.TESTS and tuple(CORRECTION_NAMES) == stats.CORRECTIONS
    defaults = {param.name: param.default for param in command.params}
    library = inspect.signature(compare).parameters
    for name in ("test", "samples", "seed", "confidence", "missing", "movers"):
        assert defaults[name] == library[name].default, name
    # the library's correction is unset unless given (refused with a family-wise test),
    # Holm then; the CLI passes its default as unset (cli.shared_options.given_correction)
    assert (defaults["correction"], library["correction"].default) == (
        stats.DEFAULT_CORRECTION,
        None,
    )
    assert defaults["movers"] == MOVERS
    assert defaults["unjudged_threshold"] == library["unjudged_threshold"].default
    assert defaults["plot_order"] == inspect.signature(plot_files).parameters["order"].default


# --- end to end, against trec_eval's own outputs -------------------------------------

# trec_eval name as requested -> (display name in compare's tables, trec_eval output label)
TREC_MEASURES = {
    "recip_rank": ("recip_rank", "recip_rank"),
    "P.10": ("P@10", "P_10"),
    "recall.100": ("Recall@100", "recall_100"),
    "ndcg_cut.10": ("nDCG@10", "ndcg_cut_10"),
    "map_cut.100": ("MAP@100", "map_cut_100"),
    "success.10": ("HitRate@10", "success_10"),
}


def _trec_eval_all(path) -> dict[str, float]:
    """The ``all`` lines of a trec_eval output: label -> value."""
    labels = {label for _, label in TREC_MEASURES.values()}
    values = {}
    for line in path.read_text().splitlines():
        name, qid, value = line.split()
        if qid == "all" and name in labels:
            values[name] = float(value)
    return values


def test_means_reproduce_trec_eval_with_and_without_c(trec_eval_suite, monkeypatch):
    # results.trunc lacks topic 302: with missing="zero" its means are trec_eval -c's
    # (out.test.aqc); results.test covers all topics (out.test.a).
    import trecbench
    from trecbench import report

    def read_again(path, kind):
        raise AssertionError(f"{path} read again to count it")

    # the inputs' lines, topics and tags are those counted while scoring
    with monkeypatch.context() as patch:
        patch.setattr(report, "_streamed_counts", read_again)
        result = trecbench.compare(
            trec_eval_suite / "qrels.test",
            {"full": trec_eval_suite / "results.test", "trunc": trec_eval_suite / "results.trunc"},
            list(TREC_MEASURES),
            samples=200,
        )
    counted = [{key: v for key, v in i.items() if key != "name"} for i in result.inputs]
    assert counted == [report.input_record(i["path"], i["kind"]) for i in result.inputs]
    assert [i.get("name") for i in result.inputs] == [None, "full", "trunc"]  # runs' names
    assert result.missing == {"full": [], "trunc": ["302"]}
    assert sorted(result.measures) == sorted(d for d, _ in TREC_MEASURES.values())
    means = result.summary.set_index(["run", "measure"])["mean"]
    for run, output in [("full", "out.test.a"), ("trunc", "out.test.aqc")]:
        expected = _trec_eval_all(trec_eval_suite / output)
        got = {label: round(float(means[(run, d)]), 4) for d, label in TREC_MEASURES.values()}
        assert got == expected
    assert [record["kind"] for record in result.inputs] == ["qrels", "run", "run"]
    assert all(len(record["sha256"]) == 64 for record in result.inputs)


def test_module_and_function_are_both_callable(trec_eval_suite):
    import trecbench
    import trecbench.comparison  # the module imported: trecbench.compare stays the function

    result = trecbench.compare(
        trec_eval_suite / "qrels.test", trec_eval_suite / "results.test", ["P.10"], samples=50
    )
    assert result.runs == ["results.test"] and result.comparisons.empty


def test_cli_writes_report_and_markdown(trec_eval_suite, tmp_path):
    from click.testing import CliRunner

    from trecbench.cli import cli
    from trecbench.cli import compare as _  # noqa: F401  (registers the command)

    out = tmp_path / "cmp"
    args = [
        str(trec_eval_suite / "qrels.test"),
        str(trec_eval_suite / "results.test"),
        "--names",
        f"trunc={trec_eval_suite / 'results.trunc'}",
        "-m",
        "P.10",
        "-m",
        "ndcg_cut.10",
        "--test",
        "randomization",
        "--samples",
        "300",
        "--seed",
        "9",
        "-o",
        str(out),
        "--format",
        "markdown",
    ]
    done = CliRunner().invoke(cli, ["compare", *args])
    assert done.exit_code == 0, done.output
    assert "| Measure | results.test (baseline) | trunc | Best run |" in done.output
    report = json.loads((out / "BenchmarkReport.json").read_text())
    validate_against_schema(report, "benchmark_report")
    assert report["settings"]["seed"] == 9 and report["settings"]["test"] == "randomization"
    assert report["runs"][1]["missing_queries"] == ["302"]
    assert {p.name for p in out.iterdir()} == {
        "BenchmarkReport.json",
        "BenchmarkComparison.md",
        "AllPairs.tex",
        "report.html",
    }


def test_cli_error_is_one_line_and_writes_nothing(trec_eval_suite, tmp_path):
    import subprocess
    import sys

    out = tmp_path / "cmp"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "trecbench",
            "compare",
            str(trec_eval_suite / "qrels.test"),
            str(trec_eval_suite / "results.test"),
            "--baseline",
            "bm25",
            "-o",
            str(out),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        "trecbench: baseline 'bm25' is not one of the runs: results.test"
    ]
    assert not out.exists()


def test_stderr_progress_draws_a_percentage_once_the_delay_passed(capsys):
    from trecbench.cli.progress import StderrProgress

    quiet = StderrProgress("resampling", delay=60)
    quiet(5, 10)
    quiet.close()
    assert capsys.readouterr().err == ""
    shown = StderrProgress("resampling", delay=0, interval=0, unit=" samples")
    shown(5, 10)
    shown(10, 10)
    shown.close()
    err = capsys.readouterr().err
    assert "resampling:  50%" in err and "| 5/10 [" in err  # a bar with its ETA and rate
    assert "resampling: 100%" in err and "| 10/10 [" in err and " samples/s]" in err
    assert err.endswith("\n")


def test_in_memory_runs_are_named_and_not_recorded_as_files(trec_eval_suite):
    import trecbench
    from trecbench.inputs import parse_run, read_run

    result = trecbench.compare(
        trec_eval_suite / "qrels.test",
        [read_run(trec_eval_suite / "results.test"), parse_run(trec_eval_suite / "results.trunc")],
        ["P.10"],
        samples=50,
    )
    assert result.runs == ["run1", "run2"] and result.run_inputs == {"run1": None, "run2": None}
    assert [record["kind"] for record in result.inputs] == ["qrels"]
    # one file twice is refused as given twice, before any naming (it was "two runs are
    # named 'results.test'", whose advice, followed, led to that refusal)
    with pytest.raises(UsageError, match="results.test: the same run is given twice"):
        trecbench.compare(trec_eval_suite / "qrels.test", [trec_eval_suite / "results.test"] * 2)


def test_strata_from_a_sidecar(trec_eval_suite, tmp_path):
    import trecbench

    sidecar = tmp_path / "cases.sidecar.json"
    queries = {"301": {"difficulty": "easy"}, "302": {"difficulty": "hard"}, "303": {}}
    sidecar.write_text(json.dumps({"strata": {"fields": ["difficulty"], "queries": queries}}))
    result = trecbench.compare(
        trec_eval_suite / "qrels.test",
        [trec_eval_suite / "results.test", trec_eval_suite / "results.trunc"],
        ["P.10"],
        samples=100,
        strata=sidecar,
        group_by="difficulty",
    )
    # a topic without the field falls in "(none)", as in score's grouped averages
    assert result.stratum_labels == [
        "all",
        "difficulty:macro",
        "difficulty=(none)",
        "difficulty=easy",
        "difficulty=hard",
    ]
    assert result.strata == {"difficulty": {"301": "easy", "302": "hard", "303": "(none)"}}
    assert result.inputs[-1]["kind"] == "strata"
    hard = result.part(result.summary, "difficulty=hard").set_index("run")["mean"]
    per_query = result.per_query.set_index(["run", "qid"])["value"]
    assert hard["results.trunc"] == per_query[("results.trunc", "302")] == 0.0
    assert hard["results.test"] == per_query[("results.test", "302")]
    # a sidecar alone is read for the qrels it describes as complete: no strata compared
    alone = trecbench.compare(
        trec_eval_suite / "qrels.test", trec_eval_suite / "results.test", strata=sidecar
    )
    assert alone.strata is None or alone.strata == {}


RUNS = ("tfidf-word", "tfidf-char", "tfidf-word-parents")


def test_bundled_demo_runs_get_tables_and_plots(tmp_path):
    # The bundled HPO demo (runs/, qrels/, as scripts/demo.sh compares them), per language.
    from click.testing import CliRunner

    from trecbench.cli import _register, cli

    root = Path(__file__).resolve().parents[1]
    _register()
    out = tmp_path / "cmp"
    runs = [str(root / "runs" / f"{run}.run") for run in RUNS]
    done = CliRunner().invoke(
        cli,
        ["compare", str(root / "qrels" / "hpo-demo.qrels"), *runs]
        + ["--strata", str(root / "qrels" / "hpo-demo.sidecar.json"), "--group-by", "language"]
        + ["--samples", "500", "-o", str(out), "--plots"],
    )
    assert done.exit_code == 0, done.output
    text = (out / "BenchmarkComparison.md").read_text()
    assert (
        "| Measure | tfidf-word (baseline) | tfidf-char | tfidf-word-parents | Best run |" in text
    )
    assert "## language = de (28 topics)" in text and "## language = en (28 topics)" in text
    for measure in ("nDCG@10", "MAP@100", "MRR@10", "Recall@50", "Recall@100", "HitRate@10"):
        assert f"| {measure} | " in text
    for png in ("means.png", "differences.png"):
        assert (out / png).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    for svg in ("means.svg", "differences.svg"):
        root = ET.parse(out / svg).getroot()
        assert root.tag.endswith("svg")
    validate_against_schema(
        json.loads((out / "BenchmarkReport.json").read_text()), "benchmark_report"
    )


def _naive_bootstrap(matrix: np.ndarray, samples: int, stream: list[int]) -> np.ndarray:
    """Resampled column means, one resample at a time: draw ``n`` topic indices with
    replacement from ``default_rng(stream)`` (the report's ``settings.random_streams``)
    and average the drawn rows — no counts, no matrix product."""
    n = matrix.shape[0]
    draws = np.random.default_rng(stream).integers(0, n, size=(samples, n))
    return np.array([matrix[rows].mean(axis=0) for rows in draws])


def _holm(pvalues: list[float]) -> list[float]:
    """Holm's step-down adjustment, written out: the i-th smallest (0-based) times m - i,
    never below the one before, capped at 1."""
    order = sorted(range(len(pvalues)), key=pvalues.__getitem__)
    adjusted, running = [0.0] * len(pvalues), 0.0
    for i, k in enumerate(order):
        running = max(running, min(1.0, (len(pvalues) - i) * pvalues[k]))
        adjusted[k] = running
    return adjusted


# --- evaluation options, manifest, direction of "better", per-stratum plots ----------------


def _invoke(command: str, argv: list[str], cwd: Path | None = None, monkeypatch=None):
    """``trecbench COMMAND ARGV`` in-process: the click Result."""
    from click.testing import CliRunner

    from trecbench.cli import _register, cli

    _register()
    if cwd is not None:
        monkeypatch.chdir(cwd)
    return CliRunner().invoke(cli, [command, *argv])


def _sha(path: Path) -> str:
    import hashlib

    return hashlib.sha256(path.read_bytes()).hexdigest()


OPTION_MEASURES = ["-m", "P.10", "-m", "map", "-m", "recall.100"]


def _compare_means(suite: Path, out: Path, flags: list[str]) -> tuple[dict, dict]:
    runs = [str(suite / "results.test"), str(suite / "results.trunc")]
    done = _invoke(
        "compare",
        [str(suite / "qrels.rel_level"), *runs, *OPTION_MEASURES, *flags]
        + ["--samples", "40", "--quiet", "-o", str(out)],
    )
    assert done.exit_code == 0, done.output
    report = json.loads((out / "BenchmarkReport.json").read_text())
    validate_against_schema(report, "benchmark_report")
    (overall,) = [part for part in report["results"] if part["stratum"] == "all"]
    means = {(row["run"], row["measure"]): row["mean"] for row in overall["summary"]}
    return means, report


def _score_means(suite: Path, flags: list[str]) -> dict:
    runs = [str(suite / "results.test"), str(suite / "results.trunc")]
    done = _invoke(
        "score",
        ["-c", "--format", "json", "--labels", "display", *OPTION_MEASURES, *flags]
        + [str(suite / "qrels.rel_level"), *runs],  # compare's names: display names
    )
    assert done.exit_code == 0, done.output
    document = json.loads(done.stdout)
    return {
        (Path(run["run"]).name, measure): value
        for run in document["runs"]
        for measure, value in run["aggregates"].items()
    }


def test_evaluation_options_equal_score_and_move_the_numbers(trec_eval_suite, tmp_path):
    # compare's default missing="zero" averages over every qrels topic: score -c.
    plain, _ = _compare_means(trec_eval_suite, tmp_path / "plain", [])
    assert plain == pytest.approx(_score_means(trec_eval_suite, []), rel=1e-15)
    runs = ["results.test", "results.trunc"]
    cases = [
        # a higher relevance level leaves fewer relevant documents: precision drops
        (["-l", "2"], "P@10", -1, {"relevance_level": 2}),
        # only the first 5 documents: recall at 100 drops
        (["-M", "5"], "Recall@100", -1, {"max_docs": 5}),
        # unjudged documents dropped first: judged relevant ones move up, precision rises
        (["-J"], "P@10", +1, {"judged_only": True}),
    ]
    for flags, measure, sign, recorded in cases:
        means, report = _compare_means(trec_eval_suite, tmp_path / flags[0], flags)
        assert means == pytest.approx(_score_means(trec_eval_suite, flags), rel=1e-15), flags
        moved = [sign * (means[(run, measure)] - plain[(run, measure)]) for run in runs]
        assert min(moved) >= 0 and max(moved) > 0, (flags, moved)
        # every flag, as score's report records them (EvalSettings.record), with the -c
        # the means count absent topics by (--missing zero): they are score -c's
        expected = EvalSettings().record() | {"complete": True}
        assert report["evaluation"] == expected | recorded
        assert "ontology" not in report
        text = (tmp_path / flags[0] / "BenchmarkComparison.md").read_text()
        # the -c the numbers use (compare's --missing zero), in score's record's order
        said = " ".join([*flags, "-c"] if flags[0] == "-l" else ["-c", *flags])
        assert f"- Scored as trecbench score {said} scores\n" in text


def test_cli_manifest_lists_inputs_and_outputs_with_checksums(trec_eval_suite, tmp_path):
    from trecbench.report import MANIFEST_SCHEMA

    sidecar = tmp_path / "topics.sidecar.json"
    queries = {"301": {"difficulty": "easy"}, "302": {"difficulty": "hard"}, "303": {}}
    sidecar.write_text(json.dumps({"strata": {"fields": ["difficulty"], "queries": queries}}))
    out, manifest_path = tmp_path / "cmp", tmp_path / "manifest.json"
    qrels, runs = trec_eval_suite / "qrels.test", ["results.test", "results.trunc"]
    done = _invoke(
        "compare",
        [str(qrels), *(str(trec_eval_suite / run) for run in runs), "-m", "P.10"]
        + ["--strata", str(sidecar), "--group-by", "difficulty", "--samples", "50", "--quiet"]
        + ["-o", str(out), "--plots", "--manifest", str(manifest_path)]
        + ["--meta", "model=bm25", "--meta", "index=snap=1"],
    )
    assert done.exit_code == 0, done.output
    manifest = json.loads(manifest_path.read_text())
    validate_against_schema(manifest, MANIFEST_SCHEMA)
    report = json.loads((out / "BenchmarkReport.json").read_text())
    validate_against_schema(report, "benchmark_report")
    assert report["experiment_id"] == manifest["experiment_id"]
    assert report["meta"] == manifest["meta"] == {"model": "bm25", "index": "snap=1"}
    assert [(i["kind"], Path(i["path"]).name, i["sha256"]) for i in manifest["inputs"]] == [
        ("qrels", "qrels.test", _sha(qrels)),
        *[("run", run, _sha(trec_eval_suite / run)) for run in runs],
        ("strata", sidecar.name, _sha(sidecar)),
    ]
    assert report["inputs"] == manifest["inputs"]
    # every output with the checksum and size of the file on disk; nothing else written
    outputs = {Path(o["path"]).name: o for o in manifest["outputs"]}
    assert set(outputs) == {p.name for p in out.iterdir()}
    for name, record in outputs.items():
        assert (
            record["sha256"] == _sha(out / name) and record["size"] == (out / name).stat().st_size
        )
    suffixes = ("", "_difficulty-_none_", "_difficulty-easy", "_difficulty-hard")
    plots = {
        f"{stem}{suffix}.{fmt}"
        for stem in ("means", "differences")
        for fmt in ("png", "svg")
        for suffix in suffixes
    } | {"means_difficulty_macro.png", "means_difficulty_macro.svg"}
    plots |= {"precision_recall.png", "precision_recall.svg"}  # over all topics
    reports = {"BenchmarkReport.json", "BenchmarkComparison.md", "AllPairs.tex", "report.html"}
    assert set(outputs) == reports | plots
    kinds = {"report", "markdown", "latex", "html", "plot"}
    assert {o["kind"] for o in outputs.values()} == kinds
    assert manifest["command"]["argv"][0]  # the command line is recorded


def test_per_stratum_plots_have_safe_distinct_names(monkeypatch):
    from trecbench import plots

    frame = _per_query(n=12)
    frame = frame[frame["measure"] == "nDCG@10"]  # one panel per figure: fewer seconds
    strata = {f"q{i:02d}": ["a b", "a/b", "ok.1"][i % 3] for i in range(12)}
    result = compare_scores(frame, samples=50, strata=strata, group_by="topic set")
    drawn = {}
    real = plots.differences_figure

    def recorded(runs, measures, baseline_values, *args, title, **kwargs):
        drawn[title] = baseline_values.shape[1]  # topics
        return real(runs, measures, baseline_values, *args, title=title, **kwargs)

    monkeypatch.setattr(plots, "differences_figure", recorded)
    files = result.plot_files()
    assert sorted(files) == sorted(
        [
            f"{stem}{suffix}.{fmt}"
            for stem in ("means", "differences")
            for fmt in ("png", "svg")
            for suffix in ("", "_topic_set-a_b", "_topic_set-a_b-2", "_topic_set-ok.1")
        ]
        + ["means_topic_set_macro.png", "means_topic_set_macro.svg"]
    )
    assert all(data.startswith(b"\x89PNG") for name, data in files.items() if name.endswith("png"))
    # a stratum's plots show the stratum's topics only (4 of 12)
    assert files["means_topic_set-ok.1.svg"] != files["means.svg"]
    assert drawn["Per-topic difference against lexical (topic set = ok.1)"] == 4
    assert drawn["Per-topic difference against lexical"] == 12
    single = compare_scores(frame[frame["run"] == "lexical"], samples=40)
    assert sorted(single.plot_files()) == ["means.png", "means.svg"]


def test_nothing_is_written_when_compare_fails(trec_eval_suite, tmp_path, monkeypatch):
    import trecbench
    from trecbench.errors import InputError

    bad = tmp_path / "bad.run"
    bad.write_text("301 Q0 d1 1 abc tag\n")
    out, manifest = tmp_path / "cmp", tmp_path / "m.json"
    args = [str(trec_eval_suite / "qrels.test"), str(trec_eval_suite / "results.test"), str(bad)]
    done = _invoke("compare", [*args, "-o", str(out), "--manifest", str(manifest)])
    assert isinstance(done.exception, InputError)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.run"]

    result = trecbench.compare(
        trec_eval_suite / "qrels.test", trec_eval_suite / "results.test", ["P.10"], samples=40
    )
    out.mkdir()
    (out / "BenchmarkReport.json").write_text("old")
    # a manifest over one of the outputs is refused before anything is written
    message = f"{out / 'BenchmarkReport.json'}: written twice by one command, as manifest and"
    with pytest.raises(UsageError, match=f"^{re.escape(message)} as compare's report$"):
        result.write(out, manifest=out / "BenchmarkReport.json")
    # a failure while the outputs are prepared (here: a plot) replaces nothing

    def broken(figure, fmt):
        raise RuntimeError("no plot")

    monkeypatch.setattr("trecbench.plots.figure_bytes", broken)
    with pytest.raises(RuntimeError):
        result.write(out, plots=True, manifest=manifest)
    assert [p.name for p in out.iterdir()] == ["BenchmarkReport.json"]
    assert (out / "BenchmarkReport.json").read_text() == "old" and not manifest.exists()


def test_maxontsim_comparison_records_the_ontology_and_formula(tmp_path, monkeypatch):
    from test_ontology import OBO

    (tmp_path / "hp.obo").write_text(OBO)
    (tmp_path / "q").write_text("1 0 HP:0000004 1\n2 0 HP:0000003 1\n")
    (tmp_path / "a.run").write_text("1 Q0 HP:0000006 1 0.9 t\n2 Q0 HP:0000002 1 0.9 t\n")
    (tmp_path / "b.run").write_text("1 Q0 HP:0000002 1 0.9 t\n2 Q0 HP:0000003 1 0.9 t\n")
    common = ["q", "a.run", "b.run", "-m", "MaxOntSim@5", "--ontology", "hp.obo"]
    values = {}
    for formula in ("hybrid", "simple_resnik_like"):
        out = f"out-{formula}"
        done = _invoke(
            "compare",
            [*common, "--maxontsim-formula", formula, "--samples", "40", "--quiet"]
            + ["-o", out, "--manifest", f"{out}/manifest.json"],
            tmp_path,
            monkeypatch,
        )
        assert done.exit_code == 0, done.output
        report = json.loads((tmp_path / out / "BenchmarkReport.json").read_text())
        validate_against_schema(report, "benchmark_report")
        sha = _sha(tmp_path / "hp.obo")
        assert report["ontology"]["sha256"] == sha and report["ontology"]["release"] == "2099-01-31"
        assert report["ontology"]["formula"] == formula
        assert report["evaluation"]["ontology"] == "hp.obo"
        assert report["evaluation"]["maxontsim_formula"] == formula
        manifest = json.loads((tmp_path / out / "manifest.json").read_text())
        assert (
            manifest["inputs"][-1]["kind"] == "ontology" and manifest["inputs"][-1]["sha256"] == sha
        )
        means = {row["run"]: row["mean"] for row in report["results"][0]["summary"]}
        scored = _invoke(
            "score",
            ["--format", "json", *common, "--maxontsim-formula", formula],
            tmp_path,
            monkeypatch,
        )
        assert scored.exit_code == 0, scored.output
        assert means == {
            run["run"].removesuffix(".run"): run["aggregates"]["MaxOntSim@5"]
            for run in json.loads(scored.stdout)["runs"]
        }
        values[formula] = means
        text = (tmp_path / out / "BenchmarkComparison.md").read_text()
        assert f"- Ontology: HPO release 2099-01-31 (hp.obo, sha256 {sha[:12]}…); " in text
    # the hybrid formula's quirk (a deeper common ancestor) scores a.run's topic 1 as 1.0
    assert values["hybrid"]["a"] > values["simple_resnik_like"]["a"]


def test_lower_is_better_and_undirected_counts(tmp_path):
    from trecbench.comparison import direction

    assert direction("nDCG@10") == "higher" and direction("MaxOntSim@10") == "higher"
    assert direction("num_nonrel_judged_ret") == "lower" and direction("num_ret") is None
    rows = []
    for i in range(20):
        for run, shift in [("base", 0), ("noisy", 5 + i % 2)]:  # differences that vary
            rows += [
                (run, f"q{i}", "num_nonrel_judged_ret", float(i % 4 + shift)),
                (run, f"q{i}", "num_ret", float(i % 3 + shift)),
                (run, f"q{i}", "P@10", float(i % 5 + shift) / 10),
            ]
    result = compare_scores(pd.DataFrame(rows, columns=["run", "qid", "measure", "value"]))
    assert result.settings["better"] == {
        "num_nonrel_judged_ret": "lower",
        "num_ret": None,
        "P@10": "higher",
    }
    lines: dict[str, str] = {}
    for line in result.markdown().splitlines():  # the means tables come first
        lines.setdefault(line.split(" | ")[0], line)
    # fewer judged non-relevant documents is better: base is best, noisy significantly worse
    lower = lines["| num_nonrel_judged_ret (lower is better)"]
    assert lower.endswith("| base |") and " ▼***" in lower and "**1.5000**" in lower
    assert lines["| num_ret"].endswith("| n/a |") and " ↑***" in lines["| num_ret"]
    assert lines["| P@10"].endswith("| noisy |") and " ▲***" in lines["| P@10"]
    validate_against_schema(result.report(), "benchmark_report")


def test_a_run_given_twice_is_refused_not_merged(capsys):
    # compare merged the two into one run (one column, no comparison) without a word;
    # score, power and agree refuse it
    from trecbench.cli import run as main

    args = ["compare", "qrels/hpo-demo.qrels", "runs/tfidf-word.run", "./runs/tfidf-word.run"]
    assert main([*args, "-m", "P@5"]) == 1
    assert capsys.readouterr().err == (
        "trecbench: runs/tfidf-word.run: the same run is given twice\n"
    )
    # one file spelt two ways: compared with itself (two columns, every difference 0)
    absolute = str(Path("runs/tfidf-word.run").resolve())
    args = ["compare", "qrels/hpo-demo.qrels", "runs/tfidf-word.run", absolute, "-m", "P@5"]
    assert main(args) == 1
    assert capsys.readouterr().err == (
        f"trecbench: {absolute}: the same run as runs/tfidf-word.run: give it once, spelt one way\n"
    )


def test_minus_m_given_no_value_says_it_took_the_next_argument(capsys):
    # it said "illegal measure 'qrels/hpo-demo.qrels': not a measure name", and of
    # "-m --quiet" "illegal measure '--quiet'"
    from trecbench.cli import run as main

    runs = ["runs/tfidf-word.run", "runs/tfidf-char.run"]
    assert main(["compare", "-m", "qrels/hpo-demo.qrels", *runs]) == 1
    assert capsys.readouterr().err == (
        "trecbench: compare: -m took 'qrels/hpo-demo.qrels' as a measure name: give -m a value "
        "(e.g. -m nDCG@10) (see 'trecbench compare --help')\n"
    )
    assert main(["compare", "-m", "--quiet", "qrels/hpo-demo.qrels", *runs]) == 1
    assert "-m took the option '--quiet' as its value: " in capsys.readouterr().err


def test_the_baseline_file_however_spelt(capsys):
    # an absolute path to a run given relative was "not one of the runs"
    from trecbench.cli import run as main

    runs = ["runs/tfidf-word.run", "runs/tfidf-char.run"]
    absolute = str(Path("runs/tfidf-char.run").resolve())
    args = ["compare", "qrels/hpo-demo.qrels", *runs, "-m", "P@5", "--baseline", absolute]
    assert main(args) == 0
    assert capsys.readouterr().out.startswith("Runs: tfidf-word, tfidf-char (baseline)\n")


def test_compare_refuses_a_folder_holding_another_calls_files(tmp_path, capsys):
    # a second call writing fewer files would leave the first one's beside its own: a
    # folder half old, half new (plots of other runs, a benchmark's manifest). Refused
    # before the work (nothing on stdout); files of other names are not compare's concern
    from conftest import ROOT

    from trecbench.cli import run

    qrels = str(ROOT / "qrels" / "hpo-demo.qrels")
    names = ("tfidf-word", "tfidf-char", "tfidf-word-parents")
    word, char, parents = (str(ROOT / "runs" / f"{name}.run") for name in names)
    out = tmp_path / "out"
    (out / "runs").mkdir(parents=True)
    (out / "runs" / "mine.run").write_text("q Q0 d 1 1 t\n")  # the user's, not compare's
    (out / "logo.png").write_bytes(b"not a plot of compare's")
    args = ["-m", "P@5", "--samples", "50", "-o", str(out)]
    (out / "ExperimentManifest.json").write_text("{}\n")  # a benchmark's
    assert run(["compare", qrels, word, char, *args]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""  # refused before the work
    assert "ExperimentManifest.json would stay beside this comparison's files" in captured.err
    (out / "ExperimentManifest.json").unlink()
    (out / "means.png").write_bytes(b"a plot of other runs")
    before = sorted(p.name for p in out.iterdir())
    assert run(["compare", qrels, word, parents, *args]) == 2
    assert "means.png would stay beside" in capsys.readouterr().err
    assert sorted(p.name for p in out.iterdir()) == before  # nothing written
    (out / "means.png").unlink()
    for _ in range(2):  # the same call again replaces every file it wrote
        assert run(["compare", qrels, word, char, *args, "--quiet"]) == 0
    # its own manifest, however spelled, is no stray, nor marks a benchmark's folder: the
    # second call reads the first's, and the user's runs/ and reports/ stay theirs
    (out / "reports").mkdir()
    (out / "reports" / "mine.json").write_text("{}\n")
    manifest = ["--manifest", str(out / "ExperimentManifest.json")]
    for _ in range(2):
        assert run(["compare", qrels, word, char, *args, *manifest, "--quiet"]) == 0
    spelled = ["-o", f"{out}/./", "--manifest", f"{out}/../out/ExperimentManifest.json"]
    assert run(["compare", qrels, word, char, *args[:-2], *spelled, "--quiet"]) == 0
    assert (out / "logo.png").exists() and (out / "runs" / "mine.run").exists()


@pytest.mark.parametrize(
    ("empty", "message"),
    [
        (5, "empty maps run -> measure -> qid -> a finite number, not 5"),
        ({"b": 5}, r"empty\['b'\] maps measure"),
        ({"b": {"num_rel": {"2": "x"}}}, r"empty\['b'\]\['num_rel'\]\['2'\] is 'x', not a finite"),
        ({"b": {"num_rel": {"2": float("nan")}}}, r"\['2'\] is nan, not a finite number"),
    ],
)
def test_compare_scores_refuses_empty_values_of_another_shape(empty, message):
    # compare_scores's empty (what a run lacking a topic scores there) gave an
    # AttributeError or ValueError traceback for these
    from trecbench.comparison import compare_scores
    from trecbench.errors import UsageError

    per_query = pd.DataFrame(
        {"run": ["a", "a", "b"], "qid": ["1", "2", "1"], "measure": ["num_rel"] * 3,
         "value": [2.0, 1.0, 2.0]}
    )  # fmt: skip
    with pytest.raises(UsageError, match=message):
        compare_scores(per_query, samples=100, empty=empty)
    filled = compare_scores(per_query, samples=100, empty={"b": {"num_rel": {"2": 1}}})
    assert filled.summary["mean"].tolist() == [1.5, 1.5]  # b's topic 2 counts 1, as a's


def test_a_runs_mean_is_its_values_summed_in_topic_order_whatever_beside_it():
    """numpy's ``mean(axis=0)`` sums pairwise in an order set by the matrix's shape: one
    run alone and the same run beside another got means a few ulp apart, and a benchmark
    target's mark changed with the modes configured (reviewer 188). The mean is trec_eval's
    sum, in topic order, over the topics."""
    ones, tenths = [1.0] * 10, [0.1] * 10
    values = {"a": ones + tenths, "b": tenths + ones}
    qids = [f"q{i:02d}" for i in range(20)]
    rows = [(run, q, "m", v) for run, vs in values.items() for q, v in zip(qids, vs, strict=True)]
    frame = pd.DataFrame(rows, columns=["run", "qid", "measure", "value"])
    both = compare_scores(frame, samples=100).summary.set_index("run")["mean"]
    alone = compare_scores(frame[frame["run"] == "a"], samples=100).summary
    expected = {run: sum(vs) / 20 for run, vs in values.items()}  # summed in order
    assert both["a"] == float(alone["mean"].iloc[0]) == expected["a"]
    assert both["b"] == expected["b"]


def test_a_grouping_with_one_stratum_is_warned_of_as_score_warns_of_it(tmp_path, capsys):
    # score warns that its spread over one group is n/a; compare showed a single "(none)"
    # stratum (and a macro section repeating it) without a word
    from trecbench.cli import run as main

    runs = ["runs/tfidf-word.run", "runs/tfidf-char.run"]
    args = ["compare", "qrels/hpo-demo.qrels", *runs, "-m", "P@5", "--group-by", "qid-prefix"]
    assert main([*args, "--samples", "200", "-o", str(tmp_path / "out")]) == 0
    warnings = [line for line in capsys.readouterr().err.splitlines() if "warning" in line]
    assert warnings == [
        "trecbench: warning: grouping by qid-prefix: one stratum only, (none) (56 topics): no "
        "stratum to compare with another (its macro section is that stratum's analysis)"
    ]


def test_only_a_grouping_with_one_stratum_is_warned_of():
    import trecbench

    values = [
        {"run": run, "qid": qid, "measure": "P@5", "value": value}
        for run, shift in (("a", 0.0), ("b", 0.1))
        for qid, value in (("x1", 0.2), ("x2", 0.4), ("y1", 0.6), ("y2", 0.8))
        for value in [value + shift]
    ]
    strata = {
        "split": {"x1": "x", "x2": "x", "y1": "y", "y2": "y"},
        "whole": {"x1": "w", "x2": "w", "y1": "w", "y2": "w"},
    }
    result = trecbench.compare_scores(values, strata=strata, samples=200)
    assert result.warnings == [
        "grouping by whole: one stratum only, w (4 topics): no stratum to compare with "
        "another (its macro section is that stratum's analysis)"
    ]


def test_a_stratum_all_of_whose_topics_are_dropped_is_said_left_out(tmp_path, capsys):
    """Reviewer 726: run b without the hard topics, --missing drop: the macro section
    said each difficulty counts the same, over easy alone, without a word of hard."""
    import trecbench
    from trecbench.cli import run as main

    values = [
        {"run": run, "qid": qid, "measure": "P@5", "value": value}
        for run in ("a", "b")
        for qid, value in (("e1", 0.2), ("e2", 0.4), ("h1", 0.6), ("h2", 0.8), ("m1", 0.1))
        if run == "a" or qid[0] != "h"
    ]
    strata = {"e1": "easy", "e2": "easy", "h1": "hard", "h2": "hard", "m1": "mid"}
    said = (
        "grouping by level: stratum hard (2 topics) left out, none of its topics evaluated "
        "in every run (missing='drop'): the macro section is over the other strata"
    )
    dropped = trecbench.compare_scores(
        values, strata=strata, group_by="level", missing="drop", samples=200
    )
    assert dropped.warnings == [said]
    kept = trecbench.compare_scores(values, strata=strata, group_by="level", samples=200)
    assert kept.warnings == []  # zero: every stratum in
    (tmp_path / "q").write_text("".join(f"{q} 0 d 1\n" for q in strata))
    (tmp_path / "a.run").write_text("".join(f"{q} Q0 d 1 1 a\n" for q in strata))
    (tmp_path / "b.run").write_text("e1 Q0 d 1 1 b\ne2 Q0 d 1 1 b\nm1 Q0 d 1 1 b\n")
    (tmp_path / "s.json").write_text(
        json.dumps({"strata": {"queries": {q: {"level": v} for q, v in strata.items()}}})
    )
    args = ["compare", *(str(tmp_path / f) for f in ("q", "a.run", "b.run")), "-m", "P@5"]
    args += ["--strata", str(tmp_path / "s.json"), "--group-by", "level", "--missing", "drop"]
    assert main([*args, "--samples", "200"]) == 0
    assert f"trecbench: warning: {said}" in capsys.readouterr().err.splitlines()
    # reviewer 729: each run against its own qrels, b's without the hard topics
    (tmp_path / "qb").write_text("e1 0 d 1\ne2 0 d 1\nm1 0 d 1\n")
    a, q, b, qb = (str(tmp_path / f) for f in ("a.run", "q", "b.run", "qb"))
    options = [*args[4:-2], "--samples", "200"]  # without --missing drop: left out whatever
    assert main(["compare", "--run-qrels", a, q, "--run-qrels", b, qb, *options]) == 0
    unpaired = said.replace(
        "evaluated in every run (missing='drop')", "judged by every run's qrels"
    )
    assert f"trecbench: warning: {unpaired}" in capsys.readouterr().err.splitlines()


def test_the_one_stratum_warning_shows_its_stratum_escaped_in_markdown():
    import trecbench

    values = [
        {"run": run, "qid": qid, "measure": "P@5", "value": value + shift}
        for run, shift in (("a", 0.0), ("b", 0.1))
        for qid, value in (("x1", 0.2), ("x2", 0.4))
    ]
    strata = {"x1": "p|q\nr", "x2": "p|q\nr"}
    result = trecbench.compare_scores(values, strata=strata, group_by="f", samples=200)
    (warning,) = result.warnings
    assert warning.startswith("grouping by f: one stratum only, p|q\nr (2 topics): ")
    assert "p%7Cq%0Ar (2 topics)" in result.markdown()


def test_wins_ties_and_losses_take_rounding_as_a_tie_as_the_mean_does():
    # 0.1 + 0.2 against 0.3 on every topic (5.6e-17 apart): W/T/L said 20/0/0 beside a
    # difference of 0.0000 and "the per-topic differences do not vary"
    rows = [("a", f"q{t:02d}", "m@2", 0.1 + 0.2) for t in range(20)]
    rows += [("b", f"q{t:02d}", "m@2", 0.3 + (0.25 if t == 0 else 0.0)) for t in range(20)]
    frame = pd.DataFrame(rows, columns=["run", "qid", "measure", "value"])
    row = compare_scores(frame, baseline="a", samples=100).comparisons.iloc[0]
    assert (row["wins"], row["ties"], row["losses"]) == (1, 19, 0)  # q00 alone is apart
    assert 0.1 + 0.2 != 0.3  # the raw values do differ


def test_only_the_unjudged_run_s_warning_is_labelled_by_allow_unjudged(tmp_path, capsys):
    # the header labelled every warning "Warning (--allow-unjudged)", a grouping of one
    # stratum's too, which that option has nothing to do with
    from trecbench.cli import run as main

    unjudged = tmp_path / "unjudged.run"
    qids = sorted({line.split()[0] for line in Path("qrels/hpo-demo.qrels").open()})
    unjudged.write_text("".join(f"{qid} Q0 nowhere 1 1.0 u\n" for qid in qids))
    args = ["compare", "qrels/hpo-demo.qrels", "runs/tfidf-word.run", str(unjudged)]
    args += ["-m", "P@5", "--group-by", "qid-prefix", "--allow-unjudged", "--samples", "40"]
    assert main([*args, "--format", "markdown"]) == 0
    labels = [
        line.split(": ", 1)[0]
        for line in capsys.readouterr().out.splitlines()
        if line.startswith("- Warning")
    ]
    assert labels == ["- Warning (--allow-unjudged)", "- Warning"]


def test_the_best_runs_cell_lists_a_name_with_a_comma_as_one_run(tmp_path, capsys):
    # review 723: "u, v, w, z" read as four runs tied, where the runs are "u, v", w and z
    from trecbench.cli import run as main

    (tmp_path / "q.qrels").write_text("t1 0 d1 1\nt2 0 d2 1\n")
    lines = "t1 Q0 d1 1 2 x\nt1 Q0 d2 2 1 x\nt2 Q0 d1 1 2 x\nt2 Q0 d2 2 1 x\n"
    for name in "xyz":
        (tmp_path / f"{name}.run").write_text(lines)
    args = ["compare", "-m", "P.1", "--format", "markdown", str(tmp_path / "q.qrels")]
    args += [str(tmp_path / f"{name}.run") for name in "xyz"]
    for given, path in [("u, v", "x"), ("w", "y"), ("z", "z")]:
        args += ["--names", f"{given}={tmp_path / path}.run"]
    assert main(args) == 0
    (row,) = [
        line for line in capsys.readouterr().out.splitlines() if line.startswith("| P@1 | **")
    ]
    assert row.endswith("| u%2C v, w, z |")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs a FIFO")
def test_strata_read_from_a_fifo_are_read_once_for_the_dropped_strata_warning(tmp_path):
    """The warning of strata left out read a sidecar's path a second time: from a FIFO,
    compare_scores waited for a writer for good."""
    import subprocess
    import sys

    fifo = tmp_path / "s.fifo"
    os.mkfifo(fifo)
    levels = {"e1": "easy", "h1": "hard", "h2": "hard", "m1": "mid"}
    sidecar = json.dumps({"strata": {"queries": {q: {"level": v} for q, v in levels.items()}}})
    probe = (
        "import trecbench, sys\n"
        "values = [{'run': r, 'qid': q, 'measure': 'P@5', 'value': 0.5} for r in 'ab'\n"
        "          for q in ('e1', 'h1', 'h2', 'm1') if r == 'a' or q[0] != 'h']\n"
        f"c = trecbench.compare_scores(values, strata={str(fifo)!r}, group_by='level',\n"
        "                             missing='drop', samples=200)\n"
        "print(len(c.warnings))\n"
    )
    reader = subprocess.Popen([sys.executable, "-c", probe], stdout=subprocess.PIPE, text=True)
    fifo.write_text(sidecar)
    try:
        out, _ = reader.communicate(timeout=60)
    finally:
        reader.kill()
    assert (reader.returncode, out) == (0, "1\n")
