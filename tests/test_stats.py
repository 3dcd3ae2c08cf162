"""trecbench.stats against scipy, exact enumeration, hand-worked examples and simulation."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats as sps

from trecbench import resampling, stats, tukey
from trecbench.rounding import value_scale


def test_t_test_equals_scipy_on_the_same_per_query_values():
    rng = np.random.default_rng(7)
    a = rng.random((40, 5))
    b = np.clip(a + rng.normal(0.03, 0.1, size=a.shape), 0, 1)
    b[:, 0] = a[:, 0] + rng.normal(0.2, 0.05, size=40)  # far tail: p around 1e-20
    got = stats.paired_t_test(a - b)
    assert got[0] < 1e-15
    for column in range(a.shape[1]):
        expected = sps.ttest_rel(a[:, column], b[:, column]).pvalue
        assert got[column] == pytest.approx(expected, rel=1e-12)


def test_t_test_hand_worked_with_two_degrees_of_freedom():
    # d = (1, 2, 6): mean 3, sd sqrt(7), t = 3 / (sqrt(7) / sqrt(3)); with 2 df the
    # two-sided p-value has the closed form 1 - t / sqrt(2 + t^2).
    t = 3 / (math.sqrt(7) / math.sqrt(3))
    assert stats.paired_t_test([1.0, 2.0, 6.0])[0] == pytest.approx(1 - t / math.sqrt(2 + t * t))


def test_identical_runs_have_no_t_or_bootstrap_p_and_randomisation_p_one():
    # all differences 0: the t statistic is 0/0 and the bootstrap's null distribution a
    # point (undefined, NaN); every sign pattern ties the observed sum (p = 1)
    zeros = np.zeros((10, 2))
    assert np.isnan(stats.paired_t_test(zeros)).all()
    assert np.isnan(stats.paired_bootstrap_test(zeros, samples=50)).all()
    assert stats.randomization_test(zeros, samples=50).tolist() == [1.0, 1.0]
    assert stats.randomization_test(zeros, samples=5000).tolist() == [1.0, 1.0]  # exact
    assert np.isnan(stats.effect_size(zeros)).all()


def test_tiny_values_give_the_statistics_of_the_same_values_at_unit_size():
    # RBP(p=0.001) deep in a ranking is 1e-240 to 1e-300: the squares of such differences
    # underflow to 0, which gave sd 0, d_z -inf, t-test p 0 (significant ***) and a point
    # as the normal interval of values that vary; a power of two changes none of them
    rng = np.random.default_rng(3)
    a, b = rng.random((8, 2)), rng.random((8, 2))
    for size in (1e-160, 1e-240, 1e-300):
        small_a, small_b = a * size, b * size
        scale = value_scale(small_a, small_b)  # as compare gives it: the values' size
        assert stats.paired_t_test(small_a - small_b, scale) == pytest.approx(
            sps.ttest_rel(a, b).pvalue, rel=1e-9
        )
        assert stats.effect_size(small_a - small_b, scale) == pytest.approx(
            stats.effect_size(a - b), rel=1e-9
        )
        welch = sps.ttest_ind(a, b, equal_var=False)
        t, df, p = stats.welch_t_test(small_a, small_b)
        assert t == pytest.approx(welch.statistic, rel=1e-9)
        assert df == pytest.approx(welch.df, rel=1e-9)
        assert p == pytest.approx(welch.pvalue, rel=1e-9)
        low, high = stats.normal_interval(small_a)
        expected_low, expected_high = stats.normal_interval(a)
        assert low / size == pytest.approx(expected_low, rel=1e-9)
        assert high / size == pytest.approx(expected_high, rel=1e-9)
        strata = np.array([0, 0, 0, 1, 1, 1, 1, 1])
        assert stats.stratified_t_test(small_a - small_b, strata, scale) == pytest.approx(
            stats.stratified_t_test(a - b, strata), rel=1e-9
        )


def test_a_single_query_cannot_be_t_tested():
    assert np.isnan(stats.paired_t_test([[0.2, 0.0]])).all()


def test_effect_size_is_mean_over_sample_sd():
    d = np.array([0.1, 0.3, -0.2, 0.4])
    assert stats.effect_size(d)[0] == pytest.approx(d.mean() / d.std(ddof=1))


@pytest.mark.parametrize(
    "function",
    [stats.paired_bootstrap_test, stats.randomization_test, stats.bootstrap_means],
)
def test_same_seed_same_numbers_other_seed_other_numbers(function):
    rng = np.random.default_rng(1)
    d = rng.normal(0.05, 0.3, size=(60, 3))
    first = function(d, samples=2000, seed=11)
    assert np.array_equal(first, function(d, samples=2000, seed=11))
    assert not np.array_equal(first, function(d, samples=2000, seed=12))


def test_columns_do_not_influence_each_other():
    # Adding a column (another run) must not change the resamples of the others, not even
    # in the last bit (a BLAS product of another shape would add in another order).
    rng = np.random.default_rng(2)
    d = rng.normal(0.0, 1.0, size=(300, 12))
    alone = stats.randomization_test(d[:, :1], samples=500, seed=3)
    assert stats.randomization_test(d, samples=500, seed=3)[0] == alone[0]
    np.testing.assert_array_equal(
        stats.bootstrap_means(d, samples=500, seed=3)[:, 0],
        stats.bootstrap_means(d[:, :1], samples=500, seed=3)[:, 0],
    )


def test_bootstrap_means_are_means_of_resamples():
    # One resample of three queries is a mean of drawn rows: every value must be a
    # multiple of 1/3 of the sum of some multiset of {0, 3, 9}.
    values = np.array([0.0, 3.0, 9.0])
    means = stats.bootstrap_means(values, samples=300, seed=0)[:, 0]
    possible = {sum(c) / 3 for c in itertools.combinations_with_replacement(values, 3)}
    assert set(np.round(means, 12)) <= {round(v, 12) for v in possible}
    assert len(set(np.round(means, 12))) == len(possible)  # 300 draws hit all 10 multisets


def test_randomization_matches_exact_enumeration():
    d = np.array([0.3, 0.1, -0.05, 0.2, 0.25, -0.1, 0.15, 0.05, 0.4, -0.2])
    signs = np.array(list(itertools.product([-1, 1], repeat=d.size)))
    exact = np.mean(np.abs(signs @ d) >= abs(d.sum()) - 1e-12)
    samples = 20_000
    p = stats.randomization_test(d, samples=samples, seed=5)[0]
    # Monte Carlo error: binomial sd = sqrt(p(1-p)/N) ~ 0.0016; allow 5 sd.
    assert abs(p - exact) < 5 * math.sqrt(exact * (1 - exact) / samples)


def test_bootstrap_test_p_value_definition():
    rng = np.random.default_rng(4)
    d = rng.normal(0.1, 0.5, size=25)
    means = stats.bootstrap_means(d, samples=3000, seed=9)[:, 0]
    # the observed sample counts as one resample: (count + 1) / (samples + 1)
    expected = (np.sum(np.abs(means - d.mean()) >= abs(d.mean())) + 1) / 3001
    assert stats.paired_bootstrap_test(d, samples=3000, seed=9)[0] == expected


def test_bootstrap_ci_and_p_equal_resamples_drawn_one_at_a_time():
    # The documented convention without the counts-and-matrix-product machinery: draw n
    # row indices per resample from default_rng([seed, 0]), average the drawn rows, take
    # numpy's percentiles. 1000 samples: the last block of 256 is partial.
    rng = np.random.default_rng(3)
    values = rng.random((40, 3))
    draws = np.random.default_rng([5, stats.BOOTSTRAP_STREAM]).integers(0, 40, size=(1000, 40))
    resampled = np.array([values[rows].mean(axis=0) for rows in draws])
    mean, low, high = stats.bootstrap_ci(values, samples=1000, confidence=0.9, seed=5)
    assert mean == pytest.approx(values.mean(axis=0), rel=1e-15)
    expected_low, expected_high = np.percentile(resampled, [5, 95], axis=0)
    assert low == pytest.approx(expected_low, rel=1e-12)
    assert high == pytest.approx(expected_high, rel=1e-12)
    d = values[:, 1] - values[:, 0] + 0.05
    d_resampled = np.array([d[rows].mean() for rows in draws])
    expected_p = (np.sum(np.abs(d_resampled - d.mean()) >= abs(d.mean()) - 1e-12) + 1) / 1001
    assert stats.paired_bootstrap_test(d, samples=1000, seed=5)[0] == expected_p
    assert 0 < expected_p < 1


def test_strong_and_null_effects():
    rng = np.random.default_rng(6)
    strong = rng.normal(0.5, 0.2, size=50)
    assert stats.paired_bootstrap_test(strong, samples=2000)[0] < 0.001
    assert stats.randomization_test(strong, samples=2000)[0] == 1 / 2001
    balanced = np.array([0.2, -0.2, 0.1, -0.1, 0.3, -0.3])
    assert stats.paired_bootstrap_test(balanced, samples=500)[0] == 1.0
    assert stats.randomization_test(balanced, samples=500)[0] == 1.0


def test_percentile_interval_coverage_on_simulated_data():
    # 200 repetitions of 50 queries from Beta(2, 5) (mean 2/7). With true 95% coverage
    # the number of covering intervals is Binomial(200, 0.95): P(< 178 or > 198) < 0.2%.
    # The percentile interval is slightly narrow for n = 50, so the lower bound is the
    # binding one; 0.89 * 200 = 178.
    rng = np.random.default_rng(2024)
    true_mean = 2 / 7
    data = rng.beta(2, 5, size=(50, 200))
    _, low, high = stats.bootstrap_ci(data, samples=2000, confidence=0.95, seed=1)
    coverage = np.mean((low <= true_mean) & (true_mean <= high))
    assert 0.89 <= coverage <= 0.99


def test_interval_contains_the_mean_and_narrows_with_confidence():
    rng = np.random.default_rng(8)
    data = rng.random((80, 3))
    mean, low95, high95 = stats.bootstrap_ci(data, samples=4000, confidence=0.95, seed=2)
    _, low80, high80 = stats.bootstrap_ci(data, samples=4000, confidence=0.80, seed=2)
    assert (low95 < mean).all() and (mean < high95).all()
    assert (low95 < low80).all() and (high80 < high95).all()


def test_holm_hand_worked():
    # p sorted: 0.01, 0.02, 0.03, 0.04 (m = 4) -> 0.04, 0.06, 0.06 (monotone), 0.06.
    p = [0.04, 0.01, 0.03, 0.02]
    assert stats.adjust(p, "holm") == pytest.approx([0.06, 0.04, 0.06, 0.06])
    # Capped at 1: 0.3 * 3 = 0.9, 0.5 * 2 = 1.0, 0.6 * 1 -> max(1.0, 0.6) = 1.0.
    assert stats.adjust([0.5, 0.3, 0.6], "holm") == pytest.approx([1.0, 0.9, 1.0])


def test_bh_hand_worked():
    # m = 5, sorted p: 0.01 0.02 0.03 0.04 0.05 -> p*m/i = 0.05 0.05 0.05 0.05 0.05.
    p = [0.05, 0.04, 0.03, 0.02, 0.01]
    assert stats.adjust(p, "bh") == pytest.approx([0.05] * 5)
    # sorted 0.001 0.008 0.039 0.041 0.042 0.06 (m = 6): p*6/i = 0.006 0.024 0.078 0.0615
    # 0.0504 0.06; minimum from the top: 0.006 0.024 0.0504 0.0504 0.0504 0.06.
    p = [0.039, 0.001, 0.06, 0.041, 0.008, 0.042]
    expected = [0.0504, 0.006, 0.06, 0.0504, 0.024, 0.0504]
    assert stats.adjust(p, "bh") == pytest.approx(expected)
    # and as scipy computes it, here and on 20 small p-values
    assert stats.adjust(p, "bh") == pytest.approx(sps.false_discovery_control(p, method="bh"))
    many = np.random.default_rng(0).random(20) ** 3
    assert stats.adjust(many, "bh") == pytest.approx(sps.false_discovery_control(many))


def test_bonferroni_none_and_nan():
    assert stats.adjust([0.01, 0.2, np.nan], "bonferroni")[:2] == pytest.approx([0.02, 0.4])
    assert np.isnan(stats.adjust([0.01, 0.2, np.nan], "holm")[2])
    assert stats.adjust([0.01, 0.2], "none") == pytest.approx([0.01, 0.2])
    with pytest.raises(ValueError, match="unknown correction"):
        stats.adjust([0.1], "sidak")


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="finite"):
        stats.bootstrap_means([0.1, np.nan])
    with pytest.raises(ValueError, match="confidence"):
        stats.bootstrap_ci([0.1, 0.2], confidence=1.5)


# --- the unpaired view (RAG spec), macro means over strata --------------------------------


def test_welch_equals_scipy_ttest_ind_unequal_variances():
    rng = np.random.default_rng(11)
    a = rng.random((30, 3))
    b = np.clip(a + rng.normal(0.05, 0.2, size=a.shape), 0, 1)
    b[:, 2] = rng.normal(0.7, 0.01, size=30)  # very unequal variances
    t, df, p = stats.welch_t_test(a, b)
    for column in range(3):
        expected = sps.ttest_ind(a[:, column], b[:, column], equal_var=False)
        assert t[column] == pytest.approx(expected.statistic, rel=1e-12)
        assert df[column] == pytest.approx(expected.df, rel=1e-12)
        assert p[column] == pytest.approx(expected.pvalue, rel=1e-10)
    # the paired test on the same values is another, stronger test: smaller p here
    assert stats.paired_t_test(a[:, :1] - b[:, :1])[0] < p[0]


def test_welch_hand_worked_and_constant_samples():
    # a = (1, 2, 3): mean 2, var 1; b = (2, 4, 6, 8): mean 5, var 20/3.
    # se^2 = 1/3 + 5/3 = 2, t = -3/sqrt(2); df = 4 / ((1/3)^2/2 + (5/3)^2/3) = 4 / (1/18 + 25/27)
    t, df, _ = stats.welch_t_test([1.0, 2.0, 3.0], [2.0, 4.0, 6.0, 8.0])
    assert t[0] == pytest.approx(-3 / math.sqrt(2))
    assert df[0] == pytest.approx(4 / (1 / 18 + 25 / 27))
    # no variance on either side: t divides by 0 (scipy: t = ±inf, p = 0, or NaN)
    assert np.isnan(stats.welch_t_test([0.5, 0.5], [0.5, 0.5])).all()
    assert np.isnan(stats.welch_t_test([0.5, 0.5], [0.2, 0.2])).all()
    # a mean of three 0.2 is 0.2 plus a last bit: scipy's sd 3.4e-17 gave t 1.5e16, p 4e-33
    assert np.isnan(stats.welch_t_test([0.5] * 3, [0.2] * 3)).all()
    assert np.isnan(stats.welch_t_test([0.1 + 0.2, 0.3, 0.3], [0.2] * 3)).all()
    assert np.isnan(stats.welch_t_test([0.5], [0.2, 0.3])[2]).all()


def test_normal_interval_equals_scipy_and_the_spec_s_1_96():
    values = np.array([0.2, 0.5, 0.9, 0.4, 0.7, 0.1, 0.6])
    low, high = stats.normal_interval(values, 0.95)
    sem = values.std(ddof=1) / math.sqrt(values.size)
    expected = sps.norm.interval(0.95, loc=values.mean(), scale=sem)
    assert (low[0], high[0]) == pytest.approx(expected, rel=1e-12)
    # the RAG spec's calculate_confidence_interval, with its rounded 1.96
    spec = (values.mean() - 1.96 * sem, values.mean() + 1.96 * sem)
    assert (low[0], high[0]) == pytest.approx(spec, abs=1e-4 * sem)
    low99, high99 = stats.normal_interval(values, 0.99)
    assert (low99[0], high99[0]) == pytest.approx(sps.norm.interval(0.99, values.mean(), sem))
    assert np.isnan(stats.normal_interval([0.3], 0.95)[0]).all()


def test_macro_weights_make_the_mean_of_stratum_means():
    strata = np.array(["a", "b", "a", "c", "a", "b"])
    values = np.array([0.1, 0.4, 0.3, 0.9, 0.2, 0.6])
    w = stats.macro_weights(strata)
    expected = np.mean([values[strata == s].mean() for s in ("a", "b", "c")])
    assert (w * values).sum() == pytest.approx(expected)
    assert w.sum() == pytest.approx(1.0)


def test_stratified_bootstrap_resamples_within_strata():
    # draw one resample at a time within each stratum, as documented: position j of the
    # draw is the j-th topic in stratum order, drawn among its stratum's topics
    rng = np.random.default_rng(12)
    strata = np.array([2, 0, 1, 0, 2, 2, 1, 0, 0])
    values = rng.random((9, 2))
    samples = 200  # one block: one draw of integers(0, size, (samples, n))
    got = stats.bootstrap_means(values, samples, seed=4, strata=strata)
    members = np.argsort(strata, kind="stable")
    sizes = np.array([np.sum(strata == strata[m]) for m in members])
    starts = np.array([np.searchsorted(strata[members], strata[m]) for m in members])
    draws = np.random.default_rng([4, stats.STRATIFIED_STREAM]).integers(
        0, sizes, size=(samples, 9)
    )
    for k in range(samples):
        rows = members[starts + draws[k]]
        drawn = {s: [] for s in (0, 1, 2)}
        for row in rows:
            drawn[strata[row]].append(values[row])
        macro = np.mean([np.mean(drawn[s], axis=0) for s in (0, 1, 2)], axis=0)
        assert got[k] == pytest.approx(macro, rel=1e-12)
    # every resample keeps each stratum's size: a constant stratum stays constant
    flat = np.where(strata[:, None] == 1, 0.5, values)
    resampled = stats.bootstrap_means(flat, 50, seed=1, strata=strata)
    assert np.isfinite(resampled).all()


def test_stratified_t_test_is_the_paired_t_test_for_one_stratum():
    rng = np.random.default_rng(13)
    d = rng.normal(0.05, 0.2, size=(25, 2))
    assert stats.stratified_t_test(d, np.zeros(25)) == pytest.approx(stats.paired_t_test(d))


def test_stratified_t_test_hand_worked():
    # stratum a: d = (1, 3): mean 2, var 2, n 2; stratum b: d = (0, 1, 2): mean 1, var 1, n 3.
    # D = (2 + 1) / 2 = 1.5; v_a = 2 / (2 * 4) = 0.25, v_b = 1 / (3 * 4) = 1/12; V = 1/3;
    # t = 1.5 / sqrt(1/3); df = V^2 / (v_a^2 / 1 + v_b^2 / 2) = (1/9) / (1/16 + 1/288)
    d = np.array([1.0, 3.0, 0.0, 1.0, 2.0])
    strata = np.array(["a", "a", "b", "b", "b"])
    df = (1 / 9) / (1 / 16 + 1 / 288)
    expected = 2 * sps.t.sf(1.5 / math.sqrt(1 / 3), df)
    assert stats.stratified_t_test(d, strata)[0] == pytest.approx(expected, rel=1e-12)
    assert np.isnan(stats.stratified_t_test(d, np.array(["a", "a", "b", "b", "c"]))).all()
    assert np.isnan(stats.stratified_t_test(np.zeros(5), strata)).all()
    # every stratum constant (V = 0) but the macro difference not 0: undefined, not p = 0
    assert np.isnan(stats.stratified_t_test(np.array([1.0, 1, 2, 2, 2]), strata)).all()


def test_stratified_bootstrap_test_is_undefined_with_a_stratum_of_one_topic():
    # the stratified bootstrap draws a one-topic stratum's topic every time: its variance
    # was left out of the null distribution, and one topic's gain of 0.9 got p = 1/401
    d = np.array([0.9, 0.01, -0.02, 0.03, -0.01, 0.0])
    strata = np.array(["x", "y", "y", "y", "y", "y"])
    resampled = stats.bootstrap_means(d, 400, seed=0, strata=strata)
    assert np.isnan(stats.bootstrap_p(d, resampled, stats.macro_weights(strata), strata)).all()
    assert stats.stratum_of_one(strata) and not stats.stratum_of_one(np.array(["x", "x"]))
    # two topics in every stratum: defined
    strata = np.array(["x", "x", "y", "y", "y", "y"])
    resampled = stats.bootstrap_means(d, 400, seed=0, strata=strata)
    assert np.isfinite(stats.bootstrap_p(d, resampled, stats.macro_weights(strata), strata)).all()


def test_weighted_randomization_and_bootstrap_tests():
    rng = np.random.default_rng(14)
    d = rng.normal(0.1, 0.3, size=(12, 2))
    strata = np.array([0] * 3 + [1] * 9)
    w = stats.macro_weights(strata)
    samples = 200  # one block of sign draws, recomputed here one pattern at a time
    signs = np.random.default_rng([7, stats.RANDOMIZATION_STREAM]).integers(
        0, 2, size=(samples, 12), dtype=np.int8
    )
    observed = np.abs((w[:, None] * d).sum(axis=0))
    count = np.zeros(2)
    for pattern in signs:
        count += (
            np.abs(((2.0 * pattern - 1)[:, None] * w[:, None] * d).sum(axis=0)) >= observed - 1e-12
        )
    expected = (count + 1) / (samples + 1)
    assert stats.randomization_test(d, samples, seed=7, weights=w) == pytest.approx(expected)
    # equal weights: the unweighted test
    assert stats.randomization_test(d, 300, 2, weights=np.full(12, 1 / 12)) == pytest.approx(
        stats.randomization_test(d, 300, 2)
    )
    resampled = stats.bootstrap_means(d, 400, seed=3, strata=strata)
    macro = (w[:, None] * d).sum(axis=0)
    expected = (np.sum(np.abs(resampled - macro) >= np.abs(macro) - 1e-12, axis=0) + 1) / 401
    assert stats.bootstrap_p(d, resampled, w) == pytest.approx(expected)


# --- undefined statistics, the smallest attainable p, Wilcoxon, Tukey HSD ---------------


def _tiny_cases(seed: int = 11):
    """Per-topic differences of 1 to 8 topics: random, rounded (ties), with zeros,
    constant and all 0: the cases where tests break."""
    rng = np.random.default_rng(seed)
    for n in range(1, 9):
        yield rng.normal(0.05, 0.3, n)
        yield np.round(rng.normal(0.05, 0.3, n), 1)
        yield np.where(rng.random(n) < 0.3, 0.0, rng.normal(0, 0.3, n))
        yield np.full(n, 0.25)
        yield np.zeros(n)


def test_t_test_is_scipy_s_where_defined_and_undefined_where_scipy_is_not_finite():
    import warnings

    for d in _tiny_cases():
        got = stats.paired_t_test(d)[0]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = sps.ttest_rel(d, np.zeros_like(d))
        if d.size < 2 or np.ptp(d) == 0:  # scipy: t = ±inf and p = 0, or NaN
            assert math.isnan(got), d
            assert not (math.isfinite(result.statistic) and math.isfinite(result.pvalue))
        else:
            assert got == pytest.approx(result.pvalue, rel=1e-12), d


def _exhaustive_sign_flips(d: np.ndarray) -> float:
    """The exact randomisation p-value, one sign pattern at a time in plain Python."""
    observed = abs(sum(d))
    hits = 0
    for signs in itertools.product((1, -1), repeat=len(d)):
        flipped = abs(sum(s * x for s, x in zip(signs, d, strict=True)))
        hits += flipped >= observed - 1e-12
    return hits / 2 ** len(d)


def test_randomisation_is_exact_on_tiny_cases_and_never_below_two_over_2_to_the_n():
    from trecbench.statistical_tests import smallest_p

    for d in _tiny_cases():
        p = stats.randomization_test(d, samples=10_000, seed=3)[0]
        assert p == _exhaustive_sign_flips(d), d
        assert p >= smallest_p("randomization", d.size, 10_000) or d.size < 2
    # constant differences reach the bound exactly: the observed signs and their mirror
    for n in range(2, 12):
        bound = smallest_p("randomization", n, 10_000)
        assert stats.randomization_test(np.full(n, 0.3), samples=10_000)[0] == bound == 2 / 2**n
    # sampled (2**n > samples): never below 1 / (samples + 1), the sampled bound
    assert stats.randomization_test(np.full(12, 0.3), samples=100)[0] == 1 / 101
    assert smallest_p("randomization", 12, 100) == 1 / 101


def test_bootstrap_and_t_are_undefined_for_constant_differences_and_the_bound_is_stated():
    from trecbench.statistical_tests import smallest_p

    constant = np.array([[0.5, 0.0], [0.5, 0.0]])  # the case: 2 topics, equal diffs
    assert np.isnan(stats.paired_bootstrap_test(constant, samples=200)).all()
    assert np.isnan(stats.paired_t_test(constant)).all()
    # macro form: constant within every stratum is constant for the stratified bootstrap
    d = np.array([0.1, 0.1, 0.4, 0.4])
    assert stats.constant(d, ["a", "a", "b", "b"]).tolist() == [True]
    assert stats.constant(d).tolist() == [False]
    assert smallest_p("t", 2, 10_000) == smallest_p("bootstrap", 2, 10_000) == 0.5
    assert smallest_p("t", 6, 10_000) == 2 / 64 < 0.05 <= smallest_p("t", 5, 10_000)
    assert smallest_p("wilcoxon", 1, 10_000) == 1.0
    # a test that samples cannot go below 1 / (samples + 1) either
    assert smallest_p("bootstrap", 30, 10) == smallest_p("tukey", 30, 10, runs=5) == 1 / 11
    assert smallest_p("t", 30, 10) == 2 / 2**30


def test_wilcoxon_equals_scipy_with_its_defaults():
    import warnings

    from trecbench.wilcoxon import signed_rank_test

    rng = np.random.default_rng(21)
    cases = list(_tiny_cases(5))
    for n in (9, 14, 30, 51, 80):  # exact, permutation and normal regimes
        cases += [rng.normal(0.05, 0.3, n), np.round(rng.normal(0.05, 0.3, n), 1)]
        zeros = rng.normal(0.1, 0.3, n)
        zeros[: n // 4] = 0
        cases.append(zeros)
    for d in cases:
        got = signed_rank_test(d)[0]
        if not d.any():
            assert math.isnan(got)  # zeros dropped: nothing left
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = sps.wilcoxon(d, zero_method="wilcox").pvalue
        assert got == pytest.approx(expected, rel=1e-12, abs=1e-15), d


def test_wilcoxons_average_ranks_are_scipys_rankdata_exactly():
    # the ranks Wilcoxon sums, without importing scipy.stats (issue 31): ties, NaN, none
    from trecbench.wilcoxon import average_ranks

    rng = np.random.default_rng(5)
    for case in range(600):
        n = int(rng.integers(0, 40))
        values = rng.integers(0, int(rng.integers(1, 9)), n) / 4 if case % 2 else rng.random(n)
        if case % 7 == 0 and n:
            values[int(rng.integers(0, n))] = np.nan
        expected = sps.rankdata(values)
        found = average_ranks(values)
        assert found.dtype == expected.dtype
        np.testing.assert_array_equal(found, expected)


def _tukey_reference(values: np.ndarray, samples: int, seed: int) -> list[list[float]]:
    """Randomised Tukey HSD one draw and one topic at a time (plain Python), with the
    draws of trecbench.stats.tukey_ranges: per draw and topic ``runs`` uniforms."""
    rng = np.random.default_rng([seed, stats.TUKEY_STREAM])
    n, k = values.shape
    rows = values.tolist()
    ranges = []
    for _ in range(samples):
        sums = [0.0] * k
        for t in range(n):
            keys = rng.random(k).tolist()
            order = sorted(range(k), key=keys.__getitem__)
            for position, run in enumerate(order):
                sums[position] += rows[t][run]
        means = [total / n for total in sums]
        ranges.append(max(means) - min(means))
    means = [sum(row[r] for row in rows) / n for r in range(k)]
    # the same permutation of every topic keeps the range: of the k!^n permutations at
    # least k! reach the observed one, and no sampled p goes below that exact floor
    floor = math.factorial(k) / math.factorial(k) ** n
    return [
        [
            max(
                floor,
                (sum(g >= abs(means[i] - means[j]) - 1e-9 for g in ranges) + 1) / (samples + 1),
            )
            for j in range(k)
        ]
        for i in range(k)
    ]


def _in_canonical_order(values: np.ndarray) -> np.ndarray:
    """The runs (columns) sorted by their values, the first topic's first (then the next
    topic's): the order Tukey HSD's draws are dealt in, written without numpy's lexsort."""
    order = sorted(range(values.shape[1]), key=lambda run: values[:, run].tolist())
    return np.array(order, dtype=np.int64)


