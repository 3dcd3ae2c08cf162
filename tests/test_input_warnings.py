"""Every command that reads runs and qrels as score does says what score says of them on
stderr (the validator's lenient gate: CRLF line ends, one line per file; a blank line...),
each line once however often the call reads the file, the numbers on stdout unchanged.
compare and score said them; power, agree, fuse, leaderboard, similarity, pool and
benchmark said nothing. A library call's result carries the same lines (its
``input_warnings``), whether or not a command's scope is open: only evaluate's did."""

from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd
import pytest
from conftest import ROOT

import trecbench
from trecbench import input_warnings
from trecbench.cli import run

QRELS = str(ROOT / "qrels" / "hpo-demo.qrels")
RUNS = ("tfidf-word", "tfidf-char", "tfidf-word-parents")


def _runs(folder, dirty: bool) -> list[str]:
    """The three demo runs in ``folder``; ``dirty``: the first with CRLF line ends, a
    blank line in the second."""
    folder.mkdir()
    paths = []
    for name in RUNS:
        lines = (ROOT / "runs" / f"{name}.run").read_bytes().splitlines(keepends=True)
        if dirty and name == RUNS[0]:
            lines = [line.replace(b"\n", b"\r\n") for line in lines]
        if dirty and name == RUNS[1]:
            lines.insert(100, b"\n")  # line 101
        path = folder / f"{name}.run"
        path.write_bytes(b"".join(lines))
        paths.append(str(path))
    return paths


def _said(runs: list[str]) -> list[str]:
    return [
        f"trecbench: warning: {runs[0]}: warning[R24]: CRLF line ends on all 2800 lines "
        "(read as LF; scores unaffected; validate --fix normalises them)",
        f"trecbench: warning: {runs[1]}:101:line: warning[R21]: blank line (trec_eval skips it)",
    ]


def _suite(runs: list[str], qrels: str = QRELS) -> list[str]:
    """A leaderboard suite of the runs' folder: the demo's languages as collections."""
    suite = Path(runs[0]).parent / "suite.toml"
    sidecar = ROOT / "qrels" / "hpo-demo.sidecar.json"
    systems = ", ".join(f'"{name}"' for name in RUNS)
    collections = "".join(
        f'[collections.{language}]\nqrels = "{qrels}"\nruns = "{{system}}.run"\n'
        f'strata = "{sidecar}"\nwhere = {{ language = "{language}" }}\n'
        for language in ("de", "en")
    )
    suite.write_text(f'name = "demo"\nmeasures = ["P@5", "nDCG@10"]\nsystems = [{systems}]\n'
                     + collections)  # fmt: skip
    return [str(suite)]


COMMANDS = {
    "score": lambda runs: ["score", "-m", "P@5", "-m", "map", QRELS, *runs],
    # read by worker processes: their warnings come back with their results
    "score --jobs": lambda runs: ["score", "--jobs", "2", "-m", "P@5", QRELS, *runs],
    "compare": lambda runs: ["compare", "-m", "P@5", "--format", "csv", QRELS, *runs],
    "power": lambda runs: ["power", "-m", "P@5", QRELS, *runs],
    "agree": lambda runs: ["agree", "-m", "P@5", "-m", "map", QRELS, *runs],
    "fuse": lambda runs: ["fuse", "--method", "combsum", *runs[:2], "-o", "-"],
    "leaderboard": lambda runs: ["leaderboard", *_suite(runs)],
    "similarity": lambda runs: ["similarity", *runs[:2]],
    "pool": lambda runs: ["pool", "--depth", "5", *runs[:2], "-o", runs[0] + ".pool"],
}


SIMILARITY_SAYS = (
    "trecbench: warning: tfidf-word and tfidf-char: the mean kendall_tau is over 27 of 56 "
    "topics (the rest have fewer than two documents both runs retrieved)"
)


def _call(args: list[str], capsys) -> tuple[str, list[str]]:
    assert run(args) == 0
    said = capsys.readouterr()
    return said.out, [line for line in said.err.splitlines() if "warning" in line]


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_says_the_input_warnings_score_says(command, tmp_path, capsys):
    clean, dirty = _runs(tmp_path / "clean", False), _runs(tmp_path / "dirty", True)
    out, warned = _call(COMMANDS[command](clean), capsys)
    # none of the inputs' (similarity says over how many topics its mean tau is, of both)
    assert warned == ([] if command != "similarity" else [SIMILARITY_SAYS])
    dirty_out, dirty_warned = _call(COMMANDS[command](dirty), capsys)
    assert dirty_warned == _said(dirty) + warned
    assert dirty_out == out.replace(str(tmp_path / "clean"), str(tmp_path / "dirty"))


