"""What `validate` reports says as validate.md says it: physical line counts, the FIELD of
every finding at a line, R5's advice."""

from __future__ import annotations

from urllib.parse import unquote

import pytest

from trecbench.cli import run
from trecbench.validation import validate_files, validate_run


def call(capsys, *args) -> tuple[int, str]:
    code = run([str(a) for a in args])
    return code, capsys.readouterr().out


RECORD = '{{"qid":"1","docno":"{}","rank":{},"score":{},"tag":"t"}}\n'


def test_a_jsonl_runs_lines_are_its_physical_lines(tmp_path, capsys):
    """validate.md: counts.lines are physical lines; a JSONL run with blank lines said 2
    lines for 5 (its records), while its findings name physical lines."""
    path = tmp_path / "j2.jsonl"
    path.write_text(RECORD.format("a", 1, 2.0) + "\n\n\n" + RECORD.format("b", 2, 1.0))
    result = validate_run(path)
    assert (result.counts["lines"], result.counts["records"]) == (5, 2)
    assert call(capsys, "validate", path)[1].endswith(
        "1 file(s), 5 lines: 0 error(s), 0 warning(s), 0 info\n"
    )
    # a chunk at a time (a line each), the same
    assert validate_run(path, chunk_bytes=8).counts == result.counts


# validate.md: "FIELD is qid, q0, docno, rank, score, tag (iter, rel in qrels) or line"
FIELDS = {"qid", "q0", "docno", "rank", "score", "tag", "iter", "rel", "line"}
BLOCK = "# ir_metadata.start\n# tag: t\n# ir_metadata.end\n"


def test_every_finding_at_a_line_names_a_field_validate_md_lists(tmp_path, capsys):
    """R30 printed `run:1:-: warning[R30]`, a FIELD validate.md does not name."""
    runs = {
        "block.run": BLOCK + "1 Q0 a 1 1 t\n",
        "bad_block.run": BLOCK.replace("tag: t", "tag: [") + "1 Q0 a 1 1 t\n",
        "odd.run": "1 QO a x nan t z\n\n# c\n1 Q0 a 2 1 t\r\n2 Q0 b 1 2 t \n1 Q0 c 0 3 t",
    }
    for name, text in runs.items():
        (tmp_path / name).write_text(text)
    qrels = tmp_path / "q.qrels"
    qrels.write_text("1 0 a x\n1 0 a 1\n# c\n3 0 b +1\n\n")
    code, out = call(capsys, "validate", *sorted(tmp_path.glob("*.run")), "--qrels", qrels)
    assert code == 2
    shown = [line.split(": ", 1)[0].split(":") for line in out.splitlines()[:-1]]
    at_lines = [where for where in shown if len(where) == 3]
    assert {"R30"} <= {line.split("[")[1].split("]")[0] for line in out.splitlines()[:-1]}
    assert len(at_lines) > 10 and {field for *_, field in at_lines} <= FIELDS, at_lines
    assert f"{tmp_path / 'block.run'}:1:line: warning[R30]" in out


def test_r5_advises_minus_c_as_x2_does(tmp_path):
    """The spec's R5: 'all topics covered (advise -c)'; R5 said only 'no document'."""
    path, topics = tmp_path / "r.run", tmp_path / "topics.txt"
    path.write_text("1 Q0 a 1 1 t\n")
    topics.write_text("1\n2\n")
    (finding,) = validate_run(path, topics=topics).findings
    assert (finding.rule, finding.severity, finding.line) == ("R5", "error", None)
    assert finding.message == (
        "topic '2' of --topics has no document in the run: when the qrels judge it, " + ABSENT_TOPIC
    )


# printf 'q1 Q0 a 1 2 t\nq1 Q0 b 2 1 t\n' > r.run; printf 'q1 0 a 1\nq2 0 c 1\n' > q.qrels
# /work/tools/te908/trec_eval q.qrels r.run: num_q 1, exit 0; with -c num_q 2, map 0.5000
# /work/tools/te100/trec_eval q.qrels r.run: "trec_eval: result qid 'q2' not found in
# qrels", exit 4 (with -q after map q1); with -c num_q 2, map q2 0.0000, exit 0
ABSENT_TOPIC = (
    'trec_eval 9.0.8 skips it, 10.0 stops at the first such topic ("result qid ... not '
    'found in qrels", exit 4); both score it 0 with -c'
)


