"""Where a fused run, ranked as trec_eval 9.x reads it (scores at float32, ties by docno),
ranks documents against their fused scores: an RRF k so large that neighbouring ranks of
one run tie (:func:`rrf_ranks`), and any fused scores that differ as doubles but tie at
float32 (:func:`against_order`, by where they lie): beyond its range (read as infinity),
within its smallest normal value (read as 0 or with few bits), or within its range but
closer than float32 tells apart (sums over several runs). Each is a warning's text, for
:mod:`trecbench.fusion` to say."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pyarrow as pa

from . import arrow
from . import arrow_compute as pc
from .errors import one_line
from .number_text import exact_number, fewest_digits
from .plurals import counted
from .score_precision import as_float32

FLOAT32_MAX = float(np.finfo(np.float32).max)
FLOAT32_TINY = float(np.finfo(np.float32).tiny)  # its smallest normal value


def rrf_ranks(k: float, deepest: int) -> str | None:
    """The warning (None: none is due) when RRF's ``1/(k + rank)`` of two neighbouring
    ranks within ``deepest`` tie at float32, the precision trec_eval 9.x reads scores at:
    it would rank those documents by docno, not as the runs do (a k of millions)."""
    with np.errstate(divide="ignore"):
        single = (1 / (k + np.arange(1, deepest + 1, dtype=np.float64))).astype(np.float32)
    tied = np.flatnonzero(single[1:] == single[:-1])
    if not len(tied):
        return None
    rank = int(tied[0]) + 1
    return (
        f"k {exact_number(k)}: RRF's scores of ranks {rank} and {rank + 1} tie at float32, the "
        "precision trec_eval 9.x reads scores at: it ranks such documents by docno, "
        "not as the runs do (a smaller k keeps the ranks apart)"
    )


# where the fused scores of a pair that ties at float32 against its order lie, each kind
# said in a warning of its own, as what keeps them apart differs: beyond float32's range
# (read as infinity), within its smallest normal value (read as 0 or with few bits), or
# within its range (doubles closer than float32's 24 bits tell apart: sums over several
# runs of RRF's 1/(k + r) from a k of about 1e3)
_WHERE = {
    "overflow": f"beyond float32's range (±{FLOAT32_MAX:.2g})",
    "underflow": f"within float32's smallest normal value (±{FLOAT32_TINY:.2g})",
    "precision": "within float32's range",
}
_OUT_OF_RANGE = "to keep the scores in range, "  # the advice of the first two kinds


# how far apart, relative to the size of the values it combines, two fused scores equal
# on paper can come out (RRF at k 60 of ranks 1, 2 and 7 of three runs, added in two
# orders: 0.04744784801534369 and ...370): each is a few roundings of 2**-53 from its exact
# value per run combined, a normalisation's a few more; 2**-40 (8192 of them) covers any
# fusion of fewer than thousands of runs and lies 2**16 below float32's precision
# (2**-24), where docno order starts to rule: a pair this close is taken as equal
ROUNDING = 2.0**-40
# a fused score of values the runs give unnormalised (RRF's 1/(k + r), ISR's 1/r², the
# scores under --norm none) is a sum of n of them, weighted, times a count or the sum of
# their weights, each rounded to 2**-53 of their size: at most 2n + 3 roundings (a sum of
# n terms: n - 1, Higham's bound); 2n + 8 of them may pass for equal; a run's own value
# or one rounding of an exact result (own_roundings), none. 2**-40 let through pairs not
# equal on paper: RRF of k 2e6, scores 1.0000000000001 and 1 (about 1e-13 apart)
UNIT_ROUNDING = 2.0**-53


def against_order(
    ranked: pa.Table,
    remedies: dict[str, str],
    sizes: Callable[[], np.ndarray],
    depth: int | None = None,
    roundings: np.ndarray | None = None,
) -> dict[str, str]:
    """The warnings, ``{kind: text}``, where the ranking written (scores descending at
    float32, trec_eval 9.x's precision; ties by docno) puts a smaller fused score above a
    larger one, by where the scores lie (:data:`_WHERE`: ``overflow``, ``underflow``,
    ``precision``); only the kinds ``remedies`` names (``{kind: what keeps them apart, as
    the fusion words it}``) are looked for. Scores equal on paper are no contradiction: no
    warning where they are equal or within :func:`rounding` of one another. ``ranked``:
    the fused run in trecbench's ranking, whole, with each document's ``group`` in
    ``sizes()`` (asked only when some pair is out of order); ``depth``: where the run
    written is cut, a pair whose upper row is kept counted (a tie across the cut keeps the
    smaller score and drops the larger); ``roundings``: how many :data:`UNIT_ROUNDING` of
    its size each ``group``'s score may be off by, when it is made of the runs' own values,
    unnormalised (:func:`rounding`)."""
    score = arrow.to_numpy(ranked.column("score"))
    rank = arrow.to_numpy(ranked.column("rank"))
    # ranked as float32, descending: a larger double below within a topic is a float32 tie
    pairs = np.flatnonzero((rank[1:] != 1) & (score[1:] > score[:-1]))
    if depth is not None:
        pairs = pairs[rank[pairs] <= depth]
    if not len(pairs):
        return {}
    with np.errstate(over="ignore", invalid="ignore"):  # a size beyond doubles: see rounding
        size = sizes()
    group = arrow.to_numpy(ranked.column("group"))
    slack = rounding(score, size[group], None if roundings is None else roundings[group])
    pairs = pairs[score[pairs + 1] - score[pairs] > np.maximum(slack[pairs], slack[pairs + 1])]
    magnitude = np.maximum(np.abs(score[pairs + 1]), np.abs(score[pairs]))
    kinds = {
        "overflow": magnitude > FLOAT32_MAX,
        "underflow": magnitude < FLOAT32_TINY,
        "precision": (magnitude >= FLOAT32_TINY) & (magnitude <= FLOAT32_MAX),
    }
    return {
        kind: _warning(ranked, (score, rank, slack), pairs[kinds[kind]], kind, remedy)
        + _cut(score, rank, pairs[kinds[kind]], depth)
        for kind, remedy in remedies.items()
        if kinds[kind].any()
    }


def _cut(score: np.ndarray, rank: np.ndarray, pairs: np.ndarray, depth: int | None) -> str:
    """What the warning of ``pairs`` adds where one is across the ``depth`` cut: the
    documents of the tie the cut left out whose scores are larger than the one kept at
    the cut, in no run written, where no reader's precision finds them again (trec_eval
    10.0's advice cannot help them); a larger depth keeps them."""
    at_cut = pairs[rank[pairs] == depth] if depth is not None else pairs[:0]
    if not len(at_cut):
        return ""
    tie = _float32_ties(score, rank)
    kept = np.full(tie[-1] + 1, np.inf)
    kept[tie[at_cut]] = score[at_cut]  # the smallest score kept of each tie cut
    beyond = np.flatnonzero(rank > depth)
    dropped = int(np.count_nonzero(score[beyond] > kept[tie[beyond]]))
    return (
        f"; at the depth cut ({depth}) {counted(dropped, 'document')} of "
        f"{'a larger score was' if dropped == 1 else 'larger scores were'} left out of the run "
        f"written this way: a larger depth keeps {'it' if dropped == 1 else 'them'}"
    )


def _float32_ties(score: np.ndarray, rank: np.ndarray) -> np.ndarray:
    """Each row's tie: a number shared by a topic's neighbouring rows equal at float32."""
    with np.errstate(over="ignore"):
        single = score.astype(np.float32)
    starts = np.ones(len(score), bool)
    starts[1:] = (rank[1:] == 1) | (single[1:] != single[:-1])
    return np.cumsum(starts)


def rounding(
    score: np.ndarray, size: np.ndarray, roundings: np.ndarray | None = None
) -> np.ndarray:
    """How far rounding alone may have moved each fused ``score`` from its value on paper:
    :data:`ROUNDING` of the ``size`` of the values it combines (as the fusion combines
    their magnitudes: the sum of ``|v|``, a z-score's cancelling terms included), or of the
    score where that is more (a size beyond a double's range: of the score); where the
    values are the runs' own, unnormalised, ``roundings`` :data:`UNIT_ROUNDING` of it
    (:func:`own_roundings`)."""
    size = np.where(np.isfinite(size), np.maximum(np.abs(size), np.abs(score)), np.abs(score))
    if roundings is None:
        return ROUNDING * size
    return roundings * UNIT_ROUNDING * size


def own_roundings(method: str, norm: str, counts: np.ndarray) -> np.ndarray | None:
    """How many :data:`UNIT_ROUNDING` of its size a fused score of the runs' own values,
    unnormalised (RRF, ISR, ``--norm none``), may be off by, per document of ``counts``
    values: 2n + 8 of a sum of n; none where a score is a run's value or one rounding of
    the values' exact result (combmax, combmin, combmed: a value, or the mean of two; a
    score-based method's document one run gives, times its weight): scores equal on
    paper are then equal doubles, and a tie of values an ulp apart is real. None:
    normalised values."""
    if method in ("rrf", "isr"):
        return 2.0 * counts + 8
    if norm != "none":
        return None
    if method in ("combmax", "combmin", "combmed"):
        return np.zeros(len(counts))
    return np.where(counts == 1, 0.0, 2.0 * counts + 8)


def kept_apart(given_k: bool) -> str:
    """What keeps fused scores within float32's range apart there, as the warning of kind
    ``precision`` advises it: a smaller k where the caller gave RRF's (``1/(k + r)`` then
    differ more between ranks; not a search's k); trec_eval 10.0, which reads the doubles.
    No weight or normalisation helps a score-based method: scores keep their relative
    differences."""
    full = "trec_eval 10.0 (score --compat 10.0) reads the scores written at full precision"
    return f"give a smaller k; {full}" if given_k else full


def _warning(ranked, per_row: tuple, pairs: np.ndarray, kind: str, remedy: str) -> str:
    """The warning of ``pairs`` (row i above row i + 1 against its score), all of one
    ``kind``: the documents and topics so ranked, the first pair, ``remedy``.
    ``per_row``: every row's score, rank and rounding (:func:`against_order`)."""
    score = per_row[0]
    rows = misplaced(*per_row, pairs)
    qids, docnos = ranked.column("qid"), ranked.column("docno")
    topics = len(pc.unique(qids.take(arrow.array(rows))))
    first = int(pairs[0])
    low, high = float(score[first]), float(score[first + 1])
    example = (
        f"topic {one_line(qids[first].as_py())}: {one_line(docnos[first].as_py())} {low!r} "
        f"above {one_line(docnos[first + 1].as_py())} {high!r}"
    )
    advice = remedy if kind == "precision" else _OUT_OF_RANGE + remedy
    return (
        f"fused scores {_WHERE[kind]} tie at float32 (as {_float32_text(low)}), the "
        f"precision trec_eval 9.x reads scores at, so it ranks them by docno: "
        f"{counted(len(rows), 'document')} of {counted(topics, 'topic')} are ranked "
        f"against their scores ({example}); {advice}"
    )


def misplaced(
    score: np.ndarray, rank: np.ndarray, slack: np.ndarray, pairs: np.ndarray
) -> np.ndarray:
    """The rows placed by docno against their scores: in every float32 tie (a topic's
    neighbouring rows equal at float32) that holds one of ``pairs`` (row i above row i + 1
    against its score), the rows whose score is more than their ``slack`` (rounding) from
    the score the scores' order puts in their place (z, y, x by docno for 1e-50, 1.7e-50,
    1.25e-50: all three, not only the neighbours out of order)."""
    tie = _float32_ties(score, rank)
    rows = np.flatnonzero(np.isin(tie, tie[pairs + 1]))
    by_score = rows[np.lexsort((-score[rows], tie[rows]))]  # stable: equal scores stay
    with np.errstate(over="ignore"):  # -1.7e308 from 1.7e308: infinitely apart, as it is
        apart = np.abs(score[by_score] - score[rows])
    return rows[apart > np.maximum(slack[by_score], slack[rows])]


def _float32_text(score: float) -> str:
    """``score`` as trec_eval 9.x holds it, a float32, in the fewest digits that read back
    as that float32 (0.6234568, not :g's 0.623457, nor the double's 0.6234567761421204)."""
    held = as_float32(score)
    return fewest_digits(float(held), lambda shown: as_float32(float(shown)) == held, 6)
