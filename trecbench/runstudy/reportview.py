"""A report file as what ``trecbench diff`` compares: an EvaluationReport or a
BenchmarkReport read into one :class:`ReportView` (its inputs, options, versions, measure
spellings, values, and the sections of values beside the means).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from ..errors import InputError
from ..renderers.text_tables import p_text

KINDS = ("EvaluationReport", "BenchmarkReport")
# the sections of values beside the means, by what the diff calls them: per run and
# measure, a row of fields (compare's tests against the baseline, --power,
# --unjudged-bounds, the tie bounds, score's grouped means, compare --group-by's strata);
# the routing log's metrics (score --routing, a benchmark's), a row per metric, of no run
SECTIONS = ("comparisons", "power", "unjudged_bounds", "tie_bounds", "routing", "groups")
# a comparison's p-values (its rows against the baseline), compared as compare prints them
P_VALUES = ("p_value", "p_adjusted", "welch_p", "welch_p_adjusted")
ROUTING_ROWS = ("routing_accuracy", "gate_efficiency", "gate")
GROUP_MEANS = ("macro", "micro", "spread")  # score --group-by's means over the groups
# the settings of score's resampling block compared as options (its drawn_for says which
# of --routing and --html drew: their own options, not the evaluation's)
RESAMPLING = ("seed", "samples")


def printed(value: float | None) -> str:
    """A mean or a topic's value as compared: four decimals, as trec_eval prints it, zero
    without a sign (-0.0, or -0.00004, is the 0.0000 of the other report: format's ``z``,
    which Python 3.10 lacks)."""
    if value is None:
        return "null"
    text = f"{value:.4f}"
    return "0.0000" if text == "-0.0000" else text


def written(value: Any) -> str:
    """A report's value as the reports write it (JSON: ``true``, ``null``, ``"0.1.0"``)."""
    return json.dumps(value, ensure_ascii=False)


def field_texts(x: Any, y: Any, name: str = "") -> tuple[str, str]:
    """Two reports' values of a section's field ``name`` as compared and printed: a
    p-value as compare prints it (2.8e-17, not 0.0000), a fraction by its printed text,
    four decimals (as the means), anything else (a count, a flag, a reason) as the report
    writes it. A whole number beside a float is that float: JSON has one number, and
    JavaScript's and Go's writers save 1.0 as ``1``."""
    if {type(x), type(y)} == {int, float} and max(abs(x), abs(y)) < 2**1023:
        x, y = float(x), float(y)
    return _field_text(x, name), _field_text(y, name)


def _field_text(value: Any, name: str) -> str:
    if isinstance(value, float) and name in P_VALUES:
        return p_text(value)
    return printed(value) if isinstance(value, float) else written(value)


@dataclass(frozen=True)
class ReportView:
    """What a report says about its evaluation, whichever kind it is: ``values`` and
    ``per_query`` are ``{run: {measure: mean}}`` and ``{run: {qid: {measure: value}}}``."""

    path: str
    kind: str
    inputs: list[dict]
    options: dict
    versions: dict
    measures: list[str]
    spellings: dict[str, str]  # a value's display name -> the spelling(s) it was asked by
    values: dict[str, dict[str, float | None]]
    per_query: dict[str, dict[str, dict[str, float | None]]]
    # section (SECTIONS) -> (run, measure) -> {field: value}: only the sections it holds
    # (run None: a section of the whole report, the routing metrics)
    sections: dict[str, dict[tuple[str | None, str], dict[str, Any]]] = field(default_factory=dict)
    # run -> the qrels input (of ``inputs``) it was scored with, where the report says
    # (a comparison's runs[].qrels: compare --run-qrels gives each run its own)
    run_qrels: dict[str, dict] = field(default_factory=dict)
    # canonical name -> the name its values are shown by (its one column's: nDCG@10 for
    # ndcg_cut.10; a family of several columns, P, by its canonical name)
    displays: dict[str, str] = field(default_factory=dict)
    # the columns whose values are counts (the registry's COUNTS: num_ret...), printed as
    # integers as score prints them; none under -Z (z-scores) or in a benchmark report
    # (a count's mean there is per topic)
    counts: frozenset[str] = frozenset()
    # descriptions of the experiment, no part of the evaluation: the user's --meta pairs,
    # and the ir_metadata block of each input file that has one, by the file's sha256
    meta: dict = field(default_factory=dict)
    ir_metadata: dict[str, Any] = field(default_factory=dict)


