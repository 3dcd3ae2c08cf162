"""The one way in (trecbench.inputs): every input kind gives the same typed table and the
same numbers; files are read once (FIFOs and pipes too), compression is told by content."""

from __future__ import annotations

import bz2
import collections
import gzip
import hashlib
import io
import lzma
import os
import re
import sys
import threading
import types
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from test_score_suite import run_score

import trecbench
from trecbench import inputs
from trecbench.errors import InputError, UsageError
from trecbench.inputs import streams, trec_regular, trec_text

ir_measures = pytest.importorskip("ir_measures")

# 3 topics x 12 documents, graded qrels, score ties (trec_eval breaks them by docno)
RNG = np.random.default_rng(7)
QIDS = ["001", "NA", "1e5"]  # ids that inference would turn into 1, NaN and 100000.0
RUN_ROWS = [
    (qid, f"d{d:02d}", float(np.round(RNG.random() * 4, 1)))
    for qid in QIDS
    for d in RNG.permutation(20)[:12]
]
QRELS_ROWS = [(qid, f"d{d:02d}", int(RNG.integers(0, 3))) for qid in QIDS for d in range(0, 20, 3)]
RUN_TEXT = "".join(f"{q} Q0 {d} {i + 1} {s} tag\n" for i, (q, d, s) in enumerate(RUN_ROWS))
QRELS_TEXT = "".join(f"{q} 0 {d} {r}\n" for q, d, r in QRELS_ROWS)


def ndcg10(qrels, run) -> list[float]:
    """Per-topic nDCG@10 (trec_eval's ndcg_cut_10) in qid order."""
    frame = trecbench.evaluate(qrels, run, ["ndcg_cut.10"]).per_query
    return frame.sort_values("qid")["value"].round(12).tolist()


def _dicts():
    run: dict = {}
    for q, d, s in RUN_ROWS:
        run.setdefault(q, {})[d] = s
    qrels: dict = {}
    for q, d, r in QRELS_ROWS:
        qrels.setdefault(q, {})[d] = r
    return qrels, run


@pytest.fixture
def text_files(tmp_path):
    (tmp_path / "qrels").write_text(QRELS_TEXT)
    (tmp_path / "run").write_text(RUN_TEXT)
    return tmp_path / "qrels", tmp_path / "run"


def test_same_ndcg_from_every_input_kind(text_files, tmp_path):
    qrels_path, run_path = text_files
    expected = ndcg10(qrels_path, run_path)
    qrels_dict, run_dict = _dicts()
    # independent source: ir_measures' own nDCG@10 on the same dicts
    reference = {
        m.query_id: m.value
        for m in ir_measures.iter_calc([ir_measures.nDCG @ 10], qrels_dict, run_dict)
    }
    assert expected == [round(reference[q], 12) for q in sorted(QIDS)]

    ir_run = pd.DataFrame(RUN_ROWS, columns=["query_id", "doc_id", "score"])
    ir_qrels = pd.DataFrame(QRELS_ROWS, columns=["query_id", "doc_id", "relevance"])
    ranx_run = pa.table(
        {"q_id": ir_run["query_id"], "doc_id": ir_run["doc_id"], "score": ir_run["score"]}
    )
    ranx_qrels = pa.table(
        {"q_id": ir_qrels["query_id"], "doc_id": ir_qrels["doc_id"], "score": ir_qrels["relevance"]}
    )
    trecbench.write_run(ir_run, tmp_path / "run.parquet")
    trecbench.write_qrels(qrels_dict, tmp_path / "qrels.parquet")
    kinds = {
        "dicts": (qrels_dict, run_dict),
        "ir_measures DataFrames": (ir_qrels, ir_run),
        "ranx Arrow tables": (ranx_qrels, ranx_run),
        "Qrel/ScoredDoc iterables": (
            [ir_measures.Qrel(*row) for row in QRELS_ROWS],
            (ir_measures.ScoredDoc(*row) for row in RUN_ROWS),  # a generator, read once
        ),
        "dict records (PyTerrier and ir_measures keys)": (
            [dict(zip(("qid", "docno", "label"), row, strict=True)) for row in QRELS_ROWS],
            (dict(zip(("query_id", "doc_id", "score"), row, strict=True)) for row in RUN_ROWS),
        ),
        "Parquet": (tmp_path / "qrels.parquet", tmp_path / "run.parquet"),
        "loaded": (inputs.load_qrels(qrels_path), inputs.load_run(run_path)),
    }
    for kind, (qrels, run) in kinds.items():
        assert ndcg10(qrels, run) == expected, kind


@pytest.mark.parametrize(
    ("suffix", "compress"),
    [
        (".gz", gzip.compress),
        (".bz2", bz2.compress),
        (".xz", lzma.compress),
        (".zst", lambda data: _arrow_compress(data, "zstd")),
        (".lz4", lambda data: _arrow_compress(data, "lz4")),
    ],
)
def test_compression_is_told_by_content_not_name(tmp_path, text_files, suffix, compress):
    qrels, run = text_files
    packed = compress(RUN_TEXT.encode())
    (tmp_path / "packed.txt").write_bytes(packed)  # compressed, named like text
    (tmp_path / f"plain{suffix}").write_text(RUN_TEXT)  # text, named like compressed
    expected = inputs.load_run(run).table
    for path in (tmp_path / "packed.txt", tmp_path / f"plain{suffix}"):
        loaded = inputs.load_run(path)
        assert loaded.table.equals(expected), path  # the fast reader, on both
    record = inputs.load_run(tmp_path / "packed.txt").record
    assert record["size"] == len(packed)
    assert record["sha256"] == hashlib.sha256(packed).hexdigest()  # as stored
    assert ndcg10(qrels, tmp_path / "packed.txt") == ndcg10(qrels, run)


def _arrow_compress(data: bytes, codec: str) -> bytes:
    sink = pa.BufferOutputStream()
    with pa.CompressedOutputStream(sink, codec) as stream:
        stream.write(data)
    return sink.getvalue().to_pybytes()


def test_a_corrupt_compressed_file_is_one_input_error(tmp_path):
    for name, data in (("cut.gz", gzip.compress(RUN_TEXT.encode() * 50)[:-30]),
                       ("bad.zst", b"\x28\xb5\x2f\xfd" + b"\x00" * 40)):  # fmt: skip
        (tmp_path / name).write_bytes(data)
        with pytest.raises(InputError, match=rf"{name}: corrupt or truncated") as error:
            inputs.load_run(tmp_path / name)
        assert error.value.rule == "R27"


def test_gzip_takes_the_fast_reader_with_the_plain_files_warnings(tmp_path, text_files):
    # a run with ties and unsorted scores: the plain file gets no validator warnings on
    # the fast path, and the gzipped one must not get any either (issue 13.3)
    qrels, run = text_files
    (tmp_path / "run.gz").write_bytes(gzip.compress(run.read_bytes()))
    plain = trecbench.evaluate(qrels, run, ["P.5"])
    packed = trecbench.evaluate(qrels, tmp_path / "run.gz", ["P.5"])
    assert plain.warnings == packed.warnings == []
    assert trec_text.read_regular_run(tmp_path / "run.gz") is not None


def test_ids_are_never_inferred(tmp_path):
    frame = pd.DataFrame({"qid": QIDS, "docno": ["007", "nan", "1.0"], "rel": [1, 1, 1]})
    loaded = inputs.load_qrels(frame)
    assert loaded.table.column("qid").to_pylist() == QIDS
    assert loaded.table.column("docno").to_pylist() == ["007", "nan", "1.0"]
    assert inputs.load_run({"001": {"1e5": 1.0}}).table.column("docno").to_pylist() == ["1e5"]
    assert inputs.load_run({7: {8: 1.0}}).table.column("qid").to_pylist() == ["7"]  # ints
    inferred = pd.read_csv(pd.io.common.StringIO("qid,docno,rel\n001,1e5,1\n"))
    with pytest.raises(InputError, match="docno column has type double.*dtype=str"):
        inputs.load_qrels(inferred)
    missing = pd.DataFrame({"qid": ["a", None], "docno": ["x", "y"], "score": [1.0, 2.0]})
    with pytest.raises(InputError, match="row 1: qid is missing"):
        inputs.load_run(missing)


@pytest.mark.parametrize(
    ("source", "message"),
    [
        (pd.DataFrame({"qid": ["q"], "query_id": ["q"], "docno": ["d"], "score": [1.0]}),
         r"columns \['qid', 'query_id'\] all name the query id"),
        (pd.DataFrame({"qid": ["q"], "doc": ["d"], "score": [1.0]}),
         "no document id column .*columns: qid, doc, score"),
        ({"q": {"d": float("nan")}}, "query 'q', document 'd': score nan is not finite"),
        (pd.DataFrame({"qid": ["q", "q"], "docno": ["a", "b"], "score": ["1.0", "1e400"]}),
         "row 1: score 1e400 overflows a double"),  # the text given, as TREC text's R12 says
        ({"q": {"d": "high"}}, "query 'q', document 'd': 'high' is text, not a number"),
        ({"q": {"d": "1"}}, "query 'q', document 'd': '1' is text, not a number"),
        ({"q": [("d", 1.0)]}, "query 'q': its documents must be a mapping of docno to score, "
         "not a list"),
        ({"q": {"d": True}}, "query 'q', document 'd': True is a bool, not a number"),
        ({"q": {"d": None}}, "query 'q', document 'd': None, not a number"),
        ([("q", "d", 1.0)], "record 0 is a tuple: expected query_id, doc_id, score"),
        (3.5, "cannot read a run from a float:"),
    ],
)  # fmt: skip
def test_bad_in_memory_runs_get_one_clear_message(source, message):
    with pytest.raises((InputError, UsageError), match=message):
        inputs.load_run(source)


