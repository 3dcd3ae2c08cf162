"""A leaderboard as a terminal table, Markdown, LaTeX, JSON or a web page: per measure,
systems x collections, the macro mean, the mean rank and the tests against the baseline.
System and collection names are escaped reversibly where they are shown, as ``score``
escapes a run's name (:func:`~trecbench.escaping.escaper`; on the page,
isolated where right to left too)."""

from __future__ import annotations

from collections.abc import Callable

from ..escaping import escaper, list_item
from ..markdown_text import markdown_cell
from ..number_text import value_text
from ..renderers.text_tables import UNDEFINED, aligned, markdown_table, p_text
from ..text_bytes import json_dumps
from .board import ALPHA, Leaderboard, MeasureBoard, PairedTest
from .suite import COLUMNS

FORMATS = ("table", "markdown", "latex", "json", "html")


def _p(test: PairedTest | None) -> str:
    if test is None:
        return "baseline"
    if test.p_adjusted is None:
        return "n/a"
    mark = "*" if test.p_adjusted < ALPHA else ""
    return f"{p_text(test.p_adjusted, (ALPHA,))}{mark}"


Names = Callable[[str], str]  # how a format shows a system's or a collection's name


def _rows(board: MeasureBoard, name: Names) -> tuple[list[str], list[list[str]]]:
    header = [COLUMNS[0], *map(name, board.collections), *COLUMNS[1:]]
    rows = []
    for s, system in enumerate(board.systems):
        cells = [
            value_text(v) if board.better is None else f"{value_text(v)} ({r:g})"
            for v, r in zip(board.means[s], board.ranks[s], strict=True)
        ]
        rows.append(
            [
                name(system),
                *cells,
                value_text(board.macro[s]),
                UNDEFINED if board.better is None else f"{board.mean_rank[s]:.2f}",
                _p(board.over_collections[s]),
                _p(board.over_topics[s]),
            ]
        )
    return header, rows


def _notes(board: MeasureBoard, name: Names) -> list[str]:
    notes = []
    for s, system in enumerate(board.systems):
        for kind, test in (
            ("collections", board.over_collections[s]),
            ("topics", board.over_topics[s]),
        ):
            if test is not None and test.reason:
                notes.append(f"{name(system)} over {kind}: no test ({test.reason})")
    return notes


LEGEND = (
    "means per collection with the system's rank in brackets; p: paired t-test against the "
    f"baseline, Holm-adjusted over systems (* below {ALPHA:g}); n/a: the test is undefined"
)


def _title(board: MeasureBoard, name: Names) -> str:
    # a name's comma as %2C: the collection "de 28, en" is no two collections (list_item)
    topics = ", ".join(
        f"{list_item(name(c))} {n}" for c, n in zip(board.collections, board.topics, strict=True)
    )
    better = (
        "no better direction: not ranked" if board.better is None else f"{board.better} is better"
    )
    summed = "a mean per topic, where trec_eval sums it; " if board.summed else ""
    return f"{board.measure} ({summed}{better}; topics: {topics})"


def _plain(board: MeasureBoard) -> str:
    name = escaper("table")
    header, rows = _rows(board, name)
    lines = [_title(board, name), *aligned([header, *rows], set())]
    return "\n".join([*lines, *_notes(board, name)]) + "\n"


def _markdown(board: MeasureBoard) -> str:
    name = escaper("markdown")  # the names; markdown_cell: what trecbench writes
    header, rows = _rows(board, name)
    cells = [[markdown_cell(cell) for cell in row] for row in [header, *rows]]
    lines = [f"### {markdown_cell(_title(board, name))}", ""]
    lines += markdown_table(cells[0], cells[1:], set(range(1, len(header))))
    notes = [f"- {markdown_cell(note)}" for note in _notes(board, name)]
    return "\n".join([*lines, "", *notes]).rstrip() + "\n"


def _latex(board: MeasureBoard) -> str:
    from ..renderers.comparison_text import booktabs, latex_cell, latex_escape

    name = escaper("latex")
    header, rows = _rows(board, name)
    lines = [
        r"\begin{table}",
        r"\centering",
        r"\caption{" + latex_escape(_title(board, name)) + "}",
        *booktabs(
            "l" + "r" * (len(header) - 1),
            [latex_escape(cell) for cell in header],
            ([latex_cell(cell) for cell in row] for row in rows),
        ),
        r"\end{table}",
        # why a test is n/a, as power's and agree's LaTeX say theirs: comments under it
        *(f"% {note}" for note in _notes(board, name)),
    ]
    return "\n".join(lines) + "\n"


def leaderboard_text(board: Leaderboard, output_format: str) -> str:
    """The leaderboard in ``output_format`` (one of :data:`FORMATS`)."""
    if output_format == "json":
        return json_dumps(board.to_json(), indent=2) + "\n"
    if output_format == "html":
        return _html(board)
    render = {"table": _plain, "markdown": _markdown, "latex": _latex}[output_format]
    parts = [render(b) for b in board.boards]
    if output_format == "latex":
        from ..renderers.comparison_text import needs_booktabs

        parts.insert(0, needs_booktabs("leaderboard", "a table per measure"))
    legend = {"table": LEGEND, "markdown": f"_{LEGEND}._", "latex": f"% {LEGEND}"}[output_format]
    return "\n".join(parts) + "\n" + legend + "\n"


def _html(board: Leaderboard) -> str:
    """One self-contained page (the ``html`` extra's Jinja2): a sortable table per
    measure, each cell sorted by its number (the rank-in-brackets text shown), then its
    provenance as report.html shows its own: the JSON's record of what made it (version,
    date, settings, collections, inputs with their sha256), all of it but the tables."""
    from ..extras import require
    from ..html_report.json_text import json_shown
    from ..html_report.page import environment

    jinja2 = require("jinja2", "leaderboard --format html")
    # names as the other formats show them (Jinja2 escapes what HTML reads as markup)
    name = escaper("html")
    tables = []
    for measure in board.boards:
        header, rows = _rows(measure, name)
        keys = [_row_keys(measure, s) for s in range(len(measure.systems))]
        pairs = [list(zip(row, key, strict=True)) for row, key in zip(rows, keys, strict=True)]
        # names: how many headings name something (the system's, the collections'): they wrap
        tables.append({"title": _title(measure, name), "header": header, "rows": pairs,
                       "notes": _notes(measure, name),
                       "names": 1 + len(measure.collections)})  # fmt: skip
    title = name(f"trecbench leaderboard: {board.suite.name}")
    page = environment(jinja2).get_template("leaderboard.html.j2")
    provenance = {k: v for k, v in board.to_json().items() if k != "measures"}
    return page.render(title=title, legend=LEGEND, boards=tables, provenance=json_shown(provenance))


def _row_keys(board: MeasureBoard, s: int) -> list[str]:
    """What the cells of system ``s``'s row sort by: its name's place in the code-point
    order of the names as read (shown escaped and isolated, a name sorts otherwise), then
    numbers."""

    def key(test: PairedTest | None) -> str:
        return "" if test is None or test.p_adjusted is None else repr(test.p_adjusted)

    means = [repr(float(v)) for v in board.means[s]]
    macro = repr(float(board.macro[s]))
    rank = "" if board.better is None else repr(float(board.mean_rank[s]))
    place = sorted(board.systems).index(board.systems[s])
    return [str(place), *means, macro, rank,
            key(board.over_collections[s]), key(board.over_topics[s])]  # fmt: skip
