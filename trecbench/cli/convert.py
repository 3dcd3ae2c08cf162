"""``trecbench convert``: benchmark outputs → TREC qrels, runs and a sidecar JSON."""

from __future__ import annotations

from pathlib import Path

import click

from . import Group, cli

_EXISTING = click.Path(exists=True, dir_okay=False, path_type=Path)


def _outdir(function):
    function = click.option(
        "-o",
        "--outdir",
        required=True,
        type=click.Path(file_okay=False, path_type=Path),
        help="Folder for the .qrels, .run and .sidecar.json files (created if needed).",
    )(function)
    function = click.option(
        "--runs-dir",
        type=click.Path(file_okay=False, path_type=Path),
        help="Write the .run files here instead of OUTDIR.",
    )(function)
    return click.option("--name", help="Base name of the qrels and sidecar files.")(function)


def _depth(function):
    return click.option(
        "--depth", type=click.IntRange(min=1), help="Keep the first N documents per query."
    )(function)


def _finish(conversion, outdir: Path, inputs, runs_dir: Path | None) -> None:
    """Write (validated) outputs and print a short summary."""
    from ..convert.common import write_conversion

    paths = write_conversion(conversion, outdir, inputs, runs_dir)
    for name, table in conversion.qrels.items():
        info = conversion.qrels_info.get(name, {})
        pooled = " (pooled)" if info.get("pooled") else ""
        click.echo(
            f"wrote {paths['qrels:' + name]}: {table['qid'].nunique()} queries, "
            f"{int((table['rel'] > 0).sum())} relevant{pooled}"
        )
    for run in conversion.runs:
        stats = run.stats
        ties = stats["tied_adjacent_scores"]
        tie_text = (
            f"; {ties} tied score(s) in {stats['queries_with_ties']} queries kept in producer order"
            if ties
            else ""
        )
        click.echo(
            f"wrote {paths['run:' + run.tag]}: {stats['queries']} queries, "
            f"{stats['documents']} documents{tie_text}"
        )
    click.echo(f"wrote {paths['sidecar']}")
    for reason, count in conversion.report.counts.items():
        click.echo(f"  {count} × {reason}")
    for note in conversion.report.notes:
        click.echo(f"  note: {note}")


@cli.group(cls=Group)
def convert() -> None:
    """Convert benchmark outputs into TREC qrels, runs and a sidecar JSON.

    Every converter keeps the producer's ranking order (written scores strictly decrease
    with the producer's rank; original scores go to the sidecar), removes duplicate
    documents with a report, refuses to overwrite its inputs and validates what it writes.

    \b
    Example:
      trecbench convert hpo cases.json --results bm25/terms.jsonl -o converted
    """


@convert.command("hpo")
@click.argument("cases", type=_EXISTING)
@click.option(
    "--results",
    "results",
    multiple=True,
    type=_EXISTING,
    help="terms.jsonl, cases.jsonl or Chroma JSON results; repeat for several runs.",
)
@click.option("--tag", "tags", multiple=True, help="Run tag per --results (default: its name).")
@click.option(
    "--results-format",
    type=click.Choice(["terms", "cases", "chroma"]),
    help="Format of the results (default: detected).",
)
@click.option("--language", help="Language stratum when the cases do not say.")
@click.option(
    "--ontology",
    type=_EXISTING,
    help="hp.obo or hp.json to check HPO ids against (default: hpo3's bundled release).",
)
@click.option("--no-id-check", is_flag=True, help="Do not check HPO ids against an ontology.")
@_depth
@_outdir
def hpo(
    cases,
    results,
    tags,
    results_format,
    language,
    ontology,
    no_id_check,
    depth,
    outdir,
    runs_dir,
    name,
):
    """Phentrieve HPO benchmark: test cases (+ results) → qrels (+ runs).

    The qid is each case's case_id, else its 0-based index. Strata: language, difficulty,
    category, hpo_domain where present. Unknown and obsolete HPO ids are reported.

    \b
    Example:
      trecbench convert hpo tiny_v1.json --results bm25/terms.jsonl --tag bm25 -o out
    """
    from ..convert.hpo import convert_hpo

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
    )
    _finish(conversion, outdir, [cases, *results], runs_dir)


