"""Discriminative power (Sakai, SIGIR 2006): for one measure, the share of the
``N(N − 1)/2`` pairs of systems whose difference is significant at α, under a paired test
and a correction for multiple comparisons over those pairs (one family per measure);
and the smallest difference of means found significant.

The tests are :mod:`trecbench.stats`' own, looked up by name in :data:`TESTS`: each takes
the ``topics x runs`` values and gives a p-value per pair, in the order of
:func:`pairs`. A test whose p-values are family-wise already (randomised Tukey HSD,
Carterette 2012) sets ``family_wise`` and no correction is applied on top of it:
registering it is one line here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from itertools import combinations

import numpy as np

from .. import stats
from ..errors import UsageError


@dataclass(frozen=True)
class DiscriminationSettings:
    """Significance level, test (a key of :data:`TESTS`), correction (one of
    :data:`trecbench.stats.CORRECTIONS`), and resamples and seed of the resampling tests."""

    alpha: float = 0.05
    test: str = "t"
    correction: str = "holm"
    samples: int = 10_000
    seed: int = 0

    def __post_init__(self):
        if not 0 < self.alpha < 1:
            raise UsageError(f"alpha must be between 0 and 1, not {self.alpha!r}")
        if self.test not in TESTS:
            raise UsageError(f"unknown test {self.test!r}; choose one of {', '.join(TESTS)}")
        if self.correction not in stats.CORRECTIONS:
            raise UsageError(
                f"unknown correction {self.correction!r}; "
                f"choose one of {', '.join(stats.CORRECTIONS)}"
            )
        if self.samples < 1:
            raise UsageError(f"samples must be at least 1, not {self.samples!r}")


@dataclass(frozen=True)
class PairTest:
    """``pvalues(values, settings)``: one p-value per pair of runs (:func:`pairs` order)
    from the ``topics x runs`` values. ``family_wise``: already adjusted over all pairs."""

    pvalues: Callable[[np.ndarray, DiscriminationSettings], np.ndarray]
    family_wise: bool = False


def pairs(runs: int) -> list[tuple[int, int]]:
    """Every pair ``(i, j)``, ``i < j``, of ``runs`` runs, in lexicographic order."""
    return list(combinations(range(runs), 2))


def pair_differences(values: np.ndarray) -> np.ndarray:
    """``topics x pairs``: run ``i``'s value minus run ``j``'s for every pair."""
    first, second = np.array(pairs(values.shape[1])).reshape(-1, 2).T
    return values[:, first] - values[:, second]


TESTS: dict[str, PairTest] = {
    "t": PairTest(lambda v, s: stats.paired_t_test(pair_differences(v))),
    "bootstrap": PairTest(
        lambda v, s: stats.paired_bootstrap_test(pair_differences(v), s.samples, s.seed)
    ),
    "randomization": PairTest(
        lambda v, s: stats.randomization_test(pair_differences(v), s.samples, s.seed)
    ),
}


@dataclass(frozen=True)
class Discrimination:
    """One measure's discriminative power over ``pairs`` pairs of runs: ``significant`` of
    them at α (adjusted p below α), their share ``discriminative_power`` and the smallest
    absolute difference of means among them (None when none is significant)."""

    measure: str
    pairs: int
    significant: int
    discriminative_power: float | None
    smallest_significant_difference: float | None


def discriminative_power(
    values: np.ndarray, measure: str, settings: DiscriminationSettings
) -> Discrimination:
    """Discriminative power of ``measure`` from its ``topics x runs`` values."""
    count = len(pairs(values.shape[1]))
    if count == 0:
        return Discrimination(measure, count, 0, None, None)
    test = TESTS[settings.test]
    p = test.pvalues(values, settings)
    adjusted = p if test.family_wise else stats.adjust(p, settings.correction)
    significant = np.nan_to_num(adjusted, nan=1.0) < settings.alpha
    differences = np.abs(pair_differences(values).mean(axis=0))
    smallest = float(differences[significant].min()) if significant.any() else None
    return Discrimination(
        measure, count, int(significant.sum()), float(significant.mean()), smallest
    )
