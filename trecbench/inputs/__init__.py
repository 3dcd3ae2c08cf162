"""The one way in: every kind of run and qrels becomes a typed table here, once.

:func:`load_run` and :func:`load_qrels` take

* a **path** to TREC text (:mod:`~trecbench.inputs.trec_text`), plain or compressed with
  gzip, bz2, zstd, lz4 or xz (told by the content, never the name), or to a **Parquet**
  file (:mod:`~trecbench.inputs.parquet`) — a FIFO or a pipe as well as a regular file
  (:mod:`~trecbench.inputs.streams`: read once, checksum taken while reading);
* a **pandas DataFrame** or **Arrow table** (anything with ``__arrow_c_stream__``, such
  as a polars DataFrame) with trec (``qid, docno, score/rel``), ir_measures
  (``query_id, doc_id, score/relevance``), ranx (``q_id, doc_id, score``) or BEIR column
  names (:mod:`~trecbench.inputs.tables`);
* a **dict** ``{qid: {docno: score or grade}}`` (:mod:`~trecbench.inputs.mappings`);
* an **iterable of records**: ir_measures' ScoredDoc/Qrel, or dicts keyed as the
  DataFrames' columns (``DataFrame.to_dict("records")``; :mod:`~trecbench.inputs.records`);
* for qrels, an **ir_datasets id** ``irds:ID`` (:mod:`~trecbench.inputs.datasets`, the
  optional extra ``trecbench[datasets]``);
* an open :class:`~trecbench.inputs.streams.Source` (read from its start and left open:
  with ``spool=True`` another reader, such as the validator, can have read it first);
* or a :class:`Loaded` input (returned as it is: nothing is read twice).

The result is a :class:`Loaded`: the typed table (run: ``qid, docno, score, tag`` and, from
the tokenizer or in-memory inputs, ``line``; qrels: ``qid, docno, rel, line``, and ``iter``
from a TREC file; ids are
strings, never inferred), where it came from, and for a file its provenance record (size,
sha256, lines, topics, run tags) taken while it was parsed.
"""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Union

import pyarrow as pa

from .. import arrow, provenance
from ..callbacks import refuse_uncallable
from ..errors import InputError, UsageError, excerpt, one_line
from ..lazy import submodules as _submodules
from ..type_names import flag_from, python_type
from . import ir_metadata
from .streams import LabelledProgress, Progress, Source, labelled

if TYPE_CHECKING:
    import pandas as pd

    from .trec_text import Tokens

# A check run on the tokens of a TREC text file before its table is built (evaluate
# passes the validator's lenient profile): returns warnings, raises on errors.
Check = Callable[["Tokens", str], list]

# a path, a table, records or an input already loaded; and the {qid: {docno: value}} dicts
_Input = Union[str, os.PathLike, Source, "pd.DataFrame", pa.Table, Iterable[Any], "Loaded"]
RunInput = _Input | Mapping[str, Mapping[str, float]]
QrelsInput = _Input | Mapping[str, Mapping[str, int]]

KINDS = ("run", "qrels")


@dataclass(frozen=True, eq=False)
class Loaded:
    """A run or qrels as a typed table, with where it came from.

    ``origin`` names the input in messages (the path, ``run DataFrame``, ``qrels dict``,
    ``irds:ID``...); ``path`` is the file it was read from (None in memory); ``record``
    its provenance for reports (``path, kind, size, sha256, lines, topics`` and for runs
    ``run_tag, run_tags`` and ``ir_metadata`` when the file begins with such a block), taken
    while it was read; ``warnings`` what the ``check`` said; ``held`` the qrels' DataFrame
    or dict it was read from (None for any other input).
    """

    kind: str
    table: pa.Table = field(repr=False)
    origin: str
    path: str | None = None
    record: dict[str, Any] | None = field(default=None, repr=False)
    warnings: tuple[str, ...] = field(default=(), repr=False)
    # the qrels' DataFrame or dict it was read from: an error found later (at a judgment,
    # by scoring) cites its rows as the reading's errors do (inputs.held.at_row)
    held: Any = field(default=None, repr=False, compare=False)

    def __len__(self) -> int:
        return self.table.num_rows

    def to_frame(self) -> pd.DataFrame:
        """The table as a pandas DataFrame (string ids, see :func:`to_pandas`)."""
        return to_pandas(self.table)

    @property
    def ir_metadata(self) -> dict[str, Any] | None:
        """The run's ir_metadata (the YAML block atop its file), or None."""
        return (self.record or {}).get("ir_metadata")


