"""``trecbench fuse``: several runs into one (RRF, CombSUM, CombMNZ, ...)."""

from __future__ import annotations

import os
from contextlib import contextmanager

import click

from ..plurals import counted
from ..text_bytes import utf8
from .group import cli, echo_input_warnings, echo_written
from .paths import INPUT_FILE, OutputFile
from .shared_options import (
    DEPTH,
    DecimalInt,
    FiniteFloat,
    check_measure_value,
    quiet_option,
    runs_argument,
)
from .stdout import echo_bytes

# fusion.METHODS and fusion.NORMS with ranx's aliases, repeated so that loading the CLI does
# not import numpy; tests/test_fusion.py keeps them equal to the library's.
METHOD_CHOICES = (
    "rrf", "isr", "combsum", "combmnz", "combmax", "combmin", "combmed", "combanz", "wmnz",
    "wsum", "sum", "mnz", "max", "min", "med", "anz",
)  # fmt: skip
NORM_CHOICES = (
    "none", "min-max", "z-score", "max", "sum", "rank", "min_max", "minmax", "zmuv", "zscore",
)  # fmt: skip


class RunOutput(OutputFile):
    """A file to write, or ``-``: standard output."""

    def convert(self, value, param, ctx):
        return "-" if os.fsdecode(value) == "-" else super().convert(value, param, ctx)


@cli.command(prints=lambda options: options["output"] == "-")
@runs_argument
@click.option(
    "--method",
    type=click.Choice(METHOD_CHOICES, case_sensitive=False),
    default="rrf",
    show_default=True,
    help="rrf: sum of 1/(k+rank); isr; combsum (a weighted sum with --weight); combmnz; "
    "combmax; combmin; combmed; combanz; wmnz. ranx's names (sum, wsum, mnz...) work too.",
)
@click.option(
    "--k",
    type=FiniteFloat(min=0),
    default=60,
    show_default=True,
    help="RRF's constant k.",
)
@click.option(
    "--norm",
    type=click.Choice(NORM_CHOICES, case_sensitive=False),
    default=None,
    help="Per-topic score normalisation of score-based methods: min-max (default), "
    "z-score, max, sum, rank, none.",
)
@click.option(
    "-w",
    "--weight",
    "weights",
    type=FiniteFloat(min=0),
    multiple=True,
    help="Weight of each run, in the order of RUNS (repeat once per run; rrf, combsum, wmnz).",
)
@click.option(
    "--depth",
    type=DEPTH,
    default=None,
    help="Documents kept per topic after fusion (default: all; the TREC R task takes 100).",
)
@click.option("--tag", default=None, help="Run tag of the fused run (default: the method).")
@click.option(
    "--optimize",
    "optimize",
    default=None,
    metavar="MEASURE",
    callback=lambda ctx, param, value: _optimized_measure(ctx, value),
    help="Choose RRF's k (or the weights of combsum/wmnz) that maximise MEASURE on --qrels, "
    "with a cross-validated held-out score, and fuse with them.",
)
@click.option(
    "--qrels",
    type=INPUT_FILE,
    default=None,
    help="The development qrels --optimize chooses on.",
)
@click.option(
    "--folds",
    type=DecimalInt(),
    default=None,
    help="Folds of topics of --optimize's cross-validation. [default: 5, or one per topic "
    "when there are fewer]",
)
@click.option(
    "--seed", type=DecimalInt(min=0), default=0, show_default=True, help="Seed of the folds."
)
@click.option(
    "--step",
    type=FiniteFloat(),
    default=0.1,
    show_default=True,
    help="Step of --optimize's weight grid (weights summing to 1).",
)
@click.option(
    "--ir-metadata",
    "metadata",
    type=INPUT_FILE,
    default=None,
    help="Write an ir_metadata block (YAML, Breuer et al. 2022) atop the fused run: what "
    "trecbench records (the method, its parameters, the runs fused with their sha256, "
    "trecbench's version) with this file's description added (a value it gives that "
    "trecbench records otherwise is refused).",
)
@click.option(
    "-o",
    "--output",
    required=True,
    type=RunOutput(),
    help="The fused run (six tab-separated columns, full-precision scores; Parquet, columns"
    " qid, docno, rank, score, tag, for a .parquet name); - for standard output.",
)
@quiet_option
def fuse(
    runs,
    method,
    k,
    norm,
    weights,
    depth,
    tag,
    optimize,
    qrels,
    folds,
    seed,
    step,
    metadata,
    output,
    quiet,
):
    """Fuse RUNS into one run: each run is ranked as trec_eval ranks it, then the methods
    combine ranks (rrf, isr) or per-topic normalised scores (combsum, combmnz, ...).

    The output is a canonical run in trec_eval's order: qid Q0 docno rank score tag,
    scores in full double precision. Never written over an input.

    \b
    Examples:
      trecbench fuse --method rrf --k 60 runs/tfidf-word.run runs/tfidf-char.run \\
          --depth 100 -o out/rrf.run
      trecbench fuse --method combsum --norm z-score -w 0.3 -w 0.7 \\
          runs/tfidf-word.run runs/tfidf-char.run -o out/wsum.run
      trecbench fuse runs/tfidf-word.run runs/tfidf-char.run -o - \\
          | trecbench score --compat 10.0 qrels/hpo-demo.qrels -
      trecbench fuse --optimize nDCG@10 --qrels data/hpo-rtask/hpo-rtask.qrels \\
          data/hpo-rtask/lexical.run data/hpo-rtask/vector.run -o out/tuned.run
      trecbench fuse --ir-metadata about.yaml runs/tfidf-word.run runs/tfidf-char.run \\
          -o out/rrf.run    # not bundled: your about.yaml (the docs' runs.md)
    """
    from .. import outputs
    from ..errors import UsageError
    from ..files import parquet_named, run_bytes
    from ..fusion import WEIGH_BY_OPTION, check_distinct_files, method_name
    from ..naming import check_run_tag
    from .progress import drawn

    if output != "-":  # before the fusion: an input is never the output
        outputs.check_target(output, [*runs, *(path for path in (metadata, qrels) if path)])
    parquet = parquet_named(output)  # before the work: a name read as no run is refused
    if metadata is not None and parquet:
        raise UsageError("an ir_metadata block heads a TREC text run, not a Parquet file")
    _check_given(method, optimize, bool(weights))
    check_run_tag(tag)  # before --optimize's search, not after it
    if optimize is not None and qrels is None:
        raise UsageError("--optimize needs --qrels: the judgments it chooses on")
    # before a run is read; --optimize chooses the weights (-w is refused with it)
    advice = WEIGH_BY_OPTION if optimize is None else None
    check_distinct_files(runs, [qrels, metadata], advice)
    # read and checked before the runs are: a tag at odds was refused after the search
    run_tag = tag or method_name(method)  # the fused lines' tag
    described = None if metadata is None else _description(metadata, run_tag)
    with drawn(quiet) as progress:
        fusion = {"method": method, "k": k, "norm": norm, "weights": weights, "depth": depth}
        tuning = {"measure": optimize, "qrels": qrels, "folds": folds, "seed": seed, "step": step}
        fused, settings = _fused(runs, fusion, tuning, tag, progress, text=not parquet)
        if progress is not None:
            progress.close()  # the bar ended before the warnings, not run into by them
        echo_input_warnings()
        if metadata is None and output != "-":
            _write(fused, output, runs, progress)
        else:
            data = run_bytes(fused)
            if metadata is not None:  # tagged as the lines are: the method's canonical name
                data = _with_metadata(data, metadata, described, runs, settings, run_tag)
            if output == "-":
                echo_bytes(data)  # every byte, or exit 2 (cli/stdout.py)
            else:
                outputs.write_file(output, data, runs)
    topics = len(fused.column("qid").unique())
    where = "standard output" if output == "-" else output
    documents = counted(fused.num_rows, "document")
    echo_written(where, f"{documents}, {counted(topics, 'topic')}")


