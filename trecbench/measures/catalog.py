"""Every measure trecbench knows, described once (data only; see :mod:`.registry`).

Three groups: trec_eval 9.0.8's families (here, in its printing order, numbers from
trec_eval's own code), trecbench's own and the measures ir_measures computes with other
providers (:mod:`.extended`: the seeds' formula variants, the local measures, numbers equal
to the provider's on a run ranked trecbench's way), and the trec_eval families trecbench
ports (:mod:`.ported`). Keyword parameters follow ir_measures (``rel``,
``judged_only``, ``gains``, ``dcg``, ``p``, ...); ``rel`` left unset means the call's
relevance level (trec_eval's ``-l``, default 1).
"""

from __future__ import annotations

from .params import (
    COEFFICIENT,
    CUTOFF,
    DCG,
    F_BETA,
    GAINS,
    JUDGED_ONLY,
    MULTIPLIER,
    RECALL_LEVEL,
    REL,
    TREC_GAIN,
)
from .registry import (
    FLOAT_CUTOFF,
    FLOAT_CUTOFFS,
    FLOAT_PARAMS,
    GEOMETRIC,
    INT_CUTOFF,
    LOCAL,
    LONG_CUTOFFS,
    LOWER,
    META,
    NUM_Q,
    NUM_REL,
    OWN_JUDGMENTS,
    OWN_JUDGMENTS_WITHOUT_PARAMS,
    PAIRS,
    RECALL,
    RUNID,
    STRING,
    SUM,
    TIES_BOUNDED,
    TIES_BOUNDED_UNLESS_CUT_JUDGED,
    TIES_BOUNDED_UNLESS_CUT_LEVELS,
    TIES_BOUNDED_WITHOUT_PARAMS,
    TIES_FIXED,
    Definition,
    Param,
    define,
    state_facts,
)

# The six KPIs of the TREC 2025 retrieval task.
KPI_PRESET = ("nDCG@10", "MAP@100", "MRR@10", "Recall@50", "Recall@100", "HitRate@10")

