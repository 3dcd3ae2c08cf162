"""Power and topic-set size of a paired comparison (Sakai, "Topic set size design",
Information Retrieval Journal 19, 2016).

For a run against a baseline on one measure, the per-topic differences ``d_1..d_n``
(run − baseline, topics paired) are taken as a sample. The paired two-sided t-test at
level α rejects when ``|T| > t_{1−α/2, n−1}``; with effect size ``δ`` its power is

    power(n, δ) = P(T > t_{1−α/2, n−1}) + P(T < −t_{1−α/2, n−1}),

``T`` noncentral t with ``n − 1`` degrees of freedom and noncentrality ``δ·√n``
(statsmodels' ``TTestPower``, the tests' reference). From it:

* ``effect_size`` d_z = mean(d) / sd(d) (sd with ``n − 1``), signed (run − baseline);
* ``power``: power(n, d_z), what the current topics give for the effect observed;
* ``mde``: the minimum detectable difference at the target power, in the measure's units:
  ``δ_min · sd(d)`` with ``δ_min > 0`` solving power(n, δ) = target (None, with the
  reason, when it exceeds the largest difference the measure can show: 1 for a measure
  in [0, 1], the registry's ``span``);
* ``topics_needed``: the real ``n`` solving power(n, d_z) = target, rounded up (2 at least:
  the t-test needs two topics).

A number that cannot be right is never printed: with fewer than two topics, differences
that do not vary (sd 0) or no observed difference (d_z 0: no topic count detects it) the
figures concerned are None and ``reason`` says why.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from functools import cache
from typing import Any

import numpy as np

from .. import input_warnings, outputs, stats
from ..callbacks import refuse_uncallable
from ..errors import UsageError
from ..measures.per_topic import asked_per_topic
from ..measures.spellings import refuse_two_spellings
from ..number_text import exact_number
from ..plurals import counted
from ..rounding import mean_difference, value_scale
from ..type_names import printed_float
from .scores import (
    EvaluationFlags,
    Provenance,
    check_level,
    provenance,
    source_name,
    topic_scores,
)

MAX_TOPICS = 1e9  # beyond this many topics a search for n stops: "not reachable"
# power's refusal of a baseline alone, and compare --power's: no row to give
NOTHING_TO_COMPARE = "nothing to compare with the baseline: give at least one run"


@dataclass(frozen=True)
class PowerSettings:
    """The test's level ``alpha`` and the ``target`` power (1 − β), ``alpha < target < 1``."""

    alpha: float = 0.05
    target: float = 0.8

    def __post_init__(self):
        check_level("alpha", self.alpha)
        check_level("the target power", self.target, self.alpha, "alpha")  # else no test
        # numpy's numbers as Python's (render("json") failed on np.float32(0.05)), a float32
        # as the decimal it prints as (0.05, not 0.0500000007)
        object.__setattr__(self, "alpha", printed_float(self.alpha))
        object.__setattr__(self, "target", printed_float(self.target))


@dataclass(frozen=True)
class PowerRow:
    """One run against the baseline on one measure (see the module docstring); None where
    a figure is undefined, with ``reason``."""

    run: str
    baseline: str
    measure: str
    n_topics: int
    mean_difference: float | None
    sd: float | None
    effect_size: float | None
    power: float | None
    mde: float | None
    topics_needed: int | None
    reason: str | None = None


