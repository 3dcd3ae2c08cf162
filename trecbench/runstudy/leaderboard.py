"""Systems across collections, BEIR/MTEB style: per measure, each system's mean on each
collection, the macro mean over collections, its rank per collection and its mean rank,
with paired tests against the baseline over collections and over all topics.

A collection's mean is trec_eval's: the mean over the topics the system's run holds that
are in the collection's qrels (and in its stratum, when the suite names one). Ranks are 1
for the best mean (``better`` per measure: higher, or lower for a lower-is-better
measure), ties sharing their mean rank. The tests are two-sided paired t-tests of each
system against the baseline: *over collections* on the per-collection means (``n`` = the
collections), *over topics* on every topic of every collection both runs hold; p-values
Holm-adjusted over the systems of a measure. A test is undefined (``p`` None, with the
reason) below two pairs or when the differences do not vary.

Its JSON (:meth:`Leaderboard.to_json`) records how it was made, as compare's and
benchmark's reports do: the tool and environment, the statistical settings and every
input file (the suite, qrels, runs, strata) with its sha256, taken as the file was read.
"""

from __future__ import annotations

import contextlib
from collections import Counter
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, NamedTuple

import numpy as np
import pandas as pd

from .. import input_warnings, outputs
from ..callbacks import refuse_uncallable
from ..errors import InputError, NoOverlapError, UsageError
from ..escaping import escape_text, id_list
from ..kernels import mean_of_means
from ..naming import path_argument
from ..rounding import value_scale
from ..toml_loader import key_path
from .board import Leaderboard, MeasureBoard, PairedTest
from .suite import Collection, Suite, load_suite

if TYPE_CHECKING:  # the evaluation is imported when a collection is scored
    from ..evaluation.results import FlaggedTopic


@contextlib.contextmanager
def _reading(suite: Suite, collection: Collection) -> Iterator[None]:
    """Reads of the collection's files: one that cannot be read (missing, a folder, no
    permission; a qrels name that is no dataset either) is refused at the suite's setting
    that names it, as benchmark's configuration names one (``suite.toml:3:
    collections.x.qrels: cannot read 'nope.qrels': ...``), not by its path alone. Other
    errors pass unchanged."""
    from ..toml_loader import unreadable_setting

    try:
        yield
    except InputError as error:
        named = [(collection.qrels, ("collections", collection.name, "qrels"))]
        named += [(collection.runs[s], suite.run_keys(collection.name, s)) for s in suite.systems]
        if collection.strata is not None:
            named.append((collection.strata, ("collections", collection.name, "strata")))
        for path, keys in named:
            moved = unreadable_setting(error, suite.config_text, suite.path, path, keys)
            if moved is not None:
                raise moved from None
        raise


def _stratum(suite: Suite, collection: Collection, read: dict) -> set[str] | None:
    """The topics of the collection's stratum (None: every topic); ``read`` keeps each
    strata file read once for the suite."""
    if collection.strata is None:
        return None
    from ..strata import load_strata

    key = ("strata", collection.strata.resolve())
    if key not in read:
        read[key] = load_strata(collection.strata)
    strata = read[key]
    keep = np.ones(len(strata), bool)
    for name, value in collection.where.items():
        if name == "qid" or name not in strata.columns:  # said at the suite's where
            line, key = suite.place("collections", collection.name, "where", name)
            message = f"{key}: no strata field {name!r} in {collection.strata}"
            raise InputError(str(suite.path), line, message)
        keep &= strata[name].astype(str).to_numpy() == value
    return set(strata["qid"][keep].astype(str))


class Scored(NamedTuple):
    """A collection as :func:`_per_query` scored it."""

    frame: pd.DataFrame  # run, qid, measure, value
    judgments: dict[str, int]  # each topic's judgments as one number (_judgments)
    shown: dict[str, bool]  # the measures' values in the suite's order (_shown)
    records: list[dict]  # the qrels' and runs' (trecbench.report.evaluation_records)
    scoreless: frozenset[str]  # the qrels' topics without a relevant document
    # the flags every command says (run topics the qrels lack, negative grades), of the
    # collection's stratum
    flagged: tuple[FlaggedTopic, ...]


