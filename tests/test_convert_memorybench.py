"""memorybench converter on faithful export-JSON and results.db fixtures: the location rule,
and the memorybench seed's three relevance strategies checked against hand-worked nDCG."""

from __future__ import annotations

import contextlib
import gzip
import json
import math
import re
import sqlite3
import sys
import time

import pytest

from trecbench.convert.common import FOUND_ONLY_WARNING
from trecbench.convert.memorybench import (
    convert_memorybench,
    line_relevant,
    read_results,
    same_file,
    token_f1,
)
from trecbench.errors import InputError, UsageError


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
    # memorybench's normalizePath keeps a leading ./ (relevance.ts): a suffix at its /
    assert same_file(".\\src\\mod.py", "src/mod.py") and same_file("./mod.py", "mod.py")
    assert not same_file(".\\src\\mod.py", "org_r/src/mod.py")
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
    assert info["relevance"] == {"explicit": 1, "location": 1}
    assert info["found_only"] and info["warning"] == FOUND_ONLY_WARNING
    assert info["line_offset"] == -1
    runs = {r.tag: r for r in conversion.runs}
    assert runs["chonkie"].table["docno"].tolist() == ["c1", "c2", "c3", "c4", "c9", "c8"]
    assert runs["chonkie"].stats["tied_adjacent_scores"] == 1
    assert runs["code-chunk-ast"].original_scores == [0.6, 0.6]
    assert conversion.strata.values.tolist() == [["org_r/1", "org_r"], ["org_r/2", "org_r"]]
    assert any("found-only" in n for n in conversion.report.notes)


def test_export_json(tmp_path):
    path = tmp_path / "export.json"
    path.write_text(json.dumps({"run": {"id": "run1"}, "results": results(), "metrics": []}))
    check(convert_memorybench(path, line_offsets={"chonkie": -1}))


def results_db(path, rows):
    with sqlite3.connect(path) as db:
        db.execute(
            "CREATE TABLE results (id INTEGER PRIMARY KEY, run_id TEXT, benchmark TEXT, "
            "provider TEXT, item_id TEXT, question TEXT, expected TEXT, actual TEXT, "
            "score REAL, correct INTEGER, retrieved_context TEXT, metadata TEXT)"
        )
        for r in rows:
            db.execute(
                "INSERT INTO results (run_id, benchmark, provider, item_id, question, "
                "expected, retrieved_context, metadata) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (r["runId"], r["benchmark"], r["provider"], r["itemId"], r.get("question"),
                 r.get("expected"), json.dumps(r["retrievedContext"]),
                 json.dumps(r["metadata"])),
            )  # fmt: skip
    db.close()
    return path


def test_results_db(tmp_path):
    path = results_db(tmp_path / "results.db", results())
    before = path.read_bytes()
    record, rows = read_results(path)
    assert len(rows) == 3 and record["size"] == len(before)
    check(convert_memorybench(path, line_offsets={"chonkie": -1}))
    assert path.read_bytes() == before
    packed = tmp_path / "results.db.gz"  # read from its bytes: gzip works too
    packed.write_bytes(gzip.compress(before))
    check(convert_memorybench(packed, line_offsets={"chonkie": -1}))


def test_iou_override_and_bad_inputs(tmp_path):
    path = tmp_path / "export.json"
    path.write_text(json.dumps({"results": results()}))
    conversion = convert_memorybench(path, line_offsets={"chonkie": -1}, iou=0.5)
    ast = conversion.qrels["memorybench-code-chunk-ast"]
    assert ast["rel"].tolist() == [1, 1]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"results": "nope"}))
    with pytest.raises(InputError, match=r"bad.json:1: results: expected an array, found a str"):
        convert_memorybench(bad)
    db = tmp_path / "other.db"
    with sqlite3.connect(db) as connection:
        connection.execute("CREATE TABLE runs (id TEXT)")
    connection.close()
    with pytest.raises(InputError, match="no results table with run_id, provider, item_id"):
        convert_memorybench(db)


def export(tmp_path, items, name="export.json"):
    path = tmp_path / name
    path.write_text(json.dumps({"run": {}, "results": items}, indent=1))
    return path


def item(item_id, chunks, benchmark="bench", provider="p", **metadata):
    return {"runId": "r", "benchmark": benchmark, "provider": provider, "itemId": item_id,
            "expected": metadata.pop("expected", None), "retrievedContext": chunks,
            "metadata": metadata}  # fmt: skip


def ctx(cid, content="", **metadata):
    return {"id": cid, "content": content, "score": 0.5, "metadata": metadata}


def ndcg(conversion, k, tag="p"):
    """trecbench's nDCG@k per query of one converted run."""
    from trecbench.evaluation import evaluate

    run = next(r for r in conversion.runs if r.tag == tag)
    result = evaluate(conversion.qrels[run.qrels], run.table, [f"nDCG@{k}"])
    return dict(zip(result.per_query["qid"], result.per_query["value"], strict=True))


def dcg(gains):
    return sum(g / math.log2(i + 2) for i, g in enumerate(gains))


@pytest.mark.parametrize(
    ("hostile", "message"),
    [
        # issue 9.4: a string is not split into one-character ids
        ({"relevantIds": "c2"}, r"results\[0\].metadata.relevantIds: expected an array of ids"),
        ({"relevantChunkIds": [1.5]}, r"relevantChunkIds\[0\]: expected a non-empty string"),
        ({"groundTruth": "a.py"}, r"metadata.groundTruth: expected an object"),
        ({"groundTruth": {"file": "a.py", "startLine": "1", "endLine": 2}},
         r"groundTruth.startLine: expected an integer"),
        # lines 20 to 10 judged every chunk not relevant, one of lines 0 to 30 too
        ({"groundTruth": {"file": "a.py", "startLine": 20, "endLine": 10}},
         r"groundTruth.endLine: endLine 10 is before startLine 20"),
        # as --iou: 2 judged an exact match (IoU 1) not relevant, a negative one fell back
        # to any overlap, without a word
        *(({"groundTruth": {"file": "a.py", "startLine": 1, "endLine": 2}, "iouThreshold": v},
           rf"metadata.iouThreshold: an IoU threshold is in \[0, 1\], not {re.escape(repr(v))}")
          for v in (2, 1.0000001, -0.5)),
    ],
)  # fmt: skip
def test_metadata_shapes_are_checked(tmp_path, hostile, message):
    path = export(tmp_path, [item("q", [ctx("c1")], **hostile)])
    with pytest.raises(InputError, match=message):
        convert_memorybench(path)


