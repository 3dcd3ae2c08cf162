"""agree's discriminative power where a pair has no p-value (differences that do not
vary), and where the resamples and the correction over the pairs put alpha out of reach:
hand-worked P@10 cases (k relevant documents in the top 10: P@10 = k/10) against scipy's
ttest_rel and statsmodels' corrections."""

from __future__ import annotations

import json
import warnings
from itertools import combinations

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from conftest import write_tenths

import trecbench
from trecbench import statistical_tests
from trecbench.cli import cli
from trecbench.conclusions.discrimination import DiscriminationSettings, discriminative_power

# per topic, each run's relevant documents in its top 10: r1 = r0 + 3, r2 = r0 + 1 on
# every topic, so every pair's differences are the same number on every topic
CONSTANT = {"r0": [2, 1, 3, 2, 1, 3], "r1": [5, 4, 6, 5, 4, 6], "r2": [3, 2, 4, 3, 2, 4]}
# r1 = r0 (every difference 0), r2 = r0 + 1 (constant), r3 varies
IDENT = {
    "r0": [1, 2, 3, 2, 1, 2, 3],
    "r1": [1, 2, 3, 2, 1, 2, 3],
    "r2": [2, 3, 4, 3, 2, 3, 4],
    "r3": [10, 9, 10, 10, 9, 10, 10],
}


def _agree_json(folder, counts, *options: str) -> dict:
    write_tenths(folder, counts)
    runs = [str(folder / f"{run}.run") for run in counts]
    argv = ["agree", str(folder / "q.qrels"), *runs, "-m", "P@10", *options]
    done = CliRunner().invoke(cli, [*argv, "--format", "json"])
    assert done.exit_code == 0, done.output
    return json.loads(done.stdout)["discriminative_power"][0]


def _compare_reasons(counts) -> dict[frozenset, str]:
    """compare's reason per pair of runs for its p-value being n/a, on the same values."""
    rows = [(run, f"q{t}", "P@10", k / 10) for run, ks in counts.items() for t, k in enumerate(ks)]
    frame = pd.DataFrame(rows, columns=["run", "qid", "measure", "value"])
    pairs = trecbench.compare_scores(frame, correction="none").pairs
    return {
        frozenset((row.run, row.other)): row.p_undefined
        for row in pairs.itertuples()
        if isinstance(row.p_undefined, str)
    }


def test_pairs_without_a_p_value_are_named_with_compare_s_reason(tmp_path):
    # every pair's p was undefined and counted "not significant" with no word: share
    # 0.0000, "reason": null, where scipy's ttest_rel gives p = 0 (3 of 3 significant)
    from scipy.stats import ttest_rel

    found = _agree_json(tmp_path, CONSTANT, "--correction", "none")
    values = {run: np.array(ks) / 10 for run, ks in CONSTANT.items()}
    with warnings.catch_warnings():  # scipy warns of its "catastrophic cancellation"
        warnings.simplefilter("ignore", RuntimeWarning)
        scipy_p = [ttest_rel(values[a], values[b]).pvalue for a, b in combinations(values, 2)]
    assert all(p < 0.05 for p in scipy_p)  # scipy's sd is rounding noise or 0
    assert (found["pairs"], found["significant"], found["undefined_pairs"]) == (3, 0, 3)
    assert found["discriminative_power"] == 0.0
    reasons = _compare_reasons(CONSTANT)
    (said,) = set(reasons.values())
    assert said.startswith("the per-topic differences do not vary")
    assert found["reason"] == (
        f"p n/a (undefined, not significant) for 3 of 3 pairs: {said} — r0 vs r1, r0 vs r2, "
        "r1 vs r2; the share counts them as not significant."
    )
    write_tenths(tmp_path, CONSTANT)
    runs = [str(tmp_path / f"{run}.run") for run in CONSTANT]
    text = CliRunner().invoke(cli, ["agree", str(tmp_path / "q.qrels"), *runs, "-m", "P@10"])
    assert f"P@10: {found['reason']}" in text.stdout  # the note under the table


