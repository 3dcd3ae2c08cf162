"""Local measures: computed by trecbench itself, registered in a small registry.

Every local measure has the same interface::

    compute(ranked, qrels, k, options) -> pandas.Series  # float per qid (str)

``ranked`` is a DataFrame ``qid, docno, score, rank`` already in trec_eval order (score
descending, docno descending) with a 1-based ``rank``, restricted to the evaluated topics
(run ∩ qrels) and after ``-M``/``-J``; ``qrels`` is a DataFrame ``qid, docno, rel``.
``options["relevance_level"]`` is the minimum grade counted as relevant (trec_eval's ``-l``,
default 1); the score command also passes ``maxontsim_formula`` and ``ontology``.
Topics missing from the returned Series score 0.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass

# Modules that register more local measures when imported (e.g. MaxOntSim).
PLUGIN_MODULES: tuple[str, ...] = ("trecbench.engines.maxontsim",)


@dataclass(frozen=True)
class LocalMeasure:
    """A registered local measure family."""

    family: str
    compute: Callable
    description: str
    display: str
    trec_name: str


_REGISTRY: dict[str, LocalMeasure] = {}
_plugins_loaded = False


def register(
    family: str,
    compute: Callable,
    description: str,
    *,
    display: str | None = None,
    trec_name: str | None = None,
    aliases: tuple[str, ...] = (),
) -> None:
    """Register a local measure family, spelled ``<display>@k`` (any case) or ``<alias>@k``.

    ``trec_name`` is the label prefix in trec_eval-style output (``<trec_name>_<k>``) and
    the trec_eval-style spelling ``<trec_name>.k``; it defaults to the family name.
    """
    entry = LocalMeasure(family, compute, description, display or family, trec_name or family)
    for key in {family.lower(), entry.display.lower(), *(a.lower() for a in aliases)}:
        _REGISTRY[key] = entry


def _load_plugins() -> None:
    global _plugins_loaded
    if not _plugins_loaded:
        _plugins_loaded = True
        for module in PLUGIN_MODULES:
            importlib.import_module(module)


def lookup(name: str) -> LocalMeasure | None:
    """The local family spelled ``name`` (case-insensitive), or None."""
    _load_plugins()
    return _REGISTRY.get(name.lower())


def by_trec_name(name: str) -> LocalMeasure | None:
    """The local family whose trec-style name is ``name`` (case-sensitive), or None."""
    _load_plugins()
    return next((m for m in _REGISTRY.values() if m.trec_name == name), None)


def families() -> list[LocalMeasure]:
    """Registered families, each once, in registration order."""
    _load_plugins()
    return list(dict.fromkeys(_REGISTRY.values()))


# ---------------------------------------------------------------------------------------
# built-in measures


def _relevant_hits(ranked, qrels, k: int, options: dict):
    """Rows of the top ``k`` that are relevant at the requested level."""
    level = options.get("relevance_level", 1)
    top = ranked.loc[ranked["rank"] <= k, ["qid", "docno", "rank"]]
    relevant = qrels.loc[qrels["rel"] >= level, ["qid", "docno"]]
    return top.merge(relevant, on=["qid", "docno"], how="inner")


def _evaluated(ranked):
    import pandas as pd

    return pd.Index(ranked["qid"].unique(), name="qid")


def hit_rate(ranked, qrels, k: int, options: dict):
    """1 if a relevant document is in the top k, else 0 (trec_eval's ``success.k``)."""
    import pandas as pd

    hits = _relevant_hits(ranked, qrels, k, options)
    evaluated = _evaluated(ranked)
    return pd.Series(evaluated.isin(hits["qid"].unique()).astype(float), index=evaluated)


def reciprocal_rank_cut(ranked, qrels, k: int, options: dict):
    """1/rank of the first relevant document in the top k, 0 if none (MRR@k).

    Equals trec_eval's ``recip_rank`` on the run cut at k (``-M k``); it is not the uncut
    ``recip_rank``. Like every @k measure it cuts the ranking it is given: under ``-J``
    the judged documents (as P@k, nDCG@k and HitRate@k do) — not trec_eval's
    ``-M k -J``, which cuts first and then drops the unjudged ones.
    """
    hits = _relevant_hits(ranked, qrels, k, options)
    first = hits.groupby("qid", sort=False)["rank"].min()
    return (1.0 / first).reindex(_evaluated(ranked), fill_value=0.0)


def recall_all(ranked, qrels, k: int, options: dict):
    """1 when every relevant document is in the top k, else 0 (0 with no relevant doc)."""
    level = options.get("relevance_level", 1)
    found = _relevant_hits(ranked, qrels, k, options).groupby("qid", sort=False).size()
    relevant = qrels.loc[qrels["rel"] >= level].groupby("qid", sort=False).size()
    index = _evaluated(ranked)
    found = found.reindex(index, fill_value=0)
    relevant = relevant.reindex(index, fill_value=0)
    return ((relevant > 0) & (found == relevant)).astype(float)


register(
    "HitRate",
    hit_rate,
    "1 if a relevant document is among the top k (trec_eval success.k)",
    trec_name="success",
    aliases=("Success", "hit_rate"),
)
register(
    "MRR",
    reciprocal_rank_cut,
    "reciprocal rank of the first relevant document within the top k of the ranking "
    "evaluated (recip_rank with -M k; under -J the top k judged documents)",
    trec_name="recip_rank_cut",
    aliases=("RR",),
)
register(
    "Recall_all",
    recall_all,
    "1 when every relevant document is among the top k",
    trec_name="recall_all",
)


def relstring(ranked, qrels, length: int):
    """trec_eval's ``relstring``: one character per retrieved document in the top ``length``.

    A digit for grades 0-9, ``>`` above 9, ``-`` for a document not in the qrels and ``.``
    for one in the qrels with a negative grade (in the pool but unjudged).
    """
    import numpy as np

    top = ranked.loc[ranked["rank"] <= length, ["qid", "docno", "rank"]]
    merged = top.merge(qrels[["qid", "docno", "rel"]], on=["qid", "docno"], how="left")
    merged = merged.sort_values(["qid", "rank"], kind="stable")
    rel = merged["rel"]
    judged = rel.notna().to_numpy()
    grade = rel.fillna(0).astype("int64").to_numpy()
    chars = np.where(
        ~judged,
        "-",
        np.where(grade > 9, ">", np.where(grade >= 0, grade.clip(0, 9).astype(str), ".")),
    )
    merged = merged.assign(char=chars)
    strings = merged.groupby("qid", sort=False)["char"].agg("".join)
    return strings.reindex(_evaluated(ranked), fill_value="")
