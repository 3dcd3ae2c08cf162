"""trecbench.inputs.arrow_handover: Arrow's readers (CSV, Parquet) return only once Arrow
has let go of the Python object they read (else a script ending just after a read could
abort at exit, "terminate called without an active exception": see the module)."""

from __future__ import annotations

import io
import re
import threading
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.csv as pv
import pytest

from trecbench.inputs import arrow_handover

PACKAGE = Path(__file__).resolve().parents[1] / "trecbench"
OPTIONS = dict(
    read_options=pv.ReadOptions(column_names=["q", "z", "d", "r", "s", "t"], block_size=1 << 16),
    parse_options=pv.ParseOptions(delimiter=" "),
)
TEXT = b"".join(b"%d Q0 d%d %d %d.5 run\n" % (i // 100, i, i % 100, i) for i in range(50_000))


class _Stream(io.BytesIO):
    """A stream that tells which thread dropped its last reference."""

    dropped_in: list[bool] = []

    def __del__(self) -> None:
        self.dropped_in.append(threading.current_thread() is threading.main_thread())


def test_every_csv_read_of_the_package_goes_through_the_handover():
    direct = re.compile(r"\b(?:pv|csv|pyarrow\.csv)\.(?:read_csv|open_csv)\(")
    found = [
        f"{path.relative_to(PACKAGE)}:{number}"
        for path in PACKAGE.rglob("*.py")
        if path.name != "arrow_handover.py"
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if direct.search(line)
    ]
    assert found == []


@pytest.mark.parametrize("given", ["bytes", "memoryview", "stream"])
def test_the_table_is_arrows_own(given):
    source = {"bytes": TEXT, "memoryview": memoryview(TEXT), "stream": io.BytesIO(TEXT)}[given]
    expected = pv.read_csv(pa.py_buffer(TEXT), **OPTIONS)
    assert arrow_handover.read_csv(source, **OPTIONS).equals(expected)


def test_arrow_lets_go_at_once(monkeypatch):
    """Arrow's threaded reader keeps nothing of its input in the table: were it to, each
    read would wait the whole bound."""
    monkeypatch.setattr(arrow_handover, "LET_GO_SECONDS", 60.0)
    started = time.monotonic()
    for _ in range(10):
        arrow_handover.read_csv(TEXT, **OPTIONS)
        arrow_handover.read_csv(io.BytesIO(TEXT), **OPTIONS)
    assert time.monotonic() - started < 30


def _holding_reader(held_for: float, events: list[str]):
    """A stand-in for pyarrow.csv.read_csv that, as Arrow's threaded reader does, drops
    its input on a thread of its own after it has returned."""

    def read_csv(native, **options):
        def drop_later(held):
            time.sleep(held_for)
            events.append("let go")
            del held

        threading.Thread(target=drop_later, args=(native,)).start()
        return pa.table({"x": [1]})

    return read_csv


@pytest.mark.parametrize("given", ["bytes", "stream"])
def test_the_read_returns_after_arrow_lets_go(monkeypatch, given):
    events: list[str] = []
    monkeypatch.setattr(arrow_handover.pv, "read_csv", _holding_reader(0.2, events))
    _Stream.dropped_in = []
    arrow_handover.read_csv(TEXT if given == "bytes" else _Stream(TEXT))
    events.append("returned")
    assert events == ["let go", "returned"]
    if given == "stream":  # its last reference went in the caller's thread, not Arrow's
        assert _Stream.dropped_in == [True]


def test_a_reader_that_never_lets_go_is_waited_for_only_so_long(monkeypatch):
    events: list[str] = []
    monkeypatch.setattr(arrow_handover.pv, "read_csv", _holding_reader(1.0, events))
    monkeypatch.setattr(arrow_handover, "LET_GO_SECONDS", 0.05)
    started = time.monotonic()
    assert arrow_handover.read_csv(TEXT).num_rows == 1
    assert time.monotonic() - started < 0.9 and events == []


@pytest.fixture
def parquet_run(tmp_path):
    """An uncompressed Parquet run (its pages could be read without a copy)."""
    import pyarrow.parquet as pq

    table = pa.table({"qid": ["1"] * 1000, "docno": [f"d{i}" for i in range(1000)],
                      "score": [float(i) for i in range(1000)]})  # fmt: skip
    path = tmp_path / "run.parquet"
    pq.write_table(table, path, compression="NONE", use_dictionary=False)
    return path


@pytest.mark.parametrize("blocks", [False, True])
def test_a_parquet_file_read_from_memory_is_handed_over(monkeypatch, parquet_run, blocks):
    """Its bytes were released by Arrow's threads after load_run returned, in 26 of 100
    reads (a review's probe): the read now waits until Arrow lets go, and no longer than
    that (the table holds no view of the bytes)."""
    from trecbench.inputs import parquet, streams

    waited: list[float] = []
    wait = arrow_handover.Handover.wait

    def timed(self):
        started = time.monotonic()
        wait(self)
        waited.append(time.monotonic() - started)

    monkeypatch.setattr(arrow_handover.Handover, "wait", timed)
    monkeypatch.setattr(arrow_handover, "LET_GO_SECONDS", 60.0)
    with streams.Source(parquet_run, spool=True) as source:
        source.regular = False  # as a pipe's: read from memory
        if blocks:
            rows = sum(table.num_rows for table in parquet.read_blocks(source))
        else:
            rows = parquet.to_table(source, "run").num_rows
    assert rows == 1000 and len(waited) == 1 and waited[0] < 30
