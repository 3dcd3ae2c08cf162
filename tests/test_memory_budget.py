"""The memory budget's decisions (trecbench.memory): which engine's costs decide whether a
scattered run is held whole, and which runs on standard input are read in blocks (a
regular file) or held in memory (a pipe, said once). No timing nor peak memory here: the
figures behind the costs are measured by hand (docs/scale.md)."""

from __future__ import annotations

import gzip
import os
import subprocess
import sys

import pytest
from conftest import ROOT
from random_cases import random_case

from trecbench import evaluation, memory
from trecbench.engines import FAST, META, PYTREC_EVAL
from trecbench.inputs import blocks

# a reviewer's case: 5,000 topics x 1,000 documents, in two stretches each, against
# 150,000 qrels lines
LINES, QRELS_LINES = 5_000_000, 150_000


@pytest.mark.parametrize("mib", [512, 768, 1024])
def test_a_scattered_run_scored_by_pytrec_eval_must_fit_its_cost(mib):
    # -m official: pytrec_eval holds each line as Python objects (330 bytes a line held
    # whole, measured), far beyond the 110 bytes a line once assumed
    budget = memory.Budget.of(mib, QRELS_LINES, engines=[PYTREC_EVAL, META])
    assert budget.whole_lines < LINES
    per_line = memory.WHOLE_BYTES_PER_LINE + memory.ENGINE_BYTES_PER_LINE[PYTREC_EVAL]
    assert budget.whole_lines == budget.free_bytes // per_line
    assert per_line >= 330 * 1.05


def test_the_fast_engine_holds_a_5m_line_run_whole_only_where_it_fits():
    # 147 bytes a line measured: 5M lines are not held in 768 MiB, are in 1536
    assert memory.Budget.of(768, QRELS_LINES, engines=[FAST]).whole_lines < LINES
    assert memory.Budget.of(1536, QRELS_LINES, engines=[FAST]).whole_lines > LINES
    assert memory.engine_bytes([FAST, META]) == 0
    assert memory.engine_bytes([FAST, PYTREC_EVAL]) == memory.ENGINE_BYTES_PER_LINE[PYTREC_EVAL]


def test_pytrec_evals_cost_makes_blocks_and_spilled_blocks_smaller():
    fast = memory.Budget.of(300, QRELS_LINES, engines=[FAST])
    costly = memory.Budget.of(300, QRELS_LINES, engines=[PYTREC_EVAL])
    assert costly.block_lines < fast.block_lines
    assert costly.spill_lines < fast.spill_lines
    assert costly.with_qrels(10).engine_bytes == costly.engine_bytes  # kept


def test_an_evaluation_budgets_for_the_engines_it_chose(tmp_path, monkeypatch):
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels_text, run_text = random_case(11, n_topics=3)
    qrels.write_text(qrels_text)
    run.write_text(run_text)
    made = []
    original = memory.Budget.of

    def recorded(*args, **kwargs):
        made.append(original(*args, **kwargs))
        return made[-1]

    monkeypatch.setattr(evaluation.Budget, "of", recorded)
    evaluation.evaluate(str(qrels), str(run), measures=["map"], memory=512, engine=PYTREC_EVAL)
    evaluation.evaluate(str(qrels), str(run), measures=["AP"], memory=512, engine=FAST)
    assert [b.engine_bytes for b in made] == [memory.ENGINE_BYTES_PER_LINE[PYTREC_EVAL], 0]


def test_standard_input_redirected_from_a_file_is_read_in_blocks(tmp_path, monkeypatch):
    run = tmp_path / "run"
    run.write_text("q1 Q0 d1 1 1.0 t\n" * 40_000)  # more than the fewest lines of a block
    with open(run, "rb", buffering=0) as stdin:
        stdin.readline()  # read from where it stands: what is left
        monkeypatch.setattr(sys, "stdin", open(stdin.fileno(), closefd=False))  # noqa: SIM115
        found = memory._regular_file("-")
        assert found is not None and found[0] == run.stat().st_size - len("q1 Q0 d1 1 1.0 t\n")
        assert memory.Budget(1).in_blocks("-")
        assert not memory.read_into_memory("-")


