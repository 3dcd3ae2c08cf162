"""The measures that print a trace with ``-D`` (debug level), ported line for line.

With a debug level above 0, trec_eval's ``ndcg`` (and 10.0's ``dcg``/``ideal_dcg``,
which share its code), ``ndcg_cut``, ``ndcg_rel``, ``Rndcg``, ``G``, ``binG``, 10.0's
``rbp`` — and ``gm_bpref`` above 1 — print their running sums while they compute a topic.
These ports compute the value and the text together, one document at a time, exactly as
the C loops do (same operations, same ``printf`` formats: Python's ``%`` formatting rounds
as glibc does). They are used with ``-D``, and by the native engine asked for by name
(``engine="native"``), which has no other port of them: otherwise the vectorised engines
compute the same values faster.

Each function takes one topic's ranked relevance list and facts (:class:`Topic`) and
returns ``(value, trace)``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .clib import CFloat as C
from .gains import gain_of, parse_pairs, setup_gains
from .res_rels import NONPOOL, UNJUDGED, ResRels

MIN_GEO_MEAN = 1e-5


def _log2(x: float) -> float:
    """C's ``log2``: -inf at 0 and NaN below, where Python's raises."""
    if x > 0:
        return math.log2(x)
    return -math.inf if x == 0 else -math.nan


@dataclass
class Topic:
    """What a traced measure needs of one topic (from :class:`~.res_rels.ResRels`)."""

    rels: list[int]
    rel_levels: np.ndarray
    num_rel_levels: int
    num_rel: int
    relevance_level: int
    debug_level: int
    integer_gain_names: bool  # 10.0's gain tables

    @classmethod
    def of(cls, res: ResRels, t: int, debug_level: int, integer_gain_names: bool) -> Topic:
        return cls(
            res.topic_rels(t).tolist(),
            res.rel_levels[t],
            int(res.num_rel_levels[t]),
            int(res.num_rel[t]),
            res.relevance_level,
            debug_level,
            integer_gain_names,
        )

    def gains(self, params: str | None):
        return setup_gains(
            parse_pairs(params),
            self.rel_levels,
            self.num_rel_levels,
            skip_invalid=self.integer_gain_names,
        )


class _IdealWalk:
    """The ideal ranking's gain at each position, as the C loops advance ``cur_level``."""

    def __init__(self, gains):
        self.gains = gains
        self.cur_level = len(gains) - 1
        self.gain = gains[self.cur_level].gain if self.cur_level >= 0 else 0.0
        self.num_at_level = 0

    def step(self) -> float:
        self.num_at_level += 1
        while self.cur_level >= 0 and self.num_at_level > self.gains[self.cur_level].num_at_level:
            self.num_at_level = 1
            self.cur_level -= 1
            self.gain = self.gains[self.cur_level].gain if self.cur_level >= 0 else 0.0
        return self.gain


def _result_step(gains, topic: Topic, i: int, dcg: float) -> tuple[float, float]:
    """Document ``i`` of the ranking: its gain, and the DCG with it added."""
    gain = gain_of(gains, topic.rels[i])
    if gain != 0:
        dcg += gain / math.log2(i + 2)
    return gain, dcg


def _ideal_step(walk: _IdealWalk, i: int, dcg: float) -> float:
    """Position ``i`` of the ideal ranking: the ideal DCG with its gain added."""
    walk.step()
    if walk.gain > 0.0:
        dcg += walk.gain / math.log2(i + 2)
    return dcg


def _results_tail(name, gains, topic, walk, i, results_dcg, ideal_dcg, out) -> float:
    """The documents retrieved past the ideal ranking's last positive gain (``ndcg`` and
    ``Rndcg`` print the same line for them); the final DCG."""
    while i < len(topic.rels):
        results_gain, results_dcg = _result_step(gains, topic, i, results_dcg)
        if topic.debug_level > 0:
            out.append(
                f"{name}: {i} {walk.cur_level} {C(results_gain):3.1f} {C(results_dcg):6.4f} "
                f"{C(0.0):3.1f} {C(ideal_dcg):6.4f}\n"
            )
        i += 1
    return results_dcg


