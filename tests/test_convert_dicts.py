"""dict converter: pytrec_eval/BEIR run dicts, qrels JSON and BEIR TSV; BEIR/MTEB qrels
alone; MS MARCO's three-column runs."""

from __future__ import annotations

import gzip
import json
import os
import re
from urllib.parse import unquote_to_bytes

import pytest
from conftest import DUPLICATE

from trecbench.convert.beir import convert_beir_qrels, read_beir_qrels
from trecbench.convert.common import Report, write_conversion
from trecbench.convert.dicts import convert_dict
from trecbench.convert.msmarco import convert_msmarco
from trecbench.convert.tables import JUDGED_NONE_RELEVANT
from trecbench.errors import InputError

RUN = {
    "q1": {"d1": 0.5, "d3": 0.5, "d2": 0.9, "d10": 0.5},  # three-way tie
    "q2": {"d5": 1.0, "d4": 2.0},
}
QRELS = {"q1": {"d1": 1, "d10": 2, "d2": 0}, "q2": {"d5": 1}, "q3": {"d9": 0}}


def test_order_is_pytrec_evals_and_scores_agree(tmp_path):
    import pytrec_eval

    from trecbench.evaluation import evaluate

    run = tmp_path / "bm25.json"
    run.write_text(json.dumps(RUN))
    qrels = tmp_path / "test.json"
    qrels.write_text(json.dumps(QRELS))
    conversion = convert_dict(run, qrels_json=qrels)
    (out,) = conversion.runs
    assert out.tag == "bm25" and out.qrels == "test"
    # score desc, then docid desc (byte-wise: "d3" > "d10" > "d1")
    assert out.table["docno"].tolist() == ["d2", "d3", "d10", "d1", "d4", "d5"]
    assert out.original_scores == [0.9, 0.5, 0.5, 0.5, 2.0, 1.0]
    assert out.stats["tied_adjacent_scores"] == 2
    # q3 is judged, none relevant: in the qrels (it scores 0 and counts), not "without"
    info = conversion.qrels_info["test"]
    assert (info["without_relevant"], info["none_relevant"]) == ([], ["q3"])
    assert conversion.report.counts[JUDGED_NONE_RELEVANT] == 1

    names = {"ndcg_cut_3": "nDCG@3", "recip_rank": "recip_rank", "P_2": "P@2", "map": "MAP"}
    reference = pytrec_eval.RelevanceEvaluator(QRELS, set(names)).evaluate(RUN)
    mine = evaluate(conversion.qrels["test"], out.table, ["ndcg_cut.3", "recip_rank", "P.2", "map"])
    values = mine.per_query.set_index(["qid", "measure"])["value"]
    for qid, measures in reference.items():
        if qid == "q3":  # not in the run
            continue
        for measure, value in measures.items():
            assert values[(qid, names[measure])] == pytest.approx(value, abs=1e-12)


def test_scores_equal_in_float32_tie_as_pytrec_eval_ties_them(tmp_path):
    # 1.00000001 rounds to 1.0 in float32: pytrec_eval (trec_eval 9.x) ties the two and
    # ranks d2 first (docid descending); the converter ranked d1 first by the doubles
    import pytrec_eval

    from trecbench.evaluation import evaluate
    from trecbench.inputs import mappings

    scores = {"q1": {"d1": 1.00000001, "d2": 1.0, "d0": 1.0000001}}
    qrels = {"q1": {"d1": 1}}
    run = tmp_path / "near.json"
    run.write_text(json.dumps(scores))
    (out,) = convert_dict(run).runs
    assert out.table["docno"].tolist() == ["d0", "d2", "d1"]  # d0 is above in float32 too
    reference = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}).evaluate(scores)
    mine = evaluate(mappings.to_table(qrels, "qrels", "-"), out.table, ["recip_rank"]).per_query
    assert mine["value"].tolist() == [reference["q1"]["recip_rank"]] == [1 / 3]


