"""compare_scores' per-query values, queries, baseline and strata as users bring them:
PyTerrier's and ir_measures' columns, records, ids never inferred (as the readers read
them), values numbers; strata mappings of every shape, missing values in ``(none)``; and
compare's strata given as a table. Means are worked by hand."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import trecbench
from trecbench.comparison import compare_scores
from trecbench.errors import InputError, UsageError
from trecbench.report import validate_against_schema

# run a: 0.2, 0.4, 0.6 (mean 0.4); run b: 0.4, 0.4, 0.8 (mean 1.6 / 3)
BASE = pd.DataFrame(
    {
        "run": ["a"] * 3 + ["b"] * 3,
        "qid": ["1", "2", "3"] * 2,
        "measure": "P@5",
        "value": [0.2, 0.4, 0.6, 0.4, 0.4, 0.8],
    }
)
MEANS = {"a": 0.4, "b": 1.6 / 3}


def _means(comparison, stratum: str = "all") -> dict[str, float]:
    rows = comparison.part(comparison.summary, stratum)
    return dict(zip(rows["run"], rows["mean"], strict=True))


def _assert_means(comparison, expected: dict[str, float], stratum: str = "all") -> None:
    assert _means(comparison, stratum) == pytest.approx(expected, rel=1e-12)


def test_pyterrier_and_ir_measures_columns_and_records_are_read():
    import ir_measures

    pyterrier = BASE.rename(columns={"run": "name"})  # Experiment(perquery=True)
    _assert_means(compare_scores(pyterrier, samples=40), MEANS)
    # ir_measures' results: query_id, its measure objects, value (and no run: added)
    measure = ir_measures.parse_measure("P@5")
    metrics = [
        ir_measures.Metric(qid, measure, value)
        for qid, value in zip(BASE["qid"], BASE["value"], strict=True)
    ]
    frame = pd.DataFrame(metrics).assign(run=BASE["run"])
    comparison = compare_scores(frame, samples=40)
    assert comparison.measures == ["P@5"]
    _assert_means(comparison, MEANS)
    _assert_means(compare_scores(BASE.to_dict("records"), samples=40), MEANS)
    # decimal text is a number, as in a run's scores
    _assert_means(compare_scores(BASE.assign(value=BASE["value"].map(str)), samples=40), MEANS)


@pytest.mark.parametrize(
    ("given", "error", "message"),
    [
        (BASE.drop(columns="run"), UsageError, r"no run column \(one of run, name\); columns: qid"),
        (BASE.rename(columns={"qid": "topic"}), UsageError, "no query id column .*query_id"),
        (BASE.assign(name="x"), UsageError, r"columns \['run', 'name'\] all name the run"),
        (BASE.assign(value=["a"] + ["0.4"] * 5), InputError, "row 0: value 'a' is not a number"),
        (BASE.assign(value=True), InputError, "value column has type bool: expected numbers"),
        (BASE.assign(measure=["P@5", None, "P@5"] * 2), InputError, "row 1: measure is missing"),
        ({"a": {"1": 0.5}}, UsageError, "a DataFrame .*not a dict"),
    ],
)
def test_what_is_no_per_query_table_is_refused_in_one_line(given, error, message):
    with pytest.raises(error, match=message):
        compare_scores(given, samples=40)


def test_an_evaluation_is_told_to_give_its_per_query():
    # compare_scores(trecbench.evaluate(...)) said "..., not an Evaluation" alone
    evaluation = trecbench.evaluate({"1": {"a": 1}}, {"1": {"a": 1.0}}, ["P@5"])
    with pytest.raises(UsageError) as refused:
        compare_scores(evaluation, samples=40)
    assert str(refused.value) == (
        "per_query: a DataFrame (or records) of run, qid, measure, value, not an Evaluation: "
        "give its per_query, which is one"
    )
    assert compare_scores(evaluation.per_query, samples=40).summary is not None


@pytest.mark.parametrize(
    ("qids", "message"),
    [
        (["1", None, "3"], "row 1: qid is missing"),  # was the stratum 'nan', scored 0
        ([1.0, np.nan, 3.0], "has type double: ids must be strings .*dtype=str"),
        ([1.0, 2.0, 3.0], "has type double: ids must be strings .*dtype=str"),  # were '1.0'
        ([1, "2", 3], "row 1: qid '2' is text, not an integer as in row 0"),
    ],
)
def test_missing_float_and_mixed_qids_are_refused_as_the_readers_refuse_them(qids, message):
    with pytest.raises(InputError, match=message):
        compare_scores(BASE.assign(qid=qids * 2), samples=40)


def test_integer_qids_are_written_in_decimal_and_refused_beside_queries_they_lost():
    integers = BASE.assign(qid=[1, 2, 3] * 2)
    # topic 4 counts 0 for both runs: a (0.2 + 0.4 + 0.6 + 0) / 4, b 1.6 / 4
    comparison = compare_scores(integers, queries=["1", "2", "3", "4"], samples=40)
    assert comparison.queries == ["1", "2", "3", "4"]
    _assert_means(comparison, {"a": 0.3, "b": 0.4})
    with pytest.raises(InputError, match="such as '001' .*lost how the ids were written"):
        compare_scores(integers, queries=["001", "002", "003"], samples=40)
    with pytest.raises(InputError, match="^queries: .*per_query has query ids such as '01'"):
        compare_scores(BASE.assign(qid=["01", "2", "3"] * 2), queries=[1, 2, 3], samples=40)
    with pytest.raises(InputError, match="item 0: query id 1.0 is a float"):
        compare_scores(BASE, queries=[1.0, 2.0, 3.0], samples=40)


def test_queries_given_as_one_string_are_refused_not_read_as_characters():
    """queries="12" counted topics '1' and '2' (its characters), not '12'; 5 raised a bare
    TypeError. A set, whose order the topics' sorting makes no matter, is taken."""
    frame = BASE.assign(qid=["1", "2", "12"] * 2)
    for given, kind in (("12", "text"), (b"12", "bytes"), (5, "an int")):
        with pytest.raises(UsageError, match=f"^queries=.*: give a list of query ids, not {kind}$"):
            compare_scores(frame, queries=given, samples=40)
    assert compare_scores(frame, queries={"12", "1"}, samples=40).queries == ["1", "12"]


