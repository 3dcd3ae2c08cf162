"""Progress for long jobs: the streaming validator reports lines read; the CLI draws it."""

from __future__ import annotations

import io
import re
import time

import trecbench
from trecbench.cli import progress as progress_module
from trecbench.cli.validate import _FileProgress


def test_validate_reports_physical_lines_after_each_chunk(tmp_path):
    path = tmp_path / "r.run"
    path.write_text("".join(f"q Q0 d{i} {i + 1} {100 - i} t\n" for i in range(60)))
    calls = []
    trecbench.validate_run(path, chunk_bytes=256, progress=lambda p, n: calls.append((p, n)))
    counts = [n for _, n in calls]
    assert len(calls) > 1 and {p for p, _ in calls} == {str(path)}
    assert counts == sorted(counts) and counts[-1] == 60


def test_line_progress_draws_one_line_per_file(capsys, monkeypatch):
    # a file whose bytes are not told (validate --fix's, validated from memory): lines, rate
    monkeypatch.setattr(
        progress_module.StderrProgress.__init__, "__defaults__", (0.0, 0.0, " steps")
    )
    drawn = _FileProgress()
    drawn("a.run", 10)
    drawn("a.run", 20)
    drawn("b.run", 5)
    drawn.close()
    lines = capsys.readouterr().err.split("\n")
    # one line per file (tqdm redraws it with \r), with the count and its rate, from the
    # first frame (reviewer 317: tqdm's frame at its creation had 0 lines)
    assert len(lines) == 3 and lines[-1] == ""
    assert lines[0].startswith("\rvalidating a.run: 10 lines [")
    assert "validating a.run: 20 lines [00:00, " in lines[0] and " lines/s]" in lines[0]
    assert "validating b.run: 5 lines [" in lines[1] and "a.run" not in lines[1]


def test_progress_imports_tqdm_only_for_a_bar(monkeypatch, capsys):
    import sys

    monkeypatch.delitem(sys.modules, "tqdm", raising=False)
    silent = progress_module.StderrProgress("reading", delay=60)
    silent(1, 2)
    silent.close()
    assert "tqdm" not in sys.modules and capsys.readouterr().err == ""


def test_task_progress_shows_one_job_at_a_time(capsys):
    tasks = progress_module.TaskProgress(delay=0, interval=0)
    tasks("reading run.gz", 1 << 20, 4 << 20)
    tasks("reading qrels", 10, 100)  # another file, while the run is read: waits
    tasks("reading run.gz", 4 << 20, 4 << 20)
    tasks("scoring", 1, 2)  # the run is read: scoring takes over
    tasks.close()
    err = capsys.readouterr().err
    assert "reading run.gz:  25%" in err and "1.00M/4.00M" in err and "B/s" in err
    assert "qrels" not in err and "scoring:  50%" in err and " runs/s" in err


def test_score_reports_reading_progress_of_a_gzipped_run(tmp_path):
    import gzip

    run = "".join(f"q{i % 7} Q0 d{i} {i} {1000 - i} t\n" for i in range(3000)).encode()
    (tmp_path / "run.gz").write_bytes(gzip.compress(run))
    (tmp_path / "qrels").write_text("q1 0 d8 1\n")
    calls = []
    trecbench.evaluate(
        tmp_path / "qrels", tmp_path / "run.gz", ["P.5"], progress=lambda *a: calls.append(a)
    )
    size = (tmp_path / "run.gz").stat().st_size
    reading = [c for c in calls if c[0] == f"reading {tmp_path / 'run.gz'}"]
    assert reading and reading[-1] == (reading[-1][0], size, size)
    assert calls[-1] == ("scoring", 1, 1)


def test_progress_stays_off_when_quiet_or_not_a_terminal(monkeypatch):
    monkeypatch.setattr("sys.stderr.isatty", lambda: True, raising=False)
    assert progress_module.wanted(quiet=False)
    assert not progress_module.wanted(quiet=True)
    monkeypatch.setattr("sys.stderr.isatty", lambda: False, raising=False)
    assert not progress_module.wanted(quiet=False)


