"""One guard around every command: documented exit codes, one-line messages, one meaning
per flag (docs/cli-conventions.md, whose examples tests/test_readme.py runs)."""

from __future__ import annotations

import contextlib
import errno
import importlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
from conftest import ROOT

from trecbench.cli import run
from trecbench.errors import ExitCode, InputError

DOC = ROOT / "docs" / "cli-conventions.md"
QRELS, RUN = str(ROOT / "qrels" / "hpo-demo.qrels"), str(ROOT / "runs" / "tfidf-char.run")
RUN2 = str(ROOT / "runs" / "tfidf-word.run")
BENCHMARK = ROOT / "data" / "hpo-rtask" / "benchmark.toml"


def call(capsys, *args) -> tuple[int, str, str]:
    """``trecbench ARGS`` in-process through the guard: (exit code, stdout, stderr)."""
    code = run([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def test_the_exit_code_table_is_the_code():
    table = DOC.read_text().split("## Exit codes", 1)[1].split("##", 1)[0]
    documented = {int(code) for code in re.findall(r"^\| (\d+) \|", table, flags=re.M)}
    assert documented == {int(code) for code in ExitCode}


def _flag_rows() -> list[tuple[list[str], dict[str, set[str]]]]:
    """The table of docs/cli-conventions.md's "Flags": per row, its flags (``-l``, from
    `-l N`) and ``{command: the row's flags it has}``; a command's flags named in
    parentheses after it (``pool (`-l`)``) are the only ones of the row it has, a
    parenthesis without flags is a note (``benchmark (folder)``). ``all``: the group's."""
    table = DOC.read_text().split("\n## Flags\n", 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in table.splitlines():
        if not line.startswith("| `"):
            continue
        cells = re.split(r"(?<!\\)\|", line)
        flags = re.findall(r"`(-[^`\s]*)", cells[1])
        # commands are separated by commas outside parentheses
        items = re.findall(r"\s*([a-z][a-z ]*?)\s*(?:\(([^()]*)\))?\s*(?:,|$)", cells[3].strip())
        holders = {}
        for name, note in filter(lambda item: item[0], items):
            named = set(re.findall(r"`(-[^`\s]*)", note)) & set(flags)
            holders[name] = named or set(flags)
        rows.append((flags, holders))
    return rows


def _options() -> dict[str, dict[str, set[str]]]:
    """``{command: {flag: every spelling of its option}}`` of every command and subcommand
    (``convert hpo``), the group's own as ``all``."""
    import click

    from trecbench.cli.group import cli

    found: dict[str, dict[str, set[str]]] = {}

    def walk(command, path: str) -> None:
        spellings = [set(param.opts) for param in command.params if isinstance(param, click.Option)]
        found[path] = {flag: opts for opts in spellings for flag in opts}
        if isinstance(command, click.Group):
            context = click.Context(command)
            for name in command.list_commands(context):
                sub = command.get_command(context, name)
                walk(sub, name if path == "all" else f"{path} {name}")

    walk(cli, "all")
    return found


def flag_table_errors(rows, options) -> list[str]:
    """Where the table and the commands differ: a command said to have a flag it lacks, a
    command with a row's flag the row does not name, and a flag two commands share that no
    row has (a spelling of an option counts for the option: ``--level_for_rel`` is ``-l``)."""
    errors = []
    top = {path: path.split()[0] for path in options}  # `convert hpo` is convert's too
    for flags, holders in rows:
        for flag in flags:
            said = {name for name, has in holders.items() if flag in has}
            having = {path for path, opts in options.items() if flag in opts}
            exists = having | {top[path] for path in having}
            errors += [f"{name}: no {flag}" for name in sorted(said - exists)]
            unsaid = sorted(path for path in having if not {path, top[path]} & said)
            errors += [f"{path} has {flag}, the table does not say so" for path in unsaid]
    listed = {flag for flags, _ in rows for flag in flags}
    shared: dict[str, set[str]] = {}
    for path, opts in options.items():
        for flag, spellings in opts.items():
            if not spellings & listed:
                shared.setdefault(flag, set()).add(top[path])
    for flag, commands in sorted(shared.items()):
        if len(commands) > 1:
            errors.append(f"{flag} ({', '.join(sorted(commands))}) is in no row")
    return errors


def test_the_flag_table_is_the_commands_options():
    # the table said --meta was score's and compare's: benchmark has it too; validate's -l,
    # score's (trec_eval's) -o and a dozen shared flags (--memory, --seed, --depth, ...)
    # were missing
    rows = _flag_rows()
    assert len(rows) > 15
    assert flag_table_errors(rows, _options()) == []


def test_the_flag_table_check_sees_a_missing_command_and_a_missing_row():
    rows, options = _flag_rows(), _options()
    options["measures"]["--quiet"] = {"--quiet"}  # diff has it since reviewer 365
    options["measures"]["--seed"] = {"--seed"}
    options["diff"]["--brand-new"] = options["measures"]["--brand-new"] = {"--brand-new"}
    rows = [(flags, holders) for flags, holders in rows if "-q" not in flags]
    assert flag_table_errors(rows, options) == [
        "measures has --quiet, the table does not say so",
        "measures has --seed, the table does not say so",
        "--brand-new (diff, measures) is in no row",
        "-q (score, similarity) is in no row",
    ]


@pytest.mark.parametrize(
    "args",
    [
        ["score", "--format", "nope", QRELS, RUN],
        ["score", "-x", QRELS, RUN],
        ["score", "-m", "nope", QRELS, RUN],
        ["compare", "--test", "nope", "-o", "out", QRELS, RUN],
        ["compare", "--seed", "-1", "-o", "out", QRELS, RUN],
        ["validate", "--profile", "nope", RUN],
        ["validate", "-q", RUN],  # -q is score's per-topic flag, not "quiet"
        ["compare", "-q", "-o", "out", QRELS, RUN],
        ["convert", "dict", "--depth", "0", RUN, "-o", "out"],
        ["nope"],
        [],
    ],
)
def test_usage_errors_exit_1_in_every_command(capsys, args):
    code, _, err = call(capsys, *args)
    assert code == ExitCode.USAGE, err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    "args",
    [
        ["score", QRELS, "missing.run"],
        ["score", "missing.qrels", RUN],
        ["score", "--strata", "missing.json", "--group-by", "x", QRELS, RUN],
        ["score", "-m", "MaxOntSim@10", "--ontology", "missing.obo", QRELS, RUN],
        ["compare", "-o", "out", QRELS, "missing.run"],
        ["validate", "missing.run"],
        ["validate", "--qrels", "missing.qrels"],
        ["convert", "dict", "missing.json", "-o", "out"],
        ["fuse", "missing.run", "-o", "fused.run"],
        ["score", QRELS, str(ROOT / "runs")],
        # a URL is a missing file too: no cluster starts (it failed later, "cannot read")
        ["score", "--dask", "local:1", QRELS, "s3://bucket/run.parquet"],
    ],
)
def test_a_missing_input_exits_2_in_every_command(capsys, tmp_path, monkeypatch, args):
    monkeypatch.chdir(tmp_path)
    code, out, err = call(capsys, *args)
    assert (code, out) == (ExitCode.INPUT, "")
    assert re.fullmatch(r"trecbench: \S+: cannot read: (No such file|Is a directory)\n", err)


def test_bad_output_paths_exit_2_before_any_work(capsys, tmp_path):
    a_file = tmp_path / "file"
    a_file.write_text("x")
    cases = [
        ["compare", "-o", a_file, QRELS, RUN, RUN2],
        ["compare", "-o", a_file / "sub", QRELS, RUN, RUN2],
        ["score", "--report", tmp_path, QRELS, RUN],
        ["score", "--report", "/dev/null", QRELS, RUN],
        ["validate", RUN, "--fix", "/dev/null"],
    ]
    for args in cases:
        code, out, err = call(capsys, *args)
        assert (code, out) == (ExitCode.INPUT, ""), args
        assert err.count("\n") == 1 and err.startswith("trecbench: "), err
    assert a_file.read_text() == "x"


def test_validation_errors_exit_like_malformed_input(capsys, tmp_path):
    broken = tmp_path / "broken.run"
    broken.write_text("q1 Q0 d1 1 2.0 run\nq1 Q0 d2 2 x run\n")
    assert call(capsys, "validate", broken)[0] == ExitCode.INPUT
    assert call(capsys, "score", QRELS, broken)[0] == ExitCode.INPUT


def _general_path(monkeypatch):
    # a small plain run is scored without evaluate (issue 31, trecbench.cli.small)
    monkeypatch.setattr("trecbench.cli.small.small_score", lambda ctx: False)


def test_an_unexpected_error_is_one_line(capsys, monkeypatch):
    evaluation = importlib.import_module("trecbench.evaluation")

    def boom(*args, **kwargs):
        raise RuntimeError("boom\nwith a second line")

    monkeypatch.setattr(evaluation, "evaluate", boom)
    _general_path(monkeypatch)
    code, out, err = call(capsys, "score", QRELS, RUN)
    assert (code, out) == (ExitCode.INTERNAL, "")
    assert err == (
        "trecbench: internal error (RuntimeError: boom\\nwith a second line); "
        "rerun as 'trecbench --debug score ...' for the traceback. Please report it.\n"
    )
    # the rerun the line names works (the form it replaced, `score --debug`, is refused)
    code, _, err = call(capsys, "--debug", "score", QRELS, RUN)
    assert code == ExitCode.INTERNAL
    assert err.startswith("Traceback") and err.splitlines()[-1].startswith("trecbench: internal")
    code, _, err = call(capsys, "score", "--debug", QRELS, RUN)
    assert code == ExitCode.USAGE
    # not click's 'Did you mean --Debug_level?' (score's -D, trec_eval's traces)
    assert err == (
        "trecbench: score: No such option '--debug': it is trecbench's own, given before "
        "the command ('trecbench --debug score ...') (see 'trecbench score --help')\n"
    )
    code, _, err = call(capsys, "convert", "hpo", "--debug", "cases.json", "-o", "out")
    assert code == ExitCode.USAGE and "('trecbench --debug convert hpo ...')" in err


def test_compare_s_alpha_is_its_confidence(capsys):
    # power and agree take --alpha; compare's --alpha was "Did you mean '--help'?"
    code, _, err = call(capsys, "compare", QRELS, RUN, RUN, "--alpha", "0.01")
    assert code == ExitCode.USAGE
    assert err == (
        "trecbench: compare: No such option '--alpha': compare takes --confidence, 1 - alpha "
        "(--confidence 0.99 for alpha 0.01) (see 'trecbench compare --help')\n"
    )


def test_an_error_with_several_findings_prints_one_line_each(capsys, monkeypatch):
    from trecbench.errors import InputError

    error = InputError("r.run", 2, "two findings")
    error.lines = ["r.run:2:docno: error[R7]: duplicate", "a\nb.run:1:line: error[R26]: x"]

    def fails(*args, **kwargs):
        raise error

    monkeypatch.setattr(sys.modules["trecbench.evaluation"], "evaluate", fails)
    _general_path(monkeypatch)
    code, _, err = call(capsys, "score", QRELS, RUN)
    assert code == ExitCode.INPUT
    assert err.splitlines() == [
        "trecbench: r.run:2:docno: error[R7]: duplicate",
        "trecbench: a\\nb.run:1:line: error[R26]: x",
    ]


@pytest.mark.parametrize(
    ("category", "shown"),
    [(RuntimeWarning, True), (FutureWarning, False), (DeprecationWarning, False)],
)
def test_warnings_are_one_line_without_a_source_path(capsys, monkeypatch, category, shown):
    """A warning is one line; a dependency's notice of a coming change (pandas' and dask's
    FutureWarnings: a keyword going away, ...) speaks to the code that calls it, and the
    user of the command does not see it (--debug shows it)."""
    evaluation = importlib.import_module("trecbench.evaluation")
    real = evaluation.evaluate

    def warns(*args, **kwargs):
        warnings.warn("something odd", category, stacklevel=1)
        return real(*args, **kwargs)

    monkeypatch.setattr(evaluation, "evaluate", warns)
    _general_path(monkeypatch)
    warnings.simplefilter("always")  # as PYTHONWARNINGS=always would
    code, _, err = call(capsys, "score", QRELS, RUN)
    assert code == 0
    assert err == (f"trecbench: warning: {category.__name__}: something odd\n" if shown else "")


def test_a_run_named_after_measures_is_said_to_be_given_with_m(capsys, tmp_path, monkeypatch):
    # ir_measures' command line takes QRELS RUN MEASURES: `score QRELS RUN nDCG@10` said
    # "nDCG@10: cannot read: No such file" alone
    monkeypatch.chdir(tmp_path)
    code, _, err = call(capsys, "score", QRELS, RUN, "nDCG@10 P@5")
    assert code == ExitCode.INPUT
    assert err == (
        "trecbench: nDCG@10 P@5: cannot read: No such file (measures are given with -m: "
        "-m 'nDCG@10 P@5')\n"
    )
    code, _, err = call(capsys, "score", QRELS, RUN, "bm25.run")  # no measure: as it was
    assert err == "trecbench: bm25.run: cannot read: No such file\n"
    code, _, err = call(capsys, "fuse", RUN, "map", "-o", "f.run")  # no -m to point at
    assert err == "trecbench: map: cannot read: No such file\n"


def test_an_empty_path_is_said_to_be_one(capsys, tmp_path, monkeypatch):
    # "trecbench: : cannot read: No such file": no file named before the colon; in Python
    # a run "" was "run names must not be blank, not ''"
    import trecbench
    from trecbench.errors import UsageError

    monkeypatch.chdir(tmp_path)
    said = "trecbench: '': cannot read: an empty file name; give the file's path\n"
    for args in (("score", QRELS, ""), ("score", "", RUN), ("validate", "")):
        code, out, err = call(capsys, *args)
        assert (code, out, err) == (ExitCode.INPUT, "", said)
    with pytest.raises(UsageError, match=r"^a run's path is empty \(''\): give the run's file$"):
        trecbench.evaluate(QRELS, "", ["P@1"])
    with pytest.raises(InputError, match=r"^'': cannot read: an empty file name"):
        trecbench.evaluate(QRELS, "", ["P@1"], names=["x"])
    with pytest.raises(InputError, match=r"^'': cannot read: an empty file name"):
        trecbench.evaluate("", RUN, ["P@1"])  # not "no such file, nor an ir_datasets dataset"


def test_messages_escape_control_characters(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, _, err = call(capsys, "score", QRELS, "fake\nP_1 all 1.0\tx.run")
    assert code == ExitCode.INPUT
    assert err == "trecbench: fake\\nP_1 all 1.0\\tx.run: cannot read: No such file\n"


def test_library_errors_keep_their_exit_codes(capsys, tmp_path):
    duplicate = tmp_path / "dup.run"
    duplicate.write_text("de-01 Q0 HP:1 1 2 t\nde-01 Q0 HP:1 2 1 t\n")
    other = tmp_path / "other.run"
    other.write_text("nope Q0 HP:1 1 2 t\n")
    assert call(capsys, "score", QRELS, duplicate)[0] == ExitCode.DUPLICATE
    assert call(capsys, "score", QRELS, other)[0] == ExitCode.NO_OVERLAP
    assert call(capsys, "--version")[0] == ExitCode.OK


def test_compare_refuses_impossible_resampling_in_one_line(capsys, tmp_path):
    # the most resamples --samples takes (2**32; 10**10 is refused by its range)
    code, _, err = call(capsys, "compare", "--samples", 2**32, "-o", tmp_path, QRELS, RUN, RUN2)
    assert code == ExitCode.USAGE
    assert re.fullmatch(
        r"trecbench: 4,294,967,296 resamples of \d+ values need [\d,.]+ GiB of memory.*\n", err
    )
    assert list(tmp_path.iterdir()) == []


def test_compare_refuses_a_negative_seed_in_the_library_too():
    from trecbench.comparison import compare
    from trecbench.errors import UsageError

    with pytest.raises(UsageError, match="seed must be a non-negative integer"):
        compare(QRELS, [RUN, RUN2], seed=-1)


def _trecbench(args, stdout, unbuffered: bool = False) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "trecbench", *map(str, args)]
    env = {name: value for name, value in os.environ.items() if name != "PYTHONUNBUFFERED"}
    env |= {"PYTHONUNBUFFERED": "1"} if unbuffered else {}
    return subprocess.run(command, stdout=stdout, stderr=subprocess.PIPE, check=False, env=env)


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest.mark.parametrize("unbuffered", [False, True], ids=["buffered", "PYTHONUNBUFFERED"])
def test_a_full_stdout_is_an_output_error(unbuffered):
    with open("/dev/full", "wb") as full:
        done = _trecbench(["score", "-q", QRELS, RUN], stdout=full, unbuffered=unbuffered)
    assert done.returncode == ExitCode.INPUT
    assert done.stderr == (b"trecbench: standard output: cannot write (No space left on device)\n")


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_a_full_stdout_replaces_none_of_the_files(tmp_path):
    # the output error comes before the files: an earlier call's stay whole
    old = b"OLD\n"
    commands = {
        "score": (["score", QRELS, RUN, "--report", tmp_path / "r.json"], "r.json"),
        "html": (["score", "--html", tmp_path / "p.html", QRELS, RUN, RUN2], "p.html"),
        "pool": (["pool", RUN, RUN2, "--depth", "5", "-o", tmp_path / "p.txt"], "p.txt"),
        "compare": (["compare", QRELS, RUN, RUN2, "-m", "P@5", "-o", tmp_path / "c"], None),
    }  # convert -o DIR prints nothing: tests/test_written_on_stderr.py
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / "BenchmarkReport.json").write_bytes(old)
    for name, (args, target) in commands.items():
        if target is not None:
            (tmp_path / target).write_bytes(old)
        with open("/dev/full", "wb") as full:
            done = _trecbench(args, stdout=full)
        assert done.returncode == ExitCode.INPUT, name
        assert b"standard output: cannot write" in done.stderr, name
    for target in ("r.json", "p.html", "p.txt", "c/BenchmarkReport.json"):
        assert (tmp_path / target).read_bytes() == old, target
    assert sorted(p.name for p in (tmp_path / "c").iterdir()) == ["BenchmarkReport.json"]


class _FullDisk:
    """A staged file's handle on a full disk: every write fails with ENOSPC."""

    def write(self, data):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    def flush(self):
        pass


@pytest.mark.parametrize("command", ["score", "html", "compare", "benchmark", "pool"])
def test_a_full_disk_prints_nothing_on_stdout(command, tmp_path, monkeypatch, capfd):
    """score, compare and benchmark printed their whole results, then failed to write a file (exit
    2, reviewer 410): stdout said success, the exit code failure. The files are now
    written whole before stdout is printed, and put in place (renamed) after it. So was
    pool's summary of what each run pooled, printed before its pool file was written."""
    from trecbench import outputs

    real_open = outputs.OutputSet.open

    def full_disk(self, path):
        real_open(self, path)  # staged, as the real call stages it, then removed
        return _FullDisk()

    monkeypatch.setattr(outputs.OutputSet, "open", full_disk)
    args = {
        "score": ["score", QRELS, RUN, "--report", str(tmp_path / "r.json")],
        "html": ["score", "--html", str(tmp_path / "p.html"), QRELS, RUN, RUN2],
        "compare": ["compare", QRELS, RUN, RUN2, "-m", "P@5", "-o", str(tmp_path)],
        "benchmark": ["benchmark", str(BENCHMARK), "-o", str(tmp_path)],
        "pool": ["pool", RUN, RUN2, "--depth", "5", "-o", str(tmp_path / "p.txt")],
    }[command]
    assert run(args) == ExitCode.INPUT
    out, err = capfd.readouterr()
    assert out == ""
    assert err.endswith(": cannot write (No space left on device)\n")
    assert err.count("\n") == 1, err
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # nothing staged is left


class _ShortFile(io.FileIO):
    """A file that takes at most ``most`` bytes a write, and none once ``room`` are
    written (as a disk filling up does, without the error a real one gives next)."""

    def __init__(self, path, most: int, room: int | None = None):
        super().__init__(path, "wb")
        self.most, self.room, self.refused = most, room, 0

    def write(self, data) -> int:
        left = len(data) if self.room is None else max(0, self.room - self.tell())
        self.refused += left == 0
        if self.refused > 100:  # Python's own buffer would try for ever
            raise AssertionError("a write that took nothing was repeated")
        return super().write(memoryview(data)[: min(self.most, left)])


@pytest.mark.parametrize("unbuffered", [False, True], ids=["buffered", "PYTHONUNBUFFERED"])
def test_short_writes_to_stdout_are_completed_or_reported(unbuffered, tmp_path, monkeypatch):
    """Python does not check what a write to an unbuffered stdout took: short writes lost
    the rest of score's output with exit 0. Now every byte is written, or the command
    ends with the one-line error of a failed write, exit 2."""
    expected = tmp_path / "expected"
    with open(expected, "w") as whole:
        monkeypatch.setattr(sys, "stdout", whole)
        assert run(["score", "-q", QRELS, RUN]) == 0
    for room, code in ((None, 0), (5000, ExitCode.INPUT)):
        out = tmp_path / f"out{room}"
        raw = _ShortFile(out, most=7, room=room)
        binary = raw if unbuffered else io.BufferedWriter(raw)
        stream = io.TextIOWrapper(binary, encoding="utf-8", write_through=unbuffered)
        monkeypatch.setattr(sys, "stdout", stream)
        monkeypatch.setattr(sys, "stderr", io.StringIO())
        assert run(["score", "-q", QRELS, RUN]) == code
        error = sys.stderr.getvalue()
        monkeypatch.undo()
        if room is None:
            stream.flush()
            assert out.read_bytes() == expected.read_bytes() and error == ""
        else:
            assert re.fullmatch(
                r"trecbench: standard output: cannot write \(short write: \d+ of \d+ bytes "
                r"written\)\n",
                error,
            ), error


@pytest.mark.parametrize("unbuffered", [False, True], ids=["buffered", "PYTHONUNBUFFERED"])
def test_a_closed_stdout_ends_quietly(unbuffered):
    reader, writer = os.pipe()
    os.close(reader)  # nobody will read: the first write fails with EPIPE
    try:
        done = _trecbench(["score", "-q", QRELS, RUN], stdout=writer, unbuffered=unbuffered)
    finally:
        os.close(writer)
    assert (done.returncode, done.stderr) == (ExitCode.BROKEN_PIPE, b"")


def _main(args) -> subprocess.CompletedProcess:
    """``trecbench ARGS`` through the console-script entry point, with an exit function
    registered before it that prints (it must still run, and what it prints must still be
    flushed: main() skips only the interpreter's teardown)."""
    script = (
        "import atexit\n"
        "atexit.register(lambda: print('exit functions ran'))\n"
        "from trecbench.cli import main\n"
        "main()\n"
    )
    command = [sys.executable, "-c", script, *map(str, args)]
    buffered = {name: value for name, value in os.environ.items() if name != "PYTHONUNBUFFERED"}
    return subprocess.run(command, capture_output=True, check=False, env=buffered)


def test_the_entry_point_ends_with_every_output_whole_and_the_commands_exit_code(tmp_path, capsys):
    report = tmp_path / "report.json"
    done = _main(["score", "-q", "--report", report, QRELS, RUN])
    assert done.returncode == 0
    assert run(["score", "-q", QRELS, RUN]) == 0  # the same command in this process
    assert done.stdout.decode() == capsys.readouterr().out + "exit functions ran\n"
    assert json.loads(report.read_text())["results"]  # written whole before the end

    missing = tmp_path / "missing.run"
    done = _main(["score", QRELS, missing])
    assert run(["score", QRELS, str(missing)]) == done.returncode == ExitCode.INPUT
    assert done.stderr.decode() == capsys.readouterr().err
    assert done.stdout.decode() == "exit functions ran\n"


def _dask_installed() -> bool:
    import importlib.util

    return all(importlib.util.find_spec(name) for name in ("dask", "distributed"))


needs_dask = pytest.mark.skipif(not _dask_installed(), reason="needs trecbench[dask]")


@pytest.mark.parametrize(
    "args",
    [
        pytest.param(["score", "--dask", "", QRELS, RUN], marks=needs_dask),
        pytest.param(["score", "--dask", "foo", QRELS, RUN], marks=needs_dask),
        pytest.param(["score", "--dask", "tcp://[::1", QRELS, RUN], marks=needs_dask),
        pytest.param(["score", "--dask", f"local:{10**20}", QRELS, RUN], marks=needs_dask),
        ["fuse", RUN, RUN2, "-o", "f.run", "--depth", 10**23],
        ["convert", "msmarco", "ms.tsv", "-o", "d", "--depth", 10**23],
        ["validate", RUN, "--max-depth", 10**23, "--fix", "fixed.run"],
        ["convert", "memorybench", "mb.json", "-o", "d", "--iou", "nan"],
        ["fuse", RUN, RUN2, "-o", "f.run", "--tag", "a b"],
        ["fuse", RUN, RUN2, "-o", "f.run", "--tag", "a\nb"],
        ["score", "-m", "", QRELS, RUN],
        ["score", "-m", " ", QRELS, RUN],
    ],
)
def test_hostile_option_values_are_usage_errors(capsys, tmp_path, monkeypatch, args):
    monkeypatch.chdir(tmp_path)
    inputs = {
        "ms.tsv": "q1\tp1\t1\nq1\tp2\t2\n",  # an MS MARCO run
        "mb.json": '{"results": [{"provider": "p", "itemId": "q", "retrievedContext": '
        '[{"id": "c", "score": 1}], "metadata": {"relevantIds": ["c"]}}]}',  # memorybench
    }
    for name, text in inputs.items():
        (tmp_path / name).write_text(text)
    code, out, err = call(capsys, *args)
    assert (code, out) == (ExitCode.USAGE, ""), err
    # one line, whether the library or click refused the value
    assert len(err.splitlines()) == 1 and err.startswith("trecbench: "), err
    assert "internal error" not in err and "Traceback" not in err
    assert sorted(path.name for path in tmp_path.iterdir()) == sorted(inputs)


@needs_dask
def test_a_dask_run_globs_files_no_output_may_replace(capsys, tmp_path):
    """The files a --dask glob names are read by the workers, not here: they are inputs of
    the call all the same, refused as a --report before any cluster starts."""
    shards = tmp_path / "shards"
    shards.mkdir()
    for name in ("a.run", "b.run"):
        (shards / name).write_text(Path(RUN).read_text())
    before = (shards / "b.run").read_bytes()
    report = shards / "b.run"
    code, out, err = call(
        capsys, "score", "--dask", "local:2", QRELS, shards / "*.run", "--report", report
    )
    assert (code, out, err) == (
        ExitCode.INPUT,
        "",
        f"trecbench: {report}: refusing to overwrite an input file\n",
    )
    assert (shards / "b.run").read_bytes() == before


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        # a usage error, as --fix o.gz and o.jsonl are (issue 444 item 2)
        (["validate", RUN, "--fix", "-"], ExitCode.USAGE, "-: give a file name"),
        # ... said before any file is read: a missing run is not reached
        (["validate", "missing.run", "--fix", "-"], ExitCode.USAGE, "-: give a file name"),
        (["score", QRELS, RUN, "--report", "-"], ExitCode.INPUT, "-: give a file name"),
        (
            ["score", QRELS, RUN, "--report", "d/x/r.json", "--manifest", "d/x"],
            ExitCode.USAGE,
            "d/x would be a file and the folder holding d/x/r.json",
        ),
        (
            ["compare", QRELS, RUN, RUN2, "-o", "o", "--manifest", "o", "--samples", 10**6],
            ExitCode.USAGE,
            "--manifest o is a folder compare writes o/",
        ),
        (  # refused before the 10**6 resamples, not after them ("is a directory")
            [
                "compare",
                QRELS,
                RUN,
                RUN2,
                "-o",
                "o",
                "--manifest",
                "o/AllPairs.tex/m.json",
                "--samples",
                10**6,
            ],
            ExitCode.USAGE,
            "--manifest o/AllPairs.tex/m.json lies under o/AllPairs.tex, a file compare writes",
        ),
        (
            ["score", QRELS, RUN, "--report", "r.json", "--manifest", "./r.json"],
            ExitCode.USAGE,
            "r.json: written twice by one command, as --report and as --manifest",
        ),
        (  # the page was written after the report, over it (exit 0, one file)
            ["score", QRELS, RUN, "--report", "r.json", "--html", "./r.json"],
            ExitCode.USAGE,
            "r.json: written twice by one command, as --report and as --html",
        ),
        (
            ["score", QRELS, RUN, "--html", "d", "--manifest", "d/m.json"],
            ExitCode.USAGE,
            "d would be a file and the folder holding d/m.json",
        ),
        (
            ["compare", QRELS, RUN, RUN2, "-o", "o", "--manifest", "o/BenchmarkComparison.md"],
            ExitCode.USAGE,
            "o/BenchmarkComparison.md: written twice by one command, as --manifest and as"
            " compare's Markdown table",
        ),
    ],
)
def test_outputs_that_cannot_be_written_are_refused_before_the_work(
    capsys, tmp_path, monkeypatch, args, code, message
):
    """'-' (a file of that name where standard output is meant), and one output the folder
    of another: refused when the command starts (compare's million resamples never run)."""
    monkeypatch.chdir(tmp_path)
    got, out, err = call(capsys, *args)
    assert (got, out) == (code, "")
    assert err.startswith(f"trecbench: {message}"), err
    assert list(tmp_path.iterdir()) == []


