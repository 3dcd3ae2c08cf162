"""The statistics over per-query values: :func:`compare_scores` (section by section)."""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from functools import partial

import numpy as np
import pandas as pd

from .. import statistical_tests, stats
from ..callbacks import refuse_uncallable
from ..errors import NoOverlapError, UsageError, option_excerpt
from ..escaping import id_list
from ..inputs.given_values import (
    given_baseline,
    given_queries,
    given_values,
    refuse_not_finite,
    refuse_summary_rows,
)
from ..measures.labels import refuse_outside_span
from . import significance
from .absent import EmptyValues, checked_empty, fill_absent
from .keywords import keywords_of, refuse_unknown, settings_from
from .overflow import refuse_overflow
from .result import Comparison
from .rows import COLUMNS, comparison_rows, pair_rows, summary_rows
from .settings import StatsSettings
from .significance import estimates_left_out, pair_tests, pairs_left_out, tested_section
from .tables import (
    NOT_IN_EVERY_RUN,
    Section,
    SectionPart,
    View,
    dropped_strata_warnings,
    held_strata,
    one_stratum_warnings,
    sections_of,
    strata_map,
    values_cube,
)

Progress = Callable[[int, int], None]


def _analyse(
    part: SectionPart,
    cube: np.ndarray,
    bounds: tuple[np.ndarray, np.ndarray] | None,
    qids: list[str],
    runs: list[str],
    measures: list[str],
    baseline: int,
    statistics: StatsSettings,
    advance: Callable[[int], None] | None,
) -> tuple[dict[str, list[dict]], Section]:
    """Summary, comparison, pair and mover rows of one section (``cube``: queries x runs
    x measures of its topics, ``bounds`` the per-topic tie bounds alike), and the section
    with what its tests can say (:func:`~.significance.tested_section`).

    ``advance(done)`` is told how many resamples of this section are done (bootstrap
    first, then the test's own).
    """
    n, n_runs, n_measures = cube.shape
    view = View(part, cube.transpose(0, 2, 1).reshape(n, n_measures * n_runs), n_runs)
    boot = stats.bootstrap_means(
        view.flat, statistics.samples, statistics.seed, _stage(advance, 0), strata=part.strata
    )
    result = {
        "summary": summary_rows(view, boot, bounds, runs, measures, statistics),
        "comparisons": [],
        "pairs": [],
        "movers": [],
    }
    section = tested_section(part.section, statistics, n_runs)
    if n_runs < 2:
        return result, _noted(section, estimates_left_out(result, statistics.samples))
    every = n_runs <= significance.PAIRS_RUNS
    pairs = [
        (m, i, j)
        for m in range(n_measures)
        for i in range(n_runs)
        for j in range(i + 1, n_runs)
        if every or baseline in (i, j)
    ]
    progress = _stage(advance, statistics.samples)
    p, why = pair_tests(view, pairs, boot, statistics, progress)
    if every:
        result["pairs"] = pair_rows(view, pairs, (p, why), runs, measures, statistics, section)
    p_of = {pair: k for k, pair in enumerate(pairs)}
    compared = [(m, r) for m in range(n_measures) for r in range(n_runs) if r != baseline]
    chosen = [p_of[(m, min(r, baseline), max(r, baseline))] for m, r in compared]
    tested = (p[chosen], [why[k] for k in chosen])
    result["comparisons"], result["movers"] = comparison_rows(
        view, boot, compared, tested, qids, runs, measures, baseline, statistics, section
    )
    # each family is corrected apart (stats.adjust over every measure's p-values at once)
    families = {significance.BASELINE_FAMILY: p[chosen]}
    if every:
        families[significance.PAIRS_FAMILY] = p
    section = significance.corrected_section(section, statistics, n_runs, families)
    if not every:
        section = _noted(section, pairs_left_out(n_runs))
    return result, _noted(section, estimates_left_out(result, statistics.samples))


