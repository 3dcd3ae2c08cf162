"""Scoring on a Dask cluster: runs larger than one machine, with trec_eval's numbers.

A run given as a **Dask DataFrame** (trec, ir_measures, ranx or BEIR column names, as
:mod:`trecbench.inputs.tables` reads them), as **Parquet** files or as **TREC text** files
is typed on the workers, shuffled by topic (every line of a topic in one partition) and
scored there, partition by partition, with the same engine code as a run scored in one
process (:func:`trecbench.evaluate`'s blocks); the client gathers the per-topic values
(a few numbers per topic) and averages them with trec_eval's rules and order. The output
is that of ``trecbench.evaluate`` on the same run, byte for byte.

The qrels are parsed once, on the client, and sent to every worker once. A TREC text file
is read whole by one worker (with the validator's lenient gate, as ``trecbench score``
reads it): give a large run as several files (as sharded retrieval writes them) or as
Parquet, whose row groups are spread over the workers.

``trecbench.dask`` is this module (imported as ``from trecbench import dask as tbdask``
or ``import trecbench.dask``); inside it, ``import dask`` is the Dask package (absolute
imports), so the name shadows nothing. It needs the extra ``trecbench[dask]``.

>>> from dask.distributed import Client                      # doctest: +SKIP
>>> client = Client("tcp://scheduler:8786")                   # doctest: +SKIP
>>> from trecbench.dask import evaluate                      # doctest: +SKIP
>>> evaluate("qrels.txt", "runs/bm25/*.parquet", client=client)  # doctest: +SKIP
"""

from __future__ import annotations

import os
import threading
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import accumulate
from typing import Any, NamedTuple

import pyarrow as pa

from . import arrow_compute as pc
from . import provenance
from .errors import NO_DATA_LINES, DuplicateError, InputError, UsageError, path_renamed
from .extras import require
from .inputs import held
from .inputs.blocks import Counts
from .inputs.integer_ids import lost_zero, refuse
from .inputs.streams import EMPTY_FILE
from .inputs.tables import (
    FILE_LINE_BITS,
    duplicate_in_files,
    integer_ids,
    lines_are_rows,
    with_integer_ids,
)
from .inputs.trec_tables import SCORE_TEXT

require("dask", "trecbench.dask (score --dask)")  # one line naming the extra when missing
require("distributed", "trecbench.dask (score --dask)")
import dask  # noqa: E402
import dask.dataframe as dd  # noqa: E402
from dask.distributed import Client  # noqa: E402

from .dask_cluster import (  # noqa: E402  (trecbench.dask.connect)
    cluster_failures,
    connect,
    refuse_local_bounds,
)
from .dask_files import (  # noqa: E402
    file_format,
    named_as_given,
    naming_path,
    partitioned,
    run_files,
    text_partitions,
    worker_path,
)
from .dask_rows import has_line_numbers, named_frame  # noqa: E402
from .dask_tasks import Told, computed, row_offsets  # noqa: E402
from .resource_bounds import MOST_PARTITIONS, whole_from  # noqa: E402

RUN_COLUMNS = ("qid", "docno", "score", "tag", "line")
_ID_ROLES = ("qid", "docno")
_FRAME = "run DataFrame"  # what the workers name a Dask DataFrame run in its errors
_INTEGERS = "trecbench integer ids"  # a partition's attrs: its id columns read from integers
_ROWS = "trecbench rows"  # a partition's attrs: its lines are its file's rows (lines_are_rows)
# trec_eval's code (pytrec_eval) keeps state between calls: one partition at a time is
# scored per process (a worker with several threads scores them in turn)
_SCORING = threading.Lock()
# the workers' warnings said in a call (by its plan): pandas, building a run's frames here,
# enters warnings.catch_warnings, which forgets the lines said: two runs said one twice
_RELAYED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


