"""Per-topic values of several runs under one qrels, as a ``topics x runs x measures``
array: what power, agreement and discriminative power are computed from.

The values come from :func:`trecbench.evaluate` (no scoring here). Topics are those of the
qrels and a run without results for a topic scores 0 on it (trec_eval ``-c``, compare's
default ``missing="zero"``), so every run is paired with every other on the same topics.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np


def check_level(name: str, value, above: float = 0.0) -> None:
    """Refuse a level (alpha, a target power) that is not a real number in (above, 1)."""
    import numbers

    from ..errors import UsageError

    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not above < value < 1:
        raise UsageError(f"{name} must be between {above:g} and 1, not {value!r}")


def source_name(source) -> str | None:
    """A file input's path as text; None for in-memory inputs (frames, dicts...)."""
    return str(source) if isinstance(source, (str, os.PathLike)) else None


@dataclass(frozen=True)
class EvaluationFlags:
    """trec_eval's flags the runs are scored with (``-l``, ``-M``, ``-J``) and the options
    of trecbench's local measures (``maxontsim_formula``, ``ontology``)."""

    relevance_level: int = 1
    max_docs: int | None = None
    judged_only: bool = False
    options: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class TopicScores:
    """``values[t, r, m]``: run ``runs[r]``'s value of ``measures[m]`` on ``topics[t]``.
    ``warnings``: runs that look scored against qrels not their own."""

    runs: tuple[str, ...]
    measures: tuple[str, ...]
    topics: tuple[str, ...]
    values: np.ndarray
    warnings: tuple[str, ...] = ()

    def means(self) -> np.ndarray:
        """``runs x measures``: each run's mean over the topics."""
        return self.values.mean(axis=0)


def topic_scores(
    qrels, runs, measures: str | Sequence[str] | None, flags: EvaluationFlags
) -> TopicScores:
    """Score ``runs`` (one, a list or ``{name: run}``; files are named as compare names
    them) against ``qrels`` with :func:`trecbench.evaluate` and arrange the per-topic
    values (display names of the measures, topics of the qrels in sorted order)."""
    from ..comparison import named_runs
    from ..comparison.tables import values_cube
    from ..errors import UsageError
    from ..evaluation import evaluate

    named = named_runs(runs)
    evaluation = evaluate(
        qrels,
        list(named.values()),
        measures,
        run_names=list(named),
        relevance_level=flags.relevance_level,
        max_docs=flags.max_docs,
        judged_only=flags.judged_only,
        options=dict(flags.options),
    )
    summaries = [column.display for column in evaluation.columns if not column.per_query]
    if summaries:
        raise UsageError(
            f"{', '.join(summaries)}: no value per topic (a count or summary over topics), "
            "which power and agreement are computed from"
        )
    per_query = evaluation.per_query
    shown = tuple(dict.fromkeys(per_query["measure"].tolist()))
    topics = sorted(evaluation.qrels_topics)
    values = values_cube(per_query, list(named), list(shown), topics)
    warnings = tuple(
        run.unjudged.message(run.name, evaluation.qrels_path) for run in evaluation.unjudged_runs()
    )
    values[np.isnan(values)] = 0.0  # no result for a topic: 0, as trec_eval -c
    return TopicScores(tuple(named), shown, tuple(topics), values, warnings)
