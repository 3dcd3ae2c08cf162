"""compare's note where a bootstrap percentile interval leaves out its own estimate: with
the fewest resamples a level allows (2/alpha: 4 at 50%), the percentiles of a column's
resampled means may both lie on one side of its mean (of a difference: of the difference),
though resamples lie on either side (reviewer 686: the note said they "fell on one side",
which they need not). The interval is
left as the resamples make it (its ends are their order statistics) and said under the
table; which intervals miss is read from the rows themselves."""

from __future__ import annotations

import pandas as pd
import pytest

from trecbench.comparison import compare_scores

# one topic of six carries run a's mean: the resamples that miss it are below it
VALUES = {"a": [0, 0, 0, 0, 0, 1.0], "b": [0.1, 0, 0.2, 0, 0, 0.4]}


def _frame() -> pd.DataFrame:
    rows = [(r, f"q{t}", "m@2", v) for r, vs in VALUES.items() for t, v in enumerate(vs)]
    return pd.DataFrame(rows, columns=["run", "qid", "measure", "value"])


def _missed(result) -> int:
    summary, comparisons = result.summary, result.comparisons
    outside = (summary["mean"] < summary["ci_low"]) | (summary["mean"] > summary["ci_high"])
    differences = comparisons["difference"]
    outside_too = (differences < comparisons["ci_low"]) | (differences > comparisons["ci_high"])
    return int(outside.sum() + outside_too.sum())


def test_intervals_leaving_out_their_estimate_are_said_under_the_table():
    # seed 9: a's mean 0.1667 above both ends of its interval, b's and b - a likewise
    result = compare_scores(_frame(), samples=4, confidence=0.5, seed=9)
    assert _missed(result) == 3
    assert result.section("all").notes == (
        "3 bootstrap intervals leave out their estimate (e.g. m@2 a: 0.1667 outside "
        "[0.2917, 0.3750]): their ends, percentiles of 4 resamples, both lie on one side "
        "of each; more resamples place the ends better.",
    )
    one = compare_scores(_frame(), samples=4, confidence=0.5, seed=3)  # b - a alone
    assert _missed(one) == 1
    assert one.section("all").notes == (
        "1 bootstrap interval leaves out its estimate (m@2 b vs a: -0.0500 outside "
        "[-0.0083, +0.0250]): its ends, percentiles of 4 resamples, both lie on one side of "
        "it; more resamples place the ends better.",
    )


@pytest.mark.parametrize("samples, seed", [(4, 1), (4, 2), (1000, 9), (1000, 0)])
def test_no_note_where_every_interval_holds_its_estimate(samples, seed):
    result = compare_scores(_frame(), samples=samples, confidence=0.5, seed=seed)
    assert _missed(result) == 0
    assert result.section("all").notes == ()
