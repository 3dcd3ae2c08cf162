"""R31: an id of a JSONL or Parquet row (qid, docno, tag) that no TREC file can hold (a
blank, a line break) or that the byte checks of a TREC file flag (other controls,
Unicode blanks), at its line (JSONL) or row (Parquet), with its reason; and ``score``,
which holds such ids exactly but refuses them in trec_eval's text. An id holding a NUL
is refused by the readers themselves (tests/test_nul_ids.py)."""

from __future__ import annotations

import json
from urllib.parse import unquote

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from trecbench.cli import run
from trecbench.validation import CHECKS, validate_qrels, validate_run

# id spelled in JSON -> what R31 says of it
HOSTILE = {
    "a b": "holds a space at character 2, where a field of TREC text ends",
    "a\tb": "holds a tab at character 2, where a field of TREC text ends",
    "a\vb": "holds a vertical tab at character 2, where a field of TREC text ends",
    "a\nb": "holds a line feed at character 2, where a field of TREC text ends",
    "a\r\nb": "holds a carriage return at character 2, where a field of TREC text ends",
    "a\x01b": "holds the control character U+0001 at character 2",
    "a\x7fb": "holds the control character U+007F at character 2",
    "a\u00a0b": "holds the invisible character U+00A0 at character 2",
    "a\u200bb": "holds the invisible character U+200B at character 2",
    # C1, as validator-rules.md's R2/R6
    "a\u0080b": "holds the control character U+0080 at character 2",
    "a\u00adb": "holds the invisible character U+00AD at character 2",  # a soft hyphen
}
# ids a TREC file holds without any finding: as they are, never flagged
CLEAN = ["a%20b", "a#b", "caf\u00e9", "\u4e2d", "a\u00a1b", "-"]


def _jsonl(tmp_path, rows: list[dict]):
    path = tmp_path / "run.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def _parquet(tmp_path, columns: dict, name: str = "run.parquet"):
    path = tmp_path / name
    pq.write_table(pa.table(columns), path)
    return path


def _r31(result) -> list[tuple[int, str, str, str]]:
    return [(f.line, f.field, f.severity, f.message) for f in result.findings if f.rule == "R31"]


@pytest.mark.parametrize("field", ["qid", "docno", "tag"])
def test_jsonl_ids_no_trec_file_holds_are_flagged_at_their_line(tmp_path, field):
    hostile = list(HOSTILE) + CLEAN
    rows = [
        {"qid": "q1", "docno": f"d{i}", "score": 20.0 - i, "tag": "t"} for i in range(len(hostile))
    ]
    for i, text in enumerate(hostile):
        rows[i][field] = text
    result = validate_run(_jsonl(tmp_path, rows))
    found = _r31(result)
    assert [(line, name, severity) for line, name, severity, _ in found] == [
        (i + 1, field, "error") for i in range(len(HOSTILE))
    ]
    for (_, _, _, message), (text, reason) in zip(found, HOSTILE.items(), strict=True):
        # the id as read (JSON holds it so), printed %XX-escaped as every finding's id
        assert message.startswith(f"{field} '{text}' {reason}")
    for finding in (f for f in result.findings if f.rule == "R31"):
        printed = finding.format()  # one line, every character seen, unquote undoes it
        assert printed.isprintable() and unquote(printed).endswith(finding.message)


def test_parquet_run_and_qrels_ids_are_flagged_at_their_row(tmp_path):
    ids = ["q1", "q 1", "q\t1", "q\f1", "q\n1"]
    docnos = ["d", "d", "d\v", "d", "d e"]
    run_file = _parquet(
        tmp_path, {"qid": ids, "docno": docnos, "score": [1.0] * 5, "tag": ["t"] * 5}
    )
    expected = [(2, "qid"), (3, "qid"), (3, "docno"), (4, "qid"), (5, "qid"), (5, "docno")]
    assert [(line, name) for line, name, *_ in _r31(validate_run(run_file))] == expected
    qrels = _parquet(tmp_path, {"qid": ids, "docno": docnos, "rel": [1] * 5}, "q.parquet")
    assert [(line, name) for line, name, *_ in _r31(validate_qrels(qrels))] == expected


def test_severity_per_profile_error_but_a_warning_in_lenient(tmp_path):
    """The TREC text writers refuse such an id (error), yet score's numbers and its JSON
    and CSV hold it exactly (lenient: only what makes numbers wrong is an error)."""
    check = CHECKS["R31"]
    assert (check.default, check.strict, check.lenient, check.rtask) == (
        "error", "error", "warning", "error"
    )  # fmt: skip
    path = _jsonl(tmp_path, [{"qid": "q 1", "docno": "d", "score": 1.0}])
    for profile, severity in [("strict", "error"), ("lenient", "warning")]:
        result = validate_run(path, profile=profile)
        assert [f.severity for f in result.findings if f.rule == "R31"] == [severity]
        assert result.ok is (severity == "warning")


