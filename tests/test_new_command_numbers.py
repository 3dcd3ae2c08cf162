"""Printed numbers of the last stop's commands that no test held against an independent
source: leaderboard's tests over collections and mean ranks (scipy, statsmodels, pytrec_eval,
ranks worked by hand; in JSON and read back from the table and Markdown), similarity's mean
row and --depth (the rbo package, scipy), diff's moved topics (the reports' own per-topic
values), agree's orderings under --qrels-b, its printed orderings where τ-b and τ_AP differ
and its discriminative power under the Wilcoxon test (pytrec_eval, scipy, statsmodels),
pool's topic count (plain Python)."""

from __future__ import annotations

import itertools
import json
import random

import numpy as np
import pytest
from conftest import ROOT, shown_rows

from trecbench.cli import run

pytrec_eval = pytest.importorskip("pytrec_eval")
QRELS = str(ROOT / "qrels/hpo-demo.qrels")
RUNS = [
    str(ROOT / f"runs/{name}.run") for name in ("tfidf-word", "tfidf-char", "tfidf-word-parents")
]


def _read(path: str, kind: str) -> dict:
    """A TREC file as pytrec_eval's dicts (qrels grades, run scores)."""
    found: dict = {}
    for line in open(path, encoding="utf-8"):
        fields = line.split()
        if kind == "qrels":
            found.setdefault(fields[0], {})[fields[2]] = int(fields[3])
        else:
            found.setdefault(fields[0], {})[fields[2]] = float(fields[4])
    return found


def _per_topic(qrels: dict, run_dict: dict, measure: str) -> dict[str, float]:
    evaluator = pytrec_eval.RelevanceEvaluator(
        qrels, {measure.split("_cut_")[0] + "_cut" if "_cut_" in measure else measure}
    )
    return {q: v[measure] for q, v in evaluator.evaluate(run_dict).items()}


def _holm(p: list[float]) -> list[float]:
    """Holm's step-down adjustment written out (statsmodels takes seconds to import)."""
    order = sorted(range(len(p)), key=lambda i: p[i])
    adjusted, running = [0.0] * len(p), 0.0
    for step, i in enumerate(order):
        running = max(running, min(1.0, (len(p) - step) * p[i]))
        adjusted[i] = running
    return adjusted


def _json(args: list[str], capsys, code: int = 0) -> dict:
    assert run(args) == code
    return json.loads(capsys.readouterr().out)


# ---------------------------------------------------------------- leaderboard


def _write_run(path, run_dict: dict, tag: str) -> None:
    lines = []
    for qid, docs in run_dict.items():
        ranked = sorted(docs.items(), key=lambda x: (-x[1], x[0]))
        lines += [f"{qid} Q0 {d} {i + 1} {s} {tag}" for i, (d, s) in enumerate(ranked)]
    path.write_text("\n".join(lines) + "\n")


def _collection(rng: random.Random, topics: int) -> tuple[dict, dict]:
    qrels = {f"q{t}": {f"d{i}": rng.randint(0, 2) for i in range(12)} for t in range(topics)}
    runs = {
        system: {
            f"q{t}": {f"d{i}": float(rng.randint(0, 10_000)) for i in rng.sample(range(20), 10)}
            for t in range(topics)
        }
        for system in ("x", "y", "z")
    }
    return qrels, runs


@pytest.fixture
def suite(tmp_path):
    """Three collections of random runs of three systems; on the third, y's run is x's
    (their means tie there)."""
    rng = random.Random(17)
    collections = {}
    for c, topics in enumerate((6, 8, 5)):
        qrels, runs = _collection(rng, topics)
        if c == 2:
            runs["y"] = runs["x"]
        folder = tmp_path / f"c{c}"
        folder.mkdir()
        (folder / "q.qrels").write_text(
            "".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items())
        )
        for system, run_dict in runs.items():
            _write_run(folder / f"{system}.run", run_dict, system)
        collections[f"c{c}"] = (qrels, runs)
    text = 'systems = ["x", "y", "z"]\nmeasures = ["nDCG@10"]\n' + "".join(
        f'[collections.{name}]\nqrels = "{name}/q.qrels"\nruns = "{name}/{{system}}.run"\n'
        for name in collections
    )
    (tmp_path / "suite.toml").write_text(text)
    return tmp_path / "suite.toml", collections


SYSTEMS = ("x", "y", "z")  # the suite's, x the baseline


