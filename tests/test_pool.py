"""pool: the depth-k pool and its bias against a direct computation in plain Python."""

from __future__ import annotations

import json
import random

import pyarrow as pa
import pytest
from conftest import shown_rows

from trecbench.cli import run
from trecbench.errors import UsageError
from trecbench.runstudy.pool import Pool, pool


def _ranked(run: dict) -> dict[str, list[str]]:
    """trec_eval's order, written out plainly: score descending, docno descending."""
    return {
        qid: [d for d, _ in sorted(docs.items(), key=lambda x: (x[1], x[0]), reverse=True)]
        for qid, docs in run.items()
    }


def _random_runs(rng: random.Random, n_runs: int) -> list[dict]:
    runs = []
    for _ in range(n_runs):
        run = {}
        for topic in range(5):
            docs = rng.sample([f"D{i}" for i in range(30)], rng.randint(1, 20))
            run[f"q{topic}"] = {d: float(rng.randint(0, 6)) for d in docs}  # ties on purpose
        runs.append(run)
    return runs


@pytest.mark.parametrize("depth", [7, 20])
@pytest.mark.parametrize("rows_at_once", [None, 1, 7, 64])
@pytest.mark.parametrize("batch_rows", [None, 1, 40])
def test_pool_equals_the_union_of_every_top_k(monkeypatch, rows_at_once, batch_rows, depth):
    """Also when the rows are numbered a few topics at a time (``SLICE``): the same
    documents in several topics of one slice stay distinct pairs; when the runs are folded
    into the pool one or a few at a time (``BATCH_ROWS``); and at a depth no topic
    exceeds (the runs' rows then pooled as read, unranked)."""
    if rows_at_once is not None:
        monkeypatch.setattr("trecbench.runstudy.pool_stream.SLICE", rows_at_once)
    if batch_rows is not None:
        monkeypatch.setattr("trecbench.runstudy.pool_stream.BATCH_ROWS", batch_rows)
    rng = random.Random(5)
    runs = _random_runs(rng, 4)
    result = pool(runs, depth=depth)
    tops = [{(q, d) for q, docs in _ranked(run).items() for d in docs[:depth]} for run in runs]
    expected = sorted(set().union(*tops), key=lambda x: (x[0].encode(), x[1].encode()))
    assert list(zip(result.qid, result.docno, strict=True)) == expected
    for index, contribution in enumerate(result.contributions):
        others = set().union(*(top for i, top in enumerate(tops) if i != index))
        assert contribution.run == f"run{index + 1}"
        assert contribution.pooled == len(tops[index])
        assert contribution.unique == len(tops[index] - others)
        assert contribution.judged is None


@pytest.mark.parametrize("batch_rows", [None, 1])
def test_pool_with_qrels_leaves_judged_out_and_counts_relevant_only(monkeypatch, batch_rows):
    if batch_rows is not None:  # every run folded into the pool on its own
        monkeypatch.setattr("trecbench.runstudy.pool_stream.BATCH_ROWS", batch_rows)
    rng = random.Random(9)
    runs = _random_runs(rng, 3)
    # grades from -1: a negative grade is trec_eval's "in the pool, unjudged" (pool counted
    # such a document judged and left it out of the pool to judge)
    qrels = {f"q{t}": {f"D{i}": rng.randint(-1, 2) for i in range(0, 30, 2)} for t in range(5)}
    result = pool(runs, depth=6, qrels=qrels, relevance_level=2)
    tops = [{(q, d) for q, docs in _ranked(run).items() for d in docs[:6]} for run in runs]
    judged = {(q, d) for q, docs in qrels.items() for d, g in docs.items() if g >= 0}
    assert any(g < 0 for docs in qrels.values() for g in docs.values())
    relevant = {(q, d) for q, docs in qrels.items() for d, g in docs.items() if g >= 2}
    expected = sorted(set().union(*tops) - judged)
    assert list(zip(result.qid, result.docno, strict=True)) == expected
    for index, contribution in enumerate(result.contributions):
        others = set().union(*(top for i, top in enumerate(tops) if i != index))
        assert contribution.judged == len(tops[index] & judged)
        assert contribution.relevant_only == len((tops[index] - others) & relevant)