def ndcg(topic: Topic, params: str | None, name: str = "ndcg"):
    """m_ndcg.c's ``te_calc_ndcg``; ``name`` picks which of its results is the value
    (``ndcg``, or 10.0's ``dcg`` and ``ideal_dcg``)."""
    gains = topic.gains(params)
    out, debug = [], topic.debug_level > 0
    results_dcg = ideal_dcg = 0.0
    walk = _IdealWalk(gains)
    n, i = len(topic.rels), 0
    while walk.gain > 0.0:  # the ideal ranking, and the documents retrieved alongside
        results_gain = 0.0
        if i < n:
            results_gain, results_dcg = _result_step(gains, topic, i, results_dcg)
        ideal_dcg = _ideal_step(walk, i, ideal_dcg)
        if debug:
            out.append(
                f"ndcg: {i} {walk.cur_level} {C(results_gain):3.1f} {C(results_dcg):6.4f} "
                f"{C(walk.gain):3.1f} {C(ideal_dcg):6.4f}\n"
            )
        i += 1
    results_dcg = _results_tail("ndcg", gains, topic, walk, i, results_dcg, ideal_dcg, out)
    if name == "dcg":
        value = results_dcg
    elif name == "ideal_dcg":
        value = ideal_dcg
    else:
        value = results_dcg / ideal_dcg if ideal_dcg > 0.0 else 0.0
    return value, "".join(out)


def ndcg_cut(topic: Topic, cutoffs: tuple[int, ...]):
    """m_ndcg_cut.c: one value per cutoff."""
    out, level = [], topic.debug_level
    values = [0.0] * len(cutoffs)
    index, total = 0, 0.0
    for i, rel in enumerate(topic.rels):
        if i == cutoffs[index]:
            values[index] = total
            index += 1
            if index == len(cutoffs):
                break
            if level > 0:
                out.append(f"ndcg_cut: cutoff {i} dcg {C(total):6.4f}\n")
        gain = float(rel)
        if gain > 0:
            total += gain / math.log2(i + 2)
            if level > 1:
                out.append(f"ndcg_cut:{i} {C(gain):3.1f} {C(total):6.4f}\n")
    while index < len(cutoffs):
        values[index] = total
        if level > 0:
            out.append(f"ndcg_cut: cutoff {cutoffs[index]} dcg {C(total):6.4f}\n")
        index += 1
    index, cur_lvl, lvl_count, ideal = 0, topic.num_rel_levels - 1, 0, 0.0
    i = 0
    while True:
        lvl_count += 1
        while cur_lvl > 0 and lvl_count > topic.rel_levels[cur_lvl]:
            cur_lvl -= 1
            lvl_count = 1
        if cur_lvl == 0:
            break
        if i == cutoffs[index]:
            if ideal > 0.0:
                values[index] /= ideal
            if level > 0:
                out.append(f"ndcg_cut: cutoff {i} idcg {C(ideal):6.4f}\n")
            index += 1
            if index == len(cutoffs):
                break
        gain = float(cur_lvl)
        ideal += gain / math.log2(i + 2)
        if level > 0:
            out.append(f"ndcg_cut:{i} {cur_lvl} {C(gain):3.1f} {C(ideal):6.4f}\n")
        i += 1
    while index < len(cutoffs):
        if ideal > 0.0:
            values[index] /= ideal
        if level > 0:
            out.append(f"ndcg_cut: cutoff {cutoffs[index]} idcg {C(ideal):6.4f}\n")
        index += 1
    return values, "".join(out)


