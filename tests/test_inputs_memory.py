"""Reading stays within --memory whatever the lines hold (issue 25 item 9): a run of blank
lines is tokenized a chunk at a time when read whole, its findings' line numbers held
compactly, and the findings counted with the first few shown."""

from __future__ import annotations

import subprocess
import sys

from conftest import ROOT

MIB = 1 << 20
# the peak resident memory of a child process, measured in a process of its own (the
# children of the test process may have been larger)
_PEAK = """
import resource, subprocess, sys
done = subprocess.run(sys.argv[1:], capture_output=True, text=True)
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # KiB on Linux
print(done.returncode, peak * 1024, done.stderr.splitlines()[-1], sep="\\n")
"""


def test_a_run_of_blank_lines_is_scored_within_the_budget(tmp_path):
    run = tmp_path / "blank.run"
    run.write_bytes(b"\n" * 10_000_000)  # 10 MB, ten million blank lines
    qrels = ROOT / "qrels" / "hpo-demo.qrels"
    command = [sys.executable, "-m", "trecbench", "score", "--memory", "256", str(qrels), str(run)]
    found = subprocess.run(
        [sys.executable, "-c", _PEAK, *command], capture_output=True, text=True, check=True
    )
    code, peak, last = found.stdout.splitlines()
    assert (int(code), last) == (2, f"trecbench: {run}: error[R9]: no data lines")
    assert int(peak) < 256 * MIB  # was 367 MB
