"""The pages' text read from inputs (run names, topic and document ids, strata, paths) as
the terminal and the Markdown report show it: escaped reversibly, isolated where right to
left; their columns of names sorted as text, by code point, as Python sorts the first
order."""

from __future__ import annotations

import html
from urllib.parse import unquote

import pytest
from test_html_report import _data, _drawn

from trecbench.cli import run
from trecbench.escaping import (
    FIRST_STRONG_ISOLATE,
    POP_DIRECTIONAL_ISOLATE,
    isolated_text,
)

pytest.importorskip("bokeh")

OVERRIDE = "\u202e"  # RIGHT-TO-LEFT OVERRIDE: reversed the page's text after it
ISOLATES = FIRST_STRONG_ISOLATE + POP_DIRECTIONAL_ISOLATE


def _files(folder, runs: dict[str, str], qids: list[str], docno: str = "d1") -> list[str]:
    """A qrels file ``q`` judging ``docno`` (relevant) and d9 of each of ``qids`` and one
    run file per name of ``runs`` (file name -> run tag), each retrieving ``docno`` on every
    topic but the i-th run's i-th (d9 there): their values differ. The paths, qrels
    first."""
    (folder / "q").write_text("".join(f"{qid} 0 {docno} 1\n{qid} 0 d9 0\n" for qid in qids))
    paths = [str(folder / "q")]
    for index, (name, tag) in enumerate(runs.items()):
        lines = [
            f"{qid} Q0 {'d9' if position == index else docno} 1 2 {tag}\n"
            for position, qid in enumerate(qids)
        ]
        (folder / name).write_text("".join(lines))
        paths.append(str(folder / name))
    return paths


def _column(table, index: int) -> list[str]:
    from selenium.webdriver.common.by import By

    rows = table.find_elements(By.CSS_SELECTOR, "tbody tr")
    return [row.find_elements(By.TAG_NAME, "td")[index].text for row in rows]


def _sorted_by(table, index: int) -> tuple[list[str], list[str]]:
    """Column ``index`` of ``table`` (a sortable table) once its header is clicked, then
    clicked again."""
    from selenium.webdriver.common.by import By

    header = table.find_elements(By.CSS_SELECTOR, "thead th")[index]
    header.click()
    ascending = _column(table, index)
    assert header.get_attribute("aria-sort") == "ascending"
    header.click()
    return ascending, _column(table, index)


def test_isolated_text_escapes_as_markdown_and_isolates_right_to_left_text():
    assert isolated_text("run-1.2/x") == "run-1.2/x"  # an ordinary name as it is
    assert isolated_text(f"base{OVERRIDE}") == "base%E2%80%AE"
    assert isolated_text("x\ny") == "x%0Ay" and isolated_text("x y") == "x y"
    assert isolated_text("é 100%") == "é 100%25"
    # Hebrew letters and Arabic digits: between the page's isolates; the text's own
    # isolates escaped, so that the page's are told apart
    assert isolated_text("שלום") == f"{FIRST_STRONG_ISOLATE}שלום{POP_DIRECTIONAL_ISOLATE}"
    assert isolated_text("\u0661") == f"{FIRST_STRONG_ISOLATE}\u0661{POP_DIRECTIONAL_ISOLATE}"
    own = f"{FIRST_STRONG_ISOLATE}a{POP_DIRECTIONAL_ISOLATE}"
    assert isolated_text(own) == "%E2%81%A8a%E2%81%A9"
    # the blanks a page drops at a text's ends: "r " and "r" read as one name
    assert isolated_text("r ") == "r%20" and isolated_text("  a") == "%20%20a"
    assert isolated_text("a   b") == "a   b"  # as the Markdown writes it: prose holds them
    texts = ("run-1.2/x", f"b{OVERRIDE}", "x\ny", "é 100%", "שלום 1", "\u0661", own, " a  b ")
    for text in texts:
        assert unquote(isolated_text(text).strip(ISOLATES)) == text