NICKNAMES = {
    "official": (
        "runid num_q num_ret num_rel num_rel_ret map gm_map Rprec bpref recip_rank "
        "iprec_at_recall P"
    ).split(),
    "all_trec": (
        "runid num_q num_ret num_rel num_rel_ret map gm_map Rprec bpref recip_rank "
        "iprec_at_recall P relstring recall infAP gm_bpref utility 11pt_avg ndcg relative_P "
        "Rprec_mult success map_cut ndcg_cut ndcg_rel Rndcg binG G set_P set_recall "
        "set_relative_P set_map set_F num_nonrel_judged_ret"
    ).split(),
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

# all_trec of each trec_eval version: 10.0's adds its new families after recall (measures.c)
_BEFORE_10 = NICKNAMES["all_trec"].index("recall") + 1
ALL_TREC = {
    "9.0.8": tuple(NICKNAMES["all_trec"]),
    "10.0": (
        *NICKNAMES["all_trec"][:_BEFORE_10],
        *("unj", "rbp", "rbp_resid"),
        *NICKNAMES["all_trec"][_BEFORE_10:],
    ),
}

STANDARD_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
TREC = ("9.0.8", "10.0")

BUCKLEY_VOORHEES = "Buckley & Voorhees, Retrieval System Evaluation, 2005"
JARVELIN = "Järvelin & Kekäläinen, Cumulated gain-based evaluation of IR techniques, TOIS 2002"
TREC_EVAL_DOC = "trec_eval 9.0.8 (usnistgov/trec_eval), measure documentation"
CLARKE_2008 = "Clarke et al., Novelty and diversity in information retrieval evaluation, SIGIR 2008"
CHAPELLE = "Chapelle et al., Expected reciprocal rank for graded relevance, CIKM 2009"
CLARKE_2009 = "Clarke, Kolla & Vechtomova, An effectiveness measure for ambiguous and "
CLARKE_2009 += "underspecified queries, ICTIR 2009"
MOFFAT_ZOBEL = "Moffat & Zobel, Rank-biased precision for measurement of retrieval "
MOFFAT_ZOBEL += "effectiveness, TOIS 2008"
AZZOPARDI_2021 = "Azzopardi, Mackenzie & Moffat, ERR is not C/W/L, ICTIR 2021"

_CUT_JUDGED = "with -J and -M an order can leave nothing judged in the cut (then it is nan)"
_CUT_LEVELS = "with -M and -l 2 or more, a grade below the level sorts above unjudged"
# What the orders of tied documents do to each family (trecbench.tiebounds' docstring
# proves each case; any family not named is not shown to be bounded) and which families'
# means compare's reports show apart, as recall: facts of the definitions below and in
# .extended and .ported, stated in one table
state_facts(
    {
        **{
            name: {"ties": TIES_BOUNDED}
            for name in (
                "P", "relative_P", "Rprec", "Rprec_mult", "num_rel_ret", "recip_rank", "map",
                "map_cut", "gm_map", "ndcg_cut", "bpref", "gm_bpref", "set_recall", "MRR",
            )
        },
        **{
            name: {"ties": TIES_BOUNDED, "group": RECALL}
            for name in ("recall", "success", "HitRate", "Recall_all")
        },
        **{name: {"ties": TIES_FIXED} for name in ("runid", "num_q", "num_rel")},
        **{
            name: {"ties": TIES_BOUNDED_UNLESS_CUT_JUDGED, "ties_reason": _CUT_JUDGED}
            for name in ("iprec_at_recall", "11pt_avg")
        },
        "num_ret": {
            "ties": TIES_BOUNDED_UNLESS_CUT_JUDGED,
            "ties_reason": "with -J and -M it counts the judged documents in the cut",
        },
        **{
            name: {"ties": TIES_BOUNDED_UNLESS_CUT_LEVELS, "ties_reason": _CUT_LEVELS}
            for name in ("set_P", "set_F", "set_map", "set_relative_P", "num_nonrel_judged_ret")
        },
        "ndcg": {
            "ties": TIES_BOUNDED_WITHOUT_PARAMS,
            "ties_reason": "its gain map need not grow with the grade",
        },
        "MaxOntSim": {"ties_reason": "its value comes from ontology similarity, not from grades"},
        "utility": {"ties_reason": "the signs of its coefficients decide which order is best"},
        "infAP": {"ties_reason": "its estimate of unjudged documents is not monotone in the order"},
    }
)  # fmt: skip
# Families whose every value lies in [0, 1] (fractions of documents, reciprocal ranks,
# averages of precisions, DCG over the ideal DCG of the same grades): a difference of two
# runs' means is at most 1 (power's MDE beyond it is no figure)
state_facts(
    {
        name: {"span": 1.0}
        for name in (
            "P", "Rprec", "recip_rank", "map", "map_cut", "gm_map", "ndcg_cut", "bpref",
            "gm_bpref", "iprec_at_recall", "11pt_avg", "set_P", "set_recall", "set_map",
            "set_F", "recall", "success", "HitRate", "Recall_all", "MRR", "Judged",
            "Rprec_mult", "relative_P", "set_relative_P", "infAP",
            # shares of documents, subtopics, pairs or preferences, and averages of values
            # in [0, 1] over subtopics or judgment groups
            "unj", "Accuracy", "StRecall", "P_IA", "AP_IA", "P_avgjg", "map_avgjg",
            "Rprec_mult_avgjg", "prefs_simp", "prefs_simp_ret", "prefs_simp_imp", "prefs_pair",
            "prefs_pair_ret", "prefs_pair_imp", "prefs_avgjg", "prefs_avgjg_ret",
            "prefs_avgjg_imp", "prefs_avgjg_Rnonrel", "prefs_avgjg_Rnonrel_ret",
            # compatibility: RBO with the ideal ranking over that of the ideal with itself
            "Compat",
            # the best similarity of a retrieved term to a gold one, every formula's clamped
            # to [0, 1] (identical terms 1.0; docs/maxontsim.md)
            "MaxOntSim",
            # ERR@k: a probability of stopping (gdeval's, grades above 4 refused), each
            # rank's share divided by the rank; nERR@k: ERR@k over that of the ideal
            # ranking, which maximises it (a higher stop probability first never lowers
            # it); Q: each relevant rank's (C(r) + beta cg(r)) / (r + beta cg*(r)) with
            # C(r) <= r, cg(r) <= cg*(r), beta >= 0, over R; SDCG@k and RBP: weights
            # summing to at most 1 on gains clipped and scaled to [0, 1] (binary at rel),
            # whatever min_rel, max_rel and p are (p outside (0, 1) is refused). Not so
            # trec_eval 10.0's rbp and rbp_resid: their p outside (0, 1) is computed as
            # trec_eval computes it (rbp.p=1.5 gives -1.0625, rbp_resid.p=1.5 2.4375)
            "ERR", "nERR", "Q", "SDCG", "RBP",
            # cwl_eval's NERR8@k, NERR9@k, NERR10, NERR11, INST, INSQ and BPM@k: sum of
            # W(i) g(i), W(i) the product of C(j) for j < i over the sum of those products
            # (cwl_metrics.w_vector), so the weights are >= 0 and sum to 1 whenever each
            # C(j) >= 0: 1 - g (NERR8), i/(i+1) (1 - g) (NERR9), p (1 - g) with p in
            # (0, 1) (NERR10), squares (INST, INSQ, NERR11: for INST with T < 1/4 above 1,
            # still >= 0), 0 or 1 (BPM); gains are grades clipped at 0 and to [min_rel,
            # max_rel], scaled to [0, 1], unjudged 0. A weighted mean of gains in [0, 1]
            # whatever the grades, T, min_rel and max_rel. Not so for a p below 0, which
            # trecbench refuses and ir_measures does not: NERR10(p=-0.5) gives -1.0
            "NERR8", "NERR9", "NERR10", "NERR11", "INST", "INSQ", "BPM",
        )
    }
    # trec_eval's ndcg with its default gains (the grades); a gain map may hold negative
    # gains, and then nothing bounds it
    | {name: {"span": 1.0, "span_without_params": True} for name in ("ndcg", "ndcg_rel")}
)  # fmt: skip

# Families whose value on a topic reads only the grades of the documents the run retrieved
# (within its cutoff) and never falls as one rises (trecbench.conclusions.unjudged proves
# each): judging one run's unjudged document moves no other run's value, so compare
# --unjudged-bounds can say whether a difference's sign could flip. Any family not named
# reads judgments beyond the run's documents (nDCG's ideal DCG, R of MAP, recall and
# R-precision, bpref's R and N, a gain scale from the qrels' grades) or is not shown not to
state_facts(
    {
        name: {"judgments": OWN_JUDGMENTS}
        for name in (
            "P", "recip_rank", "MRR", "success", "HitRate", "num_rel_ret", "set_P", "num_ret",
        )
    }
    # 10.0's unnormalised DCG: with a gain map a grade may gain less than a lower one
    | {"dcg": {"judgments": OWN_JUDGMENTS_WITHOUT_PARAMS}}
)  # fmt: skip


def default_numbers(fields: dict) -> None:
    """The domain of a family's cutoffs (``@k``, ``P.5,10``) and trec_eval gains, unless
    the family states another."""
    if fields.get("cutoff") == INT_CUTOFF or fields.get("trec_params") == LONG_CUTOFFS:
        fields.setdefault("numbers", CUTOFF)
    elif fields.get("trec_params") == PAIRS:
        fields.setdefault("numbers", TREC_GAIN)


def _trec(name, description, **fields):
    """A trec_eval 9.0.8 family (in trec_eval's printing order: the order of the calls)."""
    fields.setdefault("citation", TREC_EVAL_DOC)
    fields.setdefault("params", (REL, JUDGED_ONLY))
    default_numbers(fields)
    define(Definition(name, description, trec_name=name, trec_eval=TREC, **fields))


# ---------------------------------------------------------------------------------------
# trec_eval 9.0.8, in its printing order (measures.c)

_trec(
    "runid",
    "the run's tag (from its last line)",
    summary=RUNID,
    better=None,
    params=(),
    source=META,
)
_trec(
    "num_q",
    "number of topics evaluated",
    summary=NUM_Q,
    better=None,
    params=(),
    ir_measures="NumQ",
    source=META,
)
_trec(
    "num_ret",
    "number of documents retrieved",
    summary=SUM,
    better=None,
    params=(),
    ir_measures="NumRet",
)
_trec(
    "num_rel",
    "number of relevant documents in the qrels",
    summary=NUM_REL,
    better=None,
    params=(REL,),
    ir_measures="NumRel",
)
_trec(
    "num_rel_ret",
    "number of relevant documents retrieved",
    summary=SUM,
    params=(REL,),
    ir_measures="NumRet",
    ir_measures_when=(("rel", ...),),
    aliases=("NumRelRet",),
)
_trec(
    "map",
    "mean of the precisions at each relevant document retrieved (AP), over all relevant documents",
    ir_measures="AP",
    display="MAP",
    aliases=("mean_ap",),
    citation="Harman, Evaluation issues in information retrieval, IPM 1992",
)
_trec("gm_map", "AP summarised by its geometric mean (floor 1e-5)", summary=GEOMETRIC, params=())
_trec(
    "Rprec",
    "precision after R documents, R = number of relevant documents",
    ir_measures="Rprec",
    aliases=("R-prec",),
    citation=BUCKLEY_VOORHEES,
)
_trec(
    "bpref",
    "how often judged relevant documents come before judged non-relevant ones",
    params=(REL,),
    ir_measures="Bpref",
    aliases=("BPref",),
    citation="Buckley & Voorhees, Retrieval evaluation with incomplete information, SIGIR 2004",
)
_trec(
    "recip_rank",
    "1/rank of the first relevant document (uncut)",
    ir_measures="RR",
    aliases=("mrr",),
    citation="Kantor & Voorhees, The TREC-5 confusion track, IR 2000",
    notes="the seeds' `mrr` (RAG spec): reciprocal rank over the whole ranking",
)
_trec(
    "iprec_at_recall",
    "interpolated precision at a recall level",
    trec_params=FLOAT_CUTOFFS,
    params=(REL, JUDGED_ONLY),
    cutoff=FLOAT_CUTOFF,
    cutoff_required=True,
    numbers=RECALL_LEVEL,
    ir_measures="IPrec",
    trec_defaults=(0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0),
)
_trec(
    "P",
    "relevant documents in the top k, divided by k",
    trec_params=LONG_CUTOFFS,
    trec_defaults=STANDARD_CUTOFFS,
    cutoff=INT_CUTOFF,
    cutoff_required=True,
    ir_measures="P",
    display="P",
    aliases=("Precision",),
    params=(
        REL,
        JUDGED_ONLY,
        Param(
            "denominator",
            str,
            "k",
            "divide by k, or by the documents retrieved in "
            "the top k (the RAG spec's and Phentrieve's |R_k|)",
            ("k", "retrieved"),
            LOCAL,
        ),
    ),
    citation="van Rijsbergen, Information Retrieval, 1979",
    notes="`P(denominator='retrieved')@k` = |R_k ∩ G| / |R_k| (RAG spec §3.6, Phentrieve's "
    "precision_at_k code); it equals P@k whenever a topic retrieves at least k "
    "documents",
)
_trec(
    "relstring",
    "the grades of the top documents as a string",
    trec_params=FLOAT_PARAMS,
    trec_defaults=(10,),  # trec_eval's m_relstring.c, given no cutoff
    summary=STRING,
    better=None,
    params=(),
    numbers=CUTOFF,
    source=LOCAL,
    checked="trec_eval 9.0.8",
)
_trec(
    "recall",
    "relevant documents in the top k, divided by all relevant documents",
    trec_params=LONG_CUTOFFS,
    trec_defaults=STANDARD_CUTOFFS,
    cutoff=INT_CUTOFF,
    cutoff_required=True,
    ir_measures="R",
    display="Recall",
    aliases=("Recall",),
    citation=BUCKLEY_VOORHEES,
)
_trec(
    "infAP",
    "inferred AP: AP estimated from a sample of judgments (-1 = pooled, unjudged)",
    params=(REL,),
    ir_measures="infAP",
    citation="Yilmaz & Aslam, Estimating average precision with incomplete and imperfect "
    "judgments, CIKM 2006",
)
_trec(
    "gm_bpref", "bpref summarised by its geometric mean (floor 1e-5)", summary=GEOMETRIC, params=()
)
# the families of cutoff lists without an @k spelling take no keyword parameters: without
# a cutoff they would name several values alike (names.py refuses them: needs a cutoff)
_trec(
    "Rprec_mult",
    "precision after R x m documents",
    trec_params=FLOAT_CUTOFFS,
    numbers=MULTIPLIER,
    params=(),
    # trec_eval's m_Rprec_mult.c: the multipliers given no list (pytrec_eval computes them)
    trec_defaults=(0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0),
)
_trec(
    "utility",
    "a*rel_ret + b*nonrel_ret + c*rel_nonret + d*nonrel_nonret (set measure)",
    trec_params=FLOAT_PARAMS,
    numbers=COEFFICIENT,
    trec_defaults=(1.0, -1.0, 0.0, 0.0),  # trec_eval's m_utility.c, given no list
)
_trec(
    "11pt_avg",
    "interpolated precision averaged over 11 recall levels",
    trec_params=FLOAT_PARAMS,
    numbers=RECALL_LEVEL,
    trec_defaults=(0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0),
)
_trec("binG", "binary gain measure (Voorhees)")
_trec("G", "gain measure with a gain map", trec_params=PAIRS)
_trec(
    "ndcg",
    "normalised discounted cumulative gain over the whole ranking (gain = grade; 2^grade - 1 "
    "with dcg='exp-log2')",
    trec_params=PAIRS,
    ir_measures="nDCG",
    display="nDCG",
    citation=JARVELIN,
    params=(JUDGED_ONLY, GAINS, DCG),
)
_trec("ndcg_rel", "nDCG averaged over the relevant documents' ranks", trec_params=PAIRS)
_trec("Rndcg", "nDCG at rank R", trec_params=PAIRS)
_trec(
    "ndcg_cut",
    "normalised discounted cumulative gain at k (gain = grade; 2^grade - 1 with dcg='exp-log2')",
    trec_params=LONG_CUTOFFS,
    trec_defaults=STANDARD_CUTOFFS,
    cutoff=INT_CUTOFF,
    cutoff_required=True,
    ir_measures="nDCG",
    display="nDCG",
    citation=JARVELIN,
    params=(JUDGED_ONLY, GAINS, DCG),
    notes="`nDCG(dcg='exp-log2')@k`: (2^rel - 1)/log2(i+1) with the ideal from the qrels "
    "(TREC R-task KPI reference; gdeval's nDCG). The seeds' `ndcg@k` (RAG spec, Phentrieve) "
    "and `ndcg_at_k` (memorybench) are linear-gain nDCG@k",
)
_trec(
    "map_cut",
    "AP over the top k, divided by all relevant documents",
    trec_params=LONG_CUTOFFS,
    trec_defaults=STANDARD_CUTOFFS,
    cutoff=INT_CUTOFF,
    cutoff_required=True,
    ir_measures="AP",
    display="MAP",
    params=(
        REL,
        JUDGED_ONLY,
        Param(
            "normalize",
            str,
            "rel",
            "divide by all relevant documents (rel) or by "
            "min(relevant, k) (min: R-task reference, Phentrieve)",
            ("rel", "min"),
            LOCAL,
        ),
    ),
    notes="`AP(normalize='min')@k` divides by min(|Rel|, k) (TREC R-task KPI reference, "
    "Phentrieve's average_precision_at_k); the seeds' `map@k` (RAG spec) divides by |Rel| "
    "like trec_eval",
)
_trec(
    "relative_P",
    "P@k divided by the best P@k possible",
    trec_params=LONG_CUTOFFS,
    trec_defaults=STANDARD_CUTOFFS,
    params=(),  # as Rprec_mult's
)
_trec(
    "success",
    "1 if a relevant document is in the top k",
    trec_params=LONG_CUTOFFS,
    trec_defaults=(1, 5, 10),
    params=(),  # as Rprec_mult's; with a cutoff its keyword parameters are HitRate's
)


def _relative(value: bool) -> tuple[Param, ...]:
    """The parameters of set_P (``value`` False) and set_relative_P (True): ir_measures'
    SetP takes ``relative``, each value of which is one of the two families."""
    other = "set_relative_P" if not value else "set_P"
    doc = f"ir_measures' SetP relative: {value} here ({not value} is {other})"
    return (REL, JUDGED_ONLY, Param("relative", bool, value, doc, (value,)))


_trec("set_P", "precision of the whole retrieved set", ir_measures="SetP", params=_relative(False))
_trec(
    "set_relative_P",
    "set precision divided by the best possible",
    ir_measures="SetP",
    ir_measures_when=(("relative", True),),
    aliases=("SetRelP",),
    params=_relative(True),
)
_trec("set_recall", "recall of the whole retrieved set", ir_measures="SetR")
_trec("set_map", "set precision x set recall", ir_measures="SetAP")
_trec(
    "set_F",
    "F-measure of the retrieved set (beta from the parameter, default 1)",
    trec_params=FLOAT_PARAMS,
    numbers=F_BETA,
    params=(REL, JUDGED_ONLY, Param("beta", float, 1.0, "weight of recall", domain=F_BETA)),
    ir_measures="SetF",
)
_trec(
    "num_nonrel_judged_ret",
    "number of judged non-relevant documents retrieved",
    summary=SUM,
    better=LOWER,
    params=(),
    counts_nonrelevant=True,
)
