"""A standard stream the command line closed (``>&-``, ``2>&-``), and standard output
redirected into a file the call writes (docs/cli-conventions.md, Complete writes).

Python makes a closed stream None, to which click writes nothing without a word: a closed
stdout lost every result with exit 0 (`fuse -o -` even said it wrote them), a closed
stderr failed every call with exit 70 (internal error); and a stdout redirected into one
of the call's own output files lost what was printed, exit 0. The descriptors are closed
for real here, in a shell (``subprocess.DEVNULL`` is an open /dev/null).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT

from trecbench.errors import ExitCode

QRELS = str(ROOT / "qrels" / "hpo-demo.qrels")
RUN, RUN2 = str(ROOT / "runs" / "tfidf-char.run"), str(ROOT / "runs" / "tfidf-word.run")
TSV = str(ROOT / "data" / "convert" / "msmarco-run.tsv")
UNWRITABLE = "trecbench: standard output: cannot write (Bad file descriptor)\n"


def _closed(stream: str, args, redirect: str | None = None) -> subprocess.CompletedProcess:
    """``trecbench ARGS`` with descriptor 1 (``stream`` "stdout") or 2 ("stderr") closed
    by the shell (or redirected by ``redirect``); the other one captured."""
    redirect = redirect or {"stdout": "1>&-", "stderr": "2>&-"}[stream]
    command = ["sh", "-c", f'exec "$@" {redirect}', "sh", sys.executable, "-m", "trecbench"]
    return subprocess.run(
        [*command, *map(str, args)], capture_output=True, text=True, timeout=120, check=False
    )


# each command as it prints: the small and general paths of score, a run to stdout, a
# report, tables beside a file, a conversion's run
PRINTING = {
    "score-small": ["score", "-m", "P.5", QRELS, RUN],
    "score-general": ["score", "-m", "P.5", QRELS, RUN, "--report", "{tmp}/r.json"],
    "fuse": ["fuse", RUN, RUN2, "-o", "-"],
    "validate": ["validate", RUN],
    "pool": ["pool", RUN, RUN2, "--depth", "5", "-o", "{tmp}/pool.txt"],
    "compare": ["compare", QRELS, RUN, RUN2, "-m", "P@5", "-o", "{tmp}/c"],
    "convert": ["convert", "msmarco", TSV, "-o", "-"],
}


@pytest.mark.parametrize("name", PRINTING)
def test_a_closed_stdout_refuses_a_printing_command_and_writes_nothing(name, tmp_path):
    args = [arg.format(tmp=tmp_path) for arg in PRINTING[name]]
    done = _closed("stdout", args)
    assert (done.returncode, done.stderr) == (ExitCode.INPUT, UNWRITABLE)
    assert list(tmp_path.iterdir()) == []  # no file beside the lost output


@pytest.mark.parametrize(
    "args",
    [["score", QRELS, "{bad}", "--report", "{tmp}/r.json"], ["fuse", "{bad}", RUN, "-o", "-"]],
    ids=["score", "fuse"],
)
def test_a_closed_stdout_is_refused_before_any_input_is_read(args, tmp_path):
    bad = tmp_path / "bad.run"
    bad.write_text("q1 Q0 d1 one 1.0 tag\n")  # read, it would fail at its line
    done = _closed("stdout", [arg.format(tmp=tmp_path, bad=bad) for arg in args])
    assert (done.returncode, done.stderr) == (ExitCode.INPUT, UNWRITABLE)


def test_a_closed_stdout_leaves_a_command_that_prints_nothing_alone(tmp_path):
    done = _closed("stdout", ["fuse", RUN, RUN2, "-o", tmp_path / "f.run"])
    assert done.returncode == 0
    assert done.stderr == f"wrote {tmp_path / 'f.run'}: 4950 documents, 56 topics\n"
    assert (tmp_path / "f.run").read_text().count("\n") == 4950
    done = _closed("stdout", ["compare", "--quiet", QRELS, RUN, RUN2, "-m", "P@5"])
    assert (done.returncode, done.stderr) == (0, "")


@pytest.mark.parametrize("redirect", ["2>&-", "2>/dev/full"])
@pytest.mark.parametrize("name", PRINTING)
def test_a_closed_stderr_lets_the_command_run(name, redirect, tmp_path):
    """As under ``2>/dev/null``: the output whole, the exit code the command's own. A full
    stderr too: its ``wrote PATH``, once the files were in place, ended the call with exit
    2 (``standard output: cannot write``), the files replaced all the same."""
    args = [arg.format(tmp=tmp_path) for arg in PRINTING[name]]
    done = _closed("stderr", args, redirect)
    assert done.returncode == 0
    printed = {  # what each prints (under 2>/dev/null alike)
        "score-small": "P_5                   \tall\t0.0929\n",  # as trec_eval 9.0.8
        "score-general": "P_5                   \tall\t0.0929\n",
        "fuse": "de-01\tQ0\tHP:0032155\t1\t0.01639344262295082\trrf\n",  # 1 / (60 + 1)
        "validate": "OK: 1 file(s), 2800 lines: 0 error(s), 0 warning(s), 1 info\n",
        "pool": "tfidf-char  280     190\n",  # 56 topics x depth 5
        "compare": "Runs: tfidf-char (baseline), tfidf-word\n",
        "convert": "1048585\tQ0\t7187158\t1\t3\tmsmarco-run\n",
    }
    assert printed[name] in done.stdout
    written = {"score-general": "r.json", "pool": "pool.txt", "compare": "c/BenchmarkReport.json"}
    if name in written:
        assert (tmp_path / written[name]).is_file()


def test_a_full_stderr_neither_stops_a_warned_call_nor_fails_a_written_one(tmp_path):
    """A warning said into a full stderr ended the call before its work (exit 2, nothing
    printed); ``fuse -o`` replaced its file, then exited 2 on its ``wrote`` line."""
    crlf = tmp_path / "crlf.run"
    crlf.write_bytes(b"q1 Q0 d1 1 2.0 run\r\nq1 Q0 d2 2 1.0 run\r\n")
    (tmp_path / "q.qrels").write_text("q1 0 d1 1\n")
    done = _closed("stderr", ["score", "-m", "P.1", tmp_path / "q.qrels", crlf], "2>/dev/full")
    assert (done.returncode, done.stdout) == (0, "P_1                   \tall\t1.0000\n")
    fused = tmp_path / "f.run"
    fused.write_text("old\n")
    done = _closed("stderr", ["fuse", RUN, RUN2, "-o", fused], "2>/dev/full")
    assert done.returncode == 0
    assert fused.read_text().startswith("de-01\tQ0\tHP:0032155\t1\t")


def test_a_closed_stderr_keeps_an_errors_exit_code():
    done = _closed("stderr", ["score", "-m", "nope", QRELS, RUN])
    assert (done.returncode, done.stdout) == (ExitCode.USAGE, "")


def test_closed_descriptors_are_held_on_dev_null_for_the_call():
    """No file the command opens takes the number of a closed stream (where a library's or
    a worker's write to it would land in that file); after the call it is closed again."""
    script = (
        "import os, sys\n"
        "from trecbench.cli.stdout import closed_streams_held\n"
        "os.close(2); sys.stderr = None\n"
        "with closed_streams_held():\n"
        "    opened = os.open(sys.executable, os.O_RDONLY)\n"
        "    same = os.path.samestat(os.fstat(2), os.stat(os.devnull))\n"
        "    print(opened != 2, same, sys.stderr.write('dropped'))\n"
        "try:\n"
        "    os.fstat(2)\n"
        "except OSError:\n"
        "    print('closed again', sys.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert done.stdout == "True True 7\nclosed again None\n"


# standard output appended (>>) to a file the call writes: each would replace the other
INTO_AN_OUTPUT = {
    "score": (["score", QRELS, RUN, "--report", "{tmp}/r.json"], "r.json"),
    "pool": (["pool", RUN, RUN2, "--depth", "5", "-o", "{tmp}/p.txt"], "p.txt"),
    "validate": (["validate", RUN, "--fix", "{tmp}/f.run"], "f.run"),
    "fuse": (["fuse", RUN, RUN2, "-o", "{tmp}/f.run"], "f.run"),
    "compare": (
        ["compare", QRELS, RUN, RUN2, "-m", "P@5", "-o", "{tmp}"],
        "BenchmarkComparison.md",
    ),
    "convert": (["convert", "msmarco", TSV, "-o", "{tmp}"], "msmarco-run.run"),
}


@pytest.mark.parametrize("name", INTO_AN_OUTPUT)
def test_standard_output_into_an_output_file_is_refused(name, tmp_path, monkeypatch, capsys):
    from trecbench.cli import run

    args, target = INTO_AN_OUTPUT[name]
    path = tmp_path / target
    path.write_text("OLD\n")
    with open(path, "a", encoding="utf-8") as stdout:
        monkeypatch.setattr(sys, "stdout", stdout)
        code = run([arg.format(tmp=tmp_path) for arg in args])
    monkeypatch.undo()
    message = f"{path}: written twice by one command, as a file and as standard output"
    assert (code, capsys.readouterr().err) == (ExitCode.INPUT, f"trecbench: {message}\n")
    assert path.read_text() == "OLD\n"  # neither printed to nor replaced
    assert sorted(os.listdir(tmp_path)) == [target]


def test_standard_output_into_a_file_the_call_does_not_write_takes_it(tmp_path, monkeypatch):
    from trecbench.cli import run

    printed = tmp_path / "printed.txt"
    with open(printed, "a", encoding="utf-8") as stdout:
        monkeypatch.setattr(sys, "stdout", stdout)
        assert run(["pool", RUN, RUN2, "--depth", "5", "-o", str(tmp_path / "p.txt")]) == 0
    monkeypatch.undo()
    assert Path(printed).stat().st_size > 0 and (tmp_path / "p.txt").stat().st_size > 0


@pytest.mark.parametrize("name", PRINTING)
def test_a_text_only_stdout_takes_what_the_command_prints(name, tmp_path):
    """``cli.run`` under ``contextlib.redirect_stdout(io.StringIO())`` (a notebook's output
    has no binary buffer either): what score, fuse, compare and convert print as bytes went
    to a stream that takes only text, an internal error (exit 70). The text is what the
    command prints to a real stdout, decoded."""
    import contextlib
    import io

    from trecbench.cli import run

    (tmp_path / "in").mkdir()
    (tmp_path / "out").mkdir()
    captured = io.StringIO()
    with contextlib.redirect_stdout(captured):
        code = run([arg.format(tmp=tmp_path / "in") for arg in PRINTING[name]])
    args = [arg.format(tmp=tmp_path / "out") for arg in PRINTING[name]]
    printed = subprocess.run(
        [sys.executable, "-m", "trecbench", *args], capture_output=True, timeout=120, check=True
    ).stdout
    assert (code, captured.getvalue()) == (ExitCode.OK, printed.decode("utf-8"))
    assert printed  # each prints something
