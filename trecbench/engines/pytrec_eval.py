"""The reference engine: trec_eval 9.0.8's own code, through pytrec-eval-terrier.

The raw ``pytrec_eval_ext.RelevanceEvaluator`` accepts every trec_eval parameter string
(``P.5,10``, ``iprec_at_recall..10``, ``ndcg.1=3,2=9``); the Python wrapper's measure
rewriting does not, so it is bypassed. pytrec_eval sorts documents itself, so the scores
handed to it encode the order :func:`trecbench.ranking.rank_table` decided (``n - position``,
strictly decreasing, exact in float32): its sort can only reproduce that order.

ir_measures' gain maps (``nDCG(gains={1:3})``) replace each grade by its gain, as ir_measures
does before calling pytrec_eval; nDCG on such judgments is then the fast engine's, bit for
bit trec_eval's (:class:`_GainMapped`): trec_eval's own walks every grade up to a topic's
largest, minutes for a gain of 10^6.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pyarrow as pa

from .. import arrow, ranking
from ..errors import Setting, UsageError
from ..measures import (
    FLOAT_CUTOFFS,
    LONG_CUTOFFS,
    PAIRS,
    Measure,
    MeasureParameterError,
    c_atof,
    float_cutoffs,
    level_label,
    registry,
    value_names,
)
from ..signals import ended_at_once
from ..trec_eval.gains import valid_int
from .interface import Settings

NAME = "pytrec_eval"
PAIR_SEPARATOR = "="  # name=value pairs of a gain map: ndcg.1=3,2=9
# topics per call of pytrec_eval: its results are Python dicts, about 130 bytes a value
# (all_trec: over 100 values a topic), which the memory budget's costs per line do not
# count; 150,000 topics of 3 lines (a run held whole) peaked at 2.4 GiB under --memory 512
TOPICS_PER_CALL = 2048
OPTIONS = frozenset({"rel", "judged_only", "gains"})  # keyword parameters it honours
# trec_eval 9.0.8's numeric families (runid and num_q are the evaluation's, relstring local's,
# the families pytrec_eval lacks trecbench's ports': engines/native.py)
FAMILIES = [
    d.name
    for d in registry.definitions()
    if d.trec_name is not None and d.source == registry.PYTREC_EVAL
]


def computed_by(measure: Measure) -> str:
    """The engine whose code gives ``measure``'s values, as reports record it: the fast
    engine's for a gain map (:class:`_GainMapped`), trec_eval's own for the others."""
    return "fast" if measure.option("gains") is not None else NAME


def supports(measure: Measure) -> bool:
    """trec_eval's numeric families, with ``rel``, ``judged_only`` or ``gains`` at most."""
    return measure.family in FAMILIES and all(key in OPTIONS for key, _ in measure.options)


def measure_strings(measures: list[Measure]) -> dict[str, str]:
    """The trec_eval measure string per family; cutoff lists of one family are merged."""
    by_family: dict[str, list[Measure]] = {}
    for measure in measures:
        by_family.setdefault(measure.family, []).append(measure)
    strings = {}
    for family, group in by_family.items():
        params = {m.params for m in group}
        if len(params) == 1:
            (only,) = params
            strings[family] = family if only is None else f"{family}.{only}"
        elif group[0].definition.trec_params == LONG_CUTOFFS:
            cutoffs = sorted({k for m in group for k in m.cutoffs})
            strings[family] = f"{family}.{','.join(map(str, cutoffs))}"
        elif group[0].definition.trec_params == FLOAT_CUTOFFS and None not in params:
            levels = sorted({v for m in group for v in float_cutoffs(m.params)})
            if len({level_label(family, v) for v in levels}) < len(levels):
                raise MeasureParameterError(f"{family}: two levels share a label")
            strings[family] = f"{family}.{','.join(map(repr, levels))}"
        else:
            raise MeasureParameterError(
                f"{family}: conflicting parameters {sorted(p or '' for p in params)}"
            )
    return strings


def _level_parts(measure: Measure) -> list[Measure]:
    """``measure`` as pytrec_eval computes it: a float cutoff family given levels one
    level at a time (it keys a level's value by trec_eval's label, which two levels may
    share: 0.3 and 0.3015, 1000000.1 and 1000000.2; parts without a shared label join one evaluator
    again, :func:`_fits`), any other measure whole."""
    if measure.definition.trec_params != FLOAT_CUTOFFS or measure.params is None:
        return [measure]
    return [replace(measure, params=repr(level)) for level in float_cutoffs(measure.params)]


