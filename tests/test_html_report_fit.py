"""report.html fits a window of 1280 px and one of 800 px, in headless Chromium: no
horizontal scroll of the page. Long run names and topic ids wrap inside the tables (each
whole, its numbers on one line), a table still wider (many measures) scrolls in
its own box, and the figures are as wide as the page's content, their titles and legends
within their canvases."""

from __future__ import annotations

import time

import pytest
from conftest import ROOT
from test_html_report import (
    FOLDED_TOOLBARS,
    LEGEND_BOXES,
    _drawn,
    _legends_apart,
    _page_of_runs,
)
from test_html_report_layout import LONG_RUN, TITLES

from trecbench.cli import run

pytest.importorskip("bokeh")

QRELS = str(ROOT / "qrels" / "hpo-demo.qrels")
DEMO_RUNS = [str(ROOT / "runs" / f"{name}.run") for name in ("tfidf-word", "tfidf-char")]
# a run's name of 68 characters with no place a browser breaks a line at
NAME = "run.msmarco_v2_passage.bm25_default_k1_0.9_b_0.4.topics.dev_subset_{}"
WIDTHS = [1280, 800]

# the page's widths, and the boxes (of ``arguments[0]``) whose right edge is past the
# page's content
WIDE = """
var content = document.body.getBoundingClientRect().right;
var boxes = Array.from(document.querySelectorAll(arguments[0]));
return [document.documentElement.scrollWidth, document.documentElement.clientWidth,
        boxes.filter(function (box) { return box.getBoundingClientRect().right > content + 1; })
             .map(function (box) { return box.tagName + "#" + box.id; })];"""
# a table's box, the figures', text: a table in its box may be wider, scrolling in it
BOXES = ".scroll, .figures, pre, ul, p, h1, h2, h3"
# the summary's cells of numbers and its headings of the page's own (not a run's name)
SUMMARY_NUMBERS = "#summary-table td:not(.text), #summary-table th:not(.name)"
# how many lines each cell of a table's body takes: [text, lines]
CELL_LINES = """
return Array.from(document.querySelectorAll(arguments[0])).map(function (cell) {
  var range = document.createRange(); range.selectNodeContents(cell);
  var height = parseFloat(getComputedStyle(cell).lineHeight);
  return [cell.textContent, Math.round(range.getBoundingClientRect().height / height)]; });"""


@pytest.fixture(params=WIDTHS)
def window(browser, request):
    """The browser, its window ``request.param`` px wide (set back to 1280 after)."""
    _resized(browser, request.param)
    yield browser
    _resized(browser, 1280)


def _resized(browser, width: int) -> None:
    """``browser``'s window ``width`` px wide, once the page has taken the new width."""
    browser.set_window_size(width, 1600)
    for _ in range(50):
        if browser.execute_script("return window.innerWidth") == width:
            return
        time.sleep(0.1)
    raise AssertionError(f"the window is not {width} px wide")


def _score_page(folder, names: list[str], qids: list[str]):
    """score --html's page (P@1) of runs ``names`` over topics ``qids``."""
    folder.mkdir(exist_ok=True)
    (folder / "q").write_text("".join(f"{qid} 0 d1 1\n" for qid in qids))
    runs = []
    for index, name in enumerate(names):
        path = folder / f"{name}.run"
        lines = (f"{qid} Q0 d{(i + index) % 2} 1 2 x\n" for i, qid in enumerate(qids))
        path.write_text("".join(lines))
        runs.append(str(path))
    page = folder / "page.html"
    assert (
        run(["score", "-m", "P.1", str(folder / "q"), *runs, "--html", str(page), "--quiet"]) == 0
    )
    return page


def _fits(browser, page, boxes: str = BOXES) -> None:
    """No horizontal scroll of the page, none of ``boxes`` past its content."""
    scrolled, width, wide = _drawn(browser, page).execute_script(WIDE, boxes)
    assert scrolled <= width and wide == [], (scrolled, width, wide)