def test_the_cli_names_file_line_field_and_reason_and_fails(tmp_path, capsys):
    path = _jsonl(tmp_path, [{"qid": "q1", "docno": "a\nb", "score": 1.0}])
    assert run(["validate", str(path)]) == 2
    out = capsys.readouterr().out.splitlines()
    said = f"{path}:1:docno: error[R31]: docno 'a%0Ab' holds a line feed at character 2"
    assert out[0].startswith(said)
    assert out[1].startswith("FAILED: 1 file(s), 1 line: 1 error(s)")


def test_flagged_exactly_where_a_trec_file_would_be(tmp_path):
    """An id character is flagged in a table exactly when, in a TREC file's docno, it
    splits the field or a byte check flags the line (R1, R2, R6, R23, R25.spacing)."""
    chars = [chr(c) for c in (*range(0x00, 0x100), *range(0x1680, 0x1681), *range(0x2000, 0x2070))]
    chars += ["\u180e", "\u3000", "\ufeff", "\u4e2d"]
    # a line break ends the text's line itself; a NUL, refused by every reader, stops both
    chars = [c for c in chars if c not in "\n\x00"]
    text = tmp_path / "run.txt"
    text.write_bytes(
        "".join(f"q1 Q0 a{c}b{i} {i + 1} {1000 - i} t\n" for i, c in enumerate(chars)).encode()
    )
    by_text = {f.line for f in validate_run(text).findings if f.rule in {"R1", "R2", "R6", "R23"}}
    by_text |= {f.line for f in validate_run(text).findings if f.check == "R25.spacing"}
    rows = [{"qid": "q1", "docno": f"a{c}b{i}", "score": 1000.0 - i} for i, c in enumerate(chars)]
    by_table = {line for line, *_ in _r31(validate_run(_jsonl(tmp_path, rows)))}
    assert by_table == by_text and len(by_table) > 40