def test_beir_qrels_tsv(tmp_path):
    tsv = tmp_path / "test.tsv"
    tsv.write_text("query-id\tcorpus-id\tscore\nq1\td1\t1\nq1\t001\t0\nq2\tNA\t2\n")
    frame, record, _ = read_beir_qrels(tsv, Report())
    assert frame.values.tolist() == [["q1", "d1", 1], ["q1", "001", 0], ["q2", "NA", 2]]
    assert record["kind"] == "beir qrels" and record["size"] == tsv.stat().st_size
    run = tmp_path / "r.json"
    run.write_text(json.dumps(RUN))
    conversion = convert_dict(run, beir_qrels=tsv, name="beir", tag="dense")
    assert list(conversion.qrels) == ["beir"] and conversion.runs[0].tag == "dense"

    for text, message in (
        ("q1\td1\t1\n", "test.tsv:1: expected the header 'query-id corpus-id score'"),
        ("query-id\tcorpus-id\tscore\nq1\td1\t0.5\n", "test.tsv:2: score '0.5' is not an int"),
        ("query-id\tcorpus-id\tscore\nq1\td1\t5000000\n", "test.tsv:2: score '5000000' is above"),
        ("query-id\tcorpus-id\tscore\nq1\td1\t1\t7\n", "test.tsv:2: expected 3 fields"),
        ("query-id\tcorpus-id\tscore\nq1 d1 1\n", r"found 1 \(fields are separated by tabs"),
        ("query-id\tcorpus-id\tscore\nq1\t\t1\n", "test.tsv:2: empty corpus-id"),
        ("query-id\tcorpus-id\tscore\n\xff\n", "test.tsv:2: invalid UTF-8"),
        ("", "test.tsv: empty: expected lines of query-id corpus-id score"),  # issue 9.7
        ("\n\n", "test.tsv: empty"),
        ("query-id\tcorpus-id\tscore\n", "test.tsv: no judgment after the header"),
    ):
        tsv.write_bytes(text.encode("latin-1"))  # "\xff": a byte that is not UTF-8
        with pytest.raises(InputError, match=message):
            read_beir_qrels(tsv, Report())


def test_run_without_qrels_and_bad_dicts(tmp_path):
    run = tmp_path / "r.json"
    run.write_text(json.dumps(RUN))
    conversion = convert_dict(run, depth=1)
    assert conversion.qrels == {} and conversion.runs[0].qrels is None
    assert conversion.runs[0].table["docno"].tolist() == ["d2", "d4"]
    for bad, message in (
        (
            {"q1": ["d1"]},
            r"r.json:1: query 'q1': its documents must be a JSON object of docno "
            r"to score, not an array",
        ),
        (
            {"q1": "d1"},
            r"r.json:1: query 'q1': its documents must be a JSON object of docno to "
            r"score, not a string \('d1'\)",
        ),
        ({"q1": False}, r"query 'q1': its documents must be .*, not a boolean \(false\)$"),
        ({"q1": {"d1": "high"}}, r"query 'q1', document 'd1': 'high' is a string, not a number"),
        # JSON's words in a JSON file's message ("True is bool" read as Python's)
        ({"q1": {"d1": True}}, r"query 'q1', document 'd1': true is a boolean, not a number"),
        ({"q1": {"d1": None}}, r"query 'q1', document 'd1': null, not a number"),
        ({"q1": {"": 1.0}}, r"query 'q1', document '': docno is empty"),
        ([1], r"expected an object, found an array"),
        ({}, r"no query in the run dict"),
    ):
        run.write_text(json.dumps(bad))
        with pytest.raises(InputError, match=message):
            convert_dict(run)
    run.write_text('{"q1": {"d1": 1.0, "d1": 2.0}}')  # JSON readers keep the last: refused
    with pytest.raises(InputError, match="duplicate key 'd1'"):
        convert_dict(run)
    # at the line of the second key of that object (d1 of q1 on line 2 is another object's)
    run.write_text('{\n "q1": {"d1": 1, "d\\"x": 2},\n "q2": {"d1": 1,\n   "d1": 3}\n}\n')
    with pytest.raises(InputError, match=r"r.json:4: duplicate key 'd1'"):
        convert_dict(run)
    # a brace in a string value is text, not an object's (code prompts hold them)
    run.write_text('{"x": {"K": 1, "s": "{"},\n"y": 0,\n"K": 1,\n"K": 2}')
    with pytest.raises(InputError, match=r"r.json:4: duplicate key 'K'"):
        convert_dict(run)
    run.write_text('[\n{"qid": "1",\n "qid": "2"}]\n')
    with pytest.raises(InputError, match=r"r.json:3: duplicate key 'qid'"):
        from trecbench.sources import read_json

        read_json(run, "run dict")


@pytest.mark.parametrize(
    "bad, message",
    [
        ('"": {"d1": 1}', "4: query '', document 'd1': qid is empty"),
        ('"q3": {"d1": 1,\n   "": 2}', "5: query 'q3', document '': docno is empty"),
        (
            '"q3": {"d1": 1,\n   "d2": true}',
            "5: query 'q3', document 'd2': true is a boolean, not a number (a dict holds numbers)",
        ),
        (
            '"q3": []',
            "4: query 'q3': its documents must be a JSON object of docno to score, not an array",
        ),
        ('"q3": {"d1": 1,\n  "d2": 1e999}', "5: number 1e999 is beyond a double"),
        # it was written as 0.0, tied with the zeros, silently
        (
            '"q3": {"d1": 1,\n  "d2": 1e-400}',
            "5: number 1e-400 is too small for a double (it would read as 0)",
        ),
    ],
)
def test_errors_in_a_dict_name_their_line(tmp_path, bad, message):
    run = tmp_path / "r.json"
    run.write_text('{\n "q1": {"d1": 1},\n "q2": {"d1": 1},\n ' + bad + "\n}\n")
    with pytest.raises(InputError) as error:
        convert_dict(run)
    assert str(error.value) == f"{run}:{message}"
    qrels = tmp_path / "g.json"  # the qrels' errors name the qrels file and its line
    qrels.write_text(run.read_text().replace("true", "1.5").replace("1e999", "2"))
    run.write_text('{"q1": {"d1": 1}}')
    if "true" in bad:
        with pytest.raises(InputError, match=r"g\.json:5: query 'q3', document 'd2'"):
            convert_dict(run, qrels_json=qrels)


