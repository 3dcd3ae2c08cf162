"""The files compare and benchmark write into their output folder, named in one place (a
light module: benchmark's loading needs the names without compare's analysis)."""

from __future__ import annotations

from pathlib import Path

REPORT_FILE = "BenchmarkReport.json"
HTML_FILE = "report.html"
MARKDOWN_FILE = "BenchmarkComparison.md"
LATEX_FILE = "AllPairs.tex"
# a benchmark's files beside compare's (trecbench.benchmarking writes them)
MANIFEST_FILE = "ExperimentManifest.json"
REPORTS_DIR = "reports"
RUNS_DIR = "runs"


def folder_files(out: Path) -> list[Path]:
    """The files in ``out`` that compare or benchmark write there (pages, reports, plots,
    a benchmark's mode reports and fused runs), whoever wrote them."""
    named = [out / name for name in (REPORT_FILE, HTML_FILE, MARKDOWN_FILE, LATEX_FILE)]
    globbed = ("*.png", "*.svg", f"{REPORTS_DIR}/*.json", f"{RUNS_DIR}/*.run")
    found = (path for pattern in globbed for path in out.glob(pattern))
    return [*named, out / MANIFEST_FILE, *found]
