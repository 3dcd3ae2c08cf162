"""trecbench agree: τ-b against scipy, τ_AP against a plain-Python τ_AP averaged over every
order of tied systems, κ against scikit-learn, discriminative power against scipy's
ttest_rel and statsmodels' corrections, on seeded random cases (within 1e-9)."""

from __future__ import annotations

import itertools
import json
import math
import warnings
from fractions import Fraction

import numpy as np
import pytest
from click.testing import CliRunner
from conftest import ROOT, option_choices, write_tenths

import trecbench
from trecbench import statistical_tests, stats
from trecbench.cli import cli
from trecbench.conclusions.agree import judgment_agreement
from trecbench.conclusions.agreement import cohen_kappa, kendall_tau, tau_ap
from trecbench.conclusions.discrimination import (
    DiscriminationSettings,
    discriminative_power,
    pair_p_values,
)
from trecbench.conclusions.render import TIES_AVERAGED
from trecbench.errors import DuplicateError, UsageError
from trecbench.report import validate_against_schema

QRELS = str(ROOT / "qrels/hpo-demo.qrels")
RTASK = ROOT / "data/hpo-rtask"
RUNS = [
    str(ROOT / f"runs/{name}.run") for name in ("tfidf-word", "tfidf-char", "tfidf-word-parents")
]


def plain_tau_ap(reference_order, evaluated_order) -> float:
    """Yilmaz, Aslam & Robertson's τ_AP of two strict orders (lists of systems, best first)."""
    position = {system: i for i, system in enumerate(reference_order)}
    total = 0.0
    for i in range(1, len(evaluated_order)):
        above = evaluated_order[:i]
        correct = sum(position[s] < position[evaluated_order[i]] for s in above)
        total += correct / i
    return 2 * total / (len(evaluated_order) - 1) - 1


def strict_orders(scores):
    """Every order of the systems by score, best first, tied systems in every order."""
    groups = [[s for s in range(len(scores)) if scores[s] == v] for v in sorted(set(scores))[::-1]]
    for parts in itertools.product(*(itertools.permutations(g) for g in groups)):
        yield [s for part in parts for s in part]


def mean_tau_ap(reference, evaluated) -> float:
    values = [
        plain_tau_ap(r, e)
        for r in strict_orders(list(reference))
        for e in strict_orders(list(evaluated))
    ]
    return sum(values) / len(values)


@pytest.mark.parametrize("seed", range(40))
def test_tau_ap_is_the_mean_of_the_plain_tau_ap_over_the_orders_of_ties(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 6))
    levels = 3 if seed % 2 else 100  # odd seeds: many ties; even: (almost) none
    reference, evaluated = rng.integers(0, levels, n), rng.integers(0, levels, n)
    if len(set(reference)) == 1 or len(set(evaluated)) == 1:  # no order to agree with
        assert tau_ap(reference, evaluated) is None
        return
    assert tau_ap(reference, evaluated) == pytest.approx(
        mean_tau_ap(reference, evaluated), abs=1e-9
    )


def exact_mean_tau_ap(reference, evaluated) -> Fraction:
    """:func:`mean_tau_ap` in fractions: no rounding anywhere."""
    total, count = Fraction(0), 0
    for r in strict_orders(list(reference)):
        position = {system: i for i, system in enumerate(r)}
        for e in strict_orders(list(evaluated)):
            right = sum(
                Fraction(sum(position[s] < position[e[i]] for s in e[:i]), i)
                for i in range(1, len(e))
            )
            total, count = total + 2 * right / (len(e) - 1) - 1, count + 1
    return total / count


