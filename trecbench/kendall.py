"""Kendall's tau-b of a few hundred values without scipy.stats (issue 31: importing it
costs 0.4 s, more than agreeing or comparing a few systems' orderings takes).

``scipy.stats.kendalltau`` counts the pairs ``i < j`` by sorting; here they are counted
by comparing every pair (O(n²) memory and time, so only for :data:`SMALL` values), as
exact integers, and tau-b is then evaluated with scipy's own expression

    tau = (concordant − discordant) / sqrt(pairs − tied in x) / sqrt(pairs − tied in y)

clipped to [−1, 1], so both give the same float to the last bit (tests/test_kendall.py)
— but for orderings that agree (or are reversed) on every pair, whose tau-b is exactly 1
(−1), which scipy's two roots can miss by an ulp or two (0.9999999999999998). Beyond
:data:`SMALL` values scipy's own result is taken.
"""

from __future__ import annotations

import math

import numpy as np

SMALL = 2000  # values; the pair matrices of n values take n² bytes each


def pair_counts(x: np.ndarray, y: np.ndarray) -> tuple[int, int, int]:
    """``(concordant − discordant, pairs tied in x, pairs tied in y)`` over the pairs
    ``i < j`` of two equally long vectors without NaN."""
    upper = np.triu(np.ones((len(x), len(x)), dtype=bool), 1)
    order_x = _signs(x)
    order_y = _signs(y)
    products = (order_x * order_y)[upper]
    tied_x = int(np.count_nonzero(order_x[upper] == 0))
    tied_y = int(np.count_nonzero(order_y[upper] == 0))
    return int(products.sum(dtype=np.int64)), tied_x, tied_y


def _signs(values: np.ndarray) -> np.ndarray:
    """``[i, j]``: 1 where ``values[i] > values[j]``, −1 where below, 0 where equal
    (comparisons, not a difference, which infinities would turn into NaN)."""
    above = values[:, None] > values[None, :]
    below = values[:, None] < values[None, :]
    return above.astype(np.int8) - below.astype(np.int8)


def tau_b(x, y) -> float:
    """Kendall's tau-b of ``x`` and ``y`` as ``scipy.stats.kendalltau(x, y).statistic``
    (NaN where it is undefined: fewer than two values, a NaN among them, or one vector
    constant); scipy itself beyond :data:`SMALL` values."""
    x = np.asarray(x, dtype=np.float64).ravel()
    y = np.asarray(y, dtype=np.float64).ravel()
    if len(x) != len(y):
        raise ValueError(f"tau-b of {len(x)} and {len(y)} values")
    if len(x) > SMALL:
        from scipy.stats import kendalltau

        return float(kendalltau(x, y).statistic)
    pairs = len(x) * (len(x) - 1) // 2
    if np.isnan(x).any() or np.isnan(y).any():
        return math.nan
    difference, tied_x, tied_y = pair_counts(x, y)
    if pairs == 0 or tied_x == pairs or tied_y == pairs:
        return math.nan
    if difference * difference == (pairs - tied_x) * (pairs - tied_y):
        # the orderings agree (or are reversed) on every pair: tau-b is 1 (-1) exactly,
        # where scipy's two roots leave 0.9999999999999998 (two equal orderings of 5)
        return math.copysign(1.0, difference)
    tau = difference / math.sqrt(pairs - tied_x) / math.sqrt(pairs - tied_y)
    return min(1.0, max(-1.0, tau))
