"""A printed p-value never contradicts its stars: rounded to 4 decimals (below 0.0001 to
two significant digits), with more digits where the rounding would carry it across a
level the stars mark — in compare's table, Markdown and page, and leaderboard's cells."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from trecbench.comparison import compare_scores
from trecbench.renderers.text_tables import p_text

LEVELS = (0.05, 0.01, 0.001)  # alpha 0.05's stars: *, **, ***


@pytest.mark.parametrize(
    ("p", "levels", "shown"),
    [
        (1 / 1001, LEVELS, "0.000999"),  # 0.000999000999...: 0.0010 and 0.00100 read 0.001
        (0.04996, LEVELS, "0.04996"),  # 0.0500 and 0.05000 read 0.05, not below it
        (0.0099996, LEVELS, "0.0099996"),  # 0.0100, 0.01000, 0.010000 read 0.01
        (0.05, LEVELS, "0.0500"),  # at the level: not below it, as its text
        (0.0123456, LEVELS, "0.0123"),  # far from every level: 4 decimals as ever
        (0.00123, LEVELS, "0.0012"),
        (5.4321e-06, LEVELS, "5.4e-06"),
        (1 / 1001, (), "0.0010"),  # no levels to keep to: 4 decimals
        # alpha 0.001: *** below 2e-05, where the scientific notation rounds to 2.0e-05
        (1.996e-05, (0.001, 0.0002, 0.00002), "1.996e-05"),
        (math.nan, LEVELS, "n/a"),
    ],
)
def test_p_is_printed_on_its_side_of_every_level(p, levels, shown):
    assert p_text(p, levels) == shown


def test_no_printed_p_crosses_a_level_of_any_alpha():
    rng = np.random.default_rng(7)
    for alpha in (0.05, 0.01, 0.1, 0.001, 0.0333):
        levels = (alpha, alpha / 5, alpha / 50)
        # values at and a few units in the last place either side of each level
        near = [np.nextafter(level, side) for level in levels for side in (0, 1)]
        values = [*levels, *near, *rng.uniform(0, 0.2, 300), *10 ** rng.uniform(-8, -1, 300)]
        for p in values:
            text = p_text(float(p), levels)
            assert all((float(text) < level) == (p < level) for level in levels), (p, text)
            assert len(text.replace("e-", "")) <= 22  # 17 significant digits at most


def _frame(values: dict[str, list[float]]) -> pd.DataFrame:
    return pd.DataFrame(
        [
            (run, f"t{i:02d}", "P@10", value)
            for run, column in values.items()
            for i, value in enumerate(column)
        ],
        columns=["run", "qid", "measure", "value"],
    )


def test_tukey_s_floor_prints_below_0_001_beside_three_stars():
    # the review's case (compare ident... --test tukey --samples 1000): d is 1 on each of
    # 20 topics, above the others; a relabelling of the runs within topics reaches the
    # observed range of means, 1 - mean(a), only when it puts each topic's 1 in the same
    # run (chance 4 * 4**-20 per resample, 4e-12), so none of 1000 does: p is Tukey HSD's
    # floor, 1/(1000 + 1) = 0.000999..., below 0.001
    base = [round(0.05 * (i % 9), 2) for i in range(20)]
    values = {"a": base, "b": base, "c": [v + 0.1 for v in base], "d": [1.0] * 20}
    result = compare_scores(_frame(values), test="tukey", samples=1000, baseline="a")
    d = result.comparisons.set_index("run").loc["d"]
    assert d["p_adjusted"] == 1 / 1001
    table = result.render("table")
    row = next(line for line in table.splitlines() if line.lstrip().startswith("d "))
    assert row.endswith(" 0.000999 ▲***")
    markdown = result.markdown()
    assert "| 20/0/0 | 5.97 | 0.000999 | 0.000999 ▲*** |" in markdown
    assert "0.0010" not in table and "0.0010" not in markdown

    from trecbench.html_report.page import _summary_rows

    cells = [text for row in _summary_rows(result) for text, _key in row]
    assert "0.000999 ▲***" in cells and "0.0010" not in " ".join(cells)


def test_leaderboard_s_star_and_p_agree():
    from trecbench.runstudy.board import PairedTest
    from trecbench.runstudy.board_text import _p

    # .3g printed 0.04996 as "0.05*" beside "* below 0.05"
    assert _p(PairedTest(0.1, 28, 0.02, 0.04996)) == "0.04996*"
    assert _p(PairedTest(0.1, 28, 0.02, 0.05)) == "0.0500"
    assert _p(PairedTest(0.1, 28, 0.1, 0.1817)) == "0.1817"


def test_a_p_too_small_for_a_double_prints_as_a_bound():
    # 7,000 topics at d_z 1.3: scipy's t-test p underflows to 0.0, which printed 0.0e+00
    # ▲***, an exact 0 no test gives; its true value is below 2.2e-308 (scipy: 1.2e-282
    # at d_z 0.45, 0.0 from 0.5)
    from scipy import stats

    rng = np.random.default_rng(3)
    base = rng.uniform(0, 0.5, 7000).round(2)
    better = np.clip(base + 0.3 + rng.normal(0, 0.1, 7000), 0, 1).round(2)
    values = {"a": list(base), "b": list(better)}
    assert stats.ttest_rel(values["b"], values["a"]).pvalue == 0.0  # the reference too
    result = compare_scores(_frame(values), baseline="a", samples=200)
    b = result.comparisons.set_index("run").loc["b"]
    assert b["p_value"] == 0.0 and b["p_adjusted"] == 0.0 and b["significant"]
    row = next(line for line in result.render("table").splitlines() if line.endswith("***"))
    assert row.endswith(" <1e-300 ▲***")
    assert "| <1e-300 | <1e-300 ▲*** |" in result.markdown()
    assert "0.0e+00" not in result.render("table") + result.markdown()
    assert p_text(0.0, LEVELS) == "<1e-300" and p_text(5e-324, LEVELS) == "4.9e-324"
