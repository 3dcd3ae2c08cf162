"""Fusion parameters chosen on judged topics, with a held-out score that is not the
training score.

The candidates are a grid, as ranx's ``optimize_fusion`` searches: RRF's ``k`` over
``k_grid`` (default 10, 20, ..., 100), or the runs' weights of a weighted method
(``combsum``, ``wmnz``) over the simplex with step ``step`` (weights summing to 1). Every
candidate fuses all topics once and is scored per topic; then, with ``folds``-fold
cross-validation over topics (a seeded shuffle; 5 folds unless asked, or one per topic
when there are fewer), each fold's topics are scored with the candidate that is best on
the other folds' topics, and the held-out score is the mean of those values over all
topics. The chosen parameters are the best candidate on all topics
(ties: the first in grid order); they fuse the run that is written.
"""

from __future__ import annotations

import numbers
import os
import warnings
from dataclasses import dataclass

import numpy as np

from .. import input_warnings
from ..callbacks import refuse_uncallable
from ..callers import outside_trecbench
from ..errors import ParameterDomainWarning, UsageError, one_line
from ..naming import listed
from ..plurals import first_few
from ..resampling_bounds import seed_refusal
from .fusion_grid import (  # the grid searched
    K_GRID,
    TUNED,
    Candidate,
    check_grid_given,
    check_grid_size,
    grid,
    grid_parts,
)

FOLDS = 5  # folds of the held-out score unless asked, or as many as the topics when fewer


@dataclass(frozen=True)
class FusionTuning:
    """The grid, each candidate's per-topic values (``values[candidate, topic]``), the
    folds (``fold[topic]``), the candidate chosen per fold and on all topics, the held-out
    and training scores."""

    def __repr__(self) -> str:
        from ..plurals import short_repr

        chosen = self.candidates[self.chosen] if self.candidates else None
        return (
            f"FusionTuning(method={self.method!r}, measure={short_repr(self.measure)}, "
            f"chosen={chosen!r}, training={self.training:.4f}, "
            f"held_out={self.held_out:.4f}, candidates={len(self.candidates)}, "
            f"topics={len(self.qids)}, seed={self.seed})"
        )

    method: str
    measure: str
    candidates: list[Candidate]
    qids: list[str]
    values: np.ndarray
    fold: np.ndarray
    fold_choice: list[int]
    chosen: int
    held_out: float
    training: float
    seed: int
    input_warnings: tuple[str, ...] = ()  # what its inputs warned: input_warnings.carried
    search: FusionSearch | None = None  # the search's settings: its grid is recorded

    @property
    def folds(self) -> int:
        """How many folds the held-out score was computed over."""
        return int(self.fold.max()) + 1

    @property
    def best(self) -> Candidate:
        return self.candidates[self.chosen]

    def to_json(self) -> dict:
        return {
            "method": self.method,
            "measure": self.measure,
            "chosen": self.best.label(),
            "k": self.best.k if self.best.weights is None else None,
            "weights": None if self.best.weights is None else list(self.best.weights),
            "held_out": self.held_out,
            "training": self.training,
            "folds": self.folds,
            "fold_choices": [self.candidates[c].label() for c in self.fold_choice],
            "seed": self.seed,
            "candidates": len(self.candidates),
            **self._grid(),
        }

    def _grid(self) -> dict:
        """The grid searched, which changes what is chosen: RRF's ``k_grid`` or the weights'
        ``step`` (the other null), as given to the search."""
        if self.search is None:
            return {}
        by_k = TUNED.get(self.method) == "k"
        k_grid = [k if isinstance(k, int) else float(k) for k in self.search.k_grid]
        return {
            "k_grid": k_grid if by_k else None,
            "step": None if by_k else float(self.search.step),
        }


def _whole(value) -> bool:
    """Whether ``value`` is an integer of any kind (a numpy one too), not a bool."""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _folds(n_topics: int, folds: int, seed: int) -> np.ndarray:
    """Each topic's fold, ``folds`` of them as even as can be, shuffled with ``seed``
    (:class:`FusionSearch` checked both; the topics bound the folds)."""
    if n_topics < 2:
        raise UsageError(
            "optimize_fusion cross-validates over topics: it needs 2 or more topics of the runs "
            f"in the qrels, not {n_topics}"
        )
    if folds > n_topics:
        from ..plurals import counted

        topics = counted(n_topics, "topic")
        raise UsageError(f"folds must be from 2 to the number of topics ({topics}), not {folds!r}")
    order = np.random.default_rng(seed).permutation(n_topics)
    fold = np.empty(n_topics, np.int64)
    fold[order] = np.arange(n_topics) % folds
    return fold


