"""A benchmark (:class:`trecbench.benchmarking.Benchmark`) as Markdown: the R-task part (KPI
table against the targets, reranking improvements, completeness with its recovery
actions, routing), then compare's statistics one heading level down. The R-task part alone
is what ``trecbench benchmark`` prints; report.html shows it first, as HTML: both render
the same blocks (:func:`rtask_blocks`, :mod:`trecbench.renderers.blocks`).

Reads the result object only: its settings (``bench.config``), KPIs, modes and comparison.
Text from the inputs (the benchmark's name, paths, mode labels and names, qids) is escaped
reversibly as in every Markdown output (:mod:`trecbench.escaping`); in the
page's blocks as the page shows it (:func:`rtask_blocks`'s ``escape``).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping

from ..escaping import escaper, id_list, list_item
from ..measures import better as direction_of  # comparison_cells' would load pandas
from ..measures import but_counts
from ..number_text import exact_number, fewest_digits, value_text
from ..plurals import counted as plural_count
from ..plurals import exact_percent, percent_beside
from . import blocks
from .blocks import (
    CODE,
    NAMES,
    NUMBERS,
    PLAIN,
    STRONG,
    Column,
    Heading,
    Items,
    Paragraph,
    Span,
    Table,
    cell,
    line,
)
from .text_tables import change_text

_escape = escaper("markdown")

# the target levels as the tables say them: the reference's "baseline" level is the range a
# typical BM25 run reaches, which must not read as the configured baseline mode
SHOWN_MARKS = {"below-baseline": "under-typical", "baseline": "typical", "good": "good",
               "strong": "strong"}  # fmt: skip
FLAGS_SHOWN = 10  # topic ids listed per kind of qrels problem


def markdown(bench, statistics: bool = True) -> str:
    """BenchmarkComparison.md of ``bench``; without ``statistics``, the R-task part only."""
    text = blocks.markdown(rtask_blocks(bench))
    if statistics:
        # compare's own text (its title dropped), one heading level down
        shown = bench.comparison.markdown().split("\n")[2:]
        text += "\n\n## Statistics\n\n" + "\n".join(
            "#" + row if row.startswith("#") else row for row in shown
        )
    return text.rstrip("\n") + "\n"


def rtask_blocks(bench, escape=_escape) -> list[blocks.Block]:
    """The R-task part of ``bench`` as blocks: its header, KPI table, targets, reranking,
    completeness with the recovery actions and routing. ``escape``: how input text is
    shown (Markdown's escaping; report.html's is
    :func:`~trecbench.escaping.isolated_text`: ``bm25_rm3``, not ``bm25\\_rm3``)."""
    labels = {result.mode.name: escape(result.mode.label) for result in bench.modes}
    parts = [*_header(bench, labels, escape), *_kpis(bench, labels), *_targets(bench)]
    parts += _reranking(bench, labels)
    parts += _completeness(bench, labels, escape)
    if bench.routing is not None:
        from .routing import routing_table

        heading = Heading(2, f"Routing ({escape(bench.config.routing)})")
        parts += [heading, routing_table(bench.routing)]
    return parts


def _names(bench, modes) -> tuple[str, ...]:
    """The labels of ``modes`` as read: what a cell showing them sorts by on the page."""
    read = {result.mode.name: result.mode.label for result in bench.modes}
    return tuple(read[mode] for mode in modes)


def _configured(config, escape) -> str:
    """`` (configured: nDCG@10)``, the measures whose targets the configuration gives
    beside its preset's ("" for none): the preset's name alone claimed its levels, or none,
    where the table marks the modes by others."""
    configured = config.configured_targets
    # named as the tables name them (a comma of ndcg.1=3,2=9 kept: measures, not ids)
    return f" (configured: {', '.join(map(escape, configured))})" if configured else ""


def _header(bench, labels: Mapping[str, str], escape) -> list[blocks.Block]:
    config = bench.config
    tests = config.statistics
    baseline = labels[bench.comparison.baseline]
    items = [
        f"Qrels: {escape(config.qrels)} "
        f"({plural_count(len(bench.comparison.queries), 'topic')}); every qrels topic counts, a "
        f"mode without results for one scores 0 on it{but_counts(bench.comparison.measures)} "
        "(trec_eval -c)",
        "Modes: "
        + "; ".join(f"{labels[r.mode.name]} = {escape(r.mode.describe())}" for r in bench.modes),
        f"Validation: profile {bench.profile}, "
        + (
            "no limit on documents per topic"  # validation.max_depth null
            if config.max_depth is None
            else f"at most {plural_count(config.max_depth, 'document')} per topic"
        ),
        f"Targets: {config.preset}{_configured(config, escape)}; "
        f"significance: {tests.test} test against {baseline}, "
        f"{tests.correction_words}, {tests.marked_p} < {exact_number(tests.alpha)}; "
        f"{tests.samples:,} bootstrap samples, seed {tests.seed}",
    ]
    described = [Paragraph(line(escape(config.description)))] if config.description else []
    return [
        Heading(1, f"Benchmark: {escape(config.name)}"),
        *described,
        Items(tuple(line(item) for item in items)),
    ]


def _kpi_notes(count: bool, measure: str) -> str:
    """What a KPI row's name adds: a count's mean is per topic; a measure whose lower
    mean is the best one says so (its mean is bolded), as the statistics table does."""
    notes = ["per-topic mean"] if count else []
    if direction_of(measure) == "lower":
        notes.append("lower is better")
    return f" ({', '.join(notes)})" if notes else ""


def _kpis(bench, labels: Mapping[str, str]) -> list[blocks.Block]:
    """The KPI table (each mode's mean, the best bold, against the targets) and its
    legend."""
    runs, baseline = bench.comparison.runs, bench.comparison.baseline
    titles = [f"{labels[mode]} (baseline)" if mode == baseline else labels[mode] for mode in runs]
    columns = (
        Column("Metric"),
        *(Column(title, NUMBERS, title_is_name=True) for title in titles),
        Column("Best Mode", NAMES),
    )
    counts = _counts(bench)
    rows = []
    for row in bench.kpis:
        # a label's comma as %2C: "x, y" best beside "z" is not x, y and z (list_item)
        best = ", ".join(list_item(labels[mode]) for mode in row["best"]) or "n/a"
        name = row["measure"] + _kpi_notes(row["measure"] in counts, row["measure"])
        rows.append(
            (
                cell(name),
                *(
                    cell(_kpi_text(row["values"][mode], mode in row["best"], row["measure"], bench))
                    for mode in runs
                ),
                cell(best, _names(bench, row["best"])),
            )
        )
    # the marks are explained only where a measure has a target (no cell carries one else)
    marked = bool(_targeted(bench))
    marks = (
        "under-typical / typical / good / strong = the mean against the targets below "
        "(typical: the range a typical BM25 run reaches; the baseline mode is the configured "
        "one); "
        if marked
        else ""
    )
    untargeted = (
        "" if marked else f" No benchmarked measure has a target (targets: {bench.config.preset})."
    )
    statistics = bench.config.statistics
    legend = line(
        "Legend: ",
        Span("bold", STRONG),
        f" = best mean; {marks}▲/▼ = significantly better/worse than the baseline mode "
        f"({statistics.marked_p} < {exact_number(statistics.alpha)}).{untargeted}",
    )
    undirected = [row["measure"] for row in bench.kpis if direction_of(row["measure"]) is None]
    if undirected:  # as compare's legend says them
        verb = "gets" if len(undirected) == 1 else "get"
        legend += line(
            f" {', '.join(undirected)}, without a better direction, {verb} ↑/↓ (significantly "
            "higher/lower) and no best mode."
        )
    if counts:
        legend += line(
            f" A count's mean is per topic: {', '.join(sorted(counts))} in reports/ and in ",
            Span("trecbench score", CODE),
            " are sums over the topics, as trec_eval's.",
        )
    return [Heading(2, "KPIs"), Table(columns, tuple(rows)), Paragraph(legend)]


def _counts(bench) -> set[str]:
    """The measures trec_eval sums over topics (``num_ret``...), whose mean the table
    shows per topic."""
    from ..measures.registry import COUNTS

    return {c.display for c in bench.evaluation.columns if c.summary in COUNTS}


def _kpi_text(entry: dict, best: bool, measure: str, bench) -> tuple[Span, ...]:
    """A mode's mean (strong where it is the best), its target level and its significance
    mark: ▲/▼ better/worse as ``measure``'s better values are (a lower num_nonrel_judged_ret
    is better), ↑/↓ higher/lower for a measure neither way better, as compare marks them."""
    marks = ""
    if entry["mark"]:
        marks += f" {SHOWN_MARKS[entry['mark']]}"
    if entry.get("significant"):
        better, higher = direction_of(measure), entry["difference"] > 0
        if better is None:
            marks += " ↑" if higher else " ↓"
        else:
            marks += " ▲" if higher == (better == "higher") else " ▼"
    # never 0.0000 where the mean is not (RBP(p=0.01)'s 1.7e-13 beside 9.9e-19, the first
    # bold as the best: two equal numbers, one the better), as the summary writes it
    text = _mean_text(entry["mean"], bench.config.targets.get(measure))
    mean = Span(text, STRONG if best else PLAIN)
    return (mean, Span(marks)) if marks else (mean,)


def _mean_text(mean: float, target) -> str:
    """A mean as :func:`value_text` prints it, but with the decimals it needs to print on
    the side of each of ``target``'s levels it is on (a target of 0.21548 not reached by
    0.2154735, printed 0.2155 beside "typical", seemed reached: 0.21547), the text read as
    it is (a mean equal to a level of 0.3333333333333333, printed 0.33333333333333 beside
    it, read below it)."""
    text = value_text(mean)
    if target is None or not math.isfinite(mean):
        return text
    mark = target.mark(mean)

    def reads(shown: str) -> bool:  # as printed: on the side of each level it reads as on
        return target.mark(float(shown), exact=True) == mark

    if not reads(repr(mean)):  # within rounding noise below a level: equal to it on paper,
        # printed as it (1/3 summed 2 units in the last place below 0.3333333333333333)
        mean = min(level for level in target.levels if level > mean)
        text = value_text(mean)
    return text if reads(text) else fewest_digits(mean, reads, 5, "f")


def _level_text(level: float) -> str:
    """A target's level as configured, every digit (``:g`` showed 0.215473464 as
    0.215473, which a mean of 0.2154735 seemed to reach); a whole number without ``.0``,
    an integer as written (as a double, 2**64 + 1 lost its last digits and 10**400 raised
    OverflowError: the means compare with the integer itself)."""
    if isinstance(level, numbers.Integral) and not isinstance(level, bool):
        return str(int(level))
    text = repr(float(level) + 0.0)  # -0.0 + 0.0 is 0.0: a level of -0.0 read "-0"
    return text.removesuffix(".0")


def _targeted(bench) -> list[str]:
    """The benchmarked measures that have a target, in the targets' order."""
    return [m for m in bench.config.targets if m in bench.comparison.measures]


