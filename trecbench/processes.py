"""Work spread over processes: several runs scored at once, one per process at a time.

:func:`ordered_map` runs a function over items in worker processes and yields the
results in the items' order, so that what is printed is what the sequential loop prints;
an item's error is raised when its turn comes (the items after it are dropped, as the
sequential loop never reaches them). Workers are forked where the system can (Linux): what
the parent prepared (parsed qrels, measures) is shared with them without a copy or a
second parse; elsewhere they are spawned and the ``initargs`` are pickled once per worker.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from .errors import WorkerError


def available_cores() -> int:
    """The cores this process may run on (its CPU affinity where the system tells)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0)) or 1
    return os.cpu_count() or 1


def _context():
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else "spawn")


def ordered_map(
    function: Callable[[Any], Any],
    items: Iterable[Any],
    jobs: int,
    initializer: Callable[..., None] | None = None,
    initargs: tuple = (),
) -> Iterator[Any]:
    """``function(item)`` for every item, computed in ``jobs`` worker processes (each
    set up once by ``initializer(*initargs)``), yielded in the items' order. A worker that
    dies (killed, e.g. out of memory) is a :class:`WorkerError`."""
    try:
        with ProcessPoolExecutor(
            max_workers=jobs, mp_context=_context(), initializer=initializer, initargs=initargs
        ) as pool:
            futures = [pool.submit(function, item) for item in items]
            try:
                for future in futures:
                    yield future.result()
            finally:
                for future in futures:
                    future.cancel()  # an error, or the caller stopped: nothing more starts
    except BrokenProcessPool:
        raise WorkerError(
            "a worker process died (out of memory?): rerun with --jobs 1 or a smaller --memory"
        ) from None