@dataclass(frozen=True)
class PowerResult:
    """Every run against the baseline on every measure, with the settings used and
    (``provenance``) what the runs were scored from and with; None in ``compare
    --power``'s, whose report records it."""

    def __repr__(self) -> str:
        from ..plurals import short_repr

        settings = self.settings
        return (
            f"PowerResult(baseline={short_repr(self.baseline)}, rows={len(self.rows)}, "
            f"alpha={settings.alpha}, target={settings.target})"
        )

    settings: PowerSettings
    baseline: str
    rows: tuple[PowerRow, ...]
    qrels: str | None = None
    warnings: tuple[str, ...] = field(default=())
    input_warnings: tuple[str, ...] = ()  # what its inputs warned: input_warnings.carried
    provenance: Provenance | None = None

    def to_dict(self) -> dict[str, Any]:
        """The JSON document: the tool, versions, evaluation flags and input files with
        their checksums (:meth:`Provenance.record`, when known), settings, baseline and
        one object per row."""
        document = {} if self.provenance is None else self.provenance.record()
        return document | {
            "settings": asdict(self.settings),
            "baseline": self.baseline,
            "qrels": self.qrels,
            "rows": [asdict(row) for row in self.rows],
        }

    def render(self, fmt: str = "table", name=None, opening: bool = True) -> str:
        """``table`` (terminal), ``markdown``, ``json`` or ``latex``; ``name`` shows a run's
        name, ``opening`` the LaTeX's comment on its package
        (:func:`~trecbench.conclusions.render.render_power`)."""
        from .render import render_power

        return render_power(self, fmt, name, opening)


class Unreliable(ArithmeticError):
    """scipy cannot give a figure at this alpha and topic count (tiny alpha with few
    topics): its message says what failed, completed by "at alpha ... with n topics"."""


@cache
def _t_tails():
    """``(t_isf, nct_cdf, nct_sf)``: ``scipy.stats``' ``t.isf(q, df)``,
    ``nct.cdf(x, df, nc)`` and ``nct.sf(x, df, nc)`` to the last bit, from the
    ``scipy.special`` functions those methods call (``-stdtrit``, ``nctdtr``, Boost's
    ``_nct_sf`` clipped to [0, 1]), without importing scipy.stats (0.4 s, issue 31). The
    complement is scipy's private function: were it gone, scipy.stats gives all three."""
    try:
        from scipy.special import nctdtr, stdtrit
        from scipy.special._ufuncs import _nct_sf
    except ImportError:
        from scipy.stats import nct, t

        return t.isf, nct.cdf, nct.sf

    def nct_sf(x, df, nc):
        with np.errstate(over="ignore"):  # as scipy.stats (its gh-17432)
            return np.clip(_nct_sf(x, df, nc), 0, 1)

    return (lambda q, df: -stdtrit(df, q)), (lambda x, df, nc: nctdtr(df, nc, x)), nct_sf


def achieved_power(n: float, effect: float, alpha: float) -> float:
    """power(n, δ) of the two-sided paired t-test at level ``alpha`` (``n`` may be real);
    :class:`Unreliable` where scipy's critical value is not a finite positive number or
    its series did not converge."""
    import warnings

    t_isf, nct_cdf, nct_sf = _t_tails()
    df = n - 1
    critical = float(t_isf(alpha / 2, df))
    # alpha/2 < 1/2 puts the quantile above 0; scipy's stdtrit gives ±inf instead of a
    # quantile near 1e100 (df 3 to ~40 at alpha 1e-300), and NaN power follows
    if not 0 < critical < math.inf:
        raise Unreliable(
            f"scipy's t critical value (df {df:g}) comes out {critical:g}, not finite and positive"
        )
    noncentrality = abs(effect) * math.sqrt(n)  # the power is symmetric in δ
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", RuntimeWarning)
        far = float(nct_cdf(-critical, df, noncentrality))
        near = float(nct_sf(critical, df, noncentrality))
    # Boost's "did not converge" makes the figure unreliable; scipy < 1.12 also warns of a
    # division by zero inside _nct_cdf on ordinary inputs, whose results are right
    if any("converge" in str(w.message) for w in caught):
        raise Unreliable("scipy's noncentral t does not converge")
    # the tail away from δ: scipy gives NaN where it underflows (nc ≳ 14), i.e. about 0
    far = 0.0 if math.isnan(far) else far
    if math.isnan(near):  # Boost's domain ends near nc 1e10 (d_z 1e10: RBP(p=0.5)'s values)
        return _beyond_scipy(noncentrality, critical, df)
    return near + far


