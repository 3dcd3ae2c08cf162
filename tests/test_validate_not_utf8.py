"""Ids of TREC text lines holding bytes that are not UTF-8 (R23.utf8) compared as trec_eval
compares them, byte for byte (:mod:`trecbench.invalid_utf8`): the docno ``a`` 0xFF ``b``
is not the docno ``a\\xffb`` its escape spells. Read with each bad byte as its escape
alone, the two were one id to every check comparing ids: a duplicate (R7, Q5), one topic,
a judged document (X4), an escape's order among topics (R20.order)."""

from __future__ import annotations

import os
import random
import subprocess

import pytest

from trecbench.cli import run
from trecbench.inputs.trec_text import tokenize
from trecbench.invalid_utf8 import shown, stored_bytes
from trecbench.report import input_record
from trecbench.validation import validate_files, validate_qrels, validate_run

TREC_EVAL = "/work/tools/te908/trec_eval"  # trec_eval 9.0.8, the reference
# the docno a\xffb (six characters) on line 1, the docno a, byte 0xFF, b on line 2
ESCAPE_AND_BYTE = b"1 Q0 a\\xffb 1 2.0 t\n1 Q0 a\xffb 2 1.0 t\n"
SAME_BYTES_TWICE = b"1 Q0 a\xffb 1 2.0 t\n1 Q0 a\xffb 2 1.0 t\n"
QRELS = b"1 0 a\\xffb 1\n1 0 zz 0\n"  # judges the six characters
MEASURES = ["-q", "-m", "num_ret", "-m", "num_rel_ret", "-m", "P.1,2", "-m", "map"]
# /work/tools/te908/trec_eval -q -m num_ret -m num_rel_ret -m P.1,2 -m map QRELS RUN, for
# RUN ESCAPE_AND_BYTE (two documents, no "duplicate docs"; the byte's unjudged) and for
# ESCAPE_AND_BYTE with line 2's docno b: alike, exit 0
TREC_EVAL_PRINTS = (
    "num_ret               \t1\t2\n"
    "num_rel_ret           \t1\t1\n"
    "map                   \t1\t1.0000\n"
    "P_1                   \t1\t1.0000\n"
    "P_2                   \t1\t0.5000\n"
    "num_ret               \tall\t2\n"
    "num_rel_ret           \tall\t1\n"
    "map                   \tall\t1.0000\n"
    "P_1                   \tall\t1.0000\n"
    "P_2                   \tall\t0.5000\n"
)
# a file read whole, a line a chunk; the fast path (one space between fields) and the
# general one (two spaces on line 1)
READINGS = [
    pytest.param(1 << 20, b" ", id="whole"),
    pytest.param(24, b" ", id="line-a-chunk"),
    pytest.param(1 << 20, b"  ", id="irregular"),
]


def _spaced(text: bytes, first_line_blank: bytes) -> bytes:
    first, rest = text.split(b"\n", 1)
    return first.replace(b" ", first_line_blank) + b"\n" + rest


@pytest.mark.parametrize(("chunk", "blank"), READINGS)
def test_a_byte_and_its_escape_are_two_docnos(tmp_path, chunk, blank):
    path = tmp_path / "r.run"
    path.write_bytes(_spaced(ESCAPE_AND_BYTE, blank))
    found = validate_run(path, chunk_bytes=chunk).findings
    assert [(f.check, f.line) for f in found if f.rule in ("R7", "R23")] == [("R23.utf8", 2)]


@pytest.mark.parametrize(("chunk", "blank"), READINGS)
def test_the_same_bytes_twice_are_a_duplicate_shown_as_escapes(tmp_path, chunk, blank):
    path = tmp_path / "r.run"
    path.write_bytes(_spaced(SAME_BYTES_TWICE, blank))
    (duplicate,) = [f for f in validate_run(path, chunk_bytes=chunk).findings if f.rule == "R7"]
    assert duplicate.line == 2
    assert duplicate.message.startswith("duplicate docno a\\xffb in topic 1 (first at line 1)")
    assert duplicate.message.endswith("; an id's bytes that are not UTF-8 are shown as \\xNN")
    assert "\n" not in duplicate.message


def test_qrels_judging_a_byte_and_its_escape_judge_two_documents(tmp_path):
    path = tmp_path / "q.qrels"
    path.write_bytes(b"1 0 a\\xffb 1\n1 0 a\xffb 0\n")
    assert "Q5" not in {f.rule for f in validate_qrels(path).findings}
    path.write_bytes(b"1 0 a\xffb 1\n1 0 a\xffb 0\n")
    assert [f.line for f in validate_qrels(path).findings if f.rule == "Q5"] == [2]


def test_a_byte_is_not_judged_by_its_escape(tmp_path):
    run_path, qrels_path = tmp_path / "r.run", tmp_path / "q.qrels"
    run_path.write_bytes(ESCAPE_AND_BYTE)
    qrels_path.write_bytes(QRELS)
    _, result = validate_files([run_path], qrels=qrels_path)
    (unjudged,) = [f.message for f in result.findings if f.rule == "X4"]
    assert unjudged.startswith("1 of 2 documents in the top 10 of judged topics is unjudged")


def test_a_byte_and_its_escape_are_two_topics(tmp_path):
    path = tmp_path / "r.run"
    path.write_bytes(b"1\xff Q0 d 1 2 t\n1\\xff Q0 d 1 2 t\n")
    (result,) = validate_files([path])
    assert result.counts["topics"] == 2
    assert input_record(path, "run")["topics"] == 2