def test_qrels_that_cannot_be_scored_are_blamed_on_the_qrels_file(tmp_path):
    run, qrels = tmp_path / "r.json", tmp_path / "g.json"
    run.write_text('{"q 1": {"d1": 0.5}}')
    qrels.write_text('{"q0": {},\n "q 1": {"d1": -1}}')
    conversion = convert_dict(run, qrels_json=qrels)
    # at the line of the query as written (the table holds its id escaped)
    with pytest.raises(InputError, match=r"g\.json:2: qrels g: query 'q%201' has only negative"):
        write_conversion(conversion, tmp_path / "out", [run, qrels])


def test_queries_without_documents_and_qrels_grades(tmp_path):
    run = tmp_path / "r.json"
    run.write_text(json.dumps({"q1": {"d1": 1.0}, "q2": {}}))
    qrels = tmp_path / "q.json"
    qrels.write_text(json.dumps({"q1": {"d1": 1}, "q2": {"d2": 1}}))
    conversion = convert_dict(run, qrels_json=qrels)
    (drop,) = conversion.report.dropped
    assert drop["qid"] == "q2" and drop["reason"].startswith("query without retrieved documents")
    run.write_text(json.dumps({"q2": {}}))
    from trecbench.convert.common import write_conversion

    with pytest.raises(InputError, match=r"r.json: run r: no retrieved document"):
        write_conversion(convert_dict(run), tmp_path / "out", inputs=[])
    for bad, message in (
        ({"q1": {"d1": 1.5}}, r"query 'q1', document 'd1': relevance 1.5 is not an integer"),
        ({"q1": {"d1": 2_000_000}}, r"relevance 2000000 is above"),
    ):
        qrels.write_text(json.dumps(bad))
        with pytest.raises(InputError, match=message):
            convert_dict(run, qrels_json=qrels)


def test_beir_qrels_alone(tmp_path):
    """Issue 13.5: a BEIR/MTEB qrels TSV without a run."""
    tsv = tmp_path / "test.tsv.gz"
    tsv.write_bytes(gzip.compress(b"query-id\tcorpus-id\tscore\nq 1\td1\t1\nq2\td2\t0\n"))
    conversion = convert_beir_qrels(tsv)
    assert conversion.name == "test" and conversion.runs == []
    assert conversion.qrels["test"].values.tolist() == [["q%201", "d1", 1], ["q2", "d2", 0]]
    assert conversion.qrels_info["test"]["none_relevant"] == ["q2"]  # judged 0: in the qrels


def test_a_beir_judgment_given_twice_keeps_its_last_grade_as_beirs_loader(tmp_path):
    # GenericDataLoader._load_qrels assigns each line's grade in turn: d2 is 0 to BEIR,
    # whose nDCG@1 and P@1 are then 0; the highest grade kept made them 1 (reviewer 666)
    tsv = tmp_path / "dup.tsv"
    tsv.write_text("query-id\tcorpus-id\tscore\nq1\td1\t1\nq1\td2\t2\nq1\td2\t0\n")
    run = tmp_path / "dup.json"
    run.write_text('{"q1": {"d2": 2.0, "d1": 1.0}}')
    reason = "duplicate judgment (dup; the last grade is kept, as BEIR's loader keeps it)"
    for conversion in (convert_beir_qrels(tsv), convert_dict(run, beir_qrels=tsv)):
        assert conversion.qrels["dup"].values.tolist() == [["q1", "d1", 1], ["q1", "d2", 0]]
        (dropped,) = [d for d in conversion.report.dropped if d["reason"] == reason]
        assert (dropped["rel"], dropped["kept_rel"]) == (2, 0)
    # a JSON qrels holds a judgment once; other converters keep the highest grade
    pytrec_eval = pytest.importorskip("pytrec_eval")
    beir = pytrec_eval.RelevanceEvaluator({"q1": {"d1": 1, "d2": 0}}, {"P.1", "ndcg_cut.1"})
    assert beir.evaluate({"q1": {"d2": 2.0, "d1": 1.0}})["q1"] == {"P_1": 0.0, "ndcg_cut_1": 0.0}