@pytest.mark.parametrize(
    ("source", "message"),
    [
        (["abc"], "run records: record 0 is text: expected query_id, doc_id, score "),
        ([object()], "run records: record 0 is an object: expected query_id, "),
        (None, "cannot read a run from None: "),
        (3, "cannot read a run from an int: "),
    ],
)
def test_a_value_that_is_no_run_is_named_in_the_messages_words(source, message):
    # Python's raw type names: "record 0 (str) has no fields", "cannot read a run from
    # NoneType", where the next messages say "record 1 is an int"
    with pytest.raises((InputError, UsageError)) as raised:
        inputs.load_run(source)
    assert str(raised.value).startswith(message)


def test_ranx_s_qrels_and_run_are_told_of_their_to_dict():
    # ranx.Qrels and ranx.Run (ranx's columns are read) were refused without a word of the
    # dict each holds
    import ranx

    qrels, run = ranx.Qrels({"q": {"d": 1}}), ranx.Run({"q": {"d": 1.0}})
    for load, source in ((inputs.load_qrels, qrels), (inputs.load_run, run)):
        with pytest.raises(UsageError) as raised:
            load(source)
        assert str(raised.value).endswith("or dict records; its to_dict() may be one")
    assert trecbench.evaluate(qrels.to_dict(), run.to_dict(), ["P@1"]).to_dict() == {
        "q": {"P@1": 1.0}
    }


class _Dataset:
    """What an ir_datasets Dataset offers of its qrels and run (not iterable itself)."""

    def dataset_id(self):
        return "msmarco-passage/dev/small"

    def qrels_iter(self):
        return iter(())

    def scoreddocs_iter(self):
        return iter(())


def test_an_ir_datasets_dataset_is_told_of_its_records_and_id():
    # refused naming neither its qrels_iter() nor the irds: id the docs offer
    with pytest.raises(UsageError) as raised:
        inputs.load_qrels(_Dataset())
    assert str(raised.value).endswith(
        "dict records; an ir_datasets dataset: give its qrels_iter() or "
        "'irds:msmarco-passage/dev/small'"
    )
    with pytest.raises(UsageError) as raised:
        inputs.load_run(_Dataset())
    assert str(raised.value).endswith(
        "dict records; an ir_datasets dataset: give its scoreddocs_iter()"
    )
    with pytest.raises(UsageError, match="dict records$"):  # no to_dict(): as it was
        inputs.load_run(3)


def test_a_dask_dataframe_is_told_as_one_not_as_records_of_its_column_names():
    # it iterates its column names: read as records, it was refused as "record 0 is text:
    # expected query_id, doc_id, score (ir_measures' ScoredDoc/Qrel)"
    dd = pytest.importorskip("dask.dataframe")
    frame = pd.DataFrame({"qid": ["q"], "docno": ["d"], "score": [1.0]})
    with pytest.raises(UsageError) as raised:
        trecbench.evaluate({"q": {"d": 1}}, dd.from_pandas(frame, npartitions=1), ["P@1"])
    assert str(raised.value) == (  # named as a held run's errors name it
        "run 'run1': cannot read a run from a Dask DataFrame here: give its compute(), a "
        "pandas DataFrame (trecbench.dask.evaluate scores a run on its cluster)"
    )
    qrels = dd.from_pandas(frame.rename(columns={"score": "rel"}).assign(rel=1), npartitions=1)
    with pytest.raises(UsageError) as raised:
        inputs.load_qrels(qrels)
    assert str(raised.value) == (
        "cannot read a qrels from a Dask DataFrame here: give its compute(), a pandas DataFrame"
    )


@pytest.mark.parametrize(
    ("documents", "shown"),
    [("abc", "text ('abc')"), (3, "a number (3)"), (True, "a bool (True)"), (None, "None"),
     ((1,), "a tuple")],
)  # fmt: skip
@pytest.mark.parametrize(("load", "value"), [("load_run", "score"), ("load_qrels", "grade")])
def test_a_query_whose_documents_are_no_mapping_is_named_in_a_plain_sentence(
    documents, shown, load, value
):
    # it said "got 'abc' is text", "got int", "got True is a bool", "got tuple"
    kind = "run" if load == "load_run" else "qrels"
    with pytest.raises(InputError) as raised:
        getattr(inputs, load)({"q1": documents})
    assert str(raised.value) == (
        f"{kind} dict: query 'q1': its documents must be a mapping of docno to {value}, not {shown}"
    )


def test_grades_are_integers_within_the_limit():
    assert inputs.load_qrels({"q": {"d": 2.0}}).table.column("rel").to_pylist() == [2]
    with pytest.raises(InputError, match="relevance 1.5 is not an integer"):
        inputs.load_qrels({"q": {"d": 1.5}})
    with pytest.raises(InputError, match="is above 1,000,000"):
        inputs.load_qrels(pd.DataFrame({"qid": ["q"], "docno": ["d"], "rel": [5_000_000]}))


def test_parquet_and_text_writers_round_trip(tmp_path, text_files):
    _, run = text_files
    frame = trecbench.read_run(run)
    trecbench.write_run(frame, tmp_path / "r.parquet")
    trecbench.write_run({"q": {"b": 1.0, "a": 1.0, "c": 2.0}}, tmp_path / "d.run")
    back = trecbench.read_run(tmp_path / "r.parquet")
    assert back[["qid", "docno", "score", "tag"]].equals(frame[["qid", "docno", "score", "tag"]])
    # a dict is written in trec_eval's order: score desc, then docno desc
    assert (tmp_path / "d.run").read_text() == "q\tQ0\tc\t1\t2\tbm\n".replace("bm", "run") + (
        "q\tQ0\tb\t2\t1\trun\nq\tQ0\ta\t3\t1\trun\n"
    )


def _feed(path, data: bytes) -> threading.Thread:
    def write():
        with open(path, "wb") as handle:
            handle.write(data)

    thread = threading.Thread(target=write, daemon=True)
    thread.start()
    return thread


def _in_time(function, seconds: float = 60):
    """``function()`` in a thread: a second read of a FIFO would block forever."""
    result: dict = {}
    thread = threading.Thread(target=lambda: result.update(value=function()), daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), "blocked: an input was read twice"
    return result["value"]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_is_read_once_and_recorded_as_read(tmp_path, text_files, monkeypatch):
    import json

    qrels, run = text_files
    fifo = tmp_path / "run.fifo"
    os.mkfifo(fifo)
    _feed(fifo, RUN_TEXT.encode())
    argv = ["-m", "P.5", "--report", "r.json", str(qrels), str(fifo)]
    _, error, code = _in_time(lambda: run_score(argv, tmp_path, monkeypatch))
    assert code == 0, error
    record = json.loads((tmp_path / "r.json").read_text())["inputs"][1]
    assert record["size"] == len(RUN_TEXT.encode())
    assert record["sha256"] == hashlib.sha256(RUN_TEXT.encode()).hexdigest()
    assert record["lines"] == len(RUN_ROWS)
    # compare reads its qrels and runs once too (a FIFO for each)
    os.mkfifo(tmp_path / "qrels.fifo")
    _feed(tmp_path / "qrels.fifo", QRELS_TEXT.encode())
    _feed(fifo, RUN_TEXT.encode())
    comparison = _in_time(
        lambda: trecbench.compare(tmp_path / "qrels.fifo", fifo, ["P.5"], samples=40)
    )
    assert [r["sha256"] for r in comparison.inputs] == [
        hashlib.sha256(text.encode()).hexdigest() for text in (QRELS_TEXT, RUN_TEXT)
    ]


def test_a_pipe_is_recorded_with_its_size_and_checksum(text_files):
    from trecbench import report

    qrels, _ = text_files
    packed = gzip.compress(RUN_TEXT.encode())
    read, write = os.pipe()
    threading.Thread(target=lambda: (os.write(write, packed), os.close(write)), daemon=True).start()
    try:
        evaluation = _in_time(lambda: trecbench.evaluate(qrels, f"/dev/fd/{read}", ["P.5"]))
    finally:
        os.close(read)
    record = evaluation.input_records[(f"/dev/fd/{read}", "run")]
    assert record["size"] == len(packed) and record["lines"] == len(RUN_ROWS)
    assert record["sha256"] == hashlib.sha256(packed).hexdigest()
    assert report.input_record(qrels, "qrels")["size"] == len(QRELS_TEXT)


def test_every_file_read_is_noted_as_an_input(text_files):
    from trecbench import outputs

    qrels, run = text_files
    with outputs.input_scope():
        inputs.load_run(run)
        inputs.load_qrels(qrels)
        with pytest.raises(trecbench.errors.OutputError, match="overwrite an input"):
            outputs.check_target(run)
        with pytest.raises(trecbench.errors.OutputError, match="overwrite an input"):
            outputs.check_target(qrels)


