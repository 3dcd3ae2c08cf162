"""trecbench.processes: a worker process that dies (killed, e.g. by the system for want of
memory) is one line naming the cause and the way around it, not an internal error."""

from __future__ import annotations

import os
import subprocess

import pytest
from conftest import ROOT

from trecbench import processes
from trecbench.cli import run
from trecbench.errors import ExitCode, WorkerError

QRELS = str(ROOT / "qrels" / "hpo-demo.qrels")
RUNS = [str(ROOT / "runs" / "tfidf-char.run"), str(ROOT / "runs" / "tfidf-word.run")]


def _dies_on_two(item: int) -> int:
    if item == 2:
        os._exit(9)  # as a process the kernel's OOM killer ends: no exception, no cleanup
    return item


def _dies(item: int) -> None:
    os._exit(9)


def test_a_worker_that_dies_is_a_worker_error():
    with pytest.raises(WorkerError) as died:
        list(processes.ordered_map(_dies_on_two, [1, 2, 3], 2))
    # the library's keywords (evaluate(jobs=..., memory=...)), not the command's flags
    assert str(died.value) == (
        "a worker process died (out of memory?): rerun with jobs=1 or a smaller memory"
    )
    assert list(processes.ordered_map(_dies_on_two, [1, 3], 2)) == [1, 3]


def _spills(item: tuple[int, str]) -> str:
    """A worker's temporary folder with a file, its path noted in ``note`` (outside it);
    item 0 fails once item 1's folder exists, item 1 stays busy (a spill in progress)."""
    import tempfile
    import time

    number, note = item
    if number == 0:
        while not os.path.exists(note):
            time.sleep(0.01)
        raise ValueError("the first run failed")
    folder = tempfile.mkdtemp(prefix="trecbench-spill-")
    with open(os.path.join(folder, "part-0.arrow"), "wb") as handle:
        handle.write(b"x" * 1000)
    with open(note, "w") as handle:
        handle.write(folder)
    time.sleep(30)
    return folder


def test_a_workers_temporary_files_go_with_it_however_it_ends(tmp_path, monkeypatch):
    # stopped with SIGTERM (another run's error, the parent ended), a worker removed no
    # spill folder of its own: 80 MB a run were left in TMPDIR
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr("tempfile.tempdir", None)
    note = str(tmp_path / "folder.txt")
    with pytest.raises(ValueError, match="the first run failed"):
        list(processes.ordered_map(_spills, [(0, note), (1, note)], 2))
    folder = open(note).read()
    assert os.path.basename(os.path.dirname(folder)).startswith("trecbench-workers-")
    assert not os.path.exists(folder)
    assert sorted(os.listdir(tmp_path)) == ["folder.txt"]


def test_the_cli_says_so_in_one_line(capsys, monkeypatch):
    # BrokenProcessPool was "internal error (...). Please report it."
    from trecbench import evaluation

    monkeypatch.setattr(evaluation, "_score_in_worker", _dies)
    code = run(["score", "--jobs", "2", QRELS, *RUNS])
    out, err = capsys.readouterr()
    assert (code, out) == (ExitCode.INTERNAL, "")
    assert err == (
        "trecbench: a worker process died (out of memory?): rerun with --jobs 1 or a smaller "
        "--memory\n"
    )


# a parent scoring two items in two workers, each printing its pid first: the second item
# sleeps, the first not, so that one worker waits for work (where SIGINT raised a traceback)
_PARENT = """
import os, sys, time
from trecbench import processes

def started():
    os.write(1, b"%d\\n" % os.getpid())  # one write: the two lines never mix

def sleeps(item):
    time.sleep(30 * (item - 1))

for _ in processes.ordered_map(sleeps, [1, 2], 2, started):
    pass
"""


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"  # a zombie has ended
    except FileNotFoundError:
        return False


def _workers_of_a_parent(**popen):
    import subprocess
    import sys

    parent = subprocess.Popen(
        [sys.executable, "-c", _PARENT], stdout=subprocess.PIPE, text=True, **popen
    )
    return parent, [int(parent.stdout.readline()) for _ in range(2)]


def _ended(pids: list[int], seconds: float = 3.0) -> bool:
    import time

    deadline = time.monotonic() + seconds
    while any(map(_alive, pids)) and time.monotonic() < deadline:
        time.sleep(0.02)
    return not any(map(_alive, pids))


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads /proc")
@pytest.mark.parametrize("name", ["SIGTERM", "SIGHUP", "SIGKILL"])
def test_workers_end_with_their_parent_whatever_ends_it(name):
    """`score --jobs 2` ended by SIGTERM or SIGHUP left its workers asleep for ever."""
    import signal

    parent, workers = _workers_of_a_parent()
    try:
        parent.send_signal(getattr(signal, name))
        assert parent.wait(5) == -getattr(signal, name)
        assert _ended(workers)
    finally:
        for pid in [parent.pid, *workers]:
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
        parent.stdout.close()


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads /proc")
def test_ctrl_c_ends_the_workers_quietly():
    """The terminal sends SIGINT to the whole process group: the workers printed a
    KeyboardInterrupt traceback each; now they ignore it and the parent ends them."""
    import signal

    parent, workers = _workers_of_a_parent(start_new_session=True, stderr=subprocess.PIPE)
    try:
        os.killpg(parent.pid, signal.SIGINT)
        _, err = parent.communicate(timeout=30)  # generous: a loaded machine
        assert parent.returncode == -signal.SIGINT and _ended(workers, 1.0)
        assert err.splitlines()[-1] == "KeyboardInterrupt"  # the parent's own, alone
        assert err.count("Traceback") == 1, err
    finally:
        for pid in [parent.pid, *workers]:
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)