def _held(source: Any, kind: str) -> Any:
    """What a :class:`Loaded` keeps of ``source`` held in memory: qrels' DataFrame or dict,
    whose rows a scoring error cites (a run's errors are found as it is read)."""
    return source if kind == "qrels" else None


def table_counts(table: Any, kind: str) -> dict[str, Any]:
    """``lines`` and ``topics`` of a typed table (pyarrow or pandas); for runs also
    ``run_tag`` (the last row's tag: what trec_eval prints as runid) and ``run_tags``."""
    record: dict[str, Any] = {"lines": len(table), "topics": 0}
    if not len(table):
        return record | ({"run_tag": None, "run_tags": []} if kind == "run" else {})
    record["topics"] = len(arrow.distinct(_column(table, "qid")))  # (dictionary-encoded too)
    if kind == "run":
        tags = _column(table, "tag")
        record["run_tag"] = tags[len(tags) - 1].as_py()
        record["run_tags"] = sorted(arrow.distinct(tags).to_pylist())
    return record


def _column(table: Any, name: str):
    if isinstance(table, pa.Table):
        return table.column(name)
    return pa.array(table[name].astype(str), pa.string())


def _load_file(path: str, kind: str, check: Check | None, progress, **reading) -> Loaded:
    with Source(path, progress) as source:
        return _load_source(source, kind, check, **reading)


def _load_source(source: Source, kind: str, check: Check | None, **reading) -> Loaded:
    """``source`` read whole; ``reading``: the reader's ``full``, ``comments`` and
    ``score_text`` (see :func:`load`)."""
    # the one place a file's whole read is chosen: by its format (trecbench.inputs.formats)
    read_whole = source.format.reader("read_whole", source.path, kind)
    table, warnings, metadata = read_whole(source, kind, check=check, **reading)
    path = source.path
    record = {"path": path, "kind": kind, **source.record(), **table_counts(table, kind)}
    record |= ir_metadata.recorded(metadata)
    # its counts kept with its checksum: a record asked for later (pool's, similarity's
    # JSON: trecbench.report.input_record) need not read the file (or pipe) again
    provenance.remember(source.key, record)
    return Loaded(kind, table, path, path, record, tuple(warnings))


def _arrow_table(source: Any) -> pa.Table | None:
    """``source`` as an Arrow table if it is a table of some library, else None."""
    if isinstance(source, pa.Table):
        return source
    if isinstance(source, pa.RecordBatch):
        return pa.Table.from_batches([source])
    if hasattr(source, "__arrow_c_stream__"):
        try:
            return pa.table(source)
        except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError):  # a stream of no table (a
            return None  # pandas Series is a column): refused as what cannot be read
    return None


