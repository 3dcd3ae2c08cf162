"""Plain-list converter: ids and remem's chunk matching, the remem seed's worked examples."""

from __future__ import annotations

import json

import pytest
from conftest import DUPLICATE

from trecbench.convert.chunks import FUZZY_THRESHOLD, assign, match_rule
from trecbench.convert.lists import convert_lists
from trecbench.errors import InputError, UsageError

EXAMPLE = {
    "gold_docs": [["doc1", "doc2"], ["doc3"], []],
    "retrieved_chunks": [["doc1", "doc3", "doc2"], ["doc4", "doc3", "doc4"], ["doc9"]],
}


def write(tmp_path, data, name="rag_eval.json"):
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return path


def means(conversion, measures):
    """trecbench's mean of each measure over the run's queries (trec_eval's average)."""
    from trecbench.evaluation import evaluate

    (run,) = conversion.runs
    result = evaluate(conversion.qrels[conversion.name], run.table, measures)
    table = result.per_query.pivot(index="qid", columns="measure", values="value")
    return {m: round(float(v), 10) for m, v in table.mean().items()}, table


def test_example_with_index_qids(tmp_path):
    conversion = convert_lists(write(tmp_path, EXAMPLE))
    assert conversion.qrels["rag_eval"].values.tolist() == [
        ["0", "doc1", 1],
        ["0", "doc2", 1],
        ["1", "doc3", 1],
    ]
    (run,) = conversion.runs
    assert run.tag == "rag_eval"
    assert run.table[["qid", "docno", "rank", "score"]].values.tolist() == [
        ["0", "doc1", 1, 3.0],
        ["0", "doc3", 2, 2.0],
        ["0", "doc2", 3, 1.0],
        ["1", "doc4", 1, 2.0],
        ["1", "doc3", 2, 1.0],
        ["2", "doc9", 1, 1.0],
    ]
    assert conversion.report.counts == {
        DUPLICATE.format("rag_eval"): 1,
        "query without gold docs (not in the qrels)": 1,
    }
    # the dropped copy and the kept one by their ranks (0-based positions named "rank 0")
    (dropped,) = [d for d in conversion.report.dropped if "duplicate" in d["reason"]]
    assert (dropped["docno"], dropped["order"], dropped["kept_order"]) == ("doc4", 3, 1)


def test_scores_match_hand_worked_values(tmp_path):
    """MRR and Recall@2 of the example, by hand: q0 rr 1, R@2 1/2; q1 rr 1/2, R@2 1."""
    _, values = means(convert_lists(write(tmp_path, EXAMPLE)), ["RR", "R@2"])
    assert values.loc[["0", "1"], "recip_rank"].tolist() == [1.0, 0.5]
    assert values.loc[["0", "1"], "Recall@2"].tolist() == [0.5, 1.0]


# remem's retrieval_eval documentation (seed 002). Its printed pooled numbers are checked
# against what its formulas (and its code) give; where they disagree the test says so.
RECALL = {"gold_docs": [["doc1", "doc2"], ["doc3"]],
          "retrieved_chunks": [["doc1", "doc3", "doc2"], ["doc4", "doc3"]]}  # fmt: skip
RECALL_ALL = {"gold_docs": [["doc1", "doc2"], ["doc3"]],
              "retrieved_chunks": [["doc1", "doc3", "doc2"], ["doc3", "doc4"]]}  # fmt: skip
NDCG = {"gold_docs": [["doc1", "doc2"], ["doc3"]],
        "retrieved_chunks": [["doc1", "doc2", "doc4"], ["doc3", "doc5"]]}  # fmt: skip
PATTERN = {"gold_docs": [["doc1", "doc2"]], "retrieved_chunks": [["doc1", "doc5", "doc2", "doc3"]]}


