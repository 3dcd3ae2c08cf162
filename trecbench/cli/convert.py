"""``trecbench convert``: benchmark outputs → TREC qrels, runs and a sidecar JSON."""

from __future__ import annotations

from functools import partial
from pathlib import Path

import click

from .convert_output import STDOUT, GroupOptions, finish, refuse_stdout
from .group import Command, Group, cli
from .paths import OUTPUT_FOLDER, OUTPUT_FOLDER_OR_STDOUT, InputFile
from .shared_options import DEPTH, FiniteFloat, is_decimal_integer, too_long

_EXISTING = InputFile(Path)


# convert's --quiet and --ir-metadata, taken before the converter's name and after it alike
_quiet_option = click.option("--quiet", is_flag=True, help="No progress on stderr.")
_ir_metadata_option = click.option(
    "--ir-metadata",
    "metadata",
    type=_EXISTING,
    default=None,
    help="Write an ir_metadata block (YAML, Breuer et al. 2022) atop every run written: what "
    "trecbench records (method.conversion: the converter and trecbench's version; "
    "data.converted: the call's inputs with sha256, in every run) with this file's "
    "description added (a value it gives that trecbench records otherwise is refused).",
)


class _Converter(Command):
    """A converter's command, with ``--quiet`` and convert's ``--ir-metadata`` (given
    after the converter's name as before it): its inputs read, its outputs written and
    validated are drawn as bars on stderr, with rate and ETA (on a terminal, for jobs
    still running after a second; none with ``--quiet``). Every converter reads through
    :func:`trecbench.sources.read_source`, which tells the bar of each file it reads."""

    def __init__(self, *args, **kwargs):
        # stdout is the run's with -o - alone: the summary is said on stderr
        kwargs.setdefault("prints", lambda params: params.get("outdir") == STDOUT)
        super().__init__(*args, **kwargs)
        _ir_metadata_option(self)
        _quiet_option(self)

    def invoke(self, ctx):
        import dataclasses

        from ..sources import reading_shown
        from .progress import drawn

        quiet, metadata = ctx.params.pop("quiet"), ctx.params.pop("metadata")
        shared = ctx.find_object(GroupOptions) or GroupOptions()
        quiet = quiet or shared.quiet
        if metadata is not None and shared.ir_metadata is not None:
            raise click.UsageError("--ir-metadata is given twice: give it once")
        metadata = shared.ir_metadata if metadata is None else metadata
        with drawn(quiet) as progress, reading_shown(progress):
            ctx.obj = dataclasses.replace(shared, ir_metadata=metadata, progress=progress)
            return super().invoke(ctx)


class _Converters(Group):
    """``trecbench convert``: its subcommands are :class:`_Converter` commands."""

    command_class = _Converter


def _outdir(function=None, *, runs: bool = True, single: bool = True):
    """The output options of a converter; ``runs=False``: one that never writes a run
    (no --runs-dir, and a folder holds qrels and sidecar only); ``single=False``: one that
    always writes qrels beside its runs, so never a single run alone (``-o -`` is not
    offered in its help; :func:`refuse_stdout` says why when it is given)."""
    if function is None:
        return partial(_outdir, runs=runs, single=single)
    help_text = "Folder for the .qrels and .sidecar.json files (created if needed)."
    if runs:
        help_text = "Folder for the .qrels, .run and .sidecar.json files (created if needed)"
        help_text += (
            "; -: a conversion's single run to standard output (no sidecar)." if single else "."
        )
    function = click.option(
        "-o",
        "--outdir",
        required=True,
        type=OUTPUT_FOLDER_OR_STDOUT if runs else OUTPUT_FOLDER,
        help=help_text,
    )(function)
    if runs:
        function = click.option(
            "--runs-dir",
            type=OUTPUT_FOLDER,
            help="Write the .run files here instead of OUTDIR.",
        )(function)
    return click.option("--name", help="Base name of the qrels and sidecar files.")(function)


def _depth(function):
    return click.option("--depth", type=DEPTH, help="Keep the first N documents per query.")(
        function
    )


def _inputs(*paths: Path | None) -> list[Path]:
    """The subcommand's input files given (None: an option not given), refused before any
    is read when two of them, or one and ``convert --ir-metadata``, name a file that can
    be read once (standard input, a pipe): the second reader would read it as empty, or
    wait for a writer for good (:func:`trecbench.naming.check_read_once`, as score's);
    and when ``--ir-metadata`` names one of them: the data converted, written again as
    the runs' metadata."""
    from ..errors import one_line
    from ..naming import check_read_once, repeated_file

    given = [path for path in paths if path is not None]
    shared = click.get_current_context().find_object(GroupOptions)
    metadata = None if shared is None else shared.ir_metadata
    check_read_once([*given, metadata])
    for path in given if metadata is not None else ():
        if repeated_file([path, metadata]):
            name = one_line(str(path))
            raise click.UsageError(f"--ir-metadata names an input of the conversion, {name}")
    return given


