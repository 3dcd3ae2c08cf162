"""leaderboard: means per collection against trec_eval's own code (pytrec_eval) on each
stratum, ranks, and the paired tests against scipy with Holm's adjustment by hand."""

from __future__ import annotations

import json
import os
import re
from functools import partial
from pathlib import Path

import numpy as np
import pytest
from conftest import ROOT, suite_of_x_and_y, write_tenths
from scipy.stats import ttest_rel

from trecbench.cli import run
from trecbench.errors import TrecbenchError, UndefinedValueError, UsageError
from trecbench.runstudy.leaderboard import leaderboard
from trecbench.strata import load_strata

SUITE = ROOT / "data" / "leaderboard.toml"
RTASK = ROOT / "data" / "hpo-rtask"
SYSTEMS = ["lexical", "vector", "reranked"]


def _trec(path):
    table = {}
    for line in path.read_text().splitlines():
        fields = line.split()
        table.setdefault(fields[0], {})[fields[2]] = fields[3] if len(fields) == 4 else fields[4]
    return table


def _per_topic(measure: str) -> dict[str, dict[str, float]]:
    """trec_eval's per-topic values (its C code, through pytrec_eval) of every system."""
    import pytrec_eval

    qrels = {
        q: {d: int(g) for d, g in docs.items()}
        for q, docs in _trec(RTASK / "hpo-rtask.qrels").items()
    }
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {measure})
    values = {}
    for system in SYSTEMS:
        run_ = {
            q: {d: float(s) for d, s in docs.items()}
            for q, docs in _trec(RTASK / f"{system}.run").items()
        }
        values[system] = {q: v[measure] for q, v in evaluator.evaluate(run_).items()}
    return values


@pytest.fixture(scope="module")
def board():
    return leaderboard(SUITE)


@pytest.mark.parametrize(
    ("name", "measure"), [("nDCG@10", "ndcg_cut_10"), ("Recall@100", "recall_100")]
)
def test_means_equal_trec_eval_on_each_language(board, name, measure):
    values = _per_topic(measure)
    strata = load_strata(ROOT / "qrels" / "hpo-demo.sidecar.json")
    table = next(b for b in board.boards if b.measure == name)
    for c, language in enumerate(["de", "en"]):
        topics = set(strata["qid"][strata["language"] == language])
        for s, system in enumerate(SYSTEMS):
            expected = np.mean([v for q, v in values[system].items() if q in topics])
            assert table.means[s, c] == pytest.approx(expected, abs=1e-12)
    assert table.macro == pytest.approx(table.means.mean(axis=1))


def test_ranks_and_paired_tests_against_scipy(board):
    table = next(b for b in board.boards if b.measure == "nDCG@10")
    values = _per_topic("ndcg_cut_10")
    # ranks: 1 for the best mean of each collection
    for c in range(2):
        order = np.argsort(-table.means[:, c])
        assert table.ranks[order, c].tolist() == [1.0, 2.0, 3.0]
    raw = []
    for system in SYSTEMS[1:]:
        topics = sorted(values[system])
        result = ttest_rel(
            [values[system][q] for q in topics], [values["lexical"][q] for q in topics]
        )
        raw.append(result.pvalue)
    holm = sorted(raw)  # two systems: the smaller times 2, the larger times 1, monotone
    adjusted = {holm[0]: min(1, 2 * holm[0]), holm[1]: min(1, max(2 * holm[0], holm[1]))}
    for s, p in zip([1, 2], raw, strict=True):
        assert table.over_topics[s].p == pytest.approx(p, rel=1e-10)
        assert table.over_topics[s].p_adjusted == pytest.approx(adjusted[p], rel=1e-10)
        assert table.over_topics[s].n == 56
    assert table.over_topics[0] is None and table.over_collections[0] is None


def test_a_test_without_variation_is_undefined_not_a_number(board):
    recall = next(b for b in board.boards if b.measure == "Recall@100")
    # the reranker reorders the lexical run's top 100: Recall@100 is the lexical run's
    test = recall.over_topics[2]
    assert (test.p, test.p_adjusted, test.reason) == (None, None, "the differences do not vary")
    # left out of Holm's family, as the docs and the JSON say: the one defined test keeps
    # its own p (scipy's), not twice it
    values = _per_topic("recall_100")
    topics = sorted(values["vector"])
    raw = ttest_rel([values["vector"][q] for q in topics], [values["lexical"][q] for q in topics])
    assert recall.over_topics[1].p_adjusted == pytest.approx(raw.pvalue, rel=1e-10)


def test_means_and_differences_equal_on_paper_tie(tmp_path, capsys):
    # P@10 of a and b is 1/10 on both collections, as floats 0.10000000000000002 and
    # 0.09999999999999999 (a) or the other way round (b); c - a is -1/15 on both
    write_tenths(tmp_path / "x", {"a": [1, 2, 0], "b": [3, 0, 0], "c": [0, 0, 1]})
    write_tenths(tmp_path / "y", {"a": [3, 0, 0], "b": [1, 2, 0], "c": [0, 0, 1]}, "U")
    suite = suite_of_x_and_y(tmp_path, "tied", "P@10", ["a", "b", "c"])
    (table,) = leaderboard(str(suite)).boards
    assert table.means[0, 0] != table.means[1, 0]  # the floats differ
    assert table.ranks.tolist() == [[1.5, 1.5], [1.5, 1.5], [3.0, 3.0]]
    for s in (1, 2):
        test = table.over_collections[s]
        assert (test.p, test.p_adjusted, test.reason) == (None, None, "the differences do not vary")
    assert run(["leaderboard", str(suite), "--format", "json"]) == 0
    document = json.loads(capsys.readouterr().out, parse_constant=pytest.fail)  # no NaN
    assert document["measures"][0]["systems"][1]["ranks"] == {"x": 1.5, "y": 1.5}