@convert.command("code-chunk")
@click.argument("detailed", type=_EXISTING)
@_outdir
def code_chunk(detailed, outdir, runs_dir, name):
    """code-chunk retrieval eval → one qrels/run pair per chunker (strata: repo).

    Docnos become <repo>/<path>:<start>-<end>; the qid is the taskId.

    \b
    Example:
      trecbench convert code-chunk detailed_2025-12-18T11-56-27-100Z.json -o out
      trecbench score out/codechunk-ast.qrels out/ast.run --strata out/codechunk.sidecar.json \\
        --group-by repo -m P.5 -m recall.5 -m ndcg_cut.5
    """
    from ..convert.codechunk import convert_codechunk

    _finish(convert_codechunk(detailed, name=name), outdir, [detailed], runs_dir)


def _offsets(values) -> dict[str, int]:
    offsets = {}
    for value in values:
        provider, sep, number = value.rpartition("=")
        try:
            offsets[provider] = int(number)
        except ValueError:
            sep = ""
        if not sep or not provider:
            raise click.BadParameter(f"{value!r} is not PROVIDER=N", param_hint="--line-offset")
    return offsets


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
    "--iou", type=click.FloatRange(0, 1), help="Line IoU threshold (default: each item's own)."
)
@_outdir
def memorybench(source, line_offsets, iou, outdir, runs_dir, name):
    """memorybench export JSON or results.db → one qrels/run pair per provider.

    Explicit relevant ids are used when present, else the location rule (same file and
    overlapping lines, or IoU ≥ threshold); location qrels are marked pooled.

    \b
    Example:
      trecbench convert memorybench results.db --line-offset chonkie=-1 -o out
    """
    from ..convert.memorybench import convert_memorybench

    conversion = convert_memorybench(
        source, name=name, line_offsets=_offsets(line_offsets), iou=iou
    )
    _finish(conversion, outdir, [source], runs_dir)


@convert.command("lists")
@click.argument("source", type=_EXISTING)
@click.option("--tag", help="Run tag (default: the file name).")
@_depth
@_outdir
def lists(source, tag, depth, outdir, runs_dir, name):
    """{gold_docs, retrieved_chunks, query_ids?} lists → qrels and a run.

    \b
    Example:
      trecbench convert lists rag_eval.json -o out
    """
    from ..convert.lists import convert_lists

    conversion = convert_lists(source, name=name, tag=tag, depth=depth)
    _finish(conversion, outdir, [source], runs_dir)


@convert.command("dict")
@click.argument("run", type=_EXISTING)
@click.option("--qrels-json", type=_EXISTING, help="Qrels as {qid: {docid: grade}} JSON.")
@click.option("--beir-qrels", type=_EXISTING, help="BEIR qrels TSV with a header line.")
@click.option("--tag", help="Run tag (default: the file name).")
@_depth
@_outdir
def dict_(run, qrels_json, beir_qrels, tag, depth, outdir, runs_dir, name):
    """pytrec_eval/BEIR/MTEB {qid: {docid: score}} run → a run (+ qrels).

    The order is pytrec_eval's: score descending, then docid descending.

    \b
    Example:
      trecbench convert dict results.json --beir-qrels qrels/test.tsv -o out
    """
    from ..convert.dicts import convert_dict

    conversion = convert_dict(
        run, qrels_json=qrels_json, beir_qrels=beir_qrels, name=name, tag=tag, depth=depth
    )
    inputs = [p for p in (run, qrels_json, beir_qrels) if p is not None]
    _finish(conversion, outdir, inputs, runs_dir)
