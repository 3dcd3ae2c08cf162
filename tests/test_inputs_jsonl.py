"""JSONL runs (trecbench.inputs.jsonl): scored as the same run written as TREC text (and
as trec_eval scores that text: its own test outputs), whole, in blocks, gzipped, on Dask
and by validate; bad lines refused at file:line."""

from __future__ import annotations

import gzip
import json
import re
import shutil
from types import SimpleNamespace

import pytest
from conftest import ROOT
from test_score_suite import run_score

from trecbench import evaluate, memory
from trecbench.cli import run
from trecbench.errors import InputError
from trecbench.inputs import jsonl, read_run
from trecbench.inputs.streams import Source

HPO_QRELS = ROOT / "qrels" / "hpo-demo.qrels"
HPO_RUNS = sorted((ROOT / "runs").glob("*.run"))


def _as_jsonl(trec_run, target) -> None:
    """The TREC text run written as JSONL: ids as JSON strings, the score as the shortest
    text of the double trec_eval reads (``repr``), rank and tag as given."""
    frame = read_run(str(trec_run))
    with open(target, "w") as out:
        for qid, docno, rank, score, tag in zip(
            frame.qid, frame.docno, frame["rank"], frame.score, frame.tag, strict=True
        ):
            line = {"qid": qid, "docno": docno, "score": float(score), "rank": int(rank)}
            out.write(json.dumps(line | {"tag": tag}) + "\n")


def _score(capsys, *args) -> tuple[int, str]:
    code = run(["score", *args])
    return code, capsys.readouterr().out


@pytest.mark.parametrize("trec_run", HPO_RUNS, ids=[path.name for path in HPO_RUNS])
@pytest.mark.parametrize("measures", [[], ["-m", "all_trec"]], ids=["kpi", "all_trec"])
def test_a_jsonl_run_scores_as_its_trec_text(trec_run, measures, tmp_path, capsys):
    jsonl = tmp_path / "run.jsonl"
    _as_jsonl(trec_run, jsonl)
    expected = _score(capsys, "-q", *measures, str(HPO_QRELS), str(trec_run))
    assert expected[0] == 0 and expected[1].count("\n") > 50
    assert _score(capsys, "-q", *measures, str(HPO_QRELS), str(jsonl)) == expected


@pytest.mark.parametrize(
    ("expected", "command"),
    [
        ("out.test.a", "-m all_trec qrels.test results.test"),
        ("out.test.aq", "-m all_trec -q qrels.test results.test"),
        ("out.test.aqc", "-m all_trec -q -c qrels.test results.trunc"),
    ],
)
def test_trec_eval_suite_runs_as_jsonl_give_trec_evals_outputs(
    expected, command, trec_eval_suite, tmp_path, monkeypatch
):
    """trec_eval's own outputs for its test runs, from the runs written as JSONL (gzipped
    too); the KPI preset equal between the two forms."""
    *flags, qrels, name = command.split()
    shutil.copy(trec_eval_suite / qrels, tmp_path / qrels)
    _as_jsonl(trec_eval_suite / name, tmp_path / f"{name}.jsonl")
    (tmp_path / f"{name}.jsonl.gz").write_bytes(
        gzip.compress((tmp_path / f"{name}.jsonl").read_bytes())
    )
    want = (trec_eval_suite / expected).read_bytes()
    for form in (f"{name}.jsonl", f"{name}.jsonl.gz"):
        stdout, _, code = run_score([*flags, qrels, form], tmp_path, monkeypatch)
        assert (code, stdout) == (0, want)
    kpi_text = run_score(["-q", qrels, str(trec_eval_suite / name)], tmp_path, monkeypatch)
    kpi_jsonl = run_score(["-q", qrels, f"{name}.jsonl"], tmp_path, monkeypatch)
    assert kpi_jsonl[::2] == kpi_text[::2]


def test_a_jsonl_run_in_blocks_scores_as_whole(tmp_path, monkeypatch):
    from trecbench.inputs import jsonl

    run_file = tmp_path / "run.jsonl"
    _as_jsonl(HPO_RUNS[0], run_file)
    whole = evaluate(str(HPO_QRELS), str(run_file), ["map", "P.5", "ndcg_cut.10"])
    monkeypatch.setattr(memory, "BLOCK_LINES", 50)
    monkeypatch.setattr(memory, "FEWEST_BLOCK_LINES", 50)
    monkeypatch.setattr(memory, "FEWEST_READ_BYTES", 2000)
    tables = []
    original = jsonl.read_blocks
    monkeypatch.setattr(
        jsonl, "read_blocks", lambda *a: (tables.append(t) or t for t in original(*a))
    )
    blocked = evaluate(str(HPO_QRELS), str(run_file), ["map", "P.5", "ndcg_cut.10"], memory=1)
    assert len(tables) > 5  # read in blocks
    assert blocked.per_query.equals(whole.per_query)


