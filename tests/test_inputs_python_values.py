"""Python values held in memory (dicts, records, object columns of a DataFrame) that Arrow
cannot hold as one type: read by what they are, whatever their spelling (numpy's or
Python's), or refused in trecbench's words, naming the value and where it is."""

from __future__ import annotations

import fractions
import json
import types
from decimal import Decimal

import numpy as np
import pandas as pd
import pytest
from ir_measures import ScoredDoc

import trecbench
from trecbench import inputs
from trecbench.errors import InputError

BEYOND_DOUBLE = 2**53 + 1  # the first integer no float64 holds: 2^53 is its nearest double


def _spellings(score):
    """A run holding ``score`` beside a float, as a dict, records and a DataFrame."""
    return [
        {"q": {"a": score, "b": 0.5}},
        [
            types.SimpleNamespace(query_id="q", doc_id="a", score=score),
            types.SimpleNamespace(query_id="q", doc_id="b", score=0.5),
        ],
        pd.DataFrame({"qid": ["q", "q"], "docno": ["a", "b"], "score": [score, 0.5]}, dtype=object),
    ]


@pytest.mark.parametrize("source", range(3), ids=["dict", "records", "DataFrame"])
@pytest.mark.parametrize(
    "score",
    [np.int64(BEYOND_DOUBLE), np.uint64(2**64 - 1), np.int32(7), Decimal("2.5")],
    ids=repr,
)
def test_a_number_is_read_alike_whatever_its_spelling(source, score):
    """np.int64(2**53 + 1) beside a float was refused ("not all of one type") where the
    Python int was read as the nearest double, as trec_eval's atof reads its text."""
    python = score if isinstance(score, Decimal) else score.item()
    read = inputs.load(_spellings(score)[source], "run").table.column("score").to_pylist()
    alike = inputs.load(_spellings(python)[source], "run").table.column("score").to_pylist()
    assert read == alike == [float(str(python)), 0.5]


def test_integer_ids_beyond_64_bits_beside_numpy_integers():
    loaded = inputs.load({np.int64(1): {"d": 1.0}, 2**64: {"d": 1.0}}, "run")
    assert loaded.table.column("qid").to_pylist() == ["1", str(2**64)]


def test_an_integral_float_beside_a_huge_grade_is_not_named_for_it():
    """The grade beyond the limit is named, not 1.0 (read as its text '1.0' before)."""
    with pytest.raises(InputError, match=r"document 'b': relevance 18446744073709551616 is above"):
        inputs.load({"q": {"a": 1.0, "b": 2**64}}, "qrels")


_ARROW_WORDS = ("Could not convert", "expected", "Expected bytes", "precision", "type 15", "mix")


@pytest.mark.parametrize(
    ("source", "kind", "message"),
    [
        (
            pd.DataFrame({"qid": ["1", "1"], "docno": ["a", "b"], "score": [1.5, "x"]}),
            "run",
            "run DataFrame: row 1: score 'x' is text, not a number as in row 0",
        ),
        (
            pd.DataFrame({"qid": ["1", 2], "docno": ["a", "b"], "score": [1.5, 2.5]}),
            "run",
            "run DataFrame: row 1: qid 2 is an integer, not text as in row 0",
        ),
        (
            pd.DataFrame({"qid": ["1", "1"], "docno": ["a", "b"], "score": [[1], 2.0]}),
            "run",
            "run DataFrame: row 0: score [1] is a list, not an int, float or Decimal",
        ),
        (
            pd.DataFrame({"qid": ["1", "1"], "docno": ["a", "b"], "rel": [True, 2]}),
            "qrels",
            "qrels DataFrame: row 0: rel True is a bool, not an int, float or Decimal",
        ),
        (
            {"q": {"a": fractions.Fraction(1, 3)}},
            "run",
            "run dict: query 'q', document 'a': score Fraction(1, 3) is a Fraction, not an int, "
            "float or Decimal",
        ),
        (
            {"q": {"a": Decimal("Infinity")}},  # a TypeError's traceback before
            "run",
            "run dict: query 'q', document 'a': score Infinity is not finite",
        ),
        (
            {"q1": {"a": 1.0, 2: 1.0}},
            "run",
            "run dict: query 'q1', document 2: document id 2 is an integer, not text as in "
            "query 'q1', document 'a'",
        ),
        (
            [{"qid": "1", "docno": "a", "score": 1.0}, {"qid": 1, "docno": "b", "score": 1.0}],
            "run",
            "run records: record 1: qid 1 is an integer, not text as in record 0",
        ),
    ],
)
def test_values_of_mixed_types_are_refused_in_plain_words(source, kind, message):
    """Arrow's own words ("int or Decimal object expected", "Could not convert 'x' with
    type str: tried to convert to double") reached the user before."""
    with pytest.raises(InputError) as caught:
        inputs.load(source, kind)
    assert str(caught.value) == message
    assert not any(words in message for words in _ARROW_WORDS)