def _score(args: list[str], stdin, tmp_path) -> subprocess.CompletedProcess:
    """``trecbench score args`` with tiny blocks and reads, and a mark on stderr each
    time a run is read in blocks."""
    script = (
        "import sys\n"
        "from trecbench import memory\n"
        "from trecbench.cli import run\n"
        "from trecbench.inputs import blocks\n"
        "memory.BLOCK_LINES, memory.FEWEST_BLOCK_LINES = 7, 7\n"
        "memory.READ_BYTES, blocks.READ_BYTES = 300, 300\n"
        "made = blocks.RunBlocks.__init__\n"
        "def marked(self, *args, **kwargs):\n"
        "    print('MARK: blocks', file=sys.stderr)\n"
        "    made(self, *args, **kwargs)\n"
        "blocks.RunBlocks.__init__ = marked\n"
        "sys.exit(run(sys.argv[1:]))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-c", script, "score", *args],
        stdin=stdin, capture_output=True, text=True, env=env, cwd=tmp_path, check=False,
    )  # fmt: skip


def _read_in_blocks_named_and_redirected(run: str, tmp_path) -> tuple:
    """``score --memory 64`` of the run file ``run`` (in ``tmp_path``, beside ``qrels``)
    named and on standard input redirected from it, each checked to be read in blocks;
    the standard output of both."""
    args = ["--memory", "64", "-q", "-m", "official", "qrels"]
    named = _score([*args, run], subprocess.DEVNULL, tmp_path)
    assert named.returncode == 0 and "MARK: blocks" in named.stderr
    with open(tmp_path / run) as stdin:
        redirected = _score([*args, "-"], stdin, tmp_path)
    assert redirected.returncode == 0, redirected.stderr
    assert "MARK: blocks" in redirected.stderr and "pipe" not in redirected.stderr
    return named.stdout, redirected.stdout


def test_a_run_on_standard_input_streams_from_a_file_and_is_held_from_a_pipe(tmp_path):
    qrels_text, run_text = random_case(29, n_topics=6)
    (tmp_path / "qrels").write_text(qrels_text)
    (tmp_path / "run").write_text(run_text)
    named, redirected = _read_in_blocks_named_and_redirected("run", tmp_path)
    assert redirected == named
    args = ["--memory", "64", "-q", "-m", "official", "qrels"]
    piped = subprocess.Popen(["cat", str(tmp_path / "run")], stdout=subprocess.PIPE)
    held = _score([*args, "-"], piped.stdout, tmp_path)
    piped.wait()
    assert held.returncode == 0 and held.stdout == named
    assert "MARK: blocks" not in held.stderr
    said = [line for line in held.stderr.splitlines() if "pipe" in line]
    assert said == [
        "trecbench: warning: -: read from a pipe, so held in memory whole: the memory budget "
        "(64 MiB) cannot hold for it; give the file itself (or redirect standard input from "
        "it) to read it in blocks"
    ]
    unbudgeted = _score(args[2:] + ["-"], subprocess.PIPE, tmp_path)  # no --memory: no word
    assert "pipe" not in unbudgeted.stderr


def test_pytrec_evals_copies_of_the_qrels_are_counted_against_the_budget():
    # a reviewer's case: 852,000 qrels lines, -m official under --memory 512 peaked at 589
    # MiB; measured, pytrec_eval's dicts and its evaluator's copy hold 157 bytes a line
    # besides the table's 199, so the runs have that much less room than the fast engine's
    lines = 852_000
    fast = memory.Budget.of(512, lines, engines=[FAST])
    costly = memory.Budget.of(512, lines, engines=[PYTREC_EVAL, META])
    assert fast.free_bytes - costly.free_bytes >= 157 * lines
    held = memory.BASE_BYTES + lines * (memory.QRELS_BYTES_PER_LINE + costly.qrels_engine_bytes)
    assert costly.free_bytes == 512 * memory.MIB - held
    assert costly.with_qrels(10).qrels_engine_bytes == costly.qrels_engine_bytes  # kept