def test_benchmark_says_them_too(tmp_path, capsys):
    """benchmark validates its runs with the R-task rules into its report; what score
    says of them on stderr it said nothing of."""
    said = []
    for name in ("clean", "dirty"):
        folder = tmp_path / name / "data" / "hpo-rtask"
        shutil.copytree(ROOT / "data" / "hpo-rtask", folder)
        shutil.copytree(ROOT / "qrels", tmp_path / name / "qrels")
        run = folder / "lexical.run"
        if name == "dirty":
            run.write_bytes(run.read_bytes().replace(b"\n", b"\r\n"))
        out = tmp_path / name / "out"
        said.append(_call(["benchmark", str(folder / "benchmark.toml"), "-o", str(out)], capsys))
    (out, warned), (dirty_out, dirty_warned) = said
    assert warned == []
    assert dirty_warned == [
        f"trecbench: warning: {run}: warning[R24]: CRLF line ends on all 5600 lines "
        "(read as LF; scores unaffected; validate --fix normalises them)"
    ]
    assert dirty_out == out.replace("/clean/", "/dirty/")  # (Markdown escapes the path's _)


def test_a_file_read_twice_is_said_once(tmp_path, capsys):
    """agree scores the runs under QRELS and again under --qrels-b (one read, two
    evaluations that each hold the run's warnings)."""
    runs = _runs(tmp_path / "dirty", True)
    crlf = tmp_path / "crlf.qrels"
    crlf.write_bytes((ROOT / "qrels" / "hpo-demo.qrels").read_bytes().replace(b"\n", b"\r\n"))
    args = ["agree", "-m", "P@5", str(crlf), *runs, "--qrels-b", str(crlf)]
    _, warned = _call(args, capsys)
    qrels_said = (
        f"trecbench: warning: {crlf}: warning[R24]: CRLF line ends on all 60 lines "
        "(read as LF; scores unaffected)"
    )
    assert sorted(warned) == sorted([*_said(runs), qrels_said])


# A library call's result carries its input warnings (compare, power, agree... returned
# none of them: a Python user never learned the qrels had CRLF line ends).
API = {
    "evaluate": lambda qrels, runs: trecbench.evaluate(qrels, runs, ["P@5"]),
    "compare": lambda qrels, runs: trecbench.compare(qrels, runs, ["P@5"], samples=100),
    "power": lambda qrels, runs: trecbench.power(qrels, runs[0], runs[1:], ["P@5"]),
    # the qrels read once, the runs scored under them twice
    "agree": lambda qrels, runs: trecbench.agree(qrels, runs, ["P@5"], qrels_b=qrels),
    "fuse": lambda qrels, runs: trecbench.fuse(runs[:2], "combsum"),
    "similarity": lambda qrels, runs: trecbench.similarity(runs[:2]),
    "pool": lambda qrels, runs: trecbench.pool(runs[:2], depth=5, qrels=qrels),
    "leaderboard": lambda qrels, runs: trecbench.leaderboard(_suite(runs, qrels)[0]),
    # the qrels evaluated once per fold
    "optimize_fusion": lambda qrels, runs: trecbench.optimize_fusion(runs[:2], qrels, "map"),
}
# in the order read: the qrels before the runs, or after them, or not read
QRELS_FIRST = {"evaluate", "compare", "power", "agree", "pool", "leaderboard"}
QRELS_LAST = {"optimize_fusion"}


def _crlf_qrels(folder: Path) -> str:
    crlf = folder / "crlf.qrels"
    crlf.write_bytes(Path(QRELS).read_bytes().replace(b"\n", b"\r\n"))
    return str(crlf)


def _carried(result) -> tuple[str, ...]:
    if isinstance(result, pd.DataFrame):  # fuse's run
        return result.attrs["input_warnings"]
    return result.input_warnings


def _unprefixed(lines: list[str]) -> list[str]:
    return [line.removeprefix("trecbench: warning: ") for line in lines]


