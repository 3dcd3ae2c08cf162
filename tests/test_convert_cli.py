"""``trecbench convert`` end to end through the command line."""

from __future__ import annotations

import json
import os
import sys

import pytest
from click.testing import CliRunner

from trecbench.cli import _register, cli, run
from trecbench.inputs import read_run

_register()


def run_cli(*args):
    return CliRunner().invoke(cli, ["convert", *map(str, args)], catch_exceptions=False)


def test_code_chunk_cli_scores_like_trec_eval(code_chunk_data, tmp_path):
    (detailed,) = code_chunk_data.glob("detailed_*.json")
    result = run_cli("code-chunk", detailed, "-o", tmp_path)
    assert result.exit_code == 0, result.output
    assert "ast.run: 373 queries, 1865 documents; 62 tied scores in 33 queries" in result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "ast.run",
        "codechunk-ast.qrels",
        "codechunk-fixed.qrels",
        "codechunk.sidecar.json",
        "fixed.run",
    ]
    sidecar = json.loads((tmp_path / "codechunk.sidecar.json").read_text())
    assert sidecar["runs"]["ast"]["qrels"] == "codechunk-ast.qrels"
    assert len(sidecar["runs"]["fixed"]["original_scores"]) == 1865
    assert sidecar["strata"]["fields"] == ["repo"]
    assert len(sidecar["strata"]["queries"]) == 373


def test_hpo_cli_on_demo_data(tmp_path):
    from pathlib import Path

    demo = Path(__file__).resolve().parents[1] / "data" / "hpo-demo"
    results = sorted((demo / "results").glob("*/terms.jsonl"))
    if not results:
        pytest.skip("demo data not generated")
    args = [a for r in results for a in ("--results", r)]
    result = run_cli("hpo", demo / "cases.json", *args, "--name", "hpo-demo", "-o", tmp_path)
    assert result.exit_code == 0, result.output
    assert "hpo-demo.qrels: 56 queries" in result.output
    run = read_run(tmp_path / "tfidf-word.run")
    assert run["tag"].unique().tolist() == ["tfidf-word"]
    sidecar = json.loads((tmp_path / "hpo-demo.sidecar.json").read_text())
    assert sidecar["strata"]["fields"] == ["language", "difficulty", "category", "hpo_domain"]
    assert sidecar["provenance"]["ontology"]["checked"]


def run_main(monkeypatch, capsys, *args):
    """Exit code and stderr of the command line as the console entry point runs it (which
    turns errors into one line; main() itself ends the process, so it is run() here)."""
    monkeypatch.setattr(sys, "argv", ["trecbench", "convert", *map(str, args)])
    return run(), capsys.readouterr().err


def test_errors_are_one_line_and_inputs_never_overwritten(tmp_path, monkeypatch, capsys):
    bad = tmp_path / "lists.json"
    bad.write_text('{"gold_docs": [[]], "retrieved_chunks": [[], []]}')
    code, err = run_main(monkeypatch, capsys, "lists", bad, "-o", tmp_path)
    assert (code, err) == (
        2,
        f"trecbench: {bad}:1: 1 gold_docs lists but 2 retrieved_chunks lists\n",
    )
    # a dict run called bm25.run converted into its own folder would replace itself
    victim = tmp_path / "bm25.run"
    victim.write_text('{"q": {"d": 1.0}}')
    code, err = run_main(monkeypatch, capsys, "dict", victim, "-o", tmp_path)
    assert (code, err) == (2, f"trecbench: {victim}: refusing to overwrite an input file\n")
    assert victim.read_text() == '{"q": {"d": 1.0}}'
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bm25.run", "lists.json"]


@pytest.mark.parametrize(
    ("converter", "name"),
    [("lists", "in.json"), ("dict", "in.json"), ("beir-qrels", "in.tsv"), ("msmarco", "in.tsv")],
)
def test_utf16_and_empty_inputs_are_refused_in_scores_words(
    tmp_path, monkeypatch, capsys, converter, name
):
    """ "not UTF-8: invalid start byte" and "invalid JSON: Expecting value" before."""
    given = tmp_path / name
    given.write_bytes("query-id\tcorpus-id\tscore\n".encode("utf-16"))
    code, err = run_main(monkeypatch, capsys, converter, given, "-o", tmp_path / "out")
    assert (code, err) == (2, f"trecbench: {given}: the file is UTF-16; save it as UTF-8\n")
    if name.endswith(".json"):
        given.write_bytes(b"")
        code, err = run_main(monkeypatch, capsys, converter, given, "-o", tmp_path / "out")
        assert (code, err) == (2, f"trecbench: {given}: empty file\n")