@pytest.mark.parametrize("seed", range(30))
def test_tau_ap_is_the_exact_mean_rounded_once(seed):
    """τ_AP 0 on paper printed as -1.1e-16 (helper-594): the float sum of the tie groups'
    shares. It is the exact mean over the orders of ties, rounded once."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 6))
    reference, evaluated = rng.integers(0, 3, n), rng.integers(0, 3, n)
    if len(set(reference)) == 1 or len(set(evaluated)) == 1:
        return
    assert tau_ap(reference, evaluated) == float(exact_mean_tau_ap(reference, evaluated))


def test_a_tau_ap_of_0_on_paper_is_0():
    # P@5's means against P@1's of helper-594's four runs: 0 over the orders of the ties
    p5, p1 = [0.4, 0.6, 0.2, 0.4], [0.0, 1.0, 1.0, 1.0]
    assert exact_mean_tau_ap(p5, p1) == 0
    assert tau_ap(p5, p1) == 0.0


def test_tau_ap_by_hand():
    # evaluated order c, a, b against reference a, b, c: C(2) = 0 (c above a: wrong),
    # C(3) = 1 (a above b right, c above b wrong): 2/2 * (0/1 + 1/2) - 1 = -0.5
    assert tau_ap([3, 2, 1], [2, 1, 3]) == pytest.approx(-0.5)
    assert tau_ap([3, 2, 1], [3, 2, 1]) == 1.0
    assert tau_ap([3, 2, 1], [1, 2, 3]) == -1.0
    assert tau_ap([1.0], [2.0]) is None


@pytest.mark.parametrize("seed", range(10))
def test_kendall_tau_is_scipys_tau_b(seed):
    from scipy.stats import kendalltau

    rng = np.random.default_rng(seed)
    a, b = rng.integers(0, 4, 8), rng.random(8)
    assert kendall_tau(a, b) == pytest.approx(kendalltau(a, b).statistic, abs=1e-12)
    assert kendall_tau(np.ones(4), b[:4]) is None  # a constant ordering: undefined


def _sklearn_kappa(a, b, weights=None):
    from sklearn.metrics import cohen_kappa_score

    with warnings.catch_warnings():  # one label only: scikit-learn warns and gives NaN
        warnings.simplefilter("ignore")
        value = cohen_kappa_score(a, b, weights=weights)
    return None if np.isnan(value) else value


@pytest.mark.parametrize("seed", range(30))
def test_kappa_equals_scikit_learn(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 60))
    grades = np.array([-1, 0, 1, 3])  # not consecutive: linear weights go by rank, as sklearn's
    a = rng.choice(grades, n)
    b = np.where(rng.random(n) < 0.6, a, rng.choice(grades, n))
    for x, y, weights in [(a, b, None), (a, b, "linear"), (a >= 1, b >= 1, None)]:
        expected = _sklearn_kappa(x, y, weights)
        if expected is None:
            assert cohen_kappa(x, y, weights) is None
        else:
            assert cohen_kappa(x, y, weights) == pytest.approx(expected, abs=1e-9)


def test_kappa_of_one_label_is_undefined():
    assert cohen_kappa([1, 1, 1], [1, 1, 1]) is None
    assert cohen_kappa([], []) is None


def _write(path, lines):
    path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    return str(path)


def test_judgment_agreement_counts_and_levels(tmp_path):
    a = _write(tmp_path / "a.qrels", ["1 0 d1 2", "1 0 d2 0", "1 0 d3 1", "2 0 d1 1", "2 0 d9 0"])
    b = _write(tmp_path / "b.qrels", ["1 0 d1 1", "1 0 d2 0", "1 0 d3 2", "2 0 d1 0", "3 0 d1 1"])
    found = judgment_agreement(a, b, relevance_level=2)
    assert (found.both, found.only_a, found.only_b) == (4, 1, 1)
    grades_a, grades_b = [2, 0, 1, 1], [1, 0, 2, 0]  # 1/d1, 1/d2, 1/d3, 2/d1
    binary = _sklearn_kappa(np.array(grades_a) >= 2, np.array(grades_b) >= 2)
    assert found.cohen_kappa == pytest.approx(binary, abs=1e-12)
    weighted = _sklearn_kappa(grades_a, grades_b, "linear")
    assert found.weighted_kappa == pytest.approx(weighted, abs=1e-12)
    twice = _write(tmp_path / "twice.qrels", ["1 0 d1 1", "1 0 d2 0", "1 0 d1 0"])
    with pytest.raises(DuplicateError, match=r"twice.qrels:3: duplicate docs d1 for topic 1 \("):
        judgment_agreement(a, twice)


def test_a_document_judged_twice_is_refused_alike_in_either_set(tmp_path, capsys):
    """A document judged twice in --qrels-b was told in other words and exit 2, where in
    the first qrels scoring refuses it as trec_eval does (duplicate docs, exit 4)."""
    run = _write(tmp_path / "r.run", ["1 Q0 d1 1 2 r", "1 Q0 d2 2 1 r", "2 Q0 d4 1 1 r"])
    other = _write(tmp_path / "s.run", ["1 Q0 d2 1 2 s", "1 Q0 d1 2 1 s", "2 Q0 d4 1 1 s"])
    good = _write(tmp_path / "good.qrels", ["1 0 d1 1", "1 0 d2 0", "2 0 d4 1"])
    twice = _write(tmp_path / "twice.qrels", ["1 0 d1 1", "1 0 d2 0", "1 0 d1 0", "2 0 d4 1"])
    from trecbench.cli import run as cli_run

    said = []
    for first, second in ((twice, good), (good, twice)):
        assert cli_run(["agree", first, run, other, "-m", "P@1", "--qrels-b", second]) == 4
        said.append(capsys.readouterr().err)
    assert (
        said[0]
        == said[1]
        == f"trecbench: {twice}:3: duplicate docs d1 for topic 1 (first on line 1)\n"
    )


def test_a_value_undefined_under_the_second_judgments_names_them(tmp_path, capsys):
    """11pt_avg with -J -M 1 is undefined for run c's topic 2 under the second judgments
    only (its one document is judged there, not in the first): the refusal named no set,
    and the first was checked in vain (helper-594). It begins with the set, as the
    warnings do; under the first judgments, with theirs."""
    from trecbench.cli import run as cli_run

    pairs = ["1 0 r1 1", "1 0 n1 0", "2 0 r1 1", "2 0 n2 0"]
    fewer = _write(tmp_path / "fewer.qrels", pairs)
    more = _write(tmp_path / "more.qrels", [*pairs, "2 0 x 0", "1 0 xa 0", "1 0 xb 0"])
    runs = [
        _write(
            tmp_path / f"{n}.run", [f"1 Q0 n1 1 3 {n}", f"1 Q0 x{n} 2 2 {n}", f"2 Q0 n2 1 3 {n}"]
        )
        for n in ("a", "b")
    ]
    runs.append(_write(tmp_path / "c.run", ["1 Q0 r1 1 3 c", "2 Q0 x 1 3 c"]))
    argv = ["agree", "-J", "-M", "1", "-m", "11pt_avg", "-m", "P@1"]
    for first, second in ((more, fewer), (fewer, more)):
        assert cli_run([*argv, first, *runs, "--qrels-b", second]) == 4
        said = capsys.readouterr().err
        assert said == f"trecbench: {fewer}: run 'c': 11pt_avg is undefined for '2'\n"


def test_a_negative_grade_is_unjudged_in_its_set_and_said_to_be(tmp_path):
    # a negative grade is "in the pool, unjudged" (trec_eval): both kappas counted 1/d1,
    # -1 in A, as judged (both 5, kappa 0.1667, weighted 0.1176); scikit-learn on the four
    # documents both judge gives 0.5 and 0.5
    grades_a, grades_b = [-1, 1, 0, 1, 0, -2], [1, 1, 0, 0, 0, -3]  # d1..d6 of topic 1
    a_lines = [f"1 0 d{i} {grade}" for i, grade in enumerate(grades_a, 1)] + ["2 0 d1 -1"]
    b_lines = [f"1 0 d{i} {grade}" for i, grade in enumerate(grades_b, 1)] + ["3 0 d1 -1"]
    a, b = _write(tmp_path / "a.qrels", a_lines), _write(tmp_path / "b.qrels", b_lines)
    found = judgment_agreement(a, b)
    assert (found.both, found.only_a, found.only_b) == (4, 0, 1)  # 1/d1: judged in B alone
    assert (found.negative_a, found.negative_b) == (3, 2)
    both_a, both_b = np.array(grades_a[1:5]), np.array(grades_b[1:5])  # d2..d5
    expected = _sklearn_kappa(both_a >= 1, both_b >= 1)
    assert found.cohen_kappa == pytest.approx(expected, abs=1e-12) and expected == 0.5
    weighted = _sklearn_kappa(both_a, both_b, "linear")
    assert found.weighted_kappa == pytest.approx(weighted, abs=1e-12) and weighted == 0.5
    runs = []
    for name, docs in (("r1", "d1 d2 d3 d4 d5"), ("r2", "d5 d4 d3 d2 d1")):
        lines = [f"1 Q0 {doc} {rank} {9 - rank} {name}" for rank, doc in enumerate(docs.split())]
        runs.append(_write(tmp_path / f"{name}.run", lines))
    note = "left out of both kappas as unjudged: 3 documents graded negative in A, 2 in B"
    for fmt in ("table", "markdown"):
        argv = ["agree", a, *runs, "-m", "P@5", "--qrels-b", b, "--format", fmt]
        done = CliRunner().invoke(cli, argv)
        assert done.exit_code == 0, done.output
        assert note in " ".join(done.stdout.split())
    judged = _write(tmp_path / "judged.qrels", b_lines[1:5])  # no negative grade: no note
    argv = ["agree", judged, *runs, "-m", "P@5", "--qrels-b", judged]
    assert "left out of both kappas" not in CliRunner().invoke(cli, argv).stdout


def _random_values(seed):
    rng = np.random.default_rng(seed)
    topics, runs = int(rng.integers(5, 40)), int(rng.integers(2, 6))
    shift = rng.normal(0, 0.15, runs)
    return np.clip(rng.random((topics, 1)) * 0.5 + rng.random((topics, runs)) * 0.5 + shift, 0, 1)


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("correction", ["none", "holm", "bh"])
def test_discriminative_power_equals_ttest_rel(seed, correction):
    from scipy.stats import ttest_rel
    from statsmodels.stats.multitest import multipletests

    values = _random_values(seed)
    pairs = list(itertools.combinations(range(values.shape[1]), 2))
    p = np.array([ttest_rel(values[:, i], values[:, j]).pvalue for i, j in pairs])
    if correction != "none":
        p = multipletests(p, method={"holm": "holm", "bh": "fdr_bh"}[correction])[1]
    significant = p < 0.05
    settings = DiscriminationSettings(alpha=0.05, test="t", correction=correction)
    found = discriminative_power(values, "m", settings)
    assert (found.pairs, found.significant) == (len(pairs), significant.sum())
    assert found.discriminative_power == pytest.approx(significant.mean(), abs=1e-12)
    gaps = [abs(values[:, i].mean() - values[:, j].mean()) for i, j in pairs]
    smallest = min((g for g, s in zip(gaps, significant, strict=True) if s), default=None)
    assert found.smallest_significant_difference == pytest.approx(smallest, abs=1e-12)


def test_resampling_tests_are_looked_up_by_name_and_seeded():
    values = np.random.default_rng(3).random((12, 3))
    first, second = values[:, 0] - values[:, 1], values[:, 1] - values[:, 2]
    settings = DiscriminationSettings(test="randomization", samples=500, seed=7, correction="none")
    p = pair_p_values(values, settings)
    # compare's own p-values (stats.all_pairs_p), pairs in (0,1), (0,2), (1,2) order
    assert p[0] == stats.randomization_test(first, 500, 7)[0]
    assert p[2] == stats.randomization_test(second, 500, 7)[0]
    boot = DiscriminationSettings(test="bootstrap", samples=300, seed=7)
    expected = stats.all_pairs_p(values, "bootstrap", 300, 7)
    assert list(pair_p_values(values, boot)) == [expected[0, 1], expected[0, 2], expected[1, 2]]
    with pytest.raises(UsageError, match="unknown test"):
        DiscriminationSettings(test="anova")


def test_agree_on_the_demo_orders_runs_by_their_means():
    from scipy.stats import kendalltau

    measures = ["nDCG@10", "MRR@10", "num_nonrel_judged_ret"]
    qrels = str(RTASK / "hpo-rtask.qrels")
    runs = [str(RTASK / f"{name}.run") for name in ("lexical", "vector", "reranked")]
    result = trecbench.agree(qrels, runs, measures, qrels_b=QRELS)
    frame = trecbench.evaluate(qrels, runs, measures).per_query
    topics = trecbench.read_qrels(qrels)["qid"].unique()
    table = frame.pivot_table(index="qid", columns=["run", "measure"], values="value")
    means = table.reindex(topics).fillna(0.0).mean()
    assert result.runs == ("lexical", "vector", "reranked")
    for r, run in enumerate(result.runs):  # named by their stems, as evaluate names them
        for m, measure in enumerate(measures):
            assert result.means[r][m] == pytest.approx(means[(run, measure)], abs=1e-12)
    ndcg, mrr, nonrel = (np.array([row[m] for row in result.means]) for m in range(3))
    by_pair = {(o.reference, o.evaluated): o for o in result.measure_orderings}
    assert by_pair["nDCG@10", "MRR@10"].kendall_tau == pytest.approx(
        kendalltau(ndcg, mrr).statistic
    )
    # fewer judged non-relevant documents is better: that ordering is by -mean (two tie)
    assert len(set(nonrel)) == 2
    flipped = by_pair["nDCG@10", "num_nonrel_judged_ret"]
    assert flipped.kendall_tau == pytest.approx(kendalltau(ndcg, -nonrel).statistic)
    assert flipped.tau_ap == pytest.approx(mean_tau_ap(ndcg, -nonrel), abs=1e-9)
    assert [o.reference for o in result.qrels_orderings] == measures
    assert result.judgments.both == 60


# trec_eval 9.0.8 -c -m ndcg_cut.10 -m P.5 qrels/hpo-demo.qrels data/hpo-rtask/RUN.run
UNDER_DEMO_QRELS = {"lexical": ("0.2324", "0.0500"), "vector": ("0.3509", "0.0750"),
                    "reranked": ("0.2168", "0.0464")}  # fmt: skip


def test_the_runs_means_under_the_second_judgments_are_shown(tmp_path):
    # the orderings under B were compared, but B's means were neither printed nor in the
    # JSON: the kendall_tau of the two could not be checked (reviewer 706)
    runs = [str(RTASK / f"{name}.run") for name in UNDER_DEMO_QRELS]
    args = [str(RTASK / "hpo-rtask.qrels"), *runs, "-m", "nDCG@10", "-m", "P@5", "--qrels-b"]
    done = CliRunner().invoke(cli, ["agree", *args, QRELS, "--quiet"])
    table = done.output.split("Means under B\n\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert table[0].split() == ["run", "nDCG@10", "P@5"]
    assert {row.split()[0]: tuple(row.split()[1:]) for row in table[1:]} == UNDER_DEMO_QRELS
    done = CliRunner().invoke(cli, ["agree", *args, QRELS, "--format", "json", "--quiet"])
    document = json.loads(done.output)
    shown = {(m["run"], m["measure"]): f"{m['mean']:.4f}" for m in document["means_b"]}
    assert shown == {(run, measure): UNDER_DEMO_QRELS[run][i] for run in UNDER_DEMO_QRELS
                     for i, measure in enumerate(["nDCG@10", "P@5"])}  # fmt: skip
    validate_against_schema(document, "agree")
    alone = CliRunner().invoke(cli, ["agree", *args[:-1], "--format", "json", "--quiet"])
    assert json.loads(alone.output)["means_b"] is None


def test_means_under_judgments_of_other_topics_say_so(tmp_path):
    # B judges q1 and q2 only: its means were over 2 topics, A's over 3, said only by the
    # warnings on stderr, while the orderings compared read as differing by judgments alone
    (tmp_path / "a.qrels").write_text("q1 0 d1 1\nq1 0 d2 0\nq2 0 d3 1\nq3 0 d2 1\n")
    (tmp_path / "b.qrels").write_text("q1 0 d1 0\nq1 0 d2 1\nq2 0 d3 1\n")
    for name, order in (("x", "d1 d2 d3"), ("y", "d2 d3 d1"), ("z", "d3 d1 d2")):
        lines = [f"{q} Q0 {d} {i} {9 - i} {name}" for q in ("q1", "q2", "q3")
                 for i, d in enumerate(order.split())]  # fmt: skip
        (tmp_path / f"{name}.run").write_text("\n".join(lines) + "\n")
    runs = [str(tmp_path / f"{name}.run") for name in "xyz"]
    args = ["agree", str(tmp_path / "a.qrels"), *runs, "-m", "P@1", "--quiet"]
    done = CliRunner().invoke(cli, [*args, "--qrels-b", str(tmp_path / "b.qrels")])
    assert done.exit_code == 0, done.output
    said = "the means under B are over 2 topics, those under A over 3 (2 in both;"
    assert said in done.output.split("Means under B", 1)[1].split("Orderings", 1)[0]
    argv = [*args, "--qrels-b", str(tmp_path / "b.qrels"), "--format", "json"]
    document = json.loads(CliRunner().invoke(cli, argv).stdout)
    assert (document["topics"], document["topics_b"]) == (["q1", "q2", "q3"], ["q1", "q2"])
    validate_against_schema(document, "agree")
    # the same topics judged otherwise: nothing to say
    (tmp_path / "c.qrels").write_text("q1 0 d2 1\nq2 0 d1 1\nq3 0 d3 1\n")
    same = CliRunner().invoke(cli, [*args, "--qrels-b", str(tmp_path / "c.qrels")])
    assert "Means under B" in same.output and "the means under B are over" not in same.output


def test_agree_cli_json_keys_and_choices():
    from trecbench.cli.agree import agree as command

    assert option_choices(command, "test") == statistical_tests.NAMES
    assert option_choices(command, "correction") == stats.CORRECTIONS
    runs = map(str, sorted(RTASK.glob("*.run")))
    options = "-m nDCG@10 -m P@5 --test randomization --samples 200 --seed 3 --format json"
    argv = ["agree", str(RTASK / "hpo-rtask.qrels"), *runs, "--qrels-b", QRELS, *options.split()]
    done = CliRunner().invoke(cli, argv)
    assert done.exit_code == 0, done.output
    document = json.loads(done.output)
    assert document["settings"]["seed"] == 3
    assert {"kendall_tau", "tau_ap"} <= set(document["measure_orderings"][0])
    assert "cohen_kappa" in document["judgments"]
    assert {"discriminative_power", "smallest_significant_difference"} <= set(
        document["discriminative_power"][0]
    )
    for fmt in ("table", "markdown"):
        done = CliRunner().invoke(cli, [*argv[:-2], "--format", fmt])
        assert done.exit_code == 0 and "Discriminative power" in done.output, done.output
    done = CliRunner().invoke(cli, ["agree", QRELS, RUNS[0], "-m", "P@5"])
    assert isinstance(done.exception, UsageError) and "two runs or more" in str(done.exception)


def test_undefined_discriminative_power_with_one_run():
    found = discriminative_power(np.ones((4, 1)), "m", DiscriminationSettings())
    assert (found.pairs, found.discriminative_power) == (0, None)
    assert not math.isnan(
        discriminative_power(np.ones((8, 2)), "m", DiscriminationSettings()).discriminative_power
    )


def test_tukey_hsd_is_family_wise_and_not_corrected_again():
    """Randomised Tukey HSD (compare --test tukey): its p-values hold for the family of
    all pairs already, so discriminative power applies no correction on top."""
    values = np.random.default_rng(0).random((10, 4)) + np.array([0, 0.05, 0.3, 0.6])
    settings = DiscriminationSettings(test="tukey", samples=999, seed=3)
    p = stats.all_pairs_p(values, "tukey", 999, 3)[np.triu_indices(4, 1)]
    found = discriminative_power(values, "m", settings)
    assert found.significant == int((p < 0.05).sum())
    assert 0 < found.significant < 6


def test_the_json_records_the_correction_applied_as_the_text_says_it():
    # --test tukey --format json recorded the default "correction": "holm", which the
    # family-wise test does not get (the text said "correction none: family-wise")
    args = ["agree", QRELS, *RUNS, "-m", "P@5"]
    for test, correction, family_wise in (("tukey", "none", True), ("t", "holm", False)):
        argv = [*args, "--test", test, *(["--samples", "100"] if family_wise else [])]
        settings = json.loads(CliRunner().invoke(cli, [*argv, "--format", "json"]).output)[
            "settings"
        ]
        assert (settings["correction"], settings["family_wise"]) == (correction, family_wise)
        text = CliRunner().invoke(cli, argv).output
        said = (
            f"correction {correction}: family-wise)" if family_wise else f"correction {correction})"
        )
        assert said in text


def test_agree_latex_holds_the_same_numbers_as_json():
    args = ["agree", QRELS, *RUNS, "-m", "nDCG@10", "-m", "MRR@10"]
    document = json.loads(CliRunner().invoke(cli, [*args, "--format", "json"]).output)
    latex = CliRunner().invoke(cli, [*args, "--format", "latex"]).output
    assert latex.count(r"\begin{tabular}") == 3 and r"kendall\_tau" in latex
    for row in document["discriminative_power"]:
        assert f"{row['discriminative_power']:.4f}" in latex


def test_second_judgments_without_a_topic_of_the_runs_are_named(tmp_path, capsys):
    # the error named the first run, as if its file were at fault
    from trecbench.cli import run

    other = tmp_path / "other.qrels"
    other.write_text("x1 0 HP:0000001 1\n")
    assert run(["agree", QRELS, *RUNS, "-m", "P@5", "--qrels-b", str(other)]) == 7
    err = capsys.readouterr().err
    assert err == (
        f"trecbench: {other}: No queries with both results and relevance info (no topic of "
        "the runs is in the --qrels-b judgments: the runs' 'de-01', 'de-02', 'de-03' and 53 "
        "more; the judgments' 'x1')\n"
    )


def test_with_second_judgments_each_input_is_read_once(monkeypatch):
    # both sets of judgments scored the runs: the runs and both qrels were read twice
    import os

    from trecbench.inputs import streams

    made = []
    real_init = streams.Source.__init__

    def counting_init(self, path, *args, **kwargs):
        made.append(os.path.basename(os.fspath(path)))
        real_init(self, path, *args, **kwargs)

    qrels_b = str(RTASK / "hpo-rtask.qrels")
    monkeypatch.setattr(streams.Source, "__init__", counting_init)
    result = trecbench.agree(QRELS, RUNS, ["P@5"], qrels_b=qrels_b)
    monkeypatch.undo()
    names = [os.path.basename(path) for path in (QRELS, qrels_b, *RUNS)]
    assert sorted(made) == sorted(names)
    alone = trecbench.agree(QRELS, RUNS, ["P@5"])
    assert result.means == alone.means and result.qrels == QRELS and result.qrels_b == qrels_b


def test_a_run_without_a_topic_of_the_second_judgments_is_named(tmp_path, capsys):
    # the judgments were blamed although the other run's topics are all in them
    from trecbench.cli import run

    qrels = RTASK / "hpo-rtask.qrels"
    german = tmp_path / "de.qrels"
    german.write_text("".join(line for line in qrels.open() if line.startswith("de-")))
    lexical, vector = tmp_path / "de.run", tmp_path / "en.run"
    lexical.write_text("".join(x for x in (RTASK / "lexical.run").open() if x.startswith("de-")))
    vector.write_text("".join(x for x in (RTASK / "vector.run").open() if x.startswith("en-")))
    args = ["agree", str(qrels), str(lexical), str(vector), "-m", "P@5", "--qrels-b", str(german)]
    assert run(args) == 7
    assert capsys.readouterr().err == (
        f"trecbench: {vector}: No queries with both results and relevance info (no topic of "
        f"the run is in the --qrels-b judgments, {german}: the run's 'en-01', 'en-02', "
        "'en-03' and 25 more; the judgments' 'de-01', 'de-02', 'de-03' and 25 more)\n"
    )


def test_an_in_memory_run_without_a_topic_of_the_second_judgments_is_named(tmp_path):
    # the error said "run DataFrame" where it named the run before
    qrels = RTASK / "hpo-rtask.qrels"
    german = tmp_path / "de.qrels"
    german.write_text("".join(line for line in qrels.open() if line.startswith("de-")))
    lexical = trecbench.read_run(RTASK / "lexical.run")
    vector = trecbench.read_run(RTASK / "vector.run")
    runs = {"lex": lexical, "vec": vector[vector["qid"].str.startswith("en-")]}
    with pytest.raises(Exception, match=r"^vec: No queries with both .*--qrels-b judgments"):
        trecbench.agree(str(qrels), runs, ["P@5"], qrels_b=str(german))


def test_means_equal_on_paper_tie_in_the_orderings(tmp_path):
    from scipy.stats import kendalltau

    # a and b hold 3 relevant documents in their top 10s over 3 topics: P@10 is 1/10 for
    # both on paper, 0.10000000000000002 and 0.09999999999999999 as float means
    folder = write_tenths(tmp_path, {"a": [1, 2, 0], "b": [3, 0, 0], "c": [0, 0, 1]})
    runs = [str(folder / f"{run}.run") for run in "abc"]
    result = trecbench.agree(str(folder / "q.qrels"), runs, ["nDCG@10", "P@10"])
    ndcg = [row[0] for row in result.means]
    assert result.means[0][1] != result.means[1][1]  # the floats differ...
    exact = [1 / 10, 1 / 10, 1 / 30]  # ...the fractions do not
    (ordering,) = result.measure_orderings
    assert ordering.kendall_tau == pytest.approx(kendalltau(ndcg, exact).statistic)
    assert ordering.tau_ap == pytest.approx(mean_tau_ap(ndcg, exact), abs=1e-12)
    assert ordering.tau_ap == pytest.approx(0.5)
    # tied on paper: tied where the note and the JSON say whether an ordering ties runs
    assert ordering.ties and TIES_AVERAGED in result.render()


def test_tau_ap_of_orderings_tying_runs_says_how_it_counts_them(tmp_path):
    # x and y tied above z under both measures: tau_b 1, tau_ap 0.5 (the mean of 1 and 0
    # over the tie's orders), which read as a disagreement without a word (reviewer 663)
    folder = write_tenths(tmp_path, {"x": [1, 1], "y": [1, 1], "z": [0, 0]})
    runs = [str(folder / f"{run}.run") for run in "xyz"]
    tied = trecbench.agree(str(folder / "q.qrels"), runs, ["P@10", "nDCG@10"])
    (ordering,) = tied.measure_orderings
    assert (ordering.kendall_tau, ordering.tau_ap, ordering.ties) == (1.0, 0.5, True)
    assert TIES_AVERAGED in tied.render()
    assert json.loads(tied.render("json"))["measure_orderings"][0]["ties"] is True
    apart = trecbench.agree(str(folder / "q.qrels"), runs[::2], ["P@10", "nDCG@10"])
    (ordering,) = apart.measure_orderings
    assert (ordering.tau_ap, ordering.ties) == (1.0, False)
    assert TIES_AVERAGED not in apart.render()


def test_an_ordering_that_ties_every_run_has_no_tau(tmp_path):
    folder = write_tenths(tmp_path, {"a": [1, 2, 0], "b": [3, 0, 0]})
    runs = [str(folder / f"{run}.run") for run in "ab"]
    result = trecbench.agree(str(folder / "q.qrels"), runs, ["nDCG@10", "P@10"])
    (ordering,) = result.measure_orderings
    assert (ordering.kendall_tau, ordering.tau_ap) == (None, None)
    assert tau_ap([1.0, 1.0, 1.0], [3.0, 2.0, 1.0]) is None
    assert tau_ap([3.0, 2.0, 1.0], [2.0, 2.0, 2.0]) is None
    text = result.render()
    assert "–: undefined, one of the two orderings ties every run" in text


def test_runs_without_some_topics_are_warned_of(tmp_path):
    folder = write_tenths(tmp_path, {"a": [1, 2, 0, 4], "b": [3, 0, 0, 1]})
    lines = (folder / "a.run").read_text().splitlines()
    (folder / "a.run").write_text("\n".join(x for x in lines if not x.startswith("T2 ")) + "\n")
    runs = [str(folder / f"{run}.run") for run in "ab"]
    result = trecbench.agree(str(folder / "q.qrels"), runs, ["P@10", "nDCG@10"])
    assert result.warnings == (
        f"a: no results for 1 of the 4 topics of {folder / 'q.qrels'} (T2): each counts 0 "
        "in its means, as with trec_eval -c",
    )
    assert result.means[0][0] == pytest.approx(7 / 40)  # trec_eval -c's mean, not 7/30


def test_resampling_tests_name_their_samples_and_seed_in_the_table(tmp_path):
    folder = write_tenths(tmp_path, {"a": [1, 2, 0], "b": [3, 0, 0], "c": [0, 0, 1]})
    runs = [str(folder / f"{run}.run") for run in "abc"]
    qrels = str(folder / "q.qrels")
    drawn = trecbench.agree(qrels, runs, ["P@10"], test="randomization", samples=500, seed=7)
    assert "(randomization test, 500 samples, seed 7, correction holm)" in drawn.render()
    assert "(t test, correction holm)" in trecbench.agree(qrels, runs, ["P@10"]).render()


def test_second_judgments_are_named_where_runs_lack_their_topics(tmp_path):
    # under --qrels-b, "of the qrels' 3 topics" read as the first qrels (2 topics)
    (tmp_path / "A.qrels").write_text("a 0 d1 1\na 0 d2 0\nb 0 d1 1\n")
    (tmp_path / "B.qrels").write_text("a 0 d1 1\nb 0 d1 0\nz 0 d9 2\n")
    (tmp_path / "x.run").write_text("a Q0 d1 1 2 x\na Q0 d2 2 1 x\nb Q0 d1 1 1 x\n")
    (tmp_path / "y.run").write_text("a Q0 d2 1 2 y\nb Q0 d2 1 1 y\n")
    runs = [str(tmp_path / "x.run"), str(tmp_path / "y.run")]
    second = str(tmp_path / "B.qrels")
    result = trecbench.agree(str(tmp_path / "A.qrels"), runs, ["P@1"], qrels_b=second)
    assert f"x: no results for 1 of the 3 topics of {second} (z): each counts 0" in " ".join(
        result.warnings
    )


def test_a_measure_whose_values_overflow_a_double_is_refused(tmp_path):
    # utility with coefficients near 1e308: the differences overflowed (exit 70), and at
    # 1e160 their squares did (power printed d_z 0 and "mean difference 0")
    folder = write_tenths(tmp_path, {"a": [1, 2, 0, 4], "b": [3, 0, 0, 1]})
    runs = [str(folder / f"{run}.run") for run in "ab"]
    qrels = str(folder / "q.qrels")
    for measure in ("utility.1e308,-1e308,0,0", "utility.1e160,-1e160,0,0"):
        for call in (
            lambda m: trecbench.agree(qrels, runs, [m]),
            lambda m: trecbench.power(qrels, runs[0], runs[1:], [m]),
            lambda m: trecbench.compare(qrels, runs, [m]),
        ):
            # (a value of inf itself, 2 x 1e308, compare refuses as such)
            with pytest.raises(trecbench.UsageError, match="overflow a double|is -?inf for"):
                call(measure)
    (row,) = trecbench.power(qrels, runs[0], runs[1:], ["utility.1e50,-1e50,0,0"]).rows
    (plain,) = trecbench.power(qrels, runs[0], runs[1:], ["utility"]).rows
    assert row.effect_size == pytest.approx(plain.effect_size)  # within the bound: as scaled


VALUES = np.array([[0.1, 0.3, 0.6], [0.2, 0.5, 0.9], [0.1, 0.4, 0.8], [0.15, 0.3, 0.7],
                   [0.1, 0.35, 0.75]])  # fmt: skip


@pytest.mark.parametrize(
    ("topics", "test", "reason"),
    [
        (1, "t", "With fewer than 2 topics no paired test is defined: no p-value."),
        (2, "bootstrap", "With 2 topics a test that assumes nothing of the differences' "
         "distribution cannot reach p < 0.05: its smallest p is 0.5 (2/2^2, the exact "
         "sign-flip test's); the paired bootstrap test's smaller p-values rest wholly on a "
         "resampling distribution of a handful of topics. Nothing is marked significant "
         "here."),
        (5, "t", "With 5 topics a test that assumes nothing of the differences' distribution "
         "cannot reach p < 0.05: its smallest p is 0.0625 (2/2^5, the exact sign-flip "
         "test's); the paired t-test's smaller p-values rest wholly on the differences' "
         "normality. Nothing is marked significant here."),
    ],
)  # fmt: skip
def test_too_few_topics_for_the_test_give_no_share_but_a_reason(topics, test, reason):
    # 2 topics, runs far apart: 3 of 3 pairs "significant" (share 1.0) by the bootstrap,
    # where compare says the test cannot reach p < 0.05; 1 topic: share 0.0000
    values = VALUES[:topics]
    found = discriminative_power(values, "m", DiscriminationSettings(test=test, samples=1000))
    assert (found.pairs, found.significant, found.discriminative_power) == (3, 0, None)
    assert found.reason == reason
    compare_floor = statistical_tests.smallest_p(test, topics, 1000, 3)
    assert topics < 2 or compare_floor >= 0.05


@pytest.mark.parametrize("topics", [2, 3, 4])
@pytest.mark.parametrize("test", statistical_tests.NAMES)
def test_the_reason_is_the_note_compare_gives_of_the_same_values(topics, test):
    # agree said "with 3 topics the t test cannot reach p < 0.05 (its smallest honest p
    # is 0.25)" where compare's note read "With 3 topics a test that assumes nothing ..."
    import pandas as pd

    values = VALUES[:topics]
    rows = [("abc"[run], f"q{topic}", "m", float(values[topic, run]))
            for topic in range(topics) for run in range(3)]  # fmt: skip
    frame = pd.DataFrame(rows, columns=["run", "qid", "measure", "value"])
    notes = trecbench.compare_scores(frame, test=test, samples=1000).sections[0].notes
    found = discriminative_power(values, "m", DiscriminationSettings(test=test, samples=1000))
    assert notes == (() if found.reason is None else (found.reason,))  # Tukey: 3! / 3!^3
    assert found.reason is not None or topics > 2


def _latex_outside_tables_is_comments(latex: str) -> list[str]:
    """The LaTeX's lines outside its tabulars, each blank or a comment, and the tabulars'
    lines free of a bare ``_``, ``%`` or ``#``; returns the comments."""
    import re

    comments, inside = [], False
    for line in latex.splitlines():
        if line.startswith(r"\begin{tabular}"):
            inside = True
        if inside:
            assert not re.search(r"(?<!\\)[_%#]", line), line
        else:
            assert not line or line.startswith("% "), line
            comments += [line] if line else []
        if line == r"\end{tabular}":
            inside = False
    return comments


