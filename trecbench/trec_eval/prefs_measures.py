"""trec_eval's fourteen preference measures (m_prefs_*.c), from ``form_prefs_counts``.

All take one topic's :class:`~.prefs_counts.ResultsPrefs`. "Fulfilled" and "possible"
counts come in three kinds (``_ret``: both documents retrieved; ``_imp``: also the pairs
where only one was, which count as fulfilled when the retrieved one is preferred; the
plain measures also count pairs where neither was retrieved, as failures). Sums run in
trec_eval's order; ratios with a zero denominator follow C's IEEE rules (``0/0`` is NaN,
which then fails the measures' ``sum > 0`` test).
"""

from __future__ import annotations

import numpy as np

from ..number_text import exact_number
from ..plurals import counted
from .prefs_counts import JudgmentGroup, ResultsPrefs


def _ratio(numerator: float, denominator: float) -> float:
    """``(double) a / (double) b`` with C semantics (no exception on 0)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(np.float64(numerator) / np.float64(denominator))


def _ful(group: JudgmentGroup, kind: str) -> int:
    if kind == "ret":
        return group.ful_ret
    return group.ful_ret + group.ful_imp


def _poss(group: JudgmentGroup, kind: str) -> int:
    if kind == "ret":
        return group.poss_ret
    if kind == "imp":
        return group.poss_ret + group.poss_imp
    return group.poss_ret + group.poss_imp + group.poss_notoccur


def _simple(rp: ResultsPrefs, kind: str) -> float:
    """prefs_simp*: preferences fulfilled over preferences possible, all JGs pooled."""
    ful = sum(_ful(g, kind) for g in rp.jgs)
    poss = sum(_poss(g, kind) for g in rp.jgs)
    return ful / poss if poss else 0.0


def _pairs(rp: ResultsPrefs, kind: str) -> float:
    """prefs_pair*: the average over document pairs of the share of JGs' preferences for
    the pair that the ranking fulfils (both retrieved; ``imp``: and one retrieved; the plain
    measure also counts the pairs neither retrieved, as 0)."""
    c = rp.counts.astype(np.int64)
    njr, nj = rp.num_judged_ret, rp.num_judged
    i, j = np.triu_indices(njr, 1)
    blocks = [(i, j)]
    if kind != "ret":
        rows, cols = np.meshgrid(np.arange(njr), np.arange(njr, nj), indexing="ij")
        blocks.append((rows.ravel(), cols.ravel()))
    terms, num_pairs = [], 0
    for rows, cols in blocks:
        forward, backward = c[rows, cols], c[cols, rows]
        some = (forward > 0) | (backward > 0)
        num_pairs += int(np.count_nonzero(some))
        terms.append(forward[some] / (forward[some] + backward[some]).astype(np.float64))
    if kind == "":
        i, j = np.triu_indices(nj - njr, 1)
        upper, lower = c[njr + i, njr + j], c[njr + j, njr + i]
        num_pairs += int(np.count_nonzero((upper > 0) | (lower > 0)))
    values = np.concatenate(terms)
    total = float(np.cumsum(values)[-1]) if len(values) else 0.0
    return total / num_pairs if num_pairs else 0.0


def _per_group(rp: ResultsPrefs, kind: str) -> float:
    """prefs_avgjg*: the ratio within each JG, averaged over JGs (0 unless positive)."""
    total = 0.0
    for group in rp.jgs:
        poss = _poss(group, kind)
        if poss:
            total += _ful(group, kind) / poss
    return total / len(rp.jgs) if total > 0.0 else 0.0


def _rnonrel(rp: ResultsPrefs, retrieved_only: bool) -> float:
    """prefs_avgjg_Rnonrel(_ret): prefs_avgjg with the non-relevant documents of each JG
    brought to R, its number of relevant ones (retrieved ones for ``_ret``)."""
    total = 0.0
    for group in rp.jgs:
        if retrieved_only:
            rel, nonrel = group.num_rel_ret, group.num_nonrel_ret
        else:
            rel, nonrel = group.num_rel, group.num_nonrel
        if rel >= nonrel:
            kind = "ret" if retrieved_only else ""
            ful = _ful(group, kind) + group.num_rel_ret * (rel - nonrel)
            poss = _poss(group, kind) + group.num_rel * (rel - nonrel)
        else:
            ful, poss = _recalculate(group, rp, retrieved_only)
        total += _ratio(ful, poss)
    return total / len(rp.jgs) if total > 0.0 else 0.0


def _recalculate(group: JudgmentGroup, rp: ResultsPrefs, retrieved_only: bool):
    """The counts again with only the first R non-relevant documents (m_prefs_avgjg_Rnonrel
    *.c's ``recalculate``)."""
    njr = rp.num_judged_ret
    if group.ecs:
        keep = group.num_rel_ret if retrieved_only else group.num_rel
        # trec_eval takes them from where the last class starts in its rank pool (past its
        # end when the class is smaller: the next group's ranks, or an earlier topic's).
        # Past what any topic wrote since the pool was allocated (malloc's leftovers) or
        # past the allocation (the heap's bookkeeping, other arrays) it reads undefined
        # memory, not imitated: zeros, or only what the pool holds, with a warning
        start = group.pool_start + sum(len(r) for _, r in group.ecs[:-1])
        nonrel = rp.rank_pool[start : start + keep]
        if start + keep > rp.pool_written:  # a lowest class (a negative grade) smaller than R
            level, lowest = group.ecs[-1]
            rp.undefined["prefs_avgjg_Rnonrel" + ("_ret" if retrieved_only else "")] = (
                f"trec_eval reads R = {keep} non-relevant documents from a judgment group's "
                f"lowest class (grade {exact_number(level)}, "
                f"{counted(len(lowest), 'document')}) past the end of what its rank pool "
                "holds: what it finds there (memory malloc left, or the heap's bookkeeping) "
                "is undefined; trecbench takes the "
                f"{counted(max(rp.pool_written - start, 0), 'document')} the pool holds"
            )
        ful = poss = 0
        pairs = [(a, b) for a in range(len(group.ecs)) for b in range(a + 1, len(group.ecs) - 1)]
        lists = [(group.ecs[a][1], group.ecs[b][1]) for a, b in pairs]
        lists += [(ranks, nonrel) for _, ranks in group.ecs]
        for first, second in lists:
            if retrieved_only:
                first, second = _prefix_below(first, njr), _prefix_below(second, njr)
                ahead = first[:, None] < second[None, :]
            else:
                ahead = (first[:, None] < second[None, :]) & (first[:, None] < njr)
            fulfilled = int(np.count_nonzero(ahead))
            ful += fulfilled
            poss += ahead.size - fulfilled
        return ful, poss + ful
    rel = group.rel_array
    scan = rel[:njr] if retrieved_only else rel
    nonrel_at = np.flatnonzero(scan == 0.0)
    limit = group.num_rel  # both variants stop at the num_rel'th + 1 non-relevant
    first_discarded = int(nonrel_at[limit]) if len(nonrel_at) > limit else len(scan)
    kept = ~((np.arange(len(rel)) >= first_discarded) & (rel == 0.0))
    a = group.prefs & kept[:, None] & kept[None, :]
    top = a[:njr, :njr]
    ful = int(np.count_nonzero(np.triu(top, 1)))
    poss = int(np.count_nonzero(np.tril(top, -1)))
    if not retrieved_only:
        ful += int(np.count_nonzero(a[:njr, njr:]))
        poss += int(np.count_nonzero(a[njr:, :]))
    return ful, poss + ful


def _prefix_below(ranks: np.ndarray, limit: int) -> np.ndarray:
    """The leading ranks below ``limit`` (the C loops stop at the first one that is not)."""
    stop = np.flatnonzero(ranks >= limit)
    return ranks[: stop[0]] if len(stop) else ranks


MEASURES = {
    "prefs_num_prefs_poss": lambda rp: float(sum(_poss(g, "") for g in rp.jgs)),
    "prefs_num_prefs_ful": lambda rp: float(sum(_ful(g, "") for g in rp.jgs)),
    "prefs_num_prefs_ful_ret": lambda rp: float(sum(g.ful_ret for g in rp.jgs)),
    "prefs_simp": lambda rp: _simple(rp, ""),
    "prefs_pair": lambda rp: _pairs(rp, ""),
    "prefs_avgjg": lambda rp: _per_group(rp, ""),
    "prefs_avgjg_Rnonrel": lambda rp: _rnonrel(rp, False),
    "prefs_simp_ret": lambda rp: _simple(rp, "ret"),
    "prefs_pair_ret": lambda rp: _pairs(rp, "ret"),
    "prefs_avgjg_ret": lambda rp: _per_group(rp, "ret"),
    "prefs_avgjg_Rnonrel_ret": lambda rp: _rnonrel(rp, True),
    "prefs_simp_imp": lambda rp: _simple(rp, "imp"),
    "prefs_pair_imp": lambda rp: _pairs(rp, "imp"),
    "prefs_avgjg_imp": lambda rp: _per_group(rp, "imp"),
}
