"""The settings of one evaluation, typed and checked once: :class:`EvalSettings`.

:func:`trecbench.evaluate` (and through it ``trecbench score`` and ``compare``) builds one
from its arguments; everything below reads its fields (engines too, through
:class:`trecbench.engines.interface.Settings`). The string-keyed view, what
:attr:`Evaluation.options <trecbench.evaluation.results.Evaluation>` and the JSON outputs
show, is :meth:`EvalSettings.to_json`.
"""

from __future__ import annotations

import numbers
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..errors import Setting, UsageError
from ..maxontsim_formulas import resolve_formula
from ..naming import path_argument
from ..resource_bounds import FEWEST_JOBS, LEAST_MEMORY_MIB, whole_from
from ..score_precision import setting_float32
from ..trec_eval import compat as _compat
from ..trec_eval.compat import Compat
from ..type_names import flag_from, python_type

REL_FORMATS = ("qrels", "prefs", "qrels_prefs", "qrels_jg")
# trec_eval's flags, in the order the JSON outputs list them (before the local options)
_FLAGS = (
    "relevance_level", "complete", "max_docs", "judged_only", "num_docs", "float32", "engine",
    "compat", "rel_format", "zscores", "debug_level", "debug_query",
)  # fmt: skip
# typed flags, checked as given (the command line's are already): -M 2.5 kept 3
# documents, judged_only="False" applied -J, relevance_level=1.5 judged nothing relevant
_WHOLE = ("relevance_level", "max_docs", "num_docs", "debug_level")
_YES_NO = (
    "complete", "judged_only", "float32", "tie_bounds", "unjudged_bounds", "first_parameters",
)  # fmt: skip
# optional whole numbers and the least each takes (the command line's bounds for --memory
# and --jobs): jobs=-3 ran as if not given, memory="big" failed inside int()
_LEAST = {"memory": LEAST_MEMORY_MIB, "jobs": FEWEST_JOBS, "drill_depth": 0}
# what options may hold: the local measures' (MaxOntSim's) options; a key misspelt was
# computed with the default and recorded in the outputs as if applied
LOCAL_OPTIONS = ("maxontsim_formula", "ontology")


def local_options(options: Mapping | None) -> dict[str, Any]:
    """``options`` (None: none) as a dict of :data:`LOCAL_OPTIONS`: another value than a
    mapping, a trec_eval flag, a key of no local option and a MaxOntSim formula of no
    name refused (:class:`~trecbench.errors.UsageError`)."""
    known = ", ".join(LOCAL_OPTIONS)
    if options is None:
        return {}
    if not isinstance(options, Mapping):
        raise UsageError(
            f"options must map local measure options ({known}), not be {python_type(options)}"
        )
    taken = sorted(set(options) & set(_FLAGS))
    if taken:
        raise UsageError(
            f"options {', '.join(taken)}: trec_eval flags, given as evaluate()'s own "
            "arguments, not as local measure options"
        )
    unknown = next((key for key in options if key not in LOCAL_OPTIONS), None)
    if unknown is not None:
        raise UsageError(f"options {unknown!r}: no such local measure option (known: {known})")
    # refused whether or not a MaxOntSim measure is asked: a misspelt name never passes
    resolve_formula(options.get("maxontsim_formula"))
    if options.get("ontology") is not None:  # else refused as load_ontology's path=5
        path_argument(options["ontology"], "ontology")
    return dict(options)