def test_the_summary_rows_of_score_q_are_refused_not_counted_as_a_topic(capsys):
    """score --format csv -q's rows of topic 'all' (its means) were a fourth topic: the
    means unchanged, every interval narrower and every p lower (0.000403 for 0.000504);
    refused, unless queries= names the topics that count."""
    import io

    from scipy.stats import ttest_rel

    from trecbench.cli import run

    qrels, word, char = "qrels/hpo-demo.qrels", "runs/tfidf-word.run", "runs/tfidf-char.run"
    assert run(["score", "--format", "csv", "-q", "-m", "nDCG@10", qrels, char, word]) == 0
    printed = io.StringIO(capsys.readouterr().out)
    frame = pd.read_csv(printed, dtype={"run": str, "qid": str}, keep_default_na=False)
    with pytest.raises(UsageError, match=r"^per_query: 2 rows of topic 'all', as trec_eval -q"):
        compare_scores(frame, test="t")
    with pytest.raises(UsageError, match=r"2 rows of topic 'all'.*: leave them out$"):
        trecbench.group_means(frame, None, "qid-prefix")
    topics = frame[frame["qid"] != "all"]
    expected = ttest_rel(
        *(topics[topics["run"] == r]["value"] for r in ("tfidf-char", "tfidf-word"))
    )
    for given in ({"per_query": topics}, {"per_query": frame, "queries": set(topics["qid"])}):
        p = compare_scores(**given, test="t").comparisons["p_value"].iloc[0]
        assert p == pytest.approx(expected.pvalue, rel=1e-9)


def test_integer_run_names_and_baseline_are_written_in_decimal():
    integers = BASE.assign(run=[1] * 3 + [2] * 3)
    comparison = compare_scores(integers, baseline=2, samples=40)
    assert comparison.baseline == "2" and comparison.runs == ["1", "2"]
    # the difference against the baseline 2 (b): a - b = 0.4 - 1.6 / 3
    difference = comparison.part(comparison.comparisons, "all")["difference"]
    assert difference.tolist() == pytest.approx([0.4 - 1.6 / 3], rel=1e-12)
    with pytest.raises(UsageError, match="baseline names a run: text .*not a float"):
        compare_scores(integers, baseline=2.0, samples=40)
    with pytest.raises(InputError, match="run column has type double"):
        compare_scores(BASE.assign(run=[1.0] * 3 + [2.0] * 3), samples=40)


