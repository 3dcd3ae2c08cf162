"""report.html: written by compare -o, self-contained, with the Comparison's numbers; loaded
in Debian's headless Chromium (Selenium) with the network blocked: no console error, no
request, the table sorts, a topic opens on its documents and grades, the figures draw."""

from __future__ import annotations

import json
import re
import time

import pytest
from conftest import ROOT

import trecbench
from trecbench.cli import run

QRELS = str(ROOT / "qrels" / "hpo-demo.qrels")
RUNS = [
    str(ROOT / "runs" / f"{name}.run")
    for name in ("tfidf-word", "tfidf-char", "tfidf-word-parents")
]
MEASURES = ["nDCG@10", "MRR@10"]

pytest.importorskip("bokeh")


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    out = tmp_path_factory.mktemp("compare")
    args = ["compare", QRELS, *RUNS, *sum((["-m", m] for m in MEASURES), []), "-o", str(out)]
    assert run([*args, "--quiet"]) == 0
    return out


DATA_TAG = '<script type="application/json" id="report-data">'


def _data(page: str) -> dict:
    start = page.index(DATA_TAG) + len(DATA_TAG)
    return json.loads(page[start : page.index("</script>", start)])


def test_the_page_holds_every_run_measure_and_topic_with_the_reports_numbers(report):
    page = (report / "report.html").read_text()
    data = _data(page)
    document = json.loads((report / "BenchmarkReport.json").read_text())
    assert data["runs"] == [r["name"] for r in document["runs"]]
    assert data["measures"] == MEASURES
    assert data["topics"] == sorted(document["topics"])
    for run_name, topics in document["per_query"].items():
        for qid, values in topics.items():
            # per run, an array in the order of the data's measure list
            shown = dict(zip(data["measures"], data["values"][qid][run_name], strict=True))
            assert shown == pytest.approx(values, abs=1e-12)
    summary = document["results"][0]["summary"]
    for row in summary:
        assert f">{row['mean']:.4f}<" in page  # the Markdown report's cells
    assert "<script src=" not in page and "<link" not in page  # everything inline


def test_all_pairs_and_tie_sensitivity_carry_the_markdowns_legends_and_bold(report):
    # the page showed the letters (0.2329c) and 'fixed', 'inside' with no word of what they
    # mean, and no best mean in bold, where the Markdown of the same comparison has both
    from markupsafe import escape

    page = (report / "report.html").read_text()
    markdown = (report / "BenchmarkComparison.md").read_text()
    pairs = re.findall(r"### All pairs\n\n(.*)\.\n", markdown)
    ties = re.findall(r"### Tie sensitivity\n\n(.*)\n", markdown)
    assert pairs and ties and "superscript letters" in pairs[0] and "'fixed'" in ties[0]
    shown = re.findall(r'<h3>All pairs</h3>\n<p class="note">(.*)</p>', page)
    assert shown == [escape(f"{said}; best mean in bold.") for said in pairs]
    shown = re.findall(r'<h3>Tie sensitivity</h3>\n<p class="note">(.*)</p>', page)
    assert shown == [escape(said) for said in ties]
    rows = re.findall(r"^\| [a-z] \| (.*) \|$", markdown.split("### All pairs")[1], re.M)
    table = page.split("<h3>All pairs</h3>")[1].split("</table>")[0]
    cells = [re.findall(r"<td[^>]*>(.*?)</td>", row)[1:] for row in table.split("<tr>")[2:]]
    bold = [
        [re.sub(r"\*\*(.*?)\*\*", r"<strong>\1</strong>", c) for c in r.split(" | ")] for r in rows
    ]
    assert cells == bold and "<strong>" in table


def test_the_drill_down_lists_each_runs_ranking_and_grades(report):
    from trecbench.fusion import ranked_table

    data = _data((report / "report.html").read_text())
    grades = {(r.qid, r.docno): r.rel for r in trecbench.read_qrels(QRELS).itertuples()}
    names = data["runs"]
    for name, path in zip(names, RUNS, strict=True):
        ranked = ranked_table(path).to_pandas()
        for qid in ("de-07", "en-21"):
            top = ranked[(ranked["qid"] == qid) & (ranked["rank"] <= 20)]
            expected = [[d, grades.get((qid, d))] for d in top["docno"]]
            shown = [[doc[0], doc[2]] for doc in data["documents"][qid][name]]
            assert shown == expected


def _drawn(browser, path):
    """``browser`` on the page file ``path``, its figures drawn."""
    browser.get(path.as_uri())
    drawn = "return !!(window.Bokeh && Bokeh.documents.length && Bokeh.documents[0].is_idle)"
    for _ in range(50):  # the figures are drawn once Bokeh's document is idle
        if browser.execute_script(drawn):
            break
        time.sleep(0.1)
    return browser


@pytest.fixture(scope="module")
def page(browser, report):
    return _drawn(browser, report / "report.html")


COUNT_CANVASES = """
function count(node) { var n = node.tagName === 'CANVAS' ? 1 : 0;
  if (node.shadowRoot) { n += count(node.shadowRoot); }
  for (var child of node.children || []) { n += count(child); } return n; }
return Array.from(document.querySelectorAll('.figures > div')).map(count);"""


def test_it_loads_offline_without_errors_and_draws_its_figures(page):
    errors = [entry for entry in page.get_log("browser") if entry["level"] == "SEVERE"]
    assert errors == []
    sent = [json.loads(entry["message"])["message"] for entry in page.get_log("performance")]
    urls = [
        m["params"]["request"]["url"] for m in sent if m["method"] == "Network.requestWillBeSent"
    ]
    assert [url for url in urls if url.split(":")[0] in ("http", "https", "ws", "wss")] == []
    canvases = page.execute_script(COUNT_CANVASES)
    # per measure the means and the differences, and the precision-recall curve
    assert len(canvases) == 2 * len(MEASURES) + 1 and all(n > 0 for n in canvases)


def test_each_figure_is_an_image_named_by_what_it_shows(page):
    # a canvas says nothing to a screen reader: the figures had no text alternative
    tree = page.execute_cdp_cmd("Accessibility.getFullAXTree", {})["nodes"]
    images = [
        node["name"]["value"]
        for node in tree
        if node.get("role", {}).get("value") == "image" and "name" in node
    ]
    runs = "tfidf-word, tfidf-char, tfidf-word-parents"
    assert images == [
        *[
            text
            for measure in MEASURES
            for text in (
                f"Chart: {measure}, each run's mean with its interval, a run a row ({runs}); "
                "the numbers are in the summary table",
                f"Chart: {measure}, per-topic difference of tfidf-char, tfidf-word-parents "
                "against tfidf-word, sorted; the values are in the topics table",
            )
        ],
        f"Chart: precision-recall curves of {runs}, the interpolated precision at the 11 "
        "recall levels",
    ]