def _runs_on_two_topics(tmp_path, *rankings: str) -> list[str]:
    """Runs r1, r2, ... ranking the documents of each of ``rankings`` on topics 1 and 2."""
    runs = []
    for number, docs in enumerate(rankings, 1):
        name = f"r{number}"
        lines = [f"{t} Q0 {doc} {rank} {9 - rank} {name}" for t in "12" for rank, doc in
                 enumerate(docs.split())]  # fmt: skip
        runs.append(_write(tmp_path / f"{name}.run", lines))
    return runs


def test_every_note_of_agree_latex_is_a_comment(tmp_path):
    # the kappas' and negative grades' notes were written bare into the body: their words
    # and 'cohen_kappa''s underscore broke the LaTeX
    a_lines = ["1 0 d1 -1", "1 0 d2 1", "1 0 d3 0", "1 0 d4 1", "2 0 d1 1"]
    a = _write(tmp_path / "a.qrels", a_lines)
    overlapping = _write(tmp_path / "b.qrels", ["1 0 d1 1", "1 0 d2 1", "1 0 d3 -2"])
    apart = _write(tmp_path / "x.qrels", ["1 0 x9 1"])
    runs = _runs_on_two_topics(tmp_path, "d1 d2 d3 d4", "d4 d3 d2 d1")
    notes = {
        overlapping: "% left out of both kappas as unjudged: 1 document graded negative in A",
        apart: "% cohen_kappa and weighted kappa undefined: no document is judged in both sets",
    }
    for second, note in notes.items():
        argv = ["agree", a, *runs, "-m", "P@1", "-m", "num_ret", "--qrels-b", second]
        done = CliRunner().invoke(cli, [*argv, "--format", "latex"])
        assert done.exit_code == 0, done.output
        comments = _latex_outside_tables_is_comments(done.stdout)
        assert any(line.startswith(note) for line in comments), comments
        assert any("no better direction" in line for line in comments)  # num_ret's
        assert any("ties every run" in line for line in comments)
        assert any(line.startswith("% -- P@1: With 2 topics") for line in comments)


