"""score --html where a measure is undefined on a topic (trec_eval's -nan): the page leaves
the measure out, said on stderr, and score prints every value as without --html; with no
measure left for the page, the call is refused before anything is printed or written."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from conftest import ROOT

pytest.importorskip("bokeh")

DATA_TAG = '<script type="application/json" id="report-data">'
TREC_EVAL = "/work/tools/te908/trec_eval"
# -J -M 1: nan0 retrieves nothing judged within rank 1 on t3 (d1 is unjudged there), so
# its interpolated precision at recall 0 is undefined there (trec_eval: -nan); map is 0
QRELS = "t1 0 d1 1\nt1 0 d2 0\nt2 0 d1 1\nt2 0 d5 1\nt3 0 d3 1\n"
RUNS = {
    "nan0.run": "".join(f"t{t} Q0 d{d} {d} {10 - d} n0\n" for t in (1, 2, 3) for d in range(1, 6)),
    "nan1.run": "".join(
        f"t{t} Q0 d{6 - d} {d} {10 - d} n1\n" for t in (1, 2, 3) for d in range(1, 6)
    ),
}
FLAGS = ["-J", "-M", "1", "-q"]


def _files(folder) -> list[str]:
    (folder / "nan.qrels").write_text(QRELS)
    for name, text in RUNS.items():
        (folder / name).write_text(text)
    return ["nan.qrels", *RUNS]


def _score(folder, *args: str) -> subprocess.CompletedProcess:
    environment = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run(
        [sys.executable, "-m", "trecbench", "score", *args],
        cwd=folder,
        capture_output=True,
        text=True,
        env=environment,
        check=False,
    )


def _trec_eval(folder, run: str, measures: list[str]) -> str:
    """trec_eval 9.0.8's -q values of ``run`` (its lines, run tag column left out)."""
    options = [f"-m{m}" for m in measures]
    done = subprocess.run(
        [TREC_EVAL, *FLAGS, *options, "nan.qrels", run],
        cwd=folder,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


def test_the_page_leaves_out_a_measure_undefined_on_a_topic_and_every_score_is_printed(
    tmp_path,
):
    files = _files(tmp_path)
    measures = ["-m", "iprec_at_recall.0.00", "-m", "map"]
    plain = _score(tmp_path, *FLAGS, *measures, *files)
    assert plain.returncode == 0, plain.stderr
    paged = _score(tmp_path, *FLAGS, *measures, *files, "--html", "p.html", "--report", "r.json")
    assert paged.returncode == 0, paged.stderr
    # the text is score's without --html: every value, trec_eval's -nan included
    assert paged.stdout == plain.stdout
    assert "iprec_at_recall_0.00  \tt3\t  -nan\n" in paged.stdout
    if os.access(TREC_EVAL, os.X_OK):  # nan0's lines are trec_eval's
        nan0 = paged.stdout.split("# nan0\n")[1].split("# nan1\n")[0]
        assert nan0 == _trec_eval(tmp_path, "nan0.run", ["map", "iprec_at_recall.0.00"])
    # the page's line says what it leaves out; each run's line where the values are
    # undefined and how they print, as without --html (both runs: the page's names one)
    undefined = [line for line in paged.stderr.splitlines() if "undefined on topic" in line]
    assert undefined == [line for line in plain.stderr.splitlines() if "undefined on" in line]
    assert [line.split(":")[1] for line in undefined] == [" warning", " warning"]
    assert "nan1: iprec_at_recall.0.00 undefined on topic t1 and 1 other topic" in undefined[1]
    warnings = [line for line in paged.stderr.splitlines() if "leaves out" in line]
    assert warnings == [
        "trecbench: warning: the page leaves out iprec_at_recall_0.00 (undefined for run "
        "'nan0' on 't3'): its intervals and paired tests take no such value (score's "
        "output prints every value, -nan or nan where undefined, as trec_eval prints them)"
    ]
    page = (tmp_path / "p.html").read_text()
    start = page.index(DATA_TAG) + len(DATA_TAG)
    data = json.loads(page[start : page.index("</script>", start)])
    assert data["measures"] == ["MAP"]  # as the page labels map
    # trec_eval: nan0's map is 1, 1/2, 0 on t1..t3 (d1 at rank 1 of 1, 1 of 2, 0 of 1)
    assert {qid: by_run["nan0"] for qid, by_run in data["values"].items()} == {
        "t1": [1.0],
        "t2": [0.5],
        "t3": [0.0],
    }
    assert len(json.loads((tmp_path / "r.json").read_text())["results"]) == 2


def test_no_measure_left_for_the_page_is_refused_before_anything_is_printed(tmp_path):
    files = _files(tmp_path)
    done = _score(
        tmp_path, *FLAGS, "-m", "iprec_at_recall.0.00", *files, "--html", "p.html",
        "--report", "r.json",
    )  # fmt: skip
    assert (done.returncode, done.stdout) == (1, "")
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(files)
    # the refusal alone: the warning of values undefined said they were printed before it
    # (reviewer 679; its filter of every warning line hid it)
    errors = done.stderr.splitlines()
    assert errors == [
        "trecbench: --html: the page cannot show iprec_at_recall_0.00 (undefined for run "
        "'nan0' on 't3'): its intervals and paired tests take no such value, and no other "
        "measure averaged over topics is left for it: leave out --html to print the scores "
        "(-nan or nan where undefined, as trec_eval prints them), or ask a measure defined "
        "on every topic"
    ]


def test_a_z_score_undefined_is_told_as_score_prints_it_nan(tmp_path):
    # -Z with a nan mean: score printed "nan" where the warning said it prints "-nan"
    files = _files(tmp_path)
    (tmp_path / "z").write_text(
        "t1 map nan nan\n" + "".join(f"t{t} map 0.5 0.2\nt{t} P_1 0.5 0.2\n" for t in (1, 2, 3))
    )
    done = _score(
        tmp_path, "-q", "-Z", "z", "-m", "map", "-m", "P.1", *files[:2], "--html", "p.html"
    )
    assert done.returncode == 0, done.stderr
    assert "Zmap                   \tt1\t   nan\n" in done.stdout
    warnings = [line for line in done.stderr.splitlines() if "leaves out" in line]
    assert warnings == [
        "trecbench: warning: the page leaves out ZMAP (undefined for run 'nan0' on 't1'): its "
        "intervals and paired tests take no such value (score's output prints every value, "
        "-nan or nan where undefined, as trec_eval prints them)"
    ]


@pytest.mark.parametrize("output_format", ["trec", "table", "markdown", "csv", "json"])
def test_a_value_undefined_on_a_topic_is_warned_of_in_every_format(tmp_path, output_format):
    """Reviewer 676: the table and Markdown printed trec_eval's -nan as a mean, CSV an
    empty cell and JSON null, and nothing said why; a line now names the run, the measures
    as asked, the first topic and the cause, once whatever the format. -Z's undefined
    values are said by its own warnings (above), not twice."""
    files = _files(tmp_path)
    measures = ["-m", "iprec_at_recall.0.00", "-m", "map", "-m", "11pt_avg"]
    flags = FLAGS if output_format in ("trec", "csv", "json") else FLAGS[:-1]  # -q's formats
    done = _score(tmp_path, *flags, *measures, *files, "--format", output_format)
    assert done.returncode == 0, done.stderr
    # trec_eval 9.0.8 prints -nan for nan0 on t3, for nan1 on t1 and t3 (-J -M 1)
    said = (
        "iprec_at_recall.0.00, 11pt_avg undefined on topic {} (-J: nothing judged is left in "
        "the cut): printed -nan or nan, as trec_eval prints it, and so is the mean over "
        "topics (no number: null in JSON, empty in CSV)"
    )
    assert done.stderr.splitlines() == [
        "trecbench: warning: nan0: " + said.format("t3"),
        "trecbench: warning: nan1: " + said.format("t1 and 1 other topic"),
    ]
    # without -J nothing is undefined: nothing said
    done = _score(tmp_path, "-M", "1", *measures, *files, "--format", output_format)
    assert (done.returncode, done.stderr) == (0, "")
    # -Z's warnings say a z-scores file's mean or stddev that is no number, not -J's:
    # with -J the line is said too (it was not), naming both causes
    (tmp_path / "z").write_text(
        "".join(f"t{t}\t{m}\t0.5\t0.1\n" for t in (1, 2, 3) for m in ("map", "11pt_avg"))
    )
    done = _score(tmp_path, *flags, "-Z", "z", "-m", "11pt_avg", "-m", "map", files[0], files[1],
                  "--format", output_format)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines() == [
        "trecbench: warning: nan0: 11pt_avg undefined on topic t3 (-J: nothing judged is left "
        "in the cut; or the -Z file's mean or stddev): printed -nan or nan, as trec_eval "
        "prints it, and so is the mean over topics (no number: null in JSON, empty in CSV)"
    ]
