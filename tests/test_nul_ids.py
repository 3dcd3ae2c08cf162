"""An id holding a NUL (qid, docno, tag, iteration) is refused by every reader of a table,
a dict or records, and by the JSONL reader, at its row or line (R31): trec_eval's and
pytrec_eval's C strings end at the NUL, so ``'q\\x00'`` was read as ``'q'`` (two topics
merged, values depending on the measures asked, pytrec_eval aborting the process on
bpref). TREC text refuses the NUL byte on its own (R23)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import ir_measures
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import trecbench
from trecbench.errors import InputError

RUN = {"q": {"d": 1.0}}
QRELS = {"q": {"d": 1}}
ROOT = Path(__file__).resolve().parent.parent


def _refused(qrels, run, where: str, shown: str) -> str:
    with pytest.raises(InputError) as caught:
        trecbench.evaluate(qrels, run, ["P@1"])  # bpref: see the tests in subprocesses
    message = str(caught.value)
    assert caught.value.rule == "R31" and "\n" not in message and "\x00" not in message
    assert f"{where}: " in message and f"{shown} holds a NUL (R31)" in message
    assert "C strings end at a NUL" in message
    return message


@pytest.mark.parametrize(
    ("qrels", "run", "where", "shown"),
    [
        ({"q": {"d": 1}, "q\x00": {"d": 0}}, RUN, "query 'q\\x00', document 'd'", "qid 'q\\x00'"),
        ({"q": {"d\x00a": 1}}, RUN, "query 'q', document 'd\\x00a'", "docno 'd\\x00a'"),
        (QRELS, {"q": {"d": 1.0, "\x00": 2.0}}, "query 'q', document '\\x00'", "docno '\\x00'"),
    ],
)
def test_a_dict(qrels, run, where, shown):
    message = _refused(qrels, run, where, shown)
    assert "read it as 'q'" in message or "read it as 'd'" in message or "as ''" in message


def test_dataframes_and_arrow_tables_name_the_row():
    frame = pd.DataFrame({"qid": ["q", "q\x00"], "docno": ["d", "d"], "rel": [1, 0]})
    _refused(frame, RUN, "qrels DataFrame: row 1", "qid 'q\\x00'")
    run = pd.DataFrame({"qid": ["q", "q"], "docno": ["d", "e\x00"], "score": 1.0}, index=[7, 9])
    _refused(QRELS, run, "row 9", "docno 'e\\x00'")
    tagged = pd.DataFrame({"qid": ["q"], "docno": ["d"], "score": [1.0], "tag": ["t\x00"]})
    _refused(QRELS, tagged, "row 0", "tag 't\\x00'")
    subtopic = pd.DataFrame({"qid": ["q"], "iteration": ["s\x00"], "docno": ["d"], "rel": [1]})
    _refused(subtopic, RUN, "row 0", "iteration 's\\x00'")
    category = frame.astype({"qid": "category"})
    _refused(category, RUN, "row 1", "qid 'q\\x00'")
    large = pa.table(
        {"qid": pa.array(["q", "q\x00"], pa.large_string()), "docno": ["d", "d"], "rel": [1, 0]}
    )
    _refused(large, RUN, "qrels table: row 1", "qid 'q\\x00'")


def test_records_ir_measures_and_dicts():
    qrels = [ir_measures.Qrel("q", "d", 1), ir_measures.Qrel("q", "d\x00b", 0)]
    # named by the record's own fields, as a dict record's keys are (fix-339)
    _refused(qrels, RUN, "record 1", "doc_id 'd\\x00b'")
    scored = [ir_measures.ScoredDoc("q", "d", 1.0), ir_measures.ScoredDoc("q\x00", "d", 1.0)]
    _refused(QRELS, scored, "record 1", "query_id 'q\\x00'")
    dicts = [{"query_id": "q", "doc_id": "d\x00", "relevance": 1}]
    _refused(dicts, RUN, "record 0", "doc_id 'd\\x00'")


def test_parquet_and_jsonl_files(tmp_path):
    qrels = tmp_path / "q.parquet"
    pq.write_table(pa.table({"qid": ["q", "q\x00"], "docno": ["d", "d"], "rel": [1, 0]}), qrels)
    _refused(str(qrels), RUN, "q.parquet: row 2", "qid 'q\\x00'")
    run = tmp_path / "run.jsonl"
    rows = [{"qid": "q", "docno": "d", "score": 1.0}, {"qid": "q", "docno": "e\x00", "score": 2.0}]
    run.write_text("".join(json.dumps(row) + "\n" for row in rows))
    _refused(QRELS, str(run), "run.jsonl:2", "docno 'e\\x00'")


def test_a_jsonl_run_read_in_blocks_names_the_line_of_a_later_block(tmp_path):
    run = tmp_path / "run.jsonl"
    rows = [{"qid": f"q{i // 100}", "docno": f"d{i}", "score": 1.0} for i in range(30000)]
    rows[29000]["tag"] = "t\x00"
    run.write_text("".join(json.dumps(row) + "\n" for row in rows))
    with pytest.raises(InputError) as caught:
        trecbench.evaluate({"q0": {"d0": 1}}, str(run), ["P@1"], memory=1)
    assert caught.value.line == 29001 and caught.value.rule == "R31"


def _subprocess(arguments: list[str]) -> subprocess.CompletedProcess:
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, *arguments]
    return subprocess.run(command, capture_output=True, text=True, env=environment)


def test_the_api_never_aborts():
    """bpref made pytrec_eval assert and abort the process (exit 134) on two qids equal up
    to a NUL: now an InputError."""
    probe = (
        "import trecbench\n"
        "try: trecbench.evaluate({'q': {'d': 1}, 'q\\x00': {'d': 0}}, "
        "{'q': {'d': 1.0}, 'q\\x00': {'d': 1.0}}, ['P@1', 'bpref'])\n"
        "except trecbench.InputError as error: print(error.rule)"
    )
    done = _subprocess(["-c", probe])
    assert (done.returncode, done.stdout) == (0, "R31\n"), done.stderr


def test_the_cli_refuses_in_one_line_and_never_aborts(tmp_path):
    """The CLI aborted too (exit 134): now one line, exit 2, for score; validate says it
    as its one finding of the file (an error stopping validate had no report for the
    call's other files)."""
    qrels, run = tmp_path / "nul.qrels.parquet", tmp_path / "nul.run.parquet"
    pq.write_table(pa.table({"qid": ["q", "q\x00"], "docno": ["d", "d"], "rel": [1, 0]}), qrels)
    pq.write_table(pa.table({"qid": ["q", "q\x00"], "docno": ["d", "d"], "score": [1.0, 1.0]}), run)
    said = "row 2: qid 'q\\x00' holds a NUL (R31)"
    done = _subprocess(
        ["-m", "trecbench", "score", "-m", "P.1", "-m", "bpref", str(qrels), str(run)]
    )
    assert done.returncode == 2, done.stderr
    assert done.stdout == "" and done.stderr.count("\n") == 1 and said in done.stderr
    done = _subprocess(["-m", "trecbench", "validate", str(run)])
    assert (done.returncode, done.stderr) == (2, ""), done.stdout
    assert done.stdout.startswith(f"{run}: error[R31]: {said}") and done.stdout.count("\n") == 2


@pytest.mark.parametrize("profile", ["default", "strict", "lenient", "rtask"])
def test_validate_says_a_nul_is_an_error_under_every_profile(tmp_path, profile):
    # R31's other characters are a warning under lenient, which score reads exactly; a NUL
    # was one too (R31): lenient said OK, exit 0, to a JSONL or Parquet file score refuses
    qrels, run = tmp_path / "nul.qrels.parquet", tmp_path / "nul.run.parquet"
    pq.write_table(pa.table({"qid": ["q"], "iter": ["s\x00"], "docno": ["d"], "rel": [1]}), qrels)
    pq.write_table(pa.table({"qid": ["q", "q"], "docno": ["d", "e\x00"], "score": [1.0, 1.0]}), run)
    jsonl = tmp_path / "nul.jsonl"
    rows = [
        {"qid": "q", "docno": "d", "score": 1.0},
        {"qid": "q", "docno": "e", "score": 1.0, "tag": "t\x00"},
    ]
    jsonl.write_text("".join(json.dumps(row) + "\n" for row in rows))
    arguments = ["validate", "--profile", profile, "--qrels", str(qrels), str(run), str(jsonl)]
    done = _subprocess(["-m", "trecbench", *arguments])
    assert (done.returncode, done.stderr) == (2, ""), done.stdout
    *found, summary = done.stdout.splitlines()
    assert [line.split(" holds a NUL")[0] for line in found] == [
        f"{qrels}: error[R31]: row 1: iter 's\\x00'",
        f"{run}: error[R31]: row 2: docno 'e\\x00'",
        f"{jsonl}:2:line: error[R31]: tag 't\\x00'",
    ]
    assert summary == "FAILED: 3 file(s), 2 lines: 3 error(s), 0 warning(s), 0 info"
    result = trecbench.validate_run(str(run), profile=profile)
    assert [(f.check, f.severity) for f in result.findings] == [("R31.nul", "error")]


def test_first_nul_finds_the_row_in_slices_empty_and_large_strings():
    from trecbench.inputs.tables import first_nul

    values = pa.array(["a", "", "", "b\x00", "c", "\x00"])
    assert first_nul(values) == 3
    assert first_nul(values.slice(4)) == 1
    assert first_nul(values.slice(0, 3)) is None
    assert first_nul(values.slice(1, 3)) == 2  # after the empty values, at their offset
    assert first_nul(pa.array(["x\x00"], pa.large_string())) == 0
    assert first_nul(pa.array([], pa.string())) is None
    assert first_nul(pa.array(["", ""])) is None


def test_convert_still_percent_escapes_a_nul(tmp_path):
    """convert writes such an id as %00 (reversible), never into a C string: kept."""
    source = tmp_path / "run.json"
    source.write_text(json.dumps({"q\x00": {"d\x00a": 1.0}}))
    conversion = trecbench.convert_dict(source)
    assert conversion.runs[0].table["qid"].tolist() == ["q%00"]


@pytest.mark.parametrize("writer", ["qrels", "run"])
def test_the_parquet_writers_refuse_what_no_reader_takes(writer, tmp_path):
    # write_qrels and write_run wrote 'd\x00' to Parquet, which every reader then refused:
    # refused as every reader refuses it, in the same line
    from trecbench.errors import InputError

    target = tmp_path / "x.parquet"
    if writer == "qrels":
        frame = pd.DataFrame({"qid": ["q", "q"], "docno": ["d", "d\x00"], "rel": [1, 0]})
        write = trecbench.write_qrels
    else:
        frame = pd.DataFrame(
            {"qid": ["q"], "docno": ["d"], "rank": [1], "score": [1.0], "tag": ["t\x00"]}
        )
        write = trecbench.write_run
    nul = r"DataFrame: row \d: (docno|tag) '\w\\x00' holds a NUL \(R31\)"
    with pytest.raises(InputError, match=nul):
        write(frame, target)
    assert not target.exists()


def test_a_duplicate_in_an_empty_subtopic_names_it():
    # "duplicate docs d1 for topic 1": read as an ordinary duplicate, which the diversity
    # measures allow in two subtopics
    from trecbench.errors import DuplicateError

    qrels = pd.DataFrame(
        {"qid": ["1", "1"], "iter": ["", ""], "docno": ["d1", "d1"], "rel": [1, 0]}
    )
    with pytest.raises(DuplicateError, match="for topic 1 subtopic '' "):
        trecbench.evaluate(qrels, {"1": {"d1": 1.0}}, ["alpha_nDCG@10"])
