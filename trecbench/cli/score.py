"""``trecbench score``: trec_eval's command line, and a friendly KPI table."""

from __future__ import annotations

import contextlib

import click

from ..text_bytes import utf8
from . import progress as bars  # looked up when called: tests draw them as on a terminal
from . import small
from .evaluation_options import (
    check_formula_used,
    evaluation_options,
    jobs_option,
    memory_option,
    unjudged_threshold_option,
)
from .group import cli, echo_input_warnings, echo_warning, echo_written
from .long_prefixes import TrecEvalCommand
from .paths import INPUT_FILE, PAGE_FILE, QRELS_INPUT, RUN_PATTERN
from .report_options import report_options
from .score_page import (
    files_after_stdout,
    files_written,
    html_page_of,
    resampling_record,
    write_files,
)
from .score_sections import (
    check_strata_first,
    read_routing_first,
    with_routing,
    with_unjudged_bounds,
)
from .shared_options import (
    DecimalInt,
    format_option,
    html_depth_option,
    measure_values,
    quiet_option,
)
from .stdout import echo_bytes

FORMATS = ("trec", "table", "markdown", "csv", "json")


@cli.command(cls=TrecEvalCommand)
@click.option(
    "-m",
    "--measure",
    "measure",
    multiple=True,
    callback=measure_values,
    metavar="NAME[.PARAMS]",
    help="Measures to compute (repeatable; several per value, separated by spaces): "
    "trec_eval (ndcg_cut.10, P.5,10, iprec_at_recall..10, ndcg.1=3,2=9) or its labels "
    "(ndcg_cut_10, P_5), ir_measures with parameters (nDCG@10, P(rel=2)@5, "
    "\"nDCG(dcg='exp-log2')@10\", RBP(p=0.8), Judged@10, ERR@10), display and seed names "
    "(MAP@100, MRR@10, HitRate@10, hit@10, Recall_all@10, MaxOntSim@10); nicknames "
    "official, all_trec, set. `trecbench measures` lists them all. Default: the KPI preset.",
)
@click.option("-q", "--query_eval_wanted", "query", is_flag=True, help="Also print each topic.")
@click.option(
    "-c",
    "--complete_rel_info_wanted",
    "complete",
    is_flag=True,
    help="Average over every qrels topic; topics missing from the run count as 0.",
)
@click.option("-n", "--nosummary", "nosummary", is_flag=True, help="Do not print the summary.")
@evaluation_options
@click.option(
    "-N",
    "--Number_docs_in_coll",
    "ndocs",
    type=DecimalInt(),
    default=None,
    help="Number of documents in the collection (used by utility).",
)
@click.option(
    "-R",
    "--Rel_info_format",
    "rel_format",
    type=click.Choice(("qrels", "prefs", "qrels_prefs", "qrels_jg")),
    default=None,
    help="Format of QRELS: qrels (default), prefs (qid jg jsg docno level), qrels_prefs "
    "(qrels read as preferences) or qrels_jg (the second column is a judgment group).",
)
@click.option(
    "-T",
    "--Results_format",
    "results_format",
    type=click.Choice(("trec_results",)),
    default=None,
    help="Format of RUNS: trec_results, trec_eval's one (accepted so that its command "
    "lines run; trecbench tells a run's format by its content).",
)
@click.option(
    "-o",
    "old_results_format",
    is_flag=True,
    help="Obsolete in trec_eval, where it does nothing: accepted, and does nothing.",
)
# trec_eval's long -o takes a value (its getopt table says so, unlike -o): the next word
@click.option(
    "--Output_old_results_format",
    "old_results_value",
    metavar="VALUE",
    help="trec_eval's long -o, which takes a value: accepted, and ignored.",
)
@click.option(
    "-Z",
    "--Zscore",
    "zscores",
    type=INPUT_FILE,
    default=None,
    help="Print per-topic values as z-scores, from a file of 'qid measure mean stddev'.",
)
@click.option(
    "-D",
    "--Debug_level",
    "debug",
    metavar="LEVEL[.QID]",
    default=None,
    help="trec_eval's debug output: the traces of ndcg, G, binG, prefs... at LEVEL; "
    "'.QID' evaluates that topic only.",
)
@click.option(
    "--compat",
    type=click.Choice(("9.0.8", "10.0")),
    default=None,
    help="The trec_eval reproduced: 9.0.8 (default; pytrec_eval's) or 10.0 (float64 "
    "scores, rbp/unj, -c prints missing topics; see the docs' trec-eval.md).",
)
@format_option(
    FORMATS,
    "trec: trec_eval's text; table, markdown: one row per run; csv: run, qid, "
    "measure, canonical, value; json: everything but --routing's metrics (in --report). "
    "Only this option chooses the format.",
)
@click.option(
    "--labels",
    "names",
    type=click.Choice(("trec", "display", "asked")),
    default=None,
    help="Measure labels: trec_eval's (ndcg_cut_10), display names (nDCG@10) or as asked "
    "with -m (ndcg_cut.10). Default: trec for --format trec, as asked otherwise. The "
    "--html page names measures by display name whatever this says.",
)
@click.option(
    "--names",
    "run_names",
    multiple=True,
    metavar="NAME=RUN",
    help="Name a run in tables, CSV, JSON, Markdown and reports (repeatable; default: its "
    "file's stem, with parent folders when two share one). trec_eval text prints its tag.",
)
@click.option(
    "--strata",
    type=INPUT_FILE,
    default=None,
    help="Sidecar JSON written by 'trecbench convert': per-query strata for --group-by; qrels "
    "it calls complete are not doubted (no warning; --unjudged-bounds' high is the value).",
)
@click.option(
    "--group-by",
    "group_by",
    multiple=True,
    metavar="FIELD",
    help="Also report per-group means, their macro mean and the micro mean over queries, "
    "by a stratum of --strata (language, difficulty, repo...) or by qid-prefix (the "
    "text before the last '/'). Repeatable.",
)
@click.option(
    "--engine",
    type=click.Choice(("auto", "pytrec_eval", "fast")),
    default="auto",
    show_default=True,
    help="Who computes trec_eval's measures: pytrec_eval (trec_eval's own code), fast "
    "(vectorised: P, recall, success, map, map_cut, ndcg, ndcg_cut, recip_rank, Rprec, "
    "num_*, iprec_at_recall, MRR@k, HitRate@k, Recall_all@k) or auto (fast when it "
    "computes every measure). A measure the engine does not compute is computed by one "
    "that does, with a warning.",
)
@click.option(
    "--tie-bounds",
    "tie_bounds",
    is_flag=True,
    help="Also print, per run and measure, the lowest and highest value over every order "
    "of tied documents (equal scores): :tie_low and :tie_high lines in trec text; the "
    "table also says whether trec_eval's order is at an end.",
)
@click.option(
    "--unjudged-bounds",
    "unjudged_bounds",
    is_flag=True,
    help="Also print, per run and measure, the value with every unjudged document the "
    "measure looks at judged relevant at the qrels' top grade, and the unjudged share "
    "(kept while each run is scored: every input is read once, so a run from standard "
    "input has them too).",
)
@unjudged_threshold_option
@memory_option
@jobs_option
@click.option(
    "--dask",
    "dask_address",
    default=None,
    metavar="ADDRESS|local:N",
    help="Score each run on a Dask cluster (the scheduler's address, or local:N for N local "
    "worker processes): typed and shuffled by topic on the workers, averaged here; the "
    "output is the same. A RUN may then be a quoted glob of Parquet or TREC files, or a "
    "folder of them (together one run); --memory and --jobs are refused with it (the "
    "workers bound their own memory), and so are --compat 10.0, -R other than qrels, -Z, "
    "-D and the measures only trecbench's native ports compute (runs read whole). Needs "
    "trecbench[dask].",
)
@click.option(
    "--routing",
    type=INPUT_FILE,
    default=None,
    metavar="LOG",
    help="Routing log (JSON lines: qid, chosen_expert, optimal_expert, retrieval_ran, "
    "should_retrieve): routing accuracy and gate efficiency with bootstrap percentile "
    "intervals over the log's queries (accuracy: those with an optimal expert; 10,000 "
    "resamples, seed --seed), printed after the table (table and markdown formats) and "
    "recorded in --report.",
)
@click.option(
    "--html",
    "html_page",
    type=PAGE_FILE,
    default=None,
    help="Also write one self-contained page for a browser: the runs' means with intervals, "
    "figures, every topic's values and documents (the html extra).",
)
@html_depth_option("Documents per run and topic in the --html page's drill-down (0: none).")
@click.option(
    "--seed",
    type=DecimalInt(min=0),
    default=0,
    show_default=True,
    help="Seed of the resampling behind --routing's and --html's intervals (10,000 "
    "resamples each), recorded in --report; refused without either, which draw nothing.",
)
@quiet_option
@report_options
@click.argument("qrels", type=QRELS_INPUT)
@click.argument("runs", nargs=-1, required=True, type=RUN_PATTERN)
@small.small_path  # a small plain run: scored without Arrow (issue 31)
def score(
    qrels,
    runs,
    output_format,
    names,
    maxontsim_formula,
    ontology,
    strata,
    group_by,
    tie_bounds,
    unjudged_threshold,
    memory,
    jobs,
    dask_address,
    routing,
    html_page,
    html_depth,
    seed,
    unjudged_bounds,
    **flags,
):
    """Score RUNS against QRELS, exactly like trec_eval 9.0.8 (or 10.0: --compat 10.0).

    Accepts trec_eval's options (-q -c -n -l N -M N -J -N N -R F -T F -o -Z F -D L, -m
    repeated) and prints what trec_eval prints, byte for byte; --format table (or
    markdown, csv, json) for other views. Without -m it computes the KPI preset (nDCG@10, MAP@100,
    MRR@10, Recall@50, Recall@100, HitRate@10); `-m official` is trec_eval's own default.
    MRR@10 is reciprocal rank on the run cut at 10 (trec_eval -M 10 -m recip_rank),
    labelled recip_rank_cut_10 in trec_eval format.

    \b
    Examples:
      trecbench score qrels/hpo-demo.qrels runs/*.run --format table
      trecbench score -q -m official qrels/hpo-demo.qrels runs/tfidf-char.run
      trecbench score -m all_trec -q -c -M100 qrels/hpo-demo.qrels runs/tfidf-char.run
      trecbench score --compat 10.0 -q -c -m all_trec qrels/hpo-demo.qrels runs/tfidf-char.run
      trecbench score -R qrels_prefs -m all_prefs -q qrels/hpo-demo.qrels runs/tfidf-char.run
      trecbench score --format json -m nDCG@10 -m P.5,10 qrels/hpo-demo.qrels runs/tfidf-char.run
      trecbench score -m "nDCG(dcg='exp-log2')@10 AP(normalize='min')@100 Judged@10" \\
        qrels/hpo-demo.qrels runs/tfidf-char.run
      trecbench score qrels/hpo-demo.qrels runs/tfidf-char.run --report out/r.json \\
        --manifest out/m.json --meta model=tfidf-char
      trecbench score qrels/hpo-demo.qrels runs/*.run --strata qrels/hpo-demo.sidecar.json \\
        --group-by difficulty --group-by language
      trecbench score data/hpo-rtask/hpo-rtask.qrels data/hpo-rtask/lexical.run \\
        --routing data/hpo-rtask/routing.jsonl --format table
      trecbench score qrels/hpo-demo.qrels runs/tfidf-char.run -m P@5 -m nDCG@10 --tie-bounds
      trecbench score qrels/hpo-demo.qrels runs/*.run --html out/scores.html
      trecbench score qrels/hpo-demo.qrels runs/tfidf-char.run --unjudged-bounds
      trecbench score --memory 2048 qrels.txt huge.run.gz    # not bundled: your files
      trecbench score --dask local:2 -m nDCG@10 qrels.txt \\
        'shards/*.parquet'    # not bundled: your files, and trecbench[dask]
    """
    from .. import naming
    from ..evaluation.flag_warnings import undefined_warnings
    from ..provenance import new_stamp
    from ..renderers.score import ScoreView, groups_json, render_score, topics_read_as_rows

    given = [qrels, *runs, ontology, strata, routing, flags["zscores"]]
    _refuse_unused(dask_address, memory, jobs, routing, html_page)
    runs = _checked_before_the_work(given, runs, flags, dask_address, html_page, html_depth)
    check_formula_used(flags["measure"], maxontsim_formula, ontology)
    view = ScoreView(output_format, names, flags["query"], not flags["nosummary"], tie_bounds)
    local = {"maxontsim_formula": maxontsim_formula, "ontology": ontology}
    # the page's drill-down is kept as the runs are read (inputs are read once), and
    drill_depth = html_depth if html_page is not None else None
    # so are the unjudged bounds (a pipe serves as well as a file)
    settings = _settings(flags, local, tie_bounds, memory, jobs, drill_depth, unjudged_bounds)
    check_strata_first(strata, group_by)
    log = read_routing_first(routing)  # the side files before the runs
    named = naming.named_runs(given[1 : len(runs) + 1], flags["run_names"])
    evaluation = _evaluation(qrels, runs, named, flags, settings, view, dask_address, html_page)
    echo_input_warnings()
    _warn(_evaluation_warnings(evaluation, unjudged_threshold, strata))
    grouped, notes, sidecar = _grouped(evaluation, strata, group_by, qrels)
    rows = topics_read_as_rows(evaluation, flags["query"], grouped)
    left_out = _text_measures_left_out(evaluation, output_format)
    _warn([*rows, *notes, *left_out, *_unbounded(evaluation, view, tie_bounds, output_format)])
    text = render_score(evaluation, view, grouped)
    bounded, text = with_unjudged_bounds(text, evaluation, view, unjudged_bounds, strata)
    reported = flags["report"] is not None
    routed, text = with_routing(text, log, output_format, evaluation.qrels_topics, reported, seed)
    grouping = (strata, sidecar, group_by)
    stamp = new_stamp()  # the page's, the report's and the manifest's alike
    page = html_page_of(evaluation, html_page, html_depth, grouping, flags["quiet"], seed, stamp)
    _warn(undefined_warnings(evaluation))  # once the page took them (or refused: nothing said)
    inputs = {"strata": strata, "routing": routing}
    written = files_written(flags, html_page)
    # the files written whole, standard output printed, then the files renamed into place
    # (no space needed): a full disk prints nothing, a full stdout replaces no file
    with files_after_stdout(written):
        resampled = resampling_record(seed, routed, page)
        groups = groups_json(grouped)
        if written:  # (else the reports' module is not imported: 2 ms)
            write_files(
                evaluation, flags, inputs, groups, notes, routed, page, bounded, resampled, stamp
            )
        echo_bytes(utf8(text))  # bytes: written untranslated
    for path in written:  # each said once in place, as compare and benchmark say theirs
        echo_written(path)


