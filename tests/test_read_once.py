"""Inputs are read once: report.html's drill-down (each run's top documents per topic and
precision-recall curve) and ``compare --plots``' curve come from the pass that scores the
runs (trecbench.evaluation.drill), not from reading and ranking the files again. What is
kept equals what ranking the files again gives, whole runs and runs in blocks alike."""

from __future__ import annotations

import builtins
import collections
import os
from pathlib import Path

import pytest
from conftest import ROOT
from random_cases import random_case

from trecbench import evaluate, memory
from trecbench.cli import run
from trecbench.errors import UsageError
from trecbench.evaluation import EvalSettings
from trecbench.inputs import blocks as run_blocks
from trecbench.inputs import streams

QRELS = str(ROOT / "qrels" / "hpo-demo.qrels")
RUNS = [str(ROOT / "runs" / f"{name}.run") for name in ("tfidf-word", "tfidf-char")]


@pytest.fixture
def opened(monkeypatch):
    """Counts, per file name, the files opened (any way Python opens them) and the
    :class:`~trecbench.inputs.streams.Source` s made (a file's content read)."""
    opens, sources = collections.Counter(), collections.Counter()
    real_open, real_init = builtins.open, streams.Source.__init__

    def counting_open(file, *args, **kwargs):
        if isinstance(file, (str, os.PathLike)):
            opens[os.path.basename(os.fspath(file))] += 1
        return real_open(file, *args, **kwargs)

    def counting_init(self, path, *args, **kwargs):
        sources[os.path.basename(os.fspath(path))] += 1
        real_init(self, path, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", counting_open)
    monkeypatch.setattr(streams.Source, "__init__", counting_init)
    return opens, sources


def _counts(opened, args) -> tuple[dict, dict]:
    opens, sources = opened
    opens.clear()
    sources.clear()
    assert run(args) == 0
    names = [os.path.basename(path) for path in [QRELS, *RUNS]]
    return {name: opens[name] for name in names}, {name: sources[name] for name in names}


def test_compare_report_and_plots_open_each_input_as_scoring_alone_does(opened, tmp_path):
    pytest.importorskip("bokeh")
    pytest.importorskip("matplotlib")
    scoring = _counts(opened, ["compare", QRELS, *RUNS, "-m", "P@5", "--quiet"])
    out = tmp_path / "out"
    args = ["compare", QRELS, *RUNS, "-m", "P@5", "--quiet", "-o", str(out), "--plots"]
    written = _counts(opened, args)
    assert (out / "report.html").exists() and (out / "precision_recall.svg").exists()
    assert written == scoring  # was 3 times as many for each run: curves, drill-down
    assert set(written[1].values()) == {1}  # each file's content read once


def test_score_html_opens_each_input_as_score_alone_does(opened, tmp_path, capsys):
    pytest.importorskip("bokeh")
    scoring = _counts(opened, ["score", "-m", "P.5", QRELS, *RUNS])
    page = tmp_path / "page.html"
    assert _counts(opened, ["score", "-m", "P.5", QRELS, *RUNS, "--html", str(page)]) == scoring
    assert "report-data" in page.read_text()
    capsys.readouterr()


@pytest.fixture
def case_files(tmp_path):
    """Seeded runs (float32 ties, scattered topics, topics only one file has) and qrels."""
    files = []
    for seed in (3, 11, 17):
        qrels_text, run_text = random_case(seed, n_topics=5, score_style="float32_ties")
        qrels, run_file = tmp_path / f"{seed}.qrels", tmp_path / f"{seed}.run"
        qrels.write_text(qrels_text)
        run_file.write_text(run_text)
        files.append((str(qrels), str(run_file)))
    return files


OPTIONS = [
    {}, {"max_docs": 3, "judged_only": True}, {"relevance_level": 2},
    # trec_eval 10.0's reading, ranking (doubles) and curve; doubles under 9.0.8's
    {"compat": "10.0", "complete": True}, {"float32": False},
]  # fmt: skip


@pytest.mark.parametrize("blocks", [False, True])
@pytest.mark.parametrize("options", OPTIONS)
def test_what_scoring_keeps_is_what_ranking_the_file_again_gives(
    case_files, options, blocks, monkeypatch
):
    from trecbench.html_report import documents

    if blocks:  # blocks of a few lines: the kept parts of many blocks joined
        monkeypatch.setattr(memory, "BLOCK_LINES", 7)
        monkeypatch.setattr(memory, "READ_BYTES", 300)
        monkeypatch.setattr(run_blocks, "READ_BYTES", 300)
    for qrels, run_file in case_files:
        result = evaluate(qrels, [run_file], ["P.5"], drill_depth=4, **options).runs[0]
        kept = documents.from_kept({"r": result.drill_down}, 4)
        again = documents.drill_down({"r": run_file}, {}, {"r": _qrels_table(qrels)}, 4, options)
        assert repr(kept) == repr(again)  # exact floats; a NaN mean too
        assert list(kept[0]) == list(again[0])  # the topics' order, as the page's JSON has it


def _qrels_table(path):
    from trecbench.inputs import load_qrels

    return load_qrels(path).table


def test_nothing_is_kept_unless_asked_and_a_depth_is_a_whole_number():
    result = evaluate(QRELS, RUNS[0], ["P.5"]).runs[0]
    assert result.drill_down is None
    empty = evaluate(QRELS, RUNS[0], ["P.5"], drill_depth=0).runs[0].drill_down
    assert empty.documents.num_rows == 0  # the curve per topic all the same
    assert len(empty.precision_recall) == 56 and {
        len(c) for c in empty.precision_recall.values()
    } == {11}
    for depth in (-1, True, 2.0):
        with pytest.raises(UsageError, match="drill_depth"):
            EvalSettings(drill_depth=depth)


def test_the_kept_documents_are_bounded_by_the_depth():
    result = evaluate(QRELS, RUNS[0], ["P.5"], drill_depth=3).runs[0]
    documents = result.drill_down.documents
    per_topic = collections.Counter(documents.column("qid").to_pylist())
    assert max(per_topic.values()) == 3
    assert documents.column_names == ["qid", "docno", "score", "score_text", "tie", "rel"]


DATA_TAG = '<script type="application/json" id="report-data">'


def _page_data(page: str) -> dict:
    import json

    start = page.index(DATA_TAG) + len(DATA_TAG)
    return json.loads(page[start : page.index("</script>", start)])


def test_a_run_from_a_pipe_has_its_drill_down_and_curve_as_from_a_file(tmp_path):
    # the pipe's run was read once, to be scored: the page and the figures use that read
    import threading

    pytest.importorskip("bokeh")
    pytest.importorskip("matplotlib")
    fifo = tmp_path / "pipe" / os.path.basename(RUNS[0])  # the same run name
    fifo.parent.mkdir()
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: fifo.write_bytes(Path(RUNS[0]).read_bytes()))
    writer.start()
    args = ["compare", QRELS, "-m", "P@5", "--quiet", "--plots"]
    assert run([*args, str(fifo), RUNS[1], "-o", str(tmp_path / "pipe-out")]) == 0
    writer.join()
    assert run([*args, *RUNS, "-o", str(tmp_path / "file-out")]) == 0
    piped, filed = (
        _page_data((tmp_path / out / "report.html").read_text()) for out in ("pipe-out", "file-out")
    )
    assert piped["documents"] and piped["documents"] == filed["documents"]
    assert piped["depth"] == filed["depth"] == 20
    curves = [
        (tmp_path / out / "precision_recall.svg").exists() for out in ("pipe-out", "file-out")
    ]
    assert curves == [True, True]


