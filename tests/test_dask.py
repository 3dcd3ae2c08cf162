"""trecbench.dask: runs scored on a Dask cluster (a LocalCluster of 2 workers in this
process) give exactly what trecbench.evaluate gives in one process: every printed line,
warnings, flagged topics, records, errors; from TREC files, Dask DataFrames and Parquet."""

from __future__ import annotations

import functools
import os
import re

import pytest
from conftest import local_cluster
from random_cases import random_case
from test_blocks import _outcome  # what an evaluation shows, or the error it raised

dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("dask.distributed")

import pandas as pd  # noqa: E402
import pyarrow as pa  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402

import trecbench.dask as tbdask  # noqa: E402
from trecbench import (  # noqa: E402
    InputError,
    dask_cluster,  # noqa: E402
    evaluate,
    inputs,
)
from trecbench.renderers import trec_format  # noqa: E402


@pytest.mark.parametrize(
    "seed, measures, options",
    [
        (1, None, {}),
        (2, ["official"], {"complete": True}),
        (3, None, {"max_docs": 4, "judged_only": True}),
        (4, ["P.3", "map", "ndcg_cut.5"], {"relevance_level": 2, "tie_bounds": True}),
    ],
)
def test_trec_files_score_as_in_one_process(seed, measures, options, tmp_path, client):
    qrels_text, run_text = random_case(9000 + seed, n_topics=6, shuffle=seed % 2 == 1)
    (tmp_path / "qrels").write_text(qrels_text)
    (tmp_path / "run").write_text(run_text)
    qrels, run = str(tmp_path / "qrels"), str(tmp_path / "run")
    here = _outcome(lambda: evaluate(qrels, run, measures, **options))
    there = _outcome(
        lambda: tbdask.evaluate(qrels, run, measures, client=client, partitions=3, **options)
    )
    assert there == here
    if options.get("tie_bounds"):
        bounds = [
            call().tie_bounds
            for call in (
                lambda: evaluate(qrels, run, measures, **options),
                lambda: tbdask.evaluate(qrels, run, measures, client=client, **options),
            )
        ]
        assert bounds[0].equals(bounds[1])


def _frame(run_text: str) -> pd.DataFrame:
    rows = [line.split() for line in run_text.splitlines()]
    frame = pd.DataFrame(rows, columns=["qid", "q0", "docno", "rank", "score", "tag"])
    return frame.astype({"score": float}).drop(columns=["q0", "rank"])


def test_a_dask_dataframe_scores_as_the_pandas_one(tmp_path, client):
    qrels_text, run_text = random_case(9100, n_topics=6, shuffle=True)
    (tmp_path / "qrels").write_text(qrels_text)
    frame = _frame(run_text)
    here = _outcome(lambda: evaluate(str(tmp_path / "qrels"), frame))
    shards = dd.from_pandas(frame, npartitions=4)
    there = _outcome(lambda: tbdask.evaluate(str(tmp_path / "qrels"), shards, client=client))
    assert there == here


def test_parquet_shards_score_as_their_concatenation(tmp_path, client):
    qrels_text, run_text = random_case(9200, n_topics=6)
    (tmp_path / "qrels").write_text(qrels_text)
    table = pa.Table.from_pandas(_frame(run_text), preserve_index=False)
    half = table.num_rows // 2
    (tmp_path / "shards").mkdir()
    pq.write_table(table.slice(0, half), tmp_path / "shards" / "a.parquet")
    pq.write_table(table.slice(half), tmp_path / "shards" / "b.parquet")
    qrels = str(tmp_path / "qrels")
    here = evaluate(qrels, {"run": inputs.load_run(table)})
    there = tbdask.evaluate(qrels, {"run": str(tmp_path / "shards" / "*.parquet")}, client=client)
    render = trec_format.render_trec
    assert render(there, per_query=True, summary=True) == render(here, per_query=True, summary=True)


def test_errors_are_those_of_one_process(tmp_path, client):
    qrels_text, run_text = random_case(9300, n_topics=5, shuffle=False)
    lines = run_text.splitlines()
    (tmp_path / "qrels").write_text(qrels_text)
    (tmp_path / "run").write_text("\n".join([*lines, lines[3]]) + "\n")  # a document twice
    qrels, run = str(tmp_path / "qrels"), str(tmp_path / "run")
    here = _outcome(lambda: evaluate(qrels, run))
    assert here[0] == "DuplicateError"
    assert _outcome(lambda: tbdask.evaluate(qrels, run, client=client)) == here


def test_an_unreadable_file_says_why(tmp_path, client):
    from trecbench.errors import InputError

    qrels_text, _ = random_case(1)
    (tmp_path / "qrels").write_text(qrels_text)
    missing = str(tmp_path / "missing.parquet")
    with pytest.raises(InputError, match=r"missing.parquet: cannot read: No such file"):
        tbdask.evaluate(str(tmp_path / "qrels"), missing, client=client)


@pytest.mark.parametrize(
    "measures, options, cause",
    [
        (["dcg", "map"], {}, r"this call has dcg \(trecbench's native port\)$"),
        (["map"], {"compat": "10.0"}, r"this call has compat='10.0'$"),
        (["map"], {"debug_level": 1}, r"this call has debug_level$"),
        # -D traces nDCG@10 in the ports: it was named as asked of a native port
        (["nDCG@10", "map"], {"debug_level": 1}, r"this call has debug_level$"),
        # with a measure only the ports compute, named still
        (["dcg", "map"], {"debug_level": 1}, r"has debug_level, dcg \(trecbench's native port\)$"),
    ],
)
def test_a_run_dask_cannot_score_names_the_cause(measures, options, cause, tmp_path):
    """Refused before the run goes to a cluster (none is needed), naming what the user
    asked for, in the library's keywords (a command line's flags: ``--compat 10.0``,
    ``-D``): a native port's measure is no flag."""
    from trecbench.cli.group import KEYWORD_FLAGS
    from trecbench.errors import UsageError

    qrels_text, run_text = random_case(9400, n_topics=3)
    (tmp_path / "qrels").write_text(qrels_text)
    (tmp_path / "run").write_text(run_text)
    run = tbdask.DaskRun(str(tmp_path / "run"))
    with pytest.raises(UsageError, match=cause) as refused:
        evaluate(str(tmp_path / "qrels"), run, measures, **options)
    worded = refused.value.worded(KEYWORD_FLAGS)
    assert "without -R, -Z, -D or the measures" in worded
    flag = {"compat": "--compat 10.0", "debug_level": "-D"}.get(next(iter(options), None))
    assert f"this call has {flag}" in worded if flag else "has dcg" in worded


