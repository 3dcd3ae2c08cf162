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
import json
import math
import string
from collections.abc import Mapping
from typing import Any

import pandas as pd

# the kinds of trecbench.comparison.Section (this module reads a Comparison, never imports
# trecbench.comparison: data flows one way)
ALL, MACRO, STRATUM = "all", "macro", "stratum"

FORMATS = ("table", "markdown", "csv", "json", "latex")


def render(comparison, fmt: str = "table") -> str:
    """``comparison`` in one of :data:`FORMATS`."""
    if fmt == "table":
        return terminal_table(comparison)
    if fmt == "markdown":
        return markdown(comparison)
    if fmt == "csv":
        return csv_text(comparison)
    if fmt == "json":
        from .report import _json_safe

        return json.dumps(_json_safe(comparison.report()), indent=1, ensure_ascii=False) + "\n"
    if fmt == "latex":
        return latex(comparison)
    raise ValueError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")


# ---------------------------------------------------------------------------------------
# numbers and markers


def _fmt(value: float, digits: int = 4) -> str:
    return "n/a" if not math.isfinite(value) else f"{value:.{digits}f}"


def _signed(value: float, digits: int = 4) -> str:
    return "n/a" if not math.isfinite(value) else f"{value:+.{digits}f}"


def _fmt_p(value: float) -> str:
    if not math.isfinite(value):
        return "n/a"
    return f"{value:.4f}" if value >= 1e-4 else f"{value:.1e}"


def _change(value: float) -> str:
    return f"{value:+.1f}%" if math.isfinite(value) else "n/a"


def measure_group(measure: str) -> str:
    """Table a measure belongs to: recall-type measures apart from rank-sensitive ones."""
    family = measure.split("@")[0].split("_cut")[0].lower()
    if family in ("recall", "r", "recall_all", "hitrate", "success"):
        return "Recall and hit rate"
    return "Ranking quality"


def _direction(comparison, measure: str) -> str | None:
    """``higher``, ``lower`` or None, as :func:`trecbench.comparison.direction` recorded it."""
    return comparison.settings["better"][measure]


def _stars(p: float, alpha: float) -> str:
    if not (math.isfinite(p) and p < alpha):
        return ""
    return "*" * (1 + (p < alpha / 5) + (p < alpha / 50))


def _marker(row: Mapping, alpha: float, better: str | None) -> str:
    """``▲``/``▼`` (significantly better/worse; ``↑``/``↓`` higher/lower for a measure
    without a direction) plus one to three stars for adjusted p below alpha, alpha/5,
    alpha/50; empty when not significant."""
    stars = _stars(row["p_adjusted"], alpha)
    if not stars:
        return ""
    if better is None:
        return ("↑" if row["difference"] > 0 else "↓") + stars
    improved = row["difference"] > 0 if better == "higher" else row["difference"] < 0
    return ("▲" if improved else "▼") + stars


def best_runs(means: pd.Series, runs: list[str], better: str | None) -> list[str]:
    """Runs with the best mean (ties listed); none for a measure without a direction."""
    if better == "higher":
        return [run for run in runs if means[run] >= means.max() - 1e-12]
    if better == "lower":
        return [run for run in runs if means[run] <= means.min() + 1e-12]
    return []


def letters(runs: list[str]) -> dict[str, str]:
    """Run -> its letter in the all-pairs tables (a, b, ... z, then r27, r28...)."""
    return {run: string.ascii_lowercase[i] if i < 26 else f"r{i + 1}" for i, run in enumerate(runs)}


def _beaten(comparison, label: str) -> dict[tuple[str, str], list[str]]:
    """(run, measure) -> the runs it is significantly better than in section ``label``
    (higher, for a measure without a direction)."""
    beaten: dict[tuple[str, str], list[str]] = {}
    for row in comparison.part(comparison.pairs, label).to_dict(orient="records"):
        if row["winner"] is not None:
            loser = row["other"] if row["winner"] == row["run"] else row["run"]
            beaten.setdefault((row["winner"], row["measure"]), []).append(loser)
    return beaten


