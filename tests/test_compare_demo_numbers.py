"""Every number compare prints for the bundled demo, in every format that prints it (the
Markdown, the default terminal table, report.html's summary, the independent-samples (Welch)
view of both), against figures recomputed from the trec_eval 9.0.8 binary's own per-topic
output (tests/fixtures/trec_eval_demo): scipy's paired and Welch t-tests, a bootstrap
redrawn one resample at a time and Holm written out — never trecbench's own numbers.

trec_eval prints 4 decimals: a mean or a bootstrap quantile of such values is within
0.5e-4 of the exact one, and compare prints 4 decimals too, so they agree within 1e-4.
"""

from __future__ import annotations

import json
import math
import re
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest
from scipy import stats as sps
from test_compare import RUNS, _holm, _invoke, _naive_bootstrap
from test_demo_against_trec_eval import FIXTURES, PRESET, QRELS, _printed

SAMPLES = 2000
BASE = RUNS[0]
# how far a printed number may be from its recomputation (module docstring); the change
# is printed to 0.1%, d_z to 0.01, Welch's t to 0.001 and df to 0.1
TOLERANCE = {"change": 0.06, "mean_change": 0.06, "d_z": 0.006, "t": 0.002, "df": 0.06}
P_VALUES = ("p", "p_adjusted")
NUMBER = r"[+-]?\d+\.\d+(?:e[+-]\d+)?"


def _compare_demo(out: Path, *options: str):
    """``compare`` of the demo runs into ``out``, with ``options``: the click Result."""
    runs = [str(QRELS.parents[1] / "runs" / f"{run}.run") for run in RUNS]
    args = ["--samples", str(SAMPLES), "--seed", "7", "-o", str(out), *options]
    done = _invoke("compare", [str(QRELS), *runs, *args])
    assert done.exit_code == 0, done.output
    return done


@pytest.fixture(scope="module")
def text_run(tmp_path_factory):
    """The terminal table (the default format) and the folder (report.html) of one compare."""
    out = tmp_path_factory.mktemp("compare") / "cmp"
    return _compare_demo(out).stdout, out


@pytest.fixture(scope="module")
def expected(text_run) -> tuple[dict, dict]:
    """The recomputed figures: ``{(measure, run): {field: value}}`` of the paired view
    (per run: mean, low, high; against the baseline also difference, diff_low, diff_high,
    change, mean_change, d_z, p, p_adjusted and the per-topic differences, diff) and of
    the Welch view (mean, normal_low, normal_high; t, df, p, p_adjusted)."""
    report = json.loads((text_run[1] / "BenchmarkReport.json").read_text())
    topics = report["topics"]  # the order the resamples index (sorted qids)
    assert topics == sorted({line.split()[0] for line in QRELS.read_text().splitlines()})
    printed = {
        run: {name: _printed(FIXTURES / f"{run}.{name}.out") for name in ("kpi", "mrr10")}
        for run in RUNS
    }
    columns = [(measure, run) for measure in PRESET for run in RUNS]
    matrix = np.array(
        [
            [
                float(printed[run][PRESET[measure][0]].get((PRESET[measure][1], qid), 0.0))
                for measure, run in columns
            ]
            for qid in topics
        ]
    )
    boot = _naive_bootstrap(matrix, SAMPLES, report["settings"]["random_streams"]["bootstrap"])
    low, high = np.percentile(boot, [2.5, 97.5], axis=0)
    z = sps.norm.ppf(0.975)
    paired, welch = {}, {}
    for c, (measure, run) in enumerate(columns):
        values = matrix[:, c]
        paired[(measure, run)] = {"mean": values.mean(), "low": low[c], "high": high[c]}
        half = z * values.std(ddof=1) / math.sqrt(len(values))
        welch[(measure, run)] = {
            "mean": values.mean(),
            "normal_low": values.mean() - half,
            "normal_high": values.mean() + half,
        }
        if run == BASE:
            continue
        base = matrix[:, columns.index((measure, BASE))]
        diff = values - base
        relative = 100 * diff.mean() / base.mean()
        diff_low, diff_high = np.percentile(
            boot[:, c] - boot[:, columns.index((measure, BASE))], [2.5, 97.5]
        )
        paired[(measure, run)] |= {
            "difference": diff.mean(),
            "diff_low": diff_low,
            "diff_high": diff_high,
            "change": relative,
            "mean_change": relative,
            "d_z": diff.mean() / diff.std(ddof=1),
            "p": sps.ttest_rel(values, base).pvalue,
            "diff": diff,
        }
        independent = sps.ttest_ind(values, base, equal_var=False)
        welch[(measure, run)] |= {
            "t": independent.statistic,
            "df": independent.df,
            "p": independent.pvalue,
        }
    for figures in (paired, welch):  # Holm over every comparison of the section
        keys = [key for key in figures if "p" in figures[key]]
        for key, p in zip(keys, _holm([figures[key]["p"] for key in keys]), strict=True):
            figures[key]["p_adjusted"] = p
    return paired, welch


