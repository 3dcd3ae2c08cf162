"""Python values of a kind no role takes (a dict key that is None or bytes, pandas' NA, a
Decimal beyond a double's range) named in the words of the input that holds them: a dict
or records have no column nor dtype, and a number is shown as it was written."""

from __future__ import annotations

import types
from decimal import Decimal

import numpy as np
import pandas as pd
import pytest

from trecbench import inputs
from trecbench.errors import InputError


def _message(source, kind: str) -> str:
    with pytest.raises(InputError) as caught:
        inputs.load(source, kind)
    return str(caught.value)


FIX = "; give ids as text (str), as they are written where they come from"


@pytest.mark.parametrize(
    ("mapping", "located", "named"),
    [
        ({None: {"a": 1.0}}, "query None: a query id", "None"),
        ({np.bool_(True): {"a": 1.0}}, "query True: a query id", "a bool (np.True_)"),
        ({b"q": {"a": 1.0}}, "query b'q': a query id", "bytes"),
        ({"q": {"a": 1.0}, None: {"a": 1.0}}, "query None: a query id", "None"),
        ({"q1": {b"x": 1.0}}, "query 'q1', document b'x': a document id", "bytes"),
        ({"q1": {"a": 1.0, b"x": 1.0}}, "query 'q1', document b'x': a document id", "bytes"),
        ({"q1": {("a",): 1.0}}, "query 'q1', document ('a',): a document id", "a tuple"),
        ({"q1": {1.5: 1.0}}, "query 'q1', document 1.5: a document id", "a float"),
        ({"q1": {np.float64(1.0): 1.0}}, "query 'q1', document 1.0: a document id",
         "a float64 (np.float64(1.0))"),
        ({"q1": {Decimal("1"): 1.0}}, "query 'q1', document Decimal('1'): a document id",
         "a Decimal"),
        ({"q1": {pd.NA: 1.0}}, "query 'q1', document <NA>: a document id",
         "a missing value (pd.NA)"),
    ],
)  # fmt: skip
@pytest.mark.parametrize("kind", ["run", "qrels"])
def test_a_dict_key_of_no_id_kind_is_named_in_a_dicts_words(mapping, located, named, kind):
    """Refused with a DataFrame's message before: "qid column has type null: ... read the
    data with dtype=str (pandas: dtype=str, keep_default_na=False)"."""
    message = _message(mapping, kind)
    assert message == f"{kind} dict: {located} must be text or an integer, not {named}{FIX}"


@pytest.mark.parametrize(
    ("value", "named"),
    [(b"a", "b'a' is bytes"), (1.0, "1.0 is a float"), (("a",), "('a',) is a tuple")],
    ids=repr,
)
@pytest.mark.parametrize("beside", [False, True], ids=["alone", "beside text"])
def test_a_record_id_of_no_id_kind_is_named_with_its_record(value, named, beside):
    """Records of one such kind got the DataFrame's column message; bytes beside text too
    (Arrow holds both as binary)."""
    rows = [types.SimpleNamespace(query_id="q", doc_id="d", score=1.0)] if beside else []
    rows.append(types.SimpleNamespace(query_id="q", doc_id=value, score=1.0))
    message = _message(rows, "run")
    located = f"run records: record {len(rows) - 1}: doc_id"
    assert message == f"{located} {named}, not text or an integer{FIX}"


@pytest.mark.parametrize(
    ("qid", "given"),
    [(np.float64(1e3), "np.float64(1000.0) is a float64"), (1e3, "1000.0 is a float")],
)
def test_a_numeric_id_refused_is_quoted_as_given_saying_how_to_give_it(qid, given):
    # np.float64(1e3) was quoted as the float it holds, 1000.0 (a float), and no message
    # said how to give the id
    message = _message([types.SimpleNamespace(query_id=qid, doc_id="d", score=1.0)], "run")
    assert message == f"run records: record 0: query_id {given}, not text or an integer{FIX}"
    keyed = _message({qid: {"d": 1.0}}, "run")
    shown = f" ({qid!r})" if isinstance(qid, np.generic) else ""
    kind = given.split(" is ")[1]
    assert keyed == (
        f"run dict: query 1000.0: a query id must be text or an integer, not {kind}{shown}{FIX}"
    )


def test_records_whose_ids_are_all_none_miss_them():
    """A record's None is a missing id, as beside other ids: "column has type null" before."""
    rows = [types.SimpleNamespace(query_id=None, doc_id="d", score=1.0)]
    assert _message(rows, "run").startswith("run records: record 0: query_id is missing")


@pytest.mark.parametrize("kind", ["run", "qrels"])
def test_pandas_na_in_a_dict_is_named_a_missing_value(kind):
    # "a NAType" before: the name of a type nobody writes
    message = _message({"q": {"a": pd.NA}}, kind)
    assert message == (
        f"{kind} dict: query 'q', document 'a': a missing value (pd.NA), not a number "
        "(a dict holds numbers)"
    )
    rows = [types.SimpleNamespace(query_id="q", doc_id="a", score=pd.NA, relevance=pd.NA)]
    assert "record 0: " in _message(rows, kind)
    assert "is a missing value (pd.NA), not an int, float or Decimal" in _message(rows, kind)


def _spellings(score):
    """A run holding ``score`` alone and beside a float: a dict, records, a DataFrame."""
    records = [types.SimpleNamespace(query_id="q", doc_id="a", score=score)]
    return [
        {"q": {"a": score}},
        {"q": {"a": score, "b": 0.5}},
        records,
        [*records, types.SimpleNamespace(query_id="q", doc_id="b", score=0.5)],
        pd.DataFrame({"qid": ["q", "q"], "docno": ["a", "b"], "score": [score, 0.5]}, dtype=object),
    ]


