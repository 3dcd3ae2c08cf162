"""The progress callbacks public functions take (``progress(label, done, total)``), and the
check each makes of one first: a value that is no function was a raw "'int' object is not
callable" from wherever the first step was told, after work had begun."""

from __future__ import annotations

from collections.abc import Callable

from .errors import UsageError
from .type_names import python_type

# ``progress(done, total)``: one job's steps (total None: unknown, a pipe's bytes)
Progress = Callable[[int, "int | None"], None]
# ``progress(label, done, total)``: a command's bars, each job told by its label
LabelledProgress = Callable[[str, int, "int | None"], None]


def refuse_uncallable(value: object, call: str = "progress(label, done, total)") -> None:
    """Refuse, in one line naming the argument and how it is called, a progress callback
    that is neither a function nor None (``call``: its name and arguments as documented,
    ``read_progress(path, done, total)``). No bool is taken: True is no function."""
    if value is not None and not callable(value):
        name = call.partition("(")[0]
        raise UsageError(f"{name} must be a function {call} or None, not {python_type(value)}")
