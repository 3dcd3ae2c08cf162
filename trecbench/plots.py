"""Comparison plots (matplotlib, Agg backend: no display needed), written as PNG and SVG.

The figures take plain data — names and numpy arrays — so that this module knows nothing
of how a comparison is computed (:func:`trecbench.comparison.plot_files` prepares the data):

* :func:`means_figure`: per measure, each run's mean with its confidence interval.
* :func:`differences_figure`: per measure, each run's per-topic difference against the
  baseline; an x position is one topic for every run (topics ordered by the baseline's
  value or by the mean difference over the runs), with each run's mean difference and its
  interval as a line and a band, and always a legend.

Figures are built on a :class:`matplotlib.figure.Figure` with an Agg canvas (never pyplot,
so no global state or GUI backend). Per-topic markers are rasterized, so a figure of
thousands of topics stays small and fast in SVG too; the SVG is written with a fixed hash
salt and no date so the same data gives the same files.
"""

from __future__ import annotations

import functools
import io
import math
import re
import textwrap

import numpy as np

from .number_text import value_text

FORMATS = ("png", "svg")
ORDERS = ("difference", "baseline")
_PANEL = (3.6, 2.8)  # inches per subplot
_DPI = 120


def _literal_text(draw):
    """``draw`` with every text it writes taken as it is: matplotlib reads text between
    two ``$`` as TeX (a run named ``$x$`` shown as an italic x, ``$$`` as nothing)."""

    @functools.wraps(draw)
    def literal(*args, **kwargs):
        import matplotlib

        with matplotlib.rc_context({"text.parse_math": False}):
            return draw(*args, **kwargs)

    return literal


def _figure(panels: int, title: str, bottom: float = 0.55, legend_rows: int = 0):
    """A figure of ``panels`` subplots (up to three a row) headed ``title`` (folded to its
    width, a line more of top margin per line more), with fixed margins in inches:
    ``bottom`` below the last row (tick labels, x label) and a line per ``legend_rows``
    under it. Fixed margins instead of a layout engine: it would measure every text twice
    per file written, more than half of a figure's time."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    columns = min(3, panels)
    rows = math.ceil(panels / columns)
    legend = 0.35 + 0.2 * legend_rows if legend_rows else 0.0
    title = _folded(title, panels, 11)
    top = 0.8 + 0.25 * title.count("\n")
    width, height = _width(panels), _PANEL[1] * rows + legend + top - 0.8
    figure = Figure(figsize=(width, height), dpi=_DPI)
    FigureCanvasAgg(figure)
    figure.suptitle(title)
    figure.subplots_adjust(
        left=0.75 / width,
        right=1 - 0.2 / width,
        top=1 - top / height,
        bottom=(bottom + legend) / height,
        wspace=0.5,
        hspace=(0.55 + bottom) / (_PANEL[1] - 0.55 - bottom) if rows > 1 else 0.0,
    )
    axes = figure.subplots(rows, columns, squeeze=False).ravel()
    for unused in axes[panels:]:
        unused.set_visible(False)
    return figure, axes[:panels]


def _width(panels: int) -> float:
    """The width in inches of a figure of ``panels``: at least 5.4 inches, room for the
    legend under a single panel."""
    return max(_PANEL[0] * min(3, panels), 5.4)


def _folded(text: str, panels: int, per_inch: int) -> str:
    """``text`` folded to the width of a figure of ``panels`` (``per_inch`` characters an
    inch: 11 of a title, 13 of small text): a section's title runs past 5.4 inches."""
    return textwrap.fill(text, int(_width(panels) * per_inch))


