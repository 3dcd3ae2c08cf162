"""A topic split into blocks (R20) keeps its per-topic checks (R11, R14, R15) whatever
chunks the streaming reader cuts the file into (issue 418 item 1): they were dropped, or
counted per stretch, when the blocks fell in different chunks."""

from __future__ import annotations

import errno
import os
import tempfile

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from trecbench.validation import split_topics, validate_run

# topic 1 (ranks 1 2, scores 3.0 2.0), topic 2, topic 1 again (rank 1 again, score 1.5)
SPLIT = b"1 Q0 d1 1 3.0 t\n1 Q0 d2 2 2.0 t\n2 Q0 x0 1 1 t\n1 Q0 d3 1 1.5 t\n"


def _found(path, chunk_bytes=None):
    options = {} if chunk_bytes is None else {"chunk_bytes": chunk_bytes}
    result = validate_run(path, profile="strict", **options)
    return [(f.check, f.line, f.message) for f in result.findings], result.counts


def test_a_topic_coming_back_in_another_chunk_keeps_its_rank_checks(tmp_path):
    path = tmp_path / "s3.run"
    path.write_bytes(SPLIT)
    whole, _ = _found(path)
    # by hand: sorted by rank, topic 1 is d1 (1, line 1), d3 (1, line 4), d2 (2, line 2):
    # rank 1 twice, and rank 2's 2.0 above rank 1's 1.5 (d3, the last rank 1)
    assert [(check, line) for check, line, _ in whole] == [
        ("R14", 2),
        ("R11.unique", 4),
        ("R20.order", 4),
        ("R20.split", 4),
    ]
    assert "rank 1 appears twice in topic 1 (also line 1)" in whole[1][2]
    for chunk_bytes in (1, 16, 40, 48):  # each line a chunk; topic 2 and topic 1 apart
        assert _found(path, chunk_bytes)[0] == whole, chunk_bytes


def test_ties_of_a_topic_in_blocks_far_apart_are_counted_whole(tmp_path):
    path = tmp_path / "ties.run"
    path.write_bytes(b"1 Q0 a 1 2 t\n1 Q0 b 2 1 t\n2 Q0 c 1 1 t\n1 Q0 e 3 1 t\n1 Q0 f 4 2 t\n")
    whole, _ = _found(path)
    ties = [message for check, _, message in whole if check == "R15.tie"]
    # by hand: topic 1's scores 2 1 1 2, all four tied with another (no "at least")
    assert ties == [
        "4 documents of topic 1 share their score with another document; trec_eval orders "
        "tied documents by docno, descending"
    ]
    for chunk_bytes in (1, 13, 30):
        assert _found(path, chunk_bytes)[0] == whole, chunk_bytes


_LINE = st.tuples(
    st.sampled_from(["1", "2", "3", "10"]),
    st.sampled_from(["a", "b", "c", "d"]),
    st.sampled_from(["1", "2", "3", "4", "0", "x"]),
    st.sampled_from(["1", "2", "2.5", "1.00000001", "1.00000002", "3", "nan"]),
)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(lines=st.lists(_LINE, min_size=1, max_size=30), chunk_bytes=st.integers(1, 200))
def test_random_runs_with_split_topics_give_the_same_findings_in_any_chunks(
    tmp_path, lines, chunk_bytes
):
    path = tmp_path / "r.run"
    path.write_bytes(
        "".join(f"{q} Q0 {d} {rank} {score} t\n" for q, d, rank, score in lines).encode()
    )
    assert _found(path, chunk_bytes) == _found(path)


# topic 1 split three ways: d4 tied with d3 in their stretch; d5 (rank 3) scored above d4
# (rank 2); d6 repeats rank 3 within the last stretch; topic 2 split too
SPLIT3 = SPLIT + b"1 Q0 d4 2 1.5 t\n2 Q0 x1 1 1 t\n1 Q0 d5 3 2.5 t\n1 Q0 d6 3 0.5 t\n"


