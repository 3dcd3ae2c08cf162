"""A signal during a native call that holds the interpreter (pytrec_eval's evaluation):
the console script's command ends at once, where it waited for the call to return; a
signal ignored stays ignored, and from Python nothing changes
(trecbench.signals.ended_at_once)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import trecbench.engines.pytrec_eval as pytrec_engine
from trecbench import publication, signals
from trecbench.cli import run

HANDLED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
needs_proc = pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc")


def _caught(pid: int) -> int:
    """The signals process ``pid`` has a handler for (Linux: /proc/PID/status's SigCgt)."""
    status = Path(f"/proc/{pid}/status").read_text()
    return int(next(line for line in status.splitlines() if line.startswith("SigCgt:"))[7:], 16)


def _evaluating(tmp_path: Path, ignored: tuple[int, ...] = ()) -> subprocess.Popen:
    """``trecbench score -m G`` on qrels graded 999,999 (trec_eval's code, through
    pytrec_eval, takes minutes: its time grows with the square of the largest grade),
    started with Ctrl-C at its default (whatever this process's is: a background job's is
    ignored) and ``ignored`` ignored, returned once it is inside that call: its Ctrl-C
    handler, in place since its start, is taken away (by ended_at_once alone)."""
    qrels, run_file = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("1 0 d1 999999\n1 0 d2 1\n")
    run_file.write_text("1 Q0 d1 1 2.0 t\n1 Q0 d2 2 1.0 t\n")

    def dispositions() -> None:
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        for number in ignored:
            signal.signal(number, signal.SIG_IGN)

    command = [sys.executable, "-m", "trecbench", "score", "-m", "G", str(qrels), str(run_file)]
    child = subprocess.Popen(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, preexec_fn=dispositions
    )
    ctrl_c, seen = 1 << (signal.SIGINT - 1), False
    deadline = time.monotonic() + 120  # a busy machine's imports
    while not (seen and not _caught(child.pid) & ctrl_c):
        seen = seen or bool(_caught(child.pid) & ctrl_c)
        if child.poll() is not None or time.monotonic() > deadline:
            child.kill()
            pytest.fail(f"trecbench score never reached pytrec_eval's call ({child.wait()})")
        time.sleep(0.01)
    return child


@needs_proc
@pytest.mark.parametrize("number", [signal.SIGTERM, signal.SIGINT], ids=["TERM", "INT"])
def test_a_signal_ends_a_command_inside_trec_evals_own_code(tmp_path, number):
    """SIGTERM and Ctrl-C waited for the call to return: now they end it at once."""
    child = _evaluating(tmp_path)
    try:
        child.send_signal(number)
        code = child.wait(timeout=30)
    finally:
        child.kill()
        child.wait()
    assert code == -number  # ended by the signal itself, at once


@needs_proc
def test_a_signal_ignored_stays_ignored_inside_trec_evals_own_code(tmp_path):
    """``nohup trecbench score ...``: SIGHUP ignored, the terminal closing did not end it
    before, nor does it inside the native call (it was set to its default there, and
    killed the command)."""
    child = _evaluating(tmp_path, ignored=(signal.SIGHUP,))
    try:
        child.send_signal(signal.SIGHUP)
        with contextlib.suppress(subprocess.TimeoutExpired):
            child.wait(timeout=1)
        assert child.poll() is None  # still evaluating
        child.send_signal(signal.SIGTERM)
        assert child.wait(timeout=30) == -signal.SIGTERM
    finally:
        child.kill()
        child.wait()


def _handlers() -> dict[int, object]:
    return {number: signal.getsignal(number) for number in HANDLED}


def test_from_python_the_handlers_stay_as_they_are(monkeypatch):
    """No console script (a notebook, a script calling trecbench.cli.run): a native call
    changes no handler, so an interrupt never kills the caller's process, a command's
    handlers in place or not, an output set's while it stages files included."""
    monkeypatch.setattr(signals, "_console_process", None)
    before = _handlers()
    with signals.ended_at_once():
        assert _handlers() == before
    guard = signals.SignalGuard()  # an output set's, while it stages files
    guard.install()
    try:
        staging = _handlers()
        with signals.ended_at_once():
            assert _handlers() == staging
    finally:
        guard.remove()
    with signals.signals_end_the_call():
        command = _handlers()
        with signals.ended_at_once():
            assert _handlers() == command
    assert _handlers() == before


def test_in_the_console_script_only_the_commands_own_handlers_are_replaced(monkeypatch):
    """In the console script's process the command's handlers (Python's Ctrl-C,
    SIGTERM's and SIGHUP's exits) take the default action inside the call and are put
    back after it, however it ends; an ignored signal stays ignored, a held one held; in
    any other process (a forked worker's pid) nothing changes."""
    monkeypatch.setattr(signals, "_console_process", os.getpid())
    before = _handlers()
    try:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.signal(signal.SIGHUP, signal.SIG_IGN)  # nohup
        with signals.signals_end_the_call():
            command = _handlers()
            with signals.ended_at_once():
                assert _handlers() == {
                    signal.SIGINT: signal.SIG_DFL,
                    signal.SIGTERM: signal.SIG_DFL,
                    signal.SIGHUP: signal.SIG_IGN,
                }
            assert _handlers() == command
            with pytest.raises(LookupError), signals.ended_at_once():
                raise LookupError
            assert _handlers() == command
            with publication.signals_held():
                held = _handlers()
                with signals.ended_at_once():
                    assert _handlers() == held
            monkeypatch.setattr(signals, "_console_process", os.getpid() + 1)
            with signals.ended_at_once():
                assert _handlers() == command
    finally:
        for number, handler in before.items():
            signal.signal(number, handler)


def test_trecbench_cli_run_from_python_keeps_its_handlers_in_the_call(
    tmp_path, monkeypatch, capsys
):
    """``trecbench.cli.run`` from Python (a notebook) is a command too, but not the
    console script's: inside pytrec_eval's call its Ctrl-C still raises
    KeyboardInterrupt (the call returns 130), where it killed the caller's process."""
    seen = []

    @contextlib.contextmanager
    def observed():
        with signals.ended_at_once():
            seen.append(signal.getsignal(signal.SIGINT))
            yield

    monkeypatch.setattr(pytrec_engine, "ended_at_once", observed)
    monkeypatch.setattr(signals, "_console_process", None)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    qrels, run_file = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("1 0 d1 2\n1 0 d2 1\n")
    run_file.write_text("1 Q0 d1 1 2.0 t\n1 Q0 d2 2 1.0 t\n")
    try:
        assert run(["score", "-m", "G", str(qrels), str(run_file)]) == 0
    finally:
        signal.signal(signal.SIGINT, previous)
    assert seen == [signals._interrupt]  # Python's own, the signal noted (raise_landed)
    capsys.readouterr()
