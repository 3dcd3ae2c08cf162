"""The tables a converter writes: runs that trec_eval orders as the producer did
(:func:`ranked_run`) and qrels (:func:`make_qrels`, :func:`qrels_summary`).

**Ranking order.** Producers break score ties by their own order, trec_eval re-sorts by
score and breaks ties by docno, so original scores cannot be written as they are. Every
converter writes ``score = n - rank + 1`` (``n`` documents for the query, ``rank`` the
1-based position in the producer's order): integers, strictly decreasing, exact in float32
up to 2^24 documents a query, so trec_eval reproduces the producer's order exactly (a query
of more is noted, naming it: trec_eval 9.x ties some of its top scores). The original
scores go to the sidecar (one value per run line, in file order), and ties or order
inversions among them are counted.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pandas as pd
import pyarrow as pa

from .. import arrow_compute as pc
from ..escaping import escape_text
from ..ids import STR
from ..resource_bounds import depth_from
from ..score_precision import as_float32
from .identifiers import escape_columns, escape_ids, escaped, report_escapes
from .model import Findings, RunOutput

# The seed's warning (memorybench's token fallback), for every qrels whose relevant
# documents are only those the runs found.
# queries the qrels hold with non-relevant judgments only: every measure scores them 0
JUDGED_NONE_RELEVANT = "queries judged, none relevant (in the qrels: they score 0 and count)"
FOUND_ONLY_WARNING = (
    "found-only qrels: only retrieved documents were judged, so the relevant documents "
    "nobody retrieved are unknown; the ideal DCG counts only what was found and may be "
    "underestimated (nDCG and recall are then overestimated): compare such numbers only "
    "with numbers judged the same way"
)
# the most documents a query may hold for its written scores n, n - 1, ..., 1 to be exact
# in float32, where trec_eval 9.x holds scores: every integer up to 2^24 is, 2^24 + 1 not
FLOAT32_EXACT = 1 << 24


def ranked_run(
    frame: pd.DataFrame,
    tag: str,
    qrels: str | None,
    report: Findings,
    depth: int | None = None,
    queries: Iterable[str] | None = None,
    name: str | None = None,
    unanswered: Iterable[str] = (),
) -> RunOutput:
    """Turn a producer's ranked lists into a run that trec_eval orders the same way.

    ``frame`` has ``qid``, ``docno``, ``order`` (the producer's rank or position: smaller is
    better; ties keep row order, and are counted) and ``score`` (the producer's score, NaN
    if none). Queries keep the order of their first row. Per query: duplicates keep their
    best-ranked copy (each drop reported), the list is cut at ``depth``, and written scores
    are ``n - rank + 1``. Ties and inversions among the original scores are counted.
    ``queries`` are all the queries the producer answered (as in the input): those without
    a document are reported, as they are absent from the run; ``unanswered``, the judged
    queries it did not answer, apart (a mean over the producer's answers, BEIR's, counts
    the first 0 and leaves the second out: no trec_eval mode does both). ``name`` names
    its file (default: the tag).
    """
    depth = depth_from(depth)
    # escaped first (duplicates are found among ids as written), their changes reported
    # once the rows written are known
    frame, escapes = escape_columns(frame, ("qid", "docno"))
    qids, docnos = _arrow(frame["qid"]), _arrow(frame["docno"])
    # queries numbered by first appearance, rows in (query, order, row) order
    query = np.asarray(pc.dictionary_encode(qids).indices, dtype=np.int64)
    order = frame["order"].to_numpy()
    index = _ranking(query, order)
    query, order = _at(query, index), _at(order, index)
    if queries is not None:
        present = set(pc.unique(qids).to_pylist())
        report.drop(
            f"query without retrieved documents ({tag}; absent from the run: trec_eval "
            "skips it unless -c counts it as 0)",
            ({"run": tag, "qid": q} for q in dict.fromkeys(escaped(queries)) if q not in present),
        )
    report.drop(
        f"judged query the producer did not answer ({tag}; absent from the run: trec_eval "
        "skips it unless -c counts it as 0; a mean over the producer's answers leaves it out)",
        ({"run": tag, "qid": q} for q in dict.fromkeys(escaped(unanswered)) if q not in present),
    )
    same_query = query[1:] == query[:-1]
    report.count(
        f"documents sharing the producer's rank of the one before ({tag}; input order kept)",
        int((same_query & (order[1:] == order[:-1])).sum()),
    )

    index, query = _without_duplicates(index, query, order, qids, docnos, tag, report)
    del order, same_query  # a run's arrays let go as soon as done with: millions of rows

    starts = np.flatnonzero(np.r_[True, query[1:] != query[:-1]]) if len(query) else query
    lengths = np.diff(np.r_[starts, len(query)])
    position = np.arange(len(query)) - np.repeat(starts, lengths) + 1
    if depth is not None:
        cut = position > depth
        report.count(f"documents beyond depth {depth} cut ({tag})", int(cut.sum()))
        index, query, position = index[~cut], query[~cut], position[~cut]
        lengths = np.minimum(lengths, depth)
    sizes = np.repeat(lengths, lengths)
    report_escapes(escapes, report, {"run": tag}, index)

    scores = _at(frame["score"].to_numpy(dtype=np.float64), index)
    stats = _score_stats(query, scores, len(lengths))
    qids, docnos = _at(qids, index), _at(docnos, index)
    _say_inexact(qids, lengths, tag, report)
    written = (sizes - position + 1).astype(np.float64)
    del query, sizes
    tags = pa.repeat(pa.scalar(tag, pa.string()), len(index))  # not a list of millions
    table = pd.DataFrame(
        {
            "qid": qids.to_pandas(types_mapper=lambda _: STR),
            "docno": docnos.to_pandas(types_mapper=lambda _: STR),
            "rank": position.astype(np.int64, copy=False),
            "score": written,
            "tag": tags.to_pandas(types_mapper=lambda _: STR),
        }
    )
    missing = np.isnan(scores)
    original = None if missing.all() else np.where(missing, None, scores).tolist()
    return RunOutput(
        tag=tag,
        name=tag if name is None else name,
        table=table,
        original_scores=original,
        qrels=qrels,
        stats=stats,
    )


def inexact_queries(lengths: np.ndarray) -> np.ndarray:
    """The positions of the queries (of ``lengths`` documents each) whose written scores
    ``n - rank + 1`` float32 cannot all hold: those of more than :data:`FLOAT32_EXACT`
    documents."""
    return np.flatnonzero(np.asarray(lengths) > FLOAT32_EXACT)


def _say_inexact(qids: pa.Array, lengths: np.ndarray, tag: str, report: Findings) -> None:
    """A note (printed by the command line, kept in the sidecar) of each query whose
    written scores are not exact in float32 (``qids``: the rows', grouped by query):
    trec_eval 9.x ties some of the top ones and orders those by docno, not as the
    producer did."""
    starts = np.cumsum(lengths) - lengths
    for position in inexact_queries(lengths):
        n = int(lengths[position])
        report.note(
            f"run {tag}: query {qids[int(starts[position])].as_py()!r} holds {n} documents, "
            f"more than 2^24 ({FLOAT32_EXACT}): the written scores of its first "
            f"{n - FLOAT32_EXACT} lie beyond the integers float32 holds exactly, and "
            "trec_eval 9.x (which reads scores as float32) ties some of them and orders those "
            "by docno, not as the producer did (trec_eval 10.0 reads them exactly); "
            f"--depth {FLOAT32_EXACT} keeps the order exact"
        )


def _ranking(query: np.ndarray, order: np.ndarray) -> np.ndarray:
    """The rows by query, then order, then row (a stable sort): none when they are so
    already, as most producers write them."""
    rows = np.arange(len(query))
    if len(query) < 2:
        return rows
    same = query[1:] == query[:-1]
    if (query[1:] >= query[:-1]).all() and (~same | (order[1:] >= order[:-1])).all():
        return rows
    return np.lexsort((order, query))  # stable: ties keep row order


# rows a block of :func:`_doc_codes` holds at least (whole queries): its ids hashed in cache
_BLOCK = 1 << 16


def _doc_codes(docnos: pa.Array, query: np.ndarray) -> tuple[np.ndarray, int]:
    """Codes of the documents of rows grouped by query (``docnos`` in that order), equal
    within a query exactly where the docnos are, and their bound. Encoded in blocks of
    whole queries: one dictionary of millions of ids is several times slower."""
    starts = np.flatnonzero(np.r_[True, query[1:] != query[:-1]]) if len(query) else query
    codes, bound, low = np.empty(len(query), np.int64), 1, 0
    while low < len(query):
        after = int(np.searchsorted(starts, low + _BLOCK))
        high = int(starts[after]) if after < len(starts) else len(query)
        encoded = pc.dictionary_encode(docnos.slice(low, high - low))
        codes[low:high] = np.asarray(encoded.indices)
        bound, low = max(bound, len(encoded.dictionary)), high
    return codes, bound


def _without_duplicates(index, query, order, qids, docnos, tag: str, report: Findings):
    """``(index, query)`` without the duplicate documents of a query: in the producer's
    order the first of each (query, doc) is the best-ranked copy, and is kept; each other
    one is reported with the order it had and the order kept."""
    doc, bound = _doc_codes(_at(docnos, index), query)
    key = query * bound + doc
    ordered = np.sort(key)  # no stable sort unless a document repeats
    if not (ordered[1:] == ordered[:-1]).any():
        return index, query
    unique, first = np.unique(key, return_index=True)
    keep = np.zeros(len(key), bool)
    keep[first] = True
    if not keep.all():
        dropped = np.flatnonzero(~keep)
        kept_order = order[first[np.searchsorted(unique, key[dropped])]]
        report.drop(
            f"duplicate document in a query ({tag}; the best-ranked copy is kept, the "
            "documents after the dropped copy one rank higher: @k values may differ from "
            "the producer's list)",
            (
                {"run": tag, "qid": q, "docno": d, "order": _plain(o), "kept_order": _plain(k)}
                for q, d, o, k in zip(
                    qids.take(pa.array(index[dropped])).to_pylist(),
                    docnos.take(pa.array(index[dropped])).to_pylist(),
                    order[dropped],
                    kept_order,
                    strict=True,
                )
            ),
        )
        index, query = index[keep], query[keep]
    return index, query


def _score_stats(query: np.ndarray, scores: np.ndarray, queries: int) -> dict:
    """The run's sidecar statistics: its size, and ties and inversions between adjacent
    original scores of a query (NaN: no score), ties also at float32 precision. An
    inversion is a rise at float32 precision, as trec_eval 9.x reads scores: a rise within
    a float32 tie (pytrec_eval's 1.0 before 1.00000001) is that tie, not also an inversion."""
    both = (query[1:] == query[:-1]) & ~np.isnan(scores[1:]) & ~np.isnan(scores[:-1])
    tied = both & (scores[1:] == scores[:-1])
    single = as_float32(scores)  # as trec_eval 9.x holds them
    return {
        "queries": queries,
        "documents": int(len(scores)),
        "tied_adjacent_scores": int(tied.sum()),
        "queries_with_ties": int(len(np.unique(query[1:][tied]))),
        "float32_only_ties": int((both & ~tied & (single[1:] == single[:-1])).sum()),
        "score_inversions": int((both & (single[1:] > single[:-1])).sum()),
    }


def _at(values, index: np.ndarray):
    """``values`` (a numpy or Arrow array) at ``index``: themselves, not a copy, when that
    is every row in order."""
    if len(index) == len(values) and (index[1:] > index[:-1]).all():
        return values
    return values.take(pa.array(index)) if isinstance(values, pa.Array) else values[index]


def _arrow(values: pd.Series) -> pa.Array:
    """A string column as one Arrow array (pandas may hold it in several chunks)."""
    array = pa.array(values)
    return array.combine_chunks() if isinstance(array, pa.ChunkedArray) else array


def _plain(value):
    """A JSON-friendly Python scalar."""
    return value.item() if isinstance(value, np.generic) else value


def _drop_duplicates(
    frame: pd.DataFrame, column: str, keep: str, report: Findings, reason: str, owner: dict
) -> pd.DataFrame:
    """One row per (qid, docno): the first, with ``column`` set to the group's ``keep``
    aggregate (``"max"``, ``"last"``). Each other value is reported under ``reason`` as
    ``owner`` plus its ids, its ``column`` value and the kept one (``kept_<column>``): the
    rows but the one the kept value is (the first at the maximum, or the last), so that
    grades 1 then 2 report the 1 dropped, not the 2 kept."""
    keys = ["qid", "docno"]
    repeated = frame.duplicated(keys, keep=False)
    if not repeated.any():
        return frame
    kept = frame.groupby(keys, sort=False)[column].transform(keep)
    if keep == "last":
        giver = ~frame.duplicated(keys, keep="last")
    else:  # the first row that holds its group's aggregate
        holds = frame[column].eq(kept)
        giver = holds & ~frame[keys].assign(holds=holds).duplicated()
    dropped = repeated & ~giver
    report.drop(
        reason,
        (
            {**owner, "qid": q, "docno": d, column: _plain(v), f"kept_{column}": _plain(k)}
            for q, d, v, k in zip(
                frame["qid"][dropped], frame["docno"][dropped], frame[column][dropped],
                kept[dropped], strict=True,
            )
        ),
    )  # fmt: skip
    return frame.assign(**{column: kept})[~frame.duplicated(keys, keep="first")]


# which of a judgment's grades is kept, as the reason for the others says it
_KEPT_GRADE = {
    "max": "the highest grade is kept",
    "last": "the last grade is kept, as BEIR's loader keeps it",
}


def duplicate_judgment(name: str, keep: str = "max") -> str:
    """The reason a duplicate judgment of the qrels ``name`` is reported under (the
    summary prints it, the sidecar counts it): the name escaped (:func:`escape_text`), as
    the summary's ``wrote PATH`` shows it, so that no line break of it splits the line;
    ``keep``: which grade is kept (:func:`make_qrels`)."""
    return f"duplicate judgment ({escape_text(name)}; {_KEPT_GRADE[keep]})"


def make_qrels(frame: pd.DataFrame, name: str, report: Findings, keep: str = "max") -> pd.DataFrame:
    """Qrels from ``qid``, ``docno``, ``rel`` rows (order of first appearance kept).

    Duplicate judgments keep the highest grade, or with ``keep="last"`` the last, as
    BEIR's loader does (``GenericDataLoader._load_qrels`` assigns each line's grade in
    turn: its qrels TSV converted scores what BEIR scores); each is reported (trec_eval
    would not complain, but ranx/ir_measures keep the last and trectools double counts).
    """
    frame = escape_ids(frame, ("qid", "docno"), report, {"qrels": name})
    frame = frame.assign(rel=frame["rel"].astype(np.int64))
    reason = duplicate_judgment(name, keep)
    frame = _drop_duplicates(frame, "rel", keep, report, reason, {"qrels": name})
    return frame[["qid", "docno", "rel"]].reset_index(drop=True)


def qrels_summary(
    qrels: pd.DataFrame,
    qids: Iterable[str],
    report: Findings,
    reason: str,
    *,
    pooled: bool = False,
    found_only: bool = False,
    **extra,
) -> dict:
    """Report the queries among ``qids`` (as in the input) without a relevant judgment:
    those absent from the qrels are dropped under ``reason`` (``without_relevant``), those
    judged non-relevant only are counted under :data:`JUDGED_NONE_RELEVANT`
    (``none_relevant``: in the qrels, they score 0 and count); and summarise the qrels
    for the sidecar.

    ``pooled`` qrels only judge retrieved documents (so they are not ``complete``);
    ``found_only`` ones know no relevant document but those found, and carry
    :data:`FOUND_ONLY_WARNING`.
    """
    relevant, judged = set(qrels.loc[qrels["rel"] > 0, "qid"]), set(qrels["qid"])
    asked = escaped(qids)
    empty = [q for q in asked if q not in judged]
    none_relevant = [q for q in asked if q in judged and q not in relevant]
    report.drop(reason, ({"qid": q} for q in empty))
    report.count(JUDGED_NONE_RELEVANT, len(none_relevant))
    info = {
        "complete": not pooled,
        "pooled": pooled,
        "found_only": found_only,
        "queries": int(qrels["qid"].nunique()),
        "relevant": int((qrels["rel"] > 0).sum()),
        "without_relevant": empty,
        "none_relevant": none_relevant,
        **extra,
    }
    if found_only:
        info["warning"] = FOUND_ONLY_WARNING
    return info
