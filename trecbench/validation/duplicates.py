"""The duplicate check's pieces: (qid, docno) pairs repeated within a chunk, and the keys of
earlier chunks with the numbers a repeat names of its first occurrence (:class:`SeenKeys`)."""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from .. import arrow
from .. import arrow_compute as pc
from ..hash_index import non_decreasing
from ..scratch import unwritable


def duplicate_pairs(keys: np.ndarray, docno: pa.Array, codes: np.ndarray, line: np.ndarray):
    """Each distinct key's first row (by line; in key order), and the row pairs (first,
    later) holding the same (qid, docno).

    Each later occurrence is paired with the first of the chunk (a third with the first,
    not the second), ordered by the later's line.
    """
    # no stable sort (5x slower): a repeated key's rows are put in line order below, and
    # every other key has one place
    order = np.argsort(keys)
    ordered = keys[order]
    repeat = ordered[1:] == ordered[:-1]  # row order[p + 1] repeats row order[p]
    if repeat.any():  # a repeated key's rows in line order (lines are distinct)
        member = np.flatnonzero(np.r_[repeat, False] | np.r_[False, repeat])
        rows = order[member]
        order[member] = rows[np.lexsort((line[rows], ordered[member]))]
    starts = np.r_[True, ~repeat]
    key_first = order[starts]
    pair = np.flatnonzero(repeat)
    if not len(pair):
        return key_first, np.empty(0, np.int64), np.empty(0, np.int64)
    before, second = order[pair], order[pair + 1]
    key_starts = np.flatnonzero(starts)
    first = order[key_starts[np.searchsorted(key_starts, pair, "right") - 1]]

    def same_pair(earlier: np.ndarray) -> np.ndarray:
        # confirmed: a 64-bit hash collision must not invent a duplicate
        texts = (docno.take(arrow.array(part)) for part in (earlier, second))
        return arrow.to_numpy(pc.equal(*texts)) & (codes[earlier] == codes[second])

    same = same_pair(before)
    first = np.where(same_pair(first), first, before)  # a colliding first: the one before
    first, second = first[same], second[same]
    later = np.argsort(line[second], kind="stable")
    return key_first, first[later], second[later]


class HashSet:
    """A compact set of 64-bit keys (8 bytes per line) in sorted numpy blocks.

    Lookups happen for topics that come back after other topics: rare, but for a run whose
    topics are scattered, every chunk looks up all its keys. So a new chunk's block merges
    with the last ones until each block is at least twice the next: there are a few blocks
    to search (logarithmically many) however many chunks came, and each key is merged a
    few times (a merge briefly holds its keys twice). Beyond ``memory_keys`` keys, the
    keys in memory go, merged into one block, to a temporary file mapped into memory
    (:class:`numpy.memmap`): a lookup reads a few pages of each such block, each holds
    more than ``memory_keys`` keys (so they are few too), and the memory stays bounded
    however long the file.
    """

    def __init__(self, memory_keys: int | None = None) -> None:
        self.blocks: list[np.ndarray] = []
        self.memory_keys, self.held = memory_keys, 0

    def add(self, sorted_keys: np.ndarray) -> None:
        if not len(sorted_keys):
            return
        while self._in_memory() and len(self.blocks[-1]) < 2 * len(sorted_keys):
            sorted_keys = self._merged(sorted_keys)
        if self.memory_keys is not None and self.held + len(sorted_keys) > self.memory_keys:
            while self._in_memory():
                sorted_keys = self._merged(sorted_keys)
            sorted_keys = _on_disk(sorted_keys)
        else:
            self.held += len(sorted_keys)
        self.blocks.append(sorted_keys)

    def _in_memory(self) -> bool:
        """Whether the last block is in memory (not on disk)."""
        return bool(self.blocks) and not isinstance(self.blocks[-1], np.memmap)

    def _merged(self, sorted_keys: np.ndarray) -> np.ndarray:
        """``sorted_keys`` merged with the last block, which it replaces."""
        last = self.blocks.pop()
        self.held -= len(last)
        merged = np.concatenate([last, sorted_keys])
        merged.sort(kind="stable")  # two sorted runs: one linear merge
        return merged

    def contains(self, keys: np.ndarray) -> np.ndarray:
        # sorted needles: each block's binary searches then stay local (in cache, and a
        # few pages of a block on disk) instead of jumping over the whole block
        if non_decreasing(keys):  # sorted already (the duplicate check asks so)
            return self._contains_sorted(keys)
        order = np.argsort(keys)
        found = np.empty(len(keys), bool)
        found[order] = self._contains_sorted(keys[order])
        return found

    def _contains_sorted(self, needles: np.ndarray) -> np.ndarray:
        hit = np.zeros(len(needles), bool)
        for block in self.blocks:
            where = np.minimum(np.searchsorted(block, needles), len(block) - 1)
            hit |= block[where] == needles
        return hit