def ndcg_rel(topic: Topic, params: str | None):
    """m_ndcg_rel.c: nDCG averaged over the relevant documents."""
    gains = topic.gains(params)
    out, debug = [], topic.debug_level > 0
    results_dcg = ideal_dcg = total = 0.0
    num_rel_ret = num_rel = 0
    walk = _IdealWalk(gains)

    def at_relevant(gain: float) -> None:
        """The nDCG so far joins the average at a relevant document."""
        nonlocal total, num_rel_ret
        if gain > 0:
            total += float(np.float64(results_dcg) / np.float64(ideal_dcg))
            num_rel_ret += 1

    n, i = len(topic.rels), 0
    with np.errstate(divide="ignore", invalid="ignore"):
        while walk.gain > 0.0:  # the ideal ranking, and the documents retrieved alongside
            results_gain = 0.0
            if i < n:
                results_gain, results_dcg = _result_step(gains, topic, i, results_dcg)
            ideal_dcg = _ideal_step(walk, i, ideal_dcg)
            num_rel += walk.gain > 0.0
            if i < n:
                at_relevant(results_gain)
            if debug:
                tail = f" {C(total):6.4f}" if i < n else ""
                out.append(
                    f"ndcg_rel: {i} {walk.cur_level} {C(results_gain):3.1f} {C(results_dcg):6.4f} "
                    f"{C(walk.gain):3.1f} {C(ideal_dcg):6.4f}{tail}\n"
                )
            i += 1
        for rest in range(i, n):  # documents retrieved past the ideal ranking's end
            results_gain, results_dcg = _result_step(gains, topic, rest, results_dcg)
            at_relevant(results_gain)
            if debug:
                out.append(
                    f"ndcg_rel: {rest} {walk.cur_level} {C(results_gain):3.1f} "
                    f"{C(results_dcg):6.4f} {C(0.0):3.1f} {C(ideal_dcg):6.4f} {C(total):6.4f}\n"
                )
        i = max(i, n)
        total += float(
            np.float64(num_rel - num_rel_ret) * np.float64(results_dcg) / np.float64(ideal_dcg)
        )
    if debug:
        out.append(
            f"ndcg_rel: {i} {walk.cur_level} {C(results_dcg):6.4f} {C(ideal_dcg):6.4f} "
            f"{C(total):6.4f}\n"
        )
    value = float(np.float64(total) / np.float64(num_rel)) if total > 0.0 else 0.0
    return value, "".join(out)


def rndcg(topic: Topic, params: str | None):
    """m_Rndcg.c: nDCG averaged at the ranks where the ideal gain changes."""
    gains = topic.gains(params)
    if topic.num_rel == 0:
        return 0.0, ""
    out, debug = [], topic.debug_level > 0
    results_dcg = ideal_dcg = total = 0.0
    changes = 0
    walk = _IdealWalk(gains)
    old_gain = walk.gain

    def at_change() -> None:
        """nDCG so far joins the average where the ideal gain changes."""
        nonlocal total, changes
        if ideal_dcg > 0.0:
            total += results_dcg / ideal_dcg
            changes += 1

    n, i = len(topic.rels), 0
    while walk.gain > 0.0:
        walk.step()
        if old_gain != walk.gain:
            at_change()
            old_gain = walk.gain
        results_gain = 0.0
        if i < n:
            results_gain, results_dcg = _result_step(gains, topic, i, results_dcg)
        if walk.gain > 0.0:
            ideal_dcg += walk.gain / math.log2(i + 2)
        if debug:
            tail = f" {C(total):6.4f}" if i < n else ""
            out.append(
                f"Rndcg: {i} {walk.cur_level} {C(results_gain):3.1f} {C(results_dcg):6.4f} "
                f"{C(walk.gain):3.1f} {C(ideal_dcg):6.4f}{tail}\n"
            )
        i += 1
    if i < n:  # documents retrieved past the ideal ranking's last positive gain
        results_dcg = _results_tail("Rndcg", gains, topic, walk, i, results_dcg, ideal_dcg, out)
        at_change()
    with np.errstate(divide="ignore", invalid="ignore"):
        value = float(np.float64(total) / np.float64(changes))
    return value, "".join(out)


