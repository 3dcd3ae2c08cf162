"""code-chunk converter: docno normalisation, and the published summary reproduced."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from trecbench.convert.codechunk import convert_codechunk, normalise_ids
from trecbench.convert.common import Report
from trecbench.errors import InputError
from trecbench.strata import group_means

PUBLISHED = {  # summary_2025-12-18T11-56-27-100Z.json, overall, printed to 4 decimals
    "ast": {"P@5": "0.4085", "Recall@5": "0.8089", "nDCG@5": "0.7993"},
    "fixed": {"P@5": "0.3864", "Recall@5": "0.8992", "nDCG@5": "0.8544"},
}


def test_normalise_ids():
    report = Report()
    ids = pd.Series(
        [
            "/Users/x/repos/org_repo/src/a.py:0-9",
            "/Users/x/org_repo/repos/org_repo/src/b.py:3-4",  # first /org_repo/ wins
            "src/c.py:1-2",
            "org_repo/d.py:1-2",
            "/elsewhere/e.py:1-2",
        ]
    )
    out = normalise_ids(ids, pd.Series(["org_repo"] * 5), report)
    assert out.tolist() == [
        "org_repo/src/a.py:0-9",
        "org_repo/repos/org_repo/src/b.py:3-4",
        "org_repo/src/c.py:1-2",
        "org_repo/d.py:1-2",
        "/elsewhere/e.py:1-2",
    ]
    assert report.counts == {
        "absolute chunk id outside its repo folder (kept unchanged)": 1,
        "relative chunk id: its repo folder prepended": 1,
    }
    assert {"reason": "relative chunk id: its repo folder prepended",
            "from": "src/c.py:1-2", "to": "org_repo/src/c.py:1-2"} in report.repaired  # fmt: skip


def test_normalise_ids_keeps_a_relative_id_holding_its_repo_folder():
    # "src/r/x.py:1-2" was cut at "/r/" into "r/x.py:1-2", the id "x.py:1-2" becomes:
    # two chunks merged, the run's second copy dropped as a duplicate
    report = Report()
    ids = pd.Series(["x.py:1-2", "src/r/x.py:1-2", "/home/u/r/y.py:1-2"])
    out = normalise_ids(ids, pd.Series(["r"] * 3), report)
    assert out.tolist() == ["r/x.py:1-2", "r/src/r/x.py:1-2", "r/y.py:1-2"]


def _faithful(tmp_path):
    """Two chunkers, two repos, a score tie whose producer order contradicts docno order."""
    prefix = "/home/u/eval/repositories/function_level"
    entries = []
    for chunker in ("ast", "fixed"):
        for repo in ("r1", "r2"):
            results = [
                {
                    "taskId": f"{repo}/0",
                    "prompt": "...",
                    "groundTruthFile": "src/m.py",
                    "groundTruthLines": {"start": 0, "end": 10},
                    "retrievedChunks": [
                        {"id": f"{prefix}/{repo}/build/lib/m.py:0-10", "score": 0.9, "rank": 1},
                        {"id": f"{prefix}/{repo}/src/m.py:0-10", "score": 0.9, "rank": 2},
                        {"id": f"{prefix}/{repo}/src/z.py:0-3", "score": 0.4, "rank": 3},
                    ],
                    "relevantChunkIds": [f"{prefix}/{repo}/src/m.py:0-10"],
                    "metrics": {"precision": 1 / 3, "recall": 1, "ndcg": 0.6309297535714575},
                }
            ]
            entries.append(
                {
                    "chunker": chunker,
                    "repo": repo,
                    "summary": {},
                    "config": {"k": 3, "maxChunkSize": 1800},
                    "timestamp": "t",
                    "queryResults": results,
                }
            )
    path = tmp_path / "detailed_x.json"
    path.write_text(json.dumps(entries))
    return path


def test_faithful_fixture(tmp_path):
    conversion = convert_codechunk(_faithful(tmp_path))
    assert list(conversion.qrels) == ["codechunk-ast", "codechunk-fixed"]
    assert [r.tag for r in conversion.runs] == ["ast", "fixed"]
    run = conversion.runs[0]
    assert run.table["docno"].tolist()[:3] == [
        "r1/build/lib/m.py:0-10",
        "r1/src/m.py:0-10",
        "r1/src/z.py:0-3",
    ]
    assert run.table["score"].tolist()[:3] == [3.0, 2.0, 1.0]
    assert run.stats["tied_adjacent_scores"] == 2  # one per repo
    assert conversion.strata.values.tolist() == [["r1/0", "r1"], ["r2/0", "r2"]]
    # per chunker and repo, as the entries give them (one per chunker kept the last repo's)
    each = {"k": 3, "maxChunkSize": 1800}
    assert conversion.provenance["config"] == {
        c: {"r1": each, "r2": each} for c in ("ast", "fixed")
    }
    assert conversion.qrels["codechunk-ast"]["docno"].tolist() == [
        "r1/src/m.py:0-10",
        "r2/src/m.py:0-10",
    ]
    metrics = conversion.provenance["producer_metrics"]["ast"]["r1/0"]
    assert metrics["ndcg"] == pytest.approx(0.6309297535714575)


def test_published_summary_reproduced(code_chunk_data):
    """Converted and scored with trecbench: per query equal to the producer's own metrics,
    macro over repos equal to the published overall (to 1e-12, so also to 4 decimals)."""
    from trecbench.evaluation import evaluate

    (detailed,) = code_chunk_data.glob("detailed_*.json")
    (summary,) = code_chunk_data.glob("summary_*.json")
    conversion = convert_codechunk(detailed)
    published = json.loads(summary.read_text())
    names = (("P@5", "precision"), ("Recall@5", "recall"), ("nDCG@5", "ndcg"))
    for run in conversion.runs:
        result = evaluate(
            conversion.qrels[run.qrels],
            run.table,
            ["P.5", "recall.5", "ndcg_cut.5"],
            run_names=[run.tag],
        )
        scores = result.per_query
        producer = conversion.provenance["producer_metrics"][run.tag]
        mine = scores.pivot(index="qid", columns="measure", values="value")
        assert len(mine) == len(producer) == 373
        for measure, key in names:
            theirs = pd.Series({q: m[key] for q, m in producer.items()})
            assert (mine[measure] - theirs[mine.index]).abs().max() < 1e-12

        grouped = group_means(scores, conversion.strata, "repo")
        macro = grouped[grouped["kind"] == "macro"].set_index("measure")["value"]
        assert {m: f"{macro[m]:.4f}" for m, _ in names} == PUBLISHED[run.tag]
        for measure, key in names:
            assert macro[measure] == pytest.approx(published["overall"][run.tag][key], abs=1e-12)
        per_repo = grouped[grouped["kind"] == "group"]
        assert per_repo["group"].nunique() == len(published["perRepo"]) == 6
        for repo, values in published["perRepo"].items():
            row = per_repo[per_repo["group"] == repo].set_index("measure")["value"]
            for measure, key in names:
                assert row[measure] == pytest.approx(values[run.tag][key], abs=1e-12)


def test_run_stats_equal_a_direct_count_over_the_raw_file(code_chunk_data):
    """Queries, documents and ties (as the CLI prints them: "373 queries, 1865 documents;
    62 tied scores in 33 queries") counted straight from detailed_*.json: each query's
    retrievedChunks in rank order, adjacent equal producer scores."""
    (detailed,) = code_chunk_data.glob("detailed_*.json")
    data = json.loads(detailed.read_text())
    conversion = convert_codechunk(detailed)
    for run in conversion.runs:
        queries = documents = ties = queries_with_ties = 0
        for entry in data:
            if entry["chunker"] != run.tag:
                continue
            for query in entry["queryResults"]:
                chunks = sorted(query["retrievedChunks"], key=lambda chunk: chunk["rank"])
                scores = [chunk["score"] for chunk in chunks]
                tied = sum(a == b for a, b in zip(scores[:-1], scores[1:], strict=True))
                queries += 1
                documents += len(chunks)
                ties += tied
                queries_with_ties += tied > 0
        assert (queries, documents, ties, queries_with_ties) == (
            run.stats["queries"],
            run.stats["documents"],
            run.stats["tied_adjacent_scores"],
            run.stats["queries_with_ties"],
        )
        assert run.stats["score_inversions"] == 0  # the producer ranks by score
    assert [r.stats["tied_adjacent_scores"] for r in conversion.runs] == [62, 64]
    # "N relevant" as the CLI prints it: the relevantChunkIds of each chunker's queries
    relevant = {}
    for entry in data:
        for query in entry["queryResults"]:
            ids = set(query["relevantChunkIds"])
            relevant[entry["chunker"]] = relevant.get(entry["chunker"], 0) + len(ids)
    for chunker, count in relevant.items():
        (table,) = [t for name, t in conversion.qrels.items() if name.endswith(f"-{chunker}")]
        assert int((table["rel"] > 0).sum()) == count


def _entries(tmp_path, mutate):
    path = _faithful(tmp_path)
    data = json.loads(path.read_text())
    mutate(data)
    path.write_text(json.dumps(data, indent=1))
    return path


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        # issue 9.4: a string was split into one-character ids
        (lambda d: d[0]["queryResults"][0].update(relevantChunkIds="abc"),
         r"\[0\].queryResults\[0\].relevantChunkIds: expected an array of ids, found a string"),
        # issue 9.4: a duplicate taskId merged two tasks
        (lambda d: d[1]["queryResults"][0].update(taskId="r1/0"),
         r"\[1\].queryResults\[0\].taskId: 'r1/0' of chunker 'ast' is used twice "
         r"\(first at \[0\].queryResults\[0\]\)"),
        (lambda d: d[0]["queryResults"][0]["retrievedChunks"][1].update(rank=0),
         r"\[0\].queryResults\[0\].retrievedChunks\[1\].rank: expected an integer of at least "
         r"1, found 0"),
        # a rank beyond a C long, as msmarco's and terms.jsonl's
        (lambda d: d[0]["queryResults"][0]["retrievedChunks"][1].update(rank=2**63),
         r"\[0\].queryResults\[0\].retrievedChunks\[1\].rank: 9223372036854775808 is too "
         r"large: ranks go up to 9223372036854775807"),
        (lambda d: d[0]["queryResults"][0]["retrievedChunks"][1].update(score="0.9"),
         r"\[0\].queryResults\[0\].retrievedChunks\[1\].score: expected a number"),
        (lambda d: d[0]["queryResults"][0].pop("retrievedChunks"),
         r"\[0\].queryResults\[0\].retrievedChunks: missing \(expected an array; the object "
         r'has "taskId", "prompt", '),  # "found null", as if given null
        (lambda d: d[0].update(queryResults={}), r"\[0\].queryResults: expected an array"),
        # a chunker without query results vanished from the output without a word
        (lambda d: [e.update(queryResults=[]) for e in d if e["chunker"] == "ast"],
         r"\[0\].queryResults: chunker 'ast' has no query results in any entry"),
        (lambda d: d.append(3), r"\[4\]: expected an object, found a number"),
        (lambda d: d[3].update(repo="r9"),
         r"\[3\].queryResults\[0\].taskId: taskId 'r2/0' belongs to repo 'r2' for another"),
        # two files of two folders became one docno: the run kept one as a duplicate, the
        # qrels judged both by the other's judgment
        (lambda d: d[0]["queryResults"][0]["retrievedChunks"][2].update(
            id="/elsewhere/r1/src/m.py:0-10"),
         r"\[0\].queryResults\[0\].retrievedChunks\[2\].id: chunk ids "
         r"'/home/u/eval/repositories/function_level/r1/src/m.py:0-10' and "
         r"'/elsewhere/r1/src/m.py:0-10' of chunker 'ast' are both 'r1/src/m.py:0-10' once "
         r"normalised"),
        (lambda d: d[2]["queryResults"][0]["relevantChunkIds"].append(
            "/elsewhere/r1/src/m.py:0-10"),
         r"\[2\].queryResults\[0\].relevantChunkIds\[1\]: chunk ids .* of chunker 'fixed'"),
        # "r1/src/m.py" read as placed in repo r1 and "src/m.py" placed there: two files
        # in a repo with a folder r1 of its own, one docno judged by the other's judgment
        (lambda d: d[0]["queryResults"][0]["relevantChunkIds"].extend(
            ["r1/src/m.py:0-10", "src/m.py:0-10"]),
         r"\[0\].queryResults\[0\].relevantChunkIds\[2\]: chunk ids 'r1/src/m.py:0-10' and "
         r"'src/m.py:0-10' of chunker 'ast' are both 'r1/src/m.py:0-10' once normalised"),
        # strata score --strata refused in the sidecar the conversion wrote
        (lambda d: d[0].update(repo="  "),
         r"\[0\].repo: blank group name '  ': a topic without a repo goes in \(none\)"),
        (lambda d: d[0].update(repo="(none)"), r"\[0\].repo: \(none\) names the topics"),
        # ranks given and not: the rankless chunk took its position, without a word
        (lambda d: d[0]["queryResults"][0]["retrievedChunks"][1].pop("rank"),
         r"\[0\].queryResults\[0\].retrievedChunks\[1\].rank: gives no rank, unlike the "
         r"first retrieved chunk of the query \(\[0\].queryResults\[0\].retrievedChunks\[0\]\)"),
    ],
)  # fmt: skip
def test_input_shapes_are_checked_with_their_line(tmp_path, mutate, message):
    path = _entries(tmp_path, mutate)
    with pytest.raises(InputError, match=r"detailed_x.json:\d+: " + message):
        convert_codechunk(path)


def test_a_merge_of_relative_ids_is_refused_at_its_repo_s_place(tmp_path):
    # x.py:1-2 is a file of each repo: the refusal pointed at repo r1's, which clashes
    # with nothing, not repo r2's beside r2/x.py:1-2
    def entry(repo, task, ids):
        chunks = [{"id": i, "rank": n + 1, "score": 1.0 - n / 10} for n, i in enumerate(ids)]
        query = {"taskId": task, "retrievedChunks": chunks, "relevantChunkIds": ["x.py:1-2"]}
        return {"chunker": "c", "repo": repo, "queryResults": [query]}

    path = tmp_path / "detailed_x.json"
    path.write_text(json.dumps([entry("r1", "t1", ["x.py:1-2"]),
                                entry("r2", "t2", ["r2/x.py:1-2", "x.py:1-2"])]))  # fmt: skip
    with pytest.raises(InputError, match=r"\[1\].queryResults\[0\].retrievedChunks\[1\].id: "):
        convert_codechunk(path)


def test_a_relative_id_and_other_chunkers_prefixes_are_no_merge(tmp_path):
    # a relative id names its repo's file; each chunker may have run on its own machine
    def mutate(d):
        d[0]["queryResults"][0]["relevantChunkIds"].append("src/m.py:0-10")
        query = d[2]["queryResults"][0]
        for chunk in query["retrievedChunks"]:
            chunk["id"] = chunk["id"].replace("/home/u/eval", "/other")
        query["relevantChunkIds"] = [
            i.replace("/home/u/eval", "/other") for i in query["relevantChunkIds"]
        ]

    conversion = convert_codechunk(_entries(tmp_path, mutate))
    for qrels in ("codechunk-ast", "codechunk-fixed"):
        assert conversion.qrels[qrels]["docno"].tolist() == ["r1/src/m.py:0-10", "r2/src/m.py:0-10"]


def test_the_producer_s_summary_file_is_named_as_such(tmp_path):
    # keys of code-chunk's summary_*.json; any other object keeps the generic refusal
    summary = tmp_path / "summary_x.json"
    summary.write_text('{"overall": {}, "perRepo": {}, "config": {}, "timestamp": "t"}')
    with pytest.raises(InputError) as refused:
        convert_codechunk(summary)
    assert str(refused.value) == (
        f"{summary}:1: this is a summary (summary_*.json: overall and perRepo metrics); "
        "convert the detailed results (detailed_*.json)"
    )
    summary.write_text('{"overall": {}}')
    with pytest.raises(InputError, match="expected a JSON array of .* found an object"):
        convert_codechunk(summary)


@pytest.mark.parametrize(
    ("names", "said"),
    [
        # "p 1" and "p_1" both give the tag p_1: one qrels and run would replace the other
        (
            ("p 1", "p_1"),
            "chunker 'p 1' and chunker 'p_1' would both be written as 'p_1' (a run tag "
            "keeps at most 25 of A-Z a-z 0-9 _ . -): rename one",
        ),
        # x.run and X.run (and their qrels) are one file on macOS's and Windows' file
        # systems, where the second chunker's would replace the first's
        (
            ("x", "X"),
            "chunker 'x' and chunker 'X' would be written as 'x' and 'X': one file where "
            "case is not told apart (macOS, Windows): rename one",
        ),
    ],
)
def test_chunkers_with_one_run_file_are_refused(tmp_path, names, said):
    def rename(data):
        for entry, chunker in zip(data, (names[0], names[0], names[1], names[1]), strict=True):
            entry["chunker"] = chunker

    path = _entries(tmp_path, rename)
    with pytest.raises(InputError) as error:
        convert_codechunk(path)
    line = path.read_text().splitlines().index(f'  "chunker": "{names[1]}",') + 1  # entry [2]
    assert str(error.value) == f"{path}:{line}: [2].chunker: {said}"


@pytest.mark.parametrize(
    ("name", "tag"),
    [
        # rewritten without a word, the sidecar's config keyed by the name and its runs by
        # the tag; ".." was refused, "../evil" written as a hidden ".._evil.run"
        ("ästhetik", "sthetik"),  # run tags are ASCII (R18): the letter cannot be kept
        ("my chunker", "my_chunker"),
        ("../evil", "evil"),
        (".", "run"),
        ("..", "run"),
    ],
)
def test_a_chunker_name_changed_into_its_run_tag_is_reported(tmp_path, name, tag):
    def rename(data):
        for entry in data[:2]:
            entry["chunker"] = name

    conversion = convert_codechunk(_entries(tmp_path, rename))
    assert [run.tag for run in conversion.runs] == [tag, "fixed"]
    assert list(conversion.qrels) == [f"codechunk-{tag}", "codechunk-fixed"]
    assert list(conversion.provenance["config"]) == [name, "fixed"]
    reason = (
        "chunker name changed into its run tag (1 to 25 of A-Z a-z 0-9 _ . -, "
        "not starting with . or _)"
    )
    assert conversion.report.counts[reason] == 1
    assert {"reason": reason, "from": name, "to": tag} in conversion.report.repaired


def test_a_query_without_retrieved_chunks_is_reported(tmp_path):
    path = _entries(tmp_path, lambda d: d[0]["queryResults"][0].update(retrievedChunks=[]))
    conversion = convert_codechunk(path)
    assert "r1/0" not in set(conversion.runs[0].table["qid"])
    (drop,) = [d for d in conversion.report.dropped if d["reason"].startswith("query without")]
    assert (drop["run"], drop["qid"]) == ("ast", "r1/0")


def test_a_repo_without_query_results_is_reported(tmp_path):
    # the repo vanished from the chunker's run and qrels without a word (code-chunk's
    # published means are over repos)
    path = _entries(tmp_path, lambda d: d[1].update(queryResults=[]))
    conversion = convert_codechunk(path)
    assert set(conversion.runs[0].table["qid"]) == {"r1/0"}
    assert set(conversion.qrels["codechunk-ast"]["qid"]) == {"r1/0"}
    (drop,) = [d for d in conversion.report.dropped if d["reason"].startswith("entry without")]
    assert (drop["chunker"], drop["repo"]) == ("ast", "r2")
    assert conversion.report.counts[drop["reason"]] == 1
    # an empty entry beside one of the same chunker and repo leaves nothing out
    path = _entries(tmp_path, lambda d: d.append({**d[1], "queryResults": []}))
    assert not convert_codechunk(path).report.dropped


def test_the_sidecar_names_queries_and_chunks_as_written(tmp_path):
    # the producer's metrics were keyed by the taskId as read ("r/1 a") and the repaired
    # chunk ids named as read, where the qrels and the run write r/1%20a and r/p%20q.py:3-4
    entries = [{"chunker": "ast", "repo": "r", "config": {}, "queryResults": [{
        "taskId": "r/1 a", "metrics": {"recall": 1},
        "retrievedChunks": [{"id": "/x/y z.py:1-2", "score": 1},
                            {"id": "p q.py:3-4", "score": 0.5}],
        "relevantChunkIds": ["p q.py:3-4"],
    }]}]  # fmt: skip
    path = tmp_path / "detailed.json"
    path.write_text(json.dumps(entries))
    conversion = convert_codechunk(path)
    (run,) = conversion.runs
    assert run.table[["qid", "docno"]].values.tolist() == [
        ["r/1%20a", "/x/y%20z.py:1-2"],
        ["r/1%20a", "r/p%20q.py:3-4"],
    ]
    assert conversion.provenance["producer_metrics"] == {"ast": {"r/1%20a": {"recall": 1}}}
    named = [
        {key: value for key, value in entry.items() if key != "reason"}
        for entry in conversion.report.repaired
        if "percent-escaped" not in entry["reason"]
    ]
    assert named == [
        {"id": "/x/y%20z.py:1-2"},  # kept unchanged: outside its repo folder
        {"from": "p q.py:3-4", "to": "r/p%20q.py:3-4"},  # the run's and the qrels', once
    ]


def test_a_chunk_id_repaired_in_the_run_and_the_qrels_is_listed_once(tmp_path):
    # "relative chunk id: its repo folder prepended" was listed (and counted) once for the
    # run and again for the qrels, "absolute chunk id outside its repo folder" likewise
    def query(repo: str) -> dict:
        return {
            "taskId": f"{repo}/1",
            "retrievedChunks": [{"id": "p.py:3-4", "score": 1}, {"id": "/y/b.py:1-2", "score": 0}],
            "relevantChunkIds": ["p.py:3-4", "/y/b.py:1-2"],
        }

    entries = [{"chunker": "ast", "repo": r, "queryResults": [query(r)]} for r in ("r", "s")]
    path = tmp_path / "detailed.json"
    path.write_text(json.dumps(entries))
    report = convert_codechunk(path).report
    placed, outside = (
        "relative chunk id: its repo folder prepended",
        "absolute chunk id outside its repo folder (kept unchanged)",
    )
    assert report.counts == {placed: 2, outside: 1}
    assert report.repaired == [
        {"reason": outside, "id": "/y/b.py:1-2"},
        # one per repo it is placed in (keyed by the id as read, the first was left out)
        {"reason": placed, "from": "p.py:3-4", "to": "r/p.py:3-4"},
        {"reason": placed, "from": "p.py:3-4", "to": "s/p.py:3-4"},
    ]
