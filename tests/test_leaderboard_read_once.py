"""leaderboard reads each input once, whatever the collections share: a qrels file two
collections of other runs name, a run file two collections of other qrels name. Before,
an evaluation was kept by the whole (qrels, runs...) tuple, and a file shared by two
tuples was read again: a FIFO waited for good for a writer, a regular file was read
twice. A FIFO named in two roles (qrels and a run) is refused, as score refuses it."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest
from conftest import ROOT, fifo_deadline
from test_read_once import opened  # noqa: F401 - a fixture

from trecbench.errors import UsageError
from trecbench.runstudy.leaderboard import leaderboard

RTASK = ROOT / "data" / "hpo-rtask"
SIDECAR = ROOT / "qrels" / "hpo-demo.sidecar.json"
WAIT = 30  # seconds: generous on a loaded machine; a second open waits for good
# the two languages' collections score other runs against one qrels file
OTHER_RUNS = """measures = ["nDCG@10", "P@5"]
systems = ["a", "b"]
[collections.de]
qrels = "{qrels}"
runs = {{a = "lexical.run", b = "vector.run"}}
strata = "side.json"
where = {{ language = "de" }}
[collections.en]
qrels = "{qrels}"
runs = {{a = "vector.run", b = "reranked.run"}}
strata = "side.json"
where = {{ language = "en" }}
"""
# the two languages' qrels, each its own file, score one run file
OTHER_QRELS = """measures = ["nDCG@10", "P@5"]
systems = ["a", "b"]
[collections.de]
qrels = "de.qrels"
runs = {{a = "{run}", b = "vector.run"}}
[collections.en]
qrels = "en.qrels"
runs = {{a = "{run}", b = "reranked.run"}}
"""


@pytest.fixture
def folder(tmp_path) -> Path:
    """The R-task demo's qrels (whole and per language), runs and strata; a call still
    running after :data:`WAIT` seconds is interrupted (SIGALRM ends a wait in ``open()``;
    a thread waiting on a FIFO is given its end), so that it fails the test, not hangs."""
    qrels = (RTASK / "hpo-rtask.qrels").read_text()
    (tmp_path / "hpo-rtask.qrels").write_text(qrels)
    for language in ("de", "en"):
        lines = [line for line in qrels.splitlines(True) if line.startswith(f"{language}-")]
        (tmp_path / f"{language}.qrels").write_text("".join(lines))
    for system in ("lexical", "vector", "reranked"):
        (tmp_path / f"{system}.run").write_bytes((RTASK / f"{system}.run").read_bytes())
    (tmp_path / "side.json").write_bytes(SIDECAR.read_bytes())

    with fifo_deadline(tmp_path, WAIT):
        yield tmp_path


def _board(folder: Path, text: str) -> list[dict]:
    suite = folder / "suite.toml"
    suite.write_text(text)
    return leaderboard(suite).to_json()["measures"]


def _fifo_of(folder: Path, name: str, bytes_of: str) -> threading.Thread:
    """A FIFO ``name`` fed the bytes of the file ``bytes_of`` once (a daemon writer)."""
    os.mkfifo(folder / name)
    data = (folder / bytes_of).read_bytes()
    writer = threading.Thread(target=(folder / name).write_bytes, args=(data,), daemon=True)
    writer.start()
    return writer


needs_fifos = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")


@needs_fifos
def test_a_fifo_qrels_of_collections_of_other_runs_is_read_once(folder):
    filed = _board(folder, OTHER_RUNS.format(qrels="hpo-rtask.qrels"))
    writer = _fifo_of(folder, "q", "hpo-rtask.qrels")
    assert _board(folder, OTHER_RUNS.format(qrels="q")) == filed
    writer.join()


@needs_fifos
def test_a_fifo_run_of_collections_of_other_qrels_is_read_once(folder):
    filed = _board(folder, OTHER_QRELS.format(run="lexical.run"))
    writer = _fifo_of(folder, "lex", "lexical.run")
    assert _board(folder, OTHER_QRELS.format(run="lex")) == filed
    writer.join()


def test_each_regular_file_is_read_once(folder, opened):  # noqa: F811 - a fixture
    """The shared qrels and the shared run: each file's content read once (twice before)."""
    _, sources = opened
    _board(folder, OTHER_RUNS.format(qrels="hpo-rtask.qrels"))
    inputs = ["hpo-rtask.qrels", "lexical.run", "vector.run", "reranked.run"]
    assert {name: sources[name] for name in inputs} == dict.fromkeys(inputs, 1)
    sources.clear()
    _board(folder, OTHER_QRELS.format(run="lexical.run"))
    inputs = ["de.qrels", "en.qrels", "lexical.run", "vector.run", "reranked.run"]
    assert {name: sources[name] for name in inputs} == dict.fromkeys(inputs, 1)


@needs_fifos
def test_a_fifo_as_qrels_and_a_run_is_refused(folder):
    os.mkfifo(folder / "p")
    text = OTHER_QRELS.replace("de.qrels", "p").format(run="p")
    with pytest.raises(UsageError, match="/p: a pipe, given twice, can be read once"):
        _board(folder, text)
