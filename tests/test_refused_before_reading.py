"""What the options and settings alone refuse is refused before any run is read: a run
that cannot be read (its first line no run's) would be refused first, in its own words,
were it read, and a run of millions of lines was scored before the option was found wrong."""

from __future__ import annotations

import pytest
from conftest import ROOT

import trecbench
from trecbench.cli import run
from trecbench.errors import UsageError

QRELS = str(ROOT / "qrels" / "hpo-demo.qrels")
SPELT_TWICE = (
    "ndcg_cut.10 and nDCG@10 are one measure (nDCG@10): {} shows and tests each measure "
    "once, by that name; ask it by one spelling"
)


@pytest.fixture
def unread(tmp_path):
    """Two run files no reader takes (reading either is an error at its first line)."""
    paths = [tmp_path / "a.run", tmp_path / "b.run"]
    for path in paths:
        path.write_text("not a run\n")
    return [str(path) for path in paths]


def test_compare_refuses_two_spellings_before_reading_a_run(capsys, unread):
    asked = ["-m", "ndcg_cut.10", "-m", "nDCG@10"]
    assert run(["compare", *asked, QRELS, *unread]) == 1
    assert capsys.readouterr() == ("", f"trecbench: {SPELT_TWICE.format('compare')}\n")
    with pytest.raises(UsageError) as refused:
        trecbench.compare(QRELS, unread, ["ndcg_cut.10", "nDCG@10"])
    assert str(refused.value) == SPELT_TWICE.format("compare")


def _two_run_benchmark(folder, settings: str):
    """A benchmark configuration with ``settings`` (its line 2 on) over a one-line qrels
    and the two runs ``unread`` writes (a.run and b.run, beside it)."""
    config = folder / "c.toml"
    config.write_text(
        f'qrels = "q.qrels"\n{settings}[modes.a]\nrun = "a.run"\n[modes.b]\nrun = "b.run"\n'
    )
    (folder / "q.qrels").write_text("t1 0 A 1\n")
    return config


def test_benchmark_refuses_two_spellings_as_its_settings_are_made(tmp_path, capsys, unread):
    from trecbench.benchmarking import BenchmarkSettings, Mode

    config = _two_run_benchmark(tmp_path, 'measures = ["ndcg_cut.10", "nDCG@10"]\n')
    out = tmp_path / "out"
    assert run(["benchmark", str(config), "-o", str(out), "--quiet"]) == 1
    said = f"trecbench: {config}:2: measures: {SPELT_TWICE.format('benchmark')}\n"
    assert capsys.readouterr() == ("", said)
    assert not out.exists()
    modes = [Mode(n, n, run=tmp_path / f"{n}.run") for n in "ab"]
    with pytest.raises(UsageError, match="ndcg_cut.10 and nDCG@10 are one measure"):
        BenchmarkSettings(
            config, "b", tmp_path / "q.qrels", modes, measures=["ndcg_cut.10", "nDCG@10"]
        )


def test_leaderboard_refuses_two_spellings_as_its_suite_is_read(tmp_path, capsys, unread):
    from trecbench.runstudy.suite import load_suite

    suite = tmp_path / "suite.toml"
    suite.write_text(
        'name = "s"\nmeasures = ["ndcg_cut.10", "nDCG@10"]\nsystems = ["a", "b"]\n'
        f'[collections.one]\nqrels = "{QRELS}"\nruns = "{{system}}.run"\n'
    )
    assert run(["leaderboard", str(suite)]) == 1
    said = f"trecbench: {suite}:2: measures: {SPELT_TWICE.format('leaderboard')}\n"
    assert capsys.readouterr() == ("", said)
    with pytest.raises(UsageError) as refused:
        load_suite(suite)
    assert str(refused.value) == said.removeprefix("trecbench: ").removesuffix("\n")


def _suite(folder, *collections: str) -> str:
    """A suite ranking systems a and b on ``collections`` (each a TOML table's body, named
    one, two...), of the demo's qrels unless a body names its own."""
    names = ["one", "two", "three"]
    text = 'name = "s"\nmeasures = ["P@5"]\nsystems = ["a", "b"]\n'
    for name, body in zip(names, collections, strict=False):
        text += f'[collections.{name}]\nqrels = "{QRELS}"\n{body}'
    path = folder / "suite.toml"
    path.write_text(text)
    return str(path)


