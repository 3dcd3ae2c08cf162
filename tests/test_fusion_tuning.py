"""fuse --optimize: the grid search and its cross-validation against a brute-force search
that fuses and scores each candidate through the public API."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import ROOT

import trecbench
from trecbench.errors import UsageError
from trecbench.runstudy.fusion_tuning import grid, optimize_fusion

RTASK = ROOT / "data" / "hpo-rtask"
RUNS = [str(RTASK / "lexical.run"), str(RTASK / "vector.run")]
QRELS = str(RTASK / "hpo-rtask.qrels")


def _brute_force(method: str, candidates, measure: str) -> dict[str, np.ndarray]:
    """Each candidate's per-topic values: trecbench.fuse, then trecbench.evaluate."""
    values = {}
    for candidate in candidates:
        fused = trecbench.fuse(RUNS, method, k=candidate.k, weights=candidate.weights)
        frame = trecbench.evaluate(QRELS, fused, [measure]).per_query
        values[candidate.label()] = frame.set_index("qid")["value"]
    return values


@pytest.mark.parametrize(("method", "measure"), [("rrf", "nDCG@10"), ("combsum", "MRR@10")])
def test_choice_and_held_out_score_equal_a_brute_force_search(method, measure):
    grid = {} if method == "rrf" else {"step": 0.25}  # rrf refuses a step: its grid is k's
    tuned = optimize_fusion(RUNS, QRELS, measure, method, folds=4, seed=7, **grid)
    values = _brute_force(method, tuned.candidates, measure)
    labels = [c.label() for c in tuned.candidates]
    means = [values[label].mean() for label in labels]
    assert tuned.best.label() == labels[int(np.argmax(means))]
    assert tuned.training == pytest.approx(max(means), abs=1e-12)
    held = []
    for f in range(4):
        test = {q for q, fold in zip(tuned.qids, tuned.fold, strict=True) if fold == f}
        train = [values[label][[q for q in tuned.qids if q not in test]].mean() for label in labels]
        best = labels[int(np.argmax(train))]
        assert tuned.candidates[tuned.fold_choice[f]].label() == best
        held += list(values[best][sorted(test)])
    assert tuned.held_out == pytest.approx(np.mean(held), abs=1e-12)


def test_the_folds_are_seeded_and_balanced():
    a = optimize_fusion(RUNS, QRELS, "nDCG@10", folds=5, seed=1)
    b = optimize_fusion(RUNS, QRELS, "nDCG@10", folds=5, seed=1)
    assert list(a.fold) == list(b.fold)
    assert sorted(np.bincount(a.fold)) in ([11, 11, 11, 11, 12], [11, 11, 11, 12, 12])


def test_the_weight_grid_is_the_simplex():
    points = grid("combsum", 3, step=0.5)
    assert sorted(c.weights for c in points) == sorted(
        [(0, 0, 1), (0, 0.5, 0.5), (0, 1, 0), (0.5, 0, 0.5), (0.5, 0.5, 0), (1, 0, 0)]
    )


def test_a_candidate_holds_what_its_method_has():
    """Reviewer 379: combsum's candidates showed k=60, which plays no part in them; RRF's
    k is held as given (60, not 60.0)."""
    weighted = grid("combsum", 2, step=0.5)
    assert [c.k for c in weighted] == [None] * 3
    assert repr(weighted[0]) == "Candidate(weights=(0.0, 1.0))"
    ks = grid("rrf", 2, k_grid=(60, 2.5, 30.0))
    assert [(c.k, type(c.k)) for c in ks] == [(60, int), (2.5, float), (30, int)]
    assert repr(ks[0]) == "Candidate(k=60)"


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"method": "combmax"}, "has no parameter to tune"),
        ({"method": "combsum", "step": 0.3}, "must divide 1"),
        ({"method": "combsum", "step": 0.0}, "must divide 1"),
        ({"method": "combsum", "step": float("nan")}, "must divide 1"),
        ({"method": "combsum", "step": -0.5}, "must divide 1"),
        ({"folds": 1}, "folds must be an integer of 2 or more, not 1"),
    ],
)
def test_what_cannot_be_tuned_is_refused(kwargs, message):
    with pytest.raises(UsageError, match=message):
        optimize_fusion(RUNS, QRELS, "nDCG@10", **kwargs)


