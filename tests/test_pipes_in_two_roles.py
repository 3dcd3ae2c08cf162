"""One pipe or FIFO (or standard input) given in two roles is read once: pool, agree,
fuse and every convert subcommand refuse it before anything is read, as score, validate
and compare do (``p: a pipe, given twice, can be read once: give it once``, exit 1), and
diff reads it once and finds it the same as itself, as GNU diff does (``diff - -``) and
as a report file given twice is. Before, each opened it a second time: waiting for good
for a writer (a FIFO), or reading it as an empty file (standard input: ``diff - -`` said
``-: empty file``)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from conftest import fifo_deadline

from trecbench import agree, optimize_fusion, pool
from trecbench.cli import run
from trecbench.errors import UsageError

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
WAIT = 30  # seconds: generous on a loaded machine; a second open waits for good
QRELS = "q1 0 d1 1\nq2 0 d2 1\n"
RUNS = {
    "a.run": "q1 Q0 d1 1 2 a\nq1 Q0 d2 2 1 a\nq2 Q0 d2 1 1 a\n",
    "b.run": "q1 Q0 d2 1 2 b\nq1 Q0 d1 2 1 b\nq2 Q0 d1 1 1 b\n",
    "c.run": "q1 Q0 d1 1 2 c\nq2 Q0 d1 1 1 c\n",
}


@pytest.fixture
def folder(tmp_path, monkeypatch) -> Path:
    """The qrels, the runs and a FIFO ``p`` in the working folder; a call still running
    after :data:`WAIT` seconds is interrupted (SIGALRM ends a wait in ``open()``), so that
    a command opening ``p`` again fails the test instead of hanging it."""
    (tmp_path / "q.qrels").write_text(QRELS)
    for name, text in RUNS.items():
        (tmp_path / name).write_text(text)
    os.mkfifo(tmp_path / "p")
    monkeypatch.chdir(tmp_path)
    with fifo_deadline(tmp_path, WAIT):
        yield tmp_path


REFUSED = "trecbench: p: a pipe, given twice, can be read once: give it once\n"


@pytest.mark.parametrize(
    "args",
    [
        ["pool", "b.run", "p", "--qrels", "p", "-o", "pool.txt"],
        ["agree", "p", "a.run", "b.run", "c.run", "--qrels-b", "p", "-m", "P@5"],
        ["fuse", "b.run", "p", "--optimize", "P@5", "--qrels", "p", "-o", "f.run"],
        ["fuse", "a.run", "p", "--ir-metadata", "p", "-o", "f.run"],
        # validate said it in click's words, the command named and its --help after it
        ["validate", "p", "--qrels", "p"],
    ],
)
def test_a_fifo_in_two_roles_is_refused_before_it_is_read(args, folder, capsys):
    assert run(args) == 1
    assert capsys.readouterr().err == REFUSED
    assert not (folder / "pool.txt").exists() and not (folder / "f.run").exists()


@pytest.mark.parametrize(
    "args",
    [
        # every convert subcommand, each of its inputs and convert's --ir-metadata: the
        # second open() waited for good for a writer
        ["dict", "p", "--qrels-json", "p"],
        ["dict", "p", "--beir-qrels", "p"],
        ["hpo", "p", "--results", "p"],
        ["hpo", "a.run", "--results", "p", "--results", "p"],
        ["hpo", "p", "--ontology", "p"],
        ["--ir-metadata", "p", "hpo", "a.run", "--results", "p"],
        ["--ir-metadata", "p", "code-chunk", "p"],
        ["--ir-metadata", "p", "memorybench", "p"],
        ["--ir-metadata", "p", "lists", "p"],
        ["--ir-metadata", "p", "dict", "p"],
        ["--ir-metadata", "p", "msmarco", "p"],
        ["--ir-metadata", "p", "beir-qrels", "p"],
    ],
)
def test_convert_refuses_a_fifo_in_two_roles_before_it_is_read(args, folder, capsys):
    assert run(["convert", *args, "-o", "out"]) == 1
    assert capsys.readouterr().err == REFUSED
    assert not (folder / "out").exists()


def test_the_library_refuses_it_too(folder):
    from trecbench.convert.dicts import convert_dict
    from trecbench.convert.hpo import convert_hpo

    for call in (
        lambda: pool(["b.run", "p"], qrels="p"),
        lambda: agree("p", ["a.run", "b.run"], ["P@5"], qrels_b="p"),
        lambda: optimize_fusion(["b.run", "p"], "p", "P@5"),
        lambda: convert_dict("p", qrels_json="p"),
        lambda: convert_hpo("p", ["p"]),
    ):
        with pytest.raises(UsageError, match="a pipe, given twice, can be read once"):
            call()


def test_diff_reads_a_fifo_given_twice_once(folder, capsys):
    assert run(["score", "-m", "P@5", "--report", "r.json", "q.qrels", "a.run"]) == 0
    data = Path("r.json").read_bytes()
    writer = threading.Thread(target=(folder / "p").write_bytes, args=(data,), daemon=True)
    writer.start()
    capsys.readouterr()
    assert run(["diff", "p", "p"]) == 0
    writer.join()
    assert capsys.readouterr().out == "the evaluations are the same\n"


def _with_stdin(args: list[str], stdin: Path, folder: Path) -> subprocess.CompletedProcess:
    # this checkout's trecbench, not one installed elsewhere: the working folder is not it
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    with stdin.open("rb") as given:
        return subprocess.run(
            [sys.executable, "-m", "trecbench", *args],
            stdin=given,
            cwd=folder,
            env=env,
            capture_output=True,
            text=True,
            timeout=WAIT,
            check=False,
        )


def test_standard_input_twice_is_read_once_or_refused(folder):
    assert run(["score", "-m", "P@5", "--report", "r.json", "q.qrels", "a.run"]) == 0
    same = _with_stdin(["diff", "-", "-"], folder / "r.json", folder)  # was: -: empty file
    assert (same.returncode, same.stdout) == (0, "the evaluations are the same\n")
    args = ["pool", "b.run", "-", "--qrels", "/dev/stdin", "-o", "pool.txt"]
    refused = _with_stdin(args, folder / "q.qrels", folder)  # was: a false "empty file"
    assert refused.returncode == 1
    assert refused.stderr == (
        "trecbench: standard input ('-', /dev/stdin) can be read once: give it once\n"
    )


@pytest.mark.parametrize(
    "args",
    [["fuse", "a.run", "-", "-o", "out.run"], ["fuse", "-", "./a.run", "-o", "out.run"],
     ["score", "q.qrels", "-", "a.run"], ["similarity", "a.run", "-"]],
)  # fmt: skip
def test_a_file_given_by_its_name_and_as_standard_input_is_named(args, folder):
    # was: "standard input ('-', /dev/stdin) can be read once", where "-" was given once
    refused = _with_stdin(args, folder / "a.run", folder)
    assert (refused.returncode, refused.stdout) == (1, "")
    name = "./a.run" if "./a.run" in args else "a.run"
    assert refused.stderr == (
        f"trecbench: {name}: given twice, by its name and as standard input (redirected from "
        "it): give it once\n"
    )
    assert not (folder / "out.run").exists()


def test_a_file_named_twice_is_read_twice_with_standard_input_redirected_from_it(folder):
    # refused as standard input given twice, where no - was given (reviewer 708)
    (folder / "d.json").write_text('{"q1": {"a": 1, "b": 0}}')
    args = ["convert", "dict", "d.json", "--qrels-json", "d.json", "-o", "out"]
    done = _with_stdin(args, folder / "d.json", folder)
    assert done.returncode == 0, done.stderr
    assert (folder / "out" / "d.run").exists()


@pytest.mark.parametrize(
    "args",
    [
        ["dict", "-", "--qrels-json", "/dev/stdin"],  # was: /dev/stdin: empty file
        ["hpo", "-", "--results", "-"],  # was: -: empty file
        ["--ir-metadata", "-", "msmarco", "-"],  # was: -:1: expected 3 fields
    ],
)
def test_convert_refuses_standard_input_twice(args, folder):
    refused = _with_stdin(["convert", *args, "-o", "out"], folder / "q.qrels", folder)
    assert (refused.returncode, refused.stdout) == (1, "")
    assert refused.stderr == (
        "trecbench: standard input ('-', /dev/stdin) can be read once: give it once\n"
    )
    assert not (folder / "out").exists()
