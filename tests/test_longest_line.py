"""A line longer than MOST_LINE_BYTES is refused at its line, by every reader of TREC
text alike: a file without newlines (binary, NUL bytes) was tokenized whole, at 10 to 30
times its size in memory, over any ``--memory`` (a 200 MB one ended in "out of memory",
exit 70)."""

from __future__ import annotations

import pytest

from trecbench.cli import run
from trecbench.inputs.tokens import MOST_LINE_BYTES
from trecbench.inputs.trec_text import first_long_line

REFUSAL = "a line longer than 16 MiB: no TREC line is near that long (is it a TREC file?)\n"
QRELS = "q1 0 d1 1\n"


def _regular(lines: int) -> bytes:
    return b"".join(b"q%d Q0 d%d %d %d.5 t\n" % (i // 100, i, i % 100 + 1, 100 - i % 100)
                    for i in range(lines))  # fmt: skip


def test_the_first_long_line_is_found_by_windows():
    assert first_long_line(b"a" * 11, 10) == 0 and first_long_line(b"a" * 10, 10) is None
    assert first_long_line(b"ab\n" + b"x" * 10 + b"\n", 10) is None
    assert first_long_line(b"ab\n" + b"x" * 11 + b"\n", 10) == 3
    assert first_long_line((b"x" * 9 + b"\n") * 5 + b"y" * 11, 10) == 50


@pytest.mark.parametrize("command", ["validate", "score"])
@pytest.mark.parametrize("memory", [[], ["--memory", "200"]])
def test_a_file_of_nul_bytes_is_refused_at_its_first_line(tmp_path, capsys, command, memory):
    binary = tmp_path / "z.run"
    with open(binary, "wb") as out:
        out.truncate(MOST_LINE_BYTES + 1)  # no newline, no disk used
    (tmp_path / "q").write_text(QRELS)
    inputs = [str(binary)] if command == "validate" else [str(tmp_path / "q"), str(binary)]
    assert run([command, *memory, *inputs]) == 2
    assert capsys.readouterr().err == f"trecbench: {binary}:1: {REFUSAL}"


@pytest.mark.parametrize("memory", [[], ["--memory", "200"]])
@pytest.mark.parametrize("before", [0, 600_000])
def test_a_long_line_of_regular_text_is_refused_as_the_tokenizer_refuses_it(
    tmp_path, capsys, memory, before
):
    # the regular readers (whole and streamed) read it, the tokenizer refused it: text a
    # CR away from regular was refused where regular text was scored
    path = tmp_path / "long.run"
    long_line = b"q9 Q0 " + b"x" * MOST_LINE_BYTES + b" 1 1.0 t\n"
    path.write_bytes(_regular(before) + long_line + b"q9 Q0 d 2 0.5 t\n")
    (tmp_path / "q").write_text(QRELS)
    for command in (["score", *memory, str(tmp_path / "q")], ["validate", *memory]):
        assert run([*command, str(path)]) == 2
        assert capsys.readouterr().err == f"trecbench: {path}:{before + 1}: {REFUSAL}"


def test_a_line_just_within_the_bound_is_read(tmp_path, capsys):
    path = tmp_path / "long.run"
    docno = b"x" * (MOST_LINE_BYTES - len(b"q1 Q0  1 1.0 t"))
    path.write_bytes(b"q1 Q0 " + docno + b" 1 1.0 t\nq1 Q0 d1 2 0.5 t\n")
    (tmp_path / "q").write_text(QRELS)
    assert run(["score", "-m", "map", str(tmp_path / "q"), str(path)]) == 0
    assert capsys.readouterr().out == "map                   \tall\t0.5000\n"
