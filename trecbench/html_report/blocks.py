"""The blocks of a document (:mod:`trecbench.renderers.blocks`: the benchmark's R-task
part) as the page's template renders them: headings one level down (the page's title is
its only ``h1``), tables with each column's classes (page.css: names wrap anywhere,
numbers right-aligned and unwrapped; sortable.js: a column of text sorts by code point)
and each name's place in the code-point order of the names as read (a cell's
``data-order``, as the page's other tables sort their names)."""

from __future__ import annotations

from ..renderers.blocks import NAMES, NUMBERS, Heading, Items, Paragraph, Table


def shown(blocks) -> list[dict]:
    """``blocks`` as the template renders them: a dict per block, its ``kind`` one of
    ``heading`` (``level``, ``text``), ``paragraph`` (``text``: spans), ``items``
    (``entries``: lines) and ``table`` (``head``: ``(title, class)`` per column; ``rows``:
    ``(spans, class, attributes)`` per cell, its attributes those it sorts by; ``sortable``)."""
    page = []
    for block in blocks:
        if isinstance(block, Heading):
            page.append({"kind": "heading", "level": block.level + 1, "text": block.text})
        elif isinstance(block, Paragraph):
            page.append({"kind": "paragraph", "text": block.text})
        elif isinstance(block, Items):
            page.append({"kind": "items", "entries": block.items})
        elif isinstance(block, Table):
            page.append(_table(block))
    return page


def _table(table: Table) -> dict:
    head = [(column.title, _heading_class(column)) for column in table.columns]
    cell_classes = [" ".join(_classes(column)) for column in table.columns]
    orders = [
        places([row[index].names for row in table.rows]) if column.holds == NAMES else None
        for index, column in enumerate(table.columns)
    ]
    rows = [
        [
            (cell.text, cell_classes[index], sorted_by(cell.names, orders[index]))
            for index, cell in enumerate(row)
        ]
        for row in table.rows
    ]
    return {"kind": "table", "head": head, "rows": rows, "sortable": table.sortable}


def _heading_class(column) -> str:
    """A heading's classes: ``text`` over a column sorted as text, ``name`` where the
    heading is a name read from an input (it wraps anywhere; the page's own headings
    never wrap)."""
    classes = _classes(column)
    if column.title_is_name and "name" not in classes:
        classes.append("name")
    return " ".join(classes)


def _classes(column) -> list[str]:
    """The classes of a column's cells by what it holds: names (``text name``: sorted as
    text, wrapping anywhere), numbers (none), other text (``text``)."""
    return {NAMES: ["text", "name"], NUMBERS: []}.get(column.holds, ["text"])


def places(names: list[tuple]) -> dict[tuple, int]:
    """Each cell's names (as read, or their places in the code-point order of the names
    as read) -> its place in their code-point order, name by name (a cell without a name
    has none)."""
    return {read: place for place, read in enumerate(sorted(set(names) - {()}))}


def sorted_by(names: tuple, order: dict[tuple, int] | None) -> dict[str, str]:
    """The attributes a cell of ``names`` sorts by (sortable.js; rendered by ``xmlattr``):
    in a column of names (``order``: :func:`places` of its cells), its names' place
    (``data-order``), or an empty ``data-sort`` for a cell without a name ("n/a"), which
    sorts last either way, as an empty cell; none in another column (``order`` None)."""
    if order is None:
        return {}
    if not names:
        return {"data-sort": ""}
    return {"data-order": str(order[names])}