@pytest.mark.parametrize(
    "address",
    ["local:0", "local:-1", "local:two", "local:", "local:2 ", "local:+1", "local:\u0661"],
)
def test_a_local_cluster_needs_a_worker(address):
    from trecbench.errors import UsageError

    with pytest.raises(UsageError, match="at least 1"):
        tbdask.connect(address)


@pytest.mark.parametrize(
    "address", ["", "foo", "tcp://[::1", "tcp://host:x", "xyz://host:1", "ws://127.0.0.1"]
)
def test_a_bad_scheduler_address_is_a_usage_error(address):
    from trecbench.errors import UsageError

    with pytest.raises(UsageError, match="not a scheduler address"):
        tbdask.connect(address)


@pytest.mark.parametrize(
    ("address", "needs"),
    [
        ("tls://127.0.0.1:1", "a security context (its certificates)"),
        ("wss://127.0.0.1:1", "a security context (its certificates)"),
        ("ucx://127.0.0.1:1", "the ucx-py package and its configuration"),
    ],
)
def test_an_address_whose_scheme_needs_settings_is_a_usage_error(address, needs):
    # distributed raised TypeError (tls: no security context; ucx): exit 70
    from trecbench.errors import UsageError

    scheme = address.split("://")[0]
    with pytest.raises(UsageError) as refused:
        tbdask.connect(address)
    assert str(refused.value) == (
        f"client='{address}': a {scheme}:// address needs {needs}, which an address cannot "
        "give: give trecbench.dask.evaluate a dask.distributed Client made with it in Python"
    )


def test_an_inproc_address_of_no_scheduler_here_cannot_connect():
    # distributed's ValueError (exit 70): "not enough values to unpack"
    from trecbench.errors import UsageError

    with pytest.raises(UsageError) as refused:
        tbdask.connect("inproc://x")
    assert str(refused.value) == (
        "client='inproc://x': cannot connect (no scheduler of this process has that address)"
    )


def test_a_client_that_failed_to_connect_is_collected_before_the_refusal():
    """The half-built client, left in a reference cycle, was collected whenever the
    garbage collector next ran: once while a local cluster started, and its closing
    deadlocked that start (the suite hung in CI 266 and 272)."""
    import gc

    from trecbench.errors import UsageError

    def clients():
        return sum(isinstance(thing, distributed.Client) for thing in gc.get_objects())

    gc.collect()
    gc.disable()  # only connect's own collection may collect it
    try:
        before = clients()
        with pytest.raises(UsageError):
            tbdask.connect("inproc://x")
        assert clients() == before
    finally:
        gc.enable()


def test_a_local_cluster_has_at_most_a_worker_per_core(monkeypatch):
    from trecbench.errors import UsageError

    def no_cluster(*args, **kwargs):
        raise AssertionError("a cluster was started")

    monkeypatch.setattr(dask_cluster, "LocalCluster", no_cluster)
    monkeypatch.setattr(dask_cluster, "available_cores", lambda: 2)  # the cores it may use
    for address in ["local:3", f"local:{10**20}"]:
        with pytest.raises(UsageError, match="at most local:2"):
            tbdask.connect(address)


def test_a_local_cluster_takes_no_port_the_user_may_use(recwarn):
    """No dashboard, and the scheduler's HTTP server on a free loopback port: a taken 8787
    (dask's default) is no warning, and nothing listens on the network."""
    import socket

    taken = socket.socket()
    try:
        taken.bind(("127.0.0.1", 8787))
        taken.listen()
    except OSError:
        pass  # already taken by something else: the same case
    try:
        with tbdask.connect("local:1") as connected:
            server = connected.cluster.scheduler.http_server
            host, port = next(iter(server._sockets.values())).getsockname()[:2]
            assert (host, port != 8787) == ("127.0.0.1", True)
            assert connected.submit(sum, [1, 2]).result() == 3
    finally:
        taken.close()
    assert not [w for w in recwarn if "8787" in str(w.message)]


def test_a_parquet_shard_lacking_a_column_is_bad_input(tmp_path, client):
    """As in one process (exit 2, the file's own columns listed), not a usage error."""
    from trecbench.errors import InputError

    qrels_text, _ = random_case(1)
    (tmp_path / "qrels").write_text(qrels_text)
    shard = tmp_path / "shard.parquet"
    pq.write_table(pa.table({"query": ["q"], "docno": ["d"], "score": [1.0]}), shard)
    message = r"shard.parquet: no query id column .*; columns: query, docno, score$"
    with pytest.raises(InputError, match=message):
        tbdask.evaluate(str(tmp_path / "qrels"), str(shard), client=client)


def test_an_empty_parquet_run_is_refused_as_in_one_process(tmp_path, client):
    """'empty run file' on Dask, where one process says validate's R26 (reviewer 245)."""
    (tmp_path / "qrels").write_text("q1 0 d1 1\n")
    empty = tmp_path / "empty.parquet"
    columns = {"qid": pa.array([], pa.string()), "docno": pa.array([], pa.string())}
    pq.write_table(pa.table({**columns, "score": pa.array([], pa.float64())}), empty)
    for scored in (functools.partial(tbdask.evaluate, client=client), evaluate):
        with pytest.raises(InputError) as raised:
            scored(str(tmp_path / "qrels"), str(empty))
        assert raised.value.cli_line() == f"{empty}: error[R26]: empty file"


def test_an_ontology_is_read_once_and_warned_of_once_on_dask(tmp_path, client):
    """Dask's workers loaded --ontology by its path: a FIFO waited for good for a second
    writer, and what the file leaves out (is_a to an id it lacks) was said by no one
    (reviewer 245). The client reads it, says it and hands it to the workers."""
    from test_ontology import OBO
    from test_ontology_read_once import _within_one_feed

    text = OBO + "\n[Term]\nid: HP:0000099\nname: orphan\nis_a: HP:0009999\n"
    (tmp_path / "hp.obo").write_text(text)
    (tmp_path / "q").write_text("q1 0 HP:0000004 1\n")
    runs = {}  # a list of paths is one run's files on Dask
    for name, term in (("a", "HP:0000099"), ("b", "HP:0000004")):
        (tmp_path / f"{name}.run").write_text(f"q1 Q0 {term} 1 1 {name}\n")
        runs[name] = str(tmp_path / f"{name}.run")
    fifo = tmp_path / "p"
    os.mkfifo(fifo)
    filed = evaluate(
        str(tmp_path / "q"), runs, ["MaxOntSim@1"], options={"ontology": str(tmp_path / "hp.obo")}
    )

    def piped():
        options = {"ontology": str(fifo)}
        return tbdask.evaluate(
            str(tmp_path / "q"), runs, ["MaxOntSim@1"], options=options, client=client
        )

    scored = _within_one_feed(piped, fifo, text)
    assert [r.summary for r in scored.runs] == [r.summary for r in filed.runs]
    assert [r.summary["maxontsim_1"] for r in filed.runs] == [0.0, 1.0]
    (warning,) = scored.input_warnings
    assert warning.startswith(f"{fifo}: 2 is_a edges to an id the file does not define")


