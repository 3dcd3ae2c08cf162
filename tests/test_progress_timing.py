"""When the CLI's bars are drawn and what their times say (reviewer 365), on a fake clock:
the delay counts from the command's first job, a job's second pass is timed anew, the
last frame shows the total, and no warning is run on after a bar."""

from __future__ import annotations

import re
import types
import warnings

import pytest

from trecbench.cli import progress as progress_module
from trecbench.cli.validate import _FileProgress


class _Clock:
    """``time.monotonic`` and tqdm's ``time.time``: seconds that pass when told to."""

    def __init__(self):
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch):
    import tqdm.std

    ticking = _Clock()
    monkeypatch.setattr(progress_module, "time", types.SimpleNamespace(monotonic=ticking))
    monkeypatch.setattr(tqdm.std, "time", ticking)  # the bars' elapsed time and rate
    return ticking


def test_short_jobs_are_drawn_once_the_command_has_run_its_delay(clock, capsys):
    # twelve runs validated in 11 s drew nothing: each file's second was its own delay
    tasks = progress_module.TaskProgress(delay=1.0, interval=0)
    tasks("validating a.run", 0, 100)
    clock.now += 0.6
    tasks("validating a.run", 100, 100)
    assert capsys.readouterr().err == ""  # under a second so far: nothing drawn
    tasks("validating b.run", 0, 100)
    clock.now += 0.6  # b.run is 0.6 s old, the command 1.2 s
    tasks("validating b.run", 50, 100)
    tasks("validating b.run", 100, 100)
    tasks.close()
    err = capsys.readouterr().err
    assert "validating b.run:  50%" in err and "validating b.run: 100%" in err, err


def test_validate_draws_short_files_once_it_has_run_a_second(clock, capsys):
    drawn = _FileProgress()
    drawn.read("a.run", 0, 100)
    clock.now += 0.7
    drawn.read("a.run", 100, 100)
    drawn.read("b.run", 0, 100)
    clock.now += 0.7  # b.run 0.7 s in, the command 1.4 s
    drawn.read("b.run", 60, 100)
    drawn.close()
    err = capsys.readouterr().err
    assert "a.run" not in err and "validating b.run:  60%" in err, err


def _frames(err: str, label: str) -> list[str]:
    return [frame for frame in re.split(r"[\r\n]", err) if frame.startswith(f"{label}:")]


def test_a_job_s_second_pass_is_timed_from_its_own_start(clock, capsys):
    # agree --qrels-b's second scoring opened at "0/12 [00:01<?" and ran at half its rate
    tasks = progress_module.TaskProgress(delay=0, interval=0)
    for done in range(5):  # the first pass: a run scored a second, reading in between
        tasks("scoring", done, 4)
        if done < 4:
            tasks(f"reading r{done}", 10, 10)
        clock.now += 1
    first = _frames(capsys.readouterr().err, "scoring")
    # a job that comes back (after the next run is read) keeps its start
    assert any("2/4 [00:02<00:02,  1.00 runs/s]" in frame for frame in first), first
    tasks("reading qrels-b", 10, 10)
    clock.now += 5
    tasks("scoring", 0, 4)  # the second pass, on the other qrels: 2 runs a second
    clock.now += 1
    tasks("scoring", 2, 4)
    tasks.close()
    second = _frames(capsys.readouterr().err, "scoring")
    assert second[0].startswith("scoring:   0%") and "0/4 [00:00<?" in second[0], second
    assert "2/4 [00:01<00:01,  2.00 runs/s]" in second[-1], second


def test_the_last_frame_shows_the_total(clock, capsys):
    # compare's resampling ended on 9984/10000: the end came within the redraw interval
    tasks = progress_module.TaskProgress(delay=0, interval=0.2)
    tasks("resampling", 0, 10000)
    clock.now += 0.3
    tasks("resampling", 9984, 10000)
    clock.now += 0.05
    tasks("resampling", 10000, 10000)
    tasks.close()
    frames = _frames(capsys.readouterr().err, "resampling")
    assert "9984/10000" in frames[-2] and "10000/10000" in frames[-1], frames


def test_a_slow_job_s_rate_is_told_in_seconds_per_item(clock, capsys):
    # pool --jobs drew "[00:06<00:00,  3.12s/ runs]": tqdm puts "s/" before our blank
    tasks = progress_module.TaskProgress(delay=0, interval=0)
    tasks("scoring", 0, 3)
    clock.now += 6
    tasks("scoring", 2, 3)
    clock.now += 1
    tasks("pooling", 0)
    clock.now += 4
    tasks("pooling", 2)  # a count of no known total: a rate without a bar
    tasks.close()
    err = capsys.readouterr().err
    assert "2/3 [00:06<00:03,  3.00 s/run]" in err, repr(err)
    assert "2 rows [00:04,  2.00 s/row]" in err and "s/ " not in err, repr(err)