# the elements inside the figures (their shadow roots too) that are Tab stops or links
FIGURE_TAB_STOPS = """
function deep(node, found) { for (var element of node.querySelectorAll('*')) {
  found.push(element); if (element.shadowRoot) { deep(element.shadowRoot, found); } }
  return found; }
return deep(document.querySelector('.figures'), []).filter(function (element) {
  return element.tabIndex >= 0 || element.href; }).map(function (element) {
  return element.href || element.title || element.className; });"""


def test_no_figure_holds_a_tab_stop_or_a_link(page):
    # each figure was 9 unnamed Tab stops inside an image (role="img"): Bokeh's event
    # layer, its logo's link to https://bokeh.org/ (off an offline page), 7 toolbar buttons
    assert page.execute_script(FIGURE_TAB_STOPS) == []
    assert len(page.execute_script(COUNT_CANVASES)) == 2 * len(MEASURES) + 1  # still drawn


def test_no_tool_of_a_figure_opens_a_page_off_the_report(report):
    # Bokeh's help tool opened https://docs.bokeh.org/ in a new tab (which a browser
    # test's blocked network of the page's own tab never saw)
    tools = re.findall(r'"name":"(\w+Tool)"', (report / "report.html").read_text())
    assert {"PanTool", "SaveTool", "HoverTool"} <= set(tools) and "HelpTool" not in tools


def test_the_summary_table_sorts_by_a_column(page):
    from selenium.webdriver.common.by import By

    table = page.find_element(By.ID, "summary-table")
    header = table.find_elements(By.CSS_SELECTOR, "thead th")[2]  # Mean
    header.click()
    means = [
        float(row.find_elements(By.TAG_NAME, "td")[2].text)
        for row in table.find_elements(By.CSS_SELECTOR, "tbody tr")
    ]
    assert means == sorted(means) and header.get_attribute("aria-sort") == "ascending"
    header.click()
    means = [
        float(row.find_elements(By.TAG_NAME, "td")[2].text)
        for row in table.find_elements(By.CSS_SELECTOR, "tbody tr")
    ]
    assert means == sorted(means, reverse=True)


def test_a_topic_opens_on_its_documents_and_grades(page):
    from selenium.webdriver.common.by import By

    search = page.find_element(By.ID, "topic-search")
    search.send_keys("en-21")
    visible = [
        b
        for b in page.find_elements(By.CSS_SELECTOR, "#topic-table button.topic")
        if b.is_displayed()
    ]
    assert [b.text for b in visible] == ["en-21"]
    visible[0].click()
    panel = page.find_element(By.ID, "drilldown")
    assert panel.is_displayed() and "Topic en-21" in panel.text
    tables = panel.find_elements(By.CSS_SELECTOR, ".runs table")
    assert len(tables) == len(RUNS)
    first = tables[0].find_elements(By.CSS_SELECTOR, "tr")[1].find_elements(By.TAG_NAME, "td")
    data = page.execute_script(
        "return JSON.parse(document.getElementById('report-data').textContent)"
    )
    expected = data["documents"]["en-21"][data["runs"][0]][0]
    grade = "unjudged" if expected[2] is None else str(expected[2])
    assert [first[1].text, first[3].text] == [expected[0], grade]
    # each heading aligned as its column: "Document" stood right over the ids, left
    aligned = (
        "return Array.from(arguments[0].rows[arguments[1]].cells,"
        " cell => getComputedStyle(cell).textAlign)"
    )
    headings, cells = (page.execute_script(aligned, tables[0], row) for row in (0, 1))
    assert headings == cells == ["left", "left", "right", "right"]


def test_precision_recall_curves_equal_trec_eval_and_are_plotted(report):
    """The curves of the page and of compare --plots: trec_eval's iprec_at_recall means
    (its own code, through pytrec_eval) of each run."""
    import pytrec_eval

    def read(path, column):
        table = {}
        for line in open(path):
            fields = line.split()
            table.setdefault(fields[0], {})[fields[2]] = fields[column]
        return table

    qrels = {q: {d: int(g) for d, g in docs.items()} for q, docs in read(QRELS, 3).items()}
    names = [f"iprec_at_recall_{level / 10:.2f}" for level in range(11)]
    comparison = trecbench.compare(QRELS, RUNS, MEASURES, samples=100)
    curves = comparison.precision_recall()
    assert list(curves) == comparison.runs
    for name, path in zip(comparison.runs, RUNS, strict=True):
        run_ = {q: {d: float(s) for d, s in docs.items()} for q, docs in read(path, 4).items()}
        values = pytrec_eval.RelevanceEvaluator(qrels, set(names)).evaluate(run_)
        expected = [sum(v[n] for v in values.values()) / len(values) for n in names]
        assert curves[name] == pytest.approx(expected, abs=1e-12)
    pytest.importorskip("matplotlib")
    assert {"precision_recall.png", "precision_recall.svg"} <= set(comparison.plot_files())


def test_score_html_holds_each_runs_means_as_score_prints_them(tmp_path, capsys):
    page = tmp_path / "scores.html"
    args = ["score", "--format", "json", "-m", "nDCG@10", "-m", "P.5", QRELS, *RUNS[:2]]
    assert run([*args, "--html", str(page)]) == 0
    printed = json.loads(capsys.readouterr().out)
    text = page.read_text()
    for entry in printed["runs"]:
        for value in entry["aggregates"].values():
            assert f">{value:.4f}<" in text
    data = _data(text)
    assert data["depth"] == 20 and len(data["documents"]) == 56
    # the page says what it is: score's report, not a comparison made by compare
    assert "<title>trecbench score report</title>" in text
    assert "<h1>trecbench score report</h1>" in text and "trecbench comparison" not in text
    # a landmark holds the content; without scripts (a mail viewer's) the page says where
    # the values its scripts draw are (reviewer 664: an empty Topics table, no word)
    assert text.count("<main>") == text.count("</main>") == 1
    assert text.count("<noscript>") == 3 and "holds every topic's value" in text
    # each option named as the command giving it has it; the hints of drawn parts hidden
    assert "(<code>score --report</code>; <code>BenchmarkReport.json</code>" in text
    assert '<p class="note screen-only needs-script">Hover a point' in text


def test_score_html_names_measures_by_display_name_whatever_labels_asks(tmp_path, capsys):
    # --labels trec and asked relabelled every output but the page, and nothing said so
    from click.testing import CliRunner

    from trecbench.cli import cli

    args = ["score", "--format", "table", "-m", "ndcg_cut.10", "-m", "P.5", QRELS, *RUNS[:2]]
    for labels in ("trec", "asked", "display"):
        page = tmp_path / f"{labels}.html"
        assert run([*args, "--labels", labels, "--html", str(page), "--quiet"]) == 0
        assert _data(page.read_text())["measures"] == ["P@5", "nDCG@10"]
    capsys.readouterr()
    said = " ".join(CliRunner().invoke(cli, ["score", "--help"]).output.split())
    assert "The --html page names measures by display name whatever this says." in said