def test_agree_json_says_why_a_tau_or_a_kappa_is_null(tmp_path):
    # kendall_tau, tau_ap (an ordering that ties every run) and both kappas (no document
    # judged in both) were null in the JSON with no reason, which the table gave
    a = _write(tmp_path / "a.qrels", ["1 0 d1 1", "1 0 d2 0", "2 0 d1 1", "2 0 d2 0"])
    apart = _write(tmp_path / "x.qrels", ["1 0 x9 1"])
    runs = _runs_on_two_topics(tmp_path, "d1 d2", "d2 d1")
    argv = ["agree", a, *runs, "-m", "P@1", "-m", "num_ret", "--qrels-b", apart]
    done = CliRunner().invoke(cli, [*argv, "--format", "json"])
    assert done.exit_code == 0, done.output
    document = json.loads(done.stdout)
    (ordering,) = document["measure_orderings"]  # num_ret ties both runs
    assert (ordering["kendall_tau"], ordering["tau_ap"]) == (None, None)
    assert ordering["reason"].startswith("one of the two orderings ties every run")
    judgments = document["judgments"]
    assert (judgments["cohen_kappa"], judgments["weighted_kappa"]) == (None, None)
    assert judgments["reason"] == (
        "cohen_kappa and weighted kappa undefined: no document is judged in both sets"
    )
    for under_b in document["qrels_orderings"]:  # under B every run scores 0: all tied
        assert under_b["tau_ap"] is None and under_b["reason"] == ordering["reason"]
    table = CliRunner().invoke(cli, argv).stdout
    assert f"–: undefined, {ordering['reason']}" in " ".join(table.split())
    assert judgments["reason"] in table


