"""SIGTERM and SIGHUP as exits that clean up: ``SystemExit(128 + signal)`` in the main
thread, as SIGINT raises ``KeyboardInterrupt``, so that ``finally`` blocks and context
managers run (staged outputs, a run's spill folder). Its own module: the command line
installs it for every call, the small-input paths included, without importing
:mod:`trecbench.outputs`."""

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


def _exit(number, frame) -> None:
    raise SystemExit(128 + number)


@contextlib.contextmanager
def signals_end_the_call() -> Iterator[None]:
    """For a whole command: SIGTERM and SIGHUP raise ``SystemExit(128 + signal)`` in the
    main thread, as SIGINT raises ``KeyboardInterrupt``, so that what the call cleans up
    on its way out (staged outputs, a run's spill folder) is cleaned up then too."""
    guard = SignalGuard()
    guard.install()
    try:
        yield
    finally:
        guard.remove()
