"""``make bench``: time trecbench against trec_eval 9.0.8 and its peers, same machine, same run.

Every command runs in a fresh process, ``--repeats`` times for the fast cases; the table
reports the median wall time (and the best), the median CPU time (user + system, worker
processes included), their ratios to the trec_eval binary measured in the same run, the
peak resident memory of the largest process (GNU time, else ``wait4``) and the machine's
1-minute load average when the command started (the machine may be shared). trecbench's
outputs are checked against trec_eval's, value by value at trec_eval's printed precision.
Results go to ``bench-results/`` as ``bench.json`` and ``bench.md``.

trec_eval is found through ``$TREC_EVAL`` or ``PATH`` (the reference is an ``-O3`` build of
9.0.8: name the build with ``--trec-eval-build``); peers (pytrec_eval, ir_measures, ranx)
are timed when importable. Cases (``--quick`` divides every topic count by 10):

* ``small``: 10 topics x 100 documents, end to end (start-up); the peers' scripts are
  timed in the same rounds as trecbench (A B A B), and each trecbench row shows its ratio
  to the pytrec_eval script (the same read, score and print; target: at most 1.0x).
* ``track``: 50 x 1,000, a TREC track's run (1.5 MB), end to end, its peers timed as the
  small case's.
* ``medium``: 200 x 1,000 (6.3 MB), past the small path's bound (4 MiB): the general
  path's start-up against the peers' scripts, timed as the small case's.
* ``msmarco``: 6,980 x 1,000 = 7M lines (the KPI case), plain and gzipped; ``score -q``,
  ``validate``, peers.
* ``wide``: 100,000 x 100 = 10M lines.
* ``longid``: 300 x 1,000 with one 100 KB docno (as fast as without it).
* ``huge``: 100,000 x 1,000 = 100M lines (3.4 GB), scored in blocks; trec_eval runs on a
  sample of its topics (every qid divisible by 100), whose per-topic values must equal
  those trecbench printed for the whole run.
* ``scattered``: 10,000 x 1,000 lines in random order (every topic in many stretches),
  scored with ``--memory 1024`` (spilled to disk) and compared topic by topic.
* ``many``: 50 runs of 698 x 1,000 against one qrels: one process (``--jobs 1``), the cores
  available (the default) and trec_eval once per run.
* ``dask``: the first of those runs through ``--dask local:2`` (two worker processes).
* ``similarity`` and ``commands``: ``similarity`` of two 7M-line runs; ``pool``,
  ``compare``, ``power`` and ``agree`` of 20 runs on 10,000 and 1,000 topics, with their
  growth (:mod:`benchmarks.commands`).
* ``report``: the HTML report (``compare -o``) of 5 runs on 5,000 and 500 topics, with its
  growth.

Generated data goes to ``--data`` (default ``bench-results/data``; keep it out of the
repository for the large cases: ``make bench BENCH_ARGS='--data /somewhere'``).
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

from . import commands, data
from .peers import MODULES
from .timing import ROOT, Case

CASES = {
    "small": (10, 100),
    "track": (50, 1000),
    "medium": (200, 1000),
    "msmarco": (6980, 1000),
    "wide": (100_000, 100),
    "longid": (300, 1000),
    "huge": (100_000, 1000),
    "scattered": (10_000, 1000),
    "many": (698, 1000),
    "dask": (698, 1000),
    **commands.CASES,
}
# the cases whose peers are timed in every round, paired with trecbench (and kept whole by
# --quick): the sizes most evaluations have
PAIRED = ("small", "track", "medium")
LONG_DOCNO = {"longid": 100_000}  # one docno of this many bytes: cost must follow the bytes
RUNS_AT_ONCE = 50
SAMPLE_SUFFIX = "00"  # the huge case's sample: qids ending so (every 100th topic)
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


def trec_lines(path: Path) -> dict[tuple[str, str], str]:
    """``{(label, qid): value text}`` of trec_eval-format output."""
    values = {}
    for line in path.read_text().splitlines():
        parts = line.split("\t")
        if len(parts) == 3:
            values[(parts[0].strip(), parts[1])] = parts[2]
    return values


def run_blocks(path: Path) -> list[dict[tuple[str, str], str]]:
    """The per-run blocks (``# run`` headers) of trecbench's output for several runs."""
    blocks: list[list[str]] = []
    for line in path.read_text().splitlines():
        if line.startswith("# "):
            blocks.append([])
        elif blocks:
            blocks[-1].append(line)
    return [
        {(p[0].strip(), p[1]): p[2] for p in (line.split("\t") for line in block) if len(p) == 3}
        for block in blocks
    ]


def compare(ours: Path | dict, reference: dict, per_query: bool, qids=None) -> tuple[bool, int]:
    """Whether trecbench printed exactly trec_eval's values of the ``SAME_AS`` measures, at
    trec_eval's printed precision: none different, none missing, none extra (only the
    ``all`` lines unless ``per_query``; only ``qids`` when given, for a sample); and how many
    values that is. Measures missing from the reference (MRR@10 when trec_eval was not
    run with -M 10) are not compared."""
    lines = trec_lines(ours) if isinstance(ours, Path) else ours
    known = {label for label, _ in reference}
    printed = {
        (SAME_AS[label], qid): value
        for (label, qid), value in lines.items()
        if label in SAME_AS and SAME_AS[label] in known and (qids is None or qid in qids)
    }
    expected = {
        (label, qid): value
        for (label, qid), value in reference.items()
        if label in SAME_AS.values()
        and (per_query or qid == "all")
        and (qids is None or qid in qids)
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
        "label": f"{cpu}, {os.cpu_count()} cores",  # beside every figure of the table
        "memory": memory,
        "os": platform.platform(),
        "python": platform.python_version(),
        "numpy": numpy.__version__,
        "pyarrow": pyarrow.__version__,
        "gzip": _inflater(),
    }


def _inflater() -> str:
    """What reads gzip: ISA-L (the ``fast-gzip`` extra) when installed, else Arrow's zlib."""
    if importlib.util.find_spec("isal") is None:
        return "Arrow's zlib stream"
    from importlib.metadata import version

    return f"ISA-L (isal {version('isal')}) on a thread of its own"


def _trecbench() -> list[str]:
    return [sys.executable, "-m", "trecbench"]


def _mrr_reference(trec_eval: str, qrels: Path, run: Path, per_query_out: Path, out: Path):
    """trec_eval's -q values, with MRR@10 (recip_rank on -M 10) as ``recip_rank@M10``."""
    mrr = out.with_suffix(".M10.txt")
    with mrr.open("wb") as handle:
        subprocess.run([trec_eval, "-q", "-M", "10", "-m", "recip_rank", qrels, run],
                       stdout=handle, check=True)  # fmt: skip
    reference = trec_lines(per_query_out)
    for (label, qid), value in trec_lines(mrr).items():
        reference[(f"{label}@M10", qid)] = value
    return reference


def _ratios(rows: list[dict]) -> None:
    """Ratios to trec_eval's wall and CPU time for the same task (else its ``score``)."""
    reference = {r["task"]: r for r in rows if r["tool"] == "trec_eval"}
    for row in rows:
        base = reference.get(row["task"]) or reference.get("score")
        # no ratio against a process too short to time (trec_eval on the small case)
        meaningful = base is not None and base["seconds"] >= 0.05 and row["task"] != "validate"
        row["ratio"] = row["seconds"] / base["seconds"] if meaningful else None
        row["cpu_ratio"] = row["cpu_seconds"] / base["cpu_seconds"] if meaningful else None
        row["memory_ratio"] = row["peak_mib"] / base["peak_mib"] if meaningful else None
        row["lines_per_second"] = row["lines"] / row["seconds"]


def _versus_script(rows: list[dict]) -> None:
    """Each trecbench row's wall time over the pytrec_eval script's (the same read, score
    and print of the KPI measures, timed in the same rounds): the small-run target is
    at most 1.0x."""
    script = next((r for r in rows if r["tool"] == "pytrec_eval"), None)
    for row in rows:
        if script is not None and row["tool"] == "trecbench":
            row["vs_pytrec_eval"] = row["seconds"] / script["seconds"]


def bench_case(name, n_queries, depth, args, trec_eval, out) -> list[dict]:
    """``small``, ``msmarco``, ``wide`` and ``longid``: score, score -q, validate, peers."""
    run, qrels = data.ensure(
        args.data, n_queries, depth, args.seed, long_docno=LONG_DOCNO.get(name, 0)
    )
    case = Case(name, n_queries * depth)
    tb = _trecbench()
    ours_summary, ours_query = out / f"{name}.trecbench.txt", out / f"{name}.trecbench-q.txt"
    te_summary, te_query = out / f"{name}.trec_eval.txt", out / f"{name}.trec_eval-q.txt"
    # validate first in each round: on this VM a process that follows one which freed much
    # memory (trec_eval -q: 543 MiB) pays 0.2-0.3 s more system time re-touching it; the
    # scores, plain and gzipped, whose ratio is compared, then follow alike
    case.add("trecbench", "validate",
             [*tb, "validate", run, "--max-depth", depth, "--format", "json"])  # fmt: skip
    case.add("trecbench", "score", [*tb, "score", "--format", "trec", qrels, run], ours_summary)
    if name == "msmarco":
        case.add("trecbench", "score gzip",
                 [*tb, "score", "--format", "trec", qrels, data.ensure_gzip(run)],
                 out / f"{name}.trecbench-gz.txt")  # fmt: skip
        case.alternate("score", "score gzip")
    case.add("trecbench", "score -q", [*tb, "score", "-q", qrels, run], ours_query)
    if trec_eval:
        case.add("trec_eval", "score", [trec_eval, *TREC_EVAL_KPI, qrels, run], te_summary)
        case.add("trec_eval", "score -q", [trec_eval, "-q", *TREC_EVAL_KPI, qrels, run], te_query)
    for tool, module in MODULES.items():
        if name != "wide" and tool in args.peers and importlib.util.find_spec(module):
            command = [sys.executable, "-m", "benchmarks.peers", tool, qrels, run]
            # peers once (slow), but on the paired cases: with trecbench, round by round
            case.add(tool, "score", command, every_round=name in PAIRED and tool != "ranx")
    rows = case.run(2 if name == "wide" else args.repeats)
    if trec_eval:
        reference = _mrr_reference(trec_eval, qrels, run, te_query, te_query)
        printed = {"score -q": ours_query, "score gzip": out / f"{name}.trecbench-gz.txt"}
        for row in rows:
            if row["tool"] == "trecbench" and row["task"].startswith("score"):
                path = printed.get(row["task"], ours_summary)
                row["identical"], row["values_checked"] = compare(
                    path, reference, per_query=row["task"] == "score -q"
                )
    _ratios(rows)
    _versus_script(rows)
    _versus_plain(rows)
    return rows


def _versus_plain(rows: list[dict]) -> None:
    """The gzipped run's wall time over the plain file's (trecbench ``score`` of each),
    the median of the rounds' ratios (each round times both, in alternating order:
    :meth:`~benchmarks.timing.Case.alternate`), and its peak memory over the plain
    file's: issue 31's target is at most 1.15x."""
    plain = next((r for r in rows if r["tool"] == "trecbench" and r["task"] == "score"), None)
    for row in rows:
        if row["task"] == "score gzip" and plain is not None:
            rounds = zip(row["all_seconds"], plain["all_seconds"], strict=True)
            row["vs_plain"] = statistics.median(gzipped / alone for gzipped, alone in rounds)
            row["memory_vs_plain"] = row["peak_mib"] / plain["peak_mib"]


def _sample(run: Path, qrels: Path, folder: Path) -> tuple[Path, Path, set[str]]:
    """The lines of the topics whose qid ends with ``SAMPLE_SUFFIX`` (streamed: the huge run
    does not fit in memory), as a run and qrels of their own; and those qids."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.csv as pv

    from trecbench import files
    from trecbench.outputs import OutputSet

    sample_run = folder / f"{run.stem}.sample.run"
    sample_qrels = folder / f"{run.stem}.sample.qrels"
    qids: set[str] = set()
    if sample_run.exists() and sample_qrels.exists():
        return sample_run, sample_qrels, set(_first_fields(sample_qrels))
    with OutputSet() as out:
        for source, target, fields in ((run, sample_run, 6), (qrels, sample_qrels, 4)):
            names = [f"f{i}" for i in range(fields)]
            reader = pv.open_csv(
                source,
                read_options=pv.ReadOptions(column_names=names, block_size=16 << 20),
                parse_options=pv.ParseOptions(delimiter=" ", quote_char=False),
                convert_options=pv.ConvertOptions(column_types=dict.fromkeys(names, pa.string())),
            )
            handle = out.open(target)
            for batch in reader:
                kept = batch.filter(pc.ends_with(batch.column(0), SAMPLE_SUFFIX))
                if kept.num_rows:
                    qids.update(pc.unique(kept.column(0)).to_pylist())
                    columns = dict(zip(names, kept.columns, strict=True))
                    handle.write(files.text_lines(columns, " "))
    return sample_run, sample_qrels, qids


def _first_fields(path: Path) -> list[str]:
    return [line.split(" ", 1)[0] for line in path.read_text().splitlines() if line]


def bench_huge(name, n_queries, depth, args, trec_eval, out) -> list[dict]:
    """100M lines scored in blocks; trec_eval on a sample of the topics."""
    run, qrels = data.ensure(args.data, n_queries, depth, args.seed)
    case = Case(name, n_queries * depth)
    ours = out / f"{name}.trecbench-q.txt"
    case.add("trecbench", "score -q (blocks)", [*_trecbench(), "score", "-q", qrels, run], ours)
    rows = case.run(1)
    if trec_eval:
        sample_run, sample_qrels, qids = _sample(run, qrels, args.data)
        te = out / f"{name}.trec_eval-sample-q.txt"
        with te.open("wb") as handle:
            subprocess.run([trec_eval, "-q", *TREC_EVAL_KPI, sample_qrels, sample_run],
                           stdout=handle, check=True)  # fmt: skip
        reference = _mrr_reference(trec_eval, sample_qrels, sample_run, te, te)
        rows[0]["identical"], rows[0]["values_checked"] = compare(
            ours, reference, per_query=True, qids=qids
        )
        rows[0]["compared"] = f"trec_eval on {len(qids):,} sampled topics"
    _ratios(rows)
    return rows


def bench_scattered(name, n_queries, depth, args, trec_eval, out) -> list[dict]:
    """Every topic in many stretches: spilled to disk within a 1 GiB budget."""
    run, qrels = data.ensure(args.data, n_queries, depth, args.seed, scattered=True)
    case = Case(name, n_queries * depth)
    ours, te = out / f"{name}.trecbench-q.txt", out / f"{name}.trec_eval-q.txt"
    case.add("trecbench", "score -q --memory 1024",
             [*_trecbench(), "score", "-q", "--memory", "1024", qrels, run], ours)  # fmt: skip
    if trec_eval:
        case.add("trec_eval", "score -q", [trec_eval, "-q", *TREC_EVAL_KPI, qrels, run], te)
    rows = case.run(1)
    if trec_eval:
        reference = _mrr_reference(trec_eval, qrels, run, te, te)
        rows[0]["identical"], rows[0]["values_checked"] = compare(ours, reference, True)
    _ratios(rows)
    return rows


def _many(args, n_queries, depth):
    return data.ensure_systems(args.data, n_queries, depth, args.seed, RUNS_AT_ONCE)


def bench_many(name, n_queries, depth, args, trec_eval, out) -> list[dict]:
    """50 runs at once: one process, every core, and trec_eval once per run."""
    runs, qrels = _many(args, n_queries, depth)
    case = Case(name, n_queries * depth * len(runs))
    tb = _trecbench()
    one, every = out / f"{name}.trecbench-jobs1.txt", out / f"{name}.trecbench.txt"
    case.add("trecbench", f"{len(runs)} runs, --jobs 1",
             [*tb, "score", "--format", "trec", "--jobs", "1", qrels, *runs], one)  # fmt: skip
    case.add("trecbench", f"{len(runs)} runs, all cores",
             [*tb, "score", "--format", "trec", qrels, *runs], every)  # fmt: skip
    te_folder = out / f"{name}.trec_eval"
    if trec_eval:
        te_folder.mkdir(exist_ok=True)
        loop = " ".join(
            f"{trec_eval} {' '.join(TREC_EVAL_KPI)} {qrels} {run} > {te_folder / run.name};"
            for run in runs
        )
        case.add("trec_eval", f"{len(runs)} runs, score", ["sh", "-c", loop])
    rows = case.run(args.repeats)
    for row, path in zip(rows, (one, every), strict=False):
        blocks = run_blocks(path)
        row["same_as_jobs_1"] = path.read_bytes() == one.read_bytes()
        if trec_eval and len(blocks) == len(runs):
            checks = [
                compare(block, trec_lines(te_folder / run.name), per_query=False)
                for block, run in zip(blocks, runs, strict=True)
            ]
            row["identical"] = all(same for same, _ in checks) and row["same_as_jobs_1"]
            row["values_checked"] = sum(count for _, count in checks)
    reference = {r["task"]: r for r in rows}
    te = next((r for r in rows if r["tool"] == "trec_eval"), None)
    for row in rows:
        row["ratio"] = row["seconds"] / te["seconds"] if te else None
        row["cpu_ratio"] = row["cpu_seconds"] / te["cpu_seconds"] if te else None
        row["memory_ratio"] = row["peak_mib"] / te["peak_mib"] if te else None
        row["lines_per_second"] = row["lines"] / row["seconds"]
    single = reference.get(f"{len(runs)} runs, --jobs 1")
    if single:
        for row in rows:
            row["vs_one_process"] = row["seconds"] / single["seconds"]
    return rows


def bench_dask(name, n_queries, depth, args, trec_eval, out) -> list[dict]:
    """One run through a local Dask cluster of two worker processes."""
    if importlib.util.find_spec("distributed") is None:
        print("  dask: not installed (pip install 'trecbench[dask]')")
        return []
    runs, qrels = _many(args, n_queries, depth)
    run = runs[0]
    case = Case(name, n_queries * depth)
    tb = _trecbench()
    ours, alone = out / f"{name}.trecbench.txt", out / f"{name}.trecbench-alone.txt"
    case.add(
        "trecbench",
        "score --dask local:2",
        [*tb, "score", "--format", "trec", "--dask", "local:2", qrels, run],
        ours,
    )
    case.add("trecbench", "score (one process)",
             [*tb, "score", "--format", "trec", qrels, run], alone)  # fmt: skip
    te = out / f"{name}.trec_eval.txt"
    if trec_eval:
        case.add("trec_eval", "score", [trec_eval, *TREC_EVAL_KPI, qrels, run], te)
    rows = case.run(1)
    for row, path in zip(rows, (ours, alone), strict=False):
        row["same_as_one_process"] = path.read_bytes() == alone.read_bytes()
        if trec_eval:
            same, row["values_checked"] = compare(path, trec_lines(te), per_query=False)
            row["identical"] = same and row["same_as_one_process"]
    _ratios(rows)
    return rows


BENCHES = {"huge": bench_huge, "scattered": bench_scattered, "many": bench_many,
           "dask": bench_dask, **commands.BENCHES}  # fmt: skip


def markdown(results: dict) -> str:
    header = (
        "| case | lines | tool | task | median s (best) | CPU s | vs trec_eval (CPU) "
        "| vs pytrec_eval script | peak MiB | load | output = trec_eval | machine |\n"
        "|---|---:|---|---|---:|---:|---:|---:|---:|---:|---|---|\n"
    )
    body = ""
    machine = results["machine"]["label"]
    for row in results["rows"]:
        ratio = ""
        if row.get("ratio") is not None:
            ratio = f"{row['ratio']:.2f}x ({row['cpu_ratio']:.2f}x)"
        if row["task"] == "validate" and row["lines"] >= 100_000:
            ratio = f"{row['lines_per_second'] / 1e6:.1f}M lines/s"
        same = {True: "identical", False: "DIFFERENT"}.get(row.get("identical"), "")
        if same and row.get("values_checked"):
            same += f" ({row['values_checked']:,} values"
            same += f"; {row['compared']})" if row.get("compared") else ")"
        load = f"{min(row['load']):.1f}-{max(row['load']):.1f}"
        script = f"{row['vs_pytrec_eval']:.2f}x" if row.get("vs_pytrec_eval") else ""
        body += (
            f"| {row['case']} | {row['lines']:,} | {row['tool']} | {row['task']} | "
            f"{row['seconds']:.2f} ({row['best_seconds']:.2f}) | {row['cpu_seconds']:.2f} | "
            f"{ratio} | {script} | {row['peak_mib']:.0f} | {load} | {same} | {machine} |\n"
        )
    for row in results["rows"]:
        if "vs_plain" in row:
            body += (
                f"\n{row['case']} gzipped: {row['vs_plain']:.2f}x the plain file's time (the "
                "median of the rounds' ratios, the two timed in alternating order), "
                f"{row['memory_vs_plain']:.2f}x its peak memory (the same reader; gzip read "
                f"through {results['machine']['gzip']}).\n"
            )
    for row in results["rows"]:
        if "growth" in row:
            body += (
                f"\n{row['task']}: {row['growth']:.1f}x the time of "
                f"{row['growth_from']:,} topics for {row['growth_to']:,} topics.\n"
            )
    many = [r for r in results["rows"] if "vs_one_process" in r and r["tool"] == "trecbench"]
    if many:
        fastest = min(many, key=lambda r: r["seconds"])
        body += (
            f"\n{fastest['case']}: {RUNS_AT_ONCE} runs on every core take "
            f"{fastest['vs_one_process']:.2f}x the time of one process "
            f"({results['machine']['cores']} cores).\n"
        )
    m = results["machine"]
    footer = (
        f"\nMachine: {m['cpu']}, {m['cores']} cores, {m['memory']}; {m['os']}; Python "
        f"{m['python']}, numpy {m['numpy']}, pyarrow {m['pyarrow']}; gzip: {m['gzip']}. trec_eval: "
        f"{results['trec_eval_build']} ({results['trec_eval'] or 'not found'}). Medians (and "
        f"best) of {results['repeats']} interleaved runs (2 for the 10M-line case, 1 for peers "
        "but on the small, track and medium cases and for the huge, scattered, dask, similarity, "
        "commands and report cases); CPU time is user + system, worker processes included; "
        "load is the 1-minute load average when each command started (2 cores: "
        f"above 2 the machine was shared); {results['date']}.\n"
    )
    return header + body + footer


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="topic counts / 10")
    # five rounds: the VM's rounds stall now and then in the kernel (0.7 s of system time
    # instead of 0.12 s on the KPI case); a median of three moved with two such rounds
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--cases", default=",".join(CASES))
    parser.add_argument("--peers", default="pytrec_eval,ir_measures,ranx",
                        help="peer tools to time when installed ('' for none)")  # fmt: skip
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=ROOT / "bench-results")
    parser.add_argument("--data", type=Path, default=None, help="data folder (default OUT/data)")
    parser.add_argument("--trec-eval-build", default="trec_eval 9.0.8, -O3 build",
                        help="what the trec_eval binary is, for the table")  # fmt: skip
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    args.data = args.data or args.out / "data"
    args.data.mkdir(parents=True, exist_ok=True)
    args.peers = [p for p in args.peers.split(",") if p]
    trec_eval = find_trec_eval()
    rows = []
    for name in args.cases.split(","):
        n_queries, depth = CASES[name]
        if args.quick and name not in PAIRED:
            n_queries //= 10
        rows += BENCHES.get(name, bench_case)(name, n_queries, depth, args, trec_eval, args.out)
    results = {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "machine": machine(),
        "trec_eval": trec_eval,
        "trec_eval_build": args.trec_eval_build,
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
