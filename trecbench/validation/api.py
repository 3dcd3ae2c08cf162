"""The validator's functions: validate files (streamed), tokens in memory, a run with its qrels."""

from __future__ import annotations

import numbers
import os
import sys
from collections.abc import Callable, Iterable, Sequence
from functools import partial

from ..callbacks import refuse_uncallable
from ..errors import InputError, UsageError, excerpt
from ..inputs.streams import File, Source, path_of
from ..inputs.trec_text import Tokens
from ..naming import listed
from ..resource_bounds import LEAST_DEPTH, LEAST_MEMORY_MIB, MOST_DEPTH, whole_from
from ..text_bytes import encodable
from ..type_names import flag_from, python_type
from .checker import Checker
from .cross_checks import file_name, refuse_depths_at_odds
from .docids import DocidList, Docids, docid_list
from .findings import DEFAULT_LIMIT, Collector, Finding, QrelsInfo, ValidationResult
from .qrels import QrelsChecker
from .reader import CHUNK_BYTES, MOST_CHUNK_BYTES, read_topics, stream
from .rules import PROFILE_DEPTH, PROFILES, Default, resolve_depth
from .runs import RunChecker, full_match_pattern

Progress = Callable[[str, int], None]
# ``read_progress(path, done, total)``: bytes of the file read as stored, of ``total`` (its
# size; None for a pipe)
ReadProgress = Callable[[str, int, "int | None"], None]
# ``recheck_progress(path, stage, done, total)``: the re-check of split topics at the end,
# "routing" (rows read) then "checking" (groups checked): :data:`.split_topics.Told`
RecheckProgress = Callable[[str, str, int, int], None]
Topics = str | os.PathLike | Iterable[str]


def _refuse_callbacks(progress, read_progress, recheck_progress=None) -> None:
    """Refuse a callback that is neither a function nor None, naming it, before a byte is
    read (it was a raw "'int' object is not callable" after the first chunk)."""
    refuse_uncallable(progress, "progress(path, lines)")
    refuse_uncallable(read_progress, "read_progress(path, done, total)")
    refuse_uncallable(recheck_progress, "recheck_progress(path, stage, done, total)")


def _check_keywords(**given: object) -> None:
    """Refuse, as a :class:`~trecbench.errors.UsageError` naming the keyword, a setting
    that ``trecbench validate``'s option refuses, by the same bounds: ``chunk_bytes=0``
    read nothing and reported a valid file empty (R26) and ``chunk_bytes=2**40`` raised a
    MemoryError, ``max_depth=-1`` turned R8 off,
    ``relevance_level=0`` was taken, and ``profile='nope'`` or ``docid_regex='('`` raised
    a bare ValueError. None is taken where it means "not set"; ``expected_tag`` is text."""
    for name, value in given.items():
        if name == "profile":
            if not (isinstance(value, str) and value in PROFILES):
                raise UsageError(f"profile must be one of {', '.join(PROFILES)}, not {value!r}")
        elif name == "docid_regex":
            _check_docid_regex(value)
        elif name == "expected_tag":  # 5 raised pathlib's TypeError, naming nothing
            if not (value is None or isinstance(value, str)):
                raise UsageError(
                    f"expected_tag={excerpt(value)}: give a tag as text, not {python_type(value)}"
                )
        elif not (value is None and name in _UNSET) and value is not PROFILE_DEPTH:
            whole_from(name, value, *_BOUNDS[name])
    if "min_depth" in given:
        most = given.get("max_depth", PROFILE_DEPTH)
        refuse_depths_at_odds(given["min_depth"], most, given.get("profile"))


# the least (and most) of each whole-number keyword: the command line's (--max-depth,
# --min-depth, -l, --memory); limit (no option) from 0, findings counted but none kept;
# chunk_bytes (no option) to 1 GiB: a chunk is allocated whole, 2**40 was a MemoryError
_BOUNDS = {
    "chunk_bytes": (1, MOST_CHUNK_BYTES),
    "max_depth": (LEAST_DEPTH, MOST_DEPTH),
    "min_depth": (1,),
    "relevance_level": (1,),
    "memory": (LEAST_MEMORY_MIB,),
    "limit": (0,),
}
_UNSET = {"max_depth", "min_depth", "memory"}  # None: no limit, no least, the default


