"""compare's --confidence: a refusal prints the level as given (0.93: 93%, not
92.99999999999999%), and a level below 1e-12, which makes alpha = 1 - confidence 1 (or
1 - 1e-12) at the 12 decimal places alpha is kept to, every p-value below 1 significant
and was printed as a 300-digit percentage, is refused in one line."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from conftest import ROOT

from trecbench import resampling
from trecbench.cli import run
from trecbench.comparison import StatsSettings
from trecbench.errors import ExitCode, TooFewSamplesError, UsageError

QRELS = str(ROOT / "qrels" / "hpo-demo.qrels")
RUNS = [str(ROOT / "runs" / "tfidf-char.run"), str(ROOT / "runs" / "tfidf-word.run")]


def _call(capsys, *args) -> tuple[int, str, str]:
    code = run([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_refusal_prints_the_level_as_given(capsys):
    # 2/alpha resamples with alpha = 1 - 0.93 = 7/100 taken as the decimal it is: 28.57...
    fewest = math.ceil(2 / (1 - Fraction("0.93")))
    assert fewest == 29
    argv = ["compare", QRELS, *RUNS, "-m", "P@5", "--confidence", "0.93"]
    code, out, err = _call(capsys, *argv, "--samples", fewest - 1)
    assert (code, out) == (ExitCode.USAGE, "")
    assert "28 resamples are too few for a 93% percentile interval (alpha = 0.07)" in err
    assert err.count("\n") == 1
    code, out, err = _call(capsys, *argv, "--samples", fewest)
    assert code == ExitCode.OK and "93% confidence interval" in out, err
    with pytest.raises(TooFewSamplesError, match=r"too few for a 93% percentile"):
        StatsSettings(samples=28, confidence=0.93)
    with pytest.raises(TooFewSamplesError, match=r"too few for a 93% percentile"):
        resampling.refuse_interval(28, 0.93)
    # an alpha of more than six digits as it is (it said "alpha = 0.0123457")
    with pytest.raises(TooFewSamplesError, match=r"interval \(alpha = 0\.012345679\):"):
        StatsSettings(samples=100, confidence=0.987654321)


@pytest.mark.parametrize(
    ("confidence", "said"),
    [
        ("1e-300", "every p-value below 1 significant"),
        ("5e-324", "every p-value below 1 significant"),
        ("9e-13", "every p-value below 1 significant"),
        # the other end was refused by the resamples' check, naming no option
        ("0.9999999999996", "would be 0.0, no resampling reaching it"),
    ],
)
def test_a_level_beyond_12_places_is_refused_in_one_line_at_either_end(capsys, confidence, said):
    # alpha, kept to 12 places (StatsSettings.alpha): within 1e-12 of 1, with which every
    # p-value below 1 would be significant, or 0, which no count of resamples reaches
    alpha = round(1 - float(confidence), 12)
    assert alpha >= 1 - 1e-12 or alpha == 0
    argv = ["compare", QRELS, *RUNS, "-m", "P@5", "--confidence", confidence]
    code, out, err = _call(capsys, *argv)
    assert (code, out) == (ExitCode.USAGE, "")
    assert err.startswith(
        f"trecbench: compare: Invalid value for '--confidence': {confidence} is not in the "
        "range 1e-12<=x<=0.999999999999."
    )
    assert err.count("\n") == 1 and "Traceback" not in err
    with pytest.raises(
        UsageError, match=f"^confidence must be between 1e-12 and 1 - 1e-12, .*{said}$"
    ):
        StatsSettings(confidence=float(confidence))


def test_the_levels_at_the_ends_are_taken():
    assert StatsSettings(confidence=1e-12, samples=40).alpha == 0.999999999999
    # 2/alpha resamples for an interval, at most 2**32 drawn: 1 - 1e-9 is reached
    assert StatsSettings(confidence=1 - 1e-9, samples=2 * 10**9).alpha == 1e-9


def test_a_level_no_number_of_resamples_reaches_is_refused_as_out_of_reach():
    # the interval at 1 - 1e-12 needs 2e12 resamples, beyond the 2**32 --samples takes:
    # the refusal asked for a count that --samples refuses in turn
    with pytest.raises(TooFewSamplesError) as refused:
        StatsSettings(confidence=1 - 1e-12, samples=2**32)
    assert str(refused.value).endswith(
        "so it needs 2/alpha = 2,000,000,000,000 or more, more than the 2**32 at most drawn: "
        "no number of resamples reaches this alpha"
    )
    with pytest.raises(TooFewSamplesError) as refused:  # one below the bound: no such words
        StatsSettings(confidence=1 - 1e-9, samples=2 * 10**9 - 1)
    assert str(refused.value).endswith("so it needs 2/alpha = 2,000,000,000 or more")


def test_a_level_out_of_the_topics_reach_is_printed_as_set():
    # "cannot reach p < 0.0123457" for alpha 0.012345679; the correction's "none can fall
    # below alpha = 0.0123457" alike
    from trecbench.statistical_tests import out_of_reach

    alpha = StatsSettings(confidence=0.987654321, samples=1000).alpha
    assert "cannot reach p < 0.012345679: its smallest p" in out_of_reach("t", 5, alpha, 1000)
    corrected = out_of_reach("bootstrap", 20, alpha, 100, correction="bonferroni", family=6)
    assert "none can fall below alpha = 0.012345679." in corrected