def test_cli_writes_the_pool_and_prints_contributions(tmp_path, capsys):
    target = tmp_path / "pool.txt"
    args = ["pool", "runs/tfidf-word.run", "runs/tfidf-char.run", "--depth", "3"]
    assert run([*args, "--unjudged-grade", "-1", "--format", "json", "-o", str(target)]) == 0
    lines = target.read_text().splitlines()
    summary = json.loads(capsys.readouterr().out)
    assert summary["documents"] == len(lines)
    assert all(line.split()[1] == "0" and line.split()[3] == "-1" for line in lines)
    assert [run["pooled"] for run in summary["runs"]] == [56 * 3, 56 * 3]


def test_a_grade_is_written_as_the_qrels_grammar_has_it(tmp_path, capsys):
    # "+1" was written as typed: validate --qrels then noted Q3.plus on every pool line
    target = tmp_path / "pool.txt"
    args = ["pool", "runs/tfidf-word.run", "--depth", "1", "--format", "json"]
    assert run([*args, "--unjudged-grade", "+1", "-o", str(target)]) == 0
    assert json.loads(capsys.readouterr().out)["settings"]["unjudged_grade"] == "1"
    assert {line.split()[3] for line in target.read_text().splitlines()} == {"1"}
    assert run(["validate", "--qrels", str(target), "--quiet"]) == 0
    # Pool.to_json recorded '+1' as given, and 'x', which to_text refuses
    pooled = pool(["runs/tfidf-word.run"], depth=1)
    assert pooled.to_json(unjudged_grade="+1")["settings"]["unjudged_grade"] == "1"
    with pytest.raises(UsageError, match="^unjudged_grade must be an integer .*not 'x'$"):
        pooled.to_json(unjudged_grade="x")
    assert "Q3" not in capsys.readouterr().out
    result = pool(["runs/tfidf-word.run"], depth=1)
    assert result.to_text("007") == result.to_text(7) == result.to_text("+7")
    assert result.to_text("-0").endswith(" 0\n")


@pytest.mark.parametrize("with_qrels", [False, True])
def test_cli_table_cells_are_the_plain_top_k_sets(tmp_path, capsys, with_qrels):
    """pool's printed table read back cell by cell against the top-k sets written out
    here: only the JSON and the API were held against them, and a table printing each
    run's unique count under "pooled" went unseen."""
    rng = random.Random(11)
    runs = dict(zip("abc", _random_runs(rng, 3), strict=True))
    qrels = {f"q{t}": {f"D{i}": rng.randint(0, 2) for i in range(0, 30, 3)} for t in range(5)}
    for name, run_dict in runs.items():
        lines = [
            f"{q} Q0 {d} 1 {s} {name}" for q, docs in run_dict.items() for d, s in docs.items()
        ]
        (tmp_path / f"{name}.run").write_text("\n".join(lines) + "\n")
    (tmp_path / "q.qrels").write_text(
        "".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items())
    )
    args = ["pool", *(str(tmp_path / f"{name}.run") for name in runs), "--depth", "6"]
    args += ["-o", str(tmp_path / "pool.txt")]
    args += ["--qrels", str(tmp_path / "q.qrels"), "-l", "2"] if with_qrels else []
    assert run(args) == 0
    printed = capsys.readouterr().out
    tops = {
        name: {(q, d) for q, docs in _ranked(r).items() for d in docs[:6]}
        for name, r in runs.items()
    }
    judged = {(q, d) for q, docs in qrels.items() for d in docs} if with_qrels else set()
    relevant = {(q, d) for q, docs in qrels.items() for d, g in docs.items() if g >= 2}
    rows = shown_rows(printed, "run")
    assert [row["run"] for row in rows] == list(runs)
    for row in rows:
        top = tops[row["run"]]
        unique = top - set().union(*(t for name, t in tops.items() if name != row["run"]))
        expected = {"pooled": len(top), "unique": len(unique)}
        if with_qrels:
            expected |= {"judged": len(top & judged), "relevant_only": len(unique & relevant)}
        assert {column: int(cell) for column, cell in row.items() if column != "run"} == expected
        assert len(unique) < len(top)  # the columns differ
    left = set().union(*tops.values()) - judged
    said = "to judge" if with_qrels else "pooled"
    assert printed.endswith(f"\n{len(left)} documents {said} in 5 topics\n")


