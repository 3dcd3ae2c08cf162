"""What the benchmark's outputs say of its settings: no depth limit in words (not "None"),
integer settings refused as floats alike at the key written, no targets table of its header
alone, and every run's ``input`` from the current folder, as the manifest's."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pyarrow.compute as pc
import pytest
from conftest import ROOT

from trecbench.benchmarking import load_benchmark_config, run_benchmark
from trecbench.comparison import html_available
from trecbench.errors import UsageError

DEMO = ROOT / "data" / "hpo-rtask"
MODES_YAML = "modes:\n  a: {run: lexical.run}\n  b: {run: vector.run}\n  h: {fuse: [a, b]}\n"
MODES_TOML = (
    '[modes.a]\nrun = "lexical.run"\n[modes.b]\nrun = "vector.run"\n[modes.h]\nfuse = ["a", "b"]\n'
)


@pytest.fixture
def demo(tmp_path: Path) -> Path:
    """The demo's qrels and two runs, copied into a folder of their own."""
    for name in ("hpo-rtask.qrels", "lexical.run", "vector.run"):
        shutil.copy(DEMO / name, tmp_path / name)
    return tmp_path


def _header(text: str) -> str:
    return text[: text.index("## KPIs")]


def test_no_depth_limit_is_said_in_words_and_the_fusion_keeps_every_document(demo):
    # "h = rrf (k=60) of a, b, depth None" and "at most None documents per topic"
    config = demo / "c.yaml"
    config.write_text("qrels: hpo-rtask.qrels\nvalidation: {max_depth: null}\n" + MODES_YAML)
    bench = run_benchmark(config)
    header = _header(bench.markdown(False))
    assert "None" not in header
    assert (
        "- Modes: a = run " in header
        and "; h = rrf (k=60) of a, b, every document kept\n" in header
    )
    assert "- Validation: profile rtask, no limit on documents per topic\n" in header
    # the fused run does keep every document: one row per document either run retrieved
    runs = [bench.modes[i].table for i in (0, 1)]
    pairs = {
        pair
        for t in runs
        for pair in zip(t["qid"].to_pylist(), t["docno"].to_pylist(), strict=True)
    }
    fused = bench.modes[2].table
    assert fused.num_rows == len(pairs)
    deepest = pc.max(pc.value_counts(fused["qid"]).field("counts")).as_py()
    assert deepest > 100  # beyond the default depth
    if html_available():
        page = bench.to_html()
        assert "depth None" not in page and "at most None" not in page
        assert "no limit on documents per topic" in page and "every document kept" in page


@pytest.mark.parametrize(
    ("table", "key", "value", "where"),
    [
        ("validation", "max_depth", "100.0", "validation.max_depth"),
        ("completeness", "unjudged_at", "10.0", "completeness.unjudged_at"),
        ("completeness", "min_pool_depth", "5.0", "completeness.min_pool_depth"),
        ("statistics", "seed", "3.0", "statistics.seed"),
        ("statistics", "samples", "1000.0", "statistics.samples"),
        ("modes.h", "depth", "10.0", "modes.h.depth"),
    ],
)
@pytest.mark.parametrize("kind", ["toml", "yaml"])
def test_a_whole_float_for_an_integer_setting_is_refused_at_its_key(
    demo, table, key, value, where, kind
):
    # max_depth 100.0 was printed "at most 100.0 documents" (or, with a fusion, refused as
    # "modes.h: depth must be a positive integer, not 100.0"), unjudged_at 10.0 "Unjudged
    # in top 10.0", while seed 3.0 was refused under "statistics"
    config = demo / f"c.{kind}"
    if kind == "toml":
        modes = MODES_TOML
        if table == "modes.h":
            modes += f"{key} = {value}\n"
            text = f'qrels = "hpo-rtask.qrels"\n{modes}'
        else:
            text = f'qrels = "hpo-rtask.qrels"\n[{table}]\n{key} = {value}\n{modes}'
        line = text.split("\n").index(f"{key} = {value}") + 1
    else:
        modes = MODES_YAML
        if table == "modes.h":
            modes = modes.replace("fuse: [a, b]}", f"fuse: [a, b], {key}: {value}}}")
            text = f"qrels: hpo-rtask.qrels\n{modes}"
            line = 5
        else:
            text = f"qrels: hpo-rtask.qrels\n{table}:\n  {key}: {value}\n{modes}"
            line = 3
    config.write_text(text)
    with pytest.raises(UsageError) as raised:
        load_benchmark_config(config)
    assert str(raised.value).startswith(
        f"{config}:{line}: {where}: {value} is not of type 'integer'"
    )
    # the same setting written as an integer is taken
    config.write_text(text.replace(value, value.removesuffix(".0")))
    assert load_benchmark_config(config).path == config


