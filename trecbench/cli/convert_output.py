"""What ``trecbench convert`` does with a conversion: validated files written (or its
single run to standard output, ``-o -``), with the ``--ir-metadata`` block atop every run,
and a short summary with the command that compares the runs."""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

import click

from ..plurals import counted
from .stdout import echo_bytes

if TYPE_CHECKING:
    from .progress import TaskProgress

# -o -: a conversion's single run to standard output; the text as given (OutputFolder),
# never a Path: Path("./-") == Path("-"), and -o ./- names a folder called -
STDOUT = "-"

# "1 query", "2 queries"
_queries = partial(counted, singular="query", plural="queries")


@dataclass(frozen=True)
class GroupOptions:
    """What ``trecbench convert``'s own options hand its converters (the click context's
    object): the ``--ir-metadata`` file, if any; and the bars a converter's command draws
    (``progress(label, done, total)``; None with ``--quiet`` or off a terminal)."""

    ir_metadata: Path | None = None
    quiet: bool = False  # convert --quiet, given before the converter's name
    progress: TaskProgress | None = None


def finish(conversion, outdir: Path | str, inputs, runs_dir: Path | None) -> None:
    """Write (validated) outputs and say on stderr what was written, in a short summary
    (and, for several runs each with its own qrels, the command that compares them), as
    every command says ``wrote PATH``. With ``-o -``, the single run goes to stdout."""
    from ..convert.common import write_conversion

    shared = click.get_current_context().find_object(GroupOptions)
    if not conversion.runs:  # options of runs would change nothing: refused, not ignored
        unused = [
            name
            for name, given in (
                ("--ir-metadata", shared is not None and shared.ir_metadata is not None),
                ("--runs-dir", runs_dir is not None),
            )
            if given
        ]
        if unused:
            raise click.UsageError(
                f"{' and '.join(unused)}: this conversion writes no run (its qrels and "
                "sidecar only)"
            )
    conversion = _with_metadata(conversion, inputs)
    progress = None if shared is None else shared.progress
    if outdir == STDOUT:
        written = _run_to_stdout(conversion, inputs, runs_dir, progress)
        _summary(conversion, written)
    else:  # said once the files are in place (the conversion's own notes among it)
        announce = partial(_summary, conversion, progress=progress)
        write_conversion(conversion, outdir, inputs, runs_dir, announce, progress)


def _summary(conversion, paths: dict, progress=None) -> None:
    """What was written (``paths``), the conversion's counts and notes, and the command
    that compares its runs, on stderr (standard output is the run's, with ``-o -``, or
    nothing); on lines of their own, the last bar of ``progress`` cleared first."""
    if progress is not None:
        progress.close()
    from ..convert.common import compare_command
    from ..escaping import escape_text

    echo = partial(click.echo, err=True)
    for name, table in conversion.qrels.items():
        info = conversion.qrels_info.get(name, {})
        pooled = " (pooled)" if info.get("pooled") else ""
        echo(
            f"wrote {escape_text(paths['qrels:' + name])}: {_queries(table['qid'].nunique())}, "
            f"{int((table['rel'] > 0).sum())} relevant{pooled}"
        )
    for run in conversion.runs:
        stats = run.stats
        ties = stats["tied_adjacent_scores"]
        tie_text = (
            f"; {counted(ties, 'tied score')} in {_queries(stats['queries_with_ties'])} kept in "
            f"{conversion.tie_order}"
            if ties
            else ""
        )
        single = stats.get("float32_only_ties", 0)
        if single:  # trec_eval 9.x holds scores as float32: these tie there too
            tie_text += f"; {counted(single, 'tie')} at float32 precision only (trec_eval 9.x's)"
        inversions = stats.get("score_inversions", 0)
        if inversions:  # a ranking whose order is not its scores': the run keeps the ranking
            tie_text += (
                f"; {counted(inversions, 'score inversion')} (a score above the one ranked "
                f"before it) kept in {conversion.tie_order}"
            )
        echo(
            f"wrote {escape_text(paths['run:' + run.tag])}: {_queries(stats['queries'])}, "
            f"{counted(stats['documents'], 'document')}{tie_text}"
        )
    if "sidecar" in paths:
        echo(f"wrote {escape_text(paths['sidecar'])}")
    for reason, count in conversion.report.counts.items():
        echo(f"  {count} × {reason}")
    for note in conversion.report.notes:
        echo(f"  note: {note}")
    command = compare_command(conversion, paths)
    if command is not None:
        echo(f"compare the runs with:\n  {command}")