def test_a_missing_key_is_said_missing_with_the_keys_the_object_has(tmp_path, monkeypatch, capsys):
    """It said "gold_docs: expected an array of arrays, found null", as of a null given."""
    lists = tmp_path / "wk.json"
    lists.write_text('{"gold": [["a"]], "retrieved": [["a"]]}')
    code, err = run_main(monkeypatch, capsys, "lists", lists, "-o", tmp_path / "out")
    assert (code, err) == (
        2,
        f"trecbench: {lists}:1: gold_docs: missing (expected an array of arrays; the object "
        'has "gold", "retrieved")\n',
    )


def test_hpo_cases_and_results_given_the_other_way_round(tmp_path, monkeypatch, capsys):
    """It said "terms.jsonl:2: invalid JSON: Extra data" of results given as the cases, and
    "metadata.ids: expected an array of arrays of ids" of cases given as results."""
    cases = tmp_path / "cases.json"
    cases.write_text(json.dumps({"test_cases": [{"text": "x", "expected_hpo_ids": []}]}))
    terms = tmp_path / "terms.jsonl"
    terms.write_text('{"case_id": "0", "hpo_id": "HP:0000001", "rank": 1}\n' * 2)
    out = tmp_path / "out"
    code, err = run_main(monkeypatch, capsys, "hpo", terms, "--results", cases, "-o", out)
    assert (code, err) == (
        2,
        f"trecbench: {terms}: JSON lines of results, not test cases: give it with --results\n",
    )
    code, err = run_main(monkeypatch, capsys, "hpo", cases, "--results", cases, "-o", out)
    assert (code, err) == (2, f"trecbench: {cases}: test cases, not results: give them as CASES\n")


def test_line_offset_option_is_checked(tmp_path):
    source = tmp_path / "x.json"
    source.write_text('{"results": []}')
    result = CliRunner().invoke(
        cli, ["convert", "memorybench", str(source), "--line-offset", "chonkie", "-o", "o"]
    )
    assert result.exit_code == 1  # a usage error: 1 in every command
    assert "Invalid value for --line-offset: 'chonkie' is not KEY=N" in result.output
    twice = ["--line-offset", "chonkie=-1", "--line-offset", "chonkie=1"]  # the last won
    result = CliRunner().invoke(cli, ["convert", "memorybench", str(source), *twice, "-o", "o"])
    assert result.exit_code == 1 and "--line-offset: chonkie given twice" in result.output
    for number in ("1_0", "\u0663", " 1"):  # Python's int read them: 10, 3 and 1
        given = ["--line-offset", f"chonkie={number}"]
        result = CliRunner().invoke(cli, ["convert", "memorybench", str(source), *given, "-o", "o"])
        assert result.exit_code == 1 and f"{f'chonkie={number}'!r} is not KEY=N" in result.output
    # 101 digits: no "is not KEY=N" (cf41509e said so), and 5,000 no internal error
    for digits in (101, 5000):
        given = ["--line-offset", f"chonkie={'9' * digits}"]
        result = CliRunner().invoke(cli, ["convert", "memorybench", str(source), *given, "-o", "o"])
        said = f"--line-offset: chonkie: an integer of {digits} digits (at most 100)"
        assert result.exit_code == 1 and said in result.output


def test_every_subcommand_has_an_example():
    from trecbench.cli.convert import convert

    assert sorted(convert.commands) == [
        "beir-qrels", "code-chunk", "dict", "hpo", "lists", "memorybench", "msmarco"
    ]  # fmt: skip
    for name in convert.commands:
        result = run_cli(name, "--help")
        assert result.exit_code == 0 and "Example" in result.output, name