class DaskRun:
    """One run to score on a Dask cluster: a Dask DataFrame, or a path, glob or list of
    Parquet or TREC text files (together one run, in the order given). ``partitions``:
    topic partitions after the shuffle (default: as many as the input has); ``client``:
    the Dask client (default: the current one). Give it to :func:`trecbench.evaluate` like
    any run, or use :func:`evaluate`."""

    def __init__(self, data: Any, client: Client | None = None, partitions: int | None = None):
        # 0 ran as the default, -1 raised numpy's OverflowError, True or 2.5 were taken
        whole = (
            None if partitions is None else whole_from("partitions", partitions, 1, MOST_PARTITIONS)
        )
        self.data, self.client, self.partitions = data, client, whole
        self.files = None if isinstance(data, dd.DataFrame) else run_files(data)
        # where the workers open each file: from the folder the run was named in
        self.opened = {path: worker_path(path) for path in self.files or ()}

    @property
    def path(self) -> str | None:
        """The file the run is, when it is one file (what results name it by)."""
        return self.files[0] if self.files and len(self.files) == 1 else None

    @property
    def name_path(self) -> str | None:
        """What the run is named by: its one file, else the folder or glob it was given
        as (:func:`~trecbench.dask_files.naming_path`); None for a list or a DataFrame."""
        return self.path or naming_path(self.data)

    def __repr__(self) -> str:
        return f"DaskRun({self.path or self.files or 'DataFrame'})"

    def score_run(self, plan, tie_bounds: bool, name: str | None, progress=None):
        """``(result, columns, flagged topics, warnings)``, as ``trecbench.evaluate``
        computes them for a run in one process (see the module docstring); ``progress``:
        ``trecbench.evaluate``'s, told the files read and the partitions scored as the
        workers finish them (:class:`~trecbench.dask_tasks.Told`)."""
        from .evaluation import run_result
        from .evaluation.runs import said_again, warn_again

        client = self.client or Client.current()
        if client.status in ("closing", "closed"):  # else distributed's AttributeError
            raise UsageError(f"{self!r}: its Dask client is closed: give an open one")
        truth = plan.truth
        qrels_integers = tuple(r for r in _ID_ROLES if integer_ids(truth.table, r))
        name = name or self.path or "run1"
        # a frame held in memory named as one process names it: several are each a frame
        label = self.path or (", ".join(self.files) if self.files else held.named(name, _FRAME))
        # everything computed on the client given, not whichever one is current: the
        # partitions' lengths of Parquet files (in _typed) too
        with client.as_current(), cluster_failures(client):
            # a report's drill-down shows the scores as a file writes them, as in one process
            typed, facts, parts_read = self._typed(qrels_integers, plan.drill is not None)
            parts = self.partitions or max(typed.npartitions, text_partitions(self.files))
            shuffled = typed.shuffle("qid", npartitions=parts, shuffle_method="tasks")
            # a key of its own each call (hash=False): equal data scattered again by a later
            # call must not share the key of data a finished call lets go of
            # what the call read of a file that can be read once (a FIFO --ontology: read
            # before the runs, trecbench.evaluate), handed to the workers
            read_once = provenance.read_so_far()
            # the workers run in folders of their own: the files the measures read by
            # absolute path (the runs' own: self.opened)
            shared = _Shared(plan.elsewhere(), read_once)
            shared = client.scatter(shared, broadcast=True, hash=False)
            scored = [
                dask.delayed(_score_partition)(part, shared, tie_bounds)
                for part in shuffled.to_delayed()
            ]
            try:
                told = None if progress is None else Told(progress, self.files, len(scored))
                outcomes, facts = computed(client, scored, facts, parts_read, told)
            except Exception as error:
                # a partition's warnings, raised before it: those not said yet in the call
                warn_again(_unsaid(plan, error.__dict__.get("said", ())))
                if not isinstance(error, InputError) or self.files is not None:
                    raise
                if error.path != _FRAME:
                    raise
                raise named_frame(error, label, self.data) from None
        # the engines' warnings said here, once a call
        blocks = list(said_again((block, _unsaid(plan, ws)) for block, ws in outcomes))
        lines, runid, records, warnings = _combined(facts)
        if not lines:  # files as validate and one process refuse them (R26)
            if self.files is not None and len(self.files) > 1:  # each skipped (_skipped)
                where = self.data if isinstance(self.data, str) else label
                raise InputError(where, None, f"all {len(self.files)} files of the run are empty")
            if self.files:
                raise InputError(label, None, EMPTY_FILE, "R26", finding=True)
            raise InputError(label, None, "empty run")
        _refuse_lost_zeros(truth, [found.ids for found in facts], self.files or [label])
        try:
            result, columns, flags = run_result(blocks, name, self.path, runid, plan, tie_bounds)
        except DuplicateError as error:
            if self.files is None:
                raise named_frame(error, label, self.data) from None
            rows = [found.rows for found in facts]
            raise duplicate_in_files(error, files=self.files, rows=rows) from None
        result.record = records[0] if len(records) == 1 else None
        if self.files is not None and len(self.files) > 1:  # each file in the records
            result.files, result.file_records = list(self.files), records
        return result, columns, flags, warnings

    def _typed(self, qrels_integers: tuple[str, ...], score_text: bool = False):
        """The run's typed rows as a Dask DataFrame, the :class:`_Facts` of each file
        (of the frame, when the run is one: no record), delayed (``ids`` against the
        qrels' id columns ``qrels_integers``, read from integers), and the facts of each
        partition of the files read in partitions, in order (none for files read whole).
        ``score_text``: a TREC text file's scores as written kept too (Parquet and frames
        hold numbers)."""
        if self.files is None:
            sources = [(self.data, _FRAME, False)]
        elif all(partitioned(path) for path in self.files):
            # each file read and checked on its own: an error names it, and the files need
            # not have the same columns (the first file's would be looked for in all)
            sources = [
                (file_format(path).reader("dask_frame", path)(self.opened[path], path), path, True)
                for path in self.files
            ]
        else:
            sources = None
        if sources is not None:
            offsets = row_offsets(sources)
            # a frame's line column read as line numbers only if it holds them across the
            # frame (each partition's 1, 2, 3 of two frames concatenated does not)
            lined = [file or has_line_numbers(frame) for frame, _, file in sources]
            frames = [
                frame.map_partitions(
                    _typed_frame, at, origin, file, shard, own, meta=_META, enforce_metadata=False
                )
                for shard, ((frame, origin, file), at, own) in enumerate(
                    zip(sources, offsets, lined, strict=True)
                )
            ]
            typed = dd.concat(frames)
            # a file's facts are joined on a worker from those of its partitions (their
            # topics and tags stay there), which takes the file's checksum too
            counted, checksums = self.files is not None, provenance.checksums_taken()
            parts = [
                dask.delayed(_facts)(part, qrels_integers, counted) for part in typed.to_delayed()
            ]
            ends = accumulate(frame.npartitions for frame in frames)
            facts = [
                dask.delayed(_joined_facts)(
                    parts[end - frame.npartitions : end],
                    origin if file else None,
                    checksums,
                    self.opened[origin] if file else None,
                )  # fmt: skip
                for frame, (_, origin, file), end in zip(frames, sources, ends, strict=True)
            ]
            return typed, facts, parts
        read = [
            dask.delayed(_read_text, nout=2)(
                path, shard, qrels_integers, score_text, self.opened[path], len(self.files) == 1
            )
            for shard, path in enumerate(self.files)
        ]
        meta = _empty_frame(score_text)
        typed = dd.from_delayed([frame for frame, _ in read], meta=meta, verify_meta=False)
        return typed, [facts for _, facts in read], []


