"""The reference engine: trec_eval 9.0.8's own code, through pytrec-eval-terrier.

The raw ``pytrec_eval_ext.RelevanceEvaluator`` accepts every trec_eval parameter string
(``P.5,10``, ``iprec_at_recall..10``, ``ndcg.1=3,2=9``); the Python wrapper's measure
rewriting does not, so it is bypassed. pytrec_eval sorts documents itself, so the scores
handed to it encode the order :func:`trecbench.ranking.rank_run` decided (``n - position``,
strictly decreasing, exact in float32): its sort can only reproduce that order.
"""

from __future__ import annotations

from functools import partial

import numpy as np

from .. import ranking
from ..measures import LONG_CUTOFFS, PYTREC_EVAL, Measure, MeasureParameterError

NAME = PYTREC_EVAL
PAIR_SEPARATOR = "="  # name=value pairs of a gain map: ndcg.1=3,2=9


def supports(measure: Measure) -> bool:
    """pytrec_eval computes trec_eval's numeric measures (not runid, num_q, relstring)."""
    return measure.provider == PYTREC_EVAL


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
        elif group[0].info.params == LONG_CUTOFFS:
            cutoffs = sorted({k for m in group for k in m.cutoffs})
            strings[family] = f"{family}.{','.join(map(str, cutoffs))}"
        else:
            raise MeasureParameterError(
                f"{family}: conflicting parameters {sorted(p or '' for p in params)}"
            )
    return strings


class Evaluator:
    """A pytrec_eval evaluator over one qrels, reused for every run of a call.

    Not reused when a measure has a gain map (``ndcg.1=3,2=9``): trec_eval parses
    parameters in place, cutting the string at every ``,`` and ``=``, and pytrec_eval puts
    back only the commas before its next evaluation. A second run would then see
    ``ndcg.1,3,2,9``, which trec_eval rejects with an error that pytrec_eval ignores, and
    the process dies (exit 139). A fresh evaluator parses a fresh copy of the string.
    """

    def __init__(
        self,
        qrels_dict: dict,
        measures: list[Measure],
        relevance_level: int = 1,
        judged_only: bool = False,
    ):
        from pytrec_eval_ext import RelevanceEvaluator

        self.measures = measures
        strings = set(measure_strings(measures).values())
        # -J is left to trec_eval's code: pytrec_eval miscounts topics handed to it empty
        self._new = partial(RelevanceEvaluator, qrels_dict, strings, relevance_level, judged_only)
        self._reusable = not any(PAIR_SEPARATOR in string for string in strings)
        self._evaluator = self._new()

    def evaluate(self, ranked, qids: list[str]) -> tuple[list[str], dict[str, np.ndarray]]:
        """Per-topic values for ``qids`` of a ranked table (trec_eval order, one topic block
        after another). Returns the engine's value labels in trec_eval's order and, per
        label, an array aligned with ``qids``."""
        run_dict = ranked_to_dict(ranked, qids)
        if self._evaluator is None:
            self._evaluator = self._new()
        result = self._evaluator.evaluate(run_dict)
        if not self._reusable:
            self._evaluator = None  # its parameter strings are spent
        first = result[qids[0]]
        labels = list(first)
        values = {
            label: np.fromiter((result[q][label] for q in qids), float, len(qids))
            for label in labels
        }
        return labels, values


def _topic_blocks(qids) -> list[tuple[str, int, int]]:
    """``(qid, start, end)`` of each block of equal qids in a table grouped by qid."""
    starts = ranking.topic_starts(qids)
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