@pytest.mark.parametrize("depth", ["0", "-3"])
def test_cli_refuses_a_depth_below_one(tmp_path, capsys, depth):
    assert run(["pool", "runs/tfidf-word.run", "--depth", depth, "-o", str(tmp_path / "p")]) == 1
    assert "Invalid value for '--depth': " in capsys.readouterr().err
    assert not (tmp_path / "p").exists()


def test_a_path_option_that_took_the_next_option_says_so(tmp_path, capsys):
    # "--qrels -l": it said "trecbench: -l: cannot read: No such file" (exit 2)
    args = ["pool", "--qrels", "-l", "runs/tfidf-word.run", "-o", str(tmp_path / "p")]
    assert run(args) == 1
    assert capsys.readouterr().err == (
        "trecbench: pool: --qrels took the option '-l' as its value: give --qrels a file "
        "(see 'trecbench pool --help')\n"
    )
    assert not (tmp_path / "p").exists()


@pytest.mark.parametrize(("docs", "said"), [(1, "1 document"), (2, "2 documents")])
def test_cli_counts_the_pool_in_english(tmp_path, capsys, docs, said):
    source = tmp_path / "one.run"
    source.write_text("".join(f"q1 Q0 d{i} {i} {9 - i}.0 t\n" for i in range(docs)))
    target = tmp_path / "pool.txt"
    assert run(["pool", str(source), "--depth", "5", "-o", str(target)]) == 0
    captured = capsys.readouterr()
    assert captured.err == f"wrote {target}: {said}\n"
    assert captured.out.endswith(f"\n{said} pooled in 1 topic\n")  # said "1 documents"


def test_counted_says_one_thing_in_the_singular():
    from trecbench.plurals import counted

    assert [counted(n, "topic") for n in (0, 1, 2)] == ["0 topics", "1 topic", "2 topics"]
    assert counted(1, "query", "queries") == "1 query"
    assert counted(3, "query", "queries") == "3 queries"


@pytest.mark.parametrize("depth", [1, 3])
def test_a_document_listed_twice_is_refused_beyond_the_depth_too(tmp_path, depth):
    """As before the unranked path: the whole run is checked, not only what is pooled."""
    from trecbench.errors import DuplicateError

    path = tmp_path / "dup.run"
    path.write_text("q1 Q0 a 1 3 t\nq1 Q0 b 2 2 t\nq1 Q0 b 3 1 t\nq2 Q0 a 1 1 t\n")
    with pytest.raises(DuplicateError, match="duplicate docs b for topic q1"):
        pool([str(path)], depth=depth)


def test_truncate_returns_the_table_itself_when_no_topic_exceeds_the_depth():
    import pyarrow as pa

    from trecbench.ranking import truncate

    table = pa.table({"qid": ["1", "1", "2"], "rank": pa.array([1, 2, 1], pa.int64())})
    assert truncate(table, 2) is table
    assert truncate(table, 1)["rank"].to_pylist() == [1, 1]
    assert truncate(table.slice(0, 0), 1).num_rows == 0


def test_docnos_are_gathered_with_64_bit_offsets_only_when_needed():
    import pyarrow as pa

    from trecbench.runstudy.pool_stream import _column

    small = pa.table({"docno": pa.array(["a", "bb"], pa.string())})
    large = pa.table({"docno": pa.array(["c"], pa.large_string())})
    assert _column([small, small], "docno").type == pa.string()
    mixed = _column([small, large], "docno")
    assert (mixed.type, mixed.to_pylist()) == (pa.large_string(), ["a", "bb", "c"])


def test_runs_read_ahead_are_inputs_of_the_call(tmp_path):
    """The next run is read on a thread: in the call's input scope, so that no output of
    the call may replace it (the thread had read outside it)."""
    from trecbench import outputs
    from trecbench.errors import OutputError
    from trecbench.runstudy.pool import pool

    paths = []
    for name in ("a.run", "b.run"):
        path = tmp_path / name
        path.write_text("q1 Q0 d1 1 2.0 t\nq1 Q0 d2 2 1.0 t\n")
        paths.append(path)
    with outputs.input_scope():
        pool([str(path) for path in paths], depth=1)
        for path in paths:
            with pytest.raises(OutputError):
                outputs.check_target(path)