@pytest.mark.parametrize("missing", [None, float("nan"), pd.NA])
def test_a_topic_without_a_stratum_is_in_none_as_in_a_sidecar(tmp_path, missing):
    strata = {"1": "x", "2": missing, "3": "y"}
    comparison = compare_scores(BASE, strata=strata, group_by="lang", samples=40)
    assert comparison.stratum_labels == ["all", "lang:macro", "lang=(none)", "lang=x", "lang=y"]
    _assert_means(comparison, {"a": 0.4, "b": 0.4}, "lang=(none)")  # topic 2
    # macro: each stratum counts the same, a (0.2 + 0.4 + 0.6) / 3, b (0.4 + 0.4 + 0.8) / 3
    _assert_means(comparison, MEANS, "lang:macro")
    sidecar = tmp_path / "s.json"
    queries = {"1": {"lang": "x"}, "2": {"lang": None}, "3": {"lang": "y"}}
    sidecar.write_text(json.dumps({"strata": {"fields": ["lang"], "queries": queries}}))
    from_file = compare_scores(BASE, strata=sidecar, group_by="lang", samples=40)
    assert from_file.stratum_labels == comparison.stratum_labels
    assert from_file.strata == comparison.strata == {"lang": {"1": "x", "2": "(none)", "3": "y"}}


def test_a_per_topic_mapping_is_read_as_the_sidecar_s_own_shape():
    per_topic = {"1": {"lang": "x"}, "2": {"lang": "x"}, "3": {"lang": "y", "other": "p"}}
    comparison = compare_scores(BASE, strata=per_topic, group_by="lang", samples=40)
    assert comparison.stratum_labels == ["all", "lang:macro", "lang=x", "lang=y"]
    _assert_means(comparison, {"a": 0.3, "b": 0.4}, "lang=x")  # topics 1 and 2
    _assert_means(comparison, {"a": 0.6, "b": 0.8}, "lang=y")
    # the field left out of a topic's mapping: no value, as in a sidecar
    other = compare_scores(BASE, strata=per_topic, group_by="other", samples=40)
    assert other.strata == {"other": {"1": "(none)", "2": "(none)", "3": "p"}}
    with pytest.raises(UsageError, match="keys are topics .*give group_by naming the field"):
        compare_scores(BASE, strata=per_topic, samples=40)


@pytest.mark.parametrize(
    ("strata", "group_by", "message"),
    [
        ({"1": "x", "2": "x", "3": "y"}, ["lang", "other"], "group_by names 2 fields"),
        ({"lang": {"1": "x"}}, "other", "group_by 'other': no such field in strata"),
        ({"1": "x", "2": {"lang": "x"}}, "lang", "not a mix of values and mappings"),
        ({"9": "x"}, "lang", "'lang' gives none of the topics compared a stratum"),
        ({"1": "x", "2": " ", "3": "y"}, "lang", "topic '2': blank group name ' '"),
        (None, "lang", "^group_by=.lang. needs strata "),
    ],
)
def test_strata_that_would_be_ignored_or_misread_are_refused(strata, group_by, message):
    with pytest.raises(UsageError, match=message):
        compare_scores(BASE, strata=strata, group_by=group_by, samples=40)


@pytest.mark.parametrize(
    ("strata", "message"),
    [
        # were read as '7', and topic 007 silently left out of lang=en
        ({7: "en", 10: "de", 11: "en"}, "^strata: its query ids are integers .*such as '007'"),
        ({7.0: "en", "10": "de", "11": "en"}, "^strata: topic 7.0: .*not a float"),  # '7.0'
        ({"lang": {"007": "en", 10: "de"}}, "^strata: topic 10: query id 10 is an integer, not"),
        ({True: "en"}, "^strata: topic True: a query id must be text or an integer, not a bool"),
    ],
)
def test_strata_keys_are_read_as_every_input_s_qids(strata, message):
    zeros = BASE.assign(qid=["007", "10", "11"] * 2)
    with pytest.raises(InputError, match=message):
        compare_scores(zeros, strata=strata, group_by="lang", samples=40)
    qrels = {"007": {"d": 1}, "10": {"d": 1}, "11": {"d": 1}}
    runs = {"a": {"007": {"d": 1.0}, "10": {"e": 1.0}, "11": {"d": 1.0}}}
    runs["b"] = {"007": {"e": 1.0}, "10": {"d": 1.0}, "11": {"d": 1.0}}
    with pytest.raises(InputError, match=message.replace("such as", "while the qrels has .*")):
        trecbench.compare(qrels, runs, ["P@1"], strata=strata, group_by="lang", samples=40)


