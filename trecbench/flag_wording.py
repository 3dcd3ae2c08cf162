"""The one wording of flagged topics as warnings (:class:`FlagWarning`): a run's topics
the qrels lack, the qrels' topics a run lacks, without a relevant document, with negative
grades. Below the evaluation, which flags them
(:func:`~trecbench.evaluation.flag_warnings.flag_warnings`), so that pool, which scores
nothing, says a run's topics the qrels lack in the same words without importing it."""

from __future__ import annotations

from .escaping import ShownWarning, id_list


def no_relevant_document(topic: str, level: int, graded: bool) -> str:
    """What a topic without a document of grade ``level`` or more scores (``topic``: its
    id as the message shows it): 0 on every measure, but those of graded gains when it has
    ``graded`` documents of a positive grade below ``level`` (-l changes no gain: trec_eval's
    nDCG and G count every positive grade; Rndcg, cut at no relevant document, does not).
    Said by the scoring and by validate (Q7); the warnings' line says "0 on binary
    measures" of every such topic."""
    said = (
        f"topic {topic} has no relevant document (grade >= {level}): it scores 0 on every measure"
    )
    if graded:
        said += " of binary relevance (nDCG and G count its grades)"
    return said


# each kind of flagged topic: its noun, singular and plural, and what is said of them
_REASONS = {
    "no_relevant": (
        ("qrels topic has", "qrels topics have"),
        "no relevant document (0 on binary measures where counted)",
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
    # a run_only topic that prints as a qrels_only one (trecbench.id_forms)
    "other_form": (
        ("run topic matches", "run topics match"),
        "a qrels topic only in another Unicode normalization form (NFC, NFD), not as bytes "
        "(as trec_eval compares ids)",
    ),
    # pool's run_only: such a topic is pooled, not ignored, and nothing in it is judged
    "run_only_pooled": (
        ("run topic is", "run topics are"),
        "not in the qrels (nothing judged there: every document pooled is to judge)",
    ),
}


class FlagWarning(ShownWarning):
    """One line of :func:`~trecbench.evaluation.flag_warnings.flag_warnings` (and pool's
    ``run_only_pooled``), in parts: the flags' ``reason``, the ``run`` they are of (None:
    the qrels'), their topics (``qids``), whether the runs were scored with ``-c``
    (``complete``) and ``where`` (None, or what the line is about when a command reads
    several qrels: a path, a collection), so that each output escapes the run's name, the
    ids and ``where`` as it escapes its other input text (the ids as items of a list,
    :func:`~trecbench.escaping.id_list`, the plain message's too)."""

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
            what = "no relevant document (0 on binary measures, and counted: -c)"
        noun = one if len(qids) == 1 else many
        prefix = "".join(f"{shown(part)}: " for part in (where, run) if part)
        return f"{prefix}{len(qids)} {noun} {what}: {id_list(qids, shown)}"
