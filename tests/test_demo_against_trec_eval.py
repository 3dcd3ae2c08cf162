"""The bundled demo runs' KPI numbers (what `make demo` and docs/score.md show) against the
trec_eval 9.0.8 binary's own output, stored in tests/fixtures/trec_eval_demo/ by

    trec_eval -q -m ndcg_cut.10 -m map_cut.100 -m recall.50,100 -m success.10 QRELS RUN
    trec_eval -q -M 10 -m recip_rank QRELS RUN          # MRR@10
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import ROOT
from test_score_suite import run_score

import trecbench

FIXTURES = Path(__file__).parent / "fixtures" / "trec_eval_demo"
QRELS = ROOT / "qrels" / "hpo-demo.qrels"
RUNS = sorted((ROOT / "runs").glob("*.run"))
KPI = "-q -m ndcg_cut.10 -m map_cut.100 -m recall.50,100 -m success.10"
# display name of the KPI preset -> (fixture, trec_eval label)
PRESET = {
    "nDCG@10": ("kpi", "ndcg_cut_10"),
    "MAP@100": ("kpi", "map_cut_100"),
    "MRR@10": ("mrr10", "recip_rank"),
    "Recall@50": ("kpi", "recall_50"),
    "Recall@100": ("kpi", "recall_100"),
    "HitRate@10": ("kpi", "success_10"),
}


def _printed(path: Path) -> dict[tuple[str, str], str]:
    rows = (line.split("\t") for line in path.read_text().splitlines())
    return {(name.strip(), qid): value for name, qid, value in rows}


def test_there_are_bundled_runs():
    assert len(RUNS) == 3


@pytest.mark.parametrize("run", RUNS, ids=lambda p: p.stem)
def test_trec_eval_flags_give_trec_eval_bytes(run, monkeypatch):
    for args, fixture in ((KPI, "kpi"), ("-q -M 10 -m recip_rank", "mrr10")):
        stdout, _, code = run_score([*args.split(), str(QRELS), str(run)], ROOT, monkeypatch)
        assert code == 0
        assert stdout == (FIXTURES / f"{run.stem}.{fixture}.out").read_bytes()


@pytest.mark.parametrize("run", RUNS, ids=lambda p: p.stem)
def test_kpi_preset_equals_trec_eval_per_topic_and_overall(run):
    printed = {name: _printed(FIXTURES / f"{run.stem}.{name}.out") for name in ("kpi", "mrr10")}
    evaluation = trecbench.evaluate(QRELS, run)
    checked = 0
    for table, key in ((evaluation.per_query, "qid"), (evaluation.aggregates, None)):
        for row in table.itertuples():
            fixture, label = PRESET[row.measure]
            qid = getattr(row, key) if key else "all"
            assert f"{row.value:6.4f}" == printed[fixture][(label, qid)], (row.measure, qid)
            checked += 1
    assert checked == 6 * (56 + 1)
