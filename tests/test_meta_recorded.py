"""--meta where nothing records it is refused before any work, as compare's --manifest
without -o is (a usage error, exit 1): score and compare took it, exit 0, and dropped
it without a word."""

from __future__ import annotations

import json
import sys

import pytest
from click.testing import CliRunner

from trecbench.cli import _register, cli, run

_register()

QRELS, RUNS = "qrels/hpo-demo.qrels", ["runs/tfidf-word.run", "runs/tfidf-char.run"]
COMPARE = ["compare", QRELS, *RUNS, "-m", "P@5", "--samples", "40"]


def _invoke(*args):
    return CliRunner().invoke(cli, [*map(str, args)])


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["score", QRELS, RUNS[0]], "--meta is recorded in --report and --manifest"),
        (["score", QRELS, RUNS[0], "--format", "json"], "--meta is recorded in --report"),
        (COMPARE, "--meta is recorded in the BenchmarkReport: give -o OUTDIR"),
        ([*COMPARE, "--format", "csv"], "--meta is recorded in the BenchmarkReport"),
        ([*COMPARE, "--format", "json", "--quiet"], "--meta is recorded in the BenchmarkReport"),
    ],
)
def test_meta_recorded_nowhere_is_refused(args, said, monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", ["trecbench", *args, "--meta", "a=1"])
    code, printed = run(), capsys.readouterr()
    assert (code, printed.out) == (1, "")
    assert printed.err.startswith(f"trecbench: {said}")
    assert len(printed.err.splitlines()) == 1


def test_meta_is_taken_where_it_is_recorded(tmp_path):
    report, manifest = tmp_path / "r.json", tmp_path / "m.json"
    for recorder, path in (("--report", report), ("--manifest", manifest)):
        done = _invoke("score", QRELS, RUNS[0], recorder, path, "--meta", "a=1")
        assert done.exit_code == 0, done.output
        assert json.loads(path.read_text(encoding="utf-8"))["meta"] == {"a": "1"}
    done = _invoke(*COMPARE, "--format", "json", "--meta", "a=1")
    assert done.exit_code == 0, done.output
    assert json.loads(done.stdout)["meta"] == {"a": "1"}
    done = _invoke(*COMPARE, "-o", tmp_path / "c", "--quiet", "--meta", "a=1")
    assert done.exit_code == 0, done.output
    written = json.loads((tmp_path / "c" / "BenchmarkReport.json").read_text(encoding="utf-8"))
    assert written["meta"] == {"a": "1"}
