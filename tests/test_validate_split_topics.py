"""A topic split into blocks (R20) keeps its per-topic checks (R11, R14, R15) whatever
chunks the streaming reader cuts the file into (issue 418 item 1): they were dropped, or
counted per stretch, when the blocks fell in different chunks."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from trecbench.validation import validate_run

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


def test_past_the_rows_kept_within_the_memory_budget_a_split_topic_says_so(tmp_path, monkeypatch):
    """The rows kept are a share of --memory (a quarter of what the libraries leave): a
    run with more rows keeps none to check a split topic again, and each stretch's
    findings stand, and say so (the ties "at least")."""
    from trecbench.validation import split_topics

    # rows of 16 MiB: --memory 278 leaves 128 MiB, a quarter of it keeps 2 rows; 1000, 13
    monkeypatch.setattr(split_topics, "ROW_BYTES", 16 << 20)
    path = tmp_path / "s3.run"
    # d4 tied with d3 in their stretch; d5 (rank 3) scored above d4 (rank 2); d6 repeats
    # rank 3 within the last stretch
    path.write_bytes(SPLIT + b"1 Q0 d4 2 1.5 t\n1 Q0 d5 3 2.5 t\n1 Q0 d6 3 0.5 t\n")
    whole = validate_run(path, profile="strict").findings
    found = validate_run(path, profile="strict", chunk_bytes=16, memory=278).findings
    said = {f.check: f.message for f in found}
    stretch = (
        "(checked within each stretch of the file: topic 1 is split, R20, in a run of more "
        "than 2 lines, the most kept within the memory budget)"
    )
    assert said["R14"].endswith(stretch)
    # rank 1 again in another stretch is not seen; rank 3 twice within the last one is
    assert said["R11.unique"] == "rank 3 appears twice in topic 1 (also line 6) " + stretch
    assert said["R15.tie"].startswith("at least 2 documents of topic 1")
    enough = validate_run(path, profile="strict", chunk_bytes=16, memory=1000).findings
    assert [(f.check, f.line, f.message) for f in enough] == [
        (f.check, f.line, f.message) for f in whole
    ]
    assert "also line 1" in {f.check: f.message for f in enough}["R11.unique"]