def _noted(section: Section, note: str | None) -> Section:
    """``section`` with ``note`` after its notes (as it is, without one)."""
    return section if note is None else replace(section, notes=(*section.notes, note))


def _stage(advance: Callable[[int], None] | None, offset: int) -> stats.Progress | None:
    return None if advance is None else lambda done, _total: advance(offset + done)


@keywords_of(StatsSettings)
def compare_scores(
    per_query: pd.DataFrame | Iterable[Mapping],
    *,
    queries: Sequence[str] | None = None,
    baseline: str | None = None,
    strata: Mapping | pd.DataFrame | str | os.PathLike | None = None,
    group_by: str | Sequence[str] | None = None,
    progress: Progress | None = None,
    bounds: pd.DataFrame | None = None,
    empty: EmptyValues | None = None,
    statistics: StatsSettings | None = None,
    **settings,
) -> Comparison:
    """Statistics over per-query values (``run, qid, measure, value``; see
    :func:`~trecbench.comparison.compare`): a DataFrame or records, its columns also named
    as PyTerrier (``name``) and ir_measures (``query_id``) name them, its ids read as every
    input's are (:mod:`trecbench.inputs.given_values`: strings, integers in decimal; missing,
    float and mixed ids refused), its values numbers.

    ``queries`` are the topics that count with ``missing="zero"`` (the qrels topics);
    default: every qid in ``per_query``. ``baseline``: a run's name (default: the first
    run). ``strata`` (:func:`~trecbench.comparison.tables.strata_map`): a sidecar path or
    the table :func:`trecbench.load_strata` reads, with ``group_by`` naming its fields (or
    ``group_by="qid-prefix"`` alone); or a mapping of qid to a stratum value (the field
    named ``group_by``), of field to such a mapping (several groupings), or the sidecar's
    per-topic ``{qid: {field: value}}`` (``group_by`` naming its fields). A topic held
    without a value (None, NaN, NA) is in ``(none)``, as a sidecar's; topics a mapping
    does not hold are left out of that field's sections, not out of the overall analysis.
    ``bounds`` (``run, qid, measure, low, high``) are per-topic tie bounds
    (:attr:`trecbench.Evaluation.tie_bounds_per_query`). ``empty``: per run, measure and
    topic, what the run scores on a topic it has no results for with ``missing="zero"``,
    where that is not 0 (:mod:`trecbench.comparison.absent`). The statistics settings are a
    :class:`StatsSettings` (``statistics``) or its fields as keywords (``test``,
    ``correction``, ``samples``, ``seed``, ``confidence``, ``missing``, ``movers``: how
    many topics to list per run, measure and direction), which then replace its own.
    """
    refuse_uncallable(progress, "progress(done, total)")
    statistics = settings_from(StatsSettings, statistics, settings, "statistics")
    refuse_unknown("compare_scores", settings)
    given = given_values(per_query, "per_query")
    per_query, runs, measures, baseline = _checked(given.frame, given_baseline(baseline))
    if queries is None:  # else the topics that count are named: no summary line is one
        refuse_summary_rows(per_query, "; or name the topics, queries=[...]")
    queries = given_queries(queries, given)
    universe, absent = _topics(per_query, runs, queries, statistics.missing)
    strata, read_as = held_strata(strata, group_by), ("per_query", given.integer_qids)
    fields = strata_map(strata, group_by, universe, *read_as)
    group_fields = list(fields or {})
    empty = checked_empty(empty)
    cube, tie_cubes = _cubes(per_query, bounds, runs, measures, universe, empty)
    refuse_overflow(cube, measures)
    record = statistics.record(baseline, measures, group_fields, bounds is not None)
    parts = sections_of(universe, fields)
    index = runs.index(baseline)
    rows = _sections(parts, cube, tie_cubes, universe, runs, measures, index, statistics, progress)
    frames = {name: pd.DataFrame(rows[name], columns=columns) for name, columns in COLUMNS.items()}
    return Comparison(
        runs=runs,
        baseline=baseline,
        measures=measures,
        queries=universe,
        settings=record,
        sections=[part.section for part in parts],
        summary=frames["summary"],
        comparisons=frames["comparisons"],
        pairs=frames["pairs"],
        movers=frames["movers"],
        per_query=_tidy(cube, runs, universe, measures),
        missing=absent,
        strata=None
        if fields is None
        else {f: {q: m[q] for q in universe if q in m} for f, m in fields.items()},
        warnings=[
            *_outside_queries(per_query, queries),
            *one_stratum_warnings(parts),
            *dropped_strata_warnings(
                strata, group_by, universe, _dropped(absent, universe), NOT_IN_EVERY_RUN, read_as
            ),
        ],
    )


