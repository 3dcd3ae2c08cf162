"""memorybench results (export JSON or ``results.db``, plain or compressed) → one qrels/run pair
per provider.

Relevance comes from one of memorybench's strategies, chosen per result in its priority
order (``relevance="auto"``) or forced for all:

* ``explicit`` (A): ``metadata.relevantIds`` / ``relevantChunkIds`` / ``groundTruthIds``
  / ``qrels`` (ids trimmed, empty ones dropped, as memorybench does): complete judgments.
* pack-owned (B): the benchmark pack's ``isRelevant`` on each retrieved chunk.
  ``pack`` for LoCoMo (a chunk's dialog ids, from its metadata, a ``[CTXID:...]`` prefix
  or ``D<n>:<n>`` in its id or content, meet ``metadata.evidence``) and LongMemEval (the
  chunk's corpus id contains ``answer`` but not ``noans``, or is one of
  ``metadata.answerCorpusIds``, possibly with a ``_<n>`` turn suffix; abstention items
  ``_abs`` have no relevant chunk). The number of relevant items is the evidence's or the
  answer corpus ids' count when given: relevant items nobody retrieved are added to the
  qrels as ``unretrieved-relevant-<n>`` so that trec_eval's ideal DCG uses memorybench's
  count. ``location`` is the code-retrieval packs' rule: a chunk is relevant when it is in
  the ground-truth file (normalised path, suffix match at ``/``, case-insensitive) and its
  lines overlap the ground truth, or reach line IoU ≥ ``iouThreshold`` when that is > 0;
  chunk lines are shifted by a per-provider offset (code-chunk-ast's are 0-based, other
  providers' 1-based, the ground truth 0-based).
* ``token-f1`` (C): a chunk is relevant when the token F1 between it and the expected
  answer reaches the threshold (memorybench's default 0.3; tokens: lower case, ``[^\\w\\s]``
  replaced by blanks, split on blanks, as sets).

Judgments other than explicit ones cover retrieved chunks only (**pooled**); without a
count of relevant items they know only the relevant chunks found (**found-only**): the
sidecar marks those qrels and carries the seed's warning that the ideal DCG may be
underestimated.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from ..errors import InputError, Setting, UsageError
from ..escaping import escape_text, id_list
from ..ids import STR, escape_id
from ..inputs import streams
from ..sources import At, Content, Rows, described, json_document, parse_json, read_source
from ..strata import group_name_problem
from .common import (
    Conversion,
    Report,
    given_name,
    make_qrels,
    qrels_summary,
    ranked_run,
    refuse_repeat,
    unique_tag,
)
from .memorybench_code import Chunk, line_relevant, same_file  # the last two also as this module's
from .memorybench_rules import (  # the rules' names, also as this module's
    AUTO,
    F1_THRESHOLD,
    NONE,
    STRATEGIES,
    Judging,
    judge,
    token_f1,
)

__all__ = [
    "AUTO", "F1_THRESHOLD", "STRATEGIES", "Judging", "convert_memorybench", "line_relevant",
    "read_results", "same_file", "token_f1",
]  # fmt: skip

SQLITE_MAGIC = b"SQLite format 3\x00"
_REQUIRED_COLUMNS = ("run_id", "provider", "item_id", "retrieved_context", "metadata")
_OPTIONAL_COLUMNS = ("benchmark", "expected")


# ---------------------------------------------------------------------------------------
# reading


def _without_wal(source: Content) -> bytes:
    """The database's bytes, a write-ahead-log (WAL) database's marked as a rollback one:
    an in-memory copy cannot open a WAL file, and with no ``-wal`` file beside it every
    row is in these bytes (what ``PRAGMA journal_mode=DELETE`` writes). With a ``-wal``
    file, rows may still be in it: refused."""
    data = source.data
    if data[18:20] != b"\x02\x02":  # the file format's write and read versions
        return data
    if source.path and os.path.exists(f"{source.path}-wal"):
        raise InputError(
            source.path, None, "its write-ahead log (-wal) may hold rows not in the file yet: "
            "let the writer finish, or checkpoint it (PRAGMA wal_checkpoint)",
        )  # fmt: skip
    return data[:18] + b"\x01\x01" + data[20:]


def _sqlite_rows(source: Content) -> tuple[Rows, list[tuple[At, dict]]]:
    """``(place, EvalResult dict)`` of each row of a ``results.db``, read from its bytes
    (an in-memory copy, read-only: no journal or temporary file beside the input)."""
    path = source.path
    try:
        with contextlib.closing(sqlite3.connect(":memory:")) as db, _interruptible(db):
            db.deserialize(_without_wal(source))  # the bytes already read: read once
            db.execute("PRAGMA query_only = ON")
            _refuse_non_table(db, path)
            columns = [row[1] for row in db.execute("PRAGMA table_info(results)")]
            missing = [c for c in _REQUIRED_COLUMNS if c not in columns]
            if missing:
                raise InputError(path, None, f"no results table with {', '.join(missing)}")
            wanted = list(_REQUIRED_COLUMNS) + [c for c in _OPTIONAL_COLUMNS if c in columns]
            rows = db.execute(f"SELECT rowid, {', '.join(wanted)} FROM results ORDER BY rowid")
            records = [dict(zip(["rowid", *wanted], row, strict=True)) for row in rows]
    except sqlite3.Error as exc:
        raise InputError(path, None, f"cannot read the results table: {exc}") from None
    table = Rows(source)
    out = []
    for number, row in enumerate(records, 1):
        at = table.row(f"row {number} (rowid {row['rowid']})")
        result = {
            "runId": row["run_id"],
            "benchmark": row.get("benchmark"),
            "provider": row["provider"],
            "itemId": row["item_id"],
            "expected": row.get("expected"),
            "retrievedContext": _json_column(row["retrieved_context"], at / "retrievedContext"),
            "metadata": _json_column(row["metadata"], at / "metadata"),
        }
        out.append((at, result))
    return table, out


def _refuse_non_table(db: sqlite3.Connection, path: str | None) -> None:
    """Refuse a ``results`` that is not a table (``sqlite_master``'s type): a view runs a
    query of the file's own, which may never end (a recursive one)."""
    kind = db.execute(
        "SELECT type FROM sqlite_master WHERE name = 'results' COLLATE NOCASE"
    ).fetchone()
    if kind is not None and kind[0] != "table":
        raise InputError(
            path, None, f"results is a {kind[0]}, not a table: memorybench writes a table "
            "(a view runs a query of the file's own, which trecbench does not run)",
        )  # fmt: skip


@contextlib.contextmanager
def _interruptible(db: sqlite3.Connection) -> Iterator[None]:
    """While SQLite works, a signal that ends the call (Ctrl-C, SIGTERM, SIGHUP) ends it
    at once. Python runs signal handlers between its own instructions, never inside a
    query, and an exception a progress handler raises is lost (the query ends as
    "interrupted"): so the signal is held (:func:`trecbench.publication.signals_held`),
    the progress handler (every 10,000 SQLite instructions) stops the query once one
    came, and the signal is delivered as the call would have seen it (``trecbench:
    interrupted``, exit 130; 143 for SIGTERM): its exception replaces the query's."""
    from ..publication import signals_held

    with signals_held() as caught:
        db.set_progress_handler(lambda: 1 if caught else 0, 10_000)
        try:
            yield
        finally:
            db.set_progress_handler(None, 0)


def _json_column(text: Any, at: At) -> Any:
    if text is None:
        return None
    if not isinstance(text, str):
        raise at.error(f"expected JSON text, found {described(text)}")
    try:
        return parse_json(text, at.doc.path, cell=True)
    except InputError as exc:
        raise at.error(exc.message) from None


def read_results(path: str | os.PathLike) -> tuple[dict, list[tuple[At, Any]]]:
    """The input's record and ``(place, EvalResult)`` of each result, from an export JSON
    ``{run, results: [...]}`` or a ``results.db`` (SQLite, detected by its header)."""
    source = read_source(path, "memorybench results")
    if not source.data:  # SQLite makes results.db before it writes to it
        expected = "a memorybench export JSON or a SQLite results.db"
        raise InputError(source.path, None, f"{streams.EMPTY_FILE} ({expected})")
    if source.data.startswith(SQLITE_MAGIC):
        _, results = _sqlite_rows(source)
        return source.record, results
    doc = json_document(source)
    root = doc.root.expect_object(doc.value)
    results = (doc.root / "results").expect_list(root.get("results"))
    return doc.source.record, [(doc.root / "results" / i, r) for i, r in enumerate(results)]


# ---------------------------------------------------------------------------------------
# conversion


@dataclass
class _Result:
    """One result as read: where it is, the record, and its checked fields."""

    at: At
    result: dict
    provider: str
    run_id: str | None
    qid: str
    meta: dict


@dataclass
class _Run:
    """One run being built (a provider, or a provider's run): its queries in order and
    how they were judged."""

    provider: str
    run_tag: str
    qids: list[str] = field(default_factory=list)
    strategies: dict[str, int] = field(
        default_factory=lambda: dict.fromkeys((*STRATEGIES, NONE), 0)
    )
    found_only: int = 0
    unretrieved: int = 0
    surplus: int = 0  # queries judged more relevant chunks than their pack's count


@dataclass
class _Collected:
    """Every result judged: run rows, judgments, strata, and the runs by key."""

    retrieved: list[tuple] = field(default_factory=list)  # tag, qid, docno, order, score
    judged: list[tuple] = field(default_factory=list)  # tag, qid, docno, rel
    strata: dict[str, str | None] = field(default_factory=dict)  # qid -> repo
    seen: dict[tuple[str, str], str] = field(default_factory=dict)  # (tag, qid) -> place
    # by (provider, runId; None when the provider has one run): "p" run "r1" and a
    # provider named "p-r1" are two runs, whose tags collide (refused by unique_tag)
    runs: dict[tuple[str, str | None], _Run] = field(default_factory=dict)


def _chunk_file(meta: dict, at: At) -> str | None:
    """A chunk's file as memorybench's rules read it: ``metadata.filepath`` alone (its
    ``absolutePath`` names a chunk without id, and is read by no rule); None without one."""
    file = meta.get("filepath")
    return None if file is None else (at / "filepath").expect_string(file)


def _chunk_lines(meta: dict, at: At) -> tuple[int, int] | None:
    """A chunk's lines as memorybench's rules read them: None when either is absent (a
    file-level chunk), a null one as 0 (JavaScript compares null as 0: memorybench checks
    ``!== undefined`` only)."""
    if "startLine" not in meta or "endLine" not in meta:
        return None
    start, end = (
        0 if meta[key] is None else (at / key).expect_integer(meta[key], 0)
        for key in ("startLine", "endLine")
    )
    if end < start:  # no lines: overlap and IoU would judge it against nothing
        said = "null (compared as 0)" if meta["endLine"] is None else end  # JSON's word
        raise (at / "endLine").error(f"endLine {said} is before startLine {start}")
    return start, end


def _chunk_location(meta: dict, lines: tuple[int, int] | None, at: At) -> tuple | None:
    """The file (``filepath``, else ``absolutePath``) and ``lines`` a chunk without an id
    is named by (``file:startLine-endLine``); None when one is missing (or a line null)."""
    key = "filepath" if "filepath" in meta else "absolutePath"
    file = meta.get(key)
    if file is None or lines is None or None in (meta["startLine"], meta["endLine"]):
        return None
    return (at / key).expect_string(file), *lines


def _chunks(context: Any, at: At) -> tuple[list[Chunk], list[float], list[str]]:
    """The retrieved chunks, their scores and the docnos made up for chunks without an
    id (``file:startLine-endLine``, which the report lists)."""
    place = at / "retrievedContext"
    items = [] if context is None else place.expect_list(context)
    chunks, scores, made_up = [], [], []
    for position, item in enumerate(items):
        here = place / position
        item = here.expect_object(item)
        meta = item.get("metadata")
        meta = {} if meta is None else (here / "metadata").expect_object(meta)
        file, lines = _chunk_file(meta, here / "metadata"), _chunk_lines(meta, here / "metadata")
        location = _chunk_location(meta, lines, here / "metadata")
        docno = item.get("id")
        if docno is None and location is not None:
            docno = "{}:{}-{}".format(*location)
            made_up.append(docno)
        docno = (here / "id").expect_id(docno)
        content = item.get("content")
        content = None if content is None else (here / "content").expect_string(content)
        scores.append((here / "score").expect_number(item.get("score")))
        chunks.append(Chunk(docno, content, meta, file, lines))
    return chunks, scores, made_up


def convert_memorybench(
    source: str | os.PathLike,
    *,
    name: str | None = None,
    line_offsets: Mapping[str, int] | None = None,
    iou: float | None = None,
    relevance: str = AUTO,
    f1_threshold: float | None = None,
) -> Conversion:
    """Convert memorybench results (``source``) into a qrels/run pair per provider (tag =
    provider, or ``provider-runId`` when a provider has several runs); ``name`` names the
    files (default: made of the source's name).
    Returns the :class:`~trecbench.convert.model.Conversion` (qrels, runs, sidecar) that
    :func:`trecbench.write_conversion` writes.

    ``relevance`` is ``auto`` (memorybench's priority, per result) or one strategy for all
    (``explicit``, ``pack``, ``location``, ``token-f1``); results it cannot judge are
    reported and left out of the qrels. ``line_offsets`` maps a provider to the integer
    added to its chunks' line numbers (e.g. ``-1`` for 1-based providers against 0-based
    ground truth; anything but an integer is refused, as ``--line-offset`` refuses it);
    ``iou`` overrides each item's ``iouThreshold``; ``f1_threshold`` is the token-F1
    strategy's threshold (None: :data:`F1_THRESHOLD`); either is refused with a
    ``relevance`` that never applies its strategy (together: :class:`Judging`).
    """
    judging = Judging(relevance, {} if line_offsets is None else line_offsets, iou, f1_threshold)
    name = "memorybench" if name is None else given_name(name)
    report = Report()
    record, results = read_results(source)
    if not results:
        raise InputError(str(source), None, "no results")
    parsed = [_parse_result(at, result) for at, result in results]
    runs_of: dict[str, set] = {}
    for one in parsed:
        runs_of.setdefault(one.provider, set()).add(one.run_id)
    unknown_offsets = sorted(set(judging.line_offsets) - set(runs_of))
    if unknown_offsets:  # a misspelt provider's offset would leave its lines unshifted
        raise UsageError(
            Setting("line_offsets"),
            f" names {'a provider' if len(unknown_offsets) == 1 else 'providers'} absent from"
            f" the results: {', '.join(map(repr, unknown_offsets))}"
            f" (providers: {id_list(sorted(runs_of), limit=None)})",
        )
    _refuse_unread_iou(judging, parsed)
    collected = _Collected()
    # the run tags in lower case -> (the provider, or provider-runId, named so; the tag)
    owners: dict[str, tuple[str, str]] = {}
    for one in parsed:
        _collect(collected, one, len(runs_of[one.provider]) == 1, owners, judging, report)
    qrels, runs, info = _per_run(collected, name, judging, report)
    if not runs:  # every provider's results unjudgeable: nothing to score
        raise InputError(
            str(source),
            None,
            f"no result can be judged (--relevance {judging.relevance}: none holds the "
            "relevance data it needs): nothing to score",
        )
    strata = collected.strata
    return Conversion(
        name=name,
        converter="memorybench",
        qrels=qrels,
        runs=runs,
        report=report,
        strata=pd.DataFrame({"qid": list(strata), "repo": list(strata.values())}, dtype=STR)
        if any(v is not None for v in strata.values())
        else None,
        provenance={"inputs": [record], "options": judging.record()},
        qrels_info=info,
    )


def _refuse_unread_iou(judging: Judging, parsed: list[_Result]) -> None:
    """Refuse ``iou`` with relevance ``pack`` when no result is of repoeval, the one pack
    that reads it: it would be taken and dropped (as a threshold of a strategy the
    relevance never applies is, :class:`Judging`)."""
    if judging.relevance != "pack" or judging.iou is None:
        return
    benchmarks = {one.result.get("benchmark") for one in parsed}
    if "repoeval" not in benchmarks:
        shown = sorted(str(b) for b in benchmarks if b is not None)
        raise UsageError(
            Setting("iou"),
            " is the location rule's threshold, which relevance 'pack' applies to repoeval "
            f"results only, and none is of repoeval (benchmarks: {id_list(shown) or 'none'})",
        )


def _parse_result(at: At, result: Any) -> _Result:
    """A result's provider, run id, item id and metadata, their types checked."""
    result = at.expect_object(result)
    provider = (at / "provider").expect_id(result.get("provider"))
    run_id = result.get("runId")
    run_id = None if run_id is None else (at / "runId").expect_id(run_id)
    benchmark = result.get("benchmark")
    if benchmark is not None:
        (at / "benchmark").expect_string(benchmark)
    qid = (at / "itemId").expect_id(result.get("itemId"))
    expected = result.get("expected")
    if expected is not None and not isinstance(expected, str):
        (at / "expected").expect_string(expected)
    meta = result.get("metadata")
    meta = {} if meta is None else (at / "metadata").expect_object(meta)
    return _Result(at, result, provider, run_id, qid, meta)


def _collect(
    collected: _Collected, one: _Result, single: bool, owners: dict[str, tuple[str, str]],
    judging: Judging, report: Report,
) -> None:  # fmt: skip
    """Judge one result and add its run rows and judgments to its run (``single``: its
    provider has one run, which is then tagged by the provider alone); an item twice in
    one run is refused."""
    at, qid = one.at, one.qid
    key = (one.provider, None if single else one.run_id)
    run = collected.runs.get(key)
    if run is None:
        what, field = ("provider", "provider") if single else ("provider-runId", "runId")
        named = one.provider if single else f"{one.provider}-{one.run_id}"
        run_tag = unique_tag(named, owners, at / field, what, report)
        run = collected.runs[key] = _Run(one.provider, run_tag)
    tag = run.run_tag  # one per run (unique_tag): what its rows are kept under
    refuse_repeat(collected.seen, (tag, qid), at, "itemId", f"{qid!r} of run {tag!r}")
    _stratum(collected.strata, qid, one.meta.get("repo"), at / "metadata" / "repo")
    chunks, scores, made_up = _chunks(one.result.get("retrievedContext"), at)
    # the sidecar names the query and documents as the files write them (escaped)
    where = {"run": run.run_tag, "qid": escape_id(qid)}
    named = [{**where, "docno": escape_id(docno, "docno")} for docno in made_up]
    report.repair("retrieved chunk without id, named file:startLine-endLine", named)
    offset = judging.offset(one.provider)
    outcome = judge(judging, offset, one.result, one.meta, chunks, at, report, where, qid)
    run.qids.append(qid)
    run.strategies[outcome.strategy] += 1
    run.found_only += outcome.found_only
    run.unretrieved += outcome.unretrieved
    run.surplus += outcome.surplus > 0
    if outcome.strategy == NONE:
        reason = f"item not judged (relevance {judging.relevance}: no strategy applies)"
        report.drop(reason, [where])
    collected.judged += [(tag, qid, docno, grade) for docno, grade in outcome.rows]
    collected.retrieved += [
        (tag, qid, chunk.docno, position, score)
        # 1-based: the rank a dropped duplicate is reported at
        for position, (chunk, score) in enumerate(zip(chunks, scores, strict=True), 1)
    ]


def _stratum(strata: dict[str, str | None], qid: str, repo: Any, at: At) -> None:
    """The item's repo kept as its stratum: an item of several providers keeps the repo
    one gives (the last one's overwrote it: a provider without a repo took the stratum
    away), and two different repos for one item are refused, as code-chunk refuses them."""
    repo = None if repo is None else at.expect_id(repo)
    # a name score --strata refuses in the sidecar ("  ", "(none)") is refused here
    problem = None if repo is None else group_name_problem("repo", repo, "leave it out, or null")
    if problem is not None:
        raise at.error(problem)
    known = strata.get(qid)
    if repo is not None and known is not None and repo != known:
        raise at.error(f"item {qid!r} belongs to repo {known!r} in another result")
    if known is None:
        strata[qid] = repo


def _note_unjudged_items(qrels_name: str, qids: list[str], table, report: Report) -> None:
    """The note of the items of a run that its qrels hold no line of (no chunk retrieved to
    judge, or no strategy applies): no trec_eval mode counts them, where memorybench's
    means divide by every item (reviewer 666: 1.0 against memorybench's 0.3333)."""
    judged = set(table["qid"])
    unjudged = sum(escape_id(qid) not in judged for qid in dict.fromkeys(qids))
    if unjudged:
        items = len(dict.fromkeys(qids))
        report.note(
            f"{escape_text(qrels_name)}: {unjudged} of {items} items have no line in the "
            "qrels (no chunk judged: none retrieved, or no strategy applies), so trec_eval "
            f"counts them in no mean, even with -c; memorybench divides by all {items}: with "
            f"those items at 0, its mean is trec_eval -c's times {items - unjudged}/{items}"
        )


def _per_run(collected: _Collected, name: str, judging: Judging, report: Report):
    """``(qrels by name, runs, qrels summaries)``: one qrels and one run per provider
    (or provider's run), with a note for each qrels judged found-only."""
    run_rows = pd.DataFrame(collected.retrieved, columns=["tag", "qid", "docno", "order", "score"])
    judgments = pd.DataFrame(collected.judged, columns=["tag", "qid", "docno", "rel"])
    qrels, runs, info = {}, [], {}
    for run in collected.runs.values():
        tag = run.run_tag
        qrels_name = f"{name}-{run.run_tag}"
        table = make_qrels(
            judgments.loc[judgments["tag"] == tag, ["qid", "docno", "rel"]], qrels_name, report
        )
        if table.empty:  # no result of this provider could be judged: left out, said
            report.drop(
                f"run left out: none of its results can be judged (--relevance "
                f"{judging.relevance}: they hold none of the relevance data it needs)",
                [{"run": tag, "queries": len(run.qids)}],
            )
            continue
        counts = {k: v for k, v in run.strategies.items() if v}
        pooled = any(counts.get(k) for k in ("pack", "location", "token-f1"))
        qrels[qrels_name] = table
        info[qrels_name] = qrels_summary(
            table,
            run.qids,
            report,
            f"query without a relevant document ({tag}; not in the qrels)",
            pooled=pooled,
            found_only=run.found_only > 0,
            relevance=counts,
            unretrieved_relevant=run.unretrieved,
            line_offset=judging.offset(run.provider),
        )
        _note_unjudged_items(qrels_name, run.qids, table, report)
        if run.surplus:
            report.note(
                f"{escape_text(qrels_name)}: {run.surplus} of {len(run.qids)} queries judged "
                "more relevant chunks than their pack's count (evidence, answerCorpusIds): "
                "trec_eval's ideal DCG counts every one within k, memorybench's the count "
                "alone, so its nDCG may be the higher there (and pass 1)"
            )
        if run.found_only:
            report.note(
                f"{escape_text(qrels_name)}: {run.found_only} of {len(run.qids)} queries judged "
                "found-only (the relevant items nobody retrieved are unknown): the ideal DCG "
                "may be underestimated"
            )
        rows = run_rows.loc[run_rows["tag"] == tag, ["qid", "docno", "order", "score"]]
        runs.append(ranked_run(rows, run.run_tag, qrels_name, report, queries=run.qids))
    return qrels, runs, info
