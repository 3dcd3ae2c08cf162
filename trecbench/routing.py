"""Mixture-of-experts metrics of the RAG retrieval specification (RETRIEVAL-METRICS-001, §4).

A **routing log** has one JSON object per line and query::

    {"qid": "q1", "chosen_expert": "lexical", "optimal_expert": "vector",
     "retrieval_ran": true, "should_retrieve": true}

``qid`` is a string (ids are never inferred from numbers); the experts are strings or
``null`` (no expert chosen, or none is optimal: a query that needs no retrieval); the two
gate fields are booleans. Other keys are allowed and ignored; a qid may appear only once.

* **Routing accuracy** (§4.1) = (1/|Q|) Σ I(chosen_q = optimal_q) over the queries that have
  an optimal expert (a query without one cannot be routed right or wrong; a ``null``
  choice for a query that has one is wrong).
* **Gate efficiency** (§4.2) = retrievals saved / all queries × 100%, where a retrieval is
  saved when it did not run and should not have. The counts beside it tell the rest:
  ``missed`` (skipped, but it should have run) and ``unneeded`` (ran, but need not have).
* **Reranking improvement** (§4.3) = (nDCG_reranked − nDCG_baseline) / nDCG_baseline × 100%
  (:func:`reranking_improvement`; undefined when the baseline is 0).

Both rates come with bootstrap percentile intervals over queries from
:func:`trecbench.stats.bootstrap_ci` (seeded; recorded in ``settings``), the queries taken
in their qids' byte-wise order (as ``compare`` takes topics), not the log's line order.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import sources
from .errors import InputError, UsageError, excerpt
from .escaping import escape_text
from .plurals import counted, first_few
from .renderers.routing import render_routing  # where callers have found it

__all__ = [
    "FIELDS",
    "RoutingLog",
    "coverage",
    "parse_routing_log",
    "read_routing_log",
    "render_routing",
    "reranking_improvement",
    "routing_metrics",
]

FIELDS = ("qid", "chosen_expert", "optimal_expert", "retrieval_ran", "should_retrieve")


@dataclass
class RoutingLog:
    """A routing log: one entry per query, in file order."""

    path: str | None
    qids: list[str]
    chosen: list[str | None]
    optimal: list[str | None]
    retrieval_ran: np.ndarray
    should_retrieve: np.ndarray

    def __len__(self) -> int:
        return len(self.qids)


def _field(record: dict, name: str, kind, where: tuple[str, int]):
    if name not in record:
        raise InputError(*where, f"missing {name!r} (a routing log line has {', '.join(FIELDS)})")
    value = record[name]
    if kind is bool:
        if not isinstance(value, bool):
            raise InputError(*where, f"{name} must be true or false, not {json.dumps(value)}")
        return value
    if value is None and name != "qid":
        return None
    if not isinstance(value, str) or not value:
        what = "a non-empty string" if name == "qid" else "a non-empty string or null"
        raise InputError(*where, f"{name} must be {what}, not {json.dumps(value)}")
    return value


def parse_routing_log(text: str, path: str = "<routing log>") -> RoutingLog:
    """A routing log from its JSON-lines text (see the module docstring); a malformed line
    raises :class:`~trecbench.errors.InputError` with its line number."""
    return _routing_log(sources.parse_jsonl(text, path, _BLANK), path)


def read_routing_log(path: str | os.PathLike) -> RoutingLog:
    """Read a routing log file (UTF-8 JSON lines, plain or compressed: see
    :func:`trecbench.sources.read_jsonl`; its size and checksum are recorded)."""
    parsed = sources.read_jsonl(path, "routing log", _BLANK)
    return _routing_log(parsed.records, parsed.path)


_BLANK = "blank line (one JSON object per line)"


def _routing_log(records: list[tuple[int, Any]], path: str) -> RoutingLog:
    """The log of ``records`` (``(line number, value)`` of every line): a value that is no
    object, a bad field or a qid seen before raises
    :class:`~trecbench.errors.InputError` with its line number."""
    entries: list[tuple] = []
    seen: dict[str, int] = {}
    for number, record in records:
        if not isinstance(record, dict):
            raise InputError(path, number, "expected a JSON object")
        where = (path, number)
        qid = _field(record, "qid", str, where)
        if qid in seen:
            raise InputError(path, number, f"qid {qid!r} again (first on line {seen[qid]})")
        seen[qid] = number
        entries.append(
            (
                qid,
                _field(record, "chosen_expert", str, where),
                _field(record, "optimal_expert", str, where),
                _field(record, "retrieval_ran", bool, where),
                _field(record, "should_retrieve", bool, where),
            )
        )
    if not entries:
        raise InputError(path, None, "empty routing log")
    qids, chosen, optimal, ran, should = zip(*entries, strict=True)
    return RoutingLog(
        path, list(qids), list(chosen), list(optimal), np.array(ran), np.array(should)
    )


def _rate(hits: np.ndarray, samples: int, confidence: float, seed: int, scale: float) -> dict:
    """Mean of 0/1 outcomes with its bootstrap percentile interval, times ``scale``; the
    interval None over fewer than 2 queries (every resample of one query is that query:
    an interval of no width, which compare refuses for one topic too)."""
    if len(hits) < 2:
        value = float(hits[0]) * scale if len(hits) else None
        return {"value": value, "ci_low": None, "ci_high": None, "queries": int(len(hits))}
    from .stats import bootstrap_ci

    mean, low, high = bootstrap_ci(hits.astype(np.float64), samples, confidence, seed)
    return {
        "value": float(mean[0]) * scale,
        "ci_low": float(low[0]) * scale,
        "ci_high": float(high[0]) * scale,
        "queries": int(len(hits)),
    }


def coverage(log: RoutingLog, topics: Sequence[str]) -> str | None:
    """What a routing log and the judged ``topics`` do not share, as a warning (None when
    the log has an entry for each topic and none more): its rates are over the log's
    queries, not the topics scored beside them. Neither is an error: a query that needs no
    retrieval may have no judgments, and a log may cover a sample."""
    logged, judged = set(log.qids), set(topics)
    # each id quoted as Python writes it (repr: a line break as \n, "a, b" in its quotes),
    # only those shown
    missing = [qid for qid in topics if qid not in logged]
    unknown = [qid for qid in log.qids if qid not in judged]
    if not missing and not unknown:
        return None
    parts = []
    if missing:
        some = f"{len(missing)} of the {counted(len(judged), 'judged topic')}"
        parts.append(f"no entry for {some} ({first_few(missing, shown=excerpt)})")
    if unknown:
        which = "a query" if len(unknown) == 1 else "queries"
        entries = counted(len(unknown), "entry", "entries")
        parts.append(
            f"{entries} for {which} the qrels do not judge ({first_few(unknown, shown=excerpt)})"
        )
    return (
        f"{escape_text(log.path)}: the routing log has {'; '.join(parts)}: its rates are over its "
        "entries, not the judged topics"
    )


def routing_metrics(
    log: RoutingLog | str | os.PathLike,
    *,
    samples: int = 10_000,
    seed: int = 0,
    confidence: float = 0.95,
) -> dict:
    """Routing accuracy (a share) and gate efficiency (a percentage) of a routing ``log``
    (a :class:`RoutingLog` or the path of its JSON lines), each with a bootstrap
    percentile interval at ``confidence`` (``samples`` resamples, drawn from ``seed``) over
    queries (resampled in the qids' byte-wise
    order, whatever the order of the log's lines), plus the gate's counts. What the log
    and the judged topics do not share is :func:`coverage`'s to say.

    Returns a JSON-ready dict (the ``routing`` section of EvaluationReport and
    BenchmarkReport): ``queries``, ``routing_accuracy`` and ``gate_efficiency`` (``value``,
    ``ci_low``, ``ci_high``, ``queries``: how many the rate is over), ``gate`` (``saved``,
    ``missed``, ``unneeded``, ``ran``), ``experts`` (how often each was chosen / optimal),
    ``settings``.
    """
    from .resampling_bounds import confidence_refusal, seed_refusal
    from .stats import refuse_interval

    # compare's bounds and words: "0.9" was a TypeError from the resampling, 2 and nan
    # a bare ValueError
    refusal = confidence_refusal(confidence)
    if refusal is not None:
        raise UsageError(refusal)
    refuse_interval(samples, confidence)  # also where no rate has an interval
    refusal = seed_refusal(seed)  # -1 was numpy's ValueError, 1.5 and True read 1
    if refusal is not None:
        raise UsageError(refusal)
    if not isinstance(log, RoutingLog):
        log = read_routing_log(log)
    # the queries in trec_eval's byte-wise order of qids (Python's order of str: code
    # points, UTF-8's byte order), as compare orders topics: a resample draws positions,
    # so the intervals then depend on the log's entries, not on the order of its lines
    by_qid = sorted(range(len(log)), key=log.qids.__getitem__)
    routed = [i for i in by_qid if log.optimal[i] is not None]
    correct = np.array([log.chosen[i] == log.optimal[i] for i in routed], dtype=bool)
    ran, should = log.retrieval_ran[by_qid], log.should_retrieve[by_qid]
    saved = ~ran & ~should

    def counts(experts) -> dict[str, int]:
        named = [e for e in experts if e is not None]
        return {e: named.count(e) for e in sorted(set(named))}

    return {
        "log": log.path,
        "queries": len(log),
        "routing_accuracy": _rate(correct, samples, confidence, seed, 1.0),
        "gate_efficiency": _rate(saved, samples, confidence, seed, 100.0),
        "gate": {
            "saved": int(saved.sum()),
            "missed": int((~ran & should).sum()),
            "unneeded": int((ran & ~should).sum()),
            "ran": int(ran.sum()),
        },
        "experts": {"chosen": counts(log.chosen), "optimal": counts(log.optimal)},
        "settings": {
            "samples": int(samples),
            "seed": int(seed),
            "confidence": float(confidence),
            "interval": "bootstrap percentile",
        },
    }


def reranking_improvement(baseline: float, reranked: float) -> float | None:
    """(reranked − baseline) / baseline × 100 (percent); None when ``baseline`` is 0."""
    if baseline == 0 or not (math.isfinite(baseline) and math.isfinite(reranked)):
        return None
    return (reranked - baseline) / baseline * 100
