"""The Dask cluster's own failures are said in one line, not as trecbench's bugs (they
were internal errors, "Please report it"): a worker's or a nanny's address given as the
scheduler's, a worker that died running a task, tasks cancelled as the cluster lost its
workers or scheduler, a scheduler without a worker."""

from __future__ import annotations

import io
import logging
from types import SimpleNamespace

import pytest
from conftest import local_cluster

distributed = pytest.importorskip("dask.distributed")

from distributed.comm.core import CommClosedError  # noqa: E402

import trecbench.dask as tbdask  # noqa: E402
from trecbench.dask_cluster import cluster_failures  # noqa: E402
from trecbench.errors import UsageError, WorkerError  # noqa: E402

ADDRESS = "tcp://10.0.0.1:8786"
STAND_IN = SimpleNamespace(scheduler=SimpleNamespace(address=ADDRESS))


def test_a_worker_s_address_is_no_scheduler_s():
    # Client(worker address) raised "TypeError: Worker.identity() got an unexpected
    # keyword argument 'n_workers'" (exit 70)
    cluster = local_cluster(1, "tcp://")
    try:
        (worker,) = cluster.workers.values()
        with pytest.raises(UsageError) as refused:
            tbdask.connect(worker.address)
        assert str(refused.value) == (
            f"client='{worker.address}': not a Dask scheduler (a worker's or a nanny's address?)"
        )
    finally:
        cluster.close()


@pytest.mark.parametrize(
    ("raised", "error", "message"),
    [
        (distributed.KilledWorker("_read_text-1", "tcp://10.0.0.2:4000", 3), WorkerError,
         f"a Dask worker of {ADDRESS} died running a task of the run (killed, most often "
         "by the system for want of memory: the worker's log says why)"),
        (distributed.client.FutureCancelledError("getitem-1", "lost dependencies"),
         WorkerError,
         f"the Dask cluster at {ADDRESS} cancelled the run's tasks (lost dependencies): its "
         "workers or its scheduler were lost"),
        # the scheduler stopped mid-run: said "in <TCP (closed) ...>: Stream is closed",
        # exit 2, as an unreadable file
        (CommClosedError(
            "in <TCP (closed) ConnectionPool.scatter local=tcp://127.0.0.1:51000 "
            "remote=tcp://10.0.0.1:8786>: Stream is closed"), WorkerError,
         f"the connection to the Dask scheduler at {ADDRESS} was lost (Stream is closed): "
         "the scheduler exited or the network failed"),
        # killed just after the client connected: its scatter could not connect again
        (OSError("Timed out trying to connect to tcp://10.0.0.1:8786 after 10 s"),
         WorkerError,
         f"the connection to the Dask scheduler at {ADDRESS} was lost (Timed out trying to "
         "connect to tcp://10.0.0.1:8786 after 10 s): the scheduler exited or the network "
         "failed"),
        (TimeoutError("No valid workers found"), UsageError,
         f"the Dask scheduler at {ADDRESS} has no worker: start some (dask worker {ADDRESS})"),
    ],
)  # fmt: skip
def test_a_failure_of_the_cluster_is_said_in_one_line(raised, error, message):
    with pytest.raises(error) as said:
        with cluster_failures(STAND_IN):
            raise raised
    assert str(said.value) == message


def test_other_errors_pass_as_they_are():
    unreadable = FileNotFoundError(2, "No such file or directory", "Timed out trying to connect to")
    for raised in (TimeoutError("reading took too long"), ValueError("x"), unreadable):
        with pytest.raises(type(raised)) as passed:
            with cluster_failures(STAND_IN):
                raise raised
        assert passed.value is raised


def test_the_command_line_says_a_lost_scheduler_in_its_one_line_alone(
    tmp_path, monkeypatch, capsys
):
    # a scheduler stopped mid-run: the client logged each try to reconnect, with
    # tracebacks, before trecbench's line said the run's tasks were cancelled
    from trecbench.cli import run

    def lost(*_args, **_kwargs):
        logging.getLogger("distributed.client").error("Traceback (most recent call last):")
        raise WorkerError("the Dask cluster at ... cancelled the run's tasks")

    (tmp_path / "q").write_text("1 0 d 1\n")
    (tmp_path / "r").write_text("1 Q0 d 1 1.0 t\n")
    monkeypatch.setattr("trecbench.evaluation.evaluate", lost)
    # distributed's handler of a process of its own, one for both loggers (on stderr;
    # under pytest, whose handlers the root has, distributed installs none)
    logged = io.StringIO()
    handler = logging.StreamHandler(logged)
    for name in ("distributed", "distributed.client"):
        monkeypatch.setattr(logging.getLogger(name), "handlers", [handler])
        monkeypatch.setattr(logging.getLogger(name), "propagate", False)
    cluster = local_cluster(1, "tcp://")
    try:
        code = run(["score", "--dask", cluster.scheduler_address, str(tmp_path / "q"),
                    str(tmp_path / "r")])  # fmt: skip
    finally:
        cluster.close()
    err = capsys.readouterr().err
    assert code == 70 and err == "trecbench: the Dask cluster at ... cancelled the run's tasks\n"
    assert "Traceback" not in logged.getvalue(), logged.getvalue()
    # a library caller's logging is its own: distributed's logs are said again after
    logging.getLogger("distributed.client").error("said")
    assert "said" in logged.getvalue()
