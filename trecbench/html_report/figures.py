"""The page's interactive figures (Bokeh; its JavaScript is inlined by the page): per
measure the means with their intervals per run and the per-topic differences against the
baseline, sorted; the runs' precision-recall curves. Hovering a point names the run or the
topic and its values."""

from __future__ import annotations

import contextlib
import itertools
import math
import os
import re
import threading
from collections import Counter
from collections.abc import Iterator, Mapping
from functools import cache
from typing import Any

from ..number_text import value_text
from ..rounding import per_topic_zero

# a canvas is as wide as the page's content (fixed widths ran past a window of 800 px): at
# most 1180 px (the template's body max-width), at least MIN_WIDTH, the content of a window
# of some 770 px (a narrower one scrolls); titles and legends are laid out to fit MIN_WIDTH,
# so that no canvas between the two cuts them off
PAGE_WIDTH, MIN_WIDTH = 1180, 720
# a plot area's height, and the least width a legend beside it leaves it (on the narrowest
# canvas): the toolbar below it, its eight buttons in some 250 px (narrower, they fold into
# a menu), and room for the points
FRAME_HEIGHT, MIN_FRAME_WIDTH = 225, 300
# legend entries per column beside a plot area: 8 rows (about 23 px each) fit its height
LEGEND_ROWS = 8
# room left of a plot area for the y axis, its tick labels and its name (about 60 px)
Y_AXIS_ROOM = 90
# the means' figure: a run's row (its name on the y axis, 11 px), and the longest name it
# shows whole (the hover names every run in full)
RUN_ROW, NAME_CHARS = 18, 40
# the widths of the characters of Helvetica (Bokeh's legends' font; Arial and Liberation
# Sans have the same) in thousandths of an em, as Chromium measures them; any other: an em
_HELVETICA = {191: "'", 222: "ijl", 260: "|", 278: " !,./:;I[\\]ft", 333: "()-`r", 334: "{}",
              355: '"', 389: "*", 469: "^", 500: "Jcksvxyz",
              556: "#$0123456789?L_abdeghnopqu", 584: "+<=>~", 611: "FTZ",
              667: "&ABEKPSVXY", 722: "CDHNRUw", 778: "GOQ", 833: "Mm", 889: "%", 944: "W",
              1015: "@"}  # fmt: skip
# the same of its bold (the titles' font)
_HELVETICA_BOLD = {238: "'", 278: " ,./I\\ijl", 280: "|", 333: "!()-:;[]`ft", 389: "*r{}",
                   474: '"', 500: "z", 556: "#$0123456789J_acekvsxy", 584: "+<=>^~",
                   611: "?FLTZbdghnopqu", 667: "EPSVXY", 722: "&ABCDHKNRU", 778: "GOQw",
                   833: "M", 889: "%m", 944: "W", 975: "@"}  # fmt: skip
_WIDTHS = {char: width for width, chars in _HELVETICA.items() for char in chars}
_BOLD_WIDTHS = {char: width for width, chars in _HELVETICA_BOLD.items() for char in chars}
# a title's font size, px
TITLE_SIZE = 13
# the names of the models a later measure's figures fill in (later.py, figures.js): the
# title, the measure's axis label, the means' source and each run's differences' source
TITLE, MEASURE_LABEL = "trecbench-title", "trecbench-measure-label"
MEANS, DIFFERENCES = "trecbench-means", "trecbench-differences-"
PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2",
           "#7f7f7f", "#bcbd22", "#17becf")  # fmt: skip
# past ten runs, colours repeat with another marker and dash: 80 runs told apart
MARKERS = ("circle", "square", "triangle", "diamond", "inverted_triangle", "hex", "star", "plus")
DASHES = ("solid", "dashed", "dotted", "dotdash", "dashdot", "4 2 1 2", "8 2", "1 4")


def style(index: int) -> tuple[str, str, str]:
    """``(colour, marker, dash)`` of the ``index``-th run of a figure."""
    cycle = index // len(PALETTE)
    return PALETTE[index % len(PALETTE)], MARKERS[cycle % len(MARKERS)], DASHES[cycle % len(DASHES)]


class _Texts(list):
    """A column of strings (topic ids, run names) that Bokeh serialises as the list it is,
    in one step: its serialiser otherwise visits every string (240,000 visits on 5 runs
    of 5,000 topics, a tenth of the figures' time). The page's JSON is the same."""


def _encode_texts(texts: _Texts, serializer) -> list:
    if all(type(text) is str for text in texts):
        return list(texts)
    return [serializer.encode(item) for item in texts]  # what Bokeh does for any list


