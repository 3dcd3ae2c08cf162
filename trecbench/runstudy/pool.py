"""Judgment pools from runs, as TREC builds them, and the pool's bias.

The depth-``k`` pool of a topic is the union of every run's top ``k`` documents in
trecbench's ranking (score descending at float32, docno descending). With qrels, the pool
file leaves out the documents already judged, and each run is told how many relevant
documents (grade at least the relevance level) it alone retrieved within the depth: the
documents the qrels would lose if the run had not been pooled (leave-one-run-out, Zobel,
"How reliable are the results of large-scale information retrieval experiments?",
SIGIR 1998).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .. import arrow
from ..errors import UsageError
from ..files import check_text_ids
from . import ranked as ranked_runs


@dataclass(frozen=True)
class PoolSettings:
    """``depth``: documents of each run pooled per topic; ``relevance_level``: the grade
    from which a judged document counts as relevant (trec_eval's ``-l``)."""

    depth: int = 100
    relevance_level: int = 1

    def __post_init__(self):
        ranked_runs.check_count("pool depth", self.depth)
        ranked_runs.check_count("pool relevance level", self.relevance_level)


@dataclass(frozen=True)
class RunContribution:
    """What one run brought to the pool: ``pooled`` documents (its top ``depth``, summed
    over topics), ``unique`` of them no other run pooled, and with qrels ``judged`` of them
    already judged and ``relevant_only`` relevant documents only it retrieved."""

    run: str
    pooled: int
    unique: int
    judged: int | None = None
    relevant_only: int | None = None


@dataclass(frozen=True)
class Pool:
    """The documents to judge (``qid``, ``docno``; judged ones left out when qrels were
    given), sorted by qid then docno byte-wise, and each run's contribution."""

    settings: PoolSettings
    qid: list[str]
    docno: list[str]
    contributions: list[RunContribution]
    with_qrels: bool

    def to_text(self, grade: str | None = None) -> str:
        """The pool as qrels-shaped lines ``qid 0 docno`` (`` grade`` appended when given)."""
        if grade is not None:
            _check_grade(grade)
        check_text_ids({"qid": self.qid, "docno": self.docno}, "a pool file")
        end = f" {grade}\n" if grade is not None else "\n"
        return "".join(f"{q} 0 {d}{end}" for q, d in zip(self.qid, self.docno, strict=True))

    def to_json(self) -> dict:
        """The summary of ``pool --format json`` (the documents are in the pool file)."""
        runs = []
        for c in self.contributions:
            row = {"run": c.run, "pooled": c.pooled, "unique": c.unique}
            if self.with_qrels:
                row |= {"judged": c.judged, "relevant_only": c.relevant_only}
            runs.append(row)
        return {
            "settings": {
                "depth": self.settings.depth,
                "relevance_level": self.settings.relevance_level,
            },
            "documents": len(self.qid),
            "topics": len(set(self.qid)),
            "runs": runs,
        }


def _check_grade(grade: str) -> None:
    """Refuse a grade the pool file could not be read back with: trecbench's qrels reader
    takes an ASCII integer within +-MAX_GRADE."""
    from ..inputs.trec_text import MAX_GRADE, parse_grades

    parsed = parse_grades(pa.array([str(grade)], pa.string()))
    if not parsed.integer[0] or parsed.huge[0]:
        raise UsageError(
            f"--unjudged-grade must be an integer within +-{MAX_GRADE:,}, as qrels grades "
            f"are, not {grade!r}"
        )


def _judgments(qrels) -> pa.Table:
    """The qrels' table, refusing a document judged twice for a topic (as trec_eval does:
    which of its grades would count is not said)."""
    from ..errors import DuplicateError
    from ..inputs import load_qrels

    loaded = load_qrels(qrels)
    table = loaded.table
    if table.num_rows == 0:  # as score refuses it: nothing judged is not a judgment
        from ..errors import InputError

        raise InputError(loaded.origin, None, "error[R26]: empty file", "R26")
    groups = arrow.Groups(arrow.row_keys(table.column("qid"), table.column("docno")))
    twice = np.flatnonzero(groups.counts > 1)
    if len(twice):
        rows = groups.order[groups.starts[twice[0]] : groups.starts[twice[0]] + 2]
        first, second = (int(table.column("line")[int(row)].as_py()) for row in rows)
        qid, docno = (table.column(name)[int(rows[0])].as_py() for name in ("qid", "docno"))
        message = f"duplicate docs {docno} for topic {qid} (first on line {first})"
        raise DuplicateError(loaded.origin, second, message, "Q5")
    return table


def pool(runs, *, depth: int = 100, qrels=None, relevance_level: int = 1, names=None) -> Pool:
    """The depth-``depth`` pool of ``runs`` (paths, DataFrames, Arrow tables, dicts);
    with ``qrels``, the judged documents are left out and the pool bias is counted.

    >>> result = pool(["a.run", "b.run"], depth=10)  # doctest: +SKIP
    >>> print(result.to_text(), end="")  # doctest: +SKIP
    """
    from ..inputs import split_runs
    from ..naming import run_names

    settings = PoolSettings(depth, relevance_level)
    sources, given = split_runs(runs)
    if not sources:
        raise UsageError("nothing to pool: no run given")
    labels = run_names(sources, names if names is not None else given)
    tables = [ranked_runs.load_kept(source, settings.depth) for source in sources]
    pooled = _pooled_rows(tables)
    judged = _judgments(qrels) if qrels is not None else None
    grades = _grades(pooled, judged)
    contributions = _contributions(pooled, grades, labels, settings.relevance_level, judged)
    first = pooled["first"]
    keep = first if judged is None else first & np.isnan(grades)
    order = np.flatnonzero(keep)
    qid, docno = pooled["qid"].take(order), pooled["docno"].take(order)
    sort = pc.sort_indices(
        pa.table({"q": pc.cast(qid, pa.large_binary()), "d": pc.cast(docno, pa.large_binary())}),
        sort_keys=[("q", "ascending"), ("d", "ascending")],
    )
    return Pool(
        settings,
        qid.take(sort).to_pylist(),
        docno.take(sort).to_pylist(),
        contributions,
        judged is not None,
    )


# rows dictionary-encoded at a time: a hash table of a few topics' documents stays in
# cache (2-3 times faster than one table of every document of every topic)
SLICE = 1 << 16


def _pooled_rows(tables: list[pa.Table]) -> dict:
    """Every run's pooled rows at once: ``qid``, ``docno``, the ``run`` index, how many
    runs pooled each row's (topic, document) pair and whether the row is that pair's
    ``first`` (in the runs' order)."""
    qid, docno = _column(tables, "qid"), _column(tables, "docno")
    run = np.repeat(np.arange(len(tables), dtype=np.int32), [t.num_rows for t in tables])
    topic = arrow.to_numpy(pc.dictionary_encode(qid).indices)
    topic_ends = np.cumsum(np.bincount(topic))
    # every run's rows of a topic together, in the runs' order (a stable sort: a radix
    # sort on 16-bit codes)
    by_topic = np.argsort(topic.astype(np.uint16) if len(topic_ends) <= 1 << 16 else topic,
                          kind="stable")  # fmt: skip
    # pairs numbered in order of first appearance, slice by slice of whole topics
    near = topic_ends[np.searchsorted(topic_ends, np.arange(SLICE, len(run), SLICE))]
    cuts = np.unique(np.r_[near, len(run)])
    runs_per_pair = np.empty(len(run), np.int64)
    first = np.zeros(len(run), bool)
    for start, stop in zip(np.r_[0, cuts[:-1]], cuts, strict=True):
        rows = by_topic[start:stop]
        document = arrow.to_numpy(pc.dictionary_encode(docno.take(arrow.array(rows))).indices)
        local = topic[rows].astype(np.int64)  # the slice's topics: a range of codes
        local -= local.min(initial=0)
        keys = document * (int(local.max(initial=0)) + 1) + local
        pair = arrow.to_numpy(pc.dictionary_encode(arrow.array(keys)).indices)
        runs_per_pair[rows] = np.bincount(pair)[pair]
        # a row is its pair's first when its number is higher than every one before it
        seen = np.maximum.accumulate(pair)
        first[rows] = np.r_[True, seen[1:] > seen[:-1]] if len(rows) else []
    return {"qid": qid, "docno": docno, "run": run, "runs": runs_per_pair, "first": first}


def _column(tables: list[pa.Table], name: str) -> pa.Array:
    """Every table's column ``name`` as one large_string array, copied once."""
    chunks = [chunk for t in tables for chunk in pc.cast(t.column(name), pa.large_string()).chunks]
    return pa.chunked_array(chunks, pa.large_string()).combine_chunks()


def _grades(pooled: dict, qrels: pa.Table | None) -> np.ndarray | None:
    """The qrels grade of every pooled row (NaN: not judged); None without qrels."""
    if qrels is None:
        return None
    rows = pa.table({"qid": pooled["qid"], "docno": pooled["docno"]})
    judged = pa.table(
        {
            "qid": pc.cast(qrels.column("qid"), pa.large_string()),
            "docno": pc.cast(qrels.column("docno"), pa.large_string()),
            "grade": pc.cast(qrels.column("rel"), pa.float64()),
        }
    )
    rows = rows.append_column("row", pa.array(np.arange(rows.num_rows)))
    joined = rows.join(judged, keys=["qid", "docno"], join_type="inner", use_threads=False)
    grades = np.full(rows.num_rows, np.nan)
    grades[arrow.to_numpy(joined.column("row"))] = arrow.to_numpy(joined.column("grade"))
    return grades


def _contributions(pooled: dict, grades, labels: list[str], level: int, qrels) -> list:
    run, alone = pooled["run"], pooled["runs"] == 1
    n = len(labels)
    if grades is None:  # nothing judged: no 20M-row array of NaN grades to test
        judged = relevant = np.zeros(len(run), bool)
    else:
        judged = ~np.isnan(grades)
        relevant = judged & (np.nan_to_num(grades, nan=-np.inf) >= level)
    counts = {
        "pooled": np.bincount(run, minlength=n),
        "unique": np.bincount(run[alone], minlength=n),
        "judged": np.bincount(run[judged], minlength=n),
        "relevant_only": np.bincount(run[relevant & alone], minlength=n),
    }
    with_qrels = qrels is not None
    return [
        RunContribution(
            label,
            int(counts["pooled"][i]),
            int(counts["unique"][i]),
            int(counts["judged"][i]) if with_qrels else None,
            int(counts["relevant_only"][i]) if with_qrels else None,
        )
        for i, label in enumerate(labels)
    ]