class SeenKeys:
    """The (qid, docno) keys of earlier chunks, and what a repeat names of the first
    occurrence of each: ``width`` numbers (its line; a qrels' grade too).

    The keys stay as each chunk gave them, its new keys sorted with their numbers, never
    merged: 16 bytes a key in a run (the numbers are wanted for a repeat only, and most
    runs never ask whether a key was seen: their topics do not come back). From the first
    question on (a topic that comes back, every chunk of qrels) a :class:`HashSet` of the
    keys answers whether one was seen, in a few blocks (8 bytes more a key), and a repeat's
    key is then looked for chunk by chunk. Beyond ``memory_keys`` keys, both go to
    temporary files, the chunks' keys gathered into one block sorted by key.
    """

    def __init__(self, memory_keys: int | None = None, width: int = 1) -> None:
        self.memory_keys, self.width, self.held = memory_keys, width, 0
        self.firsts: list[tuple[np.ndarray, np.ndarray]] = []  # sorted keys, numbers
        self.keys: HashSet | None = None  # made when first asked

    @property
    def entry_bytes(self) -> int:
        """What a key may cost: its hash, twice, and its numbers."""
        return 8 * (2 + self.width)

    def add(self, sorted_keys: np.ndarray, numbers: np.ndarray) -> None:
        """Hold ``sorted_keys`` (ascending, none held yet) with their ``numbers`` (a row of
        ``width`` each)."""
        if not len(sorted_keys):
            return
        if self.keys is not None:
            self.keys.add(sorted_keys)
        self.firsts.append((sorted_keys, numbers.reshape(len(sorted_keys), self.width)))
        self.held += len(sorted_keys)
        if self.memory_keys is not None and self.held > self.memory_keys:
            self._spill()

    def _spill(self) -> None:
        """The chunks' keys in memory, as one block sorted by key, to a temporary file."""
        on_disk = [b for b in self.firsts if isinstance(b[0], np.memmap)]
        in_memory = self.firsts[len(on_disk) :]
        keys = np.concatenate([k for k, _ in in_memory])
        order = np.argsort(keys, kind="stable")  # an earlier chunk's key first
        numbers = np.concatenate([n for _, n in in_memory])[order]
        self.firsts = [*on_disk, (_on_disk(keys[order]), _on_disk(numbers))]
        self.held = 0

    def lookup(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Which ``keys`` are held, and the numbers of those that are (in their order)."""
        if not len(keys) or not self.firsts:
            return np.zeros(len(keys), bool), np.zeros((0, self.width), np.int64)
        if self.keys is None:
            self.keys = HashSet(self.memory_keys)
            for block, _ in self.firsts:
                self.keys.add(block)
        found = self.keys.contains(keys)
        needles = keys[found]
        numbers = np.zeros((len(needles), self.width), np.int64)
        missing = np.arange(len(needles))
        for block, block_numbers in self.firsts:  # in the order the chunks came
            if not len(missing):
                break
            where = np.minimum(np.searchsorted(block, needles[missing]), len(block) - 1)
            hit = block[where] == needles[missing]
            numbers[missing[hit]] = block_numbers[where[hit]]
            missing = missing[~hit]
        return found, numbers


def _on_disk(values: np.ndarray) -> np.ndarray:
    """``values`` in a temporary file (deleted when closed), mapped read-only.

    A file that cannot be made or written (a full ``TMPDIR``, or no usable temporary
    folder at all) is an :class:`OutputError` naming the folder. Written by the file's own
    ``write``, not numpy's ``tofile``: that says a short write as an :class:`OSError`
    without ``errno`` ("N requested and M written"), and a write that fits stdio's buffer
    not at all (its error at ``fclose`` is dropped: the map then reads a short file). A
    file shorter than the values after the flush is a full disk too.
    """
    import errno
    import os
    import tempfile

    try:
        with tempfile.TemporaryFile(prefix="trecbench-keys-") as handle:
            handle.write(memoryview(np.ascontiguousarray(values)).cast("B"))
            handle.flush()
            if os.fstat(handle.fileno()).st_size != values.nbytes:
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            return np.memmap(handle, dtype=values.dtype, mode="r", shape=values.shape)
    except OSError as error:
        reason = error.strerror or os.strerror(errno.ENOSPC)  # no errno: a short write
        try:
            folder = tempfile.gettempdir()
        except OSError:  # no usable folder at all (what failed): asked again, it fails again
            folder = "TMPDIR"
        raise unwritable(folder, "the duplicate check's temporary file", reason) from error
