"""Evaluate runs against qrels, exactly as trec_eval 9.0.8 would.

:func:`evaluate` reads the qrels once, and for every run: ranks it once (trec_eval's policy,
:mod:`trecbench.ranking`), keeps the evaluated topics (run ∩ qrels), applies ``-M`` and
``-J``, hands each measure to its engine (:mod:`trecbench.engines`) and redoes trec_eval's
averaging (``-c``, geometric means, summed counts). The result, an :class:`Evaluation`,
keeps per-topic values, aggregates, the measures as requested, the options and the topics
worth a warning; rendering it is :mod:`trecbench.trec_format`'s job.
"""

from __future__ import annotations

import contextvars
import math
import os
import re
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from . import arrow, inputs, outputs, ranking
from .engines import FAST, assign, engine_module
from .engines import local as local_engine
from .errors import (
    DuplicateError,
    InputError,
    NoOverlapError,
    UnevaluableTopicError,
    UsageError,
)
from .measures import (
    FLOAT_CUTOFFS,
    GEOMETRIC,
    LOCAL,
    LONG_CUTOFFS,
    META,
    NUM_Q,
    NUM_REL,
    PYTREC_EVAL,
    RUNID,
    STRING,
    SUM,
    SUMMARY_ONLY,
    Measure,
    c_atof,
    display_name,
    param_label,
    parse_measures,
    presentation_order,
)

MIN_GEO_MEAN = 1e-5  # trec_eval's floor for geometric means (log(1e-5) per missing topic)


class ValidationFailed(InputError):
    """The validator found errors in an input; ``messages`` holds one line per finding."""

    def __init__(self, path: str, messages: list[str]):
        self.messages = messages
        InputError.__init__(self, path, None, "invalid input")
        self.args = ("\n".join(messages),)

    def __str__(self) -> str:
        return "\n".join(self.messages)


@dataclass(frozen=True)
class Column:
    """One reported value: its trec_eval label (``P_5``, ``recip_rank_cut_10``), display
    name (``P@5``, ``MRR@10``), the measure it belongs to and the engine that computed it."""

    label: str
    display: str
    measure: Measure
    engine: str

    @property
    def summary(self) -> str:
        """How it is summarised over topics (see :mod:`trecbench.measures`)."""
        return self.measure.summary

    @property
    def per_query(self) -> bool:
        """Whether it has a numeric per-topic value (trec_eval prints it with ``-q``)."""
        return self.summary not in SUMMARY_ONLY and self.summary != STRING


@dataclass(frozen=True)
class FlaggedTopic:
    """A topic worth a warning: ``reason`` is ``no_relevant``, ``negative_grades``,
    ``run_only`` or ``qrels_only``; ``message`` says what it does to the averages."""

    qid: str
    reason: str
    message: str
    run: str | None = None


@dataclass(repr=False)
class RunResult:
    """One run's results: evaluated topics (byte-wise order), per-topic values per label
    (geometric-mean measures hold logs, as trec_eval accumulates them), per-topic strings
    (``relstring``) and the summary line values; for a run read from a file, ``record``:
    its provenance (``size``, ``sha256``, ``lines``, ``topics``, ``run_tag``,
    ``run_tags``) taken as it was read (see :attr:`Evaluation.input_records`)."""

    name: str
    path: str | None
    runid: str
    qids: list[str]
    values: dict[str, np.ndarray]
    strings: dict[str, list[str]]
    summary: dict[str, Any]
    record: dict[str, Any] | None = None

    def __repr__(self) -> str:
        return f"RunResult(name={self.name!r}, runid={self.runid!r}, topics={len(self.qids)})"


