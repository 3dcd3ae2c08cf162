"""convert, compare and benchmark writing into a folder another call is writing into: each
checks the folder for an earlier call's files (refuse_strays) only once it holds the
folder's lock, so the second waits for the first and is then refused, as it is when run
after it, instead of both passing the check and leaving a folder of two calls' files."""

from __future__ import annotations

import threading

import pytest
from conftest import ROOT

import trecbench
from trecbench import publication
from trecbench.benchmarking import run_benchmark
from trecbench.convert.common import write_conversion
from trecbench.convert.msmarco import convert_msmarco
from trecbench.errors import OutputError


@pytest.fixture(scope="module")
def benchmark():
    return run_benchmark(ROOT / "data" / "hpo-rtask" / "benchmark.toml")


def _comparison():
    rows = [
        {"run": run, "qid": f"q{i}", "measure": "P@5", "value": (i + len(run)) % 5 / 5}
        for run in ("aa", "bbb")
        for i in range(6)
    ]
    return trecbench.compare_scores(rows, samples=50)


def _second_call_meanwhile(monkeypatch, folder, write, first_files):
    """``write(folder)`` started while another call (the lock held here) writes
    ``first_files`` into ``folder``; what the second call raised (None: nothing)."""
    waiting = threading.Event()
    real_flock = publication._flock

    def flock(fd, locked, timeout):
        if threading.current_thread() is not threading.main_thread():
            waiting.set()  # the second call is about to wait for a folder
        return real_flock(fd, locked, timeout)

    monkeypatch.setattr(publication, "_flock", flock)
    held = publication.FolderLock(folder)  # the first call, writing into the folder
    held.acquire(False)
    outcome = []

    def second():
        try:
            write(folder)
            outcome.append(None)
        except OutputError as error:
            outcome.append(error)

    thread = threading.Thread(target=second)
    thread.start()
    try:
        assert waiting.wait(60)
        for name, data in first_files.items():  # the first call's files put in place
            (folder / name).parent.mkdir(exist_ok=True)
            (folder / name).write_text(data)
    finally:
        held.release()
        thread.join(120)
    assert not thread.is_alive()
    assert outcome
    return outcome[0]


def _files(folder):
    return sorted(str(path.relative_to(folder)) for path in folder.rglob("*") if path.is_file())


@pytest.mark.parametrize(
    ("writer", "first", "whose"),
    [
        ("compare", {"means.png": "a plot of other runs"}, "comparison's"),
        ("compare", {"ExperimentManifest.json": "{}\n"}, "comparison's"),  # a benchmark's
        ("benchmark", {"means.png": "compare's plot"}, "benchmark's"),
        ("benchmark", {"reports/other.json": "{}\n"}, "benchmark's"),  # a mode of another
    ],
    ids=["compare after compare", "compare after benchmark", "benchmark after compare",
         "benchmark after benchmark"],
)  # fmt: skip
def test_a_call_checks_for_earlier_files_once_it_holds_the_folder(
    tmp_path, monkeypatch, request, writer, first, whose
):
    if writer == "compare":
        comparison = _comparison()

        def write(folder):
            comparison.write(folder, html_depth=None)
    else:
        bench = request.getfixturevalue("benchmark")

        def write(folder):
            bench.write(folder)

    folder = tmp_path / "out"
    folder.mkdir()
    error = _second_call_meanwhile(monkeypatch, folder, write, first)
    assert error is not None, f"the second call wrote beside the first's files: {_files(folder)}"
    name = next(iter(first))
    assert f"{name} would stay beside this {whose} files" in str(error)
    assert _files(folder) == [name]  # the first call's files alone, nothing of the second's


def test_a_conversion_checks_for_earlier_files_once_it_holds_the_folder(tmp_path, monkeypatch):
    source = tmp_path / "big.tsv"
    source.write_text("q1\td1\t1\nq1\td2\t2\n")
    first = tmp_path / "first"  # the first conversion's files, as it writes them
    write_conversion(convert_msmarco(source, tag="aa"), first, inputs=[source])
    files = {name: (first / name).read_text() for name in ("aa.run", "big.sidecar.json")}
    folder = tmp_path / "conc"
    folder.mkdir()

    def write(folder):
        write_conversion(convert_msmarco(source, tag="bb"), folder, inputs=[source])

    error = _second_call_meanwhile(monkeypatch, folder, write, files)
    assert error is not None, "the second conversion replaced the sidecar"
    assert "aa.run would stay beside this conversion's files" in str(error)
    assert _files(folder) == ["aa.run", "big.sidecar.json"]
