"""score says the same of a run however it is given: a regular file is read without the
validator's gate, so what the gate alone would say of a valid run (ties, rank order, run
tags: validate's to say) is not said of a run from standard input or a gzipped file
either; it printed six R15 warnings of a fused run read from a pipe."""

from __future__ import annotations

import gzip
import subprocess
import sys

from conftest import ROOT

QRELS = str(ROOT / "qrels" / "hpo-demo.qrels")


def _score(*args: str, stdin: bytes | None = None) -> tuple[int, bytes, bytes]:
    done = subprocess.run(
        [sys.executable, "-m", "trecbench", "score", *args],
        input=stdin if stdin is not None else b"",
        capture_output=True,
        check=False,
    )
    return done.returncode, done.stdout, done.stderr


def test_a_run_with_ties_gets_one_stderr_from_a_file_a_pipe_and_gzip(tmp_path):
    tied = tmp_path / "tied.run"  # two scores per topic, each shared: R15 in validate
    tied.write_text(
        "".join(
            f"{qid} Q0 HP:000000{i} {i} {2 - i // 2} t\n"
            for qid in ("de-01", "de-02")
            for i in range(4)
        )
    )
    packed = tmp_path / "tied.run.gz"
    packed.write_bytes(gzip.compress(tied.read_bytes()))
    base = ["--compat", "10.0", "-c", "-m", "P.5", QRELS]
    done = [
        _score(*base, str(tied)),
        _score(*base, "-", stdin=tied.read_bytes()),
        _score(*base, str(packed)),
    ]
    assert [code for code, _, _ in done] == [0, 0, 0]
    assert done[1][1] == done[2][1] == done[0][1]  # the same numbers
    for _, _, err in done:  # no validator finding (R11 zero-based ranks, R15 ties) of any
        assert b"warning[R" not in err, err