def test_an_id_no_pool_file_holds_is_refused_before_the_summary(tmp_path, capsys):
    # the summary went to stdout, then "a pool file cannot hold the qid 'q 1'", exit 2; the
    # id now %XX-quoted at its run and line
    from trecbench.cli import run

    (tmp_path / "x.jsonl").write_text('{"qid": "q 1", "docno": "d1", "score": 1}\n')
    (tmp_path / "y.run").write_text("q2 Q0 d1 1 1 r\n")
    args = ["pool", str(tmp_path / "x.jsonl"), str(tmp_path / "y.run"), "-o", str(tmp_path / "p")]
    assert run(args) == 2
    out, err = capsys.readouterr()
    said = f"{tmp_path / 'x.jsonl'}:1: a pool file cannot hold the qid 'q%201'"
    assert out == "" and said in err
    assert not (tmp_path / "p").exists()


@pytest.mark.parametrize(
    ("qrels_text", "code", "said"),
    [
        (b"q1 0 d1 1\r\nq1 0 d2 0\r\n", 0, "warning: q.qrels: warning[R24]: CRLF line ends"),
        (b"q1 0 d1 1\n\n", 2, "q.qrels:2:line: error[Q2]: blank line"),
        (b"", 2, "q.qrels: error[R26]: empty file"),
    ],
)
def test_the_qrels_are_read_as_score_reads_them(tmp_path, capsys, qrels_text, code, said):
    """Through score's gate: its warnings said, its errors in its words (they were read
    without it: a CRLF file went unsaid, a blank line was refused in other words)."""
    (tmp_path / "q.qrels").write_bytes(qrels_text)
    (tmp_path / "a.run").write_text("q1 Q0 d1 1 2.0 t\nq1 Q0 d3 2 1.0 t\n")
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(tmp_path)
        assert run(["pool", "a.run", "--qrels", "q.qrels", "--depth", "5", "-o", "p.txt"]) == code
    assert said in capsys.readouterr().err
    assert (tmp_path / "p.txt").exists() == (code == 0)


def test_numpy_integers_are_taken_as_evaluate_takes_them():
    """depth=np.int64(1) was refused ("must be a positive integer ..., not np.int64(1)");
    the settings hold Python's ints, which JSON writes. Pooled at depth 1 by hand: each
    run's top document (score descending, docno descending)."""
    import numpy as np

    runs = [{"q": {"a": 2.0, "b": 1.0}}, {"q": {"a": 1.0, "c": 1.0}}]
    result = pool(runs, depth=np.int64(1), relevance_level=np.int32(2))
    assert result.docno == ["a", "c"]
    settings = json.loads(json.dumps(result.to_json()))["settings"]
    assert settings == {"depth": 1, "relevance_level": 2, "qrels": None, "unjudged_grade": None}
    with pytest.raises(UsageError, match=r"pool depth must be a positive integer .*, not 1.5"):
        pool(runs, depth=1.5)
    with pytest.raises(UsageError, match=r"pool depth must be a positive integer .*, not True"):
        pool(runs, depth=True)


def test_an_abandoned_read_ahead_does_not_wait_for_the_run_being_read():
    """Leaving the runs read ahead (an interrupt, an error) waited for the thread, so for
    the end of the file it was reading: a slow FIFO or a large run held Ctrl-C off."""
    import threading
    import time

    from trecbench.runstudy.ranked import read_ahead

    released = threading.Event()

    def load(index: int) -> int:
        if index == 1:  # a FIFO whose writer is still writing
            released.wait(10)
        return index

    tables = read_ahead(load, [0, 1])
    assert next(tables) == 0  # the second run is being read now
    began = time.monotonic()
    tables.close()  # as an interrupt raised at the next run's wait leaves the loop
    waited = time.monotonic() - began
    released.set()
    assert waited < 5


