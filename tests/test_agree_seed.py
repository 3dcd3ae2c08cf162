"""``agree --seed`` where nothing random is drawn: the t-test and Wilcoxon's compute their
p-values without resampling, and agree draws for nothing else, so a seed given with them
was taken and used for nothing. It is refused as ``score --seed`` is without --routing or
--html; with the resampling tests it is kept (tests/test_agree.py gives it)."""

from __future__ import annotations

import pytest
from conftest import ROOT

from trecbench.cli import run

DEMO = ROOT / "data" / "hpo-rtask"
RUNS = [str(DEMO / name) for name in ("lexical.run", "reranked.run", "vector.run")]


def _agree(*args: str) -> list[str]:
    return ["agree", str(DEMO / "hpo-rtask.qrels"), *RUNS, "-m", "P@5", *args]


@pytest.mark.parametrize("test", [None, "t", "wilcoxon"])
@pytest.mark.parametrize("seed", ["1", "0"])
def test_seed_with_a_test_that_draws_nothing_is_refused(test, seed, capsys):
    chosen = [] if test is None else ["--test", test]
    code = run(_agree(*chosen, "--seed", seed))
    out, err = capsys.readouterr()
    # score's exit code for its own --seed refused, one line, nothing on stdout
    assert run(["score", str(DEMO / "hpo-rtask.qrels"), RUNS[0], "--seed", seed]) == code == 1
    capsys.readouterr()
    assert out == ""
    assert err == (
        "trecbench: --seed seeds the resampling of --test bootstrap, randomization, tukey: "
        f"--test {test or 't'} draws nothing at random\n"
    )


@pytest.mark.parametrize("test", [None, "t", "wilcoxon"])
def test_samples_with_a_test_that_draws_nothing_is_refused(test, capsys):
    # taken and recorded in the report's settings for a test that resamples nothing
    chosen = [] if test is None else ["--test", test]
    assert run(_agree(*chosen, "--samples", "5", "--format", "json")) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err == (
        "trecbench: --samples counts the resamples of --test bootstrap, randomization, tukey: "
        f"--test {test or 't'} draws nothing at random\n"
    )
    assert run(_agree("--test", "bootstrap", "--samples", "40", "--format", "json")) == 0


@pytest.mark.parametrize(
    ("test", "recorded"),
    [("t", (None, None)), ("wilcoxon", (None, None)), ("randomization", (10_000, 0))],
)
def test_the_json_records_resamples_and_seed_only_of_a_test_that_draws(test, recorded, capsys):
    # the t-test's JSON said "samples": 10000, "seed": 0: the defaults, resampled with nothing
    import json

    assert run(_agree("--test", test, "--format", "json")) == 0
    settings = json.loads(capsys.readouterr().out)["settings"]
    assert (settings["samples"], settings["seed"]) == recorded


@pytest.mark.parametrize("test", ["t", "wilcoxon"])
@pytest.mark.parametrize(
    ("option", "does"), [("seed", "seeds the resampling"), ("samples", "counts the resamples")]
)
def test_the_library_refuses_seed_and_samples_with_a_test_that_draws_nothing(test, option, does):
    # trecbench.agree(..., test="t", seed=5) was taken (the command refused --seed so)
    import trecbench
    from trecbench.errors import UsageError

    with pytest.raises(UsageError) as error:
        trecbench.agree(DEMO / "hpo-rtask.qrels", RUNS, ["P@5"], test=test, **{option: 5})
    assert str(error.value) == (
        f"{option} {does} of test bootstrap, randomization, tukey: test {test} draws "
        "nothing at random"
    )
    drawn = trecbench.agree(DEMO / "hpo-rtask.qrels", RUNS, ["P@5"], test="t")
    assert (drawn.settings.samples, drawn.settings.seed) == (10_000, 0)  # the defaults