def _fused(runs, fusion: dict, tuning: dict, tag, progress, text: bool = True):
    """The fused run (an Arrow table in trec_eval's order) and the fusion's settings as the
    ir_metadata block records them. ``fusion``: method, k, norm, weights, depth;
    ``tuning``: --optimize's measure, qrels, folds, seed and step; ``text``: written as TREC
    text, whose lines cannot hold every id (:func:`_refuse_unwritable`)."""
    from ..fusion import (
        WEIGH_BY_OPTION,
        checked_settings,
        fuse_tables,
        k_as_given,
        method_name,
        norm_name,
        ranked_tables,
    )
    from ..runstudy import fusion_tuning

    method, k, weights = fusion["method"], fusion["k"], fusion["weights"]
    search = tuned = None
    if tuning["measure"] is not None:  # its settings checked before the runs are read
        given = {"folds": tuning["folds"], "seed": tuning["seed"], "step": tuning["step"]}
        with _named_options():
            search = fusion_tuning.FusionSearch(
                method, fusion["norm"], **given, depth=fusion["depth"]
            )
            # one run per file: a grid too fine for them refused before any is read
            fusion_tuning.check_grid_size(search.method, len(runs), search.k_grid, search.step)
            # the measure and the qrels too: a search of 30 s is not run to refuse them
            fusion_tuning.check_measure(tuning["measure"], "--optimize")
    else:  # fused as given: checked as fuse_tables checks them, before a run is read
        rrf_k = k if method_name(method) == "rrf" else None  # --k's default: RRF's alone
        depth, count = fusion["depth"], len(runs)
        checked_settings(method, fusion["norm"], rrf_k, list(weights) or None, count, depth, tag)
    advice = WEIGH_BY_OPTION if search is None else None  # --optimize chooses the weights
    tables = ranked_tables([str(run) for run in runs], progress, advice=advice)  # read once
    if search is not None:
        tuned = _optimised(tables, search, tuning, progress, runs)
        k = tuned.best.k if tuned.best.k is not None else k  # a search of weights keeps k
        weights = tuned.best.weights or ()
    weights = list(weights) or None
    k = k if method_name(method) == "rrf" else None  # --k's default: RRF's alone
    chosen = {"k": k, "norm": fusion["norm"], "weights": weights, "depth": fusion["depth"]}
    searched = tuned is not None  # the weights are the search's: no remedy names them
    fused = fuse_tables(tables, method, **chosen, tag=tag, progress=progress, searched=searched)
    if text:
        _refuse_unwritable(fused, tables, runs)
    method = method_name(method)  # recorded as applied: RRF's k, the norm a default gave
    applied = {
        "k": k_as_given(k) if method == "rrf" else None,
        "norm": norm_name(fusion["norm"], method),
    }
    # how k or the weights were chosen, the folds' seed included; null when nothing was
    # searched, so that a description cannot claim a search this call did not make
    optimized = None if tuned is None else _tuning_record(tuned, tuning["qrels"])
    return fused, {"name": method, **chosen, **applied, "optimized": optimized}


