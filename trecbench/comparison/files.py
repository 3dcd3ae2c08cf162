"""The files compare and benchmark write into their output folder, named in one place (a
light module: benchmark's loading needs the names without compare's analysis)."""

from __future__ import annotations

import json
import re
from pathlib import Path, PurePath

REPORT_FILE = "BenchmarkReport.json"
HTML_FILE = "report.html"
MARKDOWN_FILE = "BenchmarkComparison.md"
LATEX_FILE = "AllPairs.tex"
# a benchmark's files beside compare's (trecbench.benchmarking writes them)
MANIFEST_FILE = "ExperimentManifest.json"
REPORTS_DIR = "reports"
RUNS_DIR = "runs"


# compare's plots (figures.plot_file): a figure, its section's suffix, the format
PLOT_FIGURES = ("means", "differences", "precision_recall")
PLOT_PATTERNS = tuple(
    f"{figure}*.{fmt}" for figure in PLOT_FIGURES for fmt in ("png", "svg")
)  # fmt: skip


def folder_files(out: Path, modes: bool = True) -> list[Path]:
    """The files in ``out`` named as compare or benchmark write them (pages, reports,
    plots, a benchmark's manifest and, with ``modes``, its mode reports and fused runs),
    whoever wrote them. A file of another name (a logo, the runs compared) is none of them."""
    named = [out / name for name in (REPORT_FILE, HTML_FILE, MARKDOWN_FILE, LATEX_FILE)]
    patterns = PLOT_PATTERNS + ((f"{REPORTS_DIR}/*.json", f"{RUNS_DIR}/*.run") if modes else ())
    found = (path for pattern in patterns for path in out.glob(pattern))
    return [*named, out / MANIFEST_FILE, *_manifests(out), *found]


# how every manifest trecbench writes begins (report.write_json: "type" first, indented)
_MANIFEST_HEAD = re.compile(rb'\{\s*"type":\s*"ExperimentManifest"')


def _manifests(out: Path) -> list[Path]:
    """The manifests in ``out`` of other names (``compare -o d --manifest d/m1.json``):
    an earlier call's, whose checksums would no longer be its folder's files. Told by
    their first bytes alone: a folder's other JSON files are not read whole."""
    found = []
    for path in sorted(out.glob("*.json")):
        if path.name in (MANIFEST_FILE, REPORT_FILE) or not path.is_file():
            continue
        try:
            with open(path, "rb") as handle:
                head = handle.read(64)
        except OSError:
            continue
        if _MANIFEST_HEAD.match(head):
            found.append(path)
    return found


def compare_folder_files(out: Path) -> list[Path]:
    """:func:`folder_files` as compare counts them: a benchmark's mode reports and fused
    runs only in a folder a benchmark wrote (:func:`benchmark_written`); elsewhere a
    ``runs/`` beside compare's files holds the user's runs (``compare -o . runs/*.run``)."""
    return folder_files(out, modes=benchmark_written(out))


def benchmark_written(out: Path) -> bool:
    """Whether ``out`` holds files of ``reports/`` and ``runs/`` and a benchmark's mark:
    its ExperimentManifest.json recording such files, or a BenchmarkReport.json with a
    ``benchmark`` section. Either may be gone while the other stays (compare's own
    ``--manifest`` under the benchmark's name replaces the manifest, compare replaces the
    report): each is read before this call writes anything."""
    modes = (f"{REPORTS_DIR}/*.json", f"{RUNS_DIR}/*.run")
    if not any(path.is_file() for pattern in modes for path in out.glob(pattern)):
        return False  # nothing a benchmark's mark would make a leftover: nothing read
    manifest = _json_object(out / MANIFEST_FILE)
    records = manifest.get("outputs") if manifest else None
    if isinstance(records, list) and any(_mode_record(record) for record in records):
        return True
    report = _json_object(out / REPORT_FILE)
    return report is not None and "benchmark" in report


def _mode_record(record) -> bool:
    """Whether a manifest's output ``record`` is a benchmark's mode report or fused run."""
    if not isinstance(record, dict) or not isinstance(record.get("path"), str):
        return False
    folder = PurePath(record["path"]).parent.name
    return (folder, record.get("kind")) in ((REPORTS_DIR, "report"), (RUNS_DIR, "run"))


def _json_object(path: Path) -> dict | None:
    """The JSON object in ``path``; None if it is missing, unreadable or no JSON object
    (what is not a benchmark's file marks nothing)."""
    if not path.is_file():
        return None
    try:
        with open(path, "rb") as handle:
            document = json.load(handle)
    except (OSError, ValueError, RecursionError):
        return None
    return document if isinstance(document, dict) else None


def html_available() -> bool:
    """Whether report.html can be written (the ``html`` extra: Jinja2 and Bokeh)."""
    import importlib.util

    return all(importlib.util.find_spec(name) for name in ("jinja2", "bokeh"))
