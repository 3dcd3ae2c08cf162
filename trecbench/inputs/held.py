"""Errors of a run held in memory (a DataFrame, an Arrow table, a dict): several runs are
each a "run DataFrame", so an error names its run (``run 'mine' (run DataFrame)``), and a
duplicate is cited by the run's rows as its other errors are (a DataFrame's index labels,
else positions from 0), not by lines it has none of."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

from ..errors import DuplicateError, InputError
from .python_objects import index_label


def is_held(source: object) -> bool:
    """Whether ``source`` is a run held in memory (not a file's name, nor a file loaded:
    :class:`trecbench.inputs.Loaded` with its ``path``)."""
    return not isinstance(source, (str, os.PathLike)) and getattr(source, "path", None) is None


def named(name: str, origin: str) -> str:
    """A run held in memory as errors name it: ``run 'mine' (run DataFrame)``."""
    return f"run {name!r} ({origin})"


def renamed(error: InputError, source: object, origin: str) -> InputError:
    """``error`` about ``source``, a run held in memory, from ``origin`` (:func:`named`);
    a duplicate cited by its rows unless the run has lines of its own (a ``line``
    column). What the error carries besides (a partial evaluation) is kept."""
    listing = getattr(error, "listing", None)
    if listing is None or "line" in getattr(source, "columns", ()):
        return error.moved(origin, error.line)
    what, first, second = listing
    index = source.index if hasattr(source, "iloc") else None  # a list's is a method
    if index is not None and not index.is_unique:  # a label would not tell the rows apart
        index = None
    noun = "row" if index is not None or not isinstance(source, list) else "record"

    def row(line: int) -> str:
        return f"{noun} {index_label(index[line - 1]) if index is not None else line - 1}"

    message = f"{row(second)}: duplicate {what} (first at {row(first)})"
    return error.moved(origin, None, message)


@contextlib.contextmanager
def naming(source: object, name: str | None) -> Iterator[None]:
    """Errors raised inside, all about run ``source``, name the run when it is held in
    memory (:func:`renamed`); unchanged for a file, or without a ``name``."""
    try:
        yield
    except InputError as error:
        # other kinds (a validation's several findings) are built otherwise: as they are
        if name is None or not is_held(source) or type(error) not in (InputError, DuplicateError):
            raise
        raise renamed(error, source, named(name, error.path)) from None