def test_score_holds_such_ids_exactly_but_refuses_them_in_trec_text(tmp_path, capsys):
    """score's numbers and JSON hold an id as it is; trec_eval's text (-q) refuses it in
    one line: escaped, ``q 1`` would print as ``q%201``, the spelling of another id."""
    qrels = _parquet(tmp_path, {"qid": ["q 1"], "docno": ["d"], "rel": [1]}, "q.parquet")
    path = _jsonl(tmp_path, [{"qid": "q 1", "docno": "d", "score": 1.0}])
    assert run(["score", "-q", "-m", "P.1", str(qrels), str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1
    assert "trec_eval's text cannot hold the qid 'q 1'" in captured.err
    assert run(["score", "-m", "P.1", "--format", "json", str(qrels), str(path)]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["runs"][0]["per_query"] == {"q 1": {"P.1": 1.0}}


def test_runs_and_qrels_held_in_memory_are_validated_as_tables():
    """DataFrames, Arrow tables and dicts (as evaluate takes them) are validated as the
    TREC text they stand for, each row at its 1-based row number: R31 and the rest."""
    import pandas as pd

    frame = pd.DataFrame({"qid": ["q 1", "q1", "q1"], "docno": ["a", "b", "b"], "score": 1.0})
    result = validate_run(frame)
    assert [(f.path, f.rule, f.line, f.field) for f in result.findings if f.rule != "R15"] == [
        ("run DataFrame", "R31", 1, "qid"),
        ("run DataFrame", "R7", 3, "docno"),
    ]
    assert not result.ok
    arrow_table = pa.table({"qid": ["q1"], "docno": ["a\tb"], "score": [1.0]})
    for table in (arrow_table, {"q1": {"a\tb": 1.0}}):
        assert [f.rule for f in validate_run(table).findings] == ["R31"]
    qrels = validate_qrels({"q1": {"d": 1}, "q2": {"d\v": 1}}, profile="lenient")
    assert [(f.rule, f.severity, f.line) for f in qrels.findings] == [("R31", "warning", 2)]
    assert validate_run({"q1": {"b": 2.0, "a": 1.0}}).findings == []


def test_a_line_break_an_id_puts_in_a_message_is_escaped_in_the_text_report(tmp_path, capsys):
    """Every finding is one line of the text report: a docno holding a LF or CR (in R7's
    message, say) prints them as %0A and %0D, and its % as %25 (reversible); JSON holds
    the message as it is."""
    from urllib.parse import unquote

    docno = "a\n%b\r"
    rows = [{"qid": "q1", "docno": docno, "score": s} for s in (2.0, 1.0)]
    path = _jsonl(tmp_path, rows)
    assert run(["validate", str(path)]) == 2
    out = capsys.readouterr().out.splitlines()
    assert [line.split(": ")[1] for line in out[:-1]] == ["error[R31]", "error[R7]", "error[R31]"]
    assert all(line.startswith(f"{path}:") for line in out[:-1])
    duplicate = out[1].split(": error[R7]: ")[1]
    assert duplicate.startswith("duplicate docno a%0A%25b%0D in topic q1")
    assert unquote(duplicate).startswith(f"duplicate docno {docno} in topic q1")
    assert run(["validate", "--format", "json", str(path)]) == 2
    (document,) = json.loads(capsys.readouterr().out)
    assert document["findings"][1]["message"].startswith(f"duplicate docno {docno} in")


def test_ids_in_the_text_report_are_escaped_reversibly_and_json_holds_them_as_they_are(
    tmp_path, capsys
):
    """Every id a finding quotes prints as every output prints a text read from an input:
    ``%`` and controls as ``%XX`` (a qrels topic ``q1`` + U+0001 printed raw read as
    ``q1`` on screen; a topic ``q%41`` read as the escape of ``qA``); the path is escaped
    once, as before; JSON holds the message as it is, which ``unquote`` gives back."""
    from urllib.parse import unquote

    qrels = tmp_path / "a%b.qrels"
    qrels.write_bytes(b"q1 0 a 1\nq1\x01 0 b 0\n")
    assert run(["validate", "--qrels", str(qrels)]) == 2  # R23: the control character
    (q7,) = [line for line in capsys.readouterr().out.splitlines() if "[Q7]" in line]
    escaped_path = str(qrels).replace("%", "%25")
    assert q7 == f"{escaped_path}:2:qid: warning[Q7]: topic q1%01 has no relevant document " \
        "(grade >= 1): it scores 0 on every measure"  # fmt: skip
    percent = tmp_path / "p.run"
    percent.write_text("q%41 Q0 a 1 1 t\nq%41 Q0 b 2 1 t\n")
    assert run(["validate", str(percent)]) == 0
    (r15,) = capsys.readouterr().out.splitlines()[:-1]
    message = r15.split(": warning[R15]: ")[1]
    assert message.startswith("all 2 documents of topic q%2541 have the same score")
    assert run(["validate", "--format", "json", str(percent)]) == 0
    (document,) = json.loads(capsys.readouterr().out)
    assert document["findings"][0]["message"] == unquote(message)
    assert "topic q%41 have" in unquote(message)


def test_the_first_look_skips_only_columns_of_printable_ascii():
    """R31 runs its regex only on a column with a byte outside 0x21-0x7E: the look reads
    the bytes of the rows given (a slice's, a large string's), never its neighbours'."""
    from trecbench.validation.checker import _beyond_printable_ascii

    column = pa.array(["a b", "cd", "ef", None, "g\x7f", "\u00e9"])
    for values in (column, column.cast(pa.large_string())):
        looks = [_beyond_printable_ascii(values.slice(i, n)) for i, n in
                 [(0, 6), (0, 1), (1, 2), (3, 1), (2, 3), (5, 1), (1, 0)]]  # fmt: skip
        assert looks == [True, True, False, False, True, True, False]


def test_score_warns_about_such_an_id_in_one_line(tmp_path, capsys):
    """A run topic the qrels lack is named in a warning: a line feed in its id is escaped
    (``%0A``, as every list of ids in a message escapes its items, reversibly); it broke
    the line."""
    qrels = tmp_path / "q.txt"
    qrels.write_text("q1 0 d 1\n")
    rows = [{"qid": qid, "docno": "d", "score": 1.0} for qid in ("q1", "x\ny")]
    assert run(["score", "-m", "P.1", str(qrels), str(_jsonl(tmp_path, rows))]) == 0
    err = capsys.readouterr().err.splitlines()
    assert all(line.startswith("trecbench: warning: ") for line in err)
    said = "1 run topic is not in the qrels (ignored, also with -c): "
    [listed] = [line.split(said)[1] for line in err if said in line]
    assert listed == "x%0Ay" and unquote(listed) == "x\ny"


def test_a_field_end_is_named_before_a_milder_character_that_comes_first(tmp_path):
    docno = "d\u2028x\n"  # an invisible line separator first, then a line feed
    rows = [{"qid": "q1", "docno": docno, "score": 1.0, "tag": "t"}]
    [(_, _, _, message)] = _r31(validate_run(_jsonl(tmp_path, rows)))
    assert message.startswith(f"docno '{docno}' holds a line feed at character 4")


def test_a_run_held_in_memory_has_its_given_ranks_checked_as_its_parquet_file(tmp_path):
    # a DataFrame (or Arrow table) with an integer rank column got no R11 or R14, where
    # the same rows as a Parquet file got both: its ranks were made up in trec_eval's order
    import pandas as pd

    frame = pd.DataFrame(
        {
            "qid": ["q1", "q1", "q1", "q2", "q2"],
            "docno": ["a", "b", "c", "a", "b"],
            "rank": [1, 1, 3, 2, 1],
            "score": [3.0, 2.0, 1.0, 5.0, 4.0],
        }
    )
    frame.to_parquet(tmp_path / "r.parquet")

    def said(result):  # a row held in memory is cited as a row, as a Parquet file's
        found = [f for f in result.findings if f.rule in {"R11", "R14"}]
        return [(f.rule, f.line, f.message) for f in found]

    expected = said(validate_run(tmp_path / "r.parquet"))
    assert {rule for rule, _, _ in expected} == {"R11", "R14"}
    assert said(validate_run(frame)) == expected
    assert said(validate_run(pa.Table.from_pandas(frame))) == expected
    # ranks not given as integers stand at their places, as a Parquet file's: unchecked
    assert said(validate_run(frame.assign(rank=frame["rank"].astype(float)))) == []
