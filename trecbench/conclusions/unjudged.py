"""Unjudged sensitivity: how much a run's score could move had its unjudged documents been
judged.

Per run and reported value (a measure's column): ``low`` is the value as trec_eval computes
it, unjudged documents counting as non-relevant; ``high`` the value with every unjudged
document the measure looks at judged relevant at the highest grade of the qrels. A column
with a cutoff ``k`` (``P_10``, ``ndcg_cut_10``, ``recip_rank_cut_10``...) looks at the run's
top ``k``; one without looks at every retrieved document (to ``-M``). So ``high`` equals
trec_eval on the qrels with those documents added, run by run (only for topics the qrels
judge: a topic without judgments stays out, as trec_eval leaves it out). ``unjudged`` is the
share of the documents the column looks at that are unjudged, over all topics.

``high`` is not always above ``low``: a measure whose ideal changes with the judgments
(nDCG's ideal DCG, R-precision's R) can fall when documents become relevant; the two are
the ends of the range either way.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

_CUTOFF = re.compile(r"_(\d+)$")


@dataclass(frozen=True)
class UnjudgedBound:
    """One run's column: its value (``low``), ``high``, and the ``unjudged`` share of the
    documents it looks at."""

    run: str
    measure: str
    low: float
    high: float
    unjudged: float

    def flips(self, other: UnjudgedBound) -> bool:
        """Whether the sign of ``self - other`` could change within both runs' ranges."""
        lows = sorted((self.low, self.high)), sorted((other.low, other.high))
        return not (lows[0][0] > lows[1][1] or lows[0][1] < lows[1][0])

    def to_json(self) -> dict:
        return {
            "run": self.run,
            "measure": self.measure,
            "value": self.low,
            "low": self.low,
            "high": self.high,
            "unjudged": self.unjudged,
        }


def column_depth(label: str) -> int | None:
    """The documents a column looks at: its cutoff (``ndcg_cut_10`` -> 10), or None for
    every retrieved document."""
    found = _CUTOFF.search(label)
    return int(found[1]) if found else None


def _judged_keys(qrels: pa.Table) -> pa.Table:
    return pa.table(
        {
            "qid": pc.cast(qrels.column("qid"), pa.large_string()),
            "docno": pc.cast(qrels.column("docno"), pa.large_string()),
            "judged": pa.array(np.ones(qrels.num_rows, bool)),
        }
    )


def _unjudged_rows(ranked: pa.Table, qrels: pa.Table) -> tuple[pa.Table, np.ndarray]:
    """The run's rows of judged topics (``qid, docno, rank``) and whether each is unjudged."""
    rows = pa.table(
        {
            "qid": pc.cast(ranked.column("qid"), pa.large_string()),
            "docno": pc.cast(ranked.column("docno"), pa.large_string()),
            "rank": ranked.column("rank"),
        }
    )
    topics = pc.unique(pc.cast(qrels.column("qid"), pa.large_string()))
    rows = rows.filter(pc.is_in(rows.column("qid"), value_set=topics))
    joined = rows.join(_judged_keys(qrels), keys=["qid", "docno"], use_threads=False)
    unjudged = pc.is_null(joined.column("judged")).to_numpy(zero_copy_only=False)
    return joined.select(["qid", "docno", "rank"]), unjudged


def _augmented(qrels: pa.Table, rows: pa.Table, unjudged: np.ndarray, depth, grade):
    """The qrels with the unjudged rows within ``depth`` added at ``grade``."""
    ranks = rows.column("rank").to_numpy()
    take = unjudged if depth is None else unjudged & (ranks <= depth)
    added = rows.filter(pa.array(take))
    extra = pa.table(
        {
            "qid": added.column("qid"),
            "docno": added.column("docno"),
            "rel": pa.array(np.full(added.num_rows, grade, np.int64)),
        }
    )
    base = pa.table(
        {
            "qid": pc.cast(qrels.column("qid"), pa.large_string()),
            "docno": pc.cast(qrels.column("docno"), pa.large_string()),
            "rel": pc.cast(qrels.column("rel"), pa.int64()),
        }
    )
    share = float(take.sum() / max(int(ranks.size if depth is None else (ranks <= depth).sum()), 1))
    return pa.concat_tables([base, extra]), share


def unjudged_bounds(
    qrels, runs, measures=None, *, names=None, topics=None, **options
) -> list[UnjudgedBound]:
    """:class:`UnjudgedBound` of every run and column (see the module docstring); ``runs``
    and ``measures`` as :func:`trecbench.evaluate` takes them, with its ``options``
    (``relevance_level``, ``max_docs``...). ``topics``: only these count, each for every
    run (a run without results for one scores 0 on it, trec_eval ``-c``), as in the
    comparison the bounds are set against (its ``queries``).

    >>> bounds = unjudged_bounds("qrels.txt", ["bm25.run"], ["nDCG@10"])  # doctest: +SKIP
    >>> bounds[0].low, bounds[0].high  # doctest: +SKIP
    """
    from .. import ranking
    from ..evaluation import evaluate
    from ..fusion import ranked_table
    from ..inputs import load_qrels, split_runs
    from ..naming import run_names

    judged = _kept(load_qrels(qrels).table, topics)
    if topics is not None:
        options = {**options, "complete": True}
    grade = int(pc.max(judged.column("rel")).as_py())
    sources, given = split_runs(runs)
    labels = run_names(sources, names if names is not None else given)
    bounds = []
    for label, source in zip(labels, sources, strict=True):
        table = _kept(ranked_table(source), topics)  # read once: scored as is and augmented
        low = evaluate(judged, {label: table}, measures, **options)
        ranked = ranking.truncate(table, low.settings.max_docs)
        rows, unjudged = _unjudged_rows(ranked, judged)
        depths = {column.display: column_depth(column.label) for column in low.columns}
        highs, shares = {}, {}
        for depth in dict.fromkeys(depths.values()):
            augmented, shares[depth] = _augmented(judged, rows, unjudged, depth, grade)
            highs[depth] = _means(evaluate(augmented, {label: table}, measures, **options))
        for measure, value in _means(low).items():
            depth = depths[measure]
            bounds.append(
                UnjudgedBound(label, measure, value, highs[depth][measure], shares[depth])
            )
    return bounds


