"""Runs scored in blocks of whole topics (and spilled to disk) give exactly what the whole run
gives: the same per-topic values and summaries, warnings, flagged topics, provenance
records and errors (trecbench.inputs.blocks, trecbench.memory, evaluate's blocks).

Blocks are forced on small seeded cases by making a block a few lines long; a tiny memory
budget makes a run whose topics are scattered go through the spill."""

from __future__ import annotations

import gc
import gzip
import hashlib
import itertools
import os
import sys
import threading
import weakref

import numpy as np
import pyarrow as pa
import pytest
from random_cases import random_case

from trecbench import evaluate, memory
from trecbench.errors import TrecbenchError
from trecbench.inputs import blocks as run_blocks
from trecbench.inputs import parquet as parquet_format
from trecbench.renderers import trec_format

evaluation_module = sys.modules["trecbench.evaluation"]

OPTIONS = [
    {},
    {"complete": True},
    {"max_docs": 3},
    {"judged_only": True},
    {"relevance_level": 2},
    {"complete": True, "max_docs": 5, "judged_only": True},
]


@pytest.fixture
def tiny_blocks(monkeypatch):
    """Blocks of a few lines, tables of a few hundred bytes; counts the blocks scored."""
    monkeypatch.setattr(memory, "BLOCK_LINES", 7)
    monkeypatch.setattr(memory, "READ_BYTES", 300)
    monkeypatch.setattr(run_blocks, "READ_BYTES", 300)  # RunBlocks made without a budget
    scored = []
    original = evaluation_module.score_block

    def counting(table, *args, **kwargs):
        scored.append(table.num_rows)
        return original(table, *args, **kwargs)

    # where the runs' blocks are scored (trecbench.evaluation.runs)
    monkeypatch.setattr(evaluation_module.runs, "score_block", counting)
    return scored


def _whole(monkeypatch, *args, **kwargs):
    with monkeypatch.context() as patch:
        patch.setattr(memory, "BLOCK_LINES", 10**9)
        return evaluate(*args, **kwargs)


def _outcome(call):
    """What an evaluation shows: every printed line (per topic and summary), warnings,
    flagged topics, records, unjudged counts; or the error it raised."""
    try:
        result = call()
    except TrecbenchError as error:
        partial = getattr(error, "partial", None)  # what trec_eval printed before stopping
        printed = None if partial is None else trec_format.render_trec(partial, per_query=True)
        return type(error).__name__, str(error), getattr(error, "exit_code", None), printed
    return (
        trec_format.render_trec(result, per_query=True, summary=True),
        # blocks of a tiny budget hold longer topics: said so (test_memory_budget), else
        # the warnings of the run held whole
        [said for said in result.warnings if "held beyond the budget" not in said],
        result.flagged,
        result.input_records,
        [run.unjudged for run in result.runs],
        [run.runid for run in result.runs],
    )


def _write(tmp_path, qrels_text, run_text, compress=False):
    (tmp_path / "qrels").write_text(qrels_text)
    run = tmp_path / ("run.gz" if compress else "run")
    run.write_bytes(gzip.compress(run_text.encode(), mtime=0) if compress else run_text.encode())
    return str(tmp_path / "qrels"), str(run)


@pytest.mark.parametrize("seed", range(18))
def test_blocks_and_spills_equal_the_whole_run(seed, tmp_path, monkeypatch, tiny_blocks):
    qrels, run = _write(tmp_path, *random_case(7000 + seed, n_topics=6), compress=seed % 9 == 4)
    options = OPTIONS[seed % len(OPTIONS)]
    measures = None if seed % 2 else ["official", "P.3", "ndcg_cut.5"]
    # half of them with a budget so small that scattered topics go through the spill
    budget = 1 if seed % 3 else None
    whole = _outcome(lambda: _whole(monkeypatch, qrels, run, measures, **options))
    tiny_blocks.clear()
    blocked = _outcome(lambda: evaluate(qrels, run, measures, memory=budget, **options))
    assert len(tiny_blocks) > 1 or budget is None  # scattered topics that fit: one block
    assert blocked == whole


def test_contiguous_topics_stream_without_a_spill(tmp_path, monkeypatch, tiny_blocks):
    qrels_text, run_text = random_case(17, n_topics=8, shuffle=False)
    qrels, run = _write(tmp_path, qrels_text, run_text)
    spilled = []
    original = run_blocks.RunBlocks._spilled
    monkeypatch.setattr(
        run_blocks.RunBlocks, "_spilled", lambda *a: spilled.append(1) or original(*a)
    )
    whole = _outcome(lambda: _whole(monkeypatch, qrels, run))
    tiny_blocks.clear()
    assert _outcome(lambda: evaluate(qrels, run, memory=1)) == whole
    assert len(tiny_blocks) > 2 and not spilled


def test_scattered_topics_spill_in_a_tiny_budget(tmp_path, monkeypatch, tiny_blocks):
    qrels, run = _write(tmp_path, *random_case(23, n_topics=8, shuffle=True))
    whole = _outcome(lambda: _whole(monkeypatch, qrels, run))
    iterated = run_blocks.RunBlocks(run, 7, 7)
    rows = 0
    for table in iterated:  # the blocks before a restart are void
        rows = 0 if table is run_blocks.RESTART else rows + table.num_rows
    assert rows == iterated.record["lines"]
    assert iterated.spilled
    assert _outcome(lambda: evaluate(qrels, run, memory=1)) == whole


@pytest.mark.parametrize("seed", range(4))
def test_tie_bounds_in_blocks_equal_the_whole_run(seed, tmp_path, monkeypatch, tiny_blocks):
    qrels, run = _write(tmp_path, *random_case(7100 + seed, n_topics=6, score_style="exact_ties"))
    measures = ["P.3", "map", "ndcg_cut.5", "recip_rank"]
    whole = _whole(monkeypatch, qrels, run, measures, tie_bounds=True)
    blocked = evaluate(qrels, run, measures, tie_bounds=True, memory=1 + seed % 2 * 10**5)
    assert len(tiny_blocks) > 1
    assert blocked.tie_bounds.equals(whole.tie_bounds)
    assert blocked.tie_bounds_per_query.equals(whole.tie_bounds_per_query)


def _lines(rows):
    return "".join(" ".join(map(str, row)) + "\n" for row in rows)


QRELS = _lines([(q, 0, f"d{d}", (d + int(q)) % 3) for q in ("1", "2", "3", "4") for d in range(6)])