def test_score_commits_its_report_manifest_and_page_together(capsys, tmp_path, monkeypatch):
    """The --html page is written with the report and manifest (all or none), and the
    manifest lists it with its checksum (it was written afterwards, unlisted)."""
    import hashlib

    monkeypatch.chdir(tmp_path)
    args = ["score", QRELS, RUN, "--report", "r.json", "--manifest", "m.json", "--html", "p.html"]
    code, _, _ = call(capsys, *args)
    assert code == 0
    (listed,) = [
        f for f in json.loads(Path("m.json").read_text())["outputs"] if f["kind"] == "html"
    ]
    page = Path("p.html").read_bytes()
    assert listed == {
        "path": "p.html", "kind": "html", "size": len(page),
        "sha256": hashlib.sha256(page).hexdigest(),
    }  # fmt: skip


def test_undecodable_topics_are_one_line_input_errors(capsys, tmp_path):
    topics = tmp_path / "topics.txt"
    topics.write_bytes(b"en-01\nen-0\xff\n")  # was read as en-0\ufffd, a topic of no run
    code, out, err = call(capsys, "validate", "--topics", topics, RUN)
    assert (code, out, err) == (ExitCode.INPUT, "", f"trecbench: {topics}:2: invalid UTF-8\n")


# -- pipes: a single run to standard output, `-` read back (issue 27)