@pytest.mark.parametrize("match", ["ids", "chunks"])
def test_remem_seed_examples(tmp_path, match):
    recall, per_query = means(
        convert_lists(write(tmp_path, RECALL), match=match), ["R@1", "R@5", "R@10"]
    )
    # per example: [0.5, 1, 1] and [0, 1, 1]. The seed prints Recall@1 = 0.5 pooled; the
    # mean of its own per-example values is 0.25 (its "Example Output" is off too).
    assert per_query["Recall@1"].tolist() == [0.5, 0.0]
    assert recall == {"Recall@1": 0.25, "Recall@10": 1.0, "Recall@5": 1.0}

    recall_all, per_query = means(
        convert_lists(write(tmp_path, RECALL_ALL), match=match),
        ["Recall_all@1", "Recall_all@5", "Recall_all@10"],
    )
    # the seed prints Recall_all@1 = 0.0; its formula gives 0 for the first example (doc2
    # is not in the top 1) and 1 for the second (doc3 is): 0.5
    assert per_query["Recall_all@1"].tolist() == [0.0, 1.0]
    assert recall_all == {"Recall_all@1": 0.5, "Recall_all@10": 1.0, "Recall_all@5": 1.0}

    ndcg, _ = means(
        convert_lists(write(tmp_path, NDCG), match=match),
        ["nDCG@1", "nDCG@5", "nDCG@10"],
    )
    # every relevant document is ranked first: 1.0 for remem's code (NDCG_any) and for
    # trec_eval alike; the seed's 0.75 / 0.85 / 0.87 come from no ranking it states
    assert ndcg == {"nDCG@1": 1.0, "nDCG@10": 1.0, "nDCG@5": 1.0}

    pattern, _ = means(
        convert_lists(write(tmp_path, PATTERN), match=match),
        ["R@1", "R@2", "R@5", "R@10", "R@20"],
    )
    # "Evaluating at multiple k values": consistent with its formula
    assert pattern == {
        "Recall@1": 0.5,
        "Recall@2": 0.5,
        "Recall@5": 1.0,
        "Recall@10": 1.0,
        "Recall@20": 1.0,
    }


def test_remem_matching_rules():
    """is_chunk_from_original's rules, one case each (remem's code, not its prose)."""
    session = 'Date: 2023-05-01\nuser: I moved to Paris\nassistant: "Nice" she said\n'
    assert match_rule("I moved to Paris", session) == "exact"
    assert match_rule("Date: 2023-05-08\nI moved to Paris", session) == "exact"  # line 1 dropped
    # remem keeps the text between the first and second ': ' only (quirk kept)
    assert match_rule("user: I moved to Paris: best year ever", session) == "exact"
    stored = json.dumps([{"role": "assistant", "content": 'He said "hi"\nthen left'}])
    assert match_rule('He said "hi"\nthen left', stored) == "json-escaped"
    typo = "the quick brown fox jumpd over the lazy dog"  # partial_ratio 97.7
    document = "Yesterday the quick brown fox jumped over the lazy dog near the river."
    assert match_rule(typo, document) == "fuzzy"
    assert match_rule(typo, document, fuzzy=None) is None  # remem's code has no fuzzy step
    assert match_rule(typo, document, fuzzy=99) is None
    assert match_rule("a completely different sentence", document) is None
    assert match_rule("doc1", "doc10") == "exact"  # substring semantics, as in remem
    # a short document is never found inside a long chunk by partial alignment
    assert match_rule("unrelated text", "x") is None