@pytest.mark.parametrize("relevance", ["explicit", "pack", "token-f1"])
def test_chunk_locations_are_checked_by_every_strategy(tmp_path, relevance):
    # a chunk without id is named file:start-end; only the location rule checked the
    # types, so the others wrote the docno "['a.py']:1-2.0"
    def chunk(**metadata):
        return {"content": "x", "score": 0.5, "metadata": metadata}

    for metadata, message in (
        ({"filepath": ["a.py"], "startLine": 1, "endLine": 2}, r"metadata.filepath: expected a s"),
        ({"absolutePath": 7, "startLine": 1, "endLine": 2}, r"metadata.absolutePath: expected a"),
        ({"filepath": "a.py", "startLine": 1, "endLine": 2.0}, r"metadata.endLine: expected an in"),
        # accepted, and judged against nothing or against lines before the file's first
        (
            {"filepath": "a.py", "startLine": 30, "endLine": 10},
            r"metadata.endLine: endLine 10 is before startLine 30",
        ),
        (
            {"filepath": "a.py", "startLine": -2, "endLine": 2},
            r"metadata.startLine: expected an integer of at least 0, found -2",
        ),
    ):
        path = export(tmp_path, [item("q", [chunk(**metadata)], relevantIds=["a.py:1-2"])])
        with pytest.raises(InputError, match=r"retrievedContext\[0\]." + message):
            convert_memorybench(path, relevance=relevance)


def test_result_shapes_are_checked(tmp_path):
    # issue 9.7: results that are not objects crashed with AttributeError
    path = export(tmp_path, [item("q", [ctx("c1")]), 5])
    with pytest.raises(InputError, match=r"export.json:\d+: results\[1\]: expected an object"):
        convert_memorybench(path)
    path = export(tmp_path, [item("q", [ctx("c1")]), item("q", [ctx("c2")])])
    with pytest.raises(InputError, match=r"itemId: 'q' of run 'p' is used twice \(first at r"):
        convert_memorybench(path)
    path = export(tmp_path, [item("q", [{"id": "c", "score": float("nan")}])])
    with pytest.raises(InputError, match="NaN is not a JSON number"):
        convert_memorybench(path)
    with pytest.raises(UsageError, match="unknown relevance strategy"):
        convert_memorybench(path, relevance="magic")
    path = export(tmp_path, [item("q", [ctx("c1")], relevantIds=["c1"])])
    convert_memorybench(path, iou=0.5)
    for iou in (float("nan"), -0.1, 1.5):  # NaN was an internal error after the conversion
        with pytest.raises(UsageError, match="IoU threshold must be a number between 0 and 1"):
            convert_memorybench(path, iou=iou)


def test_providers_with_the_same_run_tag_are_refused(tmp_path):
    """Names "p 1" and "p_1" both give the tag p_1: one qrels and run would replace the other."""
    items = [item("q", [ctx("c1")], provider="p 1", relevantIds=["c1"]),
             item("q", [ctx("c1")], provider="p_1", relevantIds=["c1"])]  # fmt: skip
    path = export(tmp_path, items)
    with pytest.raises(InputError) as error:
        convert_memorybench(path)
    line = path.read_text().splitlines().index('   "provider": "p_1",') + 1
    assert str(error.value) == (
        f"{path}:{line}: results[1].provider: provider 'p 1' and provider 'p_1' would both be "
        "written as 'p_1' (a run tag keeps at most 25 of A-Z a-z 0-9 _ . -): rename one"
    )
    # one provider with two runIds: the tags are provider-runId
    items = [{**items[0], "provider": "p", "runId": "r 1"},
             {**items[1], "provider": "p", "runId": "r_1"}]  # fmt: skip
    with pytest.raises(InputError, match="provider-runId 'p-r 1' and provider-runId 'p-r_1'"):
        convert_memorybench(export(tmp_path, items))
    # ... named at the runId that tells them apart (the provider is the same)
    with pytest.raises(InputError, match=r"results\[1\]\.runId: provider-runId"):
        convert_memorybench(export(tmp_path, items))


def test_a_providers_run_and_a_provider_of_its_tag_are_two_runs_refused(tmp_path):
    # provider p's run r1 and a provider named p-r1 were merged into one run p-r1
    one = item("i/1", [ctx("c1")], relevantIds=["c1"])
    other = item("i/9", [ctx("zz")], provider="p-r1", relevantIds=["c1"])
    items = [{**one, "runId": "r1"}, {**one, "runId": "r2"}, {**other, "runId": "r9"}]
    with pytest.raises(InputError, match="provider-runId 'p-r1' and provider 'p-r1' would both"):
        convert_memorybench(export(tmp_path, items))


@pytest.mark.parametrize("column", ["item_id", "provider", "run_id"])
def test_a_blob_where_text_belongs_is_one_line(tmp_path, column):
    db = tmp_path / "results.db"
    values = {"run_id": "r1", "benchmark": "repoeval", "provider": "p", "item_id": "i/1",
              "retrieved_context": '[{"id": "c2", "content": "x", "score": 1}]',
              "metadata": '{"relevantIds": ["c2"]}'} | {column: b"i/1"}  # fmt: skip
    with sqlite3.connect(db) as connection:
        connection.execute(f"create table results({', '.join(values)})")
        connection.execute(f"insert into results values ({', '.join('?' * len(values))})",
                           list(values.values()))  # fmt: skip
    connection.close()
    with pytest.raises(InputError, match=r"results.db: row 1 .*found bytes \(3 of them, not"):
        convert_memorybench(db)