def evaluate(
    qrels: Any,
    runs: Any,
    measures: str | Sequence[str] | None = None,
    *,
    client: Client | str | None = None,
    partitions: int | None = None,
    **options,
):
    """:func:`trecbench.evaluate` with every run scored on Dask (see the module docstring).

    ``runs``: one run or a list or dict of them, each a Dask DataFrame or a path, glob or
    list of Parquet or TREC text files. ``client``: a Dask client or a scheduler address
    (``local:N`` starts a local cluster of N processes; default: the current client).
    ``options`` are :func:`trecbench.evaluate`'s. A client made here of an address is
    closed before the call returns, and the local cluster it started (``local:N``) with
    it, so that no scheduler or worker process outlives the call; a scheduler at an
    address given runs on, as does a client given. ``memory`` and ``jobs`` are refused:
    they bound the scoring in this process, which the workers do here."""
    refuse_local_bounds(options.get("memory"), options.get("jobs"))
    if not isinstance(client, str):
        return _evaluate_on(client, qrels, runs, measures, partitions, options)
    from .dask_cluster import close

    connected = connect(client)
    try:
        return _evaluate_on(connected, qrels, runs, measures, partitions, options)
    finally:
        close(connected)


def _evaluate_on(client: Client | None, qrels, runs, measures, partitions, options):
    """:func:`evaluate` on ``client`` (None: the current one)."""
    from .evaluation import evaluate as evaluate_here

    if isinstance(runs, Mapping):
        wrapped: Any = {name: DaskRun(run, client, partitions) for name, run in runs.items()}
    elif isinstance(runs, (list, tuple)) and not all(isinstance(r, str) for r in runs):
        wrapped = [DaskRun(run, client, partitions) for run in runs]
    else:
        wrapped = DaskRun(runs, client, partitions)
    return evaluate_here(qrels, wrapped, measures, **options)