@pytest.mark.parametrize("complete", [False, True])
def test_score_html_takes_a_topic_named_all(tmp_path, complete):
    # the page's comparison refused it as score -q's summary rows (exit 1, a Python hint)
    (tmp_path / "q").write_text("all 0 d1 1\nq2 0 d2 1\n")
    for name in "ab":
        (tmp_path / f"{name}.run").write_text(f"all Q0 d1 1 2 {name}\nq2 Q0 d3 1 2 {name}\n")
    page = tmp_path / "p.html"
    args = ["score", "-m", "map", str(tmp_path / "q"), str(tmp_path / "a.run")]
    args += [str(tmp_path / "b.run"), "--html", str(page)] + ["-c"] * complete
    assert run(args) == 0 and page.exists()
    assert _data(page.read_text())["topics"] == ["all", "q2"]


@pytest.mark.parametrize("complete", [False, True])
def test_score_html_under_c_averages_over_every_qrels_topic(tmp_path, capsys, complete):
    part = tmp_path / "part.run"  # the English topics left out
    lines = (ROOT / "runs" / "tfidf-char.run").read_text().splitlines(keepends=True)
    part.write_text("".join(line for line in lines if not line.startswith("en-")))
    page = tmp_path / "scores.html"
    flags = ["-c"] if complete else []
    args = ["score", *flags, "--format", "json", "-m", "map", "-m", "P.5", QRELS, str(part)]
    assert run([*args, RUNS[0], "--html", str(page)]) == 0
    captured = capsys.readouterr()
    printed, said = json.loads(captured.out), captured.err
    text = page.read_text()
    shown = [value for entry in printed["runs"] for value in entry["aggregates"].values()]
    found = [f">{value:.4f}<" in text for value in shown]
    # without -c, score averages each run over its own topics; the page pairs the runs on
    # the topics both hold, and says so
    assert all(found) if complete else not all(found)
    assert ("the page pairs the runs on the 28 topics" in said) != complete
    assert _data(text)["topics"] == sorted({line.split()[0] for line in lines}) or not complete


@pytest.mark.parametrize("missing", ["zero", "drop"])
def test_the_curves_average_over_the_topics_the_means_average_over(tmp_path, capsys, missing):
    """Under -c (missing zero) a topic a run lacks counts 0 in its curve, as trec_eval -c
    counts it; paired on the common topics (drop), its other topics are left out. The
    curves followed each run's own topics whatever the comparison's."""
    import pytrec_eval

    part = tmp_path / "part.run"  # the English topics left out
    lines = (ROOT / "runs" / "tfidf-char.run").read_text().splitlines(keepends=True)
    part.write_text("".join(line for line in lines if not line.startswith("en-")))
    qrels = {}
    for line in open(QRELS):
        qid, _, docno, grade = line.split()
        qrels.setdefault(qid, {})[docno] = int(grade)
    names = [f"iprec_at_recall_{level / 10:.2f}" for level in range(11)]
    comparison = trecbench.compare(QRELS, [str(part), RUNS[0]], ["map"], missing=missing)
    topics = comparison.queries
    assert len(topics) == (len(qrels) if missing == "zero" else 28)
    for name, path in zip(comparison.runs, [part, RUNS[0]], strict=True):
        ranked = {}
        for line in open(path):
            qid, _, docno, _, score, _ = line.split()
            ranked.setdefault(qid, {})[docno] = float(score)
        values = pytrec_eval.RelevanceEvaluator(qrels, set(names)).evaluate(ranked)
        expected = [sum(values[q][n] for q in topics if q in values) / len(topics) for n in names]
        assert comparison.precision_recall()[name] == pytest.approx(expected, abs=1e-12)
    if missing == "zero":  # the page of score -c: trec_eval -c's iprec_at_recall means
        page = tmp_path / "scores.html"
        args = ["score", "-c", "-m", "map", QRELS, str(part), RUNS[0], "--html", str(page)]
        assert run([*args, "--quiet"]) == 0
        curves = comparison.precision_recall()
        text = page.read_text()
        for curve in curves.values():
            assert f'"precision",{json.dumps(curve, separators=(",", ":"))}' in text


def test_score_html_leaves_out_what_is_no_mean_over_topics(tmp_path, capsys):
    page = tmp_path / "official.html"
    official = ["-m", "official", "-m", "relstring.5"]
    assert run(["score", *official, QRELS, RUNS[0], "--html", str(page)]) == 0
    said = capsys.readouterr().err
    assert (
        "the page compares per-topic means: num_q, num_ret, num_rel, num_rel_ret, gm_map, "
        "relstring_5 (summed over topics, a summary of them or text in score's output) are "
        "not on it"
    ) in said
    text = page.read_text()
    data = _data(text)
    assert "num_ret" not in data["measures"] and "MAP" in data["measures"]
    # the page's header said "Warning (--allow-unjudged): ...", an option score has not
    assert "Warning: the page compares per-topic means: " in text
    assert "allow-unjudged" not in text
    alone = tmp_path / "gm.html"
    assert run(["score", "-m", "gm_map", QRELS, RUNS[0], "--html", str(alone)]) == 1
    said = capsys.readouterr()
    assert "--html: the page compares the runs' per-topic means, and gm_map has none" in said.err
    assert not alone.exists() and said.out == ""  # refused before the scores were printed
    assert run(["score", "-m", "relstring", QRELS, RUNS[0], "--html", str(alone)]) == 1
    said = capsys.readouterr().err  # the name was blank
    assert "per-topic means, and relstring has none (a count, a summary" in said


def test_the_drill_down_of_runs_held_in_memory_is_kept(tmp_path):
    runs = {"w": trecbench.read_run(RUNS[0]), "c": RUNS[1]}
    comparison = trecbench.compare(QRELS, runs, ["nDCG@10"], samples=100, drill_depth=5)
    data = _data(comparison.to_html(5))
    assert data["depth"] == 5 and len(data["documents"]) == 56
    kept = comparison.drill_downs["w"].documents.to_pylist()
    assert len(kept) == 5 * 56 and data["documents"]["de-01"]["w"][0][0] == kept[0]["docno"]


def test_power_and_unjudged_sensitivity_have_their_place_on_the_page(tmp_path, capsys):
    out = tmp_path / "out"
    args = ["compare", QRELS, *RUNS[:2], "-m", "P@5", "--power", "0.8", "--unjudged-bounds"]
    assert run([*args, "-o", str(out), "--quiet"]) == 0
    page = (out / "report.html").read_text()
    assert "<h2>Power (all topics)</h2>" in page and "<h2>Unjudged sensitivity</h2>" in page
    assert "could flip" in page


