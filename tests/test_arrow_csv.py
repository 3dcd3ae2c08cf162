"""trecbench.inputs.arrow_csv: Arrow's CSV reader returns only once Arrow has let go of
the Python object it read (else a script ending just after a read could abort at exit,
"terminate called without an active exception": see the module)."""

from __future__ import annotations

import io
import re
import threading
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.csv as pv
import pytest

from trecbench.inputs import arrow_csv

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


def test_every_csv_read_of_the_package_goes_through_arrow_csv():
    direct = re.compile(r"\b(?:pv|csv|pyarrow\.csv)\.(?:read_csv|open_csv)\(")
    found = [
        f"{path.relative_to(PACKAGE)}:{number}"
        for path in PACKAGE.rglob("*.py")
        if path.name != "arrow_csv.py"
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if direct.search(line)
    ]
    assert found == []


@pytest.mark.parametrize("given", ["bytes", "memoryview", "stream"])
def test_the_table_is_arrows_own(given):
    source = {"bytes": TEXT, "memoryview": memoryview(TEXT), "stream": io.BytesIO(TEXT)}[given]
    expected = pv.read_csv(pa.py_buffer(TEXT), **OPTIONS)
    assert arrow_csv.read_csv(source, **OPTIONS).equals(expected)


def test_arrow_lets_go_at_once(monkeypatch):
    """Arrow's threaded reader keeps nothing of its input in the table: were it to, each
    read would wait the whole bound."""
    monkeypatch.setattr(arrow_csv, "LET_GO_SECONDS", 60.0)
    started = time.monotonic()
    for _ in range(10):
        arrow_csv.read_csv(TEXT, **OPTIONS)
        arrow_csv.read_csv(io.BytesIO(TEXT), **OPTIONS)
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
    monkeypatch.setattr(arrow_csv.pv, "read_csv", _holding_reader(0.2, events))
    _Stream.dropped_in = []
    arrow_csv.read_csv(TEXT if given == "bytes" else _Stream(TEXT))
    events.append("returned")
    assert events == ["let go", "returned"]
    if given == "stream":  # its last reference went in the caller's thread, not Arrow's
        assert _Stream.dropped_in == [True]


def test_a_reader_that_never_lets_go_is_waited_for_only_so_long(monkeypatch):
    events: list[str] = []
    monkeypatch.setattr(arrow_csv.pv, "read_csv", _holding_reader(1.0, events))
    monkeypatch.setattr(arrow_csv, "LET_GO_SECONDS", 0.05)
    started = time.monotonic()
    assert arrow_csv.read_csv(TEXT).num_rows == 1
    assert time.monotonic() - started < 0.9 and events == []
