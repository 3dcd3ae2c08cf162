"""The cells and lines every rendering of a :class:`~trecbench.comparison.Comparison`
shares: numbers, p-values and markers, the header and legend, each section's notes, the
means, movers, tie bounds, unpaired view and all-pairs rows (read from the Comparison;
never importing :mod:`trecbench.comparison`: data flows one way)."""

from __future__ import annotations

import math
import string
from collections.abc import Mapping

import pandas as pd

from ..escaping import list_item
from ..number_text import exact_number, value_text
from ..plurals import counted, exact_percent, first_few
from ..resampling_bounds import exact_alpha
from ..scoreless import without_relevant_warning
from .scoring_flags import flag_text
from .text_tables import change_text
from .text_tables import p_text as tables_p_text

# the kinds of trecbench.comparison.Section
ALL, MACRO, STRATUM = "all", "macro", "stratum"

# ---------------------------------------------------------------------------------------
# numbers and markers


def statistic_text(value: float, digits: int) -> str:
    """A statistic (a t, its df, a d_z) with ``digits`` decimals, ``n/a`` when undefined; a
    measure's value is :func:`~trecbench.number_text.value_text`'s. One that rounds to 0
    there prints unsigned, as a difference does: a d_z of -0.003 read ``-0.00`` beside a
    change of ``-0.1%``, a Welch t of -0.0004 ``-0.000``."""
    if not math.isfinite(value):
        return "n/a"
    text = f"{value:.{digits}f}"
    return text.lstrip("-") if float(text) == 0 else text


def difference_text(row: Mapping) -> str:
    """A comparison's difference with its interval: ``+0.1234 [+0.0500, +0.2000]``."""
    low, high = value_text(row["ci_low"], True), value_text(row["ci_high"], True)
    return f"{value_text(row['difference'], True)} [{low}, {high}]"


def p_text(value: float, alpha: float) -> str:
    """A p-value of a comparison made at ``alpha``: never rounded across the levels its
    stars mark (:func:`star_levels`; :func:`~.text_tables.p_text`)."""
    return tables_p_text(value, star_levels(alpha))


def measure_group(measure: str) -> str:
    """The table a measure (any spelling) is shown in: its definition's group in the
    measure registry (recall-type measures apart from rank-sensitive ones)."""
    from ..errors import TrecbenchError
    from ..measures import registry
    from ..measures.labels import looked_up

    try:
        return looked_up(measure).definition.group
    except TrecbenchError:
        return registry.RANKING


def direction_of(measure: str) -> str | None:
    """``higher``, ``lower`` or None: which values of ``measure`` are better (registry)."""
    from ..measures import better

    return better(measure)


def star_levels(alpha: float) -> tuple[float, float, float]:
    """The adjusted p-values below which a comparison gets one, two, three stars: alpha,
    alpha/5 and alpha/50 of the decimal alpha is (0.07: 0.014, where the double's 0.07/5
    is 0.014000000000000002, above a p of 0.014 and printed so)."""
    decimal = exact_alpha(alpha)
    return alpha, float(decimal / 5), float(decimal / 50)


def star_text(p: float, alpha: float) -> str:
    if not math.isfinite(p):
        return ""
    return "*" * sum(p < level for level in star_levels(alpha))


def marker_text(row: Mapping, alpha: float, better: str | None) -> str:
    """``▲``/``▼`` (significantly better/worse; ``↑``/``↓`` higher/lower for a measure
    without a direction) plus one to three stars for adjusted p below alpha, alpha/5,
    alpha/50; empty when not significant (the row's ``significant``: never where the test
    cannot reach alpha over the section's topics, whatever p reads)."""
    stars = star_text(row["p_adjusted"], alpha) if row["significant"] else ""
    if not stars:
        return ""
    if better is None:
        return ("↑" if row["difference"] > 0 else "↓") + stars
    improved = row["difference"] > 0 if better == "higher" else row["difference"] < 0
    return ("▲" if improved else "▼") + stars


