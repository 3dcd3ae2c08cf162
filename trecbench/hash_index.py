"""64-bit hashes of strings, and an index of rows by them.

:func:`string_hash` hashes each string of an Arrow column by its bytes alone, vectorised
(no per-string Python); :class:`HashIndex` sorts rows by such hashes once, for the
duplicate checks and the lookups of judgments (:mod:`trecbench.ranking`) and of listed
docids (:mod:`trecbench.validation.docids`). A hash only ever proposes candidates: every
caller compares the strings.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

_LENGTH_KEY = np.uint64(0xCBF29CE484222325)  # odd constants: distinct keys per length,
_POSITION_KEY = np.uint64(0x100000001B3)  # per word position and per salt
_SALT = np.uint64(0x9E3779B97F4A7C15)


def string_hash(values: pa.Array | pa.ChunkedArray, salt: np.ndarray | None = None) -> np.ndarray:
    """A 64-bit hash of each string, vectorised over 8-byte words (no per-string Python);
    with ``salt`` (an integer per row), of the pair (salt, string).

    A hash depends on the string's bytes only, never on its neighbours or on how the
    column is chunked (the validator matches keys across chunks). The work is one pass
    over the bytes: each word of each string is mixed once (see :func:`_chunk_hash`).
    """
    chunks = values.chunks if isinstance(values, pa.ChunkedArray) else [values]
    out = np.empty(len(values), np.uint64)
    done = 0
    for chunk in chunks:
        for start, stop in _slices(chunk):
            piece = _chunk_hash(chunk.slice(start, stop - start))
            if salt is not None:
                piece ^= salt[done : done + len(piece)].astype(np.uint64) * _SALT
            out[done : done + len(piece)] = piece
            done += len(piece)
    return out


# slices of at most _SLICE rows and _SLICE_BYTES bytes (a longer string alone): the
# temporaries, a few words per word of text, stay in cache (several times faster)
_SLICE = 1 << 18
_SLICE_BYTES = 1 << 21


def salted(hashes: np.ndarray, salt: np.ndarray) -> np.ndarray:
    """:func:`string_hash` ``hashes`` (unsalted) as ``salt`` would have made them (a new
    array)."""
    return hashes ^ (salt.astype(np.uint64) * _SALT)


def _slices(chunk: pa.Array) -> list[tuple[int, int]]:
    """``(start, stop)`` row ranges cutting ``chunk`` into slices (see ``_SLICE``)."""
    n = len(chunk)
    if n == 0:
        return []
    offsets = _offsets(chunk)
    if offsets[-1] - offsets[0] <= _SLICE_BYTES:
        return [(start, min(start + _SLICE, n)) for start in range(0, n, _SLICE)]
    slices, start = [], 0
    while start < n:
        by_bytes = int(np.searchsorted(offsets, offsets[start] + _SLICE_BYTES, "right")) - 1
        stop = min(start + _SLICE, n, max(by_bytes, start + 1))
        slices.append((start, stop))
        start = stop
    return slices


def _offsets(chunk: pa.Array) -> np.ndarray:
    width = np.int64 if pa.types.is_large_string(chunk.type) else np.int32
    offsets_buffer = chunk.buffers()[1]
    return np.frombuffer(offsets_buffer, width)[chunk.offset : chunk.offset + len(chunk) + 1]


def _mix(values: np.ndarray) -> np.ndarray:
    """splitmix64's finaliser, in place: every input bit reaches every output bit."""
    values ^= values >> np.uint64(30)
    values *= np.uint64(0xBF58476D1CE4E5B9)
    values ^= values >> np.uint64(27)
    values *= np.uint64(0x94D049BB133111EB)
    values ^= values >> np.uint64(31)
    return values


def _chunk_hash(chunk: pa.Array) -> np.ndarray:
    """The hash of each string: ``mix(word 0 ^ length) + sum of mix(word j ^ j)``, words
    taken 8 bytes at a time (the last one zero-padded), j >= 1 keyed by position.

    Word 0 is mixed for every string at once; the further words of the longer strings are
    gathered into one flat array and each mixed once, so a 100 KB string costs its 12,500
    words, not 12,500 passes over the slice.
    """
    offsets = _offsets(chunk)
    data_buffer = chunk.buffers()[2]
    data = (
        np.frombuffer(data_buffer, np.uint8) if data_buffer is not None else np.empty(0, np.uint8)
    )
    padded = np.concatenate([data[offsets[0] : offsets[-1]], np.zeros(8, np.uint8)])
    # the little-endian word starting at every byte: one unaligned 8-byte read per gather
    # (five times faster than gathering rows of a strided (n, 8) byte view); every word
    # read starts within the text, so none runs past the padding
    windows = np.ndarray((len(padded) - 7,), "<u8", padded, strides=(1,))
    starts = offsets[:-1] - offsets[0]
    lengths = np.diff(offsets)  # offsets' own width: int32 for most columns
    hashes = windows[starts]
    hashes &= _LOW_BYTES[np.minimum(lengths, 8)]
    hashes ^= lengths.astype(np.uint64) * _LENGTH_KEY
    _mix(hashes)
    more = (np.maximum(lengths, 1) - 1) >> 3  # words after the first
    longer = np.flatnonzero(more)
    if len(longer):
        counts = more[longer].astype(np.int64)
        ends = np.cumsum(counts)  # each string's words end here in the flat array
        position = np.arange(ends[-1], dtype=np.int64)
        position -= np.repeat(ends - counts - 1, counts)  # 1, 2, ... within each string
        words = windows[np.repeat(starts[longer].astype(np.int64), counts) + 8 * position]
        words[ends - 1] &= _LOW_BYTES[lengths[longer] - 8 * more[longer]]  # last, partial
        words ^= position.astype(np.uint64) * _POSITION_KEY
        sums = np.cumsum(_mix(words))[ends - 1]  # running totals (wrap-around, exact)
        sums[1:] -= sums[:-1].copy()
        hashes[longer] += sums
    return hashes


