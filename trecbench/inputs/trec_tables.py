"""TREC text's tokens as typed tables (string ids, float64 score, integer rank and
relevance, the line number): :func:`run_table` and :func:`qrels_table` raise
:class:`~trecbench.errors.InputError` with ``file:line`` for anything that would make
trec_eval silently wrong. What a valid score, rank or grade is (:func:`parse_scores`,
:func:`parse_ranks`, :func:`parse_grades`) the validator and the table readers use too.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import NamedTuple

import numpy as np
import pyarrow as pa

from .. import arrow
from .. import arrow_compute as pc
from ..errors import InputError, excerpt, excerpt_plain
from .tokens import Tokens
from .unconverted import (
    BEIR_HEADER,
    arrow_message,
    columns_message,
    json_content,
    json_message,
    sqlite_message,
)

RUN_FIELDS = ("qid", "q0", "docno", "rank", "score", "tag")
QRELS_FIELDS = ("qid", "iter", "docno", "rel")
# the column of a run's scores as its file writes them, kept when a reader is asked for it
# (a report's drill-down shows them so: the double's shortest form can read otherwise)
SCORE_TEXT = "score_text"

# ASCII grammars: Python's float()/int() would accept nan, inf, 1_000, Unicode digits.
SCORE_PATTERN = r"^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?$"
REL_PATTERN = r"^[+-]?[0-9]+$"  # atol reads "+1" as 1, trec_eval too (validate: Q3.plus)
# the non-finite numbers as Python writes them (float: nan, inf; Decimal: NaN, sNaN, Infinity)
_NON_FINITE = r"[+-]?(s?nan|inf(inity)?)"


# ---------------------------------------------------------------------------------------
# typed tables


def _check_bytes(tokens: Tokens, blank_is_error: bool) -> None:
    for lines, message, rule in (
        (tokens.nul_lines, "NUL byte (trec_eval 9.x would silently stop reading here)", "R23"),
        (tokens.bad_utf8_lines, "invalid UTF-8", "R23"),
        (
            tokens.blank_lines if blank_is_error else (),
            "blank line (fatal in trec_eval)",
            "Q2",
        ),
    ):
        if len(lines):
            raise InputError(tokens.path, int(lines[0]), message, rule)


def matches(values: pa.Array, pattern: str) -> np.ndarray:
    """Where each string matches the (RE2) ``pattern``; False for nulls."""
    return arrow.to_numpy(
        pc.fill_null(pc.match_substring_regex(values, pattern), arrow.scalar(False))
    )


def _lengths(values: pa.Array) -> np.ndarray:
    return arrow.to_numpy(pc.binary_length(values))


def written_as_number(text: str) -> bool:
    """Whether ``text`` is as a number is written: an ASCII decimal, or a non-finite number
    as Python writes it (what a message may show unquoted: nothing in it is hidden)."""
    return bool(re.fullmatch(SCORE_PATTERN, text) or re.fullmatch(_NON_FINITE, text, re.I))


def shown_value(value: pa.Scalar) -> str:
    """A refused value as the message shows it, cut short (a hostile cell can be huge):
    text quoted and escaped, as TREC text's reader and the mixed kinds' message show it (a
    cell can hold a line break, an escape sequence, trailing spaces or nothing); a number,
    or text written as one, as it reads (``1.7``, ``1e400``, ``NaN``): Python numbers of
    kinds no one Arrow column holds come here as their text, which is no text to quote
    (:func:`~trecbench.inputs.python_objects.from_python`)."""
    value = value.as_py()
    if isinstance(value, str) and not written_as_number(value):
        return excerpt(value)
    return excerpt_plain(str(value))


def parse_scores(score: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """Where each score is an ASCII decimal number (``SCORE_PATTERN``), and its float64
    value: NaN where it is none, or where the number overflows a double."""
    good = matches(score, SCORE_PATTERN)
    if not good.all():
        score = pc.if_else(arrow.array(good), score, arrow.scalar(None, score.type))
    values = arrow.to_numpy(pc.cast(score, pa.float64()))
    finite = np.isfinite(values)
    return good, values if finite.all() else np.where(finite, values, np.nan)


# the largest rank: a 64-bit integer (trec_eval skips the rank column; rank-based tools do not)
_LONG_MAX_TEXT = "9223372036854775807"


def parse_ranks(rank: pa.Array) -> pa.Array:
    """int64 ranks; null where a rank is not a non-negative ASCII integer (``2.0``, ``-1``)
    or lies beyond a C long (leading zeros aside: ``0000000000000000002`` is 2)."""
    # ascii_is_decimal: ^[0-9]+$, faster than the regex
    good = arrow.to_numpy(pc.fill_null(pc.ascii_is_decimal(rank), arrow.scalar(False)))
    if _lengths(rank).max(initial=0) < len(_LONG_MAX_TEXT):  # every rank fits: no trimming
        return pc.cast(
            pc.if_else(arrow.array(good), rank, arrow.scalar(None, rank.type)), pa.int64()
        )
    digits = pc.utf8_ltrim(pc.cast(rank, pa.string()), "0")
    width = _lengths(digits)
    good &= width <= len(_LONG_MAX_TEXT)
    longest = width == len(_LONG_MAX_TEXT)
    if longest.any():  # 19 digits: within a long when not above its largest, as text
        beyond = arrow.to_numpy(pc.greater(digits, arrow.scalar(_LONG_MAX_TEXT, pa.string())))
        good &= ~(longest & beyond)
    kept = pc.if_else(arrow.array(good), digits, arrow.scalar(None, pa.string()))
    # all zeros trimmed to nothing: rank 0
    kept = pc.if_else(pc.equal(kept, arrow.scalar("", pa.string())), arrow.scalar("0"), kept)
    return pc.cast(kept, pa.int64())


def rank_too_large(shown: str) -> str:
    """What the converters and the validator (R10) say of a rank ``shown``
    (as the message shows it) that :func:`parse_ranks` refuses for its size alone."""
    return (
        f"{shown} is too large: ranks go up to {_LONG_MAX_TEXT} (a 64-bit integer, as trecbench "
        "and rank-based tools hold them; trec_eval skips the rank column)"
    )


# trec_eval 9.0.8 allocates per grade level: a grade of 5,000,000 makes its nDCG run for hours
MAX_GRADE = 1_000_000


def grade_beyond(text: object) -> str:
    """Why the grade written ``text`` (beyond ±:data:`MAX_GRADE`) is refused (Q4), by its
    side: above, trec_eval's nDCG runs for hours; below, nothing would (trec_eval reads
    every negative grade alike, unjudged), but grades are read within the same bounds."""
    if str(text).lstrip().startswith("-"):
        return (
            f"is below -{MAX_GRADE:,}, the lowest grade read (trec_eval reads every "
            "negative grade alike, as unjudged: write -1)"
        )
    return f"is above {MAX_GRADE:,} (trec_eval's nDCG would run for hours)"


class Grades(NamedTuple):
    """Relevance grades read from text (see :func:`parse_grades`)."""

    integer: np.ndarray  # an ASCII integer (REL_PATTERN)
    fits: np.ndarray  # ... of at most 9 digits past a sign and leading zeros
    values: np.ndarray  # int64 where ``fits``, else 0
    huge: np.ndarray  # an integer beyond ±MAX_GRADE


_GRADE_DIGITS = 9  # more digits than MAX_GRADE's 7 yet well within an int64's 18


def parse_grades(rel: pa.Array) -> Grades:
    """Check and convert a column of grades once, for the reader and the validator: as
    trec_eval's ``atol`` reads them, a sign and leading zeros aside (``-0000000000000000000000``
    is 0, ``+0001`` is 1)."""
    integer = matches(rel, REL_PATTERN)
    negative = arrow.to_numpy(pc.fill_null(pc.starts_with(rel, "-"), arrow.scalar(False)))
    # an integer's sign and leading zeros trimmed at once: the pattern puts a sign first only
    digits = pc.utf8_ltrim(rel, "+-0")
    width = _lengths(digits)
    fits = integer & (width <= _GRADE_DIGITS)
    kept = pc.if_else(arrow.array(fits & (width > 0)), digits, arrow.scalar(None, digits.type))
    magnitude = arrow.to_numpy(pc.fill_null(pc.cast(kept, pa.int64()), arrow.scalar(0)))
    values = np.where(negative, -magnitude, magnitude)
    return Grades(integer, fits, values, integer & (~fits | (magnitude > MAX_GRADE)))


def refuse_rows(tokens: Tokens, bad: np.ndarray, rule: str, message: Callable[[int], str]) -> None:
    """Raise :class:`InputError` at the first row where ``bad`` (a boolean per row);
    ``message(row)`` says why."""
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise InputError(tokens.path, int(tokens.line[row]), message(row), rule)


# what a line of three fields may be, and what reads it
MSMARCO_HINT = " (an MS MARCO qid pid rank run? convert it with 'trecbench convert msmarco')"
BEIR_HINT = (
    " (a 3-column BEIR qrels? 'trecbench convert beir-qrels' converts it, tab-separated under "
    "the header line 'query-id corpus-id score')"
)
# the rule of a file that is what a converter reads (:func:`unconverted`), by kind: the
# readers' and the validator's
UNCONVERTED_RULES = {"run": "R32", "qrels": "Q12"}


def other_kind(tokens: Tokens, kind: str) -> str | None:
    """``"qrels"`` or ``"run"`` when ``tokens``, read as a ``kind``, have the other kind's
    shape on every line: a run's (6 fields or more) or qrels' (4 fields, an integer last).

    A run given as qrels (or the reverse) is then reported once, as swapped arguments,
    instead of once per line. Lines split by a vertical tab, form feed or lone CR (R2:
    old-Mac line ends make a whole file one line) do not count: their fields are not the
    file's shape, and the verdict would hide the cause.
    """
    tokens = tokens.without_lines(tokens.space_control_lines)
    if not len(tokens):
        return None
    if kind == "qrels":
        return "run" if (tokens.nfields >= 6).all() else None
    if (tokens.nfields != 4).any() or len(tokens.fields) < 4:
        return None
    return "qrels" if matches(tokens.fields[3], REL_PATTERN).all() else None


def swapped_message(found: str) -> str:
    """What to say about a file that looks like a ``found`` (``"run"`` or ``"qrels"``) file
    where the other kind was expected (:func:`other_kind`)."""
    if found == "run":
        return (
            "this looks like a run, not qrels (every line has 6 or more fields): are the run "
            "and qrels arguments swapped?"
        )
    return (
        "this looks like qrels, not a run (every line has 4 fields, an integer last): are "
        "the run and qrels arguments swapped?"
    )


# Q11 when the run given looks like one too: swapping the two would not help
FORGOTTEN_QRELS = (
    "QRELS is a run (every line has 6 or more fields), and so is the run given after it: did "
    "you forget the qrels?"
)
# R29 when the qrels given before the run read as qrels: swapping the two would not help
FORGOTTEN_RUN = (
    "this looks like qrels, not a run (every line has 4 fields, an integer last), as do the "
    "qrels it is scored against: did you forget the run?"
)


def _refuse_swapped(tokens: Tokens, kind: str) -> None:
    found = other_kind(tokens, kind)
    if found is not None:
        rule = "Q11" if found == "run" else "R29"
        raise InputError(tokens.path, None, swapped_message(found), rule)


def unconverted(tokens: Tokens, kind: str) -> str | None:
    """What to say, in one line, of ``tokens`` that start a file ``trecbench convert``
    reads, given as a ``kind`` (``run``, ``qrels``) they cannot be read as: JSON (told by
    the file's first bytes, :func:`~.unconverted.json_content`), or three fields on every
    line (MS MARCO's runs, BEIR's qrels). None otherwise, and where the tokens read as a
    ``kind`` (trec_eval takes ``{"q1"}`` for a qid, and so does trecbench)."""
    try:
        message = _unconverted_message(tokens, kind)
    except InputError:  # JSON nested too deep to tell: refused, unless it reads as TREC text
        if _reads_as(tokens, kind):
            return None
        raise
    return None if message is None or _reads_as(tokens, kind) else message


def _reads_as(tokens: Tokens, kind: str) -> bool:
    """Whether ``tokens`` read as a ``kind``'s TREC text (by its reader without the
    refusal of what a converter reads: what :func:`unconverted` tells is not asked again)."""
    try:
        _READERS[kind](tokens)
    except InputError:
        return False
    return True


def _unconverted_message(tokens: Tokens, kind: str) -> str | None:
    """What :func:`unconverted` says of ``tokens`` whose reading as a ``kind`` failed:
    JSON first, told by its first bytes (``{"q1": {"d1": 1.0}}`` is three fields too)."""
    content = json_content(tokens.head, tokens.path)
    if content is not None:
        return json_message(content, kind)
    binary = arrow_message(tokens.head, kind) or sqlite_message(tokens.head, kind)
    if binary is not None:
        return binary
    shape = columns_shape(tokens, kind)
    return None if shape is None else columns_message(kind, shape, beir_ready(tokens))


def _three_fields(tokens: Tokens) -> bool:
    """Whether every line of ``tokens`` has three fields, none a ``#`` comment (TREC's,
    never a converter's). Lines split by a VT, FF or lone CR (R2) do not count, as in
    :func:`other_kind`, nor lines holding a Unicode blank: a no-break space joining two
    fields makes three of four (the qrels were said to be BEIR's, or a pool to judge)."""
    # concatenated, not united: np.unique imports numpy.ma, which the small path never loads
    tokens = tokens.without_lines(
        np.concatenate((tokens.space_control_lines, tokens.unicode_space_lines))
    )
    if not len(tokens) or not (tokens.nfields == 3).all():
        return False
    return not pc.any(pc.starts_with(tokens.fields[0], "#")).as_py()


# the second field of every line of trecbench pool's file (qid 0 docno), and of TREC's
POOL_PLACEHOLDERS = ("0", "Q0")


def columns_shape(tokens: Tokens, kind: str) -> str | None:
    """What ``tokens`` of three fields on every line are, given as a ``kind``: ``pool``
    (trecbench pool's file, ``qid 0 docno``: a placeholder second on every line, whatever
    the separator: no converter reads a document id there); else a run's ``msmarco``, or
    qrels' ``beir``; None: not three fields a line."""
    if not _three_fields(tokens):
        return None
    placeholders = pc.is_in(tokens.fields[1], value_set=pa.array(POOL_PLACEHOLDERS))
    if pc.all(placeholders).as_py():
        return "pool"
    return "msmarco" if kind == "run" else "beir"


def beir_ready(tokens: Tokens) -> bool:
    """Whether ``tokens`` are as ``convert beir-qrels`` reads them: tab-separated, the
    first line BEIR's header (told on the file's first tokens: later ones follow it)."""
    if tokens.separator != b"\t":
        return False
    if not tokens.head or not len(tokens):
        return True
    return tuple(tokens.fields[i][0].as_py() for i in range(3)) == BEIR_HEADER


def _read(tokens: Tokens, kind: str, read: Callable[[], pa.Table]) -> pa.Table:
    """``read()``, the ``kind`` table of ``tokens``; where it fails on what a converter
    reads, one :class:`InputError` that says so (:func:`unconverted`) instead."""
    try:
        return read()
    except InputError:
        message = _unconverted_message(tokens, kind)
        if message is None:
            raise
        raise InputError(tokens.path, None, message, UNCONVERTED_RULES[kind]) from None


def run_table(tokens: Tokens, score_text: bool = False) -> pa.Table:
    """Typed run table from tokens; raises :class:`InputError` on malformed lines.
    ``score_text``: also each score's text (:data:`SCORE_TEXT`).

    Accepted like trec_eval: blank lines (skipped) and tokens after the tag (ignored).
    Rejected, unlike trec_eval, because trec_eval would silently use a wrong value: a score
    that is not a finite ASCII number (``atof`` turns ``abc`` into 0), NUL bytes, invalid
    UTF-8. A rank that is not a non-negative integer is kept as null: trec_eval never reads
    the rank column. What a converter reads is refused saying so (:func:`unconverted`).
    """
    return _read(tokens, "run", lambda: _run_table(tokens, score_text))


def _run_table(tokens: Tokens, score_text: bool = False) -> pa.Table:
    _refuse_swapped(tokens, "run")
    _check_bytes(tokens, blank_is_error=False)
    nfields = tokens.nfields
    refuse_rows(
        tokens,
        nfields < 6,
        "R1",
        lambda r: (
            "expected 6 fields (qid Q0 docno rank score tag), found "
            f"{nfields[r]}{MSMARCO_HINT if nfields[r] == 3 else ''}"
        ),
    )
    qid, q0, docno, rank, score, tag = tokens.fields[:6]
    good_score, scores = parse_scores(score)
    refuse_rows(
        tokens,
        ~good_score,
        "R12",
        lambda r: f"score {excerpt(score[r].as_py())} is not a finite number",
    )
    refuse_rows(
        tokens,
        np.isnan(scores),
        "R12",
        lambda r: f"score {excerpt(score[r].as_py())} overflows a double",
    )
    columns = {
        "qid": qid,
        "q0": q0,
        "docno": docno,
        "rank": parse_ranks(rank),
        "score": arrow.array(scores),
        "tag": tag,
        "line": arrow.array(tokens.line),
    }
    return pa.table(columns | ({SCORE_TEXT: score} if score_text else {}))


def qrels_table(tokens: Tokens) -> pa.Table:
    """Typed qrels table from tokens; raises :class:`InputError` on malformed lines.

    trec_eval requires exactly four fields and dies on blank lines; it reads the grade with
    ``atol`` (``1.5`` becomes 1, ``abc`` becomes 0), which trecbench refuses instead. What
    a converter reads is refused saying so (:func:`unconverted`).
    """
    return _read(tokens, "qrels", lambda: _qrels_table(tokens))


def _qrels_table(tokens: Tokens) -> pa.Table:
    _refuse_swapped(tokens, "qrels")
    _check_bytes(tokens, blank_is_error=True)
    nfields = tokens.nfields

    def wrong(row: int) -> str:
        found = f"{nfields[row]}{BEIR_HINT if nfields[row] == 3 else ''}"
        return f"expected 4 fields (qid iter docno rel), found {found}"

    refuse_rows(tokens, nfields != 4, "Q1", wrong)
    qid, iteration, docno, rel = tokens.fields[:4]
    grades = parse_grades(rel)
    refuse_rows(
        tokens,
        ~grades.integer,
        "Q3",
        lambda r: f"relevance {excerpt(rel[r].as_py())} is not an integer",
    )
    refuse_rows(
        tokens,
        grades.huge,
        "Q4",
        lambda r: f"relevance {excerpt_plain(rel[r].as_py())} {grade_beyond(rel[r].as_py())}",
    )
    return pa.table(
        {
            "qid": qid,
            "iter": iteration,
            "docno": docno,
            "rel": arrow.array(grades.values),
            "line": arrow.array(tokens.line),
        }
    )


# a kind's reader, without the refusal of what a converter reads
_READERS: dict[str, Callable[[Tokens], pa.Table]] = {"run": _run_table, "qrels": _qrels_table}