def _per_query(collection: Collection, suite: Suite, read: dict, shared: set, progress) -> Scored:
    """``run, qid, measure, value`` of every system on the collection (its stratum),
    each topic's judgments as one number (:func:`_judgments`), the measures' values
    in the suite's order (:func:`_shown`), the records of the qrels and runs
    (:func:`trecbench.report.evaluation_records`, taken as they were read) and the
    topics without a relevant document (grade 1 or more, trec_eval's default ``-l``,
    which a suite does not change) and the flags every command says
    (:data:`~trecbench.evaluation.flag_warnings.SAID_BY_EVERY_COMMAND`), of its stratum,
    as a :class:`Scored`. ``read``
    keeps what the suite has read, so that each input is read once: the evaluation of
    one qrels file and the same runs (strata of one collection) is shared, a qrels file
    is loaded once, and so is a run file that several evaluations score (``shared``:
    :func:`_shared_runs`). ``progress``: as :func:`leaderboard` takes it."""
    with _reading(suite, collection):
        return _scored(collection, suite, read, shared, progress)


def _scored(collection: Collection, suite: Suite, read: dict, shared: set, progress) -> Scored:
    """:func:`_per_query`'s, its files' reads refused at the suite's settings naming them."""
    from ..evaluation import evaluate
    from ..evaluation.flag_warnings import SAID_BY_EVERY_COMMAND
    from ..measures.per_topic import listed_before
    from ..report import evaluation_records

    systems = suite.systems
    key = _evaluation_key(collection, systems)
    if key not in read:
        qrels = _loaded(collection.qrels, "qrels", read, progress)
        runs = {
            system: _loaded(path, "run", read, progress) if _identity(path) in shared else str(path)
            for system, path in ((s, collection.runs[s]) for s in systems)
        }
        try:
            with listed_before():  # load_suite said a parameter outside its domain
                evaluation = evaluate(qrels, runs, suite.measures, progress=progress)
        except NoOverlapError as error:  # a run of several collections: say which,
            if collection.entry is None:  # at the suite's line, as every refusal
                raise NoOverlapError(f"{error} in {_collection_named(collection)}") from None
            raise NoOverlapError(f"{collection.entry}: {error}") from None
        frame = evaluation.per_query_values
        read[key] = Scored(
            frame,
            _judgments(qrels.table),
            _shown(evaluation),
            evaluation_records(evaluation),
            frozenset(flag.qid for flag in evaluation.flagged if flag.reason == "no_relevant"),
            tuple(f for f in evaluation.flagged if f.reason in SAID_BY_EVERY_COMMAND),
        )
    scored = read[key]
    frame, flagged = scored.frame, scored.flagged
    topics = _stratum(suite, collection, read)
    if topics is not None:  # a stratum's: of one evaluation, each collection says its own
        frame = frame[frame["qid"].isin(topics)]
        flagged = tuple(flag for flag in flagged if flag.qid in topics)
    _check_scored(suite, collection, set(frame["run"]))
    frame = frame.astype({"run": str, "qid": str, "measure": str})
    _refuse_not_finite(collection, frame)
    return scored._replace(frame=frame, flagged=flagged)


def _refuse_not_finite(collection: Collection, frame: pd.DataFrame) -> None:
    """Refuse, as compare does, a value undefined (trec_eval's -nan: ``-J`` leaving
    nothing judged) or infinite on a topic of the collection (its stratum's): the mean
    without it is no mean trec_eval prints, and a test over collections cannot take it."""
    from ..errors import not_finite

    undefined = np.flatnonzero(~np.isfinite(frame["value"].to_numpy(np.float64)))
    if len(undefined):
        run, qid, measure, value = frame.iloc[undefined[0]][["run", "qid", "measure", "value"]]
        error = not_finite(run, measure, qid, float(value))
        where = collection.entry or _collection_named(collection)
        raise type(error)(f"{where}: {error}")


def _identity(path) -> tuple | str:
    """Which file ``path`` is (:func:`trecbench.provenance.identity`; its resolved path
    where it cannot be examined: its reader says why)."""
    from .. import provenance

    return provenance.identity(path) or str(path.resolve())