def load(
    source: Any,
    kind: str,
    *,
    check: Check | None = None,
    progress: Progress | None = None,
    full: bool = False,
    comments: bool = False,
    score_text: bool = False,
) -> Loaded:
    """``source`` (any input kind, see the module docstring) as a typed ``kind`` table.

    ``check`` runs on the tokens of a TREC text file (see :data:`Check`); ``progress``
    is called with the bytes read of a file (see :class:`~trecbench.inputs.streams.Source`);
    ``full`` keeps every column of a TREC run (``q0``, ``rank``, ``line``) instead of the
    columns scoring needs, which regular files give fastest; ``comments`` skips the ``#``
    lines trec_eval 10.0 skips (:mod:`trecbench.inputs.comments`); ``score_text`` also
    keeps a TREC text run's scores as written, column ``score_text`` (a report's
    drill-down shows them so; other inputs hold numbers, not text).
    """
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, not {kind!r}")
    if isinstance(source, Loaded):
        if source.kind != kind:
            raise UsageError(f"{source.origin}: a {source.kind} was given where {kind} belong")
        return source
    reading = {"full": full, "comments": comments, "score_text": score_text}
    if isinstance(source, Source):  # opened by the caller, who closes it
        return _load_source(source, kind, check, **reading)
    if isinstance(source, (str, os.PathLike)):
        text = os.fspath(source)
        if isinstance(text, bytes):
            text = os.fsdecode(text)
        from . import datasets

        if kind == "qrels" and datasets.is_dataset_id(text):
            return Loaded(kind, datasets.qrels_table(text), text)
        if text.startswith(datasets.PREFIX) and not os.path.exists(text):
            raise InputError(text, None, datasets.NOT_QRELS_HERE)
        return _load_file(text, kind, check, progress, **reading)
    pandas = sys.modules.get("pandas")
    if pandas is not None and isinstance(source, pandas.DataFrame):
        from . import tables

        origin = f"{kind} DataFrame"
        table, where = tables.frame_table(source, origin)
        typed = tables.typed(table, kind, origin, where)
        return Loaded(kind, typed, origin, held=_held(source, kind))
    table = _arrow_table(source)
    if table is not None:
        from . import tables

        origin = f"{kind} table"
        return Loaded(kind, tables.typed(table, kind, origin), origin)
    if hasattr(source, "columns") and hasattr(source, "__dask_graph__"):
        # a Dask DataFrame iterates its column names: read as records, it was refused as
        # "record 0 is text: expected query_id, doc_id, score (ir_measures' ScoredDoc/Qrel)"
        cluster = " (trecbench.dask.evaluate scores a run on its cluster)" if kind == "run" else ""
        raise UsageError(
            f"cannot read a {kind} from a Dask DataFrame here: give its compute(), a pandas "
            f"DataFrame{cluster}"
        )
    if isinstance(source, io.IOBase):
        # pytrec_eval's parse_run(f) idiom: iterated, its lines were refused as records
        # ("record 0 is text: expected query_id, doc_id, score")
        name = getattr(source, "name", None)
        named = excerpt(name) if isinstance(name, (str, bytes)) else python_type(source)
        raise UsageError(f"cannot read a {kind} from an open file ({named}): give a path")
    if isinstance(source, Mapping):
        from . import mappings

        origin = f"{kind} dict"
        typed = mappings.to_table(source, kind, origin)
        return Loaded(kind, typed, origin, held=_held(source, kind))
    if isinstance(source, Iterable) and not isinstance(source, (bytes, bytearray)):
        from . import records

        origin = f"{kind} records"
        return Loaded(kind, records.to_table(source, kind, origin), origin)
    raise UsageError(
        f"cannot read a {kind} from {python_type(source)}: give a path, a DataFrame or "
        "Arrow table, a dict {qid: {docno: value}}, ir_measures records or dict records"
        + _hint(source, kind)
    )


def _hint(source: object, kind: str) -> str:
    """Where an object refused as a ``kind`` holds one: ranx's Qrels and Run a dict
    behind ``to_dict()``, an ir_datasets dataset records behind ``qrels_iter()`` or
    ``scoreddocs_iter()`` (qrels by its id too, ``irds:ID``)."""
    if callable(getattr(source, "to_dict", None)):
        return "; its to_dict() may be one"
    method = "qrels_iter" if kind == "qrels" else "scoreddocs_iter"
    if not callable(getattr(source, method, None)):
        return ""
    dataset_id = getattr(source, "dataset_id", None)
    named = dataset_id() if callable(dataset_id) else None
    by_id = f"irds:{named}" if isinstance(named, str) else "irds:ID"
    return f"; an ir_datasets dataset: give its {method}()" + (
        f" or {by_id!r}" if kind == "qrels" else ""
    )


def load_run(
    source: RunInput,
    *,
    check: Check | None = None,
    progress: LabelledProgress | None = None,
    full: bool = False,
) -> Loaded:
    """A run as a :class:`Loaded`: its typed table (``qid, docno, score, tag``, and
    ``line`` from in-memory inputs), ``origin`` (its name in messages), ``path`` and, for a
    file, its provenance ``record`` (size, sha256, lines, topics, run tags).

    ``source``: any input kind (see the module docstring); a :class:`Loaded` run is
    returned as it is. ``check(tokens, kind)`` runs on a TREC text file's tokens before
    its table is built (:data:`Check`: returns warnings, raises on errors);
    ``progress(label, done, total)`` is told the bytes read of a file; ``full`` keeps
    every column of a TREC text run (``q0``, ``rank``, ``line`` too: :func:`parse_run`).

    >>> load_run({"q1": {"d1": 2.0, "d2": 1.0}}).to_frame()[["qid", "docno", "score"]]
      qid docno  score
    0  q1    d1    2.0
    1  q1    d2    1.0
    """
    refuse_uncallable(progress)
    refuse_uncallable(check, "check(tokens, kind)")  # else called only on TREC text
    full = flag_from("full", full)  # "no" was truthy: every column kept
    return load(source, "run", check=check, progress=_reading(progress, source, "run"), full=full)


