"""trecbench.exact_sums against math.fsum (correctly rounded exact sums), and the seeded
statistics built on it: the same bits whatever BLAS's thread count."""

from __future__ import annotations

import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from trecbench import exact_sums


def _fsum_products(coefficients: np.ndarray, values: np.ndarray) -> np.ndarray:
    """The exactly rounded ``coefficients @ values``: each value repeated |coefficient|
    times (whole-number coefficients), added by math.fsum."""
    out = np.empty((coefficients.shape[0], values.shape[1]))
    for r, row in enumerate(coefficients):
        for c in range(values.shape[1]):
            pairs = zip(row, values[:, c], strict=True)
            out[r, c] = math.fsum(np.sign(k) * v for k, v in pairs for _ in range(abs(int(k))))
    return out


HOSTILE = {
    "uniform": lambda rng: rng.random((40, 3)),
    "signed": lambda rng: rng.normal(0, 1, (40, 3)),
    "exponents far apart": lambda rng: rng.random((40, 3)) * 10.0 ** rng.integers(-30, 3, (40, 3)),
    "huge": lambda rng: rng.normal(0, 1e300, (40, 3)),
    "subnormal": lambda rng: rng.normal(0, 1, (40, 3)) * 5e-324 * 2**20,
    "zeros and -0.0": lambda rng: np.where(rng.random((40, 3)) < 0.5, -0.0, 0.0),
}


@pytest.mark.parametrize("name", list(HOSTILE))
@pytest.mark.parametrize("kind", ["counts", "signs"])
def test_sums_are_the_exact_sums_cut_far_below_float64_rounding(name, kind):
    rng = np.random.default_rng(5)
    values = HOSTILE[name](rng)
    n = values.shape[0]
    if kind == "counts":  # bootstrap counts: n draws a row
        coefficients = np.stack([np.bincount(rng.integers(0, n, n), minlength=n) for _ in range(6)])
    else:
        coefficients = rng.choice([-1.0, 1.0], size=(6, n))
    got = exact_sums.sums(exact_sums.split(values, n), coefficients)
    exact = _fsum_products(coefficients, values)
    # each value is cut at 2**-64 of its column's largest |value|, then at most one rounding
    cut = n * 2.0**-64 * np.abs(values).max(axis=0)
    assert np.all(np.abs(got - exact) <= np.spacing(np.abs(exact)) + cut)
    assert not np.signbit(got[got == 0]).any()  # no -0.0, whatever BLAS adds first


def test_columns_and_rows_do_not_change_each_others_bits():
    rng = np.random.default_rng(6)
    values = rng.normal(0, 1, (500, 4))
    signs = rng.choice([-1.0, 1.0], size=(64, 500))
    whole = exact_sums.sums(exact_sums.split(values, 500), signs)
    alone = exact_sums.sums(exact_sums.split(values[:, 2:3], 500), signs[5:7])
    assert np.array_equal(whole[5:7, 2:3], alone)


def test_bounds_beyond_whole_number_precision_are_refused():
    with pytest.raises(ValueError, match="not supported"):
        exact_sums.split(np.ones((3, 1)), 2**40)


SEEDED = """
import hashlib, numpy as np
from trecbench import exact_sums, stats, tukey
rng = np.random.default_rng(7)
values = rng.random((300, 10))
strata = np.arange(300) % 3
diffs = values - rng.random((300, 10))
signs = stats.generator(1, stats.RANDOMIZATION_STREAM).integers(0, 2, (256, 300)) * 2.0 - 1
results = {
    "bootstrap means": stats.bootstrap_means(values, 2000, seed=3),
    "stratified means": stats.bootstrap_means(values, 2000, seed=3, strata=strata),
    "bootstrap interval": np.array(stats.bootstrap_ci(values, 2000, seed=3)),
    "bootstrap p": stats.paired_bootstrap_test(diffs, 2000, seed=3),
    "randomisation p": stats.randomization_test(diffs, 2000, seed=3),
    "sign-flip sums": exact_sums.sums(exact_sums.split(diffs, 300), signs),
    "tukey p": tukey.tukey_hsd(values[:, :4], 300, seed=3),
}
for name, array in results.items():
    print(name, hashlib.sha256(np.ascontiguousarray(array).tobytes()).hexdigest())
"""


def test_seeded_statistics_are_the_same_bits_under_one_and_two_blas_threads():
    """A user's OPENBLAS_NUM_THREADS (the CLI sets 1, the Python API nothing) must not
    change a seeded interval or p-value: OpenBLAS adds a matrix product in another order
    with two threads than with one."""
    root = str(Path(__file__).resolve().parents[1])
    outputs = []
    for threads in ("1", "2"):
        env = {**os.environ, "OPENBLAS_NUM_THREADS": threads, "PYTHONPATH": root}
        done = subprocess.run(
            [sys.executable, "-c", SEEDED], capture_output=True, text=True, env=env, check=True
        )
        outputs.append(done.stdout.splitlines())
    assert len(outputs[0]) == 7
    assert outputs[0] == outputs[1]
