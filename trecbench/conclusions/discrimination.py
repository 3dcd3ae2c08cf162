"""Discriminative power (Sakai, SIGIR 2006): for one measure, the share of the
``N(N − 1)/2`` pairs of systems whose difference is significant at α, under a paired test
and a correction for multiple comparisons over those pairs (one family per measure);
and the smallest difference of means found significant.

The tests are ``compare``'s, looked up by name in the registry
(:mod:`trecbench.statistical_tests`: t, bootstrap, randomization, wilcoxon, tukey) and
computed by :func:`trecbench.stats.all_pairs_p` from the ``topics x runs`` values, a
p-value per pair in the order of :func:`pairs`. A test whose p-values are family-wise
already (randomised Tukey HSD, Carterette 2012) gets no correction on top.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from functools import partial
from itertools import combinations
from typing import Any

import numpy as np

from .. import statistical_tests, stats
from ..rounding import mean_difference, value_scale
from ..type_names import printed_float


@dataclass(frozen=True)
class DiscriminationSettings:
    """Significance level, test (a name of :mod:`trecbench.statistical_tests`), correction (one of
    :data:`trecbench.stats.CORRECTIONS`, or None: not given, Holm; refused with a family-wise
    test, as compare refuses it), and resamples and seed of the resampling tests (at
    least ``floor(1 / alpha)`` for a test that resamples: :mod:`trecbench.resampling_bounds`)."""

    alpha: float = 0.05
    test: str = "t"
    correction: str | None = None
    samples: int = 10_000
    seed: int = 0

    def __post_init__(self):
        from ..comparison.settings import StatsSettings
        from ..resampling_bounds import refuse_too_few
        from .scores import check_level

        check_level("alpha", self.alpha)
        # numpy's numbers as Python's (render("json") failed on np.float32(0.05)), a float32
        # as the decimal it prints as (0.05, not 0.0500000007)
        object.__setattr__(self, "alpha", printed_float(self.alpha))
        # the test, correction (none given with a family-wise test) and seed as compare
        # checks them; the resamples need only
        # let the test's p-values fall below alpha (there is no interval here)
        StatsSettings(self.test, self.correction, seed=self.seed)
        refuse_too_few(self.samples, self.alpha, interval=False, test=self.test)
        for name in ("samples", "seed"):
            object.__setattr__(self, name, int(getattr(self, name)))

    @property
    def family_wise(self) -> bool:
        """The test's p-values hold for all pairs already (Tukey HSD): none is corrected."""
        return statistical_tests.get(self.test).family_wise

    @property
    def applied_correction(self) -> str:
        """The correction the p-values get: ``none`` for a family-wise test (which takes
        none given), else the one given or the default, Holm."""
        return "none" if self.family_wise else self.correction or stats.DEFAULT_CORRECTION

    def record(self) -> dict[str, Any]:
        """The JSON's ``settings``: the correction applied, and ``family_wise`` (as
        compare's report has it); ``samples`` and ``seed`` null for a test that draws
        nothing (t, Wilcoxon: the defaults were recorded as if resampled with)."""
        drawn = {"samples", "seed"} & set(statistical_tests.get(self.test).options)
        unused = {key: None for key in ("samples", "seed") if key not in drawn}
        return (
            asdict(self)
            | unused
            | {
                "correction": self.applied_correction,
                "family_wise": self.family_wise,
            }
        )


def pairs(runs: int) -> list[tuple[int, int]]:
    """Every pair ``(i, j)``, ``i < j``, of ``runs`` runs, in lexicographic order."""
    return list(combinations(range(runs), 2))


