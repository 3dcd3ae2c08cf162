"""Progress for long jobs: the streaming validator reports lines read; the CLI draws it."""

from __future__ import annotations

import trecbench
from trecbench.cli import progress as progress_module
from trecbench.cli.validate import _LineProgress


def test_validate_reports_physical_lines_after_each_chunk(tmp_path):
    path = tmp_path / "r.run"
    path.write_text("".join(f"q Q0 d{i} {i + 1} {100 - i} t\n" for i in range(60)))
    calls = []
    trecbench.validate_run(path, chunk_bytes=256, progress=lambda p, n: calls.append((p, n)))
    counts = [n for _, n in calls]
    assert len(calls) > 1 and {p for p, _ in calls} == {str(path)}
    assert counts == sorted(counts) and counts[-1] == 60


def test_line_progress_draws_one_line_per_file(capsys, monkeypatch):
    monkeypatch.setattr(progress_module.StderrProgress.__init__, "__defaults__", (0.0, 0.0, ""))
    drawn = _LineProgress()
    drawn("a.run", 10)
    drawn("a.run", 20)
    drawn("b.run", 5)
    drawn.close()
    err = capsys.readouterr().err
    assert (
        err
        == "\rvalidating a.run: 10 lines\rvalidating a.run: 20 lines\n\rvalidating b.run: 5 lines\n"
    )


def test_progress_stays_off_when_quiet_or_not_a_terminal(monkeypatch):
    monkeypatch.setattr("sys.stderr.isatty", lambda: True, raising=False)
    assert progress_module.wanted(quiet=False)
    assert not progress_module.wanted(quiet=True)
    monkeypatch.setattr("sys.stderr.isatty", lambda: False, raising=False)
    assert not progress_module.wanted(quiet=False)
