"""What `trecbench convert` reads, given to score, compare or validate as a run or qrels:
one line naming the converter, where the file cannot be read as TREC text anyway (it was a
screen of field errors, 12 lines for Phentrieve's tiny_v1.json, that never said `convert`)."""

from __future__ import annotations

import contextlib
import gzip
import json

import pytest
from conftest import ROOT

from trecbench.cli import run
from trecbench.errors import InputError
from trecbench.inputs import trec_tables, trec_text
from trecbench.inputs.unconverted import json_content
from trecbench.json_limits import too_deep

QRELS = str(ROOT / "qrels" / "hpo-demo.qrels")
RUN = str(ROOT / "runs" / "tfidf-char.run")
CASES = str(ROOT / "data" / "hpo-demo" / "cases.json")  # Phentrieve's test cases
CONVERTERS = "convert it first (trecbench convert hpo|code-chunk|memorybench|lists|dict ...; "
# where to read more: a pip-installed trecbench has no docs/ folder to point into
SEE = "see 'trecbench convert --help' and the docs' convert.md)"


def _err(capsys, *args: str) -> tuple[int, list[str]]:
    code = run(list(args))
    return code, capsys.readouterr().err.splitlines()


@pytest.mark.parametrize(
    ("args", "shown"),
    [
        (
            ["score", QRELS, CASES],
            f"{CASES}: error[R32]: a JSON document, not a TREC run: {CONVERTERS}{SEE}",
        ),
        (
            ["score", CASES, RUN],
            f"{CASES}: error[Q12]: a JSON document, not TREC qrels: {CONVERTERS}{SEE}",
        ),
        (
            ["compare", QRELS, RUN, str(ROOT / "data" / "convert" / "bm25-results.json")],
            "bm25-results.json: error[R32]: a JSON document, not a TREC run: convert it first",
        ),
        (  # it said "expected 6 fields (qid Q0 docno rank score tag), found 3" on every line
            ["score", QRELS, str(ROOT / "data" / "convert" / "msmarco-run.tsv")],
            "msmarco-run.tsv: error[R32]: 3 fields on every line (an MS MARCO qid pid rank "
            f"run?), not a TREC run: convert it first (trecbench convert msmarco; {SEE}",
        ),
        (
            ["score", str(ROOT / "data" / "convert" / "beir-test.tsv"), RUN],
            "beir-test.tsv: error[Q12]: 3 fields on every line (BEIR qrels, query-id corpus-id "
            "score?), not TREC qrels: convert it first (trecbench convert beir-qrels; ",
        ),
        (  # trecbench's own sidecar: convert wrote the qrels beside it
            ["score", str(ROOT / "qrels" / "hpo-demo.sidecar.json"), RUN],
            "hpo-demo.sidecar.json: error[Q12]: trecbench's sidecar (what convert keeps beside "
            "the files it writes; --strata reads it), not TREC qrels: give the .qrels file "
            "convert wrote",
        ),
    ],
)
def test_what_convert_reads_is_one_line_naming_the_converter(args, shown, capsys):
    code, lines = _err(capsys, *args)
    assert code == 2 and len(lines) == 1, lines
    assert shown in lines[0]


def test_the_documented_line(monkeypatch, capsys):
    monkeypatch.chdir(ROOT)
    code, lines = _err(capsys, "score", "qrels/hpo-demo.qrels", "data/hpo-demo/cases.json")
    assert code == 2 and len(lines) == 1
    assert f"\n{lines[0]}\n" in (ROOT / "docs" / "score.md").read_text(encoding="utf-8")


def test_validate_says_it_once_too(capsys):
    code = run(["validate", CASES])
    out = capsys.readouterr().out.splitlines()
    assert code == 2
    assert out == [
        f"{CASES}: error[R32]: a JSON document, not a TREC run: {CONVERTERS}{SEE}",
        f"FAILED: 1 file(s), {_lines(CASES)} lines: 1 error(s), 0 warning(s), 0 info",
    ]


def _lines(path: str) -> int:
    with open(path, "rb") as handle:
        return handle.read().count(b"\n")