def test_code_chunk_prints_the_compare_command_for_its_pairs(code_chunk_data, tmp_path):
    """Issue 12.1: each chunker has its own qrels; the printed command pairs them."""
    (detailed,) = code_chunk_data.glob("detailed_*.json")
    result = run_cli("code-chunk", detailed, "-o", tmp_path / "out dir")
    out = tmp_path / "out dir"
    assert result.output.endswith(
        "compare the runs with:\n"
        f"  trecbench compare --run-qrels '{out}/ast.run' '{out}/codechunk-ast.qrels' "
        f"--run-qrels '{out}/fixed.run' '{out}/codechunk-fixed.qrels'\n"
    )


def test_name_cannot_leave_the_output_folder(tmp_path, monkeypatch, capsys):
    """Issue 9.8: --name ../../x wrote outside -o."""
    source = tmp_path / "lists.json"
    source.write_text('{"gold_docs": [["a"]], "retrieved_chunks": [["a"]]}')
    (tmp_path / "o").mkdir()
    code, err = run_main(monkeypatch, capsys, "lists", source, "-o", tmp_path / "o", "--name",
                         "../../x")  # fmt: skip
    assert (code, err) == (1, "trecbench: --name '../../x' is not a plain file name (no / or "
                              "\\, no control character, not . or ..)\n")  # fmt: skip
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["lists.json", "o"]


def test_an_input_named_by_no_file_name_is_refused_as_input(tmp_path, monkeypatch, capsys):
    """msmarco $'nl\\nx.tsv' said "--name 'nl\\nx' is not a plain file name", exit 1, of
    a --name never given: the input's name is the problem (exit 2), and the message says
    which options would name the outputs instead."""
    source = tmp_path / "nl\nx.tsv"
    source.write_text("1\t7\t1\n")
    out = tmp_path / "o"
    said = (
        ": its name cannot name the outputs (an output's name holds no control character, "
        "backslash or byte that is not UTF-8): give "
    )
    code, err = run_main(monkeypatch, capsys, "msmarco", source, "-o", out)
    assert (code, err) == (2, f"trecbench: {tmp_path}/nl\\nx.tsv{said}--name and --tag\n")
    code, err = run_main(monkeypatch, capsys, "msmarco", source, "-o", out, "--tag", "t")
    assert (code, err) == (2, f"trecbench: {tmp_path}/nl\\nx.tsv{said}--name\n")
    results = tmp_path / "a\\b.jsonl"  # a backslash: no file name on Windows
    results.write_text('{"case_id": 0, "retrieved_hpo_ids": ["HP:0001639"]}\n')
    cases = tmp_path / "cases.json"
    cases.write_text('[{"case_id": 0, "text": "x", "expected_hpo_ids": ["HP:0001639"]}]')
    code, err = run_main(monkeypatch, capsys, "hpo", cases, "--results", results, "-o", out)
    assert (code, err) == (2, f"trecbench: {results}{said}--tag\n")
    assert not out.exists()
    code, _ = run_main(monkeypatch, capsys, "msmarco", source, "-o", out, "--name", "n",
                       "--tag", "t")  # fmt: skip
    assert code == 0 and sorted(p.name for p in out.iterdir()) == ["n.sidecar.json", "t.run"]


def test_a_process_substitution_names_its_outputs_as_standard_input_does(
    tmp_path, monkeypatch, capsys
):
    """`<(cat z.tsv)`, /dev/fd/63, wrote 63.run tagged 63 and 63.sidecar.json: a number
    that names nothing (score.md), and a new one every call."""
    read, write = os.pipe()
    os.write(write, b"q1\tp1\t1\nq1\tp2\t2\n")
    os.close(write)
    try:
        code, err = run_main(monkeypatch, capsys, "msmarco", f"/dev/fd/{read}", "-o", tmp_path)
    finally:
        os.close(read)
    assert code == 0, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["stdin.run", "stdin.sidecar.json"]
    assert (tmp_path / "stdin.run").read_text().split("\n")[0].endswith("\tstdin")
    (tmp_path / "z.tsv").write_text("q1\tp1\t1\n")
    with (tmp_path / "z.tsv").open() as held:  # /proc/self/fd/N alike
        out = tmp_path / "o"
        code, err = run_main(
            monkeypatch, capsys, "msmarco", f"/proc/self/fd/{held.fileno()}", "-o", out
        )
    assert code == 0 and sorted(p.name for p in out.iterdir()) == [
        "stdin.run",
        "stdin.sidecar.json",
    ], err


