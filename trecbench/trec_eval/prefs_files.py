"""The preference judgment files of ``-R prefs`` and ``-R qrels_prefs``.

``prefs``: lines ``qid jg jsg docno level`` (topic, judgment group, sub-group, document,
a number); ``qrels_prefs``: an ordinary qrels file read as preferences, its second column
the judgment group, one sub-group per group, the grade the level. trec_eval reads levels
with ``atof``; trecbench refuses what is not a decimal number (``atof`` would silently
read ``abc`` as 0). Blank lines are fatal, as in every trec_eval judgment file.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from .. import arrow
from .. import arrow_compute as pc
from ..errors import InputError
from ..inputs import Loaded, comments, trec_text
from ..inputs.streams import Source
from .compat import Compat

PREFS_FIELDS = ("qid", "jg", "jsg", "docno", "level")
QRELS_FIELDS = ("qid", "jg", "docno", "level")
# the -R formats read as preferences (every other format is a qrels file)
PREFS_FORMATS = ("prefs", "qrels_prefs")


def check_fields(tokens: trec_text.Tokens, expected: tuple[str, ...], rule: str) -> None:
    """A trec_eval judgment-like file: no byte-order mark, blank line (fatal in
    trec_eval), NUL byte or invalid UTF-8, and exactly the ``expected`` fields on every
    line."""
    if tokens.head.startswith(trec_text.BOM):
        raise InputError(tokens.path, 1, trec_text.BOM_IN_FIRST_QID, rule)
    for lines, message in (
        (tokens.blank_lines, "blank line (fatal in trec_eval)"),
        (tokens.nul_lines, "NUL byte (trec_eval 9.x would silently stop reading here)"),
        (tokens.bad_utf8_lines, "invalid UTF-8"),
    ):
        if len(lines):
            raise InputError(tokens.path, int(lines[0]), message, rule)
    trec_text.refuse_rows(
        tokens,
        tokens.nfields != len(expected),
        rule,
        lambda row: (
            f"expected {len(expected)} fields ({' '.join(expected)}), "
            f"found {int(tokens.nfields[row])}"
        ),
    )


def load_prefs(path, version: Compat, *, qrels_format: bool = False) -> Loaded:
    """``qid, jg, jsg, docno, level, line`` of a prefs file (``qrels_format``: a qrels file
    read as preferences), ``level`` float64 as written, with the file's provenance."""
    expected = QRELS_FIELDS if qrels_format else PREFS_FIELDS
    with Source(path) as source:
        data = source.read()
        tokens = trec_text.tokenize(data, str(path), 1, len(expected))
        if version.comments:
            tokens = comments.drop_qrels_comments(tokens, data)
        check_fields(tokens, expected, "P1")
        table = _table(tokens, expected, qrels_format)
        if table.num_rows == 0:
            raise InputError(str(path), None, "empty preferences file")
        qids = len(pc.unique(table.column("qid")))
        record = {"path": str(path), "kind": "qrels", **source.record()}
    record |= {"lines": table.num_rows, "topics": qids}
    return Loaded("qrels", table, str(path), str(path), record)


def _table(tokens: trec_text.Tokens, expected: tuple[str, ...], qrels_format: bool) -> pa.Table:
    columns = dict(zip(expected, tokens.fields[: len(expected)], strict=True))
    good, levels = trec_text.parse_scores(columns["level"])
    trec_text.refuse_rows(
        tokens,
        ~good | np.isnan(levels),
        "P2",
        lambda row: f"level {columns['level'][row].as_py()!r} is not a finite decimal number",
    )
    if qrels_format:
        columns["jsg"] = arrow.array(["0"] * len(tokens), pa.string())
    return pa.table(
        {
            "qid": columns["qid"],
            "jg": columns["jg"],
            "jsg": columns["jsg"],
            "docno": columns["docno"],
            "level": arrow.array(levels),
            "line": arrow.array(tokens.line),
        }
    )
