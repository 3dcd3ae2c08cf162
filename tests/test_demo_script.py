"""make demo (scripts/demo.sh) teaches: it runs end to end offline on the bundled data in a
copy of the repository, fits a screen or two, says each warning once and ends with the
report pages to open and three commands to try, each of which works."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys

import pytest
from conftest import ROOT

pytest.importorskip("pyhpo")  # the demo scores MaxOntSim (hpo extra)
pytest.importorskip("matplotlib")  # and draws the plots (plots extra)


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    copy = tmp_path_factory.mktemp("demo") / "repo"
    for name in ("scripts", "data", "qrels", "runs"):
        shutil.copytree(ROOT / name, copy / name)
    env = {**os.environ, "TRECBENCH": f"{sys.executable} -m trecbench", "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        ["bash", str(copy / "scripts" / "demo.sh")],
        cwd=copy,
        env=env,
        capture_output=True,
        text=True,
    )
    return copy, done


def test_the_demo_runs_and_fits_a_screen_or_two(demo):
    copy, done = demo
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) <= 80
    warnings = [line for line in lines if "warning:" in line]
    assert len(warnings) == len(set(warnings))
    assert (copy / "out" / "compare" / "report.html").is_file()
    assert (copy / "out" / "hpo-rtask" / "report.html").is_file()
    # the converted files it regenerates are the committed ones
    for name in ("qrels/hpo-demo.qrels", "runs/tfidf-char.run", "qrels/hpo-demo.sidecar.json"):
        assert (copy / name).read_bytes() == (ROOT / name).read_bytes(), name


def test_the_three_next_commands_work(demo):
    copy, done = demo
    lines = done.stdout.splitlines()
    tried = lines[lines.index("Next, try:") + 1 :]
    assert len(tried) == 3
    prefix = shlex.split(f"{sys.executable} -m trecbench")
    for line in tried:
        words = shlex.split(line)
        assert words[: len(prefix)] == prefix, line
        run = subprocess.run(
            words, cwd=copy, capture_output=True, env={**os.environ, "PYTHONPATH": str(ROOT)}
        )
        assert run.returncode == 0, (line, run.stderr)
