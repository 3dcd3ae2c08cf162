"""An input file of the benchmark that cannot be read (missing, a folder) is refused naming
the setting that named it: ``bench.toml:LINE: KEY: cannot read 'PATH': REASON``, as the
configuration's other settings are named (its reader named the path only). Checked as the
file is read, not when the configuration is loaded: a file may appear after it is."""

from __future__ import annotations

from pathlib import Path

import pytest

from trecbench.benchmarking import BenchmarkSettings, Mode, load_benchmark_config, run_benchmark
from trecbench.cli import run
from trecbench.errors import InputError

MISSING = "No such file or directory"

# every setting naming a file the benchmark reads, written on line 1 of the configuration
# (above the rest); the qrels and the runs are on lines 2, 4 and 6 of TOML
SETTINGS = {
    "qrels": 'qrels = "gone.qrels"',
    "topics": 'topics = "gone.topics"',
    "routing": 'routing = "gone.jsonl"',
    "strata.sidecar": 'strata = {sidecar = "gone.json", group_by = "language"}',
    "ontology": 'ontology = "gone.obo"\nmeasures = ["MaxOntSim@10"]',
}


def _inputs(folder: Path) -> None:
    """Two topics judged, two runs (distinct files) answering both."""
    (folder / "q.qrels").write_text("1 0 d1 1\n2 0 d2 1\n")
    (folder / "a.run").write_text("1 Q0 d1 1 2.0 a\n2 Q0 d2 1 2.0 a\n")
    (folder / "b.run").write_text("1 Q0 d2 1 2.0 b\n2 Q0 d1 1 2.0 b\n")


def _toml(folder: Path, first: str = "", run_b: str = "b.run", qrels: str = "q.qrels") -> Path:
    """A configuration: ``first`` on line 1, the qrels on line 2, the runs on 4 and 6."""
    _inputs(folder)
    config = folder / "bench.toml"
    config.write_text(
        f'{first}\nqrels = "{qrels}"\n[modes.a]\nrun = "a.run"\n[modes.b]\nrun = "{run_b}"\n'
        "[statistics]\nsamples = 1000\n"
    )
    return config


def _refused(config: Path, capsys) -> str:
    """The one line the command prints refusing ``config`` (exit 2, nothing written)."""
    code = run(["benchmark", str(config), "-o", str(config.parent / "o"), "--quiet"])
    err = capsys.readouterr().err
    assert code == 2, err  # an input error, as before
    assert err.count("\n") == 1 and err.endswith("\n"), err
    assert not (config.parent / "o").exists()
    return err.strip()


@pytest.mark.parametrize("key", SETTINGS)
def test_cli_names_the_setting_of_a_missing_input(tmp_path, capsys, key):
    first = SETTINGS[key]
    if key == "qrels":
        config = _toml(tmp_path, qrels="gone.qrels")
        line, path = 2, "gone.qrels"
    else:
        config = _toml(tmp_path, first)
        line, path = 1, first.split('"')[1]
    expected = f"trecbench: {config}:{line}: {key}: cannot read '{tmp_path / path}': {MISSING}"
    assert _refused(config, capsys) == expected


def test_cli_names_a_run_s_mode_and_line_in_toml_and_yaml(tmp_path, capsys):
    config = _toml(tmp_path, run_b="gone.run")
    gone = tmp_path / "gone.run"
    assert (
        _refused(config, capsys)
        == f"trecbench: {config}:6: modes.b.run: cannot read '{gone}': {MISSING}"
    )
    yaml = tmp_path / "bench.yaml"
    yaml.write_text(
        "qrels: q.qrels\nmodes:\n  a:\n    run: a.run\n  b:\n    label: B\n    run: gone.run\n"
    )
    assert (
        _refused(yaml, capsys)
        == f"trecbench: {yaml}:7: modes.b.run: cannot read '{gone}': {MISSING}"
    )


