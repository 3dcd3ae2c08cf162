"""diff of two reports whose settings differ in what the values beside them do not show:
score's resampling (--seed of --routing's and --html's intervals) and a comparison's
measures."""

from __future__ import annotations

import json

import pytest
from conftest import ROOT, diff_reports

from trecbench.cli import run

QRELS = str(ROOT / "qrels" / "hpo-demo.qrels")
RUN = str(ROOT / "runs" / "tfidf-word.run")


@pytest.fixture
def paged(tmp_path, capsys):
    """A score report of the demo's run written with an --html page drawn with ``seed``
    (none: no page, nothing drawn)."""

    def report(name: str, seed: int | None) -> str:
        path = str(tmp_path / f"{name}.json")
        page = [] if seed is None else ["--html", str(tmp_path / f"{name}.html")]
        seeded = [] if seed is None else ["--seed", str(seed)]
        assert run(["score", "-m", "P.5", *page, *seeded, "--report", path, QRELS, RUN]) == 0
        capsys.readouterr()
        return path

    return report


def test_another_seed_of_the_page_is_an_option(paged, capsys):
    """diff said "the evaluations are the same" of two reports recording seeds 0 and 3."""
    a, b = paged("a", 0), paged("b", 3)
    assert json.loads(open(b).read())["resampling"]["seed"] == 3
    code, out = diff_reports(capsys, a, b)
    assert code == 1
    assert out.splitlines() == [
        "likely cause: the options differ: resampling.seed 0 vs 3",
        "option: resampling.seed 0 -> 3",
    ]
    code, out = diff_reports(capsys, a, b, "--format", "json")
    assert json.loads(out)["options"] == {"resampling.seed": {"a": 0, "b": 3}}


def test_other_resamples_are_an_option(paged, tmp_path, capsys):
    a = paged("a", 0)
    report = json.loads(open(a).read())
    assert report["resampling"]["samples"] == 10000  # score's, as its --seed help says
    report["resampling"]["samples"] = 2000
    fewer = tmp_path / "fewer.json"
    fewer.write_text(json.dumps(report))
    code, out = diff_reports(capsys, a, str(fewer))
    assert code == 1
    cause = "likely cause: the options differ: resampling.samples 10000 vs 2000"
    assert out.splitlines()[0] == cause


def test_the_same_resampling_is_the_same(paged, capsys):
    assert diff_reports(capsys, paged("a", 3), paged("b", 3)) == (
        0,
        "the evaluations are the same\n",
    )
    # a report of a call that drew nothing records no seed: nothing to differ in
    assert diff_reports(capsys, paged("c", None), paged("d", 3))[0] == 0


@pytest.fixture
def compared(tmp_path, capsys):
    """compare's reports (--format json) of the demo's two runs with the measures
    ``measures``."""

    def comparison(name: str, *measures: str) -> str:
        runs = [str(ROOT / "runs" / f"{stem}.run") for stem in ("tfidf-word", "tfidf-char")]
        asked = [arg for measure in measures for arg in ("-m", measure)]
        assert run(["compare", QRELS, *runs, *asked, "--format", "json"]) == 0
        path = tmp_path / f"{name}.json"
        path.write_text(capsys.readouterr().out)
        return str(path)

    return comparison


def test_a_comparisons_measures_are_named_not_its_options(compared, tmp_path, capsys):
    """diff said "the options differ: better {...} vs {...}" of compare -m P.5 against
    five measures: settings.better holds a direction per measure."""
    a = compared("a", "P.5", "map", "ndcg", "recip_rank", "P.10")
    b = compared("b", "P.5")
    asked = json.loads(open(a).read())["settings"]["measures"]
    (shared,) = json.loads(open(b).read())["settings"]["measures"]
    only = [measure for measure in asked if measure != shared]
    assert len(asked) == 5 and len(only) == 4
    code, out = diff_reports(capsys, a, b)
    assert code == 1
    lines = out.splitlines()
    cause = f"the measures asked for differ: {', '.join(only[:3])} and 1 more only in {a}"
    assert lines[0] == f"likely cause: {cause}"
    assert not any(line.startswith("option:") for line in lines)
    # the direction of a measure both asked for is still an option
    report = json.loads(open(b).read())
    report["settings"]["better"][shared] = "lower"
    lower = tmp_path / "lower.json"
    lower.write_text(json.dumps(report))
    code, out = diff_reports(capsys, a, str(lower))
    better = f'option: better {{"{shared}": "higher"}} -> {{"{shared}": "lower"}}'
    assert code == 1 and better in out.splitlines()


def test_another_seed_of_the_routing_metrics_is_named_once(tmp_path, capsys):
    """score --seed with --routing records the seed twice, the routing metrics' settings'
    and the resampling block's: diff named the one change twice, routing.seed and
    resampling.seed; it is named by the block score's --seed writes."""
    rtask = ROOT / "data" / "hpo-rtask"
    reports = []
    for seed in (0, 3):
        path = str(tmp_path / f"seed{seed}.json")
        routing = ["--routing", str(rtask / "routing.jsonl"), "--seed", str(seed)]
        inputs = [str(rtask / "hpo-rtask.qrels"), str(rtask / "lexical.run")]
        assert run(["score", "--report", path, *routing, *inputs]) == 0
        capsys.readouterr()
        reports.append(path)
    assert json.loads(open(reports[1]).read())["routing"]["settings"]["seed"] == 3
    code, out = diff_reports(capsys, *reports)
    assert (code, out.splitlines()) == (
        1,
        [
            "likely cause: the options differ: resampling.seed 0 vs 3",
            "option: resampling.seed 0 -> 3",
        ],
    )
    code, out = diff_reports(capsys, *reports, "--format", "json")
    assert json.loads(out)["options"] == {"resampling.seed": {"a": 0, "b": 3}}


def test_an_alias_of_the_maxontsim_formula_is_no_option_change(tmp_path, capsys):
    """--maxontsim-formula complex (an alias of the default, hybrid) was named a changed
    option (exit 1) beside a report with the default; another formula still is."""
    from test_ontology import OBO

    (tmp_path / "hp.obo").write_text(OBO)
    (tmp_path / "q").write_text("1 0 HP:0000004 1\n2 0 HP:0000003 1\n")
    (tmp_path / "a.run").write_text("1 Q0 HP:0000006 1 0.9 t\n2 Q0 HP:0000002 1 0.9 t\n")
    files = [str(tmp_path / name) for name in ("q", "a.run")]
    reports = {}
    for formula in (None, "complex", "simple_resnik_like"):
        path = reports[formula] = str(tmp_path / f"{formula}.json")
        chosen = [] if formula is None else ["--maxontsim-formula", formula]
        options = ["-m", "MaxOntSim@5", "--ontology", str(tmp_path / "hp.obo"), *chosen]
        assert run(["score", *options, "--report", path, *files]) == 0
    capsys.readouterr()
    assert diff_reports(capsys, reports[None], reports["complex"]) == (
        0,
        "the evaluations are the same\n",
    )
    code, out = diff_reports(capsys, reports["complex"], reports["simple_resnik_like"])
    assert code == 1 and 'option: maxontsim_formula "complex" -> "simple_resnik_like"' in out
