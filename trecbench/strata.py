"""Grouped and stratified averages: per-group means, the macro and the micro mean.

Strata come from a converter's sidecar (``strata.queries``: ``{qid: {field: value}}``) or
from the qid itself (``qid-prefix``: the text before the last ``/``, as in ``repo/7``).
For each run and measure, :func:`group_means` gives the mean and query count of every
group, the **macro** mean (unweighted mean of the group means: every group counts the same,
as code-chunk's published "overall"), the **micro** mean (mean over all queries: every
query counts the same, trec_eval's ``all`` for mean-type measures) and the **spread**
(largest minus smallest group mean: how far apart languages or difficulties are).
:func:`group_warnings` names the groups smaller than :data:`MIN_GROUP_SIZE` queries, whose
means are too noisy to compare.
"""

from __future__ import annotations

import os
from typing import Any

import pandas as pd

from .errors import InputError, UsageError
from .ids import STR
from .sources import At, read_json
from .trec_format import escape_text

QID_PREFIX = "qid-prefix"
MISSING = "(none)"
MIN_GROUP_SIZE = 30  # fewer queries than this: a group's mean is reported with a warning
KINDS = ("group", "macro", "micro", "spread")


def load_strata(sidecar: str | os.PathLike) -> pd.DataFrame:
    """``DataFrame[qid, <field>...]`` (all strings, missing values NA) from a sidecar JSON
    (plain or compressed)."""
    return read_sidecar(sidecar)[0]


def read_sidecar(sidecar: str | os.PathLike) -> tuple[pd.DataFrame, list[tuple[str, str]]]:
    """The strata of a sidecar (see :func:`load_strata`) and its qrels warnings:
    ``(qrels file, warning)`` for each qrels the converter marked (found-only qrels carry
    memorybench's warning that their ideal DCG may be underestimated); the file is resolved
    against the sidecar's folder."""
    doc = read_json(sidecar, "strata")
    data = doc.value
    strata = data.get("strata") if isinstance(data, dict) else None
    if not isinstance(strata, dict) or not isinstance(strata.get("queries"), dict):
        raise InputError(str(sidecar), None, "not a trecbench sidecar (no strata.queries)")
    at = doc.root / "strata"
    queries = strata["queries"]
    fields = [_field_name(at / "fields" / i, f) for i, f in enumerate(
        (at / "fields").expect_list(strata.get("fields") or [])
    )]  # fmt: skip
    for qid, values in queries.items():
        place = at / "queries" / qid
        for field, value in place.expect_object(values).items():
            _field_name(place / field, field)
            if value is not None:
                (place / field).expect_string(value)
            if field not in fields:
                fields.append(field)
    frame = pd.DataFrame(
        {
            "qid": list(queries),
            **{f: [v.get(f) for v in queries.values()] for f in fields},
        }
    )
    notes = []
    qrels = data.get("qrels")
    for name, info in qrels.items() if isinstance(qrels, dict) else ():
        place = doc.root / "qrels" / name
        info = place.expect_object(info)
        if info.get("warning") is not None:
            warning = (place / "warning").expect_string(info["warning"])
            file = (place / "file").expect_string(info.get("file"))
            notes.append((os.path.join(os.path.dirname(sidecar), file), warning))
    return frame.astype(STR), notes


def _field_name(place: At, name: Any) -> str:
    """A stratum's name; ``qid`` is refused: the frame's qid column would silently take
    its values and regroup (or drop) every query."""
    if place.expect_string(name) == "qid":
        raise place.error("a stratum cannot be named qid (that is the query id column)")
    return name


def qrels_warnings(notes: list[tuple[str, str]], qrels: str | os.PathLike) -> list[str]:
    """The sidecar's warnings (:func:`read_sidecar`) about the qrels file ``qrels``."""
    target = os.path.realpath(qrels)
    return [f"{qrels}: {warning}" for file, warning in notes if os.path.realpath(file) == target]


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
    """Per-group means with macro and micro means and the spread.

    ``per_query`` has columns ``run, qid, measure, value``. Returns one row per run,
    measure and group with columns ``run, measure, kind, group, n, value``: ``kind`` is
    ``group`` (``n`` = queries in the group), ``macro`` (mean of the group means,
    ``n`` = groups), ``micro`` (mean over queries, ``n`` = queries) or ``spread`` (largest
    minus smallest group mean, ``n`` = groups); ``group`` is NA on the macro, micro and
    spread rows. Groups are sorted by name.
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
    spread = (
        groups.groupby(keys, sort=False)["value"]
        .agg(n="size", value=lambda means: means.max() - means.min())
        .reset_index()
        .assign(kind="spread", group=pd.NA)
    )
    order = {kind: i for i, kind in enumerate(KINDS)}
    out = pd.concat([groups, macro, micro, spread], ignore_index=True)
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
    """:func:`group_means` of an :class:`~trecbench.evaluation.Evaluation`'s mean-type
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


def group_warnings(grouped: dict[str, pd.DataFrame]) -> list[str]:
    """One warning per grouping with groups of fewer than :data:`MIN_GROUP_SIZE` queries
    (the smallest count over runs), naming them with their sizes."""
    warnings = []
    for by, frame in grouped.items():
        sizes = frame[frame["kind"] == "group"].groupby("group")["n"].min()
        small = sizes[sizes < MIN_GROUP_SIZE]
        if len(small):
            listed = ", ".join(f"{group} ({n})" for group, n in small.items())
            warnings.append(
                f"--group-by {by}: {len(small)} of {len(sizes)} groups have fewer than "
                f"{MIN_GROUP_SIZE} queries, too few for a stable mean: {listed}"
            )
    return warnings


def groups_document(grouped: dict[str, pd.DataFrame]) -> dict:
    """JSON form: ``{by: {run: {"groups": {group: {"n": n, measure: value}}, "macro":
    {"n": groups, ...}, "micro": {"n": queries, ...}, "spread": {"n": groups, ...},
    "small_groups": [groups of fewer than MIN_GROUP_SIZE queries]}}}``."""
    document: dict = {}
    for by, frame in grouped.items():
        runs: dict = {}
        for row in frame.itertuples(index=False):
            entry = runs.setdefault(
                row.run, {"groups": {}, "macro": {}, "micro": {}, "spread": {}, "small_groups": []}
            )
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
    ``<by>=<group>``, ``<by>:macro``, ``<by>:micro`` and ``<by>:spread``, with ``num_q``
    giving each size (the number of groups for macro and spread).
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
        title = (
            f"by {escape_text(by)} (macro: mean of the group means; micro: mean over queries; "
            "spread: largest minus smallest group mean)"
        )
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