@dataclass(repr=False)
class Evaluation:
    """Everything an evaluation computed; ``per_query`` and ``aggregates`` are tidy tables.

    ``measures`` are the measures as requested (each has ``requested``, ``canonical`` and
    ``provider``), ``columns`` the values they produced in printing order, ``flagged`` the
    topics worth a warning, ``warnings`` the validator's warnings, ``options`` the settings
    (trec_eval flags and local-measure options).
    """

    measures: list[Measure]
    columns: list[Column]
    runs: list[RunResult]
    options: dict[str, Any]
    qrels_path: str | None
    flagged: list[FlaggedTopic] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    qrels_record: dict[str, Any] | None = None

    @cached_property
    def per_query(self):
        """DataFrame ``run, qid, measure, value`` (measure = display name), topics in
        trec_eval's order, one row per topic and per-topic measure."""
        import pandas as pd

        columns = [c for c in self.columns if c.per_query]
        frames = []
        for run in self.runs:
            shown = [_shown(c, run.values[c.label]) for c in columns]
            matrix = np.column_stack(shown) if shown else np.empty((len(run.qids), 0))
            n, m = matrix.shape
            frames.append(
                pd.DataFrame(
                    {
                        "run": pd.array([run.name] * (n * m), dtype="string"),
                        "qid": pd.array(np.repeat(run.qids, m), dtype="string"),
                        "measure": pd.array([c.display for c in columns] * n, dtype="string"),
                        "value": matrix.reshape(-1),
                    }
                )
            )
        return pd.concat(frames, ignore_index=True)

    @cached_property
    def aggregates(self):
        """DataFrame ``run, measure, value``: the summary values (``runid`` left out)."""
        import pandas as pd

        rows = [
            (run.name, column.display, float(run.summary[column.label]))
            for run in self.runs
            for column in self.columns
            if column.summary not in (RUNID, STRING)
        ]
        frame = pd.DataFrame(rows, columns=["run", "measure", "value"])
        return frame.astype({"run": "string", "measure": "string"})

    def to_frame(self, per_query: bool = False):
        """A wide DataFrame, one column per measure (display names, in printing order):
        one row per run with the aggregates, or with ``per_query`` one row per
        ``(run, qid)``."""
        long = self.per_query if per_query else self.aggregates
        index = ["run", "qid"] if per_query else ["run"]
        measures = list(dict.fromkeys(long["measure"]))
        wide = long.pivot(index=index, columns="measure", values="value")
        runs = [run.name for run in self.runs]
        order = wide.index.get_level_values("run").map({name: i for i, name in enumerate(runs)})
        wide = wide.iloc[np.argsort(order, kind="stable")].reindex(columns=measures)
        wide.columns.name = None
        return wide

    def _describe(self) -> str:
        runs = _few([run.name for run in self.runs])
        measures = _few(list(dict.fromkeys(c.display for c in self.columns)))
        topics = {len(run.qids) for run in self.runs}
        about = f", topics={topics.pop()}" if len(topics) == 1 else ""
        return f"Evaluation(runs={runs}, measures={measures}{about})"

    def __repr__(self) -> str:
        return self._describe()

    def _repr_html_(self) -> str:
        """The aggregates as an HTML table, for notebooks."""
        from html import escape

        return f"<p><code>{escape(self._describe())}</code></p>" + self.to_frame().to_html(
            float_format=lambda value: f"{value:.4f}"
        )

    @property
    def input_paths(self) -> list[tuple[str, str]]:
        """``(path, kind)`` of every input read from a file."""
        paths = [(self.qrels_path, "qrels")] if self.qrels_path else []
        return paths + [(run.path, "run") for run in self.runs if run.path]

    @property
    def input_records(self) -> dict[tuple[str, str], dict[str, Any]]:
        """``(path, kind) -> record`` of every input read from a file, taken while it was
        parsed (the file is not read again for them): what
        :func:`trecbench.report.input_record` gives (``path``, ``kind``, ``size``,
        ``sha256``, ``lines``, ``topics``; for runs ``run_tag`` and ``run_tags``)."""
        records = {(self.qrels_path, "qrels"): self.qrels_record} if self.qrels_record else {}
        return records | {(run.path, "run"): run.record for run in self.runs if run.record}


def _few(names: list[str], shown: int = 6) -> str:
    """``['a', 'b', ...]`` with at most ``shown`` names and a count of the rest."""
    more = f", ... {len(names) - shown} more" if len(names) > shown else ""
    return "[" + ", ".join(map(repr, names[:shown])) + more + "]"


def _shown(column: Column, values: np.ndarray) -> np.ndarray:
    return np.exp(values) if column.summary == GEOMETRIC else values


# ---------------------------------------------------------------------------------------
# inputs