def _best(means: np.ndarray, higher: bool) -> int:
    """The first candidate of the best mean, means equal on paper tied (their float sums
    differ in the last bits)."""
    from ..rounding import equal_on_paper

    tied = equal_on_paper(means)
    return int(np.argmax(tied) if higher else np.argmin(tied))


def _evaluated(qrels, fused, measure: str):
    """One candidate's per-topic values (``evaluate``'s ``per_query_values``); without a topic in
    the qrels the error names the qrels, not the candidate (a fused run named by its
    number)."""
    from ..errors import NoOverlapError
    from ..evaluation import evaluate

    try:
        return evaluate(qrels, {"0": fused}, [measure]).per_query_values
    except NoOverlapError:
        _no_overlap(qrels, _topics(fused), _topics(qrels.table))


def _check_candidates_differ(values: np.ndarray, qrels, measure: str) -> None:
    """Refuse a grid whose candidates all score the same on every topic (qrels that judge
    no retrieved document relevant, or candidates that rank alike): the first would be
    chosen as if it were best, and recorded as tuned."""
    if (values == values[:1]).all():
        from ..conclusions.scores import source_name
        from ..errors import one_line

        mean = float(values[0].mean())
        judged = one_line(source_name(qrels) or "the qrels")
        raise UsageError(
            f"optimize_fusion: every candidate scores the same {measure} on every topic of "
            f"{judged} (mean {mean:.4f}): there is nothing to choose; fuse without "
            "optimizing, with a k or weights of your own"
        )


@dataclass(frozen=True)
class FusionSearch:
    """How :func:`tune_fusion` searches: the fusion ``method`` (and its ``norm`` and
    ``depth``), the grid (``k_grid`` for RRF, ``step`` for weights), the ``folds`` of the
    held-out score and their shuffle's ``seed``."""

    method: str = "rrf"
    norm: str | None = None
    folds: int | None = None  # None: FOLDS, or one per topic when there are fewer
    seed: int = 0
    k_grid: tuple = K_GRID
    step: float = 0.1
    depth: int | None = None

    def __post_init__(self) -> None:
        """Every setting checked before any run is read (``folds`` and ``seed``: an integer
        of any kind, a numpy one too); the number of topics bounds the folds once it is
        known, the number of runs the weightings."""
        if self.folds is not None and (not _whole(self.folds) or self.folds < 2):
            raise UsageError(f"folds must be an integer of 2 or more, not {self.folds!r}")
        refusal = seed_refusal(self.seed)
        if refusal is not None:
            raise UsageError(refusal)
        for name in ("folds", "seed"):  # as a Python int: recorded in JSON
            value = getattr(self, name)
            object.__setattr__(self, name, None if value is None else int(value))
        from ..fusion import check_depth, method_name, norm_name

        # the fusion's and the grid's own settings too, before any run is read
        method = method_name(self.method)
        norm_name(self.norm, method)
        check_depth(self.depth)
        grid_parts(method, self.k_grid, self.step)  # its count: once the runs are counted


