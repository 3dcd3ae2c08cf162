"""A document made once and rendered twice: headings, paragraphs, bulleted lists and
tables, written here as Markdown and by report.html as HTML (its template renders the
same blocks, :func:`trecbench.html_report.blocks.shown`), so that the page shows the
Markdown file's tables as tables, cell for cell, not their Markdown source. The benchmark's
R-task part (:mod:`trecbench.renderers.benchmark`) and the routing table
(:mod:`trecbench.renderers.routing`) are made of them.

Their text is as shown: a text read from an input is escaped by the output's escaper when
the block is made (Markdown's, or the page's); Markdown adds only its own syntax here
(``**``, backticks, the pipes between cells), the page escapes HTML's characters itself.
"""

from __future__ import annotations

from dataclasses import dataclass

from .text_tables import markdown_table

PLAIN, STRONG, CODE = "", "strong", "code"  # a span's style: Markdown's **...**, `...`
TEXT, NAMES, NUMBERS = "text", "names", "numbers"  # what a column holds


@dataclass(frozen=True)
class Span:
    """A piece of a line of text in one style (:data:`PLAIN`, :data:`STRONG`,
    :data:`CODE`)."""

    text: str
    style: str = PLAIN


def line(*parts: str | Span) -> tuple[Span, ...]:
    """A line of text of ``parts``, a string a plain span."""
    return tuple(part if isinstance(part, Span) else Span(part) for part in parts)


@dataclass(frozen=True)
class Column:
    """A table's column: its title and what its cells hold: :data:`TEXT` (the report's
    own words, left-aligned), :data:`NAMES` (names read from an input, left-aligned; on the
    page they wrap anywhere and sort by the names as read, :attr:`Cell.names`) or
    :data:`NUMBERS` (right-aligned; on the page never wrapped, sorted by the number each
    cell starts with). ``title_is_name``: the title is a name read from an input (on the
    page it may wrap anywhere). ``left_in_markdown``: a column of numbers the Markdown
    file has always aligned left (its bytes are compared), the page right."""

    title: str
    holds: str = TEXT
    title_is_name: bool = False
    left_in_markdown: bool = False


@dataclass(frozen=True)
class Cell:
    """A table's cell: its text and, in a column of :data:`NAMES`, the names it shows as
    they were read (in the order shown; none for "n/a"), by which the page sorts it."""

    text: tuple[Span, ...]
    names: tuple[str, ...] = ()


def cell(content: str | tuple[Span, ...], names: tuple[str, ...] = ()) -> Cell:
    """A cell of ``content`` (a string: one plain span), showing ``names`` as read."""
    return Cell(line(content) if isinstance(content, str) else content, names)


@dataclass(frozen=True)
class Table:
    """A table: its columns and rows of cells, one per column. ``sortable``: on the page,
    a click on a heading sorts the rows (not a table of a few fixed rows)."""

    columns: tuple[Column, ...]
    rows: tuple[tuple[Cell, ...], ...]
    sortable: bool = True


@dataclass(frozen=True)
class Heading:
    """A heading of ``level`` 1 (the document's title) to 6."""

    level: int
    text: str


@dataclass(frozen=True)
class Paragraph:
    """A paragraph: one line of text."""

    text: tuple[Span, ...]


@dataclass(frozen=True)
class Items:
    """A bulleted list, a line of text per item."""

    items: tuple[tuple[Span, ...], ...]


Block = Heading | Paragraph | Items | Table


def markdown(blocks: list[Block]) -> str:
    """The Markdown of ``blocks``, a blank line between two (no line break at the end)."""
    return "\n\n".join(_markdown_block(block) for block in blocks)


def markdown_line(text: tuple[Span, ...]) -> str:
    """A line of text as Markdown: a strong span as ``**text**``, code as ```text```."""
    marks = {PLAIN: "", STRONG: "**", CODE: "`"}
    return "".join(f"{marks[span.style]}{span.text}{marks[span.style]}" for span in text)


def _markdown_block(block: Block) -> str:
    if isinstance(block, Heading):
        return f"{'#' * block.level} {block.text}"
    if isinstance(block, Paragraph):
        return markdown_line(block.text)
    if isinstance(block, Items):
        return "\n".join(f"- {markdown_line(item)}" for item in block.items)
    right = {
        index
        for index, column in enumerate(block.columns)
        if column.holds == NUMBERS and not column.left_in_markdown
    }
    header = [column.title for column in block.columns]
    rows = [[markdown_line(entry.text) for entry in row] for row in block.rows]
    return "\n".join(markdown_table(header, rows, right))
