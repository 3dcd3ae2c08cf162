"""A per-topic difference the values' rounding alone leaves is 0 on the page, as the
statistics count it a tie: topic t1's MAP of 0.25 against 0.24999999999999994 read
-5.6e-17 in the topics table, the differences figure and its hover, sorted as a loss,
beside a summary that counted it a tie (1/1/1)."""

from __future__ import annotations

import json

import pytest
from conftest import bokeh_documents_idle

from trecbench.cli import run
from trecbench.html_report import page

pytest.importorskip("bokeh")

DATA_TAG = '<script type="application/json" id="report-data">'


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    """Qrels of 3 topics (5 relevant documents each) and runs a and b whose MAP on t1 is
    1/4 on paper, 0.25 and 0.24999999999999994 as floats; t2 and t3 differ."""
    folder = tmp_path_factory.mktemp("paper")
    qrels = [f"{q} 0 r{i} 1\n" for q in ("t1", "t2", "t3") for i in range(5)]
    qrels += [f"{q} 0 n{i} 0\n" for q in ("t1", "t2", "t3") for i in range(20)]
    (folder / "q.qrels").write_text("".join(qrels))

    def ranked(relevant_at: set[int]) -> list[str]:
        docs, found, other = [], 0, 0
        for rank in range(1, 13):
            if rank in relevant_at:
                docs.append(f"r{found}")
                found += 1
            else:
                docs.append(f"n{other}")
                other += 1
        return docs

    runs = {
        "a": {"t1": {1, 8}, "t2": {1, 2}, "t3": {2}},
        "b": {"t1": {3, 8, 9, 12}, "t2": {1}, "t3": {1, 2}},
    }
    for name, topics in runs.items():
        lines = [
            f"{qid} Q0 {doc} {rank} {100 - rank} {name}\n"
            for qid, relevant_at in topics.items()
            for rank, doc in enumerate(ranked(relevant_at), start=1)
        ]
        (folder / f"{name}.run").write_text("".join(lines))
    return folder


def _data(html) -> dict:
    text = html.read_text()
    start = text.index(DATA_TAG) + len(DATA_TAG)
    return json.loads(text[start : text.index("</script>", start)])


def _page(folder, name: str, *more: str):
    html = folder / name
    args = ["score", "-m", "map", str(folder / "q.qrels"), str(folder / "a.run")]
    assert run([*args, str(folder / "b.run"), *more, "--quiet", "--html", str(html)]) == 0
    return html


def test_the_values_differ_in_floats_and_the_statistics_count_a_tie(inputs, capsys):
    data = _data(_page(inputs, "check.html"))
    values = data["values"]["t1"]
    assert values["a"][0] == 0.25 and values["b"][0] == 0.24999999999999994
    assert data["tie_within"] == 64 * 2.0**-52  # of the larger value: 0.25 here
    capsys.readouterr()
    args = ["compare", str(inputs / "q.qrels"), str(inputs / "a.run"), str(inputs / "b.run")]
    assert run([*args, "-m", "MAP", "--samples", "1000", "--format", "json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)["results"][0]["comparisons"]
    assert (row["wins"], row["ties"], row["losses"]) == (1, 1, 1)


def test_the_drawn_figure_shows_the_tie_as_0(inputs):
    text = _page(inputs, "drawn.html").read_text()
    assert '"difference_text",["-0.2000","0.0000","+0.3000"]' in text
    assert "-5.6e-17" not in text.replace("not -5.6e-17", "")  # but numbers.js's comment


def test_the_topics_table_shows_and_sorts_the_tie_as_0(browser, inputs):
    browser.get(_page(inputs, "table.html").as_uri())
    cells = browser.execute_script(
        "return Array.from(document.querySelectorAll('#topic-table tbody tr'), r => [r.dataset."
        "qid, r.cells[3].textContent, r.cells[3].getAttribute('data-sort')])"
    )
    assert [row[:2] for row in cells] == [["t1", "0.0000"], ["t2", "-0.2000"], ["t3", "+0.3000"]]
    assert [float(row[2]) for row in cells] == [0, pytest.approx(-0.2), pytest.approx(0.3)]


# the named source of a later measure's differences (the documents after the first)
SOURCE = """var out = null;
Bokeh.documents.slice(1).forEach(function (doc) { doc.all_models.forEach(function (model) {
  if (model.type === "ColumnDataSource" && model.name === "trecbench-differences-0") {
    out = {qid: Array.from(model.data.qid), difference: Array.from(model.data.difference),
           text: Array.from(model.data.difference_text)};
  } }); });
return JSON.stringify(out);"""


def test_a_later_measures_figure_shows_the_tie_as_0(browser, inputs, monkeypatch):
    from selenium.webdriver.support.ui import Select

    monkeypatch.setattr(page, "FIGURE_MEASURES", 0)  # MAP drawn when chosen, by the script
    browser.get(_page(inputs, "later.html").as_uri())
    Select(browser.find_element("id", "figure-measure")).select_by_visible_text("MAP")
    bokeh_documents_idle(browser, 2)
    points = json.loads(browser.execute_script(SOURCE))
    assert points["qid"] == ["t2", "t1", "t3"]
    assert points["difference"][1] == 0 and points["text"] == ["-0.2000", "0.0000", "+0.3000"]