def test_committed_demo_outputs_are_what_the_converter_writes(tmp_path, monkeypatch):
    """qrels/ and runs/ are produced by `make demo`; regenerating them changes nothing."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    committed = sorted((root / "qrels").glob("hpo-demo.*")) + sorted((root / "runs").glob("*.run"))
    if not committed:
        pytest.skip("demo outputs not generated")
    monkeypatch.chdir(root)
    results = [f"data/hpo-demo/results/{r}/terms.jsonl" for r in
               ("tfidf-char", "tfidf-word", "tfidf-word-parents")]  # fmt: skip
    args = [a for r in results for a in ("--results", r)]
    out = tmp_path / "qrels"
    result = run_cli("hpo", "data/hpo-demo/cases.json", *args, "--name", "hpo-demo", "-o", out,
                     "--runs-dir", tmp_path / "runs")  # fmt: skip
    assert result.exit_code == 0, result.output
    for path in committed:
        fresh = tmp_path / path.parent.name / path.name
        data = fresh.read_bytes()
        assert data == path.read_bytes(), path.name


def test_make_demo_converts_one_input_of_every_converter(tmp_path, monkeypatch):
    """scripts/demo.sh runs every converter: its one-line convert commands run here, on the
    bundled data/convert inputs (the multi-line hpo step is checked above)."""
    import re
    import shlex
    from pathlib import Path

    from trecbench.cli.convert import convert

    root = Path(__file__).resolve().parents[1]
    script = (root / "scripts" / "demo.sh").read_text()
    assert set(re.findall(r"^\$TB convert (\S+)", script, re.M)) == set(convert.commands)
    monkeypatch.chdir(root)
    for line in re.findall(r"^\$TB (convert .*[^\\])$", script, re.M):
        line = line.replace("$C/", "data/convert/").replace("$OUT/", f"{tmp_path}/")
        result = CliRunner().invoke(cli, shlex.split(line), catch_exceptions=False)
        assert result.exit_code == 0, (line, result.output)
    written = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*.sidecar.json"))
    assert written == [
        "convert/beir-qrels/beir-test.sidecar.json",
        "convert/code-chunk/codechunk.sidecar.json",
        "convert/dict/beir-test.sidecar.json",
        "convert/lists/remem-chunks.sidecar.json",
        "convert/memorybench/memorybench.sidecar.json",
        "convert/msmarco/msmarco-run.sidecar.json",
    ]


def test_every_converter_reads_gzip(tmp_path, monkeypatch):
    """Issue 15.4: each converter's input may be gzipped (detected by content)."""
    import gzip
    import shutil
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    for source in (root / "data" / "convert").iterdir():
        (tmp_path / (source.name + ".gz")).write_bytes(gzip.compress(source.read_bytes()))
    shutil.copy(root / "data/hpo-demo/cases.json", tmp_path / "cases.json")
    (tmp_path / "cases.json.gz").write_bytes(gzip.compress((tmp_path / "cases.json").read_bytes()))
    terms = (root / "data/hpo-demo/results/tfidf-word/terms.jsonl").read_bytes()
    (tmp_path / "terms.jsonl.gz").write_bytes(gzip.compress(terms))
    monkeypatch.chdir(tmp_path)
    for args in (
        ["hpo", "cases.json.gz", "--results", "terms.jsonl.gz", "--no-id-check"],
        ["code-chunk", "code-chunk-detailed.json.gz"],
        ["memorybench", "memorybench-export.json.gz"],
        ["lists", "remem-chunks.json.gz", "--match", "chunks"],
        ["dict", "bm25-results.json.gz", "--beir-qrels", "beir-test.tsv.gz"],
        ["beir-qrels", "beir-test.tsv.gz"],
        ["msmarco", "msmarco-run.tsv.gz"],
    ):
        out = f"out-{args[0]}"
        result = run_cli(*args, "-o", out)
        assert result.exit_code == 0, (args, result.output)
        sidecar = json.loads(next(Path(out).glob("*.sidecar.json")).read_text())
        assert sidecar["provenance"]["inputs"][0]["path"].endswith(".gz")


