"""SIGTERM and SIGHUP as exits that clean up: ``SystemExit(128 + signal)`` in the main
thread, as SIGINT raises ``KeyboardInterrupt``, so that ``finally`` blocks and context
managers run (staged outputs, a run's spill folder). Its own module: the command line
installs it for every call, the small-input paths included, without importing
:mod:`trecbench.outputs`. And during a native call that holds the interpreter, the three
end the command at once (:func:`ended_at_once`)."""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator


class SignalGuard:
    """While files are staged (or a command runs: :func:`signals_end_the_call`), SIGTERM
    and SIGHUP raise ``SystemExit`` in the main thread (SIGINT already raises
    ``KeyboardInterrupt``), so that staged files are removed."""

    SIGNALS = tuple(
        getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name)
    )

    def __init__(self) -> None:
        self.previous: dict[int, object] | None = None

    def install(self) -> None:
        if self.previous is not None or threading.current_thread() is not threading.main_thread():
            return
        self.previous = {}
        for number in self.SIGNALS:
            current = signal.getsignal(number)
            if current in (signal.SIG_DFL, None):
                self.previous[number] = current
                signal.signal(number, _exit)

    def remove(self) -> None:
        if not self.previous:
            self.previous = None
            return
        for number, handler in self.previous.items():
            with contextlib.suppress(ValueError, TypeError):
                signal.signal(number, handler if handler is not None else signal.SIG_DFL)
        self.previous = None


# how many commands run in this process (signals_end_the_call): a signal may end the
# process at once only inside one (ended_at_once), never a Python caller's
_commands = 0


def _exit(number, frame) -> None:
    raise SystemExit(128 + number)


@contextlib.contextmanager
def signals_end_the_call() -> Iterator[None]:
    """For a whole command: SIGTERM and SIGHUP raise ``SystemExit(128 + signal)`` in the
    main thread, as SIGINT raises ``KeyboardInterrupt``, so that what the call cleans up
    on its way out (staged outputs, a run's spill folder) is cleaned up then too."""
    global _commands
    guard = SignalGuard()
    guard.install()
    _commands += 1
    try:
        yield
    finally:
        _commands -= 1
        guard.remove()


@contextlib.contextmanager
def ended_at_once() -> Iterator[None]:
    """For a native call that holds the interpreter (pytrec_eval's evaluation, trec_eval's
    own code): in a command (:func:`signals_end_the_call`), SIGINT, SIGTERM and SIGHUP take
    their default action meanwhile, and end the process at once. Python runs its
    handlers only between bytecodes, so Ctrl-C or ``kill`` waited for the call to return:
    minutes on qrels graded near a million, whose nDCG trec_eval computes in time growing
    with the square of the largest grade. A command killed so leaves what ``kill -9``
    leaves, which its scratch folders and staged outputs are made to survive
    (:mod:`trecbench.scratch`, :mod:`trecbench.publication`). From Python (no command's
    handler in place, an output set's while it stages files included: a notebook's
    interrupt must not kill its kernel) and outside the main thread nothing changes."""
    numbers = (signal.SIGINT, *SignalGuard.SIGNALS)
    if not _commands or threading.current_thread() is not threading.main_thread():
        yield
        return
    handlers = {number: signal.getsignal(number) for number in numbers}
    for number in numbers:
        signal.signal(number, signal.SIG_DFL)
    try:
        yield
    finally:
        for number, handler in handlers.items():
            signal.signal(number, handler)