SIDECAR = ROOT / "qrels" / "hpo-demo.sidecar.json"
UNREAD_RUNS = 'runs = { a = "a.run", b = "b.run" }\n'


@pytest.mark.parametrize(
    ("where", "said"),
    [
        ('{ lang = "en" }', "8: collections.one.where.lang: no strata field 'lang' in {}"),
        # the strata's topic column is no field of theirs to pick a stratum by
        ('{ qid = "en-01" }', "8: collections.one.where.qid: no strata field 'qid' in {}"),
        (  # no topic of the stratum is the qrels': said of the qrels, the runs being unread
            '{ language = "fr" }',
            "8: collections.one.where: the qrels {qrels} judge none of the topics kept by "
            "language = 'fr': nothing to average",
        ),
    ],
)
def test_leaderboard_refuses_a_stratum_before_reading_a_run(tmp_path, capsys, unread, where, said):
    body = f'{UNREAD_RUNS}strata = "{SIDECAR}"\nwhere = {where}\n'
    suite = _suite(tmp_path, body)
    assert run(["leaderboard", suite]) == 2
    said = said.format(SIDECAR, qrels=QRELS)
    assert capsys.readouterr() == ("", f"trecbench: {suite}:{said}\n")


def test_leaderboard_refuses_one_collection_given_twice_before_reading_a_run(
    tmp_path, capsys, unread
):
    suite = _suite(tmp_path, UNREAD_RUNS, UNREAD_RUNS)
    assert run(["leaderboard", suite]) == 2
    assert capsys.readouterr() == (
        "",
        f"trecbench: {suite}:7: collections.two: collections one and two are one collection "
        f"(the qrels {QRELS}, the same runs): each topic would count twice; drop one, or "
        "give them disjoint strata\n",
    )