GOOD = '{"qid": "q1", "docno": "d1", "score": 1}'


def _refused(run_file, blocks: bool, monkeypatch) -> pytest.ExceptionInfo:
    """The error of scoring ``run_file`` against one judgment, whole or in blocks of 10."""
    qrels = run_file.parent / "qrels"
    qrels.write_text("q1 0 d1 1\n")
    if blocks:
        monkeypatch.setattr(memory, "BLOCK_LINES", 10)
        monkeypatch.setattr(memory, "FEWEST_BLOCK_LINES", 10)
        monkeypatch.setattr(memory, "FEWEST_READ_BYTES", 500)
    with pytest.raises(InputError) as raised:
        evaluate(str(qrels), str(run_file), ["P.5"], memory=1 if blocks else None)
    return raised


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"qid": 1, "docno": "d2", "score": 1}', "qid must be a JSON string, not the number 1 "
         "(ids are never inferred)"),
        ('{"qid": "q1", "docno": 7, "score": 1}', "docno must be a JSON string, not the number 7 "
         "(ids are never inferred)"),
        ('{"qid": "q1", "docno": "d2", "score": "1"}', 'score must be a JSON number, not the '
         'string "1"'),
        ('{"qid": "q1", "docno": "d2", "score": true}', "score must be a JSON number, not the "
         "boolean true"),
        ('{"qid": "q1", "docno": "d2"}', "no 'score'"),
        ('{"qid": "q1", "docno": "d2", "score": null}', "score must be a JSON number, not null"),
        ('{"qid": "q1", "docno": "d2", "score": NaN}', "score nan is not finite"),
        ('{"qid": "q1", "docno": "d2", "score": 1e400}', "score 1e400 overflows a double"),
        ('{"qid": "q1", "docno": "d2", "score": 1, "doc": 2}', 'unknown key "doc" (a line holds '
         "qid, docno, score and optionally rank and tag)"),
        ('{"qid": "q1", "docno": "d2", "score": 1', "bad JSON: Expecting ',' delimiter at "
         "column 40"),
        # json's message ends in "at": it said "Unterminated string starting at at column 49"
        ('{"qid": "q1", "docno": "d2", "score": 1, "tag": "t}', "bad JSON: Unterminated string "
         "starting at column 49"),
        ('{"qid": "q1", "qid": "q2", "docno": "d2", "score": 1}', "bad JSON: key 'qid' given "
         "twice"),
        ('["q1", "d2", 1]', 'not a JSON object but the array ["q1", "d2", 1]'),
        ('{"qid": "", "docno": "d2", "score": 1}', "empty qid"),
        ('{"qid": "q1", "docno": "d2", "score": 1, "rank": 1.5}', "rank must be a JSON integer, "
         "not the number 1.5"),
        ('{"qid": "q1", "docno": "d2", "score": 1, "tag": 3}', "tag must be a JSON string, not "
         "the number 3 (ids are never inferred)"),
        # as a null qid, not the default tag "run" put in its place (Arrow reads it as absent)
        ('{"qid": "q1", "docno": "d2", "score": 1, "tag": null}', "tag must be a JSON string, "
         "not null (ids are never inferred)"),
    ],
)  # fmt: skip
@pytest.mark.parametrize("blocks", [False, True], ids=["whole", "blocks"])
def test_a_bad_line_is_refused_at_its_line(line, message, blocks, tmp_path, monkeypatch):
    run_file = tmp_path / "run.jsonl"
    # the bad line after a blank one and a block's worth of good lines: line 53
    run_file.write_text("\n".join([GOOD] * 51 + ["  ", line, GOOD]) + "\n")
    raised = _refused(run_file, blocks, monkeypatch)
    assert str(raised.value) == f"{run_file}:53: {message}"


def test_lines_are_numbered_past_blank_ones_and_the_tag_defaults(tmp_path):
    run_file = tmp_path / "run.JSONL"
    run_file.write_text(
        f'\n{GOOD}\n \t\r\n{{"qid": "q1", "docno": "d2", "score": 0.5, "tag": "t"}}'
    )
    frame = read_run(str(run_file))
    assert frame.to_dict("list") == {
        "qid": ["q1", "q1"],
        "docno": ["d1", "d2"],
        "score": [1.0, 0.5],
        "tag": ["run", "t"],
        "line": [2, 4],
    }