def _fits(group: list[Measure], measure: Measure) -> bool:
    """Whether ``measure`` can join the evaluator of ``group``: its family's parameters
    merge with theirs into one trec_eval measure string (:func:`measure_strings`)."""
    try:
        measure_strings([m for m in group if m.family == measure.family] + [measure])
    except MeasureParameterError:
        return False
    return True


def engine_keys(measure: Measure, engine_labels: list[str]) -> list[str]:
    """The keys pytrec_eval gives the values of one measure, in trec_eval's order."""
    kind = measure.definition.trec_params
    if kind == LONG_CUTOFFS:
        return [f"{measure.family}_{k}" for k in measure.cutoffs]
    if kind == FLOAT_CUTOFFS and measure.params is not None:
        return [level_label(measure.family, v) for v in float_cutoffs(measure.params)]
    if kind == FLOAT_CUTOFFS:
        prefix = measure.family + "_"
        return [
            label
            for label in engine_labels
            if label.startswith(prefix) and label[len(prefix) :].replace(".", "").isdigit()
        ]
    return [measure.family]


_UTILITY_COUNTS = ("num_ret", "num_rel", "num_rel_ret")


def _utility(measure: Measure, values: dict[str, np.ndarray], num_docs: int, qids) -> np.ndarray:
    """trec_eval's utility with ``-N``, in its exact operation order (m_utility.c); refused
    where the fourth coefficient weighs a count of documents neither retrieved nor relevant
    that ``-N`` makes negative (a topic retrieving or judging more documents than that)."""
    p = [c_atof(x) for x in (measure.params or "1,-1,0,0").split(",")]
    ret, rel, rel_ret = (values[n].astype(np.int64) for n in _UTILITY_COUNTS)
    rest = num_docs + rel_ret - ret - rel
    if p[3] != 0.0 and (rest < 0).any():
        at = int(np.argmax(rest < 0))
        raise UsageError(
            Setting("num_docs", num_docs),
            f": fewer documents than topic {qids[at]} retrieves or judges relevant "
            f"({num_docs - rest[at]:,}), which {measure.requested or measure.canonical} counts "
            "the rest of",
        )
    rest = rest.astype(np.float64)
    return p[0] * rel_ret + p[1] * (ret - rel_ret) + p[2] * (rel - rel_ret) + p[3] * rest


def _as_10(measure: Measure) -> Measure:
    """What 9.0.8's code must compute for ``measure`` to give trec_eval 10.0's value: 10.0
    skips gain-map entries whose grade is not an integer (9.0.8 reads ``a=2`` as grade 0);
    the printed label keeps them, as 10.0's does."""
    if not measure.params or measure.definition.trec_params != PAIRS:
        return measure
    parts = measure.params.split(",")
    kept = [part for part in parts if valid_int(part.partition("=")[0])]
    if len(kept) == len(parts):
        return measure
    return Measure(measure.family, ",".join(kept) or None, (), measure.requested, True)


class _Group:
    """One pytrec_eval evaluator: the measures sharing a relevance level, ``-J`` and gains.

    Not reused when a measure has a gain map (``ndcg.1=3,2=9``): trec_eval parses
    parameters in place, cutting the string at every ``,`` and ``=``, and pytrec_eval puts
    back only the commas before its next evaluation. A second run would then see
    ``ndcg.1,3,2,9``, which trec_eval rejects with an error that pytrec_eval ignores, and
    the process dies (exit 139). A fresh evaluator parses a fresh copy of the string.
    """

    def __init__(self, qrels_dict, measures, relevance_level, judged_only, num_docs):
        from pytrec_eval_ext import RelevanceEvaluator

        self.measures = measures
        self.utility = [m for m in measures if m.family == "utility"] if num_docs else []
        self.num_docs = num_docs
        wanted = list(measures)
        if self.utility:  # -N enters utility only: recompute it from the counts (_utility)
            wanted += [Measure(n) for n in _UTILITY_COUNTS]
        strings = set(measure_strings(wanted).values())
        self._qrels = qrels_dict
        # -J is left to trec_eval's code: pytrec_eval miscounts topics handed to it empty
        self._new = lambda qrels: RelevanceEvaluator(qrels, strings, relevance_level, judged_only)
        self._reusable = not any(PAIR_SEPARATOR in string for string in strings)
        self._evaluator = self._new(qrels_dict) if self._reusable else None

    def evaluate(self, run_dict, qids):
        labels, parts = None, []
        for start in range(0, len(qids), TOPICS_PER_CALL):
            chunk = qids[start : start + TOPICS_PER_CALL]
            result = self._evaluated({q: run_dict[q] for q in chunk})
            labels = labels or list(result[chunk[0]])
            parts.append([np.fromiter((result[q][k] for q in chunk), float, len(chunk))
                          for k in labels])  # fmt: skip
        values = {k: np.concatenate([part[i] for part in parts]) for i, k in enumerate(labels)}
        for measure in self.utility:
            values[measure.family] = _utility(measure, values, self.num_docs, qids)
        return labels, values

    def _evaluated(self, run_dict) -> dict[str, dict[str, float]]:
        """pytrec_eval's ``{qid: {label: value}}`` of ``run_dict``."""
        evaluator = self._evaluator
        if evaluator is None:  # its parameter strings are spent by one evaluation: a fresh
            # one, of the topics' judgments alone (each topic's values read only its own)
            qrels = self._qrels
            evaluator = self._new({q: qrels[q] for q in run_dict if q in qrels})
        with ended_at_once():  # a signal waited for the whole evaluation (it holds the GIL)
            return evaluator.evaluate(run_dict)


