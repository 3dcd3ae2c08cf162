"""MaxOntSim@k: ontology-aware partial credit for HPO term retrieval (Phentrieve's measure).

Definitions follow ``docs/maxontsim.md``. With δ(t) the shortest is_a distance from the
root, A(t) the ancestors of t including t, D = max δ over the active terms T and
L(e, r) = max δ over A(e) ∩ A(r), the pair similarity is

* 1 if e == r (even for an unknown id); 0 if e ≠ r and e or r is not in T;
* ``simple_resnik_like`` (aliases ``simple``, ``simple_resnik``): clamp₀¹(L / D);
* ``hybrid`` (default; alias ``complex``), Phentrieve's formula **with its quirk**:
  p = δ(e) + δ(r) − 2L; if p ≤ 0 then 1.0, else
  clamp₀¹(0.7·(L / D) + 0.3·(1 − p / (δ(e) + δ(r)))).
  Because δ is a shortest path in a DAG, a common ancestor can be deeper than a term's
  own δ, so *different* terms can get p ≤ 0 and hence 1.0;
* ``hybrid_strict`` (trecbench's corrected variant): ``hybrid`` with p floored at 1 for
  distinct terms — the smallest is_a distance two different terms can have. Depths are
  integers, so it changes exactly the pairs where ``hybrid`` has p ≤ 0, and only e == r
  reaches 1.0 (0.7·L/D ≤ 0.7 and 0.3·(1 − 1/(δe+δr)) < 0.3).

Per query, with E the gold ids (rel ≥ relevance level) and R_k the first k retrieved ids
in trec_eval order: MaxOntSim@k = 0 if E or R_k is empty, else max sim(e, r) over
E × R_k (1 as soon as E ∩ R_k ≠ ∅). Non-decreasing in k.

Everything is computed on integer depths in the float64 expression order of Phentrieve's
code (tests compare against a per-pair transcription of it, bit for bit; no per-case
Phentrieve output was available to compare with), and ancestor sets are intersected for
all pairs at once with numpy (no per-pair Python).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..errors import UsageError
from ..escaping import id_list
from ..maxontsim_formulas import DEFAULT_FORMULA, resolve_formula
from ..ontology import Ontology, load_ontology
from . import local
from .interface import Settings

if TYPE_CHECKING:
    from os import PathLike

    import pandas as pd


def _gather(ptr: np.ndarray, values: np.ndarray, rows: np.ndarray):
    """Concatenate CSR rows ``rows`` of (ptr, values); also return each item's row position."""
    starts = ptr[rows]
    lengths = ptr[rows + 1] - starts
    owner = np.repeat(np.arange(len(rows)), lengths)
    first = np.cumsum(lengths) - lengths
    offsets = np.arange(int(lengths.sum())) - first[owner] + starts[owner]
    return values[offsets], owner


def lca_depths(ontology: Ontology, e_idx: np.ndarray, r_idx: np.ndarray) -> np.ndarray:
    """L(e, r) for index pairs of active terms: depth of the deepest common ancestor.

    Each pair's ancestor sets become sorted integer keys ``pair·n + ancestor``; a binary
    search finds the keys both sides share, and a grouped max gives L. The root is an
    ancestor of every term of T, so every pair has at least one common ancestor.
    """
    n = len(ontology)
    e_anc, e_owner = _gather(ontology.anc_ptr, ontology.anc_idx, e_idx)
    r_anc, r_owner = _gather(ontology.anc_ptr, ontology.anc_idx, r_idx)
    e_keys = e_owner * n + e_anc
    r_keys = r_owner * n + r_anc  # sorted: owners ascend, ancestors sorted within a term
    pos = np.searchsorted(r_keys, e_keys)
    pos[pos == len(r_keys)] = 0
    common = r_keys[pos] == e_keys
    out = np.zeros(len(e_idx), np.int64)
    np.maximum.at(out, e_owner[common], ontology.depths[e_anc[common]])
    return out