def _kept(table: pa.Table, topics) -> pa.Table:
    """The rows of ``table`` whose qid is one of ``topics`` (None: every row)."""
    if topics is None:
        return table
    qid = pc.cast(table.column("qid"), pa.large_string())
    return table.filter(pc.is_in(qid, value_set=pa.array(list(topics), pa.large_string())))


def _means(evaluation) -> dict[str, float]:
    frame = evaluation.aggregates
    return {str(m): float(v) for m, v in zip(frame["measure"], frame["value"], strict=True)}


def render_bounds(bounds: list[UnjudgedBound], output_format: str) -> str:
    """``score --unjudged-bounds``' table after the scores: per run and measure the value,
    the high end and the unjudged share of what the measure looks at (the table, the
    Markdown and the CSV record of :mod:`trecbench.renderers.text_tables`; a run's name
    escaped as ``score`` escapes it, :func:`~trecbench.renderers.escaping.escaper`)."""
    from ..renderers.escaping import escaper
    from ..renderers.text_tables import aligned, csv_line, markdown_table

    header = ["run", "measure", "value (low)", "high", "unjudged"]
    name = escaper(output_format)
    rows = [
        [name(b.run), b.measure, f"{b.low:.4f}", f"{b.high:.4f}", f"{b.unjudged:.1%}"]
        for b in bounds
    ]
    if output_format == "markdown":
        return "\n".join(markdown_table(header, rows, {2, 3, 4})) + "\n"
    if output_format == "csv":
        return "".join(csv_line(row) for row in [header, *rows])
    title = "unjudged sensitivity (high: every unjudged document the measure looks at relevant)"
    return "\n".join([title, *aligned([header, *rows], set())]) + "\n"


def with_unjudged_bounds(comparison):
    """``comparison`` (a :class:`~trecbench.comparison.Comparison` of run files judged by one
    qrels file) with ``unjudged``: each run's :class:`UnjudgedBound` per measure and, for
    each run against the baseline, whether the difference's sign could flip within the two
    runs' ranges. ``compare --unjudged-bounds``."""
    import dataclasses

    from ..errors import UsageError
    from ..inputs.streams import rereadable

    if not rereadable([path for path in (comparison.run_inputs or {}).values() if path]):
        raise UsageError(
            "--unjudged-bounds reads the runs' files again: standard input or a pipe cannot "
            "be read twice; save the run to a file"
        )
    files = comparison.scored_files()
    if files is None:
        raise UsageError("--unjudged-bounds reads the runs' files again: give files and one qrels")
    runs, qrels = files
    options = {k: v for k, v in (comparison.evaluation or {}).items()
               if k in ("relevance_level", "max_docs", "judged_only")}  # fmt: skip
    # the comparison's topics, each counting for every run: its means are the lows
    bounds = unjudged_bounds(qrels, runs, comparison.measures, topics=comparison.queries, **options)
    return dataclasses.replace(comparison, unjudged_sensitivity=UnjudgedSensitivity(
        comparison.baseline, bounds))  # fmt: skip


@dataclass(frozen=True)
class UnjudgedSensitivity:
    """Every run's bounds, and which differences against ``baseline`` could flip."""

    baseline: str
    bounds: list[UnjudgedBound]

    def flips(self) -> list[tuple[str, str, bool]]:
        """``(run, measure, could the sign of run - baseline flip)`` for each other run."""
        base = {b.measure: b for b in self.bounds if b.run == self.baseline}
        return [
            (b.run, b.measure, b.flips(base[b.measure]))
            for b in self.bounds
            if b.run != self.baseline and b.measure in base
        ]

    def to_json(self) -> dict:
        flips = {(run, measure): flip for run, measure, flip in self.flips()}
        return {
            "baseline": self.baseline,
            "rows": [
                b.to_json() | {"could_flip": flips.get((b.run, b.measure))} for b in self.bounds
            ],
        }

    def render(self, fmt: str) -> str:
        """The bounds table, then each difference whose sign could flip (the runs' names
        escaped as in the table)."""
        from ..renderers.escaping import escaper

        text, name = render_bounds(self.bounds, fmt), escaper(fmt)
        flipping = [
            f"{name(run)} vs {name(self.baseline)}, {measure}"
            for run, measure, flips in self.flips()
            if flips
        ]
        said = ", ".join(flipping) if flipping else "none"
        return text + f"differences whose sign could flip within the ranges: {said}\n"