def test_x2_says_what_each_trec_eval_does(tmp_path):
    """X2 said 'trec_eval skips it': trec_eval 10.0 stops there (exit 4) without -c."""
    run, qrels = tmp_path / "r.run", tmp_path / "q.qrels"
    run.write_text("q1 Q0 a 1 2 t\nq1 Q0 b 2 1 t\n")
    qrels.write_text("q1 0 a 1\nq2 0 c 1\n")
    _, result = validate_files([run], qrels=qrels)
    (finding,) = [f for f in result.findings if f.rule == "X2"]
    assert finding.severity == "warning"
    assert finding.message == f"qrels topic 'q2' has no document in the run: {ABSENT_TOPIC}"


# printf 'q0 0 d -1\nq1 0 a 1\nq1 0 b 0\n' > n.qrels
# printf 'q1 Q0 a 1 3 t\nq1 Q0 b 2 2 t\n' > n.run
# te908 -c -m map: 0.5000, exit 0; te100 -c -m map: "Can't calculate measure 'map'", exit 4
# printf '#x 0 a 1\nq1 0 a 1\nq1 0 b 0\nq2 0 d 1\n' > h.qrels; printf 'q1 Q0 a 1 3 t\nq1 Q0 b
# 2 2 t\nq2 Q0 d 1 1 t\n' > h.run; te908 -c: num_q 3, map 0.6667; te100 -c: num_q 2, map 1.0000
@pytest.mark.parametrize(
    ("qrels_text", "topic", "tenth"),
    [
        ("q0 0 d -1\nq1 0 a 1\n", "q0", 'with -c "Can\'t calculate measure"'),
        ("#x 0 a 1\nq1 0 a 1\n", "#x", "10.0 skips a line with '#' in its first column"),
    ],
)
def test_x2_says_what_10_does_where_it_does_otherwise(tmp_path, qrels_text, topic, tenth):
    """X2 said 10.0 scores a topic the run lacks 0 with -c: not one of negative grades only
    (it stops, exit 4), nor a '#' line's topic (a comment to it: no topic)."""
    run, qrels = tmp_path / "r.run", tmp_path / "q.qrels"
    run.write_text("q1 Q0 a 1 2 t\n")
    qrels.write_text(qrels_text)
    _, result = validate_files([run], qrels=qrels)
    (finding,) = [f for f in result.findings if f.rule == "X2"]
    assert finding.message.startswith(f"qrels topic '{topic}' has no document in the run: ")
    assert tenth in finding.message and "both score it 0" not in finding.message


# te908 -m map on each qrels below: "Malformed line" or "Cannot read qrels file", exit 2:
# it compares the run with nothing (no topic 'ignored', no exit 7)
@pytest.mark.parametrize(
    ("qrels_text", "rule"),
    [("q1 0 a 1 x\nq2 0 d 1\n", "Q1"), ("", "R26"), ("q1 0 a 1\n\nq2 0 d 1\n", "Q2")],
)
def test_no_cross_check_against_qrels_trec_eval_stops_reading(tmp_path, qrels_text, rule):
    """X1 said 'trec_eval ignores' a topic the qrels hold, X3 'exits 7', of qrels that
    trec_eval stops reading at their first line (exit 2)."""
    run, qrels = tmp_path / "r.run", tmp_path / "q.qrels"
    run.write_text("q1 Q0 a 1 3 t\nq3 Q0 d 1 1 t\n")
    qrels.write_text(qrels_text)
    checked_qrels, checked_run = validate_files([run], qrels=qrels)
    assert rule in {f.rule for f in checked_qrels.findings}
    assert not [f for f in checked_run.findings if f.rule.startswith("X")]


