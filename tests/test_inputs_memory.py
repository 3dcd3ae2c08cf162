"""Reading stays within --memory whatever the lines hold (issue 25 item 9): a run of blank
lines is tokenized a chunk at a time when read whole, its findings' line numbers held
compactly, and the findings counted with the first few shown; a line of many fields
costs what its bytes do."""

from __future__ import annotations

import json
import re
import subprocess
import sys

from conftest import ROOT

MIB = 1 << 20
# the peak resident memory of a child process, measured in a process of its own (the
# children of the test process may have been larger)
_PEAK = """
import json, resource, subprocess, sys
done = subprocess.run(sys.argv[1:], capture_output=True, text=True)
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # KiB on Linux
print(json.dumps(dict(code=done.returncode, peak=peak * 1024, out=done.stdout, err=done.stderr)))
"""


def _peak(command: list[str]) -> dict:
    """``command``'s exit code, peak memory in bytes, standard output and error."""
    found = subprocess.run(
        [sys.executable, "-c", _PEAK, *command], capture_output=True, text=True, check=True
    )
    return json.loads(found.stdout)


def test_a_run_of_blank_lines_is_scored_within_the_budget(tmp_path):
    run = tmp_path / "blank.run"
    run.write_bytes(b"\n" * 10_000_000)  # 10 MB, ten million blank lines
    qrels = ROOT / "qrels" / "hpo-demo.qrels"
    command = [sys.executable, "-m", "trecbench", "score", "--memory", "256", str(qrels), str(run)]
    found = _peak(command)
    last = found["err"].splitlines()[-1]
    assert (found["code"], last) == (2, f"trecbench: {run}: error[R9]: no data lines")
    assert found["peak"] < 256 * MIB  # was 367 MB


def _validate_peak(*arguments: str) -> tuple[list[str], int]:
    """validate's findings (its standard output's lines) and its peak memory, in bytes."""
    found = _peak([sys.executable, "-m", "trecbench", "validate", *arguments])
    assert found["code"] == 2
    return found["out"].splitlines(), found["peak"]


def _with_fields(line: bytes, extra: int) -> bytes:
    """``line`` with ``extra`` more fields."""
    return line + b" y" * extra + b"\n"


# a line of 400,000 fields: validate read it as that many Arrow columns, kilobytes each
# (1.6 GB for one such line); the tokenizer's general path costs what its bytes do
WIDE = 400_000


def _findings_and_peak(tmp_path, name: str, fields: int, write, option: tuple[str, ...] = ()):
    """validate's peak memory on ``write(extra)``'s text, with lines of ``fields`` and
    :data:`WIDE` extra fields, whose findings must be those of lines of two extra fields
    (but the field counts they print)."""
    wide, narrow = tmp_path / f"wide.{name}", tmp_path / f"narrow.{name}"
    wide.write_bytes(write(WIDE))
    narrow.write_bytes(write(2))
    findings, peak = _validate_peak(*option, str(wide))
    expected, _ = _validate_peak(*option, str(narrow))

    def counts_hidden(lines: list[str], extra: int) -> list[str]:
        # the count as a word of its own: not the temporary directory's number (pytest-6
        # for 4 fields and 2 extra)
        return [re.sub(rf"(?<![\w-]){fields + extra}(?![\w-])", "N", line) for line in lines]

    assert counts_hidden(findings, WIDE) == [
        line.replace("narrow", "wide") for line in counts_hidden(expected, 2)
    ]
    return peak


def test_a_line_of_many_fields_is_validated_within_bounded_memory(tmp_path):
    regular = b"".join(b"z Q0 d%07d %d 1 t\n" % (rank, rank) for rank in range(1, 130_000))

    def run(extra: int) -> bytes:
        first = _with_fields(b"q1 Q0 d1 1 2 t", extra)
        return first + regular + _with_fields(b"z2 Q0 d1 1 2 t", extra)

    # the last wide line spans the 4 MB mark: validate's second chunk (4 MB cut at the
    # last newline) starts with it
    wide_line = (len(run(WIDE)) - len(regular)) // 2
    assert wide_line + len(regular) < 4 << 20 < len(run(WIDE))
    assert _findings_and_peak(tmp_path, "run", 6, run) < 512 * MIB  # was 3.3 GB


def test_qrels_with_a_line_of_many_fields_are_validated_within_bounded_memory(tmp_path):
    def qrels(extra: int) -> bytes:
        return _with_fields(b"q1 0 d1 1", extra) + b"q2 0 d1 1\n"

    peak = _findings_and_peak(tmp_path, "qrels", 4, qrels, ("--qrels",))
    assert peak < 512 * MIB  # was 1.6 GB
