"""``agree()``: do the measures order the systems alike, do two sets of judgments agree
and order the systems alike, and how often can each measure tell two systems apart?

Systems are ordered by their mean over the qrels' topics (a run without results for a
topic scores 0 on it, but ``num_rel`` its count of the qrels), best first: higher is
better, except for a measure where lower is
(``num_nonrel_judged_ret``), whose means are negated first. The formulas are in
:mod:`.agreement` and :mod:`.discrimination`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass
from itertools import combinations
from typing import Any

import numpy as np

from .. import input_warnings, outputs, statistical_tests
from ..callbacks import refuse_uncallable
from ..errors import UsageError
from ..measures.per_topic import asked_per_topic, listed_before
from ..measures.spellings import refuse_two_spellings
from .agreement import cohen_kappa, kendall_tau, tau_ap
from .discrimination import Discrimination, DiscriminationSettings, discriminative_power
from .scores import (
    EvaluationFlags,
    Provenance,
    TopicScores,
    provenance,
    source_name,
    topic_scores,
)


@dataclass(frozen=True)
class OrderingAgreement:
    """Two orderings of the same systems: by ``reference`` and by ``evaluated`` (two
    measures, or one measure under two sets of judgments); ``reason``: why ``kendall_tau``
    and ``tau_ap`` are None (None when they are not); ``ties``: whether either ordering ties
    runs (τ_AP is then the mean over the ties' orders: below 1 for two orderings that tie
    the same runs, where τ-b is 1)."""

    reference: str
    evaluated: str
    kendall_tau: float | None
    tau_ap: float | None
    reason: str | None = None
    ties: bool = False


@dataclass(frozen=True)
class JudgmentAgreement:
    """Two sets of judgments on the (qid, docno) pairs judged in ``both``: κ with grades
    binarised at ``relevance_level`` (grade >= level), linearly weighted κ on the grades;
    and how many pairs only one of them judges. A negative grade is no judgment (in the
    pool, unjudged, as trec_eval reads it): ``negative_a`` and ``negative_b`` count the
    pairs each set grades so, left out of κ and counted as judged by the other set alone
    when it judges them. ``reason``: which κ is None and why (None when neither is)."""

    both: int
    only_a: int
    only_b: int
    relevance_level: int
    cohen_kappa: float | None
    weighted_kappa: float | None
    negative_a: int
    negative_b: int
    reason: str | None = None


@dataclass(frozen=True)
class Agreement:
    """What :func:`agree` found. ``means[r][m]``: run ``runs[r]``'s mean of
    ``measures[m]``; ``qrels_orderings``: per measure, the ordering under ``qrels``
    (reference) against the one under ``qrels_b`` (evaluated), whose means are
    ``means_b`` (None without ``qrels_b``); ``topics`` and ``topics_b``: the topics each
    set's means are over."""

    def __repr__(self) -> str:
        from ..plurals import few_reprs, short_repr

        return (
            f"Agreement(runs={few_reprs(list(self.runs))}, "
            f"measures={few_reprs(list(self.measures))}, qrels_b={short_repr(self.qrels_b)})"
        )

    settings: DiscriminationSettings
    runs: tuple[str, ...]
    measures: tuple[str, ...]
    means: tuple[tuple[float, ...], ...]
    measure_orderings: tuple[OrderingAgreement, ...]
    discriminative_power: tuple[Discrimination, ...]
    judgments: JudgmentAgreement | None = None
    qrels_orderings: tuple[OrderingAgreement, ...] = ()
    qrels: str | None = None
    qrels_b: str | None = None
    warnings: tuple[str, ...] = ()
    input_warnings: tuple[str, ...] = ()  # what its inputs warned: input_warnings.carried
    provenance: Provenance | None = None
    means_b: tuple[tuple[float, ...], ...] | None = None
    topics: tuple[str, ...] = ()
    topics_b: tuple[str, ...] | None = None

    def to_dict(self) -> dict[str, Any]:
        """The JSON document (keys ``kendall_tau``, ``tau_ap``, ``cohen_kappa``,
        ``discriminative_power``), after the tool, versions, evaluation flags and input
        files with their checksums (:meth:`Provenance.record`, when known)."""
        document = {} if self.provenance is None else self.provenance.record()
        return document | {
            "settings": self.settings.record(),
            "qrels": self.qrels,
            "qrels_b": self.qrels_b,
            "runs": list(self.runs),
            "means": self._means_record(self.means),
            "means_b": None if self.means_b is None else self._means_record(self.means_b),
            "topics": list(self.topics),
            "topics_b": None if self.topics_b is None else list(self.topics_b),
            "measure_orderings": [asdict(o) for o in self.measure_orderings],
            "discriminative_power": [d.record() for d in self.discriminative_power],
            "judgments": None if self.judgments is None else asdict(self.judgments),
            "qrels_orderings": [asdict(o) for o in self.qrels_orderings],
        }

    def _means_record(self, means: tuple[tuple[float, ...], ...]) -> list[dict]:
        return [
            {"run": run, "measure": measure, "mean": means[r][m]}
            for r, run in enumerate(self.runs)
            for m, measure in enumerate(self.measures)
        ]

    def render(self, fmt: str = "table") -> str:
        """``table`` (terminal), ``markdown`` or ``json``."""
        from .render import render_agreement

        return render_agreement(self, fmt)