def _evaluation_key(collection: Collection, systems: list[str]) -> tuple:
    """What an evaluation of the collection scores: its qrels' and runs' identities."""
    return tuple(_identity(p) for p in [collection.qrels, *(collection.runs[s] for s in systems)])


def _shared_runs(suite: Suite) -> set:
    """The identities of the run files that two evaluations of the suite or more score
    (collections of other qrels, or of other runs, that name one file): loaded once for
    them all, where a FIFO could not be opened twice. A run file of one evaluation is
    left to it (read in blocks or by worker processes, as ``score`` reads it)."""
    evaluations = {_evaluation_key(collection, suite.systems) for collection in suite.collections}
    counts = Counter(identity for key in evaluations for identity in set(key[1:]))
    return {identity for identity, count in counts.items() if count > 1}


def _loaded(path, kind: str, read: dict, progress):
    """The run or qrels file ``path``, loaded once for the suite (``read`` keeps it by the
    file's identity)."""
    from ..gated.reading import load

    key = (kind, _identity(path))
    if key not in read:
        read[key] = load(str(path), kind, progress=progress)
    return read[key]


def _check_read_once(suite: Suite) -> None:
    """Refuse a pipe or FIFO the suite names in two roles (qrels, a run, strata), or that
    the suite itself was read from (``leaderboard -``): each role's file is read once, and
    it can be read once. Refused at the key and line of the setting naming it again (its
    collection's ``qrels``, ``strata``, ``runs`` entry or pattern), as a benchmark's are;
    a suite made in Python is named by the file it names only."""
    from ..naming import first_read_twice

    named: dict = {("suite", _identity(suite.path)): (suite.path, ())}
    for c in suite.collections:
        for role, path, keys in (
            ("qrels", c.qrels, ("collections", c.name, "qrels")),
            ("strata", c.strata, ("collections", c.name, "strata")),
            *(("run", c.runs[s], suite.run_keys(c.name, s)) for s in suite.systems),
        ):
            if path is not None:
                named.setdefault((role, _identity(path)), (path, keys))
    given = list(named.values())
    found = first_read_twice([path for path, _ in given])
    if found is not None:
        index, problem = found
        if suite.config_text is not None:  # at the first setting naming one again
            problem = f"{suite.config_text.where(given[index][1])}: {problem}"
        raise UsageError(problem)


def _judgments(qrels) -> dict[str, int]:
    """Each topic's judgments (its documents and grades, in docno order) as one number:
    the same topic in another collection, from the same file or a copy of it (plain or
    compressed), has the same."""
    from ..inputs import to_pandas

    frame = to_pandas(qrels.select(["qid", "docno", "rel"])).sort_values(["qid", "docno"])
    return {
        str(qid): hash(tuple(zip(group["docno"], group["rel"].tolist(), strict=True)))
        for qid, group in frame.groupby("qid", sort=False)
    }


def _check_disjoint(
    suite: Suite, collection: Collection, frame: pd.DataFrame, judgments: dict, seen: dict
) -> None:
    """Refuse a collection that shares a topic (one id, judged alike: from one qrels file or
    copies of it) with one scored before it (``seen``: each of their topics and its
    judgments -> the collection that holds it, added to): it would count twice in the test
    over topics (and weigh twice in the macro mean). Checked as each collection is scored,
    not once every one is; said at the suite's line of the second collection, as every
    refusal of a collection is."""
    for qid in dict.fromkeys(frame["qid"]):
        holder = seen.setdefault((qid, judgments.get(qid)), collection)
        if holder is not collection:
            where = " and ".join(dict.fromkeys([str(holder.qrels), str(collection.qrels)]))
            line, key = suite.place("collections", collection.name)
            message = (
                f"{key}: collections {holder.name} and {collection.name} share the topic "
                f"{qid!r} (judged alike in {where}): it would count twice; give them "
                "disjoint strata"
            )
            raise InputError(str(suite.path), line, message)


