"""The registry of input formats (trecbench.inputs.formats): detection, and a capability
a format lacks refused in one line naming the file."""

from __future__ import annotations

import dataclasses

import pyarrow as pa
import pytest

from trecbench import evaluate
from trecbench.errors import InputError
from trecbench.inputs import formats, trec_text
from trecbench.inputs.streams import sniff


def test_parquet_is_told_by_content_and_text_takes_the_rest(tmp_path):
    import pyarrow.parquet as pq

    parquet = tmp_path / "run.txt"  # the name does not make it text
    pq.write_table(pa.table({"qid": ["q1"], "docno": ["d1"], "score": [1.0]}), parquet)
    text = tmp_path / "run.parquet"  # nor Parquet
    text.write_text("q1 Q0 d1 1 1.0 t\n")
    assert sniff(parquet) == (None, formats.PARQUET)
    assert sniff(text) == (None, formats.TREC_TEXT)


# a run and qrels whose first qid starts PAR1, Parquet's magic (the run ends with it too: a
# last line without a newline whose tag is PAR1), and what trec_eval 9.0.8 prints for them
# plain (-q -m P.2 -m num_ret -m recip_rank)
PAR1_RUN = b"PAR1x Q0 d1 1 2.0 r\nPAR1x Q0 d2 2 1.0 r\nq2 Q0 d3 1 1.0 PAR1"
PAR1_QRELS = b"PAR1x 0 d1 0\nPAR1x 0 d2 1\nq2 0 d3 1\n"
PAR1_TREC_EVAL_908 = (
    "num_ret               \tPAR1x\t2\n"
    "recip_rank            \tPAR1x\t0.5000\n"
    "P_2                   \tPAR1x\t0.5000\n"
    "num_ret               \tq2\t1\n"
    "recip_rank            \tq2\t1.0000\n"
    "P_2                   \tq2\t0.5000\n"
    "num_ret               \tall\t3\n"
    "recip_rank            \tall\t0.7500\n"
    "P_2                   \tall\t0.5000\n"
)


@pytest.mark.parametrize("compression", ["plain", "gzip", "bz2"])
def test_text_whose_first_qid_starts_with_parquets_magic_is_trec_text(tmp_path, compression):
    # plain, both were read as Parquet ("not a readable Parquet file: ... magic bytes not
    # found in footer"); compressed, refused as "compressed Parquet" (R27)
    import bz2
    import gzip
    import subprocess
    import sys

    from trecbench import load_qrels, load_run, validate_qrels, validate_run

    pack = {"plain": bytes, "gzip": gzip.compress, "bz2": bz2.compress}[compression]
    run, qrels = tmp_path / "par.run", tmp_path / "par.qrels"
    run.write_bytes(pack(PAR1_RUN))
    qrels.write_bytes(pack(PAR1_QRELS))
    assert sniff(run)[1] is sniff(qrels)[1] is formats.TREC_TEXT
    assert load_run(str(run)).table.column("qid").to_pylist() == ["PAR1x", "PAR1x", "q2"]
    assert load_qrels(str(qrels)).table.column("qid").to_pylist() == ["PAR1x", "PAR1x", "q2"]
    assert "R27" not in {finding.rule for finding in validate_run(run).findings}
    assert validate_qrels(qrels).findings == []
    lines = [list(tokens.line) for tokens in trec_text.iter_tokens(run, chunk_bytes=8)]
    assert sum(lines, []) == [1, 2, 3]  # read from its start again after a first block
    measures = ["-m", "P.2", "-m", "num_ret", "-m", "recip_rank"]
    done = subprocess.run(
        [sys.executable, "-m", "trecbench", "score", "-q", *measures, str(qrels), str(run)],
        capture_output=True,
        check=False,
    )
    assert (done.returncode, done.stdout.decode(), done.stderr) == (0, PAR1_TREC_EVAL_908, b"")


