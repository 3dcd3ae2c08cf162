"""The statistics settings of ``compare`` as one typed, validated value
(:class:`StatsSettings`), the names reports give them, and which way a measure is better."""

from __future__ import annotations

import numbers
from dataclasses import dataclass

from .. import statistical_tests, stats
from ..errors import UsageError
from ..resampling_bounds import confidence_refusal, refuse_too_few, seed_refusal
from ..type_names import printed_float

MISSING = ("zero", "drop")
ALL = "all"  # label of the section over all topics
MACRO = "macro"  # a macro section is labelled FIELD:macro; a stratum FIELD=VALUE
# the registry's names (trecbench.statistical_tests): in reports, and on macro means
TEST_NAMES = {name: test.label for name, test in statistical_tests.TESTS.items()}
MACRO_TEST_NAMES = {
    name: test.macro_label or f"none: the {test.label} has no form for macro means"
    for name, test in statistical_tests.TESTS.items()
}
CORRECTION_NAMES = statistical_tests.CORRECTIONS
HIGHER, LOWER = "higher", "lower"
MOVERS = 5  # topics listed per run, measure and direction


def direction(measure: str) -> str | None:
    """``"higher"`` or ``"lower"``: which values of ``measure`` (a display name) are
    better; None for counts that are neither (see the module docstring)."""
    from ..measures import better

    return better(measure)


def better_first(difference, measure: str):
    """The difference turned so that positive means better (higher for a measure without
    a direction)."""
    return -difference if direction(measure) == LOWER else difference


