"""The judgments of an evaluation, read once and shared by every run: graded qrels
(:class:`Qrels`, with the per-topic facts trec_eval stops or warns on) or preferences
(:class:`Preferences`, ``-R prefs``/``qrels_prefs``)."""

from __future__ import annotations

import contextlib
import contextvars
import copy
import os
from functools import cached_property

import numpy as np
import pyarrow as pa

from .. import arrow, inputs, ranking
from .. import arrow_compute as pc
from ..errors import Setting, TrecbenchError, UnevaluableTopicError, UsageError, excerpt_plain
from ..flag_wording import no_relevant_document
from ..gated.reading import load
from ..hash_index import string_hash
from ..inputs.tables import judged_twice, subtopics
from ..trec_eval import judgment_groups, prefs_files
from ..trec_eval.compat import Compat
from ..trec_eval.negative_topics import unevaluable
from ..trec_eval.prefs_files import PREFS_FORMATS
from .results import FlaggedTopic

# how many times the qrels' judgments Qrels.judgments keeps for reuse (see Qrels._keep)
KEPT_JUDGMENTS = 2
# the loaded qrels whose Qrels load_judgments builds once within reused(): (loaded, built)
_REUSED: contextvars.ContextVar[tuple | None] = contextvars.ContextVar("reused", default=None)