@pytest.mark.parametrize("compression", ["plain", "gzip"])
def test_a_truncated_parquet_file_is_a_parquet_file_cut_short(tmp_path, compression):
    # read as TREC text after the PAR1-at-both-ends rule: a screen of NUL-byte findings
    import gzip
    import subprocess
    import sys

    import pyarrow.parquet as pq

    from trecbench import load_run
    from trecbench.errors import InputError

    whole = tmp_path / "whole.parquet"
    pq.write_table(pa.table({"qid": ["q1"], "docno": ["d1"], "score": [1.0]}), whole)
    cut = whole.read_bytes()[:300]
    assert cut[4:5] == b"\x15"  # a page header: what follows the magic in a Parquet file
    run = tmp_path / "cut.parquet"
    run.write_bytes(cut if compression == "plain" else gzip.compress(cut))
    assert sniff(run)[1] is (formats.PARQUET if compression == "plain" else formats.TREC_TEXT)
    with pytest.raises(InputError) as refused:
        load_run(str(run))
    expected = "not a readable Parquet file" if compression == "plain" else "compressed Parquet"
    assert expected in str(refused.value)
    assert "NUL" not in str(refused.value)
    done = subprocess.run(
        [sys.executable, "-m", "trecbench", "validate", str(run)], capture_output=True, text=True
    )
    said = [line for line in (done.stdout + done.stderr).splitlines() if expected in line]
    assert done.returncode == 2 and len(said) == 1, (done.stdout, done.stderr)
    assert "R23" not in done.stdout  # no NUL-byte findings of a binary "line 1"


def test_a_missing_capability_is_refused_in_one_line(tmp_path, monkeypatch):
    """A format without a block reader: a large run of it under --memory is refused,
    naming the file, rather than read as TREC text."""
    import pyarrow.parquet as pq

    from trecbench import memory

    run = tmp_path / "run.parquet"
    pq.write_table(
        pa.table({"qid": ["q1"] * 9, "docno": list("abcdefghi"), "score": [1.0] * 9}), run
    )
    qrels = tmp_path / "qrels"
    qrels.write_text("q1 0 a 1\n")
    whole = dataclasses.replace(
        formats.PARQUET, capabilities=formats.PARQUET.capabilities - {"read_blocks"}
    )
    monkeypatch.setattr(formats, "FORMATS", (whole, formats.TREC_TEXT))
    assert evaluate(str(qrels), str(run), ["P.5"]).per_query is not None  # read whole
    monkeypatch.setattr(memory, "BLOCK_LINES", 3)
    monkeypatch.setattr(memory, "FEWEST_BLOCK_LINES", 3)
    with pytest.raises(InputError) as raised:
        evaluate(str(qrels), str(run), ["P.5"], memory=1)
    assert str(raised.value) == f"{run}: Parquet runs cannot be read in blocks (--memory)"


def test_a_kind_a_format_does_not_hold_is_refused():
    only_runs = dataclasses.replace(formats.TREC_TEXT, kinds=("run",))
    held = r"^q.txt: TREC text files hold run, not qrels: give qrels as Parquet or TREC text, "
    with pytest.raises(InputError, match=held):
        only_runs.reader("read_whole", "q.txt", "qrels")


@pytest.mark.parametrize(
    ("lines", "cited"),
    [
        # the rows numbered instead (they were said to be lines: ":2: ... (first on line 1)")
        ([0, 0, 0], ": row 2: duplicate docs d1 for topic q1 (first at row 1)"),  # was 2**63 - 1
        ([5, -3, 0], ": row 2: duplicate docs d1 for topic q1 (first at row 1)"),  # was line -3
        ([4, 4, 9], ": row 2: duplicate docs d1 for topic q1 (first at row 1)"),  # one line, 2 rows
        ([7, 3, 9], ":7: duplicate docs d1 for topic q1 (first on line 3)"),  # lines, sorted anew
    ],
)
def test_a_line_column_is_taken_only_when_it_holds_line_numbers(tmp_path, lines, cited):
    import pyarrow.parquet as pq

    path = tmp_path / "dup.parquet"
    columns = {"qid": ["q1"] * 3, "docno": ["d1", "d1", "d2"], "score": [1.0, 0.5, 0.2]}
    pq.write_table(pa.table(columns | {"line": lines}), path)
    qrels = tmp_path / "q"
    qrels.write_text("q1 0 d1 1\n")
    with pytest.raises(InputError) as raised:
        evaluate(str(qrels), str(path), ["P.5"])
    assert str(raised.value) == f"{path}{cited}"