def load_qrels(
    source: QrelsInput, *, check: Check | None = None, progress: LabelledProgress | None = None
) -> Loaded:
    """Qrels as a :class:`Loaded`: their typed table (``qid, docno, rel, line``, and
    ``iter`` where the input has an iteration: a TREC file's second column), ``origin``,
    ``path`` and, for a file, its provenance ``record``.

    ``source``: any input kind (see the module docstring), an ir_datasets id ``irds:ID``,
    or a :class:`Loaded` qrels returned as it is; ``check`` and ``progress`` as
    :func:`load_run` takes them."""
    refuse_uncallable(progress)
    refuse_uncallable(check, "check(tokens, kind)")  # else called only on TREC text
    return load(source, "qrels", check=check, progress=_reading(progress, source, "qrels"))


def _reading(progress: LabelledProgress | None, source: Any, kind: str) -> Progress | None:
    """A public reader's ``progress(label, done, total)`` as :func:`load` tells it
    ``(done, total)`` (it was told so, two arguments where its documentation says three),
    its label ``reading PATH`` as every command's, ``reading the run`` for no path."""
    shown = os.fspath(source) if isinstance(source, (str, os.PathLike)) else f"the {kind}"
    return labelled(progress, f"reading {shown}")


def _is_record(item: Any) -> bool:
    """Whether ``item``, the first of a collection, is a record (the collection one run):
    ScoredDoc, a dict record, or a tuple of ids and a score (no run: its reading says so)."""
    from .records import is_mapping_record, is_plain_record

    named = hasattr(item, "query_id") and hasattr(item, "doc_id")
    # a DataFrame with those columns has them as attributes too: a run, not a record
    named = named and not hasattr(item, "columns")
    return named or is_mapping_record(item) or is_plain_record(item)


def split_runs(runs: Any) -> tuple[list[Any], list[str] | None]:
    """``(sources, names)`` of "one run or several", the one rule of every call that takes
    several runs: a dict ``{name: run}`` (``names`` are its keys; else None), any other
    collection of runs (a list, a tuple, a generator, a dict's values, a folder's glob:
    read once, into a list) or a single run. A dict whose values map documents to
    numbers, ``{qid: {docno: score}}``, is one run, and so are records (ScoredDoc, or
    dicts with a query id and a document id) and a table, iterable as it is by its
    columns. A dict any of whose values maps documents is one run, whatever its first
    value is: its other values are then queries' documents, named in the run's words if
    they are not. A value None or ``{}`` says nothing of which it is: beside runs it is a
    run (refused as empty, by its name), not a query without documents."""
    if isinstance(runs, set | frozenset):
        raise UsageError(
            "runs given as a set have no order (its order is the hash's, each time "
            "another): give a list, or a {name: run} dict; weights, the baseline and the "
            "pairs follow the order runs are given in"
        )
    if isinstance(runs, Mapping):
        # lazily: a run dict's first telling value decides, not a pass over its queries
        telling = (value for value in runs.values() if not _empty(value))
        first = next(telling, None)
        if first is None or _maps_documents(first) or any(map(_maps_documents, telling)):
            return [runs], None
        from ..naming import run_name

        return list(runs.values()), [run_name(name) for name in runs]
    if _one_run(runs):
        return [runs], None
    listed = list(runs)
    if listed and _is_record(listed[0]):
        return [runs if isinstance(runs, (list, tuple)) else listed], None
    return listed, None


def no_run_given(action: str, runs: Any) -> UsageError:
    """The refusal of ``runs`` holding no run (``nothing to evaluate: no run given``); an
    iterator that yielded nothing is said to be one (a generator or ir_datasets'
    ``scoreddocs_iter()`` iterated before is spent)."""
    spent = isinstance(runs, Iterator)
    why = " (an iterator that yielded nothing: one read before is spent)" if spent else ""
    return UsageError(f"nothing to {action}: no run given{why}")


def _one_run(value: Any) -> bool:
    """Whether ``value`` (not a dict) is one run, not a collection of runs: a path, a file
    opened or loaded, a table of any library (pandas, polars, Dask, Arrow: iterable by its
    columns), or what no collection is (:func:`load` says what it cannot read)."""
    if isinstance(value, (str, bytes, bytearray, os.PathLike, Source, Loaded, io.IOBase)):
        return True  # an open file is one run (refused by load), never runs, one a line
    table = hasattr(value, "columns") or hasattr(value, "__arrow_c_stream__")
    return table or not isinstance(value, Iterable)


