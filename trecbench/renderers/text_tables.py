"""Tables of text cells, written once for every renderer: aligned for a terminal, as
Markdown (the columns in ``right`` right-aligned in both), and CSV records; a p-value's
cell (:func:`p_text`), printed alike by every table that shows one; trec_eval's measure
column (:func:`trec_label`); a change's, 0 unsigned (:func:`change_text`; a value's and a
difference's: :mod:`trecbench.number_text`); a mean in score's tables, undefined as
``-nan`` (:func:`table_value`)."""

from __future__ import annotations

import math
from collections.abc import Iterable

from ..number_text import signed_text, value_text
from ..text_bytes import utf8

# trec_eval prints a measure's name with printf("%-22s"): at least 22 bytes
TREC_LABEL_BYTES = 22


class Undefined(str):
    """The text of a figure a table cannot show (undefined, or no figure there): a type of
    its own, so that a LaTeX cell tells it from a name that reads the same."""


UNDEFINED = Undefined("–")  # in text and Markdown; JSON: null
LATEX_UNDEFINED = "--"  # LaTeX's own en dash: the character needs a UTF-8 input encoding


def trec_label(name: str) -> str:
    """``name`` padded with blanks as trec_eval's ``%-22s`` pads it: to 22 *bytes* of the
    UTF-8 printed (:func:`~trecbench.text_bytes.utf8`), not 22 characters, so that
    ``ndcg_é=2`` (9 bytes) gets 13 blanks as in trec_eval's output, not 14."""
    return name + " " * (TREC_LABEL_BYTES - len(utf8(name)))


def aligned(rows: list[list[str]], right: set[int]) -> list[str]:
    """Rows of cells padded to their column's width, two blanks apart, trailing blanks cut
    (columns in ``right`` right-aligned, the others left-aligned). The isolates around a
    right-to-left name on a page (:func:`~trecbench.escaping.isolated_text`)
    are drawn as nothing: they take no width."""
    widths = [max(_width(row[i]) for row in rows) for i in range(len(rows[0]))]
    return [
        "  ".join(
            _padded(cell, widths[i] - _width(cell), i in right) for i, cell in enumerate(row)
        ).rstrip()
        for row in rows
    ]


def _width(cell: str) -> int:
    """The columns a terminal gives ``cell``: two for a wide character (CJK: a run named
    in Chinese ran its row past the next column), none for a combining mark or a format
    character (the isolates around a right-to-left name), one for any other."""
    if cell.isascii():
        return len(cell)
    return sum(_columns(character) for character in cell)


def _columns(character: str) -> int:
    import unicodedata

    if unicodedata.combining(character) or unicodedata.category(character) == "Cf":
        return 0
    return 2 if unicodedata.east_asian_width(character) in "WF" else 1


def _padded(cell: str, blanks: int, right: bool) -> str:
    return " " * blanks + cell if right else cell + " " * blanks


def table_value(value: float) -> str:
    """A mean in score's tables (table, Markdown) under the scores: as every table prints a
    value (never 0.0000 where it is not 0, :func:`~trecbench.number_text.value_text`), an
    undefined one as trec_eval's ``-nan``, as the scores' own table above prints it, and
    an infinite one as its ``inf`` (utility's coefficients of 1e308: not ``n/a``)."""
    if math.isnan(value):
        return "-nan"
    return f"{value:.4f}" if math.isinf(value) else value_text(value)


def markdown_table(header: list[str], rows: list[list[str]], right: set[int]) -> list[str]:
    """A Markdown table's lines: header, alignment row, one line per row."""
    align = ["---:" if i in right else "---" for i in range(len(header))]
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(align) + "|"]
    return lines + ["| " + " | ".join(row) + " |" for row in rows]


def csv_line(cells) -> str:
    """One CSV record as :mod:`csv` writes it, except that a field holding a carriage
    return is quoted too (RFC 4180): Python 3.11's writer leaves a lone ``\\r`` bare, and
    a reader then ends the record there."""
    return ",".join(_csv_cell(cell) for cell in cells) + "\n"


def _csv_cell(cell) -> str:
    text = "" if cell is None else str(cell)
    if any(c in text for c in ',"\r\n'):
        return '"' + text.replace('"', '""') + '"'
    return text


def change_text(value: float) -> str:
    """A relative change in percent, one decimal: ``+12.5%``, ``0.0%`` (:func:`signed_text`)."""
    return f"{signed_text(value, 1)}%" if math.isfinite(value) else "n/a"


# what a p-value too small for a double prints: true of the raw p (below 2.2e-308 where
# the tests' functions underflow) and of an adjusted one (Holm's m·p, m below 10^7)
P_UNDERFLOW = "<1e-300"


def p_text(value: float, levels: Iterable[float] = ()) -> str:
    """A p-value as every table prints it: 4 decimals (``0.0123``), below 0.0001 two
    significant digits in scientific notation (``5.4e-06``), ``n/a`` when undefined; with
    more digits where that rounding would put the text on the other side of one of
    ``levels`` (the levels its stars mark) than p is: 1/1001 prints ``0.000999``, never
    ``0.0010`` beside ``***`` (p < 0.001), and 0.04996 ``0.04996``, never ``0.0500 *``.
    Exact p-values, as IR's statistical reporting asks (Sakai, SIGIR Forum 2014), rather
    than ``<0.001``, which would hide a resampled test's floor (1/(B + 1)). A p of 0 is
    an analytic test's (t, Welch, Wilcoxon's normal approximation) too small for a double,
    thousands of topics and a large effect: ``<1e-300``, never ``0.0e+00`` (no test gives
    0: a resampled one's floor is 1/(B + 1), an exact one's 2/2^n)."""
    if not math.isfinite(value):
        return "n/a"
    if value == 0:
        return P_UNDERFLOW
    thresholds = tuple(levels)
    # 17 significant digits at most: the double itself, on p's side of every level
    for more in range(16):
        text = f"{value:.{4 + more}f}" if value >= 1e-4 else f"{value:.{1 + more}e}"
        if all((float(text) < level) == (value < level) for level in thresholds):
            return text
    return repr(value)
