"""``trecbench score`` of one small plain run, without Arrow (issue 31).

Most evaluations are small (a TREC track's 50 topics, a few hundred test cases), and on a
1,000-line run nearly all of the general path's time is start-up: importing Arrow takes
longer than reading and scoring the file. This path reads both files with
:mod:`trecbench.small_text`, ranks the run in trec_eval's order (score descending as
float32, then docno descending) and computes the fast engine's trec_eval families in pure
Python (:mod:`trecbench.small_measures`: numpy's first import alone costs more than
scoring a 1,000-line run), with the same floating-point operations as the fast engine, so
its values are the general path's, bit for bit, and trec_format prints them.

It takes only the calls where the general path has nothing to say but the numbers: plain
files (:func:`trecbench.small_text.read_plain`), measures of trec_eval's families the fast
engine computes, no duplicate judgment or document, the same topics in the run and the
qrels, a relevant document in every topic, no topic named ``all``, and documents judged
near the top of most topics (so that no unjudged-documents warning is due). Anything else
returns None and the general path takes the call: it reads the (small) files again and
says what it has to.
"""

from __future__ import annotations

import math
import warnings
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Iterator
from typing import NamedTuple

from . import collector, small_measures, small_text
from .errors import TrecbenchError
from .measure_requests import FAMILIES, plan_requests, requests_for
from .measures import MEAN, NUM_REL, SUM, Measure, parse_measures, presentation_order, registry
from .measures.first_parameters import first_parameters
from .renderers import trec_format

_NEARLY_ALL = 0.9  # evaluation.unjudged.NEARLY_ALL: where an unjudged warning may be due


# the views trec_format reads are named tuples: a dataclass costs a call of this path
# about 0.5 ms to create, a named tuple a fifth of it
class _Column(NamedTuple):
    """What :mod:`trecbench.renderers.trec_format` reads of a column: its trec_eval label and how it
    is summarised (every column here has a per-topic value)."""

    label: str
    summary: str
    per_query: bool = True

    def name(self, labels: str) -> str:
        return self.label

    @property
    def trec_label(self) -> str:  # the small path's measures print their labels in full
        return self.label


class _Run(NamedTuple):
    """What :mod:`trecbench.renderers.trec_format` reads of one run's result."""

    qids: list[str]
    values: dict[str, list[float]]
    summary: dict[str, float | int]
    name: str = ""
    traces: None = None
    complete: bool = True


class _Settings(NamedTuple):
    """What :mod:`trecbench.renderers.trec_format` reads of the settings: this path takes
    no ``-Z`` (evaluation.settings imports Arrow, which this path avoids)."""

    zscores: bool = False


class _Evaluation(NamedTuple):
    """What :func:`trecbench.renderers.trec_format.render_trec` reads of an evaluation."""

    columns: list[_Column]
    runs: list[_Run]
    settings: _Settings = _Settings()

    def shown(self, name: str) -> str:
        """A measure's name as printed: as it is (this path never takes ``-Z``)."""
        return name


def score_small(
    qrels: str, run: str, measures: list[str] | None, *, per_query: bool, summary: bool
) -> str | None:
    """trec_eval's text (``-q``: ``per_query``; ``-n``: not ``summary``) of ``run`` scored
    against ``qrels`` on ``measures`` (None: the KPI preset), exactly as ``trecbench score``
    prints it; None when the call is not one this path takes (see the module docstring)."""
    evaluation = small_evaluation(qrels, run, measures)
    if evaluation is None:
        return None
    return trec_format.render_trec(evaluation, per_query=per_query, summary=summary)


def small_evaluation(qrels: str, run: str, measures: list[str] | None) -> _Evaluation | None:
    """What :func:`score_small` prints, as trec_format reads it (its one run's ``values``
    per topic and ``summary``: the general path's, bit for bit); None when the call is
    not one this path takes."""
    with collector.paused():  # tens of thousands of tuples and dicts, none in a cycle
        return _small_evaluation(qrels, run, measures)


def _small_evaluation(qrels: str, run: str, measures: list[str] | None) -> _Evaluation | None:
    if qrels.startswith("irds:"):  # a dataset id
        return None
    limit = small_text.SCORED_BYTES
    if not small_text.small_file(run, limit):
        return None  # standard input, or a large run: declined before anything is read
    ordered = _fast_measures(measures)
    judgments = small_text.read_plain(qrels, "qrels", limit) if ordered else None
    judged, best = _judged(judgments) if judgments else (None, None)
    # the run read only for qrels this path takes (a topic without a relevant document is
    # common: the run's text is not checked, split and ranked only to be declined)
    lines = small_text.read_plain(run, "run", limit) if judged else None
    if not lines or not lines[0]:
        return None
    topics = _ranked_topics(lines, judged)
    if topics is None or _unjudged_warning_possible(topics, ordered):
        return None
    plan, levels = plan_requests(ordered, 1, max(best))
    qids = list(judged)
    result = _result(qids, ordered, small_measures.planned_values(topics, plan, levels))
    if result is None:
        return None
    columns, values, means = result
    return _Evaluation(columns, [_Run(qids, values, means)])


def _judged(judgments) -> tuple[dict[str, dict[str, int]] | None, list[int] | None]:
    """qid -> docno -> grade of the qrels' columns (qid, docno, grade), topics in byte
    order, and each topic's highest grade; ``(None, None)`` for qrels the general path has
    more to say of: a document judged twice, a topic named ``all`` (as the summary line
    is), a topic without a relevant document."""
    judged: dict[str, dict[str, int]] = {qid: {} for qid in sorted(set(judgments[0]))}
    for qid, docno, grade in zip(*judgments, strict=True):
        judged[qid][docno] = int(grade)
    if sum(map(len, judged.values())) < len(judgments[0]) or "all" in judged:
        return None, None
    best = [max(topic.values()) for topic in judged.values()]
    return (judged, best) if min(best) >= 1 else (None, None)


