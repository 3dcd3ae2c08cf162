"""write_run and write_qrels read what they write as every reader reads it: what evaluate and
load_run refuse is refused in the same one line (it was written truncated, dropped or as
another value), and an id no line of TREC text holds is refused, with the escaping convert
applies named (reviewer 285)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import trecbench
from trecbench.errors import DuplicateError, InputError, OutputError
from trecbench.ids import escape_id, unescape_id

RUN = pd.DataFrame(
    {"qid": ["q", "q"], "docno": ["d", "e"], "rank": [1, 2], "score": [2.0, 1.0], "tag": ["t", "t"]}
)
QRELS = pd.DataFrame({"qid": ["q", "q"], "docno": ["d", "e"], "rel": [1, 0]})
FLOAT_IDS = (
    "qid column has type double: ids must be strings (or integers), never inferred; read the "
    "data with dtype=str (pandas: dtype=str, keep_default_na=False) so that ids like 001, 1e5 "
    "or NA stay as written"
)

RUNS_REFUSED = {
    # 3 rows given, 1 written: the null qid's line and the null tag's were zero bytes
    "null qid and tag": (
        pd.DataFrame(
            {
                "qid": ["q", "q", None],
                "docno": ["d", "e", "x"],
                "rank": [1, 2, 1],
                "score": [2.0, 1.0, 1.0],
                "tag": ["t", None, "t"],
            }
        ),
        "row 2: qid is missing (NaN or None: was NA read as a missing value?)",
    ),
    "null tag": (
        RUN.assign(tag=["t", None]),
        "row 1: tag is missing (NaN or None: was NA read as a missing value?)",
    ),
    "float qid (written 1.0)": (RUN.assign(qid=[1.0, 1.0]), FLOAT_IDS),
    "every tag null (an empty file)": (
        RUN.assign(tag=[None, None]),
        "tag column has type null: ids must be strings (or integers), never inferred; read "
        "the data with dtype=str (pandas: dtype=str, keep_default_na=False) so that ids like "
        "001, 1e5 or NA stay as written",
    ),
    "NaN score": (RUN.assign(score=[np.nan, 1.0]), "row 0: score is missing"),
    "infinite score": (RUN.assign(score=[np.inf, 1.0]), "row 0: score inf is not finite"),
    "boolean score (written 1/0)": (
        RUN.assign(score=[True, False]),
        "score column has type bool: expected numbers",
    ),
    "rank 1.7 (written 1)": (
        RUN.assign(rank=[1.7, 2.0]),
        "row 0: rank 1.7 is not a non-negative integer",
    ),
    "rank -5": (RUN.assign(rank=[-5, 1]), "row 0: rank -5 is not a non-negative integer"),
    "rank missing (IntCastingNaNError)": (
        RUN.assign(rank=pd.array([1, None], dtype="Int64")),
        "row 1: rank is missing",
    ),
    "rank beyond a C long (OverflowError)": (
        RUN.assign(rank=["1", "99999999999999999999"]),
        "row 1: rank 99999999999999999999 is too large: ranks go up to 9223372036854775807 "
        "(a 64-bit integer, as trecbench and rank-based tools hold them; trec_eval skips "
        "the rank column)",
    ),
    "boolean rank": (
        RUN.assign(rank=[True, False]),
        "rank column has type bool: expected integers",
    ),
}


@pytest.mark.parametrize("name", ["out.run", "out.parquet"])
@pytest.mark.parametrize("case", RUNS_REFUSED)
def test_write_run_refuses_what_load_run_refuses(tmp_path, case, name):
    frame, message = RUNS_REFUSED[case]
    with pytest.raises(InputError) as refused:
        trecbench.write_run(frame, tmp_path / name)
    assert str(refused.value) == f"run DataFrame: {message}"
    assert not list(tmp_path.iterdir())


QRELS_REFUSED = {
    "grade 0.6 (written 0)": (
        QRELS.assign(rel=[0.6, 1.0]),
        "row 0: relevance 0.6 is not an integer",
    ),
    "grade 10**12": (
        QRELS.assign(rel=[10**12, 1]),
        "row 0: relevance 1000000000000 is above 1,000,000 (trec_eval's nDCG would run for hours)",
    ),
    "grade missing (IntCastingNaNError)": (
        QRELS.assign(rel=[np.nan, 1.0]),
        "row 0: relevance is missing",
    ),
    "boolean grades (written 1/0)": (
        QRELS.assign(rel=[True, False]),
        "relevance column has type bool: expected integers",
    ),
    "null docno": (QRELS.assign(docno=["d", None]), None),
}


@pytest.mark.parametrize("name", ["out.qrels", "out.parquet"])
@pytest.mark.parametrize("case", QRELS_REFUSED)
def test_write_qrels_refuses_what_load_qrels_refuses(tmp_path, case, name):
    frame, message = QRELS_REFUSED[case]
    message = message or "row 1: docno is missing (NaN or None: was NA read as a missing value?)"
    with pytest.raises(InputError) as refused:
        trecbench.write_qrels(frame, tmp_path / name)
    assert str(refused.value) == f"qrels DataFrame: {message}"
    assert not list(tmp_path.iterdir())


def test_a_document_listed_twice_is_refused_as_evaluate_refuses_it(tmp_path):
    # trec_eval: "duplicate docs" for a run or qrels listing a document twice in a topic
    twice = RUN.assign(docno=["d", "d"])
    with pytest.raises(DuplicateError) as refused:
        trecbench.write_run(twice, tmp_path / "out.run")
    assert (
        str(refused.value) == "run DataFrame: row 1: duplicate docs d for topic q (first at row 0)"
    )
    records = [{"qid": "q", "docno": "d", "score": s} for s in (1.0, 2.0)]
    with pytest.raises(DuplicateError, match="^run records: record 1: duplicate docs d "):
        trecbench.write_run(records, tmp_path / "out.run")
    (tmp_path / "twice.run").write_text("q Q0 d 1 2 t\nq Q0 d 2 1 t\n")
    with pytest.raises(DuplicateError) as refused:
        trecbench.write_run(str(tmp_path / "twice.run"), tmp_path / "out.run")
    assert str(refused.value).endswith(
        "twice.run:2: duplicate docs d for topic q (first on line 1)"
    )
    with pytest.raises(DuplicateError) as refused:
        trecbench.write_qrels(QRELS.assign(docno=["d", "d"]), tmp_path / "out.qrels")
    assert (
        str(refused.value)
        == "qrels DataFrame: row 1: duplicate docs d for topic q (first at row 0)"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["twice.run"]
    # once per subtopic: what the diversity measures judge, written as it is
    subtopics = QRELS.assign(docno=["d", "d"], iter=["1", "2"])
    trecbench.write_qrels(subtopics, tmp_path / "out.qrels")
    assert (tmp_path / "out.qrels").read_text() == "q 1 d 1\nq 2 d 0\n"


def test_ranks_are_written_as_given_when_they_are_ranks(tmp_path):
    # zero-based (as PyTerrier numbers them), integral floats, integer text: as given
    for ranks, written in (([0, 1], "0 1"), ([1.0, 2.0], "1 2"), (["1", "02"], "1 2")):
        trecbench.write_run(RUN.assign(rank=ranks), tmp_path / "out.run")
        lines = (tmp_path / "out.run").read_text().splitlines()
        assert " ".join(line.split("\t")[3] for line in lines) == written


PYTERRIER = RUN.drop(columns="tag")  # PyTerrier's qid, docno, score, rank: no tag


@pytest.mark.parametrize("tagged", [True, False], ids=["tag", "PyTerrier, no tag"])
def test_a_rank_column_is_written_as_given_with_or_without_a_tag(tmp_path, tagged):
    # reviewer 436: without a tag column the ranks were replaced by 1..n (rows re-sorted)
    # and 1.7 or -5 written silently; a rank column given is written as given and checked
    # the same way, the tag defaulting to "run"
    frame, tag = (RUN, "t") if tagged else (PYTERRIER, "run")
    out = tmp_path / "out.run"
    for ranks, written in (([0, 1], "0 1"), ([5, 9], "5 9")):
        trecbench.write_run(frame.assign(score=[0.1, 0.5], rank=ranks), out)
        rows = [line.split("\t") for line in out.read_text().splitlines()]
        assert [row[2] for row in rows] == ["d", "e"]  # the rows' order, not the scores'
        assert " ".join(row[3] for row in rows) == written
        assert {row[5] for row in rows} == {tag}
    out.unlink()
    for ranks, shown in (([1.7, 2.0], "1.7"), ([-5, 1], "-5")):
        with pytest.raises(InputError) as refused:
            trecbench.write_run(frame.assign(rank=ranks), out)
        message = f"run DataFrame: row 0: rank {shown} is not a non-negative integer"
        assert str(refused.value) == message
        assert not list(tmp_path.iterdir())


def test_a_table_made_with_a_missing_value_is_refused_not_dropped():
    # a line holding a null field was joined into a null line: zero bytes, the row gone
    from trecbench.files import run_bytes

    table = pa.table(
        {
            "qid": ["q", "q"],
            "docno": ["d", "e"],
            "rank": [1, 2],
            "score": [2.0, 1.0],
            "tag": ["t", None],
        }
    )
    with pytest.raises(OutputError, match="^row 1: the tag is missing"):
        run_bytes(table)


# ids no line of TREC text holds, as trecbench's readers and trec_eval read them: a '#' qid
# is a comment line to trec_eval 10.0 (gone from score --compat 10.0), a BOM, a C0 control,
# U+00A0, U+0085, U+2028 and a zero-width space are flagged by validate (R23, R2, R6)
UNWRITABLE = {
    "#q": ("qid", "a leading '#': trec_eval 10.0 reads the line as a comment"),
    "\ufeffq": ("qid", "U+FEFF, a control or invisible character"),
    "d\x1c": ("docno", "U+001C, a control or invisible character"),
    "d\u00a0": ("docno", "U+00A0, a control or invisible character"),
    "d\u0085": ("docno", "U+0085, a control or invisible character"),
    "d\u2028": ("docno", "U+2028, a control or invisible character"),
    "d\u200b": ("docno", "U+200B, a control or invisible character"),
    "d\x7f": ("docno", "U+007F, a control or invisible character"),
}


@pytest.mark.parametrize("kind", ["run", "qrels"])
@pytest.mark.parametrize("text", UNWRITABLE)
def test_ids_no_trec_line_holds_are_refused_pointing_to_the_escaping(tmp_path, text, kind):
    role, why = UNWRITABLE[text]
    frame = (RUN if kind == "run" else QRELS).copy()
    frame[role] = [text, text] if role == "qid" else [text, "e"]
    write = trecbench.write_run if kind == "run" else trecbench.write_qrels
    where = "a TREC run" if kind == "run" else "TREC qrels"
    with pytest.raises(OutputError) as refused:
        write(frame, tmp_path / f"out.{kind}")
    assert str(refused.value).startswith(f"{where} cannot hold the {role} {text!r} ({why}")
    assert str(refused.value).endswith(
        f": escape it (trecbench.ids.escape_id, as convert does) or rename it in the {kind}"
    )
    assert not list(tmp_path.iterdir())
    # escaped as convert escapes it: written, and read back as the escaped id, reversibly
    escaped = frame.assign(**{role: frame[role].map(escape_id)})
    write(escaped, tmp_path / f"out.{kind}")
    back = (trecbench.read_run if kind == "run" else trecbench.read_qrels)(tmp_path / f"out.{kind}")
    assert [unescape_id(one) for one in back[role]] == frame[role].tolist()


def test_a_hash_inside_an_id_or_starting_a_docno_is_written():
    # only a line's first field starting with '#' makes a comment line
    from trecbench.files import run_bytes

    frame = RUN.assign(qid=["q#1", "q#1"], docno=["#d", "e"])
    assert run_bytes(frame) == b"q#1\tQ0\t#d\t1\t2\tt\nq#1\tQ0\te\t2\t1\tt\n"