def test_the_library_names_its_own_parameters_not_the_cli_s():
    """optimize_fusion said "--optimize chooses how runs are fused" and "--step 1e-300 over
    2 runs", options a Python caller has not; the CLI names them (tests below)."""
    for args, kwargs, message in (
        (RUNS[:1], {}, "optimize_fusion chooses how runs are fused: give two runs or more"),
        (RUNS, {"method": "combsum", "step": 1e-300}, "step 1e-300 over 2 runs makes about"),
        (RUNS, {"folds": 2}, "optimize_fusion needs a measure with one number per topic"),
    ):
        measure = "P.1,5" if "folds" in kwargs else "nDCG@10"
        with pytest.raises(UsageError) as refused:
            optimize_fusion(args, QRELS, measure, **kwargs)
        assert str(refused.value).startswith(message) and "--" not in str(refused.value)


def test_numpy_integers_are_taken_and_bad_settings_refused_before_any_run_is_read():
    """Reviewer 233: seed=np.int64(2) and folds=np.int64(3) were refused as "--seed must
    be a non-negative integer" (an option a Python caller has not), after every candidate
    had been fused and scored."""
    plain = optimize_fusion(RUNS, QRELS, "nDCG@10", folds=3, seed=2)
    tuned = optimize_fusion(RUNS, QRELS, "nDCG@10", folds=np.int64(3), seed=np.int64(2))
    assert (tuned.fold == plain.fold).all() and tuned.held_out == plain.held_out
    assert type(tuned.to_json()["seed"]) is int and tuned.to_json()["seed"] == 2
    missing = ["no-such-a.run", "no-such-b.run"]  # read, they would be refused for that
    for kwargs, message in (
        ({"seed": -1}, "seed must be a non-negative integer, not -1"),
        ({"seed": True}, "seed must be a non-negative integer, not True"),
        ({"seed": 1.5}, "seed must be a non-negative integer, not 1.5"),
        ({"folds": np.int64(1)}, "folds must be an integer of 2 or more, not np.int64(1)"),
        ({"folds": 2.0}, "folds must be an integer of 2 or more, not 2.0"),
    ):
        with pytest.raises(UsageError) as refused:
            optimize_fusion(missing, QRELS, "nDCG@10", **kwargs)
        assert str(refused.value) == message


def test_cli_writes_the_run_fused_with_the_chosen_parameters(tmp_path, capsys):
    from trecbench.cli import run

    out = tmp_path / "tuned.run"
    args = [
        "fuse",
        "--method",
        "combsum",
        "--optimize",
        "nDCG@10",
        "--qrels",
        QRELS,
        "--step",
        "0.25",
    ]
    assert run([*args, *RUNS, "-o", str(out)]) == 0
    said = capsys.readouterr().err.splitlines()[0]
    tuned = optimize_fusion(RUNS, QRELS, "nDCG@10", "combsum", step=0.25)
    assert said.startswith(f"chose {tuned.best.label()} for nDCG@10 on {QRELS}: held-out ")
    scored = trecbench.evaluate(QRELS, str(out), ["nDCG@10"]).aggregates["value"].iloc[0]
    assert scored == pytest.approx(tuned.training, abs=1e-12)
    assert run(["fuse", "--qrels", QRELS, *RUNS, "-o", str(tmp_path / "x.run")]) == 1


def test_a_weight_grid_too_large_to_score_is_refused_at_once():
    assert len(grid("combsum", 3, step=0.01)) == 5151  # C(102, 2)
    with pytest.raises(UsageError, match="176,851 weightings"):
        grid("combsum", 4, step=0.01)


def test_the_chosen_parameters_are_said_in_one_line(tmp_path, capsys):
    # the qrels' path was printed as it is: a newline in it split the message
    import shutil

    from trecbench.cli import run

    qrels = tmp_path / "q\nrels"
    shutil.copy(QRELS, qrels)
    args = ["fuse", "--method", "combsum", "--optimize", "P@5", "--qrels", str(qrels)]
    assert run([*args, "--step", "0.5", *RUNS, "-o", str(tmp_path / "t.run")]) == 0
    said = capsys.readouterr().err.splitlines()
    assert said[0].startswith("chose ") and f"on {tmp_path}/q\\nrels: held-out " in said[0]
    assert said[1].startswith("wrote ")