def quality(scores: TopicScores) -> np.ndarray:
    """``runs x measures`` means turned so that higher is better (see the module), those
    of a measure equal on paper made equal (:func:`trecbench.rounding.equal_on_paper`)."""
    from ..comparison import LOWER, direction
    from ..rounding import equal_on_paper

    signs = np.array([-1.0 if direction(m) == LOWER else 1.0 for m in scores.measures])
    means = scores.means() * signs
    # means equal on paper tie: the float sums of two runs' values differ in their last bits
    return np.apply_along_axis(equal_on_paper, 0, means)


TIES_EVERY_RUN = (
    "one of the two orderings ties every run (their means are equal on paper): there is no "
    "order to agree with"
)


def ordering(reference: str, evaluated: str, a: np.ndarray, b: np.ndarray) -> OrderingAgreement:
    """τ-b and τ_AP of ordering ``b`` against reference ordering ``a`` (system scores),
    both None, with the reason, where one ordering ties every system (``agree`` orders
    two runs or more)."""
    tau, ap = kendall_tau(a, b), tau_ap(a, b)
    reason = TIES_EVERY_RUN if tau is None or ap is None else None
    ties = any(len(set(scores.tolist())) < len(scores) for scores in (a, b))
    return OrderingAgreement(reference, evaluated, tau, ap, reason, ties)


def _judged(source) -> tuple[Any, str]:
    """``(qrels frame, name)``; a (qid, docno) judged twice is refused as scoring refuses
    it (trec_eval's "duplicate docs", exit 4) at its two lines (a frame's rows), whichever
    of the two sets it is in: the second's was told in other words, exit 2."""
    from ..inputs import held, load_qrels, to_pandas
    from ..ranking import duplicate_error

    loaded = load_qrels(source)
    frame = to_pandas(loaded.table)
    name = source_name(source) or "qrels"
    twice = frame.duplicated(["qid", "docno"], keep=False)
    if twice.any():
        rows = frame[twice]
        first = rows.iloc[0]
        same = rows[(rows["qid"] == first["qid"]) & (rows["docno"] == first["docno"])]
        lines = same["line"] if "line" in frame else same.index.to_series() + 1
        origin = loaded.origin
        error = duplicate_error(origin, first["qid"], first["docno"], *map(int, lines[:2]), "Q5")
        raise held.renamed(error, source, origin) if held.is_held(source) else error
    return frame[["qid", "docno", "rel"]], name


