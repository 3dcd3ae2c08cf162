"""Comment and header lines of a run or qrels: which lines of a chunk's tokens are ``#``
comments (data to trec_eval 9.x, singled out to be explained) and which are a header
(column names: the file's first record, or a later line of runs concatenated)."""

from __future__ import annotations

import re

import numpy as np

from .. import arrow
from .. import arrow_compute as pc
from ..inputs.trec_text import SCORE_PATTERN, Tokens

HEADER_WORDS = set(
    "qid query query_id query-id queryid topic topic_id iteration docno docid doc_id doc "
    "corpus-id corpus_id rank score sim tag run run_id runid rel relevance label grade "
    "judgment".split()
)
# the column names a later line is looked for by (lower case: its fields are lowered first;
# arrow.array, not pa.array: a list given to pyarrow imports pandas, which the small path
# never loads)
HEADER_NAMES = arrow.array(sorted(HEADER_WORDS))
# a rank a data line holds (a number: 2.0 too, which --fix renumbers): a run line with
# one is data, whatever its other fields say
_RANK = re.compile(SCORE_PATTERN)


def classify(tokens: Tokens, first_record: bool, number: int) -> tuple[np.ndarray, np.ndarray]:
    """Masks of comment lines and of header lines.

    A header is the file's first record when its field ``number`` (score, grade) is not a
    number, two of its fields are usual column names (``qid``, ``docno``, ``score``...)
    and (a run's) its rank is no number, or a later line whose qid and field ``number``
    are such names, with another beside them, and (a run's) whose rank is no number: runs
    concatenated, a header each (a data line whose score is ``rank`` and tag ``run`` is
    data, as trec_eval reads it).

    Comments start with ``#`` (a ``#`` inside an id is not one). They are singled out to be
    reported and explained; to trec_eval 9.x, and so to every check, they are data.
    """
    comment = arrow.to_numpy(
        pc.fill_null(pc.starts_with(tokens.fields[0], "#"), arrow.scalar(False))
    )
    header = np.zeros(len(tokens), bool)
    candidates = np.flatnonzero(~comment)
    if first_record and len(candidates):
        header[int(candidates[0])] = _header(tokens, int(candidates[0]), number)
    if number < len(tokens.fields):  # a later line whose qid and score are column names
        named = [
            arrow.to_numpy(pc.fill_null(pc.is_in(pc.ascii_lower(tokens.fields[at]),
                                                 value_set=HEADER_NAMES), arrow.scalar(False)))
            for at in (0, number)
        ]  # fmt: skip
        for row in np.flatnonzero(named[0] & named[1] & ~comment):
            header[row] = _later_header(tokens, int(row), number)
    return comment, header


def _later_header(tokens: Tokens, row: int, number: int) -> bool:
    """Whether line ``row``, past the first record, is a header: three of its fields
    column names, and a run's rank (``number`` 4: its score's field) no number."""
    words = _words(tokens, row)
    return not (number == 4 and _RANK.fullmatch(words[3])) and _names(words) >= 3


def _header(tokens: Tokens, row: int, number: int) -> bool:
    """Whether line ``row`` is a header: its field ``number`` (score, grade) no number,
    two of its fields usual column names (``qid``, ``docno``, ``score``...), and a run's
    rank no number (``q1 Q0 doc 1 nan run`` is data with a bad score, which --fix
    dropped as a header)."""
    words = _words(tokens, row)
    if number == 4 and _RANK.fullmatch(words[3]):
        return False
    return _names(words) >= 2 and not re.fullmatch(SCORE_PATTERN, words[number])


def _words(tokens: Tokens, row: int) -> list[str]:
    """Line ``row``'s fields (a field it lacks: empty)."""
    return [f[row].as_py() or "" for f in tokens.fields]


def _names(words: list[str]) -> int:
    """How many of ``words`` are usual column names, in any case."""
    return sum(word.lower() in HEADER_WORDS for word in words)