@pytest.mark.parametrize("source", range(5))
@pytest.mark.parametrize("written", ["1E+400", "-1.5E+400", "1E+999999999"])
def test_a_decimal_beyond_a_double_is_named_as_written(source, written):
    """Shown before as its integer's 401 digits and called "not finite" (and 1E+999999999's
    integer would fill the memory); TREC text says "score 1e400 overflows a double"."""
    message = _message(_spellings(Decimal(written))[source], "run")
    assert message.endswith(f": score {written} overflows a double")


def test_text_and_integers_beyond_a_double_overflow_it_as_written():
    """ "is not finite" before, for a number that is finite but has no double."""
    assert _message({"q": {"a": 10**400}}, "run").endswith(
        "score 1000000000000000000000000000000000000000…(401 characters)…"
        "0000000000000000000000000000000000000000 overflows a double"
    )
    rows = [{"qid": "q", "docno": "a", "score": "1e400"}]
    assert _message(rows, "run") == "run records: record 0: score 1e400 overflows a double"


def test_a_grade_far_beyond_the_limit_is_shown_shortened():
    # its 401 digits whole before
    assert _message({"q": {"a": 10**400}}, "qrels") == (
        "qrels dict: query 'q', document 'a': relevance 1000000000000000000000000000000000000000"
        "…(401 characters)…0000000000000000000000000000000000000000 is above 1,000,000 "
        "(trec_eval's nDCG would run for hours)"
    )


@pytest.mark.parametrize("written", ["0123", "+5", "-0", "5.0", "1e3", " 7"])
def test_ids_integers_lost_are_said_lost_as_they_were_written(written):
    # '+5' was said to have lost its "leading zeros" (reviewer 247)
    import trecbench

    run = pd.DataFrame({"qid": [int(float(written))], "docno": ["d1"], "score": [1.0]})
    with pytest.raises(InputError) as raised:
        trecbench.evaluate({written: {"d1": 1}}, run, ["P@1"])
    message = str(raised.value)
    assert f"such as {written!r} that no integer prints as" in message
    assert "lost how the ids were written (a leading zero, a sign, a decimal point or" in message


def test_ids_no_number_are_no_integers_lost():
    # 31_1, a TREC CAsT topic, beside integer topics was refused as an integer's lost
    # text (7f43735c): pandas keeps it as text, and no integer was read from it
    import trecbench

    result = trecbench.evaluate({"31_1": {"d1": 1}, "5": {"d1": 1}}, {5: {"d1": 1.0}}, ["P@1"])
    assert result.to_dict()["5"]["P@1"] == 1.0


def test_an_input_error_s_text_is_one_line_as_the_command_line_prints_it():
    # qrels text given for a path, or ids holding a line break or a terminal escape, made
    # an API error of several lines, its escapes raw in a caller's log
    import trecbench
    from trecbench.errors import DuplicateError, UnevaluableTopicError

    cases = [
        (lambda: trecbench.evaluate("q1 0 d1 1\nq2 0 d2 1\n", {"q1": {"d1": 1.0}}, ["P@5"]),
         InputError, "q1 0 d1 1\\nq2 0 d2 1\\n: no such file, nor an ir_datasets dataset"),
        (lambda: trecbench.evaluate(
            pd.DataFrame({"qid": ["q\n1"] * 2, "docno": ["d\x1b1"] * 2, "rel": [1, 2]}),
            {"q\n1": {"d": 1.0}}, ["P@5"]),
         DuplicateError, "row 1: duplicate docs d\\x1b1 for topic q\\n1 (first at row 0)"),
        (lambda: trecbench.evaluate({"q\n1": {"d1": -1}}, {"q\n1": {"d1": 1.0}}, ["P@5"]),
         UnevaluableTopicError, "every judgment of topic q\\n1 is negative"),
    ]  # fmt: skip
    for call, kind, said in cases:
        with pytest.raises(kind) as raised:
            call()
        assert said in str(raised.value) and str(raised.value).isprintable()


def test_an_open_file_is_refused_asking_for_its_path(tmp_path):
    """pytrec_eval's parse_run(f) takes an open file: iterated here, its lines were read
    as records ("record 0 is text: expected query_id, ..."), or, given as evaluate's runs,
    each line as the path of a run ("en-01\\tQ0...\\n: cannot read")."""
    import io

    import trecbench
    from trecbench.errors import UsageError

    (tmp_path / "r.run").write_text("q1 Q0 d1 1 2.5 t\n")
    (tmp_path / "r.qrels").write_text("q1 0 d1 1\n")
    with open(tmp_path / "r.run") as run, open(tmp_path / "r.qrels", "rb") as qrels:
        named = r"cannot read a (run|qrels) from an open file \('.*r\.(run|qrels)'\): give a path$"
        for call in (
            lambda: trecbench.parse_run(run),
            lambda: trecbench.parse_qrels(qrels),
            lambda: trecbench.evaluate(tmp_path / "r.qrels", run, ["P_5"]),
            lambda: trecbench.evaluate(qrels, tmp_path / "r.run", ["P_5"]),
        ):
            with pytest.raises(UsageError, match=named):
                call()
    with pytest.raises(UsageError, match=r"from an open file \(a StringIO\): give a path$"):
        trecbench.parse_qrels(io.StringIO("q1 0 d1 1\n"))
