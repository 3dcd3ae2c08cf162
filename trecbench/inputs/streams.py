"""An input file opened once: compression told by its content, checksum taken as it is read.

:class:`Source` is how every reader of trecbench gets at a file's bytes:

* **Compression by content, never by name.** The first bytes say gzip, bz2, zstd, lz4
  (frame) or xz (:func:`trecbench.compressions.compression_of`, past the skippable
  frames a zstd or lz4 file may start with, as pzstd's do); everything else is read as it
  is, whatever the file is called (a plain file named ``run.gz`` is plain text, a gzip
  file named ``run.txt`` is decompressed). lz4's legacy format (``lz4 -l``), which Arrow
  cannot read, is refused (R27).
  gzip, zstd and lz4 go through Arrow's decompressing stream (no Python per byte;
  concatenated members and frames are read through), xz and bz2 through :mod:`lzma` and
  :mod:`bz2`, stream after stream (:mod:`trecbench.inputs.concatenated`). gzip goes
  through ISA-L's inflater instead when the ``isal`` package is installed (``pip install
  'trecbench[fast-gzip]'``), on a thread of its own that reads and decompresses the next
  megabyte while the parser works on the last one (a gzipped run then costs about what
  the plain one does: docs/performance.md).
* **Read once.** The bytes as stored pass through a :class:`~trecbench.provenance.Digest`
  on their way to the parser, so the checksum and size of a report are those of what was
  parsed, and nothing reads the file again for them. A file that cannot be read twice (a
  FIFO, a pipe such as ``<(zcat run.gz)``, a terminal) is read into memory once, as it
  arrives, and parsed from there; a regular file is streamed, and only read again from
  its start if a reader gives up on a first attempt (the fast reader of
  :mod:`trecbench.inputs.trec_text` on a file it finds irregular). A source opened with
  ``spool=True`` holds a regular file in memory too, so that several readers of one call
  (benchmark's validator, then its loader; validate --fix's validator, then its rewrite)
  share one read and one checksum.
* **Progress** in bytes as stored: ``progress(done, total)`` (``total`` None when the
  size is not known in advance).

Every source notes its path as an input of the call (:func:`trecbench.outputs.note_input`).
"""

from __future__ import annotations

import io
import lzma
import os
import stat
from codecs import BOM_UTF8
from collections.abc import Callable
from functools import partial
from typing import Any

import pyarrow as pa

from .. import outputs, provenance
from ..callbacks import LabelledProgress, Progress
from ..compressions import HEAD_BYTES, NAMED, GzipEnd, compression_of, gzip_end
from ..errors import BROKEN_OFF, InputError
from ..errors import EMPTY_FILE as EMPTY_FILE  # (read as streams.EMPTY_FILE too)
from ..naming import STANDARD_INPUT, nameless
from ..plurals import counted
from .formats import (
    COMPRESSED_PARQUET,
    CONTENT_HEAD,
    PARQUET_MAGIC,
    PARQUET_TAIL_BYTES,
    Ends,
    Format,
    detect,
    parquet_laid_out,
)
from .read_ahead import ReadOnly as ReadOnly  # (read as streams.ReadOnly too)
from .read_ahead import threaded_gzip
from .tokens import MOST_LINE_BYTES


def labelled(progress: LabelledProgress | None, label: str) -> Progress | None:
    """``progress`` told of the job ``label`` as ``(done, total)``; None without progress."""
    return None if progress is None else lambda done, total: progress(label, done, total)


def steps(progress: LabelledProgress | None, label: str, total: int) -> Callable[..., None]:
    """A call ``step(more=1)`` that tells ``progress`` ``more`` steps more of ``total`` steps
    of ``label`` done (0 of them told now); nothing without ``progress``."""
    if progress is None:
        return lambda more=1: None
    done = 0
    progress(label, 0, total)

    def step(more: int = 1) -> None:
        nonlocal done
        done += int(more)
        progress(label, done, total)

    return step


