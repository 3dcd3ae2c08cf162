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

from dataclasses import dataclass


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


def unjudged_bounds(
    qrels, runs, measures=None, *, names=None, topics=None, **options
) -> list[UnjudgedBound]:
    """:class:`UnjudgedBound` of every run and column (see the module docstring); ``runs``
    and ``measures`` as :func:`trecbench.evaluate` takes them, with its ``options``
    (``relevance_level``, ``max_docs``...). Each run is read once: its bounds are kept as
    it is scored (``evaluate(..., unjudged_bounds=True)``), so a pipe serves as well as a
    file. ``topics``: only these count, each for every run (a run without results for
    one scores 0 on it, trec_eval ``-c``), as in the comparison the bounds are set
    against (its ``queries``).

    >>> bounds = unjudged_bounds("qrels.txt", ["bm25.run"], ["nDCG@10"])  # doctest: +SKIP
    >>> bounds[0].low, bounds[0].high  # doctest: +SKIP
    """
    from ..evaluation import evaluate

    evaluation = evaluate(qrels, runs, measures, names=names, unjudged_bounds=True, **options)
    return evaluation_bounds(evaluation, topics)


def evaluation_bounds(evaluation, topics=None) -> list[UnjudgedBound]:
    """The bounds an :class:`~trecbench.evaluation.Evaluation` kept as it scored its runs
    (``evaluate(..., unjudged_bounds=True)``): over each run's topics, its values as the
    evaluation summarised them (score's), or over ``topics`` as :func:`unjudged_bounds`
    says."""
    from ..errors import UsageError
    from ..evaluation.assembly import bound_rows

    if any(run.unjudged_high is None for run in evaluation.runs):
        raise UsageError("unjudged bounds were not kept: evaluate(..., unjudged_bounds=True)")
    return [UnjudgedBound(*row) for row in bound_rows(evaluation, topics)]


def render_bounds(bounds: list[UnjudgedBound], output_format: str, asked=None) -> str:
    """``score --unjudged-bounds``' table after the scores: per run and measure the value,
    the high end and the unjudged share of what the measure looks at (the table and the
    Markdown of :mod:`trecbench.renderers.text_tables`; in CSV rows of score's tidy table,
    ``<measure>:unjudged_high`` and ``:unjudged_share``, under each name ``asked`` gives
    the measure, display name -> names; a run's name escaped as ``score`` escapes it,
    :func:`~trecbench.renderers.escaping.escaper`)."""
    from ..renderers.escaping import escaper
    from ..renderers.text_tables import aligned, csv_line, markdown_table

    if output_format == "csv":
        named = asked or {}
        return "".join(
            csv_line([b.run, "all", f"{name}:{side}", f"{b.measure}:{side}", value])
            for b in bounds
            for name in named.get(b.measure, [b.measure])
            for side, value in (("unjudged_high", b.high), ("unjudged_share", b.unjudged))
        )
    header = ["run", "measure", "value (low)", "high", "unjudged"]
    name = escaper(output_format)
    rows = [
        [name(b.run), b.measure, f"{b.low:.4f}", f"{b.high:.4f}", f"{b.unjudged:.1%}"]
        for b in bounds
    ]
    if output_format == "markdown":
        return "\n".join(markdown_table(header, rows, {2, 3, 4})) + "\n"
    title = "unjudged sensitivity (high: every unjudged document the measure looks at relevant)"
    return "\n".join([title, *aligned([header, *rows], set())]) + "\n"


def with_unjudged_bounds(comparison):
    """``comparison`` (a :class:`~trecbench.comparison.Comparison` whose runs were scored
    with ``unjudged_bounds=True``) with ``unjudged``: each run's :class:`UnjudgedBound` per
    measure over the compared topics and, for each run against the baseline, whether the
    difference's sign could flip within the two runs' ranges. ``compare
    --unjudged-bounds``."""
    import dataclasses

    from ..errors import UsageError

    if comparison.unjudged_values is None:
        raise UsageError(
            "the unjudged bounds are kept as the runs are scored: compare(..., "
            "unjudged_bounds=True)"
        )
    bounds = [UnjudgedBound(*values) for values in comparison.unjudged_values]
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
