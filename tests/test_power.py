"""trecbench power: every figure against statsmodels' TTestPower (the noncentral t of the
paired two-sided t-test) and scipy's ttest_rel on seeded random cases, within 1e-9: each
power, and the detectable effect and topics needed as the points where its power meets the
target (its own solver, which stops at its tolerance, within 1e-4)."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from conftest import ROOT, shown_rows

import trecbench
from trecbench.cli import cli
from trecbench.conclusions.power import (
    MAX_TOPICS,
    PowerSettings,
    achieved_power,
    detectable_effect,
    power_row,
    topics_for_power,
)
from trecbench.errors import UsageError

TTestPower = pytest.importorskip("statsmodels.stats.power").TTestPower
QRELS = str(ROOT / "qrels/hpo-demo.qrels")
RUNS = {
    name: str(ROOT / f"runs/{name}.run")
    for name in ("tfidf-word", "tfidf-char", "tfidf-word-parents")
}


def _cases(count: int, seed: int = 29):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        alpha = float(rng.choice([0.01, 0.05, 0.1]))
        yield (
            int(rng.integers(2, 400)),
            float(rng.normal(0, 0.6)),
            alpha,
            float(rng.uniform(alpha + 0.05, 0.99)),
        )


def _reference(effect, n, alpha):
    """statsmodels' power at -|effect| (the power is symmetric in the effect): at large
    positive effects its far tail underflows to NaN (scipy's nctdtr), at negative ones not."""
    found = TTestPower().power(-abs(effect), nobs=n, alpha=alpha, alternative="two-sided")
    assert np.isfinite(found)
    return found


@pytest.mark.parametrize("case", list(_cases(40)))
def test_power_and_its_inverses_equal_statsmodels(case):
    n, effect, alpha, target = case
    assert achieved_power(n, effect, alpha) == pytest.approx(_reference(effect, n, alpha), abs=1e-9)
    # the detectable effect at n is where statsmodels' power reaches the target
    smallest = detectable_effect(n, alpha, target)
    assert smallest > 0
    assert _reference(smallest, n, alpha) == pytest.approx(target, abs=1e-9)
    solved = TTestPower().solve_power(None, nobs=n, alpha=alpha, power=target)
    # statsmodels stops at its own tolerance, and may give the negative root
    assert smallest == pytest.approx(abs(float(np.squeeze(solved))), rel=1e-4)
    if abs(effect) < 0.05:
        return
    exact = topics_for_power(effect, alpha, target)
    if exact > 2:
        assert _reference(effect, exact, alpha) == pytest.approx(target, abs=1e-9)
        solved = TTestPower().solve_power(abs(effect), nobs=None, alpha=alpha, power=target)
        assert exact == pytest.approx(float(np.squeeze(solved)), rel=1e-4)
    needed = math.ceil(exact)  # the smallest whole number of topics reaching the target
    assert _reference(effect, needed, alpha) >= target - 1e-12
    if needed > 2:
        assert _reference(effect, needed - 1, alpha) < target


@pytest.mark.parametrize("effect", [1e-4, 1.0288065680281528e-4, 8.9e-5])
def test_topics_needed_up_to_the_most_searched_are_found(effect):
    # the search doubled its bound to 2^30 and, past MAX_TOPICS, said "more than 10^9"
    # of a root between 2^29 and 10^9 (d_z 1e-4: 7.85e8 topics; reviewer 663)
    exact = topics_for_power(effect, 0.05, 0.8)
    solved = TTestPower().solve_power(effect, nobs=None, alpha=0.05, power=0.8)
    assert 2**29 < exact < MAX_TOPICS
    assert exact == pytest.approx(float(np.squeeze(solved)), rel=1e-6)
    assert topics_for_power(8.8e-5, 0.05, 0.8) is None  # 1.01e9: past the most searched


def test_the_power_is_symmetric_in_the_effect():
    for n, effect, alpha, _ in _cases(10, seed=3):
        upwards = TTestPower().power(abs(effect), nobs=n, alpha=alpha)
        if np.isfinite(upwards):
            assert achieved_power(n, abs(effect), alpha) == pytest.approx(upwards, abs=1e-9)


def test_huge_effects_have_power_one_and_need_two_topics():
    # scipy's noncentral t gives NaN for the far tail here; statsmodels' value is 1
    assert achieved_power(100, -2.0, 0.05) == pytest.approx(1.0, abs=1e-12)
    assert topics_for_power(50.0, 0.05, 0.8) == 2.0


def test_effects_beyond_scipys_noncentral_t_have_power_one_or_a_reason(tmp_path):
    # RBP(p=0.5): a run with the relevant document first, a baseline with it at ranks 40
    # to 43, differences 0.5 - 2^-40...: d_z 1.4e12, past Boost's noncentral t (NaN near
    # nc 1e10), and power and compare --power ended in an internal error (brentq's NaN)
    qrels, top, deep = tmp_path / "q", tmp_path / "top.run", tmp_path / "deep.run"
    qrels.write_text("".join(f"t{t} 0 rel 1\n" for t in range(4)))
    top.write_text("".join(f"t{t} Q0 rel 1 100 top\n" for t in range(4)))
    deep.write_text(
        "".join(
            f"t{t} Q0 {'rel' if i == 39 + t else f'n{i}'} {i + 1} {100 - i} deep\n"
            for t in range(4)
            for i in range(40 + t)
        )
    )
    args = ["power", str(qrels), str(deep), str(top), "-m", "RBP(p=0.5)", "--format", "json"]
    done = CliRunner().invoke(cli, args)
    assert done.exit_code == 0, done.output
    [row] = json.loads(done.stdout)["rows"]
    assert row["effect_size"] > 1e12
    assert (row["power"], row["topics_needed"]) == (1.0, 2)
    # four topics: no scipy failure to report, only that compare marks nothing on them
    assert row["reason"].startswith("the power on 4 topics and the topics needed (2) are ")
    # statsmodels' power where scipy still gives one: 1 there too
    assert _reference(1e9 / math.sqrt(4), 4, 0.05) == 1.0
    # the bound that makes it 1 needs nc >= 20 critical values: at alpha 1e-12 on two
    # topics (df 1) the critical value is 6.4e11, and there is no figure, with the reason
    settings = PowerSettings(alpha=1e-12)
    differences = 0.5 - np.exp2(-np.arange(40.0, 44.0))
    row = power_row(differences, settings, "top", "deep", "RBP(p=0.5)")
    assert (row.power, row.mde, row.topics_needed) == (None, None, None)
    assert row.reason.startswith("scipy's noncentral t gives no number at noncentrality ")


@pytest.mark.parametrize("seed", range(8))
def test_row_from_differences_equals_ttest_rel_and_statsmodels(seed):
    from scipy.stats import ttest_rel

    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 120))
    base, run = rng.random(n), rng.random(n) + rng.normal(0, 0.1)
    settings = PowerSettings(alpha=0.05, target=0.8)
    row = power_row(run - base, settings, "run", "base", "m")
    effect = ttest_rel(run, base).statistic / math.sqrt(n)  # t = d_z * sqrt(n)
    assert row.n_topics == n
    assert row.effect_size == pytest.approx(effect, abs=1e-12)
    assert row.power == pytest.approx(_reference(effect, n, 0.05), abs=1e-9)
    sd = np.std(run - base, ddof=1)
    assert _reference(row.mde / sd, n, 0.05) == pytest.approx(0.8, abs=1e-9)
    solved = float(np.squeeze(TTestPower().solve_power(abs(effect), None, 0.05, 0.8)))
    assert row.topics_needed == max(2, math.ceil(solved))
    assert row.reason is None