def test_a_local_cluster_does_not_log_what_it_raises(capfd):
    """A task's failure on a local cluster is raised in the client (and printed there in
    one line); the workers log nothing of it: no second report, no traceback."""

    def fails():
        raise ValueError("bad input")

    with tbdask.connect("local:1") as connected:
        with pytest.raises(ValueError, match="bad input"):
            connected.submit(fails).result()
    assert "Compute Failed" not in capfd.readouterr().err


def test_each_parquet_shard_is_checked_under_its_own_name(tmp_path, client):
    """Shards are read one by one: a bad value or a missing column in the second names the
    second, at its own row (the first shard's name was given to every partition, and a
    column missing from a later shard was an internal error)."""
    from trecbench.errors import InputError

    qrels_text, _ = random_case(1)
    (tmp_path / "qrels").write_text(qrels_text)
    good = {"qid": ["q", "q"], "docno": ["d", "e"], "score": [2.0, 1.0]}
    for name, second, message in [
        ("bad", {**good, "score": ["1", "x"]}, r"b.parquet: row 2: score 'x' is not a number$"),
        ("lacking", {"query": ["r"], "docno": ["d"], "score": [1.0]}, "b.parquet: no query id"),
    ]:
        (tmp_path / name).mkdir()
        pq.write_table(pa.table(good), tmp_path / name / "a.parquet")
        pq.write_table(pa.table(second), tmp_path / name / "b.parquet")
        with pytest.raises(InputError, match=message):
            tbdask.evaluate(str(tmp_path / "qrels"), str(tmp_path / name), client=client)


def test_a_shard_split_into_row_groups_names_rows_in_the_file(tmp_path, client, monkeypatch):
    """Dask reads a large shard as one partition per row group, each indexed from 0: an
    error names the row in the file, as one process does (it named row 5 of row 25; rows
    count from 1, as lines)."""
    from trecbench.errors import InputError

    n = 30
    scores = [str(float(n - i)) for i in range(n)]
    scores[25] = "x"
    run = tmp_path / "run.parquet"
    table = pa.table({"qid": ["1"] * n, "docno": [f"d{i}" for i in range(n)], "score": scores})
    pq.write_table(table, run, row_group_size=10)
    (tmp_path / "qrels").write_text("1 0 d1 1\n")
    # what split_row_groups="infer" does for a shard beyond Dask's blocksize (256 MiB)
    monkeypatch.setattr(
        dd, "read_parquet", functools.partial(dd.read_parquet, split_row_groups=True)
    )
    qrels = str(tmp_path / "qrels")
    with pytest.raises(InputError, match=r"row 26: score 'x' is not a number$"):
        evaluate(qrels, str(run))
    with pytest.raises(InputError, match=r"row 26: score 'x' is not a number$"):
        tbdask.evaluate(qrels, str(run), client=client)


def _server(greeting: bytes | None):
    """A loopback server for one connection that is no Dask scheduler: it waits for a
    request (None, as HTTP does), greets first, or closes at once (b""); it closes
    itself within 5 s."""
    import socket
    import threading

    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(5)

    def serve():
        with listener:
            try:
                connection, _ = listener.accept()
            except OSError:
                return
            with connection:
                connection.settimeout(5)
                if greeting == b"":
                    return
                if greeting is not None:
                    connection.sendall(greeting)
                try:
                    connection.recv(1024)  # until the client closes, at most 5 s
                except OSError:
                    pass

    threading.Thread(target=serve, daemon=True).start()
    return f"tcp://127.0.0.1:{listener.getsockname()[1]}"


@pytest.mark.parametrize(
    "greeting, message",
    [
        (None, r"no Dask scheduler answered within 0.3 s \(a server of another protocol"),
        (b"SSH-2.0-OpenSSH_9.6\r\n", r"not a Dask scheduler: it answered b'SSH-2.0-'$"),
        (b"", r"not a Dask scheduler: it answered nothing \(it closed the connection\)$"),
    ],
)
def test_an_address_that_is_no_scheduler_fails_in_the_connect_timeout(
    greeting, message, monkeypatch
):
    """An HTTP port hung for minutes with no message; a port that greets first gave `out of
    memory` (its greeting read as the length of a message)."""
    import re
    import time

    from trecbench.errors import UsageError

    monkeypatch.setattr(dask_cluster, "CONNECT_TIMEOUT", 0.3)
    address = _server(greeting)
    started = time.monotonic()
    with pytest.raises(UsageError, match=f"^client={re.escape(repr(address))}: {message}"):
        tbdask.connect(address)
    assert time.monotonic() - started < 2


@pytest.mark.parametrize("scheme", ["tcp", "ws"])  # ws waited 10 s, then "timed out"
def test_a_closed_port_fails_at_once(scheme):
    import socket

    from trecbench.errors import UsageError

    with socket.create_server(("127.0.0.1", 0)) as taken:
        address = f"{scheme}://127.0.0.1:{taken.getsockname()[1]}"
    with pytest.raises(
        UsageError, match=f"^client='{address}': cannot connect \\(Connection refused\\)$"
    ):
        tbdask.connect(address)


def test_a_scheduler_passes_the_check():
    cluster = local_cluster(0, "tcp://")  # HTTP server on a free port, as dask_cluster's
    try:
        with tbdask.connect(cluster.scheduler_address) as connected:
            assert connected.scheduler.address == cluster.scheduler_address
    finally:
        cluster.close()


def test_a_local_cluster_leaves_nothing_in_the_temporary_folder(tmp_path, monkeypatch):
    """Dask's scratch folder (dask-scratch-space, with its lock files) was left in TMPDIR
    after every --dask local:N (reviewer 184): the cluster has one of its own, removed
    as it closes."""
    import tempfile

    from trecbench.dask_cluster import close

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    connected = tbdask.connect("local:1")
    assert connected.submit(sum, [1, 2]).result() == 3
    assert [p.name.startswith("trecbench-dask-") for p in tmp_path.iterdir()] == [True]
    close(connected)  # as score --dask closes it
    assert list(tmp_path.iterdir()) == []


def _worker_processes() -> set:
    """This process's children that multiprocessing spawned (a local cluster's nannies and
    workers; not its resource tracker, which lives as long as this process)."""
    import psutil

    return {
        child
        for child in psutil.Process().children(recursive=True)
        if "spawn_main" in " ".join(child.cmdline())
    }


