"""The compressions trecbench reads, in one registry: each one's magic bytes (how a file
is told: by its content, :func:`compression_of`, used by :mod:`trecbench.inputs.streams`)
and the suffixes its files are named with (what a run's name drops:
:mod:`trecbench.naming`). No import: a name is derived before anything is read."""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple


class Compression(NamedTuple):
    """``name`` (Arrow's codec name; xz and bz2 are read by :mod:`lzma` and :mod:`bz2`), the
    ``magic`` bytes a file so compressed starts with, and the ``suffixes`` such files are
    named with. ``skippable``: the format lets skippable frames come first (see
    :func:`compression_of`). ``refusal``: why a file so compressed is not read, for one
    that is told but refused. ``no_stream``: what its decompressor says where a stream
    would start and the bytes there are none (data after the last stream: trailing junk,
    not a stream cut short). ``header``: whether a file's first bytes (from the magic on)
    are the format's, where the magic alone is text a run can begin with (None: it tells).
    """

    name: str
    magic: bytes
    suffixes: tuple[str, ...]
    skippable: bool = False
    refusal: str | None = None
    no_stream: str | None = None
    header: Callable[[bytes], bool] | None = None

    def begins(self, head: bytes, start: int = 0) -> bool:
        """Whether a file whose bytes from ``start`` are ``head``'s is so compressed."""
        if not head.startswith(self.magic, start):
            return False
        return self.header is None or self.header(head[start:])


# a bz2 stream's block and end magic numbers (pi's digits and its square root's)
_BZ2_MAGICS = (b"\x31\x41\x59\x26\x53\x59", b"\x17\x72\x45\x38\x50\x90")


def _bz2_header(head: bytes) -> bool:
    """Whether ``head`` (from ``BZh``) is a bz2 stream's: a block size 1-9, then a block's
    or the stream end's magic; one ending within them is a stream cut short (its reader
    says so). Text such as ``BZh5 Q0 d1 1 2.0 t`` is no bz2: trec_eval reads a run's line."""
    level, block = head[3:4], head[4:10]
    return (not level or level in b"123456789") and any(m.startswith(block) for m in _BZ2_MAGICS)


COMPRESSIONS = (
    Compression("gzip", b"\x1f\x8b", (".gz",)),
    Compression("bz2", b"BZh", (".bz2",), no_stream="that is no bz2 stream", header=_bz2_header),
    Compression(
        "zstd",
        b"\x28\xb5\x2f\xfd",
        (".zst", ".zstd"),
        skippable=True,
        no_stream="Unknown frame descriptor",
    ),
    Compression("lz4", b"\x04\x22\x4d\x18", (".lz4",), skippable=True),
    Compression("xz", b"\xfd7zXZ\x00", (".xz",)),
    # named .lz4 too (lz4's entry drops it from names); Arrow's lz4 codec reads frames only
    Compression(
        "lz4 legacy",
        b"\x02\x21\x4c\x18",
        (),
        skippable=True,
        refusal=(
            "lz4 legacy format (lz4 -l), which trecbench cannot read: recompress with lz4 "
            "without -l (or gzip/zstd)"
        ),
    ),
)
SUFFIXES = tuple(suffix for compression in COMPRESSIONS for suffix in compression.suffixes)
NAMED = {compression.name: compression for compression in COMPRESSIONS}

# A skippable frame (zstd's and the lz4 frame format's; pzstd starts every file with one):
# one of 16 magic numbers, 0x184D2A50..0x184D2A5F little-endian (`5? 2a 4d 18`), a 4-byte
# little-endian size, then that many bytes. What follows the frames says which format.
_SKIPPABLE_TAIL = b"\x2a\x4d\x18"
_SKIPPABLE_HEADER = 8
# the first bytes of a file that its compression is told by: skippable frames are looked
# past within them, and a file whose skippable frames go on further is read as it is
HEAD_BYTES = 64 << 10