@pytest.mark.parametrize("kind", ["DataFrame", "table"])
@pytest.mark.parametrize(
    ("lines", "cited"),
    [
        # read_run's frames concatenated: each line twice, the rows numbered; they were cited
        # as lines (":3: ... (first on line 1)"), an Arrow table's lines as rows ("row 8")
        ([1, 2, 1], ": row 2: duplicate docs d1 for topic q1 (first at row 0)"),
        ([7, 8, 9], ":9: duplicate docs d1 for topic q1 (first on line 7)"),
    ],
)
def test_a_held_run_s_line_column_is_cited_only_when_it_holds_line_numbers(kind, lines, cited):
    import pandas as pd

    columns = {"qid": ["q1"] * 3, "docno": ["d1", "d2", "d1"], "score": [1.0, 0.5, 0.2]}
    run = pd.DataFrame(columns | {"line": lines})
    if kind == "table":
        run = pa.Table.from_pandas(run, preserve_index=False)
    with pytest.raises(InputError) as raised:
        evaluate({"q1": {"d1": 1}}, run, ["P.5"])
    assert str(raised.value) == f"run 'run1' (run {kind}){cited}"


def _parquet_with_bytes(path, columns: dict, mark: bytes, written: bytes) -> None:
    """A Parquet file of ``columns`` whose one value ``mark`` is replaced by the bytes
    ``written`` (plain pages: the value is stored as it is)."""
    import pyarrow.parquet as pq

    plain = {"compression": "NONE", "use_dictionary": False, "write_statistics": False}
    pq.write_table(pa.table(columns), path, **plain)
    data = path.read_bytes()
    assert data.count(mark) == 1 and len(mark) == len(written)
    path.write_bytes(data.replace(mark, written))


@pytest.mark.parametrize(
    ("kind", "column", "shown"),
    [
        ("run", "docno", r"docno b'd\xff\xfe2'"),
        ("run", "qid", r"qid b'd\xff\xfe2'"),
        ("run", "tag", r"tag b'd\xff\xfe2'"),
        ("run", "score", r"score b'd\xff\xfe2'"),  # text scores: it was exit 70
        ("qrels", "rel", r"relevance b'd\xff\xfe2'"),
    ],
)
@pytest.mark.parametrize("blocks", [False, True], ids=["whole", "blocks"])
def test_invalid_utf8_in_a_parquet_column_is_refused_naming_the_row(
    tmp_path, kind, column, shown, blocks, monkeypatch
):
    # Parquet's reader does not check a string's UTF-8: score, validate and fuse took
    # such an id, and fuse wrote a run score then refused (R23)
    values = ["1", "1", "1"]
    columns = {"qid": ["q1"] * 3, "docno": ["d1", "d2", "d3"]}
    columns |= {"score": values, "tag": ["t"] * 3} if kind == "run" else {"rel": values}
    columns[column] = [columns[column][0], "MARK", columns[column][2]]
    path = tmp_path / "bad.parquet"
    _parquet_with_bytes(path, columns, b"MARK", b"d\xff\xfe2")
    qrels, run = (str(path), {"q1": {"d1": 1.0}}) if kind == "qrels" else (_QRELS, str(path))
    if blocks:  # a batch a row: the bad one is the second batch's first
        from trecbench import memory
        from trecbench.inputs import parquet

        monkeypatch.setattr(parquet, "BATCH_ROWS", 1)
        for name, value in (
            ("BLOCK_LINES", 1),
            ("FEWEST_BLOCK_LINES", 1),
            ("FEWEST_READ_BYTES", 1),
        ):
            monkeypatch.setattr(memory, name, value)
    with pytest.raises(InputError) as raised:
        evaluate(qrels, run, ["P.5"], memory=1 if blocks else None)
    assert str(raised.value) == f"{path}: row 2: {shown} is invalid UTF-8"
    assert raised.value.rule == "R23"


_QRELS = {"q1": {"d1": 1}}