def test_evaluate_closes_the_local_cluster_it_started(tmp_path):
    """Reviewer 305: evaluate(client="local:N") left its cluster's scheduler and worker
    processes running until the interpreter exited, one more cluster each call (score
    --dask closes its own)."""
    import psutil

    (tmp_path / "q").write_text("1 0 a 1\n1 0 b 0\n")
    (tmp_path / "r").write_text("1 Q0 a 1 2.0 t\n1 Q0 b 2 1.0 t\n")
    before = _worker_processes()
    result = tbdask.evaluate(str(tmp_path / "q"), str(tmp_path / "r"), ["P.2"], client="local:1")
    assert result.to_frame()["P.2"].tolist() == [0.5]  # 1 relevant of the 2 retrieved
    _, alive = psutil.wait_procs(_worker_processes() - before, timeout=5)
    assert not alive


def test_evaluate_leaves_a_scheduler_at_an_address_running(tmp_path, client):
    """The client evaluate makes of an address is closed (it was left connected); the
    scheduler it connected to is not, nor the caller's own client of it."""
    (tmp_path / "q").write_text("1 0 a 1\n")
    (tmp_path / "r").write_text("1 Q0 a 1 2.0 t\n")
    scheduler = client.cluster.scheduler
    clients = set(scheduler.clients)
    result = tbdask.evaluate(
        str(tmp_path / "q"), str(tmp_path / "r"), ["P.1"], client=scheduler.address
    )
    assert result.to_frame()["P.1"].tolist() == [1.0]
    assert set(scheduler.clients) == clients
    assert client.submit(sum, [1, 2]).result() == 3  # the cluster and the client serve on


def test_a_local_worker_that_ends_as_it_starts_is_a_worker_error(tmp_path, monkeypatch, capsys):
    """It was `internal error (RuntimeError: Nanny failed to start.)`. The library names
    evaluate's client, score its --dask."""
    import tempfile

    import dask

    from trecbench.cli import run

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))

    from trecbench.errors import ExitCode, WorkerError

    (tmp_path / "dies.py").write_text("import os\nos._exit(1)\n")  # as a killed worker
    (tmp_path / "q").write_text("1 0 a 1\n")
    (tmp_path / "r").write_text("1 Q0 a 1 1.0 t\n")
    with dask.config.set({"distributed.worker.preload": [str(tmp_path / "dies.py")]}):
        with pytest.raises(WorkerError, match=r"^client='local:1': a local Dask worker process "):
            tbdask.connect("local:1")
        assert run(["score", "--dask", "local:1", str(tmp_path / "q"), str(tmp_path / "r")]) == (
            ExitCode.INTERNAL
        )
    said = capsys.readouterr().err
    assert said.startswith("trecbench: --dask local:1: a local Dask worker process "), said
    assert not list(tmp_path.glob("trecbench-dask-*"))  # its scratch folder removed too


