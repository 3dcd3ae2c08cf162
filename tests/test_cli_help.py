"""Every command's --help leads with an example that runs, as written, from the repository
root on the bundled files; the bundled files any example names exist.

The examples of a help are the lines of its ``Example:``/``Examples:`` block, one to a line
(a line ending in a backslash goes on with the next). :func:`test_help_examples_run` runs
them in order (a later one may read what an earlier one wrote), in-process with
:func:`trecbench.cli.run` as the console script does, in a scratch copy of the bundled
``qrels/``, ``runs/`` and ``data/`` folders, so that what they write (``out/``, a ``>``
redirect) stays out of the repository. The shell's part is done here: globs, ``cat FILE |``
and ``trecbench ... | trecbench ...`` pipes, ``> FILE``. A comment at an example's end marks
it:

- ``# not bundled: ...``: the example names the reader's own files, or needs what is not
  bundled (a Dask cluster, a huge run): shown, not run. The first example of a help is never
  one of these;
- ``# exits N: ...``: the example exits with N, not 0 (``diff``: the reports differ).

Any other comment (``# Q7: ...``) is the reader's, and the example runs.
"""

from __future__ import annotations

import glob
import re
import shlex
import shutil
from dataclasses import dataclass
from pathlib import Path

import click
import pytest
from click.testing import CliRunner
from conftest import ROOT, unignored

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


EXAMPLES = re.compile(r"^ *Examples?:\n((?: +\S.*\n)+)", re.M)
COMMENT = re.compile(r"\s#\s(.*)$")
EXITS = re.compile(r"exits (\d+)\b")


@dataclass
class Example:
    """One example of a help: its command line (continuations joined) and its comment."""

    line: str
    comment: str = ""

    @property
    def runs(self) -> bool:
        return not self.comment.startswith("not bundled")

    @property
    def exit_code(self) -> int:
        exits = EXITS.match(self.comment)
        return int(exits[1]) if exits else 0


def help_examples(text: str) -> list[Example]:
    """The examples of a command's help text, in order."""
    block = EXAMPLES.search(text)
    assert block, "no Example: block"
    examples = []
    for line in re.sub(r"\\\n\s*", " ", block[1]).splitlines():
        comment = COMMENT.search(line)
        examples.append(Example(line[: comment.start()].strip() if comment else line.strip()))
        examples[-1].comment = comment[1].strip() if comment else ""
    return examples


def _stages(line: str) -> tuple[list[list[str]], str | None]:
    """The commands of a pipeline as the shell splits them (globs expanded), and the file
    a final ``>`` writes to."""
    lexer = shlex.shlex(line, posix=True, punctuation_chars="|>")
    lexer.whitespace_split = True
    words, target = list(lexer), None
    if ">" in words:
        words, target = words[: words.index(">")], words[-1]
    stages = [[]]
    for word in words:
        if word == "|":
            stages.append([])
        else:
            stages[-1].extend(sorted(glob.glob(word)) if glob.has_magic(word) else [word])
    return stages, target


def _trecbench(args: list[str], stdin: bytes) -> tuple[int, bytes, str]:
    """One trecbench command line in this process: exit code, stdout and stderr."""
    from trecbench.cli import run

    with CliRunner().isolation(input=stdin) as (out, err, _):
        code = run(args)
    return code, out.getvalue(), err.getvalue().decode()


def run_example(example: Example) -> bytes:
    """Run ``example`` in the current folder, each stage of a pipe reading the one before;
    what the last one printed."""
    stages, target = _stages(example.line)
    piped, code, err = b"", None, ""
    for words in stages:
        if words[0] == "cat":
            piped = b"".join(Path(name).read_bytes() for name in words[1:])
            continue
        assert words[0] == "trecbench", f"only cat and trecbench run here: {example.line}"
        code, piped, err = _trecbench(words[1:], piped)
        assert "Traceback" not in err and "internal error" not in err, (example.line, err)
        if words is not stages[-1]:
            assert code == 0, (example.line, err)
    assert code == example.exit_code, (example.line, err)
    if target is not None:
        Path(target).write_bytes(piped)
    return piped


