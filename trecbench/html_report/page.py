"""The comparison page: its context from a Comparison, rendered by the Jinja2 template."""

from __future__ import annotations

import json
import math
import re
import sys
from numbers import Real
from typing import Any

from ..collector import paused
from ..escaping import escaper
from ..extras import require
from ..plurals import counted
from ..renderers import comparison_cells as cells
from ..renderers.comparison_escaped import with_names_escaped
from ..rounding import ROUNDING_ULPS
from . import blocks
from .json_text import json_shown

DEPTH = 20  # documents per run and topic in the drill-down (--html-depth)
# the measures whose figures are drawn as the page opens: Chromium draws a Bokeh figure in
# some 0.45 s, and the 173 figures of score -m all_trec's page kept it busy for 78 s; the
# later measures' figures are drawn when the page's measure selector chooses one (their
# numbers are in the tables whole)
FIGURE_MEASURES = 6
# what a page's ``progress(label, done, total)`` is told (see :class:`Steps`)
PROGRESS_LABEL = "rendering the page"
# how the page shows a text read from an input (see _shown)
_page_text = escaper("html")


class Steps:
    """The page's making told to ``progress(PROGRESS_LABEL, done, total)`` (nothing
    without ``progress``), counted in steps of about one figure's share each (as measured
    on 5 runs of 15,000 topics, 6 measures: some 0.1 s each): each run's drill-down, the
    per-topic values and the texts as shown (a step per run each), each figure made, each
    figure serialised (Bokeh serialises them at once: told together), the page's data, each
    section's tables (the strata, movers, pairs and ties: seconds in all on a benchmark's
    strata, told as they are made, not in the template's one step) and its template (a
    step per measure and one more each: they grow with the values)."""

    def __init__(self, progress, runs: int, measures: int, sections: int = 1):
        self.progress, self.done = progress, 0
        self.figures = measures * (1 + (runs > 1)) + 1  # means, differences, the curves
        self.total = 3 * runs + 2 * self.figures + 2 * (measures + 1) + sections
        self.first_steps = runs  # the drill-down's
        self.step(0)

    def step(self, count: int = 1) -> None:
        self.done += count
        if self.progress is not None:
            self.progress(PROGRESS_LABEL, self.done, self.total)


def environment(jinja2):
    """The Jinja2 environment of the package's templates (autoescaped)."""
    loader = jinja2.PackageLoader("trecbench.html_report", "templates")
    return jinja2.Environment(loader=loader, autoescape=True, trim_blocks=True, lstrip_blocks=True)


def _sort_key(value: Any) -> str:
    """What a cell of a number sorts by: the number (numpy's too: a count read from a frame
    is a numpy.int64, no int, and W/T/L sorted by nothing), "" (last) for none."""
    if isinstance(value, Real) and not isinstance(value, bool) and math.isfinite(value):
        return repr(float(value))
    return ""


def _record_key(test) -> str:
    """What a W/T/L cell sorts by: the wins, then the fewer losses (``wins - losses /
    (topics + 1)``: the fraction below one, so it orders runs of equal wins alone)."""
    topics = test["wins"] + test["ties"] + test["losses"]
    return _sort_key(test["wins"] - test["losses"] / (topics + 1))


def _code_point_places(names) -> dict[str, int]:
    """Each of ``names`` (as read), as the page shows it -> its place in their code-point
    order (Python's, trec_eval's), by which a table's column of them sorts (a cell's
    ``data-order``): shown escaped and isolated (``%E2%80%AEz``, a U+2068 before an Arabic
    name), a name no longer sorts as it reads (``%E2%80%AEz`` before ``b``, ``ب1`` after
    ``ก1``)."""
    return {_page_text(name): place for place, name in enumerate(sorted(set(names)))}