def test_beir_qrels_fields_in_quotes_are_read_as_beir_reads_them(tmp_path):
    # BEIR reads its qrels with csv.reader(delimiter="\t", quoting=QUOTE_MINIMAL), and its
    # writer quotes an id holding a quote: "q""1" is q"1 to BEIR and pytrec_eval; trecbench
    # wrote the qid "q""1", which matched no run topic q"1
    import csv

    tsv = tmp_path / "test.tsv"
    rows = [["query-id", "corpus-id", "score"], ['q"1', 'd"1', "1"], ["q2", "d2", "1"]]
    with tsv.open("w", newline="") as out:
        csv.writer(out, delimiter="\t", quoting=csv.QUOTE_MINIMAL).writerows(rows)
    assert tsv.read_text().splitlines()[1] == '"q""1"\t"d""1"\t1'  # as BEIR writes it
    with tsv.open(newline="") as given:  # what BEIR's loader reads
        beir = [row for row in csv.reader(given, delimiter="\t", quoting=csv.QUOTE_MINIMAL)]
    conversion = convert_beir_qrels(tsv)
    assert conversion.qrels["test"].values.tolist() == [[*row[:2], int(row[2])] for row in beir[1:]]
    assert conversion.report.counts["query-id in CSV quotes, read as BEIR reads it"] == 1
    tsv.write_text('query-id\tcorpus-id\tscore\nq2\td2\t1\n"q\td1\t1\n')  # read on by BEIR
    with pytest.raises(InputError, match=r"test.tsv:3: query-id '\"q': a quote that does not"):
        convert_beir_qrels(tsv)
    tsv.write_text('query-id\tcorpus-id\tscore\nq2\td2\t1\n""\td1\t1\n')  # was "qid is empty"
    with pytest.raises(InputError, match=r'test.tsv:3: empty query-id \(""'):
        convert_beir_qrels(tsv)


def test_a_byte_order_mark_is_not_part_of_the_first_line(tmp_path):
    # it was kept: the BEIR header was refused, the MS MARCO qid became %EF%BB%BF1; then
    # dropped without a word, where trec_eval reads it as part of the first qid (reviewer
    # 687): a note says so, in the sidecar and on stderr
    tsv = tmp_path / "test.tsv"
    said = (
        f"{tsv} starts with a UTF-8 byte-order mark: read as the text's encoding signature, "
        "not as part of its first field"
    )
    tsv.write_bytes(b"\xef\xbb\xbfquery-id\tcorpus-id\tscore\nq1\td1\t1\n")
    beir = convert_beir_qrels(tsv)
    assert beir.qrels["test"].values.tolist() == [["q1", "d1", 1]]
    assert beir.report.notes == [said]
    tsv.write_bytes(b"\xef\xbb\xbf1\td1\t1\n")
    msmarco = convert_msmarco(tsv)
    assert msmarco.runs[0].table["qid"].tolist() == ["1"]
    assert msmarco.report.notes == [said]
    tsv.write_bytes(b"1\td1\t1\n")
    assert convert_msmarco(tsv).report.notes == []


def test_msmarco_three_column_run(tmp_path):
    """Issue 13.5: MS MARCO's ``qid pid rank`` runs; trec_eval ranks the result the same."""
    from trecbench.inputs import parse_run
    from trecbench.ranking import rank_table

    path = tmp_path / "run.dev.small.tsv"
    path.write_text("2\t7067032\t1\n2\t7067056\t2\n2\t10\t2\n1\t5\t1\n1\t5\t3\n")
    conversion = convert_msmarco(path)
    (run,) = conversion.runs
    assert run.tag == "run.dev.small" and run.original_scores is None
    assert run.table[["qid", "docno", "rank", "score"]].values.tolist() == [
        ["2", "7067032", 1, 3.0],
        ["2", "7067056", 2, 2.0],  # sharing rank 2 with pid 10: file order kept, counted
        ["2", "10", 3, 1.0],
        ["1", "5", 1, 1.0],
    ]
    assert conversion.report.counts == {
        "documents sharing the producer's rank of the one before (run.dev.small; input order "
        "kept)": 1,
        DUPLICATE.format("run.dev.small"): 1,
        # query 1's ranks 1 and 3: rank 2 skipped (reviewer 707: said nothing)
        "queries whose ranks skip one (a 3 after a 1, or a first rank above 1; "
        "run.dev.small: written 1..n in the producer's order)": 1,
    }
    out = tmp_path / "out.run"
    from trecbench.files import write_run

    write_run(run.table, out)
    ranked = rank_table(parse_run(out)).column("docno").to_pylist()
    assert ranked == ["5", "7067032", "7067056", "10"]
    for text, message in (
        ("1\t5\t0\n", "run.dev.small.tsv:1: rank '0' is not a positive integer"),
        ("1\t5\n", "run.dev.small.tsv:1: expected 3 fields"),
        ("1\tQ0\t5\t1\t2.5\tbm25\n", "expected 3 fields \\(qid pid rank\\), found 6"),
        ("", "run.dev.small.tsv: empty"),
    ):
        path.write_text(text)
        with pytest.raises(InputError, match=message):
            convert_msmarco(path)