def test_report_entries_name_the_run_by_its_tag(tmp_path):
    conversion = convert_memorybench(
        export(tmp_path, [item("q", [ctx("c1")], provider="p 1", relevantIds=[" c1"])])
    )
    assert [run.tag for run in conversion.runs] == ["p_1"]
    renamed, repaired = conversion.report.repaired
    assert (renamed["from"], renamed["to"]) == ("p 1", "p_1")  # the provider's run tag
    assert repaired["run"] == "p_1"


def test_a_chunk_without_id_is_named_by_its_lines_and_reported(tmp_path):
    # named a.py:1-2 without a word: it could merge with a real chunk of that id
    chunk = {"content": "x", "score": 0.5, "metadata": {"filepath": "a.py", "startLine": 1,
                                                         "endLine": 2}}  # fmt: skip
    conversion = convert_memorybench(
        export(tmp_path, [item("q", [chunk], relevantIds=["a.py:1-2"])])
    )
    assert conversion.runs[0].table["docno"].tolist() == ["a.py:1-2"]
    (repaired,) = conversion.report.repaired
    assert repaired["reason"] == "retrieved chunk without id, named file:startLine-endLine"
    assert repaired["docno"] == "a.py:1-2"


def test_explicit_ids_and_the_seeds_idcg_example(tmp_path):
    """Strategy (A). The seed: 3 relevant items, K=5: IDCG@5 = 1 + 0.63 + 0.5 = 2.13."""
    chunks = [ctx(c) for c in ("a", "x", "y", "z", "w")]
    path = export(
        tmp_path,
        [
            item("q1", chunks, relevantIds=["a", " b ", "c"]),  # trimmed, as memorybench does
            item("q2", chunks, relevantChunkIds=["y"]),
            # memorybench takes relevantIds ?? relevantChunkIds: [] wins, then has no id
            item("q3", chunks, relevantIds=[], relevantChunkIds=["y"]),
        ],
    )
    conversion = convert_memorybench(path)
    info = conversion.qrels_info["memorybench-p"]
    assert info["complete"] and not info["found_only"]
    assert info["relevance"] == {"explicit": 2, "none": 1}
    assert conversion.qrels["memorybench-p"]["docno"].tolist() == ["a", "b", "c", "y"]
    idcg = dcg([1, 1, 1])
    assert round(idcg, 2) == 2.13
    values = ndcg(conversion, 5)
    assert values["q1"] == pytest.approx(1 / idcg, abs=1e-12)
    assert values["q2"] == pytest.approx(dcg([0, 0, 1]), abs=1e-12)  # one relevant: IDCG 1


def test_locomo_dialog_ids_in_text_are_read_with_ascii_digits(tmp_path):
    # memorybench's /D\d+:\d+/g finds D1:2 in "D1:2\u0663" (node prints [ 'D1:2' ]);
    # Python's \d read "D1:2\u0663" as the id, and the chunk citing D1:2 was not relevant
    chunks = [ctx("m1", "as said in D1:2\u0663"), ctx("m2", "D\u0661:2 only")]
    path = export(tmp_path, [item("q1", chunks, "locomo", evidence=["D1:2", "D1:3"])])
    qrels = convert_memorybench(path).qrels["memorybench-p"]
    assert qrels[qrels["rel"] > 0]["docno"].tolist() == ["m1", "unretrieved-relevant-1"]


def test_locomo_pack_relevance_with_the_evidence_count(tmp_path):
    """Strategy (B), LoCoMo: dialog ids from metadata, a CTXID prefix, the id or content."""
    chunks = [
        ctx("m1", "small talk", dialogIds=["D9:9"]),
        ctx("m2", "I adopted a dog", dialogIds=["D1:3"]),
        ctx("m3", "[CTXID:D2:1,D2:2] we met in May"),
        ctx("session-D4:7", "..."),
    ]
    path = export(
        tmp_path,
        [
            item("q1", chunks, "locomo", evidence=["D1:3", "D2:1"]),
            item("q2", chunks[:2], "locomo", evidence=["D1:3", "D3:5", "D3:6"]),
            item("q3", chunks, "locomo", evidence="D4:7"),
        ],
    )
    conversion = convert_memorybench(path)
    qrels = conversion.qrels["memorybench-p"]
    assert qrels[qrels["rel"] > 0].values.tolist() == [
        ["q1", "m2", 1],
        ["q1", "m3", 1],
        ["q2", "m2", 1],
        ["q2", "unretrieved-relevant-1", 1],  # 3 evidence ids, 1 found: IDCG counts 3
        ["q2", "unretrieved-relevant-2", 1],
        ["q3", "session-D4:7", 1],
    ]
    info = conversion.qrels_info["memorybench-p"]
    assert info["relevance"] == {"pack": 3} and info["unretrieved_relevant"] == 2
    assert info["pooled"] and not info["found_only"]
    # memorybench: DCG over the relevance of the top k, IDCG over min(k, evidence count)
    values = ndcg(conversion, 4)
    assert values["q1"] == pytest.approx(dcg([0, 1, 1, 0]) / dcg([1, 1]), abs=1e-12)
    assert values["q2"] == pytest.approx(dcg([0, 1]) / dcg([1, 1, 1]), abs=1e-12)
    assert values["q3"] == pytest.approx(dcg([0, 0, 0, 1]), abs=1e-12)