def judgment_agreement(qrels_a, qrels_b, relevance_level: int = 1) -> JudgmentAgreement:
    """κ and weighted κ of two sets of judgments on the documents both judge (a negative
    grade judges nothing: see :class:`JudgmentAgreement`)."""
    a, _ = _judged(qrels_a)
    b, _ = _judged(qrels_b)
    negative_a, negative_b = a["rel"] < 0, b["rel"] < 0
    a, b = a[~negative_a], b[~negative_b]
    joined = a.merge(b, on=["qid", "docno"], how="outer", suffixes=("_a", "_b"), indicator=True)
    where = joined["_merge"].astype(str)
    both = joined[where == "both"]
    grades_a = both["rel_a"].to_numpy(dtype=np.int64)
    grades_b = both["rel_b"].to_numpy(dtype=np.int64)
    kappa = cohen_kappa(grades_a >= relevance_level, grades_b >= relevance_level)
    weighted = cohen_kappa(grades_a, grades_b, weights="linear")
    return JudgmentAgreement(
        both=len(both),
        only_a=int((where == "left_only").sum()),
        only_b=int((where == "right_only").sum()),
        relevance_level=relevance_level,
        cohen_kappa=kappa,
        weighted_kappa=weighted,
        negative_a=int(negative_a.sum()),
        negative_b=int(negative_b.sum()),
        reason=_kappa_reason(len(both), kappa, weighted),
    )


def _kappa_reason(both: int, kappa: float | None, weighted: float | None) -> str | None:
    """Which κ is undefined and why: no document judged in both sets, or (of those judged
    in both) one label only, the same in both sets."""
    undefined = [name for name, k in (("cohen_kappa", kappa), ("weighted kappa", weighted))
                 if k is None]  # fmt: skip
    if not undefined:
        return None
    why = (
        "no document is judged in both sets"
        if not both
        else "the documents judged in both carry one label, the same in both sets (no chance "
        "agreement to correct for)"
    )
    return f"{' and '.join(undefined)} undefined: {why}"


