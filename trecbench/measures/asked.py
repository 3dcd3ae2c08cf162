"""The measures a call asks for: lists of names, :class:`~.names.Measure` objects and
ir_measures' measure objects read (:func:`requests`; None the KPI preset, a set in the
natural order of its names), trec_eval's nicknames expanded and each name parsed
(:func:`parse_measures`), a bare family beside its lists and repeats resolved
(:func:`distinct`), and the order trec_eval prints them in (:func:`presentation_order`).
One name's parsing is :mod:`.names`'."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from ..errors import Setting, TrecbenchError, UsageError, excerpt
from ..type_names import flag_from
from . import registry, suggestions
from .catalog import ALL_TREC, KPI_PRESET, NICKNAMES
from .expression import split_names
from .irm_objects import is_ir_measure
from .names import (
    Measure,
    check_domains,
    ir_measure_name,
    known_version,
    parse_measure,
    said_when_parsed,
)


def parse_measures(
    texts: Iterable[str | Measure] | str | None,
    version: str | None = None,
    *,
    repeats: bool = False,
) -> list[Measure]:
    """Parse ``texts``, a list of names, into :class:`Measure` objects (None: the KPI preset;
    a set in a natural order of its names, :func:`requests`), in request order, without
    duplicates (``repeats``: with them, for trec_eval's rule: every spelling where it is).

    Each string may hold several names separated by spaces (a ``-m`` value; the Python
    API's list holds one name an entry: :func:`.expression.one_name_each`); trec_eval's nicknames
    (``official``, ``all_trec``, ``set``, ``all_prefs``, ``prefs``, ``qrels_jg``) expand to
    their measures. Each request is computed with its own parameters, as pytrec_eval
    computes them (``P.5`` and ``P.10`` both; a bare ``P`` beside them takes their lists,
    :func:`_lists_given`); trec_eval's rule that a measure's first
    parameter list wins is :func:`~.first_parameters.first_parameters`. ``version``: the
    trec_eval reproduced (10.0's ``all_trec`` adds ``unj``, ``rbp`` and ``rbp_resid``; see
    :func:`parse_measure`).
    """
    repeats = flag_from("repeats", repeats)  # "no" was truthy: duplicates kept
    version = known_version(version)
    measures: list[Measure] = []
    refused: list[TrecbenchError] = []
    for item in requests(texts):
        if isinstance(item, Measure):  # warned of once: by parse_measure, or here
            check_domains(item, warn=not said_when_parsed(item))
            measures.append(item)
            continue
        if isinstance(item, str) and not item.strip():  # it named no measure: none computed
            raise UsageError(
                f"empty measure name {item!r}: give a measure, e.g. ", Setting("measures", "map")
            )
        for text in split_names(item):
            if text in NICKNAMES:
                names = NICKNAMES[text]
                if text == "all_trec" and version is not None:
                    names = ALL_TREC[version]
                measures.extend(Measure(n, None, (), n, True) for n in names)
            elif suggestions.nickname_with_parameters(text):
                refused.append(suggestions.nickname_with_parameters(text))
            else:
                try:
                    measures.append(parse_measure(text, version))
                except TrecbenchError as error:
                    refused.append(error)
    if refused:  # trec_eval checks every name before any parameters: a usage error first
        raise min(refused, key=lambda error: error.exit_code)
    return measures if repeats else distinct(measures)


def distinct(measures: list[Measure]) -> list[Measure]:
    """``measures`` (:func:`parse_measures` with ``repeats``) as computed: a bare family
    beside its lists left out (:func:`_lists_given`), then equal measures once, in order."""
    return list(dict.fromkeys(_lists_given(measures)))


def minus_m(measure: Measure) -> bool:
    """Whether trec_eval's ``-m`` rules apply to ``measure``: spelt as ``-m`` takes it (not
    a label such as pytrec_eval's ``P_5``, nor another spelling)."""
    return measure.trec_spelled and not measure.labelled and not measure.options


def _lists_given(measures: list[Measure]) -> list[Measure]:
    """``measures`` but each bare trec_eval family name (``P``) whose family is asked with
    a parameter list spelt as trec_eval or pytrec_eval spells it (``P.10``, ``P_10``): a
    bare name takes the lists given, its defaults when none is, as trec_eval reads ``-m P
    -m P.10`` and pytrec_eval ``{"P", "P.10"}`` (``P_10`` alone)."""
    listed = listed_families(measures)
    return [m for m in measures if not bare_beside_lists(m, listed)]


def listed_families(measures: list[Measure]) -> set[str]:
    """The families of ``measures`` asked with a parameter list spelt as trec_eval or
    pytrec_eval spells it (``P.10``, ``P_10``)."""
    return {m.family for m in measures if m.trec_spelled and m.params and not m.options}


def bare_beside_lists(measure: Measure, listed: set[str]) -> bool:
    """Whether ``measure`` is a bare trec_eval family name (``P``, ``set_F``) whose family
    is among ``listed`` (:func:`listed_families`): it stands for those lists."""
    return minus_m(measure) and measure.params is None and measure.family in listed


def requests(texts: Iterable[Any] | Any | None) -> list[str | Measure]:
    """The measures asked for, as names and :class:`Measure` objects: None is the KPI
    preset, one name or measure a list of it, an ir_measures measure object (``nDCG@10``)
    its name (:func:`ir_measure_name`); a set (pytrec_eval's idiom) in the natural order
    of the names (``P.5`` before ``P.10``), never its hash order; anything else, and an
    empty list, is refused."""
    if texts is None:
        return list(KPI_PRESET)
    if isinstance(texts, Mapping):  # {"P@5": 1} was read as its keys, its values unused
        raise UsageError(
            f"measures={excerpt(texts)}: give a list of measure names, not a dict (its keys "
            "would be read as the measures, its values unused)"
        )
    one = isinstance(texts, (str, Measure, bytes, bytearray)) or is_ir_measure(texts)
    if one or not isinstance(texts, Iterable):  # a number, bytes: refused below, named
        texts = [texts]
    texts_named = [ir_measure_name(item) if is_ir_measure(item) else item for item in texts]
    if isinstance(texts, (set, frozenset)):
        texts_named.sort(key=lambda item: (_natural(item), str(item)))
    items: list[str | Measure] = []
    for item in texts_named:
        if not isinstance(item, (str, Measure)):
            raise UsageError(
                f"measure {item!r} ({type(item).__name__}): give names (str), trecbench "
                "Measures or ir_measures' measure objects"
            )
        items.append(item)
    if not items:  # an empty list would score nothing and say nothing
        raise UsageError("no measure asked: give one or more (or None for the KPI preset)")
    return items


def _natural(item: object) -> list:
    """The sort key of a measure's name, its numbers read as numbers: text and int in
    turn, so that two keys compare part by part of one kind."""
    parts = re.split(r"([0-9]+)", str(item))
    return [int(part) if i % 2 else part for i, part in enumerate(parts)]


def trec_mode(measures: Iterable[Measure]) -> bool:
    """True when every measure was spelled the trec_eval way (then print in its order)."""
    return all(m.trec_spelled for m in measures)


def presentation_order(measures: list[Measure]) -> list[Measure]:
    """trec_eval's internal order in trec mode, otherwise the order requested."""
    if not trec_mode(measures):
        return list(measures)
    order = registry.trec_order()
    end = len(order)
    return sorted(measures, key=lambda m: order.get(m.family, end))
