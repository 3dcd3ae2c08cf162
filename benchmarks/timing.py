"""Timing of whole processes for ``make bench``: wall time, CPU time (children included),
peak memory and the load when each started; commands timed in interleaved rounds."""

from __future__ import annotations

import os
import statistics
import subprocess
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

GNU_TIME = "/usr/bin/time"


def _environment() -> dict[str, str]:
    """The children's environment: bytecode cached, as an installed package runs."""
    return {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def timed(command: list[str], stdout_path: Path | None = None) -> tuple[float, float, int, float]:
    """``(wall seconds, peak RSS MiB, exit code, CPU seconds)`` of one process (and its
    children: worker processes' CPU time counts; the memory is the largest process's).

    The peak comes from GNU time when present: a child forked straight from this (large)
    harness would report the harness's own memory as its peak (Linux keeps the high-water
    mark across exec); GNU time is small, so the command's peak is its own.
    """
    memory_file = Path(os.environ.get("TMPDIR", "/tmp")) / f"trecbench-bench-{os.getpid()}.mem"
    wrapped = command
    if os.access(GNU_TIME, os.X_OK):
        wrapped = [GNU_TIME, "-f", "%M %U %S", "-o", str(memory_file), *command]
    out = open(stdout_path, "wb") if stdout_path else subprocess.DEVNULL  # noqa: SIM115
    try:
        start = time.perf_counter()
        process = subprocess.Popen(
            wrapped, stdout=out, stderr=subprocess.DEVNULL, cwd=ROOT, env=_environment()
        )
        _, status, usage = os.wait4(process.pid, 0)
        elapsed = time.perf_counter() - start
    finally:
        if stdout_path:
            out.close()
    peak_kib, cpu = usage.ru_maxrss, usage.ru_utime + usage.ru_stime
    if wrapped is not command:
        fields = memory_file.read_text().split()[-3:]
        peak_kib, cpu = int(fields[0]), float(fields[1]) + float(fields[2])
        memory_file.unlink()
    return elapsed, peak_kib / 1024, os.waitstatus_to_exitcode(status), cpu


def summarise(runs: list[tuple]) -> dict:
    """Median and best wall time, median CPU time, largest peak memory, last exit code and
    the load averages of repeated runs."""
    return {
        "seconds": statistics.median(r[0] for r in runs),
        "best_seconds": min(r[0] for r in runs),
        "all_seconds": [round(r[0], 3) for r in runs],
        "cpu_seconds": statistics.median(r[3] for r in runs),
        "peak_mib": max(r[1] for r in runs),
        "exit_code": runs[-1][2],
        "load": [round(r[4], 2) for r in runs],
    }


class Case:
    """The commands of one case, timed in interleaved rounds (each command once per
    round, so that a slow spell of a shared machine hits trecbench and trec_eval alike)."""

    def __init__(self, name: str, lines: int):
        self.name, self.lines = name, lines
        self.commands: list[tuple[str, str, list[str], Path | None, bool]] = []
        self.swapped: tuple[str, str] | None = None

    def add(self, tool, task, command, stdout=None, every_round=True) -> None:
        self.commands.append((tool, task, [str(part) for part in command], stdout, every_round))

    def alternate(self, first: str, second: str) -> None:
        """Swap trecbench's tasks ``first`` and ``second`` in every other round, for a
        ratio of the two free of their order: on this VM a process's time depends on the
        one just before it (after ``validate`` the plain run took 0.05 s less than after
        the gzipped one, by hand on 2026-12-03: 1.21x in one order, 1.16x in the other)."""
        self.swapped = (first, second)

    def _order(self, round_: int) -> list[int]:
        """The commands' indices in the order of round ``round_``."""
        order = list(range(len(self.commands)))
        if self.swapped is not None and round_ % 2:
            a, b = (self._index(task) for task in self.swapped)
            order[a], order[b] = order[b], order[a]
        return order

    def _index(self, task: str) -> int:
        return next(i for i, c in enumerate(self.commands) if c[:2] == ("trecbench", task))

    def run(self, repeats: int) -> list[dict]:
        timings: dict[int, list] = {i: [] for i in range(len(self.commands))}
        for round_ in range(repeats):
            for i in self._order(round_):
                _, _, command, stdout, every_round = self.commands[i]
                if every_round or round_ == repeats - 1:
                    load = os.getloadavg()[0]
                    timings[i].append((*timed(command, stdout), load))
        rows = []
        for i, (tool, task, command, _, _) in enumerate(self.commands):
            row = summarise(timings[i])
            row.update(case=self.name, lines=self.lines, tool=tool, task=task, command=command)
            rows.append(row)
            print(f"  {self.name:9s} {tool:12s} {task:22s} {row['seconds']:8.2f} s "
                  f"{row['cpu_seconds']:8.2f} cpu {row['peak_mib']:7.0f} MiB  "
                  f"exit {row['exit_code']}  load {row['load']}", flush=True)  # fmt: skip
        return rows
