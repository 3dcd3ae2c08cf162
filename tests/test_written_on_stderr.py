"""What convert and validate --fix wrote is said on stderr, as fuse, pool, score --report,
compare and benchmark say ``wrote PATH``: both printed it on standard output, even
convert --quiet, so that ``convert ... -o DIR > log`` or a pipe took messages for data."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TSV = ROOT / "data" / "convert" / "msmarco-run.tsv"
RUN = ROOT / "runs" / "tfidf-char.run"


def _trecbench(*args, **kwargs) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "trecbench", *map(str, args)]
    streams = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE, **kwargs}
    return subprocess.run(command, cwd=ROOT, **streams)


def test_convert_says_what_it_wrote_on_stderr(tmp_path):
    for quiet in ([], ["--quiet"]):
        out = tmp_path / f"out{len(quiet)}"
        done = _trecbench("convert", *quiet, "msmarco", TSV, "-o", out)
        assert (done.returncode, done.stdout) == (0, b"")
        assert done.stderr.decode().splitlines() == [
            f"wrote {out / 'msmarco-run.run'}: 2 queries, 5 documents",
            f"wrote {out / 'msmarco-run.sidecar.json'}",
        ]


def test_convert_into_a_folder_runs_without_a_standard_output(tmp_path):
    # it prints nothing there now: a closed or full standard output stops it no more
    done = _trecbench("convert", "msmarco", TSV, "-o", tmp_path / "a", stdout=subprocess.DEVNULL)
    assert done.returncode == 0
    with open("/dev/full", "wb") as full:
        assert (
            _trecbench("convert", "msmarco", TSV, "-o", tmp_path / "b", stdout=full).returncode == 0
        )
    shut = subprocess.run(  # standard output closed (>&-)
        ["sh", "-c", 'exec "$@" >&-', "sh", sys.executable, "-m", "trecbench", "convert",
         "msmarco", str(TSV), "-o", str(tmp_path / "c")],
        cwd=ROOT, stderr=subprocess.PIPE,
    )  # fmt: skip
    assert shut.returncode == 0, shut.stderr
    for name in "abc":
        assert (tmp_path / name / "msmarco-run.run").read_bytes() == (
            tmp_path / "a" / "msmarco-run.run"
        ).read_bytes()


def test_the_run_of_o_dash_stays_alone_on_standard_output(tmp_path):
    done = _trecbench("convert", "msmarco", TSV, "-o", "-")
    assert done.returncode == 0
    assert done.stdout.startswith(b"1048585\tQ0\t7187158\t1\t3\tmsmarco-run\n")
    assert done.stderr == b"wrote standard output: 2 queries, 5 documents\n"


def test_validate_fix_says_what_it_wrote_on_stderr(tmp_path):
    fixed = tmp_path / "f.run"
    done = _trecbench("validate", RUN, "--fix", fixed)
    assert done.returncode == 0
    out, err = done.stdout.decode().splitlines(), done.stderr.decode().splitlines()
    assert err[0] == f"{RUN}: wrote the canonical run to {fixed}; changes:"
    assert err[1].startswith("  moved into trec_eval order") and len(err) == 2
    assert not any("wrote" in line for line in out)
    assert out[-1] == f"{fixed}: OK: 1 file(s), 2800 lines: 0 error(s), 0 warning(s), 0 info"
