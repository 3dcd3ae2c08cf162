"""The Dask cluster ``score --dask`` scores on: a scheduler's address, or a local cluster.

An address is checked before a client is built on it: a ``tcp://`` address must answer as
a Dask scheduler does within :data:`CONNECT_TIMEOUT` seconds (a Dask server speaks first:
its handshake, an 8-byte length and that many bytes). A server that waits for a request
(HTTP) or greets with bytes of its own (SSH, SMTP) is refused in one line naming the
address; the client alone would wait for minutes, or read a greeting as the length of a
message and run out of memory.

A local cluster's worker processes end with this process (Dask's nanny sees to it) and
never take Ctrl-C: this process handles it and closes the cluster. The cluster starts with
signals held (:func:`~trecbench.processes.signals_held`), so that its threads and worker
processes are born deaf to it (a worker interrupted while importing printed a traceback)
and a Ctrl-C during the start is raised once the cluster is whole, and closes it (one
interrupted half-way was closed at exit with Dask's tracebacks); its event loop keeps to
itself what it would log of tasks abandoned when the cluster closes early. A worker that
ends as it starts is a :class:`~trecbench.errors.WorkerError`.
"""

from __future__ import annotations

import contextlib
import gc
import logging
import socket
import struct
import threading
import time
import weakref
from collections.abc import Iterator

from .errors import Setting, UsageError, WorkerError
from .extras import require
from .processes import available_cores, signals_held
from .scratch import Scratch

require("dask", "trecbench.dask (score --dask)")  # one line naming the extra when missing
require("distributed", "trecbench.dask (score --dask)")
import dask  # noqa: E402
from dask.distributed import Client, LocalCluster  # noqa: E402

CONNECT_TIMEOUT = 10.0  # seconds a scheduler has to answer
_HANDSHAKE_BYTES = 1 << 20  # far beyond a Dask handshake (a few hundred bytes)


# what a client needs to reach a scheduler by these schemes, which an address cannot give
NEEDS_SETTINGS = {
    "tls": "a security context (its certificates)",
    "wss": "a security context (its certificates)",
    "ucx": "the ucx-py package and its configuration",
}


def connect(address: str) -> Client:
    """A client of the scheduler at ``address``, or of a new local cluster of N worker
    processes for ``local:N`` (one thread each; N at most the cores this process may use).
    The local scheduler serves no dashboard, and its HTTP server (health checks) takes a
    free port on the loopback interface: none the user may be using (8787, the default,
    warned "already in use" when taken), and none open to the network. Its refusals name
    the address as :func:`trecbench.dask.evaluate`'s ``client`` (``score``: ``--dask``)."""
    if address.startswith("local:"):
        return _local_client(address)
    try:
        # parsed here, as the client would parse it: a client that fails to connect is
        # left half-built, and closing it when it is collected can hang a later client
        scheme, location = _check_address(address)
    except ValueError as exc:  # distributed's parse of the address
        raise UsageError(
            Setting("client", address, quoted=True), f": not a scheduler address ({exc})"
        ) from None
    if scheme in NEEDS_SETTINGS:  # distributed raised TypeError (exit 70)
        raise UsageError(
            Setting("client", address, quoted=True),
            f": a {scheme}:// address needs {NEEDS_SETTINGS[scheme]}, which an address "
            "cannot give: give trecbench.dask.evaluate a dask.distributed Client made with "
            "it in Python",
        )
    if scheme == "tcp":
        _check_scheduler(address, location)
    elif scheme == "ws":  # a WebSocket server says nothing first: its port is open, at least
        _check_listening(address, location)
    try:
        return _unlogged(Client(address, timeout=CONNECT_TIMEOUT))
    except (OSError, TimeoutError, TypeError, ValueError) as exc:
        refusal = _connect_refusal(address, exc)
    # the client that failed is left half-built, in a reference cycle: collected at some
    # later moment, its closing could deadlock a local cluster starting then (on the lock
    # of the cluster's event loop), so it is collected now, with no lock held
    gc.collect()
    raise refusal


