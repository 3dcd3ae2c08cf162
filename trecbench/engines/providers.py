"""The providers ir_measures uses, fed trecbench's ranking: cwl_eval, compat, accuracy and
pyndeval (diversity).

For the measures trec_eval 9.0.8 lacks and trecbench has no vectorised implementation of
(INST, INSQ, SDCG, NERR8-11, BPM, Compat, Accuracy, alpha-nDCG, ERR-IA, NRBP, ...), the
numbers come from the very implementation ir_measures calls for them. Each provider gets
the run after :mod:`trecbench.ranking` (topics evaluated, ``-M`` and ``-J`` applied) with
scores rewritten as ``n - position``: strictly decreasing, so whatever tie rule a provider
has, it can only reproduce trecbench's order.

Parameters follow ir_measures; ``rel`` left unset is the call's relevance level and
``max_rel`` left unset (C/W/L measures) the largest grade in the qrels. Diversity measures
read the subtopic from the qrels' second column (ndeval's format). cwl_eval reads each
topic's top :data:`~trecbench.measures.params.CWL_HORIZON` ranks: the registry keeps
cutoffs within them, and of a measure without one :func:`past_horizon` finds the topics
where a document past them has a gain, which its value leaves out; the run's result,
assembled from every block of its topics, says them in one line
(:func:`trecbench.evaluation.assembly.warn_past_horizon`).
"""

from __future__ import annotations

import io
import logging
import warnings
from contextlib import contextmanager, redirect_stderr
from typing import Any

import numpy as np
import pyarrow as pa

from .. import arrow_compute as pc
from .. import extras
from ..callers import outside_trecbench
from ..errors import ProviderWarning, UnevaluableTopicError, one_line
from ..inputs.tables import judged_twice, subtopics
from ..measures import Measure, registry, value_names
from ..measures.params import CWL_HORIZON
from ..plurals import counted
from .interface import Settings

NAME = "providers"
# ir_measures provider -> the module it needs (the providers extra installs both)
MODULES = {"cwl_eval": "cwl", "pyndeval": "pyndeval"}
SOURCES = (*MODULES, "compat", "accuracy")  # the providers this engine calls
FAMILIES = [d.name for d in registry.definitions() if d.source in SOURCES]


def distributions() -> list[str]:
    """The distributions that compute the measures of the providers the registry names (a
    family's ``source``, a variant's parameter's too), each provider's module's
    (:data:`MODULES`, :data:`trecbench.extras.PACKAGES`): ``cwl-eval``, ``pyndeval``;
    ir_measures' own providers (compat, accuracy) are ``ir-measures``'. The reports
    record their versions, which can change the numbers."""
    named = set()
    for definition in registry.definitions():
        named |= {definition.source, *(p.source for p in definition.params if p.source)}
    return sorted({extras.PACKAGES[MODULES[source]][0] for source in named & MODULES.keys()})


def _irm_measure(measure: Measure, relevance_level: int, largest_grade: int):
    """The ir_measures measure object for ``measure`` (defaults filled in as documented)."""
    import ir_measures

    definition = measure.definition
    params = dict(measure.options)
    names = {p.name for p in definition.params}
    if "rel" in names and params.get("rel") is None:
        params["rel"] = relevance_level
    if "max_rel" in names and params.get("max_rel") is None:
        params["max_rel"] = largest_grade
    if measure.params is not None:
        params["cutoff"] = int(measure.params)
    return ir_measures.measures.registry[definition.ir_measures](**params)