def _pipe(first: list, second: list) -> tuple[bytes, subprocess.CompletedProcess]:
    """``trecbench FIRST | trecbench SECOND``: what FIRST printed, and SECOND's result."""
    command = [sys.executable, "-m", "trecbench"]
    left = subprocess.run([*command, *map(str, first)], capture_output=True, check=True)
    right = subprocess.run(
        [*command, *map(str, second)], input=left.stdout, capture_output=True, check=False
    )
    return left.stdout, right


def test_fuse_to_standard_output_scores_as_the_fused_file(tmp_path):
    fused = tmp_path / "fused.run"
    assert run(["fuse", RUN, RUN2, "-o", str(fused)]) == 0
    scored = _trecbench(["score", "--compat", "10.0", "-q", QRELS, fused], subprocess.PIPE)
    printed, piped = _pipe(
        ["fuse", RUN, RUN2, "-o", "-"], ["score", "--compat", "10.0", "-q", QRELS, "-"]
    )
    assert printed == fused.read_bytes()
    assert piped.returncode == 0 and piped.stdout == scored.stdout and scored.stdout
    _, read = _pipe(["fuse", RUN, RUN2, "-o", "-"], ["validate", "-"])
    assert read.returncode == 0 and b"\nOK: 1 file(s), 4950 lines: 0 error(s)" in read.stdout
    # 9.0.8's semantics too (trec_eval 9.0.8 has no '-': read as any pipe, '#' as data)
    scored = _trecbench(["score", "-q", QRELS, fused], subprocess.PIPE)
    _, piped = _pipe(["fuse", RUN, RUN2, "-o", "-"], ["score", "-q", QRELS, "-"])
    assert piped.returncode == 0 and piped.stdout == scored.stdout and scored.stdout