_SPOOL_BLOCK = 8 << 20
_DECOMPRESSION_ERRORS = (OSError, pa.ArrowException, EOFError, lzma.LZMAError)


def _plain_text(memory: io.BytesIO) -> bool:
    """Whether the bytes spooled so far begin as text a TREC reader reads line by line: not
    compressed, not Parquet, not JSON (whose one long line a JSON reader takes whole, R32)."""
    with memory.getbuffer() as view:
        head = bytes(view[:HEAD_BYTES])
    begins = head.removeprefix(BOM_UTF8).lstrip(b" \t\r\n")
    return compression_of(head) is None and not begins.startswith((PARQUET_MAGIC, b"{", b"["))


def kind_of(path: str, ends: Ends) -> tuple[str | None, Format]:
    """The compression (:func:`compression_of`) of the file ``path`` whose bytes as
    stored have these ``ends``, and its format (:func:`trecbench.inputs.formats.detect`)
    as its name and ends tell it (:class:`Source` tells a nameless input's by its content
    too)."""
    compression = compression_of(ends.head)
    return compression, detect(path, ends, compression)


def sniff(path: str | os.PathLike) -> tuple[str | None, Format]:
    """:func:`kind_of` the file ``path``, a regular file named as it is (raises
    :class:`OSError` when it cannot be read)."""
    with open(path, "rb") as handle:
        ends = stored_ends(handle.fileno(), 0, os.fstat(handle.fileno()).st_size)
    return kind_of(os.fspath(path), ends)


def stored_ends(fd: int, start: int, size: int) -> Ends:
    """The :class:`Ends` of the ``size`` bytes of the file ``fd`` from ``start`` (raises
    :class:`OSError` when they cannot be read)."""
    head = os.pread(fd, HEAD_BYTES, start)
    tail = os.pread(fd, PARQUET_TAIL_BYTES, start + max(size - PARQUET_TAIL_BYTES, 0))
    return Ends(head, tail, size)


class _Counted(ReadOnly):
    """The raw bytes of ``raw`` as its reader takes them, each block added to ``digest``
    when one is given (a file, hashed as read) and told as ``progress(done, total)``:
    ``done`` the bytes hashed, or ``raw``'s position (a pipe's spool, hashed as it was
    spooled, read again by its parser: 332 MB piped in took 5 s after the spool's bar,
    shown for none of its 0.7 s, with nothing drawn, where a file's bar moves as it is
    parsed)."""

    def __init__(self, raw, progress: Progress | None, total, digest=None):
        self.raw, self.progress, self.total, self.digest = raw, progress, total, digest

    def read(self, size: int = -1) -> bytes:
        block = self.raw.read(size)
        if block:
            self._took(block)
        return block

    def readinto(self, buffer) -> int:
        """``read`` into ``buffer`` (a writable buffer), without a copy of the bytes."""
        got = self.raw.readinto(buffer)
        if got:
            self._took(memoryview(buffer)[:got])
        return got

    def _took(self, block) -> None:
        if self.digest is not None:
            self.digest.update(block)
        if self.progress is not None:
            done = self.digest.size if self.digest is not None else self.raw.tell()
            self.progress(done, self.total)


