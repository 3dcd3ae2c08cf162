"""Rendering an :class:`~trecbench.evaluation.Evaluation`: trec_eval's text, byte for byte,
and the friendly formats (aligned table, Markdown, CSV, JSON).

trec_eval prints ``printf("%-22s\\t%s\\t%6.4f\\n", name, qid, value)``; counts (``num_*``)
as integers, ``runid`` and ``relstring`` as strings; with ``-q`` every evaluated topic
(byte-wise order) with all its per-topic measures, then the ``all`` lines. Python's ``%``
formatting rounds exactly like C's ``printf``.
"""

from __future__ import annotations

import math

from ..errors import OutputError
from ..escaping import escape_text, markdown_text, table_text
from ..measures import COUNTS, RUNID, STRING
from .text_tables import aligned, csv_line, markdown_table, table_value, trec_label

NAMES = ("trec", "display", "asked")


# the characters trec_eval's reader ends a field at (C isspace) or a C string at (NUL):
# no id or tag read from a TREC file holds one
_NOT_IN_A_FIELD = frozenset(" \t\n\v\f\r\0")


def _field(text, what: str) -> str:
    """An id or run tag in trec_eval's text: as it is, byte for byte as trec_eval prints
    it (``%``, controls, invisible and non-ASCII characters included). One no TREC file
    can hold (empty, or holding a blank or NUL: only a table or a dict can) is refused:
    escaped, it would print as the id spelled as its escaping prints; as it is, it would
    break the line."""
    text = str(text)
    if text and _NOT_IN_A_FIELD.isdisjoint(text):
        return text
    shown = f"{text[:40]!r}{'...' if len(text) > 40 else ''}"
    raise OutputError(
        f"trec_eval's text cannot hold the {what} {shown} (empty, or with a blank or NUL, "
        "where trec_eval's fields end): use --format csv or json"
    )


def _number(column, value, zscores: bool = False) -> str:
    if column.summary in COUNTS and not zscores:
        return str(int(value))
    if math.isnan(value):
        # glibc's printf shows a NaN's sign bit; trec_eval's 0/0 NaNs print as "-nan"
        return f"{'-nan' if math.copysign(1.0, value) < 0 else 'nan':>6}"
    return f"{value:6.4f}"


def trec_text(evaluation, run, *, per_query: bool = False, summary: bool = True, names="trec"):
    """One run's block exactly as trec_eval prints it (``-q``: ``per_query``; ``-n``:
    ``summary=False``). With ``-Z`` every number is a z-score, printed after a ``Z``
    with four decimals; with ``-D`` what each topic printed while computed precedes its
    lines. A run trec_eval stopped in (exit 4) prints what it printed before stopping."""
    lines = []
    columns = evaluation.columns
    z = bool(evaluation.settings.zscores)
    prefix = evaluation.shown("")  # trec_eval prints "Z%-22s"
    # one line a measure, as trec_eval prints: each name padded once, not on every line
    labels = [trec_label(_printed(column, names)) for column in columns]
    traces = run.traces or [""] * len(run.qids)
    for index, qid in enumerate(run.qids):
        if traces[index]:
            lines.append(traces[index])
        if not per_query:
            continue
        qid = _field(qid, "qid")
        for column, label in zip(columns, labels, strict=True):
            if column.summary == STRING:
                text = run.strings[column.label][index]
                lines.append(f"{label}\t{qid}\t'{text}'\n")
            elif column.per_query:
                value = run.values[column.label][index]
                lines.append(f"{prefix}{label}\t{qid}\t{_number(column, value, z)}\n")
    if not run.complete:
        return "".join(lines) + run.trailing
    if summary:
        for column, label in zip(columns, labels, strict=True):
            if column.summary == RUNID:
                lines.append(f"{label}\tall\t{_field(run.runid, 'run tag')}\n")
            elif column.summary != STRING:
                value = run.summary[column.label]
                lines.append(f"{prefix}{label}\tall\t{_number(column, value, z)}\n")
    return "".join(lines)


def _printed(column, names: str) -> str:
    """A column's name on a line of trec text: trec_eval's own under ``trec``
    (``iprec_at_recall_0.30`` for the levels 0.3 and 0.3015 alike), else :meth:`name`'s."""
    return column.trec_label if names == "trec" else column.name(names)


