"""The measure registry: every measure described once, engines registered separately.

A :class:`Definition` is plain data: a measure's name, its spellings (trec_eval name and
parameter syntax, ir_measures name, display name, aliases), its keyword parameters with types
and defaults, how it is summarised over topics, which way is better, a one-line description,
its citation, the independent source its numbers are checked against and the trec_eval
versions that have it. The definitions live in :mod:`trecbench.measures.catalog`; this
module never imports an engine.

Engines (:mod:`trecbench.engines`) register what they compute with :func:`register_engine`:
a name, the module that implements it, the families it computes and, optionally, a finer
``supports(measure)`` predicate (parameters it cannot honour). The measure side only reads
those registrations (to list engines and to pick one); the arrow runs engines → measures.

How to add a measure
--------------------
1. Describe it once in :mod:`trecbench.measures.catalog`: ``define(Definition(...))`` with
   its name, spellings, :class:`Param` list, summary rule, ``better``, description,
   citation, ``source`` (what tests compare it with) and ``trec_eval`` versions; its
   ``ties`` (what the orders of tied documents do to it, :mod:`trecbench.tiebounds`),
   ``judgments`` (whose judgments it reads, :mod:`trecbench.conclusions.unjudged`) and
   ``group`` (compare's table for it) in the catalog's :func:`state_facts` table (a
   family named there that no module defines is refused when the package is imported).
2. Compute it in an engine and name it in that engine's :func:`register_engine` call
   (``families=``). The engine's ``Evaluator`` returns one array per value label.
3. Test it against its source and regenerate ``docs/measures.md``
   (``trecbench measures --format markdown``; a test compares them).

A trec_eval family (e.g. trec_eval 10.0's ``rbp`` or 9.0.8's ``prefs_*``) is a
``Definition`` with ``trec_name`` (its ``-m`` name), ``trec_params`` (how trec_eval reads its
parameters: :data:`LONG_CUTOFFS`, :data:`FLOAT_CUTOFFS`, :data:`FLOAT_PARAMS`,
:data:`PAIRS` or None), ``trec_order`` (its place in trec_eval's printing order) and
``trec_eval=("10.0",)``; an engine computing it registers with
``register_engine("trec_eval_native", "trecbench.engines.native", families=["rbp", ...])``.
"""

from __future__ import annotations

import dataclasses
import importlib
import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..trec_eval import clib

# How trec_eval reads the text after a family's first dot (its -m parameter syntax).
LONG_CUTOFFS = "long_cutoffs"  # P.5,10: sorted integer cutoffs, one value each
FLOAT_CUTOFFS = "float_cutoffs"  # iprec_at_recall..10,.20: sorted float cutoffs, one value each
FLOAT_PARAMS = "float_params"  # utility.2,-1,0,0: one value, label name_<params>
PAIRS = "pairs"  # ndcg.1=3,2=9: gain map, one value, label name_<params>

# How a value is summarised over topics (and whether trec_eval prints it per topic).
MEAN, SUM, GEOMETRIC, NUM_Q, NUM_REL, RUNID, STRING = (
    "mean",
    "sum",
    "geometric",
    "num_q",
    "num_rel",
    "runid",
    "string",
)
# Why a family summarised so has no number per topic, which comparisons of per-topic
# values (compare, power, agree, benchmark, leaderboard) are computed from; {description}
# is the family's. relstring has a value per topic (trec_eval -q prints it), but text
NO_TOPIC_NUMBER = {
    GEOMETRIC: "no value per topic (a summary over topics)",
    NUM_Q: "no value per topic (a summary over topics)",
    RUNID: "no value per topic (the run's tag)",
    STRING: "no number per topic (its value per topic is text: {description})",
}
COUNTS = frozenset({SUM, NUM_Q, NUM_REL})

HIGHER, LOWER = "higher", "lower"

# Reference providers: whose definition a number follows (and what tests compare it with).
PYTREC_EVAL = "pytrec_eval"  # trec_eval 9.0.8's own code
LOCAL = "local"  # trecbench's own definition (a seed document's formula, Phentrieve's ...)
META = "trecbench"  # runid and num_q: facts about the evaluation, not measures of a ranking

