"""Runs as trecbench ranks them, for the commands that study runs rather than score them:
each run in trec_eval's order (score descending at float32, docno descending), cut at a
depth, its rows numbered by topic. Only the columns these commands read are moved (a
ranked copy of every column of a 7M-line run took as long as reading it)."""

from __future__ import annotations

import numbers

import numpy as np
import pyarrow as pa

from .. import arrow
from .. import arrow_compute as pc
from ..errors import UsageError
from ..inputs import held
from ..inputs.streams import steps
from ..inputs.tables import carry_integer_ids
from ..trec_eval.clib import LONG_MAX  # ranks are 64-bit integers, in Arrow as in trec_eval


def check_count(name: str, value) -> int:
    """``value`` as a Python int; refused if it is not a whole number from 1 to
    :data:`LONG_MAX` (beyond it Arrow cannot compare it with a rank). numpy's integers are
    taken, as evaluate takes them (and made Python's: JSON writes no numpy integer)."""
    whole = isinstance(value, numbers.Integral) and not isinstance(value, bool)
    if not whole or not 1 <= value <= LONG_MAX:
        raise UsageError(f"the {name} must be a positive integer up to {LONG_MAX}, not {value!r}")
    return int(value)


def load_ranked(source, depth: int | None = None, progress=None, name=None) -> pa.Table:
    """``qid, docno, rank`` of a run (any input :mod:`trecbench.inputs` reads) in
    trecbench's ranking, each topic cut at ``depth`` documents. ``progress(label, done,
    total)``: the bytes of a file read (``reading <file>``), then the four steps of its
    ranking (``ordering <name>``: sorted, its ties ordered, its duplicates checked, its
    columns moved: seconds for millions of lines); ``name``: the run's, which an error
    about a run held in memory gives (:func:`trecbench.inputs.held.naming`)."""
    from ..fusion import rank_loaded
    from ..gated.reading import load
    from ..score_precision import compares_float32
    from ..trec_eval import compat as versions

    version = versions.get(versions.DEFAULT)  # as fusion.ranked_run reads and ranks a run
    with held.naming(source, name):
        loaded = load(source, "run", progress=progress, version=version)
        step = steps(progress, f"ordering {name or loaded.origin}", 4)
        ranked = rank_loaded(loaded, compares_float32(version, True), step)
    columns = _ranked_columns(ranked, depth)
    step()
    return carry_integer_ids(ranked.run_table, columns)


def read_run(source, progress=None, name=None):
    """The run ``source`` read (:func:`trecbench.gated.reading.load`: score's gate), for
    :func:`kept_rows`: read on a thread, the rows kept on another (``pool``: the next run
    read while the last is checked and folded); ``progress``, ``name``: as
    :func:`load_ranked` takes them."""
    from ..gated.reading import load

    with held.naming(source, name):
        return load(source, "run", progress=progress)


def kept_rows(loaded, source, depth: int | None = None, name=None) -> pa.Table:
    """``qid, docno`` of the rows of the run ``source`` (read: ``loaded``,
    :func:`read_run`'s) that :func:`load_ranked` keeps, in no particular order: the file's
    rows as they are when no topic holds more than ``depth`` documents (nothing is ranked:
    only the duplicate check of ranking remains), else :func:`load_ranked`'s; and each
    row's ``line`` where the run has lines (a file's). ``name``: as :func:`load_ranked`
    takes it."""
    with held.naming(source, name):
        return _kept(loaded, depth)


def _kept(loaded, depth: int | None) -> pa.Table:
    from .. import ranking
    from ..fusion import ranked_run

    table = loaded.table
    topic, qids = ranking.topic_codes(table.column("qid"))
    lined = ["line"] if "line" in table.column_names else []
    if depth is not None and np.bincount(topic).max(initial=0) > depth:
        kept = _ranked_columns(ranked_run(loaded), depth, bool(lined))
        return carry_integer_ids(table, kept.select(["qid", "docno", *lined]))
    lines = table.column("line") if lined else None
    found = ranking.find_duplicate(topic, table.column("docno"), lines)
    if found is not None:
        raise ranking.duplicate_error(loaded.origin, qids[found[0]].as_py(), *found[1:])
    return arrow.decoded(table.select(["qid", "docno", *lined]))


