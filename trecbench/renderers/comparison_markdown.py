"""The BenchmarkComparison Markdown of a :class:`~trecbench.comparison.Comparison`:
every section in full."""

from __future__ import annotations

from ..markdown_text import markdown_cell
from ..plurals import counted, exact_percent
from . import comparison_cells as common
from .comparison_escaped import shown_as
from .text_tables import markdown_table

# ---------------------------------------------------------------------------------------
# Markdown


def _md_means(comparison, label: str, measures: list[str]) -> list[str]:
    """:func:`~.comparison_cells.mean_cells` as a Markdown table, the best mean in bold."""
    rows = common.mean_cells(comparison, label, measures, bold="**")
    lines = ["| " + " | ".join(rows[0]) + " |", "|---|" + "---:|" * len(comparison.runs) + "---|"]
    return lines + ["| " + " | ".join(row) + " |" for row in rows[1:]]


def _md_differences(comparison, section) -> list[str]:
    settings = comparison.statistics
    level = exact_percent(settings.confidence)
    correction = settings.correction_name
    macro = section.kind == common.MACRO
    header = ["Measure", "Run", f"Difference [{level} CI]", "Change"]
    header += ([] if macro else ["W/T/L", "d_z"]) + ["p", f"p ({correction})"]
    rows = []
    for row in comparison.records(comparison.comparisons, section.label):
        cells = [
            row["measure"],
            row["run"],
            common.difference_text(row),
            common.change_text(row["relative_change"]),
        ]
        if not macro:
            cells += [
                f"{row['wins']}/{row['ties']}/{row['losses']}",
                common.statistic_text(row["effect_size"], 2),
            ]
        marker = common.marker_text(row, settings.alpha, common.direction_of(row["measure"]))
        cells += [
            common.p_text(row["p_value"], settings.alpha),
            f"{common.p_text(row['p_adjusted'], settings.alpha)}{' ' + marker if marker else ''}",
        ]
        rows.append(cells)
    return markdown_table(header, rows, set(range(2, len(header))))


def _md_welch(comparison, section) -> list[str]:
    """The section's independent-samples (Welch) view, with its notes."""
    lines = [
        "",
        "### Independent-samples view (weaker design)",
        "",
        common.welch_title(comparison) + ".",
        "",
    ]
    header = ["Measure", "Run", "Mean", "Normal CI", "Welch t", "df", "p"]
    header.append(comparison.statistics.adjusted_heading)
    rows = common.welch_rows(comparison, section.label)
    lines += markdown_table(header, rows, {2, 4, 5, 6, 7})
    for note in common.welch_notes(comparison, section.label, rows):
        lines += ["", markdown_cell(note)]
    return lines


def _md_all_pairs(comparison, section) -> list[str]:
    """The section's all-pairs table: each run's means by letter, the letters of the runs it
    beats significantly as superscripts."""
    lines = [
        "",
        "### All pairs",
        "",
        common.as_sentence(common.pairs_note(comparison, section)),
        "",
    ]
    rows = common.pairs_rows(comparison, section.label, lambda text: f"**{text}**")
    body = [
        cells[:1] + [cells[1]] + [f"{t}{f'<sup>{w}</sup>' if w else ''}" for t, w in cells[2:]]
        for cells in rows
    ]
    lines += markdown_table(
        ["", "Run", *comparison.measures], body, set(range(2, 2 + len(comparison.measures)))
    )
    return lines


@shown_as("markdown")
def markdown(comparison) -> str:
    """The BenchmarkComparison Markdown text (every section in full). Input text is
    escaped as ``score``'s Markdown escapes it (``|`` too:
    :func:`~.comparison_escaped.with_names_escaped`); prose by
    :func:`~trecbench.markdown_text.markdown_cell`."""
    lines = ["# Benchmark comparison", ""]
    lines += [f"- {markdown_cell(line)}" for line in common.header_lines(comparison)]
    lines += ["", common.legend_text(comparison, markdown=True)]
    groups: dict[str, list[str]] = {}
    for measure in comparison.measures:
        groups.setdefault(common.measure_group(measure), []).append(measure)
    several = len(comparison.runs) > 1
    for section in comparison.sections:
        lines += ["", f"## {markdown_cell(section.title)} ({counted(section.topics, 'topic')})"]
        lines += [
            line
            for note in common.section_notes(comparison, section)
            for line in ("", f"> {markdown_cell(note)}")
        ]
        for group, measures in groups.items():
            lines += ["", f"### {group}", ""] + _md_means(comparison, section.label, measures)
        if several:
            lines += ["", f"### Differences against {comparison.baseline}", ""]
            lines += _md_differences(comparison, section)
        movers = common.mover_lines(comparison, section.label, markdown=True)
        if movers:
            lines += ["", f"### Topic movers against {comparison.baseline}", ""]
            lines += ["| Measure | Run | Largest gains | Largest losses |", "|---|---|---|---|"]
            lines += movers
        ties = common.tie_rows(comparison, section.label)
        if ties is not None:
            lines += [
                "",
                "### Tie sensitivity",
                "",
                common.as_sentence(common.TIE_NOTE),
                "",
            ]
            lines += markdown_table(common.TIE_HEADER, ties, {2, 3, 4})
        if several and section.kind != common.MACRO:
            lines += _md_welch(comparison, section)
        if len(comparison.runs) > 2:
            lines += _md_all_pairs(comparison, section)
    return "\n".join(lines) + "\n"