def test_ir_datasets_qrels_behind_the_extra(monkeypatch, text_files):
    _, run = text_files
    monkeypatch.setitem(sys.modules, "ir_datasets", None)  # not installed
    with pytest.raises(UsageError, match=r"pip install 'trecbench\[datasets\]'"):
        inputs.load_qrels("irds:msmarco-passage/dev")
    qrels = [ir_measures.Qrel(*row) for row in QRELS_ROWS]
    dataset = types.SimpleNamespace(has_qrels=lambda: True, qrels_iter=lambda: iter(qrels))
    fake = types.SimpleNamespace(load={"toy/test": dataset}.__getitem__)
    monkeypatch.setitem(sys.modules, "ir_datasets", fake)
    assert ndcg10("irds:toy/test", run) == ndcg10(qrels, run)
    with pytest.raises(InputError, match="irds:nope: no such file, nor an ir_datasets dataset"):
        inputs.load_qrels("irds:nope")


def test_results_for_notebooks(text_files):
    qrels, run = text_files
    qrels_dict, run_dict = _dicts()
    evaluation = trecbench.evaluate(qrels, {"bm25": run, "dict": run_dict}, ["nDCG@10", "P@5"])
    assert repr(evaluation) == (
        "Evaluation(runs=['bm25', 'dict'], measures=['nDCG@10', 'P@5'], topics=3)"
    )
    wide = evaluation.to_frame()
    assert list(wide.index) == ["bm25", "dict"] and list(wide.columns) == ["nDCG@10", "P@5"]
    assert wide.loc["bm25", "nDCG@10"] == pytest.approx(np.mean(ndcg10(qrels, run)))
    assert evaluation.to_frame(per_query=True).shape == (6, 2)
    html = evaluation._repr_html_()
    assert html.startswith("<p><code>Evaluation(runs=") and "<table" in html and "nDCG@10" in html
    # the names asked by, as to_frame's columns (it said 'MAP', 'nDCG@10' of these)
    spelled = trecbench.evaluate(qrels, run, ["ndcg_cut.10", "P_5", "map", "ndcg_cut_10"])
    assert repr(spelled) == (
        "Evaluation(runs=['run'], measures=['map', 'P_5', 'ndcg_cut.10', 'ndcg_cut_10'], topics=3)"
    )
    assert f"measures={list(spelled.to_frame().columns)}" in repr(spelled)
    comparison = trecbench.compare(qrels_dict, {"a": run, "b": run_dict}, ["P@5"], samples=40)
    assert repr(comparison) == (
        "Comparison(runs=['a', 'b'], baseline='a', measures=['P@5'], topics=3, test='t', "
        "correction='holm')"
    )
    frame = comparison.to_frame()
    assert list(frame["run"]) == ["a", "b"] and frame["difference"].iloc[1] == 0.0
    assert "<td>P@5</td>" in comparison._repr_html_()


def test_the_api_functions_are_functions_with_signatures():
    import importlib
    import inspect
    from importlib import resources

    importlib.import_module("trecbench.evaluation")  # a module imported first changes nothing
    importlib.import_module("trecbench.comparison")
    for name in ("evaluate", "compare"):
        function = getattr(trecbench, name)
        assert inspect.isfunction(function), name
        assert "qrels" in inspect.signature(function).parameters
        assert function.__doc__
    assert resources.files("trecbench").joinpath("py.typed").is_file()


@pytest.mark.parametrize(
    "name",
    ["load_run", "load_qrels", "read_run", "read_qrels", "parse_run", "parse_qrels", "rank_run"],
)
def test_the_readers_docstrings_say_what_they_take_and_return(name):
    # the public way in: each parameter named (``source``, ``check``, ``full``...) and what
    # comes back (load_run's ``full`` and parse_qrels' columns were said nowhere)
    import inspect

    function = getattr(trecbench, name)
    doc = " ".join(function.__doc__.split())
    unsaid = [p for p in inspect.signature(function).parameters if f"``{p}" not in doc]
    assert unsaid == []
    assert re.search(r"``qid, |typed (pyarrow )?table", doc), name


def test_split_runs_tells_one_run_from_several():
    one = {"q": {"d": 1.0}}
    assert inputs.split_runs(one) == ([one], None)
    assert inputs.split_runs({"a": one, "b": "x.run"}) == ([one, "x.run"], ["a", "b"])
    records = [ir_measures.ScoredDoc("q", "d", 1.0)]
    assert inputs.split_runs(records) == ([records], None)
    rows = [{"qid": "q", "docno": "d", "score": 1.0}]  # DataFrame.to_dict("records")
    assert inputs.split_runs(rows) == ([rows], None)
    several = [{"qid": {"d": 1.0}}, {"docno": {"d": 2.0}}]  # run dicts, whatever their qids
    assert inputs.split_runs(several) == (several, None)
    # DataFrames of ir_measures' columns have query_id and doc_id attributes: two runs
    frame = pd.DataFrame({"query_id": ["1"], "doc_id": ["a"], "score": [1.0]})
    sources, names = inputs.split_runs([frame, frame])
    assert len(sources) == 2 and names is None
    assert inputs.split_runs(["a.run", "b.run"]) == (["a.run", "b.run"], None)
    # None or {} beside runs is an empty run, not a query without documents: the good run
    # beside it was refused as a query's documents ("query 'A': ... not text")
    for empty in ({}, None, {"q": None}, {"q": {}}):
        assert inputs.split_runs({"a": "x.run", "b": empty}) == (["x.run", empty], ["a", "b"])
        assert inputs.split_runs({"a": one, "b": empty}) == ([one, empty], ["a", "b"])
        assert inputs.split_runs({"q": {"d": 1.0}, "r": empty})[1] is None  # a query's
        assert inputs.split_runs({"q": empty})[1] is None


def test_an_empty_run_among_named_runs_is_refused_by_its_name():
    qrels = {"q": {"d": 1}}
    with pytest.raises(InputError) as refused:
        trecbench.evaluate(qrels, {"a": {"q": {"d": 1.0}}, "b": {}}, ["P@1"])
    assert str(refused.value) == "run 'b' (run dict): empty run"
    with pytest.raises(UsageError) as refused:
        trecbench.evaluate(qrels, {"a": {"q": {"d": 1.0}}, "b": None}, ["P@1"])
    assert str(refused.value).startswith("run 'b': cannot read a run from None: give a path")


def test_streams_detect_compression_by_magic():
    assert streams.compression_of(b"\x1f\x8b\x08") == "gzip"
    assert streams.compression_of(b"BZh9") == "bz2"
    assert streams.compression_of(b"q Q0 d 1 2 t") is None


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_validate_fix_reads_a_pipe_once(tmp_path, capsys):
    # --fix validates the run and rewrites it from one spooled read: a pipe is fixed as
    # its file is (it was refused: the fix read the run a second time, which would block)
    from trecbench.cli import run

    data = gzip.compress(b"1 Q0 b 1 1 t\n\n1 Q0 a 2 2 t\n1  Q0 a 3 0 t\n")
    plain = tmp_path / "run.gz"
    plain.write_bytes(data)
    fifo = tmp_path / "run.fifo"
    os.mkfifo(fifo)
    outputs = {}
    for path in (plain, fifo):
        if path == fifo:
            _feed(fifo, data)
        out = tmp_path / f"fixed-{path.name.replace('.', '-')}.run"  # text: not named .gz
        code = _in_time(lambda path=path, out=out: run(["validate", str(path), "--fix", str(out)]))
        printed = capsys.readouterr().out.replace(str(path), "RUN").replace(str(out), "OUT")
        outputs[path] = code, printed, out.read_bytes()
    assert outputs[fifo] == outputs[plain]
    # the fixed run validates clean: exit 0 (validate --fix exits with the fixed run's status)
    assert outputs[fifo][0] == 0 and outputs[fifo][2] == b"1\tQ0\ta\t1\t2\tt\n1\tQ0\tb\t2\t1\tt\n"


@pytest.mark.parametrize("in_blocks", [False, True])
@pytest.mark.parametrize(
    ("columns", "message"),
    [
        ({"query": ["q", "q"], "docno": ["d", "e"], "score": [1.0, 2.0]}, "no query id column"),
        ({"qid": ["q"] * 2, "query_id": ["q"] * 2, "docno": ["d", "e"], "score": [1.0, 2.0]},
         r"columns \['qid', 'query_id'\] all name the query id"),
    ],
)  # fmt: skip
def test_a_parquet_run_lacking_a_column_is_bad_input(
    columns, message, in_blocks, tmp_path, monkeypatch, capsys
):
    """A Parquet run without a column it needs (or naming one twice) is malformed input,
    exit 2 as for a text run missing fields, read whole or in blocks; the same table built
    by a caller is a usage error."""
    from trecbench import cli, memory

    run = tmp_path / "run.parquet"
    pq = pytest.importorskip("pyarrow.parquet")
    pq.write_table(pa.table(columns), run)
    qrels = tmp_path / "qrels"
    qrels.write_text("q 0 d 1\n")
    if in_blocks:
        monkeypatch.setattr(memory, "BLOCK_LINES", 1)
        monkeypatch.setattr(memory, "FEWEST_BLOCK_LINES", 1)
    assert cli.run(["score", str(qrels), str(run)]) == 2
    assert re.fullmatch(f"trecbench: {re.escape(str(run))}: {message}.*\n", capsys.readouterr().err)
    with pytest.raises(UsageError, match=message):
        inputs.load_run(pa.table(columns))


