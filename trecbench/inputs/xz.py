"""xz files read as xz-utils reads them: stream after stream, across the zero padding the
format allows between them (a multiple of four bytes), and anything else after a stream
refused as corrupt. :class:`lzma.LZMAFile` ends the file without a word at padding or
junk after a stream, so a run cut short was scored as if whole."""

from __future__ import annotations

import io
import lzma

from ..compressions import NAMED

_MAGIC = NAMED["xz"].magic
_CHUNK = 1 << 20


class XzStreams(io.RawIOBase):
    """The decompressed bytes of the xz file read from ``raw`` (a binary reader)."""

    def __init__(self, raw) -> None:
        self.raw = raw
        self._decompressor: lzma.LZMADecompressor | None = lzma.LZMADecompressor(lzma.FORMAT_XZ)
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
                    raise EOFError("the file ends inside an xz stream")
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
            stripped = rest.lstrip(b"\0")
            padding += len(rest) - len(stripped)
            if stripped or not (rest := self.raw.read(_CHUNK)):
                break
        if padding % 4:
            raise lzma.LZMAError(f"stream padding of {padding} bytes, not a multiple of 4")
        while stripped and len(stripped) < len(_MAGIC) and (more := self.raw.read(_CHUNK)):
            stripped += more
        if not stripped:
            self._decompressor = None  # the end of the file
        elif not stripped.startswith(_MAGIC):
            raise lzma.LZMAError("data after an xz stream that is no xz stream")
        else:
            self._decompressor = lzma.LZMADecompressor(lzma.FORMAT_XZ)
            self._pending = stripped
