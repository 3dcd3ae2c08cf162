"""The frames an Evaluation hands out are the caller's: changing one changed every later
view of the same result (to_dict, to_frame, to_long read the frames per_query and
aggregates returned), which then contradicted its own runs' summaries."""

from __future__ import annotations

import pandas as pd
from conftest import ROOT

import trecbench

QRELS = str(ROOT / "qrels" / "hpo-demo.qrels")
RUN = str(ROOT / "runs" / "tfidf-word.run")


def _views(result) -> tuple:
    return (
        result.to_dict(), result.to_frame(), result.to_frame(per_query=True), result.to_long(),
        result.per_query, result.aggregates, result.tie_bounds, result.tie_bounds_per_query,
    )  # fmt: skip


def _same(a, b) -> bool:
    if isinstance(a, pd.DataFrame):
        return a.equals(b)
    return a == b


def test_changing_a_frame_handed_out_changes_no_later_view():
    result = trecbench.evaluate(QRELS, RUN, ["nDCG@10", "P@5"], tie_bounds=True)
    before = _views(result)
    for frame in (result.per_query, result.aggregates):
        frame["value"] = frame["value"] * 100
        frame["measure"] = frame["measure"].str.lower()
    for frame in (result.tie_bounds, result.tie_bounds_per_query):
        frame["low"] = 0.0
    after = _views(result)
    assert all(_same(a, b) for a, b in zip(before, after, strict=True))
    summary = result.runs[0].summary  # the run's own, which the views agree with
    assert before[1].loc["tfidf-word"].to_dict() == {
        "nDCG@10": summary["ndcg_cut_10"], "P@5": summary["P_5"]
    }  # fmt: skip


def test_a_value_trec_eval_prints_as_nan_is_nan_in_every_view():
    """python-api.md: IPrec@0 and 11pt_avg with judged_only where nothing judged is left in
    the cut are trec_eval's -nan: NaN per topic and as the mean, never a number."""
    import math

    result = trecbench.evaluate(QRELS, RUN, ["IPrec@0", "11pt_avg", "P@5"], judged_only=True)
    per_topic = result.to_frame(per_query=True)
    undefined = per_topic["IPrec@0"].isna()
    assert undefined.any() and (per_topic["11pt_avg"].isna() == undefined).all()
    assert not per_topic["P@5"].isna().any()
    means = result.to_frame().iloc[0]
    assert math.isnan(means["IPrec@0"]) and math.isnan(means["11pt_avg"])
    _, qid = per_topic.index[undefined][0]
    assert math.isnan(result.to_dict()[qid]["IPrec@0"])