def _pairs(values, option: str) -> dict[str, int]:
    """``{KEY: N}`` from repeated ``KEY=N`` option values."""
    pairs = {}
    for value in values:
        key, sep, number = value.rpartition("=")
        if key in pairs:  # the last would win without a word
            raise click.BadParameter(f"{key} given twice", param_hint=option)
        if not is_decimal_integer(number) or not sep or not key:
            raise click.BadParameter(f"{value!r} is not KEY=N", param_hint=option)
        refusal = too_long(number)
        if refusal is not None:
            raise click.BadParameter(f"{key}: {refusal}", param_hint=option)
        pairs[key] = int(number)
    return pairs


@cli.group(cls=_Converters)
@_ir_metadata_option
@_quiet_option
@click.pass_context
def convert(ctx: click.Context, metadata: Path | None, quiet: bool) -> None:
    """Convert benchmark outputs into TREC qrels, runs and a sidecar JSON.

    Every converter keeps the producer's ranking order (written scores strictly decrease
    with the producer's rank; original scores go to the sidecar), removes duplicate
    documents with a report, refuses to overwrite its inputs and validates what it writes.

    \b
    Examples:
      trecbench convert hpo data/hpo-demo/cases.json \\
        --results data/hpo-demo/results/tfidf-word/terms.jsonl -o out/converted
      trecbench convert --ir-metadata about.yaml msmarco data/convert/msmarco-run.tsv \\
        -o out/converted    # not bundled: your about.yaml (the docs' runs.md)
    """
    ctx.obj = GroupOptions(ir_metadata=metadata, quiet=quiet)


@convert.command("hpo")
@click.argument("cases", type=_EXISTING)
@click.option(
    "--results",
    "results",
    multiple=True,
    type=_EXISTING,
    help="terms.jsonl, cases.jsonl or Chroma JSON results; repeat for several runs.",
)
@click.option(
    "--tag",
    "tags",
    multiple=True,
    help="Run tag per --results, naming its .run file too (default: the results' name; "
    "the tag made of it).",
)
@click.option(
    "--results-format",
    type=click.Choice(["terms", "cases", "chroma"]),
    help="Format of the results (default: detected).",
)
@click.option(
    "--language", help="Language stratum when the cases do not say: de, en, fr, es or nl."
)
@click.option(
    "--ontology",
    type=_EXISTING,
    help="hp.obo or hp.json to check HPO ids against (default: hpo3's bundled release).",
)
@click.option("--no-id-check", is_flag=True, help="Do not check HPO ids against an ontology.")
@click.option(
    "--graded",
    type=click.Choice(["ontology"]),
    help="Graded qrels: the expected term 2, its is_a parents and children 1 (see --grade).",
)
@click.option(
    "--grade",
    "grades",
    multiple=True,
    metavar="KIND=N",
    help="With --graded: the grade of exact, parent or child terms (0 leaves them out).",
)
@_depth
@_outdir(single=False)
def hpo(
    cases,
    results,
    tags,
    results_format,
    language,
    ontology,
    no_id_check,
    graded,
    grades,
    depth,
    outdir,
    runs_dir,
    name,
):
    """Phentrieve HPO benchmark: test cases (+ results) → qrels (+ runs).

    The test cases are checked against Phentrieve's schema. The qid is each case's
    case_id, else its 0-based index. Strata: language, difficulty, category, hpo_domain
    where present. Unknown and obsolete HPO ids are reported.

    \b
    Examples:
      trecbench convert hpo data/hpo-demo/cases.json \\
        --results data/hpo-demo/results/tfidf-word/terms.jsonl --tag tfidf-word -o out/hpo
      trecbench convert hpo data/hpo-demo/cases.json --graded ontology --grade child=0 \\
        -o out/graded
    """
    from ..convert.hpo import convert_hpo

    if grades and not graded:
        raise click.UsageError("--grade needs --graded ontology")
    refuse_stdout(outdir, len(results), 1)  # the cases' qrels, a run per results file
    inputs = _inputs(cases, *results, ontology)
    conversion = convert_hpo(
        cases,
        list(results),
        tags=list(tags),
        name=name,
        depth=depth,
        results_format=results_format,
        language=language,
        ontology=ontology,
        check_ids=not no_id_check,
        graded=graded,
        grades=_pairs(grades, "--grade"),
    )
    finish(conversion, outdir, inputs, runs_dir)