def test_runs_are_read_as_far_ahead_as_asked_and_come_in_order():
    """pool reads two runs ahead of the one it folds (a fold of a few runs' rows took as
    long as reading three more); each comes in turn, a load's error at its own turn."""
    import threading
    import time

    from trecbench.runstudy.ranked import read_ahead

    started, done = [], threading.Semaphore(0)

    def load(index: int) -> int:
        started.append(index)
        done.release()
        if index == 3:
            raise ValueError("run 3 is unreadable")
        return index

    runs = read_ahead(load, range(6), ahead=2)
    assert next(runs) == 0
    for _ in range(3):  # 0, then 1 and 2 read while 0 is worked on
        assert done.acquire(timeout=5)
    assert started == [0, 1, 2]
    assert [next(runs), next(runs)] == [1, 2]
    with pytest.raises(ValueError, match="run 3 is unreadable"):
        next(runs)
    # the runs after a bad one are never read (a FIFO among them would wait for its
    # writer): 4 and 5 were queued when 3 failed
    time.sleep(0.3)
    assert started == [0, 1, 2, 3]


def _open_files(pid):
    """The paths of the files process `pid` holds open now; a descriptor closed while they
    are listed (a module the process was importing) is left out, not an error."""
    import os

    paths = set()
    try:
        descriptors = os.listdir(f"/proc/{pid}/fd")
    except FileNotFoundError:  # the process has ended: its caller says so
        return paths
    for fd in descriptors:
        try:
            paths.add(os.readlink(f"/proc/{pid}/fd/{fd}"))
        except FileNotFoundError:
            continue
    return paths