@pytest.mark.parametrize(
    ("text", "descent"),
    [
        (b"a Q0 d 1 1 t\n\x80 Q0 d 1 1 t\n", None),  # 0x61 < 0x80, as trec_eval orders them
        (b"\x80 Q0 d 1 1 t\na Q0 d 1 1 t\n", 2),  # its escape, \x80, was below a
    ],
)
def test_topics_are_ordered_by_their_bytes(tmp_path, text, descent):
    path = tmp_path / "r.run"
    path.write_bytes(text)
    found = validate_run(path).findings
    assert [f.line for f in found if f.check == "R20.order"] == ([descent] if descent else [])


def test_a_field_with_a_byte_keeps_it():
    tokens = tokenize(ESCAPE_AND_BYTE + b"1 Q0 \xc3\xa9\xe9 3 0.5 t\xfe\n")
    escape, byte, mixed = tokens.fields[2].to_pylist()
    assert escape == "a\\xffb" and byte != escape
    assert stored_bytes(byte) == b"a\xffb" and shown(byte) == "a\\xffb"
    assert stored_bytes(mixed) == b"\xc3\xa9\xe9" and shown(mixed) == "\u00e9\\xe9"
    assert tokens.fields[5].to_pylist()[2] != "t\\xfe"
    assert stored_bytes(tokens.fields[5][2].as_py()) == b"t\xfe"
    assert tokens.fields[0].to_pylist() == ["1", "1", "1"]  # the fields without one: as read


def test_score_matches_the_escape_and_refuses_the_byte(tmp_path, capsys):
    """trec_eval scores a docno of a byte that is not UTF-8 as its own document; score
    refuses the line (R23.utf8, an error in every profile: such an id never matches a
    judgment spelled in UTF-8) and matches the docno spelled as the escape."""
    qrels_path, run_path = tmp_path / "q.qrels", tmp_path / "r.run"
    qrels_path.write_bytes(QRELS)
    run_path.write_bytes(ESCAPE_AND_BYTE.replace(b"a\xffb", b"b"))
    assert run(["score", *MEASURES, str(qrels_path), str(run_path)]) == 0
    assert capsys.readouterr().out == TREC_EVAL_PRINTS
    run_path.write_bytes(ESCAPE_AND_BYTE)
    assert run(["score", *MEASURES, str(qrels_path), str(run_path)]) == 2
    assert capsys.readouterr().err == f"trecbench: {run_path}:2:line: error[R23]: invalid UTF-8\n"


@pytest.mark.skipif(not os.access(TREC_EVAL, os.X_OK), reason="trec_eval 9.0.8 not installed")
def test_trec_eval_reads_a_byte_and_its_escape_as_two_documents(tmp_path):
    """The independent source: trec_eval 9.0.8 compares the bytes (no 'duplicate docs'),
    and stops at the same bytes twice (exit 4)."""
    qrels_path, run_path = tmp_path / "q.qrels", tmp_path / "r.run"
    qrels_path.write_bytes(QRELS)
    for text, code in ((ESCAPE_AND_BYTE, 0), (SAME_BYTES_TWICE, 4)):
        run_path.write_bytes(text)
        done = subprocess.run(
            [TREC_EVAL, *MEASURES, str(qrels_path), str(run_path)], capture_output=True
        )
        assert done.returncode == code
        assert done.stdout.decode() == (TREC_EVAL_PRINTS if code == 0 else "")


@pytest.mark.parametrize("seed", range(20))
def test_the_lines_not_utf8_are_those_that_do_not_decode_and_keep_their_bytes(seed):
    """Each line decoded alone (a sequence never spans a newline, an ASCII byte); every
    field held as its bytes."""
    rng = random.Random(seed)
    pieces = [
        b"\n",
        b" ",
        b"a",
        b"\xc3\xa9",
        b"\xe2\x82\xac",
        b"\xff",
        b"\xc3",
        b"\x80",
        b"\xed\xa0\x80",
    ]
    data = b"".join(rng.choice(pieces) for _ in range(rng.randrange(60)))
    lines = data.split(b"\n")
    tokens = tokenize(data)
    assert tokens.bad_utf8_lines.tolist() == [
        number for number, line in enumerate(lines, 1) if not _decodes(line)
    ]
    for row, number in enumerate(tokens.line.tolist()):
        held = [field[row].as_py() for field in tokens.fields]
        assert [stored_bytes(text) for text in held if text is not None] == (
            lines[number - 1].split()[:6]
        )


def _decodes(line: bytes) -> bool:
    try:
        line.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def test_every_line_of_a_chunk_of_latin_1_lines_is_found_bad():
    """Every line of a chunk of Latin-1 lines is bad, each found (each bad line's search
    once decoded the rest of the chunk: time quadratic in its lines; its speed is
    ``make bench``'s to show, not a timed test's)."""
    data = b"".join(b"1 Q0 d\xe9%d %d 1 t\n" % (i, i + 1) for i in range(20_000))
    tokens = tokenize(data)
    assert tokens.bad_utf8_lines.tolist() == list(range(1, 20_001))  # line numbers
    assert stored_bytes(tokens.fields[2][-1].as_py()) == b"d\xe919999"