@input_warnings.carried
def optimize_fusion(
    runs,
    qrels,
    measure: str,
    method: str = "rrf",
    *,
    norm: str | None = None,
    folds: int | None = None,
    seed: int = 0,
    k_grid=None,
    step: float | None = None,
    depth: int | None = None,
    progress=None,
) -> FusionTuning:
    """Choose ``method``'s parameters for ``measure`` on ``qrels`` (see the module
    docstring); ``runs`` as :func:`trecbench.fuse` takes them, two or more.
    ``progress(label, done, total)`` is told of the work as :func:`trecbench.fuse`'s is:
    each run read, then the candidates fused and scored (:func:`tune_fusion`).

    >>> tuned = optimize_fusion(["a.run", "b.run"], "dev.qrels", "nDCG@10")  # doctest: +SKIP
    >>> tuned.best.k, tuned.held_out  # doctest: +SKIP
    """
    refuse_uncallable(progress)
    from ..fusion import check_distinct_files, ranked_tables
    from ..inputs import split_runs

    check_grid_given(method, k_grid, step)
    # as names= is read: a number, a string or a set (no order for ties) refused
    k_grid = K_GRID if k_grid is None else listed(k_grid, "k_grid", "RRF's k values")
    step = 0.1 if step is None else step
    search = FusionSearch(method, norm, folds, seed, tuple(k_grid), step, depth)
    check_measure(measure)  # before a run is read, as the search's settings are
    sources, names = split_runs(runs)  # a generator read once, here
    _check_several(len(sources))  # before a run is read
    # each source is one run: the weightings are counted before any is read
    check_grid_size(search.method, len(sources), search.k_grid, search.step)
    # before a run is read: one pipe is read once; no advice of weights: they are chosen
    check_distinct_files(sources, [qrels], advice=None)
    tables = ranked_tables(sources, progress, names=names, advice=None)
    said = [one_line(os.fspath(source)) if isinstance(source, (str, os.PathLike)) else None
            for source in sources]  # fmt: skip
    return tune_fusion(tables, qrels, measure, search, progress, said)


def check_measure(measure: str, option: str = "optimize_fusion") -> None:
    """Refuse a ``measure`` the search cannot choose on, before a run is read: a name no
    measure has (as :func:`trecbench.evaluate` refuses it), a measure without one number
    per topic or without a better direction (a count, a diagnostic). ``option``: what
    takes the measure, named in the advice to a list of cutoffs (``P@1,5``)."""
    from ..measures import parse_measures, value_names
    from ..measures.labels import level_label
    from ..measures.per_topic import refuse_other_judgments
    from ..measures.registry import NO_TOPIC_NUMBER
    from ..measures.suggestions import CutoffListError

    try:
        measures = parse_measures([measure])
    except CutoffListError as error:  # -m's advice, to give each, is not the search's
        first = error.names[0]
        advice = f"{option} takes one measure: give one cutoff, such as {first}"
        raise error.advised(advice) from None
    refuse_other_judgments(measures, "the search's values are")
    columns = []  # what the evaluation's per-topic values are named
    for parsed in measures:
        if parsed.definition.summary in NO_TOPIC_NUMBER:  # num_q, runid, gm_map, relstring
            continue
        names = value_names(parsed)
        if names is None:  # a float cutoff family without levels: trec_eval's default ones
            levels = parsed.definition.trec_defaults
            names = [(None, level_label(parsed.family, level)) for level in levels]
        columns += [shown for _, shown in names]
    _chooses_on(columns, measure)


def _chooses_on(columns: list, measure: str) -> str:
    """The better direction of the one per-topic value named in ``columns`` (of
    ``measure``, as given), refused unless there is one and it has a better direction."""
    from ..measures import better

    if len(columns) != 1:
        named = ", ".join(map(str, columns[:4])) + (", ..." if len(columns) > 4 else "")
        got = f"it gives {named}" if columns else f"{measure} gives no number per topic"
        raise UsageError(f"optimize_fusion needs a measure with one number per topic: {got}")
    direction = better(columns[0])
    if direction is None:
        raise UsageError(
            f"optimize_fusion needs a measure with a better direction, not {columns[0]} (a count "
            "or a diagnostic: more of it is not better)"
        )
    return direction


def load_qrels(qrels, progress=None):
    """``qrels`` read as :func:`trecbench.evaluate` reads them (the same refusals), before
    a candidate is fused; a :class:`~trecbench.inputs.Loaded` one returned as it is."""
    from ..evaluation.judgments import load_judgments
    from ..evaluation.settings import EvalSettings
    from ..inputs import Loaded

    if isinstance(qrels, Loaded):
        return qrels
    settings = EvalSettings()  # the evaluation's own: trec_eval 9.0.8, -l 1
    _, loaded = load_judgments(qrels, "qrels", settings.relevance_level, settings.version,
                               progress)  # fmt: skip
    return loaded


