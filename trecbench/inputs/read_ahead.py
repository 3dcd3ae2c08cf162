"""Streams read ahead on a thread of their own: the gzip inflater of
:class:`~trecbench.inputs.streams.Source` (ISA-L's, without the GIL, a few blocks ahead of
the parser), and what :class:`pyarrow.PythonFile` needs of a readable stream."""

from __future__ import annotations

import queue
import threading
from typing import Any

# decompressed bytes the fast inflater's thread hands over at a time, and the compressed
# bytes it reads at a time: each read, and each block handed over, waits for the GIL, which
# the parser's and the scorer's threads hold in turns of up to 5 ms (sys.getswitchinterval);
# at 1 MiB blocks and ISA-L's 512 KiB reads the inflater ran at a fifth of its speed beside
# a busy Python thread (by hand, 2026-12-03: 150 MB/s; 450 MB/s at 4 MiB and 2 MiB)
INFLATE_BLOCK = 4 << 20
COMPRESSED_READ = 2 << 20


class ReadOnly:
    """What :class:`pyarrow.PythonFile` needs of a readable stream, but ``read``."""

    closed = False

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return False

    def close(self) -> None:
        self.closed = True


def threaded_gzip(raw, block: int | None = None) -> tuple[Any, tuple[type[Exception], ...]]:
    """ISA-L's gzip reader of ``raw`` on a thread of its own (:class:`ReadAhead`, handing
    over ``block`` bytes at a time, :data:`INFLATE_BLOCK` when None) and the error ISA-L
    raises on corrupt data; ``(None, ())`` without ``isal`` (the optional extra
    ``fast-gzip``: Arrow's zlib stream is then the fallback)."""
    try:
        from isal import igzip, isal_zlib
    except ImportError:
        return None, ()
    # igzip.open's C reader with a larger read buffer (isal's own threaded reader builds it
    # so, by this name); igzip.open where a later isal has no such name
    reader = getattr(igzip, "_IGzipReader", None)
    block = INFLATE_BLOCK if block is None else block
    reads = min(COMPRESSED_READ, max(block // 2, 1))  # a small memory budget's blocks: less
    stream = igzip.open(raw, "rb") if reader is None else reader(raw, reads)
    return ReadAhead(stream, block), (isal_zlib.error,)


class ReadAhead(ReadOnly):
    """A decompressing stream read on a thread of its own, a few blocks ahead of its
    reader (ISA-L inflates without the GIL: the next block is inflated while the parser
    works on the last). ``read(n)`` returns ``n`` bytes but at the end, as the stream
    would; the stream's error is raised where it would have been. Unlike
    ``isal.igzip_threaded``, whose thread stops when the thread that opened it ends (the
    rest of the file then reads as empty), this one stops only at the end, on an error or
    at :meth:`close`: a stream opened in one thread can be read in another."""

    def __init__(self, stream, block: int, depth: int = 2):
        self.block = block  # (the bytes held ahead: ``depth + 1`` blocks at most)
        self._blocks: queue.Queue = queue.Queue(depth)
        self._stopped = threading.Event()
        self._pending = memoryview(b"")
        self._ended = False
        self._thread = threading.Thread(target=self._fill, args=(stream, block), daemon=True)
        self._thread.start()

    def _fill(self, stream, block: int) -> None:
        try:
            while not self._stopped.is_set():
                data = stream.read(block)
                self._put(data)
                if not data:
                    return
        except BaseException as exc:  # noqa: BLE001 - handed to the reader, raised there
            self._put(exc)

    def _put(self, item) -> None:
        while not self._stopped.is_set():
            try:
                self._blocks.put(item, timeout=0.05)
                return
            except queue.Full:
                continue

    def _next(self) -> bool:
        """The next block as pending; False at the end."""
        if self._ended:
            return False
        item = self._blocks.get()
        if isinstance(item, BaseException):
            self._ended = True
            try:
                raise item
            finally:
                del item  # no cycle of the error and this frame: see _forget_frames
        self._pending, self._ended = memoryview(item), not item
        return bool(item)

    def _taken(self, wanted: int | None):
        """Views of the next bytes, block by block, up to ``wanted`` (None: to the end):
        what :meth:`read` joins and :meth:`readinto` copies."""
        got = 0
        while (wanted is None or got < wanted) and (self._pending or self._next()):
            take = len(self._pending) if wanted is None else min(wanted - got, len(self._pending))
            yield self._pending[:take]
            self._pending = self._pending[take:]
            got += take

    def read(self, size: int = -1) -> bytes:
        return b"".join(self._taken(size if size is not None and size >= 0 else None))

    def readinto(self, buffer) -> int:
        """``read`` into ``buffer`` (a writable buffer), the blocks copied straight in."""
        view = memoryview(buffer).cast("B")
        got = 0
        for part in self._taken(len(view)):
            view[got : got + len(part)] = part
            got += len(part)
        return got

    def close(self) -> None:
        """Stop the thread (at its next block) and wait for it."""
        self._stopped.set()
        while self._thread.is_alive():
            try:
                self._blocks.get(timeout=0.05)
            except queue.Empty:
                pass
        self._thread.join()
        super().close()
