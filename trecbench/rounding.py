"""Values equal on paper: a measure's values are rounded fractions, so values equal as
fractions come out a few units in the last place apart (one gain of 1/5 on every topic as
0.20000000000000007 and 0.19999999999999996; P@10 means of 1/10 as 0.10000000000000002 and
0.09999999999999999). :func:`rounding_noise` is how far apart they can be,
:func:`equal_on_paper` makes them one value again; statistics, rankings of means and tie
breaks compare values through them (:mod:`trecbench.stats`, :mod:`trecbench.wilcoxon`,
agreement, leaderboards, fusion tuning), and :func:`mean_difference` is the one mean of
paired differences they print and test (:func:`zero_on_paper`: its interval's ends too).
Sums of the same values in another order differ in their last bits too (:data:`REORDERED`):
:func:`enclosing` keeps an estimate inside its interval across that."""

from __future__ import annotations

import numpy as np

from . import exact_sums

# units in the last place of the values subtracted (of 1, for values above 1) that their
# rounding alone may leave in a difference (rounding_noise, per_topic_zero)
ROUNDING_ULPS = 64


def rounding_noise(diffs, scale=None) -> np.ndarray:
    """Per column, the spread that differences equal on paper can show: a measure's
    values are rounded fractions, so one gain of 1/5 on every topic comes out as
    0.20000000000000007 and 0.19999999999999996. A difference carries the rounding of
    the values it subtracts, units in the last place of values up to 1 (most measures;
    counts are exact) or of the difference when larger: 64 of those.

    ``scale`` (per column, or one number): the largest magnitude of the values the
    differences subtract (:func:`value_scale`), where it is known; values all below 1
    carry the rounding of their own size, not of 1. Without it the values are taken to
    reach 1, and differences of a measure whose values are all tiny (RBP with p = 0.01:
    1e-15 and below) were all noise: a difference of 1e-15 on every topic printed as 0
    beside an interval below 0, its tests undefined "as the differences do not vary"."""
    floor = 1.0 if scale is None else np.minimum(np.asarray(scale, np.float64), 1.0)
    return ROUNDING_ULPS * np.finfo(np.float64).eps * np.maximum(_largest(diffs), floor)


def value_scale(left, right=None) -> np.ndarray:
    """Per column, the largest finite magnitude of the values ``left`` (and ``right``:
    topics x columns, or one column each) whose differences are taken: the ``scale`` of
    :func:`rounding_noise`. A topic whose two values are the same double is left out: its
    difference is exactly 0 and carries no rounding (one RBP of 0.99 on both sides beside
    9.9e-15 against 9.9e-17 made that difference noise of 0.99's size: a mean of -4.9e-15
    printed as 0, its tests undefined, beside a W/T/L of 0/1/1)."""
    if right is None:
        return _largest(left)
    left, right = np.asarray(left, np.float64), np.asarray(right, np.float64)
    differ = left != right
    return np.maximum(_largest(np.where(differ, left, 0.0)), _largest(np.where(differ, right, 0.0)))


def _largest(values) -> np.ndarray:
    """Per column of ``values`` (topics x columns, or one column), the largest finite
    magnitude (an infinity is no scale), 0 for a column without rows."""
    matrix = np.asarray(values, dtype=np.float64)
    matrix = matrix[:, None] if matrix.ndim == 1 else matrix
    sizes = np.where(np.isfinite(matrix), np.abs(matrix), 0.0)
    return sizes.max(axis=0) if matrix.shape[0] else np.zeros(matrix.shape[1])


def mean_difference(diffs, weights=None, scale=None) -> np.ndarray:
    """Per column of ``diffs`` (topics x columns of paired differences, or one column),
    their mean, or with ``weights`` per topic their weighted sum (a macro mean: the
    weights of :func:`trecbench.stats.macro_weights`): the difference compare, benchmark,
    power and the leaderboard print, test and take effect sizes of. NaN without topics.

    Differences that add up to 0 on paper give 0 (not -0.0): P@5 of 0.8, 0.4 against 0.6,
    0.6 differ by 0.2 and -0.2 on paper, by 0.20000000000000007 and -0.19999999999999996
    in floats, whose mean is 5.55e-17, and such means printed with signs that contradicted
    each other (``+0.0000`` beside a d_z of ``-0.00``). So the differences are summed
    exactly (:mod:`trecbench.exact_sums`: no order of addition, whose rounding grows with
    the topics, and a pair's mean is exactly the negative of the reversed pair's), and a
    mean within :func:`rounding_noise` of 0, what the values' rounding alone leaves, is 0.
    ``scale``: the values' size, as :func:`rounding_noise` takes it."""
    matrix = np.asarray(diffs, dtype=np.float64)
    matrix = matrix[:, None] if matrix.ndim == 1 else matrix
    n = matrix.shape[0]
    if not n:
        return np.full(matrix.shape[1], np.nan)
    terms = matrix if weights is None else matrix * np.asarray(weights, np.float64)[:, None]
    total = exact_sums.sums(exact_sums.split(terms, n), np.ones((1, n)))[0]
    mean = total / n if weights is None else total
    return zero_on_paper(mean, matrix, scale)