# Checked by evaluate itself with trec_eval's exact scope (duplicates: evaluated topics only,
# within the -M cut, exit 4) or reported as flagged topics (negative grades, no relevant).
_CHECKED_BY_SCORE = frozenset({"R7", "Q5", "Q6", "Q7"})


def _gate(tokens: inputs.trec_text.Tokens, kind: str) -> list[str]:
    """Run the validator's lenient profile: errors stop, warnings are returned as text."""
    try:
        from .validate import check_tokens
    except ImportError:  # the validator is optional for the engine
        return []
    findings = check_tokens(tokens, kind, profile="lenient", max_depth=None)
    findings = [f for f in findings if f.rule not in _CHECKED_BY_SCORE]
    errors = [f.format() for f in findings if f.severity == "error"]
    if errors:
        raise ValidationFailed(tokens.path, errors)
    return [f.format() for f in findings if f.severity == "warning"]


# ``progress(label, done, total)``: reading a file (bytes as stored; total None when not
# known in advance), scoring the runs (runs done of all)
Progress = Callable[[str, int, "int | None"], None]


def _reading(progress: Progress | None, source) -> inputs.streams.Progress | None:
    if progress is None or not isinstance(source, (str, os.PathLike)):
        return None
    label = f"reading {os.fspath(source)}"
    return lambda done, total: progress(label, done, total)


def _read_ahead(source, progress: Progress | None = None) -> Future | None:
    """Start :func:`load` of a run file in a worker thread (in this call's input scope)."""
    if not isinstance(source, (str, os.PathLike)):
        return None
    pool = ThreadPoolExecutor(max_workers=1)
    future = pool.submit(contextvars.copy_context().run, load, source, "run", None, progress)
    pool.shutdown(wait=False)
    return future


def load(
    source, kind: str, ahead: Future | None = None, progress: Progress | None = None
) -> inputs.Loaded:
    """A run or qrels of any input kind (see :mod:`trecbench.inputs`) as a typed table.

    TREC text files go through the validator's lenient profile first (when it is
    installed): a malformed file raises before anything is computed. Regular run files
    are read directly by :func:`trecbench.inputs.trec_text.read_regular_run` instead: on
    them the lenient gate can only find duplicates, which the ranking reports itself
    (exit 4, after -M, as trec_eval does); its warnings (ties, order) are
    `trecbench validate`'s job. ``ahead``: this call, started earlier (:func:`_read_ahead`).
    """
    if ahead is not None:
        loaded = ahead.result()
    else:
        loaded = inputs.load(source, kind, check=_gate, progress=_reading(progress, source))
    if loaded.table.num_rows == 0:
        raise InputError(loaded.origin, None, f"empty {kind}" + (" file" if loaded.path else ""))
    return loaded