def _assert_as_recomputed(printed: dict, expected: dict, base_fields: set, fields: set):
    """Each row of ``printed`` has exactly ``base_fields`` (the baseline's row) or
    ``fields`` (the others'), each equal to its recomputation in ``expected``."""
    assert set(printed) == set(expected)
    for key, row in printed.items():
        want = expected[key]
        assert set(row) == (base_fields if key[1] == BASE else fields), key
        for name, value in row.items():
            if name == "wtl":
                # topics where trec_eval's 4-decimal values differ (compare's exact values
                # can differ below that only where trec_eval prints them equal)
                wins, ties, losses = value
                diff = want["diff"]
                assert wins + ties + losses == len(diff), key
                assert wins >= int(np.sum(diff > 0)) and losses >= int(np.sum(diff < 0)), key
                assert ties <= int(np.sum(diff == 0)), key
            elif name in P_VALUES:
                assert value == pytest.approx(want[name], rel=0.05, abs=1e-4), (key, name)
            else:
                assert abs(value - want[name]) <= TOLERANCE.get(name, 1e-4), (key, name)


def _interval(text: str) -> tuple[float, float]:
    """``[low, high]`` as printed (with or without signs)."""
    low, high = re.fullmatch(rf"\[({NUMBER}), ({NUMBER})\]", text).groups()
    return float(low), float(high)


def _mean(mean: str, interval: str) -> dict:
    """A run's mean and its interval, as printed apart."""
    low, high = _interval(interval)
    return {"mean": float(mean), "low": low, "high": high}


def _difference(text: str) -> dict:
    """``+0.1234 [+0.0500, +0.2000]``: the difference and its interval."""
    difference, interval = text.split(" ", 1)
    diff_low, diff_high = _interval(interval)
    return {"difference": float(difference), "diff_low": diff_low, "diff_high": diff_high}


def _p(text: str) -> float:
    """A p-value's cell, without the ▲/▼ marker and stars after it."""
    return float(text.split()[0])


def _wtl(text: str) -> tuple[int, ...]:
    return tuple(int(v) for v in text.strip().split("/"))


MEANS = {"mean", "low", "high"}
DIFFERENCES = {"difference", "diff_low", "diff_high", "change", "wtl", "p_adjusted"}
WELCH_BASE = {"mean", "normal_low", "normal_high"}
WELCH = WELCH_BASE | {"t", "df", "p", "p_adjusted"}


def _markdown_tables(text: str) -> dict:
    """compare's Markdown: ``{(measure, run): {field: value}}`` from the means tables (mean
    [low, high] change%) and the differences table (one section: no strata; the other
    tables are skipped)."""
    mean_cell = re.compile(rf"^(?:\*\*)?({NUMBER})(?:\*\*)? (\[.*?\])(?: ({NUMBER})%)?")
    rows, header = {}, None
    for line in text.splitlines():
        if not line.startswith("| ") or line.startswith("|---"):
            continue
        cells = [part.strip() for part in line.strip("|").split(" | ")]
        if cells[0] in ("Measure", ""):
            header = cells
            continue
        if header[2].startswith("Difference"):
            row = rows.setdefault((cells[0], cells[1]), {})
            row |= _difference(cells[2]) | {"change": float(cells[3].rstrip("%"))}
            row |= {"wtl": _wtl(cells[4]), "d_z": float(cells[5]), "p": _p(cells[6])}
            row["p_adjusted"] = _p(cells[7])
        elif header[-1] == "Best run":
            for run, text_cell in zip(header[1:-1], cells[1:-1], strict=True):
                mean, interval, change = mean_cell.match(text_cell).groups()
                row = rows.setdefault((cells[0], run.removesuffix(" (baseline)")), {})
                row |= _mean(mean, interval)
                if change is not None:
                    row["mean_change"] = float(change)
    return rows


def test_printed_numbers_equal_statistics_of_trec_eval_per_topic_values(tmp_path, expected):
    """The Markdown (--format markdown): means, intervals, differences and their intervals,
    relative change, d_z, p, Holm-adjusted p."""
    paired, _ = expected
    printed = _markdown_tables(_compare_demo(tmp_path / "cmp", "--format", "markdown").stdout)
    fields = DIFFERENCES | MEANS | {"mean_change", "d_z", "p"}
    _assert_as_recomputed(printed, paired, MEANS, fields)
    # the numbers are not all alike: some comparisons significant, some not
    adjusted = [row["p_adjusted"] for row in printed.values() if "p_adjusted" in row]
    assert 0 < sum(p < 0.05 for p in adjusted) < len(adjusted)


