"""Wrongly shaped in-memory inputs given to ``trecbench.evaluate`` are named by what they
are: a list of misspelt dict records is records (not a list of run dicts), a run dict
whose documents are a list or a Series is a run dict (not a dict of runs), a list of
tuples or a 2-D array is records (not runs, each named by its first value), a record's
id is named by its field, a dict record's keys are keys and all of them are listed, and
an empty DataFrame is an empty run whatever dtype pandas gave its columns."""

from __future__ import annotations

import collections
from urllib.parse import unquote

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import trecbench
from trecbench.errors import InputError, UsageError

QRELS = {"1": {"d1": 1}}
RUN = {"1": {"d1": 1.0}}
EXPECTED = "expected query_id, doc_id, score (ir_measures' ScoredDoc/Qrel)"
EMPTY = "run 'run1' (run DataFrame)"
Triple = collections.namedtuple("Triple", "q d s")
ScoredDoc = collections.namedtuple("ScoredDoc", "query_id doc_id score")  # ir_measures'


def _message(qrels, run) -> str:
    with pytest.raises((InputError, UsageError)) as raised:
        trecbench.evaluate(qrels, run, ["P@1"])
    return str(raised.value)


@pytest.mark.parametrize(
    ("run", "message"),
    [
        # read as a list of run dicts: "run 'run1' (run dict): query 'qid': its documents
        # must be a mapping of docno to score, not text ('1')"
        ([{"qid": "1", "doc_no": "d1", "score": 1.0}],
         "run 'run1' (run records): no document id key (one of docno, doc_id, docid, "
         "corpus-id); "
         "keys: qid, doc_no, score"),
        # the key of no known role was left out of the list: "columns: qid, docno"
        ([{"qid": "1", "docno": "d1", "scor": 1.0}],
         "run 'run1' (run records): no score key (one of score); keys: qid, docno, scor"),
        # "column 'docid' holds integers"
        ([{"qid": "1", "docid": 1, "score": 1.0}],
         "run 'run1' (run records): key 'docid' holds integers: a PyTerrier docid is "
         "Terrier's internal document number, not the docno; keep the docno key beside it, "
         "or give the ids as text"),
        # read as a dict of runs: "run '1' (run records): record 0 is text, ..."
        ({"1": ["d1"]},
         "run 'run1' (run dict): query '1': its documents must be a mapping of docno to "
         "score, not a list"),
        # a list of (docno, score) pairs, likewise: "run '1' (run records): record 0 is a
        # tuple: expected query_id, doc_id, score"
        ({"1": [("d1", 1.0)]},
         "run 'run1' (run dict): query '1': its documents must be a mapping of docno to "
         "score, not a list"),
        # a pair of ids is a record without its score, said of its run by name (the
        # pairs' rule read it as query 'runA' of a run 'run1': reviewer 679)
        ({"runA": [("1", "d1")]}, f"run 'runA' (run records): record 0 is a tuple: {EXPECTED}"),
        # a score given as text (or None, a Decimal) in a pair: a query's documents still
        ({"1": [("d1", "0.5")]},
         "run 'run1' (run dict): query '1': its documents must be a mapping of docno to "
         "score, not a list"),
        ({"1": pd.Series({"d1": 1.0})},
         "run 'run1' (run dict): query '1': its documents must be a mapping of docno to "
         "score, not a Series"),
        # read as a list of runs, each named by its first value: "record 0 is text"
        ([("1", "d1", 1.0)], f"run 'run1' (run records): record 0 is a tuple: {EXPECTED}"),
        ([["1", "d1", 1.0]], f"run 'run1' (run records): record 0 is a list: {EXPECTED}"),
        # a named tuple of other fields is read by its names, as a dict's keys are
        ([Triple("1", "d1", 1.0)],
         "run 'run1' (run records): no query id key (one of qid, query_id, q_id, query-id); "
         "keys: q, d, s"),
        (np.array([["1", "d1", "1.0"]]),
         f"run 'run1' (run records): record 0 is a numpy array: {EXPECTED}"),
        # "record 0: qid is missing": the record has no field qid
        ([ScoredDoc(None, "d1", 1.0)],
         "run 'run1' (run records): record 0: query_id is missing (NaN or None: was NA read "
         "as a missing value?)"),
        # "qid column has type double: ... read the data with dtype=str"
        (pd.DataFrame({"qid": [], "docno": [], "score": []}), f"{EMPTY}: empty run"),
        (pd.DataFrame(columns=["qid", "docno", "score"]), f"{EMPTY}: empty run"),
    ],
)  # fmt: skip
def test_a_wrongly_shaped_run_is_named_by_what_it_is(run, message):
    assert _message(QRELS, run) == message