def test_a_drill_down_kept_deeper_is_cut_and_a_bad_depth_refused():
    # to_html(depth=1) after drill_depth=20 showed no documents at all (depth 0), and a
    # depth of -5 was taken
    qrels = {"q1": {"a": 1, "b": 0}, "q2": {"c": 1}}
    runs = {"x": {"q1": {"a": 2.0, "b": 1.0}, "q2": {"c": 1.0}}, "y": {"q1": {"b": 2.0}}}
    comparison = trecbench.compare(qrels, runs, ["P@1"], samples=50, drill_depth=20)

    def shown(depth):
        page = comparison.to_html(depth=depth)
        data = page.split('id="report-data">', 1)[1].split("</script>", 1)[0]
        return json.loads(data)

    deep, cut = shown(20), shown(1)
    # a run held as numbers: each score as Python writes the double
    assert deep["depth"] == 20 and cut["depth"] == 1
    assert deep["documents"]["q1"]["x"] == [["a", "2.0", 1], ["b", "1.0", 0]]
    assert cut["documents"]["q1"]["x"] == [["a", "2.0", 1]]
    assert cut["documents"]["q1"]["y"] == [["b", "2.0", 0]]
    for depth in (-5, 1.5, True):
        with pytest.raises(trecbench.UsageError, match="depth must be a whole number from 0"):
            comparison.to_html(depth=depth)


@pytest.mark.parametrize("kept", [True, False])
def test_a_page_of_no_documents_still_draws_the_precision_recall_curves(tmp_path, kept):
    # --html-depth 0 (to_html(depth=0)) left the curves out with the documents: "0: none"
    # is the drill-down's documents, and the curves are kept at any depth
    comparison = trecbench.compare(QRELS, RUNS[:2], ["P@5"], drill_depth=0 if kept else None)
    curves = "Chart: precision-recall curves of tfidf-word, tfidf-char"
    page = comparison.to_html(depth=0)
    assert _data(page)["depth"] == 0 and _data(page)["documents"] == {}
    assert curves in page and curves in comparison.to_html(depth=20)
    args = ["score", "-m", "P.5", QRELS, *RUNS[:2], "--html-depth", "0", "--quiet"]
    assert run([*args, "--html", str(tmp_path / "s.html")]) == 0
    assert curves in (tmp_path / "s.html").read_text()


def test_every_column_heading_has_a_name(page):
    # the all-pairs table's letters column: a sortable heading (a Tab stop) of no text,
    # read by a screen reader as a blank column header
    tree = page.execute_cdp_cmd("Accessibility.getFullAXTree", {})["nodes"]
    headings = [n for n in tree if n.get("role", {}).get("value") == "columnheader"]
    assert len(headings) > 10
    assert [n for n in headings if not n.get("name", {}).get("value", "").strip()] == []


def test_empty_cells_sort_last_in_either_direction(page):
    # the baseline's p is empty: it came first when sorted descending
    from selenium.webdriver.common.by import By

    table = page.find_element(By.ID, "summary-table")
    header = table.find_elements(By.CSS_SELECTOR, "thead th")[7]  # p
    for direction in ("ascending", "descending"):
        header.click()
        cells = [
            row.find_elements(By.TAG_NAME, "td")[7].text
            for row in table.find_elements(By.CSS_SELECTOR, "tbody tr")
        ]
        filled = [float(cell) for cell in cells if cell]
        assert header.get_attribute("aria-sort") == direction
        assert cells == [*cells[: len(filled)], *[""] * (len(cells) - len(filled))], cells
        assert filled == sorted(filled, reverse=direction == "descending") and filled


SUMMARY_KEYS = """
return Array.from(document.querySelectorAll('#summary-table tbody tr'), function (row) {
  return Array.from(row.cells, function (cell) { return [cell.textContent, cell.dataset.sort]; });
});"""


def test_every_number_of_the_summary_sorts_and_w_t_l_by_wins_then_fewer_losses(page):
    # every W/T/L cell's key was "": its wins a numpy.int64, no int, the column never sorted
    from selenium.webdriver.common.by import By

    for row in page.execute_script(SUMMARY_KEYS):
        numbers = row[2:4] if row[4][0] == "baseline" else row[2:]
        assert all(float(key) == float(key) for _, key in numbers), row  # a number each
    header = page.find_elements(By.CSS_SELECTOR, "#summary-table thead th")[6]
    header.click()
    shown = [row[6][0] for row in page.execute_script(SUMMARY_KEYS)]
    records = [tuple(map(int, text.split("/"))) for text in shown if text]
    assert shown[len(records) :] == [""] * len(MEASURES)  # the baseline's, last
    assert records == sorted(records, key=lambda r: (r[0], -r[2])) and len(set(records)) > 2


@pytest.fixture(scope="module")
def halves_page(browser, tmp_path_factory):
    """A page whose values are exact halves at the fifth decimal: 1/32 = 0.03125."""
    folder = tmp_path_factory.mktemp("halves")
    (folder / "q").write_text("t1 0 rel 1\nt2 0 rel 1\nt3 0 rel 1\n")
    for name, ranks in (("X", {"t1": 32, "t2": 2, "t3": 1}), ("Y", {"t1": 1, "t2": 32, "t3": 32})):
        (folder / f"{name}.run").write_text(
            "".join(
                f"{qid} Q0 {'rel' if i == rank else f'n{i}'} {i} {100 - i} {name}\n"
                for qid, rank in ranks.items()
                for i in range(1, 41)
            )
        )
    args = ["score", "-m", "recip_rank", "-m", "P.5", str(folder / "q")]
    html = folder / "halves.html"
    assert run([*args, str(folder / "X.run"), str(folder / "Y.run"), "--html", str(html)]) == 0
    browser.get(html.as_uri())
    return browser, _data(html.read_text())


def test_the_topic_table_rounds_an_exact_half_as_trec_eval_prints_it(halves_page):
    # JavaScript's toFixed rounds 0.03125 up to 0.0313; trec_eval's printf, Python and the
    # page's summary print 0.0312 (half to even)
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    browser, data = halves_page
    measure = data["measures"][0]  # recip_rank
    Select(browser.find_element(By.ID, "topic-measure")).select_by_visible_text(measure)
    rows = browser.find_elements(By.CSS_SELECTOR, "#topic-table tbody tr")
    shown = {
        row.get_attribute("data-qid"): [td.text for td in row.find_elements(By.TAG_NAME, "td")[1:]]
        for row in rows
    }
    expected = {}
    for qid in ("t1", "t2", "t3"):
        x, y = (data["values"][qid][run_name][0] for run_name in ("X", "Y"))
        expected[qid] = [f"{x:.4f}", f"{y:.4f}", f"{y - x:+.4f}"]
    assert shown == expected
    assert shown["t2"] == ["0.5000", "0.0312", "-0.4688"]  # trec_eval -q: 0.0312


