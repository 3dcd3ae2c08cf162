"""A comparison's tables (summary, comparisons, pairs, movers) split by section.

Every renderer asks for one section's rows of a table at a time; filtering the whole table
on each ask made a report of many strata quadratic in them (the Markdown of 2,000 strata
took 41 s), as did converting each section's rows to dicts apart. Within one rendering
(:func:`split_once`) each table is split once. What is kept belongs to the rendering's
thread (a context variable), not to the comparison: another thread's rendering of the same
comparison, or a copy of it, never reads it."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

import numpy as np
import pandas as pd

from ..context_scopes import outermost

# within split_once(): per table (by identity: what is kept holds the table, so that no
# other takes its identity meanwhile) its rows by section
_KEPT: ContextVar[dict[int, SectionRows] | None] = ContextVar("section_rows", default=None)


@contextmanager
def split_once() -> Iterator[None]:
    """Within it, each table read by section is split once (the tables must not change
    meanwhile); outside it, each read splits the table as it is then. A scope within
    another is the outer one's."""
    with outermost(_KEPT):
        yield


class SectionRows:
    """One table's rows by section label: their positions (``frame.iloc``) and, when
    first asked for, the whole table as dicts of Python scalars."""

    def __init__(self, frame: pd.DataFrame):
        self.frame = frame
        self.positions: dict[str, np.ndarray] = frame.groupby("stratum", sort=False).indices
        self._records: list[dict] | None = None

    def frame_of(self, label: str) -> pd.DataFrame | None:
        """The section's rows as a table (its index as the whole table's); None: none."""
        positions = self.positions.get(label)
        return None if positions is None else self.frame.iloc[positions]

    def records_of(self, label: str) -> list[dict] | None:
        """The section's rows as new dicts of Python scalars (``to_dict("records")``'s);
        None: none."""
        positions = self.positions.get(label)
        if positions is None:
            return None
        if self._records is None:
            self._records = self.frame.to_dict(orient="records")
        return [dict(self._records[position]) for position in positions]


def section_frame(frame: pd.DataFrame, label: str) -> pd.DataFrame | None:
    """``frame``'s rows of section ``label`` (None: it has none): split once within
    :func:`split_once`, else filtered from the table as it is."""
    kept = _kept(frame)
    if kept is not None:
        return kept.frame_of(label)
    rows = frame[frame["stratum"] == label]
    return None if rows.empty else rows


def section_records(frame: pd.DataFrame, label: str) -> list[dict] | None:
    """:func:`section_frame`'s rows as dicts of Python scalars (None: it has none)."""
    kept = _kept(frame)
    if kept is not None:
        return kept.records_of(label)
    rows = section_frame(frame, label)
    return None if rows is None else rows.to_dict(orient="records")


def _kept(frame: pd.DataFrame) -> SectionRows | None:
    """``frame``'s rows split within :func:`split_once` (split now if not yet); None
    outside it."""
    kept = _KEPT.get()
    if kept is None:
        return None
    rows = kept.get(id(frame))
    if rows is None:
        rows = kept[id(frame)] = SectionRows(frame)
    return rows
