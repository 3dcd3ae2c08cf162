"""A measure whose values are all tiny (RBP with p = 0.01: 1e-15 and below) is printed so
that no value that is not 0 reads 0: compare's difference of -1.7e-15 read ``0.0000``
beside ``▼***`` in the terminal table, the Markdown, the LaTeX and the HTML page (and the
power table), while the JSON held the number. Each expected text is formatted here from
numpy's means of the values, by the rule of value_text (two significant digits in
scientific notation where four decimals would print 0), not by trecbench."""

from __future__ import annotations

import json
import math
import re
import shutil
import subprocess
from importlib import resources

import numpy as np
import pandas as pd
import pytest

from trecbench.comparison import compare_scores
from trecbench.renderers.comparison_text import render

MEASURE = "RBP(p=0.01)"  # higher is better: a loss is marked ▼
A = np.array([2.0, 2.1, 1.9, 2.2, 1.8, 2.05, 1.95, 2.15]) * 1e-15  # the baseline
B = np.array([0.3, 0.35, 0.25, 0.4, 0.2, 0.3, 0.28, 0.33]) * 1e-15  # worse on every topic
MARKER = "▼***"  # t-test p of 6e-11


def _compared(a, b):
    rows = [
        (run, f"q{i}", MEASURE, value)
        for run, column in (("a", a), ("b", b))
        for i, value in enumerate(column)
    ]
    frame = pd.DataFrame(rows, columns=["run", "qid", "measure", "value"])
    return compare_scores(frame, test="t", samples=1000)


@pytest.fixture(scope="module")
def tiny():
    return _compared(A, B)


def _shown(value: float, signed: bool = False) -> str:
    """The rule, written from its statement: four decimals, unless the value is not 0 and
    lies below half a unit of the fourth (then two significant digits, ``1.7e-15``)."""
    if value != 0 and abs(value) < 0.00005:
        return f"{value:+.1e}" if signed else f"{value:.1e}"
    return f"{value:+.4f}" if signed and value != 0 else f"{value:.4f}"


def test_the_case_is_significant_and_its_difference_numpys(tiny):
    row = tiny.comparisons.iloc[0]
    assert row["significant"] and row["p_adjusted"] < 0.05 / 50
    assert row["difference"] == pytest.approx(np.mean(B - A), rel=1e-12)
    assert _shown(np.mean(B - A), True) == "-1.7e-15"


def test_the_terminal_table_prints_the_difference_beside_its_marker(tiny):
    lines = render(tiny, "table").splitlines()
    (line,) = [line for line in lines if line.split()[:1] == ["b"]]
    cells = line.split()
    assert cells[1] == _shown(B.mean())
    assert cells[4] == _shown(np.mean(B - A), True)
    assert cells[-1] == MARKER
    (base,) = [line for line in lines if line.split()[:1] == [MEASURE]][:1]
    assert base.split()[3] == _shown(A.mean())
    assert "0.0000" not in "\n".join(lines)


def test_the_markdown_prints_the_difference_beside_its_marker(tiny):
    lines = render(tiny, "markdown").splitlines()
    differences = [line for line in lines if line.startswith(f"| {MEASURE} | b |")]
    cells = [cell.strip() for cell in differences[0].strip("|").split("|")]
    assert cells[2].startswith(_shown(np.mean(B - A), True) + " [")
    assert cells[-1].endswith(MARKER)
    (means,) = [line for line in lines if line.startswith(f"| {MEASURE} | **")]
    assert f"**{_shown(A.mean())}**" in means and f"| {_shown(B.mean())} [" in means
    assert means.rstrip(" |a").endswith(MARKER)


def test_the_latex_prints_the_means_and_who_beats_whom(tiny):
    # the LaTeX table's numbers are text, not math: the plain text of the other formats
    text = render(tiny, "latex")
    assert f"a & a & \\textbf{{{_shown(A.mean())}}}$^{{b}}$ \\\\" in text
    assert f"b & b & {_shown(B.mean())} \\\\" in text


def test_the_html_page_prints_the_difference_beside_its_marker(tiny):
    pytest.importorskip("bokeh")
    from trecbench.html_report.page import comparison_html

    page = comparison_html(tiny)
    rows = [row for row in re.findall(r"<tr.*?</tr>", page, re.S) if ">b</td>" in row]
    (row,) = [row for row in rows if MARKER in row]
    cells = re.findall(r"<td[^>]*>([^<]*)</td>", row)
    assert cells[2] == _shown(B.mean())
    assert cells[4].startswith(_shown(np.mean(B - A), True) + " [")
    assert cells[-1].endswith(MARKER)


def test_the_power_table_prints_the_difference():
    from trecbench.conclusions.power import PowerResult, PowerSettings, power_rows

    values = np.stack([A, B], axis=1)[:, :, None]  # topics x runs x measures
    settings = PowerSettings()
    result = PowerResult(settings, "a", tuple(power_rows(values, ["a", "b"], [MEASURE], settings)))
    difference = _shown(np.mean(B - A), True)
    for fmt in ("table", "markdown", "latex"):
        assert difference in result.render(fmt), fmt
    # a column of such numbers (difference, MDE) is a column of numbers: right-aligned
    align = next(line for line in result.render("markdown").splitlines() if "| ---" in line)
    assert [cell.strip() for cell in align.strip("|").split("|")][3:7] == ["---:"] * 4
    assert "\\begin{tabular}{llrrrrrr}" in result.render("latex")


