"""Long ids cost what their bytes cost: the string hash mixes each 8-byte word once.

One 100 KB docno in a 300,000-line run used to make ``score`` take 60-110 s and ``validate``
187 s: the hash looped once per word of the *longest* string over the whole slice. These
tests count the work (words mixed), never seconds; ``make bench`` times the ``longid``
case.
"""

from __future__ import annotations

import pyarrow as pa
import pytest

from trecbench import hash_index

LONG = 100_000


@pytest.fixture
def mixed_words(monkeypatch) -> list[int]:
    """Number of words passed through the hash's mixer, call by call."""
    counts: list[int] = []
    mix = hash_index._mix

    def counting(values):
        counts.append(len(values))
        return mix(values)

    monkeypatch.setattr(hash_index, "_mix", counting)
    return counts


def _words(strings: list[str]) -> int:
    """What a linear hash must mix: one word per started 8 bytes (one for "")."""
    return sum(max(1, -(-len(s.encode()) // 8)) for s in strings)


def test_each_word_is_mixed_once(mixed_words):
    ids = [f"D{i}" for i in range(50_000)]
    ids[123] = "x" * LONG
    hash_index.string_hash(pa.array(ids))
    # before: 12,500 passes over all 50,000 rows (625 million words)
    assert sum(mixed_words) == _words(ids) == 50_000 - 1 + LONG // 8


def test_the_hash_depends_only_on_the_bytes(monkeypatch):
    long = "y" * (LONG - 3) + "end"
    strings = ["", "a", "a\0", "abcdefgh", "abcdefgh\0", long, long[:-1] + "x", "é" * 9, "q"]
    strings += ["abcdefgh" + "ijklmnop", "ijklmnop" + "abcdefgh", long]
    column = pa.array(strings * 3)
    whole = hash_index.string_hash(column)
    assert whole[5] == whole[-1] and len(set(whole[: len(strings) - 1].tolist())) == 11
    # the same hash whatever the slicing: rows per slice, bytes per slice, chunks, offsets
    monkeypatch.setattr(hash_index, "_SLICE", 4)
    monkeypatch.setattr(hash_index, "_SLICE_BYTES", 16)
    chunked = pa.chunked_array([column.slice(0, 7), column.slice(7, 1), column.slice(8)])
    for other in (column, chunked, column.cast(pa.large_string())):
        assert hash_index.string_hash(other).tolist() == whole.tolist()
    assert hash_index.string_hash(column.slice(5, 1)).tolist() == [whole[5]]


def test_score_and_validate_with_one_long_docno(tmp_path, mixed_words):
    import trecbench
    from trecbench.validation import validate_run

    docnos = [f"D{i}" for i in range(2_000)]
    docnos[7] = "x" * LONG
    run = tmp_path / "long.run"
    run.write_text("".join(f"1 Q0 {d} {r} {-r} t\n" for r, d in enumerate(docnos, 1)))
    qrels = tmp_path / "long.qrels"
    qrels.write_text(f"1 0 {'x' * LONG} 1\n1 0 D0 0\n")
    result = trecbench.evaluate(qrels, run, ["P.10", "recip_rank"], engine="fast")
    summary = result.runs[0].summary
    assert (float(summary["P_10"]), float(summary["recip_rank"])) == (0.1, 1 / 8)
    assert validate_run(run, max_depth=2_000).ok
    # scoring hashes the run and the qrels, validate the run and its qid: a few passes
    # over the bytes, not one pass over the run per word of the long docno (12,500)
    assert sum(mixed_words) <= 4 * (_words(docnos) + _words(["x" * LONG]) + 10)