def _refuse_unwritable(fused, tables, runs) -> None:
    """An id of the fused run that no line of TREC text can hold (a qid '#1', a docno with
    a blank), refused at the first run and line it was read from, as pool refuses one: the
    writer's refusal named no file ('a TREC run cannot hold the qid'). One the fusion cut
    (``--depth``) is not written, so not refused."""
    from .. import arrow_compute as pc
    from ..files import unwritable_id, unwritable_ids

    for what in ("qid", "docno"):
        bad = unwritable_ids(fused.column(what), what)
        if bad is None or not bad.any():
            continue
        shown = str(fused.column(what)[int(bad.argmax())])
        for run, table in zip(runs, tables, strict=True):
            held = pc.equal(pc.cast(table.column(what), "large_string"), shown)
            if not pc.any(held).as_py():
                continue
            # a run of plain ids read straight into columns keeps no line numbers
            lines = pc.filter(table.column("line"), held) if "line" in table.column_names else None
            line = None if lines is None else pc.min(lines).as_py()
            raise unwritable_id(str(run), line, "a fused run", what, shown)


def _write(fused, output, runs, progress) -> None:
    """The fused run written to ``output``: TREC text, line by line as made (the bar
    counts them), or Parquet for a ``.parquet`` name."""
    from .. import outputs
    from ..files import parquet_named, run_pieces, write_run
    from ..fusion import run_frame
    from ..inputs.streams import labelled

    if parquet_named(output):
        write_run(run_frame(fused), output, runs)
        return
    outputs.write_file(output, run_pieces(fused, labelled(progress, f"writing {output}")), runs)


def _optimized_measure(ctx: click.Context, value: str | None) -> str | None:
    """--optimize's measure, refused as -m's is when it is what --optimize took for want of
    its value: the next option (``--optimize --qrels Q``: "needs --qrels" blamed the user),
    or a path (``--optimize qrels/x.qrels``). Its value is read as -m's: blanks around the
    name dropped (``"nDCG@10 "``), several names refused as --optimize's, not in the
    words of the library's measure list."""
    if value is not None:
        # only here: the measure registry (0.02-0.04 s) is for a call that optimizes
        from ..errors import excerpt
        from ..measures.expression import entry_names

        check_measure_value(ctx, "--optimize", value)
        if not value.strip():  # said of --optimize, not of the library's measures=
            raise click.UsageError(f"empty measure name {value!r}: give --optimize a value "
                                   "(e.g. --optimize nDCG@10)", ctx)  # fmt: skip
        names = entry_names(value)
        if len(names) > 1:
            raise click.UsageError(
                f"--optimize takes one measure, not {len(names)} ({excerpt(value)})", ctx
            )
        value = names[0]
    return value