def _beyond_scipy(noncentrality: float, critical: float, df: float) -> float:
    """The power where scipy's noncentral t gives NaN: 1 where the miss probability β is
    provably below 1e-20 (1 to double precision), :class:`Unreliable` elsewhere. With
    ``T = (Z + nc) / S``, ``S² = V / df``, ``V`` chi-squared: ``β <= P(T <= c) <= P(Z <=
    -nc/2) + P(V >= df x)``, ``x = (nc / 2c)²``; at ``nc >= 80`` the first is below 1e-300,
    at ``nc >= 20c`` (``x >= 100``) Chernoff's bound ``(x e^(1 - x))^(df/2)`` the second
    below 3.2e-21 (``df >= 1``)."""
    if noncentrality >= max(20 * critical, 80.0):
        return 1.0
    raise Unreliable(
        f"scipy's noncentral t gives no number at noncentrality {noncentrality:.3g} (df {df:g})"
    )


def _solve(function, low: float, high: float) -> float | None:
    """The root of increasing ``function`` above ``low``: ``high`` doubles until the sign
    changes, its last step :data:`MAX_TOPICS` itself (None if the sign changes past it: a
    root between 2^29 and 10^9 was said to lie beyond), then Brent's method to machine
    precision."""
    from scipy.optimize import brentq

    while function(high) < 0:
        if high >= MAX_TOPICS:
            return None
        low, high = high, min(high * 2, MAX_TOPICS)
    return float(brentq(function, low, high, xtol=1e-14, rtol=4 * np.finfo(float).eps))


def detectable_effect(n: int, alpha: float, target: float) -> float:
    """δ_min > 0 with power(n, δ_min) = target: the smallest effect size ``n`` topics
    detect at the target power."""
    found = _solve(lambda d: achieved_power(n, d, alpha) - target, 0.0, 1.0)
    if found is None:  # the power grows to 1 with δ at any n >= 2: scipy lost its way
        raise Unreliable(
            f"scipy's noncentral t reaches the target power at no effect size below {MAX_TOPICS:g}"
        )
    return found


def topics_for_power(effect: float, alpha: float, target: float) -> float | None:
    """The real ``n`` >= 2 with power(n, |δ|) = target, 2 when two topics reach it
    already (the t-test needs two), None beyond :data:`MAX_TOPICS`; ``effect`` not 0."""
    size = abs(effect)

    def shortfall(n: float) -> float:
        return achieved_power(n, size, alpha) - target

    if shortfall(2.0) >= 0:
        return 2.0
    return _solve(shortfall, 2.0, 4.0)


def _undefined(known: dict, mean: float | None, sd: float | None, reason: str) -> PowerRow:
    return PowerRow(
        **known,
        mean_difference=mean,
        sd=sd,
        effect_size=None,
        power=None,
        mde=None,
        topics_needed=None,
        reason=reason,
    )


def power_row(
    differences: np.ndarray,
    settings: PowerSettings,
    run: str,
    baseline: str,
    measure: str,
    scale: float | None = None,
) -> PowerRow:
    """The figures of one comparison from its per-topic differences (run − baseline);
    ``scale``: the size of the values subtracted (:func:`~trecbench.rounding.value_scale`;
    None: values up to 1)."""
    n = len(differences)
    known = {"run": run, "baseline": baseline, "measure": measure, "n_topics": n}
    # as compare prints it: 0 where the differences add up to 0 on paper
    mean = float(mean_difference(differences, None, scale)[0]) if n else None
    if n < 2:
        return _undefined(known, mean, None, f"{counted(n, 'topic')}: the paired t-test needs 2")
    sd = float(stats.sample_sd(stats.as_matrix(differences))[0])  # no square underflows
    if stats.constant(differences, None, scale)[0]:
        why = "equal on every topic" if mean == 0 else "the same difference on every topic"
        return _undefined(known, mean, 0.0, f"{why} (sd 0): the effect size is undefined")
    effect = float(stats.effect_size(differences, scale)[0])  # compare's d_z, at unit scale
    try:
        figures = _figures(n, effect, sd, settings, measure)
    except Unreliable as failure:
        reason = (
            f"{failure} at alpha {settings.alpha} with {n} "
            "topics: power, MDE and topics needed are undefined"
        )
        figures = {"power": None, "mde": None, "topics_needed": None, "reason": reason}
    return PowerRow(**known, mean_difference=mean, sd=sd, effect_size=effect, **figures)


