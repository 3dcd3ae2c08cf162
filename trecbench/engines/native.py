"""The native engine: trecbench's own ports of trec_eval (:mod:`trecbench.trec_eval`).

It computes what pytrec_eval cannot: ``yaap``, 10.0's measures and its rounded recall
cutoffs, the preference measures (``-R prefs``, ``-R qrels_prefs``), the judgment-group
measures (``-R qrels_jg``), and — with ``-D``, or asked for by name (``engine="native"``)
— the measures that print a trace. Like the
other engines it takes the run in trec_eval order, restricted to the evaluated topics and
cut at ``-M``; the preference measures instead take every retrieved document (trec_eval
ranks them its own way for preferences, then cuts).

:class:`Evaluator` returns, per label, an array aligned with the topics, the trace each
measure printed for each topic, and the first topic trec_eval could not evaluate (with the
error), if any.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa

from .. import arrow
from .. import arrow_compute as pc
from ..callers import outside_trecbench
from ..errors import TrecbenchError, TrecEvalUndefinedWarning
from ..measures import Measure, display_name, registry, value_names
from ..measures.labels import labels_of, percents
from ..plurals import counted
from ..score_precision import compares_float32
from ..trec_eval.prefs_files import PREFS_FORMATS
from .interface import Settings

# the ports themselves (trecbench.trec_eval) are imported by the method that uses them:
# registering the engine, which every evaluation does, does not load them

NAME = "native"
# the families only these ports compute (the catalog's source "trec_eval")
PORTED = [d.name for d in registry.definitions() if d.source == "trec_eval"]
# ... and those they compute when asked: 10.0's rounded recall cutoffs, and with -D the
# families that print a trace (gm_bpref from level 2 on)
RECALL_CUTOFFS = frozenset({"iprec_at_recall", "11pt_avg"})
TRACED = frozenset(
    {"ndcg", "dcg", "ideal_dcg", "ndcg_cut", "ndcg_rel", "Rndcg", "G", "binG", "gm_bpref"}
)
# of those, the ones this engine has no other port of: computed by the traced port at -D 0
# too, when the engine is asked for by name (engine="native")
TRACED_ONLY = TRACED - {"dcg", "ideal_dcg"}
# the keyword parameters the recall cutoff families' ports take (10.0's IPrec(rel=2)@0.5,
# 11pt_avg(judged_only=True)): -l and -J of their own
RECALL_OPTIONS = frozenset({"rel", "judged_only"})


def supports(measure: Measure) -> bool:
    """trec_eval's spellings, and the recall cutoff families' with ``rel`` and
    ``judged_only``."""
    if measure.family in RECALL_CUTOFFS:
        return all(key in RECALL_OPTIONS for key, _ in measure.options)
    return not measure.options


@dataclass
class Result:
    """Per label, an array aligned with the topics; per label, the trace of each topic;
    and the index of the first topic trec_eval could not evaluate, with the error."""

    values: dict[str, np.ndarray] = field(default_factory=dict)
    traces: dict[str, list[str]] = field(default_factory=dict)
    failed_at: int | None = None
    error: TrecbenchError | None = None
    trailing: str = ""  # what trec_eval printed of the failing topic before it stopped


class Evaluator:
    """The native engine over one set of judgments, reused for every run of a call.

    ``truth.table``: a qrels table (``qid, docno, rel``; for ``qrels_jg`` also ``iter``, the
    judgment group) or a preferences table (``qid, jg, jsg, docno, level``), as
    ``settings.rel_format`` says; ``requested``: every measure of the call (``rbp``
    depends on those computed before it: :mod:`trecbench.trec_eval.leftovers`). After each
    :meth:`evaluate`, ``last`` holds its :class:`Result` (traces, where trec_eval stopped).
    """

    before_judged_only = True  # form_res_rels applies -J itself
    wants_table = True

    def __init__(self, truth, measures: list[Measure], settings: Settings, requested=()):
        self.truth = truth
        self.judgments, self.judgments_path = truth.table, truth.path
        self.measures = measures
        order = registry.trec_order()
        known = sorted((m for m in requested if m.family in order), key=lambda m: order[m.family])
        self._before_rbp = [m for m in known if order[m.family] < order["rbp"]]
        self.rel_format = settings.rel_format
        self.version = settings.version
        # preferences rank the run themselves: at the precision every other ranking uses
        self.float32 = compares_float32(settings.version, settings.float32)
        self.relevance_level = truth.relevance_level
        self.judged_only = settings.judged_only
        self.max_docs = settings.max_docs
        self.debug_level = settings.debug_level
        self._prefs = _prefs_by_topic(self.judgments) if self.rel_format in PREFS_FORMATS else None
        self.last = Result()

    def evaluate(self, ranked_table: pa.Table, qids: list[str]) -> dict[Measure, list[tuple]]:
        """Per measure, ``(label, display, values)`` for ``qids`` (evaluation order) of
        ``ranked_table`` (trec_eval order, cut at ``-M``; for preferences: every retrieved
        document, in any order)."""
        if self.rel_format in PREFS_FORMATS:
            self.last = self._prefs_values(ranked_table, qids)
        elif self.rel_format == "qrels_jg":
            self.last = self._group_values(ranked_table, qids)
        else:
            self.last = self._ranked_values(ranked_table, qids)
        out = {}
        for measure in self.measures:
            keys = labels_of(measure)
            names = value_names(measure) or [(key, display_name(key)) for key in keys]
            out[measure] = [
                (label, display, self.last.values[key])
                for (label, display), key in zip(names, keys, strict=True)
            ]
        return out

    # ---------------------------------------------------------------- standard qrels

    def _ranked_values(self, ranked_table: pa.Table, qids: list[str]) -> Result:
        from ..trec_eval import ranked
        from ..trec_eval.res_rels import ResRels, form_res_rels

        formed: dict[tuple[int, bool], ResRels] = {}  # per (level, judged only)
        result = Result()
        for measure in self.measures:
            family, labels = measure.family, labels_of(measure)
            setting = self._setting(measure)
            if setting not in formed:
                level, judged_only = setting
                formed[setting] = form_res_rels(
                    ranked_table,
                    self.judgments,
                    qids,
                    relevance_level=level,
                    judged_only=judged_only,
                )
            res = formed[setting]
            traced = self.debug_level > 0 and family in TRACED | {"rbp"}
            if traced or family in TRACED_ONLY:
                self._traced(res, measure, labels, result)
            elif family == "yaap":
                result.values[labels[0]] = ranked.yaap(res)
            elif family == "unj":
                for label, k in zip(labels, measure.cutoffs, strict=True):
                    result.values[label] = ranked.unjudged(res, (k,))[k]
            elif family == "rbp":
                result.values[labels[0]] = ranked.rbp(res, measure.params, self._before_rbp)
            elif family == "rbp_resid":
                result.values[labels[0]] = ranked.rbp_resid(res, measure.params)
            elif family in ("dcg", "ideal_dcg"):
                dcg, ideal = ranked.discounted_gains(res, measure.params)
                result.values[labels[0]] = dcg if family == "dcg" else ideal
            elif family == "iprec_at_recall":
                values = ranked.iprec_at_recall(res, percents(measure))
                result.values.update(zip(labels, values, strict=True))
            elif family == "11pt_avg":
                result.values[labels[0]] = ranked.eleven_point_average(res, percents(measure))
            else:
                raise TrecbenchError(f"the native engine does not compute {family}")
        return result

    def _setting(self, measure: Measure) -> tuple[int, bool]:
        """The relevance level and -J ``measure`` is computed at: the call's, or its
        keyword parameters' (``rel=2``, ``judged_only=True``), as pytrec_eval's engine."""
        rel = measure.option("rel")
        level = self.relevance_level if rel is None else self.truth.level(rel)
        return level, bool(self.judged_only or measure.option("judged_only"))

    def _traced(self, res, measure: Measure, labels: list[str], result: Result) -> None:
        from ..trec_eval import ranked, traced
        from ..trec_eval.gains import parse_pairs

        family = measure.family
        n = res.n_topics
        arrays = [np.zeros(n) for _ in labels]
        texts = [""] * n
        for t in range(n):
            topic = traced.Topic.of(res, t, self.debug_level, self.version.integer_gain_names)
            if family == "ndcg_cut":
                values, texts[t] = traced.ndcg_cut(topic, measure.cutoffs)
                for array, value in zip(arrays, values, strict=True):
                    array[t] = value
                continue
            if family == "rbp":
                gains = ranked.rbp_gains(res, t, parse_pairs(measure.params), self._before_rbp)
                value, texts[t] = traced.rbp_trace(topic, gains, ranked.persistence(measure.params))
            elif family in ("ndcg", "dcg", "ideal_dcg"):
                value, texts[t] = traced.ndcg(topic, measure.params, family)
            elif family == "ndcg_rel":
                value, texts[t] = traced.ndcg_rel(topic, measure.params)
            elif family == "Rndcg":
                value, texts[t] = traced.rndcg(topic, measure.params)
            elif family == "G":
                value, texts[t] = traced.g_measure(topic, measure.params)
            elif family == "binG":
                value, texts[t] = traced.bin_g(topic)
            else:  # gm_bpref
                value, texts[t] = traced.gm_bpref(topic)
            arrays[0][t] = value
        result.values.update(zip(labels, arrays, strict=True))
        result.traces[labels[0]] = texts

    # ---------------------------------------------------------------- judgment groups

    def _group_values(self, ranked_table: pa.Table, qids: list[str]) -> Result:
        from ..trec_eval import judgment_groups

        res, topic = judgment_groups.group_res_rels(
            ranked_table,
            self.judgments,
            qids,
            relevance_level=self.relevance_level,
            judged_only=self.judged_only,
        )
        n, result = len(qids), Result()
        for measure in self.measures:
            labels = labels_of(measure)
            if measure.family == "map_avgjg":
                result.values[labels[0]] = judgment_groups.map_avgjg(res, topic, n)
            elif measure.family == "P_avgjg":
                values = judgment_groups.p_avgjg(res, topic, n, measure.cutoffs)
                result.values.update((f"P_avgjg_{k}", v) for k, v in values.items())
            elif measure.family == "Rprec_mult_avgjg":
                values = judgment_groups.rprec_mult_avgjg(res, topic, n, percents(measure))
                result.values.update(zip(labels, values, strict=True))
            else:
                raise TrecbenchError(f"{measure.family} cannot be computed from qrels_jg")
        return result

    # ---------------------------------------------------------------- preferences

    def _prefs_values(self, run: pa.Table, qids: list[str]) -> Result:
        from ..trec_eval import prefs_measures
        from ..trec_eval.prefs_counts import PrefsCounter, PrefsError

        counter = PrefsCounter(
            levels_float32=self.version.float32,
            scores_float32=self.float32,
            max_docs=self.max_docs,
            debug_level=self.debug_level,
        )
        by_topic = _run_by_topic(run)
        result = Result()
        labels = [labels_of(m)[0] for m in self.measures]
        undefined: dict[str, list[tuple[str, str]]] = {}  # label: (topic, why) each
        for label in labels:
            result.values[label] = np.zeros(len(qids))
            result.traces[label] = [""] * len(qids)
        for t, qid in enumerate(qids):
            docnos, scores = by_topic.get(qid, ([], np.zeros(0)))
            try:
                counts = counter.count(qid, docnos, scores, self._prefs[qid])
            except PrefsError as error:  # the preferences' fault said of their file, topic
                if not error.of_run:
                    located = PrefsError(f"{self.judgments_path}: topic {qid}: {error}")
                    located.trace, error = error.trace, located
                result.failed_at, result.error = t, error
                if self.debug_level >= 3:
                    result.trailing = f"Debug: Form_prefs starting query '{qid}'\n" + error.trace
                break
            for index, (measure, label) in enumerate(zip(self.measures, labels, strict=True)):
                result.values[label][t] = prefs_measures.MEASURES[measure.family](counts)
                if measure.family in counts.undefined:
                    undefined.setdefault(label, []).append((qid, counts.undefined[measure.family]))
                if self.debug_level >= 3:
                    start = f"Debug: Form_prefs starting query '{qid}'\n"
                    detail = counts.debug if index == 0 else "Returned Cached Form_prefs\n"
                    result.traces[label][t] = start + detail
        for label, found in undefined.items():
            warning = TrecEvalUndefinedWarning(_undefined_text(label, found))
            warnings.warn(warning, stacklevel=outside_trecbench())
        return result


def _undefined_text(label: str, found: list[tuple[str, str]]) -> str:
    """One line for the topics where trec_eval's ``label`` is undefined: the first
    topic's reason, and how many more."""
    (qid, why), more = found[0], len(found) - 1
    others = f" (and {counted(more, 'other topic')})" if more else ""
    return f"{label}, topic {qid}{others}: {why}"