def _check_given(method: str, optimize: str | None, weighted: bool) -> None:
    """Refuse an option this call would not use (never silently dropped): --k for a method
    without k, --k or -w where --optimize chooses them, and --optimize's own options
    without it."""
    from ..errors import UsageError
    from ..fusion import method_name
    from ..runstudy.fusion_grid import TUNED
    from .group import given as given_options

    given = given_options("k", "qrels", "folds", "seed", "step")
    method = method_name(method)
    if "k" in given and method != "rrf":
        raise UsageError(f"--k: {method} has no k (it is RRF's constant)")
    if optimize is None:
        unused = sorted(given - {"k"})
        if unused:
            raise UsageError(f"--{unused[0]} goes with --optimize")
        return
    tuned = TUNED.get(method)
    if tuned == "k" and ("k" in given or weighted):
        raise UsageError("--optimize chooses rrf's k with equal weights: leave out --k and -w")
    if tuned == "weights" and weighted:
        raise UsageError(f"--optimize chooses {method}'s weights: leave out -w")
    if tuned == "k" and "step" in given:
        raise UsageError("--step is the grid of weights --optimize searches; rrf's is k's grid")


@contextmanager
def _named_options():
    """The library's refusals said of the options given, as click names the others:
    ``folds must be ...`` as ``--folds must be ...``, ``optimize_fusion ...`` as
    ``--optimize ...``, "optimizing" as "--optimize"."""
    from ..errors import UsageError

    try:
        yield
    except UsageError as error:
        said = str(error)
        if said.startswith(("folds ", "seed ", "step ")):
            raise UsageError(f"--{said}") from None
        if said.startswith("optimize_fusion"):
            said = said.replace("optimize_fusion", "--optimize", 1)
            raise UsageError(said.replace("without optimizing", "without --optimize")) from None
        raise


def _optimised(tables, search, tuning: dict, progress, runs):
    """The :class:`~trecbench.runstudy.fusion_tuning.FusionTuning` of
    :func:`~trecbench.runstudy.fusion_tuning.tune_fusion` on the ranked runs with
    ``search`` (a :class:`~trecbench.runstudy.fusion_tuning.FusionSearch`), said on
    stderr with the held-out score; ``tuning``, ``progress`` and ``runs`` as
    :func:`_fused` takes them (a refusal names each run by its file, as given)."""
    from ..errors import one_line
    from ..runstudy.fusion_tuning import tune_fusion

    seed, qrels = search.seed, tuning["qrels"]
    names = [one_line(str(run)) for run in runs]
    with _named_options():
        tuned = tune_fusion(tables, qrels, tuning["measure"], search, progress, names)
    if progress is not None:
        progress.close()  # the search's bar ended before its choice is said
    click.echo(
        f"chose {tuned.best.label()} for {tuned.measure} on {one_line(str(qrels))}: held-out "
        f"{tuned.held_out:.4f} ({tuned.folds}-fold, seed {seed}; training {tuned.training:.4f}, "
        f"{len(tuned.candidates)} candidates)",
        err=True,
    )
    return tuned


def _tuning_record(tuned, qrels) -> dict:
    """What --optimize did, for the ir_metadata block: the search (seed, folds, scores)
    and the development qrels it chose on."""
    from .. import provenance

    sha256 = (provenance.recorded(qrels) or {}).get("sha256")
    return tuned.to_json() | {"qrels": {"path": str(qrels), "sha256": sha256}}


def _description(given, tag: str) -> dict:
    """The description in ``given`` (a YAML file) an ir_metadata block is made from, read
    before the fusion: a ``tag`` of its own must be the fused run's ``tag``, as convert's
    block names its run's."""
    from ..inputs import ir_metadata

    description = ir_metadata.read_file(given)
    if description.contradicts_tag(tag):
        raise description.refusal(
            ("tag",),
            f"tag {ir_metadata.as_written(description['tag'])} is not the fused run's tag "
            f"{ir_metadata.as_written(tag)}: leave the tag out or give --tag",
        )
    description.merged_under(_known(tag, {}))  # what clashes before the fusion is known
    return description


def _known(tag: str, fusion: dict) -> dict:
    """What trecbench records of the fused run in its ir_metadata block; ``fusion``: the
    settings applied and the runs (empty before the fusion: its keys are added then)."""
    from .. import __version__
    from ..inputs import ir_metadata
    from ..report import environment

    return {
        "tag": tag,
        "method": {"fusion": fusion},
        "implementation": {"source": {"name": "trecbench", "version": __version__}},
        "platform": ir_metadata.platform(environment()),  # the versions behind the numbers
    }


def _with_metadata(data: bytes, given, description: dict, runs, fusion: dict, tag: str) -> bytes:
    """The fused run's text with an ir_metadata block atop it: what trecbench knows of the
    fusion, with ``description`` (read from ``given``, :func:`_description`) over it."""
    from .. import provenance
    from ..inputs import ir_metadata

    inputs = [
        {"path": str(run), "sha256": (provenance.recorded(run) or {}).get("sha256")} for run in runs
    ]
    known = _known(tag, {**fusion, "runs": inputs})
    return utf8(ir_metadata.block_text(description.merged_under(known))) + data
