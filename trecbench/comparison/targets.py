"""The files compare writes, checked before the work and before anything is printed: what
:meth:`~trecbench.comparison.Comparison.write` would refuse only once the results are out
(an output that is an input, a folder, a link, a name too long; a manifest that is another
output). The plots of each stratum are named after the strata: those a sidecar gives are
checked as soon as it is read (:func:`check_outputs`), the others (``qid-prefix``'s, the
topics without a stratum, ``(none)``) once the comparison is made (:func:`check_plots`).
Files an earlier call left in the folder, which this one would not replace, are refused
alike: before the work those that cannot be this call's (another grouping's plots), once
the comparison is made, before it is printed, the others (:func:`check_folder`)."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from .. import output_identity, outputs
from ..errors import Setting, UsageError
from ..escaping import group_place
from ..naming import path_argument
from ..type_names import flag_from
from .figures import plot_paths
from .files import (
    HTML_FILE,
    LATEX_FILE,
    MARKDOWN_FILE,
    PLOT_FIGURES,
    PLOT_PATTERNS,
    REPORT_FILE,
    compare_folder_files,
)
from .settings import ALL, MACRO


def check_outputs(
    outdir: str | os.PathLike,
    *,
    plots: bool = False,
    runs: int = 1,
    manifest: str | os.PathLike | None = None,
    inputs: Sequence[str | os.PathLike] = (),
    strata=None,
    group_by: str | Sequence[str] | None = None,
    curves: bool = False,
) -> None:
    """Refuse, before a comparison of ``runs`` runs is computed, what
    :meth:`Comparison.write` would refuse only once it is: one of the files it writes
    whatever the results (report, Markdown, LaTeX, with ``plots`` the plots over all
    topics and those of each stratum a sidecar's ``strata`` gives the fields of
    ``group_by``, the ``manifest``) that is one of ``inputs``, a symbolic link or not a
    regular file, a name the system refuses, or a manifest that is one of the others.
    ``curves``: the runs' precision-recall curves will be known (the command line keeps
    them as it reads the runs), so its plots are checked too."""
    out = Path(outdir)
    files = [out / name for name in (REPORT_FILE, MARKDOWN_FILE, LATEX_FILE, HTML_FILE)]
    fields: list[str] = []
    if plots:  # the plots are named after the fields (group_by=5 raised a TypeError here)
        from .tables import group_fields

        fields = group_fields(group_by)
        sections = [(ALL, ALL), *_sidecar_sections(strata, fields)]
        files += plot_paths(out, sections, runs, curves)
    if manifest is not None:
        check_manifest(Path(manifest), files)
        files.append(Path(manifest))
    for path in files:
        outputs.check_target(path, inputs)
    # other calls' files in the folder; those this call may yet write are known exactly
    # once the comparison is made (check_folder): the curve, strata's plots
    maybe = _unnamed_plots(out, fields) if plots else []
    outputs.settle(out)  # a set a killed call left half in place, finished before it is looked at
    outputs.refuse_strays(
        out, compare_folder_files(out), files + maybe, inputs, "this comparison's"
    )


def check_folder(
    comparison,
    outdir: str | os.PathLike,
    *,
    plots: bool = False,
    manifest: str | os.PathLike | None = None,
    html: bool,
) -> None:
    """Refuse, before ``comparison`` is printed, what :meth:`Comparison.write` would refuse
    once it is: files of the kinds compare writes into ``outdir`` that this call would not
    replace (an earlier call's plots or page), a manifest that is one of the plots, and,
    with ``plots``, a plot that cannot be written there (:func:`check_plots`). ``html``:
    whether report.html is written (the ``html`` extra installed:
    :func:`~trecbench.comparison.html_available`)."""
    out = Path(outdir)
    files = output_paths(comparison, out, plots=plots, manifest=manifest, html=html)
    check_plots(path for path, kind in files.items() if kind == "plot")
    inputs = [record["path"] for record in comparison.inputs or []]
    outputs.settle(out)
    outputs.refuse_strays(out, compare_folder_files(out), list(files), inputs, "this comparison's")


def output_paths(
    comparison,
    outdir: str | os.PathLike,
    *,
    plots: bool = False,
    manifest: str | os.PathLike | None = None,
    html: bool,
) -> dict[Path, str]:
    """Each file :meth:`Comparison.write` writes of ``comparison``, path -> kind (as its
    manifest records it), in the order written: into ``outdir`` the report, the Markdown
    and LaTeX tables, with ``html`` report.html, with ``plots`` each section's plots
    (named after strata only the comparison knows; the precision-recall curve when the
    runs' curves are known), then the ``manifest``, refused if it is one of the others
    (:func:`check_manifest`)."""
    out = path_argument(outdir, "outdir")
    plots = flag_from("plots", plots)  # plots="no" was truthy: the plots were written
    files = {
        out / REPORT_FILE: "report",
        out / MARKDOWN_FILE: "markdown",
        out / LATEX_FILE: "latex",
    }
    if html:
        files[out / HTML_FILE] = "html"
    if plots:
        sections = [(section.label, section.kind) for section in comparison.sections]
        curves = bool(comparison.precision_recall())
        files |= dict.fromkeys(plot_paths(out, sections, len(comparison.runs), curves), "plot")
    if manifest is not None:
        manifest = path_argument(manifest, "manifest")
        check_manifest(manifest, files)
        files[manifest] = "manifest"
    return files


def check_plots(paths: Iterable[Path]) -> None:
    """Refuse, before a comparison is printed, a plot :meth:`Comparison.write` would write
    (``paths``, :func:`output_paths`) that cannot be written there: each section's, named
    after strata that only the comparison knows, and the precision-recall curve, drawn
    when the runs' curves are known."""
    for path in paths:
        outputs.check_target(path)  # the call's inputs are known to its input scope


# what each file compare writes is, as a refusal names it; any other is a plot
_OUTPUT_KINDS = {
    REPORT_FILE: "report", MARKDOWN_FILE: "Markdown table", LATEX_FILE: "LaTeX table",
    HTML_FILE: "page",
}  # fmt: skip


def check_manifest(manifest: Path, files: Iterable[Path]) -> None:
    """Refuse a manifest that is another output of compare, or the folder it writes into,
    or named as compressed (written uncompressed, as score's is refused)."""
    from ..publication import refuse_compressed_name
    from ..report import JSON_FILE

    refuse_compressed_name(manifest, JSON_FILE)
    named = (Setting("manifest"), f" {manifest}")  # the path whole (a value part is cut)
    for path in files:
        found = output_identity.collision(manifest, path)
        if found == "same":
            kind = _OUTPUT_KINDS.get(path.name, "plot")
            raise output_identity.written_twice(manifest, Setting("manifest"), f"compare's {kind}")
        if found == "holds":
            raise UsageError(*named, f" is a folder compare writes {path} into")
        if output_identity.collision(path, manifest) == "holds":  # cmo/BenchmarkReport.json/m.json
            raise UsageError(*named, f" lies under {path}, a file compare writes")


def _unnamed_plots(out: Path, fields: list[str]) -> list[Path]:
    """The plots in ``out`` this call may write whose names only the comparison knows: the
    precision-recall curve over all topics and, of each of the ``fields`` grouped by, its
    macro section's and its strata's (``qid-prefix``'s, the topics without a stratum). Any
    other plot there is another call's: refused before the work."""
    from ..plots import file_suffixes

    prefixes = tuple(
        prefix
        for field in fields
        for prefix in file_suffixes(
            [group_place(field, "group", "", blanks=False), group_place(field, MACRO, blanks=False)]
        ).values()
    )
    found = []
    for path in (path for pattern in PLOT_PATTERNS for path in out.glob(pattern)):
        figure = next(name for name in PLOT_FIGURES if path.name.startswith(name))
        suffix = path.stem[len(figure) :]
        if suffix == "" or (prefixes and suffix.startswith(prefixes)):
            found.append(path)
    return found


def _sidecar_sections(strata, fields: list[str]) -> list[tuple[str, str]]:
    """The sections (label, kind) of the ``fields`` grouped by that a sidecar (a path, or the
    table :func:`trecbench.load_strata` reads) gives: each field's macro section and one
    per value it holds, in a comparison's order. The strata of ``qid-prefix``, of topics
    the sidecar does not hold (``(none)``) and of a mapping depend on the topics compared:
    :func:`check_plots`. A field the sidecar lacks is refused where the strata are read.
    (A value held only by topics the qrels lack names no plot, yet is checked: what lies
    in the folder under its name, a folder or a link, is no output of compare's either.)"""
    from .tables import sections_of, strata_table

    if strata is None or isinstance(strata, Mapping) or not fields:
        return []
    import pandas as pd

    frame = strata_table(strata)  # read once in a call: compare's reading finds it
    values = {
        field: {
            qid: str(value)
            for qid, value in zip(frame["qid"], frame[field], strict=True)
            if not pd.isna(value)
        }
        for field in fields
        if field in frame.columns and field != "qid"
    }
    held = list(dict.fromkeys(qid for mapping in values.values() for qid in mapping))
    return [(part.section.label, part.section.kind) for part in sections_of(held, values)[1:]]
