"""trecbench.rank_run, the public ranking: every input kind evaluate takes, read by the
one way in, ranked by trec_eval's rule (qid byte-wise, score descending as float32, docno
descending byte-wise), each expected order worked out by hand from that rule."""

from __future__ import annotations

import ir_measures
import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import trecbench
from trecbench.errors import InputError, UsageError


def _ranking(table: pa.Table) -> list[tuple[str, str, int]]:
    return list(
        zip(
            table.column("qid").to_pylist(),
            table.column("docno").to_pylist(),
            table.column("rank").to_pylist(),
            strict=True,
        )
    )


@pytest.mark.parametrize(
    "scores",
    [[1.0, float("nan"), 2.0], [1.0, 3.0, float("nan"), 2.0], [float("inf"), 1.0]],
)
def test_a_score_that_is_not_finite_is_refused_as_the_readers_refuse_it(scores):
    """A NaN compares false with every score: [1, nan, 2] came back in input order,
    [1, 3, nan, 2] with the NaN ranked first."""
    table = pa.table({"qid": ["q"] * len(scores), "docno": list("abcd")[: len(scores)]})
    table = table.append_column("score", pa.array(scores))
    bad = next(i for i, s in enumerate(scores) if not np.isfinite(s))
    with pytest.raises(InputError, match=rf"run table: row {bad}: score \S+ is not finite"):
        trecbench.rank_run(table)
    with pytest.raises(InputError, match=rf"row {bad}: score \S+ is not finite"):
        trecbench.evaluate({"q": {"a": 1}}, table, ["P@1"])  # the same words


def test_integer_qids_are_their_decimal_text_in_byte_wise_order():
    """trec_eval orders topics by strcmp: "10" before "9" (9 came first, compared as
    integers, and the qids stayed integers)."""
    table = pa.table({"qid": [9, 10, 9], "docno": ["a", "b", "c"], "score": [1.0, 2.0, 3.0]})
    ranked = trecbench.rank_run(table)
    assert _ranking(ranked) == [("10", "b", 1), ("9", "c", 1), ("9", "a", 2)]
    assert ranked.schema.field("qid").type == pa.string()


# topic q1: d3 and D10/D9 tie at 2.0, so docno descending byte-wise: d3 ("d" > "D"), D9,
# D10 ("9" > "1"); then d1 at 1.0; topic q2 after q1
EXPECTED = [("q1", "d3", 1), ("q1", "D9", 2), ("q1", "D10", 3), ("q1", "d1", 4), ("q2", "x", 1)]
ROWS = [
    ("q2", "x", 5.0),
    ("q1", "d1", 1.0),
    ("q1", "D10", 2.0),
    ("q1", "D9", 2.0),
    ("q1", "d3", 2.0),
]


def _kinds(tmp_path):
    frame = pd.DataFrame(ROWS, columns=["qid", "docno", "score"])
    irm = {"query_id": frame.qid, "doc_id": frame.docno, "score": frame.score}
    path = tmp_path / "r.run"
    path.write_text("".join(f"{q} Q0 {d} 1 {s} t\n" for q, d, s in ROWS))
    nested: dict = {}
    for q, d, s in ROWS:
        nested.setdefault(q, {})[d] = s
    return {
        "DataFrame": frame,
        "ir_measures DataFrame": frame.rename(columns={"qid": "query_id", "docno": "doc_id"}),
        "Arrow table": pa.Table.from_pandas(frame),
        "ir_measures Arrow table": pa.table(irm),
        "ranx Arrow table": pa.table({"q_id": irm["query_id"], **irm}).drop_columns("query_id"),
        "dict": nested,
        "dict records": frame.to_dict("records"),
        "ScoredDoc records": [ir_measures.ScoredDoc(q, d, s) for q, d, s in ROWS],
        "TREC file": str(path),
        "loaded": trecbench.load_run(frame),
    }


def test_every_input_kind_evaluate_takes_is_ranked_alike(tmp_path):
    """A DataFrame or dict raised AttributeError, an ir_measures-named table KeyError."""
    for kind, source in _kinds(tmp_path).items():
        ranked = trecbench.rank_run(source)
        assert _ranking(ranked) == EXPECTED, kind
        assert ranked.column("score").to_pylist() == [2.0, 2.0, 2.0, 1.0, 5.0], kind


def test_scores_equal_at_float32_tie_unless_float32_is_off():
    """1 and 1 + 1e-9 are one float32: tied, so docno descending (b before a); as doubles
    a's score is the greater."""
    table = pa.table({"qid": ["q", "q"], "docno": ["a", "b"], "score": [1.0 + 1e-9, 1.0]})
    assert trecbench.rank_run(table).column("docno").to_pylist() == ["b", "a"]
    assert trecbench.rank_run(table, float32=False).column("docno").to_pylist() == ["a", "b"]
    assert trecbench.rank_run(table, float32=np.False_).column("docno").to_pylist() == ["a", "b"]


@pytest.mark.parametrize("float32", ["False", 0, None])
def test_float32_is_a_yes_or_no(float32):
    with pytest.raises(UsageError, match="float32 must be True or False"):
        trecbench.rank_run({"q": {"d": 1.0}}, float32=float32)


def test_what_is_not_a_run_is_refused_in_one_line():
    with pytest.raises(UsageError, match="cannot read a run from an int"):
        trecbench.rank_run(5)


def test_a_file_ranks_to_one_shape_whichever_reader_read_it(tmp_path):
    # two spaces between fields send a file to the general tokenizer, whose table kept
    # Q0, rank and line as large strings: rank_run's shape followed the file's spacing
    (tmp_path / "two").write_text("1 Q0 a 7  1.0 t\n1 Q0 b 3 2.0 t\n")
    (tmp_path / "one").write_text("1 Q0 a 7 1.0 t\n1 Q0 b 3 2.0 t\n")
    shapes = set()
    for name in ("two", "one"):
        ranked = trecbench.rank_run(str(tmp_path / name))
        assert ranked.column("docno").to_pylist() == ["b", "a"]  # 2.0 before 1.0
        shapes.add(tuple((field.name, str(field.type)) for field in ranked.schema))
    assert shapes == {
        (("qid", "string"), ("docno", "string"), ("score", "double"), ("tag", "string"),
         ("rank", "int64")),
    }  # fmt: skip


def test_a_document_listed_twice_is_refused_as_evaluate_refuses_it(tmp_path):
    """Document a listed twice in topic 1 came back ranked 1 and 2, where evaluate,
    fuse and write_run refuse it (trec_eval: "duplicate docs"): refused alike, at the
    frame's rows, or at the file's lines."""
    from trecbench.errors import DuplicateError

    frame = pd.DataFrame({"qid": ["1", "1"], "docno": ["a", "a"], "score": [2.0, 1.0]})
    said = r"row 1: duplicate docs a for topic 1 \(first at row 0\)$"
    with pytest.raises(DuplicateError, match=said):
        trecbench.evaluate({"1": {"a": 1}}, frame, ["P@1"])
    with pytest.raises(DuplicateError, match=f"^run DataFrame: {said}"):
        trecbench.rank_run(frame)
    path = tmp_path / "dup.run"
    path.write_text("1 Q0 a 1 2.0 r\n1 Q0 a 2 1.0 r\n")
    with pytest.raises(
        DuplicateError, match=r"dup.run:2: duplicate docs a for topic 1 \(first on line 1\)$"
    ):
        trecbench.rank_run(str(path))
