"""Measures beyond trec_eval 9.0.8 against the implementation ir_measures uses for each.

Seeded random graded cases without ties (so a provider's own tie rule cannot matter):
trecbench's values per topic equal gdeval's (nDCG(dcg='exp-log2')@k, ERR@k, and nERR@k as
gdeval's ERR of the run over gdeval's ERR of the ideal ranking; gdeval prints 5 decimals),
ir_measures' judged provider (Judged@k), cwl_eval (RBP, binary and graded, on runs of
at most 1000 documents and p^1000 nil: test_cwl_horizon.py pins the rest), and, for the
measures trecbench computes through the providers themselves, ir_measures' own
``iter_calc`` (a check of the plumbing: topics, parameters, defaults). On tied runs, the
providers engine must give what the provider gives on the run ranked trecbench's way."""

from __future__ import annotations

import importlib.resources
import re
import shutil
import subprocess

import numpy as np
import pandas as pd
import pytest
from conftest import ROOT

import trecbench
from trecbench.errors import ProviderWarning, UsageError

ir_measures = pytest.importorskip("ir_measures")
SEEDS = range(4)


def tie_free_case(seed: int, *, max_grade: int = 4, n_topics: int = 6, ties: bool = False):
    """``(qrels, run)`` DataFrames: numeric topic ids (gdeval needs them), grades from -1
    to ``max_grade``, judged documents retrieved or not, and distinct scores (unless
    ``ties``: then scores repeat)."""
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for topic in range(1, n_topics + 1):
        qid = str(100 + topic)
        pool = [f"d{topic}-{i}" for i in rng.permutation(60)[: int(rng.integers(8, 40))]]
        judged = [d for d in pool if rng.random() < 0.6] or pool[:1]
        weights = np.array([1, 6, 3, 2] + [1] * (max_grade - 2), float)
        grades = rng.choice(
            np.arange(-1, max_grade + 1), size=len(judged), p=weights / weights.sum()
        )
        if topic % 3 == 0:
            grades = np.minimum(grades, 0)  # a topic without a relevant document
        qrels += [(qid, d, int(g)) for d, g in zip(judged, grades, strict=True)]
        retrieved = pool[: int(rng.integers(3, len(pool) + 1))]
        scores = rng.integers(0, 4, len(retrieved)) if ties else rng.permutation(len(retrieved))
        run += [(qid, d, float(s)) for d, s in zip(retrieved, scores, strict=True)]
    qrels = pd.DataFrame(qrels, columns=["qid", "docno", "rel"])
    run = pd.DataFrame(run, columns=["qid", "docno", "score"]).assign(tag="t")
    return qrels, run


def ours(qrels, run, measures) -> dict[str, dict[str, float]]:
    """``{display: {qid: value}}`` from trecbench."""
    frame = trecbench.evaluate(qrels, run, measures).per_query
    return {
        name: dict(zip(rows["qid"], rows["value"], strict=True))
        for name, rows in frame.groupby("measure", sort=False)
    }


def irm_qrels(qrels):
    return {
        q: dict(zip(g["docno"], g["rel"].astype(int), strict=True)) for q, g in qrels.groupby("qid")
    }


def irm_run(run):
    return {
        q: dict(zip(g["docno"], g["score"].astype(float), strict=True))
        for q, g in run.groupby("qid")
    }


def theirs(measures, qrels, run, provider=None) -> dict[str, dict[str, float]]:
    """``{str(measure): {qid: value}}`` from ir_measures (or one of its providers)."""
    parsed = [ir_measures.parse_measure(m) for m in measures]
    calc = ir_measures.iter_calc if provider is None else provider.iter_calc
    out: dict[str, dict[str, float]] = {}
    for metric in calc(parsed, qrels, run):
        out.setdefault(str(metric.measure), {})[metric.query_id] = metric.value
    return out


def assert_same(got: dict[str, float], want: dict[str, float], tolerance: float, name: str):
    assert got, name
    for qid, value in got.items():
        assert value == pytest.approx(want.get(qid, 0.0), abs=tolerance), (name, qid)


# ---------------------------------------------------------------------------------------
# gdeval: nDCG(dcg='exp-log2')@k, ERR@k, nERR@k


