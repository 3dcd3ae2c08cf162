"""trec_eval's families on a small ranked run in pure Python (issue 31's small path).

On a 1,000-line run numpy's first import costs more than scoring the run, so the small
path (:mod:`trecbench.small_score`) computes the families of
:data:`trecbench.measure_requests.FAMILIES` here, topic by topic, without numpy. It is a
second implementation of :mod:`trecbench.sparse_measures`' trec_eval part, kept to the
same floating-point operations in the same order, so the values are equal bit for bit
(tests/test_small_measures.py holds them so): counts are integers; precisions and
discounted gains are summed one by one in rank order, starting from 0.0, as trec_eval's C
loops do (never ``sum()``, whose compensated summation would change the last bit); the
discount is C's ``log2`` (:func:`math.log2` of the integer rank + 1, as
:func:`trecbench.kernels.log2_ranks`); a ratio with a denominator of 0 is 0.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from typing import NamedTuple

from .measure_requests import Request, planned


class Topic(NamedTuple):
    """One topic of a ranked run joined with its qrels: ``num_ret`` documents retrieved;
    ``hits``, ``(0-based rank, grade)`` of each retrieved document with a judgment, by
    rank; ``grades``, the grade of every judgment of the topic (retrieved or not)."""

    num_ret: int
    hits: tuple[tuple[int, int], ...]
    grades: tuple[int, ...]


def sequential(terms) -> float:
    """``terms`` summed one by one from 0.0, as C's ``sum += x`` (not ``sum()``)."""
    total = 0.0
    for term in terms:
        total += term
    return total


def _ratio(numerator: float, denominator) -> float:
    """``numerator / denominator``, 0.0 unless the denominator is positive."""
    return numerator / denominator if denominator > 0 else 0.0


class _Terms:
    """What a topic's measures share at one relevance level: the ranks of its relevant
    retrieved documents, its gains and its ideal gains (best first)."""

    def __init__(self, topic: Topic, level: int):
        self.num_ret = topic.num_ret
        self.num_rel = len([grade for grade in topic.grades if grade >= level])
        self.rel_pos = [pos for pos, grade in topic.hits if grade >= level]
        self.gains = [(pos, grade) for pos, grade in topic.hits if grade > 0]
        self.ideal = sorted((grade for grade in topic.grades if grade > 0), reverse=True)

    def relevant_within(self, k: float) -> int:
        return bisect_left(self.rel_pos, k)  # rel_pos is sorted

    def average_precision(self, k: float) -> float:
        precisions = (
            float(index + 1) / float(pos + 1)
            for index, pos in enumerate(self.rel_pos[: self.relevant_within(k)])
        )
        return _ratio(sequential(precisions), self.num_rel)

    def ndcg(self, k: float) -> float:
        dcg = sequential(grade / math.log2(pos + 2) for pos, grade in self.gains if pos < k)
        ideal = enumerate(self.ideal)
        best = sequential(grade / math.log2(pos + 2) for pos, grade in ideal if pos < k)
        return _ratio(dcg, best)

    def reciprocal_rank(self, k: float) -> float:
        if not self.rel_pos or self.rel_pos[0] >= k:
            return 0.0
        return 1.0 / float(self.rel_pos[0] + 1)

    def rprec(self) -> float:
        return _ratio(float(self.relevant_within(min(self.num_ret, self.num_rel))), self.num_rel)


def _value(terms: _Terms, family: str, k) -> float:
    """One family's value of one topic (a family of trec_eval's; ``k``: its cutoff)."""
    limit = math.inf if k is None else k
    if family == "num_ret":
        return float(terms.num_ret)
    if family == "num_rel":
        return float(terms.num_rel)
    if family == "num_rel_ret":
        return float(terms.relevant_within(math.inf))
    if family == "P":
        return terms.relevant_within(k) / float(k)
    if family == "recall":
        return _ratio(float(terms.relevant_within(k)), terms.num_rel)
    if family == "success":
        return 1.0 if terms.relevant_within(k) > 0 else 0.0
    if family == "recall_all":  # trecbench's Recall_all@k: every relevant doc in top k
        return 1.0 if 0 < terms.num_rel == terms.relevant_within(k) else 0.0
    if family == "Rprec":
        return terms.rprec()
    if family == "recip_rank":
        return terms.reciprocal_rank(limit)
    if family in ("map", "map_cut"):
        return terms.average_precision(limit)
    if family in ("ndcg", "ndcg_cut"):
        return terms.ndcg(limit)
    raise ValueError(f"the small path does not compute {family}")


def compute(topics: list[Topic], requests: list[Request], level: int) -> dict[Request, list]:
    """Per request, its value for each of ``topics`` (in order), at relevance ``level``."""
    results: dict[Request, list] = {request: [] for request in requests}
    for topic in topics:
        terms = _Terms(topic, level)
        for request in requests:
            results[request].append(_value(terms, *request))
    return results


def planned_values(topics: list[Topic], plan: list[tuple], levels: dict) -> dict:
    """Per measure of ``plan``, ``(label, display, values)`` of each of its values
    (:func:`trecbench.measure_requests.planned`; values: a list, one per topic)."""
    return planned(lambda requests, level: compute(topics, requests, level), plan, levels)
