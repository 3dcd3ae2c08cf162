"""The measures beyond trec_eval 9.0.8's own families, described once (data only):
trecbench's local measures and those ir_measures computes with other providers (numbers
equal to that provider's on a run ranked trecbench's way). See :mod:`.catalog`.
"""

from __future__ import annotations

from .catalog import (
    AZZOPARDI_2021,
    CHAPELLE,
    CLARKE_2008,
    CLARKE_2009,
    JARVELIN,
    MOFFAT_ZOBEL,
    default_numbers,
)
from .params import (
    ALPHA,
    BETA_NRBP,
    CWL_CUTOFF,
    CWL_HORIZON,
    DIVERSITY_CUTOFF,
    JUDGED_ONLY,
    MAX_REL,
    MIN_REL,
    Q_BETA,
    REL,
    REL_LEVEL,
    T_GOAL,
    persistence,
)
from .registry import INT_CUTOFF, LOCAL, Definition, Param, define

# ---------------------------------------------------------------------------------------
# trecbench's local measures (HitRate/MRR/Recall_all are trec_eval measures in disguise)


def _local(name, description, **fields):
    fields.setdefault("cutoff", INT_CUTOFF)
    fields.setdefault("cutoff_required", True)
    fields.setdefault("source", LOCAL)
    fields.setdefault("params", (REL,))
    fields.setdefault("display", name)
    default_numbers(fields)
    define(Definition(name, description, **fields))


