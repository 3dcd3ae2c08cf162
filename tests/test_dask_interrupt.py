"""Ctrl-C during ``score --dask local:2``: one line and exit 130 wherever it lands, while
the local cluster starts (a worker interrupted while importing printed a traceback, a
cluster interrupted half-way was closed at exit with Dask's tracebacks) or while it
scores (tasks the closing cluster abandoned were logged), and no process left behind."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest
from conftest import ROOT

pytest.importorskip("dask")
pytest.importorskip("distributed")
pytestmark = pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads /proc")

QRELS = str(ROOT / "qrels" / "hpo-demo.qrels")
RUN = str(ROOT / "runs" / "tfidf-word.run")

# `trecbench score --dask local:1` (one worker: the same start, sooner) with the terminal's
# Ctrl-C (SIGINT to the whole process group) sent a moment after one point: the cluster's
# start, a worker process's start (it imports for a second or more), the client's
# connection (scoring)
_SCORE = """
import os, signal, sys, threading
import multiprocessing.process
from trecbench import dask as on_dask, dask_cluster
from trecbench.cli import main

point = sys.argv[1]

def interrupt(after=0.0):
    group = os.getpgid(0)
    threading.Timer(after, os.killpg, (group, signal.SIGINT)).start()

if point == "cluster":
    cluster = dask_cluster.LocalCluster
    def started_cluster(*args, **kwargs):
        interrupt(0.2)
        return cluster(*args, **kwargs)
    dask_cluster.LocalCluster = started_cluster
elif point == "worker":
    start = multiprocessing.process.BaseProcess.start
    def started_process(self):
        start(self)
        if "Dask Worker" in self.name:
            interrupt(0.3)
    multiprocessing.process.BaseProcess.start = started_process
else:
    connect = on_dask.connect
    def connected(address):
        client = connect(address)
        interrupt(0.3)
        return client
    on_dask.connect = connected
sys.argv = ["trecbench", "score", "--dask", "local:1", *sys.argv[2:]]
main()
"""


def _group(pgid: int) -> list[int]:
    """The processes of group ``pgid`` still running (zombies have ended)."""
    running = []
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{entry}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except (FileNotFoundError, ProcessLookupError):
            continue
        if fields[0] != "Z" and int(fields[2]) == pgid:
            running.append(int(entry))
    return running


@pytest.mark.parametrize("point", ["cluster", "worker", "scoring"])
def test_ctrl_c_while_a_local_cluster_starts_or_scores_ends_quietly(point):
    score = subprocess.Popen(
        [sys.executable, "-c", _SCORE, point, QRELS, RUN],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        out, err = score.communicate(timeout=120)
        deadline = time.monotonic() + 10
        while _group(score.pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert (score.returncode, out, err) == (130, "", "trecbench: interrupted\n")
        assert _group(score.pid) == []
    finally:
        for pid in _group(score.pid):
            os.kill(pid, signal.SIGKILL)