def test_compressed_and_in_blocks_alike(tmp_path, capsys):
    packed = tmp_path / "cases.json.gz"
    with open(CASES, "rb") as handle:
        packed.write_bytes(gzip.compress(handle.read()))
    for args in (["score", QRELS, str(packed)], ["score", "--memory", "1", QRELS, CASES]):
        code, lines = _err(capsys, *args)
        assert code == 2 and len(lines) == 1 and "error[R32]: a JSON document" in lines[0], args


def test_the_readers_say_it_without_the_validator(tmp_path):
    path = tmp_path / "dict.json"
    path.write_text(json.dumps({"q1": {"d1": 0.9, "d2": 0.4}}, indent=1))
    tokens = trec_text.tokenize_file(str(path))
    with pytest.raises(InputError) as refused:
        trec_text.run_table(tokens)
    assert (refused.value.line, refused.value.rule) == (None, "R32")
    assert refused.value.message.startswith("a JSON document, not a TREC run: convert it first")
    with pytest.raises(InputError) as refused:
        trec_text.qrels_table(trec_text.tokenize_file(str(path), keep=4))
    assert refused.value.rule == "Q12"


@pytest.mark.parametrize(("option", "rule"), [([], "R32"), (["--qrels"], "Q12")])
def test_a_dict_of_one_entry_on_one_line_is_json_not_three_fields(tmp_path, capsys, option, rule):
    """``{"q1": {"a": 1.0}}`` splits into three fields: it was called an MS MARCO run (a
    BEIR qrels), the converter named wrongly (reviewer 186)."""
    path = tmp_path / "d.json"
    path.write_text('{"q1": {"a": 1.0}}\n')
    assert run(["validate", *option, str(path)]) == 2
    assert f"error[{rule}]: a JSON document, not " in capsys.readouterr().out


def test_trec_text_that_opens_as_json_is_read_as_trec_eval_reads_it(tmp_path, capsys):
    # trec_eval takes {"q1"} and [1] for qids: nothing to convert, and it scores
    (tmp_path / "qrels").write_text('{"q1"} 0 d1 1\n[1] 0 d2 1\n')
    (tmp_path / "run").write_text('{"q1"} Q0 d1 1 2.5 t\n[1] Q0 d2 1 1.5 t\n')
    assert run(["score", "-m", "P.1", str(tmp_path / "qrels"), str(tmp_path / "run")]) == 0
    assert capsys.readouterr().out.split() == ["P_1", "all", "1.0000"]
    # TREC text that fails, opening so, keeps its own finding at its line
    (tmp_path / "run").write_text('{"q1"} Q0 d1 1 abc t\n')
    code, lines = _err(capsys, "score", str(tmp_path / "qrels"), str(tmp_path / "run"))
    assert code == 2 and ":1:score: error[R12]: score 'abc'" in lines[0]


@pytest.mark.parametrize(
    "text",
    [
        json.dumps({"q1": {"d1": 0.9, "d2": -1.5e-3}, "é": [True, False, None, 'x\\"y']}),
        json.dumps([{"a": "ü€", "b": [1, 2.5, {"c": None}]}], ensure_ascii=False, indent=2),
        '{"qid": "q1", "docno": "d1", "score": 1}\n{"qid": "q1", "docno": "d2", "score": 0}\n',
    ],
)
def test_json_is_told_however_short_its_first_bytes_are_cut(text):
    data = b"\xef\xbb\xbf  \n" + text.encode()
    told = {
        json_content(data[:end], "f.json")
        for end in range(len(b"\xef\xbb\xbf  \n{"), len(data) + 1)
    }
    assert None not in told


@pytest.mark.parametrize(
    "text",
    [
        b'{"q1"} Q0 d1 1 0.5 t\n',
        b"[1] Q0 d1 1 0.5 t\n",
        b"{ Q0 d1 1 0.5 t\n",
        b'{"q1": 1}\nq1 Q0 d1 1 0.5 t\n',  # a JSON line, then TREC text
        b'{"a": "b\nc"}\n',  # a line break within a JSON string: no JSON
        b"q1 Q0 d1 1 0.5 t\n",
    ],
)
def test_trec_text_is_no_json(text):
    assert json_content(text, "f.json") is None