@pytest.mark.parametrize("in_blocks", [False, True])
def test_a_parquet_file_naming_two_columns_alike_is_said_so(
    in_blocks, tmp_path, monkeypatch, capsys
):
    """Two columns named ``docno``: Arrow's reader said 'Multiple matches for
    FieldRef.Name(docno)' and listed its own inner columns (``__fragment_index``); the
    file is now refused by what is wrong with it, read whole or in blocks, by score and by
    validate alike."""
    from trecbench import cli, memory

    pq = pytest.importorskip("pyarrow.parquet")
    run = tmp_path / "run.parquet"
    arrays = [pa.array(["q"]), pa.array(["d"]), pa.array([1.0]), pa.array(["e"])]
    pq.write_table(pa.Table.from_arrays(arrays, ["qid", "docno", "score", "docno"]), run)
    qrels = tmp_path / "qrels"
    qrels.write_text("q 0 d 1\n")
    if in_blocks:
        monkeypatch.setattr(memory, "BLOCK_LINES", 1)
        monkeypatch.setattr(memory, "FEWEST_BLOCK_LINES", 1)
    said = "columns named twice: 'docno' (each names one column)"
    assert cli.run(["score", str(qrels), str(run)]) == 2
    assert capsys.readouterr().err == f"trecbench: {run}: {said}\n"
    assert cli.run(["validate", str(run)]) == 2  # a finding: the call's other files go on
    found = capsys.readouterr().out.splitlines()[0]
    assert found == f"{run}: error[R32]: {said}; nothing else of the file is checked"


# ---------------------------------------------------------------------------------------
# Arrow types and Python values users bring (issue 25 items 5 and 8, issue 27 item 2)


def _parquet(tmp_path, table: pa.Table, name: str = "r.parquet"):
    import pyarrow.parquet as pq

    path = tmp_path / name
    pq.write_table(table, path)
    return path


_IDS = {"qid": ["1", "1", "2"], "docno": ["d1", "d2", "d1"]}


@pytest.mark.parametrize(
    "columns",
    [
        # pandas `category` columns: dictionary-encoded strings (int8 indices)
        {name: pa.array(v).dictionary_encode() for name, v in _IDS.items()},
        {name: pa.array(v, pa.large_string()) for name, v in _IDS.items()},
        {name: pa.array(v, pa.large_string()).dictionary_encode() for name, v in _IDS.items()},
        {"qid": pa.array([1, 1, 2]).dictionary_encode(), "docno": _IDS["docno"]},
    ],
)
def test_parquet_ids_of_every_string_and_dictionary_type(tmp_path, columns):
    table = pa.table({**columns, "score": [3.0, 2.0, 1.0]})
    loaded = inputs.load_run(str(_parquet(tmp_path, table)))
    assert loaded.table.column("qid").to_pylist() == ["1", "1", "2"]
    assert loaded.table.column("docno").to_pylist() == ["d1", "d2", "d1"]


def test_parquet_of_a_pandas_category_frame_scores_as_its_text(tmp_path):
    frame = pd.DataFrame({**_IDS, "score": [3.0, 2.0, 1.0]}).astype(
        {"qid": "category", "docno": "category"}
    )
    path = tmp_path / "r.parquet"
    frame.to_parquet(path, row_group_size=1)  # a dictionary per row group
    qrels = tmp_path / "q.qrels"
    qrels.write_text("1 0 d2 1\n2 0 d1 1\n")
    text = tmp_path / "r.run"
    text.write_text("1 Q0 d1 1 3 run\n1 Q0 d2 2 2 run\n2 Q0 d1 1 1 run\n")
    by_parquet = trecbench.evaluate(qrels, path, ["map"]).to_frame(per_query=True)
    by_text = trecbench.evaluate(qrels, text, ["map"]).to_frame(per_query=True)
    assert by_parquet.to_numpy().tolist() == by_text.to_numpy().tolist() == [[0.5], [1.0]]


@pytest.mark.parametrize(
    ("score", "expected"),
    [
        # beyond 2^53: the nearest double, as trec_eval's atof reads the decimal text
        (pa.array([2**53 + 1, 2**62 + 1, 1], pa.int64()), [float("9007199254740993"), 2.0**62, 1]),
        (pa.array([2**64 - 1, 2**63, 7], pa.uint64()), [float("18446744073709551615"), 2.0**63, 7]),
        (pa.array([1, 2, 3], pa.int8()).dictionary_encode(), [1, 2, 3]),
        (pa.array(["1.5", "2", "3"]).dictionary_encode(), [1.5, 2, 3]),
        (pa.array([1, 2, 3], pa.float16()), [1, 2, 3]),
    ],
)
def test_parquet_scores_of_every_numeric_type(tmp_path, score, expected):
    table = pa.table({**_IDS, "score": score})
    loaded = inputs.load_run(str(_parquet(tmp_path, table)))
    assert loaded.table.column("score").to_pylist() == expected


def test_parquet_decimal_scores_read_as_their_text(tmp_path):
    import decimal

    values = [decimal.Decimal("0.1"), decimal.Decimal("123456789012345678.9"), decimal.Decimal(2)]
    table = pa.table({**_IDS, "score": pa.array(values, pa.decimal128(38, 1))})
    loaded = inputs.load_run(str(_parquet(tmp_path, table)))
    assert loaded.table.column("score").to_pylist() == [float(str(v)) for v in values]


@pytest.mark.parametrize(
    ("rel", "message"),
    [
        (
            pa.array([1, 0, 2**64 - 1], pa.uint64()),
            r"row 3: relevance 18446744073709551615 is above",
        ),
        (pa.array([1, None, 2], pa.int64()), r"row 2: relevance is missing"),
    ],
)
def test_parquet_qrels_wide_or_nullable_grades_refused_with_the_row(tmp_path, rel, message):
    path = _parquet(tmp_path, pa.table({**_IDS, "rel": rel}), "q.parquet")
    with pytest.raises(InputError, match=message):
        inputs.load_qrels(str(path))


def test_parquet_qrels_dictionary_grades(tmp_path):
    table = pa.table({**_IDS, "rel": pa.array([1, 0, 2]).dictionary_encode()})
    loaded = inputs.load_qrels(str(_parquet(tmp_path, table, "q.parquet")))
    assert loaded.table.column("rel").to_pylist() == [1, 0, 2]


def test_a_line_column_beyond_int64_is_not_taken_for_lines(tmp_path):
    table = pa.table({**_IDS, "score": [1.0, 2, 3], "line": pa.array([2**64 - 1] * 3, pa.uint64())})
    loaded = inputs.load_run(str(_parquet(tmp_path, table)))
    assert loaded.table.column("line").to_pylist() == [1, 2, 3]


def _decimal(text):
    import decimal

    return decimal.Decimal(text)


@pytest.mark.parametrize(
    ("source", "kind", "column", "expected"),
    [
        ({"q": {"d": _decimal("1.5")}}, "run", "score", [1.5]),  # StopIteration before
        ({"q": {"d": 2**63}}, "run", "score", [2.0**63]),  # OverflowError before
        ({"q": {"d": -(10**100)}}, "run", "score", [-1e100]),
        ({2**70: {"d": 1.0}}, "run", "qid", [str(2**70)]),
        ({"q": {"a": 2**64, "b": 0.5}}, "run", "score", [2.0**64, 0.5]),
        ({"q": {"d": _decimal("2")}}, "qrels", "rel", [2]),
        ([types.SimpleNamespace(query_id="q", doc_id="d", score=2**64)], "run", "score", [2.0**64]),
        (
            pd.DataFrame({"qid": ["q"], "docno": ["d"], "score": pd.Series([2**64], dtype=object)}),
            "run",
            "score",
            [2.0**64],
        ),
    ],
)
def test_python_values_arrow_cannot_hold_are_read(source, kind, column, expected):
    assert inputs.load(source, kind).table.column(column).to_pylist() == expected


@pytest.mark.parametrize(
    ("source", "kind", "message"),
    [
        ({"q\udc80": {"d": 1.0}}, "run", r"query id 'q\\udc80' holds a lone surrogate"),
        ({"q": {"d\ud800": 1.0}}, "run", r"document id 'd\\ud800' holds a lone surrogate"),
        ({"q": {"d": 2**63}}, "qrels", r"relevance 9223372036854775808 is above"),
        ({"q": {"d": _decimal("NaN")}}, "run", r"document 'd': score NaN is not a number"),
        (
            {2**70: {"d": 1.0}, 2.5: {"d": 1.0}},
            "run",
            r"query 2.5: a query id must be text or an integer, not a float",
        ),
        (
            pd.DataFrame({"qid": ["q"], "docno": ["d"], "score": [1 + 2j]}),
            "run",
            r"row 0: score \(1\+2j\) is a complex, not an int, float or Decimal",
        ),
        (
            [types.SimpleNamespace(query_id="q\udc80", doc_id="d", score=1.0)],
            "run",
            r"record 0: query_id 'q\\udc80' holds a lone surrogate",
        ),
        (
            pd.DataFrame(
                {"qid": pd.Series(["q\udc80"], dtype=object), "docno": ["d"], "score": [1]}
            ),
            "run",
            r"row 0: qid 'q\\udc80' holds a lone surrogate",
        ),
    ],
)
def test_hostile_python_values_raise_input_errors(source, kind, message):
    """Raw KeyError, OverflowError, UnicodeEncodeError, StopIteration and Arrow errors
    before (issue 25 item 8)."""
    with pytest.raises(InputError, match=message):
        inputs.load(source, kind)


