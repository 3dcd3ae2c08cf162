"""The one wording of topics whose qrels hold no relevant document: every command's
(score's flagged topics aside), power's, agree's, the leaderboard's and compare's header.
Below the evaluation and the renderers alike, so that a renderer says it without importing
the code that found the topics."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .escaping import escape_text, id_list
from .plurals import counted


def without_relevant_warning(
    where: str,
    qids: Sequence[str],
    level: int,
    scored: str,
    shown: Callable[[str], str] = escape_text,
) -> str:
    """The warning of topics (``qids``, each listed as ``shown`` shows it, then as an item
    of a list: :func:`~trecbench.escaping.id_list`; a renderer whose ids are escaped
    already shows each as it is) of the qrels ``where`` is about (a path, a
    collection) without a relevant document at ``level``: every one of the ``scored``
    (runs, systems) scores 0 there on a measure of relevant documents, and they count in
    the means."""
    return (
        f"{where}: {counted(len(qids), 'topic')} without a relevant document "
        f"(grade >= {level}): the measures of relevant documents are 0 there for every "
        f"{scored}, and the topics count: {id_list(qids, shown)}"
    )
