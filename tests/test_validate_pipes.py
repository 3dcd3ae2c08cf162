"""trecbench validate on pipes and FIFOs: a signal ends it while it waits for data."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

needs_fifos = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")

# the command line as a terminal starts it: Ctrl-C raises KeyboardInterrupt (a test run in
# the background of a non-interactive shell inherits SIGINT ignored)
_VALIDATE = """
import signal, sys
signal.signal(signal.SIGINT, signal.default_int_handler)
from trecbench.cli import main
sys.argv = ["trecbench", "validate", *sys.argv[1:]]
main()
"""


def _validate(*args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", _VALIDATE, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )


def _ends_on(child: subprocess.Popen, name: str) -> tuple[int, bytes]:
    """Send ``child`` the signal ``name``; its exit code and stderr (killed after 30 s)."""
    child.send_signal(getattr(signal, name))
    try:
        _, err = child.communicate(timeout=30)  # generous: a loaded machine
    except subprocess.TimeoutExpired:
        child.kill()
        child.communicate()
        pytest.fail(f"validate still waited for its input 30 s after {name}")
    return child.returncode, err


@needs_fifos
@pytest.mark.parametrize("name", ["SIGTERM", "SIGINT", "SIGHUP"])
def test_a_signal_ends_validate_waiting_for_data(name, tmp_path):
    """The reading thread waits in read() of a FIFO its writer has opened and writes
    nothing into (`(sleep 20; cat a.run) | validate -`): the signal was taken, and
    validate then waited for that thread until data came."""
    fifo = tmp_path / "run.fifo"
    os.mkfifo(fifo)
    child = _validate(str(fifo))
    writer = os.open(fifo, os.O_WRONLY)  # returns once validate has opened it
    try:
        time.sleep(0.2)  # validate's reading thread waits in read(), its main thread for it
        code, err = _ends_on(child, name)
    finally:
        os.close(writer)
    expected = 130 if name == "SIGINT" else 128 + getattr(signal, name)
    assert code == expected, err
    assert err == (b"trecbench: interrupted\n" if name == "SIGINT" else b"")


def _waits_for_a_writer(pid: int) -> bool:
    """Whether a thread of ``pid`` waits in open() of a FIFO for its writer (where
    Linux's /proc tells: elsewhere, True)."""
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return True
    for task in tasks:
        try:
            if Path(f"/proc/{pid}/task/{task}/wchan").read_text() in (
                "wait_for_partner",
                "fifo_open",
            ):
                return True
        except OSError:
            continue
    return False


@needs_fifos
def test_sigterm_ends_validate_waiting_for_a_fifos_writer(tmp_path):
    """`mkfifo nf; validate nf`: the reading thread waits in open() for a writer that
    never comes; SIGTERM ended nothing until one came."""
    fifo = tmp_path / "run.fifo"
    os.mkfifo(fifo)
    child = _validate(str(fifo))
    deadline = time.monotonic() + 30
    while not _waits_for_a_writer(child.pid) and time.monotonic() < deadline:
        time.sleep(0.02)
    time.sleep(0.2)
    code, err = _ends_on(child, "SIGTERM")
    assert code == 128 + signal.SIGTERM, err


def _pipe_holding(data: bytes) -> int:
    """The read end of a pipe holding ``data`` (its writer closed)."""
    read, write = os.pipe()
    os.write(write, data)
    os.close(write)
    return read


@pytest.mark.skipif(not os.path.isdir("/dev/fd"), reason="names pipes /dev/fd/N")
@pytest.mark.parametrize(
    "argv",
    [
        ["validate", "{p}", "{p}"],
        ["validate", "{p}", "--qrels", "{p}"],
        ["validate", "--qrels", "{p}", "--topics", "{p}"],
        ["score", "{p}", "{p}"],
    ],
)
def test_one_pipe_given_twice_is_refused(argv, tmp_path, capsys):
    """`validate /dev/fd/3 /dev/fd/3 3< <(cat a.run)` validated the first and then said
    `/dev/fd/3: error[R26]: empty file`, where `validate - -` is refused: a pipe, as
    standard input, can be read once; told by the file's identity, as `-` is."""
    from trecbench.cli import run

    pipe = _pipe_holding(b"q1 Q0 a 1 2 t\n")
    try:
        name = f"/dev/fd/{pipe}"
        code = run([arg.format(p=name) for arg in argv])
    finally:
        os.close(pipe)
    out, err = capsys.readouterr()
    assert (code, out) == (1, "")
    assert f"trecbench: {name}: a pipe, given" in err  # one wording, whatever the command
    assert err.count("\n") == 1


@pytest.mark.skipif(not os.path.isdir("/dev/fd"), reason="names pipes /dev/fd/N")
def test_two_pipes_and_one_file_twice_are_validated(tmp_path, capsys):
    from trecbench.cli import run

    run_file = tmp_path / "a.run"
    run_file.write_bytes(b"q1 Q0 a 1 2 t\n")
    pipes = [_pipe_holding(b"q1 Q0 a 1 2 t\n") for _ in range(2)]
    try:
        assert run(["validate", *(f"/dev/fd/{pipe}" for pipe in pipes)]) == 0
        assert run(["validate", str(run_file), str(run_file)]) == 0  # read again: no pipe
    finally:
        for pipe in pipes:
            os.close(pipe)
    assert "OK: 2 file(s), 2 lines" in capsys.readouterr().out