def _flags(evaluation: Mapping[str, Any]) -> str:
    """The non-default evaluation options as command-line flags (``-l 2 -M 100 -J``)."""
    flags = []
    if evaluation.get("relevance_level", 1) != 1:
        flags.append(f"-l {evaluation['relevance_level']}")
    if evaluation.get("max_docs") is not None:
        flags.append(f"-M {evaluation['max_docs']}")
    if evaluation.get("judged_only"):
        flags.append("-J")
    for key in ("maxontsim_formula", "ontology"):
        if evaluation.get(key) is not None:
            flags.append(f"--{key.replace('_', '-')} {evaluation[key]}")
    return " ".join(flags)


def _test_name(comparison, section) -> str:
    names = comparison.settings["names"]
    return names["macro_test"] if section.kind == MACRO else names["test"]


def section_notes(comparison, section) -> list[str]:
    """What a reader of ``section`` must know about its tests, once: the section's own
    notes (a test that cannot reach alpha over its topics, pairs left out) and, per
    reason, the comparisons whose p-value is undefined (n/a)."""
    notes = list(getattr(section, "notes", ()))
    undefined: dict[str, dict] = {}
    for name in ("comparisons", "pairs"):
        frame = comparison.part(getattr(comparison, name), section.label)
        if "p_undefined" not in frame.columns:
            continue
        for row in frame[frame["p_undefined"].notna()].to_dict(orient="records"):
            against = row.get("other", row.get("baseline"))
            key = (frozenset((row["run"], against)), row["measure"])  # a pair is listed once
            text = f"{row['run']} vs {against} on {row['measure']}"
            undefined.setdefault(row["p_undefined"], {}).setdefault(key, text)
    for reason, found in undefined.items():
        which = list(found.values())
        shown = "; ".join(which[:5]) + (f"; and {len(which) - 5} more" if len(which) > 5 else "")
        notes.append(f"p n/a (undefined, not significant): {reason} — {shown}.")
    return notes


def _header_lines(comparison) -> list[str]:
    """What was compared and how, one item per line (Markdown list items without the
    dash; the terminal prints them as they are)."""
    settings = comparison.settings
    level = f"{settings['confidence']:.0%}"
    runs = ", ".join(
        f"{run} (baseline)" if run == comparison.baseline else run for run in comparison.runs
    )
    policy = (
        "a run without results for a topic scores 0 on it (trec_eval -c)"
        if settings["missing"] == "zero"
        else "only topics every run was evaluated on"
    )
    lines = [f"Runs: {runs}"]
    qrels = comparison.run_qrels or {}
    if len(set(qrels.values())) > 1:
        lines.append(
            "Qrels: each run its own — " + ", ".join(f"{r}: {q}" for r, q in qrels.items())
        )
    elif qrels:
        lines.append(f"Qrels: {next(iter(qrels.values())) or 'in memory'}")
    lines.append(f"Topics: {len(comparison.queries)}, paired by qid; {policy}")
    for run, topics in (comparison.unpaired or {}).items():
        if topics:
            shown = ", ".join(topics[:5]) + (", ..." if len(topics) > 5 else "")
            lines.append(
                f"{run}: {len(topics)} topic(s) of its qrels are not judged for every run, "
                f"left out: {shown}"
            )
    lines.append(
        f"Means with {level} bootstrap percentile intervals over topics "
        f"({settings['samples']:,} resamples, seed {settings['seed']})"
    )
    if len(comparison.runs) > 1:
        lines.append(
            f"Significance: two-sided {settings['names']['test']} against "
            f"{comparison.baseline}; p-values adjusted with "
            f"{settings['names']['correction']} over all comparisons of a section"
        )
    if any(section.kind == MACRO for section in comparison.sections):
        lines.append(
            "Macro sections: mean of the strata's means; stratified bootstrap intervals "
            f"(resampling within strata); {settings['names']['macro_test']}"
        )
    flags = _flags(comparison.evaluation or {})
    if flags:
        lines.append(f"Scored with {flags} (as trecbench score)")
    ontology = comparison.ontology
    if ontology is not None:
        sha = f", sha256 {ontology['sha256'][:12]}…" if ontology.get("sha256") else ""
        lines.append(
            f"Ontology: HPO release {ontology['release'] or 'unknown'} "
            f"({ontology['source']}{sha}); MaxOntSim formula {ontology['formula']}"
        )
    for run, absent in comparison.missing.items():
        if absent:
            shown = ", ".join(absent[:10]) + (", ..." if len(absent) > 10 else "")
            lines.append(f"{run}: no results for {len(absent)} topic(s): {shown}")
    lines += [f"Warning (--allow-unjudged): {warning}" for warning in comparison.warnings]
    return lines