class _Decompressed(ReadOnly):
    """A decompressing stream whose errors (truncated or corrupt data) become
    :class:`InputError` R27 naming the file, raised once every byte decompressed before
    them was read: a read of ``n`` bytes that fails drops what it had decompressed
    (Arrow's, ISA-L's), so ``reopen()`` (a new stream of the content from its start, or
    None) decompresses it again, in ever smaller reads, to the last byte it can. What a
    truncated file gives its reader is then all its data decodes to (gzip, xz and bzip2:
    every byte written, a corrupt bzip2 block's too, which libbz2 hands over before its
    checksum fails; zstd and lz4: their whole blocks), whatever the reads' sizes."""

    def __init__(
        self, stream, compression: str, path: str, errors: tuple = (), reopen=None, trailing=None
    ):
        self.stream, self.compression, self.path = stream, compression, path
        # () -> what follows gzip's members (gzip_end), or None: told apart from a cut
        self.trailing, self.reading_on = trailing, False
        self.errors, self.reopen = _DECOMPRESSION_ERRORS + errors, reopen
        self.delivered, self.pending, self.failed = 0, b"", None

    def read(self, size: int = -1) -> bytes:
        if self.pending or self.failed is not None:
            return self._from_pending(size)
        if size is None or size < 0:
            data = self._checked(self.stream.read)
        else:
            data = self._checked(self.stream.read, size)
        if data is None:  # the error, after the bytes decompressed again
            return self._from_pending(size)
        self.delivered += len(data)
        return data

    def readinto(self, buffer) -> int:
        """``read`` into ``buffer`` (a writable buffer): the bytes decompressed land in the
        reader's buffer, with no block of their own to allocate and copy again."""
        got = None
        if not self.pending and self.failed is None:
            got = self._checked(self.stream.readinto, buffer)
        if got is None:  # the bytes decompressed again after the error, then the error
            view = memoryview(buffer).cast("B")
            data = self._from_pending(len(view))
            view[: len(data)] = data
            return len(data)
        self.delivered += got
        return got

    def _from_pending(self, size: int | None) -> bytes:
        """The bytes decompressed again after the error, then the error."""
        if not self.pending:
            raise self.failed
        size = len(self.pending) if size is None or size < 0 else size
        data, self.pending = self.pending[:size], self.pending[size:]
        self.delivered += len(data)
        return data

    def _checked(self, method, *args):
        try:
            return method(*args)
        except InputError:
            raise
        except self.errors as exc:
            _forget_frames(exc)
            end = None if self.trailing is None else self.trailing()
            no_stream = NAMED[self.compression].no_stream if self.compression in NAMED else None
            if end is not None and end.padded and not self.reading_on and self.reopen is not None:
                return self._read_on_past_padding(method.__name__, *args)
            tail = None if end is None else end.trailing
            if tail is not None:
                message = (
                    f"trailing data after the gzip stream ({counted(tail[1], 'byte')} at offset "
                    f"{tail[0]}): not gzip, and no part of the input (gzip -d ignores it "
                    "with a warning)"
                )
            elif no_stream is not None and no_stream in str(exc):
                message = (
                    f"trailing data after the {self.compression} data: not {self.compression}, "
                    f"and no part of the input ({exc})"
                )
            else:
                message = f"{BROKEN_OFF} {self.compression} data: {exc}"
            error = InputError(self.path, None, message, "R27", finding=True)
            self.pending = self._salvaged()
            if not self.pending:
                raise error from None
            self.failed = error
            return None  # (the caller returns the pending bytes instead)

    def _read_on_past_padding(self, method: str, *args):
        """Zero bytes after a gzip member, which zlib's stream stops at: ISA-L's reader,
        and Python's gzip module, skip them and read on (the next member, or the end), so
        the content is the same whichever is installed. The rest is read by the standard
        library's reader (``reopen()``, its own errors said and salvaged here as any
        stream's), past the bytes delivered."""
        self.reading_on = True
        reopened = self.reopen()
        self.stream, self.errors = reopened.stream, reopened.errors
        skip = self.delivered
        while skip and (got := len(self.stream.read(min(skip, _SPOOL_BLOCK)))):
            skip -= got  # (a stream ending short of them would have looped here for ever)
        return self._checked(getattr(self.stream, method), *args)

    def _salvaged(self) -> bytes:
        """The bytes after those delivered that a new stream decompresses before the
        error: read in 64 KiB pieces, then the last piece's bytes one by one."""
        got = bytearray()
        for piece in (1 << 16, 1):
            stream = None if self.reopen is None else self.reopen()
            if stream is None:
                break
            try:
                skip = self.delivered + len(got)
                while skip:
                    skip -= len(stream.read(min(skip, _SPOOL_BLOCK)))
                while block := stream.read(piece):
                    got += block
            except (InputError, *self.errors) as exc:
                _forget_frames(exc)
                continue
            break  # (read to its end this time: nothing more to decompress)
        return bytes(got)


