"""Which of the fast engine's requests compute a measure (numpy-free, issue 31).

A request is what :mod:`trecbench.sparse_measures` (numpy) and
:mod:`trecbench.small_measures` (pure Python, the small-input path) compute: a family of
trec_eval's (or beyond it) with its cutoff or parameter. Planning a call is kept here,
apart from the numpy core, so that the small path decides what it takes and plans it
without importing numpy (its first import costs a 1,000-line run more than scoring it).
"""

from __future__ import annotations

import math

from .measures import (
    FLOAT_CUTOFFS,
    LONG_CUTOFFS,
    display_name,
    float_cutoffs,
    level_key,
    registry,
    value_names,
)

# The request families this engine computes: trec_eval 9.0.8's (with Recall_all's
# recall_all; the small path computes these too) and those beyond it (see
# _beyond_trec_eval), RBP and Q with a parameter in the cutoff's place (RBP: (p, max_rel
# or None for binary gains); Q: beta). Whether a family takes a cutoff is a fact of the
# registry's definitions it computes (CUTOFF_NEEDED, CUTOFF_OPTIONAL below).
FAMILIES = frozenset(
    {"P", "recall", "success", "map_cut", "ndcg_cut", "recall_all"}
    | {"map", "ndcg", "recip_rank", "Rprec", "num_ret", "num_rel", "num_rel_ret"}
)
BEYOND_PARAMETER = frozenset({"RBP", "Q"})
BEYOND = BEYOND_PARAMETER | {"P_retrieved", "map_cut_min", "ERR", "nERR", "ndcg_exp", "Judged"}
# trec_eval 9.0.8's families with a recall fraction (a float, any sign) in the cutoff's
# place: one request per level. Not in FAMILIES: the small path does not compute them.
RECALL_LEVEL_FAMILIES = frozenset({"iprec_at_recall"})
# C's (long) (level * num_rel + 0.9) is undefined beyond a long's range and NaN has no
# order: such levels are left to trec_eval's own code (pytrec_eval)
_LEVEL_BOUND = 1e9
# A request is (family, cutoff): a positive cutoff for CUTOFF_NEEDED, an optional one for
# CUTOFF_OPTIONAL (``recip_rank``'s: the reciprocal rank on the run cut at k, trec_eval -M
# k, MRR@k), None for the others.
Request = tuple[str, "int | None"]


def supports_request(family: str, cutoff: int | None = None, relevance_level: int = 1) -> bool:
    """Whether this engine computes ``family`` (with ``cutoff``) exactly like trec_eval.

    Relevance levels below 1 are left out: pytrec_eval refuses them, so they cannot be
    checked against the reference.
    """
    if relevance_level < 1 or family not in FAMILIES | BEYOND | RECALL_LEVEL_FAMILIES:
        return False
    if family in RECALL_LEVEL_FAMILIES:
        return cutoff is not None and math.isfinite(cutoff) and abs(cutoff) <= _LEVEL_BOUND
    if family in BEYOND_PARAMETER:
        return cutoff is not None
    if cutoff is None:
        return family not in CUTOFF_NEEDED
    return cutoff > 0 and family in CUTOFF_NEEDED | CUTOFF_OPTIONAL


# families of the measure registry -> the request family computing them (per option value)
REQUEST_FAMILIES = {
    **{family: family for family in FAMILIES - {"recall_all"} | RECALL_LEVEL_FAMILIES},
    "MRR": "recip_rank",
    "HitRate": "success",
    "Recall_all": "recall_all",
    "Judged": "Judged",
    "ERR": "ERR",
    "nERR": "nERR",
}
# keyword parameters honoured, with the request family a non-default value selects
_VARIANTS = {
    ("P", "denominator"): {"retrieved": "P_retrieved"},
    ("map_cut", "normalize"): {"min": "map_cut_min"},
    ("ndcg_cut", "dcg"): {"exp-log2": "ndcg_exp"},
    ("ndcg", "dcg"): {"exp-log2": "ndcg_exp"},
}


def _cutoff_kinds() -> tuple[frozenset[str], frozenset[str]]:
    """The request families that need a positive cutoff, and those that take one or none,
    from the registry definitions each computes (a variant: its family's): needed when
    every one of them needs it (``cutoff_required``, or a trec_eval cutoff list as in
    ``success.1,5``), optional when one of them takes it."""
    computed: dict[str, list] = {}
    for name, family in REQUEST_FAMILIES.items():
        computed.setdefault(family, []).append(registry.find(name))
    for (name, _), variants in _VARIANTS.items():
        for variant in variants.values():
            computed.setdefault(variant, []).append(registry.find(name))

    def needs(definition) -> bool:
        return definition.cutoff_required or definition.trec_params == LONG_CUTOFFS

    def takes(definition) -> bool:
        return needs(definition) or definition.cutoff is not None

    needed = {family for family, definitions in computed.items() if all(map(needs, definitions))}
    optional = {family for family, definitions in computed.items() if any(map(takes, definitions))}
    return frozenset(needed), frozenset(optional - needed)