def _summary_rows(comparison) -> list[list[tuple[str, str]]]:
    """The all-topics rows, one per measure and run: ``(text, sort key)`` per cell, the
    text as the Markdown report prints it."""
    alpha = comparison.statistics.alpha
    means = comparison.part(comparison.summary, "all").set_index(["measure", "run"])
    tests = comparison.part(comparison.comparisons, "all").set_index(["measure", "run"])
    rows = []
    for measure in comparison.measures:
        better = cells.direction_of(measure)
        for run in comparison.runs:
            mean = means.loc[(measure, run)]
            row = [
                (measure, measure),
                (run, run),
                (cells.value_text(mean["mean"]), _sort_key(mean["mean"])),
            ]
            interval = f"[{cells.value_text(mean['ci_low'])}, {cells.value_text(mean['ci_high'])}]"
            row.append((interval, _sort_key(mean["ci_low"])))
            if run == comparison.baseline:
                row += [("baseline", "")] + [("", "")] * 4
            else:
                test = tests.loc[(measure, run)]
                difference = cells.difference_text(test)
                marker = cells.marker_text(test, alpha, better)
                row += [
                    (difference, _sort_key(test["difference"])),
                    (
                        cells.change_text(test["relative_change"]),
                        _sort_key(test["relative_change"]),
                    ),
                    (f"{test['wins']}/{test['ties']}/{test['losses']}", _record_key(test)),
                    (cells.p_text(test["p_value"], alpha), _sort_key(test["p_value"])),
                    (
                        f"{cells.p_text(test['p_adjusted'], alpha)} {marker}".strip(),
                        _sort_key(test["p_adjusted"]),
                    ),
                ]
            rows.append(row)
    return rows


def _topic_values(comparison) -> dict:
    """``{qid: {run: [value per measure]}}`` of the per-topic values, the qids and runs in
    their order, each run's values in the order of ``comparison.measures`` (None where a
    measure has none for the topic): the page's data names the measures once. As
    ``{measure: value}`` per cell, 2,000 topics of 30 runs and all_trec's measures embedded
    68 MB of measure names; and the values are placed by one numpy step, not a Python dict
    built per run and topic."""
    import numpy as np
    import pandas as pd

    frame = comparison.per_query
    measures = list(map(str, comparison.measures))
    # each row's place: its topic's and run's in their order, its measure's in the list
    qid_codes, qids = pd.factorize(frame["qid"], sort=False)
    run_codes, runs = pd.factorize(frame["run"], sort=False)
    at = pd.Index(measures).get_indexer(frame["measure"])
    kept = at >= 0  # a measure the page does not list: not embedded
    grid = np.full((len(qids), len(runs), len(measures)), np.nan)
    numbers = frame["value"].to_numpy(float)
    places = (qid_codes[kept], run_codes[kept], at[kept])
    grid[places] = numbers[kept]
    if np.count_nonzero(~np.isnan(grid)) < np.count_nonzero(kept):
        # a value listed twice for a run, topic and measure: the last one, as ever (numpy
        # keeps no promised order for repeated places); the common case needs no search
        last = ~pd.DataFrame(places).T.duplicated(keep="last").to_numpy()
        grid[tuple(place[last] for place in places)] = numbers[kept][last]
    present = np.zeros((len(qids), len(runs)), dtype=bool)
    present[qid_codes, run_codes] = True
    names = list(map(str, runs))
    gaps = np.isnan(grid).any(axis=(1, 2)).tolist()
    values: dict[str, dict] = {}
    for place, qid in enumerate(map(str, qids)):
        rows = grid[place].tolist()
        if gaps[place]:  # JSON has no NaN: none where no value
            rows = [[None if v != v else v for v in row] for row in rows]
        found = present[place].tolist()
        values[qid] = {name: row for name, row, has in zip(names, rows, found, strict=True) if has}
    return values


def _measure_figures(comparison, values: dict, summary, measure: str) -> list[tuple]:
    """``(figure, text alternative)`` of ``measure``: its means with their intervals, and
    the per-topic differences against the baseline when a run is not the baseline (a
    canvas has no text: a screen reader read nothing of the figures)."""
    from . import figures
    from .later import made_labels

    baseline = comparison.baseline
    labels = made_labels(comparison, measure)
    rows = summary[summary["measure"] == measure].to_dict(orient="records")
    made = [(figures.means_figure(measure, rows), labels[0])]
    at = comparison.measures.index(measure)  # its place in each run's values
    series = {
        run: [
            (qid, by_run[run][at], by_run[baseline][at])
            for qid, by_run in values.items()
            if run in by_run
            and baseline in by_run
            and by_run[run][at] is not None
            and by_run[baseline][at] is not None
        ]
        for run in comparison.runs
        if run != baseline
    }
    if series:
        made.append((figures.differences_figure(measure, baseline, series), labels[1]))
    return made


