"""Grouped and stratified averages: per-group means, the macro and the micro mean.

Strata come from a converter's sidecar (``strata.queries``: ``{qid: {field: value}}``) or
from the qid itself (``qid-prefix``: the text before the last ``/``, as in ``repo/7``).
For each run and measure, :func:`group_means` gives the mean and query count of every
group, the **macro** mean (unweighted mean of the group means: every group counts the same,
as code-chunk's published "overall") and the **micro** mean (mean over all queries: every
query counts the same, trec_eval's ``all`` for mean-type measures).
"""

from __future__ import annotations

import os

import pandas as pd

from .convert.common import STR, load_json
from .errors import InputError, UsageError
from .trec_format import escape_text

QID_PREFIX = "qid-prefix"
MISSING = "(none)"


def load_strata(sidecar: str | os.PathLike) -> pd.DataFrame:
    """``DataFrame[qid, <field>...]`` (all strings, missing values NA) from a sidecar JSON."""
    data = load_json(sidecar)
    strata = data.get("strata") if isinstance(data, dict) else None
    if not isinstance(strata, dict) or not isinstance(strata.get("queries"), dict):
        raise InputError(str(sidecar), None, "not a trecbench sidecar (no strata.queries)")
    queries = strata["queries"]
    fields = list(strata.get("fields") or [])
    for values in queries.values():
        fields += [f for f in values if f not in fields]
    frame = pd.DataFrame(
        {
            "qid": list(queries),
            **{f: [v.get(f) for v in queries.values()] for f in fields},
        }
    )
    return frame.astype(STR)


def group_labels(qids: pd.Series, strata: pd.DataFrame | None, by: str) -> pd.Series:
    """The group of each qid: its ``by`` stratum, or its prefix for ``qid-prefix``.

    Queries without a value for ``by`` fall in the group ``(none)``.
    """
    qids = qids.astype(STR)
    if by == QID_PREFIX:
        prefix = qids.str.rpartition("/")[0]
        return prefix.where(prefix != "", MISSING).astype(STR)
    if strata is None:
        raise UsageError(f"--group-by {by} needs --strata SIDECAR (or use {QID_PREFIX})")
    if by not in strata.columns or by == "qid":
        known = ", ".join([c for c in strata.columns if c != "qid"] + [QID_PREFIX])
        raise UsageError(f"unknown stratum {by!r}; available: {known}")
    mapping = strata.drop_duplicates("qid").set_index("qid")[by]
    return qids.map(mapping).fillna(MISSING).astype(STR)


def group_means(per_query: pd.DataFrame, strata: pd.DataFrame | None, by: str) -> pd.DataFrame:
    """Per-group means with macro and micro means.

    ``per_query`` has columns ``run, qid, measure, value``. Returns one row per run,
    measure and group with columns ``run, measure, kind, group, n, value``: ``kind`` is
    ``group`` (``n`` = queries in the group), ``macro`` (mean of the group means,
    ``n`` = groups) or ``micro`` (mean over queries, ``n`` = queries); ``group`` is NA on the
    macro and micro rows. Groups are sorted by name.
    """
    frame = per_query.assign(group=group_labels(per_query["qid"], strata, by).to_numpy())
    keys = ["run", "measure"]
    groups = (
        frame.groupby(keys + ["group"], sort=False)["value"]
        .agg(n="size", value="mean")
        .reset_index()
        .assign(kind="group")
    )
    macro = (
        groups.groupby(keys, sort=False)["value"]
        .agg(n="size", value="mean")
        .reset_index()
        .assign(kind="macro", group=pd.NA)
    )
    micro = (
        frame.groupby(keys, sort=False)["value"]
        .agg(n="size", value="mean")
        .reset_index()
        .assign(kind="micro", group=pd.NA)
    )
    order = {"group": 0, "macro": 1, "micro": 2}
    out = pd.concat([groups, macro, micro], ignore_index=True)
    out = out.assign(
        _run=pd.factorize(out["run"])[0],
        _measure=pd.factorize(out["measure"])[0],
        _kind=out["kind"].map(order),
    ).sort_values(["_run", "_measure", "_kind", "group"], kind="stable")
    columns = ["run", "measure", "kind", "group", "n", "value"]
    return out[columns].astype({"group": STR, "kind": STR}).reset_index(drop=True)


# ---------------------------------------------------------------------------------------
# evaluations


def evaluation_groups(evaluation, strata: pd.DataFrame | None, by: str) -> pd.DataFrame:
    """:func:`group_means` of an :class:`~trecbench.evaluate.Evaluation`'s mean-type
    measures, with ``measure`` holding the display name.

    Only measures trec_eval averages (``P``, ``ndcg_cut``, ``map``, local measures...) are
    grouped: summed counts and geometric means have no per-group mean. With ``-c`` the
    qrels topics a run misses count as 0, as in trec_eval's ``all``, so the micro mean equals
    the ordinary average.
    """
    from .measures import MEAN

    shown = [c.display for c in evaluation.columns if c.per_query and c.summary == MEAN]
    per_query = evaluation.per_query
    per_query = per_query[per_query["measure"].isin(shown)]
    if evaluation.options.get("complete"):
        missing = [
            (f.run, f.qid, measure, 0.0)
            for f in evaluation.flagged
            if f.reason == "qrels_only"
            for measure in shown
        ]
        per_query = pd.concat(
            [per_query, pd.DataFrame(missing, columns=per_query.columns).astype(per_query.dtypes)],
            ignore_index=True,
        )
    return group_means(per_query, strata, by)