def test_the_figures_tooltips_and_styles_tell_values_and_runs_apart():
    # Bokeh's {0.0000} rounds 0.03125 up as toFixed does; ten colours repeated from the
    # eleventh run on
    from trecbench.html_report import figures

    rows = [{"run": "X", "mean": 0.03125, "ci_low": 0.03125, "ci_high": float("nan")}]
    means = figures.means_figure("MRR", rows)
    source = means.renderers[0].data_source.data
    assert (source["mean_text"], source["low_text"], source["high_text"]) == (
        ["0.0312"], ["0.0312"], ["n/a"],
    )  # fmt: skip
    points = {"Y": [("t1", 0.09375, 0.0625), ("t2", 0.5, 0.53125)]}
    differences = figures.differences_figure("MRR", "X", points)
    source = differences.renderers[0].data_source.data
    assert list(source["difference_text"]) == ["-0.0312", "+0.0312"]
    assert list(source["value_text"]) == ["0.5000", "0.0938"]  # 0.09375: half to even
    from bokeh.models import HoverTool

    hovers = [tool for tool in (*means.tools, *differences.tools) if isinstance(tool, HoverTool)]
    tips = [tip for tool in hovers for tip in tool.tooltips]
    assert len(hovers) == 2 and all("{" not in shown for _, shown in tips), tips
    styles = [figures.style(index) for index in range(80)]
    assert len(set(styles)) == 80 and figures.style(80) == figures.style(0)


def test_the_means_axis_shortens_a_long_name_and_the_hover_names_it_whole():
    # the means' axis writes at most 40 characters a name: the canvas stays within the page
    from trecbench.html_report import figures

    long = "bm25-" + "k" * 80 + "-rm3-07"
    rows = [
        {"run": run_name, "mean": 0.5, "ci_low": 0.4, "ci_high": 0.6} for run_name in (long, "b")
    ]
    means = figures.means_figure("MRR", rows)
    shown = {row: label.text for row, label in means.yaxis[0].major_label_overrides.items()}
    assert shown == {0: f"bm25-{'k' * 21}\u2026{'k' * 6}-rm3-07", 1: "b"} and len(shown[0]) == 40
    assert list(means.renderers[0].data_source.data["run"]) == [long, "b"]


def test_score_html_of_runs_sharing_no_topic_points_to_c(tmp_path, capsys):
    # it said "no topic is evaluated in every run (missing='drop')", the API's words; it
    # exits 7 (no topic to pair the runs on), as compare --missing drop does, not 1 (usage)
    (tmp_path / "q").write_text("t1 0 a 1\nt2 0 a 1\n")
    (tmp_path / "x.run").write_text("t1 Q0 a 1 1 x\n")
    (tmp_path / "y.run").write_text("t2 Q0 a 1 1 y\n")
    page = tmp_path / "p.html"
    args = ["score", str(tmp_path / "q"), str(tmp_path / "x.run"), str(tmp_path / "y.run")]
    assert run([*args, "--html", str(page)]) == 7
    captured = capsys.readouterr()
    assert captured.err.endswith(
        "trecbench: --html: no topic is in every run, and the page pairs the runs on the "
        "topics they share: give -c to count a topic a run lacks as 0\n"
    )
    assert captured.out == "" and not page.exists()
    assert run([*args, "-c", "--html", str(page), "--quiet"]) == 0 and page.exists()


def _open_topic(browser, page, qid: str):
    """The drill-down panel of topic ``qid`` of the page file ``page``, opened."""
    from selenium.webdriver.common.by import By

    browser.get(page.as_uri())
    buttons = browser.find_elements(By.CSS_SELECTOR, "#topic-table button.topic")
    next(b for b in buttons if b.text == qid).click()
    return browser.find_element(By.ID, "drilldown")


def test_the_drill_down_marks_documents_as_the_scores_saw_them(browser, tmp_path):
    # rank 1 (grade 1) was green as relevant under -l 2, and rank 2 listed as scored under
    # -M 1 with nothing said: the colours follow -l, ranks beyond -M are set apart
    from selenium.webdriver.common.by import By

    qrels, ranked, page = tmp_path / "l.qrels", tmp_path / "la.run", tmp_path / "l.html"
    qrels.write_text("q1 0 d1 1\nq1 0 d2 2\nq2 0 d1 2\n")
    ranked.write_text("q1 Q0 d1 1 3 r\nq1 Q0 d2 2 2 r\nq1 Q0 d3 3 1 r\nq2 Q0 d1 1 1 r\n")
    flags = ["-l", "2", "-M", "2", "-m", "P.1"]
    assert run(["score", *flags, str(qrels), str(ranked), "--html", str(page), "--quiet"]) == 0
    panel = _open_topic(browser, page, "q1")
    rows = panel.find_elements(By.CSS_SELECTOR, ".runs table tr")[1:]
    assert [r.get_attribute("class") for r in rows] == ["", "relevant", "cut"]
    note = panel.find_element(By.CSS_SELECTOR, ".runs p.note").text
    assert note == "relevant: grade 2 or more (-l 2); ranks beyond 2 are not scored (-M 2)"


def test_topic_ids_sort_as_text_both_ways(browser, tmp_path):
    # read as numbers: ascending 9-z, 10-a, 10-b, 999, 1e3 (1000), abc; descending left
    # 10-a before 10-b (both 10)
    from selenium.webdriver.common.by import By

    qids = ["10-b", "10-a", "9-z", "1e3", "999", "abc"]
    qrels, ranked, page = tmp_path / "q", tmp_path / "a.run", tmp_path / "s.html"
    qrels.write_text("".join(f"{q} 0 d1 1\n" for q in qids))
    ranked.write_text("".join(f"{q} Q0 d1 1 1 a\n" for q in qids))
    assert run(["score", "-m", "P.1", str(qrels), str(ranked), "--html", str(page), "--quiet"]) == 0
    browser.get(page.as_uri())
    table = browser.find_element(By.ID, "topic-table")
    header = table.find_elements(By.CSS_SELECTOR, "thead th")[0]

    def shown() -> list[str]:
        return [
            row.get_attribute("data-qid")
            for row in table.find_elements(By.CSS_SELECTOR, "tbody tr")
        ]

    header.click()
    assert shown() == sorted(qids)  # code point order, as Python sorts str
    header.click()
    assert shown() == sorted(qids, reverse=True)


def test_values_of_1e21_or_more_are_written_out_as_printf_writes_them(browser, tmp_path):
    # toFixed switches to exponent form at 1e21: the topic table read 1e+22 and -1e+22
    # where score -q, trec_eval and the page's summary print 10000000000000000000000.0000
    from selenium.webdriver.common.by import By

    qrels, ranked, page = tmp_path / "q", tmp_path / "a.run", tmp_path / "u.html"
    qrels.write_text("t1 0 d1 1\nt2 0 d1 1\n")
    ranked.write_text("t1 Q0 d1 1 2 a\nt2 Q0 d9 1 2 a\n")
    measure = ["-m", "utility.1e22,-1e22,0,0"]
    assert run(["score", *measure, str(qrels), str(ranked), "--html", str(page), "--quiet"]) == 0
    browser.get(page.as_uri())
    rows = browser.find_elements(By.CSS_SELECTOR, "#topic-table tbody tr")
    shown = {r.get_attribute("data-qid"): r.find_elements(By.TAG_NAME, "td")[1].text for r in rows}
    assert shown == {"t1": f"{1e22:.4f}", "t2": f"{-1e22:.4f}"}
    assert shown["t1"] == "10000000000000000000000.0000"  # trec_eval -q prints it so