def _check_docid_regex(pattern: object) -> None:
    if pattern is None:
        return
    if not isinstance(pattern, str):
        raise UsageError(f"docid_regex must be a str, not {pattern!r}")
    try:
        check_regex(pattern)
    except ValueError as error:
        raise UsageError(f"docid_regex: {error}") from None


def _given_topics(topics: Topics | None) -> list[str] | None:
    """``topics`` (None: none) as their ids: a topics file's (:func:`read_topics`), else
    each id given, text as it is, an integer in decimal (as ids are read); another value
    refused naming it, where 5 raised "'int' object is not iterable" and ``["301", 5.0]``
    "'float' object has no attribute 'lstrip'"."""
    if topics is None or isinstance(topics, (str, os.PathLike)):
        return None if topics is None else read_topics(topics)
    ids = listed(topics, "topics", "topic ids or a topics file's path", unordered=True)
    for given in ids:
        integer = isinstance(given, numbers.Integral) and not isinstance(given, bool)
        if not (isinstance(given, str) or integer):
            raise UsageError(
                f"topics: topic id {excerpt(given)}: give ids as text, not {python_type(given)}"
            )
    return [given if isinstance(given, str) else str(int(given)) for given in ids]


def _run_checker(
    path: str,
    report: Collector,
    *,
    max_depth: int | None | Default,
    topics: Topics | None,
    qrels: QrelsInfo | None,
    min_depth: int | None,
    docid_regex: str | None,
    expected_tag: str | None,
    docids: Docids | DocidList | None,
) -> RunChecker:
    return RunChecker(
        path,
        report,
        max_depth=resolve_depth(max_depth, report.profile),
        min_depth=min_depth,
        topics=_given_topics(topics),
        qrels=qrels,
        docid_regex=docid_regex,
        expected_tag=expected_tag,
        docids=None if docids is None else docid_list(docids),
    )


def _result(checker: Checker) -> ValidationResult:
    info = checker.info() if isinstance(checker, QrelsChecker) else None
    return checker.result(checker.topic_count, info)


class TokenChecker:
    """:func:`validate_tokens` for tokens that come chunk by chunk (a file read in pieces):
    :meth:`feed` each chunk in file order, then :meth:`result`. ``report`` is the
    collector of the findings so far."""

    def __init__(
        self,
        path: str,
        kind: str,
        *,
        profile: str = "default",
        max_depth: int | None | Default = PROFILE_DEPTH,
        topics: Topics | None = None,
        qrels_topics: Iterable[str] | QrelsInfo | None = None,
        limit: int = DEFAULT_LIMIT,
        min_depth: int | None = None,
        docid_regex: str | None = None,
        expected_tag: str | None = None,
        relevance_level: int = 1,
        docids: Docids | DocidList | None = None,
    ):
        _check_keywords(
            profile=profile,
            max_depth=max_depth,
            min_depth=min_depth,
            docid_regex=docid_regex,
            expected_tag=expected_tag,
            limit=limit,
            relevance_level=relevance_level,
        )
        self.report = Collector(path, profile, limit)
        self.checker: Checker
        if kind == "qrels":
            self.checker = QrelsChecker(path, self.report, relevance_level, collect_judged=False)
        elif kind == "run":
            qrels = qrels_topics
            if qrels is not None and not isinstance(qrels, QrelsInfo):
                qrels = QrelsInfo(set(qrels))
            self.checker = _run_checker(
                path,
                self.report,
                max_depth=max_depth,
                topics=topics,
                qrels=qrels,
                min_depth=min_depth,
                docid_regex=docid_regex,
                expected_tag=expected_tag,
                docids=docids,
            )
        else:
            raise UsageError(f"kind must be 'run' or 'qrels', not {kind!r}")

    def feed(self, tokens: Tokens) -> None:
        self.checker.feed(tokens)

    def result(self) -> ValidationResult:
        """Finish the checks of the whole file; its :class:`ValidationResult`."""
        self.checker.finish()
        return _result(self.checker)