@pytest.mark.parametrize("runs", [2, 5])
def test_long_run_names_wrap_in_the_tables_within_the_page(window, tmp_path, runs):
    # two such names pushed the summary table's right edge to 1,702 px and the topics'
    # to 1,905 in a window of 1280 px; five to 5,596 px
    names = [NAME.format(chr(ord("a") + index)) for index in range(runs)]
    page = _score_page(tmp_path / "names", names, ["t1", "t2"])
    # the tables whole within the page; but in a window of 800 px the summary's numbers on
    # one line, and the topics' 10 columns of five runs (5 and their 4 differences), are
    # wider: they scroll in their box
    if window.execute_script("return window.innerWidth") == 1280:
        _fits(window, page, BOXES + ", table")
    else:
        _fits(window, page, BOXES + (", #topic-table" if runs == 2 else ""))
    # each name whole in its cells and headings, wrapped; the numbers on one line
    cells = window.execute_script(CELL_LINES, "#summary-table td.name")
    assert sorted(text for text, _ in cells) == names and all(lines > 1 for _, lines in cells)
    headings = window.execute_script(CELL_LINES, "#topic-table th + th")
    assert [text for text, _ in headings[:runs]] == [f"{names[0]} (baseline)", *names[1:]]
    numbers = window.execute_script(CELL_LINES, "#topic-table td + td")
    assert len(numbers) == 2 * (2 * runs - 1) and all(lines == 1 for _, lines in numbers)
    numbers = [cell for cell in window.execute_script(CELL_LINES, SUMMARY_NUMBERS) if cell[0]]
    assert numbers and all(lines == 1 for _, lines in numbers), numbers


@pytest.fixture(scope="module")
def demo_compare(tmp_path_factory):
    """The page of ``compare qrels/hpo-demo.qrels runs/*.run``, the bundled demo's, by
    language (its strata's means tables, all pairs and tie sensitivity per section)."""
    out = tmp_path_factory.mktemp("demo")
    runs = [*DEMO_RUNS, str(ROOT / "runs" / "tfidf-word-parents.run")]
    strata = ["--strata", str(ROOT / "qrels" / "hpo-demo.sidecar.json"), "--group-by", "language"]
    assert run(["compare", QRELS, *runs, *strata, "-o", str(out), "--quiet"]) == 0
    return out / "report.html"


# each cell of a table's body that shows numbers (starts with one: a mean, an interval, a
# mean and its significance letters) but the first column's (topic ids): [the heading the
# table is under, its text, its lines, its alignment]
NUMBER_CELLS = """
return Array.from(document.querySelectorAll('tbody td:not(:first-child)')).filter(function (cell) {
  return /^[-+\u2212]?[0-9]/.test(cell.textContent); }).map(function (cell) {
  var heading = cell.closest('.scroll');
  while (heading && !/^H[23]$/.test(heading.tagName)) { heading = heading.previousElementSibling; }
  var range = document.createRange(); range.selectNodeContents(cell);
  var lines = range.getBoundingClientRect().height / parseFloat(getComputedStyle(cell).lineHeight);
  return [heading ? heading.textContent : '', cell.textContent, Math.round(lines),
          getComputedStyle(cell).textAlign]; });"""


def test_the_demos_tables_keep_their_numbers_and_headings_whole(window, demo_compare):
    # in a window of 800 px p's 5.4e-06 broke at its hyphen, the intervals and differences
    # over 2 and 3 lines, the heading "p adjusted" over 2: they scroll in the table's box
    _fits(window, demo_compare)
    cells = [cell for cell in window.execute_script(CELL_LINES, SUMMARY_NUMBERS) if cell[0]]
    assert len(cells) > 50 and "p adjusted" in {text for text, _ in cells}
    assert [cell for cell in cells if cell[1] != 1] == []
    # so do the other tables' numbers, right-aligned: the strata's means ("0.0283 [0.0000,"
    # over "0.0849]", left-aligned, even at 1280 px), all pairs and tie sensitivity
    cells = window.execute_script(NUMBER_CELLS)
    headings = {heading for heading, *_ in cells}
    assert {"All pairs", "Tie sensitivity", "language = de (28 topics)"} <= headings
    assert any(heading.startswith("Macro over language") for heading in headings)
    assert [cell for cell in cells if cell[2:] != [1, "right"]] == []


