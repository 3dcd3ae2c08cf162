"""Benchmark configurations and leaderboard suites refused where the file says it: one
run file under two names, an unknown key at its own line, a NaN as written, a file that
cannot be read or a stratum that keeps nothing named by the suite's key and line."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import ROOT

from trecbench.cli import run

RTASK = ROOT / "data" / "hpo-rtask"


def _inputs(folder: Path) -> None:
    """The R-task qrels and two runs, linked into ``folder``."""
    for name in ("hpo-rtask.qrels", "lexical.run", "vector.run"):
        os.symlink(RTASK / name, folder / name)


def _refused(capsys, argv: list[str], code: int = 1) -> str:
    assert run(argv) == code
    captured = capsys.readouterr()
    assert captured.out == ""
    return captured.err


@pytest.mark.parametrize(
    ("runs", "shown"),
    [
        ('{a = "lexical.run", b = "lexical.run"}', "'lexical.run'"),
        (
            '{a = "lexical.run", b = "./sub/../lexical.run"}',
            "'lexical.run' and 'sub/../lexical.run'",
        ),
    ],
)
def test_two_systems_of_one_run_file_are_refused_as_benchmark_refuses_two_modes(
    tmp_path, capsys, monkeypatch, runs, shown
):
    # leaderboard ranked the run against itself: a tie at every rank, every test n/a, exit 0
    _inputs(tmp_path)
    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path)
    Path("l2.toml").write_text(
        f'systems = ["a", "b"]\n[collections.x]\nqrels = "hpo-rtask.qrels"\nruns = {runs}\n'
    )
    assert _refused(capsys, ["leaderboard", "l2.toml"]) == (
        f"trecbench: l2.toml:4: collections.x.runs: systems 'a' and 'b' are one run file "
        f"({shown}): the run would be compared with itself; give it once\n"
    )


MODE_KEYS = "label, run, fuse, method, k, norm, weights, depth, tag, reranks"


@pytest.mark.parametrize(
    ("name", "text", "said"),
    [
        # no line at all: "tl.toml: (top level): Additional properties are not allowed"
        (
            "tl.toml",
            'bogus = 1\nqrels = "q"\n[modes.a]\nrun = "a.run"\n',
            "tl.toml:1: bogus: unknown key: no other key is allowed here (allowed: name, ",
        ),
        (
            "tl.yaml",
            "qrels: q\nbogus: 1\nmodes:\n  a: {run: a.run}\n",
            "tl.yaml:2: bogus: unknown key: no other key is allowed here (allowed: name, ",
        ),
        # the table header's line, 4: "a.toml:4: modes.b: Additional properties ..."
        (
            "a.toml",
            'qrels = "q"\n[modes.a]\nrun = "a.run"\n[modes.b]\nrun = "b.run"\nbogus = 1\n',
            f"a.toml:6: modes.b.bogus: unknown key: no other key is allowed here (allowed: "
            f"{MODE_KEYS})\n",
        ),
        (
            "a.yaml",
            "qrels: q\nmodes:\n  a:\n    run: a.run\n    bogus: 2\n",
            f"a.yaml:5: modes.a.bogus: unknown key: no other key is allowed here (allowed: "
            f"{MODE_KEYS})\n",
        ),
    ],
)
def test_an_unknown_key_of_a_benchmark_is_named_at_its_own_line(
    tmp_path, capsys, monkeypatch, name, text, said
):
    monkeypatch.chdir(tmp_path)
    Path(name).write_text(text)
    err = _refused(capsys, ["benchmark", name])
    assert err.startswith(f"trecbench: {said}") and err.count("\n") == 1


@pytest.mark.parametrize(
    ("text", "said"),
    [
        (
            'systems = ["a"]\nbogus = 3\n[collections.x]\nqrels = "q"\nruns = {a = "a.run"}\n',
            "s.toml:2: bogus: unknown key: no other key is allowed here (allowed: name, "
            "description, measures, systems, collections)\n",
        ),
        (
            'systems = ["a"]\n[collections.x]\nqrels = "q"\n\nruns = {a = "a.run"}\nwher = 1\n',
            "s.toml:6: collections.x.wher: unknown key: no other key is allowed here "
            "(allowed: qrels, runs, strata, where)\n",
        ),
    ],
)
def test_an_unknown_key_of_a_suite_is_named_at_its_own_line(
    tmp_path, capsys, monkeypatch, text, said
):
    monkeypatch.chdir(tmp_path)
    Path("s.toml").write_text(text)
    assert _refused(capsys, ["leaderboard", "s.toml"]) == f"trecbench: {said}"


@pytest.mark.parametrize(
    ("key", "shown"),
    [('""', '""'), ('"bo gus"', '"bo gus"'), ('"a.b"', '"a.b"'), ("\"it's\"", "\"it's\""),
     ("'say \"hi\"'", '"say \\"hi\\""'), ('"w[0]"', '"w[0]"'), ("ok-key_1", "ok-key_1")],
)  # fmt: skip
def test_an_unknown_key_is_quoted_in_its_path_as_toml_quotes_it(
    tmp_path, capsys, monkeypatch, key, shown
):
    # joined bare, an empty key read "modes.b.: unknown key", one with a dot "modes.b.a.b"
    # (as if nested), one with a blank "modes.b.bo gus"
    monkeypatch.chdir(tmp_path)
    Path("a.toml").write_text(
        f'qrels = "q"\n[modes.a]\nrun = "a.run"\n[modes.b]\nrun = "b.run"\n{key} = 1\n'
    )
    said = f"trecbench: a.toml:6: modes.b.{shown}: unknown key: no other key is allowed here"
    assert _refused(capsys, ["benchmark", "a.toml"]).startswith(said)
    Path("s.toml").write_text(f'systems = ["a"]\n{key} = 3\n[collections.x]\nqrels = "q"\n')
    said = f"trecbench: s.toml:2: {shown}: unknown key: no other key is allowed here"
    assert _refused(capsys, ["leaderboard", "s.toml"]).startswith(said)


@pytest.mark.parametrize(
    ("key", "shown"),
    [('"\\u0062ogus"', "bogus"), ('"x\\u001b[31my"', '"x\\u001b[31my"'),
     ('"x\\u2028y"', '"x\\u2028y"')],
)  # fmt: skip
def test_an_unknown_key_written_escaped_is_named_at_its_table_s_line(
    tmp_path, capsys, monkeypatch, key, shown
):
    # its own line is not found (the file writes it escaped): it had no line at all,
    # "a.toml: modes.b.bogus: unknown key"; the nearest key found, its table's header, is
    monkeypatch.chdir(tmp_path)
    Path("a.toml").write_text(
        f'qrels = "q"\n[modes.a]\nrun = "a.run"\n[modes.b]\nrun = "b.run"\n{key} = 1\n'
    )
    said = f"trecbench: a.toml:4: modes.b.{shown}: unknown key: no other key is allowed here"
    assert _refused(capsys, ["benchmark", "a.toml"]).startswith(said)
    Path("s.toml").write_text(
        f'systems = ["a"]\n[collections.x]\nqrels = "q"\nruns = {{a = "a.run"}}\n{key} = 3\n'
    )
    said = f"trecbench: s.toml:2: collections.x.{shown}: unknown key: no other key is allowed"
    assert _refused(capsys, ["leaderboard", "s.toml"]).startswith(said)


def _benchmark_of_standard_input(folder: Path, text: str, cwd: Path, piped: bool):
    """``trecbench benchmark - -o out`` in ``cwd``, the configuration ``text`` (written
    in ``folder``) piped to it or redirected from its file."""
    import subprocess
    import sys

    config = folder / "bench.toml"
    config.write_text(text)
    command = [sys.executable, "-m", "trecbench", "benchmark", "-", "-o", str(folder / "out")]
    environment = dict(os.environ, PYTHONPATH=str(ROOT))
    if piped:
        return subprocess.run(
            command, input=text.encode(), cwd=cwd, env=environment, capture_output=True
        )
    with open(config, "rb") as handle:
        return subprocess.run(command, stdin=handle, cwd=cwd, env=environment, capture_output=True)


@pytest.mark.parametrize("piped", [False, True])
def test_a_benchmark_from_standard_input_is_read_as_a_suite_from_it_is(tmp_path, piped):
    # it was refused: "-: a benchmark configuration is .toml, .yaml or .yml"
    (tmp_path / "conf").mkdir()
    _inputs(tmp_path / "conf" if not piped else tmp_path)
    text = 'qrels = "hpo-rtask.qrels"\n[modes.a]\nrun = "lexical.run"\n'
    text += '[modes.b]\nrun = "vector.run"\n'
    # relative paths: from the current folder for a pipe, from the file's when redirected
    done = _benchmark_of_standard_input(tmp_path / "conf", text, tmp_path, piped)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(b"# Benchmark: stdin\n")
    assert (tmp_path / "conf" / "out" / "BenchmarkReport.json").exists()


def test_a_benchmark_from_standard_input_naming_it_again_is_refused(tmp_path):
    _inputs(tmp_path)
    text = f'qrels = "/dev/stdin"\n[modes.a]\nrun = "{tmp_path / "lexical.run"}"\n'
    done = _benchmark_of_standard_input(tmp_path, text, tmp_path, piped=True)
    # the setting naming it again, at its line, as other file refusals name theirs
    once = "standard input ('-', /dev/stdin) can be read once: give it once\n"
    said = f"trecbench: -:1: qrels: {once}"
    assert (done.returncode, done.stderr.decode(), done.stdout) == (1, said, b"")
    text = f'qrels = "{tmp_path / "hpo-rtask.qrels"}"\n[modes.a]\nrun = "/dev/stdin"\n'
    done = _benchmark_of_standard_input(tmp_path, text, tmp_path, piped=True)
    said = f"trecbench: -:3: modes.a.run: {once}"
    assert (done.returncode, done.stderr.decode(), done.stdout) == (1, said, b"")


@pytest.mark.parametrize(
    ("name", "value", "said"),
    [
        # YAML's .nan was echoed as Python's "nan", though values are said as written
        ("n.yaml", ".nan", "n.yaml:5: completeness.max_unjudged: .nan is not a finite number"),
        ("n.yaml", ".NaN", "n.yaml:5: completeness.max_unjudged: .NaN is not a finite number"),
        (
            "n.yaml",
            "-.inf",
            "n.yaml:5: completeness.max_unjudged: -.inf is less than the minimum of 0",
        ),
        ("n.toml", "+nan", "n.toml:5: completeness.max_unjudged: +nan is not a finite number"),
        ("n.toml", "nan", "n.toml:5: completeness.max_unjudged: nan is not a finite number"),
    ],
)
def test_a_nan_is_a_setting_refused_as_the_file_writes_it(
    tmp_path, capsys, monkeypatch, name, value, said
):
    # the docs listed it among what the parser refuses, exit 2: it is a setting, exit 1
    monkeypatch.chdir(tmp_path)
    if name.endswith(".yaml"):
        text = f"qrels: q\nmodes:\n  a: {{run: a.run}}\ncompleteness:\n  max_unjudged: {value}\n"
    else:
        text = f"qrels = 'q'\n[modes.a]\nrun = 'a.run'\n[completeness]\nmax_unjudged = {value}\n"
    Path(name).write_text(text)
    assert _refused(capsys, ["benchmark", name]) == f"trecbench: {said}\n"


SIDECAR = ROOT / "qrels" / "hpo-demo.sidecar.json"


@pytest.mark.parametrize(
    ("collection", "said"),
    [
        # each was named by its path alone: "nope.qrels: no such file, nor an ir_datasets
        # dataset", "a.run: cannot read: No such file or directory", the strata file's
        (
            'qrels = "nope.qrels"\nruns = "{system}.run"\n',
            "s.toml:3: collections.x.qrels: cannot read 'nope.qrels': ",
        ),
        (
            'qrels = "hpo-rtask.qrels"\nruns = "{system}.run"\n',
            "s.toml:4: collections.x.runs: cannot read 'a.run': No such file or directory\n",
        ),
        (
            'qrels = "hpo-rtask.qrels"\nruns = {a = "lexical.run", b = "sub"}\n',
            "s.toml:4: collections.x.runs.b: cannot read 'sub': Is a directory\n",
        ),
        (
            'qrels = "hpo-rtask.qrels"\nruns = {a = "lexical.run", b = "vector.run"}\n'
            'strata = "nope.json"\nwhere = { language = "fr" }\n',
            "s.toml:5: collections.x.strata: cannot read 'nope.json': No such file or directory\n",
        ),
        (
            'qrels = "hpo-rtask.qrels"\nruns = {a = "lexical.run", b = "vector.run"}\n'
            'strata = "sidecar.json"\nwhere = { language = "fr" }\n',
            "s.toml:6: collections.x.where: the qrels hpo-rtask.qrels judge none of the "
            "topics kept by language = 'fr': nothing to average\n",
        ),
        (
            'qrels = "hpo-rtask.qrels"\nruns = {a = "lexical.run", b = "vector.run"}\n'
            'strata = "sidecar.json"\nwhere = { lang = "en" }\n',
            "s.toml:6: collections.x.where.lang: no strata field 'lang' in sidecar.json\n",
        ),
    ],
)
def test_a_suite_s_file_or_stratum_is_refused_at_the_setting_naming_it(
    tmp_path, capsys, monkeypatch, collection, said
):
    _inputs(tmp_path)
    os.symlink(SIDECAR, tmp_path / "sidecar.json")
    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path)
    Path("s.toml").write_text(f'systems = ["a", "b"]\n[collections.x]\n{collection}')
    err = _refused(capsys, ["leaderboard", "s.toml"], 2)
    assert err.startswith(f"trecbench: {said}") and err.count("\n") == 1


@pytest.mark.parametrize("value", [".nan", ".NaN", "-.Inf", "1.0e+400"])
def test_a_non_finite_meta_value_is_said_as_the_yaml_writes_it(
    tmp_path, capsys, monkeypatch, value
):
    # "read as the number nan" (inf for 1e400), where every other message quotes as written
    monkeypatch.chdir(tmp_path)
    Path("m.yaml").write_text(f"qrels: q\nmeta: {{x: {value}}}\nmodes:\n  a: {{run: a.run}}\n")
    said = f"trecbench: m.yaml:2: meta.x: read as the number {value}, not as text: quote it\n"
    assert _refused(capsys, ["benchmark", "m.yaml"]) == said


@pytest.mark.parametrize("value", ["+nan", "+inf", "-nan"])
def test_a_non_finite_where_value_is_said_as_the_toml_writes_it(
    tmp_path, capsys, monkeypatch, value
):
    # Python's spelling: "read as the number nan" for +nan, -nan, "inf" for +inf
    monkeypatch.chdir(tmp_path)
    text = 'systems = ["a"]\n[collections.x]\nqrels = "q"\nruns = {a = "a.run"}\n'
    Path("s.toml").write_text(f"{text}strata = 's.json'\nwhere = {{g = {value}}}\n")
    said = f"read as the number {value}, not as text: quote it\n"
    assert (
        _refused(capsys, ["leaderboard", "s.toml"])
        == f"trecbench: s.toml:6: collections.x.where.g: {said}"
    )