class Qrels:
    """The qrels of one call, shared by every run (parsed once; per-topic facts, duplicates
    and dicts computed once)."""

    def __init__(self, table: pa.Table, path: str | None, relevance_level: int):
        self.table = table
        self.path = path or "<qrels>"
        self.relevance_level = relevance_level
        rel = table.column("rel")
        groups = arrow.Groups(table.column("qid"))
        facts = zip(
            groups.reduce(np.maximum, rel).tolist(),
            groups.reduce(np.minimum, rel).tolist(),
            groups.reduce(np.minimum, table.column("line")).tolist(),
            strict=True,
        )
        # per topic: (largest grade, smallest grade, first line)
        self.topics: dict[str, tuple[int, int, int]] = dict(
            zip(groups.keys.to_pylist(), facts, strict=True)
        )
        self.qids = sorted(self.topics)
        # every level above the largest grade means "nothing is relevant": the engines get
        # the smallest such level (pytrec_eval holds -l in 32 bits, numpy in 64)
        top = max((facts[0] for facts in self.topics.values()), default=0)
        self.engine_level = min(relevance_level, max(top, 0) + 1)
        # trec_eval's -c total for num_rel counts grades > 0, whatever -l says
        self.positive_judgments = int(pc.sum(pc.greater(rel, arrow.scalar(0))).as_py() or 0)
        self._duplicates = self._find_duplicates()

    def _find_duplicates(self) -> dict[str, tuple[str, int, int]]:
        qid, docno, line = (self.table.column(name) for name in ("qid", "docno", "line"))
        # ids never hold a tab: qid<TAB>docno is the judgment's key
        groups = arrow.Groups(pc.binary_join_element_wise(qid, docno, arrow.scalar("\t", qid.type)))
        first, last = groups.reduce(np.minimum, line), groups.reduce(np.maximum, line)
        dupes = np.flatnonzero(groups.counts > 1)
        rows = groups.first[dupes]
        qids = ranking.take_rows(qid, rows).to_pylist()
        docnos = ranking.take_rows(docno, rows).to_pylist()
        return {
            q: (d, int(a), int(b))
            for q, d, a, b in zip(qids, docnos, first[dupes], last[dupes], strict=True)
        }

    def check_duplicates(self, qids: list[str]) -> None:
        """Duplicate judgments are fatal for evaluated topics (trec_eval exit 4)."""
        for qid in qids:
            if qid in self._duplicates:
                docno, first, second = self._duplicates[qid]
                raise DuplicateError(
                    self.path,
                    second,
                    f"duplicate docs {docno} for topic {qid} (first on line {first})",
                    "Q-DUP",
                )

    def check_evaluable(self, qids: list[str]) -> None:
        """Refuse topics trec_eval 9.0.8 cannot evaluate (pytrec_eval would crash on them).

        trec_eval sizes a buffer by the topic's largest grade + 1: with every judgment
        negative it stops (``Can't calculate measure``, exit 4) when that topic is the first
        one evaluated, and for grades of -2 or less it crashes wherever the topic comes.
        """
        for position, qid in enumerate(qids):
            top, _, line = self.topics[qid]
            if top <= -2 or (position == 0 and top < 0):
                raise UnevaluableTopicError(
                    self.path,
                    line,
                    f"every judgment of topic {qid} is negative (largest grade {top}): "
                    "trec_eval 9.0.8 cannot evaluate it (exit 4 or a crash)",
                    "X5",
                )

    @cached_property
    def as_dict(self) -> dict:
        from .engines.pytrec_eval import qrels_to_dict

        return qrels_to_dict(self.table)

    @cached_property
    def frame(self):
        return inputs.to_pandas(self.table.select(["qid", "docno", "rel"]))

    def flagged(self) -> list[FlaggedTopic]:
        """Topics without a relevant document, and topics with negative grades."""
        level = self.relevance_level
        flags = []
        for qid in self.qids:
            top, bottom, _ = self.topics[qid]
            if top < level:
                flags.append(
                    FlaggedTopic(
                        qid,
                        "no_relevant",
                        f"topic {qid} has no relevant document (grade >= {level}): "
                        "it scores 0 on every measure and still counts in the averages",
                    )
                )
            if bottom < 0:
                flags.append(
                    FlaggedTopic(
                        qid,
                        "negative_grades",
                        f"topic {qid} has negative grades: those documents count as "
                        "unjudged (neither relevant nor judged non-relevant, not in num_rel)",
                    )
                )
        return flags


# ---------------------------------------------------------------------------------------
# evaluation


