"""Every command's --help has an example, and the bundled files it names exist."""

from __future__ import annotations

import re

import click
import pytest
from click.testing import CliRunner
from conftest import ROOT

from trecbench.cli import _register, cli

_register()
# the bundled files' shapes (BEIR's own layout, e.g. qrels/test.tsv, is a user's file)
BUNDLED = re.compile(r"\b(runs/[\w.-]+\.run|qrels/[\w.-]+\.(?:qrels|json)|data/[\w./-]+\.jsonl?)\b")


def _commands(group: click.Group, prefix=()):
    for name, command in group.commands.items():
        yield (*prefix, name)
        if isinstance(command, click.Group):
            yield from _commands(command, (*prefix, name))


COMMANDS = [(), *_commands(cli)]


@pytest.mark.parametrize("path", COMMANDS, ids=lambda p: " ".join(p) or "trecbench")
def test_help_has_an_example_naming_real_bundled_files(path):
    result = CliRunner().invoke(cli, [*path, "--help"])
    assert result.exit_code == 0, result.output
    assert "Example" in result.output
    for name in BUNDLED.findall(result.output):
        assert (ROOT / name).exists(), f"`trecbench {' '.join(path)} --help` names {name}"


@pytest.mark.parametrize(
    ("argv", "loaded"),
    [(["score", "--help"], {"score"}), (["convert", "--help"], {"convert"})],
)
def test_a_command_line_imports_only_its_own_command(argv, loaded):
    """Commands are imported when looked up (start-up time): `score` loads no other
    command's module, and `convert`'s subcommands are not looked up among the top-level
    commands."""
    import ast
    import subprocess
    import sys

    script = (
        "import sys; from trecbench.cli import run; run(sys.argv[1:]); "
        "print(sorted(m.split('.')[2] for m in sys.modules if m.startswith('trecbench.cli.')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", script, *argv], capture_output=True, text=True, check=True
    ).stdout
    commands = {"convert", "validate", "score", "compare", "fuse", "benchmark", "measures"}
    assert set(ast.literal_eval(out.splitlines()[-1])) & commands == loaded


def _command(path: tuple[str, ...]) -> click.Command:
    command = cli
    for name in path:
        command = command.commands[name]
    return command


FLOAT_OPTIONS = [
    (path, param.name)
    for path in COMMANDS[1:]
    for param in _command(path).params
    if isinstance(param.type, click.types.FloatParamType)
]


@pytest.mark.parametrize(("path", "name"), FLOAT_OPTIONS, ids=lambda p: str(p))
def test_every_float_option_refuses_nan_and_infinities(path, name):
    # click's FloatRange let nan through (nan compares false with every bound): score
    # --unjudged-threshold nan switched the warning off
    from trecbench.cli.shared_options import FiniteFloat

    param = next(p for p in _command(path).params if p.name == name)
    assert isinstance(param.type, FiniteFloat)
    with pytest.raises(click.BadParameter, match="'nan' is not a finite number"):
        param.type.convert("nan", param, None)
    for written in ("inf", "-inf", "1e400"):  # out of the range, or not finite
        with pytest.raises(click.BadParameter, match=f"{written}|inf"):
            param.type.convert(written, param, None)


@pytest.mark.parametrize(("path", "name"), FLOAT_OPTIONS, ids=lambda p: str(p))
def test_every_float_option_reads_decimal_numbers_only(path, name):
    # Python's float read --alpha 0.0_5 as 0.05 and Arabic-Indic digits as digits
    param = next(p for p in _command(path).params if p.name == name)
    for written in ("0.0_5", "\u0660.5", " 0.5", "0.5\n", "0x1p-1", "", "."):
        with pytest.raises(click.BadParameter, match="is not a decimal number"):
            param.type.convert(written, param, None)
    for written, number in (("0.5", 0.5), (".5", 0.5), ("5e-1", 0.5), ("+0.5", 0.5)):
        try:
            assert param.type.convert(written, param, None) == number
        except click.BadParameter as refused:  # outside the option's range, not unread
            assert "decimal" not in str(refused)


INT_OPTIONS = [
    (path, param.name)
    for path in COMMANDS[1:]
    for param in _command(path).params
    if isinstance(param.type, click.types.IntParamType)
]
# what Python's int reads and C's atol reads otherwise (or not in full): 1_0 is 10 to
# int and 1 to atol, Arabic-Indic three 3 and 0, a blank is skipped by both but is no digit
NOT_PLAIN_INTEGERS = ("1_0", "\u0663", "\uff13", " 3", "3 ", "3\n", "0x10", "1e3", "3.0", "", "+")