def test_convert_prints_a_single_run_and_refuses_more(tmp_path, capsys):
    source = tmp_path / "ms.tsv"
    source.write_text("1\td1\t1\n1\td2\t2\n2\td3\t1\n")
    assert run(["convert", "msmarco", str(source), "-o", str(tmp_path / "out")]) == 0
    capsys.readouterr()
    done = _trecbench(["convert", "msmarco", source, "-o", "-"], subprocess.PIPE)
    assert done.returncode == 0
    assert done.stdout == (tmp_path / "out" / "ms.run").read_bytes()
    assert done.stderr.decode().startswith("wrote standard output: 2 queries, 3 documents")
    qrels = tmp_path / "q.json"
    qrels.write_text('{"1": {"d1": 1}}')
    results = tmp_path / "r.json"
    results.write_text('{"1": {"d1": 0.5, "d2": 0.7}}')
    code, out, err = call(capsys, "convert", "dict", results, "--qrels-json", qrels, "-o", "-")
    # a refused output, exit 2, as pool's, validate --fix's, score --report's and
    # compare's -o - are (it was a usage error, exit 1, in usage wording)
    assert (code, out) == (ExitCode.INPUT, "")
    assert err == (
        "trecbench: -: standard output takes a single run; this conversion writes 1 run and "
        "1 qrels (give a folder)\n"
    )
    hpo = ROOT / "data" / "hpo-demo" / "cases.json"
    code, out, err = call(capsys, "convert", "hpo", hpo, "-o", "-")
    assert (code, out) == (ExitCode.INPUT, "")
    assert (
        err.startswith("trecbench: -: standard output takes a single run; ") and "(see" not in err
    )