def _forget_frames(error: BaseException) -> None:
    """Drop the traceback of ``error``, handled here: it holds the reader's frames, and
    they the caller's buffer being read into; an error in a cycle (a thread's, Arrow's)
    would keep them until a garbage collection, and the caller could not resize its
    buffer (a BufferError on salvaging a truncated file)."""
    error.__traceback__ = None


class Source:
    """One input file, opened once (see the module docstring); ``-`` is standard input.

    ``compression`` (None, or a name of :data:`trecbench.compressions.COMPRESSIONS`) and
    ``format`` (:mod:`trecbench.inputs.formats`) are known from the first bytes and the
    name, and for an input whose name says nothing (``-``, ``/dev/fd/63``) from the first
    bytes of its content too (a JSONL run piped in). :meth:`stream` gives the decompressed
    content from its start; :meth:`raw_bytes` the bytes as stored (for Parquet, which
    needs random access); :meth:`record` the ``size`` and ``sha256`` of the bytes as
    stored, once they have all been read. Use as a context manager.

    ``spool``: read a regular file into memory at once, as a pipe is, so that every
    :meth:`stream` starts again in memory instead of reading the file again (for an input
    that several readers parse and that is held whole anyway: benchmark's small inputs,
    the run that ``validate --fix`` sorts; a run that is only validated or scored is
    streamed, never held whole).
    """

    def __init__(
        self, path: str | os.PathLike, progress: Progress | None = None, *, spool: bool = False
    ):
        outputs.note_input(path)
        self.path = str(path)
        self.key = provenance.identity(path)
        self.progress = progress
        try:
            self._file, self._borrowed = provenance.opened(self.path)
            info = None if self._borrowed else os.fstat(self._file.fileno())
        except OSError as exc:
            raise InputError.unreadable(self.path, exc) from None
        self.regular = info is not None and stat.S_ISREG(info.st_mode)
        # where the file's bytes start: standard input redirected from a file is read from
        # where it stands, as trec_eval 10.0 reads it (`{ read h; trecbench ...; } < run`)
        self._start = self._file.tell() if self.regular and self.path == STANDARD_INPUT else 0
        self.total = info.st_size - self._start if self.regular else None
        self._digest = provenance.Digest()
        self._memory: io.BytesIO | None = None
        self._raw: _Counted | None = None
        self._inflater = None  # the fast gzip reader's thread, stopped before any rewind
        if spool or not self.regular:
            self._spool()
        ends = self._ends()
        self.compression = compression_of(ends.head)
        content = self._content_head() if nameless(self.path) else None
        self.format = detect(self.path, ends, self.compression, content)

    # -- reading

    def _spool(self) -> None:
        """Read a FIFO, pipe or device (or a file opened with ``spool``) once, into memory,
        hashing as the bytes arrive."""
        memory = io.BytesIO()
        line_start, text = 0, None  # where the line being read starts; whether TREC text
        try:
            while block := self._file.read(_SPOOL_BLOCK):
                end = block.rfind(b"\n")
                line_start = line_start if end < 0 else memory.tell() + end + 1
                memory.write(block)
                self._digest.update(block)
                if self.progress is not None:
                    self.progress(self._digest.size, self.total)
                if memory.tell() - line_start > MOST_LINE_BYTES:
                    text = _plain_text(memory) if text is None else text
                    if text:  # its readers refuse the line (R27.long) where it starts: what
                        break  # follows is never read (/dev/zero held 22 GB)
        except OSError as exc:
            raise InputError.unreadable(self.path, exc) from None
        memory.seek(0)
        self._memory = memory

    def spool_read(self) -> tuple[int, int] | None:
        """How far the latest :meth:`stream` has read a spooled source: the bytes as
        stored taken from the spool, and its size (a reader's bar of a file read once, into
        memory, then parsed); None when not spooled. A compressed spool Arrow decompresses
        (neither gzip nor xz) is read in one piece: 0 until then."""
        if self._memory is None:
            return None
        return self._memory.tell(), self._digest.size

    def _ends(self) -> Ends:
        """The first and last bytes as stored, and how many there are."""
        if self._memory is not None:
            stored = self._memory.getbuffer()
            head, tail = stored[:HEAD_BYTES].tobytes(), stored[-PARQUET_TAIL_BYTES:].tobytes()
            size = stored.nbytes
            stored.release()  # (the spool stays resizable)
            return Ends(head, tail, size)
        try:  # a file that is not spooled is a regular one: its size is known
            return stored_ends(self._file.fileno(), self._start, self.total)
        except OSError as exc:
            raise InputError.unreadable(self.path, exc) from None

    def _content_head(self) -> bytes:
        """The content (decompressed) up to :data:`CONTENT_HEAD` bytes past its blank
        start (a byte order mark, white space, empty lines), read until then or its end
        (an xz read stops at each stream's end), with a line end where the content ends
        (it ends its last line); every reader's :meth:`stream` starts again."""
        stream = self.stream()
        parts: list[bytes] = []
        substance = 0  # bytes from the first that is not blank
        while substance < CONTENT_HEAD:
            block = stream.read(CONTENT_HEAD)
            if not block:
                parts.append(b"\n")
                break
            looked = block if parts else block.removeprefix(BOM_UTF8)
            parts.append(block)
            substance += len(looked) if substance else len(looked.lstrip(b" \t\r\n"))
        return b"".join(parts)

    def _stop_inflater(self) -> None:
        """Stop the fast gzip reader's thread (it reads the raw file ahead of the parser):
        before the file is read again from its start, or to its end for the checksum."""
        if self._inflater is not None:
            self._inflater.close()
            self._inflater = None

    def _rewound_raw(self):
        """The bytes as stored, from the start; a regular file is hashed anew as read, a
        pipe's spool told as read (:class:`_Counted`)."""
        self._stop_inflater()
        if self._memory is not None:
            self._memory.seek(0)
            if self.regular or self.progress is None:  # spool=True: its reader tells it
                return self._memory
            return _Counted(self._memory, self.progress, self._digest.size)
        self._file.seek(self._start)
        self._digest = provenance.Digest()
        self._raw = _Counted(self._file, self.progress, self.total, self._digest)
        return self._raw

    def stream(self, salvage: bool = True, block: int | None = None):
        """The decompressed content from its start (a readable object with ``read(n)``;
        decompression errors, and a compression told but not read, raise
        :class:`InputError` R27, after the bytes decompressed before them: ``salvage``,
        see :class:`_Decompressed`). ``block``: the bytes the reader asks at a time, which
        the gzip inflater's thread then hands over at a time (a memory budget's reads are
        smaller: :attr:`trecbench.memory.Budget.read_bytes`); None: its own."""
        refusal = self.compression and NAMED[self.compression].refusal
        if refusal:
            raise InputError(self.path, None, refusal, "R27", finding=True)
        raw = self._rewound_raw()
        if self.compression is None:
            return raw
        inner: Any = None
        errors: tuple[type[Exception], ...] = ()
        if self.compression in ("xz", "bz2"):
            from . import concatenated

            inner = concatenated.streams(raw, self.compression)
        elif self.compression == "gzip" and not salvage:
            # decompressed again after an error: the standard library's reader hands over
            # the bytes before it (ISA-L's, like Arrow's, drops those of the read that fails)
            import gzip
            import zlib

            inner, errors = gzip.GzipFile(fileobj=raw, mode="rb"), (zlib.error,)
        elif self.compression == "gzip":
            inner, errors = threaded_gzip(raw, block)
            self._inflater = inner
        if inner is None:
            native = (
                pa.BufferReader(self._memory.getbuffer())
                if raw is self._memory
                else pa.PythonFile(raw, mode="r")
            )
            inner = pa.CompressedInputStream(native, self.compression)
        reopen = partial(self.stream, salvage=False) if salvage else None
        trailing = self._gzip_trailing if self.compression == "gzip" else None
        return _Decompressed(inner, self.compression, self.path, errors, reopen, trailing)

    def _gzip_trailing(self) -> GzipEnd | None:
        """:func:`~trecbench.compressions.gzip_end` of the bytes as stored: a spool's (a pipe's) and
        standard input's from where it stood too, not only a named file's."""
        if self._memory is not None:
            with self._memory.getbuffer() as stored:
                size = stored.nbytes

                def read_at(offset: int, n: int) -> bytes:
                    return bytes(stored[offset : offset + n])

                return gzip_end(read_at, size)
        fd = self._file.fileno()
        try:  # read by offset: the reader's own position is left as it is
            return gzip_end(lambda at, n: os.pread(fd, n, self._start + at), self.total)
        except OSError:
            return None  # the error read is said as it is

    def read(self) -> bytes:
        """The whole decompressed content (:class:`InputError` R27 when it is Parquet:
        :meth:`refuse_parquet`), read in blocks when its progress is told (a bar that
        moves), else in one read."""
        stream = self.stream()
        if self.compression is None and (stream is self._memory or self.progress is None):
            return stream.getvalue() if stream is self._memory else stream.read()
        content = b"".join(iter(lambda: stream.read(_SPOOL_BLOCK), b""))
        self.refuse_parquet(content)
        return content

    def refuse_parquet(self, content: bytes, rest=None) -> None:
        """:class:`InputError` R27 when this compressed file holds a Parquet file
        (:func:`~trecbench.inputs.formats.parquet_laid_out`): a content that starts with
        ``content`` and goes on with what ``rest`` (its stream, read here to its end)
        holds. No reader takes one (Parquet compresses its own columns); TREC text whose
        first qid starts ``PAR1`` is no such file. ``rest`` is read only after the magic."""
        if self.compression is None or not content.startswith(PARQUET_MAGIC):
            return
        size, tail = len(content), content[-PARQUET_TAIL_BYTES:]
        while rest is not None and (block := rest.read(_SPOOL_BLOCK)):
            size, tail = size + len(block), (tail + block)[-PARQUET_TAIL_BYTES:]
        if parquet_laid_out(Ends(content, tail, size)):
            raise InputError(self.path, None, COMPRESSED_PARQUET, "R27", finding=True)

    @property
    def bytes_read(self) -> int:
        """Bytes of the file (as stored) read so far since the last rewind."""
        return self._digest.size

    def raw_bytes(self) -> bytes:
        """The bytes as stored (hashed as they are read)."""
        raw = self._rewound_raw()
        return raw.getvalue() if raw is self._memory else raw.read()

    def record(self) -> dict[str, Any]:
        """``{"size", "sha256"}`` of the bytes as stored: what is left unread (trailing
        bytes a decompressor stopped before) is read and hashed first. Remembered for the
        call (see :mod:`trecbench.provenance`)."""
        self._stop_inflater()
        if self._memory is None:
            if self._raw is None:
                self._rewound_raw()
            try:
                while self._raw.read(_SPOOL_BLOCK):
                    pass
            except OSError as exc:
                raise InputError.unreadable(self.path, exc) from None
        record = self._digest.record()
        provenance.remember(self.key, record)
        return record

    def close(self) -> None:
        self._stop_inflater()
        if not self._borrowed:
            self._file.close()
        self._memory = None

    def __enter__(self) -> Source:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()


# a path, or a Source its caller opened (spooled) so that several readers share one read
File = str | os.PathLike | Source


def rereadable(sources) -> bool:
    """Whether every input of ``sources`` given by path can be read again: a regular file,
    not standard input or a pipe (``-``, ``/dev/stdin``, ``<(...)``), which the first read
    emptied (inputs given as tables or dicts are not paths: nothing to read again)."""
    try:
        return all(
            stat.S_ISREG(os.stat(source).st_mode) for source in sources if isinstance(source, str)
        )
    except OSError:
        return False


def path_of(file: File) -> str:
    """The path ``file`` names, an open :class:`Source`'s too."""
    return file.path if isinstance(file, Source) else str(file)