def _as_gains(grades: np.ndarray, gains: dict) -> np.ndarray:
    """``grades`` with each grade ``gains`` maps replaced by its gain, the others kept:
    ir_measures' ``gains.get(grade, grade)``, each grade looked up once ({1:2,2:3}: 1 gains
    2, not 3)."""
    mapped = grades.astype(np.int64)
    for grade, gain in gains.items():
        mapped[grades == grade] = gain
    return mapped


class _Gains:
    """The judgments of ``truth`` with their grades replaced by a gain map's gains, as the
    fast engine reads judgments: ``table``, ``judgments(qids)``, ``relevance_level``."""

    def __init__(self, truth, gains: dict):
        self._truth, self._gains = truth, gains
        self.path, self.relevance_level = truth.path, truth.relevance_level
        table = truth.table
        grades = _as_gains(arrow.to_numpy(table.column("rel")), gains)
        self.table = table.set_column(
            table.column_names.index("rel"), "rel", arrow.array(grades, pa.int64())
        )

    def judgments(self, qids: list[str]):
        topic, docno, grades = self._truth.judgments(qids)
        return topic, docno, _as_gains(grades, self._gains)


class _GainMapped:
    """nDCG and nDCG@k with a gain map: the fast engine's nDCG on the judgments the gains
    replace the grades of (:class:`_Gains`), which is bit for bit trec_eval's on them for
    any grades. Not trec_eval's own: m_ndcg.c's setup_gains loops over every grade from 0
    to a topic's largest within a loop over them (a gain of 10^6: minutes), and
    form_res_rels holds a long per grade (2*10^9: 16 GB) and crashed on a topic left only
    gains of -2 or less. ``-J`` (``judged_only``) drops the documents without a
    non-negative gain, as trec_eval on those judgments does."""

    def __init__(self, truth, measures: list[Measure], gains: dict, judged_only: bool):
        from . import fast  # here: importing an engine registers it (engines/__init__'s order)

        self._gains = _Gains(truth, gains)
        self._judged_only = judged_only
        # the measures without their keyword parameters, which _Gains and -J stand for
        self._plain = {m: replace(m, options=()) for m in measures}
        self._fast = fast.Evaluator(self._gains, list(dict.fromkeys(self._plain.values())))

    def evaluate(self, ranked, qids):
        """``(labels, values)`` as :meth:`_Group.evaluate` gives them, of ``ranked`` (a
        table in trec_eval order)."""
        if self._judged_only:
            ranked = ranking.judged_only(ranked, self._gains.table)
        computed = self._fast.evaluate(ranked, qids)
        values = {}
        for measure, plain in self._plain.items():
            arrays = [array for _, _, array in computed[plain]]
            values.update(zip(engine_keys(measure, []), arrays, strict=True))
        return list(values), values


