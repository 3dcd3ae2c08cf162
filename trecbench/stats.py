"""Statistics over per-query scores: paired tests, effect sizes, p-value correction, and
the registered tests over pairs of columns (:mod:`trecbench.statistical_tests`).

Everything works on matrices with one row per query and one column per (run, measure) —
or per paired difference — so one pass of resampling serves every column at once. The
resampling (bootstrap means and intervals, the seeded streams and blocks of draws) is
:mod:`trecbench.resampling`'s; its names are importable from here as they always were.

Conventions (documented because tools differ):

* Confidence interval: the bootstrap percentile interval of :mod:`trecbench.resampling`.
* Paired bootstrap test (Efron & Tibshirani 1993, §16.4; Sakai 2006): the differences are
  shifted to mean 0 (the null hypothesis) and resampled; ``p = (count + 1) / (samples +
  1)`` with ``count`` the resampled means at least as far from 0 as the observed mean,
  two-sided (the observed sample counts as one resample, so p is never 0). When
  the differences do not vary (within every stratum, for macro means) every resample is
  the observed mean: the null distribution is a point and p is undefined (NaN).
* Randomisation test (Fisher; Smucker, Allan & Carterette 2007): each query's difference
  keeps or flips its sign with probability 1/2. With ``2**n <= samples`` every one of the
  ``2**n`` sign patterns is enumerated and ``p = count / 2**n`` (exact; ``count``
  includes the observed pattern and its mirror image, so ``p >= 2 / 2**n``); otherwise
  ``p = (count + 1) / (samples + 1)`` over sampled patterns (the +1 counts the observed
  pattern, so the Monte Carlo p-value is never 0), but never below the exact test's
  ``2 / 2**n``, which it can undercut when ``samples + 1 > 2**(n - 1)``: clipped there.
* Paired t-test: two-sided, the same formula as ``scipy.stats.ttest_rel``. When the
  differences do not vary (all equal, or all 0) the statistic is undefined and so is p
  (NaN; scipy returns an infinite t and p = 0, or NaN). With a single query p is NaN.
* Randomised Tukey HSD (Carterette, TOIS 2012): see :mod:`trecbench.tukey`.
* Effect size: Cohen's d_z for paired samples, ``mean(d) / sd(d)`` with ``sd`` the sample
  standard deviation (ddof = 1); NaN when ``sd`` is 0.
* The mean difference the tests, the effect size and every command print is
  :func:`~trecbench.rounding.mean_difference`: summed exactly, 0 where differences add up
  to 0 on paper (their floats' rounding leaves a few units in the 17th digit).
* Corrections: Bonferroni, Holm (step-down) and Benjamini–Hochberg (step-up, false
  discovery rate) over all finite p-values given; NaN stays NaN.

Macro means (every stratum counts the same, e.g. code-chunk's mean of per-repo means) are
weighted means with weight ``1 / (G * n_g)`` for a topic of stratum ``g`` (``G`` strata,
``n_g`` topics in it). Their intervals resample topics *within* each stratum (a stratified
bootstrap keeps every stratum's size, stream 2); the paired tests take the same weights:
the randomisation test flips signs of the weighted differences, the bootstrap test shifts
the stratified resamples, and the t-test is the stratified one (variance
``sum_g (s_g^2 / n_g) / G^2``, Welch–Satterthwaite degrees of freedom). The t-test and
the bootstrap (its test and its intervals) need two topics in every stratum: a stratum of
one topic has no variance to estimate (the stratified bootstrap draws that topic every
time), so they give NaN (:func:`stratum_of_one`). With one stratum all three are the
unweighted tests.

The weaker, unpaired design the RAG spec describes is there too, for reference: the
two-sample Welch t-test (``scipy.stats.ttest_ind(..., equal_var=False)``) and the normal
approximation interval ``mean ± z * sd / sqrt(n)`` (``z`` the normal quantile, 1.96 for
95%). They ignore that both runs answered the same topics, so they are less powerful
than the paired tests and intervals above; trecbench reports them only beside those.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from . import exact_sums, statistical_tests
from .kernels import mean_of_means
from .resampling import (
    BLOCK,
    BOOTSTRAP_STREAM,
    PAIRS,
    RANDOMIZATION_STREAM,
    STRATIFIED_STREAM,
    TUKEY_STREAM,
    Progress,
    as_matrix,
    blocks,
    bootstrap_ci,
    bootstrap_means,
    generator,
    macro_weights,
    percentile_interval,
    refuse_interval,
)
from .rounding import REORDERED, mean_difference, rounding_noise, value_scale

TESTS = statistical_tests.NAMES
CORRECTIONS = statistical_tests.CORRECTION_CHOICES
DEFAULT_CORRECTION = statistical_tests.DEFAULT_CORRECTION

# every public name: this module's, and the resampling's it has always been imported from
__all__ = [
    "BLOCK", "BOOTSTRAP_STREAM", "CORRECTIONS", "DEFAULT_CORRECTION", "PAIRS",
    "RANDOMIZATION_STREAM", "STRATIFIED_STREAM", "TESTS", "TUKEY_STREAM", "Paired",
    "Progress", "adjust", "all_pairs_p", "as_matrix", "bootstrap_ci",
    "bootstrap_means", "bootstrap_p", "bootstrap_pairs", "constant", "effect_size",
    "generator", "macro_weights", "normal_interval", "paired_bootstrap_test",
    "paired_t_test", "pair_p_values", "per_block", "percentile_interval",
    "randomization_pairs", "randomization_test", "refuse_interval", "sample_sd",
    "stratified_t_test", "stratum_of_one", "t_pairs", "topic_mean", "unit_exponents",
    "welch_t_test",
]  # fmt: skip


def _tolerance(diffs: np.ndarray) -> np.ndarray:
    # Sums of the same numbers in another order differ in the last bits; a resample that
    # reproduces the observed statistic must count as "at least as extreme".
    return REORDERED * np.maximum(np.abs(diffs).mean(axis=0), 1e-300)


def topic_mean(matrix: np.ndarray) -> np.ndarray:
    """Per column (per everything but the first axis), the mean over topics (the first
    axis), summed in topic order as trec_eval sums: ``mean(axis=0)`` sums pairwise along a
    contiguous axis, so one column's mean moved in its last bits with the columns beside
    it. NaN where there is no topic."""
    if not len(matrix):
        return np.full(matrix.shape[1:], np.nan)
    return np.cumsum(matrix, axis=0)[-1] / len(matrix)


def strata_mean(matrix: np.ndarray, strata) -> np.ndarray:
    """Per column, the mean of the strata's means (``strata``: one label per topic), each
    summed in topic order (:func:`topic_mean`), taken as ``score --group-by`` and
    ``leaderboard`` take a macro mean (:func:`~trecbench.kernels.mean_of_means`): the
    weighted sum of :func:`macro_weights` printed a last digit apart from theirs."""
    # as objects: numpy's text arrays drop trailing NULs, making strata "s" and "s\0" one
    codes = np.unique(np.asarray(strata, dtype=object), return_inverse=True)[1].ravel()
    order = np.argsort(codes, kind="stable")  # each stratum's topics in topic order
    grouped, bounds = matrix[order], np.flatnonzero(np.diff(codes[order])) + 1
    # a slice per stratum, not a mask: 7,000 strata of one topic took 0.35 s
    means = [topic_mean(part) for part in np.split(grouped, bounds)]
    return mean_of_means(np.stack(means), axis=0)


def bootstrap_p(
    diffs, resampled_means: np.ndarray, weights=None, strata=None, scale=None
) -> np.ndarray:
    """Two-sided paired bootstrap p-value per column of ``diffs`` (queries x columns).

    ``resampled_means`` are the bootstrap means of the *unshifted* differences (from
    :func:`bootstrap_means`); shifting by the observed mean ``m`` gives the null
    distribution, so a resample is extreme when ``|mean* - m| >= |m|``; ``p = (count + 1)
    / (samples + 1)``, the observed sample counted as one resample (as the randomisation
    test does), so p is never 0: with two topics whose differences both exceed their
    spread no resample is extreme, and ``count / samples`` printed p = 0. With ``weights``
    (:func:`macro_weights`) ``m`` is the weighted (macro) mean and the resamples those of
    the stratified bootstrap (``strata``). Differences that do not vary (within every
    stratum) give NaN: every resample is the observed mean, there is no null distribution;
    so does a stratum of one topic (:func:`stratum_of_one`): its topic is drawn every time,
    and a null distribution without its variance made one topic's gain significant.
    ``scale``: the size of the values subtracted (:func:`~trecbench.rounding.rounding_noise`).
    """
    matrix = as_matrix(diffs)
    if strata is not None and stratum_of_one(strata):
        return np.full(matrix.shape[1], np.nan)
    observed = mean_difference(matrix, weights, scale)  # the difference compare prints
    extreme = np.abs(resampled_means - observed) >= np.abs(observed) - _tolerance(matrix)
    p = (extreme.sum(axis=0) + 1) / (resampled_means.shape[0] + 1)
    return np.where(constant(matrix, strata, scale), np.nan, p)


def stratum_of_one(strata) -> bool:
    """Does a stratum hold fewer than two topics? Its variance cannot be estimated: the
    stratified t-test has none, and the stratified bootstrap draws its one topic every
    time, leaving it out of every interval and null distribution."""
    return bool(np.unique(np.asarray(strata), return_counts=True)[1].min() < 2)


def constant(diffs, strata=None, scale=None) -> np.ndarray:
    """Per column: do the differences not vary, beyond :func:`rounding_noise` (within
    every stratum, with ``strata``)? Then a resample of them is always the observed mean
    and a t statistic is undefined. ``scale``: the size of the values subtracted, as
    :func:`rounding_noise` takes it (the values' own for a column of values)."""
    matrix = as_matrix(diffs)
    noise = rounding_noise(matrix, scale)
    if strata is None:
        return np.ptp(matrix, axis=0) <= noise
    labels = np.asarray(strata)
    spreads = [np.ptp(matrix[labels == label], axis=0) for label in np.unique(labels)]
    return np.all([spread <= noise for spread in spreads], 0)


def paired_bootstrap_test(
    diffs, samples: int = 10_000, seed: int = 0, progress: Progress | None = None
) -> np.ndarray:
    """Two-sided paired bootstrap test of mean difference 0, per column."""
    return bootstrap_p(diffs, bootstrap_means(diffs, samples, seed, progress))


def randomization_test(
    diffs,
    samples: int = 10_000,
    seed: int = 0,
    progress: Progress | None = None,
    weights=None,
) -> np.ndarray:
    """Two-sided paired randomisation (sign-flip permutation) test, per column.

    The statistic is the sum of the differences, or with ``weights`` their weighted sum
    (the macro mean: :func:`macro_weights`); each query keeps or flips its sign. With
    ``2**queries <= samples`` every sign pattern is taken once (exact p, no draws).
    """
    matrix = as_matrix(diffs)
    if samples < 1:
        raise ValueError("samples must be at least 1")
    n = matrix.shape[0]
    exact = n < 63 and 2**n <= samples
    rng = generator(seed, RANDOMIZATION_STREAM)
    scaled = matrix if weights is None else matrix * np.asarray(weights, np.float64)[:, None]
    observed = np.abs(scaled.sum(axis=0)) - n * _tolerance(scaled)
    parts = exact_sums.split(scaled, n)  # n signs of +-1 a row
    count = np.zeros(matrix.shape[1], dtype=np.int64)
    patterns = 2**n if exact else samples
    for start, size in blocks(patterns):
        if exact:  # pattern k: bit i of k set = topic i keeps its sign
            bits = (np.arange(start, start + size)[:, None] >> np.arange(n)) & 1
            signs = bits.astype(np.float64)
        else:
            signs = rng.integers(0, 2, size=(size, n), dtype=np.int8).astype(np.float64)
        signs *= 2
        signs -= 1
        count += (np.abs(exact_sums.sums(parts, signs)) >= observed).sum(axis=0)
        if progress is not None:
            progress(samples * (start + size) // patterns, samples)
    if exact:
        return count / patterns
    # no p below the exact test's smallest, 2/2^n, which (count + 1) / (samples + 1) can
    # undercut when samples + 1 > 2^(n-1) and no draw is as extreme as the observed signs
    floor = statistical_tests.exact_smallest_p("randomization", n)
    return np.maximum((count + 1) / (samples + 1), floor)


def unit_exponents(*matrices: np.ndarray) -> np.ndarray:
    """Per column, the exponent ``e`` that puts the largest size of a value of
    ``matrices`` in [2^(e - 1), 2^e): values times 2^-e (exact: a power of two) are at
    most 1 in size, so their squares do not underflow where the values' own do (RBP(p=0.01)
    deep in a ranking is 1e-200, whose square is 0: an sd of 0, a p of 0). A t, a d_z and
    Welch's df do not change with the scale; in the usual range neither do their bits."""
    largest = np.max([np.abs(matrix).max(axis=0) for matrix in matrices], axis=0)
    return np.frexp(largest)[1]


def _unit_mean_and_sd(matrix: np.ndarray, scale=None) -> tuple[np.ndarray, np.ndarray]:
    """Per column, the mean difference (:func:`mean_difference`, of the values as given)
    and the sample sd, both times 2^-e (:func:`unit_exponents`): their quotient, a d_z or
    a t, without the squares underflowing."""
    exponents = unit_exponents(matrix)
    sd = np.ldexp(matrix, -exponents).std(axis=0, ddof=1)
    return np.ldexp(mean_difference(matrix, None, scale), -exponents), sd


def sample_sd(matrix: np.ndarray) -> np.ndarray:
    """Per column, the sample standard deviation (ddof 1), computed at unit scale
    (:func:`unit_exponents`): ``std(ddof=1)`` without its squares underflowing."""
    exponents = unit_exponents(matrix)
    return np.ldexp(np.ldexp(matrix, -exponents).std(axis=0, ddof=1), exponents)


def _t_p(t: np.ndarray, df) -> np.ndarray:
    """Two-sided p-value of Student's t with ``df`` degrees of freedom."""
    from scipy.special import stdtr

    return 2 * stdtr(df, -np.abs(t))


def paired_t_test(diffs, scale=None) -> np.ndarray:
    """Two-sided paired t-test p-value per column, as ``scipy.stats.ttest_rel`` computes it.

    ``t = mean(d) / (sd(d) / sqrt(n))`` with ``n - 1`` degrees of freedom and
    ``p = 2 * stdtr(n - 1, -|t|)`` (Student's t CDF from ``scipy.special``, which loads
    several times faster than ``scipy.stats``). Differences that do not vary (``sd`` 0,
    where scipy gives an infinite t and p = 0, or NaN when all are 0) and fewer than two
    queries give NaN: the statistic is undefined. ``scale``: the size of the values
    subtracted (:func:`~trecbench.rounding.rounding_noise`).
    """
    matrix = as_matrix(diffs)
    n = matrix.shape[0]
    if n < 2:
        return np.full(matrix.shape[1], np.nan)
    with np.errstate(divide="ignore", invalid="ignore"):
        difference, sd = _unit_mean_and_sd(matrix, scale)  # no square underflows
        t = difference / (sd / np.sqrt(n))
        p = _t_p(t, n - 1)
    return np.where(constant(matrix, None, scale), np.nan, p)


def stratified_t_test(diffs, strata, scale=None) -> np.ndarray:
    """Two-sided t-test of a macro mean difference of 0 (the mean of the strata's mean
    differences), per column.

    ``t = D / sqrt(V)`` with ``D = sum_g mean_g / G`` and ``V = sum_g v_g`` where
    ``v_g = s_g^2 / (n_g G^2)`` (``s_g`` the sample sd of stratum ``g``'s differences);
    Welch–Satterthwaite degrees of freedom ``V^2 / sum_g v_g^2 / (n_g - 1)``. With one
    stratum it is :func:`paired_t_test`. A stratum with fewer than two topics has no
    variance, and with ``V = 0`` (no stratum's differences vary) the statistic is
    undefined: the p-value is then NaN.
    """
    matrix = as_matrix(diffs)
    if stratum_of_one(strata):
        return np.full(matrix.shape[1], np.nan)
    labels = np.asarray(strata)
    groups = [np.flatnonzero(labels == label) for label in np.unique(labels)]
    g = len(groups)
    exponents = unit_exponents(matrix)  # t and df at unit scale: no variance underflows
    unit = np.ldexp(matrix, -exponents)
    parts = np.array([unit[rows].var(axis=0, ddof=1) / (len(rows) * g * g) for rows in groups])
    sizes = np.array([len(rows) for rows in groups], dtype=np.float64)[:, None]
    # sum_g mean_g / G
    difference = np.ldexp(mean_difference(matrix, macro_weights(labels), scale), -exponents)
    variance = parts.sum(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        df = variance**2 / (parts**2 / (sizes - 1)).sum(axis=0)
        p = _t_p(difference / np.sqrt(variance), df)
    return np.where(constant(matrix, labels, scale), np.nan, p)


def welch_t_test(a, b) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Two-sample Welch t-test per column of ``a`` and ``b`` (samples x columns), as
    ``scipy.stats.ttest_ind(a, b, equal_var=False)``: ``(t, df, p)``, two-sided.

    The unpaired design of the RAG spec: it treats the two runs' per-topic values as
    independent samples, ignoring that they answer the same topics (weaker than the
    paired tests). Two constant samples (no variance on either side beyond
    :func:`rounding_noise`: t divides by 0, or by the last bits of a mean of equal
    values) and fewer than two values on a side give NaN for ``t``, ``df`` and ``p``.
    """
    a, b = as_matrix(a), as_matrix(b)
    n_a, n_b = a.shape[0], b.shape[0]
    if min(n_a, n_b) < 2:
        nan = np.full(a.shape[1], np.nan)
        return nan, nan.copy(), nan.copy()
    exponents = unit_exponents(a, b)  # t and df at unit scale: no variance underflows
    unit_a, unit_b = np.ldexp(a, -exponents), np.ldexp(b, -exponents)
    va, vb = unit_a.var(axis=0, ddof=1) / n_a, unit_b.var(axis=0, ddof=1) / n_b
    # samples of one size: the difference of means is the paired one, as compare prints it
    paired = n_a == n_b
    difference = np.ldexp(
        mean_difference(a - b, None, value_scale(a, b)) if paired else a.mean(0) - b.mean(0),
        -exponents,
    )
    with np.errstate(divide="ignore", invalid="ignore"):
        t = difference / np.sqrt(va + vb)
        df = (va + vb) ** 2 / (va**2 / (n_a - 1) + vb**2 / (n_b - 1))
        p = _t_p(t, df)
    return tuple(np.where(neither_varies(a, b), np.nan, x) for x in (t, df, p))


def neither_varies(a, b) -> np.ndarray:
    """Per column: do neither ``a``'s values nor ``b``'s vary beyond their own rounding
    (:func:`constant` at each one's size)? Then Welch's t is undefined."""
    return constant(a, None, value_scale(a)) & constant(b, None, value_scale(b))


def normal_interval(values, confidence: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Normal-approximation interval of the mean per column: ``mean ± z * sd / sqrt(n)``
    with ``z`` the ``(1 + confidence) / 2`` standard normal quantile and ``sd`` the sample
    standard deviation (ddof 1), as the RAG spec computes it (it rounds ``z`` to 1.96 for
    95%). NaN with fewer than two values."""
    from scipy.special import ndtri

    if not 0 < confidence < 1:
        raise ValueError("confidence must be between 0 and 1")
    matrix = as_matrix(values)
    n = matrix.shape[0]
    if n < 2:
        nan = np.full(matrix.shape[1], np.nan)
        return nan, nan.copy()
    margin = ndtri((1 + confidence) / 2) * sample_sd(matrix) / np.sqrt(n)
    mean = matrix.mean(axis=0)
    return mean - margin, mean + margin


def effect_size(diffs, scale=None) -> np.ndarray:
    """Paired Cohen's d_z per column: mean difference (:func:`mean_difference`: 0 where
    the differences add up to 0 on paper) / sample sd of the differences. ``scale``: the
    size of the values subtracted (:func:`~trecbench.rounding.rounding_noise`)."""
    matrix = as_matrix(diffs)
    if matrix.shape[0] < 2:
        return np.full(matrix.shape[1], np.nan)
    difference, sd = _unit_mean_and_sd(matrix, scale)  # no square underflows
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(constant(matrix, None, scale), np.nan, difference / sd)


def adjust(pvalues, method: str = DEFAULT_CORRECTION) -> np.ndarray:
    """Adjust p-values for multiple comparisons: ``holm``, ``bonferroni``, ``bh`` or ``none``.

    NaN entries are ignored (they neither count towards the number of comparisons nor get
    an adjusted value). Adjusted values are capped at 1.
    """
    if method not in CORRECTIONS:
        raise ValueError(f"unknown correction {method!r}; choose one of {', '.join(CORRECTIONS)}")
    p = np.asarray(pvalues, dtype=np.float64)
    out = p.copy()
    finite = np.flatnonzero(np.isfinite(p))
    m = finite.size
    if method == "none" or m == 0:
        return out
    if method == "bonferroni":
        out[finite] = np.minimum(1.0, p[finite] * m)
        return out
    order = finite[np.argsort(p[finite], kind="stable")]
    ranked = p[order]
    if method == "holm":
        # Step-down: the i-th smallest (1-based) is multiplied by m - i + 1, kept monotone.
        scaled = np.maximum.accumulate(ranked * (m - np.arange(m)))
    else:
        # Benjamini–Hochberg step-up: the i-th smallest times m / i, monotone from the top.
        scaled = np.minimum.accumulate((ranked * m / np.arange(1, m + 1))[::-1])[::-1]
    out[order] = np.minimum(1.0, scaled)
    return out


# ---------------------------------------------------------------------------------------
# the registered tests over pairs of columns (see trecbench.statistical_tests)


@dataclass(frozen=True)
class Paired:
    """What a registered test needs: ``values`` (topics x columns) and the pairs of
    columns to test (``left[k]`` against ``right[k]``, difference left − right).

    ``strata`` (one label per topic) asks for the macro form (weights
    :func:`macro_weights`); ``resampled`` are :func:`bootstrap_means` of every column
    (the bootstrap test reuses them); ``families`` are the groups of columns compared
    together (Tukey HSD: one measure's runs; a pair's two columns are in one family).
    """

    values: np.ndarray
    left: np.ndarray
    right: np.ndarray
    samples: int = 10_000
    seed: int = 0
    strata: np.ndarray | None = None
    resampled: np.ndarray | None = None
    families: tuple[np.ndarray, ...] = ()
    progress: Progress | None = None

    @property
    def weights(self) -> np.ndarray | None:
        return None if self.strata is None else macro_weights(self.strata)

    def blocks(self) -> Iterator[np.ndarray]:
        """Indices of the pairs, :data:`PAIRS` at a time: memory grows with the block,
        not with the number of pairs."""
        for start in range(0, len(self.left), PAIRS):
            yield np.arange(start, min(start + PAIRS, len(self.left)))

    def diffs(self, block: np.ndarray) -> np.ndarray:
        return self.values[:, self.left[block]] - self.values[:, self.right[block]]

    def scale(self, block: np.ndarray) -> np.ndarray:
        """The size of the values each pair of ``block`` subtracts
        (:func:`~trecbench.rounding.value_scale`)."""
        return value_scale(self.values[:, self.left[block]], self.values[:, self.right[block]])


def pair_p_values(test: str, paired: Paired) -> np.ndarray:
    """p-value of every pair of ``paired`` under registered test ``test`` (a name of
    :data:`trecbench.statistical_tests.TESTS`; NaN where the test is undefined)."""
    if len(paired.left) == 0:
        return np.empty(0)
    return np.asarray(statistical_tests.function(test)(paired), dtype=np.float64)


def all_pairs_p(
    values, test: str, samples: int = 10_000, seed: int = 0, progress: Progress | None = None
) -> np.ndarray:
    """``runs x runs`` p-values of registered test ``test`` (by name, e.g. ``"t"`` or
    ``"tukey"``) for every pair of runs (columns of ``values``: topics x runs), as
    ``compare`` computes them for one measure over all topics: unadjusted (Tukey HSD's
    are family-wise already), NaN where the test is undefined; the diagonal is NaN.
    ``progress(done, total)`` is told the resamples drawn by a test that draws them."""
    matrix = as_matrix(values)
    k = matrix.shape[1]
    left, right = np.triu_indices(k, 1)
    resampled = None
    if test == "bootstrap":
        resampled = bootstrap_means(matrix, samples, seed, progress)
    families = (np.arange(k),)
    paired = Paired(matrix, left, right, samples, seed, None, resampled, families, progress)
    out = np.full((k, k), np.nan)
    out[left, right] = out[right, left] = pair_p_values(test, paired)
    return out


def per_block(paired: Paired, p_of: Callable[[np.ndarray, np.ndarray], np.ndarray]):
    """``p_of(diffs, block)`` over the blocks of ``paired``'s pairs, concatenated."""
    return np.concatenate([p_of(paired.diffs(block), block) for block in paired.blocks()])


def t_pairs(paired: Paired) -> np.ndarray:
    """The paired t-test (stratified with ``strata``) of every pair."""
    if paired.strata is None:
        return per_block(paired, lambda diffs, block: paired_t_test(diffs, paired.scale(block)))
    return per_block(
        paired, lambda diffs, block: stratified_t_test(diffs, paired.strata, paired.scale(block))
    )


def bootstrap_pairs(paired: Paired) -> np.ndarray:
    """The paired bootstrap test of every pair, from the columns' resampled means."""
    boot, weights = paired.resampled, paired.weights

    def p_of(diffs: np.ndarray, block: np.ndarray) -> np.ndarray:
        resampled = boot[:, paired.left[block]] - boot[:, paired.right[block]]
        return bootstrap_p(diffs, resampled, weights, paired.strata, paired.scale(block))

    return per_block(paired, p_of)


def randomization_pairs(paired: Paired) -> np.ndarray:
    """The randomisation test of every pair; every block of pairs sees the same sign
    patterns (a pair's p does not depend on the others)."""
    blocks = max(1, -(-len(paired.left) // PAIRS))
    done = 0

    def p_of(diffs: np.ndarray, _block: np.ndarray) -> np.ndarray:
        nonlocal done
        progress = None
        if paired.progress is not None:

            def progress(step: int, total: int, _done: int = done) -> None:
                paired.progress((_done * total + step) // blocks, total)

        done += 1
        return randomization_test(diffs, paired.samples, paired.seed, progress, paired.weights)

    return per_block(paired, p_of)
