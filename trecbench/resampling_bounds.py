"""The fewest resamples each resampled statistic needs at significance level alpha.

Below these counts a statistic cannot mean what it says, so settings refuse them
(:class:`~trecbench.errors.TooFewSamplesError`) instead of printing a result:

* **Bootstrap percentile interval** at level ``1 - alpha``: its ends are the
  ``B * alpha / 2``-th and ``B * (1 - alpha / 2)``-th of the ``B`` ordered resampled
  statistics (Efron & Tibshirani, *An Introduction to the Bootstrap*, 1993, §13.3), so each
  tail must hold one resample or more: ``B * alpha / 2 >= 1``, **B >= 2 / alpha** (40 at
  95%). With fewer, a tail of alpha/2 holds less than one resample and its end is no
  order statistic (numpy's linear interpolation smooths between order statistics; it
  does not make up for a missing one): the level is a label only, and the interval can
  exclude its own mean (one resample makes it a point). With enough resamples its two
  ends may still both lie on one side of the mean: compare says so in a note
  (:func:`trecbench.comparison.significance.estimates_left_out`).
* **Resampled p-value** (the paired bootstrap test, the sampled randomisation test,
  randomised Tukey HSD): ``p = (count + 1) / (B + 1)`` is never below ``1 / (B + 1)``, and
  a difference is significant when ``p < alpha`` (the observed statistic counted among
  the resamples, as ``scipy.stats.permutation_test`` does after Phipson & Smyth 2010; the
  tests of Smucker, Allan & Carterette 2007 and Carterette 2012), so
  ``1 / (B + 1) < alpha``: **B > 1 / alpha - 1**, the smallest such B being
  ``floor(1 / alpha)`` (20 at alpha = 0.05). This is the bound per comparison: a
  correction over ``m`` comparisons asks for more (Bonferroni's ``m / alpha``), which
  settings built before the comparisons are known cannot check; the analysis can, once
  it knows the p-values corrected together:
  :func:`trecbench.statistical_tests.out_of_reach` with ``correction`` and ``family``
  (agree's discriminative power says so in place of a share, compare in a note per
  family of a section: :func:`trecbench.comparison.significance.corrected_section`).

Levels are taken as the decimals they are written as (``0.05``, not the binary float
nearest to it), rounded to 12 places as :attr:`StatsSettings.alpha
<trecbench.comparison.StatsSettings.alpha>` is.
"""

from __future__ import annotations

import math
import numbers
from typing import TYPE_CHECKING

from .errors import TooFewSamplesError, UsageError
from .number_text import exact_number
from .plurals import exact_percent
from .resource_bounds import MAX_DIGITS

if TYPE_CHECKING:
    from fractions import Fraction

# the most resamples drawn: every sign pattern of 32 topics (the exact randomisation
# test's), beyond what any interval or p-value needs; more would run for days, and past
# 2**63 numpy's counts overflow (10**400 was an internal OverflowError)
MOST_SAMPLES = 2**32

# the largest seed taken: 100 digits, as every integer a report holds (MAX_DIGITS, as
# trecbench.sources reads the reports back); a longer one was recorded and the report
# then refused by diff, and past 4,300 digits Python would not print it
MOST_SEED = 10**MAX_DIGITS - 1


def seed_refusal(seed) -> str | None:
    """Why ``seed`` seeds no resampling (not a whole number from 0 to
    :data:`MOST_SEED`, a numpy integer taken), or None."""
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
        return f"seed must be a non-negative integer, not {seed!r}"
    if seed < 0:
        return f"seed must be a non-negative integer, not {int(seed)}"
    if seed > MOST_SEED:
        return f"seed must be an integer of at most {MAX_DIGITS} digits, not a longer one"
    return None


# the confidence levels taken: alpha = 1 - confidence is kept to 12 decimal places, and
# beyond these it is 0 (no number of resamples reaches it) or within 1e-12 of 1 (every
# p-value below 1 below it; 1e-300 was taken, printed as a 300-digit percentage)
LEVELS = (1e-12, 1 - 1e-12)