@pytest.mark.parametrize(
    "args",
    [["score", "QRELS", "DEEP"], ["score", "DEEP", "RUN"], ["validate", "DEEP"],
     ["validate", "--qrels", "DEEP", "RUN"]],
)  # fmt: skip
def test_json_nested_too_deep_is_refused_at_its_line_as_every_json_reader_refuses_it(
    args, tmp_path, capsys
):
    # it was exit 70: Python's JSON parser, telling what the file is, ran out of stack
    deep = tmp_path / "deep.json"
    deep.write_text('{"a": 1}\n{"b": 2}\n' + "[" * 1000 + "]" * 1000 + "\n")
    files = {"QRELS": QRELS, "RUN": RUN, "DEEP": str(deep)}
    code, lines = _err(capsys, *[files.get(arg, arg) for arg in args])
    assert (code, lines) == (2, [f"trecbench: {deep}:3: JSON nested deeper than 100 levels"])


def test_json_too_deep_to_tell_is_told_once(tmp_path, monkeypatch):
    """Not told what it is, it was read with the wrapped reader, whose refusal told the
    head's JSON again to raise the same error: the same error, now from one look."""
    told = []

    def json_content_counted(head, path):
        told.append(path)
        return json_content(head, path)

    monkeypatch.setattr(trec_tables, "json_content", json_content_counted)
    deep = tmp_path / "deep.json"
    deep.write_text('{"a": 1}\n' + "[" * 1000 + "]" * 1000 + "\n")
    for kind, keep in (("run", 6), ("qrels", 4)):
        tokens = trec_text.tokenize_file(str(deep), keep=keep)
        with pytest.raises(InputError) as refused:
            trec_text.unconverted(tokens, kind)
        assert (refused.value.line, refused.value.message) == (2, too_deep())
    assert told == [str(deep)] * 2


def test_trec_text_with_brackets_deeper_than_json_takes_is_still_trec_text(tmp_path, capsys):
    # trec_eval takes 101 brackets for a qid: the JSON limit applies to no TREC text
    run_file = tmp_path / "run"
    run_file.write_text("[" * 101 + " Q0 d1 1 0.5 t\n")
    assert run(["validate", str(run_file)]) == 0


@pytest.mark.parametrize(
    "keys", ['"qid":"q1","docno":"d1","score":1', '"qid":"q1","docno":"d1","score":1,"tag":"t"']
)
def test_a_jsonl_run_of_one_line_is_told_to_be_named_jsonl(tmp_path, capsys, keys):
    """One JSONL record under a .json name was "a JSON document: convert it first"
    (convert dict then refused it); two records were told to be named *.jsonl."""
    (tmp_path / "q.qrels").write_text("q1 0 d1 1\n")
    record = "{" + keys + "}\n"
    (tmp_path / "j1.json").write_text(record)
    code, lines = _err(
        capsys, "score", "-m", "P.1", str(tmp_path / "q.qrels"), str(tmp_path / "j1.json")
    )
    assert code == 2 and lines == [
        f"trecbench: {tmp_path / 'j1.json'}: error[R32]: JSON lines, not a TREC run: a JSONL "
        "run (qid, docno, score a line) is read when named *.jsonl; else convert it first "
        f"(trecbench convert hpo|code-chunk|memorybench|lists|dict ...; {SEE}"
    ]
    # so named, it is read: d1, judged relevant, ranked first (P@1 1 by hand)
    (tmp_path / "j1.jsonl").write_text(record)
    assert run(["score", "-m", "P.1", str(tmp_path / "q.qrels"), str(tmp_path / "j1.jsonl")]) == 0
    assert capsys.readouterr().out.split() == ["P_1", "all", "1.0000"]


@pytest.mark.parametrize(
    "text",
    [
        '{"q1": {"d1": 1.0}}\n',  # a dict run: convert dict
        '{"qid": "q1", "docno": "d1"}\n',  # no score: no line of a JSONL run
        '{\n "qid": "q1",\n "docno": "d1",\n "score": 1\n}\n',  # on several lines: no JSONL
    ],
)
def test_other_single_json_documents_are_still_documents(text):
    assert json_content(text.encode(), "f.json") == "document"


