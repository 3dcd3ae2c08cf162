"""trecbench's ports of trec_eval (trecbench.trec_eval) on hand-made inputs: the C library
behaviour they depend on, the choices made where trec_eval crashes or misreads, and the
Python API. What trec_eval prints is checked against the binaries' stored outputs in
test_trec_eval_fixtures.py and test_score_suite.py."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import numpy as np
import pytest

from trecbench import evaluate
from trecbench.errors import InputError, MissingTopicError, TrecbenchError, UsageError
from trecbench.inputs import comments
from trecbench.measures import MeasureParameterError, parse_measures
from trecbench.trec_eval import clib, gains

QRELS = "q1 0 a 1\nq1 0 b 0\nq1 0 c 2\nq2 0 d 1\n"
RUN = "q1 Q0 a 1 3 r\nq1 Q0 b 2 2 r\nq1 Q0 x 3 1 r\nq2 Q0 d 1 1 r\n"


def _files(tmp_path, qrels=QRELS, run=RUN):
    (tmp_path / "qrels").write_text(qrels)
    (tmp_path / "run").write_text(run)
    return tmp_path / "qrels", tmp_path / "run"


def test_lround_rounds_halves_away_from_zero():
    assert [clib.lround(x) for x in (0.5, 1.5, 2.5, -0.5, -2.5, 0.49999999999999994)] == [
        1,
        2,
        3,
        -1,
        -3,
        0,
    ]


def test_double_to_int_truncates_and_overflows_like_x86():
    assert [clib.to_int(x) for x in (1.9, -1.9, 0.5)] == [1, -1, 0]
    assert clib.to_int(math.nan) == clib.to_int(3e9) == clib.INT_MIN


def test_qsort_is_glibcs_merge_sort_with_a_non_transitive_comparator():
    # nDCG's comparator truncates gain differences to int: 0.6 "equals" 0.0 and 1.2, but
    # 0.0 < 1.2; glibc merges halves [0.6, 0.0] and [1.2, 0.3] keeping left on ties
    by_gain = lambda a, b: clib.to_int(a - b)  # noqa: E731
    assert clib.qsort([0.6, 0.0, 1.2, 0.3], by_gain) == [0.6, 0.0, 1.2, 0.3]
    assert clib.qsort([3.0, 1.0, 2.0], by_gain) == [1.0, 2.0, 3.0]


def test_gain_tables_of_both_versions():
    levels = np.array([5, 2, 1])  # grades 0, 1, 2
    old = gains.setup_gains([("a", 2.0), ("1", 3.0)], levels, 3, skip_invalid=False)
    new = gains.setup_gains([("a", 2.0), ("1", 3.0)], levels, 3, skip_invalid=True)
    # 9.0.8 reads 'a' as grade 0 (atol); 10.0 skips it
    assert [(g.rel_level, g.gain, g.num_at_level) for g in old] == [
        (0, 2.0, 5),
        (2, 2.0, 1),
        (1, 3.0, 2),
    ]
    assert [(g.rel_level, g.gain, g.num_at_level) for g in new] == [
        (0, 0.0, 5),
        (2, 2.0, 1),
        (1, 3.0, 2),
    ]
    assert gains.ideal_gains(new).tolist() == [3.0, 3.0, 2.0]


def test_qrels_comment_lines_skipped_by_10():
    data = b"#a\n#b\n#c\nq 0 d 1\n  #e\n#f\n"
    assert comments.qrels_comment_lines(data).tolist() == [1, 3, 6]


@pytest.mark.parametrize("ending", ["# last line\n", "#c 0 d 1\n", "#c"])
def test_a_qrels_comment_on_the_last_line_refused_in_10(tmp_path, ending):
    """trec_eval 10.0 reads past the file's end after a comment on its last line and
    crashes (exit 139 on each of these, its -O3 build): no number to match."""
    qrels, run = _files(tmp_path, QRELS + ending)
    with pytest.raises(InputError) as error:
        evaluate(qrels, run, ["map"], compat="10.0")
    assert (error.value.line, error.value.exit_code) == (5, 2)
    assert "comment on the last line" in error.value.message


def test_comments_in_10_and_refused_in_9(tmp_path):
    qrels, run = _files(
        tmp_path, "# judged\n" + QRELS + "# between\nq2 0 e 0\n", "# header\n" + RUN
    )
    result = evaluate(qrels, run, ["map"], compat="10.0")
    assert result.runs[0].qids == ["q1", "q2"]
    with pytest.raises(InputError) as error:
        evaluate(qrels, run, ["map"])
    assert error.value.exit_code == 2


def test_10_refuses_a_comment_it_would_read_as_a_judgment(tmp_path):
    qrels, run = _files(tmp_path, "#one\n#two 0 d 1\n" + QRELS)
    with pytest.raises(InputError, match="would read this '#' line as a judgment") as error:
        evaluate(qrels, run, ["map"], compat="10.0")
    assert (error.value.line, error.value.exit_code) == (2, 2)


def test_a_qrels_topic_missing_from_the_run(tmp_path):
    qrels, run = _files(tmp_path, QRELS + "q0 0 z 1\n")
    assert evaluate(qrels, run, ["map"]).runs[0].qids == ["q1", "q2"]  # 9.0.8: ignored
    with pytest.raises(MissingTopicError) as error:  # 10.0: stops at it (exit 4)
        evaluate(qrels, run, ["map"], compat="10.0")
    assert error.value.exit_code == 4
    assert error.value.partial.runs[0].qids == []  # q0 comes first: nothing printed
    placed = evaluate(qrels, run, ["num_ret", "num_rel", "yaap"], compat="10.0", complete=True)
    run_result = placed.runs[0]
    assert run_result.qids == ["q0", "q1", "q2"]
    # evaluated on the one-document placeholder: num_ret reset, yaap from the qrels alone
    assert run_result.values["num_ret"][0] == 0 and run_result.values["num_rel"][0] == 1
    assert run_result.values["yaap"][0] == math.log(1 / 2)


def test_partial_evaluation_where_trec_eval_stops(tmp_path):
    qrels, run = _files(tmp_path, run=RUN + "q2 Q0 d 2 0.5 r\n")
    with pytest.raises(TrecbenchError) as error:
        evaluate(qrels, run, ["map"])
    assert error.value.exit_code == 4
    stopped = error.value.partial.runs[0]
    assert (stopped.qids, stopped.complete) == (["q1"], False)


def test_measures_by_version():
    assert "rbp" in {m.family for m in parse_measures(["all_trec"], "10.0")}
    assert "rbp" not in {m.family for m in parse_measures(["all_trec"], "9.0.8")}
    # outside 10.0's -m syntax, rbp is ir_measures' spelling RBP; unj does not exist
    assert parse_measures(["rbp"], "9.0.8")[0].family == "RBP"
    with pytest.raises(UsageError):
        parse_measures(["unj.5"], "9.0.8")
    with pytest.raises(UsageError):
        parse_measures(["map"], "11")


def test_10_crashing_parameter_combination_is_refused(tmp_path):
    qrels, run = _files(tmp_path)
    with pytest.raises(MeasureParameterError, match="shares one parameter list"):
        evaluate(qrels, run, ["ndcg.1=2", "dcg"], compat="10.0")
    evaluate(qrels, run, ["dcg.1=2"], compat="10.0")  # alone it is fine


def test_measures_need_their_judgment_format(tmp_path):
    qrels, run = _files(tmp_path)
    (tmp_path / "prefs").write_text("q1 u s a 2\nq1 u s b 1\n")
    with pytest.raises(TrecbenchError, match="-R prefs") as error:
        evaluate(tmp_path / "prefs", run, ["map"], rel_format="prefs")
    assert error.value.exit_code == 4
    with pytest.raises(TrecbenchError, match="-R qrels"):
        evaluate(qrels, run, ["prefs_simp"])


def test_contradicting_preferences_stop_like_trec_eval(tmp_path):
    # one judgment group, two sub-groups: a > b in one, b > a in the other (trec_eval
    # aborts; trecbench stops with exit 4 and says why)
    prefs = "q1 u s1 a 2\nq1 u s1 b 1\nq1 u s2 a 1\nq1 u s2 b 2\n"
    (tmp_path / "prefs").write_text(prefs)
    (tmp_path / "run").write_text(RUN)
    with pytest.raises(TrecbenchError, match="contradict") as error:
        evaluate(tmp_path / "prefs", tmp_path / "run", ["prefs_simp"], rel_format="prefs")
    assert error.value.exit_code == 4


def test_plus_sign_grades_read_like_atol(tmp_path):
    plus, run = _files(tmp_path, QRELS.replace("a 1", "a +1"))
    (tmp_path / "plain").write_text(QRELS)
    expected = evaluate(tmp_path / "plain", run, ["map"]).aggregates
    assert evaluate(plus, run, ["map"]).aggregates.equals(expected)


def test_scores_beyond_float32_print_no_warning(tmp_path):
    qrels, run = _files(tmp_path, run=RUN.replace(" 3 r", " 3.5e38 r"))
    command = [sys.executable, "-W", "error", "-m", "trecbench", "score", "-m", "map"]
    done = subprocess.run([*command, str(qrels), str(run)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "Warning" not in done.stderr


def test_api_records_the_version(tmp_path):
    qrels, run = _files(tmp_path)
    from trecbench import build_evaluation_report

    result = evaluate(qrels, run, ["map"], compat="10.0")
    assert result.options["compat"] == "10.0"
    document = build_evaluation_report(result, [])
    assert (document["trec_eval_semantics"], document["options"]["compat"]) == ("10.0", "10.0")
    assert evaluate(qrels, run, ["map"]).options["compat"] == "9.0.8"


@pytest.mark.parametrize(
    ("rel_format", "text", "error"),
    [
        (
            "prefs",
            "q1 u s a 2\nq1 u s b\n",
            r"prefs:2: expected 5 fields \(qid jg jsg docno level\), found 4",
        ),
        ("prefs", "q1 u s a 2\nq1 u s b nan\n", "prefs:2: level 'nan' is not a finite decimal"),
        ("qrels_prefs", "q1 u a 2\nq1 u b high\n", "prefs:2: level 'high' is not a finite "),
        # C's atof reads 16, a finite number: the refusal said it is none (reviewer 691)
        ("prefs", "q1 u s a 2\nq1 u s b 0x10\n", "prefs:2: level '0x10' is not a finite decimal"),
    ],
)
def test_a_malformed_preferences_line_is_named(tmp_path, rel_format, text, error):
    (tmp_path / "prefs").write_text(text)
    (tmp_path / "run").write_text(RUN)
    with pytest.raises(InputError, match=error):
        evaluate(tmp_path / "prefs", tmp_path / "run", ["prefs_simp"], rel_format=rel_format)


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("q1 map 0.2 0.1\nq1 P_5 0.3\n", r"z:2: expected 4 fields \(qid measure mean stddev\)"),
        ("q1 map 0.2 0.1\nq1 P_5 abc 0.1\n", "z:2: mean 'abc' is not a decimal number"),
        ("q1 map 0.2 0.1\nq1 P_5 0.3 x\n", "z:2: stddev 'x' is not a decimal number"),
        ("q1 map 0x10 0.1\n", "z:1: mean '0x10' is not a decimal number, nan or inf"),
    ],
)
def test_a_malformed_zscores_line_is_named(tmp_path, text, error):
    (tmp_path / "z").write_text(text)
    (tmp_path / "qrels").write_text(QRELS)
    (tmp_path / "run").write_text(RUN)
    with pytest.raises(InputError, match=error):
        evaluate(tmp_path / "qrels", tmp_path / "run", ["map"], zscores=tmp_path / "z")


@pytest.mark.parametrize("mean", ["1e400", "inf", "-Infinity", "nan"])
def test_a_mean_atof_reads_as_no_number_is_printed_as_trec_eval_prints_it_and_warned_of(
    tmp_path, capsys, mean
):
    """trec_eval 9.0.8 prints Zmap -inf (nan) for a mean of 1e400 or inf (nan): its own
    suite's file has nan means. trecbench refused 1e400 ('is not a number') and printed
    inf without a word (reviewer 194): one rule for every spelling, and a warning."""
    from trecbench.cli import run

    (tmp_path / "z").write_text(f"q1 map {mean} 1\nq2 map 0.5 1\n")
    (tmp_path / "qrels").write_text(QRELS)
    (tmp_path / "run").write_text(RUN)
    paths = [str(tmp_path / name) for name in ("qrels", "run")]
    assert run(["score", "-q", "-Z", str(tmp_path / "z"), "-m", "map", *paths]) == 0
    out, err = capsys.readouterr()
    shown = "nan" if mean == "nan" else ("inf" if mean.startswith("-") else "-inf")
    assert out.splitlines()[0].split() == ["Zmap", "q1", shown]
    assert "a mean or stddev that is nan or infinite on 1 line (the first: line 1)" in err


def test_a_negative_stddev_is_used_as_trec_eval_uses_it_and_warned_of(tmp_path, capsys):
    """trec_eval 9.0.8 divides by a negative stddev: Zmap of q1 is (v - 0.5) / -0.25,
    its sign flipped; trecbench printed the same without a word (an adversarial pass)."""
    from trecbench.cli import run

    (tmp_path / "z").write_text("q1 map 0.25 -0.25\nq2 map 0.5 0.25\nq3 map 0 -1\n")
    (tmp_path / "qrels").write_text(QRELS)
    (tmp_path / "run").write_text(RUN)
    paths = [str(tmp_path / name) for name in ("qrels", "run")]
    assert run(["score", "-q", "-Z", str(tmp_path / "z"), "-m", "map", *paths]) == 0
    out, err = capsys.readouterr()
    # (0.5 - 0.25) / -0.25 and (1 - 0.5) / 0.25, as trec_eval 9.0.8 prints them
    assert out.splitlines()[:2] == [
        "Zmap                   \tq1\t-1.0000",
        "Zmap                   \tq2\t2.0000",
    ]
    assert err.count("a negative stddev on 2 lines (the first: line 1)") == 1


def test_a_z_score_beyond_a_double_s_range_is_warned_of(tmp_path, capsys):
    """trec_eval 9.0.8 -q -Z z -m P.1: (1 - -1) / 1e-320 overflows, "ZP_1 q1 inf" and
    "ZP_1 all inf"; trecbench printed the same without a word (a known item of the notes):
    printed alike, and warned of as no number."""
    from trecbench.cli import run

    (tmp_path / "z").write_text("q1 P_1 -1 1e-320\nq2 P_1 -1 1e-320\nq3 P_1 0.5 1\n")
    (tmp_path / "qrels").write_text("q1 0 d1 1\nq2 0 d1 1\nq3 0 d1 1\n")
    (tmp_path / "run").write_text("q1 Q0 d1 1 1 t\nq2 Q0 d1 1 1 t\nq3 Q0 d1 1 1 t\n")
    paths = [str(tmp_path / name) for name in ("z", "qrels", "run")]
    assert run(["score", "-q", "-m", "P.1", "-Z", *paths]) == 0
    out, err = capsys.readouterr()
    assert [line.split()[1:] for line in out.splitlines()] == [
        ["q1", "inf"], ["q2", "inf"], ["q3", "0.5000"], ["all", "inf"],
    ]  # fmt: skip
    assert f"{paths[0]}: the z-score of P_1 for topic q1 (and 1 more) is beyond a double's" in err
    assert err.count("\n") == 1  # the finite z-score of q3 is not


def test_z_scores_of_minus_zero_alone_sum_to_zero_as_trec_eval_sums_them(tmp_path, capsys):
    """trec_eval 9.0.8 and 10.0 print "ZP_5 q1 -0.0000" and "ZP_5 all 0.0000": their sum
    starts at 0.0, and 0.0 + -0.0 is 0.0; trecbench's began at the first value and printed
    the all line -0.0000 (reviewer 234)."""
    from trecbench.cli import run

    (tmp_path / "z").write_text("q1 P_5 0.2 -1\n")
    (tmp_path / "qrels").write_text("q1 0 d1 1\n")
    (tmp_path / "run").write_text("q1 Q0 d1 1 1 t\n")
    paths = [str(tmp_path / name) for name in ("z", "qrels", "run")]
    for compat in ("9.0.8", "10.0"):
        assert run(["score", "--compat", compat, "-q", "-m", "P.5", "-Z", *paths]) == 0
        lines = [line.split() for line in capsys.readouterr().out.splitlines()]
        assert lines == [["ZP_5", "q1", "-0.0000"], ["ZP_5", "all", "0.0000"]]


def test_an_empty_zscores_file_is_refused_as_trec_eval_does(tmp_path):
    # trec_eval 9.0.8 -Z empty: "Cannot read zscores file 'empty'", exit 255
    (tmp_path / "empty").write_text("")
    (tmp_path / "qrels").write_text(QRELS)
    (tmp_path / "run").write_text(RUN)
    with pytest.raises(InputError, match="empty: empty z-scores file"):
        evaluate(tmp_path / "qrels", tmp_path / "run", ["P.5"], zscores=tmp_path / "empty")


@pytest.mark.parametrize(
    ("lines", "what"),
    [
        ("q1\tP_5\t0.1\t0.5\n", "measure map of topic q1"),  # map sorts after P_5
        ("a\tmap\t0.1\t0.5\n", "topic q1"),  # q1 sorts after a
    ],
)
def test_a_zscores_search_past_the_table_is_refused(tmp_path, lines, what):
    # trec_eval 9.0.8 and 10.0 (-q -m map -Z z): segmentation fault, exit 139; trecbench
    # printed -1000000 for it and exit 0
    (tmp_path / "qrels").write_text("q1 0 d1 1\nq1 0 d2 0\nq2 0 d3 1\n")
    (tmp_path / "run").write_text("q1 Q0 d1 1 1.0 t\nq1 Q0 d2 2 0.5 t\nq2 Q0 d3 1 1.0 t\n")
    (tmp_path / "z").write_text(lines)
    # undefined, not a crash: both binaries print -1000000 on trec_eval's own test file
    # with utility.1,-1,0,0 (reviewer 234)
    refusal = f"^{tmp_path / 'z'}: {what} sorts after every line of the file: .* undefined"
    with pytest.raises(InputError, match=refusal):
        evaluate(tmp_path / "qrels", tmp_path / "run", ["map"], zscores=tmp_path / "z")
    # a line sorting after it keeps trec_eval's search inside the table: -1000000 printed
    (tmp_path / "z").write_text(lines + "zz\tzz\t0\t1\n")
    values = evaluate(tmp_path / "qrels", tmp_path / "run", ["map"], zscores=tmp_path / "z")
    assert -1000000.0 in values.per_query["value"].tolist()


def _zscored(tmp_path, capsys, zscores: str, measure: str) -> tuple[str, str, str]:
    """``score -q -Z`` of two topics, one document each, with ``zscores`` as the file:
    ``(stdout, stderr, the file's path)``."""
    from trecbench.cli import run

    (tmp_path / "qrels").write_text("q1 0 d1 1\nq2 0 d2 1\n")
    (tmp_path / "run").write_text("q1 Q0 d1 1 1.0 t\nq2 Q0 d2 1 1.0 t\n")
    (tmp_path / "z").write_text(zscores)
    paths = [str(tmp_path / name) for name in ("qrels", "run")]
    assert run(["score", "-q", "-Z", str(tmp_path / "z"), "-m", measure, *paths]) == 0
    return (*capsys.readouterr(), str(tmp_path / "z"))


def test_a_value_converted_with_the_next_topic_s_line_is_said(tmp_path, capsys):
    """trec_eval 9.0.8 and 10.0 -q -Z z -m map print 'Zmap q1 3.0000': q1 has no map line,
    and their search, looking one line past q1's, takes q2's (1 - 0.4) / 0.2. trecbench
    printed the same and said nothing, where a value without a line is otherwise warned
    of (reviewer 691)."""
    out, err, path = _zscored(tmp_path, capsys, "q1 P_1 0.5 0.5\nq2 map 0.4 0.2\n", "map")
    assert out == "Zmap                   \tq1\t3.0000\nZmap                   \tq2\t3.0000\n" \
        "Zmap                   \tall\t3.0000\n"  # fmt: skip
    assert err == (
        f"trecbench: warning: TrecEvalUndefinedWarning: {path}: map for topic q1 has no "
        "line: trec_eval's search looks one line past the topic's and takes the next "
        "topic's, 'q2 map' (its mean and stddev), and trecbench prints the same; give the "
        "topic a line of its own\n"
    )
    # each its own line: silent
    assert _zscored(tmp_path, capsys, "q1 map 0.5 0.25\nq2 map 0.4 0.2\n", "map")[1] == ""


def test_a_topic_s_measure_given_twice_in_a_zscores_file_is_said(tmp_path, capsys):
    """trec_eval 9.0.8 -q -Z z -m P.1 prints 'ZP_1 q1 0.8000': its search lands on line 2
    of the two q1 P_1 lines, as trecbench's does, silently (reviewer 691)."""
    text = "q1 P_1 0.5 0.5\nq1 P_1 0.6 0.5\nq2 P_1 0.4 0.2\n"
    out, err, path = _zscored(tmp_path, capsys, text, "P.1")
    assert out.splitlines()[0] == "ZP_1                   \tq1\t0.8000"
    assert err == (
        f"trecbench: warning: {path}: lines 1 and 2 both give topic q1's P_1: "
        "trec_eval's search takes one of them, which trecbench takes too; give each once\n"
    )


def test_debug_one_topic_keeps_the_runs_topic_flags(tmp_path):
    """-D level.qid evaluates one topic; the warnings still compare the run with the qrels
    (topic 4, in both, was flagged as missing from each)."""
    (tmp_path / "qrels").write_text("1 0 d1 1\n2 0 d1 1\n4 0 d1 1\n")
    (tmp_path / "run").write_text("1 Q0 d1 1 3.0 r\n3 Q0 d1 1 3.0 r\n4 Q0 d1 1 3.0 r\n")
    files = tmp_path / "qrels", tmp_path / "run"
    flagged = [(f.qid, f.reason) for f in evaluate(*files, ["ndcg"]).flagged]
    assert flagged == [("3", "run_only"), ("2", "qrels_only")]
    one = evaluate(*files, ["ndcg"], debug_level=1, debug_query="1")
    assert [(f.qid, f.reason) for f in one.flagged] == flagged
    with pytest.raises(TrecbenchError, match=r"\(-D names topic '9', not one of them\)"):
        evaluate(*files, ["ndcg"], debug_level=1, debug_query="9")
    # -D 0. (an empty topic) said "names topic , not one of them"
    with pytest.raises(TrecbenchError, match=r"\(-D names topic '', not one of them\)"):
        evaluate(*files, ["ndcg"], debug_level=1, debug_query="")


@pytest.mark.parametrize("level", ["1_0", "abc", "1x", "", "\u0661"])
def test_a_debug_level_of_no_decimal_integer_is_refused(tmp_path, capsys, level):
    """-D was read by atol, as trec_eval reads it: 1_0 and 1x as level 1, abc as 0,
    where every other integer option refuses them (an adversarial pass)."""
    from trecbench.cli import run

    (tmp_path / "qrels").write_text(QRELS)
    (tmp_path / "run").write_text(RUN)
    paths = [str(tmp_path / name) for name in ("qrels", "run")]
    assert run(["score", "-D", f"{level}.q1", "-m", "map", *paths]) == 1
    out, err = capsys.readouterr()
    assert out == "" and f"{level!r} is not a valid level (ASCII digits 0-9" in err
    assert run(["score", "-D", "-5", "-m", "map", *paths]) == 0  # a sign: atol's, no trace
    # a level of 101 digits is atol's too (cf41509e had refused it as no valid level)
    assert run(["score", "-D", "9" * 101, "-m", "map", *paths]) == 0


def test_standard_input_is_one_run(tmp_path):
    # the second '-' read nothing: "<stdin>: error[R26]: empty file"
    (tmp_path / "qrels").write_text(QRELS)
    with pytest.raises(UsageError, match=r"standard input \('-', /dev/stdin\) can be read once"):
        evaluate(tmp_path / "qrels", ["-", "-"], ["map"], compat="10.0")


def test_parameters_are_read_as_glibc_s_atof_reads_them_hexadecimal_included():
    # trec_eval reads iprec_at_recall.0x1p-1 at 0.5 and Rprec_mult.0x1p1 at 2 (glibc's
    # atof takes C99 hexadecimal): they were read as 0 (iprec_at_recall_0.00)
    from trecbench.trec_eval.clib import c_atof

    cases = {"0x1p-1": 0.5, "0X1P1": 2.0, "-0x1.8": -1.5, "0x.8": 0.5, "0x1.8p1xyz": 3.0}
    cases |= {"0x": 0.0, "0xg": 0.0, "  +0x10": 16.0, "0x1p99999": float("inf"), "1e3": 1e3}
    assert {text: c_atof(text) for text in cases} == cases
    from trecbench.measures import parse_measure, value_names

    assert value_names(parse_measure("iprec_at_recall.0x1p-1")) == [
        ("iprec_at_recall_0.50", "iprec_at_recall_0.50")
    ]


@pytest.mark.parametrize("spelling", ["P_99999999999999999999", "ndcg_cut.5,99999999999999999999"])
def test_a_cutoff_beyond_a_c_long_is_computed_at_its_limit_with_a_warning(spelling, recwarn):
    # trec_eval 9.0.8 prints P_9223372036854775807 (atol saturates): the same, said
    from trecbench.errors import ParameterDomainWarning
    from trecbench.measures import parse_measure, value_names

    with pytest.warns(ParameterDomainWarning, match="as 9223372036854775807 .C's atol"):
        measure = parse_measure(spelling)
    assert value_names(measure)[-1][0] == f"{measure.family}_9223372036854775807"
    parse_measure("P.9223372036854775807")  # the limit itself is read whole: no warning
    assert not [w for w in recwarn if issubclass(w.category, ParameterDomainWarning)]


@pytest.mark.parametrize(
    ("spelling", "label", "part"),
    [
        ("ndcg_cut.1e3", "ndcg_cut_1", "1e3"),
        ("P.5abc", "P_5", "5abc"),
        ("Rprec_mult.2x", "Rprec_mult_2.00", "2x"),
        ("ndcg.1=3x", "ndcg_1=3x", "3x"),
    ],
)
def test_a_parameter_trec_eval_reads_in_part_is_computed_so_with_a_warning(spelling, label, part):
    # trec_eval's atol/atof read 1e3 as 1 and 5abc as 5: computed as it computes them,
    # but no longer without a word (ndcg_cut.1e3 became ndcg_cut_1 silently)
    from trecbench.errors import ParameterDomainWarning
    from trecbench.measures import parse_measure, value_names

    with pytest.warns(ParameterDomainWarning, match=f"reads '{part}' only in part"):
        measure = parse_measure(spelling)
    assert value_names(measure)[0][0] == label


@pytest.mark.parametrize(
    ("spelling", "part"),
    [("set_F.abc", "abc"), ("ndcg.1=", ""), ("iprec_at_recall.x", "x"), ("utility.1,,2,0", "")],
)
def test_a_parameter_without_a_number_is_said_to_be_read_as_0(spelling, part):
    # atof reads no number in 'abc' or '': 0, not a number "read only in part (what follows
    # its number is ignored)", as the warning said
    from trecbench.errors import ParameterDomainWarning
    from trecbench.measures import parse_measure

    with pytest.warns(ParameterDomainWarning) as said:
        parse_measure(spelling)
    texts = [str(w.message) for w in said if issubclass(w.category, ParameterDomainWarning)]
    assert any(f"reads '{part}' as 0 (no number there, C's atof)" in t for t in texts), texts
    assert not any("only in part" in t for t in texts), texts


@pytest.mark.parametrize("length", ["0x1p70", "0x1p9999", "1e999", "nan", "1e19", "-3"])
def test_relstring_s_length_is_the_c_long_of_its_double(length, tmp_path, capsys):
    # m_relstring.c takes (long) of the parameter: 1e19, 2^70 or nan is LONG_MIN, and no
    # string is printed; int() raised OverflowError or ValueError (exit 70) or printed all
    from trecbench.cli import run

    (tmp_path / "q").write_text("1 0 a 1\n1 0 b 0\n")
    (tmp_path / "r").write_text("1 Q0 a 1 2 t\n1 Q0 b 2 1 t\n")
    files = [str(tmp_path / "q"), str(tmp_path / "r")]
    assert run(["score", "-q", "-m", f"relstring.{length}", *files]) == 0
    assert capsys.readouterr().out.startswith(f"relstring_{length}".ljust(22) + "\t1\t''\n")


def test_the_missing_topic_note_does_not_warn_of_a_measure_again():
    # but_counts parsed the shown names again: set_F.0's domain warning printed once more
    import warnings

    from trecbench.measures import but_counts

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert but_counts(["set_F.0", "P.5abc", "num_rel"]) == (
            " (but num_rel: its count of the qrels)"
        )
    assert not caught


@pytest.mark.parametrize("coefficients", ["1,-1", "1,-1,0", "1,-1,0,0,5"])
def test_utility_with_other_than_four_coefficients_exits_4_as_trec_eval(
    tmp_path, capsys, coefficients
):
    # trec_eval 9.0.8 and 10.0: "calc_utility: improper number of coefficients", "Can't
    # calculate measure 'utility'", exit 4, nothing on stdout; trecbench exited 2
    from trecbench.cli import run

    (tmp_path / "q").write_text("q1 0 a 1\n")
    (tmp_path / "r").write_text("q1 Q0 a 1 1 t\n")
    assert (
        run(["score", "-m", f"utility.{coefficients}", str(tmp_path / "q"), str(tmp_path / "r")])
        == 4
    )
    out, err = capsys.readouterr()
    assert out == "" and "improper number of coefficients" in err
    # only where a topic is evaluated: with none in common trec_eval exits 7 first
    (tmp_path / "r2").write_text("q2 Q0 a 1 1 t\n")
    assert (
        run(["score", "-m", f"utility.{coefficients}", str(tmp_path / "q"), str(tmp_path / "r2")])
        == 7
    )


@pytest.mark.parametrize("bad", ["P.0", "ndcg.0=0:1=1:2=3"])
def test_an_unknown_measure_is_named_before_another_s_bad_parameters(tmp_path, capsys, bad):
    # trec_eval 9.0.8 checks every name first: -m P.0 -m foo says "illegal measure 'foo'",
    # exit 1; trecbench reported P.0's cutoff, exit 2
    from trecbench.cli import run

    (tmp_path / "q").write_text("q1 0 a 1\n")
    (tmp_path / "r").write_text("q1 Q0 a 1 1 t\n")
    files = [str(tmp_path / "q"), str(tmp_path / "r")]
    assert run(["score", "-m", bad, "-m", "foo", *files]) == 1
    assert "illegal measure 'foo'" in capsys.readouterr().err
    assert run(["score", "-m", bad, *files]) == 2  # alone: trec_eval's exit 2


def test_unjudged_bounds_under_z_are_named_as_the_scores_are(tmp_path, capsys):
    """Reviewer 201: with -Z the bounds' rows said P@2 (a P@2 of 1.3) beside ZP@2 in the
    scores, the report's aggregates and its tie bounds: the table names it as the scores
    above it do (ZP_2 in the trec format), the report by its display name."""
    from trecbench.cli import run

    (tmp_path / "q").write_text("1 0 d1 1\n2 0 d1 1\n")
    (tmp_path / "r").write_text("1 Q0 d1 1 3 r\n1 Q0 dx 2 2 r\n2 Q0 d1 1 3 r\n")
    (tmp_path / "z").write_text("1 P_2 0.5 0.25\n2 P_2 0.2 0.5\nzz P_2 0 1\n")
    paths = [str(tmp_path / name) for name in ("q", "r")]
    report = tmp_path / "u.json"
    args = ["score", "-Z", str(tmp_path / "z"), "-m", "P.2", "--unjudged-bounds", *paths]
    assert run([*args, "--report", str(report)]) == 0
    assert "r    ZP_2     0.3000       1.3000  33.3%" in capsys.readouterr().out
    document = json.loads(report.read_text())
    assert [row["measure"] for row in document["unjudged_bounds"]] == ["ZP@2"]
    assert run([*args, "--format", "csv"]) == 0
    assert "r,all,ZP.2:unjudged_high,ZP@2:unjudged_high,1.3" in capsys.readouterr().out


def test_z_scores_that_sum_to_nan_say_no_numpy_warning(tmp_path, capsys):
    """Reviewer 201: inf + -inf in the summary's sum printed numpy's 'RuntimeWarning:
    invalid value encountered in accumulate'; the value is trec_eval's (-nan)."""
    from trecbench.cli import run

    (tmp_path / "q").write_text("1 0 d1 1\n2 0 d1 1\n")
    (tmp_path / "r").write_text("1 Q0 d1 1 3 r\n2 Q0 d1 1 3 r\n")
    (tmp_path / "z").write_text("1 map 0 1e-320\n2 map 1e308 1e-10\nzz map 0 1\n")
    paths = [str(tmp_path / name) for name in ("q", "r")]
    assert run(["score", "-Z", str(tmp_path / "z"), "-m", "map", *paths]) == 0
    out, err = capsys.readouterr()
    assert out.split() == ["Zmap", "all", "-nan"] and "RuntimeWarning" not in err


def test_evaluate_carries_the_z_files_warning(tmp_path):
    """Reviewer 202: the -Z file's warning was said by score but not carried by the
    library's Evaluation (docs/python-api.md says its input warnings are)."""
    (tmp_path / "z").write_text("q1 map nan 1\nq2 map 0.5 1\n")
    (tmp_path / "qrels").write_text(QRELS)
    (tmp_path / "run").write_text(RUN)
    evaluation = evaluate(tmp_path / "qrels", tmp_path / "run", ["map"], zscores=tmp_path / "z")
    assert [line.split(": ", 1)[1][:40] for line in evaluation.input_warnings] == [
        "a mean or stddev that is nan or infinite"
    ]


@pytest.mark.parametrize(
    "means, v9, v10",
    [
        # the reference builds' outputs: 9.0.8 keeps the NaN added, 10.0 the NaN summed
        (("nan", "-nan", "0.5"), "-nan", "nan"),
        (("-nan", "nan", "0.5"), "nan", "-nan"),
        (("-inf", "inf", "nan"), "nan", "-nan"),  # inf + -inf first: the hardware's -nan
        (("-inf", "inf", "0.5"), "-nan", "-nan"),
    ],
)
def test_z_scores_all_line_keeps_the_nan_sign_of_each_version(tmp_path, capsys, means, v9, v10):
    """The known-not-done item of the last note: NaN z-scores of both signs summed gave
    10.0's sign under 9.0.8 (numpy's sum keeps the first NaN, 9.0.8's the last)."""
    from trecbench.cli import run

    (tmp_path / "q").write_text("q1 0 d1 1\nq2 0 d1 1\nq3 0 d1 1\n")
    (tmp_path / "r").write_text("q1 Q0 d1 1 1 t\nq2 Q0 d1 1 1 t\nq3 Q0 d1 1 1 t\n")
    lines = [f"q{i} P_1 {mean} 1\n" for i, mean in enumerate(means, 1)]
    (tmp_path / "z").write_text("".join(lines))
    paths = [str(tmp_path / name) for name in ("q", "r")]
    for version, expected in (("9.0.8", v9), ("10.0", v10)):
        args = ["score", "--compat", version, "-Z", str(tmp_path / "z"), "-m", "P.1", *paths]
        assert run(args) == 0
        assert capsys.readouterr().out.split() == ["ZP_1", "all", expected]


def test_the_rbp_leftovers_docs_quote_are_the_default_build_s_on_the_demo(capsys):
    # docs/trec-eval.md quoted rbp values of an input it did not name; on the bundled demo
    # trec_eval 10.0's default build (gcc -g, "10.0-rc3") prints rbp 0.0493 for
    # -m P.5 -m rbp (an -O3 build: 0.0099, its leftovers another measure's)
    from conftest import ROOT

    from trecbench.cli import run

    files = [str(ROOT / "qrels" / "hpo-demo.qrels"), str(ROOT / "runs" / "tfidf-char.run")]
    assert run(["score", "--compat", "10.0", "-m", "P.5", "-m", "rbp", *files]) == 0
    assert capsys.readouterr().out.splitlines()[-1].split() == ["rbp", "all", "0.0493"]
    docs = " ".join((ROOT / "docs" / "trec-eval.md").read_text().split())
    assert "print 0.0493" in docs and "`runs/tfidf-char.run`: 0.0099 built with `-O3`" in docs
