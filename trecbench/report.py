"""Reproducibility records: the EvaluationReport and the ExperimentManifest.

An **EvaluationReport** says what was computed: measures (as requested, their canonical
name and the engine that computed them), aggregate and per-query values, flagged topics,
options, and the inputs (size, sha256, lines, topics, run tags). An **ExperimentManifest**
says how the experiment ran: id, UTC time, command line, environment, git commit, the
user's ``--meta key=value`` pairs, and every input and output with its sha256.

Both are plain dicts that match the JSON Schemas shipped in ``trecbench/schemas/``; they
are built to match by construction; :func:`validate_against_schema` checks them (the tests
validate every generated shape), importing ``jsonschema`` only then
(:mod:`trecbench.json_schemas` holds the schemas' loading and messages).

The small pieces (:func:`input_record`, :func:`tool`, :func:`environment`,
:func:`git_commit`, :func:`write_json`, :func:`bytes_record`, :func:`parse_meta`,
:func:`recorded_meta`, :func:`evaluation_records`) are meant to be reused by other reports.
"""

from __future__ import annotations

import dataclasses
import inspect
import itertools
import json
import math
import os
import shlex
import uuid
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from . import __version__, provenance
from .errors import OutputError, Setting, UsageError
from .json_schemas import schema_refusal
from .json_values import json_safe
from .meta_values import parse_meta, recorded_meta  # noqa: F401 - the reports' small pieces
from .provenance import (  # noqa: F401 - re-exported: the reports' small pieces
    OPTIONAL_PACKAGES,
    PACKAGES,
    bytes_record,
    command_argv,
    file_digest,
    git_commit,
    new_stamp,
    utc_now,
)
from .text_bytes import utf8

REPORT_SCHEMA = "evaluation_report"
MANIFEST_SCHEMA = "experiment_manifest"
SCHEMA_VERSION = 1


# ---------------------------------------------------------------------------------------
# small reusable pieces


def _streamed_counts(path: str | os.PathLike, kind: str) -> dict:
    """Lines, topics and tags of a file read chunk by chunk (bounded memory); the reading
    takes the file's checksum on the way (see :mod:`trecbench.provenance`). A Parquet or
    JSONL run is read through its format's reader, not as TREC text."""
    from . import arrow_compute as pc
    from . import invalid_utf8
    from .inputs import formats, load, table_counts, trec_text
    from .inputs.streams import sniff

    try:
        found = sniff(path)[1]
    except OSError:
        found = formats.TREC_TEXT  # the reader below says why it cannot be read
    if found is not formats.TREC_TEXT:
        return table_counts(load(path, kind).table, kind)

    lines, qids, tags, last_tag = 0, set(), set(), None
    for tokens in trec_text.iter_tokens(path, keep=6 if kind == "run" else 1):
        if not len(tokens):
            continue
        lines += len(tokens)
        qids.update(pc.unique(tokens.fields[0]).to_pylist())
        if kind == "run":
            chunk_tags = tokens.fields[5]
            tags.update(pc.unique(chunk_tags).to_pylist())
            last_tag = chunk_tags[len(chunk_tags) - 1].as_py()
    qids.discard(None)
    record = {"lines": lines, "topics": len(qids)}
    if kind == "run":
        tags.discard(None)
        # a tag's bytes that are not UTF-8 as \xNN, as the validator shows them
        shown_tags = sorted({invalid_utf8.shown(tag) for tag in tags})
        record |= {"run_tag": last_tag and invalid_utf8.shown(last_tag), "run_tags": shown_tags}
    return record