def _qrels_with(tmp_path, grade: int, prefix: str = "") -> str:
    """The dev qrels with every grade set to ``grade`` and ``prefix`` before each topic."""
    lines = []
    for line in open(QRELS).read().splitlines():
        qid, iteration, docno, _ = line.split()
        lines.append(f"{prefix}{qid} {iteration} {docno} {grade}")
    path = tmp_path / "dev.qrels"
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def test_qrels_that_tell_no_candidate_apart_choose_nothing(tmp_path, capsys):
    # nothing relevant: every k scored 0 everywhere and the first, k=10, was written as
    # the one "chosen", exit 0
    from trecbench.cli import run

    qrels, out = _qrels_with(tmp_path, 0), tmp_path / "tuned.run"
    assert run(["fuse", "--optimize", "nDCG@10", "--qrels", qrels, *RUNS, "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert err == (
        f"trecbench: --optimize: every candidate scores the same nDCG@10 on every topic of "
        f"{qrels} (mean 0.0000): there is nothing to choose; fuse without --optimize, with a "
        "k or weights of your own\n"
    )
    assert not out.exists()
    # one run fuses alike whatever k: it was refused as if the qrels were at fault
    assert run(["fuse", "--optimize", "nDCG@10", "--qrels", QRELS, RUNS[0], "-o", str(out)]) == 1
    said = capsys.readouterr().err
    assert said == "trecbench: --optimize chooses how runs are fused: give two runs or more\n"


def test_qrels_without_a_topic_of_the_runs_are_named(tmp_path, capsys):
    # the error named the first candidate's fused run, "0", as if it were a file
    from trecbench.cli import run

    qrels, out = _qrels_with(tmp_path, 1, prefix="other-"), tmp_path / "tuned.run"
    assert run(["fuse", "--optimize", "nDCG@10", "--qrels", qrels, *RUNS, "-o", str(out)]) == 7
    err = capsys.readouterr().err
    assert err.startswith(f"trecbench: {qrels}: No queries with both results and relevance")
    assert err.endswith(
        "the runs' 'de-01', 'de-02', 'de-03' and 53 more; the qrels' 'other-de-01', "
        "'other-de-02', 'other-de-03' and 53 more)\n"
    )
    assert err.count("\n") == 1 and not out.exists()


def test_a_search_on_some_of_the_runs_topics_says_so(tmp_path):
    # qrels of the 28 'de' topics of 56: the choice was made on half the topics and
    # nothing said so, where score warns of run topics the qrels lack (helper 643)
    qrels = tmp_path / "de.qrels"
    lines = open(QRELS, encoding="utf-8").read().splitlines(keepends=True)
    qrels.write_text("".join(line for line in lines if line.startswith("de-")))
    with pytest.warns(UserWarning) as said:
        tuned = optimize_fusion(RUNS, str(qrels), "nDCG@10", method="rrf")
    assert len(tuned.qids) == 28
    (warned,) = [str(w.message) for w in said if "tuned on" in str(w.message)]
    assert warned == (
        "tuned on 28 of the runs' 56 topics: 28 run topics are not in the qrels (ignored, "
        "also with -c): en-01, en-02, en-03, en-04, en-05, ..."
    )


def test_fuse_optimize_reads_each_run_once(tmp_path, capsys):
    # the search read the runs, then the fusion read them again: a FIFO was empty the
    # second time (and a file could change between the two reads)
    import errno
    import os
    import threading
    import time
    from pathlib import Path

    from trecbench.cli import run

    fifo = tmp_path / "lexical.run"
    os.mkfifo(fifo)
    done = threading.Event()

    def feed():
        fifo.write_bytes(Path(RUNS[0]).read_bytes())
        while not done.is_set():  # a second reader gets an empty file, not a hang
            try:
                os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
            except OSError as error:
                assert error.errno == errno.ENXIO  # no reader yet
            time.sleep(0.05)

    threading.Thread(target=feed, daemon=True).start()
    piped, plain = tmp_path / "piped.run", tmp_path / "plain.run"
    args = ["fuse", "--optimize", "nDCG@10", "--qrels", QRELS, "--folds", "2"]
    try:
        assert run([*args, str(fifo), RUNS[1], "-o", str(piped)]) == 0
    finally:
        done.set()
    assert run([*args, *RUNS, "-o", str(plain)]) == 0
    assert piped.read_bytes() == plain.read_bytes()


def test_one_topic_cannot_be_cross_validated(tmp_path, capsys):
    # the message asked for folds "from 2 to the number of topics (1 topic)": no value
    from trecbench.cli import run

    qrels = tmp_path / "one.qrels"
    qrels.write_text("q1 0 d1 1\n")
    runs = []
    for name, order in (("a", "d1 d2"), ("b", "d2 d1")):
        path = tmp_path / f"{name}.run"
        path.write_text(
            "".join(f"q1 Q0 {d} {r} {3 - r} {name}\n" for r, d in enumerate(order.split(), 1))
        )
        runs.append(str(path))
    assert run(["fuse", "--optimize", "P@1", "--qrels", str(qrels), *runs, "-o", "-"]) == 1
    assert capsys.readouterr().err == (
        "trecbench: --optimize cross-validates over topics: it needs 2 or more topics of the "
        "runs in the qrels, not 1\n"
    )


def test_fewer_topics_than_five_take_one_fold_each_unless_asked(tmp_path):
    # three topics were refused: "--folds must be ... not 5", a default never given
    qrels = tmp_path / "three.qrels"
    qrels.write_text("q1 0 d1 1\nq2 0 d2 1\nq3 0 d1 1\n")
    runs = []
    for name, first in (("a", "d1 d1 d2"), ("b", "d2 d2 d1")):
        path = tmp_path / f"{name}.run"
        lines = []
        for qid, top in zip(("q1", "q2", "q3"), first.split(), strict=True):
            other = "d2" if top == "d1" else "d1"
            lines += [f"{qid} Q0 {top} 1 2 {name}\n", f"{qid} Q0 {other} 2 1 {name}\n"]
        path.write_text("".join(lines))
        runs.append(str(path))
    tuned = optimize_fusion(runs, str(qrels), "P@1", "combsum", step=0.5)
    assert tuned.folds == 3 and tuned.to_json()["folds"] == 3
    with pytest.raises(UsageError, match=r"^folds must be from 2 to the number of topics"):
        optimize_fusion(runs, str(qrels), "P@1", "combsum", step=0.5, folds=4)


@pytest.mark.parametrize(
    ("folds", "message"),
    [
        ("1", "--folds must be an integer of 2 or more, not 1"),
        ("100", "--folds must be from 2 to the number of topics (56 topics), not 100"),
    ],
)
def test_the_command_names_the_folds_option_it_refuses(capsys, folds, message):
    # the library's check, moved before the runs are read, said "folds must ..." to the
    # command line (reviewer 245), where click names every other option
    from trecbench.cli import run

    args = ["fuse", "--optimize", "nDCG@10", "--qrels", QRELS, "--folds", folds, *RUNS]
    assert run([*args, "-o", "-"]) == 1
    assert capsys.readouterr().err == f"trecbench: {message}\n"


@pytest.mark.parametrize(
    ("value", "said"),
    [
        # it said "--optimize needs --qrels: the judgments it chooses on", --qrels given
        ("--qrels", "--optimize took the option '--qrels' as its value: "),
        # it read the qrels as a measure ("illegal measure ...")
        (QRELS, f"--optimize took '{QRELS}' as a measure name: "),
        # it said "give a measure, e.g. measures='map'": the library's keyword, not the flag
        (" ", "empty measure name ' ': "),
    ],
)
def test_optimize_given_no_measure_says_what_it_took_as_minus_m_does(capsys, value, said):
    from trecbench.cli import run

    args = ["fuse", "--optimize", value, "--qrels", QRELS, *RUNS, "-o", "-"]
    if value == QRELS:
        args = ["fuse", "--optimize", QRELS, *RUNS, "-o", "-"]
    assert run(args) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (
        f"trecbench: fuse: {said}give --optimize a value (e.g. --optimize nDCG@10) "
        "(see 'trecbench fuse --help')\n"
    )


def test_optimize_reads_its_value_as_minus_m_does(capsys):
    # both were refused in the library's words: "illegal measure 'nDCG@10 ': a blank in a
    # measure's name (each entry of a list of measures is one name ...)", while -m took them
    from trecbench.cli import run

    args = ["fuse", "--qrels", QRELS, *RUNS, "-o", "-", "--optimize"]
    assert run([*args, "nDCG@10"]) == 0
    plain = capsys.readouterr()
    assert "chose k=" in plain.err and " for nDCG@10 on " in plain.err
    assert run([*args, " nDCG@10 "]) == 0
    assert capsys.readouterr() == plain
    assert run([*args, "P@5 map"]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (
        "trecbench: fuse: --optimize takes one measure, not 2 ('P@5 map') "
        "(see 'trecbench fuse --help')\n"
    )


def test_means_equal_on_paper_choose_the_first_candidate():
    from trecbench.runstudy.fusion_tuning import _best

    means = np.array([0.3, 0.1 + 0.2, 0.3 - 1e-3])  # 0.3, 0.30000000000000004: equal on paper
    assert _best(means, higher=True) == 0
    assert _best(means[[1, 0, 2]], higher=False) == 2
    assert _best(-means, higher=False) == 0
    assert _best(np.array([0.2, 0.3]), higher=True) == 1


def _beyond_float32(tmp_path) -> tuple[list[str], str]:
    """Runs whose weighted sums (--norm none) leave float32's range once run a weighs 0.25
    or more (its scores near 3e39: they tie at float32, ranked by docno against their
    order), and qrels on which run b alone (weights 0,1) ranks d1 first."""
    runs = []
    for name, scores in (("a", (3e39, 2.9e39, 2.8e39)), ("b", (3.0, 2.0, 1.0))):
        path = tmp_path / f"{name}.run"
        path.write_text(
            "".join(
                f"{qid} Q0 d{rank} {rank} {score!r} {name}\n"
                for qid in ("q1", "q2", "q3")
                for rank, score in enumerate(scores, 1)
            )
        )
        runs.append(str(path))
    qrels = tmp_path / "dev.qrels"
    qrels.write_text("".join(f"{qid} 0 d1 1\n" for qid in ("q1", "q2", "q3")))
    return runs, str(qrels)


def test_candidates_whose_fused_scores_tie_at_float32_are_warned_of_once(tmp_path, capsys):
    # each of the 4 candidates beyond float32 said the warning of `fuse --norm none`, each
    # with its own numbers: 4 lines (a grid of 0.1 steps: 9)
    import warnings

    from trecbench.cli import run
    from trecbench.errors import ParameterDomainWarning

    runs, qrels = _beyond_float32(tmp_path)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        tuned = optimize_fusion(runs, qrels, "P@1", "combsum", norm="none", step=0.25)
    assert tuned.best.label() == "weights=0,1"
    said = [str(w.message) for w in caught if issubclass(w.category, ParameterDomainWarning)]
    assert len(said) == 1
    assert said[0].startswith(
        "4 of the 5 candidates searched (weights=0.25,0.75, weights=0.5,0.5, "
        "weights=0.75,0.25, ...) fuse scores that tie at float32 against their order; the "
        "first, weights=0.25,0.75: fused scores beyond float32's range (±3.4e+38) tie at "
        "float32 (as inf), the precision trec_eval 9.x reads scores at, so it ranks them by "
        "docno: 6 documents of 3 topics are ranked against their scores (topic q1: "
    )
    args = ["fuse", "--method", "combsum", "--norm", "none", "--step", "0.25", "--optimize"]
    out = str(tmp_path / "t.run")
    assert run([*args, "P@1", "--qrels", qrels, *runs, "-o", out]) == 0
    err = capsys.readouterr().err.splitlines()
    assert [line for line in err if "warning" in line] == [
        f"trecbench: warning: ParameterDomainWarning: {said[0]}"
    ]


def _write_runs(tmp_path, runs: dict[str, str]) -> list[str]:
    """Run files named after ``runs``' keys, each of the lines ``qid docno score`` given."""
    paths = []
    for name, lines in runs.items():
        rows = [line.split() for line in lines.splitlines()]
        text = "".join(f"{q} Q0 {d} {r} {s} {name}\n" for r, (q, d, s) in enumerate(rows, 1))
        (tmp_path / f"{name}.run").write_text(text)
        paths.append(str(tmp_path / f"{name}.run"))
    return paths


_REMEDY = "give a normalisation such as min-max or a rank-based method (rrf)"


def test_optimize_s_advice_leaves_out_the_weights_it_chose(tmp_path, capsys):
    # scores beyond float32 under --optimize were told to "give smaller weights": the
    # search chooses the weights (-w is refused) and its grid sums them to 1 at any --step
    from trecbench.cli import run

    (tmp_path / "q.qrels").write_text("1 0 d1 1\n1 0 d2 0\n1 0 d3 1\n2 0 d1 0\n2 0 d2 1\n")
    runs = _write_runs(tmp_path, {
        "a": "1 d1 6e38\n1 d2 5e38\n1 d3 4e38\n2 d2 3\n2 d1 2\n2 d3 1",
        "b": "1 d3 6e38\n1 d2 5.5e38\n1 d1 4e38\n2 d1 3\n2 d3 2.9\n2 d2 1",
    })  # fmt: skip
    args = ["fuse", "--method", "combsum", "--norm", "none", "--optimize", "P@1", "--folds", "2"]
    args += ["--qrels", str(tmp_path / "q.qrels"), *runs, "-o", str(tmp_path / "t.run")]
    assert run(args) == 0
    said = capsys.readouterr().err.splitlines()
    warned = [line for line in said if "tie at float32" in line]
    assert len(warned) == 2  # the search's candidates, then the fusion with the chosen ones
    assert all(line.endswith(f"to keep the scores in range, {_REMEDY}") for line in warned)
    # a sum beyond a double: wmnz adds the scores before it weighs them (2 topics: the
    # search refuses fewer before it fuses a candidate)
    huge = _write_runs(tmp_path, {
        "c": "1 d1 1.7e308\n1 d3 1\n2 d1 2\n2 d2 1",
        "d": "1 d1 1.7e308\n1 d2 1\n2 d2 2\n2 d1 1",
    })  # fmt: skip
    args = ["fuse", "--method", "wmnz", "--norm", "none", "--optimize", "P@1", "--qrels"]
    assert run([*args, str(tmp_path / "q.qrels"), *huge, "-o", str(tmp_path / "h.run")]) == 1
    assert capsys.readouterr().err.endswith(f"(beyond a double's range): {_REMEDY}\n")


def test_optimize_fusion_tells_its_progress_as_fuse_does():
    """optimize_fusion took no progress, though fuse does and the search fuses and scores
    every candidate: each run read, then the candidates fused and scored, each to its end."""
    told: dict[str, list[tuple[int, int | None]]] = {}
    tuned = optimize_fusion(
        RUNS, QRELS, "nDCG@10", folds=3, progress=lambda *a: told.setdefault(a[0], []).append(a[1:])
    )
    assert [label for label in told if label.startswith("reading")][:2] == [
        f"reading {run}" for run in RUNS
    ]
    searched = told["fusing and scoring candidates"]  # one bar: each fused, then scored
    assert searched == [(i, len(tuned.candidates)) for i in range(11)]
    assert tuned.best == optimize_fusion(RUNS, QRELS, "nDCG@10", folds=3).best


def test_where_the_choice_its_seed_and_folds_are_recorded_is_as_docs_fuse_says(tmp_path, capsys):
    # docs/fuse.md did not say where --optimize's choice, seed and folds are kept: the
    # stderr line always, the run's ir_metadata block only with --ir-metadata (a run
    # beginning with a header is refused by trec_eval 9.0.8: none is written unasked)
    from trecbench.cli import run

    said = (ROOT / "docs" / "fuse.md").read_text()
    assert "the full record" in said and "written\nwith `--ir-metadata` alone" in said
    assert "refused by trec_eval 9.0.8 (`Malformed line 1`, exit 2" in said
    args = ["fuse", "--method", "combsum", "--optimize", "P@5", "--qrels", QRELS, "--step"]
    plain = tmp_path / "plain.run"
    assert run([*args, "0.5", "--seed", "3", "--folds", "4", *RUNS, "-o", str(plain)]) == 0
    line = capsys.readouterr().err.splitlines()[0]
    assert "(4-fold, seed 3; training " in line
    assert not plain.read_bytes().startswith(b"#")  # nothing of the search in the run
    described = tmp_path / "about.yaml"
    described.write_text("actor:\n  team: t\n")
    tagged = tmp_path / "tagged.run"
    given = ["--seed", "3", "--folds", "4", "--ir-metadata", str(described)]
    assert run([*args, "0.5", *given, *RUNS, "-o", str(tagged)]) == 0
    optimized = trecbench.load_run(str(tagged)).ir_metadata["method"]["fusion"]["optimized"]
    assert (optimized["seed"], optimized["folds"]) == (3, 4)


def test_a_run_given_twice_is_told_in_the_words_of_the_call(tmp_path, capsys):
    # optimize_fusion was told to give weights= it has not (it chooses them); fuse() was
    # told of -w when the copy came second as a file; --optimize of -w, which it refuses
    import trecbench
    from trecbench.cli import run as main
    from trecbench.errors import UsageError

    first = ROOT / "data" / "hpo-rtask" / "lexical.run"
    copy = tmp_path / "copy.run"
    copy.write_bytes(first.read_bytes())
    frame = trecbench.read_run(first)
    qrels = ROOT / "data" / "hpo-rtask" / "hpo-rtask.qrels"
    with pytest.raises(UsageError, match=r"^run2: this run holds the rows of run1 \(a copy\)$"):
        trecbench.optimize_fusion([frame, frame.copy()], qrels, "P@5", "combsum")
    api = "(a copy); to weigh a run more, give it a weight (weights=, with rrf, combsum, wmnz)"
    for runs, first_said in (([frame, str(copy)], "run1"), ([str(copy), frame], str(copy))):
        with pytest.raises(UsageError) as refused:
            trecbench.fuse(runs)
        assert str(refused.value).endswith(f"the rows of {first_said} {api}")
    args = ["fuse", str(first), str(copy), "--optimize", "P@5", "--qrels", str(qrels), "-o", "-"]
    assert main(args) == 1
    assert (
        capsys.readouterr().err
        == f"trecbench: {copy}: this run holds the rows of {first} (a copy)\n"
    )


def test_optimize_fusions_settings_are_refused_before_a_run_is_read(tmp_path):
    # step and depth were checked in the search, after every run was read
    import trecbench
    from trecbench.errors import UsageError

    runs = [str(tmp_path / "a.run"), str(tmp_path / "b.run")]  # never read: no such files
    # a subnormal step: round(1 / 5e-324) overflowed, an internal error
    settings = [({"step": 0.3}, "^step must divide 1"), ({"depth": 0}, "^depth must"),
                ({"step": 5e-324}, "^step must divide 1 .*, not 5e-324$")]  # fmt: skip
    for setting, said in settings:
        with pytest.raises(UsageError, match=said):
            trecbench.optimize_fusion(runs, "q.qrels", "P@5", "combsum", **setting)


def test_the_weightings_count_is_the_runs_given_and_no_runs_are_nothing_to_fuse(tmp_path):
    # ee8266d6 checked the grid when the search was made, as of 2 runs: 'over 2 runs makes
    # 10,001 weightings' for 3 runs; and fuse([], weights=[1]) was told of its weights
    import trecbench
    from trecbench.errors import UsageError

    runs = [str(ROOT / "data" / "hpo-rtask" / f"{name}.run") for name in ("lexical", "vector")]
    runs.append(str(ROOT / "data" / "hpo-rtask" / "reranked.run"))
    qrels = ROOT / "data" / "hpo-rtask" / "hpo-rtask.qrels"
    said = r"^step 0.0001 over 3 runs makes 50,015,001 weightings to score"
    with pytest.raises(UsageError, match=said):
        trecbench.optimize_fusion(runs, qrels, "map", "combsum", step=0.0001)
    with pytest.raises(UsageError, match="^nothing to fuse: no run given$"):
        trecbench.fuse([], weights=[1])


def test_a_grid_too_fine_for_the_runs_given_is_refused_before_any_is_read(tmp_path):
    # the count was checked once every run was read: three missing files were reported
    # missing, not the grid of 50,015,001 weightings their number already made
    runs = [str(tmp_path / f"{name}.run") for name in "abc"]  # never read: no such files
    said = r"^step 0.0001 over 3 runs makes 50,015,001 weightings to score"
    with pytest.raises(UsageError, match=said):
        optimize_fusion(runs, QRELS, "map", "sum", step=0.0001)


def test_candidates_that_differ_have_labels_that_differ():
    # ":g" labelled k = 1000000 and 1000001 both "k=1e+06", weights 0.1234567 and
    # 0.1234568 both 0.123457: one label for two candidates in the JSON's choices
    from trecbench.runstudy.fusion_tuning import Candidate

    assert Candidate(k=1_000_000).label() == "k=1e+06"
    assert Candidate(k=1_000_001).label() == "k=1000001.0"
    assert Candidate(k=60).label() == "k=60"
    close = Candidate(weights=(0.1234567, 0.8765433)), Candidate(weights=(0.1234568, 0.8765432))
    assert close[0].label() != close[1].label()
    assert Candidate(weights=(0.25, 0.75)).label() == "weights=0.25,0.75"
