"""Similarity and pool results as the terminal tables and JSON of their commands.

Run names and qids come from the inputs: in the tables and lines they are escaped
reversibly (:func:`~trecbench.escaping.escape_text`; in the tables their end's blanks as
``%20`` too, :func:`~trecbench.escaping.table_text`, and a qid's every blank, as a
whitespace-separated field; in a list, a qid's commas too,
:func:`~trecbench.escaping.list_item`), as ``score`` escapes them, so that none can break
a row or read as another; JSON holds them as they are."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..escaping import escape_text, list_item, table_text, unlike
from ..number_text import value_text
from ..plurals import counted, few_and_more
from ..renderers.text_tables import aligned
from ..text_bytes import json_dumps
from .diff_cause import asked_as, listed, listed_runs
from .reportdiff import MOVERS, ReportDiff, displayed
from .reportview import field_texts, printed, written

if TYPE_CHECKING:  # (their modules import numpy and pyarrow, which diff's text needs not)
    from .pool import Pool
    from .similarity import Similarity

FORMATS = ("table", "json")


def _table(header: list[str], rows: list[list[str]]) -> str:
    return "\n".join(aligned([header, *rows], set())) + "\n"


def _number(value) -> str:
    return "-" if value is None else value_text(value)


def similarity_text(result: Similarity, output_format: str, per_topic: bool = False) -> str:
    """``similarity``'s output: one row per pair (its means over topics), with
    ``per_topic`` each topic's row before the pair's ``all`` row (its qid's blanks as
    ``%20``, one field of the row as score's group places are, ``q 1`` as ``q%201``; a
    topic named ``all`` as ``%61ll``, :func:`~trecbench.escaping.unlike`); or the JSON
    document."""
    from .similarity import STATISTICS

    if output_format == "json":
        return json_dumps(result.to_json(), indent=2) + "\n"
    k = result.settings.overlap_k
    names = [f"overlap@{k}" if name == "overlap" else name for name in STATISTICS]
    header = ["a", "b", "qid", *names, "shared"]
    rows = []
    for pair in result.pairs:
        names = [table_text(pair.run_a), table_text(pair.run_b)]
        if per_topic:
            for t, qid in enumerate(pair.qids):
                values = [pair.values[name][t] for name in STATISTICS]
                numbers = [_number(None if v != v else float(v)) for v in values]
                rows.append(
                    [*names, unlike(escape_text(qid, " "), ("all",)), *numbers, str(pair.shared[t])]
                )
        mean = pair.mean()
        numbers = [_number(mean[name]) for name in STATISTICS]
        rows.append([*names, "all", *numbers, str(int(pair.shared.sum()))])
    return _table(header, rows)


def pool_text(result: Pool, output_format: str, unjudged_grade: str | None = None) -> str:
    """``pool``'s summary: each run's contribution, then the pool's size (the JSON
    document records ``unjudged_grade``, the pool file's grade)."""
    if output_format == "json":
        document = result.to_json(unjudged_grade)
        return json_dumps(document, indent=2) + "\n"
    header = ["run", "pooled", "unique"]
    if result.with_qrels:
        header += ["judged", "relevant_only"]
    rows = []
    for c in result.contributions:
        row = [table_text(c.run), str(c.pooled), str(c.unique)]
        if result.with_qrels:
            row += [str(c.judged), str(c.relevant_only)]
        rows.append(row)
    left = "to judge" if result.with_qrels else "pooled"
    documents = counted(len(result.qid), "document")
    tail = f"{documents} {left} in {counted(len(set(result.qid)), 'topic')}\n"
    return _table(header, rows) + tail


def _pairs(title: str, changed: dict) -> list[str]:
    """Each changed value as the reports write it (:func:`~.reportdiff.written`)."""
    return [f"{title}: {key} {written(x)} -> {written(y)}" for key, (x, y) in changed.items()]


def _descriptions(result: ReportDiff) -> list[str]:
    """The ``--meta`` pairs and each run's ir_metadata entries that differ."""
    # the values escaped too: a description is the user's text, as a run's name is
    lines = [
        f"meta: {escape_text(key)} {_shown(x)} -> {_shown(y)}"
        for key, (x, y) in result.meta.items()
    ]
    for run, changed in result.ir_metadata.items():
        lines += [
            f"ir_metadata: {escape_text(run)} {escape_text(key)} {_shown(x)} -> {_shown(y)}"
            for key, (x, y) in changed.items()
        ]
    return lines


