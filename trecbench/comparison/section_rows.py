"""A comparison's tables (summary, comparisons, pairs, movers) split by section.

Every renderer asks for one section's rows of a table at a time; filtering the whole table
on each ask made a report of many strata quadratic in them (the Markdown of 2,000 strata
took 41 s), as did converting each section's rows to dicts apart. Within one rendering
(:meth:`~trecbench.comparison.Comparison.split_by_section`) each table is split once."""

from __future__ import annotations

import numpy as np
import pandas as pd


class SectionRows:
    """One table's rows by section label: their positions (``frame.iloc``) and, when
    first asked for and ``kept`` (asked for again), the whole table as dicts of Python
    scalars."""

    def __init__(self, frame: pd.DataFrame, kept: bool):
        self.frame = frame
        self.positions: dict[str, np.ndarray] = frame.groupby("stratum", sort=False).indices
        self._kept = kept
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
        if not self._kept:
            return self.frame.iloc[positions].to_dict(orient="records")
        if self._records is None:
            self._records = self.frame.to_dict(orient="records")
        return [dict(self._records[position]) for position in positions]


def rows_of(kept: dict[int, SectionRows] | None, frame: pd.DataFrame) -> SectionRows:
    """``frame``'s :class:`SectionRows` from ``kept`` (by the table's identity: what is
    kept holds the table, so no other takes its identity), split and kept there first;
    split for this ask alone where nothing is kept (None)."""
    if kept is None:
        return SectionRows(frame, kept=False)
    rows = kept.get(id(frame))
    if rows is None:
        rows = kept[id(frame)] = SectionRows(frame, kept=True)
    return rows
