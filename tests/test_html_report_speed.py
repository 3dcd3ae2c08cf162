"""report.html built in time linear in topics with a small fixed cost (issue 31.4): the
drill-down's documents and the per-topic values are built one Python step per topic (not
per document), the collector paused meanwhile, the Bokeh document walked once. The page
itself is unchanged: these pin what the faster code must still give (grades, unjudged
as None, the order of first appearance, ids with any character)."""

from __future__ import annotations

import ast
import gc
import json
from types import SimpleNamespace

import pandas as pd
import pyarrow as pa
import pytest

from trecbench import collector
from trecbench.html_report import documents, page

ODD = "a\x01b"  # an id with a control character: never split or joined on one


def _run(rows):
    qid, docno, score = zip(*rows, strict=True)
    return pa.table({"qid": list(qid), "docno": list(docno), "score": list(score)})


def test_top_documents_give_grades_order_and_depth_as_the_page_shows_them():
    qrels = pa.table(
        {
            "qid": ["1", "1", "2", ODD],
            "docno": ["d2", "d1", "d9", ODD],
            "rel": [0, 3, 2, 1],  # d1 of topic 2 unjudged: None
        }
    )
    runs = {
        "A": _run(
            [
                ("2", "d9", 5.0),
                ("2", "d1", 4.0),
                ("1", "d1", 2.5),
                ("1", "d2", 2.0),
                ("1", "d3", 1.0),
            ]
        ),  # fmt: skip
        "B": _run([(ODD, ODD, 1.0), ("1", "d3", 7.0)]),
    }
    judged = dict.fromkeys(runs, qrels)
    shown, curves = documents.drill_down(runs, {}, judged, 2, {})
    assert shown == {  # tables hold numbers: each score as Python writes the double
        "1": {"A": [["d1", "2.5", 3], ["d2", "2.0", 0]], "B": [["d3", "7.0", None]]},
        "2": {"A": [["d9", "5.0", 2], ["d1", "4.0", None]]},
        ODD: {"B": [[ODD, "1.0", 1]]},
    }
    # the JSON the page embeds keeps this order (topics as they first appear)
    assert list(json.loads(json.dumps(shown))) == ["1", "2", ODD]
    assert documents.drill_down(runs, {}, judged, 0, {}) == ({}, curves)


def test_topic_values_merge_rows_of_a_run_and_topic_wherever_they_are():
    frame = pd.DataFrame(
        {
            "run": ["A", "A", "B", "A", "A", ODD, "A"],
            "qid": ["1", "1", "1", "1", ODD, "1", "1"],
            "measure": ["P@5", "MAP", "P@5", "P@5", "MAP", "MAP", "unlisted"],
            "value": [0.5, 0.25, 1.0, 0.75, 0.125, 0.0, 0.5],
        }
    )
    comparison = SimpleNamespace(per_query=frame, measures=["MAP", "P@5"])
    values = page._topic_values(comparison)
    # per run an array in the measures' order, None where it has no value; A's P@5 on
    # topic 1 listed twice: the last value; a measure the page does not list left out
    assert values == {
        "1": {"A": [0.25, 0.75], "B": [None, 1.0], ODD: [0.0, None]},
        ODD: {"A": [0.125, None]},
    }
    assert list(values) == ["1", ODD] and list(values["1"]) == ["A", "B", ODD]


def test_the_figures_document_is_walked_once_not_once_per_figure(monkeypatch):
    pytest.importorskip("bokeh")
    from bokeh.document.models import DocumentModelManager
    from bokeh.embed import components

    from trecbench.html_report import figures

    rows = [{"run": r, "mean": 0.5, "ci_low": 0.4, "ci_high": 0.6} for r in ("a", "b")]
    plots = [figures.means_figure(f"m{i}", rows) for i in range(8)]
    walks = []
    original = DocumentModelManager.recompute
    monkeypatch.setattr(
        DocumentModelManager, "recompute", lambda self: walks.append(1) or original(self)
    )
    script, divs = components(figures.rooted(plots))
    assert len(divs) == 8 and len(walks) == 1  # one walk per figure added: 8


