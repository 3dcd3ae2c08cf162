"""ir_measures spellings of trec_eval's measures, parameters included, give trec_eval 9.0.8's
numbers: per query and averaged, on the seeded random fixtures (ties, float32-only ties,
odd docnos, graded and negative labels) that the trec_eval binary scored.

A measure's own parameters replace trec_eval's global flags: ``P(rel=2)@5`` on the plain
files equals ``P_5`` of ``trec_eval -l2``, ``AP(judged_only=True)`` equals ``map`` of
``trec_eval -J``, ``SetF(beta=0.5)`` equals ``set_F.0.5``, ``nDCG(gains={...})`` equals
trec_eval's gain map ``ndcg.1=0,2=5,3=1``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import trecbench

FIXTURES = Path(__file__).parent / "fixtures" / "trec_eval_random"

PLAIN = {
    "AP": "map", "AP@100": "map_cut_100", "MAP@5": "map_cut_5", "nDCG": "ndcg",
    "nDCG@10": "ndcg_cut_10", "NDCG@20": "ndcg_cut_20", "P@5": "P_5", "Precision@10": "P_10",
    "R@10": "recall_10", "Recall@100": "recall_100", "RR": "recip_rank", "Rprec": "Rprec",
    "Bpref": "bpref", "infAP": "infAP", "IPrec@0.2": "iprec_at_recall_0.20",
    "SetP": "set_P", "SetRelP": "set_relative_P",
    "SetR": "set_recall", "SetF": "set_F", "SetAP": "set_map", "NumQ": "num_q",
    "NumRet": "num_ret", "NumRel": "num_rel", "NumRelRet": "num_rel_ret",
    "Success@10": "success_10", "ndcg_cut_15": "ndcg_cut_15", "P_30": "P_30",
    "map_cut_1000": "map_cut_1000", "iprec_at_recall_0.60": "iprec_at_recall_0.60",
}  # fmt: skip
LEVEL_2 = {
    "P(rel=2)@5": "P_5", "R(rel=2)@10": "recall_10", "AP(rel=2)": "map",
    "AP(rel=2)@100": "map_cut_100", "RR(rel=2)": "recip_rank", "Rprec(rel=2)": "Rprec",
    "Bpref(rel=2)": "bpref", "infAP(rel=2)": "infAP", "SetP(rel=2)": "set_P",
    "SetR(rel=2)": "set_recall", "SetF(rel=2)": "set_F", "SetAP(rel=2)": "set_map",
    "NumRet(rel=2)": "num_rel_ret", "Success(rel=2)@10": "success_10",
    "IPrec(rel=2)@0.2": "iprec_at_recall_0.20", "nDCG@10": "ndcg_cut_10",
    "NumRel(rel=2)": "num_rel", "11pt_avg(rel=2)": "11pt_avg",
}  # fmt: skip
JUDGED_ONLY = {
    "P(judged_only=True)@5": "P_5", "AP(judged_only=True)": "map",
    "AP(judged_only=True)@100": "map_cut_100", "nDCG(judged_only=True)@10": "ndcg_cut_10",
    "nDCG(judged_only=True)": "ndcg", "Rprec(judged_only=True)": "Rprec",
    "RR(judged_only=True)": "recip_rank", "R(judged_only=True)@10": "recall_10",
    "SetP(judged_only=True)": "set_P", "SetF(judged_only=True)": "set_F",
    "IPrec(judged_only=True)@0.2": "iprec_at_recall_0.20", "11pt_avg(judged_only=True)": "11pt_avg",
}  # fmt: skip
PARAMETERS = {
    "SetF(beta=0.5)": "set_F_0.5", "IPrec@0.25": "iprec_at_recall_0.25",
    "nDCG(gains={1:0,2:5,3:1})": "ndcg_1=0,2=5,3=1",
}  # fmt: skip
CASES = {
    "mixed__all_q": PLAIN,
    "float32_ties__all_q": PLAIN,
    "negative_labels__all_q": PLAIN,
    "graded__l2_all_q": LEVEL_2,
    "graded__J_all_q": JUDGED_ONLY,
    "docnos__J_all_q": JUDGED_ONLY,
    "negative_labels__J_all_q": JUDGED_ONLY,
    "graded__params_q": PARAMETERS,
    "mixed__params_q": PARAMETERS,
}


def _trec_eval_output(case: str) -> dict[tuple[str, str], str]:
    """``(label, qid) -> printed value`` of a stored trec_eval output."""
    lines = (FIXTURES / f"{case}.out").read_text().splitlines()
    rows = (line.split("\t") for line in lines)
    return {(label.strip(), qid): value for label, qid, value in rows}


@pytest.mark.parametrize("case", CASES)
def test_ir_measures_spellings_print_trec_eval_values(case):
    manifest = json.loads((FIXTURES / "cases.json").read_text())
    (entry,) = [c for c in manifest["cases"] if c["name"] == case]
    mapping = CASES[case]
    expected = _trec_eval_output(case)
    result = trecbench.evaluate(
        FIXTURES / entry["qrels"], FIXTURES / entry["run"], list(mapping), engine="auto"
    )
    (run,) = result.runs
    columns = {c.measure.requested: c for c in result.columns}
    for name, label in mapping.items():
        column = columns[name]
        count = column.summary in ("sum", "num_q", "num_rel")
        shown = (lambda v: str(int(v))) if count else (lambda v: f"{v:6.4f}")
        if column.per_query:
            for index, qid in enumerate(run.qids):
                got = shown(run.values[column.label][index])
                assert got == expected[(label, qid)].strip(), (name, qid)
        assert shown(run.summary[column.label]) == expected[(label, "all")].strip(), name


@pytest.mark.parametrize("engine", ["fast", "pytrec_eval"])
def test_rel_parameter_on_both_engines(engine):
    """``rel`` reaches the fast engine as well: its values equal trec_eval -l2's."""
    expected = _trec_eval_output("graded__l2_all_q")
    names = {"P(rel=2)@5": "P_5", "AP(rel=2)@100": "map_cut_100", "RR(rel=2)": "recip_rank"}
    result = trecbench.evaluate(
        FIXTURES / "graded.qrels", FIXTURES / "graded.run", list(names), engine=engine
    )
    assert {c.engine for c in result.columns} == {engine}
    (run,) = result.runs
    for column in result.columns:
        label = names[column.measure.requested]
        for index, qid in enumerate(run.qids):
            assert f"{run.values[column.label][index]:6.4f}" == expected[(label, qid)].strip()


