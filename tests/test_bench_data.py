"""benchmarks/data.py and the huge case's sample: the seeded data `make bench` generates on
first use is well-formed TREC text that trecbench reads, the same bytes for the same seed,
and the sample holds exactly the lines of the topics it names."""

from __future__ import annotations

from benchmarks.data import ensure_systems
from benchmarks.run import SAMPLE_SUFFIX, _sample
from trecbench.inputs import read_qrels, read_run


def _lines(path):
    return path.read_text().splitlines()


def test_generated_runs_and_qrels_are_read_back_with_every_line(tmp_path):
    runs, qrels = ensure_systems(tmp_path, 120, 7, 3, 2, scattered=True, long_docno=40)
    for run in runs:
        lines = _lines(run)
        assert len(lines) == 120 * 7
        assert {len(line.split(" ")) for line in lines} == {6}
        table = read_run(run)
        assert len(table) == 120 * 7 and table["qid"].nunique() == 120
    assert max(len(line.split(" ")[2]) for line in _lines(runs[0])) == 40
    judged = read_qrels(qrels)
    assert {len(line.split(" ")) for line in _lines(qrels)} == {4}
    assert set(judged["rel"].unique()) <= {0, 1, 2, 3} and judged["qid"].nunique() == 120


def test_the_same_seed_gives_the_same_bytes_and_another_seed_others(tmp_path):
    first, first_qrels = ensure_systems(tmp_path / "a", 50, 4, 9, 1)
    again, again_qrels = ensure_systems(tmp_path / "b", 50, 4, 9, 1)
    other, _ = ensure_systems(tmp_path / "c", 50, 4, 10, 1)
    assert first[0].read_bytes() == again[0].read_bytes()
    assert first_qrels.read_bytes() == again_qrels.read_bytes()
    assert first[0].read_bytes() != other[0].read_bytes()


def test_the_sample_holds_the_lines_of_its_topics_and_no_other(tmp_path):
    (run,), qrels = ensure_systems(tmp_path, 250, 3, 5, 1)
    sample_run, sample_qrels, qids = _sample(run, qrels, tmp_path)
    assert qids == {"100", "200"}  # of qids 0..249, those ending in SAMPLE_SUFFIX
    for whole, part in ((run, sample_run), (qrels, sample_qrels)):
        expected = [line for line in _lines(whole) if line.split(" ")[0].endswith(SAMPLE_SUFFIX)]
        assert _lines(part) == expected and expected
