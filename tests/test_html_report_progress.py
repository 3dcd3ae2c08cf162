"""The HTML page tells of its making (seconds on 15,000 topics, silent before): a
``progress(label, done, total)`` told each step (each run's drill-down, each figure, the
data and the template) with a total fixed from the start, the page the same with it or
without; ``score --html``, ``compare -o`` and ``benchmark`` draw it as a bar on stderr,
none with ``--quiet``."""

from __future__ import annotations

import re

import pandas as pd
import pytest
from click.testing import CliRunner
from conftest import ROOT

from trecbench.cli import _register, cli
from trecbench.cli import progress as progress_module
from trecbench.comparison import compare, compare_scores
from trecbench.evaluation import evaluate

pytest.importorskip("bokeh")
_register()

QRELS = str(ROOT / "qrels" / "hpo-demo.qrels")
RUNS = [
    str(ROOT / "runs" / f"{name}.run")
    for name in ("tfidf-word", "tfidf-char", "tfidf-word-parents")
]
MEASURES = ["P@5", "map"]
PROGRESS_LABEL = "rendering the page"  # trecbench.html_report.page.PROGRESS_LABEL


def _stable(page: str) -> str:
    """``page`` but for what differs between two makings of it: Bokeh's ids and the date."""
    page = re.sub(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", "ID", page)
    page = re.sub(r'"p\d{4,}"', "ID", page)
    return re.sub(r"created&#34;: &#34;[^&]*&#34;", "DATE", page)


def _checked(told: list[tuple], total: int) -> None:
    """Every call named PROGRESS_LABEL, of one ``total``, from 0 up to it, never back."""
    assert {label for label, _, _ in told} == {PROGRESS_LABEL}
    assert {each for _, _, each in told} == {total}
    done = [done for _, done, _ in told]
    assert done[0] == 0 and done[-1] == total
    assert done == sorted(done) and all(0 <= each <= total for each in done)


def test_the_page_tells_each_step_of_its_making_and_is_the_same():
    comparison = compare(QRELS, RUNS, MEASURES)
    told: list[tuple] = []
    page = comparison.to_html(5, progress=lambda *call: told.append(call))
    # 3 runs: their drill-downs, values and texts; 2 measures: 2 means, 2 differences,
    # the curves, each made and serialised; the data and the template (2 measures + 1
    # each); the one section's tables (all topics)
    _checked(told, 3 * 3 + 2 * 5 + 2 * 3 + 1)
    # a step at a time: the bar moves through the page's making, not in one jump
    assert len({done for _, done, _ in told}) >= 3 + 5 + 2 + 1
    assert _stable(page) == _stable(comparison.to_html(5))


def test_a_page_without_drill_down_or_curves_still_ends_at_its_total():
    frame = pd.DataFrame(
        {
            "run": ["a", "a", "b", "b"],
            "qid": ["1", "2", "1", "2"],
            "measure": ["map"] * 4,
            "value": [0.5, 0.25, 0.75, 0.0],
        }
    )
    comparison = compare_scores(frame)
    told: list[tuple] = []
    page = comparison.to_html(progress=lambda *call: told.append(call))
    # 2 runs, 1 measure: 2 figures and the curves' place (none: counted all the same);
    # the one section
    _checked(told, 3 * 2 + 2 * 3 + 2 * 2 + 1)
    assert _stable(page) == _stable(comparison.to_html())


def test_each_stratum_s_tables_are_a_step_not_the_template_s_one_jump():
    # reviewer 437: a benchmark's page spent a second in its template, most of it on its
    # strata's tables (the means, pairs, movers and ties of each), told as one step
    strata = ROOT / "qrels" / "hpo-demo.sidecar.json"
    comparison = compare(QRELS, RUNS, MEASURES, strata=strata, group_by="language")
    sections = len(comparison.sections)
    assert sections > 2  # all topics, and one per language
    told: list[tuple] = []
    comparison.to_html(5, progress=lambda *call: told.append(call))
    _checked(told, 3 * 3 + 2 * 5 + 2 * 3 + sections)
    done = [done for _, done, _ in told]
    # the data (3 steps), each section (1), the template (3): the bar's last moves
    last = done[-1]
    steps = [last - 3 - sections + each for each in range(sections + 1)]
    assert done[-(sections + 2) :] == [*steps, last]


def test_the_scoring_tells_the_kept_documents_graded_run_by_run():
    told: list[tuple] = []
    evaluate(QRELS, RUNS, MEASURES, drill_depth=5, progress=lambda *call: told.append(call))
    grading = [call[1:] for call in told if call[0] == "grading documents"]
    assert grading == [(done, 3) for done in range(4)]  # after the scoring, a run a step
    assert told[-len(grading) :] == [("grading documents", *call) for call in grading]


@pytest.fixture
def drawn_on_a_terminal(monkeypatch):
    """Progress drawn as on a terminal, every bar at once (no delay)."""
    monkeypatch.setattr(progress_module, "wanted", lambda quiet: not quiet)
    monkeypatch.setattr(progress_module.TaskProgress.__init__, "__defaults__", (None, 0.5, 0, 0))


def _invoke(*argv):
    done = CliRunner().invoke(cli, list(argv), catch_exceptions=False)
    assert done.exit_code == 0, done.output
    return done


def _measures() -> list[str]:
    return [flag for measure in MEASURES for flag in ("-m", measure)]


def test_score_html_draws_the_page_s_making_and_quiet_none(tmp_path, drawn_on_a_terminal):
    shown = _invoke("score", *_measures(), "--html", str(tmp_path / "p.html"), QRELS, *RUNS)
    assert f"{PROGRESS_LABEL}: 100%" in shown.stderr and "steps/s" in shown.stderr
    # the kept documents graded, the page's intervals: seconds each on large runs
    assert "grading documents: 100%" in shown.stderr and "resampling:" in shown.stderr
    assert "%|" not in shown.stdout
    quiet = _invoke(
        "score", *_measures(), "--html", str(tmp_path / "q.html"), "--quiet", QRELS, *RUNS
    )
    assert "%|" not in quiet.stderr and PROGRESS_LABEL not in quiet.stderr
    assert _stable((tmp_path / "p.html").read_text()) == _stable((tmp_path / "q.html").read_text())


def test_compare_draws_report_html_s_making_and_quiet_none(tmp_path, drawn_on_a_terminal):
    shown = _invoke("compare", QRELS, *RUNS, *_measures(), "-o", str(tmp_path / "shown"))
    assert f"{PROGRESS_LABEL}: 100%" in shown.stderr and "%|" not in shown.stdout
    quiet = _invoke("compare", QRELS, *RUNS, *_measures(), "-o", str(tmp_path / "quiet"), "--quiet")
    assert PROGRESS_LABEL not in quiet.stderr and "%|" not in quiet.stderr
    pages = [(tmp_path / name / "report.html").read_text() for name in ("shown", "quiet")]
    assert _stable(pages[0]) == _stable(pages[1])