def test_a_long_topic_id_wraps_in_the_topics_table(window, tmp_path):
    # a qid of 300 characters made the page 3,946 px wide
    qid = "q" + "x" * 299
    page = _score_page(tmp_path / "qid", ["a", "b"], [qid, "t2"])
    _fits(window, page)
    ((text, lines), _) = window.execute_script(CELL_LINES, "#topic-table td:first-child")
    assert text == qid and lines > 1


# on paper: each table's boxes that clip it (not overflow: visible, its right edge short
# of the table's), rows and figures that may split over two pages, what is shown of the
# screen's controls
PRINTED = """
var clipped = [];
document.querySelectorAll('table').forEach(function (table) {
  var edge = table.getBoundingClientRect().right - 1;
  for (var box = table.parentElement; box; box = box.parentElement) {
    if (getComputedStyle(box).overflowX !== 'visible' && box.getBoundingClientRect().right < edge) {
      clipped.push((table.id || table.className) + ' in ' + box.tagName + '.' + box.className);
    }
  } });
var split = Array.from(document.querySelectorAll('tr, .figure')).filter(function (e) {
  return getComputedStyle(e).breakInside !== 'avoid'; }).map(function (e) { return e.tagName; });
var shown = Array.from(document.querySelectorAll('#topic-search, #summary-table caption'));
shown = shown.filter(function (e) { return e.getClientRects().length > 0; });
var paper = document.documentElement.clientWidth;
var wide = Array.from(document.querySelectorAll('table')).filter(function (table) {
  return table.getBoundingClientRect().right > paper + 1; }).map(function (table) {
  return (table.id || table.className) + ' ' + Math.round(table.getBoundingClientRect().width); });
return [clipped, split, shown.map(function (e) { return e.tagName; }), wide];"""


@pytest.fixture(scope="module")
def demo_benchmark(tmp_path_factory):
    """The page of the bundled R-task benchmark (five modes' tables by language)."""
    out = tmp_path_factory.mktemp("benchmark")
    config = str(ROOT / "data" / "hpo-rtask" / "benchmark.toml")
    assert run(["benchmark", config, "-o", str(out), "--quiet"]) == 0
    return out / "report.html"


@pytest.mark.parametrize("page", ["demo_compare", "demo_benchmark"])
def test_on_paper_tables_are_whole_rows_and_figures_unsplit(browser, request, page):
    # printed, the summary's last columns (p, p adjusted) were cut off by its scrolling box
    # and figures and rows split over two pages; the paper's width: Letter's, at 96 dpi.
    # The benchmark's tables of 1,235 px (reviewer 724) Chromium shrank only in part, and
    # cut at the paper's edge: its numbers now wrap on paper, every table the paper's width
    _resized(browser, 724)
    try:
        _drawn(browser, request.getfixturevalue(page))
        browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "print"})
        clipped, split, shown, wide = browser.execute_script(PRINTED)
    finally:
        browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": ""})
        _resized(browser, 1280)
    assert (clipped, split, shown, wide) == ([], [], [], [])


# while Chromium prints (print media on, its layout the paper's): per figure, the right
# edges of the canvases it shows (Bokeh's, in shadow roots, and any other) and whether each
# is drawn (a pixel not blank); the page's width
WHILE_PRINTING = """
window.printed = [];
matchMedia('print').addEventListener('change', function (change) {
  if (!change.matches) { return; }
  function canvases(node) {
    var found = node.tagName === 'CANVAS' ? [node] : [];
    if (node.shadowRoot) { found = found.concat(canvases(node.shadowRoot)); }
    Array.prototype.forEach.call(node.children || [], function (child) {
      found = found.concat(canvases(child)); });
    return found; }
  function drawn(canvas) {
    var pixels = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
    for (var i = 3; i < pixels.length; i += 4) { if (pixels[i]) { return true; } }
    return false; }
  window.printed.push([document.documentElement.clientWidth,
    Array.from(document.querySelectorAll('.figure')).map(function (figure) {
      return canvases(figure).filter(function (canvas) { return canvas.getClientRects().length; })
        .map(function (canvas) { return [canvas.getBoundingClientRect().right, drawn(canvas)]; });
    })]);
});"""
# the width of each figure's canvas, of the figures' box
DRAWN_WIDTHS = """
return [Array.from(document.querySelectorAll('.figure .bk-Figure')).map(function (figure) {
  return figure.shadowRoot.querySelector('.bk-Canvas').getBoundingClientRect().width; }),
  document.querySelector('.figures').clientWidth,
  document.querySelectorAll('.figure canvas').length];"""


