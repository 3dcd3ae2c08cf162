"""trecbench compare: statistics on per-query values, report, Markdown, plots, CLI."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from trecbench import stats
from trecbench.compare import compare_scores
from trecbench.errors import UsageError
from trecbench.report import validate_against_schema

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


def test_bootstrap_and_randomization_p_values_come_from_stats():
    frame = _per_query(n=20)
    wide = _wide(frame, "nDCG@10")
    diff = (wide["vector"] - wide["lexical"]).to_numpy()
    result = compare_scores(frame, test="randomization", samples=300, seed=4)
    row = result.comparisons.set_index(["measure", "run"]).loc[("nDCG@10", "vector")]
    assert row["p_value"] == stats.randomization_test(diff, 300, 4)[0]


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


def test_strata_are_analysed_like_the_whole():
    frame = _per_query(n=24)
    strata = {f"q{i:02d}": ("easy" if i % 3 else "hard") for i in range(24)}
    result = compare_scores(frame, samples=300, seed=3, strata=strata, group_by="difficulty")
    assert result.stratum_labels == ["all", "difficulty=easy", "difficulty=hard"]
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
    assert [r["stratum"] for r in report["results"]] == ["all", "language=de", "language=en"]
    assert report["results"][1]["value"] == "de"
    assert len(report["results"][0]["comparisons"]) == 2 * len(MEASURES)
    assert report["per_query"]["hybrid"]["q05"] == {m: 0.0 for m in MEASURES}
    assert report["runs"][2] == {
        "name": "hybrid",
        "baseline": False,
        "input": None,
        "missing_queries": ["q05"],
    }
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


def test_a_single_run_gets_intervals_only():
    frame = _per_query(n=8)
    result = compare_scores(frame[frame["run"] == "vector"], samples=100)
    assert result.comparisons.empty and len(result.summary) == len(MEASURES)
    assert "Differences against" not in result.markdown()
    validate_against_schema(result.report(), "benchmark_report")


def test_outputs_are_written_without_plots(tmp_path):
    # (plots are checked once, on the bundled demo: rendering is the slow part)
    result = compare_scores(_per_query(n=15), samples=200)
    written = result.write(tmp_path / "out", plots=False)
    assert [path.name for path in written] == ["BenchmarkReport.json", "BenchmarkComparison.md"]
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
    assert done == sorted(done) and calls[-1] == (3 * 2 * 600, 3 * 2 * 600)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"baseline": "bm25"}, "baseline 'bm25' is not one of the runs"),
        ({"test": "wilcoxon"}, "unknown test"),
        ({"correction": "sidak"}, "unknown correction"),
        ({"missing": "ignore"}, "unknown missing policy"),
        ({"samples": 0}, "samples must be a positive integer"),
        ({"confidence": 95}, "confidence must be between 0 and 1"),
    ],
)
def test_bad_options_are_usage_errors(options, message):
    with pytest.raises(UsageError, match=message):
        compare_scores(_per_query(n=5), **options)


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


def test_means_reproduce_trec_eval_with_and_without_c(trec_eval_suite):
    # results.trunc lacks topic 302: with missing="zero" its means are trec_eval -c's
    # (out.test.aqc); results.test covers all topics (out.test.a).
    import trecbench

    result = trecbench.compare(
        trec_eval_suite / "qrels.test",
        {"full": trec_eval_suite / "results.test", "trunc": trec_eval_suite / "results.trunc"},
        list(TREC_MEASURES),
        samples=200,
    )
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
    import trecbench.compare  # binds the package attribute to the module

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
        "--no-plots",
        "-o",
        str(out),
    ]
    done = CliRunner().invoke(cli, ["compare", *args])
    assert done.exit_code == 0, done.output
    assert "| Measure | results.test (baseline) | trunc | Best run |" in done.output
    report = json.loads((out / "BenchmarkReport.json").read_text())
    validate_against_schema(report, "benchmark_report")
    assert report["settings"]["seed"] == 9 and report["settings"]["test"] == "randomization"
    assert report["runs"][1]["missing_queries"] == ["302"]
    assert {p.name for p in out.iterdir()} == {"BenchmarkReport.json", "BenchmarkComparison.md"}


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
    from trecbench.cli.compare import StderrProgress

    quiet = StderrProgress("resampling", delay=60)
    quiet(5, 10)
    quiet.close()
    shown = StderrProgress("resampling", delay=0, interval=0)
    shown(5, 10)
    shown(10, 10)
    shown.close()
    assert capsys.readouterr().err == "\rresampling: 50%\rresampling: 100%\n"


def test_in_memory_runs_are_named_and_not_recorded_as_files(trec_eval_suite):
    import trecbench
    from trecbench.files import parse_run, read_run

    result = trecbench.compare(
        trec_eval_suite / "qrels.test",
        [read_run(trec_eval_suite / "results.test"), parse_run(trec_eval_suite / "results.trunc")],
        ["P.10"],
        samples=50,
    )
    assert result.runs == ["run1", "run2"] and result.run_inputs == {"run1": None, "run2": None}
    assert [record["kind"] for record in result.inputs] == ["qrels"]
    with pytest.raises(UsageError, match="two runs are named 'results.test'"):
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
        "difficulty=(none)",
        "difficulty=easy",
        "difficulty=hard",
    ]
    assert result.strata == {"301": "easy", "302": "hard", "303": "(none)"}
    assert result.inputs[-1]["kind"] == "strata"
    hard = result.part(result.summary, "difficulty=hard").set_index("run")["mean"]
    per_query = result.per_query.set_index(["run", "qid"])["value"]
    assert hard["results.trunc"] == per_query[("results.trunc", "302")] == 0.0
    assert hard["results.test"] == per_query[("results.test", "302")]
    with pytest.raises(UsageError, match="needs --group-by"):
        trecbench.compare(
            trec_eval_suite / "qrels.test", trec_eval_suite / "results.test", strata=sidecar
        )


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
        + ["--samples", "500", "-o", str(out)],
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
