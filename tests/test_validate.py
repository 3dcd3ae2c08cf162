"""trecbench validate: every bad input of validator-rules.md, its rule, severity and line."""

from __future__ import annotations

import bz2
import gzip
import itertools
import json
import lzma
import os
import random
import re
import subprocess
import sys
import zlib
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

import trecbench
from trecbench.cli import _register, cli, run
from trecbench.errors import InputError, OutputError, TrecbenchError, excerpt_plain
from trecbench.inputs.trec_text import tokenize
from trecbench.validation import (
    CHECKS,
    PROFILES,
    QrelsInfo,
    UnfixableError,
    fix_run,
    qrels_info,
    read_topics,
    report,
    validate_files,
    validate_qrels,
    validate_run,
)
from trecbench.validation.docs import render as render_rules
from trecbench.validation.duplicates import HashSet, SeenKeys
from trecbench.validation.small import SmallSettings, validate_small

E, W, I = "error", "warning", "info"  # noqa: E741
OK_RUN = b"q1 Q0 a 1 2 t\nq1 Q0 b 2 1 t\n"


def findings(data: bytes, kind: str = "run", **options):
    keep = 6 if kind == "run" else 4
    return trecbench.check_tokens(tokenize(data, "f", keep=keep), kind, **options)


def triples(found):
    return {(f.rule, f.severity, f.line) for f in found}


@pytest.mark.parametrize("start", ["first", "later"])
def test_a_byte_order_mark_starting_a_chunk_makes_a_topic_of_its_own(tmp_path, start):
    """trec_eval 9.0.8 (and 10.0) read a BOM starting a line as part of its qid: on this
    run, without the first line or with it, it printed num_ret 1 for q2 alone and exited
    0 (topic \ufeffq2 is not in its qrels, q2 0 d1 1): no duplicate, no 'duplicate docs'.
    Arrow's CSV reader, given a chunk starting with the BOM, dropped it (a false R7)."""
    data = "\ufeffq2 Q0 d1 1 10 t\nq2 Q0 d1 2 5 t\n".encode()
    if start == "later":
        data = b"q1 Q0 d0 1 1 t\n" + data
    path = tmp_path / "r.run"
    path.write_bytes(data)
    at = 2 if start == "later" else 1
    bom = ("R2" if start == "later" else "R23", at)  # an invisible character, or a BOM
    # q2 after \ufeffq2: its ranks start at 2, topics not in ascending order
    expected = {bom, ("R11", at + 1), ("R20", at + 1)}
    for chunk in (15, 1 << 20):  # the BOM's line starts a chunk: the second, or the first
        found = validate_run(path, chunk_bytes=chunk).findings
        assert {(f.rule, f.line) for f in found} == expected, chunk


# (case, bytes, options, expected (rule, severity, line)); line None = whole file
RUN_CASES = [
    # structure
    ("5 fields", b"q Q0 d 1 1.0\n", {}, ("R1", E, 1)),
    ("Q0 omitted", b"q1 Q0 a 1 2 t\nq1 b 2 1 t\n", {}, ("R1", E, 2)),
    ("tag with a space", b"q Q0 d 1 1.0 my tag\n", {}, ("R1", E, 1)),
    ("tag with a space, lenient", b"q Q0 d 1 1.0 my tag\n", {"profile": "lenient"}, ("R1", W, 1)),
    ("header line", b"qid Q0 docno rank score tag\n" + OK_RUN, {}, ("R28", E, 1)),
    # runs concatenated, a header each: it was R10, R12 and R17, --fix advising --fix-tag
    ("header in the middle", OK_RUN + b"qid Q0 docno rank Score tag\n" + OK_RUN, {}, ("R28", E, 3)),
    ("blank line", b"q1 Q0 a 1 2 t\n\nq1 Q0 b 2 1 t\n", {}, ("R21", W, 2)),
    ("whitespace-only file", b"  \n\t\n", {}, ("R9", E, None)),
    ("empty file", b"", {}, ("R26", E, None)),
    ("comment", b"# my run\n" + OK_RUN, {}, ("R22", W, 1)),
    ("comment, lenient: data to 9.x", b"# my run\n" + OK_RUN, {"profile": "lenient"}, ("R1", E, 1)),
    ("CRLF", b"q1 Q0 a 1 2 t\r\nq1 Q0 b 2 1 t\r\n", {}, ("R24", W, 2)),
    ("tabs mixed with spaces", b"q1\tQ0\ta\t1\t2\tt\nq1 Q0 b 2 1 t\n", {}, ("R25", I, 2)),
    ("runs of blanks", b"q1 Q0 a 1 2 t\nq1 Q0  b 2 1 t\n", {}, ("R25", I, 2)),
    ("trailing blanks", b"q1 Q0 a 1 2 t \n", {}, ("R25", I, 1)),
    ("no final newline", b"q1 Q0 a 1 2 t\nq1 Q0 b 2 1 t", {}, ("R25", I, 2)),
    # encoding
    ("BOM", b"\xef\xbb\xbf" + OK_RUN, {}, ("R23", E, 1)),
    ("NUL byte", b"q1 Q0 a 1 2 t\nq1 Q0 b\x00 2 1 t\n", {}, ("R23", E, 2)),
    ("NBSP inside a docid", "q1 Q0 a\u00a0b 1 2 t\n".encode(), {}, ("R6", E, 1)),
    ("C1 control inside a docid", "q1 Q0 a\u0080b 1 2 t\n".encode(), {}, ("R6", E, 1)),
    ("soft hyphen inside a docid", "q1 Q0 a\u00adb 1 2 t\n".encode(), {}, ("R6", E, 1)),
    ("Hangul filler in a qid", "q1\u3164 Q0 a 1 2 t\n".encode(), {}, ("R2", E, 1)),
    ("tag character in a qid", "q1\U000e0001 Q0 a 1 2 t\n".encode(), {}, ("R2", E, 1)),
    (
        "NBSP inside a docid, lenient",
        "q Q0 a\u00a0b 1 2 t\n".encode(),
        {"profile": "lenient"},
        ("R6", W, 1),
    ),
    ("U+3000 as a separator", "q1 Q0 a 1 2\u3000t\n".encode(), {}, ("R2", E, 1)),
    ("invalid UTF-8", b"q1 Q0 a 1 2 t\nq1 Q0 \xff 2 1 t\n", {}, ("R23", E, 2)),
    ("lone CR", b"q1 Q0 a 1 2 t\rq1 Q0 b 2 1 t\n", {}, ("R2", E, 1)),
    ("vertical tab", b"q1 Q0 a\x0b1 2 t\n", {}, ("R2", E, 1)),
    ("C0 control", b"q1 Q0 a\x01 1 2 t\n", {}, ("R23", E, 1)),
    ("UTF-16", "q1 Q0 a 1 2 t\n".encode("utf-16"), {}, ("R23", E, None)),
    ("zero-width space", "q1\u200b Q0 a 1 2 t\n".encode(), {}, ("R2", E, 1)),
    # tag
    ("mixed tags", b"q1 Q0 a 1 2 t1\nq1 Q0 b 2 1 t2\n", {}, ("R17", E, 2)),
    (
        "mixed tags, lenient",
        b"q1 Q0 a 1 2 t1\nq1 Q0 b 2 1 t2\n",
        {"profile": "lenient"},
        ("R17", W, 2),
    ),
    ("40-char tag", b"q1 Q0 a 1 2 " + b"t" * 40 + b"\n", {}, ("R18", W, 1)),
    (
        "40-char tag, strict",
        b"q1 Q0 a 1 2 " + b"t" * 40 + b"\n",
        {"profile": "strict"},
        ("R18", E, 1),
    ),
    ("tag run/tag;1", b"q1 Q0 a 1 2 run/tag;1\n", {}, ("R18", W, 1)),
    ("tag is not the file name", OK_RUN, {"expected_tag": "bm25"}, ("R19", E, 1)),
    # scores
    ("score abc", b"q1 Q0 a 1 abc t\n", {}, ("R12", E, 1)),
    ("score 0,9", b"q1 Q0 a 1 0,9 t\n", {}, ("R12", E, 1)),
    ("score nan", b"q1 Q0 a 1 2 t\nq1 Q0 b 2 nan t\n", {}, ("R12", E, 2)),
    ("score nan, lenient", b"q1 Q0 a 1 nan t\n", {"profile": "lenient"}, ("R12", E, 1)),
    ("score inf", b"q1 Q0 a 1 inf t\n", {}, ("R12", E, 1)),
    ("score 0x10", b"q1 Q0 a 1 0x10 t\n", {}, ("R12", E, 1)),
    ("score 1_000", b"q1 Q0 a 1 1_000 t\n", {}, ("R12", E, 1)),
    ("score full-width", "q1 Q0 a 1 \uff13.0 t\n".encode(), {}, ("R12", E, 1)),
    ("score overflows", b"q1 Q0 a 1 1e999 t\n", {}, ("R12", E, 1)),
    ("score 3e0 is valid", b"q1 Q0 a 1 3e0 t\n", {}, ("R16", I, 1)),
    ("increasing scores", b"q1 Q0 a 1 1 t\nq1 Q0 b 2 2 t\n", {}, ("R13", W, 2)),
    (
        "increasing scores, strict",
        b"q1 Q0 a 1 1 t\nq1 Q0 b 2 2 t\n",
        {"profile": "strict"},
        ("R13", E, 2),
    ),
    ("all tied", b"q1 Q0 a 1 1 t\nq1 Q0 b 2 1 t\nq1 Q0 c 3 1 t\n", {}, ("R15", W, 1)),
    ("tie at float32 only", b"q1 Q0 a 1 1.00000002 t\nq1 Q0 b 2 1.00000001 t\n", {}, ("R15", W, 1)),
    # what `trecbench convert` reads: one finding, not one per line
    ("3 columns on every line", b"1 d1 1\n1 d2 2\n", {}, ("R32", E, None)),
    ("a JSON document", b'[\n {"text": "a b c d e f g"}\n]\n', {}, ("R32", E, None)),
    (
        "JSON lines",
        b'{"qid": "q1", "docno": "d1"}\n{"qid": "q1", "docno": "d2"}\n',
        {},
        ("R32", E, None),
    ),
    # ranks
    ("rank 2.0", b"q1 Q0 a 2.0 2 t\n", {}, ("R10", E, 1)),
    ("negative rank", b"q1 Q0 a -1 2 t\n", {}, ("R10", E, 1)),
    ("zero-based ranks", b"q1 Q0 a 0 2 t\nq1 Q0 b 1 1 t\n", {}, ("R11", W, 1)),
    ("rank gap", b"q1 Q0 a 1 2 t\nq1 Q0 b 3 1 t\n", {}, ("R11", W, 2)),
    ("duplicate rank", b"q1 Q0 a 1 2 t\nq1 Q0 b 1 1 t\n", {}, ("R11", W, 2)),
    # a rank that is none (R10) hid every R11 of its topic, the repeat of the others too
    ("duplicate beside R10", b"q1 Q0 a 1 3 t\nq1 Q0 b 2.0 2 t\nq1 Q0 c 1 1 t\n", {}, ("R11", W, 3)),
    (
        "duplicate rank, strict",
        b"q1 Q0 a 1 2 t\nq1 Q0 b 1 1 t\n",
        {"profile": "strict"},
        ("R11", E, 2),
    ),
    ("ranks disagree with scores", b"q1 Q0 a 2 2 t\nq1 Q0 b 1 1 t\n", {}, ("R14", W, 1)),
    # duplicates
    ("adjacent duplicate", b"q1 Q0 a 1 2 t\nq1 Q0 a 2 1 t\n", {}, ("R7", E, 2)),
    (
        "adjacent duplicate, lenient",
        b"q1 Q0 a 1 2 t\nq1 Q0 a 2 1 t\n",
        {"profile": "lenient"},
        ("R7", E, 2),
    ),
    ("interleaved duplicate", b"q1 Q0 a 1 2 t\nq2 Q0 x 1 2 t\nq1 Q0 a 2 1 t\n", {}, ("R7", E, 3)),
    (
        "duplicate beyond the depth cut",
        b"q1 Q0 a 1 4 t\nq1 Q0 b 2 3 t\nq1 Q0 c 3 2 t\nq1 Q0 a 4 1 t\n",
        {"max_depth": 2},
        ("R7", E, 4),
    ),
    (
        "deeper than --max-depth",
        b"q1 Q0 a 1 4 t\nq1 Q0 b 2 3 t\nq1 Q0 c 3 2 t\n",
        {"max_depth": 2},
        ("R8", E, 3),
    ),
    ("shallower than --min-depth", OK_RUN, {"min_depth": 5}, ("R9", W, 1)),
    ("split topic", b"q1 Q0 a 1 2 t\nq2 Q0 x 1 2 t\nq1 Q0 b 2 1 t\n", {}, ("R20", W, 3)),
    ("descending topics", b"q2 Q0 a 1 2 t\nq1 Q0 x 1 2 t\n", {}, ("R20", I, 2)),
    ("docid regex", OK_RUN, {"docid_regex": "[0-9]+"}, ("R6", E, 1)),
    # topics
    ("01 vs 1", b"01 Q0 a 1 2 t\n", {"topics": ["1"]}, ("R4", E, 1)),
    ("case difference", b"q1 Q0 a 1 2 t\n", {"topics": ["Q1"]}, ("R4", E, 1)),
    ("missing topic", b"1 Q0 a 1 2 t\n", {"topics": ["1", "2"]}, ("R5", E, None)),
    ("extra topic", b"1 Q0 a 1 2 t\n3 Q0 a 1 2 t\n", {"topics": ["1"]}, ("R4", E, 2)),
    (
        "run topic not in qrels",
        b"1 Q0 a 1 2 t\n3 Q0 a 1 2 t\n",
        {"qrels_topics": ["1"]},
        ("X1", W, 2),
    ),
    ("qrels topic not in run", b"1 Q0 a 1 2 t\n", {"qrels_topics": ["1", "2"]}, ("X2", W, None)),
    ("no overlap with qrels", b"1 Q0 a 1 2 t\n", {"qrels_topics": ["2"]}, ("X3", E, None)),
    (
        "topic judged only negatively",
        OK_RUN,
        {"qrels_topics": QrelsInfo({"q1"}, negative_only={"q1": -1})},
        ("X5", E, 1),
    ),
]