def test_printed_from_a_wide_window_the_figures_fit_the_paper(browser, demo_compare):
    # Bokeh's canvases kept their 1,180 px of a window of 1,280 on a Letter page's 740 px,
    # cut off on the right: printing resizes nothing (print media in a window of 724 px,
    # as the test above, is a window resized)
    import base64

    _drawn(browser, demo_compare).execute_script(WHILE_PRINTING)
    paper = {"paperWidth": 8.5, "paperHeight": 11, "printBackground": True}
    pdf = base64.b64decode(browser.execute_cdp_cmd("Page.printToPDF", paper)["data"])
    assert pdf.startswith(b"%PDF")
    ((width, figures),) = browser.execute_script("return window.printed")
    assert len(figures) > 3 and all(len(shown) == 1 for shown in figures), figures
    assert all(right <= width and drawn for ((right, drawn),) in figures), (width, figures)
    # after printing, the screen's figures again: as wide as the page's content
    canvases, content, count = browser.execute_script(DRAWN_WIDTHS)
    assert canvases == [content] * len(figures) and count == 0
    assert [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"] == []


def test_two_beforeprints_leave_one_paper_copy_of_each_figure(browser, demo_compare):
    # reviewer 231: a second beforeprint without an afterprint between added the copies
    # again (three shown per figure in print media)
    page = _drawn(browser, demo_compare)
    counts = page.execute_script(
        "window.dispatchEvent(new Event('beforeprint'));"
        "window.dispatchEvent(new Event('beforeprint'));"
        "var copies = Array.from(document.querySelectorAll('.figure')).map("
        "  function (f) { return f.querySelectorAll('canvas.on-paper').length; });"
        "window.dispatchEvent(new Event('afterprint'));"
        "return [copies, document.querySelectorAll('canvas.on-paper').length];"
    )
    assert len(counts[0]) > 3 and set(counts[0]) == {1} and counts[1] == 0, counts


@pytest.fixture(scope="module")
def many_measures(tmp_path_factory):
    """The demo's page of 16 measures: its all-pairs table is some 1,500 px wide."""
    out = tmp_path_factory.mktemp("measures") / "many.html"
    cutoffs = ",".join(map(str, range(1, 17)))
    args = ["score", "-m", f"P.{cutoffs}", QRELS, *DEMO_RUNS, "--html", str(out), "--quiet"]
    assert run(args) == 0
    return out


def test_a_table_of_many_measures_scrolls_in_its_own_box(window, many_measures):
    # all_trec's all-pairs table made the page 9,536 px wide
    _fits(window, many_measures)
    boxes = window.execute_script(
        "return Array.from(document.querySelectorAll('.scroll')).map(function (box) {"
        " return [box.scrollWidth, box.clientWidth]; });"
    )
    assert any(scrolled > width for scrolled, width in boxes), boxes  # the all pairs'


def _figures_fit(browser, page) -> None:
    """The page fits; each figure's canvas within the figures' box, its title and its
    legends within the canvas, the legends apart from the plot areas, no toolbar's tools
    folded into a menu."""
    _fits(browser, page)
    width = browser.execute_script("return document.querySelector('.figures').clientWidth")
    figures = browser.execute_script(LEGEND_BOXES)
    assert len(figures) >= 3
    _legends_apart(figures)
    assert all(canvas[2] - canvas[0] <= width for _, _, canvas, _ in figures), (figures, width)
    for text, start, drawn, canvas in browser.execute_script(TITLES):
        assert start + drawn <= canvas, (text, start, drawn, canvas)
    assert browser.execute_script(FOLDED_TOOLBARS) == []


def test_the_demos_figures_fit_the_page(window, tmp_path):
    # fixed widths: the means' figure's 580 px plot area beside its axis of run names, the
    # differences' up to 1,180 px: the demo's page was 827 px wide in a window of 800
    out = tmp_path / "demo.html"
    runs = [*DEMO_RUNS, str(ROOT / "runs" / "tfidf-word-parents.run")]
    assert run(["score", QRELS, *runs, "-m", "P.5,10", "--html", str(out), "--quiet"]) == 0
    _figures_fit(window, out)
    width = window.execute_script("return document.querySelector('.figures').clientWidth")
    canvases = [canvas for _, _, canvas, _ in window.execute_script(LEGEND_BOXES)]
    assert all(canvas[2] - canvas[0] == width for canvas in canvases)  # as wide as it


@pytest.mark.parametrize("runs", [12, 80])
def test_the_figures_of_many_runs_fit_the_page(window, tmp_path, runs):
    # the legends below their plot areas: beside, 12 runs' two columns left a plot area
    # of 226 px on a canvas of 757, its toolbar's tools folded into a menu
    _figures_fit(window, _page_of_runs(tmp_path, runs))


def test_a_run_name_folded_in_the_legends_fits_the_page(window, tmp_path):
    # folded for the widest canvas, its lines ran past a canvas of 757 px
    _figures_fit(window, _score_page(tmp_path / "long", ["x", LONG_RUN], ["t1", "t2"]))


def _leaderboard_page(folder, capsys, suite=None):
    """leaderboard --format html's page (its path): of ``suite``, else of three systems of
    68-character names over four collections of 63-character names (three topics each)."""
    folder.mkdir(exist_ok=True)
    if suite is None:
        systems = [NAME.format(letter) for letter in "abc"]
        suite = folder / "suite.toml"
        text = f"systems = {systems!r}\nmeasures = ['P@1']\n".replace("'", '"')
        for index, collection in enumerate("pqrs"):
            qids = [f"{collection}{topic}" for topic in range(3)]
            (folder / f"{collection}.qrels").write_text("".join(f"{q} 0 d1 1\n" for q in qids))
            text += f'[collections.{collection}_{"x" * 60}]\nqrels = "{collection}.qrels"\n'
            text += f'runs = "{collection}-{{system}}.run"\n'
            for rank, system in enumerate(systems):
                lines = (f"{q} Q0 d{(rank + index + k) % 2} 1 2 r\n" for k, q in enumerate(qids))
                (folder / f"{collection}-{system}.run").write_text("".join(lines))
        suite.write_text(text)
    capsys.readouterr()
    assert run(["leaderboard", str(suite), "--format", "html", "--quiet"]) == 0
    page = folder / "board.html"
    page.write_text(capsys.readouterr().out, encoding="utf-8")
    return page


@pytest.mark.parametrize("window", [1280, 400], indirect=True)
def test_the_leaderboard_page_fits_the_window(window, tmp_path, capsys):
    # its tables neither wrapped nor scrolled in a box of their own: long system and
    # collection names made the page 3,179 px wide in a window of 1280 px, and the demo's
    # was 541 px wide in one of 400
    wide = _leaderboard_page(tmp_path / "long", capsys)
    demo = _leaderboard_page(tmp_path / "demo", capsys, ROOT / "data" / "leaderboard.toml")
    whole = window.execute_script("return window.innerWidth") == 1280
    for page in (wide, demo):
        window.get(page.as_uri())
        scrolled, width, past = window.execute_script(WIDE, BOXES + (", table" if whole else ""))
        assert scrolled <= width and past == [], (page.parent.name, scrolled, width, past)
    # the long names wrap in their cells and headings, the numbers stay on one line
    window.get(wide.as_uri())
    names = window.execute_script(CELL_LINES, "td.name, th.name + th.name")
    assert len(names) == 4 + 3 and all(lines > 1 for _, lines in names), names
    numbers = window.execute_script(CELL_LINES, "td + td")
    assert numbers and all(lines == 1 for _, lines in numbers), numbers