def validate_tokens(tokens: Tokens, kind: str, **options) -> ValidationResult:
    """The :class:`ValidationResult` of tokens already in memory (``kind``: ``"run"`` or
    ``"qrels"``); see :func:`check_tokens` for the options."""
    checker = TokenChecker(tokens.path, kind, **options)
    checker.feed(tokens)
    return checker.result()


def check_tokens(tokens: Tokens, kind: str, **options) -> list[Finding]:
    """Findings for tokens already in memory (``kind``: ``"run"`` or ``"qrels"``).

    ``qrels_topics``: the qrels' topic ids for X1-X3, or a :class:`QrelsInfo` (from
    :func:`~trecbench.validation.qrels_info`) for X5 as well. ``trecbench score`` calls it
    with ``profile="lenient"``: any error means trec_eval would fail or compute wrong
    numbers on this input. Options (as :func:`validate_tokens`): ``profile``,
    ``max_depth`` (default: the profile's), ``topics``, ``limit``, ``min_depth``,
    ``docid_regex``, ``docids``, ``expected_tag`` (runs), ``relevance_level`` (qrels).
    """
    return validate_tokens(tokens, kind, **options).findings


def _memory_tokens(source: object, kind: str) -> Tokens | None:
    """The tokens of a run or qrels held in memory (a DataFrame, Arrow table, dict or
    records, read as :func:`trecbench.inputs.load` reads them for ``score``): each row at
    its 1-based row number, ranked in trec_eval's order; None for a file."""
    if isinstance(source, (str, os.PathLike, Source)):
        return None
    from ..inputs import load
    from ..inputs.parquet import table_tokens

    loaded = load(source, kind)
    given = _given_rank(source, loaded.table) if kind == "run" else None
    tokens = table_tokens(loaded.table, kind, loaded.origin, given)
    tokens.rows = True  # a finding citing another row cites it as a row, as Parquet's do
    return tokens


def _given_rank(source: object, table) -> object:
    """A DataFrame's or Arrow table's own ``rank`` column, its rows those of ``table`` (read
    from it), for the rank rules (R11, R14) to check as a Parquet file's: they
    were never checked held in memory. None where there is none (a dict, records); one not
    of integers is no ranks given, as in a Parquet file."""
    import pyarrow as pa

    pandas = sys.modules.get("pandas")  # a DataFrame means pandas is imported
    if pandas is not None and isinstance(source, pandas.DataFrame) and "rank" in source:
        try:
            column = pa.chunked_array([pa.Array.from_pandas(source["rank"])])
        except (pa.ArrowException, TypeError, ValueError):  # objects of mixed kinds
            return None
    elif isinstance(source, pa.Table) and "rank" in source.column_names:
        column = source.column("rank")
    else:
        return None
    # row for row, as a Parquet file's (a table's own line column says nothing of them)
    return column if len(column) == table.num_rows else None


def _check(checker: Checker, path: File, tokens: Tokens | None, keep: int, *reading) -> None:
    """Feed ``checker`` the tokens held in memory, or stream the file ``path``."""
    if tokens is None:
        _stream(checker, path, keep, *reading)
    else:
        checker.feed(tokens)
        checker.finish()


