"""fuse --optimize and optimize_fusion refuse a measure or qrels they cannot choose on
before the search: the measure before a run is read, the qrels before a candidate is
fused (reviewer 449: 20-34 s of search, and its tie warnings, before the refusal)."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from trecbench import evaluate
from trecbench.errors import InputError, NoOverlapError, TrecbenchError, UsageError
from trecbench.measures import registry
from trecbench.runstudy import fusion_tuning

NO_DIRECTION = "a better direction, not num_ret (a count or a diagnostic: more of it is not better)"
REFUSED = {  # the words the search said at its end, said before it
    "bogus": "illegal measure 'bogus': no such measure; `trecbench measures` lists them all",
    "num_ret": f"optimize_fusion needs a measure with {NO_DIRECTION}",
    "iprec_at_recall": "optimize_fusion needs a measure with one number per topic: it gives "
    "iprec_at_recall_0.00, iprec_at_recall_0.10, iprec_at_recall_0.20, iprec_at_recall_0.30, ...",
    # trec_eval's default multipliers, named early as the evaluation names them late
    "Rprec_mult": "optimize_fusion needs a measure with one number per topic: it gives "
    "Rprec_mult_0.20, Rprec_mult_0.40, Rprec_mult_0.60, Rprec_mult_0.80, ...",
    "gm_map": "optimize_fusion needs a measure with one number per topic: gm_map gives no "
    "number per topic",
}


def _runs(tmp_path) -> list[str]:
    """Two runs of topics 1 and 2, ranking d1 to d3 in two orders."""
    paths = []
    for name, order in (("a", ("d1", "d2", "d3")), ("b", ("d3", "d1", "d2"))):
        lines = [f"{q} Q0 {d} {r} {4 - r} {name}\n" for q in "12" for r, d in enumerate(order, 1)]
        (tmp_path / f"{name}.run").write_text("".join(lines))
        paths.append(str(tmp_path / f"{name}.run"))
    return paths


@pytest.fixture
def never_fused(monkeypatch):
    """A search that fuses a candidate fails the test."""

    def fused(*args, **kwargs):
        raise AssertionError("a candidate was fused")

    monkeypatch.setattr(fusion_tuning, "_scored_candidates", fused)


@pytest.mark.parametrize("measure", sorted(REFUSED))
def test_a_measure_the_search_cannot_choose_on_is_refused_before_a_run_is_read(tmp_path, measure):
    runs = [str(tmp_path / "a.run"), str(tmp_path / "b.run")]  # never read: no such files
    with pytest.raises(UsageError) as refused:
        fusion_tuning.optimize_fusion(runs, str(tmp_path / "q"), measure, "combsum")
    assert str(refused.value) == REFUSED[measure]


def test_fuse_refuses_the_measure_before_it_reads_a_run(tmp_path, capsys):
    from trecbench.cli import run

    bad = [tmp_path / "a.run", tmp_path / "b.run"]  # read, they are refused for themselves
    for path in bad:
        path.write_text("not a run\n")
    (tmp_path / "q.qrels").write_text("1 0 d1 1\n2 0 d2 1\n")
    args = ["fuse", "--method", "combsum", "--qrels", str(tmp_path / "q.qrels"), *map(str, bad)]
    assert run([*args, "--optimize", "num_ret", "-o", str(tmp_path / "f.run")]) == 1
    assert capsys.readouterr().err == f"trecbench: --optimize needs a measure with {NO_DIRECTION}\n"
    assert not (tmp_path / "f.run").exists()


def test_qrels_are_read_and_checked_before_a_candidate_is_fused(tmp_path, never_fused):
    runs = _runs(tmp_path)
    pool = tmp_path / "pool.txt"  # three fields: a pool to judge, not qrels
    pool.write_text("1 0 d1\n")
    with pytest.raises(InputError, match=r"error\[Q12\]"):
        fusion_tuning.optimize_fusion(runs, str(pool), "P@1")
    one = tmp_path / "one.qrels"  # one topic of the runs: no folds to hold out
    one.write_text("1 0 zz 1\n")
    with pytest.raises(UsageError) as refused:
        fusion_tuning.optimize_fusion(runs, str(one), "P@1")
    assert str(refused.value) == (
        "optimize_fusion cross-validates over topics: it needs 2 or more topics of the runs "
        "in the qrels, not 1"
    )
    other = tmp_path / "other.qrels"  # none
    other.write_text("7 0 d1 1\n8 0 d1 1\n")
    with pytest.raises(NoOverlapError, match="No queries with both results and relevance"):
        fusion_tuning.optimize_fusion(runs, str(other), "P@1")


def test_fuse_refuses_its_qrels_before_a_candidate_is_fused(tmp_path, capsys, never_fused):
    from trecbench.cli import run

    runs, one = _runs(tmp_path), tmp_path / "one.qrels"
    one.write_text("1 0 zz 1\n")
    args = ["fuse", "--optimize", "P@1", "--qrels", str(one), *runs, "-o", str(tmp_path / "f")]
    assert run(args) == 1
    assert capsys.readouterr().err == (
        "trecbench: --optimize cross-validates over topics: it needs 2 or more topics of the "
        "runs in the qrels, not 1\n"
    )
    (tmp_path / "pool.txt").write_text("1 0 d1\n")
    args[args.index(str(one))] = str(tmp_path / "pool.txt")
    assert run(args) == 2
    said = capsys.readouterr().err
    assert (
        said.startswith(f"trecbench: {tmp_path}/pool.txt: error[Q12]: ") and said.count("\n") == 1
    )


def test_a_list_of_cutoffs_is_advised_in_the_words_of_what_takes_one_measure(tmp_path, capsys):
    # fuse --optimize 'P@1,5' was told to "give each, -m 'P@1 P@5'": fuse has no -m, and
    # --optimize takes one measure
    import pickle

    from trecbench.cli import run
    from trecbench.measures import parse_measure
    from trecbench.measures.suggestions import CutoffListError

    listed = "illegal measure 'P@1,5': this name takes one cutoff, not a list: "
    runs = [str(tmp_path / "a.run"), str(tmp_path / "b.run")]  # never read: no such files
    with pytest.raises(UsageError) as refused:
        fusion_tuning.optimize_fusion(runs, str(tmp_path / "q"), "P@1,5", "combsum")
    said = "optimize_fusion takes one measure: give one cutoff, such as P@1"
    assert str(refused.value) == listed + said
    (tmp_path / "q.qrels").write_text("1 0 d1 1\n2 0 d2 1\n")
    args = ["fuse", "--optimize", "P@1,5", "--qrels", str(tmp_path / "q.qrels"), *_runs(tmp_path)]
    assert run([*args, "-o", str(tmp_path / "f.run")]) == 1
    said = "--optimize takes one measure: give one cutoff, such as P@1"
    assert capsys.readouterr().err == f"trecbench: {listed}{said}\n"
    # the advice to give each stays where a list of names is taken, and survives a worker's
    # pickling
    with pytest.raises(CutoffListError) as refused:
        parse_measure("P@1,5")
    assert str(refused.value) == listed + "give each, measures=['P@1', 'P@5']"
    assert str(pickle.loads(pickle.dumps(refused.value))) == str(refused.value)


def _reason(check) -> str | None:
    """What ``check()`` refuses (None: nothing)."""
    try:
        check()
    except TrecbenchError as error:
        return str(error)
    return None


@pytest.mark.parametrize("name", sorted(d.name for d in registry.definitions()))
def test_every_measure_is_refused_early_for_the_reason_the_search_would_give_late(tmp_path, name):
    # Rprec_mult was refused early for giving "no number per topic", late for giving ten
    (tmp_path / "q").write_text("1 0 d1 1\n1 0 d2 0\n2 0 d2 1\n2 0 d3 2\n")
    lines = [f"{q} Q0 d{r} {r} {4 - r} a\n" for q in "12" for r in (1, 2, 3)]
    (tmp_path / "r").write_text("".join(lines))
    early = _reason(lambda: fusion_tuning.check_measure(name))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            per_query = evaluate(str(tmp_path / "q"), str(tmp_path / "r"), [name]).per_query
    except UsageError as error:  # a measure refused as it is named: the same refusal
        assert early == str(error)
        return
    except InputError as error:  # judgments of another format (-R prefs, qrels_jg)
        pytest.skip(f"not computed from these qrels: {error}")
    computed = list(dict.fromkeys(per_query["measure"]))
    late = _reason(lambda: fusion_tuning._chooses_on(computed, name))
    assert early == late


def _lost_zeros(tmp_path) -> list[str]:
    """Qrels in Parquet with integer query ids (1, 2) and runs of "01" and "02": the
    runs are refused before a candidate is fused."""
    import pandas as pd

    qrels = pd.DataFrame({"qid": [1, 1, 2], "iter": 0, "docno": ["d1", "d2", "d3"], "rel": 1})
    qrels.to_parquet(tmp_path / "q.parquet")
    paths = []
    for path in map(Path, _runs(tmp_path)):  # topics 1 and 2, written 01 and 02
        lines = path.read_text().splitlines(keepends=True)
        paths.append(str(tmp_path / f"z{path.name}"))
        Path(paths[-1]).write_text("".join("0" + line for line in lines))
    return paths


def test_fuse_names_a_run_whose_ids_lost_zeros_by_its_file(tmp_path, capsys, monkeypatch):
    # it said "run1" of the first run given
    from trecbench.cli import run

    _lost_zeros(tmp_path)
    monkeypatch.chdir(tmp_path)
    args = ["fuse", "--method", "combsum", "--qrels", "q.parquet", "./za.run", "zb.run"]
    assert run([*args, "--optimize", "P@1", "-o", "f.run"]) == 2
    err = capsys.readouterr().err
    assert "while ./za.run has query ids such as '01' that no integer" in err
    assert not (tmp_path / "f.run").exists()


def test_optimize_fusion_names_a_run_by_its_path_else_its_place(tmp_path):
    import pandas as pd

    runs = _lost_zeros(tmp_path)
    qrels = str(tmp_path / "q.parquet")
    with pytest.raises(InputError) as refused:
        fusion_tuning.optimize_fusion(runs, qrels, "P@1", "combsum")
    assert f"while {runs[0]} has query ids such as '01'" in str(refused.value)
    frames = [pd.read_csv(r, sep=" ", header=None, dtype=str) for r in runs]
    for frame in frames:
        frame.columns = ["qid", "Q0", "docno", "rank", "score", "tag"]
        frame["score"] = frame["score"].astype(float)
    with pytest.raises(InputError) as refused:
        fusion_tuning.optimize_fusion(frames, qrels, "P@1", "combsum")
    assert "while run1 has query ids such as '01'" in str(refused.value)


def test_a_measure_with_no_number_per_topic_is_named():
    # "--optimize gm_map" was refused as "it gives no number per topic", naming nothing
    for name in ("gm_map", "num_q"):
        said = _reason(lambda name=name: fusion_tuning.check_measure(name))
        assert said.endswith(f": {name} gives no number per topic")