def read_view(path: str, progress: Callable[[str, int, int], None] | None = None) -> ReportView:
    """A report file as a :class:`ReportView`; anything but an EvaluationReport or a
    BenchmarkReport is bad input (exit 2). ``progress("checking PATH", done, total)`` is
    told of its check against the schema (a step per run's per-topic values, then the
    rest); the file's reading is told to :func:`~trecbench.sources.reading_shown`'s."""
    from ..errors import OutputError
    from ..report import validate_against_schema
    from ..sources import read_json

    label = f"checking {path}"
    steps = [0]  # the check's, as _without_values counts them

    def told(done: int, total: int) -> None:
        steps[0] = total
        if progress is not None:
            progress(label, done, total)

    try:
        document = read_json(path, "report", file_names=True)  # as score wrote them
    except InputError as error:
        if not error.message.startswith("invalid JSON"):
            raise
        raise InputError(
            error.path, error.line, f"{error.message}; diff compares two reports (JSON: "
            "score --report, benchmark's BenchmarkReport.json), not runs or qrels",
        ) from None  # fmt: skip
    report = document.root.expect_object(document.value)
    kind = report.get("type")
    if kind not in KINDS:
        what = "it has no type" if kind is None else f"its type is {kind!r}"
        raise InputError(path, 1, f"not an EvaluationReport or a BenchmarkReport ({what})")
    schema = "evaluation_report" if kind == "EvaluationReport" else "benchmark_report"
    try:
        try:
            # the per-topic values checked in bulk, the rest by the schema
            validate_against_schema(_without_values(report, told), schema)
        except OutputError:
            validate_against_schema(report, schema)  # the refusal as the schema says it
        told(steps[0], steps[0])
    except OutputError as error:
        raise InputError(path, None, f"does not match the {kind} schema: {error}") from None
    reader = _evaluation_view if kind == "EvaluationReport" else _benchmark_view
    blocks = {
        item["sha256"]: item["ir_metadata"]
        for item in report.get("inputs", [])
        if item.get("sha256") and item.get("ir_metadata") is not None
    }
    return replace(reader(path, report), meta=dict(report.get("meta") or {}), ir_metadata=blocks)


def _without_values(report: dict, told: Callable[[int, int], None]) -> dict:
    """``report`` with the per-topic values left empty wherever they are what the schema
    asks (objects of objects of numbers and nulls: :func:`_plain_values`), checked here
    at once rather than value by value by ``jsonschema`` (seconds for a large report); a
    report whose values are not is left as it is, for the schema to say why."""
    if report.get("type") == "BenchmarkReport":
        runs = report.get("per_query")
        told(0, 2)
        plain = isinstance(runs, dict) and _plain_values(runs, 3)
        told(1, 2)
        return {**report, "per_query": {}} if plain else report
    results = report.get("results")
    if not isinstance(results, list):
        return report
    kept = []
    for done, result in enumerate(results):
        told(done, len(results) + 1)
        values = result.get("per_query") if isinstance(result, dict) else None
        plain = isinstance(values, dict) and _plain_values(values, 2)
        kept.append({**result, "per_query": {}} if plain else result)
    told(len(results), len(results) + 1)
    return {**report, "results": kept}


def _plain_values(node: dict, depth: int) -> bool:
    """Whether ``node`` is ``depth`` levels of objects (itself the first) whose leaves are
    numbers or nulls, as the schemas' per-topic values are: each level's types checked
    once each, by the schemas' own type checker (a number is never a boolean)."""
    from ..json_schemas import schema_validator

    is_type = schema_validator({}).is_type
    level = [node]
    for _ in range(depth):
        if any(type(item) is not dict for item in level):
            return False
        level = [value for item in level for value in item.values()]
    by_type = {type(value): value for value in level}  # a value of each type
    return all(is_type(v, "number") or is_type(v, "null") for v in by_type.values())


def _versions(report: dict) -> dict:
    environment = report.get("environment") or {}
    versions = {"trecbench": (report.get("tool") or {}).get("version")}
    versions |= {name: v for name, v in (environment.get("packages") or {}).items()}
    return versions | {"python": environment.get("python")}


