"""report.html with hostile names and ids, in headless Chromium: a long baseline name folds
the differences' title within its canvas, a long run name folds in the legends within the
page, long docnos wrap inside the drill-down, every text has a contrast of 4.5:1 (WCAG
AA), topics and runs named like JavaScript's
Object.prototype members open as any other, and the means' axis never writes two runs'
names alike."""

from __future__ import annotations

import re

import pytest
from test_html_report import LEGEND_BOXES, _data, _drawn, _legends_apart, _open_topic

from trecbench.cli import run

pytest.importorskip("bokeh")

# each figure's title, where its text starts and how wide it is drawn, and its canvas's width
TITLES = """
return Object.values(Bokeh.index).filter(function (view) {
  return view.model.type === "Figure"; }).map(function (plot) {
  var title = plot.computed_renderer_views.find(function (view) {
    return view.model.type === "Title"; });
  return [plot.model.title.text.text, title._rect.sx, title._rect.width, plot.bbox.width];
});"""


@pytest.mark.parametrize(
    "baseline",
    [
        "bm25-k1_0.9-b_0.4-rm3-fb_docs_10-fb_terms_10-monot5-base-rerank-top100-msmarco-v2-dev",
        "b" * 150,  # no place to break: broken within
    ],
)
def test_a_long_baseline_name_folds_the_differences_title_within_its_canvas(
    browser, tmp_path, baseline
):
    # the title's width was not counted: past some 75 characters it ran off the canvas
    (tmp_path / "q").write_text("t1 0 d1 1\nt2 0 d1 1\n")
    runs = [tmp_path / f"{baseline}.run", tmp_path / "x.run"]
    runs[0].write_text("t1 Q0 d1 1 2 b\nt2 Q0 d2 1 2 b\n")
    runs[1].write_text("t1 Q0 d2 1 2 x\nt2 Q0 d1 1 2 x\n")
    page = tmp_path / "long.html"
    args = ["score", "-m", "P.1", str(tmp_path / "q"), *map(str, runs), "--html", str(page)]
    assert run([*args, "--quiet"]) == 0
    titles = _drawn(browser, page).execute_script(TITLES)
    assert len(titles) == 3
    for text, start, width, canvas in titles:
        assert start + width <= canvas, (text, start, width, canvas)
    # folded, not shortened: every character of the name is there
    differences = next(text for text, *_ in titles if "per-topic difference" in text)
    assert "\n" in differences
    expected = f"P@1: per-topic difference against {baseline}, sorted"
    assert re.sub(r"\s", "", differences) == re.sub(r"\s", "", expected)


# a run's name of 190 characters (the page's width holds some 140 in a legend's font)
LONG_RUN = ("bm25-rm3-monot5-rerank-top100-" * 7)[:190]
# the labels of the figures' legends, as drawn
LEGEND_LABELS = """
var labels = [];
for (var plot of Object.values(Bokeh.index)) {
  for (var view of plot.computed_renderer_views || []) {
    if (view.model.type === "Legend") {
      for (var item of view.model.items) { labels.push(item.label.value); } } } }
return labels;"""


def test_a_long_run_name_folds_in_the_legends_within_the_page(browser, tmp_path):
    # the curves' legend wrote it on one line, to x = 1,369 px: past its canvas and the
    # page's 1,180 px
    (tmp_path / "q").write_text("t1 0 d1 1\nt2 0 d1 1\n")
    runs = [tmp_path / "x.run", tmp_path / f"{LONG_RUN}.run"]  # x the baseline
    runs[0].write_text("t1 Q0 d1 1 2 x\nt2 Q0 d2 1 2 x\n")
    runs[1].write_text("t1 Q0 d2 1 2 b\nt2 Q0 d1 1 2 b\n")
    page = tmp_path / "long.html"
    args = ["score", "-m", "P.1", str(tmp_path / "q"), *map(str, runs), "--html", str(page)]
    assert run([*args, "--quiet"]) == 0
    drawn = _drawn(browser, page)
    figures = drawn.execute_script(LEGEND_BOXES)
    assert len(_legends_apart(figures)) == 2  # the differences' and the curves'
    width = drawn.execute_script("return document.querySelector('.figures').clientWidth")
    for title, _, canvas, legends in figures:
        assert canvas[2] - canvas[0] <= width, (title, canvas, width)
        assert all(legend[2] <= canvas[2] for legend in legends), (title, canvas, legends)
    # folded, not shortened: every character of the name is there
    folded = [label for label in drawn.execute_script(LEGEND_LABELS) if label.startswith("bm")]
    assert len(folded) == 2 and all("\n" in label for label in folded)
    assert {label.replace("\n", "") for label in folded} == {LONG_RUN}


