"""``--docids FILE`` (R6): the docids a run may hold, one per line, each docno looked up
exactly.

The file is read once through the readers' one way in (:func:`trecbench.sources.
read_source`: plain or compressed, told by the content; a pipe works) and split as a
run's fields are (at C's white space: a no-break space is part of an id). A collection's
list can hold millions of ids, and a run is checked chunk by chunk: the ids are kept in
one Arrow array with a sorted 64-bit hash of each, so that a chunk's docnos are found by
a binary search, then compared with the listed string (ids are strings, compared byte
for byte: a hash alone could take one for another).
"""

from __future__ import annotations

import os
from collections.abc import Iterable

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .. import arrow
from ..errors import InputError
from ..inputs import trec_text
from ..ranking import string_hash
from ..sources import read_source, source_text

Docids = str | os.PathLike | Iterable[str]


class DocidList:
    """Docids (one listed twice is found as once), and :meth:`missing` to tell the docnos
    that are not among them."""

    def __init__(self, ids: pa.Array):
        self.ids = ids.cast(pa.large_string())  # a docid listed twice is found as once
        keys = string_hash(self.ids)
        self.order = np.argsort(keys)  # equal keys side by side, in any order
        self.keys = keys[self.order]

    def missing(self, docno: pa.Array) -> np.ndarray:
        """A boolean per docno: True where it is not in the list."""
        if not len(self.ids):
            return np.ones(len(docno), bool)
        docno = docno.cast(pa.large_string())
        keys = string_hash(docno)
        by_key = np.argsort(keys)  # searched in order: 5 times faster in a long list
        at = np.empty(len(keys), np.int64)
        at[by_key] = np.searchsorted(self.keys, keys[by_key])
        at = np.minimum(at, len(self.keys) - 1)
        candidate = self.ids.take(arrow.array(self.order[at]))
        same = arrow.to_numpy(pc.fill_null(pc.equal(candidate, docno), False))
        listed = (self.keys[at] == keys) & same
        # a docno whose hash is a listed id's, but not its string: another listed id may
        # share the hash (rare as a 64-bit collision), among the next ones in sorted order
        for row in np.flatnonzero((self.keys[at] == keys) & ~same):
            listed[row] = self._listed_after(int(at[row]), docno[int(row)].as_py())
        return ~listed

    def _listed_after(self, at: int, docid: str) -> bool:
        key, stop = self.keys[at], len(self.keys)
        while at + 1 < stop and self.keys[at + 1] == key:
            at += 1
            if self.ids[int(self.order[at])].as_py() == docid:
                return True
        return False


def docid_list(docids: Docids | DocidList) -> DocidList:
    """A :class:`DocidList` of a file (:func:`read_docids`) or of ids given as strings."""
    if isinstance(docids, DocidList):
        return docids
    if isinstance(docids, (str, os.PathLike)):
        return read_docids(docids)
    ids = list(docids)
    wrong = next((value for value in ids if not isinstance(value, str)), None)
    if wrong is not None:
        raise TypeError(f"docids are strings, not {type(wrong).__name__} ({wrong!r})")
    return DocidList(pa.array(ids, pa.large_string()))


def read_docids(path: str | os.PathLike) -> DocidList:
    """The docids of a file, one per line (blank lines skipped, blanks around an id and a
    UTF-8 byte-order mark dropped); a line of two fields or more, an id holding a NUL, or
    a file without any id, is an error at its line."""
    source = read_source(path, "docids")
    text = source_text(source, "invalid UTF-8")  # UTF-16 refused too
    ids = pc.utf8_trim(trec_text.raw_lines(text.encode()), trec_text.C_SPACE + "\n")
    for pattern, problem in (
        (
            f"[{trec_text.C_SPACE}]",
            "two fields or more: give one docid per line (no docid holds a blank)",
        ),
        (r"\x00", "NUL byte in a docid"),
    ):
        found = np.flatnonzero(trec_text.matches(ids, pattern))
        if len(found):
            raise InputError(source.path, int(found[0]) + 1, problem)
    ids = ids.filter(pc.not_equal(ids, arrow.scalar("", ids.type)))
    if not len(ids):
        raise InputError(source.path, None, "no docids found")
    return DocidList(ids)
