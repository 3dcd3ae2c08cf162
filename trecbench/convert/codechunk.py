"""code-chunk's retrieval eval (``detailed_<ts>.json``) → one qrels/run pair per chunker.

Each entry of the file is one (chunker, repo) with its ``queryResults``; chunk ids are
``<absolute path>:<start>-<end>``. Docnos are normalised to ``<repo>/<path in repo>:<start>-<end>``
(the absolute prefix is machine-specific; without the repo, ids collide across repos). The
qid is the ``taskId`` (``repo/N``), the repo is the stratum, and the qrels come from
``relevantChunkIds`` (complete: the producer judged every chunk of the corpus).

The input's shape is checked as it is read (types of ids, lists and numbers; positive
ranks; a ``taskId`` used twice by one chunker); errors name the file, line and record.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

import pandas as pd

from ..ids import STR
from ..sources import read_json
from ..strata import group_name_problem
from .common import (
    Conversion,
    Report,
    escaped,
    given_name,
    make_qrels,
    qrels_summary,
    ranked_run,
    refuse_repeat,
    unique_tag,
)
from .identifiers import RankPolicy


def normalise_ids(ids: pd.Series, repo: pd.Series, report: Report) -> pd.Series:
    """``<repo>/<path inside repo>:<lines>`` from absolute chunk ids.

    The repo folder is located as the first ``/<repo>/`` in an absolute path. Ids relative
    (not starting with ``/``) get ``<repo>/`` prepended unless they start with it. An
    absolute id without its repo folder is kept as it is and reported; the report names
    each resulting id as the files write it (escaped), a changed one's ``from`` as read,
    each repair once (a relative id per repo it is placed in).
    """
    ids = ids.astype(STR)
    repo = repo.astype(STR)
    # one pass over plain strings: a masked assignment of a list to a string Series ended
    # in "TypeError: only integer scalar arrays can be converted to a scalar index" under
    # pandas 3.0 (its Arrow-backed default string arrays)
    out, stray, placed = [], [], {}  # placed: (id as read, as written) -> None
    for chunk_id, folder in zip(ids.tolist(), repo.tolist(), strict=True):
        # only an absolute id is cut at its repo folder: a relative one holding it
        # (src/r/x.py in repo r) names a file of its own, which cut would be r/x.py's
        found = chunk_id.find(f"/{folder}/") if chunk_id.startswith("/") else -1
        if found >= 0:
            out.append(chunk_id[found + 1 :])
        elif chunk_id.startswith("/"):
            out.append(chunk_id)
            stray.append(chunk_id)
        elif chunk_id.startswith(folder + "/"):
            out.append(chunk_id)
        else:
            out.append(f"{folder}/{chunk_id}")
            placed[chunk_id, out[-1]] = None
    report.repair(
        "absolute chunk id outside its repo folder (kept unchanged)",
        ({"id": i} for i in escaped(dict.fromkeys(stray), "docno")),
    )
    report.repair(
        "relative chunk id: its repo folder prepended",
        (
            {"from": read, "to": written}
            for (read, _), written in zip(
                placed, escaped((b for _, b in placed), "docno"), strict=True
            )
        ),
    )
    return pd.Series(out, index=ids.index, dtype=STR)


@dataclass
class _Read:
    """What a ``detailed_*.json`` holds, as read (in file order)."""

    retrieved: list[tuple] = field(default_factory=list)  # chunker, repo, qid, docno, rank, score
    relevant: list[tuple] = field(default_factory=list)  # chunker, repo, qid, chunk id
    producer: list[tuple] = field(default_factory=list)  # chunker, qid, the producer's metrics
    strata: dict[str, str] = field(default_factory=dict)  # qid -> repo
    seen: dict[tuple[str, str], str] = field(default_factory=dict)  # (chunker, taskId) -> place
    tags: dict[str, str] = field(default_factory=dict)  # chunker -> its run tag
    # run tag in lower case -> ("chunker '<chunker>'", the tag)
    owners: dict[str, tuple[str, str]] = field(default_factory=dict)
    # chunker -> repo -> its entry's configuration (one per entry, as the input holds them:
    # a chunker's configuration kept once lost the others without a word)
    config: dict = field(default_factory=dict)

    @property
    def chunkers(self) -> list[str]:
        """The chunkers with query results, in file order."""
        return list(dict.fromkeys([c for c, _, _ in self.producer]))


def convert_codechunk(detailed: str | os.PathLike, *, name: str | None = None) -> Conversion:
    """Convert a code-chunk ``detailed_*.json`` (plain or compressed) into qrels and a run per
    chunker.

    Qrels are named ``<name>-<chunker>`` (chunkers cut the corpus differently, so their
    relevant chunks differ; ``name``: default made of the file's name); runs are tagged
    with the chunker.
    Returns the :class:`~trecbench.convert.model.Conversion` (qrels, runs, sidecar) that
    :func:`trecbench.write_conversion` writes.
    """
    name = "codechunk" if name is None else given_name(name)
    doc = read_json(detailed, "detailed results")
    report = Report()
    found = _read_entries(doc, report)
    qrels, runs, info = _per_chunker(doc, found, name, report)
    return Conversion(
        name=name,
        converter="code-chunk",
        qrels=qrels,
        runs=runs,
        report=report,
        strata=pd.DataFrame(
            {"qid": list(found.strata), "repo": list(found.strata.values())}, dtype=STR
        ),
        provenance={
            "inputs": [doc.source.record],
            "config": found.config,
            "producer_metrics": _producer_metrics(found),
        },
        qrels_info=info,
    )


def _producer_metrics(found: _Read) -> dict:
    """The producer's metrics per chunker, by query as the files write it (escaped)."""
    chunkers, qids, metrics = zip(*found.producer, strict=True)
    named = list(zip(chunkers, escaped(qids), metrics, strict=True))
    return {chunker: {q: m for c, q, m in named if c == chunker} for chunker in found.chunkers}


def _read_entries(doc, report: Report) -> _Read:
    """Every (chunker, repo) entry's query results, their shape checked as they are read;
    a chunker whose name is not its run tag is reported, and an entry without query
    results refused or reported (:func:`_entries_without_queries`)."""
    if isinstance(doc.value, dict) and {"overall", "perRepo"} <= doc.value.keys():
        raise doc.root.error(
            "this is a summary (summary_*.json: overall and perRepo metrics); convert the "
            "detailed results (detailed_*.json)"
        )
    entries = doc.root.expect_list(doc.value, "a JSON array of (chunker, repo) entries")
    found = _Read()
    empty = []  # (place, chunker, repo) of the entries without query results
    for index, entry in enumerate(entries):
        at = doc.root / index
        entry = at.expect_object(entry)
        chunker = (at / "chunker").expect_id(entry.get("chunker"))
        if chunker not in found.tags:
            found.tags[chunker] = unique_tag(
                chunker, found.owners, at / "chunker", "chunker", report
            )
        repo = (at / "repo").expect_id(entry.get("repo"))
        # the queries' stratum: a name score --strata refuses in the sidecar refused here
        problem = group_name_problem("repo", repo, "every entry names its repo")
        if problem is not None:
            raise (at / "repo").error(problem)
        found.config.setdefault(chunker, {})[repo] = entry.get("config")
        queries = (at / "queryResults").expect_list(entry.get("queryResults"))
        if not queries:
            empty.append((at / "queryResults", chunker, repo))
        for qindex, query in enumerate(queries):
            _read_query(found, at / "queryResults" / qindex, query, chunker, repo)
    if not found.producer:
        raise doc.root.error("no query results")
    _entries_without_queries(found, empty, report)
    return found


def _entries_without_queries(found: _Read, empty: list[tuple], report: Report) -> None:
    """Entries without query results: a chunker with none in any entry is refused (its
    run and qrels would be empty, as a chunker that retrieved nothing is refused); a repo
    of a chunker with queries elsewhere is reported (its means leave that repo out)."""
    with_queries = set(found.chunkers)
    for here, chunker, _ in empty:
        if chunker not in with_queries:
            raise here.error(f"chunker {chunker!r} has no query results in any entry")
    # (another entry of the same chunker and repo may hold its queries: nothing left out)
    answered = {(chunker, found.strata[qid]) for chunker, qid in found.seen}
    report.drop(
        "entry without query results (its repo left out of the chunker's run and qrels)",
        ({"chunker": c, "repo": r} for _, c, r in empty if (c, r) not in answered),
    )


def _read_query(found: _Read, here, query, chunker: str, repo: str) -> None:
    """One query result (at ``here``): its retrieved chunks, relevant ids and metrics; a
    ``taskId`` twice for one chunker, or in two repos, is refused."""
    query = here.expect_object(query)
    qid = (here / "taskId").expect_id(query.get("taskId"))
    refuse_repeat(found.seen, (chunker, qid), here, "taskId", f"{qid!r} of chunker {chunker!r}")
    if found.strata.setdefault(qid, repo) != repo:
        raise (here / "taskId").error(
            f"taskId {qid!r} belongs to repo {found.strata[qid]!r} for another chunker"
        )
    chunks = (here / "retrievedChunks").expect_list(query.get("retrievedChunks"))
    ranks = RankPolicy("retrieved chunk of the query")
    for position, chunk in enumerate(chunks):
        place = here / "retrievedChunks" / position
        chunk = place.expect_object(chunk)
        rank = ranks.read(place, chunk.get("rank"), position + 1)
        score = (place / "score").expect_number(chunk.get("score"))
        docno = (place / "id").expect_id(chunk.get("id"))
        found.retrieved.append((chunker, repo, qid, docno, rank, score))
    ids = (here / "relevantChunkIds").expect_ids(query.get("relevantChunkIds"))
    found.relevant += [(chunker, repo, qid, chunk_id) for chunk_id in ids]
    found.producer.append((chunker, qid, query.get("metrics")))


def _refuse_merged(
    doc, chunkers: list[str], repos: list[str], read: list[str], written: list[str]
) -> None:
    """Refuse two absolute chunk ids of one chunker that normalise to one (``/a/r/x.py:1-2``
    and ``/b/r/x.py:1-2``: ``r/x.py:1-2``), at the second's place: two files on disk, of
    which the run would keep one as a duplicate of the other, and the qrels judge both by
    either's judgment; so are two relative ones (``r/x.py:1-2``, read as placed in repo
    ``r``, and ``x.py:1-2``, placed there: in a repo with a folder ``r`` of its own they
    are two files). An absolute and a relative id are one file: a relative id names its
    repo's (``x.py:1-2`` is ``/.../r/x.py:1-2``)."""
    first: dict[tuple[str, str, bool], str] = {}
    for chunker, repo, raw, docno in zip(chunkers, repos, read, written, strict=True):
        earlier = first.setdefault((chunker, docno, raw.startswith("/")), raw)
        if earlier != raw:
            raise _place_of(doc, chunker, repo, raw).error(
                f"chunk ids {earlier!r} and {raw!r} of chunker {chunker!r} are both "
                f"{docno!r} once normalised: two chunks would become one"
            )


def _place_of(doc, chunker: str, repo: str, raw: str):
    """The first place of chunk id ``raw`` among ``chunker``'s entries of ``repo`` (an
    error's; the input was read whole, its shape checked): a relative id names a file of
    each repo, which another repo's entry holding it does not clash with."""
    for index, entry in enumerate(doc.value):
        if str(entry.get("chunker")) != chunker or str(entry.get("repo")) != repo:
            continue
        for qindex, query in enumerate(entry["queryResults"]):
            here = doc.root / index / "queryResults" / qindex
            for position, chunk in enumerate(query["retrievedChunks"]):
                if str(chunk.get("id")) == raw:
                    return here / "retrievedChunks" / position / "id"
            for position, chunk_id in enumerate(query["relevantChunkIds"]):
                if str(chunk_id) == raw:
                    return here / "relevantChunkIds" / position
    return doc.root


def _per_chunker(doc, found: _Read, name: str, report: Report):
    """``(qrels by name, runs, qrels summaries)``: one qrels and one run per chunker, its
    chunk ids normalised (:func:`normalise_ids`; two that become one refused)."""
    runs_frame = pd.DataFrame(
        found.retrieved, columns=["chunker", "repo", "qid", "docno", "order", "score"]
    )
    rel_frame = pd.DataFrame(found.relevant, columns=["chunker", "repo", "qid", "docno"])
    # the runs' and the qrels' ids normalised at once: an id both hold is one repair,
    # listed once in the sidecar (it was listed for each)
    both = pd.concat([runs_frame[["docno", "repo"]], rel_frame[["docno", "repo"]]])
    docnos = normalise_ids(both["docno"], both["repo"], report).to_numpy()
    chunkers = pd.concat([runs_frame["chunker"], rel_frame["chunker"]]).tolist()
    repos = both["repo"].astype(str).tolist()
    _refuse_merged(doc, chunkers, repos, both["docno"].tolist(), docnos.tolist())
    runs_frame["docno"] = pd.Series(docnos[: len(runs_frame)], runs_frame.index, dtype=STR)
    rel_frame["docno"] = pd.Series(docnos[len(runs_frame) :], rel_frame.index, dtype=STR)

    qrels, runs, info = {}, [], {}
    for chunker in found.chunkers:
        tag = found.tags[chunker]
        qrels_name = f"{name}-{tag}"
        chunker_qids = [q for c, q, _ in found.producer if c == chunker]
        table = make_qrels(
            rel_frame.loc[rel_frame["chunker"] == chunker, ["qid", "docno"]].assign(rel=1),
            qrels_name,
            report,
        )
        qrels[qrels_name] = table
        info[qrels_name] = qrels_summary(
            table,
            chunker_qids,
            report,
            f"query without relevant chunks ({chunker}; not in the qrels)",
        )
        rows = runs_frame.loc[runs_frame["chunker"] == chunker]
        runs.append(
            ranked_run(
                rows[["qid", "docno", "order", "score"]],
                tag,
                qrels_name,
                report,
                queries=chunker_qids,
            )
        )
    return qrels, runs, info
