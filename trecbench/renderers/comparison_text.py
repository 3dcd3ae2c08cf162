"""A :class:`~trecbench.comparison.Comparison` as text: an aligned terminal table (what
``trecbench compare`` prints), the BenchmarkComparison Markdown, a tidy CSV, the
BenchmarkReport JSON and the all-pairs LaTeX table (as ranx's report: each mean with the
letters of the runs it is significantly better than, after the chosen correction).

The terminal table holds the sections over all topics and the macro sections in full,
each stratum in one compact table, and the topic movers, tie bounds and the unpaired
(Welch) view over all topics; the Markdown holds everything for every section.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterable, Sequence

# this module reads a Comparison, never imports trecbench.comparison: data flows one way
from ..errors import UsageError
from ..plurals import counted, exact_percent
from . import comparison_cells as common
from .comparison_escaped import shown_as
from .comparison_markdown import markdown
from .text_tables import LATEX_UNDEFINED, Undefined, aligned

FORMATS = ("table", "markdown", "csv", "json", "latex")
__all__ = [
    "FORMATS",
    "csv_text",
    "latex",
    "latex_cell",
    "latex_escape",
    "markdown",
    "render",
    "terminal_table",
]


def render(comparison, fmt: str = "table") -> str:
    """``comparison`` in one of :data:`FORMATS`."""
    if fmt == "table":
        return terminal_table(comparison) + _power_section(comparison, "table")
    if fmt == "markdown":
        return markdown(comparison) + _power_section(comparison, "markdown")
    if fmt == "csv":
        return csv_text(comparison)
    if fmt == "json":
        return comparison.report_json(indent=1) + "\n"
    if fmt == "latex":
        return latex(comparison) + _power_section(comparison, "latex")
    raise UsageError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")


def _power_section(comparison, fmt: str) -> str:
    """The power of each comparison with the baseline (``compare --power``) and the
    unjudged sensitivity (``--unjudged-bounds``), after the rest, when asked for."""
    text = ""
    if comparison.power is not None:
        title = {"table": "\nPower (all topics)\n", "markdown": "\n## Power (all topics)\n\n"}
        # within compare's output, whose opening names the package the tabular needs
        text += title.get(fmt, "\n") + comparison.power.render(fmt, opening=False)
    sensitivity = comparison.unjudged_sensitivity
    if sensitivity is not None:
        heading = "\n## Unjudged sensitivity\n\n" if fmt == "markdown" else "\n"
        text += heading + sensitivity.render(fmt)
    return text


# ---------------------------------------------------------------------------------------
# terminal


def _section_table(comparison, section) -> list[str]:
    """Per measure and run: mean [CI], and against the baseline difference [CI], change,
    W/T/L (not in macro sections: the same topics as all), adjusted p with marker."""
    statistics = comparison.statistics
    alpha, level = statistics.alpha, exact_percent(statistics.confidence)
    correction = statistics.correction_name
    summary = comparison.by_measure_and_run(comparison.summary, section.label)
    tests = comparison.by_measure_and_run(comparison.comparisons, section.label)
    compared = len(comparison.runs) > 1
    header = ["measure", "run", "mean", f"{level} CI"]
    if compared:
        header += [f"vs {comparison.baseline}", f"{level} CI", "change"]
        header += ([] if section.kind == common.MACRO else ["W/T/L"]) + [f"p ({correction})"]
    rows = [header]
    for measure in comparison.measures:
        name = (
            f"{measure} (lower is better)" if common.direction_of(measure) == "lower" else measure
        )
        for i, run in enumerate(comparison.runs):
            row = summary[(measure, run)]
            shown = f"{run} (base)" if run == comparison.baseline and compared else run
            cells = [name if i == 0 else "", shown, common.value_text(row["mean"])]
            cells.append(
                f"[{common.value_text(row['ci_low'])}, {common.value_text(row['ci_high'])}]"
            )
            if compared and run != comparison.baseline:
                test = tests[(measure, run)]
                low, high = (common.value_text(test[side], True) for side in ("ci_low", "ci_high"))
                cells += [
                    common.value_text(test["difference"], True),
                    f"[{low}, {high}]",
                    common.change_text(test["relative_change"]),
                ]
                if section.kind != common.MACRO:
                    cells.append(f"{test['wins']}/{test['ties']}/{test['losses']}")
                marker = common.marker_text(test, alpha, common.direction_of(measure))
                cells.append(f"{common.p_text(test['p_adjusted'], alpha)} {marker}")
            rows.append(cells + [""] * (len(header) - len(cells)))
    right = {2, 4, 6, 7} if section.kind != common.MACRO else {2, 4, 6}
    return aligned(rows, right)


def _strata_table(comparison, field: str) -> list[str]:
    """One row per stratum of ``field`` and measure: topics and each run's mean (with the
    marker of its comparison with the baseline)."""
    alpha = comparison.statistics.alpha
    header = [field, "topics", "measure"] + [
        f"{run} (base)" if run == comparison.baseline and len(comparison.runs) > 1 else run
        for run in comparison.runs
    ]
    rows = [header]
    for section in comparison.sections:
        if section.kind != common.STRATUM or section.field != field:
            continue
        summary = comparison.by_measure_and_run(comparison.summary, section.label)
        tests = comparison.by_measure_and_run(comparison.comparisons, section.label)
        for i, measure in enumerate(comparison.measures):
            cells = [
                section.value if i == 0 else "",
                str(section.topics) if i == 0 else "",
                measure,
            ]
            for run in comparison.runs:
                cell = common.value_text(summary[(measure, run)]["mean"])
                if run != comparison.baseline:
                    marker = common.marker_text(
                        tests[(measure, run)], alpha, common.direction_of(measure)
                    )
                    cell += f" {marker}" if marker else ""
                cells.append(cell)
            rows.append(cells)
    return aligned(rows, {1})


WIDTH = 100  # prose of the terminal report is wrapped at this width; tables are not


def _wrap(text: str, indent: str = "  ") -> list[str]:
    import textwrap

    # a word longer than a line (a long topic id, a run name, a path) stays whole on a line
    # of its own: broken, it read as two words, an id with a line break and blanks inside
    return textwrap.wrap(
        text, WIDTH, subsequent_indent=indent, break_on_hyphens=False, break_long_words=False
    )


@shown_as("table")
def terminal_table(comparison) -> str:
    """The plain-text report ``trecbench compare`` prints (input text escaped:
    :func:`~.comparison_escaped.with_names_escaped`)."""
    lines = [part for line in common.header_lines(comparison) for part in _wrap(line)]
    lines += _wrap(common.legend_text(comparison, markdown=False))
    several = len(comparison.runs) > 1
    for section in comparison.sections:
        if section.kind == common.STRATUM:
            continue
        lines += ["", f"{section.title} ({counted(section.topics, 'topic')})"]
        lines += _section_table(comparison, section)
        lines += [
            part for note in common.section_notes(comparison, section) for part in _wrap(note)
        ]
        if section.kind == common.MACRO:
            lines += ["", f"By {section.field} (per stratum; every table in the Markdown report)"]
            lines += _strata_table(comparison, section.field)
            lines += [
                part
                for stratum in comparison.sections
                if stratum.kind == common.STRATUM and stratum.field == section.field
                # the strata's table shows means only: no interval to say n/a of
                for note in common.section_notes(comparison, stratum, intervals=False)
                for part in _wrap(f"{stratum.value}: {note}")
            ]
    # --movers 0 lists no topic: no section (as the Markdown), not "no topic moved"
    if several and comparison.statistics.movers > 0:
        lines += ["", f"Topic movers against {comparison.baseline} (all topics)"]
        movers = common.mover_lines(comparison, common.ALL, markdown=False) or ["  no topic moved"]
        lines += [part for line in movers for part in _wrap(line, " " * 10)]
    ties = common.tie_rows(comparison, common.ALL)
    if ties is not None:
        lines.append("")
        if all(row[-1] == "fixed" for row in ties):
            lines.append("Tie sensitivity: no order of tied documents changes any mean here.")
        else:
            lines += _wrap("Tie sensitivity (all topics): " + common.TIE_NOTE)
            header = ["measure", "run", "mean", "lowest", "highest", "reported order"]
            lines += aligned([header, *ties], {2, 3, 4})
    if several:
        lines += [""] + _wrap(common.welch_title(comparison))
        header = ["measure", "run", "mean", "normal CI", "Welch t", "df", "p"]
        header.append(comparison.statistics.adjusted_heading)
        rows = common.welch_rows(comparison, common.ALL)
        lines += aligned([header, *rows], {2, 4, 5, 6, 7})
        lines += [
            part
            for note in common.welch_notes(comparison, common.ALL, rows)
            for part in _wrap(note)
        ]
    if len(comparison.runs) > 2:
        for section in comparison.sections:
            if section.kind == common.STRATUM:
                continue
            note = f"All pairs, {section.title.lower()}: {common.pairs_note(comparison, section)}"
            lines += [""] + _wrap(note)
            rows = common.pairs_rows(comparison, section.label, lambda text: text)
            flat = [
                cells[:2] + [f"{t}{'^' + w if w else ''}" for t, w in cells[2:]] for cells in rows
            ]
            lines += aligned([["", "run", *comparison.measures], *flat], set())
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------
# CSV and LaTeX


def csv_text(comparison) -> str:
    """:meth:`~trecbench.comparison.Comparison.to_frame` as CSV: one row per section, run and
    measure (``section``, its ``kind`` and ``topics`` first), full precision, empty cells
    where nothing applies."""
    merged = comparison.to_frame().drop(columns=["queries"])
    # counts of topics as integers, as the JSON has them (a baseline's empty cells made
    # the columns floats: 5.0)
    merged = merged.astype({name: "Int64" for name in ("wins", "ties", "losses")})
    sections = {section.label: section for section in comparison.sections}
    merged.insert(1, "kind", [sections[label].kind for label in merged["stratum"]])
    merged.insert(2, "topics", [sections[label].topics for label in merged["stratum"]])
    merged = _with_conclusions(comparison, merged, sections)
    # each section's notes once: on its first row
    first = ~merged["stratum"].duplicated()
    notes = {label: " ".join(common.section_notes(comparison, s)) for label, s in sections.items()}
    merged["notes"] = [
        notes[label] if head else "" for label, head in zip(merged["stratum"], first, strict=True)
    ]
    out = io.StringIO()
    # records ended by CRLF, so that Python 3.11's writer quotes a field holding a lone
    # CR too (it quotes what holds a character of the line terminator): a run named with
    # one would end its record there. Then each record ends with LF, as csv_line's.
    merged.rename(columns={"stratum": "section"}).to_csv(out, index=False, lineterminator="\r\n")
    parts = out.getvalue().split('"')  # every other part stands outside a quoted field
    parts[::2] = [part.replace("\r\n", "\n") for part in parts[::2]]
    return '"'.join(parts)


def _with_conclusions(comparison, merged, sections):
    """``merged`` with the columns of ``--power`` and ``--unjudged-bounds`` when they were
    asked for, filled on the rows of the section over all topics (both are over all
    topics), as the tie bounds' and Welch's: per run and measure, the JSON report's
    ``power`` rows (``power_*``, ``power`` the power reached; the baseline's row empty)
    and ``unjudged_bounds`` rows (``unjudged_*``, ``could_flip``), at full precision."""
    import pandas as pd

    every = [label for label, section in sections.items() if section.kind == common.ALL]
    keys = list(zip(merged["stratum"], merged["run"], merged["measure"], strict=True))

    def column(values: dict, dtype=None):
        found = [values.get((run, measure)) if label in every else None
                 for label, run, measure in keys]  # fmt: skip
        return pd.Series(found, index=merged.index, dtype=dtype)

    added = {}
    if comparison.power is not None:
        rows = {(row.run, row.measure): row for row in comparison.power.rows}
        target = {key: comparison.power.settings.target for key in rows}
        added["power_target"] = column(target, "Float64")
        for name, field in [
            ("power_sd", "sd"), ("power_effect_size", "effect_size"), ("power", "power"),
            ("power_mde", "mde"), ("power_topics_needed", "topics_needed"),
            ("power_undefined", "reason"),
        ]:  # fmt: skip
            dtype = {"topics_needed": "Int64", "reason": "object"}.get(field, "Float64")
            added[name] = column({k: getattr(r, field) for k, r in rows.items()}, dtype)
    if comparison.unjudged_sensitivity is not None:
        bounds = comparison.unjudged_sensitivity.to_json()["rows"]
        rows = {(row["run"], row["measure"]): row for row in bounds}
        for name, field in [
            ("unjudged_low", "low"), ("unjudged_low_undefined", "low_undefined"),
            ("unjudged_high", "high"),
            ("unjudged_high_undefined", "high_undefined"), ("unjudged_share", "unjudged"),
            ("could_flip", "could_flip"), ("could_flip_undefined", "could_flip_undefined"),
        ]:  # fmt: skip
            # the reasons are text; the ends numbers (a count's too: its mean per topic,
            # as the comparison's own columns)
            undefined = field.endswith("undefined")
            dtype = "boolean" if field == "could_flip" else "object" if undefined else "Float64"
            added[name] = column({k: r[field] for k, r in rows.items()}, dtype)
    return merged.assign(**added)


_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    # with LaTeX's default (OT1) fonts these print as other glyphs: | as a dash, < as ¡
    "|": r"\textbar{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    # and these as quotation marks (` as ‘, `` as “, " as ”, !` as ¡): the straight ones;
    # " from the typewriter font, the one OT1 font that has it (\textquotedbl is T1's)
    "`": r"\textasciigrave{}",
    '"': r"{\ttfamily\char34}",
}
# a character LaTeX joins with the next one like it (-- as an en dash, '' as ”, ,, as „
# in T1); a lone ' stays the apostrophe ’ of the notes' prose and of a name alike
_LIGATURES = re.compile(r"([-,'])(?=\1)")


def latex_escape(text: str) -> str:
    """``text`` with LaTeX's special characters escaped, so that it prints as given with
    the default (OT1) and the T1 fonts alike (checked with pdflatex)."""
    escaped = _LIGATURES.sub(r"\1{}", "".join(_LATEX_SPECIAL.get(char, char) for char in text))
    # a row's first cell follows the row before's \\ (or \midrule), which took a leading '*'
    # as its star (gone from the name) and '[' as its [length] (an error): an empty group
    # ends their look-ahead, which skips blanks
    return "{}" + escaped if escaped.lstrip(" ").startswith(("*", "[")) else escaped


def latex_cell(text: str) -> str:
    """A table cell's text as LaTeX: escaped (:func:`latex_escape`); an undefined figure
    (:data:`~.text_tables.UNDEFINED`) as :data:`~.text_tables.LATEX_UNDEFINED`."""
    return LATEX_UNDEFINED if isinstance(text, Undefined) else latex_escape(text)


def booktabs(columns: str, header: Sequence[str], rows: Iterable[Sequence[str]]) -> list[str]:
    """The lines of a booktabs ``tabular`` with column spec ``columns``: its ``header``
    cells, a rule, then ``rows``; every cell already LaTeX (escape text with
    :func:`latex_escape`)."""
    return [
        f"\\begin{{tabular}}{{{columns}}}",
        r"\toprule",
        " & ".join(header) + r" \\",
        r"\midrule",
        *(" & ".join(row) + r" \\" for row in rows),
        r"\bottomrule",
        r"\end{tabular}",
    ]


def needs_booktabs(command: str, what: str) -> str:
    """The comment a LaTeX output of ``trecbench command`` opens with: ``what`` it holds and
    the package its tabulars' rules need (``\\toprule`` is undefined without it)."""
    return f"% trecbench {command}: {what}; needs \\usepackage{{booktabs}}"


@shown_as("latex")
def latex(comparison) -> str:
    """The all-pairs tables (all topics, then each macro section) as LaTeX (booktabs):
    means with superscript letters of the runs each is significantly better than, the
    best mean in bold. Input text is escaped as in the other formats
    (:func:`~.comparison_escaped.with_names_escaped`: ``a|b<LF>c`` shows as ``a|b%0Ac``,
    its ``%`` then LaTeX's ``\\%``), so that a name reads back as it is and a line break in
    it cannot end a paragraph inside the table."""
    blocks = [needs_booktabs("compare", "all-pairs tables")]
    for section in comparison.sections:
        if section.kind == common.STRATUM:
            continue
        rows = common.pairs_rows(comparison, section.label, lambda text: f"\\textbf{{{text}}}")
        body = [
            [
                cells[0],
                latex_escape(cells[1]),
                *(f"{t}$^{{{w}}}$" if w else t for t, w in cells[2:]),
            ]
            for cells in rows
        ]
        caption = " ".join(
            [
                f"{section.title} ({counted(section.topics, 'topic')}): mean per run; "
                f"{common.pairs_note(comparison, section, bold=True)}.",
                *common.section_notes(comparison, section, intervals=False),  # no intervals
                *(
                    [said]
                    if (said := common.scoreless_line(comparison)) and section.kind != common.MACRO
                    else []
                ),
            ]
        )
        blocks.append(
            "\n".join(
                [
                    r"\begin{table}[t]",
                    r"\centering",
                    f"\\caption{{{latex_escape(caption)}}}",
                    *booktabs(
                        "cl" + "r" * len(comparison.measures),
                        ["", "Run", *map(latex_escape, comparison.measures)],
                        body,
                    ),
                    r"\end{table}",
                ]
            )
        )
    return "\n\n".join(blocks) + "\n"
