"""EvaluationReport and ExperimentManifest: schemas, checksums, atomic writes, --meta."""

from __future__ import annotations

import gzip
import hashlib
import json
import re
import subprocess
from dataclasses import dataclass, field
from importlib.metadata import version
from pathlib import Path
from types import SimpleNamespace

import click
import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from conftest import ROOT

from trecbench import json_schemas, report
from trecbench.cli import _register, cli
from trecbench.cli.report_options import report_options
from trecbench.ecma_regex import ecma_pattern
from trecbench.errors import InputError, OutputError, UsageError
from trecbench.evaluation import Column, Evaluation, FlaggedTopic
from trecbench.evaluation.settings import EvalSettings
from trecbench.inputs import parse_run, trec_text
from trecbench.measures import parse_measure

RUN_TEXT = "10 Q0 d1 1 2.0 alpha\n10 Q0 d2 2 1.0 alpha\n\n9 Q0 d1 1 3.0 beta\n"
QRELS_TEXT = "9 0 d1 1\n10 0 d2 1\n11 0 d3 1\n"


@dataclass
class FakeEvaluation:
    """Hand-made values (NaN, full-precision floats) in the shape of evaluate.Evaluation."""

    per_query: pd.DataFrame
    aggregates: pd.DataFrame
    measures: list
    columns: list
    flagged: list
    options: dict = field(default_factory=lambda: {"complete": False, "max_docs": None})
    settings: EvalSettings = field(default_factory=EvalSettings)
    input_paths: list = field(default_factory=list)
    runs: list = field(  # scored: its topics 9 and 10; the qrels' 11 too
        default_factory=lambda: [
            SimpleNamespace(
                name="alpha", qids=["10", "9"], complete=True,
                summary={"P_5": (0.2 + 1 / 3) / 2, "ndcg_cut_10": 0.15000000000000002},
            )
        ]
    )  # fmt: skip
    qrels_topics: list = field(default_factory=lambda: ["10", "11", "9"])
    shown = Evaluation.shown  # a measure's name as printed (-Z: "Z" before it)
    ontology_record = Evaluation.ontology_record  # None: no MaxOntSim measure

    def per_query_matrix(self, run) -> np.ndarray:
        """``per_query``'s values of ``run``: a row per ``run.qids``, a column a measure."""
        frame = self.per_query[self.per_query["run"] == run.name]
        wide = frame.pivot(index="qid", columns="measure", values="value")
        return wide.reindex(index=run.qids, columns=[c.display for c in self.columns]).to_numpy()

    averaged_over = Evaluation.averaged_over  # its topics, or with -c the qrels' too


def fake_evaluation() -> FakeEvaluation:
    p5, ndcg = parse_measure("P.5"), parse_measure("nDCG@10")
    qids = pd.array(["9", "10", "9", "10"], dtype="string")
    return FakeEvaluation(
        per_query=pd.DataFrame(
            {
                "run": ["alpha"] * 4,
                "qid": qids,
                "measure": ["P@5", "P@5", "nDCG@10", "nDCG@10"],
                "value": [0.2, 1 / 3, float("nan"), 0.30000000000000004],
            }
        ),
        aggregates=pd.DataFrame(
            {
                "run": ["alpha", "alpha"],
                "measure": ["P@5", "nDCG@10"],
                "value": [(0.2 + 1 / 3) / 2, 0.15000000000000002],
            }
        ),
        measures=[p5, ndcg],
        columns=[
            Column("P_5", "P@5", p5, "pytrec_eval"),
            Column("ndcg_cut_10", "nDCG@10", ndcg, "pytrec_eval"),
        ],
        flagged=[FlaggedTopic("11", "qrels_only", "not in the run: ignored", "alpha")],
    )


@pytest.fixture
def files(tmp_path):
    run = tmp_path / "a.run"
    run.write_text(RUN_TEXT)
    qrels = tmp_path / "a.qrels"
    qrels.write_text(QRELS_TEXT)
    return run, qrels


# --- pieces -------------------------------------------------------------------------------


def test_input_record_checksum_equals_hashlib(files):
    run, _ = files
    record = report.input_record(run, "run")
    data = run.read_bytes()
    assert record["sha256"] == hashlib.sha256(data).hexdigest()
    assert record["size"] == len(data)


def test_unreadable_input_is_an_input_error(tmp_path):
    with pytest.raises(InputError, match="missing.run: cannot read"):
        report.input_record(tmp_path / "missing.run", "run")