def pair_similarities(
    expected,
    retrieved,
    formula: str = DEFAULT_FORMULA,
    ontology: Ontology | str | PathLike | None = None,
) -> np.ndarray:
    """sim(e, r) for aligned arrays of HPO ids (vectorised; see the module docstring).

    ``formula`` is a formula's name or alias; ``ontology`` an :class:`Ontology`, an
    ``hp.obo`` / ``hp.json`` path (as ``--ontology`` takes it) or None (hpo3's release).
    """
    formula = resolve_formula(formula)
    # a path, as --ontology and options={"ontology": ...} take it, loaded (and cached)
    ontology = ontology if isinstance(ontology, Ontology) else load_ontology(ontology)
    expected = np.asarray(expected, dtype=object)
    retrieved = np.asarray(retrieved, dtype=object)
    # unequal lengths broadcast (one id against all) or failed with an IndexError
    if expected.ndim != 1 or expected.shape != retrieved.shape:
        raise UsageError(
            "pair_similarities: expected and retrieved must be two sequences of ids of one "
            f"length (pairs, aligned), not of shapes {expected.shape} and {retrieved.shape}"
        )
    out = (expected == retrieved).astype(np.float64)
    e_idx, r_idx = ontology.indices(expected), ontology.indices(retrieved)
    todo = np.flatnonzero((out == 0) & (e_idx >= 0) & (r_idx >= 0))
    if len(todo) == 0:
        return out
    e_idx, r_idx = e_idx[todo], r_idx[todo]
    lca = lca_depths(ontology, e_idx, r_idx)
    max_depth = ontology.max_depth
    if formula == "simple_resnik_like":
        sim = lca / max_depth
    else:
        de, dr = ontology.depths[e_idx], ontology.depths[r_idx]
        path = de + dr - 2 * lca
        if formula == "hybrid_strict":
            path = np.maximum(path, 1)
        total = de + dr
        # Phentrieve's expression, operation for operation (float64, same rounding).
        with np.errstate(divide="ignore", invalid="ignore"):
            sim = 0.7 * (lca / max_depth) + 0.3 * (1 - path / np.where(total > 0, total, 1))
        sim = np.where(path <= 0, 1.0, sim)
    out[todo] = np.clip(sim, 0.0, 1.0)
    return out


def similarity(
    expected: str,
    retrieved: str,
    formula: str = DEFAULT_FORMULA,
    ontology: Ontology | str | PathLike | None = None,
) -> float:
    """sim(e, r) for one pair of HPO ids, with ``formula`` and ``ontology`` as
    :func:`pair_similarities` takes them."""
    return float(pair_similarities([expected], [retrieved], formula, ontology)[0])


def ontology_info(ontology: str | PathLike | None = None, formula: str | None = None) -> dict:
    """Provenance for reports: ``{"release", "source", "sha256", ...}`` of the ``ontology``
    file (None: hpo3's bundled release) plus the ``formula`` resolved (None: the default),
    as :class:`~trecbench.evaluation.settings.EvalSettings` holds them."""
    info = load_ontology(ontology).info()
    info["formula"] = resolve_formula(formula)
    return info