def _check_collections_once(suite: Suite) -> None:
    """Refuse two collections of one qrels, one run per system and one stratum (the same
    files, or one file under two names): each topic of one would count twice (what
    :func:`_check_disjoint` refuses once they are scored), said before any run is read,
    at the suite's line of the second."""
    first: dict = {}
    for collection in suite.collections:
        strata = None if collection.strata is None else _identity(collection.strata)
        where = tuple(sorted(collection.where.items()))
        key = (_evaluation_key(collection, suite.systems), strata, where)
        holder = first.setdefault(key, collection)
        if holder is not collection:
            line, place = suite.place("collections", collection.name)
            kept = " and stratum" if collection.strata is not None else ""
            message = (
                f"{place}: collections {holder.name} and {collection.name} are one collection "
                f"(the qrels {collection.qrels}, the same runs{kept}): each topic would count "
                "twice; drop one, or give them disjoint strata"
            )
            raise InputError(str(suite.path), line, message)


def _check_strata(suite: Suite, read: dict, progress) -> None:
    """Each collection's stratum checked before any run is read (``read``: as
    :func:`_per_query` keeps the suite's inputs, each read once): a ``where`` field its
    strata file lacks, and a stratum that keeps none of the qrels' topics, where no
    system could have results (:func:`_check_scored`'s refusal, said before the runs it
    would have been said after)."""
    for collection in suite.collections:
        with _reading(suite, collection):
            topics = _stratum(suite, collection, read)
            if topics is None:
                continue
            qrels = _loaded(collection.qrels, "qrels", read, progress)
            judged = set(qrels.table.column("qid").unique().to_pylist())
        if not topics & judged:
            judging = f"the qrels {collection.qrels} judge none of the topics"
            _refuse_empty(suite, collection, lambda kept, said=judging: said + kept)


def _check_scored(suite: Suite, collection: Collection, scored: set[str]) -> None:
    """Refuse a collection where a system has no topic (its stratum keeps none of the
    run's topics): its mean would be undefined and the board would drop it silently.
    Said at the suite's ``where`` (the collection's without one), not of the strata file."""
    missing = [system for system in suite.systems if system not in scored]
    if missing:  # each system a list's item: no name read from the suite splits the line
        systems = id_list(missing, limit=None)
        _refuse_empty(suite, collection, lambda kept: f"no topic{kept} has results of {systems}")


def _refuse_empty(suite: Suite, collection: Collection, said: Callable[[str], str]) -> None:
    """Refuse ``collection``, in the words ``said(kept)`` of the topics its stratum keeps
    (``kept``: `` kept by`` its ``where``, or nothing)."""
    # a field as the suite's key names it (quoted where it holds a blank, a comma or a
    # line break)
    where = ", ".join(f"{key_path([k])} = {v!r}" for k, v in collection.where.items())
    kept = f" kept by {where}" if where else ""
    keys = ("collections", collection.name, *(("where",) if collection.where else ()))
    line, key = suite.place(*keys)
    raise InputError(str(suite.path), line, f"{key}: {said(kept)}: nothing to average")


@outputs.in_input_scope  # each input's checksum taken as it is read, not read again
@input_warnings.carried
def leaderboard(suite, progress=None) -> Leaderboard:
    """The :class:`Leaderboard` of ``suite`` (the path of its TOML file, or the
    :class:`Suite` :func:`~trecbench.runstudy.suite.load_suite` read from one): a board
    per measure, each system's value per collection, their macro mean, mean rank and
    p-values. A :class:`Suite` made in Python, which no file's checks have passed, is
    refused.
    ``progress(label, done, total)``: the reading and scoring of each collection, as
    :func:`trecbench.evaluate` tells them.

    >>> board = leaderboard("data/leaderboard.toml")  # doctest: +SKIP
    >>> board.boards[0].macro  # doctest: +SKIP
    """
    refuse_uncallable(progress)
    if not isinstance(suite, Suite):
        suite = load_suite(path_argument(suite, "suite"))
    elif suite.config_text is None:  # its runs, systems and collections never checked
        raise UsageError(
            "suite: a Suite made in Python is not checked as a suite file is (a system "
            "without a run, no collection); give the suite file's path, or load_suite's Suite"
        )
    _check_read_once(suite)
    _check_collections_once(suite)
    read: dict = {}
    _check_strata(suite, read, progress)
    shared = _shared_runs(suite)
    scored: list = []
    seen: dict = {}  # each collection's topics, as _check_disjoint keeps them
    for collection in suite.collections:
        scored.append(_per_query(collection, suite, read, shared, progress))
        _check_disjoint(suite, collection, scored[-1].frame, scored[-1].judgments, seen)
    frames = [collection.frame for collection in scored]
    boards = [_board(suite, frames, m, summed) for m, summed in scored[0].shown.items()]
    inputs = _input_records(suite, [collection.records for collection in scored])
    warnings = _flag_warnings(suite, scored) + _lacking(suite, frames)
    warnings += _without_relevant(suite, scored)
    return Leaderboard(suite, boards, warnings, inputs=inputs)


