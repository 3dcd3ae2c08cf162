"""The Wilcoxon signed-rank test, as ``scipy.stats.wilcoxon(d)`` with its defaults.

Conventions (scipy 1.17's, which tests check on random cases with ties and zeros):

* ``zero_method='wilcox'``: zero differences are dropped before ranking (Wilcoxon's own
  choice; Pratt's ranks them and drops them after). Every difference 0: nothing is left,
  p is undefined (NaN).
* The statistic is ``R+``, the sum of the ranks (average ranks for ties) of the |d| of
  the positive differences; two-sided.
* ``method='auto'``: without ties and zeros and with at most 50 differences, the exact
  null distribution of ``R+`` (every sign pattern), ``p = 2 min(P(R+ >= r), P(R+ <= r))``;
  with ties or zeros and at most 13 differences (zeros counted), every sign pattern of
  the nonzero differences, the same formula over them (scipy's permutation test); else
  the normal approximation with the tie correction of the variance and no continuity
  correction (``correction=False``).

Differences equal on paper are equal here (:func:`on_paper`): scipy, given the floats,
breaks their ties and misses their zeros by the last bits of a measure's rounding.
"""

from __future__ import annotations

import numpy as np

from .rounding import equal_on_paper, rounding_noise
from .stats import Paired, per_block

EXACT, PERMUTED = 50, 13  # scipy's limits of method='auto'


def wilcoxon_pairs(paired: Paired) -> np.ndarray:
    """The registered test (:mod:`trecbench.statistical_tests`): every pair of
    ``paired``; it has no form for macro means (NaN with strata)."""
    if paired.strata is not None:
        return np.full(len(paired.left), np.nan)
    return per_block(paired, lambda diffs, block: signed_rank_test(diffs, paired.scale(block)))


def signed_rank_test(diffs, scale=None) -> np.ndarray:
    """Two-sided Wilcoxon signed-rank p-value per column of ``diffs`` (topics x columns);
    ``scale``: per column, the size of the values subtracted
    (:func:`~trecbench.rounding.rounding_noise`)."""
    matrix = np.asarray(diffs, dtype=np.float64)
    if matrix.ndim == 1:
        matrix = matrix[:, None]
    # a scale of 1 is rounding_noise's own floor: the same as none given
    scales = np.broadcast_to(1.0 if scale is None else scale, matrix.shape[1])
    return np.array([_p(matrix[:, c], scales[c]) for c in range(matrix.shape[1])])


def on_paper(d: np.ndarray, scale=None) -> np.ndarray:
    """``d`` with the differences equal on paper made equal: magnitudes equal on paper
    (:func:`~trecbench.rounding.equal_on_paper`) share one, and those within the rounding
    noise of 0 are 0 (P@5 gains of 1/5 come out as 0.20000000000000007 and
    0.19999999999999996: scipy, comparing the floats, ranks them apart). ``scale``: the
    size of the values subtracted, as :func:`~trecbench.rounding.rounding_noise` takes it."""
    noise = rounding_noise(d, scale)[0]
    size = equal_on_paper(np.abs(d), noise)
    size[size <= noise] = 0.0
    return np.sign(d) * size


def _p(d: np.ndarray, scale=None) -> float:
    n = d.size
    d = on_paper(d, scale)
    d = d[d != 0]
    m = d.size
    if m == 0:
        return float("nan")
    ranks = average_ranks(np.abs(d))
    r_plus = float(ranks[d > 0].sum())
    ties = len(np.unique(np.abs(d))) < m
    if not ties and m == n and n <= EXACT:
        counts = _exact_counts(m)
        low = counts[: int(np.ceil(r_plus)) + 1].sum()
        high = counts[int(np.floor(r_plus)) :].sum()
        return float(min(1.0, 2 * min(low, high) / counts.sum()))
    if n <= PERMUTED:
        signs = (np.arange(2**m)[:, None] >> np.arange(m)) & 1
        null = signs @ ranks  # exact in any order (BLAS's threads): ranks are k/2, sums < 2**53
        gamma = 1e-14 * max(abs(r_plus), 1.0)  # scipy's tolerance for equal statistics
        low = np.count_nonzero(null <= r_plus + gamma)
        high = np.count_nonzero(null >= r_plus - gamma)
        return float(min(1.0, 2 * min(low, high) / 2**m))
    from scipy.special import ndtr

    _, tied = np.unique(np.abs(d), return_counts=True)
    variance = (m * (m + 1) * (2 * m + 1) - (tied**3 - tied).sum() / 2) / 24
    z = (r_plus - m * (m + 1) / 4) / np.sqrt(variance)
    return float(2 * ndtr(-abs(z)))


def average_ranks(values: np.ndarray) -> np.ndarray:
    """``scipy.stats.rankdata(values)``: ranks from 1, ties sharing the mean of theirs
    (every rank a whole number or a half, so exact), all NaN when a value is NaN; without
    importing scipy.stats (0.4 s, issue 31)."""
    if np.isnan(values).any():
        return np.full(values.shape, np.nan)
    order = np.argsort(values, kind="stable")
    ordered = values[order]
    first = np.r_[True, ordered[1:] != ordered[:-1]]
    bounds = np.r_[np.flatnonzero(first), len(values)]  # each tie group's first place
    group = np.cumsum(first) - 1
    ranks = np.empty(len(values))
    ranks[order] = 0.5 * (bounds[group] + bounds[group + 1] + 1)
    return ranks


def _exact_counts(m: int) -> np.ndarray:
    """How many of the ``2**m`` sign patterns of ranks 1..m give ``R+ = s``, per s."""
    counts = np.zeros(m * (m + 1) // 2 + 1)
    counts[0] = 1
    for rank in range(1, m + 1):
        counts[rank:] = counts[rank:] + counts[:-rank].copy()
    return counts
