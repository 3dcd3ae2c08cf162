"""What ``trecbench score`` prints after its scores: the unjudged bounds
(``--unjudged-bounds``) and the routing log's metrics (``--routing``); and its strata
(``--strata``, ``--group-by``) checked before them."""

from __future__ import annotations

import dataclasses
import json

from .group import echo_warning


def check_strata_first(strata, group_by: tuple[str, ...]) -> None:
    """A bad ``--strata`` sidecar refused before the work, whatever the runs (read once in
    the call: score's ``_grouped`` finds it read), and a ``--group-by`` field it lacks, or any
    field but qid-prefix without one (:func:`~trecbench.strata.check_group_field`)."""
    if strata is None and not group_by:
        return  # strata imports pandas: only when it is needed
    from ..strata import check_group_field, read_sidecar

    table = None if strata is None else read_sidecar(strata)[0]
    for by in group_by:
        check_group_field(table, by)


def with_unjudged_bounds(
    text: str, evaluation, view, wanted: bool, sidecar=None
) -> tuple[list | None, str]:
    """The unjudged bounds the scoring kept, when ``wanted`` (--unjudged-bounds), as the
    report's rows (else None), and ``text`` followed by them (in JSON: inside its
    document); a run whose qrels the ``sidecar`` (--strata) vouches for complete has its
    high at its low."""
    if not wanted:
        return None, text
    from ..conclusions.unjudged import TITLE, evaluation_bounds, render_bounds
    from ..renderers.trec_format import json_text

    bounds = evaluation_bounds(evaluation, sidecar=sidecar)
    # named as printed (-Z: ZP@2, its values z-scores), as the scores and the report are
    shown = [dataclasses.replace(b, measure=evaluation.shown(b.measure)) for b in bounds]
    rows = [bound.to_json() for bound in shown]
    if view.output_format != "json":
        asked = {
            evaluation.shown(c.display): [evaluation.shown(n) for n in c.names(view.labels)]
            for c in evaluation.columns
        }
        # titled as the table titles it (compare's Markdown has a heading of its own)
        title = f"**{TITLE}**\n\n" if view.output_format == "markdown" else ""
        bounds = render_bounds(shown, view.output_format, asked)
        return rows, view.joined(text, title + bounds)
    document = json.loads(text)
    document["unjudged_bounds"] = rows
    return rows, json_text(document)  # as plain --format json writes it


def read_routing_first(routing):
    """The --routing log read and checked before the runs are (a bad line refused before
    the work), or None without one."""
    if routing is None:
        return None
    from ..routing import read_routing_log

    return read_routing_log(routing)


def with_routing(
    text: str, log, output_format: str, topics, reported: bool, seed: int = 0
) -> tuple[dict | None, str]:
    """The routing ``log``'s metrics (:func:`read_routing_first`; against the judged
    ``topics``; :func:`routing_metrics`' 10,000 resamples, drawn from ``seed``: score's
    --seed), and ``text`` followed by them in an aligned table or Markdown, as the scores
    are, how the intervals were drawn said under it. In another format, and no --report
    (``reported``) to record them, they would be shown nowhere: said, and not computed
    (None). No ``log`` (None): ``(None, text)``, as :func:`with_unjudged_bounds` returns
    the text unbounded."""
    if log is None:
        return None, text
    from ..renderers.routing import resampling_note
    from ..routing import coverage, render_routing, routing_metrics

    warning = coverage(log, topics)  # what the log and the judged topics do not share
    if warning is not None:
        echo_warning(warning)
    shown = output_format in ("table", "markdown")
    if not (shown or reported):  # the help's example printed the scores alone, without a word
        echo_warning(
            f"--routing: its metrics are printed with --format table or markdown and recorded "
            f"in --report; --format {output_format} shows none of them"
        )
        return None, text
    routed = routing_metrics(log, seed=seed)
    if shown:
        text += "\n" + render_routing(routed, output_format) + "\n" + resampling_note(routed)
    return routed, text
