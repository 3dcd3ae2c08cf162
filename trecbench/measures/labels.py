"""What a measure is called and how it reads once parsed: the labels trec_eval prints and
their display names (``ndcg_cut_10`` -> ``nDCG@10``), the span of its values and which
values are better, each from the registry's definition of the measure."""

from __future__ import annotations

import warnings

from ..errors import ParameterDomainWarning, TrecbenchError
from ..trec_eval.clib import c_atol
from . import registry
from .names import Measure, parse_measure
from .registry import FLOAT_CUTOFFS, FLOAT_PARAMS, LONG_CUTOFFS, META, PAIRS
from .trec_params import c_atof, float_cutoffs

# Display names of trec_eval values people ask for by name (semantics doc, last table).
_CUTOFF_DISPLAY = {
    "P": "P",
    "recall": "Recall",
    "ndcg_cut": "nDCG",
    "map_cut": "MAP",
    "success": "HitRate",
}
_PLAIN_DISPLAY = {"map": "MAP", "ndcg": "nDCG"}


def display_name(label: str) -> str:
    """Readable name of a trec_eval value label: ``ndcg_cut_10`` -> ``nDCG@10``."""
    if label in _PLAIN_DISPLAY:
        return _PLAIN_DISPLAY[label]
    family, _, cutoff = label.rpartition("_")
    if family in _CUTOFF_DISPLAY and cutoff.isdigit():
        return f"{_CUTOFF_DISPLAY[family]}@{cutoff}"
    return label


def param_label(measure: Measure, engine_label: str) -> str:
    """trec_eval's printed label: parameterised one-value measures print ``name_<params>``."""
    if measure.definition.trec_params in (FLOAT_PARAMS, PAIRS) and measure.params:
        return f"{measure.family}_{measure.params}"
    return engine_label


# trec_eval's append_float (meas_init.c, 9.0.8 and 10.0) snprintf's a level into a buffer
# of the family's length + 10 bytes: after the "_", 8 characters of "%3.2f" and the NUL
_LEVEL_CHARACTERS = 8


def level_label(family: str, level: float) -> str:
    """trec_eval's printed label of one level of a float cutoff family (``append_float``:
    ``%3.2f`` cut to 8 characters, ``100000.0`` for 100000); pytrec_eval keys the level's
    value by it too. Two levels may share it (0.3 and 0.3015 both print ``_0.30``,
    1000000.1 and 1000000.2 ``_1000000.``); trec_eval prints each under it."""
    return f"{family}_{level:3.2f}"[: len(family) + 1 + _LEVEL_CHARACTERS]


def level_key(family: str, level: float) -> str:
    """The name a level's value is kept and shown under (its label, its display name):
    trec_eval's label where that reads back as the level (``iprec_at_recall_0.30``), else
    the level in full (``iprec_at_recall_0.3015``), so that two levels never share one."""
    label = level_label(family, level)
    return label if float(label[len(family) + 1 :]) == level else f"{family}_{level!r}"


def trec_label(measure: Measure, key: str) -> str:
    """What trec_eval prints for the value of ``measure`` named ``key`` (a label of
    :func:`value_names`): a float level's :func:`level_label` (``iprec_at_recall_0.3015``
    prints ``iprec_at_recall_0.30``), any other label as it is."""
    prefix = measure.family + "_"
    if measure.definition.trec_params != FLOAT_CUTOFFS or not key.startswith(prefix):
        return key
    try:
        level = float(key[len(prefix) :])
    except ValueError:  # an ir_measures spelling (IPrec(rel=2)@0.3): trec_eval has none
        return key
    return level_label(measure.family, level)


def value_names(measure: Measure) -> list[tuple[str, str]] | None:
    """``(label, display)`` of each value a measure produces, or None when only the engine
    knows them (trec_eval's float cutoff families list the levels it computed)."""
    definition = measure.definition
    if measure.options:  # trec_eval cannot name it: its own spelling is its label
        return [(measure.spelled(), measure.spelled())]
    if definition.summary in (registry.RUNID, registry.NUM_Q) or definition.source == META:
        return [(measure.family, measure.family)]
    if definition.trec_name is not None:
        kind = definition.trec_params
        if kind == LONG_CUTOFFS:
            labels = [f"{measure.family}_{k}" for k in measure.cutoffs]
        elif kind == FLOAT_CUTOFFS:
            if measure.params is None:
                return None  # the engine knows the default levels
            labels = [level_key(measure.family, v) for v in float_cutoffs(measure.params)]
        else:
            labels = [param_label(measure, measure.family)]
        return [(label, display_name(label)) for label in labels]
    shown = definition.display or definition.name
    if measure.params is None:
        return [(definition.label_prefix, shown)]
    return [(f"{definition.label_prefix}_{measure.params}", f"{shown}@{measure.params}")]


def value_meaning(measure: Measure, display: str) -> object:
    """What the value of ``measure`` shown as ``display`` computes, alike for each spelling
    of it: its display name, but for a family whose label keeps its parameters as written
    (``set_F_0.5`` and ``set_F_0.50``; ``ndcg_1=3,2=9`` and ``ndcg_+1=3.0,2=9``) the
    parameters as trec_eval reads them, so that two spellings of one value are told apart
    from two values (``compare`` tests each once)."""
    kind = measure.definition.trec_params
    if kind == FLOAT_PARAMS:
        return (measure.family, _floats_read(measure), measure.options)
    if kind == PAIRS and measure.params:
        gains = _gains_read(measure.params)
        if gains is not None:
            return (measure.family, gains, measure.options)
    return display


