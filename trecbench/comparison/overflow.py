"""Per-topic values the statistics can work on: a measure of huge values (``utility`` with
coefficients near 1e308, which ``score`` computes and averages) makes differences of two
runs, or their squares in a standard deviation, beyond a double's range, and the tests,
intervals, effect sizes and power would be inf, 0 or NaN. Such a measure is refused in
compare, power and agree, naming it."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..errors import UsageError

# the largest per-topic magnitude taken: a difference's square is at most 4e200, and sums
# of any number of topics such squares (and resampled sums) stay far below 1.8e308
LIMIT = 1e100


def refuse_overflow(values: np.ndarray, measures: Sequence[str]) -> None:
    """Refuse (:class:`UsageError`) a measure whose ``topics x runs x measures`` values
    reach beyond ±:data:`LIMIT`."""  # no measure but utility's coefficients reaches it
    with np.errstate(invalid="ignore"):
        largest = np.nanmax(np.abs(values), axis=(0, 1), initial=0.0)
    for measure, value in zip(measures, largest.tolist(), strict=True):
        if not value <= LIMIT:
            raise UsageError(
                f"{measure}: per-topic values up to {value:.4g}: beyond ±{LIMIT:g} the "
                "differences of runs and their squares overflow a double, and its statistics "
                "would be inf or 0; use smaller coefficients"
            )