def _tukey_expected(values: np.ndarray, samples: int, seed: int) -> np.ndarray:
    """:func:`_tukey_reference` over the runs in :func:`_in_canonical_order`, put back in
    the order given."""
    order = _in_canonical_order(values)
    back = np.argsort(order)
    return np.array(_tukey_reference(values[:, order], samples, seed))[np.ix_(back, back)]


def test_tukey_hsd_equals_a_plain_python_reference_on_seeded_cases():
    rng = np.random.default_rng(8)
    for n, k, samples, seed in [(5, 3, 200, 1), (8, 4, 150, 7), (3, 2, 300, 2), (12, 5, 90, 0)]:
        values = rng.random((n, k))
        values[:, 0] += 0.3  # one clearly better run
        got = tukey.tukey_hsd(values, samples, seed)
        assert got == pytest.approx(_tukey_expected(values, samples, seed), abs=1e-15)
        assert np.allclose(np.diag(got), 1.0) and np.allclose(got, got.T)
        # runs given in that order: the draws and p-values are the ones they always were
        order = _in_canonical_order(values)
        expected = np.array(_tukey_reference(values[:, order], samples, seed))
        assert (tukey.tukey_hsd(values[:, order], samples, seed) == expected).all()


def test_tukey_hsd_does_not_depend_on_the_order_the_runs_are_given_in():
    # compare's p for b against a was 0.99600 with runs a b c d and 0.99201 with a d c b:
    # each draw's uniforms were dealt to the runs in the order given
    rng = np.random.default_rng(11)
    for n, k, samples, seed in [(6, 3, 200, 1), (12, 4, 300, 7), (4, 5, 100, 2)]:
        values = rng.random((n, k)) if n != 12 else rng.integers(0, 3, (n, k)) / 2
        values[:, 1] = values[:, 0]  # two runs that cannot be told apart
        values[: n // 2, 2] = values[: n // 2, 0]  # one that ties them on the first topics
        expected = tukey.tukey_hsd(values, samples, seed)
        for order in itertools.permutations(range(k)):
            order = np.array(order)
            got = tukey.tukey_hsd(values[:, order], samples, seed)
            assert (got == expected[np.ix_(order, order)]).all(), order


def test_tukey_hsd_does_not_move_when_every_value_moves_alike():
    # the same offset on every value leaves every within-topic difference: p 0.0150 went
    # to 0.0180 at 1e6 and 1 at 1e9 (a tolerance scaled by the values, not the differences)
    rng = np.random.default_rng(2)
    values = rng.random((12, 3))
    values[:, 0] += 0.15
    expected = _tukey_expected(values, 300, 5)
    for offset in (0.0, 1e3, 1e6, 1e9):
        assert tukey.tukey_hsd(values + offset, 300, 5) == pytest.approx(expected, abs=1e-15)


def test_tukey_family_wise_p_is_at_least_the_pairs_randomisation_p_and_seeded():
    rng = np.random.default_rng(3)
    values = rng.random((20, 6))
    values[:, 0] += 0.2
    first = tukey.tukey_hsd(values, 500, 4)
    assert (first == tukey.tukey_hsd(values, 500, 4)).all()
    assert (first != tukey.tukey_hsd(values, 500, 5)).any()
    # the largest range over six runs is at least any one pair's difference
    pair = stats.randomization_test(values[:, 0] - values[:, 1], 500, 4)[0]
    assert first[0, 1] >= pair - 0.05


def test_every_registered_test_is_reachable_by_name():
    from trecbench import statistical_tests

    rng = np.random.default_rng(2)
    values = rng.random((15, 4))
    paired = stats.Paired(
        values, np.array([0, 0, 1]), np.array([1, 2, 3]), 200, 1,
        resampled=stats.bootstrap_means(values, 200, 1), families=(np.arange(4),),
    )  # fmt: skip
    for name in statistical_tests.NAMES:
        p = stats.pair_p_values(name, paired)
        assert p.shape == (3,) and ((p > 0) & (p <= 1)).all(), name
    diffs = values[:, [0, 0, 1]] - values[:, [1, 2, 3]]
    assert stats.pair_p_values("t", paired) == pytest.approx(stats.paired_t_test(diffs))
    assert stats.pair_p_values("tukey", paired)[1] == tukey.tukey_hsd(values, 200, 1)[0, 2]
    with pytest.raises(Exception, match="unknown test 'anova'"):
        stats.pair_p_values("anova", paired)


def test_all_pairs_p_by_test_name_is_compare_s():
    import pandas as pd

    from trecbench.comparison import compare_scores

    rng = np.random.default_rng(9)
    values = rng.random((14, 4)) + [0, 0.1, 0.3, 0.35]
    frame = pd.DataFrame(
        [(f"r{r}", f"q{t:02d}", "m", values[t, r]) for r in range(4) for t in range(14)],
        columns=["run", "qid", "measure", "value"],
    )
    for test in stats.TESTS:
        matrix = stats.all_pairs_p(values, test, samples=200, seed=6)
        pairs = compare_scores(frame, test=test, samples=200, seed=6).pairs
        for row in pairs.itertuples():
            i, j = int(row.run[1:]), int(row.other[1:])
            assert matrix[i, j] == matrix[j, i] == row.p_value, test
        assert np.isnan(np.diag(matrix)).all()


def test_percentile_intervals_taken_a_few_columns_at_a_time_are_numpy_s(monkeypatch):
    rng = np.random.default_rng(12)
    resampled = rng.random((500, 7))
    # blocks of 2, 2, 2, 1 columns (the interval's module reads its own PAIRS)
    monkeypatch.setattr(resampling, "PAIRS", 2)
    # numpy's interpolation may differ in the last bit with the array's shape: 1e-15
    low, high = stats.percentile_interval(resampled, 0.9)
    expected = np.quantile(resampled, [0.05, 0.95], axis=0)
    assert low == pytest.approx(expected[0], abs=1e-15)
    assert high == pytest.approx(expected[1], abs=1e-15)
    left, right = np.array([0, 3, 6]), np.array([1, 1, 2])
    low, high = stats.percentile_interval(resampled, 0.9, (left, right))
    expected = np.quantile(resampled[:, left] - resampled[:, right], [0.05, 0.95], axis=0)
    assert low == pytest.approx(expected[0], abs=1e-15)
    assert high == pytest.approx(expected[1], abs=1e-15)


def test_bootstrap_p_is_never_0_two_topics_beyond_their_spread():
    # d = (0.25, 0.5): m = 0.375; the resamples are 0.25, 0.375, 0.5: none is 0.375 from
    # m, so count / samples was 0 ("p 0.0e+00"); with the observed sample counted, 1/201
    d = np.array([0.25, 0.5])
    assert stats.paired_bootstrap_test(d, samples=200)[0] == 1 / 201


def _gains_on_paper():
    """Per-topic P@5 of two runs, the second one relevant document (1/5) ahead on every
    topic: differences 0.20000000000000007 and 0.19999999999999996 as floats, all 1/5 as
    fractions."""
    from fractions import Fraction

    base = np.array([k / 5 for k in (0, 1, 2, 3, 0, 1, 2, 3)])
    plus = np.array([k / 5 for k in (1, 2, 3, 4, 1, 2, 3, 4)])
    diffs = plus - base
    assert len(set(diffs.tolist())) > 1  # the floats vary...
    on_paper = {
        Fraction(p).limit_denominator(5) - Fraction(b).limit_denominator(5)
        for p, b in zip(plus, base, strict=True)
    }
    assert on_paper == {Fraction(1, 5)}
    return diffs  # ...the fractions do not


def test_differences_equal_on_paper_do_not_vary():
    """A gain of 1/5 on every topic: the t statistic, d_z and the bootstrap test are
    undefined, as for exactly equal differences (scipy gave p = 3e-111, d_z 4.8e15)."""
    diffs = _gains_on_paper()
    assert stats.constant(diffs)[0]
    assert np.isnan(stats.paired_t_test(diffs)[0])
    assert np.isnan(stats.effect_size(diffs)[0])
    # differences that vary by a real amount still do
    varied = diffs + np.array([0, 0, 0, 0, 0, 0, 0, 1e-6])
    assert not stats.constant(varied)[0]
    assert stats.paired_t_test(varied)[0] == pytest.approx(sps.ttest_rel(varied, 0 * varied).pvalue)


def test_wilcoxon_ties_and_zeros_as_on_paper():
    """Differences equal on paper tie, and a zero on paper is a zero: scipy on the values
    rounded to 12 decimals (exact fractions of 5ths), where scipy on the floats broke the
    ties by their last bits (0.0048828 for 0.0058594)."""
    from trecbench.wilcoxon import signed_rank_test

    base = np.array([0, 1, 2, 3, 1, 2, 0, 3, 2, 1, 4, 3]) / 5
    plus = np.array([1, 2, 3, 4, 2, 1, 1, 4, 4, 2, 5, 4]) / 5
    diffs = plus - base
    want = sps.wilcoxon(np.round(diffs, 12)).pvalue
    assert signed_rank_test(diffs)[0] == pytest.approx(want, rel=1e-12)
    assert signed_rank_test(diffs)[0] != pytest.approx(sps.wilcoxon(diffs).pvalue, rel=1e-6)


def test_small_gains_on_paper_and_macro_sections_do_not_vary_either():
    """One more relevant document in the top 1000 on every topic (P_1000 gains of 1/1000,
    rounded as the values near 1 they subtract): still equal on paper (the noise scaled
    to the differences missed it: t p = 1e-255, d_z 2.3e13). The stratified t-test of a
    macro section says so too (it gave p = 1.9e-63 where the bootstrap said undefined)."""
    from trecbench.wilcoxon import signed_rank_test

    k = np.array([140, 171, 203, 234, 281, 343, 406, 468, 562, 687, 812, 937, 100, 200, 300])
    diffs = (k + 1) / 1000 - k / 1000
    assert len(set(diffs.tolist())) > 1
    assert stats.constant(diffs)[0] and np.isnan(stats.paired_t_test(diffs)[0])
    assert np.isnan(stats.effect_size(diffs)[0])
    want = sps.wilcoxon(np.round(diffs, 12)).pvalue
    assert signed_rank_test(diffs)[0] == pytest.approx(want, rel=1e-12)
    fifths = np.array([0.6 - 0.4, 0.8 - 0.6, 0.4 - 0.2, 1 - 0.8, 0.6 - 0.4, 0.8 - 0.6])
    strata = np.array(list("aaabbb"))
    assert stats.constant(fifths, strata)[0]
    assert np.isnan(stats.stratified_t_test(fifths, strata)[0])


def test_differences_on_paper_move_by_the_rounding_noise_at_most():
    """A chain of values each 0.9 noise apart is not one group (12 distinct values became
    3, the groups spanning 8 times the allowance): no value moves by more than it."""
    from trecbench.rounding import rounding_noise
    from trecbench.wilcoxon import on_paper

    noise = rounding_noise(np.array([1.0]))[0]
    chain = np.array([1 - j * 0.9 * noise for j in range(10)] + [0.5, -0.3])
    snapped = on_paper(chain)
    assert np.abs(np.abs(snapped) - np.abs(chain)).max() <= noise
    assert len(set(np.abs(snapped).tolist())) == 7  # 10 links of 0.9: groups of 2 (0, 1.8)
    assert np.array_equal(np.sign(snapped), np.sign(chain))


def test_values_equal_on_paper_share_their_smallest_and_nan_stays():
    from trecbench.rounding import equal_on_paper

    values = np.array([0.1 + 0.2, np.nan, 0.3, 0.5, 0.30000000000000004 - 2e-16])
    snapped = equal_on_paper(values)
    assert snapped[[0, 2, 4]].tolist() == [min(values[[0, 2, 4]])] * 3
    assert np.isnan(snapped[1]) and snapped[3] == 0.5
    assert np.isnan(equal_on_paper(np.array([np.nan]))).all()


def test_the_best_mean_of_a_comparison_ties_means_equal_on_paper():
    import pandas as pd

    from trecbench.renderers.comparison_cells import best_runs

    runs = ["a", "b", "c"]
    means = pd.Series({"a": 0.3, "b": 0.1 + 0.2, "c": 0.2})
    assert best_runs(means, runs, "higher") == ["a", "b"]
    assert best_runs(-means, runs, "lower") == ["a", "b"]
    apart = pd.Series({"a": 0.5, "b": 0.5 + 5e-13, "c": 0.2})  # beyond the rounding noise
    assert best_runs(apart, runs, "higher") == ["b"]
    assert best_runs(means, runs, None) == []
    assert best_runs(pd.Series({"a": np.nan, "b": 0.3, "c": 0.3}), runs, "higher") == ["b", "c"]


def test_an_infinity_is_no_scale_of_the_rounding_noise():
    from trecbench.rounding import equal_on_paper

    assert equal_on_paper(np.array([np.inf, 1.0])).tolist() == [np.inf, 1.0]
    assert equal_on_paper(np.array([-np.inf, 0.0])).tolist() == [-np.inf, 0.0]


def test_a_mean_difference_of_0_on_paper_is_0_and_the_tests_stay_scipy_s():
    """P@5 counts adding up to 20 on both runs: the floats' differences add up to
    -5.55e-17 (numpy's mean -6.9e-18, d_z -1.3e-17). Their mean, d_z and the t statistic
    are 0, unsigned, whichever way the pair is taken; p is scipy's to its precision."""
    from trecbench.rounding import mean_difference

    base = np.array([4, 2, 5, 2, 5, 1, 0, 1]) / 5
    run = np.array([0, 4, 5, 3, 1, 4, 0, 3]) / 5
    assert math.fsum(run - base) != 0  # not 0 as floats, whatever the order of the sum
    for a, b in ((run, base), (base, run)):
        d = a - b
        for value in (mean_difference(d)[0], stats.effect_size(d)[0]):
            assert value == 0 and math.copysign(1.0, value) == 1.0
        assert stats.paired_t_test(d)[0] == pytest.approx(sps.ttest_rel(a, b).pvalue, rel=1e-12)
        assert stats.bootstrap_p(d, stats.bootstrap_means(d, 200))[0] == 1.0
    # a macro mean of 0 on paper: stratum a's mean difference 0.1, stratum b's -0.1
    fifths = np.array([0.6 - 0.4, 0.4 - 0.4, 0.2 - 0.4, 0.6 - 0.6])
    strata = np.array(list("aabb"))
    assert mean_difference(fifths, stats.macro_weights(strata))[0] == 0
    # beside them, a mean that is not 0 is the exact fractions' to the last bits
    shifted = np.column_stack([run - base, run - base + 0.1])
    assert mean_difference(shifted).tolist() == [0.0, pytest.approx(0.1, rel=0, abs=5e-17)]
    assert np.isnan(mean_difference(np.empty((0, 2)))).all()


def test_tukey_smallest_p_is_exactly_one_over_k_factorial_to_the_topics_less_one():
    """It was exp(lgamma): 0.12500000000000014 for 1/8 (2 runs, 4 topics), 1/6 a little
    below (3 runs, 2 topics), so an alpha at the bound was taken as within reach."""
    from fractions import Fraction

    from trecbench.statistical_tests import smallest_p

    for runs, topics in [(2, 4), (3, 2), (3, 7), (5, 40), (20, 3)]:
        exact = Fraction(1, math.factorial(runs) ** (topics - 1))
        assert smallest_p("tukey", topics, 10**200, runs) == float(exact)
    assert smallest_p("tukey", 200_000, 10**12, 20) == 1 / (10**12 + 1)
