"""A sampled permutation p-value, ``(count + 1) / (samples + 1)``, is not printed below the
smallest p of the exact permutation distribution it samples (Tukey HSD's ``k!/k!^n``, the
sign-flip test's ``2/2^n``): docs/compare.md states that floor, and no p below it can be
right. Exact p-values from scipy's permutation test and from enumeration."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from click.testing import CliRunner

from trecbench.cli import cli
from trecbench.stats import randomization_test
from trecbench.tukey import tukey_hsd


def _scipy_exact_paired(a, b) -> float:
    from scipy.stats import permutation_test

    result = permutation_test(
        (np.asarray(a, float), np.asarray(b, float)),
        lambda x, y: np.mean(x - y),
        permutation_type="samples",
        n_resamples=np.inf,
        alternative="two-sided",
    )
    return float(result.pvalue)


def test_tukey_of_two_runs_is_not_below_the_exact_floor():
    # 2 runs: a permutation within a topic swaps them, the range is |mean difference|:
    # Tukey HSD's exact p is the sign-flip test's, 2/2^5; 40 draws printed 2/41 = 0.0488
    a, b = np.zeros(5), np.ones(5)
    exact = _scipy_exact_paired(b, a)
    assert exact == pytest.approx(2 / 2**5)
    p = tukey_hsd(np.column_stack([a, b]), samples=40, seed=6)
    assert p[0, 1] == p[1, 0] == pytest.approx(exact, abs=1e-15)


def test_tukey_of_three_runs_is_not_below_the_exact_floor():
    values = np.array([[0, 0.5, 1], [0, 0.3, 0.9], [0, 0.4, 0.8], [0, 0.2, 0.7]])
    observed = values[:, 2].mean() - values[:, 0].mean()
    # every permutation of each topic's values, 3!^4 = 1296: those whose range of means
    # reaches the observed gap (the same permutation of every topic: 3! of them)
    count = total = 0
    for perms in itertools.product(itertools.permutations(range(3)), repeat=len(values)):
        means = np.mean([row[list(perm)] for row, perm in zip(values, perms, strict=True)], axis=0)
        count += means.max() - means.min() >= observed - 1e-12
        total += 1
    exact = count / total
    assert exact == pytest.approx(6 / 6**4)
    p = tukey_hsd(values, samples=300, seed=0)  # no draw reaches it: 1/301 before
    assert p[0, 2] == pytest.approx(exact, abs=1e-15)
    assert (p >= exact - 1e-15).all()


def test_a_sampled_randomisation_p_is_not_below_the_exact_floor():
    diffs = np.array([0.1, 0.2, 0.3, 0.4, 0.5, 0.6])
    exact = _scipy_exact_paired(diffs, np.zeros(6))
    assert exact == pytest.approx(2 / 2**6)
    # 2^6 = 64 > 40 samples: sampled; no draw as extreme, 1/41 = 0.0244 before
    assert randomization_test(diffs, samples=40, seed=1)[0] == pytest.approx(exact, abs=1e-15)


def test_compare_prints_tukeys_floor_not_a_sampled_p_below_it(tmp_path):
    qrels, a, b = (tmp_path / name for name in ("q.qrels", "a.run", "b.run"))
    qrels.write_text("".join(f"t{t} 0 rel 1\nt{t} 0 x 0\n" for t in range(5)))
    a.write_text("".join(f"t{t} Q0 x 1 2 a\n" for t in range(5)))
    b.write_text("".join(f"t{t} Q0 rel 1 2 b\n" for t in range(5)))
    argv = ["compare", str(qrels), str(a), str(b), "-m", "P@1", "--test", "tukey"]
    result = CliRunner().invoke(cli, [*argv, "--samples", "40", "--seed", "6"])
    assert result.exit_code == 0, result.output
    row = next(line for line in result.output.splitlines() if "5/0/0" in line)
    assert row.split()[-1] == "0.0625"  # 2/2^5; it printed 0.0488, below its own note's floor
