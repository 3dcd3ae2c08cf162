"""Measure names in three spellings, one meaning.

A :class:`Measure` is data: a *family* (trec_eval's measure name such as ``ndcg_cut``, or a
local family such as ``HitRate``), its parameter text in trec_eval syntax, and the provider
that computes it. :func:`parse_measure` accepts

* trec_eval spellings: ``ndcg_cut.10``, ``P.5,10``, ``iprec_at_recall..10``,
  ``ndcg.1=3,2=9`` (and bare ``map``, ``P``, ...);
* ir_measures spellings: ``nDCG@10``, ``AP@100``, ``RR@10``, ``R@50``, ``P@10``,
  ``Success@10``;
* display names: ``nDCG@10``, ``MAP@100``, ``MRR@10``, ``Recall@50``, ``HitRate@10``,
  plus local measures (``Recall_all@10``, ``MaxOntSim@10``, ...).

``MRR@10`` (``RR@10``) is reciprocal rank over the run cut at 10 — what trec_eval computes
with ``-M 10 -m recip_rank`` — and never the uncut ``recip_rank``. Its trec-style label is
``recip_rank_cut_10``, by analogy with ``ndcg_cut_10`` and ``map_cut_100`` which are also
"measured on the top k" of the ranking evaluated: under ``-J`` the judged documents, cut
at 10 (as ``P_10``, ``ndcg_cut_10``, ``success_10``), where trec_eval's ``-M 10 -J`` cuts
first (both are tested against trec_eval: tests/test_trec_eval_fixtures.py).

:func:`parse_measures` applies trec_eval's ``-m`` rules to a list of names (nicknames,
"the first parameter list given for a measure wins").
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from .errors import TrecbenchError, UsageError
from .trec_eval import compat

# The six KPIs of the TREC 2025 retrieval task.
KPI_PRESET = ("nDCG@10", "MAP@100", "MRR@10", "Recall@50", "Recall@100", "HitRate@10")

PYTREC_EVAL = "pytrec_eval"
LOCAL = "local"
NATIVE = "native"  # trecbench's ports of trec_eval code pytrec_eval lacks (trecbench.trec_eval)
META = "trecbench"  # runid and num_q: facts about the evaluation, not measures of a ranking

# Parameter kinds (how trec_eval reads the text after the first dot).
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
SUMMARY_ONLY = frozenset({GEOMETRIC, NUM_Q, RUNID})
COUNTS = frozenset({SUM, NUM_Q, NUM_REL})


@dataclass(frozen=True)
class Family:
    """What trec_eval knows about one of its measures."""

    params: str | None
    summary: str
    defaults: tuple = ()


_STANDARD_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
_RECALL_POINTS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
_R_MULTIPLES = (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)

# trec_eval's measures, in its internal (printing) order (measures.c); 10.0 adds dcg,
# ideal_dcg, rbp, rbp_resid and unj (trecbench.trec_eval.compat), in this same order.
TREC_FAMILIES: dict[str, Family] = {
    "runid": Family(None, RUNID),
    "num_q": Family(None, NUM_Q),
    "num_ret": Family(None, SUM),
    "num_rel": Family(None, NUM_REL),
    "num_rel_ret": Family(None, SUM),
    "map": Family(None, MEAN),
    "gm_map": Family(None, GEOMETRIC),
    "Rprec": Family(None, MEAN),
    "bpref": Family(None, MEAN),
    "recip_rank": Family(None, MEAN),
    "iprec_at_recall": Family(FLOAT_CUTOFFS, MEAN, _RECALL_POINTS),
    "P": Family(LONG_CUTOFFS, MEAN, _STANDARD_CUTOFFS),
    "relstring": Family(FLOAT_PARAMS, STRING),
    "recall": Family(LONG_CUTOFFS, MEAN, _STANDARD_CUTOFFS),
    "infAP": Family(None, MEAN),
    "gm_bpref": Family(None, GEOMETRIC),
    "Rprec_mult": Family(FLOAT_CUTOFFS, MEAN, _R_MULTIPLES),
    "utility": Family(FLOAT_PARAMS, MEAN),
    "11pt_avg": Family(FLOAT_PARAMS, MEAN, _RECALL_POINTS),
    "binG": Family(None, MEAN),
    "G": Family(PAIRS, MEAN),
    "dcg": Family(PAIRS, MEAN),
    "ideal_dcg": Family(PAIRS, MEAN),
    "ndcg": Family(PAIRS, MEAN),
    "ndcg_rel": Family(PAIRS, MEAN),
    "Rndcg": Family(PAIRS, MEAN),
    "ndcg_cut": Family(LONG_CUTOFFS, MEAN, _STANDARD_CUTOFFS),
    "map_cut": Family(LONG_CUTOFFS, MEAN, _STANDARD_CUTOFFS),
    "relative_P": Family(LONG_CUTOFFS, MEAN, _STANDARD_CUTOFFS),
    "success": Family(LONG_CUTOFFS, MEAN, (1, 5, 10)),
    "set_P": Family(None, MEAN),
    "set_relative_P": Family(None, MEAN),
    "set_recall": Family(None, MEAN),
    "set_map": Family(None, MEAN),
    "set_F": Family(FLOAT_PARAMS, MEAN),
    "num_nonrel_judged_ret": Family(None, SUM),
    "prefs_num_prefs_poss": Family(None, SUM),
    "prefs_num_prefs_ful": Family(None, SUM),
    "prefs_num_prefs_ful_ret": Family(None, SUM),
    "prefs_simp": Family(None, MEAN),
    "prefs_pair": Family(None, MEAN),
    "prefs_avgjg": Family(None, MEAN),
    "prefs_avgjg_Rnonrel": Family(None, MEAN),
    "prefs_simp_ret": Family(None, MEAN),
    "prefs_pair_ret": Family(None, MEAN),
    "prefs_avgjg_ret": Family(None, MEAN),
    "prefs_avgjg_Rnonrel_ret": Family(None, MEAN),
    "prefs_simp_imp": Family(None, MEAN),
    "prefs_pair_imp": Family(None, MEAN),
    "prefs_avgjg_imp": Family(None, MEAN),
    "map_avgjg": Family(None, MEAN),
    "P_avgjg": Family(LONG_CUTOFFS, MEAN, _STANDARD_CUTOFFS),
    "Rprec_mult_avgjg": Family(FLOAT_CUTOFFS, MEAN, _R_MULTIPLES),
    "yaap": Family(None, MEAN),
    "rbp": Family(PAIRS, MEAN),
    "rbp_resid": Family(PAIRS, MEAN),
    "unj": Family(LONG_CUTOFFS, MEAN, (5, 10, 20)),
}
# Families computed by trecbench's own ports (trecbench.trec_eval); 10.0's rounded
# iprec_at_recall and 11pt_avg join them in 10.0 mode (see _provider).
NATIVE_FAMILIES = frozenset(
    [name for name in TREC_FAMILIES if name.startswith("prefs_") or name.endswith("_avgjg")]
    + ["yaap", "rbp", "rbp_resid", "unj", "dcg", "ideal_dcg"]
)
TREC_ORDER = {name: index for index, name in enumerate(TREC_FAMILIES)}

# trec_eval's nicknames (all_trec differs by version: trecbench.trec_eval.compat)
NICKNAMES = {
    "official": (
        "runid num_q num_ret num_rel num_rel_ret map gm_map Rprec bpref recip_rank "
        "iprec_at_recall P"
    ).split(),
    "all_trec": list(compat.V9.all_trec),
    "set": (
        "runid num_q num_ret num_rel num_rel_ret utility set_P set_recall set_relative_P "
        "set_map set_F"
    ).split(),
    "all_prefs": (
        "runid num_q prefs_num_prefs_poss prefs_num_prefs_ful prefs_num_prefs_ful_ret "
        "prefs_simp prefs_pair prefs_avgjg prefs_avgjg_Rnonrel prefs_simp_ret prefs_pair_ret "
        "prefs_avgjg_ret prefs_avgjg_Rnonrel_ret prefs_simp_imp prefs_pair_imp prefs_avgjg_imp"
    ).split(),
    "prefs": (
        "runid num_q prefs_num_prefs_poss prefs_num_prefs_ful prefs_num_prefs_ful_ret "
        "prefs_simp prefs_pair prefs_avgjg"
    ).split(),
    "qrels_jg": "runid num_q map_avgjg P_avgjg Rprec_mult_avgjg".split(),
}

# Display names of trec_eval values people ask for by name (semantics doc, last table).
_CUTOFF_DISPLAY = {
    "P": "P",
    "recall": "Recall",
    "ndcg_cut": "nDCG",
    "map_cut": "MAP",
    "success": "HitRate",
}
_PLAIN_DISPLAY = {"map": "MAP", "ndcg": "nDCG"}

# Friendly spellings (lower-cased) of trec_eval families: name@k -> cutoff family ...
_AT_ALIASES = {
    "ndcg": "ndcg_cut",
    "ap": "map_cut",
    "map": "map_cut",
    "r": "recall",
    "recall": "recall",
    "p": "P",
    "precision": "P",
}
# ... and bare names (ir_measures and display spellings).
_BARE_ALIASES = {
    "ndcg": "ndcg",
    "ap": "map",
    "map": "map",
    "rr": "recip_rank",
    "mrr": "recip_rank",
    "rprec": "Rprec",
    "r-prec": "Rprec",
    "bpref": "bpref",
    "infap": "infAP",
    "numret": "num_ret",
    "numrel": "num_rel",
    "numrelret": "num_rel_ret",
    "numq": "num_q",
}


class MeasureParameterError(TrecbenchError):
    """A measure's parameters are invalid (trec_eval cannot initialise it: exit 2)."""

    exit_code = 2


