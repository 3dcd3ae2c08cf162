"""The topics table at scale: 5,000 topics of 20 runs drawn whole were 195,000 cells, and
each change of measure rebuilt them all (19 s, 12 of them the browser's layout), each
sort moved them all, and the sort was lost. The page now draws a page of rows at a time,
builds a measure's rows once, and sorts and searches over every topic, a sort kept across
a change of measure."""

from __future__ import annotations

import pytest

from trecbench.cli import run

pytest.importorskip("bokeh")

TOPICS, PAGE = 250, 100  # PAGE: the page's script's
QIDS = [f"t{i:03d}" for i in range(TOPICS)]
SHOWN_QIDS = (
    "return Array.from(document.querySelectorAll('#topic-table tbody tr'),"
    " r => r.getAttribute('data-qid'))"
)
SHOWN_KEYS = (
    "return Array.from(document.querySelectorAll('#topic-table tbody tr'),"
    " r => r.cells[arguments[0]].getAttribute('data-sort'))"
)


@pytest.fixture(scope="module")
def topics_page(tmp_path_factory):
    """score --html of three runs over 250 topics, their values of P@10 and MAP varied:
    topic i's 10 relevant documents, run r ranking (i * (r + 3)) % 11 of them first (and
    none of them for t007: a topic with a run's value 0)."""
    folder = tmp_path_factory.mktemp("topics")
    qrels = [f"{q} 0 R{j} 1\n" for q in QIDS for j in range(10)]
    (folder / "q").write_text("".join(qrels))
    runs = []
    for r in range(3):
        lines = []
        for i, q in enumerate(QIDS):
            hits = (i * (r + 3)) % 11
            docs = [f"R{j}" for j in range(hits)] + [f"N{j}" for j in range(12 - hits)]
            lines += [f"{q} Q0 {d} {k + 1} {100 - k} r{r}\n" for k, d in enumerate(docs)]
        (folder / f"r{r}.run").write_text("".join(lines))
        runs.append(str(folder / f"r{r}.run"))
    page = folder / "t.html"
    args = ["score", "-m", "P.10", "-m", "map", str(folder / "q"), *runs, "--quiet"]
    assert run([*args, "--html", str(page)]) == 0
    return page


def _every_page(browser, script, *arguments) -> list:
    """``script``'s list on each page of the table, from the first, joined."""
    from selenium.webdriver.common.by import By

    while not browser.find_element(By.ID, "topic-previous").get_attribute("disabled"):
        browser.find_element(By.ID, "topic-previous").click()
    shown = browser.execute_script(script, *arguments)
    while not browser.find_element(By.ID, "topic-next").get_attribute("disabled"):
        browser.find_element(By.ID, "topic-next").click()
        shown += browser.execute_script(script, *arguments)
    return shown


def test_the_table_draws_a_page_of_topics_and_turns_through_all(browser, topics_page):
    from selenium.webdriver.common.by import By

    browser.get(topics_page.as_uri())
    cells = browser.execute_script("return document.querySelectorAll('#topic-table td').length")
    assert cells == PAGE * (1 + 3 + 2)  # the topic, three runs, two differences
    status = browser.find_element(By.ID, "topic-shown")
    assert status.text == "Topics 1\u2013100 of 250"
    assert browser.execute_script(SHOWN_QIDS) == QIDS[:PAGE]
    browser.find_element(By.ID, "topic-next").click()
    assert status.text == "Topics 101\u2013200 of 250"
    assert _every_page(browser, SHOWN_QIDS) == QIDS  # in the ids' order, each once


