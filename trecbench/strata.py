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

from .convert.common import load_json
from .errors import InputError, UsageError

QID_PREFIX = "qid-prefix"
MISSING = "(none)"
STR = pd.StringDtype()


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
