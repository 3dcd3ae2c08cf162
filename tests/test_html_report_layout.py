"""report.html with hostile names, in headless Chromium: a long baseline name folds the
differences' title within its canvas, and the means' axis never writes two runs' names
alike."""

from __future__ import annotations

import re

import pytest
from test_html_report import _drawn

from trecbench.cli import run

pytest.importorskip("bokeh")

# each figure's title, where its text starts and how wide it is drawn, and its canvas's width
TITLES = """
return Object.values(Bokeh.index).filter(function (view) {
  return view.model.type === "Figure"; }).map(function (plot) {
  var title = plot.computed_renderer_views.find(function (view) {
    return view.model.type === "Title"; });
  return [plot.model.title.text, title._rect.sx, title._rect.width, plot.bbox.width];
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


def test_the_means_axis_never_writes_two_runs_names_alike():
    # both were "msmarco-v2-passage.bm25-rm…base.top100": the middle left out held the
    # only difference
    from trecbench.html_report import figures

    pair = [
        "msmarco-v2-passage.bm25-rm3.fb10-terms20.monot5-base.top100",
        "msmarco-v2-passage.bm25-rm3.fb20-terms10.monot5-base.top100",
    ]
    rows = [{"run": name, "mean": 0.5, "ci_low": 0.4, "ci_high": 0.6} for name in pair]
    shown = figures.means_figure("P@10", rows).yaxis[0].major_label_overrides
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
