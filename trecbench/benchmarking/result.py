"""What a benchmark found (:class:`Benchmark`, one :class:`ModeResult` per mode) and the
files it writes: BenchmarkReport.json (compare's report with a ``benchmark`` section),
BenchmarkComparison.md, report.html, an EvaluationReport per mode, the fused modes' runs
and ExperimentManifest.json, as one unit."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa

from .. import arrow_compute as pc
from .. import outputs
from ..callbacks import refuse_uncallable
from ..comparison.files import MANIFEST_FILE, REPORTS_DIR, RUNS_DIR, folder_files
from ..inputs.streams import steps
from ..text_bytes import utf8
from .checks import Progress
from .settings import BenchmarkSettings, Mode


@dataclass
class ModeResult:
    """What the benchmark learned about one mode."""

    mode: Mode
    table: pa.Table
    validation: dict
    completeness: dict
    output: Path | None = None  # where a fused mode's run is written (relative to -o)
    run_bytes: bytes | None = None


@dataclass
class Benchmark:
    """Result of :func:`~trecbench.benchmarking.run_benchmark`: the evaluation, the
    comparison and what the R task adds (targets, completeness, reranking improvements,
    routing)."""

    def __repr__(self) -> str:  # every mode's table printed whole: 327,000 characters
        from ..plurals import few_reprs, short_repr

        modes = few_reprs([result.mode.name for result in self.modes])
        return f"Benchmark(profile={short_repr(self.profile)}, modes={modes})"

    config: BenchmarkSettings
    profile: str
    modes: list[ModeResult]
    evaluation: Any
    comparison: Any
    kpis: list[dict]
    reranking: list[dict]
    routing: dict | None
    qrels_flags: list[dict]
    qrels_validation: dict
    inputs: list[dict]
    qrels_table: Any = None  # the one parse of the qrels (the page's grades: not read again)
    input_warnings: tuple[str, ...] = ()  # what its inputs warned: input_warnings.carried

    def section(self) -> dict:
        """The ``benchmark`` section of BenchmarkReport.json (schema ``benchmark_workflow``)."""
        from ..json_values import json_safe

        config = self.config
        return json_safe(
            {
                "name": config.name,
                "description": config.description,
                "config": str(config.path),
                "validation": {
                    "profile": self.profile,
                    "max_depth": config.max_depth,
                    "qrels": self.qrels_validation,
                },
                "modes": [_mode_record(result) for result in self.modes],
                "targets": {
                    "preset": config.preset,
                    "measures": {m: t.to_dict() for m, t in config.targets.items()},
                },
                "kpis": self.kpis,
                "reranking": self.reranking,
                "qrels_flags": self.qrels_flags,
                "completeness_settings": config.completeness.to_json(),
                "routing": self.routing,
            }
        )

    def report(
        self,
        experiment_id: str | None = None,
        meta: Mapping[str, Any] | None = None,
        outdir: str | os.PathLike | None = None,
        created: str | None = None,
    ):
        """BenchmarkReport.json: compare's report of the modes plus ``benchmark``. Each
        run's ``input`` is a path as the manifest records it (from the current folder): a
        fused mode's is its run written in ``outdir`` (default: the settings' ``output``;
        null when neither is given, the run is in memory only). ``created``: its time
        (default now), as its page's."""
        document = self.comparison.report(experiment_id, meta, created)
        out = self.config.output if outdir is None else Path(outdir)
        written = {
            result.mode.name: str(out / result.output)
            for result in self.modes
            if result.output is not None and out is not None
        }
        for run in document["runs"]:
            run["input"] = written.get(run["name"], run["input"])
        document["benchmark"] = self.section()
        return document

    def markdown(self, statistics: bool = True) -> str:
        """BenchmarkComparison.md; without ``statistics``, only the R-task part (KPI table,
        targets, reranking, completeness, routing), without compare's tables."""
        from ..renderers.benchmark import markdown
        from ..type_names import flag_from

        return markdown(self, flag_from("statistics", statistics))  # "False" is true

    def evaluation_reports(
        self,
        experiment_id: str,
        meta: Mapping[str, Any],
        fused: Mapping[str, dict] | None = None,
        created: str | None = None,
    ) -> dict[str, dict]:
        """One EvaluationReport per mode (its values, flagged topics and inputs: a fused
        mode's run is its record in ``fused``, mode -> the run file written; with a
        MaxOntSim measure, the ontology file and provenance, as ``score --report``)."""
        from ..report import build_evaluation_report

        qrels_record = next(r for r in self.inputs if r["kind"] == "qrels")
        ontology_records = [r for r in self.inputs if r["kind"] == "ontology"]
        ontology = self.comparison.ontology  # as running recorded it for the whole
        reports = {}
        for result, run in zip(self.modes, self.evaluation.runs, strict=True):
            own = dataclasses.replace(
                self.evaluation,
                runs=[run],
                flagged=[f for f in self.evaluation.flagged if f.run in (None, run.name)],
            )
            inputs = [qrels_record] + [
                r for r in self.inputs if r["kind"] == "run" and r["path"] == str(result.mode.run)
            ]
            inputs += [fused[result.mode.name]] if result.mode.name in (fused or {}) else []
            reports[result.mode.name] = build_evaluation_report(
                own,
                inputs + ontology_records,
                experiment_id=experiment_id,
                meta=meta,
                ontology=ontology,
                created=created,
            )
        return reports

    def to_html(
        self,
        depth: int = 20,
        path: str | os.PathLike | None = None,
        progress: Progress | None = None,
        stamp: Mapping[str, str] | None = None,
    ) -> str:
        """The benchmark as one self-contained page (:mod:`trecbench.html_report`): the
        R-task part (KPIs against the targets, reranking, completeness and its recovery
        actions), then compare's tables and figures with the modes as runs and the
        drill-down to each mode's top ``depth`` documents. Written to ``path`` if given.
        ``progress(label, done, total)`` is told its making
        (:func:`~trecbench.html_report.comparison_html`); ``stamp``: the created time and
        experiment id of its report (:func:`~trecbench.provenance.new_stamp`)."""
        refuse_uncallable(progress)
        from ..escaping import escaper
        from ..html_report import comparison_html
        from ..renderers.benchmark import rtask_blocks

        # the modes' runs and the qrels are in memory: a page not written reads no file
        if path is not None or self.qrels_table is None:
            self.comparison.input_paths()  # its inputs, where it was read: the benchmark's
        runs = {result.mode.name: result.table for result in self.modes}
        qrels = self.qrels_table if self.qrels_table is not None else str(self.config.qrels)
        # the R-task part's tables, lists and headings as the Markdown's, as HTML: input
        # text as the page shows it (not Markdown-escaped; escaped reversibly, isolated
        # where right to left)
        preamble = rtask_blocks(self, escape=escaper("html"))
        page = comparison_html(
            self.comparison, runs=runs, qrels=dict.fromkeys(runs, qrels), depth=depth,
            title=f"trecbench benchmark: {self.config.name}", preamble=preamble,
            progress=progress, stamp=stamp,
        )  # fmt: skip
        if path is not None:
            outputs.write_file(path, page, self.comparison.input_paths(), outputs.HTML_PAGE)
        return page

    def write(
        self,
        outdir: str | os.PathLike | None = None,
        *,
        meta: Mapping[str, Any] | None = None,
        argv: Sequence[str] | None = None,
        progress: Progress | None = None,
    ) -> list[Path]:
        """Write everything into ``outdir`` (default: the settings' ``output``) as one unit
        (nothing is replaced unless all of it could be prepared; inputs are never
        overwritten): BenchmarkReport.json, BenchmarkComparison.md, report.html (with the
        ``html`` extra), ``reports/<mode>.json`` (EvaluationReports), ``runs/<mode>.run``
        (fused modes) and ExperimentManifest.json (last). ``meta`` adds to the settings'.
        ``progress(label, done, total)`` is told each file made (``writing outputs``) and
        report.html's making, a job of its own (:meth:`to_html`)."""
        refuse_uncallable(progress)
        from ..report import build_manifest, bytes_record, command_argv, json_bytes, new_stamp

        inputs = self.comparison.input_paths()  # the benchmark's, refused after an os.chdir
        out = output_folder(self.config, outdir)
        meta = dict(self.config.meta) | dict(meta or {})
        stamp = new_stamp()  # the reports', the page's and the manifest's
        experiment_id = stamp["experiment_id"]
        made = steps(progress, "writing outputs", self._file_count())
        files, counts = self._files(out, stamp, meta, made, progress)
        written = [
            bytes_record(path, kind, data) | counts.get(path, {})
            for path, (data, kind) in files.items()
        ]
        manifest = build_manifest(
            command_argv() if argv is None else argv, self.inputs, written, meta, experiment_id,
            created=stamp["created"],
            ontology=self.comparison.ontology,
        )  # fmt: skip
        files[out / MANIFEST_FILE] = (json_bytes(manifest), "manifest")
        made()
        # every file named in the folder: none led out of it by a symbolic link of its
        # folders (out/runs -> ../inputs wrote over a file there)
        with outputs.OutputSet(inputs, root=out) as staged:
            for path in files:  # every target checked before its folder is made
                staged.check(path)
            for folder in dict.fromkeys([out, *(path.parent for path in files)]):
                staged.hold(folder)  # out first, as every call into it: one meanwhile waits
            _refuse_strays(out, files, inputs)
            for path, (data, _) in files.items():
                staged.write(path, data)
        return list(files)

    def _file_count(self) -> int:
        """How many files :meth:`write` writes."""
        from ..comparison import html_available

        fused = sum(result.output is not None for result in self.modes)
        # the reports, BenchmarkReport.json, the Markdown, the page, the manifest
        return fused + len(self.modes) + 3 + html_available()

    def _files(
        self, out: Path, stamp: Mapping[str, str], meta: Mapping[str, Any], made=lambda: None,
        progress: Progress | None = None,
    ):  # fmt: skip
        """Every file but the manifest, ``path -> (bytes, kind)``, and what the manifest
        records of a fused run beyond its bytes, ``path -> counts``; ``made()`` after
        each, ``progress`` told report.html's making; each of ``stamp``'s time and id."""
        from ..comparison import HTML_FILE, MARKDOWN_FILE, REPORT_FILE, html_available
        from ..provenance import bytes_record
        from ..report import json_bytes

        files: dict[Path, tuple[bytes, str]] = {}
        counts: dict[Path, dict] = {}
        fused: dict[str, dict] = {}  # mode -> the record of its run as written
        for result in self.modes:
            if result.output is not None:
                path = out / result.output
                files[path] = (result.run_bytes, "run")
                tag = result.mode.run_tag
                counts[path] = {
                    "lines": result.table.num_rows,
                    "topics": pc.count_distinct(result.table.column("qid")).as_py(),
                    "run_tag": tag,
                    "run_tags": [tag],
                }
                fused[result.mode.name] = bytes_record(path, "run", result.run_bytes) | counts[path]
                made()
        experiment_id, created = stamp["experiment_id"], stamp["created"]
        reports = self.evaluation_reports(experiment_id, meta, fused, created)
        for name, document in reports.items():
            files[out / report_file(name)] = (json_bytes(document), "report")
            made()
        document = self.report(experiment_id, meta, out, created)
        files[out / REPORT_FILE] = (json_bytes(document), "report")
        made()
        files[out / MARKDOWN_FILE] = (utf8(self.markdown()), "markdown")
        made()
        if html_available():
            files[out / HTML_FILE] = (utf8(self.to_html(progress=progress, stamp=stamp)), "html")
            made()
        return files, counts