def test_qrels_in_jsonl_and_bad_utf8_are_refused(tmp_path):
    qrels = tmp_path / "qrels.jsonl"
    qrels.write_text(GOOD + "\n")
    with pytest.raises(InputError) as refused:
        evaluate(str(qrels), str(qrels))
    # it said "JSONL files hold run, not qrels" and no more: what to give instead is said
    assert str(refused.value) == (
        f"{qrels}: JSONL files hold run, not qrels: give qrels as Parquet or TREC text, or "
        "convert what a benchmark wrote first (trecbench convert "
        "hpo|code-chunk|memorybench|lists|dict ...; see 'trecbench convert --help' and the "
        "docs' convert.md)"
    )
    bad = tmp_path / "run.jsonl"
    bad.write_bytes(GOOD.encode() + b'\n{"qid": "q\xff", "docno": "d", "score": 1}\n')
    with pytest.raises(InputError, match=r"run.jsonl:2: not UTF-8: invalid start byte$"):
        read_run(str(bad))


@pytest.mark.parametrize("encoding", ["UTF-16", "UTF-32"])
def test_a_utf16_jsonl_run_is_refused_as_a_utf16_trec_file_is(tmp_path, encoding):
    wide = tmp_path / "run.jsonl"
    wide.write_bytes((GOOD + "\n").encode(encoding))  # with a byte-order mark
    with pytest.raises(InputError, match=rf"run.jsonl: the file is {encoding}; save it as UTF-8$"):
        read_run(str(wide))


def test_validate_reads_a_jsonl_run(tmp_path, capsys):
    run_file = tmp_path / "run.jsonl"
    lines = [GOOD, '{"qid": "q1", "docno": "d2", "score": 2, "rank": 2}', GOOD]
    run_file.write_text("\n".join(lines) + "\n")
    assert run(["validate", str(run_file)]) != 0
    out = capsys.readouterr()
    assert f"{run_file}:3" in out.out + out.err  # d1 listed twice in q1, at line 3


@pytest.mark.parametrize("blocks", [False, True], ids=["whole", "blocks"])
@pytest.mark.parametrize("escape", ["\\ud800", "\\udc00x", "\\ud800\\u0041"])
def test_a_lone_surrogate_escape_is_refused_at_its_line(escape, blocks, tmp_path, monkeypatch):
    # JSON to Python's reader, not to Arrow's: it was refused at line 1 (the chunk's) in
    # Arrow's words, "in row 2" (the third row, past a blank line)
    run_file = tmp_path / "run.jsonl"
    lone = GOOD.replace('"d1"', f'"d{escape}"')
    run_file.write_text("\n".join([GOOD, "", GOOD.replace("d1", "d2"), lone]) + "\n")
    raised = _refused(run_file, blocks, monkeypatch)
    shown = escape[:6]
    assert str(raised.value) == f"{run_file}:4: lone surrogate {shown} (not a Unicode character)"


def test_validate_names_a_lone_surrogates_line(tmp_path, capsys):
    run_file = tmp_path / "run.jsonl"
    run_file.write_text("\n".join([GOOD, "", GOOD.replace('"d1"', '"d\\ud800"')]) + "\n")
    assert run(["validate", str(run_file)]) == 2
    shown = capsys.readouterr()
    # a finding at its line (issue 418), no longer an error that stops validate
    assert shown.err == ""
    assert (
        f"{run_file}:3:line: error[R32]: lone surrogate \\ud800 (not a Unicode character); the "
        "lines after it are not read\n" in shown.out
    )


@pytest.mark.parametrize("blocks", [False, True], ids=["whole", "blocks"])
def test_a_tag_nested_too_deep_is_refused_at_its_line(blocks, tmp_path, monkeypatch):
    # it was exit 70: the line-by-line reading ran out of Python's stack
    run_file = tmp_path / "run.jsonl"
    deep = GOOD.replace("}", ', "tag": ' + "[" * 1000 + "]" * 1000 + "}")
    run_file.write_text("\n".join([GOOD.replace("d1", "d0"), GOOD, "", deep]) + "\n")
    raised = _refused(run_file, blocks, monkeypatch)
    assert str(raised.value) == f"{run_file}:4: JSON nested deeper than 100 levels"


@pytest.mark.parametrize("blocks", [False, True], ids=["whole", "blocks"])
def test_two_objects_on_a_line_are_refused_when_a_split_one_makes_the_count_even(
    blocks, tmp_path, monkeypatch
):
    # Arrow reads both, and the object over two lines as one: as many rows as lines, and
    # the file scored (or failed on a duplicate at a line that held a fragment)
    run_file = tmp_path / "run.jsonl"
    split = ['{"qid": "q1", "docno": "d3",', '"score": 0.2}']
    run_file.write_text("\n".join([GOOD] * 51 + [GOOD.replace("d2", "d4") + GOOD, *split]) + "\n")
    raised = _refused(run_file, blocks, monkeypatch)
    assert str(raised.value).startswith(f"{run_file}:52: bad JSON: Extra data at column ")


