"""Python's cyclic garbage collector paused while a step builds many objects.

The collector runs whenever allocations outnumber deallocations by a threshold, and each
of its older-generation passes walks every tracked object alive. A step that builds
hundreds of thousands of small lists and dicts (report.html's drill-down: a list per
document of every run's top documents per topic) triggers passes that find nothing to
free, and they grow with what is already alive: over half that step's time on 5,000 topics.
Lists of strings and numbers cannot form cycles, so nothing is lost by deferring; the
collector is resumed (if it was running) when the step ends, and collects then as usual.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


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
