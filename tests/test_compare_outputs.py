"""compare's outputs named after the strata (a plot per stratum) refused before the work
and before anything is printed, as docs/cli-conventions.md promises for an output "named
after what the inputs hold, such as a plot per stratum, when it is known"."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from conftest import ROOT

from trecbench.cli import run
from trecbench.errors import ExitCode, OutputError, UsageError

QRELS, SIDECAR = ROOT / "qrels" / "hpo-demo.qrels", ROOT / "qrels" / "hpo-demo.sidecar.json"
RUNS = [ROOT / "runs" / "tfidf-char.run", ROOT / "runs" / "tfidf-word.run"]
COMPARE = ["compare", "-m", "P.5", QRELS, *RUNS, "--plots", "-o", "out"]
LONG = "x" * 300  # a stratum's value: its plot's name is longer than a file system takes


def _sidecar(tmp_path, values: dict[int, str | None]) -> str:
    """The demo's sidecar with the language of some of its topics changed (None: left out)."""
    document = json.loads(SIDECAR.read_text())
    topics = list(document["strata"]["queries"].values())
    for index, value in values.items():
        if value is None:
            del topics[index]["language"]
        else:
            topics[index]["language"] = value
    path = tmp_path / "s.sidecar.json"
    path.write_text(json.dumps(document))
    return str(path)


@pytest.mark.parametrize(
    ("made", "more", "code", "message"),
    [
        # the tables were printed (2.4 kB), then "...: is a directory"
        ("out/means_language-de.png", [], ExitCode.INPUT,
         "out/means_language-de.png: is a directory"),
        (None, ["--manifest", "out/differences_language-en.svg"], ExitCode.USAGE,
         "out/differences_language-en.svg: written twice by one command, as --manifest and"
         " as compare's plot"),
        ("out/means_language_macro.svg", [], ExitCode.INPUT,
         "out/means_language_macro.svg: is a directory"),
        ("long", [], ExitCode.INPUT,  # in a folder still to be made: said when made
         f"out/means_language-{LONG}.png: cannot write here (File name too long)"),
    ],
    ids=["a folder", "the manifest", "a macro section's", "a name too long"],
)  # fmt: skip
def test_a_plot_a_sidecars_stratum_names_is_refused_before_the_work(
    tmp_path, monkeypatch, capsys, made, more, code, message
):
    monkeypatch.chdir(tmp_path)
    sidecar = _sidecar(tmp_path, {0: LONG} if made == "long" else {})
    if made not in (None, "long"):
        os.makedirs(made)
    # a million resamples: refused before them, as the names are known once the sidecar is read
    args = [*COMPARE, "--strata", sidecar, "--group-by", "language", "--samples", 10**6, *more]
    assert run([str(arg) for arg in args]) == code
    out, err = capsys.readouterr()
    assert (out, err) == ("", f"trecbench: {message}\n")
    folders = ["out"] if made not in (None, "long") else []
    assert sorted(os.listdir(tmp_path)) == [*folders, "s.sidecar.json"]


@pytest.mark.parametrize(
    ("made", "more", "code", "message"),
    [
        ("out/precision_recall.png", [], ExitCode.INPUT,
         "out/precision_recall.png: is a directory"),
        (None, ["--manifest", "out/precision_recall.svg"], ExitCode.USAGE,
         "out/precision_recall.svg: written twice by one command, as --manifest and as"
         " compare's plot"),
    ],
    ids=["a folder", "the manifest"],
)  # fmt: skip
def test_the_precision_recall_plot_is_refused_before_the_work(
    tmp_path, monkeypatch, capsys, made, more, code, message
):
    # the command line keeps every run's curve as it reads them: the plot is always drawn,
    # yet it was checked once the runs were scored (a folder of its name, a manifest)
    monkeypatch.chdir(tmp_path)

    def scored(*args, **kwargs):
        raise AssertionError("the runs were scored before the plot was refused")

    monkeypatch.setattr("trecbench.comparison.compare", scored)
    if made is not None:
        os.makedirs(made)
    assert run([str(arg) for arg in [*COMPARE, *more]]) == code
    assert capsys.readouterr() == ("", f"trecbench: {message}\n")


