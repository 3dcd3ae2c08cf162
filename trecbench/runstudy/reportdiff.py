"""Why two evaluations disagree: two EvaluationReports (or two BenchmarkReports) compared.

Each report is read into a :class:`ReportView` (its inputs, options, versions, measure
spellings and values); :func:`diff_reports` lists what differs and names the most likely
cause first, in this order: the qrels, a run file, the options, the measures asked for,
trecbench's or a library's version. Values differ when their printed text (four decimals,
as trec_eval prints them) differs: a run's mean, or its value on a topic both reports hold
(a mean can stay while topics move); topics only one report holds are listed too, and so
are the sections beside the means (:data:`SECTIONS`: a comparison's tests against the
baseline, power, unjudged and tie bounds, strata's means; score's unjudged and tie bounds,
grouped means; routing metrics), whose options (``power.target``...) are compared too.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from math import inf, isfinite
from typing import Any

from .. import outputs
from ..errors import InputError
from ..escaping import escape_text
from ..maxontsim_formulas import same_formula
from ..naming import read_once_given_twice
from ..number_text import value_text
from .diff_cause import likely_cause
from .reportview import (
    RESAMPLING,
    SECTIONS,
    ReportView,
    field_texts,
    printed,
    read_view,
    written,
)

MOVERS = 5  # topics listed per run and measure whose values moved most


@dataclass(frozen=True)
class SectionChange:
    """A value of a section beside the means (:data:`SECTIONS`) that differs: ``field``
    of the row of ``run`` and ``measure`` (a number by its printed text, four decimals;
    anything else as it is); ``run`` None in a section of no run (the routing metrics,
    ``measure`` their row: ``routing_accuracy``, ``gate_efficiency``, ``gate``)."""

    section: str
    run: str | None
    measure: str
    field: str
    a: Any
    b: Any


@dataclass(frozen=True)
class ValueChange:
    """A run's mean of a measure in both reports, how many of the topics both report
    moved (their printed values differ), and the ones that moved most (a change is None
    when one side's value is null); a mean one report lacks is None too."""

    run: str
    measure: str
    a: float | None
    b: float | None
    movers: list[tuple[str, float | None]] = field(default_factory=list)
    moved: int = 0


@dataclass(frozen=True)
class TopicsChange:
    """A run's topics that only one report holds values for."""

    run: str
    only_a: list[str]
    only_b: list[str]


@dataclass(frozen=True)
class ReportDiff:
    """Everything that differs between two reports; ``cause`` names the likeliest reason
    first (None when the evaluations are the same)."""

    def __repr__(self) -> str:
        from ..plurals import short_repr

        cause, changed = short_repr(self.cause), len(self.values)
        return f"ReportDiff(same={self.same}, cause={cause}, values_changed={changed})"

    a: ReportView
    b: ReportView
    inputs: list[tuple[dict | None, dict | None]]
    options: dict[str, tuple]
    versions: dict[str, tuple]
    measures: tuple[list[str], list[str]] | None
    spellings: dict[str, tuple]
    runs: tuple[list[str], list[str]] | None
    topics: list[TopicsChange]
    values: list[ValueChange]
    cause: str | None
    sections: list[SectionChange] = field(default_factory=list)
    # the records of the two report files (trecbench.report.input_record), a then b
    reports: tuple[dict, ...] = ()
    # descriptions that differ, listed as versions are, no difference of the evaluation:
    # the --meta pairs; per run whose file differs, its ir_metadata block's entries
    meta: dict[str, tuple] = field(default_factory=dict)
    ir_metadata: dict[str, dict[str, tuple]] = field(default_factory=dict)

    @property
    def same(self) -> bool:
        """Whether the evaluations are the same: same inputs, options, measures, runs,
        topics and printed values, means, per topic and in the sections beside the means
        (versions alone may differ)."""
        differences = (self.inputs, self.options, self.measures, self.spellings, self.runs)
        return not (any(differences) or self.topics or self.values or self.sections)

    def to_json(self) -> dict:
        """The JSON document of ``diff --format json``."""
        from ..report import tool

        return {
            "tool": tool(),
            "same": self.same,
            "cause": self.cause,
            "a": self.a.path,
            "b": self.b.path,
            "reports": dict(zip("ab", self.reports, strict=True)) if self.reports else None,
            "inputs": [{"a": x, "b": y} for x, y in self.inputs],
            "options": _both(self.options),
            "versions": _both(self.versions),
            "meta": _both(self.meta),
            "ir_metadata": {run: _both(changed) for run, changed in self.ir_metadata.items()},
            "measures": None
            if self.measures is None
            else dict(zip("ab", self.measures, strict=True)),
            "spellings": _both(self.spellings),
            "runs": None if self.runs is None else dict(zip("ab", self.runs, strict=True)),
            "topics": [{"run": t.run, "only_a": t.only_a, "only_b": t.only_b} for t in self.topics],
            "values": [
                {
                    "run": c.run,
                    "measure": c.measure,
                    "a": c.a,
                    "b": c.b,
                    "moved": c.moved,
                    "movers": [{"qid": q, "change": d} for q, d in c.movers],
                }
                for c in self.values
            ],
            "sections": [
                {
                    "section": c.section,
                    "run": c.run,
                    "measure": c.measure,
                    "field": c.field,
                    "a": c.a,
                    "b": c.b,
                }
                for c in self.sections
            ],
        }


def _both(changed: dict[str, tuple]) -> dict[str, dict]:
    return {key: {"a": x, "b": y} for key, (x, y) in changed.items()}


def _described(a: ReportView, b: ReportView, inputs: list[tuple]) -> dict[str, dict]:
    """Per run file of ``inputs`` (those that differ) that two reports hold, the entries
    of its ir_metadata blocks that differ (a nested key dotted: ``actor.team``)."""
    changes = {}
    for x, y in inputs:
        if x is None or y is None or x["kind"] != "run":
            continue
        blocks = a.ir_metadata.get(x["sha256"]), b.ir_metadata.get(y["sha256"])
        changed = _changed_as_written(*(_flattened(block) for block in blocks))
        if changed:
            changes[x.get("name") or y.get("name") or y["path"]] = changed
    return changes


def _flattened(node: Any, prefix: str = "") -> dict[str, Any]:
    """A block's entries, a nested mapping's under dotted keys (none for no block); a key
    holding a dot (or starting with a quote) is quoted, never read as two."""
    if not isinstance(node, dict) or (prefix and not node):
        return {prefix: node} if prefix else {}
    flat: dict[str, Any] = {}
    for key, value in node.items():
        key = str(key)
        key = written(key) if "." in key or key.startswith('"') else key
        flat |= _flattened(value, f"{prefix}.{key}" if prefix else key)
    return flat


def _changed_as_written(a: dict, b: dict) -> dict[str, tuple]:
    """:func:`_changed` of values as the reports write them: ``true`` is not ``1``, nor
    ``1.0`` (Python's ``==`` holds them equal); a mapping's keys in any order."""

    def as_json(value: Any) -> str:
        return json.dumps(value, sort_keys=True)

    return {
        key: (a.get(key), b.get(key))
        for key in dict.fromkeys([*a, *b])
        if as_json(a.get(key)) != as_json(b.get(key))
    }


def _paired_inputs(a: ReportView, b: ReportView) -> list[tuple[dict | None, dict | None]]:
    """Inputs that differ, paired by kind: run files by the run they are scored as, then
    by content (the same runs in another order pair with themselves); qrels by the runs
    scored with them, where the reports say (:func:`_qrels_of_runs`); the rest by
    position among that kind (a file given under another name still pairs with its
    counterpart)."""
    pairs = []
    through_runs = _qrels_of_runs(a, b)
    for kind in dict.fromkeys([i["kind"] for i in a.inputs + b.inputs]):
        left = [i for i in a.inputs if i["kind"] == kind]
        right = [i for i in b.inputs if i["kind"] == kind]
        if kind == "run":
            paired = _matched(left, right)
        elif kind == "qrels":
            left = [x for x in left if not any(x is p for p, _ in through_runs)]
            right = [y for y in right if not any(y is q for _, q in through_runs)]
            paired = through_runs + _by_position(left, right)
        else:
            paired = _by_position(left, right)
        for x, y in paired:
            if x is None or y is None or (x["sha256"], x["size"]) != (y["sha256"], y["size"]):
                pairs.append((x, y))
    return pairs


def _qrels_of_runs(a: ReportView, b: ReportView) -> list[tuple[dict, dict]]:
    """The qrels of each run both reports hold (:func:`_paired_runs`) paired, once each:
    compare --run-qrels gives each run its own, in any order (a run's qrels in the other
    report are its own, not the ones given in its place)."""
    pairs: list[tuple[dict, dict]] = []
    for run_a, run_b in _paired_runs(a, b):
        x, y = a.run_qrels.get(run_a), b.run_qrels.get(run_b)
        if x is not None and y is not None and not any(x is p and y is q for p, q in pairs):
            pairs.append((x, y))
    return pairs


def _matched(left: list[dict], right: list[dict]) -> list[tuple[dict | None, dict | None]]:
    """Runs (or their files) paired by the run's name, then by the file's content
    (``sha256``, ``size``: a run renamed); the rest by position where they have no name
    (an older report's files), else with None (a run only one report holds)."""
    pairs: list[tuple[dict | None, dict | None]] = []
    left, right = list(left), list(right)
    for key in (_name, _content):
        for x in list(left):
            y = next((y for y in right if key(x) is not None and key(y) == key(x)), None)
            if y is not None:
                pairs.append((x, y))
                left.remove(x)
                right.remove(y)
    unnamed = [x for x in left if not x.get("name")], [y for y in right if not y.get("name")]
    pairs += _by_position(*unnamed)
    pairs += [(x, None) for x in left if x.get("name")]
    return pairs + [(None, y) for y in right if y.get("name")]


def _name(item: dict) -> str | None:
    return item.get("name") or None


def _content(item: dict) -> tuple | None:
    return (item["sha256"], item["size"]) if item.get("sha256") else None


def _by_position(left: list, right: list) -> list[tuple]:
    """``left`` and ``right`` paired in order, the longer one's extra items with None."""
    pairs: list[tuple] = list(zip(left, right, strict=False))
    return pairs + [(x, None) for x in left[len(right) :]] + [(None, y) for y in right[len(left) :]]


def displayed(canonical: str, a: ReportView, b: ReportView) -> str:
    """The name a measure's values are shown by (``nDCG@10`` for ``ndcg_cut.10``), as the
    ``measures:`` line and the values name it; the canonical name where neither report
    records one."""
    return a.displays.get(canonical) or b.displays.get(canonical) or canonical


def _changed(a: dict, b: dict) -> dict[str, tuple]:
    return {
        key: (a.get(key), b.get(key)) for key in dict.fromkeys([*a, *b]) if a.get(key) != b.get(key)
    }


# options an EvaluationReport records since score --report holds the bounds (d00ab8b),
# the seed and resamples of its resampling block, which only a call that drew records,
# and the flags a BenchmarkReport's evaluation records since it holds every one of them
# (EvalSettings.record; it had -l, -M, -J and MaxOntSim's options only)
_RECORDED_LATER = ("tie_bounds", "unjudged_bounds", *(f"resampling.{k}" for k in RESAMPLING))
_RECORDED_LATER += tuple(
    f"evaluation.{flag}"
    for flag in ("complete", "num_docs", "float32", "engine", "compat", "rel_format", "zscores",
                 "debug_level", "debug_query")
)  # fmt: skip


# options that choose who computes the values, not what is computed: said as versions are
_WHO_COMPUTES = ("engine", "evaluation.engine")


# options whose order is no difference: --group-by's fields (the same grouped means)
_UNORDERED = ("group_by",)


def _recorded_changes(a: dict, b: dict) -> dict[str, tuple]:
    """:func:`_changed` of the options, less one an older report does not record
    (:data:`_RECORDED_LATER`), the order of :data:`_UNORDERED`'s fields and MaxOntSim's
    formula named by an alias (or by default); score's ``--seed`` is named once, as
    ``resampling.seed``, not again as the ``routing.seed`` it set (:data:`_SAID_AS`)."""
    changes = {
        key: (x, y)
        for key, (x, y) in _changed(a, b).items()
        if (key not in _RECORDED_LATER or (key in a and key in b))
        and not (key in _UNORDERED and _same_items(x, y))
        and not (key.endswith("maxontsim_formula") and same_formula(x, y))
    }
    for key, given in _SAID_AS.items():
        if key in changes and changes.get(given) == changes[key]:
            del changes[key]
    return changes


# a setting recorded twice by score --routing --report: the routing metrics' settings
# hold the seed and resamples of the resampling block (score --seed's): a change of one
# is said once, by the resampling block's name
_SAID_AS = {f"routing.{k}": f"resampling.{k}" for k in RESAMPLING}


# options of a value per measure: a comparison's settings.better (which way each is better)
_PER_MEASURE = ("better",)


def _of_shared_measures(a: ReportView, b: ReportView) -> tuple[dict, dict]:
    """The two reports' options, those of a value per measure (:data:`_PER_MEASURE`) on
    the measures both asked for: a measure only one asked for is said as a measure, not
    as an option (compare -m P@5 against -m map)."""
    shared = set(a.measures) & set(b.measures)
    kept = []
    for options in (a.options, b.options):
        kept.append(
            {
                key: {m: v for m, v in value.items() if m in shared}
                if key in _PER_MEASURE and isinstance(value, dict)
                else value
                for key, value in options.items()
            }
        )
    return kept[0], kept[1]


def _same_items(x: Any, y: Any) -> bool:
    return isinstance(x, list) and isinstance(y, list) and sorted(x) == sorted(y)


# input kinds recorded only by newer reports, each named by the option of its name
_NAMED_BY_OPTION = ("zscores", "ontology")


def _recorded_inputs(pairs: list[tuple], a: dict, b: dict) -> list[tuple]:
    """The paired inputs that differ, less a file one report does not record where both
    name the same file in their options (an older report's -Z file): not recorded there
    is no difference."""

    def unrecorded(x, y) -> bool:
        kind = (x or y)["kind"]
        return (x is None or y is None) and kind in _NAMED_BY_OPTION and a.get(kind) == b.get(kind)

    return [(x, y) for x, y in pairs if not unrecorded(x, y)]


def _paired_runs(a: ReportView, b: ReportView) -> list[tuple[str, str]]:
    """Runs both reports hold, paired as their files are (:func:`_matched`): by name, then
    by the file they were read from (a run renamed); never a run with another."""
    pairs = _matched(_runs_of(a), _runs_of(b))
    return [(x["name"], y["name"]) for x, y in pairs if x is not None and y is not None]


def _runs_of(view: ReportView) -> list[dict]:
    """Each run of ``view`` as ``{name, sha256, size}`` of the file it was read from
    (no file: an in-memory run, paired by name only)."""
    files = {
        item["name"]: item for item in view.inputs if item["kind"] == "run" and item.get("name")
    }
    return [
        {
            "name": run,
            "sha256": files.get(run, {}).get("sha256"),
            "size": files.get(run, {}).get("size"),
        }
        for run in view.values
    ]


def _label(run_a: str | None, run_b: str | None) -> str | None:
    return run_a if run_a == run_b else f"{run_a} -> {run_b}"


def _topic_changes(a: ReportView, b: ReportView) -> list[TopicsChange]:
    changes = []
    for run_a, run_b in _paired_runs(a, b):
        topics_a, topics_b = a.per_query.get(run_a, {}), b.per_query.get(run_b, {})
        only_a = [qid for qid in topics_a if qid not in topics_b]
        only_b = [qid for qid in topics_b if qid not in topics_a]
        if only_a or only_b:
            changes.append(TopicsChange(_label(run_a, run_b), only_a, only_b))
    return changes


def _value_changes(
    a: ReportView, b: ReportView, progress: Callable[[str, int, int], None] | None = None
) -> list[ValueChange]:
    """Every run and measure whose printed mean differs or whose printed value on a topic
    both reports hold differs (a mean can stay while its topics move); ``progress`` told
    of each run and measure compared (``diffing values``)."""
    from ..inputs.streams import steps

    changes = []
    pairs = [
        (run_a, run_b, measure)
        for run_a, run_b in _paired_runs(a, b)
        for measure in _compared(a, b, run_a, run_b)
    ]
    step = steps(progress, "diffing values", len(pairs))
    for run_a, run_b, measure in pairs:
        x, y = a.values[run_a].get(measure), b.values[run_b].get(measure)
        moved = _moved(a.per_query.get(run_a, {}), b.per_query.get(run_b, {}), measure)
        if printed(x) != printed(y) or moved:
            movers = moved[:MOVERS]
            changes.append(ValueChange(_label(run_a, run_b), measure, x, y, movers, len(moved)))
        step()
    return changes


def _compared(a: ReportView, b: ReportView, run_a: str, run_b: str) -> list[str]:
    """The measures whose means of a run are compared: those both reports hold, and those
    both asked for, where a mean one report lacks is none (null), as a topic's value one
    lacks is (:func:`_moved`); skipped, a report with a mean deleted was "the same" (exit
    0). A measure only one asked for is a difference of the measures, said there."""
    held_a, held_b = a.values[run_a], b.values[run_b]
    asked = set(a.measures) & set(b.measures)
    return [
        m for m in dict.fromkeys([*held_a, *held_b]) if (m in held_a and m in held_b) or m in asked
    ]


def _section_changes(a: ReportView, b: ReportView) -> list[SectionChange]:
    """Every field of a section both reports hold whose value differs, on the runs they
    share (a section only one holds differs in its option: said there; so does a group
    only one holds, :data:`_BY_GROUP`). A row only one holds, of a measure both asked
    for, differs in each of its fields (the other side's null): skipped, a report with a
    bound deleted was "the same" (exit 0), as one with a mean deleted was."""
    paired: dict[str | None, str | None] = dict(_paired_runs(a, b))
    paired[None] = None  # the rows of no run (the routing metrics) pair with each other
    back = {run_b: run_a for run_a, run_b in paired.items()}
    asked = set(a.measures) & set(b.measures)
    changes = []
    for section in [name for name in SECTIONS if name in a.sections and name in b.sections]:
        rows_a, rows_b = a.sections[section], b.sections[section]
        only_b = [(back[run], measure) for run, measure in rows_b if run in back]
        for run, measure in dict.fromkeys([*rows_a, *only_b]):
            x = rows_a.get((run, measure))
            y = rows_b.get((paired.get(run), measure))
            alone = x is None or y is None
            if alone and (run not in paired or measure not in asked):
                continue  # a run or measure only one report has: said there
            x, y = x or {}, y or {}
            label = _label(run, paired[run])
            names = [
                n
                for n in dict.fromkeys([*x, *y])
                if alone or section not in _BY_GROUP or (n in x and n in y)
            ]
            changes += [
                SectionChange(section, label, measure, name, x.get(name), y.get(name))
                for name in names
                if len(set(field_texts(x.get(name), y.get(name), name))) > 1
            ]
    return changes


# sections of a field per group: a group only one report holds is one of a grouping only
# one has (said by the option group_by) or of another strata sidecar (said as an input)
_BY_GROUP = ("groups",)


def _moved(a: dict, b: dict, measure: str) -> list[tuple[str, float | None]]:
    """The topics both hold whose printed values of ``measure`` differ, the largest change
    first (a change to or from null first of all)."""
    moved = []
    for qid in a.keys() & b.keys():
        x, y = a[qid].get(measure), b[qid].get(measure)
        if printed(x) != printed(y):
            moved.append((qid, None if x is None or y is None else y - x))
    moved.sort(key=_by_printed_change)
    return moved


def _by_printed_change(item: tuple[str, float | None]) -> tuple[float, str]:
    """The order of moved topics: the largest change as printed first (to or from null
    first of all; :func:`~trecbench.number_text.value_text`, two significant digits below
    0.00005), then by topic id: 0.1 - 0.3 and 0.3 - 0.5 print alike, -0.2000, but differ
    in their last bits, which ordered them."""
    qid, change = item
    if change is None or not isfinite(change):  # n/a: beyond a double, as null first
        return (-inf, qid)
    return (-float(value_text(abs(change))), qid)


@outputs.in_input_scope  # each input's record taken as it is read, not read again
def diff_reports(
    path_a: str, path_b: str, progress: Callable[[str, int, int], None] | None = None
) -> ReportDiff:
    """Compare report files ``path_a`` and ``path_b`` (see the module docstring) into a
    :class:`ReportDiff`; ``progress(label, done, total)`` is told of reading each
    (``reading PATH``, bytes), checking it
    (``checking PATH``, :func:`~trecbench.runstudy.reportview.read_view`) and comparing
    the values (``diffing values``, a step per run and measure).

    >>> result = diff_reports("last-week.json", "today.json")  # doctest: +SKIP
    >>> result.cause  # doctest: +SKIP
    'the qrels differ: ...'
    """
    from ..report import input_record
    from ..sources import reading_shown

    with reading_shown(progress):
        a = read_view(path_a, progress)
        # one pipe or standard input named twice (`diff - -`) is read once and is the same
        # as itself, as GNU diff has it and as a regular file given twice is: read again it
        # was empty
        once = read_once_given_twice([path_a, path_b]) is not None
        b = replace(a, path=path_b) if once else read_view(path_b, progress)
    if a.kind != b.kind:
        article = "an" if b.kind[0] in "AEIOU" else "a"
        message = f"this is {article} {b.kind}, {path_a} is not: only reports of one kind compare"
        raise InputError(path_b, 1, message)
    inputs = _recorded_inputs(_paired_inputs(a, b), a.options, b.options)
    options = _recorded_changes(*_of_shared_measures(a, b))
    versions = _changed(a.versions, b.versions)
    # the engine says who computed the values (the same by tests), not what: a version
    versions.update({key: options.pop(key) for key in _WHO_COMPUTES if key in options})
    # the order of -m or of the runs given is no difference between the evaluations
    measures = (a.measures, b.measures) if set(a.measures) != set(b.measures) else None
    spellings = _changed(a.spellings, b.spellings)
    runs = (list(a.values), list(b.values)) if set(a.values) != set(b.values) else None
    renamed = [(x, y) for x, y in _paired_runs(a, b) if x != y] if runs else []
    topics = _topic_changes(a, b)
    values = _value_changes(a, b, progress)
    sections = _section_changes(a, b)
    parts = (inputs, options, versions, measures, spellings, runs, topics, values, sections)
    names = (escape_text(path_a), escape_text(path_b))
    said = {k: displayed(k, a, b) for k in spellings}  # a measure named as its values are
    # versions alone leave the evaluations the same (ReportDiff.same): no cause then
    differs = any(parts[:2] + parts[3:])
    cause = likely_cause(*parts[:-1], names=names, said=said, renamed=renamed) if differs else None
    # the two reports' records (path, kind, size, sha256), taken as they were read
    record_a = input_record(path_a, "report")
    records = (
        record_a,
        {**record_a, "path": str(path_b)} if once else input_record(path_b, "report"),
    )
    return ReportDiff(
        a, b, inputs, options, versions, measures, spellings, runs, topics, values, cause,
        sections, records, _changed_as_written(a.meta, b.meta), _described(a, b, inputs),
    )  # fmt: skip