def _with_metadata(conversion, inputs):
    """The conversion with the ir_metadata of ``convert --ir-metadata`` (if given)."""
    shared = click.get_current_context().find_object(GroupOptions)
    given = None if shared is None else shared.ir_metadata
    if given is None:
        return conversion
    import dataclasses

    from .. import provenance
    from ..inputs import ir_metadata
    from ..report import tool

    description = ir_metadata.read_file(given)
    stray = [run.tag for run in conversion.runs if description.contradicts_tag(run.tag)]
    if stray:  # each run's block names the run's own tag
        params = click.get_current_context().command.params
        tagged = any(param.name in ("tag", "tags") for param in params)
        raise description.refusal(
            ("tag",),
            f"tag {ir_metadata.as_written(description['tag'])} is not the tag of run "
            f"{ir_metadata.as_written(stray[0])}: leave the tag out (each run's block names "
            "its own)" + (" or give --tag" if tagged else ""),
        )
    sources = [
        {"path": str(path), "sha256": (provenance.recorded(path) or {}).get("sha256")}
        for path in inputs
    ]
    # the run's implementation is the system that made it, not trecbench: that converted it
    made = {"converter": conversion.converter, "tool": tool()}
    options = conversion.provenance.get("options")
    if options is not None:  # the sidecar's: the options that changed the runs (--depth...)
        made["options"] = options
    known = {"method": {"conversion": made}, "data": {"converted": sources}}
    metadata = description.merged_under(known)
    conversion.report.notes.append(  # said where it is seen, not in the sidecar only
        "each run begins with its ir_metadata block: trecbench and trec_eval 10.0 skip it, "
        "trec_eval 9.0.8 cannot read the file (R30)"
    )
    # an input of the call as the files converted are: its path and checksum recorded
    read = provenance.recorded(given) or {}
    record = {
        "path": str(given),
        "kind": "ir_metadata",
        "size": read["size"],
        "sha256": read["sha256"],
    }
    recorded = {**conversion.provenance, "inputs": [*conversion.provenance["inputs"], record]}
    return dataclasses.replace(conversion, ir_metadata=metadata, provenance=recorded)


def refuse_stdout(outdir: Path | str, runs: int | None, qrels: int, per: str | None = None) -> None:
    """``-o -`` refused before any input is read where the converter's arguments say it
    makes no single run alone: ``runs`` runs (None: one per ``per``, a count only the
    input tells) and ``qrels`` qrels files; in the words of the refusal after converting
    (:func:`_run_to_stdout`, which stays for what only the input tells)."""
    if outdir != STDOUT or (runs == 1 and not qrels):
        return
    from ..errors import OutputError

    if runs is None:
        raise OutputError(_not_single(f"a run and its qrels per {per}"))
    raise OutputError(_not_single(f"{counted(runs, 'run')} and {qrels} qrels"))


def _not_single(writes: str) -> str:
    """The refusal of ``-o -`` for a conversion that ``writes`` more than a single run."""
    return f"-: standard output takes a single run; this conversion writes {writes} (give a folder)"


def _run_to_stdout(conversion, inputs, runs_dir: Path | None, progress) -> dict[str, object]:
    """Print the conversion's single run (validated as a written one: it is written and
    checked in a scratch folder first); its sidecar is not kept. What was "written"."""
    from ..convert.common import write_conversion
    from ..scratch import scratch_folder

    if runs_dir is not None:
        raise click.UsageError("-o -: the run goes to standard output; --runs-dir is not used")
    if click.get_current_context().params.get("name") is not None:  # it names no run
        raise click.UsageError(
            "-o -: the run goes to standard output; --name is not used (it names the "
            "qrels and sidecar, which are not written: --tag names the run)"
        )
    if conversion.qrels or len(conversion.runs) != 1:  # a refused output, as pool -o - is
        from ..errors import OutputError

        runs = counted(len(conversion.runs), "run")
        raise OutputError(_not_single(f"{runs} and {len(conversion.qrels)} qrels"))
    key = f"run:{conversion.runs[0].tag}"
    # locked while it lives: one a SIGKILL leaves is removed by the next (trecbench.scratch)
    with scratch_folder("trecbench-convert.") as scratch:
        written = write_conversion(conversion, scratch, inputs, progress=progress)
        data = written[key].read_bytes()
    if progress is not None:  # the run's bytes on a line of their own (a terminal's)
        progress.close()
    echo_bytes(data)  # every byte, or exit 2 (cli/stdout.py)
    return {key: "standard output"}