def test_the_library_refuses_them_before_the_comparison(tmp_path):
    from trecbench.comparison import check_outputs

    (tmp_path / "means_language-en.svg").mkdir()
    with pytest.raises(OutputError, match="means_language-en.svg: is a directory"):
        check_outputs(tmp_path, plots=True, runs=2, strata=SIDECAR, group_by="language")
    check_outputs(tmp_path, plots=False, runs=2, strata=SIDECAR, group_by="language")


@pytest.mark.parametrize(
    ("made", "grouping", "more"),
    [
        # the topics without a language: their group (none) is known once the qrels are read
        ("out/differences_language-_none_.png", ["--group-by", "language"], {3: None}),
        ("out/means_qid-prefix-_none_.svg", ["--group-by", "qid-prefix"], None),
        ("out/precision_recall.png", [], None),  # drawn when the runs' curves are known
    ],
    ids=["(none)", "qid-prefix", "precision-recall"],
)
def test_a_plot_named_once_compared_is_refused_before_printing(
    tmp_path, monkeypatch, capsys, made, grouping, more
):
    monkeypatch.chdir(tmp_path)
    os.makedirs(made)
    strata = ["--strata", _sidecar(tmp_path, more)] if more else []
    assert run([str(arg) for arg in [*COMPARE, *strata, *grouping]]) == ExitCode.INPUT
    out, err = capsys.readouterr()
    # (qid-prefix: the demo's ids have none, one stratum, which is warned of first)
    said = [line for line in err.splitlines(True) if not line.startswith("trecbench: warning:")]
    assert (out, said) == ("", [f"trecbench: {made}: is a directory\n"])
    assert os.listdir(tmp_path / "out") == [os.path.basename(made)]


def test_a_sidecar_read_from_a_pipe_is_read_once(tmp_path):
    # the outputs' check reads the strata before compare does: a pipe gives them once
    command = (
        f"{sys.executable} -m trecbench compare -m P.5 {QRELS} {RUNS[0]} {RUNS[1]} --plots "
        f"-o {tmp_path}/out --strata <(cat {SIDECAR}) --group-by language --samples 100"
    )
    done = subprocess.run(
        ["bash", "-c", command], capture_output=True, timeout=120, check=False, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "out" / "means_language-de.png").is_file()


def test_a_regular_sidecar_is_read_once_by_the_output_checks_and_the_analysis(
    tmp_path, monkeypatch
):
    # the plot names were checked from one read of the file and the groups made from a
    # second: a sidecar changed between them gave the call two sets of strata
    from trecbench import strata

    reads = []
    read = strata._read_sidecar
    monkeypatch.setattr(strata, "_read_sidecar", lambda path: reads.append(path) or read(path))
    monkeypatch.chdir(tmp_path)
    argv = [*COMPARE, "--strata", SIDECAR, "--group-by", "language", "--quiet"]
    assert run([str(part) for part in argv]) == 0
    assert reads == [str(SIDECAR)]
    assert (tmp_path / "out" / "means_language-de.png").exists()


def test_another_groupings_plots_are_refused_before_the_work(tmp_path, monkeypatch, capsys):
    # make demo wrote out/compare --group-by language --plots; compare --help's example
    # then wrote out/compare --plots without a grouping: it printed the whole table (7 s
    # of resampling), then refused the per-language plots it would leave there, exit 2
    import trecbench.comparison

    monkeypatch.chdir(tmp_path)
    os.makedirs("out")
    for name in ("means_language-de.png", "differences_language-de.svg", "means.png"):
        (tmp_path / "out" / name).write_bytes(b"an earlier call's plot")
    monkeypatch.setattr(trecbench.comparison, "compare", lambda *a, **k: pytest.fail("compared"))
    assert run([str(arg) for arg in COMPARE]) == ExitCode.INPUT
    out, err = capsys.readouterr()
    assert out == ""
    assert err == (
        "trecbench: out: differences_language-de.svg, means_language-de.png would stay beside"
        " this comparison's files, not written by this call (an earlier one's, describing"
        " other runs): remove them or write to another folder\n"
    )