def _targets(bench) -> list[blocks.Block]:
    """The targets of the benchmarked measures; none (not a table of its header alone)
    when no benchmarked measure has one (the KPI legend says so)."""
    targeted = _targeted(bench)
    if not targeted:
        return []
    rows = []
    for measure in targeted:
        target = bench.config.targets[measure]
        low, high = target.baseline
        # an en dash: a hyphen made a range of negative levels -10--5, or -5-0.2 read as one
        span = _level_text(low) if low == high else f"{_level_text(low)}–{_level_text(high)}"
        strong = "n/a" if target.strong is None else f"≥ {_level_text(target.strong)}"
        rows.append(tuple(map(cell, (measure, span, f"≥ {_level_text(target.good)}", strong))))
    columns = (
        Column("Target"),
        Column("Typical (BM25)", NUMBERS, left_in_markdown=True),
        Column("Good", NUMBERS),
        Column("Strong", NUMBERS),
    )
    return [Table(columns, tuple(rows), sortable=False)]


def _reranking(bench, labels: Mapping[str, str]) -> list[blocks.Block]:
    if not bench.reranking:
        return []
    columns = (
        Column("Mode", NAMES),
        Column("Reranks", NAMES),
        Column("Measure"),
        *(Column(title, NUMBERS) for title in ("Before", "After", "Improvement")),
    )
    rows = []
    for row in bench.reranking:
        change = "n/a" if row["improvement"] is None else change_text(row["improvement"])
        rows.append(
            (
                cell(labels[row["mode"]], _names(bench, [row["mode"]])),
                cell(labels[row["reranks"]], _names(bench, [row["reranks"]])),
                cell(row["measure"]),
                *map(cell, (value_text(row["baseline"]), value_text(row["reranked"]), change)),
            )
        )
    said = [Heading(2, "Reranking improvement"), Table(columns, tuple(rows))]
    if any(row["improvement"] is None for row in bench.reranking):  # an n/a says why
        why = "n/a: the reranked mode's value is 0, from which no relative change is defined."
        said.append(Paragraph(line(why)))
    return said