QRELS_CASES = [
    ("duplicate, same grade", b"1 0 a 1\n1 0 a 1\n", {}, ("Q5", E, 2)),
    ("duplicate, conflicting", b"1 0 a 1\n1 0 b 0\n1 0 a 0\n", {}, ("Q5", E, 3)),
    ("float grade", b"1 0 a 1\n1 0 b 0.9\n", {}, ("Q3", E, 2)),
    ("non-numeric grade", b"1 0 a 1\n1 0 b abc\n", {}, ("Q3", E, 2)),
    ("negative grade", b"1 0 a 1\n1 0 b -1\n", {}, ("Q6", W, 2)),
    ("huge grade", b"1 0 a 5000000\n", {}, ("Q4", E, 1)),
    ("grade beyond int64", b"1 0 a 99999999999999999999\n", {}, ("Q4", E, 1)),
    ("topic without relevant doc", b"1 0 a 1\n2 0 b 0\n", {}, ("Q7", W, 2)),
    ("relevance level", b"1 0 a 1\n", {"relevance_level": 2}, ("Q7", W, 1)),
    ("3 columns", b"1 0 a 1\n1 b 1\n", {}, ("Q1", E, 2)),
    # one finding naming the converter, not one per line (Q1's BEIR hint on each)
    ("3 columns on every line", b"1 a 1\n2 b 1\n", {}, ("Q12", E, None)),
    ("a JSON document", b'{"q1": {"d1": 1},\n "q2": {"d2": 0}}\n', {}, ("Q12", E, None)),
    # a no-break space joining two fields on every line: they were said to be a pool to
    # judge (Q12), the blank unsaid; Q1 names it
    ("3 columns by a NBSP", b"1 0 a\xc2\xa01\n2 0 b\xc2\xa00\n", {}, ("Q1", E, 1)),
    ("5 columns", b"1 0 a 1 x\n", {}, ("Q1", E, 1)),
    ("blank line", b"1 0 a 1\n\n1 0 b 1\n", {}, ("Q2", E, 2)),
    ("trailing blank line", b"1 0 a 1\n\n", {}, ("Q2", E, 2)),
    ("header", b"qid iter docno rel\n1 0 a 1\n", {}, ("Q9", E, 1)),
    ("header in the middle", b"1 0 a 1\nqid iter docno rel\n2 0 a 1\n", {}, ("Q9", E, 2)),
    ("comment in the middle", b"1 0 a 1\n# judged by X\n1 0 b 1\n", {}, ("Q8", W, 2)),
    ("two comments in a row", b"1 0 a 1\n# one\n# two\n1 0 b 1\n", {}, ("Q8", E, 3)),
    ("comment on the last line", b"1 0 a 1\n# the end\n", {}, ("Q8", E, 2)),
    ("BOM", b"\xef\xbb\xbf1 0 a 1\n", {}, ("R23", E, 1)),
    ("CRLF", b"1 0 a 1\r\n", {}, ("R24", W, 1)),
    ("NUL", b"1 0 a\x00 1\n", {}, ("R23", E, 1)),
    ("empty", b"", {}, ("R26", E, None)),
    # a comment line is data to trec_eval 9.x: malformed here, not an empty file (R9)
    ("only comments", b"# nothing judged\n", {}, ("Q1", E, 1)),
    ("only negative judgments", b"1 0 a 1\n2 0 b -1\n2 0 c -2\n", {}, ("Q10", W, 2)),
]


@pytest.mark.parametrize(
    ("data", "options", "expected"),
    [case[1:] for case in RUN_CASES],
    ids=[case[0] for case in RUN_CASES],
)
def test_bad_runs(data, options, expected):
    assert expected in triples(findings(data, **options))


@pytest.mark.parametrize(
    ("data", "options", "expected"),
    [case[1:] for case in QRELS_CASES],
    ids=[case[0] for case in QRELS_CASES],
)
def test_bad_qrels(data, options, expected):
    assert expected in triples(findings(data, "qrels", **options))


def test_clean_run_has_no_findings():
    assert findings(OK_RUN) == []
    assert findings(b"1 0 a 1\n1 0 b 0\n2 0 c 2\n", "qrels") == []


def test_a_grade_s_sign_and_leading_zeros_are_no_part_of_its_size():
    # trec_eval's atol reads 0000000001 as 1 and -0000000000000000000000 as 0: no Q4 (they
    # were "beyond +-1,000,000"); 1,000,000 itself is allowed, 1,000,001 is not
    data = b"1 0 a 0000000001\n1 0 b -0000000000000000000000\n1 0 c 0001000000\n"
    assert findings(data, "qrels") == []
    found = findings(data + b"1 0 d +0001000001\n1 0 e -00000000000000000001\n", "qrels")
    assert [(f.rule, f.line) for f in found] == [("Q4", 4), ("Q6", 5)]
    assert found[1].message.startswith("negative grade -1:")


def test_a_grade_below_the_bound_is_not_said_to_make_ndcg_run_for_hours(tmp_path, capsys):
    # trec_eval sizes its gain arrays by the largest grade: -5,000,000 costs it nothing and
    # reads as -1 (reviewer 667); refused still, for a reason that is true
    below = b"q1 0 a -5000000\nq1 0 z 1\n"
    (finding,) = [f for f in findings(below, "qrels") if f.rule == "Q4"]
    assert finding.message == (
        "grade -5000000 is below -1,000,000, the lowest grade read (trec_eval reads every "
        "negative grade alike, as unjudged: write -1)"
    )
    (above,) = [f for f in findings(b"q1 0 a 5000000\n", "qrels") if f.rule == "Q4"]
    assert (
        above.message == "grade 5000000 is above 1,000,000 (trec_eval's nDCG would run for hours)"
    )
    (tmp_path / "q").write_bytes(below)
    (tmp_path / "r").write_text("q1 Q0 a 1 1 t\n")
    assert run(["score", str(tmp_path / "q"), str(tmp_path / "r")]) == 2
    assert "is below -1,000,000, the lowest grade read" in capsys.readouterr().err


def test_lenient_keeps_only_what_breaks_trec_eval():
    messy = b"q2 X a 0 2 t\nq2 X b 0 3 t\nq1 X c 7 1 t2\n"
    found = findings(messy, profile="lenient")
    assert found and all(f.severity != E for f in found)


def test_finding_format_and_messages():
    (finding,) = findings(b"q1 Q0 a 1 2 t\nq1 Q0 a 2 1 t\n")
    assert finding.format() == (
        "f:2:docno: error[R7]: duplicate docno a in topic q1 (first at line 1); "
        "trec_eval stops with 'duplicate docs' (exit 4)"
    )
    hints = {f.rule: f.message for f in findings(b"01 Q0 a 1 2 t\n", topics=["1"])}
    assert hints["R4"] == "topic '01' is not in --topics (did you mean '1'?)"
    assert hints["R5"] == (
        "topic '1' of --topics has no document in the run (did you mean '01'?): when the "
        "qrels judge it, trec_eval 9.0.8 skips it, 10.0 stops at the first such topic "
        '("result qid ... not found in qrels", exit 4); both score it 0 with -c'
    )


def test_a_topic_in_another_normalization_form_is_named_so(tmp_path):
    # a run written on macOS (file names in NFD) against NFC qrels: "topic 'café' is not
    # in the qrels", beside a qrels topic 'café', said nothing of why
    composed, decomposed = "caf\u00e9", "cafe\u0301"
    found = findings(f"{decomposed} Q0 a 1 2 t\n".encode(), topics=[composed])
    hints = {f.rule: f.message for f in found}
    said = "the same text in Unicode's {}, this one in {}: ids are compared as bytes"
    nfc_there = said.format("NFC", "NFD")
    assert (
        hints["R4"]
        == f"topic '{decomposed}' is not in --topics (did you mean '{composed}'? {nfc_there})"
    )
    assert hints["R5"].startswith(
        f"topic '{composed}' of --topics has no document in the run (did you mean "
        f"'{decomposed}'? {said.format('NFD', 'NFC')}): "
    )
    (tmp_path / "q").write_text(f"{composed} 0 a 1\n", encoding="utf-8")
    (tmp_path / "r").write_text(f"{decomposed} Q0 a 1 2 t\n", encoding="utf-8")
    done = CliRunner().invoke(
        cli, ["validate", "--qrels", str(tmp_path / "q"), str(tmp_path / "r")]
    )
    (x1,) = [line for line in done.output.splitlines() if "[X1]" in line]
    assert x1.endswith(f"trec_eval ignores it (did you mean '{composed}'? {nfc_there})"), x1
    # in another case too: the form is said, or the case mended the ids still differ
    upper = decomposed.upper()
    (hint,) = [
        f for f in findings(f"{upper} Q0 a 1 2 t\n".encode(), topics=[composed]) if f.rule == "R4"
    ]
    assert hint.message.endswith(
        f"(did you mean '{composed}'? it is in Unicode's NFC, this one in NFD: ids are "
        "compared as bytes)"
    )


@pytest.mark.parametrize("encoding", ["UTF-16-LE", "UTF-16-BE", "UTF-32-LE", "UTF-32-BE"])
def test_a_wide_encoding_is_named_by_its_byte_order_mark(encoding):
    # UTF-32's little-endian mark, FF FE 00 00, starts with UTF-16's: it was "UTF-16"
    (found,) = findings(("\ufeff" + OK_RUN.decode()).encode(encoding))
    assert (found.rule, found.message) == ("R23", f"the file is {encoding[:6]}; save it as UTF-8")


@pytest.mark.parametrize("encoding", ["UTF-16-LE", "UTF-16-BE", "UTF-32-LE", "UTF-32-BE"])
@pytest.mark.parametrize(("kind", "text"), [("run", OK_RUN.decode()), ("qrels", "q1 0 a 1\n")])
def test_a_wide_encoding_without_a_byte_order_mark_is_named_by_its_nuls(
    tmp_path, encoding, kind, text
):
    """`iconv -t UTF-16BE` writes no mark: such a run was a cascade of R3, R10, R12, R18,
    R23.nul and R1 findings on every line, where a marked one is refused in one line."""
    path = tmp_path / f"f.{kind}"
    path.write_bytes(text.encode(encoding))
    (found,) = validate_files([path])[0].findings
    assert (found.rule, found.message) == ("R23", f"the file is {encoding[:6]}; save it as UTF-8")
    # a NUL beside every other byte for a while only: UTF-8 text holding NULs (R23.nul)
    nuls = findings(b"q\x001\x00 \x00" + b"x" * 70 + b" Q0 a 1 2 t\n")
    assert "R23.nul" in {f.check for f in nuls}


def test_tricky_ids_are_valid_and_round_trip(tmp_path):
    ids = ["1e5", "NA", "nan", "null", "None", "TRUE", "0042", "42"]
    lines = [f"1.0 Q0 {d} {i + 1} {10 - i} t\n" for i, d in enumerate(ids)]
    path = tmp_path / "tricky.run"
    path.write_text("".join(lines))
    assert validate_run(path).findings == []
    out = tmp_path / "fixed.run"
    (change,) = fix_run(path, out)
    assert change.what.startswith("normalised separators") and change.count == len(ids)
    assert out.read_text() == "".join(lines).replace(" ", "\t")


def test_streaming_matches_in_memory(tmp_path):
    # topics split across chunks, a duplicate in a later block, ties, an increase
    rows = [f"q{q} Q0 d{d} {d + 1} {100 - d} t\n" for q in range(5) for d in range(30)]
    rows += ["q1 Q0 d3 31 1 t\n", "q4 Q0 zz 31 100 t\n"]
    data = "".join(rows).encode()
    path = tmp_path / "r.run"
    path.write_bytes(data)
    whole = triples(findings(data))
    small = validate_run(path, chunk_bytes=100)
    # q4 comes back at line 152, tied with line 121 and scored above rank 30: a topic met
    # in several chunks is checked again whole at the end (issue 418: they were dropped)
    across = {("R15", W, 121), ("R14", W, 152)}
    assert across <= whole
    assert triples(small.findings) == whole
    assert ("R7", E, 151) in whole and ("R20", W, 151) in whole
    assert small.counts["records"] == 152 and small.counts["topics"] == 5


def test_validated_and_loaded_from_one_spooled_source(tmp_path):
    # benchmark's way: the validator, then the loader, each from the start of one read
    from trecbench.inputs import load
    from trecbench.inputs.streams import Source

    irregular = b"q1  Q0 a 1 2 t\nq1 Q0 a 2 1 t\n"  # two spaces, a duplicate: findings
    for name, data in [
        ("r.run", OK_RUN),
        ("r.run.gz", gzip.compress(OK_RUN)),
        ("i.run", irregular),
        ("q.qrels", b"q1 0 a 1\nq1 0 b 0\n"),
    ]:
        path = tmp_path / name
        path.write_bytes(data)
        kind = "qrels" if name.endswith("qrels") else "run"
        validate = validate_qrels if kind == "qrels" else validate_run
        with Source(path, spool=True) as source:
            path.write_bytes(b"changed since: never read again\n")
            result = validate(source)
            loaded = load(source, kind)
        path.write_bytes(data)
        assert result.path == str(path)
        assert result.findings == validate(path).findings
        expected = load(path, kind)
        assert loaded.table.equals(expected.table) and loaded.record == expected.record


def test_limit_keeps_totals(tmp_path):
    data = b"".join(b"q1 X d%d %d 1 t\n" % (i, i + 1) for i in range(50))
    found = trecbench.check_tokens(tokenize(data, "f"), "run", limit=3)
    assert len([f for f in found if f.rule == "R3"]) == 3
    path = tmp_path / "r.run"
    path.write_bytes(data)
    assert validate_run(path, limit=3).counts["rules"]["R3"] == 50


def test_gzip_truncated_and_double(tmp_path):
    gz = tmp_path / "r.run.gz"
    gz.write_bytes(gzip.compress(OK_RUN))
    assert validate_run(gz).findings == []
    truncated = tmp_path / "t.run.gz"
    truncated.write_bytes(gzip.compress(OK_RUN * 500)[:-20])
    assert ("R27", E, None) in triples(validate_run(truncated).findings)
    double = tmp_path / "d.run.gz"
    double.write_bytes(gzip.compress(gzip.compress(OK_RUN)))
    assert triples(validate_run(double).findings) == {("R27", E, None)}


