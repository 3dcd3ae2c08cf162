"""Tie bounds as text: ``trecbench score --tie-bounds`` in each of ``score``'s formats and
its JSON entry (the bounds themselves are :mod:`trecbench.tiebounds`')."""

from __future__ import annotations

from ..escaping import escaper
from ..tiebounds import position
from .text_tables import aligned, csv_line, markdown_table, table_value, trec_label

TITLE = (
    "tie bounds: lowest and highest value over every order of tied documents; the reported "
    "order is trec_eval's (ties by docno descending)"
)


def _rows(evaluation, names: str, every: bool = False) -> list[list]:
    """A row per run and measure, ``every``: one per name the scores are shown under (two
    spellings asked: both, as the table's columns above)."""
    labels = {
        c.display: [evaluation.shown(n) for n in (c.names(names) if every else [c.name(names)])]
        for c in evaluation.columns
    }
    rows = []
    for row in evaluation.tie_bounds_values.itertuples(index=False):
        bounded = isinstance(row.position, str)
        rows.extend(
            [
                row.run,
                name,
                row.value,
                row.low,
                row.high,
                row.position if bounded else "not bounded",
                row.tied_topics,
                "" if bounded else row.reason,
            ]
            for name in labels[row.measure]
        )
    return rows


def _trec_number(value: float) -> str:
    """A bound as trec_eval prints an average: an undefined one (a topic's value undefined
    in every order) as its ``-nan``, as the measure's own line above prints it."""
    return f"{'-nan':>6}" if value != value else f"{value:6.4f}"


def render(evaluation, output_format: str, names: str = "display") -> str:
    """The bounds of an evaluation made with ``tie_bounds=True`` in one of ``score``'s text
    formats: ``trec`` (lines ``<measure>:tie_low`` and ``<measure>:tie_high`` per run, as
    trec_eval prints a summary), ``csv`` (those two as rows of score's tidy table, topic
    ``all``), ``markdown`` or an aligned ``table``; a run's name escaped as
    the scores above escape it (:func:`~trecbench.escaping.escaper`)."""
    rows = _rows(evaluation, names, every=output_format in ("table", "markdown"))
    name = escaper(output_format)
    if output_format == "trec":
        lines = []
        for run in dict.fromkeys(row[0] for row in rows):
            if len(evaluation.runs) > 1:
                lines.append(f"# {name(run)}: {TITLE}")
            for _, measure, _, low, high, *_, reason in (row for row in rows if row[0] == run):
                if not reason:  # bounded; undefined bounds (nan) print as the value's -nan
                    lines += [
                        f"{trec_label(measure + ':tie_low')}\tall\t{_trec_number(low)}",
                        f"{trec_label(measure + ':tie_high')}\tall\t{_trec_number(high)}",
                    ]
        return "".join(line + "\n" for line in lines)
    if output_format == "csv":  # rows of score's tidy table, as trec text's lines
        shown = {  # every name the scores above are shown under (two spellings: both)
            c.display: [evaluation.shown(n) for n in c.names(names)] for c in evaluation.columns
        }
        lines = [
            [row.run, "all", f"{name}:{side}", f"{row.measure}:{side}", value]
            for row in evaluation.tie_bounds_values.itertuples(index=False)
            if isinstance(row.position, str)  # bounded
            for name in shown[row.measure]
            for side, value in (("tie_low", row.low), ("tie_high", row.high))
        ]
        for line in lines:  # an undefined bound empty, as score's undefined all row
            line[-1] = None if line[-1] != line[-1] else line[-1]
        return "".join(csv_line(line) for line in lines)
    header = ["run", "measure", "value", "lowest", "highest", "reported order", "tied topics"]
    # an undefined value or bound as the scores' table prints it (-nan); a bound that is
    # not taken (not bounded) as n/a: there is no figure, not trec_eval's NaN
    cells = [
        [name(run), measure, table_value(v)]
        + (["n/a"] * 2 if reason else [table_value(lo), table_value(hi)])
        + [where, str(t)]
        for run, measure, v, lo, hi, where, t, reason in rows
    ]
    notes = [f"not bounded: {reason}" for reason in unbounded(evaluation, names)]
    right = {2, 3, 4, 6}
    if output_format == "markdown":
        lines = [f"**{TITLE}**", "", *markdown_table(header, cells, right)]
        # a list item each: lines one under the other would join into one paragraph
        lines += ["", *(f"- {note}" for note in notes)] if notes else []
    else:
        lines = [TITLE, *aligned([header, *cells], right), *notes]
    return "\n".join(lines) + "\n"


def unbounded(evaluation, names: str = "display") -> list[str]:
    """``"<measure>: <reason>"`` of each measure without bounds (once, in order): the
    table's notes, and what ``score`` warns of where trec text and CSV leave them out."""
    return sorted({f"{row[1]}: {row[7]}" for row in _rows(evaluation, names) if row[7]})


def json_entry(run, evaluation, names: str = "display") -> dict:
    """One run's bounds for ``score --format json``: ``{"tied_topics": n, "measures":
    {name: {"low", "high", "position"} or {"reason"}}}``, under each name the aggregates
    give the measure (two spellings asked: both, as CSV's rows)."""
    measures = {}
    bounds = run.tie_bounds
    for column, shown in evaluation.labelled(names):
        value = run.summary.get(column.label)
        if value is None or isinstance(value, str):
            continue
        name = evaluation.shown(shown)
        if column.label in bounds.unbounded:
            measures[name] = {"reason": bounds.unbounded[column.label]}
            continue
        low, high = bounds.summary_low[column.label], bounds.summary_high[column.label]
        measures[name] = {"low": low, "high": high, "position": position(float(value), low, high)}
    return {"tied_topics": bounds.tied_topics, "measures": measures}