def test_agree_latex_shows_an_undefined_figure_as_latex_s_en_dash(tmp_path):
    # agree's LaTeX wrote the character – where power's writes LaTeX's --; a run named –
    # is a name, printed as it is
    qrels = _write(tmp_path / "q.qrels", ["1 0 d1 1", "1 0 d2 0", "2 0 d1 1"])
    runs = [
        _write(tmp_path / f"{name}.run", [f"1 Q0 {first} 1 2 x", f"1 Q0 {second} 2 1 x",
                                          "2 Q0 d1 1 1 x"])
        for name, first, second in (("–", "d1", "d2"), ("b", "d2", "d1"))
    ]  # fmt: skip
    done = CliRunner().invoke(cli, ["agree", qrels, *runs, "-m", "P@1", "-m", "num_ret",
                                    "--format", "latex"])  # fmt: skip
    assert done.exit_code == 0, done.output
    lines = done.stdout.splitlines()
    assert r"– & 1.0000 & 1.5000 \\" in lines  # the run's name
    assert r"P@1 & num\_ret & -- & -- \\" in lines  # the orderings' taus
    assert r"P@1 & 1 & 0 & -- & -- \\" in lines  # the share, the smallest difference
    assert "% --: undefined, one of the two orderings ties every run" in done.stdout
    assert "% -- P@1: With 2 topics" in done.stdout
    assert sum("–" in line for line in lines) == 1
    table = CliRunner().invoke(cli, ["agree", qrels, *runs, "-m", "P@1", "-m", "num_ret"])
    assert ["P@1", "1", "0", "–", "–"] in [line.split() for line in table.stdout.splitlines()]


