"""Benchmark configurations and leaderboard suites refused where the file says it: one
run file under two names, an unknown key at its own line, a NaN as written, a file that
cannot be read or a stratum that keeps nothing named by the suite's key and line."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import ROOT

from trecbench.cli import run

RTASK = ROOT / "data" / "hpo-rtask"


def _inputs(folder: Path) -> None:
    """The R-task qrels and two runs, linked into ``folder``."""
    for name in ("hpo-rtask.qrels", "lexical.run", "vector.run"):
        os.symlink(RTASK / name, folder / name)


def _refused(capsys, argv: list[str], code: int = 1) -> str:
    assert run(argv) == code
    captured = capsys.readouterr()
    assert captured.out == ""
    return captured.err


@pytest.mark.parametrize(
    ("runs", "shown"),
    [
        ('{a = "lexical.run", b = "lexical.run"}', "'lexical.run'"),
        (
            '{a = "lexical.run", b = "./sub/../lexical.run"}',
            "'lexical.run' and 'sub/../lexical.run'",
        ),
    ],
)
def test_two_systems_of_one_run_file_are_refused_as_benchmark_refuses_two_modes(
    tmp_path, capsys, monkeypatch, runs, shown
):
    # leaderboard ranked the run against itself: a tie at every rank, every test n/a, exit 0
    _inputs(tmp_path)
    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path)
    Path("l2.toml").write_text(
        f'systems = ["a", "b"]\n[collections.x]\nqrels = "hpo-rtask.qrels"\nruns = {runs}\n'
    )
    assert _refused(capsys, ["leaderboard", "l2.toml"]) == (
        f"trecbench: l2.toml:4: collections.x.runs: systems 'a' and 'b' are one run file "
        f"({shown}): the run would be compared with itself; give it once\n"
    )
