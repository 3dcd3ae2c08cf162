"""The routing metrics of :func:`trecbench.routing.routing_metrics` as a small table:
aligned or Markdown, as ``trecbench score --routing`` prints it beside the scores' table;
the benchmark shows it under its own heading, in its Markdown and on its page
(:mod:`trecbench.renderers.blocks`)."""

from __future__ import annotations

from ..number_text import below_one_text
from ..plurals import counted, exact_percent, share_percent
from .blocks import Column, Table, cell, markdown
from .text_tables import aligned

# why a rate over one query has no interval (trecbench.routing: every resample is it)
ONE_QUERY = "fewer than 2 queries"
# why a rate has no value: routing accuracy is over the queries that have an optimal
# expert (gate efficiency is over every query of the log, and an empty log is refused)
NO_OPTIMAL = "no query has an optimal expert"


def render_routing(metrics: dict, output_format: str = "markdown") -> str:
    """The routing metrics as a small table: Markdown, or aligned columns for
    ``output_format`` ``"table"`` (as score's table of scores above it)."""
    header, rows = _routing_rows(metrics)
    if output_format == "table":
        return "\n".join(aligned([header, *(list(row) for row in rows)], set())) + "\n"
    return markdown([routing_table(metrics)]) + "\n"


def routing_table(metrics: dict) -> Table:
    """The routing metrics as a table: each metric's value with its interval, the gate's
    decisions."""
    header, rows = _routing_rows(metrics)
    columns = tuple(Column(name) for name in header)
    return Table(columns, tuple((cell(name), cell(text)) for name, text in rows), sortable=False)


def _routing_rows(metrics: dict) -> tuple[list[str], list[tuple[str, str]]]:
    """The routing table's header and rows of text."""
    level = exact_percent(metrics["settings"]["confidence"])

    def value(rate: dict, unit: str) -> str:
        if rate["value"] is None:  # no query to take the rate over
            return f"n/a over 0 queries ({NO_OPTIMAL})"
        # a percentage reads 0.0% or 100.0% only where it is (1 query saved of 2,001 read
        # 0.0%): as the unjudged table's shares, share_percent
        # and an accuracy 0.0000 or 1.0000 only where it is (30,000 right of 30,001)
        shown = (lambda v: share_percent(v / 100)) if unit == "%" else below_one_text
        over = counted(rate["queries"], "query", "queries")
        if rate["ci_low"] is None:
            return f"{shown(rate['value'])} over {over} (interval n/a: {ONE_QUERY})"
        return (
            f"{shown(rate['value'])} [{shown(rate['ci_low'])}, {shown(rate['ci_high'])}] "
            f"over {over}"
        )

    gate = metrics["gate"]
    decisions = (
        f"{gate['saved']} saved, {gate['missed']} missed (skipped but needed), "
        f"{gate['unneeded']} unneeded (ran but not needed)"
    )
    rows = [
        ("Routing accuracy", value(metrics["routing_accuracy"], "")),
        ("Gate efficiency", value(metrics["gate_efficiency"], "%")),
        ("Gate decisions", decisions),
    ]
    return ["Routing metric", f"Value [{level} CI]"], rows


def resampling_note(metrics: dict) -> str:
    """How the routing table's intervals were drawn, a line for under the table where
    nothing beside it says (``score --routing`` has no ``--samples``: it draws a fixed
    10,000 resamples, from ``--seed``, 0 by default; ``--report`` records them too)."""
    settings = metrics["settings"]
    return (
        f"Intervals: {settings['interval']} over queries, {settings['samples']:,} resamples, "
        f"seed {settings['seed']}\n"
    )
