"""What an ir_metadata block trecbench writes records of the options that made its run:
``fuse --optimize``'s grid (the step changes the weights chosen) and the versions behind
the numbers, ``convert``'s options (--depth...) as its sidecar records them."""

from __future__ import annotations

import csv
import gzip
import io
import json
import math
import os
import platform
import subprocess
import sys
from importlib.metadata import version

import pytest
from conftest import ROOT

import trecbench
from trecbench.cli import run

LEXICAL = ROOT / "data" / "hpo-rtask" / "lexical.run"
VECTOR = ROOT / "data" / "hpo-rtask" / "vector.run"
QRELS = ROOT / "data" / "hpo-rtask" / "hpo-rtask.qrels"


def _fused(tmp_path, name: str, *options: str) -> dict:
    """The ir_metadata of ``fuse --ir-metadata`` with ``options``, the vector run gzipped."""
    about = tmp_path / "about.yaml"
    about.write_text("actor:\n  team: rev\n")
    vector = tmp_path / "v.run.gz"
    vector.write_bytes(gzip.compress(VECTOR.read_bytes()))
    out = tmp_path / name
    argv = ["fuse", *options, "--qrels", str(QRELS), str(LEXICAL), str(vector)]
    assert run([*argv, "--ir-metadata", str(about), "-o", str(out)]) == 0
    return trecbench.load_run(str(out)).ir_metadata


@pytest.mark.parametrize(("step", "candidates"), [("0.25", 5), ("0.1", 11)])
def test_fuse_optimize_records_the_step_that_changes_the_choice(tmp_path, capsys, step,
                                                                candidates):  # fmt: skip
    # the block left --step out: 0.25 chose 0.75,0.25 of 5 candidates, 0.1 0.6,0.4 of 11
    options = ["--method", "combsum", "--optimize", "nDCG@10", "--step", step]
    searched = _fused(tmp_path, "g.run", *options)["method"]["fusion"]["optimized"]
    assert searched["step"] == float(step) and searched["k_grid"] is None
    # two runs, weights i/parts summing to 1: parts + 1 candidates (stars and bars)
    parts = round(1 / float(step))
    assert searched["candidates"] == math.comb(parts + 1, 1) == candidates
    assert all(round(w * parts, 9).is_integer() for w in searched["weights"])
    assert {"measure", "folds", "seed"} <= set(searched)


def test_fuse_optimize_records_rrf_s_k_grid(tmp_path, capsys):
    searched = _fused(tmp_path, "r.run", "--optimize", "P@10")["method"]["fusion"]["optimized"]
    assert searched["k_grid"] == list(range(10, 101, 10)) and searched["step"] is None
    assert searched["k"] in searched["k_grid"]


def test_fuse_records_python_and_the_package_versions(tmp_path, capsys):
    metadata = _fused(tmp_path, "g.run", "--optimize", "P@10")
    libraries = metadata["platform"]["software"]["libraries"]["python"]
    assert libraries[0] == f"python=={platform.python_version()}"
    for package in ("numpy", "pandas", "pyarrow", "pytrec-eval-terrier", "ir-measures"):
        assert f"{package}=={version(package)}" in libraries


def test_convert_records_the_options_of_its_sidecar(tmp_path, capsys):
    # the block named the converter and the inputs, not --depth: the run file alone did
    # not say how it was made
    about = tmp_path / "about.yaml"
    about.write_text("actor:\n  team: rev\n")
    cases = ROOT / "data" / "hpo-demo" / "cases.json"
    results = ROOT / "data" / "hpo-demo" / "results" / "tfidf-word" / "terms.jsonl"
    out = tmp_path / "cv3"
    argv = ["convert", "--ir-metadata", str(about), "hpo", str(cases), "--results", str(results)]
    assert run([*argv, "--depth", "7", "--results-format", "terms", "-o", str(out)]) == 0
    options = trecbench.load_run(str(out / "tfidf-word.run")).ir_metadata["method"]["conversion"][
        "options"
    ]
    assert options["depth"] == 7 and options["results_format"] == {"tfidf-word": "terms"}
    sidecar = json.loads((out / "cases.sidecar.json").read_bytes())
    assert options == sidecar["provenance"]["options"]