def test_a_rate_cut_at_the_terminal_s_edge_or_a_label_s_slash_are_drawn_right():
    # review (helper 642): tqdm cuts a line to the terminal before the rate was rewritten
    # ("3.12s/ ca" at 40 columns), and a label's "results/ runs" was taken for a rate
    bar = progress_module._bar_type()
    cut = bar.format_meter(2, None, 6.24, unit=" candidates", ncols=40, prefix="scoring")
    assert cut == "scoring: 2 candidates [00:06,  3.12 s/ca"
    full = bar.format_meter(2, 10, 6.24, unit=" runs", ncols=80, prefix="scoring")
    assert len(full) == 80 and full.endswith("| 2/10 [00:06<00:24,  3.12 s/run]")
    fast = bar.format_meter(8, 10, 2.0, unit=" runs", ncols=80, prefix="scoring")
    assert len(fast) == 80 and fast.endswith("| 8/10 [00:02<00:00,  4.00 runs/s]")
    label = bar.format_meter(8, None, 2.0, unit=" runs", prefix="validating results/ runs")
    assert label == "validating results/ runs: 8 runs [00:02,  4.00 runs/s]"


def test_a_warning_in_mid_job_is_not_run_on_after_the_bar(clock, capsys):
    # fuse: "...| 4/4 [00:13<00:00,  3.42s/ steps]trecbench: warning: ..."
    from trecbench.cli import _show_warning

    tasks = progress_module.TaskProgress(delay=0, interval=0)
    tasks("fusing", 4, 4)
    _show_warning(warnings.showwarning, "fused ties", UserWarning, "x.py", 1)
    tasks.close()
    err = capsys.readouterr().err
    # the bar's line cleared (blanks), the warning from its start, then the bar again
    said = re.search(r"\r( +)\rtrecbench: warning: UserWarning: fused ties\n\rfusing: ", err)
    assert "fusing: 100%" in err and said, repr(err)


def test_fuse_optimize_ends_its_bar_before_its_choice_and_warnings(tmp_path, capsys, monkeypatch):
    from conftest import ROOT

    from trecbench.cli import run

    monkeypatch.setattr(progress_module, "wanted", lambda quiet: not quiet)
    monkeypatch.setattr(progress_module.TaskProgress.__init__, "__defaults__", (None, 0.5, 0, 0))
    data = ROOT / "data" / "hpo-rtask"
    runs = [str(data / f"{name}.run") for name in ("lexical", "vector")]
    qrels = str(data / "hpo-rtask.qrels")
    command = ["fuse", "--optimize", "P@5", "--qrels", qrels, *runs, "-o", str(tmp_path / "f")]
    assert run(command) == 0
    err = capsys.readouterr().err
    assert "fusing and scoring candidates: " in err
    for line in err.split("\n"):  # each said on a line of its own, the bar's cleared
        for said in ("chose ", "trecbench: warning", "wrote "):
            if said in line:
                assert line.split("\r")[-1].startswith(said), repr(line)


def test_topics_noted_beside_the_reading_are_timed_from_the_first_note(clock, capsys):
    # when the topics took the line from the reading bar, their first frame said
    # "6578 topics [00:00, 18667206.84 topics/s]": timed from that frame (reviewer 368)
    tasks = progress_module.TaskProgress(delay=0, interval=0, stale=0.5)
    tasks("reading r.run", 0, 1000)
    tasks("scoring topics", 0, None)
    for second in range(1, 5):
        clock.now += 0.25
        tasks("reading r.run", 250 * second, 1000)
        tasks("scoring topics", 1000 * second, None)
    clock.now += 1.0  # the reading is over (finished): the topics take the line
    tasks("scoring topics", 5000, None)
    tasks.close()
    rates = [float(r) for r in re.findall(r"([\d.]+) topics/s", capsys.readouterr().err)]
    assert rates and rates[-1] == pytest.approx(2500, rel=0.01)  # 5,000 topics in 2 s


def test_a_run_s_topics_open_no_bar_before_they_count_or_know_their_total(clock, capsys):
    # a streamed run tells its topics at 0 of no total as its reading starts: that drew
    # "scoring topics: 0 topics [00:00, ? topics/s]" before the reading bar (reviewer 448)
    tasks = progress_module.TaskProgress(delay=0, interval=0, stale=0.5)
    tasks("scoring topics", 0, None)
    assert capsys.readouterr().err == ""
    clock.now += 1.0
    tasks("reading r.run", 500, 1000)
    tasks("reading r.run", 1000, 1000)
    clock.now += 1.0
    tasks("scoring topics", 40, 80)  # the first block: counted, its total known
    tasks.close()
    err = capsys.readouterr().err
    assert "? topics/s" not in err and err.index("reading r.run") < err.index("scoring topics")
    assert "40/80 [00:02<00:02, 20.00 topics/s]" in err  # timed from the 0 told


def test_a_job_first_told_part_way_is_timed_from_the_report_before_it(clock, capsys):
    # pool's next run, read ahead, first told at 4 MB: "11.1GB/s" over no time; it began
    # at the latest when the job before it last told
    tasks = progress_module.TaskProgress(delay=0, interval=0)
    tasks("reading a.run", 0, 8 << 20)
    clock.now += 2
    tasks("reading a.run", 8 << 20, 8 << 20)
    clock.now += 2  # b.run read meanwhile: 4 MB in 2 s at most
    tasks("reading b.run", 4 << 20, 8 << 20)
    tasks.close()
    (frame,) = _frames(capsys.readouterr().err, "reading b.run")
    assert "4.00M/8.00M [00:02<00:02, 2.10MB/s]" in frame, frame