def test_score_says_the_rule_of_what_it_refuses_while_reading_as_validate_does(tmp_path, capsys):
    """A truncated gzip stream (R27) and a malformed ir_metadata block (R30) stop score
    with ``file:line: error[RULE]: message`` (docs/score.md), as a doubly gzipped file
    did: they lacked the rule. The Python API's message is unchanged."""
    from trecbench.cli import run

    qrels = tmp_path / "q.txt"
    qrels.write_bytes(b"q1 0 a 1\n")
    truncated = tmp_path / "t.run.gz"
    truncated.write_bytes(gzip.compress(OK_RUN * 500)[:-20])
    listed = tmp_path / "m.run"
    listed.write_bytes(b"# ir_metadata.start\n# - a\n# ir_metadata.end\n" + OK_RUN)
    for path, said in [
        (truncated, f"{truncated}: error[R27]: corrupt or truncated gzip data: "),
        (listed, f"{listed}:2: error[R30]: ir_metadata: the YAML is not a mapping\n"),
    ]:
        assert run(["score", str(qrels), str(path)]) == 2
        assert capsys.readouterr().err.startswith(f"trecbench: {said}")
        with pytest.raises(InputError) as raised:
            trecbench.load_run(str(path))
        assert not str(raised.value).split(": ", 1)[1].startswith("error[")


@pytest.mark.parametrize("kind", ["run", "qrels"])
def test_compressed_parquet_is_one_r27_finding_not_a_screen_of_trec_text_ones(tmp_path, kind):
    # read as TREC text: R1 "expected 6 fields", R23 "NUL byte", ... for a Parquet file,
    # which docs/score.md said may be compressed
    import subprocess
    import sys

    import pyarrow as pa
    import pyarrow.parquet as pq

    columns = {"qid": ["q1"], "docno": ["d1"]}
    columns |= {"score": [1.0]} if kind == "run" else {"rel": [1]}
    plain = tmp_path / "f.parquet"
    pq.write_table(pa.table(columns), plain)
    packed = tmp_path / "f.parquet.gz"
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    other = tmp_path / "other"
    other.write_text("q1 Q0 d1 1 1 t\n" if kind == "qrels" else "q1 0 d1 1\n")
    files = [str(packed), str(other)] if kind == "qrels" else [str(other), str(packed)]
    done = subprocess.run(
        [sys.executable, "-m", "trecbench", "score", "-m", "P.5", *files],
        capture_output=True,
        check=False,
    )
    assert (done.returncode, done.stdout) == (2, b"")
    # (said as reading it, as of a truncated gzip file: told at its end, not by a chunk)
    assert (
        done.stderr
        == (
            f"trecbench: {packed}: error[R27]: the file is compressed Parquet: Parquet "
            "compresses its own columns; give the .parquet file as it is, not compressed again\n"
        ).encode()
    )


def test_the_python_readers_refuse_compressed_parquet_alike(tmp_path):
    # load_run and read_run said "f.parquet.gz:2: NUL byte (trec_eval 9.x would ...)"
    import pyarrow as pa
    import pyarrow.parquet as pq

    import trecbench

    plain = tmp_path / "f.parquet"
    pq.write_table(pa.table({"qid": ["q1"], "docno": ["d1"], "score": [1.0]}), plain)
    packed = tmp_path / "f.parquet.gz"
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    for read in (trecbench.load_run, trecbench.read_run):
        with pytest.raises(InputError) as raised:
            read(str(packed))
        assert raised.value.rule == "R27" and "compressed Parquet" in str(raised.value)


def test_topic_with_100k_documents(tmp_path):
    path = tmp_path / "deep.run"
    path.write_bytes(
        b"".join(b"q Q0 d%d %d %d t\n" % (i, i + 1, 200000 - i) for i in range(100000))
    )
    result = validate_run(path, max_depth=None)
    assert result.findings == [] and result.counts["records"] == 100000


def test_topics_file_formats(tmp_path):
    plain = tmp_path / "topics.txt"
    plain.write_text("301\n\n302 extra words\n")
    trec = tmp_path / "topics.trec"
    trec.write_text("<top>\n<num> Number: 301\n<title> x\n</top>\n<top>\n<num>302\n</top>\n")
    assert read_topics(plain) == read_topics(trec) == ["301", "302"]
    # XML topics: <num> closed on its line (was the topic '301</num>'), or an attribute
    closed = tmp_path / "closed.xml"
    closed.write_text("<topics>\n<topic>\n<num>301</num>\n</topic>\n<num>302</num>\n")
    attribute = tmp_path / "attribute.xml"
    attribute.write_text('<topics>\n<topic number="301" type="x">\n<query>a b</query>\n'
                         "</topic>\n<topic number='302'>\n</topics>\n")  # fmt: skip
    assert read_topics(closed) == read_topics(attribute) == ["301", "302"]
    other = tmp_path / "other.xml"  # markup of another kind: its tags are no ids
    other.write_text("<queries>\n<q id=1>x</q>\n</queries>\n")
    with pytest.raises(InputError, match="no topic ids found"):
        read_topics(other)


def test_a_num_field_without_a_number_is_refused_at_its_line(tmp_path):
    # '<num> Number:' alone made a topic named 'Number:', seen only as an R5 finding
    path = tmp_path / "topics"
    path.write_text("<top>\n<num> Number: 301\n</top>\n<top>\n<num> Number:\n<title> x\n")
    with pytest.raises(InputError) as raised:
        read_topics(path)
    assert str(raised.value) == f"{path}:5: a <num> field without a topic number"
    path.write_text("<num></num>\n")
    with pytest.raises(InputError, match=":1: a <num> field without a topic number"):
        read_topics(path)


def test_topic_ids_are_read_as_runs_read_qids(tmp_path):
    """A byte-order mark is not part of the first id, and ids end at C's white space only:
    a no-break space is part of an id, as in a run's qid (it made 301\xa0x into 301)."""
    path = tmp_path / "topics"
    path.write_bytes(b"\xef\xbb\xbf301\n302\xc2\xa0x y\n\x0b303\t\n")
    assert read_topics(path) == ["301", "302\xa0x", "303"]
    path.write_bytes(b"<num> Number: 301\xc2\xa0\n<num>\x0c302\n")
    assert read_topics(path) == ["301\xa0", "302"]
    twice = tmp_path / "topics.gz"
    twice.write_bytes(gzip.compress(gzip.compress(b"301\n")))
    with pytest.raises(InputError, match=r"topics.gz: compressed twice \(gzip\)"):
        read_topics(twice)


def test_topics_must_be_utf8(tmp_path):
    # decoded with errors="replace", 30\xff became 30\ufffd: another id, without a word
    for name, data in (
        ("topics.txt", b"301\n30\xff\n"),
        ("topics.trec", b"<num> 301\n<num> 3\xc3\n"),
    ):
        path = tmp_path / name
        path.write_bytes(data)
        with pytest.raises(InputError, match=rf"{name}:2: invalid UTF-8$"):
            read_topics(path)


def _run_and_qrels(folder, run_bytes: bytes, qrels_bytes: bytes) -> tuple:
    """``(qrels result, run result)`` of validating a run written with these bytes against
    qrels written with those."""
    qrels = folder / "q.qrels"
    qrels.write_bytes(qrels_bytes)
    run = folder / "r.run"
    run.write_bytes(run_bytes)
    return validate_files([run], qrels=qrels)


def test_qrels_cross_checks_and_unjudged(tmp_path):
    qrels_result, run_result = _run_and_qrels(
        tmp_path,
        b"1 Q0 a 1 3 t\n1 Q0 x 2 2 t\n1 Q0 b 3 1 t\n3 Q0 a 1 1 t\n",
        b"1 0 a 1\n1 0 b 0\n2 0 c 1\n",
    )
    assert qrels_result.kind == "qrels" and qrels_result.findings == []
    got = {(f.rule, f.line): f.message for f in run_result.findings}
    assert "trec_eval 9.0.8 skips it, 10.0 stops" in got[("X2", None)]
    assert ("X1", 4) in got
    # topic 1 retrieves a (judged), x (unjudged), b (judged); topic 3 has no judgments
    assert got[("X4", None)] == (
        "1 of 3 documents in the top 10 of judged topics is unjudged (33.3 percent)"
    )


def test_the_unjudged_share_counts_one_document_as_one(tmp_path):
    _, run_result = _run_and_qrels(tmp_path, b"1 Q0 a 1 3 t\n", b"1 0 a 1\n")
    got = {f.rule: f.message for f in run_result.findings}
    assert got["X4"] == (
        "0 of 1 document in the top 10 of judged topics are unjudged (0.0 percent)"
    )  # "0 of 1 documents" before


def test_the_unjudged_share_reads_0_percent_only_when_nothing_is_unjudged(tmp_path):
    # 1 of 2,010 documents (201 topics of 10) unjudged is 0.0498%: one decimal read 0.0
    run = b"".join(
        b"%d Q0 d%d %d %d t\n" % (q, i, i + 1, 10 - i) for q in range(201) for i in range(10)
    )
    qrels = b"".join(
        b"%d 0 d%d 1\n" % (q, i) for q in range(201) for i in range(10) if (q, i) != (0, 0)
    )
    _, run_result = _run_and_qrels(tmp_path, run, qrels)
    got = {f.rule: f.message for f in run_result.findings}
    assert got["X4"] == (
        "1 of 2010 documents in the top 10 of judged topics is unjudged (0.05 percent)"
    )


def test_fix_canonical_run(tmp_path):
    path = tmp_path / "messy.run"
    path.write_bytes(
        b"q2 Q0 d5 0 1 tagA x\r\n"
        b"q1\tQ0\td1 1 3.0 tagA\n\n"
        b"q1 Q0 d2 2 4.0 tagA\n"
        b"q1 Q0 d1 3 1e0 tagA\n"
        b"q1 Q0 d3 3 2.50 tagA\n"
        b"q1 X d10 9 2.50 tagA\n"
    )
    out = tmp_path / "fixed.run"
    changes = {c.what: c.lines for c in fix_run(path, out, max_depth=3)}
    assert out.read_text() == (
        "q1\tQ0\td2\t1\t4\ttagA\n"
        "q1\tQ0\td1\t2\t3\ttagA\n"
        "q1\tQ0\td3\t3\t2.5\ttagA\n"
        "q2\tQ0\td5\t1\t1\ttagA\n"
    )
    assert changes["dropped blank lines"] == (3,)
    assert changes["dropped duplicate documents (kept the first in trec_eval order)"] == (5,)
    assert changes[
        "dropped documents beyond --max-depth 3 (trec_eval 9.x scores the fixed run as the run "
        "given with -M 3)"
    ] == (7,)  # d3 > d10 byte-wise
    assert "set field 2 to Q0" not in changes  # line 7, its X, is cut: nothing set
    assert changes["dropped tokens after the tag"] == (1,)
    assert validate_run(out, max_depth=3).findings == []


def test_fix_refuses_unfixable_and_inputs(tmp_path):
    bad = tmp_path / "bad.run"
    bad.write_bytes(b"q1 Q0 a 1 nan t\n")
    with pytest.raises(UnfixableError, match="R12"):
        fix_run(bad, tmp_path / "out.run")
    good = tmp_path / "good.run"
    good.write_bytes(OK_RUN)
    with pytest.raises(OutputError):
        fix_run(good, good)
    assert good.read_bytes() == OK_RUN


def test_every_check_has_valid_severities():
    for check in CHECKS.values():
        assert {check.default, check.strict, check.lenient} <= {E, W, I}
        # lenient never raises a check above default; strict never lowers it
        order = {E: 0, W: 1, I: 2}
        assert order[check.lenient] >= order[check.default] >= order[check.strict]


# --- the trec_eval 9.0.8 test folder -----------------------------------------------------


def test_trec_eval_suite_runs(trec_eval_suite):
    test = validate_run(trec_eval_suite / "results.test", max_depth=1000)
    assert test.ok and test.counts["records"] == 1500
    assert validate_run(trec_eval_suite / "results.test", max_depth=100).counts["rules"]["R8"] == 3
    trunc = trec_eval_suite / "results.trunc"
    for profile, severity in (("default", E), ("strict", E), ("lenient", W)):
        result = validate_run(trunc, profile=profile, max_depth=1000)
        assert ("R1", severity, 1) in triples(result.findings)
    lenient = validate_run(trunc, profile="lenient")
    assert lenient.ok  # score's gate: results.trunc is scored like trec_eval does


def test_trec_eval_suite_qrels(trec_eval_suite):
    for name in ("qrels.test", "qrels.rel_level"):
        assert validate_qrels(trec_eval_suite / name).ok
    # qrels.123 is a multi-judge file for -R qrels_jg: judge groups repeat (qid, docno)
    multi = validate_qrels(trec_eval_suite / "qrels.123")
    assert ("Q5", E, 3682) in triples(multi.findings)


# --- command line ------------------------------------------------------------------------


@pytest.fixture
def invoke():
    """``trecbench validate`` in-process, with the exit code ``main`` would set."""
    _register()
    runner = CliRunner()

    def run(*args):
        result = runner.invoke(cli, ["validate", *map(str, args)])
        code = result.exit_code
        if isinstance(result.exception, TrecbenchError):
            code = result.exception.exit_code
        elif result.exception is not None and not isinstance(result.exception, SystemExit):
            raise result.exception  # a traceback: never acceptable
        return SimpleNamespace(exit_code=code, output=result.output)

    return run


def test_cli_exit_codes_and_text(tmp_path, invoke):
    good = tmp_path / "good.run"
    good.write_bytes(OK_RUN)
    result = invoke(good)
    assert result.exit_code == 0 and result.output.startswith("OK: 1 file(s), 2 lines")
    bad = tmp_path / "bad.run"
    bad.write_bytes(b"".join(b"q1 Q0 d%d %d x t\n" % (i, i) for i in range(1, 11)))
    result = invoke(bad)
    assert result.exit_code == 2  # an input failing validation, as score's malformed input
    lines = result.output.splitlines()
    assert (
        lines[0] == f"{bad}:1:score: error[R12]: score 'x' is not an ASCII decimal number "
        "(trec_eval's atof reads it as 0.0)"
    )
    assert f"{bad}: note: 5 more [R12] not shown (10 in total)" in lines
    assert lines[-1].startswith("FAILED: 1 file(s), 10 lines: 10 error(s)")
    assert invoke().exit_code == 1  # usage errors: 1 in every command, as trec_eval's
    assert invoke(tmp_path / "missing.run").exit_code == 2
    assert invoke(good, "--profile", "nope").exit_code == 1
    assert invoke(good, "--docid-regex", "(").exit_code == 1