@pytest.fixture(scope="module")
def named(tmp_path_factory):
    """score --html of three runs named ``base<U+202E>``, ``x<LF>y`` and ``x y``, over a
    topic and a document whose ids hold a U+202E too."""
    folder = tmp_path_factory.mktemp("named")
    qids = [f"q{OVERRIDE}1", "q2", "q3"]
    qrels, *runs = _files(folder, {"a.run": "a", "b.run": "b", "c.run": "c"}, qids, "d\u202e1")
    names = [f"base{OVERRIDE}={runs[0]}", f"x\ny={runs[1]}", f"x y={runs[2]}"]
    page = folder / "p.html"
    flags = [flag for name in names for flag in ("--names", name)]
    assert run(["score", "-m", "P.1", qrels, *runs, *flags, "--html", str(page), "--quiet"]) == 0
    return page


def test_names_and_ids_are_nowhere_on_the_page_as_given(named):
    # a U+202E in a name reversed the page's text after it, and "x<LF>y" read as "x y": in
    # the tables, the figures' titles, axes, legends and tooltips, the script's data and
    # the provenance alike
    text = named.read_text(encoding="utf-8")
    assert OVERRIDE not in text
    # the provenance writes the report's JSON, a U+202E as JSON's escape; nowhere else
    head, provenance = text.split('<h2 id="provenance">')
    provenance = html.unescape(provenance)
    assert "\\u202e" not in head.lower() and '"name": "base\\u202e"' in provenance
    assert "x\ny" not in text and "x\\ny" not in head and '"name": "x\\ny"' in provenance
    data = _data(text)
    assert data["runs"] == ["base%E2%80%AE", "x%0Ay", "x y"]
    assert data["topics"] == ["q2", "q3", "q%E2%80%AE1"]  # in the order of the ids as read
    assert data["documents"]["q%E2%80%AE1"]["x y"][0][0] == "d%E2%80%AE1"
    assert "<li>Runs: base%E2%80%AE (baseline), x%0Ay, x y</li>" in text
    # the figures: a title naming the baseline, a legend's label, the hover's topics
    assert "P@1: per-topic difference against base%E2%80%AE, sorted" in text
    assert '"value":"x%0Ay"' in text and '"q%E2%80%AE1"' in text


def test_the_page_shows_names_and_ids_as_the_markdown_report_does(browser, named):
    from selenium.webdriver.common.by import By

    page = _drawn(browser, named)
    summary = page.find_element(By.ID, "summary-table")
    assert _column(summary, 1) == ["base%E2%80%AE", "x%0Ay", "x y"]
    heads = [th.text for th in page.find_elements(By.CSS_SELECTOR, "#topic-table thead th")]
    assert heads[1:4] == ["base%E2%80%AE (baseline)", "x%0Ay", "x y"]
    assert heads[4] == "x%0Ay \u2212 base%E2%80%AE"
    buttons = page.find_elements(By.CSS_SELECTOR, "#topic-table button.topic")
    next(button for button in buttons if button.text == "q%E2%80%AE1").click()
    panel = page.find_element(By.ID, "drilldown")
    assert panel.find_element(By.TAG_NAME, "h3").text == "Topic q%E2%80%AE1"
    boxes = panel.find_elements(By.CSS_SELECTOR, ".runs > div")
    assert [box.find_element(By.TAG_NAME, "h4").text for box in boxes] == _data_runs(page)
    assert boxes[2].find_element(By.CSS_SELECTOR, "td.docno").text == "d%E2%80%AE1"
    shown = page.execute_script("return document.body.innerText")
    assert OVERRIDE not in shown and "x\ny" not in shown


