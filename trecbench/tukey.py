"""Randomised Tukey HSD (Carterette, "Multiple testing in statistical analysis of
systems-based information retrieval experiments", ACM TOIS 30(1), 2012): family-wise
p-values for every pair of many runs, from one permutation distribution of the range of
the runs' means.

Each of ``samples`` draws permutes the runs' values within every topic (the null
hypothesis: the runs are exchangeable on each topic) and records the largest minus the
smallest mean. A pair's p is ``(count + 1) / (samples + 1)``, ``count`` the draws whose
range is at least the pair's observed ``|mean_i - mean_j|``: the observed assignment counts
as one draw, so p is never 0; nor is it below the exact permutation distribution's smallest
p, ``k! / k!**topics`` over ``k`` runs (the same permutation of every topic keeps every
range): a sampled p below it is clipped there. As every pair is compared with the same maximum, the
p-values hold for the family of all pairs of runs (no further correction). Seeded:
``numpy.random.default_rng([seed, 3])`` (:data:`trecbench.stats.TUKEY_STREAM`).

A draw's uniforms are dealt to the runs by position, so :func:`tukey_hsd` deals them in
an order of the runs' values (:func:`canonical_order`), not the order they are given in:
the same runs given in another order, or under other names, get the same p-values (as
with the bootstrap and randomisation tests, whose draws are per topic, shared by every run).
"""

from __future__ import annotations

import numpy as np

from .statistical_tests import exact_smallest_p
from .stats import TUKEY_STREAM, Paired, Progress, as_matrix, generator


def tukey_ranges(
    values, samples: int = 10_000, seed: int = 0, weights=None, progress: Progress | None = None
) -> np.ndarray:
    """The null distribution of randomised Tukey HSD: for each of ``samples`` draws, the
    runs' values (columns of ``values``, topics x runs) permuted within every topic, the
    largest minus the smallest (weighted) mean over runs.

    Draw ``b`` orders topic ``t``'s values by ``argsort`` of ``runs`` uniforms, numbers
    ``(b * topics + t) * runs`` onwards of ``default_rng([seed, 3]).random()``: the
    numbers depend on the seed and the sizes only, and are dealt to the columns in the
    order given (:func:`tukey_hsd` gives them in :func:`canonical_order`).
    """
    matrix = as_matrix(values)
    n, k = matrix.shape
    w = np.full(n, 1 / n) if weights is None else np.asarray(weights, dtype=np.float64)
    rng = generator(seed, TUKEY_STREAM)
    out = np.empty(samples)
    step = max(1, (1 << 22) // (n * k))  # draws per block: a few tens of MB at most
    rows = np.arange(n)[None, :, None]
    for start in range(0, samples, step):
        size = min(step, samples - start)
        order = np.argsort(rng.random((size, n, k)), axis=-1)
        means = np.einsum("bnk,n->bk", matrix[rows, order], w)
        out[start : start + size] = means.max(axis=1) - means.min(axis=1)
        if progress is not None:
            progress(start + size, samples)
    return out


def canonical_order(matrix: np.ndarray) -> np.ndarray:
    """The columns of ``matrix`` (topics x runs) sorted by their values, the first topic's
    first, ties by the next topic's: an order that depends on what the runs scored, not
    on how they are given. Columns it cannot tell apart are equal, so either order of
    them is the same matrix."""
    return np.lexsort(matrix[::-1])


def tukey_hsd(values, samples: int = 10_000, seed: int = 0, weights=None) -> np.ndarray:
    """Randomised Tukey HSD (Carterette, TOIS 2012) over the runs (columns) of
    ``values`` (topics x runs): a ``runs x runs`` matrix of family-wise p-values.

    The p of runs ``i`` and ``j`` is ``(count + 1) / (samples + 1)``: ``count`` draws of
    :func:`tukey_ranges` whose range is at least ``|mean_i - mean_j|`` (the observed
    assignment counts as one draw). ``weights`` (:func:`macro_weights`) make the means
    macro means. The diagonal is 1. The draws are made over the runs in
    :func:`canonical_order` and the p-values put back in the order given.
    """
    matrix = as_matrix(values)
    order = canonical_order(matrix)
    matrix = matrix[:, order]
    n = matrix.shape[0]
    w = np.full(n, 1 / n) if weights is None else np.asarray(weights, dtype=np.float64)
    # each topic centred on its mean: permuting within a topic keeps it, so the ranges and
    # gaps are the same; what is left is the runs' differences, whose size sets the
    # tolerance (an offset of 1e9 on every value made it 1, every p 1)
    matrix = matrix - matrix.mean(axis=1, keepdims=True)
    ranges = np.sort(tukey_ranges(matrix, samples, seed, w))
    means = np.einsum("nk,n->k", matrix, w)  # numpy's own loop, as the ranges: no BLAS threads
    gaps = np.abs(means[:, None] - means[None, :])
    tolerance = 1e-9 * max(float(np.abs(matrix).mean()), 1e-300)
    count = samples - np.searchsorted(ranges, gaps - tolerance, side="left")
    given = np.argsort(order)  # column j of the input is column given[j] of the draws'
    # no p below the exact distribution's smallest, k!/k!^n: (count + 1) / (samples + 1)
    # is (1/41 with 40 draws, 2 runs and 5 topics against the exact 2/2^5)
    floor = exact_smallest_p("tukey", n, matrix.shape[1])
    return np.maximum((count + 1) / (samples + 1), floor)[np.ix_(given, given)]


def tukey_pairs(paired: Paired) -> np.ndarray:
    """Randomised Tukey HSD of every pair, family-wise within its family of columns."""
    family = np.full(paired.values.shape[1], -1)
    position = np.zeros(paired.values.shape[1], dtype=np.int64)
    for f, columns in enumerate(paired.families):
        family[columns], position[columns] = f, np.arange(len(columns))
    p = np.full(len(paired.left), np.nan)
    for f, columns in enumerate(paired.families):
        mine = np.flatnonzero(family[paired.left] == f)
        if not len(mine):
            continue
        matrix = tukey_hsd(paired.values[:, columns], paired.samples, paired.seed, paired.weights)
        p[mine] = matrix[position[paired.left[mine]], position[paired.right[mine]]]
        if paired.progress is not None:
            paired.progress(paired.samples * (f + 1) // len(paired.families), paired.samples)
    return p
