"""The input warnings of a call (what the validation gate says of a run or qrels file it
lets through: CRLF line ends, blank lines...), kept as the files are read, each line once,
for the command to say on stderr: a file read twice in one call (agree scores its runs
under two sets of qrels, fuse --optimize evaluates the qrels once per fold) is said once.

Below every reader (it imports nothing): :mod:`trecbench.evaluation` keeps what it reads,
the CLI opens the scope (:func:`kept`) for every command and says the lines
(:func:`unsaid`). A library call's result carries them, scope or not, each line once in
the order read: ``input_warnings`` of an :class:`~trecbench.evaluation.Evaluation` (its
``warnings``) and of the result of every API entry point marked :func:`carried`
(``compare``, ``power``, ``agree``, ``leaderboard``, ``similarity``, ``pool``,
``optimize_fusion``, ``run_benchmark``), ``attrs["input_warnings"]`` of the DataFrame
``fuse`` returns; a loaded input holds its own (``Loaded.warnings``).
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import functools
from collections.abc import Callable, Iterable, Iterator
from typing import ParamSpec, TypeVar

from .context_scopes import outermost

P = ParamSpec("P")
R = TypeVar("R")

# each line kept in the current call, and whether it was handed out (None: no scope)
_kept: contextvars.ContextVar[dict[str, bool] | None] = contextvars.ContextVar(
    "trecbench_input_warnings", default=None
)
# the lines of each API call running (:func:`collected`), the outermost first
_collecting: contextvars.ContextVar[tuple[list[str], ...]] = contextvars.ContextVar(
    "trecbench_collected_input_warnings", default=()
)


@contextlib.contextmanager
def kept() -> Iterator[None]:
    """Keep the input warnings said inside the block (:func:`keep`) for :func:`unsaid`;
    nested blocks join the outermost."""
    with outermost(_kept):
        yield


def keep(lines: Iterable[str]) -> None:
    """Keep ``lines`` (a file's input warnings) unless kept already: for :func:`unsaid`
    inside :func:`kept`, and in each list :func:`collected` yields."""
    lines = tuple(lines)
    said = _kept.get()
    if said is not None:
        for line in lines:
            said.setdefault(line, False)
    for collecting in _collecting.get():
        collecting.extend(line for line in dict.fromkeys(lines) if line not in collecting)


@contextlib.contextmanager
def collected() -> Iterator[list[str]]:
    """The input warnings kept inside the block (:func:`keep`), each line once in the
    order first kept, whether or not a scope (:func:`kept`) is open."""
    lines: list[str] = []
    token = _collecting.set((*_collecting.get(), lines))
    try:
        yield lines
    finally:
        _collecting.reset(token)


def carried(function: Callable[P, R]) -> Callable[P, R]:
    """Decorator for API entry points: the result carries the input warnings of the call
    (:func:`collected`), a dataclass in its field ``input_warnings``, a DataFrame in
    ``attrs["input_warnings"]``, as a tuple."""

    @functools.wraps(function)
    def carrying(*args: P.args, **kwargs: P.kwargs) -> R:
        with collected() as lines:
            result = function(*args, **kwargs)
        if dataclasses.is_dataclass(result):
            return dataclasses.replace(result, input_warnings=tuple(lines))
        result.attrs["input_warnings"] = tuple(lines)  # pandas' metadata of a frame
        return result

    return carrying


def unsaid() -> list[str]:
    """The lines kept and not handed out yet, in the order first kept; now handed out."""
    said = _kept.get()
    if said is None:
        return []
    lines = [line for line, out in said.items() if not out]
    said.update(dict.fromkeys(lines, True))
    return lines
