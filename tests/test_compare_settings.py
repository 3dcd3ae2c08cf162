"""compare's settings as typed values: StatsSettings and ScoringSettings given whole or
field by field (the documented keywords), the signatures that show those fields, and the
memorybench converter's Judging."""

from __future__ import annotations

import inspect
import json
import re

import numpy as np
import pandas as pd
import pytest
from conftest import ROOT

from trecbench.comparison import ScoringSettings, StatsSettings, compare, compare_scores
from trecbench.convert.memorybench import Judging, convert_memorybench
from trecbench.errors import UsageError

QRELS, RUNS = ROOT / "qrels" / "hpo-demo.qrels", ROOT / "runs"


def _frame() -> pd.DataFrame:
    values = {"a": [0.1, 0.4, 0.35, 0.8, 0.5], "b": [0.2, 0.3, 0.5, 0.9, 0.7]}
    rows = [(run, f"q{i}", "P@5", v) for run, vs in values.items() for i, v in enumerate(vs)]
    return pd.DataFrame(rows, columns=["run", "qid", "measure", "value"])


def test_statistics_whole_or_as_keywords_give_the_same_comparison():
    by_keywords = compare_scores(_frame(), test="bootstrap", samples=60, seed=4)
    whole = compare_scores(_frame(), statistics=StatsSettings("bootstrap", samples=60, seed=4))
    # a keyword replaces that field of the value given
    mixed = compare_scores(_frame(), statistics=StatsSettings("bootstrap", samples=60), seed=4)
    other = compare_scores(_frame(), statistics=StatsSettings("bootstrap", samples=60), seed=5)
    for result in (whole, mixed):
        pd.testing.assert_frame_equal(result.comparisons, by_keywords.comparisons)
        assert result.settings == by_keywords.settings
    assert other.settings["seed"] == 5 and mixed.settings["seed"] == 4


def test_a_keyword_neither_function_takes_is_a_type_error():
    with pytest.raises(TypeError, match=r"compare_scores\(\) got an unexpected keyword .*'tset'"):
        compare_scores(_frame(), tset="t")
    with pytest.raises(TypeError, match=r"compare\(\) got an unexpected keyword .*'level'"):
        compare(QRELS, [RUNS / "tfidf-char.run", RUNS / "tfidf-word.run"], level=2)


def test_a_settings_field_given_as_keyword_is_validated_as_the_value_is():
    with pytest.raises(UsageError, match="samples must be a positive integer"):
        compare_scores(_frame(), statistics=StatsSettings(), samples=0)
    with pytest.raises(UsageError, match="unjudged threshold must be between 0 and 1"):
        ScoringSettings(unjudged_threshold=1.5)
    with pytest.raises(UsageError, match="unjudged threshold must be between 0 and 1"):
        ScoringSettings(unjudged_threshold=True)  # a number to Python, not a share


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("allow_unjudged", "no", "allow_unjudged must be True or False, not 'no'"),
        ("judged_only", "False", "judged_only must be True or False, not 'False'"),
        ("relevance_level", "1", "relevance_level must be a whole number, not '1'"),
        ("relevance_level", 0, "relevance_level=0: levels below 1 are not supported"),
        ("max_docs", 2.5, "max_docs must be a whole number, not 2.5"),
        ("tie_bounds", 1, "tie_bounds must be True or False, not 1"),
        ("jobs", 0, "jobs must be a whole number from 1, not 0"),
    ],
)
def test_scoring_settings_refuse_a_bad_field_at_construction(field, value, message):
    # only the threshold and the options were checked: allow_unjudged="no" was truthy and
    # compared the runs it should refuse, recording allow_unjudged: true
    import dataclasses

    for build in (lambda: ScoringSettings(**{field: value}),
                  lambda: dataclasses.replace(ScoringSettings(), **{field: value})):  # fmt: skip
        with pytest.raises(UsageError, match="^" + re.escape(message)):
            build()
    assert ScoringSettings(jobs=np.int64(2)).jobs.__class__ is int  # numpy's taken as Python's


