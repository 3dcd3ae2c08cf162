"""trec_eval's families pytrec_eval does not compute, described once (data only): the
ones trecbench ports from trec_eval's C code (:mod:`trecbench.trec_eval`, engine
``native``), in trec_eval's printing order. Defined after :mod:`.extended`'s, so that
ir_measures' RBP keeps the spelling ``rbp`` outside trec_eval 10.0's ``-m`` syntax.
"""

from __future__ import annotations

from . import extended  # noqa: F401  (defined first: RBP keeps the spelling rbp)
from .catalog import MOFFAT_ZOBEL, STANDARD_CUTOFFS, TREC, TREC_EVAL_DOC, default_numbers
from .params import MULTIPLIER, persistence
from .registry import (
    FLOAT_CUTOFFS,
    JUDGMENT_GROUPS,
    LONG_CUTOFFS,
    LOWER,
    PAIRS,
    PREFERENCES,
    SUM,
    Definition,
    define,
    trec_order,
)

NATIVE = "trec_eval"  # the reference: trec_eval's C code, ported (checked against binaries)
PREFS = "Assumes -R prefs or -R qrels_prefs (preference judgments)"
JG = "Assumes -R qrels_jg (qrels whose second column names a judgment group)"
V10 = ("10.0",)


def _ported(name, description, *, after=None, **fields):
    """A trec_eval family computed by trecbench's port (``after``: the family it follows in
    trec_eval's printing order; by default the end)."""
    fields.setdefault("citation", TREC_EVAL_DOC)
    fields.setdefault("params", ())
    fields.setdefault("source", NATIVE)
    fields.setdefault("trec_eval", TREC)
    versions = " and ".join(fields["trec_eval"])
    fields.setdefault("checked", f"trec_eval {versions} (the binaries' stored outputs)")
    order = None if after is None else trec_order()[after] + 1
    default_numbers(fields)
    define(Definition(name, description, trec_name=name, **fields), trec_order=order)


_ported(
    "dcg",
    "discounted cumulative gain over the whole ranking (10.0; gain map as ndcg's)",
    after="G",
    trec_params=PAIRS,
    trec_eval=V10,
)
_ported(
    "ideal_dcg",
    "DCG of the ideal ranking (10.0; gain map as ndcg's)",
    after="dcg",
    trec_params=PAIRS,
    trec_eval=V10,
)
for _name, _what, _summary in (
    ("prefs_num_prefs_poss", "preferences possible, retrieved or not", SUM),
    ("prefs_num_prefs_ful", "preferences fulfilled (only one document retrieved counts)", SUM),
    ("prefs_num_prefs_ful_ret", "preferences fulfilled among retrieved documents", SUM),
    ("prefs_simp", "preferences fulfilled over preferences possible", None),
    ("prefs_pair", "per document pair, the share of its preferences fulfilled, averaged", None),
    ("prefs_avgjg", "prefs_simp within each judgment group, averaged over groups", None),
    ("prefs_avgjg_Rnonrel", "prefs_avgjg with the non-relevant documents brought to R", None),
    ("prefs_simp_ret", "prefs_simp among retrieved documents only", None),
    ("prefs_pair_ret", "prefs_pair among retrieved documents only", None),
    ("prefs_avgjg_ret", "prefs_avgjg among retrieved documents only", None),
    ("prefs_avgjg_Rnonrel_ret", "prefs_avgjg_Rnonrel among retrieved documents only", None),
    ("prefs_simp_imp", "prefs_simp, pairs with one document retrieved included", None),
    ("prefs_pair_imp", "prefs_pair, pairs with one document retrieved included", None),
    ("prefs_avgjg_imp", "prefs_avgjg, pairs with one document retrieved included", None),
):
    _fields = {"summary": _summary, "better": None} if _summary else {}
    _ported(_name, _what, notes=PREFS, reads=PREFERENCES, **_fields)
_ported(
    "map_avgjg",
    "AP of each judgment group, averaged over the groups",
    notes=JG,
    reads=JUDGMENT_GROUPS,
)
_ported(
    "P_avgjg",
    "P@k of each judgment group, averaged over the groups",
    trec_params=LONG_CUTOFFS,
    trec_defaults=STANDARD_CUTOFFS,
    notes=JG,
    reads=JUDGMENT_GROUPS,
)
_ported(
    "Rprec_mult_avgjg",
    "precision after R x m documents of each judgment group, averaged",
    trec_params=FLOAT_CUTOFFS,
    trec_defaults=(0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0),
    numbers=MULTIPLIER,
    notes=JG,
    reads=JUDGMENT_GROUPS,
)
_ported(
    "yaap",
    "yet another average precision: log((1 + s) / (1 + R - s)), s the sum of precisions",
    citation="Robertson, On smoothing average precision, ECIR 2012",
)
_RBP = {"trec_params": PAIRS, "params": (persistence(0.9),), "trec_eval": V10}
_ported(
    "rbp",
    "rank-biased precision (10.0): (1 - p) sum gain p^(i-1), gains rescaled to [0, 1]",
    citation=MOFFAT_ZOBEL,
    notes="trec_eval 10.0's rbp (p=0.9; rbp.p=0.8,1=3); ir_measures' spelling RBP is the "
    "RBP family (ir_measures' gains and parameters)",
    **_RBP,
)
_ported(
    "rbp_resid",
    "rbp's residual: what unjudged documents could still add (10.0)",
    citation=MOFFAT_ZOBEL,
    **_RBP,
)
_ported(
    "unj",
    "fraction of the top k that is unjudged (10.0)",
    trec_params=LONG_CUTOFFS,
    trec_defaults=(5, 10, 20),
    trec_eval=V10,
    better=LOWER,
)
