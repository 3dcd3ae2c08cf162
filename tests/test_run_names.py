"""One run name everywhere (issue 27 item 4): ``score`` and ``evaluate`` name a run by
``--names``/``names`` when given, else by its file's stem made distinct by its parent
folders, else ``run1..N``; trec_eval text keeps printing the run's tag; reports keep each
run's path and sha256 beside its name."""

from __future__ import annotations

import hashlib
import json
import os
import sys
from urllib.parse import unquote_to_bytes

import pytest
from conftest import ROOT

import trecbench
from trecbench.cli import run as cli_run
from trecbench.errors import UsageError

QRELS = ROOT / "qrels" / "hpo-demo.qrels"
RUN = ROOT / "runs" / "tfidf-char.run"


@pytest.fixture
def two_alike(tmp_path):
    """Two different runs both called ``bm25.run``, in folders ``a`` and ``b``."""
    (tmp_path / "q").write_text("1 0 d1 1\n2 0 d2 1\n")
    for folder, top in (("a", "d1"), ("b", "d9")):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "bm25.run").write_text(
            f"1 Q0 {top} 1 2.0 tag-{folder}\n2 Q0 d2 1 2.0 tag-{folder}\n"
        )
    return tmp_path


def test_evaluate_names_runs_by_their_stems(two_alike):
    folder = two_alike
    runs = [folder / "a/bm25.run", folder / "b/bm25.run"]
    evaluation = trecbench.evaluate(folder / "q", runs, ["P.1"])
    assert [run.name for run in evaluation.runs] == ["a/bm25", "b/bm25"]
    assert list(evaluation.to_frame().index) == ["a/bm25", "b/bm25"]
    assert set(evaluation.to_dict()) == {"a/bm25", "b/bm25"}
    assert set(evaluation.per_query["run"]) == {"a/bm25", "b/bm25"}
    assert [run.runid for run in evaluation.runs] == ["tag-a", "tag-b"]  # tags stay as written
    one = trecbench.evaluate(folder / "q", str(folder / "a/bm25.run"), ["P.1"])
    assert list(one.to_frame().index) == ["bm25"]


@pytest.mark.parametrize(
    ("file", "stem"),
    [
        ("v5.run.gz", "v5"),
        ("results.test.gz", "results.test"),
        ("r3.RUN.gz", "r3"),
        ("R4.RUN", "R4"),
        ("R1.RUN.GZ", "R1"),
        ("R5.TXT.ZST", "R5"),
        ("x.Parquet", "x"),
        (".run", ".run"),
        ("\u0130.run.gz", "\u0130"),  # İ: two characters in lower case, 'İ.run.' was named
    ],
)
def test_a_run_s_name_is_its_stem_whatever_the_suffixes_case(file, stem):
    """R1.RUN.GZ was named R1.RUN.GZ (r3.RUN.gz r3.RUN), where the readers take its suffixes
    in any case: a gzipped TREC run."""
    from trecbench.naming import file_stem

    assert file_stem(f"runs/{file}") == stem


def test_evaluate_names_in_memory_runs_and_takes_names(two_alike):
    folder = two_alike
    table = {"1": {"d1": 1.0}, "2": {"d2": 1.0}}
    mixed = trecbench.evaluate(folder / "q", [table, folder / "a/bm25.run", table], ["P.1"])
    assert [run.name for run in mixed.runs] == ["run1", "bm25", "run3"]
    named = trecbench.evaluate(folder / "q", [table, table], ["P.1"], names=["x", "y"])
    assert list(named.to_frame().index) == ["x", "y"]
    older = trecbench.evaluate(folder / "q", [table, table], ["P.1"], run_names=["x", "y"])
    assert list(older.to_frame().index) == ["x", "y"]
    with pytest.raises(UsageError, match="not both"):
        trecbench.evaluate(folder / "q", table, "P.1", names=["x"], run_names=["x"])
    keyed = trecbench.evaluate(folder / "q", {"x": table, "y": table}, "P.1")
    assert set(keyed.to_dict()) == {"x", "y"}
    with pytest.raises(UsageError, match="two runs are named 'x'"):
        trecbench.evaluate(folder / "q", [table, table], ["P.1"], run_names=["x", "x"])


def _score(capsys, *args):
    code = cli_run(["score", *map(str, args)])
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