@outputs.in_input_scope
def evaluate(
    qrels: inputs.QrelsInput,
    runs: inputs.RunInput | Sequence[inputs.RunInput] | Mapping[str, inputs.RunInput],
    measures: str | Sequence[str] | None = None,
    *,
    relevance_level: int = 1,
    complete: bool = False,
    max_docs: int | None = None,
    judged_only: bool = False,
    num_docs: int | None = None,
    float32: bool = True,
    engine: str = "auto",
    run_names: Sequence[str] | None = None,
    options: Mapping[str, Any] | None = None,
    progress: Progress | None = None,
) -> Evaluation:
    """Evaluate one run or several against qrels, as trec_eval 9.0.8 does.

    ``qrels`` and each run are any input :mod:`trecbench.inputs` reads: paths (TREC text,
    plain or compressed, or Parquet), pandas DataFrames or Arrow tables with trec,
    ir_measures or ranx column names, ``{qid: {docno: value}}`` dicts, ir_measures'
    Qrel/ScoredDoc iterables, and for qrels an ir_datasets id (``irds:ID``). ``runs`` is
    one run, a list of runs or a dict ``{name: run}`` (``run_names`` names a list's
    runs; by default a run is named after its file, else ``run1``, ``run2``...).
    ``measures``: names in any spelling (see
    :func:`trecbench.measures.parse_measure`) or trec_eval nicknames; None means the KPI
    preset. trec_eval's flags: ``relevance_level`` (``-l``), ``complete`` (``-c``),
    ``max_docs`` (``-M``), ``judged_only`` (``-J``), ``num_docs`` (``-N``); ``float32``
    compares scores at float32 precision like 9.x. ``options`` go to local measures
    (``maxontsim_formula``, ``ontology``). ``progress(label, done, total)`` is told how
    reading files (bytes) and scoring runs advance.

    Raises :class:`trecbench.errors.InputError` for malformed input,
    :class:`~trecbench.errors.DuplicateError` for a document listed twice in an evaluated
    topic and :class:`~trecbench.errors.NoOverlapError` when a run shares no topic with
    the qrels.

    >>> result = evaluate("qrels.txt", "run.txt", ["nDCG@10", "P.5,10"])  # doctest: +SKIP
    >>> result.per_query.head()  # run, qid, measure, value               # doctest: +SKIP
    """
    sources, names = inputs.split_runs(runs)
    names = list(run_names) if run_names else names
    # Arrow's threads read the first run while measures and qrels are prepared
    ahead = _read_ahead(sources[0], progress) if sources else None
    requested = parse_measures(measures)
    ordered = presentation_order(requested)
    settings = {
        "relevance_level": relevance_level,
        "complete": complete,
        "max_docs": max_docs,
        "judged_only": judged_only,
        "num_docs": num_docs,
        "float32": float32,
        "engine": engine,
        **(options or {}),
    }
    if relevance_level < 1:
        # refused for every measure, so that the answer never depends on the engine chosen
        raise UsageError(
            f"-l {relevance_level}: levels below 1 are not supported (pytrec_eval, which "
            "computes trec_eval's measures, refuses them)"
        )
    if num_docs is not None and not -(2**63) <= num_docs < 2**63:
        raise UsageError(f"-N {num_docs}: beyond trec_eval's 64-bit count (+-{2**63 - 1:,})")
    loaded_qrels = load(qrels, "qrels", progress=progress)
    warnings = list(loaded_qrels.warnings)
    qrels_path = loaded_qrels.path
    truth = Qrels(loaded_qrels.table, qrels_path or loaded_qrels.origin, relevance_level)
    engines = assign(ordered, engine)
    if max_docs is not None and max_docs < 1:
        # trec_eval would evaluate empty rankings, which pytrec_eval cannot (it crashes)
        raise UsageError(f"-M must be at least 1, got {max_docs}")
    engine_settings = {**settings, "relevance_level": truth.engine_level}
    evaluator = _PytrecPlan(ordered, engines, truth, num_docs, judged_only)
    fast = _FastPlan(ordered, engines, truth)
    results, columns, flagged = [], None, truth.flagged()
    if progress is not None:
        progress("scoring", 0, len(sources))
    for index, source in enumerate(sources):
        run = load(source, "run", ahead if index == 0 else None, progress)
        warnings += run.warnings
        name = names[index] if names else run.path or f"run{index + 1}"
        result, run_columns, run_flags = _evaluate_run(
            run.table, name, run.path, truth, ordered, engines, evaluator, fast, engine_settings
        )
        result.record = run.record
        results.append(result)
        flagged += run_flags
        columns = columns or run_columns
        if progress is not None:
            progress("scoring", index + 1, len(sources))
    return Evaluation(
        requested,
        columns or [],
        results,
        settings,
        qrels_path,
        flagged,
        warnings,
        loaded_qrels.record,
    )


class _PytrecPlan:
    """The pytrec_eval part of an evaluation: one evaluator, built on first use."""

    def __init__(self, measures, engines, truth: Qrels, num_docs: int | None, judged_only: bool):
        self.measures = [m for m in measures if engines[m] == PYTREC_EVAL]
        self.truth = truth
        self.num_docs = num_docs
        self.judged_only = judged_only
        self.utility = [m for m in self.measures if m.family == "utility"]
        self._evaluator = None

    def evaluate(self, ranked: pa.Table, qids: list[str]):
        if not self.measures:
            return [], {}
        if self._evaluator is None:
            module = engine_module(PYTREC_EVAL)
            wanted = list(self.measures)
            if self.num_docs and self.utility:
                # -N enters utility only: recompute it from the counts (see _utility)
                wanted += [Measure(n, None, PYTREC_EVAL) for n in _UTILITY_COUNTS]
            self._evaluator = module.Evaluator(
                self.truth.as_dict, wanted, self.truth.engine_level, self.judged_only
            )
        labels, values = self._evaluator.evaluate(ranked, qids)
        if self.num_docs and self.utility:
            for measure in self.utility:
                values[measure.family] = _utility(measure, values, self.num_docs)
        return labels, values


