"""A measure whose values are all tiny (RBP with p = 0.01: a relevant document at rank 10
scores 1e-18) is compared as any other: its differences are not taken for the rounding
noise of values up to 1. compare printed the difference 0 beside an interval below 0,
W/T/L 0/0/6 beside "the per-topic differences do not vary", every p undefined, and power
said "equal on every topic (sd 0)"; checked against scipy and statsmodels."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import suite_of_x_and_y
from scipy import stats as scipy_stats

from trecbench.comparison import compare_scores
from trecbench.conclusions.discrimination import DiscriminationSettings, discriminative_power
from trecbench.conclusions.power import PowerSettings, power_rows

MEASURE = "m@2"  # a name the registry does not bound
A = np.array([9.9e-15, 9.9e-17, 9.9e-19, 9.9e-21, 9.9e-23, 9.9e-25])  # RBP(p=0.01)'s values
B = np.array([9.9e-19, 9.9e-23, 9.9e-27, 9.9e-31, 9.9e-35, 9.9e-39])


def _frame() -> pd.DataFrame:
    rows = [
        (run, f"q{i}", MEASURE, value)
        for run, column in (("a", A), ("b", B))
        for i, value in enumerate(column)
    ]
    return pd.DataFrame(rows, columns=["run", "qid", "measure", "value"])


@pytest.mark.parametrize("test", ["t", "wilcoxon", "bootstrap"])
def test_a_difference_of_tiny_values_is_a_difference(test):
    result = compare_scores(_frame(), test=test, samples=1000)
    row = result.comparisons.iloc[0]
    assert row["difference"] == pytest.approx((B - A).mean(), rel=1e-12)
    assert row["ci_low"] <= row["difference"] <= row["ci_high"]
    assert row["effect_size"] == pytest.approx((B - A).mean() / (B - A).std(ddof=1), rel=1e-12)
    assert row["p_undefined"] is None and row["welch_undefined"] is None
    assert row["welch_p"] == pytest.approx(
        scipy_stats.ttest_ind(B, A, equal_var=False).pvalue, rel=1e-9
    )
    if test == "t":
        assert row["p_value"] == pytest.approx(scipy_stats.ttest_rel(B, A).pvalue, rel=1e-9)
    if test == "wilcoxon":
        assert row["p_value"] == pytest.approx(scipy_stats.wilcoxon(B, A).pvalue, rel=1e-12)


def test_the_power_of_tiny_values_is_statsmodels():
    from statsmodels.stats.power import TTestPower

    values = np.stack([A, B], axis=1)[:, :, None]  # topics x runs x measures
    (row,) = power_rows(values, ["a", "b"], [MEASURE], PowerSettings())
    d_z = (B - A).mean() / (B - A).std(ddof=1)
    assert row.reason is None and row.effect_size == pytest.approx(d_z, rel=1e-12)
    assert row.power == pytest.approx(TTestPower().power(abs(d_z), len(A), 0.05), rel=1e-9)


def test_discriminative_power_tests_tiny_values():
    found = discriminative_power(np.stack([A, B], axis=1), MEASURE, DiscriminationSettings())
    assert found.undefined == () and found.significant == 0


def _write(folder, ranks: dict[str, list[int]], prefix: str = "q"):
    """qrels with one relevant document (R) per topic, and a run per entry of ``ranks``
    holding it at the rank given per topic, below documents judged not relevant."""
    folder.mkdir(parents=True, exist_ok=True)
    topics = len(next(iter(ranks.values())))
    qrels = [f"{prefix}{t} 0 R 1\n" for t in range(topics)]
    qrels += [f"{prefix}{t} 0 N{d} 0\n" for t in range(topics) for d in range(30)]
    (folder / "q.qrels").write_text("".join(qrels))
    for run, where in ranks.items():
        lines = []
        for t, rank in enumerate(where):
            documents = [f"N{d}" for d in range(rank - 1)] + ["R"]
            lines += [
                f"{prefix}{t} Q0 {doc} {r} {100 - r} {run}\n" for r, doc in enumerate(documents, 1)
            ]
        (folder / f"{run}.run").write_text("".join(lines))
    return folder


def test_agree_orders_runs_by_their_tiny_means(tmp_path):
    import trecbench

    # RBP(p=0.01) means of 1.7e-15 and 1.7e-19 are not "equal on paper": agree said one
    # ordering ties every run and gave no tau
    folder = _write(tmp_path, {"a": [8, 9, 10], "b": [10, 12, 14], "c": [2, 30, 30]})
    runs = [str(folder / f"{run}.run") for run in "abc"]
    result = trecbench.agree(str(folder / "q.qrels"), runs, ["RBP(p=0.01)", "P@10"])
    rbp = [row[0] for row in result.means]
    assert rbp[0] > rbp[1] > 0
    (ordering,) = result.measure_orderings
    p10 = [row[1] for row in result.means]
    assert ordering.kendall_tau == pytest.approx(scipy_stats.kendalltau(rbp, p10).statistic)


def test_the_leaderboard_tests_tiny_differences(tmp_path):
    from trecbench.runstudy.leaderboard import leaderboard

    ranks = {"a": [8, 9, 10, 8], "b": [10, 12, 14, 9]}
    _write(tmp_path / "x", ranks, "x")
    _write(tmp_path / "y", {"a": [9, 8, 11, 10], "b": [9, 13, 12, 15]}, "y")
    suite = suite_of_x_and_y(tmp_path, "tiny", "RBP(p=0.01)", ["a", "b"])
    (table,) = leaderboard(str(suite)).boards
    assert table.ranks.tolist() == [[1.0, 1.0], [2.0, 2.0]]
    per_collection = table.means[1] - table.means[0]
    test = table.over_collections[1]
    assert test.reason is None and test.difference == pytest.approx(per_collection.mean())
    assert test.p == pytest.approx(scipy_stats.ttest_rel(table.means[1], table.means[0]).pvalue)
    assert table.over_topics[1].reason is None and table.over_topics[1].p is not None


def test_the_leaderboard_prints_tiny_means(tmp_path):
    """The board's means and macro means in two significant digits, never 0.0000 (the
    ranks beside them would rank equal values)."""
    from trecbench.number_text import value_text
    from trecbench.runstudy.board_text import leaderboard_text
    from trecbench.runstudy.leaderboard import leaderboard

    _write(tmp_path / "x", {"a": [8, 9, 10, 8], "b": [10, 12, 14, 9]}, "x")
    _write(tmp_path / "y", {"a": [9, 8, 11, 10], "b": [9, 13, 12, 15]}, "y")
    board = leaderboard(str(suite_of_x_and_y(tmp_path, "tiny", "RBP(p=0.01)", ["a", "b"])))
    (table,) = board.boards
    text = leaderboard_text(board, "table")
    assert "0.0000" not in text
    for system, means in enumerate(table.means):
        assert 0 < means.max() < 5e-5
        ranks = table.ranks[system]
        expected = [f"{mean:.1e} ({rank:g})" for mean, rank in zip(means, ranks, strict=True)]
        expected.append(f"{np.mean(means):.1e}")  # the macro mean: numpy's, formatted apart
        assert all(cell in text for cell in expected), (expected, text)
        assert value_text(table.macro[system]) == expected[-1]


def test_unjudged_ranges_of_tiny_values_are_not_equal_on_paper():
    """could flip read ends 1e-15 apart as equal (the noise of values up to 1): two
    ranges that overlap were said to allow no flip."""
    from trecbench.conclusions.unjudged import UnjudgedBound

    low, high = 1e-15, 3e-15
    mine = UnjudgedBound("a", "RBP", low, high, 0.5, None)
    theirs = UnjudgedBound("b", "RBP", 2e-15, 2e-15, 0.0, None)
    assert mine.flips(theirs) is True  # a: 1e-15 below b's 2e-15, up to 3e-15 above
    assert UnjudgedBound("a", "RBP", 1e-15, 1e-15, 0.0, None).flips(theirs) is False
