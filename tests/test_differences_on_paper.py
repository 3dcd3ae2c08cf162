"""A difference that is 0 on paper is 0 wherever it is printed or recorded: compare's
comparisons (difference, change, d_z), its pairs, its power section, benchmark's files,
power and the leaderboard; and 0 prints unsigned (``0.0000``, ``0.0%``, ``0.00``).

The runs are P@10 counts (:func:`conftest.write_tenths`), so every expected difference is
worked by hand: (sum of one run's counts - sum of the other's) / (10 * topics), exact as a
fraction. ``EVEN``'s counts add up to 40 on both sides, and their floats' per-topic
differences (0.6 - 0.4 is 0.19999999999999996, 0.2 - 0 is 0.2) do not add up to 0: the
means were 6.9e-18 or -5.55e-17, d_z -1.3e-17, and printed ``+0.0000 ... -0.00``."""

from __future__ import annotations

import json
import math
from fractions import Fraction

import numpy as np
import pytest
from conftest import write_tenths

from trecbench.cli import run

EVEN = {"base": [8, 4, 10, 4, 10, 2, 0, 2], "run": [0, 8, 10, 6, 2, 8, 0, 6]}


def _zero(value) -> bool:
    """0, and not -0.0: a sign bit the JSON would print."""
    return value == 0 and math.copysign(1.0, value) > 0


def _compare(capsys, folder, runs, *options: str) -> str:
    files = [str(folder / f"{name}.run") for name in runs]
    assert run(["compare", str(folder / "q.qrels"), *files, "-m", "P@10", *options]) == 0
    return capsys.readouterr().out


def test_compare_prints_and_records_a_difference_of_0_on_paper_as_0(tmp_path, capsys):
    write_tenths(tmp_path, EVEN)
    options = ("--power", "0.8", "--samples", "1000")
    markdown = _compare(capsys, tmp_path, EVEN, *options, "--format", "markdown")
    differences = markdown.split("### Differences against base")[1]
    row = next(line for line in differences.splitlines() if line.startswith("| P@10 | run |"))
    cells = [cell.strip() for cell in row.strip("|").split("|")]
    # difference [CI], change, W/T/L, d_z: W/T/L 4/2/2 by hand
    assert cells[2].startswith("0.0000 [") and cells[3:6] == ["0.0%", "4/2/2", "0.00"]
    assert "| run | P@10 | 8 | 0.0000 | 0.0000 |" in markdown  # the power section's
    assert "-0.0" not in markdown and "+0.0000 [" not in markdown and "+0.0%" not in markdown
    document = json.loads(_compare(capsys, tmp_path, EVEN, *options, "--format", "json"))
    (section,) = document["results"]
    (comparison,) = section["comparisons"]
    figures = ("difference", "relative_change", "effect_size")
    assert all(_zero(comparison[name]) for name in figures), comparison
    assert _zero(comparison["welch_t"])  # the difference of means it divides
    (pair,) = section["pairs"]
    assert _zero(pair["difference"]) and comparison["p_value"] == 1.0
    (power,) = document["power"]["rows"]
    assert _zero(power["mean_difference"]) and _zero(power["effect_size"])


def _random_counts(rng, topics: int, equal: bool) -> dict[str, list[int]]:
    counts = {name: rng.integers(0, 11, topics).tolist() for name in ("r0", "r1", "r2")}
    if equal:  # r1 a permutation of r0's counts: their sums are equal
        counts["r1"] = rng.permutation(counts["r0"]).tolist()
    return counts


@pytest.mark.parametrize("seed", range(6))
def test_every_difference_is_the_hand_worked_one_and_reversed_pairs_are_opposite(
    tmp_path, capsys, seed
):
    # the pair r0 - r1 was positive beside r1 - r0 = +5.55e-17 (14 topics)
    rng = np.random.default_rng(seed)
    topics = int(rng.integers(3, 40))
    counts = _random_counts(rng, topics, equal=seed % 2 == 0)
    write_tenths(tmp_path, counts)

    def by_hand(a: str, b: str) -> float:
        return float(Fraction(sum(counts[a]) - sum(counts[b]), 10 * topics))

    for order in (["r0", "r1", "r2"], ["r1", "r0", "r2"]):
        out = _compare(capsys, tmp_path, order, "--samples", "100", "--format", "json")
        (section,) = json.loads(out)["results"]
        for row in section["comparisons"]:
            expected = by_hand(row["run"], order[0])
            assert row["difference"] == pytest.approx(expected, rel=0, abs=4e-16)
            assert _zero(row["difference"]) == (expected == 0)
        for row in section["pairs"]:
            expected = by_hand(row["run"], row["other"])
            assert row["difference"] == pytest.approx(expected, rel=0, abs=4e-16)
            assert _zero(row["difference"]) == (expected == 0)
    if seed % 2 == 0:
        assert by_hand("r0", "r1") == 0  # the case the reviewers met: tested above


