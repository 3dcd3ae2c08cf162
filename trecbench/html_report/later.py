"""The later measures' figures (those the page draws when its measure selector chooses
one, past the first FIGURE_MEASURES): a figure of each kind (means, differences) made
and serialised once as a template, and per measure what the page's script (figures.js)
fills a copy of it with: its titles as Python folds them, the means with their
intervals (the report's numbers); the per-topic differences it reads from the page's data
(the report's per-topic values), sorted as :func:`.figures.differences_figure` sorts
them. Made per measure, the ~160 figures of score -m all_trec's page took some 10 s of
its making for figures the page draws only when chosen."""

from __future__ import annotations

import math
from collections.abc import Callable


def _number(value) -> float | None:
    """``value`` as the page's JSON holds it: none for NaN (JSON has no NaN)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    return float(value)


def later_figures(comparison, summary, measures: list[str], make: Callable) -> tuple[list, dict]:
    """``(lazy, items)`` of the ``measures`` drawn when chosen: ``lazy`` per measure its
    name and per figure its div's id and text alternative; ``items`` the templates
    (Bokeh's JSON of ``make(measure)``'s figures, made without per-topic values) and per
    measure, in ``measures``' order, the numbers and texts that fill them in. ``make``:
    ``measure -> [(figure, text alternative)]`` of no per-topic values."""
    from bokeh.embed import json_item

    from . import figures

    made = make(measures[0])
    kinds = ("means", "differences")[: len(made)]
    templates = {kind: json_item(plot) for kind, (plot, _) in zip(kinds, made, strict=True)}
    rows = summary[summary["measure"].isin(measures)]
    runs = [str(run) for run in rows[rows["measure"] == measures[0]]["run"]]
    by_key = rows.set_index(["measure", "run"])
    lazy, filled = [], []
    for measure in measures:
        labels = made_labels(comparison, measure)
        targets = [
            f"trecbench-later-figure-{len(lazy) * len(kinds) + at + 1}" for at in range(len(kinds))
        ]
        lazy.append((measure, list(zip(targets, labels, strict=True))))
        means = [
            [
                _number(by_key.loc[(measure, run), column])
                for column in ("mean", "ci_low", "ci_high")
            ]
            for run in runs
        ]
        title_texts = figures.titles(measure, comparison.baseline, runs)
        filled.append(
            {"measure": measure, "titles": list(title_texts[: len(kinds)]), "means": means}
        )
    items = {"kinds": list(kinds), "templates": templates, "runs": runs, "measures": filled}
    return lazy, items


def made_labels(comparison, measure: str) -> list[str]:
    """The text alternatives of ``measure``'s figures: its means with their intervals, and
    the per-topic differences against the baseline when a run is not the baseline (a
    canvas has no text: a screen reader read nothing of the figures)."""
    baseline = comparison.baseline
    others = [run for run in comparison.runs if run != baseline]
    labels = [
        f"Chart: {measure}, each run's mean with its interval, a run a row "
        f"({', '.join(comparison.runs)}); the numbers are in the summary table"
    ]
    if others:
        labels.append(
            f"Chart: {measure}, per-topic difference of {', '.join(others)} against "
            f"{baseline}, sorted; the values are in the topics table"
        )
    return labels