@dataclass(frozen=True)
class Measure:
    """One requested measure: family, parameter text (trec_eval syntax) and provider.

    Two spellings of the same meaning compare equal (``nDCG@10`` == ``ndcg_cut.10``);
    ``requested`` keeps what the user typed and ``trec_spelled`` whether it was trec_eval
    syntax (then trec_eval's ``-m`` rules and printing order apply).
    """

    family: str
    params: str | None
    provider: str
    requested: str = field(default="", compare=False)
    trec_spelled: bool = field(default=False, compare=False)

    @property
    def canonical(self) -> str:
        """trec_eval spelling for trec_eval measures, ``Family@k`` for local ones."""
        if self.provider == LOCAL and self.family != "relstring":
            return f"{self.family}@{self.params}"
        return f"{self.family}.{self.params}" if self.params is not None else self.family

    @property
    def info(self) -> Family | None:
        """trec_eval's description of the family (None for local families)."""
        return TREC_FAMILIES.get(self.family)

    @property
    def summary(self) -> str:
        info = self.info
        return info.summary if info is not None else MEAN

    @property
    def cutoffs(self) -> tuple[int, ...]:
        """Integer cutoffs of a cutoff family (defaults when no parameters were given)."""
        info = self.info
        if info is None or info.params != LONG_CUTOFFS:
            return ()
        return long_cutoffs(self.params) if self.params is not None else info.defaults

    @property
    def k(self) -> int:
        """The cutoff of a local measure."""
        return int(self.params)

    def __str__(self) -> str:
        return self.canonical


