"""`validate`'s options from the spec (validator-rules.md): the relevance level of Q7
(`-l`), a list of docids and a pattern for R6 (`--docids`, `--docid-regex`) and the
topics files of R4 and R5 (`--topics`)."""

from __future__ import annotations

import gzip
import re

import pytest

from trecbench.cli import run
from trecbench.errors import InputError, UsageError
from trecbench.validation import read_topics, validate_files, validate_qrels, validate_run


def call(capsys, *args) -> tuple[int, str, str]:
    code = run([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


# topic 1's grade 1 still counts in nDCG (-l changes no gain): it scored "0 on every
# measure" where trec_eval 9.0.8 -l 2 gives its ndcg 1.0; topic 3, judged 0 alone, does
Q7_AT_2 = (
    "lv.qrels:1:qid: warning[Q7]: topic 1 has no relevant document (grade >= 2): it scores 0 "
    "on every measure of binary relevance (nDCG and G count its grades)"
)
Q7_AT_2_NONE = (
    "lv.qrels:3:qid: warning[Q7]: topic 3 has no relevant document (grade >= 2): it scores 0 "
    "on every measure"
)


@pytest.mark.parametrize("flag", ["-l", "--level_for_rel", "--relevance-level"])
@pytest.mark.parametrize("grade", ["2", "+2"])  # small plain qrels, and the general path
def test_relevance_level_chooses_q7s_level(tmp_path, capsys, monkeypatch, flag, grade):
    """`-l` was "No such option"; Q7 was always judged at level 1. --level_for_rel, -l's
    long name in every other command that takes it, was "No such option" too."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "lv.qrels").write_text(f"1 0 a 1\n2 0 b {grade}\n3 0 c 0\n")
    code, out, _ = call(capsys, "validate", "--qrels", "lv.qrels", flag, "2")
    assert code == 0 and {Q7_AT_2, Q7_AT_2_NONE} <= set(out.splitlines()), out
    assert call(capsys, "validate", "--qrels", "lv.qrels")[1].count("Q7") == 1  # topic 3


def test_relevance_level_is_given_to_the_qrels_of_runs_too(tmp_path):
    qrels, path = tmp_path / "lv.qrels", tmp_path / "r.run"
    qrels.write_text("1 0 a 1\n2 0 b 3\n")
    path.write_text("1 Q0 a 1 1 t\n2 Q0 b 1 1 t\n")
    results = validate_files([path], qrels=qrels, relevance_level=3)
    assert [f.check for f in results[0].findings] == ["Q7"]
    assert [f.check for f in validate_qrels(qrels, relevance_level=3).findings] == ["Q7"]
    assert not validate_files([path], qrels=qrels)[0].findings


def test_a_relevance_level_below_1_is_refused_as_score_refuses_it(tmp_path, capsys):
    (tmp_path / "lv.qrels").write_text("1 0 a 1\n")
    code, _, err = call(capsys, "validate", "--qrels", tmp_path / "lv.qrels", "-l", "0")
    assert code == 1 and "0 is not in the range x>=1" in err


RUN = "1 Q0 d1 1 3 t\n1 Q0 d3 2 2 t\n1 Q0 D2 3 1 t\n2 Q0 0042 1 1 t\n"


def _r6(result) -> list[tuple[int, str, str]]:
    return [(f.line, f.severity, f.message) for f in result.findings if f.rule == "R6"]


NOT_LISTED = [
    (2, "error", "docno 'd3' is not in --docids"),
    (3, "error", "docno 'D2' is not in --docids"),  # case counts
    (4, "error", "docno '0042' is not in --docids"),  # and so do zeros: '42' is listed
]


@pytest.mark.parametrize("compressed", [False, True])
def test_docids_lists_the_docnos_a_run_may_hold(tmp_path, compressed):
    """The spec's R6 is 'docid matches --docid-regex / list': there was no list."""
    path = tmp_path / "r.run"
    path.write_text(RUN)
    text = b"\xef\xbb\xbfd1\r\n\n  d2\t\n42\nd1\n"  # a BOM, CRLF, blanks, a repeat
    docids = tmp_path / ("ids.txt.gz" if compressed else "ids.txt")
    docids.write_bytes(gzip.compress(text) if compressed else text)
    assert _r6(validate_run(path, docids=docids)) == NOT_LISTED
    assert _r6(validate_run(path, docids=["d1", "d2", "42"])) == NOT_LISTED
    lenient = validate_run(path, docids=docids, profile="lenient")
    assert [severity for _, severity, _ in _r6(lenient)] == ["warning"] * 3
    assert not _r6(validate_run(path, docids=["d1", "d2", "d3", "D2", "0042"]))


def test_docids_on_the_command_line_and_with_fix(tmp_path, capsys):
    path, docids = tmp_path / "r.run", tmp_path / "ids.txt"
    path.write_text(RUN)
    docids.write_text("d1\nd2\n42\n")
    code, out, _ = call(capsys, "validate", path, "--docids", docids)
    assert code == 2
    assert f"{path}:2:docno: error[R6]: docno 'd3' is not in --docids" in out.splitlines()
    assert "3 error(s)" in out
    code, _, err = call(capsys, "validate", path, "--docids", docids, "--fix", tmp_path / "f")
    assert code == 2 and "--fix cannot repair R6" in err
    docids.write_text("d1\nd3\nD2\n0042\n")
    assert call(capsys, "validate", path, "--docids", docids)[0] == 0


@pytest.mark.parametrize(
    ("text", "error"),
    [
        (b"d1\nd 2\n", "ids.txt:2: two fields or more: give one docid per line"),
        (b"d1\na\x00b\n", "ids.txt:2: NUL byte in a docid"),
        (b"\n \n", "ids.txt: no docids found"),
        (b"d1\n\xffx\n", "ids.txt:2: invalid UTF-8"),
    ],
)
def test_a_docids_file_that_is_no_list_of_ids_is_refused_at_its_line(
    tmp_path, capsys, monkeypatch, text, error
):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "r.run").write_text(RUN)
    (tmp_path / "ids.txt").write_bytes(text)
    code, _, err = call(capsys, "validate", "r.run", "--docids", "ids.txt")
    assert code == 2 and err.startswith(f"trecbench: {error}"), err


def test_docids_are_found_exactly_when_their_hashes_collide(monkeypatch):
    """A 64-bit hash finds the listed id; the string decides (ids compared exactly)."""
    import numpy as np
    import pyarrow as pa

    from trecbench.validation import docids as module

    monkeypatch.setattr(module, "string_hash", lambda values: np.zeros(len(values), np.uint64))
    listed = module.DocidList(pa.array(["a", "b", "c"]))
    assert listed.missing(pa.array(["c", "x", "a", "b"])).tolist() == [False, True, False, False]


# --docid-regex: expected findings worked by hand from what a full match of the pattern is

REGEX_RUN = "1 Q0 abc 1 3 t\n1 Q0 zzz 2 2 t\n1 Q0 a 3 1 t\n1 Q0 a.c 4 0 t\n"


@pytest.mark.parametrize(
    ("pattern", "failing"),
    [
        ("a|zzz", [1, 4]),  # a top-level alternation is matched in full as a whole
        ("ab|c|zz", [1, 2, 3, 4]),  # prefixes and suffixes of docnos match no docno in full
        ("(?i)A|ZZZ", [1, 4]),  # a flag stays inside the pattern
        ("\\Qa.c", [1, 2, 3]),  # RE2's quoting to the end: the literal a.c (was refused)
        ("[a-z]+", [4]),
    ],
)
def test_docid_regex_matches_each_docno_in_full(tmp_path, capsys, pattern, failing):
    path = tmp_path / "r.run"
    path.write_text(REGEX_RUN)
    assert [line for line, _, _ in _r6(validate_run(path, docid_regex=pattern))] == failing
    code, out, _ = call(capsys, "validate", path, "--docid-regex", pattern)
    assert code == 2 and f"{len(failing)} error(s)" in out, out


@pytest.mark.parametrize(
    ("pattern", "reason"),
    [
        # wrapped before it was compiled, it became ^(?:a)|(?:q)$: 'abc' passed R6
        ("a)|(?:q", "unexpected ): a)|(?:q"),
        ("[a-z", "missing ]: [a-z"),  # the message quoted the wrapper: [a-z)$
        ("(", "missing ): ("),
    ],
)
def test_a_docid_regex_that_is_no_pattern_alone_is_refused_quoting_it(
    tmp_path, capsys, pattern, reason
):
    path = tmp_path / "r.run"
    path.write_text(REGEX_RUN)
    message = f"invalid regular expression {pattern!r}: {reason}"
    code, out, err = call(capsys, "validate", path, "--docid-regex", pattern)
    assert code == 1 and not out
    assert err.startswith(f"trecbench: validate: Invalid value for --docid-regex: {message} ")
    assert len(err.splitlines()) == 1
    with pytest.raises(UsageError) as raised:  # the Python API refuses it alike, naming it
        validate_run(path, docid_regex=pattern)
    assert str(raised.value) == f"docid_regex: {message}"


# --topics: the ids of the files users bring (BEIR, ir_datasets, TSV with a header)

TOPICS_RUN = "q1 Q0 a 1 2 t\nq2 Q0 b 1 1 t\n"


@pytest.mark.parametrize(
    ("name", "text"),
    [
        # BEIR's queries.jsonl: '{"_id":' was read as the one topic (R4 and R5 for all)
        ("queries.jsonl", '{"_id": "q1", "text": "x y"}\n{"_id": "q2", "text": "z"}\n'),
        ("queries.txt", '\n{"query_id": "q1", "text": "x"}\n\n{"qid": "q2"}\n'),
        # a TSV with a header: 'qid' was a topic the run lacks (R5)
        ("topics.tsv", "qid\tquery\nq1\thello\nq2\tworld\n"),
        ("topics.tsv", "Query_ID\ttext\nq1\thello\nq2\tworld\n"),
        ("qrels.tsv", "query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td2\t1\n"),
        ("topics.txt", "id\nq1\nq2\n"),
    ],
)
@pytest.mark.parametrize("general", [False, True])  # the small path and the general one
def test_topics_of_jsonl_queries_and_tsv_with_a_header(tmp_path, capsys, name, text, general):
    run, topics = tmp_path / "r.run", tmp_path / name
    run.write_text(TOPICS_RUN)
    topics.write_text(text)
    assert read_topics(topics) == ["q1", "q2"]
    options = ["--docid-regex", "[ab]"] if general else []
    code, out, err = call(capsys, "validate", run, "--topics", topics, *options)
    assert (code, err) == (0, "") and out.startswith("OK:"), out


def test_integer_ids_of_jsonl_queries_are_read_as_text(tmp_path):
    topics = tmp_path / "q.jsonl.gz"
    topics.write_bytes(gzip.compress(b'{"query_id": 301}\n{"query_id": "302"}\n'))
    assert read_topics(topics) == ["301", "302"]


# no flag named: the library's topics= (read_topics) and a benchmark's `topics` read them too
JSON_LINES = (
    'topics in JSON are JSON lines: one object a line, its id as "_id" (BEIR), "query_id" or "qid"'
)
NO_ID = "no topic id a run can hold"
NO_COLON = "Expecting ':' delimiter at column 7"


@pytest.mark.parametrize(
    ("name", "text", "error"),
    [
        ("q.json", '[{"_id": "q1"}]\n', f"q.json:1: a JSON array; {JSON_LINES}"),
        (
            "q.txt",
            '{"_id": "q1"}\n{"text": "x"}\n',
            f'q.txt:2: no topic id in an object ({{"text": "x"}}); {JSON_LINES}',
        ),
        (
            "q.txt",
            '{"_id": "q1", "qid": "1"}\n',
            f'q.txt:1: two topic ids ("_id" and "qid"); {JSON_LINES}',
        ),
        ("q.jsonl", '"q1"\n', f'q.jsonl:1: no topic id in a string ("q1"); {JSON_LINES}'),
        ("q.txt", '{"_id": "q 1"}\n', f"q.txt:1: \"_id\" is 'q 1': {NO_ID}"),
        ("q.txt", '{"_id": ""}\n', f"q.txt:1: \"_id\" is '': {NO_ID}"),
        ("q.txt", '{"qid": 1.5}\n', f'q.txt:1: "qid" is a number (1.5): {NO_ID}'),
        ("q.txt", '{"qid": true}\n', f'q.txt:1: "qid" is a boolean (true): {NO_ID}'),
        ("q.txt", '{"_id": "q1"}\n{"_id"\n', f"q.txt:2: invalid JSON: {NO_COLON}"),
    ],
)  # fmt: skip
def test_topics_that_are_no_jsonl_queries_are_refused_at_their_line(
    tmp_path, capsys, monkeypatch, name, text, error
):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "r.run").write_text(TOPICS_RUN)
    (tmp_path / name).write_text(text)
    with pytest.raises(InputError) as raised:
        read_topics(name)
    assert str(raised.value) == error
    code, out, err = call(capsys, "validate", "r.run", "--topics", name)
    assert (code, out, err) == (2, "", f"trecbench: {error}\n")


@pytest.mark.parametrize(
    ("topics", "message"),
    [
        (5, "topics=5: give a list of topic ids or a topics file's path, not an int"),
        (["1", 2.0], "topics: topic id 2.0: give ids as text, not a float"),
        (["1", None], "topics: topic id None: give ids as text, not None"),
    ],
)
def test_topics_of_no_ids_are_refused_in_one_line(tmp_path, topics, message):
    # 5 raised "'int' object is not iterable", ["1", 2.0] "'float' object has no
    # attribute 'lstrip'", from inside the checker
    run_file = tmp_path / "r.run"
    run_file.write_text("1 Q0 a 1 2 t\n2 Q0 a 1 2 t\n")
    for call in (
        lambda: validate_run(run_file, topics=topics),
        lambda: validate_files([run_file], topics=topics),
    ):
        with pytest.raises(UsageError, match="^" + re.escape(message) + "$"):
            call()
    # an integer id is its decimal text, as ids are read
    assert not validate_run(run_file, topics=["1", 2]).findings