def _dropped(absent: dict[str, list[str]], universe: list[str]) -> list[str]:
    """The topics some run has no value for that are not analysed (``missing="drop"``)."""
    return sorted({qid for topics in absent.values() for qid in topics} - set(universe))


def _outside_queries(per_query: pd.DataFrame, queries: list[str] | None) -> list[str]:
    """The warning of the topics ``per_query`` gives values for that ``queries`` leaves out
    (they were left out without a word), as score says of a run's topics the qrels lack."""
    from ..plurals import counted

    outside = [] if queries is None else sorted(set(per_query["qid"].unique()) - set(queries))
    if not outside:
        return []
    topics = counted(len(outside), "topic")
    return [f"per_query's values of {topics} not among queries are left out: {id_list(outside)}"]


def _refuse_two_spellings(measures: list[str]) -> None:
    """Refuse one measure given by two spellings (``P_5`` and ``P@5``), as compare refuses
    it asked so: tested twice, it was counted twice in the correction (Holm doubled its
    p). A name the registry does not know is a measure of its own."""
    from ..errors import TrecbenchError
    from ..measures.labels import looked_up

    seen: dict = {}
    for name in measures:
        try:
            measure = looked_up(name)
        except TrecbenchError:
            continue
        if measure in seen:
            raise UsageError(
                f"{seen[measure]} and {name} are one measure ({measure.canonical}): compare "
                "shows and tests each measure once; give its values by one spelling"
            )
        seen[measure] = name


def _checked(per_query: pd.DataFrame, baseline: str | None):
    """``(per_query, runs, measures, the baseline)`` of values read
    (:func:`~trecbench.inputs.given_values.given_values`); undefined or infinite values,
    no values at all and an unknown baseline refused."""
    refuse_not_finite(per_query)
    refuse_outside_span(per_query)
    # unique() keeps the order of first appearance, as dict.fromkeys would, without
    # iterating element by element over Arrow-backed strings (~1 s on 20 x 10,000 rows)
    runs = per_query["run"].unique().tolist()
    measures = per_query["measure"].unique().tolist()
    if not runs:
        raise UsageError("nothing to compare: no per-query values")
    _refuse_two_spellings(measures)
    baseline = runs[0] if baseline is None else baseline
    check_baseline(baseline, runs)
    return per_query, runs, measures, baseline


def check_baseline(baseline: str | None, runs: list[str]) -> None:
    """Refuse a ``baseline`` (None: the first run) that is none of the ``runs``' names:
    compare checks it before any run is scored, and again of the values compared."""
    if baseline is not None and baseline not in runs:
        listed = id_list(runs, limit=None)  # a run's name as a list's item
        raise UsageError(f"baseline {option_excerpt(baseline)} is not one of the runs: {listed}")