def _check_shared_topics(tables, qrels, names=None) -> None:
    """Refuse runs and (loaded) qrels that share fewer than 2 topics, before any candidate
    is fused: the folds need 2 or more (the fused runs hold the runs' topics). ``names``:
    as :func:`tune_fusion` takes them."""
    from ..inputs.integer_ids import refuse_lost_zeros

    origin = qrels.path or qrels.origin
    for i, table in enumerate(tables):  # "01" beside 1: refused as such, not as no topic
        name = names[i] if names is not None else None
        refuse_lost_zeros(qrels.table, origin, table, name or f"run{i + 1}")
    judged = _topics(qrels.table)
    retrieved = {str(q) for table in tables for q in _topics(table)}
    shared = len(judged & retrieved)
    if not shared:
        _no_overlap(qrels, retrieved, judged)
    if shared < 2:
        _folds(shared, 2, 0)  # its refusal, in its words
    if shared < len(retrieved):  # tuned on the others, as score warns of them
        from ..errors import InputWarning
        from ..flag_wording import FlagWarning

        left_out = tuple(sorted(retrieved - judged, key=str.encode))
        where = f"tuned on {shared:,} of the runs' {len(retrieved):,} topics"
        said = FlagWarning("run_only", None, left_out, False, where)
        warnings.warn(InputWarning(said), stacklevel=outside_trecbench())


def _topics(table) -> set:
    """The topic ids of a run or qrels table."""
    from ..arrow import distinct

    return set(distinct(table.column("qid")).to_pylist())


def _no_overlap(qrels, retrieved: set, judged: set):
    """Refuse ``qrels`` sharing no topic with the runs, quoting a few topics of each."""
    from ..conclusions.scores import source_name
    from ..errors import NoOverlapError, some_topics
    from ..id_forms import forms_apart

    name = source_name(qrels) or "the qrels"
    why = (
        "no topic of the runs is in the qrels, nothing to choose on: the runs' "
        f"{some_topics(retrieved)}; the qrels' {some_topics(judged)}"
        + forms_apart(retrieved, judged, "the runs'", "the qrels'")
    )
    message = f"{name}: No queries with both results and relevance info ({why})"
    raise NoOverlapError(message) from None


def _check_several(n_runs: int) -> None:
    if n_runs < 2:
        raise UsageError("optimize_fusion chooses how runs are fused: give two runs or more")


SEARCHING = "fusing and scoring candidates"  # the search's one bar: a candidate at a time


def _scored_candidates(tables, qrels, method: str, candidates: list[Candidate], search,
                       measure: str, progress=None):  # fmt: skip
    """Each candidate fused, scored on ``measure`` and let go before the next is fused:
    memory holds one fused run and every candidate's per-topic values (``{qid: value}``,
    returned with the measure's name), not every fused run (reviewer 458: 1,001
    candidates of 5 runs, 6.2 GB). What ties at float32 against its order
    (:func:`trecbench.fusion.fused_and_ties`) is warned of once per kind, not once per
    candidate (a screen of one warning, each with its own numbers). What does not depend
    on a candidate's weights (RRF: k), the runs' documents grouped by (topic, document)
    and their normalised scores, is prepared once (:func:`trecbench.fusion.fusion_plan`:
    it was half of each candidate's time). ``progress``: :func:`tune_fusion`'s, told of
    the candidates searched."""
    from ..evaluation.judgments import reused
    from ..fusion import fusion_plan

    plan = fusion_plan(tables, method, norm=search.norm, depth=search.depth)
    scored, tied, names = [], {}, []
    said: list[warnings.WarningMessage] = []  # the evaluations' warnings, said once below
    try:
        # the filters stay: a warning ignored is not kept, one made an error raises here
        with reused(qrels), warnings.catch_warnings(record=True) as said:
            for i, c in enumerate(candidates):
                if progress is not None:
                    progress(SEARCHING, i, len(candidates))
                fused, ties = plan.fused_and_ties(c.weights, c.k, searched=True)  # k: RRF's
                for kind, message in ties.items():
                    tied.setdefault(kind, []).append((c.label(), message))
                per_query = _evaluated(qrels, fused, measure)
                del fused  # let go before the next candidate is fused
                names += per_query["measure"].drop_duplicates().tolist()
                scored.append(dict(zip(per_query["qid"], per_query["value"], strict=True)))
    except BaseException:
        _warn_once(said)  # what the evaluations said before the error
        raise
    if progress is not None:
        progress(SEARCHING, len(candidates), len(candidates))
    _warn_ties(tied, len(candidates))
    _warn_once(said)
    return scored, list(dict.fromkeys(names))