def test_a_correction_given_with_a_family_wise_test_is_refused_by_the_library_too():
    # the CLI refused --correction with --test tukey; the library took it: agree recorded
    # "correction": "none", compare adjusted its Welch view with it
    import trecbench
    from trecbench.conclusions.discrimination import DiscriminationSettings

    refused = r"^test tukey is family-wise over all pairs: .* leave the correction out$"
    runs = [RUNS / "tfidf-char.run", RUNS / "tfidf-word.run"]
    for call in (
        lambda: StatsSettings("tukey", "holm"),
        lambda: compare_scores(_frame(), test="tukey", correction="none", samples=60),
        lambda: compare_scores(_frame(), statistics=StatsSettings(correction="bh"), test="tukey"),
        lambda: DiscriminationSettings(test="tukey", correction="bonferroni"),
        lambda: trecbench.agree(QRELS, runs, "P@5", test="tukey", correction="holm"),
        lambda: trecbench.compare(QRELS, runs, "P@5", test="tukey", correction="holm"),
    ):
        with pytest.raises(UsageError, match=refused):
            call()
    # left unset: Holm where a correction applies (the Welch view's, for Tukey HSD)
    default = compare_scores(_frame(), statistics=StatsSettings(), test="tukey", samples=60)
    assert (default.settings["correction"], default.settings["names"]["correction"]) == (
        "holm",
        "family-wise",
    )
    assert DiscriminationSettings(test="tukey").record()["correction"] == "none"
    assert DiscriminationSettings().record()["correction"] == "holm"


def test_signatures_show_every_settings_field_with_its_default():
    for function, kinds in ((compare, (StatsSettings, ScoringSettings)),
                            (compare_scores, (StatsSettings,))):  # fmt: skip
        parameters = inspect.signature(function).parameters
        for kind in kinds:
            for name, value in vars(kind()).items():
                default = parameters[name].default
                assert default == (None if name == "options" else value), (function, name)


def test_scoring_settings_reach_the_evaluation_and_the_report():
    runs = [RUNS / "tfidf-char.run", RUNS / "tfidf-word.run"]
    scoring = ScoringSettings(max_docs=3, judged_only=True, tie_bounds=False)
    result = compare(QRELS, runs, ["P@5"], samples=40, scoring=scoring)
    assert result.evaluation == {  # -c: --missing zero counts absent topics as -c does
        "relevance_level": 1, "complete": True, "max_docs": 3, "judged_only": True,
        "num_docs": None, "float32": True, "engine": "auto", "compat": "9.0.8",
        "rel_format": "qrels", "zscores": None, "debug_level": 0, "debug_query": None,
        "maxontsim_formula": None, "ontology": None,
    }  # fmt: skip
    # -M 3 caps P@5 at 3/5, as trecbench.evaluate computes it
    from trecbench import evaluate

    means = evaluate(QRELS, runs, ["P@5"], max_docs=3, judged_only=True).aggregates
    summary = result.part(result.summary, "all").set_index("run")["mean"]
    for run, mean in zip(["tfidf-char", "tfidf-word"], means["value"], strict=True):
        assert summary[run] == pytest.approx(mean, abs=1e-12)
    assert summary.max() <= 0.6 and result.settings["tie_bounds"] is False


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"relevance": "best"}, "unknown relevance strategy 'best'"),
        ({"f1_threshold": 1.5}, "the F1 threshold must be a number between 0 and 1"),
        ({"iou": float("nan")}, "the IoU threshold must be a number between 0 and 1"),
    ],
)
def test_memorybench_judging_is_checked_when_built(settings, message):
    with pytest.raises(UsageError, match=message):
        Judging(**settings)
    with pytest.raises(UsageError, match=message):  # before the input is read
        convert_memorybench(ROOT / "absent.json", **settings)


def test_memorybench_judging_is_recorded_as_given():
    # auto: both thresholds (each strategy's alone is refused with the other's threshold)
    judging = Judging("auto", {"chonkie": -1}, 0.5, 0.25)
    assert judging.offset("chonkie") == -1 and judging.offset("other") == 0
    conversion = convert_memorybench(
        ROOT / "data" / "convert" / "memorybench-export.json",
        relevance="auto", line_offsets={"chonkie": -1}, iou=0.5, f1_threshold=0.25,
    )  # fmt: skip
    assert conversion.provenance["options"] == judging.record() == {
        "relevance": "auto", "f1_threshold": 0.25, "line_offsets": {"chonkie": -1},
        "iou": 0.5,
    }  # fmt: skip