def test_no_target_of_any_benchmarked_measure_leaves_the_targets_table_out(demo):
    # a header-only "| Target | Typical (BM25) | Good | Strong |" table and a legend of
    # marks no cell carries
    config = demo / "c.toml"
    config.write_text('qrels = "hpo-rtask.qrels"\nmeasures = ["P@10"]\n' + MODES_TOML)
    bench = run_benchmark(config)
    text = bench.markdown(False)
    assert "| Target |" not in text and "under-typical" not in text
    assert "No benchmarked measure has a target (targets: trec2025-rtask)." in text
    assert "▲/▼ = significantly better/worse than the baseline mode" in text
    if html_available():
        page = bench.to_html()
        assert "Typical (BM25)" not in page and "under-typical" not in page
        assert "No benchmarked measure has a target" in page
    # with a target, the table and the marks' legend are there
    config.write_text(config.read_text().replace('"P@10"', '"P@10", "nDCG@10"'))
    text = run_benchmark(config).markdown(False)
    assert "| Target |" in text and "under-typical / typical / good / strong" in text
    assert "No benchmarked measure" not in text


def test_a_range_of_negative_target_levels_reads_as_a_range(demo):
    # a hyphen joined them: -90--80 (and -5-0.2 read as a subtraction)
    config = demo / "c.toml"
    target = "[targets.measures.utility]\nbaseline = [-90, -80]\ngood = -70\n"
    config.write_text(
        'qrels = "hpo-rtask.qrels"\nmeasures = ["nDCG@10", "utility"]\n' + MODES_TOML + target
    )
    text = run_benchmark(config).markdown(False)
    assert "| utility | -90–-80 | ≥ -70 | n/a |" in text
    # a level of -0.0 read "-0" (the range "-1.5–-0")
    config.write_text(
        config.read_text().replace("[-90, -80]\ngood = -70", "[-1.5, -0.0]\ngood = 0.5")
    )
    assert "| utility | -1.5–0 | ≥ 0.5 | n/a |" in run_benchmark(config).markdown(False)
    assert "| nDCG@10 | 0.3–0.32 | ≥ 0.35 | ≥ 0.4 |" in text


def test_every_runs_input_is_recorded_from_the_current_folder_as_the_manifest(demo, monkeypatch):
    # the fused mode's input was "runs/h.run" (from the output folder), the run modes' and
    # the manifest's from the current folder
    monkeypatch.chdir(demo.parent)
    config = Path(demo.name) / "c.toml"
    config.write_text('qrels = "hpo-rtask.qrels"\n' + MODES_TOML)
    out = Path("out1")
    run_benchmark(config).write(out)
    report = json.loads((out / "BenchmarkReport.json").read_text())
    manifest = json.loads((out / "ExperimentManifest.json").read_text())
    inputs = {run["name"]: run["input"] for run in report["runs"]}
    fused = os.path.join("out1", "runs", "h.run")
    assert inputs == {
        "a": os.path.join(demo.name, "lexical.run"),
        "b": os.path.join(demo.name, "vector.run"),
        "h": fused,
    }
    recorded = {item["path"] for item in manifest["inputs"] + manifest["outputs"]}
    assert set(inputs.values()) <= recorded
    own = json.loads((out / "reports" / "h.json").read_text())
    assert fused in {item["path"] for item in own["inputs"]}
    for path in inputs.values():
        assert Path(path).is_file()  # each read from the current folder
    # a report made without an output folder has no file for the fused run
    assert {r["name"]: r["input"] for r in run_benchmark(config).report()["runs"]}["h"] is None


