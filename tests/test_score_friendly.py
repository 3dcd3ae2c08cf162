"""The friendly path: local measures on a hand-worked example, flags, formats, several
runs, and clean errors for bad input."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest
from test_score_suite import run_score

from trecbench import evaluate, inputs
from trecbench.inputs import trec_text

QRELS = """q1 0 d1 1
q1 0 d2 0
q1 0 d3 2
q1 0 d4 -1
q2 0 x 0
q3 0 z 1
"""
# q1 ranks d2, d3, d1, d5 (d3 and d1 tie at 2.0: docno descending puts d3 first);
# q4 is not in the qrels, q3 not in the run; the last line's tag is the runid.
RUN = """q1 Q0 d2 1 3.0 tagA
q1 Q0 d1 2 2.0 tagA
q1 Q0 d3 3 2.0 tagA
q1 Q0 d5 4 1.0 tagA
q2 Q0 y 1 1.0 tagA
q4 Q0 w 1 1.0 tagB
"""


@pytest.fixture
def example(tmp_path):
    (tmp_path / "qrels").write_text(QRELS)
    (tmp_path / "run").write_text(RUN)
    return tmp_path


def _values(result, measure):
    rows = result.per_query[result.per_query["measure"] == measure]
    return dict(zip(rows["qid"], rows["value"], strict=True))


def _aggregate(result, measure):
    rows = result.aggregates[result.aggregates["measure"] == measure]
    return float(rows["value"].iloc[0])


def test_local_measures_by_hand(example):
    measures = ["HitRate@1", "HitRate@2", "MRR@10", "MRR@1", "Recall_all@2", "Recall_all@3"]
    result = evaluate(example / "qrels", example / "run", measures)
    assert _values(result, "HitRate@1") == {"q1": 0.0, "q2": 0.0}
    assert _values(result, "HitRate@2") == {"q1": 1.0, "q2": 0.0}
    assert _values(result, "MRR@10") == {"q1": 0.5, "q2": 0.0}
    assert _values(result, "MRR@1") == {"q1": 0.0, "q2": 0.0}
    assert _values(result, "Recall_all@2") == {"q1": 0.0, "q2": 0.0}
    assert _values(result, "Recall_all@3") == {"q1": 1.0, "q2": 0.0}
    assert _aggregate(result, "MRR@10") == 0.25
    # -l 2: only d3 is relevant; -c: q3 counts as 0
    strict = evaluate(example / "qrels", example / "run", ["Recall_all@2", "MRR@10"],
                      relevance_level=2, complete=True)  # fmt: skip
    assert _values(strict, "Recall_all@2") == {"q1": 1.0, "q2": 0.0}
    assert _aggregate(strict, "MRR@10") == 0.5 / 3


def test_runid_topics_and_flags(example):
    result = evaluate(example / "qrels", example / "run", ["official"])
    run = result.runs[0]
    assert (run.runid, run.qids) == ("tagB", ["q1", "q2"])
    flags = {(f.reason, f.qid) for f in result.flagged}
    assert flags == {
        ("no_relevant", "q2"),
        ("negative_grades", "q1"),
        ("run_only", "q4"),
        ("qrels_only", "q3"),
    }
    complete = evaluate(example / "qrels", example / "run", ["map"], complete=True)
    (message,) = [f.message for f in complete.flagged if f.reason == "qrels_only"]
    assert "counts as 0" in message


def test_tidy_tables_and_measure_records(example):
    result = evaluate(example / "qrels", example / "run")
    assert list(result.per_query.columns) == ["run", "qid", "measure", "value"]
    assert list(result.aggregates.columns) == ["run", "measure", "value"]
    assert list(result.aggregates["measure"]) == [
        "nDCG@10",
        "MAP@100",
        "MRR@10",
        "Recall@50",
        "Recall@100",
        "HitRate@10",
    ]
    providers = {m.requested: m.provider for m in result.measures}
    assert providers["MRR@10"] == "local" and providers["nDCG@10"] == "pytrec_eval"


def test_dataframes_in_and_ids_stay_strings(example):
    qrels = inputs.read_qrels(example / "qrels")
    run = inputs.read_run(example / "run")
    from_frames = evaluate(qrels, run, ["P@2"])
    from_files = evaluate(example / "qrels", example / "run", ["P@2"])
    assert from_frames.per_query["value"].tolist() == from_files.per_query["value"].tolist()


def test_several_runs_share_one_qrels_parse(example, monkeypatch):
    (example / "run2").write_text(RUN.replace("3.0", "0.5"))
    calls = []
    original = trec_text.tokenize_file
    monkeypatch.setattr(
        trec_text,
        "tokenize_file",
        lambda p, keep=6, metadata=False: calls.append(p.path) or original(p, keep, metadata),
    )
    stdout, _, code = run_score(["-m", "P.1", "qrels", "run", "run2"], example, monkeypatch)
    # runs may skip the tokenizer (trec_text.read_regular_run); the qrels are tokenized once
    assert code == 0 and [Path(p).name for p in calls].count("qrels") == 1
    assert stdout.decode() == (
        "# run\nP_1                   \tall\t0.0000\n# run2\nP_1                   \tall\t0.5000\n"
    )


def test_report_records_inputs_counted_when_scoring_read_them(example, monkeypatch):
    # lines, topics and tags come from the parse, not from reading each file again, and
    # equal what report.input_record counts by itself: a regular run (Arrow's CSV reader,
    # dictionary-encoded tags) and one the tokenizer reads (tabs, a blank line, two tags)
    from trecbench import report

    (example / "run2").write_text("q1\tQ0\td3\t1\t1.0\tx\n\nq2\tQ0\ty\t1\t1.0\ty\n")
    inputs = [(example / "qrels", "qrels"), (example / "run", "run"), (example / "run2", "run")]
    expected = [report.input_record(str(path), kind) for path, kind in inputs]
    assert expected[2]["run_tags"] == ["x", "y"] and expected[2]["lines"] == 2
    expected[1]["name"], expected[2]["name"] = "run", "run2"  # each run's name beside its file

    def read_again(path, kind):
        raise AssertionError(f"{path} read again")

    monkeypatch.setattr(report, "_streamed_counts", read_again)
    argv = ["-M", "1", "--report", "r.json", *(str(path) for path, _ in inputs)]
    _, error, code = run_score(argv, example, monkeypatch)
    assert code == 0, error
    assert json.loads((example / "r.json").read_text())["inputs"] == expected


def test_formats(example, monkeypatch):
    table, _, _ = run_score(["--format", "table", "qrels", "run"], example, monkeypatch)
    assert table.decode().splitlines()[0].split() == [
        "run", "topics", "nDCG@10", "MAP@100", "MRR@10", "Recall@50", "Recall@100", "HitRate@10"
    ]  # fmt: skip
    trec, _, _ = run_score(["--format", "trec", "qrels", "run"], example, monkeypatch)
    assert [line.split("\t")[0].strip() for line in trec.decode().splitlines()] == [
        "ndcg_cut_10", "map_cut_100", "recip_rank_cut_10", "recall_50", "recall_100", "success_10"
    ]  # fmt: skip
    # only --format chooses the format (trec by default): no other flag switches it
    assert run_score(["qrels", "run"], example, monkeypatch)[0] == trec
    measure, _, _ = run_score(
        ["-m", "MRR@10", "--format", "table", "qrels", "run"], example, monkeypatch
    )
    assert measure.decode().splitlines()[0].split() == ["run", "topics", "MRR@10"]
    document, _, _ = run_score(["--format", "json", "qrels", "run"], example, monkeypatch)
    parsed = json.loads(document)
    assert parsed["runs"][0]["aggregates"]["MRR@10"] == 0.25
    assert parsed["runs"][0]["per_query"]["q1"]["MRR@10"] == 0.5
    csv, _, _ = run_score(
        ["--format", "csv", "-q", "-m", "MRR@10", "qrels", "run"], example, monkeypatch
    )
    assert csv.decode().splitlines() == [
        "run,qid,measure,canonical,value", "run,q1,MRR@10,MRR@10,0.5",
        "run,q2,MRR@10,MRR@10,0.0", "run,all,MRR@10,MRR@10,0.25",
    ]  # fmt: skip
    markdown, _, _ = run_score(
        ["--format", "markdown", "-m", "MRR@10", "qrels", "run"], example, monkeypatch
    )
    assert markdown.decode().splitlines()[2] == "| run | 2 | 0.2500 |"
    names, _, _ = run_score(
        ["--labels", "display", "-m", "ndcg_cut.10", "qrels", "run"], example, monkeypatch
    )
    assert names.decode().startswith("nDCG@10 ")


BAD_RUNS = {
    "five fields": "q1 Q0 d1 1 2.0\n",
    "score not a number": "q1 Q0 d1 1 abc tag\n",
    "NUL byte": "q1 Q0 d1 1 2.0 t\x00ag\n",
    "empty": "",
}
BAD_QRELS = {
    "blank line": "q1 0 d1 1\n\nq1 0 d2 0\n",
    "three fields": "q1 d1 1\n",
    "fractional grade": "q1 0 d1 1.5\n",
}


@pytest.mark.parametrize(
    "kind,name", [("run", n) for n in BAD_RUNS] + [("qrels", n) for n in BAD_QRELS]
)
def test_bad_input_is_a_clean_error(kind, name, example, monkeypatch):
    text = BAD_RUNS[name] if kind == "run" else BAD_QRELS[name]
    (example / f"bad.{kind}").write_text(text)
    args = ["qrels", "bad.run"] if kind == "run" else ["bad.qrels", "run"]
    stdout, message, code = run_score(args, example, monkeypatch)
    assert (stdout, code) == (b"", 2)
    assert message.startswith(f"bad.{kind}")


def test_invalid_utf8_and_truncated_gzip(example, monkeypatch):
    (example / "latin1.run").write_bytes(b"q1 Q0 d\xe91 1 2.0 tag\n")
    assert run_score(["qrels", "latin1.run"], example, monkeypatch)[2] == 2
    data = gzip.compress(RUN.encode())
    (example / "cut.run.gz").write_bytes(data[: len(data) // 2])
    assert run_score(["qrels", "cut.run.gz"], example, monkeypatch)[2] == 2


@pytest.mark.parametrize(
    ("args", "code", "text"),
    [
        # taken and dropped: a table of means has no topic's line to add, no summary to skip
        (
            ["-q", "--format", "table", "qrels", "run"],
            1,
            "-q chooses trec_eval's lines, and "
            "--format table shows one row of means per run: give --format trec or csv",
        ),
        (["-n", "--format", "markdown", "qrels", "run"], 1, "-n chooses trec_eval's lines"),
        (["-m", "foo", "qrels", "run"], 1, "illegal measure 'foo'"),
        (["-m", "P.0", "qrels", "run"], 2, "illegal measure 'P.0': the cutoff '0' is not positive"),
        # a later list trec_eval never parses (it prints P_3): refused too (docs/score.md)
        (["-m", "P.3", "-m", "P.0", "qrels", "run"], 2, "illegal measure 'P.0': the cutoff"),
        # as trec_eval 9.0.8 answers it (was "malformed pair parameters in '10'", exit 2)
        (["-m", "ndcg_10", "qrels", "run"], 1, "illegal measure 'ndcg_10': no such measure"),
        # -m without its value takes the next argument: it said "Missing argument 'RUNS...'"
        (["-m", "qrels", "run"], 1, "-m took 'qrels' as a measure name: give -m a value (e.g."),
        (["-m", "./qrels", "q", "r"], 1, "-m took './qrels' as a measure name"),
        # it said "illegal measure '-q': not a measure name (did you mean Q?)"
        (["-m", "-q", "qrels", "run"], 1, "-m took the option '-q' as its value: give -m a"),
        (["-x", "qrels", "run"], 1, ""),
        # trec_eval's -v prints its build's version: not taken (docs/trec-eval.md)
        (["-v", "qrels", "run"], 1, "No such option '-v'"),
        (["qrels", "missing.run"], 2, "missing.run: cannot read"),
        (["qrels", "dup.run"], 4, "duplicate docs d1 for topic q1 (first on line 1)"),
        (["qrels", "other.run"], 7, "No queries with both results and relevance info"),
        (["-M", "1", "qrels", "dup.run"], 0, ""),  # the duplicate is beyond the cut
    ],
)
def test_trec_eval_exit_codes(args, code, text, example, monkeypatch):
    (example / "dup.run").write_text("q1 Q0 d1 1 2.0 t\nq1 Q0 d1 2 1.0 t\n")
    (example / "other.run").write_text("q9 Q0 d1 1 2.0 t\n")
    stdout, message, got = run_score(args, example, monkeypatch)
    assert got == code
    assert text in message
    if code:
        assert stdout == b""


def test_a_run_with_no_topic_in_the_qrels_shows_a_few_of_each(tmp_path):
    # "no topic of the run is in the qrels" alone: a run read in another shape than meant
    # (a {qid: {docno: {"score": ...}}} dict read as a dict of runs, columns swapped)
    # showed nothing of what was read
    from trecbench import evaluate
    from trecbench.errors import NoOverlapError

    run = {"q1": {"d1": {"score": 1.0}}}  # read as run 'q1': topic 'd1', document 'score'
    with pytest.raises(NoOverlapError) as refused:
        evaluate({"q1": {"d1": 1}}, run, ["P@1"])
    assert str(refused.value) == (
        "q1: No queries with both results and relevance info (no topic of the run is in "
        "the qrels: the run's 'd1'; the qrels' 'q1')"
    )
    (tmp_path / "qrels").write_text("".join(f"{q} 0 d 1\n" for q in ("2", "10", "1")))
    (tmp_path / "run").write_text("".join(f"x{q} Q0 d 1 1 t\n" for q in range(9, 0, -1)))
    with pytest.raises(NoOverlapError) as refused:
        evaluate(tmp_path / "qrels", tmp_path / "run", ["P@1"])
    assert str(refused.value).endswith(  # in trec_eval's order, bytewise
        "(no topic of the run is in the qrels: the run's 'x1', 'x2', 'x3' and 6 more; the "
        "qrels' '1', '10', '2')"
    )


def test_console_error_has_no_traceback(example):
    (example / "bad.run").write_text("q1 Q0 d1 1 2.0\n")
    done = subprocess.run(
        [sys.executable, "-m", "trecbench", "score", "qrels", "bad.run"],
        cwd=example,
        capture_output=True,
        check=False,
    )
    assert done.returncode == 2 and done.stdout == b""
    assert b"Traceback" not in done.stderr
    assert done.stderr.decode().startswith("trecbench: bad.run:1")


RANDOM = Path(__file__).resolve().parent / "fixtures" / "trec_eval_random"


@pytest.mark.parametrize("name", ["exact_ties", "float32_ties", "cutoff_ties"])
def test_mrr10_matches_trec_eval_M10_recip_rank(name):
    # expected: real trec_eval 9.0.8 output of `-q -M 10 -m recip_rank` (fixture helper's)
    expected_file = RANDOM / f"{name}__mrr10.out"
    if not expected_file.exists():
        pytest.skip("random trec_eval fixtures not present")
    expected = {}
    for line in expected_file.read_text().splitlines():
        label, qid, value = line.split("\t")
        assert label.strip() == "recip_rank"
        expected[qid] = value
    result = evaluate(RANDOM / f"{name}.qrels", RANDOM / f"{name}.run", ["MRR@10"])
    got = {qid: f"{v:6.4f}" for qid, v in _values(result, "MRR@10").items()}
    got["all"] = f"{_aggregate(result, 'MRR@10'):6.4f}"
    assert got == expected


def test_help_has_an_example():
    from click.testing import CliRunner

    from trecbench.cli import _register, cli

    _register()
    result = CliRunner().invoke(cli, ["score", "--help"])
    assert result.exit_code == 0 and "trecbench score -q -m official" in result.output


def test_judged_only_topic_left_empty(tmp_path, monkeypatch):
    # -J removes q1's only document; trec_eval 9.0.8 still counts q1's relevant document
    # (output of the real binary: `-q -J -m num_rel -m num_ret -m map qrels run`)
    (tmp_path / "qrels").write_text("q1 0 d1 1\nq1 0 d2 0\nq2 0 e1 1\n")
    (tmp_path / "run").write_text("q1 Q0 zz 1 2.0 t\nq2 Q0 e1 1 1.0 t\n")
    stdout, _, code = run_score(
        "-q -J -m num_rel -m num_ret -m map qrels run".split(), tmp_path, monkeypatch
    )
    assert code == 0
    assert stdout.decode() == (
        "num_ret               \tq1\t0\n"
        "num_rel               \tq1\t1\n"
        "map                   \tq1\t0.0000\n"
        "num_ret               \tq2\t1\n"
        "num_rel               \tq2\t1\n"
        "map                   \tq2\t1.0000\n"
        "num_ret               \tall\t1\n"
        "num_rel               \tall\t2\n"
        "map                   \tall\t0.5000\n"
    )


@pytest.mark.parametrize("args", [["-M", "0"], ["-l", "0"]])
def test_settings_pytrec_eval_cannot_take_are_refused(args, example, monkeypatch):
    # trec_eval accepts them; pytrec_eval crashes (-M 0) or refuses (-l 0): a clean exit 1
    stdout, message, code = run_score([*args, "-m", "map", "qrels", "run"], example, monkeypatch)
    assert (stdout, code) == (b"", 1) and message


def test_a_negative_collection_size_is_refused(example, monkeypatch):
    # trec_eval takes -N -5, and utility.0,0,0,1 printed -6 non-relevant documents not
    # retrieved (reviewer 234): no collection holds fewer than 0 documents
    args = ["-N", "-5", "-m", "utility.0,0,0,1", "qrels", "run"]
    stdout, message, code = run_score(args, example, monkeypatch)
    assert (stdout, code) == (b"", 1) and "-N -5: a collection's number of documents" in message


@pytest.mark.parametrize(
    "flags, said",
    [
        # trec_eval counts from a collection of 0 documents: q1's 4 retrieved-or-relevant
        # documents gave it -4 non-relevant documents not retrieved (the run's -2.5)
        ([], "utility.0,0,0,1: its fourth coefficient weighs the documents neither retrieved"),
        # -N 0 given: said so, not only "which need -N" (reviewer 348)
        (["-N", "0"], "to be counted (0 given: a collection of no document)"),
        # q1 retrieves d2, d1, d3, d5 and judges d1, d3 relevant: 4 documents, more than 3
        (["-N", "3"], "-N 3: fewer documents than topic q1 retrieves or judges relevant (4)"),
    ],
)
def test_utility_counting_documents_outside_the_collection_is_refused(
    flags, said, example, monkeypatch
):
    args = [*flags, "-m", "utility.0,0,0,1", "qrels", "run"]
    stdout, message, code = run_score(args, example, monkeypatch)
    assert (stdout, code) == (b"", 1) and said in message


def test_utility_counts_the_rest_of_a_collection_large_enough(example, monkeypatch):
    # trec_eval 9.0.8 -q -N 4 -m utility.0,0,0,1: q1 0.0000 (4 + 2 - 4 - 2), q2 3.0000
    # (4 + 0 - 1 - 0), all 1.5000; a coefficient of 0 needs no -N (trec_eval's default)
    args = ["-q", "-N", "4", "-m", "utility.0,0,0,1", "qrels", "run"]
    stdout, _, code = run_score(args, example, monkeypatch)
    assert code == 0
    assert [line.split("\t")[1:] for line in stdout.decode().splitlines()] == [
        ["q1", "0.0000"], ["q2", "3.0000"], ["all", "1.5000"],
    ]  # fmt: skip
    # trec_eval 9.0.8 -m utility.1,-1,0,0: q1 2 - 2, q2 0 - 1: all -0.5000
    stdout, _, code = run_score(["-m", "utility.1,-1,0,0", "qrels", "run"], example, monkeypatch)
    assert (code, stdout.decode().split()) == (0, ["utility_1,-1,0,0", "all", "-0.5000"])


@pytest.mark.parametrize("engine", ["auto", "pytrec_eval", "fast"])
def test_level_below_one_is_refused_whatever_the_engine(engine, example, monkeypatch):
    # local measures alone could compute it; one answer for every engine instead
    args = ["-l", "0", "-m", "HitRate@1", "--engine", engine, "qrels", "run"]
    stdout, message, code = run_score(args, example, monkeypatch)
    assert (stdout, code) == (b"", 1) and "-l 0" in message


def test_relstring_is_in_csv_and_json_and_said_to_be_left_out_of_tables(capsys):
    # trec_eval prints relstring per topic as text; csv and json dropped it without a word
    import json

    from conftest import ROOT

    from trecbench.cli import run

    qrels, one = str(ROOT / "qrels" / "hpo-demo.qrels"), str(ROOT / "runs" / "tfidf-char.run")
    args = ["score", "-m", "relstring.5", "-m", "P.5", qrels, one]
    assert run([*args, "-q"]) == 0
    trec = {
        line.split("\t")[1]: line.split("\t")[2].strip("'")
        for line in capsys.readouterr().out.splitlines()
        if line.startswith("relstring")
    }
    assert run([*args, "--format", "json"]) == 0
    per_query = json.loads(capsys.readouterr().out)["runs"][0]["per_query"]
    assert {qid: values["relstring.5"] for qid, values in per_query.items()} == trec
    assert run([*args, "-q", "--format", "csv"]) == 0
    rows = [line.split(",") for line in capsys.readouterr().out.splitlines()]
    assert {row[1]: row[4] for row in rows if row[2] == "relstring.5"} == trec
    assert run([*args, "--format", "table"]) == 0
    assert "relstring_5: text per topic, not in --format table" in capsys.readouterr().err


@pytest.mark.parametrize("output_format", ["csv", "table", "markdown"])
def test_the_run_tag_left_out_of_a_format_is_said(capsys, output_format):
    """-m runid in csv, a table or Markdown printed nothing of it, and said nothing
    (helper-598): trec text and json show the tag."""
    from conftest import ROOT

    from trecbench.cli import run

    qrels, one = str(ROOT / "qrels/hpo-demo.qrels"), str(ROOT / "runs/tfidf-char.run")
    assert run(["score", "-m", "runid", "-m", "P.5", "--format", output_format, qrels, one]) == 0
    said = capsys.readouterr().err
    assert said == (
        f"trecbench: warning: runid: the run's tag, text, not in --format {output_format}; "
        "json and trec show it\n"
    )
    assert run(["score", "-m", "runid", "--format", "json", qrels, one]) == 0
    assert capsys.readouterr().err == ""


def test_csv_leaves_out_the_all_rows_with_minus_n(capsys):
    # -n: no summary, as trec_eval -n prints none; csv printed its all rows regardless
    from conftest import ROOT

    from trecbench.cli import run

    args = ["score", "-q", "-m", "P@5", "--format", "csv"]
    args += [str(ROOT / "qrels" / "hpo-demo.qrels"), str(ROOT / "runs" / "tfidf-char.run")]
    assert run([*args, "-n"]) == 0
    rows = capsys.readouterr().out.splitlines()
    assert len(rows) > 2 and not any(",all," in row for row in rows)
    assert run(args) == 0
    assert sum(",all," in row for row in capsys.readouterr().out.splitlines()) == 1


def test_score_z_scores_html_page_compares_z_scores_named_so(tmp_path, capsys):
    # -Z values are z-scores (trec_eval: ZP_5 -3.0000 on topic 1): the page refused them as
    # P@5 outside [0, 1]; they are compared as ZP@5
    from trecbench.cli import run

    (tmp_path / "q").write_text("1 0 d1 1\n1 0 d2 0\n1 0 d3 0\n2 0 e1 0\n2 0 e2 1\n")
    (tmp_path / "r").write_text("1 Q0 d2 1 5 a\n1 Q0 d1 2 4 a\n2 Q0 e1 1 5 a\n2 Q0 e2 2 4 a\n")
    (tmp_path / "z").write_text("1 P_5 0.5 0.1\n2 P_5 0.1 0.2\n")
    page, report = tmp_path / "p.html", tmp_path / "report.json"
    args = ["score", "-Z", str(tmp_path / "z"), "-m", "P.5", "--html", str(page)]
    args += ["--report", str(report)]
    assert run([*args, str(tmp_path / "q"), str(tmp_path / "r")]) == 0
    assert "ZP@5" in page.read_text() and "outside [0, 1]" not in capsys.readouterr().err
    # the report recorded "P@5": -3.0 (no P@5 is below 0) where score printed ZP_5
    document = json.loads(report.read_text())
    z = [(1 / 5 - 0.5) / 0.1, (1 / 5 - 0.1) / 0.2]
    assert document["results"][0]["aggregates"] == {"ZP@5": sum(z) / 2}
    assert document["results"][0]["per_query"] == {"1": {"ZP@5": z[0]}, "2": {"ZP@5": z[1]}}
    column = document["measures"][0]["columns"][0]
    assert (column["name"], column["trec_eval"]) == ("ZP@5", "ZP_5")


@pytest.mark.parametrize("fmt", ["csv", "json", "table", "trec"])
def test_score_z_scores_are_named_and_kept_whole_in_every_format(fmt, tmp_path, capsys):
    # -Z's num_ret is a z-score, 0.7143 on topic 1 and a sum of 4.0476 (trec_eval); the
    # machine formats printed it as the count 0 and 4, and every format but trec_eval's
    # text named z-scores as the measure (P.5)
    from trecbench.cli import run

    (tmp_path / "q").write_text("1 0 d1 1\n1 0 d2 0\n2 0 e2 1\n")
    (tmp_path / "r").write_text("1 Q0 d1 1 2 a\n1 Q0 d2 2 1 a\n2 Q0 e1 1 2 a\n2 Q0 e2 2 1 a\n")
    (tmp_path / "z").write_text("1 num_ret 1.5 0.7\n2 num_ret 1 0.3\n1 P_5 0.1 0.05\n")
    each = [] if fmt == "table" else ["-q"]  # a table has no topic's line (-q refused)
    args = ["score", *each, "-Z", str(tmp_path / "z"), "-m", "num_ret", "-m", "P.5"]
    assert run([*args, "--format", fmt, str(tmp_path / "q"), str(tmp_path / "r")]) == 0
    out = capsys.readouterr().out
    topic_1, whole = (2 - 1.5) / 0.7, (2 - 1.5) / 0.7 + (2 - 1) / 0.3  # counts: summed
    p5 = ((1 / 5 - 0.1) / 0.05 - 1e6) / 2  # topic 2 has no P_5 statistics: -1e6
    if fmt == "csv":
        assert f"r,1,Znum_ret,Znum_ret,{topic_1!r}" in out
        assert f"r,all,Znum_ret,Znum_ret,{whole!r}" in out and f"r,all,ZP.5,ZP@5,{p5!r}" in out
    elif fmt == "json":
        document = json.loads(out)
        assert document["canonical"] == {"Znum_ret": "Znum_ret", "ZP.5": "ZP@5"}
        (entry,) = document["runs"]
        assert entry["aggregates"] == {"Znum_ret": whole, "ZP.5": p5}
        assert entry["per_query"]["1"]["Znum_ret"] == topic_1
    elif fmt == "table":
        assert out.split() == ["run", "topics", "Znum_ret", "ZP.5", "r", "2", "4.0476", f"{p5:.4f}"]
    else:  # trec_eval's own text, as it prints it
        assert f"Znum_ret               \t1\t{topic_1:.4f}\n" in out
        assert f"Znum_ret               \tall\t{whole:.4f}\n" in out


def test_the_tables_topics_are_those_the_means_are_over(tmp_path, capsys):
    # under -c (9.0.8) the table said 2 topics beside means over 3 (trec_eval -c: num_q 3)
    from trecbench.cli import run

    (tmp_path / "q").write_text("1 0 a 1\n2 0 a 1\n3 0 a 1\n")
    (tmp_path / "r").write_text("1 Q0 a 1 1 t\n2 Q0 b 1 1 t\n")
    files = [str(tmp_path / "q"), str(tmp_path / "r")]
    for flags, topics in (
        (["-c"], 3),
        (["-c", "--compat", "10.0"], 3),
        ([], 2),
        (["-c", "-D", "0.1"], 3),
    ):
        assert run(["score", *flags, "-m", "num_q", "--format", "table", *files]) == 0
        row = capsys.readouterr().out.splitlines()[1].split()
        assert row[1:3] == [str(topics), str(topics)]  # topics, num_q


def test_a_topic_named_all_is_said_to_read_as_the_summary(tmp_path, capsys):
    # score -q printed 'recip_rank all 1.0000' twice (the topic, then the mean), in trec
    # text and in CSV, without a word
    from trecbench.cli import run

    (tmp_path / "q").write_text("all 0 d1 1\nall 0 d2 0\nq2 0 d1 1\n")
    (tmp_path / "r").write_text(
        "all Q0 d1 1 2 t\nall Q0 d2 2 1 t\nq2 Q0 d2 1 2 t\nq2 Q0 d1 2 1 t\n"
    )
    files = [str(tmp_path / "q"), str(tmp_path / "r")]
    for output_format in ("trec", "csv"):
        assert run(["score", "-q", "-m", "recip_rank", "--format", output_format, *files]) == 0
        assert "a topic is named 'all': with -q its lines read as the summary's" in (
            capsys.readouterr().err
        )
    assert run(["score", "-m", "recip_rank", *files]) == 0  # no topic lines: nothing to say
    assert "named 'all'" not in capsys.readouterr().err


def test_a_topic_named_as_a_group_row_is_said_to_read_as_the_group(tmp_path, capsys):
    # score -q --group-by a printed the topic a=x's line 'P_1 a=x 0.0000' and then the
    # group x's 'P_1 a=x 1.0000', in trec text and in CSV, without a word (a topic named
    # all was warned of); a:macro read as the macro mean's
    from trecbench.cli import run

    (tmp_path / "q").write_text("1 0 d1 1\na=x 0 d2 1\na:macro 0 d3 1\n2 0 d3 1\n")
    (tmp_path / "r").write_text(
        "1 Q0 d1 1 2 r\na=x Q0 d9 1 2 r\na:macro Q0 d3 1 1 r\n2 Q0 d3 1 1 r\n"
    )
    strata = {"1": {"a": "x"}, "a=x": {"a": "y"}, "a:macro": {"a": "y"}, "2": {"a": "x"}}
    sidecar = {"format": "trecbench-sidecar", "version": 3}
    sidecar["strata"] = {"fields": ["a"], "queries": strata}
    (tmp_path / "s.json").write_text(json.dumps(sidecar))
    files = [str(tmp_path / "q"), str(tmp_path / "r")]
    grouped = ["-m", "P.1", "--strata", str(tmp_path / "s.json"), "--group-by", "a", *files]
    for output_format in ("trec", "csv"):
        assert run(["score", "-q", "--format", output_format, *grouped]) == 0
        captured = capsys.readouterr()
        assert "P_1                   \ta=x\t0.0000" in captured.out or output_format == "csv"
        assert (
            "trecbench: warning: 2 topics are named as groups' rows (a:macro, a=x): with -q "
            "their lines read as the groups' (trec_eval's text and the CSV's qid column "
            "alike); rename them to tell them apart\n"
        ) in captured.err
    assert run(["score", *grouped]) == 0  # no topic lines: nothing to say
    assert "named as" not in capsys.readouterr().err


@pytest.mark.parametrize(
    ("options", "said"),
    [
        (
            [],
            [
                "1 qrels topic has no relevant document (0 on binary measures where counted): 2",
                "1 qrels topic has negative grades (treated as unjudged): 3",
                "r: 2 qrels topics are not in the run (ignored; -c would count them as 0): 2, 3",
            ],
        ),
        (
            ["-c"],
            [
                "1 qrels topic has no relevant document (0 on binary measures, and counted: -c): 2",
                "1 qrels topic has negative grades (treated as unjudged): 3",
                "r: 2 qrels topics are not in the run (counted as 0 in the averages: -c): 2, 3",
            ],
        ),
    ],
)
def test_a_topic_without_relevant_documents_is_not_said_to_count_when_it_is_ignored(
    tmp_path, monkeypatch, options, said
):
    # topic 2 (nothing relevant) is not in the run: without -c trec_eval ignores it (num_q
    # 1, P_1 1.0000 by trec_eval 9.0.8), so "they score 0 and count" was false; "1 ... have"
    (tmp_path / "q").write_text("1 0 A 1\n2 0 B 0\n3 0 C -1\n3 0 D 1\n")
    (tmp_path / "r").write_text("1 Q0 A 1 1 t\n")
    out, err, code = run_score(
        ["-m", "P.1", "-m", "num_q", *options, "q", "r"], tmp_path, monkeypatch
    )
    assert code == 0
    expected = [b"num_q", b"all", b"3" if options else b"1", b"P_1", b"all"]
    assert out.split() == [*expected, b"0.3333" if options else b"1.0000"]
    assert err.splitlines() == [f"trecbench: warning: {line}" for line in said]


@pytest.mark.parametrize("output_format", ["table", "markdown"])
@pytest.mark.parametrize(("coefficients", "mean"), [("1e308", "inf"), ("-1e308", "-inf")])
def test_an_infinite_mean_prints_inf_in_a_table_as_trec_eval_prints_it(
    capsys, output_format, coefficients, mean
):
    """utility of coefficients 1e308 sums to inf: trec text and csv print inf, the
    tables printed n/a, the spread's 'undefined' (helper-598)."""
    from conftest import ROOT

    from trecbench.cli import run

    qrels, one = str(ROOT / "qrels/hpo-demo.qrels"), str(ROOT / "runs/tfidf-char.run")
    asked = ["-m", f"utility.{coefficients},{coefficients},0,0"]
    assert run(["score", *asked, "--format", "trec", qrels, one]) == 0
    assert capsys.readouterr().out.split("\t")[2].strip() == mean
    assert run(["score", *asked, "--format", output_format, qrels, one]) == 0
    row = capsys.readouterr().out.splitlines()[-1]
    assert row.replace("|", " ").split()[-1] == mean
    # and the unjudged table under it, which printed n/a for it (helper-600)
    assert run(["score", *asked, "--unjudged-bounds", "--format", output_format, qrels, one]) == 0
    row = capsys.readouterr().out.rstrip("\n").splitlines()[-1]
    assert row.replace("|", " ").split()[-3] == mean  # value (low): inf; high; unjudged