def test_the_unjudged_table_prints_tiny_ends():
    from trecbench.conclusions.unjudged import UnjudgedBound, render_bounds

    bound = UnjudgedBound("a", MEASURE, A.mean(), B.mean() + A.mean(), 0.5, None)
    for fmt in ("table", "markdown", "latex"):
        text = render_bounds([bound], fmt)
        assert _shown(A.mean()) in text and _shown(A.mean() + B.mean()) in text, fmt


def test_normal_values_keep_their_four_decimals():
    a = np.array([0.5, 0.3, 0.7, 0.2, 0.6, 0.4])
    b = a + np.array([0.1, 0.1, 0.0, 0.2, 0.1, 0.1])
    lines = render(_compared(a, b), "table").splitlines()
    (line,) = [line for line in lines if line.split()[:1] == ["b"]]
    cells = line.split()
    assert cells[1] == f"{b.mean():.4f}" and cells[4] == f"{np.mean(b - a):+.4f}"
    (same,) = [line for line in render(_compared(a, a), "table").splitlines() if "0/6/0" in line]
    assert same.split()[4] == "0.0000"  # an exact 0 stays 0.0000, unsigned


VALUES = [1.7e-15, -1.7e-15, 4.9e-5, 5e-5, -4e-6, 0.0, 0.03125, 0.1234, -0.5, 12.5]


@pytest.mark.parametrize("value", VALUES)
def test_value_text_is_the_rule(value):
    from trecbench.number_text import value_text

    assert value_text(value) == _shown(value)
    assert value_text(value, signed=True) == _shown(value, signed=True)


def test_value_text_undefined():
    from trecbench.number_text import value_text

    assert value_text(math.nan) == "n/a" == value_text(math.inf, signed=True)


@pytest.mark.skipif(shutil.which("node") is None, reason="needs node to run numbers.js")
def test_the_pages_script_writes_numbers_as_python():
    """numbers.js (the topics table, the later measures' figures) as value_text: the
    page's topics table read 0.0000 for every value of RBP(p=0.01)."""
    from trecbench.number_text import value_text

    script = resources.files("trecbench.html_report").joinpath("templates/numbers.js")
    program = (
        "var window = {};\n"
        + script.read_text(encoding="utf-8")
        + f"\nvar values = {VALUES!r};\n"
        + "values.forEach(function (v) { var n = window.trecbenchNumbers;"
        + " console.log(n.fixed(v) + ' ' + n.signed(v)); });\n"
    )
    found = subprocess.run(
        ["node", "-e", program], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    assert found == [f"{value_text(v)} {value_text(v, signed=True)}" for v in VALUES]
    # and the hover texts of the figures drawn as the page opens, which Python writes
    pytest.importorskip("bokeh")
    from trecbench.html_report.figures import _four

    pairs = zip(_four(VALUES), _four(VALUES, sign=True), strict=True)
    assert [f"{fixed} {signed}" for fixed, signed in pairs] == found


@pytest.mark.parametrize("fmt", ["table", "markdown"])
def test_score_tables_print_a_tiny_mean_as_the_unjudged_table_does(fmt, tmp_path):
    # RBP(p=0.01) with the one relevant document at rank 5: 0.99 * 0.01^4 = 9.9e-09 on
    # topics a and c, 0 on b; mean 6.6e-09. The scores, the grouped means and the tie
    # bounds printed 0.0000 above the unjudged table's 6.6e-09 of the same value
    from click.testing import CliRunner

    from trecbench.cli import _register, cli

    _register()
    (tmp_path / "q").write_text("a 0 d5 1\nb 0 d1 1\nc 0 d5 1\n")
    ranked = "".join(f"{q} Q0 d{i} {i} {10 - i} t\n" for q in "ac" for i in range(1, 6))
    (tmp_path / "r").write_text(ranked + "b Q0 d9 1 3 t\n")
    groups = {q: {"f": g} for q, g in zip("abc", "xyy", strict=True)}
    (tmp_path / "s.json").write_text(json.dumps({"strata": {"queries": groups}}))
    argv = ["score", "-m", MEASURE, "--tie-bounds", "--unjudged-bounds", "--format", fmt]
    argv += ["--strata", str(tmp_path / "s.json"), "--group-by", "f"]
    result = CliRunner().invoke(cli, [*argv, str(tmp_path / "q"), str(tmp_path / "r")])
    assert result.exit_code == 0, result.output
    rows = [line.replace("|", " ").split() for line in result.stdout.splitlines()]
    # the scores, the tie bounds (value, lowest, highest) and the unjudged table's low
    assert ["r", "3", "6.6e-09"] in rows
    assert ["r", MEASURE, "6.6e-09", "6.6e-09", "6.6e-09", "fixed", "0"] in rows
    assert any(row[:3] == ["r", MEASURE, "6.6e-09"] for row in rows if len(row) == 5)
    # the grouped means: x 9.9e-09, y 4.95e-09, macro 7.425e-09, micro, spread 4.95e-09
    assert ["r", "x", "1", "9.9e-09"] in rows and ["r", "(micro)", "3", "6.6e-09"] in rows
    assert ["r", "(macro)", "2", f"{(9.9e-09 + 4.95e-09) / 2:.1e}"] in rows