def test_one_run_draws_no_runs_bar(monkeypatch):
    """'0/1 runs' said nothing (issue 27 item 10): with one run only its reading shows."""
    from trecbench.cli.progress import TaskProgress

    progress = TaskProgress(delay=0)
    progress("scoring", 0, 1)
    assert progress.current is None
    progress("scoring", 0, 2)
    assert progress.current is not None and progress.current.unit == " runs"
    progress.close()


def test_validate_reports_the_bytes_read_of_the_files_size(tmp_path):
    import gzip

    from trecbench.validation import validate_files

    text = "".join(f"q Q0 d{i} {i + 1} {100 - i} t\n" for i in range(3000)).encode()
    (tmp_path / "r.run.gz").write_bytes(gzip.compress(text))
    (tmp_path / "q").write_text("q 0 d1 1\n")
    told = []
    results = validate_files(
        [tmp_path / "r.run.gz"],
        qrels=tmp_path / "q",
        read_progress=lambda *call: told.append(call),
    )
    assert len(results) == 2  # the qrels, then the run
    for name in ("q", "r.run.gz"):
        path, size = str(tmp_path / name), (tmp_path / name).stat().st_size
        done = [call[1] for call in told if call[0] == path]
        assert done == sorted(done) and done[-1] == size  # bytes as stored (gzip's)
        assert {call[2] for call in told if call[0] == path} == {size}


def test_file_progress_draws_a_bar_with_its_total_eta_and_lines(capsys, monkeypatch):
    monkeypatch.setattr(
        progress_module.StderrProgress.__init__, "__defaults__", (0.0, 0.0, " steps")
    )
    drawn = _FileProgress()
    drawn.read("a.run", 1 << 20, 4 << 20)
    drawn("a.run", 12345)
    drawn.read("a.run", 2 << 20, 4 << 20)
    drawn.read("b.run", 10, None)  # a pipe: no total
    drawn.close()
    first, second, *_ = capsys.readouterr().err.split("\n")
    assert "validating a.run:  50%" in first and "2.00M/4.00M [" in first
    assert "<00:" in first and "B/s, 12,345 lines]" in first  # its ETA, rate and lines
    assert "validating b.run: 10.0B [" in second and "%" not in second


def test_validate_draws_its_bar_on_a_terminal_only(tmp_path, capsys, monkeypatch):
    from trecbench.cli import run

    monkeypatch.setattr(
        progress_module.StderrProgress.__init__, "__defaults__", (0.0, 0.0, " steps")
    )
    path = tmp_path / "r.run"
    path.write_text("".join(f"q Q0 d{i} {i + 1} {100 - i} t\n" for i in range(50)))
    size = path.stat().st_size
    monkeypatch.setattr("sys.stderr.isatty", lambda: True, raising=False)
    assert run(["validate", str(path)]) == 0
    assert f"validating {path}: 100%" in capsys.readouterr().err
    assert run(["validate", "--quiet", str(path)]) == 0
    assert "validating" not in capsys.readouterr().err
    monkeypatch.setattr("sys.stderr.isatty", lambda: False, raising=False)
    assert run(["validate", str(path)]) == 0
    assert "validating" not in capsys.readouterr().err and size


def test_validate_fix_draws_the_bar_of_its_spooled_run(tmp_path, capsys, monkeypatch):
    """``--fix`` reads its run into memory before validating it: that reading showed no
    bar (reviewer 321), where the run validated without --fix shows its bytes read."""
    from trecbench.cli import run

    monkeypatch.setattr(
        progress_module.StderrProgress.__init__, "__defaults__", (0.0, 0.0, " steps")
    )
    path = tmp_path / "r.run"
    path.write_text("".join(f"q Q0 d{i} {i + 1} {100 - i} t\n" for i in range(50)))
    monkeypatch.setattr("sys.stderr.isatty", lambda: True, raising=False)
    assert run(["validate", str(path), "--fix", str(tmp_path / "fixed.run")]) == 0
    err = capsys.readouterr().err
    size = path.stat().st_size  # < 1000 bytes: tqdm shows them as they are
    assert f"validating {path}: 100%" in err and f"{size}/{size} [" in err and "B/s" in err
    assert " 50 lines]" in err  # the lines validated, beside the bytes read