def test_the_printed_compare_command_runs(tmp_path, monkeypatch):
    """The command code-chunk prints is accepted by `trecbench compare` (once compare
    takes --run-qrels: issue 12.1, built by the compare work)."""
    import shlex
    from pathlib import Path

    if "--run-qrels" not in run_cli_raw("compare", "--help").output:
        pytest.skip("trecbench compare has no --run-qrels yet")
    detailed = Path(__file__).resolve().parents[1] / "data/convert/code-chunk-detailed.json"
    result = run_cli("code-chunk", detailed, "-o", tmp_path)
    command = result.output.splitlines()[-1].strip()
    words = shlex.split(command)
    assert words[:3] == ["trecbench", "compare", "--run-qrels"]
    monkeypatch.chdir(tmp_path)
    done = run_cli_raw(*words[1:], "-m", "P.1")
    assert done.exit_code == 0, done.output


def run_cli_raw(*args):
    return CliRunner().invoke(cli, [*map(str, args)])


TOO_LARGE = (
    "is too large: ranks go up to 9223372036854775807 (a 64-bit integer, as trecbench and "
    "rank-based tools hold them; trec_eval skips the rank column)"
)


def test_a_rank_beyond_a_c_long_is_too_large_in_msmarco_and_terms_alike(
    tmp_path, monkeypatch, capsys
):
    """msmarco said "rank '9223372036854775808' is not a positive integer (ranks start at
    1)"; terms.jsonl took the rank. Both read ranks up to the largest C long, as R10."""
    run = tmp_path / "run.tsv"
    run.write_text("1\tp1\t1\n1\tp2\t9223372036854775808\n")
    code, err = run_main(monkeypatch, capsys, "msmarco", run, "-o", tmp_path / "m")
    assert (code, err) == (2, f"trecbench: {run}:2: rank '9223372036854775808' {TOO_LARGE}\n")
    run.write_text("1\tp1\t9223372036854775807\n1\tp2\t1\n")  # the largest: a rank
    assert run_main(monkeypatch, capsys, "msmarco", run, "-o", tmp_path / "m")[0] == 0
    run.write_text("1\tp1\t0\n")
    assert run_main(monkeypatch, capsys, "msmarco", run, "-o", tmp_path / "m")[1].endswith(
        "rank '0' is not a positive integer (ranks start at 1)\n"
    )
    cases = tmp_path / "cases.json"
    cases.write_text(json.dumps([{"case_id": "0", "text": "x", "expected_hpo_ids": []}]))
    terms = tmp_path / "terms.jsonl"
    terms.write_text('{"case_id": "0", "hpo_id": "HP:0000001", "rank": 9223372036854775808}\n')
    code, err = run_main(monkeypatch, capsys, "hpo", cases, "--results", terms, "-o", tmp_path)
    assert (code, err) == (2, f"trecbench: {terms}:1: rank: 9223372036854775808 {TOO_LARGE}\n")


@pytest.mark.parametrize(
    ("converter", "data", "default"),
    [
        ("code-chunk", "code-chunk-detailed.json", "codechunk"),
        ("memorybench", "memorybench-export.json", "memorybench"),
    ],
)
def test_code_chunk_and_memorybench_are_named_after_their_format(
    tmp_path, converter, data, default
):
    # docs/convert.md said every output was named after its input file: these two name
    # their qrels and sidecar after their format unless --name is given
    from conftest import ROOT

    source = tmp_path / "my-export.json"
    source.write_bytes((ROOT / "data" / "convert" / data).read_bytes())
    for options, name in (([], default), (["--name", "mine"], "mine")):
        out = tmp_path / name
        assert run_cli(converter, source, "-o", out, *options).exit_code == 0
        written = sorted(path.name for path in out.iterdir())
        assert f"{name}.sidecar.json" in written
        qrels = [file for file in written if file.endswith(".qrels")]
        assert qrels and all(file.startswith(f"{name}-") for file in qrels)
        assert not any(file.startswith("my-export") for file in written)