@outputs.in_input_scope  # as compare: a file read once (a FIFO --ontology) is not read again
@input_warnings.carried
def agree(
    qrels,
    runs,
    measures: str | Sequence[str] | None = None,
    *,
    qrels_b=None,
    alpha: float = 0.05,
    test: str = "t",
    correction: str | None = None,
    samples: int | None = None,
    seed: int | None = None,
    relevance_level: int = 1,
    max_docs: int | None = None,
    judged_only: bool = False,
    options: Mapping[str, Any] | None = None,
    progress=None,
) -> Agreement:
    """How ``measures`` and judgments agree on ``runs`` (two or more; a list or
    ``{name: run}``), scored against ``qrels`` with :func:`trecbench.evaluate`
    (``relevance_level``, ``max_docs``, ``judged_only``: trec_eval's ``-l``, ``-M``,
    ``-J``; ``options``: MaxOntSim's).

    Per pair of measures (the earlier one the reference): Kendall's τ-b and τ_AP of the
    systems' orderings by mean. Per measure: discriminative power under ``test`` and
    ``correction`` at ``alpha`` (resampling tests: ``samples``, 10,000, and ``seed``, 0;
    either given with a test that draws nothing at random, t or wilcoxon, is refused, as
    the command refuses ``--seed``; ``correction``
    default Holm, refused with the family-wise ``tukey``: :class:`DiscriminationSettings`). With
    ``qrels_b``: Cohen's κ of the two sets of judgments (binary at ``relevance_level``),
    linearly weighted κ on the grades, and per measure τ-b and τ_AP of the ordering
    under ``qrels_b`` against the one under ``qrels``. ``progress(label, done, total)``
    is told of the reading and scoring (:func:`trecbench.evaluate`'s) and of the tests'
    resamples (``resampling``, as compare's).
    """
    refuse_uncallable(progress)
    drawn = {"samples": samples, "seed": seed}
    defaults = DiscriminationSettings()  # of the tests that resample
    settings = DiscriminationSettings(
        alpha,
        test,
        correction,
        defaults.samples if samples is None else samples,
        defaults.seed if seed is None else seed,
    )
    statistical_tests.refuse_undrawn(
        test, [key for key, value in drawn.items() if value is not None]
    )
    flags = EvaluationFlags(relevance_level, max_docs, judged_only, dict(options or {}))
    runs = _several(runs)  # before any input is read: one run has nothing to order
    measures = asked_per_topic(measures, "power and agreement are")  # before any reading
    refuse_two_spellings(measures, "agree")  # as compare: one ordering a measure
    where = None
    if qrels_b is not None:  # both sets of judgments score the runs: each read once
        qrels, qrels_b, runs = _read_once(qrels, qrels_b, runs)
        where = source_name(qrels) or "qrels"  # which set a warning is of
    scores = topic_scores(qrels, runs, measures, flags, progress, where)
    means = quality(scores)
    measure_orderings = _measure_orderings(scores, means)
    powers = tuple(
        discriminative_power(
            scores.values[:, :, m], measure, settings, scores.runs,
            _resampling(progress, m, len(scores.measures), settings.samples),
        )
        for m, measure in enumerate(scores.measures)
    )  # fmt: skip
    judgments, qrels_orderings, warnings, scored = None, (), scores.warnings, (scores,)
    means_b = topics_b = None
    if qrels_b is not None:
        judgments, qrels_orderings, other = _under_second_judgments(
            qrels, qrels_b, runs, scores, means, flags, progress
        )
        # the same file as both sets warns alike of each: said once
        warnings = tuple(dict.fromkeys(warnings + other.warnings))
        scored += (other,)
        means_b, topics_b = _mean_rows(other), other.topics
    return Agreement(
        settings,
        scores.runs,
        scores.measures,
        _mean_rows(scores),
        measure_orderings,
        powers,
        judgments,
        qrels_orderings,
        source_name(qrels),
        source_name(qrels_b),
        warnings,
        # the second judgments' own record, even of the same file: one per role
        provenance=provenance(*scored, qrels_kinds=("qrels", "qrels_b")),
        means_b=means_b,
        topics=scores.topics,
        topics_b=topics_b,
    )


def _mean_rows(scores: TopicScores) -> tuple[tuple[float, ...], ...]:
    """Each run's means of the measures, as printed (not turned: :func:`quality`)."""
    return tuple(tuple(float(v) for v in row) for row in scores.means())