def _evaluate(jobs):
    from trecbench import evaluate
    from trecbench.renderers import trec_format

    return trec_format.render_trec(evaluate(QRELS, RUNS, jobs=jobs))


@pytest.mark.parametrize("jobs", [2, None])
def test_evaluate_in_a_daemonic_pool_worker(jobs, monkeypatch):
    """A multiprocessing.Pool worker cannot have children: evaluate scores the runs itself
    (it raised "daemonic processes are not allowed to have children" once the runs held
    16 MiB, or with jobs=2)."""
    import multiprocessing

    from trecbench import evaluation

    monkeypatch.setattr(evaluation, "PARALLEL_BYTES", 0)  # inherited by the forked pool
    monkeypatch.setattr(processes, "available_cores", lambda: 2)
    with multiprocessing.get_context("fork").Pool(1) as pool:
        assert pool.apply(_evaluate, (jobs,)) == _evaluate(1)


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads /proc")
def test_a_ctrl_c_as_a_worker_starts_leaves_no_worker(monkeypatch):
    """A Ctrl-C just after a worker was started and before the pool noted it left that
    worker waiting for work, and multiprocessing's exit waited for it for ever (the Ctrl-C
    test above hung so once, under load): it now lands once the pool holds every worker,
    which are ended."""
    import signal

    context = processes._context()
    start, started = context.Process.start, []

    def interrupted(process):  # the Ctrl-C lands inside start(), before the pool notes it
        start(process)
        started.append(process.pid)
        if len(started) == 1:
            signal.raise_signal(signal.SIGINT)

    monkeypatch.setattr(context.Process, "start", interrupted)
    try:
        with pytest.raises(KeyboardInterrupt):
            list(processes.ordered_map(abs, [1, 2], 2))
        assert _ended(started) and len(started) == 2
    finally:
        for pid in started:
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)


# `score --jobs 2 --report` in a subprocess, a signal sent to itself just after its first
# fork, in the parent: where it lands as the pool forks its workers
_SIGNALLED_AS_WORKERS_FORK = """
import os, signal, sys, time
from trecbench.cli import main

number = getattr(signal, sys.argv[1])

def signalled(sent=[]):
    if not sent:
        sent.append(number)
        os.kill(os.getpid(), number)
        time.sleep(0.2)  # whichever thread takes it, its handler runs before this returns

os.register_at_fork(after_in_parent=signalled)
sys.argv = ["trecbench", "score", "--jobs", "2", "--report", sys.argv[2], *sys.argv[3:]]
main()
"""


@pytest.mark.skipif(not hasattr(os, "register_at_fork"), reason="forks its workers")
@pytest.mark.parametrize("name", ["SIGTERM", "SIGHUP", "SIGINT"])
def test_a_signal_as_the_workers_fork_ends_the_call(name, tmp_path):
    """A SIGTERM or SIGHUP that landed while os.fork ran its after-fork callbacks raised
    its SystemExit there, where Python ignores it ("Exception ignored in: <function
    _releaseLock>"): the call went on, replaced the report and exited 0. The signals are
    now blocked while the workers are forked, then delivered: the call ends with the
    signal's code, replacing nothing and leaving no folder of its workers."""
    import signal
    import sys

    report = tmp_path / "r.json"
    report.write_text("OLD\n")
    (tmp_path / "tmp").mkdir()
    environment = {**os.environ, "TMPDIR": str(tmp_path / "tmp")}
    done = subprocess.run(
        [sys.executable, "-c", _SIGNALLED_AS_WORKERS_FORK, name, str(report), QRELS, *RUNS],
        env=environment, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 128 + getattr(signal, name), done.stderr
    assert report.read_text() == "OLD\n"
    assert "Exception ignored" not in done.stderr
    assert os.listdir(tmp_path / "tmp") == []
    assert sorted(os.listdir(tmp_path)) == ["r.json", "tmp"]


@pytest.mark.parametrize("name", ["SIGINT", "SIGTERM"])
def test_a_signal_as_the_workers_folder_is_made_leaves_nothing(name, tmp_path, monkeypatch):
    """A signal just after the workers' scratch folder was made, before the pool existed,
    left `trecbench-workers-XXXX` in TMPDIR: it is now made with signals held, and removed
    however the call ends."""
    import signal
    import tempfile

    from trecbench.signals import signals_end_the_call

    make = tempfile.mkdtemp

    def signalled(*args, **kwargs):
        path = make(*args, **kwargs)
        if kwargs.get("prefix") == "trecbench-workers-":
            signal.raise_signal(getattr(signal, name))
        return path

    monkeypatch.setattr(processes.tempfile, "mkdtemp", signalled)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    expected = KeyboardInterrupt if name == "SIGINT" else SystemExit
    with signals_end_the_call(), pytest.raises(expected):
        list(processes.ordered_map(abs, [1, 2], 2))
    assert list(tmp_path.iterdir()) == []
