"""`trecbench benchmark` with MaxOntSim: its configuration chooses the formula and the
ontology file (`maxontsim_formula`, `ontology`, as `score --maxontsim-formula` and
`--ontology`), and BenchmarkReport.json and every mode's report record the ontology exactly
as `score --report` does for the same run. Before, the configuration refused both keys and
the reports recorded `"ontology": null` (BenchmarkReport.json) or nothing (the modes')."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from test_ontology import OBO

from trecbench.benchmarking import BenchmarkSettings, Mode, load_benchmark_config
from trecbench.cli import _register, cli
from trecbench.errors import UsageError
from trecbench.report import validate_against_schema

_register()
RUTI, RECURRENT = "HP:0000010", "HP:0002719"  # hybrid 1.0 (Phentrieve's quirk), strict 0.52


@pytest.fixture
def files(tmp_path):
    """The reviewer's qrels and runs, as given."""
    (tmp_path / "hpo.qrels").write_text("q1 0 HP:0001250 1\n")
    (tmp_path / "a.run").write_text("q1 Q0 HP:0002069 1 2 a\nq1 Q0 HP:0001250 2 1 a\n")
    (tmp_path / "b.run").write_text("q1 Q0 HP:0012638 1 2 b\n")
    return tmp_path


def _config(folder, extra: str = "", measures: str = '["MaxOntSim@1"]'):
    path = folder / "mos.toml"
    path.write_text(
        f'qrels = "hpo.qrels"\nmeasures = {measures}\n{extra}'
        '[modes.a]\nrun = "a.run"\n[modes.b]\nrun = "b.run"\n'
    )
    return path


def _benchmark(config) -> tuple[dict, dict[str, dict], dict]:
    out = config.parent / "out"
    result = CliRunner().invoke(cli, ["benchmark", str(config), "-o", str(out), "--quiet"])
    assert result.exit_code == 0, result.output
    report = json.loads((out / "BenchmarkReport.json").read_text())
    modes = {mode: json.loads((out / "reports" / f"{mode}.json").read_text()) for mode in "ab"}
    manifest = json.loads((out / "ExperimentManifest.json").read_text())
    return report, modes, manifest


def _score_report(folder, mode: str, *options: str) -> dict:
    """`score --report` of one mode's run, with -c as the benchmark scores."""
    path = folder / f"score-{mode}.json"
    qrels, run = str(folder / "hpo.qrels"), str(folder / f"{mode}.run")
    args = ["score", "-c", "-m", "MaxOntSim@1", *options, "--report", str(path), qrels, run]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    return json.loads(path.read_text())


def _check_recorded_as_score_does(folder, score_options: tuple[str, ...], extra: str = ""):
    """The benchmark's reports against `score --report`'s for the same runs: the ontology
    record, the values and the ontology file's input record; returns the benchmark's."""
    report, modes, manifest = _benchmark(_config(folder, extra))
    validate_against_schema(report, "benchmark_report")
    scored = {mode: _score_report(folder, mode, *score_options) for mode in "ab"}
    for mode, document in modes.items():
        validate_against_schema(document, "evaluation_report")
        assert document["ontology"] == scored[mode]["ontology"]
        assert document["results"][0]["per_query"] == scored[mode]["results"][0]["per_query"]
        for key in ("maxontsim_formula", "ontology"):
            assert document["options"][key] == scored[mode]["options"][key]
        own = [r for r in document["inputs"] if r["kind"] == "ontology"]
        assert own == [r for r in scored[mode]["inputs"] if r["kind"] == "ontology"]
    assert report["ontology"] == scored["a"]["ontology"]
    for mode in "ab":
        means = {row["run"]: row["mean"] for row in report["results"][0]["summary"]}
        assert means[mode] == scored[mode]["results"][0]["aggregates"]["MaxOntSim@1"]
    ontology_inputs = [r for r in report["inputs"] if r["kind"] == "ontology"]
    assert ontology_inputs == [r for r in manifest["inputs"] if r["kind"] == "ontology"]
    # the manifest says the release and formula too (it listed the ontology's file only)
    validate_against_schema(manifest, "experiment_manifest")
    assert manifest["ontology"] == report["ontology"]
    return report, modes


def test_the_reviewers_benchmark_records_the_ontology_as_score_does(files):
    report, modes = _check_recorded_as_score_does(files, ())
    assert report["ontology"]["formula"] == "hybrid"
    assert report["ontology"]["source"].startswith("hpo3 ")
    assert len(report["ontology"]["sha256"]) == 64
    assert report["evaluation"]["maxontsim_formula"] is None
    assert report["evaluation"]["ontology"] is None
    # 0.7·4/14 + 0.3·(1 - 1/9): HP:0002069 is a child of the gold HP:0001250, at rank 1
    assert modes["a"]["results"][0]["aggregates"]["MaxOntSim@1"] == 0.4666666666666667