def _connect_refusal(address: str, exc: Exception) -> UsageError:
    """What :func:`connect` says when distributed's Client failed to connect with ``exc``."""
    if isinstance(exc, (OSError, TimeoutError)):
        return UsageError(Setting("client", address), f": cannot connect ({exc})")
    # a worker's or a nanny's server: its identity() takes no n_workers
    if isinstance(exc, TypeError):
        return UsageError(
            Setting("client", address, quoted=True),
            ": not a Dask scheduler (a worker's or a nanny's address?)",
        )
    # distributed's unpacking of an inproc address (exit 70)
    return UsageError(
        Setting("client", address, quoted=True),
        ": cannot connect (no scheduler of this process has that address)",
    )


@contextlib.contextmanager
def cluster_failures(client: Client) -> Iterator[None]:
    """The cluster's own failures said as such, in one line and not as trecbench's bugs
    (they were internal errors, "Please report it"): a worker that died running a task
    (a :class:`WorkerError`, as a dead worker of ``--jobs``), tasks cancelled as workers
    or the scheduler were lost, a scheduler without a worker (its scatter timed out)."""
    from distributed import KilledWorker
    from distributed.client import FutureCancelledError

    address = getattr(client.scheduler, "address", None) or "the scheduler"
    try:
        yield
    except KilledWorker:
        raise WorkerError(
            f"a Dask worker of {address} died running a task of the run (killed, most "
            "often by the system for want of memory: the worker's log says why)"
        ) from None
    except FutureCancelledError as exc:
        reason = getattr(exc, "reason", None) or "no reason given"
        raise WorkerError(
            f"the Dask cluster at {address} cancelled the run's tasks ({reason}): its "
            "workers or its scheduler were lost"
        ) from None
    except OSError as exc:  # TimeoutError among them; all were said as an unreadable file
        if isinstance(exc, TimeoutError) and "No valid workers found" in str(exc):
            raise UsageError(
                f"the Dask scheduler at {address} has no worker: start some (dask worker {address})"
            ) from None
        if not _connection_lost(exc):
            raise
        detail = str(exc).rpartition(": ")[2] or "closed"  # the connection's repr left out
        raise WorkerError(
            f"the connection to the Dask scheduler at {address} was lost ({detail}): the "
            "scheduler exited or the network failed"
        ) from None


def _connection_lost(error: OSError) -> bool:
    """Whether ``error`` is distributed's of a scheduler gone mid-run: a connection closed
    under the client (CommClosedError) or one it could not open again ("Timed out trying
    to connect to ... after 10 s", a plain OSError), not a file's."""
    from distributed.comm.core import CommClosedError

    if isinstance(error, CommClosedError):
        return True
    return error.filename is None and str(error).startswith("Timed out trying to connect to ")


def logs_silenced() -> contextlib.AbstractContextManager:
    """distributed's logs held back while the command line works with a cluster, as a
    local cluster's are from its start (:func:`_started`): a scheduler lost mid-run had
    its client log every try to reconnect, with tracebacks, before the one line saying
    so. The command line's alone: a library caller's logging is its own."""
    from distributed.utils import silence_logging_cmgr

    return silence_logging_cmgr(logging.CRITICAL)


def refuse_local_bounds(memory, jobs, cli: bool = False) -> None:
    """``memory`` or ``jobs`` given with Dask is refused (a :class:`UsageError`), as an
    option taken and unused is elsewhere: they bound and share out the scoring in this
    process, which Dask hands to the cluster's workers (both were ignored, nothing said).
    ``cli``: named as ``score``'s options, else as :func:`trecbench.dask.evaluate`'s."""
    if memory is None and jobs is None:
        return
    options, dask = ("--memory and --jobs", "--dask") if cli else ("memory and jobs", "Dask")
    given = "with --dask" if cli else "to trecbench.dask.evaluate"
    raise UsageError(
        f"{options} bound the scoring in this process; {dask} scores the runs on the "
        f"cluster's workers: give neither {given}"
    )


