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

from ..compressions import NAMED

_CHUNK = 1 << 20


class ConcatenatedStreams(io.RawIOBase):
    """The decompressed bytes of the streams of one format read from ``raw`` (a binary
    reader): ``decompressor()`` makes one for each stream, which starts with ``magic``;
    ``padded``: zero bytes, a multiple of four, may come between streams (xz's); ``error``:
    the exception a stream's decoding raises, and what this reader raises for what it
    refuses, naming ``a_stream`` (``an xz stream``)."""

    def __init__(
        self, raw, decompressor: Callable, magic: bytes, error: type[Exception], padded: bool,
        a_stream: str,
    ) -> None:  # fmt: skip
        self.raw, self.magic, self.error, self.padded = raw, magic, error, padded
        self.a_stream = a_stream
        self._new = decompressor
        self._decompressor = decompressor()
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
                    raise EOFError(f"the file ends inside {self.a_stream}")
            data = self._decompressor.decompress(self._pending, wanted)
            self._pending = b""
            if data:
                return data
        return b""

    def _next_stream(self) -> None:
        """After a stream's end: its padding skipped, then the next stream, or the end."""
        rest = self._decompressor.unused_data
        padding = 0
        while True:
            stripped = rest.lstrip(b"\0") if self.padded else rest
            padding += len(rest) - len(stripped)
            if stripped or not (rest := self.raw.read(_CHUNK)):
                break
        if padding % 4:
            raise self.error(f"stream padding of {padding} bytes, not a multiple of 4")
        while stripped and len(stripped) < len(self.magic) and (more := self.raw.read(_CHUNK)):
            stripped += more
        if not stripped:
            self._decompressor = None  # the end of the file
        elif not stripped.startswith(self.magic):
            name = self.a_stream.split()[1]
            raise self.error(f"data after {self.a_stream} that is no {name} stream")
        else:
            self._decompressor = self._new()
            self._pending = stripped


def xz_streams(raw) -> ConcatenatedStreams:
    """The xz file read from ``raw``, as xz-utils reads it."""
    decompressor = lambda: lzma.LZMADecompressor(lzma.FORMAT_XZ)  # noqa: E731
    return ConcatenatedStreams(
        raw, decompressor, NAMED["xz"].magic, lzma.LZMAError, True, "an xz stream"
    )


def bz2_streams(raw) -> ConcatenatedStreams:
    """The bzip2 file read from ``raw``, as bzip2 -d reads it (junk refused, not ignored)."""
    return ConcatenatedStreams(
        raw, bz2.BZ2Decompressor, NAMED["bz2"].magic, OSError, False, "a bz2 stream"
    )
