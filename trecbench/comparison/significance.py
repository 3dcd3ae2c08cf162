"""The tests of one section: every pair's p-value by the registered test, why a p-value
is undefined, the smallest p the test can reach over the section's topics, the correction."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from .. import statistical_tests, stats
from ..number_text import signed_text, value_text
from ..plurals import counted
from ..rounding import value_scale
from .settings import MACRO, StatsSettings
from .tables import FEWER_THAN_TWO, STRATUM_OF_ONE, Section, View

# With more runs the all-pairs rows are not kept (they grow with the square of the runs:
# 800 runs made 1.9 million); the comparisons with the baseline always are.
PAIRS_RUNS = 100


def tested_section(section: Section, statistics: StatsSettings, runs: int) -> Section:
    """``section`` with the smallest p its test can reach over its topics and, when that
    is not below alpha, a note saying so (nothing of it is then marked significant:
    :func:`~trecbench.statistical_tests.out_of_reach`). A macro section of a test with no
    form for macro means has neither: it gives no p-value there, and each p says why."""
    name, alpha, samples = statistics.test, statistics.alpha, statistics.samples
    macro = section.kind == MACRO
    if runs < 2 or (macro and statistics.registered.macro_label is None):
        return section
    floor = statistical_tests.smallest_p(name, section.topics, samples, runs)
    label = statistics.label(macro=macro)
    note = statistical_tests.out_of_reach(name, section.topics, alpha, samples, runs, label)
    return replace(section, smallest_p=floor, notes=() if note is None else (note,))


# the families of p-values compare corrects apart in a section (every measure's together),
# as a correction's note names them
BASELINE_FAMILY = "the comparisons with the baseline"
PAIRS_FAMILY = "the all-pairs view"


def corrected_section(
    section: Section, statistics: StatsSettings, runs: int, families: dict[str, np.ndarray]
) -> Section:
    """``section`` (from :func:`tested_section`) with a note for each family of p-values
    (``families``: its name and p-values, NaN where undefined) whose correction puts
    alpha out of reach although the test alone does not: with 40 resamples a p is at
    least 1/41, and Holm over 3 p-values lifts the smallest adjusted p to 3/41, above
    0.05 (:func:`~trecbench.statistical_tests.out_of_reach`). The correction adjusts the
    defined p-values only (:func:`trecbench.stats.adjust`): they are the family's size.
    A family-wise test's p-values are not corrected: it gets no such note."""
    alpha = statistics.alpha
    if section.smallest_p is None or section.smallest_p >= alpha:
        return section  # no test here, or tested_section's note says it all
    if statistics.registered.family_wise:
        return section
    label = statistics.label(macro=section.kind == MACRO)
    notes = [
        statistical_tests.out_of_reach(
            statistics.test, section.topics, alpha, statistics.samples, runs, label,
            correction=statistics.resolved_correction,
            family=int(np.isfinite(p).sum()),
            family_name=name,
        )
        for name, p in families.items()
    ]  # fmt: skip
    return replace(section, notes=(*section.notes, *filter(None, notes)))


def pair_tests(
    view: View, pairs, boot, statistics: StatsSettings, progress
) -> tuple[np.ndarray, list]:
    """p-value of every pair ``(m, i, j)`` under the chosen test (NaN where it is
    undefined) and, per pair, why it is undefined (None where it is not)."""
    name = statistics.test
    left = np.array([view.column(m, i) for m, i, _ in pairs], dtype=np.int64)
    right = np.array([view.column(m, j) for m, _, j in pairs], dtype=np.int64)
    n_measures = view.flat.shape[1] // view.runs
    paired = stats.Paired(
        view.flat,
        left,
        right,
        statistics.samples,
        statistics.seed,
        strata=view.part.strata,
        resampled=boot,
        families=tuple(np.arange(m * view.runs, (m + 1) * view.runs) for m in range(n_measures)),
        progress=progress,
    )
    topics = view.flat.shape[0]
    p = np.full(len(pairs), np.nan) if topics < 2 else stats.pair_p_values(name, paired)
    undefined = np.flatnonzero(np.isnan(p))
    why: list[str | None] = [None] * len(pairs)
    for k in undefined:
        first, second = view.flat[:, left[k]], view.flat[:, right[k]]
        scale = value_scale(first, second)
        why[k] = undefined_p_reason(name, first - second, view.part.strata, scale)
    return p, why


