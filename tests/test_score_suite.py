"""``trecbench score`` reproduces trec_eval 9.0.8's own test suite byte for byte, all 11
outputs, and what trec_eval 10.0 prints for the same commands (``--compat 10.0``).

The commands and expected outputs are those of trec_eval's ``test/`` folder (tag v9.0.8);
10.0's outputs, where they differ, are stored in tests/fixtures/trec_eval_suite_10 (by
tests/fixtures/make_trec_eval_random.py). ``-m official`` stands for trec_eval's bare
default (without ``-m`` trecbench computes the KPI preset instead).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from trecbench.cli import _register, cli
from trecbench.errors import FirstParametersWarning, TrecbenchError

SUITE = [
    ("out.test", "-m official qrels.test results.test"),
    ("out.test.a", "-m all_trec qrels.test results.test"),
    ("out.test.aq", "-m all_trec -q qrels.test results.test"),
    ("out.test.aqc", "-m all_trec -q -c qrels.test results.trunc"),
    ("out.test.aqcM", "-m all_trec -q -c -M100 qrels.test results.trunc"),
    ("out.test.aql", "-m all_trec -mrelstring.20 -q -l2 qrels.rel_level results.test"),
    (
        "out.test.meas_params",
        "-q -miprec_at_recall..10,.20,.25,.75,.50 -m P.5,7,3 -m recall.20,2000 "
        "-m Rprec_mult.5.0,0.2,0.35 -mutility.2,-1,0,0 -m 11pt_avg..25,.5,.75 "
        "-mndcg.1=3,2=9,4=4.5 -mndcg_cut.10,20,23.4 -msuccess.2,5,20 qrels.test results.test",
    ),
    ("out.test.prefs", "-m all_prefs -q -R prefs prefs.test prefs.results.test"),
    ("out.test.qrels_prefs", "-m all_prefs -q -R qrels_prefs qrels.test results.test"),
    ("out.test.qrels_jg", "-m qrels_jg -q -R qrels_jg qrels.123 results.test"),
    ("out.test.aqZ", "-q -m all_trec -Z zscores_file qrels.test results.test"),
]
SUITE_10 = Path(__file__).parent / "fixtures" / "trec_eval_suite_10"
MANIFEST_10 = json.loads((SUITE_10 / "suite.json").read_text())


def run_score(argv, cwd, monkeypatch, stdin: bytes | None = None):
    """``trecbench score`` in-process: (stdout bytes, stderr text, exit code as main sets it);
    ``stdin``: what standard input holds."""
    _register()
    monkeypatch.chdir(cwd)
    result = CliRunner().invoke(cli, ["score", *argv], input=stdin)
    if isinstance(result.exception, TrecbenchError):
        return result.stdout_bytes, str(result.exception), result.exception.exit_code
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.stdout_bytes, result.stderr, result.exit_code


# trec_eval's own suite asks ndcg_cut.10,20,23.4: read as 23, with the warning that says so
PARTLY_READ = "ignore:measure 'ndcg_cut.10,20,23.4'"


@pytest.mark.filterwarnings(PARTLY_READ)
@pytest.mark.parametrize(("expected", "command"), SUITE, ids=[s[0] for s in SUITE])
def test_suite_output_is_byte_identical(expected, command, trec_eval_suite, monkeypatch):
    stdout, _, code = run_score(command.split(), trec_eval_suite, monkeypatch)
    assert code == 0
    assert stdout == (trec_eval_suite / expected).read_bytes()


@pytest.mark.parametrize("flags", [["-o"], ["-T", "trec_results"], ["-o", "-Ttrec_results"]])
def test_trec_evals_flags_that_change_nothing_are_taken(flags, trec_eval_suite, monkeypatch):
    # -o (obsolete in 9.0.8: "no longer supported", it does nothing) and -T trec_results
    # (its one results format): "No such option" before, where trec_eval prints out.test.aq
    argv = [*flags, "-m", "all_trec", "-q", "qrels.test", "results.test"]
    stdout, _, code = run_score(argv, trec_eval_suite, monkeypatch)
    assert (code, stdout) == (0, (trec_eval_suite / "out.test.aq").read_bytes())


@pytest.mark.parametrize(
    ("flags", "expected"),
    [
        (["--Output_old_results_format", "-q", "-m", "all_trec"], "out.test.a"),
        (["--Output_old_results_format=x", "-m", "all_trec", "-q"], "out.test.aq"),
    ],
)
def test_trec_evals_long_o_takes_a_value(flags, expected, trec_eval_suite, monkeypatch):
    # trec_eval's getopt table gives --Output_old_results_format an argument (-o has none):
    # the next word is taken (here -q, so no topic is printed), '=x' accepted; trecbench
    # read it as a flag, printed each topic for the first, refused the second
    argv = [*flags, "qrels.test", "results.test"]
    stdout, _, code = run_score(argv, trec_eval_suite, monkeypatch)
    assert (code, stdout) == (0, (trec_eval_suite / expected).read_bytes())


@pytest.mark.filterwarnings(PARTLY_READ)
@pytest.mark.filterwarnings("ignore:rbp. trec_eval 10.0 rescales")  # test_trec_eval_fixtures
@pytest.mark.parametrize("expected", sorted(MANIFEST_10))
def test_suite_as_trec_eval_10_prints_it(expected, trec_eval_suite, monkeypatch):
    case = MANIFEST_10[expected]
    argv = case["argv"]
    if not any(flag.startswith("-m") for flag in argv):
        argv = ["-m", "official", *argv]
    stdout, _, code = run_score(["--compat", "10.0", *argv], trec_eval_suite, monkeypatch)
    where, name = case["10.0"]["stdout"].split(":")
    stored = (SUITE_10 if where == "fixture" else trec_eval_suite) / name
    assert (code, stdout) == (case["10.0"]["exit_code"], stored.read_bytes())


def test_first_parameter_list_wins(trec_eval_suite, monkeypatch):
    # trec_eval's gotcha: -m P.5 -m P.10 computes P_5 only (and bare P takes the params),
    # said in a warning (the CLI prints its cli_line, in -m options, as one line on stderr)
    with pytest.warns(FirstParametersWarning, match="'P.10' not computed") as said:
        stdout, _, _ = run_score(
            "-m P.5 -m P.10 -m P qrels.test results.test".split(), trec_eval_suite, monkeypatch
        )
    official, _, _ = run_score(
        "-m official qrels.test results.test".split(), trec_eval_suite, monkeypatch
    )
    p5 = [line for line in official.decode().splitlines() if line.startswith("P_5 ")]
    assert stdout.decode().splitlines() == p5
    told = [w.message for w in said if isinstance(w.message, FirstParametersWarning)]
    assert told[0].cli_line.startswith("-m P.10 not computed")


def test_nosummary_and_per_query_lines_match_the_suite(trec_eval_suite, monkeypatch):
    stdout, _, _ = run_score(
        "-m all_trec -q -n qrels.test results.test".split(), trec_eval_suite, monkeypatch
    )
    expected = [
        line
        for line in (trec_eval_suite / "out.test.aq").read_text().splitlines()
        if "\tall\t" not in line
    ]
    assert stdout.decode().splitlines() == expected


def test_mrr10_equals_recip_rank_with_M10(trec_eval_suite, monkeypatch):
    # MRR@10 (local) against trec_eval's recip_rank on the run cut at 10 (pytrec_eval)
    from trecbench import evaluate

    qrels, run = trec_eval_suite / "qrels.test", trec_eval_suite / "results.test"
    cut = evaluate(qrels, run, ["recip_rank"], max_docs=10).per_query
    local = evaluate(qrels, run, ["MRR@10"]).per_query
    assert local["qid"].tolist() == cut["qid"].tolist()
    assert local["value"].tolist() == cut["value"].tolist()
    uncut = evaluate(qrels, run, ["recip_rank"]).per_query
    assert (
        uncut["value"].tolist() != local["value"].tolist()
    )  # some topic finds its first hit below 10


def test_hitrate_equals_success_on_every_suite_query(trec_eval_suite):
    from trecbench import evaluate

    for qrels, run in [
        ("qrels.test", "results.test"),
        ("qrels.test", "results.trunc"),
        ("qrels.rel_level", "results.test"),
    ]:
        for k in (1, 5, 10, 20):
            # engine="pytrec_eval": the local HitRate against trec_eval's code (auto would
            # give both to the fast engine)
            result = evaluate(
                trec_eval_suite / qrels,
                trec_eval_suite / run,
                [f"HitRate@{k}", f"success.{k}"],
                engine="pytrec_eval",
            )
            assert [c.engine for c in result.columns] == ["local"]  # one meaning, first wins
            local = result.per_query["value"].tolist()
            reference = evaluate(
                trec_eval_suite / qrels,
                trec_eval_suite / run,
                [f"success.{k}"],
                engine="pytrec_eval",
            ).per_query["value"]
            assert local == reference.tolist()


def test_judged_only_on_suite_files(trec_eval_suite, monkeypatch):
    # expected: the real trec_eval 9.0.8 binary on the same command (run and qrels are
    # tokenized differently, so this also joins ids of different Arrow string types)
    stdout, _, code = run_score(
        "-q -J -m num_ret -m relstring.15 -m map qrels.test results.test".split(),
        trec_eval_suite,
        monkeypatch,
    )
    assert code == 0
    assert stdout.decode() == (
        "num_ret               \t301\t259\n"
        "map                   \t301\t0.0441\n"
        "relstring_15          \t301\t'000001100000010'\n"
        "num_ret               \t302\t264\n"
        "map                   \t302\t0.4245\n"
        "relstring_15          \t302\t'110111011011111'\n"
        "num_ret               \t303\t215\n"
        "map                   \t303\t0.0858\n"
        "relstring_15          \t303\t'000000000000000'\n"
        "num_ret               \tall\t738\n"
        "map                   \tall\t0.1848\n"
    )


def test_qrels_jg_judgment_groups_from_a_frame_equal_the_file(trec_eval_suite):
    """A qrels DataFrame's ``iteration`` is the judgment group of -R qrels_jg, as the
    file's second column is (it was dropped: the call ended in a KeyError); judgments
    without one are refused in a line."""
    import pandas as pd

    import trecbench

    frame = pd.read_csv(
        trec_eval_suite / "qrels.123",
        sep=" ",
        names=["query_id", "iteration", "doc_id", "relevance"],
        dtype={"query_id": str, "iteration": str, "doc_id": str},
    )
    run = trec_eval_suite / "results.test"
    measures = ["map_avgjg", "P_avgjg.5,10", "Rprec_mult_avgjg"]

    def values(qrels):
        return trecbench.evaluate(qrels, run, measures, rel_format="qrels_jg").to_dict()

    by_file = values(trec_eval_suite / "qrels.123")
    assert values(frame) == by_file and len(by_file) > 1
    with pytest.raises(trecbench.errors.UsageError, match="need a judgment group"):
        values(frame.drop(columns="iteration"))
