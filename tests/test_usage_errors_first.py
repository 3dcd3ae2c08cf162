"""A usage error on the command line is said before a path refused as the line is read
(trecbench.cli.paths): click stops at a usage error before reading anything, and the
paths, checked while parsing, used to be refused first, whatever else the line lacked."""

from __future__ import annotations

import sys

import pytest
from conftest import ROOT

from trecbench.cli import run

RUN = str(ROOT / "runs" / "tfidf-word.run")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        # a missing input, then no -o: "missing.run: cannot read: No such file", exit 2
        (["pool", RUN, "missing.run"], "pool: Missing option '-o' / '--output'."),
        (["fuse", RUN, "missing.run"], "fuse: Missing option '-o' / '--output'."),
        (["convert", "dict", "missing.tsv"], "convert dict: Missing option '-o' / '--outdir'."),
        (["score", "missing.qrels"], "score: Missing argument 'RUNS...'."),
        # an output that cannot be written, then a bad value
        (["pool", RUN, "-o", "/dev/null/x", "--depth", "x"],
         "pool: Invalid value for '--depth': 'x' is not a valid integer (ASCII digits 0-9"
         " with an optional sign)."),
    ],
    ids=["pool", "fuse", "convert dict", "score", "a bad value"],
)  # fmt: skip
def test_a_usage_error_comes_before_a_refused_path(argv, message, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert run(argv) == 1
    command = message.partition(":")[0]
    assert capsys.readouterr().err == f"trecbench: {message} (see 'trecbench {command} --help')\n"
    assert list(tmp_path.iterdir()) == []


def test_pool_into_its_input_without_o_is_a_usage_error(tmp_path, monkeypatch, capsys):
    # `pool a.run b.run >> b.run`: "b.run: input file is standard output", exit 2, where
    # the line lacks -o; with -o the refusal stands, and nothing is written
    b = tmp_path / "b.run"
    b.write_bytes((ROOT / "runs" / "tfidf-char.run").read_bytes())
    before = b.read_bytes()
    for more, code, message in [
        ([], 1, "trecbench: pool: Missing option '-o' / '--output'. (see 'trecbench pool --help')"),
        (["-o", str(tmp_path / "p.txt")], 2,
         f"trecbench: {b}: input file is standard output; refusing to write into it"),
    ]:  # fmt: skip
        with open(b, "a", encoding="utf-8") as stdout:
            monkeypatch.setattr(sys, "stdout", stdout)
            assert run(["pool", RUN, str(b), *more]) == code
        monkeypatch.undo()
        assert capsys.readouterr().err == message + "\n"
        assert b.read_bytes() == before
    assert sorted(path.name for path in tmp_path.iterdir()) == ["b.run"]


@pytest.mark.parametrize("command", ["pool", "similarity", "fuse"])
@pytest.mark.parametrize("depth", ["0", "9223372036854775808"])
def test_a_depth_out_of_range_comes_before_a_missing_run(
    command, depth, tmp_path, monkeypatch, capsys
):
    # --depth means one thing in every command (docs/cli-conventions.md): pool's and
    # similarity's were checked by the library after the runs, "missing.run: cannot read",
    # exit 2, where fuse's (and convert's) range refused it as the line was read, exit 1
    monkeypatch.chdir(tmp_path)
    output = [] if command == "similarity" else ["-o", "out.txt"]
    assert run([command, RUN, "missing.run", "--depth", depth, *output]) == 1
    assert capsys.readouterr().err == (
        f"trecbench: {command}: Invalid value for '--depth': {depth} is not in the range "
        f"1<=x<=9223372036854775807. (see 'trecbench {command} --help')\n"
    )
    assert list(tmp_path.iterdir()) == []
