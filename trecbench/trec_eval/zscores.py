"""``-Z zscores_file``: per-topic values as z-scores, (value - mean) / stddev.

The file has lines ``qid measure mean stddev`` (four whitespace-separated fields; blank
lines are fatal, as everywhere in trec_eval; mean and stddev are decimal numbers, ``nan``
or ``inf``, a number beyond a double's range an infinity, as C's atof reads them; lines
whose mean or stddev is no finite number are warned of). Every per-topic value is
converted — counts too — using the line of its topic and printed label (``P_10``,
``utility_2,-1,0,0``); a value without a line, or with a zero stddev and a value other
than the mean, becomes -1000000 (``MISSING_ZSCORE_VALUE``). Averages are then taken over
the converted values and everything is printed with a ``Z`` prefix and four decimals.

trec_eval finds the lines with a binary search that may look one entry past a topic's
last measure — at the first measure of the next topic in its sorted table (convert_zscores.c,
``end = num`` instead of ``num - 1``); :func:`convert` looks where it looks. Past the last
line of the whole table it reads memory it never allocated (9.0.8 and 10.0 crash there, a
segmentation fault): :func:`convert` refuses that topic or measure, naming it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .. import arrow_compute as pc
from .. import input_warnings
from ..errors import InputError, TrecEvalUndefinedWarning
from ..inputs import trec_text
from .prefs_files import check_fields

MISSING = -1000000.0  # MISSING_ZSCORE_VALUE
# NaN and infinities, which C's atof reads (trec_eval's own zscores file has "nan" means)
SPECIAL_PATTERN = r"^[+-]?(?i:nan|inf|infinity)$"


@dataclass
class ZScores:
    """The file's lines sorted by (qid, measure), as trec_eval's search sees them."""

    qids: list[bytes]  # distinct, sorted
    starts: list[int]  # where each qid's measures start in ``measures``
    measures: list[bytes]
    means: list[float]
    stddevs: list[float]
    path: str = ""
    warnings: tuple[str, ...] = ()  # what its reading warned of (:func:`_undefined`)


def read_zscores(path) -> ZScores:
    """Read a z-scores file; malformed lines raise :class:`InputError` (exit 2)."""
    tokens = trec_text.tokenize_file(path, keep=4)
    if not len(tokens):  # trec_eval: "Cannot read zscores file", exit 255
        raise InputError(str(path), None, "empty z-scores file")
    check_fields(tokens, ("qid", "measure", "mean", "stddev"), "Z1")
    qid, measure, mean, stddev = tokens.fields[:4]
    numbers = [
        _numbers(tokens, column, name) for column, name in ((mean, "mean"), (stddev, "stddev"))
    ]
    qids = [q.encode() for q in pc.cast(qid, "string").to_pylist()]
    names = [m.encode() for m in pc.cast(measure, "string").to_pylist()]
    order = sorted(range(len(qids)), key=lambda i: (qids[i], names[i]))
    warnings = _undefined(tokens, numbers) + _given_twice(tokens, qids, names, order)
    input_warnings.keep(warnings)  # said by the command; the evaluation carries them too
    table = ZScores([], [], [], [], [], str(path), warnings)
    for i in order:
        if not table.qids or table.qids[-1] != qids[i]:
            table.qids.append(qids[i])
            table.starts.append(len(table.measures))
        table.measures.append(names[i])
        table.means.append(float(numbers[0][i]))
        table.stddevs.append(float(numbers[1][i]))
    return table


def _numbers(tokens, column, name: str) -> np.ndarray:
    """A column of means or stddevs read as C's atof reads them (trec_eval's reader): a
    decimal number (one beyond a double's range is an infinity, as ``inf`` is), ``nan``
    or ``inf``; anything else (``0x10``, ``1.5abc``, which atof reads in part) is refused,
    Z2, in one line naming it."""
    good, values = trec_text.parse_scores(column)
    special = trec_text.matches(column, SPECIAL_PATTERN)
    overflow = good & np.isnan(values)  # a decimal number beyond a double: atof's HUGE_VAL
    texts = column.to_pylist()
    for row in np.flatnonzero(special | overflow):
        values[row] = float(texts[row])
    trec_text.refuse_rows(
        tokens,
        ~(good | special),
        "Z2",
        lambda row: f"{name} {column[row].as_py()!r} is not a decimal number, nan or inf",
    )
    return values


def _given_twice(tokens, qids: list[bytes], names: list[bytes], order: list[int]) -> tuple:
    """The warning (one line, or none) of a topic's measure given on two lines or more:
    which one trec_eval's binary search lands on depends on the table around it, and
    trecbench takes the one it takes, but the file means two things."""
    key = lambda i: (qids[i], names[i])  # noqa: E731
    twice = [(a, b) for a, b in zip(order, order[1:], strict=False) if key(a) == key(b)]
    if not twice:
        return ()
    first, second = sorted(twice[0])
    more = f" (and {len(twice) - 1:,} more)" if len(twice) > 1 else ""
    return (
        f"{tokens.path}: lines {int(tokens.line[first])} and {int(tokens.line[second])} both "
        f"give topic {qids[first].decode()}'s {names[first].decode()}{more}: trec_eval's "
        "search takes one of them, which trecbench takes too; give each once",
    )


def _undefined(tokens, numbers: list[np.ndarray]) -> tuple[str, ...]:
    """The file's input warnings (none, one or two lines) naming the lines whose mean or
    stddev is NaN or infinite: trec_eval reads and prints them (its own test suite's file
    has ``nan`` means), and so does trecbench, byte for byte, but the z-scores of their
    topic and measure are then no numbers (nan, -inf); and those whose stddev is negative
    (z-scores of the opposite sign, alike in trec_eval)."""
    from ..plurals import counted

    said = []
    lines = np.flatnonzero(~(np.isfinite(numbers[0]) & np.isfinite(numbers[1])))
    if len(lines):
        said.append(
            f"{tokens.path}: a mean or stddev that is nan or infinite on "
            f"{counted(len(lines), 'line')} (the first: line {int(tokens.line[lines[0]])}): "
            "their topics' z-scores of those measures are printed as trec_eval prints them "
            "(nan, inf), no numbers"
        )
    negative = np.flatnonzero(np.isfinite(numbers[1]) & (numbers[1] < 0))  # (-inf: above)
    if len(negative):  # trec_eval divides by it: every z-score of the line has its sign flipped
        said.append(
            f"{tokens.path}: a negative stddev on {counted(len(negative), 'line')} (the "
            f"first: line {int(tokens.line[negative[0]])}): their topics' z-scores of those "
            "measures are divided by it, as trec_eval divides, and have their signs flipped"
        )
    return tuple(said)


def _search(keys: list[bytes], key: bytes, start: int, end: int) -> int | None:
    """trec_eval's binary search over ``keys[start:end + 1]`` (``end`` one past the last
    entry it owns); an index past the whole table finds nothing."""
    low, high = start, end
    while low <= high:
        current = (low + high) // 2
        if current >= len(keys):
            raise _PastTheTable
        if key < keys[current]:
            high = current - 1
        elif key > keys[current]:
            low = current + 1
        else:
            return current
    return None


class _PastTheTable(Exception):
    """trec_eval's search reads past the end of the table (it crashes)."""