def validate_run(
    path: File,
    *,
    profile: str = "default",
    qrels: str | os.PathLike | QrelsInfo | None = None,
    topics: Topics | None = None,
    max_depth: int | None | Default = PROFILE_DEPTH,
    min_depth: int | None = None,
    docid_regex: str | None = None,
    docids: Docids | DocidList | None = None,
    expected_tag: str | None = None,
    limit: int = DEFAULT_LIMIT,
    chunk_bytes: int = CHUNK_BYTES,
    progress: Progress | None = None,
    memory: int | None = None,
    read_progress: ReadProgress | None = None,
    recheck_progress: RecheckProgress | None = None,
) -> ValidationResult:
    """Validate a run file (plain or compressed), streaming it chunk by chunk.

    ``path``: the file, or a :class:`~trecbench.inputs.streams.Source` opened by the
    caller (read from its start and left open; its checksum is the caller's to record), or
    a run held in memory as :func:`trecbench.evaluate` takes it (a DataFrame, Arrow table,
    dict or records: each row at its 1-based row number, its ids checked by R31).

    ``profile``: ``default``, ``strict``, ``lenient`` or ``rtask`` (the TREC R task's rules,
    100 documents deep). ``qrels``: a qrels file (or qrels held in memory) or a
    :class:`QrelsInfo` for the cross-file checks (X1-X5; a file that cannot be read as
    qrels, or read whole, raises :class:`InputError`). ``topics``: a topics file or a
    list of ids (R4, R5). ``max_depth``: the most documents per topic (R8; default: the
    profile's, 1,000 or 100 for ``rtask``; None: no limit).
    ``min_depth`` (R9), ``docid_regex`` (R6), ``docids`` (R6: a file of docids, one per
    line, plain or compressed, or the docids as strings; a docno not among them, compared
    exactly, is R6), ``expected_tag`` (R19). At most ``limit``
    findings are kept per check; ``counts`` has the totals. ``progress(path, lines)`` is
    called after each chunk with the physical lines read so far, ``read_progress(path,
    done, total)`` as the file's bytes are read (``total``: its size, None for a pipe; not
    for a Source given), ``recheck_progress(path, stage, done, total)`` as topics split over
    the file are checked again at the end (``stage``: "routing", the rows kept read and
    sorted into groups; "checking", the groups checked). ``memory``: the budget in MiB
    (see :mod:`trecbench.memory`) that bounds the duplicate check's keys in memory.
    ``chunk_bytes``: the bytes read at a time, from 1 to 1 GiB (default 4 MiB).
    """
    _refuse_callbacks(progress, read_progress, recheck_progress)
    _check_keywords(
        profile=profile,
        max_depth=max_depth,
        min_depth=min_depth,
        docid_regex=docid_regex,
        expected_tag=expected_tag,
        limit=limit,
        chunk_bytes=chunk_bytes,
        memory=memory,
    )
    if qrels is not None and not isinstance(qrels, QrelsInfo):
        checked = validate_qrels(qrels, collect_judged=True, memory=memory)
        # qrels not read whole (truncated, a Parquet file score refuses: a finding first in
        # line order, at none) would leave X1-X5 out of a run said valid, without a word
        if checked.qrels_info is None or not checked.qrels_info.complete:
            raise InputError(checked.path, None, checked.findings[0].message)
        qrels = checked.qrels_info
    tokens = _memory_tokens(path, "run")
    origin = path_of(path) if tokens is None else tokens.path
    report = Collector(origin, profile, limit)
    checker = _run_checker(
        origin,
        report,
        max_depth=max_depth,
        topics=topics,
        qrels=qrels,
        min_depth=min_depth,
        docid_regex=docid_regex,
        expected_tag=expected_tag,
        docids=docids,
    )
    _bound(checker, memory)
    if recheck_progress is not None:
        checker.blocks.told = partial(recheck_progress, origin)
    _check(checker, path, tokens, 6, chunk_bytes, progress, read_progress)
    return _result(checker)


def _stream(checker, path: File, keep: int, chunk_bytes: int, progress, read_progress) -> None:
    """:func:`stream`, the file opened here when ``read_progress`` is told its bytes read
    (a Source given is read as it is): as :func:`stream` opens it, with a hook."""
    if read_progress is None or isinstance(path, Source):
        stream(checker, path, keep, chunk_bytes, progress)
        return
    name = str(path)
    with Source(path, progress=lambda done, total: read_progress(name, done, total)) as source:
        stream(checker, source, keep, chunk_bytes, progress)
        if not checker.stopped:  # as stream's own Source: the file's record once all read
            source.record()


def _bound(checker: Checker, memory: int | None) -> None:
    """Keys of the duplicate check beyond the budget's share go to a temporary file."""
    from ..memory import Budget

    keys = checker.seen_keys
    keys.memory_keys = Budget.of(memory).duplicate_keys(keys.entry_bytes)