def _sections(
    parts, cube, tie_cubes, universe, runs, measures, baseline: int,
    statistics: StatsSettings, progress: Progress | None,
) -> dict[str, list[dict]]:  # fmt: skip
    """The rows of every section (summary, comparisons, pairs, movers), each section's
    ``part.section`` replaced by what its tests can say; ``progress(done, total)`` counts
    every section's resamples."""
    own_draws = statistical_tests.SAMPLES in statistics.registered.options
    passes = 2 if own_draws and statistics.test != "bootstrap" and len(runs) > 1 else 1
    samples = statistics.samples
    total = passes * samples * len(parts)
    rows: dict[str, list[dict]] = {name: [] for name in COLUMNS}
    for k, part in enumerate(parts):
        advance = None
        if progress is not None:

            def advance(done: int, _offset: int = k * passes * samples) -> None:
                progress(_offset + done, total)

        section_bounds = None if tie_cubes is None else tuple(c[part.rows] for c in tie_cubes)
        found, tested = _analyse(
            part,
            cube[part.rows],
            section_bounds,
            [universe[i] for i in part.rows],
            runs,
            measures,
            baseline,
            statistics,
            advance,
        )
        for name, found_rows in found.items():
            rows[name] += found_rows
        part.section = tested
    return rows


def _tidy(cube: np.ndarray, runs, universe, measures) -> pd.DataFrame:
    """The values analysed as a tidy table (``run, qid, measure, value``)."""
    return pd.DataFrame(
        {
            "run": np.repeat(runs, len(universe) * len(measures)),
            "qid": np.tile(np.repeat(universe, len(measures)), len(runs)),
            "measure": np.tile(measures, len(universe) * len(runs)),
            "value": cube.transpose(1, 0, 2).ravel(),
        }
    )


def _topics(per_query: pd.DataFrame, runs, queries, missing: str):
    """``(topics analysed, {run: the topics it has no value for})`` (see ``missing``)."""
    evaluated = {
        run: set(frame["qid"].unique().tolist())
        for run, frame in per_query.groupby("run", sort=False)
    }
    every = per_query["qid"].unique().tolist() if queries is None else queries
    topics = sorted(set(every))
    absent = {run: [qid for qid in topics if qid not in evaluated[run]] for run in runs}
    universe = topics
    if missing == "drop":
        universe = [qid for qid in topics if all(qid in evaluated[run] for run in runs)]
    if not universe:
        raise NoOverlapError("no topic is evaluated in every run (missing='drop')")
    return universe, absent


def _cubes(per_query, bounds, runs, measures, universe, empty: EmptyValues | None):
    """The values cube (a run's absent topic scores 0, or its ``empty`` value) and, with
    ``bounds``, the tie bounds' low and high cubes alike."""
    cube = values_cube(per_query, runs, measures, universe)
    absent_pairs = np.isnan(cube)  # only absent (run, qid) pairs are NaN here
    fill_absent(cube, absent_pairs, runs, measures, universe, empty)
    if bounds is None:
        return cube, None
    bounds = given_values(bounds, "bounds", ("low", "high")).frame
    tie_cubes = tuple(
        values_cube(bounds, runs, measures, universe, side) for side in ("low", "high")
    )
    for side in tie_cubes:  # no results: the same value in every order
        fill_absent(side, absent_pairs, runs, measures, universe, empty)
    return cube, tie_cubes


