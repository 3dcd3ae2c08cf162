"""``trecbench convert`` tells of long work: each input read (bytes), each run written
(lines) and each file validated (bytes), as bars on stderr with rate and ETA; none with
``--quiet`` or off a terminal."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from trecbench import files, sources
from trecbench.cli import _register, cli
from trecbench.cli import progress as progress_module
from trecbench.convert.common import write_conversion
from trecbench.convert.msmarco import convert_msmarco

_register()

DOCUMENTS = 2_500


@pytest.fixture
def msmarco_run(tmp_path):
    path = tmp_path / "dev.tsv"
    path.write_text("".join(f"q{i // 500}\tp{i}\t{i % 500 + 1}\n" for i in range(DOCUMENTS)))
    return path


def test_the_library_tells_each_file_read_written_and_validated(msmarco_run, tmp_path, monkeypatch):
    monkeypatch.setattr(files, "RUN_PIECE_ROWS", 1_000)
    told = []
    with sources.reading_shown(lambda *call: told.append(call)):
        conversion = convert_msmarco(msmarco_run)
    written = write_conversion(
        conversion, tmp_path / "out", [msmarco_run], progress=lambda *call: told.append(call)
    )
    size = msmarco_run.stat().st_size
    assert told[0][0] == f"reading {msmarco_run}" and told[-1][0] == "validating dev.run"
    assert [c[1:] for c in told if c[0] == f"reading {msmarco_run}"][-1] == (size, size)
    writing = [c[1:] for c in told if c[0] == "writing dev.run"]
    assert writing == [(1_000, DOCUMENTS), (2_000, DOCUMENTS), (DOCUMENTS, DOCUMENTS)]
    run_size = written["run:dev"].stat().st_size
    validating = [c[1:] for c in told if c[0] == "validating dev.run"]
    assert validating[-1] == (run_size, run_size)
    assert {label for label, *_ in told} == {
        f"reading {msmarco_run}",
        "writing dev.run",
        "validating dev.run",
    }


def test_nothing_is_told_outside_the_block(msmarco_run):
    told = []
    with sources.reading_shown(lambda *call: told.append(call)):
        pass
    convert_msmarco(msmarco_run)
    assert told == []


def _convert(tmp_path, msmarco_run, *flags):
    argv = ["convert", "msmarco", str(msmarco_run), "-o", str(tmp_path / "out"), *flags]
    return CliRunner().invoke(cli, argv, catch_exceptions=False)


def test_the_command_draws_the_bars_on_a_terminal(msmarco_run, tmp_path, monkeypatch):
    monkeypatch.setattr(progress_module, "wanted", lambda quiet: not quiet)
    monkeypatch.setattr(progress_module.TaskProgress.__init__, "__defaults__", (None, 0.5, 0, 0))
    done = _convert(tmp_path, msmarco_run)
    assert done.exit_code == 0, done.output
    for bar in (f"reading {msmarco_run}: 100%", "writing dev.run: 100%", "validating dev.run:"):
        assert bar in done.stderr
    assert "lines/s" in done.stderr and "B/s" in done.stderr
    assert done.stdout == "" and "wrote " in done.stderr  # said after the bars


def test_quiet_draws_nothing_and_writes_the_same_files(msmarco_run, tmp_path, monkeypatch):
    monkeypatch.setattr(progress_module, "wanted", lambda quiet: not quiet)
    monkeypatch.setattr(progress_module.TaskProgress.__init__, "__defaults__", (None, 0.5, 0, 0))
    done = _convert(tmp_path, msmarco_run, "--quiet")
    assert done.exit_code == 0, done.output
    said = [f"wrote {tmp_path / 'out' / name}" for name in ("dev.run", "dev.sidecar.json")]
    assert [line.split(":")[0] for line in done.stderr.splitlines()] == said  # no bar
    # before the converter's name too, as --ir-metadata is taken on either side
    argv = ["convert", "--quiet", "msmarco", str(msmarco_run), "-o", str(tmp_path / "before")]
    before = CliRunner().invoke(cli, argv, catch_exceptions=False)
    assert before.exit_code == 0 and "%" not in before.stderr
    drawn = _convert(tmp_path / "drawn", msmarco_run)
    assert (tmp_path / "out" / "dev.run").read_bytes() == (
        tmp_path / "drawn" / "out" / "dev.run"
    ).read_bytes()

    # the same summary on stderr, the bars aside (wrote lines, after the bars' last \r)
    def summary(result, folder):
        lines = result.stderr.replace("\r", "\n").splitlines()
        return [line.replace(str(folder), "FOLDER") for line in lines if line.startswith("wrote ")]

    assert summary(drawn, tmp_path / "drawn") == summary(done, tmp_path) != []


@pytest.mark.parametrize("outdir", ["folder", "-"])
def test_the_bar_is_cleared_before_the_summary_and_the_run(msmarco_run, tmp_path, monkeypatch,
                                                             outdir):  # fmt: skip
    # the summary was glued to the last bar, frozen at 97% (reviewer 331)
    monkeypatch.setattr(progress_module, "wanted", lambda quiet: not quiet)
    monkeypatch.setattr(progress_module.TaskProgress.__init__, "__defaults__", (None, 0.5, 0, 0))
    target = str(tmp_path / "out") if outdir == "folder" else "-"
    argv = ["convert", "msmarco", str(msmarco_run), "-o", target]
    done = CliRunner().invoke(cli, argv, catch_exceptions=False)
    assert done.exit_code == 0, done.output
    first = "wrote " if outdir == "folder" else "q0\tQ0\tp0\t1\t500\tdev\n"
    before = done.output[: done.output.index(first)]  # stdout and stderr as a terminal shows
    assert "validating dev.run" in before and before.rstrip(" ").endswith("\r")  # cleared