def best_runs(means: Mapping[str, float], runs: list[str], better: str | None) -> list[str]:
    """Runs with the best mean (ties listed: means equal on paper,
    :func:`~trecbench.rounding.equal_on_paper`); none for a measure without a direction."""
    if better not in ("higher", "lower"):
        return []
    from ..rounding import equal_on_paper

    tied = dict(zip(runs, equal_on_paper([means[run] for run in runs]), strict=True))
    known = [value for value in tied.values() if not math.isnan(value)]  # NaN: no mean
    if not known:
        return []
    best = max(known) if better == "higher" else min(known)
    return [run for run in runs if tied[run] == best]


def letters(runs: list[str]) -> dict[str, str]:
    """Run -> its letter in the all-pairs tables (a, b, ... z, then r27, r28...)."""
    return {run: string.ascii_lowercase[i] if i < 26 else f"r{i + 1}" for i, run in enumerate(runs)}


def beaten_by(comparison, label: str) -> dict[tuple[str, str], list[str]]:
    """(run, measure) -> the runs it is significantly better than in section ``label``
    (higher, for a measure without a direction)."""
    beaten: dict[tuple[str, str], list[str]] = {}
    for row in comparison.records(comparison.pairs, label):
        if row["winner"] is not None:
            loser = row["other"] if row["winner"] == row["run"] else row["run"]
            beaten.setdefault((row["winner"], row["measure"]), []).append(loser)
    return beaten


def test_label(comparison, section) -> str:
    return comparison.statistics.label(macro=section.kind == MACRO)


def section_notes(comparison, section, intervals: bool = True) -> list[str]:
    """What a reader of ``section`` must know about its tests, once: the section's own
    notes (a test that cannot reach alpha over its topics, pairs left out), why its
    intervals are n/a (``intervals``: the rendering shows them) and, per reason, the
    comparisons whose p-value or relative change is undefined (n/a)."""
    notes = list(getattr(section, "notes", ()))
    undefined_interval = getattr(section, "interval_undefined", None)
    if intervals and undefined_interval is not None:
        notes.append(f"Intervals n/a (undefined): {undefined_interval}.")
    return notes + undefined_notes(comparison, section.label, UNDEFINED_COLUMNS)


def undefined_notes(comparison, label: str, columns: Mapping[str, str]) -> list[str]:
    """Per column of ``columns`` (why a figure is n/a -> how its note begins) and reason,
    one note naming the comparisons of section ``label`` it is for (five, then how many)."""
    notes = []
    for column, lead in columns.items():
        for reason, which in _undefined_by_reason(comparison, label, column).items():
            more = f"; and {len(which) - 5} more" if len(which) > 5 else ""
            notes.append(f"{lead}: {reason} — {'; '.join(which[:5])}{more}.")
    return notes


def _undefined_by_reason(comparison, label: str, column: str) -> dict[str, list[str]]:
    """Per reason given in ``column`` (why a figure is n/a), the comparisons and pairs of
    the section ``label`` it is given for (``run vs other on measure``), in order of
    first appearance: each pair of runs once per measure, whichever way round."""
    undefined: dict[str, dict] = {}
    for name in ("comparisons", "pairs"):
        frame = getattr(comparison, name)
        if column not in frame.columns:
            continue
        for row in comparison.records(frame, label):
            if pd.isna(row[column]):  # defined
                continue
            against = row.get("other", row.get("baseline"))
            key = (frozenset((row["run"], against)), row["measure"])  # a pair once
            text = f"{row['run']} vs {against} on {row['measure']}"
            undefined.setdefault(row[column], {}).setdefault(key, text)
    return {reason: list(found.values()) for reason, found in undefined.items()}


# the columns that say why a figure of a comparison is n/a, and how a section's note on
# them begins
UNDEFINED_COLUMNS = {
    "p_undefined": "p n/a (undefined, not significant)",
    "relative_change_undefined": "change n/a (undefined)",
}