def render_trec(evaluation, *, per_query=False, summary=True, names="trec") -> str:
    """All runs in trec_eval format; with several runs each block starts ``# <run>``."""
    labelled = len(evaluation.runs) > 1
    return "".join(
        (f"# {escape_text(run.name)}\n" if labelled else "")
        + trec_text(evaluation, run, per_query=per_query, summary=summary, names=names)
        for run in evaluation.runs
    )


def _summary_columns(evaluation, names: str) -> list[tuple]:
    """``(column, name)`` of each summarised value under each name it is shown by
    (:meth:`~trecbench.evaluation.Evaluation.labelled`: ``-m ndcg_cut.10 -m nDCG@10`` is
    one value shown twice; :meth:`~trecbench.evaluation.Evaluation.shown`)."""
    return [
        (c, evaluation.shown(name))
        for c, name in evaluation.labelled(names)
        if c.summary not in (RUNID, STRING)
    ]


def _per_query_columns(evaluation, names: str) -> list[tuple]:
    """``(column, name)`` of each per-topic value under each name it is shown by, text
    (``relstring``) included."""
    return [
        (c, name if c.summary == STRING else evaluation.shown(name))
        for c, name in evaluation.labelled(names)
        if c.per_query or c.summary == STRING
    ]


def _topic_value(evaluation, run, column, index: int):
    """A run's value of ``column`` on its ``index``-th topic, for machine formats."""
    if column.summary == STRING:
        return run.strings[column.label][index]
    return _plain(evaluation, column, run.values[column.label][index])


def _table_rows(evaluation, names: str, shown=table_text) -> tuple[list[str], list[list[str]]]:
    columns = _summary_columns(evaluation, names)
    header = ["run", "topics"] + [name for _, name in columns]
    z = bool(evaluation.settings.zscores)
    rows = [
        [shown(run.name), str(evaluation.averaged_over(run))]
        + [_cell(c, run.summary[c.label], z) for c, _ in columns]
        for run in evaluation.runs
    ]
    return header, rows


def _cell(column, value, zscores: bool) -> str:
    """A table's value: a count as an integer, an undefined one as trec_eval's ``-nan``,
    any other as every table of score's prints it (:func:`~.text_tables.table_value`: a
    value that is not 0 never ``0.0000``, an infinite one ``inf``, as the unjudged table
    under it prints them too)."""
    if (column.summary in COUNTS and not zscores) or math.isnan(value):
        return _number(column, value, zscores).strip()
    return table_value(value)


def render_table(evaluation, names: str = "display") -> str:
    """Aggregates as an aligned text table: one row per run, one column per measure."""
    header, rows = _table_rows(evaluation, names)
    return "\n".join(aligned([header, *rows], set(range(1, len(header))))) + "\n"


def render_markdown(evaluation, names: str = "display") -> str:
    """Aggregates as a Markdown table."""
    header, rows = _table_rows(evaluation, names, shown=markdown_text)
    return "\n".join(markdown_table(header, rows, set(range(1, len(header))))) + "\n"


def render_csv(
    evaluation, *, per_query: bool = False, summary: bool = True, names: str = "display"
) -> str:
    """Tidy CSV ``run,qid,measure,canonical,value`` (as
    :meth:`~trecbench.evaluation.Evaluation.to_long`): per-topic rows (with ``per_query``)
    then the ``all`` rows of each run (not without ``summary``: ``-n``); ``measure`` under
    ``names`` (a measure asked by two spellings has a row under each), ``canonical`` its
    display name. Any text is held as it is (:func:`csv_line`)."""
    lines = [csv_line(["run", "qid", "measure", "canonical", "value"])]
    topic_columns = _per_query_columns(evaluation, names) if per_query else []
    for run in evaluation.runs:
        for index, qid in enumerate(run.qids if topic_columns else ()):
            for c, name in topic_columns:
                value = _topic_value(evaluation, run, c, index)
                display = c.display if c.summary == STRING else evaluation.shown(c.display)
                lines.append(csv_line([run.name, qid, name, display, value]))
        for c, name in _summary_columns(evaluation, names) if summary else ():
            value = _plain(evaluation, c, run.summary[c.label])
            lines.append(csv_line([run.name, "all", name, evaluation.shown(c.display), value]))
    return "".join(lines)