@pytest.mark.parametrize("output_format", ["table", "markdown", "csv", "json"])
def test_score_names_runs_by_their_stems(two_alike, capsys, output_format, monkeypatch):
    monkeypatch.chdir(two_alike)
    out = _score(capsys, "-m", "P.1", "--format", output_format, "q", "a/bm25.run", "b/bm25.run")
    assert "a/bm25.run" not in out and "a/bm25" in out and "b/bm25" in out
    if output_format == "json":
        runs = json.loads(out)["runs"]
        assert [(r["run"], r["runid"]) for r in runs] == [("a/bm25", "tag-a"), ("b/bm25", "tag-b")]


def test_score_trec_text_prints_the_runs_tag(capsys):
    out = _score(capsys, "-m", "runid", "-m", "P.5", QRELS, RUN)
    assert out.startswith("runid                 \tall\t")
    tag = RUN.read_text().splitlines()[-1].split()[5]
    assert out.splitlines()[0].endswith("\t" + tag)


def test_score_names_option(two_alike, capsys, monkeypatch):
    monkeypatch.chdir(two_alike)
    runs = ["a/bm25.run", "b/bm25.run"]
    out = _score(capsys, "-m", "P.1", "--format", "csv", "--names", "first=a/bm25.run", "q", *runs)
    assert out.splitlines()[1:] == ["first,all,P.1,P@1,1.0", "b/bm25,all,P.1,P@1,0.5"]
    refused = {"first": "expected NAME=RUN", "x=c.run": "c.run is not one of the runs"}
    for bad, message in refused.items():
        assert cli_run(["score", "-m", "P.1", "--names", bad, "q", "a/bm25.run"]) == 1
        assert message in capsys.readouterr().err
    assert cli_run(["score", "--names", "bm25=a/bm25.run", "q", "a/bm25.run", "c/bm25.run"]) != 0
    assert cli_run(["score", "--names", "b/bm25=a/bm25.run", "q", "a/bm25.run", "b/bm25.run"]) == 1
    assert "two runs are named 'b/bm25'" in capsys.readouterr().err


def test_the_report_keeps_each_runs_path_and_checksum_by_its_name(two_alike, capsys, monkeypatch):
    monkeypatch.chdir(two_alike)
    _score(capsys, "-m", "P.1", "--report", "r.json", "q", "a/bm25.run", "b/bm25.run")
    document = json.loads((two_alike / "r.json").read_text())
    assert [result["run"] for result in document["results"]] == ["a/bm25", "b/bm25"]
    runs = [record for record in document["inputs"] if record["kind"] == "run"]
    named = [(r["name"], r["path"]) for r in runs]
    assert named == [("a/bm25", "a/bm25.run"), ("b/bm25", "b/bm25.run")]
    for record in runs:
        content = (two_alike / record["path"]).read_bytes()
        assert record["sha256"] == hashlib.sha256(content).hexdigest()


def test_a_name_or_a_run_may_hold_equals_signs(tmp_path, capsys):
    from trecbench.naming import named_runs

    assert named_runs(["a.run"], ["<s>x=1</s>=a.run"]) == ["<s>x=1</s>"]
    assert named_runs(["x=y.run", "a.run"], ["n=x=y.run"]) == ["n", "a"]
    run_file = tmp_path / "x=y.run"
    run_file.write_text("q1 Q0 d1 1 1.0 t\n")
    qrels = tmp_path / "q"
    qrels.write_text("q1 0 d1 1\n")
    # compare: a run named only by --names is a file
    names = ["compare", str(qrels), "--names", f"k=v={run_file}", "--format", "json"]
    assert cli_run([*names, "-m", "P@1", "--samples", "100"]) == 0
    assert [r["name"] for r in json.loads(capsys.readouterr().out)["runs"]] == ["k=v"]


@pytest.mark.parametrize("names", [["x", "", "y"], ["x", "  ", "y"]])
def test_a_blank_run_name_is_refused(names):
    from trecbench.naming import run_names

    with pytest.raises(UsageError, match="must not be blank"):
        run_names(["a.run", "b.run", "c.run"], names)


def test_similarity_refuses_a_blank_name_in_one_line(capsys):
    runs = [str(ROOT / "runs" / name) for name in ("tfidf-char.run", "tfidf-word.run")]
    assert cli_run(["similarity", *runs, "--names", f"  ={runs[0]}"]) == 1
    assert "must not be blank" in capsys.readouterr().err