@pytest.mark.parametrize("entry_point", API)
def test_every_api_result_carries_its_input_warnings(entry_point, tmp_path):
    runs = _runs(tmp_path / "dirty", True)
    qrels = _crlf_qrels(tmp_path)
    qrels_said = (
        f"{qrels}: warning[R24]: CRLF line ends on all 60 lines (read as LF; scores unaffected)"
    )
    said = _unprefixed(_said(runs))
    if entry_point in QRELS_FIRST:
        said = [qrels_said, *said]
    elif entry_point in QRELS_LAST:
        said = [*said, qrels_said]
    assert list(_carried(API[entry_point](qrels, runs))) == said


def test_the_result_carries_them_in_a_command_scope_too(tmp_path):
    """Inside the CLI's scope the result carries the lines read, and the command still
    has each of them to say once."""
    runs = _runs(tmp_path / "dirty", True)
    qrels = _crlf_qrels(tmp_path)
    with input_warnings.kept():
        comparison = trecbench.compare(qrels, runs, ["P@5"], samples=100)
        said = input_warnings.unsaid()
        assert input_warnings.unsaid() == []
        again = trecbench.power(qrels, runs[0], runs[1:], ["P@5"])
        assert input_warnings.unsaid() == []  # said already: not twice
    assert comparison.warnings == []  # its own warnings: the CLI says both
    assert list(comparison.input_warnings) == said
    assert again.input_warnings == comparison.input_warnings
    assert said[0].startswith(f"{qrels}: warning[R24]")  # in the order read: qrels first
    assert said[1:] == _unprefixed(_said(runs))


def test_a_benchmark_carries_them(tmp_path):
    folder = tmp_path / "data" / "hpo-rtask"
    shutil.copytree(ROOT / "data" / "hpo-rtask", folder)
    shutil.copytree(ROOT / "qrels", tmp_path / "qrels")
    qrels, run = folder / "hpo-rtask.qrels", folder / "lexical.run"
    for path in (qrels, run):
        path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))
    result = trecbench.run_benchmark(folder / "benchmark.toml")
    assert result.input_warnings == (
        f"{qrels}: warning[R24]: CRLF line ends on all 1415 lines (read as LF; scores unaffected)",
        f"{run}: warning[R24]: CRLF line ends on all 5600 lines "
        "(read as LF; scores unaffected; validate --fix normalises them)",
    )


def test_compare_says_each_line_once(tmp_path, capsys):
    """The command says the lines of the gate once, its result's own warnings aside."""
    runs = _runs(tmp_path / "dirty", True)
    qrels = _crlf_qrels(tmp_path)
    _, warned = _call(["compare", "-m", "P@5", "--format", "csv", qrels, *runs], capsys)
    assert _unprefixed(warned)[0].startswith(f"{qrels}: warning[R24]")
    assert warned[1:] == _said(runs)


def test_an_evaluation_of_one_file_twice_carries_its_lines_once(tmp_path):
    """Its ``warnings`` hold a copy per run read; ``input_warnings`` each line once, as
    every other result's (reviewer 192)."""
    qrels = _crlf_qrels(tmp_path)
    run = tmp_path / "crlf.run"
    run.write_bytes((ROOT / "runs" / "tfidf-word.run").read_bytes().replace(b"\n", b"\r\n"))
    evaluation = trecbench.evaluate(qrels, [run, run], ["P.5"], run_names=["a", "b"])
    assert len(evaluation.input_warnings) == 2  # the qrels' line and the run's
    assert len(set(evaluation.input_warnings)) == 2


@pytest.mark.parametrize(
    ("block_ends", "said"),
    [
        (b"\r\n", "on all 4 lines"),  # it said 1 of 4: the block's lines were not counted
        (b"\n", "on 1 of 4 lines, the first of them here"),
    ],
)
def test_an_ir_metadata_block_s_crlf_lines_count_as_any_line_s(tmp_path, capsys, block_ends, said):
    # review 718: a CRLF file with a block was said to have CRLF on "1 of 4 lines"
    run_file = tmp_path / "r.run"
    block = b"# ir_metadata.start", b"# tag: r", b"# ir_metadata.end"
    run_file.write_bytes(b"".join(line + block_ends for line in block) + b"en-01 Q0 d 1 1 r\r\n")
    _, warned = _call(["score", "-m", "P.5", QRELS, str(run_file)], capsys)
    at = "" if block_ends == b"\r\n" else ":4:line"
    crlf = [line for line in warned if "[R24]" in line]
    assert crlf == [
        f"trecbench: warning: {run_file}{at}: warning[R24]: CRLF line ends {said} (read as LF; "
        "scores unaffected; validate --fix normalises them)"
    ]
