"""``score --seed``: the seed of the intervals --routing and --html draw (each was drawn
from a fixed seed 0 that no option changed), recorded in --report where anything random
is drawn, and refused where nothing is, as fuse refuses --seed without --optimize."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from conftest import ROOT

from trecbench.cli import _register, cli, run
from trecbench.report import validate_against_schema
from trecbench.routing import routing_metrics

DEMO = ROOT / "data" / "hpo-rtask"


def _score(*args: str):
    _register()
    return CliRunner().invoke(
        cli, ["score", str(DEMO / "hpo-rtask.qrels"), str(DEMO / "lexical.run"), *args]
    )


def test_routing_draws_its_intervals_from_the_seed_given(tmp_path):
    report = tmp_path / "r.json"
    log = DEMO / "routing.jsonl"
    result = _score(
        "--routing", str(log), "--seed", "2", "--format", "table", "--report", str(report)
    )
    assert result.exit_code == 0, result.output
    assert "10,000 resamples, seed 2\n" in result.stdout
    document = json.loads(report.read_text())
    validate_against_schema(document, "evaluation_report")
    assert document["routing"] == routing_metrics(log, seed=2) | {"log": str(log)}
    # the seed moves an interval (0.633 to 0.933 here; seed 0's low end is 0.667)
    assert document["routing"]["routing_accuracy"] != routing_metrics(log)["routing_accuracy"]
    assert document["resampling"] == {"seed": 2, "samples": 10_000, "drawn_for": ["routing"]}


def test_a_report_of_nothing_random_records_no_seed(tmp_path):
    report = tmp_path / "r.json"
    result = _score("--report", str(report), "-m", "P.5")
    assert result.exit_code == 0, result.output
    assert "resampling" not in json.loads(report.read_text())


def _refused(capsys, *args: str) -> str:
    given = [str(DEMO / "hpo-rtask.qrels"), str(DEMO / "lexical.run"), *args]
    code = run(["score", *given])
    out, err = capsys.readouterr()
    assert code != 0
    assert out == ""
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    return err


@pytest.mark.parametrize("seed", ["1", "0"])
def test_seed_without_anything_random_is_refused(seed, capsys):
    err = _refused(capsys, "--seed", seed, "-m", "P.5")
    assert (
        err == "trecbench: --seed seeds the intervals of --routing and --html: give one of them\n"
    )


def test_a_negative_seed_is_refused_as_compare_refuses_it(capsys):
    err = _refused(capsys, "--routing", str(DEMO / "routing.jsonl"), "--seed", "-1")
    assert "Invalid value for '--seed': -1 is not in the range x>=0." in err
    compare = run(
        ["compare", str(DEMO / "hpo-rtask.qrels"), str(DEMO / "lexical.run"), "--seed", "-1"]
    )
    assert compare != 0
    assert "Invalid value for '--seed': -1 is not in the range x>=0." in capsys.readouterr().err


def test_the_page_s_intervals_are_drawn_from_the_seed_and_the_report_records_it(tmp_path):
    pytest.importorskip("bokeh")
    pages = {}
    for seed in ("0", "5"):
        page, report = tmp_path / f"p{seed}.html", tmp_path / f"r{seed}.json"
        args = ["--html", str(page), "--seed", seed, "--report", str(report), "--quiet"]
        result = _score(*args, "-m", "nDCG@10", "-m", "P.10")
        assert result.exit_code == 0, result.output
        pages[seed] = page.read_text()
        document = json.loads(report.read_text())
        validate_against_schema(document, "evaluation_report")
        assert document["resampling"] == {
            "seed": int(seed),
            "samples": 10_000,
            "drawn_for": ["html"],
        }
    assert "&#34;seed&#34;: 5," in pages["5"]  # the page's provenance
    assert "&#34;seed&#34;: 0," in pages["0"]
