"""benchmarks/run.py: the "output = trec_eval" check of `make bench`, on the bundled demo
run and the trec_eval binary's stored output for it (tests/fixtures/trec_eval_demo); and
the bench's arithmetic (medians, ratios, the Markdown table) on timing rows made by hand,
worked by hand."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import ROOT, shown_rows

from benchmarks import timing
from benchmarks.run import (
    SAME_AS,
    _ratios,
    _versus_plain,
    _versus_script,
    compare,
    markdown,
    trec_lines,
)
from benchmarks.timing import summarise

FIXTURES = Path(__file__).parent / "fixtures" / "trec_eval_demo"
QRELS, RUN = ROOT / "qrels" / "hpo-demo.qrels", ROOT / "runs" / "tfidf-word.run"


def _reference() -> dict[tuple[str, str], str]:
    # as bench_case builds it: the -q output, and recip_rank on -M 10 as recip_rank@M10
    reference = trec_lines(FIXTURES / "tfidf-word.kpi.out")
    for (label, qid), value in trec_lines(FIXTURES / "tfidf-word.mrr10.out").items():
        reference[(f"{label}@M10", qid)] = value
    return reference


def _score(tmp_path: Path, *flags: str) -> Path:
    import subprocess
    import sys

    out = tmp_path / f"ours{''.join(flags)}.txt"
    with out.open("wb") as stdout:
        subprocess.run(
            [sys.executable, "-m", "trecbench", "score", *flags, str(QRELS), str(RUN)],
            stdout=stdout,
            check=True,
        )
    return out


def test_identical_output_is_every_value_and_nothing_else(tmp_path):
    reference, topics = _reference(), 56
    per_query = _score(tmp_path, "-q")
    assert compare(per_query, reference, per_query=True) == (True, len(SAME_AS) * (topics + 1))
    summary = _score(tmp_path, "--format", "trec")
    assert compare(summary, reference, per_query=False) == (True, len(SAME_AS))
    # a value that differs, or one trecbench left out, is not identical
    lines = per_query.read_text().splitlines()
    changed = tmp_path / "changed.txt"
    changed.write_text("\n".join([*lines[:-1], lines[-1].replace("0.", "1.")]) + "\n")
    assert not compare(changed, reference, per_query=True)[0]
    dropped = tmp_path / "dropped.txt"
    dropped.write_text("\n".join(line for line in lines if "\tde-01\t" not in line) + "\n")
    assert not compare(dropped, reference, per_query=True)[0]
    assert not compare(per_query, reference, per_query=False)[0]  # per-topic lines extra


def test_summarise_takes_medians_the_best_the_largest_peak_and_the_last_exit():
    # (wall s, peak MiB, exit code, CPU s, load): medians of 1, 2, 3 and 0.9, 1.5, 2.5
    runs = [(3.0, 100.0, 0, 2.5, 0.514), (1.0, 120.0, 0, 0.9, 1.234), (2.0, 90.0, 1, 1.5, 2.0)]
    assert summarise(runs) == {
        "seconds": 2.0,
        "best_seconds": 1.0,
        "all_seconds": [3.0, 1.0, 2.0],
        "cpu_seconds": 1.5,
        "peak_mib": 120.0,
        "exit_code": 1,
        "load": [0.51, 1.23, 2.0],
    }
    even = [(4.0, 1.0, 0, 4.0, 0.0), (1.0, 1.0, 0, 1.0, 0.0), (3.0, 1.0, 0, 3.0, 0.0)]
    even.append((2.0, 1.0, 0, 2.0, 0.0))  # four rounds: the mean of the middle two, 2.5
    assert (summarise(even)["seconds"], summarise(even)["cpu_seconds"]) == (2.5, 2.5)


def _row(tool: str, task: str, seconds: float, cpu: float, peak: float, **more) -> dict:
    return {"tool": tool, "task": task, "seconds": seconds, "cpu_seconds": cpu,
            "peak_mib": peak, "lines": 1000, **more}  # fmt: skip


def _rows() -> list[dict]:
    return [
        _row("trecbench", "validate", 0.25, 0.2, 40.0),
        _row("trecbench", "score", 1.0, 0.8, 100.0, all_seconds=[1.0, 2.0, 1.0]),
        _row("trecbench", "score gzip", 1.1, 0.9, 120.0, all_seconds=[1.1, 2.6, 1.3]),
        _row("trecbench", "score -q", 3.0, 2.4, 150.0),
        _row("trec_eval", "score", 2.0, 1.6, 50.0),
        _row("trec_eval", "score -q", 4.0, 3.2, 60.0),
        _row("pytrec_eval", "score", 0.5, 0.4, 80.0),
    ]


def test_ratios_are_the_row_over_trec_eval_on_its_task_else_on_score():
    rows = _rows()
    _ratios(rows)
    by_task = {(row["tool"], row["task"]): row for row in rows}
    ratios = ("ratio", "cpu_ratio", "memory_ratio")
    expected = {
        ("trecbench", "score"): (1.0 / 2.0, 0.8 / 1.6, 100.0 / 50.0),
        ("trecbench", "score gzip"): (1.1 / 2.0, 0.9 / 1.6, 120.0 / 50.0),  # no trec_eval gzip
        ("trecbench", "score -q"): (3.0 / 4.0, 2.4 / 3.2, 150.0 / 60.0),
        ("trec_eval", "score"): (1.0, 1.0, 1.0),
        ("pytrec_eval", "score"): (0.5 / 2.0, 0.4 / 1.6, 80.0 / 50.0),
        ("trecbench", "validate"): (None, None, None),  # trec_eval does not validate
    }
    for key, values in expected.items():
        assert tuple(by_task[key][name] for name in ratios) == pytest.approx(values), key
        assert by_task[key]["lines_per_second"] == pytest.approx(1000 / by_task[key]["seconds"])
    short = [_row("trecbench", "score", 0.2, 0.2, 9.0), _row("trec_eval", "score", 0.04, 0.04, 1.0)]
    _ratios(short)  # trec_eval in under 0.05 s is too short to divide by
    assert [row["ratio"] for row in short] == [None, None]
    alone = [_row("trecbench", "score", 0.2, 0.2, 9.0)]  # no trec_eval found
    _ratios(alone)
    assert alone[0]["ratio"] is None


def test_versus_script_and_plain_divide_by_the_script_and_the_plain_file():
    rows = _rows()
    _versus_script(rows)
    _versus_plain(rows)
    shown = {(row["tool"], row["task"]): row.get("vs_pytrec_eval") for row in rows}
    assert shown == {
        ("trecbench", "validate"): pytest.approx(0.25 / 0.5),
        ("trecbench", "score"): pytest.approx(1.0 / 0.5),
        ("trecbench", "score gzip"): pytest.approx(1.1 / 0.5),
        ("trecbench", "score -q"): pytest.approx(3.0 / 0.5),
        ("trec_eval", "score"): None,
        ("trec_eval", "score -q"): None,
        ("pytrec_eval", "score"): None,
    }
    (gzip,) = [row for row in rows if "vs_plain" in row]
    assert gzip["task"] == "score gzip"
    # the median of the rounds' ratios (1.1, 1.3, 1.3), not the medians' ratio (1.3 / 1.0)
    assert (gzip["vs_plain"], gzip["memory_vs_plain"]) == pytest.approx((1.3, 1.2))
    without = [row for row in _rows() if row["tool"] != "pytrec_eval"]
    _versus_script(without)
    assert not any("vs_pytrec_eval" in row for row in without)


def test_alternated_tasks_swap_places_in_every_other_round(monkeypatch):
    ran: list[str] = []

    def timed(command, stdout=None):
        ran.append(command[-1])
        return 1.0, 10.0, 0, 1.0

    monkeypatch.setattr(timing, "timed", timed)
    case = timing.Case("msmarco", 10)
    for task in ("validate", "score", "score gzip", "score -q"):
        case.add("trecbench", task, [task])
    case.alternate("score", "score gzip")
    rows = case.run(3)
    first = ["validate", "score", "score gzip", "score -q"]
    second = ["validate", "score gzip", "score", "score -q"]
    assert ran == first + second + first
    assert [row["task"] for row in rows] == first  # the rows keep the order added


def test_markdown_shows_the_rows_figures_under_their_headers():
    rows = _rows()[1:3]  # trecbench's score, plain and gzipped
    for row in rows:
        row.update(case="msmarco", best_seconds=row["seconds"] - 0.05, load=[0.5, 2.3, 1.0])
    rows[0].update(ratio=0.5, cpu_ratio=0.25, vs_pytrec_eval=0.75, identical=True)
    rows[0].update(values_checked=41880)
    rows[1].update(ratio=0.55, cpu_ratio=0.45, identical=False, vs_plain=1.1)
    rows[1].update(memory_vs_plain=1.2)
    machine = {"label": "vm", "gzip": "zlib-ng", "cpu": "cpu", "cores": 2, "memory": "8 GB",
               "os": "Linux", "python": "3.12", "numpy": "2", "pyarrow": "18"}  # fmt: skip
    results = {"machine": machine, "rows": rows, "trec_eval_build": "-O3", "trec_eval": "te",
               "repeats": 5, "date": "today"}  # fmt: skip
    text = markdown(results)
    shown = shown_rows(text, "case", "markdown")
    assert shown == [
        {"case": "msmarco", "lines": "1,000", "tool": "trecbench", "task": "score",
         "median s (best)": "1.00 (0.95)", "CPU s": "0.80", "vs trec_eval (CPU)": "0.50x (0.25x)",
         "vs pytrec_eval script": "0.75x", "peak MiB": "100", "load": "0.5-2.3",
         "output = trec_eval": "identical (41,880 values)", "machine": "vm"},
        {"case": "msmarco", "lines": "1,000", "tool": "trecbench", "task": "score gzip",
         "median s (best)": "1.10 (1.05)", "CPU s": "0.90", "vs trec_eval (CPU)": "0.55x (0.45x)",
         "vs pytrec_eval script": "", "peak MiB": "120", "load": "0.5-2.3",
         "output = trec_eval": "DIFFERENT", "machine": "vm"},
    ]  # fmt: skip
    assert (
        "\nmsmarco gzipped: 1.10x the plain file's time (the median of the rounds' ratios, the "
        "two timed in alternating order), 1.20x its peak memory "
    ) in text
