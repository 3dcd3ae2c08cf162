"""xz and bzip2 files read as xz-utils and bzip2 read them: stream after stream (an empty
one too), across the zero padding xz allows between them (a multiple of four bytes), and
anything else after a stream refused as corrupt. :class:`lzma.LZMAFile` and
:class:`bz2.BZ2File` end the file without a word at junk after a stream, so a run cut
short was scored as if whole; Arrow's bz2 stream refuses a valid file whose streams
include an empty one between two others (shards concatenated, one of them empty)."""

from __future__ import annotations

import bz2
import io
import lzma
from collections.abc import Callable
from dataclasses import dataclass

from ..compressions import NAMED

_CHUNK = 1 << 20


@dataclass(frozen=True)
class _Format:
    """A format read stream after stream: its ``name`` (:data:`~trecbench.compressions.NAMED`'s,
    whose magic starts each stream) with the ``article`` its messages say it with, a
    ``decompressor()`` for each stream, the ``error`` a stream's decoding raises (and what
    the reader raises for what it refuses), and whether zero bytes, a multiple of four,
    may come between streams (``padded``: xz's)."""

    name: str
    article: str
    decompressor: Callable
    error: type[Exception]
    padded: bool

    @property
    def a_stream(self) -> str:
        return f"{self.article} {self.name} stream"


_FORMATS = {
    "xz": _Format("xz", "an", lambda: lzma.LZMADecompressor(lzma.FORMAT_XZ), lzma.LZMAError, True),
    "bz2": _Format("bz2", "a", bz2.BZ2Decompressor, OSError, False),
}


def streams(raw, compression: str) -> ConcatenatedStreams:
    """The file of ``compression`` (``xz`` or ``bz2``) read from ``raw`` (a binary reader),
    as xz-utils and bzip2 -d read it (junk after a stream refused, not ignored)."""
    return ConcatenatedStreams(raw, _FORMATS[compression])


class ConcatenatedStreams(io.RawIOBase):
    """The decompressed bytes of the streams of one :class:`_Format` read from ``raw``."""

    def __init__(self, raw, format: _Format) -> None:
        self.raw, self.format, self.magic = raw, format, NAMED[format.name].magic
        self._decompressor = format.decompressor()
        self._pending = b""  # compressed bytes read and not yet given to a decompressor

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        data = self.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)

    def read(self, size: int = -1) -> bytes:
        wanted = _CHUNK if size is None or size < 0 else size
        while self._decompressor is not None:
            if self._decompressor.eof:
                self._next_stream()
                continue
            if not self._pending and self._decompressor.needs_input:
                self._pending = self.raw.read(_CHUNK)
                if not self._pending:
                    raise EOFError(f"the file ends inside {self.format.a_stream}")
            data = self._decompressor.decompress(self._pending, wanted)
            self._pending = b""
            if data:
                return data
        return b""

    def _next_stream(self) -> None:
        """After a stream's end: its padding skipped, then the next stream, or the end."""
        format, rest, padding = self.format, self._decompressor.unused_data, 0
        while True:
            stripped = rest.lstrip(b"\0") if format.padded else rest
            padding += len(rest) - len(stripped)
            if stripped or not (rest := self.raw.read(_CHUNK)):
                break
        if padding % 4:
            raise format.error(f"stream padding of {padding} bytes, not a multiple of 4")
        while stripped and len(stripped) < len(self.magic) and (more := self.raw.read(_CHUNK)):
            stripped += more
        if not stripped:
            self._decompressor = None  # the end of the file
        elif not stripped.startswith(self.magic):
            raise format.error(f"data after {format.a_stream} that is no {format.name} stream")
        else:
            self._decompressor = format.decompressor()
            self._pending = stripped