class Evaluator:
    """pytrec_eval evaluators over one qrels (one per relevance level, ``-J`` and gain
    map asked for), reused for every run of a call.

    ``truth`` provides ``as_dict`` (``{qid: {docno: rel}}``) and ``relevance_level``;
    ``settings`` holds ``judged_only`` (``-J``) and ``num_docs`` (``-N``).
    """

    before_judged_only = True  # trec_eval's code applies -J itself
    wants_table = True

    def __init__(self, truth, measures: list[Measure], settings: Settings):
        self.measures = measures
        self._groups: dict[tuple, list[Measure]] = {}
        # per measure, its parts (_level_parts) with the key of the group computing each
        self._parts: dict[Measure, list[tuple[tuple, Measure]]] = {}
        for measure in dict.fromkeys(measures):  # an equal measure twice: computed once
            rel = measure.option("rel")
            setting = (
                truth.relevance_level if rel is None else truth.level(rel),
                bool(settings.judged_only or measure.option("judged_only")),
                dict(measure.options).get("gains"),
            )
            for part in _level_parts(measure):
                # one evaluator takes one parameter string per family: nDCG beside
                # ndcg.1=0,2=1, or SetF beside SetF(beta=0.5), each take one of their own
                layer = 0
                while not _fits(self._groups.get((*setting, layer), []), part):
                    layer += 1
                self._groups.setdefault((*setting, layer), []).append(part)
                self._parts.setdefault(measure, []).append(((*setting, layer), part))
        self._truth = truth
        self._num_docs = settings.num_docs
        # trec_eval 10.0 (--compat 10.0): pytrec_eval gets the run ranked the 10.0 way; its
        # gain maps differ (see _as_10)
        self._ten = settings.version.integer_gain_names
        self._evaluators: dict[tuple, _Group | _GainMapped] = {}

    def _group(self, key) -> _Group | _GainMapped:
        if key not in self._evaluators:
            level, judged_only, gains, _ = key
            measures = self._groups[key]
            if gains is not None:  # nDCG's families alone take gains
                group = _GainMapped(self._truth, measures, dict(gains), judged_only)
            else:
                if self._ten:
                    measures = [_as_10(m) for m in measures]
                qrels = self._truth.as_dict
                group = _Group(qrels, measures, level, judged_only, self._num_docs)
            self._evaluators[key] = group
        return self._evaluators[key]

    def evaluate(self, ranked, qids: list[str]) -> dict[Measure, list[tuple]]:
        """Per measure, ``(label, display, values)`` for each of its values, ``values``
        aligned with ``qids`` (``ranked``: a table in trec_eval order, one block per
        topic)."""
        groups = {key: self._group(key) for key in self._groups}
        needed = any(isinstance(group, _Group) for group in groups.values())
        run_dict = ranked_to_dict(ranked, qids) if needed else None
        computed = {
            key: group.evaluate(ranked if isinstance(group, _GainMapped) else run_dict, qids)
            for key, group in groups.items()
        }
        out: dict[Measure, list[tuple]] = {}
        for measure, parts in self._parts.items():
            keys, arrays = [], []
            for key, part in parts:
                labels, values = computed[key]
                part_keys = engine_keys(part, labels)
                keys += part_keys
                arrays += [values[k] for k in part_keys]
            names = value_names(measure) or [(k, k) for k in keys]
            out[measure] = [
                (label, display, array)
                for (label, display), array in zip(names, arrays, strict=True)
            ]
        return out


def _topic_blocks(qids) -> list[tuple[str, int, int]]:
    """``(qid, start, end)`` of each block of equal qids in a table grouped by qid."""
    starts = ranking.topic_starts(qids)
    if not len(starts):  # no row left (-J dropped every document)
        return []
    ends = np.append(starts[1:], len(qids))
    heads = ranking.take_rows(qids, starts).to_pylist()
    return list(zip(heads, starts.tolist(), ends.tolist(), strict=True))


def ranked_to_dict(ranked, qids: list[str]) -> dict[str, dict[str, float]]:
    """``{qid: {docno: n - position}}`` for every qid (an empty dict if it lost all docs)."""
    docnos = ranked.column("docno").to_pylist()
    run_dict: dict[str, dict[str, float]] = {q: {} for q in qids}
    for qid, start, end in _topic_blocks(ranked.column("qid")):
        scores = np.arange(end - start, 0, -1, dtype=np.float64).tolist()
        run_dict[qid] = dict(zip(docnos[start:end], scores, strict=True))
    return run_dict


def qrels_to_dict(qrels) -> dict[str, dict[str, int]]:
    """``{qid: {docno: rel}}`` from a qrels table (any row order)."""
    table = qrels.sort_by([("qid", "ascending")])
    docnos = table.column("docno").to_pylist()
    rels = table.column("rel").to_pylist()
    return {
        qid: dict(zip(docnos[start:end], rels[start:end], strict=True))
        for qid, start, end in _topic_blocks(table.column("qid"))
    }


registry.register_engine(
    NAME,
    __name__,
    FAMILIES,
    supports=supports,
    description="trec_eval 9.0.8's own code (pytrec-eval-terrier): the reference",
)