# ---------------------------------------------------------------------------------------
# C number parsing (trec_eval reads parameters with atol/atof)

_ATOL = re.compile(r"^[ \t\n\r\v\f]*([+-]?[0-9]+)")
_ATOF = re.compile(r"^[ \t\n\r\v\f]*([+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?)")


def c_atol(text: str) -> int:
    """C ``atol``: the leading integer of ``text``, 0 when there is none."""
    match = _ATOL.match(text)
    return int(match.group(1)) if match else 0


def c_atof(text: str) -> float:
    """C ``atof`` (decimal forms): the leading number of ``text``, 0.0 when there is none."""
    match = _ATOF.match(text)
    return float(match.group(1)) if match else 0.0


def long_cutoffs(params: str) -> tuple[int, ...]:
    """Integer cutoffs as trec_eval reads them: ``atol`` each, sorted, positive, unique."""
    values = sorted(c_atol(part) for part in params.split(","))
    if values[0] <= 0:
        raise MeasureParameterError(f"negative cutoff detected in '{params}'")
    if len(set(values)) != len(values):
        raise MeasureParameterError(f"duplicate cutoffs detected in '{params}'")
    return tuple(values)


def _check_params(family: str, params: str) -> None:
    """Reject what trec_eval refuses (pytrec_eval aborts the process on these instead)."""
    kind = TREC_FAMILIES[family].params
    if kind is None:
        return  # trec_eval ignores parameters of measures that take none
    if kind == LONG_CUTOFFS:
        long_cutoffs(params)
    elif kind == FLOAT_CUTOFFS:
        values = [c_atof(part) for part in params.split(",")]
        if len(set(values)) != len(values):
            raise MeasureParameterError(f"duplicate cutoffs detected in '{params}'")
    elif kind == PAIRS:
        if not re.fullmatch(r"[^,=]*=[^,=]*(,[^,=]*=[^,=]*)*", params):
            raise MeasureParameterError(f"malformed pair parameters in '{params}'")
    elif family == "utility" and len(params.split(",")) != 4:
        raise MeasureParameterError(f"utility needs 4 coefficients, got '{params}'")


# ---------------------------------------------------------------------------------------
# parsing


def _local_registry():
    from .engines import local

    return local


def _parse_trec(text: str, version: compat.Compat) -> Measure | None:
    name, dot, params = text.partition(".")
    if name not in TREC_FAMILIES or compat.unavailable(name, version):
        local = _local_registry().by_trec_name(name)
        if local is None or not dot:
            return None
        return Measure(local.family, str(_positive_k(params, text)), LOCAL, text, True)
    if dot and params == "":
        raise UsageError(f"illegal measure '{text}' (empty parameter list)")
    if not dot:
        params = None
    else:
        _check_params(name, params)
        if TREC_FAMILIES[name].params is None:
            params = None
    return Measure(name, params, _provider(name, version), text, True)


