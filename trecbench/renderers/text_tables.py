"""Tables of text cells, written once for every renderer: aligned for a terminal, as
Markdown (the columns in ``right`` right-aligned in both), and CSV records."""

from __future__ import annotations

from .escaping import FIRST_STRONG_ISOLATE, POP_DIRECTIONAL_ISOLATE


class Undefined(str):
    """The text of a figure a table cannot show (undefined, or no figure there): a type of
    its own, so that a LaTeX cell tells it from a name that reads the same."""


UNDEFINED = Undefined("–")  # in text and Markdown; JSON: null
LATEX_UNDEFINED = "--"  # LaTeX's own en dash: the character needs a UTF-8 input encoding


def aligned(rows: list[list[str]], right: set[int]) -> list[str]:
    """Rows of cells padded to their column's width, two blanks apart, trailing blanks cut
    (columns in ``right`` right-aligned, the others left-aligned). The isolates around a
    right-to-left name on a page (:func:`~trecbench.renderers.escaping.isolated_text`)
    are drawn as nothing: they take no width."""
    widths = [max(_width(row[i]) for row in rows) for i in range(len(rows[0]))]
    return [
        "  ".join(
            _padded(cell, widths[i] - _width(cell), i in right) for i, cell in enumerate(row)
        ).rstrip()
        for row in rows
    ]


def _width(cell: str) -> int:
    return len(cell) - cell.count(FIRST_STRONG_ISOLATE) - cell.count(POP_DIRECTIONAL_ISOLATE)


def _padded(cell: str, blanks: int, right: bool) -> str:
    return " " * blanks + cell if right else cell + " " * blanks


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
