"""``score``'s small-input path (issue 31): on every call it takes it prints, byte for byte,
what the general path prints (stdout, stderr, exit code), and it declines every call where
the general path has more to say than the numbers."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from random_cases import random_case

import trecbench.cli.small
from trecbench import small_text
from trecbench.cli import run
from trecbench.small_score import score_small

MEASURES = [
    [],
    ["-m", "P.5,10 map ndcg"],
    ["-m", "recip_rank", "-m", "Rprec num_ret num_rel num_rel_ret"],
    ["-m", "MRR@10 nDCG@5 HitRate@3 Recall_all@20"],
    ["-m", "recall.5,100 success.1 map_cut.10 ndcg_cut.3,1000"],
    ["-m", "official"],  # runid and num_q: declined
]
FLAGS = [[], ["-q"], ["-q", "-n"]]


def _plain_case(seed: int) -> tuple[str, str]:
    """Qrels and run the small path takes: every topic on both sides with a relevant
    document judged near the top; exact, float32-only and signed-zero score ties, docnos
    whose byte order is not their natural order, lines shuffled (every other case within
    each topic only: topics whose lines come together), tabs or spaces."""
    rng = np.random.default_rng(seed)
    sep = "\t" if seed % 3 == 0 else " "
    qrels, run = [], []
    for topic in rng.permutation(int(rng.integers(1, 9))):
        qid = f"{topic}" if seed % 2 else f"q{topic}"
        docnos = [f"D{i}" for i in rng.choice(300, size=int(rng.integers(1, 60)), replace=False)]
        base = rng.choice([0.0, -0.0, 0.5, 0.1, 1 / 3, 12345.678], size=len(docnos))
        jitter = rng.choice([0.0, 1e-9, -1e-9, 2.0**-24, 1.0], size=len(docnos))
        scores = np.where(jitter == 0.0, base, base + jitter)  # -0.0 + 0.0 is 0.0: kept -0.0
        top = scores.astype(np.float32) == scores.astype(np.float32).max()  # ranked first
        judged = [d for d, first in zip(docnos, top, strict=True) if first or rng.random() < 0.3]
        judged += [f"X{i}" for i in range(int(rng.integers(0, 3)))]  # not retrieved
        grades = [int(rng.integers(1, 4))] + [int(rng.integers(0, 4)) for _ in judged[1:]]
        qrels += [sep.join((qid, "0", d, str(g))) for d, g in zip(judged, grades, strict=True)]
        ranks = rng.permutation(len(docnos)) + 1
        lines = [
            sep.join((qid, "Q0", d, str(r), repr(float(s)), "tag"))
            for d, r, s in zip(docnos, ranks, scores, strict=True)
        ]
        rng.shuffle(lines)
        run += lines
    if seed % 2:
        rng.shuffle(run)
    return "".join(f"{line}\n" for line in qrels), "".join(f"{line}\n" for line in run)


def _files(tmp_path, qrels_text: str, run_text: str):
    qrels, run_file = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text(qrels_text)
    run_file.write_text(run_text)
    return qrels, run_file


def _score(capsys, argv) -> tuple[int, str, str]:
    code = run(["score", *argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def _both(capsys, monkeypatch, argv):
    small = _score(capsys, argv)
    with monkeypatch.context() as patch:
        patch.setattr(trecbench.cli.small, "small_score", lambda ctx: False)
        general = _score(capsys, argv)
    return small, general


@pytest.mark.parametrize("seed", range(12))
def test_the_small_path_prints_what_the_general_path_prints(tmp_path, capsys, monkeypatch, seed):
    qrels_text, run_text = _plain_case(seed)
    qrels, run_file = _files(tmp_path, qrels_text, run_text)
    taken = 0
    for measures in MEASURES:
        for flags in FLAGS:
            argv = [*flags, *measures, str(qrels), str(run_file)]
            small, general = _both(capsys, monkeypatch, argv)
            assert small == general, argv
            assert general[0] == 0
            wanted = [m for m in measures if m != "-m"] or None
            text = score_small(str(qrels), str(run_file), wanted, per_query=True, summary=True)
            taken += text is not None
    assert taken == len(FLAGS) * (len(MEASURES) - 1)  # all but 'official'


@pytest.mark.parametrize("seed", range(30))
def test_hostile_cases_give_the_general_paths_output(tmp_path, capsys, monkeypatch, seed):
    # negative and missing grades, one-sided topics, topics without a relevant document:
    # declined, or taken with the same output
    qrels_text, run_text = random_case(seed)
    qrels, run_file = _files(tmp_path, qrels_text, run_text)
    for flags in FLAGS[:2]:
        small, general = _both(capsys, monkeypatch, [*flags, str(qrels), str(run_file)])
        assert small == general


DECLINED = {
    "duplicate document": ("1 0 a 1\n", "1 Q0 a 1 2 t\n1 Q0 a 2 1 t\n"),
    "duplicate judgment": ("1 0 a 1\n1 0 a 0\n", "1 Q0 a 1 2 t\n"),
    "run topic not judged": ("1 0 a 1\n", "1 Q0 a 1 2 t\n2 Q0 a 1 2 t\n"),
    "judged topic not run": ("1 0 a 1\n2 0 a 1\n", "1 Q0 a 1 2 t\n"),
    "no relevant document": ("1 0 a 0\n", "1 Q0 a 1 2 t\n"),
    "negative grade": ("1 0 a -1\n1 0 b 1\n", "1 Q0 a 1 2 t\n"),
    "nothing judged retrieved": ("1 0 z 1\n", "1 Q0 a 1 2 t\n"),
    "tabs and spaces": ("1 0 a 1\n", "1\tQ0 a 1 2 t\n"),
    "no final newline": ("1 0 a 1\n", "1 Q0 a 1 2 t"),
    "blank line": ("1 0 a 1\n", "1 Q0 a 1 2 t\n\n"),
    "CRLF": ("1 0 a 1\n", "1 Q0 a 1 2 t\r\n"),
    "comment": ("1 0 a 1\n", "# x\n1 Q0 a 1 2 t\n"),
    "seven fields": ("1 0 a 1\n", "1 Q0 a 1 2 t x\n"),
    # a line whose last six fields alone would be plain: what no line matched is left over
    "seven fields, the last six plain": ("1 0 a 1\n", "1 Q0 a 1 2 t\nx 1 Q0 b 1 2 t\n"),
    "rank not an integer": ("1 0 a 1\n", "1 Q0 a 1.0 2 t\n"),
    "score not a number": ("1 0 a 1\n", "1 Q0 a 1 nan t\n"),
    "score beyond float32": ("1 0 a 1\n", "1 Q0 a 1 1e39 t\n"),
    "non-ASCII docno": ("1 0 a 1\n", "1 Q0 \u00e9 1 2 t\n"),
}


@pytest.mark.parametrize("case", DECLINED)
def test_the_small_path_declines_what_the_general_path_has_more_to_say_about(
    tmp_path, capsys, monkeypatch, case
):
    qrels_text, run_text = DECLINED[case]
    qrels, run_file = _files(tmp_path, qrels_text, run_text)
    assert score_small(str(qrels), str(run_file), None, per_query=True, summary=True) is None
    small, general = _both(capsys, monkeypatch, ["-q", str(qrels), str(run_file)])
    assert small == general


def test_the_small_path_declines_options_it_does_not_take(tmp_path, capsys, monkeypatch):
    qrels_text, run_text = _plain_case(1)
    qrels, run_file = _files(tmp_path, qrels_text, run_text)
    calls = []
    original = trecbench.small_score.score_small
    monkeypatch.setattr(trecbench.small_score, "score_small", lambda *a, **k: calls.append(a))
    for options in (["-c"], ["-M", "5"], ["-l", "2"], ["--format", "csv"], ["--labels", "display"]):
        assert run(["score", *options, str(qrels), str(run_file)]) == 0
    assert calls == []
    monkeypatch.setattr(trecbench.small_score, "score_small", original)
    capsys.readouterr()


def test_standard_input_is_not_read_as_a_file_named_dash(tmp_path, monkeypatch):
    qrels_text, run_text = _plain_case(2)
    qrels, run_file = _files(tmp_path, qrels_text, run_text)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "-").write_text(run_text)  # '-' is standard input, never this file
    assert score_small(str(qrels), str(run_file), None, per_query=True, summary=True)
    assert score_small(str(qrels), "-", None, per_query=True, summary=True) is None
    assert score_small("-", str(run_file), None, per_query=True, summary=True) is None


def test_a_large_file_is_not_small(tmp_path):
    path = tmp_path / "run.txt"
    line = "1 Q0 a 1 2 t\n"
    bound = small_text.SCORED_BYTES
    path.write_text(line * (bound // len(line) + 1))
    assert small_text.read_plain(str(path), "run", bound) is None
    path.write_text(line * 3)
    columns = (["1"] * 3, ["a"] * 3, ["2"] * 3, ["t"] * 3)
    assert small_text.read_plain(str(path), "run", bound) == columns


def test_a_track_sized_run_is_small_to_score_up_to_its_own_bound(tmp_path, capsys, monkeypatch):
    # 50 topics x 1,000 documents (1.4 MB)
    lines = [f"{t} Q0 doc{d} {d + 1} {1000 - d} tag\n" for t in range(50) for d in range(1000)]
    qrels_text = "".join(f"{t} 0 doc{d} {d % 2}\n" for t in range(50) for d in range(0, 30, 3))
    qrels, run_file = _files(tmp_path, qrels_text, "".join(lines))
    assert run_file.stat().st_size <= small_text.SCORED_BYTES
    assert score_small(str(qrels), str(run_file), None, per_query=True, summary=True)
    small, general = _both(capsys, monkeypatch, ["-q", str(qrels), str(run_file)])
    assert small == general
    line = "1 Q0 a 1 2 t\n"
    count, rest = divmod(small_text.SCORED_BYTES, len(line))
    run_file.write_text(line * (count - 1) + f"1 Q0 {'a' * (1 + rest)} 1 2 t\n")
    assert run_file.stat().st_size == small_text.SCORED_BYTES
    assert small_text.read_plain(str(run_file), "run", small_text.SCORED_BYTES)
    run_file.write_text(line * (count + 1))
    assert not small_text.small_file(str(run_file), small_text.SCORED_BYTES)
    assert small_text.read_plain(str(run_file), "run", small_text.SCORED_BYTES) is None


def test_a_terminal_keeps_the_small_path(tmp_path, capsys, monkeypatch):
    # progress is drawn after a second: a small run in a terminal has none to draw
    qrels, run_file = _files(tmp_path, *_plain_case(3))
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    taken = []
    monkeypatch.setattr(
        trecbench.small_score, "score_small", lambda *a, **k: taken.append(score_small(*a, **k))
    )
    run(["score", str(qrels), str(run_file)])
    assert taken and taken[0] is not None


def test_the_small_path_expects_an_unjudged_warning_where_the_general_path_gives_it():
    """small_score cannot import trecbench.evaluation (numpy): its copy of the share of
    topics beyond which the general path warns must stay that one."""
    from trecbench import small_score
    from trecbench.evaluation import unjudged

    assert small_score._NEARLY_ALL == unjudged.NEARLY_ALL


def test_a_runs_topics_are_taken_whole_where_their_lines_come_together():
    """The small path takes each topic's lines at once where they come together (told in
    one C pass, small_text.topic_blocks), and line by line where a topic's lines are apart (one
    topic's lines split by another's, or a topic come back after others): the same
    documents and scores either way, a document listed twice once."""
    from array import array

    from trecbench.small_score import _by_line, _by_topic

    for qids in (
        ["a"] * 5 + ["b"] * 3 + ["c"],
        ["a", "b", "a"],
        ["a"] * 4 + ["b"] * 2 + ["a"] * 3,
        ["a", "a", "b", "b", "c", "b"],
        ["x"],
    ):
        docnos = [f"d{i % 4}" for i in range(len(qids))]  # d0 twice in a 5-line topic
        scores = array("f", [float(i % 3) for i in range(len(qids))])
        expected = _by_line(qids, docnos, scores)
        assert _by_topic(qids, docnos, scores) == expected
        assert list(_by_topic(qids, docnos, scores)) == list(expected)  # first-seen order
    assert small_text.topic_blocks(["a"] * 7 + ["b"]) == [("a", 0, 7), ("b", 7, 8)]
    assert small_text.topic_blocks(["a", "a", "b", "b"]) == [("a", 0, 2), ("b", 2, 4)]
    assert small_text.topic_blocks(["a"] * 1000 + ["b"]) == [("a", 0, 1000), ("b", 1000, 1001)]
    assert small_text.topic_blocks(["a", "b", "a"]) is None


def test_the_fields_are_left_to_the_end_of_a_process_that_frees_nothing(
    tmp_path, capsys, monkeypatch
):
    """The console script ends the process with os._exit, which frees nothing: the small
    path's field strings are kept to then instead of being freed one by one (a sixth of
    its time on 100,000 lines). From Python (``run``, the tests) they are freed as usual."""
    import trecbench.cli as cli_module
    from trecbench import collector

    qrels, run_file = _files(tmp_path, *_plain_case(3))
    monkeypatch.setattr(collector, "_kept", None)
    monkeypatch.setattr(collector, "collect_rarely", lambda: None)  # this process's collector
    printed = score_small(str(qrels), str(run_file), None, per_query=True, summary=True)
    assert collector._kept is None
    # main() sets them
    for name in ("NUMPY_MADVISE_HUGEPAGE", "OPENBLAS_NUM_THREADS", "MIMALLOC_ALLOW_THP"):
        monkeypatch.setenv(name, "0")
    for name, stand_in in [
        ("run", lambda: 0),
        ("_exit", lambda code: None),
        ("_keep_freed_memory", int),
    ]:
        monkeypatch.setattr(cli_module, name, stand_in)
    cli_module.main()
    assert collector._kept == []
    assert score_small(str(qrels), str(run_file), None, per_query=True, summary=True) == printed
    lines = run_file.read_text().splitlines()
    assert [len(fields) for fields in collector._kept] == [
        len(qrels.read_text().split()),
        6 * len(lines),
    ]


def test_the_console_script_makes_the_collectors_young_passes_rare(monkeypatch):
    """Its imports and inputs live to the process's end: the collector's young passes over
    them freed nothing (80 of them, and 7 middle ones, on a 200,000-line run: 10 ms of its
    0.21 s). The console script makes them rare; from Python (``run``) nothing changes."""
    import gc

    import trecbench.cli as cli_module
    from trecbench import collector

    saved = gc.get_threshold()
    assert cli_module.run(["--version"]) == 0 and gc.get_threshold() == saved
    # main() sets them
    for name in ("NUMPY_MADVISE_HUGEPAGE", "OPENBLAS_NUM_THREADS", "MIMALLOC_ALLOW_THP"):
        monkeypatch.setenv(name, "0")
    for name, stand_in in [("run", lambda: 0), ("_exit", lambda code: None)]:
        monkeypatch.setattr(cli_module, name, stand_in)
    monkeypatch.setattr(cli_module, "_keep_freed_memory", int)
    monkeypatch.setattr(collector, "_kept", None)
    try:
        cli_module.main()
        assert gc.get_threshold() == (collector.YOUNG_PASS_ALLOCATIONS, *saved[1:])
    finally:
        gc.set_threshold(*saved)


TREC_EVAL_908 = Path("/work/tools/te908/trec_eval")
# scores spelt every way trec_eval's atof reads as zero, and values that tie only once
# read as float32 (0.1 and 0.10000000149, 2^24 and 2^24 + 1)
ZEROS = ["0", "-0", "+0", "0.0", "-0.0", "0e0", "-0e-0", ".0", "-.0", "0.", "+0.0e5"]
NONZERO = ["1", "1.0", "0.1", "0.10000000149", "-1", "-0.1", "1e-45", "-1e-45", "16777216"]
NONZERO += ["16777217", "0.5", "1e-38", "3.4e30"]


def _tied_case(rng: random.Random) -> tuple[str, str]:
    """Qrels and a run of few topics whose scores mostly tie (signed zeros, float32
    collisions), docnos of mixed case and punctuation, topics of one line, their lines
    together, shuffled, or a topic's lines split with part of them coming back last."""
    sep = rng.choice([" ", "\t"])
    qrels, blocks = [], []
    for qid in dict.fromkeys(f"{rng.choice('qT')}{rng.randint(0, 20)}" for _ in range(5)):
        size = rng.choice([1, 1, 2, 3, 10, 40])
        docnos = dict.fromkeys(
            "".join(rng.choices("aAbB09_-~!z", k=rng.randint(1, 3))) for _ in range(size)
        )
        spellings = ZEROS + NONZERO if rng.random() < 0.5 else ZEROS
        blocks.append([sep.join((qid, "Q0", d, "1", rng.choice(spellings), "t")) for d in docnos])
        judged = [*rng.sample(list(docnos), max(1, len(docnos) // 2)), "unretrieved"]
        grades = [rng.randint(1, 3)] + [rng.randint(0, 3) for _ in judged[1:]]
        qrels += [sep.join((qid, "0", d, str(g))) for d, g in zip(judged, grades, strict=True)]
    run = [line for block in blocks for line in block]
    if rng.random() < 0.3:
        rng.shuffle(run)
    elif rng.random() < 0.5:
        cut = rng.randint(1, len(run))
        run = run[cut:] + run[:cut]  # the first topic's first lines come back last
    return "".join(f"{line}\n" for line in qrels), "".join(f"{line}\n" for line in run)


@pytest.mark.skipif(not TREC_EVAL_908.exists(), reason="no trec_eval 9.0.8")
def test_the_small_paths_ranking_of_ties_is_trec_evals(tmp_path):
    """Against trec_eval 9.0.8 itself (score descending as float32, then docno
    descending): many ties, -0 and 0, a judged document tied with unjudged ones, topics
    whose lines come together, are interleaved or come back, a topic of one line."""
    rng = random.Random(20261203)
    measures = ["map", "P.1,2,5", "ndcg", "recip_rank", "Rprec", "ndcg_cut.1,3", "recall.2"]
    qrels, run_file = tmp_path / "q", tmp_path / "r"
    taken = 0
    for _ in range(60):
        qrels_text, run_text = _tied_case(rng)
        qrels.write_text(qrels_text)
        run_file.write_text(run_text)
        small = score_small(str(qrels), str(run_file), measures, per_query=True, summary=True)
        if small is None:
            continue  # nothing judged near the top of most topics: an unjudged warning
        taken += 1
        options = [part for m in measures for part in ("-m", m)]
        command = [TREC_EVAL_908, "-q", *options, qrels, run_file]
        expected = subprocess.run(command, capture_output=True, text=True, check=True).stdout
        assert sorted(small.splitlines()) == sorted(expected.splitlines()), run_text
    assert taken > 40


def test_the_run_is_not_read_for_qrels_the_small_path_declines(tmp_path, monkeypatch):
    """A topic without a relevant document (common in real qrels), a judgment twice or a
    topic named ``all`` declines the call from the qrels alone: the run's text was
    checked, split and ranked first, only to be declined."""
    read = []
    real = small_text.read_plain
    monkeypatch.setattr(
        small_text, "read_plain", lambda path, *a: read.append(path) or real(path, *a)
    )
    qrels, run_file = _files(tmp_path, *_plain_case(5))
    for bad in ("q9 0 d1 0\n", "all 0 d1 1\n", qrels.read_text().splitlines(True)[0]):
        read.clear()
        (tmp_path / "bad.qrels").write_text(qrels.read_text() + bad)
        assert (
            score_small(
                str(tmp_path / "bad.qrels"), str(run_file), None, per_query=False, summary=True
            )
            is None
        )
        assert read == [str(tmp_path / "bad.qrels")]
    read.clear()
    assert score_small(str(qrels), str(run_file), None, per_query=False, summary=True)
    assert read == [str(qrels), str(run_file)]