def test_names_that_differ_in_blanks_read_apart_on_the_page(browser, tmp_path):
    # the page wrote "r " as it is, and the browser showed it "r" beside the run "r"
    files = {"a.run": "a", "b.run": "b", "c.run": "c"}
    qrels, *runs = _files(tmp_path, files, ["q1", "q2", "q3"])
    page = tmp_path / "p.html"
    flags = ["--names", f"r={runs[0]}", "--names", f"r ={runs[1]}", "--names", f" b={runs[2]}"]
    assert run(["score", "-m", "P.1", qrels, *runs, *flags, "--html", str(page), "--quiet"]) == 0
    from selenium.webdriver.common.by import By

    drawn = _drawn(browser, page)
    assert _column(drawn.find_element(By.ID, "summary-table"), 1) == ["r", "r%20", "%20b"]
    heads = [th.text for th in drawn.find_elements(By.CSS_SELECTOR, "#topic-table thead th")]
    assert heads[1:] == ["r (baseline)", "r%20", "%20b", "r%20 \u2212 r", "%20b \u2212 r"]


def _data_runs(page) -> list[str]:
    """The run names of the page's data, as its script reads them."""
    script = "return JSON.parse(document.getElementById('report-data').textContent).runs"
    return page.execute_script(script)


def test_the_benchmark_page_shows_its_name_and_modes_as_the_markdown_does(tmp_path):
    # its title (the configuration's name) was put on the page as given
    from test_benchmarking import _two_modes

    from trecbench.benchmarking import run_benchmark

    head = 'name = "trec\\u202edl"\nmeasures = ["P@1"]\n'
    labels = '[modes.a]\nlabel = "\u05e9\u05dc\u05d5\u05dd"\n'
    path = _two_modes(tmp_path, "t1 0 A 1\n", "t1 Q0 A 1 2 a\n", "t1 Q0 A 1 2 b\n", head)
    path.write_text(path.read_text().replace("[modes.a]\n", labels))
    text = run_benchmark(path).to_html()
    assert OVERRIDE not in text and "\\u202e" not in text.lower()
    assert "<title>trecbench benchmark: trec%E2%80%AEdl</title>" in text
    label = f"{FIRST_STRONG_ISOLATE}\u05e9\u05dc\u05d5\u05dd{POP_DIRECTIONAL_ISOLATE}"
    assert f">{label} (baseline)</th>" in text  # the benchmark's part, its KPI table


# where each of two characters of the difference's header in the topic table is drawn
HEADER_PLACES = """
var node = document.querySelectorAll('#topic-table thead th')[3].firstChild;
function left(character) {
  var range = document.createRange(), at = node.nodeValue.indexOf(character);
  range.setStart(node, at); range.setEnd(node, at + 1);
  return range.getBoundingClientRect().left;
}
return [left(arguments[0]), left(arguments[1])];"""


def test_right_to_left_names_cannot_reorder_the_text_around_them(browser, tmp_path):
    # runs named with the Arabic digits one and two: the header "٢ − ١" (run two minus the
    # baseline, one) was drawn as "١ − ٢", the subtraction the other way round
    one, two = "\u0661", "\u0662"
    qrels, first, second = _files(tmp_path, {"a.run": "a", "b.run": "b"}, ["t1", "t2"])
    page = tmp_path / "p.html"
    names = ["--names", f"{one}={first}", "--names", f"{two}={second}"]
    assert run(["score", "-m", "P.1", qrels, first, second, *names, "--html", str(page)]) == 0
    text = page.read_text(encoding="utf-8")
    isolated = f"{FIRST_STRONG_ISOLATE}{one}{POP_DIRECTIONAL_ISOLATE}"
    assert f"<li>Runs: {isolated} (baseline), " in text
    browser.get(page.as_uri())
    two_at, one_at = browser.execute_script(HEADER_PLACES, two, one)
    assert two_at < one_at  # read left to right as written