def _checked_before_the_work(given, runs, flags, dask_address, html_page, html_depth):
    """The runs to score (Dask's: the files of each glob found, and recorded as inputs of
    the call), once none is given twice, no input ``given`` is an output, none but one
    reads standard input, and the --html page's depth is one it can have: all before the
    work, not once the runs are scored."""
    given_runs = runs
    if dask_address is not None:  # its files inputs of the call: none may be an output
        from ..dask import DaskRun

        runs = [DaskRun(run) for run in runs]
    _check_targets(given, given_runs, flags, html_page)
    if html_page is not None:
        from ..html_report.documents import check_drill_depth

        check_drill_depth(html_depth, "html_depth")
    return runs


def _refuse_unused(dask_address, memory, jobs, routing, html_page) -> None:
    """Options that would change nothing, refused before the work: --memory or --jobs with
    --dask (:func:`~trecbench.dask_cluster.refuse_local_bounds`), --seed without --routing
    or --html, --html-depth without --html (as fuse's --seed without --optimize is)."""
    from ..errors import UsageError
    from .group import given

    if dask_address is not None:
        from ..dask_cluster import refuse_local_bounds

        refuse_local_bounds(memory, jobs, cli=True)
    if given("seed") and routing is None and html_page is None:
        raise UsageError("--seed seeds the intervals of --routing and --html: give one of them")
    if given("html_depth") and html_page is None:
        raise UsageError("--html-depth is the drill-down depth of the --html page: give --html")