def test_cli_formats(capsys):
    assert run(["leaderboard", str(SUITE), "--format", "json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert [m["measure"] for m in document["measures"]] == ["nDCG@10", "MRR@10", "Recall@100"]
    assert document["measures"][0]["systems"][0]["over_topics"] is None
    for output_format, mark in (("markdown", "| system |"), ("latex", r"\begin{tabular}")):
        assert run(["leaderboard", str(SUITE), "--format", output_format]) == 0
        assert mark in capsys.readouterr().out


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[collections.a]\nqrels = "q"\nruns = "x.run"\n', "names its file with {system}"),
        ('[collections.a]\nqrels = "q"\nruns = "{system}.run"\n', "needs the suite's systems"),
        (
            'systems = ["a"]\n[collections.a]\nqrels = "q"\nruns = {b = "b.run"}\n',
            "has no run of: a",
        ),
        (  # without a systems list, none is "not listed": the first collection's runs are
            '[collections.a]\nqrels = "q"\nruns = {a = "a.run"}\n'
            '[collections.b]\nqrels = "r"\nruns = {a = "a.run", b = "b.run"}\n',
            "suite.toml:4: collections.b: has a run of a system the first collection, 'a', "
            "has none of (without `systems`, its runs name the systems): b",
        ),
        ('[collections.a]\nqrels = "q"\n', "runs"),
        (  # the line where file:line puts it, not "(at line 3, column 10)" in the message
            '[collections.a]\nqrels = "q"\nqrels = "r"\nruns = {a = "a"}\n',
            "suite.toml:3: not a valid TOML suite: duplicate key 'qrels' (first on line 2)",
        ),
    ],
)
def test_bad_suites_are_refused_in_one_line(tmp_path, text, message):
    suite = tmp_path / "suite.toml"
    suite.write_text(text)
    with pytest.raises(TrecbenchError, match=None) as caught:
        leaderboard(suite)
    assert message in str(caught.value)


@pytest.mark.parametrize("name", ['"my system"', '""', '"a\\u00a0b"'])
def test_a_system_named_by_a_runs_table_alone_is_checked_as_the_systems_list(
    tmp_path, capsys, name
):
    # without a systems list the first runs table names the systems: a blank in a name was
    # taken (docs/leaderboard.md: a system's name may not contain whitespace), an empty
    # name refused later without the suite's line ("run names must not be blank")
    suite = tmp_path / "suite.toml"
    suite.write_text(f'[collections.c]\nqrels = "q"\nruns = {{a = "a.run", {name} = "b.run"}}\n')
    assert run(["leaderboard", str(suite)]) == 1
    said = capsys.readouterr().err
    assert said.startswith(f"trecbench: {suite}:3: collections.c.runs.")
    assert said.endswith("does not match '^[^\\\\s]+$'\n") and said.count("\n") == 1


def test_a_collection_without_a_name_is_refused_at_its_line(tmp_path, capsys):
    # its column's header was empty and its topics read "topics:  56", a count of nothing
    suite = tmp_path / "suite.toml"
    suite.write_text('systems = ["a"]\n[collections.""]\nqrels = "q"\nruns = "{system}.run"\n')
    assert run(["leaderboard", str(suite)]) == 1
    said = capsys.readouterr().err
    assert said == f'trecbench: {suite}:2: collections."": "" should be non-empty\n'


@pytest.mark.parametrize("name", ["macro", "system", '"mean rank"'])
def test_a_collection_named_as_another_column_is_refused_at_its_line(tmp_path, capsys, name):
    # a collection "macro" headed a column beside the macro mean's, both titled "macro"
    suite = tmp_path / "suite.toml"
    suite.write_text(f'systems = ["a"]\n[collections.{name}]\nqrels = "q"\nruns = "{{system}}"\n')
    assert run(["leaderboard", str(suite)]) == 1
    said = capsys.readouterr().err
    assert said.startswith(f"trecbench: {suite}:2: collections.{name}: ")
    columns = "system, macro, mean rank, p (collections), p (topics)"
    assert said.endswith(
        f"another column of the tables ({columns}): name the collection otherwise\n"
    )


# (an empty suite is no setting but an empty file, exit 2: tests/test_configs.py)
@pytest.mark.parametrize("text", ["bogus = 1\n", 'measures = 5\n[collections.a]\nqrels = "q"\n'])
def test_a_suite_setting_the_schema_refuses_is_a_usage_error_as_benchmark_s(tmp_path, capsys, text):
    # leaderboard exited 2 where benchmark exits 1 for the same kind of setting
    suite = tmp_path / "suite.toml"
    suite.write_text(text)
    assert run(["leaderboard", str(suite)]) == 1
    said = capsys.readouterr().err
    assert said.startswith(f"trecbench: {suite}") and said.count("\n") == 1
    if text.startswith("measures"):  # the key at its line
        assert said.startswith(f"trecbench: {suite}:1: measures: ")


def test_html_is_one_page_with_every_table_and_its_numbers(capsys):
    pytest.importorskip("jinja2")
    assert run(["leaderboard", str(SUITE), "--format", "html"]) == 0
    page = capsys.readouterr().out
    board = leaderboard(SUITE)
    assert page.count('<table class="sortable">') == len(board.boards)
    for table in board.boards:
        for s in range(len(table.systems)):
            assert f">{table.macro[s]:.4f}<" in page
    assert "<script src=" not in page and "http" not in page.split("<body>")[1]


def _suite_of_both_languages(tmp_path, second_where: str) -> str:
    """data/leaderboard.toml's two collections, the second one kept by ``second_where``."""
    text = (
        SUITE.read_text()
        .replace("hpo-rtask/", f"{RTASK}/")
        .replace("../qrels", str(ROOT / "qrels"))
    )
    text = text.replace('where = { language = "en" }', second_where)
    suite = tmp_path / "suite.toml"
    suite.write_text(text)
    return str(suite)