def groups_document(grouped: dict[str, pd.DataFrame]) -> dict:
    """JSON form: ``{by: {run: {"groups": {group: {"n": n, measure: value}}, "macro":
    {"n": groups, ...}, "micro": {"n": queries, ...}}}}``."""
    document: dict = {}
    for by, frame in grouped.items():
        runs: dict = {}
        for row in frame.itertuples(index=False):
            entry = runs.setdefault(row.run, {"groups": {}, "macro": {}, "micro": {}})
            target = (
                entry["groups"].setdefault(row.group, {})
                if row.kind == "group"
                else entry[row.kind]
            )
            target["n"] = int(row.n)
            target[row.measure] = None if pd.isna(row.value) else float(row.value)
        document[by] = runs
    return document


def _label(kind: str, group) -> str:
    return str(group) if kind == "group" else f"({kind})"


def _wide(
    frame: pd.DataFrame, names: dict[str, str], also: str = ""
) -> tuple[list[str], list[list[str]]]:
    """Header and rows: one row per run and group (then macro, micro), one column per
    measure, values printed like trec_eval (4 decimals); run and group text escaped (see
    :func:`trecbench.trec_format.escape_text`, ``also``)."""
    measures = list(dict.fromkeys(frame["measure"]))
    header = ["run", "group", "n"] + [names.get(m, m) for m in measures]
    rows = []
    keys = ["run", "kind", "group"]
    for (run, kind, group), part in frame.groupby(keys, sort=False, dropna=False):
        values = part.set_index("measure")["value"]
        rows.append(
            [escape_text(run, also), escape_text(_label(kind, group), also)]
            + [str(int(part["n"].iloc[0]))]
            + [f"{values[m]:.4f}" for m in measures]
        )
    return header, rows


def render_groups(
    grouped: dict[str, pd.DataFrame], output_format: str, names: dict[str, str]
) -> str:
    """Grouped means in one of ``score``'s formats (``json`` is :func:`groups_document`).

    ``names`` maps display names to the names to print (trec_eval labels with
    ``--labels trec``). ``trec`` and ``csv`` put the group where the topic goes, as
    ``<by>=<group>``, ``<by>:macro`` and ``<by>:micro``, with ``num_q`` giving each size.
    """
    import csv
    import io

    blocks = []
    for by, frame in grouped.items():
        if output_format in ("trec", "csv"):
            out = io.StringIO()
            writer = csv.writer(out, lineterminator="\n")
            keys = ["run", "kind", "group"]
            current = None
            for (run, kind, group), part in frame.groupby(keys, sort=False, dropna=False):
                if output_format == "trec" and run != current:
                    title = f"{escape_text(run)}: grouped by {escape_text(by)}"
                    out.write(f"# {title} (macro = mean of the group means)\n")
                    current = run
                field, value = by, group  # csv quotes what it must
                if output_format == "trec":  # where the qid goes: one field, no blanks
                    field, value = escape_text(by, " ="), escape_text(group, " ")
                where = f"{field}={value}" if kind == "group" else f"{field}:{kind}"
                lines = [("num_q", int(part["n"].iloc[0]))]
                lines += [
                    (names.get(m, m), v)
                    for m, v in zip(part["measure"], part["value"], strict=True)
                ]
                for name, value in lines:
                    if output_format == "csv":
                        writer.writerow([run, where, name, value])
                    elif name == "num_q":
                        out.write(f"{name:<22}\t{where}\t{value}\n")
                    else:
                        out.write(f"{name:<22}\t{where}\t{value:6.4f}\n")
            blocks.append(out.getvalue())
            continue
        header, rows = _wide(frame, names, also="|" if output_format == "markdown" else "")
        title = f"by {escape_text(by)} (macro: mean of the group means; micro: mean over queries)"
        if output_format == "markdown":
            lines = [f"**{title}**", "", "| " + " | ".join(header) + " |"]
            lines.append("|---|---|" + "---:|" * (len(header) - 2))
            lines += ["| " + " | ".join(r) + " |" for r in rows]
        else:
            widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
            lines = [title] + [
                "  ".join(
                    c.ljust(widths[i]) if i < 2 else c.rjust(widths[i]) for i, c in enumerate(r)
                ).rstrip()
                for r in [header, *rows]
            ]
        blocks.append("\n".join(lines) + "\n")
    return "\n".join(blocks) if output_format != "csv" else "".join(blocks)
