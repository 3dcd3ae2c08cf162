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


@pytest.mark.parametrize("confidence", ["1e-300", "5e-324", "9e-13"])
def test_a_level_that_makes_alpha_1_is_refused_in_one_line(capsys, confidence):
    # alpha, kept to 12 places (StatsSettings.alpha): 1, or 1 - 1e-12 (9e-13), with which
    # every p-value below 1 would be significant; 1e-12 is the smallest alpha kept too
    assert round(1 - float(confidence), 12) >= 1 - 1e-12
    argv = ["compare", QRELS, *RUNS, "-m", "P@5", "--confidence", confidence]
    code, out, err = _call(capsys, *argv)
    assert (code, out) == (ExitCode.USAGE, "")
    assert err.startswith("trecbench: compare: Invalid value for '--confidence': ")
    assert err.count("\n") == 1 and "Traceback" not in err
    with pytest.raises(UsageError, match="every p-value below 1 significant"):
        StatsSettings(confidence=float(confidence))
    # the smallest level kept: alpha 1 - 1e-12, below 1
    assert 0 < StatsSettings(confidence=1e-12, samples=40).alpha < 1