@pytest.mark.parametrize(
    ("where", "problem"),
    [
        # TOML's true became the text 'True' (no stratum "true" matched it), 1e0 became
        # '1.0' (the stratum "1e0" unmatched, a stratum "1.0" matched)
        ("true", "read as the boolean true, not as written: quote it"),
        ("1e0", "read as the number 1.0, not as written: quote it"),
        ("2", "read as the number 2, not as written: quote it"),
        ('["en"]', "a list: a strata value is one piece of text"),
    ],
)
def test_a_where_value_that_is_not_text_is_refused(tmp_path, capsys, where, problem):
    suite = _suite_of_both_languages(tmp_path, f"where = {{ language = {where} }}")
    assert run(["leaderboard", suite]) == 1
    line = 1 + open(suite).read().split("\n").index(f"where = {{ language = {where} }}")
    assert capsys.readouterr().err == (
        f"trecbench: {suite}:{line}: collections.en.where.language: {problem}\n"
    )


def test_collections_sharing_a_topic_of_one_qrels_are_refused(tmp_path, capsys):
    # both collections keep the German topics: each was counted twice in the test over
    # topics, its p-value too small; one collection given twice is refused as such,
    # before any run is read (tests/test_refused_before_reading.py)
    suite = _suite_of_both_languages(tmp_path, 'where = { language = "de" }')
    text = open(suite).read()
    assert run(["leaderboard", suite]) == 2
    line = text.splitlines().index("[collections.en]") + 1
    assert capsys.readouterr().err == (
        f"trecbench: {suite}:{line}: collections.en: collections de and en are one "
        f"collection (the qrels {RTASK / 'hpo-rtask.qrels'}, the same runs and stratum): "
        "each topic would count twice; drop one, or give them disjoint strata\n"
    )
    # the German topics that are easy, in both: found as they are scored
    suite = _suite_of_both_languages(tmp_path, 'where = { difficulty = "easy" }')
    assert run(["leaderboard", suite]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    # at the line of the second collection, as every refusal of a collection is
    share = "collections de and en share the topic 'de-03' (judged alike in "
    assert f"{suite}:{line}: collections.en: {share}" in err
    # a copy of the qrels file, plain or gzipped, is the same qrels (it went through)
    import gzip

    original = RTASK / "hpo-rtask.qrels"
    second = text.index("[collections.en]")
    for name, data in (
        ("copy.qrels", original.read_bytes()),
        ("copy.qrels.gz", gzip.compress(original.read_bytes())),
    ):
        (tmp_path / name).write_bytes(data)
        with open(suite, "w") as out:
            out.write(text[:second] + text[second:].replace(str(original), str(tmp_path / name)))
        assert run(["leaderboard", suite]) == 2
        both = f"(judged alike in {original} and {tmp_path / name})"
        assert f"share the topic 'de-01' {both}" in capsys.readouterr().err


def test_each_input_is_read_once_for_strata_of_one_collection(tmp_path, monkeypatch):
    # the two collections are strata of one qrels file and the same runs: they were
    # evaluated (their files and the strata sidecar read) once per collection
    import builtins
    import collections
    import os

    from trecbench.evaluation import evaluate

    real_open = builtins.open

    def opens(call) -> dict[str, int]:
        opened = collections.Counter()

        def counting_open(file, *args, **kwargs):
            if isinstance(file, (str, os.PathLike)):
                opened[os.path.basename(os.fspath(file))] += 1
            return real_open(file, *args, **kwargs)

        monkeypatch.setattr(builtins, "open", counting_open)
        call()
        monkeypatch.undo()
        inputs = ["hpo-rtask.qrels", *(f"{s}.run" for s in SYSTEMS), "hpo-demo.sidecar.json"]
        return {name: opened[name] for name in inputs}

    suite = _suite_of_both_languages(tmp_path, 'where = { language = "en" }')
    runs = {s: str(RTASK / f"{s}.run") for s in SYSTEMS}
    once = opens(lambda: evaluate(str(RTASK / "hpo-rtask.qrels"), runs, ["P@5"]))
    assert opens(lambda: leaderboard(suite)) == once | {"hpo-demo.sidecar.json": 1}


def test_a_suite_read_from_a_pipe_starts_its_paths_here(monkeypatch):
    from trecbench.runstudy.suite import load_suite

    read, write = os.pipe()
    os.write(write, SUITE.read_bytes())
    os.close(write)
    monkeypatch.chdir(SUITE.parent)  # its paths are relative to data/, where it lives
    try:
        piped = load_suite(f"/dev/fd/{read}")
    finally:
        os.close(read)
    assert [Path(c.qrels).resolve() for c in piped.collections] == [
        Path(c.qrels).resolve() for c in load_suite(SUITE.name).collections
    ]


def test_a_suite_redirected_to_dev_stdin_starts_its_paths_from_its_own_folder(monkeypatch):
    # leaderboard /dev/stdin < suite.toml looked for /dev/c1.qrels
    from trecbench.runstudy.suite import load_suite

    monkeypatch.chdir(ROOT)  # not the suite's folder: its paths start from where it lives
    with open(SUITE, "rb") as handle:
        descriptor = f"/dev/fd/{handle.fileno()}"
        redirected = load_suite(descriptor)
    assert [Path(c.qrels).resolve() for c in redirected.collections] == [
        Path(c.qrels).resolve() for c in load_suite(SUITE).collections
    ]


@pytest.mark.parametrize("piped", [False, True])
def test_a_suite_from_standard_input_is_read_as_its_file_is(capsys, piped):
    """``leaderboard -`` read the file ``-`` ("-: cannot read: No such file"), where other
    commands read standard input. Its paths start where the file behind it lives
    (``- < suite.toml``), or here for a pipe, as ``/dev/stdin``'s do."""
    assert run(["leaderboard", str(SUITE)]) == 0
    expected = capsys.readouterr().out
    cwd = SUITE.parent if piped else ROOT / "tests"  # not the suite's folder
    done = _leaderboard_of_standard_input(SUITE, cwd, piped)
    assert (done.returncode, done.stderr.decode(), done.stdout.decode()) == (0, "", expected)


def _leaderboard_of_standard_input(suite: Path, cwd: Path, piped: bool):
    """``trecbench leaderboard -`` run in ``cwd`` on ``suite``, piped or redirected."""
    import subprocess
    import sys

    command = [sys.executable, "-m", "trecbench", "leaderboard", "-"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}  # this checkout's trecbench, from any folder
    with open(suite, "rb") as handle:
        stdin = {"input": handle.read()} if piped else {"stdin": handle}
        return subprocess.run(command, **stdin, cwd=cwd, env=env, capture_output=True, check=False)


def _two_system_suite(folder: Path, qrels: str) -> str:
    """The text of an unnamed suite ranking runs a and b (written in ``folder``) of one
    topic, judged by ``qrels``."""
    (folder / "a.run").write_text("1 Q0 d1 1 2 a\n")
    (folder / "b.run").write_text("1 Q0 d1 1 2 b\n")
    suite = 'measures = ["P@1"]\nsystems = ["a", "b"]\n[collections.c]\n'
    return suite + f'qrels = "{qrels}"\nruns = "{{system}}.run"\n'


@pytest.mark.parametrize("piped", [False, True])
def test_a_suite_from_standard_input_naming_it_again_is_refused(tmp_path, piped):
    # its qrels "/dev/stdin" read the suite's text again as qrels (Q1 on every line), or
    # found nothing left (R26 empty file): the suite is one of the inputs read once
    (tmp_path / "s.toml").write_text(_two_system_suite(tmp_path, "/dev/stdin"))
    done = _leaderboard_of_standard_input(tmp_path / "s.toml", tmp_path, piped)
    # at the setting naming it again, at its line, as benchmark's configuration says it
    once = "standard input ('-', /dev/stdin) can be read once: give it once\n"
    said = f"trecbench: -:4: collections.c.qrels: {once}"
    assert (done.returncode, done.stderr.decode(), done.stdout) == (1, said, b"")
    # a run of a runs table, at its own line
    suite = _two_system_suite(tmp_path, str(tmp_path / "q")).replace(
        'runs = "{system}.run"\n', '[collections.c.runs]\na = "a.run"\nb = "/dev/stdin"\n'
    )
    (tmp_path / "s.toml").write_text(suite)
    done = _leaderboard_of_standard_input(tmp_path / "s.toml", tmp_path, piped)
    said = f"trecbench: -:7: collections.c.runs.b: {once}"
    assert (done.returncode, done.stderr.decode(), done.stdout) == (1, said, b"")


def test_a_suite_from_standard_input_without_a_name_is_titled_stdin(tmp_path, monkeypatch):
    # it was titled "-" (a suite named by its file's stem, /dev/stdin's being "stdin")
    import io

    (tmp_path / "q").write_text("1 0 d1 1\n")
    suite = _two_system_suite(tmp_path, "q")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(suite.encode())))
    from trecbench.runstudy.suite import load_suite

    assert load_suite("-").name == "stdin"