def test_leaderboard_refuses_a_shared_topic_before_reading_the_next_collection(
    tmp_path, capsys, unread
):
    # one and two share every topic (one qrels, copies of the runs): refused once two is
    # scored, not once every collection is (three's runs were read first)
    demo = ROOT / "runs"
    for name, source in (("c", "tfidf-char"), ("d", "tfidf-word"), ("e", "tfidf-char")):
        (tmp_path / f"{name}.run").write_bytes((demo / f"{source}.run").read_bytes())
    first, second = 'runs = { a = "c.run", b = "d.run" }\n', 'runs = { a = "e.run", b = "d.run" }\n'
    suite = _suite(tmp_path, first, second, UNREAD_RUNS)
    assert run(["leaderboard", suite]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith(
        f"trecbench: {suite}:7: collections.two: collections one and two share the topic "
    )


@pytest.mark.parametrize(
    ("options", "said"),
    [
        (["--baseline", "c"], "baseline 'c' is not one of the runs: a, b"),
        (["--group-by", "language"], "--group-by language needs --strata (or use qid-prefix)"),
        (
            ["--group-by", "lang", "--strata", str(SIDECAR)],
            "unknown stratum 'lang'; available: language, difficulty, category, hpo_domain, "
            "qid-prefix",
        ),
    ],
)
def test_compare_refuses_a_baseline_or_stratum_before_reading_a_run(capsys, unread, options, said):
    assert run(["compare", *options, QRELS, *unread]) == 1
    assert capsys.readouterr() == ("", f"trecbench: {said}\n")


def test_the_compare_api_refuses_a_baseline_or_stratum_before_reading_a_run(unread):
    with pytest.raises(UsageError, match="^baseline 'c' is not one of the runs: a, b$"):
        trecbench.compare(QRELS, unread, baseline="c")
    with pytest.raises(UsageError, match=r"^group_by='lang' needs strata \(or use qid-prefix\)$"):
        trecbench.compare(QRELS, unread, group_by="lang")
    with pytest.raises(UsageError, match="^unknown stratum 'lang'; available: language"):
        trecbench.compare(QRELS, unread, strata=SIDECAR, group_by=["qid-prefix", "lang"])


@pytest.mark.parametrize(
    ("options", "said"),
    [
        (["--group-by", "language"], "--group-by language needs --strata (or use qid-prefix)"),
        (
            ["--group-by", "qid-prefix", "--group-by", "lang", "--strata", str(SIDECAR)],
            "unknown stratum 'lang'; available: language, difficulty, category, hpo_domain, "
            "qid-prefix",
        ),
    ],
)
def test_score_refuses_a_stratum_before_reading_a_run(capsys, unread, options, said):
    assert run(["score", *options, QRELS, *unread]) == 1
    assert capsys.readouterr() == ("", f"trecbench: {said}\n")


@pytest.mark.parametrize(
    ("options", "said"),
    [
        (["--norm", "min-max"], "rrf fuses ranks: a score normalisation (min-max) does not apply"),
        (["-w", "1", "-w", "2", "-w", "3"], "3 weights for 2 runs: give one per run"),
        (["-w", "0", "-w", "0"], "the weights are all 0: every fused score would be 0"),
    ],
)
def test_fuse_refuses_its_settings_before_reading_a_run(tmp_path, capsys, unread, options, said):
    assert run(["fuse", *options, *unread, "-o", str(tmp_path / "f.run")]) == 1
    assert capsys.readouterr() == ("", f"trecbench: {said}\n")
    assert not (tmp_path / "f.run").exists()


def test_benchmark_refuses_a_stratum_before_reading_a_run(tmp_path, capsys, unread):
    config = tmp_path / "c.toml"
    config.write_text(
        f'qrels = "{QRELS}"\nstrata = {{ sidecar = "{SIDECAR}", group_by = "lang" }}\n'
        '[modes.a]\nrun = "a.run"\n[modes.b]\nrun = "b.run"\n'
    )
    out = tmp_path / "out"
    assert run(["benchmark", str(config), "-o", str(out), "--quiet"]) == 1
    assert capsys.readouterr() == (
        "",
        f"trecbench: {config}:2: strata.group_by: unknown stratum 'lang'; available: language, "
        "difficulty, category, hpo_domain, qid-prefix\n",
    )
    assert not out.exists()


def test_compare_refuses_a_run_named_only_by_names_that_is_no_file_before_reading(
    tmp_path, capsys, unread
):
    # a run --names alone gives was read in its turn: after every run listed before it
    missing = tmp_path / "c.run"
    assert run(["compare", "--names", f"c={missing}", QRELS, *unread]) == 2
    assert capsys.readouterr() == ("", f"trecbench: {missing}: cannot read: No such file\n")


def test_agree_refuses_a_second_qrels_it_cannot_read_before_reading_a_run(tmp_path, unread):
    # the command line checks the path as it parses; the Python API loaded the runs first
    missing = str(tmp_path / "missing.qrels")
    with pytest.raises(trecbench.InputError, match=f"^{missing}: no such file"):
        trecbench.agree(QRELS, unread, "P@5", qrels_b=missing)


def test_score_refuses_a_bad_routing_log_before_reading_a_run(tmp_path, capsys, unread):
    log = tmp_path / "routing.jsonl"
    log.write_text('{"qid": 1}\n')
    assert run(["score", QRELS, unread[0], "--routing", str(log)]) == 2
    said = f"trecbench: {log}:1: qid must be a non-empty string, not 1\n"
    assert capsys.readouterr() == ("", said)


def test_benchmark_refuses_a_bad_routing_log_before_reading_a_run(tmp_path, capsys, unread):
    config = _two_run_benchmark(tmp_path, 'measures = ["P@5"]\nrouting = "routing.jsonl"\n')
    (tmp_path / "routing.jsonl").write_text('{"qid": 1}\n')
    out = tmp_path / "out"
    assert run(["benchmark", str(config), "-o", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "routing.jsonl:1: qid must be a non-empty string, not 1" in err, err
    assert err.count("\n") == 1 and not out.exists()