def _refuse_min_rel_at_largest_grade(measures: list[Measure], table, path: str) -> None:
    """min_rel (0 when not given) below max_rel taken from the qrels' largest grade: at
    or above it no document has a gain and cwl_eval divides by zero or fails its
    assertion (an internal error). Refused at the largest grade's first line, naming the
    measure and the grade, exit 4: a measure the judgments cannot give (a max_rel
    given with min_rel is checked when the name is read, exit 1)."""
    undefined = [
        m for m in measures if "min_rel" in {p.name for p in m.definition.params}
        and m.option("max_rel") is None
    ]  # fmt: skip
    if not undefined or not len(table):
        return
    grades = table.column("rel").to_numpy()
    largest = int(grades.max())
    for measure in undefined:
        least = measure.option("min_rel")
        if least >= largest:
            given = "" if "min_rel" in dict(measure.options) else " (its default)"
            lines = table.column("line").to_numpy()
            row = int(np.flatnonzero(grades == largest)[np.argmin(lines[grades == largest])])
            qid, docno = (one_line(table.column(name)[row].as_py()) for name in ("qid", "docno"))
            raise UnevaluableTopicError(  # at the grade's line: held qrels cite their row
                path,
                int(lines[row]),
                f"{_named([measure])}: min_rel={least}{given} must be below max_rel, which "
                f"is the largest grade in the qrels when not given: {largest} (document "
                f"{docno} of topic {qid}); no document can have a gain",
            )


def _refuse_duplicate_subtopic_judgments(table, subtopic, path: str) -> None:
    """A (topic, subtopic, document) judged twice is an error, as a duplicate (topic,
    document) is for the other measures (diversity qrels judge a document per subtopic)."""
    from .. import arrow

    groups = arrow.Groups(arrow.row_keys(table.column("qid"), subtopic, table.column("docno")))
    repeated = np.flatnonzero(groups.counts > 1)
    if len(repeated):
        group = int(repeated[0])  # the first repeated key, in order of first appearance
        rows = groups.order[groups.starts[group] : groups.starts[group] + groups.counts[group]]
        row = int(rows[0])
        qid, docno = (table.column(name)[row].as_py() for name in ("qid", "docno"))
        first, second = (table.column("line")[int(r)].as_py() for r in rows[:2])
        raise judged_twice(table, path, qid, docno, first, second, subtopic[row].as_py())


@contextmanager
def _quiet_cwl():
    """cwl_eval's gain range warnings (e.g. negative grades clipped to min_rel) stay quiet:
    the clipping is the documented definition."""
    logger = logging.getLogger("ir_measures.cwl_eval")
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        logger.setLevel(level)


def _named(measures) -> str:
    """The measures as the call asked for them, for a message."""
    return ", ".join(m.requested or m.family for m in measures)


@contextmanager
def _said_as_warning(measures):
    """What a provider writes to stderr itself (pyndeval: "WARNING: All queries have only
    1 subtopic! ...") as a warning naming the measures, in trecbench's one-line form."""
    said = io.StringIO()
    with redirect_stderr(said):
        yield
    text = " ".join(said.getvalue().split())
    if text:
        if "only 1 subtopic" in text:
            text = (
                "every topic of the qrels has one subtopic (the qrels' iter field): "
                "intent-aware and novelty measures need diversity qrels"
            )
        warnings.warn(
            f"{_named(measures)}: {text}", ProviderWarning, stacklevel=outside_trecbench()
        )