@dataclass(frozen=True)
class EvalSettings:
    """How runs are evaluated: trec_eval's flags, trecbench's own choices, the local
    measures' options.

    trec_eval's flags: ``relevance_level`` (``-l``), ``complete`` (``-c``), ``max_docs``
    (``-M``), ``judged_only`` (``-J``), ``num_docs`` (``-N``), ``rel_format`` (``-R``:
    ``qrels``, ``prefs``, ``qrels_prefs`` or ``qrels_jg``), ``zscores`` (``-Z``, a z-scores
    file), ``debug_level``/``debug_query`` (``-D level.qid``: trace output, one topic);
    ``float32`` compares scores at float32 precision like 9.x (every measure's ranking, the
    preference measures' too; their levels stay as the version holds them; None, the
    default: as the version holds scores, 10.0 as doubles, where True is refused);
    ``compat``: the trec_eval version reproduced (``9.0.8`` or ``10.0``,
    :mod:`trecbench.trec_eval.compat`).
    ``engine``: who computes the measures (``auto`` or an engine's name). ``options`` go
    to local measures (``maxontsim_formula``, ``ontology``; another key is refused).
    ``tie_bounds``: also compute the bounds over all orders of tied documents
    (:mod:`trecbench.tiebounds`); ``memory``: the budget in MiB, from 1 (None:
    :mod:`trecbench.memory`'s default); ``jobs``: worker processes, from 1 (None: as many
    as help). ``drill_depth``: also keep, for a report's drill-down, each run's first
    ``drill_depth`` documents per topic and its precision-recall curve
    (:mod:`trecbench.evaluation.drill`; None: nothing kept).
    ``unjudged_bounds``: also keep each run's values with its unjudged documents judged
    relevant at the qrels' top grade (:mod:`trecbench.evaluation.bounds`).
    ``first_parameters``: trec_eval's ``-m`` rule, a measure's first parameter list given
    computed alone (``P.5`` and ``P.10``: ``P_5``), with a warning of what it leaves out
    (:mod:`trecbench.measures.first_parameters`; ``trecbench score``'s); else every
    request is computed as given, as pytrec_eval computes them.

    Raises :class:`~trecbench.errors.UsageError` for a setting trec_eval or trecbench
    refuses, whatever the inputs.
    """

    relevance_level: int = 1
    complete: bool = False
    max_docs: int | None = None
    judged_only: bool = False
    num_docs: int | None = None
    float32: bool | None = None  # None: as the version holds scores (9.x: float32)
    engine: str = "auto"
    compat: str = _compat.DEFAULT
    rel_format: str = "qrels"
    zscores: str | None = None
    debug_level: int = 0
    debug_query: str | None = None
    options: dict[str, Any] = field(default_factory=dict)
    tie_bounds: bool = False
    memory: int | None = None
    jobs: int | None = None
    drill_depth: int | None = None
    unjudged_bounds: bool = False
    first_parameters: bool = False

    def __post_init__(self) -> None:
        # the version's own name ("9.0.8" for "9"): what the outputs record
        object.__setattr__(self, "compat", _compat.get(self.compat).version)
        if self.zscores is not None:
            object.__setattr__(self, "zscores", str(self.zscores))
        object.__setattr__(self, "options", local_options(self.options))
        self._check_types()
        # what the ranking does, which the outputs record: 10.0 holds scores as doubles (a
        # report of --compat 10.0 said float32: true); float32=True asked of it was dropped
        float32 = setting_float32(_compat.get(self.compat), self.float32)
        object.__setattr__(self, "float32", float32)
        self._check()

    def _check_types(self) -> None:
        """Refuse a flag of another type than it has (a number where a yes/no goes, 2.5
        for a count), where Python would take it for something else; numpy's integers
        and booleans are taken as Python's."""
        for name in _WHOLE:
            value = getattr(self, name)
            if value is None and name in ("max_docs", "num_docs"):
                continue
            if isinstance(value, bool) or not isinstance(value, numbers.Integral):
                raise UsageError(f"{name} must be a whole number, not {value!r}")
            object.__setattr__(self, name, int(value))
        for name, least in _LEAST.items():
            value = getattr(self, name)
            if value is not None:
                object.__setattr__(self, name, whole_from(name, value, least))
        for name in _YES_NO:
            if name == "float32" and self.float32 is None:  # the version's own (__post_init__)
                continue
            none = "as the version holds scores" if name == "float32" else ""
            object.__setattr__(self, name, flag_from(name, getattr(self, name), none))
        if not isinstance(self.engine, str):
            raise UsageError(f"engine must be an engine's name, not {python_type(self.engine)}")
        # numpy's str_ made Python's: refused as np.str_('fastest'), recorded as numpy's
        object.__setattr__(self, "engine", str(self.engine))
        query = self.debug_query  # a topic id is text: 301 matched no topic, '301' did
        if not (query is None or isinstance(query, str)):
            raise UsageError(f"debug_query must be a topic id as text, not {python_type(query)}")

    def _check(self) -> None:
        if self.engine != "auto":  # refused here, not once the inputs are read
            from ..engines import check_engine

            check_engine(self.engine)
        if self.rel_format not in REL_FORMATS:
            raise UsageError(
                f"Illegal rel_format '{self.rel_format}' (choose from {', '.join(REL_FORMATS)})"
            )
        for wanted, name in ((self.tie_bounds, "tie"), (self.unjudged_bounds, "unjudged")):
            if wanted and self.rel_format != "qrels":
                raise UsageError(
                    f"{name} bounds need graded qrels, not ", Setting("rel_format", self.rel_format)
                )
        if self.relevance_level < 1:
            # refused for every measure, so that the answer never depends on the engine chosen
            raise UsageError(
                Setting("relevance_level", self.relevance_level),
                ": levels below 1 are not supported (pytrec_eval, which computes trec_eval's "
                "measures, refuses 0 and reads a negative level as no document relevant)",
            )
        if self.num_docs is not None and not 0 <= self.num_docs < 2**63:
            # trec_eval takes any long, and utility then counts the collection's documents
            # neither retrieved nor relevant below 0
            raise UsageError(
                Setting("num_docs", self.num_docs),
                f": a collection's number of documents, from 0 to trec_eval's 64-bit count "
                f"({2**63 - 1:,})",
            )
        if self.max_docs is not None and self.max_docs < 1:
            # trec_eval would evaluate empty rankings, which pytrec_eval cannot (it crashes)
            raise UsageError(Setting("max_docs"), f" must be at least 1, got {self.max_docs}")

    @property
    def version(self) -> Compat:
        """The trec_eval version reproduced, with every difference it makes."""
        return _compat.get(self.compat)

    @property
    def ontology(self):
        """The ontology file MaxOntSim measures read (the local option ``ontology``; None:
        hpo3's bundled release)."""
        return self.options.get("ontology")

    @property
    def maxontsim_formula(self) -> str | None:
        """MaxOntSim's formula (the local option ``maxontsim_formula``; None: the default)."""
        return self.options.get("maxontsim_formula")

    @property
    def traced(self) -> bool:
        """Whether ``-D`` asks for traces or one topic."""
        return self.debug_level > 0 or self.debug_query is not None

    def flags(self) -> dict[str, Any]:
        """trec_eval's flags by name, each of which can change a number (``-N``, ``-Z``
        and ``-D level.qid`` too): what every record of the evaluation writes down."""
        return {name: getattr(self, name) for name in _FLAGS}

    def record(self) -> dict[str, Any]:
        """trec_eval's flags (:meth:`flags`) and the local measures' options, each by name
        and every one of them (``maxontsim_formula`` and ``ontology`` None where not
        given; a file as its path's text): how the runs were scored, as every record of
        an evaluation writes it down, from this one place: score's report and JSON
        (``options``), compare's and benchmark's BenchmarkReport, score's page, power's
        and agree's JSON (``evaluation``)."""
        record = self.flags() | {
            "maxontsim_formula": self.maxontsim_formula,
            "ontology": self.ontology,
        }
        return {
            name: os.fspath(value) if isinstance(value, os.PathLike) else value
            for name, value in record.items()
        }

    def to_json(self) -> dict[str, Any]:
        """The flags and the local options by name (:meth:`record`): what the JSON
        outputs and reports show as ``options``."""
        return self.record()