def convert(
    table: ZScores,
    qid: str,
    labels: list[str],
    values: list[float],
    overflows: list | None = None,
    missing: list | None = None,
    borrowed: list | None = None,
) -> list[float]:
    """One topic's values (``labels`` their printed names) as z-scores; an
    :class:`InputError` where trec_eval's search reads past the table (see the module).
    ``overflows`` gets ``(qid, label)`` of each z-score beyond a double's range from
    finite numbers (:func:`overflow_warning`), ``missing`` those of each value given
    trec_eval's -1000000 (:func:`missing_warning`), ``borrowed`` ``(qid, label)`` of each
    converted with the next topic's first line, where the search looks one entry past
    the topic's own, and that line (:func:`borrowed_warning`)."""
    missing = [] if missing is None else missing
    borrowed = [] if borrowed is None else borrowed
    try:
        where = _search(table.qids, qid.encode(), 0, len(table.qids))
    except _PastTheTable:
        raise _crash(table, f"topic {qid}") from None
    if where is None:
        missing.extend((qid, label) for label in labels)
        return [MISSING] * len(values)
    start = table.starts[where]
    stop = table.starts[where + 1] if where + 1 < len(table.starts) else len(table.measures)
    out = []
    for label, value in zip(labels, values, strict=True):
        try:
            found = _search(table.measures, label.encode(), start, stop)
        except _PastTheTable:
            raise _crash(table, f"measure {label} of topic {qid}") from None
        if found is None:
            missing.append((qid, label))
            out.append(MISSING)
            continue
        if found >= stop:  # the next topic's first line: its numbers, as trec_eval's
            line = f"{table.qids[where + 1].decode()} {table.measures[found].decode()}"
            borrowed.append((qid, label, line))
        # as C doubles: a quotient beyond the largest is an infinity, as trec_eval prints
        # it, not numpy's overflow warning
        mean, stddev = float(table.means[found]), float(table.stddevs[found])
        if stddev:
            out.append((float(value) - mean) / stddev)
            finite = math.isfinite(value) and math.isfinite(mean) and math.isfinite(stddev)
            if overflows is not None and finite and not math.isfinite(out[-1]):
                overflows.append((qid, label))
        else:
            out.append(0.0 if value == mean else MISSING)
            if value != mean:
                missing.append((qid, label))
    return out