@pytest.fixture
def bundled_copy(tmp_path, monkeypatch) -> Path:
    """A scratch copy of the bundled folders, the current folder while the test runs."""
    for name in ("qrels", "runs", "data"):
        shutil.copytree(ROOT / name, tmp_path / name)
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("path", COMMANDS, ids=lambda p: " ".join(p) or "trecbench")
def test_help_examples_run(path, bundled_copy):
    text = CliRunner().invoke(cli, [*path, "--help"]).output
    examples = help_examples(text)
    assert examples[0].runs, f"`trecbench {' '.join(path)} --help` leads with {examples[0]}"
    for example in examples:
        if example.runs:
            run_example(example)
    # run from the repository's root, a help's examples leave `git status` clean
    assert unignored(bundled_copy) == []


def test_a_broken_help_example_fails(bundled_copy):
    """The runner above fails an example that fails: a file not bundled, a wrong status."""
    text = """  Examples:
    trecbench score qrels/hpo-demo.qrels runs/tfidf-char.run -m P@5
    trecbench validate run.txt    # not bundled: your run
    trecbench diff out/a.json out/a.json    # exits 1: they differ

"""
    first, mine, same = help_examples(text)
    run_example(first)
    assert not mine.runs
    with pytest.raises(AssertionError):
        run_example(Example(mine.line))
    with pytest.raises(AssertionError):
        run_example(same)  # a missing report exits 2


def test_score_help_says_unjudged_bounds_read_each_input_once(bundled_copy):
    """--unjudged-bounds' help said the qrels and runs are read again for it: they are read
    once (docs/conclusions.md), so a run piped on standard input has its bounds too."""
    text = " ".join(CliRunner().invoke(cli, ["score", "--help"]).output.split())
    assert "read again" not in text
    assert "every input is read once, so a run from standard input has them too" in text
    piped = "cat runs/tfidf-char.run | trecbench score --unjudged-bounds -m P@5 QRELS -"
    printed = run_example(Example(piped.replace("QRELS", "qrels/hpo-demo.qrels"))).decode()
    assert re.search(r"^-  +P_5  +\S+  +\S+  +\S+%$", printed, re.M), printed  # run -: stdin


def test_score_help_says_what_dask_refuses_and_takes():
    """--dask's help said the output is the same, and named --memory and --jobs alone as
    refused with it: --compat 10.0, -R, -Z, -D and the native ports' measures are refused
    too (a run read whole); a folder is a run's files, as trecbench.dask.evaluate reads it."""
    text = " ".join(CliRunner().invoke(cli, ["score", "--help"]).output.split())
    start = text.index("--dask ADDRESS|local:N")
    dask = text[start : text.index("--routing", start)]
    for refused in ("--memory", "--jobs", "--compat 10.0", "-R", "-Z", "-D", "native ports"):
        assert refused in dask, refused
    assert "a folder of them" in dask


@pytest.mark.parametrize(
    ("converter", "offered"),
    [
        ("hpo", False),
        ("code-chunk", False),
        ("memorybench", False),
        ("lists", False),
        ("msmarco", True),
        ("dict", True),
    ],
)
def test_only_a_converter_that_can_write_a_single_run_offers_o_dash(converter, offered):
    """hpo, code-chunk, memorybench and lists always write qrels beside their runs: ``-o -``
    is refused for them, and their help offered it (reviewer 460)."""
    text = " ".join(CliRunner().invoke(cli, ["convert", converter, "--help"]).output.split())
    assert ("-: a conversion's single run to standard output" in text) is offered


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