@_literal_text
def means_figure(
    runs: list[str],
    measures: list[str],
    mean: np.ndarray,
    low: np.ndarray,
    high: np.ndarray,
    *,
    title: str,
    ylabel: str = "mean",
    colors: list[str] | None = None,
    note: str | None = None,
):
    """Mean and interval per run, one panel per measure; ``mean``, ``low`` and ``high``
    are ``measures x runs`` arrays; runs in ``colors`` (default C0, C1...); ``note``: a
    line under the panels (why the intervals are n/a)."""
    note = _folded(note, len(measures), 13) if note else ""
    rows = note.count("\n") + 1 if note else 0
    # room for slanted run names
    figure, axes = _figure(len(measures), title, bottom=0.75, legend_rows=rows)
    positions = np.arange(len(runs))
    colors = colors or [f"C{i}" for i in range(len(runs))]
    for m, (axis, measure) in enumerate(zip(axes, measures, strict=True)):
        axis.bar(positions, mean[m], color=colors, alpha=0.35)
        # the interval drawn from its own ends: a mean may sit a rounding error outside
        # an interval of identical resamples, and errorbar refuses the negative distance
        # mean - low would then be (an interval that is n/a, NaN, draws nothing)
        middle, half = (low[m] + high[m]) / 2, (high[m] - low[m]) / 2
        axis.errorbar(positions, middle, yerr=half, fmt="none", ecolor="black", capsize=4)
        axis.scatter(positions, mean[m], color=colors, zorder=3)
        axis.set_xticks(positions, runs, rotation=20, ha="right")
        axis.set_title(measure, y=1.0)  # a fixed y: no search for overlapping ticks
        axis.set_ylabel(ylabel)
        axis.grid(axis="y", alpha=0.3)
    if note:
        figure.text(0.5, 0.1 / figure.get_figheight(), note, ha="center", va="bottom", size="small")
    return figure


def topic_order(baseline: np.ndarray, values: np.ndarray, order: str) -> np.ndarray:
    """Topic positions for one measure: ``baseline`` (topics) ascending, or the mean over
    the runs of ``values - baseline`` (``values``: runs x topics) ascending; equal keys
    keep the topics' order."""
    if order not in ORDERS:
        raise ValueError(f"unknown order {order!r}; choose one of {', '.join(ORDERS)}")
    key = baseline if order == "baseline" else (values - baseline).mean(axis=0)
    return np.argsort(key, kind="stable")


@_literal_text
def differences_figure(
    runs: list[str],
    measures: list[str],
    baseline_values: np.ndarray,
    run_values: np.ndarray,
    intervals: np.ndarray,
    *,
    baseline: str,
    order: str = "difference",
    title: str,
    level: str = "95%",
    colors: list[str] | None = None,
    interval_undefined: str | None = None,
):
    """Per-topic differences against the baseline, one panel per measure.

    ``baseline_values``: measures x topics; ``run_values``: measures x runs x topics (the
    runs compared, named ``runs``, drawn in ``colors``: default C1, C2...);
    ``intervals``: measures x runs x (mean difference, low, high). In a panel every
    run's marker at x = i is the same topic (see :func:`topic_order`); each run's mean
    difference is a dashed line with its interval as a band, given in numbers in the
    panel's legend; the figure's legend (always there, also for one run) names the runs.
    ``interval_undefined``: why the intervals are n/a (no band then; the legend says why).
    """
    from matplotlib.lines import Line2D
    from matplotlib.ticker import MaxNLocator

    colors = colors or [f"C{r + 1}" for r in range(len(runs))]
    figure, axes = _figure(len(measures), title, legend_rows=math.ceil(len(runs) / 3) + 1)
    topics = baseline_values.shape[1]
    x = np.arange(1, topics + 1)
    size = 4.0 if topics <= 200 else 2.0 if topics <= 2000 else 1.0
    marker = {"marker": "o", "markersize": size, "markeredgewidth": 0, "alpha": 0.6}
    by = "baseline value" if order == "baseline" else "mean difference"
    for m, (axis, measure) in enumerate(zip(axes, measures, strict=True)):
        positions = topic_order(baseline_values[m], run_values[m], order)
        for r in range(len(runs)):
            diffs = (run_values[m, r] - baseline_values[m])[positions]
            mean, low, high = intervals[m, r]
            axis.plot(x, diffs, linestyle="none", color=colors[r], rasterized=True, **marker)
            label = value_text(mean, signed=True)
            if interval_undefined is None:
                axis.axhspan(low, high, color=colors[r], alpha=0.2, linewidth=0)
                label += f" [{value_text(low, signed=True)}, {value_text(high, signed=True)}]"
            axis.axhline(mean, color=colors[r], linestyle="--", linewidth=1.2, label=label)
        axis.axhline(0, color="black", linewidth=0.8)
        axis.set_xlim(0, topics + 1)
        axis.xaxis.set_major_locator(MaxNLocator(integer=True))  # topics: 1, 2, never 1.5
        axis.set_title(measure, y=1.0)  # a fixed y: no search for overlapping ticks
        axis.set_xlabel(f"topics, by {by}")
        axis.set_ylabel(f"run − {baseline}")
        axis.grid(alpha=0.3)
        # a fixed corner: "best" would test every marker for overlap (seconds)
        axis.legend(loc="lower right", fontsize="x-small", framealpha=0.85, handlelength=1.5)
    handles = [
        Line2D([], [], color=colors[r], linestyle="--", label=run, **marker | {"markersize": 5})
        for r, run in enumerate(runs)
    ]
    figure.legend(
        handles=handles,
        loc="lower center",
        ncols=min(len(runs), 3),
        fontsize="small",
        title=f"markers: run − {baseline}, one per topic\ndashed: mean difference, "
        + (
            f"band: its {level} CI (numbers in each panel)"
            if interval_undefined is None
            else f"its {level} CI n/a: {interval_undefined}"
        ),
        title_fontsize="small",
    )
    return figure