def missing_warning(table: ZScores, found: list[tuple[str, str]]) -> TrecEvalUndefinedWarning:
    """The warning of values trec_eval gives its -1000000 (``found``: their topics and
    labels): no line of the file for the topic and measure, or a stddev of 0 and a value
    other than the mean. trec_eval prints it as a z-score and averages it into ``all``,
    as trecbench does, but it is a marker, no z-score."""
    return TrecEvalUndefinedWarning(
        f"{table.path}: {_first_of(found)} has no line, or a stddev of 0 and "
        "a value other than the mean: its z-score is trec_eval's -1000000, a marker, no "
        "z-score, printed and averaged into 'all' as trec_eval does"
    )


def borrowed_warning(table: ZScores, found: list[tuple[str, str, str]]) -> TrecEvalUndefinedWarning:
    """The warning of values converted with another topic's line (``found``: their topics,
    labels and that line's qid and measure): trec_eval's search for a topic's measure
    looks one entry past the topic's lines, at the next topic's first, and takes its
    mean and stddev when the measures' names are equal. trecbench prints what it prints."""
    line = found[0][2]
    return TrecEvalUndefinedWarning(
        f"{table.path}: {_first_of([(qid, label) for qid, label, _ in found])} has no line: "
        "trec_eval's search looks "
        f"one line past the topic's and takes the next topic's, '{line}' (its mean and "
        "stddev), and trecbench prints the same; give the topic a line of its own"
    )


def overflow_warning(table: ZScores, found: list[tuple[str, str]]) -> TrecEvalUndefinedWarning:
    """The warning of z-scores that are no numbers although their value, mean and stddev
    are (``found``: their topics and labels): the quotient overflows a double, and
    trec_eval prints inf or -inf. A mean or stddev that is no number is warned of when
    read."""
    return TrecEvalUndefinedWarning(
        f"{table.path}: the z-score of {_first_of(found)} is beyond a double's "
        "range (a stddev too small for the value's distance from the mean): printed as "
        "trec_eval prints it (inf or -inf), no number"
    )


def _first_of(found: list[tuple[str, str]]) -> str:
    """``<label> for topic <qid>`` of the first of ``found``, ``(and N more)`` after it
    (the verb after it stays singular: "999 mores" it was, "and 2 more is")."""
    (qid, label), more = found[0], len(found) - 1
    return f"{label} for topic {qid}" + (f" (and {more:,} more)" if more else "")


def _crash(table: ZScores, what: str) -> InputError:
    return InputError(
        table.path,
        None,
        f"{what} sorts after every line of the file: trec_eval's search for it reads past "
        "the end of its table, whose outcome is undefined (9.0.8 and 10.0: a segmentation "
        "fault, or a value of the memory beyond); give it a line, or one that sorts after it",
    )
