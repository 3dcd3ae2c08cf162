"""Python objects handed to Arrow's readers, each read returning only once Arrow has let go.

Arrow's threaded readers (its CSV reader, a Parquet file's) drop their input (a
:class:`pyarrow.PythonFile` over a Python stream, a buffer over bytes) on one of their own
threads, a moment after the read has returned, and dropping a Python object takes the
GIL. A Python process that ends in that moment aborts: the thread, told to exit as it
waits for the GIL of an interpreter shutting down, unwinds through C++ code that may not
throw ("terminate called without an active exception", exit 134; apache/arrow#34314). A
script of the Python API that reads a run and ends (an input refused just after its read,
a ``load_run``) met it in one run of 2 to 15 on a busy machine. Arrow is handed a proxy
only it holds (:class:`Handover`); the read returns once the proxy is gone, the input
itself still held by the caller (so that its last reference, and any ``__del__`` of it,
goes in the caller's thread).
"""

from __future__ import annotations

import threading
import weakref

import pyarrow as pa
import pyarrow.csv as pv

# Arrow lets go within microseconds of the read's end; the bound only keeps a read from
# hanging should a later Arrow hold its input longer (the read then returns as before)
LET_GO_SECONDS = 5.0


class _Proxy:
    """A readable stream's methods, on an object only Arrow holds."""

    __slots__ = ("_stream", "__weakref__")

    def __init__(self, stream) -> None:
        self._stream = stream

    def __getattr__(self, name: str):
        return getattr(self._stream, name)


class Handover:
    """``source`` (bytes, a bytearray or a memoryview: as a buffer; else a readable Python
    stream, through :class:`pyarrow.PythonFile`) as Arrow is handed it (:meth:`take`, once:
    no reference kept here), and :meth:`wait` until Arrow has let go of it."""

    def __init__(self, source) -> None:
        self._let_go = threading.Event()
        if isinstance(source, (bytes, bytearray, memoryview)):
            handed = memoryview(source)  # a view of its own: py_buffer holds it, and only it
            self._native = pa.py_buffer(handed)
        else:
            handed = _Proxy(source)
            self._native = pa.PythonFile(handed, mode="r")
        weakref.finalize(handed, self._let_go.set).atexit = False

    def take(self):
        """What Arrow reads: a :class:`pyarrow.Buffer` of bytes, a PythonFile of a stream."""
        native, self._native = self._native, None
        return native

    def wait(self) -> None:
        """Return once Arrow holds nothing of the source (at most :data:`LET_GO_SECONDS`):
        call it with no reference to what :meth:`take` gave left in the caller."""
        self._native = None
        self._let_go.wait(LET_GO_SECONDS)


def read_csv(source, **options) -> pa.Table:
    """:func:`pyarrow.csv.read_csv` of ``source`` (see :class:`Handover`) with ``options``,
    returning once Arrow holds nothing of it."""
    handover = Handover(source)
    try:
        return pv.read_csv(handover.take(), **options)
    finally:
        handover.wait()