_UTILITY_COUNTS = ("num_ret", "num_rel", "num_rel_ret")


class _FastPlan:
    """The fast engine's part of an evaluation (see :mod:`trecbench.engines.fast`)."""

    def __init__(self, measures, engines, truth: Qrels):
        self.measures = [m for m in measures if engines[m] == FAST]
        self.truth = truth
        self.module = engine_module(FAST) if self.measures else None
        self._evaluator = None

    def labels_of(self, measure: Measure) -> list[str]:
        return [self.module.label(r) for r in self.module.requests_for(measure)]

    def evaluate(self, ranked: pa.Table, qids: list[str]) -> dict[str, np.ndarray]:
        if not self.measures:
            return {}
        if self._evaluator is None:
            self._evaluator = self.module.Evaluator(
                self.truth.table, self.measures, self.truth.engine_level
            )
        return self._evaluator.evaluate(ranked, qids)[1]


def _utility(measure: Measure, values: dict[str, np.ndarray], num_docs: int) -> np.ndarray:
    """trec_eval's utility with ``-N``, in its exact operation order (m_utility.c)."""
    p = [c_atof(x) for x in (measure.params or "1,-1,0,0").split(",")]
    ret, rel, rel_ret = (values[n].astype(np.int64) for n in _UTILITY_COUNTS)
    rest = (num_docs + rel_ret - ret - rel).astype(np.float64)
    return p[0] * rel_ret + p[1] * (ret - rel_ret) + p[2] * (rel - rel_ret) + p[3] * rest


FLOAT_LABEL = re.compile(r"-?[0-9]+\.[0-9]+")


def _labels_of(measure: Measure, engine_labels: list[str]) -> list[str]:
    """The engine labels (pytrec_eval keys) that belong to one measure, in engine order."""
    kind = measure.info.params
    if kind == LONG_CUTOFFS:
        return [f"{measure.family}_{k}" for k in measure.cutoffs]
    if kind == FLOAT_CUTOFFS:
        # trec_eval labels each cutoff "%.2f", negative ones too (Rprec_mult_-1.00)
        prefix = measure.family + "_"
        return [
            label
            for label in engine_labels
            if label.startswith(prefix) and FLOAT_LABEL.fullmatch(label[len(prefix) :])
        ]
    return [measure.family]