def input_record(
    path: str | os.PathLike, kind: str, table: Any = None, counts: Mapping | None = None
) -> dict:
    """Describe a file: ``path``, ``kind``, ``size``, ``sha256``; for runs and qrels also
    ``lines`` (non-blank lines), ``topics`` (distinct qids) and, for runs, ``run_tag`` (the
    tag of the last line, which trec_eval prints as ``runid``) and ``run_tags`` (all tags).

    ``kind`` is ``"run"``, ``"qrels"`` or any other word (``"ontology"``, ``"report"``...)
    for which only size and checksum are recorded. Pass the parsed ``table`` (pyarrow Table
    or DataFrame with ``qid``/``tag`` columns) when the caller has it, or those ``counts``
    when they are already known; otherwise the file is tokenized chunk by chunk. The file
    is read at most once: not at all when a reader of the call read it already (its
    checksum was taken then, see :mod:`trecbench.provenance`), else once for the counts
    and the checksum together. Records of an evaluation's inputs are
    :attr:`trecbench.evaluation.Evaluation.input_records`.
    """
    from .inputs import table_counts

    with provenance.record_scope():  # the call's, or one for this record
        if kind in ("run", "qrels") and counts is None and table is None:
            counts = _read_counts(path, kind)
        if kind in ("run", "qrels") and counts is None:
            counts = (
                table_counts(table, kind) if table is not None else _streamed_counts(path, kind)
            )
        size, sha256 = file_digest(path)
    record: dict[str, Any] = {"path": str(path), "kind": kind, "size": size, "sha256": sha256}
    return record | dict(counts) if kind in ("run", "qrels") else record


def _read_counts(path: str | os.PathLike, kind: str) -> dict | None:
    """The counts a reader of the current call kept with the checksum of ``path`` read as
    ``kind`` (:func:`trecbench.inputs.load`), or None."""
    known = provenance.recorded(path)
    if known is None or known.get("kind") != kind or "lines" not in known:
        return None
    return {k: v for k, v in known.items() if k not in ("path", "kind", "size", "sha256")}


def read_records(files: Iterable[tuple[Any, str]]) -> list[dict]:
    """The records (:func:`input_record`) of those of ``files`` (``(source, kind)``) that
    are files, each once as each kind, in the order given (a table held in memory has
    none): taken as a reader of the current call read them, so that a pipe is not read
    again."""
    records: dict[tuple[str, str], dict] = {}  # each file once as each kind, as reports do
    for source, kind in files:
        if isinstance(source, (str, os.PathLike)) and (str(source), kind) not in records:
            records[str(source), kind] = input_record(source, kind)
    return list(records.values())


def tool() -> dict:
    """``{"name": "trecbench", "version": ...}``: what wrote a report, as every report
    records it."""
    return {"name": "trecbench", "version": __version__}


def environment() -> dict:
    """Python, platform and package versions, as every report and page records them
    (:func:`trecbench.provenance.environment`): the packages that can change a number,
    those of the measure providers ir_measures calls among them
    (:func:`trecbench.engines.providers.distributions`: cwl-eval, pyndeval)."""
    from .engines.providers import distributions

    return provenance.environment(tuple(distributions()))


def json_bytes(obj: Any) -> bytes:
    """Pretty, UTF-8 JSON with a final newline; NaN/Infinity are refused (not JSON)."""
    try:
        text = json.dumps(obj, indent=2, ensure_ascii=False, allow_nan=False)
    except ValueError as exc:
        raise OutputError(f"cannot write JSON: {exc}") from None
    return utf8(text + "\n")


# what a JSON report is, and the suffix to name it with (a compressed name is refused)
JSON_FILE = ("JSON", ".json")


def write_json(
    path: str | os.PathLike,
    obj: Any,
    inputs: Sequence[str | os.PathLike] = (),
    kind: str = "json",
) -> dict:
    """Write ``obj`` as JSON atomically (never over one of ``inputs``; a name saying
    compressed is refused: it is written uncompressed).

    Returns the output's record (``path``, ``kind``, ``size``, ``sha256``), computed from
    the bytes written, for a manifest's ``outputs``.
    """
    from .outputs import write_file

    data = json_bytes(obj)
    write_file(path, data, inputs, JSON_FILE)
    return bytes_record(path, kind, data)


def validate_against_schema(obj: Any, schema_name: str) -> None:
    """Check ``obj`` against a shipped schema; raises :class:`OutputError` on mismatch,
    ``schema: where: message`` (``where`` the value's path, ``/``-separated as in JSON)."""
    refused = schema_refusal(obj, schema_name)
    if refused is not None:
        keys, message = refused
        where = "/".join(str(part) for part in keys) or "(top level)"
        raise OutputError(f"{schema_name}: {where}: {message}")


# ---------------------------------------------------------------------------------------
# builders


