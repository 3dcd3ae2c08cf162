"""power's and agree's JSON record what compare's report records of how the numbers were
made: the tool and package versions, the evaluation's flags (-l, -M, -J) and every input
file with its sha256 (checked against hashlib and importlib.metadata, not trecbench)."""

from __future__ import annotations

import hashlib
import json
from importlib import metadata
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import write_tenths

import trecbench
from trecbench.cli import cli

COUNTS = {"r0": [1, 2, 3, 4, 5, 2], "r1": [3, 2, 5, 6, 5, 4], "r2": [1, 0, 3, 2, 6, 2]}


def _json(*argv: str) -> dict:
    done = CliRunner().invoke(cli, [*argv, "--format", "json"])
    assert done.exit_code == 0, done.output
    return json.loads(done.stdout)


def _files(folder: Path) -> tuple[str, list[str]]:
    write_tenths(folder, COUNTS)
    return str(folder / "q.qrels"), [str(folder / f"{run}.run") for run in COUNTS]


def _checked_inputs(document: dict, files: dict[str, str | None], second: str = "") -> None:
    """``document``'s ``inputs`` are ``files`` (path: run name, None for qrels), in order,
    each with the size and sha256 of its bytes (``second``: agree's second judgments,
    kind ``qrels_b``)."""
    inputs = document["inputs"]
    assert [record["path"] for record in inputs] == list(files)
    for record in inputs:
        data = Path(record["path"]).read_bytes()
        assert record["sha256"] == hashlib.sha256(data).hexdigest()
        assert record["size"] == len(data)
        assert record.get("name") == files[record["path"]]
        qrels = "qrels_b" if record["path"] == second else "qrels"
        assert record["kind"] == (qrels if files[record["path"]] is None else "run")


def _checked_versions(document: dict) -> None:
    assert document["tool"] == {"name": "trecbench", "version": trecbench.__version__}
    packages = document["environment"]["packages"]
    assert packages["numpy"] == metadata.version("numpy")
    assert packages["scipy"] == metadata.version("scipy")


def test_power_json_records_the_flags_versions_and_checksums(tmp_path):
    # settings was {"alpha": 0.05, "target": 0.8} with and without -M 3 -J, whose rows
    # differ; no versions, no checksums, no run paths
    qrels, runs = _files(tmp_path)
    plain = _json("power", qrels, *runs, "-m", "P@10")
    cut = _json("power", qrels, *runs, "-m", "P@10", "-M", "3", "-J", "-l", "1")
    assert plain["rows"] != cut["rows"]
    assert (plain["evaluation"]["max_docs"], plain["evaluation"]["judged_only"]) == (None, False)
    assert (cut["evaluation"]["max_docs"], cut["evaluation"]["judged_only"]) == (3, True)
    _checked_versions(cut)
    _checked_inputs(cut, {qrels: None} | {run: Path(run).stem for run in runs})
    # the same record compare's report keeps of the same flags
    compared = _json("compare", qrels, *runs, "-m", "P@10", "-M", "3", "-J")
    # every flag, -c too: power's means and compare's (--missing zero, its default) count
    # a topic a run lacks as -c does, and both records say so
    assert compared["evaluation"] == cut["evaluation"]
    assert compared["tool"] == cut["tool"]
    assert compared["environment"].keys() == cut["environment"].keys()


def test_agree_json_records_both_judgments_and_the_flags(tmp_path):
    qrels, runs = _files(tmp_path)
    second = tmp_path / "b.qrels"
    second.write_text("".join(line.replace(" 0 R1 1", " 0 R1 0") + "\n" for line in
                              Path(qrels).read_text().splitlines()))  # fmt: skip
    document = _json("agree", qrels, *runs, "-m", "P@10", "-l", "1", "-M", "5",
                     "--qrels-b", str(second))  # fmt: skip
    evaluation = document["evaluation"]
    assert (evaluation["max_docs"], evaluation["relevance_level"]) == (5, 1)
    _checked_versions(document)
    files = {qrels: None} | {run: Path(run).stem for run in runs} | {str(second): None}
    _checked_inputs(document, files, second=str(second))


def test_compare_power_s_rows_stay_without_a_second_record(tmp_path):
    # compare's report records the inputs once; its power part keeps its keys
    from trecbench.report import validate_against_schema

    qrels, runs = _files(tmp_path)
    report = _json("compare", qrels, *runs, "-m", "P@10", "--power", "0.8")
    assert set(report["power"]) == {"settings", "baseline", "qrels", "rows"}
    validate_against_schema(report, "benchmark_report")