def test_tiny_differences_have_the_figures_of_the_same_differences_at_unit_size():
    # RBP(p=0.001)'s values deep in a ranking (1e-300): the sd of such differences
    # underflowed to 0 and the row failed (ZeroDivisionError, an internal error)
    differences = np.array([-1.0, -2.0, -3.0, 0.5])
    settings = PowerSettings()
    row = power_row(differences, settings, "run", "base", "m")
    tiny = power_row(differences * 1e-300, settings, "run", "base", "m", 1e-300)
    assert tiny.effect_size == pytest.approx(row.effect_size, rel=1e-12)
    assert tiny.power == pytest.approx(row.power, rel=1e-9)
    assert tiny.sd / 1e-300 == pytest.approx(row.sd, rel=1e-12)
    assert tiny.topics_needed == row.topics_needed
    assert tiny.reason == row.reason  # four topics: under compare's sign-flip floor


def test_undefined_figures_are_none_with_a_reason():
    settings = PowerSettings()
    one = power_row(np.array([0.3]), settings, "r", "b", "m")
    assert (one.effect_size, one.power, one.mde, one.topics_needed) == (None, None, None, None)
    assert "needs 2" in one.reason
    for differences, why in [
        (np.zeros(5), "equal on every topic"),
        (np.full(5, 0.1), "the same difference"),
    ]:
        row = power_row(differences, settings, "r", "b", "m")
        assert (row.sd, row.effect_size, row.power, row.mde) == (0.0, None, None, None)
        assert why in row.reason
    balanced = power_row(np.array([0.1, -0.1, 0.2, -0.2]), settings, "r", "b", "m")
    assert balanced.effect_size == 0.0
    assert balanced.power == pytest.approx(0.05, abs=1e-12)  # power at no effect: alpha
    assert balanced.mde > 0
    assert balanced.topics_needed is None
    assert "no number of topics" in balanced.reason


