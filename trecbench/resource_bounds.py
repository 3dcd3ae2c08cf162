"""The least memory budget and the fewest worker processes a call takes, once for the
command line's ``--memory``/``--jobs`` and the library's ``memory=``/``jobs=`` (a budget
below 1 MiB or fewer than one process means nothing; ``jobs=-3`` ran as if not given);
and the documents a call keeps per topic, once for ``--depth`` and ``depth=`` (the
converters' ``depth=-1`` gave numpy's errors, ``depth=2.5`` or ``True`` was taken); the
most digits of an integer read; the most partitions of a Dask run."""

from __future__ import annotations

import numbers

from .errors import UsageError

# the most digits of an integer read: an id, a score, an option's value, a report's
# number (longer is a mistake, and past 4,300 Python's int refuses to read or print it)
MAX_DIGITS = 100

LEAST_MEMORY_MIB = 1
FEWEST_JOBS = 1
# documents kept per topic: at least 1, and at most what numpy and Arrow index with
LEAST_DEPTH, MOST_DEPTH = 1, 2**63 - 1
# a Dask run's topic partitions: each is a task of the graph the client builds before
# anything runs (10**9 of them filled 24 GB before the first, 100,000 ran past 15 minutes
# and 10,000 took 195 s on 2 cores), and a partition of one topic is the finest split
MOST_PARTITIONS = 10_000


def whole_from(name: str, value: object, least: int, most: int | None = None) -> int:
    """``value`` as an int: a whole number (numpy's too; not a bool, a float or text) of
    at least ``least`` (and at most ``most``), else a
    :class:`~trecbench.errors.UsageError` naming ``name``."""
    whole = isinstance(value, numbers.Integral) and not isinstance(value, bool)
    if not whole or value < least or (most is not None and value > most):
        within = f"from {least}" if most is None else f"from {least} to {most}"
        raise UsageError(f"{name} must be a whole number {within}, not {value!r}")
    return int(value)


def depth_from(value: object) -> int | None:
    """A ``depth=`` as ``--depth`` takes it: None (every document) or a whole number from
    :data:`LEAST_DEPTH` to :data:`MOST_DEPTH`, as a Python int; else a UsageError."""
    return None if value is None else whole_from("depth", value, LEAST_DEPTH, MOST_DEPTH)
