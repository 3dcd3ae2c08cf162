"""A bad score, grade or rank of a DataFrame or an Arrow table is shown in its message as
TREC text's reader shows it: text quoted and escaped, on one line (a cell can hold a line
break, an escape sequence, trailing spaces or nothing); a number, or text written as one,
as it reads."""

from __future__ import annotations

import pandas as pd
import pyarrow as pa
import pytest

import trecbench
from trecbench.errors import InputError


def _run(score) -> pd.DataFrame:
    return pd.DataFrame({"qid": ["1"], "docno": ["a"], "score": pd.Series([score], dtype=object)})


def _qrels(grade) -> pd.DataFrame:
    return pd.DataFrame({"qid": ["1"], "docno": ["a"], "rel": pd.Series([grade], dtype=object)})


@pytest.mark.parametrize(
    ("source", "kind", "message"),
    [
        # was two lines: "score 1.5\nq1 Q0 x 1 9 fake is not a number"
        (_run("1.5\nq1 Q0 x 1 9 fake"), "run", r"score '1.5\nq1 Q0 x 1 9 fake' is not a number"),
        (_run("2.0 "), "run", "score '2.0 ' is not a number"),  # was "score 2.0  is not ..."
        (_run("\x1b[2J"), "run", r"score '\x1b[2J' is not a number"),  # was the escape itself
        (_run("inf"), "run", "score inf is not finite"),
        (_run("1e400"), "run", "score 1e400 overflows a double"),
        (_run("NaN"), "run", "score NaN is not a number"),
        (_qrels(""), "qrels", "relevance '' is not an integer"),  # was "relevance  is not ..."
        (_qrels("1\r"), "qrels", r"relevance '1\r' is not an integer"),
        (_qrels("1.0"), "qrels", "relevance 1.0 is not an integer"),
        (_qrels(0.5), "qrels", "relevance 0.5 is not an integer"),
    ],
)
def test_a_bad_value_of_a_dataframe_is_shown_on_one_line(source, kind, message):
    with pytest.raises(InputError) as refused:
        trecbench.load_run(source) if kind == "run" else trecbench.load_qrels(source)
    assert str(refused.value) == f"{kind} DataFrame: row 0: {message}"


def test_a_bad_score_of_an_arrow_table_is_quoted():
    table = pa.table({"qid": ["1"], "docno": ["a"], "score": ["\u202e1"]})
    with pytest.raises(InputError) as refused:
        trecbench.load_run(table)
    assert str(refused.value) == r"run table: row 0: score '\u202e1' is not a number"


@pytest.mark.parametrize(
    ("rank", "message"),
    [
        ("1\nx", r"rank '1\nx' is not a non-negative integer"),
        (1.7, "rank 1.7 is not a non-negative integer"),
        (
            "9" * 100,  # named as too large, not as cut text that is no integer
            f"rank {'9' * 40}…(100 characters)…{'9' * 40} is too large: ranks go up to "
            "9223372036854775807 (a 64-bit integer, as trecbench and rank-based tools hold them; "
            "trec_eval skips the rank column)",
        ),
    ],
)
def test_a_bad_rank_is_shown_on_one_line(tmp_path, rank, message):
    run = _run(1.0).assign(rank=pd.Series([rank], dtype=object), tag="t")
    with pytest.raises(InputError) as refused:
        trecbench.write_run(run, tmp_path / "out.run")
    assert str(refused.value) == f"run DataFrame: row 0: {message}"
