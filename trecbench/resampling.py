"""Bootstrap resampling of per-query scores: the resampled means of every column
(stratified for macro means) and their percentile intervals, and the seeded streams and
blocks of draws that :mod:`trecbench.stats`'s randomisation test and
:mod:`trecbench.tukey` draw from too. Like :mod:`trecbench.stats`, everything works on
matrices with one row per query and one column per (run, measure), so one pass of
resampling serves every column at once.

Resampling is vectorised and reproducible:

* A bootstrap sample is stored as a row of *counts* (how often each query was drawn), built
  with ``np.bincount`` from ``Generator.integers`` draws; the resampled means of every column
  are then one matrix product ``counts @ values / n``, never a Python loop per sample, taken
  by :mod:`trecbench.exact_sums` (BLAS on whole numbers, exact in any order): the same bits
  whatever BLAS and however many threads it runs (``OPENBLAS_NUM_THREADS``). The sign
  flips of the randomisation test are summed the same way.
* Draws come in fixed blocks of :data:`BLOCK` samples from ``numpy.random.default_rng``
  seeded with ``[seed, stream]``: the bootstrap uses stream 0, the randomisation test stream
  1. Numbers therefore depend only on the seed, the number of samples and the number of
  queries — not on how many runs or measures are compared alongside, nor on the machine.

Confidence interval: bootstrap *percentile* interval of the mean, the
``(1 - confidence) / 2`` and ``(1 + confidence) / 2`` quantiles of the resampled means
(numpy's default linear interpolation), from ``2 / (1 - confidence)`` resamples or more
(fewer are refused: :mod:`trecbench.resampling_bounds`).

Macro means (every stratum counts the same) are weighted means with weight
``1 / (G * n_g)`` for a topic of stratum ``g`` (:func:`macro_weights`); their intervals
resample topics *within* each stratum (a stratified bootstrap keeps every stratum's size,
stream 2).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator

import numpy as np

from . import exact_sums
from .errors import TooManySamplesError
from .resampling_bounds import refuse_too_few
from .rounding import enclosing

# Samples drawn per block: large enough for BLAS to pay off, small enough that the
# (BLOCK x queries) count matrix stays a few tens of MB for 10,000 queries.
BLOCK = 256
BOOTSTRAP_STREAM = 0
RANDOMIZATION_STREAM = 1
STRATIFIED_STREAM = 2
TUKEY_STREAM = 3
PAIRS = 256  # pairs of columns whose differences are held at once

Progress = Callable[[int, int], None]


def as_matrix(values) -> np.ndarray:
    """Values as a 2-D float64 array (queries x columns); a vector becomes one column."""
    array = np.asarray(values, dtype=np.float64)
    if array.ndim == 1:
        array = array[:, None]
    if array.ndim != 2 or array.shape[0] == 0:
        raise ValueError("expected a non-empty queries x columns matrix")
    if not np.isfinite(array).all():
        raise ValueError("per-query values must be finite (decide on missing queries first)")
    return array


def generator(seed: int, stream: int) -> np.random.Generator:
    """The draws of ``stream`` (one of the ``*_STREAM`` numbers) under ``seed``."""
    return np.random.default_rng([int(seed), stream])


def blocks(samples: int) -> Iterator[tuple[int, int]]:
    """``(start, size)`` of each block of :data:`BLOCK` samples (the last one shorter)."""
    for start in range(0, samples, BLOCK):
        yield start, min(BLOCK, samples - start)


def resampled_array(samples: int, columns: int) -> np.ndarray:
    """The ``samples x columns`` array a percentile interval needs (a value per resample
    and column; Tukey's ranges too, :mod:`trecbench.tukey`), refused with a
    :class:`~trecbench.errors.TooManySamplesError` when it cannot fit in this machine's
    memory with a copy of it beside it (the percentiles and Tukey's p-values sort one: an
    array of most of the memory passed, then the copy ran out of it)."""
    need = 2 * samples * columns * 8
    try:
        memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, OSError, ValueError):
        memory = None  # unknown here: the allocation itself decides
    if memory is None or need <= memory:
        try:
            return np.empty((samples, columns))
        except (MemoryError, ValueError):
            pass
    has = "" if memory is None else f" (this machine has {memory / 2**30:,.1f} GiB)"
    raise TooManySamplesError(
        f"{samples:,} resamples of {columns:,} value{'s' * (columns != 1)} need "
        f"{need / 2**30:,.1f} GiB of memory{has}: ask for fewer samples"
    )


def macro_weights(strata) -> np.ndarray:
    """Per topic ``1 / (G * n_g)``: the weights that make a weighted sum the mean of the
    strata's means (``strata``: one label per topic, ``G`` distinct labels)."""
    _, inverse, counts = np.unique(np.asarray(strata), return_inverse=True, return_counts=True)
    return 1.0 / (len(counts) * counts[inverse.ravel()])


def _stratified_draws(strata) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(members, base, size)``: rows sorted by stratum and, per sorted position, where
    its stratum starts among them and how many topics it has; a stratified draw for
    position ``j`` is ``members[base[j] + integers(0, size[j])]``."""
    labels = np.asarray(strata)
    members = np.argsort(labels, kind="stable")
    _, first, inverse, counts = np.unique(
        labels[members], return_index=True, return_inverse=True, return_counts=True
    )
    inverse = inverse.ravel()
    return members, first[inverse], counts[inverse]


def bootstrap_means(
    values,
    samples: int = 10_000,
    seed: int = 0,
    progress: Progress | None = None,
    strata=None,
) -> np.ndarray:
    """Means of every column over ``samples`` bootstrap resamples of the queries (rows).

    Returns a ``samples x columns`` array. All columns share the same resamples, so a
    difference of two columns' resampled means is the resampled mean of their difference
    (that is what makes the paired bootstrap test free once intervals are computed).

    With ``strata`` (one label per query) the resamples are drawn within each stratum and
    the statistic is the macro mean (the mean of the strata's means; see
    :func:`macro_weights`), from stream :data:`STRATIFIED_STREAM`.
    """
    matrix = as_matrix(values)
    if samples < 1:
        raise ValueError("samples must be at least 1")
    n = matrix.shape[0]
    if strata is None:
        rng = generator(seed, BOOTSTRAP_STREAM)
        weighted = matrix  # divided by n at the end
    else:
        rng = generator(seed, STRATIFIED_STREAM)
        members, base, size_of = _stratified_draws(strata)
        weighted = matrix * macro_weights(strata)[:, None]
    parts = exact_sums.split(weighted, n)  # a row of counts adds up to n
    out = resampled_array(samples, matrix.shape[1])
    for start, size in blocks(samples):
        if strata is None:
            draws = rng.integers(0, n, size=(size, n))
        else:
            draws = members[base + rng.integers(0, size_of, size=(size, n))]
        draws += np.arange(size)[:, None] * n
        counts = np.bincount(draws.ravel(), minlength=size * n).reshape(size, n)
        out[start : start + size] = exact_sums.sums(parts, counts)
        if progress is not None:
            progress(start + size, samples)
    if strata is None:
        out /= n
    return out


def refuse_interval(samples: int, confidence: float) -> None:
    """Refuse a confidence outside (0, 1), and fewer than 2 / (1 - confidence) resamples,
    which leave a tail without one (:mod:`trecbench.resampling_bounds`)."""
    if not 0 < confidence < 1:
        raise ValueError("confidence must be between 0 and 1")
    refuse_too_few(samples, 1 - confidence, interval=True, confidence=confidence)


def percentile_interval(
    resampled: np.ndarray, confidence: float = 0.95, pairs=None
) -> tuple[np.ndarray, np.ndarray]:
    """Lower and upper percentile bounds per column of resampled statistics, or with
    ``pairs = (left, right)`` (column indices) of the differences ``left - right``.

    Taken :data:`PAIRS` columns at a time: numpy's quantile copies what it sorts, and a
    copy of 10,000 resamples of thousands of columns is gigabytes."""
    refuse_interval(np.shape(resampled)[0], confidence)
    alpha = (1 - confidence) / 2
    if np.ndim(resampled) == 1:  # one column
        low, high = np.quantile(resampled, [alpha, 1 - alpha])
        return low, high
    width = resampled.shape[1] if pairs is None else len(pairs[0])
    low, high = np.empty(width), np.empty(width)
    for start in range(0, width, PAIRS):
        block = slice(start, min(start + PAIRS, width))
        if pairs is None:
            part = resampled[:, block]
        else:
            part = resampled[:, pairs[0][block]] - resampled[:, pairs[1][block]]
        low[block], high[block] = np.quantile(part, [alpha, 1 - alpha], axis=0)
    return low, high


def bootstrap_ci(
    values, samples: int = 10_000, confidence: float = 0.95, seed: int = 0
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mean and bootstrap percentile interval per column: ``(mean, low, high)``."""
    refuse_interval(samples, confidence)  # before drawing them
    matrix = as_matrix(values)
    low, high = percentile_interval(bootstrap_means(matrix, samples, seed), confidence)
    mean = matrix.mean(axis=0)
    return mean, *enclosing(mean, low, high, np.abs(mean))