def _positive_k(text: str, whole: str) -> int:
    if not re.fullmatch(r"[0-9]+", text) or int(text) <= 0:
        raise UsageError(f"illegal measure '{whole}': the cutoff must be a positive integer")
    return int(text)


def parse_measure(text: str, version: str | compat.Compat = compat.DEFAULT) -> Measure:
    """Parse one measure name in any of the accepted spellings (``version``: the
    trec_eval whose measures are known, see :mod:`trecbench.trec_eval.compat`).

    Raises :class:`UsageError` (exit 1) for an unknown name and
    :class:`MeasureParameterError` (exit 2) for parameters trec_eval refuses.
    """
    text = text.strip()
    version = compat.get(version)
    measure = _parse_trec(text, version)
    if measure is not None:
        return measure
    name, at, cutoff = text.partition("@")
    key = name.lower()
    local = _local_registry().lookup(key)
    if at:
        k = _positive_k(cutoff, text)
        if key in _AT_ALIASES:
            return Measure(_AT_ALIASES[key], str(k), PYTREC_EVAL, text)
        if local is not None:
            return Measure(local.family, str(k), LOCAL, text)
    elif key in _BARE_ALIASES:
        family = _BARE_ALIASES[key]
        return Measure(family, None, _provider(family, version), text)
    elif local is not None:
        raise UsageError(f"measure '{text}' needs a cutoff, e.g. '{local.display}@10'")
    raise UsageError(f"illegal measure '{text}'")


def parse_measures(
    texts: Iterable[str | Measure] | str | None, version: str | compat.Compat = compat.DEFAULT
) -> list[Measure]:
    """Parse a list of names (None: the KPI preset), in request order, without duplicates.

    trec_eval's ``-m`` rules apply to trec_eval spellings: nicknames (``official``,
    ``all_trec``, ``set``, ``all_prefs``, ``prefs``, ``qrels_jg``) expand to their measures
    and, per measure, the first parameter list given wins (``-m P.5 -m P.10`` computes only
    ``P_5``). ``version`` is the trec_eval reproduced (``all_trec`` and the measures that
    exist differ: :mod:`trecbench.trec_eval.compat`).
    """
    version = compat.get(version)
    if texts is None:
        texts = KPI_PRESET
    elif isinstance(texts, str):
        texts = [texts]
    measures: list[Measure] = []
    for text in texts:
        if isinstance(text, Measure):
            measures.append(text)
        elif text.strip() in NICKNAMES:
            names = version.all_trec if text.strip() == "all_trec" else NICKNAMES[text.strip()]
            measures.extend(Measure(n, None, _provider(n, version), n, True) for n in names)
        else:
            measures.append(parse_measure(text, version))
    first_params: dict[str, str | None] = {}
    for measure in measures:
        if measure.trec_spelled and measure.provider != LOCAL or measure.family == "relstring":
            if first_params.get(measure.family) is None:
                first_params[measure.family] = measure.params
    result: list[Measure] = []
    for measure in measures:
        if measure.family in first_params and (measure.trec_spelled or measure.params is None):
            measure = Measure(
                measure.family,
                first_params[measure.family],
                measure.provider,
                measure.requested,
                measure.trec_spelled,
            )
        if measure not in result:
            result.append(measure)
    return result


def _provider(family: str, version: compat.Compat = compat.V9) -> str:
    """Who computes a trec_eval family: evaluate itself (runid, num_q), the local registry
    (relstring), trecbench's ports of trec_eval (what pytrec_eval lacks, and 10.0's
    rounded recall cutoffs) or pytrec_eval."""
    if family in ("runid", "num_q"):
        return META
    if family in NATIVE_FAMILIES:
        return NATIVE
    if family in ("iprec_at_recall", "11pt_avg") and version.rounded_recall_cutoffs:
        return NATIVE
    return LOCAL if family == "relstring" else PYTREC_EVAL


def trec_mode(measures: Iterable[Measure]) -> bool:
    """True when every measure was spelled the trec_eval way (then print in its order)."""
    return all(m.trec_spelled for m in measures)


def presentation_order(measures: list[Measure]) -> list[Measure]:
    """trec_eval's internal order in trec mode, otherwise the order requested."""
    if not trec_mode(measures):
        return list(measures)
    end = len(TREC_ORDER)
    return sorted(measures, key=lambda m: TREC_ORDER.get(m.family, end))


# ---------------------------------------------------------------------------------------
# labels


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
    info = measure.info
    if info is not None and info.params in (FLOAT_PARAMS, PAIRS) and measure.params:
        return f"{measure.family}_{measure.params}"
    return engine_label