def _legend(comparison, markdown: bool) -> str:
    alpha = comparison.settings["alpha"]
    level = f"{comparison.settings['confidence']:.0%}"
    star = r"\*" if markdown else "*"
    best = "**bold** = best mean of the measure; " if markdown else ""
    return (
        f"Legend: {best}[a, b] = {level} confidence interval; +x% = change relative to the "
        "baseline; ▲/▼ = significantly better/worse than the baseline, adjusted p < "
        f"{alpha:g} ({star}), < {alpha / 5:g} ({star * 2}), < {alpha / 50:g} ({star * 3}); "
        "W/T/L = topics where the run is better / equal / worse. Higher is better unless "
        "a measure says lower is better; counts without a better direction (num_ret, "
        "num_rel) get ↑/↓ (significantly higher/lower) and no best run."
    )


# ---------------------------------------------------------------------------------------
# terminal


def _aligned(rows: list[list[str]], right: set[int]) -> list[str]:
    """Rows of cells padded to their column's width (columns in ``right`` right-aligned)."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return [
        "  ".join(
            cell.rjust(widths[i]) if i in right else cell.ljust(widths[i])
            for i, cell in enumerate(row)
        ).rstrip()
        for row in rows
    ]


def _section_table(comparison, section) -> list[str]:
    """Per measure and run: mean [CI], and against the baseline difference [CI], change,
    W/T/L (not in macro sections: the same topics as all), adjusted p with marker."""
    alpha = comparison.settings["alpha"]
    level = f"{comparison.settings['confidence']:.0%}"
    correction = comparison.settings["names"]["correction"]
    summary = comparison.part(comparison.summary, section.label).set_index(["measure", "run"])
    tests = comparison.part(comparison.comparisons, section.label).set_index(["measure", "run"])
    compared = len(comparison.runs) > 1
    header = ["measure", "run", "mean", f"{level} CI"]
    if compared:
        header += [f"vs {comparison.baseline}", f"{level} CI", "change"]
        header += ([] if section.kind == MACRO else ["W/T/L"]) + [f"p ({correction})"]
    rows = [header]
    for measure in comparison.measures:
        name = (
            f"{measure} (lower is better)"
            if _direction(comparison, measure) == "lower"
            else measure
        )
        for i, run in enumerate(comparison.runs):
            row = summary.loc[(measure, run)]
            shown = f"{run} (base)" if run == comparison.baseline and compared else run
            cells = [name if i == 0 else "", shown, _fmt(row["mean"])]
            cells.append(f"[{_fmt(row['ci_low'])}, {_fmt(row['ci_high'])}]")
            if compared and run != comparison.baseline:
                test = tests.loc[(measure, run)]
                cells += [
                    _signed(test["difference"]),
                    f"[{_signed(test['ci_low'])}, {_signed(test['ci_high'])}]",
                    _change(test["relative_change"]),
                ]
                if section.kind != MACRO:
                    cells.append(f"{test['wins']}/{test['ties']}/{test['losses']}")
                marker = _marker(test, alpha, _direction(comparison, measure))
                cells.append(f"{_fmt_p(test['p_adjusted'])} {marker}")
            rows.append(cells + [""] * (len(header) - len(cells)))
    right = {2, 4, 6, 7} if section.kind != MACRO else {2, 4, 6}
    return _aligned(rows, right)


def _strata_table(comparison, field: str) -> list[str]:
    """One row per stratum of ``field`` and measure: topics and each run's mean (with the
    marker of its comparison with the baseline)."""
    alpha = comparison.settings["alpha"]
    header = [field, "topics", "measure"] + [
        f"{run} (base)" if run == comparison.baseline and len(comparison.runs) > 1 else run
        for run in comparison.runs
    ]
    rows = [header]
    for section in comparison.sections:
        if section.kind != STRATUM or section.field != field:
            continue
        summary = comparison.part(comparison.summary, section.label).set_index(["measure", "run"])
        tests = comparison.part(comparison.comparisons, section.label).set_index(["measure", "run"])
        for i, measure in enumerate(comparison.measures):
            cells = [
                section.value if i == 0 else "",
                str(section.topics) if i == 0 else "",
                measure,
            ]
            for run in comparison.runs:
                cell = _fmt(summary.loc[(measure, run), "mean"])
                if run != comparison.baseline:
                    marker = _marker(
                        tests.loc[(measure, run)], alpha, _direction(comparison, measure)
                    )
                    cell += f" {marker}" if marker else ""
                cells.append(cell)
            rows.append(cells)
    return _aligned(rows, {1})


def _movers_lines(comparison, label: str, markdown: bool) -> list[str]:
    movers = comparison.part(comparison.movers, label)
    if movers.empty:
        return []
    lines = []
    for (measure, run), part in movers.groupby(["measure", "run"], sort=False):
        texts = {}
        for kind in ("gain", "loss"):
            chosen = part[part["kind"] == kind]
            texts[kind] = (
                "; ".join(
                    f"{row.qid} {row.difference:+.4f} ({row.baseline_value:.4f}→{row.value:.4f})"
                    for row in chosen.itertuples()
                )
                or "none"
            )
        if markdown:
            lines.append(f"| {measure} | {run} | {_md(texts['gain'])} | {_md(texts['loss'])} |")
        else:
            lines += [
                f"{measure}  {run}",
                f"  gains:  {texts['gain']}",
                f"  losses: {texts['loss']}",
            ]
    return lines


def _tie_rows(comparison, label: str) -> list[list[str]] | None:
    """Rows ``measure, run, mean, lowest, highest, reported order`` (None without bounds)."""
    if not comparison.settings.get("tie_bounds"):
        return None
    summary = comparison.part(comparison.summary, label)
    rows = []
    for row in summary.to_dict(orient="records"):
        low, high = row["tie_low"], row["tie_high"]
        if not (math.isfinite(low) and math.isfinite(high)):
            where = "not bounded"
        else:
            from .tiebounds import position

            where = position(row["mean"], low, high)
        rows.append([row["measure"], row["run"], _fmt(row["mean"]), _fmt(low), _fmt(high), where])
    return rows


_TIE_NOTE = (
    "lowest and highest mean over every order of tied documents (equal scores); "
    "the reported order is trec_eval's (ties by docno descending). 'fixed': no order "
    "changes it; 'not bounded': the measure is not monotone in the order (see trecbench.tiebounds)"
)


def _welch_rows(comparison, label: str) -> list[list[str]]:
    """Rows ``measure, run, mean, normal CI, Welch t, df, p, p adjusted``."""
    summary = comparison.part(comparison.summary, label).set_index(["measure", "run"])
    tests = comparison.part(comparison.comparisons, label).set_index(["measure", "run"])
    rows = []
    for measure in comparison.measures:
        for run in comparison.runs:
            row = summary.loc[(measure, run)]
            cells = [
                measure,
                run,
                _fmt(row["mean"]),
                f"[{_fmt(row['normal_low'])}, {_fmt(row['normal_high'])}]",
            ]
            if run != comparison.baseline and (measure, run) in tests.index:
                test = tests.loc[(measure, run)]
                cells += [
                    _fmt(test["welch_t"], 3),
                    _fmt(test["welch_df"], 1),
                    _fmt_p(test["welch_p"]),
                    _fmt_p(test["welch_p_adjusted"]),
                ]
            else:
                cells += ["", "", "", ""]
            rows.append(cells)
    return rows


def _welch_title(comparison) -> str:
    level = f"{comparison.settings['confidence']:.0%}"
    return (
        f"Independent-samples view (weaker design: ignores that the runs answer the same "
        f"topics; for reference only): normal-approximation {level} CI (mean ± z·sd/√n) and "
        f"two-sample Welch t-test against {comparison.baseline}"
    )


def _pairs_rows(comparison, label: str, bold) -> list[list[str]]:
    """Rows ``letter, run, mean^letters...``: ``bold(text)`` marks a best mean."""
    mark = letters(comparison.runs)
    join = "," if len(comparison.runs) > 26 else ""  # r27 after r would read rr27
    beaten = _beaten(comparison, label)
    summary = comparison.part(comparison.summary, label).set_index(["measure", "run"])["mean"]
    rows = []
    for run in comparison.runs:
        cells = [mark[run], run]
        for measure in comparison.measures:
            means = summary.loc[measure]
            text = _fmt(means[run])
            if run in best_runs(means, comparison.runs, _direction(comparison, measure)):
                text = bold(text)
            losers = set(beaten.get((run, measure), []))
            wins = join.join(mark[other] for other in comparison.runs if other in losers)
            cells.append((text, wins))
        rows.append(cells)
    return rows


def _pairs_note(comparison, section) -> str:
    settings = comparison.settings
    return (
        f"every run against every other: superscript letters = significantly better than "
        f"those runs ({_test_name(comparison, section)}, "
        f"{settings['names']['correction']} over all pairs and measures, "
        f"adjusted p < {settings['alpha']:g})"
    )


WIDTH = 100  # prose of the terminal report is wrapped at this width; tables are not


def _wrap(text: str, indent: str = "  ") -> list[str]:
    import textwrap

    return textwrap.wrap(text, WIDTH, subsequent_indent=indent, break_on_hyphens=False)


def terminal_table(comparison) -> str:
    """The plain-text report ``trecbench compare`` prints."""
    lines = [part for line in _header_lines(comparison) for part in _wrap(line)]
    lines += _wrap(_legend(comparison, markdown=False))
    several = len(comparison.runs) > 1
    for section in comparison.sections:
        if section.kind == STRATUM:
            continue
        lines += ["", f"{section.title} ({section.topics} topics)"]
        lines += _section_table(comparison, section)
        lines += [part for note in section_notes(comparison, section) for part in _wrap(note)]
        if section.kind == MACRO:
            lines += ["", f"By {section.field} (per stratum; every table in the Markdown report)"]
            lines += _strata_table(comparison, section.field)
            lines += [
                part
                for stratum in comparison.sections
                if stratum.kind == STRATUM and stratum.field == section.field
                for note in section_notes(comparison, stratum)
                for part in _wrap(f"{stratum.value}: {note}")
            ]
    if several:
        lines += ["", f"Topic movers against {comparison.baseline} (all topics)"]
        movers = _movers_lines(comparison, ALL, markdown=False) or ["  no topic moved"]
        lines += [part for line in movers for part in _wrap(line, " " * 10)]
    ties = _tie_rows(comparison, ALL)
    if ties is not None:
        lines.append("")
        if all(row[-1] == "fixed" for row in ties):
            lines.append("Tie sensitivity: no order of tied documents changes any mean here.")
        else:
            lines += _wrap("Tie sensitivity (all topics): " + _TIE_NOTE)
            header = ["measure", "run", "mean", "lowest", "highest", "reported order"]
            lines += _aligned([header, *ties], {2, 3, 4})
    if several:
        lines += [""] + _wrap(_welch_title(comparison))
        header = ["measure", "run", "mean", "normal CI", "Welch t", "df", "p", "p adjusted"]
        lines += _aligned([header, *_welch_rows(comparison, ALL)], {2, 4, 5, 6, 7})
    if len(comparison.runs) > 2:
        for section in comparison.sections:
            if section.kind == STRATUM:
                continue
            note = f"All pairs, {section.title.lower()}: {_pairs_note(comparison, section)}"
            lines += [""] + _wrap(note)
            rows = _pairs_rows(comparison, section.label, lambda text: text)
            flat = [
                cells[:2] + [f"{t}{'^' + w if w else ''}" for t, w in cells[2:]] for cells in rows
            ]
            lines += _aligned([["", "run", *comparison.measures], *flat], set())
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------
# Markdown


def _md(text: str) -> str:
    """Text safe in a Markdown table cell."""
    return text.replace("|", r"\|").replace("*", r"\*")


def _md_table(header: list[str], rows: list[list[str]], right: set[int]) -> list[str]:
    align = ["---:" if i in right else "---" for i in range(len(header))]
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(align) + "|"]
    return lines + ["| " + " | ".join(row) + " |" for row in rows]


def mean_cells(comparison, label: str, measures: list[str], bold: str = "") -> list[list[str]]:
    """Header and rows of a section's means table: runs as columns, one row per measure
    (mean, interval, change and marker; the best mean between ``bold`` marks), a "best
    run" column."""
    alpha = comparison.settings["alpha"]
    summary = comparison.part(comparison.summary, label).set_index(["measure", "run"])
    tests = comparison.part(comparison.comparisons, label).set_index(["measure", "run"])
    header = [f"{run} (baseline)" if run == comparison.baseline else run for run in comparison.runs]
    rows = [["Measure", *header, "Best run"]]
    for measure in measures:
        better = _direction(comparison, measure)
        means = summary.loc[measure]["mean"]
        best = best_runs(means, comparison.runs, better)
        cells = []
        for run in comparison.runs:
            row = summary.loc[(measure, run)]
            mean = _fmt(row["mean"])
            cell = f"{bold}{mean}{bold}" if run in best else mean
            cell += f" [{_fmt(row['ci_low'])}, {_fmt(row['ci_high'])}]"
            if run != comparison.baseline:
                test = tests.loc[(measure, run)]
                change = test["relative_change"]
                if math.isfinite(change):
                    cell += f" {change:+.1f}%"
                marker = _marker(test, alpha, better)
                cell += f" {marker}" if marker else ""
            cells.append(cell)
        name = f"{measure} (lower is better)" if better == "lower" else measure
        rows.append([name, *cells, ", ".join(best) if best else "n/a"])
    return rows