def _empty(value: Any) -> bool:
    """Whether ``value`` is None or a dict of nothing else (``{}``, ``{"q": None}``,
    ``{"q": {}}``): a query without documents in a run, or an empty run among named runs."""
    return value is None or (isinstance(value, Mapping) and all(map(_nothing, value.values())))


def _nothing(item: Any) -> bool:
    return item is None or (isinstance(item, Mapping) and not item)


def _maps_documents(value: Any) -> bool:
    """Whether ``value`` is a query's documents in a ``{qid: {docno: score}}`` run, or
    what such a run's message names: None, a Series, a list of docnos or of (docno,
    score) pairs, a score second, or text that reads as one (no run: a record holds three
    fields at least; a pair of two ids, ``("1", "a")``, is a record missing its score,
    said so of its run)."""
    from .records import is_plain_record, is_series

    if value is None or is_series(value) or is_plain_record(value):
        return True
    if isinstance(value, list | tuple) and value:
        first = value[0]
        pair = is_plain_record(first) and len(first) == 2
        return pair and (not isinstance(first[1], str) or _reads_as_number(first[1]))
    return isinstance(value, Mapping) and not isinstance(next(iter(value.values()), 0), Mapping)


def _reads_as_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def named_runs(runs) -> dict[str, Any]:
    """``{name: run}`` from one run, a sequence of runs or a mapping (see
    :func:`trecbench.inputs.split_runs`), named as every command names runs
    (:func:`trecbench.naming.run_names`: a file by its stem, made distinct by its shortest
    parent folders; an in-memory run ``run1``, ``run2``...). Two runs named alike are
    refused advising a ``{name: run}`` dict: its callers (compare, agree, power) have no
    ``names=``."""
    from ..naming import BY_DICT, run_names

    sources, names = split_runs(runs)
    if not sources:
        raise no_run_given("compare", runs)
    refuse_repeated(sources, lambda: run_names(sources, names, BY_DICT))
    return dict(zip(run_names(sources, names, BY_DICT), sources, strict=True))


def refuse_repeated(sources: Sequence[Any], names: Callable[[], list[str]]) -> None:
    """Refuse one run given twice among runs that are compared, paired or pooled: a file
    by any path (a link too), before the runs are named (two paths of one file name two
    runs alike: that refusal's advice, to name them apart, led to this one), or one object
    held in memory under two of its ``names()``; compared with itself a run was read as two
    that agree (p undefined, RBO 1), pooled with itself none of its documents its own."""
    from ..naming import check_runs_once

    check_runs_once([source for source in sources if isinstance(source, str | os.PathLike)])
    seen: dict[int, int] = {}
    for index, source in enumerate(sources):
        if isinstance(source, str | os.PathLike):
            continue
        first = seen.setdefault(id(source), index)
        if first != index:
            try:
                labels = [one_line(label) for label in names()]
            except UsageError:  # named alike, as one run given twice may be: by place
                labels = [f"run {place}" for place in range(1, len(sources) + 1)]
            raise UsageError(f"{labels[index]}: the same run as {labels[first]} is given twice")


def to_pandas(table: pa.Table) -> pd.DataFrame:
    """pandas view of a typed table: strings stay strings, nullable integer rank."""
    import pandas as pd

    mapping = {pa.string(): pd.StringDtype("pyarrow"), pa.large_string(): pd.StringDtype("pyarrow")}
    frame = table.to_pandas(types_mapper=mapping.get)
    if "rank" in frame and table.column("rank").null_count:
        frame["rank"] = frame["rank"].astype("Int64")
    return frame


def read_run(source: RunInput) -> pd.DataFrame:
    """Run ``source`` as a DataFrame: from a TREC file, ``qid, q0, docno, rank, score, tag`` (as
    written: strings, integer rank, nullable only if some rank is not an integer; float64
    score) and ``line`` (the physical 1-based line), rows in file order; from any other
    input kind (see :func:`load_run`), ``qid, docno, score, tag, line``."""
    return to_pandas(load_run(source, full=True).table)