@pytest.mark.filterwarnings("ignore::trecbench.errors.ProviderWarning")  # AP_IA, no subtopics
def test_an_mde_beyond_the_measures_range_is_no_figure(tmp_path):
    # two topics, differences 0 and 1: the MDE is 8.17 (statsmodels), more than any
    # difference of nDCG@10 (values in [0, 1]); it was printed as a figure
    qrels, base, new = tmp_path / "q", tmp_path / "base.run", tmp_path / "new.run"
    qrels.write_text("q1 0 d1 1\nq2 0 d1 1\n")
    base.write_text("q1 Q0 d1 1 2 b\nq1 Q0 d2 2 1 b\nq2 Q0 d2 1 2 b\n")
    new.write_text("q1 Q0 d1 1 2 n\nq2 Q0 d1 1 2 n\n")
    args = ["power", str(qrels), str(base), str(new), "-m", "nDCG@10", "-m", "num_rel_ret"]
    # every family in [0, 1] (ndcg, infAP and Rprec_mult printed theirs after the fix for
    # nDCG@10 alone), and ndcg with gains of one's own is not bounded
    args += ["-m", "ndcg", "-m", "infAP", "-m", "Rprec_mult.1"]
    # and shares and averages of shares that were not known bounded (Compat printed 8.17)
    args += ["-m", "Compat", "-m", "AP_IA"]
    done = CliRunner().invoke(cli, [*args, "--format", "json"])
    assert done.exit_code == 0, done.output
    bounded, count, *others = json.loads(done.stdout)["rows"]
    assert [row["mde"] for row in others] == [None] * 5, others
    from trecbench.measures import span

    assert (span("ndcg"), span("ndcg.1=-5,2=1")) == (1.0, None)
    delta = float(np.squeeze(TTestPower().solve_power(None, 2, 0.05, 0.8)))
    assert delta * math.sqrt(0.5) > 1  # the MDE statsmodels gives, sd = sqrt(1/2)
    assert bounded["mde"] is None and bounded["power"] is not None
    assert bounded["reason"].startswith(f"the MDE ({delta * math.sqrt(0.5):.4g}) exceeds 1, ")
    assert count["mde"] == pytest.approx(delta * math.sqrt(0.5), rel=1e-6)  # a count: no bound
    # a count has no bound: only the flag of two topics, under compare's sign-flip floor
    assert count["reason"].startswith("the power on 2 topics ")


def _assert_no_mde_beyond_one(tmp_path, bounded: list[str]) -> None:
    """On two topics whose differences are 0 and the measure's value for one document of
    grade 4 at rank 1 (the MDE is 8.17 sd, statsmodels), each measure of ``bounded`` is
    stated in [0, 1] and power gives its MDE as no figure, with the reason."""
    qrels, base, new = tmp_path / "q", tmp_path / "base.run", tmp_path / "new.run"
    qrels.write_text("q1 0 d1 4\nq2 0 d1 4\n")
    base.write_text("q1 Q0 d1 1 2 b\nq2 Q0 d2 1 2 b\n")
    new.write_text("q1 Q0 d1 1 2 n\nq2 Q0 d1 1 2 n\n")
    args = ["power", str(qrels), str(base), str(new), "--format", "json"]
    done = CliRunner().invoke(cli, [*args, *(f"-m{name}" for name in bounded)])
    assert done.exit_code == 0, done.output
    rows = json.loads(done.stdout)["rows"]
    assert [row["mde"] for row in rows] == [None] * len(bounded), rows
    assert all(" exceeds 1, the largest difference " in row["reason"] for row in rows)
    from trecbench.measures import span

    assert {span(name) for name in bounded} == {1.0}


def test_err_q_sdcg_and_rbp_lie_in_zero_one_and_say_so(tmp_path):
    # ERR is a probability, nERR ERR over its ideal's, Q's terms are at most 1, SDCG and
    # RBP weigh gains scaled to [0, 1]: their span was not stated, and power printed
    # nERR@10's MDE of 8.17 (statsmodels), which no difference of it can reach
    bounded = ["ERR@10", "nERR@10", "Q", "Q(beta=1000)", "SDCG@10", "SDCG(max_rel=1)@10"]
    bounded += ["RBP", "RBP(rel=1)", "RBP(p=0.01,max_rel=2)"]
    _assert_no_mde_beyond_one(tmp_path, bounded)


def test_cwl_eval_measures_lie_in_zero_one_and_say_so(tmp_path):
    # NERR8-11, INST, INSQ and BPM: cwl_eval's weights sum to 1 over gains in [0, 1]
    # (tests/test_cwl_spans.py checks ir_measures' values); their span was not stated,
    # and power printed INST's MDE of 4.97 and NERR8@10's of 8.17 as figures
    pytest.importorskip("cwl")
    bounded = ["NERR8@10", "NERR9@10", "NERR10", "NERR10(p=0.5)", "NERR11", "INST"]
    bounded += ["INST(T=0.3)", "INSQ", "INSQ(T=0.5)", "BPM@10", "BPM(T=2.0,min_rel=-2)@5"]
    _assert_no_mde_beyond_one(tmp_path, bounded)


@pytest.mark.parametrize(("alpha", "target"), [(0.05, 0.05), (0.05, 0.01), (0, 0.8), (0.05, 1)])
def test_settings_are_checked(alpha, target):
    with pytest.raises(UsageError):
        PowerSettings(alpha, target)


def test_a_target_power_at_alpha_names_alpha_as_its_bound():
    """Reviewer 208: "must be between 0.05 and 1, not 0.05" beside --help's 0<x<1."""
    with pytest.raises(UsageError, match=r"must be above alpha \(0.05\) and below 1, not 0.05"):
        PowerSettings(0.05, 0.05)
    # alpha printed to 6 digits said "above alpha (0.8) ... not 0.8", and (1) for 0.999999999
    with pytest.raises(UsageError, match=r"above alpha \(0.8000001\) and below 1, not 0.8$"):
        PowerSettings(0.8000001, 0.8)
    with pytest.raises(UsageError, match=r"above alpha \(0.999999999\) and below 1, not 0.8$"):
        PowerSettings(0.999999999, 0.8)


