"""A benchmark (:class:`trecbench.benchmarking.Benchmark`) as Markdown: the R-task part (KPI
table against the targets, reranking improvements, completeness with its recovery
actions, routing), then compare's statistics one heading level down. The R-task part alone
is what ``trecbench benchmark`` prints and report.html's preamble.

Reads the result object only: its settings (``bench.config``), KPIs, modes and comparison.
Text from the inputs (the benchmark's name, paths, mode labels and names, qids) is escaped
reversibly as in every Markdown output (:mod:`trecbench.renderers.escaping`).
"""

from __future__ import annotations

from collections.abc import Mapping

from ..measures import but_counts
from ..plurals import counted as plural_count
from ..plurals import exact_percent, percent_beside
from .escaping import escaper

_escape = escaper("markdown")

# the target levels as the tables say them: the reference's "baseline" level is the range a
# typical BM25 run reaches, which must not read as the configured baseline mode
SHOWN_MARKS = {"below-baseline": "under-typical", "baseline": "typical", "good": "good",
               "strong": "strong"}  # fmt: skip
FLAGS_SHOWN = 10  # topic ids listed per kind of qrels problem


def markdown(bench, statistics: bool = True, escape=_escape) -> str:
    """BenchmarkComparison.md of ``bench``; without ``statistics``, the R-task part only.
    ``escape``: how input text is shown (Markdown's escaping; report.html's preamble, a
    block of plain text, shows it as :func:`~trecbench.renderers.escaping.isolated_text`
    does: ``bm25_rm3``, not ``bm25\\_rm3``)."""
    labels = {result.mode.name: escape(result.mode.label) for result in bench.modes}
    lines = [*_header(bench, labels, escape), *_kpi_table(bench, labels), *_targets(bench)]
    lines += _reranking(bench, labels)
    lines += _completeness(bench, labels, escape)
    if bench.routing is not None:
        from .routing import render_routing

        routing = render_routing(bench.routing).rstrip()
        lines += ["", f"## Routing ({bench.config.routing})", "", routing]
    if statistics:
        # compare's own text (its title dropped), one heading level down
        lines += ["", "## Statistics", ""]
        lines += [
            "#" + line if line.startswith("#") else line
            for line in bench.comparison.markdown().split("\n")[2:]
        ]
    return "\n".join(lines).rstrip("\n") + "\n"


def _header(bench, labels: Mapping[str, str], escape) -> list[str]:
    config = bench.config
    tests = config.statistics
    baseline = labels[bench.comparison.baseline]
    return [
        f"# Benchmark: {escape(config.name)}",
        "",
        f"- Qrels: {escape(config.qrels)} "
        f"({plural_count(len(bench.comparison.queries), 'topic')}); every qrels topic counts, a "
        f"mode without results for one scores 0 on it{but_counts(bench.comparison.measures)} "
        "(trec_eval -c)",
        "- Modes: "
        + "; ".join(f"{labels[r.mode.name]} = {escape(r.mode.describe())}" for r in bench.modes),
        f"- Validation: profile {bench.profile}, at most {config.max_depth} documents per topic",
        f"- Targets: {config.preset}; significance: {tests.test} test against {baseline}, "
        f"{'family-wise' if tests.registered.family_wise else tests.correction} correction, "
        f"adjusted p < {tests.alpha:g}; "
        f"{tests.samples:,} bootstrap samples, seed {tests.seed}",
    ]


def _kpi_table(bench, labels: Mapping[str, str]) -> list[str]:
    runs, baseline = bench.comparison.runs, bench.comparison.baseline
    titles = [f"{labels[mode]} (baseline)" if mode == baseline else labels[mode] for mode in runs]
    lines = [
        "",
        "## KPIs",
        "",
        "| Metric | " + " | ".join(titles) + " | Best Mode |",
        "|---|" + "---:|" * len(runs) + "---|",
    ]
    counts = _counts(bench)
    for row in bench.kpis:
        cells = [_cell(row["values"][mode], mode in row["best"]) for mode in runs]
        best = ", ".join(labels[mode] for mode in row["best"]) or "n/a"
        name = row["measure"] + (" (per-topic mean)" if row["measure"] in counts else "")
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {best} |")
    counted = (
        f" A count's mean is per topic: {', '.join(sorted(counts))} in reports/ and in "
        "`trecbench score` are sums over the topics, as trec_eval's."
        if counts
        else ""
    )
    return [
        *lines,
        "",
        "Legend: **bold** = best mean; under-typical / typical / good / strong = the mean "
        "against the targets below (typical: the range a typical BM25 run reaches; the "
        "baseline mode is the configured one); ▲/▼ = significantly better/worse than the "
        f"baseline mode (adjusted p < {bench.config.statistics.alpha:g}).{counted}",
    ]


