"""The client's side of a run scored on Dask (:mod:`trecbench.dask`): the partitions'
row offsets (a file that cannot be read named), the tasks computed in the files' order
of errors, and what they tell a progress bar as they finish."""

from __future__ import annotations

import contextlib
from itertools import accumulate

import dask
import pyarrow as pa
from dask.distributed import Client

from .errors import InputError


def row_offsets(sources: list) -> list[list[int]]:
    """For each frame of ``sources`` (``(frame, origin, file)``), the number of its rows
    before each of its partitions (the lengths of all computed at once: every partition
    read). A file that cannot be read (a Parquet data page cut short) is named, as one
    process names it: the first in order, each file's lengths computed alone once the
    reader has failed (its words alone: ``Unexpected end of stream``)."""
    from distributed.comm.core import CommClosedError

    tasks = [frame.map_partitions(len) for frame, _, _ in sources]
    try:
        lengths = dask.compute(*tasks)
    except (OSError, pa.ArrowException) as error:
        if isinstance(error, CommClosedError):  # the cluster's, not a file's
            raise
        for task, (_, origin, file) in zip(tasks, sources, strict=True):
            try:
                dask.compute(task)
            except (OSError, pa.ArrowException) as failed:
                if file:
                    message = f"not a readable Parquet file: {failed}"
                    raise InputError(origin, None, message) from None
                raise
        raise
    return [list(accumulate((int(n) for n in counts[:-1]), initial=0)) for counts in lengths]


class Told:
    """What a run's tasks tell ``progress`` as they finish: the bytes of its files read
    (``reading FILE``, ``reading N files``: a file's size once its facts are in) while
    they are read, then the partitions scored of ``partitions``."""

    def __init__(self, progress, files: list[str] | None, partitions: int):
        from .evaluation.runs import file_size

        self.progress, self.partitions = progress, partitions
        self.sizes = [file_size(path) for path in files or ()]
        self.total = None if None in self.sizes else sum(self.sizes)
        several = f"{len(self.sizes)} files"
        self.label = f"reading {files[0] if len(self.sizes) == 1 else several}"
        self.read, self.scored = 0, 0
        # the partitions timed from the call's start, not from the first one scored (whose
        # first frame said "1/4 [00:00<00:00, 5289.16 partitions/s]"); where files are read,
        # told without its total, which times it undrawn: the files' bar comes first (an
        # empty "0/4 partitions" bar was drawn, then replaced by it)
        progress("scoring partitions", 0, None if self.sizes else partitions)

    def __call__(self, kind: str, index: int) -> None:
        if kind == "facts" and self.sizes and not self.scored:  # a frame: no file read
            self.read += self.sizes[index] or 0
            self.progress(self.label, self.read, self.total)
        elif kind == "scored":
            if not self.scored and self.sizes:
                # every file is read once a partition is scored (the shuffle took them
                # all), though the tasks handing their facts over may run later
                self.read = sum(size or 0 for size in self.sizes)
                self.progress(self.label, self.read, self.total)
            self.scored += 1
            self.progress("scoring partitions", self.scored, self.partitions)


def computed(client: Client, scored: list, facts: list, parts_read: list, told=None) -> tuple:
    """``(outcomes of scored, facts)`` computed on ``client``; an error is the first in
    the files' order, as one process reading them in turn raises it, whichever worker
    failed first: the first of the partitions read (``parts_read``), the files' facts,
    then the partitions scored, to fail, raised once those before it have succeeded."""
    from distributed import as_completed

    groups = (("parts", parts_read), ("facts", facts), ("scored", scored))
    futures = client.compute([task for _, tasks in groups for task in tasks])
    roles = [(kind, index) for kind, tasks in groups for index in range(len(tasks))]
    role = {id(future): kind for future, kind in zip(futures, roles, strict=True)}
    ordered = iter(futures)
    first = next(ordered, None)  # the first not known to have succeeded, in that order
    try:
        for future in as_completed(futures):
            if told is not None and future.status == "finished":
                told(*role[id(future)])
            while first is not None and first.done():
                if first.status != "finished":
                    first.result()  # raises its error (a cancelled one's too)
                first = next(ordered, None)
        results = client.gather(futures)
    except BaseException:
        with contextlib.suppress(Exception):  # a closing client: its tasks go with it
            client.cancel(futures)
        raise
    done = len(parts_read)
    return results[done + len(facts) :], results[done : done + len(facts)]