def test_integer_strata_keys_are_written_in_decimal_and_refused_beside_ids_they_lost():
    comparison = compare_scores(BASE, strata={1: "x", 2: "x", 3: "y"}, group_by="lang", samples=40)
    assert comparison.strata == {"lang": {"1": "x", "2": "x", "3": "y"}}
    _assert_means(comparison, {"a": 0.3, "b": 0.4}, "lang=x")  # topics 1 and 2
    integers = BASE.assign(qid=[1, 2, 3] * 2)
    with pytest.raises(InputError, match="^per_query: .*while strata has query ids such as '01'"):
        compare_scores(integers, strata={"01": "x", "2": "y"}, group_by="lang", samples=40)


def test_compare_with_strata_given_as_a_table_records_no_strata_file(tmp_path):
    qrels = {"1": {"d": 1}, "2": {"d": 1}, "3": {"d": 1}}
    # P@1: a 1, 0, 1; b 0, 1, 1
    runs = {"a": {"1": {"d": 1.0}, "2": {"e": 1.0}, "3": {"d": 1.0}}}
    runs["b"] = {"1": {"e": 1.0}, "2": {"d": 1.0}, "3": {"d": 1.0}}
    sidecar = tmp_path / "s.sidecar.json"
    queries = {"1": {"lang": "x"}, "2": {"lang": "x"}, "3": {"lang": "y"}}
    sidecar.write_text(json.dumps({"strata": {"fields": ["lang"], "queries": queries}}))
    table = trecbench.load_strata(sidecar)
    comparison = trecbench.compare(qrels, runs, ["P@1"], strata=table, group_by="lang", samples=40)
    _assert_means(comparison, {"a": 0.5, "b": 0.5}, "lang=x")
    _assert_means(comparison, {"a": 0.75, "b": 0.75}, "lang:macro")  # (0.5 + 1) / 2
    assert [record["kind"] for record in comparison.inputs] == []  # in memory: no file
    assert comparison.report()["strata"] == {"lang": {"1": "x", "2": "x", "3": "y"}}
    validate_against_schema(comparison.report(), "benchmark_report")