def _counts(bench) -> set[str]:
    """The measures trec_eval sums over topics (``num_ret``...), whose mean the table
    shows per topic."""
    from ..measures.registry import COUNTS

    return {c.display for c in bench.evaluation.columns if c.summary in COUNTS}


def _cell(entry: dict, best: bool) -> str:
    text = f"{entry['mean']:.4f}"
    if best:
        text = f"**{text}**"
    if entry["mark"]:
        text += f" {SHOWN_MARKS[entry['mark']]}"
    if entry.get("significant"):
        text += " ▲" if entry["difference"] > 0 else " ▼"
    return text


def _targets(bench) -> list[str]:
    targets = bench.config.targets
    if not targets:
        return []
    lines = ["", "| Target | Typical (BM25) | Good | Strong |", "|---|---|---:|---:|"]
    for measure, target in targets.items():
        if measure in bench.comparison.measures:
            low, high = target.baseline
            span = f"{low:g}" if low == high else f"{low:g}-{high:g}"
            strong = "n/a" if target.strong is None else f"≥ {target.strong:g}"
            lines.append(f"| {measure} | {span} | ≥ {target.good:g} | {strong} |")
    return lines


def _reranking(bench, labels: Mapping[str, str]) -> list[str]:
    if not bench.reranking:
        return []
    lines = [
        "",
        "## Reranking improvement",
        "",
        "| Mode | Reranks | Measure | Before | After | Improvement |",
        "|---|---|---|---:|---:|---:|",
    ]
    for row in bench.reranking:
        change = "n/a" if row["improvement"] is None else f"{row['improvement']:+.1f}%"
        lines.append(
            f"| {labels[row['mode']]} | {labels[row['reranks']]} | {row['measure']} | "
            f"{row['baseline']:.4f} | {row['reranked']:.4f} | {change} |"
        )
    return lines


def _completeness(bench, labels: Mapping[str, str], escape) -> list[str]:
    settings = bench.config.completeness
    at = settings.unjudged_at
    lines = [
        "",
        "## Completeness",
        "",
        f"| Mode | Coverage | Judged depth (median, min) | Unjudged in top {at} | Status |",
        "|---|---:|---:|---:|---|",
    ]
    actions = []
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
        lines.append(
            f"| {label} | {info['topics']}/{info['qrels_topics']} ({coverage}) | "
            f"{info['pool_depth']['median']:g} (min {info['pool_depth']['min']}) | "
            f"{unjudged} | {status} |"
        )
        actions += [f"- {label}: {problem['check']} → {problem['action']}" for problem in problems]
    actions += _qrels_actions(bench.qrels_flags, escape)
    lines += [
        "",
        f"Thresholds: coverage ≥ {exact_percent(settings.min_coverage)}, median judged depth "
        f"≥ {settings.min_pool_depth} (a topic judged to its end counts as deep enough), "
        f"unjudged ≤ {exact_percent(settings.max_unjudged)} of the top {at} (judged: a qrels "
        "grade ≥ 0).",
        "",
        "### Problems and recovery actions (TREC R-task reference)",
        "",
    ]
    return lines + (actions or ["- none"])


def _qrels_actions(flags: list[dict], escape) -> list[str]:
    """One line per kind of qrels problem: its topics and the flag's recovery action."""
    flagged: dict[str, list[dict]] = {}
    for flag in flags:
        flagged.setdefault(flag["reason"], []).append(flag)
    lines = []
    for reason, same in flagged.items():
        qids = [escape(flag["qid"]) for flag in same]
        shown = ", ".join(qids[:FLAGS_SHOWN]) + (", ..." if len(qids) > FLAGS_SHOWN else "")
        what = "without a relevant document" if reason == "no_relevant" else "with negative grades"
        lines.append(f"- qrels: {len(qids)} topic(s) {what} ({shown}) → {same[0]['action']}")
    return lines