def test_an_earlier_conversions_runs_in_the_folder_are_refused(tmp_path, monkeypatch, capsys):
    # the second call replaced cases.sidecar.json, which then listed word.run only: char.run
    # stayed beside it, described by no sidecar (compare and benchmark refuse such files)
    from conftest import ROOT

    demo = ROOT / "data" / "hpo-demo"
    out = tmp_path / "mx"

    def convert(system, tag, *more):
        terms = demo / "results" / system / "terms.jsonl"
        args = ("hpo", demo / "cases.json", "--results", terms, "--tag", tag, *more)
        return run_main(monkeypatch, capsys, *args)

    assert convert("tfidf-char", "char", "-o", out)[0] == 0
    before = {path.name: path.read_bytes() for path in out.iterdir()}
    assert convert("tfidf-word", "word", "-o", out) == (
        2,
        f"trecbench: {out}: char.run would stay beside this conversion's files, not written "
        "by this call (an earlier one's, describing other runs): remove them or write to "
        "another folder\n",
    )
    assert {path.name: path.read_bytes() for path in out.iterdir()} == before
    # the same conversion again replaces its own files; the runs in --runs-dir are its own
    assert convert("tfidf-char", "char", "-o", out)[0] == 0
    assert convert("tfidf-char", "char", "-o", out / "q", "--runs-dir", out / "r")[0] == 0
    code, err = convert("tfidf-word", "word", "-o", out / "q", "--runs-dir", out / "r")
    assert (code, err.split(" would stay")[0]) == (2, f"trecbench: {out / 'r'}: char.run")
    (out / "char.run").unlink()  # as the message says: then the folder is this call's
    assert convert("tfidf-word", "word", "-o", out)[0] == 0
    sidecar = json.loads((out / "cases.sidecar.json").read_text())
    assert sorted(path.stem for path in out.glob("*.run")) == list(sidecar["runs"]) == ["word"]


def test_a_file_another_sidecar_describes_is_not_changed(tmp_path, monkeypatch, capsys):
    # b.tsv's run replaced t.run, which a.sidecar.json went on describing by a's checksum
    a, b, out = tmp_path / "a.tsv", tmp_path / "b.tsv", tmp_path / "o"
    a.write_text("1\t7\t1\n1\t8\t2\n")
    b.write_text("2\t9\t1\n")
    assert run_main(monkeypatch, capsys, "msmarco", a, "-o", out, "--tag", "t")[0] == 0
    before = {path.name: path.read_bytes() for path in out.iterdir()}
    assert run_main(monkeypatch, capsys, "msmarco", b, "-o", out, "--tag", "t") == (
        2,
        f"trecbench: {out / 't.run'}: described by {out / 'a.sidecar.json'}, an earlier "
        "conversion's sidecar, and this conversion would change it: remove that sidecar and "
        "its files, or write to another folder\n",
    )
    assert {path.name: path.read_bytes() for path in out.iterdir()} == before
    # the file written as it was is no change: a copy of a.tsv converts beside it
    (tmp_path / "c.tsv").write_bytes(a.read_bytes())
    assert (
        run_main(monkeypatch, capsys, "msmarco", tmp_path / "c.tsv", "-o", out, "--tag", "t")[0]
        == 0
    )
    assert (out / "t.run").read_bytes() == before["t.run"]
    # into the folder as --runs-dir of a conversion whose sidecar goes elsewhere
    code, err = run_main(
        monkeypatch, capsys, "msmarco", b, "-o", tmp_path / "o2", "--runs-dir", out, "--tag", "t"
    )
    assert (code, err.split(": described by ")[0]) == (2, f"trecbench: {out / 't.run'}")
    assert not (tmp_path / "o2").exists()