def _arrow_files(folder):
    """A run and qrels as Arrow IPC files (Feather v2), an IPC stream and Feather v1."""
    import warnings

    import pyarrow as pa
    import pyarrow.feather as feather
    import pyarrow.ipc as ipc

    run = pa.table({"qid": ["1"], "iter": ["Q0"], "docno": ["d1"], "rank": [1],
                    "score": [1.0], "tag": ["t"]})  # fmt: skip
    feather.write_feather(run, folder / "r.arrow")
    feather.write_feather(pa.table({"qid": ["1"], "docno": ["d1"], "rel": [1]}), folder / "q.arrow")
    with warnings.catch_warnings():  # pyarrow 25 deprecates writing version 1
        warnings.simplefilter("ignore", DeprecationWarning)
        feather.write_feather(run, folder / "r1.feather", version=1)
    with ipc.new_stream(folder / "r.arrows", run.schema) as writer:
        writer.write_table(run)
    (folder / "r.arrow.gz").write_bytes(gzip.compress((folder / "r.arrow").read_bytes()))


ARROW_SAID = "an Arrow IPC (Feather) file, not {}: write it as Parquet " \
    "(pyarrow.parquet.write_table) or as TREC text"  # fmt: skip


@pytest.mark.parametrize("name", ["r.arrow", "r1.feather", "r.arrows", "r.arrow.gz"])
def test_an_arrow_ipc_run_is_refused_in_one_line_not_per_line(tmp_path, capsys, name):
    # it was 18 lines of R1/R23 findings and "531 more" (reviewer 325)
    _arrow_files(tmp_path)
    run_file = str(tmp_path / name)
    code, err = _err(capsys, "score", "-m", "map", QRELS, run_file)
    assert (code, err) == (
        2,
        [f"trecbench: {run_file}: error[R32]: " + ARROW_SAID.format("a TREC run")],
    )
    code = run(["validate", run_file])
    said = capsys.readouterr().out.splitlines()
    assert code == 2 and said[0] == f"{run_file}: error[R32]: " + ARROW_SAID.format("a TREC run")
    assert said[1].endswith(": 1 error(s), 0 warning(s), 0 info")


def test_arrow_ipc_qrels_are_refused_in_one_line(tmp_path, capsys):
    _arrow_files(tmp_path)
    qrels = str(tmp_path / "q.arrow")
    code, err = _err(capsys, "score", "-m", "map", qrels, RUN)
    assert (code, err) == (
        2,
        [f"trecbench: {qrels}: error[Q12]: " + ARROW_SAID.format("TREC qrels")],
    )


@pytest.mark.parametrize("qid", ["ARROW1", "FEA1", "ARROW1x"])
def test_trec_text_whose_first_qid_is_a_magic_keeps_its_line_error(tmp_path, capsys, qid):
    # the refusal hid 'expected 6 fields' of such a run (reviewer 331)
    run_file = tmp_path / "b.run"
    run_file.write_text(f"{qid} Q0 d1 1 2.0 t\n{qid} Q0 d2 2 1.0\n")
    (tmp_path / "b.qrels").write_text(f"{qid} 0 d1 1\n")
    code, err = _err(capsys, "score", "-m", "map", str(tmp_path / "b.qrels"), str(run_file))
    assert code == 2 and len(err) == 1 and "Arrow" not in err[0]
    assert err[0].startswith(f"trecbench: {run_file}:2:") and "expected 6 fields" in err[0]


def test_trec_qrels_whose_first_qid_is_a_magic_keeps_its_line_error(tmp_path, capsys):
    (tmp_path / "d.qrels").write_text("ARROW1 0 d1 1\nARROW1 0 d2\n")
    code, err = _err(capsys, "score", "-m", "map", str(tmp_path / "d.qrels"), RUN)
    assert code == 2 and len(err) == 1 and "Arrow IPC" not in err[0]
    assert err[0].startswith(f"trecbench: {tmp_path / 'd.qrels'}:2:")