def test_an_empty_docid_regex_is_refused_not_ignored(tmp_path, invoke):
    # it took the small path, which does not apply the pattern: OK, exit 0
    good = tmp_path / "good.run"
    good.write_bytes(OK_RUN)
    result = invoke(good, "--docid-regex", "")
    assert result.exit_code == 1
    assert "--docid-regex: an empty pattern matches no docno" in result.output


def test_cli_json(tmp_path, invoke):
    run = tmp_path / "r.run"
    run.write_bytes(b"1 Q0 a 1 2 t\n1 Q0 a 2 1 t\n")
    qrels = tmp_path / "q.qrels"
    qrels.write_bytes(b"1 0 a 1\n")
    result = invoke(run, "--qrels", qrels, "--format", "json")
    assert result.exit_code == 2
    documents = json.loads(result.output)
    assert [d["kind"] for d in documents] == ["qrels", "run"]
    assert documents[1]["file"] == str(run)
    assert documents[1]["findings"][1] == {
        "rule": "R7",
        "check": "R7",
        "severity": "error",
        "line": 2,
        "field": "docno",
        "message": "duplicate docno a in topic 1 (first at line 1); trec_eval stops with "
        "'duplicate docs' (exit 4)",
    }
    assert documents[1]["counts"]["error"] == 1 and documents[1]["counts"]["rules"] == {
        "R7": 1,
        "X4": 1,
    }


def test_cli_json_names_the_check_of_each_finding_and_counts_each_check(tmp_path, invoke):
    """A rule of several checks (R25: trailing, spacing, newline) was one id in JSON: the
    check that --limit caps and the text's rule list could not be told apart."""
    run = tmp_path / "r.run"
    run.write_bytes(b"1 Q0 a 1 2 t \n1  Q0 b 2 1 t")
    documents = json.loads(invoke(run, "--format", "json").output)
    found = [(f["rule"], f["check"]) for f in documents[0]["findings"]]
    assert found == [("R25", "R25.trailing"), ("R25", "R25.spacing"), ("R25", "R25.newline")]
    counts = documents[0]["counts"]
    assert counts["rules"] == {"R25": 3}
    assert counts["checks"] == {"R25.trailing": 1, "R25.spacing": 1, "R25.newline": 1}


def test_cli_fix(tmp_path, invoke):
    run = tmp_path / "r.run"
    run.write_bytes(b"1 Q0 b 1 1 t\n1 Q0 a 2 2 t\n")
    out = tmp_path / "fixed.run"
    result = invoke(run, "--fix", out)
    assert result.exit_code == 0, result.output
    assert "moved into trec_eval order" in result.output
    assert out.read_text() == "1\tQ0\ta\t1\t2\tt\n1\tQ0\tb\t2\t1\tt\n"
    refused = invoke(run, "--fix", run)
    assert refused.exit_code == 2 and run.read_bytes() == b"1 Q0 b 1 1 t\n1 Q0 a 2 2 t\n"
    assert invoke(run, run, "--fix", out).exit_code == 1  # a usage error


def test_cli_fix_in_json(tmp_path, invoke):
    """--format json with --fix names the fixed run (it was an internal error, exit 70:
    the output path was not JSON)."""
    run = tmp_path / "r.run"
    run.write_bytes(b"1 Q0 b 1 1 t\n1 Q0 a 2 2 t\n")
    out = tmp_path / "fixed.run"
    result = invoke(run, "--fix", out, "--format", "json")
    assert result.exit_code == 0, result.output
    (document,) = json.loads(result.output)
    assert document["fix"]["output"] == str(out)
    assert out.read_text() == "1\tQ0\ta\t1\t2\tt\n1\tQ0\tb\t2\t1\tt\n"
    assert document["fix"]["changes"][0]["change"].startswith("moved into trec_eval order")
    assert document["fix"]["refused"] is None
    # the fixed run's counts as its own validation reports them: checks too (left out)
    (own,) = json.loads(invoke(out, "--format", "json").output)
    assert document["fix"]["counts"] == own["counts"] and "checks" in own["counts"]


@pytest.mark.parametrize(("name", "spacing"), [("fixed.run", True), ("fixed.parquet", False)])
def test_fix_lists_normalised_separators_for_text_output_only(tmp_path, name, spacing):
    """A Parquet run has no separators nor line ends to normalise: the change is not
    listed for it (issue 444 item 4); the text output still lists it."""
    import pyarrow.parquet as pq

    run = tmp_path / "r.run"
    run.write_bytes(b"q1 Q0 a 1 2 t\r\nq1  Q0 b 2 1 t\r\n")
    out = tmp_path / name
    changes = [c.what for c in fix_run(run, out)]
    listed = "normalised separators and line ends to single tabs and LF" in changes
    assert listed is spacing
    if not spacing:
        assert pq.read_table(out).column("docno").to_pylist() == ["a", "b"]


def test_cli_refused_fix_in_json(tmp_path, invoke):
    """A --fix refused leaves its trace in the run's object (it was on stderr alone):
    nothing written, and why, in stderr's words (issue 444 item 3)."""
    run = tmp_path / "bad.run"
    run.write_bytes(b"q1 Q0 a 1 nan t\n")
    out = tmp_path / "bad.fixed"
    result = invoke(run, "--fix", out, "--format", "json")
    assert result.exit_code == 2
    (document,) = json.loads(result.output)
    assert [f["rule"] for f in document["findings"]] == ["R12"]
    assert document["fix"] == {
        "output": None,
        "changes": [],
        "counts": None,
        "refused": f"{run}: --fix cannot repair R12; first: {run}:1:score: error[R12]: score "
        "'nan' is not a number (trec_eval sorts it arbitrarily)",
    }
    assert not out.exists()


def _sources_opened(monkeypatch, then) -> list[Path]:
    """The paths of the Sources opened from now on (filled as they open); ``then(path)``
    is called once each is open, to change the file behind it."""
    from trecbench.inputs import streams

    opened = []
    source_init = streams.Source.__init__

    def counted(self, path, *args, **kwargs):
        opened.append(Path(path))
        source_init(self, path, *args, **kwargs)
        then(path)

    monkeypatch.setattr(streams.Source, "__init__", counted)
    return opened


@pytest.mark.parametrize("how", ["cli", "api"])
def test_fix_reads_the_run_once(how, tmp_path, invoke, monkeypatch):
    """validate --fix (and fix_run without a result) rewrites the bytes it validated: the
    run is opened once, not once to validate and again to fix, and read once: it is
    changed in place once opened, so that a second read (through a new Source or the same
    one) would validate or fix other bytes."""
    run = tmp_path / "r.run.gz"
    run.write_bytes(gzip.compress(b"1 Q0 b 1 1 t\n1 Q0 a 2 2 t\n"))
    out = tmp_path / "fixed.run"

    def change(path):
        with open(path, "r+b") as handle:  # the same file (inode), other content
            handle.write(gzip.compress(b"9 Q0 z 1 1 t\n"))
            handle.truncate()

    opened = _sources_opened(monkeypatch, change)
    if how == "cli":
        assert invoke(run, "--fix", out).exit_code == 0
    else:
        fix_run(run, out)
    assert opened == [run]
    assert out.read_text() == "1\tQ0\ta\t1\t2\tt\n1\tQ0\tb\t2\t1\tt\n"


@pytest.mark.parametrize("how", ["cli", "api"])
def test_fix_of_a_run_the_validation_stopped_on_reads_it_once(how, tmp_path, invoke, monkeypatch):
    """A validation that stops early (a UTF-16 run) is refused from the bytes it was given:
    the run is opened once, and emptied in place once opened, so that a second read would
    find an empty file (R26) instead of the UTF-16 refusal."""
    run = tmp_path / "r.run"
    run.write_bytes("1 Q0 b 1 1 t\n".encode("utf-16"))
    out = tmp_path / "fixed.run"
    opened = _sources_opened(monkeypatch, lambda path: Path(path).write_bytes(b""))
    if how == "cli":
        result = invoke(run, "--fix", out)
        assert result.exit_code == 2 and "error[R23]: the file is UTF-16" in result.output
    else:
        with pytest.raises(UnfixableError, match="cannot repair R23"):
            fix_run(run, out)
    assert opened == [run] and not out.exists()


def test_cli_binary_garbage_is_not_a_traceback(tmp_path, invoke):
    junk = tmp_path / "junk.run"
    junk.write_bytes(bytes(range(256)) * 4)
    result = invoke(junk)
    assert result.exit_code == 2 and "error[R23]" in result.output


# --- the docs document what the code does --------------------------------------------------

DOCS = Path(__file__).resolve().parents[1] / "docs"


def docs_page(name: str = "validate.md") -> str:
    return (DOCS / name).read_text(encoding="utf-8")


def test_rule_page_is_generated_from_the_rules():
    # regenerate with: python -m trecbench.validation.docs docs/validate-rules.md
    assert docs_page("validate-rules.md") == render_rules()


def test_docs_rule_table_matches_the_checks():
    letters = r" \| ([EWI])" * len(PROFILES)
    rows = re.findall(
        rf"^\| \[([RQX]\d+[.a-z0-9]*)\]\(#[a-z0-9]+\){letters} \|",
        docs_page("validate-rules.md"),
        re.M,
    )
    table = {key: severities for key, *severities in rows}
    assert table == {
        key: [check.severity(p)[0].upper() for p in PROFILES] for key, check in CHECKS.items()
    }


