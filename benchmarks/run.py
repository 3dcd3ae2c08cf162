"""``make bench``: time trecbench against trec_eval 9.0.8 and its peers, same machine, same run.

For each case (seeded data from :mod:`benchmarks.data`), every command runs in a fresh
process ``--repeats`` times; the table reports the median wall time, its ratio to the
trec_eval binary measured in the same run, and the peak resident memory (``wait4``'s
``ru_maxrss`` of that process). trecbench's outputs are checked against trec_eval's,
value by value at trec_eval's printed precision. Results go to ``bench-results/`` as
``bench.json`` and ``bench.md``.

trec_eval is found through ``$TREC_EVAL`` or ``PATH``; peers (pytrec_eval, ir_measures,
ranx) are timed when importable. Cases: ``msmarco`` (6,980 topics x 1,000 documents, the
issue's 7M lines), ``wide`` (100,000 x 100: 10M lines), ``small`` (10 x 100), ``longid``
(300 x 1,000 with one 100 KB docno: as fast as without it). ``--quick`` divides the topic
counts by 10. On ``msmarco`` trecbench also scores the run gzipped (``score gzip``): its
time and memory are compared with the plain file's (``vs plain``).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from . import data
from .peers import MODULES

ROOT = Path(__file__).resolve().parents[1]
CASES = {
    "msmarco": (6980, 1000),
    "wide": (100_000, 100),
    "small": (10, 100),
    "longid": (300, 1000),
}
LONG_DOCNO = {"longid": 100_000}  # one docno of this many bytes: cost must follow the bytes
TREC_EVAL_KPI = ["-m", "ndcg_cut.10", "-m", "map_cut.100", "-m", "recip_rank",
                 "-m", "recall.50,100", "-m", "success.10"]  # fmt: skip
# trecbench's KPI label -> the trec_eval label it must equal (MRR@10 = recip_rank on -M 10)
SAME_AS = {
    "ndcg_cut_10": "ndcg_cut_10",
    "map_cut_100": "map_cut_100",
    "recip_rank_cut_10": "recip_rank@M10",
    "recall_50": "recall_50",
    "recall_100": "recall_100",
    "success_10": "success_10",
}


GNU_TIME = "/usr/bin/time"


def timed(command: list[str], stdout_path: Path | None = None) -> tuple[float, float, int]:
    """``(wall seconds, peak RSS MiB, exit code)`` of one process.

    The peak comes from GNU time when present: a child forked straight from this (large)
    harness would report the harness's own memory as its peak (Linux keeps the high-water
    mark across exec); GNU time is small, so the command's peak is its own.
    """
    memory_file = Path(os.environ.get("TMPDIR", "/tmp")) / f"trecbench-bench-{os.getpid()}.mem"
    wrapped = command
    if os.access(GNU_TIME, os.X_OK):
        wrapped = [GNU_TIME, "-f", "%M", "-o", str(memory_file), *command]
    out = open(stdout_path, "wb") if stdout_path else subprocess.DEVNULL  # noqa: SIM115
    try:
        start = time.perf_counter()
        process = subprocess.Popen(wrapped, stdout=out, stderr=subprocess.DEVNULL, cwd=ROOT)
        _, status, usage = os.wait4(process.pid, 0)
        elapsed = time.perf_counter() - start
    finally:
        if stdout_path:
            out.close()
    peak_kib = usage.ru_maxrss
    if wrapped is not command:
        peak_kib = int(memory_file.read_text().split()[-1])
        memory_file.unlink()
    return elapsed, peak_kib / 1024, os.waitstatus_to_exitcode(status)


def summarise(runs: list[tuple[float, float, int]]) -> dict:
    """Median and best wall time, largest peak memory, last exit code of repeated runs."""
    return {
        "seconds": statistics.median(r[0] for r in runs),
        "best_seconds": min(r[0] for r in runs),
        "all_seconds": [round(r[0], 3) for r in runs],
        "peak_mib": max(r[1] for r in runs),
        "exit_code": runs[-1][2],
    }


def trec_lines(path: Path) -> dict[tuple[str, str], str]:
    """``{(label, qid): value text}`` of trec_eval-format output."""
    values = {}
    for line in path.read_text().splitlines():
        parts = line.split("\t")
        if len(parts) == 3:
            values[(parts[0].strip(), parts[1])] = parts[2]
    return values


def compare(ours: Path, reference: dict[tuple[str, str], str], per_query: bool) -> tuple[bool, int]:
    """Whether trecbench printed exactly trec_eval's values of the ``SAME_AS`` measures, at
    trec_eval's printed precision: none different, none missing, none extra (only the
    ``all`` lines unless ``per_query``); and how many values that is."""
    printed = {
        (SAME_AS[label], qid): value
        for (label, qid), value in trec_lines(ours).items()
        if label in SAME_AS
    }
    expected = {
        (label, qid): value
        for (label, qid), value in reference.items()
        if label in SAME_AS.values() and (per_query or qid == "all")
    }
    return bool(printed) and printed == expected, len(printed)


def find_trec_eval() -> str | None:
    return os.environ.get("TREC_EVAL") or shutil.which("trec_eval")


def machine() -> dict:
    cpu = platform.processor()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    memory = ""
    try:
        kib = int(Path("/proc/meminfo").read_text().split()[1])
        memory = f"{kib / 2**20:.0f} GiB"
    except (OSError, ValueError, IndexError):
        pass
    import numpy
    import pyarrow

    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "memory": memory,
        "os": platform.platform(),
        "python": platform.python_version(),
        "numpy": numpy.__version__,
        "pyarrow": pyarrow.__version__,
    }


def bench_case(name, n_queries, depth, args, trec_eval, out) -> list[dict]:
    """Time every command of one case. Repeats go in rounds (each command once per round)
    so that a slow spell of a shared machine hits trecbench and trec_eval alike."""
    run, qrels = data.ensure(args.data, n_queries, depth, args.seed, LONG_DOCNO.get(name, 0))
    lines = n_queries * depth
    tb = [sys.executable, "-m", "trecbench"]
    ours_summary, ours_query = out / f"{name}.trecbench.txt", out / f"{name}.trecbench-q.txt"
    te_summary, te_query = out / f"{name}.trec_eval.txt", out / f"{name}.trec_eval-q.txt"
    commands = [
        ("trecbench", "score", [*tb, "score", "--format", "trec", str(qrels), str(run)],
         ours_summary),
        *([("trecbench", "score gzip",
            [*tb, "score", "--format", "trec", str(qrels), str(data.ensure_gzip(run))],
            out / f"{name}.trecbench-gz.txt")] if name == "msmarco" else []),
        ("trecbench", "score -q", [*tb, "score", "-q", str(qrels), str(run)], ours_query),
        ("trecbench", "validate",
         [*tb, "validate", str(run), "--max-depth", str(depth), "--format", "json"], None),
    ]  # fmt: skip
    if trec_eval:
        commands += [
            ("trec_eval", "score", [trec_eval, *TREC_EVAL_KPI, str(qrels), str(run)], te_summary),
            ("trec_eval", "score -q", [trec_eval, "-q", *TREC_EVAL_KPI, str(qrels), str(run)],
             te_query),
        ]  # fmt: skip
    peers = [
        (tool, "score", [sys.executable, "-m", "benchmarks.peers", tool, str(qrels), str(run)],
         None)
        for tool, module in MODULES.items()
        if name != "wide" and tool in args.peers and importlib.util.find_spec(module)
    ]  # fmt: skip
    timings: dict[int, list] = {i: [] for i in range(len(commands) + len(peers))}
    repeats = 2 if name == "wide" else args.repeats
    for round_ in range(repeats):
        todo = commands + (peers if round_ == repeats - 1 else [])  # peers once: slow
        for i, (_, _, command, stdout) in enumerate(todo):
            timings[i].append(timed(command, stdout))
    rows: list[dict] = []
    for i, (tool, task, command, _) in enumerate(commands + peers):
        result = summarise(timings[i])
        result.update(case=name, lines=lines, tool=tool, task=task, command=command)
        rows.append(result)
        print(f"  {name:8s} {tool:12s} {task:10s} {result['seconds']:7.2f} s "
              f"{result['peak_mib']:7.0f} MiB  exit {result['exit_code']}", flush=True)  # fmt: skip
    if trec_eval:
        mrr = out / f"{name}.trec_eval-M10.txt"  # MRR@10 reference, not timed
        subprocess.run([trec_eval, "-q", "-M", "10", "-m", "recip_rank", str(qrels), str(run)],
                       stdout=mrr.open("wb"), check=True)  # fmt: skip
        reference = trec_lines(te_query)
        for (label, qid), value in trec_lines(mrr).items():
            reference[(f"{label}@M10", qid)] = value
        for row in rows:
            if row["tool"] == "trecbench" and row["task"].startswith("score"):
                printed = {"score -q": ours_query, "score gzip": out / f"{name}.trecbench-gz.txt"}
                path = printed.get(row["task"], ours_summary)
                row["identical"], row["values_checked"] = compare(
                    path, reference, per_query=row["task"] == "score -q"
                )
    reference_time = {
        r["task"]: r["seconds"] for r in rows if r["tool"] == "trec_eval"
    }  # fmt: skip
    for row in rows:
        base = reference_time.get(row["task"]) or reference_time.get("score")
        # no ratio against a process too short to time (trec_eval on the small case)
        meaningful = base is not None and base >= 0.05 and row["task"] != "validate"
        row["ratio"] = row["seconds"] / base if meaningful else None
        row["lines_per_second"] = lines / row["seconds"]
    plain = next((r for r in rows if r["tool"] == "trecbench" and r["task"] == "score"), None)
    for row in rows:
        if row["task"] == "score gzip" and plain is not None:  # target: 1.3x, same memory
            row["vs_plain"] = row["seconds"] / plain["seconds"]
            row["memory_vs_plain"] = row["peak_mib"] / plain["peak_mib"]
    return rows


def markdown(results: dict) -> str:
    header = (
        "| case | lines | tool | task | median s (best) | vs trec_eval | peak MiB "
        "| output = trec_eval |\n"
        "|---|---:|---|---|---:|---:|---:|---|\n"
    )
    body = ""
    for row in results["rows"]:
        ratio = f"{row['ratio']:.2f}x" if row.get("ratio") is not None else ""
        if row["task"] == "validate" and row["lines"] >= 100_000:
            ratio = f"{row['lines_per_second'] / 1e6:.1f}M lines/s"
        same = {True: "identical", False: "DIFFERENT"}.get(row.get("identical"), "")
        if same and row.get("values_checked"):
            same += f" ({row['values_checked']:,} values)"
        body += (
            f"| {row['case']} | {row['lines']:,} | {row['tool']} | {row['task']} | "
            f"{row['seconds']:.2f} ({row['best_seconds']:.2f}) | {ratio} | "
            f"{row['peak_mib']:.0f} | {same} |\n"
        )
    for row in results["rows"]:
        if "vs_plain" in row:
            body += (
                f"\n{row['case']} gzipped: {row['vs_plain']:.2f}x the plain file's time, "
                f"{row['memory_vs_plain']:.2f}x its peak memory (the same reader, through "
                "Arrow's gzip stream).\n"
            )
    m = results["machine"]
    footer = (
        f"\nMachine: {m['cpu']}, {m['cores']} cores, {m['memory']}; {m['os']}; Python "
        f"{m['python']}, numpy {m['numpy']}, pyarrow {m['pyarrow']}. trec_eval: "
        f"{results['trec_eval'] or 'not found'}. Medians (and best) of {results['repeats']} "
        f"interleaved runs (2 for the 10M-line case, 1 for peers); {results['date']}.\n"
    )
    return header + body + footer


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="topic counts / 10")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--cases", default="small,msmarco,wide,longid")
    parser.add_argument("--peers", default="pytrec_eval,ir_measures,ranx",
                        help="peer tools to time when installed ('' for none)")  # fmt: skip
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=ROOT / "bench-results")
    parser.add_argument("--data", type=Path, default=None, help="data folder (default OUT/data)")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    args.data = args.data or args.out / "data"
    args.peers = [p for p in args.peers.split(",") if p]
    trec_eval = find_trec_eval()
    rows = []
    for name in args.cases.split(","):
        n_queries, depth = CASES[name]
        if args.quick and name != "small":
            n_queries //= 10
        rows += bench_case(name, n_queries, depth, args, trec_eval, args.out)
    results = {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "machine": machine(),
        "trec_eval": trec_eval,
        "repeats": args.repeats,
        "quick": args.quick,
        "seed": args.seed,
        "rows": rows,
    }
    (args.out / "bench.json").write_text(json.dumps(results, indent=1, default=str))
    table = markdown(results)
    (args.out / "bench.md").write_text(table)
    print(table)


if __name__ == "__main__":
    main()