def test_one_run_in_blocks_counts_its_topics_scored(tmp_path, monkeypatch):
    from trecbench import memory

    monkeypatch.setattr(memory, "BLOCK_LINES", 7)  # blocks of a few lines: whole topics each
    monkeypatch.setattr(memory, "READ_BYTES", 300)
    lines = [f"q{q:02d} Q0 d{i} {i + 1} {10 - i} t\n" for q in range(12) for i in range(5)]
    (tmp_path / "r.run").write_text("".join(lines))
    (tmp_path / "other.run").write_text("".join(lines))
    (tmp_path / "q").write_text("q01 0 d1 1\n")
    calls = []
    trecbench.evaluate(
        tmp_path / "q", tmp_path / "r.run", ["P.5"], progress=lambda *c: calls.append(c)
    )
    # with a total (estimated from the bytes read while the file streams: an ETA)
    counted = [done for label, done, total in calls if label == "scoring topics"]
    assert len(counted) > 1 and counted == sorted(counted) and counted[-1] == 12
    assert calls[-2] == ("scoring topics", 12, 12), calls
    calls.clear()
    runs = [tmp_path / "r.run", tmp_path / "other.run"]
    trecbench.evaluate(tmp_path / "q", runs, ["P.5"], progress=lambda *c: calls.append(c))
    assert not [call for call in calls if call[0] == "scoring topics"]  # several: runs counted


def test_topics_scored_show_beside_the_reading_bar_then_on_their_own(capsys):
    tasks = progress_module.TaskProgress(delay=0, interval=0)
    tasks("reading run.gz", 1 << 20, 4 << 20)
    tasks("scoring topics", 120, None)  # a block scored while the file is read
    tasks("reading run.gz", 2 << 20, 4 << 20)
    tasks("reading run.gz", 4 << 20, 4 << 20)
    tasks("scoring topics", 250, None)  # the file read: the topics take the line
    tasks.close()
    err = capsys.readouterr().err
    assert "reading run.gz:  50%" in err and "B/s, 120 topics scored]" in err
    assert "scoring topics: 250 topics [" in err and " topics/s]" in err


def test_rate_and_eta_are_from_the_jobs_start(capsys):
    # a job 2 s in when its bar appears, at 40% of 1,000: 200 samples/s, 3 s left (tqdm's
    # smoothed rate took the jump from 0 to 400 as an instant burst: ETA 00:00)
    import time

    drawn = progress_module.StderrProgress(
        "resampling", delay=0, interval=0, unit=" samples", start=time.monotonic() - 2
    )
    drawn(400, 1000)
    drawn.close()
    err = capsys.readouterr().err
    # the rate is from the job's start, 2 s and the time since (199.99 under load)
    assert re.search(r"400/1000 \[00:02<00:03, (200(\.0+)?|19\d(\.\d+)?) samples/s\]", err), err


def test_agree_and_power_tell_of_their_reading_and_scoring(capsys, monkeypatch):
    from conftest import ROOT

    from trecbench.cli import run

    qrels = str(ROOT / "qrels" / "hpo-demo.qrels")
    runs = [str(ROOT / "runs" / f"{name}.run") for name in ("tfidf-word", "tfidf-char")]
    told = []
    trecbench.agree(qrels, runs, ["P@5"], progress=lambda *call: told.append(call))
    trecbench.power(qrels, runs[0], runs[1:], ["P@5"], progress=lambda *c: told.append(c))
    labels = {label.split(" ")[0] for label, *_ in told}
    assert {"reading", "scoring"} <= labels
    # on a terminal a bar is drawn (at once here), silent with --quiet
    monkeypatch.setattr(progress_module, "wanted", lambda quiet: not quiet)
    monkeypatch.setattr(progress_module.TaskProgress.__init__, "__defaults__", (None, 0.5, 0, 0))
    for command in (["agree", qrels, *runs], ["power", qrels, *runs]):
        assert run([*command, "-m", "P@5"]) == 0
        assert "reading" in capsys.readouterr().err
        assert run([*command, "-m", "P@5", "--quiet"]) == 0
        assert capsys.readouterr().err == ""


