"""Errors of a run held in memory (a DataFrame, an Arrow table, a dict): several runs are
each a "run DataFrame", so an error names its run (``run 'mine' (run DataFrame)``), and a
duplicate is cited by the run's rows as its other errors are (a DataFrame's index labels,
else positions from 0), not by lines it has none of."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator, Mapping

import pyarrow as pa

from ..errors import DuplicateError, InputError, UsageError
from .columns import HeldColumnError
from .python_objects import index_label
from .tables import given_lines


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
    if listing is None or _own_lines(source):
        return error.moved(origin, error.line)
    what, first, second = listing
    row = _row_named(source, origin)
    message = f"{row(second)}: duplicate {what} (first at {row(first)})"
    return error.moved(origin, None, message)


def at_row(error: InputError, source: object, origin: str) -> InputError:
    """``error`` at a line of ``source``, an input held in memory, from ``origin``: cited
    by its row as the input's other errors are (``qrels DataFrame: row 1: ...``, not
    ``qrels DataFrame:2``); a dict's by the topic the message names, its line dropped.
    Unchanged when the input has lines of its own (a ``line`` column) or the error none."""
    if error.line is None or _own_lines(source):
        return error.moved(origin, error.line)
    if isinstance(source, Mapping):
        return error.moved(origin, None)
    return error.moved(origin, None, f"{_row_named(source, origin)(error.line)}: {error.message}")


def _own_lines(source: object) -> bool:
    """Whether ``source`` has lines of its own: a ``line`` column that its reading takes
    as line numbers (a DataFrame of ``read_run``'s, an Arrow table's), not one whose
    values are no line numbers (two such frames concatenated: each value twice), whose
    rows are numbered and cited as rows instead."""
    if isinstance(source, pa.Table):
        column = source.column("line") if "line" in source.column_names else None
    else:
        try:
            column = pa.array(source["line"]) if "line" in getattr(source, "columns", ()) else None
        except (pa.ArrowException, TypeError, ValueError):  # not a column Arrow reads
            return "line" in getattr(source, "columns", ())
    return column is not None and given_lines(pa.table({"line": column})) is not None


def _row_named(source: object, origin: str) -> Callable[[int], str]:
    """How errors cite line ``n`` (from 1) of ``source``, held in memory: a DataFrame's
    row by its index label (when the labels are unique), other tables' rows and records
    by their position from 0 (``record 0``), as its reading cites them."""
    index = source.index if hasattr(source, "iloc") else None  # a list's is a method
    if index is not None and not index.is_unique:  # a label would not tell the rows apart
        index = None
    records = isinstance(source, list) or origin.endswith(("records", "records)"))
    noun = "record" if index is None and records else "row"

    def row(line: int) -> str:
        return f"{noun} {index_label(index[line - 1]) if index is not None else line - 1}"

    return row


@contextlib.contextmanager
def naming(source: object, name: str | None) -> Iterator[None]:
    """Errors raised inside, all about run ``source``, name the run when it is held in
    memory (:func:`renamed`; a column it lacks too) or is what no reader takes (None);
    unchanged for a file, or without a ``name``."""
    try:
        yield
    except HeldColumnError as error:
        if name is None or not is_held(source):
            raise
        raise HeldColumnError(named(name, error.origin), error.detail) from None
    except InputError as error:
        # other kinds (a validation's several findings) are built otherwise: as they are
        if name is None or not is_held(source) or type(error) not in (InputError, DuplicateError):
            raise
        raise renamed(error, source, named(name, error.path)) from None
    except UsageError as error:
        # what no reader takes (None, a number, an open file) among runs named in a dict:
        # "cannot read a run from None" said not which
        if name is None or type(error) is not UsageError or isinstance(source, (str, os.PathLike)):
            raise
        raise UsageError(f"run {name!r}: {error}") from None
