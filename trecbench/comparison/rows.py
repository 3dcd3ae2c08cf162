"""The rows of one section: summary, pairs, comparisons with the baseline, movers."""

from __future__ import annotations

import math

import numpy as np

from .. import stats
from ..rounding import (
    enclosing,
    equal_on_paper,
    per_topic_zero,
    rounding_noise,
    value_scale,
    zero_on_paper,
)
from .settings import StatsSettings, better_first
from .significance import adjusted_and_significant, welch_undefined
from .tables import Section, View


def _interval(boot, confidence: float, section: Section, pairs=None) -> tuple[np.ndarray, ...]:
    """The bootstrap percentile interval of each column (or pair), undefined (NaN) where
    ``section.interval_undefined`` says why (below two topics, a macro section with a
    stratum of one topic: [x, x] would read as certainty)."""
    low, high = stats.percentile_interval(boot, confidence, pairs)
    if section.interval_undefined is not None:
        low, high = np.full_like(low, np.nan), np.full_like(high, np.nan)
    return low, high


def summary_rows(view: View, boot, bounds, runs, measures, statistics: StatsSettings) -> list[dict]:
    """Per run and measure: mean, intervals, tie bounds."""
    n = view.flat.shape[0]
    means = view.mean_of(view.flat)
    size = np.abs(means)
    low, high = enclosing(means, *_interval(boot, statistics.confidence, view.part.section), size)
    nan = np.full(view.flat.shape[1], np.nan)
    macro = view.part.strata is not None
    normal = (nan, nan)
    if not macro:
        normal = enclosing(means, *stats.normal_interval(view.flat, statistics.confidence), size)
    ties = (nan, nan)
    if bounds is not None:
        ties = tuple(view.mean_of(b.transpose(0, 2, 1).reshape(n, -1)) for b in bounds)
    label = {"stratum": view.part.section.label}
    return [
        label
        | {
            "run": run,
            "measure": measure,
            "queries": n,
            "mean": means[c],
            "ci_low": low[c],
            "ci_high": high[c],
            "normal_low": normal[0][c],
            "normal_high": normal[1][c],
            "tie_low": ties[0][c],
            "tie_high": ties[1][c],
        }
        for m, measure in enumerate(measures)
        for r, run in enumerate(runs)
        for c in (view.column(m, r),)
    ]


def pair_rows(
    view: View, pairs, tested, runs, measures, statistics, section: Section
) -> list[dict]:
    """Every pair of runs ``(m, i, j)``: difference, p-values, the better run if any."""
    p, why = tested
    adjusted, significant = adjusted_and_significant(p, statistics, section)
    label = {"stratum": section.label}
    rows = []
    for k, (m, i, j) in enumerate(pairs):
        first, second = view.flat[:, [view.column(m, i)]], view.flat[:, [view.column(m, j)]]
        difference = view.mean_difference(first - second, value_scale(first, second))[0]
        winner = None
        if significant[k] and difference != 0:
            ahead = better_first(np.array([difference]), measures[m])[0] > 0
            winner = runs[i] if ahead else runs[j]
        rows.append(
            label
            | {
                "run": runs[i],
                "other": runs[j],
                "measure": measures[m],
                "difference": difference,
                "p_value": p[k],
                "p_adjusted": adjusted[k],
                "significant": bool(significant[k]),
                "winner": winner,
                "p_undefined": why[k],
            }
        )
    return rows