def test_assignment_rules():
    gold = ["alpha beta gamma", "delta epsilon", "alpha beta gamma delta epsilon"]
    chunks = ["beta gamma", "beta", "zeta", "delta epsilon"]
    result = [a.as_dict() for a in assign(gold, chunks)]
    assert result == [
        # matches gold 0 and 2 exactly: the first free one by position
        {"chunk": 0, "gold": 0, "rule": "exact", "also": [2]},
        # gold 0 is taken: the next free matching document
        {"chunk": 1, "gold": 2, "rule": "exact", "also": [0]},
        {"chunk": 2, "gold": None, "rule": None},
        {"chunk": 3, "gold": 1, "rule": "exact", "also": [2]},
    ]
    # every matching document already retrieved: a repeat, counted once
    repeat = assign(["abc"], ["abc", "b"])
    assert [(a.gold, a.repeat) for a in repeat] == [(0, False), (0, True)]
    # an exact match wins over a fuzzy one of an earlier document
    mixed = assign(["the quick brown fox jumped", "brown fox jumpd"], ["brown fox jumpd"])
    assert (mixed[0].gold, mixed[0].rule) == (1, "exact")
    # the exact match taken, a second copy takes a document it matches fuzzily, as
    # docs/convert.md says (reviewer 678 read the rule as making it a repeat)
    copies = assign(["Paris is big", "Paris is bog and old"], ["Paris is big"] * 2)
    assert [a.as_dict() for a in copies] == [
        {"chunk": 0, "gold": 0, "rule": "exact"},
        {"chunk": 1, "gold": 1, "rule": "fuzzy", "also": [0]},
    ]


def test_chunks_are_assigned_and_every_assignment_recorded(tmp_path):
    data = {
        "query_ids": ["q1", "q2"],
        "gold_docs": [
            ["Date: 2023-05-01\nuser: I moved to Paris", "The cat sat on the mat.", "x"],
            ["Yesterday the quick brown fox jumped over the lazy dog."],
        ],
        "retrieved_chunks": [
            ["unrelated text", "user: I moved to Paris", "I moved", "the mat"],
            ["the quick brown fox jumpd over the lazy dog"],
        ],
    }
    conversion = convert_lists(write(tmp_path, data), match="chunks")
    qrels = conversion.qrels["rag_eval"]
    assert qrels.values.tolist() == [
        ["q1", "gold-0", 1],
        ["q1", "gold-1", 1],
        ["q1", "gold-2", 1],
        ["q2", "gold-0", 1],
    ]
    run = conversion.runs[0].table
    assert run[["qid", "docno", "rank"]].values.tolist() == [
        ["q1", "chunk-0", 1],
        ["q1", "gold-0", 2],
        ["q1", "chunk-2", 3],  # a repeat of gold-0: keeps its rank, judged not relevant
        ["q1", "gold-1", 4],
        ["q2", "gold-0", 1],
    ]
    matching = conversion.sections["matching"]
    assert matching["assignments"] == {
        "q1": [
            {"chunk": 1, "gold": 0, "rule": "exact"},
            {"chunk": 2, "gold": 0, "rule": "exact", "repeat": True},
            {"chunk": 3, "gold": 1, "rule": "exact"},
        ],
        "q2": [{"chunk": 0, "gold": 0, "rule": "fuzzy"}],
    }
    assert matching["counts"] == {
        "exact": 2, "json-escaped": 0, "fuzzy": 1, "repeat": 1, "ambiguous": 0, "unmatched": 1,
        "empty": 0,
    }  # fmt: skip
    assert matching["fuzzy_threshold"] == 90.0 and matching["rapidfuzz"]
    values, _ = means(conversion, ["R@2", "Recall_all@4", "P@4"])
    # q1: gold-0 in the top 2 of 3 gold docs; q2: its one gold doc first
    assert values["Recall@2"] == round((1 / 3 + 1) / 2, 10)
    assert values["Recall_all@4"] == 0.5  # q1 misses "x"
    assert values["P@4"] == round((2 / 4 + 1 / 4) / 2, 10)
    without = convert_lists(write(tmp_path, data), match="chunks", fuzzy_threshold=None)
    assert without.sections["matching"]["assignments"]["q2"] == []


