"""Python's cyclic garbage collector paused while a step builds many objects.

The collector runs whenever allocations outnumber deallocations by a threshold, and each
of its older-generation passes walks every tracked object alive. A step that builds
hundreds of thousands of small lists and dicts (report.html's drill-down: a list per
document of every run's top documents per topic) triggers passes that find nothing to
free, and they grow with what is already alive: over half that step's time on 5,000 topics.
Lists of strings and numbers cannot form cycles, so nothing is lost by deferring; the
collector is resumed (if it was running) when the step ends, and collects then as usual.

And objects left to the process's end, where it ends without freeing anything
(:func:`left_to_exit`); and, in a command's process, young passes made rare
(:func:`collect_rarely`).
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

# what left_to_exit keeps, in a process that ends without tearing the interpreter down
# (leave_to_exit); None in any other
_kept: list | None = None
# the bytes its values were read from, and how many it keeps: score's small path's two
# files at their bound (4 MiB each). Past it they are freed as usual: validate's small
# path reads any number of runs, and keeping each run's fields grew its memory with
# every run (1.5 GB at 30 runs of 3 MB, 88 MB freeing them)
_kept_bytes = 0
KEPT_BYTES = 8 << 20


# a command's process: a young pass after this many allocations (Python's default, 700).
# Starting up and reading allocate hundreds of thousands of objects that live to the end
# (modules, classes, functions, a table's strings), and the passes over them freed
# nothing: 80 young and 7 middle ones, 10 ms of a 200,000-line run's 0.21 s (2.7 ms of a
# 1,000-line run's 0.05 s); at this many, none. Garbage in cycles (rare here) waits at
# most this many allocations
YOUNG_PASS_ALLOCATIONS = 100_000


def collect_rarely() -> None:
    """Make the collector's young passes rare (:data:`YOUNG_PASS_ALLOCATIONS`), its older
    generations' thresholds kept: called by the console script for its one command, never
    by the library (a caller's process keeps its own collector's settings)."""
    _, middle, old = gc.get_threshold()
    gc.set_threshold(YOUNG_PASS_ALLOCATIONS, middle, old)


@contextmanager
def paused() -> Iterator[None]:
    """Pause the cyclic collector for the ``with`` block; resume it after (unless it was
    already disabled by the caller, who then keeps it disabled)."""
    running = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if running:
            gc.enable()


def leave_to_exit() -> None:
    """Let :func:`left_to_exit` keep what it is given to the process's end: called by
    the console script, which ends the process with ``os._exit`` (trecbench.cli._exit),
    which frees nothing."""
    global _kept, _kept_bytes
    _kept, _kept_bytes = [], 0


def left_to_exit(value: Any, size: int) -> None:
    """Keep ``value`` (read from ``size`` bytes) alive to the process's end where it ends
    without freeing anything (:func:`leave_to_exit`), instead of freeing it when its users
    drop it: a small file's hundreds of thousands of field strings take a sixth of the
    small paths' time to free one by one. Only up to :data:`KEPT_BYTES` of files in all:
    what comes past them, and anything anywhere else (Python callers, the tests), is freed
    as usual."""
    global _kept_bytes
    if _kept is not None and _kept_bytes + size <= KEPT_BYTES:
        _kept.append(value)
        _kept_bytes += size