def _evaluate_run(table, name, path, truth: Qrels, measures, engines, pytrec, fast, settings):
    runid = table.column("tag")[table.num_rows - 1].as_py() if table.num_rows else ""
    order = ranking.order_run(table, float32=settings["float32"])
    run_qids = order.qids.to_pylist()
    qids = sorted(q for q in run_qids if q in truth.topics)
    if not qids:
        raise NoOverlapError(
            f"{path or name}: No queries with both results and relevance info "
            "(no topic of the run is in the qrels)"
        )
    flags = _topic_flags(name, run_qids, truth.qids, qids, settings["complete"])
    ranked_run = ranking.RankedRun(table, order, qids, settings["max_docs"])
    truth.check_duplicates(qids)
    truth.check_evaluable(qids)
    duplicates = ranked_run.check_duplicates_in_background(path or name)
    # rows are moved into trec_eval order only for engines that need a table
    table_needed = settings["judged_only"] or any(engines[m] not in (FAST, META) for m in measures)
    ranked = ranked_run.table() if table_needed else ranked_run

    columns: list[Column] = []
    values: dict[str, np.ndarray] = {}
    strings: dict[str, list[str]] = {}
    engine_labels, engine_values = pytrec.evaluate(ranked, qids)  # applies -J itself
    if settings["judged_only"]:
        ranked = ranking.judged_only(ranked, _same_id_types(truth.table, ranked))
    fast_values = fast.evaluate(ranked, qids)
    frame = None
    seen: set[str] = set()
    for measure in measures:
        engine = engines[measure]
        if engine == META:
            columns.append(Column(measure.family, measure.family, measure, engine))
            continue
        if engine == FAST:
            for label in fast.labels_of(measure):
                display = display_name(label)
                if measure.provider == LOCAL:
                    display = f"{local_engine.lookup(measure.family).display}@{measure.k}"
                columns.append(Column(label, display, measure, engine))
                values[label] = fast_values[label]
            continue
        if engine == PYTREC_EVAL:
            for label in _labels_of(measure, engine_labels):
                shown = param_label(measure, label)
                columns.append(Column(shown, display_name(shown), measure, engine))
                values[shown] = engine_values[label]
            continue
        if frame is None:
            frame = _ranked_frame(ranked)
        if measure.family == "relstring":
            length = int(c_atof(measure.params)) if measure.params else 10
            label = param_label(measure, "relstring")
            column = local_engine.relstring(frame, truth.frame, length)
            strings[label] = column.reindex(qids, fill_value="").tolist()
            columns.append(Column(label, label, measure, engine))
            continue
        entry = local_engine.lookup(measure.family)
        series = entry.compute(frame, truth.frame, measure.k, settings)
        label = f"{entry.trec_name}_{measure.k}"
        columns.append(Column(label, f"{entry.display}@{measure.k}", measure, engine))
        values[label] = series.reindex(qids, fill_value=0.0).to_numpy(dtype=np.float64)
    unique = []
    for column in columns:  # two spellings of one value (success.10, HitRate@10): first wins
        if column.display not in seen:
            seen.add(column.display)
            unique.append(column)
    duplicates.result()  # a run listing a document twice is an error (exit 4)
    summary = {
        c.label: _summarise(c, values.get(c.label), len(qids), truth, settings, runid)
        for c in unique
    }
    result = RunResult(name, path, runid, qids, values, strings, summary)
    return result, unique, flags


def _same_id_types(table: pa.Table, like: pa.Table) -> pa.Table:
    """``table`` with qid/docno cast to ``like``'s string types (string vs large_string
    depends on how a file was tokenized), so the two can be joined."""
    for name in ("qid", "docno"):
        wanted = like.schema.field(name).type
        if table.schema.field(name).type != wanted:
            index = table.column_names.index(name)
            table = table.set_column(index, name, pc.cast(table.column(name), wanted))
    return table


def _ranked_frame(ranked: pa.Table):
    return inputs.to_pandas(ranked.select(["qid", "docno", "score", "rank"]))


def _summarise(column: Column, values, n_evaluated: int, truth: Qrels, settings, runid):
    """trec_eval's summary value: sequential sums (its accumulation order), ``-c`` rules."""
    kind = column.summary
    complete = settings["complete"]
    denominator = len(truth.qids) if complete else n_evaluated
    if kind == RUNID:
        return runid
    if kind == NUM_Q:
        return denominator
    if kind == STRING:
        return None
    total = float(np.cumsum(values)[-1]) if len(values) else 0.0
    if kind == NUM_REL and complete:
        return truth.positive_judgments
    if kind in (SUM, NUM_REL):
        return int(total)
    if kind == GEOMETRIC:
        total += (denominator - n_evaluated) * math.log(MIN_GEO_MEAN)
        return math.exp(total / denominator)
    return total / denominator  # MEAN


def _topic_flags(name, run_qids, qrels_qids, evaluated, complete) -> list[FlaggedTopic]:
    evaluated_set = set(evaluated)
    flags = [
        FlaggedTopic(
            qid,
            "run_only",
            f"{name}: topic {qid} is not in the qrels: ignored (with or without -c)",
            name,
        )
        for qid in sorted(set(run_qids) - evaluated_set)
    ]
    effect = (
        "counts as 0 in every average (-c)"
        if complete
        else "ignored; with -c it would count as 0 in every average"
    )
    flags += [
        FlaggedTopic(qid, "qrels_only", f"{name}: topic {qid} is not in the run: {effect}", name)
        for qid in qrels_qids
        if qid not in evaluated_set
    ]
    return flags