@pytest.mark.parametrize(
    ("path", "name"),
    [(p, n) for p, n in FLOAT_OPTIONS if n in ("rbo_p", "target")],
)
def test_a_number_inside_an_open_range_whose_double_is_not_is_said_as_typed(path, name):
    # similarity --rbo-p 0.99999999999999999 said "not 1.0" (and power --power 1e-400 "0.0
    # is not in the range"): a number nobody typed; --rbo-p had no range in its type at all
    param = next(p for p in _command(path).params if p.name == name)
    cases = [("0.99999999999999999", "1.0"), ("1e-400", "0.0"), ("-1e-400", "-0.0"),
             ("1.0000000000000001", "1.0")]  # fmt: skip
    for written, double in cases:
        said = f"'{written}' reads as {double}, the nearest double, which is not in the range 0<x<1"
        with pytest.raises(click.BadParameter, match=re.escape(said)):
            param.type.convert(written, param, None)
    with pytest.raises(click.BadParameter, match=r"^1.5 is not in the range 0<x<1"):
        param.type.convert("1.5", param, None)
    with pytest.raises(click.BadParameter, match=r"^'1e400' is not a finite number"):
        param.type.convert("1e400", param, None)  # said "inf is not in the range"
    assert param.type.convert("0.999999999999999", param, None) == 0.999999999999999


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


@pytest.mark.parametrize("digits", [101, 5000])
def test_an_integer_option_of_over_100_digits_is_a_usage_error(tmp_path, capsys, digits):
    # 5,000 digits were an internal error, exit 70 (Python's int reads at most 4,300)
    from trecbench.cli import run

    qrels, run_file = tmp_path / "q.txt", tmp_path / "r.txt"
    qrels.write_text("q1 0 d1 1\n")
    run_file.write_text("q1 Q0 d1 1 2 t\n")
    for args in (["score", "-M"], ["compare", "--seed"], ["power", "-l"]):
        command = [*args, "9" * digits, str(qrels), str(run_file)]
        assert run([*command, str(run_file)] if args[0] != "score" else command) == 1
        out, err = capsys.readouterr()
        assert out == "" and f"an integer of {digits} digits (at most 100)." in err
        assert err.count("\n") == 1


def test_a_seed_of_100_digits_is_recorded_and_read_back_and_a_longer_one_refused(tmp_path):
    # a seed of 150 digits was taken and recorded; diff then refused the report
    import trecbench
    from trecbench.comparison import StatsSettings
    from trecbench.errors import UsageError
    from trecbench.runstudy.fusion_tuning import FusionSearch

    with pytest.raises(UsageError, match="^seed must be an integer of at most 100 digits, not a"):
        StatsSettings(seed=10**100)
    with pytest.raises(UsageError, match="^seed must be an integer of at most 100 digits, not a"):
        FusionSearch(seed=10**5000)
    qrels, run_file = tmp_path / "q.txt", tmp_path / "r.txt"
    qrels.write_text("q1 0 d1 1\nq2 0 d1 1\n")
    run_file.write_text("q1 Q0 d1 1 2 t\nq2 Q0 d2 1 2 t\n")
    other = tmp_path / "other.txt"  # a copy: one file twice is refused
    other.write_text(run_file.read_text())
    runs = {"a": str(run_file), "b": str(other)}
    result = trecbench.compare(str(qrels), runs, ["P@1"], samples=40, seed=10**100 - 1)
    report = tmp_path / "report.json"
    report.write_bytes(result.report_file())
    from trecbench.cli import run

    assert run(["diff", str(report), str(report)]) == 0


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
    listed = text[text.index("Exit codes:") : text.index("(more on each:")]
    assert [int(n) for n in re.findall(r"(?<![\w-])(\d+) ", listed)] == [int(c) for c in ExitCode]


@pytest.mark.parametrize("path", COMMANDS, ids=lambda p: " ".join(p) or "trecbench")
def test_no_help_names_a_checkouts_docs_path(path):
    """A pip-installed user has no docs/ folder: a help names the docs' page (the docs'
    runs.md) or another command's help, never a clone's path such as docs/runs.md."""
    result = CliRunner(env={"COLUMNS": "200"}).invoke(cli, [*path, "--help"])
    assert result.exit_code == 0, result.output
    assert not re.findall(r"docs/[\w./-]*\.md", result.output)


@pytest.mark.parametrize("command", ["power", "agree"])
def test_power_and_agree_help_say_what_each_format_shows(command):
    # review 723: "What stdout shows." alone, where compare's help describes each format,
    # and their LaTeX needs booktabs without a word
    text = " ".join(CliRunner().invoke(cli, [command, "--help"]).output.split())
    assert "LaTeX tabulars (booktabs: \\usepackage{booktabs};" in text