@pytest.mark.parametrize(("written", "recorded"), [("60.0", 60), ("60", 60), ("2.5", 2.5)])
def test_a_fusions_k_is_recorded_as_fuse_records_it(demo, written, recorded):
    # `k = 60.0` was recorded 60.0 where `trecbench fuse --k 60` records 60
    from trecbench.fusion import k_as_given

    config = demo / "c.toml"
    config.write_text('qrels = "hpo-rtask.qrels"\n' + MODES_TOML + f"k = {written}\n")
    (fusion,) = [m.fusion() for m in load_benchmark_config(config).modes if m.fuse]
    assert fusion["k"] == recorded and type(fusion["k"]) is type(recorded)
    assert fusion["k"] == k_as_given(float(written))  # fuse's --k comes as a float
    section = run_benchmark(config).section()  # BenchmarkReport.json's benchmark
    (record,) = [m["fusion"] for m in section["modes"] if m["fusion"]]
    assert json.dumps(record["k"]) == json.dumps(recorded)


def test_a_mean_that_is_not_0_is_never_written_0_in_the_kpi_and_reranking_tables(tmp_path):
    # RBP(p=0.01)'s means of 9.9e-19 and 2.5e-13 read "0.0000 | **0.0000**" (the second
    # bold as the better of two equal numbers), where the summary wrote 9.9e-19 and 2.5e-13
    qrels, runs = [], {"a": [], "b": []}
    for topic, deep in enumerate((7, 8, 9, 8)):  # b's one relevant document at rank 7 to 9
        qrels.append(f"t{topic} 0 rel 1\n")
        for mode, at in (("a", 10), ("b", deep)):
            documents = [f"n{i}" for i in range(11)]
            documents.insert(at - 1, "rel")
            runs[mode] += [
                f"t{topic} Q0 {d} {r} {100 - r} {mode}\n" for r, d in enumerate(documents, 1)
            ]
    (tmp_path / "q.qrels").write_text("".join(qrels))
    for mode, lines in runs.items():
        (tmp_path / f"{mode}.run").write_text("".join(lines))
    config = tmp_path / "c.toml"
    config.write_text(
        'qrels = "q.qrels"\nmeasures = ["RBP(p=0.01)", "nDCG@10"]\n[modes.a]\nrun = "a.run"\n'
        '[modes.b]\nrun = "b.run"\nreranks = "a"\n'
    )
    bench = run_benchmark(config)
    text = bench.markdown(False)
    assert "| RBP(p=0.01) | 9.9e-19 | **2.5e-13** | b |" in text
    assert "| b | a | nDCG@10 | 0.2891 | 0.3163 |" in text
    if html_available():
        page = bench.to_html()
        assert "<strong>2.5e-13</strong>" in page and ">0.0000<" not in page


def test_a_target_and_a_mean_are_printed_on_the_side_of_each_other_they_are_on(demo):
    # a target of 0.215473464 read "≥ 0.215473" (:g), which lexical's nDCG@10 of
    # 0.2154734638... reaches, beside "typical"; a target of 0.21548 not reached by it
    # read "0.2155 typical" (four decimals): each printed as reached, against its mark
    config = demo / "c.toml"
    for good, mean in (("0.215473464", "0.21547"), ("0.21548", "0.21547")):
        target = f'[targets.measures."nDCG@10"]\nbaseline = [0.2, 0.21]\ngood = {good}\n'
        config.write_text(
            'qrels = "hpo-rtask.qrels"\nmeasures = ["nDCG@10"]\n' + MODES_TOML + target
        )
        bench = run_benchmark(config)
        assert bench.kpis[0]["values"]["a"]["mark"] == "baseline"  # not reached: typical
        text = bench.markdown(False)
        assert f"| nDCG@10 | 0.2–0.21 | ≥ {good} | n/a |" in text
        # b's and h's as value_text prints them: no level near them
        assert f"| nDCG@10 | {mean} typical | **0.2788** good | 0.2501 good | b |" in text
        assert float(mean) < float(good) <= 0.2788


def test_the_comparisons_warnings_are_said_on_stderr_as_compare_says_them(demo, capsys):
    # a grouping of one stratum was written into BenchmarkReport.json and the Markdown,
    # never said where the command runs, where compare says it
    from trecbench.cli import run

    config = demo / "c.toml"
    strata = '[strata]\ngroup_by = "qid-prefix"\n'  # the demo's ids have no prefix
    config.write_text('qrels = "hpo-rtask.qrels"\nmeasures = ["P@10"]\n' + MODES_TOML + strata)
    said = (
        "trecbench: warning: grouping by qid-prefix: one stratum only, (none) (56 topics): no "
        "stratum to compare with another (its macro section is that stratum's analysis)\n"
    )
    assert run(["benchmark", str(config), "-o", str(demo / "out"), "--quiet"]) == 0
    assert said in capsys.readouterr().err
    report = json.loads((demo / "out" / "BenchmarkReport.json").read_text())
    assert "trecbench: warning: " + "".join(report["warnings"]) + "\n" == said


