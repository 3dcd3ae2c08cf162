"""Too few resamples for a statistic at its level are refused, never printed as a result
(trecbench/resampling_bounds.py; docs/compare.md, "Too few resamples").

The bounds, hand-worked from their definitions: a percentile interval at level 1 - alpha
takes the B*alpha/2-th ordered resample as its lower end (Efron & Tibshirani 1993, §13.3),
which exists from B = 2/alpha: 40 at 95%, 20 at 90%, 200 at 99%, 67 at 97% (66.67 rounded
up). A resampled p-value is at least 1/(B + 1) and significant when below alpha: 1/21 <
0.05 <= 1/20, so B >= 20 at alpha = 0.05, 100 at 0.01, 33 at 0.03 (1/34 < 0.03 <= 1/33).
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from conftest import ROOT

import trecbench
from trecbench import resampling, stats
from trecbench.cli import run
from trecbench.comparison import StatsSettings
from trecbench.conclusions.discrimination import DiscriminationSettings
from trecbench.errors import ExitCode, TooFewSamplesError, UsageError
from trecbench.routing import parse_routing_log, routing_metrics

QRELS = str(ROOT / "qrels" / "hpo-demo.qrels")
RUNS = [str(ROOT / "runs" / "tfidf-char.run"), str(ROOT / "runs" / "tfidf-word.run")]
INTERVAL = [(0.95, 40), (0.9, 20), (0.99, 200), (0.97, 67)]
TEST = [(0.05, 20), (0.01, 100), (0.03, 33), (0.1, 10)]


@pytest.mark.parametrize(("confidence", "fewest"), INTERVAL)
@pytest.mark.parametrize("test", ["t", "bootstrap", "randomization", "wilcoxon", "tukey"])
def test_stats_settings_take_the_interval_bound_and_refuse_one_below(confidence, fewest, test):
    assert StatsSettings(test, samples=fewest, confidence=confidence).samples == fewest
    with pytest.raises(TooFewSamplesError, match=f"{fewest - 1:,} resamples are too few.*"):
        StatsSettings(test, samples=fewest - 1, confidence=confidence)


def test_the_refusal_is_a_usage_error_and_the_defaults_stand():
    assert issubclass(TooFewSamplesError, UsageError)
    assert StatsSettings().samples == DiscriminationSettings().samples == 10_000
    with pytest.raises(UsageError, match="samples must be a positive integer, not 1.5"):
        StatsSettings(samples=1.5)


@pytest.mark.parametrize(("alpha", "fewest"), TEST)
@pytest.mark.parametrize("test", ["bootstrap", "randomization", "tukey"])
def test_resampling_tests_of_agree_take_the_p_value_bound(alpha, fewest, test):
    assert DiscriminationSettings(alpha, test, samples=fewest).samples == fewest
    with pytest.raises(TooFewSamplesError, match="can fall below alpha"):
        DiscriminationSettings(alpha, test, samples=fewest - 1)


def test_a_p_value_bound_beyond_the_most_resamples_is_said_out_of_reach():
    # 1/alpha = 10**12 resamples, beyond the 2**32 --samples takes; 1/alpha = 10**9 is not
    with pytest.raises(TooFewSamplesError) as refused:
        DiscriminationSettings(1e-12, "randomization", samples=2**32)
    assert str(refused.value).endswith(
        "only with 1,000,000,000,000 or more, more than the 2**32 at most drawn: no number of "
        "resamples reaches this alpha"
    )
    with pytest.raises(TooFewSamplesError) as refused:
        DiscriminationSettings(1e-9, "randomization", samples=10**9 - 1)
    assert str(refused.value).endswith("only with 1,000,000,000 or more")


@pytest.mark.parametrize("test", ["t", "wilcoxon"])
def test_tests_that_do_not_resample_take_any_count(test):
    assert DiscriminationSettings(0.05, test, samples=1).samples == 1


def test_compare_api_refuses_one_below_the_bound():
    assert len(trecbench.compare(QRELS, RUNS, ["P@5"], samples=40).comparisons) == 1
    with pytest.raises(TooFewSamplesError, match="95% percentile interval.*40 or more"):
        trecbench.compare(QRELS, RUNS, ["P@5"], samples=39)


def test_agree_api_refuses_one_below_the_bound():
    agreement = trecbench.agree(QRELS, RUNS, "P@5", test="randomization", samples=20)
    assert agreement.settings.samples == 20
    with pytest.raises(TooFewSamplesError, match="20 or more"):
        trecbench.agree(QRELS, RUNS, "P@5", test="randomization", samples=19)


def test_intervals_and_routing_refuse_too_few_too():
    values = np.arange(10.0)
    assert np.isfinite(stats.bootstrap_ci(values, samples=20, confidence=0.9)[1]).all()
    with pytest.raises(TooFewSamplesError):
        stats.bootstrap_ci(values, samples=19, confidence=0.9)
    log = parse_routing_log(
        '{"qid": "q1", "chosen_expert": "a", "optimal_expert": "b", '
        '"retrieval_ran": true, "should_retrieve": false}\n'
    )
    assert routing_metrics(log, samples=40)["settings"]["samples"] == 40
    with pytest.raises(TooFewSamplesError):
        routing_metrics(log, samples=39)


def _call(capsys, *args) -> tuple[int, str, str]:
    code = run([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(
    ("command", "options", "fewest"),
    [
        ("compare", ["-m", "P@5"], 40),
        ("compare", ["-m", "P@5", "--confidence", "0.9"], 20),
        ("agree", ["-m", "P@5", "--test", "bootstrap"], 20),
        ("agree", ["-m", "P@5", "--test", "tukey", "--alpha", "0.01"], 100),
    ],
)
def test_cli_refuses_one_below_the_bound_in_one_usage_line(capsys, command, options, fewest):
    code, out, err = _call(capsys, command, QRELS, *RUNS, *options, "--samples", fewest)
    assert code == ExitCode.OK and out, err
    code, out, err = _call(capsys, command, QRELS, *RUNS, *options, "--samples", fewest - 1)
    assert (code, out) == (ExitCode.USAGE, "")
    assert err.startswith(
        f"trecbench: {command}: Invalid value for '--samples': {fewest - 1} resamples are "
        "too few for "
    )
    assert err.endswith(f"{fewest:,} or more (see 'trecbench {command} --help')\n")
    assert err.count("\n") == 1


def test_a_benchmark_configuration_with_too_few_is_refused_naming_the_file(tmp_path):
    from trecbench.benchmarking import load_benchmark_config

    config = tmp_path / "benchmark.toml"
    text = (ROOT / "data" / "hpo-rtask" / "benchmark.toml").read_text()
    assert "samples = 10000" in text
    config.write_text(text.replace("samples = 10000", "samples = 40"))
    assert load_benchmark_config(config).statistics.samples == 40
    config.write_text(text.replace("samples = 10000", "samples = 39"))
    line = text.split("\n").index("samples = 10000") + 1  # the key's line, not its table's
    with pytest.raises(
        TooFewSamplesError,
        match=f"^{config}:{line}: statistics.samples: 39 resamples",
    ):
        load_benchmark_config(config)


@pytest.mark.parametrize(("alpha", "fewest"), TEST)
def test_the_p_value_bound_is_where_scipys_randomised_test_first_gets_below_alpha(alpha, fewest):
    """scipy.stats.permutation_test, randomised (2^30 sign patterns, fewer resamples),
    counts the observed statistic as one resample: its smallest p is 1/(B + 1), below
    alpha from the bound on and not one below it."""
    from scipy.stats import permutation_test

    from trecbench.resampling_bounds import p_value_samples

    assert p_value_samples(alpha) == fewest
    diffs = np.linspace(1.0, 2.0, 30)  # every flip makes the mean smaller: p is the floor
    for samples in (fewest - 1, fewest):
        p = permutation_test(
            (diffs,),
            np.mean,
            permutation_type="samples",
            n_resamples=samples,
            alternative="greater",
        ).pvalue  # no seed: only the draw of no flip at all (odds 2^-30) would change it
        assert p == pytest.approx(1 / (samples + 1))
        assert (p < alpha) == (samples >= fewest)


@pytest.mark.parametrize(
    ("command", "options", "said"),
    [
        # compare's level is refused as a value out of --confidence's range
        ("compare", ["-m", "P@5", "--confidence", "0.9999999999999"], "is not in the range"),
        # the level given, not its rounding to 12 places (0.0)
        (
            "agree",
            ["-m", "P@5", "--test", "bootstrap", "--alpha", "0.0000000000001"],
            "alpha = 1e-13 is 0 at 12 decimal places: no number of resamples reaches it",
        ),
        # the level as given, in full: 5e-324 was quoted 4.94e-324 (3 digits of the double)
        (
            "agree",
            ["-m", "P@5", "--test", "t", "--alpha", "5e-324"],
            "alpha = 5e-324 is 0 at the 12 decimal places",
        ),
        # a test that draws no resample: no word of resamples (it said none would do)
        (
            "agree",
            ["-m", "P@5", "--test", "t", "--alpha", "0.0000000000001"],
            "alpha = 1e-13 is 0 at the 12 decimal places alpha is kept to (alpha, or 1 -",
        ),
    ],
)
def test_a_level_that_rounds_to_zero_is_refused_in_one_line(capsys, command, options, said):
    # it divided 2/alpha by zero: an internal error (exit 70)
    code, out, err = _call(capsys, command, QRELS, *RUNS, *options)
    assert (code, out) == (ExitCode.USAGE, "")
    assert said in err
    assert err.count("\n") == 1


def test_bootstrap_ci_refuses_before_it_draws(monkeypatch):
    def drawn(*args, **kwargs):
        raise AssertionError("resamples drawn before the count was checked")

    monkeypatch.setattr(resampling, "bootstrap_means", drawn)  # where bootstrap_ci calls it
    with pytest.raises(TooFewSamplesError):
        stats.bootstrap_ci(np.arange(5.0), samples=39)


def test_samples_beyond_2_to_the_32_are_refused_before_any_work(tmp_path, capsys):
    # 10**400 resamples were an internal OverflowError (numpy's counts), after the runs
    # were scored, from compare --samples, a configuration and the library alike
    from trecbench.benchmarking import load_benchmark_config

    assert StatsSettings(samples=2**32).samples == 2**32
    for samples, shown in ((2**32 + 1, "4,294,967,297"), (10**400, "a number of 401 digits")):
        said = "samples must be at most 2**32 = 4,294,967,296 (every sign pattern of 32 "
        said += f"topics), not {shown}"
        with pytest.raises(UsageError, match="^" + re.escape(said) + "$"):
            StatsSettings(samples=samples)
        with pytest.raises(UsageError, match="^" + re.escape(said) + "$"):
            DiscriminationSettings(samples=samples)
    demo = ROOT / "data" / "hpo-rtask"
    runs = [str(demo / "lexical.run"), str(demo / "vector.run")]
    argv = ["compare", str(demo / "hpo-rtask.qrels"), *runs, "--samples", str(10**40)]
    assert run(argv) == 1
    assert "is not in the range 1<=x<=4294967296" in capsys.readouterr().err
    config = tmp_path / "b.toml"
    config.write_text(
        'qrels = "q"\n[modes.a]\nrun = "a.run"\n[statistics]\nsamples = 99999999999\n'
    )
    with pytest.raises(
        UsageError, match=r"b\.toml:5: statistics\.samples: .* the maximum of 4294967296"
    ):
        load_benchmark_config(config)