@dataclass(frozen=True)
class StatsSettings:
    """How ``compare`` tests: built once (from the CLI, the API or a benchmark
    configuration) and checked here; every part of the analysis reads it.

    ``test``: a name of :data:`trecbench.statistical_tests.TESTS`; ``correction``: one of
    :data:`trecbench.stats.CORRECTIONS`, or None (not given: Holm, see
    :attr:`resolved_correction`), refused with a family-wise test
    (:func:`trecbench.statistical_tests.refuse_correction_of_family_wise`); ``samples``
    resamples (and permutations) drawn from ``seed``, at least what the intervals at
    ``confidence`` (alpha = 1 - confidence) need (:mod:`trecbench.resampling_bounds`:
    ``2 / alpha``);
    ``missing``: ``zero`` or ``drop`` (see :mod:`trecbench.comparison`); ``movers``:
    topics listed per run, measure and direction.
    """

    test: str = "t"
    correction: str | None = None
    samples: int = 10_000
    seed: int = 0
    confidence: float = 0.95
    missing: str = "zero"
    movers: int = MOVERS

    def __post_init__(self) -> None:
        statistical_tests.get(self.test)  # an unknown test is refused, naming the known ones
        if self.correction is not None and self.correction not in stats.CORRECTIONS:
            known = ", ".join(stats.CORRECTIONS)
            raise UsageError(f"unknown correction {self.correction!r}; choose one of {known}")
        statistical_tests.refuse_correction_of_family_wise(self.test, self.correction)
        refusal = seed_refusal(self.seed)
        if refusal is not None:
            raise UsageError(refusal)
        movers = self.movers
        if not isinstance(movers, numbers.Integral) or isinstance(movers, bool) or movers < 0:
            raise UsageError(f"movers must be a non-negative integer, not {movers!r}")
        refusal = confidence_refusal(self.confidence)
        if refusal is not None:
            raise UsageError(refusal)
        # np.float32(0.95) as 0.95: as Python's float, 0.949999988 made 94.9999988079071%
        # intervals, and the resamples and alpha followed it
        object.__setattr__(self, "confidence", printed_float(self.confidence))
        # every comparison has percentile intervals at the confidence, whatever the test;
        # alpha as given, not self.alpha: a refusal shows it, and rounded it can read 0.0
        refuse_too_few(
            self.samples,
            1 - self.confidence,
            interval=True,
            test=self.test,
            confidence=self.confidence,
        )
        if self.missing not in MISSING:
            known = ", ".join(MISSING)
            raise UsageError(f"unknown missing policy {self.missing!r}; choose one of {known}")
        # numpy's numbers kept as Python's: the JSON report could not hold np.float32(0.9)
        # (a raw TypeError from write(), after the whole analysis)
        for name in ("samples", "seed", "movers"):
            object.__setattr__(self, name, int(getattr(self, name)))

    @property
    def alpha(self) -> float:
        """The significance level, 1 - confidence."""
        return round(1 - self.confidence, 12)

    @property
    def resolved_correction(self) -> str:
        """The correction given, else the default, Holm: what a test's p-values are
        adjusted with (not a family-wise test's: the Welch view's, then)."""
        return self.correction or stats.DEFAULT_CORRECTION

    @property
    def registered(self) -> statistical_tests.StatisticalTest:
        return statistical_tests.get(self.test)

    def label(self, macro: bool = False) -> str:
        """The test's name in reports (its form on macro means with ``macro``)."""
        return MACRO_TEST_NAMES[self.test] if macro else TEST_NAMES[self.test]

    @property
    def correction_name(self) -> str:
        """How the p-values are adjusted: a family-wise test's are not adjusted again."""
        if self.registered.family_wise:
            return "family-wise"
        return CORRECTION_NAMES[self.resolved_correction]

    @property
    def marked_p(self) -> str:
        """What a significance mark compares with alpha, as a legend says it: ``adjusted
        p``, or ``p`` where nothing adjusts it (``correction="none"``; a family-wise
        test's own p-values are adjusted by the test)."""
        unadjusted = not self.registered.family_wise and self.resolved_correction == "none"
        return "p" if unadjusted else "adjusted p"

    @property
    def adjusted_heading(self) -> str:
        """The heading of a column of adjusted p-values (the Welch view's; the page's
        summary): ``p adjusted``, or ``p (no correction)`` where nothing adjusts them
        (``correction="none"``), as the paired table heads its own column."""
        return "p (no correction)" if self.resolved_correction == "none" else "p adjusted"

    @property
    def correction_words(self) -> str:
        """The correction as a sentence names it: ``Holm correction``, ``family-wise
        correction``, ``no correction``."""
        name = self.correction_name
        return name if name == CORRECTION_NAMES["none"] else f"{name} correction"

    @property
    def welch_correction_name(self) -> str:
        """How the independent view's Welch p-values are adjusted: with ``correction``,
        whatever the paired test (a family-wise one's own p-values are not adjusted)."""
        return CORRECTION_NAMES[self.resolved_correction]

    @classmethod
    def from_record(cls, record: dict) -> StatsSettings:
        """The settings a report's ``settings`` (:meth:`record`) were written from."""
        # a family-wise test's recorded correction is its Welch view's, the default: one
        # given with the test is refused
        return cls(
            record["test"],
            None if record["family_wise"] else record["correction"],
            *(record[name] for name in ("samples", "seed", "confidence")),
            missing=record["missing"],
            movers=record["movers"],
        )

    def record(self, baseline: str, measures: list[str], group_by: list[str], tied: bool):
        """The report's ``settings`` (schema ``benchmark_report``)."""
        seed = int(self.seed)
        return {
            "baseline": baseline,
            "measures": measures,
            "test": self.test,
            "correction": self.resolved_correction,
            "samples": int(self.samples),
            "seed": seed,
            "confidence": float(self.confidence),
            "alpha": self.alpha,
            "missing": self.missing,
            "group_by": group_by,
            "better": {measure: direction(measure) for measure in measures},
            "interval": "bootstrap percentile",
            "macro_interval": "stratified bootstrap percentile",
            "effect_size": "cohen_dz",
            "alternative": "two-sided",
            "movers": int(self.movers),
            "tie_bounds": tied,
            "independent": {
                "test": "Welch two-sample t-test",
                "interval": "normal approximation: mean ± z·sd/√n",
                "note": "ignores that runs answer the same topics: weaker than the paired tests",
            },
            "names": {  # for readers of the report (and trecbench.renderers.comparison_text)
                "test": self.label(),
                "macro_test": self.label(macro=True),
                "correction": self.correction_name,
            },
            "family_wise": self.registered.family_wise,
            "random_streams": {
                "bootstrap": [seed, stats.BOOTSTRAP_STREAM],
                "randomization": [seed, stats.RANDOMIZATION_STREAM],
                "stratified_bootstrap": [seed, stats.STRATIFIED_STREAM],
                "tukey": [seed, stats.TUKEY_STREAM],
            },
        }