def test_a_column_one_of_several_runs_lacks_names_that_run():
    # "run DataFrame: no score column": which of the runs, all DataFrames, was not said,
    # where a bad value in the same run was ("run 'dense' (run DataFrame): row 0: ...")
    good = pd.DataFrame({"qid": ["1"], "docno": ["d1"], "score": [1.0]})
    runs = {"bm25": good, "dense": good.drop(columns="score")}
    with pytest.raises(UsageError) as refused:
        trecbench.evaluate(QRELS, runs, ["P@1"])
    assert str(refused.value) == (
        "run 'dense' (run DataFrame): no score column (one of score); columns: qid, docno"
    )


@pytest.mark.parametrize(
    ("qrels", "message"),
    [
        ([{"qid": "1", "docno": "d1", "rell": 1}],
         "qrels records: no relevance key (one of rel, relevance, label, score); "
         "keys: qid, docno, rell"),
        ([("1", "d1", 1)],
         "qrels records: record 0 is a tuple: expected query_id, doc_id, relevance "
         "(ir_measures' ScoredDoc/Qrel)"),
        (pd.DataFrame({"qid": [], "docno": [], "rel": []}), "qrels DataFrame: empty qrels"),
    ],
)  # fmt: skip
def test_wrongly_shaped_qrels_are_named_by_what_they_are(qrels, message):
    assert _message(qrels, RUN) == message


@pytest.mark.parametrize(
    ("columns", "shown"),
    [
        ({"query_id": ["1"], "doc_id": ["a"], "score": [2]}, "query_id, doc_id, score"),
        ({"qid": ["1"], "docno": ["a"], "score": [2], "rank": [1]}, "qid, docno, score, rank"),
        ({"q_id": ["1"], "doc_id": ["a"], "score": [2], "tag": ["r"]}, "q_id, doc_id, score, tag"),
    ],
)
def test_a_run_frame_given_as_qrels_is_refused_naming_the_columns_expected(columns, shown):
    # a run frame with integral scores was read as qrels (its scores as grades): a run
    # scored against itself, P@1 = 1; ranx's and BEIR's qrels alone name grades `score`
    run = pd.DataFrame(columns)
    with pytest.raises(UsageError) as error:
        trecbench.evaluate(run, run, ["P@1"])
    qid, doc = list(columns)[:2]
    assert str(error.value) == (
        f"qrels DataFrame: columns {shown} are a run's, not qrels': give the grades as "
        f"{qid}, {doc}, rel (or relevance, label; score only beside ranx's q_id or BEIR's "
        "query-id, without rank or tag)"
    )
    for ids in ({"q_id": ["1"], "doc_id": ["a"]}, {"query-id": ["1"], "corpus-id": ["a"]}):
        qrels = pd.DataFrame({**ids, "score": [1]})  # ranx's and BEIR's qrels: read
        assert trecbench.evaluate(qrels, run, ["P@1"]).to_dict() == {"1": {"P@1": 1.0}}


@pytest.mark.parametrize("hostile", ["a\nb", "x, y", "a\tb "])
def test_the_columns_an_error_lists_are_escaped_as_items(hostile):
    # the columns were joined as they are: a header's line feed split the message, and a
    # column "x, y" read as two; each is a list's item (%XX), unquote gives it back
    frame = pd.DataFrame({"qid": ["1"], "docno": ["a"], "score": [2], hostile: [1]})
    with pytest.raises(UsageError) as error:
        trecbench.evaluate(frame, frame, ["P@1"])
    message = str(error.value)
    assert message.isprintable()
    shown = message.split("columns ")[1].split(" are a run's")[0].split(", ")
    assert [unquote(name) for name in shown] == [
        "qid", "docno", "score", hostile
    ]  # fmt: skip
    refused = pd.DataFrame({"query": ["1"], hostile: ["a"], "score": [1.0]})
    with pytest.raises(UsageError) as error:
        trecbench.evaluate(refused, refused, ["P@1"])
    listed = str(error.value).split("; columns: ")[1].split(", ")
    assert [unquote(name) for name in listed] == ["query", hostile, "score"]