def test_an_error_line_is_capped_whatever_the_message_holds(capsys):
    """The last cap: a message built from a hostile value (a library's error quoting it
    whole) is printed as at most one line of MESSAGE_LIMIT characters and a prefix."""
    from trecbench.cli import MESSAGE_LIMIT, echo_line

    echo_line("x" * 10**6)
    printed = capsys.readouterr().err
    assert printed.count("\n") == 1
    assert len(printed) < MESSAGE_LIMIT + 50
    assert "(1,000,000 characters)" in printed


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        # click knows the command (its context)
        (["agree", "--seed", "-1", "a", "b"], "agree: Invalid value for '--seed': -1 is not"),
        (["score"], "score: Missing argument 'QRELS'."),
        # click gives an option without its value no context: the command is still named
        (["score", "-m"], "score: Option '-m' requires an argument."),
        (["--debug", "pool", "--depth"], "pool: Option '--depth' requires an argument."),
        (["nosuch"], "No such command 'nosuch'."),
    ],
)
def test_a_usage_error_is_one_line_naming_the_command(capsys, args, expected):
    code, out, err = call(capsys, *args)
    command = next((arg for arg in args if arg in ("agree", "score", "pool")), "")
    help_call = " ".join(("trecbench", command, "--help")).replace("  ", " ")
    assert (code, out) == (ExitCode.USAGE, "")
    assert err.startswith(f"trecbench: {expected}") and err.endswith(f"(see '{help_call}')\n")
    assert len(err.splitlines()) == 1


