"""Local measures: computed by trecbench itself on DataFrames.

Each family is described in the measure catalog (:mod:`trecbench.measures.catalog`);
this module registers the function computing it (:func:`register`) and, as the ``local``
engine, the families with the measure registry.

Every local measure has the same interface::

    compute(ranked, qrels, k, settings) -> pandas.Series  # float per qid (str)

``ranked`` is a DataFrame ``qid, docno, score, rank`` already in trec_eval order (score
descending, docno descending) with a 1-based ``rank``, restricted to the evaluated topics
(run ∩ qrels) and after ``-M``/``-J`` (``-J`` also for a measure's own ``judged_only``:
its judged documents, ranked anew); ``qrels`` is a DataFrame ``qid, docno, rel``.
``settings`` are the evaluation's (:class:`~trecbench.engines.interface.Settings`, an
:class:`~trecbench.evaluation.EvalSettings`) with ``relevance_level`` the minimum grade
counted as relevant (a measure's own ``rel``, else trec_eval's ``-l``, default 1);
MaxOntSim also reads ``maxontsim_formula`` and ``ontology``.
Topics missing from the returned Series score 0.
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .. import inputs, ranking
from ..measures import Measure, c_atof, registry, value_names
from ..trec_eval.clib import to_long
from .interface import Settings

NAME = "local"

# Modules that register more local measures when imported (e.g. MaxOntSim).
PLUGIN_MODULES: tuple[str, ...] = ("trecbench.engines.maxontsim",)


@dataclass(frozen=True)
class LocalMeasure:
    """A registered local measure family: its compute function and its definition."""

    family: str
    compute: Callable
    # what the family reads besides the run and the qrels (MaxOntSim: its ontology), given
    # the settings and the judgments: read before any run is scored (:func:`read_inputs`)
    read: Callable[[Settings, object], object] | None = None

    @property
    def definition(self) -> registry.Definition:
        return registry.get(self.family)

    @property
    def description(self) -> str:
        return self.definition.description

    @property
    def display(self) -> str:
        return self.definition.display or self.family

    @property
    def trec_name(self) -> str:
        return self.definition.label_prefix


_REGISTRY: dict[str, LocalMeasure] = {}
_plugins_loaded = False


def register(
    family: str, compute: Callable, read: Callable[[Settings, object], object] | None = None
) -> None:
    """Register the compute function of a local family described in the measure catalog
    (:mod:`trecbench.measures.catalog`: its spellings, parameters and description), and
    ``read``, what it reads besides the run and the qrels (:func:`read_inputs`)."""
    _REGISTRY[family] = LocalMeasure(family, compute, read)
    registry.register_engine(NAME, __name__, [family], supports=_supports)


def _load_plugins() -> None:
    global _plugins_loaded
    if not _plugins_loaded:
        _plugins_loaded = True
        for module in PLUGIN_MODULES:
            importlib.import_module(module)


def lookup(name: str) -> LocalMeasure | None:
    """The local family spelled ``name`` (any spelling of the catalog, any case), or None."""
    _load_plugins()
    for definition in registry.index().names.get(name.lower(), []):
        if definition.name in _REGISTRY:
            return _REGISTRY[definition.name]
    return None


def by_trec_name(name: str) -> LocalMeasure | None:
    """The local family whose trec-style name is ``name`` (case-sensitive), or None."""
    _load_plugins()
    definition = registry.index().labels.get(name)
    return None if definition is None else _REGISTRY.get(definition.name)


def families() -> list[LocalMeasure]:
    """Registered families, in registration order."""
    _load_plugins()
    return list(_REGISTRY.values())


def read_inputs(measures: list[Measure], settings: Settings, truth) -> None:
    """Read now what the ``measures`` read besides the runs and the qrels (MaxOntSim: its
    ontology), in this process, before worker processes are started: a file that can be
    read only once (a FIFO) is read here and handed to them
    (:func:`trecbench.provenance.read_so_far`), where each would wait on it for good.
    ``truth``: the judgments (:class:`~trecbench.evaluation.judgments.Qrels`), which a
    reader may check against what it read."""
    _load_plugins()
    for family in dict.fromkeys(measure.family for measure in measures):
        reader = _REGISTRY[family].read if family in _REGISTRY else None
        if reader is not None:
            # at the lowest level any of them counts relevant at (its rel, else -l): an id
            # relevant to one of them is read as such (MaxOntSim(rel=2) beside MaxOntSim)
            levels = [m.option("rel") or settings.relevance_level for m in measures
                      if m.family == family]  # fmt: skip
            reader(dataclasses.replace(settings, relevance_level=min(levels)), truth)


def _supports(measure: Measure) -> bool:
    """Local measures take ``rel`` and ``judged_only`` at most (those their definitions
    name: relstring none, HitRate both)."""
    return all(key in ("rel", "judged_only") for key, _ in measure.options)


class Evaluator:
    """Local measures on a ranked DataFrame (see the module docstring), per run."""

    before_judged_only = False
    wants_table = True

    def __init__(self, truth, measures: list[Measure], settings: Settings):
        _load_plugins()
        self.truth = truth
        self.measures = measures
        self.settings = settings

    def evaluate(self, ranked, qids: list[str]) -> dict[Measure, list[tuple]]:
        """Per measure, ``(label, display, values)``: floats aligned with ``qids`` (a list
        of strings for ``relstring``)."""
        frames: dict[bool, object] = {}  # the ranking as given, and its judged documents

        def frame_of(judged: bool):
            if judged not in frames:
                table = ranking.judged_only(ranked, self.truth.table) if judged else ranked
                frames[judged] = inputs.to_pandas(table.select(["qid", "docno", "score", "rank"]))
            return frames[judged]

        out: dict[Measure, list[tuple]] = {}
        for measure in self.measures:
            ((label, display),) = value_names(measure)
            # a measure's judged_only is -J for it alone (under -J the ranking has it already)
            frame = frame_of(bool(measure.option("judged_only")) and not self.settings.judged_only)
            if measure.family == "relstring":
                # (long) of the double, as m_relstring.c: 1e19 or nan is LONG_MIN, no string
                length = to_long(c_atof(measure.params)) if measure.params else 10
                column = relstring(frame, self.truth.frame, length)
                out[measure] = [(label, label, column.reindex(qids, fill_value="").tolist())]
                continue
            settings = self.settings
            if measure.option("rel") is not None:
                settings = dataclasses.replace(settings, relevance_level=measure.option("rel"))
            series = _REGISTRY[measure.family].compute(frame, self.truth.frame, measure.k, settings)
            values = series.reindex(qids, fill_value=0.0).to_numpy(dtype=np.float64)
            out[measure] = [(label, display, values)]
        return out


# ---------------------------------------------------------------------------------------
# built-in measures


def _relevant_hits(ranked, qrels, k: int, settings: Settings):
    """Rows of the top ``k`` that are relevant at the requested level."""
    level = settings.relevance_level
    top = ranked.loc[ranked["rank"] <= k, ["qid", "docno", "rank"]]
    relevant = qrels.loc[qrels["rel"] >= level, ["qid", "docno"]]
    return top.merge(relevant, on=["qid", "docno"], how="inner")


def _evaluated(ranked):
    import pandas as pd

    return pd.Index(ranked["qid"].unique(), name="qid")


def hit_rate(ranked, qrels, k: int, settings: Settings):
    """1 if a relevant document is in the top k, else 0 (trec_eval's ``success.k``)."""
    import pandas as pd

    hits = _relevant_hits(ranked, qrels, k, settings)
    evaluated = _evaluated(ranked)
    return pd.Series(evaluated.isin(hits["qid"].unique()).astype(float), index=evaluated)


def reciprocal_rank_cut(ranked, qrels, k: int, settings: Settings):
    """1/rank of the first relevant document in the top k, 0 if none (MRR@k).

    Equals trec_eval's ``recip_rank`` on the run cut at k (``-M k``); it is not the uncut
    ``recip_rank``. Like every @k measure it cuts the ranking it is given: under ``-J``
    the judged documents (as P@k, nDCG@k and HitRate@k do) — not trec_eval's
    ``-M k -J``, which cuts first and then drops the unjudged ones.
    """
    hits = _relevant_hits(ranked, qrels, k, settings)
    first = hits.groupby("qid", sort=False)["rank"].min()
    return (1.0 / first).reindex(_evaluated(ranked), fill_value=0.0)


def recall_all(ranked, qrels, k: int, settings: Settings):
    """1 when every relevant document is in the top k, else 0 (0 with no relevant doc)."""
    level = settings.relevance_level
    found = _relevant_hits(ranked, qrels, k, settings).groupby("qid", sort=False).size()
    relevant = qrels.loc[qrels["rel"] >= level].groupby("qid", sort=False).size()
    index = _evaluated(ranked)
    found = found.reindex(index, fill_value=0)
    relevant = relevant.reindex(index, fill_value=0)
    return ((relevant > 0) & (found == relevant)).astype(float)


register("HitRate", hit_rate)
register("MRR", reciprocal_rank_cut)
register("Recall_all", recall_all)
# relstring, and MaxOntSim before its plugin module is imported (on first use)
registry.register_engine(NAME, __name__, ["relstring", "MaxOntSim"], supports=_supports)


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