_SAME_RUN = {"q1": {"d1": 2.0, "d2": 1.0}, "q2": {"d1": 1.0}}
_SAME_QRELS = {"q1": {"d2": 1, "d3": 2}, "q2": {"d1": 1}}


def _long(mapping, names):
    qid, docno, value = names
    rows = [(q, d, v) for q, docs in mapping.items() for d, v in docs.items()]
    return pd.DataFrame(rows, columns=[qid, docno, value])


@pytest.mark.parametrize(
    ("run", "qrels"),
    [
        # PyTerrier: qid, docno, score (+ rank, query) and qrels qid, docno, label, iteration
        (
            _long(_SAME_RUN, ("qid", "docno", "score")).assign(rank=0, query="text"),
            _long(_SAME_QRELS, ("qid", "docno", "label")).assign(iteration="0"),
        ),
        # ir_measures: query_id, doc_id, score / relevance (+ iteration)
        (
            _long(_SAME_RUN, ("query_id", "doc_id", "score")),
            _long(_SAME_QRELS, ("query_id", "doc_id", "relevance")).assign(iteration="Q0"),
        ),
        # ranx: q_id, doc_id, score for both
        (
            _long(_SAME_RUN, ("q_id", "doc_id", "score")),
            _long(_SAME_QRELS, ("q_id", "doc_id", "score")),
        ),
        # pandas categoricals and Arrow-backed dtypes
        (
            _long(_SAME_RUN, ("qid", "docno", "score")).astype(
                {"qid": "category", "docno": "category"}
            ),
            _long(_SAME_QRELS, ("qid", "docno", "rel")).astype(
                {"qid": "string[pyarrow]", "docno": "string[pyarrow]", "rel": "int64[pyarrow]"}
            ),
        ),
        (
            _long(_SAME_RUN, ("qid", "docno", "score")).astype({"score": "double[pyarrow]"}),
            _long(_SAME_QRELS, ("qid", "docno", "rel")).astype({"rel": "Int64"}),
        ),
    ],
    ids=["pyterrier", "ir_measures", "ranx", "categorical", "arrow-and-nullable"],
)
def test_frames_as_the_ecosystem_writes_them_score_as_dicts(run, qrels):
    measures = ["map", "ndcg_cut.10", "P.5"]
    expected = trecbench.evaluate(_SAME_QRELS, _SAME_RUN, measures).to_frame()
    assert trecbench.evaluate(qrels, run, measures).to_frame().equals(expected)


# ---------------------------------------------------------------------------------------
# empty lines cost no string work (issue 25 item 9: ~150 bytes a blank line before)


def _identity_compaction(data, buf, starts):
    return data, starts, np.empty(0, np.int64), np.arange(len(starts), dtype=np.int64)


_LINE_PARTS = [
    "",
    "",
    "q1 Q0 d1 1 1.5 t",
    "q2\tQ0\td2\t2\t0.5\tt",
    " ",
    "\t",
    "a  b",
    "x\r",
    "\u00a0y",
]


@pytest.mark.parametrize("seed", range(40))
def test_tokens_are_the_same_with_empty_lines_compacted(seed, monkeypatch):
    rng = np.random.default_rng(seed)
    lines = [_LINE_PARTS[i] for i in rng.integers(0, len(_LINE_PARTS), rng.integers(0, 30))]
    data = "\n".join(lines).encode() + (b"\n" if rng.random() < 0.7 else b"")
    first = int(rng.integers(1, 5))
    compacted = trec_text.tokenize(data, "x", first)
    monkeypatch.setattr(trec_text, "_without_empty_lines", _identity_compaction)
    direct = trec_text.tokenize(data, "x", first)
    for name in trec_text.Tokens.__dataclass_fields__:
        left, right = getattr(compacted, name), getattr(direct, name)
        if name == "fields":
            assert [f.to_pylist() for f in left] == [f.to_pylist() for f in right]
        elif isinstance(left, np.ndarray):
            assert left.tolist() == right.tolist(), name
        else:
            assert left == right, name


@pytest.mark.parametrize("sep", [" ", "\t"])
@pytest.mark.parametrize("where", ["middle", "end", "block start"])
def test_an_empty_line_after_the_first_block_is_irregular(tmp_path, monkeypatch, sep, where):
    """Blocks after the first are not searched for empty lines (a slow two-byte search):
    Arrow's reader refuses them (an empty score), in the whole and the streamed reader,
    wherever the empty line falls (a block's start, the file's end)."""
    line = sep.join(["q1", "Q0", "d{}", "1", "1.5", "t"]) + "\n"
    good = "".join(line.format(i) for i in range(40)).encode()
    blank = {"middle": good + b"\n" + good, "end": good + b"\n", "block start": good}[where]
    block = len(good) if where == "block start" else 64  # a block ends where a line ends
    data = good + blank + (b"\n" + good if where == "block start" else b"")
    path = tmp_path / "r.run"
    path.write_bytes(data)
    monkeypatch.setattr(trec_regular, "_REGULAR_BLOCK", block)
    assert trec_text.read_regular_run(path) is None
    with streams.Source(path) as source, pytest.raises(trec_text.Irregular):
        list(trec_text.iter_regular_run(source, block))


@pytest.mark.parametrize("sep", [" ", "\t"])
@pytest.mark.parametrize("byte", ["\v", "\f", "\x00", "\r", "\x7f", "\x01", "other", "é"])
@pytest.mark.parametrize("where", ["in a field", "before the tag"])
def test_a_blank_or_control_byte_in_a_later_block_is_irregular(
    tmp_path, monkeypatch, sep, byte, where
):
    """Only CR and DEL (and a space in tab-separated text) are searched for before a block
    is parsed; VT, FF, NUL, the other control bytes, a tab in space-separated text and the
    bytes past ASCII (UTF-8's) are found by counting the bytes below 32 or above 127 after
    it: in either place, the whole reader and the streamed one refuse the text as
    irregular (the tokenizer then reads it)."""
    byte = ("\t" if sep == " " else " ") if byte == "other" else byte
    rows = [sep.join(["q1", "Q0", f"d{i}", str(i + 1), "1.5", "t"]) for i in range(40)]
    bad = rows[30].split(sep)
    if where == "in a field":
        bad[2] += byte  # six fields still: a byte inside a docno
    else:
        bad[5] = byte + bad[5]  # the byte beside the separator before the tag
    rows[30] = sep.join(bad)
    path = tmp_path / "r.run"
    path.write_bytes("".join(row + "\n" for row in rows).encode())
    _assert_irregular_to_both_readers(path, monkeypatch)


