"""Grouped and stratified averages: per-group means, the macro and the micro mean.

Strata come from a converter's sidecar (``strata.queries``: ``{qid: {field: value}}``) or
from the qid itself (``qid-prefix``: the text before the last ``/``, as in ``repo/7``).
For each run and measure, :func:`group_means` gives the mean and query count of every
group, the **macro** mean (unweighted mean of the group means: every group counts the same,
as code-chunk's published "overall"), the **micro** mean (mean over all queries: every
query counts the same, trec_eval's ``all`` for mean-type measures) and the **spread**
(largest minus smallest group mean: how far apart languages or difficulties are; undefined
over one group, :data:`SPREAD_OF_ONE`). :func:`group_warnings` names the groups smaller
than :data:`MIN_GROUP_SIZE` queries, whose means are too noisy to compare, and the spreads
that are undefined.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from .errors import InputError, Setting, UsageError, excerpt, option_excerpt
from .escaping import escape_text, id_list
from .ids import STR
from .kernels import mean_of_means, sequential_sum
from .naming import path_argument
from .plurals import first_few
from .provenance import read_in_call
from .sources import At, read_json
from .toml_loader import config_folder

QID_PREFIX = "qid-prefix"
MISSING = "(none)"
MIN_GROUP_SIZE = 30  # fewer queries than this: a group's mean is reported with a warning
KINDS = ("group", "macro", "micro", "spread")
# one group's "spread" would print 0, as if the groups (there are none to compare) agreed
SPREAD_OF_ONE = "one group only (a spread is between two or more group means)"


class OtherTopics(UsageError):
    """Strata that hold none of the topics grouped (the sidecar of other qrels): the
    sidecar is at fault, not the grouping (a configuration names its ``strata.sidecar``)."""


def load_strata(sidecar: str | os.PathLike) -> pd.DataFrame:
    """``DataFrame[qid, <field>...]`` (all strings, missing values NA) from the path of a
    ``sidecar`` JSON that ``trecbench convert`` wrote (plain or compressed)."""
    path_argument(sidecar, "sidecar")
    return read_sidecar(sidecar)[0]


def read_sidecar(sidecar: str | os.PathLike) -> tuple[pd.DataFrame, list[tuple[str, str]]]:
    """The strata of a sidecar (see :func:`load_strata`) and its qrels warnings:
    ``(qrels file, warning)`` for each qrels the converter marked (found-only qrels carry
    memorybench's warning that their ideal DCG may be underestimated); the file is resolved
    against the sidecar's folder (the current one for a sidecar read from a pipe, as a
    configuration's). Read once in a call (a pipe's, ``<(...)``, is read by
    the first reader, what it made of it kept for the others: compare's output checks
    and its analysis)."""
    return read_in_call(sidecar, "strata", lambda: _read_sidecar(sidecar))[:2]


def vouches(sidecar: str | os.PathLike | None, qrels: Any, run_tag: str) -> bool:
    """Whether the ``sidecar`` says that ``qrels`` (a path) are complete for a run tagged
    ``run_tag``: it describes that file (resolved against the sidecar's folder) as
    ``complete`` (every relevant document listed, not pooled: a document it does not
    judge is not relevant, as in hpo's gold-only qrels), and pairs no run of that tag
    with other qrels (code-chunk's ``fixed`` run against the ``ast`` chunker's qrels: its
    documents are not the ones the qrels know, complete as they are), nor, describing
    several qrels files, leaves that tag out (which of them the run belongs to is unknown)."""
    if sidecar is None or not isinstance(qrels, (str, os.PathLike)):
        return False
    complete, paired, several = read_in_call(sidecar, "strata", lambda: _read_sidecar(sidecar))[2]
    target = os.path.realpath(qrels)
    if run_tag in paired and paired[run_tag] != target:
        return False
    if run_tag not in paired and several:  # a run it did not make: whose qrels is unknown
        return False
    return target in complete


def doubted(evaluation, threshold: float, sidecar: Any) -> list:
    """The evaluation's runs the qrels mostly do not know (its ``unjudged_runs``), but
    those whose qrels the ``sidecar`` (None: no sidecar) :func:`vouches` for."""
    flagged = evaluation.unjudged_runs(threshold)
    if sidecar is None or not flagged:
        return flagged
    vouched = vouched_runs(evaluation, sidecar)
    return [run for run in flagged if run.name not in vouched]


def vouched_runs(evaluation, sidecar: Any) -> set[str]:
    """The names of the evaluation's runs whose qrels the ``sidecar`` (None: no sidecar)
    :func:`vouches` for: complete, every document they do not judge not relevant."""
    if sidecar is None:
        return set()
    path = evaluation.qrels_path
    return {run.name for run in evaluation.runs if vouches(sidecar, path, run.runid)}


def _read_sidecar(sidecar: str | os.PathLike) -> tuple:
    doc = read_json(sidecar, "strata")
    data = doc.value
    _check_kind(doc.root, data)
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
                _group_name(place / field, field, value)
            if field not in fields:
                fields.append(field)
    frame = pd.DataFrame(
        {
            "qid": list(queries),
            **{f: [v.get(f) for v in queries.values()] for f in fields},
        }
    )
    notes = []
    folder = str(config_folder(sidecar))  # a pipe's: the current folder
    qrels = data.get("qrels")
    for name, info in qrels.items() if isinstance(qrels, dict) else ():
        place = doc.root / "qrels" / name
        info = place.expect_object(info)
        if info.get("warning") is not None:
            warning = (place / "warning").expect_string(info["warning"])
            file = (place / "file").expect_string(info.get("file"))
            notes.append((os.path.join(folder, file), warning))
    return frame.astype(STR), notes, _pairings(doc.root, data, folder)


def _check_kind(root: At, data: Any) -> None:
    """Refuse a document that says it is something else (``format``), or a sidecar of a
    later version than this trecbench writes, whose strata may mean what it cannot tell;
    strata written by hand (``{"strata": {"queries": ...}}``, no ``format`` or no
    ``version``) are read."""
    from .inputs.unconverted import SIDECAR_FORMAT, SIDECAR_VERSION

    if not isinstance(data, dict) or "format" not in data:
        return
    if data["format"] != SIDECAR_FORMAT:
        said = excerpt(data["format"])
        raise (root / "format").error(f"{said}: not a trecbench sidecar ({SIDECAR_FORMAT!r})")
    version = data.get("version", SIDECAR_VERSION)  # none given: as this one's
    if type(version) is not int or not 1 <= version <= SIDECAR_VERSION:
        raise (root / "version").error(
            f"{excerpt(version)}: this trecbench reads sidecars of versions up to "
            f"{SIDECAR_VERSION} (a later one was written by a later trecbench)"
        )


def _pairings(root: At, data: dict, folder: str) -> tuple[set[str], dict[str, str], bool]:
    """The qrels files a sidecar describes as complete and not pooled, each run tag's
    qrels file (``runs.<tag>.qrels``; null: none), as real paths, and whether it describes
    several qrels files (then a run of a tag it does not list may belong to any: code-chunk's
    chunkers). A pairing not as a converter writes it is refused at its place: read as
    none, it would vouch for qrels the run does not belong to; a ``complete`` not ``true``
    vouches for nothing."""

    def path(file: Any) -> str | None:
        return os.path.realpath(os.path.join(folder, file)) if isinstance(file, str) else None

    qrels, runs = data.get("qrels"), data.get("runs")
    complete = {
        path(info.get("file"))
        for info in (qrels.values() if isinstance(qrels, dict) else ())
        if isinstance(info, dict) and info.get("complete") is True and not info.get("pooled")
    }
    paired = {}
    if runs is not None:
        for tag, info in (root / "runs").expect_object(runs).items():
            place = root / "runs" / tag
            file = place.expect_object(info).get("qrels")
            if file is not None:
                paired[tag] = path((place / "qrels").expect_string(file))
    return complete - {None}, paired, isinstance(qrels, dict) and len(qrels) > 1


def _group_name(place: At, field: str, value: Any) -> str:
    """A topic's group in the stratum ``field``: a string naming a group of its own."""
    problem = group_name_problem(field, place.expect_string(value))
    if problem is not None:
        raise place.error(problem)
    return value


def group_name_problem(field: str, value: str, absent: str | None = None) -> str | None:
    """Why ``value`` cannot name a group of the stratum ``field``, or None: the group of
    topics without a value is (none), named so (two groups would be one), and an empty or
    blank name would print as no label at all. ``absent`` says how the input gives no
    value (default: a sidecar's, the field left out or null). ``convert`` checks what it
    writes into a sidecar with it, so that ``score --strata`` takes every sidecar written."""
    if value == MISSING:
        return f"{MISSING} names the topics without a {field}"
    return blank_group(field, value, absent)


def blank_group(field: str, value: str, absent: str | None = None) -> str | None:
    """Why ``value`` cannot name a group of ``field`` (an empty or blank name would print as
    no label at all), or None."""
    if value.strip():
        return None
    what = "empty group name" if not value else f"blank group name {value!r}"
    absent = f"leave its {field} out, or null" if absent is None else absent
    return f"{what}: a topic without a {field} goes in {MISSING} ({absent})"


def _field_name(place: At, name: Any) -> str:
    """A stratum's name; ``qid`` is refused: the frame's qid column would silently take
    its values and regroup (or drop) every query."""
    if place.expect_string(name) == "qid":
        raise place.error("a stratum cannot be named qid (that is the query id column)")
    if name == QID_PREFIX:  # --group-by qid-prefix would group by the qid, not by it
        raise place.error(f"a stratum cannot be named {QID_PREFIX} (trecbench's grouping)")
    return name


def qrels_warnings(notes: list[tuple[str, str]], qrels: str | os.PathLike) -> list[str]:
    """The sidecar's warnings (:func:`read_sidecar`) about the qrels file ``qrels``."""
    target = os.path.realpath(qrels)
    return [f"{qrels}: {warning}" for file, warning in notes if os.path.realpath(file) == target]


def sidecar_notes(
    sidecar: str | os.PathLike, qrels: list[Any], group_by: Sequence[str] | None
) -> list[str]:
    """What the CLI says of the ``sidecar`` given (--strata), read now whatever the data
    (a bad one refused before the scoring): its warnings about the ``qrels`` used, and,
    without ``group_by``, that it stratifies nothing (it still vouches for complete qrels)."""
    table, notes = read_sidecar(sidecar)
    paths = [path for path in dict.fromkeys(qrels) if isinstance(path, (str, os.PathLike))]
    lines = [line for path in paths for line in qrels_warnings(notes, path)]
    fields = [field for field in table.columns if field != "qid"]
    if not group_by and fields:
        lines.append(
            "--strata: nothing is stratified without --group-by FIELD (this sidecar offers: "
            f"{id_list(fields, limit=None)}); read for its qrels only"
        )
    return lines


def strata_missing(by: str, configured: bool = False) -> UsageError:
    """Why grouping ``by`` a stratum field cannot be done without a strata file, naming it
    as :func:`group_labels` does (the keyword or the command's option, or a
    configuration's key)."""
    if configured:
        return UsageError(f"{excerpt(by)} needs strata.sidecar (or use {QID_PREFIX})")
    return UsageError(
        Setting("group_by", by), " needs ", Setting("strata"), f" (or use {QID_PREFIX})"
    )


def check_group_field(strata: pd.DataFrame | None, by: str, configured: bool = False) -> None:
    """Refuse (:class:`UsageError`) grouping by ``by`` where ``strata`` (:func:`load_strata`'s
    table; None: none given) cannot: a field without strata (:func:`strata_missing`,
    ``configured`` naming a configuration's key), or a field they lack; ``qid-prefix``
    needs none. What :func:`group_labels` refuses before any topic is known: the commands
    check it before any run is read."""
    if by == QID_PREFIX:
        return
    if strata is None:
        raise strata_missing(by, configured)
    if by not in strata.columns or by == "qid":
        # a sidecar's field as a list's item
        known = id_list([c for c in strata.columns if c != "qid"] + [QID_PREFIX], limit=None)
        raise UsageError(f"unknown stratum {option_excerpt(by)}; available: {known}")


def group_labels(
    qids: pd.Series, strata: pd.DataFrame | None, by: str, configured: bool = False
) -> pd.Series:
    """The group of each qid: its ``by`` stratum, or its prefix for ``qid-prefix``.

    Queries without a value for ``by`` fall in the group ``(none)``; strata that give
    none of them a value (the sidecar of other qrels), or a blank one, are a
    :class:`UsageError`, whose message names the grouping by the keywords (the command's
    options where the CLI words it: ``--group-by``, ``--strata``), or, ``configured``, by
    a configuration's keys (the caller names ``strata.group_by`` before the message; it
    names ``strata.sidecar``).
    """
    qids = qids.astype(STR)
    asked = () if configured else (Setting("group_by", by), ": ")
    if by == QID_PREFIX:
        if qids.empty:  # no measure to group (num_ret alone): rpartition gives no column
            return qids
        prefix = qids.str.rpartition("/")[0]
        if (prefix == MISSING).any():  # (none)/a would join the topics without a prefix
            qid = qids[prefix == MISSING].iloc[0]
            raise UsageError(*asked, f"qid {qid!r} has the prefix {MISSING}, "
                             "the group of topics without a prefix")  # fmt: skip
        empty = (prefix == "") & qids.str.contains("/", regex=False)
        if empty.any():  # /a would too: its prefix is empty, no group's name
            qid = qids[empty].iloc[0]
            raise UsageError(*asked, f"qid {qid!r} has an empty prefix, no group's name: "
                             f"it would join {MISSING}, the topics without a prefix")  # fmt: skip
        return prefix.where(prefix != "", MISSING).astype(STR)
    check_group_field(strata, by, configured)  # strata given, holding the field
    mapping = _one_group_each(strata, by, asked)
    labels = qids.map(mapping).astype(STR)
    blank = (labels.str.strip() == "").fillna(False).astype(bool)  # strata given as a table
    if blank.any():
        qid = qids[blank].iloc[0]
        raise UsageError(*asked, f"topic {qid!r}: {blank_group(by, labels[blank].iloc[0])}")
    if len(labels) and labels.isna().all():  # every topic in "(none)": a section repeated
        topics = f"none of these {len(qids.unique())} topics"
        if qids.isin(mapping.index).any():
            raise UsageError(*asked, f"the strata give {topics} a {by}")
        raise OtherTopics(
            *asked, f"the strata hold {topics} (e.g. {qids.iloc[0]!r}): the sidecar of other qrels?"
        )
    return labels.fillna(MISSING).astype(STR)


def _one_group_each(strata: pd.DataFrame, by: str, asked: tuple) -> pd.Series:
    """Each topic's ``by`` in ``strata`` (a row repeated alike is one); a topic given two
    is refused (the first was kept, the other dropped without a word)."""
    rows = strata[["qid", by]].drop_duplicates()
    twice = rows["qid"].duplicated(keep=False)
    if twice.any():
        qid = rows.loc[twice, "qid"].iloc[0]
        first, second = rows.loc[rows["qid"] == qid, by].iloc[:2]
        raise UsageError(*asked, f"topic {qid!r} is in two {by} groups: {first!r} and {second!r}")
    return rows.set_index("qid")[by]


def _mean(values: pd.Series) -> float:
    """The mean as trec_eval takes its ``all``: summed in order from 0.0 (its loop over
    the topics, as the evaluation's summaries), then divided; pandas' mean sums another way,
    and a micro mean of 32 topics printed 0.5688 beside trec_eval's 0.5687; a NaN makes it NaN."""
    array = values.to_numpy(dtype=np.float64)
    return sequential_sum(array) / len(array) if len(array) else math.nan


def _spread(means: pd.Series) -> float:
    if len(means) < 2:  # undefined: SPREAD_OF_ONE
        return float("nan")
    return means.max(skipna=False) - means.min(skipna=False)


def group_means(per_query, strata: pd.DataFrame | None, by: str) -> pd.DataFrame:
    """Per-group means with macro and micro means and the spread.

    ``per_query`` has columns ``run, qid, measure, value``, a DataFrame or records read as
    :func:`~trecbench.comparison.compare_scores` reads them
    (:mod:`trecbench.inputs.given_values`: PyTerrier's and ir_measures' column names, ids
    strings, never inferred); a run's two values of a measure for one topic, a value
    outside the measure's span or undefined (NaN), and a topic the strata put in two
    groups of ``by``, are refused. ``strata`` is :func:`load_strata`'s table and
    ``by`` the field grouped by (or ``qid-prefix``, the qid up to its last ``/``, without
    ``strata``). See :func:`grouped_means` for what it returns."""
    from .inputs.given_values import (
        check_strata_qids,
        given_values,
        refuse_not_finite,
        refuse_summary_rows,
        refuse_two_values,
    )
    from .measures.labels import refuse_outside_span

    given = given_values(per_query, "per_query")
    frame = given.frame
    refuse_two_values(frame)
    refuse_summary_rows(frame)
    refuse_not_finite(frame)  # as compare_scores: its group's mean was NaN, said nowhere
    refuse_outside_span(frame)
    if strata is not None and not (isinstance(strata, pd.DataFrame) and "qid" in strata):
        from .type_names import python_type

        shown = "a DataFrame without a qid column" if isinstance(strata, pd.DataFrame) else (
            python_type(strata))  # fmt: skip
        raise UsageError(
            Setting("strata"), f": give load_strata's table (qid and the fields), not {shown}"
        )
    if strata is not None and given.integer_qids:  # 7 is not '007': refused, as compare's
        topics = (frame["qid"].unique(), "per_query", True)
        check_strata_qids(strata, topics)
    return grouped_means(frame, strata, by)


def grouped_means(per_query: pd.DataFrame, strata: pd.DataFrame | None, by: str) -> pd.DataFrame:
    """:func:`group_means` of values already read and checked (an evaluation's: ``run,
    qid, measure, value``, ids strings). Returns one row per run,
    measure and group with columns ``run, measure, kind, group, n, value, undefined``:
    ``kind`` is ``group`` (``n`` = queries in the group), ``macro`` (mean of the group
    means, ``n`` = groups), ``micro`` (mean over queries, ``n`` = queries) or ``spread``
    (largest minus smallest group mean, ``n`` = groups); ``group`` is NA on the macro,
    micro and spread rows. ``undefined`` says why a value is NaN and n/a (a run's spread
    over one group: :data:`SPREAD_OF_ONE`), NA elsewhere (a NaN mean there, from an
    evaluation's undefined value, ``score --group-by``'s, is undefined as trec_eval's
    ``-nan`` average is; :func:`group_means` refuses such a value). Groups are sorted by
    name.
    """
    frame = per_query.assign(group=group_labels(per_query["qid"], strata, by).to_numpy())
    keys = ["run", "measure"]

    def summary(values: pd.DataFrame, by: list[str], kind: str, value) -> pd.DataFrame:
        out = values.groupby(by, sort=False)["value"].agg(n="size", value=value).reset_index()
        return out.assign(kind=kind) if "group" in by else out.assign(kind=kind, group=pd.NA)

    # an undefined (NaN) value makes its mean undefined, as trec_eval's average is (-nan):
    # pandas' mean would skip it, and micro would no longer be trec_eval's
    groups = summary(frame, [*keys, "group"], "group", _mean)
    macro = summary(groups, keys, "macro", lambda means: float(mean_of_means(means)))
    micro = summary(frame, keys, "micro", _mean)
    spread = summary(groups, keys, "spread", _spread)
    spread = spread.assign(undefined=spread["n"].lt(2).map({True: SPREAD_OF_ONE, False: None}))
    order = {kind: i for i, kind in enumerate(KINDS)}
    out = pd.concat([groups, macro, micro, spread], ignore_index=True)
    out = out.assign(
        _run=pd.factorize(out["run"])[0],
        _measure=pd.factorize(out["measure"])[0],
        _kind=out["kind"].map(order),
    ).sort_values(["_run", "_measure", "_kind", "group"], kind="stable")
    columns = ["run", "measure", "kind", "group", "n", "value", "undefined"]
    out = out[columns].astype({"group": STR, "kind": STR, "undefined": STR})
    return out.reset_index(drop=True)


def undefined_notes(frame: pd.DataFrame, escaped=str) -> list[str]:
    """What is n/a in :func:`group_means`' ``frame`` and why, once per reason, naming the
    runs concerned (``escaped``: how a run's name is printed):
    ``Spread n/a (undefined): one group only (...) — r1, r2.``"""
    rows = frame[frame["undefined"].notna()]
    notes = []
    for (kind, reason), part in rows.groupby(["kind", "undefined"], sort=False):
        runs = id_list(list(dict.fromkeys(part["run"])), shown=escaped)
        notes.append(f"{kind.capitalize()} n/a (undefined): {reason} — {runs}.")
    return notes


# ---------------------------------------------------------------------------------------
# evaluations


def _grouped(column) -> bool:
    """Whether an evaluation's ``column`` has per-group means: a per-topic value trec_eval
    averages (not a sum, a geometric mean, num_q or runid)."""
    from .measures import MEAN

    return column.per_query and column.summary == MEAN


def evaluation_groups(evaluation, strata: pd.DataFrame | None, by: str) -> pd.DataFrame:
    """:func:`group_means` of an :class:`~trecbench.evaluation.Evaluation`'s mean-type
    measures, with ``measure`` holding the display name.

    Only measures trec_eval averages (``P``, ``ndcg_cut``, ``map``, local measures...) are
    grouped: summed counts and geometric means have no per-group mean. With ``-c`` the
    qrels topics a run misses count as 0, as in trec_eval's ``all``, so the micro mean equals
    the ordinary average.
    """
    shown = [c.display for c in evaluation.columns if _grouped(c)]
    per_query = evaluation.per_query_values
    per_query = per_query[per_query["measure"].isin(shown)]
    if evaluation.settings.complete:
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
    return grouped_means(per_query, strata, by)


def left_out_warnings(evaluation) -> list[str]:
    """A warning naming the measures ``--group-by`` leaves out of an
    :class:`~trecbench.evaluation.Evaluation`: those trec_eval does not average over topics
    (summed counts, geometric means, num_q, runid) have no per-group mean, and with nothing
    else the grouped output is empty."""
    left = [c.display for c in evaluation.columns if not _grouped(c)]
    if not left:
        return []
    return [
        f"--group-by: {first_few(left)} left out: not a mean over topics (a sum, a geometric "
        "mean or no number), so no per-group mean"
    ]


def outside_qrels_warnings(strata: pd.DataFrame | None, qrels_topics) -> list[str]:
    """One warning naming the topics of the strata that the qrels lack (how many, the
    first few): they are no group's (docs/convert.md), and a group of such topics alone
    is no row; said as the run topics the qrels lack are, not dropped without a word."""
    if strata is None:
        return []
    judged = set(qrels_topics)
    outside = [qid for qid in strata["qid"] if qid not in judged]
    if not outside:
        return []
    noun = "topic of the strata is" if len(outside) == 1 else "topics of the strata are"
    listed = id_list(outside, shown=lambda qid: escape_text(qid, " "))
    return [f"--strata: {len(outside)} {noun} not in the qrels (no group's): {listed}"]


def group_warnings(grouped: dict[str, pd.DataFrame]) -> list[str]:
    """One warning per grouping with groups of fewer than :data:`MIN_GROUP_SIZE` queries
    (the smallest count over runs), naming them with their sizes, and one per reason a
    value is n/a (:func:`undefined_notes`: a run's spread over one group)."""
    warnings = []
    for field, frame in grouped.items():
        by = escape_text(field)  # a sidecar's field: no line break of it splits the line
        sizes = frame[frame["kind"] == "group"].groupby("group")["n"].min()
        small = sizes[sizes < MIN_GROUP_SIZE]
        if len(small):
            # each group as the trec text names it (its blanks escaped: "a b" is a%20b)
            listed = ", ".join(f"{escape_text(group, ' ')} ({n})" for group, n in small.items())
            warnings.append(
                f"--group-by {by}: {len(small)} of {len(sizes)} groups have fewer than "
                f"{MIN_GROUP_SIZE} queries, too few for a stable mean: {listed} (read their "
                "means as indications, or group by a coarser field)"
            )
        warnings += [f"--group-by {by}: {n[0].lower()}{n[1:]}" for n in undefined_notes(frame)]
    return warnings