@convert.command("code-chunk")
@click.argument("detailed", type=_EXISTING)
@_outdir(single=False)
def code_chunk(detailed, outdir, runs_dir, name):
    """code-chunk retrieval eval → one qrels/run pair per chunker (strata: repo).

    Docnos become <repo>/<path>:<start>-<end>; the qid is the taskId.

    \b
    Examples:
      trecbench convert code-chunk data/convert/code-chunk-detailed.json -o out
      trecbench score out/codechunk-ast.qrels out/ast.run --strata out/codechunk.sidecar.json \\
        --group-by repo -m P.5 -m recall.5 -m ndcg_cut.5
    """
    from ..convert.codechunk import convert_codechunk

    refuse_stdout(outdir, None, 1, per="chunker")
    inputs = _inputs(detailed)
    finish(convert_codechunk(detailed, name=name), outdir, inputs, runs_dir)


@convert.command("memorybench")
@click.argument("source", type=_EXISTING)
@click.option(
    "--line-offset",
    "line_offsets",
    multiple=True,
    metavar="PROVIDER=N",
    help="Add N to PROVIDER's chunk line numbers (e.g. -1 for 1-based providers).",
)
@click.option(
    "--iou",
    type=FiniteFloat(0, 1),
    help="location: line IoU threshold (default: each item's own).",
)
@click.option(
    "--relevance",
    type=click.Choice(["auto", "explicit", "pack", "location", "token-f1"]),
    default="auto",
    show_default=True,
    help="Relevance strategy; auto: memorybench's priority per result.",
)
@click.option(
    "--f1-threshold",
    type=FiniteFloat(0, 1),
    help="token-f1: a chunk is relevant when its token F1 with the answer reaches this "
    "(default: 0.3).",
)
@_outdir(single=False)
def memorybench(source, line_offsets, iou, relevance, f1_threshold, outdir, runs_dir, name):
    """memorybench export JSON or results.db → one qrels/run pair per provider.

    Relevance in memorybench's priority order: explicit relevant ids; the benchmark pack's
    rule (LoCoMo evidence, LongMemEval answer corpus ids, the code packs' location rule:
    same file and overlapping lines, or IoU ≥ threshold); token F1 with the expected
    answer. Qrels other than explicit ones are pooled; those that know only the relevant
    chunks found are marked found-only, with a warning.

    \b
    Examples:
      trecbench convert memorybench data/convert/memorybench-export.json \\
        --line-offset chonkie=-1 -o out/memorybench
      trecbench convert memorybench data/convert/memorybench-export.json \\
        --relevance token-f1 -o out/memorybench-f1
      trecbench convert memorybench results.db -o out/memorybench    # not bundled: your db
    """
    from ..convert.memorybench import convert_memorybench

    refuse_stdout(outdir, None, 1, per="provider")
    inputs = _inputs(source)
    conversion = convert_memorybench(
        source,
        name=name,
        line_offsets=_pairs(line_offsets, "--line-offset"),
        iou=iou,
        relevance=relevance,
        f1_threshold=f1_threshold,
    )
    finish(conversion, outdir, inputs, runs_dir)


@convert.command("lists")
@click.argument("source", type=_EXISTING)
@click.option(
    "--tag",
    help="Run tag, naming the .run file too (default: the file's name; the tag made of it).",
)
@click.option(
    "--match",
    type=click.Choice(["ids", "chunks"]),
    default="ids",
    show_default=True,
    help="ids: entries are ids; chunks: texts, matched to gold documents by remem's rules.",
)
@click.option(
    "--fuzzy-threshold",
    type=FiniteFloat(0, 100, min_open=True),
    default=90.0,
    show_default=True,
    help="--match chunks: rapidfuzz partial_ratio needed by the fuzzy step.",
)
@click.option(
    "--no-fuzzy", is_flag=True, help="--match chunks without the fuzzy step (remem's code)."
)
@_depth
@_outdir(single=False)
def lists(source, tag, match, fuzzy_threshold, no_fuzzy, depth, outdir, runs_dir, name):
    """{gold_docs, retrieved_chunks, query_ids?} lists → qrels and a run.

    With --match chunks, gold documents and retrieved chunks are texts: each chunk is
    assigned to the gold document it comes from (remem's is_chunk_from_original, then a
    fuzzy step); every assignment and its rule go to the sidecar.

    \b
    Examples:
      trecbench convert lists data/convert/remem-chunks.json --match chunks -o out/lists
      trecbench convert lists rag_eval.json -o out/lists    # not bundled: your lists of ids
    """
    from ..convert.lists import convert_lists

    _refuse_unused_fuzzy(match, no_fuzzy)
    refuse_stdout(outdir, 1, 1)  # the gold documents' qrels beside the run
    inputs = _inputs(source)
    # the fuzzy step's, given with chunks alone (the library refuses it, 90 too, with ids)
    fuzzy = {"fuzzy_threshold": None if no_fuzzy else fuzzy_threshold}
    conversion = convert_lists(
        source,
        name=name,
        tag=tag,
        depth=depth,
        match=match,
        **(fuzzy if match == "chunks" else {}),
    )
    finish(conversion, outdir, inputs, runs_dir)


