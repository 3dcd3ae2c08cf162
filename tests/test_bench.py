"""benchmarks/run.py: the "output = trec_eval" check of `make bench`, on the bundled demo
run and the trec_eval binary's stored output for it (tests/fixtures/trec_eval_demo)."""

from __future__ import annotations

from pathlib import Path

from conftest import ROOT

from benchmarks.run import SAME_AS, compare, trec_lines

FIXTURES = Path(__file__).parent / "fixtures" / "trec_eval_demo"
QRELS, RUN = ROOT / "qrels" / "hpo-demo.qrels", ROOT / "runs" / "tfidf-word.run"


def _reference() -> dict[tuple[str, str], str]:
    # as bench_case builds it: the -q output, and recip_rank on -M 10 as recip_rank@M10
    reference = trec_lines(FIXTURES / "tfidf-word.kpi.out")
    for (label, qid), value in trec_lines(FIXTURES / "tfidf-word.mrr10.out").items():
        reference[(f"{label}@M10", qid)] = value
    return reference


def _score(tmp_path: Path, *flags: str) -> Path:
    import subprocess
    import sys

    out = tmp_path / f"ours{''.join(flags)}.txt"
    with out.open("wb") as stdout:
        subprocess.run(
            [sys.executable, "-m", "trecbench", "score", *flags, str(QRELS), str(RUN)],
            stdout=stdout,
            check=True,
        )
    return out


def test_identical_output_is_every_value_and_nothing_else(tmp_path):
    reference, topics = _reference(), 56
    per_query = _score(tmp_path, "-q")
    assert compare(per_query, reference, per_query=True) == (True, len(SAME_AS) * (topics + 1))
    summary = _score(tmp_path, "--format", "trec")
    assert compare(summary, reference, per_query=False) == (True, len(SAME_AS))
    # a value that differs, or one trecbench left out, is not identical
    lines = per_query.read_text().splitlines()
    changed = tmp_path / "changed.txt"
    changed.write_text("\n".join([*lines[:-1], lines[-1].replace("0.", "1.")]) + "\n")
    assert not compare(changed, reference, per_query=True)[0]
    dropped = tmp_path / "dropped.txt"
    dropped.write_text("\n".join(line for line in lines if "\tde-01\t" not in line) + "\n")
    assert not compare(dropped, reference, per_query=True)[0]
    assert not compare(per_query, reference, per_query=False)[0]  # per-topic lines extra