@pytest.mark.parametrize(
    ("value", "named"),
    [(np.str_("0.5"), "'0.5' is text"), (np.bool_(True), "True is a bool")],
    ids=repr,
)
def test_a_numpy_value_that_is_no_number_is_named_by_the_value_it_holds(value, named):
    """A dict named it in numpy's words ("np.str_('0.5') is text"), or not at all ("a
    bool"), where records and DataFrames named the value."""
    with pytest.raises(InputError) as caught:
        inputs.load({"q": {"a": value, "b": 0.5}}, "run")
    assert str(caught.value) == (
        f"run dict: query 'q', document 'a': {named}, not a number (a dict holds numbers)"
    )


@pytest.mark.parametrize(
    ("value", "named"),
    [
        (np.datetime64("2020-01-01T00:00:00.000000001"), "a datetime64"),
        (np.timedelta64(3, "ns"), "a timedelta64"),
        (np.timedelta64(1), "a timedelta64"),
        (np.datetime64("NaT"), "a datetime64"),
    ],
    ids=repr,
)
@pytest.mark.parametrize("kind", ["run", "qrels"])
def test_a_numpy_date_or_duration_is_no_number(value, named, kind):
    """At nanoseconds (or with no unit) numpy's item() gives a bare int, which was then
    read as a score of 1.58e18, or a grade of 1, without a word."""
    with pytest.raises(InputError) as caught:
        inputs.load({"q": {"a": value, "b": 0}}, kind)
    assert str(caught.value) == (
        f"{kind} dict: query 'q', document 'a': {named}, not a number (a dict holds numbers)"
    )


@pytest.mark.parametrize("beside", [[], [0.2]], ids=["alone", "beside a float"])
def test_a_longdouble_is_read_alike_alone_or_beside_a_float(beside):
    # alone it was refused ("a longdouble, not an int, float or Decimal"), beside a float read
    scores = {"a": np.longdouble("0.5")} | {f"d{i}": value for i, value in enumerate(beside)}
    read = inputs.load({"q": scores}, "run").table.column("score").to_pylist()
    assert read == [0.5, *beside]


HUGE = 10**5000  # more digits than Python writes (4,300): str() raised ValueError


@pytest.mark.parametrize("source", range(3), ids=["dict", "records", "DataFrame"])
def test_an_int_beyond_a_double_is_refused_in_one_line_however_long(source):
    # a traceback before: "Exceeds the limit (4300 digits) for integer string conversion"
    with pytest.raises(InputError, match=r"score 1\.000000E\+5000 overflows a double$"):
        inputs.load(_spellings(HUGE)[source], "run")
    with pytest.raises(InputError, match=r"score 1797.*\(309 characters\).* overflows a double$"):
        inputs.load(_spellings(2**1024 - 1)[source], "run")  # atof's nearest is past DBL_MAX
    largest = int(np.finfo(np.float64).max)
    read = inputs.load(_spellings(largest)[source], "run").table.column("score").to_pylist()
    assert read == [float(largest), 0.5]


def test_ids_and_grades_of_ints_python_cannot_write():
    with pytest.raises(InputError, match=r"relevance 1\.000000E\+5000 overflows a double$"):
        inputs.load({"q": {"a": HUGE, "b": 0}}, "qrels")
    message = "has more than 4,300 digits, more than Python writes as text: an id must be"
    for mapping in ({HUGE: {"a": 1.0}}, {"q": {HUGE: 1.0}}):
        with pytest.raises(InputError, match=message):
            inputs.load(mapping, "run")
    long_id = 10**4299  # written in full, as any id
    assert inputs.load({long_id: {"a": 1.0}}, "run").table.column("qid")[0].as_py() == str(long_id)