def validate_qrels(
    path: File,
    *,
    profile: str = "default",
    relevance_level: int = 1,
    limit: int = DEFAULT_LIMIT,
    chunk_bytes: int = CHUNK_BYTES,
    collect_judged: bool = False,
    progress: Progress | None = None,
    memory: int | None = None,
    read_progress: ReadProgress | None = None,
) -> ValidationResult:
    """Validate a qrels file (plain or compressed; a path or an open Source, as
    :func:`validate_run`), streaming it chunk by chunk, or qrels held in memory (as
    :func:`validate_run`).

    ``relevance_level``: the least grade counted relevant, as ``score``'s ``-l``: a topic
    whose grades all fall below it is Q7. The result's ``qrels_info`` is what runs are
    checked against (None when the file could
    not be read as qrels); with ``collect_judged`` it also holds the judged pairs that the
    run check X4 (unjudged documents in the top 10) needs.
    """
    _refuse_callbacks(progress, read_progress)
    _check_keywords(
        profile=profile,
        relevance_level=relevance_level,
        limit=limit,
        chunk_bytes=chunk_bytes,
        memory=memory,
    )
    collect_judged = flag_from("collect_judged", collect_judged)  # "no" was taken as true
    tokens = _memory_tokens(path, "qrels")
    origin = path_of(path) if tokens is None else tokens.path
    report = Collector(origin, profile, limit)
    checker = QrelsChecker(origin, report, relevance_level, collect_judged)
    _bound(checker, memory)
    _check(checker, path, tokens, 4, chunk_bytes, progress, read_progress)
    return _result(checker)


def validate_files(
    runs: Sequence[File],
    *,
    qrels: str | os.PathLike | None = None,
    profile: str = "default",
    tag_is_filename: bool = False,
    topics: Topics | None = None,
    max_depth: int | None | Default = PROFILE_DEPTH,
    min_depth: int | None = None,
    docid_regex: str | None = None,
    docids: Docids | DocidList | None = None,
    relevance_level: int = 1,
    progress: Progress | None = None,
    memory: int | None = None,
    read_progress: ReadProgress | None = None,
    recheck_progress: RecheckProgress | None = None,
) -> list[ValidationResult]:
    """Validate the qrels (if any) once, then each run against it; qrels result first.

    Runs are checked against the qrels only when the qrels could be read as qrels. A run
    may be an open :class:`~trecbench.inputs.streams.Source`, as for :func:`validate_run`.
    ``relevance_level``: the least grade counted relevant (Q7), as :func:`validate_qrels`.
    ``docids`` (a file or strings) is read once for every run.
    ``memory``, ``progress``, ``read_progress``, ``recheck_progress``: see
    :func:`validate_run`.
    """
    _refuse_callbacks(progress, read_progress, recheck_progress)
    _check_keywords(  # all before the qrels are read
        profile=profile,
        max_depth=max_depth,
        min_depth=min_depth,
        docid_regex=docid_regex,
        relevance_level=relevance_level,
        memory=memory,
    )
    results = []
    told = {"progress": progress, "read_progress": read_progress, "memory": memory}
    info = None
    if qrels is not None:
        result = validate_qrels(
            qrels,
            profile=profile,
            relevance_level=relevance_level,
            collect_judged=bool(runs),
            **told,
        )
        results.append(result)
        info = result.qrels_info
    topics = _given_topics(topics)  # read once for every run
    if docids is not None:  # read once for every run
        docids = docid_list(docids)
    for run in runs:
        expected = file_name(path_of(run)) if tag_is_filename else None
        results.append(
            validate_run(
                run,
                profile=profile,
                qrels=info,
                topics=topics,
                max_depth=max_depth,
                min_depth=min_depth,
                docid_regex=docid_regex,
                docids=docids,
                expected_tag=expected,
                recheck_progress=recheck_progress,
                **told,
            )
        )
    return results


def check_regex(pattern: str) -> None:
    """Raise ValueError, quoting ``pattern``, if it is not a valid (RE2) regular
    expression on its own (as ``docid_regex`` is matched: in full), or if it is empty: it
    would match only an empty docno, which no run holds (R1), so every line would fail
    R6; an unset shell variable (``--docid-regex "$PATTERN"``) gives it, never a pattern
    meant."""
    if not pattern:
        raise ValueError("an empty pattern matches no docno (none is empty); give the pattern")
    if not encodable(pattern):  # Arrow's compile raised "'utf-8' codec can't encode"
        raise ValueError(
            f"{excerpt(pattern)} holds a byte that is not UTF-8: it matches no docno (a run is "
            "UTF-8 text); give the pattern in UTF-8"
        )
    full_match_pattern(pattern)
