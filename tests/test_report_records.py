"""What the reproducibility records hold of every choice that changes a number: the -Z
file among the inputs, -N, -Z and -D on score's page, the versions of the packages that
compute the measures, score's tie and unjudged bounds (reviewer 196)."""

from __future__ import annotations

import hashlib
import json

import pytest

from trecbench import report
from trecbench.cli import run

QRELS = "q1 0 d1 1\nq2 0 d2 1\n"
RUN = "q1 Q0 d1 1 2 r\nq1 Q0 d3 2 1 r\nq2 Q0 d3 1 2 r\nq2 Q0 d2 2 1 r\n"
Z_FILES = ("q1 P_1 0.5 0.1\nq2 P_1 0.5 0.1\n", "q1 P_1 0.2 0.1\nq2 P_1 0.2 0.1\n")


@pytest.fixture
def folder(tmp_path, monkeypatch):
    (tmp_path / "q.qrels").write_text(QRELS)
    (tmp_path / "a.run").write_text(RUN)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _score(capsys, *args: str) -> None:
    assert run(["score", "q.qrels", "a.run", *args]) == 0
    capsys.readouterr()


def _read(path) -> dict:
    return json.loads(open(path, encoding="utf-8").read())


def test_the_z_scores_file_is_an_input_with_its_checksum(folder, capsys):
    (folder / "z.txt").write_text(Z_FILES[0])
    _score(capsys, "-m", "P.1", "-Z", "z.txt", "--report", "r.json", "--manifest", "m.json")
    sha = hashlib.sha256(Z_FILES[0].encode()).hexdigest()
    document = _read("r.json")
    report.validate_against_schema(document, report.REPORT_SCHEMA)
    wanted = {"path": "z.txt", "kind": "zscores", "size": len(Z_FILES[0]), "sha256": sha}
    assert wanted in document["inputs"]
    assert wanted in _read("m.json")["inputs"]


def test_the_z_scores_file_is_among_the_pages_inputs(folder):
    from trecbench import evaluate
    from trecbench.comparison import from_evaluation

    (folder / "z.txt").write_text(Z_FILES[0])
    evaluation = evaluate("q.qrels", "a.run", ["P.1"], zscores="z.txt")
    kinds = {item["kind"]: item for item in from_evaluation(evaluation).inputs}
    assert kinds["zscores"]["sha256"] == hashlib.sha256(Z_FILES[0].encode()).hexdigest()


def test_diff_names_another_z_scores_file_as_the_cause(folder, capsys):
    for name, text in zip(("s1.json", "s2.json"), Z_FILES, strict=True):
        (folder / "z.txt").write_text(text)
        _score(capsys, "-m", "P.1", "-Z", "z.txt", "--report", name)
    assert run(["diff", "s1.json", "s2.json"]) == 1
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith("likely cause: the z-scores file (-Z) differs: z.txt (30 bytes")


@pytest.mark.parametrize(
    ("flag", "value", "recorded", "said"),
    [
        ("num_docs", 10, {"num_docs": 10}, "-N 10"),
        ("zscores", "z.txt", {"zscores": "z.txt"}, "-Z z.txt"),
        ("debug_query", "q1", {"debug_level": 0, "debug_query": "q1"}, "-D 0.q1"),
    ],
)
def test_score_pages_evaluation_records_n_z_and_d(folder, flag, value, recorded, said):
    """-N, -Z and -D level.qid change the page's numbers: its provenance records them (its
    evaluation block, as the report's options do), its header says them ("Scored with"),
    and its report stays in its schema."""
    from trecbench import evaluate
    from trecbench.comparison import from_evaluation

    (folder / "z.txt").write_text(Z_FILES[0])
    # z.txt's measure; utility's fourth coefficient counts with -N only
    measure = "utility.0,0,0,1" if flag == "num_docs" else "P.1"
    evaluation = evaluate("q.qrels", "a.run", [measure], **{flag: value})
    comparison = from_evaluation(evaluation)
    assert comparison.evaluation.items() >= recorded.items()
    assert f"Scored as trecbench score {said} scores" in comparison.markdown()
    report.validate_against_schema(comparison.report(), "benchmark_report")


def test_the_versions_of_the_providers_packages_are_recorded(folder, capsys):
    """SDCG (cwl_eval) and alpha_nDCG (pyndeval) are computed by their providers'
    packages: the report and the manifest record those packages' versions."""
    from importlib.metadata import version

    _score(
        capsys, "-m", "SDCG@2", "-m", "alpha_nDCG@2", "--report", "p.json", "--manifest", "m.json"
    )
    for name in ("p.json", "m.json"):
        packages = _read(name)["environment"]["packages"]
        for distribution in ("cwl-eval", "pyndeval", "pytrec-eval-terrier", "ir-measures"):
            assert packages[distribution] == version(distribution), (name, distribution)


def test_every_provider_named_by_the_registry_has_its_package_recorded():
    """The packages are derived from the registry's provider facts, not listed by hand."""
    from trecbench.engines import providers
    from trecbench.measures import registry

    sources = {definition.source for definition in registry.definitions()}
    assert providers.MODULES.keys() <= sources
    assert providers.distributions() == ["cwl-eval", "pyndeval"]
    assert set(providers.distributions()) <= set(report.environment()["packages"])


