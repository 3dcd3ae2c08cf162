"""A FIFO (or pipe) ``--ontology`` is read once per call, however many times the call
loads the ontology: each run of ``score``, both judgments of ``agree``, each worker of
``-j 2``. The cache was keyed by the file's modification time, which a FIFO's writer
changes: the second load missed it and opened the FIFO again, waiting for good for a
writer (``score --ontology p qrels a.run b.run`` hung). A regular file stays cached for
the process's life and is read again once it changes."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from test_ontology import OBO

from trecbench import agree, evaluate, load_ontology, outputs

needs_fifos = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
WAIT = 30  # seconds: generous on a loaded machine; a second open waits for good
QRELS = "q1 0 HP:0000004 1\nq2 0 HP:0000006 1\n"
RUNS = {
    "a.run": "q1 Q0 HP:0000003 1 2 a\nq2 Q0 HP:0000006 1 2 a\n",
    "b.run": "q1 Q0 HP:0000005 1 2 b\nq2 Q0 HP:0000002 1 2 b\n",
}


@pytest.fixture
def files(tmp_path) -> Path:
    (tmp_path / "h.qrels").write_text(QRELS)
    for name, text in RUNS.items():
        (tmp_path / name).write_text(text)
    (tmp_path / "hp.obo").write_text(OBO)
    os.mkfifo(tmp_path / "p")
    return tmp_path


def _fed_once(fifo: Path, data: str) -> threading.Thread:
    """A writer of ``data`` into ``fifo``, once (a daemon: it never holds the tests)."""
    writer = threading.Thread(target=fifo.write_text, args=(data,), daemon=True)
    writer.start()
    return writer


def _within_one_feed(call: Callable, fifo: Path, data: str):
    """``call()`` with ``fifo`` fed ``data`` once; a call still running after :data:`WAIT`
    (waiting in a second open of the FIFO) fails the test, fed again so that it ends."""
    outcome: dict = {}
    caller = threading.Thread(target=lambda: outcome.update(value=call()), daemon=True)
    _fed_once(fifo, data)
    caller.start()
    caller.join(WAIT)
    if caller.is_alive():
        _fed_once(fifo, data)
        caller.join(WAIT)
        pytest.fail("the FIFO was opened a second time in one call")
    return outcome["value"]


def _means(evaluation) -> list[float]:
    return [run.summary[evaluation.columns[0].label] for run in evaluation.runs]


@needs_fifos
@pytest.mark.parametrize("jobs", [1, 2])
def test_a_fifo_ontology_scores_every_run_as_its_file(files, jobs):
    fifo, runs = files / "p", [str(files / name) for name in RUNS]
    filed = evaluate(
        files / "h.qrels", runs, ["MaxOntSim@1"], options={"ontology": files / "hp.obo"}
    )

    def piped():
        options = {"ontology": str(fifo)}
        return evaluate(files / "h.qrels", runs, ["MaxOntSim@1"], options=options, jobs=jobs)

    assert _means(_within_one_feed(piped, fifo, OBO)) == _means(filed)


@needs_fifos
def test_agree_reads_a_fifo_ontology_once_for_both_judgments(files):
    fifo, runs = files / "p", [str(files / name) for name in RUNS]
    qrels = str(files / "h.qrels")

    def agreement(ontology):
        options = {"ontology": str(ontology)}
        return agree(qrels, runs, ["MaxOntSim@1"], qrels_b=qrels, options=options)

    piped = _within_one_feed(lambda: agreement(fifo), fifo, OBO)
    assert piped.means == agreement(files / "hp.obo").means


@needs_fifos
def test_each_call_reads_the_fifo_it_is_given(files):
    """Kept for the call, not the process: a second call reads what is written then."""
    fifo = files / "p"

    def call():
        with outputs.input_scope():
            return load_ontology(fifo)

    first = _within_one_feed(call, fifo, OBO)
    later = OBO.replace("2099-01-31", "2099-03-31")
    assert _within_one_feed(call, fifo, later).release == "2099-03-31"
    assert first.release == "2099-01-31"


def test_a_regular_file_is_cached_until_it_changes(files):
    obo = files / "hp.obo"
    assert load_ontology(obo) is load_ontology(obo)
    obo.write_text(OBO.replace("2099-01-31", "2099-12-31"))
    assert load_ontology(obo).release == "2099-12-31"


def _score(folder: Path, ontology: str) -> subprocess.CompletedProcess:
    args = ["score", "-m", "MaxOntSim@1", "--ontology", ontology, "h.qrels", *RUNS]
    try:
        return subprocess.run(
            [sys.executable, "-m", "trecbench", *args],
            cwd=folder,
            capture_output=True,
            text=True,
            timeout=WAIT,
            check=False,
        )
    except subprocess.TimeoutExpired:  # the child is killed
        pytest.fail(f"score opened {ontology} a second time")


@needs_fifos
def test_score_with_a_fifo_ontology_and_two_runs_ends(files):
    """The reviewer's command line, in a process of its own: it hung (exit 124)."""
    writer = _fed_once(files / "p", OBO)
    piped = _score(files, "p")
    writer.join(WAIT)
    assert piped.returncode == 0, piped.stderr
    assert piped.stdout == _score(files, "hp.obo").stdout
    assert piped.stdout.count("\tall\t") == 2


@pytest.mark.parametrize("jobs", [1, 2])
def test_what_the_ontology_leaves_out_is_carried_by_the_evaluation(files, jobs):
    # said by the command, yet missing from the library's Evaluation (and lost with -j 2,
    # whose workers loaded the ontology): it is read once, before the runs, in the call
    runs = [str(files / name) for name in RUNS]
    options = {"ontology": files / "hp.obo"}
    scored = evaluate(files / "h.qrels", runs, ["MaxOntSim@1"], options=options, jobs=jobs)
    (warning,) = scored.input_warnings
    assert warning.startswith(f"{files / 'hp.obo'}: 1 is_a edge to an id the file does not")


@needs_fifos
def test_the_ontology_record_of_a_result_is_taken_in_its_call(files):
    # asked for after evaluate() returned (a report of the result), the record loaded a
    # FIFO --ontology again, outside the call that read it, and waited for good
    fifo, runs = files / "p", [str(files / name) for name in RUNS]

    def scored_then_recorded():
        result = evaluate(files / "h.qrels", runs, ["MaxOntSim@1"], options={"ontology": fifo})
        return result.ontology_record

    record = _within_one_feed(scored_then_recorded, fifo, OBO)
    assert record["release"] == "2099-01-31" and record["source"] == str(fifo)


def test_the_ontology_record_is_of_the_file_scored_not_as_changed_since(files):
    obo, runs = files / "hp.obo", [str(files / name) for name in RUNS]
    result = evaluate(files / "h.qrels", runs, ["MaxOntSim@1"], options={"ontology": obo})
    obo.write_text(OBO.replace("2099-01-31", "2099-12-31"))
    assert result.ontology_record["release"] == "2099-01-31"