def test_agrees_means_are_summed_in_topic_order():
    """As compare's (stats.topic_mean): numpy's mean(axis=0) of one column sums pairwise,
    so a mean moved in its last bits with the array's shape."""
    from trecbench.conclusions.scores import TopicScores

    values = np.array([1.0] * 10 + [0.1] * 10)[:, None, None]
    scores = TopicScores(("a",), ("m",), tuple(f"q{i}" for i in range(20)), values)
    assert scores.means()[0, 0] == sum([1.0] * 10 + [0.1] * 10) / 20 != values.mean()


@pytest.mark.parametrize(
    ("runs", "given"), [({"only": RUNS[0]}, "one run"), ({}, "no run"), ([], "no run")]
)
def test_one_run_or_none_is_refused_before_anything_is_read(tmp_path, runs, given):
    # agree(q, []) said "nothing to compare: no run given", agree(q, {}) "two runs or
    # more" (one empty run, as split_runs reads {}): both no run, as power reads {}
    told = []
    said = f"^agreement needs two runs or more, not {given}: nothing to order$"
    for qrels_b in (None, QRELS):
        with pytest.raises(UsageError, match=said):
            trecbench.agree(
                str(tmp_path / "absent.qrels"),
                runs,
                "P@5",
                qrels_b=qrels_b,
                progress=lambda *told_of: told.append(told_of),
            )
    assert told == []  # nothing read nor scored


