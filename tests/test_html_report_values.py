"""The page's per-topic values, embedded compactly: per topic and run an array of numbers
in the order of the data's measure list, the list given once (as ``{measure: value}`` per
cell, 2,000 topics of 30 runs and all_trec's measures embedded 68 MB of repeated measure
names). Read from that layout, the page shows the numbers trec_eval -q prints."""

from __future__ import annotations

import json
import os
import subprocess

import pytest
from conftest import graded_runs

from trecbench.cli import run

pytest.importorskip("bokeh")

TREC_EVAL = "/work/tools/te908/trec_eval"  # trec_eval 9.0.8, the reference
DATA_TAG = '<script type="application/json" id="report-data">'
# the page's name of each measure -> trec_eval's
NAMES = {"MAP": "map", "bpref": "bpref", "recip_rank": "recip_rank", "P@5": "P_5", "nDCG": "ndcg"}
MEASURES = ["-m", "map", "-m", "bpref", "-m", "recip_rank", "-m", "P.5", "-m", "ndcg"]
needs_trec_eval = pytest.mark.skipif(not os.path.exists(TREC_EVAL), reason="needs trec_eval")


@pytest.fixture(scope="module")
def scored(tmp_path_factory):
    """``(page, data, {run: {qid: {trec_eval measure: text}}})``: 3 runs over 4 topics whose
    five measures differ from one another on most topics (graded 0-2, a relevant at 1, 2)."""
    folder = tmp_path_factory.mktemp("values")
    qrels, runs = graded_runs(folder, 3)
    page = folder / "values.html"
    args = ["score", *MEASURES, str(qrels), *map(str, runs), "--html", str(page)]
    assert run([*args, "--quiet"]) == 0
    text = page.read_text()
    start = text.index(DATA_TAG) + len(DATA_TAG)
    data = json.loads(text[start : text.index("</script>", start)])
    expected = {}
    if os.path.exists(TREC_EVAL):
        for index, ranked in enumerate(runs):
            out = subprocess.run(
                [TREC_EVAL, "-q", *MEASURES, str(qrels), str(ranked)],
                capture_output=True,
                text=True,
                check=True,
            ).stdout
            by_topic: dict[str, dict[str, str]] = {}
            for line in out.splitlines():
                measure, qid, value = line.split()
                by_topic.setdefault(qid, {})[measure] = value
            expected[f"r{index}"] = by_topic
    return page, data, expected


@needs_trec_eval
def test_each_runs_values_are_an_array_in_the_order_of_the_measure_list(scored):
    _, data, expected = scored
    assert sorted(data["measures"]) == sorted(NAMES)
    assert data["runs"] == ["r0", "r1", "r2"] and data["topics"] == ["t0", "t1", "t2", "t3"]
    for qid in data["topics"]:
        for name in data["runs"]:
            values = data["values"][qid][name]
            assert isinstance(values, list) and len(values) == len(data["measures"])
            shown = [f"{value:.4f}" for value in values]
            assert shown == [expected[name][qid][NAMES[m]] for m in data["measures"]], qid
    # the measures differ on a topic: an array in another order would not match
    assert len(set(data["values"]["t0"]["r0"])) == len(NAMES)


@needs_trec_eval
def test_the_page_shows_each_measures_per_topic_values_as_trec_eval_prints_them(browser, scored):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    page, data, expected = scored
    runs = data["runs"]
    browser.get(page.as_uri())
    # the page's script reads arrays: a run's values on a topic, one per measure
    layout = """var data = JSON.parse(document.getElementById("report-data").textContent);
    return data.topics.every(function (qid) { return data.runs.every(function (run) {
      var row = data.values[qid][run];
      return Array.isArray(row) && row.length === data.measures.length; }); });"""
    assert browser.execute_script(layout) is True
    for measure in data["measures"]:  # the topics table, each measure chosen in turn
        Select(browser.find_element(By.ID, "topic-measure")).select_by_visible_text(measure)
        for row in browser.find_elements(By.CSS_SELECTOR, "#topic-table tbody tr"):
            qid, cells = row.get_attribute("data-qid"), row.find_elements(By.TAG_NAME, "td")
            shown = [cell.text for cell in cells[1 : 1 + len(runs)]]
            assert shown == [expected[name][qid][NAMES[measure]] for name in runs], measure
    for qid in data["topics"]:  # a topic's drill-down: a row per measure, a column per run
        buttons = browser.find_elements(By.CSS_SELECTOR, "#topic-table button.topic")
        next(button for button in buttons if button.text == qid).click()
        table = browser.find_element(By.ID, "drilldown").find_elements(By.TAG_NAME, "table")[0]
        rows = [
            [cell.text for cell in row.find_elements(By.TAG_NAME, "td")]
            for row in table.find_elements(By.TAG_NAME, "tr")[1:]
        ]
        assert rows == [
            [measure, *(expected[name][qid][NAMES[measure]] for name in runs)]
            for measure in data["measures"]
        ], qid
    errors = [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]
    assert errors == []