def test_a_plot_of_a_stratum_not_compared_is_refused_before_printing(tmp_path, monkeypatch, capsys):
    # a language the sidecar no longer gives: its plot may be this call's until the
    # strata are compared, then it is an earlier call's, refused before the table is out
    monkeypatch.chdir(tmp_path)
    os.makedirs("out")
    (tmp_path / "out" / "means_language-fr.png").write_bytes(b"an earlier call's plot")
    args = [*COMPARE, "--strata", SIDECAR, "--group-by", "language"]
    assert run([str(arg) for arg in args]) == ExitCode.INPUT
    out, err = capsys.readouterr()
    assert out == ""
    assert err.endswith(
        "trecbench: out: means_language-fr.png would stay beside this comparison's files,"
        " not written by this call (an earlier one's, describing other runs): remove them"
        " or write to another folder\n"
    )
    assert os.listdir(tmp_path / "out") == ["means_language-fr.png"]


def _benchmark_folder(tmp_path):
    """A benchmark's folder (a fused mode: reports/ and runs/) of the R-task demo's runs,
    and the demo's qrels and the two runs compare is then given."""
    demo = ROOT / "data" / "hpo-rtask"
    config = tmp_path / "two.toml"
    config.write_text(
        f'qrels = "{demo / "hpo-rtask.qrels"}"\nmeasures = ["P@5"]\n'
        f'[modes.lexical]\nrun = "{demo / "lexical.run"}"\n'
        f'[modes.vector]\nrun = "{demo / "vector.run"}"\n'
        '[modes.hybrid]\nfuse = ["lexical", "vector"]\n'
    )
    out = tmp_path / "bench"
    assert run(["benchmark", str(config), "-o", str(out), "--quiet"]) == 0
    return out, [str(demo / name) for name in ("hpo-rtask.qrels", "lexical.run", "vector.run")]


def test_an_earlier_manifest_of_another_name_in_the_folder_is_a_leftover(tmp_path, capsys):
    """compare -o d --manifest d/m1.json, then compare -o d: m1.json stayed beside the new
    set, its checksums no longer the folder's files', where a manifest named
    ExperimentManifest.json is refused; a manifest is told by its first bytes, whatever
    its name. Writing it again is this call's own file; another JSON file is the user's."""
    out = tmp_path / "d"
    args = ["compare", "-m", "P@5", "-o", str(out), "--quiet", str(QRELS), *map(str, RUNS)]
    assert run([*args, "--manifest", str(out / "m1.json")]) == 0
    (out / "notes.json").write_text('{"type": "notes"}')
    assert run([*args, "--manifest", str(out / "m1.json")]) == 0  # its own, written again
    capsys.readouterr()
    for more in ([], ["--manifest", str(out / "m2.json")]):
        assert run([*args, *more]) == ExitCode.INPUT
        err = capsys.readouterr().err
        assert err.startswith(f"trecbench: {out}: m1.json would stay beside this comparison")


LEFTOVERS = (
    "reports/hybrid.json, reports/lexical.json, reports/vector.json, runs/hybrid.run"
    " would stay beside this comparison's files"
)


@pytest.mark.parametrize("gone", ["nothing", "the manifest", "the report"])
def test_compare_into_a_benchmarks_folder_names_its_mode_files(tmp_path, capsys, gone):
    # compare -o into a benchmark's folder left its mode reports and fused run beside the
    # new comparison when compare wrote its own manifest under the benchmark's name (or
    # the manifest was gone): only the manifest marked such a folder. Either mark now
    # does, and the refusal names every leftover, before the work (nothing printed)
    out, inputs = _benchmark_folder(tmp_path)
    if gone != "nothing":
        (
            out / ("ExperimentManifest.json" if gone == "the manifest" else "BenchmarkReport.json")
        ).unlink()
    before = {path: path.read_bytes() for path in out.rglob("*") if path.is_file()}
    manifest = ["--manifest", str(out / "ExperimentManifest.json")]
    capsys.readouterr()
    assert run(["compare", "-m", "P@5", "-o", str(out), *manifest, *inputs]) == ExitCode.INPUT
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (
        f"trecbench: {out}: {LEFTOVERS}, not written by this call (an earlier one's, "
        "describing other runs): remove them or write to another folder\n"
    )
    assert {path: path.read_bytes() for path in out.rglob("*") if path.is_file()} == before