def undefined_p_reason(name: str, diffs: np.ndarray, strata=None, scale=None) -> str:
    """Why test ``name`` (a key of :data:`trecbench.statistical_tests.TESTS`) gives no
    p-value for a pair whose per-topic differences are ``diffs`` (one a topic): in the
    words compare's outputs give as the pair's ``p_undefined`` and agree's
    discriminative power gives for such a pair. ``strata`` (one label a topic): the
    pair is tested in a macro section, by the test's macro form; None: over the topics.
    ``scale``: the size of the values subtracted (:func:`~trecbench.rounding.value_scale`)."""
    test = statistical_tests.get(name)
    if diffs.size < 2:
        return FEWER_THAN_TWO
    if strata is not None and test.macro_label is None:
        return f"the {test.label} has no form for macro means"
    if strata is not None and test.stratum_of_one and stats.stratum_of_one(strata):
        return STRATUM_OF_ONE.format(test.stratum_of_one)
    if not diffs.any():
        return "every per-topic difference is 0"
    if test.undefined_if_constant and stats.constant(diffs, strata, scale)[0]:
        within = " within every stratum" if strata is not None else ""
        return f"the per-topic differences do not vary{within}: {test.undefined_if_constant}"
    return "the test is undefined for these differences"


# why the independent-samples (Welch) view gives no t, df or p in a macro section, and
# where neither run's values vary (the t-test's statistic as statistical_tests words it)
WELCH_MACRO = "the independent-samples view is of topics, not of macro means"
WELCH_CONSTANT = (
    "both runs' values are constant: Welch's t = difference / sqrt(sd1²/n1 + sd2²/n2) divides by 0"
)


def welch_undefined(welch_p: np.ndarray, run_values, base_values, macro: bool) -> list:
    """Why each Welch t-test against the baseline gave no p (``welch_p`` NaN; None where
    it is defined); ``run_values`` and ``base_values``: topics x comparisons."""
    if macro:
        return [WELCH_MACRO] * len(welch_p)
    if run_values.shape[0] < 2:
        return [FEWER_THAN_TWO] * len(welch_p)
    neither_varies = stats.neither_varies(run_values, base_values)
    return [
        None
        if not np.isnan(p)
        else WELCH_CONSTANT
        if flat
        else "the test is undefined for these values"
        for p, flat in zip(welch_p, neither_varies, strict=True)
    ]


def pairs_left_out(runs: int) -> str:
    return (
        f"All pairs: not listed for {runs} runs (over {PAIRS_RUNS}: the table would grow "
        "with the square of the runs); the comparisons with the baseline are complete."
    )


def estimates_left_out(result: dict[str, list[dict]], samples: int) -> str | None:
    """A note when a bootstrap percentile interval of the section leaves out its own
    estimate (a mean or a difference), or None. Its ends are percentiles of the resampled
    means (interpolated between two of them), which may both lie on one side of the
    estimate though resamples lie on either side (few resamples, few topics, a skewed
    distribution): an honest interval, but one a reader would take for
    a misprint, so it is said, not widened (:func:`~trecbench.rounding.enclosing` widens
    only what rounding alone moved)."""
    estimates = [(row, row["mean"]) for row in result["summary"]]
    estimates += [(row, row["difference"]) for row in result["comparisons"]]
    missed = [(row, x) for row, x in estimates if x < row["ci_low"] or x > row["ci_high"]]
    if not missed:
        return None
    row, estimate = missed[0]
    shown = signed_text if "baseline" in row else value_text
    named = f"{row['measure']} {row['run']}"
    if "baseline" in row:
        named += f" vs {row['baseline']}"
    interval = f"[{shown(row['ci_low'])}, {shown(row['ci_high'])}]"
    one = len(missed) == 1
    return (
        f"{counted(len(missed), 'bootstrap interval')} "
        f"{'leaves out its' if one else 'leave out their'} estimate "
        f"({'' if one else 'e.g. '}{named}: {shown(estimate)} outside {interval}): "
        f"{'its' if one else 'their'} ends, percentiles of {counted(samples, 'resample')}, "
        f"both lie on one side of {'it' if one else 'each'}; "
        "more resamples place the ends better."
    )


def adjusted_and_significant(
    p: np.ndarray, statistics: StatsSettings, section: Section
) -> tuple[np.ndarray, np.ndarray]:
    """Adjusted p-values (family-wise tests: as they are) and which are significant
    (none where the test cannot reach alpha over the section's topics)."""
    if statistics.registered.family_wise:
        adjusted = p.copy()
    else:
        adjusted = stats.adjust(p, statistics.resolved_correction)
    reachable = section.smallest_p is None or section.smallest_p < statistics.alpha
    return adjusted, (adjusted < statistics.alpha) & reachable