@pytest.mark.parametrize(
    "options, message",
    [
        (["--fuzzy-threshold", "50"], "--fuzzy-threshold: the fuzzy step matches chunks"),
        (["--match", "ids", "--fuzzy-threshold", "90"], "--fuzzy-threshold: the fuzzy step"),
        (["--no-fuzzy"], "--no-fuzzy: the fuzzy step matches chunks to documents"),
        (
            ["--match", "chunks", "--no-fuzzy", "--fuzzy-threshold", "80"],
            "--fuzzy-threshold: --no-fuzzy leaves out the step it sets",
        ),
    ],
)
def test_a_fuzzy_option_that_changes_nothing_is_refused(
    tmp_path, monkeypatch, capsys, options, message
):
    """--fuzzy-threshold with --match ids was ignored, the sidecar saying null."""
    source = tmp_path / "lists.json"
    source.write_text('{"gold_docs": [["a"]], "retrieved_chunks": [["a"]]}')
    code, err = run_main(monkeypatch, capsys, "lists", source, *options, "-o", tmp_path / "o")
    assert code == 1 and err.count("\n") == 1 and message in err, err
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize(
    ("args", "writes"),
    [
        (["hpo", "{in}"], "0 runs and 1 qrels"),
        (["hpo", "{in}", "--results", "{in}", "--results", "{in}"], "2 runs and 1 qrels"),
        (["code-chunk", "{in}"], "a run and its qrels per chunker"),
        (["memorybench", "{in}"], "a run and its qrels per provider"),
        (["lists", "{in}"], "1 run and 1 qrels"),
        (["dict", "{in}", "--qrels-json", "{in}"], "1 run and 1 qrels"),
        (["dict", "{in}", "--beir-qrels", "{in}"], "1 run and 1 qrels"),
    ],
)
def test_stdout_is_refused_before_the_input_is_read(args, writes, tmp_path, capsys):
    """-o - of a conversion that never makes a single run alone was refused only after
    converting: an input it cannot read (here no JSON at all) was said first, or a long
    conversion made for nothing; the arguments tell it, in the same words."""
    garbage = tmp_path / "in.json"
    garbage.write_text("not what any converter reads\n")
    given = [arg.replace("{in}", str(garbage)) for arg in args]
    assert run(["convert", *given, "-o", "-"]) == 2
    shown = capsys.readouterr()
    assert shown.out == ""
    assert shown.err == (
        f"trecbench: -: standard output takes a single run; this conversion writes {writes} "
        "(give a folder)\n"
    )


@pytest.mark.parametrize("option", [["--runs-dir", "r"], ["--name", "foo"]])
def test_an_option_standard_output_does_not_use_is_refused(option, tmp_path, capsys):
    # --name names the qrels and sidecar, which -o - does not write: it was taken and
    # dropped, where --runs-dir was refused (helper 638)
    source = tmp_path / "d.json"
    source.write_text('{"q1": {"a": 2.0, "b": 1.0}}')
    assert run(["convert", "dict", str(source), "-o", "-", *option]) == 1
    shown = capsys.readouterr()
    assert shown.out == "" and shown.err.count("\n") == 1
    said = f"trecbench: convert dict: -o -: the run goes to standard output; {option[0]} is not"
    assert shown.err.startswith(said)


def test_score_inversions_are_said_beside_the_ties(tmp_path):
    # a producer ranking 0.5 above 0.9 was counted in the sidecar only: the summary said
    # nothing of a ranking whose order is not its scores'
    cases = tmp_path / "cases.json"
    cases.write_text('[{"case_id": "c1", "text": "x", "expected_hpo_ids": ["HP:0001250"]}]')
    terms = tmp_path / "terms.jsonl"
    terms.write_text(
        '{"case_id": "c1", "hpo_id": "HP:0001250", "rank": 1, "score": 0.5}\n'
        '{"case_id": "c1", "hpo_id": "HP:0001251", "rank": 2, "score": 0.9}\n'
        '{"case_id": "c1", "hpo_id": "HP:0001252", "rank": 3, "score": 0.1}\n'
    )
    out = tmp_path / "out"
    result = run_cli("hpo", cases, "--results", terms, "--tag", "t", "--no-id-check", "-o", out)
    assert result.exit_code == 0, result.output
    assert (
        "t.run: 1 query, 3 documents; 1 score inversion (a score above the one ranked before "
        "it) kept in producer order\n" in result.output
    )
    sidecar = json.loads((out / "cases.sidecar.json").read_text())
    assert sidecar["runs"]["t"]["score_inversions"] == 1