@pytest.mark.parametrize(
    "run_rows, qrels_text, why",
    [
        (  # a document twice in topic 3 and in topic 2: trec_eval stops at the first
            [
                (q, "Q0", f"d{d % 5 if q in '23' else d}", d, 10 - d, "t")
                for q in "1234"
                for d in range(6)
            ],
            QRELS,
            "DuplicateError",
        ),
        (  # qrels listing a document twice in an evaluated topic
            [(q, "Q0", f"d{d}", d, 10 - d, "t") for q in "1234" for d in range(6)],
            QRELS + "3 0 d1 1\n",
            "DuplicateError",
        ),
        (  # a topic whose every grade is -2: trec_eval 9.0.8 crashes on it
            [(q, "Q0", f"d{d}", d, 10 - d, "t") for q in "1234" for d in range(6)],
            "".join(
                line.rsplit(" ", 1)[0] + " -2\n" if line.startswith("3 ") else line
                for line in QRELS.splitlines(keepends=True)
            ),
            "UnevaluableTopicError",
        ),
        (  # no topic of the run in the qrels
            [(q, "Q0", f"d{d}", d, 10 - d, "t") for q in "5678" for d in range(6)],
            QRELS,
            "NoOverlapError",
        ),
        (  # a score that is no number, far into the file: the validator's report
            [
                (q, "Q0", f"d{d}", d, "x1" if (q, d) == ("4", 3) else 10 - d, "t")
                for q in "1234"
                for d in range(6)
            ],
            QRELS,
            "ValidationFailed",
        ),
    ],  # fmt: skip
)
def test_errors_in_blocks_are_those_of_the_whole_run(
    run_rows, qrels_text, why, tmp_path, monkeypatch, tiny_blocks
):
    qrels, run = _write(tmp_path, qrels_text, _lines(run_rows))
    whole = _outcome(lambda: _whole(monkeypatch, qrels, run))
    assert whole[0] == why
    if why == "DuplicateError":  # trec_eval printed the topics before the one it stops at
        assert "\t1\t" in whole[3] and "\t3\t" not in whole[3], whole[3]
    assert _outcome(lambda: evaluate(qrels, run)) == whole
    assert _outcome(lambda: evaluate(qrels, run, ["official"], max_docs=4)) == _outcome(
        lambda: _whole(monkeypatch, qrels, run, ["official"], max_docs=4)
    )


def test_a_topic_both_inputs_list_a_document_twice_in_names_the_run(
    tmp_path, monkeypatch, tiny_blocks
):
    # trec_eval checks a topic's retrieved documents before its judgments
    # (form_res_rels.c): 9.0.8 and 10.0 print "form_res_qrels: duplicate docs d1", the
    # run's, where trecbench named the qrels' d2; beyond -M the run's is not seen
    run_rows = [(q, "Q0", f"d{d}", d, 10 - d, "t") for q in "1234" for d in range(6)]
    run_rows[2 * 6 + 5] = ("3", "Q0", "d1", 5, 5, "t")  # topic 3's rank 6: d1 again
    qrels, run = _write(tmp_path, QRELS + "3 0 d2 1\n", _lines(run_rows))
    for call in (lambda: _whole(monkeypatch, qrels, run), lambda: evaluate(qrels, run)):
        with pytest.raises(TrecbenchError, match=r"run:18: duplicate docs d1 for topic 3 "):
            call()
    for call in (
        lambda: _whole(monkeypatch, qrels, run, max_docs=5),
        lambda: evaluate(qrels, run, max_docs=5),
    ):
        with pytest.raises(TrecbenchError, match=r"qrels:25: duplicate docs d2 for topic 3 "):
            call()


def test_irregular_text_is_checked_as_a_whole(tmp_path, monkeypatch, tiny_blocks):
    """Blanks that are not single separators (read by the tokenizer, after the regular
    reader gave up far into the file): the validator's warnings are those of the whole
    file, and every line is scored once."""
    rows = [f"{q} Q0 d{d} {d} {10 - d} t" for q in "1234" for d in range(6)]
    rows[20] = rows[20].replace(" ", "  ", 1) + "  "
    rows[3] += "\r"  # a CRLF line end: a warning of the gate (R24)
    qrels, run = _write(tmp_path, QRELS, "\n".join(rows) + "\n")
    whole = _outcome(lambda: _whole(monkeypatch, qrels, run))
    assert whole[1]  # warnings
    tiny_blocks.clear()
    assert _outcome(lambda: evaluate(qrels, run)) == whole
    assert sum(tiny_blocks) == len(rows)


def test_a_crlf_run_read_in_blocks_is_one_warning_of_all_its_lines(tmp_path, tiny_blocks):
    """The gate fed block by block counts the whole file's lines and CRLF ends."""
    rows = [f"{q} Q0 d{d} {d} {10 - d} t\r\n" for q in "1234" for d in range(6)]
    qrels, run = _write(tmp_path, QRELS, "".join(rows))
    result = evaluate(qrels, run)
    assert len(tiny_blocks) > 1  # read in blocks
    unaffected = "read as LF; scores unaffected; validate --fix normalises them"
    assert result.warnings == [
        f"{run}: warning[R24]: CRLF line ends on all {len(rows)} lines ({unaffected})"
    ]


def test_a_block_may_start_with_a_topic_judged_only_negatively(tmp_path, monkeypatch, tiny_blocks):
    """trec_eval's code (pytrec_eval) cannot start with such a topic: a judged topic goes
    ahead of it in its block, and the values are those of the whole run."""
    qrels_text = _lines([("1", 0, "d1", 1), ("1", 0, "d2", 0), ("2", 0, "d1", -1)])
    qrels_text += _lines([("3", 0, f"d{d}", d % 2) for d in range(4)])
    run_rows = [(q, "Q0", f"d{d}", d, 10 - d, "t") for q in "123" for d in range(8)]
    qrels, run = _write(tmp_path, qrels_text, _lines(run_rows))
    monkeypatch.setattr(memory, "READ_BYTES", 60)  # a table per few lines: a cut per topic
    whole = _outcome(lambda: _whole(monkeypatch, qrels, run, ["official"]))
    assert isinstance(whole[0], str) and "\t2\t" in whole[0]
    tiny_blocks.clear()
    assert _outcome(lambda: evaluate(qrels, run, ["official"])) == whole
    assert len(tiny_blocks) == 3


def test_unused_dictionary_values_are_no_topics():
    """A dictionary-encoded qid column may hold values no row has (a sliced or filtered
    column keeps its dictionary): they are not topics of the run."""
    qids = pa.array(["1", "2", "9"]).dictionary_encode().slice(0, 2)
    run = pa.table({"qid": qids, "docno": ["a", "b"], "score": [1.0, 2.0]})
    result = evaluate({"1": {"a": 1}, "9": {"b": 1}}, run, ["P.1"])
    assert result.runs[0].qids == ["1"]
    assert not [flag for flag in result.flagged if flag.qid == "9" and flag.reason == "run_only"]