def _hand_worked(collections: dict) -> tuple[dict, dict, dict]:
    """Per system of the suite: its mean nDCG@10 on each collection (pytrec_eval), its rank
    on each worked by hand (1 for the best mean; tied systems share the mean of their
    places) and its per-topic values over every collection, in one order for all."""
    means = {
        s: [
            np.mean(list(_per_topic(q, r[s], "ndcg_cut_10").values()))
            for q, r in collections.values()
        ]
        for s in SYSTEMS
    }
    ranks: dict[str, dict[str, float]] = {s: {} for s in SYSTEMS}
    for c, name in enumerate(collections):
        order = sorted(SYSTEMS, key=lambda s: -means[s][c])
        for s in SYSTEMS:
            tied = [i + 1 for i, other in enumerate(order) if means[other][c] == means[s][c]]
            ranks[s][name] = sum(tied) / len(tied)
    values = {
        s: {(c, q): v for c, (qrels, r) in collections.items()
            for q, v in _per_topic(qrels, r[s], "ndcg_cut_10").items()}
        for s in SYSTEMS
    }  # fmt: skip
    keys = sorted(values["x"])
    topics = {s: np.array([values[s][key] for key in keys]) for s in SYSTEMS}
    return means, ranks, topics


def test_leaderboard_over_collections_and_mean_ranks(suite, capsys):
    from scipy.stats import ttest_rel

    path, collections = suite
    board = _json(["leaderboard", str(path), "--format", "json"], capsys)["measures"][0]
    rows = {row["system"]: row for row in board["systems"]}
    assert board["topics"] == {name: len(qrels) for name, (qrels, _) in collections.items()}
    means, ranks, topics = _hand_worked(collections)
    for system in SYSTEMS:
        got = [rows[system]["means"][c] for c in collections]
        assert got == pytest.approx(means[system], abs=1e-12)
        assert rows[system]["macro_mean"] == pytest.approx(np.mean(means[system]), abs=1e-12)
    # x and y tie on c2 and share (1 + 2) / 2 or (2 + 3) / 2
    assert means["x"][2] == means["y"][2]
    for s in SYSTEMS:
        assert rows[s]["ranks"] == ranks[s]
        assert rows[s]["mean_rank"] == pytest.approx(np.mean(list(ranks[s].values())))
    for s in ("y", "z"):
        test = rows[s]["over_topics"]
        assert test["n"] == 19
        assert test["difference"] == pytest.approx(np.mean(topics[s] - topics["x"]), abs=1e-12)
        assert test["p"] == pytest.approx(ttest_rel(topics[s], topics["x"]).pvalue, rel=1e-10)
    raw = [ttest_rel(means[s], means["x"]).pvalue for s in ("y", "z")]
    holm = _holm(raw)
    for s, p, adjusted in zip(("y", "z"), raw, holm, strict=True):
        test = rows[s]["over_collections"]
        assert test["n"] == 3
        assert test["difference"] == pytest.approx(np.mean(means[s]) - np.mean(means["x"]))
        assert test["p"] == pytest.approx(p, rel=1e-10)
        assert test["p_adjusted"] == pytest.approx(adjusted, rel=1e-10)


@pytest.mark.parametrize("fmt", ["table", "markdown"])
def test_leaderboard_table_cells_are_the_hand_worked_ranks(suite, capsys, fmt):
    """The table and Markdown read back cell by cell against the same hand-worked means,
    ranks and Holm-adjusted ttest_rel p-values: only the JSON was held against them."""
    from scipy.stats import ttest_rel

    path, collections = suite
    assert run(["leaderboard", str(path), "--format", fmt]) == 0
    rows = shown_rows(capsys.readouterr().out, "system", fmt)
    means, ranks, topics = _hand_worked(collections)
    assert [row["system"] for row in rows] == list(SYSTEMS)
    others = ("y", "z")
    adjusted = {
        "p (collections)": _holm([ttest_rel(means[s], means["x"]).pvalue for s in others]),
        "p (topics)": _holm([ttest_rel(topics[s], topics["x"]).pvalue for s in others]),
    }
    for row in rows:
        s = row["system"]
        for c, name in enumerate(collections):
            assert row[name] == f"{means[s][c]:.4f} ({ranks[s][name]:g})"
        assert row["macro"] == f"{np.mean(means[s]):.4f}"
        assert row["mean rank"] == f"{np.mean(list(ranks[s].values())):.2f}"
        for column, p in adjusted.items():
            shown = "baseline" if s == "x" else f"{p[others.index(s)]:.4f}"
            assert row[column] == shown


# ---------------------------------------------------------------- similarity


def _ranking(docs: dict) -> list[str]:
    """trec_eval's order: score descending, docno descending."""
    return [d for d, _ in sorted(docs.items(), key=lambda x: (x[1], x[0]), reverse=True)]


