"""Grouped and stratified averages (hand-worked numbers)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd
import pytest

from trecbench.errors import InputError, UsageError
from trecbench.strata import group_labels, group_means, load_strata


def per_query(values):
    return pd.DataFrame(values, columns=["run", "qid", "measure", "value"])


STRATA = pd.DataFrame(
    {"qid": ["1", "2", "3", "4"], "difficulty": ["easy", "easy", "hard", None]},
    dtype=pd.StringDtype(),
)


def test_group_macro_and_micro_means_by_hand():
    frame = per_query(
        [
            ("r", "1", "P@5", 1.0),
            ("r", "2", "P@5", 0.5),
            ("r", "3", "P@5", 0.0),
            ("r", "4", "P@5", 0.25),
        ]
    )
    out = group_means(frame, STRATA, "difficulty")
    rows = [tuple(r) for r in out[["kind", "group", "n", "value"]].astype(object).values]
    # easy: (1 + .5)/2 = .75 (2 queries); hard: 0; (none): .25
    # macro = (.75 + 0 + .25)/3 = 1/3; micro = 1.75/4 = .4375
    assert rows[:3] == [
        ("group", "(none)", 1, 0.25),
        ("group", "easy", 2, 0.75),
        ("group", "hard", 1, 0.0),
    ]
    assert rows[3][0] == "macro" and pd.isna(rows[3][1]) and rows[3][2] == 3
    assert rows[3][3] == pytest.approx(1 / 3)
    assert rows[4][0] == "micro" and rows[4][2:] == (4, 0.4375)


def test_runs_and_measures_stay_separate_and_in_input_order():
    frame = per_query(
        [
            ("b", "1", "nDCG@10", 1.0),
            ("b", "3", "nDCG@10", 0.0),
            ("a", "1", "nDCG@10", 0.5),
            ("a", "3", "nDCG@10", 0.5),
        ]
    )
    out = group_means(frame, STRATA, "difficulty")
    assert out["run"].tolist() == ["b"] * 5 + ["a"] * 5
    micro = out[out["kind"] == "micro"].set_index("run")["value"]
    macro = out[out["kind"] == "macro"].set_index("run")["value"]
    assert micro.to_dict() == {"b": 0.5, "a": 0.5}
    assert macro.to_dict() == {"b": 0.5, "a": 0.5}


def test_qid_prefix_groups_on_text_before_last_slash():
    qids = pd.Series(["org/repo/7", "org/repo/8", "other/1", "plain"])
    assert group_labels(qids, None, "qid-prefix").tolist() == [
        "org/repo",
        "org/repo",
        "other",
        "(none)",
    ]


def test_unknown_field_and_missing_strata_are_usage_errors():
    with pytest.raises(UsageError, match="available: difficulty, qid-prefix"):
        group_labels(pd.Series(["1"]), STRATA, "language")
    with pytest.raises(UsageError, match="^group_by=.difficulty. needs strata "):
        group_labels(pd.Series(["1"]), None, "difficulty")


def test_load_strata_reads_sidecar_with_string_ids(tmp_path):
    sidecar = tmp_path / "x.sidecar.json"
    sidecar.write_text(
        json.dumps(
            {
                "strata": {
                    "fields": ["language", "difficulty"],
                    "queries": {"001": {"language": "de"}, "1e5": {"difficulty": "easy"}},
                }
            }
        )
    )
    frame = load_strata(sidecar)
    assert frame.columns.tolist() == ["qid", "language", "difficulty"]
    assert frame["qid"].tolist() == ["001", "1e5"]
    assert frame["language"].iloc[0] == "de" and pd.isna(frame["language"].iloc[1])
    assert all(isinstance(t, pd.StringDtype) for t in frame.dtypes)


def test_load_strata_rejects_other_json(tmp_path):
    bad = tmp_path / "x.json"
    bad.write_text("[1, 2]")
    with pytest.raises(InputError, match="not a trecbench sidecar"):
        load_strata(bad)
    bad.write_text("{")
    with pytest.raises(InputError, match="invalid JSON"):
        load_strata(bad)


def _evaluation(complete=False):
    from trecbench.evaluation import evaluate

    qrels = pd.DataFrame(
        {"qid": ["1", "2", "3", "4"], "docno": ["a", "b", "c", "d"], "rel": [1, 1, 1, 1]}
    )
    run = pd.DataFrame(
        {
            "qid": ["1", "1", "2", "2", "3"],
            "docno": ["a", "x", "x", "b", "c"],
            "score": [2.0, 1.0, 2.0, 1.0, 1.0],
            "tag": ["t"] * 5,
        }
    )
    # qid 4 is missing from the run; num_ret is a sum and gm_map a geometric mean: neither
    # has a per-group mean
    measures = ["P.1", "recip_rank", "num_ret", "gm_map"]
    return evaluate(qrels, run, measures, complete=complete, run_names=["t"])


@pytest.mark.parametrize("complete", [False, True])
def test_micro_mean_equals_trec_eval_average(complete):
    from trecbench.strata import evaluation_groups

    evaluation = _evaluation(complete)
    grouped = evaluation_groups(evaluation, STRATA, "difficulty")
    assert set(grouped["measure"]) == {"P@1", "recip_rank"}
    micro = grouped[grouped["kind"] == "micro"].set_index("measure")["value"]
    overall = evaluation.aggregates.set_index("measure")["value"]
    for measure in ("P@1", "recip_rank"):
        assert micro[measure] == overall[measure]
    # P@1 per query: 1, 0, 1 (+ 0 for the missing topic 4 with -c, in group "(none)")
    groups = grouped[(grouped["kind"] == "group") & (grouped["measure"] == "P@1")]
    expected = {"easy": (2, 0.5), "hard": (1, 1.0)} | ({"(none)": (1, 0.0)} if complete else {})
    assert {g: (n, v) for g, n, v in groups[["group", "n", "value"]].values} == expected


def test_render_groups_in_every_format():
    from trecbench.renderers.strata import groups_document, render_groups
    from trecbench.strata import evaluation_groups

    evaluation = _evaluation()
    grouped = {"difficulty": evaluation_groups(evaluation, STRATA, "difficulty")}
    names = {"P@1": ["P_1"], "recip_rank": ["recip_rank"]}
    trec = render_groups(grouped, "trec", names).splitlines()
    assert trec[0] == "# t: grouped by difficulty (macro = mean of the group means)"
    assert trec[1:4] == [  # measures in trec_eval's order
        "num_q                 \tdifficulty=easy\t2",
        "recip_rank            \tdifficulty=easy\t0.7500",
        "P_1                   \tdifficulty=easy\t0.5000",
    ]
    assert "P_1                   \tdifficulty:macro\t0.7500" in trec
    assert "recip_rank            \tdifficulty:micro\t0.8333" in trec
    csv = render_groups(grouped, "csv", {}).splitlines()
    # score's CSV columns: run, qid (the group), measure, canonical, value
    assert csv[0] == "t,difficulty=easy,num_q,num_q,2"
    assert "t,difficulty:micro,P@1,P@1,0.6666666666666666" in csv
    assert (
        "t,difficulty:micro,P_1,P@1,0.6666666666666666"
        in render_groups(grouped, "csv", names).splitlines()
    )
    table = render_groups(grouped, "table", {}).splitlines()
    assert table[1].split() == ["run", "group", "n", "recip_rank", "P@1"]
    assert table[2].split() == ["t", "easy", "2", "0.7500", "0.5000"]
    assert table[4].split() == ["t", "(macro)", "2", "0.8750", "0.7500"]
    assert table[5].split() == ["t", "(micro)", "3", "0.8333", "0.6667"]
    # spread: largest minus smallest group mean (recip_rank 1 - 0.75, P@1 1 - 0.5)
    assert table[6].split() == ["t", "(spread)", "2", "0.2500", "0.5000"]
    assert "P_1                   \tdifficulty:spread\t0.5000" in trec
    markdown = render_groups(grouped, "markdown", {}).splitlines()
    assert markdown[2:4] == ["| run | group | n | recip_rank | P@1 |", "|---|---|---:|---:|---:|"]
    document = groups_document(grouped)
    assert document["difficulty"]["t"]["groups"]["hard"] == {"n": 1, "P@1": 1.0, "recip_rank": 1.0}
    assert document["difficulty"]["t"]["macro"] == {"n": 2, "P@1": 0.75, "recip_rank": 0.875}
    assert document["difficulty"]["t"]["spread"] == {"n": 2, "P@1": 0.5, "recip_rank": 0.25}
    assert document["difficulty"]["t"]["small_groups"] == ["easy", "hard"]


def test_score_cli_groups_reproduce_code_chunk_summary(code_chunk_data, tmp_path):
    """`trecbench convert code-chunk` then `trecbench score --group-by`: the macro mean over
    repos is the published overall, in JSON and in the table; qid-prefix groups the same."""
    from click.testing import CliRunner

    from trecbench.cli import _register, cli

    _register()
    (detailed,) = code_chunk_data.glob("detailed_*.json")
    (summary,) = code_chunk_data.glob("summary_*.json")
    published = json.loads(summary.read_text())["overall"]
    runner = CliRunner()
    assert (
        runner.invoke(cli, ["convert", "code-chunk", str(detailed), "-o", str(tmp_path)]).exit_code
        == 0
    )
    measures = ["-m", "P.5", "-m", "recall.5", "-m", "ndcg_cut.5"]
    for chunker in ("ast", "fixed"):
        files = [str(tmp_path / f"codechunk-{chunker}.qrels"), str(tmp_path / f"{chunker}.run")]
        sidecar = ["--strata", str(tmp_path / "codechunk.sidecar.json")]
        result = runner.invoke(
            cli, ["score", *files, *measures, *sidecar, "--group-by", "repo", "--format", "json"]
        )
        assert result.exit_code == 0, result.output
        (groups,) = json.loads(result.stdout)["groups"]["repo"].values()
        assert len(groups["groups"]) == 6 and groups["micro"]["n"] == 373
        macro = groups["macro"]
        for name, key in (("P.5", "precision"), ("recall.5", "recall"), ("ndcg_cut.5", "ndcg")):
            assert macro[name] == pytest.approx(published[chunker][key], abs=1e-12)
        result = runner.invoke(
            cli, ["score", *files, *measures, "--group-by", "qid-prefix", "--format", "table"]
        )
        assert result.exit_code == 0, result.output
        (macro_row,) = [line for line in result.stdout.splitlines() if "(macro)" in line]
        expected = [f"{published[chunker][k]:.4f}" for k in ("precision", "recall", "ndcg")]
        assert macro_row.split()[-3:] == expected


def test_score_cli_strata_errors(tmp_path):
    from click.testing import CliRunner

    from trecbench.cli import _register, cli

    _register()
    (tmp_path / "q").write_text("1 0 a 1\n")
    (tmp_path / "r").write_text("1 Q0 a 1 1.0 t\n")
    sidecar = tmp_path / "s.json"
    sidecar.write_text(
        json.dumps({"strata": {"fields": ["lang"], "queries": {"1": {"lang": "de"}}}})
    )
    base = ["score", str(tmp_path / "q"), str(tmp_path / "r"), "--strata", str(sidecar)]
    for extra, message in (
        (["--group-by", "difficulty"], "unknown stratum 'difficulty'; available: lang, qid-prefix"),
    ):
        result = CliRunner().invoke(cli, base + extra)  # main() would print the error
        assert isinstance(result.exception, UsageError) and message in str(result.exception)


def _two_topics_and_a_sidecar(tmp_path: Path, queries: dict) -> Path:
    """Qrels ``q`` judging topics 1 and 2, a run ``r`` finding topic 1's document only, and a
    sidecar ``s.json`` of ``queries`` (a mapping of topic to its one field's value)."""
    (tmp_path / "q").write_text("1 0 a 1\n2 0 b 1\n")
    (tmp_path / "r").write_text("1 Q0 a 1 1.0 t\n2 Q0 x 1 1.0 t\n")
    (field,) = {name for values in queries.values() for name in values}
    sidecar = tmp_path / "s.json"
    sidecar.write_text(json.dumps({"strata": {"fields": [field], "queries": queries}}))
    return sidecar


def test_score_report_records_groups_and_the_sidecar(tmp_path):
    from click.testing import CliRunner

    from trecbench.cli import _register, cli
    from trecbench.report import validate_against_schema

    _register()
    sidecar = _two_topics_and_a_sidecar(tmp_path, {"1": {"lang": "de"}, "2": {"lang": "en"}})
    report = tmp_path / "report.json"
    args = ["score", str(tmp_path / "q"), str(tmp_path / "r"), "-m", "P@1", "--format", "table"]
    args += ["--strata", str(sidecar), "--group-by", "lang", "--report", str(report)]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    document = json.loads(report.read_text())
    validate_against_schema(document, "evaluation_report")
    (run,) = document["groups"]["lang"].values()
    assert run["groups"] == {"de": {"n": 1, "P@1": 1.0}, "en": {"n": 1, "P@1": 0.0}}
    assert run["macro"] == {"n": 2, "P@1": 0.5} and run["micro"] == {"n": 2, "P@1": 0.5}
    assert run["spread"] == {"n": 2, "P@1": 1.0} and run["small_groups"] == ["de", "en"]
    assert [i["kind"] for i in document["inputs"]].count("strata") == 1
    warning = (
        "--group-by lang: 2 of 2 groups have fewer than 30 queries, too few for a stable "
        "mean: de (1), en (1) (read their means as indications, or group by a coarser field)"
    )
    assert document["warnings"] == [warning]
    assert f"trecbench: warning: {warning}" in result.stderr


def test_small_groups_are_named_with_their_smallest_size():
    from trecbench.strata import group_warnings

    rows = [("r", str(q), "P@1", 1.0) for q in range(40)] + [("s", "1", "P@1", 0.0)]
    labels = pd.DataFrame({"qid": [str(q) for q in range(40)],
                           "lang": ["de"] * 31 + ["en us"] * 9}, dtype="string")  # fmt: skip
    grouped = {"lang": group_means(per_query(rows), labels, "lang")}
    # run s has only one German query: the smallest count over runs decides (and s has
    # one group: no spread)
    assert group_warnings(grouped) == [
        "--group-by lang: 2 of 2 groups have fewer than 30 queries, too few for a stable mean: "
        # the group "en us" named as the trec text prints it (it was "en us (9)")
        "de (1), en%20us (9) (read their means as indications, or group by a coarser field)",
        "--group-by lang: spread n/a (undefined): one group only (a spread is between two or "
        "more group means) — s.",
    ]
    big = {"lang": group_means(per_query(rows[:31]), labels, "lang")}  # de only: no spread
    assert group_warnings(big) == [
        "--group-by lang: spread n/a (undefined): one group only (a spread is between two or "
        "more group means) — r."
    ]


def test_found_only_qrels_carry_the_warning_into_score_and_its_report(tmp_path):
    """memorybench's token fallback: the sidecar marks the qrels found-only, and `score
    --strata` prints and records the seed's warning for exactly those qrels."""
    from click.testing import CliRunner

    from trecbench.cli import _register, cli
    from trecbench.convert.common import FOUND_ONLY_WARNING

    _register()
    export = tmp_path / "export.json"
    items = [
        {"runId": "r", "provider": p, "itemId": f"q{i}", "expected": "Paris is in France",
         "retrievedContext": [{"id": "c1", "content": "Paris, France"},
                              {"id": "c2", "content": "Berlin"}],
         "metadata": {"repo": "x"}}
        for p in ("a", "b") for i in range(2)
    ]  # fmt: skip
    export.write_text(json.dumps({"results": items}))
    out = tmp_path / "out"
    result = CliRunner().invoke(cli, ["convert", "memorybench", str(export), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert "--run-qrels" in result.stderr  # the compare command for the pairs written
    sidecar = json.loads((out / "memorybench.sidecar.json").read_text())
    assert sidecar["qrels"]["memorybench-a"]["found_only"] is True
    report = tmp_path / "report.json"
    args = ["score", str(out / "memorybench-a.qrels"), str(out / "a.run"), "-m", "P@1"]
    args += ["--strata", str(out / "memorybench.sidecar.json"), "--group-by", "repo"]
    result = CliRunner().invoke(cli, args + ["--report", str(report)])
    assert result.exit_code == 0, result.output
    expected = f"{out / 'memorybench-a.qrels'}: {FOUND_ONLY_WARNING}"
    assert f"trecbench: warning: {expected}" in result.stderr
    assert expected in json.loads(report.read_text())["warnings"]


def test_hostile_sidecars_are_refused_with_their_place(tmp_path):
    path = tmp_path / "s.json"
    for data, message in (
        ({"strata": {"queries": {"1": 5}}}, r"s.json:1: strata.queries\[\"1\"\]: expected an obj"),
        ({"strata": {"queries": {"1": {"lang": 3}}}}, r"queries\[\"1\"\].lang: expected a str"),
        ({"strata": {"fields": "lang", "queries": {}}}, r"strata.fields: expected an array"),
        ([], "not a trecbench sidecar"),
    ):
        path.write_text(json.dumps(data))
        with pytest.raises(InputError, match=message):
            load_strata(path)


def test_a_stratum_named_qid_is_refused(tmp_path):
    # it once replaced the qid column: q1 and q2 swapped their groups silently
    path = tmp_path / "s.json"
    for data, message in (
        ({"strata": {"fields": ["lang", "qid"], "queries": {}}}, r"strata.fields\[1\]: a stratum"),
        ({"strata": {"queries": {"q1": {"lang": "en", "qid": "q2"}}}}, r"q1.qid: a stratum"),
    ):
        path.write_text(json.dumps(data))
        with pytest.raises(InputError, match=message + " cannot be named qid"):
            load_strata(path)


def test_a_stratum_value_none_or_a_stratum_named_qid_prefix_is_refused(tmp_path):
    # (none) is the group of topics without a value: q1's "(none)" and q2 (no value) were
    # one group of 2 (P@1 0.5), not two (1.0 and 0.0, macro 0.5); a stratum named
    # qid-prefix was silently replaced by the grouping of that name
    path = tmp_path / "s.json"
    for data, message in (
        ({"strata": {"queries": {"q1": {"g": "(none)"}, "q2": {}}}}, r"q1.g: \(none\) names"),
        ({"strata": {"queries": {"q1": {"qid-prefix": "a"}}}}, "cannot be named qid-prefix"),
    ):
        path.write_text(json.dumps(data))
        with pytest.raises(InputError, match=message):
            load_strata(path)


def test_an_empty_or_blank_group_name_is_refused_at_its_line(tmp_path, capsys):
    # it was a group printed with no label: "e              1  0.0000" and "g=" in trec text
    from trecbench.cli import run

    (tmp_path / "q").write_text("q1 0 a 1\nq2 0 a 1\n")
    (tmp_path / "r").write_text("q1 Q0 a 1 1 t\nq2 Q0 b 1 1 t\n")
    side = tmp_path / "s.json"
    for value, said in (("", "empty group name"), (" \t", r"blank group name ' \t'")):
        q2 = f' "q2": {{"g": {json.dumps(value)}}}'  # on line 3
        side.write_text("\n".join(['{"strata": {"queries": {', ' "q1": {"g": "A"},', q2, "}}}"]))
        args = ["score", "-m", "P.1", "--strata", str(side), "--group-by", "g"]
        assert run([*args, str(tmp_path / "q"), str(tmp_path / "r")]) == 2
        assert capsys.readouterr().err == (
            f"trecbench: {side}:3: strata.queries.q2.g: {said}: a topic without a g goes in "
            "(none) (leave its g out, or null)\n"
        )
    # strata given as a table (group_means), refused alike
    per_query = pd.DataFrame({"run": "r", "qid": ["q1", "q2"], "measure": "P@1", "value": 1.0})
    strata = pd.DataFrame({"qid": ["q1", "q2"], "g": ["A", ""]})
    with pytest.raises(UsageError, match="^group_by='g': topic 'q2': empty group name: "):
        group_means(per_query, strata, "g")


def test_sidecar_strata_use_the_escaped_ids_of_the_qrels_and_runs(tmp_path):
    """A case_id that needs escaping ("case 1" is written case%201) keeps its stratum:
    the sidecar is keyed by the ids as written, so `score --group-by` finds it."""
    from click.testing import CliRunner

    from trecbench.cli import _register, cli

    _register()
    cases = tmp_path / "cases.json"
    cases.write_text(
        json.dumps(
            {"test_cases": [
                {"case_id": "case 1", "text": "a", "expected_hpo_ids": ["HP:0000001"],
                 "difficulty": "easy"},
                {"case_id": "case2", "text": "b", "expected_hpo_ids": ["HP:0000002"],
                 "difficulty": "hard"},
            ]}
        )
    )  # fmt: skip
    terms = tmp_path / "terms.jsonl"
    terms.write_text(
        '{"case_id": "case 1", "hpo_id": "HP:0000001", "rank": 1, "score": 1}\n'
        '{"case_id": "case2", "hpo_id": "HP:0000003", "rank": 1, "score": 1}\n'
    )
    out = tmp_path / "out"
    args = ["convert", "hpo", str(cases), "--results", str(terms), "--tag", "t"]
    result = CliRunner().invoke(cli, args + ["--no-id-check", "-o", str(out)])
    assert result.exit_code == 0, result.output
    sidecar = json.loads((out / "cases.sidecar.json").read_text())
    assert sidecar["strata"]["queries"] == {
        "case%201": {"difficulty": "easy"},
        "case2": {"difficulty": "hard"},
    }
    args = ["score", str(out / "cases.qrels"), str(out / "t.run"), "-m", "P@1"]
    args += ["--strata", str(out / "cases.sidecar.json"), "--group-by", "difficulty"]
    result = CliRunner().invoke(cli, args + ["--format", "json"])
    assert result.exit_code == 0, result.output
    (run,) = json.loads(result.stdout)["groups"]["difficulty"].values()
    assert run["groups"] == {"easy": {"n": 1, "P@1": 1.0}, "hard": {"n": 1, "P@1": 0.0}}


def test_grouped_means_name_measures_as_the_table_above_them(capsys):
    # the labels default to the spellings asked: the groups' header too (it said nDCG@10)
    from conftest import ROOT

    from trecbench.cli import run

    files = [str(ROOT / "qrels" / "hpo-demo.qrels"), str(ROOT / "runs" / "tfidf-word.run")]
    args = ["score", *files, "-m", "ndcg_cut.10", "--group-by", "qid-prefix", "--format", "table"]
    assert run(args) == 0
    headers = [line for line in capsys.readouterr().out.splitlines() if line.startswith("run ")]
    assert len(headers) == 2 and all(line.endswith("ndcg_cut.10") for line in headers)


def test_grouped_csv_quotes_a_group_holding_a_carriage_return():
    """Python 3.11's csv writer leaves a lone CR bare, and a reader then ends the record
    there: grouped means go through the CSV writer every other CSV output uses."""
    import csv
    import io

    from trecbench.renderers.strata import render_groups
    from trecbench.strata import evaluation_groups

    strata = STRATA.assign(difficulty=["e\rasy", "e\rasy", "hard", None])
    grouped = {"difficulty": evaluation_groups(_evaluation(), strata, "difficulty")}
    records = list(csv.reader(io.StringIO(render_groups(grouped, "csv", {}), newline="")))
    assert records[0] == ["t", "difficulty=e\rasy", "num_q", "num_q", "2"]
    assert all(len(record) == 5 for record in records)  # as score's header


def test_an_undefined_value_makes_its_group_means_undefined_as_trec_eval_all(capsys, tmp_path):
    # 11pt_avg under -J: topic q2 (judged only negatively, every document dropped) is NaN
    # and trec_eval's all is -nan; pandas' mean skipped it: g=A, macro and micro 1.0
    import json

    from trecbench.cli import run

    (tmp_path / "m.qrels").write_text("q1 0 a 1\nq2 0 d 1\nq2 0 f -1\n")
    (tmp_path / "m.run").write_text("q1 Q0 a 1 1 t\nq1 Q0 b 2 1 t\nq2 Q0 f 1 1 t\n")
    side = tmp_path / "m.side.json"
    side.write_text('{"strata":{"queries":{"q1":{"g":"A"},"q2":{"g":"A"}}}}\n')
    args = ["score", "-J", "-m", "11pt_avg", "--strata", str(side), "--group-by", "g"]
    args += [str(tmp_path / "m.qrels"), str(tmp_path / "m.run")]
    assert run([*args, "--format", "json"]) == 0
    groups = json.loads(capsys.readouterr().out)["groups"]["g"]["m"]
    assert groups["groups"]["A"] == {"n": 2, "11pt_avg": None}
    assert groups["micro"]["11pt_avg"] is None and groups["macro"]["11pt_avg"] is None
    # spelled as score spells its undefined all: -nan in trec text, empty in CSV
    assert run(args) == 0
    assert "11pt_avg              \tg:micro\t  -nan" in capsys.readouterr().out
    assert run([*args, "--format", "csv"]) == 0
    assert "m,g:micro,11pt_avg,11pt_avg,\n" in capsys.readouterr().out
    assert run([*args, "--tie-bounds", "--unjudged-bounds", "--format", "json"]) == 0
    text = capsys.readouterr().out
    assert "NaN" not in text  # JSON has none: null
    document = json.loads(text)
    assert document["runs"][0]["tie_bounds"]["measures"]["11pt_avg"] == {
        "low": None, "high": None, "position": "undefined"
    }  # fmt: skip


@pytest.mark.parametrize("fmt", ["table", "markdown"])
def test_an_undefined_group_mean_is_written_in_the_tables_as_the_main_table_writes_it(
    fmt, capsys, tmp_path
):
    # the main table wrote -nan (as trec_eval), the grouped one below it nan
    from trecbench.cli import run

    (tmp_path / "m.qrels").write_text("q1 0 a 1\nq2 0 d 1\nq2 0 f -1\n")
    (tmp_path / "m.run").write_text("q1 Q0 a 1 1 t\nq1 Q0 b 2 1 t\nq2 Q0 f 1 1 t\n")
    side = tmp_path / "m.side.json"
    side.write_text('{"strata":{"queries":{"q1":{"g":"A"},"q2":{"g":"A"}}}}\n')
    args = ["score", "-J", "-m", "11pt_avg", "--strata", str(side), "--group-by", "g"]
    assert run([*args, "--format", fmt, str(tmp_path / "m.qrels"), str(tmp_path / "m.run")]) == 0
    rows = [line.replace("|", " ").split() for line in capsys.readouterr().out.splitlines()]
    assert ["m", "2", "-nan"] in rows  # the main table: run, topics, 11pt_avg
    for group in ("A", "(macro)", "(micro)"):
        assert [row for row in rows if row[1:2] == [group]][0][-1] == "-nan"


def test_a_qid_prefix_none_is_refused_as_a_stratum_value_is():
    # (none)/a would join b (no prefix) in the group (none): num_q 2 for two groups
    import pandas as pd

    from trecbench.errors import UsageError
    from trecbench.strata import group_labels

    with pytest.raises(UsageError, match=r"qid '\(none\)/a' has the prefix \(none\)"):
        group_labels(pd.Series(["(none)/a", "b"]), None, "qid-prefix")
    assert group_labels(pd.Series(["x/a", "b"]), None, "qid-prefix").tolist() == ["x", "(none)"]
    # /7's prefix is empty: it joined b in (none) unsaid (helper-598)
    with pytest.raises(UsageError, match=r"qid '/7' has an empty prefix, no group's name"):
        group_labels(pd.Series(["/7", "b"]), None, "qid-prefix")


@pytest.mark.parametrize("labels", ["trec", "display", "asked"])
def test_json_groups_name_measures_as_the_rest_of_the_document(labels, tmp_path, capsys):
    # the groups kept display names (P@5) under --labels trec, beside aggregates P_5
    from trecbench.cli import run as cli_run

    (tmp_path / "q").write_text("a/1 0 x 1\na/1 0 y 0\nb/2 0 x 1\n")
    (tmp_path / "r").write_text("a/1 Q0 x 1 2 t\na/1 Q0 y 2 1 t\nb/2 Q0 y 1 2 t\nb/2 Q0 x 2 1 t\n")
    files = [str(tmp_path / "q"), str(tmp_path / "r")]
    args = ["score", *files, "-m", "P.5", "-m", "ndcg_cut.10", "--format", "json"]
    assert cli_run([*args, "--group-by", "qid-prefix", "--labels", labels]) == 0
    document = json.loads(capsys.readouterr().out)
    (grouped,) = document["groups"]["qid-prefix"].values()
    names = {"trec": ["P_5", "ndcg_cut_10"], "display": ["P@5", "nDCG@10"]}
    expected = names.get(labels, ["P.5", "ndcg_cut.10"])
    assert sorted(document["runs"][0]["aggregates"]) == expected
    for part in (grouped["macro"], grouped["micro"], *grouped["groups"].values()):
        assert sorted(part) == sorted(["n", *expected])
    # b/2: x at rank 2, nDCG@10 = 1/log2(3); a/1: 1.0; their micro mean
    assert grouped["groups"]["b"][expected[1]] == pytest.approx(0.6309297535714575)
    assert grouped["micro"][expected[1]] == pytest.approx((1 + 0.6309297535714575) / 2)


def test_a_measure_asked_by_two_spellings_is_grouped_under_both(tmp_path, capsys):
    # the aggregates showed ndcg_cut.10 and nDCG@10, the groups only ndcg_cut.10
    from trecbench.cli import run as cli_run

    (tmp_path / "q").write_text("a/1 0 x 1\nb/2 0 x 1\n")
    (tmp_path / "r").write_text("a/1 Q0 x 1 2 t\nb/2 Q0 y 1 2 t\nb/2 Q0 x 2 1 t\n")
    files = [str(tmp_path / "q"), str(tmp_path / "r")]
    args = ["score", *files, "-m", "ndcg_cut.10", "-m", "nDCG@10", "--group-by", "qid-prefix"]
    assert cli_run([*args, "--format", "json"]) == 0
    document = json.loads(capsys.readouterr().out)
    (grouped,) = document["groups"]["qid-prefix"].values()
    assert sorted(document["runs"][0]["aggregates"]) == ["nDCG@10", "ndcg_cut.10"]
    assert grouped["groups"]["b"] == {"n": 1, "ndcg_cut.10": 1 / math.log2(3)} | {
        "nDCG@10": 1 / math.log2(3)
    }
    assert cli_run([*args, "--format", "table"]) == 0
    assert "run  group     n  ndcg_cut.10  nDCG@10\n" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("head", "said"),
    [
        ({"format": "trecbench-sidecar", "version": 4}, ":3: version: 4: this trecbench reads"),
        ({"format": "trecbench-sidecar", "version": "3"}, ":3: version: '3': this trecbench"),
        ({"format": "other", "version": 3}, ":2: format: 'other': not a trecbench sidecar"),
    ],
)
def test_a_sidecar_of_another_format_or_a_later_version_is_refused(tmp_path, head, said):
    # a later sidecar's strata (or another tool's document) were read as this one's
    path = tmp_path / "s.json"
    strata = {"fields": ["g"], "queries": {"1": {"g": "a"}}}
    path.write_text(json.dumps({**head, "strata": strata}, indent=1))
    with pytest.raises(InputError) as raised:
        load_strata(path)
    assert str(raised.value).startswith(f"{path}{said}")
    for version in (2, 3):  # the versions trecbench reads, and strata written by hand
        path.write_text(
            json.dumps({"format": "trecbench-sidecar", "version": version, "strata": strata})
        )
        assert load_strata(path)["g"].tolist() == ["a"]
    for written in ({"strata": strata}, {"format": "trecbench-sidecar", "strata": strata}):
        path.write_text(json.dumps(written))  # no format, or no version: read
        assert load_strata(path)["g"].tolist() == ["a"]


def test_micro_mean_prints_as_trec_eval_prints_all(tmp_path):
    # P@5 of 32 topics (k relevant documents in the top 5 of topic q<i>): trec_eval 9.0.8
    # prints all 0.5687 (its sum in topic order); pandas' mean, summed another way, gave
    # the group and the micro mean 0.5688, one line below trec_eval's own
    from click.testing import CliRunner

    from trecbench.cli import _register, cli

    _register()
    ks = [5, 4, 5, 3, 4, 1, 5, 5, 4, 3, 1, 4, 5, 0, 3, 5, 4, 2, 5, 5, 3, 0, 5, 2, 1, 1, 0, 2]
    ks += [0, 0, 2, 2]
    qrels = "".join(f"q{i:02d} 0 d{j} {int(j < k)}\n" for i, k in enumerate(ks) for j in range(5))
    run = "".join(f"q{i:02d} Q0 d{j} {j} {9 - j} t\n" for i in range(32) for j in range(5))
    (tmp_path / "q").write_text(qrels)
    (tmp_path / "r").write_text(run)
    strata = {"strata": {"queries": {f"q{i:02d}": {"f": "x"} for i in range(32)}}}
    (tmp_path / "s.json").write_text(json.dumps(strata))
    argv = ["score", "-m", "P.5", "--strata", str(tmp_path / "s.json"), "--group-by", "f"]
    result = CliRunner().invoke(cli, [*argv, str(tmp_path / "q"), str(tmp_path / "r")])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert "P_5                   \tall\t0.5687" in lines  # trec_eval 9.0.8's line
    assert "P_5                   \tf=x\t0.5687" in lines
    assert "P_5                   \tf:micro\t0.5687" in lines
    assert "P_5                   \tf:macro\t0.5687" in lines


def test_topics_of_the_strata_the_qrels_lack_are_warned_of_not_dropped_silently(tmp_path):
    """A sidecar's topics that are not in the qrels are no group's (docs/convert.md): a
    group of only such topics (z here) vanished from the table without a word, where the
    run topics the qrels lack are warned of. One line says how many and the first few,
    on stderr and in the report's warnings; the means are unchanged."""
    from click.testing import CliRunner

    from trecbench.cli import _register, cli

    _register()
    queries = {"1": {"g": "x"}, "2": {"g": "y"}, "9 a": {"g": "x"}, "8": {"g": "z"}}
    sidecar = _two_topics_and_a_sidecar(tmp_path, queries)
    report = tmp_path / "report.json"
    args = ["score", str(tmp_path / "q"), str(tmp_path / "r"), "-m", "P@1", "--format", "table"]
    args += ["--strata", str(sidecar), "--group-by", "g", "--report", str(report)]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    warning = "--strata: 2 topics of the strata are not in the qrels (no group's): 9%20a, 8"
    assert f"trecbench: warning: {warning}\n" in result.stderr
    assert warning in json.loads(report.read_text())["warnings"]
    (run,) = json.loads(report.read_text())["groups"]["g"].values()
    assert run["groups"] == {"x": {"n": 1, "P@1": 1.0}, "y": {"n": 1, "P@1": 0.0}}
    del queries["9 a"], queries["8"]  # all in the qrels: nothing said
    _two_topics_and_a_sidecar(tmp_path, queries)
    assert "--strata" not in CliRunner().invoke(cli, args).stderr


def test_compare_warns_of_the_strata_topics_the_qrels_lack_as_score_does(tmp_path):
    # compare --strata --group-by dropped a sidecar's topics that no qrels judges without a
    # word (the stratum z of such topics alone vanished), where score warns of them
    from click.testing import CliRunner

    import trecbench
    from trecbench.cli import _register, cli
    from trecbench.report import validate_against_schema

    _register()
    queries = {"1": {"g": "x"}, "2": {"g": "y"}, "9 a": {"g": "x"}, "8": {"g": "z"}}
    sidecar = _two_topics_and_a_sidecar(tmp_path, queries)
    (tmp_path / "r2").write_text("1 Q0 x 1 1.0 u\n2 Q0 b 1 1.0 u\n")
    runs = [str(tmp_path / "r"), str(tmp_path / "r2")]
    args = ["compare", str(tmp_path / "q"), *runs, "-m", "P@1", "--strata", str(sidecar)]
    result = CliRunner().invoke(cli, [*args, "--group-by", "g"])
    assert result.exit_code == 0, result.output
    warning = "--strata: 2 topics of the strata are not in the qrels (no group's): 9%20a, 8"
    assert f"trecbench: warning: {warning}\n" in result.stderr
    made = trecbench.compare(str(tmp_path / "q"), runs, ["P@1"], strata=sidecar, group_by="g")
    assert warning in made.warnings
    # and in its report, which stands alone (it was only printed)
    document = json.loads(made.report_file())
    validate_against_schema(document, "benchmark_report")
    assert document["warnings"] == made.warnings
    plain = trecbench.compare(str(tmp_path / "q"), runs, ["P@1"])
    assert "warnings" not in json.loads(plain.report_file())  # none: no key
    assert "not in the qrels" not in CliRunner().invoke(cli, args).stderr  # no grouping


def _items(listed: str) -> list[str]:
    """The names a message lists as escaped items (``a%0Ab, x%2C y``), given back."""
    from urllib.parse import unquote

    return [unquote(item) for item in listed.split(", ")]


@pytest.mark.parametrize("hostile", ["a\nb", "x, y", "a\tb "])
def test_a_sidecars_fields_topics_and_runs_are_listed_escaped_as_items(tmp_path, hostile):
    # the fields a sidecar offers (and the strata known beside an unknown one) were joined
    # as they are, the strata's topics the qrels lack and the runs of an n/a spread were
    # escaped but not as items: a line feed split the line, a name "x, y" read as two
    from urllib.parse import unquote

    from trecbench.strata import (
        check_group_field,
        group_warnings,
        outside_qrels_warnings,
        sidecar_notes,
    )

    queries = {"1": {hostile: "x", "g": "x"}, f"{hostile},9": {hostile: "y", "g": "y"}}
    sidecar = {"format": "trecbench-sidecar", "version": 3,
               "strata": {"fields": [hostile, "g"], "queries": queries}}  # fmt: skip
    path = tmp_path / "s.json"
    path.write_text(json.dumps(sidecar))
    (note,) = sidecar_notes(path, [], None)
    assert _items(note.split("this sidecar offers: ")[1].split(");")[0]) == [hostile, "g"]
    strata = load_strata(path)
    with pytest.raises(UsageError) as refused:
        check_group_field(strata, "nope")
    known = str(refused.value).split("; available: ")[1]
    assert _items(known) == [hostile, "g", "qid-prefix"]
    (outside,) = outside_qrels_warnings(strata, ["1"])
    assert _items(outside.split("(no group's): ")[1]) == [f"{hostile},9"]
    rows = [(f"r{hostile}", "1", "P@1", 1.0), ("s", "1", "P@1", 0.0)]
    spread = group_warnings({hostile: group_means(per_query(rows), strata, hostile)})[-1]
    field, said = spread.removeprefix("--group-by ").split(": spread n/a")
    assert unquote(field) == hostile  # one field: escaped (a line feed), not an item
    assert _items(said.split(" — ")[1].removesuffix(".")) == [f"r{hostile}", "s"]
    for message in (note, known, outside, spread):
        assert message.isprintable(), message


def test_group_means_reads_its_values_as_compare_scores_does():
    # a topic's value given twice was counted twice (en: n 29, mean 0.4616 where 28 topics
    # give 0.4424), an nDCG of 5 averaged; ir_measures' and PyTerrier's column names, a
    # mapping as strata and no values raised pandas' KeyError or an AttributeError
    rows = [("r", "1", "P@5", 1.0), ("r", "2", "P@5", 0.5), ("r", "3", "P@5", 0.0)]
    twice = per_query([*rows, ("r", "1", "P@5", 0.0)])
    with pytest.raises(UsageError, match=r"^run 'r': two values of P@5 for topic '1'$"):
        group_means(twice, STRATA, "difficulty")
    beyond = per_query([*rows[:2], ("r", "3", "P@5", 5.0)])
    with pytest.raises(UsageError, match=r"^run 'r': P@5 is 5.0 for '3', outside \[0, 1\]"):
        group_means(beyond, STRATA, "difficulty")
    # reviewer 677: a NaN made its group's, macro and micro means NaN, undefined unsaid
    undefined = per_query([*rows[:2], ("r", "3", "P@5", math.nan)])
    with pytest.raises(UsageError, match=r"^run 'r': P@5 is undefined for '3'$"):
        group_means(undefined, STRATA, "difficulty")
    # and a topic in two groups of the field counted in the first alone, without a word
    two = pd.concat([STRATA, pd.DataFrame({"qid": ["1"], "difficulty": ["hard"]})])
    with pytest.raises(UsageError, match=r"topic '1' is in two difficulty groups: 'easy' and"):
        group_means(per_query(rows), two, "difficulty")
    pd.testing.assert_frame_equal(  # a row repeated alike is one
        group_means(per_query(rows), pd.concat([STRATA, STRATA[:1]]), "difficulty"),
        group_means(per_query(rows), STRATA, "difficulty"),
    )
    expected = group_means(per_query(rows), STRATA, "difficulty")
    for names in ({"qid": "query_id"}, {"run": "name"}):
        pd.testing.assert_frame_equal(
            group_means(per_query(rows).rename(columns=names), STRATA, "difficulty"), expected
        )
    integers = per_query([(r, int(q), m, v) for r, q, m, v in rows])  # ids read as text
    pd.testing.assert_frame_equal(group_means(integers, STRATA, "difficulty"), expected)
    written = STRATA.assign(qid=["001", "2", "3", "4"])  # 1 is not '001': (none), unsaid
    with pytest.raises(InputError, match="strata has query ids such as '001' that no integer"):
        group_means(integers, written, "difficulty")
    with pytest.raises(UsageError, match=r"^per_query: no value column"):
        group_means(per_query(rows).drop(columns="value"), STRATA, "difficulty")
    for strata, shown in (({"1": "easy"}, "a dict"), (STRATA.drop(columns="qid"),
                          "a DataFrame without a qid column")):  # fmt: skip
        with pytest.raises(UsageError, match=rf"^strata: give load_strata's table .*not {shown}$"):
            group_means(per_query(rows), strata, "difficulty")


def test_compare_sections_of_a_field_holding_an_equals_sign_keep_their_own_topics():
    # the macro section of field a=x and the stratum x:macro of field a were both labelled
    # a=x:macro, and the tables printed one's means under the other's name (reviewer 662)
    import trecbench

    per_query = pd.DataFrame(
        [(run, qid, "P@1", value) for run, values in (("A", (1, 0, 1, 0)), ("B", (1, 1, 1, 1)))
         for qid, value in zip(("q1", "q2", "q3", "q4"), values, strict=True)],
        columns=["run", "qid", "measure", "value"],
    )  # fmt: skip
    strata = {
        "a=x": {"q1": "c", "q2": "c", "q3": "d", "q4": "d"},
        "a": {"q1": "x:macro", "q2": "y", "q3": "x:macro", "q4": "y"},
    }
    made = trecbench.compare_scores(per_query, strata=strata, group_by=["a=x", "a"])
    sections = made.summary.groupby("stratum", sort=False)
    means = {label: dict(zip(rows["run"], rows["mean"], strict=True)) for label, rows in sections}
    # the field's = escaped, as score places a group (trecbench.escaping.group_place)
    assert means == {
        "all": {"A": 0.5, "B": 1.0},
        "a%3Dx:macro": {"A": 0.5, "B": 1.0},
        "a%3Dx=c": {"A": 0.5, "B": 1.0},
        "a%3Dx=d": {"A": 0.5, "B": 1.0},
        "a:macro": {"A": 0.5, "B": 1.0},
        "a=x:macro": {"A": 1.0, "B": 1.0},
        "a=y": {"A": 0.0, "B": 1.0},
    }
