"""``--unjudged-bounds`` reads each run once: the bounds are kept from the pass that scores
the runs (trecbench.evaluation.bounds), not from reading the files again. So a run given
through a pipe or a FIFO has the bounds the same file has, each input is opened as often
as scoring alone opens it, and the kept bounds equal trecbench's own evaluation of the
qrels with the unjudged documents added, built here in plain Python, whole runs and runs
in blocks alike."""

from __future__ import annotations

import json
import os
import re
import threading
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest
from random_cases import random_case
from test_read_once import QRELS, RUNS, _counts, opened  # noqa: F401 - a fixture

from trecbench import evaluate, memory
from trecbench.cli import run
from trecbench.conclusions.unjudged import unjudged_bounds
from trecbench.errors import UsageError
from trecbench.evaluation import EvalSettings
from trecbench.inputs import blocks as run_blocks

MEASURES = ["P.2,5", "ndcg_cut.3", "map", "recip_rank", "num_rel", "gm_map", "num_q"]


def _fifo_of(path: str, folder: Path) -> tuple[str, threading.Thread]:
    """A FIFO named as ``path`` (so its run has the same name), fed ``path``'s bytes."""
    fifo = folder / "pipe" / os.path.basename(path)
    fifo.parent.mkdir()
    os.mkfifo(fifo)
    # a daemon: a call that never opens the FIFO leaves it blocked, not the tests
    writer = threading.Thread(target=lambda: fifo.write_bytes(Path(path).read_bytes()), daemon=True)
    writer.start()
    return str(fifo), writer


@pytest.mark.parametrize("command", ["score", "compare"])
def test_a_run_through_a_fifo_has_the_bounds_of_the_same_file(command, tmp_path, capsys):
    # the bounds read the runs' files again: a pipe or FIFO was refused
    args = [command, "--format", "json", "-m", "P@5", "-m", "nDCG@10", "--unjudged-bounds"]
    fifo, writer = _fifo_of(RUNS[0], tmp_path)
    assert run([*args, QRELS, fifo, RUNS[1]]) == 0
    writer.join()
    piped = json.loads(capsys.readouterr().out)
    assert run([*args, QRELS, *RUNS]) == 0
    filed = json.loads(capsys.readouterr().out)
    if command == "compare":
        piped, filed = piped["unjudged_bounds"]["rows"], filed["unjudged_bounds"]["rows"]
    else:
        piped, filed = piped["unjudged_bounds"], filed["unjudged_bounds"]
    assert len(piped) == 4 and piped == filed
    assert {row["run"] for row in piped} == {"tfidf-word", "tfidf-char"}


def test_score_bounds_of_standard_input_are_those_of_the_file(tmp_path):
    import subprocess
    import sys

    command = [sys.executable, "-m", "trecbench", "score", "--unjudged-bounds", "-m", "P@5"]
    command += ["--format", "json", QRELS]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    piped = subprocess.run(
        [*command, "-"], input=Path(RUNS[0]).read_bytes(), capture_output=True, env=env
    )
    assert piped.returncode == 0, piped.stderr
    (bound,) = json.loads(piped.stdout)["unjudged_bounds"]
    (expected,) = unjudged_bounds(QRELS, [RUNS[0]], ["P@5"])
    assert (bound["low"], bound["high"], bound["unjudged"]) == (
        expected.low,
        expected.high,
        expected.unjudged,
    )


@pytest.mark.parametrize("command", ["score", "compare"])
def test_the_bounds_open_each_input_as_scoring_alone_does(command, opened, capsys):  # noqa: F811
    base = [command, "-m", "P@5", QRELS, *RUNS]
    scoring = _counts(opened, base)
    bounded = _counts(opened, [*base, "--unjudged-bounds"])
    assert bounded == scoring  # each run was read twice, its file opened twice as often
    assert set(bounded[1].values()) == {1}  # each file's content read once
    capsys.readouterr()


@pytest.fixture
def case_files(tmp_path):
    """Seeded runs (float32 ties, scattered topics, topics only one file has, negative
    grades) and their qrels."""
    files = []
    for seed in (3, 11, 17, 23):
        qrels_text, run_text = random_case(seed, n_topics=5, score_style="float32_ties")
        qrels, run_file = tmp_path / f"{seed}.qrels", tmp_path / f"{seed}.run"
        qrels.write_text(qrels_text)
        run_file.write_text(run_text)
        files.append((qrels, run_file))
    return files


def _depth(label: str) -> int | None:
    found = re.search(r"_(\d+)$", label)
    return int(found[1]) if found else None


