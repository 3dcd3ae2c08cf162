"""The BenchmarkComparison Markdown of a :class:`~trecbench.comparison.Comparison`:
every section in full."""

from __future__ import annotations

from .comparison_cells import (
    MACRO,
    TIE_NOTE,
    change_text,
    direction_of,
    header_lines,
    legend_text,
    marker_text,
    md_cell,
    mean_cells,
    measure_group,
    mover_lines,
    number_text,
    p_text,
    pairs_note,
    pairs_rows,
    section_notes,
    tie_rows,
    welch_rows,
    welch_title,
)

# ---------------------------------------------------------------------------------------
# Markdown


def _md_table(header: list[str], rows: list[list[str]], right: set[int]) -> list[str]:
    align = ["---:" if i in right else "---" for i in range(len(header))]
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(align) + "|"]
    return lines + ["| " + " | ".join(row) + " |" for row in rows]


def _md_means(comparison, label: str, measures: list[str]) -> list[str]:
    """:func:`mean_cells` as a Markdown table, the best mean in bold."""
    rows = mean_cells(comparison, label, measures, bold="**")
    header = [md_cell(cell) for cell in rows[0]]
    lines = ["| " + " | ".join(header) + " |", "|---|" + "---:|" * len(comparison.runs) + "---|"]
    return lines + ["| " + " | ".join(row[:-1] + [md_cell(row[-1])]) + " |" for row in rows[1:]]


def _md_differences(comparison, section) -> list[str]:
    settings = comparison.settings
    level = f"{settings['confidence']:.0%}"
    correction = settings["names"]["correction"]
    macro = section.kind == MACRO
    header = ["Measure", "Run", f"Difference [{level} CI]", "Change"]
    header += ([] if macro else ["W/T/L", "d_z"]) + ["p", f"p ({correction})"]
    rows = []
    for row in comparison.part(comparison.comparisons, section.label).to_dict(orient="records"):
        cells = [
            row["measure"],
            md_cell(row["run"]),
            f"{row['difference']:+.4f} [{row['ci_low']:+.4f}, {row['ci_high']:+.4f}]",
            change_text(row["relative_change"]),
        ]
        if not macro:
            cells += [
                f"{row['wins']}/{row['ties']}/{row['losses']}",
                number_text(row["effect_size"], 2),
            ]
        marker = marker_text(row, settings["alpha"], direction_of(comparison, row["measure"]))
        cells += [
            p_text(row["p_value"]),
            f"{p_text(row['p_adjusted'])}{' ' + marker if marker else ''}",
        ]
        rows.append(cells)
    return _md_table(header, rows, set(range(2, len(header))))


def markdown(comparison) -> str:
    """The BenchmarkComparison Markdown text (every section in full)."""
    lines = ["# Benchmark comparison", ""]
    lines += [f"- {md_cell(line)}" for line in header_lines(comparison)]
    lines += ["", legend_text(comparison, markdown=True)]
    groups: dict[str, list[str]] = {}
    for measure in comparison.measures:
        groups.setdefault(measure_group(measure), []).append(measure)
    several = len(comparison.runs) > 1
    for section in comparison.sections:
        lines += ["", f"## {md_cell(section.title)} ({section.topics} topics)"]
        lines += [
            line
            for note in section_notes(comparison, section)
            for line in ("", f"> {md_cell(note)}")
        ]
        for group, measures in groups.items():
            lines += ["", f"### {group}", ""] + _md_means(comparison, section.label, measures)
        if several:
            lines += ["", f"### Differences against {md_cell(comparison.baseline)}", ""]
            lines += _md_differences(comparison, section)
        movers = mover_lines(comparison, section.label, markdown=True)
        if movers:
            lines += ["", f"### Topic movers against {md_cell(comparison.baseline)}", ""]
            lines += ["| Measure | Run | Largest gains | Largest losses |", "|---|---|---|---|"]
            lines += movers
        ties = tie_rows(comparison, section.label)
        if ties is not None:
            lines += ["", "### Tie sensitivity", "", TIE_NOTE[0].upper() + TIE_NOTE[1:] + ".", ""]
            header = ["Measure", "Run", "Mean", "Lowest", "Highest", "Reported order"]
            lines += _md_table(header, [[md_cell(c) for c in row] for row in ties], {2, 3, 4})
        if several and section.kind != MACRO:
            lines += [
                "",
                "### Independent-samples view (weaker design)",
                "",
                welch_title(comparison) + ".",
                "",
            ]
            header = ["Measure", "Run", "Mean", "Normal CI", "Welch t", "df", "p", "p adjusted"]
            rows = [[md_cell(c) for c in row] for row in welch_rows(comparison, section.label)]
            lines += _md_table(header, rows, {2, 4, 5, 6, 7})
        if len(comparison.runs) > 2:
            lines += [
                "",
                "### All pairs",
                "",
                pairs_note(comparison, section)[0].upper()
                + pairs_note(comparison, section)[1:]
                + ".",
                "",
            ]
            rows = pairs_rows(comparison, section.label, lambda text: f"**{text}**")
            body = [
                cells[:1]
                + [md_cell(cells[1])]
                + [f"{t}{f'<sup>{w}</sup>' if w else ''}" for t, w in cells[2:]]
                for cells in rows
            ]
            lines += _md_table(
                ["", "Run", *comparison.measures], body, set(range(2, 2 + len(comparison.measures)))
            )
    return "\n".join(lines) + "\n"
