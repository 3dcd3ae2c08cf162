"""score -m all_trec --html: a later measure's figures (drawn when the page's selector
chooses one) are a template of each kind filled in by the page's script from the numbers
the page holds, not ~160 figures made and serialised in Python (issue 31). Drawn, they
show the per-topic values trec_eval prints."""

from __future__ import annotations

import json
import os
import subprocess

import pytest
from conftest import bokeh_documents_idle, graded_runs

from trecbench.cli import run
from trecbench.html_report import figures, page

pytest.importorskip("bokeh")

TREC_EVAL = "/work/tools/te908/trec_eval"  # trec_eval 9.0.8, the reference
DATA_TAG = '<script type="application/json" id="report-data">'
MEASURE = "P@5"  # trec_eval's P_5, past the first FIGURE_MEASURES of all_trec: drawn when chosen


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    """2 runs over 4 topics whose P_5 differ by topic (graded 0-2, a relevant at 1 and 2)."""
    return graded_runs(tmp_path_factory.mktemp("later"), 2)


def _page(folder, qrels, runs, name="all.html"):
    html = folder / name
    args = ["score", "-m", "all_trec", str(qrels), *map(str, runs), "--html", str(html)]
    assert run([*args, "--quiet"]) == 0
    return html


def test_later_measures_figures_are_not_made_in_python(inputs, tmp_path, monkeypatch):
    # each of all_trec's 80 later measures made two Bokeh figures and serialised them: the
    # page's making now makes the drawn ones and one template of each kind
    made = []
    for name in ("means_figure", "differences_figure"):
        original = getattr(figures, name)
        monkeypatch.setattr(
            figures, name, lambda *a, _f=original, **k: made.append(1) or _f(*a, **k)
        )
    html = _page(tmp_path, *inputs)
    assert len(made) == 2 * (page.FIGURE_MEASURES + 1)
    text = html.read_text()
    # the page's Bokeh JSON: the drawn figures' and the two templates' only
    assert text.count('"name":"Figure"') == 2 * page.FIGURE_MEASURES + 1 + 2


def _trec_eval(qrels, ranked) -> dict[str, str]:
    """trec_eval -q's P_5 per topic (and all), as it prints it."""
    out = subprocess.run(
        [TREC_EVAL, "-q", "-m", "P.5", str(qrels), str(ranked)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return {qid: value for _, qid, value in (line.split() for line in out.splitlines())}


# the named sources of the chosen measure's figures (the documents after the first, the
# figures drawn at open)
SOURCES = """var out = {};
Bokeh.documents.slice(1).forEach(function (doc) { doc.all_models.forEach(function (model) {
  if (model.type === "ColumnDataSource" && /^trecbench-(means|differences-)/.test(model.name)) {
    var columns = {};
    Object.keys(model.data).forEach(function (k) { columns[k] = Array.from(model.data[k]); });
    out[model.name] = columns;
  } }); });
return JSON.stringify(out);"""


@pytest.mark.skipif(not os.path.exists(TREC_EVAL), reason="needs trec_eval 9.0.8")
def test_a_later_measures_figures_show_its_per_topic_values(browser, inputs, tmp_path):
    from selenium.webdriver.support.ui import Select

    qrels, runs = inputs
    html = _page(tmp_path, qrels, runs)
    text = html.read_text()
    start = text.index(DATA_TAG) + len(DATA_TAG)
    data = json.loads(text[start : text.index("</script>", start)])
    assert data["measures"].index(MEASURE) >= page.FIGURE_MEASURES
    browser.get(html.as_uri())
    Select(browser.find_element("id", "figure-measure")).select_by_visible_text(MEASURE)
    bokeh_documents_idle(browser, 3)
    sources = json.loads(browser.execute_script(SOURCES))
    assert set(sources) == {"trecbench-means", "trecbench-differences-0"}
    base, other = (_trec_eval(qrels, ranked) for ranked in runs)
    assert len(set(other.values()) - {other["all"]}) > 1  # P_5 differs by topic
    points = sources["trecbench-differences-0"]
    topics = sorted(qid for qid in base if qid != "all")
    assert sorted(points["qid"]) == topics and points["x"] == [1, 2, 3, 4]
    for at, qid in enumerate(points["qid"]):
        assert points["value_text"][at] == other[qid]  # trec_eval's text
        assert points["base_text"][at] == base[qid]
        place = data["measures"].index(MEASURE)  # each run's values in the measures' order
        assert points["value"][at] == data["values"][qid]["r1"][place]  # the report's
        assert points["base"][at] == data["values"][qid]["r0"][place]
        assert points["difference"][at] == points["value"][at] - points["base"][at]
        assert points["run"][at] == "r1"
    assert points["difference"] == sorted(points["difference"])
    means = sources["trecbench-means"]
    assert means["run"] == ["r0", "r1"] and means["mean_text"] == [base["all"], other["all"]]
    shown = "return Array.from(document.querySelectorAll('.figure')).filter(f => !f.hidden).length"
    assert browser.execute_script(shown) == 2 * page.FIGURE_MEASURES + 1 + 2