# What ``@`` sets on a measure: an integer rank cutoff or a recall level (IPrec@0.2).
INT_CUTOFF, FLOAT_CUTOFF = "int", "float"

# What the orders of tied documents do to a family's value (:mod:`trecbench.tiebounds`
# proves each): the best and the worst order of every tie group bound it under any
# options; no order changes it; they bound it unless -M cuts with -l 2 or more, or unless
# -M cuts with -J; they bound it when it has no trec_eval parameters. None: not shown.
TIES_BOUNDED = "bounded"
TIES_FIXED = "fixed"
TIES_BOUNDED_UNLESS_CUT_LEVELS = "bounded unless -M with -l 2 or more"
TIES_BOUNDED_UNLESS_CUT_JUDGED = "bounded unless -M with -J"
TIES_BOUNDED_WITHOUT_PARAMS = "bounded without parameters"

# Whose judgments a topic's value reads (:mod:`trecbench.conclusions.unjudged` proves each):
# only those of the documents the run retrieved (within its cutoff), the value never
# falling as one's grade rises; so without a gain map. None: judgments beyond them (an
# ideal ranking, R, the qrels' grades), or not shown to read only its own.
OWN_JUDGMENTS = "own"
OWN_JUDGMENTS_WITHOUT_PARAMS = "own without parameters"

# The table of compare's reports a family's means are shown in
RANKING, RECALL = "Ranking quality", "Recall and hit rate"


# trec_eval reads integer parameters (cutoffs) as C longs; grades are C ints
LONG_MAX = clib.LONG_MAX  # the largest C long: trec_eval reads cutoffs with atol
INT_MIN, INT_MAX = -(2**31), 2**31 - 1


@dataclass(frozen=True)
class Domain:
    """Where a number has a meaning: finite, in an interval (each end open or closed),
    an integer when ``integer``; ``what`` names the number in messages when it is not a
    named parameter (``the cutoff``), ``reason`` says why the domain is what it is."""

    low: float = -math.inf
    high: float = math.inf
    low_open: bool = False
    high_open: bool = False
    integer: bool = False
    what: str = "the value"
    reason: str = ""

    def __str__(self) -> str:
        kind = "an integer " if self.integer else ""
        low, high = _shown(self.low), _shown(self.high)
        if math.isinf(self.low) and math.isinf(self.high):
            return "a finite integer" if self.integer else "a finite number"
        if math.isinf(self.high):
            return f"{kind}{'>' if self.low_open else '>='} {low}"
        if math.isinf(self.low):
            return f"{kind}{'<' if self.high_open else '<='} {high}"
        left, right = "(" if self.low_open else "[", ")" if self.high_open else "]"
        return f"{kind}in {left}{low}, {high}{right}"

    def contains(self, value: Any) -> bool:
        """Whether ``value`` (a number: int or float, never bool) lies in the domain."""
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return False
        if isinstance(value, float) and not math.isfinite(value):
            return False
        if self.integer and not isinstance(value, int):
            return False
        above = value > self.low if self.low_open else value >= self.low
        below = value < self.high if self.high_open else value <= self.high
        return above and below

    def problem(self, value: Any, name: str | None = None) -> str | None:
        """``p must be in (0, 1) (why), not 1.5``, or None when ``value`` is in the domain."""
        if self.contains(value):
            return None
        because = f" ({self.reason})" if self.reason else ""
        shown = repr(value)
        shown = shown if len(shown) <= 40 else f"{shown[:37]}..."  # messages quote excerpts
        return f"{name or self.what} must be {self}{because}, not {shown}"


def _shown(bound: float) -> str:
    """A bound as written in the catalog: integers exactly, other numbers shortest."""
    return str(bound) if isinstance(bound, int) else f"{bound:g}"


