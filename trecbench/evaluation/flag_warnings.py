"""The flagged topics of an evaluation (:class:`~.results.FlaggedTopic`) as warnings, one
line per kind of flag (and run), in one wording for every command: ``score`` says every
kind; ``compare``, ``power``, ``agree``, ``leaderboard`` and ``benchmark`` the kinds
:data:`SAID_BY_EVERY_COMMAND` names, which change what their means and tests are over
(or read) without their saying so otherwise. Their words are
:class:`~trecbench.flag_wording.FlagWarning`'s. Also what ``score`` says of the values it
prints undefined (:func:`undefined_warnings`)."""

from __future__ import annotations

from collections.abc import Collection, Iterable

import numpy as np

from .. import id_forms
from ..errors import one_line
from ..flag_wording import FlagWarning
from ..plurals import counted
from .results import FlaggedTopic

# a run's topics the qrels lack (left out of its means, its tests, every ordering) and
# the qrels' negative grades (read as unjudged): what every command that scores runs says
# in score's words. A topic without a relevant document and a qrels topic a run lacks each
# command says in its own terms (compare's header, power's and agree's missing topics,
# the leaderboard's lacking systems), as they count there as its statistics count them.
SAID_BY_EVERY_COMMAND = frozenset({"run_only", "negative_grades"})


def flag_warnings(
    flags: Iterable[FlaggedTopic],
    complete: bool = False,
    reasons: Collection[str] | None = None,
    where: str | None = None,
) -> list[FlagWarning]:
    """One line per kind of flagged topic (and run) among ``flags`` (of ``reasons`` only,
    when given), in the order first flagged, listing a few topic ids. A qrels topic
    without a relevant document counts only where it is scored: in the runs that hold it,
    or in every run with -c (``complete``; the qrels_only line says which runs lack it).
    ``where``: what each line is about, said first (a command that reads several qrels
    names the one the flags are of). A run's topics the qrels lack that are qrels topics
    it lacks in another Unicode normalization form, printed alike, are said so too."""
    every: dict[tuple, list[str]] = {}
    for flag in flags:
        every.setdefault((flag.reason, flag.run), []).append(flag.qid)
    groups: dict[tuple, list[str]] = {}
    for (reason, run), qids in every.items():
        if reasons is not None and reason not in reasons:
            continue
        groups[reason, run] = qids
        if reason != "run_only":
            continue
        alike = id_forms.alike(qids, every.get(("qrels_only", run), ()))
        if alike:  # said next to the run's topics the qrels lack, printed alike
            groups["other_form", run] = alike
    return [
        FlagWarning(reason, run, tuple(qids), complete, where)
        for (reason, run), qids in groups.items()
    ]


def undefined_warnings(evaluation) -> list[str]:
    """One line per run whose values of some measure are undefined (NaN: ``-J`` leaving
    nothing judged in the cut, trec_eval's ``-nan``) on some topic: the measures, the
    first topic and how many more; score prints them as trec_eval does, a number in no
    output (the page leaves them out, compare refuses them). Without ``-J``, ``-Z``'s are
    said by its own warnings (a mean or stddev no number, a line missing) alone."""
    settings = evaluation.settings
    if settings.zscores is not None and not settings.judged_only:
        return []
    cause = ""
    if settings.judged_only:
        also = "; or the -Z file's mean or stddev" if settings.zscores is not None else ""
        cause = f" (-J: nothing judged is left in the cut{also})"
    lines, named = [], {column.label: column.name("asked") for column in evaluation.columns}
    for run in evaluation.runs:
        undefined = {label: np.isnan(values) for label, values in run.values.items()}
        labels = [label for label, nan in undefined.items() if nan.any()]
        if not labels:
            continue
        topics = np.logical_or.reduce([undefined[label] for label in labels])
        measures = ", ".join(one_line(named.get(label, label)) for label in labels)
        first, more = run.qids[int(np.argmax(topics))], int(topics.sum()) - 1
        others = f" and {counted(more, 'other topic')}" if more else ""
        lines.append(
            f"{one_line(run.name)}: {measures} undefined on topic {one_line(first)}"
            f"{others}{cause}: printed -nan or nan, as trec_eval prints it, and so is the "
            "mean over topics (no number: null in JSON, empty in CSV)"
        )
    return lines