_local(
    "HitRate",
    "1 if a relevant document is among the top k (trec_eval's success.k)",
    label="success",
    ir_measures="Success",
    aliases=("hit", "hit_rate", "hr"),
    params=(REL, JUDGED_ONLY),
    notes="the seeds' `hit@k` (RAG spec) and HR@K (Phentrieve); equals success.k, and "
    "with judged_only=True success.k under -J (ir_measures' Success(judged_only=True)@k)",
    checked="trec_eval 9.0.8 (success.k)",
)
_local(
    "MRR",
    "1/rank of the first relevant document within the top k of the ranking evaluated "
    "(recip_rank with -M k; under -J the top k judged documents)",
    label="recip_rank_cut",
    ir_measures="RR",
    # recip_rank@10, as map@10 is map_cut's and ndcg@10 ndcg_cut's (recip_rank is RR)
    aliases=("recip_rank",),
    params=(REL, JUDGED_ONLY),  # as RR (recip_rank) and ir_measures' RR(judged_only=True)@k
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
    default_numbers(fields)
    define(Definition(name, description, source=source, **fields))


_irm(
    "Judged",
    "fraction of the top k (or all) retrieved documents with a qrels line, at any grade "
    "(a negative one too)",
    "judged",
    cutoff=INT_CUTOFF,
    params=(),
    better=None,
    notes="diagnostic of judgment coverage (no better direction); ir_measures' judged "
    "provider, which counts a document judged at a negative grade as judged, where "
    "trec_eval reads it as in the pool, unjudged: so do --unjudged-bounds, validate's X4, "
    "10.0's unj and the warning of a run scored against qrels not its own",
)
_irm(
    "ERR",
    "expected reciprocal rank at k: cascade model, stop probability (2^grade - 1)/2^4",
    "gdeval",
    cutoff=INT_CUTOFF,
    cutoff_required=True,
    citation=CHAPELLE,
    notes="gdeval.pl's definition (grades above 4 are refused at their qrels line, as "
    "gdeval refuses them)",
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
# RBP is ir_measures' measure, but its number is the published formula's, not its
# provider's (the notes say where and by how much they differ)
_irm(
    "RBP",
    "rank-biased precision: (1-p) sum p^(i-1) gain_i over the whole ranking",
    LOCAL,
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
    notes="Moffat & Zobel's formula, every rank counted. ir_measures' RBP (cwl_eval) "
    f"differs: it reads the top {CWL_HORIZON} ranks and divides by 1 - p^{CWL_HORIZON} "
    "(its weights summing to 1 over them), so it is this RBP of the ranking cut at "
    f"{CWL_HORIZON} over 1 - p^{CWL_HORIZON}: higher by p^{CWL_HORIZON}/(1 - "
    f"p^{CWL_HORIZON}), below 1e-12 for p <= 0.97, 4.3e-5 at p=0.99, 58% at p=0.999 (0.001 "
    "where ir_measures gives 0.0015815 for one relevant document at rank 1). Without rel "
    "the gain is the grade scaled to [0, 1] by max_rel (the scaling ir_measures applies to "
    "cwl_eval's graded measures)",
    checked=f"cwl_eval (ir_measures' provider) on the top {CWL_HORIZON} ranks, times "
    f"1 - p^{CWL_HORIZON}",
)


def _cwl(name, description, note="", **fields):
    """A measure cwl_eval computes: its cutoff, when it has one, within cwl_eval's
    horizon, and the horizon stated in its notes (docs/measures.md shows them)."""
    if fields.get("cutoff") == INT_CUTOFF:
        fields.setdefault("numbers", CWL_CUTOFF)
    horizon = (
        f"cwl_eval reads each topic's top {CWL_HORIZON} ranks (ir_measures' max_n): its "
        f"weights are normalised over them and a document past rank {CWL_HORIZON} counts "
        "nothing"
    )
    _irm(name, description, "cwl_eval", notes=f"{note}{horizon}", **fields)


_cwl(
    "INST",
    "INST: adaptive user model with a gain goal T",
    params=(T_GOAL, MIN_REL, MAX_REL),
    citation="Bailey, Moffat, Scholer & Thomas, User variability and IR evaluation, SIGIR 2015",
)
_cwl(
    "INSQ",
    "INSQ: conditional continuation with a gain goal T",
    params=(T_GOAL, MIN_REL, MAX_REL),
    citation="Moffat, Scholer & Thomas, Models and metrics, ADCS 2012",
)
_cwl(
    "SDCG",
    "scaled DCG at k: nDCG assuming k fully relevant documents exist",
    cutoff=INT_CUTOFF,
    cutoff_required=True,
    params=(
        MIN_REL,
        MAX_REL,
        # ir_measures names dcg for SDCG, but its one provider, cwl_eval, has log2 alone
        Param("dcg", str, "log2", "DCG formulation: log2 only (cwl_eval's SDCG)", ("log2",)),
    ),
    citation=JARVELIN,
)
for _eq in (8, 9):
    _cwl(
        f"NERR{_eq}",
        f"not (but nearly) ERR, equation {_eq}, truncated at k",
        cutoff=INT_CUTOFF,
        cutoff_required=True,
        params=(MIN_REL, MAX_REL),
        citation=AZZOPARDI_2021,
    )
_cwl(
    "NERR10",
    "not (but nearly) ERR, equation 10 (RBP patience p)",
    note="Like ir_measures' RBP and unlike trecbench's (see RBP), its ranks weighted by p "
    "stop at cwl_eval's horizon: ",
    params=(persistence(0.9), MIN_REL, MAX_REL),
    citation=AZZOPARDI_2021,
)
_cwl(
    "NERR11",
    "not (but nearly) ERR, equation 11 (INST goal T)",
    params=(T_GOAL, MIN_REL, MAX_REL),
    citation=AZZOPARDI_2021,
)
_cwl(
    "BPM",
    "Bejeweled player model at k",
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

# diversity: pyndeval's measures, on qrels with a subtopic in the second column (ndeval's
# format); "at k" ones take a required cutoff. No judged_only, which ir_measures names for
# some of them: its pyndeval provider fails on it ('generator' object is not
# subscriptable) but at its default, False, which changes nothing
_AT_K = {"cutoff": INT_CUTOFF, "cutoff_required": True, "numbers": DIVERSITY_CUTOFF}
_JUDGED_ONLY_UNSET = {"ir_measures_unset": (("judged_only", False),)}
_ALPHA = (REL, ALPHA)
_NRBP = (REL, ALPHA, BETA_NRBP)
_IA = (REL,)
for _name, _what, _params, _fields in (
    (
        "alpha_DCG",
        "alpha-DCG at k: DCG with gains discounted by subtopic redundancy",
        _ALPHA,
        {"citation": CLARKE_2008, "aliases": ("α_DCG",), **_AT_K, **_JUDGED_ONLY_UNSET},
    ),
    (
        "alpha_nDCG",
        "alpha-nDCG at k: alpha-DCG over its greedy ideal",
        _ALPHA,
        {"citation": CLARKE_2008, "aliases": ("α_nDCG",), **_AT_K, **_JUDGED_ONLY_UNSET},
    ),
    (
        "ERR_IA",
        "intent-aware ERR at k (mean over subtopics)",
        _IA,
        {"citation": CHAPELLE, **_AT_K, **_JUDGED_ONLY_UNSET},
    ),
    (
        "nERR_IA",
        "intent-aware ERR at k, normalised by its ideal",
        _IA,
        {"citation": CHAPELLE, **_AT_K, **_JUDGED_ONLY_UNSET},
    ),
    ("NRBP", "novelty- and rank-biased precision", _NRBP, {"citation": CLARKE_2009}),
    ("nNRBP", "NRBP normalised by its ideal", _NRBP, {"citation": CLARKE_2009}),
    (
        "AP_IA",
        "intent-aware AP (mean over subtopics)",
        _IA,
        {"aliases": ("MAP_IA",), **_JUDGED_ONLY_UNSET},
    ),
    (
        "P_IA",
        "intent-aware precision at k (mean over subtopics)",
        _IA,
        {**_AT_K, **_JUDGED_ONLY_UNSET},
    ),  # fmt: skip
    (
        "StRecall",
        "subtopic recall at k: fraction of the subtopics covered in the top k",
        (REL,),
        {"citation": "Zhai, Cohen & Lafferty, Beyond independent relevance, SIGIR 2003", **_AT_K},
    ),
):
    _irm(_name, _what, "pyndeval", params=_params, diversity=True, **_fields)