def test_budget_sizes_blocks():
    budget = memory.Budget(512, qrels_lines=1000)
    assert memory.FEWEST_BLOCK_LINES <= budget.block_lines <= memory.BLOCK_LINES
    assert budget.whole_lines >= budget.block_lines
    shared = memory.Budget(512, qrels_lines=1000, workers=4)
    assert shared.block_lines < budget.block_lines
    assert memory.Budget(1).block_lines == memory.FEWEST_BLOCK_LINES
    assert memory.default_mib() >= memory.SMALLEST_BUDGET_MIB
    assert np.isscalar(budget.free_bytes)


def test_most_qrels_lines_bounds_a_plain_file_only(tmp_path):
    text = tmp_path / "qrels"
    text.write_text("1 0 d 1\n1 0 e 0\n2 0 d 1")  # the last line without its newline
    assert memory.most_qrels_lines(text) >= 3
    assert memory.most_qrels_lines(str(text)) == memory.most_qrels_lines(text)
    packed = tmp_path / "qrels.gz"
    packed.write_bytes(gzip.compress(text.read_bytes()))
    for other in (packed, tmp_path / "missing", tmp_path, {"1": {"d": 1}}, "irds:x/y"):
        assert memory.most_qrels_lines(other) is None


def _prefetching() -> list:
    return [t for t in threading.enumerate() if t.name == "trecbench-prefetch" and t.is_alive()]


def test_a_run_in_blocks_is_read_while_the_qrels_load(tmp_path, monkeypatch, tiny_blocks):
    """The run's first blocks are read meanwhile: the qrels wait here for the run's
    reading to start (before, it started once they were loaded: this waited in vain)."""
    qrels_text, run_text = random_case(3)
    qrels, run = _write(tmp_path, qrels_text, run_text)
    reading = threading.Event()

    def progress(label, done, total):
        if label == f"reading {run}" and done:
            reading.set()

    load_judgments = evaluation_module.load_judgments

    def waiting(*args, **kwargs):
        assert reading.wait(10)
        return load_judgments(*args, **kwargs)

    whole = _outcome(lambda: _whole(monkeypatch, qrels, run, ["official"]))
    monkeypatch.setattr(evaluation_module, "load_judgments", waiting)
    assert _outcome(lambda: evaluate(qrels, run, ["official"], progress=progress)) == whole
    assert tiny_blocks and not _prefetching()


def test_a_small_budget_reads_less_at_a_time_and_after_the_qrels(tmp_path):
    """The tables being parsed are held besides the blocks: a small budget reads less text
    at a time, and waits for the qrels (whose size decides its blocks) before reading."""
    assert memory.Budget(100_000).read_bytes == memory.READ_BYTES
    assert memory.FEWEST_READ_BYTES < memory.Budget(300).read_bytes < memory.READ_BYTES
    assert memory.Budget(1).read_bytes == memory.FEWEST_READ_BYTES
    qrels, run = _write(tmp_path, *random_case(5))
    assert evaluation_module._blocks_ahead(run, qrels, memory.Budget(200), None) is None
    ahead = evaluation_module._blocks_ahead(run, qrels, memory.Budget(100_000), None)
    assert ahead.blocks.read_bytes == memory.READ_BYTES
    ahead.tables.close()
    assert not _prefetching()


@pytest.mark.parametrize(
    "bad", [{"qrels": True}, {"relevance_level": 0}, {"num_docs": 2**64}], ids=str
)
def test_a_failing_call_leaves_no_run_read_ahead(tmp_path, monkeypatch, tiny_blocks, bad):
    qrels_text, run_text = random_case(4)
    qrels, run = _write(tmp_path, ("1 0 d\n" if "qrels" in bad else "") + qrels_text, run_text)
    options = {key: value for key, value in bad.items() if key != "qrels"}
    with pytest.raises(TrecbenchError):
        evaluate(qrels, run, ["official"], **options)
    assert not tiny_blocks and not _prefetching()  # nothing scored, nothing left reading


def test_a_failing_call_stops_reading_a_scattered_run_at_once(tmp_path, monkeypatch, tiny_blocks):
    """A run whose topics are scattered is read whole (or spilled) before its first block:
    the qrels failing meanwhile stop that reading at its next table, not at its end."""
    import time

    from trecbench.errors import InputError

    qrels_text, run_text = random_case(6, n_topics=8, shuffle=True)
    qrels, run = _write(tmp_path, qrels_text, run_text)
    lines = []
    described = run_blocks._described

    def counting(table):
        lines.append(table.num_rows)
        return described(table)

    def failing(*args, **kwargs):
        deadline = time.monotonic() + 10
        while not lines and time.monotonic() < deadline:
            time.sleep(0.001)
        raise InputError(qrels, 1, "bad qrels")

    monkeypatch.setattr(run_blocks, "_described", counting)
    monkeypatch.setattr(evaluation_module, "load_judgments", failing)
    with pytest.raises(InputError, match="bad qrels"):
        evaluate(qrels, run, ["P.5"])
    assert 0 < sum(lines) < len(run_text.splitlines()) / 2 and not _prefetching()


def test_a_reading_started_takes_the_room_the_qrels_leave(tmp_path, monkeypatch):
    """Started under a bound on the qrels, the reading of a run with scattered topics
    holds it whole, not spilled, once told the budget's room (RunBlocks.resize)."""
    qrels_text, run_text = random_case(6, n_topics=8, shuffle=True)
    _, run = _write(tmp_path, qrels_text, run_text)
    blocks = run_blocks.RunBlocks(run, 7, 7, spill_dir=tmp_path)
    blocks.resize(10**6, 10**6)
    assert [t.num_rows for t in blocks if t is not None] == [len(run_text.splitlines())]
    assert not blocks.spilled
    resized = []
    monkeypatch.setattr(run_blocks.RunBlocks, "resize", lambda self, *sizes: resized.append(sizes))
    monkeypatch.setattr(memory, "BLOCK_LINES", 7)
    qrels, run = _write(tmp_path, *random_case(3))
    evaluate(qrels, run, ["P.5"], memory=4096)
    budget = memory.Budget(4096).with_qrels(len(open(qrels).read().splitlines()))
    assert resized == [(budget.whole_lines, budget.spill_lines)]