@dataclass(frozen=True)
class Param:
    """A keyword parameter (``rel=2``): type, default (None: not given), choices and, for a
    number (or the values of a gain map), its :class:`Domain`; ``below``: the parameter
    this one must be less than when both are set (``min_rel`` < ``max_rel``); ``unset_by``:
    the call's option that decides it when it is not given (``-J`` for ``judged_only``), so
    that given at its default it still says something (``Measure.pinned``)."""

    name: str
    type: type
    default: Any = None
    doc: str = ""
    choices: tuple = ()
    source: str | None = None  # the reference for values other than the default (a variant)
    domain: Domain | None = None
    below: str | None = None
    unset_by: str | None = None

    def check(self, value: Any) -> str | None:
        """Why ``value`` is not acceptable, or None."""
        numeric = isinstance(value, (int, float)) and not isinstance(value, bool)
        if not (self.type is float and numeric):  # a float parameter takes ints too
            if not isinstance(value, self.type) or (self.type is int and isinstance(value, bool)):
                return f"{self.name} must be {self.type.__name__}, got {value!r}"
        if self.choices and value not in self.choices:
            return f"{self.name} must be one of {', '.join(map(repr, self.choices))}"
        if self.domain is None:
            return None
        if isinstance(value, dict):  # a gain map: integer grades to values in the domain
            for grade, gain in value.items():
                if isinstance(grade, bool) or not isinstance(grade, int):
                    return f"{self.name} map integer grades to gains, got grade {grade!r}"
                problem = self.domain.problem(gain, f"{self.name}[{grade}]")
                if problem:
                    return problem
            return None
        return self.domain.problem(value, self.name)


# the judgment formats a family is computed from (Definition.reads)
QRELS, PREFERENCES, JUDGMENT_GROUPS = "qrels", "prefs", "qrels_jg"
# -R's formats, by the judgments they hold
FORMAT_READS = {"qrels": QRELS, "prefs": PREFERENCES, "qrels_prefs": PREFERENCES,
                "qrels_jg": JUDGMENT_GROUPS}  # fmt: skip


@dataclass(frozen=True)
class Definition:
    """One measure family, described once (see the module docstring)."""

    name: str  # the family's key: trec_eval's name for its measures, else ir_measures'
    description: str  # one line: what it computes
    citation: str = ""
    source: str = PYTREC_EVAL  # the reference: pytrec_eval, local, gdeval, cwl_eval, ...
    checked: str = ""  # what tests compare a local measure with, when not its source
    summary: str = MEAN
    better: str | None = HIGHER
    params: tuple[Param, ...] = ()
    cutoff: str | None = None  # what @ sets: INT_CUTOFF, FLOAT_CUTOFF or None
    cutoff_required: bool = False
    # the domain of the cutoff (@k, @r) and of each number of the trec_eval parameter list
    # (P.5,10; iprec_at_recall..2; utility.1,-1,0,0; the gains of ndcg.1=3): None without
    numbers: Domain | None = None
    # spellings
    trec_name: str | None = None  # -m name in trec_eval syntax (None: not a trec_eval family)
    label: str | None = None  # trec-style label prefix when not trec_name (MRR@10: recip_rank_cut)
    trec_params: str | None = None  # LONG_CUTOFFS, FLOAT_CUTOFFS, FLOAT_PARAMS, PAIRS, None
    trec_defaults: tuple = ()  # cutoffs used when a cutoff family is given without any
    ir_measures: str | None = None  # ir_measures' name that maps here
    # ... with these parameter values; an alias of a family whose values are all fixed is
    # ir_measures' name for that measure with them preset (SetRelP = SetP(relative=True)),
    # and with other values the measure they make (SetRelP(relative=False) is SetP)
    ir_measures_when: tuple[tuple[str, Any], ...] = ()
    # ir_measures' parameters of its measure that this family does not take, each with the
    # value ir_measures gives it by default: given that value it changes nothing and is
    # left out (RR(judged_only=False)@5 is MRR@5, as ir_measures computes it; the object
    # alike: irm_objects), given another it is refused
    ir_measures_unset: tuple[tuple[str, Any], ...] = ()
    display: str | None = None  # display name: nDCG -> nDCG@10
    aliases: tuple[str, ...] = ()  # more names, case-insensitive (seed spellings, ...)
    trec_eval: tuple[str, ...] = ()  # trec_eval versions that have it
    notes: str = ""  # where the definition comes from, variants, caveats
    diversity: bool = False  # needs qrels with a subtopic column
    # the -R format of the judgments it is computed from: QRELS, PREFERENCES (-R prefs or
    # qrels_prefs) or JUDGMENT_GROUPS (-R qrels_jg); trec_eval computes it from no other
    reads: str = QRELS
    # facts other parts read: what tied documents' orders do to it (TIES_*, None: not
    # shown to be bounded), why not (when not, or when the condition of ``ties`` holds),
    # and the table of compare's reports its means are shown in
    ties: str | None = None
    ties_reason: str = ""
    group: str = RANKING
    # the width of the interval a topic's value lies in (1 for [0, 1]), what a difference
    # of two runs' means can reach at most; None: not bounded, or not stated
    span: float | None = None
    span_without_params: bool = False  # the span holds only without a parameter list
    # whose judgments a topic's value reads (OWN_JUDGMENTS_*, None: beyond the run's own
    # documents): whether two runs' unjudged bounds bound their difference
    judgments: str | None = None
    # it counts the judged documents below the relevance level (num_nonrel_judged_ret):
    # judging unjudged ones at such a grade moves it without making any relevant
    counts_nonrelevant: bool = False

    @property
    def no_topic_number(self) -> str | None:
        """Why the family has no number per topic for a comparison of per-topic values
        (:data:`NO_TOPIC_NUMBER`), or None when it has one."""
        reason = NO_TOPIC_NUMBER.get(self.summary)
        return None if reason is None else reason.format(description=self.description)

    @property
    def label_prefix(self) -> str:
        """Prefix of its trec_eval-style value labels (``ndcg_cut`` -> ``ndcg_cut_10``)."""
        return self.label or self.trec_name or self.name

    def param(self, name: str) -> Param | None:
        return next((p for p in self.params if p.name == name), None)

    def unset_in_ir_measures(self, name: str, value: Any) -> bool:
        """Whether ``name=value`` is one of :attr:`ir_measures_unset` at its default (of
        its type: 0 is not ``judged_only=False``)."""
        return any(
            key == name and type(value) is type(default) and value == default
            for key, default in self.ir_measures_unset
        )