def test_the_share_of_the_other_pairs_is_scipy_s_and_each_reason_is_compare_s(tmp_path):
    from scipy.stats import ttest_rel
    from statsmodels.stats.multitest import multipletests

    found = _agree_json(tmp_path, IDENT)  # Holm
    values = {run: np.array(ks) / 10 for run, ks in IDENT.items()}
    defined = [("r0", "r3"), ("r1", "r3"), ("r2", "r3")]
    p = [ttest_rel(values[a], values[b]).pvalue for a, b in defined]
    # Holm over the 3 pairs with a p-value, as compare adjusts (NaN left out)
    significant = int((multipletests(p, method="holm")[1] < 0.05).sum())
    assert (found["pairs"], found["undefined_pairs"]) == (6, 3)
    assert found["significant"] == significant == 3
    assert found["discriminative_power"] == pytest.approx(3 / 6)
    reasons = _compare_reasons(IDENT)
    zero = reasons[frozenset(("r0", "r1"))]
    flat = reasons[frozenset(("r0", "r2"))]
    assert zero == "every per-topic difference is 0" and flat == reasons[frozenset(("r1", "r2"))]
    assert found["reason"] == (
        f"p n/a (undefined, not significant) for 3 of 6 pairs: {zero} — r0 vs r1; {flat} — r0 "
        "vs r2, r1 vs r2; the share counts them as not significant."
    )


def test_the_bootstrap_names_its_own_reason():
    values = np.array(CONSTANT["r0"])[:, None] / 10 + np.array([0.0, 0.3])
    found = discriminative_power(
        values, "P@10", DiscriminationSettings(test="bootstrap", samples=200), ("a", "b")
    )
    assert (found.discriminative_power, found.undefined_pairs) == (0.0, 1)
    assert "every resample is the observed mean: there is no null distribution — a vs b" in (
        found.reason
    )


def test_a_pair_with_a_p_value_gives_no_reason():
    values = np.array([[0.1, 0.5], [0.2, 0.4], [0.3, 0.9], [0.2, 0.3], [0.1, 0.8], [0.4, 0.6]])
    found = discriminative_power(values, "m", DiscriminationSettings(correction="none"))
    assert (found.reason, found.undefined_pairs) == (None, 0)


@pytest.mark.parametrize("method", ["holm", "bonferroni", "bh", "none"])
@pytest.mark.parametrize(("p", "family"), [(1 / 21, 6), (1 / 101, 3), (0.2, 10), (0.01, 1)])
def test_the_smallest_adjusted_p_is_statsmodels(method, p, family):
    from statsmodels.stats.multitest import multipletests

    if method == "none":
        expected = p
    else:
        name = {"holm": "holm", "bonferroni": "bonferroni", "bh": "fdr_bh"}[method]
        expected = multipletests(np.full(family, p), method=name)[1].min()
    assert statistical_tests.smallest_adjusted_p(p, method, family) == pytest.approx(expected)


# 20 topics, 4 runs far apart: 2^20 sign patterns > 20 samples, so the test draws them
FAR_APART = np.random.default_rng(5).random((20, 4)) * 0.1 + np.array([0.0, 0.3, 0.6, 0.9])


def test_too_few_resamples_for_holm_over_the_pairs_give_no_share_but_a_reason():
    # --samples 20: p >= 1/21 and Holm over 6 pairs lifts the smallest to 6/21 = 0.286;
    # the share was 0.0000, printed as a finding
    from statsmodels.stats.multitest import multipletests

    assert multipletests(np.full(6, 1 / 21), method="holm")[1].min() >= 0.05
    settings = DiscriminationSettings(test="randomization", samples=20)
    found = discriminative_power(FAR_APART, "P@10", settings)
    assert (found.pairs, found.significant, found.discriminative_power) == (6, 0, None)
    assert found.reason == (
        "With 20 resamples the randomisation (sign-flip permutation) test gives no p below "
        "1/(20 + 1) = 0.0476, and the Holm correction over 6 p-values makes the smallest "
        "adjusted p 6 × 0.0476 = 0.286: none can fall below alpha = 0.05. Nothing is "
        "marked significant here."
    )
    # no correction, or Benjamini-Hochberg (its smallest adjusted p stays 1/21): reachable
    for correction in ("none", "bh"):
        settings = DiscriminationSettings(test="randomization", samples=20, correction=correction)
        found = discriminative_power(FAR_APART, "P@10", settings)
        assert found.reason is None and found.discriminative_power == 1.0