def test_a_parquet_run_longer_than_a_block_is_scored_in_blocks(tmp_path, monkeypatch, tiny_blocks):
    """A Parquet file is far smaller than its text: its rows are told by its footer, not
    guessed from its size (which would have it read whole)."""
    import pandas as pd

    import trecbench

    n = 3000
    frame = pd.DataFrame(
        {
            "qid": [str(i // 1000) for i in range(n)],
            "docno": [f"d{i % 1000}" for i in range(n)],
            "score": [float(-(i % 1000)) for i in range(n)],
        }
    )
    run = tmp_path / "run.parquet"
    trecbench.write_run(frame, run)
    (tmp_path / "qrels").write_text(
        _lines([(q, 0, f"d{d}", d % 2) for q in "012" for d in range(9)])
    )
    qrels = str(tmp_path / "qrels")
    monkeypatch.setattr(memory, "BLOCK_LINES", 2000)
    guessed = run.stat().st_size * memory.COMPRESSION_RATIO // memory.TEXT_BYTES_PER_LINE
    assert guessed < memory.BLOCK_LINES < n  # its size alone would have it read whole
    assert memory.Budget(1).in_blocks(run)
    whole = _outcome(lambda: _whole(monkeypatch, qrels, str(run), ["official"]))
    tiny_blocks.clear()
    assert _outcome(lambda: evaluate(qrels, str(run), ["official"], memory=1)) == whole
    assert tiny_blocks == [2000, 1000]
    (tmp_path / "broken.parquet").write_bytes(b"PAR1" + b"x" * 100)
    assert not memory.Budget(1).in_blocks(tmp_path / "broken.parquet")  # its reader says why


# --- several runs in worker processes


def _runs(tmp_path, count=3, seed=40):
    paths = []
    qrels = None
    for index in range(count):
        qrels_text, run_text = random_case(seed, n_topics=5)
        if qrels is None:
            qrels = tmp_path / "qrels"
            qrels.write_text(qrels_text)
        rows = run_text.splitlines()
        np.random.default_rng(index).shuffle(rows)  # another system: other scores and order
        path = tmp_path / f"run{index}.txt"
        path.write_text("\n".join(rows) + "\n")
        paths.append(str(path))
    return str(qrels), paths


def test_runs_scored_in_processes_equal_one_process(tmp_path, monkeypatch):
    qrels, runs = _runs(tmp_path)
    for options in ({}, {"complete": True, "max_docs": 4}, {"tie_bounds": True}):
        alone = _outcome(lambda options=options: evaluate(qrels, runs, jobs=1, **options))
        spread = _outcome(lambda options=options: evaluate(qrels, runs, jobs=2, **options))
        assert spread == alone
    # in blocks too, each worker with its share of the budget
    monkeypatch.setattr(memory, "BLOCK_LINES", 7)
    assert _outcome(lambda: evaluate(qrels, runs, jobs=2, memory=1)) == alone


def test_worker_processes_take_checksums_as_this_process_does(tmp_path, monkeypatch):
    """Spawned (as where fork is missing), they do not inherit this thread's context."""
    import multiprocessing

    from trecbench import processes, provenance

    monkeypatch.setattr(processes, "_context", lambda: multiprocessing.get_context("spawn"))
    qrels, runs = _runs(tmp_path)
    with provenance.taking_checksums(False):  # as `score` without --report or --manifest
        skipped = evaluate(qrels, runs, ["P.5"], jobs=2)
    assert [run.record["sha256"] for run in skipped.runs] == [None] * len(runs)
    taken = evaluate(qrels, runs, ["P.5"], jobs=2)
    assert [run.record["sha256"] for run in taken.runs] == [
        hashlib.sha256(open(run, "rb").read()).hexdigest() for run in runs
    ]
    assert [run.record["size"] for run in skipped.runs] == [
        run.record["size"] for run in taken.runs
    ]


def test_an_error_in_a_worker_is_the_one_process_error(tmp_path):
    qrels, runs = _runs(tmp_path)
    text = open(runs[1]).read().splitlines()
    open(runs[1], "w").write("\n".join([*text, text[0]]) + "\n")  # a document twice
    alone = _outcome(lambda: evaluate(qrels, runs, jobs=1))
    assert alone[0] == "DuplicateError"
    assert _outcome(lambda: evaluate(qrels, runs, jobs=3)) == alone


def test_small_runs_stay_in_this_process(tmp_path):
    qrels, runs = _runs(tmp_path)
    assert evaluation_module._workers(None, runs) == 1
    assert evaluation_module._workers(2, runs) == 2
    assert evaluation_module._workers(8, runs) == 3
    assert evaluation_module._workers(2, [runs[0], {"q": {"d": 1.0}}]) == 1


def test_validate_keeps_its_findings_with_keys_on_disk(tmp_path):
    """The duplicate check's keys beyond the budget are mapped from a temporary file: the
    findings (documents repeated in a topic that comes back) are the same."""
    from trecbench.validation import validate_run

    rows = [f"{q} Q0 d{d} {d} {10 - d} t" for q in "1234" for d in range(30)]
    rows += [f"2 Q0 d{d} {d} 1 t" for d in (3, 40)] + ["1 Q0 d7 1 1 t"]
    (tmp_path / "run").write_text("\n".join(rows) + "\n")
    found = [
        validate_run(tmp_path / "run", chunk_bytes=200, memory=budget).findings
        for budget in (None, 1)
    ]
    assert found[0] == found[1]
    assert sum(f.rule == "R7" for f in found[0]) == 2


def _rows(qids, docs, tag="runtag_abcdef"):
    return [(q, "Q0", d, i, 10 - i, tag) for q in qids for i, d in enumerate(docs)]


# Found by an adversarial review: where the blocks once differed from the whole run.
# (qrels rows, run rows, measures, options, lines per block, bytes read at a time)
REVIEWED = {
    # trec_eval stops at the first topic (sorted) with a duplicate, not the first in the file
    "duplicate of the first topic": (
        [(q, 0, f"d{d}", d % 2) for q in "12" for d in range(4)],
        _rows("2", ["d0", "d1", "d0", "d2"], "t") + _rows("1", ["d1", "d2", "d1", "d3"], "t"),
        ["P.2", "map"], {}, 2, 40,
    ),
    # blocks yielded before a topic came back are void (the run follows again from its start)
    "topic back after a block": (
        [("1", 0, "doc0", 1), ("1", 0, "doc1", 0), ("2", 0, "doc0", 1)],
        [("1", "Q0", "doc0", 0, 2, "runtag"), ("2", "Q0", "doc0", 0, 2, "runtag"),
         ("1", "Q0", "doc1", 1, 1, "runtag")],
        ["P.2", "num_ret"], {}, 1, 20,
    ),
    # -D 0.qid evaluates one topic: the run is read whole
    "debug query": (
        [(q, 0, f"d{d}", (d + int(q)) % 3) for q in "1234" for d in range(6)],
        _rows("1234", [f"d{d}" for d in range(6)], "t"),
        ["P.5"], {"debug_level": 0, "debug_query": "2"}, 7, 300,
    ),
    # an engine's refusal in a later block (grade 5 for ERR)
    "engine error in a later block": (
        [("1", 0, f"d{d}", d % 2) for d in range(4)] + [("2", 0, f"d{d}", d) for d in range(6)],
        _rows("12", [f"d{d}" for d in range(4)], "t"),
        ["ERR@5"], {}, 2, 40,
    ),
    # the lead topic (judged, sorting first) goes ahead for trec_eval's code only
    "lead topic's grades": (
        [("0", 0, f"d{d}", d) for d in range(6)] + [("1", 0, f"d{d}", d % 2) for d in range(4)]
        + [("2", 0, "d1", -1)],
        _rows("12", [f"d{d}" for d in range(4)], "t"),
        ["ERR@5"], {}, 2, 40,
    ),
    # an engine error on a topic before trec_eval's stop comes first
    "engine error before the stop": (
        [("1", 0, f"d{d}", d) for d in range(6)] + [("2", 0, f"d{d}", d % 2) for d in range(4)]
        + [("2", 0, "d1", 1)],
        _rows("12", [f"d{d}" for d in range(4)], "t"),
        ["ERR@5"], {}, 2, 40,
    ),
    # trec_eval stops at the first topic before any engine runs
    "stop before any engine": (
        [("1", 0, "d0", -1), ("1", 0, "d1", -1), ("2", 0, "d0", 0), ("2", 0, "d1", 0)],
        _rows("12", ["d0", "d1", "d2"]),
        ["SDCG@5"], {}, 2, 80,
    ),
    "diversity measure and a qrels duplicate": (
        [("1", 0, "d0", 1), ("1", 0, "d1", 0), ("2", 0, "d0", 1), ("2", 0, "d1", 0),
         ("2", 0, "d0", 1)],
        _rows("12", ["d0", "d1", "d2"]),
        ["alpha_nDCG@5", "P.2"], {}, 2, 80,
    ),
    # -J leaves a block without a document
    "judged only, a block emptied": (
        [("1", 0, "d0", 1), ("1", 0, "d1", 0), ("2", 0, "d0", 1)],
        _rows("1", ["d0", "d1", "d2"]) + _rows("2", ["x0", "x1", "x2"]),
        ["SDCG@5"], {"judged_only": True}, 2, 80,
    ),
}  # fmt: skip


@pytest.mark.parametrize("case", REVIEWED)
def test_reviewed_cases_equal_the_whole_run(case, tmp_path, monkeypatch):
    qrels_rows, run_rows, measures, options, block_lines, read_bytes = REVIEWED[case]
    qrels, run = _write(tmp_path, _lines(qrels_rows), _lines(run_rows))
    whole = _outcome(lambda: _whole(monkeypatch, qrels, run, measures, **options))
    monkeypatch.setattr(memory, "BLOCK_LINES", block_lines)
    monkeypatch.setattr(memory, "READ_BYTES", read_bytes)
    assert _outcome(lambda: evaluate(qrels, run, measures, **options)) == whole


def _regular_tables(path, block_size):
    from trecbench.inputs import trec_text
    from trecbench.inputs.streams import Source

    tables = []
    with Source(path) as source:
        try:
            for table in trec_text.iter_regular_run(source, block_size):
                tables.append(table)
        except trec_text.Irregular:
            return tables, True
    return tables, False


def test_streamed_reader_takes_lines_longer_than_its_blocks(tmp_path):
    """A docno of 50 blocks is read as one line (read sizes double), every row in order."""
    rows = [f"{t} Q0 d{t}-{i} {i + 1} {100 - i} tag" for t in range(3) for i in range(40)]
    rows.insert(50, "1 Q0 " + "x" * 50 * 256 + " 99 0.5 tag")
    path = tmp_path / "long.run"
    path.write_text("\n".join(rows))  # no newline after the last line
    tables, irregular = _regular_tables(path, 256)
    assert not irregular and len(tables) > 3
    docnos = pa.concat_tables(tables).column("docno").to_pylist()
    assert docnos == [row.split(" ")[2] for row in rows]


def test_streamed_reader_parses_the_first_read_on_its_own(tmp_path):
    """The whole lines of the first read (which chose the separator, and were checked with
    it) are parsed at once, not with the next read: the first table holds a read's lines,
    not two reads'."""
    rows = [f"q{q} Q0 d{d} {d} 1.5 t" for q in range(20) for d in range(50)]
    text = "\n".join(rows) + "\n"
    path = tmp_path / "run"
    path.write_text(text)
    tables, irregular = _regular_tables(path, 1000)
    assert not irregular and tables[0].num_rows == text[:1000].count("\n")
    assert pa.concat_tables(tables).column("docno").to_pylist() == [r.split()[2] for r in rows]


def test_streamed_reader_stops_at_the_first_irregular_block_after_the_lines_before(tmp_path):
    """A doubled separator far into the file: the tables that came hold exactly the lines
    before its block, in order (the tokenizer takes over after them)."""
    rows = [f"{t} Q0 d{i} {i + 1} {100 - i} tag" for t in range(30) for i in range(20)]
    rows[500] = rows[500].replace(" Q0", "  Q0")
    path = tmp_path / "doubled.run"
    path.write_text("\n".join(rows) + "\n")
    tables, irregular = _regular_tables(path, 256)
    assert irregular
    came = pa.concat_tables(tables).column("docno").to_pylist() if tables else []
    assert 300 < len(came) <= 500
    assert came == [row.split(" ")[2] for row in rows[: len(came)]]


@pytest.mark.parametrize("bad", ["\tQ0", " Q0\r", " Q\u00e90", " Q0\x00"])
def test_irregular_bytes_found_while_reading_come_after_the_tables_before(bad, tmp_path):
    """Irregular bytes seen by the reading thread (another separator, CR, non-ASCII, NUL)
    raise only after the tables of every block before theirs came, like an irregular line
    found by the parser."""
    rows = [f"{t} Q0 d{i} {i + 1} {100 - i} tag" for t in range(30) for i in range(20)]
    rows[500] = rows[500].replace(" Q0", bad)
    path = tmp_path / "bad.run"
    path.write_bytes(("\n".join(rows) + "\n").encode())
    tables, irregular = _regular_tables(path, 256)
    assert irregular
    came = sum(table.num_rows for table in tables)
    # the block holding line 501 starts at most one block (256 bytes) before it
    assert 500 - 256 // min(len(row) + 1 for row in rows) <= came <= 500


def test_a_byte_order_mark_starting_a_read_stays_in_its_qid(tmp_path, monkeypatch, tiny_blocks):
    """The streamed reader gives up at the BOM's read and the tokenizer takes over, in
    reads of the same size: the BOM starts one, which Arrow's CSV reader dropped."""
    regular = "".join(f"q1 Q0 d{i} {i + 1} {30 - i} t\n" for i in range(30))
    qrels, run = _write(tmp_path, "q2 0 d1 1\nq2 0 d2 0\n", regular + "\ufeffq2 Q0 d1 1 10 t\n"
                        "q2 Q0 d2 2 5 t\n")  # fmt: skip
    for module in (memory, run_blocks):
        monkeypatch.setattr(module, "READ_BYTES", len(regular))
    result = evaluate(qrels, run, ["num_ret", "P.1"], memory=1)
    assert len(tiny_blocks) > 1  # scored in blocks
    # trec_eval 9.0.8 (and 10.0), -q -m num_ret -m P.1: the BOM's line is topic \ufeffq2,
    # not in the qrels; q2 holds d2 alone
    assert trec_format.render_trec(result, per_query=True, summary=True) == (
        "num_ret               \tq2\t1\nP_1                   \tq2\t0.0000\n"
        "num_ret               \tall\t1\nP_1                   \tall\t0.0000\n"
    )


_CONTROL = (
    "line: warning[R23]: C0 control character or DEL (invisible, and part of its field to "
    "trec_eval)"
)


@pytest.mark.parametrize(
    ("last", "warning"),
    [
        ("q1 Q0 x\x01 31 0.5 t\n", f"31:{_CONTROL}"),  # a control byte
        ("q1 Q0 x\x7f 31 0.5 t\n", f"31:{_CONTROL}"),  # DEL
        (
            "#1 Q0 x 31 0.5 t\n",
            "31:line: warning[R22]: comment line: trec_eval 9.x reads it as a document of "
            "topic #1, 10.0 skips it",
        ),
        (
            "q1 Q0 x 31 0.5 t y\n",
            "31:tag: warning[R1]: 7 fields: trec_eval ignores everything after the 6th (a "
            "tag with a space?)",
        ),
    ],
)
def test_the_gate_warns_of_a_regular_looking_run_in_blocks(tmp_path, tiny_blocks, last, warning):
    """What score's gate warns of makes a read irregular: the tokenizer takes over, and
    the gate says it, as it does of the run read whole."""
    regular = "".join(f"q{i // 5} Q0 d{i} {i + 1} {30 - i} t\n" for i in range(30))
    qrels, run = _write(tmp_path, "q1 0 d1 1\n", regular + last.replace("q1", "q5"))
    result = evaluate(qrels, run, ["P.1"], memory=1)
    assert len(tiny_blocks) > 1  # scored in blocks
    assert [w for w in result.warnings if "warning[" in w] == [f"{run}:{warning}"]


def test_a_spill_into_more_than_1024_partitions(tmp_path):
    """Many topics, scattered, in blocks of one line: a table read is spilled into more
    partitions than Arrow's default limit (1024); the blocks hold every line once, each
    topic whole, as the run read whole does."""
    topics = 1200
    rows = [f"q{q} Q0 d{d} {d} {10 - d} t" for d in range(2) for q in range(topics)]
    run = tmp_path / "run"
    run.write_text("\n".join(rows) + "\n")
    read_whole = run_blocks.RunBlocks(run, 10**6, 10**6)
    whole = [table for table in read_whole if table is not run_blocks.RESTART]
    assert len(whole) == 1 and not read_whole.spilled
    iterated = run_blocks.RunBlocks(run, 1, 1, spill_dir=tmp_path)
    blocks = []
    for table in iterated:  # the blocks before a restart are void
        blocks = [] if table is run_blocks.RESTART else [*blocks, table]
    assert iterated.spilled and len(blocks) > 1024
    assert sum(len(set(block.column("qid").to_pylist())) for block in blocks) == topics
    assert pa.concat_tables(blocks).sort_by("line").equals(whole[0])
    assert iterated.record == read_whole.record


def test_tie_bounds_with_a_duplicate_beyond_the_cut(tmp_path, monkeypatch, tiny_blocks):
    """A document listed twice in a tie group that straddles -M: in trec_eval's order the
    second listing is beyond the cut (no duplicate error), in the best order both are
    within it. The extreme orders are scored without the run's checks, whole or in
    blocks: the run is scored as trec_eval scores it, with the same bounds."""
    # topic 1 in trec_eval's order (ties by docno descending): d1, d3, d2, d2
    run_rows = [("1", "Q0", "d1", 1, 3, "t")]
    run_rows += [("1", "Q0", docno, 2, 1, "t") for docno in ("d2", "d3", "d2")]
    run_rows += [(q, "Q0", f"d{d}", d, 10 - d, "t") for q in "234" for d in range(6)]
    qrels, run = _write(tmp_path, QRELS, _lines(run_rows))
    measures = ["P.3", "map", "num_rel_ret"]
    options = {"max_docs": 3, "tie_bounds": True}
    reported = _outcome(lambda: _whole(monkeypatch, qrels, run, measures, max_docs=3))
    whole = _whole(monkeypatch, qrels, run, measures, **options)
    tiny_blocks.clear()
    blocked = evaluate(qrels, run, measures, **options)
    assert len(tiny_blocks) > 1
    assert _outcome(lambda: whole) == _outcome(lambda: blocked) == reported
    assert (whole.tie_bounds["low"] < whole.tie_bounds["high"]).all()  # topic 1's ties count
    assert blocked.tie_bounds.equals(whole.tie_bounds)
    assert blocked.tie_bounds_per_query.equals(whole.tie_bounds_per_query)


def test_a_spill_lets_go_of_the_tables_read_before_it(tmp_path, monkeypatch):
    """The tables held while a scattered run might still fit in memory are written to the
    spill and let go: none is alive while the spill is read back (they were: 8M lines of a
    10M-line run, a third of the peak memory under --memory 1024)."""
    monkeypatch.setattr(run_blocks, "READ_BYTES", 300)
    qrels, run = _write(tmp_path, *random_case(23, n_topics=8, shuffle=True))
    alive = []
    spilled = run_blocks.RunBlocks._spilled

    def tracking(self, tables, lines):
        written = []

        def noted():
            for table in tables:
                written.append(weakref.ref(table))
                yield table

        for block in spilled(self, noted(), lines):
            gc.collect()
            alive.append(sum(ref() is not None for ref in written))
            yield block

    monkeypatch.setattr(run_blocks.RunBlocks, "_spilled", tracking)
    iterated = run_blocks.RunBlocks(run, 7, 40)
    list(iterated)
    assert iterated.spilled and alive and not any(alive)


def test_spilled_blocks_hold_at_most_the_lines_asked(tmp_path):
    """Partitions read back are gathered up to the block's lines, never beyond (a block
    only larger when one partition is): blocks of 1.5 times the lines asked broke the
    budget."""
    rows = [f"q{q} Q0 d{d} {d} {10 - d} t" for d in range(5) for q in range(200)]
    run = tmp_path / "run"
    run.write_text("\n".join(rows) + "\n")
    iterated = run_blocks.RunBlocks(run, 50, 10, spill_dir=tmp_path)
    blocks = []
    for table in iterated:  # the blocks before a restart are void
        blocks = [] if table is run_blocks.RESTART else [*blocks, table]
    assert iterated.spilled and sum(block.num_rows for block in blocks) == 1000
    assert max(block.num_rows for block in blocks) <= 50 < 2 * min(b.num_rows for b in blocks[:-1])


def test_the_first_block_and_those_near_the_end_of_a_file_are_a_table_each(tmp_path):
    """Scoring starts once the first table is read (the first block is cut there), and
    the last block is scored once the file is read, on one core: once fewer than a block's
    lines are left to come, a block is cut at every table read (a table's lines, not a
    block's, are left at the end). The blocks hold the file's lines in order."""
    rows = [f"q{q:03} Q0 d{d} {d} {100 - d} t" for q in range(300) for d in range(20)]
    run = tmp_path / "run"
    run.write_text("\n".join(rows) + "\n")
    iterated = run_blocks.RunBlocks(run, 1000, 10**6, read_bytes=4096)
    blocks = list(iterated)
    sizes = [block.num_rows for block in blocks]
    assert sum(sizes) == len(rows) and sizes[0] < 1000 <= sizes[1]
    assert sum(size < 1000 for size in sizes[1:-1]) > 3  # before: only the last one
    docnos = [docno for block in blocks for docno in block.column("docno").to_pylist()]
    assert docnos == [row.split()[2] for row in rows]


@pytest.mark.parametrize(
    ("topics", "count"), [([3, 40, 7, 120, 1, 1, 2, 300, 90], 100), ([1], 400), ([1200], 6)]
)
def test_described_blocks_tell_the_stretches_scoring_would_find(topics, count, tmp_path):
    """Each block comes with where its topics start and their qids, told by the tables
    read (ranking.topic_codes then compares no neighbours): equal to what comparing the
    block's neighbours finds, topics cut between tables and blocks included."""
    from trecbench import arrow

    lengths = itertools.cycle(topics)
    rows = [f"t{q % 7}{q} Q0 d{d} {d} 1 t" for q in range(count) for d in range(next(lengths))]
    run = tmp_path / "run"
    run.write_text("\n".join(rows) + "\n")
    blocks = list(run_blocks.RunBlocks(run, 500, 10**6, read_bytes=1000).described())
    assert sum(block.table.num_rows for block in blocks) == len(rows) and len(blocks) > 3
    for block in blocks:
        starts, qids = block.stretches
        found_starts, found_qids = arrow.stretches(block.table.column("qid"))
        assert starts.tolist() == found_starts.tolist() and qids == found_qids.to_pylist()


def test_blocks_read_for_scoring_come_with_their_docnos_hashed(tmp_path):
    """The thread reading ahead hashes each block's docnos (scoring's duplicate check and
    judgment lookup then hash none): the hashes of the block's own rows, in order."""
    from trecbench.gated.reading import _hashed
    from trecbench.hash_index import string_hash

    rows = [f"q{q} Q0 d{(q * 7 + d) % 50} {d} 1 t" for q in range(30) for d in range(40)]
    run = tmp_path / "run"
    run.write_text("\n".join(rows) + "\n")
    described = run_blocks.RunBlocks(run, 500, 10**6, read_bytes=1000).described()
    blocks = list(_hashed(described))
    assert len(blocks) > 2 and sum(len(b.docno_hashes) for b in blocks) == len(rows)
    for block in blocks:
        expected = string_hash(block.table.column("docno"))
        assert block.docno_hashes.tolist() == expected.tolist()


_RANKED = [("q1", f"d{i}", 1.0 / (i + 1)) for i in range(20)]


@pytest.mark.parametrize(
    ("rows", "said"),
    [
        (_RANKED + [("q2", "d0", float("nan"))], "row 21: score nan is not finite"),
        (
            _RANKED + [("q2", "d0", 2.0)] * 2,
            "row 22: duplicate docs d0 for topic q2 (first at row 21)",
        ),
        # topics scattered: spilled to disk, the rows cited all the same
        (
            [("q2", "d0", 2.0), *_RANKED, ("q2", "d0", 2.0)],
            "row 22: duplicate docs d0 for topic q2 (first at row 1)",
        ),
    ],
    ids=["nan score", "duplicate", "duplicate spilled"],
)
def test_a_parquet_run_in_blocks_names_rows_as_read_whole(rows, said, tmp_path, monkeypatch):
    """A Parquet run is read in batches; its errors name the row in the file, as when it
    is read whole (they were counted from each batch's start). A duplicate named it as a
    line (`run.parquet:22: ... (first on line 21)`) where the others say `row 21`."""
    import pyarrow.parquet as pq

    qid, docno, score = zip(*rows, strict=True)
    run = tmp_path / "run.parquet"
    pq.write_table(pa.table({"qid": qid, "docno": docno, "score": score}), run)
    (tmp_path / "qrels").write_text("q1 0 d1 1\nq2 0 d0 1\n")
    qrels = str(tmp_path / "qrels")
    whole = _outcome(lambda: _whole(monkeypatch, qrels, str(run)))
    assert whole[1] == f"{run}: {said}"
    monkeypatch.setattr(memory, "BLOCK_LINES", 7)
    monkeypatch.setattr(memory, "FEWEST_BLOCK_LINES", 7)
    monkeypatch.setattr(parquet_format, "BATCH_ROWS", 6)  # batches of 6 rows
    spilled = []
    original = run_blocks.RunBlocks._spilled
    monkeypatch.setattr(
        run_blocks.RunBlocks, "_spilled", lambda *a: spilled.append(1) or original(*a)
    )
    assert _outcome(lambda: evaluate(qrels, str(run), memory=1)) == whole
    assert bool(spilled) == (rows[0] == rows[-1])  # the scattered topics went through a spill


@pytest.mark.parametrize("name", ["SIGTERM", "SIGHUP"])
def test_a_signal_while_a_run_is_spilled_removes_the_spill(tmp_path, name):
    """SIGTERM or SIGHUP during a spill ended the process at once, and the spill folder
    (hundreds of MB for a 10M-line run) stayed in TMPDIR for good; SIGINT removed it.
    Now the command ends as for SIGINT, its cleanup run (exit 128 + signal)."""
    import signal
    import subprocess
    import textwrap

    qrels, run = _write(tmp_path, *random_case(23, n_topics=8, shuffle=True))
    spill = tmp_path / "tmp"
    spill.mkdir()
    script = textwrap.dedent(
        f"""
        import sys, time
        import pyarrow.dataset as ds
        from trecbench import memory
        from trecbench.cli import run
        from trecbench.inputs import blocks

        memory.BLOCK_LINES, memory.READ_BYTES, blocks.READ_BYTES = 7, 300, 300
        written = ds.write_dataset

        def write_then_wait(*args, **kwargs):  # the spill folder is there: say so, wait
            written(*args, **kwargs)
            print("spilled", flush=True)
            for _ in range(300):
                time.sleep(0.01)

        ds.write_dataset = write_then_wait
        sys.exit(run(["score", "--memory", "1", {qrels!r}, {run!r}]))
        """
    )
    env = {**os.environ, "TMPDIR": str(spill)}
    child = subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
    )
    assert child.stdout.readline() == b"spilled\n"
    assert [p.name.startswith("trecbench-spill-") for p in spill.iterdir()] == [True]
    child.send_signal(getattr(signal, name))
    assert child.wait(timeout=60) == 128 + getattr(signal, name)
    assert list(spill.iterdir()) == []


@pytest.mark.parametrize("scattered", [False, True])
def test_ids_read_from_integers_stay_marked_in_blocks(tmp_path, tiny_blocks, scattered):
    """A Parquet run of integer docnos beside qrels of '0000' is refused, whole or in
    blocks: the blocks were rebuilt without the mark of ids read from integers (and a
    spill dropped it too), so the refusal never came and the run scored 0 (reviewer 184)."""
    import pyarrow.parquet as pq

    from trecbench.inputs.tables import integer_ids

    order = [(t, k) for k in range(20) for t in range(4)] if scattered else None
    order = order or [(t, k) for t in range(4) for k in range(20)]
    table = pa.table(
        {
            "qid": [f"q{t}" for t, _ in order],
            "docno": pa.array([k for _, k in order], pa.int64()),
            "score": [float(20 - k) for _, k in order],
        }
    )
    run = tmp_path / "run.parquet"
    pq.write_table(table, run)
    qrels = tmp_path / "qrels"
    qrels.write_text("".join(f"q{t} 0 {k:04d} 1\n" for t in range(4) for k in (0, 5)))
    blocks = run_blocks.RunBlocks(run, 7, 7, spill_dir=tmp_path)
    tables = [t for t in blocks if t is not None and t is not run_blocks.RESTART]
    assert blocks.spilled == scattered and len(tables) > 1
    assert all(integer_ids(t, "docno") and not integer_ids(t, "qid") for t in tables)
    with pytest.raises(TrecbenchError, match="no integer prints as"):
        evaluate(str(qrels), str(run), ["P.5"], memory=4096)


def test_a_runs_counts_are_one_class_for_its_blocks_and_its_dask_partitions():
    # trecbench.dask counted a file's partitions with its own twin of the blocks' counts
    counts = run_blocks.Counts()
    counts.add(3, ["2", "1"], ["b", "a"], "a")
    counts.add(0, [], [], "")  # an empty piece (a partition without rows) counts nothing
    counts.add(2, ["1", "3"], ["c"], "c")
    assert counts.record() == {"lines": 5, "topics": 3, "run_tag": "c", "run_tags": ["a", "b", "c"]}
    assert run_blocks.Counts().record()["run_tag"] is None


def test_a_spilled_run_names_the_lost_zero_its_whole_run_names(tmp_path, monkeypatch, tiny_blocks):
    """Qrels of integer qids beside a scattered run whose text qids no integer prints as:
    the spill's blocks come by topic hash, and each was refused on its own as it came, so
    the spilled run named another qid than the run checked whole (its first in file
    order: '07')."""
    import pyarrow.parquet as pq

    rounds = [f"{t} Q0 d{t}-{k} {k} {9 - k} tag\n" for k in (1, 2) for t in range(1, 13)]
    lost = [f"{q} Q0 dz {1} 1 tag\n" for q in ("07", "+3", "011", "05", "009", "+12")]
    run = tmp_path / "run"
    run.write_text("".join(rounds + lost))
    qrels = tmp_path / "qrels.parquet"
    topics = list(range(1, 13))
    pq.write_table(
        pa.table({"query_id": topics, "doc_id": ["d"] * 12, "relevance": [1] * 12}), qrels
    )
    whole = _outcome(lambda: _whole(monkeypatch, str(qrels), str(run)))
    assert "such as '07'" in whole[1]
    blocks = run_blocks.RunBlocks(run, 7, 7, spill_dir=tmp_path)
    assert [t for t in blocks if t is not None] and blocks.spilled
    assert _outcome(lambda: evaluate(str(qrels), str(run), memory=1)) == whole


def test_a_spill_on_a_full_tmpdir_is_one_line_naming_it(tmp_path, monkeypatch, tiny_blocks, capfd):
    """A spill that cannot be written (a full TMPDIR) said Arrow's words, 'trecbench: Error
    writing bytes to file. Detail: [errno 28] No space left on device', naming neither the
    folder nor the run: it is one line as validate's temporary files say it, exit 2,
    nothing on stdout, and the spill folder removed."""
    import errno

    import pyarrow.dataset as ds

    from trecbench.cli import run as cli

    qrels, run = _write(tmp_path, *random_case(23, n_topics=8, shuffle=True))
    spills = tmp_path / "tmp"
    spills.mkdir()
    monkeypatch.setenv("TMPDIR", str(spills))
    monkeypatch.setattr("tempfile.tempdir", None)

    def full(batches, *args, **kwargs):
        next(iter(batches))  # Arrow's words, and its errno, on a full disk
        detail = "Error writing bytes to file. Detail: [errno 28] No space left on device"
        raise OSError(errno.ENOSPC, detail)

    monkeypatch.setattr(ds, "write_dataset", full)
    code = cli(["score", "--memory", "1", "--quiet", qrels, run])
    out, err = capfd.readouterr()
    assert (code, out, os.listdir(spills)) == (2, "", [])
    assert err == (
        f"trecbench: {spills}: cannot write the spill of {run} (No space left on device); "
        "free space in TMPDIR, point TMPDIR to a larger folder, or give a larger --memory\n"
    )