@pytest.mark.parametrize("big", [2**63, 2**64 + 1, 10**99, -(10**40)])
def test_scores_beyond_64_bits_rank_as_their_decimal_text_reads(tmp_path, big):
    """An integer in [2^63, 10^100] ended in an internal error (OverflowError) (issue 25)."""
    path = tmp_path / "run.json"
    path.write_text(f'{{"q1": {{"a": {big}, "b": 1e300, "c": 0.5, "d": 7}}}}')
    conversion = convert_dict(path)
    # the producer's order: float(text) as atof reads it, docid descending on ties
    scores = {"a": float(str(big)), "b": 1e300, "c": 0.5, "d": 7.0}
    expected = sorted(scores, key=lambda doc: (-scores[doc], [-ord(c) for c in doc]))
    assert conversion.runs[0].table["docno"].tolist() == expected


def test_the_summary_says_which_order_ties_keep_and_float32_ties(tmp_path, capsys):
    # it said "kept in producer order" of a dict, which has none, and nothing of the ties
    # float32 makes
    from trecbench.cli import run

    for name, scores, said in (
        ("equal", {"q1": {"a": 1.0, "b": 1.0}}, "; 1 tied score in 1 query kept in pytrec_eval"),
        ("near", {"q1": {"a": 1.00000001, "b": 1.0}}, "; 1 tie at float32 precision only"),
    ):
        source = tmp_path / f"{name}.json"
        source.write_text(json.dumps(scores))
        assert run(["convert", "dict", str(source), "-o", str(tmp_path / name)]) == 0
        err = capsys.readouterr().err  # the summary, on stderr
        assert f"{name}.run: 1 query, 2 documents{said}" in err


def test_every_query_the_run_and_qrels_do_not_share_is_reported(tmp_path):
    # q3: results, no judgment (no measure counts it); q7: judged, not in the run (skipped
    # without -c); q5: given in the qrels with no judgment. All vanished unreported.
    run = tmp_path / "r.json"
    run.write_text('{"q1": {"d1": 0.9}, "q3": {"d9": 1}, "q5": {"d1": 1}}')
    beir = tmp_path / "b.tsv"
    beir.write_text("query-id\tcorpus-id\tscore\nq1\td1\t1\nq7\td1\t1\n")
    dropped = convert_dict(run, beir_qrels=beir).report.dropped
    found = {(item["reason"].split(" (")[0], item["qid"]) for item in dropped}
    assert ("query not in the qrels", "q3") in found and ("query not in the qrels", "q5") in found
    assert ("judged query the producer did not answer", "q7") in found
    qrels = tmp_path / "q.json"
    qrels.write_text('{"q1": {"d1": 1}, "q5": {}}')
    dropped = convert_dict(run, qrels_json=qrels).report.dropped
    assert {item["qid"] for item in dropped if item["reason"].startswith("query not in")} == {
        "q3",
        "q5",
    }


def test_a_run_deeper_than_validate_takes_is_written_and_said_so(tmp_path):
    # the conversion validated with no depth limit: a clean sidecar and no word, then
    # validate refused the file (R8); the run is the input's, and now the note says so
    from trecbench.validation import validate_run

    path = tmp_path / "deep.tsv"
    path.write_text("".join(f"1\td{r}\t{r}\n" for r in range(1, 1002)))
    conversion = convert_msmarco(path)
    written = write_conversion(conversion, tmp_path / "out", [path])
    assert [f.rule for f in validate_run(written["run:deep"]).findings] == ["R8"]
    sidecar = json.loads(written["sidecar"].read_text())
    assert sidecar["validation"]["deep.run"]["counts"]["rules"] == {"R8": 1}
    assert conversion.report.notes[-1] == (
        "deep.run: 1 topic holds more than 1000 documents (R8: validate refuses it as a "
        "TREC submission; trec_eval scores every document)"
    )


@pytest.mark.parametrize(
    ("rows", "refused"),
    [
        # every judgment of q1 negative: trec_eval 9.0.8 crashes on it wherever it comes;
        # the refusal names the line of q1's first judgment (it named the file alone)
        ("q0\td1\t1\n\nq1\td1\t-2\nq1\td2\t-3\n", "4: qrels neg: query 'q1' has only "
         "negative judgments (largest -2), which trec_eval 9.0.8 cannot evaluate (it crashes)"),
        # the first (the only) topic graded -1: trec_eval stops, exit 4
        ("q1\td1\t-1\n", "2: qrels neg: query 'q1' has only negative judgments (largest -1), "
         "which trec_eval 9.0.8 cannot evaluate (it stops)"),
        ("q2\td1\t1\nq1\td1\t-1\n", "3: qrels neg: query 'q1' has only negative judgments "
         "(largest -1), which trec_eval 9.0.8 cannot evaluate (it stops)"),
        # a later topic graded -1: a run of every query scores it 0 (map 0.5), as with a run
        ("q0\td1\t1\nq1\td1\t-1\n", None),
    ],
)  # fmt: skip
def test_beir_qrels_alone_trec_eval_cannot_evaluate_are_refused(tmp_path, rows, refused):
    # written with exit 0, the sidecar saying they "score 0 and count": trec_eval crashed
    tsv = tmp_path / "neg.tsv"
    tsv.write_text("query-id\tcorpus-id\tscore\n" + rows)
    conversion = convert_beir_qrels(tsv)
    if refused is None:
        write_conversion(conversion, tmp_path / "out", inputs=[tsv])
        assert conversion.qrels_info["neg"]["none_relevant"] == ["q1"]
        return
    with pytest.raises(InputError, match=re.escape(f"{tsv}:{refused}")):
        write_conversion(conversion, tmp_path / "out", inputs=[tsv])
    assert not (tmp_path / "out").exists()