@pytest.mark.parametrize("command", [["similarity"], ["pool", "--depth", "2"]])
def test_names_means_name_equals_run_in_every_command(tmp_path, capsys, command):
    """docs/cli-conventions.md: ``--names NAME=RUN`` in score, compare, similarity and
    pool (similarity and pool took a comma-separated list: the documented spelling became
    a run's name, ``a=runs/tfidf-char.run``)."""
    runs = [str(ROOT / "runs" / name) for name in ("tfidf-char.run", "tfidf-word.run")]
    output = ["-o", str(tmp_path / "pool.txt")] if command[0] == "pool" else []
    named = [*command, *runs, *output, "--format", "json", "--names", f"char={runs[0]}"]
    assert cli_run(named) == 0
    said = json.loads(capsys.readouterr().out)
    if "pairs" in said:  # similarity: the one pair's two runs
        names = [said["pairs"][0]["a"], said["pairs"][0]["b"]]
    else:
        names = [contribution["run"] for contribution in said["runs"]]
    assert names == ["char", "tfidf-word"]
    assert cli_run([*command, *runs, *output, "--names", "a,b"]) == 1
    assert "--names 'a,b': expected NAME=RUN" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("path", "stem"),
    [
        ("runs/run.trec.zstd", "run"),
        ("runs/run.trec.zst", "run"),
        ("runs/bm25.run.gz", "bm25"),
        ("runs/bm25.run.bz2", "bm25"),
        ("runs/bm25.run.xz", "bm25"),
        ("runs/bm25.run.lz4", "bm25"),
        ("runs/bm25.txt", "bm25"),
        ("runs/ub.jsonl", "ub"),  # it was named ub.jsonl, as Parquet's were not
        ("runs/ub2.jsonl.gz", "ub2"),
    ],
)
def test_a_run_is_named_without_its_compression_suffix(path, stem):
    from trecbench.naming import file_stem

    assert file_stem(path) == stem


def test_every_compression_read_by_content_has_its_suffixes_dropped_from_names():
    """One registry (trecbench.compressions): what streams tell by the magic bytes is what
    a run's name drops, so a compression added there is dropped from names too."""
    from trecbench.compressions import COMPRESSIONS, compression_of
    from trecbench.convert.identifiers import input_stem
    from trecbench.naming import file_stem, named_as
    from trecbench.validation.cross_checks import run_name

    for compression in COMPRESSIONS:
        header = b"9\x31\x41\x59\x26\x53\x59" if compression.header else b""  # bz2's
        assert compression_of(compression.magic + header + b"rest") == compression.name
        for suffix in compression.suffixes:
            assert file_stem(f"d/bm25.run{suffix}") == "bm25"
            assert named_as(f"d/run.jsonl{suffix.upper()}", ".jsonl")
            # validate's --tag-is-filename and convert's default name drop them too
            assert run_name(f"d/bm25.res{suffix}") == "bm25"
            assert input_stem(f"d/results.json{suffix}") == "results"


def test_a_zstd_run_scored_is_named_by_its_stem(tmp_path):
    """A zstd-compressed run named ``*.trec.zstd`` is read by its content and named
    ``run`` (it used to keep ``.trec.zstd``)."""
    import pyarrow as pa

    path = tmp_path / "run.trec.zstd"
    with pa.CompressedOutputStream(str(path), "zstd") as out:
        out.write(RUN.read_bytes())
    evaluation = trecbench.evaluate(QRELS, [path], ["P.5"])
    plain = trecbench.evaluate(QRELS, [RUN], ["P.5"])
    assert [run.name for run in evaluation.runs] == ["run"]
    assert evaluation.runs[0].summary == plain.runs[0].summary


def test_a_default_name_is_a_plain_file_name_whatever_the_input_is_called():
    # convert msmarco ..tsv: "--name '.' is not a plain file name", no --name given
    from trecbench.convert.common import Report
    from trecbench.convert.identifiers import check_name, default_name

    for path, expected in (
        ("..tsv", "input"),
        ("d/..gz", "input"),
        ("a.tsv", "a"),
        (".x.tsv", "x"),
    ):
        name = default_name(path, Report())
        assert name == expected and check_name(name) == expected


