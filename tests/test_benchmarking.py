"""`trecbench benchmark` on the bundled R-task demo, checked against independent sources:

* every mean and per-topic value against trec_eval 9.0.8's own output with -c
  (tests/fixtures/trec_eval_rtask/, written by tests/fixtures/make_trec_eval_rtask.py);
* the paired t-test p-values against scipy.stats.ttest_rel, Holm's adjustment by hand;
* targets, best modes, completeness and reranking improvement recomputed here from the
  R-task reference's table and the files themselves;
* the reports against their shipped JSON Schemas.
"""

from __future__ import annotations

import builtins
import dataclasses
import hashlib
import io
import json
import math
import os
import shutil
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from conftest import ROOT
from test_demo_against_trec_eval import PRESET as KPI  # measure -> (fixture, trec_eval label)

import trecbench
from trecbench.benchmarking import SHOWN_MARKS, InvalidRuns, load_benchmark_config, run_benchmark
from trecbench.benchmarking.settings import reranking_measure
from trecbench.cli import _register, cli
from trecbench.cli import run as run_cli
from trecbench.errors import TrecbenchError, UsageError
from trecbench.report import validate_against_schema
from trecbench.routing import routing_metrics

_register()
DEMO = ROOT / "data" / "hpo-rtask"
CONFIG = DEMO / "benchmark.toml"
FIXTURES = Path(__file__).parent / "fixtures" / "trec_eval_rtask"
MODES = ("lexical", "vector", "hybrid", "reranked")
LABELS = {"lexical": "Lexical-Only", "vector": "Vector-Only", "hybrid": "Hybrid"}
LABELS["reranked"] = "Lexical+Rerank"
# the TREC 2025 R-task reference's summary table: baseline low, good, strong
REFERENCE = {
    "nDCG@10": (0.30, 0.35, 0.40),
    "MAP@100": (0.25, 0.27 + 0.03, 0.27 + 0.05),
    "MRR@10": (0.45, 0.55, None),
    "Recall@50": (0.55, 0.62, None),
    "Recall@100": (0.60, 0.70, None),
    "HitRate@10": (0.70, 0.80, None),
}


