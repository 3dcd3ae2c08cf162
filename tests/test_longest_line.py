"""A line longer than MOST_LINE_BYTES is refused at its line, by every reader of TREC
text alike: a file without newlines (binary, NUL bytes) was tokenized whole, at 10 to 30
times its size in memory, over any ``--memory`` (a 200 MB one ended in "out of memory",
exit 70)."""

from __future__ import annotations

import pytest

from trecbench.cli import run
from trecbench.inputs.text_chunks import first_long_line
from trecbench.inputs.tokens import MOST_LINE_BYTES

REFUSAL = "a line longer than 16 MiB: no TREC line is near that long (is it a TREC file?)"
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
    _refused(capsys, command, binary, 1)


def _refused(capsys, command: str, path, line: int) -> None:
    """The refusal as score says it (one line on stderr) or validate (a finding, R27)."""
    out, err = capsys.readouterr()
    if command == "score":
        # error[R27], as validate labels it (it said the check, error[R27.long])
        assert err == f"trecbench: {path}:{line}: error[R27]: {REFUSAL}\n"
    else:
        assert f"{path}:{line}:line: error[R27]: {REFUSAL}\n" in out


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
        _refused(capsys, command[0], path, before + 1)


def test_validate_checks_the_lines_before_and_the_other_files_on(tmp_path, capsys):
    # validate said the refusal alone: no finding of the lines before it in its chunk, no
    # other file checked, no summary
    path = tmp_path / "long.run"
    twice = b"q1 Q0 d1 1 2.0 t\n"
    path.write_bytes(twice * 2 + b"q9 Q0 " + b"x" * MOST_LINE_BYTES + b" 1 1.0 t\n")
    other = tmp_path / "other.run"
    other.write_bytes(b"q1 Q0 d1 1 x t\n")
    assert run(["validate", str(path), str(other)]) == 2
    out = capsys.readouterr().out
    assert f"{path}:2:docno: error[R7]" in out and f"{path}:3:line: error[R27]" in out
    assert f"{other}:1:score: error[R12]" in out and out.endswith("info\n")


def test_a_json_document_on_one_line_is_told_to_convert(tmp_path, capsys):
    # it lost R32's hint: "a line longer than 16 MiB"
    path = tmp_path / "results.json"
    path.write_text('{"q1": {"d1": 1.0, "' + "d" * MOST_LINE_BYTES + '": 0.5}}')
    (tmp_path / "q").write_text(QRELS)
    assert run(["score", str(tmp_path / "q"), str(path)]) == 2
    assert (
        "error[R32]: a JSON document, not a TREC run: convert it first" in capsys.readouterr().err
    )


@pytest.mark.parametrize("memory", [[], ["--memory", "200"]])
def test_a_long_line_of_an_ir_metadata_block_is_refused_alike(tmp_path, capsys, memory):
    # the block's lines were not tokenized: refused or read by how the chunks fell
    path = tmp_path / "described.run"
    block = b"# ir_metadata.start\n# c: " + b"c" * MOST_LINE_BYTES + b"\n# ir_metadata.end\n"
    path.write_bytes(block + b"q1 Q0 d1 1 1.0 t\n")
    (tmp_path / "q").write_text(QRELS)
    for command in (["score", *memory, str(tmp_path / "q")], ["validate", *memory]):
        assert run([*command, str(path)]) == 2
        _refused(capsys, command[0], path, 2)


def test_a_line_just_within_the_bound_is_read(tmp_path, capsys):
    path = tmp_path / "long.run"
    docno = b"x" * (MOST_LINE_BYTES - len(b"q1 Q0  1 1.0 t"))
    path.write_bytes(b"q1 Q0 " + docno + b" 1 1.0 t\nq1 Q0 d1 2 0.5 t\n")
    (tmp_path / "q").write_text(QRELS)
    assert run(["score", "-m", "map", str(tmp_path / "q"), str(path)]) == 0
    assert capsys.readouterr().out == "map                   \tall\t0.5000\n"


@pytest.mark.parametrize("command", ["validate", "score"])
def test_a_device_or_pipe_without_line_ends_is_refused_and_not_held(tmp_path, command):
    # /dev/zero (a device: spooled as a pipe is) was read until memory ran out (22 GB);
    # under 3 GB of address space that was an internal error, now the line's refusal
    import os
    import resource
    import subprocess
    import sys

    if not os.path.exists("/dev/zero"):
        pytest.skip("no /dev/zero")
    (tmp_path / "q").write_text("q1 0 d1 1\n")
    given = ["/dev/zero"] if command == "validate" else ["-m", "map", str(tmp_path / "q"), "-"]

    def bounded() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))

    with open("/dev/zero", "rb") as zeros:
        done = subprocess.run(
            [sys.executable, "-m", "trecbench", command, *given],
            stdin=zeros,
            capture_output=True,
            preexec_fn=bounded,
            timeout=120,
            check=False,
        )
    assert done.returncode == 2, done.stderr[-300:]
    assert b"a line longer than 16 MiB" in done.stdout + done.stderr  # validate: stdout
