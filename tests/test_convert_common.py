"""Shared converter machinery: ranking order, ties, duplicates, ids, writing, sidecar."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from trecbench.convert.common import (
    Conversion,
    Report,
    check_name,
    clean_tag,
    compare_command,
    escape_ids,
    given_tag,
    make_qrels,
    ranked_run,
    run_naming,
    write_conversion,
)
from trecbench.errors import InputError, OutputError, UsageError
from trecbench.inputs import parse_run, read_qrels, read_run
from trecbench.ranking import rank_table


def rows(data):
    return pd.DataFrame(data, columns=["qid", "docno", "order", "score"])


def test_written_scores_follow_producer_rank_and_ties_are_counted():
    report = Report()
    # q1 has a tie (0.5, 0.5) in the producer's order b, a: trec_eval on the original
    # scores would put b before a only by docno descending, which happens to agree; c/d
    # is the other way round (docno "c" < "d", producer puts c first).
    frame = rows(
        [
            ("q1", "c", 1, 0.9),
            ("q1", "d", 2, 0.9),
            ("q1", "b", 3, 0.5),
            ("q1", "a", 4, 0.5),
            ("q2", "x", 1, 0.3),
        ]
    )
    run = ranked_run(frame, "t", "qr", report)
    assert run.table["docno"].tolist() == ["c", "d", "b", "a", "x"]
    assert run.table["score"].tolist() == [4.0, 3.0, 2.0, 1.0, 1.0]
    assert run.table["rank"].tolist() == [1, 2, 3, 4, 1]
    assert run.original_scores == [0.9, 0.9, 0.5, 0.5, 0.3]
    assert run.stats["tied_adjacent_scores"] == 2
    assert run.stats["queries_with_ties"] == 1
    assert run.stats["score_inversions"] == 0


def test_trec_eval_ranking_reproduces_producer_order(tmp_path):
    # Producer order deliberately disagrees with trec_eval's tie-break and even with the
    # original scores (an inversion): the written run must still rank as the producer did.
    rng = np.random.default_rng(7)
    docs = [f"D{i}" for i in range(40)]
    frame = rows([("q", d, i, float(rng.integers(0, 3))) for i, d in enumerate(docs)])
    run = ranked_run(frame, "t", None, Report())
    path = tmp_path / "t.run"
    from trecbench.files import write_run

    write_run(run.table, path)
    ranked = rank_table(parse_run(path)).column("docno").to_pylist()
    assert ranked == docs
    assert run.stats["score_inversions"] > 0


def test_float32_only_ties_are_counted():
    frame = rows([("q", "a", 1, 1.0 + 1e-12), ("q", "b", 2, 1.0)])
    stats = ranked_run(frame, "t", None, Report()).stats
    assert stats["tied_adjacent_scores"] == 0
    assert stats["float32_only_ties"] == 1


def test_duplicates_keep_best_rank_and_are_reported():
    report = Report()
    frame = rows([("q", "a", 2, 0.5), ("q", "b", 1, 0.9), ("q", "a", 5, 0.1)])
    run = ranked_run(frame, "t", None, report)
    assert run.table["docno"].tolist() == ["b", "a"]
    assert run.original_scores == [0.9, 0.5]
    (drop,) = report.dropped
    assert (drop["qid"], drop["docno"], drop["order"], drop["kept_order"]) == ("q", "a", 5, 2)
    assert report.counts[drop["reason"]] == 1


def test_depth_cut_is_counted():
    report = Report()
    frame = rows([("q", f"d{i}", i, np.nan) for i in range(10)])
    run = ranked_run(frame, "t", None, report, depth=3)
    assert run.table["docno"].tolist() == ["d0", "d1", "d2"]
    assert report.counts == {"documents beyond depth 3 cut (t)": 7}


def test_queries_keep_first_appearance_order_and_ids_stay_strings():
    frame = rows([("10", "001", 1, 1.0), ("9", "1e5", 1, 1.0), ("10", "NA", 2, 0.5)])
    table = ranked_run(frame, "t", None, Report()).table
    assert table["qid"].tolist() == ["10", "10", "9"]
    assert table["docno"].tolist() == ["001", "NA", "1e5"]


def test_ids_are_escaped_reversibly_and_reported():
    report = Report()
    frame = pd.DataFrame({"qid": ["a b", "q%201"], "docno": ["x\ty", "ok"]})
    frame = escape_ids(frame, ["qid", "docno"], report, {"run": "t"})
    assert frame.values.tolist() == [["a%20b", "x%09y"], ["q%25201", "ok"]]
    assert [(r["run"], r["from"], r["to"]) for r in report.repaired] == [
        ("t", "a b", "a%20b"),
        ("t", "q%201", "q%25201"),
        ("t", "x\ty", "x%09y"),
    ]


def test_q_1_and_q_percent_201_stay_two_queries():
    """Issue 9.4: blanks were escaped to %20 but % was not, so these became one query and
    d was dropped as a duplicate."""
    report = Report()
    run = ranked_run(rows([("q 1", "d", 1, 0.5), ("q%201", "d", 1, 0.5)]), "t", None, report)
    assert run.table["qid"].tolist() == ["q%201", "q%25201"]
    assert not report.dropped


def test_queries_without_documents_are_reported():
    report = Report()
    run = ranked_run(rows([("q1", "a", 1, 0.5)]), "t", None, report, queries=["q1", "q 2"])
    assert run.table["qid"].tolist() == ["q1"]
    (drop,) = report.dropped
    assert (drop["run"], drop["qid"]) == ("t", "q%202")
    assert drop["reason"].startswith("query without retrieved documents (t;")


def test_no_producer_scores_means_no_original_scores_and_shared_ranks_are_counted():
    report = Report()
    frame = rows([("q", "a", 1, np.nan), ("q", "b", 1, np.nan), ("q", "c", 2, np.nan)])
    run = ranked_run(frame, "t", None, report)
    assert run.original_scores is None
    assert run.table["docno"].tolist() == ["a", "b", "c"]  # input order within a rank
    assert report.counts == {
        "documents sharing the producer's rank of the one before (t; input order kept)": 1
    }


def test_names_must_be_plain_file_names(tmp_path):
    assert check_name("hpo-demo") == "hpo-demo"
    # a newline or DEL in a name made a file listed on two lines (reviewer 324); a byte
    # that is not UTF-8 (read by Python as a lone surrogate) a name no text holds
    for bad in (
        "../../x",
        "a/b",
        "..",
        ".",
        "",
        "a\\b",
        "x\0",
        "a\nb",
        "x\x7f",
        "\tx",
        "a\x85b",
        "a\udc85b",
    ):
        with pytest.raises(UsageError, match="is not a plain file name"):
            check_name(bad)
    conversion = _conversion()
    conversion.name = "../escape"  # issue 9.8: --name ../../x wrote outside -o
    with pytest.raises(UsageError, match="'../escape' is not a plain file name"):
        write_conversion(conversion, tmp_path / "out", inputs=[])
    assert not (tmp_path / "out").exists() and not (tmp_path / "escape.sidecar.json").exists()


def test_input_problems_are_input_errors_not_trecbench_bugs(tmp_path):
    """Issue 9.8: bad input reached the validator and was called a trecbench bug."""
    conversion = _conversion()
    conversion.provenance = {"inputs": [{"path": "in.json"}]}
    conversion.runs[0].table = conversion.runs[0].table.assign(qid="other")
    with pytest.raises(InputError, match="in.json: run t has no query in common with qrels n"):
        write_conversion(conversion, tmp_path, inputs=[])
    conversion = _conversion()
    conversion.qrels["n"] = conversion.qrels["n"].assign(rel=-1)
    with pytest.raises(InputError, match="query 'q' has only negative judgments"):
        write_conversion(conversion, tmp_path, inputs=[])
    conversion = _conversion()
    conversion.runs[0].table = conversion.runs[0].table.iloc[:0]
    with pytest.raises(InputError, match="run t: no retrieved document"):
        write_conversion(conversion, tmp_path, inputs=[])
    assert list(tmp_path.iterdir()) == []


def test_compare_command_pairs_each_run_with_its_qrels():
    conversion = _conversion()
    second = ranked_run(rows([("q", "a", 1, 0.5)]), "u", "m", Report())
    conversion.runs.append(second)
    paths = {"run:t": Path("o/t.run"), "run:u": Path("o/u.run"), "qrels:n": Path("o/n.qrels"),
             "qrels:m": Path("o dir/m.qrels")}  # fmt: skip
    assert compare_command(conversion, paths) == (
        "trecbench compare --run-qrels o/t.run o/n.qrels --run-qrels o/u.run 'o dir/m.qrels'"
    )
    second.qrels = "n"
    assert compare_command(conversion, paths) == "trecbench compare o/n.qrels o/t.run o/u.run"
    conversion.runs.pop()
    assert compare_command(conversion, paths) is None


def test_clean_tag():
    assert clean_tag("my run/v1 (final)") == "my_run_v1_final"
    assert clean_tag("x" * 40) == "x" * 25
    assert clean_tag("///") == "run"
    # a leading dot made a hidden <tag>.run (a lists file .x.json wrote .x.run)
    assert clean_tag("../evil") == "evil"
    assert clean_tag(".x") == "x"
    assert clean_tag("..") == "run"
    assert clean_tag("x.") == "x."  # a dot inside or at the end hides nothing


@pytest.mark.parametrize("tag", ["", "é", "a b", "a\tb", "#t", "x/y", "x" * 26, ".", ".."])
def test_a_given_tag_is_used_as_it_is_or_refused(tag):
    with pytest.raises(UsageError, match=r"^tag=.* is not a run tag"):
        given_tag(tag)


def test_a_given_tag_names_its_file_and_a_default_name_is_kept_and_tagged_clean():
    report = Report()
    assert run_naming("bm25.v-2_" + "x" * 16, None, report) == ("bm25.v-2_" + "x" * 16,) * 2
    assert not report.repaired
    # a file name keeps its blanks and its length; the tag is one token of at most 25
    long = "phentrieve results, german (final)"
    assert run_naming(None, long, report) == (long, "phentrieve_results_german")
    assert report.repaired == [
        {"reason": RETAGGED, "from": long, "to": "phentrieve_results_german"}
    ]


@pytest.mark.parametrize(
    "options, message",
    [
        (["--tag", "a b"], "--tag 'a b' is not a run tag"),
        (["--tag", ""], "--tag '' is not a run tag"),
        (["--name", ""], "--name '' is not a plain file name"),
        # the reason names the backslash, which the quoted name shows doubled (reviewer 687)
        (["--name", "a\\b"], r"--name 'a\\b' is not a plain file name (no / or \,"),
    ],
)
def test_convert_refuses_a_tag_or_name_it_would_change(tmp_path, capsys, options, message):
    from trecbench.cli import run

    source = tmp_path / "l.json"
    source.write_text('{"gold_docs": [["d1"]], "retrieved_chunks": [["d1", "d2"]]}')
    out = tmp_path / "out"
    assert run(["convert", "lists", str(source), "-o", str(out), *options]) == 1
    assert message in capsys.readouterr().err
    assert not out.exists()


RENAMED = (
    "input file's name changed into the outputs' name (leading dots dropped: no output "
    "is a hidden file; 'input' when nothing is left)"
)

RETAGGED = (
    "run file's name changed into its run tag (1 to 25 of A-Z a-z 0-9 _ . -, not starting "
    "with . or _)"
)

NAMED_INPUTS = {  # the inputs of the test below, as their converters read them
    "lists": '{"query_ids": ["q1"], "gold_docs": [["d1"]], "retrieved_chunks": [["d2", "d1"]]}',
    "dict": '{"q1": {"d1": 0.9, "d2": 0.4}}',
    "beir": "query-id\tcorpus-id\tscore\nq1\td1\t1\n",
    "msmarco": Path("convert/msmarco-run.tsv"),  # Path: a file under data/
    "cases": Path("hpo-demo/cases.json"),
    "terms": Path("hpo-demo/results/tfidf-word/terms.jsonl"),
}


@pytest.mark.parametrize(
    ("args", "inputs", "written", "sidecar"),
    [
        (
            ["lists", "my run.json"],
            {"my run.json": "lists"},
            ["my run.qrels", "my run.run", "my run.sidecar.json"],
            "my run",
        ),
        (
            ["dict", "my run.json", "--beir-qrels", "my qrels.tsv"],
            {"my run.json": "dict", "my qrels.tsv": "beir"},
            ["my qrels.qrels", "my qrels.sidecar.json", "my run.run"],
            "my qrels",
        ),
        (
            ["dict", "my run.json"],
            {"my run.json": "dict"},
            ["my run.run", "my run.sidecar.json"],
            "my run",
        ),
        (
            ["msmarco", "my run.tsv"],
            {"my run.tsv": "msmarco"},
            ["my run.run", "my run.sidecar.json"],
            "my run",
        ),
        (
            ["hpo", "my cases.json", "--results", "my run/terms.jsonl", "--no-id-check"],
            {"my cases.json": "cases", "my run/terms.jsonl": "terms"},
            ["my cases.qrels", "my cases.sidecar.json", "my run.run"],
            "my cases",
        ),
    ],
)
def test_a_run_file_is_named_as_written_like_the_qrels_and_its_tag_is_one_token(
    tmp_path, monkeypatch, args, inputs, written, sidecar
):
    # lists "my run.json" wrote "my run.qrels" beside "my_run.run": the qrels' default
    # name kept the input's stem, the run's went through the tag's rule
    from conftest import ROOT

    from trecbench.cli import run

    monkeypatch.chdir(tmp_path)
    (tmp_path / "my run").mkdir()
    for name, kind in inputs.items():
        text = NAMED_INPUTS[kind]
        if isinstance(text, Path):
            text = (ROOT / "data" / text).read_text()
        (tmp_path / name).write_text(text)
    assert run(["convert", *args, "-o", "out"]) == 0
    out = tmp_path / "out"
    assert sorted(path.name for path in out.iterdir()) == written
    assert {line.split()[5] for line in (out / "my run.run").read_text().splitlines()} == {"my_run"}
    document = json.loads((out / f"{sidecar}.sidecar.json").read_text())
    assert document["runs"]["my_run"]["file"] == "my run.run"
    assert {"reason": RETAGGED, "from": "my run", "to": "my_run"} in document["report"]["repaired"]


def test_every_output_of_a_dotted_input_takes_the_stem_without_its_dots(tmp_path, capsys):
    # lists .x.json wrote x.run (a default tag drops leading dots) beside the hidden
    # .x.qrels and .x.sidecar.json: the name kept them
    from trecbench.cli import run

    source = tmp_path / ".x.json"
    source.write_text('{"gold_docs": [["d1"]], "retrieved_chunks": [["d1", "d2"]]}')
    out = tmp_path / "out"
    assert run(["convert", "lists", str(source), "-o", str(out)]) == 0
    assert sorted(path.name for path in out.iterdir()) == ["x.qrels", "x.run", "x.sidecar.json"]
    sidecar = json.loads((out / "x.sidecar.json").read_text())
    assert sidecar["name"] == "x"
    assert {"reason": RENAMED, "from": ".x", "to": "x"} in sidecar["report"]["repaired"]
    assert f"1 × {RENAMED}" in capsys.readouterr().err  # the summary, on stderr


@pytest.mark.parametrize(
    ("file", "stem"), [("...json", ".."), ("..tsv", "."), ("..json.gz", "."), ("...", "...")]
)
def test_an_input_named_by_dots_alone_writes_input_and_says_so(tmp_path, capsys, file, stem):
    # ...json wrote input.run and input.sidecar.json with report.repaired empty, where
    # .x.json's x was reported: nothing said where the name came from
    import gzip

    from trecbench.cli import run

    text = b'{"q1": {"d1": 0.5}}'
    (tmp_path / file).write_bytes(gzip.compress(text) if file.endswith(".gz") else text)
    out = tmp_path / "out"
    assert run(["convert", "dict", str(tmp_path / file), "-o", str(out)]) == 0
    assert sorted(path.name for path in out.iterdir()) == ["input.run", "input.sidecar.json"]
    sidecar = json.loads((out / "input.sidecar.json").read_text())
    # the name and the tag alike: input (no retagging to report)
    assert sidecar["report"]["repaired"] == [{"reason": RENAMED, "from": stem, "to": "input"}]
    assert f"  1 × {RENAMED}\n" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("converter", "source"),
    [
        ("msmarco", "convert/msmarco-run.tsv"),
        ("beir-qrels", "convert/beir-test.tsv"),
        ("dict", "convert/beir-test.tsv"),  # its qrels name the conversion
        ("hpo", "hpo-demo/cases.json"),
    ],
)
def test_a_default_name_drops_leading_dots_in_every_converter(tmp_path, converter, source):
    from conftest import ROOT

    from trecbench.convert.beir import convert_beir_qrels
    from trecbench.convert.dicts import convert_dict
    from trecbench.convert.hpo import convert_hpo
    from trecbench.convert.msmarco import convert_msmarco

    dotted = tmp_path / f".in{Path(source).suffix}"
    dotted.write_bytes((ROOT / "data" / source).read_bytes())
    run_dict = tmp_path / "r.json"
    run_dict.write_text('{"q1": {"d1": 1.0}}')
    conversions = {
        "msmarco": lambda: convert_msmarco(dotted),
        "beir-qrels": lambda: convert_beir_qrels(dotted),
        "dict": lambda: convert_dict(run_dict, beir_qrels=dotted),
        "hpo": lambda: convert_hpo(dotted, check_ids=False),
    }
    conversion = conversions[converter]()
    assert conversion.name == "in"
    assert {"reason": RENAMED, "from": ".in", "to": "in"} in conversion.report.repaired


def test_make_qrels_keeps_highest_grade_of_duplicates():
    report = Report()
    frame = pd.DataFrame(
        {"qid": ["q", "q", "q", "r"], "docno": ["a", "a", "b", "a"], "rel": [1, 2, 0, 1]}
    )
    qrels = make_qrels(frame, "n", report)
    assert qrels.values.tolist() == [["q", "a", 2], ["q", "b", 0], ["r", "a", 1]]
    # the grade dropped, 1, not the one kept (it read "2, kept 2")
    assert [(d["docno"], d["rel"], d["kept_rel"]) for d in report.dropped] == [("a", 1, 2)]


def test_report_caps_items_but_not_counts(monkeypatch):
    monkeypatch.setattr("trecbench.convert.common.MAX_ITEMS", 3)
    report = Report()
    report.drop("why", ({"i": i} for i in range(5)))
    report.drop("why", ({"i": i} for i in range(5, 7)))
    assert len(report.dropped) == 3
    assert report.counts == {"why": 7}


def test_report_caps_each_bucket_and_reason_without_rereading_the_list(monkeypatch):
    class Unread(list):
        def __iter__(self):
            raise AssertionError("the listed items were walked again")

    # walking the list on every call was quadratic: most of the time on 30k memorybench results
    monkeypatch.setattr("trecbench.convert.common.MAX_ITEMS", 3)
    report = Report(dropped=Unread(), repaired=Unread())
    report.count("why", 10)  # counted without items: it leaves the room for items intact
    for i in range(5):
        report.drop("why", [{"i": i}])
        report.repair("why", [{"i": i}])
        report.drop("other", [{"i": i}, {"i": i}])
    assert report.counts == {"why": 20, "other": 10}
    dropped, repaired = list.__iter__(report.dropped), list.__iter__(report.repaired)
    assert [(d["reason"], d["i"]) for d in dropped] == [
        ("why", 0), ("other", 0), ("other", 0), ("why", 1), ("other", 1), ("why", 2),
    ]  # fmt: skip
    assert [(d["reason"], d["i"]) for d in repaired] == [("why", 0), ("why", 1), ("why", 2)]


def _conversion():
    report = Report()
    qrels = make_qrels(pd.DataFrame({"qid": ["q"], "docno": ["a"], "rel": [1]}), "n", report)
    run = ranked_run(rows([("q", "a", 1, 0.5), ("q", "b", 2, 0.5)]), "t", "n", report)
    strata = pd.DataFrame({"qid": ["q"], "lang": ["de"]}, dtype=pd.StringDtype())
    return Conversion("n", "test", {"n": qrels}, [run], report, strata=strata)


def test_write_conversion_writes_validated_files_and_sidecar(tmp_path):
    paths = write_conversion(_conversion(), tmp_path / "out", inputs=[])
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [
        "n.qrels",
        "n.sidecar.json",
        "t.run",
    ]
    assert read_run(paths["run:t"])["docno"].tolist() == ["a", "b"]
    assert read_qrels(paths["qrels:n"])["docno"].tolist() == ["a"]
    sidecar = json.loads(paths["sidecar"].read_text())
    assert sidecar["format"] == "trecbench-sidecar"
    assert sidecar["runs"]["t"]["original_scores"] == [0.5, 0.5]
    assert sidecar["runs"]["t"]["qrels"] == "n.qrels"
    assert sidecar["runs"]["t"]["tied_adjacent_scores"] == 1
    assert sidecar["strata"] == {"fields": ["lang"], "queries": {"q": {"lang": "de"}}}
    assert sidecar["validation"]["t.run"]["counts"]["error"] == 0
    assert sidecar["validation"]["t.run"]["counts"]["rules"] == {"X4": 1}


def test_write_conversion_refuses_to_overwrite_an_input(tmp_path):
    victim = tmp_path / "t.run"
    victim.write_text("precious\n")
    with pytest.raises(OutputError, match="refusing to overwrite"):
        write_conversion(_conversion(), tmp_path, inputs=[victim])
    assert victim.read_text() == "precious\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.run"]


def test_output_failing_validation_is_not_written(tmp_path):
    conversion = _conversion()
    run = conversion.runs[0]
    run.table = run.table.iloc[[0, 1, 0]].reset_index(drop=True)  # a duplicate document
    with pytest.raises(InputError, match=r"t.run:3: converted run fails validation: R7.*bug"):
        write_conversion(conversion, tmp_path / "out", inputs=[])
    assert not (tmp_path / "out").exists()  # the folder it created is removed too


def test_json_text_is_json_with_flat_lists_on_one_line():
    from trecbench.convert.common import json_text

    value = {"a": [1.5, None, "x"], "b": [{"c": []}, [1]], "d": {}, "é": "ü"}
    text = json_text(value)
    assert json.loads(text) == value
    assert '\n "a": [1.5, null, "x"],\n' in text
    assert '"é": "ü"' in text
    with pytest.raises(ValueError):  # NaN is not JSON: never written into a sidecar
        json_text({"a": [float("nan")]})


@pytest.mark.parametrize(
    ("grades", "refused"),
    [
        ({"q1": 1, "q2": -1}, None),  # a later topic graded -1: trec_eval 9.0.8 evaluates it
        # the refusal names the line of the query (it named the file alone)
        ({"q1": -1, "q2": 1}, "g.json:2: qrels g: query 'q1' has only negative judgments "
         "(largest -1), which trec_eval 9.0.8 cannot evaluate (it stops)"),
        ({"q1": 1, "q2": -2}, "g.json:5: qrels g: query 'q2' has only negative judgments "
         "(largest -2), which trec_eval 9.0.8 cannot evaluate (it crashes)"),
    ],
)  # fmt: skip
def test_only_the_negative_topics_trec_eval_cannot_evaluate_are_refused(tmp_path, grades, refused):
    # {"q1": {"a": 1}, "q2": {"b": -1}} was refused, where trec_eval 9.0.8 gives map 0.5
    from trecbench.convert.dicts import convert_dict

    (tmp_path / "r.json").write_text('{"q1": {"a": 1}, "q2": {"b": 1}}')
    qrels = {qid: {"a" if qid == "q1" else "b": grade} for qid, grade in grades.items()}
    (tmp_path / "g.json").write_text(json.dumps(qrels, indent=1))
    conversion = convert_dict(tmp_path / "r.json", qrels_json=tmp_path / "g.json")
    if refused is None:
        write_conversion(conversion, tmp_path / "out", inputs=[])
        assert (tmp_path / "out" / "g.qrels").read_text() == "q1 0 a 1\nq2 0 b -1\n"
    else:
        with pytest.raises(InputError, match=re.escape(refused)):
            write_conversion(conversion, tmp_path / "out", inputs=[])


def test_standard_input_is_named_stdin_not_dash():
    # '-.run' and '-.sidecar.json': 'trecbench validate -.run' read '-.' as an option
    from trecbench.convert.hpo_results import results_name
    from trecbench.convert.identifiers import input_stem

    assert input_stem("-") == results_name("-", Report()) == "stdin"
    assert input_stem("./-.tsv") == "-"  # a file so named is named so