def _canonical(evaluation, summary, topic_columns) -> dict[str, str]:
    """Each name ``aggregates`` and ``per_query`` key values by -> its display name: text
    per topic (``relstring``) is in ``per_query`` alone, under its own."""
    canonical = {name: evaluation.shown(c.display) for c, name in summary}
    for c, name in topic_columns:
        canonical.setdefault(
            name, c.display if c.summary == STRING else evaluation.shown(c.display)
        )
    return canonical


def _plain(evaluation, column, value):
    """Full-precision value for machine formats (integers for counts but z-scores, None
    for NaN)."""
    if column.summary in COUNTS and not evaluation.settings.zscores:
        return int(value)
    value = float(value)
    return None if math.isnan(value) else value


def render_json(
    evaluation, *, per_query: bool = True, names: str = "display", groups: dict | None = None
) -> str:
    """Everything as JSON: the ``tool`` and ``environment`` that computed it (as
    :func:`trecbench.report.tool` and :func:`~trecbench.report.environment` record them;
    the inputs' checksums are ``--report``'s), measures (an entry per spelling asked of a
    value, where it was asked), ``canonical`` (each name the values are keyed by -> its
    display name, as
    :meth:`~trecbench.evaluation.Evaluation.to_long`'s: two spellings of one measure key
    one value each), options, per-run aggregates (and tie bounds when
    computed) and per-topic values, flagged topics, ``ontology`` (the HPO release and
    formula, :attr:`~trecbench.Evaluation.ontology_record`, the report's, with a MaxOntSim
    measure) and ``groups`` (grouped means,
    :func:`trecbench.renderers.strata.groups_document`) when given."""
    summary = _summary_columns(evaluation, names)
    topic_columns = _per_query_columns(evaluation, names)
    runs = []
    for run in evaluation.runs:
        entry = {
            "run": run.name,
            "runid": run.runid,
            # as the table's column and trec_eval's num_q: under -c every qrels topic
            "topics": evaluation.averaged_over(run),
            "topics_with_values": len(run.qids),  # the topics per_query has
            "aggregates": {
                name: _plain(evaluation, c, run.summary[c.label]) for c, name in summary
            },
        }
        if run.tie_bounds is not None:
            from .tiebounds import json_entry

            entry["tie_bounds"] = json_entry(run, evaluation, names)
        if per_query:
            entry["per_query"] = {
                qid: {name: _topic_value(evaluation, run, c, index) for c, name in topic_columns}
                for index, qid in enumerate(run.qids)
            }
        runs.append(entry)
    from .. import __version__, provenance
    from ..engines.providers import distributions

    document = {  # what computed it, as trecbench.report.tool and environment record it
        "tool": {"name": "trecbench", "version": __version__},
        "environment": provenance.environment(tuple(distributions())),
        "measures": [  # each spelling asked of a value, where it was asked
            {
                "requested": name if name in c.also else c.measure.requested or c.measure.canonical,
                "canonical": c.measure.canonical,
                "provider": c.measure.provider,  # as the --report says it
                "engine": c.engine,
                "label": c.name("trec"),
                "display": c.display,
            }
            for c, name in evaluation.labelled("asked")
        ],
        "canonical": _canonical(evaluation, summary, topic_columns),
        "options": evaluation.options,
        "qrels": evaluation.qrels_path,
        "runs": runs,
        "flagged_topics": [vars(f) for f in evaluation.flagged],
    }
    ontology = evaluation.ontology_record  # the record --report holds
    if ontology is not None:  # which HPO release and formula MaxOntSim used
        document["ontology"] = ontology
    if groups:
        document["groups"] = groups
    return json_text(document)


def json_text(document: dict) -> str:
    """A JSON document of ``score`` as text (one blank of indent, non-ASCII escaped): its
    ``--format json``, with or without what other options add to the document."""
    import json  # only for --format json

    from ..json_values import json_safe  # an undefined value null, as in every JSON

    return json.dumps(json_safe(document), indent=1, allow_nan=False) + "\n"