def test_a_run_file_read_whole_for_an_option_is_said_once_to_escape_the_budget(tmp_path):
    # --compat 10.0 (and -R, -Z, -D, native ports) read every run whole: a reviewer's 2.6M
    # lines under --memory 128 peaked at 1.1 GB with no word, where a pipe is named
    qrels_text, run_text = random_case(29, n_topics=6)
    (tmp_path / "qrels").write_text(qrels_text)
    (tmp_path / "run").write_text(run_text)
    (tmp_path / "copy").write_text(run_text)
    args = ["--memory", "64", "-q", "-c", "-m", "map", "qrels", "run", "copy"]
    held = _score(["--compat", "10.0", *args], subprocess.DEVNULL, tmp_path)
    assert held.returncode == 0, held.stderr
    assert "MARK: blocks" not in held.stderr
    said = [line for line in held.stderr.splitlines() if "whole" in line]
    assert said == [
        "trecbench: warning: run, copy: held in memory whole for --compat 10.0: the memory "
        "budget (64 MiB) cannot hold for them (a run file is otherwise read in blocks)"
    ]
    assert "whole" not in _score(["--compat", "10.0", *args[2:]], None, tmp_path).stderr
    streamed = _score(args, subprocess.DEVNULL, tmp_path)  # in blocks: nothing to say
    # of reading whole (its topics, longer than these 7-line blocks, are said to be held
    # past the budget: a topic is scored whole)
    assert "MARK: blocks" in streamed.stderr and "held in memory whole" not in streamed.stderr


def test_a_run_held_whole_within_a_large_budget_is_not_said_to_escape_it(tmp_path):
    # a reviewer's case: 600,000 lines under --memory 4096 --compat 10.0 peaked at 215 MB
    # and were said to escape the budget because they were longer than one block
    qrels_text, run_text = random_case(29, n_topics=6)
    (tmp_path / "qrels").write_text(qrels_text)
    (tmp_path / "run").write_text(run_text)
    args = ["--compat", "10.0", "-q", "-c", "-m", "map", "qrels", "run"]
    large = _score(["--memory", "4096", *args], subprocess.DEVNULL, tmp_path)
    assert large.returncode == 0, large.stderr
    assert "whole" not in large.stderr
    small = _score(["--memory", "64", *args], subprocess.DEVNULL, tmp_path)
    assert "run: held in memory whole for --compat 10.0" in small.stderr


def test_a_run_compressed_beyond_the_guess_is_read_in_blocks_under_a_budget_given(
    tmp_path, monkeypatch
):
    # a compressed file's lines are guessed at COMPRESSION_RATIO times its size, and a run
    # of a block or less by the guess was held whole: a reviewer's 8M lines in 3.7 MB of
    # zstd --long peaked at 750 MiB under --memory 512, silently. A budget given reads
    # every compressed run in blocks; the default one trusts the guess (faster whole)
    monkeypatch.setattr(memory, "BLOCK_LINES", 2000)
    monkeypatch.setattr(memory, "FEWEST_BLOCK_LINES", 2000)
    text = "".join(f"{t} Q0 d{i} {i} {500 - i} r\n" for t in range(20) for i in range(1, 201))
    run, qrels = tmp_path / "run.gz", tmp_path / "qrels"
    run.write_bytes(gzip.compress(text.encode(), 9))
    qrels.write_text("".join(f"{t} 0 d{i * 7} {i % 3}\n" for t in range(20) for i in range(30)))
    assert memory.Budget.run_lines(run) <= 2000 < text.count("\n")  # read whole by the guess
    made = []

    class Recorded(blocks.RunBlocks):
        def __init__(self, *args, **kwargs):
            made.append(args[0])
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(blocks, "RunBlocks", Recorded)
    asked = dict(measures=["map", "P_5", "ndcg_cut_10"], complete=True)
    whole = evaluation.evaluate(str(qrels), str(run), **asked)
    assert made == []
    budgeted = evaluation.evaluate(str(qrels), str(run), memory=512, **asked)
    assert made == [str(run)]
    assert budgeted.to_frame(per_query=True).equals(whole.to_frame(per_query=True))
    assert budgeted.input_warnings == ()


def test_a_parquet_run_on_standard_input_is_read_in_blocks_under_a_budget_given(tmp_path):
    # its rows are not told before it is read (its footer is read from the file's name):
    # it was held whole whatever the budget (8M lines: 848 MiB under --memory 512)
    import pyarrow as pa
    import pyarrow.parquet as pq

    qrels_text, run_text = random_case(29, n_topics=6)
    (tmp_path / "qrels").write_text(qrels_text)
    rows = [line.split() for line in run_text.splitlines()]
    columns = {"qid": 0, "docno": 2, "score": 4, "tag": 5}
    table = pa.table({name: [row[i] for row in rows] for name, i in columns.items()})
    pq.write_table(
        table.set_column(2, "score", table["score"].cast(pa.float64())), tmp_path / "run.parquet"
    )
    named, redirected = _read_in_blocks_named_and_redirected("run.parquet", tmp_path)
    assert redirected == named