def max_ont_sim(ranked: pd.DataFrame, qrels: pd.DataFrame, k: int, settings: Settings) -> pd.Series:
    """MaxOntSim@k per evaluated query (qids in both ``ranked`` and ``qrels``).

    ``ranked`` has qid, docno, rank (1-based, trec_eval order); ``qrels`` has qid, docno,
    rel. Gold ids are qrels rows with rel ≥ ``settings.relevance_level``;
    ``settings.maxontsim_formula`` and ``settings.ontology`` choose formula and HPO.
    This is the ``compute`` function registered with the local measure registry.
    """
    import pandas as pd  # registering the plugin must not import pandas (score's start-up)

    if k < 1:
        raise UsageError(f"MaxOntSim@{k}: k must be a positive integer")
    formula = resolve_formula(settings.maxontsim_formula)
    level = settings.relevance_level
    qids = pd.Index(ranked["qid"].astype(str).unique()).intersection(
        pd.Index(qrels["qid"].astype(str).unique())
    )
    result = pd.Series(0.0, index=qids.sort_values(), name=f"MaxOntSim@{k}")
    result.index.name = "qid"
    gold = qrels.loc[qrels["rel"] >= level, ["qid", "docno"]].astype(str)
    top = ranked.loc[ranked["rank"] <= k, ["qid", "docno"]].astype(str)
    pairs = gold.merge(top, on="qid", suffixes=("_e", "_r"))
    if len(pairs) == 0:
        return result
    # Score each distinct (e, r) once: runs repeat the same candidates across queries.
    distinct = pairs[["docno_e", "docno_r"]].drop_duplicates()
    distinct["sim"] = pair_similarities(
        distinct["docno_e"].to_numpy(),
        distinct["docno_r"].to_numpy(),
        formula,
        load_ontology(settings.ontology),
    )
    pairs = pairs.merge(distinct, on=["docno_e", "docno_r"], how="left")
    best = pairs.groupby("qid", sort=False)["sim"].max()
    result.loc[best.index.intersection(result.index)] = best
    return result


def _read(settings: Settings, truth) -> Ontology:
    """The ontology MaxOntSim reads (before any run is scored), and an input warning of the
    gold ids it does not know: obsolete or mistyped, they score 1 only where a run
    retrieves the same id and 0 against any other, without a word (``convert hpo``
    reports them; ``score`` did not)."""
    from .. import input_warnings
    from ..arrow import to_numpy
    from ..plurals import counted

    ontology = load_ontology(settings.ontology)
    table, path = truth.table, truth.path or "qrels"
    grades = to_numpy(table.column("rel"))
    gold = grades >= settings.relevance_level
    ids = np.unique(to_numpy(table.column("docno"))[gold].astype(object))
    unknown = ids[ontology.indices(ids) < 0] if len(ids) else ids
    said = _meaning_warnings(settings, path, np.unique(grades[gold]))
    if len(unknown):
        shown = id_list(unknown)
        said.append(
            f"{path}: {counted(len(unknown), 'relevant id')} not among the "
            f"ontology's terms (obsolete, unknown or mistyped: {shown}): MaxOntSim "
            "scores such an id 1 where a run retrieves it and 0 against every other id"
        )
    input_warnings.keep(said)
    return ontology


def _meaning_warnings(settings: Settings, path: str, grades: np.ndarray) -> list[str]:
    """What makes MaxOntSim another measure than Phentrieve's, said: ``-J``, which drops the
    retrieved ids the qrels do not judge, those it gives partial credit to (only ids judged
    below the relevance level still earn it: with none, it is HitRate); expected ids (E:
    graded at the relevance level or above) of several ``grades``, as ``convert hpo
    --graded ontology`` writes its parents and children below the expected terms: one of
    the lower grades retrieved scores 1, as an expected term (the advice names the
    measure's rel, which every command and the API take, and which a measure's own rel
    would not leave to -l)."""
    said = []
    if settings.judged_only:
        said.append(
            "-J drops every retrieved id the qrels do not judge, the ids MaxOntSim gives "
            "partial credit to: only ids judged below its relevance level still earn it "
            "(where the qrels judge none, MaxOntSim@k is HitRate@k)"
        )
    if len(grades) > 1:
        low, top = int(grades[0]), int(grades[-1])
        said.append(
            f"{path}: MaxOntSim takes every id graded {low} or more as expected, and these "
            f"qrels grade them {low} to {top}: an id graded {low} retrieved scores 1, as an "
            f"expected term does; MaxOntSim(rel={top}) takes the top grade alone"
        )
    return said


local.register("MaxOntSim", max_ont_sim, _read)
