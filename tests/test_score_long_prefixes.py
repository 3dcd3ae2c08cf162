"""score reads trec_eval's long options abbreviated as trec_eval's getopt_long does
(``--query`` for ``--query_eval_wanted``); a prefix trecbench's own options make
ambiguous is a usage error naming them, not a guess nor click's 'Did you mean --quiet'."""

from __future__ import annotations

import pytest

from trecbench.cli import run as cli_run

QRELS = "q1 0 d1 1\nq1 0 d2 0\nq1 0 d3 1\nq2 0 d4 1\n"
RUN = "q1 Q0 d1 1 0.9 t\nq1 Q0 d2 2 0.8 t\nq1 Q0 d3 3 0.7 t\nq2 Q0 d5 1 1.0 t\nq2 Q0 d4 2 0.5 t\n"
# trec_eval 9.0.8's and 10.0's output of
# --query --meas=P.2 --Judged --Num=10 -m utility.0,0,0,1 --Output_old_results_format --q --nos
# (the --q after --Output_old_results_format is its value, no option)
EXPECTED = (
    "P_2                   \tq1\t0.5000\n"
    "utility_0,0,0,1       \tq1\t7.0000\n"
    "P_2                   \tq2\t0.5000\n"
    "utility_0,0,0,1       \tq2\t9.0000\n"
)


@pytest.fixture
def files(tmp_path):
    (tmp_path / "qrels").write_text(QRELS)
    (tmp_path / "run").write_text(RUN)
    return [str(tmp_path / "qrels"), str(tmp_path / "run")]


@pytest.mark.parametrize("compat", [[], ["--compat", "10.0"]])
def test_abbreviated_trec_eval_options_read_as_trec_eval_reads_them(files, compat, capsys):
    args = ["--query", "--meas=P.2", "--Judged", "--Num=10", "-m", "utility.0,0,0,1"]
    args += ["--Output_old_results_format", "--q", "--nos"]
    assert cli_run(["score", *compat, *args, *files]) == 0
    assert capsys.readouterr().out == EXPECTED


@pytest.mark.parametrize(
    ("prefix", "named"),
    [
        ("--q", "(--query_eval_wanted, --quiet)"),
        ("--comp", "(--compat, --complete_rel_info_wanted)"),
    ],
)
def test_a_prefix_trecbench_options_make_ambiguous_is_refused_naming_them(
    files, prefix, named, capsys
):
    assert cli_run(["score", prefix, "-m", "P.2", *files]) == 1
    err = capsys.readouterr().err
    assert err == (
        f"trecbench: score: option '{prefix}' is ambiguous {named}: write it in full "
        "(see 'trecbench score --help')\n"
    )


def test_words_after_double_dash_are_not_options(files, capsys):
    assert cli_run(["score", "-m", "P.2", "--", files[0], "--query"]) == 2
    assert capsys.readouterr().err == "trecbench: --query: cannot read: No such file\n"


@pytest.mark.parametrize("cluster", ["-m", "-qm", "-qcm"])
def test_the_value_of_short_options_run_together_is_not_expanded(files, cluster, capsys):
    """Reviewer r79: in ``-qm --nos`` the ``--nos`` is -m's value, as click and trec_eval's
    getopt read it; it was expanded to ``--nosummary`` (-m took the option '--nosummary')."""
    assert cli_run(["score", cluster, "--nos", *files]) == 1
    assert capsys.readouterr().err == (
        "trecbench: illegal measure '--nos': not a measure name; `trecbench measures` lists "
        "them all\n"
    )


@pytest.mark.parametrize("prefix", ["--he", "--hel"])
def test_help_abbreviated_as_trec_eval_abbreviates_it(files, prefix, capsys):
    """trec_eval takes --he and --hel as --help; score said "No such option" (reviewer
    691). --h stays ambiguous here (--html): refused, naming the options."""
    assert cli_run(["score", prefix, *files]) == 0
    assert capsys.readouterr().out.startswith("Usage: trecbench score [OPTIONS] QRELS RUNS...")
    assert cli_run(["score", "--h", *files]) == 1
    assert "option '--h' is ambiguous (--help, --html, --html-depth)" in capsys.readouterr().err
