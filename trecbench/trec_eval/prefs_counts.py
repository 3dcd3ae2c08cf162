"""trec_eval's ``form_prefs_counts``: the preferences a ranking fulfils, per judgment group.

A preference file (``-R prefs``, or ``-R qrels_prefs``) gives, per topic, judgment groups
(JG: one user's judgments at one time) made of sub-groups (JSG): within a JSG a document
with a higher level is preferred to one with a lower level. A JG with a single JSG is kept
as equivalence classes (EC: the documents of one level), one with several JSGs as a
preference array closed under transitivity. Documents are numbered by "docid rank": the
judged documents retrieved get 0..``num_judged_ret - 1`` in rank order, the others the
following numbers in docno order. A preference A > B is *fulfilled* when A's number is
lower, *retrieved* when both were retrieved, *implied* when only one was, *not occurring*
when neither was.

The ranking is trec_eval's own for preferences: score descending, ties broken by docno
**ascending** (``form_prefs_counts.c``'s ``comp_sim_docno``, unlike every other measure),
cut at ``-M``; 9.0.8 compares scores and levels as C ``float`` (the scores as doubles
too where the evaluation's ``float32`` setting is off, as every other measure's ranking).

Counts are kept per JG (:class:`JudgmentGroup`), and per ordered pair of documents over all
JGs in a ``uint16`` array (it wraps at 65,536, as trec_eval's ``unsigned short`` does).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..errors import TrecbenchError
from .clib import CFloat as C


class PrefsError(TrecbenchError):
    """A topic's preferences or ranking trec_eval cannot use (it stops with exit 4; for a
    contradiction inside a judgment group it aborts). ``trace``: what ``-D`` had printed
    of the topic."""

    exit_code = 4
    trace = ""
    of_run = False  # a document the run lists twice: no fault of the preferences' file


@dataclass
class JudgmentGroup:
    """One JG of a topic: its counts and, for the ``Rnonrel`` measures, its structure
    (``ecs``: level and sorted docid ranks of each EC, highest level first, and
    ``pool_start``: where its ECs start in the topic's rank pool; or ``prefs``: the
    transitive preference array and ``rel_array``, each document's level)."""

    ful_ret: int = 0
    poss_ret: int = 0
    ful_imp: int = 0
    poss_imp: int = 0
    poss_notoccur: int = 0
    num_rel: int = 0
    num_rel_ret: int = 0
    num_nonrel: int = 0
    num_nonrel_ret: int = 0
    ecs: list[tuple[float, np.ndarray]] = field(default_factory=list)
    pool_start: int = 0
    prefs: np.ndarray | None = None
    rel_array: np.ndarray | None = None


@dataclass
class ResultsPrefs:
    """``form_prefs_counts`` of one topic."""

    num_judged: int
    num_judged_ret: int
    jgs: list[JudgmentGroup]
    counts: np.ndarray  # uint16 [num_judged, num_judged]
    rank_pool: np.ndarray  # every EC JG's docid ranks, JG after JG (trec_eval's static pool)
    # slots of rank_pool written by some topic since it was last allocated: trec_eval's
    # pool beyond them holds what malloc left there (undefined)
    pool_written: int = 0
    debug: str = ""
    # measures whose trec_eval value is undefined for this topic, and why (prefs_measures)
    undefined: dict[str, str] = field(default_factory=dict)


def _levels(levels: np.ndarray, float32: bool) -> np.ndarray:
    if not float32:
        return levels.astype(np.float64)
    with np.errstate(over="ignore"):
        return levels.astype(np.float32).astype(np.float64)


class _Buffer:
    """One of trec_eval's static work arrays, reused from topic to topic: its records keep
    what earlier topics left in them (only ``-D 5`` shows it; a new allocation is taken
    to be zeroed). Grown like ``te_chk_and_malloc``: by the size needed."""

    def __init__(self, empty: tuple):
        self.records: list[list] = []
        self.empty = empty

    def reserve(self, needed: int) -> None:
        if needed > len(self.records):
            self.records = [list(self.empty) for _ in range(len(self.records) + needed)]


class PrefsCounter:
    """``form_prefs_counts`` topic after topic, with trec_eval's static state: the rank
    pool (read past a judgment group's last class by the ``Rnonrel`` measures) and the
    work arrays ``-D 5`` prints."""

    def __init__(
        self,
        *,
        levels_float32: bool,
        scores_float32: bool,
        max_docs: int | None,
        debug_level: int = 0,
    ):
        # the levels as the trec_eval version holds them; the scores as the evaluation
        # ranks every run (trecbench.score_precision.compares_float32)
        self.levels_float32 = levels_float32
        self.scores_float32 = scores_float32
        self.max_docs = max_docs
        self.debug_level = debug_level
        self.pool = np.zeros(0, np.int64)
        self.pool_written = 0  # see ResultsPrefs.pool_written
        self._docno_results = _Buffer(("", 0.0, 0))  # docno, sim, rank
        self._prefs_and_ranks = _Buffer(("", "", 0.0, "", 0))  # jg, jsg, level, docno, rank

    def count(self, qid: str, docnos: list[str], scores: np.ndarray, prefs: dict[str, list]):
        """One topic: ``docnos``/``scores`` its retrieved documents (file order), ``prefs``
        its preference lines (``jg``, ``jsg``, ``docno``, ``level`` lists, sorted by docno
        with ties in file order, as trec_eval's reader leaves them)."""
        trace: list[str] = []
        try:
            return self._count(qid, docnos, scores, prefs, trace)
        except PrefsError as error:
            error.trace = "".join(trace)
            raise

    def _count(self, qid, docnos, scores, prefs, trace: list[str]) -> ResultsPrefs:
        levels = _levels(np.asarray(prefs["level"], np.float64), self.levels_float32)
        sims = _levels(np.asarray(scores, np.float64), self.scores_float32)
        ranked = self._rank(docnos, sims, trace)
        judged_docnos = prefs["docno"]
        jg, jsg = prefs["jg"], prefs["jsg"]
        if self.debug_level >= 5:
            records = self._prefs_and_ranks
            records.reserve(len(judged_docnos))
            for i, record in enumerate(records.records[: len(judged_docnos)]):
                record[:4] = [jg[i], jsg[i], float(levels[i]), judged_docnos[i]]
            trace.append(self._dump_prefs_buffer(len(judged_docnos), "Input, before ranks"))
        judged_set = set(judged_docnos)
        retrieved = [d for d in ranked if d in judged_set]
        if self.debug_level >= 5:
            trace.append(self._trace_docid_ranks(ranked, judged_set))
        docid = {d: i for i, d in enumerate(retrieved)}
        num_judged_ret = len(retrieved)
        for d in sorted(judged_set - set(retrieved)):
            docid[d] = len(docid)
        num_judged = len(docid)
        rank = np.array([docid[d] for d in judged_docnos], np.int64)
        # by jg, jsg, level descending, docid rank (stable, like glibc's merge sort)
        order = np.array(
            sorted(range(len(rank)), key=lambda i: (jg[i].encode(), jsg[i].encode())), np.int64
        )
        order = order[np.lexsort((rank[order], -levels[order], _group_codes(jg, jsg, order)))]
        if self.debug_level >= 5:
            for slot, i in zip(self._prefs_and_ranks.records, order.tolist(), strict=False):
                slot[:] = [jg[i], jsg[i], float(levels[i]), judged_docnos[i], int(rank[i])]
        if self.debug_level >= 4:
            trace.append(f"Form_prefs: num_judged {num_judged}, num_judged_ret {num_judged_ret}\n")
            trace.append(_dump_prefs(jg, jsg, levels, judged_docnos, rank, order, "Final prefs"))
        counts = np.zeros((num_judged, num_judged), np.uint16)
        if len(judged_docnos) > len(self.pool):
            # te_chk_and_malloc (rank_pool, .., num_text_prefs): one slot per preference
            # line, multi-sub-group JGs' included, so the Rnonrel measures may read slots
            # no JG wrote; grown by the size needed into a new block, taken as zeros here
            # (trec_eval mallocs it: what it holds there is the heap's, undefined)
            self.pool = np.zeros(len(self.pool) + len(judged_docnos), np.int64)
            self.pool_written = 0  # freed and malloc'd anew: nothing written in it yet
        groups, pool_parts, pool_used = [], [], 0
        names = list(docid)  # each internal docid's docno, in its order
        jg_sorted = [jg[i] for i in order]
        bounds = [0] + [i for i in range(1, len(order)) if jg_sorted[i] != jg_sorted[i - 1]]
        bounds.append(len(order))
        for start, stop in zip(bounds[:-1], bounds[1:], strict=True):
            rows = order[start:stop]
            group = JudgmentGroup()
            if len({jsg[i] for i in rows}) > 1:
                _form_pa(group, rows, jsg, levels, rank, judged_docnos, num_judged)
                _count_pa(group, counts, num_judged_ret)
            else:
                group.pool_start = pool_used
                _form_ec(group, rows, levels, rank)
                # every row goes to the pool, a class dropped by _form_ec's -3.0 included
                pool_parts.append(rank[rows])
                pool_used += len(rows)
                _count_ec(group, counts, num_judged_ret, names)
            groups.append(group)
        if pool_parts:
            self.pool[:pool_used] = np.concatenate(pool_parts)
            self.pool_written = max(self.pool_written, pool_used)
        result = ResultsPrefs(
            num_judged, num_judged_ret, groups, counts, self.pool, self.pool_written
        )
        if self.debug_level >= 3:
            trace.append(_dump_results_prefs(result))
        result.debug = "".join(trace)
        return result

    def _rank(self, docnos: list[str], sims: np.ndarray, trace: list[str]) -> list[str]:
        """The retrieved docnos in trec_eval's order for preferences, cut at ``-M``;
        duplicates within the cut are an error."""
        values = sims + 0.0  # -0.0 ties 0.0
        by_docno = sorted(range(len(docnos)), key=lambda i: docnos[i].encode())
        order = sorted(by_docno, key=lambda i: -values[i])  # stable: docno ascending in ties
        kept = order if self.max_docs is None else order[: self.max_docs]
        if self.debug_level >= 5:
            buffer = self._docno_results
            buffer.reserve(len(docnos))
            stale = [buffer.records[k][2] for k in range(len(docnos))]
            moved = sorted(range(len(docnos)), key=lambda k: (-values[k], docnos[k].encode()))
            for slot, i, k in zip(buffer.records, order, moved, strict=False):
                slot[:] = [docnos[i], float(sims[i]), stale[k]]
            trace.append(self._dump_docno_buffer(len(docnos), "After input, before ranks"))
            for position, slot in enumerate(buffer.records[: len(kept)]):
                slot[2] = position + 1
            buffer.records[: len(kept)] = sorted(
                buffer.records[: len(kept)], key=lambda r: r[0].encode()
            )
        ranked = [docnos[i] for i in kept]
        previous = None
        for docno in sorted(d.encode() for d in ranked):
            if docno == previous:
                error = PrefsError(f"duplicate docs {docno.decode()}")
                error.of_run = True  # the run's listing, not the preferences'
                raise error
            previous = docno
        if self.debug_level >= 5:
            trace.append(self._dump_docno_buffer(len(kept), "After -M, ranks"))
        return ranked

    def _trace_docid_ranks(self, ranked: list[str], judged: set[str]) -> str:
        """``-D 5``: the work array while docid ranks are assigned (its stale fields
        included)."""
        buffer = self._docno_results.records
        ordered = sorted(judged, key=str.encode)
        last = ordered[-1].encode() if ordered else b""
        examined = 0
        for slot in buffer[: len(ranked) if ordered else 0]:
            examined += 1
            if slot[0] not in judged:
                slot[2] = -1
            if slot[0].encode() >= last:
                break
        buffer[:examined] = sorted(buffer[:examined], key=lambda r: r[2])
        text = self._dump_docno_buffer(examined, "After marking not judged")
        kept = 0
        for slot in buffer[:examined]:
            if slot[2] > -1:
                buffer[kept][0], buffer[kept][2] = slot[0], kept
                kept += 1
        buffer[:kept] = sorted(buffer[:kept], key=lambda r: r[0].encode())
        return text + self._dump_docno_buffer(kept, "After assigning docid_ranks")

    def _dump_docno_buffer(self, n: int, where: str) -> str:
        lines = [f"Docno_results Dump.  num_results {n}, {where}\n"]
        for docno, sim, rank in self._docno_results.records[:n]:
            lines.append(f"  {docno}\t{C(sim):4.2f}\t{rank:3d}\n")
        return "".join(lines)

    def _dump_prefs_buffer(self, n: int, where: str) -> str:
        lines = [f"Prefs_and_ranks Dump.  num_pref_lines {n},  {where}\n"]
        for jg, jsg, level, docno, rank in self._prefs_and_ranks.records[:n]:
            lines.append(f"  {jg}\t{jsg}\t{C(level):4.2f}\t{docno}\t{rank:3d}\n")
        return "".join(lines)


def _group_codes(jg: list[str], jsg: list[str], order: np.ndarray) -> np.ndarray:
    """Consecutive codes of (jg, jsg) along ``order`` (already sorted by them)."""
    keys = [(jg[i], jsg[i]) for i in order]
    codes = np.zeros(len(order), np.int64)
    for i in range(1, len(order)):
        codes[i] = codes[i - 1] + (keys[i] != keys[i - 1])
    return codes


def _form_ec(group: JudgmentGroup, rows, levels, rank) -> None:
    """Equivalence classes: the documents of each level, in order.

    trec_eval counts a JG's levels from ``rel_level = -3.0`` (its "illegal level"), so when
    the highest level is exactly -3 its number of classes is one short and the last class
    (the lowest level) is left out of every count; with -3 as the only level the JG has no
    class and is taken for an unfilled preference array."""
    level_of, ranks_of = levels[rows], rank[rows]
    cuts = np.flatnonzero(np.r_[True, level_of[1:] != level_of[:-1], True])
    group.ecs = [
        (float(level_of[a]), ranks_of[a:b]) for a, b in zip(cuts[:-1], cuts[1:], strict=True)
    ]
    if level_of[0] == -3.0:
        del group.ecs[-1]


def _count_ec(group: JudgmentGroup, counts: np.ndarray, njr: int, docnos: list[str]) -> None:
    """``add_ec_pref_to_jg``: every document of a higher EC is preferred to every one of a
    lower EC (``docnos``: each internal docid's docno, named where trec_eval stops)."""
    for index, (level, ranks) in enumerate(group.ecs):
        retrieved = int(np.searchsorted(ranks, njr))  # ranks are sorted
        if level > 0.0:
            group.num_rel_ret += retrieved
            group.num_rel += len(ranks)
        else:
            group.num_nonrel_ret += retrieved
            group.num_nonrel += len(ranks)
        for _, lower in group.ecs[index + 1 :]:
            r1, r2 = np.meshgrid(ranks, lower, indexing="ij")
            r1, r2 = r1.ravel(), r2.ravel()
            np.add.at(counts, (r1, r2), np.uint16(1))
            same = r1 == r2
            if same.any():
                internal = int(r1[same][0])  # trec_eval names this index, not the docno
                raise PrefsError(
                    f"doc '{docnos[internal]}' occurs with different rel_level in same jsg "
                    f"(trec_eval: Internal docid {internal})"
                )
            ahead = r1 < r2
            group.ful_ret += int(np.count_nonzero(ahead & (r2 < njr)))
            group.ful_imp += int(np.count_nonzero(ahead & (r2 >= njr) & (r1 < njr)))
            group.poss_notoccur += int(np.count_nonzero((r1 >= njr) & (r2 >= njr)))
            group.poss_ret += int(np.count_nonzero(~ahead & (r1 < njr)))
            group.poss_imp += int(np.count_nonzero(~ahead & (r1 >= njr) & (r2 < njr)))
    group.poss_ret += group.ful_ret
    group.poss_imp += group.ful_imp


def _form_pa(group: JudgmentGroup, rows, jsg, levels, rank, docnos, num_judged) -> None:
    """A preference array from several JSGs, closed under transitivity."""
    rel_array = np.full(num_judged, -1.0)
    prefs = np.zeros((num_judged, num_judged), bool)
    for i in rows:  # the consistency check runs line by line, in sorted order
        before, level = rel_array[rank[i]], levels[i]
        if (before > 0.0 and level == 0.0) or (before == 0.0 and level > 0.0):
            raise PrefsError(f"doc '{docnos[i]}' has both 0 and non-0 rel_level assigned")
        rel_array[rank[i]] = level
    sub = np.array([jsg[i] for i in rows], dtype=object)
    for name in dict.fromkeys(sub.tolist()):
        members = rows[sub == name]
        higher = levels[members][:, None] > levels[members][None, :]
        a, b = np.nonzero(higher)
        prefs[rank[members][a], rank[members][b]] = True
    np.fill_diagonal(prefs, True)
    closure = prefs.astype(np.float32)
    while True:  # repeated squaring: the transitive closure trec_eval's products reach
        grown = (closure @ closure) > 0
        if np.array_equal(grown, closure > 0):
            break
        closure = grown.astype(np.float32)
    prefs = closure > 0
    np.fill_diagonal(prefs, False)
    both = prefs & prefs.T
    if both.any():
        i, j = (int(x[0]) for x in np.nonzero(both))
        raise PrefsError(
            f"preferences contradict each other within a judgment group (internal ranks "
            f"{i} and {j}): trec_eval aborts"
        )
    group.prefs, group.rel_array = prefs, rel_array


def _count_pa(group: JudgmentGroup, counts: np.ndarray, njr: int) -> None:
    """``add_pa_pref_to_jg``: count the marks of the preference array by area."""
    a, rel = group.prefs, group.rel_array
    group.num_rel_ret = int(np.count_nonzero(rel[:njr] > 0.0))
    group.num_nonrel_ret = int(np.count_nonzero(rel[:njr] == 0.0))
    group.num_rel = int(np.count_nonzero(rel > 0.0))
    group.num_nonrel = int(np.count_nonzero(rel == 0.0))
    counts += a.astype(np.uint16)
    top = a[:njr, :njr]
    group.ful_ret = int(np.count_nonzero(np.triu(top, 1)))
    group.poss_ret = int(np.count_nonzero(np.tril(top, -1)))
    group.ful_imp = int(np.count_nonzero(a[:njr, njr:]))
    group.poss_imp = int(np.count_nonzero(a[njr:, :njr]))
    group.poss_notoccur = int(np.count_nonzero(a[njr:, njr:]))
    group.poss_ret += group.ful_ret
    group.poss_imp += group.ful_imp


# ---------------------------------------------------------------------------------------
# -D traces (form_prefs_counts.c's debug_print_*)


def _dump_prefs(jg, jsg, levels, docnos, rank, order, where: str) -> str:
    lines = [f"Prefs_and_ranks Dump.  num_pref_lines {len(order)},  {where}\n"]
    for i in order:
        lines.append(f"  {jg[i]}\t{jsg[i]}\t{C(levels[i]):4.2f}\t{docnos[i]}\t{rank[i]:3d}\n")
    return "".join(lines)


def _dump_ec(level: float, ranks: np.ndarray) -> str:
    text = f"    EC Dump. Rel_level {C(level):4.2f}. Num_docid_ranks {len(ranks)}"
    for i, r in enumerate(ranks.tolist()):
        if i % 10 == 0:
            text += "\n      "
        text += f"{r:3d} "
    return text + "\n"


def _dump_matrix(title: str, a: np.ndarray, row: str, wrap: str, cell: str) -> str:
    """debug_print_prefs_array / debug_print_counts_array: rows of cells, 20 a line."""
    n = len(a)
    text = f"{title} Num_judged {n}"
    for i in range(n):
        text += f"\n{row}Row {i:3d}\n{row}"
        for j in range(n):
            if j and j % 20 == 0:
                text += f"    ({j})\n{wrap}"
            text += cell % int(a[i, j])
    return text + "\n"


def _dump_jg(group: JudgmentGroup) -> str:
    kind = "EC" if group.ecs else "Prefs_array"
    text = f"  JG Dump.  Type {kind}\n"
    for name, value in (
        ("num_prefs_fulfilled_ret", group.ful_ret),
        ("num_prefs_possible_ret", group.poss_ret),
        ("num_prefs_fulfilled_imp", group.ful_imp),
        ("num_prefs_possible_imp", group.poss_imp),
        ("num_prefs_possible_notoccur", group.poss_notoccur),
        ("num_nonrel", group.num_nonrel),
        ("num_nonrel_ret", group.num_nonrel_ret),
        ("num_rel", group.num_rel),
        ("num_rel_ret", group.num_rel_ret),
    ):
        text += f"    {name} {value}\n"
    if not group.ecs and group.prefs is None:  # EC JG without classes; record taken fresh
        return text + "    JG is not initialized (0 ECs and no rel_array\n"
    if not group.ecs:
        text += _dump_matrix("    Prefs_Array Dump.", group.prefs, "      ", "     ", "%2d")
        text += f"    Rel_array Dump. {len(group.rel_array)} values"
        for i, value in enumerate(group.rel_array.tolist()):
            if i % 10 == 0:
                text += "\n      "
            text += f"{C(value):4.2f} "
        return text + "\n"
    text += f"    Dump of {len(group.ecs)} ECs within JG\n"
    return text + "".join(_dump_ec(level, ranks) for level, ranks in group.ecs)


def _dump_results_prefs(result: ResultsPrefs) -> str:
    text = f"Results_prefs Dump.  {len(result.jgs)} Judgment Groups\n"
    text += f"  num_judged_ret {result.num_judged_ret},  num_judged {result.num_judged}\n"
    text += "".join(_dump_jg(group) for group in result.jgs)
    return text + _dump_matrix("  Counts_Array Dump.", result.counts, "    ", "   ", "%2d ")