def test_two_columns_of_one_name_in_a_run_held_in_memory_name_the_run():
    # an Arrow table raised Arrow's KeyError ('Field "score" exists 2 times in schema');
    # a DataFrame's refusal named no run of several
    frame = pd.DataFrame([["1", "d1", 1.0, 2.0]], columns=["qid", "docno", "score", "score"])
    columns = [pa.array(["1"]), pa.array(["d1"]), pa.array([1.0]), pa.array([2.0])]
    table = pa.table(columns, names=["qid", "docno", "score", "score"])
    for run, origin in ((frame, "run DataFrame"), (table, "run table")):
        with pytest.raises(UsageError) as refused:
            trecbench.evaluate(QRELS, {"dense": run}, ["P@1"])
        assert str(refused.value) == (
            f"run 'dense' ({origin}): two columns are named 'score'; keep one"
        )


def test_two_columns_of_one_name_left_unread_are_left():
    # da180ff4 refused every repeated name of an Arrow table, a DataFrame only those read
    names = ["qid", "docno", "score", "note", "note"]
    values = [["1"], ["d1"], [1.0], ["a"], ["b"]]
    table = pa.table([pa.array(v) for v in values], names=names)
    frame = pd.DataFrame([[v[0] for v in values]], columns=names)
    for run in (table, frame):
        assert trecbench.evaluate(QRELS, run, ["P@1"]).to_dict() == {"1": {"P@1": 1.0}}


def test_a_data_frames_itertuples_are_read_as_its_records_are():
    # PyTerrier's columns as a named tuple's fields: "record 0 is a Pandas with fields
    # qid, docno, label: expected query_id, doc_id, relevance", where to_dict("records")
    # of the same frames is read
    qrels = pd.DataFrame({"qid": ["1", "1", "2"], "docno": ["a", "b", "c"], "label": [1, 0, 2]})
    run = pd.DataFrame({"qid": ["1", "1", "2"], "docno": ["a", "b", "c"], "score": [1.0, 2, 3]})
    expected = trecbench.evaluate(qrels.to_dict("records"), run.to_dict("records"), ["P@1"])
    assert expected.to_dict() == {"1": {"P@1": 0.0}, "2": {"P@1": 1.0}}
    for index in (False, True):  # with its index, a field Index read as a key no id's
        given = [list(frame.itertuples(index=index)) for frame in (qrels, run)]
        assert trecbench.evaluate(*given, ["P@1"]).to_dict() == expected.to_dict()
    other = run.rename(columns={"qid": "query"}).itertuples(index=False)
    with pytest.raises(InputError, match=r"\(run records\): record 1 is a X \(docno, qid, s"):
        Other = collections.namedtuple("X", "docno qid score")
        trecbench.evaluate(qrels, [*run.itertuples(index=False)][:1] + [Other("b", "1", 2.0)])
    with pytest.raises(UsageError, match=r"no query id key .*; keys: query, docno, score$"):
        trecbench.evaluate(qrels, list(other))


def test_a_frame_whose_columns_are_a_multiindex_is_refused_as_such():
    # "no query id column (...); columns: ('a'%2C 'qid'), ('a'%2C 'docno'), ...": the
    # tuples' commas escaped as a list of names escapes them
    run = pd.DataFrame({"qid": ["1"], "docno": ["a"], "score": [1.0]})
    run.columns = pd.MultiIndex.from_tuples([("a", "qid"), ("a", "docno"), ("b", "score")])
    with pytest.raises(UsageError) as refused:
        trecbench.evaluate(QRELS, run, ["P@1"])
    assert str(refused.value) == (
        "run 'run1' (run DataFrame): its columns are a MultiIndex of 2 levels: give it one "
        "level of names"
    )


def test_an_ir_measures_record_of_the_other_kind_is_refused_naming_it():
    # a Qrel given as a run was said "no score key (one of score); keys: query_id, ..."
    # once named tuples of other fields were read as dicts: it is no DataFrame's row
    Qrel = collections.namedtuple("Qrel", "query_id doc_id relevance iteration")
    with pytest.raises(InputError, match=r"record 0 is a Qrel with fields query_id, doc_id, "
                       r"relevance, iteration: expected query_id, doc_id, score"):  # fmt: skip
        trecbench.evaluate(QRELS, [Qrel("1", "d1", 1, "0")], ["P@1"])