def test_longmemeval_pack_relevance(tmp_path):
    chunks = [
        ctx("c1", "x", corpusId="noans_answer_9"),  # "noans" is never relevant
        ctx("c2", "[CTXID:sess_7_3] ..."),  # answer corpus id with a turn suffix
        ctx("answer_4fd2", "y"),  # the id names an answer session
        ctx("c4", "z", corpusId="sess_2"),
    ]
    path = export(
        tmp_path,
        [
            item("q1", chunks, "longmemeval", answerCorpusIds=["sess_7", "answer_4fd2"]),
            item("q2_abs", chunks, "longmemeval", answerCorpusIds=["sess_7"]),  # abstention
        ],
    )
    conversion = convert_memorybench(path)
    qrels = conversion.qrels["memorybench-p"]
    assert qrels[qrels["rel"] > 0].values.tolist() == [
        ["q1", "c2", 1],
        ["q1", "answer_4fd2", 1],
        ["q2_abs", "unretrieved-relevant-1", 1],
    ]
    values = ndcg(conversion, 4)
    assert values["q1"] == pytest.approx(dcg([0, 1, 1]) / dcg([1, 1]), abs=1e-12)
    assert values["q2_abs"] == 0.0


def test_longmemeval_turn_suffix_is_javascript_s(tmp_path):
    # memorybench strips /_(\d+)$/: ASCII digits, at the very end of the id
    chunks = [
        ctx("c1", "x", corpusId="sess_7_\u0663"),  # ARABIC-INDIC DIGIT THREE
        ctx("c2", "x", corpusId="sess_8_3\n"),
        ctx("c3", "x", corpusId="sess_7_3"),
    ]
    answers = ["sess_7", "sess_8\n"]
    path = export(tmp_path, [item("q1", chunks, "longmemeval", answerCorpusIds=answers)])
    qrels = convert_memorybench(path).qrels["memorybench-p"]
    relevant = qrels.loc[qrels["rel"] > 0, "docno"].tolist()
    assert relevant == ["c3", "unretrieved-relevant-1"]  # c1 and c2 judged 0


def test_explicit_ids_are_trimmed_as_javascript_trims(tmp_path):
    # String(id).trim(): U+FEFF is white space to JavaScript, U+001C not (str.strip()
    # kept the first and removed the second)
    chunks = [ctx("c1"), ctx("\x1cc2"), ctx("c2")]
    path = export(tmp_path, [item("q1", chunks, relevantIds=["\ufeffc1", "\x1cc2"])])
    qrels = convert_memorybench(path).qrels["memorybench-p"]
    assert qrels["docno"].tolist() == ["c1", "%1Cc2"]


def test_a_duplicate_chunk_is_reported_at_its_rank(tmp_path):
    path = export(tmp_path, [item("q1", [ctx("c1"), ctx("c2"), ctx("c1")], relevantIds=["c1"])])
    (dropped,) = convert_memorybench(path).report.dropped
    assert (dropped["docno"], dropped["order"], dropped["kept_order"]) == ("c1", 3, 1)


@pytest.mark.parametrize("repo", ["  ", "(none)"])
def test_a_repo_no_group_can_be_named_by_is_refused(tmp_path, repo):
    # written into the sidecar, which score --strata then refused
    path = export(tmp_path, [item("q", [ctx("c1")], repo=repo, relevantIds=["c1"])])
    with pytest.raises(InputError, match=r"export.json:\d+: results\[0\].metadata.repo: "):
        convert_memorybench(path)


def test_token_f1_fallback_is_found_only(tmp_path):
    """Strategy (C): token F1 with the expected answer >= 0.3 (memorybench's default)."""
    answer = "The capital of France is Paris"
    assert token_f1(answer, "Paris is the capital of France.") == 1.0
    assert token_f1(answer, "Berlin is in Germany") == pytest.approx(0.2)  # p 1/4, r 1/6
    assert token_f1(answer, "France: Paris!") == pytest.approx(0.5)  # p 1, r 2/6
    assert token_f1(answer, "") == 0.0 and token_f1(None, "x") == 0.0
    chunks = [ctx("b", "Berlin is in Germany"), ctx("f", "France: Paris!"),
              ctx("p", "Paris is the capital of France.")]  # fmt: skip
    path = export(tmp_path, [item("q1", chunks, expected=answer)])
    conversion = convert_memorybench(path)
    info = conversion.qrels_info["memorybench-p"]
    assert info["relevance"] == {"token-f1": 1}
    assert info["found_only"] and info["pooled"] and info["warning"] == FOUND_ONLY_WARNING
    assert conversion.qrels["memorybench-p"]["rel"].tolist() == [0, 1, 1]
    # found-only: IDCG over the 2 relevant chunks found, as memorybench's fallback computes
    assert ndcg(conversion, 3)["q1"] == pytest.approx(dcg([0, 1, 1]) / dcg([1, 1]), abs=1e-12)
    strict = convert_memorybench(path, f1_threshold=0.6)
    assert strict.qrels["memorybench-p"]["rel"].tolist() == [0, 0, 1]
    assert any("found-only" in note for note in conversion.report.notes)


def test_strategies_follow_the_seeds_priority_or_are_forced(tmp_path):
    truth = {"file": "a.py", "startLine": 0, "endLine": 9}
    chunks = [ctx("c1", "Paris", filepath="a.py", startLine=0, endLine=3)]
    path = export(
        tmp_path,
        [
            item("q1", chunks, relevantIds=["c9"], groundTruth=truth, expected="Paris"),
            item("q2", chunks, groundTruth=truth, expected="Paris"),
            item("q3", chunks, expected="Paris"),
            item("q4", chunks),
        ],
    )
    auto = convert_memorybench(path)
    info = auto.qrels_info["memorybench-p"]
    assert info["relevance"] == {"explicit": 1, "location": 1, "token-f1": 1, "none": 1}
    assert auto.report.counts["item not judged (relevance auto: no strategy applies)"] == 1
    forced = convert_memorybench(path, relevance="token-f1")
    assert forced.qrels_info["memorybench-p"]["relevance"] == {"token-f1": 3, "none": 1}


