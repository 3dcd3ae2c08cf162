"""``--docids FILE`` (R6): the docids a run may hold, one per line, each docno looked up
exactly.

The file is read once through the readers' one way in (:func:`trecbench.sources.
read_source`: plain or compressed, told by the content; a pipe works) and split as a
run's fields are (at C's white space: a no-break space is part of an id). A collection's
list can hold millions of ids, and a run is checked chunk by chunk: the ids are kept in
one Arrow array with a sorted 64-bit hash of each (:class:`trecbench.hash_index.HashIndex`,
as a run's rows are matched), so that a chunk's docnos are found by a binary search,
then compared with the listed strings (ids are strings, compared byte for byte: a hash
alone could take one for another).
"""

from __future__ import annotations

import os
from collections.abc import Iterable

import numpy as np
import pyarrow as pa

from .. import arrow
from .. import arrow_compute as pc
from ..errors import InputError, UsageError, excerpt
from ..hash_index import HashIndex, string_hash
from ..inputs import trec_text
from ..naming import listed
from ..ranking import take_rows
from ..sources import read_source, source_text
from ..type_names import python_type

Docids = str | os.PathLike | Iterable[str]


class DocidList:
    """Docids (one listed twice is found as once), and :meth:`missing` to tell the docnos
    that are not among them."""

    def __init__(self, ids: pa.Array):
        self.ids = ids.cast(pa.large_string())
        self.index = HashIndex(string_hash(self.ids))

    def missing(self, docno: pa.Array) -> np.ndarray:
        """A boolean per docno: True where it is not in the list."""
        docno = docno.cast(pa.large_string())
        # every listed id of the docno's hash is a candidate (ids may share a hash): the
        # string decides
        which, rows = self.index.lookup(string_hash(docno))
        same = pc.equal(take_rows(self.ids, rows), take_rows(docno, which))
        listed = np.zeros(len(docno), bool)
        listed[which[arrow.to_numpy(pc.fill_null(same, False))]] = True
        return ~listed


def docid_list(docids: Docids | DocidList) -> DocidList:
    """A :class:`DocidList` of a file (:func:`read_docids`) or of ids given as strings;
    any other value refused naming ``docids`` (5 raised "'int' object is not iterable",
    ``[5]`` a TypeError)."""
    if isinstance(docids, DocidList):
        return docids
    if isinstance(docids, (str, os.PathLike)):
        return read_docids(docids)
    ids = listed(docids, "docids", "docids (text) or a docids file's path", unordered=True)
    wrong = next((value for value in ids if not isinstance(value, str)), None)
    if wrong is not None:
        raise UsageError(
            f"docids: docid {excerpt(wrong)}: give docids as text, not {python_type(wrong)}"
        )
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
