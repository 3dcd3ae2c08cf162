"""The plan of an evaluation: which engine computes each measure (:func:`_measures`),
whether run files may be read in blocks (:func:`_read_whole`), each engine's evaluator
(:class:`_Plan`) and, per run, trec_eval's loop over its topics and where it stops
(:func:`_plan_topics`)."""

from __future__ import annotations

import copy
import os
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any

from ..callers import outside_trecbench
from ..engines import (
    LOCAL,
    META,
    NATIVE,
    assign,
    engine_module,
    engines_computing,
    say_elsewhere,
)
from ..engines.native import RECALL_CUTOFFS, TRACED
from ..engines.native import supports as native_supports
from ..errors import (
    EngineWarning,
    MissingTopicError,
    Setting,
    SettingsText,
    TrecbenchError,
    TrecEvalUndefinedWarning,
    UnevaluableTopicError,
    UsageError,
)
from ..measures import (
    Measure,
    MeasureParameterError,
    distinct,
    parse_measures,
    presentation_order,
)
from ..measures.first_parameters import first_parameters
from ..measures.registry import FORMAT_READS
from ..measures.trec_params import uncalculable, weighs_unseen
from ..trec_eval import compat as _compat
from ..trec_eval.compat import Compat
from .settings import EvalSettings


def _rel_format_refusal(measure: Measure, engine: str, rel_format: str) -> TrecbenchError | None:
    """Why trec_eval cannot calculate ``measure`` from ``-R rel_format`` judgments (it
    stops at the first topic it evaluates, exit 4), else None: the prefs measures need
    ``-R prefs``/``qrels_prefs``, the ``_avgjg`` ones ``-R qrels_jg``, every other one
    standard qrels (the definition's ``reads``)."""
    if engine == META or measure.definition.reads == FORMAT_READS[rel_format]:
        return None
    return UnevaluableTopicError(
        measure.requested or measure.family,
        None,
        f"trec_eval cannot calculate this measure from -R {rel_format} judgments (exit 4)",
        "X6",
    )


def _first_uncalculable(measures: list[Measure], engines, rel_format: str):
    """What stops trec_eval at the first topic it evaluates (its measures calculated in
    order, the first that cannot be stops it), else None: a measure its judgments' format
    cannot give, or utility without 4 coefficients. Raised there, not before the run is
    read: where the run shares no topic with the judgments trec_eval exits 7 first (and
    10.0 without -c stops at a qrels topic the run lacks)."""
    for measure in measures:
        refusal = _rel_format_refusal(measure, engines[measure], rel_format)
        if refusal is None:
            refusal = uncalculable(measure.definition, measure.params)
        if refusal is not None:
            return refusal
    return None


def _check_shared_gain_params(measures: list[Measure], version: Compat) -> None:
    """10.0 keeps one parameter list for ndcg, dcg and ideal_dcg: two of them with one
    parameterised crash it (a double free); trecbench refuses the combination."""
    if not version.integer_gain_names:
        return
    shared = [m for m in measures if m.family in _compat.SHARED_GAIN_PARAMS]
    if len(shared) > 1 and any(m.params for m in shared):
        names = ", ".join(m.requested or m.canonical for m in shared)
        raise MeasureParameterError(
            f"{names}: trec_eval 10.0 shares one parameter list between ndcg, dcg and "
            "ideal_dcg and crashes on this combination; request them separately"
        )


def _check_judged_only(measures: list[Measure], judged_only: bool) -> None:
    """Refuse a measure given ``judged_only=False`` under ``-J``: ``-J`` takes the unjudged
    documents out of the ranking every engine is given, so no engine can compute it with
    them, and computed without them its name would say what it is not."""
    for measure in measures if judged_only else ():
        if "judged_only" in measure.pinned:
            raise UsageError(
                f"measure '{measure.requested}': judged_only=False, but -J (judged_only=True) "
                "ranks the judged documents alone for every measure; ask it without -J"
            )


