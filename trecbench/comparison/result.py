"""What ``compare`` found: :class:`Comparison` (the single source every renderer reads)
and its :class:`Section` s; the report files it writes."""

from __future__ import annotations

import numbers
import os
from collections.abc import Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from .. import outputs
from ..callbacks import refuse_uncallable
from ..errors import UsageError
from ..plurals import few_and_more
from ..text_bytes import utf8
from .files import (  # noqa: F401 - the names this module's users import from it
    HTML_FILE,
    LATEX_FILE,
    MARKDOWN_FILE,
    PLOT_PATTERNS,
    REPORT_FILE,
    compare_folder_files,
    folder_files,
    html_available,
)
from .report_document import report_document, report_text
from .section_rows import section_frame, section_records, split_once
from .settings import ALL, MACRO, StatsSettings
from .tables import Section


@dataclass
class Comparison:
    """Result of :func:`compare`.

    ``summary``: stratum, run, measure, queries, mean, ci_low, ci_high, normal_low,
    normal_high (normal-approximation interval: the weaker, unpaired view), tie_low,
    tie_high (the mean's bounds over all orders of tied documents; NaN when not known).
    ``comparisons`` (against the baseline): stratum, run, baseline, measure, queries,
    difference, ci_low, ci_high (interval of the difference), relative_change (percent of
    the baseline mean; NaN when that is 0), effect_size (d_z), p_value, p_adjusted,
    significant (p_adjusted < alpha), wins, ties, losses (topics), welch_t, welch_df,
    welch_p, welch_p_adjusted (independent two-sample Welch t-test: the weaker design),
    p_undefined, relative_change_undefined, welch_undefined (why p_value, relative_change,
    the Welch figures are NaN; None where they are defined).
    ``pairs`` (every pair of runs): stratum, run, other, measure, difference (run − other),
    p_value, p_adjusted (over all pairs of the section), significant, winner.
    ``movers``: stratum, run, baseline, measure, kind (``gain``/``loss``), rank, qid,
    baseline_value, value, difference: the topics that moved most.
    ``per_query``: run, qid, measure, value after the ``missing`` policy.
    ``missing``: per run, the topics it had no result for (scored 0 or dropped).
    ``strata``: field -> qid -> stratum value when grouped, else None.
    ``run_qrels``: per run the qrels file it was scored with; ``unpaired``: per run the
    topics of its qrels left out because another run's qrels lack them; ``unjudged``: per
    run its documents without judgment; ``warnings``: what the caller should print, and
    the report keeps (in parts: ``UnjudgedWarning``, ``FlagWarning``, ...).
    ``evaluation``: the options :func:`trecbench.evaluate` was called with (None when the
    per-query values were given); ``ontology``: provenance of the ontology behind MaxOntSim.
    ``drill_downs``: per run, what report.html's drill-down and the precision-recall curve
    show (:class:`trecbench.evaluation.drill.DrillDown`), kept as the runs were scored
    (``drill_depth``); None: not kept, the runs' files are read again for them.
    ``unjudged_values``: ``(run, measure, low, high, unjudged share, why two runs' ranges
    do not bound their difference or None, why high is n/a or None, False: no count)``
    over ``queries``, kept as the runs were scored (a count's as its mean per topic):
    :func:`trecbench.conclusions.unjudged.with_unjudged_bounds`; None: not kept."""

    runs: list[str]
    baseline: str
    measures: list[str]
    queries: list[str]
    settings: dict
    sections: list[Section]
    summary: pd.DataFrame
    comparisons: pd.DataFrame
    pairs: pd.DataFrame
    movers: pd.DataFrame
    per_query: pd.DataFrame
    missing: dict[str, list[str]]
    strata: dict[str, dict[str, str]] | None = None
    inputs: list[dict] | None = None
    run_inputs: dict[str, str] | None = None
    evaluation: dict | None = None
    ontology: dict | None = None
    run_qrels: dict[str, str | None] | None = None
    unpaired: dict[str, list[str]] | None = None
    unjudged: dict[str, dict] | None = None
    warnings: list[str] = field(default_factory=list)
    # the compared topics for which every run's qrels hold no relevant document (at -l),
    # whose measures of relevant documents are 0 (None: not known, per-query values given)
    scoreless: list[str] | None = None
    power: Any = None  # compare --power's PowerResult (trecbench.conclusions.power)
    # compare --unjudged-bounds' UnjudgedSensitivity (trecbench.conclusions.unjudged)
    unjudged_sensitivity: Any = None
    drill_downs: dict[str, Any] | None = None
    unjudged_values: list[tuple] | None = None
    input_warnings: tuple[str, ...] = ()  # what its inputs warned: input_warnings.carried
    # the working folder its inputs were read in (their paths as given are relative to it)
    read_in: str | None = field(default_factory=outputs.working_folder, repr=False)

    @property
    def statistics(self) -> StatsSettings:
        """How it was tested, typed: the :class:`StatsSettings` its ``settings`` (the
        report's JSON record of them) were written from."""
        return StatsSettings.from_record(self.settings)

    @property
    def tie_bounded(self) -> bool:
        """Whether the means' bounds over all orders of tied documents were computed."""
        return bool(self.settings.get("tie_bounds"))

    @property
    def stratum_labels(self) -> list[str]:
        """Section labels: ``"all"``, then per grouping field ``"FIELD:macro"`` and one
        ``"FIELD=VALUE"`` per stratum (values sorted; FIELD escaped as
        :func:`trecbench.escaping.group_place` escapes it: its ``=`` as ``%3D``)."""
        return [section.label for section in self.sections]

    def section(self, label: str) -> Section:
        """The section labelled ``label`` (``all``, ``FIELD:macro``, ``FIELD=VALUE``); a
        label of no section refused (:class:`~trecbench.errors.UsageError`)."""
        for section in self.sections:
            if section.label == label:
                return section
        known = few_and_more([section.label for section in self.sections], shown=repr)
        raise UsageError(f"no section is labelled {label!r}: the sections are {known}")

    @contextmanager
    def split_by_section(self):
        """Within it each table is split by section once, for a rendering that reads many
        sections one at a time (the tables must not change meanwhile; what is kept is the
        calling thread's: :func:`~.section_rows.split_once`); outside it :meth:`part` and
        :meth:`records` read the table as it is at each call."""
        with split_once():
            yield self

    def part(self, frame: pd.DataFrame, label: str) -> pd.DataFrame:
        """Rows of ``summary``, ``comparisons``, ``pairs`` or ``movers`` for one section
        (a label of none refused, where a misspelt one gave no rows)."""
        rows = section_frame(frame, label)
        if rows is None:  # a section's without rows (pairs of one run), or none's
            self.section(label)
            return frame.iloc[:0]
        return rows

    def records(self, frame: pd.DataFrame, label: str) -> list[dict]:
        """:meth:`part`'s rows as dicts of Python scalars, as ``to_dict("records")``
        gives them (each table converted once for all its sections)."""
        rows = section_records(frame, label)
        if rows is None:
            self.section(label)
            return []
        return rows

    def by_measure_and_run(self, frame: pd.DataFrame, label: str) -> dict[tuple, dict]:
        """:meth:`records` of ``summary`` or ``comparisons`` keyed by (measure, run)."""
        return {(row["measure"], row["run"]): row for row in self.records(frame, label)}

    def topics_of(self, label: str) -> list[str]:
        """The topics of a section (a macro section's: every topic with a stratum)."""
        section = self.section(label)
        if section.kind == ALL:
            return list(self.queries)
        mapping = (self.strata or {})[section.field]
        if section.kind == MACRO:
            return [qid for qid in self.queries if qid in mapping]
        return [qid for qid in self.queries if mapping.get(qid) == section.value]

    def report(
        self,
        experiment_id: str | None = None,
        meta: Mapping[str, Any] | None = None,
        created: str | None = None,
    ):
        """The BenchmarkReport as a JSON-ready dict (schema ``benchmark_report``).

        ``experiment_id`` links it to its ExperimentManifest; ``meta`` repeats the user's
        ``--meta`` pairs so the report stands alone (a Python caller's values as JSON
        values: :func:`trecbench.meta_values.recorded_meta`); ``created``: its time
        (default now), its page's and manifest's (:func:`~trecbench.provenance.new_stamp`).
        """
        return report_document(self, experiment_id, meta, created)

    def report_json(
        self,
        indent: int = 1,
        experiment_id: str | None = None,
        meta: Mapping[str, Any] | None = None,
    ) -> str:
        """:meth:`report` as ``json.dumps`` writes it with ``indent`` and
        ``ensure_ascii=False`` (NaN as null: compare's ``--format json``), byte for byte,
        faster (see :func:`~.report_document.report_text`)."""
        import json

        from ..json_values import json_safe

        def dumps(document: dict) -> str:
            return json.dumps(json_safe(document), indent=indent, ensure_ascii=False)

        return report_text(self, experiment_id, meta, indent, dumps)

    def report_file(self, experiment_id: str | None = None, meta=None, created=None) -> bytes:
        """BenchmarkReport.json's bytes: :func:`trecbench.report.json_bytes` of
        :meth:`report` (indent 2, NaN refused), faster
        (see :func:`~.report_document.report_text`)."""
        from ..report import json_bytes

        def dumps(document: dict) -> str:
            return json_bytes(document).decode("utf-8")

        return utf8(report_text(self, experiment_id, meta, 2, dumps, created))

    def to_frame(self) -> pd.DataFrame:
        """One row per section, run and measure: the summary (``mean, ci_low, ci_high``,
        ...) and, for runs other than the baseline, the comparison with it
        (``difference, diff_ci_low, diff_ci_high, relative_change, effect_size, p_value,
        p_adjusted, significant``, ...; NaN for the baseline)."""
        tests = self.comparisons.drop(columns=["baseline", "queries"]).rename(
            columns={"ci_low": "diff_ci_low", "ci_high": "diff_ci_high"}
        )
        return self.summary.merge(tests, on=["stratum", "run", "measure"], how="left")

    def _describe(self) -> str:
        from ..plurals import few_reprs

        return (
            f"Comparison(runs={few_reprs(self.runs)}, baseline={self.baseline!r}, "
            f"measures={few_reprs(self.measures)}, topics={len(self.queries)}, "
            f"test={self.statistics.test!r}, correction={self.statistics.resolved_correction!r})"
        )

    def __repr__(self) -> str:
        return self._describe()

    def _repr_html_(self) -> str:
        """Means with intervals and significance markers over all topics, for notebooks."""
        from html import escape

        from ..renderers.comparison_cells import mean_cells

        rows = mean_cells(self, ALL, self.measures)
        head = "".join(f"<th>{escape(cell)}</th>" for cell in rows[0])
        body = "".join(
            "<tr>" + "".join(f"<td>{escape(cell)}</td>" for cell in row) + "</tr>"
            for row in rows[1:]
        )
        return (
            f"<p><code>{escape(self._describe())}</code></p>"
            f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
        )

    def render(self, fmt: str = "table") -> str:
        """The comparison as ``table`` (terminal), ``markdown``, ``csv``, ``json`` (the
        report) or ``latex`` (the all-pairs table); see
        :mod:`trecbench.renderers.comparison_text`."""
        from ..renderers import comparison_text

        return comparison_text.render(self, fmt)

    def markdown(self) -> str:
        """The BenchmarkComparison Markdown text."""
        return self.render("markdown")

    def plot_files(self, order: str = "difference") -> dict[str, bytes]:
        """File name -> bytes of every plot (see :func:`~.figures.plot_files`)."""
        from .figures import plot_files

        with self.split_by_section():  # read section by section
            return plot_files(self, order)

    def qrels_files(self) -> list[str]:
        """The paths of the qrels the runs were judged by, as read: one, or each run's own
        (``--run-qrels``)."""
        return [item["path"] for item in self.inputs or [] if item.get("kind") == "qrels"]

    def judged_files(self) -> tuple[dict[str, str], dict[str, str]] | None:
        """``({run: file}, {run: its qrels file})`` when every run came from a file
        (standard input and pipes too) and was judged by a qrels file (one for all, or
        each run its own: ``run_qrels``; not -R's preferences): what report.html's
        drill-down and the precision-recall curve are read from again, when not kept.
        Else None."""
        if (self.evaluation or {}).get("rel_format", "qrels") != "qrels":
            return None  # preferences (-R prefs, qrels_prefs, qrels_jg) grade no document
        runs = {run: path for run, path in (self.run_inputs or {}).items() if path}
        qrels = self.qrels_files()
        if self.run_qrels:  # each run's own (None: a table, not read again)
            judged = {run: self.run_qrels.get(run) for run in self.runs}
        else:
            judged = dict.fromkeys(self.runs, qrels[0] if len(qrels) == 1 else None)
        if len(runs) != len(self.runs) or None in judged.values():
            return None
        return runs, judged

    def scored_files(self) -> tuple[dict[str, str], dict[str, str]] | None:
        """:meth:`judged_files` when they can all be read again (not standard input or a
        pipe, which the first read emptied), else None; refused after an os.chdir."""
        from ..inputs.streams import rereadable

        self.input_paths()  # plot_files, precision_recall: other files read there
        files = self.judged_files()
        if files is None or not rereadable([*files[0].values(), *set(files[1].values())]):
            return None
        return files

    def input_paths(self) -> list[str]:
        """Its inputs' paths; relative, they name other files after an os.chdir: refused."""
        outputs.refuse_other_folder(self.read_in, paths := [r["path"] for r in self.inputs or []])
        return paths

    def keep_drill_downs(self, results) -> None:
        """Keep the :class:`~trecbench.evaluation.drill.DrillDown` of each run scored
        (``results``: RunResults), when every run kept one."""
        kept = {run.name: run.drill_down for run in results}
        self.drill_downs = kept if None not in kept.values() else None

    def _kept(self, depth: int | None = None) -> dict | None:
        """:attr:`drill_downs` when they serve (``depth`` documents per topic, kept that
        deep or deeper and cut; each run's graded by the qrels it was scored with), else
        None."""
        kept = self.drill_downs
        if kept is None:
            return None
        if depth is None:
            return kept
        if any(d.depth < depth for d in kept.values()):
            return None
        return {name: d.cut(depth) for name, d in kept.items()}

    def precision_recall(self) -> dict[str, list[float]] | None:
        """Each run's interpolated precision at the 11 recall levels (trec_eval's
        iprec_at_recall means) over the comparison's topics (:attr:`queries`; a topic a
        run lacks counts 0, as its means count it under missing ``zero``), with its
        -l/-M/-J; None without the runs' files. Kept as the runs were scored
        (``drill_depth``), else the files are read again once (refused if changed since
        they were scored)."""
        from ..evaluation.drill import mean_curves

        if "_curves" not in self.__dict__:
            per_topic = self._precision_recall()
            means = None if per_topic is None else mean_curves(per_topic, self.queries)
            self.__dict__["_curves"] = means
        return self.__dict__["_curves"]

    def _precision_recall(self) -> dict[str, dict[str, list[float]]] | None:
        from ..html_report import documents

        kept = self._kept()
        if kept is not None:  # as the runs were scored: in memory, a pipe's too
            return {run: drill.precision_recall for run, drill in kept.items()}
        files = self.scored_files()
        if files is None:
            return None
        runs, qrels = files
        records = {item["path"]: item for item in self.inputs or []}
        options = documents.scored_options(self.evaluation)
        judged = documents.judgments(qrels, records, options)
        return documents.drill_down(runs, records, judged, 0, options)[1]

    def to_html(
        self,
        depth: int = 20,
        path: str | os.PathLike | None = None,
        title: str = "trecbench comparison",
        progress=None,
        stamp: Mapping[str, str] | None = None,
    ) -> str:
        """The comparison as one self-contained HTML page (:mod:`trecbench.html_report`)
        headed ``title``: with run files and their qrels files (one, or each run its own)
        among its inputs, each topic's drill-down shows every run's top ``depth`` documents
        and their grades: kept as the runs were scored with ``drill_depth=depth`` (a run
        from standard input or a pipe too), else read again (files only). Written to
        ``path`` when given (all or nothing, never over an input). ``progress(label, done,
        total)`` is told the page's making (:func:`~trecbench.html_report.comparison_html`);
        ``stamp``: the created time and experiment id of its report, which it records."""
        from ..html_report import comparison_html

        inputs = self.input_paths() if path is not None else []  # reads: scored_files
        if isinstance(depth, bool) or not isinstance(depth, numbers.Integral) or depth < 0:
            raise UsageError(f"depth must be a whole number from 0, not {depth!r}")
        depth = int(depth)
        if not isinstance(title, str):  # None was the page's title and heading: "None"
            from ..type_names import python_type

            raise UsageError(f"title must be text, not {python_type(title)}")
        kept = self._kept(depth)
        if kept is not None:  # from the runs as scored: in memory, a pipe's too
            page = comparison_html(
                self, depth=depth, title=title, kept=kept, progress=progress, stamp=stamp
            )
        else:
            runs, qrels = self.scored_files() or (None, None)
            page = comparison_html(
                self, runs=runs, qrels=qrels, depth=depth, title=title, progress=progress,
                stamp=stamp,
            )  # fmt: skip
        if path is not None:
            outputs.write_file(path, page, inputs, outputs.HTML_PAGE)
        return page

    def write(
        self,
        outdir: str | os.PathLike,
        plots: bool = False,
        *,
        manifest: str | os.PathLike | None = None,
        meta: Mapping[str, Any] | None = None,
        argv: Sequence[str] | None = None,
        plot_order: str = "difference",
        html_depth: int | None = 20,
        progress=None,
        experiment_id: str | None = None,
        report: bytes | None = None,
        created: str | None = None,
    ) -> list[Path]:
        """Write BenchmarkReport.json, BenchmarkComparison.md, AllPairs.tex, report.html (with its
        drill-down to each run's top ``html_depth`` documents; None: no page), (with ``plots``) the
        PNG and SVG plots into ``outdir`` and, if ``manifest`` is given, an ExperimentManifest there
        (inputs and outputs with sha256, ``meta``, the command line ``argv``, default this
        process's, as it can be run again); returns the paths written, manifest last.

        Everything is prepared first and committed together: on any failure no file is
        replaced. Inputs are never overwritten. The report, the page and the manifest share
        one ``experiment_id`` (default a new uuid4) and ``created`` time (default now).
        ``report``: BenchmarkReport.json's bytes when already made (of this ``created``),
        :meth:`report_file` with this ``experiment_id`` and ``meta`` otherwise (compare's
        ``--format json`` prints them: standard output is then the file, byte for byte).
        ``progress(label, done, total)`` is told report.html's making (:meth:`to_html`).
        """
        refuse_uncallable(progress)
        from ..outputs import OutputSet, refuse_strays
        from ..report import build_manifest, bytes_record, command_argv, json_bytes, new_stamp
        from .targets import output_paths

        inputs = self.input_paths()
        stamp = new_stamp(experiment_id)
        if created is not None:  # the report's, made already (compare's --format json)
            stamp["created"] = created
        experiment_id = stamp["experiment_id"]
        if report is None:
            report = self.report_file(experiment_id, meta, stamp["created"])
        html = html_depth is not None and html_available()
        if html:
            from ..html_report import documents

            documents.check_drill_depth(html_depth, "html_depth")  # named as given
        # what is written is what compare checked before printing (check_folder)
        targets = output_paths(self, outdir, plots=plots, manifest=manifest, html=html)
        out = Path(outdir)  # a path: output_paths refused any other value naming outdir
        made = {
            "report": lambda: report,
            "markdown": lambda: utf8(self.markdown()),
            "latex": lambda: utf8(self.render("latex")),
            "html": lambda: utf8(self.to_html(html_depth, progress=progress, stamp=stamp)),
        }
        drawn = None  # the plots, drawn after the other files as they come in targets
        files = {}
        for path, kind in targets.items():
            if kind == "plot":
                drawn = self.plot_files(plot_order) if drawn is None else drawn
                files[path] = (drawn.pop(path.name), kind)
            elif kind != "manifest":
                files[path] = (made[kind](), kind)
        if drawn:  # a plot output_paths does not name: check_folder would not check it
            raise RuntimeError(f"plots not named by output_paths: {sorted(drawn)}")
        if manifest is not None:
            outputs = [bytes_record(path, kind, data) for path, (data, kind) in files.items()]
            document = build_manifest(
                command_argv() if argv is None else argv,
                self.inputs or [],
                outputs,
                meta or {},
                experiment_id,
                created=stamp["created"],
                ontology=self.ontology,
            )
            files[Path(manifest)] = (json_bytes(document), "manifest")
        with OutputSet(inputs) as staged:
            for path in files:  # every target checked before its folder is made
                staged.check(path)
            for folder in dict.fromkeys([out, *(path.parent for path in files)]):
                staged.hold(folder)  # out first, as every call into it: one meanwhile waits
            refuse_strays(out, compare_folder_files(out), files, inputs, "this comparison's")
            for path, (data, _) in files.items():
                staged.write(path, data)
        return list(files)
