"""trec_eval 10.0's ``-``: the run read from standard input (its comment lines skipped)."""

from __future__ import annotations

import sys

from ..inputs import Loaded, table_counts, trec_text
from ..inputs.comments import drop_run_comments

STDIN = "-"  # the run's name that reads standard input


def stdin_run(check=None) -> Loaded:
    """The run on standard input (``check``: as for :func:`trecbench.inputs.load`), as a
    :class:`~trecbench.inputs.Loaded` without a file."""
    tokens = drop_run_comments(trec_text.tokenize(sys.stdin.buffer.read(), "<stdin>", 1, 6))
    warnings = list(check(tokens, "run")) if check is not None else []
    table = trec_text.run_table(tokens)
    record = {"path": STDIN, "kind": "run", **table_counts(table, "run")}
    return Loaded("run", table, STDIN, None, record, tuple(warnings))