def _reference(qrels: Path, run_file: Path, options: dict, folder: Path, top=None) -> list:
    """``(measure, low, high, unjudged)`` per column: trecbench scoring the run against
    the qrels as they are (low) and against the qrels with the run's unjudged documents
    (not judged, or at a negative grade)
    within the column's depth (and -M) added at the top grade (``top``: of the qrels) (high),
    written to a file here; the documents ranked in plain Python (float32 score, then
    docno, descending)."""
    judgments = [line.split() for line in qrels.read_text().splitlines()]
    # a negative grade is trec_eval's "in the pool, unjudged": such a document is added
    judged = {(qid, docno) for qid, _, docno, grade in judgments if int(grade) >= 0}
    topics = {qid for qid, *_ in judgments}
    top = max(int(grade) for *_, grade in judgments) if top is None else top
    ranked = defaultdict(list)
    for qid, _, docno, _, score, _ in (line.split() for line in run_file.read_text().splitlines()):
        ranked[qid].append((np.float32(float(score)), docno))
    cut = options.get("max_docs")
    lists = {qid: [d for _, d in sorted(docs, reverse=True)][:cut] for qid, docs in ranked.items()}
    low = evaluate(qrels, run_file, MEASURES, **options)
    rows = []
    for column in low.columns:
        if column.label == "runid":
            continue
        depth = _depth(column.label) if column.label != "num_q" else None
        looked = [(q, d) for q in sorted(lists) if q in topics for d in lists[q][:depth]]
        added = [(q, d) for q, d in looked if (q, d) not in judged]
        completed = folder / f"completed-{depth}.qrels"
        kept = [j for j in judgments if (j[0], j[2]) not in set(added)]  # replaced
        lines = [" ".join(j) for j in kept] + [f"{q} 0 {d} {top}" for q, d in added]
        completed.write_text("\n".join(lines) + "\n")
        high = evaluate(completed, run_file, MEASURES, **options).runs[0].summary[column.label]
        value = float(low.runs[0].summary[column.label])
        rows.append((column.display, value, float(high), len(added) / max(len(looked), 1)))
    return rows


OPTIONS = [{}, {"max_docs": 3, "judged_only": True}, {"relevance_level": 2}, {"complete": True}]


@pytest.mark.parametrize("blocks", [False, True])
@pytest.mark.parametrize("options", OPTIONS)
def test_the_kept_bounds_are_the_completed_qrels_scored(case_files, options, blocks, tmp_path):
    expected = [_reference(qrels, run_file, options, tmp_path) for qrels, run_file in case_files]
    with pytest.MonkeyPatch.context() as patch:
        if blocks:  # blocks of a few lines: the kept parts of many blocks joined
            patch.setattr(memory, "BLOCK_LINES", 7)
            patch.setattr(memory, "READ_BYTES", 300)
            patch.setattr(run_blocks, "READ_BYTES", 300)
        for (qrels, run_file), reference in zip(case_files, expected, strict=True):
            kept = unjudged_bounds(qrels, [run_file], MEASURES, **options)
            assert [(b.measure, b.low, b.high, b.unjudged) for b in kept] == reference


def test_the_bounds_over_given_topics_count_each_topic_as_minus_c_does(case_files, tmp_path):
    # compare's bounds: over its topics, a topic the run lacks scoring 0 (trec_eval -c);
    # the unjudged documents take the top grade of the qrels, whichever topics count
    for qrels, run_file in case_files:
        lines = qrels.read_text().splitlines()
        topics = sorted({line.split()[0] for line in lines})[1:]
        kept = unjudged_bounds(qrels, [run_file], MEASURES, topics=topics)
        part = tmp_path / "part.qrels"
        part.write_text("".join(line + "\n" for line in lines if line.split()[0] in topics))
        top = max(int(line.split()[3]) for line in lines)
        reference = _reference(part, run_file, {"complete": True}, tmp_path, top)
        assert [(b.measure, b.low, b.high, b.unjudged) for b in kept] == reference


def test_the_bounds_are_kept_only_when_asked_and_need_graded_qrels():
    assert evaluate(QRELS, RUNS[0], ["P.5"]).runs[0].unjudged_high is None
    with pytest.raises(UsageError, match="unjudged bounds need graded qrels"):
        EvalSettings(unjudged_bounds=True, rel_format="prefs")
    from trecbench.conclusions.unjudged import evaluation_bounds

    with pytest.raises(UsageError, match="unjudged bounds were not kept"):
        evaluation_bounds(evaluate(QRELS, RUNS[0], ["P.5"]))


def test_the_bounds_table_of_the_bundled_run_is_unchanged(capsys):
    # the figures main printed when the bounds read the run again, each measure named as
    # the scores above the table name it (trec_eval's labels in the trec format)
    args = ["score", "-m", "P@5", "-m", "nDCG@10", "--unjudged-bounds", QRELS, RUNS[1]]
    assert run(args) == 0
    out = capsys.readouterr().out
    assert "tfidf-char  P_5          0.0929       1.0000  90.7%" in out
    assert "tfidf-char  ndcg_cut_10  0.4142       1.0000  94.8%" in out