COPIED = """var range = document.createRange(), data = new DataTransfer();
range.selectNodeContents(arguments[0]);
window.getSelection().removeAllRanges(); window.getSelection().addRange(range);
var init = {clipboardData: data, bubbles: true, cancelable: true};
arguments[0].dispatchEvent(new ClipboardEvent("copy", init));
return [String(window.getSelection()), data.getData("text/plain"), data.getData("text/html")];"""


def test_a_right_to_left_name_is_copied_as_read(browser, tmp_path):
    # the page's isolates around an Arabic topic id were copied with it: pasted into a
    # shell or a search of the qrels, "\u2068ب1\u2069" matched no topic ب1
    from selenium.webdriver.common.by import By

    ids = ["\u0628" + "1", "q2"]
    qrels, first = _files(tmp_path, {"a.run": "a"}, ids)
    page = tmp_path / "p.html"
    assert run(["score", "-m", "P.1", qrels, first, "--html", str(page), "--quiet"]) == 0
    browser.get(page.as_uri())
    cells = browser.find_elements(By.CSS_SELECTOR, "#topic-table tbody tr td:first-child")
    copied = [browser.execute_script(COPIED, cell) for cell in cells]
    arabic = f"{FIRST_STRONG_ISOLATE}{ids[0]}{POP_DIRECTIONAL_ISOLATE}"
    # the topics by their ids' code points; an isolated one shown so, copied as read, and
    # the other left to the browser's own copy (nothing to mend)
    assert [copy[:2] for copy in copied] == [["q2", ""], [arabic, ids[0]]], copied
    assert copied[0][2] == "" and ids[0] in copied[1][2] and arabic not in copied[1][2]
    # the whole table: its HTML a table still (a spreadsheet's paste), without the marks
    table = browser.find_element(By.ID, "topic-table")
    shown, plain, html = browser.execute_script(COPIED, table)
    assert FIRST_STRONG_ISOLATE in shown and ids[0] in plain and FIRST_STRONG_ISOLATE not in plain
    assert html.startswith("<table>") and html.count("<tr") >= 3, html
    assert ids[0] in html and FIRST_STRONG_ISOLATE not in html


def _texts(table, index: int) -> list[str]:
    """Column ``index`` of ``table`` as its cells' text, the isolates U+2068, U+2069 too."""
    script = (
        "return Array.from(arguments[0].tBodies[0].rows, r => r.cells[arguments[1]].textContent)"
    )
    return table.parent.execute_script(script, table, index)


def _sorted_texts(table, index: int) -> tuple[list[str], list[str]]:
    """:func:`_sorted_by`, each cell's text as :func:`_texts` gives it."""
    from selenium.webdriver.common.by import By

    header = table.find_elements(By.CSS_SELECTOR, "thead th")[index]
    header.click()
    ascending = _texts(table, index)
    header.click()
    return ascending, _texts(table, index)


def test_text_columns_sort_by_code_point_as_python_does(browser, tmp_path):
    # JavaScript's "<" compares UTF-16 units: q😀 (U+1F600, 0xD83D 0xDE00) came before
    # qＡ (U+FF21) once the topics or the runs were sorted by a click; and the page sorted
    # the ids as it shows them: an Arabic one after a Thai one (U+2068 before it), one
    # starting with U+202E (%E2%80%AEz) before b; first and on a click
    from selenium.webdriver.common.by import By

    ids = ["qz", "q\U0001f600", "q\uff21", "\u0628" + "1", "\u0e01" + "1", f"{OVERRIDE}z", "b"]
    qrels, *runs = _files(tmp_path, {f"{index}.run": "r" for index in range(len(ids))}, ids)
    page = tmp_path / "p.html"
    names = [
        flag for name, path in zip(ids, runs, strict=True) for flag in ("--names", f"{name}={path}")
    ]
    assert run(["score", "-m", "P.1", qrels, *runs, *names, "--html", str(page), "--quiet"]) == 0
    shown = [isolated_text(name) for name in sorted(ids)]
    assert _data(page.read_text(encoding="utf-8"))["topics"] == shown  # the first order
    browser.get(page.as_uri())
    topics = browser.find_element(By.ID, "topic-table")
    assert _texts(topics, 0) == shown
    tables = [(topics, 0), (browser.find_element(By.ID, "summary-table"), 1)]
    pairs = browser.find_element(By.XPATH, "//h3[.='All pairs']/following::table[1]")
    for table, index in [*tables, (pairs, 1)]:
        assert _sorted_texts(table, index) == (shown, shown[::-1])


