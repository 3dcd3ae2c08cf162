"""``trecbench score``'s --html page (a comparison of its runs) and the report's record of
what was resampled, as many resamples as each draw made (--routing's, the page's)."""

from __future__ import annotations

import contextlib

from . import progress as bars  # looked up when called: tests draw them as on a terminal
from .group import echo_warning


def html_page_of(
    evaluation, html_page, html_depth: int, grouping, quiet: bool, seed: int, stamp=None
):
    """``(path, page)`` of the --html page (made before any output, a page without a mean
    refused first; drawn unless ``quiet``; its warnings said), or None without one.
    ``grouping``: (--strata, its table, --group-by): a section per stratum, as compare's;
    ``seed``: of its intervals' resampling (--seed), compare's defaults otherwise;
    ``stamp``: the created time and experiment id it records, its report's."""
    if html_page is None:
        return None
    from ..comparison import from_evaluation
    from ..report import input_record

    strata, sidecar, group_by = grouping
    with bars.drawn(quiet) as progress:  # ended before the warnings
        paired = from_evaluation(
            evaluation, page_statistics(seed), strata=sidecar, group_by=group_by,
            progress=progress,
        )  # fmt: skip
        paired.inputs += [input_record(strata, "strata")] if strata is not None else []
        # the page of score's runs (a comparison of them below its means), not compare's
        page = paired.to_html(
            html_depth, title="trecbench score report", progress=progress, stamp=stamp
        )
    for line in paired.warnings:
        echo_warning(line)
    return html_page, page


def page_statistics(seed: int):
    """The statistics of the page's intervals: compare's defaults, ``seed``'s resampling."""
    from ..comparison import StatsSettings

    return StatsSettings(seed=seed)


def resampling_record(seed: int, routed, page) -> dict | None:
    """The report's ``resampling`` record: the seed and resamples of what was drawn
    (``routing`` where its metrics ``routed`` were computed, ``html`` for the ``page``),
    None where nothing random was drawn. The resamples are counted as drawn: the routing
    metrics' settings, the page's :func:`page_statistics`."""
    counts = {}
    if routed is not None:
        counts["routing"] = routed["settings"]["samples"]
    if page is not None:
        counts["html"] = page_statistics(seed).samples
    if not counts:
        return None
    if len(set(counts.values())) > 1:  # the record holds one count
        raise RuntimeError(f"the resamples drawn differ, one is recorded: {counts}")
    samples = next(iter(counts.values()))
    return {"seed": int(seed), "samples": int(samples), "drawn_for": list(counts)}


def files_written(flags, html_page) -> list:
    """The files ``score`` writes: ``--report``, ``--manifest`` and ``--html``, given ones."""
    return [path for path in (flags["report"], flags["manifest"], html_page) if path is not None]


def files_after_stdout(written: list):
    """:func:`trecbench.outputs.commits_held` when the call writes files (``written``):
    they are staged whole in the block, which then prints standard output, and put in
    place as it ends (the small path, writing none, imports no :mod:`trecbench.outputs`)."""
    if not written:
        return contextlib.nullcontext()
    from ..outputs import commits_held

    return commits_held()


def write_files(
    evaluation, flags, inputs, groups, notes, routed, page, bounded, resampling, stamp
) -> None:
    """The report, manifest and page together, all or none (:func:`write_score_outputs`;
    ``inputs``: the strata and routing files by kind, None where not given)."""
    from ..report import write_score_outputs

    write_score_outputs(
        evaluation,
        report=flags["report"],
        manifest=flags["manifest"],
        meta=flags["meta"],
        extra_inputs=[(path, kind) for kind, path in inputs.items() if path is not None],
        groups=groups,
        warnings=notes,
        routing=routed,
        html=page,
        unjudged_bounds=bounded,
        resampling=resampling,
        stamp=stamp,
    )