def _json_number(value: float) -> float | None:
    """A value as the report holds it: a float, None for NaN and infinities."""
    value = float(value)
    return value if math.isfinite(value) else None


def _per_query_table(evaluation: Any, result: Any, names: list[str]) -> dict:
    """``{qid: {measure: value}}`` of a run's per-topic ``names`` (in the order of its
    per-topic columns), topics in code-point order: none without per-topic measures."""
    if not names:
        return {}
    rows = dict(zip(result.qids, evaluation.per_query_matrix(result).tolist(), strict=True))
    return {
        qid: dict(zip(names, map(_json_number, rows[qid]), strict=True)) for qid in sorted(rows)
    }


def _results(evaluation: Any) -> list[dict]:
    """One entry per run scored: ``aggregates`` ``{measure: value}`` and ``per_query``
    ``{qid: {measure: value}}`` with topics in trec_eval's byte-wise order (Python orders
    ``str`` by code point, which is UTF-8 byte order); measures named as printed (``-Z``:
    ``ZP@5``, its values z-scores). A run of text measures alone (``relstring``: ``score
    --format json`` has their text) is listed with no value, not left out. Scored with
    tie bounds (``score --tie-bounds``), each run's ``tie_bounds`` as ``score --format
    json`` writes them (:func:`trecbench.renderers.tiebounds.json_entry`)."""
    from .measures import RUNID, STRING
    from .renderers.tiebounds import json_entry

    per_topic = [evaluation.shown(c.display) for c in evaluation.columns if c.per_query]
    summary = [c for c in evaluation.columns if c.summary not in (RUNID, STRING)]
    results = []
    for result in evaluation.runs:
        table = _per_query_table(evaluation, result, per_topic)
        entry = {
            "run": str(result.name),
            "topics": evaluation.averaged_over(result),  # as score's table and num_q
            "topics_with_values": len(table),  # those per_query has
            "aggregates": {
                evaluation.shown(c.display): _json_number(result.summary[c.label]) for c in summary
            },
            "per_query": table,
        }
        if evaluation.settings.tie_bounds:
            entry["tie_bounds"] = json_safe(json_entry(result, evaluation))
        results.append(entry)
    return results


def _measure_records(evaluation: Any) -> list[dict]:
    """Each requested measure with the result keys (``columns``) it produced."""
    return [
        {
            "requested": measure.requested,
            "canonical": measure.canonical,
            "provider": measure.provider,
            "columns": [
                {
                    "name": evaluation.shown(column.display),
                    "trec_eval": evaluation.shown(column.trec_label),  # -Z: ZP_5, as printed
                    "engine": column.engine,
                    # every name the call shows it under (-m P.5 -m P@5: P.5 and P@5)
                    **({"names": list(column.names("asked"))} if column.also else {}),
                }
                for column in evaluation.columns
                if column.measure == measure
            ],
        }
        for measure in evaluation.measures
    ]