CUTOFF_NEEDED, CUTOFF_OPTIONAL = _cutoff_kinds()
CUTOFF_FAMILIES = FAMILIES & CUTOFF_NEEDED  # the core families with a cutoff (P.5,10; recall_all)
_BINARY = frozenset(REQUEST_FAMILIES) - {"ndcg", "ndcg_cut", "Judged", "ERR", "nERR", "num_ret"}


def requests_for(measure) -> list[Request] | None:
    """The requests that compute a :class:`trecbench.measures.Measure`, or None."""
    family = measure.family
    options = dict(measure.options)
    rel = options.pop("rel", None)
    if rel is not None and family not in _BINARY | {"RBP", "Q"}:
        return None
    if rel is not None and rel < 1:
        return None
    kind = REQUEST_FAMILIES.get(family)
    for key in list(options):
        variant = _VARIANTS.get((family, key), {}).get(options.pop(key))
        if variant is None:
            return None if family not in ("RBP", "Q") else _parameter_request(measure, rel)
        kind = variant
    if family in ("RBP", "Q"):
        return _parameter_request(measure, rel)
    if kind is None:
        return None
    if measure.definition.trec_params == LONG_CUTOFFS:
        return [(kind, k) for k in measure.cutoffs]
    if measure.definition.trec_params == FLOAT_CUTOFFS:
        return _level_requests(measure, kind)
    if measure.definition.trec_name is not None and measure.params is not None:
        return None  # e.g. an nDCG gain map
    return [(kind, measure.k)]


def _level_requests(measure, kind: str) -> list[Request] | None:
    """One request per recall fraction, sorted as trec_eval sorts them (its defaults
    without parameters); None when a level is beyond what this engine reproduces."""
    definition = measure.definition
    if kind not in RECALL_LEVEL_FAMILIES:
        return None
    if measure.params is None:
        levels = list(definition.trec_defaults)
    else:
        levels = float_cutoffs(measure.params)
    if not all(supports_request(kind, level) for level in levels):
        return None
    return [(kind, level) for level in levels]


def _parameter_request(measure, rel) -> list[Request] | None:
    """RBP: ``(p, max_rel)`` (max_rel None for binary gains at ``rel``); Q: beta."""
    if measure.family == "Q":
        return [("Q", measure.option("beta"))]
    if set(dict(measure.options)) - {"p", "rel", "max_rel"}:
        return None
    max_rel = None if rel is not None else measure.option("max_rel") or "qrels"
    return [("RBP", (measure.option("p"), max_rel))]


def supports(measure) -> bool:
    """Whether this engine computes ``measure`` (exactly like its reference)."""
    return requests_for(measure) is not None


def plan_requests(measures, level: int, largest) -> tuple[list[tuple], dict[int, list[Request]]]:
    """``(plan, levels)`` of :func:`planned_values`: per measure ``(measure, its relevance
    level, its requests)`` (a measure's ``rel`` parameter overrides ``level``; RBP's
    default ``max_rel`` is ``largest``, the qrels' top grade), and per level its distinct
    requests."""
    plan = []
    for measure in measures:
        rel = measure.option("rel")
        requests = [
            (kind, (k[0], largest if k[1] == "qrels" else k[1])) if kind == "RBP" else (kind, k)
            for kind, k in requests_for(measure)
        ]
        plan.append((measure, level if rel is None else rel, requests))
    levels: dict[int, list[Request]] = {}
    for _, at, requests in plan:
        levels.setdefault(at, []).extend(requests)
    return plan, {at: list(dict.fromkeys(r)) for at, r in levels.items()}


def planned(compute_level, plan: list[tuple], levels: dict) -> dict:
    """Per measure of ``plan``, ``(label, display, values)`` of each of its values
    (:func:`plan_requests`), with ``compute_level(requests, level)`` (``{request:
    values}``) called once per relevance level."""
    values = {at: compute_level(requests, at) for at, requests in levels.items()}
    return {
        measure: [
            (name, display, values[at][request])
            for (name, display), request in zip(_names(measure, requests), requests, strict=True)
        ]
        for measure, at, requests in plan
    }


def _names(measure, requests: list[Request]) -> list[tuple[str, str]]:
    """:func:`value_names`, and for trec_eval's default recall levels (which it leaves to
    the engine) their :func:`~trecbench.measures.level_key`."""
    names = value_names(measure)
    if names is None:
        labels = [level_key(measure.family, level) for _, level in requests]
        names = [(label, display_name(label)) for label in labels]
    return names