def test_an_escaped_id_is_listed_once_however_many_rows_hold_it(tmp_path, capsys):
    # 'q 1' on each of its 1,001 rows was listed 1,001 times: the list, capped at 1,000,
    # held one change 1,000 times and lost 'q 2'; the count said 1002 for two ids
    from trecbench.cli import run

    source = tmp_path / "m.json"
    source.write_text(
        json.dumps({"q 1": {f"d{i}": i / 10 for i in range(1001)}, "q 2": {"d1": 1.0}})
    )
    assert run(["convert", "dict", str(source), "-o", str(tmp_path / "out")]) == 0
    reason = "qid percent-escaped (reversible; trecbench.ids.unescape_id)"
    assert f"  2 × {reason}\n" in capsys.readouterr().err
    report = json.loads((tmp_path / "out" / "m.sidecar.json").read_text())["report"]
    assert report["repaired"] == [
        {"reason": reason, "run": "m", "from": "q 1", "to": "q%201"},
        {"reason": reason, "run": "m", "from": "q 2", "to": "q%202"},
    ]
    assert report["counts"][reason] == 2


def test_an_id_cut_at_the_depth_is_not_reported_escaped(tmp_path, capsys):
    # 'c 1' was cut by --depth 1 but still reported as escaped to 'c%201': the sidecar
    # named an id that no written file holds (msmarco --depth too: ranked_run)
    from trecbench.cli import run

    reason = "docno percent-escaped (reversible; trecbench.ids.unescape_id)"
    source = tmp_path / "dep.json"
    source.write_text(json.dumps({"q1": {"a": 3, "b": 2, "c 1": 1, "d 1": 2.5}}))
    assert run(["convert", "dict", str(source), "--depth", "1", "-o", str(tmp_path / "o")]) == 0
    assert reason not in capsys.readouterr().out
    report = json.loads((tmp_path / "o" / "dep.sidecar.json").read_text())["report"]
    assert report["repaired"] == [] and reason not in report["counts"]
    assert run(["convert", "dict", str(source), "--depth", "2", "-o", str(tmp_path / "p")]) == 0
    report = json.loads((tmp_path / "p" / "dep.sidecar.json").read_text())["report"]
    assert report["repaired"] == [{"reason": reason, "run": "dep", "from": "d 1", "to": "d%201"}]
    written = (tmp_path / "p" / "dep.run").read_text().split()
    assert "d%201" in written and "c%201" not in written
    msmarco = tmp_path / "m.tsv"
    msmarco.write_text("q1\ta\t1\nq1\tc 1\t2\n")
    assert run(["convert", "msmarco", str(msmarco), "--depth", "1", "-o", str(tmp_path / "m")]) == 0
    report = json.loads((tmp_path / "m" / "m.sidecar.json").read_text())["report"]
    assert report["repaired"] == []


def test_a_line_of_tabs_or_blanks_is_refused_at_its_line(tmp_path):
    tsv = tmp_path / "t.tsv"
    for text, message in (
        # "\t\t" is three empty fields, a line of blanks one field: both were skipped as
        # blank lines without a word
        ("1\td1\t1\n\t\t\n", "t.tsv:2: empty qid"),
        ("1\td1\t1\n   \n", r"t.tsv:2: expected 3 fields \(qid pid rank\), found 1 \(fields"),
        ("1\td1\t1\n \t \t \n2\td1\t1\n", "t.tsv:2: rank ' ' is not a positive integer"),
        ("1\td1\t1\r\r\n", r"t.tsv:1: rank '1\\r' is not a positive integer"),
    ):
        tsv.write_text(text, newline="")
        with pytest.raises(InputError, match=message):
            convert_msmarco(tsv)
    qrels = tmp_path / "q.tsv"
    qrels.write_text("query-id\tcorpus-id\tscore\nq1\td1\t1\n\t\t\n")
    with pytest.raises(InputError, match="q.tsv:3: empty query-id"):
        read_beir_qrels(qrels, Report())
    # a line empty once its final CR is dropped is blank, and skipped
    tsv.write_text("1\td1\t1\r\n\r\n\n2\td1\t1\r\n", newline="")
    run = convert_msmarco(tsv).runs[0].table
    assert run[["qid", "docno", "rank"]].values.tolist() == [["1", "d1", 1], ["2", "d1", 1]]