def _floats_read(measure: Measure) -> tuple[float, ...]:
    """A float parameter family's numbers as trec_eval reads them (:func:`percents`: its
    defaults when none is given), set_F's beta of 1 where it has none: its number is that
    keyword's."""
    beta = measure.definition.param("beta")
    return tuple(percents(measure)) or (() if beta is None else (beta.default,))


def _gains_read(params: str) -> tuple[tuple[int, float], ...] | None:
    """A gain map's ``grade=gain`` pairs as trec_eval reads them, in the order written:
    its table is sorted by a comparison that truncates the gains' difference to an int,
    so gains less than 1 apart keep that order, which the ideal ranking walks
    (``ndcg.1=3,2=3.5`` and ``ndcg.2=3.5,1=3`` differ); None where the reading depends
    on trec_eval's version (a grade that is no integer: 10.0 skips it)."""
    from ..trec_eval.gains import parse_pairs, valid_int  # numpy: not on a small score's path

    pairs = parse_pairs(params)
    if not all(valid_int(name) for name, _ in pairs):
        return None
    return tuple((c_atol(name), value) for name, value in pairs)


def every_value_name(measure: Measure) -> list[tuple[str, str]]:
    """:func:`value_names`, trec_eval's default levels of a float cutoff family named too
    (``iprec_at_recall``: ``iprec_at_recall_0.00`` ... ``_1.00``), as the engines name
    them: every value a measure gives, known before any input is read."""
    names = value_names(measure)
    if names is None:
        return [(label, display_name(label)) for label in labels_of(measure)]
    return names


def percents(measure: Measure) -> list[float]:
    """The recall fractions or R multiples of a float-parameter family, as trec_eval reads
    them (cutoff lists sorted, 11pt_avg's list as given)."""
    definition = measure.definition
    if measure.params is None:
        return list(definition.trec_defaults)
    if definition.trec_params == FLOAT_CUTOFFS:
        return float_cutoffs(measure.params)
    return [c_atof(part) for part in measure.params.split(",")]


def labels_of(measure: Measure) -> list[str]:
    """The native engine's value labels for ``measure`` (before ``name_<params>``); a
    measure given keyword parameters has its spelling after them, keyed apart from the
    one without (``IPrec(rel=2)@0.5`` beside ``IPrec@0.5``)."""
    kind = measure.definition.trec_params
    if kind == LONG_CUTOFFS:
        labels = [f"{measure.family}_{k}" for k in measure.cutoffs]
    elif kind == FLOAT_CUTOFFS:
        labels = [level_key(measure.family, p) for p in percents(measure)]
    else:
        labels = [measure.family]
    if measure.options:
        return [f"{label} {measure.spelled()}" for label in labels]
    return labels


# how far past [0, 1] a value of a measure that lies there may come by a double's rounding
# (cwl_eval's BPM over 1,000 relevant ranks: 1 + 7e-16): not past its span
SPAN_ROUNDING = 1e-9


def past_unit_span(low: float, high: float) -> bool:
    """Whether values from ``low`` to ``high`` pass [0, 1] by more than a rounding's reach
    (:data:`SPAN_ROUNDING`); numbers or numpy arrays alike."""
    return (low < -SPAN_ROUNDING) | (high > 1 + SPAN_ROUNDING)


def refuse_outside_span(per_query) -> None:
    """Refuse a value outside [0, 1] of a measure the registry says lies in it (its
    :func:`span`) in ``per_query`` (a DataFrame of ``run, qid, measure, value``): given
    scores (``compare_scores``, ``group_means``) it cannot be right."""
    import numpy as np

    from ..errors import UsageError

    for measure in per_query["measure"].unique().tolist():
        if span(measure) != 1.0:
            continue
        rows = per_query[per_query["measure"] == measure]
        values = rows["value"].to_numpy(dtype=np.float64)
        outside = past_unit_span(values, values)
        if outside.any():
            row = rows.iloc[int(np.flatnonzero(outside)[0])]
            raise UsageError(
                f"run {row['run']!r}: {measure} is {float(row['value'])!r} for {row['qid']!r}, "
                "outside [0, 1], where every value of it lies"
            )


def span(name: str) -> float | None:
    """The width of the interval a topic's value of the measure named ``name`` lies in (1
    for [0, 1]); None when the registry states none (unbounded, or a name it does not
    know)."""
    try:
        measure = looked_up(name)
    except TrecbenchError:
        return None
    definition = measure.definition
    if definition.span_without_params and measure.params is not None:
        return None
    return definition.span


def better(name: str) -> str | None:
    """Which values are better for a measure named ``name`` (any spelling or label):
    ``"higher"``, ``"lower"`` or None (counts and diagnostics); ``"higher"`` for a name
    the registry does not know."""
    try:
        return looked_up(name).definition.better
    except TrecbenchError:
        return registry.HIGHER


def looked_up(name: str) -> Measure:
    """The measure ``name`` means (any spelling or label), as :func:`parse_measure` reads
    it (and raises), without a :class:`ParameterDomainWarning`: a name looked up for what
    its values are (their span, which are better, its table) was asked for before, and
    warned of then (``Rprec_mult.0``); its label (``Rprec_mult_0.00``) is looked up for
    each table and check, and said once, not each time."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=ParameterDomainWarning)
        return parse_measure(name)
