"""The drill-down's documents: each run's top documents per topic in the ranking its
scoring used (its trec_eval version's), with their scores as the run writes them, their
float32 ties and their grades, and the runs' interpolated precision at the 11 recall levels.

What the runs' scoring kept (:mod:`trecbench.evaluation.drill`) is shown as it is
(:func:`from_kept`). Runs given as tables, and a comparison scored without keeping it, are
ranked here (:func:`drill_down`): a file is then read again, and one whose sha256 is not
the one recorded when it was scored is refused (a qrels file too), so that a page never
shows documents or grades of another file than the numbers it prints.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping

import numpy as np
import pyarrow as pa

from .. import ranking
from ..errors import InputError, Setting, UsageError
from ..evaluation.drill import CURVE_SETTINGS, graded, last_grades, shown_rows, topic_curves
from ..inputs.trec_tables import SCORE_TEXT
from ..score_precision import compares_float32
from ..trec_eval import compat


def _check_unchanged(path: str, recorded: Mapping | None) -> None:
    expected = (recorded or {}).get("sha256")
    if expected is None:
        return
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while block := handle.read(1 << 20):
            digest.update(block)
    if digest.hexdigest() != expected:
        raise InputError(path, None, "changed since it was scored: the report would mix two files")


def scored_options(evaluation: Mapping | None) -> dict:
    """Of a comparison's ``evaluation`` (the options its runs were scored with), those
    the drill-down's ranking and curve follow
    (:data:`~trecbench.evaluation.drill.CURVE_SETTINGS`; those not recorded: their
    defaults, trec_eval 9.0.8's)."""
    return {k: v for k, v in (evaluation or {}).items() if k in CURVE_SETTINGS}


def _float32(options: Mapping) -> bool:
    """Whether the scoring of ``options`` (:func:`scored_options`) compared scores as
    float32 (:func:`~trecbench.score_precision.compares_float32`)."""
    version = compat.get(options.get("compat", compat.DEFAULT))
    return compares_float32(version, options.get("float32", True))


def judgments(
    qrels: Mapping[str, object], records: Mapping[str, Mapping], options: Mapping
) -> dict[str, pa.Table]:
    """``{run: qrels table}`` of each run's qrels (``qrels``: run -> a path or an input
    :mod:`trecbench.inputs` reads), each read once, as the trec_eval version of
    ``options`` reads it (10.0: ``#`` lines are comments); a file is refused if changed
    since it was scored (its sha256 not the one ``records`` hold by its path), as a run is."""
    from ..evaluation import load

    version = compat.get(options.get("compat", compat.DEFAULT))
    read: dict = {}
    tables = {}
    for run, source in qrels.items():
        key = source if isinstance(source, str) else id(source)
        if key not in read:
            if isinstance(source, str):
                _check_unchanged(source, records.get(source))
            read[key] = load(source, "qrels", version=version).table
        tables[run] = read[key]
    return tables


def _ranked(source, records: Mapping[str, Mapping], options: Mapping) -> pa.Table:
    """The run ``source`` (qid, docno, rank, score, and a file's score_text: its scores
    as written): a file (read again, refused if changed since it was scored) or a table
    already in memory, read and ranked as the scoring of ``options``
    (:func:`scored_options`) did."""
    from ..fusion import ranked_table

    if isinstance(source, str):
        _check_unchanged(source, records.get(source))
    version, float32 = options.get("compat", compat.DEFAULT), options.get("float32", True)
    table = ranked_table(source, score_text=True, compat=version, float32=float32)
    names = ["qid", "docno", "rank", "score", SCORE_TEXT]
    return table.select([name for name in names if name in table.column_names])


def drill_down(
    runs: Mapping[str, object], records: Mapping[str, Mapping],
    qrels: Mapping[str, pa.Table], depth: int, options: Mapping, step=lambda: None,
) -> tuple[dict, dict]:  # fmt: skip
    """``(top_documents, precision_recall)`` of ``runs`` ({run: path or table}, each
    read and ranked as the scoring of ``options`` did: :func:`scored_options`), each
    graded and scored by its own qrels (``qrels``: run -> table, :func:`judgments`).

    ``top_documents``: ``{qid: {run: [[docno, score, grade or None(, 1)], ...]}}``, each
    run's first ``depth`` documents of each topic (topics as they first appear), with
    their score as the run writes it (:func:`score_texts`), their grade in the qrels
    (None: unjudged; a document judged twice: its last grade) and, last, a 1 where the
    score ties the next document's as float32 only
    (:func:`~trecbench.evaluation.drill.float32_ties`); depth 0: none, the curves alone.
    Each run is read, ranked, used and let go in turn, so that one run's table is in
    memory at a time, not every run's (5 runs of 500,000 lines: the page's peak 70 MB
    lower). ``step()`` is told after each run."""
    check_drill_depth(depth)
    grades: dict[int, pa.Table] = {}  # per qrels table, its last grades: made once
    topics: dict[str, dict] = {}
    curves: dict[str, list[float]] = {}
    for run, source in runs.items():
        table = _ranked(source, records, options)
        if depth:
            judged = qrels[run]
            if id(judged) not in grades:
                grades[id(judged)] = last_grades(judged)
            shown = shown_rows(table, depth, _float32(options))
            _add_graded(topics, run, graded(shown, grades[id(judged)]))
        curves |= precision_recall(qrels[run], {run: table}, options)
        del table  # before the next run is read
        step()
    return topics, curves


def check_drill_depth(depth: int, keyword: str = "depth") -> None:
    """Refuse a drill-down ``depth`` beyond what numpy and Arrow index with, naming it by
    ``keyword``: the page functions' ``depth``, or ``html_depth`` (:meth:`Comparison.write
    <trecbench.comparison.Comparison.write>`'s, and the command line's: said as
    ``--html-depth``, where ``--depth`` is another command's ``depth``)."""
    from ..trec_eval.clib import LONG_MAX

    if isinstance(depth, bool) or not isinstance(depth, int) or not 0 <= depth <= LONG_MAX:
        raise UsageError(Setting(keyword), f" must be from 0 to {LONG_MAX}, not {depth!r}")


def from_kept(kept: Mapping[str, object], depth: int, step=lambda: None) -> tuple[dict, dict]:
    """``(top_documents, precision_recall)`` as :func:`drill_down` gives them, from what
    each run's scoring kept (``{run: DrillDown}`` of ``depth`` documents per topic);
    ``step()`` told after each run."""
    check_drill_depth(depth)
    topics: dict[str, dict] = {}
    for run, drill in kept.items():
        _add_graded(topics, run, drill.documents)
        step()
    return topics, {run: drill.precision_recall for run, drill in kept.items()}


def _add_graded(topics: dict, run: str, rows: pa.Table) -> None:
    """Add ``run``'s documents (``rows``: a :class:`~trecbench.evaluation.drill.DrillDown`'s
    documents; ranked, topics in order) to ``topics`` (see :func:`drill_down`)."""
    fields = zip(
        map(str, rows.column("docno").to_pylist()),
        score_texts(rows),
        rows.column("rel").to_pylist(),
        rows.column("tie").to_pylist(),
        strict=True,
    )
    # the tie's mark only where there is one: the page's JSON stays small
    documents = [[docno, text, rel, 1] if tie else [docno, text, rel]
                 for docno, text, rel, tie in fields]  # fmt: skip
    # one Python step per topic, not per document
    qids = rows.column("qid")
    starts = ranking.topic_starts(qids)
    heads = ranking.take_rows(qids, starts).to_pylist()
    for qid, (start, end) in zip(heads, spans(starts, len(documents)), strict=True):
        topics.setdefault(str(qid), {}).setdefault(run, []).extend(documents[start:end])


def score_texts(rows: pa.Table) -> list[str]:
    """Each score of ``rows`` as the run file writes it (``score_text``), else (a run
    held as numbers: a table, Parquet, JSONL) as Python writes the double it holds
    (``repr``: the shortest text that reads back as that double)."""
    texts = rows.column(SCORE_TEXT)
    if not texts.null_count:
        return list(map(str, texts.to_pylist()))
    doubles = map(repr, map(float, rows.column("score").to_pylist()))
    if texts.null_count == len(texts):
        return list(doubles)
    pairs = zip(texts.to_pylist(), doubles, strict=True)
    return [double if text is None else text for text, double in pairs]


def spans(starts: np.ndarray, total: int) -> list[tuple[int, int]]:
    """``(start, end)`` of each block of rows, given the blocks' ``starts`` (ascending)
    and the number of rows."""
    bounds = np.append(starts, total).tolist()
    return list(zip(bounds[:-1], bounds[1:], strict=True))


def precision_recall(qrels: pa.Table, ranked: Mapping[str, pa.Table], options) -> dict:
    """``{run: {qid: [interpolated precision at recall 0.0, 0.1, ..., 1.0]}}``: trec_eval's
    iprec_at_recall per topic, scored on the tables read for the drill-down (their means:
    :func:`~trecbench.evaluation.drill.mean_curves`)."""
    from ..evaluation import evaluate

    evaluation = evaluate(qrels, dict(ranked), ["iprec_at_recall"], **options)
    return {run: topic_curves(result) for run, result in zip(ranked, evaluation.runs, strict=True)}