# _LOW_BYTES[k] keeps the first k bytes of a little-endian word (k = 0..8)
_LOW_BYTES = np.array([(1 << (8 * k)) - 1 for k in range(9)], np.uint64)


class HashIndex:
    """Rows sorted by a hash of their key, with the row number packed into the low bits.

    One SIMD integer sort (no argsort) gives both: rows whose hashes collide (duplicate
    candidates) and, by binary search, the rows that may hold a given key. Only some bits
    of the hash are kept, so every candidate must be verified exactly.

    With ``topics`` (each indexed row's topic, non-decreasing: the rows in ranked order),
    the topic leads the packed key, so each stretch of whole topics sorts on its own, in
    cache: a quarter of one sort's time on 600,000 rows of 1,000 per topic.
    """

    def __init__(
        self, keys: np.ndarray, rows: np.ndarray | None = None, topics: np.ndarray | None = None
    ):
        n = len(keys)
        self.shift = max(1, (n - 1).bit_length())
        self.mask = np.uint64((1 << self.shift) - 1)
        chosen = keys if rows is None else keys[rows]
        self.topic_bits = _topic_bits(topics, self.shift)
        dropped = np.uint64(self.shift + self.topic_bits)
        shift = np.uint64(self.shift)
        for start in range(0, len(chosen), _SLICE):  # in place, slice by slice (in cache)
            stop = start + _SLICE
            part = chosen[start:stop]
            part >>= dropped
            part <<= shift
            if rows is None:
                part |= np.arange(start, start + len(part), dtype=np.uint64)
            else:
                part |= rows[start:stop].astype(np.uint64)
            if self.topic_bits:
                part |= self._topic_lead(topics[start:stop])
        if self.topic_bits:
            for start, stop in _topic_pieces(topics):
                chosen[start:stop].sort()
        else:
            chosen.sort()
        self.packed = chosen

    def _topic_lead(self, topics: np.ndarray) -> np.ndarray:
        return topics.astype(np.uint64) << np.uint64(64 - self.topic_bits)

    def colliding_positions(self) -> np.ndarray:
        """Positions (in the sorted order) of rows whose key bits equal another row's."""
        same = (self.packed[1:] ^ self.packed[:-1]) <= self.mask
        colliding = np.zeros(len(self.packed), bool)  # like its predecessor or successor
        colliding[:-1] = same
        colliding[1:] |= same
        return np.flatnonzero(colliding)

    def row_at(self, positions: np.ndarray) -> np.ndarray:
        return (self.packed[positions] & self.mask).astype(np.int64)

    def lookup(
        self, keys: np.ndarray, topics: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """``(i, row)`` pairs: ``row`` may hold ``keys[i]`` (same key bits); ``topics``:
        each key's topic, required when the index was built with topics."""
        which = np.arange(len(keys))
        if self.topic_bits:
            which = which[(topics >= 0) & (topics < 1 << self.topic_bits)]  # none elsewhere
            keys, topics = keys[which], topics[which]
        low = (keys >> np.uint64(self.shift + self.topic_bits)) << np.uint64(self.shift)
        if self.topic_bits:
            low |= self._topic_lead(topics)
        # sorted needles: numpy's binary search then stays local (10x faster on 10M rows)
        needles = np.argsort(low, kind="stable")
        low = low[needles]
        start = np.searchsorted(self.packed, low, side="left")
        stop = np.searchsorted(self.packed, low | self.mask, side="right")
        count = stop - start
        found = np.repeat(which[needles], count)
        offset = np.arange(len(found)) - np.repeat(np.cumsum(count) - count, count)
        return found, self.row_at(np.repeat(start, count) + offset)


# at least this many hash bits beside the row and topic bits, else no topic lead (a
# 64-bit key cannot hold both for a 2**30-row run of 2-document topics)
_MIN_HASH_BITS = 24
# topics are sorted in pieces of about this many rows (8 KiB: in the first-level cache)
_PIECE = 1024


def _topic_bits(topics: np.ndarray | None, row_bits: int) -> int:
    """The bits the topic leads the key with: 0 (no topic) unless ``topics`` is
    non-decreasing and leaves room for the hash."""
    if topics is None or len(topics) < 2 * _PIECE or topics[0] < 0:
        return 0  # one sort is as quick
    bits = max(1, int(topics[-1]).bit_length())
    if bits + row_bits > 64 - _MIN_HASH_BITS or np.any(topics[1:] < topics[:-1]):
        return 0
    return bits


def _topic_pieces(topics: np.ndarray) -> list[tuple[int, int]]:
    """``(start, stop)`` stretches of whole topics of about ``_PIECE`` rows or more (one
    larger topic alone)."""
    starts = np.flatnonzero(topics[1:] != topics[:-1]) + 1
    cuts = starts[np.diff(starts // _PIECE, prepend=0) > 0]
    edges = [0, *cuts.tolist(), len(topics)]
    return list(zip(edges[:-1], edges[1:], strict=True))