def test_num_rel_with_its_own_rel_under_c_counts_at_that_grade(tmp_path):
    """``-c`` counts a topic the run lacks: trec_eval's ``num_rel`` sums every judgment
    above 0 whatever ``-l`` (its quirk, kept: 8 below, as trec_eval -c -l3 -m num_rel
    prints), but ``NumRel(rel=3)`` means the judgments at grade 3 or above, by hand 4 (a:
    2, b, which the run lacks: 1, c: 1)."""
    qrels = ["a 0 d1 1", "a 0 d2 2", "a 0 d3 3", "a 0 d4 3", "b 0 d1 3", "b 0 d2 1"]
    qrels += ["c 0 d1 0", "c 0 d2 3", "c 0 d3 2"]
    (tmp_path / "q").write_text("\n".join(qrels) + "\n")
    (tmp_path / "r").write_text("a Q0 d1 1 2 r\na Q0 d9 2 1 r\nc Q0 d2 1 1 r\n")
    result = trecbench.evaluate(
        tmp_path / "q", tmp_path / "r", ["num_rel", "NumRel(rel=3)"], complete=True,
        relevance_level=3,
    )  # fmt: skip
    assert result.runs[0].summary == {"num_rel": 8, "NumRel(rel=3)": 4}


# trec_eval 10.0's rounded recall cutoffs (lround(p * R)) under a measure's own rel and
# judged_only, as under -l2 and -J: the stored outputs of `trec_eval -J|-l2 -q -m all_trec`
TEN_LEVELS = [f"0.{tenth}" for tenth in range(10)] + ["1"]
TEN_OWN_PARAMETERS = {
    "complete_ties__J_all_q.10": {
        **{f"IPrec(judged_only=True)@{p}": f"iprec_at_recall_{float(p):3.2f}" for p in TEN_LEVELS},
        "11pt_avg(judged_only=True)": "11pt_avg",
    },
    "complete_ties__l2_all_q.10": {
        **{f"IPrec(rel=2)@{p}": f"iprec_at_recall_{float(p):3.2f}" for p in TEN_LEVELS},
        "11pt_avg(rel=2)": "11pt_avg",
    },
}


@pytest.mark.parametrize("case", TEN_OWN_PARAMETERS)
def test_recall_cutoffs_with_their_own_parameters_print_trec_eval_10_values(case):
    # IPrec(judged_only=True)@r was computed with 9.0.8's cutoffs under --compat 10.0
    names = TEN_OWN_PARAMETERS[case]
    expected = _trec_eval_output(case)
    result = trecbench.evaluate(
        FIXTURES / "complete_ties.qrels", FIXTURES / "complete_ties.run", list(names),
        compat="10.0",
    )  # fmt: skip
    (run,) = result.runs
    for column in result.columns:
        label = names[column.measure.requested]
        for index, qid in enumerate(run.qids):
            got = f"{run.values[column.label][index]:6.4f}"
            assert got == expected[(label, qid)].strip(), (column.measure.requested, qid)


def test_a_recall_cutoff_with_and_without_its_own_parameters_keeps_both_values():
    # one call, one level, two settings: each its own value (trec_eval 10.0 without and
    # with -J, the stored outputs' 'all' lines)
    result = trecbench.evaluate(
        FIXTURES / "complete_ties.qrels", FIXTURES / "complete_ties.run",
        ["IPrec@0.6", "IPrec(judged_only=True)@0.6"], compat="10.0",
    )  # fmt: skip
    shown = {name: f"{value:6.4f}" for name, value in result.runs[0].summary.items()}
    plain = _trec_eval_output("complete_ties__all_q.10")[("iprec_at_recall_0.60", "all")]
    judged = _trec_eval_output("complete_ties__J_all_q.10")[("iprec_at_recall_0.60", "all")]
    assert shown == {"iprec_at_recall_0.60": plain, "IPrec(judged_only=True)@0.6": judged}
