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


def non_decreasing(values: np.ndarray) -> bool:
    """Whether ``values`` never go down (topic codes in order, each topic in one stretch)."""
    return bool(np.all(values[1:] >= values[:-1]))


def in_stretch_order(topics: np.ndarray) -> np.ndarray:
    """``topics`` (integer codes, one per row) renumbered 0, 1, 2... in the order the
    topics first come, where each comes in one stretch of rows (a run lists each topic
    whole, though not in its codes' order: qids 1, 2, 10 coded byte-wise as 0, 2, 1):
    codes that never go down, which :class:`HashIndex` sorts a few topics at a time
    (a 1M-line run of 10,000 topics indexed and checked for duplicates: 17 ms against
    57 ms in one sort). ``topics`` as they are where they never go down already, or
    where a topic comes back."""
    if non_decreasing(topics):
        return topics
    starts = np.flatnonzero(topics[1:] != topics[:-1]) + 1
    firsts = np.sort(topics[np.r_[0, starts]])
    if not (firsts[1:] != firsts[:-1]).all():  # a topic in two stretches
        return topics
    lengths = np.diff(np.r_[0, starts, len(topics)])
    return np.repeat(np.arange(len(lengths), dtype=topics.dtype), lengths)


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
    hashes &= np.take(_LOW_BYTES, lengths, mode="clip")  # 8 bytes and more: all 8
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
    """Entries (rows) sorted by a hash of their string and, with ``topics``, their topic:
    rows whose keys collide (duplicate candidates) and, by binary search, the rows that
    may hold a given key. Only some bits of the hash are kept, so every candidate must be
    verified exactly.

    ``keys``: each row's :func:`string_hash` (unsalted; overwritten when neither ``rows``
    nor ``topics`` are given); ``rows``: the rows to index (default all), in this order;
    ``topics``: each indexed row's topic (an integer code), when a key is to match only in
    its own topic. Topics that come in order (the rows ranked: topics ascending) are
    sorted a stretch of topics at a time, in cache, with 32-bit keys where they hold
    enough of the hash (:class:`_TopicPieces`: numpy sorts 32-bit keys with SIMD and
    64-bit ones without on this project's machines; 630,000 keys take 3.3 ms in 32-bit
    pieces of 1,000, 7.8 ms in 64-bit ones, 29 ms in one sort); other rows in one sort
    (:class:`_OneSort`, the topic salted into the hash).
    """

    def __init__(
        self, keys: np.ndarray, rows: np.ndarray | None = None, topics: np.ndarray | None = None
    ):
        chosen = keys if rows is None else keys[rows]
        layout = _TopicPieces.of(topics, rows)
        if layout is None:
            if topics is not None:
                chosen = salted(chosen, topics)
            layout = _OneSort(len(keys), rows)
        self.layout = layout
        self.packed = layout.pack(chosen)
        self.mask = layout.mask
        self.by_topic = topics is not None

    def colliding_positions(self) -> np.ndarray:
        """Positions (in the sorted order) of entries whose key bits equal another's."""
        same = (self.packed[1:] ^ self.packed[:-1]) <= self.mask
        colliding = np.zeros(len(self.packed), bool)  # like its predecessor or successor
        colliding[:-1] = same
        colliding[1:] |= same
        return np.flatnonzero(colliding)

    def row_at(self, positions: np.ndarray) -> np.ndarray:
        return self.layout.rows_of(self.packed[positions])

    def lookup(
        self, keys: np.ndarray, topics: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """``(i, row)`` pairs: ``row`` may hold ``keys[i]`` (:func:`string_hash`,
        unsalted) in topic ``topics[i]`` (given when the index was built with topics)."""
        if self.by_topic and topics is None:
            raise ValueError("an index of topics looks keys up in their topics")
        which, low = self.layout.needles(keys, topics)
        # sorted needles: numpy's binary search then stays local (10x faster on 10M rows)
        needles = np.argsort(low, kind="stable")
        low = low[needles]
        start = np.searchsorted(self.packed, low, side="left")
        stop = np.searchsorted(self.packed, low | self.mask, side="right")
        count = stop - start
        found = np.repeat(which[needles], count)
        offset = np.arange(len(found)) - np.repeat(np.cumsum(count) - count, count)
        return found, self.row_at(np.repeat(start, count) + offset)


class _OneSort:
    """Every entry in one sort, its row number in the low bits: ``hash bits | row``."""

    def __init__(self, n: int, rows: np.ndarray | None):
        self.rows = rows
        self.shift = max(1, (n - 1).bit_length())
        self.mask = np.uint64((1 << self.shift) - 1)

    def pack(self, chosen: np.ndarray) -> np.ndarray:
        shift = np.uint64(self.shift)
        for start in range(0, len(chosen), _SLICE):  # in place, slice by slice (in cache)
            part = chosen[start : start + _SLICE]
            part >>= shift
            part <<= shift
            if self.rows is None:
                part |= np.arange(start, start + len(part), dtype=np.uint64)
            else:
                part |= self.rows[start : start + len(part)].astype(np.uint64)
        chosen.sort()
        return chosen

    def rows_of(self, packed: np.ndarray) -> np.ndarray:
        return (packed & self.mask).astype(np.int64)

    def needles(self, keys: np.ndarray, topics: np.ndarray | None):
        if topics is not None:
            keys = salted(keys, topics)
        shift = np.uint64(self.shift)
        return np.arange(len(keys)), (keys >> shift) << shift


# pieces are cut at the first topic to start past each multiple of this many entries
# (whole topics; a topic longer than that alone), each sorted on its own in the
# first-level cache. Smaller pieces leave more hash bits to 32-bit keys: 630,000 rows of
# 1,000 per topic indexed and checked for duplicates in 8.1 ms with cuts every 512, 8.8
# ms every 1,024, 11.0 ms every 2,048
_PIECE = 512
# keys (32-bit, else 64-bit, else one sort) may keep so few hash bits that they make at
# most _FALSE_PAIRS false candidate pairs, or one per _ENTRIES_PER_FALSE_PAIR entries
# (each pair is compared as strings)
_FALSE_PAIRS = 64
_ENTRIES_PER_FALSE_PAIR = 1024


class _TopicPieces:
    """Entries in topic order, cut into pieces of whole topics, each sorted on its own:
    ``piece | topic within the piece | hash bits | position in the piece``, the piece in
    the high bits, so the pieces sorted one by one make one sorted array.

    Two entries of one topic are a false candidate pair when their kept hash bits are
    equal: about ``sum(L**2) / 2**(bits + 1)`` pairs for topics of ``L`` entries. 32-bit
    keys serve where that stays small (topics of 1,000: 22 bits, one pair in about eight
    topics); larger topics get 64-bit keys."""

    def __init__(
        self, topics: np.ndarray, edges: np.ndarray, rows: np.ndarray | None, squares: float
    ):
        self.rows, self.topics, self.squares = rows, topics, squares
        self.starts = edges[:-1]
        self.lengths = np.diff(edges)
        self.first_topic, self.last_topic = topics[edges[:-1]], topics[edges[1:] - 1]
        self.position_bits = max(1, int(self.lengths.max() - 1).bit_length())
        self.topic_bits = int((self.last_topic - self.first_topic).max()).bit_length()
        low_bits = self.topic_bits + self.position_bits
        self.width = 32 if self.few_false_pairs(32 - low_bits) else 64
        self.piece_shift = 32 if self.width == 32 else 64 - max(1, (len(edges) - 2).bit_length())
        self.hash_bits = self.piece_shift - low_bits
        self.mask = np.uint64((1 << self.position_bits) - 1)

    def few_false_pairs(self, hash_bits: int) -> bool:
        """Whether keys keeping ``hash_bits`` bits of the hash make few false pairs."""
        allowed = max(_FALSE_PAIRS, len(self.topics) / _ENTRIES_PER_FALSE_PAIR)
        return hash_bits > 0 and self.squares / 2.0 ** (hash_bits + 1) <= allowed

    @classmethod
    def of(cls, topics: np.ndarray | None, rows: np.ndarray | None) -> _TopicPieces | None:
        """The pieces of ``topics``, or None where one sort is as good: few entries,
        topics out of order, or too few hash bits left."""
        if topics is None or len(topics) < 2 * _PIECE or topics[0] < 0:
            return None  # one sort is as quick
        if not non_decreasing(topics):
            return None
        starts = np.flatnonzero(topics[1:] != topics[:-1]) + 1
        cuts = starts[np.diff(starts // _PIECE, prepend=0) > 0]
        lengths = np.diff(starts, prepend=0, append=len(topics)).astype(np.float64)
        edges = np.concatenate(([0], cuts, [len(topics)]))
        pieces = cls(topics, edges, rows, float(np.dot(lengths, lengths)))
        return pieces if pieces.few_false_pairs(pieces.hash_bits) else None

    def pack(self, chosen: np.ndarray) -> np.ndarray:
        width = np.uint32 if self.width == 32 else np.uint64
        keys = (chosen >> np.uint64(64 - self.hash_bits)).astype(width)
        keys <<= width(self.position_bits)
        position = np.arange(len(chosen), dtype=width)
        position -= np.repeat(self.starts.astype(width), self.lengths)
        keys |= position
        if self.topic_bits:
            within = (self.topics - np.repeat(self.first_topic, self.lengths)).astype(width)
            within <<= width(self.position_bits + self.hash_bits)
            keys |= within
        stops = self.starts + self.lengths
        for start, stop in zip(self.starts.tolist(), stops.tolist(), strict=True):
            keys[start:stop].sort()
        piece = np.arange(len(self.lengths), dtype=np.uint64) << np.uint64(self.piece_shift)
        packed = np.repeat(piece, self.lengths)
        packed |= keys
        return packed

    def rows_of(self, packed: np.ndarray) -> np.ndarray:
        piece = (packed >> np.uint64(self.piece_shift)).astype(np.int64)
        entry = self.starts[piece] + (packed & self.mask).astype(np.int64)
        return entry if self.rows is None else self.rows[entry].astype(np.int64)

    def needles(self, keys: np.ndarray, topics: np.ndarray):
        piece = np.searchsorted(self.first_topic, topics, side="right") - 1
        which = np.flatnonzero((piece >= 0) & (topics <= self.last_topic[piece]))
        piece, topics = piece[which], topics[which]
        low = (keys[which] >> np.uint64(64 - self.hash_bits)) << np.uint64(self.position_bits)
        low |= (piece.astype(np.uint64) << np.uint64(self.piece_shift)) | (
            (topics - self.first_topic[piece]).astype(np.uint64)
            << np.uint64(self.position_bits + self.hash_bits)
        )
        return which, low