def _input_records(suite: Suite, read: list[list[dict]]) -> list[dict]:
    """The records of every input, each file once: the suite, then each collection's
    qrels and runs (``read``: as their evaluation took them while reading) and strata,
    whose checksum was taken as they were read: none is read again (the suite's record
    is the one :func:`~trecbench.runstudy.suite.load_suite` took; a :class:`Suite` made
    in Python has none, and its path is recorded without size or checksum)."""
    from ..report import input_record

    suite_record = suite.record or {"path": str(suite.path), "kind": "suite", "size": None,
                                    "sha256": None}  # fmt: skip
    records = {(str(suite.path), "suite"): suite_record}
    for collection, taken in zip(suite.collections, read, strict=True):
        for record in taken:
            records.setdefault((record["path"], record["kind"]), record)
        if collection.strata is not None:
            key = (str(collection.strata), "strata")
            if key not in records:
                records[key] = input_record(collection.strata, "strata")
    return list(records.values())


def _lacking(suite: Suite, frames: list[pd.DataFrame]) -> list[str]:
    """A warning per system and collection where the system has no results for some of
    the topics others have: its mean there is over fewer topics (trec_eval's mean, over
    the topics a run holds), and its paired tests leave those topics out."""
    found = []
    for collection, frame in zip(suite.collections, frames, strict=True):
        topics = set(frame["qid"])
        for system in suite.systems:
            missing = sorted(topics - set(frame.loc[frame["run"] == system, "qid"]))
            if missing:
                shown = id_list(missing)
                found.append(
                    f"{_collection_named(collection)}: {escape_text(system)} has no results for "
                    f"{len(missing)} of its {len(topics)} topics ({shown}): its mean there is "
                    "over the topics it has, as trec_eval's is"
                )
    return found


def _flag_warnings(suite: Suite, scored: list[Scored]) -> list[str]:
    """Score's warnings, in its words, of the systems' topics that a collection's qrels
    lack (left out of the system's mean and tests there) and of negative grades in its
    qrels (read as unjudged), each line naming its collection, as the others do."""
    from ..evaluation.flag_warnings import flag_warnings

    return [
        # the collection and the system escaped (escape_text), as the board's other warnings
        # name them: a FlagWarning's plain text keeps both as they are, its ids alone escaped
        line.text(escape_text)
        for collection, each in zip(suite.collections, scored, strict=True)
        for line in flag_warnings(each.flagged, where=f"collection {collection.name}")
    ]


def _collection_named(collection: Collection) -> str:
    """``collection NAME`` as a warning or error says what it is about, the name read from
    the suite escaped (:func:`~trecbench.escaping.escape_text`): a line break of it cannot
    split the line."""
    return f"collection {escape_text(collection.name)}"


def _without_relevant(suite: Suite, scored: list[Scored]) -> list[str]:
    """A warning per collection with topics whose qrels hold no relevant document: every
    system scores 0 there on a measure of relevant documents, and they count in its mean
    (as score warns and compare says of them)."""
    from ..scoreless import without_relevant_warning

    found = []
    for collection, each in zip(suite.collections, scored, strict=True):
        topics = sorted(qid for qid in set(each.frame["qid"]) if qid in each.scoreless)
        if topics:  # at trec_eval's default -l, which a suite does not change
            where = _collection_named(collection)
            found.append(without_relevant_warning(where, topics, 1, "system"))
    return found