def _libc_atol(text: str) -> int:
    import ctypes
    import ctypes.util

    libc = ctypes.CDLL(ctypes.util.find_library("c"))
    libc.atol.restype, libc.atol.argtypes = ctypes.c_long, [ctypes.c_char_p]
    return libc.atol(text.encode())


@pytest.mark.parametrize(("path", "name"), INT_OPTIONS, ids=lambda p: str(p))
def test_every_integer_option_reads_plain_decimal_digits_alone(path, name):
    # click's int read as Python's int: `score -M 1_0` evaluated 10 documents where
    # trec_eval's atol reads 1 (num_ret 2 and P_2 0.5000 beside trec_eval's 1 and 0.0000)
    from trecbench.cli.shared_options import DecimalInt

    param = next(p for p in _command(path).params if p.name == name)
    assert isinstance(param.type, DecimalInt)
    for written in NOT_PLAIN_INTEGERS:
        with pytest.raises(click.BadParameter, match="is not a valid integer"):
            param.type.convert(written, param, None)
    for written in ("7", "+7", "007"):  # what it reads, the C library's atol reads alike
        assert param.type.convert(written, param, None) == _libc_atol(written) == 7


def test_the_integer_options_are_found():
    found = {(" ".join(path), name) for path, name in INT_OPTIONS}
    expected = {("score", name) for name in ("level", "max_docs", "ndocs", "jobs", "memory")}
    expected |= {
        (command, name)
        for command in ("compare", "power", "agree")
        for name in ("level", "max_docs")
    }
    expected |= {("pool", "depth"), ("pool", "level"), ("similarity", "overlap_k")}
    expected |= {("fuse", "folds"), ("validate", "max_depth"), ("convert hpo", "depth")}
    assert expected <= found


@pytest.mark.parametrize(
    "option", [("-M", "1_0"), ("-l", "1_0"), ("-N", "1_000"), ("-M", "\u0663")], ids=str
)
def test_score_refuses_an_integer_option_trec_eval_reads_otherwise(tmp_path, capsys, option):
    from trecbench.cli import run

    qrels, run_file = tmp_path / "q.txt", tmp_path / "r.txt"
    qrels.write_text("q1 0 d1 0\nq1 0 d2 1\n")
    run_file.write_text("q1 Q0 d1 1 2 t\nq1 Q0 d2 2 1 t\n")
    # trec_eval 9.0.8 printed, for -M 1_0 -m P.2 -m num_ret: "num_ret \tall\t1" and
    # "P_2 \tall\t0.0000" (it read -M 1); trecbench read 10, printed 2 and 0.5000, exit 0
    flag, text = option
    assert run(["score", flag, text, "-m", "P.2", "-m", "num_ret", str(qrels), str(run_file)]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert f"Invalid value for '{flag}' / '--" in err and f"{text!r} is not a valid integer" in err
    assert err.count("\n") == 1


def test_the_float_options_are_found():
    found = {(" ".join(path), name) for path, name in FLOAT_OPTIONS}
    assert {("score", "unjudged_threshold"), ("fuse", "k"), ("similarity", "rbo_p")} <= found


def test_score_refuses_an_unjudged_threshold_of_nan(capsys):
    from trecbench.cli import run

    qrels, run_file = str(ROOT / "qrels" / "hpo-demo.qrels"), str(ROOT / "runs" / "tfidf-char.run")
    assert run(["score", "--unjudged-threshold", "nan", qrels, run_file]) == 1
    assert capsys.readouterr().err == (
        "trecbench: score: Invalid value for '--unjudged-threshold': 'nan' is not a finite "
        "number. (see 'trecbench score --help')\n"
    )


def test_the_top_help_lists_every_exit_code():
    # the list was mended twice in one day by hand (130, 141, diff's usage errors)
    from click.testing import CliRunner

    from trecbench.cli import cli
    from trecbench.errors import ExitCode

    text = " ".join(CliRunner().invoke(cli, ["--help"]).output.split())
    listed = text[text.index("Exit codes:") : text.index("(see docs/cli-conventions.md)")]
    assert [int(n) for n in re.findall(r"(?<![\w-])(\d+) ", listed)] == [int(c) for c in ExitCode]