def test_trecbench_alone_prints_its_help(capsys):
    code, out, err = call(capsys)
    assert code == ExitCode.USAGE and "Commands:" in out + err


@pytest.mark.parametrize(("command", "option"), [("score", "--report"), ("compare", "--manifest")])
def test_standard_input_read_from_a_file_is_an_input_no_output_may_replace(
    tmp_path, command, option
):
    """``trecbench score q - --report a.run < a.run``: the file behind standard input is an
    input of the call, refused as an output before anything is printed."""
    run = tmp_path / "a.run"
    run.write_bytes(Path(RUN).read_bytes())
    rest = ["-"] if command == "score" else ["-", RUN2, "-o", str(tmp_path / "out")]
    argv = [sys.executable, "-m", "trecbench", command, QRELS, *rest, option, str(run)]
    with open(run, "rb") as stdin:
        done = subprocess.run(argv, stdin=stdin, capture_output=True, check=False)
    assert (done.returncode, done.stdout) == (ExitCode.INPUT, b""), done.stderr
    assert done.stderr == f"trecbench: {run}: refusing to overwrite an input file\n".encode()
    assert run.read_bytes() == Path(RUN).read_bytes()


@pytest.mark.parametrize(
    "args",
    [
        ["score", "--compat", "10.0", "-m", "map", QRELS, "-", "/dev/stdin"],
        ["score", "-m", "map", "/dev/stdin", "-"],
        ["validate", "-", "/dev/stdin"],
        ["score", "-m", "map", "-Z", "/dev/stdin", QRELS, "-"],  # the -Z file, read after
        # these said "-: the same run is given twice" (a file named twice), not why
        ["similarity", "-", "-"],
        ["compare", QRELS, "-", "-", "-m", "P@5", "-o", "{tmp}/out"],
        ["compare", QRELS, "-", "/dev/stdin", "-m", "P@5", "-o", "{tmp}/out"],
        ["power", QRELS, "-", "-", "-m", "P@5"],
        ["agree", QRELS, "-", "-", "-m", "P@5"],
        ["pool", "-", "-", "-o", "{tmp}/pool.txt"],
    ],
)
def test_standard_input_spelt_two_ways_is_refused(args, tmp_path):
    # the second reading found the pipe empty: "/dev/stdin: error[R26]: empty file"
    args = [arg.format(tmp=tmp_path) for arg in args]
    argv = [sys.executable, "-m", "trecbench", *args]
    reads_a_run = args[0] in ("validate", "similarity", "pool") or QRELS in args
    text = Path(RUN if reads_a_run else QRELS).read_bytes()
    done = subprocess.run(argv, input=text, capture_output=True, check=False)
    assert (done.returncode, done.stdout) == (ExitCode.USAGE, b""), done.stderr
    assert b"standard input ('-', /dev/stdin) can be read once: give it once" in done.stderr


def _as_a_user(argv: list[str]) -> list[str]:
    """``argv`` run without root's capabilities, as a user (root reads and writes
    anywhere): under ``setpriv`` when run as root."""
    if os.geteuid() != 0:
        return argv
    caps = "-dac_override,-dac_read_search,-fowner"
    return ["setpriv", "--bounding-set", caps, "--inh-caps=-all", "--", *argv]


@pytest.mark.skipif(
    os.geteuid() == 0 and shutil.which("setpriv") is None, reason="root needs setpriv here"
)
@pytest.mark.parametrize(
    "args",
    [
        ["score", "-m", "map", QRELS, RUN, "--report", "{ro}/r.json"],
        ["compare", QRELS, RUN, RUN2, "-m", "P@5", "-o", "{ro}/out"],
        ["pool", RUN, RUN2, "-o", "{ro}/p.txt"],
    ],
)
def test_a_folder_it_may_not_write_into_is_refused_before_the_work(tmp_path, args):
    # the results were printed, then "ro: cannot write here (Permission denied)", exit 2
    ro = tmp_path / "ro"
    ro.mkdir(mode=0o555)
    argv = [sys.executable, "-m", "trecbench", *(str(a).format(ro=ro) for a in args)]
    done = subprocess.run(_as_a_user(argv), capture_output=True, check=False)
    assert (done.returncode, done.stdout) == (ExitCode.INPUT, b""), done.stderr
    assert done.stderr == f"trecbench: {ro}: cannot write here (Permission denied)\n".encode()
    assert list(ro.iterdir()) == []


@pytest.mark.skipif(
    os.geteuid() == 0 and shutil.which("setpriv") is None, reason="root needs setpriv here"
)
@pytest.mark.parametrize(
    "args",
    [
        ["validate", "{f}"],
        ["validate", "--qrels", "{f}", RUN],
        ["score", "{f}", RUN],
        ["score", QRELS, "{f}"],
        ["score", "-m", "P@5", QRELS, "{f}"],
        ["compare", QRELS, RUN, "{f}", "-m", "P@5", "-o", "{tmp}/out"],
        ["similarity", RUN, "{f}"],
    ],
)
def test_an_input_it_may_not_read_is_said_alike_by_every_command(tmp_path, args):
    # validate and score (their small paths' bare OSError) said "F: Permission denied",
    # the other commands "F: cannot read: Permission denied"
    unreadable = tmp_path / "f.run"
    unreadable.write_bytes(Path(RUN).read_bytes())
    unreadable.chmod(0)
    given = [str(a).format(f=unreadable, tmp=tmp_path) for a in args]
    argv = [sys.executable, "-m", "trecbench", *given]
    done = subprocess.run(_as_a_user(argv), capture_output=True, check=False)
    assert (done.returncode, done.stdout) == (ExitCode.INPUT, b""), done.stderr
    assert done.stderr == f"trecbench: {unreadable}: cannot read: Permission denied\n".encode()


def test_the_small_paths_leave_a_file_they_cannot_open_to_the_general_reader(tmp_path, monkeypatch):
    # the general path's reader says "cannot read: ..." of it, as every reader does
    from trecbench import small_text

    def refused(path, *args, **kwargs):
        raise PermissionError(13, "Permission denied", path)

    monkeypatch.setattr(small_text, "open", refused, raising=False)
    assert small_text.small_bytes(RUN, small_text.VALIDATED_BYTES) is None
    assert small_text.read_plain(RUN, "run", small_text.SCORED_BYTES) is None


@pytest.mark.parametrize(
    "args",
    [
        ["score", "-m", "map", QRELS, RUN, "--report", "{out}/r.json"],
        ["score", "-m", "map", QRELS, RUN, "--report", "{out}/sub/r.json"],
        ["compare", QRELS, RUN, RUN2, "-m", "P@5", "-o", "{out}/cmp"],
        ["pool", RUN, RUN2, "-o", "{out}/p.txt"],
    ],
)
def test_a_folder_that_is_a_link_to_nothing_is_refused_before_the_work(tmp_path, args):
    # the results were printed, then "out: cannot write here (No such file or directory)"
    out = tmp_path / "out"
    out.symlink_to(tmp_path / "missing")
    argv = [sys.executable, "-m", "trecbench", *(str(a).format(out=out) for a in args)]
    done = subprocess.run(argv, capture_output=True, check=False)
    assert (done.returncode, done.stdout) == (ExitCode.INPUT, b""), done.stderr
    message = f"trecbench: {out}: a symbolic link to a folder that does not exist\n"
    assert done.stderr == message.encode()
    assert not (tmp_path / "missing").exists()