def _check_targets(given: list, runs: list, flags, html_page) -> None:
    """Refuse, before any work, an output that is one of the ``given`` inputs, two of
    them reading standard input or one pipe, and a run given twice (as compare does: it
    was 'name them apart', which --names refused too, or, spelt two ways, scored twice);
    --meta with nothing to record it in."""
    from ..errors import UsageError
    from ..naming import check_read_once, check_runs_once

    check_read_once(given)
    check_runs_once(runs)
    if flags["meta"] and flags["report"] is None and flags["manifest"] is None:
        raise UsageError("--meta is recorded in --report and --manifest: give one of them")
    if not files_written(flags, html_page):
        return  # no file to write: the reports' module is not needed (2 ms of imports)
    from ..report import check_score_outputs

    check_score_outputs(flags["report"], flags["manifest"], [g for g in given if g], html_page)


def _text_measures_left_out(evaluation, output_format: str) -> list[str]:
    """A table or Markdown has a number in each cell: text per topic (``relstring``) is
    left out of it, and said (json shows it, trec text and csv with -q); and the run's
    tag (``runid``), left out of them and of csv, whose rows are of numbers: json and
    trec text show it."""
    from ..measures import RUNID, STRING

    said = []
    tags = [c.display for c in evaluation.columns if c.summary == RUNID]
    if tags and output_format in ("table", "markdown", "csv"):
        said.append(
            f"{tags[0]}: the run's tag, text, not in --format {output_format}; json and trec "
            "show it"
        )
    text = [c.display for c in evaluation.columns if c.summary == STRING]
    if text and output_format in ("table", "markdown"):
        said.append(
            f"{', '.join(text)}: text per topic, not in --format {output_format}; json shows "
            "it, and trec and csv with -q"
        )
    return said