def test_a_folder_given_as_a_run_says_why_it_cannot_be_read(tmp_path, capsys):
    config = _toml(tmp_path, run_b="folder.run")
    (tmp_path / "folder.run").mkdir()
    folder = tmp_path / "folder.run"
    expected = f"trecbench: {config}:6: modes.b.run: cannot read '{folder}': Is a directory"
    assert _refused(config, capsys) == expected


def test_the_api_names_the_setting_read_at_run_time(tmp_path):
    # loading does not look for the files (they may be written after it): running does
    config = _toml(tmp_path, run_b="later.run")
    settings = load_benchmark_config(config)
    with pytest.raises(InputError) as refused:
        run_benchmark(settings)
    later = tmp_path / "later.run"
    assert str(refused.value) == f"{config}:6: modes.b.run: cannot read '{later}': {MISSING}"
    assert (refused.value.path, refused.value.line) == (str(config), 6)


def test_settings_built_in_python_name_the_setting_without_a_line(tmp_path):
    _inputs(tmp_path)
    modes = [Mode("a", "A", run=tmp_path / "a.run"), Mode("b", "B", run=tmp_path / "x.run")]
    settings = BenchmarkSettings(
        path=Path("bench.toml"), name="n", qrels=tmp_path / "q.qrels", modes=modes
    )
    with pytest.raises(InputError) as refused:
        run_benchmark(settings)
    missing = tmp_path / "x.run"
    assert str(refused.value) == f"bench.toml: modes.b.run: cannot read '{missing}': {MISSING}"


def test_a_file_of_the_other_kind_is_named_at_its_key_and_line(tmp_path, capsys):
    # validate's R29 and Q11 ask whether arguments are swapped: a configuration has none
    config = _toml(tmp_path, run_b="q.qrels")
    code = run(["benchmark", str(config), "-o", str(tmp_path / "o"), "--quiet"])
    first = capsys.readouterr().err.splitlines()[0]
    assert code == 2 and first == (
        f"trecbench: {config}:6: modes.b.run: {tmp_path / 'q.qrels'} looks like qrels, not a "
        "run (every line has 4 fields, an integer last): the key names a qrels file"
    )
    config = _toml(tmp_path, qrels="a.run")
    code = run(["benchmark", str(config), "-o", str(tmp_path / "o"), "--quiet"])
    first = capsys.readouterr().err.splitlines()[0]
    assert code == 2 and first == (
        f"trecbench: {config}:2: qrels: {tmp_path / 'a.run'} looks like a run, not qrels "
        "(every line has 6 or more fields): the key names a run file"
    )


def test_a_file_named_as_a_folder_is_refused_as_the_system_refuses_it(tmp_path, capsys):
    # `run = "b.run/"` read b.run (a Path drops the slash), which no system call would,
    # and the manifest recorded b.run (reviewer 665); an output folder keeps its slash
    config = _toml(tmp_path, 'output = "o/"', run_b="b.run/")
    expected = f"{config}:6: modes.b.run: cannot read '{tmp_path}/b.run/': Not a directory"
    assert _refused(config, capsys) == f"trecbench: {expected}"
    suite = tmp_path / "suite.toml"
    suite.write_text(
        'systems = ["a", "b"]\n[collections.c]\nqrels = "q.qrels/"\nruns = "{system}.run"\n'
    )
    assert run(["leaderboard", str(suite), "--quiet"]) == 2
    said = f"{suite}:3: collections.c.qrels: cannot read '{tmp_path}/q.qrels/': Not a directory"
    assert capsys.readouterr().err == f"trecbench: {said}\n"
    config = _toml(tmp_path, 'output = "o/"', run_b="b.run/.")  # the dot dropped too
    expected = f"{config}:6: modes.b.run: cannot read '{tmp_path}/b.run/.': Not a directory"
    assert _refused(config, capsys) == f"trecbench: {expected}"
    config = _toml(tmp_path, 'output = "o/"')
    assert run(["benchmark", str(config), "--quiet"]) == 0
    assert (tmp_path / "o" / "BenchmarkReport.json").is_file()
