"""What an evaluation gives: per run its per-topic values and summary
(:class:`RunResult`), per call the columns, flagged topics and tidy tables
(:class:`Evaluation`); documents without judgment: :mod:`.unjudged`."""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import tiebounds
from ..callers import outside_trecbench
from ..errors import PerTopicWarning, UsageError
from ..measures import GEOMETRIC, NUM_REL, RUNID, STRING, Measure, trec_label
from ..plurals import few_reprs
from ..type_names import flag_from
from .settings import EvalSettings
from .unjudged import UNJUDGED_THRESHOLD, Unjudged

if TYPE_CHECKING:
    from .bounds import HighEnd
    from .drill import DrillDown

LABELS = ("asked", "display", "trec")


@dataclass(frozen=True)
class Column:
    """One reported value: its label (``P_5``, ``recip_rank_cut_10``: trec_eval's, but
    for a float level trec_eval's ``%3.2f`` does not spell in full, which two levels may
    share: ``iprec_at_recall_0.3015``, printed as :attr:`trec_label` says), display
    name (``P@5``, ``MRR@10``), the measure it belongs to, the engine that computed it and
    the name the user ``asked`` it by (the measure as spelled, when it gives this one value;
    its display name among several, as ``recall.10,100``'s). The label keys its values:
    no two columns of an evaluation share one."""

    label: str
    display: str
    measure: Measure
    engine: str
    asked: str = ""
    also: tuple[str, ...] = ()  # other spellings of it asked in the same call
    # where each of its names (asked, *also) was asked among the call's: the printing order
    # of a measure's spellings outside trec_eval's order (Evaluation.labelled)
    at: tuple[float, ...] = ()

    def name(self, labels: str = "asked") -> str:
        """Its name under ``labels``: ``asked``, ``display`` or ``trec`` (trec_eval's, as
        :attr:`label` spells it: in full where trec_eval's ``%3.2f`` would give two
        columns one name; trec text prints :attr:`trec_label`)."""
        if labels == "trec":  # asked once per printed line: no dict built per call
            return self.label
        if labels == "display":
            return self.display
        if labels == "asked":
            return self.asked or self.display
        raise UsageError(f"labels must be one of {', '.join(LABELS)}, not {labels!r}")

    def names(self, labels: str = "asked") -> tuple[str, ...]:
        """Every name it is shown under: with ``asked`` each spelling asked of it in the
        call (``-m ndcg_cut.10 -m nDCG@10``: one value, two names), else its :meth:`name`."""
        first = self.name(labels)
        return (first, *self.also) if labels == "asked" else (first,)

    @cached_property
    def trec_label(self) -> str:
        """What trec_eval prints for it (``iprec_at_recall_0.30`` for the level 0.3015)."""
        return trec_label(self.measure, self.label)

    @cached_property
    def summary(self) -> str:
        """How it is summarised over topics (see :mod:`trecbench.measures`). Kept: asked
        for every line printed (``-q`` on 7,000 topics: 170,000 registry look-ups)."""
        return self.measure.summary

    @cached_property
    def per_query(self) -> bool:
        """Whether it has a numeric per-topic value (trec_eval prints it with ``-q``; its
        registry entry gives no reason why not)."""
        return self.measure.definition.no_topic_number is None


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
    ``run_tags``) taken as it was read (see :attr:`Evaluation.input_records`).
    ``unjudged``: its documents without judgment; ``tie_bounds``: its
    :class:`~trecbench.tiebounds.TieBounds` when asked for. With ``-D``, ``traces`` holds
    what trec_eval prints while it computes each topic (before the topic's lines). A run
    trec_eval stops in (exit 4) is ``complete=False``: its topics are those printed before
    it stopped, and ``trailing`` what it printed of the topic it stopped at.
    ``drill_down``: what a report's drill-down shows of it, kept when asked
    (:attr:`EvalSettings.drill_depth`); ``unjudged_high``: its values with its unjudged
    documents judged relevant, kept when asked (:attr:`EvalSettings.unjudged_bounds`)."""

    name: str
    path: str | None
    runid: str
    qids: list[str]
    values: dict[str, np.ndarray]
    strings: dict[str, list[str]]
    summary: dict[str, Any]
    record: dict[str, Any] | None = None
    unjudged: Unjudged | None = None
    tie_bounds: tiebounds.TieBounds | None = None
    traces: list[str] | None = None
    complete: bool = True
    trailing: str = ""
    drill_down: DrillDown | None = None
    unjudged_high: HighEnd | None = None
    # a run read from several files (a Dask glob): each file, and the records of those
    # its workers took (path, size, sha256, counts) as they read them
    files: list[str] | None = None
    file_records: list[dict] | None = None

    def __repr__(self) -> str:
        return f"RunResult(name={self.name!r}, runid={self.runid!r}, topics={len(self.qids)})"


@dataclass(repr=False)
class Evaluation:
    """Everything an evaluation computed; ``per_query`` and ``aggregates`` are tidy tables.

    ``measures`` are the measures as requested (each has ``requested``, ``canonical`` and
    ``provider``), ``columns`` the values they produced in printing order, ``flagged`` the
    topics worth a warning, ``warnings`` the validator's warnings, ``settings`` how it was
    computed (:class:`~trecbench.evaluation.settings.EvalSettings`; ``options`` shows them
    by name, as the JSON outputs do)."""

    measures: list[Measure]
    columns: list[Column]
    runs: list[RunResult]
    settings: EvalSettings
    qrels_path: str | None
    flagged: list[FlaggedTopic] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    qrels_record: dict[str, Any] | None = None
    qrels_topics: list[str] = field(default_factory=list)
    # per level a num_rel measure counts at, Qrels.relevant_counts
    relevant_counts: dict[int, dict[str, int]] = field(default_factory=dict)

    @cached_property
    def options(self) -> dict[str, Any]:
        """The settings by name (trec_eval flags, local-measure options): what outputs record."""
        return self.settings.to_json()

    @property
    def input_warnings(self) -> tuple[str, ...]:
        """What the validation gate warned of the qrels and runs (its ``warnings``), by
        the name every API result gives them (:func:`trecbench.input_warnings.carried`)."""
        return tuple(dict.fromkeys(self.warnings))  # a file read twice: its lines once

    @cached_property
    def ontology(self) -> dict[str, Any]:
        """Provenance of the ontology MaxOntSim measures use with these settings
        (``release``, ``source``, ``sha256``, ... and the ``formula``), for reports."""
        from ..engines.maxontsim import ontology_info

        return ontology_info(self.settings.ontology, self.settings.maxontsim_formula)

    @property
    def ontology_record(self) -> dict[str, Any] | None:
        """:attr:`ontology` where a MaxOntSim measure was computed, else None: the record
        every output of the evaluation holds (``--report``, ``--format json``, the pages),
        built here once for all of them."""
        if not any(measure.family == "MaxOntSim" for measure in self.measures):
            return None
        return self.ontology

    def unjudged_runs(self, threshold: float = UNJUDGED_THRESHOLD) -> list[RunResult]:
        """Runs that look scored against qrels not their own (:meth:`Unjudged.flagged`);
        :func:`trecbench.strata.doubted` leaves out those whose qrels a sidecar vouches for."""
        return [run for run in self.runs if run.unjudged and run.unjudged.flagged(threshold)]

    @property
    def tie_bounds(self):
        """DataFrame ``run, measure, value, low, high, position, tied_topics, reason``:
        per run and summary value (display names), a copy of :attr:`tie_bounds_values`, as
        the other frames are (a caller's change to it is its own). Needs
        ``evaluate(..., tie_bounds=True)``."""
        return self.tie_bounds_values.copy()

    @cached_property
    def tie_bounds_values(self):
        """DataFrame ``run, measure, value, low, high, position, tied_topics, reason``:
        per run and summary value (display names), the lowest and highest value over all
        orders of tied documents and where the reported value sits (see
        :mod:`trecbench.tiebounds`); ``reason`` says why a measure has no bounds. Needs
        ``evaluate(..., tie_bounds=True)``."""
        import pandas as pd

        rows = []
        for run in self.runs:
            bounds = run.tie_bounds
            if bounds is None:
                raise UsageError("tie bounds were not computed: evaluate(..., tie_bounds=True)")
            for column in self.columns:
                value = run.summary.get(column.label)
                if value is None or isinstance(value, str):
                    continue
                low = bounds.summary_low.get(column.label, math.nan)
                high = bounds.summary_high.get(column.label, math.nan)
                reason = bounds.unbounded.get(column.label)
                place = None if reason else tiebounds.position(float(value), low, high)
                rows.append(
                    (run.name, column.display, float(value), low, high, place,
                     bounds.tied_topics, reason)
                )  # fmt: skip
        columns = ["run", "measure", "value", "low", "high", "position", "tied_topics", "reason"]
        return pd.DataFrame(rows, columns=columns)

    @property
    def per_query(self):
        """DataFrame ``run, qid, measure, value`` (measure = display name), topics in
        trec_eval's order, a row per topic and per-topic measure; an asked measure left out
        (runid, relstring, gm_map, num_q) is said in a PerTopicWarning (as to_frame's)."""
        self._say_left_out("per_query", per_topic=True)
        return self.per_query_values.copy()  # the caller's to change: not the views' own

    @cached_property
    def per_query_values(self):
        """:attr:`per_query` without its warning (trecbench's own views and tables)."""
        import pandas as pd

        columns = [c for c in self.columns if c.per_query]
        frames = []
        for run in self.runs:
            matrix = self.per_query_matrix(run)
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

    def per_query_matrix(self, run: RunResult) -> np.ndarray:
        """``run``'s values as :attr:`per_query` holds them, without pandas: a row per
        ``run.qids``, a column per per-topic column of :attr:`columns`."""
        shown = [_shown(c, run.values[c.label]) for c in self.columns if c.per_query]
        return np.column_stack(shown) if shown else np.empty((len(run.qids), 0))

    @property
    def tie_bounds_per_query(self):
        """DataFrame ``run, qid, measure, low, high`` like :attr:`per_query` (NaN where a
        measure has no bounds), a copy of :attr:`tie_bounds_per_query_values`. Needs
        ``evaluate(..., tie_bounds=True)``."""
        return self.tie_bounds_per_query_values.copy()

    @cached_property
    def tie_bounds_per_query_values(self):
        """:attr:`tie_bounds_per_query`, the one trecbench's own views and tables read."""
        import pandas as pd

        columns = [c for c in self.columns if c.per_query]
        frames = []
        for run in self.runs:
            if run.tie_bounds is None:
                raise UsageError("tie bounds were not computed: evaluate(..., tie_bounds=True)")
            missing = np.full(len(run.qids), np.nan)
            sides = {
                side: [_shown(c, values.get(c.label, missing)) for c in columns]
                for side, values in (("low", run.tie_bounds.low), ("high", run.tie_bounds.high))
            }
            n = len(run.qids)
            frames.append(
                pd.DataFrame(
                    {
                        "run": pd.array([run.name] * (n * len(columns)), dtype="string"),
                        "qid": pd.array(np.repeat(run.qids, len(columns)), dtype="string"),
                        "measure": pd.array([c.display for c in columns] * n, dtype="string"),
                        **{
                            side: np.column_stack(arrays).reshape(-1) if arrays else np.empty(0)
                            for side, arrays in sides.items()
                        },
                    }
                )
            )
        return pd.concat(frames, ignore_index=True)

    @property
    def aggregates(self):
        """DataFrame ``run, measure, value``: the summaries; runid, relstring asked said in a
        PerTopicWarning."""
        self._say_left_out("aggregates", per_topic=False)
        return self.aggregate_values.copy()  # the caller's to change: not the views' own

    @cached_property
    def aggregate_values(self):
        """:attr:`aggregates` without its warning (trecbench's own views and tables)."""
        import pandas as pd

        rows = [
            (run.name, column.display, float(run.summary[column.label]))
            for run in self.runs
            for column in self.columns
            if column.summary not in (RUNID, STRING)
        ]
        frame = pd.DataFrame(rows, columns=["run", "measure", "value"])
        return frame.astype({"run": "string", "measure": "string"})

    def empty_values(self) -> dict[str, dict[str, float]]:
        """Per measure (display name) whose value on a topic a run has no results for is
        not 0, that value per qrels topic: ``num_rel``, the topic's relevant documents
        (a count of the qrels, which trec_eval -c counts for a topic a run lacks, where
        every other measure counts 0). What compare, power and agree fill such topics with.
        """
        level = self.settings.relevance_level
        return {
            c.display: {
                qid: float(count)
                for qid, count in self.relevant_counts[c.measure.option("rel") or level].items()
            }
            for c in self.columns
            if c.summary == NUM_REL
        }

    def averaged_over(self, run: RunResult) -> int:
        """The topics ``run``'s means are over, as trec_eval's ``num_q`` counts them: its
        evaluated topics, or under ``-c`` every qrels topic (9.0.8 evaluates only those the
        run has and counts the others 0; a run trec_eval stopped in keeps its evaluated
        ones). Every output's ``topics`` is this; ``len(run.qids)``, the topics with
        per-topic values, is the JSON's ``topics_with_values``."""
        if self.settings.complete and run.complete:  # with -D's one topic too: num_q says so
            return max(len(run.qids), len(self.qrels_topics))
        return len(run.qids)

    def shown(self, name: str) -> str:
        """A measure's ``name`` as printed: after a ``Z`` under ``-Z``, where its values
        are z-scores (trec_eval's ``ZP_5``), in every format."""
        return "Z" + name if self.settings.zscores else name

    def labelled(self, labels: str = "asked") -> list[tuple[Column, str]]:
        """Each column with each name it is shown under (:meth:`Column.names`), in printing
        order: a measure asked by two spellings is listed under both (one value), each
        where it was asked (``-m "P@3 nDCG@3 P_3"``: ``P_3`` last; :attr:`Column.at`)."""
        pairs = [(column, name) for column in self.columns for name in column.names(labels)]
        placed = all(len(column.at) == len(column.names("asked")) for column in self.columns)
        if labels != "asked" or not placed:
            return pairs
        at = [position for column in self.columns for position in column.at]
        return [pair for _, pair in sorted(zip(at, pairs, strict=True), key=lambda p: p[0])]

    def to_long(self, per_query: bool = False, labels: str = "asked"):
        """A long (tidy) DataFrame ``run, measure, canonical, value`` (with ``per_query``,
        ``run, qid, measure, canonical, value``): ``measure`` as asked (or ``labels="display"``
        / ``"trec"``), ``canonical`` its display name, one for every spelling of it; a measure
        asked by two spellings has a row under each, with one value."""
        import pandas as pd

        self._say_left_out(f"to_long({'per_query=True' if per_query else ''})", per_query, labels)
        long = (self.per_query_values if per_query else self.aggregate_values).rename(
            columns={"measure": "canonical"}
        )
        spelled = pd.DataFrame(
            [(column.display, name) for column, name in self.labelled(labels)],
            columns=["canonical", "measure"],
        ).astype("string")
        spelled["shown"] = range(len(spelled))  # each spelling's place in printing order
        index = ["run", "qid"] if per_query else ["run"]
        # each run's (topic's) rows together, in their order; inside, the printing order
        long["block"] = pd.MultiIndex.from_frame(long[index]).factorize()[0]
        rows = long.merge(spelled, on="canonical").sort_values(["block", "shown"], kind="stable")
        return rows[[*index, "measure", "canonical", "value"]].reset_index(drop=True)

    def to_frame(self, per_query: bool = False, labels: str = "asked"):
        """A wide DataFrame, one column per measure in printing order, named as asked
        (``labels="display"``: display names, ``"trec"``: trec_eval's; a measure asked by two
        spellings has a column under each): a row per run with the aggregates, or with
        ``per_query`` (True or False) a row per ``(run, qid)``. Numbers only: runid, relstring
        (``per_query``: gm_map, num_q too) asked are said in a PerTopicWarning."""
        self._say_left_out(f"to_frame({'per_query=True' if per_query else ''})", per_query, labels)
        return self._wide(per_query, labels)

    def _wide(self, per_query: bool, labels: str):
        """:meth:`to_frame`'s frame, unsaid (a notebook's display warns of nothing)."""
        long = self.per_query_values if per_query else self.aggregate_values
        index = ["run", "qid"] if per_query else ["run"]
        wide = long.pivot(index=index, columns="measure", values="value")
        runs = [run.name for run in self.runs]
        order = wide.index.get_level_values("run").map({name: i for i, name in enumerate(runs)})
        wide = wide.iloc[np.argsort(order, kind="stable")]
        shown = [(c.display, name) for c, name in self.labelled(labels) if c.display in wide]
        wide = wide[[display for display, _ in shown]]
        wide.columns = [name for _, name in shown]
        return wide

    def to_dict(self, labels: str = "asked") -> dict:
        """Per-topic values in pytrec_eval's shape: ``{qid: {measure: value}}`` for one
        run, ``{run: {qid: {measure: value}}}`` for several; measures named as asked (each
        spelling asked, or ``labels="display"`` / ``"trec"``). ``relstring`` is there too,
        its string per topic (:attr:`per_query` and :meth:`to_frame` hold numbers only);
        runid, gm_map and num_q asked are named in a PerTopicWarning saying where they are."""
        self._say_left_out("to_dict()", per_topic=True, labels=labels)
        names = {column.display: column.names(labels) for column in self.columns}
        shaped: dict[str, dict] = {run.name: {} for run in self.runs}
        for run, qid, measure, value in self.per_query_values.itertuples(index=False):
            values = shaped.setdefault(run, {}).setdefault(qid, {})
            for name in names[measure]:
                values[name] = float(value)
        for run in self.runs:
            for column in (c for c in self.columns if c.label in run.strings):
                for qid, text in zip(run.qids, run.strings[column.label], strict=True):
                    topic = shaped.setdefault(run.name, {}).setdefault(qid, {})
                    topic.update(dict.fromkeys(column.names(labels), text))
        # each topic's measures in printing order, as to_frame's columns: a measure asked
        # by two spellings has its names where each was asked, not side by side
        order = [name for _, name in self.labelled(labels)]
        for topics in shaped.values():
            for qid, values in topics.items():
                topics[qid] = {name: values[name] for name in order if name in values}
        return next(iter(shaped.values()), {}) if len(self.runs) == 1 else shaped

    def _say_left_out(self, view: str, per_topic: bool, labels: str = "asked") -> None:
        """Warn of each asked measure ``view`` leaves out, named as asked (or by ``labels``,
        the view's: ``relstring.3``, as to_dict() keys it, not its label ``relstring_3``),
        saying where it is: a summary
        over topics (gm_map, num_q: pytrec_eval has one for gm_map, its log; trec_eval -q
        prints none) from a ``per_topic`` view, in aggregates; runid, the run's tag, from
        every view, in each run's :attr:`RunResult.runid`; relstring, text, from the
        frames of numbers, in to_dict()."""
        flag_from("per_query", per_topic)  # to_frame's, to_long's: "False" is true
        asked = {kind: [] for kind in ("summary", RUNID, STRING)}
        for column in self.columns:
            if column.summary in (RUNID, STRING):
                asked[column.summary] += column.names(labels)
            elif per_topic and not column.per_query:
                asked["summary"] += column.names(labels)
        said = {
            "summary": "no value per topic (a summary over topics, as trec_eval -q prints "
            "it under 'all'): not in {view}; aggregates has it",
            RUNID: "the run's tag (text, not a number): not in {view}; each run's runid "
            "has it (result.runs[0].runid)",
            STRING: "text per topic, not a number: not in {view}; to_dict() has it",
        }
        if view == "to_dict()":
            del asked[STRING]  # its string per topic is there
        for kind, names in asked.items():
            if names:
                text = said[kind].format(view=view)
                warnings.warn(
                    f"{', '.join(dict.fromkeys(names))}: {text}",
                    PerTopicWarning,
                    stacklevel=outside_trecbench(),
                )

    def _describe(self) -> str:
        runs = few_reprs([run.name for run in self.runs])
        # by the names they were asked by, as to_frame's columns (display names differed)
        asked = (name for column in self.columns for name in column.names("asked"))
        measures = few_reprs(list(dict.fromkeys(asked)))
        topics = {len(run.qids) for run in self.runs}
        about = f", topics={topics.pop()}" if len(topics) == 1 else ""
        return f"Evaluation(runs={runs}, measures={measures}{about})"

    def __repr__(self) -> str:
        return self._describe()

    def _repr_html_(self) -> str:
        """The aggregates as an HTML table, for notebooks."""
        from html import escape

        table = self._wide(False, "asked").to_html(float_format=lambda value: f"{value:.4f}")
        return f"<p><code>{escape(self._describe())}</code></p>" + table

    @property
    def input_paths(self) -> list[tuple[str, str]]:
        """``(path, kind)`` of every input read from a file."""
        paths = [(self.qrels_path, "qrels")] if self.qrels_path else []
        for run in self.runs:
            paths += [(path, "run") for path in run.files or ([run.path] if run.path else [])]
        return paths

    @property
    def input_records(self) -> dict[tuple[str, str], dict[str, Any]]:
        """``(path, kind) -> record`` of every input read from a file, taken while it was
        parsed (the file is not read again for them): what
        :func:`trecbench.report.input_record` gives (``path``, ``kind``, ``size``,
        ``sha256``, ``lines``, ``topics``; for runs ``run_tag``, ``run_tags`` and ``name``,
        the run's name in the results: its provenance beside its name)."""
        records = {(self.qrels_path, "qrels"): self.qrels_record} if self.qrels_record else {}
        for run in self.runs:
            taken = [(r["path"], r) for r in run.file_records or []]
            taken += [(run.path, run.record)] if run.record and not run.file_records else []
            records |= {(path, "run"): record | {"name": run.name} for path, record in taken}
        return records


def _shown(column: Column, values: np.ndarray) -> np.ndarray:
    return np.exp(values) if column.summary == GEOMETRIC else values