def test_a_benchmarks_manifest_left_is_named_with_its_mode_files(tmp_path, capsys):
    # the refusal named the manifest alone; once it was removed, as told, the call went
    # through and left the mode files: every leftover is named at once, the count of
    # those not shown said
    out, inputs = _benchmark_folder(tmp_path)
    capsys.readouterr()
    assert run(["compare", "-m", "P@5", "-o", str(out), *inputs]) == ExitCode.INPUT
    assert capsys.readouterr().err.startswith(
        f"trecbench: {out}: ExperimentManifest.json, reports/hybrid.json, "
        "reports/lexical.json, reports/vector.json, runs/hybrid.run would stay beside "
    )
    (out / "runs" / "other.run").write_text("q Q0 d 1 1 t\n")
    assert run(["compare", "-m", "P@5", "-o", str(out), *inputs]) == ExitCode.INPUT
    assert "runs/hybrid.run and 1 more would stay beside" in capsys.readouterr().err


@pytest.mark.parametrize("outdir", [False, True])
def test_a_plot_order_without_plots_is_refused_before_the_work(tmp_path, capsys, outdir):
    # taken and dropped: no figure to order, and not a word (exit 0)
    given = ["-o", str(tmp_path / "out")] if outdir else []
    args = ["compare", str(QRELS), *map(str, RUNS), "-m", "P@5", *given]
    assert run([*args, "--plot-order", "baseline"]) == 1
    out, err = capsys.readouterr()
    message = "trecbench: --plot-order orders the topics of the --plots figures: give --plots\n"
    assert (out, err) == ("", message)
    assert not (tmp_path / "out").exists()


def test_a_comparison_is_not_written_from_another_working_folder(tmp_path, monkeypatch):
    # read in a/ by relative paths, then os.chdir("../b"): "../a/tfidf-char.run" was no
    # input to the check (the inputs were "tfidf-char.run", now b's) and the page replaced
    # the run; a relative path names another file there, so the writing is refused
    import shutil

    import trecbench

    read_in, elsewhere = tmp_path / "a", tmp_path / "b"
    elsewhere.mkdir()
    shutil.copytree(QRELS.parent, read_in)
    for path in RUNS:
        shutil.copy(path, read_in)
    monkeypatch.chdir(read_in)
    names = [run.name for run in RUNS]
    comparison = trecbench.compare(QRELS.name, names, ["P@5"], samples=100)
    before = (read_in / names[0]).read_bytes()
    monkeypatch.chdir(elsewhere)
    message = f"the inputs were read in {read_in} \\('{QRELS.name}' among them\\)"
    with pytest.raises(UsageError, match=message):
        comparison.to_html(path=f"../a/{names[0]}")
    with pytest.raises(UsageError, match=message):
        comparison.write("out")
    # the runs read again for the curves (plot_files too) were looked for in b: b's files
    # of those names read (or refused as changed), or no curves at all: refused as well
    shutil.copy(RUNS[1], elsewhere / names[0])
    with pytest.raises(UsageError, match=message):
        comparison.precision_recall()
    assert (read_in / names[0]).read_bytes() == before and not (elsewhere / "out").exists()
    # its drill-downs kept as scored: a page not written reads no file, and is made; one
    # deeper than kept reads the runs again, and is refused
    monkeypatch.chdir(read_in)
    kept = trecbench.compare(QRELS.name, names, ["P@5"], samples=100, drill_depth=5)
    monkeypatch.chdir(elsewhere)
    assert "<html" in kept.to_html(depth=5)
    with pytest.raises(UsageError, match=message):
        kept.to_html(depth=6)
    monkeypatch.chdir(read_in)  # back where they were read: written
    assert comparison.write("out") and (read_in / "out" / "report.html").exists()


def test_plots_of_no_flag_is_refused_and_nothing_written(tmp_path):
    # write(folder, plots="no") was truthy: the PNG and SVG plots were written
    import trecbench
    from trecbench.errors import UsageError

    rows = [("a", "1", 0.2), ("a", "2", 0.4), ("b", "1", 0.4), ("b", "2", 0.3)]
    comparison = trecbench.compare_scores(
        [{"run": r, "qid": q, "measure": "P@5", "value": v} for r, q, v in rows], samples=40
    )
    with pytest.raises(UsageError, match=r"^plots must be True or False, not 'no'$"):
        comparison.write(tmp_path / "out", plots="no")
    assert not (tmp_path / "out").exists()