def test_api_uses_evaluate_per_topic_values():
    result = trecbench.power(
        QRELS,
        RUNS["tfidf-word"],
        [RUNS["tfidf-char"], RUNS["tfidf-word-parents"]],
        ["nDCG@10", "Recall@100"],
        alpha=0.01,
        target_power=0.9,
    )
    frame = trecbench.evaluate(QRELS, list(RUNS.values()), ["nDCG@10", "Recall@100"]).per_query
    topics = trecbench.read_qrels(QRELS)["qid"].unique()
    values = frame.pivot_table(index="qid", columns=["run", "measure"], values="value")
    values = values.reindex(topics).fillna(0.0)  # trec_eval -c: no result scores 0
    assert result.baseline == "tfidf-word"
    assert [(r.run, r.measure) for r in result.rows] == [
        ("tfidf-char", "nDCG@10"),
        ("tfidf-char", "Recall@100"),
        ("tfidf-word-parents", "nDCG@10"),
        ("tfidf-word-parents", "Recall@100"),
    ]
    for row in result.rows:
        diff = (values[(row.run, row.measure)] - values[("tfidf-word", row.measure)]).to_numpy()
        effect = diff.mean() / diff.std(ddof=1)
        assert row.n_topics == len(topics) == 56
        assert row.effect_size == pytest.approx(effect, abs=1e-12)
        assert row.power == pytest.approx(_reference(effect, 56, 0.01), abs=1e-9)


def test_cli_json_carries_the_named_keys():
    runs = [RUNS["tfidf-word"], RUNS["tfidf-char"]]
    argv = ["power", QRELS, *runs, *"-m nDCG@10 --format json --alpha 0.01 --power 0.9".split()]
    done = CliRunner().invoke(cli, argv)
    assert done.exit_code == 0, done.output
    document = json.loads(done.output)
    assert document["settings"] == {"alpha": 0.01, "target": 0.9}
    (row,) = document["rows"]
    assert {"n_topics", "effect_size", "power", "mde", "topics_needed"} <= set(row)
    assert row["topics_needed"] == math.ceil(
        float(np.squeeze(TTestPower().solve_power(row["effect_size"], None, 0.01, 0.9)))
    )


@pytest.mark.parametrize("fmt", ["table", "markdown", "latex"])
def test_printed_figures_are_statsmodels_under_their_own_headers(fmt):
    """The table, Markdown and LaTeX read back cell by cell against statsmodels on
    trec_eval's per-topic values (pytrec_eval): only the JSON was held against them, and
    a renderer giving the power under MDE's header went unseen."""
    from scipy.stats import ttest_rel
    from test_new_command_numbers import _per_topic, _read

    alpha, target, labels = 0.1, 0.9, {"nDCG@10": "ndcg_cut_10", "P@5": "P_5"}
    names = ["tfidf-word", "tfidf-char", "tfidf-word-parents"]
    argv = ["power", QRELS, *(RUNS[name] for name in names), "-m", "nDCG@10", "-m", "P@5"]
    argv += ["--alpha", str(alpha), "--power", str(target), "--format", fmt]
    done = CliRunner().invoke(cli, argv)
    assert done.exit_code == 0, done.output
    qrels = _read(QRELS, "qrels")
    values = {}
    for name in names:
        for measure, label in labels.items():
            found = _per_topic(qrels, _read(RUNS[name], "run"), label)
            values[name, measure] = np.array([found.get(q, 0.0) for q in qrels])  # -c: 0
    rows = shown_rows(done.stdout, "run", fmt)
    assert [(row["run"], row["measure"]) for row in rows] == [
        (name, measure) for name in names[1:] for measure in labels
    ]
    for row in rows:
        run_values, base = values[row["run"], row["measure"]], values["tfidf-word", row["measure"]]
        n, differences = len(base), run_values - base
        effect = ttest_rel(run_values, base).statistic / math.sqrt(n)
        delta = abs(float(np.squeeze(TTestPower().solve_power(None, n, alpha, target))))
        needed = float(np.squeeze(TTestPower().solve_power(abs(effect), None, alpha, target)))
        assert row["topics"] == str(n) == "56"
        assert float(row["difference"]) == pytest.approx(differences.mean(), abs=5e-5)
        assert float(row["$d_z$" if fmt == "latex" else "d_z"]) == pytest.approx(effect, abs=5e-5)
        assert float(row["power"]) == pytest.approx(_reference(effect, n, alpha), abs=5e-5)
        # statsmodels stops at its own tolerance (rel 1e-4 on the effect size)
        mde = delta * np.std(differences, ddof=1)
        assert float(row["MDE"]) == pytest.approx(mde, abs=5e-5 + 1e-4 * mde)
        assert int(row["topics needed"]) == max(2, math.ceil(needed))


def test_cli_formats_and_bad_settings():
    from trecbench.cli import conclusion_options
    from trecbench.conclusions import render

    assert conclusion_options.FORMATS == render.FORMATS
    base = [
        "power",
        QRELS,
        RUNS["tfidf-word"],
        RUNS["tfidf-word"].replace("word", "char"),
        "-m",
        "P@5",
    ]
    for fmt in ("table", "markdown", "latex"):
        done = CliRunner().invoke(cli, [*base, "--format", fmt])
        assert done.exit_code == 0 and "tfidf-char" in done.output, done.output
    done = CliRunner().invoke(cli, [*base, "--alpha", "0.5", "--power", "0.4"])
    assert done.exit_code == 1
    with pytest.raises(UsageError, match="num_q: no value per topic"):
        trecbench.power(QRELS, RUNS["tfidf-word"], RUNS["tfidf-char"], ["P@5", "num_q"])