def header_lines(comparison) -> list[str]:
    """What was compared and how, one item per line (Markdown list items without the
    dash; the terminal prints them as they are); the runs, qrels and topics a line lists
    (escaped already: :func:`~.comparison_escaped.with_names_escaped`) as items of a list
    (:func:`~trecbench.escaping.list_item`: the runs ``a, b`` and ``c`` are ``a%2C b, c``)."""
    settings = comparison.statistics
    level = exact_percent(settings.confidence)
    runs = ", ".join(
        list_item(run) + (" (baseline)" if run == comparison.baseline else "")
        for run in comparison.runs
    )
    from ..measures import but_counts

    policy = (
        f"a run without results for a topic scores 0 on it{but_counts(comparison.measures)} "
        "(trec_eval -c)"
        if settings.missing == "zero"
        else "only topics every run was evaluated on"
    )
    lines = [f"Runs: {runs}"]
    qrels = comparison.run_qrels or {}
    if len(set(qrels.values())) > 1:
        lines.append(
            "Qrels: each run its own — "
            + ", ".join(f"{list_item(r)}: {list_item(q or 'in memory')}" for r, q in qrels.items())
        )
    elif qrels:
        lines.append(f"Qrels: {next(iter(qrels.values())) or 'in memory'}")
    lines.append(f"Topics: {len(comparison.queries)}, paired by qid; {policy}")
    for run, topics in (comparison.unpaired or {}).items():
        if topics:
            shown = first_few(topics, shown=list_item)
            lines.append(
                f"{run}: {counted(len(topics), 'topic')} of its qrels "
                f"{'is' if len(topics) == 1 else 'are'} not judged for every run, "
                f"left out: {shown}"
            )
    lines.append(
        f"Means with {level} bootstrap percentile intervals over topics "
        f"({settings.samples:,} resamples, seed {settings.seed})"
    )
    if len(comparison.runs) > 1:
        lines.append(_significance_line(settings, comparison.baseline))
    if any(section.kind == MACRO for section in comparison.sections):
        lines.append(
            "Macro sections: mean of the strata's means; stratified bootstrap intervals "
            f"(resampling within strata); {settings.label(macro=True)}"
        )
    # compare's default --missing zero averages as score -c does: said, though compare
    # takes no -c (a comparison of scores given has no record, and was not scored here)
    recorded = comparison.evaluation
    flags = flag_text(recorded, settings.missing) if recorded is not None else ""
    if flags:
        lines.append(f"Scored as trecbench score {flags} scores")
    ontology = comparison.ontology
    if ontology is not None:
        sha = f", sha256 {ontology['sha256'][:12]}…" if ontology.get("sha256") else ""
        lines.append(
            f"Ontology: HPO release {ontology['release'] or 'unknown'} "
            f"({ontology['source']}{sha}); MaxOntSim formula {ontology['formula']}"
        )
    for run, absent in comparison.missing.items():
        if absent:
            shown = first_few(absent, 10, list_item)
            lines.append(f"{run}: no results for {counted(len(absent), 'topic')}: {shown}")
    said = scoreless_line(comparison)
    if said:
        lines.append(said)
    # labelled by the option that let a run through (not strata's, nor score's page)
    allowing = comparison.settings.get("allow_unjudged")
    for warning in comparison.warnings:
        allowed_by = getattr(warning, "allowed_by", None) if allowing else None
        lines.append(f"Warning ({allowed_by}): {warning}" if allowed_by else f"Warning: {warning}")
    return lines


def _significance_line(settings, baseline: str) -> str:
    """The header's test line: the test against ``baseline`` and how p-values are adjusted."""
    # "adjusted with no correction" said of no adjustment: they are not adjusted
    welch = (
        "not adjusted"
        if settings.resolved_correction == "none"
        else f"adjusted with {settings.welch_correction_name}"
    )
    adjusted = (
        "its p-values are family-wise over all pairs of runs of a measure "
        f"(the Welch t-test's p-values are {welch})"
        if settings.registered.family_wise
        else "p-values not adjusted"
        if settings.resolved_correction == "none"
        else f"p-values adjusted with {settings.correction_name} over all comparisons of a section"
    )
    drawn = _draws(settings)
    return f"Significance: two-sided {settings.label()}{drawn} against {baseline}; {adjusted}"