def _demo_runs():
    from conftest import ROOT

    qrels = str(ROOT / "qrels" / "hpo-demo.qrels")
    runs = [str(ROOT / "runs" / f"{name}.run") for name in ("tfidf-word", "tfidf-char")]
    return ROOT, qrels, runs


def test_fuse_similarity_pool_and_leaderboard_tell_of_their_work():
    from trecbench.runstudy.leaderboard import leaderboard

    root, qrels, runs = _demo_runs()
    told = []
    trecbench.fuse(runs, "rrf", progress=lambda *call: told.append(call))
    trecbench.similarity(runs, progress=lambda *call: told.append(call))
    trecbench.pool(runs, depth=5, progress=lambda *call: told.append(call))
    leaderboard(root / "data" / "leaderboard.toml", lambda *call: told.append(call))
    labels = {label for label, *_ in told}
    assert {f"reading {run}" for run in runs} <= labels
    assert {"fusing", "comparing pairs", "scoring"} <= labels
    assert any(label.startswith("reading ") and "leaderboard" not in label for label in labels)
    # fusing counts its steps from 0 to the last, once each
    assert [call[1:] for call in told if call[0] == "fusing"] == [(i, 4) for i in range(5)]
    assert ("comparing pairs", 1, 1) in told


def test_fuse_similarity_pool_and_leaderboard_draw_bars_unless_quiet(tmp_path, capsys, monkeypatch):
    from trecbench.cli import run

    root, qrels, runs = _demo_runs()
    monkeypatch.setattr(progress_module, "wanted", lambda quiet: not quiet)
    monkeypatch.setattr(progress_module.TaskProgress.__init__, "__defaults__", (None, 0.5, 0, 0))
    commands = {
        "fuse": (["fuse", *runs, "-o", str(tmp_path / "f.run")], "writing"),
        "similarity": (["similarity", *runs], "comparing pairs"),
        "pool": (["pool", *runs, "-o", str(tmp_path / "p.txt")], "reading"),
        "leaderboard": (["leaderboard", str(root / "data" / "leaderboard.toml")], "scoring"),
    }
    for command, bar in commands.values():
        assert run(command) == 0
        err = capsys.readouterr().err
        assert "reading" in err and bar in err, command
        assert run([*command, "--quiet"]) == 0
        assert "reading" not in capsys.readouterr().err, command


def test_a_fused_run_written_in_pieces_is_the_whole_run(tmp_path, monkeypatch):
    from trecbench import files
    from trecbench.cli import run

    _, _, runs = _demo_runs()
    whole = tmp_path / "whole.run"
    assert run(["fuse", *runs, "-o", str(whole)]) == 0
    monkeypatch.setattr(files, "RUN_PIECE_ROWS", 7)  # a piece ends in mid-topic
    told = []
    fused = trecbench.fuse(runs)
    pieces = list(files.run_pieces(fused, lambda *call: told.append(call)))
    assert len(pieces) > 2 and b"".join(pieces) == whole.read_bytes()
    rows = len(fused)
    assert told == [(min(done, rows), rows) for done in range(7, rows + 7, 7)]
    monkeypatch.setattr(progress_module, "wanted", lambda quiet: True)
    pieced = tmp_path / "pieced.run"
    assert run(["fuse", *runs, "-o", str(pieced)]) == 0
    assert pieced.read_bytes() == whole.read_bytes()


def test_a_bar_s_first_frame_has_the_count_and_the_time_since_the_job_began(capsys):
    # reviewer 317: tqdm drew "0/10 [00:00<?, ? runs/s]" at its creation and update() did
    # not redraw within the interval: a bar cleared at the job's end showed only that
    import time

    drawn = progress_module.StderrProgress(
        "scoring", unit=" runs", leave=False, start=time.monotonic() - 4
    )  # the defaults: 1 s delay, redrawn at most every 0.2 s
    drawn(8, 10)
    frames = capsys.readouterr().err.split("\r")
    drawn.close()
    assert [frame for frame in frames if frame] == [frames[-1]], frames  # one frame
    # 8 of 10 in 4 s: 2 runs/s, 1 s left (1.99 under load)
    shown = r"scoring:  80%\|.*\| 8/10 \[00:04<00:01, +(2\.00|1\.9\d) runs/s\] *"
    assert re.fullmatch(shown, frames[-1]), frames[-1]