def _drawn_figures(comparison, values: dict, curves: dict | None, steps: Steps) -> list[tuple]:
    """``(figure, text alternative)`` of each figure drawn as the page opens: those of the
    first FIGURE_MEASURES measures, and the curves; ``steps`` told each figure made."""
    from . import figures

    summary, drawn = comparison.part(comparison.summary, "all"), []
    for measure in comparison.measures[:FIGURE_MEASURES]:
        made = _measure_figures(comparison, values, summary, measure)
        drawn += made
        steps.step(len(made))
    if curves:
        drawn.append(
            (
                figures.precision_recall_figure(curves),
                f"Chart: precision-recall curves of {', '.join(curves)}, the interpolated "
                "precision at the 11 recall levels",
            )
        )
        steps.step()
    return drawn


def _figures(comparison, values: dict, curves: dict | None, steps: Steps) -> dict:
    """The page's figures: Bokeh's script and, per figure drawn as the page opens (those
    of the first FIGURE_MEASURES measures, the curves), its div and its text alternative;
    per later measure (``lazy``: its name, and per figure its div's id and text
    alternative), drawn when the page's measure selector chooses it from the templates and
    numbers of ``items`` (:func:`.later.later_figures`). ``steps`` told each figure made
    and serialised."""
    from bokeh.embed import components

    from . import figures
    from .later import later_figures

    summary, start = comparison.part(comparison.summary, "all"), steps.done
    lazy, items, later = [], None, comparison.measures[FIGURE_MEASURES:]
    # every id by position (the models' too, made here): the page made again is the same
    with figures.positional_ids():
        drawn = _drawn_figures(comparison, values, curves, steps)
        script, divs = components(figures.rooted([plot for plot, _ in drawn]))
        steps.step(len(drawn))
        if later:  # templates without per-topic values: the page's script fills them in
            lazy, items = later_figures(
                comparison,
                summary,
                later,
                lambda measure: _measure_figures(comparison, {}, summary, measure),
            )
    # the figures the page has not (no curves, or no run but the baseline's differences):
    # neither made nor serialised
    steps.step(start + 2 * steps.figures - steps.done)
    divs = list(zip(divs, [label for _, label in drawn], strict=True))
    return {"script": script, "figures": divs, "lazy": lazy, "items": items}