def _text_table(text: str, columns: str) -> list[list[str]]:
    """The cells of the terminal's aligned table whose columns' names match ``columns``,
    up to the blank line after it (cells two blanks apart; a row whose first cell is blank
    takes the measure of the row above)."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if re.match(columns, line)) + 1
    rows = []
    for line in lines[start : lines.index("", start)]:
        cells = re.split(r" {2,}", line)
        cells[0] = cells[0] or rows[-1][0]
        rows.append(cells)
    return rows


def test_the_terminal_table_prints_the_recomputed_numbers(text_run, expected):
    """The default table: means, intervals, differences and their intervals, change,
    W/T/L, Holm-adjusted p."""
    printed = {}
    for cells in _text_table(text_run[0], r"measure +run +mean +95% CI"):
        measure, run, mean, interval, *against = cells
        row = _mean(mean, interval)
        if against:
            difference, diff_interval, change, wtl, p_adjusted = against
            row |= _difference(f"{difference} {diff_interval}")
            row |= {"change": float(change.rstrip("%")), "wtl": _wtl(wtl)}
            row["p_adjusted"] = _p(p_adjusted)
        printed[(measure, run.removesuffix(" (base)"))] = row
    _assert_as_recomputed(printed, expected[0], MEANS, MEANS | DIFFERENCES)


def _welch_rows(rows: list[list[str]]) -> dict:
    """Rows ``measure, run, mean, normal CI[, Welch t, df, p, p adjusted]`` as fields."""
    printed = {}
    for measure, run, mean, interval, *test in rows:
        low, high = _interval(interval)
        row = {"mean": float(mean), "normal_low": low, "normal_high": high}
        if any(test):
            t, df, p, p_adjusted = test
            row |= {"t": float(t), "df": float(df), "p": _p(p), "p_adjusted": _p(p_adjusted)}
        printed[(measure, run)] = row
    return printed


def test_the_welch_view_is_scipy_s_welch_test_and_holm_in_every_format(text_run, expected):
    """The independent-samples view, in the terminal and in the Markdown: normal interval,
    Welch's t and df, p and Holm's p (over the section's comparisons) as
    scipy.stats.ttest_ind(equal_var=False) and Holm by hand give them."""
    _, welch = expected
    heading = "| Measure | Run | Mean | Normal CI | Welch t | df | p | p adjusted |"
    lines = (text_run[1] / "BenchmarkComparison.md").read_text().splitlines()
    start = lines.index(heading) + 2  # the heading, the alignment row
    markdown = [
        [part.strip() for part in line.strip("|").split(" | ")]
        for line in lines[start : lines.index("", start)]
    ]
    terminal = _text_table(text_run[0], r"measure +run +mean +normal CI")
    for rows in (markdown, terminal):
        _assert_as_recomputed(_welch_rows(rows), welch, WELCH_BASE, WELCH)


class _SummaryTable(HTMLParser):
    """The cells of report.html's summary table: ``(text, data-sort)`` per cell."""

    def __init__(self):
        super().__init__()
        self.rows: list[list[list[str]]] = []
        self._inside = self._body = self._cell = False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "table":
            self._inside = attrs.get("id") == "summary-table"
        elif self._inside and tag == "tbody":
            self._body = True
        elif self._body and tag == "tr":
            self.rows.append([])
        elif self._body and tag == "td":
            self.rows[-1].append(["", attrs["data-sort"]])
            self._cell = True

    def handle_endtag(self, tag):
        self._body = self._body and tag != "tbody"
        self._cell = self._cell and tag != "td"

    def handle_data(self, data):
        if self._cell:
            self.rows[-1][-1][0] += data


# the fields the summary's columns sort by (data-sort), from the third column
SORTED_BY = ["mean", "low", "difference", "change", None, "p", "p_adjusted"]


def test_report_html_summary_prints_the_recomputed_numbers(text_run, expected):
    """report.html's summary table, read without a browser: every cell's text (mean,
    interval, difference with its interval, change, W/T/L, p, Holm's p) and the number it
    sorts by."""
    pytest.importorskip("bokeh")
    table = _SummaryTable()
    table.feed((text_run[1] / "report.html").read_text())
    printed, sort_keys = {}, {}
    for cells in table.rows:
        texts = [text for text, _ in cells]
        measure, run, mean, interval, difference, change, wtl, p, p_adjusted = texts
        row = _mean(mean, interval)
        if difference != "baseline":
            row |= _difference(difference) | {"change": float(change.rstrip("%"))}
            row |= {"wtl": _wtl(wtl), "p": _p(p), "p_adjusted": _p(p_adjusted)}
        else:
            assert texts[5:] == [""] * 4
        printed[(measure, run)] = row
        sort_keys[(measure, run)] = {
            name: float(key)
            for name, (_, key) in zip(SORTED_BY, cells[2:], strict=True)
            if name in row
        }
    _assert_as_recomputed(printed, expected[0], MEANS, MEANS | DIFFERENCES | {"p"})
    sorted_base = {"mean", "low"}
    _assert_as_recomputed(sort_keys, expected[0], sorted_base, {*SORTED_BY} - {None})