def zero_on_paper(values, diffs, scale=None) -> np.ndarray:
    """``values`` (one per column of the paired differences ``diffs``: their mean, an
    interval's end) with those within :func:`rounding_noise` of 0 made 0 (``scale``: as
    it takes it): what the values' rounding alone leaves. A resampled mean of 0.6 and
    0.6000000000000001 (one value reached by two sums) less one of 0.6 and 0.6 is -1.1e-16,
    and a table prints a difference that is not 0 in scientific notation
    (:func:`~trecbench.number_text.value_text`): the interval read
    ``[-1.1e-16, +0.2000]`` where it is ``[0.0000, +0.2000]`` on paper."""
    values = np.asarray(values, dtype=np.float64)
    return np.where(np.abs(values) <= rounding_noise(diffs, scale), 0.0, values)


def per_topic_zero(values, base) -> np.ndarray:
    """``values - base`` (topics x columns, or one column: a run's and the baseline's
    per-topic values) with each topic's difference within the rounding of that topic's
    own two values made 0: :data:`ROUNDING_ULPS` units in the last place of the larger (of 1
    for values above 1). A topic's MAP of 0.25 against 0.24999999999999994 is a tie (it
    printed -5.6e-17); one RBP of 9.9e-15 against 9.9e-17 is not, whatever the other
    topics' values (scaled by the largest of all, it read 0.0000 beside the two)."""
    values, base = np.asarray(values, np.float64), np.asarray(base, np.float64)
    diffs = values - base
    size = np.minimum(np.maximum(np.abs(values), np.abs(base)), 1.0)
    return np.where(np.abs(diffs) <= ROUNDING_ULPS * np.finfo(np.float64).eps * size, 0.0, diffs)


def equal_on_paper(values, noise: float | None = None) -> np.ndarray:
    """``values`` (one column) with those equal on paper made equal: each group of values
    within ``noise`` (default: :func:`rounding_noise` of them at their own size, so that
    means all below 1e-14, RBP(p=0.01)'s, are not one group) of the group's smallest
    takes the smallest's value. A value more than ``noise`` above the last starts a group,
    and so does one more than ``noise`` above its group's first: a chain of values a few
    ulp apart is not one group however long, and no value moves by more than ``noise``."""
    column = np.asarray(values, dtype=np.float64)
    known = ~np.isnan(column)  # NaN (no value) stays NaN, in no group
    if not known.any():
        return column.copy()
    if noise is None:  # values (means) carry the rounding of their own size
        noise = float(rounding_noise(column[known], value_scale(column[known]))[0])
    order = np.flatnonzero(known)[np.argsort(column[known], kind="stable")]
    ordered = column[order]
    starts = _groups(ordered, noise)
    marks = np.zeros(len(ordered), bool)
    marks[starts] = True
    snapped = column.copy()
    snapped[order] = ordered[starts[np.cumsum(marks) - 1]]
    return snapped


def _groups(ordered: np.ndarray, noise: float) -> np.ndarray:
    """Where each group of ``ordered`` (ascending) starts (see :func:`equal_on_paper`);
    infinities of one sign are one group (inf - inf is NaN: no new group)."""
    with np.errstate(invalid="ignore"):
        starts = np.flatnonzero(np.concatenate(([True], np.diff(ordered) > noise)))
        ends = np.append(starts[1:], len(ordered))
        within = np.all(~(ordered[ends - 1] - ordered[starts] > noise))
    if within:
        return starts  # every group within the allowance: the usual case, no loop
    split = []
    for start, end in zip(starts.tolist(), ends.tolist(), strict=True):
        while start < end:
            split.append(start)
            start = int(np.searchsorted(ordered, ordered[start] + noise, side="right"))
    return np.array(split)


# how far, relative to their size, sums of the same values in another order may differ
# (thousands of values: about 1e-13); the bootstrap's "at least as extreme" test and
# enclosing() allow this much. rounding_noise, 64 units in the last place of one value,
# is the spread of values equal on paper, not of sums of many
REORDERED = 1e-9


def enclosing(estimate, low, high, scale) -> tuple[np.ndarray, np.ndarray]:
    """``(low, high)`` widened to ``estimate`` where it falls outside them by rounding
    alone (by at most :data:`REORDERED` times ``scale``, the size of the means it comes
    from). A mean sums its topics in topic order, as trec_eval does, and the resamples
    sum exactly, so a column that never varies got ``[d, d]`` one bit away from its own
    mean d. Any wider gap is the interval's own, and is left."""
    estimate, low, high = (np.asarray(x, np.float64) for x in (estimate, low, high))
    slack = REORDERED * np.abs(np.asarray(scale, np.float64))
    low = np.where((estimate < low) & (low - estimate <= slack), estimate, low)
    high = np.where((estimate > high) & (estimate - high <= slack), estimate, high)
    return low, high
