"""Numeric kernels the engines and the ports of trec_eval share, below both: running sums
per topic accumulated as trec_eval's C loops accumulate them, C's ``log2`` discounts and
the terms average precision sums. Plain numpy; nothing here knows measures or inputs."""

from __future__ import annotations

import math

import numpy as np


def sequential_sum(values) -> float:
    """``values`` summed one by one from 0.0, as trec_eval's ``sum = 0.0; sum += x``:
    numpy's ``sum`` adds pairwise (another last digit), and 0.0 + -0.0 is 0.0, so terms of
    -0.0 alone sum to 0.0; 0.0 for no value."""
    return 0.0 + float(np.cumsum(values)[-1]) if len(values) else 0.0


def mean_of_means(means, axis: int = 0) -> np.ndarray:
    """The unweighted mean of ``means`` along ``axis`` (groups' or collections' means:
    a macro mean), exact and rounded once (the double nearest the rational mean), so it
    does not depend on the groups' order nor on who takes it: ``score --group-by``,
    ``compare``'s macro section and ``leaderboard`` printed 0.5438 and 0.5437 for one
    macro mean of 0.54375 on paper, two ways of summing a last bit apart. NaN or an
    infinity where a mean is one, as their float sum gives it (inf + -inf: NaN)."""
    return np.apply_along_axis(_exact_mean, axis, np.asarray(means, np.float64))


def _exact_mean(values: np.ndarray) -> float:
    terms = values.tolist()
    if not np.isfinite(values).all():  # no exact sum: what the floats' sum says
        return sum(terms) / len(terms)
    # each double is n / 2**k exactly: summed as whole numbers over the largest 2**k, and
    # divided as Python divides ints, correctly rounded (Fraction's sum took 8 times longer)
    ratios = [term.as_integer_ratio() for term in terms]
    shift = max(denominator for _, denominator in ratios).bit_length() - 1
    total = sum(n << (shift - d.bit_length() + 1) for n, d in ratios)
    return total / (len(terms) << shift)


def segment_cumsum(values: np.ndarray, segment: np.ndarray) -> np.ndarray:
    """Running sums that restart at every new ``segment`` value (``segment`` sorted).

    Each running sum is accumulated element by element, left to right, exactly like the C
    loop ``sum += x`` — so results are bit-identical to trec_eval's, unlike subtracting
    the totals of previous segments from one global cumulative sum. Segments are laid out
    as rows of zero-padded matrices (grouped by length class, to bound the padding) and
    summed with ``np.cumsum(axis=1)``, which accumulates sequentially along a row.
    """
    n = len(values)
    out = np.empty(n, dtype=np.float64)
    if n == 0:
        return out
    starts = np.flatnonzero(np.r_[True, segment[1:] != segment[:-1]])
    lengths = np.diff(np.r_[starts, n])
    within = np.arange(n) - np.repeat(starts, lengths)
    length_class = np.ceil(np.log2(lengths)).astype(np.int64)
    for cls in np.flatnonzero(np.bincount(length_class)):  # the classes present
        chosen = np.flatnonzero(length_class == cls)
        chosen_lengths = lengths[chosen]
        rows = np.repeat(np.arange(len(chosen)), chosen_lengths)
        index = np.repeat(starts[chosen], chosen_lengths) + (
            np.arange(len(rows))
            - np.repeat(np.cumsum(chosen_lengths) - chosen_lengths, chosen_lengths)
        )
        cols = within[index]
        matrix = np.zeros((len(chosen), int(chosen_lengths.max())), dtype=np.float64)
        matrix[rows, cols] = values[index]
        out[index] = np.cumsum(matrix, axis=1)[rows, cols]
    return out


_LOG2_CACHE = np.empty(0, dtype=np.float64)


def log2_ranks(n: int) -> np.ndarray:
    """``log2(i + 2)`` for positions ``i < n`` with C's ``log2`` (trec_eval's discount)."""
    global _LOG2_CACHE
    if len(_LOG2_CACHE) < n:
        size = max(n, 2 * len(_LOG2_CACHE), 1024)
        _LOG2_CACHE = np.fromiter(map(math.log2, range(2, size + 2)), np.float64, size)
    return _LOG2_CACHE[:n]


def precisions_at_relevant(rel_topic: np.ndarray, rel_pos: np.ndarray) -> np.ndarray:
    """(relevant so far) / rank at each relevant retrieved document, as in m_map.c (the
    terms AP sums); ``rel_topic`` (sorted) and ``rel_pos`` (0-based rank) per document."""
    first = np.searchsorted(rel_topic, rel_topic, side="left")
    so_far = np.arange(len(rel_topic)) - first + 1
    return so_far.astype(np.float64) / (rel_pos + 1).astype(np.float64)
