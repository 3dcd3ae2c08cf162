"""Every record of how the runs were scored holds the same settings, built in one place
(EvalSettings.record): compare's and benchmark's BenchmarkReport recorded only -l, -M, -J
and MaxOntSim's options, while score's report and power's and agree's JSON recorded -c,
-N, float32, the engine, --compat and -R too."""

from __future__ import annotations

import json
import shutil

from click.testing import CliRunner
from conftest import ROOT

from trecbench.benchmarking import run_benchmark
from trecbench.cli import cli
from trecbench.report import validate_against_schema

DEMO = ROOT / "data" / "hpo-rtask"
QRELS, RUNS = str(DEMO / "hpo-rtask.qrels"), [str(DEMO / "lexical.run"), str(DEMO / "vector.run")]
# every setting a record of the evaluation holds, as score -M 5 -J --compat 10.0 sets them
EVERY = {
    "relevance_level": 1, "complete": False, "max_docs": 5, "judged_only": True,
    "num_docs": None, "float32": False, "engine": "auto", "compat": "10.0",
    "rel_format": "qrels", "zscores": None, "debug_level": 0, "debug_query": None,
    "maxontsim_formula": None, "ontology": None,
}  # fmt: skip


def _json(*argv: str) -> dict:
    done = CliRunner().invoke(cli, [*argv, "--format", "json"])
    assert done.exit_code == 0, done.output
    return json.loads(done.stdout)


def test_compare_records_every_setting_as_score_s_report_does(tmp_path):
    report = tmp_path / "r.json"
    flags = ["-m", "P@10", "-M", "5", "-J"]
    CliRunner().invoke(
        cli, ["score", QRELS, *RUNS, *flags, "--compat", "10.0", "--report", str(report)]
    )
    options = json.loads(report.read_text())["options"]
    assert {key: options[key] for key in EVERY} == EVERY
    # compare has no --compat: 9.0.8's, float32 then true
    # (--missing zero, its default, counts every qrels topic as -c does: recorded as -c)
    compared = _json("compare", QRELS, *RUNS, *flags, "-o", str(tmp_path / "out"))
    expected = EVERY | {"compat": "9.0.8", "float32": True, "complete": True}
    assert compared["evaluation"] == expected
    validate_against_schema(compared, "benchmark_report")
    written = json.loads((tmp_path / "out" / "BenchmarkReport.json").read_text())
    assert written["evaluation"] == compared["evaluation"]
    dropped = _json("compare", QRELS, *RUNS, *flags, "--missing", "drop")
    assert dropped["evaluation"] == expected | {"complete": False}
    # power's and agree's hold the same keys: -c true, as their means count absent topics
    for command in ("power", "agree"):
        document = _json(command, QRELS, *RUNS, *flags)
        assert document["evaluation"] == expected, command


def test_benchmark_records_every_setting_it_scored_with(tmp_path):
    for name in ("hpo-rtask.qrels", "lexical.run", "vector.run"):
        shutil.copy(DEMO / name, tmp_path / name)
    config = tmp_path / "c.yaml"
    config.write_text(
        "qrels: hpo-rtask.qrels\nmeasures: [P@10]\n"
        "modes:\n  a: {run: lexical.run}\n  b: {run: vector.run}\n"
    )
    report = run_benchmark(config).report()
    validate_against_schema(report, "benchmark_report")
    # the modes are scored under -c (every qrels topic): said now, not left out
    expected = EVERY | {"max_docs": None, "judged_only": False, "complete": True}
    assert report["evaluation"] == expected | {"compat": "9.0.8", "float32": True}


def test_diff_takes_a_report_of_the_five_settings_as_one_of_every_setting(tmp_path, capsys):
    # a BenchmarkReport written before every flag was recorded is no other evaluation
    # than one holding them all: the flags it lacks are not its differences
    from conftest import diff_reports

    _json("compare", QRELS, *RUNS, "-m", "P@10", "-o", str(tmp_path / "new"))
    new = tmp_path / "new" / "BenchmarkReport.json"
    document = json.loads(new.read_text())
    kept = ("relevance_level", "max_docs", "judged_only", "maxontsim_formula", "ontology")
    document["evaluation"] = {key: document["evaluation"][key] for key in kept}
    old = tmp_path / "old.json"
    old.write_text(json.dumps(document))
    validate_against_schema(document, "benchmark_report")
    code, out = diff_reports(capsys, str(old), str(new))
    assert code == 0, out