def test_gzip_is_hashed_as_stored_and_counted_decompressed(tmp_path):
    path = tmp_path / "a.run.gz"
    path.write_bytes(gzip.compress(RUN_TEXT.encode()))
    record = report.input_record(path, "run")
    assert record["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
    assert (record["lines"], record["topics"]) == (3, 2)


def test_input_record_counts_from_table_equal_streamed_counts(files):
    run, qrels = files
    streamed = report.input_record(run, "run")
    assert streamed == report.input_record(run, "run", parse_run(run))
    assert streamed["lines"] == 3  # the blank line is not a record
    assert streamed["topics"] == 2
    assert streamed["run_tag"] == "beta"  # last line's tag: trec_eval's runid
    assert streamed["run_tags"] == ["alpha", "beta"]
    assert report.input_record(qrels, "qrels")["topics"] == 3


def test_small_chunks_give_the_same_counts(files, monkeypatch):
    run, _ = files
    whole = report.input_record(run, "run")
    original = trec_text.iter_tokens
    # 8-byte chunks: every line is its own chunk, the blank line an empty one
    monkeypatch.setattr(
        trec_text, "iter_tokens", lambda path, keep: original(path, keep, chunk_bytes=8)
    )
    assert report.input_record(run, "run") == whole


def test_environment_reads_versions_from_metadata():
    env = report.environment()

    assert env["packages"]["pandas"] == version("pandas")
    assert env["packages"]["pytrec-eval-terrier"] == version("pytrec-eval-terrier")
    assert set(report.PACKAGES) <= set(env["packages"])
    assert env["trecbench"] == report.__version__


def test_git_commit_in_and_outside_a_repository(tmp_path):
    assert report.git_commit(tmp_path) is None
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    assert report.git_commit(tmp_path) is None  # no commit yet
    (tmp_path / "f").write_text("x")
    git = ["git", "-C", str(tmp_path), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "add", "f"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "m"], check=True)
    head = subprocess.run(
        [*git, "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert report.git_commit(tmp_path) == {"commit": head, "dirty": False}
    (tmp_path / "f").write_text("y")
    assert report.git_commit(tmp_path) == {"commit": head, "dirty": True}


def test_git_commit_without_git(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    assert report.git_commit(tmp_path) is None


def test_parse_meta():
    assert report.parse_meta(["model=bm25", "k1=0.9", "q=a=b", "empty="]) == {
        "model": "bm25",
        "k1": "0.9",
        "q": "a=b",
        "empty": "",
    }
    assert report.parse_meta(["seed=001"])["seed"] == "001"  # strings, never inferred


@pytest.mark.parametrize(
    "pair, message",
    [
        ("model", "expected KEY=VALUE"),
        ("=x", "key ''"),
        ("9lives=x", "must start with an ASCII letter"),
        ("a b=x", "must start with an ASCII letter"),
        # é is a letter, but not one a key may hold (it said "a letter"); a final newline
        # was taken (re's $ matches before it)
        ("é=x", "key 'é' must start with an ASCII letter or '_' and contain only ASCII"),
        ("a\n=x", r"key 'a\\n' must start"),
    ],
)
def test_parse_meta_errors(pair, message):
    with pytest.raises(UsageError, match=message):
        report.parse_meta([pair])


def test_parse_meta_refuses_a_key_twice():
    with pytest.raises(UsageError, match="given twice"):
        report.parse_meta(["a=1", "a=2"])


def test_write_json_is_atomic_and_checksummed(tmp_path):
    path = tmp_path / "out" / "r.json"
    record = report.write_json(path, {"x": 0.1, "ids": ["001"]})
    data = path.read_bytes()
    assert json.loads(data) == {"x": 0.1, "ids": ["001"]}
    assert record == {
        "path": str(path),
        "kind": "json",
        "size": len(data),
        "sha256": hashlib.sha256(data).hexdigest(),
    }
    assert sorted(p.name for p in path.parent.iterdir()) == ["r.json"]  # no temp file


def test_write_json_refuses_nan_and_leaves_nothing(tmp_path):
    path = tmp_path / "r.json"
    with pytest.raises(OutputError, match="JSON"):
        report.write_json(path, {"x": float("nan")})
    assert list(tmp_path.iterdir()) == []


def test_write_json_refuses_to_overwrite_an_input(files):
    run, _ = files
    before = run.read_bytes()
    with pytest.raises(OutputError, match="refusing to overwrite"):
        report.write_json(run, {}, inputs=[run])
    assert run.read_bytes() == before
    assert sorted(p.name for p in run.parent.iterdir()) == ["a.qrels", "a.run"]


# --- builders and schemas -------------------------------------------------------------------


def test_evaluation_report_matches_schema_and_keeps_full_precision(files):
    run, qrels = files
    inputs = [report.input_record(qrels, "qrels"), report.input_record(run, "run")]
    document = report.build_evaluation_report(
        fake_evaluation(),
        inputs,
        {"average_over_all_topics": True, "depth": 100, "qrels": qrels},
        meta={"model": "bm25"},
        ontology={"release": "2025-11-24", "source": "hpo3", "sha256": None},
    )
    report.validate_against_schema(document, report.REPORT_SCHEMA)
    again = json.loads(report.json_bytes(document))
    result = again["results"][0]
    assert result["run"] == "alpha"
    assert list(result["per_query"]) == ["10", "9"]  # byte-wise, like trec_eval
    assert result["per_query"]["10"]["P@5"] == 1 / 3
    assert result["per_query"]["10"]["nDCG@10"] == 0.30000000000000004
    assert result["per_query"]["9"]["nDCG@10"] is None  # NaN is not JSON
    assert result["aggregates"] == {"P@5": (0.2 + 1 / 3) / 2, "nDCG@10": 0.15000000000000002}
    assert again["options"]["qrels"] == str(qrels)
    assert again["flagged_topics"] == [
        {"qid": "11", "reason": "qrels_only", "message": "not in the run: ignored", "run": "alpha"}
    ]
    assert again["measures"][1] == {
        "requested": "nDCG@10",
        "canonical": "ndcg_cut.10",
        "provider": "pytrec_eval",
        "columns": [{"name": "nDCG@10", "trec_eval": "ndcg_cut_10", "engine": "pytrec_eval"}],
    }
    assert again["trec_eval_semantics"] == "9.0.8"


def test_schema_rejects_a_broken_report(files):
    run, _ = files
    document = report.build_evaluation_report(fake_evaluation(), [report.input_record(run, "run")])
    document["results"][0]["aggregates"]["P@5"] = "0.5"
    with pytest.raises(OutputError, match="aggregates/P@5"):
        report.validate_against_schema(document, report.REPORT_SCHEMA)
    del document["inputs"][0]["run_tag"]
    with pytest.raises(OutputError):
        report.validate_against_schema(document, report.REPORT_SCHEMA)


def test_manifest_matches_schema(files, tmp_path):
    run, qrels = files
    out = report.write_json(tmp_path / "r.json", {"a": 1}, kind="report")
    document = report.build_manifest(
        ["trecbench", "score", str(qrels), "my run.txt"],
        [report.input_record(qrels, "qrels"), report.input_record(run, "run")],
        [out],
        {"model": "bm25", "index": "snap-3"},
        cwd=tmp_path,
    )
    report.validate_against_schema(document, report.MANIFEST_SCHEMA)
    assert document["command"]["line"].endswith("'my run.txt'")
    assert document["timestamp"].endswith("Z")
    assert document["git"] is None  # tmp_path is not in a work tree
    assert len(document["experiment_id"]) == 36
    assert report.build_manifest(["x"], [], [], {}, "exp-7")["experiment_id"] == "exp-7"
    document["meta"]["bad key"] = "x"
    with pytest.raises(OutputError, match="meta"):
        report.validate_against_schema(document, report.MANIFEST_SCHEMA)


def test_schemas_are_valid_draft_2020_12():
    jsonschema = pytest.importorskip("jsonschema")
    for name in (report.REPORT_SCHEMA, report.MANIFEST_SCHEMA):
        jsonschema.Draft202012Validator.check_schema(json_schemas.load_schema(name))


# a value each pattern of the shipped schemas takes (a new pattern needs one here)
PATTERN_SAMPLES = {
    "^[A-Za-z0-9_.-]{1,25}$": "bm25",
    "^[0-9a-f]{64}$": "0" * 64,
    "^[0-9a-f]{40}([0-9a-f]{24})?$": "a" * 40,
    "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?Z$": "2024-01-01T00:00:00Z",
    "^[A-Za-z_][A-Za-z0-9_.\\-]*$": "key",
    "^[^\\s]+$": "x",
    "^HP:[0-9]{7}$": "HP:0001250",
}


def _patterns(value) -> list[str]:
    """Every ``pattern`` of a schema, at any depth."""
    if isinstance(value, list):
        return [p for item in value for p in _patterns(item)]
    if not isinstance(value, dict):
        return []
    own = [value["pattern"]] if isinstance(value.get("pattern"), str) else []
    return own + [p for item in value.values() for p in _patterns(item)]


def test_schema_patterns_end_where_json_schema_says_before_no_newline():
    # jsonschema searches with Python's re, whose $ also matches before a final newline:
    # "HP:0001250\n" passed ^HP:[0-9]{7}$ (ECMA-262's $, JSON Schema's, does not match)
    names = [p.name.removesuffix(".schema.json") for p in json_schemas._schema_files().iterdir()]
    found = {p for name in names for p in _patterns(json_schemas.load_schema(name))}
    assert found == set(PATTERN_SAMPLES)
    for name in names:  # which schema_validator does not read as ECMA-262
        assert '"patternProperties"' not in json.dumps(json_schemas.load_schema(name)), name
    for pattern, sample in PATTERN_SAMPLES.items():
        validator = json_schemas.schema_validator({"type": "string", "pattern": pattern})
        assert validator.is_valid(sample), pattern
        for bad in (sample + "\n", sample + "\n\n", "\n" + sample):
            assert not validator.is_valid(bad), (pattern, bad)
    assert ecma_pattern(r"^a$|[$]\$$") == r"^a\Z|[$]\$\Z"
    manifest = report.build_manifest(["x"], [], [], {}, "exp-7")
    manifest["git"] = {"commit": "a" * 40 + "\n", "dirty": False}
    with pytest.raises(OutputError, match=r'git/commit: "a{40}\\n" does not match'):
        report.validate_against_schema(manifest, report.MANIFEST_SCHEMA)


def _descriptions(value) -> list[str]:
    """Every ``description`` of a schema, at any depth."""
    if isinstance(value, list):
        return [d for item in value for d in _descriptions(item)]
    if not isinstance(value, dict):
        return []
    own = [value["description"]] if isinstance(value.get("description"), str) else []
    return own + [d for item in value.values() for d in _descriptions(item)]


def test_no_schema_description_names_a_checkouts_docs_path():
    # the schemas ship with the package and editors show their descriptions: a reader who
    # installed trecbench has no docs/ folder, so they name the docs' page (benchmark.md)
    names = [p.name.removesuffix(".schema.json") for p in json_schemas._schema_files().iterdir()]
    found = [d for name in names for d in _descriptions(json_schemas.load_schema(name))]
    assert any("the docs' benchmark.md" in d for d in found)
    assert [d for d in found if re.search(r"docs/[\w./-]*\.md", d)] == []


def test_a_pattern_reached_through_a_whole_schema_ref_is_read_as_json_schema(tmp_path, monkeypatch):
    # a $ref to a whole schema (benchmark_report's to benchmark_workflow) followed its
    # $schema to jsonschema's own validator, which reads $ as Python's re does
    dialect = "https://json-schema.org/draft/2020-12/schema"
    for name, schema in (
        ("outer", {"$schema": dialect, "$id": "urn:t:outer", "$ref": "urn:t:inner"}),
        ("inner", {"$schema": dialect, "$id": "urn:t:inner", "pattern": "^a$"}),
    ):
        (tmp_path / f"{name}.schema.json").write_text(json.dumps(schema))
    monkeypatch.setattr(json_schemas, "_schema_files", lambda: tmp_path)
    report.validate_against_schema("a", "outer")
    with pytest.raises(OutputError, match=r"outer: \(top level\): \"a\\n\" does not match"):
        report.validate_against_schema("a\n", "outer")


# --- write_score_outputs ------------------------------------------------------------------


def test_score_outputs_link_report_and_manifest(files, tmp_path):
    run, qrels = files
    out = tmp_path / "out"
    evaluation = fake_evaluation()
    evaluation.input_paths = [(qrels, "qrels")]
    report.write_score_outputs(
        evaluation,
        extra_inputs=[(run, "run", parse_run(run))],
        report=out / "report.json",
        manifest=out / "manifest.json",
        meta={"model": "bm25"},
        argv=["trecbench", "score", str(qrels), str(run)],
    )
    written = json.loads((out / "report.json").read_bytes())
    manifest = json.loads((out / "manifest.json").read_bytes())
    report.validate_against_schema(written, report.REPORT_SCHEMA)
    report.validate_against_schema(manifest, report.MANIFEST_SCHEMA)
    assert written["experiment_id"] == manifest["experiment_id"]
    assert manifest["inputs"] == written["inputs"]
    (output,) = manifest["outputs"]
    assert output["kind"] == "report"
    assert output["sha256"] == hashlib.sha256((out / "report.json").read_bytes()).hexdigest()
    assert manifest["meta"] == written["meta"] == {"model": "bm25"}
    assert sorted(p.name for p in out.iterdir()) == ["manifest.json", "report.json"]


def test_score_outputs_write_nothing_when_one_target_is_an_input(files, tmp_path):
    run, qrels = files
    with pytest.raises(OutputError, match="refusing to overwrite"):
        report.write_score_outputs(
            fake_evaluation(),
            extra_inputs=[(qrels, "qrels"), (run, "run")],
            report=tmp_path / "report.json",
            manifest=qrels,
            argv=["trecbench"],
        )
    assert qrels.read_text() == QRELS_TEXT
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.qrels", "a.run"]


def test_score_outputs_refuse_report_equal_to_manifest(files, tmp_path):
    run, qrels = files
    message = f"{tmp_path / 'x.json'}: written twice by one command, as report and as manifest"
    with pytest.raises(UsageError, match=f"^{re.escape(message)}$"):
        report.write_score_outputs(
            fake_evaluation(),
            extra_inputs=[(run, "run")],
            report=tmp_path / "x.json",
            manifest=tmp_path / "x.json",
        )
    assert not (tmp_path / "x.json").exists()


# --- documentation and CLI options ---------------------------------------------------------


def test_docs_document_every_schema_field():
    section = (ROOT / "docs" / "reports.md").read_text()
    manifest = json_schemas.load_schema(report.MANIFEST_SCHEMA)
    names = set(json_schemas.load_schema(report.REPORT_SCHEMA)["properties"]) | set(
        manifest["properties"]
    )
    names |= set(manifest["$defs"]["file"]["properties"])
    names |= set(manifest["$defs"]["environment"]["properties"])
    words = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", section))
    missing = sorted(names - words)
    assert missing == []


def test_report_options_parse_meta_before_the_command_runs(tmp_path):
    calls = []

    @click.command()
    @report_options
    def command(report, manifest, meta):
        calls.append((report, manifest, meta))

    CliRunner().invoke(
        command,
        ["--report", str(tmp_path / "r.json"), "--meta", "a=1", "--meta", "b=x=y"],
        catch_exceptions=False,
    )
    assert calls == [(tmp_path / "r.json", None, {"a": "1", "b": "x=y"})]
    result = CliRunner().invoke(command, ["--meta", "oops"])
    assert isinstance(result.exception, UsageError)
    assert len(calls) == 1


# --- trecbench score --report/--manifest ------------------------------------------------------


def score_cli(argv, cwd, monkeypatch):
    """``trecbench score`` in-process, as main() runs it: (stdout bytes, exception)."""
    _register()
    monkeypatch.chdir(cwd)
    result = CliRunner().invoke(cli, ["score", *argv])
    return result.stdout_bytes, result.exception


def printed_values(stdout: bytes) -> dict[tuple[str, str], str]:
    """``(trec_eval label, qid or "all") -> printed value`` of trec_eval text output."""
    rows = (line.split("\t") for line in stdout.decode().splitlines())
    return {(name.rstrip(), qid): value for name, qid, value in rows}


def test_score_report_values_equal_printed_trec_eval_values(trec_eval_suite, tmp_path, monkeypatch):
    argv = "-m all_trec -q -c qrels.test results.trunc".split()
    stdout, error = score_cli(
        [
            *argv,
            "--report",
            str(tmp_path / "r.json"),
            "--manifest",
            str(tmp_path / "m.json"),
            "--meta",
            "model=STANDARD",
        ],
        trec_eval_suite,
        monkeypatch,
    )
    assert error is None
    assert stdout == (trec_eval_suite / "out.test.aqc").read_bytes()  # report adds nothing
    document = json.loads((tmp_path / "r.json").read_bytes())
    report.validate_against_schema(document, report.REPORT_SCHEMA)
    printed = printed_values(stdout)
    label = {
        column["name"]: column["trec_eval"]
        for measure in document["measures"]
        for column in measure["columns"]
    }
    (result,) = document["results"]
    checked = 0
    for qid, values in [("all", result["aggregates"]), *result["per_query"].items()]:
        for name, value in values.items():
            text = printed[label[name], qid]
            assert (str(int(value)) if "." not in text else f"{value:.4f}") == text, (name, qid)
            checked += 1
    assert checked > 100
    assert list(result["per_query"]) == ["301", "303"]  # 302 is not in results.trunc
    assert printed["runid", "all"] == "STANDARD"
    manifest = json.loads((tmp_path / "m.json").read_bytes())
    report.validate_against_schema(manifest, report.MANIFEST_SCHEMA)
    assert manifest["experiment_id"] == document["experiment_id"]
    assert [(i["kind"], i["sha256"]) for i in manifest["inputs"]] == [
        ("qrels", hashlib.sha256((trec_eval_suite / "qrels.test").read_bytes()).hexdigest()),
        ("run", hashlib.sha256((trec_eval_suite / "results.trunc").read_bytes()).hexdigest()),
    ]
    assert (
        manifest["outputs"][0]["sha256"]
        == hashlib.sha256((tmp_path / "r.json").read_bytes()).hexdigest()
    )
    assert manifest["meta"] == {"model": "STANDARD"}
    assert document["options"]["complete"] is True


def test_score_writes_nothing_when_scoring_fails(trec_eval_suite, tmp_path, monkeypatch):
    bad = tmp_path / "bad.run"
    bad.write_text("301 Q0 d1 1 abc tag\n")
    _, error = score_cli(
        [
            str(trec_eval_suite / "qrels.test"),
            str(bad),
            "--report",
            str(tmp_path / "r.json"),
            "--manifest",
            str(tmp_path / "m.json"),
        ],
        tmp_path,
        monkeypatch,
    )
    assert isinstance(error, InputError)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.run"]


def test_score_refuses_a_report_over_its_run(trec_eval_suite, tmp_path, monkeypatch):
    run = tmp_path / "results.test"
    run.write_bytes((trec_eval_suite / "results.test").read_bytes())
    _, error = score_cli(
        [str(trec_eval_suite / "qrels.test"), str(run), "--report", str(run)],
        tmp_path,
        monkeypatch,
    )
    assert isinstance(error, OutputError)
    assert run.read_bytes() == (trec_eval_suite / "results.test").read_bytes()


def test_maxontsim_report_records_the_ontology(tmp_path, monkeypatch):
    from test_ontology import OBO

    obo = tmp_path / "hp.obo"
    obo.write_text(OBO)
    (tmp_path / "q").write_text("1 0 HP:0000004 1\n")
    (tmp_path / "r").write_text("1 Q0 HP:0000006 1 0.9 t\n")
    _, error = score_cli(
        [
            "q",
            "r",
            "-m",
            "MaxOntSim@5",
            "--ontology",
            "hp.obo",
            "--report",
            "out.json",
            "--manifest",
            "m.json",
        ],
        tmp_path,
        monkeypatch,
    )
    assert error is None
    document = json.loads((tmp_path / "out.json").read_bytes())
    report.validate_against_schema(document, report.REPORT_SCHEMA)
    sha = hashlib.sha256(obo.read_bytes()).hexdigest()
    assert document["ontology"]["sha256"] == sha
    assert document["ontology"]["release"] == "2099-01-31"
    assert document["ontology"]["formula"] == "hybrid"
    assert document["results"][0]["aggregates"]["MaxOntSim@5"] == 1.0  # the hybrid quirk
    manifest = json.loads((tmp_path / "m.json").read_bytes())
    assert [(i["kind"], i["sha256"]) for i in manifest["inputs"]][-1] == ("ontology", sha)


def test_report_groups_match_schema(tmp_path):
    from trecbench.evaluation import evaluate
    from trecbench.renderers.strata import groups_document
    from trecbench.strata import evaluation_groups

    (tmp_path / "q").write_text("a/1 0 d1 1\na/2 0 d2 1\nb/1 0 d3 1\n")
    (tmp_path / "r").write_text("a/1 Q0 d1 1 2 t\na/2 Q0 d9 1 2 t\nb/1 Q0 d3 1 2 t\n")
    evaluation = evaluate(tmp_path / "q", tmp_path / "r", ["P@1"])
    groups = groups_document({"qid-prefix": evaluation_groups(evaluation, None, "qid-prefix")})
    document = report.build_evaluation_report(evaluation, [], groups=groups)
    report.validate_against_schema(document, report.REPORT_SCHEMA)
    run = document["groups"]["qid-prefix"]["r"]  # the run by its name (its file stem)
    assert run["groups"] == {"a": {"n": 2, "P@1": 0.5}, "b": {"n": 1, "P@1": 1.0}}
    assert run["macro"] == {"n": 2, "P@1": 0.75}
    assert run["micro"] == {"n": 3, "P@1": 2 / 3}


def _hashed_blocks(monkeypatch) -> list[int]:
    """The sizes of the blocks readers hash from now on (sha256 taken), as they hash them."""
    from trecbench import provenance

    hashed: list[int] = []
    update = provenance.Digest.update

    def counting(self, block):
        if self._sha256 is not None:
            hashed.append(len(block))
        update(self, block)

    monkeypatch.setattr(provenance.Digest, "update", counting)
    return hashed


@pytest.mark.parametrize("in_blocks", [False, True])
def test_score_takes_checksums_only_for_its_report(files, tmp_path, monkeypatch, in_blocks):
    """A file's sha256 is taken only when --report, --manifest or --html writes it: plain
    ``score`` counts the bytes it reads and hashes none (read whole or in blocks)."""
    from trecbench import memory

    if in_blocks:
        monkeypatch.setattr(memory, "BLOCK_LINES", 1)
        monkeypatch.setattr(memory, "FEWEST_BLOCK_LINES", 1)
    hashed = _hashed_blocks(monkeypatch)
    run, qrels = files
    plain, error = score_cli([str(qrels), str(run)], tmp_path, monkeypatch)
    assert error is None and not hashed
    target = tmp_path / "r.json"
    reported, error = score_cli(
        [str(qrels), str(run), "--report", str(target)], tmp_path, monkeypatch
    )
    assert error is None and reported == plain and hashed
    records = {Path(r["path"]).name: r for r in json.loads(target.read_bytes())["inputs"]}
    for path in (run, qrels):
        assert records[path.name]["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()


def test_score_html_takes_checksums_and_the_docs_say_so(files, tmp_path, monkeypatch):
    """``score --html`` alone takes the sha256 of what it scores (the page lists them in
    its provenance), and docs/reports.md, which names the options that take them, names
    --html among them."""
    hashed = _hashed_blocks(monkeypatch)
    run, qrels = files
    _, error = score_cli([str(qrels), str(run), "--html", "page.html"], tmp_path, monkeypatch)
    assert error is None and hashed
    page = (tmp_path / "page.html").read_text(encoding="utf-8")
    assert hashlib.sha256(run.read_bytes()).hexdigest() in page
    docs = " ".join((Path(__file__).parents[1] / "docs/reports.md").read_text().split())
    said = re.search(r"`trecbench score` takes the checksums [^;]*? only when ([^(]*) writes", docs)
    assert said is not None and "`--html`" in said.group(1)


def test_a_report_after_a_plain_score_has_the_ontology_checksum(tmp_path, monkeypatch):
    """The ontology, cached per process, is built again for a report when a plain score
    (which takes no checksum) built it first."""
    from test_ontology import OBO

    (tmp_path / "hp.obo").write_text(OBO)
    (tmp_path / "q").write_text("1 0 HP:0000004 1\n2 0 HP:0000003 1\n")
    (tmp_path / "a.run").write_text("1 Q0 HP:0000006 1 0.9 t\n2 Q0 HP:0000002 1 0.9 t\n")
    common = ["q", "a.run", "-m", "MaxOntSim@5", "--ontology", str(tmp_path / "hp.obo")]
    plain, error = score_cli(common, tmp_path, monkeypatch)
    assert error is None
    reported, error = score_cli([*common, "--report", "r.json"], tmp_path, monkeypatch)
    assert error is None and reported == plain
    sha = hashlib.sha256((tmp_path / "hp.obo").read_bytes()).hexdigest()
    assert json.loads((tmp_path / "r.json").read_bytes())["ontology"]["sha256"] == sha


def test_a_run_of_text_measures_alone_is_in_the_report(tmp_path):
    """``-m relstring`` (text per topic, no value) wrote ``"results": []``: the runs
    scored were left out of the report (reviewer 185)."""
    from trecbench.cli import run as cli_run

    target = tmp_path / "r.json"
    runs = [str(ROOT / "runs" / name) for name in ("tfidf-char.run", "tfidf-word.run")]
    qrels = str(ROOT / "qrels" / "hpo-demo.qrels")
    assert cli_run(["score", "--report", str(target), "-m", "relstring", qrels, *runs]) == 0
    document = json.loads(target.read_text())
    report.validate_against_schema(document, report.REPORT_SCHEMA)
    assert document["results"] == [
        {"run": name, "topics": 56, "topics_with_values": 0, "aggregates": {}, "per_query": {}}
        for name in ("tfidf-char", "tfidf-word")
    ]


def test_the_manifest_of_python_m_trecbench_records_a_command_that_runs_again(tmp_path):
    """Reviewer 305: after `python -m trecbench` the manifest's command began with the
    path of trecbench/__main__.py, which does not run (no exec bit; as a script, its
    relative imports fail). It is the interpreter, its options, -m trecbench and the
    arguments, and the line, split as a shell splits it, runs again to the same output."""
    import shlex
    import sys

    manifest = tmp_path / "manifest.json"
    arguments = ["score", "-m", "P.5", "qrels/hpo-demo.qrels", "runs/tfidf-char.run"]
    command = [sys.executable, "-X", "utf8", "-m", "trecbench", *arguments]
    first = subprocess.run(
        [*command, "--manifest", str(manifest)], cwd=ROOT, capture_output=True, check=True
    )
    recorded = json.loads(manifest.read_bytes())
    report.validate_against_schema(recorded, report.MANIFEST_SCHEMA)
    assert recorded["command"]["argv"] == [*command, "--manifest", str(manifest)]
    again = subprocess.run(
        shlex.split(recorded["command"]["line"]),
        cwd=recorded["cwd"],
        capture_output=True,
        check=True,
    )
    assert again.stdout == first.stdout
    assert first.stdout.startswith(b"P_5")


@pytest.mark.parametrize("key", ["a b", "", "a=b", 1])
def test_a_meta_key_outside_meta_s_rule_is_refused_by_every_report(key):
    # the Python API's meta= recorded any key: files their own schemas refuse
    # (propertyNames), and {1: ..., "1": ...} as one key
    message = rf"meta: key {re.escape(repr(key))} must start with an ASCII letter"
    with pytest.raises(UsageError, match=message):
        report.build_manifest(["trecbench"], [], [], {"model": "bm25", key: "x"})
    with pytest.raises(UsageError, match=message):
        report.build_evaluation_report(fake_evaluation(), [], {}, meta={key: "x"})
    manifest = report.build_manifest(["trecbench"], [], [], {"model.v-2_": 1})
    assert manifest["meta"] == {"model.v-2_": 1}


# a Python caller's meta= values -> what the report holds: JSON values, as given (they
# were recorded as their str(): "0.9", "[256, 128]", "None", "<object object at 0x...>")
PYTHON_META = {
    "model": "bm25",
    "k1": 0.9,
    "seed": 42,
    "layers": [256, 128],
    "window": (1, 2),
    "sparse": True,
    "index": None,
    "params": {"b": np.float64(0.75), "epochs": np.int64(3)},
}
RECORDED_META = {
    "model": "bm25",
    "k1": 0.9,
    "seed": 42,
    "layers": [256, 128],
    "window": [1, 2],
    "sparse": True,
    "index": None,
    "params": {"b": 0.75, "epochs": 3},
}


def test_a_python_callers_meta_values_are_recorded_as_json_values(tmp_path):
    import trecbench

    built = report.build_evaluation_report(fake_evaluation(), [], {}, meta=PYTHON_META)
    assert built["meta"] == RECORDED_META
    assert type(built["meta"]["params"]["epochs"]) is int  # numpy's, as Python's
    report.validate_against_schema(built, "evaluation_report")
    manifest = report.build_manifest(["trecbench"], [], [], PYTHON_META)
    assert manifest["meta"] == RECORDED_META
    report.validate_against_schema(manifest, "experiment_manifest")
    # as written to a file, through compare's Python API
    runs = [ROOT / "runs" / "tfidf-char.run", ROOT / "runs" / "tfidf-word.run"]
    comparison = trecbench.compare(ROOT / "qrels" / "hpo-demo.qrels", runs, ["P@5"], samples=50)
    comparison.write(tmp_path / "out", meta=PYTHON_META, manifest=tmp_path / "m.json")
    written = json.loads((tmp_path / "out" / "BenchmarkReport.json").read_text())
    assert written["meta"] == RECORDED_META
    report.validate_against_schema(written, "benchmark_report")
    assert json.loads((tmp_path / "m.json").read_text())["meta"] == RECORDED_META
    # --meta's values stay text as given, never read as numbers
    assert report.recorded_meta(report.parse_meta(["k1=0.90", "seed=001"])) == {
        "k1": "0.90",
        "seed": "001",
    }


@pytest.mark.parametrize(
    ("value", "said"),
    [
        (float("nan"), "nan (a float): JSON has no NaN or infinity"),
        ([1, float("inf")], "inf (a float): JSON has no NaN or infinity"),
        ({1, 2}, "{1, 2} (a set): JSON cannot hold it"),
        (b"x", "b'x' (bytes): JSON cannot hold it"),
        (Path("i"), f"{Path('i')!r} (a {type(Path('i')).__name__}): JSON cannot hold it"),
        ({"a": {1: "x"}}, "{1: 'x'} (a dict): its keys are not all text, as JSON's are"),
        (10**5000, "(an int): more digits than Python writes"),
    ],
    ids=["nan", "inf", "set", "bytes", "path", "int-keys", "long-int"],
)
def test_a_meta_value_json_cannot_hold_is_refused_not_recorded_as_text(value, said):
    # str() recorded them: NaN as "nan", a path as its text, a set as "{1, 2}"
    with pytest.raises(UsageError, match=f"^meta: key 'x': .*{re.escape(said)}; give text"):
        report.build_manifest(["trecbench"], [], [], {"x": value})
    with pytest.raises(UsageError, match=f"^meta: key 'x': .*{re.escape(said)}; give text"):
        report.build_evaluation_report(fake_evaluation(), [], {}, meta={"x": value})


def _nested(levels: int) -> list:
    value: list = []
    for _ in range(levels):
        value = [value]
    return value


def test_a_meta_value_holding_itself_is_refused_not_a_recursion_error():
    # a list holding itself recursed until Python's stack ran out: RecursionError
    itself: list = []
    itself.append(itself)
    loop: dict = {}
    loop["a"] = loop
    deep = "^meta: key 'x': JSON nested deeper than 100 levels"
    for value in (itself, loop, _nested(101)):
        with pytest.raises(UsageError, match=deep):
            report.build_manifest(["trecbench"], [], [], {"x": value})
    assert report.recorded_meta({"x": _nested(100)}) == {"x": _nested(100)}


def test_the_report_builders_refuse_arguments_of_another_kind_in_one_line():
    """Reviewer 677: a text argv became ['t', 'r', 'e', ...] (its line 't r e c b e n c h'),
    text warnings one per character; an int evaluation, inputs=5 and meta=[1] raised
    AttributeError or TypeError from inside."""
    import trecbench

    evaluation = trecbench.evaluate(
        str(ROOT / "qrels/hpo-demo.qrels"), str(ROOT / "runs/tfidf-word.run"), ["P@5"]
    )
    inputs = list(evaluation.input_records.values())
    refused = [
        (lambda: report.build_manifest("trecbench score", inputs, [], {}),
         "argv='trecbench score': give a list of command-line words, not text"),
        (lambda: report.build_manifest(["x"], inputs, "o", {}),
         "outputs='o': give a list of output records, not text"),
        (lambda: report.build_manifest(["x"], inputs, [], meta=[1]),
         "meta: give a mapping of key to value, not [1]"),
        (lambda: report.build_evaluation_report(evaluation, inputs, warnings="abc"),
         "warnings='abc': give a list of warnings' lines, not text"),
        (lambda: report.build_evaluation_report(5, []),
         "evaluation: give an Evaluation, not an int"),
        (lambda: report.build_evaluation_report(evaluation, 5),
         "inputs=5: give a list of input records, not an int"),
    ]  # fmt: skip
    for call, said in refused:
        with pytest.raises(UsageError) as error:
            call()
        assert str(error.value) == said
    assert "warnings" not in report.build_evaluation_report(evaluation, inputs, warnings=None)
    built = report.build_manifest(("trecbench", "score"), tuple(inputs), [], {})
    assert built["command"] == {"argv": ["trecbench", "score"], "line": "trecbench score"}
