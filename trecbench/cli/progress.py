"""Progress bars on stderr for long jobs (reading large files, scoring runs, resampling).

Drawn by tqdm, with rate and ETA, only when stderr is a terminal (the caller checks, and
honours ``--quiet``), and only for jobs still running after ``delay`` seconds: short jobs
stay silent, and tqdm is imported only when a bar is drawn.
"""

from __future__ import annotations

import contextlib
import functools
import os
import sys
import threading
import time


def wanted(quiet: bool) -> bool:
    """Whether to draw progress: never with ``--quiet`` or when stderr is not a terminal."""
    return not quiet and sys.stderr.isatty()


@contextlib.contextmanager
def drawn(quiet: bool):
    """A :class:`TaskProgress` for a library call's ``progress`` while the block runs (on a
    terminal, without ``--quiet``), else None; its last bar is ended however the block
    ends."""
    shown = TaskProgress() if wanted(quiet) else None
    try:
        yield shown
    finally:
        if shown is not None:
            shown.close()


@contextlib.contextmanager
def bars_cleared():
    """The bars drawn on stderr cleared while the block writes its lines there, then drawn
    again below them: a warning said in mid-job (fuse's ParameterDomainWarning) is not run
    on after a bar's last frame. Without a bar drawn (tqdm not imported), nothing to do."""
    if "tqdm" not in sys.modules:
        yield
        return
    from tqdm import tqdm

    with tqdm.external_write_mode(file=sys.stderr):
        yield


def screen_shape(file) -> tuple[int | None, int | None]:
    """The columns and rows a bar drawn on ``file`` may take (as tqdm's own measure: one
    column and one row fewer than the terminal's), ``(None, None)`` off a terminal (tqdm's
    default width). A terminal that tells no size (0 by 0: a pty nobody sized, ``script``
    under a pipe) counts as ``COLUMNS`` by ``LINES``, else 80 by 24: tqdm took it as -1 by
    -1 and drew nothing at all."""
    try:
        columns, lines = os.get_terminal_size(file.fileno())
    except (AttributeError, OSError, ValueError):  # no descriptor, or not a terminal
        return None, None
    columns = columns if columns > 0 else _told_size("COLUMNS", 80)
    lines = lines if lines > 0 else _told_size("LINES", 24)
    return columns - 1, lines - 1


def _told_size(name: str, default: int) -> int:
    """The positive whole number the environment variable ``name`` holds (ASCII digits:
    ``"²"`` is a digit to :meth:`str.isdigit` but no number to :func:`int`), else
    ``default``."""
    value = os.environ.get(name, "")
    digits = value.isascii() and value.isdigit()
    return int(value) if digits and int(value) > 0 else default


