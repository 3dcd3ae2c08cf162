"""BEIR / MTEB qrels: a TSV with the header ``query-id corpus-id score`` (plain or compressed).

Alone (:func:`convert_beir_qrels`) it becomes TREC qrels; with a run dict see
:mod:`trecbench.convert.dicts`. Grades are integers within ±1,000,000 (as for TREC qrels);
ids are strings as written.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable

import numpy as np
import pandas as pd
import pyarrow as pa

from .. import arrow_compute as pc
from ..errors import InputError
from ..ids import STR, unescape_id
from ..inputs import trec_text
from ..inputs.unconverted import BEIR_HEADER
from ..naming import path_argument
from .common import Conversion, Report, default_name, given_name, make_qrels, qrels_summary
from .textfiles import read_fields


def read_beir_qrels(
    path: str | os.PathLike, report: Report
) -> tuple[pd.DataFrame, dict, Callable[[str], int | None]]:
    """``(qid, docno, rel rows, the input's record, line_of)`` of a BEIR qrels TSV:
    ``line_of(qid)`` is the line of a query's first judgment (by its id escaped, as the
    qrels table holds it; looked for on an error only). A field in CSV quotes is read as
    BEIR reads it (:func:`_unquoted`), and ``report`` counts them."""
    fields = read_fields(path, "beir qrels", BEIR_HEADER, report)
    header = tuple(column[0].as_py() for column in fields.columns)
    if header != BEIR_HEADER:
        raise fields.error(0, "expected the header 'query-id corpus-id score' (tab-separated)")
    if len(fields.columns[0]) == 1:
        raise InputError(fields.source.path, None, "no judgment after the header")
    qid, docno, score = (
        _unquoted(fields, column.slice(1), name, report)
        for column, name in zip(fields.columns, BEIR_HEADER, strict=True)
    )
    grades = trec_text.parse_grades(score)
    for bad, why in (
        (~grades.integer, lambda text: "is not an integer"),
        (grades.huge, trec_text.grade_beyond),
    ):
        fields.first(
            np.r_[False, bad],
            lambda row, w=why: f"score {score[row - 1].as_py()!r} {w(score[row - 1].as_py())}",
        )
    frame = pd.DataFrame(
        {
            "qid": qid.to_pandas(types_mapper=lambda _: STR),
            "docno": docno.to_pandas(types_mapper=lambda _: STR),
            "rel": grades.values,
        }
    )

    # line_of keeps the query ids and line numbers alone, not every column, alive with the
    # Conversion (through the write, where memory peaks)
    line_at = dataclasses.replace(fields, columns=[]).line_at

    def line_of(escaped: str) -> int | None:
        rows = np.flatnonzero(np.asarray(pc.equal(qid, unescape_id(escaped))))
        return line_at(int(rows[0]) + 1) if len(rows) else None

    return frame, fields.source.record, line_of


def _unquoted(fields, column: pa.Array, name: str, report: Report) -> pa.Array:
    """``column`` (rows after the header) with each field that starts with a quote read
    as BEIR's loader reads it (``csv.reader(delimiter="\\t", quoting=QUOTE_MINIMAL)``:
    ``"q""1"`` is ``q"1``, which an id written so by BEIR's own writer is); a quote that
    does not close the field (``"q``, ``"q"1``) is refused at its line: BEIR's reader would
    read on past the tab or the line's end. Fields without one are read as written."""
    import csv

    rows = np.flatnonzero(np.asarray(pc.starts_with(column, '"')))
    if not len(rows):
        return column
    values, read = column.to_pylist(), []
    for row in rows.tolist():
        read.append({"line": fields.line_at(row + 1), name: values[row]})
        try:
            (values[row],) = next(csv.reader([values[row]], delimiter="\t", strict=True))
        except (csv.Error, ValueError):
            raise fields.error(
                row + 1, f"{name} {values[row]!r}: a quote that does not close the field"
            ) from None
        if not values[row]:  # '""': as an empty field unquoted is refused
            raise fields.error(row + 1, f'empty {name} ("" in CSV quotes)')
    report.repair(f"{name} in CSV quotes, read as BEIR reads it", read)
    return pa.array(values, column.type)


def convert_beir_qrels(path: str | os.PathLike, *, name: str | None = None) -> Conversion:
    """Convert a BEIR/MTEB qrels TSV at ``path`` alone into TREC qrels; ``name`` names the
    qrels and sidecar files (default: made of the file's name).
    Returns the :class:`~trecbench.convert.model.Conversion` (qrels, runs, sidecar) that
    :func:`trecbench.write_conversion` writes."""
    path_argument(path, "path")  # None: pathlib's TypeError naming nothing, in its name
    name = given_name(name)
    report = Report()
    name = default_name(path, report) if name is None else name
    frame, record, line_of = read_beir_qrels(path, report)
    table = make_qrels(frame, name, report, keep="last")  # as BEIR's loader keeps them
    info = qrels_summary(
        table,
        dict.fromkeys(frame["qid"]),
        report,
        "judged query without a relevant document (scores 0 everywhere)",
    )
    return Conversion(
        name=name,
        converter="beir-qrels",
        qrels={name: table},
        runs=[],
        report=report,
        provenance={"inputs": [record]},
        qrels_info={name: info},
        qrels_lines={name: line_of},
    )