def test_relstring_is_refused_for_its_text_not_as_a_summary(capsys):
    # trec_eval 9.0.8 -q prints a relstring per topic and none under 'all': it was
    # refused as "no value per topic (a summary over topics)", the other way round
    from trecbench.cli import run
    from trecbench.measures import registry

    reason = registry.get("relstring").no_topic_number
    assert reason == (
        "no number per topic (its value per topic is text: the grades of the top documents "
        "as a string)"
    )
    runs = [RUNS["tfidf-word"], RUNS["tfidf-char"]]
    for command in ("power", "agree", "compare"):
        assert run([command, QRELS, *runs, "-m", "P@5", "-m", "relstring.5"]) == 1
        said = capsys.readouterr().err
        # named as asked (refused before scoring, as benchmark and leaderboard refuse it)
        assert f"relstring.5: {reason}, which " in said and "summary" not in said, said
    assert run(["compare", QRELS, *runs, "-m", "relstring.5", "-m", "gm_map"]) == 1
    said = capsys.readouterr().err  # each reason for its own measures, in the order asked
    assert f"relstring.5: {reason}; gm_map: no value per topic (a summary over topics)" in said


def test_a_run_without_results_for_a_topic_scores_zero_on_it(tmp_path):
    lines = (ROOT / "runs/tfidf-char.run").read_text(encoding="utf-8").splitlines(keepends=True)
    partial = tmp_path / "english.run"
    partial.write_text("".join(line for line in lines if line.startswith("en-")), encoding="utf-8")
    result = trecbench.power(QRELS, RUNS["tfidf-word"], str(partial), ["nDCG@10"])
    per_query = trecbench.evaluate(QRELS, [RUNS["tfidf-word"], str(partial)], ["nDCG@10"]).per_query
    base = per_query[per_query["run"] == "tfidf-word"].set_index("qid")["value"]
    run = per_query[per_query["run"] == "english"].set_index("qid")["value"]
    differences = (run.reindex(base.index).fillna(0.0) - base).to_numpy()
    assert len(run) < len(base) == 56
    (row,) = result.rows
    assert row.n_topics == 56
    assert row.mean_difference == pytest.approx(differences.mean(), abs=1e-12)
    assert row.effect_size == pytest.approx(differences.mean() / differences.std(ddof=1), abs=1e-12)


def test_renderers_escape_names_and_show_undefined_figures():
    from trecbench.conclusions.power import PowerResult
    from trecbench.conclusions.render import grid

    settings = PowerSettings()
    rows = (
        power_row(np.array([0.1, 0.3, 0.2]), settings, "bm25_a|b&c", "base", "P@5"),
        power_row(np.zeros(3), settings, "same", "base", "P@5"),
    )
    result = PowerResult(settings, "base", rows)
    assert "bm25\\_a\\textbar{}b\\&c" in result.render("latex")
    assert "| bm25\\_a%7Cb\\&c |" in result.render("markdown")  # as score escapes a name
    table = result.render("table")
    assert "same, P@5: equal on every topic (sd 0)" in table
    assert json.loads(result.render("json"))["rows"][1]["power"] is None
    assert grid(("a", "n"), [["x", "1"], ["yy", "10"]], "table") == "a    n\nx    1\nyy  10\n"


def test_markdown_gives_each_reason_as_a_list_item():
    # the reasons were lines one under the other: Markdown joined them into one paragraph
    from trecbench.conclusions.power import PowerResult

    settings = PowerSettings()
    rows = (
        power_row(np.array([0.1, 0.9]), settings, "x_1", "base", "P@5"),
        power_row(np.zeros(3), settings, "same", "base", "P@5"),
        power_row(np.zeros(3), settings, "1.", "base", "P@5"),
    )
    text = PowerResult(settings, "base", rows).render("markdown")
    notes = text.split(" |\n\n")[-1].splitlines()
    assert [line.split(": ")[0] for line in notes] == ["- x\\_1, P@5", "- same, P@5", "- 1\\., P@5"]
    markdown = pytest.importorskip("markdown")
    html = markdown.markdown(text, extensions=["tables"])
    items = html.split("<ul>\n")[1].split("\n</ul>")[0].splitlines()
    assert [item.split(": ")[0] for item in items] == [
        "<li>x_1, P@5",
        "<li>same, P@5",
        "<li>1., P@5",
    ]
    assert all(item.endswith("</li>") for item in items)


def test_latex_gives_the_reason_of_every_undefined_figure_as_a_comment(tmp_path):
    """power's LaTeX (compare --power's too) showed '--' with no reason."""
    from trecbench.conclusions.power import PowerResult, with_power

    settings = PowerSettings()
    rows = (
        power_row(np.array([0.1, 0.9]), settings, "x_1", "base", "P@5"),
        power_row(np.zeros(3), settings, "same", "base", "P@5"),
    )
    latex = PowerResult(settings, "base", rows).render("latex")
    after = latex.split("\\end{tabular}\n")[1]
    assert after.startswith("\n% x_1, P@5: the MDE (")  # a comment: its _ is no LaTeX
    assert after.endswith(
        "can show: no difference is detectable at power 0.8 with 2 topics; the power on 2 "
        "topics is the t-test's alone: compare and agree mark nothing significant on fewer "
        "than 6 topics at alpha 0.05 (the exact sign-flip test's smallest p, 2/2^n, is not "
        "below it)\n"
        "% same, P@5: equal on every topic (sd 0): the effect size is undefined\n"
    )
    frame = pd.DataFrame(
        [
            (run, f"q{i}", "P@5", v)
            for run, vs in (("a", [0.2, 0.4]), ("b", [0.2, 0.4]))
            for i, v in enumerate(vs)
        ],  # fmt: skip
        columns=["run", "qid", "measure", "value"],
    )
    latex = with_power(trecbench.compare_scores(frame, samples=40)).render("latex")
    assert latex.endswith("% b, P@5: equal on every topic (sd 0): the effect size is undefined\n")


