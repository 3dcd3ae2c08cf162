"""The input warnings of a call (what the validation gate says of a run or qrels file it
lets through: CRLF line ends, blank lines...), kept as the files are read, each line once,
for the command to say on stderr: a file read twice in one call (agree scores its runs
under two sets of qrels, fuse --optimize evaluates the qrels once per fold) is said once.

Below every reader (it imports nothing): :mod:`trecbench.evaluation` keeps what it reads,
the CLI opens the scope (:func:`kept`) for every command and says the lines
(:func:`unsaid`). Outside a scope nothing is kept: a library call holds its warnings in
its result (``Evaluation.warnings``, ``Loaded.warnings``).
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterable, Iterator

# each line kept in the current call, and whether it was handed out (None: no scope)
_kept: contextvars.ContextVar[dict[str, bool] | None] = contextvars.ContextVar(
    "trecbench_input_warnings", default=None
)


@contextlib.contextmanager
def kept() -> Iterator[None]:
    """Keep the input warnings said inside the block (:func:`keep`) for :func:`unsaid`;
    nested blocks join the outermost."""
    if _kept.get() is not None:
        yield
        return
    token = _kept.set({})
    try:
        yield
    finally:
        _kept.reset(token)


def keep(lines: Iterable[str]) -> None:
    """Keep ``lines`` (a file's input warnings) unless kept already; nothing outside
    :func:`kept`."""
    said = _kept.get()
    if said is not None:
        for line in lines:
            said.setdefault(line, False)


def unsaid() -> list[str]:
    """The lines kept and not handed out yet, in the order first kept; now handed out."""
    said = _kept.get()
    if said is None:
        return []
    lines = [line for line, out in said.items() if not out]
    said.update(dict.fromkeys(lines, True))
    return lines