def test_one_measure_given_by_two_spellings_is_refused():
    """P_5 and P@5 rows (one measure, from two tools) were compared as two measures and
    counted twice in the correction: Holm doubled the p of each, where compare refuses
    the two spellings asked. Names the registry does not know are measures of their own."""
    frame = pd.concat([BASE.assign(measure=name) for name in ("P_5", "P@5")])
    with pytest.raises(UsageError, match=r"^P_5 and P@5 are one measure \(P\.5\): compare"):
        compare_scores(frame, samples=40)
    frame = pd.concat([BASE.assign(measure=name) for name in ("mine", "P@5", "AP", "MAP")])
    with pytest.raises(UsageError, match=r"^AP and MAP are one measure \(map\)"):
        compare_scores(frame, samples=40)
    kept = pd.concat([BASE.assign(measure=name) for name in ("mine", "yours", "P@5", "P@10")])
    assert compare_scores(kept, samples=40).measures == ["mine", "yours", "P@5", "P@10"]


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_32_and_16_bit_values_are_read_as_the_decimals_they_print_as(dtype):
    """P@5 values in a float32 column, one more relevant document in the top 5 on every
    topic: read at double precision the gains (0.2 as 0.200000003 or 0.199999988) varied
    by float32's rounding, and the t-test gave p = 6e-139 and d_z 1.7e7, marked ▲***;
    their differences are equal, as the same values in float64 say (p n/a). float16's
    (0.2 as 0.199951171875) gave p = 1.5e-58 and d_z 983."""
    rng = np.random.default_rng(0)
    a = rng.integers(0, 5, 20) / 5
    values = np.concatenate([a, a + 0.2])
    frame = pd.DataFrame(
        {"run": ["a"] * 20 + ["b"] * 20, "qid": [f"q{i}" for i in range(20)] * 2,
         "measure": "P@5", "value": values.astype(dtype)}
    )  # fmt: skip
    # numpy's scalars in an object column (a list of them given) are read as the column
    items = frame.assign(value=pd.Series(list(values.astype(dtype)), dtype=object))
    assert isinstance(items["value"][0], dtype)
    for given in (frame, items):
        row = compare_scores(given, test="t", samples=40).comparisons.iloc[0]
        assert row["difference"] == 0.2 and np.isnan(row["p_value"]), row
        assert not row["significant"] and "do not vary" in row["p_undefined"]
    if dtype is np.float32:
        read = compare_scores(frame.assign(value=np.float32([1 / 3] * 40)), samples=40)
        assert set(read.per_query["value"]) == {0.33333334}  # float32's 1/3, as it prints
        return
    missing = frame.assign(value=pd.array([0.5, None] * 20, dtype="Float32"))
    with pytest.raises(UsageError, match="run 'a': P@5 is undefined for 'q1'"):
        compare_scores(missing.astype({"value": "float16"}), samples=40)


@pytest.mark.parametrize("hostile", ["a\nb", "x, y", "a\tb "])
def test_group_by_fields_refused_beside_one_stratum_are_listed_escaped(hostile):
    # the fields were joined as they are: a line feed split the refusal, a field "x, y"
    # read as two; each is a list's item, unquote gives it back
    from urllib.parse import unquote

    with pytest.raises(UsageError) as refused:
        compare_scores(BASE, strata={1: "x", 2: "y"}, group_by=[hostile, "g"], samples=40)
    message = str(refused.value)
    assert message.isprintable(), message
    named = message.split("group_by names 2 fields (")[1].split("), and a")[0]
    assert [unquote(field) for field in named.split(", ")] == [hostile, "g"]


def test_integer_topics_beside_a_strata_table_of_written_ids_are_refused(tmp_path):
    # topics 1, 2, 3 read from integers beside a sidecar's '001': topic 1 was in (none)
    # unsaid, where a mapping's '001' is refused
    integers = BASE.assign(qid=[1, 2, 3] * 2)
    table = pd.DataFrame({"qid": ["001", "2", "3"], "lang": ["x", "x", "y"]}, dtype="string")
    sidecar = tmp_path / "s.json"
    queries = {"001": {"lang": "x"}, "2": {"lang": "x"}, "3": {"lang": "y"}}
    sidecar.write_text(json.dumps({"strata": {"fields": ["lang"], "queries": queries}}))
    for strata in (table, sidecar, {"001": "x", "2": "x", "3": "y"}):
        with pytest.raises(InputError, match="strata has query ids such as '001' that no"):
            compare_scores(integers, strata=strata, group_by="lang", samples=40)
    written = table.assign(qid=["1", "2", "3"])  # ids as the integers print: taken
    assert compare_scores(integers, strata=written, group_by="lang", samples=40).strata == {
        "lang": {"1": "x", "2": "x", "3": "y"}
    }


def test_values_of_topics_queries_leaves_out_are_said_to_be_left_out():
    """Reviewer 677: compare_scores(queries=['1']) left topic 2's values out, warnings
    empty; compare itself passes the values of its topics alone: nothing to say there."""
    frame = pd.DataFrame(
        {"run": ["a", "a", "b", "b"], "qid": ["1", "2", "1", "2"], "measure": "P@5",
         "value": [0.2, 0.4, 0.4, 0.6]}
    )  # fmt: skip
    narrowed = compare_scores(frame, queries=["1"], samples=40)
    assert narrowed.queries == ["1"]
    assert narrowed.warnings == ["per_query's values of 1 topic not among queries are left out: 2"]
    assert compare_scores(frame, queries=["1", "2", "3"], samples=40).warnings == []
    assert compare_scores(frame, samples=40).warnings == []