def _inputs(report: dict) -> list[dict]:
    keep = ("path", "kind", "size", "sha256", "name")  # name: the run a run file is scored as
    return [{key: item.get(key) for key in keep} for item in report.get("inputs", [])]


def _evaluation_view(path: str, report: dict) -> ReportView:
    # a value (by its display name) -> how it was asked: every name the call shows it under
    # where it has several (names that follow from the -m words), else the -m word that gave
    # it; ", " between two, in byte order (`-m P.5 -m P@5` and `-m P@5 -m P.5` ask alike,
    # whichever measure of the call holds the value)
    asked: dict[str, set[str]] = {}
    for m in report.get("measures", []):
        for column in m.get("columns", []):
            names = column.get("names") or (m["requested"],)
            asked.setdefault(column["name"], set()).update(names)
    spellings = {value: ", ".join(sorted(names)) for value, names in asked.items()}
    columns = [c["name"] for m in report.get("measures", []) for c in m.get("columns", [])]
    options = dict(report.get("options") or {})
    options["trec_eval_semantics"] = report.get("trec_eval_semantics")
    options |= _routing_options(report.get("routing"))
    # score --seed: the seed and resamples of --routing's and --html's intervals, where
    # the call drew any (a report of no drawing records none: compared where both do)
    resampling = report.get("resampling") or {}
    options |= {f"resampling.{k}": resampling[k] for k in RESAMPLING if k in resampling}
    groups = report.get("groups")
    # score's grouped means came with --group-by (abaa549): a report that does not
    # record group_by (older ones) says what it grouped by in its groups
    options.setdefault("group_by", list(groups or {}))
    results = report.get("results", [])
    names = [r["run"] for r in results]
    _refuse_twice(path, "results", names)
    held: list[tuple[str, Iterable[str]]] = []
    for i, r in enumerate(results):
        held.append((f"results[{i}].aggregates", r.get("aggregates") or {}))
        held.append((f"results[{i}].per_query", _topic_measures(r.get("per_query") or {})))
    _check_columns(path, held, columns)
    # score --tie-bounds and --unjudged-bounds: options, and sections of values
    ties = [
        {"run": r["run"], "measure": name, "tied_topics": r["tie_bounds"]["tied_topics"], **entry}
        for r in results
        if "tie_bounds" in r
        for name, entry in r["tie_bounds"]["measures"].items()
    ]
    # the bounds asked for, as the report records them (an older report does not say:
    # it is not compared on them, see _recorded_changes)
    rows = {
        "tie_bounds": ties if options.get("tie_bounds") else None,
        "unjudged_bounds": report.get("unjudged_bounds"),
        "routing": _routing_rows(report.get("routing")),
        "groups": _group_rows(groups),
    }
    return ReportView(
        path,
        report["type"],
        _inputs(report),
        options,
        _versions(report),
        columns,
        spellings,
        {r["run"]: dict(r.get("aggregates") or {}) for r in results},
        {r["run"]: dict(r.get("per_query") or {}) for r in results},
        _checked_sections(path, rows, names, columns),
        displays={
            m["canonical"]: m["columns"][0]["name"]
            if len(m.get("columns", [])) == 1
            else m["canonical"]
            for m in report.get("measures", [])
        },
        counts=frozenset() if options.get("zscores") else _counts(report.get("measures", [])),
    )


def _check_columns(path: str, held: list[tuple[str, Iterable[str]]], columns: list[str]) -> None:
    """Every mean and topic's value a report holds (``held``: where, the measures there)
    is of a column of its measures: one of no column (an edited report) was never
    compared, and diff said "the same" of a report holding a mean the other has not."""
    known = set(columns)
    for place, names in held:
        stray = next((name for name in names if name not in known), None)
        if stray is not None:
            raise InputError(
                path, None, f"{place}: {stray!r} is no column of the report's measures"
            )


def _topic_measures(values: dict) -> set[str]:
    """The measures the per-topic values ``values`` (topic -> measure -> value) hold."""
    return set().union(*values.values())


def _counts(measures: list[dict]) -> frozenset[str]:
    """The columns of ``measures`` (a report's) whose family the registry sums over topics
    (:data:`~trecbench.measures.COUNTS`, as score's text renderer decides); a name the
    registry does not know (a report of another version) is no count."""
    import warnings

    from ..errors import TrecbenchError
    from ..measures import COUNTS, parse_measure

    counted = set()
    for m in measures:
        try:
            with warnings.catch_warnings():  # (a spelling outside a domain warns)
                warnings.simplefilter("ignore")
                summary = parse_measure(m["canonical"]).definition.summary
        except TrecbenchError:  # a name the registry refuses
            continue
        if summary in COUNTS:
            counted.update(c["name"] for c in m.get("columns", []))
    return frozenset(counted)