# scores as run files write them, which the double's shortest text reads otherwise (12.5,
# 3.141592653589793, 1e-7, -0.1); 0.30000001 and 0.3 are one float32
WRITTEN = ["12.500000", "3.14159265358979323846", "0.30000001", "0.3", "0.0000001", "-0.100"]


def _written_run(folder: Path, scattered: bool, separator: str = " ") -> tuple[str, str, dict]:
    """qrels, a run of 5 topics whose scores are :data:`WRITTEN`, and {(qid, docno):
    score text}; ``scattered``: its lines shuffled (topics in many stretches)."""
    texts = {(f"t{q}", f"d{i}"): text for q in range(5) for i, text in enumerate(WRITTEN)}
    lines = [f"{qid}{separator}Q0 {docno} 1 {text} r\n" for (qid, docno), text in texts.items()]
    if scattered:
        lines = [lines[(7 * i) % len(lines)] for i in range(len(lines))]  # 7 and 30: coprime
    (folder / "q").write_text("".join(f"t{q} 0 d3 1\n" for q in range(5)))
    (folder / "w.run").write_text("".join(lines))
    return str(folder / "q"), str(folder / "w.run"), texts


@pytest.mark.parametrize("reading", ["whole", "irregular", "blocks", "spilled", "workers"])
def test_the_kept_documents_hold_each_score_as_the_run_file_writes_it(
    tmp_path, monkeypatch, reading
):
    # the drill-down had only the double (the page wrote 12.5 for 12.500000): every way a
    # run file is read keeps the text for it, when one is asked
    spilled = []
    if reading in ("blocks", "spilled"):
        monkeypatch.setattr(memory, "BLOCK_LINES", 7)
        monkeypatch.setattr(memory, "READ_BYTES", 300)
        monkeypatch.setattr(run_blocks, "READ_BYTES", 300)
        original = run_blocks.RunBlocks._spilled
        monkeypatch.setattr(
            run_blocks.RunBlocks, "_spilled", lambda *a: spilled.append(1) or original(*a)
        )
    separator = "\t" if reading == "irregular" else " "  # a tab, then spaces: the tokenizer
    qrels, run_file, texts = _written_run(tmp_path, reading == "spilled", separator)
    runs, options = [run_file], {"memory": 1} if reading in ("blocks", "spilled") else {}
    if reading == "workers":  # scored in worker processes
        other = tmp_path / "other.run"
        other.write_bytes(Path(run_file).read_bytes())
        runs, options = [run_file, str(other)], {"jobs": 2}
    evaluation = evaluate(qrels, runs, ["P.5"], drill_depth=6, **options)
    for result in evaluation.runs:
        kept = result.drill_down.documents.to_pylist()
        assert len(kept) == len(texts)
        assert {(row["qid"], row["docno"]): row["score_text"] for row in kept} == texts
    assert bool(spilled) == (reading == "spilled")
    assert evaluate(qrels, run_file, ["P.5"]).runs[0].drill_down is None  # none asked