def test_the_page_is_built_with_the_collector_paused_and_resumed_after(monkeypatch):
    states = []

    def recording(comparison):
        states.append(gc.isenabled())
        raise RuntimeError("stop here")

    monkeypatch.setattr(page, "_topic_values", recording)
    assert gc.isenabled()
    with pytest.raises(RuntimeError):
        # its runs, measures and sections: the total of the page's progress, counted first
        page.comparison_html(SimpleNamespace(runs=["a"], measures=["m"], sections=[]))
    assert states == [False] and gc.isenabled()


def test_paused_leaves_a_collector_disabled_by_the_caller_disabled():
    gc.disable()
    try:
        with collector.paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        gc.enable()
    with collector.paused():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_the_drill_down_reads_one_run_at_a_time_and_gives_what_the_scoring_kept(monkeypatch):
    import weakref

    from conftest import ROOT

    from trecbench.evaluation import evaluate
    from trecbench.inputs import load_qrels

    qrels = load_qrels(str(ROOT / "qrels" / "hpo-demo.qrels")).table
    runs = {name: str(ROOT / "runs" / f"{name}.run") for name in ("tfidf-word", "tfidf-char")}
    options = {"relevance_level": 1}
    scored = evaluate(qrels, runs, ["P.5"], drill_depth=5, **options).runs
    expected = documents.from_kept({run.name: run.drill_down for run in scored}, 5)
    alive, most = [], []
    read = documents._ranked

    def watched(source, records, options):
        table = read(source, records, options)
        alive.append(weakref.ref(table))
        most.append(sum(ref() is not None for ref in alive))
        return table

    monkeypatch.setattr(documents, "_ranked", watched)
    shown = documents.drill_down(runs, {}, dict.fromkeys(runs, qrels), 5, options)
    assert shown == expected and list(shown[0]) == list(expected[0])
    assert most == [1, 1]  # the first run's table was let go before the second was read


def test_topic_ids_and_run_names_are_serialised_in_one_step_as_the_same_list(monkeypatch):
    pytest.importorskip("bokeh")
    from bokeh.core.serialization import Serializer
    from bokeh.embed import components

    from trecbench.html_report import figures

    texts = ["1", ODD, "é", ""]
    assert Serializer().encode(figures._texts(texts)) == Serializer().encode(texts) == texts
    mixed = figures._texts(["1", float("nan")])  # not all strings: Bokeh's own way
    assert Serializer().encode(mixed) == Serializer().encode(["1", float("nan")])

    points = [(str(q), q / 3000, 0.5) for q in range(3000)]
    plot = figures.differences_figure("P@5", "base", {"a": points, "b": points})
    visits = []
    encode = Serializer.encode
    monkeypatch.setattr(Serializer, "encode", lambda self, o: visits.append(1) or encode(self, o))
    components([plot])
    assert len(visits) < 3000  # one visit per id and per run name: over 12,000


def _calls_of(module: str, tree: ast.AST, own: bool) -> set[str]:
    """The names ``tree`` takes from ``module`` (``documents.f``, ``from .documents import
    f``), and with ``own`` (``tree`` is the module) every name it reads."""
    used = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            used |= {node.attr} if node.value.id == module else set()
        elif isinstance(node, ast.ImportFrom) and (node.module or "").endswith(module):
            used |= {alias.name for alias in node.names}
        elif own and isinstance(node, ast.Name):
            used.add(node.id)
    return used


def test_every_public_function_of_the_page_is_one_the_package_calls():
    """ranked_runs and top_documents (every run ranked at once, then their top documents)
    were left beside drill_down, which reads one run at a time, and only a test called
    them."""
    from conftest import ROOT

    package = ROOT / "trecbench"
    trees = {path: ast.parse(path.read_text(encoding="utf-8")) for path in package.rglob("*.py")}
    unused = []
    for path in sorted((package / "html_report").glob("*.py")):
        used = set().union(
            *(_calls_of(path.stem, tree, other == path) for other, tree in trees.items())
        )
        unused += [
            f"{path.name}: {node.name}"
            for node in trees[path].body
            if isinstance(node, ast.FunctionDef)
            and not node.name.startswith("_")
            and node.name not in used
        ]
    assert unused == []
