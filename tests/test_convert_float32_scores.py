"""The written scores ``n - rank + 1`` are exact in float32 (where trec_eval 9.x holds
scores) up to 2^24 documents a query; a query of more is noted, naming it and its count,
rather than written as if trec_eval 9.x kept its order."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from trecbench.cli import _register, run
from trecbench.convert import tables
from trecbench.convert.common import Report, ranked_run

_register()


def test_float32_holds_every_score_up_to_2_to_the_24_and_not_one_more():
    # independent of trecbench: numpy's float32 is IEEE 754 single precision (24-bit
    # significand), as trec_eval 9.x's float
    scores = np.arange(2**24, 0, -1, dtype=np.int64)  # n - rank + 1 for n = 2^24
    assert (scores.astype(np.float32).astype(np.int64) == scores).all()
    assert np.float32(2**24 + 1) == np.float32(2**24)  # n = 2^24 + 1: the top two tie
    assert tables.FLOAT32_EXACT == 2**24
    lengths = np.array([3, 2**24, 2**24 + 1, 1, 2**25])
    assert tables.inexact_queries(lengths).tolist() == [2, 4]


TREC_EVAL = {version: Path(f"/work/tools/te{version}/trec_eval") for version in ("908", "100")}


@pytest.mark.skipif(not all(p.exists() for p in TREC_EVAL.values()), reason="no trec_eval")
def test_trec_eval_9_ties_the_scores_of_a_query_over_the_bound_and_10_does_not(tmp_path):
    """The top two written scores of a query of 2^24 + 1 documents: 9.0.8 ties them and
    puts docno b first (docno descending), 10.0 keeps the producer's a first; at 2^24
    documents both keep it. The note's claim, checked on the reference binaries."""
    qrels = tmp_path / "q.qrels"
    qrels.write_text("q1 0 a 1\n")

    def p_1(version: str, top: int) -> str:
        run_file = tmp_path / "r.run"
        run_file.write_text(f"q1 Q0 a 1 {top} t\nq1 Q0 b 2 {top - 1} t\n")
        done = subprocess.run(
            [TREC_EVAL[version], "-m", "P.1", qrels, run_file], capture_output=True, check=True
        )
        return done.stdout.split()[-1].decode()

    over = tables.FLOAT32_EXACT + 1  # n - rank + 1 at rank 1 for n = 2^24 + 1
    assert (p_1("908", over), p_1("100", over)) == ("0.0000", "1.0000")
    assert (p_1("908", over - 1), p_1("100", over - 1)) == ("1.0000", "1.0000")


def test_a_query_over_the_bound_is_noted_with_its_count(monkeypatch):
    monkeypatch.setattr(tables, "FLOAT32_EXACT", 2)  # 3 documents: over it, as 2^24 + 1
    frame = pd.DataFrame(
        {
            "qid": ["q1", "q1", "q2", "q2", "q2", "q3"],
            "docno": ["a", "b", "a", "b", "c", "a"],
            "order": [1, 2, 1, 2, 3, 1],
            "score": np.nan,
        }
    )
    report = Report()
    ranked_run(frame, "t", None, report)
    assert len(report.notes) == 1
    assert report.notes[0].startswith("run t: query 'q2' holds 3 documents, more than 2^24 (2)")
    assert "of its first 1 lie beyond" in report.notes[0]
    report = Report()
    ranked_run(frame, "t", None, report, depth=2)  # cut: exact again
    assert report.notes == []


def test_the_note_is_printed_by_convert(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(tables, "FLOAT32_EXACT", 2)
    source = tmp_path / "m.tsv"
    source.write_text("q1\td1\t1\nq1\td2\t2\nq1\td3\t3\n")
    monkeypatch.setattr(
        sys, "argv", ["trecbench", "convert", "msmarco", str(source), "-o", str(tmp_path / "o")]
    )
    assert run() == 0
    err = capsys.readouterr().err
    assert "note: run m: query 'q1' holds 3 documents, more than 2^24" in err
