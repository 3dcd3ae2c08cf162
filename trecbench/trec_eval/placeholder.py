"""trec_eval 10.0's placeholder ranking for ``-c``: a qrels topic missing from the run is
evaluated on a ranking of one document, ``ceci_nest_pas_un_docno`` scored 1.0 (and
printed with ``-q``), after which some values are reset as if nothing had been retrieved:
those named exactly ``num_ret``, ``utility``, ``relstring`` or ``rbp_resid``, and those
whose name starts with ``unj`` (trec_eval compares the printed names, so
``utility_2,-1,0,0``, ``relstring_20`` and ``rbp_resid_p=0.8`` keep what the placeholder
gave them). Every
other value is what that ranking scores: 0 for most, but ``yaap``, ``ideal_dcg`` and
``num_rel`` depend on the qrels only.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from .. import arrow
from .. import arrow_compute as pc

DOCNO = "ceci_nest_pas_un_docno"
SCORE = 1.0


def with_placeholders(ranked: pa.Table, qids: list[str], missing: list[str]) -> pa.Table:
    """``ranked`` (trec_eval order, topics in the order of ``qids``) with one placeholder
    row for each topic of ``missing``, every topic block where ``qids`` puts it."""
    if not missing:
        return ranked
    n = len(missing)
    columns = {}
    for field in ranked.schema:
        kind = field.type.value_type if pa.types.is_dictionary(field.type) else field.type
        if field.name == "qid":
            values = arrow.array(missing, pa.string())
        elif field.name == "docno":
            values = arrow.array([DOCNO] * n, pa.string())
        elif field.name == "score":
            values = arrow.array(np.full(n, SCORE))
        elif field.name == "rank":
            values = arrow.array(np.ones(n, np.int64))
        elif field.name == "tag":
            last = ranked.column("tag")[ranked.num_rows - 1].as_py() if ranked.num_rows else ""
            values = arrow.array([last] * n, pa.string())
        else:
            values = pa.nulls(n, kind)
        columns[field.name] = pc.cast(values, kind)
    merged = pa.concat_tables([arrow.decoded(ranked), pa.table(columns)])
    position = pc.index_in(merged.column("qid"), value_set=arrow.array(qids, pa.string()))
    order = np.argsort(arrow.to_numpy(position), kind="stable")
    return merged.take(arrow.array(order))


def clear(values: dict[str, np.ndarray], strings: dict[str, list[str]], rows: np.ndarray):
    """Reset, for the placeholder topics (``rows``), the values trec_eval 10.0 resets."""
    if not len(rows):
        return
    for label, column in values.items():
        if label in ("num_ret", "utility", "rbp_resid") or label.startswith("unj"):
            column[rows] = 0.0
    for label, column in strings.items():
        if label == "relstring":
            for row in rows.tolist():
                column[row] = ""