def _fast_measures(measures: list[str] | None) -> list[Measure] | None:
    """The measures in trec_eval's printing order, if the general path would compute every
    one with the fast engine (``--engine auto``) and each is of trec_eval's families."""
    with warnings.catch_warnings(record=True) as warned:
        warnings.simplefilter("always")
        try:
            # trec_eval's -m rule, warned of (then declined: the general path says it)
            asked = parse_measures(measures, "9.0.8", repeats=True)
            ordered = presentation_order(first_parameters(asked))
        except (TrecbenchError, ValueError):
            return None  # the general path reports it
    if warned:
        return None  # a parameter outside its domain: the general path warns once
    for measure in ordered:
        requests = requests_for(measure)
        if registry.find(measure.family) is None or requests is None:
            return None
        if any(family not in FAMILIES for family, _ in requests):
            return None
    return ordered


def _ranked_topics(lines, judged: dict[str, dict[str, int]]) -> list[small_measures.Topic] | None:
    """Each topic of the run (``lines``: its qid, docno, score and tag columns) in
    ``judged``'s order (qid -> docno -> grade), ranked in trec_eval's order, score
    descending as float32 then docno descending, as a :class:`small_measures.Topic`; None
    for topics in one file only, a duplicate document or a score float32 cannot hold."""
    qids, docnos, texts, _ = lines
    numbers = list(map(float, texts))
    if not small_text.finite_float32(numbers):
        return None
    scores = array("f", numbers)  # float32, as trec_eval
    ranked = _by_topic(qids, docnos, scores)
    if ranked.keys() != judged.keys():
        return None  # topics in one file only: warnings are due
    if sum(map(len, ranked.values())) < len(qids):
        return None  # a document twice in a topic
    topics = []
    for qid, grades in judged.items():
        documents = ranked[qid]
        hits = tuple(sorted(_judged_ranks(documents, grades)))
        topics.append(small_measures.Topic(len(documents), hits, tuple(grades.values())))
    return topics


def _judged_ranks(documents: dict[str, float], grades: dict[str, int]) -> Iterator[tuple]:
    """``(0-based rank, grade)`` of each judged document of ``documents`` (docno ->
    score) in trec_eval's order: before it, every document scored higher and those tied
    with it whose docno is greater (ASCII docnos: str order is byte order). Found by
    bisection in the sorted scores, not by sorting the documents: a topic judges tens of
    documents and ranks a thousand, and floats sort several times faster than pairs."""
    scores = sorted(documents.values())
    tied: dict[float, list[str]] = {}  # a score -> the docnos that have it, sorted
    for docno, grade in grades.items():
        score = documents.get(docno)
        if score is None:
            continue  # judged, not retrieved
        after = bisect_right(scores, score)
        higher = len(scores) - after
        if after - bisect_left(scores, score) > 1:  # others share its score
            if score not in tied:
                tied[score] = sorted(d for d, s in documents.items() if s == score)
            names = tied[score]
            higher += len(names) - bisect_right(names, docno)
        yield higher, grade


def _by_topic(qids: list[str], docnos: list[str], scores: array) -> dict[str, dict[str, float]]:
    """qid -> docno -> score (a document listed twice in a topic keeps one score), each
    topic's lines taken at once where they come together, as runs list them
    (:func:`~trecbench.small_text.topic_blocks`), line by line where they do not."""
    blocks = small_text.topic_blocks(qids)
    if blocks is None:
        return _by_line(qids, docnos, scores)
    return {
        qid: dict(zip(docnos[start:stop], scores[start:stop], strict=True))
        for qid, start, stop in blocks
    }


def _by_line(qids: list[str], docnos: list[str], scores: array) -> dict[str, dict[str, float]]:
    """:func:`_by_topic` of a run whose topics' lines are interleaved."""
    ranked: dict[str, dict[str, float]] = {qid: {} for qid in qids}
    for qid, docno, score in zip(qids, docnos, scores, strict=True):
        ranked[qid][docno] = score
    return ranked


def _unjudged_warning_possible(topics, measures: list[Measure]) -> bool:
    """Whether the general path might warn that the run's documents are mostly unjudged:
    it needs nothing judged within the deepest rank a measure looks at in nearly every
    topic, so no warning is due when fewer topics have nothing judged within the
    shallowest cutoff (a topic with a judgment there has one deeper too)."""
    cutoffs = [k for m in measures for _, k in requests_for(m) if k is not None]
    depth = min(cutoffs, default=math.inf)
    unseen = len([topic for topic in topics if not topic.hits or topic.hits[0][0] >= depth])
    return unseen >= _NEARLY_ALL * len(topics)


def _result(qids, measures, produced):
    """``(columns, per-topic values, summary values)`` as the general path assembles them:
    one column per distinct display name, trec_eval's sequential sums over the topics."""
    columns, values, means, seen = [], {}, {}, set()
    for measure in measures:
        for label, display, value in produced[measure]:
            if display in seen:  # two spellings of one value (success.10, HitRate@10)
                continue
            seen.add(display)
            total = small_measures.sequential(value)
            if measure.summary == MEAN:
                means[label] = total / len(qids)
            elif measure.summary in (SUM, NUM_REL):
                means[label] = int(total)
            else:
                return None
            columns.append(_Column(label, measure.summary))
            values[label] = value
    return columns, values, means