class Qrels:
    """The qrels of one call, shared by every run (parsed once; per-topic facts, duplicates
    and dicts computed once)."""

    def __init__(
        self, table: pa.Table, path: str | None, relevance_level: int, rel_format: str = "qrels"
    ):
        self.table = table
        self.path = path or "<qrels>"
        self.requested_level = relevance_level  # -l as given (messages, reports)
        self.rel_format = rel_format  # "qrels", or "qrels_jg": the iter column is the group
        rel = table.column("rel")
        groups = arrow.Groups(table.column("qid"))
        top_grades = groups.reduce(np.maximum, rel)
        facts = zip(
            top_grades.tolist(),
            groups.reduce(np.minimum, rel).tolist(),
            groups.reduce(np.minimum, table.column("line")).tolist(),
            strict=True,
        )
        # per topic: (largest grade, smallest grade, first line)
        self.topics: dict[str, tuple[int, int, int]] = dict(
            zip(groups.keys.to_pylist(), facts, strict=True)
        )
        self.qids = sorted(self.topics)
        self.top_grade = int(top_grades.max()) if len(top_grades) else 0
        self.relevance_level = self.level(relevance_level)  # what engines get
        # trec_eval's -c total for num_rel counts grades > 0, whatever -l says
        self.positive_judgments = int(pc.sum(pc.greater(rel, arrow.scalar(0))).as_py() or 0)
        self._duplicates = self._find_duplicates(groups.codes) if rel_format == "qrels" else {}
        # judgments() per tuple of qids: runs of one collection read whole cut their blocks
        # at the same topics, so each set is looked up once, not once per run. Runs read
        # within --memory cut theirs where their own sizes say, and tie bounds ask for a
        # run's tied topics, so sets need not repeat: the oldest are let go beyond twice
        # the qrels' judgments, and memory stays that of the qrels
        self._judgments: dict[tuple[str, ...], tuple] = {}
        self._kept_judgments = 0

    def relevant_counts(self, level: int) -> dict[str, int]:
        """Per topic, its documents judged at least ``level``: the ``num_rel`` of a run
        without results for it (which trec_eval -c counts, as it counts 0 for every other
        measure)."""
        relevant = arrow.to_numpy(self.table.column("rel")) >= level
        groups = arrow.Groups(self.table.column("qid"))
        counts = groups.reduce(np.add, relevant.astype(np.int64)).tolist()
        return dict(zip(groups.keys.to_pylist(), counts, strict=True))

    def with_rows(self, rows: pa.Table, grade: int) -> Qrels:
        """These judgments with ``rows`` (of :attr:`table`'s schema, lines after these)
        added after them: documents these do not judge, or judge at a negative grade (that
        judgment replaced), each judged at ``grade``. Built from these, not read again (the
        bounds ask for it per block and depth): the per-topic facts are updated per topic,
        and an unjudged document cannot repeat a judgment, so the duplicates are these'."""
        new = copy.copy(self)
        for cached in ("as_dict", "frame", "_stopping"):  # of these judgments, not the new ones
            new.__dict__.pop(cached, None)
        new.table = pa.concat_tables([self._without(rows), rows])
        groups = arrow.Groups(rows.column("qid"))
        firsts = groups.reduce(np.minimum, rows.column("line")).tolist()
        new.topics = dict(self.topics)
        for qid, first in zip(groups.keys.to_pylist(), firsts, strict=True):
            top, low, line = new.topics.get(qid, (grade, grade, first))
            new.topics[qid] = (max(top, grade), min(low, grade), line)
        new.qids = sorted(new.topics)
        new.top_grade = max(self.top_grade, grade) if new.topics else 0
        new.relevance_level = new.level(self.requested_level)
        new.positive_judgments = self.positive_judgments + (rows.num_rows if grade > 0 else 0)
        new._judgments, new._kept_judgments = {}, 0
        return new

    def _without(self, rows: pa.Table) -> pa.Table:
        """:attr:`table` without its judgments of the documents ``rows`` judge (negative
        ones: the others are not among them)."""
        negative = pc.less(self.table.column("rel"), arrow.scalar(0, pa.int64()))
        if not pc.any(negative).as_py():
            return self.table
        both = [  # keyed together: a key means the same (qid, docno) in both tables
            pa.chunked_array([*self.table.column(name).chunks, *rows.column(name).chunks])
            for name in ("qid", "docno")
        ]
        keys = arrow.row_keys(*both)
        judged, added = keys[: self.table.num_rows], keys[self.table.num_rows :]
        return self.table.filter(arrow.array(~np.isin(judged, added)))

    def _find_duplicates(self, topic_codes: np.ndarray) -> dict[str, tuple[str, int, int]]:
        """Per topic judging a document twice, the smallest such docno (as trec_eval
        names it) with its first and last lines; ``topic_codes``: each row's topic."""
        qid, docno, line = (self.table.column(name) for name in ("qid", "docno", "line"))
        # equal judgments hash alike: where no two (topic, docno) hashes are equal, as in
        # almost every qrels, nothing repeats (a fifth of a 27,000-line file's loading)
        hashes = np.sort(string_hash(docno, salt=topic_codes))
        if not np.any(hashes[1:] == hashes[:-1]):
            return {}
        groups = arrow.Groups(arrow.row_keys(qid, docno))
        first, last = groups.reduce(np.minimum, line), groups.reduce(np.maximum, line)
        dupes = np.flatnonzero(groups.counts > 1)
        rows = groups.first[dupes]
        qids = ranking.take_rows(qid, rows).to_pylist()
        docnos = ranking.take_rows(docno, rows).to_pylist()
        found: dict[str, tuple[str, int, int]] = {}
        for q, d, a, b in zip(qids, docnos, first[dupes], last[dupes], strict=True):
            if q not in found or d < found[q][0]:  # the smallest docno, as trec_eval names it
                found[q] = (d, int(a), int(b))
        return found

    def first_failure(
        self, qids: list[str], duplicates: bool = True
    ) -> tuple[int, TrecbenchError] | None:
        """The first of ``qids`` (in evaluation order) trec_eval stops at because of its
        judgments, with the error: a document judged twice (exit 4), or a topic whose
        judgments are all negative that trec_eval cannot evaluate
        (:mod:`trecbench.trec_eval.negative_topics`; pytrec_eval crashes too: trecbench
        refuses them). Judgment groups are checked when read; ``duplicates=False``:
        diversity qrels list a document once per subtopic."""
        if self.rel_format != "qrels" or self._stopping.isdisjoint(qids):
            return None
        for position, qid in enumerate(qids):
            if qid not in self._stopping:
                continue
            if duplicates and qid in self._duplicates:
                docno, first, second = self._duplicates[qid]
                return position, judged_twice(self.table, self.path, qid, docno, first, second)
            top, _, line = self.topics[qid]
            if unevaluable(position, top):
                message = (
                    f"every judgment of topic {excerpt_plain(qid)} is negative (largest grade "
                    f"{top}): trec_eval cannot evaluate it"
                )
                error = UnevaluableTopicError(self.path, line, message, "X5")
                error.cli_aside = " (exit 4 or a crash)"  # what the command line's exit is
                return position, error
        return None

    @cached_property
    def _stopping(self) -> frozenset[str]:
        """The topics :meth:`first_failure` may stop at: those judging a document twice or
        judging every document negatively (the rest pass, and are not looked at)."""
        negative = (qid for qid, (top, _, _) in self.topics.items() if top < 0)
        return frozenset(self._duplicates).union(negative)

    def measurable(self, qids: list[str], diversity_only: bool = False) -> list[str]:
        """The topics of ``qids`` an engine may be given wherever they come in a run: not
        those trec_eval stops at (:meth:`first_failure`) or crashes on (grades of -2 or
        less)."""
        if self.rel_format != "qrels":
            return list(qids)
        return [
            qid
            for qid in qids
            if self.topics[qid][0] > -2 and (diversity_only or qid not in self._duplicates)
        ]

    def lead(self, qids: list[str]) -> str | None:
        """When the first of ``qids`` has only negative grades (a call of trec_eval's code
        cannot start with it: :meth:`first_failure`): the first qrels topic with a grade of
        0 or more, if it sorts before it (else None)."""
        if self.topics[qids[0]][0] >= 0:
            return None
        judged = [qid for qid in self.qids if self.topics[qid][0] >= 0]
        return judged[0] if judged and judged[0] < qids[0] else None

    def judgments(self, qids: list[str]) -> tuple[np.ndarray, pa.ChunkedArray, np.ndarray]:
        """``(topic, docno, grade)`` of every judgment of the topics ``qids`` (``topic``:
        the index of its qid in ``qids``). Computed once per ``qids``; the arrays are
        read-only, since every run sharing them reads the same ones."""
        key = tuple(qids)
        found = self._judgments.get(key)
        if found is None:
            qid = self.table.column("qid")
            topic = pc.index_in(qid, value_set=arrow.array(qids, qid.type))
            kept = pc.filter(self.table.append_column("topic", topic), pc.is_valid(topic))
            topics = arrow.to_numpy(kept.column("topic")).astype(np.int64)
            grades = arrow.to_numpy(kept.column("rel")).astype(np.int64)
            topics.flags.writeable = grades.flags.writeable = False
            found = (topics, kept.column("docno"), grades)
            self._keep(key, found)
        return found

    def _keep(self, key: tuple[str, ...], judgments: tuple) -> None:
        """Keep ``judgments`` for ``key``, letting the oldest sets go beyond
        :data:`KEPT_JUDGMENTS` times the qrels' judgments."""
        self._judgments[key] = judgments
        self._kept_judgments += len(judgments[0])
        while self._kept_judgments > KEPT_JUDGMENTS * max(self.table.num_rows, 1):
            oldest = next(iter(self._judgments))
            self._kept_judgments -= len(self._judgments.pop(oldest)[0])

    @cached_property
    def as_dict(self) -> dict:
        from ..engines.pytrec_eval import qrels_to_dict

        return qrels_to_dict(self.table)

    @cached_property
    def frame(self):
        return inputs.to_pandas(self.table.select(["qid", "docno", "rel"]))

    def level(self, level: int) -> int:
        """A relevance level as engines get it: every level above the largest grade means
        "nothing is relevant", so the smallest such level stands for them (pytrec_eval holds
        levels in 32 bits, numpy in 64; -l 2^31 raised a TypeError)."""
        return min(level, max(self.top_grade, 0) + 1)

    def flagged(self) -> list[FlaggedTopic]:
        """Topics without a relevant document, and topics with negative grades."""
        level = self.requested_level
        flags = []
        for qid in self.qids:
            top, bottom, _ = self.topics[qid]
            if top < level:
                flags.append(
                    FlaggedTopic(
                        qid,
                        "no_relevant",
                        no_relevant_document(qid, level, graded=top > 0)
                        + ", and counts in the averages of the runs that hold it (of every "
                        "run with -c, complete=True)",
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


class Preferences:
    """Preference judgments (``-R prefs`` or ``qrels_prefs``), shared by every run."""

    def __init__(self, table: pa.Table, path: str | None, relevance_level: int, rel_format):
        self.table = table
        self.path = path or "<prefs>"
        self.relevance_level = relevance_level
        self.rel_format = rel_format
        self.qids = sorted(set(table.column("qid").to_pylist()))
        self.topics = dict.fromkeys(self.qids)
        self.positive_judgments = 0

    def first_failure(self, qids: list[str], duplicates: bool = True) -> None:
        return None  # found while counting preferences (trecbench.trec_eval.prefs_counts)

    def relevant_counts(self, level: int) -> dict[str, int]:
        return {}  # preferences have no num_rel

    def flagged(self) -> list[FlaggedTopic]:
        return []


def load_judgments(
    source, rel_format: str, relevance_level: int, version: Compat, progress=None
) -> tuple[Qrels | Preferences, inputs.Loaded]:
    """The judgments of ``-R rel_format`` and how they were loaded."""
    if rel_format in PREFS_FORMATS:
        if not isinstance(source, (str, os.PathLike)):
            raise UsageError(Setting("rel_format", rel_format), ": its judgments must be a file")
        loaded = prefs_files.load_prefs(source, version, qrels_format=rel_format == "qrels_prefs")
        return Preferences(loaded.table, loaded.path, relevance_level, rel_format), loaded
    loaded = load(source, "qrels", progress=progress, version=version)
    reused = _REUSED.get()
    if reused is None or reused[0] is not loaded:
        return _judgments(loaded, rel_format, relevance_level), loaded
    key = (rel_format, relevance_level)
    if key not in reused[1]:
        reused[1][key] = _judgments(loaded, rel_format, relevance_level)
    return reused[1][key], loaded


@contextlib.contextmanager
def reused(loaded: inputs.Loaded):
    """Within it, :func:`load_judgments` of ``loaded`` (this very object) prepares its
    :class:`Qrels` (per-topic facts, duplicates, the judgments looked up per set of
    topics) once, not once per call: ``fuse --optimize`` scores each candidate by an
    evaluation of its own (reviewer 458: about 30 ms a candidate, of 1,001)."""
    token = _REUSED.set((loaded, {}))
    try:
        yield
    finally:
        _REUSED.reset(token)


def _judgments(loaded: inputs.Loaded, rel_format: str, relevance_level: int) -> Qrels:
    """The :class:`Qrels` of ``loaded`` qrels, with ``-R rel_format``'s checks."""
    path = loaded.path or loaded.origin
    if rel_format == "qrels_jg":
        if subtopics(loaded.table, path) is None:  # a dict, or a table without one
            raise UsageError(
                f"{path}: ",
                Setting("rel_format", rel_format),
                " judgments need a judgment "
                "group per judgment: a qrels file's second column, or an 'iter' or 'iteration' "
                "column",
            )
        judgment_groups.check_duplicates(loaded.table, path)
    return Qrels(loaded.table, path, relevance_level, rel_format)
