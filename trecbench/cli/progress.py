"""Progress on stderr for long jobs (large files, resampling).

Only drawn when stderr is a terminal (the caller checks, and honours ``--quiet``), and only
for jobs still running after ``delay`` seconds: short jobs stay silent.
"""

from __future__ import annotations

import sys
import time

import click


def wanted(quiet: bool) -> bool:
    """Whether to draw progress: never with ``--quiet`` or when stderr is not a terminal."""
    return not quiet and sys.stderr.isatty()


class StderrProgress:
    """``progress(done, total)`` drawn as a percentage, or ``progress(done)`` as a count.

    Redrawn at most every ``interval`` seconds, on one line that :meth:`close` ends.
    """

    def __init__(self, label: str, delay: float = 1.0, interval: float = 0.2, unit: str = ""):
        self.label, self.delay, self.interval, self.unit = label, delay, interval, unit
        self.start = time.monotonic()
        self.last = 0.0
        self.shown = False

    def __call__(self, done: int, total: int | None = None) -> None:
        now = time.monotonic()
        finished = total is not None and done >= total
        if now - self.start < self.delay or (now - self.last < self.interval and not finished):
            return
        self.last = now
        self.shown = True
        amount = f"{100 * done // max(total, 1)}%" if total is not None else f"{done:,}{self.unit}"
        click.echo(f"\r{self.label}: {amount}", err=True, nl=False)

    def close(self) -> None:
        """End the progress line, if one was drawn."""
        if self.shown:
            click.echo(err=True)
