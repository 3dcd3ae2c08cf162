"""report.html's benchmark part (the KPI table, targets, reranking, completeness and its
recovery actions, routing) as HTML tables, lists and headings: the Markdown file's, cell
for cell, not its Markdown source (pipes, ``|---:|``, ``**0.2788**``); the text read from
the configuration escaped as the page shows it; in Chromium, the best means bold, the
numbers right-aligned on one line, the columns sortable."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest
from conftest import ROOT
from test_html_report import _drawn
from test_html_report_fit import BOXES, CELL_LINES, _fits, _resized

from trecbench.cli import run
from trecbench.escaping import isolated_text

pytest.importorskip("bokeh")

CONFIG = ROOT / "data" / "hpo-rtask" / "benchmark.toml"
START, END = '<h2 id="benchmark">', '<h2 id="summary">'  # the page's benchmark part


class _Part(HTMLParser):
    """The text of a page's headings, list items and tables (a table: rows of
    ``(text, strong text)`` cells, its heading row first) and its body's text outside
    scripts and styles."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.headings, self.items, self.tables, self.text = [], [], [], []
        self._open: list[str] = []  # the elements the text is in
        self._cell: list[str] | None = None  # [text, strong text] of the open cell
        self._line: list[str] | None = None  # the text of the open heading or item

    def handle_starttag(self, tag, attrs):
        self._open.append(tag)
        if tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self.tables[-1].append([])
        elif tag in ("th", "td"):
            self._cell = ["", ""]
        elif tag in ("h2", "h3", "h4", "li"):
            self._line = []

    def handle_endtag(self, tag):
        self._open.pop()
        if tag in ("th", "td"):
            self.tables[-1][-1].append(tuple(self._cell))
            self._cell = None
        elif tag in ("h2", "h3", "h4", "li"):
            (self.headings if tag != "li" else self.items).append("".join(self._line))
            self._line = None

    def handle_data(self, data):
        if not {"script", "style"} & set(self._open):
            self.text.append(data)
        if self._cell is not None:
            self._cell[0] += data
            self._cell[1] += data if "strong" in self._open else ""
        if self._line is not None:
            self._line.append(data)


def _parsed(html: str) -> _Part:
    part = _Part()
    part.feed(html)
    return part


def _markdown_part(markdown: str) -> tuple[list[str], list[str], list[list[list[tuple]]]]:
    """The R-task part of a benchmark's Markdown (up to its statistics) as the page shows
    it: its headings, list items and tables (rows of ``(text, strong text)`` cells, the
    alignment rows left out), Markdown's own syntax taken off (``**``, backticks, the
    backslashes of its escapes)."""

    def text(line: str) -> str:
        return re.sub(r"\\(.)", r"\1", line.replace("**", "").replace("`", ""))

    def strong(line: str) -> str:
        return "".join(re.findall(r"\*\*(.*?)\*\*", line))

    headings, items, tables, previous = [], [], [], ""
    for line in markdown.split("\n## Statistics\n")[0].splitlines():
        if line.startswith("#"):
            headings.append(text(line.lstrip("#").strip()))
        elif line.startswith("- "):
            items.append(text(line[2:]))
        elif line.startswith("|") and not line.startswith("|---"):
            if not previous.startswith("|"):
                tables.append([])
            tables[-1].append([(text(c), strong(c)) for c in line[2:-2].split(" | ")])
        previous = line
    return headings, items, tables


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    """The folder `benchmark` wrote for the bundled R-task demo."""
    out = tmp_path_factory.mktemp("bench") / "bench"
    assert run(["benchmark", str(CONFIG), "-o", str(out), "--quiet"]) == 0
    return out


def test_the_pages_benchmark_tables_are_the_markdown_s_cell_for_cell(written):
    # the page showed the R-task part as a <pre> of Markdown: pipes, |---:|, **0.2788**
    page = (written / "report.html").read_text()
    shown = _parsed(page[page.index(START) : page.index(END)])
    headings, items, tables = _markdown_part((written / "BenchmarkComparison.md").read_text())
    assert shown.headings == headings and shown.items == items
    # KPIs, targets, reranking, completeness, routing: their headings, cells, bold means
    assert len(tables) == 5 and shown.tables == tables
    assert ("0.2788 under-typical", "0.2788") in shown.tables[0][1]  # Vector-Only's nDCG@10
    assert ("0.3384 under-typical ▲", "0.3384") in shown.tables[0][4]  # Hybrid's Recall@50
    assert "<pre>" not in page[page.index(START) : page.index(END)]