def _figures(
    n: int, effect: float, sd: float, settings: PowerSettings, measure: str
) -> dict[str, Any]:
    """The power, MDE and topics needed of one comparison (:class:`Unreliable` where
    scipy cannot compute them)."""
    from ..measures import span

    alpha, target = settings.alpha, settings.target
    mde, reasons = detectable_effect(n, alpha, target) * sd, []
    widest = span(measure)
    if widest is not None and mde > widest:
        reasons.append(
            f"the MDE ({mde:.4g}) exceeds {widest:g}, the largest difference {measure} "
            f"can show: no difference is detectable at power {float(target)!r} with {n} topics"
        )
        mde = None
    needed = None
    if effect == 0:
        reasons.append("mean difference 0: no number of topics detects it")
    else:
        exact = topics_for_power(effect, alpha, target)
        if exact is None:
            reasons.append(f"more than {MAX_TOPICS:,.0f} topics needed")
        else:
            needed = math.ceil(exact)
    power = achieved_power(n, effect, alpha)
    reasons += _below_sign_flip_floor(n, needed, alpha)
    reason = "; ".join(reasons) or None
    return {"power": power, "mde": mde, "topics_needed": needed, "reason": reason}


def fewest_topics_marked(alpha: float) -> int:
    """The fewest topics on which compare and agree can mark a difference significant at
    ``alpha``: on fewer, the exact sign-flip test's smallest p, ``2/2**n``, is not below
    alpha, and they mark nothing whatever the t-test's p
    (:func:`trecbench.statistical_tests.out_of_reach`)."""
    from .. import statistical_tests

    topics = 2
    while statistical_tests.exact_smallest_p("t", topics) >= alpha:
        topics += 1
    return topics


def _below_sign_flip_floor(n: int, needed: int | None, alpha: float) -> list[str]:
    """The flag of a power or a topic count under :func:`fewest_topics_marked`: the
    t-test's figure, which compare and agree, marking nothing there, never bear out
    (``power`` printed 3 topics needed where compare marks nothing below 6)."""
    fewest = fewest_topics_marked(alpha)
    figures = []
    if n < fewest:
        figures.append(f"the power on {n} topics")
    if needed is not None and needed < fewest:
        figures.append(f"the topics needed ({needed})")
    if not figures:
        return []
    verb = "is" if len(figures) == 1 else "are"
    return [
        f"{' and '.join(figures)} {verb} the t-test's alone: compare and agree mark nothing "
        f"significant on fewer than {fewest} topics at alpha {exact_number(alpha)} (the exact "
        f"sign-flip test's smallest p, 2/2^n, is not below it)"
    ]


