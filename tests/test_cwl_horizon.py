"""cwl_eval's horizon: ir_measures' cwl_eval provider reads a topic's top 1000 ranks
(``RankingMaker(..., max_n=1000)``). The measures it computes keep their cutoffs within
them, and say so; a measure without a cutoff warns where a document past them has a gain;
RBP, trecbench's own formula over every rank, differs from ir_measures' RBP by the factor
its docs state, pinned here on both sides.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from cwl_horizon_case import HORIZON, horizon_case

import trecbench
from trecbench.errors import ParameterDomainError, ProviderWarning
from trecbench.measures import parse_measure, registry

ir_measures = pytest.importorskip("ir_measures")

CUT = ["SDCG", "NERR8", "NERR9", "BPM"]  # cwl_eval's measures with a cutoff
UNCUT = ["INST", "INSQ", "NERR10", "NERR11"]  # and without one


def _files(tmp_path, qrels: str, run: str):
    (tmp_path / "q").write_text(qrels)
    (tmp_path / "r").write_text(run)
    return str(tmp_path / "q"), str(tmp_path / "r")


def _deep_run(depth: int, relevant_at: int):
    """One topic of ``depth`` documents, ``d{relevant_at}`` the one judged relevant."""
    run = "".join(f"1 Q0 d{i} {i + 1} {depth - i} r\n" for i in range(depth))
    return f"1 0 d{relevant_at} 1\n", run


@pytest.mark.parametrize("family", CUT)
def test_cwl_cutoffs_stop_at_the_1000_ranks_cwl_eval_reads(family):
    # SDCG@1000, @2000 and @5000 printed 0.0081240 alike (cwl_eval reads 1000 ranks)
    assert parse_measure(f"{family}@1000").k == 1000
    with pytest.raises(ParameterDomainError, match=r"must be in \[1, 1000\] .*top 1000 ranks"):
        parse_measure(f"{family}@1001")


def test_score_refuses_sdcg_past_the_horizon_in_one_line(tmp_path, capsys):
    from trecbench.cli import run

    qrels, results = _files(tmp_path, "1 0 a 1\n", "1 Q0 a 1 1 r\n")
    assert run(["score", "-m", "SDCG@1000 SDCG@2000", qrels, results]) == 1
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and "SDCG@2000" in err and "1000" in err


@pytest.mark.parametrize("family", CUT + UNCUT)
def test_every_cwl_measure_states_the_horizon(family):
    definition = registry.get(family)
    assert definition.source == "cwl_eval"
    assert "top 1000 ranks" in definition.notes and "past rank 1000 counts nothing" in (
        definition.notes
    )


WARNED = (
    "{run}: INST, NERR10(p=0.999): cwl_eval reads the top 1000 ranks of a topic: document "
    "d1100 of topic 1, at rank 1101, has a gain and counts nothing"
)


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_gaining_document_past_rank_1000_is_warned_of(tmp_path, jobs):
    pytest.importorskip("cwl")
    qrels, results = _files(tmp_path, *_deep_run(1200, 1100))
    (tmp_path / "c").write_bytes((tmp_path / "r").read_bytes())
    runs = [results] if jobs == 1 else [results, str(tmp_path / "c")]
    names = ["INST", "NERR10(p=0.999)", "SDCG@1000"]
    with pytest.warns(ProviderWarning) as said:
        found = trecbench.evaluate(qrels, runs, names, jobs=jobs).aggregates
    assert [str(w.message) for w in said] == [WARNED.format(run=r) for r in "rc"[: len(runs)]]
    # located at the caller's line, not inside trecbench (stacklevel=3 named scoring.py;
    # with -j 2, raised again from the workers, evaluation/__init__.py)
    assert {w.filename for w in said} == {__file__}
    # the provider's values, as ir_measures gives them: the document counts nothing
    assert found["value"].tolist() == [0.0, 0.0, 0.0] * len(runs)


def test_the_horizon_is_located_in_a_module_whose_name_starts_with_trecbench(tmp_path):
    # a module of the user's named trecbench_utils was taken for trecbench's own
    import importlib.util

    pytest.importorskip("cwl")
    qrels, results = _files(tmp_path, *_deep_run(1200, 1100))
    source = tmp_path / "trecbench_utils.py"
    source.write_text(
        "import trecbench\n\n\ndef score(qrels, run):\n"
        "    return trecbench.evaluate(qrels, run, ['INST'])\n"
    )
    spec = importlib.util.spec_from_file_location("trecbench_utils", source)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with pytest.warns(ProviderWarning) as said:
        module.score(qrels, results)
    assert [(w.filename, w.lineno) for w in said] == [(str(source), 5)]


@pytest.mark.parametrize("path", ["whole", "blocks", "jobs"])
def test_the_horizon_is_said_once_per_run_naming_it_on_every_path(tmp_path, monkeypatch, path):
    """One line per block (t2, then t7, no count) under a small --memory where one run
    held whole said one (t2, and 1 other topic), a line per measure, and no line named the
    run: two runs with the same document said one. Now one line per run, its measures
    that found the same together, whole, in blocks or in worker processes (-j)."""
    pytest.importorskip("cwl")
    from trecbench import memory
    from trecbench.evaluation import runs as scored_runs
    from trecbench.inputs import blocks

    qrels, runs = horizon_case(tmp_path)
    options = {"whole": {}, "blocks": {"memory": 1}, "jobs": {"jobs": 2}}[path]
    if path == "blocks":  # a block a topic
        monkeypatch.setattr(memory, "BLOCK_LINES", 1000)
        monkeypatch.setattr(memory, "READ_BYTES", 20000)
        monkeypatch.setattr(blocks, "READ_BYTES", 20000)
    scored, score_block = [], scored_runs.score_block
    monkeypatch.setattr(
        scored_runs, "score_block", lambda *a, **k: scored.append(1) or score_block(*a, **k)
    )
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        trecbench.evaluate(qrels, runs, ["INST", "INSQ"], **options)
    assert len(scored) == {"whole": 2, "blocks": 16, "jobs": 0}[path]  # in this process
    assert [str(w.message) for w in said if w.category is ProviderWarning] == [
        HORIZON.format(run="r"),
        HORIZON.format(run="c"),
    ]


def test_the_horizon_is_said_in_the_house_format_on_dask_workers(tmp_path, capfd):
    """--dask local:1 printed it Python's way from the worker process
    (``.../scoring.py:102: ProviderWarning: ...`` and the source line under it), as it
    printed pyndeval's note of qrels without subtopics: the workers' warnings are now
    said by the calling process, each in one line."""
    pytest.importorskip("cwl")
    pytest.importorskip("pyndeval")
    pytest.importorskip("dask.distributed")
    from trecbench.cli import run

    qrels, runs = horizon_case(tmp_path)
    assert run(["score", "--dask", "local:1", "-m", "INST INSQ alpha_nDCG@5", qrels, *runs]) == 0
    err = capfd.readouterr().err.splitlines()
    assert all(line.startswith("trecbench: warning: ") for line in err), err
    assert "trecbench: warning: ProviderWarning: alpha_nDCG@5: every topic" in err[0]
    assert [line for line in err if "cwl_eval" in line] == [
        f"trecbench: warning: ProviderWarning: {HORIZON.format(run=name)}" for name in "rc"
    ]


def test_the_horizon_is_found_by_a_pure_function_of_the_ranked_run():
    """The providers' evaluator kept the last call's findings (``past_horizon``), read by
    scoring right after it: now a function of the run as the engine gets it."""
    pa = pytest.importorskip("pyarrow")
    from trecbench.engines import providers

    measures = [parse_measure(name) for name in ("INST", "SDCG@10", "NERR10(p=0.999)")]
    docs = [f"d{i}" for i in range(1200)]
    ranked = pa.table({"qid": ["1"] * 1200 + ["2"] * 3, "docno": docs + docs[:3]})
    qrels = {"1": {"d1100": 1, "d1150": 2}, "2": {"d0": 1}}
    found = [("1", "d1100", 1101)]
    expected = {measures[0]: found, measures[2]: found}
    assert providers.past_horizon(ranked, ["1", "2"], measures, qrels) == expected
    assert providers.past_horizon(ranked, ["1", "2"], measures[1:2], qrels) == {}


def test_the_horizon_is_that_of_the_run_the_provider_gets_under_minus_j(tmp_path):
    # with -J the document at rank 1101 is the only one judged: cwl_eval reads it at
    # rank 1, where it counts, and there is nothing to warn of (the findings are those of
    # the run -J leaves, as the provider's value is)
    pytest.importorskip("cwl")
    qrels, results = _files(tmp_path, *_deep_run(1200, 1100))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        found = trecbench.evaluate(qrels, results, ["INST"], judged_only=True).aggregates
    assert found["value"].tolist()[0] > 0


@pytest.mark.parametrize(("depth", "relevant_at"), [(1200, 999), (1000, 999)])
def test_nothing_is_warned_of_when_no_gain_lies_past_rank_1000(tmp_path, depth, relevant_at):
    pytest.importorskip("cwl")
    qrels, results = _files(tmp_path, *_deep_run(depth, relevant_at))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        trecbench.evaluate(qrels, results, UNCUT)


# ---------------------------------------------------------------------------------------
# RBP: Moffat & Zobel's formula; ir_measures' (cwl_eval's) reads 1000 ranks and rescales


def _irm_rbp(p: float, qrels: dict, run: dict) -> dict[str, float]:
    measure = ir_measures.RBP(p=p, rel=1)
    return {m.query_id: m.value for m in ir_measures.cwl_eval.iter_calc([measure], qrels, run)}


def test_rbp_pins_both_numbers_at_p_0_999():
    """The reviewer's case: trecbench 0.001, ir_measures 0.0015815 (= 0.001 / (1 -
    0.999^1000)), as docs/measures.md and RBP's definition state."""
    pytest.importorskip("cwl")
    qrels, run = {"1": {"a": 1}}, {"1": {"a": 3.0, "b": 2.0}}
    ours = trecbench.evaluate(qrels, run, ["RBP(p=0.999,rel=1)"]).per_query["value"].tolist()
    assert ours == [pytest.approx(0.001, rel=1e-12)]
    theirs = _irm_rbp(0.999, qrels, run)["1"]
    assert round(theirs, 7) == 0.0015815
    assert theirs == pytest.approx(0.001 / (1 - 0.999**1000), rel=1e-12)