@pytest.fixture
def scratch(tmp_path, monkeypatch):
    """An empty folder as TMPDIR, where the kept rows' scratch folder goes."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


def _no_space(*_):
    """What writing to a full disk raises."""
    raise OSError(errno.ENOSPC, "No space left on device")


def test_rows_kept_in_a_temporary_file_give_the_findings_kept_in_memory(
    tmp_path, monkeypatch, scratch
):
    """Past MEMORY_ROWS the rows go to files in a scratch folder of TMPDIR, read back a
    few rows at a time and in groups of few rows: the same findings as all in memory (and
    as one chunk), and the folder gone after."""
    path = tmp_path / "s3.run"
    path.write_bytes(SPLIT3)
    whole, _ = _found(path)
    in_memory = _found(path, 16)
    assert in_memory[0] == whole
    written = []
    write = split_topics._Files.write
    monkeypatch.setattr(split_topics._Files, "write", lambda s, b: written.append(b) or write(s, b))
    for memory_rows, read_rows, group_rows in ((2, 3, 1), (0, 1, 4), (5, 100, 2)):
        monkeypatch.setattr(split_topics, "MEMORY_ROWS", memory_rows)
        monkeypatch.setattr(split_topics, "READ_ROWS", read_rows)
        monkeypatch.setattr(split_topics, "GROUP_ROWS", group_rows)
        written.clear()
        assert _found(path, 16) == in_memory, memory_rows
        assert sum(len(batch[0]) for batch in written) == 8  # every row, once
        assert list(scratch.iterdir()) == []


def test_rows_that_cannot_be_written_leave_each_stretch_s_findings_said_so(
    tmp_path, monkeypatch, scratch
):
    """A temporary file that cannot be written (a full disk) keeps no row: a split topic's
    R11, R14 and R15 stand per stretch and say so, and nothing is left in TMPDIR."""
    monkeypatch.setattr(split_topics, "MEMORY_ROWS", 2)
    monkeypatch.setattr(split_topics._Files, "write", _no_space)
    path = tmp_path / "s3.run"
    path.write_bytes(SPLIT3)
    found = validate_run(path, profile="strict", chunk_bytes=16).findings
    said = {f.check: f.message for f in found}
    stretch = (
        "(checked within each stretch of the file: topic 1 is split, R20, and the temporary "
        "file of the rows to check it whole could not be written: No space left on device)"
    )
    # rank 1 again in another stretch is not seen, nor rank 2's score above rank 1's (R14:
    # line 2 whole), nor topic 2's tie; rank 3 twice within the last stretch is
    assert "R14" not in said
    assert said["R11.unique"] == "rank 3 appears twice in topic 1 (also line 7) " + stretch
    assert said["R15.tie"].startswith("at least 2 documents of topic 1")
    assert list(scratch.iterdir()) == []
    # a flush that fails at the end (what a buffered write leaves to it): the same
    monkeypatch.setattr(split_topics._Files, "write", lambda self, batch: None)
    monkeypatch.setattr(split_topics._Files, "flush", _no_space)
    again = validate_run(path, profile="strict", chunk_bytes=16).findings
    assert [(f.check, f.line, f.message) for f in again] == [
        (f.check, f.line, f.message) for f in found
    ]


def test_more_groups_than_open_files_are_routed_in_rounds_with_the_same_findings(
    tmp_path, monkeypatch, scratch
):
    """Past OPEN_BUCKETS groups the kept rows are routed to the groups' files in rounds,
    one read through the files each (not one per group): the in-memory findings, and the
    folder gone after."""
    # topics 1-5 each split in two (ranks 1 2 | 1 3): rank 1 twice, rank 2 missing
    first = "".join(f"{q} Q0 a{q} 1 3 t\n{q} Q0 b{q} 2 2 t\n" for q in range(1, 6))
    again = "".join(f"{q} Q0 c{q} 1 1 t\n{q} Q0 d{q} 3 1 t\n" for q in range(1, 6))
    path = tmp_path / "many.run"
    path.write_bytes((first + again).encode())
    in_memory = _found(path, 16)
    assert in_memory[0] == _found(path)[0]
    assert sum(check == "R11.unique" for check, _, _ in in_memory[0]) == 5
    reads = []
    read = split_topics._Files.read
    monkeypatch.setattr(
        split_topics._Files, "read", lambda s, rows: reads.append(rows) or read(s, rows)
    )
    monkeypatch.setattr(split_topics, "MEMORY_ROWS", 0)
    monkeypatch.setattr(split_topics, "READ_ROWS", 3)
    monkeypatch.setattr(split_topics, "GROUP_ROWS", 4)  # a topic a group: 5 groups
    for open_buckets, passes in ((2, 3), (1, 5), (64, 1)):
        monkeypatch.setattr(split_topics, "OPEN_BUCKETS", open_buckets)
        reads.clear()
        assert _found(path, 16) == in_memory, open_buckets
        assert reads == [20] * passes  # 20 rows kept, read through once a round
        assert list(scratch.iterdir()) == []


def test_group_files_that_cannot_be_written_leave_each_stretch_s_findings_said_so(
    tmp_path, monkeypatch, scratch
):
    """Routing the kept rows to the groups' files at the end writes too: a full disk then
    keeps no row, as one while the file is read (the findings of the test above), and
    nothing is left in TMPDIR."""
    monkeypatch.setattr(split_topics, "MEMORY_ROWS", 2)
    path = tmp_path / "s3.run"
    path.write_bytes(SPLIT3)
    whole = validate_run(path, profile="strict", chunk_bytes=16).findings
    with monkeypatch.context() as patch:  # the rows cannot be written as the file is read
        patch.setattr(split_topics._Files, "write", _no_space)
        found = validate_run(path, profile="strict", chunk_bytes=16).findings
    assert whole != found

    def full_open(name, *args):
        if os.path.basename(name).startswith("group"):  # a group's file (not a column's)
            _no_space()
        return open(name, *args)

    monkeypatch.setattr(split_topics, "open", full_open, raising=False)
    routed = validate_run(path, profile="strict", chunk_bytes=16).findings
    assert [(f.check, f.line, f.message) for f in routed] == [
        (f.check, f.line, f.message) for f in found
    ]
    assert any("could not be written: No space left" in f.message for f in routed)
    assert list(scratch.iterdir()) == []


def test_the_re_check_of_split_topics_has_bars_of_its_own(tmp_path, monkeypatch, capsys, scratch):
    """The file's bar sat at 100% while the split topics' rows were sorted into groups
    and checked again (seconds on millions of lines): each step has its bar, on a
    terminal only, never with --quiet."""
    from trecbench.cli import progress, run

    monkeypatch.setattr(progress.StderrProgress.__init__, "__defaults__", (0.0, 0.0, " steps"))
    monkeypatch.setitem(validate_run.__kwdefaults__, "chunk_bytes", 16)  # a line a chunk
    monkeypatch.setattr(split_topics, "MEMORY_ROWS", 0)  # every row in the files
    monkeypatch.setattr(split_topics, "GROUP_ROWS", 1)  # a topic a group: 2 groups
    path = tmp_path / "s3.run"
    path.write_bytes(SPLIT3)  # 8 lines: topics 1 and 2 split
    monkeypatch.setattr("sys.stderr.isatty", lambda: True, raising=False)
    assert run(["validate", str(path)]) == 0
    err = capsys.readouterr().err
    assert f"grouping the split topics' lines of {path}: 100%" in err and "8/8 [" in err
    assert f"re-checking the split topics of {path}: 100%" in err and "2/2 [" in err
    assert run(["validate", "--quiet", str(path)]) == 0
    assert "split topics" not in capsys.readouterr().err
    monkeypatch.setattr("sys.stderr.isatty", lambda: False, raising=False)
    assert run(["validate", str(path)]) == 0
    assert "split topics" not in capsys.readouterr().err


def test_a_full_tmpdir_is_said_even_when_no_stretch_shows_anything(tmp_path, monkeypatch, scratch):
    """Topics 1 and 2, then both again with ranks restarting at 1: each stretch is clean,
    so without a finding of its own the lost re-check (rank 1 twice in each topic) went
    unsaid; one info says it, in the JSON output too."""
    monkeypatch.setattr(split_topics, "MEMORY_ROWS", 2)
    monkeypatch.setattr(split_topics._Files, "write", _no_space)
    half = "1 Q0 a{0} 1 2 t\n1 Q0 b{0} 2 1 t\n2 Q0 c{0} 1 2 t\n2 Q0 d{0} 2 1 t\n"
    path = tmp_path / "big2.run"
    path.write_text(half.format(1) + half.format(2))
    result = validate_run(path, chunk_bytes=16)
    found = result.findings
    said = (
        "topics 1, 2 (split, R20) could not be re-checked whole (TMPDIR: No space left on "
        "device): R11/R14/R15 checked within each stretch only"
    )
    assert not [f for f in found if f.rule in ("R11", "R14", "R15")]  # each stretch clean
    unchecked = [(f.severity, f.line, f.message) for f in found if f.check == "R20.unchecked"]
    assert unchecked == [("info", 1, said)]
    # the JSON output (validate --format json) carries it
    assert said in [f["message"] for f in result.to_dict()["findings"]]


def test_the_lost_re_check_is_printed_past_show_s_cap_of_r20(tmp_path, monkeypatch, capsys):
    """R20.unchecked shares its rule with R20.split and R20.order, whose findings the text
    output capped at --show per rule (now per check): six topics split early within one
    chunk (re-checked whole there) put their R20 lines first, and the one info saying that
    topic z's R11, R14 and R15 were not re-checked whole went into 'N more [R20] not
    shown', rank 1 twice in z unsaid. It is printed whatever --show."""
    from trecbench.cli import run

    monkeypatch.setattr(split_topics, "MEMORY_ROWS", 0)
    monkeypatch.setattr(split_topics._Files, "write", _no_space)
    # a-f twice (lines 1-12), then z, y, z again with rank 1 once more: z comes back in
    # the next chunk (of 13 lines of 14 bytes), a-f do not
    early = "".join(f"{q} Q0 {q}{n} {n + 1} {9 - n} t\n" for n in range(2) for q in "abcdef")
    path = tmp_path / "late.run"
    path.write_text(early + "z Q0 z1 1 2 t\ny Q0 y1 1 1 t\nz Q0 z2 1 1 t\n")
    monkeypatch.setitem(validate_run.__kwdefaults__, "chunk_bytes", 13 * 14)
    said = (
        f"{path}:13:qid: info[R20]: topic z (split, R20) could not be re-checked whole "
        "(TMPDIR: No space left on device): R11/R14/R15 checked within each stretch only"
    )
    for show, more in (("5", 2), ("1", 6)):
        assert run(["validate", "--quiet", "--show", show, str(path)]) == 0
        out = capsys.readouterr().out.splitlines()
        assert said in out, show
        # 7 R20.split (a-f, z), an R20.order and the R20.unchecked: capped per check
        notes = [line for line in out if " note: " in line]
        assert notes == [f"{path}: note: {more} more [R20.split] not shown (7 in total)"], show


def test_a_split_topic_has_one_top_ten_whatever_the_chunks(tmp_path):
    """X4 counted each part's top 10 of a topic split over chunks (20 documents in the
    top 10 of topic 1 here, beside 10 from a file read as one chunk)."""
    lines = [f"1 Q0 a{i} {i + 1} {30 - i} t\n" for i in range(10)]
    lines += ["2 Q0 x 1 1 t\n"]
    lines += [f"1 Q0 b{i} {i + 11} {40 - i} t\n" for i in range(10)]
    run, qrels = tmp_path / "r.run", tmp_path / "q.qrels"
    run.write_text("".join(lines))
    # judged: topic 1's a0-a4 (its b0-b9 rank above them: the top 10 is all unjudged)
    qrels.write_text("".join(f"1 0 a{i} 1\n" for i in range(5)))
    for chunk_bytes in (None, 1, 64, 200):
        options = {} if chunk_bytes is None else {"chunk_bytes": chunk_bytes}
        result = validate_run(run, qrels=qrels, **options)
        (x4,) = [f.message for f in result.findings if f.check == "X4"]
        assert x4.startswith("10 of 10 documents in the top 10"), chunk_bytes