def test_an_integer_target_level_is_printed_as_written(demo):
    # as a double 18446744073709551617 printed 1.8446744073709552e+19, and an integer
    # beyond a double's range raised OverflowError (an internal error) once the run was done
    config = demo / "c.toml"
    huge = "1" + "0" * 400
    target = (
        f"[targets.measures.num_rel_ret]\nbaseline = [0, 18446744073709551617]\ngood = {huge}\n"
    )
    config.write_text(
        'qrels = "hpo-rtask.qrels"\nmeasures = ["num_rel_ret"]\n' + MODES_TOML + target
    )
    text = run_benchmark(config).markdown(False)
    assert f"| num_rel_ret | 0–18446744073709551617 | ≥ {huge} | n/a |" in text


def test_a_meta_key_given_in_python_is_refused_as_the_configuration_s(demo):
    # BenchmarkReport.json and the manifest recorded it, against their own schemas
    config = demo / "c.toml"
    config.write_text('qrels = "hpo-rtask.qrels"\nmeasures = ["P@5"]\n' + MODES_TOML)
    bench = run_benchmark(config)
    with pytest.raises(UsageError, match=r"^meta: key 'a b' must start with an ASCII letter"):
        bench.comparison.report(meta={"a b": "x"})
    with pytest.raises(UsageError, match=r"^meta: key 'a=b' must start"):
        bench.write(demo / "out", meta={"a=b": "x"})
    assert not (demo / "out").exists()


def test_the_targets_line_names_the_measures_configured_beside_the_preset(demo):
    # "Targets: none" (or the preset's name) stood above a table marking the modes by
    # configured levels (reviewer 730)
    config = demo / "c.toml"
    target = '[targets.measures."nDCG@10"]\nbaseline = [0.1, 0.2]\ngood = 0.25\n'
    body = 'qrels = "hpo-rtask.qrels"\nmeasures = ["nDCG@10"]\n' + MODES_TOML
    for preset, said in (('[targets]\npreset = "none"\n', "none"), ("", "trec2025-rtask")):
        config.write_text(body + preset + target)
        header = _header(run_benchmark(config).markdown(False))
        assert f"- Targets: {said} (configured: nDCG@10); significance: " in header
    # named as the tables name it: ndcg_1=3%2C2=9 there read as another measure
    comma = '[targets.measures."ndcg.1=3,2=9"]\nbaseline = [0.1, 0.2]\ngood = 0.25\n'
    config.write_text(body.replace('"nDCG@10"]', '"nDCG@10", "ndcg.1=3,2=9"]') + comma)
    text = run_benchmark(config).markdown(False)
    assert "(configured: ndcg\\_1=3,2=9); " in text and "| ndcg_1=3,2=9 | 0.1–0.2 |" in text
    config.write_text(body)  # the preset's own: nothing configured
    assert "- Targets: trec2025-rtask; significance: " in run_benchmark(config).markdown(False)


def test_maxontsim_target_levels_lie_in_its_0_to_1(demo):
    # every other measure bounded to [0, 1] refused a level outside it (reviewer 730)
    config = demo / "c.toml"
    config.write_text(
        'qrels = "hpo-rtask.qrels"\nmeasures = ["MaxOntSim@10"]\n' + MODES_TOML
        + '[targets.measures."MaxOntSim@10"]\nbaseline = [-0.5, 0.6]\ngood = 1.5\n'
    )  # fmt: skip
    said = r"MaxOntSim@10 lies in \[0, 1\], .*: baseline\[0\] = -0.5, good = 1.5$"
    with pytest.raises(UsageError, match=r"c\.toml:\d+: targets.measures.MaxOntSim@10.* " + said):
        load_benchmark_config(config)