@dataclass(frozen=True)
class Engine:
    """A registered engine: its module and what it computes."""

    name: str
    module: str
    families: frozenset[str]
    supports: Callable[[Any], bool] | None = None
    description: str = ""

    def computes(self, measure) -> bool:
        """Whether this engine computes ``measure`` (a :class:`~.names.Measure`)."""
        if measure.family not in self.families:
            return False
        return self.supports is None or bool(self.supports(measure))

    def load(self):
        """The module implementing the engine."""
        return importlib.import_module(self.module)


_DEFINITIONS: dict[str, Definition] = {}
_FACTS: dict[str, dict[str, Any]] = {}  # Definition fields stated apart (state_facts)
_ENGINES: dict[str, Engine] = {}
_ORDER: list[str] = []  # trec_eval's printing order of the trec_eval families


@dataclass
class _Index:
    """Look-up tables built from the definitions (rebuilt when one is added)."""

    names: dict[str, list[Definition]] = field(default_factory=dict)  # lower-cased spellings
    trec: dict[str, Definition] = field(default_factory=dict)  # exact trec_eval names
    labels: dict[str, Definition] = field(default_factory=dict)  # label prefixes of the others


_index: _Index | None = None


def define(definition: Definition, *, trec_order: int | None = None) -> Definition:
    """Add a measure family to the registry (``trec_order``: its place among trec_eval's)."""
    global _index
    if definition.name in _DEFINITIONS:
        raise ValueError(f"measure {definition.name!r} is already defined")
    definition = dataclasses.replace(definition, **_FACTS.get(definition.name, {}))
    _DEFINITIONS[definition.name] = definition
    if definition.trec_name is not None:
        position = len(_ORDER) if trec_order is None else trec_order
        _ORDER.insert(position, definition.name)
    _index = None
    return definition


