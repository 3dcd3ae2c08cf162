"""Peer tools scoring the KPI measures, each with its own reader (run in a subprocess).

``python -m benchmarks.peers TOOL QRELS RUN`` prints ``measure<TAB>mean`` lines; the harness
times the whole process. Measures: nDCG@10, AP@100 (map_cut.100), RR (uncut recip_rank: the
peers' fastest path; trec_eval is timed with the same), R@50, R@100, Success@10.
"""

from __future__ import annotations

import sys


def pytrec_eval_means(qrels_path: str, run_path: str) -> dict[str, float]:
    import pytrec_eval

    with open(qrels_path) as handle:
        qrels = pytrec_eval.parse_qrel(handle)
    with open(run_path) as handle:
        run = pytrec_eval.parse_run(handle)
    measures = {"ndcg_cut.10", "map_cut.100", "recip_rank", "recall.50,100", "success.10"}
    results = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
    labels = next(iter(results.values())).keys()
    return {label: sum(r[label] for r in results.values()) / len(results) for label in labels}


def ir_measures_means(qrels_path: str, run_path: str) -> dict[str, float]:
    import ir_measures
    from ir_measures import AP, RR, R, Success, nDCG

    qrels = ir_measures.read_trec_qrels(qrels_path)
    run = ir_measures.read_trec_run(run_path)
    measures = [nDCG @ 10, AP @ 100, RR, R @ 50, R @ 100, Success @ 10]
    return {str(m): v for m, v in ir_measures.calc_aggregate(measures, qrels, run).items()}


def ranx_means(qrels_path: str, run_path: str) -> dict[str, float]:
    from ranx import Qrels, Run, evaluate

    qrels = Qrels.from_file(qrels_path, kind="trec")
    run = Run.from_file(run_path, kind="trec")
    measures = ["ndcg@10", "map@100", "mrr", "recall@50", "recall@100", "hit_rate@10"]
    return evaluate(qrels, run, measures)


TOOLS = {"pytrec_eval": pytrec_eval_means, "ir_measures": ir_measures_means, "ranx": ranx_means}
MODULES = {"pytrec_eval": "pytrec_eval", "ir_measures": "ir_measures", "ranx": "ranx"}


def main() -> None:
    tool, qrels, run = sys.argv[1:4]
    for label, value in TOOLS[tool](qrels, run).items():
        print(f"{label}\t{value:.4f}")


if __name__ == "__main__":
    main()
