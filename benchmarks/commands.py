"""``make bench`` cases of the commands that study several runs (issue 31.4), each timed as
a whole process with its peak memory:

* ``similarity``: two runs of 6,980 x 1,000 lines (7M lines each) compared topic by topic
  (and two of 698 x 1,000);
* ``commands``: 20 runs of 100 documents per topic, on 10,000 topics and on a tenth of
  them (1,000), so that the table states each command's growth in topics: ``pool`` of
  the 20 runs, ``compare`` of all pairs with 10,000 bootstrap resamples, ``power`` and
  ``agree`` on the same runs and measure (nDCG@10);
* ``report``: the HTML report (``compare -o DIR``: report.html with every topic's top 20
  documents, BenchmarkReport.json, the Markdown and LaTeX tables) of 5 runs of 100
  documents per topic on 5,000 topics and on a tenth of them (500).

Every command is timed at the case's topic count and at a tenth of it; the table states
the growth (time at n over time at n / 10: 10x is linear in topics).

``--quick`` divides the topic counts by 10, as for every case.
"""

from __future__ import annotations

import sys

from . import data
from .timing import Case

RUNS = 20
REPORT_RUNS = 5
RESAMPLES = 10_000
MEASURE = ["-m", "nDCG@10"]
# the tenth of the topics each command is also timed on: the growth is time(n) / time(n/10)
GROWTH_FACTOR = 10


def _trecbench(*args) -> list:
    return [sys.executable, "-m", "trecbench", *args]


def _similarity(n_queries: int, depth: int, args, out) -> Case:
    """``similarity`` of two runs (the same documents, ranked by two systems)."""
    (first, second, *_), _ = data.ensure_systems(args.data, n_queries, depth, args.seed, 2)
    case = Case("similarity", 2 * n_queries * depth)
    task = f"similarity of 2 runs, {n_queries:,} topics"
    case.add("trecbench", task, _trecbench("similarity", first, second))
    return case


def _study(n_queries: int, depth: int, args, out) -> Case:
    """The commands on ``RUNS`` runs of ``n_queries`` topics."""
    runs, qrels = data.ensure_systems(args.data, n_queries, depth, args.seed, RUNS)
    case = Case("commands", RUNS * n_queries * depth)
    resampled = ["--test", "bootstrap", "--samples", RESAMPLES, "--seed", args.seed]
    topics = f"{n_queries:,} topics"
    case.add(
        "trecbench",
        f"pool of {RUNS} runs, {topics}",
        _trecbench("pool", *runs, "--depth", depth, "-o", out / f"pool-{n_queries}.txt"),
    )
    case.add(
        "trecbench",
        f"compare {RUNS} runs, all pairs, {topics}",
        _trecbench("compare", qrels, *runs, *MEASURE, *resampled, "--format", "json"),
    )
    case.add(
        "trecbench",
        f"power of {RUNS} runs, {topics}",
        _trecbench("power", qrels, *runs, *MEASURE, "--format", "json"),
    )
    agree = _trecbench("agree", qrels, *runs, *MEASURE, *resampled, "--format", "json")
    case.add("trecbench", f"agree of {RUNS} runs, {topics}", agree)
    return case


def _report(n_queries: int, depth: int, args, out) -> Case:
    """``compare -o`` (report.html and the other report files) of ``REPORT_RUNS`` runs."""
    runs, qrels = data.ensure_systems(args.data, n_queries, depth, args.seed, REPORT_RUNS)
    case = Case("report", REPORT_RUNS * n_queries * depth)
    folder = out / f"report-{n_queries}"
    command = _trecbench("compare", qrels, *runs, "-o", folder)
    case.add("trecbench", f"report.html of {REPORT_RUNS} runs, {n_queries:,} topics", command)
    return case


def _with_growth(study, runs: int, n_queries: int, depth: int, args, out) -> list[dict]:
    """The rows of ``study`` at a tenth of ``n_queries`` topics and at ``n_queries``; each
    row at ``n_queries`` carries its growth from the tenth."""
    fewer = _checked(study(max(n_queries // GROWTH_FACTOR, 1), depth, args, out).run(1))
    more = _checked(study(n_queries, depth, args, out).run(1))
    for small, large in zip(fewer, more, strict=True):
        large["growth"] = large["seconds"] / small["seconds"]
        large["growth_from"] = small["lines"] // (runs * depth)
        large["growth_to"] = n_queries
    return fewer + more


def bench_commands(name, n_queries, depth, args, trec_eval, out) -> list[dict]:
    """pool, compare, power and agree of ``RUNS`` runs at ``n_queries`` topics and at a
    tenth of them."""
    return _with_growth(_study, RUNS, n_queries, depth, args, out)


def bench_similarity(name, n_queries, depth, args, trec_eval, out) -> list[dict]:
    """``similarity`` of two large runs at ``n_queries`` topics and a tenth of them."""
    return _with_growth(_similarity, 2, n_queries, depth, args, out)


def bench_report(name, n_queries, depth, args, trec_eval, out) -> list[dict]:
    """The HTML report of ``REPORT_RUNS`` runs at ``n_queries`` topics and a tenth of them."""
    return _with_growth(_report, REPORT_RUNS, n_queries, depth, args, out)


def _checked(rows: list[dict]) -> list[dict]:
    """The rows with what the table needs of them (no trec_eval ratio: it has no such
    command); a command that failed is reported, never timed as if it had worked."""
    for row in rows:
        row.update(ratio=None, cpu_ratio=None, memory_ratio=None)
        row["lines_per_second"] = row["lines"] / row["seconds"]
        if row["exit_code"] != 0:
            print(f"  {row['task']}: exit {row['exit_code']} ({' '.join(row['command'])})")
    return rows


BENCHES = {"similarity": bench_similarity, "commands": bench_commands, "report": bench_report}
CASES = {"similarity": (6980, 1000), "commands": (10_000, 100), "report": (5_000, 100)}