def test_similarity_mean_row_and_depth_equal_the_rbo_package_and_scipy(capsys):
    rbo = pytest.importorskip("rbo")
    from scipy.stats import kendalltau

    a, b = _read(RUNS[0], "run"), _read(RUNS[1], "run")
    depth, p = 7, 0.8
    args = ["similarity", RUNS[0], RUNS[1], "--rbo-p", str(p), "--depth", str(depth)]
    pair = _json([*args, "--format", "json"], capsys)["pairs"][0]
    expected: dict[str, list] = {"rbo_ext": [], "overlap": [], "kendall_tau": [], "shared": []}
    for row in pair["topics"]:
        s, t = _ranking(a[row["qid"]])[:depth], _ranking(b[row["qid"]])[:depth]
        assert row["rbo_ext"] == pytest.approx(rbo.RankingSimilarity(s, t).rbo_ext(p), abs=1e-12)
        shared = [d for d in s if d in t]
        tau = (
            kendalltau([s.index(d) for d in shared], [t.index(d) for d in shared]).statistic
            if len(shared) > 1
            else None
        )
        assert row["kendall_tau"] == (None if tau is None else pytest.approx(tau, abs=1e-12))
        assert row["shared"] == len(shared)
        expected["rbo_ext"].append(row["rbo_ext"])
        expected["overlap"].append(len(set(s) & set(t)) / len(set(s) | set(t)))  # k 10 > depth
        expected["kendall_tau"] += [] if tau is None else [tau]
        expected["shared"].append(len(shared))
    assert any(row["kendall_tau"] is None for row in pair["topics"])  # skipped in the mean
    mean = pair["mean"]
    for name in ("rbo_ext", "overlap", "kendall_tau"):
        assert mean[name] == pytest.approx(np.mean(expected[name]), abs=1e-12)
    assert run(args) == 0
    table = capsys.readouterr().out.splitlines()
    all_row = table[1].split()
    assert all_row[2] == "all"
    assert all_row[3] == f"{mean['rbo_ext']:.4f}"
    assert all_row[6] == f"{mean['overlap']:.4f}"
    assert all_row[7] == f"{mean['kendall_tau']:+.4f}".lstrip("+")
    assert all_row[8] == str(sum(expected["shared"]))


# ---------------------------------------------------------------- diff


def test_diff_moved_topics_are_the_reports_own_differences(tmp_path, capsys):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    assert run(["score", "--report", str(a), QRELS, RUNS[0], "-m", "P@10"]) == 0
    assert run(["score", "--report", str(b), "-l", "2", QRELS, RUNS[0], "-m", "P@10"]) == 0
    capsys.readouterr()
    found = _json(["diff", str(a), str(b), "--format", "json"], capsys, code=1)
    before = json.loads(a.read_text())["results"][0]["per_query"]
    after = json.loads(b.read_text())["results"][0]["per_query"]
    changes = {
        q: after[q]["P@10"] - before[q]["P@10"]
        for q in before
        if f"{after[q]['P@10']:.4f}" != f"{before[q]['P@10']:.4f}"
    }
    expected = sorted(changes.items(), key=lambda item: (-abs(item[1]), item[0]))[:5]
    (value,) = found["values"]
    assert [(m["qid"], m["change"]) for m in value["movers"]] == [
        (q, pytest.approx(c, abs=1e-15)) for q, c in expected
    ]
    assert value["moved"] == len(changes)
    assert run(["diff", str(a), str(b)]) == 1
    shown = ", ".join(f"{q} {c:+.4f}" for q, c in expected)
    assert f" (moved most: {shown}; {len(changes)} topics moved)\n" in capsys.readouterr().out


# ---------------------------------------------------------------- agree


def _means(qrels: dict, measure: str) -> list[float]:
    """Each demo run's mean over the qrels' topics, a topic without results scoring 0."""
    means = []
    for path in RUNS:
        values = _per_topic(qrels, _read(path, "run"), measure)
        means.append(np.mean([values.get(q, 0.0) for q in qrels]))
    return means


def test_agree_orderings_under_a_second_qrels_equal_scipy_and_plain_tau_ap(tmp_path, capsys):
    from scipy.stats import kendalltau
    from test_agree import mean_tau_ap

    rng = random.Random(4)
    grades = {
        q: {d: max(0, g + rng.choice([-1, 0, 1])) for d, g in docs.items()}
        for q, docs in _read(QRELS, "qrels").items()
    }
    weakest = _read(RUNS[2], "run")
    for qid in grades:  # the second assessor found more in tfidf-word-parents' top documents
        grades[qid].update({d: 1 for d in _ranking(weakest[qid])[:3] if rng.random() < 0.7})
    other = tmp_path / "b.qrels"
    other.write_text(
        "".join(f"{q} 0 {d} {g}\n" for q, docs in grades.items() for d, g in docs.items())
    )
    args = ["agree", QRELS, *RUNS, "-m", "P@5", "-m", "RR", "--qrels-b", str(other)]
    found = _json([*args, "--format", "json"], capsys)
    qrels = _read(QRELS, "qrels")
    for ordering, measure in zip(found["qrels_orderings"], ("P_5", "recip_rank"), strict=True):
        under_a, under_b = _means(qrels, measure), _means(grades, measure)
        tau = kendalltau(under_a, under_b).statistic
        assert tau < 1  # the orderings differ: a test of the second qrels' means
        assert ordering["kendall_tau"] == pytest.approx(tau, abs=1e-12)
        assert ordering["tau_ap"] == pytest.approx(mean_tau_ap(under_a, under_b), abs=1e-9)