def test_trecbench_pools_file_is_told_as_a_pool_and_its_advice_reads(tmp_path, capsys):
    """validate --qrels of pool's own file said BEIR qrels and 'convert beir-qrels', which
    refused it (tab-separated fields, a header) (reviewer 379): it is a pool to judge, and
    written with --unjudged-grade it reads as qrels."""
    (tmp_path / "a.run").write_text("q1 Q0 d1 1 2 a\nq1 Q0 d2 2 1 a\nq2 Q0 d3 1 1 a\n")
    pooled, graded = tmp_path / "pool.txt", tmp_path / "graded.txt"
    assert run(["pool", str(tmp_path / "a.run"), "-o", str(pooled)]) == 0
    capsys.readouterr()
    for args in (["validate", "--qrels", str(pooled)], ["score", str(pooled), RUN]):
        assert run(args) == 2
        said = capsys.readouterr()
        said = said.out if args[0] == "validate" else said.err
        assert "error[Q12]: 3 fields on every line, the second a placeholder (qid 0 docno: a " \
               "pool of documents to judge, trecbench pool's output?), not TREC qrels: judge " \
               "it, or write it with `trecbench pool --unjudged-grade G`" in said  # fmt: skip
        assert "beir-qrels" not in said
    args = ["pool", str(tmp_path / "a.run"), "--unjudged-grade", "-1", "-o", str(graded)]
    assert run(args) == 0
    assert run(["validate", "--qrels", str(graded)]) in (0, 1)  # warnings at most
    assert "error[" not in capsys.readouterr().out


@pytest.mark.parametrize(
    ("text", "ready"),
    [
        ("query-id\tcorpus-id\tscore\nq1\td1\t1\n", True),  # what convert beir-qrels reads
        ("q1\td1\t1\nq2\td2\t0\n", False),  # no header: the converter asks for it
        ("q1 d1 1\nq2 d2 0\n", False),  # blanks: the converter splits at tabs
        ("q1 Q0 d1\nq2 0 d2\n", None),  # trecbench pool's file
        ("q1\t0\td1\nq2\t0\td2\n", None),  # pool's file tab-separated: no BEIR qrels
        ("query-id\tcorpus-id\tscore\nq1\t0\t1\n", True),  # a header: BEIR's, corpus-id 0
    ],
)
def test_three_fields_advice_never_sends_to_a_converter_that_refuses(tmp_path, capsys, text,
                                                                      ready):  # fmt: skip
    """A placeholder second on every line is pool's file whatever the separator: convert
    beir-qrels refuses it (score '0' or 'd1' is no integer), so it is never advised."""
    path = tmp_path / "three.txt"
    path.write_text(text)
    assert run(["validate", "--qrels", str(path)]) == 2
    said = capsys.readouterr().out.splitlines()[0]
    convert = run(["convert", "beir-qrels", str(path), "-o", str(tmp_path / "out")])
    capsys.readouterr()
    if ready is None:
        assert "pool of documents to judge" in said and "beir-qrels" not in said
        assert said.endswith("(see 'trecbench pool --help' and the docs' runs.md)")
    elif ready:
        assert said.endswith(
            "convert it first (trecbench convert beir-qrels; see 'trecbench convert --help' "
            "and the docs' convert.md)"
        )
        assert convert == 0
    else:
        assert said.endswith(
            "convert it first, written as trecbench convert beir-qrels reads it: "
            "tab-separated, under the header line 'query-id corpus-id score' (see 'trecbench "
            "convert --help' and the docs' convert.md)"
        )
        assert convert == 2


@pytest.mark.parametrize("header", ["query-id\tcorpus-id\tscore\n", ""])
def test_a_beir_file_is_one_finding_past_its_first_chunk(tmp_path, header):
    """The header is on the first chunk alone: later chunks of the same shape keep the
    verdict (one Q12, not one Q1 per line), whether the first had it or not."""
    from trecbench.validation import validate_qrels

    path = tmp_path / "beir.tsv"
    path.write_text(header + "".join(f"q{i}\td{i}\t1\n" for i in range(40)))
    found = validate_qrels(path, chunk_bytes=64).findings
    assert [f.rule for f in found] == ["Q12"]


