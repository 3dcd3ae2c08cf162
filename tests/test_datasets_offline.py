"""An ir_datasets id whose qrels need a download that cannot happen (offline): one line,
exit 2, InputError in Python, none of the downloader's log lines. No test here reaches the
network: requests.get is replaced by one that fails as an offline machine's does."""

from __future__ import annotations

import pytest
from conftest import ROOT

import trecbench
from trecbench.cli import run

pytest.importorskip("ir_datasets")
requests = pytest.importorskip("requests")

DATASET = "irds:msmarco-passage/dev/small"


@pytest.fixture(autouse=True)
def offline(monkeypatch, tmp_path):
    def refuse(*args, **kwargs):
        raise requests.exceptions.ConnectionError("Failed to resolve host (no network)")

    monkeypatch.setattr(requests, "get", refuse)
    monkeypatch.setenv("IR_DATASETS_HOME", str(tmp_path))
    return tmp_path


def test_python_raises_an_input_error_naming_the_dataset_and_a_local_copy(offline, capfd):
    with pytest.raises(trecbench.InputError) as caught:
        trecbench.load_qrels(DATASET)
    message = str(caught.value)
    assert message.startswith(f"{DATASET}: ir_datasets must download this dataset's qrels")
    assert "ConnectionError: Failed to resolve host" in message
    # what to download and where ir_datasets looks for it (its path is fixed at import)
    assert "put a copy of https://" in message and "/downloads/" in message
    assert "[INFO]" not in capfd.readouterr().err


def test_the_cli_says_it_in_one_line_and_exits_2(capfd):
    code = run(["score", DATASET, str(ROOT / "runs" / "tfidf-word.run")])
    captured = capfd.readouterr()
    assert code == 2
    assert captured.out == ""
    assert captured.err.count("\n") == 1 and "[INFO]" not in captured.err
    assert captured.err.startswith(f"trecbench: {DATASET}: ir_datasets must download")


def test_a_small_download_is_named_with_the_path_where_a_copy_is_read(tmp_path):
    """vaswani's qrels come from a file too small for ir_datasets' log to name: the error
    said "put its files in HOME", naming none. Now the file and the path, and a copy put
    there is read (in a process of its own: ir_datasets fixes its home when imported)."""
    import os
    import subprocess
    import sys

    probe = """
import io, os, tarfile
import requests
def refuse(*args, **kwargs):
    raise requests.exceptions.ConnectionError("Failed to resolve host (no network)")
requests.get = refuse
import trecbench
try:
    trecbench.load_qrels("irds:vaswani")
except trecbench.InputError as error:
    message = str(error)
print(message)
url, path = message.split("put a copy of ")[1].split(" (ir_datasets looks")[0].split(" at ")
os.makedirs(os.path.dirname(path), exist_ok=True)
with tarfile.open(path, "w:gz") as tar:  # npl.tar.gz holding its qrels, rlv-ass, alone
    data = b"1\\n 7 9\\n   /\\n"
    member = tarfile.TarInfo("rlv-ass")
    member.size = len(data)
    tar.addfile(member, io.BytesIO(data))
print(trecbench.read_qrels("irds:vaswani")[["qid", "docno", "rel"]].values.tolist())
"""
    environment = {**os.environ, "IR_DATASETS_HOME": str(tmp_path), "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, env=environment
    )
    assert done.returncode == 0, done.stderr
    message, read = done.stdout.splitlines()
    assert message.startswith("irds:vaswani: ir_datasets must download this dataset's qrels")
    npl = "http://ir.dcs.gla.ac.uk/resources/test_collections/npl/npl.tar.gz"
    assert f"; put a copy of {npl} at {tmp_path}/vaswani/npl.tar.gz (" in message
    assert read == "[['1', '7', 1], ['1', '9', 1]]"


def test_without_a_download_to_name_the_dataset_s_page_is_named(monkeypatch):
    """A failure that is no download's (the dataset's own reader) names where to look."""
    import ir_datasets

    def broken(self):  # a generator, as qrels_iter is: it fails when first read
        raise OSError("disk on fire")
        yield

    qrels = ir_datasets.load("vaswani").qrels_handler()
    monkeypatch.setattr(type(qrels), "qrels_iter", broken)
    with pytest.raises(trecbench.InputError) as caught:
        trecbench.load_qrels("irds:vaswani")
    message = str(caught.value)
    assert "(OSError: disk on fire); put its files (listed at " in message
    assert "https://ir-datasets.com/vaswani.html) in " in message


def test_qrels_from_standard_input_are_read_not_looked_up_as_a_dataset(tmp_path):
    """Reviewer 351: ``score - run < qrels`` said '-: no such file, nor an ir_datasets
    dataset' (with ir_datasets installed, '-' was taken for a dataset id)."""
    import subprocess
    import sys

    (tmp_path / "qrels").write_text("q1 0 d1 1\nq1 0 d2 0\nq2 0 d3 1\n")
    (tmp_path / "run").write_text("q1 Q0 d1 1 2.0 r\nq1 Q0 d2 2 1.0 r\nq2 Q0 d4 1 1.0 r\n")
    command = [sys.executable, "-m", "trecbench", "score", "-m", "P.2"]
    with open(tmp_path / "qrels", "rb") as qrels:
        piped = subprocess.run(
            [*command, "-", "run"], stdin=qrels, capture_output=True, cwd=tmp_path
        )
    named = subprocess.run([*command, "qrels", "run"], capture_output=True, cwd=tmp_path)
    assert (piped.returncode, piped.stderr) == (0, b"")
    assert piped.stdout == named.stdout == b"P_2                   \tall\t0.2500\n"


def test_a_suite_says_the_failed_download_at_its_setting(tmp_path, capfd, monkeypatch):
    # the leaderboard said it of the dataset alone, without the suite's file and line; and
    # a suite in another folder read the id as a file of its folder ('lb/irds:...')
    monkeypatch.chdir(tmp_path)
    (tmp_path / "lb").mkdir()
    (tmp_path / "lb" / "a.run").write_bytes((ROOT / "runs" / "tfidf-word.run").read_bytes())
    suite = f'systems = ["a"]\n[collections.x]\nqrels = "{DATASET}"\nruns = "{{system}}.run"\n'
    (tmp_path / "lb" / "s.toml").write_text(suite)
    assert run(["leaderboard", "lb/s.toml"]) == 2
    err = capfd.readouterr().err
    assert err.startswith(
        f"trecbench: lb/s.toml:3: collections.x.qrels: cannot read '{DATASET}': ir_datasets "
        "must download this dataset's qrels"
    )
    assert err.count("\n") == 1