def test_every_report_takes_its_tool_record_from_one_place(tmp_path, monkeypatch):
    # compare's report and convert's ir_metadata wrote {"name": "trecbench", ...} inline:
    # a second spelling of report.tool() to keep equal by hand
    import trecbench.report

    patched = {"name": "trecbench", "version": "0+one-place"}
    monkeypatch.setattr(trecbench.report, "tool", lambda: dict(patched))
    qrels, runs = _files(tmp_path)
    assert _json("compare", qrels, *runs, "-m", "P@10")["tool"] == patched
    assert _json("power", qrels, *runs, "-m", "P@10")["tool"] == patched
    about = tmp_path / "about.yaml"
    about.write_text("actor:\n  team: lab\n")
    source = Path(__file__).resolve().parents[1] / "data" / "convert" / "msmarco-run.tsv"
    out = tmp_path / "out"
    argv = ["convert", "--ir-metadata", str(about), "msmarco", str(source), "-o", str(out)]
    assert CliRunner().invoke(cli, argv).exit_code == 0
    (written,) = out.glob("*.run")
    metadata = trecbench.load_run(str(written)).ir_metadata
    assert metadata["method"]["conversion"]["tool"] == patched


def test_compare_records_each_evaluation_s_inputs_then_the_strata_sidecar(tmp_path):
    # r2 judged by its own qrels (a second evaluation): the files each evaluation read,
    # in order, then the sidecar the strata came from; sizes and sha256 as hashlib reads
    # the bytes
    qrels, runs = _files(tmp_path)
    own = tmp_path / "own.qrels"
    own.write_bytes(Path(qrels).read_bytes().replace(b" 0 R1 1", b" 0 R1 0"))
    sidecar = tmp_path / "s.sidecar.json"
    queries = {f"T{q}": {"g": "x" if q < 3 else "y"} for q in range(6)}
    sidecar.write_text(json.dumps({"strata": {"fields": ["g"], "queries": queries}}))
    document = _json("compare", qrels, *runs[:2], "--run-qrels", runs[2], str(own), "-m",
                     "P@10", "--strata", str(sidecar), "--group-by", "g")  # fmt: skip
    *read, strata = document["inputs"]
    assert [record["path"] for record in read] == [qrels, *runs[:2], str(own), runs[2]]
    assert [record["kind"] for record in read] == ["qrels", "run", "run", "qrels", "run"]
    assert (strata["path"], strata["kind"]) == (str(sidecar), "strata")
    for record in document["inputs"]:
        data = Path(record["path"]).read_bytes()
        assert (record["size"], record["sha256"]) == (len(data), hashlib.sha256(data).hexdigest())


def test_power_and_agree_record_the_missing_topics_policy_their_means_were_made_with(tmp_path):
    # r2 has no results for T3: its mean P@10 counts T3 as 0, (1 + 0 + 3 + 0 + 6 + 2) / 60
    # = 0.2, as trec_eval -c prints it (without -c: 12 / 50 = 0.24). The record said
    # "complete": false, and re-running with it gave 0.24
    qrels, runs = _files(tmp_path)
    lines = Path(runs[2]).read_text().splitlines(keepends=True)
    Path(runs[2]).write_text("".join(line for line in lines if not line.startswith("T3 ")))
    agreed = _json("agree", qrels, *runs, "-m", "P@10")
    means = {row["run"]: row["mean"] for row in agreed["means"]}
    assert means["r2"] == pytest.approx(12 / 60, abs=1e-15)
    powered = _json("power", qrels, *runs, "-m", "P@10")
    for document in (agreed, powered):
        assert document["evaluation"]["complete"] is True
    # compare records the same policy in its words
    assert _json("compare", qrels, *runs, "-m", "P@10")["settings"]["missing"] == "zero"


@pytest.mark.parametrize("same", [False, True], ids=["another file", "the same file"])
def test_agree_records_the_second_judgments_in_their_own_role(tmp_path, same):
    # both sets were recorded as kind "qrels", and the same file given for both as one
    # record: which one judged the runs first could not be told, nor that two roles were
    qrels, runs = _files(tmp_path)
    second = qrels
    if not same:
        second = str(tmp_path / "b.qrels")
        Path(second).write_bytes(Path(qrels).read_bytes().replace(b" 0 R1 1", b" 0 R1 0"))
    document = _json("agree", qrels, *runs, "-m", "P@10", "--qrels-b", second)
    inputs = document["inputs"]
    assert [(r["path"], r["kind"]) for r in inputs] == [
        (qrels, "qrels"), *((run, "run") for run in runs), (second, "qrels_b")
    ]  # fmt: skip
    for record in (inputs[0], inputs[-1]):
        data = Path(record["path"]).read_bytes()
        assert (record["size"], record["sha256"]) == (len(data), hashlib.sha256(data).hexdigest())
        assert record["lines"] == len(data.splitlines())