def _benchmark_view(path: str, report: dict) -> ReportView:
    settings = dict(report.get("settings") or {})
    measures = list(settings.get("measures") or [])
    options = {f"evaluation.{k}": v for k, v in (report.get("evaluation") or {}).items()}
    options |= {k: v for k, v in settings.items() if k != "measures"}
    power = report.get("power")  # compare --power: its alpha and target power
    options |= {f"power.{k}": v for k, v in ((power or {}).get("settings") or {}).items()}
    options["unjudged_bounds"] = "unjudged_bounds" in report  # compare --unjudged-bounds
    routing = (report.get("benchmark") or {}).get("routing")
    options |= _routing_options(routing)
    inputs = _inputs(report)
    qrels = {item["path"]: item for item in inputs if item["kind"] == "qrels"}
    run_qrels = {
        run["name"]: qrels[run["qrels"]] for run in report["runs"] if run.get("qrels") in qrels
    }
    held: list[tuple[str, Iterable[str]]] = [
        (f"results[{i}].summary", {row["measure"] for row in part.get("summary", [])})
        for i, part in enumerate(report.get("results", []))
    ]
    held += [
        (f"per_query.{run}", _topic_measures(topics))
        for run, topics in (report.get("per_query") or {}).items()
    ]
    _check_columns(path, held, measures)
    names = _benchmark_runs(path, report)
    overall = next((r for r in report.get("results", []) if r.get("kind") == "all"), {})
    values: dict[str, dict] = {}
    for row in overall.get("summary", []):
        values.setdefault(row["run"], {})[row["measure"]] = row.get("mean")
    ties = [
        {
            "run": row["run"],
            "measure": row["measure"],
            "low": row.get("tie_low"),
            "high": row.get("tie_high"),
        }
        for row in overall.get("summary", [])
        if "tie_low" in row or "tie_high" in row
    ]
    rows = {
        # each run against the baseline over all topics: the difference, its interval,
        # tests and verdict (the all-pairs rows and the strata's tests are not compared)
        "comparisons": overall.get("comparisons"),
        "power": (power or {}).get("rows"),
        "unjudged_bounds": (report.get("unjudged_bounds") or {}).get("rows"),
        "tie_bounds": ties if settings.get("tie_bounds") else None,
        "routing": _routing_rows(routing),
        "groups": _strata_rows(report.get("results", [])),
    }
    return ReportView(
        path,
        report["type"],
        inputs,
        options,
        _versions(report),
        measures,
        {m: m for m in measures},
        values,
        dict(report.get("per_query") or {}),
        _checked_sections(path, rows, names, measures),
        run_qrels,
    )


def _routing_options(routing: dict | None) -> dict:
    """Whether a report holds a routing log's metrics (``routing``), and the settings of
    their intervals (``routing.samples``, ``routing.seed``...) where it does."""
    settings = (routing or {}).get("settings") or {}
    return {"routing": routing is not None} | {f"routing.{k}": v for k, v in settings.items()}


def _routing_rows(routing: dict | None) -> list[dict] | None:
    """The routing metrics as a section's rows of no run: each rate's ``value``,
    ``ci_low``, ``ci_high`` and ``queries``, and the gate's counts."""
    if routing is None:
        return None
    return [{"run": None, "measure": name, **routing[name]} for name in ROUTING_ROWS]


def _group_rows(groups: dict | None) -> list[dict] | None:
    """score --group-by's grouped means as a section's rows, one per run and measure (and
    ``n``, the sizes): a field per group (``lang=de``) and per mean over the groups
    (``lang:macro``, ``lang:micro``, ``lang:spread``), named as score's trec text prints
    them (:func:`~trecbench.escaping.group_place`: escaped, one name a place)."""
    from ..escaping import group_place

    if groups is None:
        return None
    rows: dict[tuple[str, str], dict[str, Any]] = {}
    for by, runs in groups.items():
        for run, entry in runs.items():
            parts = [(group_place(by, "group", g), values) for g, values in entry["groups"].items()]
            parts += [(group_place(by, mean), entry.get(mean) or {}) for mean in GROUP_MEANS]
            for name, values in parts:
                for measure, value in values.items():
                    rows.setdefault((run, measure), {"run": run, "measure": measure})[name] = value
    return list(rows.values())