@pytest.fixture(scope="module")
def numbered(tmp_path_factory):
    """compare -o's page of runs named 2-stage, 10-stage and 1e3-run (names that start as
    numbers do) grouped by qid prefix, with its all pairs and per-stratum means tables:
    2-stage the best run by P@1, 10-stage by P@3."""
    folder = tmp_path_factory.mktemp("numbered")
    qids = [f"{group}/{index}" for group in "gh" for index in range(4)]
    (folder / "q").write_text("".join(f"{q} 0 d1 1\n{q} 0 d2 1\n{q} 0 d9 0\n" for q in qids))
    retrieved = {"2-stage": ["d1"], "10-stage": ["d9", "d1", "d2"], "1e3-run": ["d9"]}
    for name, documents in retrieved.items():
        lines = [
            f"{q} Q0 {docno} {rank} {10 - rank} {name}\n"
            for q in qids
            for rank, docno in enumerate(documents, 1)
        ]
        (folder / f"{name}.run").write_text("".join(lines))
    runs = [str(folder / f"{name}.run") for name in retrieved]
    out = folder / "out"
    args = ["compare", str(folder / "q"), *runs, "-m", "P@1", "-m", "P@3"]
    assert run([*args, "--group-by", "qid-prefix", "-o", str(out), "--quiet"]) == 0
    return out / "report.html"


def test_names_that_start_as_numbers_sort_as_text_in_every_table(browser, numbered):
    # the all-pairs table's Run header was not marked as text: its names sorted as the
    # numbers 2, 10 and 1000; so did the means tables' best runs (2-stage before 10-stage)
    from selenium.webdriver.common.by import By

    runs = ["2-stage", "10-stage", "1e3-run"]
    browser.get(numbered.as_uri())
    tables = browser.find_elements(By.CSS_SELECTOR, "table.sortable")
    for table in (tables[1], tables[-2]):  # all topics' all pairs, the last stratum's
        ascending, descending = _sorted_by(table, 1)
        assert ascending == sorted(runs) and descending == sorted(runs, reverse=True)
    best = _sorted_by(tables[2], len(runs) + 1)  # the macro section's means
    assert best == (["10-stage", "2-stage"], ["2-stage", "10-stage"])
    # every column of names marked as text: the summary's; per section its means (strata
    # and macro, not all topics) and its all pairs (the letters too); the topics'
    texts = [
        [th.text for th in table.find_elements(By.CSS_SELECTOR, "thead th.text")]
        for table in tables
    ]
    sections = [["", "Run"], *[["Measure", "Best run"], ["", "Run"]] * 3]
    assert texts == [["Measure", "Run"], *sections, ["Topic"]]


def test_a_measure_without_a_best_run_sorts_last_either_way(browser, numbered):
    # its "n/a" (num_ret: no direction, no best run) came first once the best runs were
    # sorted descending: its place was after every run's
    from selenium.webdriver.common.by import By

    folder = numbered.parent.parent
    runs = [str(folder / f"{name}.run") for name in ("2-stage", "10-stage", "1e3-run")]
    out = folder / "no-best"
    measures = ["-m", "P@1", "-m", "num_ret", "-m", "P@3"]
    args = ["compare", str(folder / "q"), *runs, *measures, "--group-by", "qid-prefix"]
    assert run([*args, "-o", str(out), "--quiet"]) == 0
    browser.get((out / "report.html").as_uri())
    means = browser.find_elements(By.CSS_SELECTOR, "table.sortable")[2]  # the macro section's
    ascending, descending = _sorted_by(means, len(runs) + 1)
    assert (ascending, descending) == (
        ["10-stage", "2-stage", "n/a"],
        ["2-stage", "10-stage", "n/a"],
    )


