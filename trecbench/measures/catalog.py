"""Every measure trecbench knows, described once (data only; see :mod:`.registry`).

Three groups: trec_eval 9.0.8's families (in its printing order, numbers from trec_eval's
own code), the measures ir_measures computes with other providers (numbers equal to that
provider's on a run ranked trecbench's way), and trecbench's own (the seeds' formula
variants and the local measures). Keyword parameters follow ir_measures (``rel``,
``judged_only``, ``gains``, ``dcg``, ``p``, ...); ``rel`` left unset means the call's
relevance level (trec_eval's ``-l``, default 1).
"""

from __future__ import annotations

from .params import (
    ALPHA,
    BETA_NRBP,
    COEFFICIENT,
    CUTOFF,
    DCG,
    DIVERSITY_CUTOFF,
    F_BETA,
    GAINS,
    JUDGED_ONLY,
    MAX_REL,
    MIN_REL,
    MULTIPLIER,
    Q_BETA,
    RECALL_LEVEL,
    REL,
    REL_LEVEL,
    T_GOAL,
    TREC_GAIN,
    persistence,
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
    PAIRS,
    RUNID,
    STRING,
    SUM,
    Definition,
    Param,
    define,
    trec_order,
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


def _numbers(fields: dict) -> None:
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
    _numbers(fields)
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
_trec(
    "Rprec_mult", "precision after R x m documents", trec_params=FLOAT_CUTOFFS, numbers=MULTIPLIER
)
_trec(
    "utility",
    "a*rel_ret + b*nonrel_ret + c*rel_nonret + d*nonrel_nonret (set measure)",
    trec_params=FLOAT_PARAMS,
    numbers=COEFFICIENT,
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
    "normalised discounted cumulative gain over the whole ranking (gain = grade)",
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
    "normalised discounted cumulative gain at k (gain = grade)",
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
)
_trec(
    "success",
    "1 if a relevant document is in the top k",
    trec_params=LONG_CUTOFFS,
    trec_defaults=(1, 5, 10),
)
_trec("set_P", "precision of the whole retrieved set", ir_measures="SetP")
_trec(
    "set_relative_P",
    "set precision divided by the best possible",
    ir_measures="SetP",
    ir_measures_when=(("relative", True),),
    aliases=("SetRelP",),
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
)


# ---------------------------------------------------------------------------------------
# trecbench's local measures (HitRate/MRR/Recall_all are trec_eval measures in disguise)


def _local(name, description, **fields):
    fields.setdefault("cutoff", INT_CUTOFF)
    fields.setdefault("cutoff_required", True)
    fields.setdefault("source", LOCAL)
    fields.setdefault("params", (REL,))
    fields.setdefault("display", name)
    _numbers(fields)
    define(Definition(name, description, **fields))


_local(
    "HitRate",
    "1 if a relevant document is among the top k (trec_eval's success.k)",
    label="success",
    ir_measures="Success",
    aliases=("hit", "hit_rate", "hr"),
    notes="the seeds' `hit@k` (RAG spec) and HR@K (Phentrieve); equals success.k",
    checked="trec_eval 9.0.8 (success.k)",
)
_local(
    "MRR",
    "1/rank of the first relevant document within the top k of the ranking evaluated "
    "(recip_rank with -M k; under -J the top k judged documents)",
    label="recip_rank_cut",
    ir_measures="RR",
    notes="trec_eval's recip_rank on the run cut at k (-M k); under -J, like P@k and "
    "nDCG@k, the judged documents cut at k (trec_eval's -M k -J cuts first: docs/"
    "trec-eval.md); ir_measures' RR@k comes from the msmarco provider, which breaks ties "
    "the other way",
    checked="trec_eval 9.0.8 (recip_rank with -M k; with -J on the judged documents)",
)
_local(
    "Recall_all",
    "1 when every relevant document is among the top k (0 without any)",
    label="recall_all",
    checked="trec_eval 9.0.8 (recall.k = 1)",
)
_local(
    "MaxOntSim",
    "max ontology similarity between a gold HPO term and the top-k retrieved "
    "terms (Phentrieve's MaxOntSim; formula from --maxontsim-formula)",
    label="maxontsim",
    aliases=("max_ont_sim", "max_ont_similarity"),
    citation="Phentrieve (single-term HPO retrieval benchmark)",
    notes="docs/maxontsim.md",
    checked="Phentrieve's pair similarity code, transcribed",
)
_local(
    "Q",
    "Sakai's Q-measure over the whole ranking: (1/R) sum over relevant ranks r of "
    "(C(r) + beta*cg(r)) / (r + beta*cg*(r)), gain = grade",
    cutoff=None,
    cutoff_required=False,
    params=(REL, Param("beta", float, 1.0, "weight of the graded part (0: AP)", domain=Q_BETA)),
    aliases=("q_measure", "Q-measure"),
    citation="Sakai, New performance metrics based on multigrade relevance, NTCIR-4 2004",
    notes="RAG spec §10.1 (future enhancements); C(r) relevant documents in the top r, "
    "cg(r) their cumulative gain, cg*(r) the ideal cumulative gain (qrels grades, best "
    "first); beta=0 gives AP",
    checked="the issue's formula written out; beta=0: trec_eval's AP",
)


# ---------------------------------------------------------------------------------------
# ir_measures' measures that trec_eval 9.0.8 lacks (numbers equal to their provider's)


def _irm(name, description, source, **fields):
    fields.setdefault("ir_measures", name)
    _numbers(fields)
    define(Definition(name, description, source=source, **fields))


_irm(
    "Judged",
    "fraction of the top k (or all) retrieved documents that have a judgment",
    "judged",
    cutoff=INT_CUTOFF,
    params=(),
    better=None,
    notes="diagnostic of judgment coverage (no better direction); ir_measures' judged provider",
)
_irm(
    "ERR",
    "expected reciprocal rank at k: cascade model, stop probability (2^grade - 1)/2^4",
    "gdeval",
    cutoff=INT_CUTOFF,
    cutoff_required=True,
    citation=CHAPELLE,
    notes="gdeval.pl's definition (grades above 4 are refused, as gdeval does)",
)
_irm(
    "nERR",
    "ERR@k divided by the ERR@k of the ideal ranking (qrels grades, best first)",
    "gdeval",
    cutoff=INT_CUTOFF,
    cutoff_required=True,
    ir_measures=None,
    citation=CHAPELLE,
    notes="gdeval's ERR of the run over gdeval's ERR of the ideal ranking",
)
_irm(
    "RBP",
    "rank-biased precision: (1-p) sum p^(i-1) gain_i over the whole ranking",
    "cwl_eval",
    params=(
        persistence(0.8),
        Param(
            "rel",
            int,
            None,
            "binary gain: grade >= rel; unset: graded gain grade/max_rel",
            domain=REL_LEVEL,
        ),
        MAX_REL,
    ),
    citation=MOFFAT_ZOBEL,
    notes="cwl_eval's RBP; without rel the gain is the grade scaled to [0, 1] by max_rel "
    "(the scaling ir_measures applies to cwl_eval's graded measures)",
)
_irm(
    "INST",
    "INST: adaptive user model with a gain goal T",
    "cwl_eval",
    params=(T_GOAL, MIN_REL, MAX_REL),
    citation="Bailey, Moffat, Scholer & Thomas, User variability and IR evaluation, SIGIR 2015",
)
_irm(
    "INSQ",
    "INSQ: conditional continuation with a gain goal T",
    "cwl_eval",
    params=(T_GOAL, MIN_REL, MAX_REL),
    citation="Moffat, Scholer & Thomas, Models and metrics, ADCS 2012",
)
_irm(
    "SDCG",
    "scaled DCG at k: nDCG assuming k fully relevant documents exist",
    "cwl_eval",
    cutoff=INT_CUTOFF,
    cutoff_required=True,
    params=(MIN_REL, MAX_REL),
    citation=JARVELIN,
)
for _eq in (8, 9):
    _irm(
        f"NERR{_eq}",
        f"not (but nearly) ERR, equation {_eq}, truncated at k",
        "cwl_eval",
        cutoff=INT_CUTOFF,
        cutoff_required=True,
        params=(MIN_REL, MAX_REL),
        citation=AZZOPARDI_2021,
    )
_irm(
    "NERR10",
    "not (but nearly) ERR, equation 10 (RBP patience p)",
    "cwl_eval",
    params=(persistence(0.9), MIN_REL, MAX_REL),
    citation=AZZOPARDI_2021,
)
_irm(
    "NERR11",
    "not (but nearly) ERR, equation 11 (INST goal T)",
    "cwl_eval",
    params=(T_GOAL, MIN_REL, MAX_REL),
    citation=AZZOPARDI_2021,
)
_irm(
    "BPM",
    "Bejeweled player model at k",
    "cwl_eval",
    cutoff=INT_CUTOFF,
    cutoff_required=True,
    params=(T_GOAL, MIN_REL, MAX_REL),
    citation="Zhang et al., Evaluating web search with a Bejeweled player model, SIGIR 2017",
)
_irm(
    "Compat",
    "rank-biased overlap of the ranking with an ideal ranking",
    "compat",
    params=(
        persistence(0.95),
        Param("normalize", bool, True, "normalise for finite ideal rankings"),
    ),
    citation="Clarke, Vtyurina & Smucker, Assessing top-k preferences, TOIS 2021",
)
_irm(
    "Accuracy",
    "probability that a relevant document is ranked before a non-relevant one "
    "(topics without a relevant document retrieved score 0)",
    "accuracy",
    cutoff=INT_CUTOFF,
    params=(REL,),
)

# diversity: qrels with a subtopic in the second column (ndeval's format)
_DIV = {"diversity": True}
_CUT = {"cutoff": INT_CUTOFF, "cutoff_required": True, "numbers": DIVERSITY_CUTOFF}
_irm(
    "alpha_DCG",
    "alpha-DCG at k: DCG with gains discounted by subtopic redundancy",
    "pyndeval",
    params=(REL, ALPHA, JUDGED_ONLY),
    citation=CLARKE_2008,
    aliases=("α_DCG",),
    **_CUT,
    **_DIV,
)
_irm(
    "alpha_nDCG",
    "alpha-nDCG at k: alpha-DCG over its greedy ideal",
    "pyndeval",
    params=(REL, ALPHA, JUDGED_ONLY),
    citation=CLARKE_2008,
    aliases=("α_nDCG",),
    **_CUT,
    **_DIV,
)
_irm(
    "ERR_IA",
    "intent-aware ERR at k (mean over subtopics)",
    "pyndeval",
    params=(REL, JUDGED_ONLY),
    citation=CHAPELLE,
    **_CUT,
    **_DIV,
)
_irm(
    "nERR_IA",
    "intent-aware ERR at k, normalised by its ideal",
    "pyndeval",
    params=(REL, JUDGED_ONLY),
    citation=CHAPELLE,
    **_CUT,
    **_DIV,
)
_irm(
    "NRBP",
    "novelty- and rank-biased precision",
    "pyndeval",
    params=(REL, ALPHA, BETA_NRBP),
    citation=CLARKE_2009,
    **_DIV,
)
_irm(
    "nNRBP",
    "NRBP normalised by its ideal",
    "pyndeval",
    params=(REL, ALPHA, BETA_NRBP),
    citation=CLARKE_2009,
    **_DIV,
)
_irm(
    "AP_IA",
    "intent-aware AP (mean over subtopics)",
    "pyndeval",
    params=(REL, JUDGED_ONLY),
    aliases=("MAP_IA",),
    **_DIV,
)
_irm(
    "P_IA",
    "intent-aware precision at k (mean over subtopics)",
    "pyndeval",
    params=(REL, JUDGED_ONLY),
    **_CUT,
    **_DIV,
)
_irm(
    "StRecall",
    "subtopic recall at k: fraction of the subtopics covered in the top k",
    "pyndeval",
    params=(REL,),
    citation="Zhai, Cohen & Lafferty, Beyond independent relevance, SIGIR 2003",
    **_CUT,
    **_DIV,
)


# ---------------------------------------------------------------------------------------
# trec_eval's families pytrec_eval does not compute: trecbench's ports of trec_eval
# (trecbench.trec_eval; engine "native"), in trec_eval's printing order. Defined last so
# that ir_measures' RBP keeps the spelling "rbp" outside trec_eval 10.0's -m syntax.

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
    _numbers(fields)
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
    _ported(_name, _what, notes=PREFS, **_fields)
_ported("map_avgjg", "AP of each judgment group, averaged over the groups", notes=JG)
_ported(
    "P_avgjg",
    "P@k of each judgment group, averaged over the groups",
    trec_params=LONG_CUTOFFS,
    trec_defaults=STANDARD_CUTOFFS,
    notes=JG,
)
_ported(
    "Rprec_mult_avgjg",
    "precision after R x m documents of each judgment group, averaged",
    trec_params=FLOAT_CUTOFFS,
    trec_defaults=(0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0),
    numbers=MULTIPLIER,
    notes=JG,
)
_ported(
    "yaap",
    "yet another average precision: log((1 + s) / (1 + R - s)), s the sum of precisions",
    citation="Robertson, On smoothing average precision, ECIR 2012",
)
_ported(
    "rbp",
    "rank-biased precision (10.0): (1 - p) sum gain p^(i-1), gains rescaled to [0, 1]",
    trec_params=PAIRS,
    params=(persistence(0.9),),
    trec_eval=V10,
    citation=MOFFAT_ZOBEL,
    notes="trec_eval 10.0's rbp (p=0.9; rbp.p=0.8,1=3); ir_measures' RBP is cwl_eval's",
)
_ported(
    "rbp_resid",
    "rbp's residual: what unjudged documents could still add (10.0)",
    trec_params=PAIRS,
    params=(persistence(0.9),),
    trec_eval=V10,
    citation=MOFFAT_ZOBEL,
)
_ported(
    "unj",
    "fraction of the top k that is unjudged (10.0)",
    trec_params=LONG_CUTOFFS,
    trec_defaults=(5, 10, 20),
    trec_eval=V10,
    better=LOWER,
)
NICKNAMES["all_prefs"] = (
    "runid num_q prefs_num_prefs_poss prefs_num_prefs_ful prefs_num_prefs_ful_ret "
    "prefs_simp prefs_pair prefs_avgjg prefs_avgjg_Rnonrel prefs_simp_ret prefs_pair_ret "
    "prefs_avgjg_ret prefs_avgjg_Rnonrel_ret prefs_simp_imp prefs_pair_imp prefs_avgjg_imp"
).split()
NICKNAMES["prefs"] = (
    "runid num_q prefs_num_prefs_poss prefs_num_prefs_ful prefs_num_prefs_ful_ret "
    "prefs_simp prefs_pair prefs_avgjg"
).split()
NICKNAMES["qrels_jg"] = "runid num_q map_avgjg P_avgjg Rprec_mult_avgjg".split()