@pytest.mark.parametrize("second", [False, True])
def test_a_dataframe_is_cited_by_its_index_labels_with_or_without_qrels_b(second):
    import pandas as pd

    qrels = pd.DataFrame({"qid": ["1", "2"], "docno": ["a", "a"], "rel": [1, 1]}, index=[10, 20])
    twice = pd.DataFrame(
        {"qid": ["1", "2", "1"], "docno": ["a", "a", "a"], "rel": [1, 1, 0]}, index=[10, 20, 30]
    )
    runs = {
        name: pd.DataFrame({"qid": ["1", "2"], "docno": ["a", "a"], "score": [1.0, 2.0]})
        for name in ("x", "y")
    }
    first, given = (qrels, {"qrels_b": twice}) if second else (twice, {})
    with pytest.raises(DuplicateError) as done:
        trecbench.agree(first, runs, "P@5", **given)
    assert "row 30: duplicate docs a for topic 1 (first at row 10)" in str(done.value)
    runs["x"] = pd.DataFrame({"qid": ["1", "1"], "docno": ["a", "a"], "score": [1.0, 2.0]}, [5, 6])
    with pytest.raises(DuplicateError, match=r"run 'x' \(run DataFrame\): row 6: .*first at row 5"):
        trecbench.agree(qrels, runs, "P@5", qrels_b=qrels if second else None)