def _assert_irregular_to_both_readers(path: Path, monkeypatch) -> None:
    """The streamed reader and the whole one refuse ``path`` as irregular with its bad line
    (past the first quarter) in a later block, and the whole one with it in its first."""
    data = path.read_bytes()
    block = data.index(b"\n", len(data) // 4) + 1  # whole lines, the bad one later
    with streams.Source(path) as source, pytest.raises(trec_text.Irregular):
        list(trec_text.iter_regular_run(source, block))
    for size in (block, 1 << 20):  # the bad line in a later read, and in the first
        monkeypatch.setattr(trec_regular, "_REGULAR_BLOCK", size)
        assert trec_text.read_regular_run(path) is None


def _empty_field_run(sep: str, field: int, lines: int = 40, bad: int = 30) -> bytes:
    """A regular run whose line ``bad`` (0-based) has an empty ``field``, the field after
    it missing (still six fields: the reader's field count holds)."""
    rows = [["q1", "Q0", f"d{i}", str(i + 1), "1.5", "t"] for i in range(lines)]
    rows[bad][field:] = ["", *rows[bad][field:-1]]
    return "".join(sep.join(row) + "\n" for row in rows).encode()


@pytest.mark.parametrize("sep", [" ", "\t"])
@pytest.mark.parametrize("field", [1, 3])
def test_an_empty_q0_or_rank_in_a_later_block_is_irregular(tmp_path, monkeypatch, sep, field):
    """Q0 and rank are not read by the regular readers: adjacent separators in any block,
    the whole reader's or the streamed one's, make the text irregular (the tokenizer then
    names the line), never a run with shifted fields."""
    path = tmp_path / "r.run"
    path.write_bytes(_empty_field_run(sep, field))
    _assert_irregular_to_both_readers(path, monkeypatch)
    with pytest.raises(InputError, match=r"r\.run:31: expected 6 fields"):
        trec_text.run_table(trec_text.tokenize_file(path))


@pytest.mark.parametrize("sep", [" ", "\t"])
def test_adjacent_separators_across_two_reads_are_irregular(tmp_path, monkeypatch, sep):
    """The whole reader checks the text as Arrow pulls it: a pair of separators cut
    between two reads is seen too."""
    data = _empty_field_run(sep, 1)
    path = tmp_path / "r.run"
    path.write_bytes(data)
    cut = data.index((sep * 2).encode()) + 1  # the first read ends between the two
    monkeypatch.setattr(trec_regular, "_REGULAR_BLOCK", cut)
    assert trec_text.read_regular_run(path) is None


@pytest.mark.parametrize("sep", [b" ", b"\t"])
def test_adjacent_separators_are_found_at_every_offset(sep):
    other = b"\t" if sep == b" " else b" "
    for n in range(12):
        alone = (sep + b"x") * n  # separators never adjacent: an even and an odd offset
        assert not trec_regular._adjacent_separators(alone[:n], sep)
        assert not trec_regular._adjacent_separators(memoryview(alone[:n]), sep, other)
        for i in range(n - 1):
            pair = bytearray(b"x" * n)
            pair[i : i + 2] = sep * 2
            assert trec_regular._adjacent_separators(bytes(pair), sep), (n, i)
        assert trec_regular._adjacent_separators(sep + b"x" * n, sep, before=sep)
        assert not trec_regular._adjacent_separators(b"x" + sep * (n > 0), sep, before=sep)


def test_the_whole_reader_refuses_a_read_past_ascii_before_it_is_parsed():
    """The whole reader's parse would go on to the file's end before the count of low
    bytes refused UTF-8 in a later read: that read is refused as Arrow pulls it."""
    first = b"q1 Q0 d1 1 2.5 t\n"
    later = io.BytesIO("q1 Q0 dé 2 1.5 t\n".encode())
    checked = trec_regular._CheckedText(later, first, b" ")
    assert checked.read(-1) == first
    with pytest.raises(trec_regular.Irregular):
        checked.read(-1)


@pytest.mark.parametrize("sep", [b" ", b"\t"])
def test_one_scan_finds_what_the_two_checks_find_across_its_slices(sep):
    """:func:`_scanned` compares the text a slice at a time: a pair of separators cut
    between two slices is found, and its count of the bytes below 32 or past ASCII is
    :func:`_low_bytes`'s (each such byte counted once, wherever it falls)."""
    size = trec_regular._SCAN_SLICE
    line = sep.join([b"q1", b"Q0", b"d\xc3\xa9", b"1", b"2.5", b"t\x01"]) + b"\n"
    text = line * (3 * size // len(line))
    assert trec_regular._scanned(text, sep) == (False, trec_regular._low_bytes(text))
    assert trec_regular._low_bytes(line) == 5 * (sep == b"\t") + 4  # newline, \x01, é's 2
    for cut in (size - 1, size, size + 1, 2 * size - 1, len(text) - 2):
        paired = bytearray(text)
        paired[cut : cut + 2] = sep * 2
        assert trec_regular._scanned(bytes(paired), sep)[0], cut
        assert trec_regular._adjacent_separators(bytes(paired), sep), cut
    assert trec_regular._scanned(b"", sep) == (False, 0)


def test_empty_fields_beyond_the_tag_leave_the_values_as_the_tokenizer_reads_them(tmp_path):
    data = b"q1 Q0 d1 1 2.5 t x  y\nq1 Q0 d2 2 1.5 t x z y\n"
    path = tmp_path / "r.run"
    path.write_bytes(data)
    assert trec_text.read_regular_run(path) is None  # the tokenizer reads it
    table = trec_text.run_table(trec_text.tokenize_file(path))
    assert table.column("docno").to_pylist() == ["d1", "d2"]
    assert table.column("score").to_pylist() == [2.5, 1.5]


def test_a_run_of_empty_lines_is_not_parsed_as_csv(tmp_path):
    """The CSV fast paths give up at the first empty line instead of parsing them all."""
    data = b"q1 Q0 d1 1 1.5 t\n" + b"\n" * 10 + b"q1 Q0 d2 2 0.5 t\n"
    with pytest.raises(trec_text.Irregular):
        trec_regular._regular_layout(data)
    path = tmp_path / "r.run"
    path.write_bytes(data)
    assert trec_text.read_regular_run(path) is None
    tokens = trec_text.tokenize(data)
    assert tokens.blank_lines.tolist() == list(range(2, 12)) and tokens.line.tolist() == [1, 12]


# a UTF-8 byte-order mark starting a line after the first is part of its qid to trec_eval
_BOM_TEXT = {
    "run": "q1 Q0 d0 1 1 t\n\ufeffq2 Q0 d1 1 10 t\nq2 Q0 d2 2 5 t\n",
    "qrels": "q1 0 d0 0\n\ufeffq2 0 d1 1\nq2 0 d2 0\n",
}
_WITHOUT_BOM = {"run": "q2 Q0 d1 1 10 t\nq2 Q0 d2 2 5 t\n", "qrels": "q2 0 d1 1\nq2 0 d2 0\n"}
# what trec_eval 9.0.8 printed with -q -m num_ret -m P.1 (10.0 printed the same for the
# run): topic q2 holds d2 alone, the BOM's line is topic \ufeffq2, of the run only (or of
# the qrels only); Arrow's CSV reader, given a chunk starting with the BOM, dropped it
# (P_1 1.0000, num_ret 2)
_TREC_EVAL_BOM = {
    "run": "num_ret               \tq2\t1\nP_1                   \tq2\t0.0000\n"
    "num_ret               \tall\t1\nP_1                   \tall\t0.0000\n",
    "qrels": "num_ret               \tq2\t2\nP_1                   \tq2\t0.0000\n"
    "num_ret               \tall\t2\nP_1                   \tall\t0.0000\n",
}


@pytest.mark.parametrize(
    ("kind", "given"),  # qrels are never read from standard input
    [("run", "plain"), ("run", "gzip"), ("run", "stdin"), ("qrels", "plain"), ("qrels", "gzip")],
)
def test_a_byte_order_mark_starting_a_chunk_stays_in_its_qid(tmp_path, monkeypatch, kind, given):
    data = _BOM_TEXT[kind].encode()
    # the BOM's line starts the second chunk the tokenizer reads
    monkeypatch.setattr(trec_text, "WHOLE_CHUNK_BYTES", data.index(b"\n") + 1)
    (tmp_path / "bom").write_bytes(gzip.compress(data) if given == "gzip" else data)
    other = "qrels" if kind == "run" else "run"
    (tmp_path / other).write_text(_WITHOUT_BOM[other])
    files = {other: other, kind: "-" if given == "stdin" else "bom"}
    argv = ["-q", "-m", "num_ret", "-m", "P.1", files["qrels"], files["run"]]
    stdout, _, code = run_score(argv, tmp_path, monkeypatch, data if given == "stdin" else None)
    assert (stdout.decode(), code) == (_TREC_EVAL_BOM[kind], 0)


# runs regular but for what score's gate (the validator's lenient profile) warns of, and
# the start of its warning (`trecbench validate --profile lenient` says the same)
_GATE_WARNED = {
    "control byte": (b"q1 Q0 a\x01 1 2.0 t\nq1 Q0 b 2 1.0 t\n", "1:line: warning[R23]"),
    "DEL": (b"q1 Q0 a 1 2.0 t\nq1 Q0 b\x7f 2 1.0 t\n", "2:line: warning[R23]"),
    "comment line": (b"q1 Q0 a 1 2.0 t\n#7 Q0 b 2 1.0 t\n", "2:line: warning[R22]"),
    "fields after the tag": (b"q1 Q0 a 1 2.0 t x\nq1 Q0 b 2 1.0 t y\n", "1:tag: warning[R1]"),
}


@pytest.mark.parametrize("case", _GATE_WARNED)
@pytest.mark.parametrize("given", ["plain", "gzip", "stdin"])
def test_the_gate_warns_of_a_regular_looking_run(tmp_path, monkeypatch, case, given):
    """The regular readers skip the gate: text holding what it warns of is not regular,
    so its warnings are said as for any other file (they were lost without a blank line)."""
    data, warning = _GATE_WARNED[case]
    (tmp_path / "qrels").write_text("q1 0 a 1\nq1 0 b 0\n")
    (tmp_path / "r.run").write_bytes(gzip.compress(data) if given == "gzip" else data)
    name = "-" if given == "stdin" else "r.run"
    argv = ["-m", "P.1", "qrels", name]
    _, stderr, code = run_score(argv, tmp_path, monkeypatch, data if given == "stdin" else None)
    assert code == 0 and f"{name}:{warning}" in stderr
    assert trec_text.read_regular_run(tmp_path / "r.run") is None


# C0 controls but tab, newline, VT, FF, CR (blanks to trec_eval) and NUL; DEL; a comment
@pytest.mark.parametrize("byte", bytes([*range(1, 9), *range(14, 32), 127]) + b"#")
@pytest.mark.parametrize("where", ["first read", "later read", "read start"])
def test_control_bytes_and_comment_lines_are_irregular_in_every_read(
    tmp_path, monkeypatch, byte, where
):
    """In the first read (which chooses the separator) and in any later one, the whole
    reader's and the streamed one's; a ``#`` at a read's start only when a line starts
    there."""
    line = "q1 Q0 d{} {} 1.5 t\n"
    good = "".join(line.format(i, i + 1) for i in range(40)).encode()
    bad = bytes([byte]) + b"q1 Q0 x 41 0.5 t\n"
    data = {"first read": bad + good, "later read": good + bad + good}.get(where, good + bad)
    path = tmp_path / "r.run"
    path.write_bytes(data)
    block = len(good) if where == "read start" else 64  # a read ends where a line ends
    monkeypatch.setattr(trec_regular, "_REGULAR_BLOCK", block)
    assert trec_text.read_regular_run(path) is None
    with streams.Source(path) as source, pytest.raises(trec_text.Irregular):
        list(trec_text.iter_regular_run(source, block))


@pytest.mark.parametrize("sep", [" ", "\t"])
@pytest.mark.parametrize("last_newline", [True, False])
def test_regular_text_stays_on_the_regular_path(tmp_path, monkeypatch, sep, last_newline):
    """Tabs and newlines are the only bytes below 32 regular text holds: the control
    bytes are counted against the lines parsed (5 tabs and a newline a line, or a
    newline), a last line without a newline too, in small reads and blocks alike."""
    lines = [sep.join(["q1", "Q0", f"d{i}", str(i + 1), f"{40 - i}.5", "t"]) for i in range(40)]
    data = ("\n".join(lines) + "\n" * last_newline).encode()
    path = tmp_path / "r.run"
    path.write_bytes(data)
    monkeypatch.setattr(trec_regular, "_REGULAR_BLOCK", 64)
    table = trec_text.read_regular_run(path)
    assert table is not None and table.column("docno").to_pylist() == [f"d{i}" for i in range(40)]
    with streams.Source(path) as source:
        pieces = list(trec_text.iter_regular_run(source, 64))
    assert sum(piece.num_rows for piece in pieces) == 40


def test_a_hash_inside_a_field_or_a_read_is_regular(tmp_path, monkeypatch):
    """``#`` starts a comment only where a line starts: a docno holding one, cut by a
    read just before it, stays on the regular path."""
    data = b"q1 Q0 a 1 2.0 t\nq1 Q0 #b 2 1.0 t\nq1 Q0 c# 3 0.5 t\n"
    path = tmp_path / "r.run"
    path.write_bytes(data)
    monkeypatch.setattr(trec_regular, "_REGULAR_BLOCK", data.index(b"#"))
    table = trec_text.read_regular_run(path)
    assert table is not None and table.column("docno").to_pylist() == ["a", "#b", "c#"]


def test_a_frame_with_two_columns_of_one_name_is_refused():
    frame = pd.DataFrame([["q", "d", 1.0, 2.0]], columns=["qid", "docno", "score", "score"])
    with pytest.raises(UsageError, match="two columns are named 'score'; keep one"):
        inputs.load(frame, "run")  # KeyError: 0 before


def test_xz_streams_are_read_across_their_padding_and_junk_after_one_refused(tmp_path):
    # lzma.LZMAFile ended the file at stream padding or junk after a stream: a run of two
    # streams with the padding xz allows scored its first stream alone (num_ret 1, exit 0)
    first, second = (lzma.compress(line.encode()) for line in RUN_TEXT.splitlines(True)[:2])
    padded = tmp_path / "padded.xz"
    padded.write_bytes(first + b"\0" * 4 + second + b"\0" * 8)
    assert inputs.load_run(padded).table.num_rows == 2  # as xz -dc reads it
    for name, data, problem in (
        ("junk.xz", first + b"junk" + second, "data after an xz stream that is no xz stream"),
        ("tail.xz", first + second + b"garbage\n", "data after an xz stream"),
        ("odd.xz", first + b"\0" * 3, "stream padding of 3 bytes"),
        ("cut.xz", (first + second)[:-10], "the file ends inside an xz stream"),
    ):
        (tmp_path / name).write_bytes(data)
        with pytest.raises(InputError, match=f"corrupt or truncated xz data: {problem}"):
            inputs.load_run(tmp_path / name)


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        (
            [{"qid": "q", "docno": "d", "score": 1.0}, {"qid": "q", "score": 2.0}],
            "run 'run1' (run records): record 1 has no key 'docno'",
        ),
        (
            [{"qid": "q", "docno": "d", "score": 1.0}, ("q", "d", 2.0)],
            "run 'run1' (run records): record 1 is a tuple, not a dict as record 0",
        ),
        (
            [{"qid": "q", "docno": "d", "score": 1.0}, {"qid": "q", "docno": "e", "score": "x"}],
            "run 'run1' (run records): record 1: score 'x' is text, not a number as in record 0",
        ),
        (
            [{"qid": "q", "docno": 1.0, "score": 1.0}],
            "run 'run1' (run records): record 0: docno 1.0 is a float, not text or an integer",
        ),
        (  # the other way round: "KeyError: 0"
            [ir_measures.ScoredDoc("q", "d", 1.0), {"qid": "q", "docno": "e", "score": 2.0}],
            "run 'run1' (run records): record 1 is a dict, not a ScoredDoc as record 0",
        ),
        (  # read with record 0's keys, its tag was dropped: written as "run"
            [
                {"qid": "q", "docno": "d", "score": 1.0},
                {"qid": "q", "docno": "e", "score": 2.0, "tag": "x"},
            ],
            "run 'run1' (run records): record 1 has key 'tag', record 0 has not: give every "
            "record the same keys",
        ),
        (  # a second query id, ignored, where a DataFrame of these records refuses it
            [
                {"qid": "q", "docno": "d", "score": 1.0},
                {"qid": "q", "docno": "e", "score": 2.0, "query_id": "p"},
            ],
            "run 'run1' (run records): record 1 has key 'query_id', record 0 has not: give "
            "every record the same keys",
        ),
    ],
)
def test_dict_records_are_refused_naming_the_record(rows, message):
    with pytest.raises(InputError) as caught:
        trecbench.evaluate({"q": {"d": 1}}, rows, ["P@5"])
    assert str(caught.value).startswith(message)


