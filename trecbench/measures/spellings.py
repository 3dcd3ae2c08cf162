"""The spellings of one call's measures, known before any input is read: the other names
asked of a measure or of one of its values (``-m ndcg_cut.10 -m nDCG@10``; ``P_5`` beside
``P.5,10``; ``success.10`` beside ``HitRate@10``, two measures of one value), where each
name was asked, the names each value is shown under (:func:`spelled`: an evaluation's
columns are named by it), and the refusal of two spellings by the commands that show each
measure once (:func:`refuse_two_spellings`: compare, power, agree, benchmark,
leaderboard), before the runs are read and scored."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace

from ..errors import TrecbenchError, UsageError
from ..trec_eval.compat import DEFAULT
from .asked import (
    bare_beside_lists,
    distinct,
    listed_families,
    parse_measures,
    presentation_order,
    requests,
)
from .catalog import ALL_TREC, NICKNAMES
from .expression import split_names
from .labels import every_value_name, labels_of, value_meaning
from .names import Measure, parse_measure


def aliases(texts, requested: list[Measure], version: str) -> dict:
    """The other spellings the user gave of each measure of ``requested`` (``-m ndcg_cut.10
    -m nDCG@10``: computed once, shown under both): each name of ``texts`` (not a
    nickname) that :func:`parse_measures` folded into an equal measure asked before, keyed
    by that measure; or, a name of one value that a measure of several computes
    (``P_5`` beside ``P.5,10``), keyed by ``(that measure, the value's label)``."""
    if texts is None:
        return {}
    known = {measure.requested for measure in requested}
    names = [t for t in requests(texts) if isinstance(t, str)]
    others = [n for text in names for n in split_names(text) if n not in known | NICKNAMES.keys()]
    if not others:
        return {}
    by_meaning = {measure: measure for measure in requested}
    listed = listed_families(requested)
    found: dict = {}
    with warnings.catch_warnings():  # warned about when parse_measures read it
        warnings.simplefilter("ignore")
        for name in dict.fromkeys(others):
            measure = parse_measure(name, version)
            if bare_beside_lists(measure, listed):  # set_F beside set_F.0.5: those lists,
                continue  # not another spelling's defaults (SetF's beta 1)
            key = by_meaning.get(measure) or _value_of(measure, requested)
            if key is not None:  # else dropped by trec_eval's -m rule (P.10 after P.5), said
                found[key] = (*found.get(key, ()), name)
    return found


def asked_at(texts, version: str) -> dict[str, int]:
    """Where each name was asked among the call's names (``texts``; None: the KPI
    preset), counted after its nicknames are expanded, the first place of a name given
    twice: what orders a measure's spellings (``-m "P@3 nDCG@3 P_3"``: P_3 last)."""
    names: list[str] = []
    for item in requests(texts):
        if isinstance(item, Measure):
            names.append(item.requested or item.canonical)
            continue
        for name in split_names(item):
            expanded = ALL_TREC[version] if name == "all_trec" else NICKNAMES.get(name)
            names += list(expanded) if expanded else [name]
    at: dict[str, int] = {}
    for position, name in enumerate(names):
        at.setdefault(name, position)
    return at


def _value_of(measure: Measure, requested: list[Measure]) -> tuple[Measure, str] | None:
    """``(a measure of several values among requested, the label)`` of ``measure``'s one
    value when one of them computes it; else None."""
    labels = labels_of(measure)
    if len(labels) != 1:
        return None
    for other in requested:
        same_kind = (other.family, other.options) == (measure.family, measure.options)
        if same_kind and labels[0] in labels_of(other):
            return other, labels[0]
    return None


@dataclass(frozen=True)
class Spelled:
    """One value as shown: its ``label`` and ``display`` name, the ``measure`` that gives
    it, the name it was ``asked`` by, the other spellings asked of it in the call
    (``also``) and where each of its names was asked among the call's (``at``)."""

    label: str
    display: str
    measure: Measure
    asked: str
    also: tuple[str, ...] = ()
    at: tuple[float, ...] = ()

    @property
    def names(self) -> tuple[str, ...]:
        """Every name asked of it: the first, then the others."""
        return (self.asked, *self.also)


def spelled(
    measures: list[Measure],
    names: Callable[[Measure], list[tuple[str, str]]],
    other_names: Mapping,
    at: Mapping[str, int],
) -> list[tuple[Spelled, int]]:
    """``(the value as shown, its index among its measure's values)`` of each value of
    ``measures`` (in printing order) shown once: ``names(measure)`` gives each value's
    ``(label, display)``, ``other_names`` the other spellings asked (:func:`aliases`),
    ``at`` where each name was asked (:func:`asked_at`; empty: trec_eval's order). A value
    computing what an earlier one does (``success.10``, ``HitRate@10``; ``set_F.0.5``,
    ``set_F_0.50``: :func:`~.labels.value_meaning`) is that one, named by its names too."""
    shown: list[tuple[Spelled, int]] = []
    where: dict = {}  # what a value computes (value_meaning) -> its place in shown
    end = len(at)
    for measure in measures:
        values = names(measure)
        single = len(values) == 1
        own = at.get(measure.requested or measure.canonical, end)
        for index, (label, display) in enumerate(values):
            asked = _asked(measure, single, label, display)
            also = other_names.get(measure if single else (measure, label), ())
            # a fraction below 1: P.2,3's P_3 after its P_2 even where P@3, asked
            # before, holds it; in trec_eval's order (no places) the values' own
            within = index / len(values) if at else 0.0
            places = (own + within, *(at.get(name, end) for name in also))
            value = Spelled(label, display, measure, asked, also, places)
            meaning = value_meaning(measure, display)
            if meaning in where:  # two spellings of one value (success.10, HitRate@10)
                earlier, kept = shown[where[meaning]]
                shown[where[meaning]] = (_also_named(earlier, value), kept)
                continue
            where[meaning] = len(shown)
            shown.append((value, index))
    return shown


def _asked(measure: Measure, single: bool, label: str, display: str) -> str:
    """The name a value answers to: the measure as asked when it gives one value; among
    several, its trec_eval label when asked in trec_eval's spelling (``P`` gives ``P_5``,
    as pytrec_eval keys it), else its display name (``P@5``)."""
    if single and measure.requested:
        return measure.requested
    return label if measure.trec_spelled else display


def _also_named(value: Spelled, other: Spelled) -> Spelled:
    """``value`` named by ``other``'s names too (``R@10`` beside ``recall.10,20``: one
    value), each once, where it was first asked."""
    placed = dict(zip(value.names, value.at, strict=True))
    for name, position in zip(other.names, other.at, strict=True):
        placed[name] = min(position, placed.get(name, position))
    also = tuple(name for name in placed if name != value.asked)
    return replace(value, also=also, at=tuple(placed.values()))


def two_spellings(names: tuple[str, ...], display: str, command: str) -> UsageError:
    """The refusal of a value asked by ``names``, for a ``command`` that shows and tests
    each measure once, by its ``display`` name."""
    return UsageError(
        f"{' and '.join(names)} are one measure ({display}): {command} shows and tests each "
        "measure once, by that name; ask it by one spelling"
    )


def shown_values(texts, version: str = DEFAULT) -> list[Spelled] | None:
    """Each value ``texts`` (the measures as :func:`trecbench.evaluate` takes them) asks
    for, named as an evaluation's columns are (in trec_eval's order when every name is
    trec_eval's), told from the names alone, before any input is read; None when they do
    not parse (the evaluation refuses them in its own words, and warns once)."""
    with warnings.catch_warnings():  # the evaluation parses them again: said then, once
        warnings.simplefilter("ignore")
        try:
            texts = requests(texts)  # a generator read once, by both readers below
            requested = distinct(parse_measures(texts, version, repeats=True))
        except TrecbenchError:
            return None
    ordered = presentation_order(requested)
    other_names = aliases(texts, requested, version)
    return [value for value, _ in spelled(ordered, every_value_name, other_names, {})]


def refuse_two_spellings(texts, command: str, version: str = DEFAULT) -> None:
    """Refuse (:func:`two_spellings`) a measure of ``texts`` (as :func:`trecbench.evaluate`
    takes them) asked by two spellings, for a ``command`` that names each measure once, by
    its display name, and counts it once in its multiple-comparison corrections
    (``compare``): shown twice, one test would be corrected for as two; shown once, a
    spelling asked would vanish. Told from the names alone (:func:`shown_values`), before
    any run is read and scored."""
    for value in shown_values(texts, version) or ():
        if value.also:
            raise two_spellings(value.names, value.display, command)