def read_qrels(source: QrelsInput) -> pd.DataFrame:
    """Qrels ``source`` (any input kind, as :func:`load_qrels` takes it) as a DataFrame:
    ``qid, iter, docno, rel, line`` from a TREC file (``qid, docno, rel, line`` from other
    input kinds)."""
    return to_pandas(load_qrels(source).table)


def parse_run(source: RunInput) -> pa.Table:
    """Run ``source`` (any input kind, as :func:`load_run` takes it) as its typed pyarrow
    table, every column kept: :func:`read_run`'s columns, without pandas."""
    return load_run(source, full=True).table


def parse_qrels(source: QrelsInput) -> pa.Table:
    """Qrels ``source`` (any input kind, as :func:`load_qrels` takes it) as their typed
    pyarrow table: :func:`read_qrels`'s columns, without pandas."""
    return load_qrels(source).table


def refuse_listed_twice(loaded: Loaded, source: Any) -> None:
    """Refuse a document a run lists twice in a topic (R7), or qrels judge twice in a
    topic's subtopic (Q5; qrels without one have one subtopic: the diversity measures
    judge a document once per subtopic), as :func:`trecbench.evaluate` refuses it (exit 4),
    at the rows of ``source`` held in memory, else at the lines (Parquet's rows) of its
    file (``loaded``: ``source`` as read)."""
    import numpy as np  # (not on a small score's path)

    from .. import ranking
    from . import held
    from .tables import duplicate_in_files, lines_are_rows

    table = loaded.table
    by = [name for name in ("qid", "iter") if name in table.column_names]
    topic = arrow.row_keys(*(table.column(name) for name in by))
    lines = table.column("line") if "line" in table.column_names else None
    found = ranking.find_duplicate(topic, table.column("docno"), lines)
    if found is None:
        return
    row = int(np.flatnonzero(topic == found[0])[0])
    qid, *subtopic = (table.column(name)[row].as_py() for name in by)
    rule = "R7" if loaded.kind == "run" else "Q5"
    error = ranking.duplicate_error(loaded.origin, qid, *found[1:], rule, *subtopic)
    if loaded.path is None:
        raise held.renamed(error, source, loaded.origin)
    raise duplicate_in_files(error, files=[loaded.path], rows=[lines_are_rows(table)], rule=rule)


def rank_run(source: RunInput, float32: bool = True) -> pa.Table:
    """Run ``source`` (any input kind, see :func:`load_run`) in trec_eval's order, as every
    measure sees it: topics in byte-wise qid order (``10`` before ``9``, integer ids
    read as their decimal text), each by score descending (compared as float32 when
    ``float32``, as trec_eval 9.x holds scores; as doubles otherwise), ties by docno
    descending byte-wise. The typed run table (``qid, docno, score, tag`` and, for a run
    held in memory, ``line``: the row each came from) with ``rank`` 1..n per topic; a
    score that is not a finite number, or a document listed twice in a topic, is refused
    as :func:`trecbench.evaluate` refuses it (:func:`refuse_listed_twice`).

    >>> rank_run({"q": {"d1": 1.0, "d2": 2.0}}).column("docno").to_pylist()
    ['d2', 'd1']
    """
    flag = flag_from("float32", float32)  # numpy's bool too
    loaded = load_run(source)
    refuse_listed_twice(loaded, source)  # ranked 1 and 2, where every measure refuses it
    return rank_loaded(loaded, not isinstance(source, (str, os.PathLike)), flag)


def rank_loaded(loaded: Loaded, held: bool, float32: bool = True) -> pa.Table:
    """:func:`rank_run` of a run read and checked for documents listed twice (``loaded``;
    ``held``: it was held in memory, its table keeps the ``line`` each row came from)."""
    from .. import arrow_compute as pc
    from ..ranking import rank_table

    table = loaded.table
    # the readers' tables differ beyond these (a file read by the general tokenizer keeps
    # its Q0, rank and line columns, as large strings): one shape, whichever reader read it
    names = ("qid", "docno", "score", "tag", "line") if held else ("qid", "docno", "score", "tag")
    kept = table.select([name for name in names if name in table.column_names])
    for at, name in enumerate(kept.column_names):
        if name in ("qid", "docno", "tag"):
            kept = kept.set_column(at, name, pc.cast(kept.column(name), pa.string()))
    return rank_table(kept, float32)


__getattr__ = _submodules(__name__)  # trecbench.inputs.<module> after import trecbench