def test_a_float32_tie_is_no_score_inversion(tmp_path):
    # pytrec_eval orders 1.0 before 1.00000001 (a float32 tie, docid descending): that pair
    # is a tie at float32 precision, counted as such, not also as an inversion
    source = tmp_path / "near.json"
    source.write_text('{"q1": {"a": 1.00000001, "b": 1.0}}')
    result = run_cli("dict", source, "-o", tmp_path / "out")
    assert result.exit_code == 0, result.output
    assert "near.run: 1 query, 2 documents; 1 tie at float32 precision only" in result.output
    assert "inversion" not in result.output
    sidecar = json.loads((tmp_path / "out" / "near.sidecar.json").read_text())
    assert sidecar["runs"]["near"]["score_inversions"] == 0


def test_a_signed_rank_is_refused_saying_so_and_a_signed_grade_is_read(
    tmp_path, monkeypatch, capsys
):
    """msmarco said "rank '+2' is not a positive integer", which it is, written with a
    sign; a rank takes none (validate's R10), a grade may (atol, Q3.plus): one rule."""
    run = tmp_path / "run.tsv"
    run.write_text("1\tp1\t+2\n")
    code, err = run_main(monkeypatch, capsys, "msmarco", run, "-o", tmp_path / "m")
    said = "rank '+2' has a sign: a rank is digits alone, from 1, as validate reads it (R10)"
    assert (code, err) == (2, f"trecbench: {run}:1: {said}\n")
    qrels = tmp_path / "q.tsv"
    qrels.write_text("query-id\tcorpus-id\tscore\nq1\td1\t+1\n")
    assert run_main(monkeypatch, capsys, "beir-qrels", qrels, "-o", tmp_path / "b")[0] == 0
    assert (tmp_path / "b" / "q.qrels").read_text() == "q1 0 d1 1\n"


def test_what_was_written_is_said_once_it_is_in_place(tmp_path, monkeypatch, capsys):
    """convert said "wrote PATH" before putting the files in place: a rename that failed
    then exited 2 after "wrote" lines for files never written."""
    from trecbench import outputs

    source = tmp_path / "in.tsv"
    source.write_text("q1\td1\t1\nq1\td2\t2\n")

    def failing(src, dst):
        raise OSError(30, "Read-only file system", str(dst))

    monkeypatch.setattr(outputs.os, "replace", failing)
    assert run(["convert", "msmarco", str(source), "-o", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert "wrote" not in err and "Read-only file system" in err
    monkeypatch.undo()
    assert run(["convert", "msmarco", str(source), "-o", str(tmp_path / "out")]) == 0
    assert "wrote " in capsys.readouterr().err


def test_a_document_id_a_trec_file_holds_is_written_as_it_is(tmp_path, monkeypatch, capsys):
    """msmarco wrote the docno 100%_pure as 100%25_pure and #5 as %235: the run then
    matched no judgment of the collection's own qrels (trec_eval's recip_rank 0, not 1),
    with a count of escaped ids as the only word. A '%' that opens no %XX and a
    document's '#' (no line's start) are now kept; a query's '#' and a blank still are
    escaped, reversibly."""
    source = tmp_path / "pct.tsv"
    source.write_text("1\t100%_pure\t1\n1\tx\t2\n2\t#5\t1\n#3\ta b\t1\n")
    qrels = tmp_path / "pct.qrels"
    qrels.write_text("1 0 100%_pure 1\n2 0 #5 1\n")
    code, _ = run_main(monkeypatch, capsys, "msmarco", source, "-o", tmp_path / "o")
    assert code == 0
    lines = (tmp_path / "o" / "pct.run").read_text().splitlines()
    assert [line.split()[:3] for line in lines] == [
        ["1", "Q0", "100%_pure"], ["1", "Q0", "x"], ["2", "Q0", "#5"], ["%233", "Q0", "a%20b"]
    ]  # fmt: skip
    sidecar = json.loads((tmp_path / "o" / "pct.sidecar.json").read_text())
    assert "100%_pure" not in json.dumps(sidecar["report"]["repaired"])
    assert run(["score", "-m", "recip_rank", str(qrels), str(tmp_path / "o" / "pct.run")]) == 0
    assert capsys.readouterr().out.split() == ["recip_rank", "all", "1.0000"]