# ---------------------------------------------------------------------------------------
# on the workers


def _empty_frame(score_text: bool = False):
    """A typed partition without rows (``score_text``: with the scores as written)."""
    import pandas as pd

    text = pd.StringDtype("pyarrow")
    columns = {
        "qid": pd.Series([], dtype=text),
        "docno": pd.Series([], dtype=text),
        "score": pd.Series([], dtype="float64"),
        "tag": pd.Series([], dtype=text),
        "line": pd.Series([], dtype="int64"),
    }
    return pd.DataFrame(columns | ({SCORE_TEXT: pd.Series([], dtype=text)} if score_text else {}))


_META = _empty_frame()  # the typed partitions' columns


def _frame(table: pa.Table, shard: int = 0, score_text: bool = False):
    """A typed run table as a pandas partition (string ids stay Arrow strings); its lines
    numbered across the run's files: line ``n`` of file ``shard`` as
    ``shard << FILE_LINE_BITS | n``, so that lines of two files never share a number (a document
    listed in two files was reported at line 2**63 - 1) and sort in the files' order.
    ``score_text``: with the scores as written (null where the format holds numbers)."""
    from .inputs import to_pandas

    names = (*RUN_COLUMNS, SCORE_TEXT) if score_text else RUN_COLUMNS
    if score_text and SCORE_TEXT not in table.column_names:
        table = table.append_column(SCORE_TEXT, pa.nulls(table.num_rows, pa.string()))
    plain = pa.table(
        {
            name: table.column(name).cast(pa.string())
            if name in ("qid", "docno", "tag", SCORE_TEXT)
            else pc.add(table.column(name), shard << FILE_LINE_BITS)
            if name == "line" and shard
            else table.column(name)
            for name in names
        }
    )
    return to_pandas(plain)


def _typed_frame(
    part, offsets, origin: str, file: bool, shard: int, lined: bool, partition_info=None
):
    """A partition of any accepted columns as typed rows; ``line``: the row's number in the
    whole frame (as :mod:`trecbench.inputs.tables` numbers a DataFrame's rows), unless its
    ``line`` column holds line numbers across the frame (``lined``); ``file``: read from
    the file ``origin`` (see
    :func:`trecbench.inputs.tables.typed`), whose rows errors then cite by their number
    in the file (a shard split into row groups starts each partition's index at 0)."""
    import numpy as np

    from .inputs import tables

    first = offsets[partition_info["number"]] if partition_info is not None else 0
    table, where = tables.frame_table(part, origin)
    if file:
        typed = tables.typed(table, "run", origin, file=True, first=first)
        return _marked(_frame(typed, shard), typed)
    typed = tables.typed(table, "run", origin, where)
    if not lined:  # no line numbers of its own: its rows numbered
        numbers = np.arange(first + 1, first + len(part) + 1, dtype=np.int64)
        typed = typed.set_column(typed.column_names.index("line"), "line", pa.array(numbers))
    return _marked(_frame(typed), typed)


def _marked(frame, table: pa.Table):
    """``frame`` noting which of ``table``'s id columns were read from integers, and
    whether its lines are its file's rows (pandas keeps ``attrs``, where the Arrow field
    metadata that marks them is lost)."""
    frame.attrs[_INTEGERS] = tuple(r for r in _ID_ROLES if integer_ids(table, r))
    frame.attrs[_ROWS] = lines_are_rows(table)
    return frame


class _Facts(NamedTuple):
    """What the client needs of a file of a run (of a run's frame) beside its scores:
    its ``lines``, its last ``tag``, its provenance ``record`` (None: a frame), the
    ``warnings`` of its reading, its ``ids`` (:func:`_id_facts`), and whether its lines
    are its rows (``rows``: :func:`~trecbench.inputs.tables.lines_are_rows`)."""

    lines: int
    tag: str | None
    record: dict | None
    warnings: list[str]
    ids: tuple
    rows: bool


class _PartFacts(NamedTuple):
    """:class:`_Facts` of one partition, without a record; ``qids`` and ``tags``: its
    distinct ones, from which its file's record counts them (None: a frame's)."""

    lines: int
    tag: str | None
    ids: tuple
    rows: bool
    qids: frozenset | None
    tags: frozenset | None


