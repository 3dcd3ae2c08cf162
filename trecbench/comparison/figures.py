"""Plots of a :class:`~trecbench.comparison.Comparison`: the figures take plain arrays
(:mod:`trecbench.plots` never sees this package)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .. import extras
from ..plurals import exact_percent
from .settings import ALL, MACRO
from .tables import values_cube


def plot_files(comparison, order: str = "difference") -> dict[str, bytes]:
    """File name -> bytes of every plot: ``means`` and, with two runs or more,
    ``differences`` (topics ordered by ``order``: ``difference`` or ``baseline``), as PNG
    and SVG, for all topics, each macro section (means only) and each stratum; over all
    topics also ``precision_recall`` when the runs' files are known."""
    extras.require("matplotlib", "plots")
    from .. import plots

    files = {}
    level = exact_percent(comparison.statistics.confidence)
    others = [run for run in comparison.runs if run != comparison.baseline]
    suffixes = plots.file_suffixes(comparison.stratum_labels)
    for section in comparison.sections:
        summary = comparison.part(comparison.summary, section.label)
        where = "" if section.kind == ALL else f" ({section.title})"
        wide = summary.pivot(index="measure", columns="run")
        undefined = section.interval_undefined  # no interval to draw: the figures say why
        figures = {
            "means": plots.means_figure(
                comparison.runs,
                comparison.measures,
                *(
                    wide[name]
                    .reindex(index=comparison.measures, columns=comparison.runs)
                    .to_numpy()
                    for name in ("mean", "ci_low", "ci_high")
                ),
                title=f"Means over {section.topics} topics{where}; baseline {comparison.baseline}",
                ylabel="mean" if undefined else f"mean, {level} CI",
                note=f"{level} intervals n/a: {undefined}" if undefined else None,
            )
        }
        curves = comparison.precision_recall() if section.kind == ALL else None
        drawn = figure_names(section.kind, len(comparison.runs), bool(curves))
        if "differences" in drawn:
            topics = comparison.topics_of(section.label)
            values = _plot_cube(comparison, topics)  # measures x runs x topics
            tests = comparison.part(comparison.comparisons, section.label)
            tests = tests.set_index(["measure", "run"])
            shown = ["difference", "ci_low", "ci_high"]
            intervals = np.array(
                [
                    [tests.loc[(m, run), shown].to_numpy(float) for run in others]
                    for m in comparison.measures
                ]
            )
            base = comparison.runs.index(comparison.baseline)
            rest = [comparison.runs.index(run) for run in others]
            figures["differences"] = plots.differences_figure(
                others,
                comparison.measures,
                values[:, base, :],
                values[:, rest, :],
                intervals,
                baseline=comparison.baseline,
                order=order,
                title=f"Per-topic difference against {comparison.baseline}{where}",
                level=level,
                colors=[f"C{i}" for i in rest],  # each run's colour in the means figure
                interval_undefined=undefined,
            )
        if "precision_recall" in drawn:
            figures["precision_recall"] = plots.precision_recall_figure(
                curves, f"Precision-recall over {section.topics} topics (iprec_at_recall)"
            )
        for name, figure in figures.items():
            for fmt in plots.FORMATS:
                files[plot_file(name, suffixes[section.label], fmt)] = plots.figure_bytes(
                    figure, fmt
                )
    return files


def figure_names(kind: str, runs: int, curves: bool) -> list[str]:
    """The figures drawn of a section of ``kind`` comparing ``runs`` runs: ``means``;
    ``differences`` with two runs or more, but of a macro section; over all topics
    ``precision_recall`` when the runs' ``curves`` are known."""
    names = ["means"]
    if runs > 1 and kind != MACRO:
        names.append("differences")
    if curves and kind == ALL:
        names.append("precision_recall")
    return names


def plot_paths(out: Path, sections: list[tuple[str, str]], runs: int, curves: bool) -> list[Path]:
    """The plots written into ``out`` of ``sections`` (label and kind, in the
    comparison's order, which numbers alike file names), without drawing them."""
    from ..plots import FORMATS, file_suffixes

    suffixes = file_suffixes([label for label, _ in sections])
    return [
        out / plot_file(figure, suffixes[label], fmt)
        for label, kind in sections
        for figure in figure_names(kind, runs, curves)
        for fmt in FORMATS
    ]


def plot_file(figure: str, suffix: str, fmt: str) -> str:
    """``means_language-de.png``: the figure, its section's suffix, the format."""
    return f"{figure}{suffix}.{fmt}"


def _plot_cube(comparison, topics: list[str]) -> np.ndarray:
    """``measures x runs x topics`` per-topic values of ``topics``."""
    cube = values_cube(comparison.per_query, comparison.runs, comparison.measures, topics)
    return cube.transpose(2, 1, 0)
