"""Comparison plots (matplotlib, Agg backend: no display needed), written as PNG and SVG.

* ``means``: per measure, each run's mean with its bootstrap confidence interval.
* ``differences``: per measure, each run's per-topic difference against the baseline,
  sorted ascending (how many topics gain, how many lose, and by how much).

Only the all-topics analysis is plotted; strata are in the report and the Markdown.
Figures are built on a :class:`matplotlib.figure.Figure` with an Agg canvas (never pyplot,
so no global state or GUI backend), and the SVG is written with a fixed hash salt and no
date so the same data gives the same files.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from .compare import ALL, Comparison

FORMATS = ("png", "svg")
_PANEL = (3.6, 2.8)  # inches per subplot


def _figure(panels: int):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    columns = min(3, panels)
    rows = math.ceil(panels / columns)
    figure = Figure(figsize=(_PANEL[0] * columns, _PANEL[1] * rows), layout="constrained")
    FigureCanvasAgg(figure)
    axes = figure.subplots(rows, columns, squeeze=False).ravel()
    for unused in axes[panels:]:
        unused.set_visible(False)
    return figure, axes[:panels]


def means_figure(comparison: Comparison):
    """Mean and confidence interval per run, one panel per measure."""
    summary = comparison.part(comparison.summary, ALL).set_index(["measure", "run"])
    level = f"{comparison.settings['confidence']:.0%}"
    figure, axes = _figure(len(comparison.measures))
    positions = np.arange(len(comparison.runs))
    for axis, measure in zip(axes, comparison.measures, strict=True):
        rows = summary.loc[measure].reindex(comparison.runs)
        means = rows["mean"].to_numpy()
        errors = np.vstack([means - rows["ci_low"].to_numpy(), rows["ci_high"].to_numpy() - means])
        colors = [f"C{i}" for i in range(len(comparison.runs))]
        axis.bar(positions, means, color=colors, alpha=0.35)
        axis.errorbar(positions, means, yerr=errors, fmt="none", ecolor="black", capsize=4)
        axis.scatter(positions, means, color=colors, zorder=3)
        axis.set_xticks(positions, comparison.runs, rotation=20, ha="right")
        axis.set_title(measure)
        axis.set_ylabel(f"mean, {level} CI")
        axis.grid(axis="y", alpha=0.3)
    figure.suptitle(f"Means over {len(comparison.queries)} topics")
    return figure


def differences_figure(comparison: Comparison):
    """Per-topic differences against the baseline, sorted, one panel per measure."""
    wide = comparison.per_query.pivot_table(
        index="qid", columns=["measure", "run"], values="value", sort=False
    )
    others = [run for run in comparison.runs if run != comparison.baseline]
    figure, axes = _figure(len(comparison.measures))
    for axis, measure in zip(axes, comparison.measures, strict=True):
        base = wide[(measure, comparison.baseline)].to_numpy()
        for i, run in enumerate(comparison.runs):
            if run == comparison.baseline:
                continue
            diffs = np.sort(wide[(measure, run)].to_numpy() - base)
            axis.plot(np.arange(1, diffs.size + 1), diffs, color=f"C{i}", label=run)
        axis.axhline(0, color="black", linewidth=0.8)
        axis.set_title(measure)
        axis.set_xlabel("topics, sorted by difference")
        axis.set_ylabel(f"run − {comparison.baseline}")
        axis.grid(alpha=0.3)
        if len(others) > 1:
            axis.legend(fontsize="small")
    figure.suptitle(f"Per-topic difference against {comparison.baseline}")
    return figure


def save(figure, stem: Path, inputs: Sequence[str | os.PathLike] = ()) -> list[Path]:
    """Write ``stem.png`` and ``stem.svg`` atomically; returns their paths."""
    import matplotlib

    from .files import atomic_write

    written = []
    with matplotlib.rc_context({"svg.hashsalt": "trecbench", "svg.fonttype": "path"}):
        for fmt in FORMATS:
            path = stem.with_suffix(f".{fmt}")
            metadata = {"Date": None} if fmt == "svg" else {"Software": None}
            with atomic_write(path, inputs) as handle:
                figure.savefig(handle, format=fmt, dpi=120, metadata=metadata)
            written.append(path)
    return written


def write_plots(
    comparison: Comparison, outdir: str | os.PathLike, inputs: Sequence[str | os.PathLike] = ()
) -> list[Path]:
    """Write the means plot and, with two runs or more, the differences plot."""
    out = Path(outdir)
    written = save(means_figure(comparison), out / "means", inputs)
    if len(comparison.runs) > 1:
        written += save(differences_figure(comparison), out / "differences", inputs)
    return written