def test_a_run_held_as_numbers_shows_each_score_as_python_writes_the_double(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    from trecbench.html_report import documents

    qrels, run_file, texts = _written_run(tmp_path, False)
    scores = [float(text) for text in texts.values()]
    table = pa.table({"qid": [q for q, _ in texts], "docno": [d for _, d in texts],
                      "score": scores})  # fmt: skip
    pq.write_table(table, tmp_path / "w.parquet")
    for run_ in (str(tmp_path / "w.parquet"), table):
        result = evaluate(qrels, [run_], ["P.5"], drill_depth=6).runs[0]
        assert result.drill_down.documents.column("score_text").null_count == len(texts)
        shown = documents.from_kept({"r": result.drill_down}, 6)[0]
        written = {(q, doc[0]): doc[1] for q, runs in shown.items() for doc in runs["r"]}
        assert written == {key: repr(float(text)) for key, text in texts.items()}


def test_a_float32_tie_is_marked_with_the_next_document_shown_or_not(tmp_path):
    # 0.3 ranks above 0.30000001 (one float32: docno decides, descending) and 1e39 beside
    # 3.5e38 (both +inf as float32); the last document shown ties with one not shown
    from trecbench.html_report import documents

    (tmp_path / "q").write_text("t1 0 d1 1\nt2 0 d1 1\n")
    lines = ["t1 Q0 d1 1 1.0 r", "t1 Q0 d2 2 0.30000001 r", "t1 Q0 d3 3 0.3 r",
             "t1 Q0 d4 4 0.25 r", "t1 Q0 d5 5 0.25 r",  # the same double: no mark
             "t2 Q0 d1 1 3.5e38 r", "t2 Q0 d2 2 1e39 r"]  # fmt: skip
    (tmp_path / "t.run").write_text("\n".join(lines) + "\n")
    qrels, run_file = str(tmp_path / "q"), str(tmp_path / "t.run")
    for depth in (2, 5):
        result = evaluate(qrels, [run_file], ["P.5"], drill_depth=depth).runs[0]
        kept = documents.from_kept({"r": result.drill_down}, depth)[0]
        again = documents.drill_down({"r": run_file}, {}, {"r": _qrels_table(qrels)}, depth, {})[0]
        assert kept == again
        marked = {q: [doc[0] for doc in runs["r"] if doc[3:] == [1]] for q, runs in kept.items()}
        assert marked == {"t1": ["d3"], "t2": ["d2"]}
        assert [doc[0] for doc in kept["t1"]["r"]] == ["d1", "d3", "d2", "d5", "d4"][:depth]
