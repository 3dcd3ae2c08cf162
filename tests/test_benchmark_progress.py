"""``trecbench benchmark`` tells of its long work: each input read and validated (bytes),
the runs parsed and ranked, each fusion, the modes checked and scored, the resampling and
the files written, as bars on stderr with rate and ETA; none with ``--quiet`` or off a
terminal. The bundled R-task demo (data/hpo-rtask) is the data."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from conftest import ROOT

from trecbench.benchmarking import load_benchmark_config, run_benchmark
from trecbench.cli import _register, cli
from trecbench.cli import progress as progress_module
from trecbench.comparison import html_available

_register()
CONFIG = ROOT / "data" / "hpo-rtask" / "benchmark.toml"


def _by_label(told: list[tuple]) -> dict[str, list[tuple]]:
    calls: dict[str, list[tuple]] = {}
    for label, done, total in told:
        calls.setdefault(label, []).append((done, total))
    return calls


def test_the_library_tells_each_step_with_its_done_and_total(tmp_path):
    settings = load_benchmark_config(CONFIG)
    told: list[tuple] = []
    result = run_benchmark(settings, progress=lambda *call: told.append(call))
    written = result.write(tmp_path / "out", progress=lambda *call: told.append(call))
    calls = _by_label(told)
    files = [settings.qrels, *(mode.run for mode in settings.modes if mode.run is not None)]
    steps = [label for f in files for label in (f"reading {f}", f"validating {f}")]
    steps += ["parsing", "ranking", "fusing hybrid", "checking modes", "scoring"]
    steps += ["resampling", "writing outputs"]
    steps += ["rendering the page"] if html_available() else []  # report.html: its own job
    # each step told, in the order they run (scoring may also tell its topics)
    assert [label for label in calls if label != "scoring topics"] == steps
    for path in files:
        size = path.stat().st_size
        for label in (f"reading {path}", f"validating {path}"):
            assert calls[label][-1] == (size, size)
    assert calls["parsing"] == [(done, 4) for done in range(5)]  # the qrels and 3 runs
    assert calls["ranking"] == [(done, 3) for done in range(4)]
    assert calls["checking modes"] == [(done, 4) for done in range(5)]
    assert calls["scoring"][-1] == (4, 4)
    assert calls["resampling"][-1][0] == calls["resampling"][-1][1] > 0
    assert calls["fusing hybrid"][-1][0] == calls["fusing hybrid"][-1][1]
    # the hybrid's run, 4 reports, BenchmarkReport.json, the Markdown, the page, manifest
    count = 8 + html_available()
    assert len(written) == count
    assert calls["writing outputs"] == [(done, count) for done in range(count + 1)]
    if html_available():
        assert calls["rendering the page"][-1][0] == calls["rendering the page"][-1][1] > 1
    for label, moves in calls.items():
        assert all(total is None or 0 <= done <= total for done, total in moves), label
        assert [done for done, _ in moves] == sorted(done for done, _ in moves), label
    assert run_benchmark(settings).markdown() == result.markdown()  # told, not changed


@pytest.fixture
def drawn_on_a_terminal(monkeypatch):
    """Progress drawn as on a terminal, every bar at once (no delay)."""
    monkeypatch.setattr(progress_module, "wanted", lambda quiet: not quiet)
    monkeypatch.setattr(progress_module.TaskProgress.__init__, "__defaults__", (None, 0.5, 0, 0))


def _benchmark(out, *flags):
    argv = ["benchmark", str(CONFIG), "-o", str(out), *flags]
    return CliRunner().invoke(cli, argv, catch_exceptions=False)


def test_the_command_draws_each_step_and_quiet_none(tmp_path, drawn_on_a_terminal):
    shown = _benchmark(tmp_path / "shown")
    assert shown.exit_code == 0, shown.output
    qrels = load_benchmark_config(CONFIG).qrels
    for bar in (
        f"validating {qrels}: 100%",
        "parsing: 100%",
        "ranking: 100%",
        "fusing hybrid: 100%",
        "checking modes: 100%",
        "resampling:",
        "writing outputs: 100%",
    ):
        assert bar in shown.stderr, bar
    assert "B/s" in shown.stderr and "files/s" in shown.stderr and "%|" not in shown.stdout
    quiet = _benchmark(tmp_path / "quiet", "--quiet")
    assert quiet.exit_code == 0, quiet.output
    assert "%|" not in quiet.stderr and "validating" not in quiet.stderr
    # the same files, byte for byte where no time or id is recorded
    for name in ("runs/hybrid.run", "BenchmarkComparison.md"):
        assert (tmp_path / "shown" / name).read_bytes() == (tmp_path / "quiet" / name).read_bytes()


def test_the_page_has_a_bar_of_its_own_not_one_frozen_step(tmp_path, monkeypatch):
    pytest.importorskip("bokeh")
    monkeypatch.setattr(progress_module, "wanted", lambda quiet: not quiet)
    # no wait for the writing's bar to go stale (half a second, longer than the demo's page)
    monkeypatch.setattr(progress_module.TaskProgress.__init__, "__defaults__", (None, 0, 0, 0))
    shown = _benchmark(tmp_path / "shown")
    assert shown.exit_code == 0, shown.output
    assert "rendering the page: 100%" in shown.stderr and "steps/s" in shown.stderr
    assert "writing outputs: 100%" in shown.stderr  # taken up again once the page is made
    quiet = _benchmark(tmp_path / "quiet", "--quiet")
    assert "rendering" not in quiet.stderr