def test_a_measure_outside_its_domain_is_said_once_with_second_judgments(recwarn):
    # with qrels_b it was said twice: as asked (iprec_at_recall.2), then by its display
    # name (iprec_at_recall_2.00), which the second judgments' scoring parsed again
    from trecbench.errors import ParameterDomainWarning

    warnings.simplefilter("always")
    trecbench.agree(QRELS, RUNS[:2], ["iprec_at_recall.2", "map"], qrels_b=QRELS)
    said = [str(w.message) for w in recwarn if w.category is ParameterDomainWarning]
    assert len(said) == 1 and said[0].startswith("measure 'iprec_at_recall.2': "), said


def test_topics_without_a_relevant_document_are_warned_of_as_compare_says_them(tmp_path):
    # every run scores 0 on such a topic and it counts: power's d_z and topics needed and
    # agree's tests took them in without a word, where score warns and compare says so
    (tmp_path / "A.qrels").write_text("a 0 d1 1\na 0 d2 0\nb 0 d1 0\nb 0 d2 0\nc 0 d2 2\n")
    (tmp_path / "B.qrels").write_text("a 0 d1 0\na 0 d2 0\nb 0 d1 1\nb 0 d2 0\nc 0 d2 2\n")
    (tmp_path / "x.run").write_text("a Q0 d1 1 2 x\nb Q0 d1 1 1 x\nc Q0 d2 1 1 x\n")
    (tmp_path / "y.run").write_text("a Q0 d2 1 2 y\nb Q0 d2 1 1 y\nc Q0 d2 1 1 y\n")
    first, second = str(tmp_path / "A.qrels"), str(tmp_path / "B.qrels")
    runs = [str(tmp_path / "x.run"), str(tmp_path / "y.run")]

    def said(qrels: str, topics: str, level: int = 1) -> str:
        count = "1 topic" if "," not in topics else f"{topics.count(',') + 1} topics"
        return (
            f"{qrels}: {count} without a relevant document (grade >= {level}): the measures "
            f"of relevant documents are 0 there for every run, and the topics count: {topics}"
        )

    assert trecbench.power(first, runs[0], runs[1:], ["P@1"]).warnings == (said(first, "b"),)
    result = trecbench.agree(first, runs, ["P@1"], qrels_b=second)
    assert result.warnings == (said(first, "b"), said(second, "a"))
    at_two = trecbench.agree(first, runs, ["P@1"], relevance_level=2)
    assert at_two.warnings == (said(first, "a, b", 2),)


@pytest.mark.parametrize("test", ["bootstrap", "randomization", "tukey", "t"])
def test_the_resamples_are_told_as_compares_and_change_nothing(test):
    # agree drew no progress while its tests resampled (11-25 s of silence on 20 runs);
    # the bar counts every measure's resamples as one job, and the values are the same
    told = []
    drawn = {} if test == "t" else {"samples": 300, "seed": 3}
    asked = (QRELS, RUNS, ["P@5", "nDCG@10"])
    quiet = trecbench.agree(*asked, test=test, **drawn)
    loud = trecbench.agree(*asked, test=test, **drawn, progress=lambda *call: told.append(call))
    assert loud.to_dict() == quiet.to_dict()
    resampling = [(done, total) for label, done, total in told if label == "resampling"]
    if test == "t":  # draws nothing
        assert resampling == []
    else:
        assert resampling[-1] == (600, 600)
        assert [done for done, _ in resampling] == sorted(done for done, _ in resampling)


@pytest.mark.parametrize("command", ["agree", "power"])
def test_one_measure_asked_by_two_spellings_is_refused_as_compare_refuses_it(command, capsys):
    """Reviewer 677: power printed P@5's row twice for -m P@5 -m P_5, and agree dropped
    the second spelling without a word, where compare refuses it."""
    from conftest import ROOT

    from trecbench.cli import run as cli_run

    runs = [str(ROOT / "runs" / f"{name}.run") for name in ("tfidf-word", "tfidf-char",
                                                             "tfidf-word-parents")]  # fmt: skip
    qrels = str(ROOT / "qrels" / "hpo-demo.qrels")
    assert cli_run([command, qrels, *runs, "-m", "P@5", "-m", "P_5", "-m", "map"]) == 1
    assert capsys.readouterr().err == (
        f"trecbench: P@5 and P_5 are one measure (P@5): {command} shows and tests each "
        "measure once, by that name; ask it by one spelling\n"
    )


def test_tukey_resamples_that_cannot_fit_are_refused_as_the_bootstrap_s_are(monkeypatch):
    """agree --test tukey --samples 2**32 ended "out of memory" (exit 70) where the
    bootstrap's resamples are refused in one line (reviewer 686): its ranges are now
    allocated by the same check, which counts the sorted copy beside them (reviewer 693:
    3e9 samples on 23.5 GiB passed, then ran short); a machine of 11.7 MiB here: 10**6
    samples are 7.6 MiB, 15.3 MiB with their copy."""
    from types import SimpleNamespace

    from trecbench import resampling
    from trecbench.errors import TooManySamplesError

    sizes = {"SC_PAGE_SIZE": 4096, "SC_PHYS_PAGES": 3000}
    monkeypatch.setattr(resampling, "os", SimpleNamespace(sysconf=sizes.__getitem__))
    values = np.array([[0.1, 0.2], [0.3, 0.5], [0.4, 0.4]])
    with pytest.raises(TooManySamplesError, match=r"^1,000,000 resamples of 1 value need "):
        stats.all_pairs_p(values, "tukey", 10**6, 3)
    monkeypatch.undo()
    assert stats.all_pairs_p(values, "tukey", 999, 3).shape == (2, 2)