def test_no_markdown_syntax_is_left_in_the_pages_text(written):
    page = (written / "report.html").read_text()
    text = "".join(_parsed(page).text)
    for syntax in ("|---", "---:|", "| "):
        assert syntax not in text, syntax
    # compare's legend marks significance by stars, "< 0.01 (**)": none in the benchmark's
    benchmark = "".join(_parsed(page[page.index(START) : page.index(END)]).text)
    assert "**" not in benchmark and "`" not in benchmark
    assert "Legend: bold = best mean;" in benchmark and "<strong>bold</strong> = best" in page


def test_a_hostile_mode_name_is_escaped_in_the_pages_tables(tmp_path):
    from trecbench.benchmarking import run_benchmark

    hostile, arabic = "<b>x</b> & y\u202e", "\u0628\u0661"
    for name, text in (("q.qrels", "t1 0 A 1\n"), ("a.run", "t1 Q0 A 1 2 a\n")):
        (tmp_path / name).write_text(text)
    (tmp_path / "b.run").write_text("t1 Q0 B 1 2 b\n")
    path = tmp_path / "c.toml"
    path.write_text(
        'qrels = "q.qrels"\nmeasures = ["P@1"]\n'
        '[modes.a]\nrun = "a.run"\nlabel = "<b>x</b> & y\\u202e"\n'
        f'[modes.b]\nrun = "b.run"\nlabel = "{arabic}"\n'
    )
    bench = run_benchmark(path)
    page = bench.to_html()
    part = page[page.index(START) : page.index(END)]
    assert "<b>x" not in part and "\u202e" not in page
    assert "&lt;b&gt;x&lt;/b&gt; &amp; y%E2%80%AE (baseline)</th>" in part
    kpis = _parsed(part).tables[0]
    assert [text for text, _ in kpis[0]] == [
        "Metric",
        f"{isolated_text(hostile)} (baseline)",
        isolated_text(arabic),
        "Best Mode",
    ]
    best = isolated_text(hostile)
    assert kpis[1] == [("P@1", ""), ("1.0000", "1.0000"), ("0.0000", ""), (best, "")]
    # the Markdown file escapes it its way
    assert "\\<b\\>x\\</b\\> \\& y%E2%80%AE (baseline)" in bench.markdown(False)


# the cells of each R-task table (those before the summary): [text, its strong's weight,
# alignment, white-space]
CELLS = """
var summary = document.getElementById('summary');
var tables = Array.from(document.querySelectorAll('table')).filter(function (table) {
  return table.compareDocumentPosition(summary) & Node.DOCUMENT_POSITION_FOLLOWING; });
return tables.map(function (table) {
  return Array.from(table.querySelectorAll('td')).map(function (cell) {
    var strong = cell.querySelector('strong'), style = getComputedStyle(cell);
    return [cell.textContent, strong ? getComputedStyle(strong).fontWeight : null,
            style.textAlign, style.whiteSpace]; }); });"""
# the texts of column arguments[1] of the R-task table arguments[0] (0: the KPIs)
COLUMN = """
var table = document.querySelectorAll('#benchmark ~ .scroll table')[arguments[0]];
var column = arguments[1];
return Array.from(table.tBodies[0].rows).map(function (row) {
  return row.cells[column].textContent; });"""