def test_a_number_column_with_significance_letters_sorts_as_numbers(browser, tmp_path):
    # "All pairs" cells read "9.3667a": a column of them sorted as text once text and
    # numbers were told apart by the whole cell (11.9667ac before 6.8333)
    from selenium.webdriver.common.by import By

    qrels = tmp_path / "q"
    qrels.write_text("".join(f"t{i} 0 d0 1\n" for i in range(12)))
    # per-topic depths whose differences vary: the pairs are significant, with letters
    for name, depth, spread in (("a", 6, 2), ("b", 9, 3), ("c", 12, 4)):
        (tmp_path / f"{name}.run").write_text(
            "".join(
                f"t{i} Q0 d{j} {j + 1} {100 - j} {name}\n"
                for i in range(12)
                for j in range(depth + (i * 7) % spread)
            )
        )
    out = tmp_path / "out"
    runs = [str(tmp_path / f"{n}.run") for n in "abc"]
    assert run(["compare", str(qrels), *runs, "-m", "num_ret", "-o", str(out), "--quiet"]) == 0
    browser.get((out / "report.html").as_uri())
    title = next(h for h in browser.find_elements(By.TAG_NAME, "h3") if h.text == "All pairs")
    table = title.find_element(By.XPATH, "following::table[1]")  # in its scrolling box
    header = table.find_elements(By.CSS_SELECTOR, "thead th")[-1]
    header.click()
    cells = [
        r.find_elements(By.TAG_NAME, "td")[-1].text
        for r in table.find_elements(By.CSS_SELECTOR, "tbody tr")
    ]
    means = [float(re.match(r"[0-9.]+", cell)[0]) for cell in cells]
    assert means == sorted(means) and means[-1] > 10 > means[0], cells
    assert any(not cell.replace(".", "").isdigit() for cell in cells)  # letters there


def test_the_drill_down_shows_scores_as_written_and_marks_float32_ties(browser, tmp_path):
    # the score cell was JavaScript's String(double): 12.5 for 12.500000, 1e-7 for
    # 0.0000001; and nothing said why 0.3 ranked above 0.30000001 (one float32: trec_eval
    # 9.0.8 then orders by docno, descending)
    import pytrec_eval
    from selenium.webdriver.common.by import By

    written = {"a": "0.30000001", "b": "0.3", "c": "0.0000001", "d": "12.500000",
               "e": "1e-7", "f": "-0.100", "g": "3.14159265358979323846"}  # fmt: skip
    qrels, ranked, page = tmp_path / "q", tmp_path / "w.run", tmp_path / "w.html"
    qrels.write_text("q1 0 a 1\nq1 0 b 0\n")
    ranked.write_text("".join(f"q1 Q0 {d} 1 {s} w\n" for d, s in written.items()))
    assert run(["score", "-m", "P.1", str(qrels), str(ranked), "--html", str(page), "--quiet"]) == 0
    panel = _open_topic(browser, page, "q1")
    lines = panel.find_elements(By.CSS_SELECTOR, ".runs table tr")[1:]
    rows = [line.find_elements(By.TAG_NAME, "td") for line in lines]
    docnos = [cells[1].text for cells in rows]
    # b before a: tied as float32, docno descending; e before c: the same double
    assert docnos == ["d", "g", "b", "a", "e", "c", "f"]
    # the cell's text is the score alone, its tie mark drawn: a copy of the cell or its row
    # read "0.3tie" (the mark was text of the cell)
    scores = [browser.execute_script("return arguments[0].textContent", c[2]) for c in rows]
    assert scores == [written[d] for d in docnos]
    selected = (
        "var range = document.createRange(); range.selectNodeContents(arguments[0]);"
        "getSelection().removeAllRanges(); getSelection().addRange(range);"
        "return String(getSelection());"
    )
    assert browser.execute_script(selected, rows[2][2]) == "0.3"
    assert browser.execute_script(selected, lines[2]) == "3\tb\t0.3\t0"
    badges = [c[2].find_elements(By.CSS_SELECTOR, "span.tie") for c in rows]
    assert [len(b) for b in badges] == [0, 0, 1, 0, 0, 0, 0]  # e and c: equal, not a tie
    drawn = "return getComputedStyle(arguments[0], '::after').content"
    assert browser.execute_script(drawn, badges[2][0]) == '"tie"'
    title = badges[2][0].get_attribute("title")
    assert title == "equal to the next as float32; ordered by docno, as trec_eval does"
    assert "tie: " + title in panel.find_element(By.CSS_SELECTOR, ".runs p.note").text
    # trec_eval's own code ranks a fourth: the order shown is its order
    scored = pytrec_eval.RelevanceEvaluator({"q1": {"a": 1, "b": 0}}, {"recip_rank"}).evaluate(
        {"q1": {d: float(s) for d, s in written.items()}}
    )
    assert scored["q1"]["recip_rank"] == 1 / (docnos.index("a") + 1) == 0.25


LEGEND_BOXES = """
function box(b) { return [b.x0, b.y0, b.x1, b.y1]; }
var plots = Object.values(Bokeh.index).filter(function (view) {
  return view.model.type === "Figure"; });  // not Bokeh's notifications' root
return plots.map(function (plot) {
  var legends = plot.computed_renderer_views.filter(function (view) {
    return view.model.type === "Legend"; });
  return [plot.model.title.text.text, box(plot.frame.bbox), box(plot.bbox),
          legends.map(function (legend) { return box(legend.bbox); })];
});"""


def _legends_apart(figures) -> list[str]:
    """The titles of the figures with a legend (``figures``: per figure its title and the
    boxes of its plot area, its canvas and its legends), each legend's box sharing no point
    with its plot area's and lying in its canvas."""
    titled = []
    for title, (fx0, fy0, fx1, fy1), (cx0, cy0, cx1, cy1), legends in figures:
        for lx0, ly0, lx1, ly1 in legends:
            assert lx0 >= fx1 or lx1 <= fx0 or ly0 >= fy1 or ly1 <= fy0, (title, figures)
            assert cx0 <= lx0 and lx1 <= cx1 and cy0 <= ly0 and ly1 <= cy1, (title, figures)
        titled += [title] if legends else []
    return titled


def _with_legends(measures: list[str], baseline: str) -> list[str]:
    """The titles of the figures that name runs in a legend: per measure the per-topic
    differences, and the precision-recall curves (the means' figure names them on its
    axis)."""
    return [
        *(f"{measure}: per-topic difference against {baseline}, sorted" for measure in measures),
        "Precision-recall (interpolated precision at 11 recall levels)",
    ]


def test_no_legend_covers_a_plot_area(browser, report):
    # the precision-recall legend was drawn in the plot area's top right corner, the
    # differences' in its top left, over the points there
    figures = _drawn(browser, report / "report.html").execute_script(LEGEND_BOXES)
    assert _legends_apart(figures) == _with_legends(MEASURES, "tfidf-word")