def _unbounded(evaluation, view, tie_bounds: bool, output_format: str) -> list[str]:
    """--tie-bounds in trec text and csv, which have lines of the bounded measures only:
    the measures it cannot bound, each with why (a table's note says it elsewhere)."""
    if not tie_bounds or output_format not in ("trec", "csv"):
        return []
    from ..renderers.tiebounds import unbounded

    return [f"--tie-bounds: not bounded, {why}" for why in unbounded(evaluation, view.labels)]


def _warn(lines: list[str]) -> None:
    for line in lines:
        echo_warning(line)


def _evaluation_warnings(evaluation, unjudged_threshold: float, strata) -> list[str]:
    """What the evaluation warns about (its inputs' warnings aside: :func:`echo_input_warnings`
    says them), the flagged topics and the runs whose retrieved documents the qrels mostly
    do not know (but where the ``strata`` sidecar describes the qrels as complete)."""
    from ..evaluation.flag_warnings import flag_warnings

    runs = evaluation.unjudged_runs(unjudged_threshold)
    if strata is not None and runs:  # strata imports pandas: only when it may be needed
        from ..strata import doubted

        runs = doubted(evaluation, unjudged_threshold, strata)
    given = strata is not None  # a sidecar given that does not vouch: not advised again
    said = [run.unjudged.message(run.name, evaluation.qrels_path, sidecar=given) for run in runs]
    flagged = flag_warnings(evaluation.flagged, evaluation.settings.complete)
    return [*flagged, *said]