@cache
def _texts_encoded() -> None:
    """Register :class:`_Texts` with Bokeh's serialiser (once)."""
    from bokeh.core.serialization import Serializer

    Serializer.register(_Texts, _encode_texts)


def _texts(values) -> _Texts:
    _texts_encoded()
    return _Texts(values)


def _four(values, sign: bool = False) -> _Texts:
    """``values`` with four decimals, as the page's tables and trec_eval print them (an
    exact half to even: Bokeh's own ``{0.0000}`` rounds 0.03125 up to 0.0313; a value
    that is not 0 but would print so, in scientific notation:
    :func:`~trecbench.number_text.value_text`); n/a for a value that is not
    there (NaN, None)."""
    return _texts(
        "n/a" if value is None or value != value else value_text(value, sign) for value in values
    )


def _figure(title: str, frame_height: int = FRAME_HEIGHT, axis: float = Y_AXIS_ROOM, **options):
    """A figure of the page: its plot area ``frame_height`` high, its canvas as wide as the
    page's content (from MIN_WIDTH to PAGE_WIDTH), the plot area what the ``axis`` left
    of it and a legend beside it leave; its title folded into lines that the narrowest
    canvas holds from the plot area's left edge (:func:`_folded`)."""
    from bokeh.models import HelpTool
    from bokeh.plotting import figure

    # the toolbar below the plot area: above, it shared the title's line and folded tools
    # into a menu beside a long title (the baseline's name, the curves')
    # names too wide for the narrowest canvas (written whole on the means' axis, a rare
    # case) leave the title half of it
    plot = figure(toolbar_location="below",
                  frame_height=frame_height, sizing_mode="stretch_width",
                  min_width=MIN_WIDTH, max_width=PAGE_WIDTH, **options)  # fmt: skip
    # Bokeh's default tools but its help: a link to https://docs.bokeh.org/, opened in a
    # new tab, on a page meant to be offline
    plot.toolbar.tools = [t for t in plot.toolbar.tools if not isinstance(t, HelpTool)]
    # no Bokeh logo: a link to https://bokeh.org/ on a page meant to be offline, and one
    # more Tab stop per figure
    plot.toolbar.logo = None
    plot.title.text = _plain(folded_title(title, axis), TITLE)
    plot.title.text_font_size = f"{TITLE_SIZE}px"
    return plot


def folded_title(title: str, axis: float = Y_AXIS_ROOM) -> str:
    """``title`` folded as a figure with ``axis`` px left of its plot area writes it
    (:func:`_figure`)."""
    return _folded(title, max(MIN_WIDTH - axis, MIN_WIDTH / 2))


def _plain(text: str, name: str | None = None):
    """``text`` as Bokeh writes it, as it is: a plain string between ``$$`` (or ``\\(``
    and ``\\)``, ``\\[`` and ``\\]``) is read as TeX (a run named ``$$x^2$$`` shown as
    x², a title holding it as raw TeX). ``name``: the model's, by which the page's script
    finds it in a figure's template (later.py)."""
    from bokeh.models import PlainText

    return PlainText(text=text) if name is None else PlainText(text=text, name=name)


def _text_width(text: str, size: int, bold: bool = False) -> float:
    """The width in px of ``text`` written in Helvetica (``bold``) of ``size`` px."""
    widths = _BOLD_WIDTHS if bold else _WIDTHS
    return sum(widths.get(char, 1000) for char in text) * size / 1000


def _folded(text: str, room: float, size: int = TITLE_SIZE, bold: bool = True) -> str:
    """``text`` in lines (``\\n``) no wider than ``room`` px in Helvetica of ``size`` px
    (``bold``: the titles' font): broken after a space where one is, within a word (a run's
    name) where it alone is wider (a title past its canvas was cut off: the baseline's name
    of 75 characters and more). A text that fits is returned as it is, every space kept;
    a folded one loses the spaces where its lines break and at its ends."""
    if _text_width(text, size, bold) <= room:
        return text
    lines, line = [], ""
    for word in re.findall(r"\S+\s*", text):  # each word with the spaces after it
        if line and _text_width(line + word.rstrip(), size, bold) > room:
            lines.append(line.rstrip())
            line = ""
        for char in word:
            wider = _text_width(line + char, size, bold) > room
            if line and wider and not char.isspace():
                lines.append(line.rstrip())
                line = ""
            line += char
    return "\n".join([*lines, line.rstrip()])