def test_a_code_pack_alone_judges_its_benchmark_s_results(tmp_path):
    # memorybench's nDCG (ndcg.ts computeRelevance) lets a benchmark's pack decide (packs/
    # generic-code-retrieval-pack.ts, relevance.ts); trecbench took the first strategy that
    # applied: repobench-r's and swebench-lite's rules were missing, and token F1 judged
    # what the pack judges otherwise (hand-worked below from the packs' rules)
    place = {"filepath": "src/io.py", "startLine": 30, "endLine": 40}
    items = [
        # repoeval: the location rule; a chunk of the file without lines is relevant (a
        # file-level chunker's), one without a file not; the pack's startLine ?? 1
        item("i1", [ctx("n1", filepath="SRC/io.py"), ctx("n2", "x"), ctx("n3", **place)],
             "repoeval", groundTruth={"file": "src/io.py", "endLine": 35}),
        # repoeval without groundTruth: every chunk not relevant, never token F1 (which
        # judged n4 relevant: its content is the expected answer)
        item("i2", [ctx("n4", "def foo return bar", **place)], "repoeval",
             expected="def foo return bar"),
        # repobench-r: token Jaccard >= 0.7 with a gold snippet (tokens: split at blanks,
        # each without [^\w]); b1 has 3 of 4 tokens ("import", "os", "sys" of those and
        # "re"): 3/4 = 0.75; b2 2/5 = 0.4; the expected answer is not what it judges by
        item("i3", [ctx("b1", "import os, sys"), ctx("b2", "import os.path"),
                    ctx("b3", "def foo(): return bar")],
             "repobench-r", goldSnippets=["import os sys re"], expected="def foo(): return bar"),
        # swebench-lite and crosscodeeval: the chunk's file among the item's
        item("i4", [ctx("s1", **place), ctx("s2", filepath="lib/io.py")], "swebench-lite",
             modifiedFiles=["lib/io.py"]),
        item("i5", [ctx("x1", filepath="a/dep.ts"), ctx("x2", filepath="a/main.ts")],
             "crosscodeeval", dependencyFiles=["./A/dep.ts"]),
    ]  # fmt: skip
    conversion = convert_memorybench(export(tmp_path, items))
    judged = conversion.qrels["memorybench-p"].values.tolist()
    assert judged == [
        ["i1", "n1", 1], ["i1", "n2", 0], ["i1", "n3", 1],
        ["i2", "n4", 0],
        ["i3", "b1", 1], ["i3", "b2", 0], ["i3", "b3", 0],
        ["i4", "s1", 0], ["i4", "s2", 1],
        ["i5", "x1", 1], ["i5", "x2", 0],
    ]  # fmt: skip
    info = conversion.qrels_info["memorybench-p"]
    assert info["relevance"] == {"pack": 5} and info["found_only"]
    said = "item without repoeval's ground truth (metadata.groundTruth): every chunk judged"
    assert any(said in reason for reason in conversion.report.counts)
    unplaced = "retrieved chunk without metadata.filepath (judged not relevant)"
    assert conversion.report.counts[unplaced] == 1


def test_the_rules_read_a_chunk_s_filepath_alone_and_a_null_line_as_0(tmp_path):
    # review (helper 642): memorybench's getChunkLocation reads metadata.filepath alone
    # (absolutePath judged a1 relevant), and checks lines `!== undefined`: a null one is
    # compared as 0 by JavaScript (n1, lines null, was a file-level chunk: relevant)
    truth = {"file": "src/io.py", "startLine": 10, "endLine": 20}
    items = [
        item("i1", [ctx("a1", absolutePath="/r/src/io.py", startLine=10, endLine=12)],
             "repoeval", groundTruth=truth),
        item("i2", [ctx("n1", filepath="src/io.py", startLine=None, endLine=None),
                    ctx("n2", filepath="src/io.py", startLine=None, endLine=15)],
             "repoeval", groundTruth=truth),
    ]  # fmt: skip
    judged = convert_memorybench(export(tmp_path, items)).qrels["memorybench-p"]
    assert judged.values.tolist() == [["i1", "a1", 0], ["i2", "n1", 0], ["i2", "n2", 1]]
    # a null end before a start: refused in JSON's words (it said "endLine None")
    reversed_ = [item("i3", [ctx("r1", filepath="a.py", startLine=3, endLine=None)], "repoeval")]
    with pytest.raises(InputError, match=r"endLine null \(compared as 0\) is before startLine 3"):
        convert_memorybench(export(tmp_path, reversed_))


def test_jaccard_as_the_repobench_r_pack_takes_it():
    from trecbench.convert.memorybench_code import jaccard

    assert jaccard("import os, sys", "import os sys re") == 0.75
    assert jaccard("Import OS", "import os") == 1.0  # lower case, punctuation dropped
    assert jaccard("", "  ") == 1.0 and jaccard("", "x") == 0.0  # no token: equal / none
    assert jaccard("a_b c", "a_b") == 0.5  # _ is a word character: one token a_b


def _one_result(provider: str, metadata: dict) -> dict:
    return {
        "runId": "r",
        "benchmark": "rag-template",  # no pack: repoeval's judges every result
        "provider": provider,
        "itemId": "i1",
        "retrievedContext": [{"id": "c1", "content": "x", "score": 0.9, "metadata": {}}],
        "metadata": metadata,
    }


def test_a_provider_none_of_whose_results_can_be_judged_is_left_out_and_said(tmp_path):
    # B's results hold no relevance data: its qrels were empty and the whole conversion
    # failed ('no judgment to write as qrels memorybench-B'); A is now written, B reported
    path = tmp_path / "mb.json"
    judged = _one_result("A", {"relevantIds": ["c1"]})
    path.write_text(json.dumps({"run": {"id": "r"}, "results": [judged, _one_result("B", {})]}))
    conversion = convert_memorybench(path)
    assert [run.tag for run in conversion.runs] == ["A"] and list(conversion.qrels) == [
        "memorybench-A"
    ]
    (left,) = [d for d in conversion.report.dropped if d["reason"].startswith("run left out")]
    assert left["run"] == "B" and "--relevance auto" in left["reason"]
    path.write_text(json.dumps({"run": {"id": "r"}, "results": [_one_result("B", {})]}))
    with pytest.raises(InputError, match="no result can be judged"):
        convert_memorybench(path)