def _draws(settings) -> str:
    """How a resampled test drew (`` (10,000 samples, seed 0)``; "" for an analytic one),
    and where the randomisation test enumerates every sign pattern instead (exact): a p
    from 2^8 patterns read as if drawn 10,000 times."""
    from ..statistical_tests import SAMPLES

    if SAMPLES not in settings.registered.options:
        return ""
    exact = ""
    most = settings.samples.bit_length() - 1  # 2^topics <= samples: every pattern, once
    if settings.registered.exact_below and most >= 2:  # (one topic has no p)
        exact = f"; exact, every sign pattern, in a section of {most} topics or fewer"
    return f" ({settings.samples:,} samples, seed {settings.seed}{exact})"


def scoreless_line(comparison) -> str:
    """What the outputs say of the topics without a relevant document ("" when none), in
    every command's words (:func:`~trecbench.scoreless.without_relevant_warning`), of the
    qrels the header names (each run's own where they differ: a topic none of them holds a
    relevant document for); topics and path escaped already (:func:`with_names_escaped`)."""
    if not comparison.scoreless:
        return ""
    level = (comparison.evaluation or {}).get("relevance_level") or 1
    qrels = set((comparison.run_qrels or {}).values())
    where = "each run's qrels" if len(qrels) > 1 else next(iter(qrels), None) or "the qrels"
    return without_relevant_warning(where, comparison.scoreless, level, "run", lambda qid: qid)


def legend_text(comparison, markdown: bool, page: bool = False) -> str:
    """The legend under the tables. The text and Markdown reports' says how any count
    without a better direction (num_ret, num_rel) is marked; the HTML ``page``'s says it of
    the counts it shows, by name, and nothing where it shows none (score --html's page
    never does: it leaves the counts out)."""
    alpha = comparison.statistics.alpha
    level = exact_percent(comparison.statistics.confidence)
    star = r"\*" if markdown else "*"
    best = "**bold** = best mean of the measure; " if markdown else ""
    one, two, three = map(exact_number, star_levels(alpha))
    counts = "; counts without a better direction (num_ret, num_rel) get"
    if page:
        shown = [m for m in comparison.measures if direction_of(m) is None]
        verb = "gets" if len(shown) == 1 else "get"
        counts = f"; {', '.join(shown)}, without a better direction, {verb}" if shown else ""
    marks = " ↑/↓ (significantly higher/lower) and no best run" if counts else ""
    return (
        f"Legend: {best}[a, b] = {level} confidence interval; +x% = change relative to the "
        "baseline; ▲/▼ = significantly better/worse than the baseline, "
        f"{comparison.statistics.marked_p} < {one} ({star}), < {two} ({star * 2}), "
        f"< {three} ({star * 3}); "
        "W/T/L = topics where the run is better / equal / worse. Higher is better unless "
        f"a measure says lower is better{counts}{marks}."
    )


def mover_lines(comparison, label: str, markdown: bool) -> list[str]:
    grouped: dict[tuple[str, str], list[dict]] = {}
    for row in comparison.records(comparison.movers, label):
        grouped.setdefault((row["measure"], row["run"]), []).append(row)
    lines = []
    for (measure, run), rows in grouped.items():
        texts = {}
        for kind in ("gain", "loss"):
            texts[kind] = (
                "; ".join(
                    f"{row['qid']} {value_text(row['difference'], True)} "
                    f"({value_text(row['baseline_value'])}→{value_text(row['value'])})"
                    for row in rows
                    if row["kind"] == kind
                )
                or "none"
            )
        if markdown:
            lines.append(f"| {measure} | {run} | {texts['gain']} | {texts['loss']} |")
        else:
            lines += [
                f"{measure}  {run}",
                f"  gains:  {texts['gain']}",
                f"  losses: {texts['loss']}",
            ]
    return lines