class StderrProgress:
    """``progress(done, total)`` drawn as a bar with rate and ETA, or ``progress(done)``
    as a count with its rate.

    ``unit`` names what is counted (``B`` counts bytes, shown as kB, MB...; start a word
    with a blank: ``" lines"``); the bar is redrawn at most every ``interval`` seconds;
    :meth:`close` ends its line, or clears it unless ``leave``. ``start``: when the job
    began (``time.monotonic()``), if before now; ``since``: when ``delay`` counts from, if
    not the job's start (a command's first job: :class:`TaskProgress`). The last frame, of
    a job done, shows its total, however soon after the one before it comes.
    """

    def __init__(
        self,
        label: str,
        delay: float = 1.0,
        interval: float = 0.2,
        unit: str = " steps",
        *,
        leave: bool = True,
        start: float | None = None,
        since: float | None = None,
    ):
        self.label, self.delay, self.interval, self.unit = label, delay, interval, unit
        self.leave = leave
        self.start = time.monotonic() if start is None else start
        self.since = self.start if since is None else since
        self.bar = None
        self.postfix = ""

    def note(self, text: str) -> None:
        """Show ``text`` after the counts (``1,234 lines``), from the next redraw."""
        self.postfix = text
        if self.bar is not None:
            self.bar.set_postfix_str(text, refresh=False)

    def __call__(self, done: int, total: int | None = None) -> None:
        opened = self.bar is None
        if opened:
            if time.monotonic() - self.since < self.delay:
                return
            self._open(total)
        ended = total is not None and done >= total and done != self.bar.n
        if not self._moved(done, total) and (opened or ended):
            # drawn now: update() redraws `interval` after the bar's creation only, and a
            # short job's bar (cleared when it ends) would show nothing; and the job's end
            # is its last frame (compare's resampling ended on 9984/10000 samples)
            self.bar.refresh()

    def _open(self, total: int | None) -> None:
        """The bar, not drawn yet, timed from the job's start."""
        ncols, nrows = screen_shape(sys.stderr)
        self.bar = _bar_type()(
            total=total,
            desc=self.label,
            unit=self.unit,
            unit_scale=self.unit == "B",
            unit_divisor=1024 if self.unit == "B" else 1000,
            mininterval=self.interval,
            # redrawn every `interval` while it moves: tqdm's automatic miniters would wait
            # for as much progress as the first frame showed (done before the bar appeared)
            miniters=1,
            file=sys.stderr,
            ncols=ncols,
            nrows=nrows,
            leave=self.leave,
            smoothing=0,  # the mean rate since the job began, not the last burst's
            delay=1,  # no frame at creation (0 done, no time passed): the caller draws one
        )
        self.bar.delay = 0  # our delay has passed: tqdm draws from now on
        self.bar.dynamic_ncols = screen_shape  # the terminal's size at each frame
        # rate and ETA from the job's start, not the bar's (tqdm times by time.time())
        self.bar.start_t -= time.monotonic() - self.start
        if self.postfix:
            self.bar.set_postfix_str(self.postfix, refresh=False)

    def _moved(self, done: int, total: int | None) -> bool:
        """The bar at ``done`` of ``total``, redrawn (True) if ``interval`` has passed."""
        if total is not None and self.bar.total != total:
            self.bar.total = total
        return bool(self.bar.update(done - self.bar.n))

    def close(self) -> None:
        """End the bar's line, if one was drawn."""
        if self.bar is not None:
            self.bar.close()


@functools.cache
def _bar_type() -> type:
    """tqdm's bar, a slow job's rate told as ``3.12 s/run`` (tqdm's own: ``3.12s/ runs``,
    a worded unit's blank and plural after the slash)."""
    import re

    from tqdm import tqdm
    from tqdm.utils import disp_trim

    class Bar(tqdm):
        @staticmethod
        def format_meter(n, total, elapsed, unit="it", ncols=None, **rest) -> str:
            text = tqdm.format_meter(n, total, elapsed, unit=unit, ncols=ncols, **rest)
            # bytes (scaled: tqdm's "2.5s/B" reads right), or no per-item rate drawn; only
            # a number's "s/ " is one (a label's "results/ runs" is not)
            if not unit.startswith(" ") or not re.search(r"\ds/ ", text):
                return text
            # drawn a column wider, the rate rewritten (a column shorter), then cut: the
            # rate cut at the terminal's edge is rewritten too ("3.12 s/ca")
            wider = None if ncols is None else ncols + 1
            text = tqdm.format_meter(n, total, elapsed, unit=unit, ncols=wider, **rest)
            one = unit.strip().removesuffix("s")
            text = re.sub(rf"(\d)s/{re.escape(unit)}\b", rf"\1 s/{one}", text)
            text = re.sub(r"(\d)s/ ", r"\1 s/", text)
            return text if ncols is None else disp_trim(text, ncols)

    return Bar


