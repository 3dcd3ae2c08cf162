"""Work spread over processes: several runs scored at once, one per process at a time.

:func:`ordered_map` runs a function over items in worker processes and yields the
results in the items' order, so that what is printed is what the sequential loop prints;
an item's error is raised when its turn comes (the items after it are dropped, as the
sequential loop never reaches them). Workers are forked where the system can (Linux): what
the parent prepared (parsed qrels, measures) is shared with them without a copy or a
second parse; elsewhere they are spawned and the ``initargs`` are pickled once per worker.

Workers end with their parent, whatever ends it (:func:`end_with_parent`): on Linux the
kernel kills them when it dies (even by SIGKILL), elsewhere a thread of theirs watches it.
They ignore Ctrl-C (the terminal sends SIGINT to the whole process group): the parent
alone is interrupted, and stops them, so that no worker prints a traceback. Their
temporary files (a run's spill folder) are in a folder of the parent's, which it removes
once they are ended, however they end. A process
that cannot have children (a daemonic ``multiprocessing`` worker) computes the items
itself (:func:`can_start_children`).
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from typing import Any

from .errors import Setting, WorkerError
from .scratch import Scratch, sweep

_PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
_WATCH_SECONDS = 0.5  # how often a watchdog looks at its parent where no kernel does
# items computed in a process that cannot have children: one call at a time, since the
# initializer sets up what the function reads (the module state of a worker)
_IN_PROCESS = threading.Lock()
TICK = 0.2  # seconds between ordered_map's calls of `waiting` while a result is awaited


def available_cores() -> int:
    """The cores this process may run on (its CPU affinity where the system tells)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0)) or 1
    return os.cpu_count() or 1


def can_start_children() -> bool:
    """Whether this process may start worker processes: a daemonic one (a
    ``multiprocessing.Pool`` worker) may not (``AssertionError: daemonic processes are not
    allowed to have children``)."""
    return not multiprocessing.current_process().daemon


@contextmanager
def signals_held() -> Iterator[None]:
    """Ctrl-C (and SIGTERM, SIGHUP) held off while the block runs, then delivered
    (:func:`trecbench.publication.signals_held`): what the block starts is whole when one
    lands, and can be closed. And Ctrl-C held for good by every thread and process the
    block starts from this thread (a signal mask is inherited), so that no process it
    starts takes a Ctrl-C before it can set itself to ignore it. Where threads have no
    signal mask (Windows) only the first holds."""
    from .publication import signals_held as handlers_held

    with handlers_held():
        if hasattr(signal, "pthread_sigmask"):
            # multiprocessing's resource tracker started first, if it was not: the thread
            # that starts it has Ctrl-C unblocked afterwards, and the threads it starts
            # inherit that
            from multiprocessing import resource_tracker

            resource_tracker.ensure_running()
        with _blocked((signal.SIGINT,)):
            yield


