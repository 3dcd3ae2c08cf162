"""pool tells of its work after the runs are read: the pooling, the sort, the pool file's
ids checked and lines made (reviewer 425: ~4.6 s of silence after the last file's bar)."""

from __future__ import annotations

import re

from conftest import ROOT

import trecbench
from trecbench.cli import progress as progress_module
from trecbench.runstudy import pool as pool_module
from trecbench.runstudy import pool_stream

RUNS = [str(ROOT / "runs" / f"{name}.run") for name in ("tfidf-word", "tfidf-char")]


def _passes(told: list, label: str) -> list[list[tuple[int, int]]]:
    """The counts told of ``label``, a list per pass (each starts at 0)."""
    passes: list[list[tuple[int, int]]] = []
    for name, done, total in told:
        if name == label:
            if done == 0:
                passes.append([])
            passes[-1].append((done, total))
    return passes


def test_pool_tells_of_its_pooling_and_sorting(monkeypatch):
    # a few topics' rows at a time, a fold a run: several counts a pass, a pass a fold
    monkeypatch.setattr(pool_stream, "SLICE", 64)
    monkeypatch.setattr(pool_stream, "BATCH_ROWS", 1)
    told = []
    result = trecbench.pool(RUNS, depth=5, progress=lambda *call: told.append(call))
    passes = _passes(told, "pooling")
    assert len(passes) == 2  # a fold a run
    for counts in passes:
        assert len(counts) > 2 and counts[-1][0] == counts[-1][1]
        assert [done for done, _ in counts] == sorted(done for done, _ in counts)
    # the first fold: the first run's rows; the second: its pairs (a run's are distinct)
    # and the second run's rows
    first, second = (c.pooled for c in result.contributions)
    assert [counts[-1][1] for counts in passes] == [first, first + second]
    assert _passes(told, "sorting the pool") == [[(i, 3) for i in range(4)]]
    # the pooling comes after the reading of the last run, the sort after the pooling
    labels = [label for label, *_ in told]
    assert labels.index("sorting the pool") > max(
        i for i, label in enumerate(labels) if label == "pooling"
    )


def test_the_pool_file_tells_of_its_ids_checked_and_its_lines(monkeypatch):
    monkeypatch.setattr(pool_module, "TEXT_PIECE", 100)
    result = trecbench.pool(RUNS, depth=5)
    told = []
    text = result.to_text("0", progress=lambda *call: told.append(call))
    assert text == result.to_text("0")  # the same lines, made in pieces
    n = len(result.qid)
    assert n > 300  # several pieces
    checked = [call[1:] for call in told if call[0] == "checking ids"]
    assert checked == [(min(start + 100, n), 2 * n) for start in range(0, n, 100)] + [
        (n + min(start + 100, n), 2 * n) for start in range(0, n, 100)
    ]
    lines = [call[1:] for call in told if call[0] == "writing"]
    assert lines == [(min(start + 100, n), n) for start in range(0, n, 100)]
    # ids checked every qid first, then every docno: the first one refused is as before
    assert told.index(("checking ids", 2 * n, 2 * n)) < told.index(("writing", n, n))


def test_pool_draws_its_bars_after_the_reading_unless_quiet(tmp_path, capsys, monkeypatch):
    from trecbench.cli import run

    command = ["pool", *RUNS, "-o", str(tmp_path / "p.txt")]
    assert run(command) == 0  # stderr is no terminal here: no bar
    assert "pooling" not in capsys.readouterr().err
    monkeypatch.setattr(progress_module, "wanted", lambda quiet: not quiet)
    monkeypatch.setattr(progress_module.TaskProgress.__init__, "__defaults__", (None, 0.5, 0, 0))
    assert run(command) == 0
    err = capsys.readouterr().err
    for bar in ("pooling: ", "sorting the pool: ", "checking ids: ", "writing: "):
        assert bar in err, (bar, err)
    assert re.search(r"rows/s", err) and re.search(r"lines/s", err), err  # rate and ETA
    assert run([*command, "--quiet"]) == 0
    err = capsys.readouterr().err
    assert not any(bar in err for bar in ("reading", "pooling", "sorting", "checking", "writing:"))