def _tiny_blocks(monkeypatch):
    monkeypatch.setattr(memory, "BLOCK_LINES", 7)
    monkeypatch.setattr(memory, "FEWEST_BLOCK_LINES", 7)


def test_the_qrels_held_count_against_a_run_held_whole(tmp_path, monkeypatch):
    _tiny_blocks(monkeypatch)
    qrels_text, run_text = random_case(29, n_topics=6)
    (tmp_path / "qrels").write_text(qrels_text)
    (tmp_path / "run").write_text(run_text)
    given = dict(measures=["map"], memory=512, compat="10.0", complete=True)
    assert (
        evaluation.evaluate(str(tmp_path / "qrels"), str(tmp_path / "run"), **given).input_warnings
        == ()
    )
    # qrels lines costing the whole budget leave the run no room
    monkeypatch.setattr(memory, "QRELS_BYTES_PER_LINE", 512 * memory.MIB)
    held = evaluation.evaluate(str(tmp_path / "qrels"), str(tmp_path / "run"), **given)
    # in the library's words: compat='10.0' (score says --compat 10.0, above)
    assert held.input_warnings == (
        f"{tmp_path / 'run'}: held in memory whole for compat='10.0': the memory budget "
        "(512 MiB) cannot hold for it (a run file is otherwise read in blocks)",
    )


def test_the_librarys_evaluation_carries_the_budgets_warnings(tmp_path, monkeypatch):
    _tiny_blocks(monkeypatch)
    qrels_text, run_text = random_case(29, n_topics=6)
    (tmp_path / "qrels").write_text(qrels_text)
    (tmp_path / "run").write_text(run_text)
    os.mkfifo(tmp_path / "fifo")
    writer = subprocess.Popen(["sh", "-c", "cat run > fifo"], cwd=tmp_path)
    paths = [str(tmp_path / name) for name in ("qrels", "run", "fifo")]
    result = evaluation.evaluate(
        paths[0], paths[1:], ["map"], memory=64, compat="10.0", complete=True
    )
    writer.wait()
    assert result.input_warnings == (
        f"{paths[2]}: read from a pipe, so held in memory whole: the memory budget (64 MiB) "
        "cannot hold for it; give the file itself (or redirect standard input from it) to "
        "read it in blocks",
        f"{paths[1]}: held in memory whole for compat='10.0': the memory budget (64 MiB) "
        "cannot hold for it (a run file is otherwise read in blocks)",
    )


@pytest.mark.parametrize("hostile", ["a\nb", "x, y", "a" + os.fsdecode(b"\xff") + "b"])
def test_the_budgets_warnings_name_their_files_escaped_as_items(tmp_path, monkeypatch, hostile):
    # the files were joined as they are: a line feed of a name split the warning, and a
    # file "x, y" read as two; each is a list's item (%XX), as the gate's warnings escape
    # their file's name, and unquote gives it back
    from urllib.parse import unquote_to_bytes

    _tiny_blocks(monkeypatch)
    monkeypatch.setattr(memory, "QRELS_BYTES_PER_LINE", 64 * memory.MIB)  # no run held
    qrels_text, run_text = random_case(29, n_topics=6)
    (tmp_path / "qrels").write_text(qrels_text)
    runs = [str(tmp_path / hostile), str(tmp_path / f"{hostile}.fifo")]
    with open(runs[0], "w") as file:  # a name of a byte that is not UTF-8: os.fsencode's
        file.write(run_text)
    os.mkfifo(runs[1])
    (tmp_path / "run").write_text(run_text)
    writer = subprocess.Popen(["sh", "-c", 'cat run > "$FIFO"'], cwd=tmp_path,
                              env={**os.environ, "FIFO": runs[1]})  # fmt: skip
    given = dict(memory=64, compat="10.0", complete=True)
    result = evaluation.evaluate(str(tmp_path / "qrels"), [runs[1], runs[0]], ["map"], **given)
    writer.wait()
    assert len(result.input_warnings) == 2
    for warning, path in zip(result.input_warnings, [runs[1], runs[0]], strict=True):
        assert warning.isprintable(), warning
        named = warning.split(": ")[0]
        assert ", " not in named
        assert os.fsdecode(unquote_to_bytes(named)) == path