def test_a_comment_line_of_qrels_leaves_the_cross_checks_on(tmp_path):
    """A first-column '#' line is Q1 (9.0.8 stops at it) but trec_eval 10.0 skips it and
    reads the rest (te100 on these files: "result qid 'q2' not found in qrels", exit 4):
    the runs are checked against such qrels, as they were."""
    run, qrels = tmp_path / "r.run", tmp_path / "q.qrels"
    run.write_text("q1 Q0 a 1 3 t\nq3 Q0 d 1 1 t\n")
    qrels.write_text("# judged\nq2 0 a 1\n")
    checked_qrels, checked_run = validate_files([run], qrels=qrels)
    assert "Q1" in {f.rule for f in checked_qrels.findings}
    assert {"X1", "X2", "X3"} <= {f.rule for f in checked_run.findings}


def test_quoted_ids_and_tags_are_escaped_once_as_every_id_is(tmp_path):
    """A quoted id or tag was Python's repr: a backslash printed doubled (``'a\\\\b'``), an
    NBSP as ``\\xa0``, and repr's escapes mixed with the output's %XX (``'t%25\\u200b'``),
    which ``unquote`` does not undo. Quoted as read, the finding's one escaping
    (docs/validate.md: %XX) holds for them too."""
    run, qrels = tmp_path / "r.run", tmp_path / "q.qrels"
    run.write_bytes("a\\b Q0 d\\x 1 2 t\\1\nq1 Q0 d\u00a0y 1 2 t%\u200b\n".encode())
    qrels.write_text("q1 0 dz 1\nq2 0 dz 1\n")
    _, result = validate_files([run], qrels=qrels, docid_regex="dz")
    printed = "\n".join(f.format() for f in result.findings)
    assert "r.run:1:qid: warning[X1]: topic 'a\\b' is not in the qrels" in printed
    assert "r.run:1:docno: error[R6]: docno 'd\\x' does not match --docid-regex" in printed
    assert "r.run:1:tag: warning[R18]: tag 't\\1' is not 1-25" in printed
    assert "r.run:2:docno: error[R6]: docno 'd%C2%A0y' does not match" in printed
    assert (
        "r.run:2:tag: error[R17]: run tag number 2 of the file, 't%25%E2%80%8B' (the first: 't\\1')"
        in printed
    )
    for finding in result.findings:  # the printed message gives back the one JSON holds
        assert unquote(finding.format().split("]: ", 1)[1]) == finding.message


def test_a_near_miss_hint_quotes_the_id_as_the_finding_escapes_ids(tmp_path):
    """With a BOM starting a later line, R5 hinted 'did you mean '\\ufeff2'?' (Python's
    repr), where the finding escapes the same id as %EF%BB%BF2 (R4, on that line)."""
    run, topics = tmp_path / "r.run", tmp_path / "topics.txt"
    run.write_bytes("01 Q0 a 1 2 t\n\ufeff2 Q0 c 1 1 t\n".encode())
    topics.write_text("01\n2\n")
    printed = [f.format() for f in validate_run(run, topics=topics).findings]
    assert any(
        "topic '2' of --topics has no document in the run (did you mean '%EF%BB%BF2'?)" in line
        for line in printed
    )
    assert any("topic '%EF%BB%BF2' is not in --topics (did you mean '2'?)" in p for p in printed)


def test_r17_numbers_each_other_tag(tmp_path, capsys):
    """A third tag was called the 'second run tag'; on both paths (the small one of the
    CLI, the general one of validate_files) each tag is now numbered."""
    path = tmp_path / "r17.run"
    path.write_text("1 Q0 a 1 3 t1\n1 Q0 b 2 2 t2\n1 Q0 c 3 1 t3\n1 Q0 d 4 0 t1\n")
    expected = [
        "run tag number 2 of the file, 't2' (the first: 't1'); trec_eval reports the tag of "
        "the last line only",
        "run tag number 3 of the file, 't3' (the first: 't1'); trec_eval reports the tag of "
        "the last line only",
    ]
    (result,) = validate_files([path])
    assert [(f.line, f.message) for f in result.findings if f.rule == "R17"] == list(
        zip([2, 3], expected, strict=True)
    )
    _, out = call(capsys, "validate", path)
    assert [line.split(": error[R17]: ")[1] for line in out.splitlines() if "R17" in line] == (
        expected
    )