def compression_of(head: bytes) -> str | None:
    """The name of the compression of the file whose first bytes are ``head`` (its first
    :data:`HEAD_BYTES`, or all of a shorter file), or None: read as it is.

    Past skippable frames, the format whose magic follows (zstd's, lz4's); a file of
    whole skippable frames and nothing else is zstd's, whose decoder reads it as empty. A
    file that ends within what its first bytes declare a skippable frame is read as it is:
    text whose qid starts ``P*M\x18`` declares one of 512 MB or more (its next four bytes,
    `` Q0 ``), and trec_eval reads it as text."""
    head = head[:HEAD_BYTES]
    start = _past_skippable_frames(head)
    if start == 0:
        return next((c.name for c in COMPRESSIONS if c.begins(head)), None)
    if start >= len(head):
        return "zstd" if start == len(head) < HEAD_BYTES else None
    found = (c.name for c in COMPRESSIONS if c.skippable and c.begins(head, start))
    return next(found, None)


def _past_skippable_frames(head: bytes) -> int:
    """The offset in ``head`` past the skippable frames it starts with (0: none; at or
    past ``len(head)`` when they reach its end)."""
    start = 0
    while (
        start < len(head)
        and head[start] & 0xF0 == 0x50
        and head.startswith(_SKIPPABLE_TAIL, start + 1)
    ):
        size = head[start + 4 : start + _SKIPPABLE_HEADER]
        start += _SKIPPABLE_HEADER + int.from_bytes(size, "little")
    return start


def without_suffixes(name: str, any_case: bool = False) -> str:
    """``name`` without the compression suffixes it ends with (``run.trec.zstd`` ->
    ``run.trec``), as given; ``any_case``: matched in any case (``R1.RUN.GZ`` ->
    ``R1.RUN``), the name's own case kept."""
    for suffix in SUFFIXES:
        end = name[-len(suffix) :]
        if (end.lower() if any_case else end) == suffix:
            name = name[: -len(suffix)]
    return name


class GzipEnd(NamedTuple):
    """What follows a gzip file's members (:func:`gzip_end`). ``padded``: zero bytes
    after a member, which zlib's stream stops at and Python's gzip module and ISA-L's
    reader skip, reading on; ``trailing``: ``(offset, length)`` of the bytes after the
    last member, past any zeros, that start no member (what ``gzip -d`` calls "trailing
    garbage"), or None."""

    padded: bool
    trailing: tuple[int, int] | None


def gzip_end(read_at: Callable[[int, int], bytes], size: int) -> GzipEnd | None:
    """What follows the members of the ``size`` bytes as stored that ``read_at(offset, n)``
    reads (:class:`GzipEnd`), walked as Python's gzip module walks them (zero bytes after
    a member skipped); None where a member is corrupt or cut short (its own error). Only
    read when reading the file failed; by offset, so that standard input and a pipe held
    in memory are told as a file is."""
    import zlib

    position, pending, inflater, padded = 0, b"", zlib.decompressobj(31), False

    def read(n: int) -> bytes:  # what is held always ends at `position`
        nonlocal position
        got = read_at(position, n)
        position += len(got)
        return got

    while True:
        block, pending = (pending or read(1 << 20)), b""
        if not block:
            return None  # a member never ended
        try:
            inflater.decompress(block)
        except zlib.error:
            return None  # corrupt, not trailing
        if not inflater.eof:
            continue
        rest = inflater.unused_data
        while not (stripped := rest.lstrip(b"\0")):  # only zeros, or nothing, after it
            padded = padded or bool(rest)
            if not (rest := read(1 << 20)):
                return GzipEnd(padded, None)
        padded, rest = padded or len(stripped) < len(rest), stripped
        if len(rest) < 2:
            rest += read(2 - len(rest))
        if not rest.startswith(NAMED["gzip"].magic):
            offset = position - len(rest)
            return GzipEnd(padded, (offset, size - offset))
        pending, inflater = rest, zlib.decompressobj(31)
