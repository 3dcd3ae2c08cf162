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


def test_benchmark_refuses_two_spellings_as_its_settings_are_made(tmp_path, capsys, unread):
    from trecbench.benchmarking import BenchmarkSettings, Mode

    config = tmp_path / "c.toml"
    config.write_text(
        'qrels = "q.qrels"\nmeasures = ["ndcg_cut.10", "nDCG@10"]\n'
        '[modes.a]\nrun = "a.run"\n[modes.b]\nrun = "b.run"\n'
    )
    (tmp_path / "q.qrels").write_text("t1 0 A 1\n")
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
