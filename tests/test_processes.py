"""trecbench.processes: a worker process that dies (killed, e.g. by the system for want of
memory) is one line naming the cause and the way around it, not an internal error."""

from __future__ import annotations

import os

import pytest
from conftest import ROOT

from trecbench import processes
from trecbench.cli import run
from trecbench.errors import ExitCode, WorkerError

QRELS = str(ROOT / "qrels" / "hpo-demo.qrels")
RUNS = [str(ROOT / "runs" / "tfidf-char.run"), str(ROOT / "runs" / "tfidf-word.run")]


def _dies_on_two(item: int) -> int:
    if item == 2:
        os._exit(9)  # as a process the kernel's OOM killer ends: no exception, no cleanup
    return item


def _dies(item: int) -> None:
    os._exit(9)


def test_a_worker_that_dies_is_a_worker_error():
    with pytest.raises(WorkerError, match=r"a worker process died \(out of memory\?\)"):
        list(processes.ordered_map(_dies_on_two, [1, 2, 3], 2))
    assert list(processes.ordered_map(_dies_on_two, [1, 3], 2)) == [1, 3]


def test_the_cli_says_so_in_one_line(capsys, monkeypatch):
    # BrokenProcessPool was "internal error (...). Please report it."
    from trecbench import evaluation

    monkeypatch.setattr(evaluation, "_score_in_worker", _dies)
    code = run(["score", "--jobs", "2", QRELS, *RUNS])
    out, err = capsys.readouterr()
    assert (code, out) == (ExitCode.INTERNAL, "")
    assert err == (
        "trecbench: a worker process died (out of memory?): rerun with --jobs 1 or a smaller "
        "--memory\n"
    )