def test_a_mean_equal_to_a_level_prints_at_it_and_one_document_is_one(tmp_path):
    # 1/3 beside a level of 0.3333333333333333 printed 0.33333333333333 (below it) marked
    # typical, under "at most 1 documents per topic" (reviewer 730)
    (tmp_path / "q.qrels").write_text("q1 0 d1 1\nq2 0 d2 1\nq3 0 d3 1\n")
    for mode, first in (("a", "d1"), ("b", "d9")):
        lines = [f"q{t} Q0 {first if t == 1 else 'd9'} 1 2 {mode}\n" for t in (1, 2, 3)]
        (tmp_path / f"{mode}.run").write_text("".join(lines))
    config = tmp_path / "c.toml"
    config.write_text(
        'qrels = "q.qrels"\nmeasures = ["P@1"]\n[modes.a]\nrun = "a.run"\n[modes.b]\n'
        'run = "b.run"\n[validation]\nmax_depth = 1\n[statistics]\nsamples = 100\n'
        '[targets.measures."P@1"]\nbaseline = [0.3333333333333333, 0.4]\ngood = 0.5\n'
    )
    text = run_benchmark(config).markdown(False)
    assert "| P@1 | **0.3333333333333333** typical | 0.0000 under-typical | a |" in text
    assert "- Validation: profile rtask, at most 1 document per topic\n" in text


def test_a_symbolic_link_among_the_output_folders_leads_no_file_out_of_it(demo, capsys):
    # out/runs -> ../inputs: the fused mode h replaced inputs/h.run, a file of the user's
    # outside the output folder (reviewer 730)
    from trecbench.cli import run

    (demo / "inputs").mkdir()
    (demo / "inputs" / "h.run").write_text("precious\n")
    (demo / "out").mkdir()
    (demo / "out" / "runs").symlink_to("../inputs")
    config = demo / "c.toml"
    config.write_text('qrels = "hpo-rtask.qrels"\nmeasures = ["P@10"]\n' + MODES_TOML)
    for out in (demo / "out", demo / "inputs" / ".." / "out"):  # a ".." hid the link's hint
        assert run(["benchmark", str(config), "-o", str(out), "--quiet"]) == 2
        said = capsys.readouterr().err
        assert f"{out / 'runs' / 'h.run'}: lies outside the output folder {out} " in said
        assert f"(a symbolic link leads it to {demo / 'inputs' / 'h.run'})" in said
    assert (demo / "inputs" / "h.run").read_text() == "precious\n"
    assert sorted(p.name for p in (demo / "out").iterdir()) == ["runs"]
    # an output folder that is itself a link is written through it
    (demo / "real").mkdir()
    (demo / "linked").symlink_to("real")
    assert run(["benchmark", str(config), "-o", str(demo / "linked"), "--quiet"]) == 0
    assert (demo / "real" / "runs" / "h.run").is_file()


def test_a_mean_within_rounding_noise_below_a_level_prints_as_the_level(tmp_path):
    # P@3 of 19 topics summed to 2 units in the last place below 0.3333333333333333: marked
    # typical, it printed 0.3333333333333332 beside the level (reviewer 733)
    counts = [3, 0, 1, 3, 0, 0, 1, 0, 0, 3, 2, 1, 1, 0, 1, 0, 1, 1, 1]
    qrels, runs = [], {"a": [], "b": []}
    for i, relevant in enumerate(counts):
        for d in range(3):
            qrels.append(f"q{i:02d} 0 r{d} {int(d < relevant)}\n")
            runs["a"].append(f"q{i:02d} Q0 r{d} {d + 1} {10 - d} a\n")
            runs["b"].append(f"q{i:02d} Q0 x{d} {d + 1} {10 - d} b\n")
    (tmp_path / "q.qrels").write_text("".join(qrels))
    for mode, lines in runs.items():
        (tmp_path / f"{mode}.run").write_text("".join(lines))
    assert sum(c / 3 for c in counts) / len(counts) < 0.3333333333333333  # as summed
    config = tmp_path / "c.toml"
    config.write_text(
        'qrels = "q.qrels"\nmeasures = ["P@3"]\n[modes.a]\nrun = "a.run"\n[modes.b]\n'
        'run = "b.run"\n[statistics]\nsamples = 100\n'
        '[targets.measures."P@3"]\nbaseline = [0.3333333333333333, 0.4]\ngood = 0.5\n'
    )
    assert "| P@3 | **0.3333333333333333** typical |" in run_benchmark(config).markdown(False)