def test_a_suite_from_a_descriptor_without_a_name_is_titled_by_its_name(tmp_path, monkeypatch):
    # <(cat suite.toml), /dev/fd/63, was titled "63" (its stem), benchmark's alike
    import os

    from trecbench.benchmarking.loading import load_benchmark_config
    from trecbench.runstudy.suite import load_suite

    (tmp_path / "q").write_text("1 0 d1 1\n")
    monkeypatch.chdir(tmp_path)
    bench = 'qrels = "q"\n[modes.a]\nrun = "a.run"\n[modes.b]\nrun = "b.run"\n'
    for text, load in (
        (_two_system_suite(tmp_path, "q"), load_suite),
        (bench, load_benchmark_config),
    ):
        read, write = os.pipe()
        os.write(write, text.encode())
        os.close(write)
        try:
            assert load(f"/dev/fd/{read}").name == f"/dev/fd/{read}"
        finally:
            os.close(read)
    # a descriptor of a regular file (`3< b.toml`, `/dev/stdin < b.toml`): no name to tell
    # its format by, read as a pipe is (it was "a benchmark configuration is .toml, ...")
    (tmp_path / "b.toml").write_text(bench)
    read = os.open(tmp_path / "b.toml", os.O_RDONLY)
    try:
        assert load_benchmark_config(f"/dev/fd/{read}").name == f"/dev/fd/{read}"
    finally:
        os.close(read)


def test_systems_of_one_name_written_two_ways_in_unicode_are_refused(tmp_path, monkeypatch):
    # "Lexé" as one character and as e and an accent: two rows shown alike, exit 0
    from trecbench.errors import UsageError
    from trecbench.runstudy.suite import load_suite

    nfc, nfd = "Lex\u00e9", "Lexe\u0301"
    (tmp_path / "q").write_text("1 0 d1 1\n")
    for name in (nfc, nfd):
        (tmp_path / f"{name}.run").write_text("1 Q0 d1 1 2 a\n")
    monkeypatch.chdir(tmp_path)
    said = f"systems {nfc!r} and {nfd!r} are one name written two ways in Unicode, shown alike"
    listed = (
        f'systems = ["{nfc}", "{nfd}"]\n[collections.c]\nqrels = "q"\nruns = "{{system}}.run"\n'
    )
    tabled = (
        f'[collections.c]\nqrels = "q"\nruns = {{"{nfc}" = "{nfc}.run", "{nfd}" = "{nfd}.run"}}\n'
    )
    for suite, where in (
        (listed, "s.toml:1: systems[1]"),
        (tabled, f"s.toml:3: collections.c.runs.{nfd}"),
    ):
        (tmp_path / "s.toml").write_text(suite)
        with pytest.raises(UsageError) as refused:
            load_suite("s.toml")
        assert str(refused.value) == f"{where}: {said}: rename one"
    # collections too: two columns headed alike
    (tmp_path / "s.toml").write_text(
        "".join(
            f'[collections."{n}"]\nqrels = "q"\nruns = {{a = "{nfc}.run"}}\n' for n in (nfc, nfd)
        )
    )
    with pytest.raises(UsageError) as refused:
        load_suite("s.toml")
    assert str(refused.value) == (
        f"s.toml:4: collections.{nfd}: collections {nfc!r} and {nfd!r} are one name written "
        "two ways in Unicode, shown alike: rename one"
    )