def test_a_byte_order_mark_before_the_first_object_is_read_past(tmp_path):
    # the one-object-a-line check took it for a first byte other than '{': "not a JSONL
    # run Arrow can read", where the file scored before (the reader reads past it)
    run_file = tmp_path / "run.jsonl"
    run_file.write_bytes(b"\xef\xbb\xbf" + GOOD.encode() + b"\n")
    qrels = tmp_path / "qrels"
    qrels.write_text("q1 0 d1 1\n")
    assert evaluate(str(qrels), str(run_file), ["P.1"]).aggregates["value"].tolist() == [1.0]


def _piped(monkeypatch, data: bytes) -> None:
    """``data`` as standard input (no descriptor: read as a pipe is, once, into memory)."""
    import io
    import types

    monkeypatch.setattr("sys.stdin", types.SimpleNamespace(buffer=io.BytesIO(data)))


@pytest.mark.parametrize("packed", [bytes, gzip.compress], ids=["plain", "gzip"])
def test_a_jsonl_run_on_standard_input_is_told_by_its_content(
    packed, tmp_path, monkeypatch, capsys
):
    """'-' has no name to tell JSONL by: it was read as TREC text ("score '"score":' is not
    an ASCII decimal number" on every line)."""
    trec_run = HPO_RUNS[0]
    jsonl = tmp_path / "run.jsonl"
    _as_jsonl(trec_run, jsonl)
    expected = _score(capsys, "-q", str(HPO_QRELS), str(trec_run))
    _piped(monkeypatch, packed(b"\n  " + jsonl.read_bytes()))  # past blank lines
    assert _score(capsys, "-q", str(HPO_QRELS), "-") == expected
    _piped(monkeypatch, packed(jsonl.read_bytes()))
    assert run(["validate", "-"]) == 0
    assert "OK: 1 file(s)" in capsys.readouterr().out


def test_trec_text_on_standard_input_stays_trec_text(tmp_path, monkeypatch, capsys):
    # a qid opening with '{' is no JSON object; a file named otherwise is told by its name
    qrels = tmp_path / "qrels"
    qrels.write_text("{x} 0 d1 1\n")
    _piped(monkeypatch, b"{x} Q0 d1 1 2.5 t\n")
    code, out = _score(capsys, "-q", "-m", "P.1", str(qrels), "-")
    assert (code, out.split()) == (0, ["P_1", "{x}", "1.0000", "P_1", "all", "1.0000"])
    # trec_eval takes '{"q1"}' as a qid too: a line that opens as JSON but is no object
    qrels.write_text('{"q1"} 0 d1 1\n')
    for measure in ("P.1", "set_P"):  # the small path's and the general path's alike
        _piped(monkeypatch, b'{"q1"} Q0 d1 1 2.5 t\n')
        code, out = _score(capsys, "-m", measure, str(qrels), "-")
        assert (code, out.split()[1:]) == (0, ["all", "1.0000"]), measure
    named = tmp_path / "run.txt"
    named.write_text(GOOD + "\n" + GOOD + "\n")
    assert run(["score", str(qrels), str(named)]) == 2
    # read as TREC text, which it is not: it said R12 "is not an ASCII decimal number"
    assert (
        f"{named}: error[R32]: JSON lines, not a TREC run: a JSONL run (qid, docno, score a "
        "line) is read when named *.jsonl; else convert it first (" in capsys.readouterr().err
    )


def test_a_jsonl_run_on_standard_input_with_a_broken_first_line_is_refused_there(
    monkeypatch, capsys
):
    # it was read as TREC text: "-:1:score: error[R12]: score '"score":' is not an ASCII
    # decimal number" on every line, the JSON's fault never said
    broken = GOOD.removesuffix("}")
    for second in (GOOD, "  \n" + GOOD):  # the next line that is not blank decides
        _piped(monkeypatch, f"{broken}\n{second}\n".encode())
        assert run(["validate", "-"]) == 2
        assert capsys.readouterr().out.startswith(
            f"-:1:line: error[R32]: bad JSON: Expecting ',' delimiter at column {len(broken) + 1}"
        )
    # a TREC line opening as JSON is followed by TREC lines: text it stays
    _piped(monkeypatch, b'{"q1"} Q0 d1 1 2.5 t\n{"q1"} Q0 d2 2 2.4 t\n')
    with Source("-") as source:
        assert source.format.name == "TREC text"