def test_a_string_of_names_is_refused_in_every_call_that_names_runs(tmp_path):
    """names='xy' named two runs 'x' and 'y' (a str is a sequence of its characters), and
    names='bm25' for one run said "4 name(s) for 1 run(s)"."""
    from trecbench.naming import run_names

    runs = [RUN, RUN]
    message = r"names='xy': give a list of names, one per run, not text"
    calls = [
        lambda: trecbench.evaluate(QRELS, runs, ["P_5"], names="xy"),
        lambda: trecbench.evaluate(QRELS, runs, ["P_5"], run_names="xy"),
        # (two files: pool and similarity refuse one run given twice before naming them)
        lambda: trecbench.pool([RUN, RUN.with_name("tfidf-word.run")], depth=5, names="xy"),
        lambda: trecbench.similarity([RUN, RUN.with_name("tfidf-word.run")], names="xy"),
        lambda: run_names(runs, "xy"),
    ]
    for call in calls:
        with pytest.raises(UsageError, match=message):
            call()
    with pytest.raises(UsageError, match=r"names=b'xy': .* not bytes$"):
        run_names(runs, b"xy")
    with pytest.raises(UsageError, match=r"names='bm25': give a list of names"):
        trecbench.evaluate(QRELS, RUN, ["P_5"], names="bm25")
    named = trecbench.evaluate(QRELS, runs, ["P_5"], names=("x", "y")).to_frame()
    assert list(named.index) == ["x", "y"]  # any other sequence, as before


def test_names_are_any_sequence_and_what_is_none_is_refused_in_one_line():
    """names=np.array([...]) or a pandas Series raised "the truth value ... is ambiguous"
    (``names or run_names``); a set (no order), a mapping or a number named nothing."""
    import numpy as np
    import pandas as pd

    runs = [RUN, RUN]
    for names in (np.array(["x", "y"]), pd.Series(["x", "y"]), iter(["x", "y"])):
        named = trecbench.evaluate(QRELS, runs, ["P_5"], names=names).to_frame()
        assert list(named.index) == ["x", "y"]
    named = trecbench.evaluate(QRELS, runs, ["P_5"], run_names=np.array(["u", "v"]))
    assert list(named.to_frame().index) == ["u", "v"]
    for names, kind in (({"x", "y"}, "a set"), ({"x": 1, "y": 2}, "a dict"), (5, "an int")):
        with pytest.raises(UsageError, match=rf"names=.*: give a list of names, .* not {kind}$"):
            trecbench.evaluate(QRELS, runs, ["P_5"], names=names)


@pytest.mark.parametrize(
    ("name", "kind"),
    [(None, "None"), (1.0, "a float"), (True, "a bool"), (b"x", "bytes"), (("x",), "a tuple")],
)
def test_a_run_name_neither_text_nor_an_integer_is_refused_not_spelt(name, kind):
    """names=[None, "y"] named a run 'None', a dict {1.0: run} '1.0': str() of any value;
    a name is text, or an integer written in decimal, as an id is."""
    import numpy as np

    runs = {"q1": {"d1": 1.0}}
    refused = rf"^run name .*: give run names as text \(or integers\), not {kind}$"
    with pytest.raises(UsageError, match=refused):
        trecbench.evaluate(QRELS, [RUN, runs], ["P_5"], names=[name, "y"])
    with pytest.raises(UsageError, match=refused):
        trecbench.evaluate(QRELS, {name: RUN, "y": runs}, ["P_5"])
    named = trecbench.evaluate(QRELS, {np.int64(7): RUN, np.str_("y"): RUN}, ["P_5"])
    assert [run.name for run in named.runs] == ["7", "y"]


def test_a_process_substitution_is_named_as_given_not_by_its_number(tmp_path):
    """Reviewer 351: ``score qrels <(zcat run.gz)`` named the run ``63`` (``# 63``
    headers, ``warning: 63: ...``); it is named ``/dev/fd/63``, as ``-`` is named ``-``."""
    import subprocess

    from trecbench.naming import run_names

    assert run_names(["/dev/fd/63", "/proc/self/fd/3", "a/63", "-"]) == [
        "/dev/fd/63", "/proc/self/fd/3", "63", "-",
    ]  # fmt: skip
    script = f"exec {sys.executable} -m trecbench score -m P.5 --format table {QRELS} <(cat {RUN})"
    shown = subprocess.run(["bash", "-c", script], capture_output=True, text=True, check=True)
    assert "/dev/fd/" in shown.stdout and "\n63 " not in shown.stdout