@pytest.mark.parametrize("compressed", [False, True])
def test_the_verdict_of_json_lines_does_not_change_with_the_chunk_size(tmp_path, compressed):
    """JSON lines up to a TREC line at line 41, named as a run: their first 64 KiB are no
    JSON, so they are read as TREC text at every chunk size. With chunks of 100 bytes the
    first chunk's were told alone: one R32 "JSON lines, not a TREC run", where 4 MiB
    chunks gave the lines' findings."""
    from trecbench.validation import validate_run

    lines = [json.dumps({"qid": "q1", "docno": f"d{i}", "score": 60 - i}) for i in range(60)]
    lines[40] = "q1 Q0 dx 1 1.5 t"
    data = ("\n".join(lines) + "\n").encode()
    path = tmp_path / ("j.run.gz" if compressed else "j.run")
    path.write_bytes(gzip.compress(data) if compressed else data)
    whole = validate_run(path)
    assert "R32" not in whole.counts["rules"] and whole.counts["rules"]["R3"] == 59
    for chunk_bytes in (100, 1000, 4096):
        assert validate_run(path, chunk_bytes=chunk_bytes).to_dict() == whole.to_dict()


@pytest.mark.parametrize("text", ["q1 Q0 d1\nq1 Q0 d2\n", "q1\t0\td1\n"])
def test_a_pool_file_given_as_a_run_is_no_msmarco_run(tmp_path, capsys, text):
    """convert msmarco would read the placeholder as the passage id: a pool file given as
    the run is told as what it is, with no converter named."""
    path = tmp_path / "pool.txt"
    path.write_text(text)
    assert run(["score", QRELS, str(path)]) == 2
    said = capsys.readouterr().err
    assert f"{path}: error[R32]: 3 fields on every line, the second a placeholder (qid 0 " \
           "docno: a pool of documents to judge, trecbench pool's output?), not a TREC run: " \
           "give a run here; the pool, judged, is qrels (see 'trecbench pool --help' and " \
           "the docs' runs.md)" in said  # fmt: skip
    assert "msmarco" not in said
    assert run(["validate", str(path)]) == 2
    assert "not a TREC run: give a run here" in capsys.readouterr().out


@pytest.mark.parametrize(
    "kind, rule, what", [("run", "R32", "a TREC run"), ("qrels", "Q12", "TREC qrels")]
)
def test_an_sqlite_database_is_told_to_be_converted_in_one_line(tmp_path, capsys, kind, rule, what):
    """memorybench's results.db given as a run was read as text: R12 and R23 findings
    full of escaped bytes, no word of `convert memorybench`, which reads it."""
    import sqlite3

    database = tmp_path / "results.db"
    with contextlib.closing(sqlite3.connect(database)) as connection:
        connection.execute("CREATE TABLE results (question_id TEXT, score REAL)")
        connection.execute("INSERT INTO results VALUES ('q1', 1.0)")
        connection.commit()
    inputs = [QRELS, str(database)] if kind == "run" else [str(database), RUN]
    code, err = _err(capsys, "score", "-m", "map", *inputs)
    assert (code, err) == (2, [
        f"trecbench: {database}: error[{rule}]: an SQLite database, not {what}: convert it "
        "first if it is memorybench's results.db (trecbench convert memorybench; see "
        "'trecbench convert --help' and the docs' convert.md)"
    ])  # fmt: skip


@pytest.mark.parametrize("suffix", [".json", ".jsonl"])
def test_a_trecbench_report_given_as_a_run_or_qrels_is_named_a_report(tmp_path, capsys, suffix):
    # review 722: score's own report was "a JSON document ...: convert it first (trecbench
    # convert hpo|code-chunk|...)", though no converter reads a report
    report = tmp_path / f"r{suffix}"
    assert run(["score", "--report", str(tmp_path / "r.json"), "-m", "P.5", QRELS, RUN]) == 0
    if suffix != ".json":
        report.write_bytes((tmp_path / "r.json").read_bytes())
    capsys.readouterr()
    said = "trecbench's JSON report, not {}: give the file it was made from ('trecbench diff' "
    cases = [([QRELS, str(report)], "R32", "a TREC run")]
    if suffix == ".json":  # a .jsonl named as qrels is told JSONL files hold runs
        cases.append(([str(report), RUN], "Q12", "TREC qrels"))
    for args, rule, what in cases:
        code, lines = _err(capsys, "score", *args)
        assert code == 2 and lines == [
            f"trecbench: {report}: error[{rule}]: {said.format(what)}compares two reports)"
        ]