def test_cli_names_runs_by_file_made_distinct_by_their_folders(tmp_path):
    for folder, source in (("a", "tfidf-char"), ("b", "tfidf-word-parents")):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "x.run").write_bytes((ROOT / f"runs/{source}.run").read_bytes())
    same = [str(tmp_path / "a/x.run"), str(tmp_path / "b/x.run")]
    done = CliRunner().invoke(
        cli, ["power", QRELS, RUNS["tfidf-word"], *same, "-m", "P@5", "--format", "json"]
    )
    assert done.exit_code == 0, done.output
    document = json.loads(done.output)
    assert document["baseline"] == "tfidf-word"
    assert [row["run"] for row in document["rows"]] == ["a/x", "b/x"]  # stems, made distinct
    done = CliRunner().invoke(cli, ["power", QRELS, RUNS["tfidf-word"], RUNS["tfidf-word"]])
    assert isinstance(done.exception, UsageError) and "given twice" in str(done.exception)


def test_compare_power_equals_trecbench_power_and_is_in_every_report(tmp_path, capsys):
    """compare --power: the same rows as `trecbench power` on the same runs (both pair the
    qrels' topics, a missing topic scoring 0), in the terminal table and the JSON report."""
    from trecbench.cli import run as cli_run
    from trecbench.report import validate_against_schema

    runs = [str(ROOT / "runs" / "tfidf-word.run"), str(ROOT / "runs" / "tfidf-char.run")]
    qrels = str(ROOT / "qrels" / "hpo-demo.qrels")
    reference = trecbench.power(qrels, runs[0], runs[1:], ["nDCG@10", "MRR@10"])
    from trecbench.conclusions.power import with_power

    comparison = with_power(trecbench.compare(qrels, runs, ["nDCG@10", "MRR@10"]), 0.8)
    for mine, theirs in zip(comparison.power.rows, reference.rows, strict=True):
        for key in ("n_topics", "effect_size", "power", "mde", "topics_needed"):
            assert getattr(mine, key) == pytest.approx(getattr(theirs, key), abs=1e-12), key
    out = tmp_path / "out"
    args = ["compare", qrels, *runs, "-m", "nDCG@10", "--power", "0.8", "-o", str(out)]
    assert cli_run(args) == 0
    assert "Power (all topics)" in capsys.readouterr().out
    report = json.loads((out / "BenchmarkReport.json").read_text())
    validate_against_schema(report, "benchmark_report")
    assert report["power"]["rows"][0]["topics_needed"] == reference.rows[0].topics_needed
    assert report["power"]["qrels"] == qrels == reference.qrels  # was null
    assert "## Power (all topics)" in (out / "BenchmarkComparison.md").read_text()


def test_compare_power_of_one_run_is_refused_before_the_work(monkeypatch):
    """compare --power with the baseline alone printed a power table of no row under its
    heading (and with_power gave an empty one): refused, as `trecbench power` refuses a
    baseline alone, before any run is scored; so is a target power at or below alpha."""
    import trecbench.comparison as comparison
    from trecbench.conclusions.power import with_power

    qrels = str(ROOT / "qrels" / "hpo-demo.qrels")
    run = str(ROOT / "runs" / "tfidf-word.run")
    with pytest.raises(UsageError, match="^the power of one run: nothing to compare with"):
        with_power(trecbench.compare(qrels, [run], ["P@5"], samples=100), 0.8)

    def scored(*_args, **_kwargs):
        raise AssertionError("scored before refusing")

    monkeypatch.setattr(comparison, "compare", scored)
    done = CliRunner().invoke(cli, ["compare", qrels, run, "-m", "P@5", "--power", "0.8"])
    assert isinstance(done.exception, UsageError), done.output
    assert "nothing to compare with the baseline" in str(done.exception)
    assert done.stdout == ""
    # a target at or below alpha (1 - confidence) was refused once every run was scored
    two = [qrels, run, str(ROOT / "runs" / "tfidf-char.run"), "-m", "P@5", "--power", "0.01"]
    done = CliRunner().invoke(cli, ["compare", *two])
    assert isinstance(done.exception, UsageError), done.output
    assert "must be above alpha (0.05)" in str(done.exception)


def _tails_with_warnings(functions, x, df, nc, q):
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        t_isf, nct_cdf, nct_sf = functions
        found = (t_isf(q, df), nct_cdf(x, df, nc), nct_sf(x, df, nc))
    return [float(value) for value in found], sorted(str(w.message) for w in caught)