def _strata_rows(results: list[dict]) -> list[dict] | None:
    """compare --group-by's sections beside the one of all topics as the ``groups``
    section's rows, as score's grouped means are (:func:`_group_rows`): per run and
    measure a field per stratum (``lang=de``) and per macro mean (``lang:macro``), its
    mean; and a row ``n`` of no run, each stratum's topics (every run's)."""
    from ..escaping import group_place

    parts = [r for r in results if r.get("kind") in ("macro", "stratum")]
    if not parts:
        return None
    rows: dict[tuple[str | None, str], dict[str, Any]] = {}
    for part in parts:
        by = part["field"]
        name = group_place(by, "group", part["value"]) if part["kind"] == "stratum" else None
        name = name or group_place(by, "macro")
        for row in part.get("summary", []):
            key = (row["run"], row["measure"])
            rows.setdefault(key, {"run": key[0], "measure": key[1]})[name] = row.get("mean")
        if part["kind"] == "stratum":
            rows.setdefault((None, "n"), {"run": None, "measure": "n"})[name] = part["topics"]
    return list(rows.values())


def _benchmark_runs(path: str, report: dict) -> list[str]:
    """A BenchmarkReport's runs (``runs[].name``), each once; every run its per-topic
    values and each section's summary rows are of, and each (run, measure) a section's
    summary holds once: an edited report's second row had silently won, and values of a
    run of none were never compared ("the same")."""
    names = [run["name"] for run in report["runs"]]
    _refuse_twice(path, "runs", names)
    stray = next((run for run in report.get("per_query") or {} if run not in names), None)
    if stray is not None:
        raise InputError(path, None, f"per_query: {stray!r} is no run of the report's runs")
    for i, part in enumerate(report.get("results", [])):
        _check_rows(path, f"results[{i}].summary", part.get("summary", []), names, None)
    return names


def _refuse_twice(path: str, place: str, names: list[str]) -> None:
    """Refuse a report whose ``place`` lists a run of ``names`` twice."""
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise InputError(path, None, f"{place}: the run {name!r} is listed twice")
        seen.add(name)


def _checked_sections(path: str, rows: dict, runs: list[str], columns: list[str]) -> dict:
    """The sections a report holds (``rows``: section -> its rows, None where it holds
    none), each keyed by run and measure (:func:`_keyed`) once checked: every row of a
    run of ``runs`` (of none only in the routing metrics and the strata's sizes) and of a
    measure of ``columns`` (a routing metric's; ``n``, the groups' sizes), each once."""
    measures = set(columns)
    keyed = {}
    for section, found in rows.items():
        if found is None:
            continue
        known = set(ROUTING_ROWS) if section == "routing" else measures
        known |= {"n"} if section == "groups" else set()
        _check_rows(path, section, found, runs, known, section in ("routing", "groups"))
        keyed[section] = _keyed(found)
    return keyed


def _check_rows(
    path: str, place: str, rows: list[dict], runs, measures, of_no_run: bool = False
) -> None:
    """Each of ``rows`` of a run of ``runs`` (or of none, where ``of_no_run``) and of a
    measure of ``measures`` (None: any), no (run, measure) twice."""
    seen = set()
    for row in rows:
        run, measure = row["run"], row["measure"]
        if not (run in runs or (run is None and of_no_run)):
            raise InputError(path, None, f"{place}: {run!r} is no run of the report's runs")
        if measures is not None and measure not in measures:
            raise InputError(
                path, None, f"{place}: {measure!r} is no column of the report's measures"
            )
        if (run, measure) in seen:
            raise InputError(
                path, None, f"{place}: the row of run {run!r} and {measure!r} is listed twice"
            )
        seen.add((run, measure))


def _keyed(rows: list[dict]) -> dict[tuple[str | None, str], dict[str, Any]]:
    """A section's rows by run and measure, each with its other fields (the baseline a
    row compares with is the report's: an option)."""
    return {
        (row["run"], row["measure"]): {
            k: v for k, v in row.items() if k not in ("run", "measure", "baseline")
        }
        for row in rows
    }