def test_empty_texts_are_credited_to_no_gold_document(tmp_path):
    """remem finds "" in every document: an empty chunk ("", "Date: x" once its date line
    is dropped, "user: ") matched every gold document and was credited relevant, and an
    empty gold document took every chunk (only an 'ambiguous' note said it)."""
    path = write(tmp_path, {
        "gold_docs": [["Date: 2024\nuser: hello world", "", "abc"]],
        "retrieved_chunks": [["", "user: hello world", "Date: x", "abc"]],
    })  # fmt: skip
    with pytest.raises(InputError, match=r"rag_eval.json:1: gold_docs\[0\]\[1\]: empty gold doc"):
        convert_lists(path, match="chunks")
    data = {
        "gold_docs": [["Date: 2024\nuser: hello world", "abc"]],
        "retrieved_chunks": [["", "user: hello world", "Date: x", "abc", "user: "]],
    }
    for fuzzy in (FUZZY_THRESHOLD, None):
        conversion = convert_lists(write(tmp_path, data), match="chunks", fuzzy_threshold=fuzzy)
        run = conversion.runs[0].table
        assert run["docno"].tolist() == ["chunk-0", "gold-0", "chunk-2", "gold-1", "chunk-4"]
        matching = conversion.sections["matching"]
        assert matching["assignments"]["0"] == [
            {"chunk": 1, "gold": 0, "rule": "exact"},
            {"chunk": 3, "gold": 1, "rule": "exact"},
        ]
        assert (matching["counts"]["empty"], matching["counts"]["unmatched"]) == (3, 3)
        (reason,) = conversion.report.counts
        assert reason.startswith("retrieved chunk whose text is empty")
        assert conversion.report.counts[reason] == 3
    assert match_rule("", "abc") is None and match_rule("Date: x", "abc", fuzzy=None) is None
    # a blank chunk is found in any document holding as many blanks: empty too
    assert match_rule("  ", "a  b", fuzzy=None) is None and match_rule("\n", "a\nb") is None
    blank = {"gold_docs": [["a  b"]], "retrieved_chunks": [["  ", "a  b"]]}
    conversion = convert_lists(write(tmp_path, blank), match="chunks")
    assert conversion.runs[0].table["docno"].tolist() == ["chunk-0", "gold-0"]
    assert conversion.sections["matching"]["counts"]["empty"] == 1


def test_query_ids_depth_and_errors(tmp_path):
    path = tmp_path / "x.json"
    path.write_text(json.dumps({**EXAMPLE, "query_ids": ["a", "b", 7]}))
    conversion = convert_lists(path, tag="mine", depth=1)
    assert conversion.runs[0].table["qid"].tolist() == ["a", "b", "7"]
    assert conversion.runs[0].tag == "mine"
    for bad, message in (
        ({"gold_docs": [[]], "retrieved_chunks": []}, "1 gold_docs lists but 0"),
        ({"gold_docs": [["a"]], "retrieved_chunks": "a"}, "retrieved_chunks: expected an array"),
        (
            {**EXAMPLE, "query_ids": ["a", "a", "b"]},
            r"query_ids\[1\]: 'a' is used twice \(first at query_ids\[0\]\)",
        ),
        ({"gold_docs": [[1.5]], "retrieved_chunks": [[]]}, r"gold_docs\[0\]\[0\]: expected a"),
        ({"gold_docs": ["ab"], "retrieved_chunks": [[]]}, r"gold_docs\[0\]: expected an array"),
    ):
        path.write_text(json.dumps(bad))
        with pytest.raises(InputError, match=message):
            convert_lists(path)
    path.write_text(json.dumps({"gold_docs": [[1]], "retrieved_chunks": [["a"]]}))
    with pytest.raises(InputError, match=r"gold_docs\[0\]\[0\]: expected a string"):
        convert_lists(path, match="chunks")
    with pytest.raises(UsageError, match="fuzzy_threshold"):
        convert_lists(path, match="chunks", fuzzy_threshold=0)


def test_a_query_with_an_empty_list_is_reported(tmp_path):
    data = {"gold_docs": [["a"], ["b"]], "retrieved_chunks": [["a"], []]}
    conversion = convert_lists(write(tmp_path, data))
    assert conversion.runs[0].table["qid"].tolist() == ["0"]
    (drop,) = conversion.report.dropped
    assert drop["qid"] == "1" and drop["reason"].startswith("query without retrieved documents")