@pytest.fixture
def board(tmp_path, capsys):
    """leaderboard --format html's page (its path) of the systems 2-stage, 10-stage,
    1e3<U+202E> and 1e3z over the collection c<LF>d."""
    systems = ["2-stage", "10-stage", f"1e3{OVERRIDE}", "1e3z"]
    _files(tmp_path, {f"{system}.run": "r" for system in systems}, ["t1", "t2", "t3"])
    listed = ", ".join(f'"{system}"' for system in systems).replace(OVERRIDE, "\\u202e")
    (tmp_path / "suite.toml").write_text(
        f'systems = [{listed}]\nmeasures = ["P@1"]\n'
        '[collections."c\\nd"]\nqrels = "q"\nruns = "{system}.run"\n'
    )
    capsys.readouterr()
    assert run(["leaderboard", str(tmp_path / "suite.toml"), "--format", "html"]) == 0
    page = tmp_path / "board.html"
    page.write_text(capsys.readouterr().out, encoding="utf-8")
    return page


def test_the_leaderboard_page_shows_names_as_its_markdown_does(board):
    # its systems' and collections' names were put on the page as given
    text = board.read_text(encoding="utf-8")
    assert OVERRIDE not in text and "c\nd" not in text
    assert ">1e3%E2%80%AE</td>" in text and "c%0Ad" in text


def test_the_leaderboard_page_sorts_its_systems_as_text(browser, board):
    # its system column sorted 10-stage after 2-stage, as the numbers 10 and 2; and
    # 1e3<U+202E> as shown, 1e3%E2%80%AE, before 1e3z
    from selenium.webdriver.common.by import By

    browser.get(board.as_uri())
    shown = ["10-stage", "1e3z", "1e3%E2%80%AE", "2-stage"]  # as read: U+202E after z
    ascending, descending = _sorted_by(browser.find_element(By.CSS_SELECTOR, "table"), 0)
    assert ascending == shown and descending == shown[::-1]


def _block(text: str, title: str) -> str:
    """The text of the page's <pre> block under the heading ``title``."""
    return text.split(f"<h2>{title}</h2>\n<pre>", 1)[1].split("</pre>", 1)[0]


def test_power_and_unjudged_sensitivity_isolate_right_to_left_names(tmp_path):
    # their run names were escaped but not isolated, as the page's other text is: a
    # Hebrew name took the blanks and numbers after it into its right-to-left run
    hebrew = "\u05e9\u05dc\u05d5\u05dd"
    isolated = f"{FIRST_STRONG_ISOLATE}{hebrew}{POP_DIRECTIONAL_ISOLATE}"
    qrels, first, second = _files(tmp_path, {"a.run": "a", "b.run": "b"}, ["t1", "t2", "t3"])
    out = tmp_path / "out"
    names = ["--names", f"{hebrew}={second}"]
    args = [qrels, first, second, "-m", "P@1", *names, "--power", "0.8", "--unjudged-bounds"]
    assert run(["compare", *args, "-o", str(out), "--quiet"]) == 0
    text = (out / "report.html").read_text(encoding="utf-8")
    for title in ("Power (all topics)", "Unjudged sensitivity"):
        block = _block(text, title)
        assert isolated in block and hebrew not in block.replace(isolated, ""), title
        # the isolates are drawn as nothing: the columns stay aligned without them
        lines = block.replace(FIRST_STRONG_ISOLATE, "").replace(POP_DIRECTIONAL_ISOLATE, "")
        head, *rows = [
            line for line in lines.splitlines() if line.startswith(("run ", f"{hebrew}  "))
        ]
        column = head.index("measure")
        assert rows and all(row[column:].startswith("P@1") for row in rows), title