def test_a_search_and_a_sort_are_over_every_topic(browser, topics_page):
    from selenium.webdriver.common.by import By

    browser.get(topics_page.as_uri())
    search = browser.find_element(By.ID, "topic-search")
    search.send_keys("t24")  # on the last page
    assert browser.execute_script(SHOWN_QIDS) == [f"t24{i}" for i in range(10)]
    assert browser.find_element(By.ID, "topic-shown").text == "Topics 1\u201310 of 10 found"
    search.clear()
    browser.execute_script("arguments[0].dispatchEvent(new Event('input'))", search)
    assert len(_every_page(browser, SHOWN_QIDS)) == TOPICS
    header = browser.find_elements(By.CSS_SELECTOR, "#topic-table thead th")[2]  # r1
    header.click()
    keys = [float(key) for key in _every_page(browser, SHOWN_KEYS, 2)]
    assert len(keys) == TOPICS and keys == sorted(keys)
    header.click()
    keys = [float(key) for key in _every_page(browser, SHOWN_KEYS, 2)]
    assert keys == sorted(keys, reverse=True) and header.get_attribute("aria-sort") == "descending"


def test_a_sort_holds_across_a_change_of_measure_and_rows_are_built_once(browser, topics_page):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    browser.get(topics_page.as_uri())
    measure = Select(browser.find_element(By.ID, "topic-measure"))
    first = browser.execute_script("return document.querySelector('#topic-table tbody tr')")
    header = browser.find_elements(By.CSS_SELECTOR, "#topic-table thead th")[4]  # r1 - r0
    header.click()
    measure.select_by_index(1)
    header = browser.find_elements(By.CSS_SELECTOR, "#topic-table thead th")[4]
    assert header.get_attribute("aria-sort") == "ascending"
    keys = [float(key) for key in _every_page(browser, SHOWN_KEYS, 4)]
    assert len(keys) == TOPICS and keys == sorted(keys)
    # the first measure's rows again: the elements made for them, not new ones
    measure.select_by_index(0)
    header.click()  # descending
    header.click()  # ascending
    header = browser.find_elements(By.CSS_SELECTOR, "#topic-table thead th")[0]
    header.click()  # by topic: t000 first, as at load
    same = browser.execute_script(
        "return document.querySelector('#topic-table tbody tr') === arguments[0]", first
    )
    assert same