def test_a_dict_qrels_record_s_iteration_after_a_first_without_is_refused(tmp_path):
    # read with record 0's keys, a later record's iteration was dropped: written as 0
    qrels = [
        {"qid": "1", "docno": "d1", "rel": 1},
        {"qid": "1", "iteration": "7", "docno": "d2", "rel": 1},
    ]
    out = tmp_path / "out.qrels"
    with pytest.raises(InputError) as caught:
        trecbench.write_qrels(qrels, out)
    assert str(caught.value) == (
        "qrels records: record 1 has key 'iteration', record 0 has not: give every record "
        "the same keys"
    )
    assert not out.exists()
    # a key no qrels reads (a run's tag, PyTerrier's query text) is no role: ignored
    qrels[1] = {"qid": "1", "docno": "d2", "rel": 1, "tag": "x", "query": "text"}
    trecbench.write_qrels(qrels, out)
    assert out.read_text() == "1 0 d1 1\n1 0 d2 1\n"


def test_a_record_of_another_type_than_the_first_is_refused_naming_it():
    # each record was read by the first one's field positions: a Doc(doc_id, query_id,
    # score) had its ids swapped, a Qrel after a ScoredDoc its grade taken as a score, a
    # Qrel after a GenericQrel (no iteration) its subtopic dropped, all silently
    doc = collections.namedtuple("Doc", ["doc_id", "query_id", "score"])
    generic = collections.namedtuple("GenericQrel", ["query_id", "doc_id", "relevance"])
    first = ir_measures.ScoredDoc("q", "a", 2.0)
    with pytest.raises(InputError) as caught:
        trecbench.rank_run([first, doc("b", "q", 5.0)])
    assert str(caught.value) == (
        "run records: record 1 is a Doc (doc_id, query_id, score), not a ScoredDoc "
        "(query_id, doc_id, score) as record 0"
    )
    with pytest.raises(InputError, match="^run 'run1' .*: record 1 is a Qrel .*, not a Score"):
        trecbench.evaluate({"q": {"a": 1}}, [first, ir_measures.Qrel("q", "b", 5)], ["P@1"])
    qrels = [generic("q", "a", 1), generic("q", "c", 0), ir_measures.Qrel("q", "b", 1, "s1")]
    with pytest.raises(InputError) as caught:
        trecbench.evaluate(qrels, {"q": {"a": 1.0}}, ["P@1"])
    assert str(caught.value) == (
        "qrels records: record 2 is a Qrel (query_id, doc_id, relevance, iteration), not a "
        "GenericQrel (query_id, doc_id, relevance) as record 0"
    )
    # a named tuple of another type with the same fields is read as the first is
    same = collections.namedtuple("TrecQrel", ir_measures.Qrel._fields)
    mixed = [ir_measures.Qrel("q", "a", 1, "0"), same("q", "b", 2, "0")]
    assert inputs.load_qrels(mixed).table.column("rel").to_pylist() == [1, 2]


def test_records_read_by_attribute_mix_types_but_not_a_dict():
    # read by attribute, nothing is misread: a subclass of record 0's dataclass, or a
    # SimpleNamespace of its attributes, was refused as "record 1 is a B, not an A". By
    # hand: each topic's one relevant document retrieved first, P@1 = 1 on both
    import dataclasses

    @dataclasses.dataclass
    class A:
        query_id: str
        doc_id: str
        score: float

    class B(A):
        pass

    qrels = {"q1": {"d1": 1, "d2": 0}, "q2": {"d3": 1}}
    for second in (
        B("q2", "d3", 1.0),
        types.SimpleNamespace(query_id="q2", doc_id="d3", score=1.0),
    ):
        result = trecbench.evaluate(qrels, [A("q1", "d1", 1.0), second], ["P_1"])
        assert result.to_dict() == {"q1": {"P_1": 1.0}, "q2": {"P_1": 1.0}}
    with pytest.raises(InputError) as caught:
        trecbench.evaluate(qrels, [A("q1", "d1", 1.0), {"query_id": "q2"}], ["P_1"])
    assert str(caught.value) == "run 'run1' (run records): record 1 is a dict, not an A as record 0"