def test_docs_json_example_is_real(tmp_path, invoke, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("dup.run").write_bytes(b"1 Q0 a 1 2 t\n1 Q0 a 2 1 t\n")
    example = docs_page().split("```json\n")[1].split("```")[0]
    assert json.loads(invoke("dup.run", "--format", "json").output) == json.loads(example)


def test_streaming_equals_in_memory_on_random_runs(tmp_path):
    # topics in contiguous blocks, messy lines; any chunk size must give the same findings
    rng = random.Random(7)
    path = tmp_path / "r.run"
    for _ in range(30):
        lines = [
            rng.choice(" \t").join(
                [
                    q,
                    "Q0",
                    rng.choice("abcdef"),
                    rng.choice(["1", "2", "3", "0", "x"]),
                    rng.choice(["1", "2", "3", "2.5", "nan", "1e0"]),
                    "t",
                ]
            )
            + rng.choice(["", "", " junk"])
            + rng.choice(["\n", "\n", "\n\n", "\r\n"])
            for q in sorted(rng.choice(["q1", "q2", "q3"]) for _ in range(rng.randint(0, 40)))
        ]
        data = "".join(lines).encode()
        path.write_bytes(data)
        whole = {(f.rule, f.line, f.message) for f in findings(data, max_depth=5)}
        for chunk in (1, 90):
            streamed = validate_run(path, chunk_bytes=chunk, max_depth=5).findings
            assert {(f.rule, f.line, f.message.replace(str(path), "f")) for f in streamed} == whole


def test_trec_eval_fails_on_a_topic_judged_only_negatively(tmp_path):
    # trec_eval 9.0.8: "Can't calculate measure 'num_ret'", exit 4 (checked with the binary)
    qrels = tmp_path / "q.qrels"
    qrels.write_bytes(b"0 0 A -2\n0 0 B -1\n1 0 A 1\n")
    run = tmp_path / "r.run"
    run.write_bytes(b"0 Q0 A 1 1.0 t\n1 Q0 A 1 1 t\n")
    qrels_result, run_result = validate_files([run], qrels=qrels, profile="lenient")
    assert ("Q10", W, 1) in triples(qrels_result.findings)
    assert ("X5", E, 1) in triples(run_result.findings)
    info = qrels_info(trecbench.parse_qrels(qrels))
    assert info.topics == {"0", "1"} and info.negative_only == {"0": -1}


def test_a_negative_topic_stops_trec_eval_only_first_or_below_minus_one(tmp_path):
    # trec_eval 9.0.8 (checked with the binary): z9 after q1 scores (exit 0); a1 first
    # exits 4; z2 graded -2 after q1 crashes (SIGSEGV in te_form_res_rels)
    cases = {
        "later": (b"z9 0 a -1\nq1 0 a 1\n", b"q1 Q0 a 1 2 t\nz9 Q0 a 1 1 t\n", []),
        "first": (b"a1 0 a -1\nq1 0 a 1\n", b"a1 Q0 a 1 1 t\nq1 Q0 a 1 2 t\n", [1]),
        "-2 later": (b"q1 0 a 1\nz2 0 b -2\n", b"q1 Q0 a 1 2 t\nz2 Q0 b 1 1 t\n", [2]),
        "-2 first": (b"A 0 d1 -2\nB 0 d1 1\n", b"A Q0 d1 1 1 t\nB Q0 d1 1 1 t\n", [1]),
    }
    for name, (qrels_bytes, run_bytes, lines) in cases.items():
        qrels, run = tmp_path / f"{name}.qrels", tmp_path / f"{name}.run"
        qrels.write_bytes(qrels_bytes)
        run.write_bytes(run_bytes)
        _, result = validate_files([run], qrels=qrels, profile="lenient")
        found = [f for f in result.findings if f.rule == "X5"]
        assert [f.line for f in found] == lines, name
    assert "first topic it evaluates" in found_message(tmp_path, "first")
    assert "crashes" in found_message(tmp_path, "-2 later")
    assert "exit 4" in found_message(tmp_path, "-2 first")  # first: exit 4, not a crash


def found_message(folder, name) -> str:
    _, result = validate_files(
        [folder / f"{name}.run"], qrels=folder / f"{name}.qrels", profile="lenient"
    )
    return next(f.message for f in result.findings if f.rule == "X5")


def test_fixed_run_scores_like_the_original(trec_eval_suite, tmp_path):
    # trec_eval (via pytrec_eval) gives the same numbers on the canonical run
    import pytrec_eval

    def as_dict(frame, value):
        out: dict = {}
        for qid, docno, v in zip(frame["qid"], frame["docno"], frame[value], strict=True):
            out.setdefault(qid, {})[docno] = v
        return out

    qrels = as_dict(trecbench.read_qrels(trec_eval_suite / "qrels.test"), "rel")
    original = trec_eval_suite / "results.trunc"
    fixed = tmp_path / "fixed.run"
    fix_run(original, fixed, max_depth=None)
    measures = {"map", "ndcg_cut.10", "P.5", "recip_rank", "bpref"}
    scores = [
        pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(
            as_dict(trecbench.read_run(path), "score")
        )
        for path in (original, fixed)
    ]
    assert scores[0] == scores[1] and len(scores[0]) == 2


def test_tie_counts_are_counted_by_hand(tmp_path):
    # q1: b, c, d share 2 (a and e do not); q2: 1.00000002 and 1.00000001 are both 1.0 as
    # float32 (and differ as doubles); q3: both documents score 1
    data = (
        b"q1 Q0 a 1 3 t\nq1 Q0 b 2 2 t\nq1 Q0 c 3 2 t\nq1 Q0 d 4 2 t\nq1 Q0 e 5 1 t\n"
        b"q2 Q0 a 1 1.00000002 t\nq2 Q0 b 2 1.00000001 t\nq2 Q0 c 3 0.5 t\n"
        b"q3 Q0 a 1 1 t\nq3 Q0 b 2 1 t\n"
        # q4: every document shares its score, but the topic has two scores ("all 4
        # documents have the same score", it said)
        b"q4 Q0 a 1 2 t\nq4 Q0 b 2 2 t\nq4 Q0 c 3 1 t\nq4 Q0 d 4 1 t\n"
        # q5: in float32 order, not in double order: d0 and d2 tie as doubles too (10.0
        # ties them), but they were not neighbours in the file and went unsaid
        b"q5 Q0 d0 1 1 t\nq5 Q0 d1 2 1.00000001 t\nq5 Q0 d2 3 1 t\n"
        # q6: c and d tie as doubles, b ties both only at float32 (1.0f all three): each of
        # the three ties another only at float32 (it said 2, counting neighbours' pairs)
        b"q6 Q0 a 1 2 t\nq6 Q0 b 2 1.00000002 t\nq6 Q0 c 3 1.00000001 t\n"
        b"q6 Q0 d 4 1.00000001 t\n"
    )
    ties = [(f.line, f.message.split(";")[0]) for f in findings(data) if f.rule == "R15"]
    assert ties == [
        (2, "3 documents of topic q1 share their score with another document"),
        (
            6,
            "2 documents of topic q2 tie with another only at float32 precision "
            "(trec_eval 9.x ties them, 10.0 does not)",
        ),
        (9, "all 2 documents of topic q3 have the same score"),
        (11, "4 documents of topic q4 share their score with another document"),
        (15, "2 documents of topic q5 share their score with another document"),
        (
            15,
            "3 documents of topic q5 tie with another only at float32 precision "
            "(trec_eval 9.x ties them, 10.0 does not)",
        ),
        (
            19,
            "3 documents of topic q6 tie with another only at float32 precision "
            "(trec_eval 9.x ties them, 10.0 does not)",
        ),
        (20, "2 documents of topic q6 share their score with another document"),
    ]
    # the small path (a small run file validated whole) says the same
    from trecbench.validation import validate_run

    path = tmp_path / "ties.run"
    path.write_bytes(data)
    found = validate_run(str(path)).findings
    assert [(f.line, f.message.split(";")[0]) for f in found if f.rule == "R15"] == ties


@settings(max_examples=200, deadline=None)
@given(
    chunks=st.lists(st.lists(st.integers(0, 60), max_size=40), max_size=40),
    memory_keys=st.sampled_from([None, 0, 50]),
)
def test_the_duplicate_keys_hold_what_was_added(chunks, memory_keys):
    """The duplicate check's key set answers as a set would, in memory and on disk, and
    keeps few blocks to search however many chunks came (it kept one per chunk: a run
    whose topics are scattered looked each chunk up in all of them, quadratic time)."""
    keys = HashSet(memory_keys)
    added: set[int] = set()
    probe = np.arange(64, dtype=np.uint64)
    for chunk in chunks:
        assert keys.contains(probe).tolist() == [int(p) in added for p in probe]
        keys.add(np.sort(np.array(chunk, np.uint64)))
        added.update(chunk)
        in_memory = [len(b) for b in keys.blocks if not isinstance(b, np.memmap)]
        assert all(a >= 2 * b for a, b in itertools.pairwise(in_memory))
        on_disk = [len(b) for b in keys.blocks if isinstance(b, np.memmap)]
        assert all(size > memory_keys for size in on_disk)  # few blocks on disk too
    assert keys.contains(probe).tolist() == [int(p) in added for p in probe]


@settings(max_examples=100, deadline=None)
@given(
    chunks=st.lists(st.lists(st.integers(0, 60), max_size=40), max_size=30),
    memory_keys=st.sampled_from([None, 0, 50]),
    asked_each_time=st.booleans(),
)
def test_the_duplicate_keys_give_each_first_numbers(chunks, memory_keys, asked_each_time):
    """What a repeat names of a pair's first occurrence (its line, a qrels' grade): each key
    held answers with the numbers it came with, in memory and on disk, asked from the
    first chunk on or only at the end (they were not kept: a repeat across chunks named no
    line)."""
    keys = SeenKeys(memory_keys, width=2)
    added: dict[int, tuple[int, int]] = {}
    probe = np.arange(64, dtype=np.uint64)

    def answers() -> tuple[list, list]:
        found, numbers = keys.lookup(probe)
        return found.tolist(), [tuple(row) for row in numbers.tolist()]

    for at, chunk in enumerate(chunks):
        held = [int(p) for p in probe if int(p) in added]
        if asked_each_time:
            assert answers() == ([int(p) in added for p in probe], [added[p] for p in held])
        new = sorted(set(chunk) - set(added))
        keys.add(np.array(new, np.uint64), np.array([(at, k) for k in new], np.int64))
        added.update({k: (at, k) for k in new})
    held = [int(p) for p in probe if int(p) in added]
    assert answers() == ([int(p) in added for p in probe], [added[p] for p in held])


# ---------------------------------------------------------------------------------------
# Parquet: validated as score reads it (issue 25 item 5; it was read as TREC text)


def _parquet_of(tmp_path, columns: dict, name: str = "r.parquet") -> Path:
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = tmp_path / name
    pq.write_table(pa.table(columns), path)
    return path


def test_a_parquet_run_validates_as_its_trec_text(tmp_path):
    import pyarrow as pa

    columns = {
        "qid": pa.array(["1", "1", "1", "2"]).dictionary_encode(),
        "docno": ["d1", "d2", "d1", "d3"],
        "score": [3.0, 2.0, 1.0, 1.0],
        "tag": ["t"] * 4,
    }
    result = validate_run(_parquet_of(tmp_path, columns))
    text = tmp_path / "r.run"
    text.write_text("1 Q0 d1 1 3 t\n1 Q0 d2 2 2 t\n1 Q0 d1 3 1 t\n2 Q0 d3 1 1 t\n")
    expected = validate_run(text)
    assert (
        [(f.rule, f.line, f.field) for f in result.findings]
        == [(f.rule, f.line, f.field) for f in expected.findings]
        == [("R7", 3, "docno")]
    )
    assert result.counts["lines"] == 4


def test_a_clean_parquet_run_and_qrels_validate_clean_on_the_cli(tmp_path):
    run = _parquet_of(tmp_path, {"qid": ["1", "1"], "docno": ["a", "b"], "score": [2, 1]})
    qrels = _parquet_of(tmp_path, {"qid": ["1"], "docno": ["a"], "rel": [1]}, "q.parquet")
    result = CliRunner().invoke(cli, ["validate", str(run), "--qrels", str(qrels)])
    assert result.exit_code == 0, result.output
    assert "0 error(s), 0 warning(s)" in result.output


def test_a_parquet_run_score_refuses_is_an_error_finding_of_validate(tmp_path):
    # it raised: validate stopped with no finding and no report for the other files,
    # where a TREC text run's unreadable score is a finding (R12) and the call goes on
    import pyarrow as pa

    run = _parquet_of(
        tmp_path, {"qid": ["1"], "docno": ["a"], "score": pa.array([None], pa.float64())}
    )
    result = validate_run(run)
    assert not result.ok
    said = "row 1: score is missing; nothing else of the file is checked"
    found = [(f.check, f.severity, f.line, f.message) for f in result.findings]
    assert found == [("R32.parquet", "error", None, said)]
    corrupt = tmp_path / "corrupt.parquet"  # its footer's metadata zeroed: thrift's error
    stored = Path(run).read_bytes()
    footer = int.from_bytes(stored[-8:-4], "little")
    corrupt.write_bytes(stored[: -8 - footer] + bytes(footer) + stored[-8:])
    other = tmp_path / "other.run"
    other.write_text("1 Q0 a 1 2.5 t\n")
    done = CliRunner().invoke(cli, ["validate", str(run), str(corrupt), str(other)])
    assert done.exit_code == 2, done.output
    lines = done.output.splitlines()
    assert lines[0] == f"{run}: error[R32]: {said}"
    assert lines[1].startswith(f"{corrupt}: error[R27]: not a readable Parquet file: ")
    # Arrow's message ends in a line break: said without it (it was '...to read.%0A')
    assert lines[1].endswith("; nothing else of the file is checked"), lines[1]
    assert not lines[1].endswith("%0A; nothing else of the file is checked"), lines[1]
    assert lines[2:] == ["FAILED: 3 file(s), 1 line: 2 error(s), 0 warning(s), 0 info"]
    qrels = tmp_path / "q.txt"
    qrels.write_text("1 0 a 1\n")
    refused = subprocess.run(
        [sys.executable, "-m", "trecbench", "score", str(qrels), str(corrupt)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert refused.returncode == 2 and not refused.stderr.endswith("\\n\n"), refused.stderr


def test_a_run_checked_against_qrels_not_read_whole_is_refused(tmp_path):
    # since the Parquet qrels' refusal became a finding, validate_run returned ok with no
    # finding: the qrels' error in no result returned, X1-X5 left out (a truncated gzip
    # qrels was taken so before: its topics may be in the part never read)
    import pyarrow as pa

    run = tmp_path / "r.run"
    run.write_text("9 Q0 a 1 2.5 t\n")  # a topic no qrels judges: X1, X3 against whole qrels
    missing = _parquet_of(
        tmp_path,
        {"qid": ["1", "1"], "docno": ["a", "b"], "rel": pa.array([1, None], pa.int64())},
        "q.parquet",
    )
    with pytest.raises(InputError) as caught:
        validate_run(run, qrels=missing)
    assert (caught.value.path, caught.value.line) == (str(missing), None)
    assert caught.value.message.startswith("row 2: relevance is missing")
    truncated = tmp_path / "q.gz"
    text = "".join(f"{i % 7} 0 d{i} 1\n" for i in range(20000)).encode()
    truncated.write_bytes(gzip.compress(text)[:20000])
    with pytest.raises(InputError, match="corrupt or truncated gzip data"):
        validate_run(run, qrels=truncated)
    whole = tmp_path / "q.txt"
    whole.write_text("1 0 a 1\n")
    found = {f.check for f in validate_run(run, qrels=whole).findings}
    assert {"X1", "X3"} <= found


def test_findings_repeating_per_line_are_counted_with_the_first_few_kept():
    """Blank lines (and other per-line findings) keep at most ``limit`` findings per check
    and count the rest, through score's gate as through validate: the number kept does not
    grow with the lines (issue 25 item 9; a guard: the peak memory of such files is the
    tokenizer's per-line arrays, not the findings)."""
    from trecbench.gated.gate import _Gate
    from trecbench.validation import DEFAULT_LIMIT

    data = b"q1 Q0 d1 1 1.0 t\n" + b"\n" * 5000 + b"q1 Q0 d2 2 0.5 t \n" * 3000
    gate = _Gate("blank.run")
    gate.feed(tokenize(data, "blank.run"))
    report = gate.checker.report
    assert report.checks["R21"] == 5000 and report.checks["R25.trailing"] == 3000
    assert all(len(kept) <= DEFAULT_LIMIT for kept in report.kept.values())
    assert sum(len(kept) for kept in report.kept.values()) <= 2 * DEFAULT_LIMIT + 10
    from trecbench.validation import validate_tokens

    result = validate_tokens(tokenize(data, "blank.run"), "run", limit=10)
    assert result.counts["rules"]["R21"] == 5000 and result.check_counts["R7"] == 2999
    assert len(result.findings) <= 10 * len(result.check_counts) < 100


def _ties_by_hand(lines: list[tuple[str, str, float]]) -> dict[str, int]:
    """Per topic, the documents whose score (as a double) another document of the topic
    has too, wherever the two are in the file: what trec_eval ties."""
    scores: dict[str, list[float]] = {}
    for topic, _, score in lines:
        scores.setdefault(topic, []).append(score)
    counts = {t: sum(s.count(v) > 1 for v in s) for t, s in scores.items()}
    return {t: n for t, n in counts.items() if n}


def test_ties_of_a_topic_split_into_blocks_are_counted_together(tmp_path):
    # topic 1's 5 at line 1 ties with the two at lines 5 and 6, across topic 2's block: it
    # said "all 2 documents of topic 1 have the same score" of lines 5-6
    data = b"1 Q0 a 1 5 t\n1 Q0 b 2 4 t\n2 Q0 x 1 3 t\n2 Q0 y 2 2 t\n1 Q0 c 3 5 t\n1 Q0 d 4 5 t\n"
    ties = [(f.line, f.message.split(";")[0]) for f in findings(data) if f.rule == "R15"]
    assert ties == [(1, "3 documents of topic 1 share their score with another document")]
    # a run file of one chunk says the same (the small path leaves split topics to it)
    path = tmp_path / "split.run"
    path.write_bytes(data)
    assert [f.message for f in validate_run(path).findings if f.rule == "R15"] == [
        f.message for f in findings(data) if f.rule == "R15"
    ]


def test_split_topics_ties_match_a_count_by_hand(tmp_path):
    # seeded runs whose topics come back: in one chunk or in chunks of a few lines, each
    # topic's tie count is the count by hand (a topic met in several chunks said "at
    # least" its count within each stretch before issue 418; it is checked again whole)
    rng = random.Random(31)
    path = tmp_path / "r.run"
    prefixes = set()
    for _ in range(25):
        lines = [
            (rng.choice("123"), f"d{i}", float(rng.choice([1, 2, 3, 2.5, 7])))
            for i in range(rng.randint(2, 30))
        ]
        path.write_text("".join(f"{q} Q0 {d} 1 {s} t\n" for q, d, s in lines))
        expected = _ties_by_hand(lines)
        for chunk in (1 << 20, 40):
            said = {}
            for f in validate_run(path, chunk_bytes=chunk).findings:
                if f.check == "R15.tie":
                    found = re.match(r"(all )?(\d+) documents of topic (\S+)", f.message)
                    said[found[3]] = int(found[2])
                    prefixes.add(found[1])
            assert said == expected, chunk
    assert prefixes == {None, "all "}  # each wording was met


def test_ids_that_differ_in_bytes_that_are_not_utf8_are_not_duplicates(tmp_path):
    # trec_eval compares bytes: a\xff, a\xfe and a\xef\xbf\xbd (U+FFFD) are three documents
    # (num_ret 3, trec_eval 9.0.8); read with replacement characters they merged into
    # false duplicates (R7, Q5). Each bad byte now reads as its escape.
    qrels_result, run_result = _run_and_qrels(
        tmp_path,
        b"q1 Q0 a\xff 1 2 t\nq1 Q0 a\xfe 2 1 t\nq1 Q0 a\xef\xbf\xbd 3 0 t\n",
        b"q1 0 a\xff 1\nq1 0 a\xfe 0\n",
    )
    run = tmp_path / "r.run"
    rules = {f.rule for f in run_result.findings} | {f.rule for f in qrels_result.findings}
    assert "R23" in rules and "R7" not in rules and "Q5" not in rules
    run.write_bytes(b"q1 Q0 a\xff 1 2 t\nq1 Q0 a\xff 2 1 t\n")  # the same bytes twice
    (result,) = validate_files([run])
    assert [f.line for f in result.findings if f.rule == "R7"] == [2]
    assert "a\\xff" in next(f.message for f in result.findings if f.rule == "R7")


def _cut_gzip(path: Path, text: bytes) -> Path:
    """``text`` gzipped into ``path``, the second half of the compressed stream cut off."""
    data = gzip.compress(text)
    path.write_bytes(data[: len(data) // 2])
    return path


def _long_file(topics: list[str], qrels: bool = False) -> bytes:
    """A run (or qrels, each grade 1) of 20,000 documents a topic, their docnos random:
    gzipped and cut halfway, a run of q1, q2 and q3 holds q1 and part of q2."""
    rng = random.Random(0)
    lines = (
        (topic.encode(), rng.getrandbits(64), rank) for topic in topics for rank in range(20_000)
    )
    if qrels:
        return b"".join(b"%s 0 d%016x 1\n" % (qid, docno) for qid, docno, _ in lines)
    line = b"%s Q0 d%016x %d %d t\n"
    return b"".join(line % (qid, docno, rank + 1, 99_999 - rank) for qid, docno, rank in lines)


def _inflated_lines(path: Path) -> int:
    """The whole lines the standard library's zlib inflates of a cut gzip file: what is
    checked of it, independently of trecbench's readers."""
    return zlib.decompressobj(31).decompress(path.read_bytes()).count(b"\n")


@pytest.mark.parametrize("chunk_bytes", [64 << 10, 4 << 20])
def test_a_run_cut_short_says_nothing_of_what_it_lacks(tmp_path, chunk_bytes):
    # the run's topics it broke off before were said missing from it (X2, the rtask
    # profile's errors; R5), the topic it broke off in too shallow (R9.shallow); the lines
    # before the cut are checked, whatever the chunk size (reviewer 349: in one chunk, no
    # line was, "0 lines")
    qrels, topics = tmp_path / "q.qrels", tmp_path / "topics.txt"
    qrels.write_text("q1 0 d1 1\nq2 0 d1 1\nq3 0 d1 1\n")
    topics.write_text("q1\nq2\nq3\n")
    run = _cut_gzip(tmp_path / "r.run.gz", _long_file(["q1", "q2", "q3"]))
    checks = dict(qrels=qrels, topics=topics, min_depth=20_000, max_depth=None)
    for profile in ("default", "rtask"):
        result = validate_run(run, profile=profile, chunk_bytes=chunk_bytes, **checks)
        assert result.counts["lines"] == _inflated_lines(run) == 30_033
        assert {f.rule for f in result.findings} == {"R27"}
    whole = tmp_path / "r.run"  # the checks, on a whole run with q4 for q3
    whole.write_bytes(_long_file(["q1", "q2", "q4"]))
    result = validate_run(whole, **checks)
    assert {f.rule for f in result.findings} == {"R4", "R5", "X1", "X2", "X4"}


def test_qrels_cut_short_are_no_measure_of_a_run(tmp_path):
    # the run's topics were said not in the qrels (X1), none in both (X3); qrels topics
    # without a grade 2 (Q7): the rest of a topic may be in the part never read
    run = tmp_path / "r.run"
    run.write_bytes(b"q1 Q0 d1 1 1 t\nq2 Q0 d1 1 1 t\n")
    six_topics = [f"q{topic}" for topic in range(1, 7)]
    qrels = _cut_gzip(tmp_path / "q.qrels.gz", _long_file(six_topics, qrels=True))
    qrels_result, run_result = validate_files([run], qrels=qrels, relevance_level=2)
    assert [f.rule for f in qrels_result.findings] == ["R27"]
    assert run_result.findings == []
    # in chunks of 64 KB, q1, q2 and part of q3 are read before it breaks off: no Q7
    qrels_result = validate_qrels(qrels, relevance_level=2, chunk_bytes=64 << 10)
    assert [f.rule for f in qrels_result.findings] == ["R27"]
    assert qrels_result.counts["lines"] > 40_000
    whole = tmp_path / "q.qrels"  # the checks, on whole qrels
    whole.write_bytes(_long_file(six_topics, qrels=True))
    qrels_result, run_result = validate_files([run], qrels=whole, relevance_level=2)
    assert [f.rule for f in qrels_result.findings] == ["Q7"] * 6
    assert {f.rule for f in run_result.findings} == {"X2", "X4"}


def test_a_small_truncated_gzip_is_truncated_not_empty(tmp_path):
    # half of its data inflates: R27 says what is wrong; R26 "empty file" was false (the
    # lines before the cut are checked: their ranks and scores, R11 and R15)
    data = gzip.compress(b"".join(b"q1 Q0 d%d 1 1 t\n" % i for i in range(500)))
    path = tmp_path / "t.run.gz"
    path.write_bytes(data[: len(data) // 2])
    (result,) = validate_files([path])
    assert {f.rule for f in result.findings} == {"R27", "R11", "R15"}
    path.write_bytes(gzip.compress(b""))  # an empty file, compressed: empty
    (result,) = validate_files([path])
    assert {f.rule for f in result.findings} == {"R26"}


def test_a_control_character_in_a_rank_is_not_said_to_be_in_an_id(tmp_path):
    # R23 said "part of an id to trec_eval" of an ESC in the rank (R10) or a SOH in the
    # score (R12, atof reads 3.0): no id holds it
    run = tmp_path / "c.run"
    run.write_bytes(b"q1 Q0 a 1\x1b 3 t\nq1 Q0 b 2 2\x01 t\n")
    found = {f.line: f.message for f in validate_run(run).findings if f.rule == "R23"}
    said = "C0 control character or DEL (invisible, and part of its field to trec_eval)"
    assert found == {1: said, 2: said}


def test_a_nul_byte_is_said_to_stop_trec_eval_or_crash_it(tmp_path):
    # R23 said trec_eval "silently stops reading the file here": true where a NUL starts
    # a line; inside one trec_eval 9.0.8 crashes (segmentation fault, exit 139)
    run = tmp_path / "n.run"
    run.write_bytes(b"q1 Q0 a 1 2 t\nq1 Q0 b 2 1 t\x00x\n")
    (finding,) = [f for f in validate_run(run).findings if f.rule == "R23"]
    # 9.0.8 and 10.0 alike, not "9.x" alone: 10.0 stops or aborts too (reviewer 348)
    assert "here without a word, or crashes: 9.0.8 and 10.0 alike" in finding.message


@pytest.mark.parametrize("profile", ["lenient", "default"])
def test_a_file_of_hash_lines_trec_eval_reads_is_not_empty(tmp_path, profile):
    # trec_eval 9.0.8 scores '#1 Q0 a 1 2.0 t' (topic #1: P_1 1.0), and so does score;
    # validate said error[R9]: no data lines, under lenient (score's gate) too
    run, qrels = tmp_path / "hh.run", tmp_path / "hh.qrels"
    run.write_text("#1 Q0 a 1 2.0 t\n")
    qrels.write_text("#1 0 a 1\nq2 0 b 1\n")
    report = validate_run(str(run), profile=profile)
    assert [f.rule for f in report.findings] == ["R22"] and report.ok
    assert trecbench.evaluate(str(qrels), str(run), ["P.1"]).to_dict()["#1"]["P.1"] == 1.0


@pytest.mark.parametrize(("name", "tag", "ok"), [
    ("a.run", "a.run", True), ("a.run", "a", True), ("bm25.run.gz", "bm25.run", True),
    ("run.v2", "run.v2", True), ("a.run", "b.run", False), ("a.txt", "a.run", False),
])  # fmt: skip
def test_a_tag_names_its_file_with_or_without_the_extension(tmp_path, name, tag, ok):
    # 'a.run' tagged a.run: "error[R19]: tag 'a.run' differs from the file name 'a'"
    run = tmp_path / name
    text = f"q1 Q0 a 1 1 {tag}\n".encode()
    run.write_bytes(gzip.compress(text) if name.endswith(".gz") else text)
    (result,) = validate_files([str(run)], tag_is_filename=True)
    assert ("R19" not in [f.rule for f in result.findings]) == ok


# chunk sizes that cut the files below at many places (a few lines, each line), and whole
CHUNK_SIZES = (20, 30, 40, 64, 100, 1 << 20)


def _same_whatever_the_chunks(validate, path: Path) -> list[tuple]:
    """The findings (and counts) of ``validate(path, chunk_bytes=...)``, the same for every
    chunk size of :data:`CHUNK_SIZES`, with the duplicate check's keys in memory or on disk
    (text and JSON reports alike)."""
    found = {}
    for chunk, memory in itertools.product(CHUNK_SIZES, (None, 1)):  # 1 MiB: keys on disk
        result = validate(path, chunk_bytes=chunk, memory=memory)
        text = [*report.text_lines(result, show=0), report.summary_line([result])]
        found[chunk, memory] = ("\n".join(text), report.to_json([result]))
    assert len(set(found.values())) == 1, found
    return [(f.rule, f.line, f.message) for f in validate(path).findings]


def _r7(first: int) -> str:
    return (
        f"duplicate docno d3 in topic q1 (first at line {first}); trec_eval stops with "
        "'duplicate docs' (exit 4)"
    )


def test_a_duplicate_across_chunks_is_said_once_naming_its_first_line(tmp_path):
    """R7 of a topic split into blocks met in different chunks: each repeat once, named with
    the document's first line, whatever the chunk size (a repeat found both within its chunk
    and among the earlier chunks' keys was said twice, once as 'listed in an earlier block
    of the topic', which named no line)."""
    lines = [f"q{t} Q0 d{i} {i + 1} {100 - i} t" for t in (1, 2) for i in range(20)]
    path = tmp_path / "split.run"
    path.write_text("\n".join([*lines, "q1 Q0 d3 21 1 t", "q1 Q0 d3 22 0 t"]) + "\n")
    duplicates = [f for f in _same_whatever_the_chunks(validate_run, path) if f[0] == "R7"]
    # the file's line 4 is q1's d3; 41 and 42 repeat it
    assert duplicates == [("R7", 41, _r7(4)), ("R7", 42, _r7(4))]
    assert "listed in an earlier block" not in CHECKS["R7"].doc


def test_a_judgment_repeated_across_chunks_is_said_once_naming_its_first_line(tmp_path):
    """Q5 across chunks: each repeat once, with the first judgment's line and grade,
    whatever the chunk size (a repeat of a pair an earlier chunk held that repeated it
    again within its chunk was said twice, 'judged in an earlier part of the file')."""
    lines = ["q1 0 dup 1", *(f"q2 0 d{i} 0" for i in range(30)), "q1 0 dup 1", "q1 0 dup 2"]
    path = tmp_path / "dup.qrels"
    path.write_text("\n".join(lines) + "\n")
    duplicates = [f for f in _same_whatever_the_chunks(validate_qrels, path) if f[0] == "Q5"]
    assert duplicates == [
        ("Q5", 32, "duplicate judgment of dup for topic q1 (first at line 1; same grade 1)"),
        (
            "Q5",
            33,
            "duplicate judgment of dup for topic q1 (first at line 1; conflicting grades 1 and 2)",
        ),
    ]


def test_a_judgment_repeated_with_the_grade_written_otherwise_is_said_of_the_same_grade(tmp_path):
    """Q5 of ``1`` then ``01`` (or ``+1``, ``-0`` then ``0``): one grade to trec_eval's atol
    and to trecbench, so the same grade as written twice, not conflicting grades (which
    said the judgments disagree); text that is no integer (Q3) still conflicts. The small
    path says it as the general path does."""
    lines = ["q1 0 a 1", "q1 0 a 01", "q1 0 b +1", "q1 0 b 1", "q1 0 c -0", "q1 0 c 0"]
    path = tmp_path / "written.qrels"
    path.write_text("\n".join([*lines, "q1 0 d 1.0", "q1 0 d 1"]) + "\n")
    grades = ["same grade 1, written 1 and 01", "same grade 1, written +1 and 1"]
    grades += ["same grade 0, written -0 and 0", "conflicting grades 1.0 and 1"]
    expected = [
        ("Q5", line, f"duplicate judgment of {doc} for topic q1 (first at line {line - 1}; {g})")
        for line, doc, g in zip((2, 4, 6, 8), "abcd", grades, strict=True)
    ]
    general = [f for f in _same_whatever_the_chunks(validate_qrels, path) if f[0] == "Q5"]
    assert general == expected
    small = tmp_path / "small.qrels"  # leading zeros the small path takes; a sign it does not
    small.write_text("\n".join(lines[:2]) + "\n")
    taken = validate_small([], small, SmallSettings("default", 1000))
    assert [(f.rule, f.line, f.message) for f in taken[0].findings] == expected[:1]


def test_a_grade_of_more_digits_than_python_converts_repeated_is_said_as_written(tmp_path):
    """Q5's "same grade" compares the grades as text: a grade of 5,000 digits (Q4) judged
    twice, once with a leading zero, stopped validate with an internal error (Python's
    int conversion limit, exit 70); -01 and -1 are one grade, -1 and 1 two. Each grade is
    cut as Q4 cuts it (a line of 15,000 characters), compared whole: two grades that differ
    in their middle digits conflict, though cut alike."""
    big = "9" * 5000
    cut, cut_zero = excerpt_plain(big), excerpt_plain(f"0{big}")
    path = tmp_path / "long.qrels"
    other = big[:2000] + "8" + big[2001:]  # cut as big is
    lines = [f"q1 0 a {big}", f"q1 0 a 0{big}", "q1 0 b -01", "q1 0 b -1", "q1 0 c -1", "q1 0 c 1"]
    path.write_text("\n".join([*lines, f"q1 0 d {big}", f"q1 0 d {other}"]) + "\n")
    said = [f[2] for f in _same_whatever_the_chunks(validate_qrels, path) if f[0] == "Q5"]
    assert excerpt_plain(other) == cut
    assert said == [
        f"duplicate judgment of a for topic q1 (first at line 1; same grade {cut}, written "
        f"{cut} and {cut_zero})",
        "duplicate judgment of b for topic q1 (first at line 3; same grade -1, written -01 and -1)",
        "duplicate judgment of c for topic q1 (first at line 5; conflicting grades -1 and 1)",
        f"duplicate judgment of d for topic q1 (first at line 7; conflicting grades {cut} and "
        f"{cut})",
    ]
    run = tmp_path / "r.run"
    run.write_text("q1 Q0 a 1 1 t\n")
    result = CliRunner().invoke(cli, ["validate", "--qrels", str(path), str(run)])
    assert result.exit_code == 2 and result.output.count("error[Q5]") == 4


def test_every_finding_quotes_a_long_id_cut(tmp_path):
    """R7, Q5 and the per-topic findings (R9, R11, R13-R15, R20) printed a docno or qid
    whole: a 200,000-character docno given twice made a finding line of that length (one
    of 70 MiB, 73 million characters). They cut it as every other finding does."""
    docno, topic = "L" * 200_000, "T" * 100_000
    (tmp_path / "r.run").write_text(f"q1 Q0 {docno} 1 3 t\nq1 Q0 {docno} 2 2 t\n")
    (tmp_path / "q.qrels").write_text(f"q1 0 {docno} 1\nq1 0 {docno} 0\n")
    (tmp_path / "t.run").write_text(
        f"{topic}b Q0 a 2 1 t\n{topic}b Q0 b 4 3 t\n{topic}b Q0 c 4 3 t\n{topic}a Q0 a 1 1 t\n"
        f"{topic}b Q0 z 9 0 t\n"
    )
    argv = ["validate", str(tmp_path / "r.run"), "--qrels", str(tmp_path / "q.qrels")]
    said = CliRunner().invoke(cli, argv).output.splitlines()
    assert [line.split(": ")[1] for line in said if "[R7]" in line or "[Q5]" in line] == [
        "error[Q5]", "error[R7]"
    ]  # fmt: skip
    argv = ["validate", str(tmp_path / "t.run"), "--min-depth", "5"]
    said += CliRunner().invoke(cli, argv).output.splitlines()
    rules = {line.split("[")[1].split("]")[0] for line in said if "[" in line}
    assert {"R9", "R11", "R13", "R14", "R15", "R20"} <= rules
    assert max(map(len, said)) < 400
    assert excerpt_plain(docno) in said[0] + said[1] and excerpt_plain(f"{topic}b") in said[-2]
    (tmp_path / "n.qrels").write_text(f"{topic} 0 d1 -1\nq2 0 d1 1\n")  # Q10 of the topic
    said = CliRunner().invoke(cli, ["validate", "--qrels", str(tmp_path / "n.qrels")]).output
    (q10,) = [line for line in said.splitlines() if "[Q10]" in line]
    assert len(q10) < 400 and excerpt_plain(topic) in q10


SWAPPED_RUN = (
    "this looks like qrels, not a run (every line has 4 fields, an integer last): are the "
    "run and qrels arguments swapped?"
)
SHORT_RUN_LINE = "expected 6 fields (qid Q0 docno rank score tag), found 4"


@pytest.mark.parametrize(
    ("name", "text", "validate", "expected"),
    [
        # a run line last, without its newline (it was a chunk of its own, and only the
        # first chunk was looked at: "every line has 4 fields", "1 line")
        (
            "mixnf.run",
            "q1 0 a 1\nq1 Q0 a 1 2.0 t",
            validate_run,
            [("R1", 1, SHORT_RUN_LINE), ("R25", 2, "no newline at the end of file")],
        ),
        (
            "mixnf.qrels",
            "q1 Q0 a 1 2.0 t\nq1 0 a 1",
            validate_qrels,
            [
                ("Q1", 1, "expected 4 fields (qid iter docno rel), found 6"),
                ("R25", 2, "no newline at the end of file"),
            ],
        ),
        (
            "r32nf.run",
            "q1 d1 1\nq1 Q0 d2 1 2 t",
            validate_run,
            [
                (
                    "R1",
                    1,
                    "expected 6 fields (qid Q0 docno rank score tag), found 3 (an MS MARCO qid "
                    "pid rank run? convert it with 'trecbench convert msmarco')",
                ),
                ("R25", 2, "no newline at the end of file"),
            ],
        ),
        # qrels lines for many chunks, then a run line: every qrels line is said
        (
            "late.run",
            "".join(f"q1 0 d{i} 1\n" for i in range(6)) + "q1 Q0 d9 1 2.0 t\n",
            validate_run,
            [("R1", line, SHORT_RUN_LINE) for line in range(1, 7)],
        ),
        # qrels to the end, after blank lines: one finding, whatever chunk they end in
        (
            "qrels.run",
            "\n" * 30 + "".join(f"q1 0 d{i} 1\n" for i in range(6)),
            validate_run,
            [("R29", None, SWAPPED_RUN)],
        ),
        (
            "msmarco.run",
            "".join(f"1 d{i} {i + 1}\n" for i in range(6)),
            validate_run,
            [
                (
                    "R32",
                    None,
                    "3 fields on every line (an MS MARCO qid pid rank run?), not a TREC run: "
                    "convert it first (trecbench convert msmarco; see 'trecbench convert "
                    "--help' and the docs' convert.md)",
                )
            ],
        ),
    ],
)
def test_whole_file_verdicts_read_every_line_whatever_the_chunks(
    tmp_path, name, text, validate, expected
):
    """R29, Q11 and R32 say of the file what all of its lines show, whatever the chunk
    size (they looked at the first chunk only), and the lines are all counted."""
    path = tmp_path / name
    path.write_text(text)
    assert _same_whatever_the_chunks(validate, path) == expected
    assert validate(path, chunk_bytes=20).counts["lines"] == text.count("\n") + (
        not text.endswith("\n")
    )


def test_a_doubly_gzipped_file_counts_no_line(tmp_path):
    """A file gzipped twice is refused in one line and none of its binary content counts
    as lines (it said "745 lines" of a run gzipped twice)."""
    path = tmp_path / "twice.run.gz"
    text = "".join(f"q1 Q0 d{i} {i + 1} {1000 - i} t\n" for i in range(20000))
    path.write_bytes(gzip.compress(gzip.compress(text.encode()), mtime=0))
    result = validate_run(path)
    found = [(f.rule, f.line, f.message) for f in result.findings]
    assert found == [
        ("R27", None, "the file is compressed twice (gzip inside); decompress it once more")
    ]
    assert (result.counts["lines"], result.counts["records"]) == (0, 0)


@pytest.mark.parametrize(("inner", "name"), [(bz2.compress, "bz2"), (lzma.compress, "xz")])
def test_a_file_of_another_compression_inside_gzip_is_one_r27(tmp_path, inner, name):
    """zstd (bz2, xz) inside gzip: some 20 findings of binary garbage (R1, R12, R23), where
    gzip inside gzip was one R27."""
    path = tmp_path / "twice.run.gz"
    path.write_bytes(gzip.compress(inner(b"q1 Q0 d1 1 1 t\n" * 1000), mtime=0))
    found = [(f.rule, f.line, f.message) for f in validate_run(path).findings]
    message = f"the file is compressed twice ({name} inside); decompress it once more"
    assert found == [("R27", None, message)]


def _messages(path: Path, qrels: Path | None = None, small: bool = False, **checks) -> list:
    """``(file name, line, rule, message)`` of each finding of the general path, or of the
    small path (:mod:`trecbench.validation.small`, what validate takes for small plain
    files), which must take it."""
    if small:
        from trecbench.validation.small import SmallSettings, validate_small

        depth = checks.get("max_depth", 1000)
        settings = SmallSettings("default", depth, checks.get("min_depth"))
        results = validate_small([path], qrels, settings)
    else:
        results = validate_files([path], qrels=qrels, **checks)
    return [
        (Path(result.path).name, finding.line, finding.rule, finding.message)
        for result in results
        for finding in result.findings
        if finding.rule != "X4"
    ]


@pytest.mark.parametrize("small", [True, False])
def test_a_duplicate_names_the_first_line_of_its_document(tmp_path, small):
    # the third d1 was "(first at line 2)", the line before it: the first is line 1
    run, qrels = tmp_path / "r.run", tmp_path / "q.qrels"
    run.write_bytes(b"q1 Q0 d1 1 3 t\nq1 Q0 d2 2 2 t\nq1 Q0 d1 3 1 t\nq1 Q0 d1 4 0 t\n")
    qrels.write_bytes(b"q1 0 d1 2\nq1 0 d2 1\nq1 0 d1 1\nq1 0 d1 0\n")
    stops = "; trec_eval stops with 'duplicate docs' (exit 4)"
    assert _messages(run, qrels, small) == [
        ("q.qrels", 3, "Q5", "duplicate judgment of d1 for topic q1 (first at line 1; "
         "conflicting grades 2 and 1)"),
        ("q.qrels", 4, "Q5", "duplicate judgment of d1 for topic q1 (first at line 1; "
         "conflicting grades 2 and 0)"),
        ("r.run", 3, "R7", f"duplicate docno d1 in topic q1 (first at line 1){stops}"),
        ("r.run", 4, "R7", f"duplicate docno d1 in topic q1 (first at line 1){stops}"),
    ]  # fmt: skip


@pytest.mark.parametrize("small", [True, False])
def test_a_duplicate_in_a_topic_the_qrels_lack_does_not_say_trec_eval_stops(tmp_path, small):
    # trec_eval 9.0.8 and 10.0 evaluate only the qrels' topics: of q2's d1 twice they print
    # their numbers (exit 0, as score does), where R7 said "trec_eval stops" beside X1's
    # "trec_eval ignores it"
    run, qrels = tmp_path / "r.run", tmp_path / "q.qrels"
    run.write_bytes(b"q1 Q0 d1 1 3 t\nq2 Q0 d1 1 2 t\nq2 Q0 d1 2 1 t\n")
    qrels.write_bytes(b"q1 0 d1 1\n")
    found = [m for m in _messages(run, qrels, small) if m[2] == "R7"]
    assert found == [
        ("r.run", 3, "R7", "duplicate docno d1 in topic q2 (first at line 2); the qrels do "
         "not judge the topic, so trec_eval ignores it rather than stop with 'duplicate docs'"),
    ]  # fmt: skip


@pytest.mark.parametrize("small", [True, False])
def test_depths_of_one_document_are_said_in_the_singular(tmp_path, small):
    # "topic q2 has 1 documents", "more than 1 documents"
    run = tmp_path / "r.run"
    run.write_bytes(b"q1 Q0 d1 1 2 t\nq1 Q0 d2 2 1 t\nq2 Q0 d1 1 1 t\n")
    assert _messages(run, None, small, max_depth=1) == [
        ("r.run", 2, "R8", "topic q1 has more than 1 document (--max-depth 1); trec_eval "
         "scores them all unless run with -M1"),
    ]  # fmt: skip
    assert _messages(run, None, small, min_depth=2, max_depth=2) == [
        ("r.run", 3, "R9", "topic q2 has 1 document, fewer than --min-depth 2"),
    ]


@pytest.mark.parametrize("cut", [300, 2000, 9000])
@pytest.mark.parametrize("chunk_bytes", [256, 64 << 10, 4 << 20])
def test_the_part_of_a_cut_gzip_before_the_cut_is_checked_whatever_the_chunk(
    tmp_path, cut, chunk_bytes
):
    # reviewer 349: a run with nan on line 5 cut at 2000 bytes gave R27 alone and 0 lines
    # (the read of a chunk that failed dropped what it had inflated), R12 on line 5 when
    # the chunk was smaller or the file larger
    score = [b"nan" if i == 5 else b"%d" % -i for i in range(10_000)]
    lines = [b"1 Q0 d%d %d %s t\n" % (i, i, score[i]) for i in range(1, 10_000)]
    path = tmp_path / "t.run.gz"
    path.write_bytes(gzip.compress(b"".join(lines))[:cut])
    result = validate_run(path, chunk_bytes=chunk_bytes, max_depth=None)
    assert result.counts["lines"] == _inflated_lines(path) > 5
    assert {(f.rule, f.line) for f in result.findings} == {("R27", None), ("R12", 5)}


@pytest.mark.parametrize("suffix", ["bz2", "xz", "zst", "lz4"])
def test_what_is_checked_of_a_cut_file_does_not_depend_on_the_chunk_size(tmp_path, suffix):
    # bzip2, zstd and lz4 decode whole blocks (the cut one is lost), xz every byte: what
    # each gives is checked whatever the reads' sizes (an Arrow read that failed dropped
    # the bytes it had decoded: a count of lines that moved with the chunk size)
    import bz2
    import lzma

    import pyarrow as pa

    text = _long_file(["q1", "q2", "q3"])
    compress = {"bz2": bz2.compress, "xz": lzma.compress}.get(suffix)
    compress = compress or pa.Codec({"zst": "zstd"}.get(suffix, suffix)).compress
    whole = tmp_path / f"w.run.{suffix}"
    whole.write_bytes(bytes(compress(text)))
    cut = tmp_path / f"c.run.{suffix}"
    cut.write_bytes(whole.read_bytes()[: whole.stat().st_size * 3 // 4])
    sizes = (4096, 64 << 10, 4 << 20)
    counts = {validate_run(cut, chunk_bytes=size).counts["lines"] for size in sizes}
    assert len(counts) == 1 and counts.pop() > 0


@pytest.mark.parametrize(
    ("name", "text", "header"),
    [
        (
            "h.run",
            "qid Q0 docno rank score tag\nqid Q0 docno rank score tag\n1 Q0 d 1 1 t\n",
            "R28",
        ),
        ("h.qrels", "qid iter docno rel\nqid iter docno rel\n1 0 d 1\n", "Q9"),
    ],
)
def test_the_headers_are_the_same_whatever_the_chunks(tmp_path, name, text, header):
    """A header line alone in a chunk made the next chunk's first record a header too (R28
    or Q9 at line 2, where a file read whole checked it as data); a header line later in
    the file is one too (runs concatenated, a header each), whatever the chunks."""
    path = tmp_path / name
    path.write_text(text)
    validate = validate_run if name.endswith(".run") else validate_qrels
    found = _same_whatever_the_chunks(validate, path)
    assert [line for rule, line, _ in found if rule == header] == [1, 2]
    path.write_text(text.splitlines(keepends=True)[-1] + text)  # the data line first
    found = _same_whatever_the_chunks(validate, path)
    assert [line for rule, line, _ in found if rule == header] == [2, 3]


def test_x3_says_what_each_trec_eval_does_with_no_topic_in_common(tmp_path):
    """X3 said 'trec_eval exits 7', which 9.0.8 does; 10.0 stops at the first qrels topic
    the run lacks (exit 4), and with -c scores it 0 (exit 0)."""
    run, qrels = tmp_path / "r.run", tmp_path / "q.qrels"
    run.write_text("q1 Q0 d1 1 1 t\n")
    qrels.write_text("q2 0 d1 1\n")
    (x3,) = [f.message for f in validate_run(run, qrels=qrels).findings if f.check == "X3"]
    assert "9.0.8 exits 7" in x3 and "10.0 stops" in x3 and "exit 4" in x3 and "-c" in x3
    binaries = {"te908": (7, 7), "te100": (4, 0)}  # exit without -c, with -c
    for name, exits in binaries.items():
        binary = f"/work/tools/{name}/trec_eval"
        if not os.access(binary, os.X_OK):
            continue
        got = tuple(
            subprocess.run([binary, *flags, str(qrels), str(run)], capture_output=True).returncode
            for flags in ([], ["-c"])
        )
        assert got == exits, name


def test_tags_beyond_the_first_100_are_one_finding_whatever_the_chunks(tmp_path):
    """R17's cap was per chunk: read whole, 99 tags said one by one and 'more than 100'
    for the rest at line 1; in small chunks every tag one by one (249 findings)."""
    path = tmp_path / "tags.run"
    path.write_text("".join(f"1 Q0 d{i} {i + 1} {1000 - i} t{i}\n" for i in range(250)))
    found = [f for f in _same_whatever_the_chunks(validate_run, path) if f[0] == "R17"]
    assert len(found) == 100
    assert found[-1] == ("R17", 101, "more than 100 distinct run tags")
    assert validate_run(path).counts["rules"]["R17"] == 249  # every other tag counted


def test_a_stream_broken_off_says_after_which_line(tmp_path):
    """A truncated gzip run (R27) was said without a line: the finding now names the last
    whole line read (zcat's count of them), so the user knows how much was read."""
    import subprocess

    lines = b"".join(b"q%d Q0 d%d 1 %d.5 t\n" % (i // 100, i, 5000 - i) for i in range(5000))
    cut = tmp_path / "cut.run.gz"
    cut.write_bytes(gzip.compress(lines)[:-2000])
    whole = subprocess.run(["sh", "-c", f"zcat {cut} | wc -l"], capture_output=True)
    read = int(whole.stdout)
    assert 0 < read < 5000
    (finding,) = [f for f in validate_run(cut).findings if f.rule == "R27"]
    assert finding.line is None
    assert finding.message.endswith(f" (after line {read}, the last whole line read)")


def test_a_grade_that_is_no_integer_counts_as_trec_evals_atol_reads_it(tmp_path):
    # q2 judged 1.5 and -1: trec_eval 9.0.8 reads 1.5 as 1 (num_rel 1, map 1.0 for q2,
    # exit 0), where validate said every judgment of q2 negative (Q10) and x unjudged
    qrels = tmp_path / "q"
    qrels.write_bytes(b"q2 0 x 1.5\nq2 0 y -1\nq1 0 a 1\n")
    assert triples(findings(qrels.read_bytes(), "qrels")) == {("Q3", E, 1), ("Q6", W, 2)}
    run = tmp_path / "r"
    run.write_bytes(b"q1 Q0 a 1 1 t\nq2 Q0 x 1 2 t\nq2 Q0 z 2 1 t\n")
    results = validate_files([run], qrels=qrels)  # the qrels' result, then the run's
    assert [f.rule for f in results[0].findings] == ["Q3", "Q6"]
    (x4,) = [f for f in results[-1].findings if f.rule == "X4"]
    assert x4.message.startswith("1 of 3 documents in the top 10 of judged topics is unjudged")


def test_a_data_line_naming_a_column_is_no_header():
    # a later line whose score is 'rank' and tag 'run' was taken for a header (R28) and
    # --fix dropped it: trec_eval 9.0.8 reads it as d2 at score 0 (map 0.3333 where d2 is
    # relevant, 0 without it); a header of any case past the first line is one
    data = b"301 Q0 d1 1 2.5 run\n301 Q0 d2 2 rank run\n301 Q0 d3 3 1.5 run\n"
    assert {rule for rule, _, _ in triples(findings(data))} == {"R12"}
    cased = OK_RUN + b"QID Q0 DocNo Rank sCore Tag\n" + OK_RUN
    assert ("R28", E, 3) in triples(findings(cased))
    judged = b"1 0 a 1\n301 0 doc label\n"  # a grade 'label' of a doc 'doc': a judgment
    assert "Q9" not in {rule for rule, _, _ in triples(findings(judged, "qrels"))}
    # the first line too, when its rank is an integer (helper-630): a document 'doc' of
    # tag 'run' with a bad score was a header, its R12 unsaid and --fix dropped the line
    first = b"q1 Q0 doc 1 nan run\nq1 Q0 d2 2 1.0 run\n"
    assert triples(findings(first)) == {("R12", E, 1)}
    ranked = b"q1 Q0 doc 1.0 nan run\nq1 Q0 d2 2.0 1.0 run\n"  # ranks --fix renumbers
    assert "R28" not in {rule for rule, _, _ in triples(findings(ranked))}
    named = b"qid Q0 docno rank score tag\n" + OK_RUN
    assert ("R28", E, 1) in triples(findings(named))


@pytest.mark.parametrize("profile", ["default", "strict", "lenient", "rtask"])
def test_records_a_lone_cr_joins_are_an_error_in_every_profile(tmp_path, profile):
    # classic Mac line ends: trec_eval 9.0.8 reads one line, its first record (num_ret 1
    # of 3); the lenient gate passed it (R1.extra "a tag with a space?", R2 warnings) and
    # score printed that number with exit 0
    data = b"q1 Q0 d1 1 3 t\rq1 Q0 a 2 2 t\rq1 Q0 d3 3 1 t\r"
    found = [f for f in findings(data, profile=profile) if f.check == "R1.joined"]
    assert [(f.severity, f.line) for f in found] == [(E, 1)]
    assert found[0].message.startswith("18 fields on one line split by a lone CR")
    # a tag with a space is the extra fields' own case, and one lone CR no record
    assert "R1.joined" not in {f.check for f in findings(b"q1 Q0 d1 1 3 my run\r x\n")}


@pytest.mark.parametrize("chunk", [1 << 20, 24], ids=["whole", "line-a-chunk"])
def test_a_duplicate_in_a_topic_the_qrels_lack_is_a_warning_under_lenient(tmp_path, chunk):
    # trec_eval never evaluates q9, so neither stops nor changes a number, and score's gate
    # let it pass; validate --profile lenient said error (reviewer 667)
    qrels, path = tmp_path / "q.txt", tmp_path / "r.run"
    qrels.write_text("q1 0 a 1\nq1 0 b 0\n")
    path.write_text("q1 Q0 a 1 2.0 t\nq1 Q0 a 2 1.0 t\nq9 Q0 z 1 1 t\nq9 Q0 z 2 1 t\n")
    for profile, unjudged in (("lenient", W), ("default", E)):
        found = validate_run(path, qrels=qrels, profile=profile, chunk_bytes=chunk).findings
        assert [(f.check, f.severity, f.line) for f in found if f.rule == "R7"] == [
            ("R7", E, 2),
            ("R7.unjudged", unjudged, 4),
        ]


def test_a_grade_that_is_no_integer_is_said_as_atol_reads_it():
    # every Q3 said "(trec_eval's atol reads 1.5 as 1 and abc as 0)", 1abc too (reviewer 667)
    found = findings(b"q1 0 a 1.5\nq1 0 b 1abc\nq1 0 c abc\nq1 0 d -2x\n", "qrels")
    said = [f.message.split("(")[-1] for f in found if f.rule == "Q3"]
    assert said == [f"trec_eval's atol reads it as {n})" for n in (1, 1, 0, -2)]


def test_a_qrels_hash_after_leading_blanks_is_data_to_trec_eval_10_too():
    # 10.0's get_qrels skips a '#' in the first column only: ' #c 0 x 1' is a judgment of
    # topic '#c' to 9.x and 10.0 alike, and two such lines break nothing; validate said
    # "10.0 skips it" and "second comment line in a row" (error, Q8.fatal; reviewer 667)
    found = findings(b"q1 0 a 1\n #c 0 x 1\n #d 0 y 1\nq2 0 c 1\n", "qrels")
    q8 = [(f.check, f.severity, f.line, f.message.split(":")[0]) for f in found if f.rule == "Q8"]
    assert q8 == [
        ("Q8.comment", W, 2, "'#' after leading blanks"),
        ("Q8.comment", W, 3, "'#' after leading blanks"),
    ]
    # in the first column: skipped by 10.0, and two in a row break it
    found = findings(b"q1 0 a 1\n#c 0 x 1\n#d 0 y 1\nq2 0 c 1\n", "qrels")
    assert [(f.check, f.line) for f in found if f.rule == "Q8"] == [
        ("Q8.comment", 2),
        ("Q8.comment", 3),
        ("Q8.fatal", 3),
    ]


def test_a_short_qrels_line_starting_with_blanks_and_a_hash_is_hinted_as_data():
    # Q1 said "(a comment line: ... 10.0 skips it)" of ' #c comment', which 10.0 reads as
    # data too ('Malformed line 2'), beside Q8 saying so (reviewer 671)
    found = findings(b"q1 0 a 1\n #c comment\n#d note\nq2 0 c 1\n", "qrels")
    hints = [f.message.split(" (")[-1] for f in found if f.rule == "Q1"]
    assert hints == [
        "a '#' after blanks: data to trec_eval 9.x and 10.0 alike)",
        "a comment line: trec_eval 9.x reads it as data, 10.0 skips it)",
    ]


@pytest.mark.parametrize("chunk", [1 << 20, 9, 20], ids=["whole", "a-line-a-chunk", "odd-chunks"])
def test_q8_fatal_marks_the_comment_lines_trec_eval_10_reads_as_data(tmp_path, chunk):
    # 10.0 skips the first '#' line of a run, reads the second as data (topic '#b'), skips
    # the third, reads the fourth: #a #b #c #d gave num_rel at '#b' and '#d' (te100 -c -q);
    # every line after the first was an error (reviewer 671), within a chunk or across
    from trecbench.validation import validate_qrels

    path = tmp_path / "q.txt"
    path.write_text(
        "q1 0 a 1\n#a 0 x 1\n#b 0 y 1\n#c 0 z 1\n#d 0 w 1\nq2 0 c 1\n#e 0 v 1\nq3 0 d 1\n"
    )
    found = validate_qrels(path, chunk_bytes=chunk).findings
    assert [f.line for f in found if f.check == "Q8.fatal"] == [3, 5]


def test_a_least_depth_above_the_most_is_refused_as_options_at_odds(tmp_path, capsys):
    """`validate --min-depth 10 --max-depth 5` ran and flagged every topic (R8 or R9):
    two options at odds are a usage error (docs/cli-conventions.md), in the API too."""
    from trecbench.cli import run
    from trecbench.errors import UsageError
    from trecbench.validation import validate_run

    path = tmp_path / "r.run"
    path.write_text("q1 Q0 a 1 2 t\nq1 Q0 b 2 1 t\n")
    assert run(["validate", "--min-depth", "10", "--max-depth", "5", str(path)]) == 1
    assert capsys.readouterr().err == (
        "trecbench: --min-depth 10 is above --max-depth 5: every topic would be flagged, too "
        "deep (R8) or too shallow (R9.shallow)\n"
    )
    with pytest.raises(UsageError, match="^min_depth 10 is above max_depth 5: "):
        validate_run(path, min_depth=10, max_depth=5)
    assert run(["validate", "--min-depth", "2", "--max-depth", "2", str(path)]) == 0
    capsys.readouterr()
    # the profile's depth when none is given: rtask's 100
    assert run(["validate", "--profile", "rtask", "--min-depth", "200", str(path)]) == 1
    assert "--max-depth 100 (the rtask profile's: give one)" in capsys.readouterr().err
    with pytest.raises(UsageError, match="max_depth 1000 .the default profile's: give one."):
        validate_run(path, min_depth=2000)
    validate_run(path, min_depth=2000, max_depth=None)  # no most depth: none at odds