def test_json_canonical_names_every_key_of_aggregates_and_per_query(capsys):
    """score.md: canonical maps each key of aggregates and per_query; relstring, in
    per_query alone, was missing (helper-598)."""
    import json

    from conftest import ROOT

    from trecbench.cli import run

    qrels, one = str(ROOT / "qrels/hpo-demo.qrels"), str(ROOT / "runs/tfidf-char.run")
    assert run(["score", "-m", "relstring.5", "-m", "P.5", "--format", "json", qrels, one]) == 0
    document = json.loads(capsys.readouterr().out)
    keys = set(document["runs"][0]["aggregates"])
    keys |= {key for values in document["runs"][0]["per_query"].values() for key in values}
    assert set(document["canonical"]) == keys == {"P.5", "relstring.5"}


def test_a_wide_name_is_padded_by_the_columns_a_terminal_gives_it(tmp_path):
    # a run named 語彙 (two columns a character) ran its row two columns past the others'
    (tmp_path / "q").write_text("1 0 d1 1\n")
    for name in ("語彙", "ab", "e\u0301"):  # wide, plain, a combining accent (one column)
        (tmp_path / f"{name}.run").write_text("1 Q0 d1 1 1 t\n")
    runs = [str(tmp_path / f"{name}.run") for name in ("語彙", "ab", "e\u0301")]
    done = subprocess.run(
        [sys.executable, "-m", "trecbench", "score", "--format", "table", "-m", "P.1",
         str(tmp_path / "q"), *runs],
        capture_output=True, check=True,
    )  # fmt: skip
    lines = done.stdout.decode().splitlines()
    assert lines == [
        "run   topics     P.1",
        "語彙       1  1.0000",
        "ab         1  1.0000",
        "e\u0301          1  1.0000",
    ]
