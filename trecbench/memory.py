"""The memory budget of an evaluation: which runs are read whole, how large their blocks are.

A run file is scored in one piece when it is small, and otherwise in blocks of whole
topics (:class:`trecbench.inputs.blocks.RunBlocks`): blocks of :data:`BLOCK_LINES` lines
score as fast as the whole run and keep the memory flat whatever the run's length. The
budget (``--memory MiB``; by default half of the memory available when the call starts)
bounds what the process holds at its peak, to within a tenth from 512 MiB up (the costs
per line are estimates; below that, the libraries, the qrels and the allocators' kept
memory make a floor; a topic's values are not counted, which runs of a few documents a
topic scored with trec_eval's measures exceed it by: docs/scale.md): the blocks are made
smaller to fit it (with several worker processes, each gets its share), and it decides
whether a run whose topics are scattered over the file is read whole or spilled to disk.
The costs per line are measured on this project's benchmark runs (``make bench``) and by
hand (peak RSS of ``trecbench score``), with a margin, and depend on the engines scoring
the blocks (:data:`ENGINE_BYTES_PER_LINE`).
A run read from a pipe is held in memory whatever the budget (standard input redirected
from a file is not). A compressed run's lines are guessed from its size, which a budget
given (``--memory``) does not trust: it reads every compressed run in blocks. Each worker
process holds the libraries and the qrels besides its share, and the calling process its
own: with workers the total exceeds a small budget.
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from .inputs import blocks
from .naming import STANDARD_INPUT

if TYPE_CHECKING:
    from .inputs.formats import Format

MIB = 1 << 20
# lines per block when memory is plentiful: larger blocks are not faster, and the last
# block, scored once the file is read, is time on one core
BLOCK_LINES = 1 << 19
FEWEST_BLOCK_LINES = 1 << 14
# bytes of text per table read when memory is plentiful: the reader's own size
# (trecbench.inputs.blocks.READ_BYTES); a small budget reads less at a time, as the tables
# being parsed are held besides the blocks (see :attr:`Budget.read_bytes`)
READ_BYTES = blocks.READ_BYTES
FEWEST_READ_BYTES = 1 << 20
# peak bytes per line of a block being scored (its columns, the ranking and hash arrays,
# the engine's arrays) plus the next block read meanwhile
BLOCK_BYTES_PER_LINE = 200
# peak bytes per line of a block read back from a spill: besides the block being scored
# and the next one, the one after is gathered from its partitions and put in file order.
# Set so that a scattered 5M-line run (5,000 topics, 150,000 qrels lines) spilled under
# --memory 512 peaks within a tenth of it (peak RSS, /usr/bin/time -f %M): 517 to 537 MiB
# with the fast engine, 555 to 560 MiB with pytrec_eval (-m official); 450 let them reach
# 602 and 703 MiB
SPILL_BYTES_PER_LINE = 900
# peak bytes per line of a run held whole (read, ranked and scored at once) by the fast
# engine (the KPI preset's): measured as the slope of peak RSS (/usr/bin/time -f %M) between
# a 1.5M-line and a 5M-line run with topics in two stretches, scored whole under
# --memory 8192: 147 bytes a line (and 143 MiB at no line), with a margin
WHOLE_BYTES_PER_LINE = 160
# peak bytes per line an engine adds to a block it scores (a run held whole, a block, a
# block read back from a spill), beyond what the fast engine takes: pytrec_eval (-m
# official, trec_eval's measures) gets each block as Python dicts, a str and a float per
# line; measured as WHOLE_BYTES_PER_LINE is, with -m official: 330 bytes a line in all
# (172 MiB at no line), 183 more than the fast engine, with a margin
ENGINE_BYTES_PER_LINE = {"pytrec_eval": 200}
# bytes per line of text, to tell a run's lines from its file's size (TREC runs take 25 to
# 60 bytes a line); compressed files hold about four times as many lines (a Parquet file
# tells its rows)
TEXT_BYTES_PER_LINE = 30
COMPRESSION_RATIO = 4
# the interpreter and libraries, and each qrels line held (table, per-topic facts): 199
# bytes a line held once read (RSS after trecbench.evaluation.judgments.load_judgments of
# 852,000 lines over 3,000 topics); reading them peaks higher (329 bytes a line), but
# before the runs' blocks are made
BASE_BYTES = 150 * MIB
QRELS_BYTES_PER_LINE = 200
# what an engine adds per qrels line held while the runs are scored: pytrec_eval (-m
# official) gets the qrels as Python dicts, {qid: {docno: rel}} (Qrels.as_dict, kept for
# the call), and copies them into its evaluator: 125 and 32 bytes a line (RSS after each,
# the 852,000 lines), with a margin. Without it, `score --memory 512 -m official` on a
# 2.6M-line scattered run against those qrels peaked at 589 MiB
QRELS_ENGINE_BYTES_PER_LINE = {"pytrec_eval": 170}
# the shortest qrels line: "1 0 d 1" and its newline
SHORTEST_QRELS_LINE = 8
SMALLEST_BUDGET_MIB = 64


def most_qrels_lines(source) -> int | None:
    """The most lines the qrels ``source`` can hold, told before it is read: from the size
    of a plain-text file (a line takes at least :data:`SHORTEST_QRELS_LINE` bytes); None
    for anything else (a compressed or Parquet file, a pipe, a table, an ir_datasets id)."""
    from .inputs.formats import TREC_TEXT

    found = _regular_file(source) if isinstance(source, (str, os.PathLike)) else None
    if found is None or found[1:] != (None, TREC_TEXT):
        return None
    return found[0] // SHORTEST_QRELS_LINE + 1


def _regular_file(path: str | os.PathLike) -> tuple[int, str | None, Format] | None:
    """``(size, compression, format)`` of a regular file, standard input (``-``) redirected
    from one too (its bytes from where it stands, as :class:`~trecbench.inputs.streams.Source`
    reads them); None for anything else (a pipe is read into memory, see
    :mod:`trecbench.inputs.streams`) and for a file that cannot be examined (its reader
    says what is wrong with it)."""
    from .inputs.streams import sniff

    if os.fspath(path) == STANDARD_INPUT:
        return _regular_stdin()
    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode):
            return None
        return (info.st_size, *sniff(path))
    except (OSError, ValueError):  # ValueError: a NUL in the name, which its reader says
        return None


def _regular_stdin() -> tuple[int, str | None, Format] | None:
    """:func:`_regular_file` of standard input: a file's bytes from its descriptor's
    offset; None for a pipe, a terminal or a standard input without a descriptor."""
    from .inputs.streams import kind_of, stored_ends

    try:
        descriptor = sys.stdin.fileno()
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode):
            return None
        start = os.lseek(descriptor, 0, os.SEEK_CUR)
        size = max(0, info.st_size - start)
        return (size, *kind_of(STANDARD_INPUT, stored_ends(descriptor, start, size)))
    except (AttributeError, OSError, ValueError):  # io.UnsupportedOperation is an OSError
        return None


def read_into_memory(source) -> bool:
    """Whether the run ``source`` is a path that is read into memory whatever the budget:
    a pipe, a FIFO or a terminal, standard input (``-``) too when it is one."""
    if not isinstance(source, (str, os.PathLike)):
        return False
    if os.fspath(source) == STANDARD_INPUT:
        try:
            return not stat.S_ISREG(os.fstat(sys.stdin.fileno()).st_mode)
        except (AttributeError, OSError, ValueError):
            return True  # a test runner's or a notebook's: held as it is read
    try:
        return not stat.S_ISREG(os.stat(source).st_mode)
    except OSError:
        return False  # its reader says what is wrong


def available_mib() -> int | None:
    """Memory available to a new process now (MiB; Linux' ``MemAvailable``, else the free
    physical pages), or None when the system does not tell."""
    try:
        with open("/proc/meminfo") as info:
            for line in info:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) // 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") // MIB
    except (ValueError, OSError, AttributeError):
        return None


def default_mib() -> int:
    """The default budget: half of the memory available now (2 GiB when unknown)."""
    available = available_mib()
    return max(SMALLEST_BUDGET_MIB, available // 2) if available else 2048


def engine_bytes(engines: Iterable[str], costs: dict[str, int] = ENGINE_BYTES_PER_LINE) -> int:
    """What the costliest of ``engines`` (names, :mod:`trecbench.engines`) adds per line of
    a block it scores (``costs``: :data:`ENGINE_BYTES_PER_LINE`; 0 for the others), or per
    qrels line (:data:`QRELS_ENGINE_BYTES_PER_LINE`)."""
    return max((costs.get(engine, 0) for engine in engines), default=0)


@dataclass(frozen=True)
class Budget:
    """A memory budget of ``mib`` MiB for one process scoring runs against qrels of
    ``qrels_lines`` lines; ``workers`` processes share it; ``engine_bytes``: what the
    engines scoring the blocks add per line (:func:`engine_bytes`); ``qrels_engine_bytes``:
    what they add per qrels line; ``given``: whether the caller set it (``--memory``,
    ``memory=``), which reads every run file whose lines cannot be bounded before it is
    read in blocks (:meth:`in_blocks`)."""

    mib: int
    qrels_lines: int = 0
    workers: int = 1
    engine_bytes: int = 0
    qrels_engine_bytes: int = 0
    given: bool = False

    @classmethod
    def of(
        cls, mib: int | None, qrels_lines: int = 0, workers: int = 1, engines: Iterable[str] = ()
    ) -> Budget:
        """The budget of ``mib`` (None: :func:`default_mib`, not :attr:`given`) for blocks
        scored by ``engines`` (their names)."""
        given = mib is not None
        mib = default_mib() if mib is None else int(mib)
        engines = list(engines)
        qrels_costs = engine_bytes(engines, QRELS_ENGINE_BYTES_PER_LINE)
        return cls(mib, qrels_lines, workers, engine_bytes(engines), qrels_costs, given)

    def with_qrels(self, lines: int) -> Budget:
        """This budget once qrels of ``lines`` lines are held."""
        return replace(self, qrels_lines=lines)

    @property
    def free_bytes(self) -> int:
        """Bytes left to one worker's runs once the libraries and the qrels are in."""
        held = BASE_BYTES + (QRELS_BYTES_PER_LINE + self.qrels_engine_bytes) * self.qrels_lines
        return max(0, self.mib * MIB // self.workers - held)

    @property
    def block_lines(self) -> int:
        """Lines per block of a run scored in blocks."""
        return self._block_lines(BLOCK_BYTES_PER_LINE + self.engine_bytes)

    @property
    def spill_lines(self) -> int:
        """Lines per block of a spilled run (see :attr:`whole_lines`)."""
        return self._block_lines(SPILL_BYTES_PER_LINE + self.engine_bytes)

    def _block_lines(self, bytes_per_line: int) -> int:
        fitting = self.free_bytes // bytes_per_line
        return int(min(BLOCK_LINES, max(FEWEST_BLOCK_LINES, fitting)))

    @property
    def read_bytes(self) -> int:
        """Bytes of text per table read: a 128th of :attr:`free_bytes`, within
        :data:`FEWEST_READ_BYTES` and :data:`READ_BYTES`."""
        return int(min(READ_BYTES, max(FEWEST_READ_BYTES, self.free_bytes // 128)))

    @property
    def whole_lines(self) -> int:
        """The most lines of a run held whole (a run with scattered topics beyond that is
        spilled to disk)."""
        whole = self.free_bytes // (WHOLE_BYTES_PER_LINE + self.engine_bytes)
        return int(max(self.block_lines, whole))

    def duplicate_keys(self, entry_bytes: int) -> int:
        """How many keys of its duplicate check (``entry_bytes`` each: hashes and the
        first line) the validator keeps in memory (a quarter of the free budget; a merge
        of its blocks briefly holds them twice) before it maps the rest from a temporary
        file."""
        return self.free_bytes // 4 // entry_bytes

    def in_blocks(self, path: str | os.PathLike) -> bool:
        """Whether the run file ``path`` is scored in blocks: it has more lines than a
        block (:meth:`run_lines`), or a budget the caller gave (:attr:`given`) cannot be
        sure it has fewer (:func:`_told_lines`). The default budget trusts the
        estimate: a run of a block or less is read faster whole."""
        lines, guessed = _told_lines(path)
        if lines is not None and lines > self.block_lines:
            return True
        return self.given and guessed

    @staticmethod
    def run_lines(path: str | os.PathLike) -> int | None:
        """The lines of the run file ``path``, told before it is read: the rows of a
        format that tells them (such as Parquet, from its footer), others' from the file's
        size (a compressed file's guessed); None when not told (a pipe, a file that cannot
        be examined, a Parquet file on standard input)."""
        return _told_lines(path)[0]


def _told_lines(path: str | os.PathLike) -> tuple[int | None, bool]:
    """:meth:`Budget.run_lines` of the run file ``path``, and whether they bound nothing
    (a budget given does not trust them): a compressed file's are guessed at
    :data:`COMPRESSION_RATIO` times its size, which a well-compressed run exceeds many
    times (zstd --long: 8M lines in 3.7 MB, 16 times the guess, held whole peaked at 750
    MiB under --memory 512), and a Parquet file's on standard input are not told at all.
    A pipe is held whole whatever the budget (:func:`read_into_memory`)."""
    found = _regular_file(path)
    if found is None:
        return None, False
    size, compression, format = found
    if format.can("rows"):
        if os.fspath(path) == STANDARD_INPUT:
            return None, True  # read whole: its reader cannot open "-" again for its footer
        return format.reader("rows", os.fspath(path))(os.fspath(path)), False
    if compression:
        return size * COMPRESSION_RATIO // TEXT_BYTES_PER_LINE, True
    return size // TEXT_BYTES_PER_LINE, False
