"""compare --format json prints the BenchmarkReport the call writes: with -o, the bytes of
its BenchmarkReport.json (the --meta pairs and experiment id the file and the manifest
hold); without -o, the report it would write. It printed a report of its own, with no
meta and a null experiment id, beside a file holding both."""

from __future__ import annotations

import json
import uuid

from click.testing import CliRunner

from trecbench.cli import _register, cli
from trecbench.report import validate_against_schema

_register()

FILES = ["qrels/hpo-demo.qrels", "runs/tfidf-word.run", "runs/tfidf-char.run"]
ARGS = ["compare", *FILES, "-m", "P@5", "--samples", "40", "--meta", "model=zz"]


def _invoke(*args):
    result = CliRunner().invoke(cli, [*ARGS, "--format", "json", *map(str, args)])
    assert result.exit_code == 0, result.output
    return result.stdout


def test_standard_output_is_the_report_file_of_the_call(tmp_path):
    out = tmp_path / "out"
    printed = _invoke("-o", out, "--manifest", tmp_path / "m.json")
    assert printed.encode("utf-8") == (out / "BenchmarkReport.json").read_bytes()
    document = json.loads(printed)
    assert document["meta"] == {"model": "zz"}
    manifest = json.loads((tmp_path / "m.json").read_text(encoding="utf-8"))
    assert document["experiment_id"] == manifest["experiment_id"]
    assert str(uuid.UUID(document["experiment_id"])) == document["experiment_id"]


def test_without_outdir_the_report_still_holds_meta_and_an_id():
    document = json.loads(_invoke())
    validate_against_schema(document, "benchmark_report")
    assert document["meta"] == {"model": "zz"}
    assert uuid.UUID(document["experiment_id"]).version == 4
    assert document["experiment_id"] != json.loads(_invoke())["experiment_id"]  # per call