class TaskProgress:
    """``progress(label, done, total)`` for interleaved jobs (reading each file, scoring
    the runs one after another, resampling): one line, the current job's bar, cleared when
    the next job takes over. A job takes over once the current one is finished or has not
    reported for ``stale`` seconds (two files read at once, by a reading thread and the
    main thread, are shown one after the other, not in turns). A job that comes back
    (scoring, after the next run was read) keeps its start time, so its rate and ETA stay
    right; one whose count goes back (agree --qrels-b's second pass of scoring) starts
    anew, as does one that tells 0 done again (a spilled run's topics: it starts now).
    ``delay`` counts from the command's first job, not from each one's start: a command
    of many short jobs (validating twelve runs of a second each) draws them once it has
    run ``delay`` seconds, and a short command draws nothing. One run's ``scoring
    topics`` is shown beside the bar of the file being read, then on its own once the file
    is read. ``units`` maps a label (or its first word) to its unit (``reading`` → bytes);
    ``delay`` and ``interval`` are :class:`StderrProgress`'s."""

    def __init__(
        self,
        units: dict[str, str] | None = None,
        stale: float = 0.5,
        delay: float = 1.0,
        interval: float = 0.2,
    ):
        self.units = {"reading": "B", "scoring": " runs", "scoring topics": " topics"}
        self.units |= {"scoring partitions": " partitions"}  # a run on Dask
        self.units |= {"resampling": " samples", "writing": " lines", "comparing": " pairs"}
        self.units |= {"validating": "B"}
        self.units |= {"fusing and scoring candidates": " candidates"}  # fuse --optimize
        self.units |= {"parsing": " files", "ranking": " runs", "checking modes": " modes"}
        self.units |= {"writing outputs": " files", "grading documents": " runs"}
        self.units |= {"pooling": " rows", "checking ids": " ids"}  # pool's
        self.units |= units or {}
        self.stale, self.delay, self.interval = stale, delay, interval
        self.label: str | None = None
        self.current: StderrProgress | None = None
        self.finished = True
        self.last = 0.0
        self.starts: dict[str, float] = {}
        self.dones: dict[str, int] = {}  # each job's last count: one going back starts anew
        self.began: float | None = None  # the first job's start, whence `delay` counts
        self.told_at: float | None = None  # the latest report of any job
        self.lock = threading.Lock()

    def __call__(self, label: str, done: int, total: int | None = None) -> None:
        if label == "scoring" and total == 1:
            return  # one run: "0/1 runs" says nothing; its reading bar shows the progress
        now = time.monotonic()
        with self.lock:
            if self.began is None:
                self.began = now
            before = self.dones.get(label, done)
            # a new pass of the job, or 0 done told again (a spilled run's topics, told at
            # its start, then as its scoring starts once it is read): timed anew
            if done < before or done == before == 0:
                self.starts.pop(label, None)
                if label == self.label:
                    self.close_current()
                    self.finished = True  # its last pass is over: nothing to wait for
            self.dones[label] = done
            # timed from its first report, noted or drawn: a job tells 0 done as it starts
            # (one first told part-way counts all it did over no time: 7,332,699 topics/s);
            # one first told part-way began at the latest when the job before it last told
            # (pool's next run read, its first 4 MB over no time: 11.1GB/s)
            began_by = now if done == 0 or self.told_at is None else self.told_at
            start = self.starts.setdefault(label, began_by)
            self.told_at = now
            busy = not self.finished and now - self.last < self.stale  # the job on screen
            if label == "scoring topics" and self.label != label and busy:
                # one run read and scored in turns: its topics beside its reading bar (a
                # pipe's, of no known size, is never finished: once it stops, they take over)
                self.current.note(f"{done:,} topics scored")
                return
            if label != self.label and done == 0 and total is None:
                # nothing to show yet (a run's topics told as its reading starts): timed
                # from now, drawn once it counts some or knows its total
                return
            if label != self.label:
                if busy:
                    return  # another job is under way: this one waits for its turn
                self.close_current()
                unit = self.units.get(label) or self.units.get(label.split(" ", 1)[0], " steps")
                self.current = StderrProgress(
                    label,
                    self.delay,
                    self.interval,
                    unit,
                    leave=False,
                    start=start,
                    since=self.began,
                )
                self.label = label
            self.current(done, total)
            self.finished, self.last = total is not None and done >= total, now

    def close_current(self) -> None:
        if self.current is not None:
            self.current.close()
        self.label, self.current = None, None

    def close(self) -> None:
        """End the last bar's line, if one was drawn."""
        with self.lock:
            self.close_current()
            self.finished = True  # nothing under way: the next job is drawn at once