def test_boards_follow_the_suite_counts_say_per_topic_and_summaries_are_refused(tmp_path):
    # gm_map vanished (or "nothing to average" alone); num_ret's mean per topic was shown
    # as trec_eval's (which sums: 4 and 3); the boards came in trec_eval's order
    (tmp_path / "c.qrels").write_text("t1 0 d1 1\nt2 0 d2 1\n")
    (tmp_path / "A.run").write_text(
        "t1 Q0 d1 1 2 A\nt1 Q0 d9 2 1 A\nt2 Q0 d9 1 2 A\nt2 Q0 d2 2 1 A\n"
    )
    (tmp_path / "B.run").write_text("t1 Q0 d9 1 2 B\nt1 Q0 d1 2 1 B\nt2 Q0 d2 1 2 B\n")
    suite = tmp_path / "s.toml"
    collection = '[collections.c]\nqrels = "c.qrels"\nruns = "{system}.run"\n'
    text = r"no number per topic \(its value per topic is text: the grades of the top documents"
    for measures, refused in (
        ('"map", "gm_map"', r"measures\[1\]: gm_map: no value per topic"),
        (
            '"num_q", "relstring"',
            rf"measures\[0\]: num_q: no value per topic \(.*\); relstring: {text}",
        ),
        # refused once the runs were read, naming -R, without the file and line (exit 4)
        (
            '"map", "P_avgjg"',
            r"s.toml:1: measures\[1\]: P_avgjg: trec_eval computes it from "
            r"judgment groups \(-R qrels_jg\) only, and the leaderboard's means and tests are "
            r"computed from standard qrels$",
        ),
        ('"prefs_simp"', r"measures\[0\]: prefs_simp: .* from preference judgments \(-R "),
    ):
        suite.write_text(f'measures = [{measures}]\nsystems = ["A", "B"]\n{collection}')
        with pytest.raises(TrecbenchError, match=refused):
            leaderboard(suite)
    suite.write_text(f'measures = ["P.2", "map", "num_ret"]\nsystems = ["A", "B"]\n{collection}')
    board = leaderboard(suite)
    assert [b.measure for b in board.boards] == ["P@2", "MAP", "num_ret"]
    counts = board.boards[2]
    assert counts.summed and counts.means.tolist() == [[4 / 2], [3 / 2]]  # trec_eval: 4, 3
    document = board.to_json()["measures"]
    assert [m["mean"] for m in document] == ["trec_eval's"] * 2 + [
        "per topic, where trec_eval sums"
    ]


def test_latex_shows_a_system_not_ranked_as_latex_s_en_dash(tmp_path, capsys):
    # num_ret has no better direction: its mean rank is no figure, shown as – in the table
    # and Markdown but written as that character in LaTeX too, where agree and power write --
    (tmp_path / "c.qrels").write_text("t1 0 d1 1\n")
    (tmp_path / "A.run").write_text("t1 Q0 d1 1 2 A\n")
    (tmp_path / "B.run").write_text("t1 Q0 d9 1 2 B\n")
    suite = tmp_path / "s.toml"
    suite.write_text(
        'measures = ["num_ret"]\nsystems = ["A", "B"]\n'
        '[collections.c]\nqrels = "c.qrels"\nruns = "{system}.run"\n'
    )
    assert run(["leaderboard", str(suite), "--format", "latex", "--quiet"]) == 0
    latex = capsys.readouterr().out
    assert r"A & 1.0000 & 1.0000 & -- & baseline & baseline \\" in latex.splitlines()
    assert "–" not in latex
    assert run(["leaderboard", str(suite), "--format", "markdown", "--quiet"]) == 0
    assert "| A | 1.0000 | 1.0000 | – | baseline | baseline |" in capsys.readouterr().out


def test_a_family_of_decimal_cutoffs_asked_whole_gets_a_board_per_value(tmp_path):
    # iprec_at_recall and Rprec_mult without their cutoffs have no one name each: the
    # boards' order, built from the names, ended in a TypeError (exit 70)
    (tmp_path / "c.qrels").write_text("t1 0 d1 1\nt2 0 d2 1\n")
    (tmp_path / "A.run").write_text("t1 Q0 d1 1 2 A\nt2 Q0 d9 1 2 A\nt2 Q0 d2 2 1 A\n")
    (tmp_path / "B.run").write_text("t1 Q0 d9 1 2 B\nt1 Q0 d1 2 1 B\nt2 Q0 d2 1 2 B\n")
    suite = tmp_path / "s.toml"
    collection = '[collections.c]\nqrels = "c.qrels"\nruns = "{system}.run"\n'
    suite.write_text(f'measures = ["P.2", "iprec_at_recall"]\nsystems = ["A", "B"]\n{collection}')
    boards = leaderboard(suite).boards
    assert [b.measure for b in boards][:3] == [
        "P@2",
        "iprec_at_recall_0.00",
        "iprec_at_recall_0.10",
    ]
    assert len(boards) == 12 and boards[1].means.tolist() == [[0.75], [0.75]]  # (1 + 1/2) / 2


def test_a_system_lacking_topics_others_have_is_warned_of(tmp_path, capsys):
    # its mean is over the topics it has (trec_eval's), which the board's title, counting
    # every topic, did not say
    (tmp_path / "c.qrels").write_text("t1 0 d1 1\nt2 0 d2 1\n")
    (tmp_path / "A.run").write_text("t1 Q0 d1 1 2 A\nt2 Q0 d2 1 2 A\n")
    (tmp_path / "B.run").write_text("t1 Q0 d9 1 2 B\nt1 Q0 d1 2 1 B\n")
    suite = tmp_path / "s.toml"
    suite.write_text(
        'measures = ["P.1"]\nsystems = ["A", "B"]\n[collections.c]\nqrels = "c.qrels"\n'
        'runs = "{system}.run"\n'
    )
    board = leaderboard(suite)
    expected = (
        "collection c: B has no results for 1 of its 2 topics (t2): its mean there is over "
        "the topics it has, as trec_eval's is"
    )
    assert board.boards[0].means.tolist() == [[1.0], [0.0]]  # B: t1 only
    _assert_warned_once(board, suite, expected, capsys)