def test_the_provenance_is_the_reports_json_without_the_pages_marks(browser, tmp_path):
    # the provenance put the page's own isolates inside a name ("\u2068ر&\\"x\u2069" where
    # the report has "ر&\\"x") and a U+202E as %E2%80%AE: other values than the report's
    import json

    from selenium.webdriver.common.by import By

    names = ['ر&"x', f"b{OVERRIDE}c"]
    qrels, *runs = _files(tmp_path, {"a.run": "a", "b.run": "b", "c.run": "c"}, ["t1", "t2"])
    page, report = tmp_path / "p.html", tmp_path / "r.json"
    flags = ["--names", f"{names[0]}={runs[1]}", "--names", f"{names[1]}={runs[2]}"]
    args = ["score", "-m", "map", qrels, *runs, *flags, "--quiet"]
    assert run([*args, "--html", str(page), "--report", str(report)]) == 0
    browser.get(page.as_uri())
    pre = browser.find_element(By.CSS_SELECTOR, "#provenance + pre")
    text = browser.execute_script("return arguments[0].textContent", pre)
    shown, written = json.loads(text), json.loads(report.read_text(encoding="utf-8"))
    assert shown["inputs"] == written["inputs"]
    assert [entry.get("name") for entry in shown["inputs"]] == [None, "a", *names]
    assert '"name": "ر&\\"x"' in text and '"name": "b\\u202ec"' in text  # JSON's escapes
    assert not set(text) & {FIRST_STRONG_ISOLATE, POP_DIRECTIONAL_ISOLATE, OVERRIDE}
    # a right-to-left string isolated by the markup (<bdi>), its text the string's
    isolated = "return Array.from(arguments[0].querySelectorAll('bdi'), b => b.textContent)"
    assert 'ر&\\"x' in browser.execute_script(isolated, pre)


def test_the_topic_search_finds_an_id_as_read_and_as_shown(browser, tmp_path):
    # the search matched the id as shown only: "50%off" (shown 50%25off) and "rtl<U+202E>abc"
    # (rtl%E2%80%AEabc) typed as they are in the input found nothing
    from selenium.webdriver.common.by import By

    qids = ["50%off", f"rtl{OVERRIDE}abc", "q%41", "\u0628\u0661", "plain"]
    qrels, ranked = _files(tmp_path, {"a.run": "a"}, qids)
    page = tmp_path / "p.html"
    assert run(["score", "-m", "P.1", qrels, ranked, "--html", str(page), "--quiet"]) == 0
    browser.get(page.as_uri())
    search = browser.find_element(By.ID, "topic-search")
    typed = "arguments[0].value = arguments[1]; arguments[0].dispatchEvent(new Event('input'))"
    shown = (
        "return Array.from(document.querySelectorAll('#topic-table tbody tr'))"
        ".filter(r => !r.hidden).map(r => r.cells[0].textContent)"
    )
    arabic = f"{FIRST_STRONG_ISOLATE}\u0628\u0661{POP_DIRECTIONAL_ISOLATE}"
    for wanted, found in [
        ("50%off", ["50%25off"]),  # as read
        ("50%25OFF", ["50%25off"]),  # as shown, in any case
        (f"rtl{OVERRIDE}a", ["rtl%E2%80%AEabc"]),
        ("%e2%80%ae", ["rtl%E2%80%AEabc"]),
        ("q%41", ["q%2541"]),
        ("qa", []),  # unquoted once: q%41 is no qA
        ("\u0628\u0661", [arabic]),
        ("", ["50%25off", "plain", "q%2541", "rtl%E2%80%AEabc", arabic]),
    ]:
        browser.execute_script(typed, search, wanted)
        assert browser.execute_script(shown) == found, wanted
