"""What `validate` reports says as validate.md says it: physical line counts, the FIELD of
every finding at a line, R5's advice."""

from __future__ import annotations

from trecbench.cli import run
from trecbench.validation import validate_run


def call(capsys, *args) -> tuple[int, str]:
    code = run([str(a) for a in args])
    return code, capsys.readouterr().out


RECORD = '{{"qid":"1","docno":"{}","rank":{},"score":{},"tag":"t"}}\n'


def test_a_jsonl_runs_lines_are_its_physical_lines(tmp_path, capsys):
    """validate.md: counts.lines are physical lines; a JSONL run with blank lines said 2
    lines for 5 (its records), while its findings name physical lines."""
    path = tmp_path / "j2.jsonl"
    path.write_text(RECORD.format("a", 1, 2.0) + "\n\n\n" + RECORD.format("b", 2, 1.0))
    result = validate_run(path)
    assert (result.counts["lines"], result.counts["records"]) == (5, 2)
    assert call(capsys, "validate", path)[1].endswith(
        "1 file(s), 5 lines: 0 error(s), 0 warning(s), 0 info\n"
    )
    # a chunk at a time (a line each), the same
    assert validate_run(path, chunk_bytes=8).counts == result.counts