def tie_rows(comparison, label: str) -> list[list[str]] | None:
    """Rows ``measure, run, mean, lowest, highest, reported order`` (None without bounds)."""
    if not comparison.tie_bounded:
        return None
    rows = []
    for row in comparison.records(comparison.summary, label):
        low, high = row["tie_low"], row["tie_high"]
        if not (math.isfinite(low) and math.isfinite(high)):
            where = "not bounded"
        else:
            from ..tiebounds import position

            where = position(row["mean"], low, high)
        rows.append(
            [
                row["measure"],
                row["run"],
                value_text(row["mean"]),
                value_text(low),
                value_text(high),
                where,
            ]
        )
    return rows


# the columns of tie_rows, headed so in the Markdown report and the HTML page
TIE_HEADER = ["Measure", "Run", "Mean", "Lowest", "Highest", "Reported order"]

TIE_NOTE = (
    "lowest and highest mean over every order of tied documents (equal scores); "
    "the reported order is trec_eval's (ties by docno descending). 'fixed': no order "
    "changes it; 'not bounded': the measure is not monotone in the order (see trecbench.tiebounds)"
)


def welch_rows(comparison, label: str) -> list[list[str]]:
    """Rows ``measure, run, mean, normal CI, Welch t, df, p, p adjusted``."""
    summary = comparison.by_measure_and_run(comparison.summary, label)
    tests = comparison.by_measure_and_run(comparison.comparisons, label)
    rows = []
    for measure in comparison.measures:
        for run in comparison.runs:
            row = summary[(measure, run)]
            interval = f"[{value_text(row['normal_low'])}, {value_text(row['normal_high'])}]"
            if _past_range(measure, row["normal_low"], row["normal_high"]):
                interval += PAST_RANGE_MARK
            cells = [measure, run, value_text(row["mean"]), interval]
            if run != comparison.baseline and (measure, run) in tests:
                test = tests[(measure, run)]
                alpha = comparison.statistics.alpha
                cells += [
                    statistic_text(test["welch_t"], 3),
                    statistic_text(test["welch_df"], 1),
                    p_text(test["welch_p"], alpha),
                    p_text(test["welch_p_adjusted"], alpha),
                ]
            else:
                cells += ["", "", "", ""]
            rows.append(cells)
    return rows


# marks a normal interval that passes its measure's range, [0, 1] (said by welch_notes)
PAST_RANGE_MARK = "†"


def _past_range(measure: str, low: float, high: float) -> bool:
    """Whether a normal interval passes [0, 1] for a measure whose values lie there (by
    more than a double's rounding: cwl_eval's INSQ of 1.0000000000000002 is 1)."""
    from ..measures.labels import past_unit_span, span

    return span(measure) == 1.0 and past_unit_span(low, high)


# the column that says why a comparison's Welch t, df and p are n/a, and how the
# independent-samples view's note on it begins
WELCH_UNDEFINED_COLUMNS = {"welch_undefined": "Welch t, df and p n/a (undefined)"}


def welch_notes(comparison, label: str, rows: list[list[str]]) -> list[str]:
    """The footnotes of :func:`welch_rows` of section ``label``: what a marked interval
    means (a value no mean of the measure can take is flagged, not read as a bound), then
    why the Welch t-test is n/a where it is."""
    notes = undefined_notes(comparison, label, WELCH_UNDEFINED_COLUMNS)
    if not any(row[3].endswith(PAST_RANGE_MARK) for row in rows):
        return notes
    past = (
        f"{PAST_RANGE_MARK} the interval passes the measure's range, [0, 1]: a normal "
        "approximation on these topics, which no mean of the measure can reach"
    )
    return [past, *notes]