def test_fuse_optimize_tells_of_its_search(tmp_path, capsys, monkeypatch):
    # reviewer 317: the search (each candidate fused, then scored) drew nothing
    from trecbench.cli import run
    from trecbench.fusion import ranked_tables
    from trecbench.runstudy.fusion_tuning import FusionSearch, tune_fusion

    root, _, _ = _demo_runs()
    qrels = str(root / "data" / "hpo-rtask" / "hpo-rtask.qrels")
    runs = [str(root / "data" / "hpo-rtask" / f"{name}.run") for name in ("lexical", "vector")]
    told = []
    tune_fusion(ranked_tables(runs), qrels, "P@5", FusionSearch(), lambda *c: told.append(c))
    # RRF's grid: k from 10 to 100, ten candidates, each fused and scored in turn (one bar)
    searched = [c[1:] for c in told if c[0] == "fusing and scoring candidates"]
    assert searched == [(i, 10) for i in range(11)]
    assert not [c for c in told if c[0] in ("fusing candidates", "scoring candidates")]
    assert any(label.startswith("reading ") for label, *_ in told)  # the qrels
    monkeypatch.setattr(progress_module, "wanted", lambda quiet: not quiet)
    monkeypatch.setattr(progress_module.TaskProgress.__init__, "__defaults__", (None, 0.5, 0, 0))
    command = ["fuse", "--optimize", "P@5", "--qrels", qrels, *runs, "-o", str(tmp_path / "f")]
    assert run(command) == 0
    err = capsys.readouterr().err
    assert "fusing and scoring candidates: " in err, err
    assert " candidates/s" in err
    assert run([*command, "--quiet"]) == 0
    assert "candidates:" not in capsys.readouterr().err


def test_runs_scored_in_workers_tell_of_their_bytes_read_then_of_the_runs_finished(
    tmp_path, monkeypatch
):
    # reviewer 317: the workers' reading went untold, and the runs scored were counted in
    # order: nothing was drawn until the first run was scored
    from trecbench import processes

    # small runs: told while they are read
    monkeypatch.setattr(processes, "TICK", 0.005, raising=False)
    runs = []
    for name in ("a", "b"):
        path = tmp_path / f"{name}.run"
        lines = (f"q{q} Q0 d{i} {i + 1} {1000 - i} {name}\n" for q in range(40) for i in range(500))
        path.write_text("".join(lines))
        runs.append(path)
    (tmp_path / "q").write_text("q1 0 d8 1\n")
    told = []
    trecbench.evaluate(tmp_path / "q", runs, ["P.5"], jobs=2, progress=lambda *c: told.append(c))
    size = sum(path.stat().st_size for path in runs)
    reading = [call[1:] for call in told if call[0] == "reading 2 runs"]
    assert reading and reading[-1] == (size, size) and {total for _, total in reading} == {size}
    assert [done for done, _ in reading] == sorted(done for done, _ in reading)
    scoring = [call[1:] for call in told if call[0] == "scoring"]
    assert scoring[0] == (0, 2) and scoring[-1] == (2, 2)
    assert [done for done, _ in scoring] == sorted(done for done, _ in scoring)  # never back
    # the bytes first, then the runs finished: each bar in its turn
    labels = [label for label, *_ in told if label in ("reading 2 runs", "scoring")][1:]
    assert labels == sorted(labels), labels
    # a worker passes on every count of its run's bytes, not only the last (these runs are
    # read in one block each: the calling process above sees no count partway; reviewer 373)
    from trecbench.evaluation.runs import _reading_told

    bytes_read = [0, 0]
    worker = _reading_told(bytes_read, 1)
    for done in (0, 4096, 70_000):
        worker(f"reading {runs[1]}", done, 100_000)
        assert bytes_read == [0, done]
    worker("scoring topics", 5, 40)  # not its bytes
    assert bytes_read == [0, 70_000]


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_bar_redraws_every_interval_after_a_fast_start(monkeypatch):
    """After a fast start (5 MB read in the bar's first second), the bar was redrawn only
    once as much again had been read: tqdm's automatic ``miniters`` took the first frame's
    step (reviewer 321: 4 frames in 3 s at a 0.2 s interval). It moves every interval."""
    terminal = _Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    interval = 0.05
    bar = progress_module.StderrProgress(
        "reading", interval=interval, unit="B", start=time.monotonic() - 1.0
    )
    calls = 12
    for step in range(1, calls + 1):
        bar(5_000_000 + step * 100_000, None)
        time.sleep(interval * 1.2)
    bar.close()
    frames = [frame for frame in terminal.getvalue().split("\r") if frame.strip()]
    # one frame per call, give or take the last (close redraws it) and a late first one
    assert len(frames) >= calls - 1


