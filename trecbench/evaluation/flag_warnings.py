"""The flagged topics of an evaluation (:class:`~.results.FlaggedTopic`) as warnings, one
line per kind of flag (and run), in one wording for every command: ``score`` says every
kind; ``compare``, ``power``, ``agree``, ``leaderboard`` and ``benchmark`` the kinds
:data:`SAID_BY_EVERY_COMMAND` names, which change what their means and tests are over
(or read) without their saying so otherwise."""

from __future__ import annotations

from collections.abc import Collection, Iterable

from ..escaping import ShownWarning, id_list
from .results import FlaggedTopic

# each kind of flagged topic: its noun, singular and plural, and what is said of them
_REASONS = {
    "no_relevant": (
        ("qrels topic has", "qrels topics have"),
        "no relevant document (scored 0 where counted)",
    ),
    "negative_grades": (
        ("qrels topic has", "qrels topics have"),
        "negative grades (treated as unjudged)",
    ),
    "run_only": (
        ("run topic is", "run topics are"),
        "not in the qrels (ignored, also with -c)",
    ),
    "qrels_only": (("qrels topic is", "qrels topics are"), "not in the run"),
}

# a run's topics the qrels lack (left out of its means, its tests, every ordering) and
# the qrels' negative grades (read as unjudged): what every command that scores runs says
# in score's words. A topic without a relevant document and a qrels topic a run lacks each
# command says in its own terms (compare's header, power's and agree's missing topics,
# the leaderboard's lacking systems), as they count there as its statistics count them.
SAID_BY_EVERY_COMMAND = frozenset({"run_only", "negative_grades"})


class FlagWarning(ShownWarning):
    """One line of :func:`flag_warnings`, in parts: the flags' ``reason``, the ``run``
    they are of (None: the qrels'), their topics (``qids``), whether the runs were scored
    with ``-c`` (``complete``) and ``where`` (None, or what the line is about when a
    command reads several qrels: a path, a collection), so that each output escapes the
    run's name, the ids and ``where`` as it escapes its other input text (the ids as
    items of a list, :func:`~trecbench.escaping.id_list`, the plain message's too)."""

    parts = ("reason", "run", "qids", "complete", "where")

    @staticmethod
    def said(
        reason: str, run: str | None, qids: tuple, complete: bool, where: str | None, shown
    ) -> str:
        (one, many), what = _REASONS[reason]
        if reason == "qrels_only":
            what += (
                " (counted as 0 in the averages: -c)"
                if complete
                else " (ignored; -c would count them as 0)"
            )
        elif reason == "no_relevant" and complete:
            what = "no relevant document (scored 0, and counted: -c)"
        noun = one if len(qids) == 1 else many
        prefix = "".join(f"{shown(part)}: " for part in (where, run) if part)
        return f"{prefix}{len(qids)} {noun} {what}: {id_list(qids, shown)}"


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
    names the one the flags are of)."""
    groups: dict[tuple, list[str]] = {}
    for flag in flags:
        if reasons is None or flag.reason in reasons:
            groups.setdefault((flag.reason, flag.run), []).append(flag.qid)
    return [
        FlagWarning(reason, run, tuple(qids), complete, where)
        for (reason, run), qids in groups.items()
    ]