def welch_title(comparison) -> str:
    level = exact_percent(comparison.statistics.confidence)
    return (
        f"Independent-samples view (weaker design: ignores that the runs answer the same "
        f"topics; for reference only): normal-approximation {level} CI (mean ± z·sd/√n) and "
        f"two-sample Welch t-test against {comparison.baseline}"
    )


def pairs_rows(comparison, label: str, bold) -> list[list[str]]:
    """Rows ``letter, run, mean^letters...``: ``bold(text)`` marks a best mean."""
    mark = letters(comparison.runs)
    join = "," if len(comparison.runs) > 26 else ""  # r27 after r would read rr27
    beaten = beaten_by(comparison, label)
    summary = comparison.by_measure_and_run(comparison.summary, label)
    rows = []
    for run in comparison.runs:
        cells = [mark[run], run]
        for measure in comparison.measures:
            means = {other: summary[(measure, other)]["mean"] for other in comparison.runs}
            text = value_text(means[run])
            if run in best_runs(means, comparison.runs, direction_of(measure)):
                text = bold(text)
            losers = set(beaten.get((run, measure), []))
            wins = join.join(mark[other] for other in comparison.runs if other in losers)
            cells.append((text, wins))
        rows.append(cells)
    return rows


def pairs_note(comparison, section, bold: bool = False) -> str:
    """What the all-pairs table's letters mean; ``bold``: and that its best mean is in bold
    (the LaTeX table's and the page's; the Markdown report's legend says it of all its
    tables)."""
    settings = comparison.statistics
    family = (
        "family-wise over all pairs of runs of a measure"
        if settings.registered.family_wise
        else f"{settings.correction_name} over all pairs and measures"
    )
    # a count without a better direction (num_ret) is higher, not better (the main
    # table's legend gives it the same words)
    counts = [m for m in comparison.measures if direction_of(m) is None]
    higher = f"; of {', '.join(counts)}: significantly higher than them" if counts else ""
    return (
        f"every run against every other: superscript letters = significantly better than "
        f"those runs{higher} ({test_label(comparison, section)}, {family}, "
        f"{settings.marked_p} < {exact_number(settings.alpha)})"
        f"{'; best mean in bold' if bold else ''}"
    )


def as_sentence(note: str) -> str:
    """A note (:func:`pairs_note`, :data:`TIE_NOTE`) as the sentence under its table's
    heading in the Markdown report and on the page: capitalized, ending in a full stop."""
    return note[0].upper() + note[1:] + "."


def mean_cells(comparison, label: str, measures: list[str], bold: str = "") -> list[list[str]]:
    """Header and rows of a section's means table: runs as columns, one row per measure
    (mean, interval, change, marker; the best mean between ``bold`` marks), "best run"."""
    alpha = comparison.statistics.alpha
    summary = comparison.by_measure_and_run(comparison.summary, label)
    tests = comparison.by_measure_and_run(comparison.comparisons, label)
    header = [f"{run} (baseline)" if run == comparison.baseline else run for run in comparison.runs]
    rows = [["Measure", *header, "Best run"]]
    for measure in measures:
        better = direction_of(measure)
        means = {run: summary[(measure, run)]["mean"] for run in comparison.runs}
        best = best_runs(means, comparison.runs, better)
        cells = []
        for run in comparison.runs:
            row = summary[(measure, run)]
            mean = value_text(row["mean"])
            cell = f"{bold}{mean}{bold}" if run in best else mean
            cell += f" [{value_text(row['ci_low'])}, {value_text(row['ci_high'])}]"
            if run != comparison.baseline:
                test = tests[(measure, run)]
                change = test["relative_change"]
                if math.isfinite(change):
                    cell += f" {change_text(change)}"
                marker = marker_text(test, alpha, better)
                cell += f" {marker}" if marker else ""
            cells.append(cell)
        name = f"{measure} (lower is better)" if better == "lower" else measure
        # each run an item of the list (a name "u, v" read as two runs tied)
        rows.append([name, *cells, ", ".join(map(list_item, best)) if best else "n/a"])
    return rows