def _gdeval(qrels: pd.DataFrame, run: pd.DataFrame, k: int, tmp_path) -> dict[str, tuple]:
    """``{qid: (ndcg, err)}`` printed by ir_measures' bundled gdeval.pl."""
    script = importlib.resources.files("ir_measures") / "bin" / "gdeval.pl"
    (tmp_path / "gdeval.pl").write_bytes(script.read_bytes())
    lines = [f"{q} 0 {d} {r}" for q, d, r in qrels.itertuples(index=False)]
    (tmp_path / "qrels").write_text("\n".join(lines) + "\n")
    lines = [f"{q} Q0 {d} 1 {s} t" for q, d, s, _ in run.itertuples(index=False)]
    (tmp_path / "run").write_text("\n".join(lines) + "\n")
    out = subprocess.run(
        ["perl", "gdeval.pl", "qrels", "run", str(k)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    rows = [line.split(",") for line in out.splitlines()[1:] if line and "amean" not in line]
    return {qid: (float(ndcg), float(err)) for _, qid, ndcg, err in rows}


def _ideal_run(qrels: pd.DataFrame, run: pd.DataFrame) -> pd.DataFrame:
    """The qrels' documents, best grade first, as a run (for gdeval's ideal ERR)."""
    judged = qrels[qrels["qid"].isin(run["qid"])].sort_values(
        ["qid", "rel", "docno"], ascending=[True, False, True]
    )
    scores = judged.groupby("qid").cumcount(ascending=False).astype(float)
    return judged.assign(score=scores)[["qid", "docno", "score"]].assign(tag="t")


@pytest.mark.skipif(shutil.which("perl") is None, reason="gdeval.pl needs perl")
@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("k", [5, 20])
def test_gdeval_measures(seed, k, tmp_path):
    qrels, run = tie_free_case(seed)
    got = ours(qrels, run, [f"nDCG(dcg='exp-log2')@{k}", f"ERR@{k}", f"nERR@{k}"])
    gdeval = _gdeval(qrels, run, k, tmp_path)
    ideal = _gdeval(qrels, _ideal_run(qrels, run), k, tmp_path)
    half_unit = 5e-6 + 1e-12  # gdeval prints %.5f
    for qid, value in got[f"nDCG(dcg='exp-log2')@{k}"].items():
        assert value == pytest.approx(gdeval.get(qid, (0.0, 0.0))[0], abs=half_unit), qid
    for qid, value in got[f"ERR@{k}"].items():
        assert value == pytest.approx(gdeval.get(qid, (0.0, 0.0))[1], abs=half_unit), qid
    for qid, value in got[f"nERR@{k}"].items():
        err, best = gdeval.get(qid, (0, 0))[1], ideal.get(qid, (0, 0))[1]
        # the quotient of two values rounded to 5 decimals
        assert value == pytest.approx(err / best if best else 0.0, abs=1e-4), qid


@pytest.mark.skipif(shutil.which("perl") is None, reason="gdeval.pl needs perl")
def test_gdeval_merges_topics_whose_ids_share_their_number(tmp_path):
    # measures.md: ir_measures' ERR@10 on the demo is 0.0091 over 84 topics (gdeval reads
    # en-15 and de-15 as 15); trecbench's is 0.0254, gdeval's on the topics numbered apart
    qrels = trecbench.read_qrels(ROOT / "qrels" / "hpo-demo.qrels")[["qid", "docno", "rel"]]
    run = trecbench.read_run(ROOT / "runs" / "tfidf-char.run")[["qid", "docno", "score", "tag"]]
    records = (
        [ir_measures.Qrel(*row) for row in qrels.itertuples(index=False)],
        [ir_measures.ScoredDoc(q, d, s) for q, d, s, _ in run.itertuples(index=False)],
    )
    theirs = list(ir_measures.iter_calc([ir_measures.ERR @ 10], *records))
    merged = sorted(m.query_id for m in theirs if m.query_id.isdigit())
    assert merged == [f"{n:02d}" for n in range(1, 29)] and len(theirs) == 84
    assert (
        round(ir_measures.calc_aggregate([ir_measures.ERR @ 10], *records)[ir_measures.ERR @ 10], 4)
        == 0.0091
    )
    got = ours(qrels, run, ["ERR@10"])["ERR@10"]
    assert round(float(np.mean(list(got.values()))), 4) == 0.0254 and len(got) == 56
    number = {qid: str(n) for n, qid in enumerate(sorted(set(qrels["qid"])), start=1)}
    numbered = _gdeval(
        qrels.assign(qid=qrels["qid"].map(number)),
        run.assign(qid=run["qid"].map(number)),
        10,
        tmp_path,
    )
    for qid, value in got.items():
        assert value == pytest.approx(numbered.get(number[qid], (0.0, 0.0))[1], abs=5e-6 + 1e-12), (
            qid
        )


def test_err_refuses_grades_gdeval_does_not_define():
    qrels, run = tie_free_case(0, max_grade=5)
    with pytest.raises(trecbench.errors.UnevaluableTopicError, match="above 4"):
        trecbench.evaluate(qrels, run, ["ERR@10"])


# ---------------------------------------------------------------------------------------
# judged provider, cwl_eval


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize(
    ("provider", "names"),
    [
        ("judged", ["Judged@5", "Judged@10", "Judged@100", "Judged"]),
        ("cwl_eval", ["RBP(rel=1)", "RBP(p=0.9,rel=2)", "RBP(p=0.5,rel=3)"]),
    ],
)
def test_vectorised_measures_equal_their_provider(seed, provider, names):
    pytest.importorskip("cwl")
    qrels, run = tie_free_case(seed)
    got = ours(qrels, run, names)
    want = theirs(names, irm_qrels(qrels), irm_run(run), getattr(ir_measures, provider))
    for name in names:
        assert_same(got[name], want[name], 1e-12, name)


@pytest.mark.parametrize("seed", SEEDS)
def test_graded_rbp_equals_cwl_eval_with_scaled_gains(seed):
    """Without rel, gains are grade / max_rel: cwl_eval's RBP over ir_measures' scaling
    of graded C/W/L measures (min_rel 0, max_rel the largest grade)."""
    pytest.importorskip("cwl")
    from cwl.ruler.cwl_ruler import RBPCWLMetric
    from ir_measures.providers.cwl_eval import CwlEvaluator

    qrels, run = tie_free_case(seed)
    got = ours(qrels, run, ["RBP", "RBP(max_rel=3,p=0.95)"])
    for name, p, top in (("RBP", 0.8, int(qrels["rel"].max())), ("RBP(max_rel=3,p=0.95)", 0.95, 3)):
        # INST carries the (None, 0, max_rel) gain scaling; the metric is swapped for RBP
        measure = ir_measures.INST(max_rel=top)
        evaluator = CwlEvaluator([measure], irm_qrels(qrels), {(None, 0, top): [measure]}, False)
        evaluator._irm_convert_to_measure = lambda _m, p=p: RBPCWLMetric(p)
        want = {m.query_id: m.value for m in evaluator.iter_calc(irm_run(run))}
        assert_same(got[name], want, 1e-12, name)


# ---------------------------------------------------------------------------------------
# measures computed by the providers themselves: the plumbing, and trecbench's tie order

PROVIDED = ["INST", "INSQ(T=2.0)", "SDCG@10", "NERR8@10", "NERR9@5", "NERR10(p=0.8)",
            "NERR11(T=2.0)", "BPM@10", "Compat(p=0.8)", "Accuracy@10"]  # fmt: skip


def _explicit(name: str, largest: int) -> str:
    """ir_measures requires max_rel where trecbench defaults it to the largest grade."""
    needs = ("INST", "INSQ", "SDCG", "NERR", "BPM")
    if not name.startswith(needs):
        return name
    head, _, tail = name.partition("@")
    if "(" in head:
        head = head[:-1] + f",max_rel={largest})"
    else:
        head += f"(max_rel={largest})"
    return head + (f"@{tail}" if tail else "")


@pytest.mark.parametrize("seed", SEEDS[:2])
def test_provider_measures_equal_ir_measures(seed):
    pytest.importorskip("cwl")
    qrels, run = tie_free_case(seed)
    got = ours(qrels, run, PROVIDED)
    largest = int(qrels["rel"].max())
    want = theirs([_explicit(n, largest) for n in PROVIDED], irm_qrels(qrels), irm_run(run))
    for name in PROVIDED:
        key = str(ir_measures.parse_measure(_explicit(name, largest)))
        assert_same(got[name], want[key], 1e-9, name)


@pytest.mark.parametrize("seed", SEEDS[:2])
def test_sdcg_takes_the_dcg_its_provider_computes(seed):
    # ir_measures' SDCG names dcg, 'log2' its one choice (cwl_eval's): trecbench refused
    # the parameter ("SDCG has no parameter 'dcg'"); now it is that same measure
    pytest.importorskip("cwl")
    qrels, run = tie_free_case(seed)
    name = f"SDCG(dcg='log2',max_rel={int(qrels['rel'].max())})@5"
    shown = str(trecbench.parse_measure(name))  # the per-topic table's name: the default left out
    want = theirs([name], irm_qrels(qrels), irm_run(run))[str(ir_measures.parse_measure(name))]
    assert_same(ours(qrels, run, [name])[shown], want, 1e-9, name)


def _ranked_our_way(run: pd.DataFrame) -> pd.DataFrame:
    """Scores replaced by n - position in trec_eval's order (score, then docno, descending)."""
    ordered = run.sort_values(["qid", "score", "docno"], ascending=[True, False, False])
    position = ordered.groupby("qid").cumcount(ascending=False).astype(float)
    return ordered.assign(score=position + 1)


@pytest.mark.parametrize("seed", SEEDS[:2])
def test_tied_runs_follow_trecbench_ranking(seed):
    """With ties, each value equals the provider's on the run ranked trecbench's way
    (and the judged provider, left to its own docno-ascending rule, would differ)."""
    pytest.importorskip("cwl")
    qrels, run = tie_free_case(seed, ties=True)
    names = ["Judged@5", "RBP(rel=1)", "INST", "Accuracy@10"]
    got = ours(qrels, run, names)
    largest = int(qrels["rel"].max())
    explicit = [_explicit(n, largest) for n in names]
    want = theirs(explicit, irm_qrels(qrels), irm_run(_ranked_our_way(run)))
    for name, spelled in zip(names, explicit, strict=True):
        assert_same(got[name], want[str(ir_measures.parse_measure(spelled))], 1e-9, name)


# ---------------------------------------------------------------------------------------
# diversity: ndeval through pyndeval


def diversity_case(seed: int):
    """Qrels with a subtopic in the second column (a document may serve several)."""
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for topic in range(1, 5):
        qid = str(topic)
        docs = [f"d{i}" for i in rng.permutation(40)[:25]]
        for subtopic in range(1, int(rng.integers(2, 5)) + 1):
            for d in rng.choice(docs, size=8, replace=False):
                qrels.append((qid, str(subtopic), str(d), int(rng.choice([0, 1, 1, 2]))))
        scores = rng.permutation(len(docs))
        run += [(qid, d, float(s)) for d, s in zip(docs, scores, strict=True)]
    qrels = pd.DataFrame(qrels, columns=["qid", "iter", "docno", "rel"])
    run = pd.DataFrame(run, columns=["qid", "docno", "score"]).assign(tag="t")
    return qrels, run


# two alphas and two betas in one call, as one evaluation asks them (the second of each
# printed 0.0000)
DIVERSITY = ["alpha_nDCG@10", "alpha_DCG(alpha=0.8)@5", "alpha_nDCG(alpha=0.9)@10",
             "ERR_IA@10", "nERR_IA@20", "NRBP", "nNRBP(beta=0.8)", "NRBP(alpha=0.9)", "AP_IA",
             "P_IA@5", "StRecall@10"]  # fmt: skip


@pytest.mark.parametrize("seed", [1, 2])
def test_diversity_measures_equal_pyndeval(seed, tmp_path):
    pytest.importorskip("pyndeval")
    qrels, run = diversity_case(seed)
    lines = [" ".join(row) for row in qrels.astype(str).itertuples(index=False)]
    (tmp_path / "qrels").write_text("\n".join(lines) + "\n")
    run_lines = [f"{q} Q0 {d} 1 {s} t" for q, d, s, _ in run.itertuples(index=False)]
    (tmp_path / "run").write_text("\n".join(run_lines) + "\n")
    result = trecbench.evaluate(tmp_path / "qrels", tmp_path / "run", DIVERSITY).per_query
    got = {n: dict(zip(g["qid"], g["value"], strict=True)) for n, g in result.groupby("measure")}
    frame = qrels.rename(
        columns={"qid": "query_id", "iter": "iteration", "docno": "doc_id", "rel": "relevance"}
    )
    want = diversity_reference(frame, run)
    for name in DIVERSITY:
        assert_same(got[name], want[str(ir_measures.parse_measure(name))], 1e-9, name)


def diversity_reference(frame, run) -> dict[str, dict[str, float]]:
    """pyndeval's values of :data:`DIVERSITY`, each measure asked alone: ndeval computes
    one alpha and one beta a call (asked together, the second alpha came out 0)."""
    out: dict[str, dict[str, float]] = {}
    for name in DIVERSITY:
        out |= theirs([name], frame, irm_run(run), ir_measures.pyndeval)
    return out


def test_a_document_judged_per_subtopic_once(tmp_path):
    """Diversity qrels list a document once per subtopic; twice for one subtopic is the
    duplicate trec_eval refuses (exit 4), with both lines named."""
    pytest.importorskip("pyndeval")
    (tmp_path / "qrels").write_text("1 1 a 1\n1 2 a 1\n1 1 b 0\n")
    (tmp_path / "run").write_text("1 Q0 a 1 2 t\n1 Q0 b 2 1 t\n")
    result = trecbench.evaluate(tmp_path / "qrels", tmp_path / "run", ["StRecall@1"])
    assert result.per_query["value"].tolist() == [1.0]
    (tmp_path / "qrels").write_text("1 1 a 1\n1 2 a 1\n1 1 b 0\n1 1 a 0\n")
    with pytest.raises(trecbench.errors.DuplicateError) as error:
        trecbench.evaluate(tmp_path / "qrels", tmp_path / "run", ["StRecall@1"])
    assert str(error.value).endswith(
        "qrels:4: duplicate docs a for topic 1 subtopic 1 (first on line 1)"
    )


def test_a_table_without_an_iteration_is_of_subtopic_0_duplicates_refused(tmp_path):
    """A table with no iteration column judged a document twice: the last grade won for
    the diversity measures (alpha_nDCG@10 0.6309 with grades 1, 0 and 1.0 with 0, 1),
    where the same rows with iteration 0, or as TREC text, were refused. Now one path
    (the iteration defaults to 0), a table's rows cited as its other errors cite them."""
    pytest.importorskip("pyndeval")
    import pandas as pd
    import pyarrow as pa
    import pyarrow.parquet as pq

    run = {"1": {"d1": 2.0, "d2": 1.0}}
    rows = {"qid": ["1"] * 3, "docno": ["d1", "d1", "d2"]}
    twice = "duplicate docs d1 for topic 1 subtopic 0"
    cases = [
        (pd.DataFrame({**rows, "rel": [1, 0, 1]}), "qrels DataFrame: row 1", "row 0"),
        (
            pd.DataFrame({**rows, "rel": [0, 1, 1]}, index=[4, 5, 6]),
            "qrels DataFrame: row 5",
            "row 4",
        ),
        (
            pd.DataFrame({**rows, "iteration": "0", "rel": [1, 0, 1]}),
            "qrels DataFrame: row 1",
            "row 0",
        ),
        (pa.table({**rows, "rel": [1, 0, 1]}), "qrels table: row 1", "row 0"),
        (
            [{"qid": "1", "docno": "d1", "rel": 1}, {"qid": "1", "docno": "d1", "rel": 0}],
            "qrels records: record 1",
            "record 0",
        ),
    ]
    for qrels, second, first in cases:
        with pytest.raises(trecbench.errors.DuplicateError) as error:
            trecbench.evaluate(qrels, run, ["alpha_nDCG@10"])
        assert str(error.value) == f"{second}: {twice} (first at {first})"
    parquet = tmp_path / "q.parquet"
    pq.write_table(pa.table({**rows, "rel": [1, 0, 1]}), parquet)
    with pytest.raises(trecbench.errors.DuplicateError) as error:
        trecbench.evaluate(str(parquet), run, ["alpha_nDCG@10"])
    # a Parquet file's rows, as for P@1 (it said ":2: ... (first on line 1)")
    assert str(error.value) == f"{parquet}: row 2: {twice} (first at row 1)"


@pytest.mark.parametrize("seed", [1, 2])
def test_diversity_qrels_frames_and_records_keep_their_subtopics(seed):
    """ir_measures' and PyTerrier's ``iteration`` is the subtopic, as a qrels file's second
    column: it was dropped from frames and Qrel records, each document then judged for one
    subtopic only (alpha_nDCG@20 0.7474 against ir_measures' 0.6106)."""
    pytest.importorskip("pyndeval")
    qrels, run = diversity_case(seed)
    frame = qrels.rename(
        columns={"qid": "query_id", "iter": "iteration", "docno": "doc_id", "rel": "relevance"}
    )
    want = diversity_reference(frame, run)
    records = [ir_measures.Qrel(q, d, int(r), i) for q, i, d, r in qrels.itertuples(index=False)]
    pyterrier = frame.rename(columns={"query_id": "qid", "doc_id": "docno", "relevance": "label"})
    for truth in (frame, records, pyterrier):
        got = ours(truth, run, DIVERSITY)
        for name in DIVERSITY:
            assert_same(got[name], want[str(ir_measures.parse_measure(name))], 1e-9, name)


def asked(qrels, run, measures) -> dict[str, dict[str, float]]:
    """``{name asked: {qid: value}}`` from trecbench (``to_dict``'s keys)."""
    out: dict[str, dict[str, float]] = {}
    for qid, values in trecbench.evaluate(qrels, run, measures).to_dict().items():
        for name, value in values.items():
            out.setdefault(name, {})[qid] = value
    return out


def test_ir_measures_objects_are_measures():
    """A list of ir_measures' measure objects, or one, is asked by the names they print (a
    list raised KeyError(0) from inside ir_measures)."""
    qrels, run = tie_free_case(3)
    objects = [ir_measures.nDCG @ 10, ir_measures.RR(rel=2) @ 10, ir_measures.SetF(beta=0.5)]
    got = asked(qrels, run, objects)
    want = theirs([str(m) for m in objects], irm_qrels(qrels), irm_run(run))
    for measure in objects:
        assert_same(got[str(measure)], want[str(measure)], 1e-9, str(measure))
    assert asked(qrels, run, ir_measures.nDCG @ 10).keys() == {"nDCG@10"}
    with pytest.raises(trecbench.errors.UsageError, match=r"measure 3 \(int\)"):
        trecbench.evaluate(qrels, run, [3])


def test_one_family_under_two_parameter_sets_gives_both():
    """SetF beside SetF(beta=0.5), nDCG beside trec_eval's gain map ndcg.1=0,2=1: each as
    ir_measures (or asked alone) gives it. SetF's pair was refused ("conflicting
    parameters"), nDCG took the gain map or was dropped for it."""
    qrels, run = tie_free_case(3)
    pair = ["SetF", "SetF(beta=0.5)"]
    want = theirs(pair, irm_qrels(qrels), irm_run(run))
    got = asked(qrels, run, pair)
    for name in pair:
        assert_same(got[name], want[name], 1e-9, name)
    alone = {name: asked(qrels, run, [name])[name] for name in ("nDCG", "ndcg.1=0,2=1")}
    assert alone["nDCG"] != alone["ndcg.1=0,2=1"]
    for names in (["nDCG", "ndcg.1=0,2=1"], ["ndcg.1=0,2=1", "nDCG"]):
        assert asked(qrels, run, names) == alone
    assert_same(alone["nDCG"], theirs(["nDCG"], irm_qrels(qrels), irm_run(run))["nDCG"], 1e-9, "")


def test_two_spellings_of_one_provider_measure_both_get_its_values():
    """SDCG@10 beside SDCG(max_rel=M)@10 (M the qrels' top grade, SDCG's default): one
    ir_measures measure, asked twice. The first spelling printed 0 for every topic."""
    pytest.importorskip("cwl")
    qrels, run = tie_free_case(2)
    largest = int(qrels["rel"].max())
    for family in ("SDCG", "INST"):
        short = f"{family}@10" if family == "SDCG" else family
        pair = [short, _explicit(short, largest)]
        got = asked(qrels, run, pair)
        want = theirs([pair[1]], irm_qrels(qrels), irm_run(run))
        (values,) = want.values()
        assert any(values.values()), family  # a case where 0 everywhere would be wrong
        for name in pair:
            assert_same(got[name], values, 1e-9, name)


def test_an_unreadable_subtopic_column_stops_only_the_measures_that_read_it():
    """pandas makes an iteration column float once a value is missing: the measures that
    ignore subtopics score as before, those that read them refuse it in one line."""
    pytest.importorskip("pyndeval")
    qrels = pd.DataFrame(
        {"query_id": ["1", "2"], "doc_id": ["a", "x"], "relevance": [1, 1],
         "iteration": [0.0, None]}
    )  # fmt: skip
    run = {"1": {"a": 1.0, "b": 2.0}, "2": {"x": 1.0}}
    assert trecbench.evaluate(qrels, run, ["map"]).to_dict() == {
        "1": {"map": 0.5},
        "2": {"map": 1.0},
    }
    records = [ir_measures.Qrel("1", "a", 1, None)]
    assert trecbench.evaluate(records, run, ["map"]).to_dict() == {"1": {"map": 0.5}}
    for measures, options in ((["StRecall@10"], {}), (["map_avgjg"], {"rel_format": "qrels_jg"})):
        with pytest.raises(trecbench.errors.InputError, match="subtopic .* not ids"):
            trecbench.evaluate(qrels, run, measures, **options)


def test_a_provider_failing_on_a_topic_names_it(tmp_path):
    # topic 2's retrieved documents are all relevant (0/0), topic 1's are not: ir_measures
    # fails on topic 2 alone, and the refusal names it (docs/measures.md says it does)
    qrels = [("1", "a", 1), ("1", "b", 0), ("2", "a", 1), ("2", "b", 1), ("2", "c", 0)]
    run = {qid: {"a": 2.0, "b": 1.0} for qid in ("1", "2")}
    records = [ir_measures.Qrel(q, d, r) for q, d, r in qrels]
    for qid, fails in (("1", False), ("2", True)):
        alone = [ir_measures.ScoredDoc(qid, d, s) for d, s in run[qid].items()]
        if fails:
            with pytest.raises(ZeroDivisionError):
                ir_measures.calc_aggregate([ir_measures.Accuracy], records, alone)
        else:
            ir_measures.calc_aggregate([ir_measures.Accuracy], records, alone)
    (tmp_path / "q").write_text("".join(f"{q} 0 {d} {r}\n" for q, d, r in qrels))
    with pytest.raises(trecbench.errors.UnevaluableTopicError, match="on topic 2 "):
        trecbench.evaluate(tmp_path / "q", run, ["Accuracy"])


def _pia_case(tmp_path) -> tuple[str, str, str]:
    qrels, base, new = tmp_path / "q", tmp_path / "base.run", tmp_path / "new.run"
    qrels.write_text("q1 0 d1 1\nq2 0 d1 1\n")
    base.write_text("q1 Q0 d1 1 2 b\nq1 Q0 d2 2 1 b\nq2 Q0 d2 1 2 b\n")
    new.write_text("q1 Q0 d1 1 2 n\nq2 Q0 d1 1 2 n\n")
    return str(qrels), str(base), str(new)


def test_a_provider_failing_on_a_run_is_a_one_line_error_exit_4(tmp_path, capsys):
    # ir_measures' accuracy provider divides 0 by 0 on a topic whose retrieved documents are
    # all relevant: "internal error (ZeroDivisionError ...). Please report it", exit 70;
    # then a usage error (exit 1), though the name is fine: the inputs cannot give it, exit
    # 4 as the provider's other refusals (min_rel at the largest grade, a value no number)
    from trecbench.cli import run as cli

    qrels, base, new = _pia_case(tmp_path)
    assert trecbench.evaluate(qrels, base, ["Accuracy"]).aggregates["value"].tolist() == [0.5]
    with pytest.raises(trecbench.errors.UnevaluableTopicError) as raised:
        trecbench.evaluate(qrels, new, ["Accuracy"])
    message = (
        "Accuracy: ir_measures' accuracy provider cannot compute it on topic q1 "
        "(ZeroDivisionError: float division by zero): its value is undefined there"
    )
    assert str(raised.value) == message
    capsys.readouterr()
    assert cli(["score", "-m", "Accuracy", qrels, new]) == 4
    assert capsys.readouterr() == ("", f"trecbench: {message}\n")


def test_what_a_provider_prints_is_a_warning_naming_the_measures(tmp_path, capfd):
    # pyndeval's "WARNING: All queries have only 1 subtopic! The results from this metric
    # are probably not valid. Make sure ..." went to stderr as it was, once per call
    pytest.importorskip("pyndeval")
    qrels, base, _ = _pia_case(tmp_path)
    with pytest.warns(ProviderWarning) as caught:
        trecbench.evaluate(qrels, base, ["P_IA@10", "AP_IA"])
    assert [str(w.message) for w in caught] == [
        "P_IA@10, AP_IA: every topic of the qrels has one subtopic (the qrels' iter field): "
        "intent-aware and novelty measures need diversity qrels"
    ]
    assert capfd.readouterr().err == ""


def test_what_a_provider_prints_is_located_at_the_caller(tmp_path):
    # reviewer 228: raised with stacklevel=2 from a @contextmanager, it was located at
    # contextlib.py (Dask and -j, raising it again, located it at the caller's line)
    pytest.importorskip("pyndeval")
    qrels, base, _ = _pia_case(tmp_path)
    with pytest.warns(ProviderWarning) as caught:
        trecbench.evaluate(qrels, base, ["P_IA@10"])
    assert {w.filename for w in caught} == {__file__}


@pytest.mark.parametrize("name", ["INST", "INSQ", "SDCG@10", "NERR8@10"])
def test_cwl_eval_on_qrels_without_a_positive_grade_is_refused_at_the_qrels(tmp_path, name):
    # "internal error (AssertionError: min_rel must be less than max_rel) ... report it",
    # then a usage error (exit 1) naming no file: the measure's name is fine, the qrels
    # cannot give it (exit 4, as ERR@k on a grade above 4)
    from trecbench.cli import run as cli

    qrels, run = tmp_path / "q", tmp_path / "r"
    qrels.write_text("q1 0 d1 -1\nq1 0 d2 0\nq1 0 d4 0\n")
    run.write_text("q1 Q0 d1 1 2 n\nq1 Q0 d3 2 1 n\n")
    with pytest.raises(trecbench.errors.UnevaluableTopicError) as raised:
        trecbench.evaluate(str(qrels), str(run), [name])
    assert str(raised.value) == (
        f"{qrels}:2: {name}: min_rel=0 (its default) must be below max_rel, which is the "
        "largest grade in the qrels when not given: 0 (document d2 of topic q1); no "
        "document can have a gain"
    )
    assert cli(["score", "-m", name, str(qrels), str(run)]) == 4


def test_min_rel_at_the_largest_grade_of_judgments_held_cites_their_row():
    # "qrels DataFrame: ...: 0 (line 1)": a line judgments held in memory do not have
    frame = pd.DataFrame({"qid": ["a", "a"], "docno": ["x", "y"], "rel": [0, 0]}, index=[10, 20])
    said = "SDCG@5: min_rel=0 (its default) must be below max_rel, which is the largest grade"
    for held, where in ((frame, "qrels DataFrame: row 10: "), ({"a": {"x": 0}}, "qrels dict: ")):
        with pytest.raises(trecbench.errors.UnevaluableTopicError) as raised:
            trecbench.evaluate(held, {"a": {"x": 1.0}}, ["SDCG@5"])
        assert str(raised.value).startswith(where + said)
        assert str(raised.value).endswith("0 (document x of topic a); no document can have a gain")


def test_min_rel_at_the_largest_grade_is_refused_naming_it_and_its_line(tmp_path):
    from trecbench.cli import run as cli

    qrels, run = tmp_path / "q", tmp_path / "r"
    qrels.write_text("q1 0 d1 1\nq1 0 d2 3\nq2 0 d1 3\n")
    run.write_text("q1 Q0 d1 1 2 n\nq1 Q0 d2 2 1 n\n")
    name = "BPM(T=2.0,min_rel=5)@5"
    with pytest.raises(trecbench.errors.UnevaluableTopicError) as raised:
        trecbench.evaluate(str(qrels), str(run), ["INST(min_rel=2)", name])
    assert str(raised.value) == (
        f"{qrels}:2: {name}: min_rel=5 must be below max_rel, which is the largest grade "
        "in the qrels when not given: 3 (document d2 of topic q1); no document can have a "
        "gain"
    )
    assert cli(["score", "-m", name, str(qrels), str(run)]) == 4
    assert cli(["score", "-m", "INST(min_rel=2)", str(qrels), str(run)]) == 0


def test_inst_overflowing_in_cwl_eval_is_refused_naming_it_not_printed_as_nan(tmp_path):
    # INST's continuation exceeds 1 for T < 1/4; over 100 fully relevant ranks cwl_eval's
    # product of it overflows, and trecbench printed "INST(T=0.01) q1 -nan" and "all -nan"
    # under eight numpy RuntimeWarnings (INST with T=1 was and is 1 there)
    import warnings

    pytest.importorskip("cwl")
    qrels, run = tmp_path / "q", tmp_path / "r"
    relevant = [(q, i) for q in ("q1", "q3") for i in range(100)]
    qrels.write_text("".join(f"{q} 0 d{i} 1\n" for q, i in relevant) + "q2 0 d0 1\n")
    lines = [f"{q} Q0 d{i} {i + 1} {100 - i} n" for q, i in relevant]
    run.write_text("\n".join([*lines, "q2 Q0 d0 1 1 n"]) + "\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        found = trecbench.evaluate(str(qrels), str(run), ["INST"]).per_query
        assert found.set_index("qid")["value"][["q1", "q3"]].tolist() == [1.0, 1.0]
        with pytest.raises(trecbench.errors.UnevaluableTopicError) as raised:
            trecbench.evaluate(str(qrels), str(run), ["INST", "INST(T=0.01)"])
    assert raised.value.exit_code == 4  # the name is fine: no usage error (exit 1)
    assert str(raised.value) == (
        "INST(T=0.01): ir_measures' cwl_eval provider gives nan on topic q1 (and 1 other "
        "topic), which is no number: nothing of it is printed"
    )


def test_graded_rbp_without_a_positive_grade_scores_zero_not_nan(tmp_path):
    # gains scaled by the qrels' top grade, 0: 0/0, printed "RBP all -nan" with numpy's
    # "invalid value encountered in divide"; no document gains anything
    import warnings

    qrels, run = tmp_path / "q", tmp_path / "r"
    qrels.write_text("q1 0 d1 0\nq1 0 d2 0\n")
    run.write_text("q1 Q0 d1 1 2 n\nq1 Q0 d3 2 1 n\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        found = trecbench.evaluate(str(qrels), str(run), ["RBP", "RBP(p=0.5)"]).aggregates
    assert found["value"].tolist() == [0.0, 0.0]


def test_nnrbp_on_a_topic_without_a_relevant_document_scores_0_as_the_others(tmp_path):
    # pyndeval's nNRBP divides by its ideal, 0 there: printed "q2 -nan" and "all -nan",
    # then (refusing every nan) stopped the call; its siblings and trec_eval give 0
    pytest.importorskip("pyndeval")
    qrels, run = tmp_path / "q", tmp_path / "r"
    qrels.write_text("q1 1 d1 1\nq1 2 d2 1\nq2 1 d3 0\n")
    run.write_text("q1 Q0 d1 1 2 r\nq1 Q0 d2 2 1 r\nq2 Q0 d3 1 1 r\n")
    found = trecbench.evaluate(str(qrels), str(run), ["nNRBP", "alpha_nDCG@10"]).per_query
    values = found.set_index(["measure", "qid"])["value"]
    assert values["nNRBP"].to_dict() == {"q1": 1.0, "q2": 0.0}
    assert values["alpha_nDCG@10"].to_dict() == {"q1": 1.0, "q2": 0.0}
    # relevant means graded at the level or above (-l 2, rel=2): q2's grade 1 is not
    qrels.write_text("q1 0 d1 2\nq2 0 d2 1\n")
    run.write_text("q1 Q0 d1 1 2 r\nq2 Q0 d2 1 2 r\n")
    for measures, level in ((["nNRBP"], 2), (["nNRBP(rel=2)"], 1)):
        with pytest.warns(ProviderWarning, match="every topic of the qrels has one subtopic"):
            found = trecbench.evaluate(str(qrels), str(run), measures, relevance_level=level)
        assert found.per_query.set_index("qid")["value"].to_dict() == {"q1": 1.0, "q2": 0.0}


def test_a_warning_raised_in_worker_processes_is_said_by_the_caller_once(tmp_path):
    # --jobs 2 printed it once per worker; evaluate(..., jobs=2) let a caller catch none
    import subprocess
    import sys
    import warnings

    pytest.importorskip("pyndeval")
    qrels, base, new = _pia_case(tmp_path)
    argv = [sys.executable, "-m", "trecbench", "score", qrels, base, new, "-m", "P_IA@10"]
    done = subprocess.run([*argv, "--jobs", "2"], capture_output=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stderr.decode().count("ProviderWarning: P_IA@10: every topic") == 1
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        trecbench.evaluate(qrels, [base, new], ["P_IA@10"], jobs=2)
    assert {type(w.message) for w in caught} == {ProviderWarning}


@pytest.mark.parametrize(
    "name",
    ["alpha_nDCG(judged_only=True)@10", "ERR_IA(judged_only=True)@5", "AP_IA(judged_only=True)"],
)
def test_a_diversity_measure_takes_no_judged_only_the_provider_cannot_compute(name):
    # listed as a parameter, it ended in pyndeval's provider: "internal error (TypeError:
    # 'generator' object is not subscriptable)"; ir_measures fails alike
    family = name.partition("(")[0]
    with pytest.raises(UsageError, match=f"{re.escape(family)} has no parameter 'judged_only'"):
        trecbench.parse_measure(name)
