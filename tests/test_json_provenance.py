"""The JSON of pool, similarity, score, diff and validate records how it was made: the
tool and environment, the settings that change a number, and each input file's record with
its sha256 (checked here against hashlib of the file's bytes), taken as the file was read:
a run given through a FIFO, which can be read once, is recorded too."""

from __future__ import annotations

import hashlib
import json
import os
import threading
from pathlib import Path

import pytest

from trecbench import __version__
from trecbench.cli import run

QRELS = "qrels/hpo-demo.qrels"
RUNS = ["runs/tfidf-word.run", "runs/tfidf-char.run"]
TOOL = {"name": "trecbench", "version": __version__}


def _sha256(path: str | Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def _fifo_of(path: str, folder: Path) -> tuple[str, threading.Thread]:
    """A FIFO fed ``path``'s bytes by a thread (a daemon: a call that never opens it does
    not hold the tests)."""
    fifo = folder / "pipe.run"
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: fifo.write_bytes(Path(path).read_bytes()), daemon=True)
    writer.start()
    return str(fifo), writer


def _check_environment(document: dict) -> None:
    assert document["tool"] == TOOL
    environment = document["environment"]
    assert environment["trecbench"] == __version__
    assert {"numpy", "pyarrow", "ir-measures"} <= set(environment["packages"])


def _check_inputs(inputs: list[dict], expected: list[tuple[str, str, str]]) -> None:
    """``expected``: (path recorded, kind, file whose bytes were read)."""
    assert [(r["path"], r["kind"]) for r in inputs] == [(p, k) for p, k, _ in expected]
    for record, (_, _, source) in zip(inputs, expected, strict=True):
        assert record["sha256"] == _sha256(source)
        assert record["size"] == Path(source).stat().st_size


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes")
def test_pool_json_records_tool_environment_settings_and_inputs(tmp_path, capsys):
    fifo, writer = _fifo_of(RUNS[1], tmp_path)
    out = str(tmp_path / "pool.txt")
    args = ["pool", RUNS[0], fifo, "--depth", "10", "--qrels", QRELS, "-o", out]
    assert run([*args, "--format", "json", "--unjudged-grade", "0", "--quiet"]) == 0
    writer.join()
    document = json.loads(capsys.readouterr().out)
    _check_environment(document)
    assert document["settings"] == {
        "depth": 10,
        "relevance_level": 1,
        "qrels": QRELS,
        "unjudged_grade": "0",
    }
    expected = [(RUNS[0], "run", RUNS[0]), (fifo, "run", RUNS[1]), (QRELS, "qrels", QRELS)]
    _check_inputs(document["inputs"], expected)
    assert document["inputs"][1]["lines"] == len(Path(RUNS[1]).read_text().splitlines())


def test_pool_json_without_qrels_records_none(tmp_path, capsys):
    out = str(tmp_path / "pool.txt")
    assert run(["pool", *RUNS, "--depth", "5", "-o", out, "--format", "json", "--quiet"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["settings"]["qrels"] is None
    assert document["settings"]["unjudged_grade"] is None
    _check_inputs(document["inputs"], [(r, "run", r) for r in RUNS])


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes")
def test_similarity_json_records_tool_environment_and_inputs(tmp_path, capsys):
    fifo, writer = _fifo_of(RUNS[1], tmp_path)
    assert run(["similarity", RUNS[0], fifo, "--format", "json", "--rbo-p", "0.8"]) == 0
    writer.join()
    document = json.loads(capsys.readouterr().out)
    _check_environment(document)
    assert document["settings"]["rbo_p"] == 0.8
    _check_inputs(document["inputs"], [(RUNS[0], "run", RUNS[0]), (fifo, "run", RUNS[1])])


def test_score_json_records_tool_and_environment(capsys):
    assert run(["score", "--format", "json", "-m", "map", QRELS, RUNS[0]]) == 0
    _check_environment(json.loads(capsys.readouterr().out))


def test_diff_json_records_tool_and_both_reports(tmp_path, capsys):
    a, b = str(tmp_path / "a.json"), str(tmp_path / "b.json")
    assert run(["score", "--report", a, "-m", "map", QRELS, RUNS[0]]) == 0
    assert run(["score", "--report", b, "-m", "map", "-l", "2", QRELS, RUNS[0]]) == 0
    capsys.readouterr()
    assert run(["diff", a, b, "--format", "json"]) == 1
    document = json.loads(capsys.readouterr().out)
    assert document["tool"] == TOOL
    for side, path in (("a", a), ("b", b)):
        record = document["reports"][side]
        assert record == {
            "path": path,
            "kind": "report",
            "size": Path(path).stat().st_size,
            "sha256": _sha256(path),
        }


@pytest.mark.parametrize("extra", [[], ["--docid-regex", ".+"]])  # small and general paths
def test_validate_json_records_the_settings_in_each_entry(extra, capsys):
    args = ["validate", RUNS[0], "--qrels", QRELS, "--profile", "strict", "--format", "json"]
    run([*args, "--min-depth", "3", *extra])
    documents = json.loads(capsys.readouterr().out)
    assert [d["kind"] for d in documents] == ["qrels", "run"]
    for document in documents:
        assert document["settings"] == {
            "profile": "strict",
            "qrels": QRELS,
            "topics": None,
            "docids": None,
            "docid_regex": extra[1] if extra else None,
            "max_depth": 1000,
            "min_depth": 3,
            "relevance_level": 1,
            "tag_is_filename": False,
        }


def test_the_api_records_its_inputs_as_the_command_line_does_reading_each_once(tmp_path):
    # pool()/similarity() outside the command line read each run again for its record,
    # counting an ir_metadata block's lines as run lines (final read 345)
    import trecbench
    from trecbench.inputs import ir_metadata, streams

    body = Path(RUNS[0]).read_bytes()
    headed = tmp_path / "headed.run"
    headed.write_bytes(ir_metadata.block_text({"tag": "w"}).encode() + body)
    opened = []
    source_init = streams.Source.__init__

    def counted(self, path, *args, **kwargs):
        opened.append(os.fspath(path))
        source_init(self, path, *args, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(streams.Source, "__init__", counted)
        result = trecbench.pool([str(headed), RUNS[1]], depth=5)
    record = next(r for r in result.inputs if r["path"] == str(headed))
    assert record["lines"] == body.count(b"\n") and record["sha256"] == _sha256(headed)
    assert opened.count(str(headed)) == 1
    pair = trecbench.similarity([str(headed), RUNS[1]])
    assert next(r for r in pair.inputs if r["path"] == str(headed)) == record


def test_one_file_read_as_two_kinds_has_a_record_of_each():
    # read_records kept one record per path: a file given as a run and as qrels lost the
    # second, where every report keeps one per (path, kind) (final read 345)
    from trecbench.report import read_records

    records = read_records([(RUNS[0], "run"), (RUNS[0], "qrels"), (RUNS[0], "run")])
    assert [(r["path"], r["kind"]) for r in records] == [(RUNS[0], "run"), (RUNS[0], "qrels")]
    assert {r["sha256"] for r in records} == {_sha256(RUNS[0])}