@pytest.mark.parametrize("head", ["\n", " \t\r\n\n"], ids=["blank", "blanks"])
def test_a_byte_order_mark_then_a_blank_line_is_read_past(head, tmp_path):
    # the mark counted as a line holding more than white space, which Arrow's reader gave
    # no row: "not a JSONL run Arrow can read", where a mark before an object scored
    run_file = tmp_path / "run.jsonl"
    run_file.write_bytes(b"\xef\xbb\xbf" + f"{head}{GOOD}\n".encode())
    assert read_run(str(run_file)).line.tolist() == [head.count("\n") + 1]
    qrels = tmp_path / "qrels"
    qrels.write_text("q1 0 d1 1\n")
    assert evaluate(str(qrels), str(run_file), ["P.1"]).aggregates["value"].tolist() == [1.0]
    assert run(["validate", str(run_file)]) == 0


def test_a_byte_order_mark_inside_the_file_is_refused_where_a_block_starts(tmp_path):
    # whole, the line is refused; a block starting with it was read past by Arrow's reader
    run_file = tmp_path / "run.jsonl"
    run_file.write_bytes(f"{GOOD}\n\ufeff{GOOD}\n".encode())
    message = f"{run_file}:2: bad JSON: Unexpected UTF-8 BOM (decode using utf-8-sig) at column 1"
    with pytest.raises(InputError) as whole:
        read_run(str(run_file))
    assert str(whole.value) == message
    with Source(str(run_file)) as source, pytest.raises(InputError) as blocks:
        list(jsonl.read_blocks(source, SimpleNamespace(read_bytes=len(GOOD) + 1)))
    assert str(blocks.value) == message


def _lzma(data: bytes) -> bytes:
    import lzma

    return lzma.compress(data)


@pytest.mark.parametrize(
    ("piped", "told"),
    [
        # a one-line TREC run without its final newline, qid '{"q1"}': refused as bad JSON
        (b'{"q1"} Q0 d1 1 2.5 t', "trec"),
        # more than the 4 KiB looked at of blank lines before the first object: TREC text
        (b"\n" * 5000 + GOOD.encode() + b"\n", "jsonl"),
        # xz streams one after another: a read stops at each stream's end (here a blank)
        (_lzma(b"\n") + _lzma(GOOD.encode() + b"\n"), "jsonl"),
        (_lzma(b'{"q1"} Q0') + _lzma(b" d1 1 2.5 t\n"), "trec"),
    ],
    ids=["one-line-trec", "blank-lines", "xz-streams-jsonl", "xz-streams-trec"],
)
def test_a_nameless_input_is_told_by_what_it_holds_past_blanks_and_streams(
    piped, told, tmp_path, monkeypatch
):
    _piped(monkeypatch, piped)
    with Source("-") as source:
        assert source.format.name == ("JSONL" if told == "jsonl" else "TREC text")


@pytest.mark.parametrize(
    ("score", "said"),
    [
        ("1e400", "score 1e400 overflows a double"),  # "score inf is not finite"
        ("1.7976931348623159e308", "score 1.7976931348623159e308 overflows a double"),
        ("1" + "0" * 5000, "(5,001 characters)"),
    ],
    ids=["1e400", "past-DBL_MAX", "5001-digits"],
)
def test_a_jsonl_score_beyond_a_double_is_said_to_overflow_as_trec_text_says(score, said, tmp_path):
    # the 5,001 digits were "bad JSON: Exceeds the limit (4300 digits) for integer string
    # conversion ... use sys.set_int_max_str_digits()": valid JSON, and no advice to take
    run_file = tmp_path / "run.jsonl"
    run_file.write_text(f'{{"qid": "q1", "docno": "d1", "score": {score}}}\n')
    with pytest.raises(InputError, match=re.escape(said)) as caught:
        read_run(str(run_file))
    assert str(caught.value).endswith(" overflows a double") and "run.jsonl:1: score " in str(
        caught.value
    )
    largest = '{"qid": "q1", "docno": "d1", "score": 1.7976931348623157e308}\n'
    run_file.write_text(largest)
    assert read_run(str(run_file)).score.tolist() == [1.7976931348623157e308]


