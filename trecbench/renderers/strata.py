"""Grouped means as text: ``trecbench score --group-by`` in each of ``score``'s formats and
its JSON document (the grouping itself is :mod:`trecbench.strata`')."""

from __future__ import annotations

import math

import pandas as pd

from ..escaping import escape_text, escaper, group_place, id_list, unlike
from ..strata import KINDS, MIN_GROUP_SIZE, undefined_notes
from .text_tables import aligned, csv_line, markdown_table, table_value, trec_label


def groups_document(
    grouped: dict[str, pd.DataFrame], names: dict[str, list[str]] | None = None
) -> dict:
    """JSON form: ``{by: {run: {"groups": {group: {"n": n, measure: value}}, "macro":
    {"n": groups, ...}, "micro": {"n": queries, ...}, "spread": {"n": groups, ...},
    "spread_undefined": why the spread is null (one group) or null, "small_groups":
    [groups of fewer than MIN_GROUP_SIZE queries]}}}``; measures by display name, or under
    each name ``names`` maps them to (the labels of the document's other parts: a measure
    asked by two spellings under both)."""
    names = names or {}
    document: dict = {}
    for by, frame in grouped.items():
        runs: dict = {}
        for row in frame.itertuples(index=False):
            entry = runs.setdefault(
                row.run,
                {
                    "groups": {},
                    "macro": {},
                    "micro": {},
                    "spread": {},
                    "spread_undefined": None,
                    "small_groups": [],
                },
            )
            if row.kind == "spread" and not pd.isna(row.undefined):
                entry["spread_undefined"] = row.undefined
            if (
                row.kind == "group"
                and row.n < MIN_GROUP_SIZE
                and row.group not in entry["small_groups"]
            ):
                entry["small_groups"].append(row.group)
            target = (
                entry["groups"].setdefault(row.group, {})
                if row.kind == "group"
                else entry[row.kind]
            )
            target["n"] = int(row.n)
            value = None if pd.isna(row.value) else float(row.value)
            for name in names.get(row.measure, [row.measure]):
                target[name] = value
        document[by] = runs
    return document


def _mean_text(value: float) -> str:
    """A group's mean as trec_eval prints an average: 4 decimals, and an undefined one (NaN:
    a topic's value undefined) as its ``-nan``, whatever the sign bit pandas' mean left."""
    return "-nan" if math.isnan(value) else f"{value:.4f}"


# the labels of the rows over the groups; a group of that name is told apart from them
_SUMMARIES = tuple(f"({kind})" for kind in KINDS if kind != "group")


def _label(kind: str, group, escaped) -> str:
    """The group column's text: a group's (escaped), or the summary's label."""
    return unlike(escaped(group), _SUMMARIES) if kind == "group" else f"({kind})"


def _wide(
    frame: pd.DataFrame, names: dict[str, list[str]], escaped=escape_text
) -> tuple[list[str], list[list[str]]]:
    """Header and rows: one row per run and group (then macro, micro, spread), one column
    per measure, values printed as tables print them (:func:`~.text_tables.table_value`;
    ``n/a`` where the frame's ``undefined`` says why); run and group text escaped (see
    :func:`trecbench.escaping.escape_text`, ``also``)."""
    shown = [(m, name) for m in dict.fromkeys(frame["measure"]) for name in names.get(m, [m])]
    header = ["run", "group", "n"] + [name for _, name in shown]
    rows = []
    keys = ["run", "kind", "group"]
    for (run, kind, group), part in frame.groupby(keys, sort=False, dropna=False):
        values = part.set_index("measure")["value"]
        undefined = not pd.isna(part["undefined"].iloc[0])
        rows.append(
            [escaped(run), _label(kind, group, escaped)]
            + [str(int(part["n"].iloc[0]))]
            + ["n/a" if undefined else table_value(values[m]) for m, _ in shown]
        )
    return header, rows


