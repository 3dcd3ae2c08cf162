"""What an engine is, written down: the :class:`Evaluator` every engine module provides and
the :class:`Settings` it reads (what :class:`trecbench.evaluation.EvalSettings` holds; this
part sits below the evaluation and never imports it)."""

from __future__ import annotations

from typing import Any, Protocol

from ..measures import Measure
from ..trec_eval.compat import Compat


class Settings(Protocol):
    """The settings of an evaluation as engines read them, typed (trec_eval's flags, the
    version reproduced and the local measures' options; see
    :class:`trecbench.evaluation.EvalSettings`). ``relevance_level`` is the level as the
    judgments hold it (:meth:`trecbench.evaluation.judgments.Qrels.level`)."""

    relevance_level: int
    max_docs: int | None
    judged_only: bool
    num_docs: int | None
    rel_format: str
    debug_level: int
    float32: bool  # scores compared as float32 where the version does (score_precision)

    @property
    def version(self) -> Compat: ...

    @property
    def ontology(self) -> Any: ...

    @property
    def maxontsim_formula(self) -> str | None: ...


class Evaluator(Protocol):
    """One engine over one set of judgments (``truth``), reused for every run of a call:
    built as ``Evaluator(truth, measures, settings)`` (the native engine also takes
    ``requested``, every measure of the call).

    ``before_judged_only``: whether it applies ``-J`` itself (then it gets the run before
    the unjudged documents are dropped); ``wants_table``: whether it needs the rows moved
    into trec_eval order (an Arrow table) rather than a ranked run.
    """

    before_judged_only: bool
    wants_table: bool

    def evaluate(self, ranked, qids: list[str]) -> dict[Measure, list[tuple]]:
        """Per measure, ``(label, display, values)`` for each of its values, ``values``
        aligned with ``qids``."""
        ...
