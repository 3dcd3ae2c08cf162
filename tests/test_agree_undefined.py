"""agree's discriminative power where a pair has no p-value (differences that do not
vary): hand-worked P@10 cases (k relevant documents in the top 10: P@10 = k/10) against scipy's
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
