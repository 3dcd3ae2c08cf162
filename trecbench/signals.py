"""SIGTERM and SIGHUP as exits that clean up: ``SystemExit(128 + signal)`` in the main
thread, as SIGINT raises ``KeyboardInterrupt``, so that ``finally`` blocks and context
managers run (staged outputs, a run's spill folder). Its own module: the command line
installs it for every call, the small-input paths included, without importing
:mod:`trecbench.outputs`. And during a native call that holds the interpreter, the three
end the command at once (:func:`ended_at_once`)."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Iterator
from functools import partial


class SignalGuard:
    """While files are staged (or a command runs: :func:`signals_end_the_call`), SIGTERM
    and SIGHUP raise ``SystemExit`` in the main thread (SIGINT already raises
    ``KeyboardInterrupt``), so that staged files are removed."""

    SIGNALS = tuple(
        getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name)
    )

    def __init__(self) -> None:
        self.previous: dict[int, object] | None = None
        self.hook = None  # sys.unraisablehook before the outermost guard's

    def install(self) -> None:
        if self.previous is not None or threading.current_thread() is not threading.main_thread():
            return
        if not _guarded():  # the outermost guard: what an earlier call saw is no news
            _landed.clear()
            self.hook = sys.unraisablehook
            sys.unraisablehook = partial(_quiet_when_signalled, self.hook)
        self.previous = {}
        for number in self.SIGNALS:
            current = signal.getsignal(number)
            if current in (signal.SIG_DFL, None):
                self.previous[number] = current
                signal.signal(number, _exit)
        if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            self.previous[signal.SIGINT] = signal.default_int_handler
            signal.signal(signal.SIGINT, _interrupt)

    def remove(self) -> None:
        if self.hook is not None:
            sys.unraisablehook, self.hook = self.hook, None
        if not self.previous:
            self.previous = None
            return
        for number, handler in self.previous.items():
            with contextlib.suppress(ValueError, TypeError):
                signal.signal(number, handler if handler is not None else signal.SIG_DFL)
        self.previous = None
        if not _guarded():
            _landed.clear()  # the outermost guard: what its call saw ends with it


# the process of the console script (native_calls_end_at_once), whose command alone it runs:
# a signal may end a process at once (ended_at_once) in it alone, never in a Python
# caller's (a notebook calling trecbench.cli.run) nor in a worker's
_console_process: int | None = None


def take_ctrl_c() -> None:
    """Ctrl-C as ``KeyboardInterrupt`` from here, where the console script's start-up
    ended the process on it (``trecbench.__main__``'s handler, marked ``handed_over``):
    called inside the command line's guard, which says it and cleans up."""
    if getattr(signal.getsignal(signal.SIGINT), "handed_over", False):
        signal.signal(signal.SIGINT, signal.default_int_handler)


# the signals whose handlers (SignalGuard's) raised, in order: a handler that runs inside
# a finalizer (weakref.finalize, __del__) has its exception ignored by Python, and the
# call went on to replace its outputs and exit 0 (raise_landed tells it)
_landed: list[int] = []


def _exit(number, frame) -> None:
    _landed.append(number)
    raise SystemExit(128 + number)


def _interrupt(number, frame) -> None:
    _landed.append(number)
    signal.default_int_handler(number, frame)


def _guarded() -> bool:
    """Whether a guard's handlers are installed (a call of the main thread runs)."""
    return any(signal.getsignal(number) in (_exit, _interrupt) for number in _OWN_HANDLERS)


def raise_landed() -> None:
    """Raise again what the last signal landed raised (``KeyboardInterrupt``,
    ``SystemExit(128 + signal)``), if one landed: outputs are about to be committed, and
    a call that goes on past a signal was not ended by it (its exception ignored)."""
    number = landed()
    if number == signal.SIGINT:
        raise KeyboardInterrupt
    if number is not None:
        raise SystemExit(128 + number)


def landed() -> int | None:
    """The last signal whose handler raised in this call, if any (see :func:`raise_landed`):
    only the main thread's calls have handlers, and see what landed in them."""
    if threading.current_thread() is not threading.main_thread() or not _landed:
        return None
    return _landed[-1]


def _quiet_when_signalled(before, unraisable) -> None:
    """sys.unraisablehook under a guard: a signal's exception raised where Python ignores
    it (a finalizer) is noted already (:func:`raise_landed` ends the call), not printed as
    a traceback; anything else goes to the hook ``before``."""
    if isinstance(unraisable.exc_value, (KeyboardInterrupt, SystemExit)) and _landed:
        return
    before(unraisable)


# each signal's handlers in a command (signals_end_the_call's; SIGINT's, Python's own too)
_OWN_HANDLERS = {signal.SIGINT: (signal.default_int_handler, _interrupt)} | dict.fromkeys(
    SignalGuard.SIGNALS, (_exit,)
)


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


def native_calls_end_at_once() -> None:
    """Let :func:`ended_at_once` end this process at once: called by the console script
    (trecbench.cli.main), whose process runs one command and ends with it."""
    global _console_process
    _console_process = os.getpid()


@contextlib.contextmanager
def ended_at_once() -> Iterator[None]:
    """For a native call that holds the interpreter (pytrec_eval's evaluation, trec_eval's
    own code): in the console script's command (:func:`native_calls_end_at_once`), SIGINT,
    SIGTERM and SIGHUP take their default action meanwhile, and end the process at once.
    Python runs its handlers only between bytecodes, so Ctrl-C or ``kill`` waited for the
    call to return: minutes on qrels graded near a million, whose nDCG trec_eval computes
    in time growing with the square of the largest grade. A command killed so leaves what
    ``kill -9`` leaves, which its scratch folders and staged outputs are made to survive
    (:mod:`trecbench.scratch`, :mod:`trecbench.publication`). Only the command's own
    handlers are replaced (Python's Ctrl-C, :func:`signals_end_the_call`'s): a signal
    ignored (``nohup``'s SIGHUP, a background job's or a worker's Ctrl-C) stays ignored,
    and one held off (:func:`trecbench.publication.signals_held`) stays held. From Python
    (:func:`trecbench.cli.run` included: a notebook's interrupt must not kill its kernel),
    in a worker process and outside the main thread nothing changes."""
    replaced = {}
    try:  # a signal landing as the handlers are swapped still has those swapped put back
        if (
            os.getpid() == _console_process
            and threading.current_thread() is threading.main_thread()
        ):
            for number, handlers in _OWN_HANDLERS.items():
                handler = signal.getsignal(number)
                if any(handler is own for own in handlers):
                    replaced[number] = handler  # noted before it is replaced
                    signal.signal(number, signal.SIG_DFL)
        yield
    finally:
        for number, handler in replaced.items():
            signal.signal(number, handler)