def test_lists_without_a_gold_doc_are_refused_at_gold_docs(tmp_path):
    # it said "e.json: no judgment to write as qrels e", of the whole file, when writing
    path = tmp_path / "e.json"
    for data in ('{"retrieved_chunks": [["a"], []],\n "gold_docs": [[],\n []]}',
                 '{"retrieved_chunks": [],\n "gold_docs": []}'):  # fmt: skip
        path.write_text(data)
        for match in ("ids", "chunks"):
            with pytest.raises(InputError) as error:
                convert_lists(path, match=match)
            assert str(error.value) == (
                f"{path}:2: gold_docs: no gold doc in any list: no judgment for qrels"
            )


def test_ids_minus_zero_and_zero_stay_apart(tmp_path):
    # JSON's -0 is the integer 0: read as a number, "-0" and "0" became one document
    source = tmp_path / "mz.json"
    source.write_text('{"gold_docs": [["0"]], "retrieved_chunks": [[-0, 0]]}')
    (run,) = convert_lists(source).runs
    assert run.table["docno"].tolist() == ["-0", "0"]


@pytest.mark.parametrize(
    ("key", "place"),
    [("query_id", "query_id"), ("queries", "queries"), ("query ids\n", '["query ids\\n"]')],
)
def test_an_unknown_key_is_refused_naming_it(tmp_path, key, place):
    # a misspelt "query_id" was ignored: the queries were numbered by position, silently
    path = tmp_path / "typo.json"
    path.write_text(json.dumps({**EXAMPLE, key: ["a", "b", "c"]}))
    with pytest.raises(InputError) as error:
        convert_lists(path)
    assert str(error.value) == (
        f"{path}:1: {place}: unknown key (a lists file holds gold_docs, retrieved_chunks and "
        "optionally query_ids)"
    )


def test_the_sidecar_names_each_query_as_written(tmp_path):
    # a repeated gold document and the assignments named the query "q 1" where the qrels,
    # the run and every other entry say q%201
    data = {
        "gold_docs": [["alpha beta", "alpha beta"]],
        "retrieved_chunks": [["alpha beta", "x"]],
        "query_ids": ["q 1"],
    }
    conversion = convert_lists(write(tmp_path, data), match="chunks")
    assert conversion.runs[0].table["qid"].unique().tolist() == ["q%201"]
    (dropped,) = conversion.report.dropped
    assert dropped == {
        "reason": "duplicate gold document in a query (same text; counted once)",
        "qid": "q%201",
        "gold": 1,
    }
    assert list(conversion.sections["matching"]["assignments"]) == ["q%201"]


def test_query_ids_of_another_count_are_counted_in_words(tmp_path):
    # "query_ids: 2 ids for 1 queries"
    path = tmp_path / "x.json"
    path.write_text(
        '{"gold_docs": [["d1"]], "retrieved_chunks": [["d1"]], "query_ids": ["a", "b"]}'
    )
    with pytest.raises(InputError) as raised:
        convert_lists(path)
    assert str(raised.value) == f"{path}:1: query_ids: 2 ids for 1 query"
    path.write_text(
        '{"gold_docs": [["d1"], []], "retrieved_chunks": [["d1"], []], "query_ids": ["a"]}'
    )
    with pytest.raises(InputError) as raised:
        convert_lists(path)
    assert str(raised.value) == f"{path}:1: query_ids: 1 id for 2 queries"


@pytest.mark.parametrize(
    ("chunks", "said"),
    [
        (["abc"], "1 chunk matches several gold documents and counts for one"),
        (["abc", "abc"], "2 chunks match several gold documents and count for one"),
    ],
)
def test_chunks_of_several_gold_documents_are_counted_in_words(tmp_path, chunks, said):
    # the note said "1 chunk(s) match ... and count for one" (review 719)
    data = {"gold_docs": [["abc x", "abc y"]], "retrieved_chunks": [chunks]}
    conversion = convert_lists(write(tmp_path, data), match="chunks")
    assert f"{said} (remem's Recall_all credits them all)" in conversion.report.notes