# topics within cwl_eval's horizon (one ending at it) and one beyond it, whatever the seed
# (which drew the depths, so that a seed could leave a case out)
WITHIN, BEYOND = {"1": 37, "2": 1000}, {"3": 1437}


@pytest.mark.parametrize("p", [0.8, 0.99, 0.999])
@pytest.mark.parametrize("seed", range(2))
def test_ir_measures_rbp_is_ours_cut_at_1000_over_one_minus_p_to_the_1000(p, seed):
    pytest.importorskip("cwl")
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for topic, depth in (WITHIN | BEYOND).items():
        docs = [f"{topic}-{i}" for i in range(depth)]
        qrels[topic] = {d: int(g) for d in docs if (g := rng.integers(0, 4)) or rng.random() < 0.3}
        run[topic] = {d: float(depth - i) for i, d in enumerate(docs)}
    cut = {q: dict(list(docs.items())[:1000]) for q, docs in run.items()}
    name = f"RBP(p={p},rel=1)"
    whole = trecbench.evaluate(qrels, run, [name]).per_query.set_index("qid")["value"]
    ours = trecbench.evaluate(qrels, cut, [name]).per_query.set_index("qid")["value"]
    theirs = _irm_rbp(p, qrels, run)
    for topic in run:
        assert theirs[topic] == pytest.approx(ours[topic] / (1 - p**1000), rel=1e-12)
    assert all(whole[topic] == ours[topic] for topic in WITHIN)  # nothing cut there


def test_rbp_is_checked_against_its_formula_not_claimed_equal_to_cwl_eval():
    from trecbench.measures import listing

    definition = registry.get("RBP")
    assert definition.source == "local"  # the published formula, trecbench's number
    assert "1 - p^1000" in definition.notes and "0.0015815" in definition.notes
    (row,) = [r for r in listing.rows() if r["name"] == "RBP"]
    assert row["source"].startswith("cwl_eval") and "1 - p^1000" in row["source"]
    assert "NERR10" not in row["notes"] and "see RBP" in registry.get("NERR10").notes