def test_the_t_tails_are_scipy_stats_to_the_last_bit_warnings_included():
    """power's t and noncentral t come from scipy.special without importing scipy.stats
    (issue 31): the same floats (NaN far tails at large noncentrality included) and the
    same warnings as t.isf, nct.cdf and nct.sf on the arguments power gives them."""
    from scipy.stats import nct, t

    from trecbench.conclusions import power as module

    rng = np.random.default_rng(7)
    cases = [(float(rng.uniform(1, 300)), float(rng.uniform(0, 12)), float(q))
             for q in rng.choice([0.05, 0.025, 0.005, 1e-6, 1e-12], 300)]  # fmt: skip
    cases += [(1.0, 40.0, 1e-12), (1.5, 0.0, 0.025), (3.0, 38.0, 0.025), (1e6, 5.0, 0.025)]
    undefined = 0
    for df, nc, q in cases:
        x = float(t.isf(q, df))
        for sign in (1.0, -1.0):
            ours = _tails_with_warnings(module._t_tails(), sign * x, df, nc, q)
            theirs = _tails_with_warnings((t.isf, nct.cdf, nct.sf), sign * x, df, nc, q)
            np.testing.assert_array_equal(ours[0], theirs[0])
            assert ours[1] == theirs[1], (df, nc, q)
            undefined += int(np.isnan(theirs[0]).sum())
    assert undefined  # the cases include scipy's NaN tails


def test_without_scipys_private_complement_scipy_stats_gives_the_tails(monkeypatch):
    import scipy.special._ufuncs
    from scipy.stats import nct, t

    from trecbench.conclusions import power as module

    monkeypatch.delattr(scipy.special._ufuncs, "_nct_sf")
    module._t_tails.cache_clear()
    try:
        assert module._t_tails() == (t.isf, nct.cdf, nct.sf)
    finally:
        module._t_tails.cache_clear()


def test_differences_equal_on_paper_give_the_undefined_rows(tmp_path):
    """One relevant document more in the top 5 on every topic: the effect size is
    undefined (power ended in exit 70, brentq on d_z 4.8e15); a mean difference 0 on
    paper (MRR gains 5/6, -2/3, -1/6) is "no difference", not -0.0000 with power 0.1."""
    settings = PowerSettings(alpha=0.05, target=0.8)
    gains = np.array([k / 5 for k in (1, 2, 3, 4)] * 2) - np.array(
        [k / 5 for k in (0, 1, 2, 3)] * 2
    )
    row = power_row(gains, settings, "plus", "base", "P@5")
    assert (row.effect_size, row.power, row.topics_needed) == (None, None, None)
    assert "the same difference on every topic" in row.reason
    k = np.array([140, 171, 203, 234, 281, 343, 406, 468, 562, 687, 812, 937])
    row = power_row((k + 1) / 1000 - k / 1000, settings, "plus", "base", "P_1000")
    assert row.effect_size is None  # brentq on d_z 2.3e13 ended in exit 70
    zero = np.array([0.0, 0.0, 5 / 6, -2 / 3, -1 / 6])
    assert zero.mean() != 0  # in the last bits
    row = power_row(zero, PowerSettings(alpha=0.1, target=0.5), "r2", "r0", "MRR@10")
    assert (row.mean_difference, row.effect_size, row.topics_needed) == (0.0, 0.0, None)
    assert "mean difference 0" in row.reason


@pytest.mark.parametrize("runs", [[], (), {}])
def test_no_run_beside_the_baseline_is_refused_as_the_command_line_refuses_it(runs):
    """power(qrels, baseline, [], ...) returned an empty result, no error, no warning
    (the command line requires RUNS...); {} was read as one empty run."""
    with pytest.raises(UsageError, match="nothing to compare with the baseline: give at least"):
        trecbench.power(QRELS, RUNS["tfidf-word"], runs, ["P@5"])
    with pytest.raises(UsageError, match="nothing to compare with the baseline"):
        trecbench.power(QRELS, {"base": RUNS["tfidf-word"]}, runs, ["P@5"])


def test_runs_given_as_the_baseline_are_refused_saying_where_the_runs_go():
    """power(qrels, [a, b], measures), compare's order, said "give one baseline run": no
    word of the list it was given, nor of where the runs go."""
    runs = [RUNS["tfidf-word"], RUNS["tfidf-word"].replace("word", "char")]
    said = "baseline: 2 runs given; give one baseline run, and the runs to compare with it "
    with pytest.raises(UsageError) as refused:
        trecbench.power(QRELS, runs, ["P@5"])
    assert str(refused.value) == said + "after it: power(qrels, baseline, runs, measures)"


def test_latex_names_the_baseline_and_the_settings_as_every_other_format_does():
    """power --format latex was a bare tabular: its difference and d_z columns did not
    say against which run, at which alpha and target (reviewer 364)."""
    base = ["power", QRELS, RUNS["tfidf-word"], RUNS["tfidf-word"].replace("word", "char")]
    settings = ["-m", "P@5", "--alpha", "0.01", "--power", "0.9"]
    latex = CliRunner().invoke(cli, [*base, *settings, "--format", "latex"]).output
    table = CliRunner().invoke(cli, [*base, *settings]).output
    legend = table.split("\n\n")[0].splitlines()
    assert legend[0] == (
        "Baseline: tfidf-word; paired two-sided t-test at alpha 0.01, target power 0.9"
    )
    lines = latex.splitlines()[1:]  # under the package the tabular needs
    assert lines[: len(legend)] == [f"% {line}" for line in legend]
    assert lines[len(legend)].startswith(r"\begin{tabular}")