@pytest.mark.parametrize(
    "args",
    [
        ["compare", QRELS, RUN, RUN2, "-m", "P@5", "-o", "{out}"],
        ["compare", QRELS, RUN, RUN2, "-m", "P@5", "-o", "{out}/cmp"],
        ["convert", "msmarco", str(ROOT / "data" / "convert" / "msmarco-run.tsv"), "-o", "{out}"],
        ["pool", RUN, RUN2, "-o", "{out}/sub/p.txt"],
    ],
)
def test_a_folder_that_is_a_symbolic_link_loop_is_refused_as_a_loop(tmp_path, args):
    # it was "a symbolic link to a folder that does not exist"
    out, other = tmp_path / "out", tmp_path / "other"
    out.symlink_to(other)
    other.symlink_to(out)
    argv = [sys.executable, "-m", "trecbench", *(str(a).format(out=out) for a in args)]
    done = subprocess.run(argv, capture_output=True, check=False)
    assert (done.returncode, done.stdout) == (ExitCode.INPUT, b""), done.stderr
    said = done.stderr.decode()  # the folder, or the file below it (the system's ELOOP)
    assert said.startswith(f"trecbench: {out}") and said.count("\n") == 1
    assert said.endswith(": cannot write here (Too many levels of symbolic links)\n")


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["fuse", RUN, RUN2, "-o", "--quiet"], "fuse: --output took the option '--quiet'"),
        (["score", QRELS, RUN, "--report", "-q"], "score: --report took the option '-q'"),
        (["score", QRELS, RUN, "--html", "--report"], "score: --html took the option '--report'"),
        (["validate", RUN, "--fix", "--quiet"], "validate: --fix took the option '--quiet'"),
        (["pool", RUN, "-o", "--depth=5"], "pool: --output took the option '--depth=5'"),
        (
            ["compare", QRELS, RUN, RUN2, "-o", "--plots"],
            "compare: --outdir took the option '--plots'",
        ),
    ],
)
def test_an_output_option_that_took_the_next_option_says_so(
    tmp_path, monkeypatch, capsys, args, said
):
    # fuse -o --quiet wrote a file named --quiet (the flag lost), exit 0
    monkeypatch.chdir(tmp_path)
    assert run(args) == ExitCode.USAGE
    err = capsys.readouterr().err
    assert err.startswith(f"trecbench: {said} as its value: give ") and err.count("\n") == 1
    assert list(tmp_path.iterdir()) == []


CASES = str(ROOT / "data" / "hpo-demo" / "cases.json")


@pytest.mark.parametrize("target", ["file", "link to a file", "link to /dev/null"])
@pytest.mark.parametrize(
    "args",
    [
        ["compare", QRELS, RUN, RUN2, "-m", "P@5", "-o", "{out}"],
        ["convert", "hpo", CASES, "-o", "{out}"],
        ["convert", "hpo", CASES, "-o", "{tmp}/converted", "--runs-dir", "{out}"],
        ["benchmark", str(ROOT / "data" / "hpo-rtask" / "benchmark.toml"), "-o", "{out}"],
    ],
    ids=["compare -o", "convert -o", "convert --runs-dir", "benchmark -o"],
)
def test_an_output_folder_that_is_not_one_is_refused_as_such(tmp_path, target, args):
    # a link to a file or to /dev/null was "a symbolic link to a folder that does not exist"
    out, regular = tmp_path / "out", tmp_path / "regular"
    regular.write_text("kept\n")
    if target == "file":
        out = regular
    else:
        out.symlink_to("/dev/null" if target.endswith("null") else regular)
    argv = [sys.executable, "-m", "trecbench", *(a.format(out=out, tmp=tmp_path) for a in args)]
    done = subprocess.run(argv, capture_output=True, check=False)
    assert (done.returncode, done.stdout) == (ExitCode.INPUT, b""), done.stderr
    assert done.stderr == f"trecbench: {out}: is not a directory\n".encode()
    assert regular.read_text() == "kept\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted({"regular", out.name})