def close(client: Client) -> None:
    """Close ``client`` and the local cluster it started (``local:N``), Ctrl-C held until
    both are closed (one closed half-way is closed again at exit, with tracebacks)."""
    with signals_held():
        cluster = client.cluster  # None for a client of a scheduler's address
        client.close()
        if cluster is not None:
            _close_cluster(cluster)


def _close_cluster(cluster) -> None:
    """Close a local cluster and remove its scratch folder (:func:`_local_cluster`)."""
    cluster.close()
    remove = getattr(cluster, "trecbench_scratch", None)
    if remove is not None:
        remove()


def _local_client(address: str) -> Client:
    """A client of a new local cluster (:func:`connect`'s ``local:N``), started whole with
    Ctrl-C held; a Ctrl-C meanwhile closes it and is raised."""
    cluster = client = None
    try:
        with signals_held():
            cluster = _local_cluster(address)
            client = _unlogged(Client(cluster))
    except BaseException:
        if client is not None:
            close(client)
        elif cluster is not None:
            with signals_held():
                _close_cluster(cluster)
        raise
    return client


def _unlogged(client: Client) -> Client:
    """``client``, its event loop set to say nothing of what no task retrieved (tasks a
    Ctrl-C abandons were logged, with tracebacks, when collected): what the work needs
    said, the client raises."""
    client.loop.asyncio_loop.set_exception_handler(lambda loop, context: None)
    return client


def _local_cluster(address: str) -> LocalCluster:
    count = address.split(":", 1)[1]
    # ASCII digits alone, as every integer an option takes (int() took " 2", "+2", "2_0")
    workers = int(count) if count.isascii() and count.isdigit() else 0
    if workers < 1:  # no worker: the scheduler would wait for one, then fail noisily
        raise UsageError(Setting("client", address), ": give local:N with N workers, at least 1")
    cores = available_cores()
    if workers > cores:  # each worker is a process: thousands exhaust the memory
        raise UsageError(
            Setting("client", address),
            f": at most local:{cores}, one worker per core of this machine",
        )
    # the scheduler's and workers' scratch folder, Dask's ``dask-scratch-space`` in TMPDIR
    # by default, left there with its lock files: one of this cluster's own, removed when
    # it closes (at exit at the latest), locked while it lives: one a SIGKILL leaves is
    # removed by the next (trecbench.scratch)
    scratch = Scratch("trecbench-dask-")
    try:
        cluster = _started(workers, scratch.path)
    except BaseException as exc:
        scratch.close()
        if not isinstance(exc, RuntimeError):
            raise
        # "Nanny failed to start.": the cluster is closed
        causes = "killed? out of memory?"
        if _main_run_again():
            causes += (
                " a script without an `if __name__ == '__main__':` guard, which each worker"
                " process runs again as it starts?"
            )
        raise WorkerError(
            Setting("client", address),
            f": a local Dask worker process ended as it started ({causes}): {exc}",
        ) from None
    cluster.trecbench_scratch = weakref.finalize(cluster, scratch.close)
    return cluster


def _main_run_again() -> bool:
    """Whether each worker process runs this program's main module again as it starts:
    multiprocessing spawns them, and a spawned process runs the main script (or ``python
    -m`` module) again but for its ``if __name__ == "__main__":`` block; unguarded, it
    starts a cluster in every worker, and the worker fails. Not so for trecbench's command
    line (``python -m trecbench``, the ``trecbench`` script: guarded) nor an interactive
    session (no main file)."""
    import sys

    main = sys.modules.get("__main__")
    if getattr(main, "__file__", None) is None:
        return False
    # told by name: the command line is a layer above this module, not imported here
    command_line = f"{__package__}.__main__"
    if getattr(getattr(main, "__spec__", None), "name", None) == command_line:
        return False  # python -m trecbench
    # the console script: `from trecbench.__main__ import main`
    return getattr(getattr(main, "main", None), "__module__", None) != command_line