def test_the_focus_stays_in_the_pager_when_its_button_is_disabled(browser, topics_page):
    """Enter on Next reaching the last page disabled the focused button, and the focus fell
    to <body> (a keyboard's user back at the page's start): it goes to Previous, and from
    Previous reaching the first page to Next."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    def focused() -> str:
        return browser.execute_script(
            "return document.activeElement.id || document.activeElement.tagName"
        )

    browser.get(topics_page.as_uri())
    browser.execute_script("document.getElementById('topic-next').focus()")
    ActionChains(browser).send_keys(Keys.ENTER).perform()
    assert focused() == "topic-next"  # page 2 of 3: Next still enabled
    ActionChains(browser).send_keys(Keys.ENTER).perform()
    assert browser.execute_script(SHOWN_QIDS)[0] == QIDS[200]
    assert focused() == "topic-previous"
    ActionChains(browser).send_keys(Keys.ENTER).send_keys(Keys.SPACE).perform()
    assert browser.execute_script(SHOWN_QIDS)[0] == QIDS[0]
    assert focused() == "topic-next"


def test_a_search_finding_no_topic_says_so_when_the_topics_fit_one_page(browser, tmp_path):
    """The pager, which holds "No topic found", was hidden whenever the topics fit one page:
    a search of a 100-topic page that found none showed an empty table and said nothing."""
    from selenium.webdriver.common.by import By

    (tmp_path / "q").write_text("".join(f"{q} 0 R0 1\n" for q in QIDS[:3]))
    (tmp_path / "r.run").write_text("".join(f"{q} Q0 R0 1 1 r\n" for q in QIDS[:3]))
    page = tmp_path / "small.html"
    args = ["score", "-m", "map", str(tmp_path / "q"), str(tmp_path / "r.run"), "--quiet"]
    assert run([*args, "--html", str(page)]) == 0
    browser.get(page.as_uri())
    pager, search = (
        browser.find_element(By.ID, "topic-pages"),
        browser.find_element(By.ID, "topic-search"),
    )
    assert not pager.is_displayed()  # three topics: no page to turn to
    search.send_keys("zzz")
    assert browser.execute_script(SHOWN_QIDS) == []
    assert pager.is_displayed() and pager.text == "No topic found"  # no button to turn
    search.clear()
    search.send_keys("t00")
    assert len(browser.execute_script(SHOWN_QIDS)) == 3 and not pager.is_displayed()


def test_a_topic_without_a_relevant_document_is_marked_and_none_reads_n_a(browser, tmp_path):
    # the text tables warn of such topics in a line; the page's rows bore no mark
    from selenium.webdriver.common.by import By

    (tmp_path / "q").write_text("1 0 a 1\n1 0 b 0\n2 0 c 0\n3 0 e 1\n")
    (tmp_path / "x.run").write_text("1 Q0 a 1 2 x\n1 Q0 b 2 1 x\n2 Q0 c 1 1 x\n3 Q0 e 1 1 x\n")
    (tmp_path / "y.run").write_text("1 Q0 b 1 2 y\n1 Q0 a 2 1 y\n2 Q0 c 1 1 y\n3 Q0 e 1 1 y\n")
    runs = [str(tmp_path / f"{name}.run") for name in "xy"]
    args = ["compare", str(tmp_path / "q"), *runs, "-m", "P.1", "-o", str(tmp_path / "out")]
    assert run([*args, "--quiet"]) == 0
    browser.get((tmp_path / "out" / "report.html").as_uri())
    marked = browser.execute_script(
        "return Array.from(document.querySelectorAll('#topic-table tbody tr'),"
        " r => [r.getAttribute('data-qid'), r.className, r.title])"
    )
    # the header's line, in every command's words (without_relevant_warning), where the
    # page said "1 topic(s) with no relevant document in the qrels" in words of its own
    said = (
        f"{tmp_path / 'q'}: 1 topic without a relevant document (grade >= 1): the measures "
        "of relevant documents are 0 there for every run, and the topics count: 2"
    )
    assert [(qid, cls) for qid, cls, _ in marked] == [("1", ""), ("2", "scoreless"), ("3", "")]
    assert marked[1][2] == said and not marked[0][2]
    legend = browser.find_element(By.ID, "topic-scoreless")
    assert legend.is_displayed() and legend.text == f"\u2020 {said}"
    assert said in browser.find_element(By.TAG_NAME, "body").text  # the header's line


def test_no_value_reads_n_a_in_the_topics_table_as_in_the_figures_tables(browser, topics_page):
    # the topics table and an open topic's values wrote no value blank, the figures' n/a
    browser.get(topics_page.as_uri())
    numbers = "return [window.trecbenchNumbers.fixed(null), window.trecbenchNumbers.signed(null)]"
    assert browser.execute_script(numbers) == ["n/a", "n/a"]


def test_a_topic_without_a_relevant_document_is_named_as_the_topics_are(tmp_path):
    # the page escaped those topics twice (50% as 50%2525 beside the topics' 50%25): the
    # row of such an id, or of one written right to left, bore no mark
    import json
    from urllib.parse import unquote

    qids = ["50%", "\u05d01", "t"]  # the second: Hebrew's alef, written right to left
    grades = "".join(f"{q} 0 a {int(q == 't')}\n" for q in qids)
    (tmp_path / "q").write_text(grades, encoding="utf-8")
    for name in "xy":
        (tmp_path / f"{name}.run").write_text(
            "".join(f"{q} Q0 a 1 1 {name}\n" for q in qids), encoding="utf-8"
        )
    runs = [str(tmp_path / f"{name}.run") for name in "xy"]
    args = ["compare", str(tmp_path / "q"), *runs, "-m", "P.1", "-o", str(tmp_path / "out")]
    assert run([*args, "--samples", "40", "--quiet"]) == 0
    page = (tmp_path / "out" / "report.html").read_text(encoding="utf-8")
    tag = '<script type="application/json" id="report-data">'
    start = page.index(tag) + len(tag)
    data = json.loads(page[start : page.index("</script>", start)])
    assert data["scoreless"] == ["50%25", "\u2068\u05d01\u2069"]
    assert set(data["scoreless"]) <= set(data["topics"])
    assert [unquote(qid.strip("\u2068\u2069")) for qid in data["scoreless"]] == qids[:2]