def _printed(mode: str) -> dict[tuple[str, str], str]:
    printed = {}
    for fixture in ("kpi", "mrr10"):
        for line in (FIXTURES / f"{mode}.{fixture}.out").read_text().splitlines():
            name, qid, value = line.split("\t")
            printed[(fixture, name.strip(), qid)] = value
    return printed


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    out = tmp_path_factory.mktemp("bench") / "out"
    args = ["benchmark", str(CONFIG), "-o", str(out), "--quiet", "--meta", "note=cli"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    report = json.loads((out / "BenchmarkReport.json").read_text())
    return out, report


def test_every_mode_s_report_records_the_run_it_scored(written):
    # a fused mode's report listed the qrels only: not the run written and scored
    import hashlib

    out, _ = written
    for mode in MODES:
        inputs = json.loads((out / f"reports/{mode}.json").read_text())["inputs"]
        (run,) = [record for record in inputs if record["kind"] == "run"]
        data = Path(run["path"]).read_bytes()
        assert run["sha256"] == hashlib.sha256(data).hexdigest() and run["size"] == len(data)
    hybrid = json.loads((out / "reports/hybrid.json").read_text())["inputs"]
    assert Path(hybrid[1]["path"]) == out / "runs" / "hybrid.run"


def test_reports_match_their_schemas(written):
    out, report = written
    validate_against_schema(report, "benchmark_report")
    for mode in MODES:
        validate_against_schema(
            json.loads((out / f"reports/{mode}.json").read_text()), "evaluation_report"
        )
    manifest = json.loads((out / "ExperimentManifest.json").read_text())
    validate_against_schema(manifest, "experiment_manifest")
    assert manifest["experiment_id"] == report["experiment_id"]
    assert manifest["meta"]["note"] == report["meta"]["note"] == "cli"
    assert manifest["meta"]["collection"] == "HPO term names (hpo3's bundled release)"
    written_paths = {
        Path(record["path"]).relative_to(out).as_posix() for record in manifest["outputs"]
    }
    assert written_paths == {
        "BenchmarkReport.json",
        "BenchmarkComparison.md",
        "report.html",
        "runs/hybrid.run",
        *(f"reports/{mode}.json" for mode in MODES),
    }
    kinds = sorted(record["kind"] for record in manifest["inputs"])
    assert kinds == ["config", "qrels", "routing", "run", "run", "run", "strata"]


def test_the_description_is_shown_in_every_output(written):
    # the configuration's description was read by the schema and shown nowhere
    toml = pytest.importorskip("tomllib" if sys.version_info >= (3, 11) else "tomli")
    described = toml.loads(CONFIG.read_text())["description"]
    out, report = written
    assert report["benchmark"]["description"] == described
    markdown = (out / "BenchmarkComparison.md").read_text()
    assert markdown.startswith(f"# Benchmark: hpo-rtask\n\n{described}\n\n- Qrels: ")
    assert (
        f'<h2 id="benchmark">Benchmark: hpo-rtask</h2>\n<p>{described}</p>'
        in (out / "report.html").read_text()
    )


def test_a_description_is_escaped_as_the_name_and_absent_when_not_given(tmp_path):
    head = 'measures = ["P@1"]\ndescription = "# a_b | c"\n'
    path = _two_modes(tmp_path, "t1 0 A 1\n", "t1 Q0 A 1 2 a\n", "t1 Q0 A 1 2 b\n", head)
    bench = run_benchmark(path)
    assert bench.markdown(False).split("\n")[:3] == ["# Benchmark: c", "", "\\# a\\_b %7C c"]
    path.write_text(path.read_text().replace('description = "# a_b | c"\n', ""))
    bench = run_benchmark(path)
    assert bench.markdown(False).split("\n")[2].startswith("- Qrels: ")
    assert bench.section()["description"] is None


def test_means_and_per_topic_values_are_trec_eval_s(written):
    out, report = written
    summary = {(r["run"], r["measure"]): r["mean"] for r in report["results"][0]["summary"]}
    checked = 0
    for mode in MODES:
        printed = _printed(mode)
        evaluation = json.loads((out / f"reports/{mode}.json").read_text())
        (result,) = evaluation["results"]
        for measure, (fixture, label) in KPI.items():
            assert f"{summary[(mode, measure)]:.4f}" == printed[(fixture, label, "all")]
            assert f"{result['aggregates'][measure]:.4f}" == printed[(fixture, label, "all")]
            for qid, value in report["per_query"][mode].items():
                shown = printed.get((fixture, label, qid), "0.0000")  # -c: absent topics are 0
                assert f"{value[measure]:.4f}" == shown, (mode, measure, qid)
                checked += 1
    assert checked == 4 * 6 * 56


def test_fused_mode_is_trecbench_fuse_of_its_sources(written):
    out, _ = written
    runs = [str(DEMO / "lexical.run"), str(DEMO / "vector.run")]
    fused = trecbench.fuse(runs, "rrf", k=60, depth=100, tag="hybrid")
    assert (out / "runs/hybrid.run").read_bytes() == trecbench.files.run_bytes(fused)


def test_p_values_are_scipy_s_and_holm_by_hand(written):
    from scipy.stats import ttest_rel

    _, report = written
    per_query = report["per_query"]
    rows = report["results"][0]["comparisons"]
    assert len(rows) == 3 * 6
    for row in rows:
        topics = sorted(per_query["lexical"])
        left = [per_query[row["run"]][q][row["measure"]] for q in topics]
        right = [per_query["lexical"][q][row["measure"]] for q in topics]
        expected = ttest_rel(left, right).pvalue
        if np.isnan(expected):  # identical values: the t statistic is undefined, p null
            assert row["p_value"] is None and row["p_undefined"]
        else:
            assert row["p_value"] == pytest.approx(expected, rel=1e-9)
    p = np.array([np.nan if row["p_value"] is None else row["p_value"] for row in rows])
    finite = np.flatnonzero(np.isfinite(p))  # undefined p-values are not in the family
    order = finite[np.argsort(p[finite], kind="stable")]
    holm = np.minimum(1, np.maximum.accumulate(p[order] * (len(order) - np.arange(len(order)))))
    adjusted = np.full_like(p, np.nan)
    adjusted[order] = holm
    got = [np.nan if row["p_adjusted"] is None else row["p_adjusted"] for row in rows]
    assert got == pytest.approx(list(adjusted), rel=1e-12, nan_ok=True)


def _mark(measure: str, value: float) -> str:
    low, good, strong = REFERENCE[measure]
    if value < low:
        return "below-baseline"
    if value < good:
        return "baseline"
    return "good" if strong is None or value < strong else "strong"


def test_markdown_kpi_table(written):
    out, report = written
    text = (out / "BenchmarkComparison.md").read_text()
    header = (
        "| Metric | Lexical-Only (baseline) | Vector-Only | Hybrid | Lexical+Rerank | Best Mode |"
    )
    assert header in text
    tests = {(r["run"], r["measure"]): r for r in report["results"][0]["comparisons"]}
    for measure, (fixture, label) in KPI.items():
        row = next(line for line in text.splitlines() if line.startswith(f"| {measure} |"))
        cells = [cell.strip() for cell in row.strip("|").split("|")]
        values = {mode: float(_printed(mode)[(fixture, label, "all")]) for mode in MODES}
        best = [mode for mode in MODES if values[mode] == max(values.values())]
        assert cells[-1] == ", ".join(LABELS[mode] for mode in best)
        for mode, cell in zip(MODES, cells[1:-1], strict=True):
            shown = f"{values[mode]:.4f}"
            expected = f"**{shown}**" if mode in best else shown
            expected += f" {SHOWN_MARKS[_mark(measure, values[mode])]}"
            test = tests.get((mode, measure))
            if test is not None and test["p_adjusted"] is not None and test["p_adjusted"] < 0.05:
                expected += " ▲" if test["difference"] > 0 else " ▼"
            assert cell == expected, (measure, mode)
    assert "▲" in text  # the demo has significant differences


def test_reranking_improvement_from_trec_eval_values(written):
    out, report = written
    before = float(_printed("lexical")[("kpi", "ndcg_cut_10", "all")])
    after = float(_printed("reranked")[("kpi", "ndcg_cut_10", "all")])
    (row,) = report["benchmark"]["reranking"]
    means = {(r["run"], r["measure"]): r["mean"] for r in report["results"][0]["summary"]}
    assert (row["baseline"], row["reranked"]) == (
        means[("lexical", "nDCG@10")],
        means[("reranked", "nDCG@10")],
    )
    exact = (row["reranked"] - row["baseline"]) / row["baseline"] * 100
    assert row["improvement"] == pytest.approx(exact, rel=1e-12)
    # trec_eval prints 4 decimals: its means give the percentage to about 0.05 points
    assert row["improvement"] == pytest.approx((after - before) / before * 100, abs=0.1)
    assert (
        f"| Lexical+Rerank | Lexical-Only | nDCG@10 | {before:.4f} | {after:.4f} |"
        in (out / "BenchmarkComparison.md").read_text()
    )


def _completeness_by_hand(run: Path, settings: dict) -> dict:
    qrels = {}
    for line in (DEMO / "hpo-rtask.qrels").read_text().splitlines():
        qid, _, docno, rel = line.split()
        qrels.setdefault(qid, {})[docno] = int(rel)
    ranked = {}
    for line in run.read_text().splitlines():
        qid, _, docno, rank, _, _ = line.split()
        ranked.setdefault(qid, []).append((int(rank), docno))
    depths, unjudged, top = [], 0, 0
    for qid, docs in ranked.items():
        if qid not in qrels:
            continue
        docs.sort()
        judged = [docno in qrels[qid] for _, docno in docs]
        depths.append(judged.index(False) if False in judged else len(judged))
        unjudged += judged[: settings["unjudged_at"]].count(False)
        top += len(judged[: settings["unjudged_at"]])
    return {
        "coverage": len(depths) / len(qrels),
        "median": float(np.median(depths)),
        "min": min(depths),
        "unjudged": unjudged / top,
    }


def test_completeness_by_hand(written):
    out, report = written
    modes = {mode["name"]: mode for mode in report["benchmark"]["modes"]}
    settings = report["benchmark"]["completeness_settings"]
    incomplete = []
    for name in MODES:
        run = out / "runs/hybrid.run" if name == "hybrid" else DEMO / f"{name}.run"
        expected = _completeness_by_hand(run, settings)
        info = modes[name]["completeness"]
        assert info["coverage"] == pytest.approx(expected["coverage"], abs=1e-12)
        assert info["pool_depth"] == {"median": expected["median"], "min": expected["min"]}
        assert info["unjudged"] == pytest.approx(expected["unjudged"], abs=1e-12)
        checks = [p["check"] for p in info["problems"]]
        assert ("coverage" in checks) == (expected["coverage"] < settings["min_coverage"])
        assert ("pool_depth" in checks) == (expected["median"] < settings["min_pool_depth"])
        assert ("unjudged" in checks) == (expected["unjudged"] > settings["max_unjudged"])
        if checks:
            incomplete.append(name)
    # the reranker lifts documents that neither pooled run had in its top 10
    assert incomplete == ["reranked"]
    text = (out / "BenchmarkComparison.md").read_text()
    assert "- Lexical+Rerank: unjudged → Shallow pools: mark runs as incomplete" in text
    # the table prints the counts by hand, coverage and unjudged to a tenth of a per cent
    info = modes["hybrid"]["completeness"]
    expected = _completeness_by_hand(out / "runs/hybrid.run", settings)
    row = next(line for line in text.splitlines() if line.startswith("| Hybrid | "))
    assert row.startswith(
        f"| Hybrid | {info['topics']}/{info['qrels_topics']} ({expected['coverage']:.1%}) | "
        f"{expected['median']:g} (min {expected['min']}) | {expected['unjudged']:.1%} |"
    )


def test_routing_section(written):
    _, report = written
    expected = routing_metrics(DEMO / "routing.jsonl", samples=10_000, seed=42)
    assert report["benchmark"]["routing"] | {"log": None} == expected | {"log": None}


def _copy_demo(tmp_path: Path) -> Path:
    folder = tmp_path / "data" / "demo"  # the strata sidecar is ../../qrels/...
    shutil.copytree(DEMO, folder)
    shutil.copytree(ROOT / "qrels", tmp_path / "qrels")
    return folder


def test_invalid_run_stops_with_findings_and_exit_2(tmp_path):
    folder = _copy_demo(tmp_path)
    run = folder / "vector.run"
    lines = run.read_text().splitlines()
    run.write_text("\n".join([lines[0], lines[0], *lines[1:]]) + "\n")  # a duplicate
    out = tmp_path / "out"
    result = CliRunner().invoke(cli, ["benchmark", str(folder / "benchmark.toml"), "-o", str(out)])
    assert isinstance(result.exception, InvalidRuns)
    assert result.exception.exit_code == 2  # an input failing validation, as in validate
    message = str(result.exception)
    assert f"{run}:2:docno: error[R7]: duplicate docno" in message
    assert "recovery: Empty/invalid runs: re-run generation, check query format" in message
    assert not out.exists()


def test_a_fusion_of_one_run_under_two_files_is_refused(tmp_path, capsys):
    # a copy (or a hard link) of lexical.run as the vector mode: the hybrid fused the
    # lexical run with itself, exit 0
    import gzip

    from trecbench.cli import run

    folder = _copy_demo(tmp_path)
    (folder / "vector.run").unlink()
    (folder / "vector.run").write_bytes(gzip.compress((folder / "lexical.run").read_bytes()))
    out = tmp_path / "out"
    assert run(["benchmark", str(folder / "benchmark.toml"), "-o", str(out), "--quiet"]) == 1
    assert capsys.readouterr().err == (
        f"trecbench: {folder / 'benchmark.toml'}:25: modes.hybrid.fuse[1]: mode 'hybrid' "
        "fuses one run twice: "
        "'lexical' and 'vector' hold the same rows (a copy or a link)\n"
    )
    assert not out.exists()


def test_yaml_config_and_schema_errors(tmp_path):
    import yaml

    folder = _copy_demo(tmp_path)
    document = load_benchmark_config(CONFIG)
    assert [mode.name for mode in document.modes] == list(MODES)
    toml = pytest.importorskip("tomllib" if sys.version_info >= (3, 11) else "tomli")
    data = toml.loads(CONFIG.read_text())
    (folder / "benchmark.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    config = load_benchmark_config(folder / "benchmark.yaml")
    assert [mode.name for mode in config.modes] == list(MODES)
    assert config.modes[2].fuse == ["lexical", "vector"] and config.modes[2].depth == 100

    def refused(change, message):
        broken = json.loads(json.dumps(data))
        change(broken)
        path = folder / "broken.yaml"
        path.write_text(yaml.safe_dump(broken))
        with pytest.raises(UsageError, match=message):
            load_benchmark_config(path)

    refused(lambda d: d["modes"]["hybrid"].update(method="borda"), "modes.hybrid.method")
    refused(lambda d: d["modes"]["hybrid"].update(fuse=["lexical", "nope"]), "unknown mode 'nope'")
    refused(lambda d: d.update(colour="red"), "colour: unknown key: no other key is allowed here")
    refused(
        lambda d: d["statistics"].update(baseline="x"), "statistics.baseline: 'x' is not a mode"
    )
    refused(
        lambda d: d["modes"].update(a={"fuse": ["b", "vector"]}, b={"fuse": ["a", "vector"]}),
        "in a circle: a -> b -> a",
    )
    refused(lambda d: d["modes"]["lexical"].update(k=3), "modes.lexical.k: k is a fusion's")


def _count_opens(monkeypatch) -> Counter:
    """Opens of each file (real path) from here on, by Python's ``open`` under any name."""
    opened: Counter = Counter()
    real = builtins.open

    def counting(file, *args, **kwargs):
        if isinstance(file, (str, os.PathLike)):
            opened[os.path.realpath(file)] += 1
        return real(file, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", counting)
    monkeypatch.setattr(io, "open", counting)  # pathlib's
    return opened


def _demo_tree(tmp_path: Path) -> tuple[Path, list[Path]]:
    """A copy of the demo (100 bootstrap samples): its configuration and input files."""
    folder = tmp_path / "data" / "hpo-rtask"  # the strata sidecar is ../../qrels/...
    shutil.copytree(DEMO, folder)
    shutil.copytree(ROOT / "qrels", tmp_path / "qrels")
    config = folder / "benchmark.toml"
    config.write_text(config.read_text().replace("samples = 10000", "samples = 100"))
    return config, [*folder.iterdir(), tmp_path / "qrels" / "hpo-demo.sidecar.json"]


def _assert_read_once(opened: Counter, inputs: list[Path], records: list[dict]) -> None:
    assert {path.name: opened[str(path.resolve())] for path in inputs} == {
        path.name: 1 for path in inputs
    }
    # the records are those of the bytes as stored, taken during that one read
    by_name = {Path(r["path"]).name: r for r in records}
    for path in inputs:
        data = path.read_bytes()
        assert by_name[path.name]["size"] == len(data)
        assert by_name[path.name]["sha256"] == hashlib.sha256(data).hexdigest()


def test_each_input_file_is_read_once(tmp_path, monkeypatch):
    # validated, then scored, from one read: a file could change between two reads, and a
    # pipe cannot be read twice
    config, inputs = _demo_tree(tmp_path)
    out = tmp_path / "out"
    opened = _count_opens(monkeypatch)
    result = CliRunner().invoke(cli, ["benchmark", str(config), "-o", str(out), "--quiet"])
    monkeypatch.undo()
    assert result.exit_code == 0, result.output
    report = json.loads((out / "BenchmarkReport.json").read_text())
    _assert_read_once(opened, inputs, report["inputs"])


def test_run_benchmark_reads_each_input_once_topics_too(tmp_path, monkeypatch):
    # the API call as the command: the topics file serves every run and fused mode
    config, inputs = _demo_tree(tmp_path)
    topics = config.parent / "topics.txt"
    qids = sorted({line.split()[0] for line in (DEMO / "hpo-rtask.qrels").open()})
    topics.write_text("".join(f"{qid}\n" for qid in qids))
    config.write_text(config.read_text().replace('qrels = "', 'topics = "topics.txt"\nqrels = "'))
    inputs.append(topics)
    opened = _count_opens(monkeypatch)
    bench = trecbench.run_benchmark(config)
    monkeypatch.undo()
    _assert_read_once(opened, inputs, bench.inputs)


def test_no_mark_reads_as_the_baseline_mode(written):
    """The R-task table's target levels are 'typical' (the range a BM25 run reaches), never
    'baseline': every mode was marked 'below-baseline', the baseline mode included."""
    out, _ = written
    table = (out / "BenchmarkComparison.md").read_text().split("## KPIs")[1].split("\n\n")[1]
    assert "below-baseline" not in table and " baseline " not in table.replace("(baseline)", "")


def test_a_fused_modes_counts_are_totals_beyond_the_findings_kept():
    """A fused mode's validation counts every finding, as a run file's does: the findings
    kept stop at 1,000 per check (it was R15: 1000 for 1,500 tied topics)."""
    from types import SimpleNamespace

    import pyarrow as pa

    from trecbench.benchmarking.checks import check_fused

    n = 1500  # topics, each with two documents of one score: one R15 finding each
    ranked = pa.table(
        {
            "qid": [f"q{t}" for t in range(n) for _ in range(2)],
            "docno": [f"d{d}" for _ in range(n) for d in range(2)],
            "rank": [r + 1 for _ in range(n) for r in range(2)],
            "score": [1.0] * (2 * n),
            "tag": ["fused"] * (2 * n),
        }
    )
    config = SimpleNamespace(profile="default", max_depth=1000)
    validated = SimpleNamespace(topics=None, qrels=SimpleNamespace(qrels_info=None))
    mode = SimpleNamespace(name="rrf")
    _, summary, errors = check_fused(mode, ranked, Path("fused.run"), config, validated)
    assert summary["rules"]["R15"] == summary["warnings"] == n
    assert errors == []


def _config(folder: Path, extra: str) -> Path:
    """A two-mode configuration of the demo's runs with ``extra`` TOML after it."""
    path = folder / "two.toml"
    path.write_text(
        'qrels = "hpo-rtask.qrels"\n[modes.lexical]\nrun = "lexical.run"\n'
        '[modes.vector]\nrun = "vector.run"\n' + extra
    )
    return path


@pytest.mark.parametrize(
    "measure, judgments",
    [("P_avgjg", "judgment groups (-R qrels_jg)"), ("map_avgjg", "judgment groups (-R"),
     ("prefs_pair", "preference judgments (-R prefs, qrels_prefs)")],
)  # fmt: skip
def test_a_measure_of_other_judgments_than_qrels_is_refused_at_its_entry(
    tmp_path, measure, judgments
):
    # refused once every run was read, as trec_eval's exit 4 "from -R qrels judgments":
    # an option a configuration has not, and without the file or line
    folder = _copy_demo(tmp_path)
    path = _config(folder, "")
    path.write_text(f'measures = ["P@2", "{measure}"]\n' + path.read_text())
    with pytest.raises(TrecbenchError) as refused:
        load_benchmark_config(path)
    assert str(refused.value).startswith(
        f"{path}:1: measures[1]: {measure}: trec_eval computes it from {judgments}"
    )


def test_targets_within_a_measures_values_or_of_an_unbounded_one_are_taken(tmp_path):
    folder = _copy_demo(tmp_path)
    extra = (
        '[targets.measures."nDCG@10"]\nbaseline = [0, 0.5]\ngood = 1\nstrong = 1\n'
        "[targets.measures.num_rel_ret]\nbaseline = [5, 20]\ngood = 40\n"
    )
    path = _config(folder, extra)
    path.write_text('measures = ["nDCG@10", "num_rel_ret"]\n' + path.read_text())
    targets = load_benchmark_config(path).targets
    assert (targets["nDCG@10"].good, targets["num_rel_ret"].good) == (1, 40)


def test_kpi_marks_follow_the_measures_better_direction(tmp_path):
    # fewer judged non-relevant documents retrieved is better (▲, as compare's own table
    # marks it), not ▼; num_ret is neither way better: ↑/↓
    folder = _copy_demo(tmp_path)
    lines = (folder / "lexical.run").read_text().splitlines(keepends=True)
    (folder / "short.run").write_text("".join(lines[:3000]))  # 30 of the 56 topics
    path = folder / "dir.toml"
    path.write_text(
        'qrels = "hpo-rtask.qrels"\nmeasures = ["num_nonrel_judged_ret", "num_ret"]\n'
        '[modes.a]\nrun = "lexical.run"\n[modes.b]\nrun = "short.run"\n'
        '[validation]\nprofile = "lenient"\n[completeness]\nmin_coverage = 0\n'
    )
    bench = run_benchmark(path)
    kpis = {row["measure"]: row["values"]["b"] for row in bench.kpis}
    assert all(v["significant"] and v["difference"] < 0 for v in kpis.values())
    table = bench.markdown(statistics=False)
    assert (
        "| num_nonrel_judged_ret (per-topic mean, lower is better) | 9.7143 | **5.3036** ▲ | b |"
        in table
    )
    assert "| num_ret (per-topic mean) | 100.0000 | 53.5714 ↓ | n/a |" in table
    assert "num_ret, without a better direction, gets ↑/↓ (significantly higher/lower)" in table


def test_a_target_of_a_measure_better_lower_is_refused(tmp_path):
    # its levels are reached upward: the mode with the most judged non-relevant documents
    # retrieved was marked strong
    folder = _copy_demo(tmp_path)
    extra = "[targets.measures.num_nonrel_judged_ret]\nbaseline = [3, 4]\ngood = 5\n"
    path = _config(folder, extra)
    path.write_text('measures = ["nDCG@10", "num_nonrel_judged_ret"]\n' + path.read_text())
    with pytest.raises(UsageError, match=r"two.toml:7: targets.measures.num_nonrel_judged_ret: "
                       r"lower values of num_nonrel_judged_ret are better"):  # fmt: skip
        load_benchmark_config(path)


def test_a_level_outside_its_measures_values_is_refused_at_its_own_line(tmp_path):
    # was refused at the target's header (line 6), listing every level: 0.1, 0.2, 0.3, 1.5
    extra = '[targets.measures."nDCG@10"]\nbaseline = [0.1, 0.2]\ngood = 0.3\nstrong = 1.5\n'
    with pytest.raises(UsageError, match=r"two.toml:9: targets.measures.nDCG@10.strong: "):
        load_benchmark_config(_config(_copy_demo(tmp_path), extra))


def test_a_target_under_any_spelling_is_the_measures(tmp_path):
    folder = _copy_demo(tmp_path)
    for key in ("ndcg_cut.10", "ndcg@10", "nDCG@10"):
        extra = f'[targets.measures."{key}"]\nbaseline = [0.10, 0.15]\ngood = 0.20\n'
        targets = load_benchmark_config(_config(folder, extra)).targets
        assert targets["nDCG@10"].good == 0.20 and (key == "nDCG@10" or key not in targets)


@pytest.mark.parametrize(
    "extra, message",
    [
        ('[targets.measures."Foo"]\nbaseline = [0.1, 0.2]\ngood = 0.3\n',
         "targets.measures.Foo: illegal measure 'Foo'"),
        ('[targets.measures."P.5,10"]\nbaseline = [0.1, 0.2]\ngood = 0.3\n',
         'targets.measures."P.5,10": a target is for one value, not several'),
        ('[targets.measures."nDCG@10"]\nbaseline = [0.5, 0.1]\ngood = 0.2\n',
         r"targets.measures.nDCG@10: the levels are not in order .*: 0.5, 0.1, 0.2"),
        ('[targets.measures."nDCG@10"]\nbaseline = [0.1, 0.2]\ngood = 0.3\nstrong = 0.25\n',
         "targets.measures.nDCG@10: the levels are not in order"),
        ('[statistics]\ntest = "tukey"\ncorrection = "holm"\nsamples = 1000\n',
         "statistics.correction: test tukey is family-wise"),
        ("[statistics]\nseed = -1\n", "statistics.seed: -1 is less than the minimum of 0"),
        ('measures = ["Foo@3"]\n', r"measures\[0\]: illegal measure 'Foo@3'"),
        ('[modes.h]\nfuse = ["lexical", "vector"]\nweights = [1]\n',
         r"modes.h.weights: 1 weight for 2 runs"),
        ('[modes.h]\nfuse = ["lexical", "vector"]\nnorm = "z-score"\n',
         "modes.h.norm: rrf fuses ranks"),
        ('[targets.measures."ndcg_cut.10"]\nbaseline = [0.1, 0.2]\ngood = 0.3\n'
         '[targets.measures.ndcg_cut_10]\nbaseline = [0.5, 0.6]\ngood = 0.7\n',
         "targets.measures.ndcg_cut_10: ndcg_cut.10 and ndcg_cut_10 are both nDCG@10's "
         "target"),
        # a level outside the measure's [0, 1] was printed and marked against; then
        # refused with every level listed, at the target's line: the levels outside now,
        # at the first one's key
        ('[targets.measures."nDCG@10"]\nbaseline = [0.1, 0.2]\ngood = 1.5\n',
         r"targets.measures.nDCG@10.good: nDCG@10 lies in \[0, 1\], a level "
         r"outside it is never reached or always passed: good = 1.5$"),
        ('[targets.measures."ndcg_cut.10"]\nbaseline = [-5, 0.2]\ngood = 0.5\n',
         r'targets.measures."ndcg_cut.10".baseline\[0\]: nDCG@10 lies in '
         r"\[0, 1\], .*: baseline\[0\] = -5$"),
        ('[targets.measures."MAP@100"]\nbaseline = [0.2, 0.3]\ngood = 0.5\nstrong = 1.01\n',
         r"targets.measures.MAP@100.strong: MAP@100 lies in \[0, 1\], .*: "
         r"strong = 1.01$"),
        # beyond a 64-bit integer: an OverflowError in the completeness check (exit 70)
        *(
            (f"[{table}]\n{key} = 9223372036854775808\n{fused}",
             f"{where}: 9223372036854775808 is greater than the maximum of 9223372036854775807")
            for table, key, fused, where in (
                ("completeness", "min_pool_depth", "", "completeness.min_pool_depth"),
                ("completeness", "unjudged_at", "", "completeness.unjudged_at"),
                ("validation", "max_depth", "", "validation.max_depth"),
                ("modes.h", "depth", 'fuse = ["lexical", "vector"]\n', "modes.h.depth"),
            )
        ),
    ],
)  # fmt: skip
def test_configuration_errors_name_the_file_and_the_key(tmp_path, extra, message):
    folder = _copy_demo(tmp_path)
    if extra.startswith("measures"):  # a top-level key: before the tables
        path = _config(folder, "")
        path.write_text(extra + path.read_text())
    else:
        path = _config(folder, extra)
    with pytest.raises(TrecbenchError, match=rf"two\.toml:\d+: {message}"):
        load_benchmark_config(path)


@pytest.mark.parametrize(
    "name, read",
    [("1", "the integer 1"), ("no", "the boolean false"), ("on", "the boolean true"),
     ("010", "the integer 8"), ("007", "the integer 7"), (".inf", "the number inf"),
     ("~", "nothing (null)"), ("2001-01-01", "the date 2001-01-01")],
)  # fmt: skip
def test_yaml_keys_read_as_numbers_or_booleans_are_refused_at_their_line(tmp_path, name, read):
    # '007' was "read as WrittenInt 7": the loader's class, not what YAML read
    folder = _copy_demo(tmp_path)
    path = folder / "modes.yaml"
    path.write_text(
        f"qrels: hpo-rtask.qrels\nmodes:\n  lexical: {{run: lexical.run}}\n"
        f"  {name}: {{run: vector.run}}\n"
    )
    with pytest.raises(TrecbenchError, match=rf"modes.yaml:4: .*key '{name}' is read as") as e:
        load_benchmark_config(path)
    assert f"is read as {read}, not as a name: quote it" in str(e.value)


def test_a_folder_holding_another_benchmarks_files_is_refused(tmp_path, capsys):
    from trecbench.cli import run

    folder = _copy_demo(tmp_path)
    out = tmp_path / "out"
    assert run(["benchmark", str(CONFIG.parent / "benchmark.toml"), "-o", str(out), "--quiet"]) == 0
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    assert run(["benchmark", str(_config(folder, "")), "-o", str(out), "--quiet"]) == 2
    said = capsys.readouterr().err
    assert "reports/hybrid.json, reports/reranked.json, runs/hybrid.run" in said
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before  # untouched
    assert run(["benchmark", str(CONFIG.parent / "benchmark.toml"), "-o", str(out), "--quiet"]) == 0


def test_runs_kept_in_the_output_folder_are_inputs_not_strays(tmp_path):
    folder = _copy_demo(tmp_path)
    (folder / "runs").mkdir()
    for name in ("lexical", "vector"):
        (folder / f"{name}.run").rename(folder / "runs" / f"{name}.run")
    path = _config(folder, "").read_text().replace('run = "', 'run = "runs/')
    (folder / "two.toml").write_text(path)
    run_benchmark(folder / "two.toml").write(folder)  # "output = ." beside its runs
    assert (folder / "BenchmarkReport.json").exists()


def test_a_strata_sidecar_of_other_qrels_is_refused(tmp_path):
    from trecbench.strata import group_labels

    strata = pd.DataFrame({"qid": ["a", "b"], "language": ["en", None]})
    with pytest.raises(UsageError, match=r"the strata hold none of these 2 topics \(e.g. 'x'\)"):
        group_labels(pd.Series(["x", "y"]), strata, "language")
    with pytest.raises(UsageError, match="the strata give none of these 2 topics a language$"):
        group_labels(pd.Series(["b", "y"]), strata, "language")
    labels = group_labels(pd.Series(["a", "y", "b"]), strata, "language")
    assert labels.tolist() == ["en", "(none)", "(none)"]


def test_strata_messages_name_the_configurations_keys_not_the_commands_options(tmp_path):
    # "strata.group_by: --group-by language needs --strata SIDECAR", once the runs were
    # scored
    tail = '[strata]\ngroup_by = "language"\n'
    path = _two_modes(tmp_path, "t1 0 A 1\n", "t1 Q0 A 1 2 a\n", "t1 Q0 A 1 2 b\n", "", tail)
    with pytest.raises(UsageError) as raised:
        load_benchmark_config(path)
    needs = "strata.group_by: 'language' needs strata.sidecar (or use qid-prefix)"
    assert str(raised.value) == f"{path}:7: {needs}"
    # settings built in Python are refused so when the benchmark runs
    path.write_text(path.read_text().replace('"language"', '"qid-prefix"'))
    # (at group_by's line: the file writes the key)
    settings = dataclasses.replace(load_benchmark_config(path), group_by="language")
    with pytest.raises(UsageError) as raised:
        run_benchmark(settings)
    assert str(raised.value) == f"{path}:7: {needs}"
    # without the configuration's text, the file and the key
    with pytest.raises(UsageError) as raised:
        run_benchmark(dataclasses.replace(settings, config_text=None))
    assert str(raised.value) == f"{path}: {needs}"
    # a sidecar giving none of the topics a language: said without the options too, and
    # at the sidecar's key (it is at fault, not the grouping), not at group_by's
    sidecar = tmp_path / "s.json"
    sidecar.write_text(json.dumps({"strata": {"queries": {"t9": {"language": "en"}}}}))
    path.write_text(path.read_text() + f'sidecar = "{sidecar.name}"\n')
    settings = dataclasses.replace(load_benchmark_config(path), group_by="language")
    with pytest.raises(UsageError) as raised:
        run_benchmark(settings)
    assert str(raised.value) == (
        f"{path}:8: strata.sidecar: the strata hold none of these 1 topics (e.g. 't1'): the "
        "sidecar of other qrels?"
    )


def test_a_fused_score_beyond_a_double_is_refused_naming_the_file_and_the_mode(tmp_path):
    # "the fused score of document 'A' in topic 't1' is inf ...", no file, no mode; then
    # the file and the mode without the mode's line
    fused = '[modes.h]\nfuse = ["a", "b"]\nmethod = "combsum"\nnorm = "none"\n'
    fused += "weights = [1e308, 1e308]\n"
    path = _two_modes(tmp_path, "t1 0 A 1\n", "t1 Q0 A 1 2 a\n", "t1 Q0 A 1 2 b\n", "", fused)
    with pytest.raises(UsageError) as raised:
        run_benchmark(path)
    assert str(raised.value).startswith(
        f"{path}:6: modes.h: the fused score of document 'A' in topic 't1' is inf (beyond a "
        "double's range): "
    )


def test_a_counts_mean_is_labelled_per_topic_in_the_kpi_table(tmp_path):
    folder = _copy_demo(tmp_path)
    path = _config(folder, "")
    path.write_text('measures = ["nDCG@10", "num_ret"]\n' + path.read_text())
    text = run_benchmark(path).markdown()
    assert "| num_ret (per-topic mean) | 100.0000 | 100.0000 | n/a |" in text
    assert "num_ret in reports/ and in `trecbench score` are sums over the topics" in text


@pytest.mark.parametrize("form", ["toml", "yaml"])
def test_a_configuration_read_from_a_pipe_starts_its_paths_here(tmp_path, monkeypatch, form):
    import yaml

    folder = _copy_demo(tmp_path)
    text = _config(folder, "").read_text()
    if form == "yaml":
        toml = pytest.importorskip("tomllib" if sys.version_info >= (3, 11) else "tomli")
        text = yaml.safe_dump(toml.loads(text))
    read, write = os.pipe()
    os.write(write, text.encode())
    os.close(write)
    monkeypatch.chdir(folder)  # "/dev/fd" holds none of its files: from here
    try:
        config = load_benchmark_config(f"/dev/fd/{read}")
    finally:
        os.close(read)
    assert config.qrels == folder / "hpo-rtask.qrels" or config.qrels.resolve() == (
        folder / "hpo-rtask.qrels"
    )
    assert [mode.name for mode in config.modes] == ["lexical", "vector"]


@pytest.mark.parametrize(
    "text, message",
    [
        ('qrels = "a"\nqrels = "b"\n', "-:2: not valid TOML: duplicate key 'qrels' (first on"),
        ('qrels = "a"\nseed = \n', "-:2: not valid TOML: Invalid value (column 8)"),
        ("seed = " + "9" * 4400 + "\n", "-:1: not valid TOML: an integer of over 4300 digits"),
    ],
    ids=["twice", "no value", "long integer"],
)
def test_broken_toml_from_a_pipe_is_said_as_toml_not_as_yaml_s_one_string(tmp_path, text, message):
    # YAML reads broken TOML as one plain string: "-:1: (top level): 'qrels = ...' is not
    # of type 'object'", exit 1, hid the TOML error and its line
    import subprocess

    result = subprocess.run(
        [sys.executable, "-m", "trecbench", "benchmark", "-", "-o", "out"],
        input=text.encode(),
        capture_output=True,
        cwd=tmp_path,
    )
    assert result.returncode == 2 and result.stdout == b""
    assert result.stderr.decode().startswith(f"trecbench: {message}")
    assert result.stderr.count(b"\n") == 1 and not (tmp_path / "out").exists()


def test_a_yaml_list_from_a_pipe_is_refused_as_yaml_and_a_long_integer_at_its_own_line(
    tmp_path,
):
    import subprocess

    def refusal(text: str, name: str) -> str:
        given = ["benchmark", name, "-o", "out"]
        result = subprocess.run(
            [sys.executable, "-m", "trecbench", *given],
            input=text.encode(),
            capture_output=True,
            cwd=tmp_path,
        )
        return result.stderr.decode()

    # 4a5d1351 said a YAML list "not valid TOML"; it is YAML's, as before
    said = refusal("- name: x\n- qrels: y\n", "-")
    assert said.startswith("trecbench: -:1: (top level): [") and "is not of type 'object'" in said
    # the line of the value, not of 4,301 digits earlier inside a string (cf41509e)
    digits = "9" * 4400
    (tmp_path / "c.toml").write_text(f'description = "{digits}"\nqrels = "q"\nseed = {digits}\n')
    said = refusal("", "c.toml")
    assert said == "trecbench: c.toml:3: not valid TOML: an integer of over 4300 digits\n"


def _two_modes(tmp_path, qrels: str, a: str, b: str, head: str = "", tail: str = ""):
    """A configuration ``c.toml`` of modes a and b (runs ``a``, ``b``) on ``qrels``, with
    ``head`` before the modes and ``tail`` after them."""
    for name, text in (("q.qrels", qrels), ("a.run", a), ("b.run", b)):
        (tmp_path / name).write_text(text)
    path = tmp_path / "c.toml"
    modes = '[modes.a]\nrun = "a.run"\n[modes.b]\nrun = "b.run"\n'
    path.write_text(f'qrels = "q.qrels"\n{head}{modes}{tail}')
    return path


def test_a_mode_without_results_for_a_topic_has_its_qrels_count_of_num_rel(tmp_path):
    # b has no results for t2: num_rel is a count of the qrels, 1.5 per topic for every run
    # (trec_eval -c: num_rel all 3 over 2 topics); filled with 0 it read 1.0, and compare
    # made a significant drop of it on the demo data
    lenient = '[validation]\nprofile = "lenient"\n'  # a missing topic is no error
    head = f'measures = ["num_rel", "P@1"]\n{lenient}'
    qrels, a = "t1 0 A 1\nt1 0 B 1\nt2 0 C 1\n", "t1 Q0 A 1 2 a\nt2 Q0 C 1 1 a\n"
    bench = run_benchmark(_two_modes(tmp_path, qrels, a, "t1 Q0 A 1 2 b\n", head))
    assert "| num_rel (per-topic mean) | 1.5000 | 1.5000 | n/a |" in bench.markdown()
    assert "| P@1 | **1.0000** | 0.5000 | a |" in bench.markdown()
    # compare, power and agree count it alike
    runs = {"a": str(tmp_path / "a.run"), "b": str(tmp_path / "b.run")}
    qrels = str(tmp_path / "q.qrels")
    summary = trecbench.compare(qrels, runs, ["num_rel"], samples=100).summary
    assert summary["mean"].tolist() == [1.5, 1.5]
    from trecbench.conclusions.scores import EvaluationFlags, topic_scores

    scores = topic_scores(qrels, runs, ["num_rel"], EvaluationFlags())
    assert scores.values[:, :, 0].tolist() == [[2.0, 2.0], [1.0, 1.0]]


@pytest.mark.parametrize(
    "mode, measures, message",
    [
        ('method = "combsum"\nk = 10\n', "", r"modes\.h\.k: combsum has no k"),
        ("", 'measures = ["map", "gm_map"]\n', r"measures\[1\]: gm_map: no value per topic"),
        (
            "",
            'measures = ["relstring", "num_q"]\n',
            r"measures\[0\]: relstring: no number per topic \(its value per topic is text: .*\); "
            r"num_q: no value per topic",
        ),
        (  # a target of a measure not benchmarked marked nothing
            '[targets.measures."P@5"]\nbaseline = [0.1, 0.2]\ngood = 0.3\n',
            'measures = ["nDCG@10"]\n',
            r"targets\.measures\.P@5: P@5 is not benchmarked \(measures: nDCG@10\)",
        ),
        (  # no reranking section, "reranking": [] in the report
            'reranks = "a"\n',
            'measures = ["P@5", "map"]\n',
            r"c\.toml:9: modes\.h\.reranks: no nDCG measure is benchmarked \(measures: P@5, map\); "
            r"add one \(nDCG@10\) or drop it$",
        ),
    ],
)
def test_a_setting_the_benchmark_would_leave_out_is_refused(tmp_path, mode, measures, message):
    # a k with combsum, and gm_map, vanished without a word (fuse refuses --k with combsum)
    fused = f'[modes.h]\nfuse = ["a", "b"]\n{mode}'
    path = _two_modes(tmp_path, "t1 0 A 1\n", "t1 Q0 A 1 2 a\n", "t1 Q0 B 1 2 b\n", measures, fused)
    with pytest.raises(TrecbenchError, match=message) as raised:
        load_benchmark_config(path)
    assert raised.value.exit_code == 1  # a setting refused: a usage error, as the schema's


def test_a_family_of_decimal_cutoffs_asked_whole_is_benchmarked(tmp_path):
    # iprec_at_recall asked without cutoffs: the targets' check found no name for it and
    # the configuration's load ended in a TypeError (exit 70)
    b = "t1 Q0 B 1 2 b\nt1 Q0 A 2 1 b\n"
    head = 'measures = ["iprec_at_recall", "P.2"]\n'
    text = run_benchmark(_two_modes(tmp_path, "t1 0 A 1\n", "t1 Q0 A 1 2 a\n", b, head)).markdown()
    assert "| iprec_at_recall_0.00 | **1.0000** | 0.5000 | a |" in text
    # a target of one of its values is taken (it was refused as not benchmarked)
    target = '[targets.measures."iprec_at_recall..10"]\nbaseline = [0.1, 0.2]\ngood = 0.3\n'
    path = _two_modes(tmp_path, "t1 0 A 1\n", "t1 Q0 A 1 2 a\n", b, head, target)
    assert "| iprec_at_recall_0.10 | 0.1–0.2 | ≥ 0.3 |" in run_benchmark(path).markdown()


@pytest.mark.parametrize(
    ("measures", "spellings", "shown"),
    [
        ('["nDCG@10", "ndcg_cut.10"]', "nDCG@10 and ndcg_cut.10", "nDCG@10"),
        ('["P", "P@10"]', "P_10 and P@10", "P@10"),
        (
            '["iprec_at_recall", "IPrec@0.5"]',
            "iprec_at_recall_0.50 and IPrec@0.5",
            "iprec_at_recall_0.50",
        ),
    ],
)
def test_a_measure_asked_by_two_spellings_is_refused(tmp_path, capsys, measures, spellings, shown):
    # merged into one without a word, where compare refuses it; then without the line
    from trecbench.cli import run

    b = "t1 Q0 B 1 2 b\nt1 Q0 A 2 1 b\n"
    head = f"measures = {measures}\n"
    path = _two_modes(tmp_path, "t1 0 A 1\n", "t1 Q0 A 1 2 a\n", b, head)
    out = tmp_path / "out"
    assert run(["benchmark", str(path), "-o", str(out), "--quiet"]) == 1
    assert capsys.readouterr().err == (
        f"trecbench: {path}:2: measures: {spellings} are one measure ({shown}): "
        "benchmark shows and tests each measure once, by that name; ask it by one spelling\n"
    )
    assert not out.exists()


def test_one_spelling_given_twice_is_one_measure_as_compare_takes_it(tmp_path):
    # an exact repeat is no second spelling: one row, as compare takes -m P@1 -m P@1
    # (and trec_eval -m P.1 -m P.1); leaderboard alike (tests/test_leaderboard_provenance)
    b = "t1 Q0 B 1 2 b\nt1 Q0 A 2 1 b\n"
    shown = []
    for folder, measures in (("repeated", '["P@1", "P@1"]'), ("once", '["P@1"]')):
        (tmp_path / folder).mkdir()
        head = f"measures = {measures}\n"
        path = _two_modes(tmp_path / folder, "t1 0 A 1\n", "t1 Q0 A 1 2 a\n", b, head)
        bench = run_benchmark(path)
        assert sorted(set(bench.comparison.summary["measure"])) == ["P@1"]
        shown.append(bench.markdown().replace(folder, "F"))
    assert shown[0] == shown[1]


def test_a_missing_topic_keeps_num_rel_at_the_measure_s_own_level(tmp_path):
    # NumRel(rel=2) of a topic a run lacks was filled with its count at -l (1): 2 for 0
    (tmp_path / "q.qrels").write_text("1 0 d1 1\n1 0 d2 1\n2 0 d1 2\n2 0 d4 1\n3 0 d5 1\n")
    (tmp_path / "a.run").write_text("1 Q0 d1 1 3 a\n2 Q0 d4 1 5 a\n3 Q0 d5 1 1 a\n")
    (tmp_path / "b.run").write_text("1 Q0 d2 1 3 b\n3 Q0 d5 1 1 b\n")  # no topic 2
    runs = {name: str(tmp_path / f"{name}.run") for name in "ab"}
    measures = ["NumRel(rel=2)", "num_rel"]
    summary = trecbench.compare(str(tmp_path / "q.qrels"), runs, measures, samples=100).summary
    means = {(row.run, row.measure): row.mean for row in summary.itertuples()}
    # at rel >= 2 the topics count 0, 1, 0 (trec_eval -l 2 -q -m num_rel); at 1: 2, 2, 1
    assert means[("b", "NumRel(rel=2)")] == means[("a", "NumRel(rel=2)")] == pytest.approx(1 / 3)
    assert means[("b", "num_rel")] == means[("a", "num_rel")] == pytest.approx(5 / 3)
    text = trecbench.compare(str(tmp_path / "q.qrels"), runs, measures, samples=100).render()
    assert "scores 0 on it (but NumRel(rel=2), num_rel: its count of the qrels)" in " ".join(
        text.split()
    )


@pytest.mark.parametrize(
    ("value", "threshold", "shown"),
    [
        (3 / 7, 0.4285, "42.9%"),
        (1 / 3, 0.3333, "33.333%"),  # 33.3% read as under the limit it exceeds
        (1.0, 1.0, "100.0%"),
        (0.5, 0.504, "50.0%"),
        (0.50001, 0.5, "50.001%"),
        (0.3, 0.1, "30.0%"),
    ],
)
def test_a_completeness_limit_is_printed_as_set_and_a_share_on_its_side_of_it(
    value, threshold, shown, tmp_path
):
    # "42.9% of the top 10 documents are unjudged (> 43%)" for a limit of 0.4285
    from trecbench.plurals import exact_percent, percent_beside

    assert percent_beside(value, threshold) == shown
    assert exact_percent(0.4285) == "42.85%" and exact_percent(0.504) == "50.4%"
    assert exact_percent(1.0) == "100%"
    qrels, run = tmp_path / "s.qrels", tmp_path / "s1.run"
    qrels.write_text("q1 0 a 1\nq1 0 b 0\nq2 0 c 1\nq2 0 d 0\nq2 0 e 0\n")
    run.write_text(
        "q1 Q0 a 1 3 t\nq1 Q0 zz 2 2 t\nq2 Q0 c 1 5 t\nq2 Q0 d 2 4 t\nq2 Q0 e 3 3 t\n"
        "q2 Q0 f 4 2 t\nq2 Q0 g 5 1 t\n"
    )
    config = tmp_path / "c.toml"
    config.write_text(
        'qrels = "s.qrels"\n[modes.one]\nrun = "s1.run"\n'
        "[completeness]\nmax_unjudged = 0.4285\nmin_pool_depth = 1\n"
    )
    assert run_cli(["benchmark", str(config), "-o", str(tmp_path / "o"), "--quiet"]) == 0
    text = (tmp_path / "o" / "BenchmarkComparison.md").read_text()
    assert "42.9% of the top 10 documents are unjudged (> 42.85%)" in text
    assert "unjudged ≤ 42.85% of the top 10" in text
    assert "| 2/2 (100.0%) | 2 (min 1) | 42.9% | incomplete" in text  # cells as the status


def test_the_largest_pool_depth_is_a_threshold_like_any_other(tmp_path):
    # a depth of 1 (B unjudged) against 2^63 - 1, as set
    tail = "[completeness]\nmin_pool_depth = 9223372036854775807\n"
    a = "t1 Q0 A 1 2 a\nt1 Q0 B 2 1 a\n"
    bench = run_benchmark(_two_modes(tmp_path, "t1 0 A 1\n", a, "t1 Q0 A 1 2 b\n", "", tail))
    problem = bench.modes[0].completeness["problems"][0]
    assert problem["check"] == "pool_depth"
    assert problem["message"].startswith("median judged depth 1 < 9223372036854775807 (")


def test_a_median_judged_depth_is_printed_as_it_is():
    # depths 123456 and 123457: the table and the message said "123456" for 123456.5
    import numpy as np
    import pyarrow as pa

    from trecbench.benchmarking.completeness import completeness
    from trecbench.number_text import exact_number

    values = (123456.5, 6.0, 1e-300, 1e9, 1234567.0, 0.1 + 0.2)
    shown = ["123456.5", "6", "1e-300", "1e+09", "1234567", "0.30000000000000004"]
    assert [exact_number(value) for value in values] == shown
    depth = np.arange(123458)
    docnos = pa.array([f"d{i}" for i in depth]).take(np.r_[depth, depth])
    topics = ["q1"] * len(depth) + ["q2"] * len(depth)
    run = pa.table({"qid": topics, "docno": docnos, "rank": np.r_[depth, depth] + 1})
    judged = np.r_[depth[:123456], len(depth) + depth[:123457]]
    qrels = run.take(judged).drop(["rank"]).append_column("rel", pa.array([1] * len(judged)))
    found = completeness(run, qrels, ["q1", "q2"], {"min_pool_depth": 200000, "max_unjudged": 1})
    assert found["pool_depth"]["median"] == 123456.5
    assert found["problems"][0]["message"].startswith("median judged depth 123456.5 < 200000 (")


def test_the_benchmark_prints_its_rrf_k_and_significance_level_as_set(tmp_path):
    # "rrf (k=60.1235)" and "adjusted p < 0.0123457" where k = 60.123456789 and alpha is
    # 1 - 0.987654321 (the JSON held both exactly)
    qrels, a = "t1 0 A 1\nt2 0 C 1\n", "t1 Q0 A 1 2 a\nt1 Q0 B 2 1 a\nt2 Q0 C 1 1 a\n"
    b = "t1 Q0 B 1 2 b\nt1 Q0 A 2 1 b\nt2 Q0 C 1 1 b\n"
    head = "[statistics]\nconfidence = 0.987654321\nsamples = 1000\n"
    tail = '[modes.h]\nfuse = ["a", "b"]\nk = 60.123456789\n'
    text = run_benchmark(_two_modes(tmp_path, qrels, a, b, head, tail)).markdown()
    flat = " ".join(text.split())
    assert "rrf (k=60.123456789)" in flat and "adjusted p < 0.012345679" in flat
    assert "0.0123457" not in flat and "60.1235" not in flat


def test_a_short_run_judged_to_its_end_is_not_a_shallow_pool():
    # 'median judged depth 1 < 10' and the shallow-pool action, with nothing unjudged
    import pyarrow as pa

    from trecbench.benchmarking.completeness import completeness

    qrels = pa.table({"qid": ["q1", "q1", "q2", "q2"], "docno": ["a", "b", "c", "d"],
                      "rel": [1, 0, 1, 0]})  # fmt: skip
    short = pa.table({"qid": ["q1", "q2"], "docno": ["a", "c"], "rank": [1, 1]})
    found = completeness(short, qrels, ["q1", "q2"], {"min_pool_depth": 10})
    assert found["pool_depth"]["median"] == 1 and found["problems"] == []
    deep = pa.table({"qid": ["q1"] * 3 + ["q2"] * 3, "docno": ["a", "x", "b", "c", "y", "d"],
                     "rank": [1, 2, 3, 1, 2, 3]})  # fmt: skip
    found = completeness(deep, qrels, ["q1", "q2"], {"min_pool_depth": 10, "max_unjudged": 1})
    assert [p["check"] for p in found["problems"]] == ["pool_depth"]
    # one topic judged to its end, one at depth 1: the median shown is the table's (1.5 of
    # depths 1 and 2), never that of 1 and 10 (5.5: no topic's)
    mixed = pa.table({"qid": ["q1"] * 3 + ["q2"] * 2, "docno": ["a", "x", "b", "c", "d"],
                      "rank": [1, 2, 3, 1, 2]})  # fmt: skip
    found = completeness(mixed, qrels, ["q1", "q2"], {"min_pool_depth": 10, "max_unjudged": 1})
    assert found["pool_depth"]["median"] == 1.5
    assert found["problems"][0]["message"] == (
        "median judged depth 1.5 < 10 (documents judged before the first unjudged one; "
        "1 of 2 topics judged to the end counts as 10 deep)"
    )


def test_a_fusion_deeper_than_the_validation_allows_is_refused_before_any_run_is_read(tmp_path):
    # fused 200 deep, its run failed R8 at 56 lines of runs/h.run, a file never written;
    # settings built in Python alike (depth None there keeps every document)
    from trecbench.benchmarking.settings import BenchmarkSettings, Mode
    from trecbench.errors import UsageError

    fused = '[modes.h]\nfuse = ["a", "b"]\ndepth = 200\n'
    path = _two_modes(tmp_path, "t1 0 A 1\n", "t1 Q0 A 1 2 a\n", "t1 Q0 B 1 2 b\n", "", fused)
    with pytest.raises(
        UsageError, match=r"c\.toml:8: modes\.h\.depth: the fusion is 200 deep, beyond valid"
    ):
        load_benchmark_config(path)
    modes = [Mode("a", "A", run=tmp_path / "a.run"), Mode("b", "B", run=tmp_path / "b.run")]
    for depth, said in ((200, "is 200 deep"), (None, "keeps every document")):
        hybrid = Mode("h", "H", fuse=["a", "b"], depth=depth)
        with pytest.raises(UsageError, match=f"modes\\.h: the fusion {said}, beyond"):
            BenchmarkSettings(path=path, name="x", qrels=tmp_path / "q", modes=[*modes, hybrid])
    lenient = BenchmarkSettings(  # where R8 is a warning the fusion is as deep as asked
        path=path, name="x", qrels=tmp_path / "q", modes=[*modes, hybrid], profile="lenient"
    )
    assert lenient.mode("h").depth is None


def test_the_pages_benchmark_part_shows_names_as_they_are(tmp_path):
    # report.html's "The benchmark" block (plain text) read "# Benchmark: trec\_dl" and
    # "bm25\_rm3 (baseline)": the Markdown file's escapes, shown as they are
    import html

    head = 'name = "trec_dl"\nmeasures = ["P@1"]\n'
    labels = '[modes.a]\nlabel = "bm25_rm3"\n'
    path = _two_modes(tmp_path, "t1 0 A 1\n", "t1 Q0 A 1 2 a\n", "t1 Q0 A 1 2 b\n", head)
    path.write_text(path.read_text().replace("[modes.a]\n", labels))
    bench = run_benchmark(path)
    assert "trec\\_dl" in bench.markdown(False)  # the Markdown file keeps its escapes
    page = bench.to_html()
    shown = html.unescape(page[page.index('<h2 id="benchmark">') : page.index('<h2 id="summary">')])
    assert ">Benchmark: trec_dl</h2>" in shown and ">bm25_rm3 (baseline)</th>" in shown
    assert "\\_" not in shown


@pytest.mark.parametrize(
    ("entries", "names"), [('["P@5 map"]', ["P@5", "map"]), ('["P@1 "]', ["P@1"])]
)
def test_a_measures_entry_is_a_dash_m_value_its_names_separated_by_blanks(tmp_path, entries, names):
    # "P@5 map" was two measures until evaluate refused an entry holding a blank (07a64243):
    # the configuration was then refused late, at no line. By hand: t1's one relevant
    # document A retrieved first: P@5 = 1/5, AP = 1, P@1 = 1
    head = f"measures = {entries}\n"
    path = _two_modes(tmp_path, "t1 0 A 1\n", "t1 Q0 A 1 2 a\n", "t1 Q0 A 1 2 b\n", head)
    assert load_benchmark_config(path).measures == names
    frame = run_benchmark(path).evaluation.to_frame()
    expected = {"P@5": 0.2, "map": 1.0, "P@1": 1.0}
    assert {m: frame[m].tolist() for m in names} == {m: [expected[m]] * 2 for m in names}


def test_a_name_refused_from_an_entry_of_several_is_told_with_the_entry(tmp_path, capsys):
    # 'P@ 5' was refused as "illegal measure 'P@'", a fragment of no entry written
    head = 'measures = ["map", "P@ 5"]\n'
    path = _two_modes(tmp_path, "t1 0 A 1\n", "t1 Q0 A 1 2 a\n", "t1 Q0 A 1 2 b\n", head)
    assert run_cli(["benchmark", str(path), "-o", str(tmp_path / "out")]) == 1
    assert capsys.readouterr().err == (
        f"trecbench: {path}:2: measures[1]: illegal measure 'P@': the cutoff must be a positive "
        "integer (in the entry 'P@ 5', whose blanks separate names)\n"
    )


def test_a_reranking_improvement_over_zero_says_why_it_is_n_a(tmp_path):
    # the mode reranked scores nDCG@10 0: the improvement is n/a, and nothing said why
    lenient = 'measures = ["nDCG@10"]\n[validation]\nprofile = "lenient"\n'
    path = _two_modes(tmp_path, "t1 0 A 1\n", "t1 Q0 X 1 2 a\n", "t1 Q0 A 1 2 b\n", lenient)
    path.write_text(path.read_text() + 'reranks = "a"\n')
    markdown = run_benchmark(path).markdown()
    assert "| b | a | nDCG@10 | 0.0000 | 1.0000 | n/a |" in markdown
    said = "n/a: the reranked mode's value is 0, from which no relative change is defined."
    assert f"| n/a |\n\n{said}\n" in markdown


def test_a_benchmark_is_not_written_from_another_working_folder(tmp_path, monkeypatch):
    # loaded as "c.toml" in its folder: its files' paths are relative to that folder, and
    # after an os.chdir they name others (an input could be written over): refused
    folder = tmp_path / "here"
    folder.mkdir()
    lenient = '[validation]\nprofile = "lenient"\n'
    _two_modes(folder, "t1 0 A 1\n", "t1 Q0 A 1 2 a\n", "t1 Q0 A 1 2 b\n", lenient)
    monkeypatch.chdir(folder)
    bench = run_benchmark("c.toml")
    monkeypatch.chdir(tmp_path)
    message = f"the inputs were read in {folder} \\('c.toml' among them\\)"
    with pytest.raises(UsageError, match=message):
        bench.write(folder / "out")
    with pytest.raises(UsageError, match=message):
        bench.to_html(path=folder / "a.run")
    assert (folder / "a.run").read_text() == "t1 Q0 A 1 2 a\n"
    # a page not written is made from the modes and qrels in memory, reading no file
    assert "<html" in bench.to_html()
    monkeypatch.chdir(folder)
    assert bench.write("out")


def test_every_ndcg_measure_benchmarked_has_its_reranking_row(tmp_path):
    # the rows were for names starting "ndcg": Rndcg (nDCG at rank R) had none, and a
    # reranks with Rndcg alone benchmarked was refused as no nDCG measure benchmarked
    qrels = "t1 0 A 1\nt1 0 B 1\n"
    a = "t1 Q0 C 1 3 a\nt1 Q0 A 2 2 a\nt1 Q0 B 3 1 a\n"
    b = "t1 Q0 A 1 3 b\nt1 Q0 B 2 2 b\nt1 Q0 C 3 1 b\n"
    head = 'measures = ["Rndcg", "map", "ndcg_rel", "nDCG@10"]\n'
    lenient = '[validation]\nprofile = "lenient"\n'
    path = _two_modes(tmp_path, qrels, a, b, head, f'reranks = "a"\n{lenient}')
    rows = run_benchmark(path).reranking
    assert [row["measure"] for row in rows] == ["Rndcg", "ndcg_rel", "nDCG@10"]
    # Rndcg of a: C unjudged first, A at 2 of R = 2: (1 / log2 3) / (1 + 1 / log2 3), by hand
    # (trec_eval 9.0.8 -m Rndcg prints 0.3869); b ranks both relevant first: 1
    before = (1 / math.log2(3)) / (1 + 1 / math.log2(3))
    assert rows[0]["baseline"] == pytest.approx(before, abs=1e-12)
    assert rows[0]["reranked"] == 1.0
    assert rows[0]["improvement"] == pytest.approx((1 - before) / before * 100, abs=1e-9)
    assert not reranking_measure("SDCG@10") and not reranking_measure("dcg")
    assert reranking_measure("alpha_nDCG@10") and not reranking_measure("no such measure")


def test_the_best_modes_listed_keep_a_label_s_comma_apart(tmp_path):
    """Best modes "x, y" and "z" were listed 'x, y, z', naming the mode "y" best, which
    is not (helper-599): a listed label's comma is %2C, in the Markdown and the page."""
    shutil.copy(DEMO / "vector.run", tmp_path / "vector2.run")
    path = tmp_path / "comma.toml"
    path.write_text(
        f'qrels = "{DEMO / "hpo-rtask.qrels"}"\nmeasures = ["nDCG@10"]\n'
        f'[modes.a]\nlabel = "x, y"\nrun = "{DEMO / "vector.run"}"\n'
        f'[modes.b]\nlabel = "y"\nrun = "{DEMO / "lexical.run"}"\n'
        '[modes.c]\nlabel = "z"\nrun = "vector2.run"\n'
    )
    bench = run_benchmark(path)
    row = next(line for line in bench.markdown().splitlines() if line.startswith("| nDCG@10"))
    assert row.endswith("| x%2C y, z |")
