"""A signal during a native call that holds the interpreter (pytrec_eval's evaluation):
the command ends at once, where it waited for the call to return; from Python nothing
changes (trecbench.signals.ended_at_once)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from trecbench import signals

TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _cpu_seconds(pid: int) -> float:
    """The user CPU time of process ``pid`` (Linux: /proc/PID/stat's 14th field)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) / TICKS


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
@pytest.mark.parametrize("number", [signal.SIGTERM, signal.SIGINT], ids=["TERM", "INT"])
def test_a_signal_ends_a_command_inside_trec_evals_own_code(tmp_path, number):
    """G on qrels graded 999,999: trec_eval's code (through pytrec_eval) takes minutes,
    its time growing with the square of the largest grade, and held the interpreter, so
    SIGTERM and Ctrl-C waited for it to return. The signal is sent once the command has
    spent a second of CPU time, well inside that call (its imports take a third of one)."""
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("1 0 d1 999999\n1 0 d2 1\n")
    run.write_text("1 Q0 d1 1 2.0 t\n1 Q0 d2 2 1.0 t\n")
    command = [sys.executable, "-m", "trecbench", "score", "-m", "G", str(qrels), str(run)]
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while _cpu_seconds(child.pid) < 1.0:
            assert child.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        child.send_signal(number)
        code = child.wait(timeout=10)
    finally:
        child.kill()
        child.wait()
    assert code == -number  # ended by the signal itself, at once


def test_from_python_the_handlers_stay_as_they_are():
    """No command's handler in place (a notebook, a script): a native call changes no
    handler, so an interrupt never kills the caller's process."""
    before = {n: signal.getsignal(n) for n in (signal.SIGINT, signal.SIGTERM)}
    with signals.ended_at_once():
        assert {n: signal.getsignal(n) for n in before} == before
    guard = signals.SignalGuard()  # an output set's, while it stages files
    guard.install()
    try:
        staging = {n: signal.getsignal(n) for n in before}
        with signals.ended_at_once():
            assert {n: signal.getsignal(n) for n in before} == staging
    finally:
        guard.remove()
    with signals.signals_end_the_call(), signals.ended_at_once():
        assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
        assert signal.getsignal(signal.SIGINT) is signal.SIG_DFL
    assert {n: signal.getsignal(n) for n in before} == before