def _completeness(bench, labels: Mapping[str, str], escape) -> list[blocks.Block]:
    settings = bench.config.completeness
    at = settings.unjudged_at
    columns = (
        Column("Mode", NAMES),
        Column("Coverage", NUMBERS),
        Column("Judged depth (median, min)", NUMBERS),
        Column(f"Unjudged in top {at}", NUMBERS),
        Column("Status"),
    )
    rows, actions = [], []
    for result in bench.modes:
        info, label = result.completeness, labels[result.mode.name]
        problems = info["problems"]
        status = (
            "complete"
            if info["complete"]
            else "incomplete: " + "; ".join(problem["message"] for problem in problems)
        )
        coverage = percent_beside(info["coverage"], settings.min_coverage)
        unjudged = percent_beside(info["unjudged"], settings.max_unjudged)
        depth = info["pool_depth"]
        rows.append(
            (
                cell(label, _names(bench, [result.mode.name])),
                cell(f"{info['topics']}/{info['qrels_topics']} ({coverage})"),
                cell(f"{exact_number(depth['median'])} (min {depth['min']})"),
                cell(unjudged),
                cell(status),
            )
        )
        actions += [f"{label}: {problem['check']} → {problem['action']}" for problem in problems]
    actions += _qrels_actions(bench.qrels_flags, escape)
    thresholds = (
        f"Thresholds: coverage ≥ {exact_percent(settings.min_coverage)}, median judged depth "
        f"≥ {settings.min_pool_depth} (a topic judged to its end counts as deep enough), "
        f"unjudged ≤ {exact_percent(settings.max_unjudged)} of the top {at} (judged: a qrels "
        "grade ≥ 0)."
    )
    return [
        Heading(2, "Completeness"),
        Table(columns, tuple(rows)),
        Paragraph(line(thresholds)),
        Heading(3, "Problems and recovery actions (TREC R-task reference)"),
        Items(tuple(line(action) for action in actions or ["none"])),
    ]


def _qrels_actions(flags: list[dict], escape) -> list[str]:
    """One item per kind of qrels problem: its topics and the flag's recovery action."""
    flagged: dict[str, list[dict]] = {}
    for flag in flags:
        flagged.setdefault(flag["reason"], []).append(flag)
    lines = []
    for reason, same in flagged.items():
        shown = id_list([flag["qid"] for flag in same], escape, FLAGS_SHOWN)
        what = "without a relevant document" if reason == "no_relevant" else "with negative grades"
        lines.append(
            f"qrels: {plural_count(len(same), 'topic')} {what} ({shown}) → {same[0]['action']}"
        )
    return lines
