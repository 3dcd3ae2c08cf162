"""Per-query values given to :func:`~trecbench.comparison.compare_scores` (and its tie
bounds, its ``queries``, ``baseline`` and the qids of its ``strata``) and to
:func:`~trecbench.strata.group_means` read as the readers
read a run's table (:mod:`trecbench.inputs.tables`): columns named as trecbench, PyTerrier
or ir_measures name them; ids are strings, never inferred (integers written in decimal,
refused beside ids no integer prints as; floats, missing and mixed ids refused with the
readers' hint); values are numbers (or decimal text), anything else refused naming its row."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa

from .. import arrow
from .. import arrow_compute as pc
from ..errors import InputError, UsageError, not_finite
from ..type_names import printed_float, python_type
from .python_objects import Where, python_ids
from .tables import QID_NAMES, frame_table, ids, need_column, scores, with_integer_ids

# PyTerrier's Experiment(perquery=True) names the run "name"; ir_measures' per-query
# results (iter_calc) name the topic "query_id" and hold no run
RUN_NAMES = ("run", "name")
MEASURE_NAMES = ("measure",)
VALUE_NAMES = ("value",)
SHAPE = "a DataFrame (or records) of run, qid, measure, value"


@dataclass(frozen=True)
class Given:
    """``frame``: ``run, qid, measure`` as strings and the number columns as float64
    (undefined values NaN, for the caller to refuse in its words); ``integer_qids``:
    the qids were integers (written in decimal)."""

    frame: pd.DataFrame
    integer_qids: bool


def given_values(given, origin: str, numbers: Sequence[str] = VALUE_NAMES) -> Given:
    """``given`` (a DataFrame, or records: dicts or named tuples such as ir_measures'
    results) as a :class:`Given` with the columns ``numbers``; ``origin`` names it in
    errors (the argument's name)."""
    frame = _frame(given, origin)
    columns = [str(name) for name in frame.columns]
    run = need_column(columns, RUN_NAMES, "run", origin)
    qid = need_column(columns, QID_NAMES, "query id", origin)
    measure = need_column(columns, MEASURE_NAMES, "measure", origin)
    named = [need_column(columns, (name,), name, origin) for name in numbers]
    read = [i for i, name in enumerate(columns) if name in (run, qid, *named)]
    kept = frame.iloc[:, read]
    kept = kept.assign(**{name: _printed(kept[name]) for name in named})
    table, where = frame_table(kept, origin, ids=(run,), numbers=tuple(named))
    qids = table.column(qid).combine_chunks()
    # a NUL is no C string's end here: the values are scored already (no trec_eval reads
    # these ids), and the outputs escape it
    out = {
        "run": ids(table.column(run).combine_chunks(), run, origin, where, nul=True).to_pandas(),
        "qid": ids(qids, qid, origin, where, nul=True).to_pandas(),
        # measures as text: ir_measures' results hold its measure objects (P@5)
        "measure": _measures(frame.iloc[:, columns.index(measure)], origin, where),
    }
    for name in named:
        out[name] = _numbers(table.column(name).combine_chunks(), name, origin, where)
    return Given(pd.DataFrame(out), _integers(qids))


def refuse_two_values(frame: pd.DataFrame) -> None:
    """Refuse a run's two values of one measure for one topic in ``frame`` (``run, qid,
    measure``, ...): which one counts would be a guess, and a mean over both is wrong."""
    twice = frame.duplicated(["qid", "run", "measure"])
    if twice.any():
        row = frame[twice].iloc[0]
        raise UsageError(
            f"run {row['run']!r}: two values of {row['measure']} for topic {row['qid']!r}"
        )


def refuse_not_finite(frame: pd.DataFrame) -> None:
    """Refuse a value undefined (NaN) or infinite in ``frame`` (``run, qid, measure,
    value``): a mean over it is no number, and counted 0 it would make one of a -nan."""
    finite = np.isfinite(frame["value"].to_numpy(dtype=np.float64))
    if not finite.all():
        row = frame[~finite].iloc[0]
        raise not_finite(row["run"], row["measure"], row["qid"], row["value"])


# the topic of the summary lines of trec_eval -q and of score -q (text, CSV, JSON)
SUMMARY_QID = "all"


def refuse_summary_rows(frame: pd.DataFrame, hint: str = "") -> None:
    """Refuse rows of topic ``all`` in ``frame`` (``run, qid, measure``, ...): the means
    ``trec_eval -q`` and ``score -q`` print as summary lines, which counted as one topic
    more narrow every interval and lower every p (a topic so named cannot be told from
    them). ``hint``: the caller's other way out, said after the first."""
    rows = int((frame["qid"] == SUMMARY_QID).sum())
    if rows:
        raise UsageError(
            f"per_query: {rows} row{'s' * (rows != 1)} of topic 'all', as trec_eval -q and "
            f"score -q print their means (summary lines, no topic): leave them out{hint}"
        )


def _frame(given, origin: str) -> pd.DataFrame:
    """``given`` as a DataFrame: itself, or its records as ``pandas.DataFrame`` makes them."""
    if isinstance(given, pd.DataFrame):
        return given
    text = isinstance(given, (str, bytes, os.PathLike))
    if text or isinstance(given, Mapping) or not isinstance(given, Iterable):
        held = isinstance(getattr(given, "per_query", None), pd.DataFrame)  # an Evaluation
        hint = ": give its per_query, which is one" if held else ""
        raise UsageError(f"{origin}: {SHAPE}, not {python_type(given)}{hint}")
    records = list(given)
    try:
        return pd.DataFrame(records)
    except (TypeError, ValueError) as error:  # records of no common shape
        raise UsageError(f"{origin}: {SHAPE}; these records are not rows: {error}") from None


def _measures(column: pd.Series, origin: str, where: Where) -> np.ndarray:
    """A measure column's names as text, a missing one refused at its row."""
    try:  # each distinct measure made text once: a table holds few, in many rows
        codes, names = pd.factorize(column, use_na_sentinel=True)
    except TypeError:  # a value that is no name (unhashable): its text, row by row
        names = column.to_numpy(dtype=object)
        codes = np.where(column.isna().to_numpy(), -1, np.arange(len(column)))
    missing = codes < 0
    if missing.any():
        row = int(np.flatnonzero(missing)[0])
        raise InputError(origin, None, f"{where(row)}: measure is missing")
    return np.array([str(name) for name in names], dtype=object)[codes]


def _numbers(values: pa.Array, name: str, origin: str, where: Where) -> np.ndarray:
    """float64 values of a number column: numbers as they are, 32- and 16-bit ones as the
    decimals they print as (a missing one NaN, which the
    caller refuses naming its run, measure and topic); text read as decimal numbers, and
    any other value refused at its row, as a run's scores are."""
    # a 32-bit value stands for the decimal it prints as (0.2, not 0.200000003): read
    # at double precision, a P@5 gain of 0.2 on every topic varied by float32's
    # rounding, and the t-test found p = 6e-139 where the differences are equal
    if pa.types.is_float32(values.type):
        values = pc.cast(pc.cast(values, pa.string()), pa.float64())
    elif pa.types.is_float16(values.type):  # Arrow prints a half float's every digit
        shortest = values.to_numpy(zero_copy_only=False).astype(str)  # numpy: 0.2
        values = pc.cast(pa.array(shortest), pa.float64())
    if pa.types.is_integer(values.type) or pa.types.is_floating(values.type):
        return arrow.to_numpy(pc.cast(values, pa.float64()).fill_null(np.nan))
    return arrow.to_numpy(scores(values, origin, where, name=name))


def _printed(column: pd.Series) -> pd.Series:
    """An object column's numpy 32- and 16-bit floats as the decimals they print as, as
    a float32 or float16 column's are (:func:`_numbers`): read as the Python floats they
    hold, np.float32(0.2) was 0.200000003 there, and equal gains varied."""
    if column.dtype != object:
        return column
    return column.map(lambda v: printed_float(v) if isinstance(v, (np.float32, np.float16)) else v)


def _integers(values: pa.Array) -> bool:
    """Whether an id column (that :func:`~trecbench.inputs.tables.ids` took) holds integers."""
    kind = values.type
    return pa.types.is_integer(kind.value_type if pa.types.is_dictionary(kind) else kind)


def given_queries(queries, given: Given) -> list[str] | None:
    """``queries`` (the topics that count) as strings, read as the qids are: text or
    integers (in decimal), refused beside the qids where integers on either side lost how
    the other's ids are written (``007``); None stays None."""
    if queries is None:
        return None
    from ..naming import listed

    def where(row: int) -> str:
        return f"item {row}"

    # a string is refused: queries="12" counted topics '1' and '2', not '12'
    queries = listed(queries, "queries", "query ids", unordered=True)
    qids = given.frame["qid"].unique()
    return given_qids(queries, "queries", where, (qids, "per_query", given.integer_qids))


# the topics ids are read beside: their qids (strings), what holds them (an error's
# words) and whether they were read from integers
Topics = tuple[Sequence[str], str, bool]


def given_qids(values: list, origin: str, where: Where, topics: Topics, keys: bool = False):
    """Python query ids ``values`` of ``origin`` (``queries``; a strata mapping's keys, with
    ``keys``) as strings, read as a table's qids are: text or integers (in decimal); a
    float, a bool, None or a mix of kinds refused at ``where(row)``; refused beside
    ``topics`` where integers on either side lost how the other's ids are written
    (``007`` beside ``7``)."""
    from .integer_ids import refuse_lost_zeros

    qids, topics_origin, integer_topics = topics
    values = python_ids(values, "query id", origin, where, keys=keys)
    integer = _integers(values)
    values = ids(values, "query id", origin, where, nul=True)
    if integer_topics or integer:
        marked = _marked(pa.array(qids, pa.string()), integer_topics), _marked(values, integer)
        refuse_lost_zeros(marked[0], topics_origin, marked[1], origin)
    return values.to_pylist()


def check_strata_qids(strata: pd.DataFrame, topics: Topics) -> None:
    """Refuse a strata table's qids (``load_strata``'s, strings) beside ``topics`` read from
    integers where those lost how the table writes them (``7`` beside ``'007'``), as a
    mapping's keys are refused (:func:`given_qids`), at their row."""
    given_qids(strata["qid"].tolist(), "strata", lambda row: f"row {row}", topics)


def _marked(qids: pa.Array, integers: bool) -> pa.Table:
    """A table of ``qids``, marked as read from integers where they were."""
    table = pa.table({"qid": qids})
    return with_integer_ids(table, ["qid"]) if integers else table


def given_baseline(baseline) -> str | None:
    """The baseline run's name: text, or an integer (written in decimal, as an integer
    run column is); None: the first run."""
    if baseline is None or isinstance(baseline, str):
        return baseline
    if isinstance(baseline, (int, np.integer)) and not isinstance(baseline, (bool, np.bool_)):
        return str(int(baseline))
    raise UsageError(f"baseline names a run: text (or an integer), not {python_type(baseline)}")