def _with_legend(title: str, names: list[str]) -> tuple[Any, dict[str, str]]:
    """A figure whose legend names ``names`` and is never over a point, and the label of
    each name in it (for :func:`_add_entry`): right of its plot area, in columns of
    LEGEND_ROWS, while on the narrowest canvas it leaves the plot area MIN_FRAME_WIDTH; else
    below it, in rows as wide as the plot area on the narrowest canvas. A name wider than
    that (some 85 characters) is folded into lines that fit (:func:`_folded`; the canvas
    grew past the page for it); the points' hover names each run whole."""
    from bokeh.models import Legend

    legend = Legend()
    # a column: an entry's glyph, its gaps and the longest line of a label; around the
    # columns the legend's padding and margin (Bokeh's sizes)
    font = int(legend.label_text_font_size.removesuffix("px"))
    glyph = legend.glyph_width + legend.label_standoff + legend.spacing
    border = 2 * (legend.padding + legend.margin)
    room = MIN_WIDTH - Y_AXIS_ROOM - border
    labels = {name: _folded(name, room - glyph, font, bold=False) for name in names}
    lines = [line for label in labels.values() for line in label.split("\n")]
    column = glyph + max(_text_width(line, font) for line in lines)
    beside = math.ceil(len(names) / LEGEND_ROWS) * column + border
    plot = _figure(title)  # the title over a legend beside too
    if Y_AXIS_ROOM + MIN_FRAME_WIDTH + beside <= MIN_WIDTH:
        legend.nrows = min(len(names), LEGEND_ROWS)  # more rows than entries leave a blank
        place = "right"
    else:
        fit = max(1, int(room // column))
        # down each column, as beside: the rows that many columns need
        legend.update(nrows=math.ceil(len(names) / fit), location="top_left")
        place = "below"
    # the figure's one legend, outside the plot area: Bokeh's default one, made for glyphs
    # given a legend_label, was inside it, over the curves' and the differences' points
    plot.add_layout(legend, place)
    return plot, labels


def _add_entry(plot, label: str, renderers: list) -> None:
    """An entry of its own in ``plot``'s legend for one run's ``renderers``. Not Bokeh's
    legend_label: it makes one entry of all glyphs labelled alike, and two names folded
    alike (differing only in the spaces where their lines break) shared one."""
    from bokeh.models import LegendItem

    plot.legend[0].items.append(LegendItem(label=label, renderers=renderers))


def _shown_name(name: str) -> str:
    """``name`` as the means' axis writes it: at most NAME_CHARS characters, its middle
    left out (runs' names often differ at their end: "-00", "-01")."""
    if len(name) <= NAME_CHARS:
        return name
    tail = NAME_CHARS // 3
    return _parts(name, [(0, NAME_CHARS - tail - 1), (len(name) - tail, len(name))])


def _parts(name: str, spans: list[tuple[int, int]]) -> str:
    """``name``'s characters within ``spans`` (``(start, end)``, overlapping or not),
    each stretch left out written as one ellipsis."""
    pieces, at = [], 0
    for start, end in sorted(spans):
        start, end = max(start, at), min(end, len(name))
        if start >= end:
            continue
        pieces += ["\u2026"] if start > at else []
        pieces.append(name[start:end])
        at = end
    return "".join(pieces + (["\u2026"] if at < len(name) else []))


def _around(name: str, differs_at: int) -> str:
    """``name`` in at most NAME_CHARS characters that show where it differs from another
    name (``differs_at``, past the part :func:`_shown_name` shows of its start): its
    start, the 16 characters from 5 before that place, its end."""
    if len(name) <= NAME_CHARS:
        return name
    head, tail, window = 12, 10, NAME_CHARS - 12 - 10 - 2
    spans = [(0, head), (differs_at - 5, differs_at - 5 + window), (len(name) - tail, len(name))]
    return _parts(name, spans)


def _common_start(a: str, b: str) -> int:
    """How many characters ``a`` and ``b`` begin with alike."""
    return len(os.path.commonprefix([a, b]))


def _shown_names(names: list[str]) -> list[str]:
    """Each of ``names`` (distinct) as the means' axis writes it (:func:`_shown_name`),
    no two alike: names that would read alike (``...bm25-rm3.fb10-terms20...`` and
    ``...fb20-terms10...``, the same start and end) show instead where each departs from
    the nearest of them (:func:`_around`); any still alike are written whole."""
    shown = [_shown_name(name) for name in names]
    alike: dict[str, list[int]] = {}
    for index, label in enumerate(shown):
        alike.setdefault(label, []).append(index)
    for group in (group for group in alike.values() if len(group) > 1):
        for index in group:
            name = names[index]
            departs = max(_common_start(name, names[other]) for other in group if other != index)
            shown[index] = _around(name, departs)
    counts = Counter(shown)
    return [name if counts[label] > 1 else label for name, label in zip(names, shown, strict=True)]


def means_axis(runs: list[str]) -> float:
    """The room left of the means' plot area: the runs' names written left of it (the
    axis's labels' font: 11 px)."""
    return Y_AXIS_ROOM + max(_text_width(name, 11) for name in _shown_names(runs))


def titles(measure: str, baseline: str, runs: list[str]) -> tuple[str, str]:
    """The titles of ``measure``'s two figures (means, differences), folded as they write
    them."""
    return (
        folded_title(f"{measure}: means with intervals", means_axis(runs)),
        folded_title(f"{measure}: per-topic difference against {baseline}, sorted"),
    )


def means_figure(measure: str, rows: list[Mapping]):
    """The mean of each run with its interval (``rows``: run, mean, ci_low, ci_high), a
    run a row: its name on the y axis, written across (below each other, the names of many
    runs overlapped on an x axis)."""
    from bokeh.models import ColumnDataSource, FixedTicker, HoverTool, Range1d, Whisker

    runs = [row["run"] for row in rows]
    rows_at = list(range(len(runs)))
    source = ColumnDataSource(
        name=MEANS,
        data={
            "row": rows_at,
            "run": runs,
            "mean": [row["mean"] for row in rows],
            "low": [row["ci_low"] for row in rows],
            "high": [row["ci_high"] for row in rows],
            "mean_text": _four(row["mean"] for row in rows),
            "low_text": _four(row["ci_low"] for row in rows),
            "high_text": _four(row["ci_high"] for row in rows),
        },
    )
    shown = _shown_names(runs)
    plot = _figure(
        f"{measure}: means with intervals",
        frame_height=max(FRAME_HEIGHT, RUN_ROW * len(runs)),
        axis=means_axis(runs),
        y_range=Range1d(len(runs) - 0.5, -0.5),  # the first run on top, as in the tables
    )
    # the interval a glyph too: the x range spans glyphs, not annotations (it ended at the
    # means, and an interval past the highest or lowest mean was cut off)
    plot.segment("low", "row", "high", "row", source=source, color="black")
    plot.add_layout(
        Whisker(source=source, base="row", lower="low", upper="high", dimension="width")
    )
    dots = plot.scatter("mean", "row", source=source, size=10, color=PALETTE[0])
    tips = [
        ("run", "@run"),
        ("mean", "@mean_text"),
        ("interval", "[@low_text, @high_text]"),
    ]
    plot.add_tools(HoverTool(renderers=[dots], tooltips=tips))
    plot.yaxis.ticker = FixedTicker(ticks=rows_at, minor_ticks=[])
    plot.yaxis.major_label_overrides = {row: _plain(name) for row, name in enumerate(shown)}
    plot.xaxis.axis_label = _plain(measure, MEASURE_LABEL)
    return plot


def differences_figure(measure: str, baseline: str, series: Mapping[str, list[tuple]]):
    """Per run, the per-topic differences against the baseline, sorted (``series``: run ->
    [(qid, value, baseline value)])."""
    import numpy as np
    from bokeh.models import BasicTicker, ColumnDataSource, HoverTool

    title = f"{measure}: per-topic difference against {baseline}, sorted"
    plot, labels = _with_legend(title, list(series))
    for index, (run, points) in enumerate(series.items()):
        value = np.array([p[1] for p in points], np.float64)
        base = np.array([p[2] for p in points], np.float64)
        # a difference within the values' rounding is 0, as the statistics count it a tie
        difference = per_topic_zero(value, base)
        order = sorted(range(len(points)), key=lambda at: (difference[at], points[at][0]))
        points = [points[at] for at in order]
        value, base, difference = value[order], base[order], difference[order]
        # numbers as arrays: Bokeh embeds an array as one block of bytes, a list value by
        # value (the figures of 5,000 topics took seconds of serialisation)
        source = ColumnDataSource(
            name=f"{DIFFERENCES}{index}",
            data={
                "x": np.arange(1, len(points) + 1, dtype=np.int32),
                "qid": _texts(p[0] for p in points),
                "value": value,
                "base": base,
                "difference": difference,
                "run": _texts([run] * len(points)),
                "value_text": _four(value.tolist()),
                "base_text": _four(base.tolist()),
                "difference_text": _four(difference.tolist(), sign=True),
            },
        )
        color, marker, _ = style(index + 1)  # the baseline's is the first
        line = plot.scatter("x", "difference", source=source, size=5, color=color, marker=marker)
        _add_entry(plot, labels[run], [line])
        tips = [("topic", "@qid"), ("run", "@run"), ("value", "@value_text"),
                (baseline, "@base_text"), ("difference", "@difference_text")]  # fmt: skip
        plot.add_tools(HoverTool(renderers=[line], tooltips=tips))
    # the x axis counts topics: whole numbers only (1.2, 1.4 under two topics)
    plot.xaxis.ticker = BasicTicker(min_interval=1, num_minor_ticks=0)
    plot.xaxis.axis_label = "topics, by difference"
    plot.yaxis.axis_label = _plain(f"{measure} difference", MEASURE_LABEL)
    return plot


def rooted(plots: list) -> list:
    """``plots``, the roots of one new Bokeh document, for ``components``.

    Given models without a document, ``components`` adds them as roots one by one, and
    each addition walks every model of the document again (quadratic: a second of the
    page's time). Added under one freeze, the models are walked once; the document, its
    roots and their order are those ``components`` would make, and so is the page."""
    from bokeh.document import Document

    document = Document()
    with document.models.freeze():
        for plot in plots:
            document.add_root(plot)
    return plots


_FIRST_MODEL_ID = 999  # Bokeh's count starts here: its first model is p1000
_IDS_LOCK = threading.Lock()  # one page's ids made at a time: the names are Bokeh's module's


@contextlib.contextmanager
def positional_ids() -> Iterator[None]:
    """Bokeh's figures made and ``components`` called inside give the page's document and
    each figure's ``<div>`` ids by position (``trecbench-document-1``,
    ``trecbench-figure-1``...), not uuid4s (Bokeh's default), and its models' ids
    (``p1000``...) from Bokeh's first, not from its process-wide count (a second page of a
    process, ``to_html`` called twice, numbered them on from the first's): two makings of
    one page are then byte-identical apart from what the report says differs (its
    ``created``, ``experiment_id``). The page holds one Bokeh document, so the ids are
    unique in it; the count goes on after from the highest id made, so that the models of
    the process's other documents keep ids of their own."""
    from bokeh.embed import util
    from bokeh.util import serialization

    names = ("make_globally_unique_id", "make_globally_unique_css_safe_id")
    if not all(hasattr(util, name) for name in names):  # another Bokeh: its own ids
        yield
        return
    documents, elements = itertools.count(1), itertools.count(1)
    with _IDS_LOCK:
        saved = util.make_globally_unique_id, util.make_globally_unique_css_safe_id
        count = getattr(serialization, "_simple_id", None)  # another Bokeh's: left alone
        util.make_globally_unique_id = lambda: f"trecbench-document-{next(documents)}"
        util.make_globally_unique_css_safe_id = lambda: f"trecbench-figure-{next(elements)}"
        if isinstance(count, int):
            serialization._simple_id = _FIRST_MODEL_ID
        try:
            yield
        finally:
            util.make_globally_unique_id, util.make_globally_unique_css_safe_id = saved
            if isinstance(count, int):
                serialization._simple_id = max(count, serialization._simple_id)


def precision_recall_figure(curves: Mapping[str, list[float]]):
    """Interpolated precision at the 11 recall levels per run (trec_eval's
    iprec_at_recall means)."""
    from bokeh.models import ColumnDataSource, HoverTool

    title = "Precision-recall (interpolated precision at 11 recall levels)"
    plot, labels = _with_legend(title, list(curves))
    levels = [level / 10 for level in range(11)]
    for index, (run, precisions) in enumerate(curves.items()):
        source = ColumnDataSource(
            {"recall": levels, "precision": precisions, "run": [run] * 11,
             "precision_text": _four(precisions)}
        )  # fmt: skip
        color, marker, dash = style(index)
        curve = plot.line("recall", "precision", source=source, color=color, line_dash=dash)
        marks = plot.scatter("recall", "precision", source=source, color=color, size=6,
                             marker=marker)  # fmt: skip
        _add_entry(plot, labels[run], [curve, marks])
        tips = [("run", "@run"), ("recall", "@recall{0.0}"), ("precision", "@precision_text")]
        plot.add_tools(HoverTool(renderers=[marks], tooltips=tips))
    plot.xaxis.axis_label = "recall"
    plot.yaxis.axis_label = "interpolated precision"
    return plot
