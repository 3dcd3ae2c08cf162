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
    return [*named, out / MANIFEST_FILE, *found]