@pytest.mark.parametrize(
    "rank",
    ["9" * 20, "-" + "9" * 320, "9" * 5000, "-" + "9" * 5000],
    ids=["20-digits", "321-digits", "5000-digits", "minus-5000-digits"],
)
@pytest.mark.parametrize("blocks", [False, True], ids=["whole", "blocks"])
def test_a_jsonl_rank_beyond_64_bits_is_said_to_be_so_in_one_short_line(
    rank, blocks, tmp_path, monkeypatch
):
    # a rank of 310 digits or more (a double's infinity) was "rank must be a JSON integer,
    # not the number 999…": a JSON integer it is, out of range
    run_file = tmp_path / "run.jsonl"
    line = f'{{"qid": "q1", "docno": "d2", "score": 1, "rank": {rank}}}'
    run_file.write_text("\n".join([GOOD] * 51 + ["  ", line, GOOD]) + "\n")
    message = str(_refused(run_file, blocks, monkeypatch).value)
    assert message.startswith(f"{run_file}:53: rank {rank[:20]}")
    assert message.endswith(" is beyond 64 bits") and "\n" not in message
    assert len(message) < len(str(run_file)) + 400
    # validate said so too, but of 4,301 digits or more it stopped with an internal error:
    # telling a JSON document from JSON lines converted the rank to a Python int
    from trecbench.validation import validate_run

    (bad,) = [f for f in validate_run(run_file).findings if f.rule.startswith("R32")]
    assert bad.line == 53 and bad.message.startswith(f"rank {rank[:20]}")


def test_ranks_a_jsonl_run_does_not_give_are_never_checked(tmp_path):
    """A row without ``rank`` stands at its place in trec_eval's order: no rank finding
    can come of it. Made up per chunk, a topic's ranks restarted at 1 in each chunk (and
    in the last line's, without a newline): R11 'rank 1 appears twice', and R14 against
    a later chunk's scores."""
    from trecbench.validation import validate_run

    two = tmp_path / "two.jsonl"
    two.write_text('{"qid":"q1","docno":"a","score":2.0}\n{"qid":"q1","docno":"b","score":1.0}')
    assert validate_run(two, profile="rtask").findings == []
    falling = tmp_path / "falling.jsonl"
    rows = [{"qid": f"q{i // 40}", "docno": f"d{i}", "score": 1000.0 - i} for i in range(200)]
    falling.write_text("".join(json.dumps(row) + "\n" for row in rows))
    for chunk_bytes in (100, 999, 1 << 20):
        assert validate_run(falling, profile="strict", chunk_bytes=chunk_bytes).findings == []


def test_the_ranks_a_jsonl_run_gives_are_checked_beside_rows_without_one(tmp_path):
    """A topic with a row without ``rank`` cannot be numbered 1..n (no R11); the ranks
    given are still compared with their scores (R14), whatever the chunks."""
    from trecbench.validation import validate_run

    path = tmp_path / "mixed.jsonl"
    rows = [{"qid": "q1", "docno": "a", "score": 1.0, "rank": 1},
            {"qid": "q1", "docno": "b", "score": 5.0},
            {"qid": "q1", "docno": "c", "score": 3.0, "rank": 2}]  # fmt: skip
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    for chunk_bytes in (60, 1 << 20):
        found = validate_run(path, profile="strict", chunk_bytes=chunk_bytes).findings
        assert [(f.rule, f.line) for f in found if f.rule in ("R11", "R14")] == [("R14", 3)]
    # a Parquet run's rank column with a null alike (its ranks were all made up then)
    import pyarrow as pa
    import pyarrow.parquet as pq

    columns = {name: [row.get(name) for row in rows] for name in ("qid", "docno", "score", "rank")}
    pq.write_table(pa.table(columns), tmp_path / "mixed.parquet")
    found = validate_run(tmp_path / "mixed.parquet", profile="strict").findings
    assert [(f.rule, f.line) for f in found if f.rule in ("R11", "R14")] == [("R14", 3)]