def test_validate_and_fuse_refuse_a_parquet_run_holding_invalid_utf8(tmp_path, capsys):
    from trecbench.cli import run

    path = tmp_path / "bad.parquet"
    columns = {"qid": ["q1", "q1"], "docno": ["d1", "MARK"], "score": [2.0, 1.0]}
    _parquet_with_bytes(path, columns, b"MARK", b"d\xff\xfe2")
    said = f"{path}: row 2: docno b'd\\xff\\xfe2' is invalid UTF-8"
    assert run(["validate", str(path)]) == 2  # it said OK
    # an error finding, as TREC text's invalid UTF-8 (R23); it stopped validate with no report
    found = capsys.readouterr().out.splitlines()[0]
    unread = "; nothing else of the file is checked"
    assert found == said.replace(": ", ": error[R23]: ", 1) + unread
    other, fused = tmp_path / "a.run", tmp_path / "fused.run"
    other.write_text("q1 Q0 d1 1 3 t\n")
    assert run(["fuse", str(path), str(other), "-o", str(fused)]) == 2
    assert capsys.readouterr().err == f"trecbench: {said}\n" and not fused.exists()


def _parquet(path, columns: dict) -> str:
    import pyarrow.parquet as pq

    pq.write_table(pa.table(columns), path)
    return str(path)


def test_a_duplicate_in_parquet_qrels_is_cited_by_its_rows(tmp_path):
    # "q.parquet:3: duplicate docs d1 for topic q1 (first on line 1)", where a Parquet
    # run's says "row 3: ... (first at row 1)": a Parquet file has rows, not lines
    judged = {"qid": ["q1"] * 3, "iter": ["0"] * 3, "docno": ["d1", "d2", "d1"], "rel": [1, 0, 1]}
    qrels = _parquet(tmp_path / "q.parquet", judged)
    run = tmp_path / "r"
    run.write_text("q1 Q0 d1 1 2 r\nq1 Q0 d2 2 1 r\n")
    for measure, subtopic in (("P.5", ""), ("alpha_nDCG@5", " subtopic 0")):
        with pytest.raises(InputError) as raised:
            evaluate(qrels, str(run), [measure])
        assert raised.value.exit_code == 4
        assert str(raised.value) == (
            f"{qrels}: row 3: duplicate docs d1 for topic q1{subtopic} (first at row 1)"
        )


def test_validate_cites_the_rows_of_a_parquet_file_as_rows(tmp_path):
    # R7, R11.unique, R20.split and Q5 said "(first at line 1)" of a Parquet file's rows
    from trecbench.validation import validate_qrels, validate_run

    ranked = {
        "qid": ["q1", "q1", "q2", "q1"],
        "docno": ["d1", "d1", "d3", "d4"],
        "rank": [1, 1, 1, 3],
        "score": [3.0, 2.0, 1.0, 1.0],
    }
    found = validate_run(_parquet(tmp_path / "r.parquet", ranked)).findings
    said = [(f.rule, f.line, f.message) for f in found]
    for citing in [
        ("R7", 2, "duplicate docno d1 in topic q1 (first at row 1); trec_eval stops with "
                  "'duplicate docs' (exit 4)"),
        ("R11", 2, "rank 1 appears twice in topic q1 (also row 1)"),
        ("R20", 4, "topic q1 comes back after other topics (first at row 1); list each topic "
                   "in one block"),
    ]:  # fmt: skip
        assert citing in said
    judged = {"qid": ["q1"] * 2, "iter": ["0"] * 2, "docno": ["d1", "d1"], "rel": [1, 0]}
    (duplicate,) = validate_qrels(_parquet(tmp_path / "q.parquet", judged)).findings
    assert (duplicate.line, duplicate.message) == (
        2, "duplicate judgment of d1 for topic q1 (first at row 1; conflicting grades 1 and 0)"
    )  # fmt: skip
    text = tmp_path / "q.txt"  # TREC text's lines stay lines
    text.write_text("q1 0 d1 1\nq1 0 d1 0\n")
    (duplicate,) = validate_qrels(str(text)).findings
    assert duplicate.message.endswith("(first at line 1; conflicting grades 1 and 0)")