class Evaluator:
    """ir_measures' providers over one qrels, per run."""

    before_judged_only = False
    wants_table = True

    def __init__(self, truth, measures: list[Measure], settings: Settings):
        import ir_measures  # noqa: F401  (registers the providers)
        from ir_measures import providers

        self.truth = truth
        self.measures = measures
        rel = truth.table.column("rel")
        _refuse_min_rel_at_largest_grade(measures, truth.table, truth.path)
        largest = int(np.max(rel.to_numpy())) if len(rel) else 1
        self.irm = {m: _irm_measure(m, truth.relevance_level, largest) for m in measures}
        # measures per provider and, for pyndeval, per parameters but the cutoff: ndeval
        # computes one alpha and beta a call, and gave the second alpha asked nothing (0)
        self.by_provider: dict[tuple, list[Measure]] = {}
        for measure in measures:
            source = measure.definition.source
            provider = providers.registry[source]
            if not provider.is_available():  # compat and accuracy need no package
                feature = f"{measure.canonical} (ir_measures' {source} provider)"
                raise extras.missing(MODULES[source], feature)
            self.by_provider.setdefault(self._group(source, measure), []).append(measure)
        self._evaluators: dict[tuple, object] = {}
        self._no_relevant: dict[int, set[str]] = {}

    def _group(self, source: str, measure: Measure) -> tuple:
        """The evaluator ``measure`` is computed by: one per provider, and for pyndeval
        one per parameter values but the cutoff."""
        if source != "pyndeval":
            return (source,)
        params = self.irm[measure].params
        return (source, *sorted((k, str(v)) for k, v in params.items() if k != "cutoff"))

    def _qrels(self, source: str):
        if source == "pyndeval":  # diversity: the second column is the subtopic
            import pandas as pd

            table = self.truth.table
            iteration = subtopics(table, self.truth.path)
            if iteration is None:  # every judgment of subtopic 0, as a qrels file's 0
                iteration = pa.repeat(pa.scalar("0", pa.string()), len(table))
            _refuse_duplicate_subtopic_judgments(table, iteration, self.truth.path)
            return pd.DataFrame(
                {
                    "query_id": table.column("qid").to_pylist(),
                    "iteration": iteration.to_pylist(),
                    "doc_id": table.column("docno").to_pylist(),
                    "relevance": table.column("rel").to_pylist(),
                }
            )
        return self.truth.as_dict

    def _evaluator(self, group: tuple):
        if group not in self._evaluators:
            from ir_measures import providers

            measures = [self.irm[m] for m in self.by_provider[group]]
            with _quiet_cwl(), _said_as_warning(self.by_provider[group]):
                provider = providers.registry[group[0]]
                self._evaluators[group] = provider.evaluator(measures, self._qrels(group[0]))
        return self._evaluators[group]

    def _failing_topic(self, group: tuple, run: dict) -> str | None:
        """The first topic of ``run`` the provider of ``group`` fails on alone (its error
        names none; the topics' values are independent), None if none does."""
        for qid, docs in run.items():
            try:
                for _ in self._evaluator(group).iter_calc({qid: docs}):
                    pass
            except ArithmeticError:
                return qid
        return None

    def _without_relevant(self, level: int) -> set[str]:
        """The qrels' topics without a document graded ``level`` or above."""
        if level not in self._no_relevant:
            qid, rel = self.truth.table.column("qid"), self.truth.table.column("rel")
            relevant = pc.unique(pc.filter(qid, pc.greater_equal(rel, level)))
            self._no_relevant[level] = set(pc.unique(qid).to_pylist()) - set(relevant.to_pylist())
        return self._no_relevant[level]

    def evaluate(self, ranked, qids: list[str]) -> dict[Measure, list[tuple]]:
        """Per measure, ``(label, display, values)`` with values aligned with ``qids``
        (topics a provider leaves out score 0, as ir_measures reports them)."""
        from .pytrec_eval import ranked_to_dict

        run = {q: docs for q, docs in ranked_to_dict(ranked, qids).items() if docs}
        position = {q: i for i, q in enumerate(qids)}
        out: dict[Measure, list[tuple]] = {}
        for group, measures in self.by_provider.items():
            values = {m: np.zeros(len(qids)) for m in measures}
            # two spellings may be one ir_measures measure (SDCG@10, SDCG(max_rel=1)@10)
            which: dict[Any, list[Measure]] = {}
            for measure in measures:
                which.setdefault(self.irm[measure], []).append(measure)
            # numpy's warnings silenced: a value they warn of is no number, refused below
            with _quiet_cwl(), np.errstate(all="ignore"):
                try:
                    for metric in self._evaluator(group).iter_calc(run):
                        index = position.get(metric.query_id)
                        for measure in which.get(metric.measure, ()) if index is not None else ():
                            values[measure][index] = metric.value
                # accuracy's 0/0 (every document retrieved relevant)
                except ArithmeticError as error:
                    topic = self._failing_topic(group, run)
                    raise _failed(group[0], measures, error, topic) from None
            for measure in measures:
                level = self.irm[measure].params.get("rel", 1)
                _no_relevant_scores_0(values[measure], qids, self._without_relevant(level))
                _refuse_non_numbers(group[0], measure, values[measure], qids)
                ((label, display),) = value_names(measure)
                out[measure] = [(label, display, values[measure])]
        return out


def uncut(measures: list[Measure]) -> list[Measure]:
    """The measures of cwl_eval without a cutoff among ``measures`` (INST, INSQ, NERR10,
    NERR11): those whose value leaves out what lies past :data:`CWL_HORIZON`."""
    return [
        m for m in measures if m.definition.source == "cwl_eval" and m.definition.cutoff is None
    ]