def _refuse_strays(out: Path, files: Mapping[Path, Any], inputs: Sequence[str]) -> None:
    """Refuse a folder holding a benchmark's files this one would not write (a mode's
    report or run, the page, compare's files) from another call (the benchmark's own
    inputs, its runs may well be in ``runs/``, are none of them)."""
    outputs.refuse_strays(out, folder_files(out), files, inputs, "this benchmark's")


def output_folder(config: BenchmarkSettings, outdir: str | os.PathLike | None = None) -> Path:
    """``outdir``, else the settings' ``output``; a usage error when neither is given."""
    from ..errors import Setting, UsageError

    if outdir is None:
        outdir = config.output
    if outdir is None:
        raise UsageError(
            "benchmark: give the output folder (",
            Setting("outdir"),
            ") or `output` in the configuration",
        )
    return Path(outdir)


def check_outputs(config: BenchmarkSettings, outdir: str | os.PathLike | None = None) -> None:
    """Refuse, before the benchmark of ``config`` is run, what :meth:`Benchmark.write`
    into ``outdir`` (default: the settings' ``output``) would refuse only after it: a file
    it writes (all named after the configuration's modes) that is one of the
    configuration's inputs, a symbolic link or not a regular file."""
    from ..comparison import HTML_FILE, MARKDOWN_FILE, REPORT_FILE

    out = output_folder(config, outdir)
    files = [out / fused_run_file(mode.name) for mode in config.modes if mode.fuse is not None]
    files += [out / report_file(mode.name) for mode in config.modes]
    files += [out / REPORT_FILE, out / MARKDOWN_FILE, out / HTML_FILE, out / MANIFEST_FILE]
    for path in files:
        outputs.check_target(path, config.inputs)
    outputs.settle(out)  # a set a killed call left half in place, finished before it is looked at
    outputs.refuse_strays(out, folder_files(out), files, config.inputs, "this benchmark's")


def fused_run_file(name: str) -> Path:
    """Where a fused mode's run is written, relative to the output folder."""
    return Path(RUNS_DIR) / f"{name}.run"


def report_file(name: str) -> str:
    """Where a mode's EvaluationReport is written, relative to the output folder."""
    return f"{REPORTS_DIR}/{name}.json"


def _mode_record(result: ModeResult) -> dict:
    """A mode in the report's ``benchmark.modes``."""
    mode = result.mode
    return {
        "name": mode.name,
        "label": mode.label,
        "kind": "run" if mode.fuse is None else "fusion",
        "run": None if mode.run is None else str(mode.run),
        "fusion": mode.fusion(),
        "reranks": mode.reranks,
        "output": None if result.output is None else str(result.output),
        "evaluation_report": report_file(mode.name),
        "validation": result.validation,
        "completeness": result.completeness,
    }