def confidence_refusal(confidence) -> str | None:
    """Why ``confidence`` is no level to test at (outside :data:`LEVELS`), or None."""
    if isinstance(confidence, bool) or not isinstance(confidence, numbers.Real):
        return f"confidence must be a number, not {confidence!r}"
    low, high = LEVELS
    if low <= confidence <= high:
        return None
    alpha = round(1 - float(confidence), 12) if 0 < confidence < 1 else None
    said = "every p-value below 1 significant" if confidence < low else "no resampling reaching it"
    return (
        f"confidence must be between 1e-12 and 1 - 1e-12, not {confidence!r}"
        + ("" if alpha is None else f": alpha = 1 - confidence, kept to 12 decimal places, "
           f"would be {alpha!r}, {said}")
    )  # fmt: skip


def exact_alpha(alpha: float) -> Fraction:
    """``alpha`` at 12 decimal places, exactly (a Fraction: imported here, 2 ms that the
    commands importing this module's bounds only pay when a level is checked)."""
    from fractions import Fraction

    return Fraction(repr(round(float(alpha), 12)))


def interval_samples(alpha: float) -> int:
    """The fewest resamples of a percentile interval at level ``1 - alpha``: ``ceil(2 /
    alpha)``."""
    return math.ceil(2 / exact_alpha(alpha))


def p_value_samples(alpha: float) -> int:
    """The fewest resamples with which a resampled p-value, at least ``1 / (samples + 1)``,
    can fall below ``alpha``: ``floor(1 / alpha)``."""
    return math.floor(1 / exact_alpha(alpha))


def _beyond(needed: int) -> str:
    """What a refusal adds when ``needed`` resamples exceed :data:`MOST_SAMPLES`: no
    --samples reaches the level (the refusal asked for more than --samples takes)."""
    if needed <= MOST_SAMPLES:
        return ""
    return ", more than the 2**32 at most drawn: no number of resamples reaches this alpha"


def refuse_too_few(
    samples, alpha: float, *, interval: bool, test: str | None = None, confidence=None
) -> None:
    """Refuse ``samples`` that is not a positive integer
    (:class:`~trecbench.errors.UsageError`), or fewer than a percentile interval at level
    ``1 - alpha`` (with ``interval``) or the resampled p-values of ``test`` (a name of
    :mod:`trecbench.statistical_tests`; None or a test that does not resample: no bound)
    need (:class:`~trecbench.errors.TooFewSamplesError`). ``confidence``: the interval's
    level as given, which a refusal prints (default ``1 - alpha`` at 12 decimal places,
    computed exactly: 1 - 0.93 is 0.07000000000000006, whose complement 0.9299999999999999
    was printed 92.99999999999999%)."""
    from . import statistical_tests

    if not isinstance(samples, numbers.Integral) or isinstance(samples, bool) or samples < 1:
        raise UsageError(f"samples must be a positive integer, not {samples!r}")
    if samples > MOST_SAMPLES:
        shown = f"{samples:,}" if samples < 10**24 else f"a number of {len(str(samples))} digits"
        raise UsageError(
            f"samples must be at most 2**32 = {MOST_SAMPLES:,} (every sign pattern of 32 "
            f"topics), not {shown}"
        )
    level = float(exact_alpha(alpha))
    registered = None if test is None else statistical_tests.get(test)
    resampled = bool(registered and statistical_tests.SAMPLES in registered.options)
    if level <= 0:  # no count of resamples reaches it (and 2/alpha would divide by 0)
        # a test that draws no resample (agree's t-test): nothing said of resamples
        why = (
            "12 decimal places: no number of resamples reaches it"
            if interval or resampled
            else "the 12 decimal places alpha is kept to"
        )
        raise UsageError(
            f"alpha = {float(alpha)!r} is 0 at {why} (alpha, or 1 - confidence, must be at "
            "least 1e-12)"
        )
    shown = float(1 - exact_alpha(alpha)) if confidence is None else confidence
    needed = interval_samples(alpha)
    if interval and samples < needed:
        raise TooFewSamplesError(
            f"{samples:,} resamples are too few for a {exact_percent(shown)} percentile "
            f"interval (alpha = {exact_number(level)}): each tail of alpha/2 must hold a "
            "resample, so "
            f"it needs 2/alpha = {needed:,} or more{_beyond(needed)}"
        )
    if resampled:
        if samples < p_value_samples(alpha):
            raise TooFewSamplesError(
                f"{samples:,} resamples are too few for the {registered.label}: its p-value, "
                f"at least 1/(samples + 1), can fall below alpha = {exact_number(level)} only with "
                f"{p_value_samples(alpha):,} or more{_beyond(p_value_samples(alpha))}"
            )