def test_a_description_of_the_systems_libraries_is_joined_not_refused(tmp_path, capsys):
    # fuse refused a description that listed its system's libraries once trecbench wrote
    # its own versions there; e1fccca accepted it (final read 345)
    from conftest import ROOT

    from trecbench.cli import run
    from trecbench.inputs import ir_metadata

    about = tmp_path / "about.yaml"
    about.write_text("platform:\n  software:\n    libraries:\n      python: [pyterrier==0.10.0]\n")
    demo = ROOT / "data" / "hpo-rtask"
    fused = tmp_path / "f.run"
    argv = ["fuse", str(demo / "lexical.run"), str(demo / "vector.run"), "-o", str(fused)]
    assert run([*argv, "--ir-metadata", str(about)]) == 0, capsys.readouterr().err
    block = ir_metadata.find_block(fused.read_bytes(), str(fused))
    libraries = ir_metadata.parse(block, str(fused))["platform"]["software"]["libraries"]
    assert libraries["python"][0].startswith("python==")
    assert libraries["python"][-1] == "pyterrier==0.10.0"
    assert ir_metadata.merged({"x": ["a", "b"]}, {"x": ["b", "c"]}) == {"x": ["a", "b", "c"]}


@pytest.mark.parametrize(
    "argv, unused",
    [
        (["--ir-metadata", "{about}", "beir-qrels", "{beir}"], "--ir-metadata"),
        (["--ir-metadata", "{about}", "hpo", "{cases}"], "--ir-metadata"),
        (["hpo", "{cases}", "--runs-dir", "{out}/runs"], "--runs-dir"),
    ],
)
def test_options_of_runs_are_refused_where_no_run_is_written(tmp_path, capsys, argv, unused):
    # a conversion that writes no run printed "each run begins with its ir_metadata block"
    # and recorded it in the sidecar, or ignored --runs-dir, though no run was written
    about = tmp_path / "about.yaml"
    about.write_text("actor:\n  team: rev\n")
    paths = {
        "about": about,
        "beir": ROOT / "data" / "convert" / "beir-test.tsv",
        "cases": ROOT / "data" / "hpo-demo" / "cases.json",
        "out": tmp_path,
    }
    out = tmp_path / "cv"
    assert run(["convert", *(a.format(**paths) for a in argv), "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert f"{unused}: this conversion writes no run" in err and err.count("\n") == 1
    assert not out.exists() and not (tmp_path / "runs").exists()


def test_beir_qrels_offers_no_runs_folder_and_refuses_standard_output(capsys):
    beir = str(ROOT / "data" / "convert" / "beir-test.tsv")
    assert run(["convert", "beir-qrels", beir, "-o", "-"]) == 2
    assert "this output is a folder, not standard output" in capsys.readouterr().err
    assert run(["convert", "beir-qrels", "--help"]) == 0
    assert "--runs-dir" not in capsys.readouterr().out


@pytest.mark.parametrize(
    ("converter", "given", "written"),
    [
        ("beir-qrels", "beir-test.tsv", ["beir-test.qrels", "beir-test.sidecar.json"]),
        ("msmarco", "msmarco-run.tsv", ["msmarco-run.run", "msmarco-run.sidecar.json"]),
    ],
)
def test_dot_slash_dash_names_a_folder_called_dash(
    tmp_path, monkeypatch, capsys, converter, given, written
):
    # the refusal of -o - advises ./-, which was then taken for standard output itself:
    # Path("./-") == Path("-")
    monkeypatch.chdir(tmp_path)
    source = str(ROOT / "data" / "convert" / given)
    assert run(["convert", converter, source, "-o", "./-"]) == 0, capsys.readouterr().err
    captured = capsys.readouterr()
    assert captured.out == ""
    assert sorted(p.name for p in (tmp_path / "-").iterdir()) == written
    assert f"wrote -/{written[0]}" in captured.err


@pytest.mark.parametrize(
    "command",
    [
        ["compare", str(ROOT / "qrels" / "hpo-demo.qrels"), str(ROOT / "runs" / "tfidf-char.run")],
        ["convert", "msmarco", "-o", "out"],
    ],
)
def test_dot_slash_dash_names_an_input_file_called_dash(tmp_path, monkeypatch, capsys, command):
    # an input given as ./- was read from standard input: Path("./-") == Path("-")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "-").write_bytes((ROOT / "runs" / "tfidf-word.run").read_bytes())
    code = run([*command, "./-"])
    err = capsys.readouterr().err
    assert "empty file" not in err and "standard input" not in err
    if command[0] == "compare":
        assert code == 0, err
    else:  # a TREC run is no MS MARCO run: refused for its own first line
        assert code != 0 and f"{tmp_path / '-'}:1: expected 3 fields" in err


_DASH_QRELS = "1 0 d1 1\n1 0 d2 0\n2 0 d3 1\n2 0 d4 0\n"
# MAP 1.0 (the file called -), 0.75 (the other run) and 0.5 (what standard input holds)
_DASH_RUNS = {
    "-": "1 Q0 d1 1 2 f\n1 Q0 d2 2 1 f\n2 Q0 d3 1 2 f\n2 Q0 d4 2 1 f\n",
    "r1": "1 Q0 d2 1 2 r\n1 Q0 d1 2 1 r\n2 Q0 d3 1 2 r\n2 Q0 d4 2 1 r\n",
}
_DASH_STDIN = "1 Q0 d2 1 2 s\n1 Q0 d1 2 1 s\n2 Q0 d4 1 2 s\n2 Q0 d3 2 1 s\n"


def _in_dash_folder(tmp_path, argv: list[str]) -> subprocess.CompletedProcess:
    """``trecbench ARGV`` in a folder holding qrels ``q``, a run ``r1`` and a run file
    called ``-``, with another run on standard input."""
    (tmp_path / "q").write_text(_DASH_QRELS)
    for name, text in _DASH_RUNS.items():
        (tmp_path / name).write_text(text)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run(
        [sys.executable, "-m", "trecbench", *argv], cwd=tmp_path, env=env,
        input=_DASH_STDIN, capture_output=True, text=True, timeout=120,
    )  # fmt: skip


@pytest.mark.parametrize("listed", [[], ["./-"]])
def test_names_dot_slash_dash_names_the_file_called_dash(tmp_path, listed):
    # --names base=./- read standard input as the run base: named_pairs normalised to -
    argv = ["compare", "-m", "map", "--samples", "100", "--format", "csv", "q", "r1", *listed]
    done = _in_dash_folder(tmp_path, [*argv, "--names", "base=./-"])
    assert done.returncode == 0, done.stderr
    rows = {row["run"]: row for row in csv.DictReader(io.StringIO(done.stdout))}
    assert set(rows) == {"r1", "base"}
    assert float(rows["base"]["mean"]) == 1.0  # AP 1/1 on both topics: not stdin's 0.5


def test_a_suite_in_the_current_folder_reads_its_run_called_dash(tmp_path):
    # Path(".") / "./-" is Path("-"): the suite's run b was standard input
    suite = 'measures = ["map"]\n[collections.c]\nqrels = "q"\nruns = {a = "r1", b = "./-"}\n'
    (tmp_path / "suite.toml").write_text(suite)
    done = _in_dash_folder(tmp_path, ["leaderboard", "suite.toml"])
    assert done.returncode == 0, done.stderr
    means = {line.split()[0]: line.split()[1] for line in done.stdout.splitlines()[2:4]}
    assert means == {"a": "0.7500", "b": "1.0000"}


def test_a_description_s_null_tag_gives_none_the_run_s_is_recorded(tmp_path, capsys):
    # review 719: `tag:` (null) was refused by fuse ("gives null where trecbench records
    # 'rrf'") and written as `tag: null` by convert, a block naming no run
    about = tmp_path / "about.yaml"
    about.write_text("tag:\nactor:\n  team: rev\n")
    fused = tmp_path / "f.run"
    argv = ["fuse", "--ir-metadata", str(about), str(LEXICAL), str(VECTOR), "-o", str(fused)]
    assert run(argv) == 0
    assert trecbench.load_run(str(fused)).ir_metadata["tag"] == "rrf"
    source = tmp_path / "m.tsv"
    source.write_text("q1\td1\t1\n")
    argv = [
        "convert",
        "--ir-metadata",
        str(about),
        "msmarco",
        str(source),
        "-o",
        str(tmp_path / "c"),
    ]
    assert run(argv) == 0
    assert trecbench.load_run(str(tmp_path / "c" / "m.run")).ir_metadata["tag"] == "m"