def _read_text(
    path: str,
    shard: int = 0,
    qrels_integers: tuple[str, ...] = (),
    score_text: bool = False,
    opened: str | None = None,
    alone: bool = False,
):
    """A file of any format read whole as ``trecbench score`` reads it: the typed rows
    (``score_text``: with the scores as written) and its :class:`_Facts`; opened as
    ``opened`` (:func:`~trecbench.dask_files.worker_path`), named ``path``. A file with
    nothing to score (:data:`_NOTHING_TO_SCORE`) is skipped (:func:`_skipped`) unless it
    is the run's only file (``alone``), refused then as one process refuses it."""
    from .evaluation import load

    opened = path if opened is None else opened
    try:
        loaded = load(opened, "run", score_text=score_text)
    except InputError as error:
        error = named_as_given(error, opened, path)
        if alone or error.rule not in _NOTHING_TO_SCORE or error.path != path:
            raise error from None
        return _skipped(path, score_text, opened, _NOTHING_TO_SCORE[error.rule])
    record = None if loaded.record is None else {**loaded.record, "path": path}
    said = [path_renamed(text, opened, path) for text in loaded.warnings]
    table = loaded.table
    if "line" not in table.column_names:  # a regular file: row i is line i + 1
        import numpy as np

        table = table.append_column("line", pa.array(np.arange(1, len(table) + 1)))
    ids = _id_facts(table, qrels_integers)
    rows = lines_are_rows(table)
    facts = _Facts(len(table), _last_tag(table), record, said, ids, rows)
    return _frame(table, shard, score_text), facts


# the gate's refusals of a file with nothing to score, and what each says: an empty file
# (R26: sharded retrieval writes one for a shard that retrieved nothing) and one of blank
# lines alone (R9), which the files' concatenation scores as if it were not there
_NOTHING_TO_SCORE = {"R26": EMPTY_FILE, "R9": NO_DATA_LINES}


def _skipped(path: str, score_text: bool, opened: str, why: str) -> tuple:
    """A file of a run with nothing to score (``why``: :data:`_NOTHING_TO_SCORE`) as
    :func:`_read_text` gives a file: no rows, its record, and a warning that it is
    skipped; the client refuses a run whose every file is so."""
    digest = _file_digest(path, True, opened)
    record = {"path": path, "kind": "run", **digest, **Counts().record()}
    return _empty_frame(score_text), _Facts(
        0, None, record, [_said_skipped(path, why)], ((), {}), True
    )


def _said_skipped(path: str, why: str) -> str:
    """The warning of a run's file skipped, having nothing to score (``why``)."""
    return f"{path}: {why}, skipped (the run's other files are scored)"


def _last_tag(table) -> str | None:
    if not len(table):
        return None
    tags = table["tag"] if not isinstance(table, pa.Table) else table.column("tag")
    last = tags[len(tags) - 1]
    return last.as_py() if hasattr(last, "as_py") else str(last)


def _facts(part, qrels_integers: tuple[str, ...], counted: bool) -> _PartFacts:
    """The :class:`_PartFacts` of a typed partition (``counted``: its distinct topics and
    tags too: it is part of a file)."""
    ids = pa.table({role: pa.array(part[role]) for role in _ID_ROLES})
    ids = _id_facts(with_integer_ids(ids, list(part.attrs.get(_INTEGERS, ()))), qrels_integers)
    seen = [frozenset(part[name].unique()) if counted else None for name in ("qid", "tag")]
    return _PartFacts(len(part), _last_tag(part), ids, part.attrs.get(_ROWS, False), *seen)


def _joined_facts(
    parts: list[_PartFacts], path: str | None, checksums: bool, opened: str | None = None
) -> _Facts:
    """The :class:`_Facts` of a file (``path``, opened as ``opened``; None: a frame) from
    those of its partitions, in order: its record as one process records the file
    (``checksums``: whether the call takes them, :func:`_file_digest`)."""
    counts = Counts()
    for part in parts:  # a frame's parts count no topics nor tags (no record)
        counts.add(part.lines, part.qids or (), part.tags or (), part.tag)
    record = None
    if path is not None:
        digest = _file_digest(path, checksums, opened or path)
        record = {"path": path, "kind": "run", **digest, **counts.record()}
    ids = _joined_ids([part.ids for part in parts])
    # a file of no rows among several is skipped, as a text file is (:func:`_skipped`)
    said = [_said_skipped(path, EMPTY_FILE)] if path is not None and not counts.lines else []
    return _Facts(counts.lines, counts.last_tag, record, said, ids, all(p.rows for p in parts))