def build_evaluation_report(
    evaluation: Any,
    inputs: Sequence[dict],
    options: Mapping[str, Any] | None = None,
    *,
    experiment_id: str | None = None,
    meta: Mapping[str, Any] | None = None,
    ontology: Mapping[str, Any] | None = None,
    groups: Mapping[str, Any] | None = None,
    warnings: Sequence[str] | None = (),
    routing: Mapping[str, Any] | None = None,
    unjudged_bounds: Sequence[Mapping[str, Any]] | None = None,
    resampling: Mapping[str, Any] | None = None,
    created: str | None = None,
) -> dict:
    """The EvaluationReport of an evaluation (schema ``evaluation_report``).

    ``evaluation`` is a :class:`trecbench.evaluation.Evaluation` (or provides the same
    ``per_query``, ``aggregates``, ``measures``, ``columns``, ``flagged``, ``settings`` and
    ``options``).
    ``inputs`` are :func:`input_record` dicts; ``options`` default to the evaluation's
    (``complete`` for ``-c``, ``max_docs`` for ``-M``...).
    ``experiment_id`` links the report to its manifest, ``meta`` repeats the user's
    ``--meta`` pairs (model, parameters; a Python caller's values as JSON values,
    :func:`~trecbench.meta_values.recorded_meta`) so the report stands alone; ``ontology``
    (``release``, ``source``, ``sha256``) records the ontology behind ontology-aware
    measures; ``groups`` are grouped means (:func:`trecbench.renderers.strata.groups_document`),
    by the fields the options' ``group_by`` lists; ``warnings`` what the command warned
    about the grouping and the qrels (small groups, found-only qrels); ``routing`` the
    metrics of a routing log (:func:`trecbench.routing.routing_metrics`);
    ``unjudged_bounds`` the rows of ``score --unjudged-bounds``
    (:meth:`trecbench.conclusions.unjudged.UnjudgedBound.to_json`); ``resampling`` the
    seed and resamples of what the call drew at random (``score --seed``: ``{seed,
    samples, drawn_for}``), where it drew anything; ``created``: its time (default now;
    :func:`~trecbench.provenance.new_stamp`'s, shared with the call's other outputs).
    Tie bounds, kept by the evaluation, are in its results.
    """
    from .naming import listed
    from .type_names import python_type

    # looked up statically: the per_query property, asked, built a DataFrame (pandas)
    missing = object()
    wanted = ("per_query", "aggregates", "settings", "columns")
    if any(inspect.getattr_static(evaluation, name, missing) is missing for name in wanted):
        raise UsageError(f"evaluation: give an Evaluation, not {python_type(evaluation)}")
    inputs = listed(inputs, "inputs", "input records")  # text: refused, not its characters
    warnings = [] if warnings is None else listed(warnings, "warnings", "warnings' lines")
    report: dict[str, Any] = {
        "type": "EvaluationReport",
        "schema_version": SCHEMA_VERSION,
        "created": created or utc_now(),
        "experiment_id": experiment_id,
        "tool": tool(),
        # the version reproduced: --compat (trecbench.trec_eval.compat), 9.0.8 by default
        "trec_eval_semantics": evaluation.settings.compat,
        "environment": environment(),
        # which bounds were asked for, said whether or not any were found: a report
        # that does not say (older ones) is not compared on them (trecbench diff); and
        # the fields the means are grouped by (score --group-by), [] for none
        "options": json_safe(
            dict(evaluation.options if options is None else options)
            | {
                "tie_bounds": bool(evaluation.settings.tie_bounds),
                "unjudged_bounds": unjudged_bounds is not None,
                "group_by": list(groups or {}),
            }
        ),
        "meta": recorded_meta(meta),
        "measures": _measure_records(evaluation),
        "inputs": list(inputs),
        "results": _results(evaluation),
        "flagged_topics": [json_safe(dataclasses.asdict(flag)) for flag in evaluation.flagged],
    }
    if ontology is not None:
        report["ontology"] = json_safe(dict(ontology))
    if groups is not None:
        report["groups"] = json_safe(dict(groups))
    if warnings:
        report["warnings"] = list(warnings)
    if routing is not None:
        report["routing"] = json_safe(dict(routing))
    if unjudged_bounds is not None:
        report["unjudged_bounds"] = [json_safe(dict(row)) for row in unjudged_bounds]
    if resampling is not None:
        report["resampling"] = json_safe(dict(resampling))
    return report