@pytest.mark.parametrize("blocks", [False, True], ids=["whole", "blocks"])
def test_score_refuses_a_run_file_without_rows_with_validates_rule(
    blocks, tmp_path, monkeypatch, capsys
):
    """An empty JSONL or Parquet file, or JSONL of blank lines only, is refused by score
    as validate refuses it, ``file: error[RULE]: message`` (R26, R9; docs/score.md):
    score said 'empty run file' without a rule."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from trecbench.validation import validate_run

    qrels = tmp_path / "q.txt"
    qrels.write_text("q1 0 d 1\n")
    (tmp_path / "empty.jsonl").write_bytes(b"")
    (tmp_path / "blank.jsonl").write_bytes(b"\n \n" * (3000 if blocks else 1))
    columns = {"qid": pa.array([], pa.string()), "docno": pa.array([], pa.string())}
    pq.write_table(pa.table(columns | {"score": pa.array([], pa.float64())}),
                   tmp_path / "empty.parquet")  # fmt: skip
    if blocks:
        monkeypatch.setattr(memory, "BLOCK_LINES", 50)
        monkeypatch.setattr(memory, "FEWEST_BLOCK_LINES", 50)
        monkeypatch.setattr(memory, "FEWEST_READ_BYTES", 2000)
    in_blocks, original = [], jsonl.read_blocks
    monkeypatch.setattr(jsonl, "read_blocks", lambda *a: in_blocks.append(1) or original(*a))
    for name, rule, message in [("empty.jsonl", "R26", "empty file"),
                                ("blank.jsonl", "R9", "no data lines"),
                                ("empty.parquet", "R26", "empty file")]:  # fmt: skip
        path = tmp_path / name
        (finding,) = validate_run(path).findings
        assert (finding.rule, finding.message) == (rule, message)
        memory_options = ["--memory", "1"] if blocks else []
        assert run(["score", *memory_options, str(qrels), str(path)]) == 2
        assert capsys.readouterr().err == f"trecbench: {path}: error[{rule}]: {message}\n"
    assert in_blocks == ([1] if blocks else [])  # the blank lines' file, in blocks
    empty_qrels = tmp_path / "qrels.parquet"
    pq.write_table(pa.table(columns | {"rel": pa.array([], pa.int64())}), empty_qrels)
    assert run(["score", str(empty_qrels), str(tmp_path / "empty.parquet")]) == 2
    assert capsys.readouterr().err == f"trecbench: {empty_qrels}: error[R26]: empty file\n"


DICT_RUN = b'{"1": {"d1": 1.0}}\n'  # what `convert dict` reads: no JSONL run


def _said(capsys, *args: str) -> tuple[int, str, str]:
    code = run(["validate", *args])
    shown = capsys.readouterr()
    return code, shown.out, shown.err


@pytest.mark.parametrize("data", [DICT_RUN, b'{\n  "1": {"d1": 1.0}\n}\n'], ids=["line", "lines"])
def test_a_json_document_is_r32_however_it_arrives(data, tmp_path, monkeypatch, capsys):
    """Issue 418: on standard input or named *.jsonl (read as JSONL), the dict stopped
    validate with 'unknown key "1"' and no finding; named otherwise it was R32 with the
    converter's hint. The same bytes now give the same findings and counts."""
    named = tmp_path / "x"
    named.write_bytes(data)
    code, out, err = _said(capsys, str(named))
    assert (code, err) == (2, "")
    assert "error[R32]: a JSON document, not a TREC run: convert it first" in out
    as_jsonl = tmp_path / "x.jsonl"
    as_jsonl.write_bytes(data)
    assert _said(capsys, str(as_jsonl)) == (2, out.replace(str(named), str(as_jsonl)), "")
    _piped(monkeypatch, data)
    assert _said(capsys, "-") == (2, out.replace(str(named), "-"), "")
    _piped(monkeypatch, data)
    code, out, err = _said(capsys, "--format", "json", "-")
    (report,) = json.loads(out)
    assert (code, err, [f["rule"] for f in report["findings"]]) == (2, "", ["R32"])


@pytest.mark.parametrize("memory_options", [[], ["--memory", "1"]], ids=["whole", "blocks"])
def test_score_reads_a_json_document_as_validate_does(
    memory_options, tmp_path, monkeypatch, capsys
):
    """Score read a JSON document piped in or named *.jsonl as a JSONL run, and refused it
    ('unknown key'), where validate read it as TREC text (its bytes as a run when they
    are one, else R32 with the converter's hint): validate said OK of a file score
    refused. Score now reads it as validate does, whole and in blocks, however it arrives:
    the dict is R32; a line whose six blank-separated fields make a TREC run is scored as
    the same bytes named x.run are (as trec_eval reads them)."""
    qrels = tmp_path / "qrels"
    qrels.write_text('{"k": 0 b 1\n')
    for data, code in [(DICT_RUN, 2), (b'{"k": "a b 1 2 t"}\n', 0)]:
        named = tmp_path / "x.run"
        named.write_bytes(data)
        expected = run(["score", *memory_options, str(qrels), str(named)]), capsys.readouterr()
        assert expected[0] == code
        said = expected[1].err if code else expected[1].out
        assert (
            ("error[R32]: a JSON document" in said)
            if code
            else ("recall_100            \tall\t1.0000" in said)
        )
        as_jsonl = tmp_path / "x.jsonl"
        as_jsonl.write_bytes(data)
        for args, name in [([str(as_jsonl)], str(as_jsonl)), (["-"], "-")]:
            _piped(monkeypatch, data)
            shown = run(["score", *memory_options, str(qrels), *args]), capsys.readouterr()
            err = "".join(w for w in shown[1].err.splitlines(True) if "from a pipe" not in w)
            assert shown[0] == code
            assert (shown[1].out, err) == (
                expected[1].out,
                expected[1].err.replace(str(named), name),
            )
            _piped(monkeypatch, data)
            assert run(["validate", *args]) == code
            capsys.readouterr()