def test_an_infinite_longdouble_or_decimal_is_not_finite_and_a_container_is_named():
    for value in (np.longdouble("inf"), Decimal("Infinity")):  # "is not a number" before
        with pytest.raises(InputError, match=r"score Infinity is not finite$"):
            inputs.load({"q": {"a": value, "b": 0.5}}, "run")
    with pytest.raises(InputError) as caught:  # a bare ValueError before
        inputs.load([{"query_id": (HUGE,), "doc_id": "a", "score": 1.0}], "run")
    assert "<a tuple holding an integer too long to write>" in str(caught.value)


_FLOAT_THEN_BOOL = pd.Series([0.5, True], dtype=object)  # Arrow reads it as [0.5, 1.0]


@pytest.mark.parametrize(
    ("source", "kind", "message"),
    [
        (
            json.loads(
                '[{"qid": "q", "docno": "a", "score": 0.5}, {"qid": "q", "docno": "b", '
                '"score": true}]'
            ),
            "run",
            "run records: record 1: score True is a bool, not an int, float or Decimal",
        ),
        (
            [ScoredDoc("q", "a", 0.5), ScoredDoc("q", "b", True)],
            "run",
            "run records: record 1: score True is a bool, not an int, float or Decimal",
        ),
        (
            pd.DataFrame({"qid": ["q", "q"], "docno": ["a", "b"], "score": _FLOAT_THEN_BOOL}),
            "run",
            "run DataFrame: row 1: score True is a bool, not an int, float or Decimal",
        ),
        (
            pd.DataFrame(
                {"qid": ["q", "q"], "docno": ["a", "b"], "label": [0.0, np.False_]}, dtype=object
            ),
            "qrels",
            "qrels DataFrame: row 1: label False is a bool, not an int, float or Decimal",
        ),
        (
            [{"qid": "q", "docno": "a", "score": None}, {"qid": "q", "docno": "b", "score": True}],
            "run",
            "run records: record 1: score True is a bool, not an int, float or Decimal",
        ),
    ],
    ids=["JSON records", "ScoredDoc", "object column", "numpy bool grade", "after None"],
)
def test_a_bool_after_a_float_is_refused_as_a_bool_first_is(source, kind, message):
    """[0.5, True] was read as the scores 0.5 and 1.0 (a grade 0.0, False as 0): Arrow
    makes a double column of it, so the bool was never named, where [True, 0.5] was."""
    with pytest.raises(InputError) as refused:
        inputs.load(source, kind)
    assert str(refused.value) == message


def test_a_bool_among_given_values_is_refused():
    """compare_scores read [0.5, True, 0.0] as the values 0.5, 1.0, 0.0."""
    given = pd.DataFrame(
        {
            "run": ["a"] * 3 + ["b"] * 3,
            "qid": ["1", "2", "3"] * 2,
            "measure": ["P@1"] * 6,
            "value": pd.Series([0.5, True, 0.0, 0.1, 0.2, 0.3], dtype=object),
        }
    )
    with pytest.raises(InputError) as refused:
        trecbench.compare_scores(given)
    message = "row 1: value True is a bool, not an int, float or Decimal"
    assert str(refused.value) == f"per_query: {message}"


@pytest.mark.parametrize("text", ["NaN", "sNaN", "-NaN"])
@pytest.mark.parametrize("kind", ["run", "qrels"])
def test_a_decimal_nan_is_refused_in_one_message_whatever_holds_it(text, kind):
    # a DataFrame's Decimal('NaN') was "missing" (a dict's "NaN is not a number"), its
    # Decimal('sNaN') a raw decimal.InvalidOperation from pandas' isna
    role, name, said = (
        ("score", "score", "is not a number")
        if kind == "run"
        else ("rel", "relevance", "is not an integer")
    )
    value = Decimal(text)
    held = {
        "dict": ({"q": {"a": value}}, "query 'q', document 'a'"),
        "records": ([{"qid": "q", "docno": "a", role: value}], "record 0"),
        "DataFrame": (
            pd.DataFrame({"qid": ["q"], "docno": ["a"], role: pd.Series([value], dtype=object)}),
            "row 0",
        ),
    }
    for holder, (source, where) in held.items():
        with pytest.raises(InputError) as refused:
            trecbench.load_run(source) if kind == "run" else trecbench.load_qrels(source)
        assert str(refused.value) == f"{kind} {holder}: {where}: {name} {text} {said}"