def _refuse_unused_fuzzy(match: str, no_fuzzy: bool) -> None:
    """--fuzzy-threshold and --no-fuzzy change nothing but with --match chunks (and the
    threshold nothing with --no-fuzzy): refused, not ignored (the sidecar said null)."""
    from ..errors import UsageError
    from .group import given

    fuzzy = sorted(given("fuzzy_threshold") | ({"no_fuzzy"} if no_fuzzy else set()))
    if match != "chunks" and fuzzy:
        shown = " and ".join("--" + name.replace("_", "-") for name in fuzzy)
        raise UsageError(
            f"{shown}: the fuzzy step matches chunks to documents, give --match chunks"
        )
    if len(fuzzy) == 2:
        raise UsageError("--fuzzy-threshold: --no-fuzzy leaves out the step it sets")


@convert.command("dict")
@click.argument("run", type=_EXISTING)
@click.option("--qrels-json", type=_EXISTING, help="Qrels as {qid: {docid: grade}} JSON.")
@click.option("--beir-qrels", type=_EXISTING, help="BEIR qrels TSV with a header line.")
@click.option(
    "--tag",
    help="Run tag, naming the .run file too (default: the file's name; the tag made of it).",
)
@click.option(
    "--ignore-identical-ids",
    is_flag=True,
    help="Drop each result whose docid is its qid, as BEIR's evaluation does by default "
    "(reported in the sidecar; the documents after it one rank higher).",
)
@_depth
@_outdir
def dict_(run, qrels_json, beir_qrels, tag, ignore_identical_ids, depth, outdir, runs_dir, name):
    """pytrec_eval/BEIR/MTEB {qid: {docid: score}} run → a run (+ qrels).

    The order is pytrec_eval's: score descending, then docid descending. A result whose
    docid is its qid is kept, with a warning (BEIR drops them: a corpus holding the
    queries, ArguAna, Quora, CQADupStack); --ignore-identical-ids drops them.

    \b
    Example:
      trecbench convert dict data/convert/bm25-results.json \\
        --beir-qrels data/convert/beir-test.tsv -o out/dict
    """
    from ..convert.dicts import convert_dict

    if qrels_json is None or beir_qrels is None:  # both: refused as the library says
        refuse_stdout(outdir, 1, int(qrels_json is not None or beir_qrels is not None))
    inputs = _inputs(run, qrels_json, beir_qrels)
    conversion = convert_dict(
        run,
        qrels_json=qrels_json,
        beir_qrels=beir_qrels,
        name=name,
        tag=tag,
        depth=depth,
        ignore_identical_ids=ignore_identical_ids,
    )
    finish(conversion, outdir, inputs, runs_dir)


@convert.command("msmarco")
@click.argument("run", type=_EXISTING)
@click.option(
    "--tag",
    help="Run tag, naming the .run file too (default: the file's name; the tag made of it).",
)
@_depth
@_outdir
def msmarco(run, tag, depth, outdir, runs_dir, name):
    """MS MARCO run (qid pid rank, tab-separated) → a TREC run.

    MS MARCO's qrels are TREC qrels already.

    \b
    Example:
      trecbench convert msmarco data/convert/msmarco-run.tsv -o out/msmarco
    """
    from ..convert.msmarco import convert_msmarco

    inputs = _inputs(run)
    conversion = convert_msmarco(run, name=name, tag=tag, depth=depth)
    finish(conversion, outdir, inputs, runs_dir)


@convert.command("beir-qrels")
@click.argument("qrels", type=_EXISTING)
@_outdir(runs=False)
def beir_qrels(qrels, outdir, name):
    """BEIR/MTEB qrels TSV (header query-id corpus-id score) → TREC qrels.

    \b
    Example:
      trecbench convert beir-qrels data/convert/beir-test.tsv -o out/beir --name demo-test
    """
    from ..convert.beir import convert_beir_qrels

    inputs = _inputs(qrels)
    finish(convert_beir_qrels(qrels, name=name), outdir, inputs, None)