def test_an_empty_or_write_ahead_log_results_db(tmp_path):
    empty = tmp_path / "results.db"
    empty.write_bytes(b"")  # SQLite makes it before writing: not "invalid JSON"
    with pytest.raises(InputError, match="empty file"):
        read_results(empty)
    wal = tmp_path / "wal.db"  # a WAL database, checkpointed: every row in the file
    db = sqlite3.connect(wal)
    db.execute("pragma journal_mode=wal")
    db.execute("create table results(run_id, provider, item_id, retrieved_context, metadata)")
    db.execute(
        "insert into results values ('r', 'A', 'i', ?, ?)",
        ('[{"id": "c1"}]', '{"relevantIds": ["c1"]}'),
    )
    db.commit()
    db.close()
    assert len(read_results(wal)[1]) == 1  # was 'unable to open database file'
    (tmp_path / "wal.db-wal").write_bytes(b"")  # a log beside it: rows may be there
    with pytest.raises(InputError, match="write-ahead log"):
        read_results(wal)


def test_the_report_names_queries_and_documents_as_written(tmp_path):
    # every entry of one result named its query as read ("q 1") and a chunk's made-up or
    # unlocated docno as read, where the qrels and the run write q%201 and a%20b.py:1-2
    unnamed = {"content": "x", "score": 0.5,
               "metadata": {"filepath": "a b.py", "startLine": 1, "endLine": 2}}  # fmt: skip
    truth = {"file": "a b.py", "startLine": 0, "endLine": 5}
    conversion = convert_memorybench(
        export(tmp_path, [
            item("q 1", [unnamed], relevantIds=[" c 1", ""]),
            item("q 2", [ctx("c 9")], groundTruth=truth),
            item("q 3", [ctx("c1")]),
        ])
    )  # fmt: skip
    (run,) = conversion.runs
    assert run.table["qid"].unique().tolist() == ["q%201", "q%202", "q%203"]
    assert "a%20b.py:1-2" in run.table["docno"].tolist()
    named = [
        {key: value for key, value in entry.items() if key != "reason"}
        for entry in conversion.report.dropped + conversion.report.repaired
        if "percent-escaped" not in entry["reason"] and "qid" in entry
    ]
    assert named == [
        {"run": "p", "qid": "q%201", "position": 1},  # the empty explicit id
        {"run": "p", "qid": "q%203"},  # not judged
        {"qid": "q%203"},  # so without a relevant document
        {"run": "p", "qid": "q%201", "docno": "a%20b.py:1-2"},  # named by its lines
        {"run": "p", "qid": "q%201", "id": " c 1"},  # blanks removed: the id as read
        {"run": "p", "qid": "q%202", "docno": "c%209"},  # no file
    ]


@pytest.mark.parametrize(
    ("metadata", "said"),
    [
        ('{\n  "relevantIds":\n  ["c2", ]\n}', "Expecting value at line 3 column 10"),
        ('{"relevantIds": ["c2", ]}', "Expecting value at column 24"),  # one line: no line
        # what trecbench refuses itself, not the parser, said no line of the cell
        (
            '{\n  "a": 1,\n  "a": 2\n}',
            "duplicate key 'a' in an object (JSON readers keep only the last) at line 3",
        ),
        ('{"a": 1, "a": 2}', "duplicate key 'a' in an object (JSON readers keep only the last)"),
        (
            '{\n "x":\n' + "[" * 101 + "]" * 101 + "\n}",
            "JSON nested deeper than 100 levels at line 3",
        ),
        ('{\n "x":\n "\\ud800"\n}', "lone surrogate \\ud800 (not a Unicode character) at line 3"),
        ('{\n "x":\n 1e999\n}', "number 1e999 is beyond a double at line 3"),
    ],
)
def test_invalid_json_in_a_cell_of_several_lines_names_its_line_in_the_cell(
    tmp_path, metadata, said
):
    # a cell has no line of the file: "Expecting value at column 8" said nothing of the
    # cell's line 3
    db = tmp_path / "results.db"
    values = {"run_id": "r1", "benchmark": "repoeval", "provider": "p", "item_id": "i/1",
              "retrieved_context": '[{"id": "c2", "content": "x", "score": 1}]',
              "metadata": metadata}  # fmt: skip
    with sqlite3.connect(db) as connection:
        connection.execute(f"create table results({', '.join(values)})")
        connection.execute(f"insert into results values ({', '.join('?' * len(values))})",
                           list(values.values()))  # fmt: skip
    connection.close()
    with pytest.raises(InputError) as raised:
        convert_memorybench(db)
    invalid = "invalid JSON: " if said.startswith("Expecting") else ""
    assert str(raised.value).endswith(f"results.db: row 1 (rowid 1): metadata: {invalid}{said}")


# a results.db whose `results` is a view over a recursive query that never ends
ENDLESS = (
    "CREATE VIEW results(run_id, provider, item_id, retrieved_context, metadata) AS "
    "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) "
    "SELECT 'r', 'p', x, '[]', '{}' FROM c"
)


def endless_db(path):
    with contextlib.closing(sqlite3.connect(path)) as db:
        db.execute(ENDLESS)
        db.commit()
    return path


