"""Reading for the validator: files streamed chunk by chunk into a checker, topics files.

Tokenizing (:func:`trecbench.inputs.trec_text.iter_tokens`) runs one chunk ahead in a
thread, so a 10^7-line run validates in bounded memory at full speed.
"""

from __future__ import annotations

import contextvars
import os
import queue
import sys
import threading
from collections.abc import Callable, Iterator

from ..errors import InputError
from ..inputs import trec_text
from ..inputs.streams import Source
from ..sources import read_source, source_text
from .checker import Checker
from .cross_checks import topic_ids

# smaller than the reader's default: peak memory is several times the chunk, speed the same
CHUNK_BYTES = 4 << 20
# the most a caller may ask for: a chunk's buffer is allocated whole, before it is read
MOST_CHUNK_BYTES = 1 << 30


class Prefetched:
    """``items``, produced one ahead by a thread that starts at once, in the caller's
    context (the files it opens are inputs of the caller's call).

    Tokenizing the next chunk (pyarrow and numpy, mostly without the GIL) overlaps with
    checking this one: about 20% faster on two cores, for one more chunk in memory. Started
    before its consumer is ready, it reads meanwhile: ``score`` reads a run's first blocks
    while it loads the qrels. Iterate it once; iterating to the end, leaving the loop, or
    :meth:`close` stops the thread.
    """

    _END = object()

    def __init__(self, items: Iterator) -> None:
        self._slot: queue.Queue = queue.Queue(maxsize=1)
        self._stop = threading.Event()
        run_in_context = contextvars.copy_context().run
        self._thread = threading.Thread(
            target=run_in_context,
            args=(self._produce, items),
            name="trecbench-prefetch",
            daemon=True,
        )
        self._thread.start()

    def _put(self, item) -> bool:
        while not self._stop.is_set():
            try:
                self._slot.put(item, timeout=0.05)
                return True
            except queue.Full:
                continue
        return False

    def _produce(self, items: Iterator) -> None:
        try:
            for item in items:
                if not self._put(item):
                    return
            self._put(self._END)
        except BaseException as error:  # noqa: BLE001 - raised again by the consumer
            self._put(error)

    def __iter__(self) -> Iterator:
        try:
            while (item := self._slot.get()) is not self._END:
                if isinstance(item, BaseException):
                    raise item
                yield item
        finally:
            ending = isinstance(sys.exc_info()[1], (KeyboardInterrupt, SystemExit))
            self.close(wait=not ending)

    def close(self, wait: bool = True) -> None:
        """Stop the thread (after the item it is producing) and, unless ``wait`` is False,
        wait for it. A process being ended (Ctrl-C, SIGTERM, SIGHUP) does not wait: the
        thread may be blocked for good in the open() or read() of a FIFO or pipe no one
        writes into (`validate` waited there until data came, the signal taken and
        ignored); a daemon, it goes with the process, or stops at its next item."""
        self._stop.set()
        if wait:
            self._thread.join()


def prefetched(items: Iterator) -> Iterator:
    """``items``, produced one ahead by a thread that starts with the iteration (see
    :class:`Prefetched`)."""
    yield from Prefetched(items)


def stream(
    checker: Checker,
    path: str | os.PathLike | Source,
    keep: int,
    chunk_bytes: int = CHUNK_BYTES,
    progress: Callable[[str, int], None] | None = None,
) -> None:
    """Feed ``path`` (a path, or an open Source: see :func:`trec_text.iter_tokens`) to
    ``checker`` chunk by chunk, then finish it.

    ``keep``: fields kept per line (6 for runs, 4 for qrels). A truncated or corrupt gzip
    stream (R27) or a bad line of a JSONL run (R32.jsonl: its reader's error marked as a
    finding) is a finding, not an exception. ``progress(path, lines)`` is called after
    each chunk with the physical lines read so far.
    """
    lines = 0
    try:
        for tokens in prefetched(_tokens(path, checker.kind, keep, chunk_bytes)):
            checker.feed(tokens)
            lines += tokens.n_physical_lines
            if progress is not None:
                progress(checker.path, lines)  # the path, of a Source too
            if checker.stopped:
                break
    except InputError as error:
        if not error.finding:  # R27, a JSONL run's bad line (R32.jsonl): findings
            raise
        where = None if error.line is None else "line"
        checker.report.add(error.rule or "R27", error.line, where, error.message)
        checker.cut_short = True
        if error.line is not None and not checker.refused:
            # the bad line was read too (its reader stopped after it): counted, as every
            # line a TREC text file's checks go through is
            checker.physical = max(checker.physical, error.line)
    checker.finish()


def _tokens(
    path: str | os.PathLike | Source, kind: str, keep: int, chunk_bytes: int
) -> Iterator[trec_text.Tokens]:
    """The tokens of the TREC text a file stands for, as its format gives them to the
    validator (:mod:`trecbench.inputs.formats`): TREC text chunk by chunk, a Parquet file
    at once, as ``score`` reads it (:func:`trecbench.inputs.parquet.to_tokens`)."""
    if not isinstance(path, Source):
        with Source(path) as source:
            yield from _tokens(source, kind, keep, chunk_bytes)
            source.record()
        return
    validate_tokens = path.format.reader("validate_tokens", path.path, kind)
    yield from validate_tokens(path, kind, keep, chunk_bytes)


def read_topics(path: str | os.PathLike) -> list[str]:
    """Topic ids of a file: one per line (a header line of column names skipped), JSON
    lines queries (BEIR's ``{"_id": ...}``), or a TREC topics file with ``<num> Number:
    301`` (:func:`~.cross_checks.topic_ids`).

    Ids end where the runs' fields do, at C's white space (a no-break space is part of an
    id), and a UTF-8 byte-order mark is not part of the first."""
    # invalid UTF-8 is an error (replaced, an id would change without a word)
    return topic_ids(source_text(read_source(path, "topics"), "invalid UTF-8"), path)