def build_manifest(
    argv: Sequence[str],
    inputs: Sequence[dict],
    outputs: Sequence[dict],
    meta: Mapping[str, Any],
    experiment_id: str | None = None,
    *,
    cwd: str | os.PathLike | None = None,
    created: str | None = None,
    ontology: Mapping[str, Any] | None = None,
) -> dict:
    """The ExperimentManifest of one command (schema ``experiment_manifest``).

    ``argv`` is the full command line (:func:`~trecbench.provenance.command_argv`);
    ``inputs``/``outputs`` are :func:`input_record` / :func:`write_json` dicts; ``meta``
    the user's ``--meta`` pairs (model name and version, parameters, index snapshot id,
    seeds; a Python caller's values as JSON values,
    :func:`~trecbench.meta_values.recorded_meta`). A random (uuid4) ``experiment_id`` is
    made unless one is given. ``cwd`` (default: the current
    directory) is recorded with its git commit, if it is in a git work tree. ``created``:
    its ``timestamp`` (default now), as its report's and page's.
    ``ontology``: the reports' record of the HPO release and formula MaxOntSim used
    (:attr:`~trecbench.Evaluation.ontology_record`), recorded when given: a bundled
    release is no input file, and an input's record has no release.
    """
    from .naming import listed

    where = Path(cwd) if cwd is not None else Path.cwd()
    # text refused, not read as its characters ('t r e c b e n c h' was the command line)
    argv = [str(arg) for arg in listed(argv, "argv", "command-line words")]
    inputs = listed(inputs, "inputs", "input records")
    outputs = listed(outputs, "outputs", "output records")
    manifest = {
        "type": "ExperimentManifest",
        "schema_version": SCHEMA_VERSION,
        "experiment_id": experiment_id or str(uuid.uuid4()),
        "timestamp": created or utc_now(),
        "command": {"argv": argv, "line": shlex.join(argv)},
        "cwd": str(where),
        "environment": environment(),
        "git": git_commit(where),
        "meta": recorded_meta(meta),
        "inputs": list(inputs),
        "outputs": list(outputs),
    }
    if ontology is not None:
        manifest["ontology"] = json_safe(dict(ontology))
    return manifest


def evaluation_provenance(evaluation: Any) -> tuple[list[tuple[str, str]], dict | None]:
    """``(path, kind)`` of an evaluation's input files (qrels, runs, the ``--ontology``
    file if one was given, the ``-Z`` z-scores file, whose means and deviations every
    value is converted with) and the ontology's provenance (``release``, ``source``,
    ``sha256``, ``formula``) when a MaxOntSim measure was computed, else None."""
    inputs = list(evaluation.input_paths)
    settings = evaluation.settings
    for path, kind in ((settings.ontology, "ontology"), (settings.zscores, "zscores")):
        if path:
            inputs.append((path, kind))
    return inputs, evaluation.ontology_record


def evaluation_records(*evaluations: Any, qrels_kinds: Sequence[str] = ()) -> list[dict]:
    """The file records of the inputs of one evaluation or several (those of
    :func:`evaluation_provenance`, each file once per role, in the order the evaluations
    read them: agree's runs under two qrels, compare's runs each with its own): as taken
    when an evaluation read them (:attr:`Evaluation.input_records
    <trecbench.evaluation.Evaluation>`), else taken now (:func:`input_record`).
    ``qrels_kinds[i]``: the kind of the ``i``-th evaluation's judgments (``qrels`` where
    not given): agree's second set is ``qrels_b``, its own record even for the same file."""
    files: list = []
    roles: dict = {}  # (path, kind recorded) -> (path, kind read)
    known: dict = {}
    for number, evaluation in enumerate(evaluations):
        found, _ = evaluation_provenance(evaluation)
        role = qrels_kinds[number] if number < len(qrels_kinds) else "qrels"
        for path, kind, *rest in found:
            spec = (path, role if kind == "qrels" else kind, *rest)
            if spec not in files:
                files.append(spec)
                roles[tuple(spec[:2])] = (path, kind)
        known |= evaluation.input_records
    return [
        recorded(known, (*roles[tuple(spec[:2])], *spec[2:])) | {"kind": spec[1]} for spec in files
    ]


def recorded(known: Mapping, spec: tuple) -> dict:
    """The record of the input ``spec`` (``(path, kind)``, or with its table, as
    :func:`input_record` takes it): the one ``known`` holds, taken when an evaluation
    read the file (``Evaluation.input_records``), else taken now."""
    return known.get(tuple(spec[:2])) or input_record(*spec)


def check_score_outputs(
    report: str | os.PathLike | None,
    manifest: str | os.PathLike | None,
    inputs: Sequence[str | os.PathLike] = (),
    html: str | os.PathLike | None = None,
) -> None:
    """Refuse what :func:`write_score_outputs` would refuse: two of ``report``,
    ``manifest`` and ``html`` the same file or one the other's folder, or any one of
    ``inputs`` (besides the files read in the call), a symbolic link or not a regular
    file, or a name saying compressed (they are written uncompressed). ``score`` calls it
    before the evaluation."""
    from .output_identity import collision, refuse_one_file_twice
    from .outputs import check_target
    from .publication import HTML_PAGE, refuse_compressed_name

    named = [
        (keyword, path)
        for keyword, path in (("report", report), ("manifest", manifest), ("html", html))
        if path is not None
    ]
    refuse_one_file_twice([(Setting(keyword), path) for keyword, path in named])
    for keyword, path in named:
        refuse_compressed_name(path, HTML_PAGE if keyword == "html" else JSON_FILE)
    for (_, path), (_, other_path) in itertools.combinations(named, 2):
        for outer, inner in ((path, other_path), (other_path, path)):
            if collision(outer, inner) == "holds":
                raise UsageError(f"{outer} would be a file and the folder holding {inner}")
    for _, path in named:
        check_target(path, inputs)


