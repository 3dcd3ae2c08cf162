"""trec_eval 10.0's comment lines (read with ``--compat 10.0``).

10.0 skips, in a run, every line whose first non-blank character is ``#``; in qrels (and
the prefs and judgment-group formats) a line that *starts* with ``#`` — but only one at a
time: the line after a skipped comment is always read as data, so of two consecutive
comment lines the second becomes a judgment (or a malformed line), and a comment on the
last line makes 10.0 read past its buffer (it crashes: exit 139). trecbench skips the
comments 10.0 skips and refuses a qrels line that 10.0 would read as a judgment of a topic
starting with ``#`` (exit 2, where 10.0 exits 2 on the malformed ones and silently adds a
topic otherwise), and a comment on the last line (exit 2: 10.0 gives no number to match).
"""

from __future__ import annotations

import numpy as np

from .. import arrow, input_warnings
from .. import arrow_compute as pc
from ..errors import InputError
from . import trec_text
from .trec_text import Tokens


def tokens_without_comments(source, kind: str) -> Tokens:
    """The tokens of a TREC text run or qrels (an open :class:`~trecbench.inputs.streams.
    Source`) without the comment lines 10.0 skips."""
    if kind == "run":  # an ir_metadata block is metadata (Tokens.ir_metadata), not comments
        return drop_run_comments(trec_text.tokenize_file(source, 6, metadata=True))
    data = source.read()
    return drop_qrels_comments(trec_text.tokenize(data, source.path, 1, 4), data)


def qrels_comment_lines(data: bytes) -> np.ndarray:
    """Physical line numbers (1-based) of the qrels comment lines 10.0 skips."""
    buffer = np.frombuffer(data, np.uint8)
    starts = np.r_[0, np.flatnonzero(buffer == ord("\n")) + 1]
    starts = starts[starts < len(buffer)]
    hashed = buffer[starts] == ord("#")
    # within a run of consecutive '#' lines, 10.0 skips the 1st, 3rd, 5th... (it reads the
    # line after a skipped comment as data)
    begins = hashed & ~np.r_[False, hashed[:-1]]
    index = np.arange(len(hashed))
    first = np.maximum.accumulate(np.where(begins, index, 0))
    return np.flatnonzero(hashed & ((index - first) % 2 == 0)) + 1


def drop_qrels_comments(tokens: Tokens, data: bytes) -> Tokens:
    """10.0's reading of a qrels-like file: skip its comment lines, refuse the '#' lines it
    would read as judgments."""
    if b"#" not in data:
        return tokens
    skipped = qrels_comment_lines(data)
    last_line = data.count(b"\n") + (not data.endswith(b"\n"))
    if len(skipped) and int(skipped[-1]) == last_line:
        raise InputError(
            tokens.path,
            last_line,
            "a comment on the last line: trec_eval 10.0 reads past the end of the file "
            "after it and crashes (no number to match); end the file with a judgment",
            "Q8",
        )
    tokens = tokens.without_lines(skipped)
    if len(tokens) and tokens.fields and len(tokens.fields[0]):
        hashed = arrow.to_numpy(pc.starts_with(tokens.fields[0], "#"))
        if hashed.any():
            row = int(np.flatnonzero(hashed)[0])
            raise InputError(
                tokens.path,
                int(tokens.line[row]),
                "trec_eval 10.0 would read this '#' line as a judgment (it skips a comment "
                "line only at the start of a line, and never two in a row)",
                "Q8",
            )
    return tokens


def drop_run_comments(tokens: Tokens) -> Tokens:
    """10.0's reading of a run: skip every line whose first field starts with '#'; an
    ir_metadata block below the file's top, comments to 10.0 and no metadata (which only
    a block at the top is), is said in an input warning, not dropped without a word."""
    if not len(tokens):
        return tokens
    hashed = arrow.to_numpy(pc.starts_with(tokens.fields[0], "#"))
    if len(tokens.fields) > 1:
        starts = pc.and_(pc.equal(tokens.fields[0], "#"),
                         pc.equal(tokens.fields[1], "ir_metadata.start"))  # fmt: skip
        marker = arrow.to_numpy(pc.fill_null(starts, False)) & (tokens.nfields == 2)
        lines = tokens.line[marker]  # the line "# ir_metadata.start", no more fields
        if len(lines):
            input_warnings.keep([
                f"{tokens.path}:{int(lines[0])}: an ir_metadata block below the top of the "
                "run: comment lines to trec_eval 10.0 and to trecbench, not the run's "
                "metadata (only a block on its first line is)"
            ])  # fmt: skip
    return tokens.without_lines(tokens.line[hashed])
