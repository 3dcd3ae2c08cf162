"""What ``trecbench score`` prints, from its results: the evaluation in one of its formats
(:mod:`.trec_format`), then the grouped means (:mod:`.strata`) and the tie bounds
(:mod:`.tiebounds`) when asked for. :class:`ScoreView` holds how: the output settings of
the command, typed and built once."""

from __future__ import annotations

from dataclasses import dataclass

from . import trec_format

# the formats of one row of means per run: no topic's line (-q) to add, no summary (-n) to
# leave out
MEANS_ONLY = ("table", "markdown")


@dataclass(frozen=True)
class ScoreView:
    """How ``score`` shows an evaluation: ``output_format`` (``trec``, ``table``,
    ``markdown``, ``csv`` or ``json``), measure ``labels`` (``trec``, ``display`` or
    ``asked``; None: ``trec`` for trec_eval's text, ``asked`` otherwise), each topic
    too (``per_query``: ``-q``), the summary (``summary``: not ``-n``) and the tie bounds
    (``tie_bounds``)."""

    output_format: str = "trec"
    labels: str | None = None
    per_query: bool = False
    summary: bool = True
    tie_bounds: bool = False

    def __post_init__(self) -> None:
        if self.output_format in MEANS_ONLY and (self.per_query or not self.summary):
            from ..errors import UsageError

            given = "-q" if self.per_query else "-n"  # taken, and no line to take them from
            raise UsageError(
                f"{given} chooses trec_eval's lines, and --format {self.output_format} shows "
                "one row of means per run: give --format trec or csv (json holds both)"
            )
        if self.labels is None:
            chosen = "trec" if self.output_format == "trec" else "asked"
            object.__setattr__(self, "labels", chosen)

    @property
    def separator(self) -> str:
        """What stands between the evaluation and each part after it (none in CSV)."""
        return "" if self.output_format == "csv" else "\n"

    def joined(self, text: str, part: str) -> str:
        """``part`` after ``text``, :attr:`separator` between them: none after no text
        (``-n`` with ``-q`` absent prints no line: the part came after an empty one)."""
        return text + self.separator + part if text else part


def render_score(evaluation, view: ScoreView, grouped: dict | None = None) -> str:
    """The evaluation as ``view`` says, then (except in JSON, whose document holds them)
    its grouped means (``grouped``: field -> :func:`trecbench.strata.evaluation_groups`)
    and its tie bounds, each after :attr:`ScoreView.separator` (:meth:`ScoreView.joined`)."""
    fmt, names = view.output_format, view.labels
    labels = {c.display: [evaluation.shown(n) for n in c.names(names)] for c in evaluation.columns}
    if fmt == "json":
        groups = groups_json(grouped, labels)
        return trec_format.render_json(evaluation, names=names, groups=groups)
    if fmt == "trec":
        text = trec_format.render_trec(
            evaluation, per_query=view.per_query, summary=view.summary, names=names
        )
    elif fmt == "csv":
        text = trec_format.render_csv(
            evaluation, per_query=view.per_query, summary=view.summary, names=names
        )
    elif fmt == "markdown":
        text = trec_format.render_markdown(evaluation, names=names)
    else:
        text = trec_format.render_table(evaluation, names=names)
    if grouped:
        from .strata import render_groups

        text = view.joined(text, render_groups(grouped, fmt, labels))
    if view.tie_bounds:
        from .tiebounds import render

        text = view.joined(text, render(evaluation, fmt, names))
    return text


def groups_json(grouped: dict | None, names: dict[str, list[str]] | None = None) -> dict | None:
    """The grouped means' JSON document (None without groups); ``names``: as
    :func:`trecbench.renderers.strata.groups_document` takes them."""
    if not grouped:
        return None
    from .strata import groups_document

    return groups_document(grouped, names)


def topics_read_as_rows(evaluation, per_query: bool, grouped: dict | None = None) -> list[str]:
    """Warnings of topics whose ``-q`` lines read as the output's own rows, their ids
    printed as trec_eval prints them: one named ``all`` as the summary's, one named as a
    group's row (``grouped``: :func:`~trecbench.renderers.strata.topics_read_as_groups`)."""
    if not per_query:
        return []
    said = []
    if any("all" in run.qids for run in evaluation.runs):
        said.append(
            "a topic is named 'all': with -q its lines read as the summary's (trec_eval's "
            "text and the CSV's qid column alike); rename it to tell them apart"
        )
    if grouped:
        from .strata import topics_read_as_groups

        said += topics_read_as_groups(evaluation, grouped)
    return said