def from_evaluation(
    evaluation,
    statistics: StatsSettings | None = None,
    *,
    strata: pd.DataFrame | None = None,
    group_by: Sequence[str] = (),
    progress: Callable[[str, int, int | None], None] | None = None,
) -> Comparison:
    """A Comparison of an :class:`~trecbench.Evaluation`'s runs for ``score --html``'s
    page (the first run is the baseline), with its inputs: the per-topic means score
    prints. Under ``-c`` the runs are compared on every qrels topic, a topic a run lacks
    counting 0, as score's means count it (``missing="zero"``); else on the topics every
    run holds (``missing="drop"``), and where the runs' topics differ, score's means
    (each run's own topics) are not the page's, as ``warnings`` says. Measures score sums
    over topics (counts) or has no per-topic value for (``gm_map``, ``num_q``) are left
    out, named in ``warnings``, and so are the measures undefined or infinite on a topic
    (:func:`_defined_measures`); none left is a :class:`UsageError`, and no topic in every
    run without ``-c`` a :class:`NoOverlapError` (exit 7, as compare's). ``group_by``: the
    fields score grouped by (of the sidecar's ``strata`` table,
    :func:`trecbench.strata.read_sidecar`, or ``qid-prefix``), each a macro section and a
    section per stratum, as compare's. ``statistics``: compare's defaults
    (:class:`StatsSettings`: 10,000 resamples, seed 0), so that the same runs have the same
    intervals on both pages; its ``missing`` is the one above. Where the runs were scored
    with tie bounds (``score --tie-bounds``), the page has compare's tie sensitivity.
    ``progress(label, done, total)`` is told the resamples drawn (``resampling``), as
    :func:`~trecbench.comparison.compare` tells them."""
    from ..measures.registry import MEAN, RUNID

    means = [c.display for c in evaluation.columns if c.summary == MEAN]
    # the run's tag needs no word: the page names its runs
    left_out = [c.display for c in evaluation.columns if c.summary not in (MEAN, RUNID)]
    if not means:
        raise UsageError(
            f"--html: the page compares the runs' per-topic means, and {', '.join(left_out)} "
            f"{'has' if len(left_out) == 1 else 'have'} none (a count, a summary over "
            "topics or text): ask a measure averaged over topics"
        )
    per_query = _of_means(evaluation.per_query_values, means, evaluation.shown)
    per_query, undefined = _defined_measures(per_query)
    bounds = None
    if evaluation.settings.tie_bounds:  # kept as the runs were scored
        bounds = _of_means(evaluation.tie_bounds_per_query_values, means, evaluation.shown)
        bounds = bounds[~bounds["measure"].isin(undefined)]
    complete = evaluation.settings.complete
    held = [set(run.qids) for run in evaluation.runs]
    if not complete and held and not set.intersection(*held):
        raise NoOverlapError(
            "--html: no topic is in every run, and the page pairs the runs on the topics "
            "they share: give -c to count a topic a run lacks as 0"
        )
    # the topics named: the evaluation's values hold no summary row, and a topic named
    # 'all' is one (compare_scores refuses such rows of values it is given unnamed)
    topics = sorted(evaluation.qrels_topics) if complete else per_query["qid"].unique().tolist()
    comparison = compare_scores(
        per_query,
        queries=topics,
        strata=strata_map(strata, group_by, topics) if group_by else None,
        group_by=list(group_by) or None,
        bounds=bounds,
        statistics=statistics or StatsSettings(),
        missing="zero" if complete else "drop",
        progress=None if progress is None else partial(progress, "resampling"),
    )
    _warn_of_page_differences(comparison, evaluation, left_out, complete)
    comparison.warnings += [_undefined_left_out(undefined)] if undefined else []
    _record_scoring(comparison, evaluation)
    return comparison


def _defined_measures(per_query: pd.DataFrame) -> tuple[pd.DataFrame, dict[str, tuple]]:
    """``per_query`` without the measures undefined (trec_eval's -nan: ``-J`` leaving
    nothing judged in the cut) or infinite on a topic, and those measures -> the first such
    ``(run, qid, value)``: the page's intervals and paired tests take no such value (compare
    refuses it), and its mean is trec_eval's -nan, so the page leaves the measure out, as
    it leaves out the counts, where score prints every value; none left is refused, before
    score prints anything (an --html call writes all or nothing)."""
    values = per_query["value"].to_numpy(dtype=np.float64)
    finite = np.isfinite(values)
    if finite.all():
        return per_query, {}
    undefined: dict[str, tuple] = {}
    for row in per_query[~finite].itertuples(index=False):
        undefined.setdefault(row.measure, (row.run, row.qid, row.value))
    kept = per_query[~per_query["measure"].isin(undefined)]
    if kept.empty:
        raise UsageError(
            f"--html: the page cannot show {_undefined_text(undefined)}: its intervals and "
            "paired tests take no such value, and no other measure averaged over topics is "
            "left for it: leave out --html to print the scores (-nan or nan where undefined, "
            "as trec_eval prints them), or ask a measure defined on every topic"
        )
    return kept, undefined