def test_an_exact_test_s_smallest_p_times_the_pairs_is_out_of_reach_too():
    # 6 topics: the exact sign-flip test's smallest p is 2/2^6 = 0.03125, below 0.05, but
    # Holm over 6 pairs makes it 0.1875; the bootstrap's is 1/(samples + 1)
    values = FAR_APART[:6]
    found = discriminative_power(values, "m", DiscriminationSettings(test="randomization"))
    assert found.discriminative_power is None
    assert found.reason.startswith(
        "With 6 topics the randomisation (sign-flip permutation) test gives no p below 2/2^6 "
        "= 0.03125, and the Holm correction over 6 p-values makes the smallest adjusted p "
        "6 × 0.03125 = 0.188"  # 0.0312 printed its product 0.1872 as 0.188
    )
    boot = DiscriminationSettings(test="bootstrap", samples=100, correction="bonferroni")
    assert "1/(100 + 1) = 0.0099" in discriminative_power(FAR_APART, "m", boot).reason
    # the t-test's p has no floor it cannot go below: Holm over its pairs says nothing
    assert discriminative_power(values, "m", DiscriminationSettings()).reason is None


def test_the_family_is_the_pairs_with_a_p_value():
    # 3 of 6 pairs undefined (constant differences): Holm over the other 3 at 1/101 each
    # reaches 3/101 < 0.05, so the share is a figure (over 6 pairs it would not be)
    values = np.column_stack([FAR_APART[:, 0], FAR_APART[:, 0] + 0.1, FAR_APART[:, 0] + 0.2,
                              FAR_APART[:, 0] ** 2 + 0.5])  # fmt: skip
    settings = DiscriminationSettings(test="bootstrap", samples=100)
    found = discriminative_power(values, "m", settings)
    assert found.undefined_pairs == 3 and found.discriminative_power is not None


def test_the_cli_prints_the_reason_for_too_few_resamples(tmp_path):
    counts = {f"r{r}": [min(10, 3 * r + t % 2) for t in range(20)] for r in range(4)}
    found = _agree_json(tmp_path, counts, "--test", "randomization", "--samples", "20")
    assert found["discriminative_power"] is None
    assert found["reason"].startswith("With 20 resamples")


@pytest.mark.parametrize(("fmt", "shown"), [("table", "r%1B0"), ("markdown", r"r%2A\_0")])
def test_the_note_names_the_runs_as_the_tables_show_them(tmp_path, fmt, shown):
    # a run's name is input text: the note shows it escaped, as the means' table does
    raw = {"table": "r\x1b0", "markdown": "r*_0"}[fmt]
    counts = {raw: CONSTANT["r0"], "b": CONSTANT["r1"], "c": [1, 5, 2, 6, 3, 1]}
    write_tenths(tmp_path, counts)
    runs = [str(tmp_path / f"{run}.run") for run in counts]
    argv = ["agree", str(tmp_path / "q.qrels"), *runs, "-m", "P@10", "--format", fmt]
    done = CliRunner().invoke(cli, argv)
    assert done.exit_code == 0, done.output
    assert f"— {shown} vs b;" in done.stdout and raw not in done.stdout
    assert any(line.split("|")[1].strip() == shown for line in done.stdout.splitlines()
               if line.startswith("|")) or f"\n{shown} " in done.stdout  # fmt: skip


def test_agree_reads_compare_s_reason_through_its_public_name():
    # agree imported compare's private _undefined_reason; the reasons, hand-worked
    import ast
    from pathlib import Path

    import trecbench.conclusions.discrimination as discrimination
    from trecbench.comparison.significance import undefined_p_reason

    constant = np.array([0.1, 0.1, 0.1])
    assert undefined_p_reason("t", constant) == (
        "the per-topic differences do not vary: t = mean / (sd / sqrt(n)) divides by their sd, 0"
    )
    assert undefined_p_reason("wilcoxon", np.zeros(4)) == "every per-topic difference is 0"
    assert undefined_p_reason("bootstrap", np.array([0.3])) == "fewer than 2 topics"
    # a macro section: strata of 2 topics each, differences constant within each
    strata = np.array(["a", "a", "b", "b"])
    assert undefined_p_reason("t", np.array([0.1, 0.1, 0.3, 0.3]), strata) == (
        "the per-topic differences do not vary within every stratum: t = mean / (sd / "
        "sqrt(n)) divides by their sd, 0"
    )
    tree = ast.parse(Path(discrimination.__file__).read_text(encoding="utf-8"))
    imported = [
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.level
        for alias in node.names
    ]
    assert undefined_p_reason.__name__ in imported
    assert not [name for name in imported if name.startswith("_")]
