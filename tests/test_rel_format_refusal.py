"""A measure its judgments' format (``-R``) cannot give is refused where trec_eval refuses
it: at the first topic it evaluates, after its checks of the topics. trecbench refused
it before reading the run, exit 4, where trec_eval 9.0.8 says "No queries with both
results and relevance info", exit 7, for a run sharing no topic with the qrels
(reviewer 272: ``trec_eval -m map_avgjg q r2``)."""

from __future__ import annotations

import pytest

from trecbench.cli import run

QRELS = "q1 0 d1 0\nq1 0 d2 1\n"
SHARED = "q1 Q0 d1 1 2 t\nq1 Q0 d2 2 1 t\n"  # q1: in the qrels
OTHER = "q2 Q0 d1 1 1 t\n"  # q2: not in the qrels

NO_COMMON_TOPIC = "No queries with both results and relevance info"
MISSING_TOPIC = "its message: result qid 'q1' not found in qrels"


def _refused(measure: str, rel_format: str) -> str:
    return f"{measure}: trec_eval cannot calculate this measure from -R {rel_format} judgments"


# (compat, flags, run, exit code, what stderr says), each as trec_eval printed and exited:
# trec_eval 9.0.8 and 10.0 (checked with the binaries), e.g. for the first case
# "trec_eval: No queries with both results and relevance info", exit 7
CASES = [
    ("9.0.8", ["-m", "map_avgjg"], OTHER, 7, NO_COMMON_TOPIC),
    ("9.0.8", ["-m", "P_avgjg"], OTHER, 7, NO_COMMON_TOPIC),
    ("9.0.8", ["-m", "Rprec_mult_avgjg"], OTHER, 7, NO_COMMON_TOPIC),
    ("9.0.8", ["-c", "-m", "map_avgjg"], OTHER, 7, NO_COMMON_TOPIC),
    ("9.0.8", ["-m", "prefs_simp"], OTHER, 7, NO_COMMON_TOPIC),
    ("9.0.8", ["-c", "-m", "prefs_simp"], OTHER, 7, NO_COMMON_TOPIC),
    ("9.0.8", ["-R", "qrels_prefs", "-m", "map"], OTHER, 7, NO_COMMON_TOPIC),
    # "rel_info format not qrels_jg ...", "Can't calculate measure 'map_avgjg'", exit 4
    ("9.0.8", ["-m", "map_avgjg"], SHARED, 4, _refused("map_avgjg", "qrels")),
    ("9.0.8", ["-R", "qrels_prefs", "-m", "map"], SHARED, 4, _refused("map", "qrels_prefs")),
    ("9.0.8", ["-m", "prefs_simp"], SHARED, 4, _refused("prefs_simp", "qrels")),
    # 10.0 loops over the qrels' topics: without -c it stops at q1, missing from the run
    # ("result qid 'q1' not found in qrels", exit 4), with -c it evaluates q1 and refuses
    ("10.0", ["-m", "map_avgjg"], OTHER, 4, MISSING_TOPIC),
    ("10.0", ["-R", "qrels_prefs", "-m", "map"], OTHER, 4, MISSING_TOPIC),
    ("10.0", ["-c", "-m", "map_avgjg"], OTHER, 4, _refused("map_avgjg", "qrels")),
    ("10.0", ["-c", "-m", "prefs_simp"], OTHER, 4, _refused("prefs_simp", "qrels")),
    ("10.0", ["-m", "map_avgjg"], SHARED, 4, _refused("map_avgjg", "qrels")),
]


@pytest.mark.parametrize(("compat", "flags", "run_text", "code", "said"), CASES, ids=str)
def test_the_refusal_comes_where_trec_eval_s_does(
    tmp_path, capsys, compat, flags, run_text, code, said
):
    (tmp_path / "q").write_text(QRELS)
    (tmp_path / "r").write_text(run_text)
    paths = [str(tmp_path / "q"), str(tmp_path / "r")]
    assert run(["score", "--compat", compat, *flags, *paths]) == code
    out, err = capsys.readouterr()
    assert out == ""  # trec_eval printed nothing on stdout either
    assert said in err and err.count("\n") == 1


@pytest.mark.parametrize("compat", ["9.0.8", "10.0"])
def test_the_measure_computes_with_qrels_jg(tmp_path, capsys, compat):
    (tmp_path / "q").write_text(QRELS)
    (tmp_path / "r").write_text(SHARED)
    paths = [str(tmp_path / "q"), str(tmp_path / "r")]
    assert run(["score", "--compat", compat, "-R", "qrels_jg", "-m", "map_avgjg", *paths]) == 0
    # trec_eval 9.0.8 and 10.0 printed this line
    assert capsys.readouterr().out == "map_avgjg             \tall\t0.5000\n"


def test_the_first_measure_trec_eval_calculates_stops_it(tmp_path, capsys):
    # trec_eval 9.0.8 -m map_avgjg -m utility.1,2: utility is calculated first, and its
    # "improper number of coefficients" is what it says
    (tmp_path / "q").write_text(QRELS)
    (tmp_path / "r").write_text(SHARED)
    paths = [str(tmp_path / "q"), str(tmp_path / "r")]
    assert run(["score", "-m", "map_avgjg", "-m", "utility.1,2", *paths]) == 4
    assert "utility needs 4 coefficients" in capsys.readouterr().err