def test_validate_fix_draws_reading_validating_then_the_steps_of_the_fix(
    tmp_path, capsys, monkeypatch
):
    """Reviewer 349: --fix's spooled run showed no bar while validated, and the rewrite
    none at all (45 s of silence on 1.8M lines): the spooling, the bytes of the spool
    validated with the lines beside them, then each step of the rewrite of its total."""
    from trecbench.cli import run
    from trecbench.validation.fix import FIX_STEPS

    monkeypatch.setattr(
        progress_module.StderrProgress.__init__, "__defaults__", (0.0, 0.0, " steps")
    )
    monkeypatch.setattr(progress_module.TaskProgress.__init__, "__defaults__", (None, 0.5, 0, 0))
    path = tmp_path / "r.run"
    path.write_text("".join(f"q Q0 d{i} {i + 1} {i} t\n" for i in range(50)))
    monkeypatch.setattr("sys.stderr.isatty", lambda: True, raising=False)
    assert run(["validate", str(path), "--fix", str(tmp_path / "fixed.run")]) == 0
    err = capsys.readouterr().err
    size = path.stat().st_size
    assert f"reading {path}: 100%" in err
    assert f"validating {path}: 100%" in err and f"{size}/{size} [" in err and " 50 lines]" in err
    for step in range(1, FIX_STEPS + 1):
        assert f"fixing {path}: " in err and f" {step}/{FIX_STEPS} [" in err
    assert " steps/s]" in err or "s/ steps]" in err  # a rate, and an ETA (<00:00)
    assert run(["validate", str(path), "--fix", str(tmp_path / "f2.run"), "--quiet"]) == 0
    # no bar, only what was written (on stderr, --quiet or not, as every command says it)
    quiet = capsys.readouterr().err
    assert "\r" not in quiet and "%|" not in quiet
    assert quiet.startswith(f"{path}: wrote the canonical run to {tmp_path / 'f2.run'}; changes:")


