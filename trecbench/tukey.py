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

from .resampling import resampled_array
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
    return _shared_ranges([matrix], samples, seed, weights, progress)[0]


def _draw_orders(rng: np.random.Generator, size: int, n: int, k: int) -> np.ndarray:
    """``size`` draws of one permutation of ``k`` runs per topic: ``argsort`` of ``k``
    uniforms of ``rng`` each. With two runs the order is read off one comparison (argsort
    of 4M pairs of uniforms costs ~10x the comparison): the same orders, as ties, whose
    order is argsort's own, are left to argsort."""
    uniforms = rng.random((size, n, k))
    if k == 2 and not (uniforms[..., 0] == uniforms[..., 1]).any():
        order = np.empty(uniforms.shape, dtype=np.intp)
        np.less(uniforms[..., 1], uniforms[..., 0], out=order[..., 0], casting="unsafe")
        np.subtract(1, order[..., 0], out=order[..., 1])
        return order
    return np.argsort(uniforms, axis=-1)


def _shared_ranges(
    matrices: list[np.ndarray], samples: int, seed: int, weights, progress: Progress | None
) -> list[np.ndarray]:
    """:func:`tukey_ranges` of each of ``matrices`` (all of one shape), from one set of
    draws: the draws depend on the seed and the sizes only, so every matrix gets the
    ranges it would get alone, each draw made once for all of them."""
    n, k = matrices[0].shape
    w = np.full(n, 1 / n) if weights is None else np.asarray(weights, dtype=np.float64)
    rng = generator(seed, TUKEY_STREAM)
    # refused before drawing when they cannot fit (2^32 samples were an out-of-memory exit)
    out = list(resampled_array(samples, len(matrices)).T)
    step = max(1, (1 << 22) // (n * k))  # draws per block: a few tens of MB at most
    rows = np.arange(n)[None, :, None]
    for start in range(0, samples, step):
        size = min(step, samples - start)
        order = _draw_orders(rng, size, n, k)
        for matrix, ranges in zip(matrices, out, strict=True):
            means = np.einsum("bnk,n->bk", matrix[rows, order], w)
            ranges[start : start + size] = means.max(axis=1) - means.min(axis=1)
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
    return tukey_hsd_shared([values], samples, seed, weights)[0]


def tukey_hsd_shared(
    families: list, samples: int = 10_000, seed: int = 0, weights=None, progress=None
) -> list[np.ndarray]:
    """:func:`tukey_hsd` of each of ``families`` (matrices of one shape, topics x runs),
    the draws made once for all of them: each gets the p-values it gets alone."""
    prepared = [_centred(as_matrix(values), weights) for values in families]
    if len({matrix.shape for _, matrix, _ in prepared}) > 1:  # one draw fits one shape
        raise ValueError("tukey_hsd_shared: the families' matrices differ in shape")
    w = prepared[0][2] if prepared else None
    ranges = _shared_ranges([matrix for _, matrix, _ in prepared], samples, seed, w, progress)
    return [
        _p_values(order, matrix, w, np.sort(found), samples)
        for (order, matrix, w), found in zip(prepared, ranges, strict=True)
    ]


def _centred(matrix: np.ndarray, weights):
    """The runs of ``matrix`` in :func:`canonical_order`, that order, and the weights."""
    order = canonical_order(matrix)
    matrix = matrix[:, order]
    n = matrix.shape[0]
    w = np.full(n, 1 / n) if weights is None else np.asarray(weights, dtype=np.float64)
    # each topic centred on its mean: permuting within a topic keeps it, so the ranges and
    # gaps are the same; what is left is the runs' differences, whose size sets the
    # tolerance (an offset of 1e9 on every value made it 1, every p 1)
    return order, matrix - matrix.mean(axis=1, keepdims=True), w


def _p_values(order, matrix, w, ranges, samples: int) -> np.ndarray:
    """The p-values of the centred ``matrix`` given its sorted null ``ranges``."""
    means = np.einsum("nk,n->k", matrix, w)  # numpy's own loop, as the ranges: no BLAS threads
    gaps = np.abs(means[:, None] - means[None, :])
    tolerance = 1e-9 * max(float(np.abs(matrix).mean()), 1e-300)
    count = samples - np.searchsorted(ranges, gaps - tolerance, side="left")
    given = np.argsort(order)  # column j of the input is column given[j] of the draws'
    # no p below the exact distribution's smallest, k!/k!^n: (count + 1) / (samples + 1)
    # is (1/41 with 40 draws, 2 runs and 5 topics against the exact 2/2^5)
    floor = exact_smallest_p("tukey", matrix.shape[0], matrix.shape[1])
    return np.maximum((count + 1) / (samples + 1), floor)[np.ix_(given, given)]


def tukey_pairs(paired: Paired) -> np.ndarray:
    """Randomised Tukey HSD of every pair, family-wise within its family of columns. The
    families of one size share their draws (:func:`tukey_hsd_shared`): a compare of many
    measures drew and sorted the same permutations once per measure."""
    family = np.full(paired.values.shape[1], -1)
    position = np.zeros(paired.values.shape[1], dtype=np.int64)
    for f, columns in enumerate(paired.families):
        family[columns], position[columns] = f, np.arange(len(columns))
    p = np.full(len(paired.left), np.nan)
    tested = [f for f, _ in enumerate(paired.families) if (family[paired.left] == f).any()]
    by_size: dict[int, list[int]] = {}
    for f in tested:
        by_size.setdefault(len(paired.families[f]), []).append(f)
    done, total = 0, len(paired.families)
    for group in by_size.values():
        matrices = [paired.values[:, paired.families[f]] for f in group]
        progress = _scaled(paired, done, len(group), total)
        found = tukey_hsd_shared(matrices, paired.samples, paired.seed, paired.weights, progress)
        for f, matrix in zip(group, found, strict=True):
            mine = np.flatnonzero(family[paired.left] == f)
            p[mine] = matrix[position[paired.left[mine]], position[paired.right[mine]]]
        done += len(group)
    return p


def _scaled(paired: Paired, done: int, share: int, total: int) -> Progress | None:
    """``paired.progress`` over the draws of ``share`` of ``total`` families, ``done``
    before them: the samples drawn as the share of families they stand for."""
    if paired.progress is None:
        return None
    samples, progress = paired.samples, paired.progress

    def report(drawn: int, _of: int) -> None:
        progress((samples * done + share * drawn) // total, samples)

    return report
