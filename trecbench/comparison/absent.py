"""What a run without results for a topic scores on it when every topic counts
(``missing="zero"``, trec_eval -c): 0, but for the measures whose value on such a topic is
a count of the qrels (:meth:`trecbench.Evaluation.empty_values`: ``num_rel``, which
filled with 0 made runs that lack topics differ on a count every run shares). A value a
run has but that is undefined (NaN: ``-J`` leaving nothing judged in the cut) is no absent
one: it is refused, in :func:`trecbench.errors.not_finite`'s words."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from ..errors import UsageError

# run -> measure -> qid -> the value of that run on a topic it has no results for
EmptyValues = Mapping[str, Mapping[str, Mapping[str, float]]]


def checked_empty(empty) -> dict[str, dict[str, dict[str, float]]]:
    """``empty`` (:data:`EmptyValues`, or None) as plain dicts of finite floats; anything
    else refused (:class:`UsageError`): it is a keyword of ``compare_scores``."""
    import numbers

    from ..errors import excerpt

    if empty is None:
        return {}
    checked: dict[str, dict[str, dict[str, float]]] = {}
    shape = "run -> measure -> qid -> a finite number"
    if not isinstance(empty, Mapping):
        raise UsageError(f"empty maps {shape}, not {excerpt(empty)}")
    for run, measures in empty.items():
        if not isinstance(measures, Mapping):
            raise UsageError(f"empty[{run!r}] maps measure -> qid -> a finite number")
        for measure, values in measures.items():
            if not isinstance(values, Mapping):
                raise UsageError(f"empty[{run!r}][{measure!r}] maps qid -> a finite number")
            for qid, value in values.items():
                real = isinstance(value, numbers.Real) and not isinstance(value, bool)
                if not real or not math.isfinite(value):
                    where = f"empty[{run!r}][{measure!r}][{qid!r}]"
                    raise UsageError(f"{where} is {excerpt(value)}, not a finite number")
            checked.setdefault(str(run), {})[str(measure)] = {
                str(qid): float(value) for qid, value in values.items()
            }
    return checked


def fill_absent(
    cube: np.ndarray,
    absent: np.ndarray,
    runs: Sequence[str],
    measures: Sequence[str],
    topics: Sequence[str],
    empty: EmptyValues | None,
) -> None:
    """Set the ``absent`` cells of ``cube`` (``topics x runs x measures``): 0, or the run's
    value of ``empty`` for the measure and topic."""
    cube[absent] = 0.0
    for r, run in enumerate(runs):
        for m, measure in enumerate(measures):
            values = (empty or {}).get(run, {}).get(measure)
            if values:
                rows = np.flatnonzero(absent[:, r, m])
                cube[rows, r, m] = [values.get(topics[row], 0.0) for row in rows]