def _started(workers: int, scratch: str) -> LocalCluster:
    """A local cluster of ``workers`` processes of one thread each, its scheduler's and
    workers' folders in ``scratch`` (passed to each: Dask's process-wide configuration is
    not this cluster's to set)."""
    return LocalCluster(
        local_directory=scratch,
        n_workers=workers,
        threads_per_worker=1,
        processes=True,
        dashboard_address="127.0.0.1:0",
        scheduler_kwargs={"dashboard": False, "local_directory": scratch},
        # a task's failure (bad input) is raised again here and printed in one line:
        # the workers' own log of it (ERROR, with a traceback) would say it twice
        silence_logs=logging.CRITICAL,
        # each worker process runs dask_setup as it starts
        preload=[*dask.config.get("distributed.worker.preload", []), __name__],
    )


def dask_setup(worker) -> None:
    """Run by every worker process of a local cluster as it starts (a Dask preload): Ctrl-C
    at the terminal reaches the whole process group, but is the client's to handle (it
    closes the cluster, and with it the workers), so that no worker prints a traceback."""
    import signal

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)


def _check_address(address: str) -> tuple[str, str]:
    """``(scheme, location)``; ValueError (distributed's) unless ``address`` has a known
    scheme and, for TCP, TLS and WebSocket, a host and a port."""
    from distributed.comm.addressing import parse_address, parse_host_port
    from distributed.comm.registry import get_backend

    scheme, location = parse_address(address)
    get_backend(scheme)
    if scheme in ("tcp", "tls", "ws"):
        parse_host_port(location)
    return scheme, location


def _check_scheduler(address: str, location: str) -> None:
    """A :class:`UsageError` naming ``address`` unless what listens there starts a Dask
    handshake within :data:`CONNECT_TIMEOUT` seconds."""
    from distributed.comm.addressing import parse_host_port

    deadline = time.monotonic() + CONNECT_TIMEOUT
    try:
        with socket.create_connection(parse_host_port(location), CONNECT_TIMEOUT) as sock:
            header = _receive(sock, 8, deadline)
    except TimeoutError:
        raise UsageError(
            Setting("client", address),
            f": no Dask scheduler answered within {CONNECT_TIMEOUT:g} s (a server of another "
            "protocol, such as HTTP?)",
        ) from None
    except OSError as exc:
        raise UsageError(
            Setting("client", address), f": cannot connect ({exc.strerror or exc})"
        ) from None
    (length,) = struct.unpack("<Q", header) if len(header) == 8 else (0,)
    if not 0 < length <= _HANDSHAKE_BYTES:
        shown = f"{header!r}" if header else "nothing (it closed the connection)"
        raise UsageError(Setting("client", address), f": not a Dask scheduler: it answered {shown}")


def _check_listening(address: str, location: str) -> None:
    """A :class:`UsageError` naming ``address`` unless something accepts a connection at
    its host and port within :data:`CONNECT_TIMEOUT` seconds (a closed port waited the
    client's whole timeout, then said it timed out)."""
    from distributed.comm.addressing import parse_host_port

    try:
        with socket.create_connection(parse_host_port(location), CONNECT_TIMEOUT):
            pass
    except OSError as exc:  # TimeoutError is one
        raise UsageError(
            Setting("client", address), f": cannot connect ({exc.strerror or exc})"
        ) from None


def _receive(sock: socket.socket, size: int, deadline: float) -> bytes:
    """Up to ``size`` bytes from ``sock`` (fewer when it closes), by ``deadline``."""
    data = b""
    while len(data) < size:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError
        sock.settimeout(left)
        chunk = sock.recv(size - len(data))
        if not chunk:
            break
        data += chunk
    return data