def state_facts(facts: Mapping[str, Mapping[str, Any]]) -> None:
    """Fields of families' definitions (``ties``, ``ties_reason``, ``group``, ``span``,
    ``judgments``) stated as tables of the catalog, for families defined in any of its
    modules: each goes into its family's :class:`Definition` when the family is defined."""
    for name, fields in facts.items():
        if name in _DEFINITIONS:
            raise ValueError(f"measure {name!r} is defined before its facts")
        _FACTS.setdefault(name, {}).update(fields)


def check_facts() -> None:
    """Refuse facts stated for a family no module defined (a misspelt name would otherwise
    leave its family without them, silently): called once every module of the catalog has
    defined its families."""
    stray = sorted(set(_FACTS) - set(_DEFINITIONS))
    if stray:
        raise ValueError(f"facts stated for undefined measures {stray}")


def register_engine(
    name: str,
    module: str,
    families: Iterable[str],
    *,
    supports: Callable[[Any], bool] | None = None,
    description: str = "",
) -> Engine:
    """Say that engine ``name`` (implemented by ``module``) computes ``families``.

    ``supports(measure)`` narrows it down (e.g. no keyword parameter it cannot honour).
    Registering a name again adds families to it.
    """
    unknown = set(families) - set(_DEFINITIONS)
    if unknown:
        raise ValueError(f"engine {name!r}: undefined measures {sorted(unknown)}")
    old = _ENGINES.get(name)
    if old is not None:
        families = old.families | set(families)
        previous, extra = old.supports, supports
        if previous is not None and extra is not None:

            def supports(m, a=previous, b=extra):
                return a(m) or b(m)

        else:
            supports = None
    engine = Engine(name, module, frozenset(families), supports, description)
    _ENGINES[name] = engine
    return engine


def definitions() -> list[Definition]:
    """Every definition, trec_eval's families first in its printing order."""
    rest = [d for d in _DEFINITIONS.values() if d.name not in _ORDER]
    return [_DEFINITIONS[n] for n in _ORDER] + rest


def get(name: str) -> Definition:
    """The definition of family ``name`` (KeyError if there is none)."""
    return _DEFINITIONS[name]


def find(name: str) -> Definition | None:
    return _DEFINITIONS.get(name)


def trec_order() -> dict[str, int]:
    """trec_eval's printing order: family name -> position."""
    return {name: index for index, name in enumerate(_ORDER)}


def _build_index() -> _Index:
    index = _Index()
    for d in _DEFINITIONS.values():
        spellings = {d.name, d.display, d.ir_measures, *d.aliases} - {None}
        for spelling in spellings:
            index.names.setdefault(spelling.lower(), []).append(d)
        if d.trec_name is not None:
            index.trec[d.trec_name] = d
        elif d.label is not None:
            index.labels[d.label] = d
    return index


def index() -> _Index:
    global _index
    if _index is None:
        _index = _build_index()
    return _index


def engines() -> list[Engine]:
    """The registered engines, in registration order."""
    return list(_ENGINES.values())


def engine(name: str) -> Engine | None:
    return _ENGINES.get(name)


def engines_for(definition: Definition) -> list[str]:
    """Names of the engines registered for a family."""
    return [e.name for e in _ENGINES.values() if definition.name in e.families]


SOURCES = {
    "pytrec_eval": "trec_eval 9.0.8",
    "local": "trecbench (formula in its notes)",
    "trecbench": "the evaluation itself",
    "gdeval": "gdeval (ir_measures' provider)",
    "judged": "ir_measures' judged provider",
    "cwl_eval": "cwl_eval (ir_measures' provider)",
    "pyndeval": "ndeval via pyndeval (ir_measures' provider)",
    "compat": "ir_measures' compat provider",
    "accuracy": "ir_measures' accuracy provider",
}


def checked_against(definition: Definition, source: str | None = None) -> str:
    """What ``definition``'s numbers are checked against, in words: its ``checked`` text,
    else its reference's (:data:`SOURCES`). ``source``: a variant's reference (a parameter
    whose values another provider computes), said in its place when it differs. The one
    fact the table and ``trecbench measures NAME`` both say."""
    if source is None or source == definition.source:
        return definition.checked or SOURCES.get(definition.source, definition.source)
    return SOURCES.get(source, source)
