"""Grouped means where a statistic has nothing to stand on: the spread of one group, groups
a run has no topic of, sidecar topics outside the qrels (hand-worked numbers)."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from trecbench.strata import group_means, group_warnings

REASON = "one group only (a spread is between two or more group means)"

# qrels a..d; run r has a, b, c (d missing); run s has a and b only. P@1 per topic:
# r: a 1, b 0 (d2 first), c 1; s: a 1, b 1
QRELS = "a 0 d1 1\na 0 d2 0\nb 0 d1 1\nb 0 d3 1\nc 0 d4 1\nd 0 d5 1\n"
RUN_R = "a Q0 d1 1 3 r\na Q0 d2 2 2 r\nb Q0 d2 1 3 r\nb Q0 d1 2 2 r\nc Q0 d4 1 1 r\n"
RUN_S = "a Q0 d1 1 3 s\nb Q0 d1 1 3 s\ne Q0 d1 1 3 s\n"  # e: in no qrels


def _files(tmp_path, queries: dict) -> list[str]:
    (tmp_path / "q").write_text(QRELS)
    (tmp_path / "r").write_text(RUN_R)
    (tmp_path / "s").write_text(RUN_S)
    sidecar = tmp_path / "side.json"
    sidecar.write_text(json.dumps({"strata": {"fields": ["lang"], "queries": queries}}))
    return [str(tmp_path / "q"), "--strata", str(sidecar), "--group-by", "lang"]


ONE_GROUP = {q: {"lang": "en"} for q in "abcd"}


def test_the_spread_of_one_group_is_undefined_not_0():
    from trecbench.strata import SPREAD_OF_ONE

    rows = [("r", "1", "P@1", 1.0), ("r", "2", "P@1", 0.5)]
    strata = pd.DataFrame({"qid": ["1", "2"], "lang": ["en", "en"]}, dtype="string")
    out = group_means(
        pd.DataFrame(rows, columns=["run", "qid", "measure", "value"]), strata, "lang"
    )
    spread = out[out["kind"] == "spread"].iloc[0]
    # it printed 0.0000: the largest minus the smallest of one mean
    assert spread["n"] == 1 and pd.isna(spread["value"]) and spread["undefined"] == SPREAD_OF_ONE
    assert SPREAD_OF_ONE == REASON
    assert out[out["kind"] != "spread"]["undefined"].isna().all()
    macro, micro = (out[out["kind"] == k].iloc[0] for k in ("macro", "micro"))
    assert (macro["n"], macro["value"], micro["n"], micro["value"]) == (1, 0.75, 2, 0.75)
    warnings = group_warnings({"lang": out})
    assert warnings[-1] == f"--group-by lang: spread n/a (undefined): {REASON} — r."


@pytest.mark.parametrize("fmt", ["table", "markdown"])
def test_one_group_spread_is_n_a_with_the_reason_in_the_tables(fmt, tmp_path, capsys):
    from trecbench.cli import run

    args = ["score", "-m", "P.1", "--format", fmt, *_files(tmp_path, ONE_GROUP)]
    assert run([*args, str(tmp_path / "r")]) == 0
    captured = capsys.readouterr()
    lines = captured.out.splitlines()
    (row,) = [line for line in lines if "(spread)" in line]
    assert row.replace("|", " ").split() == ["r", "(spread)", "1", "n/a"]
    (macro,) = [line for line in lines if "(macro)" in line]  # en: (1 + 0 + 1) / 3
    assert macro.replace("|", " ").split() == ["r", "(macro)", "1", "0.6667"]
    assert lines[-1] == f"Spread n/a (undefined): {REASON} — r."
    assert f"trecbench: warning: --group-by lang: spread n/a (undefined): {REASON}" in captured.err


def test_one_group_spread_in_trec_text_csv_and_json(tmp_path, capsys):
    from trecbench.cli import run
    from trecbench.report import validate_against_schema

    args = ["score", "-m", "P.1", *_files(tmp_path, ONE_GROUP), str(tmp_path / "r")]
    assert run(args) == 0
    text = capsys.readouterr().out.splitlines()
    where = text.index(f"# lang:spread n/a (undefined): {REASON}")
    assert text[where + 1 :] == ["num_q                 \tlang:spread\t1",
                                 "P_1                   \tlang:spread\t   n/a"]  # fmt: skip
    assert run([*args, "--format", "csv"]) == 0
    csv = capsys.readouterr().out.splitlines()
    assert csv[-2:] == ["r,lang:spread,num_q,num_q,1", "r,lang:spread,P.1,P@1,"]
    report = tmp_path / "report.json"
    assert run([*args, "--format", "json", "--report", str(report)]) == 0
    (grouped,) = json.loads(capsys.readouterr().out)["groups"]["lang"].values()
    assert grouped["spread"] == {"n": 1, "P.1": None}
    assert grouped["spread_undefined"] == REASON
    document = json.loads(report.read_text())
    validate_against_schema(document, "evaluation_report")
    (recorded,) = document["groups"]["lang"].values()
    assert recorded["spread"] == {"n": 1, "P@1": None} and recorded["spread_undefined"] == REASON
    assert f"--group-by lang: spread n/a (undefined): {REASON} — r." in document["warnings"]


@pytest.mark.parametrize("complete", [False, True])
def test_groups_missing_from_a_run_and_topics_missing_from_the_qrels(complete, tmp_path, capsys):
    """en: a, b; de: c; fr: d (in no run); xx: zz (in no qrels) and e (only in run s).

    Without -c a group none of whose topics a run has is not that run's: s (a, b) has
    en only, so its spread is n/a; with -c d counts 0 (fr) and c counts 0 for s (de)."""
    from trecbench.cli import run

    queries = {"a": {"lang": "en"}, "b": {"lang": "en"}, "c": {"lang": "de"}}
    queries |= {"d": {"lang": "fr"}, "e": {"lang": "xx"}, "zz": {"lang": "xx"}}
    args = ["score", "-m", "P.1", "--format", "json", *_files(tmp_path, queries)]
    runs = [str(tmp_path / "r"), str(tmp_path / "s")]
    assert run([*args, *(["-c"] if complete else []), *runs]) == 0
    groups = json.loads(capsys.readouterr().out)["groups"]["lang"]
    r, s = groups["r"], groups["s"]
    if not complete:
        # r: en (1 + 0)/2, de 1; macro (0.5 + 1)/2, micro 2/3, spread 1 - 0.5
        assert r["groups"] == {"de": {"n": 1, "P.1": 1.0}, "en": {"n": 2, "P.1": 0.5}}
        assert (r["macro"], r["micro"]) == ({"n": 2, "P.1": 0.75}, {"n": 3, "P.1": 2 / 3})
        assert r["spread"] == {"n": 2, "P.1": 0.5} and r["spread_undefined"] is None
        # s: en (1 + 1)/2 only (e is in no qrels: no group xx)
        assert s["groups"] == {"en": {"n": 2, "P.1": 1.0}}
        assert (s["macro"], s["micro"]) == ({"n": 1, "P.1": 1.0}, {"n": 2, "P.1": 1.0})
        assert s["spread"] == {"n": 1, "P.1": None} and s["spread_undefined"] == REASON
        return
    # -c: r adds d = 0 (fr); s adds c = 0 (de) and d = 0 (fr)
    assert r["groups"]["fr"] == {"n": 1, "P.1": 0.0}
    assert r["macro"] == {"n": 3, "P.1": pytest.approx(0.5)}  # (0.5 + 1 + 0)/3
    assert r["micro"] == {"n": 4, "P.1": 0.5} and r["spread"] == {"n": 3, "P.1": 1.0}
    assert s["groups"] == {"de": {"n": 1, "P.1": 0.0}, "en": {"n": 2, "P.1": 1.0},
                           "fr": {"n": 1, "P.1": 0.0}}  # fmt: skip
    assert s["macro"] == {"n": 3, "P.1": pytest.approx(1 / 3)} and s["micro"]["P.1"] == 0.5
    assert s["spread"] == {"n": 3, "P.1": 1.0} and s["spread_undefined"] is None


def test_measures_with_no_per_group_mean_are_named_as_left_out(tmp_path, capsys):
    # with only num_ret the grouped output was empty, and nothing said why
    from trecbench.cli import run

    two_groups = {q: {"lang": "en" if q in "ab" else "de"} for q in "abcd"}
    args = ["score", "-m", "num_ret", "-m", "gm_map", "-m", "P.1", *_files(tmp_path, two_groups)]
    assert run([*args, str(tmp_path / "r")]) == 0
    err = capsys.readouterr().err
    assert (
        "--group-by: num_ret, gm_map left out: not a mean over topics (a sum, a geometric mean "
        "or no number), so no per-group mean" in err
    )
    assert run(["score", "-m", "P.1", *_files(tmp_path, two_groups), str(tmp_path / "r")]) == 0
    assert "left out" not in capsys.readouterr().err


def test_qid_prefix_groups_with_no_measure_to_group(tmp_path, capsys):
    # internal error (KeyError: 0): the empty per-query values had no prefix column
    from trecbench.cli import run

    (tmp_path / "q").write_text("a/1 0 d1 1\nb/2 0 d1 1\n")
    (tmp_path / "r").write_text("a/1 Q0 d1 1 2 r\nb/2 Q0 d1 1 3 r\n")
    args = ["score", "-m", "num_ret", "--group-by", "qid-prefix", str(tmp_path / "q")]
    assert run([*args, str(tmp_path / "r")]) == 0
    captured = capsys.readouterr()
    assert captured.out.split()[:3] == ["num_ret", "all", "2"]
    assert "--group-by: num_ret left out" in captured.err