def _settings(flags, local: dict, tie_bounds: bool, memory, jobs, drill_depth=None,
              unjudged_bounds=False):  # fmt: skip
    """The :class:`~trecbench.evaluation.EvalSettings` of trec_eval's flags (and the
    local measures' options), built and checked once; ``drill_depth`` and
    ``unjudged_bounds``: what the scoring keeps for --html and --unjudged-bounds."""
    from ..evaluation.settings import EvalSettings

    debug_level, debug_query = _debug(flags["debug"])
    return EvalSettings(
        relevance_level=1 if flags["level"] is None else flags["level"],
        complete=flags["complete"],
        max_docs=flags["max_docs"],
        judged_only=flags["judged"],
        num_docs=flags["ndocs"],
        engine=flags["engine"],
        compat=flags["compat"] or "9.0.8",
        rel_format=flags["rel_format"] or "qrels",
        zscores=flags["zscores"],
        debug_level=debug_level,
        debug_query=debug_query,
        options=local,
        tie_bounds=tie_bounds,
        memory=memory,
        jobs=jobs,
        drill_depth=drill_depth,
        unjudged_bounds=unjudged_bounds,
        first_parameters=True,  # trec_eval's -m rule, and a warning of what it leaves out
    )


def _evaluation(qrels, runs, run_names, flags, settings, view, dask_address, html_page):
    """The runs (named ``run_names``) scored with ``settings`` (on Dask with
    ``dask_address``), with progress unless --quiet; where trec_eval stops part-way on the
    one run given, what it printed before is printed. With several runs nothing is: their
    output is trecbench's, not trec_eval's, and is all or nothing (a run stopping after
    others printed them whole and a header over nothing)."""
    from dataclasses import fields

    from .. import provenance
    from ..errors import TrecbenchError
    from ..evaluation import evaluate
    from ..renderers import trec_format

    progress = bars.TaskProgress() if bars.wanted(flags["quiet"]) else None
    # a file's checksum is only written by --report and --manifest: not taken without them
    # (and the --html page, whose provenance lists them)
    recorded = any(flags[name] is not None for name in ("report", "manifest")) or bool(html_page)
    arguments = {field.name: getattr(settings, field.name) for field in fields(settings)}
    try:
        with _cluster(dask_address) as client, provenance.taking_checksums(recorded):
            if client is not None:
                for run in runs:
                    run.client = client
            measures = list(flags["measure"]) or None
            evaluation = evaluate(
                qrels, list(runs), measures, progress=progress, run_names=run_names, **arguments
            )
            # the ontology's record (json, --report, --html) as the scoring read it: the
            # ontology taken again outside would be read again, to take its checksum
            _ = evaluation.ontology_record
            return evaluation
    except TrecbenchError as error:
        # trec_eval prints the topics it evaluated before it stopped (exit 4): one run only
        partial = getattr(error, "partial", None)
        if partial is not None and view.output_format == "trec" and len(runs) == 1:
            text = trec_format.render_trec(
                partial, per_query=view.per_query, summary=view.summary, names=view.labels
            )
            echo_bytes(utf8(text))
        raise
    finally:
        if progress is not None:
            progress.close()


