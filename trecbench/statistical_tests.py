"""The paired significance tests of ``trecbench compare``, and the corrections of their
p-values (:data:`CORRECTIONS`), described once.

Each :class:`StatisticalTest` says what a test is called (``--test`` value, its name in
reports), which options apply to it, where its function lives and the smallest p-value it
can reach over ``n`` topics (:func:`out_of_reach`: the words compare and agree say it in
when that is not below alpha). The CLI's ``--test`` choices, the analysis in
:mod:`trecbench.comparison` and the enums of the JSON schemas
(``benchmark_config``, ``benchmark_report``) are read from :data:`TESTS` (a test keeps
the schema files equal to it). This module imports neither numpy nor scipy, so the CLI
can list the choices without loading them; :func:`function` imports a test's code.

A test's function (``module:name``) has the signature ``(paired: stats.Paired) -> p``:
one p-value per pair of columns of ``paired.values`` (see :class:`trecbench.stats.Paired`).

Adding a test: one entry here and its function (a module of its own, as
:mod:`trecbench.wilcoxon` or :mod:`trecbench.tukey`, or :mod:`trecbench.stats`).
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Iterable
from dataclasses import dataclass

from .number_text import exact_number, fewest_digits
from .plurals import counted

SAMPLES, SEED, CORRECTION = "samples", "seed", "correction"

# why the stratified bootstrap (a macro section's intervals and its bootstrap test) says
# nothing when a stratum has one topic
STRATIFIED_BOOTSTRAP_ONE = (
    "no variance for the stratified bootstrap: it draws that topic every time"
)


@dataclass(frozen=True)
class StatisticalTest:
    """One paired test.

    ``options``: the ``compare`` options it reads (``samples``, ``seed``, ``correction``).
    ``macro_label``: its form on macro means (None: it has none, macro sections report
    no p-value). ``undefined_if_constant``: why its statistic is undefined when the
    per-topic differences do not vary (None: it is defined then). ``stratum_of_one``: why
    its macro form is undefined when a stratum has one topic (None: it is defined then).
    ``family_wise``: its p-values already hold for the family of all pairs of runs of a
    measure (no correction is applied on top).
    ``exact_below``: the function enumerates every sign pattern (exact p) when
    ``2**topics <= samples`` (else it samples, p = (count + 1) / (samples + 1)).
    ``rests_on``: what a p below the distribution-free bound rests on, for a test that can
    print one (:func:`smallest_p`); None: it cannot.
    """

    name: str
    label: str
    macro_label: str | None
    description: str
    options: tuple[str, ...]
    function: str
    undefined_if_constant: str | None = None
    stratum_of_one: str | None = None
    family_wise: bool = False
    exact_below: bool = False
    rests_on: str | None = None


TESTS: dict[str, StatisticalTest] = {
    test.name: test
    for test in (
        StatisticalTest(
            "t",
            "paired t-test",
            "stratified t-test (Welch–Satterthwaite df)",
            "two-sided paired t-test, the formula of scipy.stats.ttest_rel",
            (CORRECTION,),
            "trecbench.stats:t_pairs",
            undefined_if_constant="t = mean / (sd / sqrt(n)) divides by their sd, 0",
            stratum_of_one="no variance for the stratified t-test",
            rests_on="the differences' normality",
        ),
        StatisticalTest(
            "bootstrap",
            "paired bootstrap test",
            "stratified paired bootstrap test",
            "differences shifted to mean 0 and resampled; p = (count + 1) / (samples + 1), "
            "count = resampled means at least as far from 0 as the observed mean",
            (SAMPLES, SEED, CORRECTION),
            "trecbench.stats:bootstrap_pairs",
            undefined_if_constant="every resample is the observed mean: there is no null "
            "distribution",
            stratum_of_one=STRATIFIED_BOOTSTRAP_ONE,
            rests_on="a resampling distribution of a handful of topics",
        ),
        StatisticalTest(
            "randomization",
            "randomisation (sign-flip permutation) test",
            "randomisation test of the weighted differences",
            "Fisher sign-flip permutation: every sign pattern when 2^topics <= samples "
            "(exact, p = count / 2^topics), else p = (count + 1) / (samples + 1)",
            (SAMPLES, SEED, CORRECTION),
            "trecbench.stats:randomization_pairs",
            exact_below=True,
        ),
        StatisticalTest(
            "wilcoxon",
            "Wilcoxon signed-rank test (zero differences dropped)",
            None,
            "Wilcoxon signed-rank test as scipy.stats.wilcoxon with its defaults "
            "(zero_method='wilcox': zero differences dropped; exact, permutation or normal "
            "p as scipy's method='auto'; no continuity correction)",
            (CORRECTION,),
            "trecbench.wilcoxon:wilcoxon_pairs",
        ),
        StatisticalTest(
            "tukey",
            "randomised Tukey HSD",
            "randomised Tukey HSD of the weighted means",
            "Carterette's randomised Tukey HSD: per draw the runs' values are permuted "
            "within each topic; a pair's p = (draws whose largest minus smallest mean is at "
            "least the pair's |difference| + 1) / (samples + 1), family-wise per measure",
            (SAMPLES, SEED),
            "trecbench.tukey:tukey_pairs",
            family_wise=True,
        ),
    )
}
NAMES = tuple(TESTS)

# the corrections of several p-values for multiple comparisons (``--correction``), by the
# name a report gives each; Holm where none is given (a family-wise test's p-values get none)
CORRECTIONS = {
    "holm": "Holm",
    "bonferroni": "Bonferroni",
    "bh": "Benjamini-Hochberg",
    "none": "no correction",
}
CORRECTION_CHOICES = tuple(CORRECTIONS)
DEFAULT_CORRECTION = "holm"


def get(name: str) -> StatisticalTest:
    """The test called ``name``; :class:`~trecbench.errors.UsageError` for another."""
    try:
        return TESTS[name]
    except (KeyError, TypeError):
        from .errors import UsageError

        raise UsageError(f"unknown test {name!r}; choose one of {', '.join(NAMES)}") from None


def refuse_correction_of_family_wise(
    test: str, correction: str | None, spelt: tuple[str, str] = ("test", "the correction")
) -> None:
    """The one rule of every front end (compare's and agree's settings, so the library,
    their commands, a benchmark configuration): a ``correction`` given (None: left at its
    default) with a family-wise ``test`` (Tukey HSD) is refused, a
    :class:`~trecbench.errors.UsageError`. Its p-values hold for all pairs already and are
    not corrected again (compare adjusts only its Welch view's, with the default, Holm):
    one asked for would not be applied. ``spelt``: the test and the correction as the
    caller's users give them (``("--test", "--correction")``)."""
    if correction is not None and get(test).family_wise:
        from .errors import UsageError

        named_test, named_correction = spelt
        raise UsageError(
            f"{named_test} {test} is family-wise over all pairs: its p-values are not "
            f"corrected again; leave {named_correction} out"
        )


def refuse_undrawn(test: str, given: Iterable[str], prefix: str = "") -> None:
    """The one rule of agree's front ends (the library and its command): ``samples`` or
    ``seed`` among ``given`` (those not left at their defaults) with a ``test`` that draws
    nothing at random (t, wilcoxon) is refused, a :class:`~trecbench.errors.UsageError`:
    either would be recorded, changing nothing, as score refuses --seed without anything to
    seed. ``prefix``: how the caller's users spell an option (``--`` on the command line)."""
    for option, does in ((SEED, "seeds the resampling"), (SAMPLES, "counts the resamples")):
        if option in given and option not in get(test).options:
            from .errors import UsageError

            drawn = ", ".join(name for name, kind in TESTS.items() if option in kind.options)
            raise UsageError(
                f"{prefix}{option} {does} of {prefix}test {drawn}: {prefix}test {test} "
                "draws nothing at random"
            )


def function(name: str):
    """The function computing test ``name``'s p-values (imported on first use)."""
    module, _, attribute = get(name).function.partition(":")
    return getattr(importlib.import_module(module), attribute)


def smallest_p(name: str, topics: int, samples: int, runs: int = 2) -> float:
    """The smallest p-value test ``name`` can give over ``topics`` topics.

    No paired test that does not assume a distribution can go below the exact sign-flip
    test's ``2 / 2**topics`` (the observed signs and their mirror image); the t-test and
    the bootstrap can print smaller p-values, but below that bound they rest on the
    differences' normality (t) or on a resampling distribution of a handful of
    topics (bootstrap), which so few topics cannot support: the bound is theirs too. Tukey
    HSD's exact bound is ``k! / k!**topics`` over ``k`` runs (the same permutation of every
    topic leaves every range of means as it is). A test that samples (the bootstrap, a
    randomisation test with ``2**topics > samples``, Tukey HSD) cannot go below
    ``1 / (samples + 1)`` either.
    """
    if topics < 2:
        return 1.0
    exact = exact_smallest_p(name, topics, runs)
    return max(exact, 1 / (samples + 1)) if samples_drawn(name, topics, samples) else exact


def exact_smallest_p(name: str, topics: int, runs: int = 2) -> float:
    """The smallest p the exact permutation distribution of test ``name`` gives over
    ``topics`` topics (at least 1): Tukey HSD's ``k! / k!**topics`` over ``k`` runs, any
    other test's ``2 / 2**topics`` (the exact sign-flip test's). A test that samples
    that distribution clips its p there (:func:`trecbench.stats.randomization_test`,
    :func:`trecbench.tukey.tukey_hsd`): ``(count + 1) / (samples + 1)`` can fall below it
    when ``samples + 1`` exceeds the number of distinct permutations over that bound's
    numerator, and a p below it cannot be right."""
    if get(name).family_wise:
        return _one_over_power(math.factorial(max(runs, 2)), topics - 1)
    return 2.0 ** (1 - topics)


def _one_over_power(base: int, exponent: int) -> float:
    """``1 / base**exponent`` correctly rounded (0.0 below the smallest float), not
    ``exp(-exponent * log(base))``, whose rounding put Tukey HSD's bound 1/8 at
    0.12500000000000014."""
    if exponent * math.log2(base) > 1100:  # below 2**-1074, the smallest float
        return 0.0
    return 1 / base**exponent


def samples_drawn(name: str, topics: int, samples: int) -> bool:
    """Does test ``name`` draw ``samples`` at random over ``topics`` topics (rather than
    compute its p exactly, or without resampling)?"""
    test = get(name)
    return SAMPLES in test.options and not (test.exact_below and 2**topics <= samples)


def smallest_adjusted_p(p: float, correction: str, family: int) -> float:
    """The smallest adjusted p-value ``correction`` (a key of :data:`CORRECTIONS`) can
    give in a family of ``family`` p-values none of which is below ``p``: Holm's step-down
    and Bonferroni multiply the smallest p by ``family`` (capped at 1); Benjamini-Hochberg
    leaves it where it is when all are equal (its ``family / family``), as no correction
    does."""
    if correction in ("holm", "bonferroni"):
        return min(1.0, p * family)
    return p


def certain_smallest_p(name: str, topics: int, samples: int, runs: int = 2) -> float:
    """The smallest p-value test ``name`` gives at all over ``topics`` topics, whatever
    the differences: :func:`smallest_p` for a test that computes its p from the sign
    patterns or permutations (or draws them), ``1 / (samples + 1)`` for the bootstrap,
    nothing (0) for the t-test, whose smaller p-values rest on an assumption
    (:attr:`StatisticalTest.rests_on`) but are printed all the same."""
    if get(name).rests_on is None:
        return smallest_p(name, topics, samples, runs)
    return 1 / (samples + 1) if samples_drawn(name, topics, samples) else 0.0


def out_of_reach(
    name: str,
    topics: int,
    alpha: float,
    samples: int,
    runs: int = 2,
    label: str | None = None,
    correction: str = "none",
    family: int = 1,
    family_name: str | None = None,
) -> str | None:
    """Why no pair of ``runs`` runs can be significant at ``alpha`` under test ``name``
    over ``topics`` topics: fewer than 2 topics, the smallest p the test can honestly
    give (:func:`smallest_p`) not below alpha, or ``correction`` over a ``family`` of
    that many p-values lifting the smallest p the test gives at all
    (:func:`certain_smallest_p`) to alpha or above (:func:`smallest_adjusted_p`: 20
    resamples, p >= 1/21, and Holm over 6 pairs, >= 6/21); None when alpha is within
    reach. The one wording of compare's section notes and agree's discriminative power;
    ``label``: the test's name in it (default its :attr:`StatisticalTest.label`;
    compare's macro sections name their form); ``family_name``: what the family's p-values
    are of, where a caller corrects several families (compare: "the comparisons with the
    baseline", "the all-pairs view"), so the words say which one marks nothing."""
    if topics < 2:
        return "With fewer than 2 topics no paired test is defined: no p-value."
    floor = smallest_p(name, topics, samples, runs)
    if floor < alpha:
        return _corrected_out_of_reach(
            name, topics, alpha, samples, runs, label, correction, (family, family_name)
        )
    test = get(name)
    label = label or test.label
    if test.rests_on is None:
        return (
            f"With {topics} topics the {label} cannot reach p < {exact_number(alpha)}: the "
            f"smallest p it can honestly give is {_not_below(floor, alpha)} "
            f"({_floor_reason(test, topics, runs)}). "
            "Nothing is marked significant here."
        )
    return (
        f"With {topics} topics a test that assumes nothing of the differences' "
        f"distribution cannot reach p < {exact_number(alpha)}: its smallest p is "
        f"{_not_below(floor, alpha)} (2/2^{topics}, the exact sign-flip test's); the "
        f"{label}'s smaller p-values rest wholly on {test.rests_on}. Nothing is marked "
        "significant here."
    )


def _corrected_out_of_reach(
    name: str,
    topics: int,
    alpha: float,
    samples: int,
    runs: int,
    label: str | None,
    correction: str,
    named_family: tuple[int, str | None],
) -> str | None:
    """:func:`out_of_reach`'s words where the correction puts alpha out of reach, else None
    (``named_family``: its ``family`` and ``family_name``)."""
    family, family_name = named_family
    floor = certain_smallest_p(name, topics, samples, runs)
    adjusted = smallest_adjusted_p(floor, correction, family)
    if floor <= 0 or adjusted < alpha:
        return None
    test = get(name)
    label = label or test.label
    # "gives no p below", not "the {label}'s p": a macro form's label ends in "differences"
    if samples_drawn(name, topics, samples) and floor == 1 / (samples + 1):
        why = f"With {samples:,} resamples the {label} gives no p below 1/({samples:,} + 1)"
    else:
        fraction = _floor_fraction(test, topics, runs)
        why = f"With {topics} topics the {label} gives no p below {fraction}"
    product, factor = family * floor, _factor_text(floor, family)
    lifted = (
        f"the smallest adjusted p {family} × {factor} = {product:.3g}"
        if product < 1
        else f"every adjusted p 1 ({family} × {factor} is 1 or more)"
    )
    over, marked = counted(family, "p-value"), ". Nothing is marked significant here."
    if family_name is not None:
        over = f"the {over} of {family_name}"
        marked = f", and nothing in {family_name} is marked significant."
    return (
        f"{why} = {factor}, and the {CORRECTIONS[correction]} correction over {over} "
        f"makes {lifted}: none can fall below alpha = {exact_number(alpha)}{marked}"
    )


def _not_below(value: float, alpha: float) -> str:
    """``value`` (at least ``alpha``) with the fewest significant digits, 3 at least, that
    do not print it below ``alpha``: 2/2^6 read 0.0312 in "cannot reach p < 0.03124: its
    smallest p is 0.0312", a p below alpha as printed."""
    return fewest_digits(value, lambda text: float(text) >= alpha)


def _factor_text(floor: float, family: int) -> str:
    """``floor`` with the fewest significant digits, 3 at least, that times ``family``
    prints as the product does (3 digits): 2/2^6 read 0.0312 in "2 × 0.0312 = 0.0625"."""
    product = f"{family * floor:.3g}"
    return fewest_digits(floor, lambda text: f"{family * float(text):.3g}" == product)


def _floor_fraction(test: StatisticalTest, topics: int, runs: int) -> str:
    """The exact smallest p of :func:`smallest_p` as a fraction (Tukey HSD's, the sign-flip
    test's)."""
    return f"{runs}!/{runs}!^{topics}" if test.family_wise else f"2/2^{topics}"


def _floor_reason(test: StatisticalTest, topics: int, runs: int) -> str:
    # not 1/(samples + 1): settings refuse samples that keep it from alpha
    fraction = _floor_fraction(test, topics, runs)
    if test.family_wise:
        return f"{fraction}: the same permutation of every topic keeps the means' range"
    return (
        f"{fraction}: the exact sign-flip test's smallest p, below which no test that "
        "assumes nothing of the differences' distribution can go"
    )
