"""A run's documents the qrels leave unjudged (:class:`Unjudged`) and the warning about a
run the qrels mostly do not know (:class:`UnjudgedWarning`), with its advice."""

from __future__ import annotations

import os
from dataclasses import dataclass

from ..escaping import ShownWarning
from ..plurals import share_percent


@dataclass(frozen=True)
class Unjudged:
    """A run's documents the qrels leave unjudged, over its evaluated topics (not counted
    when every measure credits unjudged documents, as MaxOntSim does): within the
    evaluated ``depth`` (the deepest rank its measures look at; None: the whole ranking,
    after ``-M``) it ``retrieved`` documents, ``unjudged`` of them have no judgment or a
    negative grade (trec_eval's "in the pool, unjudged", as the unjudged bounds, X4 and
    10.0's ``unj`` count them; ``Judged@k`` counts any qrels line), and in
    ``empty_topics`` of its ``topics`` none has a grade of 0 or more."""

    depth: int | None
    retrieved: int
    unjudged: int
    topics: int
    empty_topics: int

    @property
    def fraction(self) -> float:
        """Share of the retrieved documents unjudged."""
        return self.unjudged / self.retrieved if self.retrieved else 0.0

    def flagged(self, threshold: float = 0.5) -> bool:
        """Whether the run looks scored against qrels that do not know its documents: over
        ``threshold`` of its retrieved documents have no judgment and, in nearly every
        topic (:data:`NEARLY_ALL`), none has.

        The share of documents alone cannot tell: qrels that list only relevant documents
        (code-chunk's, BEIR's, the HPO demo's) leave every non-relevant document unjudged,
        so a run scored against its own such qrels has 1 - precision of them unjudged
        (59% for code-chunk's fixed chunker at rank 5; 99% for the HPO demo's tf-idf
        baselines at rank 100). What qrels made for other documents do is leave nothing
        judged in (nearly) every topic: 363 of 373 topics for the other chunker's qrels,
        where the HPO demo's tfidf-word baseline still finds something in 16 of 56.
        """
        empty = self.empty_topics / self.topics if self.topics else 0.0
        return self.fraction > threshold and empty >= NEARLY_ALL

    def message(self, run: str, qrels: str | None, shown=str, sidecar: bool = False) -> str:
        """The warning: the fractions, the counts and the likely cause; the ``run``'s name
        and the ``qrels`` path, read from inputs, as ``shown`` shows them (an output's
        :func:`~trecbench.escaping.escaper`); ``sidecar``: a sidecar was given and does not
        vouch for these qrels (its advice is then not to give one)."""
        where = "" if self.depth is None else f" within rank {self.depth}"
        path, qrels = qrels, "the qrels" if not qrels else shown(qrels)
        share = share_percent(self.fraction)  # 0% or 100% only when it is
        return (
            f"{shown(run)}: {share} of the documents it retrieved{where} are unjudged in "
            f"{qrels} ({self.unjudged:,} of {self.retrieved:,}; "
            f"none judged in {self.empty_topics:,} of {self.topics:,} topics), so its "
            "scores are mostly zeros: are these the qrels of this run? (each run of a "
            f"code-chunk or memorybench conversion has its own qrels"
            f"{_sidecar_hint(path, sidecar)})"
        )


def _sidecar_hint(qrels: str | None, sidecar: bool) -> str:
    """How to go on with complete qrels, said only where a sidecar can vouch for them: a
    sidecar names a qrels file, so not for standard input, a pipe (``<(...)``), an
    ir_datasets id or qrels in memory (None); where one was given, why it did not."""
    if sidecar:
        return (
            "; the sidecar given (--strata) does not vouch for them: it does not describe "
            "them as complete, or pairs this run's tag with other qrels, or lists no run "
            "of this tag beside several qrels files"
        )
    if not qrels or os.fspath(qrels) == "-" or not os.path.isfile(qrels):
        return ""
    return (
        "; qrels that list every relevant document, as hpo's do, leave the rest unjudged: "
        "give the sidecar that describes them as complete, --strata"
    )


class UnjudgedWarning(ShownWarning):
    """The warning about a run the qrels mostly do not know, in parts: the ``run``'s name,
    the ``qrels`` path it was scored with (None: in memory) and its :class:`Unjudged`
    counts, so that each output escapes the name and the path as it escapes its other
    input text (:meth:`~trecbench.escaping.ShownWarning.text`)."""

    parts = ("run", "qrels", "unjudged", "sidecar")
    allowed_by = "--allow-unjudged"  # compare refuses such a run without it

    @staticmethod
    def said(run: str, qrels: str | None, unjudged: Unjudged, sidecar: bool, shown) -> str:
        return unjudged.message(run, qrels, shown, sidecar)


UNJUDGED_THRESHOLD = 0.5  # default share of unjudged documents of Unjudged.flagged
NEARLY_ALL = 0.9  # share of topics with nothing judged that Unjudged.flagged also needs
