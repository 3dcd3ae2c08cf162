"""Comparison plots (matplotlib, Agg backend: no display needed), written as PNG and SVG.

* ``means``: per measure, each run's mean with its bootstrap confidence interval.
* ``differences``: per measure, each run's per-topic difference against the baseline,
  sorted ascending (how many topics gain, how many lose, and by how much).

With strata (``group_by``) each stratum gets its own pair too, named after its value
(``means_language-de.png``; characters other than letters, digits, ``.``, ``_`` and ``-``
become ``_``).
Figures are built on a :class:`matplotlib.figure.Figure` with an Agg canvas (never pyplot,
so no global state or GUI backend), and the SVG is written with a fixed hash salt and no
date so the same data gives the same files.
"""

from __future__ import annotations

import io
import math
import re

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


def means_figure(comparison: Comparison, label: str = ALL):
    """Mean and confidence interval per run, one panel per measure (of stratum ``label``)."""
    part = comparison.part(comparison.summary, label)
    summary = part.set_index(["measure", "run"])
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
    figure.suptitle(f"Means over {int(part['queries'].iloc[0])} topics{_title(label)}")
    return figure


def differences_figure(comparison: Comparison, label: str = ALL):
    """Per-topic differences against the baseline, sorted, one panel per measure (of the
    topics of stratum ``label``)."""
    per_query = comparison.per_query
    if label != ALL:
        value = label[len(comparison.settings["group_by"]) + 1 :]
        topics = [qid for qid, v in (comparison.strata or {}).items() if v == value]
        per_query = per_query[per_query["qid"].isin(topics)]
    wide = per_query.pivot_table(
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
    figure.suptitle(f"Per-topic difference against {comparison.baseline}{_title(label)}")
    return figure


def _title(label: str) -> str:
    return "" if label == ALL else f" ({label.replace('=', ' = ', 1)})"


def figure_bytes(figure, fmt: str) -> bytes:
    """``figure`` as PNG or SVG bytes (SVG with a fixed hash salt and no date: the same
    data gives the same bytes)."""
    import matplotlib

    buffer = io.BytesIO()
    metadata = {"Date": None} if fmt == "svg" else {"Software": None}
    with matplotlib.rc_context({"svg.hashsalt": "trecbench", "svg.fonttype": "path"}):
        figure.savefig(buffer, format=fmt, dpi=120, metadata=metadata)
    return buffer.getvalue()


def _suffixes(comparison: Comparison) -> dict[str, str]:
    """Stratum label -> file name suffix: ``""`` for all topics, ``_FIELD-VALUE`` with
    unsafe characters replaced (a number is appended when two values end up alike)."""
    suffixes = {ALL: ""}
    for label in comparison.stratum_labels:
        if label == ALL:
            continue
        base = "_" + re.sub(r"[^A-Za-z0-9._-]+", "_", label.replace("=", "-", 1))
        suffix, n = base, 1
        while suffix in suffixes.values():
            n += 1
            suffix = f"{base}-{n}"
        suffixes[label] = suffix
    return suffixes


def plot_files(comparison: Comparison) -> dict[str, bytes]:
    """File name -> bytes of every plot: ``means`` and, with two runs or more,
    ``differences``, as PNG and SVG, for all topics and then for each stratum."""
    files = {}
    for label, suffix in _suffixes(comparison).items():
        figures = {"means": means_figure(comparison, label)}
        if len(comparison.runs) > 1:
            figures["differences"] = differences_figure(comparison, label)
        for name, figure in figures.items():
            for fmt in FORMATS:
                files[f"{name}{suffix}.{fmt}"] = figure_bytes(figure, fmt)
    return files