def test_compare_bounds_of_runs_with_their_own_qrels_are_each_against_its_own(tmp_path):
    # refused before ("give files and one qrels"): each run's bounds are kept as it is
    # scored, against the qrels it is scored with
    from trecbench.comparison import compare
    from trecbench.conclusions.unjudged import with_unjudged_bounds

    own = tmp_path / "own.qrels"  # the shared qrels judging one more of tfidf-char's top
    judged = {tuple(line.split()[::2]) for line in Path(QRELS).read_text().splitlines()}
    qid, docno = next(
        (qid, docno)
        for qid, _, docno, *_ in map(str.split, Path(RUNS[1]).read_text().splitlines())
        if (qid, docno) not in judged
    )
    own.write_text(Path(QRELS).read_text() + f"{qid} 0 {docno} 1\n")
    shared = compare(QRELS, RUNS, ["P@5"], unjudged_bounds=True, samples=100)
    apart = compare(
        QRELS, RUNS, ["P@5"], run_qrels={"tfidf-char": own}, unjudged_bounds=True, samples=100
    )
    alone = compare(str(own), RUNS[1:], ["P@5"], unjudged_bounds=True, samples=100)
    assert apart.queries == shared.queries == alone.queries
    assert apart.unjudged_values[0] == shared.unjudged_values[0]  # tfidf-word: the shared qrels
    assert apart.unjudged_values[1] == alone.unjudged_values[0]  # tfidf-char: its own
    assert apart.unjudged_values[1] != shared.unjudged_values[1]
    bounds = with_unjudged_bounds(apart).unjudged_sensitivity.bounds
    assert [(b.run, b.measure) for b in bounds] == [("tfidf-word", "P@5"), ("tfidf-char", "P@5")]
    with pytest.raises(UsageError, match="kept as the runs are scored"):
        with_unjudged_bounds(compare(QRELS, RUNS, ["P@5"], samples=100))


@pytest.mark.parametrize("grade", [0, 1, 3])
def test_qrels_with_added_rows_equal_qrels_read_with_them(grade):
    """``Qrels.with_rows`` (the bounds' completed judgments, built per block and depth
    from the call's qrels instead of read again: 3x faster on a 383k-line qrels in
    blocks) holds the facts a Qrels built from the same table holds."""
    import pyarrow as pa

    from trecbench.evaluation.judgments import Qrels
    from trecbench.inputs import load

    table = load(str(QRELS), "qrels").table
    qrels = Qrels(table, str(QRELS), 1)
    assert len(qrels.frame) == table.num_rows  # cached: not the new judgments' frame
    n = 5
    known = table.column("qid")[0].as_py()
    extra = {
        "qid": pa.array(
            [known, known, "new-topic", "new-topic", known], table.schema.field("qid").type
        ),
        "docno": pa.array([f"unjudged-{i}" for i in range(n)], table.schema.field("docno").type),
        "rel": pa.array([grade] * n, table.schema.field("rel").type),
        "line": pa.array(
            range(table.num_rows + 1, table.num_rows + 1 + n), table.schema.field("line").type
        ),
    }
    columns = [
        extra.get(
            f.name,
            pa.array(["0"] * n, f.type) if pa.types.is_string(f.type) else pa.nulls(n, f.type),
        )
        for f in table.schema
    ]
    rows = pa.Table.from_arrays(columns, schema=table.schema)
    added, read = (
        qrels.with_rows(rows, grade),
        Qrels(pa.concat_tables([table, rows]), str(QRELS), 1),
    )
    facts = ("topics", "qids", "top_grade", "relevance_level", "positive_judgments", "_duplicates")
    for fact in facts:
        assert getattr(added, fact) == getattr(read, fact), fact
    assert added.table.equals(read.table) and added.frame.equals(read.frame)
    assert qrels.topics != added.topics and "new-topic" not in qrels.topics  # not changed


def test_compare_bounds_are_of_the_compared_measures_only(capsys):
    """``num_q`` is printed by score, not compared (it has no value per topic): compare
    refuses it by name, and its bounds are of the compared measures (num_q was once shown
    and said to "flip"); MAP's could flip is n/a (its ranges do not bound a difference)."""
    args = ["compare", QRELS, *RUNS, "-m", "map", "--unjudged-bounds", "--samples", "100"]
    assert run([*args, "-m", "num_q"]) == 1
    assert "num_q: no value per topic" in capsys.readouterr().err
    assert run(args) == 0
    out = capsys.readouterr().out
    bounds = out[out.index("unjudged sensitivity") :]
    assert "num_q" not in bounds and bounds.count("MAP") == 3  # two runs, one difference
    assert "could flip n/a: the ranges do not bound a difference" in bounds


@pytest.mark.parametrize("command", ["score", "compare"])
def test_bounds_kept_in_worker_processes_are_those_kept_here(command, capsys):
    # --jobs 2 scores each run in a worker process: its bounds come back with its values
    args = [command, "--format", "json", "-m", "P@5", "-m", "map", "--unjudged-bounds"]
    args += [QRELS, *RUNS] + (["--samples", "100"] if command == "compare" else [])
    kept = []
    for jobs in ("1", "2"):
        assert run([*args, "--jobs", jobs]) == 0
        report = json.loads(capsys.readouterr().out)["unjudged_bounds"]
        kept.append(report["rows"] if command == "compare" else report)
    assert len(kept[0]) == 4 and kept[0] == kept[1]
