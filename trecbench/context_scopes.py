"""A block that keeps what is said inside it in a context variable: the calling thread's
(and task's) alone, joined by the blocks nested in it."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar


@contextlib.contextmanager
def outermost(variable: ContextVar[dict | None]) -> Iterator[None]:
    """``variable`` set to a new dict for the block, unless a block around it has set it
    (nested blocks join the outermost); None again after it, whatever raised."""
    if variable.get() is not None:
        yield
        return
    token = variable.set({})
    try:
        yield
    finally:
        variable.reset(token)