def test_a_qrels_record_s_iteration_is_kept_or_its_mix_refused(tmp_path):
    # read by attribute, every record was read as record 0: one without an iteration left
    # a later record's subtopic out of the qrels (written as 0, reports without it)
    import ir_datasets.formats

    def plain(docno, **iteration):
        return types.SimpleNamespace(query_id="1", doc_id=docno, relevance=1, **iteration)

    out = tmp_path / "out.qrels"
    for later in (plain("d2", iteration="7"), ir_datasets.formats.TrecQrel("1", "d2", 1, "7")):
        with pytest.raises(InputError) as caught:
            trecbench.write_qrels([plain("d1"), plain("d0"), later], out)
        assert str(caught.value) == (
            "qrels records: record 2 has field iteration, record 0 has not: give it every "
            "record or none"
        )
    # ir_datasets' TrecSubQrel's subtopic_id alike: it was dropped, the qrels written as 0
    with pytest.raises(InputError) as caught:
        trecbench.write_qrels([plain("d1"), plain("d2", subtopic_id="7")], out)
    assert str(caught.value) == (
        "qrels records: record 1 has field subtopic_id, record 0 has not: give it every "
        "record or none"
    )
    with pytest.raises(InputError, match="^qrels records: record 1 has no field iteration$"):
        trecbench.write_qrels([plain("d1", iteration="3"), plain("d2")], out)
    assert not out.exists()
    # every record with its own iteration: each kept, as the file's second column
    trecbench.write_qrels([plain("d1", iteration="3"), plain("d2", iteration="7")], out)
    assert out.read_text() == "1 3 d1 1\n1 7 d2 1\n"
    trecbench.write_qrels([plain("d1"), plain("d2")], out)
    assert out.read_text() == "1 0 d1 1\n1 0 d2 1\n"


def test_ir_datasets_diversity_qrels_keep_their_subtopic_id(tmp_path):
    # TREC Web's diversity qrels (irds:clueweb09/catb/trec-web-2009/diversity...) are
    # ir_datasets' TrecSubQrel(query_id, doc_id, relevance, subtopic_id): the subtopic was
    # dropped, a document judged for two subtopics refused as "duplicate docs d1 for topic 1
    # subtopic 0", one judged for one scored as if every topic had a single subtopic
    from ir_datasets.formats import TrecSubQrel

    judged = [("1", "d1", 1, "1"), ("1", "d1", 1, "2"), ("1", "d2", 1, "2"), ("2", "d3", 1, "1")]
    (tmp_path / "div.qrels").write_text("".join(f"{q} {s} {d} {r}\n" for q, d, r, s in judged))
    run = {"1": {"d2": 2.0, "d1": 1.0}, "2": {"d3": 1.0}}
    records = [TrecSubQrel(*row) for row in judged]
    measures = ["alpha_nDCG@5", "StRecall@1"]
    expected = trecbench.evaluate(str(tmp_path / "div.qrels"), run, measures).to_dict()
    assert expected["1"]["StRecall@1"] == 0.5  # d2 alone covers subtopic 2 of 2
    for qrels in (records, pd.DataFrame(records), [row._asdict() for row in records]):
        assert trecbench.evaluate(qrels, run, measures).to_dict() == expected
    trecbench.write_qrels(records, tmp_path / "out.qrels")
    assert (tmp_path / "out.qrels").read_text() == (tmp_path / "div.qrels").read_text()


@pytest.mark.parametrize("column", ["qid", "docno", "tag"])
def test_an_empty_id_in_a_table_is_refused_as_in_jsonl(tmp_path, column):
    # a Parquet docno '' was scored as a document (num_ret 2) and passed validate; an empty
    # qid became a topic ''; JSONL refused them ("empty docno")
    frame = pd.DataFrame({"qid": ["q1", "q1"], "docno": ["d1", "d2"], "score": [2.0, 1.0],
                          "tag": ["t", "t"]})  # fmt: skip
    frame.loc[1, column] = ""
    frame.to_parquet(tmp_path / "e.parquet")
    for run in (frame, str(tmp_path / "e.parquet")):
        with pytest.raises(InputError, match=f"row (1|2): {column} is empty$"):
            trecbench.evaluate({"q1": {"d1": 1}}, run, ["num_ret"])


def test_an_empty_subtopic_is_a_label_not_an_id():
    # an empty iter column is a subtopic label: it was reported as "floats, or missing
    # values" once empty ids were refused, and alpha-nDCG refused
    qrels = pd.DataFrame({"qid": ["1"] * 3, "iter": [""] * 3, "docno": list("abc"),
                          "rel": [1, 0, 2]})  # fmt: skip
    run = {"1": {"a": 3.0, "b": 2.0, "c": 1.0}}
    assert trecbench.evaluate(qrels, run, ["ndcg_cut.10"]).to_dict()["1"]["ndcg_cut.10"] > 0
    table = inputs.load_qrels(qrels).table
    assert table.column("iter").to_pylist() == ["", "", ""]


def test_a_run_dicts_topic_without_documents_is_warned_of():
    # left out as trec_eval has no such topic; pytrec_eval scores it 0 (P_5 mean 0.1, not
    # trecbench's 0.2), without a word
    from trecbench.errors import InputWarning

    qrels = {"q1": {"d1": 1, "d2": 0}, "q2": {"d3": 2}}
    run = {"q1": {}, "q2": {"d3": 0.5, "d4": 1.0}}
    said = r"run 'run1': 1 qrels topic without a document \(q1\): left out"
    with pytest.warns(InputWarning, match=said):
        result = trecbench.evaluate(qrels, run, ["P_5"])
    assert result.to_dict() == {"q2": {"P_5": 0.2}}
    with warnings.catch_warnings():  # not where pytrec_eval agrees, nor where nothing is scored
        warnings.simplefilter("error", InputWarning)
        trecbench.evaluate(qrels, {"q2": {"d3": 0.5}, "q9": {}}, ["P_5"])  # q9: no qrels topic
        trecbench.load_run(run)
        trecbench.fuse([run, {**run, "q3": {"d5": 1.0}}])  # the same run twice is refused
    import pytrec_eval

    theirs = pytrec_eval.RelevanceEvaluator(qrels, {"P_5"}).evaluate(run)
    mean = sum(v["P_5"] for v in theirs.values()) / len(theirs)
    complete = trecbench.evaluate(qrels, run, ["P_5"], complete=True)  # counted: not said
    assert complete.aggregates["value"].tolist() == [pytest.approx(mean)]


@pytest.mark.parametrize(
    "run",
    [{"q2": ["d2"], "q1": {"d1": 1.0}}, {"q1": {"d1": 1.0}, "q2": ["d2"]}],
    ids=["list-first", "mapping-first"],
)
def test_a_run_dict_s_query_of_no_mapping_is_named_whatever_comes_first(run):
    # with the list first the dict was taken for {run name: run}: "run 'q2' (run records):
    # record 0 (str) has no fields query_id, doc_id, score"
    with pytest.raises(InputError) as caught:
        trecbench.evaluate({"q1": {"d1": 1}}, run, ["MAP"])
    assert str(caught.value) == (
        "run 'run1' (run dict): query 'q2': its documents must be a mapping of docno to "
        "score, not a list"
    )


def test_load_run_refuses_a_flag_or_check_of_the_wrong_kind(tmp_path):
    # full="no" was truthy and kept every column; check=5 was never called on a regular
    # run file (the fast reader) and accepted
    path = tmp_path / "r.run"
    path.write_text("q Q0 d 1 2.5 t\n")
    for call, message in (
        (lambda: inputs.load_run(path, full="no"), "full must be True or False, not 'no'"),
        (lambda: inputs.load_run(path, check=5), "check must be a function check(tokens, kind)"),
        (lambda: inputs.load_qrels(path, check=5), "check must be a function check(tokens, kind)"),
    ):
        with pytest.raises(UsageError, match="^" + re.escape(message)):
            call()


@pytest.mark.parametrize(
    ("action", "call"),
    [
        ("evaluate", lambda runs: trecbench.evaluate({"q": {"d": 1}}, runs, ["P@1"])),
        ("compare", lambda runs: trecbench.compare({"q": {"d": 1}}, runs, ["P@1"])),
        ("fuse", trecbench.fuse),
        ("pool", trecbench.pool),
    ],
)
def test_a_spent_iterator_of_runs_is_said_to_be_one(action, call):
    # a generator of ScoredDocs read before was "no run given", as if none had been passed
    spent = (doc for doc in [ir_measures.ScoredDoc("q", "d", 1.0)])
    list(spent)
    with pytest.raises(UsageError) as refused:
        call(spent)
    assert str(refused.value) == (
        f"nothing to {action}: no run given (an iterator that yielded nothing: one read "
        "before is spent)"
    )
    with pytest.raises(UsageError) as refused:
        call([])
    assert str(refused.value) == f"nothing to {action}: no run given"


@pytest.mark.parametrize(
    "argv",
    [
        ["validate", "--qrels", "irds:vaswani"],
        ["validate", "irds:vaswani"],
        ["score", "-m", "P.1", "qrels/hpo-demo.qrels", "irds:vaswani"],
    ],
)
def test_an_ir_datasets_id_where_none_is_taken_says_where_it_is(argv, capfd, monkeypatch):
    """irds:ID where a run or validate's qrels is read said only 'No such file': it now
    says that such an id names qrels, and which inputs take it (CLI and Python alike)."""
    from conftest import ROOT

    from trecbench.cli import run

    monkeypatch.chdir(ROOT)
    assert run(argv) == 2
    err = capfd.readouterr().err
    assert err.startswith("trecbench: irds:vaswani: cannot read: No such file; an ir_datasets")
    assert "score, compare, power and agree read it as their QRELS" in err
    with pytest.raises(trecbench.InputError, match="names qrels: score, compare"):
        trecbench.evaluate({"1": {"d": 1}}, "irds:vaswani", ["P@1"])