@pytest.mark.parametrize("hostile", ["a\nb", "a\tb", "a" + os.fsdecode(b"\xff") + "b"])
def test_a_deep_runs_note_names_its_file_in_one_line_reversibly(tmp_path, hostile):
    # the R8 note named the run's file as it is: a --runs-dir holding a line feed printed
    # the note on two lines; escaped as the summary's "wrote PATH" is, unquote gives it back
    path = tmp_path / "deep.tsv"
    path.write_text("".join(f"1\td{r}\t{r}\n" for r in range(1, 1002)))
    conversion = convert_msmarco(path)
    write_conversion(conversion, tmp_path / "out", [path], runs_dir=tmp_path / hostile)
    note = conversion.report.notes[-1]
    named, said = note.split(": 1 topic holds more than 1000 documents")
    assert note.isprintable() and said.startswith(" (R8")
    assert os.fsdecode(unquote_to_bytes(named)) == f"../{hostile}/deep.run"


# a corpus that holds its queries (ArguAna, Quora): q1 and q3 retrieve themselves first
IDENTICAL = {
    "q1": {"q1": 9.0, "d1": 0.5, "d2": 0.7, "d3": 0.2},
    "q2": {"d1": 0.3, "d4": 0.8},
    "q3": {"q3": 1.0},
}
IDENTICAL_QRELS = {"q1": {"d1": 1, "d3": 2}, "q2": {"d1": 1}, "q3": {"d5": 1}}


def test_results_whose_docid_is_their_qid_are_kept_with_a_warning(tmp_path, monkeypatch, capsys):
    # BEIR's evaluate drops them by default (ignore_identical_ids=True): kept without a
    # word, the run scored otherwise than BEIR's published numbers
    from trecbench.cli import run
    from trecbench.errors import InputWarning

    source = tmp_path / "ident.json"
    source.write_text(json.dumps(IDENTICAL, indent=1))
    with pytest.warns(InputWarning, match=r"ignore_identical_ids=True drops them too"):
        conversion = convert_dict(source)
    assert conversion.runs[0].table["docno"].tolist() == ["q1", "d2", "d1", "d3", "d4", "d1", "q3"]
    assert conversion.provenance["options"]["ignore_identical_ids"] is False
    assert run(["convert", "dict", str(source), "-o", str(tmp_path / "out")]) == 0
    warned = [line for line in capsys.readouterr().err.splitlines() if "warning" in line]
    assert warned == [
        f"trecbench: warning: InputWarning: {source}:3: 2 results whose docid is their qid "
        "kept (topics q1, q3): BEIR's evaluation drops them by default "
        "(ignore_identical_ids=True), so its scores differ from this run's; "
        "--ignore-identical-ids drops them too"
    ]


def test_ignore_identical_ids_scores_as_beir_and_reports_each_drop(tmp_path):
    import pytrec_eval

    from trecbench.cli import run
    from trecbench.evaluation import evaluate

    source, qrels = tmp_path / "ident.json", tmp_path / "judged.json"
    source.write_text(json.dumps(IDENTICAL))
    qrels.write_text(json.dumps(IDENTICAL_QRELS))
    out = tmp_path / "out"
    command = ["convert", "dict", str(source), "--qrels-json", str(qrels), "-o", str(out)]
    assert run([*command, "--ignore-identical-ids"]) == 0
    # BEIR's EvaluateRetrieval.evaluate: results[qid].pop(qid), then pytrec_eval
    popped = {qid: {d: s for d, s in docs.items() if d != qid} for qid, docs in IDENTICAL.items()}
    measures = {"ndcg_cut_10", "P_1", "recall_10", "map_cut_10"}
    beir = pytrec_eval.RelevanceEvaluator(IDENTICAL_QRELS, measures).evaluate(popped)
    # -c: q3 retrieved nothing else, absent from the run; pytrec_eval scores it 0
    mine = evaluate(
        out / "judged.qrels",
        out / "ident.run",
        ["ndcg_cut.10", "P.1", "recall.10", "map_cut.10"],
        complete=True,
    )
    scored = mine.to_dict("trec")
    assert sorted(scored) == ["q1", "q2"]
    for qid, values in scored.items():
        assert values == pytest.approx(beir[qid], abs=1e-12), qid
    # BEIR's means, over pytrec_eval's topics (q3 scored 0 there, counted by -c here)
    means = dict(zip(mine.aggregates["measure"], mine.aggregates["value"], strict=True))
    names = {
        "nDCG@10": "ndcg_cut_10",
        "P@1": "P_1",
        "Recall@10": "recall_10",
        "MAP@10": "map_cut_10",
    }
    for measure, name in names.items():
        expected = sum(values[name] for values in beir.values()) / len(beir)
        assert means[measure] == pytest.approx(expected, abs=1e-12), measure
    ranked = read_run_table(out / "ident.run")
    assert ranked == [
        ["q1", "d2", 1],
        ["q1", "d1", 2],
        ["q1", "d3", 3],
        ["q2", "d4", 1],
        ["q2", "d1", 2],
    ]
    sidecar = json.loads((out / "judged.sidecar.json").read_text())
    reason = (
        "result whose docid is its qid (ident; dropped as BEIR's evaluation drops it: the "
        "documents after it one rank higher)"
    )
    assert sidecar["report"]["counts"][reason] == 2
    assert [item for item in sidecar["report"]["dropped"] if item["reason"] == reason] == [
        {"reason": reason, "run": "ident", "qid": "q1", "docno": "q1", "rank": 1, "score": 9.0},
        {"reason": reason, "run": "ident", "qid": "q3", "docno": "q3", "rank": 1, "score": 1.0},
    ]
    assert sidecar["provenance"]["options"]["ignore_identical_ids"] is True