@pytest.mark.parametrize("collections", [1, 2])
def test_a_value_trec_eval_leaves_undefined_is_refused_at_its_collection(tmp_path, collections):
    # y retrieves nothing judged on b1, where 11pt_avg under -J is 0/0 (trec_eval 9.0.8
    # -J -m 11pt_avg prints "11pt_avg all -nan"): alone in its collection the board showed
    # y's mean over a1 alone without a word; beside another collection the test over
    # collections failed with an internal error (exit 70)
    qrels = {"c": "a1 0 d1 1\na1 0 d2 0\nb1 0 d1 1\nb1 0 d2 0\n"}
    if collections == 2:
        qrels = {"c": "a1 0 d1 1\na1 0 d2 0\n", "d": "b1 0 d1 1\nb1 0 d2 0\n"}
    for name, text in qrels.items():
        (tmp_path / f"{name}.qrels").write_text(text)
    (tmp_path / "x.run").write_text("a1 Q0 d1 1 2 x\na1 Q0 d2 2 1 x\nb1 Q0 d2 1 2 x\n")
    (tmp_path / "y.run").write_text("a1 Q0 d2 1 2 y\na1 Q0 d1 2 1 y\nb1 Q0 d8 1 2 y\n")
    suite = tmp_path / "s.toml"
    suite.write_text(
        'measures = ["P@1", "11pt_avg(judged_only=True)"]\nsystems = ["x", "y"]\n'
        + "".join(
            f'[collections.{n}]\nqrels = "{n}.qrels"\nruns = "{{system}}.run"\n' for n in qrels
        )  # fmt: skip
    )
    line = 3 + 3 * (collections - 1)  # the collection holding b1
    said = f"{suite}:{line}: collections.{'cd'[collections - 1]}: run 'y': "
    with pytest.raises(UndefinedValueError, match=re.escape(said) + ".* is undefined for 'b1'"):
        leaderboard(suite)
    assert run(["leaderboard", str(suite)]) == 4


def test_a_topic_named_all_counts_as_every_other_topic(tmp_path):
    # "all" is only the name of trec_eval's summary line: a topic may carry it, and the
    # board's means are then over it too (trec_eval's own code, through pytrec_eval)
    import pytrec_eval

    qrels = {q: {"r": 1, "n": 0} for q in ("all", "t2", "t3")}
    runs = {"A": ("all", "t2"), "B": ("t3",)}  # the topics each ranks r first on
    (tmp_path / "c.qrels").write_text(
        "".join(f"{q} 0 {d} {g}\n" for q in qrels for d, g in qrels[q].items())
    )
    for system, first in runs.items():
        lines = [f"{q} Q0 {d} {i + 1} {2 - i} {system}\n" for q in qrels
                 for i, d in enumerate(("r", "n") if q in first else ("n", "r"))]  # fmt: skip
        (tmp_path / f"{system}.run").write_text("".join(lines))
    suite = tmp_path / "s.toml"
    suite.write_text(
        'measures = ["P.1"]\nsystems = ["A", "B"]\n[collections.c]\nqrels = "c.qrels"\n'
        'runs = "{system}.run"\n'
    )
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"P_1"})
    values = {s: evaluator.evaluate(_scores(tmp_path / f"{s}.run")) for s in runs}
    expected = [[float(np.mean([v["P_1"] for v in values[s].values()]))] for s in runs]
    assert expected == [[2 / 3], [1 / 3]]
    np.testing.assert_allclose(leaderboard(suite).boards[0].means, expected, rtol=0, atol=1e-15)


def _scores(path) -> dict[str, dict[str, float]]:
    """A run file as pytrec_eval takes it."""
    return {q: {d: float(s) for d, s in docs.items()} for q, docs in _trec(path).items()}


def test_topics_without_a_relevant_document_are_warned_of(tmp_path, capsys):
    # every system scores 0 there and they count in its mean (trec_eval's): score warns of
    # them and compare says so, where the leaderboard said nothing; a stratum's topics only
    (tmp_path / "c.qrels").write_text("t1 0 d1 1\nt2 0 d2 0\nt3 0 d3 0\nt4 0 d4 0\n")
    (tmp_path / "A.run").write_text("t1 Q0 d1 1 2 A\nt2 Q0 d2 1 2 A\nt3 Q0 d3 1 1 A\n")
    (tmp_path / "B.run").write_text("t1 Q0 d9 1 2 B\nt2 Q0 d2 1 2 B\nt3 Q0 d1 1 1 B\n")
    queries = {"t1": {"g": "a"}, "t2": {"g": "a"}, "t3": {"g": "b"}}
    strata = {"fields": ["g"], "queries": queries}
    sidecar = {"format": "trecbench-sidecar", "version": 3, "strata": strata}
    (tmp_path / "s.json").write_text(json.dumps(sidecar))
    suite = tmp_path / "s.toml"
    suite.write_text(
        'measures = ["P.1"]\nsystems = ["A", "B"]\n[collections.c]\nqrels = "c.qrels"\n'
        'runs = "{system}.run"\nstrata = "s.json"\nwhere = { g = "a" }\n'
    )
    board = leaderboard(suite)
    expected = (
        "collection c: 1 topic without a relevant document (grade >= 1): the measures of "
        "relevant documents are 0 there for every system, and the topics count: t2"
    )
    assert board.boards[0].means.tolist() == [[0.5], [0.0]]  # A: t1 1, t2 0
    _assert_warned_once(board, suite, expected, capsys)


def _assert_warned_once(board, suite, expected: str, capsys) -> None:
    """The board's warnings, its JSON's and the command's stderr are ``expected`` alone."""
    assert board.warnings == [expected] and board.to_json()["warnings"] == [expected]
    assert run(["leaderboard", "--quiet", str(suite)]) == 0
    assert f"trecbench: warning: {expected}\n" in capsys.readouterr().err