def test_a_script_without_a_main_guard_is_named_as_a_likely_cause(tmp_path):
    """Reviewer 305: a script calling evaluate(client="local:1") without an `if __name__
    == "__main__":` guard failed with "killed? out of memory?": each spawned worker runs
    the script again, starts a cluster of its own, and ends."""
    import subprocess
    import sys

    from conftest import ROOT

    (tmp_path / "q").write_text("1 0 a 1\n")
    (tmp_path / "r").write_text("1 Q0 a 1 2.0 t\n")
    script = tmp_path / "unguarded.py"
    script.write_text(
        "import trecbench.dask\n"
        "print('script ran')\n"
        f"trecbench.dask.evaluate({str(tmp_path / 'q')!r}, {str(tmp_path / 'r')!r},"
        " client='local:1')\n"
    )
    done = subprocess.run(
        [sys.executable, str(script)],
        cwd=tmp_path,
        env=os.environ | {"PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.stdout.count("script ran") == 2  # once here, once in the worker
    assert done.stderr.splitlines()[-1].startswith(
        "trecbench.errors.WorkerError: client='local:1': a local Dask worker process ended as"
        " it started (killed? out of memory? a script without an `if __name__ == '__main__':`"
        " guard, which each worker process runs again as it starts?)"
    )


@pytest.mark.parametrize(
    "main, named",
    [
        ({"__file__": "/x/trecbench/__main__.py", "__spec__": "trecbench.__main__"}, False),
        ({"__file__": "/venv/bin/trecbench", "main": "trecbench.__main__.main"}, False),
        ({}, False),  # an interactive session
        ({"__file__": "/x/script.py"}, True),
        ({"__file__": "/x/tool/__main__.py", "__spec__": "tool.__main__"}, True),
    ],
)
def test_trecbench_s_own_command_line_is_not_named_an_unguarded_script(main, named, monkeypatch):
    import importlib.machinery
    import sys
    import types

    import trecbench.__main__
    from trecbench import dask_cluster

    module = types.ModuleType("__main__")
    if "__file__" in main:
        module.__file__ = main["__file__"]
    if "__spec__" in main:
        module.__spec__ = importlib.machinery.ModuleSpec(main["__spec__"], None)
    if "main" in main:
        module.main = trecbench.__main__.main
    monkeypatch.setitem(sys.modules, "__main__", module)
    assert dask_cluster._main_run_again() is named


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes")
@pytest.mark.parametrize("kind", ["fifo", "stdin"])
def test_a_run_that_is_no_regular_file_is_refused_before_it_is_opened(kind, tmp_path):
    """Each worker opens a run's files: a FIFO was opened twice (the second open blocked for
    ever) and `<(cat run)` (/dev/fd/63, this process's alone) failed on the worker. The
    refusal said '--dask' to a library caller too."""
    import threading

    from trecbench.errors import InputError

    path = "-"
    if kind == "fifo":
        path = str(tmp_path / "run")
        os.mkfifo(path)
        # should the FIFO be opened after all, a writer comes and goes: the test ends
        unblock = threading.Timer(3, lambda: os.close(os.open(path, os.O_WRONLY)))
        unblock.daemon = True
        unblock.start()
    what = "standard input" if kind == "stdin" else r"not a regular file \(a pipe\?\)"
    # the library's caller gave client=, the command line's --dask: neither named
    said = f"{what}: a run on Dask is read by the workers, from files; write it to a file, or "
    said += "score it in this process, not on Dask"
    with pytest.raises(InputError, match=f"^{re.escape(path)}: {said}$"):
        tbdask.DaskRun(path)


@pytest.mark.parametrize("partitions", [0, -1, True, 2.5, "2", 10_001, 10**9])
def test_partitions_not_a_whole_number_from_1_are_refused(partitions, tmp_path):
    """0 was scored as the default, -1 raised numpy's OverflowError, True and 2.5 were taken,
    "2" raised a TypeError, 10**9 built a graph until 24 GB were gone: a UsageError naming
    partitions, before anything is read."""
    from trecbench.errors import UsageError

    (tmp_path / "a.run").write_text("1 Q0 d 1 1 t\n")
    said = f"partitions must be a whole number from 1 to 10000, not {partitions!r}"
    with pytest.raises(UsageError, match=f"^{re.escape(said)}$"):
        tbdask.DaskRun(str(tmp_path / "a.run"), partitions=partitions)


@pytest.mark.parametrize(
    ("data", "said"),
    [
        # its column names were read as run files: "qid: cannot read: No such file"
        (
            type("Frame", (pd.DataFrame,), {})([("q1", "d1")], columns=["qid", "docno"]),
            "a Dask run is a Dask DataFrame or files, not a pandas DataFrame: give "
            "dask.dataframe.from_pandas(frame, npartitions=N), or score it with "
            "trecbench.evaluate",
        ),
        (
            pd.DataFrame([("q1", "d1", 1.0)], columns=["qid", "docno", "score"]),
            "a Dask run is a Dask DataFrame or files, not a pandas DataFrame: give "
            "dask.dataframe.from_pandas(frame, npartitions=N), or score it with "
            "trecbench.evaluate",
        ),
        (3, "a Dask run is a Dask DataFrame, a path, a glob, a folder or a list of paths, "
            "not an int"),
        (["a.run", 3], "a Dask run is a Dask DataFrame, a path, a glob, a folder or a list "
                       "of paths, not a list holding an int"),
    ],
)  # fmt: skip
def test_a_run_of_neither_a_dask_frame_nor_paths_is_refused_by_name(data, said):
    from trecbench.errors import UsageError

    with pytest.raises(UsageError) as refused:
        tbdask.DaskRun(data)
    assert str(refused.value) == said


def test_a_folder_a_glob_matches_is_refused_as_a_folder(tmp_path):
    """shards/* over a subfolder was refused as 'not a regular file (a pipe?)', told to
    write it to a file or score it in this process."""
    from trecbench.errors import InputError

    (tmp_path / "a.run").write_text("1 Q0 d 1 1 t\n")
    (tmp_path / "sub").mkdir()
    said = f"{re.escape(str(tmp_path / 'sub'))}: a folder, not a run file: give the run's files"
    with pytest.raises(InputError, match=f"^{said}$"):
        tbdask.DaskRun(str(tmp_path / "*"))


def test_a_folder_of_no_file_is_refused_naming_it(tmp_path):
    # 'a Dask run needs a DataFrame or at least one file' (exit 1), the folder unnamed,
    # where a glob matching nothing is named: 'shards/*.run: no file matches' (exit 2)
    from trecbench.errors import InputError

    (tmp_path / "shards" / "sub").mkdir(parents=True)
    (tmp_path / "shards" / ".hidden").write_text("1 Q0 d 1 1 t\n")
    said = f"{re.escape(str(tmp_path / 'shards'))}: no file in this folder"
    with pytest.raises(InputError, match=f"^{said}$"):
        tbdask.DaskRun(str(tmp_path / "shards"))


def test_a_folder_s_subfolders_are_read_and_its_odd_entries_refused(tmp_path):
    """A folder's subfolders (a Hive layout, b=1/part-0) were left out without a word, and
    so were a broken link and a pipe: 1 of 3 lines scored, exit 0. Every file below the
    folder is now its run's, in name order, hidden names left out; a pipe is refused, a
    broken link left to its reader's 'cannot read', as when a glob matches them."""
    from trecbench.dask_files import run_files
    from trecbench.errors import InputError

    shards = tmp_path / "shards"
    for name in ("z.run", "b=1/part-0.run", "b=2/part-0.run", ".hidden/x.run", "b=1/.crc"):
        (shards / name).parent.mkdir(parents=True, exist_ok=True)
        (shards / name).write_text("1 Q0 d 1 1 t\n")
    expected = ["b=1/part-0.run", "b=2/part-0.run", "z.run"]
    assert run_files(str(shards)) == [str(shards / name) for name in expected]
    (shards / "b=2" / "gone.run").symlink_to(tmp_path / "nowhere")
    assert str(shards / "b=2" / "gone.run") in run_files(str(shards))
    os.mkfifo(shards / "b=1" / "pipe.run")
    with pytest.raises(InputError, match="pipe.run: not a regular file"):
        run_files(str(shards))


def test_a_folder_walk_leaves_out_what_arrow_does_reads_a_loop_once_and_refuses_a_lock(
    tmp_path, monkeypatch
):
    """Names starting with '_' (_SUCCESS, _metadata, a failed job's _temporary) were read
    as parts of the run, where Arrow's and Dask's readers leave them out; a link back up
    the tree listed its files 42 times (two such links: no end); a folder that could not
    be listed was left out without a word."""
    from trecbench.dask_files import run_files
    from trecbench.errors import InputError

    shards = tmp_path / "s"
    for name in ("part-0.run", "_SUCCESS", "_temporary/0/part-1.run", "b=1/part-2.run"):
        (shards / name).parent.mkdir(parents=True, exist_ok=True)
        (shards / name).write_text("1 Q0 d 1 1 t\n")
    (shards / "b=1" / "up1").symlink_to("..")
    (shards / "b=1" / "up2").symlink_to("..")
    expected = [str(shards / "b=1" / "part-2.run"), str(shards / "part-0.run")]
    assert run_files(str(shards)) == expected
    listing = os.scandir

    def locked(path):
        if os.fspath(path).endswith("b=1"):
            raise PermissionError(13, "Permission denied")
        return listing(path)

    monkeypatch.setattr(os, "scandir", locked)
    with pytest.raises(InputError, match=r"b=1: cannot read: Permission denied$"):
        run_files(str(shards))


@pytest.mark.parametrize("suffix", [".run", ".parquet"])
def test_a_document_in_two_shards_names_each_shard_and_line(suffix, tmp_path, client):
    """It was reported at `run1:9223372036854775807`, no shard named (both listings on
    line 2 of their files). A Parquet file's rows are cited as rows, as its other errors
    cite them, and as one process cites them (they were called lines)."""
    from trecbench.errors import DuplicateError

    def write(path, rows):
        if suffix == ".run":
            path.write_text("".join(f"{q} Q0 {d} 1 {s} t\n" for q, d, s in rows))
        else:
            columns = {"qid": [r[0] for r in rows], "docno": [r[1] for r in rows]}
            pq.write_table(pa.table({**columns, "score": [r[2] for r in rows]}), path)

    qrels = str(tmp_path / "qrels")
    (tmp_path / "qrels").write_text("1 0 a 1\n1 0 b 1\n")
    (tmp_path / "shards").mkdir()
    shards = {"s1": [("1", "a", 3.0), ("1", "b", 2.0)], "s2": [("1", "x", 1.0), ("1", "b", 0.5)]}
    for name, rows in shards.items():
        write(tmp_path / "shards" / f"{name}{suffix}", rows)
    first, second = (str(tmp_path / "shards" / f"{name}{suffix}") for name in shards)
    with pytest.raises(DuplicateError) as raised:
        tbdask.evaluate(qrels, str(tmp_path / "shards"), client=client)
    said = {
        ".run": f"{second}:2: duplicate docs b for topic 1 (first on line 2 of {first})",
        ".parquet": f"{second}: row 2: duplicate docs b for topic 1 (first at row 2 of {first})",
    }
    assert str(raised.value) == said[suffix]
    one = tmp_path / f"one{suffix}"
    write(one, [("1", "a", 3.0), ("1", "b", 2.0), ("1", "a", 1.0)])
    with pytest.raises(DuplicateError) as in_one_process:
        evaluate(qrels, str(one))
    with pytest.raises(DuplicateError) as on_dask:
        tbdask.evaluate(qrels, str(one), client=client)
    cited = {".run": ":3: duplicate", ".parquet": ": row 3: duplicate"}[suffix]
    assert str(on_dask.value) == str(in_one_process.value)
    assert str(on_dask.value).startswith(f"{one}{cited} docs a for topic 1 (first ")


def test_a_jsonl_run_is_read_by_the_workers(client, tmp_path):
    """A JSONL run (trecbench.inputs.jsonl) is read whole by a worker, as score reads it."""
    import json

    from conftest import ROOT

    qrels, trec_run = ROOT / "qrels" / "hpo-demo.qrels", ROOT / "runs" / "tfidf-word.run"
    run_file = tmp_path / "run.jsonl"
    frame = inputs.read_run(str(trec_run))
    with open(run_file, "w") as out:
        for qid, docno, score, tag in zip(
            frame.qid, frame.docno, frame.score, frame.tag, strict=True
        ):
            out.write(
                json.dumps({"qid": qid, "docno": docno, "score": float(score), "tag": tag}) + "\n"
            )
    measures = ["map", "P.5", "ndcg_cut.10"]
    whole = evaluate(str(qrels), str(trec_run), measures)
    on_dask = tbdask.evaluate(str(qrels), str(run_file), measures, client=client)
    assert on_dask.per_query.drop(columns="run").equals(whole.per_query.drop(columns="run"))


def test_integer_ids_beside_ids_they_lost_zeros_of_are_refused_on_dask(tmp_path, client):
    # as in one process (test_names_and_shapes): pandas read docno 0123 as 123, and the
    # judged documents no longer match; each side of the pair, each way of giving a run
    numbers = pd.DataFrame({"qid": ["1", "1"], "docno": [123, 456], "score": [2.0, 1.0]})
    numbers.to_parquet(tmp_path / "numbers.parquet")
    (tmp_path / "text.qrels").write_text("1 0 0123 1\n1 0 456 0\n")
    (tmp_path / "text.run").write_text("1 Q0 0123 1 2.0 r\n1 Q0 456 2 1.0 r\n")
    numbers.rename(columns={"score": "rel"}).assign(rel=1).to_parquet(tmp_path / "q.parquet")
    text_qrels, number_qrels = str(tmp_path / "text.qrels"), str(tmp_path / "q.parquet")
    lost = "such as '0123' that no integer prints"
    cases = [
        (text_qrels, str(tmp_path / "numbers.parquet"), "numbers.parquet"),
        (text_qrels, dd.from_pandas(numbers, npartitions=2), "run 'run1' (run DataFrame)"),
        (number_qrels, str(tmp_path / "text.run"), "q.parquet"),
    ]
    for qrels, run, refused in cases:
        with pytest.raises(InputError, match=lost) as raised:
            tbdask.evaluate(qrels, run, ["map"], client=client)
        assert raised.value.path.endswith(refused)
    # both ids lost zeros: the query ids are named, as in one process (the roles were
    # a set, named in the order of the hash seed)
    both_lost = numbers.assign(qid=[1, 1])
    (tmp_path / "both.qrels").write_text("01 0 0123 1\n")
    with pytest.raises(InputError, match="its query ids are integers"):
        tbdask.evaluate(str(tmp_path / "both.qrels"), dd.from_pandas(both_lost, 1), client=client)
    # integers on both sides are scored, as in one process
    both = tbdask.evaluate(number_qrels, str(tmp_path / "numbers.parquet"), ["map"], client=client)
    assert both.to_dict()["1"]["map"] == 1.0


def test_an_error_in_a_dask_dataframe_names_its_run(client):
    # several frames were each a "run DataFrame", as in one process before
    good = pd.DataFrame({"qid": ["q"] * 3, "docno": ["a", "b", "c"], "score": [1.0, 2, 3]})
    for frame, message in (
        (good.assign(score=[1.0, float("nan"), 3]), r"^run 'mine' \(run DataFrame\): row 1: "),
        (
            good.assign(docno=["a", "b", "a"]),
            r"^run 'mine' \(run DataFrame\): row 2: duplicate docs a .* \(first at row 0\)$",
        ),
    ):
        with pytest.raises(InputError, match=message):
            tbdask.evaluate({"q": {"a": 1}}, {"mine": dd.from_pandas(frame, 1)}, client=client)


def test_the_report_records_a_parquet_run_and_every_file_of_a_glob(tmp_path, client):
    # a Parquet run's record on Dask was its bytes read as TREC text (run_tag '26.0.1\x19L'
    # and binary tags); a glob of several files recorded no run at all
    from trecbench.report import input_record

    (tmp_path / "q").write_text("q1 0 d1 1\nq2 0 d2 1\n")
    frame = pd.DataFrame(
        {"qid": ["q1", "q1", "q2"], "docno": ["d1", "d3", "d2"], "score": [2.0, 1.0, 1.0],
         "tag": ["t"] * 3}
    )  # fmt: skip
    frame.to_parquet(tmp_path / "r.parquet")
    record = input_record(tmp_path / "r.parquet", "run")
    assert (record["lines"], record["topics"], record["run_tag"]) == (3, 2, "t")
    (tmp_path / "t").mkdir()
    (tmp_path / "t" / "a.run").write_text("q1 Q0 d1 1 2 t\n")
    (tmp_path / "t" / "b.run").write_text("q2 Q0 d2 1 1 t\n")
    glob = str(tmp_path / "t" / "*.run")
    evaluation = tbdask.evaluate(str(tmp_path / "q"), glob, ["P.5"], client=client)
    paths = [path for path, kind in evaluation.input_paths if kind == "run"]
    assert paths == [str(tmp_path / "t" / name) for name in ("a.run", "b.run")]
    records = evaluation.input_records
    assert [records[(path, "run")]["lines"] for path in paths] == [1, 1]


def test_a_parquet_run_is_recorded_as_its_partitions_are_read(tmp_path, client, monkeypatch):
    """A Parquet run on Dask had no record of its own: the report read the file again
    after scoring (report.input_record) and its record lacked the run's `name`, which one
    process and a TREC text file on Dask record. Each file of a Parquet glob too."""
    from trecbench import report

    qrels = str(tmp_path / "q")
    (tmp_path / "q").write_text("q1 0 d1 1\nq2 0 d2 1\n")
    (tmp_path / "shards").mkdir()
    rows = {  # several row groups a file: several partitions, their topics and tags joined
        "a": {"qid": ["q1", "q2", "q1", "q3"], "docno": ["d1", "d2", "d3", "d1"],
              "score": [2.0, 1.0, 1.0, 0.5], "tag": ["x", "t", "t", "s"]},
        "b": {"qid": ["q2", "q2"], "docno": ["d4", "d9"], "score": [1.0, 0.5], "tag": ["y", "z"]},
    }  # fmt: skip
    for name, columns in rows.items():
        pq.write_table(pa.table(columns), tmp_path / "shards" / f"{name}.parquet", row_group_size=2)

    # a partition per row group (what Dask does for a file beyond its blocksize)
    monkeypatch.setattr(
        dd, "read_parquet", functools.partial(dd.read_parquet, split_row_groups=True)
    )
    assert dd.read_parquet(str(tmp_path / "shards" / "a.parquet")).npartitions == 2

    def refused(*args, **kwargs):
        raise AssertionError(f"read again for its record: {args}")

    files = [str(tmp_path / "shards" / f"{name}.parquet") for name in rows]
    for run in (files[0], str(tmp_path / "shards" / "*.parquet")):
        on_dask = tbdask.evaluate(qrels, run, ["P.5"], client=client)
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(report, "input_record", refused)
            recorded = report.evaluation_records(on_dask)
        name = on_dask.runs[0].name
        for path in files if "*" in run else files[:1]:
            # as one process records the file (its name: the run's)
            expected = evaluate(qrels, path, ["P.5"]).input_records[(path, "run")]
            assert on_dask.input_records[(path, "run")] == expected | {"name": name}
            assert {**expected, "name": name} in recorded


def test_a_drill_down_keeps_the_scores_as_the_run_file_writes_them(tmp_path, client):
    """score --dask --html showed `5.0` and `1.5` where the file writes `5.00` and `1.50`
    (as the page shows them without --dask): the workers did not keep the scores' text."""
    qrels = str(tmp_path / "qrels")
    (tmp_path / "qrels").write_text("q1 0 d1 1\nq1 0 d2 0\nq2 0 d3 1\n")
    run = tmp_path / "run"
    run.write_text("q1 Q0 d1 1 5.00 t\nq1 Q0 d2 2 1.50 t\n")
    shown = [
        scored(qrels, str(run), ["P.2"], drill_depth=5).runs[0].drill_down.documents.to_pylist()
        for scored in (evaluate, functools.partial(tbdask.evaluate, client=client))
    ]
    assert [row["score_text"] for row in shown[1]] == ["5.00", "1.50"]
    assert shown[1] == shown[0]
    # beside a Parquet file (read whole by a worker, as one process reads it): numbers
    (tmp_path / "mixed").mkdir()
    (tmp_path / "mixed" / "a.run").write_text(run.read_text())
    table = pa.table({"qid": ["q2"], "docno": ["d3"], "score": [0.25]})
    pq.write_table(table, tmp_path / "mixed" / "b.parquet")
    mixed = tbdask.evaluate(qrels, str(tmp_path / "mixed"), ["P.2"], drill_depth=5, client=client)
    documents = mixed.runs[0].drill_down.documents
    assert documents.column("score_text").to_pylist() == ["5.00", "1.50", None]


def test_the_cwl_horizon_is_said_once_per_run_over_its_partitions(tmp_path, client):
    """Said by each partition's engine, it was a line per partition (t2, then t7, no
    count) without the run's name; now the client says one line per run, as one process
    does (test_cwl_horizon.py)."""
    import warnings

    pytest.importorskip("cwl")
    from cwl_horizon_case import HORIZON, horizon_case

    from trecbench.errors import ProviderWarning

    qrels, runs = horizon_case(tmp_path)
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        on_dask = [tbdask.DaskRun(run, client, partitions=4) for run in runs]  # two runs
        evaluate(qrels, on_dask, ["INST", "INSQ"])
    assert [str(w.message) for w in said if w.category is ProviderWarning] == [
        HORIZON.format(run="r"),
        HORIZON.format(run="c"),
    ]


def test_a_warning_of_the_engines_is_said_once_per_call_as_in_one_process(tmp_path):
    """Reviewer 224: --dask local:2 said the subtopic warning once per run (pandas,
    building the second run's frames, made Python forget it was said); one process and -j
    say it once. Workers in processes: threads of this one did not show it."""
    import warnings
    from pathlib import Path

    from trecbench.dask_cluster import close

    (tmp_path / "q.qrels").write_text("1 0 d1 1\n")
    runs = [str(tmp_path / "a.run"), str(tmp_path / "b.run")]
    for path in runs:
        Path(path).write_text("1 Q0 d1 1 1 t\n")
    said = {}
    connected = tbdask.connect("local:1")
    try:
        on_dask = [tbdask.DaskRun(path, connected) for path in runs]
        for where, sources in (("one process", runs), ("dask", on_dask)):
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("default")  # as on the command line: a line once
                evaluate(str(tmp_path / "q.qrels"), sources, ["alpha_nDCG@5"])
            said[where] = [str(w.message) for w in caught if "subtopic" in str(w.message)]
    finally:
        close(connected)
    assert len(said["one process"]) == 1 and said["dask"] == said["one process"]


@pytest.mark.parametrize("suffix", ["", ".parquet"])
def test_a_run_is_scored_on_the_client_it_was_given(suffix, tmp_path, client):
    """Fixer 226: a DaskRun given a client computed on whichever client was current (its
    plan scattered to one, its partitions computed on another: "lost dependencies");
    reviewer 228: Parquet files' partition lengths were still computed there."""
    qrels_text, run_text = random_case(9100, n_topics=4)
    (tmp_path / "qrels").write_text(qrels_text)
    run = tmp_path / f"run{suffix}"
    if suffix:
        pq.write_table(pa.Table.from_pandas(_frame(run_text), preserve_index=False), run)
    else:
        run.write_text(run_text)
    qrels, run = str(tmp_path / "qrels"), str(run)
    other = distributed.LocalCluster(
        n_workers=1,
        threads_per_worker=1,
        processes=False,
        dashboard_address="127.0.0.1:0",
    )
    try:
        with distributed.Client(other) as current, current.as_current():
            with distributed.get_task_stream(client=current) as elsewhere:
                there = _outcome(lambda: evaluate(qrels, tbdask.DaskRun(run, client), ["map"]))
    finally:
        other.close()
    assert elsewhere.data == []
    assert there == _outcome(lambda: evaluate(qrels, run, ["map"]))


def test_a_failing_runs_warnings_said_already_in_the_call_are_not_said_again(
    tmp_path, client, monkeypatch
):
    """Reviewer 228: a run failing on Dask relayed its partitions' warnings without the
    filter of those said already in the call (an earlier run's): said twice."""
    import warnings

    from trecbench import evaluation

    qrels_text, run_text = random_case(9300, n_topics=3)
    (tmp_path / "qrels").write_text(qrels_text)
    for name in ("a", "b"):
        (tmp_path / name).write_text(run_text)
    scored, real = [], evaluation.score_block

    def warning_then_failing(table, plan, tie_bounds):
        warnings.warn("the same warning", UserWarning, stacklevel=1)
        scored.append(table)
        if len(scored) > 1:  # the second run
            raise InputError("b", None, "failed")
        return real(table, plan, tie_bounds)

    monkeypatch.setattr(evaluation, "score_block", warning_then_failing)
    runs = [tbdask.DaskRun(str(tmp_path / name), client, partitions=1) for name in "ab"]
    with warnings.catch_warnings(record=True) as caught, pytest.raises(InputError):
        warnings.simplefilter("always")
        evaluate(str(tmp_path / "qrels"), runs, ["map"])
    assert [str(w.message) for w in caught] == ["the same warning"]


def test_integer_ids_of_one_file_of_a_run_name_that_file(tmp_path, client):
    """Reviewer 230: a glob's refusal named every file ("a.parquet, b.parquet: its query
    ids are integers"), where one held strings."""
    pd.DataFrame({"qid": ["2"], "docno": ["d4"], "score": [3.0]}).to_parquet(tmp_path / "a.parquet")
    pd.DataFrame({"qid": [1], "docno": ["d1"], "score": [1.0]}).to_parquet(tmp_path / "b.parquet")
    (tmp_path / "q.qrels").write_text("01 0 d1 1\n2 0 d4 1\n")
    with pytest.raises(InputError, match="its query ids are integers") as raised:
        tbdask.evaluate(str(tmp_path / "q.qrels"), str(tmp_path / "*.parquet"), client=client)
    assert raised.value.path == str(tmp_path / "b.parquet")


def test_a_closed_client_is_refused_in_one_line(tmp_path):
    """Reviewer 230: a closed client raised distributed's AttributeError for a text run
    and ClosedClientError for Parquet."""
    from trecbench.errors import UsageError

    (tmp_path / "q.qrels").write_text("1 0 d1 1\n")
    (tmp_path / "r.run").write_text("1 Q0 d1 1 1 t\n")
    pd.DataFrame({"qid": ["1"], "docno": ["d1"], "score": [1.0]}).to_parquet(tmp_path / "r.parquet")
    cluster = distributed.LocalCluster(
        n_workers=1,
        threads_per_worker=1,
        processes=False,
        dashboard_address="127.0.0.1:0",
    )
    closed = distributed.Client(cluster)
    closed.close()
    try:
        for run in ("r.run", "r.parquet"):
            with pytest.raises(UsageError, match="its Dask client is closed"):
                tbdask.evaluate(str(tmp_path / "q.qrels"), str(tmp_path / run), client=closed)
    finally:
        cluster.close()


@pytest.mark.parametrize(
    "change",
    [
        lambda frame: frame,
        lambda frame: frame.set_axis([100, 200, 300, 400]),
        lambda frame: frame.assign(line=[7, 7, 7, 7]),  # no line numbers: rows numbered
        lambda frame: frame.assign(line=[1, 2, 3, 4]),  # line numbers of its own: cited so
        # line numbers within each partition, not across the frame: two frames concatenated
        lambda frame: frame.assign(line=[1, 2, 1, 2]),
        lambda frame: frame.set_axis([0, 1, 0, 1]),  # labels that do not tell rows apart
        lambda frame: frame.set_axis(["w", "x", "y", "z"]),
    ],
)
def test_a_dask_frame_s_duplicate_is_cited_as_one_process_cites_the_pandas_frame(change, client):
    """It was cited as `(run DataFrame):4 ... (first on line 1)`: positions from 1, the
    index ignored, and with a `line` column of no line numbers, lines counted again from
    1 in each partition (`:2`)."""
    from trecbench.errors import DuplicateError

    qrels = {"q1": {"d1": 1}, "q2": {"d1": 1}}
    rows = [("q1", "d1", 1.0), ("q1", "d2", 2.0), ("q2", "d1", 1.0), ("q1", "d1", 0.5)]
    frame = change(pd.DataFrame(rows, columns=["qid", "docno", "score"]))
    with pytest.raises(DuplicateError) as in_one_process:
        evaluate(qrels, frame, ["map"])
    with pytest.raises(DuplicateError) as on_dask:
        dask_frame = dd.from_pandas(frame, npartitions=2, sort=False)
        tbdask.evaluate(qrels, dask_frame, ["map"], client=client)
    assert str(on_dask.value) == str(in_one_process.value)


def test_a_run_of_a_folder_or_a_glob_is_named_by_it(tmp_path, monkeypatch):
    # score --help names a run by its file's stem; a glob or a folder of shards was named
    # run1, run2 in the warnings and the '# name' lines (reviewer 665)
    from trecbench.dask_files import naming_path
    from trecbench.evaluation import _named

    for folder in ("sh1", "sh2"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "a.run").write_text("1 Q0 d1 1 1 t\n")
        (tmp_path / folder / "b.run").write_text("2 Q0 d2 1 1 t\n")
    monkeypatch.chdir(tmp_path)
    runs = [tbdask.DaskRun("sh1/*.run"), tbdask.DaskRun("sh2"), tbdask.DaskRun("sh2/a.run")]
    assert _named(runs, None) == ["sh1", "sh2", "a"]
    # what names no folder, or none apart, is run1..N as before: never refused (reviewer 668)
    monkeypatch.chdir(tmp_path / "sh1")
    assert _named([tbdask.DaskRun("./*.run"), tbdask.DaskRun("*.run")], None) == ["run1", "run2"]
    monkeypatch.chdir(tmp_path)
    twice = [tbdask.DaskRun("sh1/*.run"), tbdask.DaskRun("sh1/a*")]
    assert _named(twice, None) == ["sh1", "a"]
    dotted = [tbdask.DaskRun("sh1/./*.run"), tbdask.DaskRun("sh2/../sh2/*.run")]
    assert _named(dotted, None) == ["sh1", "sh2"]  # the folder as normpath spells it
    alike = [tbdask.DaskRun("sh1/*.run"), tbdask.DaskRun("sh1")]
    assert _named(alike, None) == ["run1", "run2"]
    assert naming_path("shards/part-*.parquet") == "shards/part-*.parquet"  # its own name
    assert naming_path(["sh1/a.run", "sh1/b.run"]) is None  # a list: run1, run2...