def test_the_reason_for_too_few_topics_counts_them_in_english(tmp_path):
    # it said "1 topic(s): the paired t-test needs 2"; compare counts with plurals.counted
    settings = PowerSettings()
    for differences, said in [([0.3], "1 topic"), ([], "0 topics")]:
        row = power_row(np.array(differences), settings, "r", "b", "m")
        assert row.reason == f"{said}: the paired t-test needs 2"
    qrels, base, new = tmp_path / "one.qrels", tmp_path / "base.run", tmp_path / "new.run"
    qrels.write_text("t1 0 d1 1\nt1 0 d2 0\n", encoding="utf-8")
    base.write_text("t1 Q0 d1 1 2.0 b\nt1 Q0 d2 2 1.0 b\n", encoding="utf-8")
    new.write_text("t1 Q0 d2 1 2.0 n\nt1 Q0 d1 2 1.0 n\n", encoding="utf-8")
    done = CliRunner().invoke(cli, ["power", str(qrels), str(base), str(new), "-m", "P@1"])
    assert done.exit_code == 0, done.output
    assert "new, P@1: 1 topic: the paired t-test needs 2" in done.output
    assert "topic(s)" not in done.output


def test_markdown_and_latex_right_align_the_columns_of_numbers_as_the_table_does():
    """The Markdown table's alignment row was ``---`` throughout (numbers left-aligned
    where the terminal's table puts them right) and LaTeX set the measure's names right."""
    base = ["power", QRELS, RUNS["tfidf-word"], RUNS["tfidf-word"].replace("word", "char")]
    rendered = {
        fmt: CliRunner().invoke(cli, [*base, "-m", "P@5", "--format", fmt]).output
        for fmt in ("markdown", "latex")
    }
    assert "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |\n" in rendered["markdown"]
    assert "\\begin{tabular}{llrrrrrr}\n" in rendered["latex"]


def test_a_power_below_one_never_prints_as_one():
    # a power of 0.99996 printed as 1.0000: power reached for certain, which no test has
    from scipy.optimize import brentq

    from trecbench.conclusions.power import PowerResult

    n, wanted = 20, 0.99996
    effect = brentq(lambda d: _reference(d, n, 0.05) - wanted, 0.5, 5.0)
    alternating = np.resize([1.0, -1.0], n)
    differences = alternating + effect * np.std(alternating, ddof=1)
    row = power_row(differences, PowerSettings(), "run", "base", "m")
    assert row.power == pytest.approx(wanted, abs=1e-9)  # statsmodels' noncentral t
    shown = PowerResult(PowerSettings(), "base", (row,)).render("table")
    (line,) = [line for line in shown.splitlines() if line.split()[:2] == ["run", "m"]]
    assert "0.99996" in line.split() and "1.0000" not in line.split()


def test_numpy_levels_are_held_as_pythons_and_rendered_as_json():
    # PowerSettings and agree's DiscriminationSettings kept np.float32(0.05) as given:
    # render("json") raised "Object of type float32 is not JSON serializable"
    runs, baseline = [RUNS["tfidf-char"]], RUNS["tfidf-word"]
    level = np.float32(0.05)
    result = trecbench.power(
        QRELS, baseline, runs, "P@5", alpha=level, target_power=np.float32(0.8)
    )
    agreement = trecbench.agree(
        QRELS, [baseline, *runs], "P@5", alpha=level, test="bootstrap", samples=np.int64(100)
    )
    for rendered in (result.render("json"), agreement.render("json")):
        assert json.loads(rendered)["settings"]["alpha"] == 0.05  # not 0.0500000007
    assert type(agreement.settings.samples) is int
    assert result.settings.target == 0.8


def test_figures_below_the_sign_flip_floor_are_flagged(tmp_path):
    """power printed 3 topics needed, and a power of 0.9997 on 5 topics, with no word that
    compare and agree mark nothing significant on fewer than 6 topics at alpha 0.05."""
    from trecbench.conclusions.power import fewest_topics_marked

    assert [fewest_topics_marked(a) for a in (0.05, 0.5, 0.03125, 0.01)] == [6, 3, 7, 8]
    settings = PowerSettings()
    few = power_row(np.array([0.3, 0.35, 0.4, 0.3, 0.36]), settings, "r", "b", "m")
    assert few.topics_needed == 3 and few.power is not None  # statsmodels' figures kept
    assert few.reason == (
        "the power on 5 topics and the topics needed (3) are the t-test's alone: compare "
        "and agree mark nothing significant on fewer than 6 topics at alpha 0.05 (the "
        "exact sign-flip test's smallest p, 2/2^n, is not below it)"
    )
    many = power_row(np.array([0.3, 0.35, 0.4, 0.3, 0.36, 0.33]), settings, "r", "b", "m")
    assert many.reason.startswith("the topics needed (3) is the t-test's alone: ")
    # at alpha 0.5 three topics reach it (2/2^3 < 0.5): nothing to flag
    three = power_row(np.array([0.3, -0.2, 0.1]), PowerSettings(0.5, 0.8), "r", "b", "m")
    assert three.topics_needed >= 3 and three.reason is None