def test_a_pipe_run_read_whole_counts_its_topics_scored(tmp_path, monkeypatch):
    """Reviewer 351: a run from a pipe, read whole, showed nothing while it was scored
    (10 s of 17 s); it is scored in blocks of whole topics, counted, as a file's are."""
    import os
    import threading

    from trecbench import memory

    monkeypatch.setattr(memory, "BLOCK_LINES", 7)
    lines = [f"q{q:02d} Q0 d{i} {i + 1} {10 - i} t\n" for q in range(12) for i in range(5)]
    lines.insert(30, lines.pop(3))  # a topic's lines in two stretches
    (tmp_path / "r.run").write_text("".join(lines))
    (tmp_path / "q").write_text("q01 0 d1 1\nq01 0 d3 1\nq07 0 d2 1\n")
    os.mkfifo(tmp_path / "pipe")
    writer = threading.Thread(target=(tmp_path / "pipe").write_text, args=("".join(lines),))
    writer.start()
    calls = []
    measures = ["P.5", "map", "num_rel_ret"]
    piped = trecbench.evaluate(
        tmp_path / "q", tmp_path / "pipe", measures, progress=lambda *c: calls.append(c)
    )
    writer.join()
    counted = [(done, total) for label, done, total in calls if label == "scoring topics"]
    # 0 told first: the bar is timed from the scoring's start (its first frame's rate was
    # that of one block over no time: 39,158 topics/s for some 2,000, reviewer 368)
    assert counted[0] == (0, 12) and counted == sorted(counted) and counted[-1] == (12, 12)
    whole = trecbench.evaluate(tmp_path / "q", tmp_path / "r.run", measures)
    assert piped.to_frame().values.tolist() == whole.to_frame().values.tolist()
    per_topic = [run.to_frame(per_query=True).droplevel("run") for run in (piped, whole)]
    assert per_topic[0].equals(per_topic[1])
    # without a bar, the same path (one path either way: it also takes under half the
    # memory of the run scored as one block); it was taken with a bar only
    from trecbench.evaluation import runs

    parts = []
    scored_in_parts = runs._evaluate_in_parts
    monkeypatch.setattr(
        runs, "_evaluate_in_parts", lambda *a: parts.append(a) or scored_in_parts(*a)
    )
    writer = threading.Thread(target=(tmp_path / "pipe").write_text, args=("".join(lines),))
    writer.start()
    quiet = trecbench.evaluate(tmp_path / "q", tmp_path / "pipe", measures)
    writer.join()
    assert len(parts) == 1 and parts[0][-1] is None
    assert quiet.to_frame(per_query=True).droplevel("run").equals(per_topic[1])
    # two runs from pipes: each scored in blocks too (it was one run only), neither told
    # of its topics (the runs scored are counted)
    parts.clear()
    os.mkfifo(tmp_path / "pipe2")
    writers = [
        threading.Thread(target=(tmp_path / pipe).write_text, args=("".join(lines),))
        for pipe in ("pipe", "pipe2")
    ]
    for writer in writers:
        writer.start()
    two = trecbench.evaluate(tmp_path / "q", [tmp_path / "pipe", tmp_path / "pipe2"], measures)
    for writer in writers:
        writer.join()
    assert len(parts) == 2 and all(called[-1] is None for called in parts)
    frame = two.to_frame(per_query=True)
    second = frame.xs(frame.index.get_level_values("run")[-1], level="run")
    assert second.equals(per_topic[1])


def test_topics_scored_take_the_line_once_a_pipe_s_reading_bar_stops(capsys):
    """A pipe's bar has no total, so is never finished: its topics scored were noted
    beside it, never drawn (reviewer 351: nothing for 14 s)."""
    tasks = progress_module.TaskProgress(delay=0, interval=0, stale=0)
    tasks("reading /dev/fd/63", 1 << 20, None)
    tasks("reading /dev/fd/63", 2 << 20, None)
    tasks("scoring topics", 100, 400)
    tasks.close()
    assert "scoring topics:  25%" in capsys.readouterr().err


def test_a_pipe_s_spool_is_told_as_it_is_parsed_and_its_topics_before_their_sort(
    tmp_path, monkeypatch
):
    """332 MB piped in: the spool's bar (0.7 s, no total) was never drawn, then 5 s of
    parsing and 4 s of sorting the topics showed nothing; the parse reads the spool
    told as a file's reading is, and the topics' total is told before their sort."""
    import os
    import threading

    from trecbench import memory
    from trecbench.evaluation import runs

    monkeypatch.setattr(memory, "BLOCK_LINES", 7)  # scored in parts, as a large run is
    lines = "".join(f"q{q} Q0 d{i} {i + 1} {10 - i} t\n" for q in range(30) for i in range(5))
    (tmp_path / "q").write_text("q1 0 d1 1\n")
    os.mkfifo(tmp_path / "pipe")
    calls = []
    sorted_in_parts = runs._scored_in_parts

    def scored_in_parts(*args, **kwargs):
        calls.append(("sorting",))
        yield from sorted_in_parts(*args, **kwargs)

    monkeypatch.setattr(runs, "_scored_in_parts", scored_in_parts)
    writer = threading.Thread(target=(tmp_path / "pipe").write_text, args=(lines,))
    writer.start()
    trecbench.evaluate(
        tmp_path / "q", tmp_path / "pipe", ["P.5"], progress=lambda *c: calls.append(c)
    )
    writer.join()
    size, path = len(lines), f"reading {tmp_path / 'pipe'}"
    read = [call[1:] for call in calls if call[0] == path]
    assert read[0][1] is None and (size, size) in read and read[-1] == (size, size)
    assert calls.index(("scoring topics", 0, 30)) < calls.index(("sorting",))