def test_every_format_says_why_a_test_is_n_a(tmp_path, capsys):
    # LaTeX printed n/a without the reasons the other formats give (reviewer 247)
    (tmp_path / "c1.qrels").write_text("q1 0 d1 1\nq1 0 d2 0\nq2 0 d3 1\nq2 0 d4 1\n")
    run_x = "q1 Q0 d1 1 3 x\nq1 Q0 d2 2 2 x\nq2 Q0 d3 1 1 x\n"
    (tmp_path / "x.run").write_text(run_x)
    (tmp_path / "z.run").write_text(run_x.replace(" x\n", " z\n"))
    suite = tmp_path / "t.toml"
    suite.write_text(
        'measures = ["P@1"]\nsystems = ["x", "z"]\n[collections.a]\n'
        f'qrels = "{tmp_path / "c1.qrels"}"\nruns = "{tmp_path}/{{system}}.run"\n'
    )
    reasons = ["z over collections: no test (fewer than 2 pairs)",
               "z over topics: no test (the differences do not vary)"]  # fmt: skip
    for output_format in ("table", "markdown", "latex"):
        assert run(["leaderboard", str(suite), "--format", output_format, "--quiet"]) == 0
        out = capsys.readouterr().out
        assert all(reason in out for reason in reasons), output_format


def test_the_schema_takes_text_where_values_only():
    # it took numbers and booleans, which the suite then matched by Python's spelling
    from trecbench.errors import OutputError
    from trecbench.report import validate_against_schema

    suite = {"collections": {"c": {"qrels": "q", "runs": "{system}", "strata": "s"}}}
    suite["collections"]["c"]["where"] = {"g": "true"}
    validate_against_schema(suite, "leaderboard_suite")
    for value in (True, 1.0, 1):
        suite["collections"]["c"]["where"] = {"g": value}
        with pytest.raises(OutputError, match="collections/c/where/g: .* is not of type 'string'"):
            validate_against_schema(suite, "leaderboard_suite")


def test_a_suite_made_in_python_is_refused_not_a_traceback(tmp_path):
    # a Suite built by hand skipped every check of load_suite: a system without a run was
    # a KeyError, no collection an IndexError; load_suite's Suite is still taken
    from trecbench.runstudy.suite import Collection, Suite, load_suite

    (tmp_path / "q").write_text("1 0 a 1\n")
    for system in ("s1", "s2"):
        (tmp_path / f"{system}.run").write_text(f"1 Q0 a 1 1 {system}\n")
    runs = {"s1": tmp_path / "s1.run"}
    with pytest.raises(UsageError, match="^suite: collection 'c' has no run of: s2$"):
        Suite(Path("x"), "n", ["P@1"], ["s1", "s2"], [Collection("c", tmp_path / "q", runs)])
    runs["s2"] = tmp_path / "s2.run"
    built = Suite(Path("x"), "n", ["P@1"], ["s1", "s2"], [Collection("c", tmp_path / "q", runs)])
    with pytest.raises(TrecbenchError, match="a Suite made in Python is not checked"):
        leaderboard(built)
    suite = tmp_path / "s.toml"
    suite.write_text(
        'measures = ["P@1"]\nsystems = ["s1", "s2"]\n[collections.c]\nqrels = "q"\n'
        'runs = "{system}.run"\n'
    )
    assert [b.measure for b in leaderboard(load_suite(suite)).boards] == ["P@1"]


@pytest.mark.parametrize(
    "changed, said",
    [
        ({"measures": []}, "suite: measures: none given"),
        ({"measures": ["nosuch"]}, "suite: measures: illegal measure 'nosuch'"),
        ({"measures": ["gm_map"]}, "suite: measures: gm_map: no value per topic"),
        ({"systems": []}, "suite: systems: none given"),
        ({"collections": []}, "suite: collections: none given"),
        ({"systems": ["lexical", "ghost"]}, "suite: collection 'de' has no run of: ghost"),
    ],
)
def test_a_suite_changed_by_dataclasses_replace_is_checked(changed, said):
    # replace() of load_suite's Suite kept its text, so leaderboard took it unchecked: a
    # system without a run was a KeyError, no collection an IndexError, gm_map scored
    import dataclasses

    from trecbench.runstudy.suite import load_suite

    with pytest.raises(UsageError) as done:
        dataclasses.replace(load_suite(SUITE), **changed)
    assert str(done.value).startswith(said), done.value


# names a suite may hold: a collection's and a strata field's any text, a system's none of
# whitespace (the schema's) but a control character or a comma
HOSTILE_NAMES = ["a\nb", "x, y", "a\tb "]
SYSTEM_NAMES = ["a\x1bb", "x,y", "a\x7fb"]


def _items(listed: str) -> list[str]:
    """The names a message lists as escaped items (``a%0Ab, x%2C y``), given back."""
    from urllib.parse import unquote

    return [unquote(item) for item in listed.split(", ")]


@pytest.mark.parametrize("hostile", SYSTEM_NAMES)
def test_the_systems_a_collection_lacks_or_adds_are_listed_escaped(tmp_path, hostile):
    # the systems were joined as they are: an escape sequence of a name reached the
    # terminal, and a system "x,y" read as two; each is a list's item (%XX), unquote gives
    # it back (a suite made in Python may name a system with a line feed too)
    from trecbench.runstudy.suite import Collection, Suite, load_suite

    suite = tmp_path / "suite.toml"
    system = json.dumps(hostile)  # TOML's basic string as JSON writes it
    suite.write_text(
        f'systems = ["s", {system}, "t"]\n[collections.a]\nqrels = "q"\nruns = {{s = "s.run"}}\n'
    )
    cases = [(load_suite, suite, "suite.toml:2: collections.a: has no run of: ", hostile)]
    unlisted = tmp_path / "unlisted.toml"
    unlisted.write_text(
        '[collections.a]\nqrels = "q"\nruns = {s = "s.run"}\n[collections.b]\nqrels = "q"\n'
        f'runs = {{s = "s.run", {system} = "b.run", t = "t.run"}}\n'
    )
    cases.append((load_suite, unlisted, "the systems): ", hostile))
    made = [Collection("c", tmp_path / "q", {"s": tmp_path / "s.run"})]
    built = partial(Suite, Path("x"), "n", ["P@1"], ["s", f"{hostile}\n, z", "t"])
    cases.append((built, made, "suite: collection 'c' has no run of: ", f"{hostile}\n, z"))
    for make, given, said, named in cases:
        with pytest.raises(UsageError) as error:
            make(given)
        message = str(error.value)
        assert message.isprintable(), message
        assert _items(message.split(said)[1]) == [named, "t"]