def test_r2_and_r6_name_the_invisible_character_and_where_it_is(tmp_path):
    """R2 and R6 said 'Unicode blank, zero-width, C1 control or other invisible character'
    without saying which, or where in the field."""
    path = tmp_path / "r.run"
    path.write_bytes("q\u200b1 Q0 a 1 2 t\nq2 Q0 a\u00a0b 1 2 t\nq3 Q0 a 1 2 t\u0085\n".encode())
    found = {(f.rule, f.field): f.format() for f in validate_run(path).findings}
    tail = ": invisible, and part of the field to trec_eval, not a separator"
    assert found[("R2", "qid")].endswith(
        "error[R2]: U+200B (ZERO WIDTH SPACE) at character 2 of the qid 'q%E2%80%8B1'" + tail
    )
    assert found[("R6", "docno")].endswith(
        "error[R6]: U+00A0 (NO-BREAK SPACE) at character 2 of the docno 'a%C2%A0b'" + tail
    )
    assert found[("R2", "tag")].endswith(
        "error[R2]: U+0085 (a C1 control) at character 2 of the tag 't%C2%85'" + tail
    )


def test_r1_points_at_a_unicode_blank_used_as_a_separator(tmp_path):
    """An NBSP between qid and Q0 made a short line hinted '(is the Q0 column missing?)',
    while Q0 is there, joined to the qid."""
    path = tmp_path / "r.run"
    path.write_bytes("q1\u00a0Q0 c 2 1 t\nq1 c 2 1 t\n".encode())
    found = {f.line: f.message for f in validate_run(path).findings if f.rule == "R1"}
    assert found == {
        1: "expected 6 fields (qid Q0 docno rank score tag), found 5 (the U+00A0 (NO-BREAK "
        "SPACE) in 'q1\u00a0Q0' is no separator to trec_eval: it splits fields at ASCII blanks "
        "only)",
        2: "expected 6 fields (qid Q0 docno rank score tag), found 5 (is the Q0 column missing?)",
    }


def test_r1_points_at_a_control_character_used_as_a_separator(tmp_path):
    """A unit separator (U+001F) or DEL between qid and Q0, part of the field to trec_eval
    (9.0.8: 'Malformed line'), made a short line hinted '(is the Q0 column missing?)'."""
    path = tmp_path / "r.run"
    path.write_bytes(b"q1\x1fQ0 c 2 1 t\nq1 Q0\x7fc 2 1 t\n")
    found = {f.line: f.message for f in validate_run(path).findings if f.rule == "R1"}
    tail = "is no separator to trec_eval: it splits fields at ASCII blanks only)"
    assert found == {
        1: f"expected 6 fields (qid Q0 docno rank score tag), found 5 (the U+001F (a C0 "
        f"control) in 'q1\x1fQ0' {tail}",
        2: f"expected 6 fields (qid Q0 docno rank score tag), found 5 (the U+007F (DEL) in "
        f"'Q0\x7fc' {tail}",
    }


def test_q1_points_at_a_character_that_joins_two_fields(tmp_path):
    """A no-break space or a unit separator between qid and iteration made a qrels line of
    3 fields, hinted 'a 3-column BEIR qrels?' (a run's line named the character, R1)."""
    path = tmp_path / "q.qrels"
    path.write_bytes("q1\u00a00 a 1\nq1\x1f0 b 1\nq1 0 c 1\n".encode())
    (result,) = validate_files([], qrels=path)
    found = {f.line: f.message for f in result.findings if f.rule == "Q1"}
    tail = "is no separator to trec_eval: it splits fields at ASCII blanks only)"
    assert found == {
        1: f"expected 4 fields (qid iter docno rel), found 3 (the U+00A0 (NO-BREAK SPACE) in "
        f"'q1\u00a00' {tail}",
        2: f"expected 4 fields (qid iter docno rel), found 3 (the U+001F (a C0 control) in "
        f"'q1\x1f0' {tail}",
    }