def _check_collection_size(measures: list[Measure], num_docs: int | None) -> None:
    """Refuse utility weighing the documents neither retrieved nor relevant without ``-N``:
    trec_eval counts them from a collection of 0 documents, below 0 for every topic that
    retrieves or judges one (a count outside its meaning)."""
    if num_docs:
        return
    for measure in measures:
        if weighs_unseen(measure.definition, measure.params):
            # -N 0 given is no collection either: said so, not only "which need -N"
            given = "" if num_docs is None else " (0 given: a collection of no document)"
            raise UsageError(
                f"{measure.requested or measure.canonical}: its fourth coefficient weighs the "
                "documents neither retrieved nor relevant, which need ",
                Setting("num_docs"),
                f" (the number of documents in the collection) to be counted{given}",
            )


def _check_local_options_used(measures: list[Measure], options: dict) -> None:
    """Refuse MaxOntSim's options (``options={"maxontsim_formula": ..., "ontology": ...}``)
    with no MaxOntSim measure asked: they would change nothing, without a word (the
    commands refuse ``--maxontsim-formula`` and ``--ontology`` so, and benchmark its
    configuration's keys)."""
    given = [key for key, value in options.items() if value is not None]
    if given and not any(measure.family == "MaxOntSim" for measure in measures):
        raise UsageError(
            f"options {' and '.join(given)}: no MaxOntSim measure is evaluated (the measures "
            f"hold none): ask MaxOntSim@k, or leave {'them' if len(given) > 1 else 'it'} out"
        )


def _measures(measures, settings: EvalSettings) -> tuple[list[Measure], list[Measure], dict]:
    """``(requested, ordered, engines)``: the measures as requested (any spelling, None:
    the KPI preset), in trec_eval's printing order, and the engine of each."""
    every = parse_measures(measures, settings.compat, repeats=True)
    _check_judged_only(every, settings.judged_only)
    if settings.first_parameters:  # trecbench score: trec_eval's -m rule, said
        requested = first_parameters(every)
    else:
        requested = distinct(every)
    ordered = presentation_order(requested)
    _check_shared_gain_params(ordered, settings.version)
    _check_collection_size(ordered, settings.num_docs)
    _check_local_options_used(ordered, settings.options)
    engines = _engines(ordered, settings)
    return requested, ordered, engines


@contextmanager
def rbp_leftovers_said(engines: dict) -> Iterator[None]:
    """Warn of 10.0's rbp (:data:`RBP_LEFTOVERS`) where trecbench's port computes it, once
    the runs are scored, or when the error that stopped the scoring carries the topics
    printed before it (``partial``: their rbp too); an input refused says its one line
    alone (the warning came before the qrels were read)."""
    ported = any(m.family == "rbp" and engine == NATIVE for m, engine in engines.items())
    printed = False
    try:
        yield
        printed = True
    except TrecbenchError as error:
        printed = getattr(error, "partial", None) is not None
        raise
    finally:
        if ported and printed:
            warnings.warn(TrecEvalUndefinedWarning(RBP_LEFTOVERS), stacklevel=outside_trecbench())


# trec_eval 10.0's m_rbp.c (see trecbench.trec_eval.leftovers)
RBP_LEFTOVERS = (
    "rbp: trec_eval 10.0 rescales its gains from a minimum and maximum it never initialises; "
    "trecbench prints what 10.0's default (-g) build finds there (what the measures computed "
    "before it left), another build prints other numbers"
)


def _engines(measures: list[Measure], settings: EvalSettings) -> dict:
    """The engine of each measure: :func:`assign`'s, except trecbench's ports of trec_eval
    for 10.0's rounded recall cutoffs and, with ``-D``, the measures that print a trace
    (pytrec_eval computes 9.0.8's cutoffs and prints nothing); and never those ports for
    9.0.8's cutoffs, which they do not compute (``engine="native"`` gave 10.0's values)."""
    assigned = assign(measures, settings.engine)
    engines = dict(assigned)
    rounded = settings.version.rounded_recall_cutoffs
    unrounded = []  # 9.0.8's recall cutoffs the native engine was assigned
    for measure in measures:
        ported = rounded and measure.family in RECALL_CUTOFFS
        traced = settings.debug_level > 0 and measure.family in TRACED
        if (ported or traced) and engines[measure] != META and native_supports(measure):
            engines[measure] = NATIVE
        elif engines[measure] == NATIVE and measure.family in RECALL_CUTOFFS and not rounded:
            engines[measure] = _unrounded_engine(measure)
            unrounded.append(measure)
    others = {measure: engine for measure, engine in assigned.items() if measure not in unrounded}
    say_elsewhere(settings.engine, others, engines)
    if unrounded:
        _say_unrounded(unrounded, engines)
    return engines


