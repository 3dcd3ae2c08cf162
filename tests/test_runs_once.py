"""One run file, given twice or spelt two ways (a link, an absolute and a relative path,
``-`` and ``/dev/stdin``), is refused by every command that compares or counts runs: it
would be compared with itself (agree and power showed two identical rows, similarity an
RBO of 1, pool the run twice)."""

from __future__ import annotations

import os
import pathlib

import pytest
from conftest import ROOT

from trecbench.cli import run
from trecbench.naming import repeated_file

QRELS = str(ROOT / "qrels" / "hpo-demo.qrels")
WORD, CHAR = (str(ROOT / "runs" / f"{name}.run") for name in ("tfidf-word", "tfidf-char"))


@pytest.mark.parametrize(
    "command",
    [
        ["agree", QRELS, WORD, "-m", "P@5"],
        ["power", QRELS, WORD, "-m", "P@5"],
        ["similarity", WORD],
        ["pool", WORD, "-o", "{out}"],
        ["compare", QRELS, WORD, "-m", "P@5"],
        ["score", QRELS, WORD, "-m", "P@5"],
    ],
)
def test_one_file_spelt_two_ways_is_refused(command, tmp_path, capsys):
    link = tmp_path / "link.run"
    os.symlink(CHAR, link)
    args = [part.replace("{out}", str(tmp_path / "pool.txt")) for part in command]
    assert run([*args, CHAR, str(link)]) == 1
    assert capsys.readouterr().err == (
        f"trecbench: {link}: the same run as {CHAR}: give it once, spelt one way\n"
    )
    assert not (tmp_path / "pool.txt").exists()


def test_standard_input_is_one_file_by_either_name():
    try:
        os.fstat(0)
    except OSError:
        pytest.skip("no standard input to name")
    assert repeated_file(["-", "/dev/stdin"]) == ("/dev/stdin", "-")
    assert repeated_file([WORD, CHAR, f"{os.path.dirname(WORD)}/../runs/tfidf-word.run"]) == (
        f"{os.path.dirname(WORD)}/../runs/tfidf-word.run",
        WORD,
    )
    assert repeated_file([WORD, CHAR]) is None


def test_a_path_that_names_no_file_is_told_by_its_spelling():
    # a --dask glob given twice was scored twice (reviewer 331): no file to examine
    assert repeated_file(["shards/*.run", "./shards/*.run"]) == ("./shards/*.run", "shards/*.run")
    assert repeated_file(["a/*.run", "b/*.run"]) is None


def test_score_refuses_a_dask_glob_given_twice(tmp_path, capsys):
    (tmp_path / "a.run").write_bytes(pathlib.Path(WORD).read_bytes())
    pattern = f"{tmp_path}/*.run"
    argv = ["score", "--dask", "local:1", QRELS, pattern, f"{tmp_path}/./*.run", "-m", "P@5"]
    assert run(argv) == 1  # before any cluster starts
    said = f"trecbench: {tmp_path}/./*.run: the same run as {pattern}: give it once, spelt one way"
    assert capsys.readouterr().err == said + "\n"
