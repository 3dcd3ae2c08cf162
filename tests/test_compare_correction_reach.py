"""compare's note where the resamples and the correction over a family of p-values put
alpha out of reach (a resampled p is at least 1/(samples + 1); Holm over k p-values
lifts the smallest adjusted p to k/(samples + 1)): hand-worked bounds, statsmodels'
multipletests as the reference for the adjustment."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from conftest import write_tenths

from trecbench.comparison import compare_scores
from trecbench.report import validate_against_schema

# 20 topics (2^20 sign patterns: the randomisation test draws its samples), 4 runs far
# apart: every pair's difference has one sign on every topic, so no draw is as far from 0
# as the observed mean and every p is the smallest, 1/(samples + 1)
FAR_APART = np.random.default_rng(5).random((20, 4)) * 0.1 + np.array([0.0, 0.3, 0.6, 0.9])
RANDOMISATION = "randomisation (sign-flip permutation) test"


def _frame(values: np.ndarray, measures=("m@2",)) -> pd.DataFrame:
    # "m@2": a name the registry does not bound (the values are synthetic)
    rows = [
        (f"r{r}", f"q{t:02d}", measure, values[t, r] + 0.01 * m)
        for m, measure in enumerate(measures)
        for t in range(values.shape[0])
        for r in range(values.shape[1])
    ]
    return pd.DataFrame(rows, columns=["run", "qid", "measure", "value"])


def _holm(p) -> np.ndarray:
    from statsmodels.stats.multitest import multipletests

    return multipletests(np.asarray(p, dtype=float), method="holm")[1]


def _note(samples: int, family: int, view: str, adjusted: str, test=RANDOMISATION) -> str:
    floor = f"{1 / (samples + 1):.3g}"
    return (
        f"With {samples} resamples the {test} gives no p below 1/({samples} + 1) = {floor}, "
        f"and the Holm correction over the {family} p-values of {view} makes the smallest "
        f"adjusted p {family} × {floor} = {adjusted}: none can fall below alpha = 0.05, and "
        f"nothing in {view} is marked significant."
    )


BASELINE, PAIRS = "the comparisons with the baseline", "the all-pairs view"


def test_40_resamples_and_holm_over_each_family_put_alpha_out_of_reach():
    # p >= 1/41; Holm over the 3 comparisons with the baseline: 3/41 = 0.0732, over the 6
    # pairs: 6/41 = 0.146; the section printed these adjusted p-values without a word
    result = compare_scores(_frame(FAR_APART), test="randomization", samples=40)
    comparisons, pairs = result.comparisons, result.pairs
    assert comparisons["p_value"].tolist() == [1 / 41] * 3
    assert comparisons["p_adjusted"].tolist() == pytest.approx(_holm([1 / 41] * 3))
    assert pairs["p_adjusted"].tolist() == pytest.approx(_holm([1 / 41] * 6))
    assert _holm([1 / 41] * 3).min() == pytest.approx(3 / 41) and 3 / 41 >= 0.05
    assert not comparisons["significant"].any() and not pairs["significant"].any()
    assert result.section("all").notes == (
        _note(40, 3, BASELINE, "0.0732"),
        _note(40, 6, PAIRS, "0.146"),
    )


def test_every_format_shows_the_note_once():
    from trecbench.comparison.result import html_available

    result = compare_scores(_frame(FAR_APART), test="randomization", samples=40)
    note = _note(40, 6, PAIRS, "0.146")
    report = json.loads(result.render("json"))
    validate_against_schema(report, "benchmark_report")
    assert report["results"][0]["notes"] == [_note(40, 3, BASELINE, "0.0732"), note]
    texts = {fmt: result.render(fmt) for fmt in ("table", "markdown", "latex", "csv")}
    if html_available():
        texts["report.html"] = result.to_html(0)
    for fmt, text in texts.items():
        assert " ".join(text.split()).count(note) == 1, fmt


def test_each_family_is_judged_by_its_own_size():
    # 60 resamples: Holm over the 3 comparisons with the baseline reaches 3/61 = 0.0492,
    # below 0.05 (each is significant, as statsmodels adjusts them); over the 6 pairs, 6/61
    # = 0.0984 does not: the note is the all-pairs view's alone
    result = compare_scores(_frame(FAR_APART), test="randomization", samples=60)
    assert _holm([1 / 61] * 3).max() < 0.05 <= _holm([1 / 61] * 6).min()
    assert result.comparisons["significant"].all() and not result.pairs["significant"].any()
    assert result.section("all").notes == (_note(60, 6, PAIRS, "0.0984"),)


def test_the_family_holds_every_measure_of_the_section():
    # 100 resamples: 3 comparisons at 1/101 each reach 3/101 = 0.0297 (6 pairs: 0.0594,
    # out of reach); two measures make the comparisons' family 6 (compare adjusts a
    # section's p-values of every measure together): 6/101, out of reach, and 12 pairs
    one = compare_scores(_frame(FAR_APART), test="randomization", samples=100)
    assert one.section("all").notes == (_note(100, 6, PAIRS, "0.0594"),)
    two = compare_scores(_frame(FAR_APART, ("m@2", "n@2")), test="randomization", samples=100)
    assert two.comparisons["p_adjusted"].tolist() == pytest.approx(_holm([1 / 101] * 6))
    assert two.section("all").notes == (
        _note(100, 6, BASELINE, "0.0594"),
        _note(100, 12, PAIRS, "0.119"),
    )


def test_the_family_is_the_pairs_with_a_p_value():
    # r1 = r0 + 0.1 and r2 = r0 + 0.2 on every topic: the bootstrap gives their 3 pairs no
    # p-value, and the correction leaves them out; of the comparisons with the baseline
    # only r3's has one (Holm over 1: 1/41, reachable), of all pairs 3 (3/41 = 0.0732)
    base = FAR_APART[:, 0]
    values = np.column_stack([base, base + 0.1, base + 0.2, base**2 + 0.5])
    result = compare_scores(_frame(values), test="bootstrap", samples=40)
    assert result.pairs["p_value"].isna().sum() == 3
    (note,) = result.section("all").notes
    assert note.startswith("With 40 resamples the paired bootstrap test gives no p below")
    assert "the Holm correction over the 3 p-values of the all-pairs view" in note


@pytest.mark.parametrize(
    ("test", "correction"),
    [
        ("randomization", "bh"),  # Benjamini-Hochberg leaves equal p-values at 1/41
        ("randomization", "none"),
        ("t", "holm"),  # the t-test's p has no floor: Holm says nothing of it
        ("tukey", None),  # family-wise: its p-values are not corrected
    ],
)
def test_no_note_where_the_correction_leaves_alpha_within_reach(test, correction):
    result = compare_scores(_frame(FAR_APART), test=test, samples=40, correction=correction)
    assert result.section("all").notes == ()


def test_every_section_has_its_families_and_a_macro_one_names_its_form():
    # 10 topics per stratum (2^10 > 40 sign patterns: drawn): each stratum's section and
    # the macro section correct their own 3 and 6 p-values; the macro note named its test
    # "the randomisation test of the weighted differences's p"
    strata = {f"q{t:02d}": "x" if t < 10 else "y" for t in range(20)}
    result = compare_scores(
        _frame(FAR_APART), test="randomization", samples=40, strata=strata, group_by="g"
    )
    notes = (_note(40, 3, BASELINE, "0.0732"), _note(40, 6, PAIRS, "0.146"))
    assert result.section("g=x").notes == result.section("g=y").notes == notes
    macro = "randomisation test of the weighted differences"
    assert result.section("g:macro").notes == (
        _note(40, 3, BASELINE, "0.0732", macro),
        _note(40, 6, PAIRS, "0.146", macro),
    )


def test_the_command_line_says_it(tmp_path):
    # the report's case: 20 topics of P@10, 4 runs, --test randomization --samples 40
    from test_compare import _invoke

    counts = {f"r{r}": [min(10, 3 * r + t % 2) for t in range(20)] for r in range(4)}
    folder = write_tenths(tmp_path, counts)
    runs = [str(folder / f"r{r}.run") for r in range(4)]
    done = _invoke("compare", [str(folder / "q.qrels"), *runs, "-m", "P@10", "--test",
                               "randomization", "--samples", "40"])  # fmt: skip
    assert done.exit_code == 0, done.output
    text = " ".join(done.output.split())
    assert _note(40, 3, BASELINE, "0.0732") in text and _note(40, 6, PAIRS, "0.146") in text


def test_the_note_s_arithmetic_holds_as_printed():
    """2/2^6 = 0.03125 printed as 0.0312 made "2 × 0.0312 = 0.0625" (and 3 × 0.0312 =
    0.0938): the floor gets the digits its product needs to read true."""
    import re

    values = np.array([[0.2 + 0.01 * t, 0.5 + 0.01 * t, 0.51 + 0.01 * t] for t in range(6)])
    result = compare_scores(_frame(values), test="randomization", samples=1000)
    notes = result.sections[0].notes
    assert len(notes) == 2 and all("2/2^6 = 0.03125" in note for note in notes), notes
    for note in notes:
        family, floor, product = re.search(r"p (\d+) × ([\d.]+) = ([\d.]+):", note).groups()
        assert f"{int(family) * float(floor):.3g}" == product, note


@pytest.mark.parametrize("test", ["t", "randomization"])
def test_the_smallest_p_never_prints_below_the_alpha_it_cannot_reach(test):
    """2/2^6 = 0.03125 printed as 0.0312 in "cannot reach p < 0.03124: its smallest p is
    0.0312", a p below alpha as printed; it gets the digits that keep it at alpha or above."""
    from trecbench.statistical_tests import out_of_reach

    note = out_of_reach(test, 6, 0.03124, 1000)
    assert "cannot reach p < 0.03124:" in note and "is 0.03125 (2/2^6" in note, note
    note = out_of_reach(test, 6, 0.0312, 1000)  # 3 digits do not read below it: kept
    assert "p < 0.0312:" in note and "is 0.0312 (2/2^6" in note, note
