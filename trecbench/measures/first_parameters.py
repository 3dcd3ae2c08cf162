"""trec_eval's ``-m`` rule for a measure asked with several parameter lists: the first list
given wins, for every request of the family spelt as ``-m`` takes it (``-m P.5 -m P.10``
computes ``P_5`` alone, ``-m P -m P.10`` ``P_10`` alone). ``trecbench score`` reproduces
it, byte for byte, and says in one line which parameter list it left out and how to get
it (:class:`~trecbench.errors.FirstParametersWarning`: the command line's ``-m``, a
script's ``measures`` names); a bare ``P`` taking the list given
is what pytrec_eval does too, and goes unsaid. The Python API computes every request as
given, as pytrec_eval does (:func:`~trecbench.measures.asked.parse_measures`: a bare ``P``
there takes the lists given too).
"""

from __future__ import annotations

import warnings

from ..callers import outside_trecbench
from ..errors import FirstParametersWarning, TrecbenchError
from .asked import minus_m
from .labels import value_meaning, value_names
from .names import Measure, parse_measure
from .registry import LONG_CUTOFFS
from .trec_params import long_cutoffs


def first_parameters(measures: list[Measure]) -> list[Measure]:
    """``measures`` (as :func:`~trecbench.measures.asked.parse_measures` gives them) under
    trec_eval's rule: each request of a family spelt as ``-m`` takes it computed with the
    family's first parameter list given, equal measures once. A parameter list the rule
    leaves out is warned of, one line each."""
    first: dict[str, Measure] = {}  # per family, the request that gave the first list
    for measure in measures:
        if minus_m(measure) and measure.definition.trec_name is not None:
            if measure.params is not None:
                first.setdefault(measure.family, measure)
    result: dict[Measure, None] = {}
    for measure in measures:
        kept = first.get(measure.family)
        if minus_m(measure) and kept is not None and measure.params != kept.params:
            # named as the list it computes was asked (P beside P.10: P.10, as pytrec_eval
            # keys it), not by a spelling that asked another; a bare family takes the
            # first list, as pytrec_eval's does: nothing lost
            lost = None if measure.params is None else _lost_cutoffs(measure, kept)
            if lost != set() and measure.params is not None:
                said = _left_out(measure, kept, lost, cli=False)
                on_command_line = _left_out(measure, kept, lost, cli=True)
                warning = FirstParametersWarning(said, on_command_line)
                warnings.warn(warning, stacklevel=outside_trecbench())
            measure = kept
        result.setdefault(measure)
    return list(result)


def _lost_cutoffs(measure: Measure, kept: Measure) -> set[int] | None:
    """The cutoffs of ``measure`` that computing ``kept`` for it leaves unprinted (``P.10``
    beside ``P.5,10`` or ``P.010`` loses none); None for a family without cutoffs, whose
    parameter list other than the kept one is lost whole."""
    if measure.definition.trec_params != LONG_CUTOFFS:
        return None
    return set(long_cutoffs(measure.params)) - set(long_cutoffs(kept.params))


def _left_out(measure: Measure, kept: Measure, lost: set[int] | None, cli: bool) -> str:
    """That the rule left out ``measure``'s parameters for ``kept``'s (``lost``: the
    cutoffs, :func:`_lost_cutoffs`), and how to have both: as ``-m`` options (``cli``), or
    as names in the library's ``measures`` (``-m P@10`` told a script that has no ``-m``)."""

    def spelled(name: str) -> str:
        return f"-m {name}" if cli else repr(name)

    asked_as = measure.requested or measure.canonical
    ways, what = [], f"{spelled(asked_as)} not computed"
    if lost is not None:
        asked = set(long_cutoffs(measure.params))
        if lost != asked:  # P.5,10 beside P.5: P_10
            labels = ", ".join(f"{measure.family}_{c}" for c in sorted(lost))
            what = f"{spelled(asked_as)}: {labels} not computed"
        cutoffs = sorted(asked | set(long_cutoffs(kept.params)))
        listed = f"{measure.family}.{','.join(map(str, cutoffs))}"
        ways.append(f"{spelled(listed)} given first")
    other = _other_spelling(measure)
    if other is not None:
        ways.append(spelled(other))
    how = " or ".join(ways) if ways else "score it in a call of its own"
    where = "" if cli or not ways else " in measures"
    rule = (
        f"{what}: trec_eval computes "
        f"{measure.family} with the first parameters given only ({kept.canonical})"
    )
    if _one_value(measure, kept):  # set_F.0.50 after set_F.0.5: nothing is lost
        return f"{rule}, which give the same value"
    return f"{rule}; for both, {how}{where}"


def _one_value(measure: Measure, kept: Measure) -> bool:
    """Whether ``measure``'s parameters, read as trec_eval reads them, give ``kept``'s one
    value (:func:`~.labels.value_meaning`): spelt otherwise, no other value to ask for."""
    names = value_names(measure), value_names(kept)
    if any(found is None or len(found) != 1 for found in names):
        return False
    (_, shown), (_, kept_shown) = names[0][0], names[1][0]
    return value_meaning(measure, shown) == value_meaning(kept, kept_shown)


def _other_spelling(measure: Measure) -> str | None:
    """A name of ``measure``'s one value that the rule leaves alone: its display name
    (``P@10``), else trec_eval's label (``ndcg_1=4``), when it reads back as the same
    measure (``HitRate@10`` is not ``success.10``); None for a measure of several values."""
    names = value_names(measure)
    if names is None or len(names) != 1:
        return None
    label, display = names[0]
    for name in dict.fromkeys((display, label)):
        try:
            with warnings.catch_warnings():  # its domain was warned of as it was asked
                warnings.simplefilter("ignore")
                spelled = parse_measure(name)
        except TrecbenchError:
            continue
        if spelled == measure and not minus_m(spelled):
            return name
    return None