def _warn_once(said: list[warnings.WarningMessage]) -> None:
    """The warnings the candidates' evaluations raised, each text once, in the order first
    raised: each candidate is scored by an evaluation of its own, and what one says of the
    qrels or the measure (pyndeval's "one subtopic" of alpha_nDCG) every one says; one
    evaluation of every candidate said it once, after the ties."""
    first: dict[tuple, warnings.WarningMessage] = {}
    for caught in said:
        first.setdefault((caught.category, str(caught.message)), caught)
    for caught in first.values():  # where it was raised (trecbench's: outside_trecbench)
        warnings.warn_explicit(caught.message, caught.category, caught.filename, caught.lineno)


def _warn_ties(tied: dict, searched: int) -> None:
    """What ties at float32 against its order, ``{kind: [(label, message)]}``, warned of
    once per kind, with the first candidate's numbers."""
    for found in tied.values():
        labels, (_, first) = [label for label, _ in found], found[0]
        warnings.warn(
            ParameterDomainWarning(
                f"{len(found)} of the {searched} candidates searched "
                f"({first_few(labels, 3)}) fuse scores that tie at float32 against their "
                f"order; the first, {labels[0]}: {first}"
            ),
            stacklevel=outside_trecbench(),
        )


def _values(scored: list[dict]) -> tuple[np.ndarray, list[str]]:
    """``values[candidate, topic]`` over the topics of any candidate, in order (NaN where
    a candidate has no value), as a pivot of every candidate's values would hold them."""
    qids = sorted(set().union(*scored))
    values = np.full((len(scored), len(qids)), np.nan)
    for row, by_qid in zip(values, scored, strict=True):
        row[:] = [by_qid.get(q, np.nan) for q in qids]
    return values, qids


def tune_fusion(
    tables, qrels, measure: str, search: FusionSearch, progress=None, names=None
) -> FusionTuning:
    """:func:`optimize_fusion` on runs ranked already (:func:`trecbench.fusion.ranked_table`),
    so that a caller that fuses them after the search reads each run once. ``progress
    (label, done, total)`` is told of the search's work: reading the qrels (checked
    against the runs' topics before a candidate is fused), then ``fusing and scoring
    candidates``, one bar: each candidate is fused and scored in turn (the folds, once
    every candidate is scored, take no time to speak of). The measure is checked before
    anything is read or fused. ``names``: each run as a refusal names it (its file, as
    given); a run without one (None, or no ``names``) by its position, ``run1``..."""
    from ..fusion import method_name

    method = method_name(search.method)
    _check_several(len(tables))
    check_measure(measure)  # before any candidate is fused: the search would be for nothing
    candidates = grid(method, len(tables), search.k_grid, search.step)
    # read once, checked against the runs' topics before a candidate is fused
    qrels = load_qrels(qrels, progress)
    _check_shared_topics(tables, qrels, names)
    scored, columns = _scored_candidates(
        tables, qrels, method, candidates, search, measure, progress
    )
    higher = _chooses_on(columns, measure) == "higher"  # checked again: what was computed
    values, qids = _values(scored)
    del scored
    folds = min(FOLDS, len(qids)) if search.folds is None else search.folds
    fold = _folds(len(qids), folds, search.seed)
    _check_candidates_differ(values, qrels, columns[0])
    held = np.empty(len(qids))
    choices = []
    for f in range(folds):
        test = fold == f
        choice = _best(values[:, ~test].mean(axis=1), higher)
        choices.append(choice)
        held[test] = values[choice, test]
    chosen = _best(values.mean(axis=1), higher)
    return FusionTuning(
        method,
        str(columns[0]),
        candidates,
        qids,
        values,
        fold,
        choices,
        chosen,
        float(held.mean()),
        float(values[chosen].mean()),
        search.seed,
        search=search,
    )