def test_benchmark_files_print_a_difference_of_0_on_paper_unsigned(tmp_path):
    # means of 0.2000 each, and a difference of -0.0000 [...], -0.0% and -5.55e-17
    write_tenths(tmp_path, {"A": [1, 2, 3], "B": [3, 2, 1]})
    config = tmp_path / "c.toml"
    config.write_text(
        'qrels = "q.qrels"\nmeasures = ["P@10"]\n'
        '[modes.a]\nrun = "A.run"\n[modes.b]\nrun = "B.run"\n'
    )
    out = tmp_path / "out"
    assert run(["benchmark", str(config), "-o", str(out), "--quiet"]) == 0
    document = json.loads((out / "BenchmarkReport.json").read_text())
    (section,) = document["results"]
    assert _zero(section["comparisons"][0]["difference"])
    assert _zero(section["comparisons"][0]["relative_change"])
    assert _zero(section["pairs"][0]["difference"])
    assert _zero(document["benchmark"]["kpis"][0]["values"]["b"]["difference"])
    markdown = (out / "BenchmarkComparison.md").read_text()
    assert "| P@10 | b | 0.0000 [-0.2000, +0.2000] | 0.0% | 1/1/1 | 0.00 |" in markdown
    page = (out / "report.html").read_text()
    assert ">0.0000 [-0.2000, +0.2000]<" in page and "-0.0000 [" not in page


def test_power_and_the_leaderboard_give_0_for_a_difference_of_0_on_paper(tmp_path, capsys):
    write_tenths(tmp_path / "x", EVEN)
    write_tenths(tmp_path / "y", EVEN, "U")
    qrels, runs = tmp_path / "x" / "q.qrels", [tmp_path / "x" / f"{n}.run" for n in EVEN]
    assert run(["power", str(qrels), *map(str, runs), "-m", "P@10", "--format", "json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)["rows"]
    assert _zero(row["mean_difference"]) and _zero(row["effect_size"])
    suite = tmp_path / "suite.toml"
    suite.write_text(
        'name = "even"\nmeasures = ["P@10"]\nsystems = ["base", "run"]\n'
        + "".join(
            f'[collections.{c}]\nqrels = "{c}/q.qrels"\nruns = "{c}/{{system}}.run"\n' for c in "xy"
        )
    )
    assert run(["leaderboard", str(suite), "--format", "json"]) == 0
    (board,) = json.loads(capsys.readouterr().out)["measures"]
    tests = board["systems"][1]
    for over in ("over_topics", "over_collections"):
        assert _zero(tests[over]["difference"]), tests


def test_a_difference_that_rounds_to_0_prints_unsigned():
    from trecbench.number_text import signed_text
    from trecbench.renderers.text_tables import change_text

    zeros = (0.0, -0.0, -5.55e-17, 4e-5, -4e-5)
    assert [signed_text(value) for value in zeros] == ["0.0000"] * len(zeros)
    assert [signed_text(value) for value in (6e-5, -0.0123, math.nan)] == [
        "+0.0001", "-0.0123", "n/a",
    ]  # fmt: skip
    assert [signed_text(value, 2) for value in (-1.3e-17, 0.25)] == ["0.00", "+0.25"]
    changes = (-1.55e-14, 12.5, -0.04, math.inf)
    assert [change_text(value) for value in changes] == ["0.0%", "+12.5%", "0.0%", "n/a"]


def test_an_interval_end_that_rounding_alone_leaves_off_0_is_0():
    """Values equal on paper with other last bits (0.6 reached by 0.2 + 0.2 + 0.2 is
    0.6000000000000001) left a resampled difference of -1.1e-16 at the interval's end,
    where it is 0 on paper: the end is 0, as a difference is."""
    import pandas as pd

    from trecbench.comparison import compare_scores

    a = [sum([0.2] * k) for k in (2, 0, 4, 3, 5, 2)]
    b = [k / 5 for k in (2, 0, 4, 3, 5, 3)]  # one topic up by 1/5
    rows = [
        (r, f"q{i}", "P@5", v) for r, values in (("a", a), ("b", b)) for i, v in enumerate(values)
    ]
    frame = pd.DataFrame(rows, columns=["run", "qid", "measure", "value"])
    compared = compare_scores(frame, test="t", samples=1000)
    row = compared.comparisons.iloc[0]
    assert _zero(row["ci_low"]) and row["ci_high"] == pytest.approx(0.1)
    # and it prints 0.0000: a table writes an end that is not 0 as -1.1e-16 (value_text)
    from trecbench.renderers.comparison_text import render

    lines = render(compared, "table").splitlines()
    (line,) = [line for line in lines if line.split()[:1] == ["b"]]
    assert line.split()[5:7] == ["[0.0000,", "+0.1000]"]


def test_a_d_z_or_welch_t_that_rounds_to_0_prints_unsigned():
    """compare's Markdown printed a d_z of -0.003 as -0.00 (and a Welch t of -0.0004 as
    -0.000), where a difference and a change that round to 0 print unsigned."""
    import pandas as pd

    from trecbench.comparison import compare_scores
    from trecbench.renderers.comparison_cells import statistic_text

    assert [statistic_text(v, 2) for v in (-0.003, -0.0, 0.004, -0.25, math.nan)] == [
        "0.00", "0.00", "0.00", "-0.25", "n/a",
    ]  # fmt: skip
    assert statistic_text(-0.0004, 3) == "0.000"
    a, b = [0.5, 0.5, 0.5, 0.5], [0.499, 0.4, 0.6, 0.5]  # d_z -0.0031
    rows = [(r, f"q{i}", "P@5", v) for r, vs in (("a", a), ("b", b)) for i, v in enumerate(vs)]
    compared = compare_scores(pd.DataFrame(rows, columns=["run", "qid", "measure", "value"]))
    assert compared.comparisons["effect_size"].iloc[0] == pytest.approx(-0.0030618, rel=1e-4)
    line = next(x for x in compared.render("markdown").splitlines() if "| 1/1/2 |" in x)
    assert "| 1/1/2 | 0.00 |" in line, line