def test_a_long_run_name_folds_in_the_figures_legend_within_the_page():
    from trecbench.html_report import figures

    curves = {"x": [0.5] * 11, LONG_RUN: [0.25] * 11}
    plot = figures.precision_recall_figure(curves)
    # it was 1,412 px wide for the name; now as wide as the page's content, within these
    assert plot.sizing_mode == "stretch_width"
    assert (plot.min_width, plot.max_width) == (figures.MIN_WIDTH, figures.PAGE_WIDTH)
    (legend,) = plot.legend
    assert legend in plot.below
    labels = [item.label.value for item in legend.items]
    assert labels[0] == "x" and labels[1].replace("\n", "") == LONG_RUN
    font = int(legend.label_text_font_size.removesuffix("px"))
    room = figures.MIN_WIDTH - figures.Y_AXIS_ROOM - 2 * (legend.padding + legend.margin)
    widest = max(figures._text_width(line, font) for line in labels[1].split("\n"))
    assert legend.glyph_width + legend.label_standoff + legend.spacing + widest <= room


# two runs' names folded alike: they differ only in the spaces where their lines break
SPACED_ALIKE = ["x" * 100 + " " + "y" * 100, "x" * 100 + "  " + "y" * 100, " a  run "]


@pytest.mark.parametrize("figure", ["differences", "curves"])
def test_runs_folded_alike_keep_an_entry_each_in_the_legend(figure):
    # Bokeh's legend_label makes one entry of all glyphs labelled alike: the two long
    # runs shared one entry, the second's glyphs under the first's name
    from trecbench.html_report import figures

    if figure == "differences":
        plot = figures.differences_figure(
            "P@1", "b", {n: [("t1", 0.5, 0.25)] for n in SPACED_ALIKE}
        )
    else:
        plot = figures.precision_recall_figure({name: [0.5] * 11 for name in SPACED_ALIKE})
    (legend,) = plot.legend
    runs = [item.renderers[0].data_source.data["run"][0] for item in legend.items]
    assert runs == SPACED_ALIKE
    labels = [item.label.value for item in legend.items]
    assert labels[0] == labels[1] and "\n" in labels[0]
    assert labels[2] == " a  run "  # a name that fits: as it is, every space kept


# the cells of the drill-down panel and their boxes, and the panel's box
CELLS = """
var panel = arguments[0].getBoundingClientRect();
return [[panel.left, panel.right], Array.from(arguments[0].querySelectorAll("td, th, h4"))
  .map(function (cell) { var box = cell.getBoundingClientRect();
    return [cell.className, cell.textContent, box.left, box.right, box.height]; })];"""


# how many lines a cell's content takes
LINES = """
var range = document.createRange(); range.selectNodeContents(arguments[0]);
var height = parseFloat(getComputedStyle(arguments[0]).lineHeight);
return Math.round(range.getBoundingClientRect().height / height);"""


def test_long_docnos_wrap_and_every_column_stays_in_the_drill_down(browser, tmp_path):
    # a 181-character docno (a URL, a code chunk's path) pushed the score, grade and tie
    # columns out of the panel
    from selenium.webdriver.common.by import By

    # no place a browser would break a line at (a hyphen, a space)
    long = ("github.com_org_repo_blob_main_" + "src_package_module_" * 8)[:180]
    assert len(long + "1") == 181
    (tmp_path / "q").write_text(f"q1 0 {long}1 1\n")
    names = ["a", "b", "c"]
    for name in names:
        lines = [f"q1 Q0 {long}{d} {d} {s} {name}\n"
                 for d, s in ((1, "0.30000000000000004"), (2, "0.3"), (3, "0.3"))]  # fmt: skip
        (tmp_path / f"{name}.run").write_text("".join(lines))
    runs = [str(tmp_path / f"{name}.run") for name in names]
    page = tmp_path / "docnos.html"
    assert (
        run(["score", "-m", "P.1", str(tmp_path / "q"), *runs, "--html", str(page), "--quiet"]) == 0
    )
    panel = _open_topic(browser, page, "q1")
    (left, right), cells = browser.execute_script(CELLS, panel)
    assert [cell for cell in cells if cell[2] < left or cell[3] > right] == []
    docnos = [cell for cell in cells if "docno" in cell[0]]
    assert len(docnos) == 9 and all(len(cell[1]) == 181 for cell in docnos)
    # the score and its tie mark on one line; the grade too
    rows = panel.find_elements(By.CSS_SELECTOR, ".runs table tr:not(:first-child)")
    assert len(rows) == 9
    for row in rows:
        cells = row.find_elements(By.CSS_SELECTOR, "td.score, td.grade")
        assert [browser.execute_script(LINES, cell) for cell in cells] == [1, 1], row.text
    assert sum(len(row.find_elements(By.CSS_SELECTOR, "span.tie")) for row in rows) == 3