def _md_means(comparison, label: str, measures: list[str]) -> list[str]:
    """:func:`mean_cells` as a Markdown table, the best mean in bold."""
    rows = mean_cells(comparison, label, measures, bold="**")
    header = [_md(cell) for cell in rows[0]]
    lines = ["| " + " | ".join(header) + " |", "|---|" + "---:|" * len(comparison.runs) + "---|"]
    return lines + ["| " + " | ".join(row[:-1] + [_md(row[-1])]) + " |" for row in rows[1:]]


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
            _md(row["run"]),
            f"{row['difference']:+.4f} [{row['ci_low']:+.4f}, {row['ci_high']:+.4f}]",
            _change(row["relative_change"]),
        ]
        if not macro:
            cells += [f"{row['wins']}/{row['ties']}/{row['losses']}", _fmt(row["effect_size"], 2)]
        marker = _marker(row, settings["alpha"], _direction(comparison, row["measure"]))
        cells += [
            _fmt_p(row["p_value"]),
            f"{_fmt_p(row['p_adjusted'])}{' ' + marker if marker else ''}",
        ]
        rows.append(cells)
    return _md_table(header, rows, set(range(2, len(header))))


def markdown(comparison) -> str:
    """The BenchmarkComparison Markdown text (every section in full)."""
    lines = ["# Benchmark comparison", ""]
    lines += [f"- {_md(line)}" for line in _header_lines(comparison)]
    lines += ["", _legend(comparison, markdown=True)]
    groups: dict[str, list[str]] = {}
    for measure in comparison.measures:
        groups.setdefault(measure_group(measure), []).append(measure)
    several = len(comparison.runs) > 1
    for section in comparison.sections:
        lines += ["", f"## {_md(section.title)} ({section.topics} topics)"]
        lines += [
            line for note in section_notes(comparison, section) for line in ("", f"> {_md(note)}")
        ]
        for group, measures in groups.items():
            lines += ["", f"### {group}", ""] + _md_means(comparison, section.label, measures)
        if several:
            lines += ["", f"### Differences against {_md(comparison.baseline)}", ""]
            lines += _md_differences(comparison, section)
        movers = _movers_lines(comparison, section.label, markdown=True)
        if movers:
            lines += ["", f"### Topic movers against {_md(comparison.baseline)}", ""]
            lines += ["| Measure | Run | Largest gains | Largest losses |", "|---|---|---|---|"]
            lines += movers
        ties = _tie_rows(comparison, section.label)
        if ties is not None:
            lines += ["", "### Tie sensitivity", "", _TIE_NOTE[0].upper() + _TIE_NOTE[1:] + ".", ""]
            header = ["Measure", "Run", "Mean", "Lowest", "Highest", "Reported order"]
            lines += _md_table(header, [[_md(c) for c in row] for row in ties], {2, 3, 4})
        if several and section.kind != MACRO:
            lines += [
                "",
                "### Independent-samples view (weaker design)",
                "",
                _welch_title(comparison) + ".",
                "",
            ]
            header = ["Measure", "Run", "Mean", "Normal CI", "Welch t", "df", "p", "p adjusted"]
            rows = [[_md(c) for c in row] for row in _welch_rows(comparison, section.label)]
            lines += _md_table(header, rows, {2, 4, 5, 6, 7})
        if len(comparison.runs) > 2:
            lines += [
                "",
                "### All pairs",
                "",
                _pairs_note(comparison, section)[0].upper()
                + _pairs_note(comparison, section)[1:]
                + ".",
                "",
            ]
            rows = _pairs_rows(comparison, section.label, lambda text: f"**{text}**")
            body = [
                cells[:1]
                + [_md(cells[1])]
                + [f"{t}{f'<sup>{w}</sup>' if w else ''}" for t, w in cells[2:]]
                for cells in rows
            ]
            lines += _md_table(
                ["", "Run", *comparison.measures], body, set(range(2, 2 + len(comparison.measures)))
            )
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------
# CSV and LaTeX


