"""``trecbench convert`` end to end through the command line."""

from __future__ import annotations

import json
import sys

import pytest
from click.testing import CliRunner

from trecbench.cli import _register, cli, main
from trecbench.inputs import read_run

_register()


def run_cli(*args):
    return CliRunner().invoke(cli, ["convert", *map(str, args)], catch_exceptions=False)


def test_code_chunk_cli_scores_like_trec_eval(code_chunk_data, tmp_path):
    (detailed,) = code_chunk_data.glob("detailed_*.json")
    result = run_cli("code-chunk", detailed, "-o", tmp_path)
    assert result.exit_code == 0, result.output
    assert "ast.run: 373 queries, 1865 documents; 62 tied score(s) in 33 queries" in result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "ast.run",
        "codechunk-ast.qrels",
        "codechunk-fixed.qrels",
        "codechunk.sidecar.json",
        "fixed.run",
    ]
    sidecar = json.loads((tmp_path / "codechunk.sidecar.json").read_text())
    assert sidecar["runs"]["ast"]["qrels"] == "codechunk-ast.qrels"
    assert len(sidecar["runs"]["fixed"]["original_scores"]) == 1865
    assert sidecar["strata"]["fields"] == ["repo"]
    assert len(sidecar["strata"]["queries"]) == 373


def test_hpo_cli_on_demo_data(tmp_path):
    from pathlib import Path

    demo = Path(__file__).resolve().parents[1] / "data" / "hpo-demo"
    results = sorted((demo / "results").glob("*/terms.jsonl"))
    if not results:
        pytest.skip("demo data not generated")
    args = [a for r in results for a in ("--results", r)]
    result = run_cli("hpo", demo / "cases.json", *args, "--name", "hpo-demo", "-o", tmp_path)
    assert result.exit_code == 0, result.output
    assert "hpo-demo.qrels: 56 queries" in result.output
    run = read_run(tmp_path / "tfidf-word.run")
    assert run["tag"].unique().tolist() == ["tfidf-word"]
    sidecar = json.loads((tmp_path / "hpo-demo.sidecar.json").read_text())
    assert sidecar["strata"]["fields"] == ["language", "difficulty", "category", "hpo_domain"]
    assert sidecar["provenance"]["ontology"]["checked"]


def run_main(monkeypatch, capsys, *args):
    """Exit code and stderr of the console entry point (which turns errors into one line)."""
    monkeypatch.setattr(sys, "argv", ["trecbench", "convert", *map(str, args)])
    with pytest.raises(SystemExit) as exit_info:
        main()
    return exit_info.value.code, capsys.readouterr().err


def test_errors_are_one_line_and_inputs_never_overwritten(tmp_path, monkeypatch, capsys):
    bad = tmp_path / "lists.json"
    bad.write_text('{"gold_docs": [[]], "retrieved_chunks": [[], []]}')
    code, err = run_main(monkeypatch, capsys, "lists", bad, "-o", tmp_path)
    assert (code, err) == (2, f"trecbench: {bad}: 1 gold_docs lists but 2 retrieved_chunks\n")
    # a dict run called bm25.run converted into its own folder would replace itself
    victim = tmp_path / "bm25.run"
    victim.write_text('{"q": {"d": 1.0}}')
    code, err = run_main(monkeypatch, capsys, "dict", victim, "-o", tmp_path)
    assert (code, err) == (2, f"trecbench: {victim}: refusing to overwrite an input file\n")
    assert victim.read_text() == '{"q": {"d": 1.0}}'
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bm25.run", "lists.json"]


def test_line_offset_option_is_checked(tmp_path):
    source = tmp_path / "x.json"
    source.write_text('{"results": []}')
    result = CliRunner().invoke(
        cli, ["convert", "memorybench", str(source), "--line-offset", "chonkie", "-o", "o"]
    )
    assert result.exit_code == 1  # a usage error: 1 in every command
    assert "'chonkie' is not PROVIDER=N" in result.output


def test_every_subcommand_has_an_example():
    for name in ("hpo", "code-chunk", "memorybench", "lists", "dict"):
        result = run_cli(name, "--help")
        assert result.exit_code == 0 and "Example:" in result.output, name


def test_committed_demo_outputs_are_what_the_converter_writes(tmp_path, monkeypatch):
    """qrels/ and runs/ are produced by `make demo`; regenerating them changes nothing."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    committed = sorted((root / "qrels").glob("hpo-demo.*")) + sorted((root / "runs").glob("*.run"))
    if not committed:
        pytest.skip("demo outputs not generated")
    monkeypatch.chdir(root)
    results = [f"data/hpo-demo/results/{r}/terms.jsonl" for r in
               ("tfidf-char", "tfidf-word", "tfidf-word-parents")]  # fmt: skip
    args = [a for r in results for a in ("--results", r)]
    out = tmp_path / "qrels"
    result = run_cli("hpo", "data/hpo-demo/cases.json", *args, "--name", "hpo-demo", "-o", out,
                     "--runs-dir", tmp_path / "runs")  # fmt: skip
    assert result.exit_code == 0, result.output
    for path in committed:
        fresh = tmp_path / path.parent.name / path.name
        assert fresh.read_bytes() == path.read_bytes(), path.name