def _shown(value) -> str:
    return escape_text(written(value))


def diff_text(result: ReportDiff, output_format: str) -> str:
    """``diff``'s output: the likeliest cause first, then every difference, one a line."""
    if output_format == "json":
        return json_dumps(result.to_json(), indent=2) + "\n"
    if result.same:
        lines = ["the evaluations are the same", *_descriptions(result)]
        return "\n".join([*lines, *_pairs("version", result.versions)]) + "\n"
    lines = [f"likely cause: {result.cause}"]
    for x, y in result.inputs:
        kind = (x or y)["kind"]
        lines.append(f"input ({kind}): {_input_line(x)} -> {_input_line(y)}")
    lines += _pairs("option", result.options)
    if result.measures is not None:
        lines.append(f"measures: {listed(result.measures[0])} -> {listed(result.measures[1])}")
    lines += [  # of a measure both asked for: one asked alone is on the measures' line
        f"measure spelling: {asked_as(displayed(k, result.a, result.b), x, y, '->')}"
        for k, (x, y) in result.spellings.items()
        if x and y
    ]
    if result.runs is not None:
        lines.append(f"runs: {listed_runs(result.runs[0])} -> {listed_runs(result.runs[1])}")
    for change in result.topics:
        only = [
            f"only in {side}: {_qids(qids)}"
            for side, qids in zip("ab", (change.only_a, change.only_b), strict=True)
            if qids
        ]
        lines.append(f"topics: {escape_text(change.run)} {'; '.join(only)}")
    for change in result.values:
        # a count as score prints it, an integer, where its report holds it as one
        a, b = (_printed(v, change.measure in side.counts)
                for v, side in ((change.a, result.a), (change.b, result.b)))  # fmt: skip
        count = change.measure in result.a.counts & result.b.counts
        lines.append(f"value: {escape_text(change.run)} {change.measure} {a} -> {b}"
                     f"{_movers(change, count)}")  # fmt: skip
    for change in result.sections:
        values = " -> ".join(field_texts(change.a, change.b, change.field))
        name = change.section.replace("_", " ")
        row = (
            change.measure if change.run is None else f"{escape_text(change.run)} {change.measure}"
        )
        # a group's place is named as score prints it, escaped already (group_place)
        field = change.field if change.section == "groups" else escape_text(change.field)
        lines.append(f"{name}: {row} {field} {values}")
    lines += _descriptions(result)
    lines += _pairs("version", result.versions)
    return "\n".join(lines) + "\n"


def _movers(change, count: bool = False) -> str:
    """`` (moved most: q1 +0.5000, q2 -; 12 topics moved)`` (``-``: to or from an
    undefined value, as a mean is printed), or nothing when no topic moved; ``count``:
    the changes of a count, integers."""
    if not change.moved:
        return ""
    shown = ", ".join(
        f"{list_item(escape_text(qid))} {_change(delta, count)}" for qid, delta in change.movers
    )
    count = f"; {change.moved} topics moved" if change.moved > len(change.movers) else ""
    return f" (moved most: {shown}{count})"


def _change(delta: float | None, count: bool = False) -> str:
    """A topic's change: four decimals, or two significant digits where four decimals
    would print a move of 0 (its printed values differ by rounding: 0.21545 -> 0.21555;
    :func:`~trecbench.number_text.value_text`); a count's, an integer; ``-`` to
    or from an undefined value."""
    if delta is None:
        return "-"
    if count and float(delta).is_integer():
        return f"{int(delta):+d}"
    return value_text(delta, signed=True)


def _qids(qids: list[str]) -> str:
    """A few ``qids``, each an item of the list (:func:`~trecbench.escaping.list_item`),
    and how many more."""
    return few_and_more(qids, MOVERS, lambda qid: list_item(escape_text(qid)))


def _printed(value, count: bool = False) -> str:
    """A value as score prints it: four decimals, a count as an integer (one that is not,
    a report's edited value, with its decimals), ``-`` undefined."""
    if value is None:
        return "-"
    return str(int(value)) if count and float(value).is_integer() else printed(value)


def _input_line(item) -> str:
    if item is None:
        return "none"
    return f"{escape_text(item['path'])} {item['size']} bytes sha256 {str(item['sha256'])[:12]}"