@pytest.mark.parametrize("fmt", ["table", "markdown", "latex"])
def test_agree_printed_orderings_are_scipys_tau_and_the_plain_tau_ap(capsys, fmt):
    """The printed means and orderings read back cell by cell, on measures whose τ-b and
    τ_AP differ (Recall@100 puts tfidf-word last, nDCG@10 tfidf-word-parents: a swap at
    the bottom): the command line's tests had τ-b = τ_AP = +1, so exchanging their
    columns went unseen."""
    from scipy.stats import kendalltau
    from test_agree import mean_tau_ap

    labels = {"nDCG@10": "ndcg_cut_10", "Recall@100": "recall_100", "P@5": "P_5"}
    args = ["agree", QRELS, *RUNS, *(f"-m{name}" for name in labels), "--format", fmt]
    assert run(args) == 0
    printed = capsys.readouterr().out
    qrels = _read(QRELS, "qrels")
    means = {name: _means(qrels, label) for name, label in labels.items()}
    shown = shown_rows(printed, "run", fmt)
    assert [row["run"] for row in shown] == ["tfidf-word", "tfidf-char", "tfidf-word-parents"]
    for r, row in enumerate(shown):
        assert [row[name] for name in labels] == [f"{means[name][r]:.4f}" for name in labels]
    column = (lambda name: name.replace("_", r"\_")) if fmt == "latex" else str
    rows = shown_rows(printed, "reference", fmt)
    assert [(row["reference"], row["evaluated"]) for row in rows] == list(
        itertools.combinations(labels, 2)
    )
    differ = 0
    for row in rows:
        reference, evaluated = means[row["reference"]], means[row["evaluated"]]
        tau, ap = kendalltau(reference, evaluated).statistic, mean_tau_ap(reference, evaluated)
        assert row[column("kendall_tau")] == f"{tau:+.4f}"
        assert row[column("tau_ap")] == f"{ap:+.4f}"
        differ += round(tau, 4) != round(ap, 4)
    assert differ == 2  # nDCG@10 and P@5 order the runs alike, Recall@100 not


def test_agree_discriminative_power_under_wilcoxon_equals_scipy(capsys):
    from scipy.stats import wilcoxon

    from trecbench.conclusions.discrimination import DiscriminationSettings, pair_p_values

    args = ["agree", QRELS, *RUNS, "-m", "nDCG@10", "-m", "P@10", "--test", "wilcoxon"]
    found = _json([*args, "--format", "json"], capsys)
    qrels = _read(QRELS, "qrels")
    for power, measure in zip(found["discriminative_power"], ("ndcg_cut_10", "P_10"), strict=True):
        values = [_per_topic(qrels, _read(path, "run"), measure) for path in RUNS]
        columns = [np.array([v.get(q, 0.0) for q in sorted(qrels)]) for v in values]
        pairs = list(itertools.combinations(range(3), 2))
        raw = [wilcoxon(columns[i], columns[j], zero_method="wilcox").pvalue for i, j in pairs]
        settings = DiscriminationSettings(test="wilcoxon")
        found_p = pair_p_values(np.column_stack(columns), settings)
        assert found_p == pytest.approx(raw, rel=1e-9)  # what the counts are drawn from
        significant = np.array(_holm(raw)) < 0.05
        gaps = [abs(columns[i].mean() - columns[j].mean()) for i, j in pairs]
        assert (power["pairs"], power["significant"]) == (3, int(significant.sum()))
        smallest = min((g for g, s in zip(gaps, significant, strict=True) if s), default=None)
        if smallest is None:
            assert power["smallest_significant_difference"] is None
        else:
            assert power["smallest_significant_difference"] == pytest.approx(smallest, abs=1e-12)


# ---------------------------------------------------------------- pool


def test_pool_summary_line_counts_documents_and_topics(tmp_path, capsys):
    target = tmp_path / "pool.txt"
    assert run(["pool", *RUNS, "--depth", "4", "--qrels", QRELS, "-o", str(target)]) == 0
    out = capsys.readouterr().out
    qrels = _read(QRELS, "qrels")
    tops = {
        (q, d)
        for path in RUNS
        for q, docs in _read(path, "run").items()
        for d in _ranking(docs)[:4]
        if d not in qrels.get(q, {})
    }
    topics = len({q for q, _ in tops})
    assert f"{len(tops)} documents to judge in {topics} topics" in out
    assert len(target.read_text().splitlines()) == len(tops)