@_literal_text
def precision_recall_figure(curves: dict[str, list[float]], title: str):
    """Interpolated precision at the 11 recall levels (trec_eval's iprec_at_recall means),
    one line per run (``curves``: run -> 11 values), as ranx draws it."""
    figure, (axes,) = _figure(1, title, legend_rows=math.ceil(len(curves) / 3))
    levels = [level / 10 for level in range(11)]
    for index, (run, precisions) in enumerate(curves.items()):
        axes.plot(levels, precisions, marker="o", markersize=3, color=f"C{index}", label=run)
    axes.set_xlabel("recall")
    axes.set_ylabel("interpolated precision")
    axes.set_xlim(-0.02, 1.02)
    axes.set_ylim(bottom=0)
    axes.grid(alpha=0.3)
    figure.legend(loc="lower center", ncol=min(3, len(curves)), fontsize="small", frameon=False)
    return figure


def figure_bytes(figure, fmt: str) -> bytes:
    """``figure`` as PNG or SVG bytes (SVG with a fixed hash salt and no date: the same
    data gives the same bytes)."""
    import matplotlib

    buffer = io.BytesIO()
    options = {"metadata": {"Date": None}}
    if fmt == "png":  # zlib's fastest level: a third of the time, a somewhat larger file
        options = {"metadata": {"Software": None}, "pil_kwargs": {"compress_level": 1}}
    with matplotlib.rc_context({"svg.hashsalt": "trecbench", "svg.fonttype": "path"}):
        figure.savefig(buffer, format=fmt, dpi=_DPI, **options)
    return buffer.getvalue()


def file_suffixes(labels: list[str]) -> dict[str, str]:
    """Section label -> file name suffix: ``""`` for ``all``, else ``_`` and the label
    with ``=`` as ``-`` and other characters than letters, digits, ``.``, ``_`` and ``-``
    as ``_`` (a number is appended when two labels end up alike)."""
    suffixes: dict[str, str] = {}
    for label in labels:
        if label == "all":
            suffixes[label] = ""
            continue
        base = "_" + re.sub(r"[^A-Za-z0-9._-]+", "_", label.replace("=", "-", 1))
        suffix, n = base, 1
        while suffix in suffixes.values():
            n += 1
            suffix = f"{base}-{n}"
        suffixes[label] = suffix
    return suffixes