def _data_block(document: dict) -> str:
    """JSON for a <script type="application/json">: ``</`` and ``<!--`` cannot end it."""
    text = json.dumps(document, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _conclusions(comparison) -> list[tuple[str, str]]:
    """``(title, text)`` of the power (compare --power) and the unjudged sensitivity
    (--unjudged-bounds) when they were computed, as the terminal shows them, each name
    as the page shows it (isolated where it is right to left)."""
    parts = []
    if comparison.power is not None:
        parts.append(("Power (all topics)", comparison.power.render("table", _page_text)))
    if comparison.unjudged_sensitivity is not None:
        sensitivity = comparison.unjudged_sensitivity.render("table", _page_text)
        parts.append(("Unjudged sensitivity", sensitivity))
    return parts


def _provenance(comparison, stamp: dict | None, depth: int) -> dict:
    """The inputs, settings, ontology (MaxOntSim's), versions, date and experiment id,
    every text as read (the report's): ``stamp``'s date and id, those of the report the
    page belongs to (:func:`~trecbench.provenance.new_stamp`), else now and none. The
    settings are the comparison's and the page's own ``html_depth`` (--html-depth, as
    given: the drill-down's documents per run and topic)."""
    from ..report import environment, utc_now

    stamp = stamp or {"created": utc_now(), "experiment_id": None}
    settings = {k: v for k, v in comparison.settings.items() if k != "names"}
    # MaxOntSim's ontology as the report records it (its whole checksum: the header
    # shows 12 digits of it)
    ontology = {} if comparison.ontology is None else {"ontology": comparison.ontology}
    return {
        "inputs": comparison.inputs or [],
        "settings": {**settings, "html_depth": depth},
        "evaluation": comparison.evaluation or {},
        **ontology,
        "environment": environment(),
        "created": stamp["created"],
        "experiment_id": stamp["experiment_id"],
    }


def _scored_with(line: str):
    """A header line; the "Scored as" line, a command to paste, with its right-to-left
    paths' isolates (:func:`~trecbench.escaping.isolated_text`, outside their quotes) as
    ``<bdi>`` (markup, as :func:`~.json_text.json_shown` isolates), no character of the text."""
    from markupsafe import Markup, escape  # Jinja2's

    if not line.startswith("Scored as trecbench score "):
        return line
    parts = re.split("\u2068([^\u2068\u2069]*)\u2069", line)  # text, isolated, text...
    return Markup(
        "".join(
            str(escape(p)) if i % 2 == 0 else f"<bdi>{escape(p)}</bdi>" for i, p in enumerate(parts)
        )
    )


def _shown(comparison, values: dict, documents: dict, curves: dict | None):
    """``(comparison, values, documents, curves)`` as the page shows them, made here once:
    every text read from an input (run names, topic and document ids, strata, paths)
    escaped reversibly as the terminal and the Markdown report escape it, and isolated
    where it is right to left (:func:`~trecbench.escaping.isolated_text`), in
    the tables, the figures and the data the page's script draws from alike. Shown as
    given, a U+202E (right-to-left override) in a name reversed the page's own text after
    it, and "x<LF>y" read as "x y"."""
    values = {
        _page_text(qid): {_page_text(run): measures for run, measures in by_run.items()}
        for qid, by_run in values.items()
    }
    shown_documents = {}
    for qid, by_run in documents.items():
        for listed in by_run.values():
            for document in listed:  # the drill-down's own lists, made for this page
                document[0] = _page_text(document[0])
        shown_documents[_page_text(qid)] = {
            _page_text(run): listed for run, listed in by_run.items()
        }
    if curves:
        curves = {_page_text(run): curve for run, curve in curves.items()}
    return with_names_escaped(comparison, "html"), values, shown_documents, curves


def _best_runs_sorted_by(comparison, label: str, places: dict[str, int]) -> list[dict]:
    """The attributes each measure's best runs (a means table's last column, "a, b") sort
    by, as a column of names in the document's blocks (:func:`.blocks.sorted_by`): their
    place in the order of their runs' places; none for a measure without a best run
    ("n/a": the page sorts it last either way, as an empty cell)."""
    summary = comparison.by_measure_and_run(comparison.summary, label)
    keys = []
    for measure in comparison.measures:
        means = {run: summary[(measure, run)]["mean"] for run in comparison.runs}
        best = cells.best_runs(means, comparison.runs, cells.direction_of(measure))
        keys.append(tuple(places[run] for run in best))
    order = blocks.places(keys)
    return [blocks.sorted_by(key, order) for key in keys]


def _other_sections(comparison, places: dict[str, int], step) -> list[dict]:
    """Strata (means per stratum), movers, all pairs and tie sensitivity, as the Markdown
    report's cells; with the places of the means' best runs (``places``: each run's, see
    :func:`_code_point_places`); ``step()`` told after each section."""
    sections = []
    for section in comparison.sections:
        entry = {
            "title": f"{section.title} ({counted(section.topics, 'topic')})",
            "notes": cells.section_notes(comparison, section),
        }
        if section.label != "all":
            entry["means"] = cells.mean_cells(comparison, section.label, comparison.measures)
            entry["best_sorted_by"] = _best_runs_sorted_by(comparison, section.label, places)
        pairs = cells.pairs_rows(comparison, section.label, _strong)
        if len(comparison.runs) > 1 and pairs:
            entry["pairs"] = [["", "Run", *comparison.measures], *pairs]
            entry["pairs_note"] = cells.as_sentence(cells.pairs_note(comparison, section, True))
        entry["movers"] = cells.mover_lines(comparison, section.label, markdown=False)
        ties = cells.tie_rows(comparison, section.label)
        entry["ties"] = [cells.TIE_HEADER, *ties] if ties else None
        entry["ties_note"] = cells.as_sentence(cells.TIE_NOTE) if ties else None
        sections.append(entry)
        step()
    return sections


def _strong(text: str):
    """A best mean of the all-pairs table in bold, as the Markdown report's (markup)."""
    from markupsafe import Markup, escape  # Jinja2's

    return Markup(f"<strong>{escape(text)}</strong>")


def comparison_html(
    comparison,
    *,
    runs=None,
    qrels=None,
    depth: int = DEPTH,
    title: str = "trecbench comparison",
    preamble: list | None = None,
    kept=None,
    progress=None,
    stamp: dict | None = None,
) -> str:
    """The page of ``comparison`` (a :class:`~trecbench.comparison.Comparison`); the
    drill-down shows each run's top ``depth`` documents per topic and the precision-recall
    curves: those the runs' scoring ``kept`` ({run:
    :class:`~trecbench.evaluation.drill.DrillDown`} of ``depth`` documents), else read and
    ranked here from ``runs`` ({run: path or table}), each graded by its ``qrels`` ({run:
    path or table}), as the comparison's runs were scored (its ``evaluation``: -l, -M,
    -J, the trec_eval version). ``preamble``: the blocks shown first
    (:mod:`trecbench.renderers.blocks`: the benchmark's R-task part), their input text
    escaped as the page shows it (:func:`~trecbench.escaping.isolated_text`).
    ``progress(label, done, total)``, if given, is told the page's making as it goes
    (:data:`PROGRESS_LABEL`, in steps: :class:`Steps`); the page is the same. ``stamp``:
    the created time and experiment id of the report the page belongs to
    (:func:`~trecbench.provenance.new_stamp`), which its provenance records."""
    _refuse_arguments(progress, stamp)  # before anything is read or drawn
    jinja2 = require("jinja2", "the HTML report")
    require("bokeh", "the HTML report")
    steps = Steps(
        progress, len(comparison.runs), len(comparison.measures), len(comparison.sections)
    )
    # half a million small lists and dicts on 5,000 topics: see trecbench.collector
    with paused():
        drill = _drill_down(comparison, runs, qrels, depth, kept, steps.step)
        steps.step(max(0, steps.first_steps - steps.done))  # the runs not drilled down
        return _page(jinja2, comparison, drill, (depth, title, preamble, stamp), steps)


def _refuse_arguments(progress, stamp) -> None:
    """Refuse, in one line naming the argument and what it takes, a ``progress`` that is
    no function and a ``stamp`` that is not :func:`~trecbench.provenance.new_stamp`'s
    shape: either was a raw TypeError or KeyError from deep in the page's making."""
    from collections.abc import Mapping

    from ..callbacks import refuse_uncallable
    from ..errors import UsageError, excerpt
    from ..type_names import python_type

    refuse_uncallable(progress)
    shape = (
        "a stamp is None or {'created': text, 'experiment_id': text or None}, as "
        "trecbench.provenance.new_stamp() makes it"
    )
    if stamp is None:
        return
    if not isinstance(stamp, Mapping):
        raise UsageError(f"stamp is {python_type(stamp)}: {shape}")
    if set(stamp) != {"created", "experiment_id"}:
        raise UsageError(f"stamp has the keys {excerpt(list(stamp))}: {shape}")
    if not isinstance(stamp["created"], str) or not isinstance(stamp["experiment_id"], str | None):
        raise UsageError(f"stamp {excerpt(dict(stamp))}: {shape}")


def _why_no_documents(comparison, depth: int) -> str:
    """What each drill-down box says in place of documents the page has none of."""
    if depth == 0:
        return "documents not included: the page was asked for a depth of 0"
    if comparison.evaluation is None:  # compare_scores: per-topic values, no run read
        return "documents not included: the comparison was made of per-topic values, not runs"
    if (comparison.evaluation or {}).get("rel_format", "qrels") != "qrels":
        return "documents not included: preferences (-R) grade no document"
    return (
        "documents not included: the runs or their judgments cannot be read again "
        "(standard input, a pipe, or a table given without its file)"
    )


def _drill_down(comparison, runs, qrels, depth: int, kept, step) -> tuple[dict, dict | None]:
    """``(documents, curves)`` of the page (see :func:`comparison_html`), ``step()`` told
    after each run's."""
    from ..inputs.streams import rereadable
    from . import documents

    # depth 0: no documents, but the precision-recall curves all the same (they were left
    # out of the page with the documents)
    if kept is not None:  # as the runs were scored: in memory, a pipe's too
        return documents.from_kept(kept, depth, step)
    if not (runs and qrels):
        return {}, None
    # a run read from standard input cannot be read again: the page has no drill-down
    if not rereadable(runs.values()):
        return {}, None
    records = {item["path"]: item for item in comparison.inputs or []}
    options = documents.scored_options(comparison.evaluation)
    judged = documents.judgments(qrels, records, options)
    return documents.drill_down(runs, records, judged, depth, options, step)


def _page(jinja2, comparison, drill: tuple, shown: tuple, steps: Steps) -> str:
    """The page; ``shown``: ``(depth, title, preamble, stamp)`` (see :func:`comparison_html`)."""
    from bokeh.resources import Resources

    from ..evaluation.drill import mean_curves
    from .figures import MIN_WIDTH

    depth, title, preamble, stamp = shown
    values = _topic_values(comparison)
    steps.step(len(comparison.runs))
    docs, curves = drill
    if curves:  # per topic: averaged over the page's topics, as its means are
        curves = mean_curves(curves, comparison.queries)
    evaluation = comparison.evaluation or {}
    provenance = _provenance(comparison, stamp, depth)  # of the texts as read: the report's
    # in code-point order of the names as read: the tables' first order and their sort
    topics = [_page_text(qid) for qid in sorted(values)]
    places = _code_point_places(comparison.runs)
    comparison, values, docs, curves = _shown(comparison, values, docs, curves)
    steps.step(len(comparison.runs))
    shown_figures = _figures(comparison, values, curves, steps)
    data = {
        "runs": comparison.runs,
        "baseline": comparison.baseline,
        "measures": comparison.measures,
        "topics": topics,
        # topics whose qrels hold no relevant document: their rows marked, and the header's
        # line on them (every command's words) said of the marks; escaped as the topics
        # are, once (_shown), so that the page finds each among them
        "scoreless": list(comparison.scoreless or ()),
        "scoreless_said": cells.scoreless_line(comparison),
        "values": values,
        # a difference within this share of its larger value (of 1) is 0 on the page, as
        # the statistics count it a tie (rounding.per_topic_zero; numbers.js's difference)
        "tie_within": ROUNDING_ULPS * sys.float_info.epsilon,
        "documents": docs,
        "depth": depth if docs else 0,
        "no_documents": None if docs else _why_no_documents(comparison, depth),
        # how the drill-down marks documents as the scores saw them: relevant from -l,
        # ranks beyond -M not scored, unjudged left out by -J
        "scoring": {
            "relevant_from": evaluation.get("relevance_level") or 1,
            "max_docs": evaluation.get("max_docs"),
            "judged_only": bool(evaluation.get("judged_only")),
        },
    }
    data = _data_block(data)
    steps.step(len(comparison.measures) + 1)
    with comparison.split_by_section():  # read section by section
        sections = _other_sections(comparison, places, steps.step)
    page = (
        environment(jinja2)
        .get_template("comparison.html.j2")
        .render(
            title=_page_text(title),
            preamble=blocks.shown(preamble or []),
            conclusions=_conclusions(comparison),
            header=[_scored_with(line) for line in cells.header_lines(comparison)],
            legend=cells.legend_text(comparison, markdown=False, page=True),
            columns=[
                "Measure",
                "Run",
                "Mean",
                "Interval",
                f"vs {comparison.baseline} [interval]",
                "Change",
                "W/T/L",
                "p",
                comparison.statistics.adjusted_heading,
            ],
            summary=_summary_rows(comparison),
            run_places=places,
            sections=sections,
            # Bokeh's core only (no widgets, tables, WebGL or MathJax: 1.3 MB instead of 3.9)
            bokeh_js=Resources(mode="inline", components=["bokeh"]).render_js(),
            figure_script=shown_figures["script"],
            figure_print_width=MIN_WIDTH,
            figures=shown_figures["figures"],
            later_figures=shown_figures["lazy"],
            figures_drawn=FIGURE_MEASURES,
            later_items=_data_block(shown_figures["items"]),
            data=data,
            provenance=json_shown(provenance),
        )
    )
    steps.step(len(comparison.measures) + 1)
    return page