def csv_text(comparison) -> str:
    """:meth:`~trecbench.comparison.Comparison.to_frame` as CSV: one row per section, run and
    measure (``section``, its ``kind`` and ``topics`` first), full precision, empty cells
    where nothing applies."""
    merged = comparison.to_frame().drop(columns=["queries"])
    sections = {section.label: section for section in comparison.sections}
    merged.insert(1, "kind", [sections[label].kind for label in merged["stratum"]])
    merged.insert(2, "topics", [sections[label].topics for label in merged["stratum"]])
    # each section's notes once: on its first row
    first = ~merged["stratum"].duplicated()
    notes = {label: " ".join(section_notes(comparison, s)) for label, s in sections.items()}
    merged["notes"] = [
        notes[label] if head else "" for label, head in zip(merged["stratum"], first, strict=True)
    ]
    out = io.StringIO()
    merged.rename(columns={"stratum": "section"}).to_csv(out, index=False, lineterminator="\n")
    return out.getvalue()


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
}


def latex_escape(text: str) -> str:
    """``text`` with LaTeX's special characters escaped."""
    return "".join(_LATEX_SPECIAL.get(char, char) for char in text)


def latex(comparison) -> str:
    """The all-pairs tables (all topics, then each macro section) as LaTeX (booktabs):
    means with superscript letters of the runs each is significantly better than, the
    best mean in bold."""
    blocks = ["% trecbench compare: all-pairs tables; needs \\usepackage{booktabs}"]
    for section in comparison.sections:
        if section.kind == STRATUM:
            continue
        rows = _pairs_rows(comparison, section.label, lambda text: f"\\textbf{{{text}}}")
        body = [
            " & ".join(
                [cells[0], latex_escape(cells[1])]
                + [f"{t}$^{{{w}}}$" if w else t for t, w in cells[2:]]
            )
            + r" \\"
            for cells in rows
        ]
        caption = " ".join(
            [
                f"{section.title} ({section.topics} topics): mean per run; "
                f"{_pairs_note(comparison, section)}; best mean in bold.",
                *section_notes(comparison, section),
            ]
        )
        blocks.append(
            "\n".join(
                [
                    r"\begin{table}[t]",
                    r"\centering",
                    f"\\caption{{{latex_escape(caption)}}}",
                    f"\\begin{{tabular}}{{cl{'r' * len(comparison.measures)}}}",
                    r"\toprule",
                    " & Run & " + " & ".join(latex_escape(m) for m in comparison.measures) + r" \\",
                    r"\midrule",
                    *body,
                    r"\bottomrule",
                    r"\end{tabular}",
                    r"\end{table}",
                ]
            )
        )
    return "\n\n".join(blocks) + "\n"