def test_the_docs_name_every_package_a_report_records():
    from conftest import ROOT

    line = next(
        line
        for line in (ROOT / "docs" / "reports.md").read_text().splitlines()
        if line.startswith("| `environment` |") and "`packages` maps" in line
    )
    assert [name for name in report.environment()["packages"] if name not in line] == []


def test_score_reports_its_tie_and_unjudged_bounds_as_its_json_prints_them(folder, capsys):
    """score --tie-bounds and --unjudged-bounds printed bounds the report left out."""
    asked = ["-m", "P.1", "-m", "ndcg", "--tie-bounds", "--unjudged-bounds"]
    assert run(["score", "q.qrels", "a.run", *asked, "--format", "json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    _score(capsys, *asked, "--report", "r.json")
    document = _read("r.json")
    report.validate_against_schema(document, report.REPORT_SCHEMA)
    # named as the report names its values (display names), not as score --format json
    ties, shown = document["results"][0]["tie_bounds"], printed["runs"][0]["tie_bounds"]
    assert list(ties["measures"]) == list(document["results"][0]["aggregates"]) == ["P@1", "nDCG"]
    assert list(ties["measures"].values()) == list(shown["measures"].values())
    assert ties["tied_topics"] == shown["tied_topics"]
    assert document["unjudged_bounds"] == printed["unjudged_bounds"]
    first = document["unjudged_bounds"][0]
    assert (first["measure"], first["high"], first["unjudged"]) == ("P@1", 1.0, 0.5)
    _score(capsys, "-m", "P.1", "-m", "ndcg", "--report", "plain.json")
    assert "tie_bounds" not in _read("plain.json")["results"][0]
    assert "unjudged_bounds" not in _read("plain.json")


def test_score_json_names_provider_and_engine_as_the_report_does(folder, capsys):
    # score --format json said "provider": "fast" (the engine) where the --report of the
    # same measure said "provider": "pytrec_eval" (reviewer 337)
    asked = ["-m", "P.1", "-m", "MRR@10", "-m", "nDCG@10"]
    assert run(["score", "q.qrels", "a.run", *asked, "--format", "json"]) == 0
    printed = json.loads(capsys.readouterr().out)["measures"]
    _score(capsys, *asked, "--report", "r.json")
    recorded = _read("r.json")["measures"]
    assert [(m["requested"], m["provider"]) for m in printed] == [
        (m["requested"], m["provider"]) for m in recorded
    ]
    assert [m["provider"] for m in printed] == ["pytrec_eval", "local", "pytrec_eval"]
    engines = [c["engine"] for m in recorded for c in m["columns"]]
    assert [m["engine"] for m in printed] == engines


def test_a_gain_map_is_recorded_as_computed_by_the_fast_engine(folder, capsys):
    # the pytrec_eval engine hands nDCG(gains=...) to the fast engine's nDCG; the report
    # and `measures` said "pytrec_eval", trec_eval's own code, which computed none of it
    mapped, native = "nDCG(gains={1:3})@10", "ndcg.1=3"
    _score(capsys, "-m", mapped, "-m", native, "--report", "r.json")
    recorded = {
        m["requested"]: [c["engine"] for c in m["columns"]] for m in _read("r.json")["measures"]
    }
    assert recorded == {mapped: ["fast"], native: ["pytrec_eval"]}
    assert run(["measures", mapped, native, "--format", "json"]) == 0
    said = json.loads(capsys.readouterr().out)
    assert [entry["engine"] for entry in said] == ["fast", "pytrec_eval"]


def test_diff_reads_scores_bounds_and_their_options(folder, capsys):
    asked = ["-m", "P.1", "--tie-bounds", "--unjudged-bounds"]
    _score(capsys, *asked, "--report", "a.json")
    _score(capsys, "-m", "P.1", "--report", "plain.json")
    assert run(["diff", "plain.json", "a.json"]) == 1
    assert capsys.readouterr().out.splitlines()[0] == (
        "likely cause: the options differ: tie_bounds false vs true; unjudged_bounds false vs true"
    )
    document = _read("a.json")
    document["results"][0]["tie_bounds"]["measures"]["P@1"]["high"] = 0.75
    document["unjudged_bounds"][0]["high"] = 0.75
    (folder / "b.json").write_text(json.dumps(document))
    assert run(["diff", "a.json", "b.json"]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert "unjudged bounds: a P@1 high 1.0000 -> 0.7500" in lines
    assert "tie bounds: a P@1 high 0.5000 -> 0.7500" in lines


def test_the_libraries_that_shape_report_html_yaml_and_dask_outputs_are_recorded():
    # environment.packages left out bokeh and jinja2 (report.html), dask and distributed
    # (score --dask) and pyyaml (YAML configurations, ir_metadata): their versions are
    # read from package metadata (importlib.metadata, not trecbench), null when absent
    from importlib.metadata import PackageNotFoundError, version

    packages = report.environment()["packages"]
    for name in ("bokeh", "jinja2", "dask", "distributed", "pyyaml"):
        try:
            installed = version(name)
        except PackageNotFoundError:
            installed = None
        assert packages[name] == installed, name
    assert packages["pyyaml"] is not None  # a dependency of trecbench