def _joined_ids(found: list[tuple]) -> tuple:
    """:func:`_id_facts` of a file from those of its partitions, in order: the roles any
    read from integers, and each role's first id that no integer prints as."""
    integers = tuple(role for role in _ID_ROLES if any(role in ints for ints, _ in found))
    lost: dict[str, str] = {}
    for _, examples in found:
        for role, example in examples.items():
            lost.setdefault(role, example)
    return integers, lost


def _file_digest(path: str, checksums: bool, opened: str) -> dict:
    """``size`` and ``sha256`` of a file the workers read in row groups (not all its
    bytes, nor in order: its checksum is taken by reading it through, as one process
    takes a Parquet file's read in blocks); without ``checksums`` (a call that records no
    file) its size, nothing read. Opened as ``opened``, named ``path``."""
    try:
        if checksums:  # readers take them unless told not to, and a worker is not told
            size, sha256 = provenance.file_digest(opened)  # an OSError is an InputError
            return {"size": size, "sha256": sha256}
        return {"size": os.stat(opened).st_size, "sha256": None}
    except OSError as exc:
        raise InputError.unreadable(path, exc) from None
    except InputError as error:
        raise named_as_given(error, opened, path) from None


def _id_facts(table: pa.Table, qrels_integers: tuple[str, ...]) -> tuple:
    """Which of a part's id columns were read from integers, and, for the qrels' id
    columns read from integers, an id of the part that no integer prints as (the regular
    expression runs only then)."""
    integers = tuple(role for role in _ID_ROLES if integer_ids(table, role))
    lost = {role: lost_zero(table.column(role)) for role in qrels_integers if role not in integers}
    return integers, {role: example for role, example in lost.items() if example is not None}


@dataclass(frozen=True)
class _Shared:
    """What every partition's scoring takes: the plan, and what the client's call read of
    files that can be read once (:func:`trecbench.provenance.read_so_far`)."""

    plan: Any
    read_once: dict


def _score_partition(part, shared: _Shared, tie_bounds: bool):
    """One partition of whole topics scored with the engines of one process, and the
    warnings they raised, for the client to say (a worker's own stderr would print them
    Python's way, the source line under them)."""
    from .evaluation import score_block
    from .evaluation.runs import with_warnings

    table = pa.Table.from_pandas(part, preserve_index=False)
    with _SCORING, provenance.reading_as(shared.read_once):
        return with_warnings(score_block, table, shared.plan, tie_bounds)


# ---------------------------------------------------------------------------------------
# on the client


def _combined(facts: list[_Facts]) -> tuple[int, str, list, list[str]]:
    """Lines, runid (the last line's tag), file records and warnings of the files."""
    lines = sum(found.lines for found in facts)
    tags = [found.tag for found in facts if found.lines]
    records = [found.record for found in facts if found.record is not None]
    warnings = [warning for found in facts for warning in found.warnings]
    return lines, tags[-1] if tags else "", records, warnings


def _unsaid(plan, said) -> list:
    """The warnings of ``said`` (a partition's) not yet said in the call scoring with
    ``plan``, each now counted as said (:data:`_RELAYED`)."""
    relayed = _RELAYED.setdefault(plan, set())
    unsaid = [warning for warning in dict.fromkeys(said) if warning not in relayed]
    relayed.update(unsaid)
    return unsaid


def _refuse_lost_zeros(truth, ids: list[tuple], places: list[str]) -> None:
    """:func:`trecbench.inputs.integer_ids.refuse_lost_zeros` from the id facts
    (:func:`_id_facts`) of each file of the run (``places``: their paths; a frame's name),
    naming the file at fault: the run's rows stay on the workers."""
    for role in _ID_ROLES:  # in order: the query ids first, as one process says
        if integer_ids(truth.table, role):
            continue
        for (integers, _), place in zip(ids, places, strict=True):
            example = lost_zero(truth.table.column(role)) if role in integers else None
            if example is not None:
                refuse(place, truth.path, role, example)
    for (_, lost), place in zip(ids, places, strict=True):
        for role, example in lost.items():
            refuse(truth.path, place, role, example)
