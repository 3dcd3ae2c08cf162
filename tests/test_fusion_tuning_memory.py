"""fuse --optimize holds one candidate's fused run at a time (reviewer 458: every
candidate's fused run was kept until all were scored, 6.2 GB for 1,001 candidates of 5
runs of 500 topics x 100 documents), with the choice it made holding them all."""

from __future__ import annotations

import weakref

import pytest

from trecbench.errors import UsageError
from trecbench.fusion_plan import FusionPlan
from trecbench.runstudy.fusion_tuning import optimize_fusion

# three topics ranked d1..d3 by run a, otherwise by run b; one relevant document each
RUNS = {
    "a": {"1": {"d1": 3, "d2": 2, "d3": 1}, "2": {"d1": 3, "d2": 2, "d3": 1},
          "3": {"d1": 3, "d2": 2, "d3": 1}},
    "b": {"1": {"d3": 3, "d1": 2, "d2": 1}, "2": {"d3": 3, "d2": 2, "d1": 0},
          "3": {"d3": 3, "d2": 2.5, "d1": 1}},
}  # fmt: skip
RELEVANT = {"1": "d1", "2": "d3", "3": "d1"}
# P@1 by hand, min-max normalised scores summed with weights (a, b) of step 0.5:
# (0, 1) ranks b's first; (1, 0) a's; (0.5, 0.5): topic 1 d1 0.75 > d3 0.5 > d2 0.25,
# topic 2 d2 (0.5 + 2/3) / 2 > d1 = d3 0.5, topic 3 d2 (0.5 + 0.75) / 2 > d1 = d3 0.5
P1 = {(0.0, 1.0): [0, 1, 0], (0.5, 0.5): [1, 0, 0], (1.0, 0.0): [1, 0, 1]}
# each topic held out, the best on the other two (ties: the first in grid order)
HELD_OUT_CHOICE = {"1": (0.0, 1.0), "2": (1.0, 0.0), "3": (0.0, 1.0)}


def _write(tmp_path) -> tuple[list[str], str]:
    paths = []
    for name, topics in RUNS.items():
        lines = [
            f"{q} Q0 {d} {rank} {score} {name}\n"
            for q, docs in topics.items()
            for rank, (d, score) in enumerate(docs.items(), 1)
        ]
        (tmp_path / f"{name}.run").write_text("".join(lines))
        paths.append(str(tmp_path / f"{name}.run"))
    qrels = "".join(f"{q} 0 {d} 1\n" for q, d in RELEVANT.items())
    (tmp_path / "q.qrels").write_text(qrels)
    return paths, str(tmp_path / "q.qrels")


def test_each_candidate_is_fused_scored_and_let_go_before_the_next(tmp_path, monkeypatch):
    fusing = FusionPlan.fused_and_ties  # each candidate, on the search's one plan
    made, alive = [], []

    def fused_and_ties(*args, **kwargs):
        alive.append(sum(ref() is not None for ref in made))  # earlier candidates' runs
        table, ties = fusing(*args, **kwargs)
        made.append(weakref.ref(table))
        return table, ties

    monkeypatch.setattr(FusionPlan, "fused_and_ties", fused_and_ties)
    runs, qrels = _write(tmp_path)
    tuned = optimize_fusion(runs, qrels, "P@1", "combsum", step=0.5)
    assert len(made) == 3 and alive == [0, 0, 0]  # held at once: [0, 1, 2]
    # the choice is the one made with every fused run held
    assert [c.weights for c in tuned.candidates] == list(P1)
    assert tuned.qids == ["1", "2", "3"] and tuned.folds == 3
    assert tuned.values.tolist() == list(P1.values())
    assert tuned.best.weights == (1.0, 0.0) and tuned.training == pytest.approx(2 / 3)
    for qid, fold in zip(tuned.qids, tuned.fold, strict=True):
        assert tuned.candidates[tuned.fold_choice[fold]].weights == HELD_OUT_CHOICE[qid]
    assert tuned.held_out == 0.0  # topics 1 and 3 by (0, 1), topic 2 by (1, 0): all 0


def test_the_qrels_are_prepared_once_for_every_candidate(tmp_path, monkeypatch):
    # each candidate's evaluation built the qrels' per-topic facts and duplicates anew
    from trecbench.evaluation import judgments
    from trecbench.trec_eval.compat import V9

    built = []
    preparing = judgments.Qrels.__init__

    def prepared(self, *args, **kwargs):
        built.append(args[0].num_rows)
        preparing(self, *args, **kwargs)

    monkeypatch.setattr(judgments.Qrels, "__init__", prepared)
    runs, qrels = _write(tmp_path)
    tuned = optimize_fusion(runs, qrels, "P@1", "combsum", step=0.25)  # 5 candidates
    assert len(tuned.candidates) == 5
    # once as the qrels are read (checked before a candidate is fused), once for the
    # candidates' evaluations, not once per candidate (6 builds before)
    assert built == [3, 3]
    # outside the search, each evaluation prepares its own
    judgments.load_judgments(qrels, "qrels", 1, V9)
    assert len(built) == 3


@pytest.mark.parametrize("method", ["combsum", "rrf"])
def test_the_runs_are_grouped_once_for_every_candidate(tmp_path, monkeypatch, method):
    # each candidate stacked the runs, normalised their scores (RRF: read their ranks) and
    # grouped their 18 rows by (topic, document) anew, the same for every candidate: half
    # of each candidate's time (500 topics x 100 documents x 4 runs, 286 candidates)
    from trecbench import arrow

    grouped = []
    grouping = arrow.Groups.__init__

    def counted(self, keys):
        grouped.append(len(keys))
        grouping(self, keys)

    monkeypatch.setattr(arrow.Groups, "__init__", counted)
    runs, qrels = _write(tmp_path)
    if method == "combsum":
        tuned = optimize_fusion(runs, qrels, "P@1", method, step=0.25)
        assert len(tuned.candidates) == 5
    else:  # every k ranks these runs alike: refused once every candidate is scored
        with pytest.raises(UsageError, match="every candidate scores the same P@1"):
            optimize_fusion(runs, qrels, "P@1", method, k_grid=[1, 10, 60, 100, 1000])
    assert grouped.count(18) == 1  # 2 runs x 3 topics x 3 documents, once (5 before)


def test_what_every_candidate_evaluation_warns_of_is_said_once(tmp_path, capsys):
    """Each candidate is scored by an evaluation of its own: what every one of them warns
    of (pyndeval: qrels without subtopics) is said once, as the one evaluation of every
    candidate said it, located where the search was called, not once per candidate."""
    pytest.importorskip("pyndeval")
    import warnings

    from trecbench.cli import run

    runs, qrels = _write(tmp_path)
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        tuned = optimize_fusion(runs, qrels, "alpha_nDCG@3", "combsum", step=0.5)
    assert len(tuned.candidates) == 3
    subtopics = [w for w in said if "one subtopic" in str(w.message)]
    assert [w.category.__name__ for w in subtopics] == ["ProviderWarning"]
    assert subtopics[0].filename == __file__
    out = tmp_path / "fused.run"
    args = ["fuse", "--method", "combsum", "--step", "0.5", "--qrels", qrels, *runs]
    assert run([*args, "--optimize", "alpha_nDCG@3", "-o", str(out)]) == 0
    lines = capsys.readouterr().err.splitlines()
    assert sum("one subtopic" in line for line in lines) == 1, lines
    assert lines[0].startswith("trecbench: warning: ProviderWarning: alpha_nDCG@3: "), lines
    assert lines[1].startswith("chose weights="), lines