def comparison_rows(
    view: View, boot, compared, tested, qids, runs, measures, baseline, statistics, section
) -> tuple[list[dict], list[dict]]:
    """Rows against the baseline and their topic movers."""
    flat, macro = view.flat, view.part.strata is not None
    left = [view.column(m, r) for m, r in compared]
    right = [view.column(m, baseline) for m, _ in compared]
    diffs = flat[:, left] - flat[:, right]
    means = view.mean_of(flat)
    pairs = (np.array(left), np.array(right))
    scale = value_scale(flat[:, left], flat[:, right])  # the size of the values subtracted
    differences = view.mean_difference(diffs, scale)  # the difference of means, 0 if so on paper
    # a topic's difference within the values' rounding is a tie (W/T/L), as the mean and
    # the tests take it: counted raw, 20/0/0 stood beside a difference of 0.0000
    on_paper = per_topic_zero(flat[:, left], flat[:, right])
    # the ends 0 where the values' rounding alone leaves them off it, as the difference
    diff_low, diff_high = (
        zero_on_paper(end, diffs, scale)
        for end in enclosing(
            differences,
            *_interval(boot, statistics.confidence, section, pairs),
            np.maximum(np.abs(means[left]), np.abs(means[right])),
        )
    )
    if not macro:  # differences that do not vary on paper: the point [d, d], as documented
        still = stats.constant(diffs, scale=scale)  # (their resamples' means differ in ulps)
        diff_low, diff_high = (  # n/a stays n/a: one topic's interval is none, not a point
            np.where(still & ~np.isnan(end), differences, end) for end in (diff_low, diff_high)
        )
    p, why = tested
    adjusted, significant = adjusted_and_significant(p, statistics, section)
    effect = np.full(len(compared), np.nan) if macro else stats.effect_size(diffs, scale)
    welch = [np.full(len(compared), np.nan)] * 3
    if not macro:
        welch = list(stats.welch_t_test(flat[:, left], flat[:, right]))
    welch_adjusted = stats.adjust(welch[2], statistics.resolved_correction)
    welch_why = welch_undefined(welch[2], flat[:, left], flat[:, right], macro)
    label = {"stratum": section.label}
    rows, movers = [], []
    for k, (m, r) in enumerate(compared):
        base_mean, difference = means[right[k]], differences[k]
        change, change_undefined = _relative(difference, base_mean)
        better = better_first(on_paper[:, k], measures[m])
        head = label | {"run": runs[r], "baseline": runs[baseline], "measure": measures[m]}
        rows.append(
            head
            | {
                "queries": flat.shape[0],
                "difference": difference,
                "ci_low": diff_low[k],
                "ci_high": diff_high[k],
                "relative_change": change,
                "effect_size": effect[k],
                "p_value": p[k],
                "p_adjusted": adjusted[k],
                "significant": bool(significant[k]),
                "wins": int(np.count_nonzero(better > 0)),
                "ties": int(np.count_nonzero(better == 0)),
                "losses": int(np.count_nonzero(better < 0)),
                "welch_t": welch[0][k],
                "welch_df": welch[1][k],
                "welch_p": welch[2][k],
                "welch_p_adjusted": welch_adjusted[k],
                "p_undefined": why[k],
                "relative_change_undefined": change_undefined,
                "welch_undefined": welch_why[k],
            }
        )
        if not macro:  # a macro section has the same topics as the whole: movers there
            values = flat[:, right[k]], flat[:, left[k]]
            movers += _mover_rows(head, better, diffs[:, k], values, qids, statistics.movers)
    return rows, movers


def _mover_rows(head: dict, better, diffs, values, qids: list[str], count: int) -> list[dict]:
    """The ``count`` topics with the largest gains and losses (``values``: the
    baseline's and the run's per topic; ``better``: the differences turned so that
    positive is better)."""
    rows = []
    noise = float(rounding_noise(diffs, value_scale(*values))[0])  # of the values subtracted
    for kind, sign in (("gain", 1), ("loss", -1)):
        moved = np.flatnonzero(sign * better > 0)
        # largest moves first; equal moves (on paper: 0.7 - 0.6 and 0.8 - 0.7) in topic order
        by_size = equal_on_paper(-sign * better[moved], noise)
        moved = moved[np.argsort(by_size, kind="stable")][:count]
        rows += [
            head
            | {
                "kind": kind,
                "rank": rank,
                "qid": qids[t],
                "baseline_value": values[0][t],
                "value": values[1][t],
                "difference": diffs[t],
            }
            for rank, t in enumerate(moved, start=1)
        ]
    return rows


COLUMNS = {
    "summary": ["stratum", "run", "measure", "queries", "mean", "ci_low", "ci_high",
                "normal_low", "normal_high", "tie_low", "tie_high"],
    "comparisons": ["stratum", "run", "baseline", "measure", "queries", "difference", "ci_low",
                    "ci_high", "relative_change", "effect_size", "p_value", "p_adjusted",
                    "significant", "wins", "ties", "losses", "welch_t", "welch_df", "welch_p",
                    "welch_p_adjusted", "p_undefined", "relative_change_undefined",
                    "welch_undefined"],
    "pairs": ["stratum", "run", "other", "measure", "difference", "p_value", "p_adjusted",
              "significant", "winner", "p_undefined"],
    "movers": ["stratum", "run", "baseline", "measure", "kind", "rank", "qid",
               "baseline_value", "value", "difference"],
}  # fmt: skip


def _relative(difference: float, base: float) -> tuple[float, str | None]:
    """100 * difference / base, in percent, and None; NaN (n/a) and why when base is 0 or
    so small that the quotient overflows (a subnormal baseline mean), or below 0 (utility,
    a z-score: the quotient's sign would be the difference's reversed, -150% for a run
    that gains on every topic)."""
    if not base:
        return math.nan, "the baseline's mean is 0"
    if base < 0:
        return math.nan, "the baseline's mean is below 0"
    with np.errstate(over="ignore"):
        change = 100 * difference / base
    if not math.isfinite(change):
        return math.nan, (
            f"the baseline's mean ({base:.3g}) is so near 0 that the change overflows"
        )
    return change, None