@pytest.mark.parametrize(("name", "code"), [("SIGINT", 130), ("SIGTERM", 143)])
def test_pool_ends_at_a_signal_while_a_fifo_is_read(tmp_path, name, code):
    """`pool` ended an interrupt only once the run being read had been read whole (7.5 s
    on a slow FIFO, reviewer 321); it ends at once, no pool written."""
    import os
    import signal
    import subprocess
    import sys
    import time

    fifo, out = tmp_path / "run.fifo", tmp_path / "pool.txt"
    os.mkfifo(fifo)
    (tmp_path / "b.run").write_text("q1 Q0 d1 1 2.0 t\n")
    writer = os.open(fifo, os.O_RDWR)  # held open: the FIFO never ends
    os.write(writer, b"q1 Q0 d1 1 2.0 t\n")
    command = [sys.executable, "-m", "trecbench", "pool", str(fifo), str(tmp_path / "b.run")]
    process = subprocess.Popen(
        [*command, "-o", str(out)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        deadline = time.monotonic() + 60
        while str(fifo.resolve()) not in _open_files(process.pid):  # reading the FIFO
            assert time.monotonic() < deadline and process.poll() is None
            time.sleep(0.05)
        time.sleep(0.3)  # the main thread waits for the reading thread
        process.send_signal(getattr(signal, name))
        stdout, stderr = process.communicate(timeout=10)
    finally:
        process.kill()
        process.wait()
        os.close(writer)
    assert (process.returncode, stdout) == (code, "")
    assert stderr == ("trecbench: interrupted\n" if name == "SIGINT" else "")
    assert not out.exists()


def test_a_python_pool_refusing_a_run_does_not_wait_for_the_runs_read_ahead(tmp_path):
    """The Python pool refusing its first run (a document twice) while the runs after it
    are read ahead, the next a FIFO no one writes: the error comes at once and the script
    ends (the reading thread, blocked opening the FIFO, is not waited for by the
    process's exit, as an executor's thread was: the script hung)."""
    import os
    import subprocess
    import sys
    import textwrap

    (tmp_path / "dup.run").write_text("q1 Q0 d1 1 2.0 t\nq1 Q0 d1 2 1.0 t\n")
    (tmp_path / "b.run").write_text("q1 Q0 d2 1 2.0 t\n")
    os.mkfifo(tmp_path / "c.fifo")
    script = textwrap.dedent(f"""
        from trecbench.errors import DuplicateError
        from trecbench.runstudy.pool import pool
        try:
            pool([{str(tmp_path / "dup.run")!r}, {str(tmp_path / "c.fifo")!r},
                  {str(tmp_path / "b.run")!r}])
        except DuplicateError as error:
            print(error)
    """)
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=30, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert "duplicate docs d1 for topic q1 (first on line 1)" in done.stdout


@pytest.mark.parametrize(("depth", "line"), [(10, 2), (2, 3)])
def test_an_id_no_pool_file_holds_is_refused_at_its_run_and_line(tmp_path, capsys, depth, line):
    """Said as 'trecbench: a pool file cannot hold the docno 'a\\xa0b'', no run nor line
    (reviewer 379): now at the first line holding it, %XX-quoted, the rows as read (depth
    10) or ranked and cut (depth 2: the run's third line ranks first)."""
    run_file = tmp_path / "u.run"
    run_file.write_bytes(b"1 Q0 d1 1 2 t\n1 Q0 a\xc2\xa0b 2 1 t\n1 Q0 z\xc2\xa0 3 9 t\n")
    if depth == 10:
        run_file.write_bytes(b"1 Q0 d1 1 2 t\n1 Q0 a\xc2\xa0b 2 1 t\n")
    (tmp_path / "y.run").write_text("1 Q0 d2 1 1 r\n")
    out = tmp_path / "p"
    assert run(["pool", str(run_file), str(tmp_path / "y.run"), "--depth", str(depth),
                "-o", str(out)]) == 2  # fmt: skip
    said = capsys.readouterr().err.splitlines()[-1]
    shown = "a%C2%A0b" if depth == 10 else "z%C2%A0"
    assert said.startswith(f"trecbench: {run_file}:{line}: a pool file cannot hold the docno "
                           f"'{shown}' (U+00A0, ")  # fmt: skip
    assert not out.exists()


def test_an_unwritable_id_judged_already_is_left_out_not_refused(tmp_path, capsys):
    (tmp_path / "u.run").write_bytes(b"1 Q0 d1 1 2 t\n1 Q0 a\xc2\xa0b 2 1 t\n")
    (tmp_path / "q.qrels").write_bytes(b"1 0 a\xc2\xa0b 1\n")
    out = tmp_path / "p"
    args = ["pool", str(tmp_path / "u.run"), "--qrels", str(tmp_path / "q.qrels"), "-o", str(out)]
    assert run(args) == 0
    assert out.read_text() == "1 0 d1\n"


def test_a_run_given_twice_to_the_python_pool_is_refused(tmp_path):
    """As the command line refuses it: pooled with itself, a run's documents would be
    no run's own (unique 0, relevant_only 0), said without a word."""
    path = tmp_path / "a.run"
    path.write_text("1 Q0 d1 1 2 a\n1 Q0 d2 2 1 a\n")
    other = tmp_path / "b.run"
    other.write_text("1 Q0 d3 1 2 b\n")
    spelt_again = f"{tmp_path}/./a.run"
    with pytest.raises(UsageError, match="the same run as .*a.run: give it once"):
        pool([path, spelt_again, other], depth=2, names=["x", "y", "z"])
    with pytest.raises(UsageError, match="a.run: the same run is given twice"):
        pool([path, path, other], depth=2, names=["x", "y", "z"])
    table = pa.table({"qid": ["1", "1"], "docno": ["d1", "d2"], "score": [2.0, 1.0]})
    with pytest.raises(UsageError, match="run2: the same run as run1 is given twice"):
        pool([table, table, str(other)], depth=2)


def test_a_grade_refused_by_the_python_pool_is_named_as_its_argument(tmp_path):
    """Pool.to_text(grade) refused a grade in the command line's words, "--unjudged-grade
    must be ...", an option no Python call has."""
    path = tmp_path / "a.run"
    path.write_text("1 Q0 d1 1 2 a\n")
    result = pool([path], depth=2)
    with pytest.raises(UsageError, match=r"^grade must be an integer within \+-1,000,000"):
        result.to_text("1.5")
    assert result.to_text("-1") == "1 0 d1 -1\n"


@pytest.mark.parametrize("grade", [None, "0", -3])
@pytest.mark.parametrize("piece", [None, 2])
def test_the_pool_file_is_one_line_per_pooled_document_in_its_order(monkeypatch, grade, piece):
    """to_text's lines, joined by Arrow a piece at a time, are the pool's pairs in order as
    plain Python writes them (UTF-8 ids too), a copy the same; a copy with other lists
    writes those (not the arrays pool made the first's lists from), and a Pool made by
    hand writes its ids as ``str`` does."""
    import dataclasses

    if piece is not None:
        monkeypatch.setattr("trecbench.runstudy.pool.TEXT_PIECE", piece)
    runs = [{"q1": {"dé": 2.0, "d2": 1.0}, "q10": {"x": 1.0}}, {"q2": {"d2": 3.0}, "q1": {"z": 1}}]
    result = pool(runs, depth=5)
    end = "\n" if grade is None else f" {grade}\n"
    expected = "".join(f"{q} 0 {d}{end}" for q, d in zip(result.qid, result.docno, strict=True))
    pairs = [("q1", "d2"), ("q1", "dé"), ("q1", "z"), ("q10", "x"), ("q2", "d2")]
    assert list(zip(result.qid, result.docno, strict=True)) == pairs  # byte-wise
    assert result.to_text(grade) == expected
    # a copy holding the same lists (as input_warnings.carried makes for the command
    # line) joins the arrays pool made them from: no conversion of a million ids
    copy = dataclasses.replace(result, input_warnings=("said",))
    assert copy.to_text(grade) == expected and copy._arrays() is not None
    # another Pool's documents are its own (pool's arrays are not written for its lists)
    fewer = dataclasses.replace(result, qid=result.qid[:2], docno=result.docno[:2])
    assert fewer.to_text(grade) == "".join(expected.splitlines(keepends=True)[:2])
    by_hand = Pool(result.settings, [1, 2], [3, 4], [], False)  # ids written as str writes
    assert by_hand.to_text(grade) == f"1 0 3{end}2 0 4{end}"


def _write_topics(tmp_path, qrels_topics: str) -> list[str]:
    """Runs a (topics 1, 2, 3) and b (topic 1) and qrels judging d1 in each of
    ``qrels_topics``; the command line's pool arguments for them."""
    (tmp_path / "a.run").write_text("".join(f"{q} Q0 d1 1 2 a\n" for q in "123"))
    (tmp_path / "b.run").write_text("1 Q0 d1 1 2 b\n")
    (tmp_path / "q.qrels").write_text("".join(f"{q} 0 d1 1\n" for q in qrels_topics))
    runs = [str(tmp_path / "a.run"), str(tmp_path / "b.run")]
    return ["pool", *runs, "--qrels", str(tmp_path / "q.qrels"), "-o", str(tmp_path / "p")]


def test_qrels_sharing_no_topic_with_the_runs_are_named_in_a_warning(tmp_path, capsys):
    """Every judged and relevant_only count read 0, unexplained: the qrels (of other
    topics) are named in one warning line, the pool written all the same."""
    assert run(_write_topics(tmp_path, "79")) == 0
    captured = capsys.readouterr()
    assert captured.err.splitlines()[:-1] == [
        f"trecbench: warning: {tmp_path / 'q.qrels'}: no topic of the runs is in the qrels "
        "(the runs' '1', '2', '3'; the qrels' '7', '9'): nothing pooled is judged (every "
        "run's judged and relevant_only are 0)"
    ]
    rows = shown_rows(captured.out, "run")
    assert [(row["judged"], row["relevant_only"]) for row in rows] == [("0", "0")] * 2
    assert (tmp_path / "p").read_text() == "1 0 d1\n2 0 d1\n3 0 d1\n"


@pytest.mark.parametrize("hostile", ["q%1", "q\nx"])
def test_the_qrels_sharing_no_topic_are_named_as_the_gates_warning_names_them(
    tmp_path, capsys, hostile
):
    """The qrels' path was joined as it is (a '%' kept, a line feed shown \\n by the
    echo) beside the gate's warning of the same file, which names it escaped (%XX)."""
    args = _write_topics(tmp_path, "79")
    qrels = tmp_path / hostile
    qrels.write_bytes((tmp_path / "q.qrels").read_bytes().replace(b"\n", b"\r\n"))
    args[args.index("--qrels") + 1] = str(qrels)
    assert run(args) == 0
    gate, said = capsys.readouterr().err.splitlines()[:2]
    named = gate.removeprefix("trecbench: warning: ").split(": warning[R24]")[0]
    assert "%" in named.removeprefix(str(tmp_path))  # escaped: %25 or %0A
    assert said == (
        f"trecbench: warning: {named}: no topic of the runs is in the qrels (the runs' '1', "
        "'2', '3'; the qrels' '7', '9'): nothing pooled is judged (every run's judged and "
        "relevant_only are 0)"
    )


def test_a_runs_topics_the_qrels_lack_are_said_in_scores_words(tmp_path, capsys):
    """As score says a run's topics the qrels lack (its words up to what becomes of
    them: score ignores such a topic, pool pools it unjudged); b's one topic is judged."""
    args = _write_topics(tmp_path, "1")
    assert run(args) == 0
    said = capsys.readouterr().err.splitlines()[:-1]
    assert said == [
        "trecbench: warning: a: 2 run topics are not in the qrels (nothing judged there: "
        "every document pooled is to judge): 2, 3"
    ]
    runs = [str(tmp_path / name) for name in ("a.run", "b.run")]
    assert run(["score", str(tmp_path / "q.qrels"), *runs, "-m", "P@1"]) == 0
    by_score = capsys.readouterr().err.splitlines()
    assert by_score[0].startswith(said[0].split(" (")[0] + " (ignored")
    assert len(by_score) == 1  # nor of b, by either
    assert run(_write_topics(tmp_path, "123")) == 0  # every topic judged: nothing to say
    assert capsys.readouterr().err == f"wrote {tmp_path / 'p'}: 0 documents\n"


def test_pools_warnings_reach_the_python_caller_apart_from_its_inputs():
    """A result's own warnings (Pool.warnings), as compare's and leaderboard's: none
    without qrels, nor when they judge every topic of the runs."""
    runs = {"a": {"1": {"d1": 2.0}, "2": {"d1": 1.0}}, "b": {"1": {"d2": 1.0}}}
    result = pool(runs, depth=5, qrels={"7": {"d1": 1}})
    assert result.warnings == (
        "no topic of the runs is in the qrels (the runs' '1', '2'; the qrels' '7'): nothing "
        "pooled is judged (every run's judged and relevant_only are 0)",
    )
    assert result.input_warnings == ()
    result = pool(runs, depth=5, qrels={"1": {"d1": 1}})
    assert result.warnings == (
        "a: 1 run topic is not in the qrels (nothing judged there: every document pooled "
        "is to judge): 2",
    )
    assert pool(runs, depth=5, qrels={"1": {"d1": 1}, "2": {"d3": 0}}).warnings == ()
    assert pool(runs, depth=5).warnings == ()


def test_a_run_pooling_the_same_documents_as_another_is_said(tmp_path, capsys):
    """A copy of a run (or its top k in another order) shares every pooled document: both
    read "unique 0", which a warning explains, in the CLI's and the API's results."""
    first = "1 Q0 d1 1 5 a\n1 Q0 d2 2 4 a\n2 Q0 d9 1 1 a\n"
    (tmp_path / "a.run").write_text(first)
    (tmp_path / "copy.run").write_text(first)
    (tmp_path / "swapped.run").write_text("1 Q0 d2 1 5 b\n1 Q0 d1 2 4 b\n2 Q0 d9 1 1 b\n")
    (tmp_path / "other.run").write_text("1 Q0 d3 1 5 c\n2 Q0 d9 1 1 c\n")
    paths = [str(tmp_path / f"{n}.run") for n in ("a", "copy", "other", "swapped")]
    result = pool(paths, depth=2)
    assert result.warnings == (
        "copy: pools the same documents as a (to depth 2): neither has a unique document",
        "swapped: pools the same documents as a (to depth 2): neither has a unique document",
    )
    assert [c.unique for c in result.contributions] == [0, 0, 1, 0]
    assert pool(paths[:1] + paths[2:3], depth=1).warnings == ()  # d1 against d3
    assert run(["pool", *paths[:2], "--depth", "2", "-o", str(tmp_path / "p.txt")]) == 0
    assert "copy: pools the same documents as a" in capsys.readouterr().err
