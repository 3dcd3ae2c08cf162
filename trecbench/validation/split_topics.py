"""The rows kept to check a topic split across chunks again whole (R11, R14, R15).

A topic split into blocks (R20) that the streaming reader meets in different chunks is
checked per stretch as it comes; :class:`KeptRows` keeps each row's topic, rank, score and
line (:data:`ROW_BYTES` a row: an int32 code of the topic's name, an int64 rank, a float64
score, an int64 line), so that :meth:`.run_topics.TopicChecks.finish` checks such topics
again over all their rows. Which topics come back is known only at the end, so every row is
kept, up to ``most_rows`` (a share of ``--memory``: :meth:`trecbench.memory.Budget.split_rows`);
past it none is (:attr:`KeptRows.dropped`), and a split topic's findings stand per stretch.
At the end the split topics are gathered in groups of at most :data:`GROUP_ROWS` rows (a
topic larger than that alone), each group's rows freed from the store as it is taken.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

# bytes a row kept: topic code (int32), rank (int64), score (float64), line (int64)
ROW_BYTES = 4 + 8 + 8 + 8
# most rows of split topics checked again at once (a topic larger than that: alone); the
# check holds ~150 bytes a row besides what is kept (40 MB)
GROUP_ROWS = 1 << 18


class KeptRows:
    """Each row's topic (as a code), rank, score and line, batch by batch, in file order
    within each topic; ``most_rows`` at most (None: no bound)."""

    def __init__(self, most_rows: int | None = None) -> None:
        self.most_rows = most_rows
        self.code_of: dict[str, int] = {}  # topic name -> code
        self.batches: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []
        self.rows = 0
        self.dropped = False  # more rows came than most_rows: none is kept

    def add(self, qname: list[str], length: np.ndarray, rank, score, line) -> None:
        """Keep a batch's rows: sorted by topic, ``length[i]`` rows of topic ``qname[i]``."""
        if self.dropped:
            return
        self.rows += len(line)
        if self.most_rows is not None and self.rows > self.most_rows:
            self.dropped, self.batches = True, []
            return
        code_of = self.code_of
        codes = np.array([code_of.setdefault(name, len(code_of)) for name in qname], np.int32)
        self.batches.append(
            (
                np.repeat(codes, length),
                np.array(rank, np.int64),
                np.array(score, np.float64),
                np.array(line, np.int64),
            )
        )

    def groups(
        self, topics: list[str], sizes: list[int]
    ) -> Iterator[tuple[list[str], np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
        """The rows of ``topics`` (``sizes[i]`` rows of ``topics[i]``) in groups of at most
        :data:`GROUP_ROWS` rows: each group's topics and its rows' code (an index into
        them), rank, score and line, sorted by topic in the order given and by line within
        each. The store is emptied as it goes: a group's rows, and first every row of a
        topic not asked for, are freed before the next group is gathered."""
        wanted = np.full(len(self.code_of), -1, np.int64)
        wanted[[self.code_of[name] for name in topics]] = np.arange(len(topics))
        self.code_of = {}
        self._keep_only(wanted >= 0)
        begin = 0
        while begin < len(topics):
            end, held = begin + 1, sizes[begin]
            while end < len(topics) and held + sizes[end] <= GROUP_ROWS:
                held += sizes[end]
                end += 1
            group = (wanted >= begin) & (wanted < end)
            pieces = []
            for code, rank, score, line in self.batches:
                take = group[code]
                pieces.append((wanted[code[take]] - begin, rank[take], score[take], line[take]))
            self._keep_only(~group & (wanted >= end))
            columns = zip(*pieces, strict=True)
            code, rank, score, line = (np.concatenate(column) for column in columns)
            del pieces
            order = np.argsort(code, kind="stable")  # batches come in file order
            yield topics[begin:end], code[order], rank[order], score[order], line[order]
            begin = end

    def _keep_only(self, wanted: np.ndarray) -> None:
        """Free the rows whose topic's code is not ``wanted`` (a mask over codes)."""
        batches, self.batches = self.batches, []
        while batches:
            code, rank, score, line = batches.pop(0)
            take = wanted[code]
            if take.any():
                self.batches.append((code[take], rank[take], score[take], line[take]))