@contextmanager
def _blocked(numbers: tuple[int, ...]) -> Iterator[None]:
    """The signals ``numbers`` blocked in this thread's signal mask inside the block (and
    in every thread and process started from it, which inherit the mask), unblocked after:
    one sent meanwhile is delivered then. Nothing where threads have no mask (Windows)."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, numbers)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)


def _context():
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else "spawn")


def ordered_map(
    function: Callable[[Any], Any],
    items: Iterable[Any],
    jobs: int,
    initializer: Callable[..., None] | None = None,
    initargs: tuple = (),
    waiting: Callable[[list[bool]], None] | None = None,
) -> Iterator[Any]:
    """``function(item)`` for every item, computed in ``jobs`` worker processes (each
    set up once by ``initializer(*initargs)``), yielded in the items' order. A worker that
    dies (killed, e.g. out of memory) is a :class:`WorkerError`. Where no worker can be
    started (:func:`can_start_children`) the items are computed here, in turn.
    ``waiting(finished)``, if given, is called in this thread every :data:`TICK` seconds
    while a result is awaited, and once it has come, with whether each item is finished
    (a caller's progress, which workers cannot draw)."""
    if not can_start_children():
        yield from _here(function, items, initializer, initargs)
        return
    scratch = pool = None
    sweep(tempfile.gettempdir())  # what a killed call left (gigabytes, perhaps): Ctrl-C heard
    try:
        # signals held from here: the scratch folder and the pool are noted as they are
        # made, so that whatever ends the call removes the one and stops the other
        with _workers_starting():
            # the workers' temporary files (a run's spill folder) go here, removed once
            # they are ended: a worker stopped (SIGTERM) or killed does not remove its own.
            # Locked while this call lives: one a SIGKILL leaves, the next call removes
            scratch = Scratch("trecbench-workers-")
            pool = ProcessPoolExecutor(
                max_workers=jobs,
                mp_context=_context(),
                initializer=_start_worker,
                initargs=(os.getpid(), scratch.path, initializer, initargs),
            )
            futures = [pool.submit(function, item) for item in items]  # workers forked
        for future in futures:
            while waiting is not None and not future.done():
                wait([future], timeout=TICK)
                waiting([each.done() for each in futures])
            yield future.result()
    except BrokenProcessPool:
        _stop(pool)
        raise WorkerError(  # a library caller is told of its keywords, the CLI of its flags
            "a worker process died (out of memory?): rerun with ",
            Setting("jobs", 1),
            " or a smaller ",
            Setting("memory"),
        ) from None
    except BaseException:  # an item's error, Ctrl-C, or the caller stopped (GeneratorExit)
        if pool is not None:
            _stop(pool)  # nothing more is computed, and no worker is left behind
        raise
    else:
        pool.shutdown()
    finally:
        if scratch is not None:
            scratch.close()


@contextmanager
def _workers_starting() -> Iterator[None]:
    """SIGINT, SIGTERM and SIGHUP held off while the pool is made and forks its workers,
    then delivered, once the pool holds every worker:

    * in this process by handlers that note them (any of its threads may take a signal
      the process is sent): a handler that raised (SIGTERM's ``SystemExit``) inside
      ``os.fork`` raised in its after-fork callbacks, where Python ignores the exception,
      and the call went on to exit 0; and a Ctrl-C that landed after a worker started and
      before the pool noted it left that worker out of :func:`_stop`, waiting for work,
      and multiprocessing's exit waited for it for ever;
    * in the workers by the signal mask they inherit, until :func:`_start_worker` has set
      their own handlers and unblocks them (a SIGTERM from :func:`_stop` meanwhile ends
      the worker then, where an inherited handler would have noted it and gone on)."""
    from .publication import HELD_OFF
    from .publication import signals_held as handlers_held

    with handlers_held(), _blocked(HELD_OFF):
        yield


def _here(function, items, initializer, initargs) -> Iterator[Any]:
    """:func:`ordered_map` in this process: every result computed (up to the first error)
    before any is yielded, so that the lock is never held by a suspended generator."""
    results, failure = [], None
    with _IN_PROCESS:
        if initializer is not None:
            initializer(*initargs)
        for item in items:
            try:
                results.append(function(item))
            except Exception as error:  # noqa: BLE001 - raised when its turn comes
                failure = error
                break
    yield from results
    if failure is not None:
        raise failure


def _stop(pool: ProcessPoolExecutor) -> None:
    """End ``pool`` now: queued items dropped, running ones abandoned, workers ended."""
    workers = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for worker in workers:
        if worker.is_alive():
            worker.terminate()
    for worker in workers:
        worker.join()


def _start_worker(
    parent: int, scratch: str, initializer: Callable[..., None] | None, initargs: tuple
):
    """What every worker does first: end with its parent, leave Ctrl-C to it (and SIGTERM
    and SIGHUP to their default, ending quietly, whatever handlers it inherited), keep its
    temporary files in the parent's ``scratch`` folder (which the parent removes)."""
    from .publication import HELD_OFF

    end_with_parent(parent)
    tempfile.tempdir = scratch
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for name in ("SIGTERM", "SIGHUP"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), signal.SIG_DFL)
    if hasattr(signal, "pthread_sigmask"):  # blocked as it was forked: a SIGTERM from
        signal.pthread_sigmask(signal.SIG_UNBLOCK, HELD_OFF)  # _stop meanwhile ends it now
    if initializer is not None:
        initializer(*initargs)


def end_with_parent(parent: int) -> None:
    """Have this process killed when process ``parent`` (its parent) ends, whatever ends
    it: the kernel's parent-death signal on Linux, else a watchdog thread.

    The kernel sends the signal when the *thread* that started this process ends: the one
    that submitted work to the pool, which waits for the results."""
    if sys.platform.startswith("linux") and _parent_death_signal(signal.SIGKILL):
        if os.getppid() != parent:  # it died before the signal was asked for
            os._exit(1)
        return
    threading.Thread(target=_watch, args=(parent,), name="parent-watchdog", daemon=True).start()


def _parent_death_signal(number: int) -> bool:
    """``prctl(PR_SET_PDEATHSIG, number)``; whether it took."""
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(_PR_SET_PDEATHSIG, number, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _watch(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(_WATCH_SECONDS)
    os._exit(1)