@contextlib.contextmanager
def _cluster(dask_address: str | None):
    """A client of the Dask cluster at ``dask_address`` (None without one), closed after;
    distributed's logs held back meanwhile
    (:func:`~trecbench.dask_cluster.logs_silenced`)."""
    if dask_address is None:
        yield None
        return
    from ..dask import connect
    from ..dask_cluster import close, logs_silenced

    with logs_silenced():
        client = connect(dask_address)
        try:
            yield client
        finally:
            close(client)


def _debug(text: str | None) -> tuple[int, str | None]:
    """``-D level[.qid]`` as trec_eval reads it: ``atol`` of the level, the topic after
    the first dot; a level of anything but ASCII digits (with a sign) refused as every
    integer option's is (``atol`` read ``1_0`` and ``1x`` as 1, ``abc`` as 0)."""
    if text is None:
        return 0, None
    from ..measures import c_atol
    from .shared_options import is_decimal_integer

    level, dot, qid = text.partition(".")
    if not is_decimal_integer(level):
        raise click.BadParameter(
            f"{level!r} is not a valid level (ASCII digits 0-9 with an optional sign).",
            param_hint="'-D' / '--Debug_level'",
        )
    return c_atol(level), qid if dot else None


def _grouped(evaluation, strata, group_by, qrels) -> tuple[dict, list[str], object]:
    """``{field: grouped means}`` for each --group-by (see trecbench.strata), the
    warnings (groups too small, what the sidecar says about the qrels) and the sidecar's
    strata table (None without one; read once, the --html page groups by it too)."""
    if not group_by:  # a sidecar alone says which qrels are complete (_evaluation_warnings)
        if strata is None:
            return {}, [], None  # strata imports pandas: only with a sidecar
        from ..strata import sidecar_notes

        return {}, sidecar_notes(strata, [qrels], group_by), None
    from ..strata import (
        evaluation_groups,
        group_warnings,
        left_out_warnings,
        outside_qrels_warnings,
        qrels_warnings,
        read_sidecar,
    )

    table, notes = read_sidecar(strata) if strata is not None else (None, [])
    grouped = {by: evaluation_groups(evaluation, table, by) for by in group_by}
    warnings = qrels_warnings(notes, qrels) + left_out_warnings(evaluation)
    warnings += outside_qrels_warnings(table, evaluation.qrels_topics)
    return grouped, warnings + group_warnings(grouped), table