def read_ahead(load, sources, ahead: int = 1):
    """``load(source)`` of each of ``sources`` in turn, up to ``ahead`` of the next ones
    read on a thread while the caller works on the last (Arrow's reading and NumPy's work
    release the GIL); errors come source by source, in the order given, and a load that
    fails stops those after it from starting. The thread reads in this call's context
    (its input scope: the files read are the call's inputs, which no output may replace);
    one thread runs the loads one after another, so the one copy of the context is never
    entered twice at once. Close the generator when leaving it early: the loads not
    started are dropped, and the one running is not waited for, by the caller nor by the
    process's exit (a daemon thread: a FIFO still waiting for its writer, a large run)."""
    import contextvars
    import queue
    import threading
    from collections import deque
    from concurrent.futures import Future

    in_scope = contextvars.copy_context().run
    wanted: queue.SimpleQueue = queue.SimpleQueue()  # (future, source); None: no more

    def read() -> None:
        failed = False
        while (item := wanted.get()) is not None:
            future, source = item
            if failed or not future.set_running_or_notify_cancel():
                continue  # never taken: the caller stops at the failed load's error
            try:
                future.set_result(in_scope(load, source))
            except BaseException as error:  # noqa: BLE001 - raised in the caller, at its turn
                failed = True
                future.set_exception(error)

    threading.Thread(target=read, name="trecbench-read-ahead", daemon=True).start()
    loading: deque[Future] = deque()
    try:
        for source in sources:
            loading.append(Future())
            wanted.put((loading[-1], source))
            if len(loading) > ahead:
                yield loading.popleft().result()
        while loading:
            yield loading.popleft().result()
    finally:
        for future in loading:
            future.cancel()
        wanted.put(None)


def _beyond(position: np.ndarray, depth: int | None) -> np.ndarray | None:
    """Which ranked rows lie beyond ``depth`` (0-based ``position`` within their topic);
    None when none does."""
    if depth is None or not len(position) or position.max() < depth:
        return None
    return position >= depth


def _ranked_columns(ranked, depth: int | None, lined: bool = False) -> pa.Table:
    """``qid, docno, rank`` of a :class:`~trecbench.ranking.RankedRun` (every topic kept)
    in its order, cut at ``depth``; ``lined``: each row's ``line`` too."""
    rows, topic, position = ranked.rows, ranked.topic, ranked.position
    beyond = _beyond(position, depth)
    if beyond is not None:
        rows, topic, position = rows[~beyond], topic[~beyond], position[~beyond]
    docno = ranked.run_table.column("docno")
    if not (ranked.identity and beyond is None):
        docno = _gathered(docno, rows)
    qids = ranked.run_table.column("qid").type
    names = arrow.array(ranked.qids, qids.value_type if pa.types.is_dictionary(qids) else qids)
    table = pa.table(
        {
            "qid": names.take(arrow.array(topic)),
            "docno": docno,
            "rank": arrow.array(position.astype(np.int64) + 1),
        }
    )
    if lined:
        table = table.append_column("line", _gathered(ranked.run_table.column("line"), rows))
    return arrow.decoded(table)


def _gathered(column: pa.ChunkedArray, rows: np.ndarray) -> pa.Array | pa.ChunkedArray:
    """``column[rows]``; copied stretch by stretch when ``rows`` are a few stretches of
    consecutive rows (a run listing each topic whole, in score order, but its topics not
    in byte-wise order: whole topics move), a copy several times faster than a gather."""
    breaks = np.flatnonzero(np.diff(rows) != 1) + 1
    if not len(rows) or len(breaks) > len(rows) // 64:
        return column.take(arrow.array(rows))
    starts, ends = np.r_[0, breaks], np.r_[breaks, len(rows)]
    pieces = (column.slice(int(rows[s]), int(e - s)) for s, e in zip(starts, ends, strict=True))
    return pa.concat_arrays([arrow.array([], column.type), *(c for p in pieces for c in p.chunks)])


def topic_codes(tables: list[pa.Table]) -> tuple[pa.Array, list[np.ndarray]]:
    """The distinct qids of ``tables`` in byte-wise order (as trec_eval lists topics) and
    each table's rows' topics (indices into them), from the stretches of equal qids (a
    run lists each topic's rows together): no hashing of every row."""
    stretches = [arrow.stretches(table.column("qid")) for table in tables]
    names = [pc.cast(values, pa.large_string()) for _, values in stretches]
    distinct = pc.unique(pa.concat_arrays(names))
    qids = distinct.take(pc.sort_indices(pc.cast(distinct, pa.large_binary())))
    topics = []
    for table, (starts, _), values in zip(tables, stretches, names, strict=True):
        code = arrow.to_numpy(pc.index_in(values, value_set=qids))  # int32
        topics.append(np.repeat(code, np.diff(np.r_[starts, table.num_rows])))
    return qids, topics


# rows numbered at a time (pool, similarity): a hash table of a few topics' documents stays
# in cache (2-3 times faster than one table of every document of every topic)
SLICE = 1 << 16


def pair_numbers(docno: pa.Array, topic: np.ndarray) -> np.ndarray:
    """The (topic, document) pairs of some rows numbered 0, 1, ... in the order they first
    come (``topic``: the rows' topic codes, a few topics; ``docno``: their documents)."""
    document = arrow.to_numpy(pc.dictionary_encode(docno).indices).astype(np.int64)
    local = topic.astype(np.int64) - topic.min(initial=0)
    keys = document * (int(local.max(initial=0)) + 1) + local
    return arrow.to_numpy(pc.dictionary_encode(arrow.array(keys)).indices)


def distinct_sorted(values: np.ndarray) -> np.ndarray:
    """``np.unique(values)`` of a non-decreasing array (each value once, in order), by
    comparing neighbours: ``np.unique`` imports ``numpy.ma`` (10 ms) on first use."""
    return values[np.r_[True, values[1:] != values[:-1]]] if len(values) else values.copy()