def test_a_configured_formula_changes_the_record_and_the_values(files):
    # a second topic, where the formulas differ (every run answers every qrels topic: X2)
    added = {
        "hpo.qrels": f"q2 0 {RUTI} 1",
        "a.run": f"q2 Q0 {RECURRENT} 1 1 a",
        "b.run": "q2 Q0 HP:0001250 1 1 b",
    }
    for name, line in added.items():
        with open(files / name, "a") as file:
            file.write(line + "\n")
    options = ("--maxontsim-formula", "hybrid_strict")
    extra = 'maxontsim_formula = "hybrid_strict"\n'
    report, modes = _check_recorded_as_score_does(files, options, extra)
    assert report["ontology"]["formula"] == "hybrid_strict"
    assert report["evaluation"]["maxontsim_formula"] == "hybrid_strict"
    # 0.7·5/14 + 0.3·(1 - 1/10): the corrected formula, not the quirk's 1.0
    q2 = modes["a"]["results"][0]["per_query"]["q2"]["MaxOntSim@1"]
    assert q2 == pytest.approx(0.52, abs=1e-15)
    assert (
        "--maxontsim-formula hybrid_strict"
        in (files / "out" / "BenchmarkComparison.md").read_text()
    )


def test_a_configured_ontology_file_is_read_recorded_and_checksummed(tmp_path):
    (tmp_path / "tiny.obo").write_text(OBO)
    (tmp_path / "hpo.qrels").write_text("q1 0 HP:0000006 1\n")
    # Y (δ2) vs C (δ3), C an ancestor of Y: 1.0 by the quirk, 0.94 strict (test_maxontsim)
    (tmp_path / "a.run").write_text("q1 Q0 HP:0000004 1 1 a\n")
    (tmp_path / "b.run").write_text("q1 Q0 HP:0000002 1 1 b\n")
    options = ("--ontology", str(tmp_path / "tiny.obo"))
    report, modes = _check_recorded_as_score_does(tmp_path, options, 'ontology = "tiny.obo"\n')
    assert report["ontology"]["release"] == "2099-01-31"
    assert report["evaluation"]["ontology"] == str(tmp_path / "tiny.obo")
    assert modes["a"]["results"][0]["per_query"]["q1"]["MaxOntSim@1"] == 1.0


def test_without_a_maxontsim_measure_no_ontology_is_recorded(files):
    report, modes, manifest = _benchmark(_config(files, measures='["P@1"]'))
    assert "ontology" not in report and "ontology" not in manifest
    assert report["evaluation"]["maxontsim_formula"] is None
    assert report["evaluation"]["ontology"] is None
    assert all("ontology" not in document for document in modes.values())


@pytest.mark.parametrize(
    "extra, measures, message",
    [
        (
            'maxontsim_formula = "resnik"\n',
            '["MaxOntSim@1"]',
            r"mos\.toml:3: maxontsim_formula: unknown MaxOntSim formula 'resnik' \(choose from",
        ),
        (
            'maxontsim_formula = "hybrid_strict"\n',
            '["P@1"]',
            r"mos\.toml:3: maxontsim_formula: no MaxOntSim measure is benchmarked "
            r"\(measures: P@1\)",
        ),
        (
            'ontology = "hp.obo"\n',
            None,
            r"mos\.toml:2: ontology: no MaxOntSim measure is benchmarked \(measures: nDCG@10, ",
        ),
        ('maxontsim_formula = ""\n', '["MaxOntSim@1"]', r'mos\.toml:3: maxontsim_formula: ""'),
    ],
)
def test_maxontsim_settings_are_refused_naming_the_file_and_key(tmp_path, extra, measures, message):
    path = tmp_path / "mos.toml"
    listed = "" if measures is None else f"measures = {measures}\n"
    path.write_text(f'qrels = "q"\n{listed}{extra}[modes.a]\nrun = "r"\n')
    with pytest.raises(UsageError, match=message):
        load_benchmark_config(path)


def test_settings_built_in_python_refuse_an_unknown_formula(tmp_path):
    with pytest.raises(UsageError, match=r"b\.toml: maxontsim_formula: unknown MaxOntSim"):
        BenchmarkSettings(
            path=tmp_path / "b.toml",
            name="b",
            qrels=tmp_path / "q",
            modes=[Mode("a", "a", run=tmp_path / "r")],
            maxontsim_formula="resnik",
        )


def test_a_configured_ontology_without_the_root_is_refused(files, capsys):
    """An ontology of no HPO (no HP:0000001) made every MaxOntSim credit 0, exit 0."""
    from trecbench.cli import run

    (files / "go.obo").write_text("[Term]\nid: GO:0000001\nname: a\n")
    config = _config(files, 'ontology = "go.obo"\n')
    assert run(["benchmark", str(config), "-o", str(files / "out")]) == 2
    refused = f"trecbench: {files / 'go.obo'}: no HP:0000001 root: not an HPO ontology\n"
    assert capsys.readouterr().err == refused
