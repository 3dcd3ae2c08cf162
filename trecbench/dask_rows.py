"""How a run given as a Dask DataFrame cites its rows in an error, as one process cites a
pandas DataFrame's (:mod:`trecbench.inputs.held`): by its index labels, else positions,
unless its ``line`` column holds line numbers across the frame. What it asks of the frame
is computed on the cluster (two labels, counts), never the whole index on the client."""

from __future__ import annotations

from itertools import accumulate

import dask

from .errors import DuplicateError, InputError
from .inputs.python_objects import index_label


def named_frame(error: InputError, label: str, frame) -> InputError:
    """``error`` of the Dask DataFrame ``frame``, a run (its rows numbered from 1 across
    the frame), naming the run (``label``); a duplicate cited by the frame's rows as one
    process cites a pandas DataFrame's (its index labels when they are unique, else its
    positions from 0: ``row 400 ... (first at row 100)``; :mod:`trecbench.inputs.held`),
    not as ``label:4`` and ``line 1``, unless its ``line`` column holds line numbers; an
    error of another kind (built otherwise) as it is. What it asks of the frame is
    computed on the cluster: two labels, and counts (the whole index, brought to the
    client, took 4.7 GB of 40M string labels)."""
    if type(error) not in (InputError, DuplicateError):
        return error
    listing = getattr(error, "listing", None)
    if listing is None or has_line_numbers(frame):
        return error.moved(label, error.line)
    what, first, second = listing
    labels = _labels(frame, [first - 1, second - 1])
    if labels is None:  # labels that do not tell the rows apart: positions from 0
        labels = [first - 1, second - 1]
    else:
        labels = [index_label(value) for value in labels]
    message = f"row {labels[1]}: duplicate {what} (first at row {labels[0]})"
    return error.moved(label, None, message)


def has_line_numbers(frame) -> bool:
    """Whether ``frame``'s ``line`` column holds line numbers, as one process decides it
    of a pandas DataFrame (:func:`~trecbench.inputs.tables.given_lines`): integers from 1,
    none missing, each once."""
    if "line" not in frame.columns or frame["line"].dtype.kind not in "iu":
        return False
    line = frame["line"]
    rows, missing, least, distinct = dask.compute(
        line.size, line.isna().sum(), line.min(), line.nunique()
    )
    return not missing and (not rows or least >= 1) and distinct == rows


def _labels(frame, positions: list[int]) -> list | None:
    """The index labels of ``frame``'s rows at ``positions`` (from 0), each read from its
    own partition; None when the index holds a label twice."""
    index = frame.index.to_series()
    rows, distinct, lengths = dask.compute(index.size, index.nunique(), frame.map_partitions(len))
    if distinct != rows:
        return None
    starts = list(accumulate(lengths, initial=0))
    labels = []
    for position in positions:
        part = next(k for k in range(len(lengths)) if position < starts[k + 1])
        labels.append(frame.partitions[part].index.compute()[position - starts[part]])
    return labels