def render_groups(
    grouped: dict[str, pd.DataFrame], output_format: str, names: dict[str, list[str]]
) -> str:
    """Grouped means in one of ``score``'s formats (``json`` is :func:`groups_document`).

    ``names`` maps display names to the names to print (trec_eval labels with
    ``--labels trec``; two for a measure asked by two spellings). ``trec`` and ``csv``
    put the group where the topic goes, as ``<by>=<group>``, ``<by>:macro``,
    ``<by>:micro`` and ``<by>:spread``, with ``num_q`` giving each size (the number of
    groups for macro and spread). A value n/a (a spread over one group) is ``n/a`` in
    trec text, after a ``#`` line saying why, and empty in CSV; the table and Markdown
    print ``n/a`` and say why below (:func:`trecbench.strata.undefined_notes`).
    """
    import io

    blocks = []
    for by, frame in grouped.items():
        if output_format in ("trec", "csv"):
            out = io.StringIO()
            keys = ["run", "kind", "group"]
            current = None
            for (run, kind, group), part in frame.groupby(keys, sort=False, dropna=False):
                if output_format == "trec" and run != current:
                    title = f"{escape_text(run)}: grouped by {escape_text(by)}"
                    out.write(f"# {title} (macro = mean of the group means)\n")
                    current = run
                # where the qid goes: trec text's one field without blanks; csv quotes
                # what it must, but a field's '=' is escaped there too (a=b=c was both
                # the field a=b's group c and the field a's group b=c)
                where = group_place(by, kind, group, blanks=output_format == "trec")
                why = part["undefined"].iloc[0]
                not_applicable = not pd.isna(why)
                if output_format == "trec" and not_applicable:
                    out.write(f"# {where} n/a (undefined): {why}\n")
                lines = [("num_q", "num_q", int(part["n"].iloc[0]))]
                lines += [  # as printed, its display name (score's CSV column canonical)
                    (name, m, v)
                    for m, v in zip(part["measure"], part["value"], strict=True)
                    for name in names.get(m, [m])
                ]
                for name, canonical, value in lines:
                    undefined = isinstance(value, float) and math.isnan(value)
                    if output_format == "csv":  # an undefined mean empty, as score's all row
                        cell = None if undefined else value
                        out.write(csv_line([run, where, name, canonical, cell]))
                    elif name == "num_q":
                        out.write(f"{trec_label(name)}\t{where}\t{value}\n")
                    else:
                        shown = "n/a" if not_applicable else _mean_text(value)
                        out.write(f"{trec_label(name)}\t{where}\t{shown:>6}\n")
            blocks.append(out.getvalue())
            continue
        escaped = escaper(output_format)  # csv was written above
        header, rows = _wide(frame, names, escaped)
        title = (
            f"by {escaped(by)} (macro: mean of the group means; micro: mean over queries; "
            "spread: largest minus smallest group mean)"
        )
        right = set(range(2, len(header)))
        notes = undefined_notes(frame, escaped)
        if output_format == "markdown":
            lines = [f"**{title}**", "", *markdown_table(header, rows, right)]
            lines += ["", *notes] if notes else []
        else:
            lines = [title, *aligned([header, *rows], right), *notes]
        blocks.append("\n".join(lines) + "\n")
    return "\n".join(blocks) if output_format != "csv" else "".join(blocks)


def topics_read_as_groups(evaluation, grouped: dict[str, pd.DataFrame]) -> list[str]:
    """The warning of topics named as a group's row (a topic ``a=x`` beside ``--group-by
    a``'s group ``x``, or ``a:macro``): trec text prints a topic's id unescaped, as
    trec_eval does, where the group goes, and CSV's qid column alike (the warning lists
    them escaped, :func:`~trecbench.escaping.id_list`). ``[]`` where none is."""
    places = set()
    for by, frame in grouped.items():
        for kind, group in frame[["kind", "group"]].drop_duplicates().itertuples(index=False):
            places.add(group_place(by, kind, group))  # trec text's
            places.add(group_place(by, kind, group, blanks=False))  # CSV's
    named = sorted(places.intersection(q for run in evaluation.runs for q in run.qids))
    if not named:
        return []
    said = (  # as the warning of a topic named all says it
        "a topic is named as a group's row ({}): with -q its lines read as the group's"
        if len(named) == 1
        else f"{len(named)} topics are named as groups' rows ({{}}): with -q their lines "
        "read as the groups'"
    )
    rename = "it" if len(named) == 1 else "them"
    return [
        f"{said.format(id_list(named))} (trec_eval's text and the CSV's qid column alike); "
        f"rename {rename} to tell them apart"
    ]
