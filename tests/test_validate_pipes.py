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
    assert err.strip() in (b"", b"trecbench: interrupted")  # click ends a ^C's line first


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