def g_measure(topic: Topic, params: str | None):
    """m_G.c: gain over log2 of the cost so far."""
    gains = topic.gains(params)
    out, debug = [], topic.debug_level > 0
    results_g = sum_results = sum_ideal = sum_cost = 0.0
    min_cost = 1.0
    walk = _IdealWalk(gains)

    def take(i: int, cost: float) -> float:
        """Document ``i`` retrieved at ``cost``: its gain, added to the sums and to G."""
        nonlocal sum_results, sum_cost, results_g
        gain = gain_of(gains, topic.rels[i])
        sum_results += gain
        sum_cost += cost
        if gain != 0:
            results_g += gain / _log2(2 + sum_cost - sum_results)
        return gain

    n, i = len(topic.rels), 0
    while walk.gain > 0.0:
        walk.step()
        if walk.gain > 0.0:
            sum_ideal += walk.gain
        if i < n:
            results_gain = take(i, walk.gain if walk.gain >= min_cost else min_cost)
            if debug:
                out.append(
                    f"G: {i} {walk.cur_level} {C(results_gain):3.1f} {C(sum_results):6.4f} "
                    f"{C(walk.gain):3.1f} {C(sum_ideal):6.4f} {C(sum_cost):6.4f} "
                    f"{C(results_g):6.4f}\n"
                )
        elif debug:
            out.append(
                f"G: {i} {walk.cur_level} {C(0.0):3.1f} {C(sum_results):6.4f} "
                f"{C(walk.gain):3.1f} {C(sum_ideal):6.4f}\n"
            )
        i += 1
    for rest in range(i, n):  # documents retrieved past the ideal ranking's last positive gain
        results_gain = take(rest, min_cost)
        if debug:
            out.append(
                f"G: {rest} {walk.cur_level} {C(results_gain):3.1f} {C(sum_results):6.4f} "
                f"{C(0.0):3.1f} {C(sum_ideal):6.4f} {C(results_g):6.4f}\n"
            )
    value = results_g / sum_ideal if sum_ideal > 0.0 else 0.0
    return value, "".join(out)


def bin_g(topic: Topic):
    """m_binG.c: binary G."""
    out, debug = [], topic.debug_level > 0
    total, rel_so_far = 0.0, 0
    for i, rel in enumerate(topic.rels):
        if rel >= topic.relevance_level:
            rel_so_far += 1
            total += 1.0 / math.log2(3 + i - rel_so_far)
            if debug:
                out.append(f"binG: {i} {rel_so_far} {C(total):6.4f}\n")
    value = total / topic.num_rel if rel_so_far else 0.0
    return value, "".join(out)


def gm_bpref(topic: Topic):
    """m_gm_bpref.c: log of bpref (floored at 1e-5), averaged geometrically. Its trace has
    no newline."""
    num_nonrel = int(sum(topic.rel_levels[: topic.relevance_level].tolist()))
    nonrel_so_far = rel_so_far = 0
    bpref = 0.0
    for rel in topic.rels:
        if rel == NONPOOL or rel == UNJUDGED:
            continue
        if 0 <= rel < topic.relevance_level:
            nonrel_so_far += 1
        else:
            rel_so_far += 1
            if nonrel_so_far > 0:
                bpref += 1.0 - (
                    float(min(nonrel_so_far, topic.num_rel)) / float(min(num_nonrel, topic.num_rel))
                )
            else:
                bpref += 1.0
    if topic.num_rel:
        bpref /= topic.num_rel
    value = math.log(max(bpref, MIN_GEO_MEAN))
    trace = (
        f"gm_bpref: bpref {C(bpref):6.4f}, gm_bpref {C(value):6.4f}"
        if topic.debug_level > 1
        else ""
    )
    return value, trace


def rbp_trace(topic: Topic, gains, p: float) -> tuple[float, str]:
    """10.0's m_rbp.c loop with its trace (``gains``: the rescaled table)."""
    out, total, cur_p = [], 0.0, 1.0
    for i, rel in enumerate(topic.rels):
        gain = gain_of(gains, rel)
        if gain != 0:
            total += gain * cur_p
            if topic.debug_level > 0:
                out.append(f"rbp:{i} {C(gain):3.1f} {C(total):6.4f}\n")
        cur_p = cur_p * p
    return (1.0 - p) * total, "".join(out)