def test_r1_names_the_query_id_column_when_a_line_starts_with_q0(tmp_path):
    """trec_eval's prefs.rank20 lines read '     Q0 FR940620-1-00007 9 2.971818 STANDARD':
    the qid is what is missing, not Q0 (reviewer 460)."""
    path = tmp_path / "r.run"
    path.write_text("     Q0 FR940620-1-00007 9 2.971818 STANDARD\n")
    found = [f.message for f in validate_run(path).findings if f.rule == "R1"]
    assert found == [
        "expected 6 fields (qid Q0 docno rank score tag), found 5 (is the query id column "
        "missing? the line starts with Q0)"
    ]


def test_r25_says_when_a_line_only_uses_another_separator_than_the_file(tmp_path):
    """Lines of single spaces in a file whose first line uses tabs were 'irregular
    separators (tabs mixed with spaces, or several blanks)': neither is the case."""
    path = tmp_path / "r.run"
    path.write_text("1\tQ0\ta\t1\t3\tt\n1 Q0 b 2 2 t\n1  Q0 c 3 1 t\n")
    found = {f.line: f.message for f in validate_run(path).findings if f.rule == "R25"}
    assert found == {
        2: "fields separated by spaces, where the file's first data line uses tabs",
        3: "irregular separators (tabs mixed with spaces, several blanks, or leading blanks)",
    }


def test_r1_takes_no_byte_order_mark_at_a_line_start_for_a_separator(tmp_path):
    """A comment behind a byte order mark (no comment to trec_eval) was hinted "the U+FEFF
    in '%EF%BB%BF#' is no separator": the mark is R23's, before the first field, not
    between two (reviewer 363). A short line behind one keeps R1's own hint."""
    path = tmp_path / "r.run"
    path.write_bytes("\ufeff# comment\n1 Q0 d1 1 1 t\n".encode())
    found = [f.message for f in validate_run(path).findings if f.rule == "R1"]
    assert found == ["expected 6 fields (qid Q0 docno rank score tag), found 2"]
    path.write_bytes("\ufeffq1 c 2 1 t\n".encode())
    found = [f.message for f in validate_run(path).findings if f.rule == "R1"]
    assert found == [
        "expected 6 fields (qid Q0 docno rank score tag), found 5 (is the Q0 column missing?)"
    ]
    # nor a column missing (3 fields: "an MS MARCO run?", 5: "is the Q0 column missing?")
    path.write_bytes("\ufeff# my run\n1 Q0 d1 1 1 t\n\ufeff# a b c d\n".encode())
    found = [f.message for f in validate_run(path).findings if f.rule == "R1"]
    assert found == [
        "expected 6 fields (qid Q0 docno rank score tag), found 3",
        "expected 6 fields (qid Q0 docno rank score tag), found 5",
    ]


def test_r2_names_a_blank_in_the_first_qid_of_a_file_with_a_byte_order_mark(tmp_path):
    """The first qid of a file starting with a BOM was left out of R2's search (the BOM is
    R23's), so a NBSP in it fell to the line's generic message (reviewer 371)."""
    path = tmp_path / "r.run"
    path.write_bytes("\ufeff1\u00a0Q0 d1 1 2.0 t\n".encode())
    (finding,) = [f for f in validate_run(path).findings if f.rule == "R2"]
    assert (finding.field, finding.message) == (
        "qid",
        "U+00A0 (NO-BREAK SPACE) at character 3 of the qid '\ufeff1\u00a0Q0': invisible, and "
        "part of the field to trec_eval, not a separator",
    )
    path.write_bytes("\ufeff1 Q0 d1 1 2.0 t\n".encode())  # the BOM alone: R23's only
    assert [f.rule for f in validate_run(path).findings] == ["R23"]
