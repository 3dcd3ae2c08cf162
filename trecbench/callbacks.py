"""The progress callbacks public functions take (``progress(label, done, total)``), and the
check each makes of one first: a value that is no function was a raw "'int' object is not
callable" from wherever the first step was told, after work had begun, and a function of
too few parameters (``lambda done, total: ...``) a raw TypeError from there too."""

from __future__ import annotations

import inspect
from collections.abc import Callable

from .errors import UsageError
from .type_names import python_type

# ``progress(done, total)``: one job's steps (total None: unknown, a pipe's bytes)
Progress = Callable[[int, "int | None"], None]
# ``progress(label, done, total)``: a command's bars, each job told by its label
LabelledProgress = Callable[[str, int, "int | None"], None]


def refuse_uncallable(value: object, call: str = "progress(label, done, total)") -> None:
    """Refuse, in one line naming the argument and how it is called, a progress callback
    that is neither a function nor None, or a function that cannot be called as ``call``
    says (``call``: its name and arguments as documented and as the caller passes them,
    ``read_progress(path, done, total)``). No bool is taken: True is no function."""
    if value is None:
        return
    name, _, arguments = call.partition("(")
    if not callable(value):
        raise UsageError(f"{name} must be a function {call} or None, not {python_type(value)}")
    taken = _parameters(value)
    count = len([part for part in arguments.rstrip(")").split(",") if part.strip()])
    if taken is not None and not _binds(taken, count):
        raise UsageError(
            f"{name} must be a function {call} or None, not one taking {taken}: it is called "
            f"with {count} positional arguments"
        )


def _parameters(function: Callable) -> inspect.Signature | None:
    """``function``'s parameters, without their annotations (what a message shows of
    them); None where Python cannot tell them (some builtins and C functions): such a
    callable is taken, unchecked, rather than refused for what cannot be known."""
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return None
    empty = inspect.Parameter.empty
    plain = [p.replace(annotation=empty) for p in signature.parameters.values()]
    return signature.replace(parameters=plain, return_annotation=empty)


def _binds(signature: inspect.Signature, count: int) -> bool:
    """Whether ``count`` positional arguments bind to ``signature``."""
    try:
        signature.bind(*range(count))
    except TypeError:
        return False
    return True