def test_a_file_name_byte_that_is_not_utf8_reads_as_that_byte_on_stderr(tmp_path):
    # 'wrote o\\udcffx.run' (Python's surrogate) where Markdown and convert show %FF and the
    # docs promise \\xff
    name = os.fsencode(tmp_path) + b"/o\xffx.run"
    argv = [sys.executable, "-m", "trecbench", "fuse", RUN, RUN2, "-o", name]
    done = subprocess.run(argv, capture_output=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stderr.decode().endswith(
        f"wrote {tmp_path}/o\\xffx.run: 4950 documents, 56 topics\n"
    )


# a Ctrl-C as the command line imports MODULE (as the terminal sends it: SIGINT not
# ignored): click as it is imported, ctypes in its set-up (trecbench.cli.main's) after
_CTRL_C_AS_THE_CLI_IS_IMPORTED = """
import os, signal, sys

class CtrlC:
    def find_spec(self, name, path=None, target=None):
        if name == MODULE:
            sys.meta_path.remove(self)
            os.kill(os.getpid(), signal.SIGINT)
        return None

signal.signal(signal.SIGINT, signal.default_int_handler)
sys.meta_path.insert(0, CtrlC())
sys.argv = ["trecbench", "measures"]
"""


@pytest.mark.parametrize("module", ["click", "ctypes"])
@pytest.mark.parametrize(
    "start",
    [
        "import runpy; runpy.run_module('trecbench', run_name='__main__')",  # python -m
        "from trecbench.__main__ import main; main()",  # the console script
    ],
)
def test_a_ctrl_c_as_the_command_line_starts_is_one_line(start, module):
    """A Ctrl-C in the first tenths of a second, while Python imported the command line
    or it set itself up (ctypes imported to keep freed memory, before the command's
    guard), printed Python's traceback: it ends as any Ctrl-C, in one line, exit 130."""
    code = f"MODULE = {module!r}" + _CTRL_C_AS_THE_CLI_IS_IMPORTED + start
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert (done.returncode, done.stdout) == (130, "")
    assert done.stderr == "trecbench: interrupted\n"


def _interrupt(*args, **kwargs):
    raise KeyboardInterrupt


def _interrupt_as_a_class_is_made(*args, **kwargs):
    """A Ctrl-C as a class is made (a dataclass's module imported late): Python 3.11
    raises it wrapped in a RuntimeError ('Error calling __set_name__ ...')."""

    class Interrupting:
        def __set_name__(self, owner, name):
            raise KeyboardInterrupt

    type("Late", (), {"flagged": Interrupting()})


def test_a_ctrl_c_wrapped_by_python_is_said_as_one(monkeypatch, capfd):
    """A Ctrl-C raised in a class's __set_name__ came wrapped in a RuntimeError (Python
    3.11): 'internal error (RuntimeError: Error calling __set_name__ ...)', exit 70."""
    from trecbench.measures import listing

    monkeypatch.setattr(listing, "text", _interrupt_as_a_class_is_made)
    assert run(["measures"]) == ExitCode.INTERRUPTED
    assert capfd.readouterr().err == "trecbench: interrupted\n"


@contextlib.contextmanager
def _interrupted_on_closing():
    yield
    raise KeyboardInterrupt


@pytest.mark.parametrize("working", [False, True])
def test_a_ctrl_c_as_the_call_flushes_its_output_is_one_line(working, monkeypatch, capfd):
    """A Ctrl-C past the command's guard, as standard output was flushed at the end —
    often a second one, the first said as `interrupted` — printed Python's traceback and
    ended the process by SIGINT (exit -2 for the shell's 130, `benchmark` Ctrl-C'd twice):
    exit 130, `interrupted` said once."""
    from trecbench import cli
    from trecbench.measures import listing

    if working:
        monkeypatch.setattr(listing, "text", _interrupt)
    monkeypatch.setattr(cli, "_flush_stdout", _interrupt)
    assert run(["measures"]) == ExitCode.INTERRUPTED
    assert capfd.readouterr().err == "trecbench: interrupted\n"


def test_a_ctrl_c_in_the_exit_functions_ends_the_process_at_once():
    """A Ctrl-C as the exit functions ran (multiprocessing's, logging's) printed their
    traceback ('Exception ignored in atexit callback'): the call's work is done and said,
    the process ends at once, exit 130."""
    code = (
        "import atexit, os, signal, sys, time\n"
        "from trecbench.cli import main\n"
        "atexit.register(lambda: (os.kill(os.getpid(), signal.SIGINT), time.sleep(5)))\n"
        "sys.argv = ['trecbench', 'measures']\n"
        "main()\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stderr) == (130, "")
    assert done.stdout  # the listing, printed before


@pytest.mark.parametrize("when", ["parsing", "working", "closing"])
def test_a_ctrl_c_during_a_command_is_one_line(when, monkeypatch, capfd):
    """click's main catches a Ctrl-C itself and printed an empty line before ours, to end
    a terminal's ^C line, wherever stderr went (reviewer 410): two lines in a log. A Ctrl-C
    as the command line is parsed, as the command works, or as its inputs' scope closes."""
    import click

    from trecbench import outputs
    from trecbench.measures import listing

    if when == "parsing":
        monkeypatch.setattr(click.Group, "parse_args", _interrupt)
    elif when == "working":
        monkeypatch.setattr(listing, "text", _interrupt)
    else:
        monkeypatch.setattr(outputs, "input_scope", _interrupted_on_closing)
    assert run(["measures"]) == ExitCode.INTERRUPTED
    out, err = capfd.readouterr()
    assert err == "trecbench: interrupted\n"
    assert (out == "") is (when != "closing")  # the listing was printed before the close


@pytest.mark.parametrize(
    ("args", "hint"),
    [
        (["score", "--report", "a.json", "--report", "b.json", "-m", "P.5", "Q", "R"],
         "'--report'"),
        (["score", "--html", "a.html", "-m", "P.5", "--html", "b.html", "Q", "R"], "'--html'"),
        (["compare", "-o", "a", "--outdir", "b", "Q", "R", "R2"], "'-o' / '--outdir'"),
        (["fuse", "-o", "a.run", "-o", "b.run", "R", "R2"], "'-o' / '--output'"),
        (["pool", "R", "R2", "-o", "a", "-o", "b"], "'-o' / '--output'"),
        (["validate", "--fix", "a.run", "--fix", "b.run", "R"], "'--fix'"),
        (["convert", "msmarco", "M", "-o", "a", "-o", "b"], "'-o' / '--outdir'"),
    ],
)  # fmt: skip
def test_an_output_given_twice_is_refused(tmp_path, monkeypatch, capsys, args, hint):
    """click kept the last of two outputs (--report a.json --report b.json wrote b.json
    alone, a.json never, without a word): an output given twice is a usage error."""
    from trecbench.cli import run

    monkeypatch.chdir(tmp_path)
    files = {
        "Q": ROOT / "qrels" / "hpo-demo.qrels",
        "R": ROOT / "runs" / "tfidf-char.run",
        "R2": ROOT / "runs" / "tfidf-word.run",
        "M": ROOT / "data" / "convert" / "msmarco-run.tsv",
    }
    assert run([str(files.get(arg, arg)) for arg in args]) == 1
    command = " ".join(args[:2]) if args[0] == "convert" else args[0]
    said = f"trecbench: {command}: {hint} is given twice: give it once (only the last one "
    assert capsys.readouterr().err.startswith(said + "given would be written)")
    assert os.listdir(tmp_path) == []


def test_an_output_given_twice_beside_help_gives_the_help(capsys):
    from trecbench.cli import run

    assert run(["score", "--report", "a.json", "--report", "a.json", "--help"]) == 0
    assert capsys.readouterr().out.startswith("Usage: trecbench score")


def test_an_option_given_twice_that_writes_nothing_counts_as_the_last(capsys):
    # getopt's way, as trec_eval's options: only outputs are refused when repeated
    from trecbench.cli import run

    files = [str(ROOT / "qrels" / "hpo-demo.qrels"), str(ROOT / "runs" / "tfidf-char.run")]
    assert run(["score", "-m", "P.5", "--format", "json", "--format", "trec", *files]) == 0
    assert capsys.readouterr().out.startswith("P_5")


# a worker process that never ends (blocked for good, as one was in SemLock.acquire after
# a Ctrl-C), then the console script's end after a Ctrl-C
_BLOCKED_WORKER_THEN_INTERRUPTED = """
import multiprocessing, signal, time

def blocked():
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # as trecbench's workers
    time.sleep(600)

if __name__ == "__main__":
    worker = multiprocessing.get_context("fork").Process(target=blocked)
    worker.start()
    from trecbench.cli import _exit
    _exit(130)
"""


def test_a_call_ended_by_a_signal_does_not_wait_for_a_blocked_worker(tmp_path):
    """After a Ctrl-C, multiprocessing's exit function joined a worker blocked for good:
    the process lived on (23 minutes, until a second Ctrl-C). It ends, exit 130."""
    script = tmp_path / "blocked.py"
    script.write_text(_BLOCKED_WORKER_THEN_INTERRUPTED)
    done = subprocess.run([sys.executable, str(script)], capture_output=True, timeout=30)
    assert done.returncode == 130


def test_an_input_of_symbolic_links_in_a_loop_is_said_to_be_one(tmp_path, capsys):
    # review 716: "loop1: cannot read: broken symbolic link", where no link is dangling
    (tmp_path / "loop1").symlink_to(tmp_path / "loop2")
    (tmp_path / "loop2").symlink_to(tmp_path / "loop1")
    (tmp_path / "gone").symlink_to(tmp_path / "missing")
    (tmp_path / "file").write_text("")
    for name, why in [
        ("loop1", "symbolic links in a loop (Too many levels of symbolic links)"),
        ("gone", "broken symbolic link"),
        # the system's reason, not "No such file" (review 719)
        ("file/x", "Not a directory"),
        ("a" * 300, "File name too long"),
    ]:
        assert run(["score", QRELS, str(tmp_path / name)]) == ExitCode.INPUT
        said = f"trecbench: {tmp_path / name}: cannot read: {why}\n"
        assert capsys.readouterr() == ("", said)