def _page_of_runs(folder, count: int, topics: int = 1):
    """score --html's page of ``count`` runs named a-run-with-a-rather-long-name-NN over
    ``topics`` topics."""
    qrels, page = folder / "q", folder / "many.html"
    qrels.write_text("".join(f"t{t} 0 d1 1\nt{t} 0 d2 1\n" for t in range(topics)))
    runs = []
    for index in range(count):
        ranked = folder / f"a-run-with-a-rather-long-name-{index:02d}.run"
        lines = (f"t{t} Q0 d{(index + t) % 3} 1 2 x\nt{t} Q0 d9 2 1 x\n" for t in range(topics))
        ranked.write_text("".join(lines))
        runs.append(str(ranked))
    assert run(["score", "-m", "P.1", str(qrels), *runs, "--html", str(page), "--quiet"]) == 0
    return page


@pytest.fixture(scope="module")
def twelve_runs(tmp_path_factory):
    return _page_of_runs(tmp_path_factory.mktemp("twelve"), 12)


@pytest.fixture(scope="module")
def eighty_runs(tmp_path_factory):
    return _page_of_runs(tmp_path_factory.mktemp("eighty"), 80)


def test_the_legends_of_many_runs_with_long_names_stay_off_the_plots(browser, twelve_runs):
    # past 8 runs a legend beside takes more columns: never drawn past the canvas's bottom;
    # 12 runs of 32-character names are below (beside, they left a narrow canvas's plot
    # area too narrow for its toolbar)
    figures = _drawn(browser, twelve_runs).execute_script(LEGEND_BOXES)
    assert _legends_apart(figures) == _with_legends(["P@1"], "a-run-with-a-rather-long-name-00")


def test_the_figures_of_80_runs_stay_within_the_page_their_legends_below(browser, eighty_runs):
    # beside the plot areas, the legends' 10 columns made canvases 3,000 px wide: past the
    # page's width a legend is below its plot area, in rows as wide as the page
    page = _drawn(browser, eighty_runs)
    figures = page.execute_script(LEGEND_BOXES)
    assert _legends_apart(figures) == _with_legends(["P@1"], "a-run-with-a-rather-long-name-00")
    width = page.execute_script("return document.querySelector('.figures').clientWidth")
    for title, frame, canvas, legends in figures:
        assert canvas[2] - canvas[0] <= width, (title, canvas, width)
        assert all(legend[1] >= frame[3] for legend in legends), (title, frame, legends)


# the views of the page's figure whose title holds ``part``, and of one of its axes
FIGURE_AXIS = """
function figure(part) { return Object.values(Bokeh.index).find(function (view) {
  return view.model.type === "Figure" && view.model.title.text.text.includes(part); }); }
function axis(plot, dimension) { return plot.computed_renderer_views.find(function (view) {
  return view.model.type === "LinearAxis" && view.dimension === dimension; }); }
"""
MEANS_LABELS = """
var plot = figure(": means with intervals"), boxes = [];
var axes = plot.computed_renderer_views.filter(function (view) {
  return view.model.type.endsWith("Axis"); });
for (var view of axes) {  // each label placed, then drawn
  view._draw_oriented_labels = function (ctx, labels) {
    Object.getPrototypeOf(this)._draw_oriented_labels.apply(this, arguments);
    for (var label of labels.items) {
      var b = label.bbox(); boxes.push([label.text, b.x0, b.y0, b.x1, b.y1]);
    }
  };
}
plot.invalidate_painters(); plot.repaint();
for (var view of axes) { delete view._draw_oriented_labels; }
return boxes;"""


@pytest.mark.parametrize("runs", ["twelve_runs", "eighty_runs"])
def test_the_means_figure_writes_every_runs_name_apart(browser, request, runs):
    # the runs' names side by side on the x axis overlapped (12 runs of 32 characters): a
    # run is a row, its name written across the y axis
    page = request.getfixturevalue(runs)
    names = _data(page.read_text())["runs"]
    labels = _drawn(browser, page).execute_script(FIGURE_AXIS + MEANS_LABELS)
    boxes = [label for label in labels if label[0] in names]
    assert sorted(box[0] for box in boxes) == names
    for index, (name, x0, y0, x1, y1) in enumerate(boxes):
        for other, ox0, oy0, ox1, oy1 in boxes[index + 1 :]:
            assert x0 >= ox1 or x1 <= ox0 or y0 >= oy1 or y1 <= oy0, (name, other, boxes)


MEANS_SPANS = """
return Object.values(Bokeh.index).filter(function (view) {
  return view.model.type === "Figure" && view.model.title.text.text.endsWith("with intervals");
}).map(function (plot) {
  var data = plot.model.renderers[0].data_source.data;
  var range = plot.model.x_range;
  return [range.start, range.end, Math.min(...data.low), Math.max(...data.high)];
});"""


def test_the_means_figures_show_every_interval_whole(browser, report):
    # their range spanned the means only: tfidf-char's interval [0.2975, 0.5339] was cut
    # at 0.43, tfidf-word-parents' [0.0691, 0.2040] at 0.12
    spans = _drawn(browser, report / "report.html").execute_script(MEANS_SPANS)
    assert len(spans) == len(MEASURES)
    for start, end, low, high in spans:
        assert start < low and high < end, spans


TOPIC_TICKS = 'return axis(figure("per-topic difference"), 0).tick_coords.major[0];'


@pytest.mark.parametrize("topics", [1, 2])
def test_the_differences_count_topics_in_whole_numbers(browser, tmp_path, topics):
    # one or two topics put ticks at 0.5 or 1.2, 1.4, ... on the axis counting topics
    page = _drawn(browser, _page_of_runs(tmp_path, 2, topics))
    ticks = page.execute_script(FIGURE_AXIS + TOPIC_TICKS)
    assert ticks and all(tick == int(tick) for tick in ticks), ticks
    assert 1 in ticks and topics in ticks


FOLDED_TOOLBARS = """
return Object.values(Bokeh.index).filter(function (view) {
  return view.model.type === "Figure"; }).filter(function (plot) {
  var bar = plot.toolbar_panel.toolbar_view;
  return bar.shadow_el.contains(bar.overflow_el); }).map(function (plot) {
  return plot.model.title.text.text; });"""


@pytest.mark.parametrize("pages", ["report", "twelve_runs"])
def test_no_toolbar_folds_its_tools_into_a_menu(browser, request, pages):
    # above the plot area, the toolbar shared the line of a long title (the differences',
    # the curves'): some of its tools went into a menu, on the bundled demo's page too
    path = request.getfixturevalue(pages)
    page = _drawn(browser, path / "report.html" if path.is_dir() else path)
    assert page.execute_script(FOLDED_TOOLBARS) == []


def test_no_legend_of_the_benchmark_page_covers_a_plot_area(browser, tmp_path):
    # its figures are compare's, with the modes as runs
    config, out = ROOT / "data" / "hpo-rtask" / "benchmark.toml", tmp_path / "bench"
    assert run(["benchmark", str(config), "-o", str(out), "--quiet"]) == 0
    data = _data((out / "report.html").read_text())
    figures = _drawn(browser, out / "report.html").execute_script(LEGEND_BOXES)
    assert _legends_apart(figures) == _with_legends(data["measures"], data["baseline"])