def _undefined_text(undefined: dict[str, tuple]) -> str:
    """``m (run 'a' on 't3' and maybe more), ...``: each measure and its first value."""
    return ", ".join(
        f"{measure} ({'undefined' if math.isnan(value) else value} for run {run!r} on {qid!r})"
        for measure, (run, qid, value) in undefined.items()
    )


def _undefined_left_out(undefined: dict[str, tuple]) -> str:
    """The warning of the measures the page leaves out for an undefined value."""
    return (
        f"the page leaves out {_undefined_text(undefined)}: its intervals and paired tests "
        "take no such value (score's output prints every value, -nan or nan where undefined, "
        "as trec_eval prints them)"
    )


def _warn_of_page_differences(
    comparison: Comparison, evaluation, left_out: list[str], complete: bool
) -> None:
    """Warn where the page's numbers are not score's: measures ``left_out`` (no per-topic
    means), and means over the shared topics when the runs' topics differ (without -c)."""
    from ..plurals import counted

    if left_out:
        comparison.warnings.append(
            f"the page compares per-topic means: {', '.join(left_out)} (summed over topics, "
            "a summary of them or text in score's output) are not on it"
        )
    topics = {run.name: set(run.qids) for run in evaluation.runs}
    if not complete and len({frozenset(held) for held in topics.values()}) > 1:
        shared = counted(len(set.intersection(*topics.values())), "topic")
        comparison.warnings.append(
            f"the page pairs the runs on the {shared} every run holds: its means are not "
            "score's, which are over each run's own topics (with -c, over every qrels topic)"
        )


def _record_scoring(comparison: Comparison, evaluation) -> None:
    """The inputs, ontology, run files, drill-downs, scoring flags and scoreless topics
    of ``evaluation``, recorded on the page's ``comparison``."""
    from ..report import evaluation_provenance, evaluation_records

    # every file a number was computed from: the ontology and a -Z file too
    comparison.inputs = evaluation_records(evaluation)
    # and which HPO release and formula MaxOntSim used, as score's report and compare's
    # page say it (docs: maxontsim)
    comparison.ontology = evaluation_provenance(evaluation)[1]
    comparison.run_inputs = {run.name: run.path for run in evaluation.runs if run.path}
    # the qrels every run was scored with: the header's Qrels line and the scoreless
    # topics' note name the file, as compare's page does (None: a table, "in memory")
    comparison.run_qrels = dict.fromkeys(
        (run.name for run in evaluation.runs), evaluation.qrels_path
    )
    comparison.keep_drill_downs(evaluation.runs)
    # every flag the runs were scored with, as score's report records them (-N, -Z and
    # -D level.qid change the page's numbers too); the drill-down ranks and scores with
    # those of its curve (-l, -M, -J, -c, trec_eval 10.0's ranking) and -R (prefs grade
    # no document: no drill-down)
    comparison.evaluation = evaluation.settings.record()
    comparison.scoreless = scoreless([evaluation.flagged], comparison.queries)


def _of_means(frame: pd.DataFrame, means: list[str], shown) -> pd.DataFrame:
    """The rows of ``frame`` (``run, qid, measure, ...``) of the measures ``means``, each
    measure named as score prints it (``shown``: after a Z under -Z)."""
    frame = frame[frame["measure"].isin(means)]
    return frame.assign(measure=frame["measure"].map(shown))


def scoreless(flag_lists, topics: list[str]) -> list[str]:
    """The ``topics`` whose qrels hold no relevant document for every run, as each
    evaluation's flags (:class:`~trecbench.evaluation.results.FlaggedTopic`, one list per
    qrels) say: the measures of relevant documents are 0 there for every run, and they
    count (score says so on stderr; a comparison's page and reports must too)."""
    flagged = [{f.qid for f in flags if f.reason == "no_relevant"} for flags in flag_lists]
    every = set.intersection(*flagged) if flagged else set()
    return [qid for qid in topics if qid in every]