def test_a_topic_longer_than_a_block_is_said_to_be_held_beyond_the_budget(tmp_path, capsys):
    """A topic is scored whole: one longer than the blocks of a --memory budget was held
    past it without a word (819 MiB under --memory 512, by a review); said once, naming
    the topic, and the values are trec_eval's whatever the budget. No budget given, no
    word (the default is no promise)."""
    from trecbench.cli import run

    lines = [f"A Q0 d{i} {i + 1} {40_000 - i} t\n" for i in range(40_000)]
    lines += [f"B Q0 d{i} {i + 1} {100 - i} t\n" for i in range(100)]
    (tmp_path / "long.run").write_text("".join(lines))
    (tmp_path / "long.qrels").write_text("A 0 d1 1\nB 0 d2 1\n")
    args = ["score", "-m", "map", str(tmp_path / "long.qrels"), str(tmp_path / "long.run")]
    assert run([args[0], "--memory", "64", *args[1:]]) == 0
    budgeted = capsys.readouterr()
    assert budgeted.err == (
        f"trecbench: warning: {tmp_path / 'long.run'}: topic 'A' holds 40,000 lines, more "
        "than a block of the memory budget (64 MiB: 16,384 lines): a topic is scored whole, "
        "so it is held beyond the budget\n"
    )
    assert run(args) == 0
    unbudgeted = capsys.readouterr()
    assert unbudgeted.err == "" and unbudgeted.out == budgeted.out
    assert budgeted.out.split() == ["map", "all", "0.4167"]  # trec_eval 9.0.8's


# review 721: the first such topic was named alone (A, 40,000 lines), though B, read after
# it, held 60,000: the warning understated how far past the budget the call went.
# review 732: A's lines come in two stretches; the run followed again from its start
# (spilled), but the warning kept the first pass's stretches ('A' at a stretch's lines, or
# nothing) and read none of the spill's blocks, each held whole.
LONG_TOPICS = {  # stretches (qid, first docno, lines), --memory, (said, mean: trec_eval's)
    "longest": ([("A", 0, 40_000), ("s1", 0, 10), ("B", 0, 60_000), ("s2", 0, 10)], "64",
                ("2 topics", "64 MiB", "'B', holds 60,000", "0.3958")),
    "split": ([("A", 0, 20_000), ("B", 0, 20_000), ("A", 20_000, 20_000), ("C", 0, 20_000)],
              "16", ("3 topics", "16 MiB", "'A', holds 40,000", "0.3611")),
}  # fmt: skip


@pytest.mark.parametrize("case", LONG_TOPICS)
def test_every_topic_longer_than_a_block_is_counted_the_longest_named(tmp_path, capsys, case):
    from trecbench.cli import run

    stretches, budget, (topics, mib, longest, mean) = LONG_TOPICS[case]
    lines = []
    for qid, first, count in stretches:
        lines += [f"{qid} Q0 d{first + i} {i} {100_000 - first - i} t\n" for i in range(count)]
    (tmp_path / "long.run").write_text("".join(lines))
    qids = dict.fromkeys(qid for qid, _, _ in stretches)  # d1, d2, d3, d1: the 2nd to 4th
    qrels = "".join(f"{qid} 0 d{i % 3 + 1} 1\n" for i, qid in enumerate(qids))
    (tmp_path / "q.qrels").write_text(qrels)
    args = ["score", "--memory", budget, "-m", "map", str(tmp_path / "q.qrels")]
    assert run([*args, str(tmp_path / "long.run")]) == 0
    said = capsys.readouterr()
    assert said.err == (
        f"trecbench: warning: {tmp_path / 'long.run'}: {topics} hold more lines than a block "
        f"of the memory budget ({mib}: 16,384 lines) (the longest, {longest}): a topic "
        "is scored whole, so they are held beyond the budget\n"
    )
    assert said.out.split() == ["map", "all", mean]  # trec_eval 9.0.8's