@pytest.mark.parametrize("hostile", HOSTILE_NAMES)
def test_a_stratum_keeping_no_topic_names_its_field_and_systems_escaped(tmp_path, hostile):
    # "no topic kept by FIELD = 'v' has results of A, B" named the field and the systems
    # as they are: the field as the suite's key names it (quoted), each system an item
    # (the qrels judge t2, the stratum's topic, which no run holds)
    (tmp_path / "c.qrels").write_text("t1 0 d1 1\nt2 0 d1 1\n")
    for file in ("A.run", "B.run"):
        (tmp_path / file).write_text(f"t1 Q0 d1 1 2 {file[0]}\n")
    strata = {"fields": [hostile], "queries": {"t1": {hostile: "a"}, "t2": {hostile: "zz"}}}
    sidecar = {"format": "trecbench-sidecar", "version": 3, "strata": strata}
    (tmp_path / "s.json").write_text(json.dumps(sidecar))
    suite = tmp_path / "s.toml"
    key, system = json.dumps(hostile), json.dumps(SYSTEM_NAMES[0])
    suite.write_text(
        f'measures = ["P.1"]\nsystems = ["A", {system}]\n[collections.c]\nqrels = "c.qrels"\n'
        f'runs = {{A = "A.run", {system} = "B.run"}}\nstrata = "s.json"\n'
        f'where = {{ {key} = "zz" }}\n'
    )
    with pytest.raises(TrecbenchError) as error:
        leaderboard(suite)
    message = str(error.value)
    assert message.isprintable(), message
    kept = message.split("no topic kept by ")[1].split(" has results of ")[0]
    assert kept == f"{json.dumps(hostile)} = 'zz'"
    systems = message.split(" has results of ")[1].split(": nothing")[0]
    assert _items(systems) == ["A", SYSTEM_NAMES[0]]


def _hostile_suite(tmp_path, collection: str, first: str, second: str, more: str):
    """A suite of one collection named ``collection`` whose qrels judge t1 and t2: the
    system ``first`` has both topics (and the lines ``more``), ``second`` only t1."""
    (tmp_path / "c.qrels").write_text("t1 0 d1 1\nt2 0 d2 1\n")
    (tmp_path / "A.run").write_text("t1 Q0 d1 1 2 A\nt2 Q0 d2 1 2 A\n" + more)
    (tmp_path / "B.run").write_text("t1 Q0 d1 1 2 B\n")
    suite = tmp_path / "s.toml"
    name, a, b = (json.dumps(text) for text in (collection, first, second))
    suite.write_text(
        f'measures = ["P.1"]\nsystems = [{a}, {b}]\n[collections.{name}]\n'
        f'qrels = "c.qrels"\nruns = {{{a} = "A.run", {b} = "B.run"}}\n'
    )
    return suite


@pytest.mark.parametrize("hostile", HOSTILE_NAMES)
def test_a_system_lacking_topics_is_warned_of_by_escaped_names(tmp_path, hostile):
    # "collection C: S has no results for ..." named both as they are: a line feed of the
    # collection's name split the warning (which the board's JSON carries too)
    from urllib.parse import unquote

    suite = _hostile_suite(tmp_path, hostile, "A", SYSTEM_NAMES[0], "")
    (warning,) = leaderboard(suite).warnings
    assert warning.isprintable(), warning
    named = warning.removeprefix("collection ").split(" has no results")[0]
    collection, lacking = named.split(": ")
    assert (unquote(collection), unquote(lacking)) == (hostile, SYSTEM_NAMES[0])


@pytest.mark.parametrize("hostile", HOSTILE_NAMES)
def test_the_flag_warnings_name_the_collection_and_system_as_the_others_do(tmp_path, hostile):
    # score's warning of a system's topics the qrels lack named the collection and the
    # system as they are (FlagWarning's plain text), beside "collection C: S has no results
    # for ..." naming them escaped: one collection under two names in one command's output
    from urllib.parse import unquote

    suite = _hostile_suite(tmp_path, hostile, SYSTEM_NAMES[0], "B", "t9 Q0 d2 1 2 A\n")
    flagged, lacking = leaderboard(suite).warnings
    assert flagged.isprintable(), flagged
    collection, named, said = flagged.split(": ", 2)
    assert said == "1 run topic is not in the qrels (ignored, also with -c): t9"
    assert unquote(collection.removeprefix("collection ")) == hostile
    assert unquote(named) == SYSTEM_NAMES[0]
    assert lacking.startswith(f"{collection}: B has no results for 1 of its 2 topics (t2)")


def test_a_collection_name_with_a_comma_is_one_item_of_the_board_title(tmp_path, capsys):
    """The title listed 'topics: de 28, en 28, fr 28' for two collections, "de 28, en"
    and fr (helper-599): a listed name's comma is %2C, as cli-conventions.md has every
    list of names."""
    suite = _suite_of_both_languages(tmp_path, 'where = { language = "en" }')
    text = open(suite).read().replace("[collections.de]", '[collections."de 28, en"]')
    open(suite, "w").write(text.replace("[collections.en]", "[collections.fr]"))
    for output, percent in (("table", "%"), ("markdown", "%"), ("latex", "\\%"), ("html", "%")):
        assert run(["leaderboard", suite, "--format", output, "--quiet"]) == 0
        assert f"topics: de 28{percent}2C en 28, fr 28)" in capsys.readouterr().out