def test_a_file_called_dash_given_as_dot_slash_dash_is_named_apart_from_stdin(
    tmp_path, monkeypatch
):
    # '-' (standard input) and './-' (a file called -) both normalised to '-': no folder
    # told them apart, so score/similarity/pool refused them as two runs named '-' even
    # when --names named both (named_runs made the default names first)
    from trecbench.naming import named_runs, run_names

    monkeypatch.chdir(tmp_path)
    assert run_names(["-", "./-"]) == ["-", f"{tmp_path.name}/-"]
    assert named_runs(["-", "./-"], ["stdin=-", "file=./-"]) == ["stdin", "file"]


def test_an_empty_list_of_names_is_refused_as_too_few_not_ignored():
    # names=[] was falsy: evaluate named the runs run1, run2 (or by a dict's keys) as if
    # no names were given, where similarity and pool refuse it
    runs = {"q1": {"d1": 1.0}}
    for given in ([runs, runs], {"a": runs, "b": runs}):
        with pytest.raises(UsageError, match=r"^0 names for 2 runs: give one per run$"):
            trecbench.evaluate(QRELS, given, ["P_5"], names=[])


@pytest.mark.parametrize(
    ("given", "said"),
    [(None, "not None"), ("xy", "not text"), (b"xy", "not bytes"), (5, "not an int")],
)
def test_a_list_refused_says_what_was_given_in_words(given, said):
    """``listed`` named a value by its type's name: "not a NoneType", "not a bytes"."""
    from trecbench.naming import listed

    with pytest.raises(UsageError) as caught:
        listed(given, "names", "names, one per run")
    assert str(caught.value) == f"names={given!r}: give a list of names, one per run, {said}"


@pytest.mark.parametrize("hostile", ["a\nb", "c, d", "e" + os.fsdecode(b"\xff")])
def test_run_names_an_error_lists_are_escaped_as_items(hostile):
    # the runs were joined as they are: a name's line feed split the message, "c, d" read
    # as two runs; each is a list's item (%XX), os.fsdecode(unquote_to_bytes) gives it back
    from trecbench.comparison.analysis import check_baseline
    from trecbench.comparison.scoring import _qrels_per_run

    with pytest.raises(UsageError) as error:
        check_baseline("z", ["r", hostile])
    listed = str(error.value).split("is not one of the runs: ")[1].split(", ")
    assert [os.fsdecode(unquote_to_bytes(name)) for name in listed] == ["r", hostile]
    with pytest.raises(UsageError) as error:
        _qrels_per_run(None, {hostile: "q"}, {"r": None})
    named = str(error.value).removeprefix("qrels given for ").removesuffix(", which is not a run")
    assert str(error.value).isprintable() and os.fsdecode(unquote_to_bytes(named)) == hostile


def test_two_runs_named_alike_in_unicode_are_refused(tmp_path, capsys):
    # two files 'Lexé.run' (é one character, and e with an accent): compare printed two
    # rows 'Lexé' no one could tell apart, exit 0
    from trecbench.cli import run

    nfc, nfd = "Lex\u00e9", "Lexe\u0301"
    (tmp_path / "q").write_text("1 0 d1 1\n")
    for name in (nfc, nfd):
        (tmp_path / f"{name}.run").write_text("1 Q0 d1 1 2 a\n")
    runs = [str(tmp_path / f"{name}.run") for name in (nfc, nfd)]
    assert run(["compare", str(tmp_path / "q"), *runs, "-m", "P@1", "--quiet"]) == 1
    assert capsys.readouterr().err == (  # no folder tells them apart: named by their paths
        f"trecbench: two runs are named {runs[0]!r} and {runs[1]!r}, one name written two "
        "ways in Unicode; name them apart (e.g. with --names)\n"
    )


def test_runs_named_alike_in_unicode_in_two_folders_are_told_apart_by_them():
    # macOS writes é decomposed, Linux composed: two 'Lexé.run' of two folders were
    # refused as one name where two 'bm25.run' take their folders
    from trecbench.naming import run_names

    nfc, nfd = "Lex\u00e9", "Lexe\u0301"
    assert run_names([f"mac/{nfd}.run", f"linux/{nfc}.run"]) == [f"mac/{nfd}", f"linux/{nfc}"]