def past_horizon(
    ranked, qids: list[str], measures: list[Measure], qrels: dict
) -> dict[Measure, list[tuple[str, str, int]]]:
    """Per measure of :func:`uncut` ``measures``, ``(topic, document, rank)`` of each topic
    of ``ranked`` (the run of topics ``qids`` as :class:`Evaluator` gets it) whose first
    document with a gain (``qrels``: ``{qid: {docno: grade}}``) past :data:`CWL_HORIZON`
    its value leaves out: cwl_eval reads a topic's top ranks alone, so that document
    counts nothing. The value is still the provider's, as ir_measures gives it; a
    document past them without a gain changes nothing (cwl_eval pads shorter rankings
    with gainless ones)."""
    from .pytrec_eval import ranked_to_dict

    uncut_measures = uncut(measures)
    if not uncut_measures:  # no topic sliced for measures with a cutoff alone (SDCG@k)
        return {}
    run = ranked_to_dict(ranked, qids)
    tails = {q: list(docs)[CWL_HORIZON:] for q, docs in run.items() if len(docs) > CWL_HORIZON}
    found: dict[Measure, list[tuple]] = {}
    for measure in uncut_measures if tails else ():
        # ir_measures' gain: the grade (below 0: 0) clipped to [min_rel, max_rel], less min_rel
        least = measure.option("min_rel")
        for qid, past in tails.items():
            judged = qrels.get(qid, {})
            gained = (i for i, d in enumerate(past) if d in judged and max(judged[d], 0) > least)
            index = next(gained, None)
            if index is not None:
                found.setdefault(measure, []).append((qid, past[index], CWL_HORIZON + 1 + index))
    return found


def _no_relevant_scores_0(values: np.ndarray, qids: list[str], without: set[str]) -> None:
    """A provider's nan on a topic whose qrels hold no relevant document made 0, as trec_eval
    scores such a topic and as a provider that gives it no value is scored: pyndeval's
    nNRBP divides by its ideal there, 0 (alpha-nDCG, nERR-IA and the others give 0)."""
    for index in np.flatnonzero(np.isnan(values)):
        if qids[index] in without:
            values[index] = 0.0


def _refuse_non_numbers(provider: str, measure: Measure, values, qids: list[str]) -> None:
    """A provider's value that is no number (nan, inf) refused, naming the measure and the
    first such topic. cwl_eval's INST gives nan where its continuation, above 1 for T < 1/4,
    multiplied over the ranks of many fully relevant documents overflows: the value is a
    weighted mean of gains in [0, 1], but not one cwl_eval's doubles can hold. Exit 4, a
    measure these judgments and this run cannot give (the measure's name in the place of a
    file, as plan.py's measures that -R's format cannot give): the name is no usage error."""
    (where,) = np.nonzero(~np.isfinite(values))
    if len(where):
        more = f" (and {counted(len(where) - 1, 'other topic')})" if len(where) > 1 else ""
        raise UnevaluableTopicError(
            _named([measure]),
            None,
            f"ir_measures' {provider} provider gives {values[where[0]]} on topic "
            f"{one_line(qids[where[0]])}{more}, which is no number: nothing of it is printed",
        )


def _failed(provider: str, measures, error: Exception, topic: str | None) -> UnevaluableTopicError:
    """The error of a provider that cannot compute its measures on these qrels and this
    run (on ``topic``, the first it fails on: None when it fails on none alone): their
    value is undefined there, and nothing of it is printed. Exit 4 with the measures'
    names in a file's place, as :func:`_refuse_non_numbers`: the names are fine, these
    inputs cannot give them (no usage error)."""
    where = "these inputs" if topic is None else f"topic {one_line(topic)}"
    return UnevaluableTopicError(
        _named(measures),
        None,
        f"ir_measures' {provider} provider cannot compute it on {where} "
        f"({type(error).__name__}: {error}): its value is undefined there",
    )


registry.register_engine(
    NAME,
    __name__,
    FAMILIES,
    description="the providers ir_measures uses (cwl_eval, compat, accuracy, pyndeval), "
    "fed trecbench's ranking",
)