def _shown(evaluation) -> dict[str, bool]:
    """The display name of each value the evaluation computed, in the order its measures
    were asked (a board each, not trec_eval's order), each saying whether trec_eval sums
    it over topics (a count: num_ret...)."""
    from ..measures import COUNTS

    asked = {m.requested or m.canonical: i for i, m in enumerate(evaluation.measures)}
    columns = [c for c in evaluation.columns if c.per_query]
    columns.sort(key=lambda c: asked.get(c.measure.requested or c.measure.canonical, len(asked)))
    return {c.display: c.summary in COUNTS for c in columns}


def _board(suite: Suite, frames: list[pd.DataFrame], measure: str, summed: bool) -> MeasureBoard:
    from ..measures import better

    systems, names = suite.systems, [c.name for c in suite.collections]
    tables = []
    for frame in frames:
        rows = frame[frame["measure"] == measure]
        tables.append(rows.pivot(index="qid", columns="run", values="value"))
    means = np.array([[t[s].mean() for t in tables] for s in systems], np.float64)
    direction = better(measure)  # None: a count (num_ret, Judged@k...) ranks no one first
    if direction is None:
        ranks = np.full(means.shape, np.nan)
    else:
        ranks = _ranks(means if direction == "higher" else -means)
    over_collections = _tests(
        [means[s] - means[0] for s in range(len(systems))],
        [float(value_scale(means[s], means[0])[0]) for s in range(len(systems))],
    )
    paired = [[_paired(t, system, systems[0]) for t in tables] for system in systems]
    diffs = [np.concatenate([d for d, _ in pairs]) for pairs in paired]
    scales = [max(scale for _, scale in pairs) for pairs in paired]
    return MeasureBoard(
        measure,
        direction,
        systems,
        names,
        [int(t.notna().any(axis=1).sum()) for t in tables],
        means,
        mean_of_means(means, axis=1),
        ranks,
        ranks.mean(axis=1),
        over_collections,
        _tests(diffs, scales),
        summed,
    )


def _paired(table: pd.DataFrame, system: str, baseline: str) -> tuple[np.ndarray, float]:
    """The differences of ``system`` and ``baseline`` on the topics both hold, and the
    size of the values subtracted (:func:`~trecbench.rounding.value_scale`)."""
    both = table[[system, baseline]].dropna()
    first, second = both[system].to_numpy(np.float64), both[baseline].to_numpy(np.float64)
    return first - second, float(value_scale(first, second)[0])


def _ranks(scores: np.ndarray) -> np.ndarray:
    """Per column, 1 for the highest score, ties sharing the mean of their ranks (as
    ``scipy.stats.rankdata``, without its 0.4 s import)."""
    from ..rounding import equal_on_paper
    from ..wilcoxon import average_ranks

    # means equal on paper tie: the float sums of two runs' values differ in their last bits
    return np.column_stack([average_ranks(-equal_on_paper(column)) for column in scores.T])


def _tests(differences: list[np.ndarray], scales: list[float]) -> list[PairedTest | None]:
    """Paired t-tests (against the baseline, the first entry: None) with Holm's adjustment;
    ``scales``: the size of the values each entry's differences subtract."""
    from .. import stats
    from ..rounding import mean_difference

    raw: list[tuple[float | None, int, float | None, str | None]] = []
    for diffs, scale in zip(differences[1:], scales[1:], strict=True):
        n = len(diffs)
        reason = None
        if n < 2:
            reason = "fewer than 2 pairs"
        elif stats.constant(diffs, None, scale)[0]:  # beyond the values' rounding
            reason = "the differences do not vary"
        p = None if reason else float(stats.paired_t_test(diffs, scale)[0])
        # as compare prints it: 0 where the differences add up to 0 on paper
        difference = float(mean_difference(diffs, None, scale)[0]) if n else None
        raw.append((difference, n, p, reason))
    adjusted = stats.adjust([np.nan if p is None else p for _, _, p, _ in raw], "holm")
    tests: list[PairedTest | None] = [None]
    for (difference, n, p, reason), p_adjusted in zip(raw, adjusted, strict=True):
        tests.append(PairedTest(difference, n, p, None if p is None else float(p_adjusted), reason))
    return tests
