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