@pytest.mark.parametrize(
    ("data", "key"),
    [(b'{"qid": "1", "docno": "a", "socre": 1.5}\n', "socre"),
     (b'{"query_id": "1", "doc_id": "a", "score": 1.5}\n', "doc_id")],
    ids=["misspelt", "ir_measures"],
)  # fmt: skip
def test_a_one_line_run_with_a_misspelt_key_is_said_to_hold_it(
    data, key, tmp_path, monkeypatch, capsys
):
    """One line naming a qid and a docno, or ir_measures' query_id and doc_id, is a JSONL
    run's line gone wrong, not a JSON document to convert: its unknown key is said at its
    line by score and validate, named *.jsonl or piped (read as a document, it was told to
    be converted; two such lines were said to hold the key)."""
    path = tmp_path / "run.jsonl"
    path.write_bytes(data)
    said = f'unknown key "{key}" (a line holds qid, docno, score and optionally rank and tag)'
    qrels = tmp_path / "qrels"
    qrels.write_text("1 0 a 1\n")
    for args, name in [([str(path)], str(path)), (["-"], "-")]:
        _piped(monkeypatch, data)
        assert run(["score", str(qrels), *args]) == 2
        assert capsys.readouterr().err == f"trecbench: {name}:1: {said}\n"
        _piped(monkeypatch, data)
        assert run(["validate", *args]) == 2
        assert f"{name}:1:line: error[R32]: {said}; the lines after it are not read" in (
            capsys.readouterr().out
        )


def test_a_bad_line_of_a_jsonl_run_is_a_finding_after_the_lines_before_it(
    tmp_path, monkeypatch, capsys
):
    """The lines before the bad one are checked (d1 twice: R7, and tied with itself: R15),
    the bad one is R32 at its line, in text and in JSON, whatever the chunks."""
    from trecbench.validation import validate_run

    data = f'{GOOD}\n{GOOD}\n{{"qid": "q1", "docno": "d2", "score": "x"}}\n{GOOD}\n'.encode()
    path = tmp_path / "run.jsonl"
    path.write_bytes(data)
    for chunk_bytes in (20, 60, 1 << 20):
        found = validate_run(path, chunk_bytes=chunk_bytes).findings
        assert [(f.rule, f.line) for f in found] == [("R15", 1), ("R7", 2), ("R32", 3)]
    assert found[2].message == (
        'score must be a JSON number, not the string "x"; the lines after it are not read'
    )
    _piped(monkeypatch, data)
    code, out, err = _said(capsys, "--format", "json", "-")
    (report,) = json.loads(out)
    assert (code, err) == (2, "")
    assert [(f["rule"], f["line"]) for f in report["findings"]] == [
        ("R15", 1),
        ("R7", 2),
        ("R32", 3),
    ]
    assert report["counts"]["lines"] == 3  # the bad line was read: counted


@pytest.mark.parametrize("bad", [1, 3, 4], ids=["first", "middle", "last"])
def test_the_line_count_after_a_bad_line_counts_every_line_read(bad, tmp_path, capsys):
    """The summary counted the lines before a JSONL run's bad line, not the bad line it
    read: "2 lines" of a file whose third line was reported; the lines after it are not
    read, not counted."""
    from trecbench.validation import validate_run

    lines = [f'{{"qid": "q1", "docno": "d{i}", "score": {10 - i}}}' for i in range(1, 6)]
    lines[bad - 1] = "{bad"
    path = tmp_path / "run.jsonl"
    path.write_text("\n".join(lines) + "\n")
    for chunk_bytes in (20, 60, 1 << 20):
        result = validate_run(path, chunk_bytes=chunk_bytes)
        assert [(f.rule, f.line) for f in result.findings] == [("R32", bad)]
        assert result.counts["lines"] == bad
    code, out, _ = _said(capsys, str(path))
    word = "line" if bad == 1 else "lines"
    assert code == 2 and f"FAILED: 1 file(s), {bad} {word}: 1 error(s)" in out


def test_phentrieve_s_results_given_as_a_run_name_the_converter(capsys):
    # review 722: 'unknown key "case_id" (a line holds ...)' said nothing of what to do with
    # the benchmark output the README's convert example reads
    results = ROOT / "data" / "hpo-demo" / "results" / "tfidf-word" / "terms.jsonl"
    assert run(["score", str(ROOT / "qrels" / "hpo-demo.qrels"), str(results)]) == 2
    assert capsys.readouterr().err == (
        f'trecbench: {results}:1: unknown key "case_id" (a line holds qid, docno, score and '
        "optionally rank and tag): Phentrieve's results are converted first (trecbench convert "
        "hpo CASES --results FILE)\n"
    )