def write_score_outputs(
    evaluation: Any,
    *,
    report: str | os.PathLike | None = None,
    manifest: str | os.PathLike | None = None,
    meta: Mapping[str, Any] | None = None,
    extra_inputs: Sequence[tuple] = (),
    argv: Sequence[str] | None = None,
    outputs: Sequence[str | os.PathLike] = (),
    ontology: Mapping[str, Any] | None = None,
    groups: Mapping[str, Any] | None = None,
    warnings: Sequence[str] = (),
    routing: Mapping[str, Any] | None = None,
    html: tuple[str | os.PathLike, str] | None = None,
    unjudged_bounds: Sequence[Mapping[str, Any]] | None = None,
    resampling: Mapping[str, Any] | None = None,
    stamp: Mapping[str, str] | None = None,
) -> None:
    """Write the ``--report``, ``--manifest`` and/or ``--html`` page (``(path, page)``)
    of a finished evaluation, the report and manifest of ``stamp``'s time and experiment
    id (:func:`~trecbench.provenance.new_stamp`: the page's; default a new one).

    Inputs are the evaluation's qrels and run files, the ``--ontology`` file if one was
    given, and ``extra_inputs`` (``(path, kind)`` or ``(path, kind, table)`` tuples, see
    :func:`input_record`, e.g. a strata sidecar). ``outputs`` are other files the command
    already wrote, listed in the manifest with their checksums. ``ontology`` provenance
    defaults to the MaxOntSim ontology's when a MaxOntSim measure was computed; ``groups``
    are grouped means, ``warnings`` the command's warnings about them, ``routing``
    routing metrics, ``unjudged_bounds`` the unjudged bounds' rows and ``resampling``
    the seed of what was drawn at random, for the report
    (see :func:`build_evaluation_report`). Both files are
    written atomically and committed together: none is replaced unless all could be
    prepared, and none may be an input; the manifest lists the page. Does nothing when no
    path is given.
    """
    from .outputs import OutputSet

    if report is None and manifest is None and html is None:
        return
    check_score_outputs(report, manifest, html=None if html is None else html[0])
    inputs, computed = evaluation_provenance(evaluation)
    inputs += extra_inputs
    ontology = computed if ontology is None else ontology
    known = getattr(evaluation, "input_records", {})
    records = [recorded(known, spec) for spec in inputs]
    protected = [spec[0] for spec in inputs] + list(outputs)
    stamp = stamp or provenance.new_stamp()
    experiment_id, created = stamp["experiment_id"], stamp["created"]
    files: list[tuple[str | os.PathLike, bytes]] = []
    written = [input_record(path, "output") for path in outputs]
    if html is not None:
        page = utf8(html[1])
        files.append((html[0], page))
        written.append(bytes_record(html[0], "html", page))
    if report is not None:
        document = build_evaluation_report(
            evaluation,
            records,
            experiment_id=experiment_id,
            meta=meta,
            ontology=ontology,
            groups=groups,
            warnings=warnings,
            routing=routing,
            unjudged_bounds=unjudged_bounds,
            resampling=resampling,
            created=created,
        )
        data = json_bytes(document)
        files.append((report, data))
        written.append(bytes_record(report, "report", data))
    if manifest is not None:
        document = build_manifest(
            command_argv() if argv is None else argv, records, written, meta or {}, experiment_id,
            created=created, ontology=ontology,
        )  # fmt: skip
        files.append((manifest, json_bytes(document)))
    with OutputSet(protected) as out:
        for path, data in files:
            out.write(path, data)