# each element's own text shown (a text node of its own, or a word its style draws, as the
# tie mark's) whose contrast to the background it is drawn on (the nearest that is not
# transparent) is under WCAG AA's 4.5:1: [class, text, ratio]
LOW_CONTRAST = """
function rgb(colour) { return colour.match(/[0-9.]+/g).map(Number); }
function luminance(colour) {
  var c = rgb(colour).slice(0, 3).map(function (v) { v /= 255;
    return v <= 0.04045 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); });
  return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
}
function background(element) {
  for (; element; element = element.parentElement) {
    var colour = getComputedStyle(element).backgroundColor;
    if (rgb(colour)[3] !== 0) { return colour; }
  }
  return "rgb(255, 255, 255)";
}
return Array.from(document.querySelectorAll("body *")).filter(function (element) {
  var drawn = getComputedStyle(element, "::after").content;
  return element.getClientRects().length && (/^"./.test(drawn) ||
    Array.from(element.childNodes).some(function (n) {
      return n.nodeType === Node.TEXT_NODE && n.nodeValue.trim(); }));
}).map(function (element) {
  var a = luminance(getComputedStyle(element).color), b = luminance(background(element));
  var drawn = getComputedStyle(element, "::after").content;
  return [element.className, (element.textContent || drawn).slice(0, 30),
          (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05)];
}).filter(function (shown) { return shown[2] < 4.5; });"""


def test_every_text_of_the_page_and_drill_down_has_a_contrast_of_4_5(browser, tmp_path):
    # "unjudged" was #999 on the panel's #fcfcfc (2.78:1), a rank beyond -M #767676
    # (4.43:1): WCAG AA asks 4.5:1
    (tmp_path / "q").write_text("q1 0 a 0\nq1 0 b 1\n")
    # b tied with a as float32 and relevant; c unjudged; d unjudged and beyond -M 3
    scores = (("a", "0.30000001"), ("b", "0.3"), ("c", "0.2"), ("d", "0.1"))
    (tmp_path / "r.run").write_text("".join(f"q1 Q0 {d} 1 {s} r\n" for d, s in scores))
    page = tmp_path / "grey.html"
    args = ["score", "-m", "P.1", "-M", "3", str(tmp_path / "q"), str(tmp_path / "r.run")]
    assert run([*args, "--html", str(page), "--quiet"]) == 0
    panel = _open_topic(browser, page, "q1")
    shown = browser.execute_script("return arguments[0].innerText", panel)
    assert shown.count("unjudged") == 2 and "tie" in shown
    assert browser.execute_script(LOW_CONTRAST) == []


PROTOTYPE_IDS = ["__proto__", "constructor", "hasOwnProperty", "toString", "valueOf"]


def test_topics_and_runs_named_like_prototype_members_open_as_any_other(browser, tmp_path):
    # data.documents[qid] || {} found Object.prototype's members: a topic "constructor"
    # (no document kept) and a run "name" threw "list.some is not a function", the panel
    # left empty
    from selenium.webdriver.common.by import By

    (tmp_path / "q").write_text("".join(f"{q} 0 d1 1\n" for q in ["q", *PROTOTYPE_IDS]))
    (tmp_path / "name.run").write_text("q Q0 d1 1 1 a\n__proto__ Q0 d1 1 1 a\n")
    (tmp_path / "__proto__.run").write_text("q Q0 d2 1 1 b\ntoString Q0 d1 1 1 b\n")
    runs = [str(tmp_path / "name.run"), str(tmp_path / "__proto__.run")]
    page = tmp_path / "ids.html"
    args = ["score", "-c", "-m", "P.1", str(tmp_path / "q"), *runs, "--html", str(page)]
    assert run([*args, "--quiet"]) == 0
    data = _data(page.read_text())
    assert data["runs"] == ["name", "__proto__"]
    browser.get_log("browser")  # what earlier tests left
    for qid in ["q", *PROTOTYPE_IDS]:
        panel = _open_topic(browser, page, qid)
        boxes = panel.find_elements(By.CSS_SELECTOR, ".runs > div")
        assert [box.find_element(By.TAG_NAME, "h4").text for box in boxes] == data["runs"]
        for box, name in zip(boxes, data["runs"], strict=True):
            listed = [row.find_elements(By.TAG_NAME, "td")[1].text
                      for row in box.find_elements(By.CSS_SELECTOR, "tr")[1:]]  # fmt: skip
            kept = [doc[0] for doc in data["documents"].get(qid, {}).get(name, [])]
            assert listed == kept, (qid, name)
            if not kept:
                assert box.find_element(By.CSS_SELECTOR, "p.note").text == "no document retrieved"
        values = panel.find_elements(By.CSS_SELECTOR, "table")[0].find_elements(By.TAG_NAME, "td")
        shown = [cell.text for cell in values[1:]]  # after the measure's name
        assert shown == [f"{data['values'][qid][name][0]:.4f}" for name in data["runs"]]
    rows = browser.find_elements(By.CSS_SELECTOR, "#topic-table tbody tr")
    assert sorted(row.get_attribute("data-qid") for row in rows) == sorted(["q", *PROTOTYPE_IDS])
    errors = [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]
    assert errors == []