def read_run_table(path) -> list[list]:
    """``qid, docno, rank`` of each line of the TREC run at ``path``."""
    rows = [line.split() for line in path.read_text().splitlines()]
    return [[qid, docno, int(rank)] for qid, _, docno, rank, _, _ in rows]


def test_ignore_identical_ids_is_true_or_false():
    import numpy as np

    from trecbench.errors import InputError, UsageError

    with pytest.raises(UsageError, match=r"^ignore_identical_ids must be True or False, not 'no'"):
        convert_dict("unread.json", ignore_identical_ids="no")
    # numpy's booleans are taken, as every flag keyword takes them (type_names.flag_from)
    with pytest.raises(InputError, match="unread.json"):  # read: the keyword was taken
        convert_dict("unread.json", ignore_identical_ids=np.True_)


def test_the_warning_names_only_results_the_depth_keeps_as_a_message_shows_ids(tmp_path):
    # --depth 2 said "2 results ... kept (topics q1, q2)" of q1's, cut at rank 4; and the
    # topics were escaped twice (%2523q for #q, which the run writes %23q)
    from trecbench.errors import InputWarning

    source = tmp_path / "m.json"
    source.write_text(json.dumps({"q1": {"a": 0.9, "b": 0.8, "c": 0.7, "q1": 0.1},
                                  "#q": {"#q": 0.9}}))  # fmt: skip
    with pytest.warns(InputWarning) as warned:
        convert_dict(source, depth=2)
    [message] = [str(w.message) for w in warned]
    assert ": 1 result whose docid is its qid kept (topic #q): BEIR" in message
    with pytest.warns(InputWarning) as warned:
        convert_dict(source)
    [message] = [str(w.message) for w in warned]
    assert ": 2 results whose docid is their qid kept (topics q1, #q): BEIR" in message


def test_queries_without_documents_and_judged_queries_not_answered_are_told_apart(tmp_path):
    # BEIR's mean counts q2 (emptied of its self-hit) 0 and leaves q3 (qrels only) out: no
    # trec_eval mode does both, and the report lumped the two (reviewer 666)
    run, tsv = tmp_path / "res.json", tmp_path / "test.tsv"
    run.write_text('{"q1": {"q1": 1.0, "d1": 0.5}, "q2": {"q2": 1.0}}')
    tsv.write_text("query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td2\t1\nq3\td3\t1\n")
    dropped = convert_dict(run, beir_qrels=tsv, ignore_identical_ids=True).report.dropped
    told = {}
    for entry in dropped:
        told.setdefault(entry["reason"].split(" (")[0], []).append(entry.get("qid"))
    assert told["query without retrieved documents"] == ["q2"]
    assert told["judged query the producer did not answer"] == ["q3"]


def test_ids_too_long_to_write_are_refused_at_the_input_not_as_a_bug(tmp_path, capsys):
    # review 716: "o.run:2: converted run fails validation: R27: ...; this is a trecbench
    # bug, please report it", naming a file never written for the input's fault
    from trecbench.cli import run

    long_id = "x" * (17 << 20)
    tsv = tmp_path / "m.tsv"
    tsv.write_text(f"q1\td1\t1\nq1\t{long_id}\t2\n")
    assert run(["convert", "msmarco", str(tsv), "-o", str(tmp_path / "o1")]) == 2
    assert capsys.readouterr().err == (
        f"trecbench: {tsv}:2: a line longer than 16 MiB: no TREC line is near that long, and "
        "validate refuses the converted one (R27)\n"
    )
    source = tmp_path / "d.json"
    source.write_text(json.dumps({"q1": {long_id: 1.0, "d2": 0.5}}))
    assert run(["convert", "dict", str(source), "-o", str(tmp_path / "o2")]) == 2
    assert capsys.readouterr().err == (
        f"trecbench: {source}: ids so long that line 1 of the converted run d.run would be "
        "longer than 16 MiB, which validate refuses (R27)\n"
    )
    assert not (tmp_path / "o1").exists() and not (tmp_path / "o2").exists()
