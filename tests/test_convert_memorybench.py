"""memorybench converter on faithful export-JSON and results.db fixtures."""

from __future__ import annotations

import json
import sqlite3

import pytest

from trecbench.convert.memorybench import (
    convert_memorybench,
    line_relevant,
    read_results,
    same_file,
)
from trecbench.errors import InputError


def chunk(cid, path, start, end, score):
    return {
        "id": cid,
        "content": "...",
        "score": score,
        "metadata": {"filepath": path, "startLine": start, "endLine": end, "chunkIndex": 0,
                     "repo": "org_r", "absolutePath": f"/abs/org_r/{path}"},
    }  # fmt: skip


def results():
    truth = {"file": "src/Mod.py", "startLine": 10, "endLine": 19}  # 0-based, inclusive
    return [
        {  # location rule; chunk lines 1-based for this provider
            "runId": "run1", "benchmark": "code-chunk", "provider": "chonkie",
            "itemId": "org_r/1", "question": "q",
            "retrievedContext": [
                chunk("c1", "org_r/src/mod.py", 21, 30, 0.9),  # 20-29 after -1: no overlap
                chunk("c2", "org_r/src/mod.py", 20, 25, 0.8),  # 19-24: overlaps line 19
                chunk("c3", "other/src/mod.py.bak", 11, 19, 0.7),  # another file
                chunk("c4", "src/mod.py", 11, 20, 0.7),  # 10-19: exact
            ],
            "metadata": {"repo": "org_r", "groundTruth": truth},
        },
        {  # explicit relevant ids win over location
            "runId": "run1", "benchmark": "code-chunk", "provider": "chonkie",
            "itemId": "org_r/2", "question": "q",
            "retrievedContext": [chunk("c9", "x.py", 1, 2, 0.5), chunk("c8", "x.py", 3, 4, 0.4)],
            "metadata": {"repo": "org_r", "groundTruth": truth, "relevantIds": ["c8", "c7"]},
        },
        {  # a second provider, 0-based lines, IoU threshold
            "runId": "run1", "benchmark": "code-chunk", "provider": "code-chunk-ast",
            "itemId": "org_r/1", "question": "q",
            "retrievedContext": [
                chunk("a1", "src/mod.py", 0, 19, 0.6),  # IoU 10/20 = 0.5
                chunk("a2", "src/mod.py", 12, 19, 0.6),  # IoU 8/10 = 0.8
            ],
            "metadata": {"repo": "org_r", "groundTruth": truth, "iouThreshold": 0.6},
        },
    ]  # fmt: skip


def test_path_and_line_rules():
    assert same_file("/abs/Org_R/src/Mod.py", "src/mod.py")
    assert same_file(".\\src\\mod.py", "org_r/src/mod.py")
    assert not same_file("src/xmod.py", "mod.py")
    assert line_relevant(19, 24, 10, 19, 0)
    assert not line_relevant(20, 29, 10, 19, 0)
    assert line_relevant(12, 19, 10, 19, 0.8) and not line_relevant(0, 19, 10, 19, 0.6)


def check(conversion):
    assert list(conversion.qrels) == ["memorybench-chonkie", "memorybench-code-chunk-ast"]
    chonkie = conversion.qrels["memorybench-chonkie"]
    assert chonkie.values.tolist() == [
        ["org_r/1", "c1", 0],
        ["org_r/1", "c2", 1],
        ["org_r/1", "c3", 0],
        ["org_r/1", "c4", 1],
        ["org_r/2", "c8", 1],
        ["org_r/2", "c7", 1],
    ]
    ast = conversion.qrels["memorybench-code-chunk-ast"]
    assert ast.values.tolist() == [["org_r/1", "a1", 0], ["org_r/1", "a2", 1]]
    info = conversion.qrels_info["memorybench-chonkie"]
    assert info["pooled"] and not info["complete"]
    assert info["relevance"] == ["explicit", "location"]
    assert info["line_offset"] == -1
    runs = {r.tag: r for r in conversion.runs}
    assert runs["chonkie"].table["docno"].tolist() == ["c1", "c2", "c3", "c4", "c9", "c8"]
    assert runs["chonkie"].stats["tied_adjacent_scores"] == 1
    assert runs["code-chunk-ast"].original_scores == [0.6, 0.6]
    assert conversion.strata.values.tolist() == [["org_r/1", "org_r"], ["org_r/2", "org_r"]]
    assert any("pooled" in n for n in conversion.report.notes)


def test_export_json(tmp_path):
    path = tmp_path / "export.json"
    path.write_text(json.dumps({"run": {"id": "run1"}, "results": results(), "metrics": []}))
    check(convert_memorybench(path, line_offsets={"chonkie": -1}))


def test_results_db(tmp_path):
    path = tmp_path / "results.db"
    with sqlite3.connect(path) as db:
        db.execute(
            "CREATE TABLE results (id INTEGER PRIMARY KEY, run_id TEXT, benchmark TEXT, "
            "provider TEXT, item_id TEXT, question TEXT, expected TEXT, actual TEXT, "
            "score REAL, correct INTEGER, retrieved_context TEXT, metadata TEXT)"
        )
        for r in results():
            db.execute(
                "INSERT INTO results (run_id, benchmark, provider, item_id, question, "
                "retrieved_context, metadata) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (r["runId"], r["benchmark"], r["provider"], r["itemId"], r["question"],
                 json.dumps(r["retrievedContext"]), json.dumps(r["metadata"])),
            )  # fmt: skip
    db.close()
    before = path.read_bytes()
    assert len(read_results(path)) == 3
    check(convert_memorybench(path, line_offsets={"chonkie": -1}))
    assert path.read_bytes() == before


def test_iou_override_and_bad_inputs(tmp_path):
    path = tmp_path / "export.json"
    path.write_text(json.dumps({"results": results()}))
    conversion = convert_memorybench(path, line_offsets={"chonkie": -1}, iou=0.5)
    ast = conversion.qrels["memorybench-code-chunk-ast"]
    assert ast["rel"].tolist() == [1, 1]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"results": "nope"}))
    with pytest.raises(InputError, match="expected an export"):
        convert_memorybench(bad)
    db = tmp_path / "other.db"
    with sqlite3.connect(db) as connection:
        connection.execute("CREATE TABLE runs (id TEXT)")
    connection.close()
    with pytest.raises(InputError, match="cannot read the results table"):
        convert_memorybench(db)