@pytest.mark.parametrize(
    ("confidence", "shown", "rounded"),
    [(0.995, "99.5%", "100%"), (0.975, "97.5%", "98%"), (0.001, "0.1%", "0%")],
)
def test_the_confidence_level_is_shown_as_given_in_every_format(confidence, shown, rounded):
    from trecbench.comparison.result import html_available
    from trecbench.renderers.routing import render_routing
    from trecbench.routing import parse_routing_log, routing_metrics

    result = compare_scores(_frame(), confidence=confidence, samples=2_000)
    texts = {fmt: result.render(fmt) for fmt in ("table", "markdown", "latex", "csv")}
    texts["BenchmarkComparison.md"] = result.markdown()
    if html_available():
        texts["report.html"] = result.to_html(0)
    for fmt, text in texts.items():
        assert f"{rounded} CI" not in text and f"{rounded} bootstrap" not in text, fmt
    for fmt in ("table", "markdown", "BenchmarkComparison.md", "report.html"):
        if fmt in texts:
            assert f"Means with {shown} bootstrap percentile intervals" in texts[fmt], fmt
            assert f"[a, b] = {shown} confidence interval" in texts[fmt], fmt
    for fmt in ("table", "markdown"):
        assert f"normal-approximation {shown} CI" in texts[fmt]
    assert f"mean  {shown} CI" in texts["table"]
    assert f"Difference [{shown} CI]" in texts["markdown"]
    record = {"qid": "q", "chosen_expert": "a", "optimal_expert": "a"}
    record |= {"retrieval_ran": True, "should_retrieve": True}
    metrics = routing_metrics(parse_routing_log(json.dumps(record)), confidence=confidence)
    assert f"Value [{shown} CI]" in render_routing(metrics)


def test_a_refusal_of_too_few_resamples_names_the_level_as_given():
    with pytest.raises(UsageError, match=r"too few for a 99\.99999% percentile interval"):
        StatsSettings(confidence=0.9999999)


def test_numpy_numbers_in_stats_settings_are_held_as_pythons_and_written(tmp_path):
    # StatsSettings kept np.float32(0.9) as given: write() failed on the JSON report with
    # "Object of type float32 is not JSON serializable", after the whole analysis
    settings = StatsSettings(samples=np.int64(60), seed=np.uint8(4), confidence=np.float32(0.9))
    assert [type(settings.samples), type(settings.seed), type(settings.confidence)] == [
        int,
        int,
        float,
    ]
    comparison = compare_scores(_frame(), statistics=settings)
    comparison.write(tmp_path / "out")
    report = json.loads((tmp_path / "out" / "BenchmarkReport.json").read_text())
    # as the decimal it prints as: float(np.float32(0.9)) made 89.99999761581421% intervals
    assert settings.confidence == 0.9
    assert report["settings"]["confidence"] == 0.9
    assert "[a, b] = 90% confidence interval" in comparison.render("table")


@pytest.mark.parametrize(
    ("group_by", "message"),
    [
        (5, "group_by: a field's name is text (a str), not an int (5)"),
        (["language", 5], "group_by: a field's name is text (a str), not an int (5)"),
        (b"language", "group_by: a field's name is text (a str), not bytes (b'language')"),
        (["language", None], "group_by: a field's name is text (a str), not None"),
        ("", "group_by='': a field's name is text, not blank"),
    ],
)
def test_a_group_by_of_no_field_name_is_refused_in_one_line(tmp_path, group_by, message):
    # 5 raised "'int' object is not iterable", ["language", 5] "sequence item 1: expected
    # str instance"; "" grouped by a field named '', its sections ':macro' and '=de'. Then
    # 5 was refused as "give a list of fields" (one field's name is taken too), and a name
    # that is no text as "not blank"; check_outputs' plots raised "'int' object is not
    # iterable" for 5
    from trecbench.comparison import check_outputs

    strata = {f"q{i}": "en" if i % 2 else "de" for i in range(5)}
    for call in (
        lambda: compare_scores(_frame(), samples=60, strata=strata, group_by=group_by),
        lambda: compare(QRELS, [RUNS / "tfidf-char.run"], ["P@5"], group_by=group_by),
        lambda: check_outputs(tmp_path / "out", plots=True, group_by=group_by),
    ):
        with pytest.raises(UsageError, match="^" + re.escape(message) + "$"):
            call()
