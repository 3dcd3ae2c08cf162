"""`score` with several runs prints nothing when one of them stops the call (exit 4).

trec_eval scores one run; where it stops part-way (a document listed twice) it has printed
the topics before with -q, and `score` given that one run prints the same bytes
(docs/trec-eval.md, "Where trec_eval stops part-way"). Several runs' output is trecbench's
own (a ``# <run>`` header over each block), and all or nothing: a later run listing a
document twice printed the earlier runs whole and a header over nothing, exit 4, while
`--format table`, a malformed run (exit 2) and no common topic (exit 7) printed nothing.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

QRELS = "q1 0 a 1\nq2 0 b 1\n"
RUN = "q1 Q0 a 1 1 t\nq2 Q0 b 1 1 t\n"
DUPLICATE = RUN + "q2 Q0 b 2 0.5 t\n"  # b twice in q2, the later topic: q1 evaluated first
SAID = "trecbench: dup.run:3: duplicate docs b for topic q2 (first on line 2)\n"


def _score(tmp_path, *argv: str) -> subprocess.CompletedProcess:
    (tmp_path / "qrels").write_text(QRELS)
    (tmp_path / "a.run").write_text(RUN)
    (tmp_path / "dup.run").write_text(DUPLICATE)
    command = [sys.executable, "-m", "trecbench", "score", "--quiet", "-m", "map", *argv]
    return subprocess.run(command, cwd=tmp_path, capture_output=True, check=False)


OPTIONS = [
    pytest.param([], id="default"),
    pytest.param(["-q"], id="-q"),
    pytest.param(["-j", "2"], id="-j 2"),
    pytest.param(["-q", "-j", "2"], id="-q -j 2"),
    pytest.param(["--engine", "pytrec_eval"], id="pytrec_eval"),
    pytest.param(["-q", "--engine", "pytrec_eval"], id="-q pytrec_eval"),
]


@pytest.mark.parametrize("options", OPTIONS)
def test_a_later_run_listing_a_document_twice_prints_nothing(tmp_path, options):
    done = _score(tmp_path, *options, "qrels", "a.run", "dup.run")
    assert (done.returncode, done.stdout) == (4, b"")
    assert done.stderr.decode() == SAID


@pytest.mark.parametrize("options", [o for o in OPTIONS if "-q" in o.values[0]])
def test_a_first_run_listing_a_document_twice_prints_nothing(tmp_path, options):
    """Not its topics before the duplicate (-q), under no header, as if it were the only
    run (the run alone still prints them: trec_eval's bytes, docs/trec-eval.md's example)."""
    done = _score(tmp_path, *options, "qrels", "dup.run", "a.run")
    assert (done.returncode, done.stdout) == (4, b"")
    assert done.stderr.decode() == SAID
