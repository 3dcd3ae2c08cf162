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
# the spellings a header's score or grade column is looked for in, on every line: a header
# in the middle (runs concatenated, each with its own) looked like a bad rank and score
# (arrow.array, not pa.array: a list given to pyarrow imports pandas, which the small
# path never loads)
HEADER_SPELLINGS = arrow.array(
    sorted({form for word in HEADER_WORDS for form in (word, word.upper(), word.capitalize())})
)


def classify(tokens: Tokens, first_record: bool, number: int) -> tuple[np.ndarray, np.ndarray]:
    """Masks of comment lines and of header lines.

    A header is the file's first record when its field ``number`` (score, grade) is not a
    number and two of its fields are usual column names (``qid``, ``docno``, ``score``...),
    or a later line whose field ``number`` is such a name (runs concatenated, a header
    each).

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
    if number < len(tokens.fields):  # a later line whose score or grade is a column's name
        named = pc.is_in(tokens.fields[number], value_set=HEADER_SPELLINGS)
        named = pc.fill_null(named, arrow.scalar(False))
        for row in np.flatnonzero(arrow.to_numpy(named) & ~comment):
            header[row] = _header(tokens, int(row), number)
    return comment, header


def _header(tokens: Tokens, row: int, number: int) -> bool:
    """Whether line ``row`` is a header: its field ``number`` (score, grade) no number,
    two of its fields usual column names (``qid``, ``docno``, ``score``...)."""
    words = [f[row].as_py() for f in tokens.fields]
    named = sum(w is not None and w.lower() in HEADER_WORDS for w in words)
    value = words[number] or ""
    return named >= 2 and not re.fullmatch(SCORE_PATTERN, value)
