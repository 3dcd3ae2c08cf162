"""Measures: one registry where every measure is described once, and its spellings.

* :mod:`.registry` — :class:`~.registry.Definition` (name, spellings, parameters with
  types and defaults, summary rule, better direction, description, citation, independent
  source, trec_eval versions) and the engines' registrations (how to add a measure, a
  trec_eval family or an engine: see its docstring);
* :mod:`.catalog` — the definitions themselves (data), the KPI preset and trec_eval's
  nicknames; :mod:`.extended` — trecbench's own and ir_measures' other providers';
  :mod:`.ported` — the trec_eval families trecbench ports;
* :mod:`.params` — the shared parameters and the domains of the measures' numbers (each
  stated once, with its reason);
* :mod:`.names` — :class:`~.names.Measure` (one requested measure) and the parsers of
  trec_eval, ir_measures, display and seed spellings;
* :mod:`.first_parameters` — trec_eval's ``-m`` rule (a measure's first parameter list
  wins), which ``trecbench score`` applies and says what it left out;
* :mod:`.labels` — a parsed measure's labels and display names, span and better direction;
* :mod:`.spellings` — one call's spellings of its measures (``ndcg_cut.10`` and
  ``nDCG@10``): which name one value, what each value is shown under, from the names alone;
* :mod:`.expression` — the reader of ``Name(key=value,...)@cutoff``, and of several names
  in one ``-m`` value; :mod:`.irm_objects` — ir_measures' measure objects, spelt with every
  parameter they hold;
* :mod:`.trec_params` — trec_eval's parameter lists: C numbers, what trec_eval refuses,
  the numbers' domain checks;
* :mod:`.listing` — the table ``trecbench measures`` prints and ``docs/measures.md`` holds.

Nothing here imports an engine: engines register what they compute.
"""

from __future__ import annotations

from ..lazy import submodules as _submodules
from . import catalog, extended, ported, registry
from .asked import distinct, parse_measures, presentation_order, requests, trec_mode
from .catalog import KPI_PRESET, NICKNAMES
from .labels import (
    better,
    display_name,
    level_key,
    level_label,
    param_label,
    span,
    trec_label,
    value_names,
)
from .names import Measure, parse_measure, split_names
from .per_topic import but_counts
from .registry import (
    COUNTS,
    FLOAT_CUTOFFS,
    FLOAT_PARAMS,
    GEOMETRIC,
    HIGHER,
    LOCAL,
    LONG_CUTOFFS,
    LOWER,
    MEAN,
    META,
    NUM_Q,
    NUM_REL,
    PAIRS,
    PYTREC_EVAL,
    RUNID,
    STRING,
    SUM,
    Definition,
    Param,
    define,
    register_engine,
)
from .trec_params import MeasureParameterError, c_atof, c_atol, float_cutoffs, long_cutoffs

registry.check_facts()  # every family is defined now: a fact naming none is a misspelling

__all__ = [
    "COUNTS",
    "FLOAT_CUTOFFS",
    "FLOAT_PARAMS",
    "GEOMETRIC",
    "HIGHER",
    "KPI_PRESET",
    "LOCAL",
    "LONG_CUTOFFS",
    "LOWER",
    "MEAN",
    "META",
    "NICKNAMES",
    "NUM_Q",
    "NUM_REL",
    "PAIRS",
    "PYTREC_EVAL",
    "RUNID",
    "STRING",
    "SUM",
    "Definition",
    "Measure",
    "MeasureParameterError",
    "Param",
    "better",
    "span",
    "c_atof",
    "c_atol",
    "catalog",
    "extended",
    "ported",
    "define",
    "display_name",
    "float_cutoffs",
    "level_key",
    "level_label",
    "long_cutoffs",
    "param_label",
    "parse_measure",
    "parse_measures",
    "distinct",
    "presentation_order",
    "register_engine",
    "registry",
    "requests",
    "split_names",
    "trec_label",
    "trec_mode",
    "but_counts",
    "value_names",
]

__getattr__ = _submodules(__name__)  # trecbench.measures.<module> after import trecbench