def test_the_means_axis_never_writes_two_runs_names_alike():
    # both were "msmarco-v2-passage.bm25-rm…base.top100": the middle left out held the
    # only difference
    from trecbench.html_report import figures

    pair = [
        "msmarco-v2-passage.bm25-rm3.fb10-terms20.monot5-base.top100",
        "msmarco-v2-passage.bm25-rm3.fb20-terms10.monot5-base.top100",
    ]
    rows = [{"run": name, "mean": 0.5, "ci_low": 0.4, "ci_high": 0.6} for name in pair]
    overrides = figures.means_figure("P@10", rows).yaxis[0].major_label_overrides
    shown = {row: label.text for row, label in overrides.items()}
    assert shown == {
        0: "msmarco-v2-p\u2026m3.fb10-terms20.\u2026ase.top100",
        1: "msmarco-v2-p\u2026m3.fb20-terms10.\u2026ase.top100",
    }
    # three alike, each where it departs from its nearest; others as before
    third = pair[0].replace("fb10", "fb20")
    names = [*pair, third, "bm25-" + "k" * 80 + "-rm3-07", "x"]
    labels = figures._shown_names(names)
    assert len(set(labels)) == len(names) and all(len(label) <= 40 for label in labels)
    assert labels[1:3] == [
        "msmarco-v2-p\u2026terms10.monot5-base.top100",
        "msmarco-v2-p\u2026terms20.monot5-base.top100",
    ]
    assert labels[3:] == [f"bm25-{'k' * 21}\u2026{'k' * 6}-rm3-07", "x"]
    # alike however shortened (one name the other's start): written whole
    names = ["a" * 50, "a" * 51]
    assert figures._shown_name(names[0]) == figures._shown_name(names[1])
    assert figures._shown_names(names) == names


TEX_LIKE = ["$$x^2$$", "\\(a\\)", "\\[b\\]", "$y$"]


def test_names_that_read_as_tex_are_written_as_they_are():
    # Bokeh reads a plain string between $$ (or \( \), \[ \]) as TeX: a run named $$x^2$$
    # was shown as x squared on the means' axis, and a title naming it as raw TeX
    from bokeh.models import PlainText

    from trecbench.html_report import figures

    rows = [{"run": name, "mean": 0.5, "ci_low": 0.4, "ci_high": 0.6} for name in TEX_LIKE]
    means = figures.means_figure("$$m$$", rows)
    labels = means.yaxis[0].major_label_overrides
    assert all(isinstance(label, PlainText) for label in labels.values())
    assert [labels[row].text for row in range(len(TEX_LIKE))] == TEX_LIKE
    assert isinstance(means.xaxis[0].axis_label, PlainText)
    differences = figures.differences_figure(
        "P@1", TEX_LIKE[0], {name: [("t1", 0.5, 0.25)] for name in TEX_LIKE[1:]}
    )
    assert isinstance(differences.title.text, PlainText)
    assert TEX_LIKE[0] in differences.title.text.text


def test_matplotlib_figures_take_no_text_for_tex():
    # matplotlib reads text between two $ as TeX: a run named $y$ shown as an italic y
    import numpy as np

    from trecbench import plots

    shape = (1, len(TEX_LIKE))
    figure = plots.means_figure(TEX_LIKE, ["$$m$$"], np.full(shape, 0.5),
                                np.full(shape, 0.4), np.full(shape, 0.6), title="$t$")  # fmt: skip
    texts = [t for t in figure.findobj(lambda o: hasattr(o, "get_parse_math")) if t.get_text()]
    assert {"$y$", "$t$", "$$m$$"} <= {t.get_text() for t in texts}
    assert not any(t.get_parse_math() for t in texts)
