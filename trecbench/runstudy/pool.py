"""Judgment pools from runs, as TREC builds them, and the pool's bias.

The depth-``k`` pool of a topic is the union of every run's top ``k`` documents in
trecbench's ranking (score descending at float32, docno descending). With qrels, the pool
file leaves out the documents already judged, and each run is told how many relevant
documents (grade at least the relevance level) it alone retrieved within the depth: the
documents the qrels would lose if the run had not been pooled (leave-one-run-out, Zobel,
"How reliable are the results of large-scale information retrieval experiments?",
SIGIR 1998).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa

from .. import arrow, input_warnings, outputs
from .. import arrow_compute as pc
from ..callbacks import refuse_uncallable
from ..errors import UsageError
from ..files import check_text_ids, text_lines
from . import ranked as ranked_runs
from .pool_stream import Streamed, stream


@dataclass(frozen=True)
class PoolSettings:
    """``depth``: documents of each run pooled per topic; ``relevance_level``: the grade
    from which a judged document counts as relevant (trec_eval's ``-l``)."""

    depth: int = 100
    relevance_level: int = 1

    def __post_init__(self):
        depth = ranked_runs.check_count("pool depth", self.depth)
        level = ranked_runs.check_count("pool relevance level", self.relevance_level)
        object.__setattr__(self, "depth", depth)
        object.__setattr__(self, "relevance_level", level)


@dataclass(frozen=True)
class RunContribution:
    """What one run brought to the pool: ``pooled`` documents (its top ``depth``, summed
    over topics), ``unique`` of them no other run pooled, and with qrels ``judged`` of them
    already judged and ``relevant_only`` relevant documents only it retrieved."""

    run: str
    pooled: int
    unique: int
    judged: int | None = None
    relevant_only: int | None = None


# the ids checked and lines made by Pool.to_text between two reports to its progress
TEXT_PIECE = 1 << 16


@dataclass(frozen=True)
class Pool:
    """The documents to judge (``qid``, ``docno``; judged ones left out when qrels were
    given), sorted by qid then docno byte-wise, and each run's contribution; ``warnings``:
    what the caller should say of a run pooling the same documents as another
    (:func:`_twin_warnings`) and of the runs' topics the qrels lack
    (:func:`_topic_warnings`), the command line on stderr. A result: other documents make
    another Pool (``dataclasses.replace`` with other lists), never the lists edited in
    place (:func:`pool` keeps the Arrow arrays it made them from, ``columns``, which
    :meth:`to_text` joins)."""

    def __repr__(self) -> str:  # every pair listed ran to 24,000 characters
        from ..plurals import few_reprs, short_repr

        runs = few_reprs([c.run for c in self.contributions])
        return (
            f"Pool(runs={runs}, depth={self.settings.depth}, topics={len(set(self.qid))}, "
            f"documents={len(self.docno)}, qrels={short_repr(self.qrels)})"
        )

    settings: PoolSettings
    qid: list[str]
    docno: list[str]
    contributions: list[RunContribution]
    with_qrels: bool
    warnings: tuple[str, ...] = ()
    input_warnings: tuple[str, ...] = ()  # what its inputs warned: input_warnings.carried
    # the records of its input files, runs then qrels (trecbench.report.input_record),
    # taken as they were read; and the qrels' path (None: none given, or held in memory)
    inputs: tuple[dict, ...] = ()
    qrels: str | None = None
    # (role, id) -> (run, line): where each id a TREC line cannot hold was first read
    unwritable: dict = field(default_factory=dict, repr=False, compare=False)
    # (qid, docno, their Arrow arrays): the lists pool made and the arrays it made them
    # from, which to_text joins while ``qid`` and ``docno`` are those lists (a copy by
    # dataclasses.replace keeps them; one with other lists, or a Pool made by hand, has
    # its lists converted)
    columns: tuple | None = field(default=None, repr=False, compare=False)

    def to_text(self, grade: str | None = None, progress=None) -> str:
        """The pool as qrels-shaped lines ``qid 0 docno`` (`` grade`` appended when given, as
        :func:`grade_text` writes it).
        An id a TREC line cannot hold is refused at the run and line it was read from.
        ``progress(label, done, total)``: the ids checked (``checking ids``, every qid,
        then every docno), then the lines made (``writing``), a piece at a time."""
        if grade is not None:
            grade = grade_text(grade)
        if self.unwritable:
            self._refuse_unwritable()
        n = len(self.qid)
        qid, docno = self._arrays() or (self.qid, self.docno)  # (both slice alike)
        for role, ids, before in (("qid", qid, 0), ("docno", docno, n)):
            for start in range(0, n, TEXT_PIECE):  # in order: the first id refused as one
                piece = ids[start : start + TEXT_PIECE]
                check_text_ids({role: piece}, "a pool file", "the runs")
                if progress is not None:
                    progress("checking ids", before + start + len(piece), 2 * n)
        zero = arrow.scalar("0")
        graded = {} if grade is None else {"rel": arrow.scalar(grade)}
        pieces = []
        for start in range(0, n, TEXT_PIECE):  # joined by Arrow: no Python per line
            stop = start + TEXT_PIECE
            line = {"qid": _text(qid[start:stop]), "q0": zero, "docno": _text(docno[start:stop])}
            line |= graded
            pieces.append(text_lines(line, " ").decode())
            if progress is not None:
                progress("writing", min(stop, n), n)
        return "".join(pieces)

    def _arrays(self) -> tuple[pa.Array, pa.Array] | None:
        """The Arrow arrays :func:`pool` made ``qid`` and ``docno`` from, while these are
        still the lists made then (none for a Pool made by hand or by ``replace``)."""
        made = self.columns
        if made is None or made[0] is not self.qid or made[1] is not self.docno:
            return None
        return made[2], made[3]

    def _refuse_unwritable(self) -> None:
        """Refuse the first line's id (by qid, then docno) a TREC line cannot hold, at the
        first run and line it was read from (%XX-quoted, as findings quote input)."""
        from ..files import unwritable_id, unwritable_ids

        bad = {what: unwritable_ids(arrow.array(ids, pa.string()), what)
               for what, ids in (("qid", self.qid), ("docno", self.docno))}  # fmt: skip
        rows = [np.flatnonzero(b)[0] for b in bad.values() if b is not None and b.any()]
        if not rows:
            return
        row = int(min(rows))
        for what, ids in (("qid", self.qid), ("docno", self.docno)):
            if bad[what] is not None and bad[what][row] and (what, ids[row]) in self.unwritable:
                run, line = self.unwritable[what, ids[row]]
                raise unwritable_id(run, line, "a pool file", what, ids[row])

    def to_json(self, unjudged_grade: str | None = None) -> dict:
        """The summary of ``pool --format json`` (the documents are in the pool file), with
        what made it, as leaderboard's JSON records it (``tool``, ``environment``,
        ``settings``, ``inputs``); ``unjudged_grade``: the grade the pool file was written
        with (:meth:`to_text`)."""
        from ..report import environment, tool

        runs = []
        for c in self.contributions:
            row = {"run": c.run, "pooled": c.pooled, "unique": c.unique}
            if self.with_qrels:
                row |= {"judged": c.judged, "relevant_only": c.relevant_only}
            runs.append(row)
        return {
            "tool": tool(),
            "environment": environment(),
            "settings": {
                "depth": self.settings.depth,
                "relevance_level": self.settings.relevance_level,
                "qrels": self.qrels,
                # as the pool file writes it ('+1' as 1), refused where the file refuses it
                "unjudged_grade": None
                if unjudged_grade is None
                else grade_text(unjudged_grade, "unjudged_grade"),
            },
            "inputs": list(self.inputs),
            "documents": len(self.qid),
            "topics": len(set(self.qid)),
            "runs": runs,
        }


def _text(ids) -> pa.Array:
    """A piece of a pool's ids as Arrow strings: a slice of its arrays, or of a hand-made
    Pool's lists, each id written as ``str`` writes it (as the lines' f-strings did)."""
    if isinstance(ids, pa.Array):
        return pc.cast(ids, pa.string())
    return arrow.array([str(one) for one in ids], pa.string())


def grade_text(grade: str | int, name: str = "grade", quoted: Callable = repr) -> str:
    """``grade`` as a pool line writes it: the integer in the qrels grammar ``-?\\d+``
    (``+1`` is written ``1``, which trecbench's qrels reader takes without a note).
    Refuses a grade the pool file could not be read back with: trecbench's qrels reader
    takes an ASCII integer within +-MAX_GRADE. ``name``: what gave it, as the refusal
    says (:meth:`Pool.to_text`'s ``grade``; the command line's ``--unjudged-grade``),
    ``quoted`` how it quotes the grade (a command line's: :func:`~.errors.option_excerpt`)."""
    from ..inputs.trec_text import MAX_GRADE, parse_grades

    text = str(grade)
    # text beyond ASCII is no integer, and is not parsed: a lone surrogate (a command
    # line's byte that is not UTF-8) cannot even be made an Arrow string
    if text.isascii():
        parsed = parse_grades(arrow.array([text], pa.string()))
        if parsed.integer[0] and not parsed.huge[0]:
            return str(int(text))
    raise UsageError(
        f"{name} must be an integer within +-{MAX_GRADE:,}, as qrels grades are, "
        f"not {quoted(grade)}"
    )


def _judgments(qrels) -> pa.Table:
    """The qrels' table, refusing a document judged twice for a topic (as trec_eval does:
    which of its grades would count is not said)."""
    from ..errors import DuplicateError
    from ..gated.reading import load

    loaded = load(qrels, "qrels")  # through score's gate: its errors and warnings
    table = loaded.table
    groups = arrow.Groups(arrow.row_keys(table.column("qid"), table.column("docno")))
    twice = np.flatnonzero(groups.counts > 1)
    if len(twice):
        rows = groups.order[groups.starts[twice[0]] : groups.starts[twice[0]] + 2]
        first, second = (int(table.column("line")[int(row)].as_py()) for row in rows)
        qid, docno = (table.column(name)[int(rows[0])].as_py() for name in ("qid", "docno"))
        message = f"duplicate docs {docno} for topic {qid} (first on line {first})"
        raise DuplicateError(loaded.origin, second, message, "Q5")
    return table


@outputs.in_input_scope  # each input's record taken as it is read, not read again
@input_warnings.carried
def pool(
    runs, *, depth: int = 100, qrels=None, relevance_level: int = 1, names=None, progress=None
) -> Pool:
    """The depth-``depth`` pool of ``runs`` (paths, DataFrames, Arrow tables, dicts);
    with ``qrels``, the judged documents are left out and the pool bias is counted
    (relevant: a grade of at least ``relevance_level``). ``names``: one per run (default:
    as :func:`trecbench.evaluate` names them). Returns a :class:`Pool`.
    ``progress(label, done, total)``: the bytes of each file read (``reading <file>``),
    the rows of the runs folded into the pool's pairs as they are (``pooling``, every few
    runs: :func:`~.pool_stream.stream`), then the pool sorted (``sorting the pool``, three steps).

    >>> result = pool(["a.run", "b.run"], depth=10)  # doctest: +SKIP
    >>> print(result.to_text(), end="")  # doctest: +SKIP
    """
    refuse_uncallable(progress)
    from ..conclusions.scores import source_name
    from ..inputs import no_run_given, refuse_repeated, split_runs
    from ..inputs.streams import steps
    from ..naming import check_read_once, run_names
    from ..report import read_records

    settings = PoolSettings(depth, relevance_level)
    sources, given = split_runs(runs)
    if not sources:
        raise no_run_given("pool", runs)
    # a run twice would share its documents with itself: no unique one, no relevant_only
    # (as the command line refuses it, with names= telling the two apart or not)
    refuse_repeated(sources, lambda: run_names(sources, names if names is not None else given))
    check_read_once([*sources, qrels])  # one pipe as a run and the qrels: read once
    labels = run_names(sources, names if names is not None else given)
    judged = _judgments(qrels) if qrels is not None else None
    against = None if judged is None else (judged, source_name(qrels) or "the qrels")
    pooled = stream(sources, labels, settings.depth, progress, against)
    step = steps(progress, "sorting the pool", 3)
    grades = _grades(pooled, judged)
    contributions = _contributions(pooled, grades, labels, settings.relevance_level, judged)
    warnings = _twin_warnings(pooled, labels, settings.depth)
    warnings += () if judged is None else _topic_warnings(pooled, judged, labels, qrels)
    topic, docno = arrow.array(pooled.topic), pooled.docno
    if grades is not None:  # judged documents are left out
        unjudged = arrow.array(np.isnan(grades))
        topic, docno = topic.filter(unjudged), docno.filter(unjudged)
    # topics are numbered in their qids' byte-wise order: by topic, then docno byte-wise
    sort = pc.sort_indices(
        pa.table({"t": topic, "d": pc.cast(docno, pa.large_binary())}),
        sort_keys=[("t", "ascending"), ("d", "ascending")],
    )
    step()
    qids = pooled.qids.take(topic.take(sort))
    step()
    docnos = docno.take(sort)
    step()
    qid, docno = qids.to_pylist(), docnos.to_pylist()
    return Pool(
        settings,
        qid,
        docno,
        contributions,
        judged is not None,
        warnings,
        inputs=tuple(read_records([*((s, "run") for s in sources), (qrels, "qrels")])),
        qrels=str(qrels) if isinstance(qrels, (str, os.PathLike)) else None,
        unwritable=pooled.unwritable,
        columns=(qid, docno, qids, docnos),
    )


def _twin_warnings(pooled: Streamed, labels: list[str], depth: int) -> tuple[str, ...]:
    """A line per run that pools exactly the documents of a run before it (a copy of it,
    or the same top ``depth`` in another order): neither then has a unique document, and
    without a word the table would read as two runs that added nothing of their own.
    Only runs without a document of their own can be twins; among them an order-free
    fingerprint of their pairs finds the candidates, compared whole (no run's pairs are
    sorted or held twice otherwise)."""
    earlier: dict[tuple[int, int, int], list[int]] = {}  # fingerprint -> runs with it
    warnings = []
    for index, number in enumerate(pooled.numbers):
        if (pooled.runs[number] == 1).any():
            continue  # a document of its own
        fingerprint = (len(number), int(number.sum()), int(np.bitwise_xor.reduce(number)))
        same = earlier.setdefault(fingerprint, [])
        twin = next((i for i in same if _same_pairs(pooled.numbers[i], number)), None)
        if twin is None:
            same.append(index)
        else:
            warnings.append(
                f"{labels[index]}: pools the same documents as {labels[twin]} (to depth "
                f"{depth}): neither has a unique document"
            )
    return tuple(warnings)


def _same_pairs(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two runs pooled the same pairs (each run's pairs are distinct: stream())."""
    return np.array_equal(np.sort(a), np.sort(b))


def _topic_warnings(pooled: Streamed, judged: pa.Table, labels: list[str], qrels) -> tuple:
    """Score's warning of a run's topics the qrels lack, in pool's terms: a line per run
    (``labels``) with such topics, as every command says it; or, when the ``judged``
    qrels share no topic with the runs, one line naming the ``qrels`` (escaped, as the
    gate's warnings name their file): every judged and relevant_only count then reads 0,
    and nothing else would say why."""
    from ..conclusions.scores import source_name
    from ..errors import some_topics
    from ..escaping import escape_text
    from ..flag_wording import FlagWarning
    from ..id_forms import forms_apart

    qids = pc.cast(pooled.qids, pa.large_string())
    judged_qids = pc.cast(judged.column("qid").combine_chunks(), pa.large_string())
    in_qrels = arrow.to_numpy(pc.is_in(qids, value_set=judged_qids))
    if not in_qrels.any():
        name = source_name(qrels)
        judged_topics = pc.unique(judged_qids).to_pylist()
        apart = forms_apart(pc.unique(qids).to_pylist(), judged_topics, "the runs'", "the qrels'")
        return (
            f"{f'{escape_text(name)}: ' if name else ''}no topic of the runs is in the qrels "
            f"(the runs' {some_topics(qids.to_pylist())}; the qrels' "
            f"{some_topics(judged_topics)}{apart}): nothing pooled is judged (every run's "
            "judged and relevant_only are 0)",
        )
    warnings = []
    for label, number in zip(labels, pooled.numbers, strict=True):
        held = np.zeros(len(in_qrels), bool)  # (np.unique would import numpy.ma)
        held[pooled.topic[number]] = True
        absent = np.flatnonzero(held & ~in_qrels)  # sorted: the qids are, byte-wise
        if len(absent):
            absent_qids = tuple(qids.take(arrow.array(absent)).to_pylist())
            warnings.append(FlagWarning("run_only_pooled", label, absent_qids, False, None))
    return tuple(warnings)


def _grades(pooled: Streamed, qrels: pa.Table | None) -> np.ndarray | None:
    """The qrels grade of every pooled pair (NaN: not judged, a negative grade too: to
    trec_eval "in the pool, unjudged"); None without qrels. Matched on one integer key per
    (qid, docno) of the pairs and the qrels together (a table join loads pyarrow.dataset,
    which imports pandas); the qrels judge a pair at most once."""
    if qrels is None:
        return None
    qid = pooled.qids.take(arrow.array(pooled.topic))

    def both(ours, theirs) -> pa.Array:
        return pa.concat_arrays([pc.cast(c, pa.large_string()) for c in (ours, theirs)])

    keys = arrow.row_keys(
        both(qid, qrels.column("qid").combine_chunks()),
        both(pooled.docno, qrels.column("docno").combine_chunks()),
    )
    pair_keys, judged_keys = keys[: len(qid)], keys[len(qid) :]
    at = pc.index_in(arrow.array(pair_keys), value_set=arrow.array(judged_keys))
    grades = pc.cast(qrels.column("rel"), pa.float64()).combine_chunks().take(at)
    grades = arrow.to_numpy(grades.fill_null(arrow.scalar(np.nan, pa.float64()))).copy()
    grades[grades < 0] = np.nan
    return grades


def _contributions(pooled: Streamed, grades, labels: list[str], level: int, qrels) -> list:
    alone = pooled.runs == 1
    if grades is None:  # nothing judged: no per-pair NaN grades to test
        judged = relevant = np.zeros(len(alone), bool)
    else:
        judged = ~np.isnan(grades)
        relevant = judged & (np.nan_to_num(grades, nan=-np.inf) >= level)
    relevant_alone = relevant & alone
    with_qrels = qrels is not None
    # per pair, then per row of each run (a run's rows at a time: no temporaries the
    # size of every run's rows)
    return [
        RunContribution(
            label,
            len(number),
            int(np.count_nonzero(alone[number])),
            int(np.count_nonzero(judged[number])) if with_qrels else None,
            int(np.count_nonzero(relevant_alone[number])) if with_qrels else None,
        )
        for label, number in zip(labels, pooled.numbers, strict=True)
    ]
