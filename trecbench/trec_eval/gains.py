"""nDCG's gain table: trec_eval's ``setup_gains`` (m_ndcg.c in 9.0.8, gain_init.c in 10.0).

A measure's gain map (``ndcg.1=3,2=9``) names grades and their gains; every grade from 0
to the topic's largest that the map does not name gains its own value. The table is sorted
by gain with glibc's ``qsort`` and a comparator that truncates the difference of two gains
to ``int`` (so gains less than 1 apart compare equal and keep their input order); the
ideal ranking walks it from the end. 10.0 skips map entries whose grade is not an integer
(9.0.8 reads them with ``atol``: ``a=2`` is grade 0).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .clib import c_atof, c_atol, qsort, to_int


@dataclass
class Gain:
    """One row of the table: a grade, its gain and how many judgments have that grade."""

    rel_level: int
    gain: float
    num_at_level: int = 0


def parse_pairs(params: str | None) -> list[tuple[str, float]]:
    """``name=value`` pairs of a measure's parameters, as trec_eval's ``get_param_pairs``
    splits them (a missing ``=value`` reads as 0)."""
    if not params:
        return []
    pairs = []
    for part in params.split(","):
        name, _, value = part.partition("=")
        pairs.append((name, c_atof(value)))
    return pairs


def valid_int(text: str) -> bool:
    """10.0's ``valid_int``: optional sign, then at least one digit and nothing else."""
    digits = text[1:] if text[:1] in "+-" else text
    return bool(digits) and all("0" <= c <= "9" for c in digits)


def setup_gains(
    pairs: list[tuple[str, float]],
    rel_levels: np.ndarray,
    num_rel_levels: int,
    *,
    skip_invalid: bool,
) -> list[Gain]:
    """The sorted gain table of one topic (``skip_invalid``: 10.0's behaviour)."""
    gains = [
        Gain(c_atol(name), float(value))
        for name, value in pairs
        if not skip_invalid or valid_int(name)
    ]
    # trec_eval scans the table for each grade and takes the first entry for it: a map
    # entry, as the grades added below are distinct (a dict keeps the scan linear)
    first: dict[int, Gain] = {}
    for entry in gains:
        first.setdefault(entry.rel_level, entry)
    for level, count in enumerate(np.asarray(rel_levels)[:num_rel_levels].tolist()):
        if level in first:
            first[level].num_at_level = int(count)
        else:
            gains.append(Gain(level, float(level), int(count)))
    return qsort(gains, lambda a, b: to_int(a.gain - b.gain))


def gain_of(gains: list[Gain], rel_level: int) -> float:
    """``get_gain``: the first entry for the grade, 0 when there is none."""
    for entry in gains:
        if entry.rel_level == rel_level:
            return entry.gain
    return 0.0


def gain_lookup(gains: list[Gain], rels: np.ndarray) -> np.ndarray:
    """:func:`gain_of` for every value of ``rels`` (vectorised)."""
    out = np.zeros(len(rels), np.float64)
    done = np.zeros(len(rels), bool)
    for entry in gains:
        hit = ~done & (rels == entry.rel_level)
        out[hit] = entry.gain
        done |= hit
    return out


def ideal_gains(gains: list[Gain]) -> np.ndarray:
    """The gains of the ideal ranking, position by position, as trec_eval walks the table:
    from its last entry down, each entry's gain repeated once per judgment, until an entry
    whose gain is not positive (the walk starts at the last entry even if nobody has that
    grade, and stops there when its gain is not positive)."""
    if not gains or gains[-1].gain <= 0.0:
        return np.zeros(0, np.float64)
    parts = []
    for entry in reversed(gains):
        if entry.num_at_level == 0:
            continue
        if entry.gain <= 0.0:
            break
        parts.append(np.full(entry.num_at_level, entry.gain))
    return np.concatenate(parts) if parts else np.zeros(0, np.float64)