@pytest.fixture(scope="module")
def all_trec(tmp_path_factory):
    """score -m all_trec --html's page of 2 runs over 3 topics."""
    folder = tmp_path_factory.mktemp("all_trec")
    qrels, page = folder / "q.qrels", folder / "all.html"
    qrels.write_text("".join(f"t{t} 0 d{d} {d % 2}\n" for t in range(3) for d in range(6)))
    runs = []
    for index in range(2):
        ranked = folder / f"r{index}.run"
        ranked.write_text(
            "".join(
                f"t{t} Q0 d{(d + index + t) % 6} {d} {9 - d} x\n"
                for t in range(3)
                for d in range(6)
            )
        )
        runs.append(str(ranked))
    assert run(["score", "-m", "all_trec", str(qrels), *runs, "--html", str(page), "--quiet"]) == 0
    return page


FIGURE_VIEWS = """return Object.values(Bokeh.index).filter(function (view) {
  return view.model.type === "Figure"; }).map(function (plot) {
  return plot.model.title.text.text; }).sort();"""
SHOWN_FIGURES = """return Array.from(document.querySelectorAll('.figure')).filter(
  function (figure) { return !figure.hidden; }).map(function (figure) {
  return figure.getAttribute('aria-label'); });"""


def _measure_titles(measures: list[str]) -> list[str]:
    return sorted(
        title
        for measure in measures
        for title in (f"{measure}: means with intervals",
                      f"{measure}: per-topic difference against r0, sorted")
    )  # fmt: skip


def test_all_trecs_page_draws_six_measures_figures_and_another_when_chosen(browser, all_trec):
    # its 173 figures (86 measures, 2 runs) kept Chromium busy for 78 s: the first 6 measures'
    # figures are drawn as the page opens, another measure's when the selector chooses it
    from selenium.webdriver.support.ui import Select

    text = all_trec.read_text()
    measures = _data(text)["measures"]
    assert len(measures) == 86 and measures[:2] == ["MAP", "Rprec"]  # every one in the tables
    assert text.count('<td data-sort="') // 9 == 2 * len(measures)  # the summary's rows
    page = _drawn(browser, all_trec)
    curves = "Precision-recall (interpolated precision at 11 recall levels)"
    assert page.execute_script(FIGURE_VIEWS) == sorted([*_measure_titles(measures[:6]), curves])
    select = Select(page.find_element("id", "figure-measure"))
    assert [option.text for option in select.options][1:] == measures[6:]
    select.select_by_visible_text("set_F")
    for _ in range(50):
        if page.execute_script("return Bokeh.documents.length == 2 && Bokeh.documents[1].is_idle"):
            break
        time.sleep(0.1)
    titles = page.execute_script(FIGURE_VIEWS)
    assert titles == sorted([*_measure_titles([*measures[:6], "set_F"]), curves])
    shown = page.execute_script(SHOWN_FIGURES)
    assert len(shown) == 15 and shown[-1].startswith("Chart: set_F, per-topic difference")
    assert page.execute_script(FIGURE_TAB_STOPS) == []


def test_the_all_pairs_letters_sort_back_to_their_first_order_past_z(browser, tmp_path):
    # 28 runs are lettered a..z, r27, r28: sorted as text, r27 and r28 came between r and s
    import pandas as pd
    from selenium.webdriver.common.by import By

    rows = [(f"s{r:02d}", f"t{i}", "P@5", ((r + i) % 6) / 5) for r in range(28) for i in range(3)]
    frame = pd.DataFrame(rows, columns=["run", "qid", "measure", "value"])
    page = tmp_path / "pairs.html"
    page.write_text(trecbench.compare_scores(frame, samples=40).to_html(0), encoding="utf-8")
    browser.get(page.as_uri())
    title = next(h for h in browser.find_elements(By.TAG_NAME, "h3") if h.text == "All pairs")
    table = title.find_element(By.XPATH, "following::table[1]")

    def letters():
        rows = table.find_elements(By.CSS_SELECTOR, "tbody tr")
        return [row.find_elements(By.TAG_NAME, "td")[0].text for row in rows]

    first = letters()
    assert first[24:] == ["y", "z", "r27", "r28"]
    header = table.find_elements(By.CSS_SELECTOR, "thead th")[0]
    header.click()  # ascending
    assert letters() == first
    header.click()
    assert letters() == first[::-1]


def test_a_topic_s_button_says_its_panel_is_open_and_escape_closes_it(browser, tmp_path):
    # the topic buttons had no aria-expanded or aria-controls and the panel no way to be
    # closed: Escape did nothing (reviewer 705; WAI-ARIA's disclosure pattern)
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    qrels, ranked, page = tmp_path / "q", tmp_path / "a.run", tmp_path / "s.html"
    qrels.write_text("q1 0 d1 1\nq2 0 d1 1\n")
    ranked.write_text("q1 Q0 d1 1 1 a\nq2 Q0 d2 1 1 a\n")
    assert run(["score", "-m", "P.1", str(qrels), str(ranked), "--html", str(page), "--quiet"]) == 0
    browser.get(page.as_uri())

    def states() -> dict:
        buttons = browser.find_elements(By.CSS_SELECTOR, "#topic-table button.topic")
        return {b.text: b.get_attribute("aria-expanded") for b in buttons}

    assert states() == {"q1": "false", "q2": "false"}
    button = next(
        b for b in browser.find_elements(By.CSS_SELECTOR, "button.topic") if b.text == "q2"
    )
    assert button.get_attribute("aria-controls") == "drilldown"
    button.send_keys(Keys.ENTER)
    panel = browser.find_element(By.ID, "drilldown")
    assert panel.is_displayed() and states() == {"q1": "false", "q2": "true"}
    assert browser.switch_to.active_element == panel
    panel.send_keys(Keys.ESCAPE)
    assert not panel.is_displayed() and states() == {"q1": "false", "q2": "false"}
    assert browser.switch_to.active_element.text == "q2"  # back on its button
    panel = _open_topic(browser, page, "q1")
    close = panel.find_element(By.CSS_SELECTOR, "button.close")
    assert close.get_attribute("aria-label") == "Close topic q1"
    close.click()
    assert not panel.is_displayed() and states() == {"q1": "false", "q2": "false"}
    # its button again closes it (a disclosure toggles); where a search hid the button,
    # Escape leaves the focus in the search box, not on the page's <body>
    panel = _open_topic(browser, page, "q1")
    next(
        b for b in browser.find_elements(By.CSS_SELECTOR, "button.topic") if b.text == "q1"
    ).click()
    assert not panel.is_displayed() and states() == {"q1": "false", "q2": "false"}
    panel = _open_topic(browser, page, "q1")
    browser.find_element(By.ID, "topic-search").send_keys("q2")
    assert states() == {"q2": "false"}
    panel.send_keys(Keys.ESCAPE)
    assert browser.switch_to.active_element.get_attribute("id") == "topic-search"