def _say_unrounded(unrounded: list[Measure], engines: dict) -> None:
    """Warn that the native engine asked for computes 10.0's recall cutoffs, and which
    engine computed 9.0.8's instead (:func:`_engines`)."""
    by: dict[str, list[str]] = {}
    for measure in unrounded:
        by.setdefault(engines[measure], []).append(measure.requested or measure.canonical)
    computed = "; ".join(f"{', '.join(names)} by {engine}" for engine, names in by.items())
    warnings.warn(
        EngineWarning(
            "engine native computes trec_eval 10.0's rounded recall cutoffs (compat='10.0'); "
            f"9.0.8's computed: {computed}"
        ),
        stacklevel=outside_trecbench(),
    )


def _unrounded_engine(measure: Measure) -> str:
    """The engine of 9.0.8's recall cutoffs for ``measure`` (trecbench's ports compute
    10.0's, rounded): the first other engine computing it (pytrec_eval, a dependency,
    computes every spelling the ports take)."""
    return next(name for name in engines_computing(measure) if name != NATIVE)


def _read_whole(settings: EvalSettings, engines: dict) -> SettingsText | None:
    """Why run files are read whole, never in blocks of topics nor on Dask (None: they may
    be), as the user gave it (the library's keywords, a command's flags: ``compat='10.0'``,
    ``--compat 10.0``). Blocks follow trec_eval 9.0.8's reading of qrels judgments:
    10.0 evaluates the qrels' topics, ``-Z`` and ``-D`` are per call, and trecbench's
    native ports (:mod:`trecbench.engines.native`) stop part-way on their own
    (:attr:`_Block.failure`), which only runs held whole are shown to reproduce."""
    reasons: list[str | Setting] = []
    if settings.compat != _compat.V9.version:
        reasons.append(Setting("compat", settings.compat))
    if settings.rel_format != "qrels":
        reasons.append(Setting("rel_format", settings.rel_format))
    if settings.zscores is not None:
        reasons.append(Setting("zscores"))
    if settings.traced:
        reasons.append(Setting("debug_level"))
    # the measures only the ports compute: -D traces others there too, which are not
    # what the call asked of the ports
    native = [
        m.requested or m.canonical
        for m in engines
        if engines[m] == NATIVE and (not settings.traced or engines_computing(m) == [NATIVE])
    ]
    if native:
        ports = "trecbench's native port" + ("s" if len(native) > 1 else "")
        reasons.append(f"{', '.join(native)} ({ports})")
    if not reasons:
        return None
    return SettingsText(*[part for reason in reasons for part in (", ", reason)][1:])