def _resampling(progress, measure: int, measures: int, samples: int):
    """``progress(label, done, total)`` told of measure number ``measure``'s resamples as
    one ``resampling`` job over every measure's, as compare tells its own; None without
    progress."""
    if progress is None:
        return None
    before, total = measure * samples, measures * samples

    def told(done: int, of: int) -> None:
        progress("resampling", before + done * samples // max(of, 1), total)

    return told


def _several(runs):
    """``runs`` as a list (a dict ``{name: run}`` kept), split once as every call splits
    them (a generator is read here, once); one run or none refused before anything is
    read."""
    from ..inputs import split_runs

    sources, names = split_runs(runs)
    # {} is one empty run to split_runs; here, as [] (and as power reads it), no run
    if len(sources) < 2 or (isinstance(runs, Mapping) and not runs):
        given = "one run" if sources and runs else "no run"
        raise UsageError(f"agreement needs two runs or more, not {given}: nothing to order")
    return sources if names is None else dict(zip(names, sources, strict=True))


def _measure_orderings(scores: TopicScores, means: np.ndarray) -> tuple:
    """τ-b and τ_AP of each pair of measures' orderings (the earlier one the reference)."""
    return tuple(
        ordering(scores.measures[i], scores.measures[j], means[:, i], means[:, j])
        for i, j in combinations(range(len(scores.measures)), 2)
    )


def _under_second_judgments(qrels, qrels_b, runs, scores, means, flags, progress) -> tuple:
    """``(κ of the two sets of judgments, each measure's ordering under qrels_b against
    the one under qrels, the runs' scores under qrels_b)``."""
    judgments = judgment_agreement(qrels, qrels_b, flags.relevance_level)
    sources = dict(zip(scores.runs, _sources(runs), strict=True))
    other = _scores_under(qrels_b, sources, scores, flags, progress)
    means_b = quality(other)
    qrels_orderings = tuple(
        ordering(measure, measure, means[:, m], means_b[:, m])
        for m, measure in enumerate(scores.measures)
    )
    return judgments, qrels_orderings, other


def _read_once(qrels, qrels_b, runs) -> tuple:
    """The judgments and the runs loaded (:class:`~trecbench.inputs.Loaded`, which every
    reader takes as it is) unless held in memory and readable again, the runs by the
    names every command gives them."""
    from ..gated.reading import load
    from ..inputs import held, named_runs
    from ..naming import check_read_once

    named = named_runs(runs)
    check_read_once([qrels, qrels_b, *named.values()])  # one pipe in two roles: read once

    def once(source, kind: str):
        # a value held in memory that reads again (a DataFrame, a dict) is kept: its errors
        # then name the run and cite a DataFrame's rows by index label, as without qrels_b
        # (a loaded table has neither); an iterator reads once, so is loaded
        return (
            source
            if held.is_held(source) and not isinstance(source, Iterator)
            else load(source, kind)
        )

    # the judgments first: a bad qrels_b (small) refused before the runs (large) are read
    judgments = once(qrels, "qrels"), once(qrels_b, "qrels")
    return *judgments, {name: once(run, "run") for name, run in named.items()}


def _scores_under(qrels_b, runs: dict, scores, flags, progress=None):
    """The runs' per-topic values under the second judgments (loaded, as the runs are);
    when none of the runs has a topic of theirs the error names those judgments (it named
    the first run), when some run has, the run without one."""
    from ..errors import NoOverlapError, some_topics
    from ..id_forms import forms_apart
    from ..inputs import Loaded

    try:
        # the measures by their display names (iprec_at_recall_2.00), parsed again: one
        # outside its domain was said once, as asked, when the first judgments scored them
        with listed_before():
            where = source_name(qrels_b) or "qrels_b"
            return topic_scores(qrels_b, runs, list(scores.measures), flags, progress, where)
    except NoOverlapError:
        judged, name = _topics(qrels_b, "qrels"), source_name(qrels_b) or "qrels_b"
        topics = {n: _topics(run, "run") for n, run in runs.items()}
        if any(judged & of_run for of_run in topics.values()):
            lacking = next((n for n, of_run in topics.items() if not judged & of_run), None)
            if lacking is None:
                raise
            run = runs[lacking]
            label = (
                run.path if isinstance(run, Loaded) else None
            ) or lacking  # a file by its path, as evaluate names it
            why = (
                f"no topic of the run is in the --qrels-b judgments, {name}: the run's "
                f"{some_topics(topics[lacking])}; the judgments' {some_topics(judged)}"
                + forms_apart(topics[lacking], judged, "the run's", "the judgments'")
            )
            raise NoOverlapError(
                f"{label}: No queries with both results and relevance info ({why})"
            ) from None
        retrieved = set().union(*topics.values())
        why = (
            "no topic of the runs is in the --qrels-b judgments: the runs' "
            f"{some_topics(retrieved)}; the judgments' {some_topics(judged)}"
            + forms_apart(retrieved, judged, "the runs'", "the judgments'")
        )
        raise NoOverlapError(
            f"{name}: No queries with both results and relevance info ({why})"
        ) from None


def _topics(source, kind: str) -> set[str]:
    """The topic ids of a run or qrels, loaded or held in memory (read again: an error's
    path only)."""
    from .. import arrow_compute as pc
    from ..gated.reading import load
    from ..inputs import Loaded

    loaded = source if isinstance(source, Loaded) else load(source, kind)
    return set(pc.unique(loaded.table.column("qid")).to_pylist())


def _sources(runs) -> list:
    from ..inputs import split_runs

    return split_runs(runs)[0]
