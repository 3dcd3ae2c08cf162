"""trecbench.kendall: tau-b by counting every pair equals scipy.stats.kendalltau to the
last bit, ties, infinities and undefined cases included."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from scipy.stats import kendalltau

from trecbench import kendall


def _scipy(x, y) -> float:
    with warnings.catch_warnings():  # scipy warns of the undefined cases it returns NaN for
        warnings.simplefilter("ignore")
        return float(kendalltau(x, y).statistic)


def _same(found: float, expected: float) -> bool:
    """scipy's bits, but 1 (-1) exactly where scipy's two roots miss it by an ulp or two."""
    if abs(found) == 1.0 and abs(found - expected) <= 4e-16:
        return True
    return (math.isnan(found) and math.isnan(expected)) or found == expected


@pytest.mark.parametrize("seed", range(6))
def test_tau_b_is_scipys_to_the_last_bit_with_and_without_ties(seed):
    rng = np.random.default_rng(seed)
    for _ in range(200):
        n = int(rng.integers(0, 60))
        grades = int(rng.integers(1, 8))  # few grades: many ties; many: almost none
        x = rng.integers(0, grades, n) / 7 if seed % 2 else rng.random(n)
        y = rng.integers(0, grades, n) / 3
        if n > 3 and seed == 5:
            x[:2], y[-1] = (np.inf, -np.inf), -0.0  # infinities; -0.0 ties 0.0
        found, expected = kendall.tau_b(x, y), _scipy(x, y)
        assert _same(found, expected), (x.tolist(), y.tolist(), found, expected)


def test_undefined_cases_are_nan_as_in_scipy():
    for x, y in [([], []), ([1.0], [2.0]), ([1, 1, 1], [1, 2, 3]), ([1, 2, 3], [4, 4, 4]),
                 ([1, np.nan, 3], [1, 2, 3])]:  # fmt: skip
        assert math.isnan(kendall.tau_b(x, y)) and math.isnan(_scipy(x, y))
    with pytest.raises(ValueError):
        kendall.tau_b([1, 2], [1, 2, 3])


def test_by_hand():
    # pairs (1,2) concordant, (1,3) discordant, (2,3) tied in y: (1 - 1) / sqrt(3) / sqrt(2)
    assert kendall.tau_b([1, 2, 3], [1, 3, 0]) == pytest.approx(-1 / 3)
    assert kendall.pair_counts(np.array([1.0, 2, 3]), np.array([1.0, 2, 2])) == (2, 0, 1)
    assert kendall.tau_b([1, 2, 3, 4], [4, 3, 2, 1]) == -1.0


@pytest.mark.parametrize("ties", [False, True])
def test_orderings_that_agree_on_every_pair_are_exactly_one(ties):
    # scipy: 0.9999999999999999 for two equal orderings of 5 (10 / sqrt(10) / sqrt(10)),
    # printed in agree's JSON for measures that order the systems alike
    x = np.array([0, 0, 1, 2, 3] if ties else range(5), dtype=float)
    assert abs(_scipy(x, x)) != 1.0 or ties
    assert kendall.tau_b(x, x) == 1.0
    assert kendall.tau_b(x, -x) == -1.0
    assert kendall.tau_b(x, 2 * x + 1) == 1.0
    one_swap = [1, 2, 3, 5, 4]  # 9 of 10 pairs agree: scipy's bits
    assert kendall.tau_b(range(5), one_swap) == _scipy(range(5), one_swap)


def test_beyond_the_small_size_scipy_computes_it(monkeypatch):
    monkeypatch.setattr(kendall, "SMALL", 5)
    rng = np.random.default_rng(1)
    x, y = rng.integers(0, 4, 40), rng.random(40)
    monkeypatch.setattr(kendall, "pair_counts", None)  # not called: scipy's path
    assert kendall.tau_b(x, y) == _scipy(x, y)