def pair_differences(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``topics x pairs``: run ``i``'s value minus run ``j``'s for every pair (:func:`pairs`
    order), and per pair the size of the two runs' values
    (:func:`~trecbench.rounding.value_scale`)."""
    first, second = np.array(pairs(values.shape[1])).reshape(-1, 2).T
    return values[:, first] - values[:, second], value_scale(values[:, first], values[:, second])


def pair_p_values(
    values: np.ndarray, settings: DiscriminationSettings, progress=None
) -> np.ndarray:
    """The unadjusted p-value of every pair (:func:`pairs` order) under ``settings.test``;
    ``progress(done, total)`` told of its resamples."""
    p = stats.all_pairs_p(values, settings.test, settings.samples, settings.seed, progress)
    return p[np.triu_indices(values.shape[1], 1)]


@dataclass(frozen=True)
class Discrimination:
    """One measure's discriminative power over ``pairs`` pairs of runs: ``significant`` of
    them at α (adjusted p below α), their share ``discriminative_power`` and the smallest
    absolute difference of means among them (None when none is significant). With too
    few topics, or too few resamples for the correction over the pairs, for the test to
    reach α the share is None and ``unreachable`` says why. ``undefined``: the pairs
    ``(run, other)`` the test gives no p-value (constant differences: compare's ``p n/a``),
    by why, in compare's words; they count as not significant, as compare counts them.
    :attr:`reason` says both."""

    measure: str
    pairs: int
    significant: int
    discriminative_power: float | None
    smallest_significant_difference: float | None
    unreachable: str | None = None
    undefined: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = ()

    @property
    def undefined_pairs(self) -> int:
        """How many pairs have no p-value."""
        return sum(len(named) for _, named in self.undefined)

    @property
    def reason(self) -> str | None:
        """Why the share is None, and which pairs have no p-value and why (None: neither)."""
        return self.explained()

    def explained(self, name: Callable[[str], str] = str) -> str | None:
        """:attr:`reason`, each run's name shown by ``name`` (as a format escapes it)."""
        parts = [self.unreachable]
        if self.undefined:
            from ..plurals import first_few
            from ..renderers.comparison_cells import UNDEFINED_COLUMNS

            said = "; ".join(
                f"{why} — {first_few([f'{name(a)} vs {name(b)}' for a, b in named])}"
                for why, named in self.undefined
            )
            parts.append(
                f"{UNDEFINED_COLUMNS['p_undefined']} for {self.undefined_pairs} of "
                f"{self.pairs} pairs: {said}; the share counts them as not significant."
            )
        return " ".join(filter(None, parts)) or None

    def record(self) -> dict[str, Any]:
        """The JSON's object: the figures, ``reason`` and ``undefined_pairs``."""
        kept = {key: value for key, value in asdict(self).items() if key in _RECORDED}
        return kept | {"reason": self.reason, "undefined_pairs": self.undefined_pairs}


_RECORDED = ("measure", "pairs", "significant", "discriminative_power",
             "smallest_significant_difference")  # fmt: skip


def discriminative_power(
    values: np.ndarray,
    measure: str,
    settings: DiscriminationSettings,
    runs: Sequence[str] | None = None,
    progress=None,
) -> Discrimination:
    """Discriminative power of ``measure`` from its ``topics x runs`` values (``runs``:
    their names, for the pairs a reason names; default ``run 1``, ``run 2``...);
    ``progress(done, total)`` told of the test's resamples."""
    topics, n_runs = values.shape
    count = len(pairs(n_runs))
    if count == 0:
        return Discrimination(measure, count, 0, None, None)
    # as compare says it: no pair is significant below 2 topics, nor where the test's
    # smallest honest p is not below alpha
    reach = partial(
        statistical_tests.out_of_reach, settings.test, topics, settings.alpha, settings.samples
    )
    unreachable = reach(n_runs)
    if unreachable is not None:
        return Discrimination(measure, count, 0, None, None, unreachable)
    p = pair_p_values(values, settings, progress)
    names = list(runs) if runs is not None else [f"run {r + 1}" for r in range(n_runs)]
    undefined = undefined_pairs(values, np.isnan(p), settings.test, names)
    # the correction adjusts the defined p-values only (stats.adjust): they are its family
    family = int(np.isfinite(p).sum())
    unreachable = reach(n_runs, correction=settings.applied_correction, family=family)
    if unreachable is not None:
        return Discrimination(measure, count, 0, None, None, unreachable, undefined)
    adjusted = stats.adjust(p, settings.applied_correction)
    # a pair without a p-value is not significant, as compare marks it (undefined)
    significant = np.nan_to_num(adjusted, nan=1.0) < settings.alpha
    per_topic, scales = pair_differences(values)
    differences = np.abs(mean_difference(per_topic, None, scales))  # as compare's
    smallest = float(differences[significant].min()) if significant.any() else None
    return Discrimination(
        measure,
        count,
        int(significant.sum()),
        float(significant.mean()),
        smallest,
        undefined=undefined,
    )


def undefined_pairs(
    values: np.ndarray, undefined: np.ndarray, test: str, runs: Sequence[str]
) -> tuple[tuple[str, tuple[tuple[str, str], ...]], ...]:
    """The pairs (:func:`pairs` order) where ``undefined`` is true, named ``(run, other)``,
    by why test ``test`` gives them no p-value: compare's reason for the same pair."""
    if not undefined.any():
        return ()
    from ..comparison.significance import undefined_p_reason

    differences, scales = pair_differences(values)
    by_reason: dict[str, list[tuple[str, str]]] = {}
    for k, (i, j) in enumerate(pairs(values.shape[1])):
        if undefined[k]:
            why = undefined_p_reason(test, differences[:, k], None, scales[k])
            by_reason.setdefault(why, []).append((runs[i], runs[j]))
    return tuple((why, tuple(named)) for why, named in by_reason.items())
