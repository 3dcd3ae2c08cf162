"""score --html --group-by: the page has compare's sections per stratum (the macro mean
over the strata, one section per stratum), with the means score prints grouped."""

from __future__ import annotations

import contextlib
import json
import re
from html.parser import HTMLParser

import pytest
from conftest import ROOT

from trecbench.cli import run

pytest.importorskip("bokeh")

QRELS = str(ROOT / "qrels" / "hpo-demo.qrels")
SIDECAR = str(ROOT / "qrels" / "hpo-demo.sidecar.json")
RUNS = [str(ROOT / "runs" / f"{name}.run") for name in ("tfidf-word", "tfidf-char")]
MEASURES = ["-m", "P.5", "-m", "ndcg_cut.10"]
GROUPING = ["--strata", SIDECAR, "--group-by", "language"]


def _sections(page: str) -> dict[str, str]:
    """Each section's title (its topic count left out) and its HTML, up to the next."""
    parts = re.split(r"<h2[^>]*>([^<]*)</h2>", page)
    titles = [re.sub(r" \(\d+ topics?\)$", "", title) for title in parts[1::2]]
    return dict(zip(titles, parts[2::2], strict=True))


def _table(section: str) -> list[list[str]]:
    """The rows of a section's first table (its means table; in the section of all topics
    the summary's)."""
    table = section.split("</table>")[0]
    rows = re.findall(r"<tr>(.*?)</tr>", table.split("<tbody>")[1])
    return [re.findall(r"<td[^>]*>([^<]*)</td>", row) for row in rows]


def _means(section: str) -> list[list[str]]:
    """The rows of a section's means table: the measure, then each run's mean (its
    interval left out), the best run."""
    return [[cell.split(" [")[0] for cell in row] for row in _table(section)]


def _ties(section: str) -> list[list[str]]:
    """The rows of a section's tie sensitivity table (none: an empty list)."""
    _, found, ties = section.partition("<h3>Tie sensitivity</h3>")
    return _table(ties) if found else []


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    """score's page and its JSON output (the grouped means), and compare's page."""
    out = tmp_path_factory.mktemp("groups")
    score = [*MEASURES, QRELS, *RUNS, *GROUPING, "--format", "json", "--quiet", "--tie-bounds"]
    page = out / "score.html"
    with open(out / "score.json", "w") as stdout, contextlib.redirect_stdout(stdout):
        assert run(["score", *score, "--html", str(page)]) == 0
    compare = ["compare", QRELS, *RUNS, *MEASURES, *GROUPING, "-o", str(out / "cmp"), "--quiet"]
    assert run(compare) == 0
    document = json.loads((out / "score.json").read_text())
    return page.read_text(), (out / "cmp" / "report.html").read_text(), document


def test_score_html_group_by_has_the_sections_per_stratum(pages):
    # from_evaluation never passed the strata on: the page had "All topics" only
    page, compared, _ = pages
    sections = _sections(page)
    expected = ["Macro over language: each language counts the same", "language = de",
                "language = en"]  # fmt: skip
    assert [title for title in sections if title in expected] == expected
    # the sections compare's page has, with the same means
    assert all(_means(sections[title]) == _means(_sections(compared)[title]) for title in expected)
    assert '"kind": "strata"' in page.replace("&#34;", '"')  # among the page's inputs


def test_score_html_group_by_means_are_score_grouped_means(pages):
    page, _, document = pages
    sections = _sections(page)
    display = document["canonical"]  # P.5 -> P@5
    grouped = document["groups"]["language"]
    runs = list(grouped)
    titles = {"macro": "Macro over language: each language counts the same"}
    titles |= {group: f"language = {group}" for group in grouped[runs[0]]["groups"]}
    for key, title in titles.items():
        rows = {row[0]: row[1 : 1 + len(runs)] for row in _means(sections[title])}
        assert len(rows) == len(display)
        for measure, shown in display.items():
            for run_name, cell in zip(runs, rows[shown], strict=True):
                kept = grouped[run_name]
                value = kept["macro"] if key == "macro" else kept["groups"][key]
                assert cell == f"{value[measure]:.4f}", (title, run_name)


def test_score_html_draws_as_many_resamples_as_compare(pages):
    # score's page drew 1,000 resamples, compare's 10,000: the same runs' intervals
    # differed (the demo's nDCG@10 of tfidf-word: [0.1438, 0.3522] against [0.1419, 0.3550])
    page, compared, _ = pages
    drawn = "percentile intervals over topics (10,000 resamples, seed 0)</li>"
    assert drawn in page and drawn in compared
    settings = '"samples": 10000,\n  "seed": 0,'
    assert settings in page.replace("&#34;", '"')  # the provenance's settings
    for title, section in _sections(compared).items():
        if title.startswith(("Summary", "All", "Macro", "language")):
            assert _table(_sections(page)[title]) == _table(section), title


def test_score_html_tie_bounds_show_compares_tie_sensitivity(pages):
    # score --tie-bounds --html scored the bounds but its page had no tie sensitivity
    page, compared, _ = pages
    for title, section in _sections(compared).items():
        assert _ties(_sections(page).get(title, "")) == _ties(section), title
    assert "<h3>Tie sensitivity</h3>" in page


class _TieTables(HTMLParser):
    """Each tie sensitivity table of a page: its headings (with their scope) and rows."""

    def __init__(self):
        super().__init__()
        self.tables, self._after_title, self._open, self._cell = [], False, False, None

    def handle_starttag(self, tag, attrs):
        if tag == "table" and self._after_title:
            self.tables.append({"headings": [], "rows": []})
            self._after_title, self._open = False, True
        elif tag == "tr" and self._open:
            self._row = []
        elif tag in ("th", "td") and self._open:
            self._cell = (tag, dict(attrs).get("scope"), [])

    def handle_data(self, data):
        if self._cell is not None:
            self._cell[2].append(data)
        elif data == "Tie sensitivity":
            self._after_title = True

    def handle_endtag(self, tag):
        if tag == "table":
            self._open = False
        elif tag in ("th", "td") and self._cell is not None:
            kind, scope, text = self._cell
            self._row.append((kind, scope, "".join(text)))
            self._cell = None
        elif tag == "tr" and self._open:
            table = self.tables[-1]
            if all(kind == "th" for kind, _, _ in self._row):
                table["headings"].append([(scope, text) for _, scope, text in self._row])
            else:
                table["rows"].append([text for _, _, text in self._row])
            self._row = []


def test_tie_sensitivity_tables_head_their_columns(pages):
    # the tables had a <tbody> only: no heading said which column is the mean, the lowest,
    # the highest or the reported order
    expected = [("col", name) for name in ["Measure", "Run", "Mean", "Lowest", "Highest",
                                          "Reported order"]]  # fmt: skip
    for page in pages[:2]:
        parser = _TieTables()
        parser.feed(page)
        assert parser.tables
        for table in parser.tables:
            assert table["headings"] == [expected]
            assert table["rows"] and all(len(row) == len(expected) for row in table["rows"])
