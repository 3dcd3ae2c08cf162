"""``score --seed``: the seed of the intervals --routing and --html draw (each was drawn
from a fixed seed 0 that no option changed), recorded in --report where anything random
is drawn, and refused where nothing is, as fuse refuses --seed without --optimize."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from conftest import ROOT

from trecbench.cli import _register, cli, run
from trecbench.comparison import StatsSettings
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
    samples = document["routing"]["settings"]["samples"]  # as drawn: routing_metrics' above
    assert document["resampling"] == {"seed": 2, "samples": samples, "drawn_for": ["routing"]}


def test_the_record_counts_the_resamples_routing_drew(tmp_path, monkeypatch):
    # a count drawn other than the default is the one recorded, not a fixed 10,000
    import functools

    from trecbench import routing

    monkeypatch.setattr(
        routing, "routing_metrics", functools.partial(routing.routing_metrics, samples=2_000)
    )
    report = tmp_path / "r.json"
    result = _score("--routing", str(DEMO / "routing.jsonl"), "--report", str(report))
    assert result.exit_code == 0, result.output
    document = json.loads(report.read_text())
    assert document["routing"]["settings"]["samples"] == 2_000
    assert document["resampling"] == {"seed": 0, "samples": 2_000, "drawn_for": ["routing"]}


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
            "samples": StatsSettings(seed=int(seed)).samples,  # the statistics the page used
            "drawn_for": ["html"],
        }
    assert "&#34;seed&#34;: 5," in pages["5"]  # the page's provenance
    assert "&#34;seed&#34;: 0," in pages["0"]
    # the intervals drawn: a page that recorded seed 5 but drew from 0 showed seed 0's
    shown = {seed: _interval_text(seed) for seed in (0, 5)}
    assert shown == {0: "[0.1320, 0.3051]", 5: "[0.1316, 0.3054]"}
    assert shown[0] in pages["0"] and shown[5] not in pages["0"]
    assert shown[5] in pages["5"] and shown[0] not in pages["5"]


def _interval_text(seed: int) -> str:
    """lexical.run's nDCG@10 interval as the page shows it, computed apart from trecbench:
    trec_eval's per-topic values (its C code, through pytrec_eval; topics in trec_eval's
    order), resampled as :mod:`trecbench.resampling` documents it (numpy's default_rng
    seeded [seed, 0], blocks of 256 resamples of n draws, 10,000 in all) and the 2.5% and
    97.5% quantiles of the resampled means."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    import numpy as np

    def read(path, column: int) -> dict:
        table: dict = {}
        for fields in map(str.split, path.read_text().splitlines()):
            table.setdefault(fields[0], {})[fields[2]] = fields[column]
        return table

    qrels = {
        q: {d: int(g) for d, g in docs.items()}
        for q, docs in read(DEMO / "hpo-rtask.qrels", 3).items()
    }
    run_ = {
        q: {d: float(s) for d, s in docs.items()}
        for q, docs in read(DEMO / "lexical.run", 4).items()
    }
    per_topic = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut_10"}).evaluate(run_)
    values = np.array([per_topic[q]["ndcg_cut_10"] for q in sorted(per_topic)])
    n, rng = len(values), np.random.default_rng([seed, 0])
    means = np.concatenate(
        [values[rng.integers(0, n, size=(min(256, 10_000 - s), n))].mean(axis=1)
         for s in range(0, 10_000, 256)]
    )  # fmt: skip
    low, high = np.quantile(means, [0.025, 0.975])
    return f"[{low:.4f}, {high:.4f}]"
