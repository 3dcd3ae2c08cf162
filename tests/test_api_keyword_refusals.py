"""The Python API refuses, as one-line UsageErrors naming the keyword, the settings the
command line's options refuse (a reviewer's findings: each was taken silently, or raised
a bare ValueError, or was read as something else)."""

from __future__ import annotations

from pathlib import Path

import pytest

from trecbench.errors import UsageError
from trecbench.validation import validate_qrels, validate_run

ROOT = Path(__file__).resolve().parents[1]
RUN, QRELS = ROOT / "runs" / "tfidf-char.run", ROOT / "qrels" / "hpo-demo.qrels"


def refused(call, keyword: str, **given) -> str:
    """The one-line message of the UsageError ``call(**given)`` raises, naming ``keyword``."""
    with pytest.raises(UsageError) as caught:
        call(**given)
    message = str(caught.value)
    assert keyword in message and "\n" not in message, message
    return message


@pytest.mark.parametrize("call, path", [(validate_run, RUN), (validate_qrels, QRELS)])
@pytest.mark.parametrize("chunk_bytes", [0, -1, 2.5, "4096", True])
def test_chunk_bytes_below_one_or_not_whole_is_refused(call, path, chunk_bytes):
    """``chunk_bytes=0`` read nothing: a valid file of 2,800 lines was R26, empty."""
    refused(lambda **kw: call(path, **kw), "chunk_bytes", chunk_bytes=chunk_bytes)


def test_a_small_chunk_still_reads_every_line():
    lines = RUN.read_bytes().count(b"\n")  # counted apart from the validator: 2,800
    result = validate_run(RUN, chunk_bytes=4096)
    assert result.counts["lines"] == lines == 2800
