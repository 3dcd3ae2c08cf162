"""The measures' shared parameters and the domains of their numbers, each stated once.

A :class:`~.registry.Domain` says where a number has a meaning and why; the catalog hands
them to its definitions (a :class:`~.registry.Param`'s ``domain``, a definition's
``numbers`` for its cutoff and its trec_eval parameter list). Values outside are refused in
ir_measures and display spellings and warned about in trec_eval's, whose numbers trecbench
prints as trec_eval does (docs/cli-conventions.md, "Parameter domains").
"""

from __future__ import annotations

import math

from .registry import INT_MAX, INT_MIN, LONG_MAX, Domain, Param

# ---------------------------------------------------------------------------------------
# domains

CUTOFF = Domain(1, LONG_MAX, what="the cutoff", reason="a rank; trec_eval reads it as a C long")
DIVERSITY_CUTOFF = Domain(
    1, 20, what="the cutoff", reason="a rank; ndeval evaluates the top 20 ranks at most"
)
# ir_measures' cwl_eval provider ranks with RankingMaker(..., max_n=1000), cwl_eval's
# default: each topic's ranking cut (or padded with gainless documents) to 1000 ranks
CWL_HORIZON = 1000
CWL_CUTOFF = Domain(
    1,
    CWL_HORIZON,
    what="the cutoff",
    reason=f"a rank; cwl_eval evaluates the top {CWL_HORIZON} ranks at most",
)
RECALL_LEVEL = Domain(0, 1, what="the recall level", reason="a fraction of the relevant documents")
MULTIPLIER = Domain(
    0, math.inf, low_open=True, what="the multiplier", reason="precision after R x m documents"
)
COEFFICIENT = Domain(what="a coefficient", reason="the weight of a count")
TREC_GAIN = Domain(what="a gain", reason="trec_eval reads gains with atof")
GAIN = Domain(
    INT_MIN,
    INT_MAX,
    integer=True,
    what="a gain",
    reason="ir_measures maps grades to integer gains; pytrec_eval holds them as C ints",
)
REL_LEVEL = Domain(
    1,
    INT_MAX,
    reason="the smallest grade counted relevant: pytrec_eval refuses levels below 1, as -l; "
    "grades are C ints",
)
GRADE = Domain(INT_MIN, INT_MAX, reason="a grade, a C int")
LARGEST_GRADE = Domain(
    1, INT_MAX, reason="gains are grade / max_rel: 0 would divide by zero, below 0 flip them"
)
PERSISTENCE = Domain(
    0,
    1,
    low_open=True,
    high_open=True,
    what="p",
    reason="persistence, a probability of reading on: at 1 the weight 1 - p is 0, at 0 only "
    "the first document counts, outside [0, 1] no weight is a probability",
)
PATIENCE = Domain(
    0,
    1,
    high_open=True,
    reason="patience, a probability of reading on; at 1 the normalisation 1 - (1 - alpha) "
    "beta is 0 for alpha 0",
)
REDUNDANCY = Domain(
    0, 1, reason="the probability that a judge's subtopic label is wrong: discounts (1 - alpha)^k"
)
Q_BETA = Domain(
    0,
    1e9,
    reason="the weight of the graded part: below 0 the denominator r + beta cg*(r) can reach 0; "
    "beyond 1e9 the measure no longer changes and beta cg(r) overflows",
)
GAIN_GOAL = Domain(
    1e-9,
    1e9,
    reason="the gain the user wants: T <= 0 divides by zero, below 1e-9 cwl_eval's doubles "
    "do, beyond 1e9 the measure no longer changes",
)
F_BETA = Domain(
    0,
    math.inf,
    low_open=True,
    what="beta",
    reason="the weight of recall against precision: F with beta 0 is set_P, and F squares "
    "beta, so a negative one would mean its opposite",
)

# ---------------------------------------------------------------------------------------
# parameters several families share

REL = Param(
    "rel", int, None, "minimum grade counted as relevant (default: the call's -l)", domain=REL_LEVEL
)
JUDGED_ONLY = Param(
    "judged_only", bool, False, "drop retrieved documents without a judgment", unset_by="-J"
)
GAINS = Param(
    "gains", dict, None, "gain of each grade, e.g. {1:1,2:3} (others: the grade)", domain=GAIN
)
MAX_REL = Param(
    "max_rel", int, None, "largest grade (default: the largest in the qrels)", domain=LARGEST_GRADE
)
MIN_REL = Param(
    "min_rel",
    int,
    0,
    "smallest grade (gains scaled from min_rel to max_rel)",
    domain=GRADE,
    below="max_rel",
)
T_GOAL = Param("T", float, 1.0, "total gain the user wants", domain=GAIN_GOAL)
ALPHA = Param("alpha", float, 0.5, "redundancy intolerance", domain=REDUNDANCY)
BETA_NRBP = Param("beta", float, 0.5, "patience", domain=PATIENCE)
DCG = Param(
    "dcg",
    str,
    "log2",
    "gain: the grade (log2) or 2^grade - 1 (exp-log2)",
    ("log2", "exp-log2"),
    "gdeval",
)


def persistence(default: float) -> Param:
    """``p``, the persistence of RBP-like measures (its default differs by measure)."""
    return Param("p", float, default, "persistence", domain=PERSISTENCE)