def test_the_pages_benchmark_tables_in_chromium(browser, written):
    page = _drawn(browser, written / "report.html")
    errors = [entry for entry in page.get_log("browser") if entry["level"] == "SEVERE"]
    assert errors == []
    kpis, _, _, completeness, _ = page.execute_script(CELLS)
    # a mode's cell in the KPI table: right-aligned, on one line, its best mean bold
    means = [cell for cell in kpis if cell[0][0].isdigit()]
    assert means and all(align == "right" and space == "nowrap" for _, _, align, space in means)
    bold = [cell for cell in means if cell[1] is not None]
    assert len(bold) == 6 and all(int(weight) >= 600 for _, weight, _, _ in bold)
    numbers = [cell for cell in completeness if cell[0][0].isdigit()]
    assert numbers and all(align == "right" and space == "nowrap" for *_, align, space in numbers)
    status = [align for text, _, align, _ in completeness if text.startswith("incomplete:")]
    assert status == ["left"]
    # a mode's name whole: "Lexical+Rerank" broke mid-word beside the wide Status column
    names = page.execute_script(CELL_LINES, "#benchmark ~ .scroll td.name")
    assert len(names) > 10 and [cell for cell in names if cell[1] != 1] == []
    # by the page's CSS, not by a class its script adds: whole with scripts off too
    # (reviewer 231: "Lexical+Rera" / "nk" without JavaScript)
    wraps = page.execute_script(
        "return Array.from(document.querySelectorAll('#benchmark ~ .scroll td.name'))"
        ".map(c => [c.className, getComputedStyle(c).overflowWrap])"
    )
    assert [w for w in wraps if set(w[0].split()) - {"text", "name"} or w[1] != "break-word"] == []
    # sorted by a mode's means, then by the modes' names (code point order)
    headings = page.find_elements("css selector", "#benchmark ~ .scroll table thead th")
    headings[2].click()  # Vector-Only's means, ascending
    values = page.execute_script(COLUMN, 0, 2)
    assert [float(v.split()[0]) for v in values] == sorted(float(v.split()[0]) for v in values)
    modes = page.find_elements("css selector", "#benchmark ~ .scroll table")[3]
    modes.find_element("css selector", "th").click()
    order = ["Hybrid", "Lexical+Rerank", "Lexical-Only", "Vector-Only"]
    assert page.execute_script(COLUMN, 3, 0) == order


def test_the_pages_benchmark_part_fits_a_window_of_800_px(browser, written):
    # the KPI table's numbers on one line are wider than the page: it scrolls in its box
    _resized(browser, 800)
    try:
        _fits(browser, written / "report.html", BOXES + ", h4")
    finally:
        _resized(browser, 1280)


def test_a_name_cell_without_a_name_sorts_last_either_way(browser, tmp_path):
    # the KPI table's "n/a" (num_ret: no direction, no best mode) came first once the
    # best modes were sorted descending: its place was after every mode's
    from trecbench.benchmarking import run_benchmark

    (tmp_path / "q.qrels").write_text("".join(f"t{i} 0 A 1\n" for i in range(4)))
    retrieved = {"a": "A", "b": "B A", "c": "B"}
    for mode, documents in retrieved.items():
        lines = (
            f"t{i} Q0 {docno} {rank} {9 - rank} {mode}\n"
            for i in range(4)
            for rank, docno in enumerate(documents.split(), 1)
        )
        (tmp_path / f"{mode}.run").write_text("".join(lines))
    modes = "".join(f'[modes.{mode}]\nrun = "{mode}.run"\n' for mode in retrieved)
    config = tmp_path / "c.toml"
    config.write_text(f'qrels = "q.qrels"\nmeasures = ["P@1", "num_ret", "P@2"]\n{modes}')
    page = tmp_path / "page.html"
    page.write_text(run_benchmark(config).to_html(), encoding="utf-8")
    browser.get(page.as_uri())
    best = browser.find_elements("css selector", "#benchmark ~ .scroll table thead th")[4]
    orders = []
    for _ in range(2):
        best.click()
        orders.append(browser.execute_script(COLUMN, 0, 4))
    assert orders == [["a", "a, b", "n/a"], ["a, b", "a", "n/a"]]  # by P@1, P@2, num_ret


def test_a_name_cell_without_a_name_sorts_as_an_empty_one():
    # in a column of names a cell sorts by its names' place (data-order); without a name
    # by none: an empty data-sort, last either way (sortable.js), not after every name
    from trecbench.html_report.blocks import shown
    from trecbench.renderers.blocks import NAMES, NUMBERS, Column, Table, cell

    columns = (Column("Best", NAMES), Column("Mean", NUMBERS))
    rows = (
        (cell("n/a"), cell("1")),
        (cell("y", ("y",)), cell("2")),
        (cell("x", ("x",)), cell("3")),
    )
    ((table),) = shown([Table(columns, rows)])
    assert [row[0][2] for row in table["rows"]] == [
        {"data-sort": ""},
        {"data-order": "1"},
        {"data-order": "0"},
    ]
    assert [row[1][2] for row in table["rows"]] == [{}, {}, {}]
