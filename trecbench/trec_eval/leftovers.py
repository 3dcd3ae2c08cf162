"""What trec_eval 10.0's ``rbp`` finds in its uninitialised ``min`` and ``max``.

m_rbp.c rescales the gain table to [0, 1] using a running minimum and maximum that it never
initialises. In 10.0's default (``-g``, unoptimised) build they are stack slots at
``rbp-16`` and ``rbp-24`` of a frame that every measure's ``calc`` function shares (all are
called from the same place in ``main``), so they hold what the last measure computed for
the topic before ``rbp`` left there — found from the build's debug information:

* ``ndcg``, ``dcg``, ``ideal_dcg``, ``ndcg_rel``: the ideal gain where the ideal ranking
  stopped and the ideal DCG; ``G``: that gain and the ideal gain sum; ``Rndcg``: that gain
  twice (nothing when the topic has no relevant document); ``ndcg_cut``: the DCG and ideal
  DCG at its last cutoff; ``set_F``: set precision and recall (when something relevant was
  retrieved); ``gm_map``: AP, ``yaap``: its sum (``max`` only);
* ``iprec_at_recall`` and ``11pt_avg``: the loop counter's final -1 in ``max``, which reads
  as a NaN (then ``rbp`` is NaN whenever a gain is negative, and never rescaled otherwise);
* ``gm_bpref`` an integer in ``max`` alone; every other measure leaves integers or
  pointers in both — tiny positive numbers, which act as 0 (``set_P`` and ``utility``
  among them: read with gdb at m_rbp.c's first use of the slots, after each measure);
* ``map_cut`` and ``relative_P`` on a topic without a relevant document: 0 in ``max``
  alone (they return before their loop, having set only the counter there).

Before the first such measure of a topic the slots hold pointers (0, in effect).
:func:`slots` returns the two values for one topic.
"""

from __future__ import annotations

import math

import numpy as np

from ..kernels import log2_ranks
from .gains import Gain, ideal_gains, parse_pairs, setup_gains
from .res_rels import ResRels

TINY = 0.0  # an integer or pointer read as a double: a denormal that compares like +0
NAN = -math.nan  # the bits of (long) -1

_MAX_ONLY = frozenset({"gm_bpref"})  # writes an integer at rbp-24 only
# return before their loop when the topic has no relevant document, leaving rbp-16 as it
# was; recall and Rprec do so too, but no measure before them leaves a number there
_RETURN_WITHOUT_RELEVANT = frozenset({"map_cut", "relative_P"})


def _final_ideal_gain(table: list[Gain]) -> float:
    """The ideal gain when the C loops stop walking the gain table (not positive)."""
    if not table or table[-1].gain <= 0.0:
        return table[-1].gain if table else 0.0
    for entry in reversed(table):
        if entry.num_at_level and entry.gain <= 0.0:
            return entry.gain
    return 0.0


def _sequential(values: np.ndarray) -> float:
    return float(np.cumsum(values)[-1]) if len(values) else 0.0


def _ndcg_cut(res: ResRels, t: int, cutoffs: tuple[int, ...]) -> tuple[float, float]:
    """m_ndcg_cut.c's ``sum`` and ``ideal_dcg`` when it returns."""
    rels = res.topic_rels(t)
    last = cutoffs[-1]
    top = rels[:last].astype(np.float64)
    positions = np.flatnonzero(top > 0)
    total = _sequential(top[positions] / log2_ranks(len(top))[positions])
    levels, ideal, i = res.rel_levels[t], 0.0, 0
    cur, count = int(res.num_rel_levels[t]) - 1, 0
    while True:
        count += 1
        while cur > 0 and count > levels[cur]:
            cur, count = cur - 1, 1
        if cur == 0 or i == last:
            break
        ideal += float(cur) / math.log2(i + 2)
        i += 1
    return total, ideal


def _measure_slots(family: str, params, res: ResRels, t: int, cutoffs) -> tuple:
    """(value left at rbp-16, value left at rbp-24); None where nothing is written."""
    if family in ("iprec_at_recall", "11pt_avg"):
        return None, NAN
    if family in _MAX_ONLY:
        return None, TINY
    if family in _RETURN_WITHOUT_RELEVANT and res.num_rel[t] == 0:
        return None, 0.0
    rels = res.topic_rels(t)
    if family in ("ndcg", "dcg", "ideal_dcg", "ndcg_rel", "G", "Rndcg"):
        table = setup_gains(
            parse_pairs(params), res.rel_levels[t], int(res.num_rel_levels[t]), skip_invalid=True
        )
        gain = _final_ideal_gain(table)
        best = ideal_gains(table)
        if family == "Rndcg":
            return (None, None) if res.num_rel[t] == 0 else (gain, gain)
        if family == "G":
            return gain, _sequential(best)
        return gain, _sequential(best / log2_ranks(len(best)))
    if family == "ndcg_cut":
        return _ndcg_cut(res, t, cutoffs)
    relevant = rels >= res.relevance_level
    found = int(relevant.sum())
    if family == "set_F":
        if not found:
            return None, None
        return found / float(len(rels)), found / float(res.num_rel[t])
    if family in ("yaap", "gm_map"):
        # one topic's sum of precisions at its relevant documents (precision_sums' terms)
        total = _sequential(np.arange(1, found + 1) / (np.flatnonzero(relevant) + 1.0))
        if family == "gm_map" and found:
            total = total / float(res.num_rel[t])
        return None, total
    return TINY, TINY


def slots(res: ResRels, t: int, earlier) -> tuple[float, float]:
    """``(min, max)`` as rbp starts on topic ``t``; ``earlier``: the measures computed for
    the topic before it, in trec_eval's order."""
    low = high = None
    for measure in reversed(earlier):  # the last writer of each slot wins
        below, above = _measure_slots(
            measure.family, measure.params, res, t, getattr(measure, "cutoffs", ())
        )
        low = below if low is None else low
        high = above if high is None else high
        if low is not None and high is not None:
            break
    return TINY if low is None else low, TINY if high is None else high