def _prefs_by_topic(table: pa.Table) -> dict[str, dict[str, list]]:
    """Per topic, the preference lines sorted by docno (ties in file order), as
    trec_eval's reader leaves them."""
    columns = {name: table.column(name).to_pylist() for name in ("qid", "jg", "jsg", "docno")}
    levels = table.column("level").to_pylist()
    order = sorted(
        range(table.num_rows),
        key=lambda i: (columns["qid"][i].encode(), columns["docno"][i].encode()),
    )
    out: dict[str, dict[str, list]] = {}
    for i in order:
        entry = out.setdefault(columns["qid"][i], {"jg": [], "jsg": [], "docno": [], "level": []})
        entry["jg"].append(columns["jg"][i])
        entry["jsg"].append(columns["jsg"][i])
        entry["docno"].append(columns["docno"][i])
        entry["level"].append(levels[i])
    return out


def _run_by_topic(run: pa.Table) -> dict[str, tuple[list[str], np.ndarray]]:
    """Per topic, its retrieved docnos and scores sorted by docno, as trec_eval's reader
    hands them over (its work arrays, which ``-D 5`` prints, depend on that order)."""
    order = pc.sort_indices(run, [("qid", "ascending"), ("docno", "ascending")])
    run = run.take(order)
    qids = run.column("qid").to_pylist()
    docnos = run.column("docno").to_pylist()
    scores = arrow.to_numpy(run.column("score"))
    rows: dict[str, list[int]] = {}
    for row, qid in enumerate(qids):
        rows.setdefault(qid, []).append(row)
    return {q: ([docnos[r] for r in r_], scores[np.array(r_)]) for q, r_ in rows.items()}


registry.register_engine(
    NAME,
    __name__,
    [*PORTED, *RECALL_CUTOFFS, *TRACED],
    supports=supports,
    description="trecbench's ports of trec_eval's C code: what pytrec_eval lacks (prefs, "
    "judgment groups, yaap, 10.0's measures), 10.0's recall cutoffs, -D traces",
)