class _Plan:
    """Which engine computes which measure, and each engine's evaluator (built on first use,
    reused for every run of the call); the settings, the trec_eval version reproduced and
    ``-Z``'s table. Engines get the settings typed (``engine_settings``), with the
    relevance level as the judgments hold it (:meth:`Qrels.level`)."""

    def __init__(
        self, measures, engines: dict[Measure, str], truth, settings: EvalSettings, zscores,
        aliases: dict[Measure, tuple[str, ...]] | None = None,
        asked_at: dict[str, int] | None = None,
    ):  # fmt: skip
        self.measures = measures
        # other spellings asked of a measure, and where each name was asked
        # (:mod:`trecbench.measures.spellings`: aliases, asked_at)
        self.aliases = aliases or {}
        self.asked_at = asked_at or {}
        self.engines = engines
        self.truth = truth
        self.settings = settings
        self.engine_settings = replace(settings, relevance_level=truth.relevance_level)
        self.version = settings.version
        self.zscores = zscores
        self.groups: dict[str, list[Measure]] = {}
        for measure in measures:
            if engines[measure] != META:
                self.groups.setdefault(engines[measure], []).append(measure)
        self._evaluators: dict[str, Any] = {}
        # what a report's drill-down keeps of each run (:func:`.drill.kept`; None: nothing)
        self.drill = None
        # what the unjudged bounds keep of each run (:func:`.bounds.kept`; None: nothing)
        self.bounds = None
        # a measure trec_eval stops at on the first topic it evaluates (utility.1,-1;
        # map_avgjg without -R qrels_jg)
        self.uncalculable = _first_uncalculable(measures, engines, settings.rel_format)
        # diversity qrels list a document once per subtopic: duplicates are ndeval's concern
        self.diversity_only = bool(self.groups) and all(
            m.definition.diversity for group in self.groups.values() for m in group
        )

    def __getstate__(self) -> dict:
        # sent to spawned worker processes without its evaluators (built there on first use)
        return {**self.__dict__, "_evaluators": {}}

    def elsewhere(self) -> _Plan:
        """This plan for processes in folders of their own (a Dask scheduler's workers):
        the files its measures read (MaxOntSim's ontology) by absolute path, as of this
        process's folder; a relative one was opened in the worker's (another file of that
        name read, its values printed with exit 0). Records name the path as given: they
        are made here, of this plan."""
        ontology = self.settings.ontology
        if ontology is None or os.path.isabs(ontology):
            return self
        # joined, not normalised: link/.. is resolved by the system, as where it was given
        options = {**self.settings.options, "ontology": os.path.join(os.getcwd(), ontology)}
        moved = copy.copy(self)
        moved.settings = replace(self.settings, options=options)
        moved.engine_settings = replace(self.engine_settings, options=options)
        moved._evaluators = {}
        return moved

    def evaluator(self, name: str):
        if name not in self._evaluators:
            module = engine_module(name)
            # rbp depends on every measure computed before it (trecbench.trec_eval.leftovers)
            extra = {"requested": self.measures} if name == NATIVE else {}
            self._evaluators[name] = module.Evaluator(
                self.truth, self.groups[name], self.engine_settings, **extra
            )
        return self._evaluators[name]

    def read_inputs(self) -> None:
        """Read in this process what the measures read besides the runs and the qrels
        (MaxOntSim's ontology), before worker processes score the runs
        (:func:`trecbench.engines.local.read_inputs`)."""
        if LOCAL in self.groups:
            engine_module(LOCAL).read_inputs(self.groups[LOCAL], self.engine_settings, self.truth)

    @property
    def table_needed(self) -> bool:
        """Whether an engine needs the rows moved into trec_eval order (a table)."""
        return self.settings.judged_only or any(
            self.evaluator(name).wants_table for name in self.groups
        )


@dataclass
class _TopicPlan:
    """Which topics a run is evaluated on, in order, and where trec_eval stops."""

    qids: list[str]  # evaluation order (byte-wise)
    placeholders: list[str]  # 10.0 -c: qrels topics missing from the run
    looped: list[str]  # the topics of the loop before -D keeps one: what the run's flags say
    stop: int | None = None  # index of the first topic trec_eval cannot evaluate
    error: TrecbenchError | None = None

    def fail(self, index: int, error: TrecbenchError) -> None:
        if self.stop is None or index < self.stop:
            self.stop, self.error = index, error


def _plan_topics(run_qids, plan: _Plan, name) -> _TopicPlan:
    """trec_eval's loop over topics: the run's topics found in the qrels (9.0.8) or the
    qrels' topics (10.0), restricted to ``-D``'s topic, and the first it stops at."""
    truth, settings, version = plan.truth, plan.settings, plan.version
    measures, engines = plan.measures, plan.engines
    diversity_only = plan.diversity_only
    in_run = set(run_qids)
    if version.topics_from_qrels:
        qids = list(truth.qids)
    else:
        qids = sorted(in_run.intersection(truth.topics))
    looped = qids
    if settings.debug_query is not None:
        qids = [q for q in qids if q == settings.debug_query]
    missing = [q for q in qids if q not in in_run]
    topics = _TopicPlan(qids, missing if settings.complete else [], looped)
    if missing and not settings.complete:
        topics.fail(
            qids.index(missing[0]),
            MissingTopicError(
                f"{name}: topic {missing[0]} of the qrels is not in the run: trec_eval "
                f"{version.version} stops here without -c (its message: result qid "
                f"'{missing[0]}' not found in qrels)"
            ),
        )
    if any(engines[m] != META for m in measures):
        found = truth.first_failure(qids, duplicates=not diversity_only)
        if found is not None:
            topics.fail(*found)
    if plan.uncalculable is not None and qids:
        topics.fail(0, plan.uncalculable)
    return topics