@outputs.in_input_scope  # as compare: a file read once (a FIFO --ontology) is not read again
@input_warnings.carried
def power(
    qrels,
    baseline,
    runs,
    measures: str | Sequence[str] | None = None,
    *,
    alpha: float = 0.05,
    target_power: float = 0.8,
    relevance_level: int = 1,
    max_docs: int | None = None,
    judged_only: bool = False,
    options: Mapping[str, Any] | None = None,
    progress=None,
) -> PowerResult:
    """Power of each run's comparison with ``baseline`` on each measure (paired two-sided
    t-test over the topics of ``qrels``; a run without results for a topic scores 0 on it,
    but ``num_rel`` its count of the qrels): a :class:`PowerResult`, a row per run and
    measure. ``measures``: any spelling (None: the KPI preset); ``alpha``: the test's
    significance level; ``target_power``: the power (1 - beta) the smallest detectable
    difference and the topics needed are given for.

    ``baseline`` and ``runs`` are runs as :func:`trecbench.evaluate` takes them (``runs``
    one, a list or ``{name: run}``; with a dict, ``baseline`` may be a ``{name: run}`` of
    one). The values are :func:`trecbench.evaluate`'s per-topic values, scored with
    ``relevance_level``, ``max_docs``, ``judged_only`` and ``options`` (trec_eval's
    ``-l``, ``-M``, ``-J``; MaxOntSim's options); ``progress(label, done, total)`` is told
    of the reading and scoring. See :mod:`trecbench.conclusions.power`.

    >>> result = power("qrels.txt", "base.run", ["new.run"], ["nDCG@10"])  # doctest: +SKIP
    >>> result.rows[0].topics_needed                                       # doctest: +SKIP
    """
    refuse_uncallable(progress)
    from ..inputs import split_runs

    settings = PowerSettings(alpha, target_power)
    flags = EvaluationFlags(relevance_level, max_docs, judged_only, dict(options or {}))
    base_sources, base_names = split_runs(baseline)
    sources, names = split_runs(runs)
    if len(base_sources) != 1:
        raise UsageError(  # compare's order, power(qrels, runs, measures), is a likely slip
            f"baseline: {len(base_sources)} runs given; give one baseline run, and the runs to "
            "compare with it after it: power(qrels, baseline, runs, measures)"
        )
    # {} is one empty run to split_runs; here, as [], no run beside the baseline (the
    # command line's RUNS... is required): refused rather than an empty result
    if not sources or (isinstance(runs, Mapping) and not runs):
        raise UsageError(NOTHING_TO_COMPARE)
    if (base_names is None) != (names is None):
        raise UsageError("name the baseline and the runs alike: all in dicts, or none")
    everything = base_sources + sources
    if names is not None:
        everything = dict(zip(base_names + names, everything, strict=True))
        if len(everything) != len(names) + 1:
            raise UsageError(f"the baseline {base_names[0]!r} is among the runs")
    measures = asked_per_topic(measures, "power and agreement are")  # before any reading
    refuse_two_spellings(measures, "power")  # as compare: one row a measure
    scores = topic_scores(qrels, everything, measures, flags, progress)
    values = scores.values
    rows = power_rows(values, scores.runs, scores.measures, settings)
    return PowerResult(
        settings,
        scores.runs[0],
        rows,
        source_name(qrels),
        scores.warnings,
        provenance=provenance(scores),
    )


def power_rows(values: np.ndarray, runs: Sequence[str], measures: Sequence[str], settings):
    """A :class:`PowerRow` per run after the first (the baseline) and measure, from the
    ``topics x runs x measures`` values."""
    return tuple(
        power_row(
            values[:, r, m] - values[:, 0, m],
            settings,
            run,
            runs[0],
            measure,
            float(value_scale(values[:, r, m], values[:, 0, m])[0]),
        )
        for r, run in enumerate(runs[1:], start=1)
        for m, measure in enumerate(measures)
    )


def power_settings(runs: int, alpha: float, target: float) -> PowerSettings:
    """The settings of the power of a comparison of ``runs`` runs at ``alpha``, checked
    (compare --power's, before the work: a target at or below alpha was refused once every
    run was scored). A comparison of one run has no power to give (every row is a run
    against the baseline): refused, where its power table was printed empty."""
    if runs < 2:
        raise UsageError(f"the power of one run: {NOTHING_TO_COMPARE} beside it (--power)")
    return PowerSettings(alpha, target)


def with_power(comparison, target: float = 0.8):
    """``comparison`` (a :class:`~trecbench.comparison.Comparison`) with its ``power``:
    for each run and measure against the baseline over all topics, the effect size, the
    power reached, the smallest detectable difference and the topics needed at ``target``
    power (paired t-test at the comparison's alpha). ``compare --power TARGET``."""
    import dataclasses

    from ..comparison.tables import values_cube

    settings = power_settings(len(comparison.runs), comparison.statistics.alpha, target)
    baseline = comparison.baseline
    runs = [baseline, *(run for run in comparison.runs if run != baseline)]
    values = values_cube(comparison.per_query, runs, comparison.measures, comparison.queries)
    rows = power_rows(values, runs, comparison.measures, settings)
    judged = comparison.qrels_files()
    qrels = judged[0] if len(judged) == 1 else None  # one qrels (runs with their own: none)
    return dataclasses.replace(comparison, power=PowerResult(settings, baseline, rows, qrels))