def test_a_results_view_is_refused(tmp_path):
    """A view ran its query, which never ended (and ignored Ctrl-C and SIGTERM)."""
    import subprocess

    endless_db(tmp_path / "v.db")
    before = sorted(tmp_path.iterdir())
    done = subprocess.run(
        [sys.executable, "-m", "trecbench", "convert", "memorybench", "v.db", "-o", "x"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr == (
        "trecbench: v.db: results is a view, not a table: memorybench writes a table (a view "
        "runs a query of the file's own, which trecbench does not run)\n"
    )
    assert sorted(tmp_path.iterdir()) == before  # no journal, no output


@pytest.mark.parametrize(("name", "code"), [("SIGINT", 130), ("SIGTERM", 143)])
def test_a_signal_ends_a_long_query(tmp_path, name, code):
    """A SQLite query runs in C, where Python runs no signal handler: Ctrl-C and SIGTERM
    waited for its end (never, for an endless one). The view refusal disabled here, the
    query is endless: the signal ends the command as it ends any other."""
    import signal
    import subprocess
    import textwrap

    endless_db(tmp_path / "v.db")
    script = textwrap.dedent(
        """
        import sys
        from trecbench.cli import run
        from trecbench.convert import memorybench

        without_wal = memorybench._without_wal

        def querying(source):  # read: the endless query comes next
            print("querying", flush=True)
            return without_wal(source)

        memorybench._without_wal = querying
        memorybench._refuse_non_table = lambda db, path: None
        sys.exit(run(["convert", "memorybench", "v.db", "-o", "x"]))
        """
    )
    child = subprocess.Popen(
        [sys.executable, "-c", script], cwd=tmp_path, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        assert child.stdout.readline() == b"querying\n"
        time.sleep(0.3)
        child.send_signal(getattr(signal, name))
        assert child.wait(timeout=60) == code
    finally:
        child.kill()
        child.wait()
    said = child.stderr.read().decode()
    # one line: no empty line first where stderr is no terminal (click printed one)
    assert said == ("trecbench: interrupted\n" if name == "SIGINT" else "")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["v.db"]


def test_a_line_offset_for_an_absent_provider_is_refused(tmp_path, capsys):
    # --line-offset chonky=-1 (a misspelt chonkie) left chonkie's lines unshifted, judged
    # against 0-based ground truth, and wrote with exit 0 after a note among the others
    from trecbench.cli import run

    path = tmp_path / "export.json"
    path.write_text(json.dumps({"run": {"id": "run1"}, "results": results(), "metrics": []}))
    with pytest.raises(UsageError) as raised:
        convert_memorybench(path, line_offsets={"chonky": -1})
    said = "names a provider absent from the results: 'chonky' (providers: chonkie, code-chunk-ast)"
    assert str(raised.value) == f"line_offsets {said}"
    out = tmp_path / "out"
    assert run(["convert", "memorybench", str(path), "--line-offset", "chonky=-1", "-o", str(out)])
    assert capsys.readouterr().err == f"trecbench: --line-offset {said}\n"
    assert not out.exists()


@pytest.mark.parametrize(
    ("relevance", "keyword", "flag", "value", "strategy"),
    [
        ("token-f1", "iou", "--iou", 0.5, "location"),
        ("explicit", "iou", "--iou", 0.5, "location"),
        ("explicit", "f1_threshold", "--f1-threshold", 0.4, "token-f1"),
        ("location", "f1_threshold", "--f1-threshold", 0.4, "token-f1"),
        ("pack", "f1_threshold", "--f1-threshold", 0.4, "token-f1"),
    ],
)
def test_a_threshold_the_strategy_never_applies_is_refused(
    tmp_path, capsys, relevance, keyword, flag, value, strategy
):
    # it was taken and dropped (as convert lists refuses --fuzzy-threshold without chunks)
    from trecbench.cli import run

    path = tmp_path / "export.json"
    path.write_text(json.dumps({"run": {"id": "run1"}, "results": results(), "metrics": []}))
    with pytest.raises(UsageError) as raised:
        convert_memorybench(path, relevance=relevance, **{keyword: value})
    also = ", pack" if strategy == "location" else ""  # the repoeval pack's rule
    said = (
        f"is the {strategy} strategy's threshold, which relevance {relevance!r} never "
        f"applies; give it with {strategy}{also} or auto"
    )
    assert str(raised.value) == f"{keyword} {said}"
    out = tmp_path / "out"
    argv = ["convert", "memorybench", str(path), "--relevance", relevance, flag, str(value)]
    assert run([*argv, "-o", str(out)])
    assert capsys.readouterr().err == f"trecbench: {flag} {said}\n"
    assert not out.exists()


def test_iou_with_relevance_pack_is_refused_without_a_repoeval_result(tmp_path):
    # --relevance pack --iou 0.5 on a locomo export was taken and dropped (helper 642):
    # repoeval's is the one pack that reads it
    path = export(tmp_path, [item("q1", [ctx("c1", "D1:3 x")], "locomo", evidence=["D1:3"])])
    with pytest.raises(UsageError) as refused:
        convert_memorybench(path, relevance="pack", iou=0.5)
    assert str(refused.value) == (
        "iou is the location rule's threshold, which relevance 'pack' applies to repoeval "
        "results only, and none is of repoeval (benchmarks: locomo)"
    )
    assert convert_memorybench(path, relevance="pack").qrels["memorybench-p"]["rel"].tolist() == [1]


def test_thresholds_are_taken_where_their_strategy_may_apply():
    from trecbench.convert.memorybench_rules import F1_THRESHOLD, Judging

    assert Judging("auto", {}, 0.5, 0.4).record() | {"line_offsets": {}} == {
        "relevance": "auto", "f1_threshold": 0.4, "line_offsets": {}, "iou": 0.5
    }  # fmt: skip
    assert Judging("location", {}, 0.5).record()["iou"] == 0.5
    assert Judging("pack", {}, 0.5).record()["iou"] == 0.5  # the repoeval pack's rule
    assert Judging("token-f1", {}, None, 0.4).record()["f1_threshold"] == 0.4
    unsaid = Judging("explicit").record()  # recorded as before: the default threshold
    assert unsaid["f1_threshold"] == F1_THRESHOLD == 0.3 and unsaid["iou"] is None


def test_an_item_of_several_providers_keeps_its_repo(tmp_path):
    # the last provider's result set the stratum: one without a repo took it away, and a
    # second repo replaced the first, both without a word
    given = item("q", [ctx("c1")], provider="a", repo="x", relevantIds=["c1"])
    without = item("q", [ctx("c1")], provider="b", relevantIds=["c1"])
    conversion = convert_memorybench(export(tmp_path, [given, without]))
    assert conversion.strata.values.tolist() == [["q", "x"]]
    other = item("q", [ctx("c1")], provider="b", repo="y", relevantIds=["c1"])
    with pytest.raises(InputError, match=r"export.json:\d+: results\[1\].metadata.repo: item "
                       r"'q' belongs to repo 'x' in another result"):  # fmt: skip
        convert_memorybench(export(tmp_path, [given, other]))


def test_a_found_only_note_names_the_qrels_escaped(tmp_path):
    # the note named the qrels as the conversion's name made it: a --name holding a line
    # separator printed it on two lines in convert's summary (a line feed is refused)
    path = tmp_path / "export.json"
    path.write_text(json.dumps({"run": {"id": "run1"}, "results": results(), "metrics": []}))
    conversion = convert_memorybench(path, name="a\u2028b", line_offsets={"chonkie": -1})
    notes = [n for n in conversion.report.notes if "found-only" in n]
    shown = ["a%E2%80%A8b-chonkie", "a%E2%80%A8b-code-chunk-ast"]
    assert [n.split(":")[0] for n in notes] == shown
    assert all(n.isprintable() for n in notes)


@pytest.mark.parametrize("hostile", ["a\nb", "x, y", "a\tb "])
def test_the_providers_a_misspelt_offset_lists_are_escaped_as_items(tmp_path, hostile):
    # the results' providers were joined as they are: a line feed of one split the
    # refusal, a provider "x, y" read as two; each is a list's item, unquote gives it back
    from urllib.parse import unquote

    given = results()
    given[2]["provider"] = hostile
    path = tmp_path / "export.json"
    path.write_text(json.dumps({"run": {"id": "run1"}, "results": given, "metrics": []}))
    with pytest.raises(UsageError) as raised:
        convert_memorybench(path, line_offsets={"chonky": -1})
    message = str(raised.value)
    assert message.isprintable(), message
    listed = message.split("(providers: ")[1].removesuffix(")").split(", ")
    assert sorted(unquote(name) for name in listed) == sorted(["chonkie", hostile])


def test_items_the_qrels_hold_no_line_of_are_noted_with_memorybenchs_mean(tmp_path):
    # memorybench's nDCG@5 of t1 1, t2 (nothing retrieved) 0 and t3 (a blank answer) 0 is
    # 1/3 (it divides by every item); the qrels hold t1 alone, so trec_eval -c gives 1.0
    # and nothing said why (reviewer 666)
    def item(qid, expected, context):
        return {
            "runId": "r", "benchmark": "qa", "provider": "Q", "itemId": qid,
            "expected": expected, "retrievedContext": context, "metadata": {},
        }  # fmt: skip

    found = [{"id": "m1", "content": "paris", "score": 0.9}]
    other = [{"id": "m2", "content": "x", "score": 0.9}]
    path = tmp_path / "mbz.json"
    rows = [item("t1", "paris", found), item("t2", "london", []), item("t3", " ", other)]
    path.write_text(json.dumps({"results": rows}))
    conversion = convert_memorybench(path)
    assert conversion.qrels["memorybench-Q"]["qid"].tolist() == ["t1"]
    assert (
        "memorybench-Q: 2 of 3 items have no line in the qrels (no chunk judged: none "
        "retrieved, or no strategy applies), so trec_eval counts them in no mean, even with "
        "-c; memorybench divides by all 3: with those items at 0, its mean is trec_eval -c's "
        "times 1/3"
    ) in conversion.report.notes
    every = [item("t1", "paris", found), item("t2", "london", found)]  # t2: none relevant
    path.write_text(json.dumps({"results": every}))
    assert not any("no line in the qrels" in n for n in convert_memorybench(path).report.notes)


def test_a_pack_judging_more_chunks_relevant_than_its_count_is_noted(tmp_path):
    # LongMemEval's turn-level chunks answer_s1_0 and answer_s1_3 are both relevant to
    # answerCorpusIds ["answer_s1"], whose count (1) is memorybench's IDCG: its nDCG@5
    # 1.6309 against trec_eval's 1.0 on the converted files, without a word (reviewer 666)
    context = [
        {"id": "answer_s1_0", "content": "a", "score": 0.9},
        {"id": "answer_s1_3", "content": "b", "score": 0.8},
        {"id": "s7_1", "content": "c", "score": 0.7},
    ]
    result = {
        "runId": "r", "benchmark": "longmemeval", "provider": "P", "itemId": "q1",
        "expected": "x", "retrievedContext": context,
        "metadata": {"answerCorpusIds": ["answer_s1"]},
    }  # fmt: skip
    path = tmp_path / "lme.json"
    path.write_text(json.dumps({"results": [result]}))
    conversion = convert_memorybench(path)
    assert conversion.qrels["memorybench-P"]["rel"].tolist() == [1, 1, 0]
    assert (
        "memorybench-P: 1 of 1 queries judged more relevant chunks than their pack's count "
        "(evidence, answerCorpusIds): trec_eval's ideal DCG counts every one within k, "
        "memorybench's the count alone, so its nDCG may be the higher there (and pass 1)"
    ) in conversion.report.notes
    # a count of 0 (evidence []) makes memorybench's nDCG 0, not higher: no such note
    result["metadata"]["evidence"] = []
    path.write_text(json.dumps({"results": [result]}))
    assert not any("pack's count" in n for n in convert_memorybench(path).report.notes)
    del result["metadata"]["evidence"]
    result["metadata"]["answerCorpusIds"] = ["answer_s1", "answer_s9"]  # 2: no surplus
    path.write_text(json.dumps({"results": [result]}))
    assert not any("pack's count" in n for n in convert_memorybench(path).report.notes)
