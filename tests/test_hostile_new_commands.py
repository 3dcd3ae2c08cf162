"""Hostile values on the commands the last stop added (pool, similarity, leaderboard, diff,
fuse --optimize, the HTML drill-down, power's legend): each is refused in one line with a
non-zero exit, never a traceback, an internal error or a silent change."""

from __future__ import annotations

import json

import pytest
from conftest import ROOT

from trecbench.cli import run

QRELS = "t1 0 d1 1\nt1 0 d2 0\nt1 0 d3 2\nt2 0 d1 1\nt2 0 d4 1\nt3 0 d5 1\n"
RUNS = {
    "a.run": "t1 Q0 d1 1 3 a\nt1 Q0 d2 2 2 a\nt1 Q0 d3 3 1 a\nt2 Q0 d4 1 3 a\nt2 Q0 d9 2 2 a\n"
    "t3 Q0 d5 1 1 a\n",
    "b.run": "t1 Q0 d3 1 3 b\nt1 Q0 d1 2 2 b\nt1 Q0 d7 3 1 b\nt2 Q0 d1 1 3 b\nt2 Q0 d8 2 2 b\n"
    "t3 Q0 d6 1 1 b\n",
    "c.run": "t1 Q0 d2 1 3 c\nt2 Q0 d4 1 3 c\nt3 Q0 d5 1 1 c\n",
}
BEYOND_INT64 = "99999999999999999999999"
OPTIMIZE = ["fuse", "--optimize", "P@3", "--qrels", "q.qrels", "a.run", "b.run", "c.run"]


@pytest.fixture
def folder(tmp_path, monkeypatch):
    (tmp_path / "q.qrels").write_text(QRELS)
    (tmp_path / "dup.qrels").write_text("t1 0 d1 1\nt2 0 d4 1\nt1 0 d1 0\n")
    for name, text in RUNS.items():
        (tmp_path / name).write_text(text)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _refused(args: list[str], capsys, code: int, message: str) -> str:
    assert run(args) == code
    err = capsys.readouterr().err
    assert message in err, err
    assert "Traceback" not in err and "internal error" not in err
    return err


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["pool", "a.run", "b.run", "--depth", BEYOND_INT64], 1, "Invalid value for '--depth'"),
        (["similarity", "a.run", "b.run", "--depth", BEYOND_INT64], 1, "Invalid value for '--d"),
        (["similarity", "a.run", "b.run", "--overlap-k", BEYOND_INT64], 1, "value for '--overl"),
        # named by the option, as --depth is: it was "the overlap k must be ..." (helper-596)
        (["similarity", "a.run", "b.run", "--overlap-k", "0"], 1, "value for '--overlap-k'"),
        (["pool", "a.run", "--qrels", "q.qrels", "-l", "0"], 1, "Invalid value for '-l'"),
        (["pool", "a.run", "--unjudged-grade", "nan"], 1, "must be an integer within"),
        (["pool", "a.run", "--unjudged-grade", "1.5"], 1, "must be an integer within"),
        (["pool", "a.run", "--unjudged-grade", "2000000"], 1, "must be an integer within"),
        # a byte that is not UTF-8 (a lone surrogate): it was an internal error, exit 70
        (["pool", "a.run", "--unjudged-grade", "\udcff"], 1, "must be an integer within"),
        (["pool", "a.run", "--unjudged-grade", "\u0663"], 1, "must be an integer within"),
        (["pool", "a.run", "b.run", "--qrels", "dup.qrels"], 4, "dup.qrels:3: duplicate docs d1"),
    ],
)
def test_pool_and_similarity_refuse(folder, capsys, args, code, message):
    target = folder / "pool.txt"
    output = ["-o", str(target)] if args[0] == "pool" else []
    assert run([*args, *output]) == code
    captured = capsys.readouterr()
    assert message in captured.err and "Traceback" not in captured.err
    assert not target.exists()
    if code == 1:  # refused before the work: no summary printed first
        assert captured.out == ""


def test_pool_writes_a_grade_its_qrels_reader_takes(folder, capsys):
    assert run(["pool", "a.run", "--unjudged-grade", "+2", "-o", "pool.txt"]) == 0
    # written as qrels grades are (+2 as 2: the reader takes +2, and validate notes it)
    assert (folder / "pool.txt").read_text().splitlines()[0] == "t1 0 d1 2"


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--seed", "-1"], "Invalid value for '--seed'"),
        (["--k", "5"], "--optimize chooses rrf's k with equal weights"),
        (["-w", "1", "-w", "2", "-w", "3"], "--optimize chooses rrf's k with equal weights"),
        (["--method", "combsum", "-w", "1", "-w", "1", "-w", "1"], "chooses combsum's weights"),
        (["--step", "0.5"], "--step is the grid of weights"),
        (["--method", "combsum", "--k", "3"], "--k: combsum has no k"),
        # said of 'the weight step', not of the option
        (["--method", "combsum", "--step", "0.3"], "trecbench: --step must divide 1 (0.1, "),
        (["--tag", "a b"], "--tag 'a b': a run tag is one token of printable text, without blanks"),
    ],
)
def test_fuse_optimize_refuses_options_it_would_drop(folder, capsys, extra, message):
    err = _refused([*OPTIMIZE, "--folds", "2", *extra, "-o", "o.run"], capsys, 1, message)
    assert "chose" not in err  # refused before the search
    assert not (folder / "o.run").exists()


@pytest.mark.parametrize("option", [["--folds", "3"], ["--seed", "1"], ["--step", "0.5"]])
def test_fuse_refuses_optimize_options_without_optimize(folder, capsys, option):
    _refused(["fuse", "a.run", "b.run", *option, "-o", "o.run"], capsys, 1, "goes with --optimize")


def test_fuse_refuses_k_for_a_method_without_k(folder, capsys):
    args = ["fuse", "a.run", "b.run", "--method", "combmnz", "--k", "3", "-o", "o.run"]
    _refused(args, capsys, 1, "--k: combmnz has no k")


@pytest.mark.parametrize(
    ("measure", "message"),
    [
        ("P", "it gives P@5, P@10, P@15, P@20, ..."),
        ("P_1,3", "it gives P@1, P@3"),
        ("runid", "runid gives no number per topic"),
        ("num_ret", "a better direction, not num_ret (a count or a diagnostic"),
        ("Judged@3", "a better direction, not Judged@3"),
    ],
)
def test_fuse_optimize_refuses_a_measure_it_cannot_optimise(folder, capsys, measure, message):
    args = ["fuse", "--optimize", measure, "--qrels", "q.qrels", "a.run", "b.run", "--folds", "2"]
    _refused([*args, "-o", "o.run"], capsys, 1, message)


def test_optimize_fusion_refuses_a_negative_seed(folder):
    from trecbench.errors import UsageError
    from trecbench.runstudy.fusion_tuning import optimize_fusion

    with pytest.raises(UsageError, match="^seed must be a non-negative integer"):
        optimize_fusion(["a.run", "b.run"], "q.qrels", "P@3", folds=2, seed=-1)


def test_fuse_optimize_tiny_step_says_the_count_in_one_short_line(folder, capsys):
    args = [*OPTIMIZE, "--folds", "2", "--method", "combsum", "--step", "1e-300", "-o", "o.run"]
    err = _refused(args, capsys, 1, "weightings to score (at most 10,000)")
    assert len(err) < 200


def test_diff_refuses_a_report_listing_a_run_twice(folder, capsys):
    assert run(["score", "--report", "a.json", "q.qrels", "a.run", "-m", "P@1"]) == 0
    report = json.loads((folder / "a.json").read_text())
    report["results"].append(report["results"][0])
    (folder / "b.json").write_text(json.dumps(report))
    capsys.readouterr()
    _refused(["diff", "a.json", "b.json"], capsys, 2, "the run 'a' is listed twice")


def _suite(folder, where: str) -> str:
    queries = {"t1": {"lang": "de"}, "t2": {"lang": "en"}, "t3": {"lang": "en"}}
    sidecar = {"strata": {"fields": ["lang"], "queries": queries}}
    (folder / "side.json").write_text(json.dumps(sidecar))
    (folder / "suite.toml").write_text(
        'systems = ["a", "b"]\nmeasures = ["P@1"]\n'
        '[collections.en]\nqrels = "q.qrels"\nruns = "{system}.run"\n'
        'strata = "side.json"\nwhere = { lang = "en" }\n'
        f'[collections.x]\nqrels = "q.qrels"\nruns = "{{system}}.run"\n'
        f'strata = "side.json"\nwhere = {{ lang = "{where}" }}\n'
    )
    return "suite.toml"


def test_leaderboard_refuses_a_collection_whose_stratum_keeps_no_topic(folder, capsys):
    suite = _suite(folder, "fr")
    message = "collections.x.where: the qrels q.qrels judge none of the topics kept by lang = 'fr'"
    err = _refused(["leaderboard", suite], capsys, 2, message)
    assert err.startswith("trecbench: suite.toml:12: ")  # at the suite's setting, its line


def test_leaderboard_with_a_stratum_of_topics_still_prints(folder, capsys):
    assert run(["leaderboard", _suite(folder, "de"), "--format", "json"]) == 0
    board = json.loads(capsys.readouterr().out)["measures"][0]
    assert board["topics"] == {"en": 2, "x": 1}


def test_html_depth_beyond_int64_is_refused(folder, capsys):
    pytest.importorskip("bokeh")  # without the html extra no page is drawn
    args = ["compare", "q.qrels", "a.run", "b.run", "-m", "P@3", "-o", "out"]
    said = f"Invalid value for '--html-depth': {BEYOND_INT64} is not in the range 0<=x<="
    _refused([*args, "--html-depth", BEYOND_INT64], capsys, 1, said)
    assert not (folder / "out").exists()


@pytest.mark.parametrize("command", ["score", "compare"])
def test_html_depth_beyond_int64_is_a_usage_error_before_a_missing_input(command, capsys):
    # as --depth (77739ca5): a missing run was said first, 'cannot read', exit 2
    args = [command, "missing.qrels", "a.run", "b.run", "--html-depth", BEYOND_INT64]
    _refused(args, capsys, 1, f"Invalid value for '--html-depth': {BEYOND_INT64} is not in")


def test_power_legend_prints_the_target_as_given(folder, capsys):
    args = ["power", "q.qrels", "a.run", "b.run", "-m", "P@3", "--power", "0.999999999999"]
    assert run(args) == 0
    assert "target power 0.999999999999\n" in capsys.readouterr().out


@pytest.mark.parametrize(("qid", "docno"), [("t 1", "d1"), ("t1", "a b"), ("t1", "d\n2")])
def test_pool_file_refuses_ids_a_qrels_line_cannot_hold(qid, docno):
    import pandas as pd

    from trecbench.errors import OutputError
    from trecbench.runstudy.pool import pool

    run_table = pd.DataFrame({"qid": [qid, "t2"], "docno": [docno, "d"], "score": [1.0, 1.0]})
    with pytest.raises(OutputError, match="a pool file cannot hold the"):
        pool([run_table]).to_text()


def test_agree_says_why_kappa_is_undefined_when_no_document_is_judged_in_both(folder, capsys):
    (folder / "disjoint.qrels").write_text("t1 0 z1 1\nt2 0 z2 0\nt3 0 z3 1\n")
    args = ["agree", "q.qrels", "a.run", "b.run", "-m", "P@1", "--qrels-b", "disjoint.qrels"]
    assert run(args) == 0
    out = capsys.readouterr().out
    assert "weighted kappa undefined: no document is judged in both sets\n" in out
    assert "carry one label" not in out


@pytest.mark.parametrize(
    ("missing", "rows"),
    [
        # every qrels topic counts, one.run scores 0 on t2 and t3: its mean is 1/9, not 1/3
        ("zero", ["a    P@3      0.4444       0.5556  16.7%", "one  P@3      0.1111       0.1111"]),
        # only t1, the topic both runs hold
        ("drop", ["a    P@3      0.6667       0.6667  0.0%", "one  P@3      0.3333       0.3333"]),
    ],
)
def test_compare_unjudged_bounds_start_from_the_compared_means(folder, capsys, missing, rows):
    (folder / "one.run").write_text("t1 Q0 d1 1 3.0 o\n")
    args = ["compare", "q.qrels", "a.run", "one.run", "-m", "P@3", "--unjudged-bounds"]
    assert run([*args, "--missing", missing]) == 0
    out = capsys.readouterr().out
    for row in rows:
        assert f"\n{row}" in out, out[out.index("unjudged sensitivity") :]


def test_leaderboard_ranks_no_one_on_a_count_without_a_better_direction(folder, capsys):
    (folder / "suite.toml").write_text(
        'systems = ["a", "c"]\nmeasures = ["num_ret", "P@1"]\n'
        '[collections.all]\nqrels = "q.qrels"\nruns = "{system}.run"\n'
    )
    assert run(["leaderboard", "suite.toml", "--format", "json"]) == 0
    count, precision = json.loads(capsys.readouterr().out)["measures"]
    assert count["better"] is None  # num_ret: more documents retrieved is not better
    assert [row["ranks"] for row in count["systems"]] == [{"all": None}, {"all": None}]
    assert [row["mean_rank"] for row in count["systems"]] == [None, None]
    assert precision["better"] == "higher" and precision["systems"][0]["ranks"] == {"all": 1.0}
    assert run(["leaderboard", "suite.toml"]) == 0
    table = capsys.readouterr().out
    title = "num_ret (a mean per topic, where trec_eval sums it; no better direction: not ranked"
    assert f"{title}; topics: all 3)\n" in table
    assert "\na       2.0000  2.0000  –  " in table


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda t: t.power("q.qrels", "a.run", ["b.run"], "P@3", alpha="0.05"), "alpha must be"),
        (
            lambda t: t.power("q.qrels", "a.run", ["b.run"], "P@3", target_power=0.01),
            "must be above alpha",
        ),
        (
            lambda t: t.agree("q.qrels", ["a.run", "b.run"], "P@3", seed=-1),
            "seed must be a non-neg",
        ),
        (lambda t: t.agree("q.qrels", ["a.run", "b.run"], "P@3", samples=1.5), "samples must be"),
        (lambda t: t.agree("q.qrels", ["a.run", "b.run"], "P@3", alpha=True), "alpha must be"),
        (
            lambda t: t.optimize_fusion(
                ["a.run", "b.run"], "q.qrels", "P@3", "combsum", step="0.1"
            ),
            "^step must divide 1 \\(0.1, 0.25, ...\\): the weights. step, not .0.1.$",
        ),
        (
            lambda t: t.optimize_fusion(["a.run", "b.run"], "q.qrels", "P@3", k_grid=()),
            "the grid of RRF's k is empty",
        ),
        (
            lambda t: t.optimize_fusion(["a.run", "b.run"], "q.qrels", "P@3", k_grid=("x",)),
            "k must be a finite number",
        ),
        (  # one setting scored twice and counted as two candidates (helper-592)
            lambda t: t.optimize_fusion(
                ["a.run", "b.run"], "q.qrels", "P@3", k_grid=(10, 20, 10.0)
            ),
            "^k_grid: the k 10.0 is given twice; give each k once$",
        ),
    ],
)
def test_python_api_refuses_settings_with_a_trecbench_error(folder, call, message):
    import trecbench
    from trecbench.errors import UsageError

    with pytest.raises(UsageError, match=message):
        call(trecbench)


@pytest.mark.parametrize("p", [5e-324, 1e-300])
def test_rbo_of_a_tiny_persistence_is_the_first_rank_agreement(p):
    import warnings

    from trecbench.runstudy.similarity import similarity

    same_top = {"a": {"q": {"d": 2.0, "e": 1.0}}, "b": {"q": {"d": 2.0, "f": 1.0}}}
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no overflow on the way
        values = similarity(same_top, rbo_p=p).pairs[0].values
    # (1 - p)/p overflowed to inf for a subnormal p: NaN, shown as '-'
    assert values["rbo_ext"][0] == pytest.approx(1.0)
    assert values["rbo_min"][0] == pytest.approx(1.0)
    assert values["rbo_res"][0] == pytest.approx(0.0, abs=1e-12)


@pytest.mark.parametrize(
    ("differences", "alpha"), [([0.1, 0.3], 1e-6), ([0.0, 0.0, -1 / 3], 1e-300)]
)
def test_power_where_scipys_noncentral_t_does_not_converge_is_undefined(differences, alpha):
    import warnings

    import numpy as np

    from trecbench.conclusions.power import PowerSettings, power_row

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nor a warning line
        row = power_row(np.array(differences), PowerSettings(alpha=alpha), "b", "a", "P@3")
    assert (row.power, row.mde, row.topics_needed) == (None, None, None)
    assert row.effect_size == pytest.approx(np.mean(differences) / np.std(differences, ddof=1))
    assert "scipy's noncentral t does not converge" in row.reason


def test_power_cli_at_a_tiny_alpha_says_why_in_one_line(folder, capsys):
    args = ["power", "q.qrels", "a.run", "b.run", "-m", "P@3", "--alpha", "1e-300"]
    assert run(args) == 0
    captured = capsys.readouterr()
    assert "internal error" not in captured.err and "Warning" not in captured.err
    assert "b, P@3: scipy's noncentral t does not converge at alpha 1e-300" in captured.out


@pytest.mark.parametrize("alpha", [1e-300, 1e-308, 5e-324])
def test_power_where_scipys_t_critical_value_is_infinite_is_undefined(alpha):
    """scipy's t quantile at 3 df and these alphas is -inf (it is about 1e100): the power
    was NaN and brentq's ValueError an internal error."""
    import warnings

    import numpy as np

    from trecbench.conclusions.power import PowerSettings, power_row

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        row = power_row(np.array([0.0, 1.0, 0.0, 0.0]), PowerSettings(alpha), "b", "a", "P@1")
    assert (row.power, row.mde, row.topics_needed) == (None, None, None)
    assert row.reason == (
        "scipy's t critical value (df 3) comes out -inf, not finite and positive at alpha "
        f"{alpha} with 4 topics: power, MDE and topics needed are undefined"
    )


def test_power_cli_where_scipys_t_critical_value_is_infinite_says_why(tmp_path, capsys):
    topics = ("t1", "t2", "t3", "t4")
    (tmp_path / "q.qrels").write_text("".join(f"{t} 0 R 1\n{t} 0 N 0\n" for t in topics))
    for name, top_of_t4 in (("a", "R"), ("b", "N")):
        ranked = {
            t: ("R", "N") if t != "t4" else (top_of_t4, {"R": "N", "N": "R"}[top_of_t4])
            for t in topics
        }
        text = "".join(
            f"{t} Q0 {first} 1 2 {name}\n{t} Q0 {second} 2 1 {name}\n"
            for t, (first, second) in ranked.items()
        )
        (tmp_path / f"{name}.run").write_text(text)
    args = ["power", *(str(tmp_path / f) for f in ("q.qrels", "a.run", "b.run")), "-m", "P@1"]
    assert run([*args, "--alpha", "1e-300"]) == 0
    captured = capsys.readouterr()
    assert "internal error" not in captured.err
    assert "b, P@1: scipy's t critical value (df 3) comes out -inf" in captured.out


def test_leaderboard_markdown_keeps_a_pipe_in_a_name_inside_its_cell(folder, capsys):
    (folder / "suite.toml").write_text(
        'systems = ["a|b", "c"]\nmeasures = ["P@1"]\n'
        '[collections."x|y"]\nqrels = "q.qrels"\nruns = { "a|b" = "a.run", c = "c.run" }\n'
    )
    assert run(["leaderboard", "suite.toml", "--format", "markdown"]) == 0
    lines = capsys.readouterr().out.splitlines()
    # escaped as score's Markdown escapes a run's name (a|b was a\|b)
    assert lines[2] == "| system | x%7Cy | macro | mean rank | p (collections) | p (topics) |"
    assert lines[4].startswith("| a%7Cb | 1.0000 (1) |")


@pytest.mark.parametrize("docno", ["d 1", "d\n1", "d\t1"])
def test_fuse_refuses_to_write_ids_trec_text_cannot_hold(folder, capsys, docno):
    import pandas as pd

    frame = {"qid": ["t1", "t1"], "docno": [docno, "d2"], "score": [2.0, 1.0]}
    pd.DataFrame(frame).to_parquet(folder / "ids.parquet")
    args = ["fuse", "ids.parquet", "a.run", "-o"]
    # 'd 1' read back as docno 'd' with score 3.0 (the rank), and exit 0; the refusal
    # named no file ('a TREC run cannot hold the docno'): now the run and row holding it
    _refused([*args, "fused.run"], capsys, 2, "ids.parquet:1: a fused run cannot hold the docno")
    assert not (folder / "fused.run").exists()
    assert run([*args, "fused.parquet"]) == 0  # Parquet holds any id


def test_fuse_refuses_an_id_at_the_run_and_line_it_was_read_from(folder, capsys):
    (folder / "hash.run").write_text("t1 Q0 d1 1 2 h\n#2 Q0 d1 1 1 h\n")
    # 'a TREC run cannot hold the qid' named neither the file nor its line
    said = "hash.run:2: a fused run cannot hold the qid '#2' (a leading '#'"
    _refused(["fuse", "a.run", "hash.run", "-o", "fused.run"], capsys, 2, said)
    assert not (folder / "fused.run").exists()


@pytest.mark.parametrize(("fmt", "start"), [("table", "\n"), ("markdown", "\n"), ("latex", "\n% ")])
def test_agree_says_which_measures_have_no_better_direction(folder, capsys, fmt, start):
    args = ["agree", "q.qrels", "a.run", "b.run", "c.run", "-m", "P@3", "-m", "num_ret"]
    assert run([*args, "--format", fmt]) == 0
    note = "num_ret: no better direction; the runs are ordered by value, highest first\n"
    assert f"{start}{note}" in capsys.readouterr().out


def test_fuse_optimize_records_its_search_and_seed_in_the_ir_metadata_block(folder, capsys):
    import trecbench

    (folder / "about.yaml").write_text("description: tuned\n")
    # (rrf's k grid ranks these three runs alike: combsum's weights are searched)
    args = [*OPTIMIZE, "--folds", "2", "--seed", "7", "--ir-metadata", "about.yaml"]
    args += ["--method", "combsum", "--step", "0.5"]
    assert run([*args, "-o", "tuned.run"]) == 0
    block = trecbench.load_run(str(folder / "tuned.run")).ir_metadata
    tuned = block["method"]["fusion"]["optimized"]
    assert (tuned["seed"], tuned["folds"], tuned["measure"], tuned["chosen"]) == (
        7,
        2,
        "P@3",
        "weights=0.5,0.5,0",
    )
    assert tuned["qrels"]["path"] == "q.qrels" and len(tuned["qrels"]["sha256"]) == 64
    assert block["method"]["fusion"]["weights"] == [0.5, 0.5, 0.0]


def test_diff_of_two_kinds_names_each_with_its_article(folder, capsys):
    assert run(["score", "--report", "e.json", "q.qrels", "a.run", "-m", "P@1"]) == 0
    assert run(["compare", "q.qrels", "a.run", "b.run", "-m", "P@1", "-o", "out"]) == 0
    capsys.readouterr()
    _refused(
        ["diff", "out/BenchmarkReport.json", "e.json"], capsys, 2, "this is an EvaluationReport"
    )


def _from_stdin(folder, *args: str):
    """trecbench ARGS in a process whose standard input holds a.run (as `cat a.run |`)."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    command = [sys.executable, "-m", "trecbench", "compare", "q.qrels", "-", "b.run", *args]
    return subprocess.run(
        command, input=RUNS["a.run"], capture_output=True, text=True, cwd=folder, env=env
    )


def test_report_html_of_a_run_from_standard_input_has_no_drill_down(folder):
    # the drill-down read standard input again: "changed since it was scored", exit 2
    done = _from_stdin(folder, "-m", "P@3", "-o", "out")
    assert (done.returncode, done.stderr.count("trecbench: ")) == (0, 0), done.stderr
    assert (folder / "out" / "report.html").exists()


def test_unjudged_bounds_of_a_run_from_standard_input_are_those_of_its_file(folder, capsys):
    # they read it again and found it empty ("error[R26]: empty file"), then refused it;
    # now kept as it is scored
    options = ["-m", "P@3", "--unjudged-bounds", "--format", "json"]
    done = _from_stdin(folder, *options)
    assert (done.returncode, done.stderr) == (0, "")
    assert run(["compare", "q.qrels", "a.run", "b.run", *options]) == 0
    rows = [
        json.loads(text)["unjudged_bounds"]["rows"]
        for text in (done.stdout, capsys.readouterr().out)
    ]
    assert [row["run"] for row in rows[0]] == ["-", "b"]
    for row in (*rows[0], *rows[1]):
        del row["run"]
    assert rows[0] == rows[1] and len(rows[0]) == 2


@pytest.mark.parametrize(
    ("write", "frame"),
    [
        ("write_run", {"qid": ["1"], "docno": ["d 1"], "rank": [1], "score": [1.0], "tag": ["t"]}),
        ("write_qrels", {"qid": ["1 2"], "docno": ["d1"], "rel": [1]}),
    ],
)
def test_written_text_cannot_hold_an_id_it_would_read_back_as_another(write, frame, tmp_path):
    # write_run(fuse([df])) of a docno 'd 1' read back as docno 'd' with score 1.0
    import pandas as pd

    import trecbench
    from trecbench.errors import OutputError

    with pytest.raises(OutputError, match="cannot hold"):
        getattr(trecbench, write)(pd.DataFrame(frame), tmp_path / "out.txt")
    assert not (tmp_path / "out.txt").exists()


def test_an_empty_tag_is_refused_as_every_reader_refuses_it(tmp_path):
    import pandas as pd

    import trecbench
    from trecbench.errors import InputError

    frame = {"qid": ["1"], "docno": ["d1"], "rank": [1], "score": [1.0], "tag": [""]}
    with pytest.raises(InputError, match="^run DataFrame: row 0: tag is empty$"):
        trecbench.write_run(pd.DataFrame(frame), tmp_path / "out.txt")
    assert not (tmp_path / "out.txt").exists()


def test_pool_refuses_a_level_without_qrels(capsys, tmp_path):
    out = tmp_path / "p.txt"
    run_file = str(ROOT / "runs" / "tfidf-word.run")
    _refused(["pool", run_file, "-l", "5", "-o", str(out)], capsys, 1, "-l goes")
    assert not out.exists()


def test_pool_refuses_empty_qrels_as_score_does(capsys, tmp_path):
    empty = tmp_path / "empty.qrels"
    empty.write_text("")
    run_file = str(ROOT / "runs" / "tfidf-word.run")
    args = ["pool", run_file, "--qrels", str(empty), "-o", str(tmp_path / "p")]
    _refused(args, capsys, 2, "error[R26]: empty file")


def test_score_unjudged_bounds_start_from_score_s_own_values_under_c(capsys, tmp_path):
    # -c counts the topics the run lacks as 0: the bounds' value (low) is score's mean
    (tmp_path / "q.qrels").write_text("t1 0 d1 1\nt2 0 d4 1\nt3 0 d7 1\n")
    (tmp_path / "one.run").write_text("t1 Q0 d1 1 3 a\nt1 Q0 d2 2 2 a\nt1 Q0 d3 3 1 a\n")
    args = ["score", "-c", "--unjudged-bounds", "--format", "json", "-m", "P@3"]
    assert run([*args, str(tmp_path / "q.qrels"), str(tmp_path / "one.run")]) == 0
    document = json.loads(capsys.readouterr().out)
    (bound,) = document["unjudged_bounds"]
    assert bound["value"] == pytest.approx(1 / 9) and bound["high"] == pytest.approx(1 / 3)


@pytest.mark.parametrize("command", ["compare", "agree"])
def test_a_correction_given_with_a_family_wise_test_is_refused(capsys, command):
    # agree took --correction holm with tukey and said "correction none: family-wise"
    qrels, runs = str(ROOT / "qrels" / "hpo-demo.qrels"), sorted((ROOT / "runs").glob("*.run"))
    args = [command, qrels, *map(str, runs), "--test", "tukey", "--correction", "bonferroni"]
    # f63b921 said "test tukey" here, naming the test by the library's word (reviewer 249)
    message = "trecbench: --test tukey is family-wise over all pairs: its p-values are not "
    _refused(args, capsys, 1, message + "corrected again; leave --correction out\n")


def test_compare_plots_a_run_from_standard_input(tmp_path):
    # the precision-recall curve reads the runs again: a run from a pipe has none to draw
    import subprocess
    import sys

    qrels, run_b = ROOT / "qrels" / "hpo-demo.qrels", ROOT / "runs" / "tfidf-char.run"
    args = ["compare", str(qrels), "-", str(run_b), "-m", "P@5", "-o", str(tmp_path / "o")]
    done = subprocess.run(
        [sys.executable, "-m", "trecbench", *args, "--plots", "--quiet"],
        input=(ROOT / "runs" / "tfidf-word.run").read_bytes(),
        capture_output=True,
    )
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "o" / "means.png").exists()


def test_score_html_says_when_its_page_means_are_not_score_s(capsys, tmp_path):
    (tmp_path / "q.qrels").write_text("t1 0 d1 1\nt2 0 d4 1\nt3 0 d7 1\n")
    (tmp_path / "a.run").write_text("t1 Q0 d1 1 3 a\nt2 Q0 d4 1 3 a\nt3 Q0 d9 1 3 a\n")
    (tmp_path / "one.run").write_text("t1 Q0 d1 1 3 b\n")
    files = [str(tmp_path / name) for name in ("q.qrels", "a.run", "one.run")]
    assert run(["score", "--html", str(tmp_path / "p.html"), *files, "-m", "P@3"]) == 0
    err = capsys.readouterr().err
    assert "the page pairs the runs on the 1 topic every run holds" in err
    assert run(["score", "--html", str(tmp_path / "p2.html"), *files[:2], "-m", "P@3"]) == 0
    assert "pairs the runs" not in capsys.readouterr().err  # one run: nothing differs


@pytest.mark.parametrize("name", ["pool.gz", "pool.parquet", "pool.jsonl"])
def test_pool_refuses_an_output_named_as_another_format(folder, capsys, name):
    # pool.gz got plain text (zcat fails), pool.parquet TREC text: refused before the work
    assert run(["pool", "a.run", "-o", name]) == 1
    captured = capsys.readouterr()
    assert captured.out == "" and f"trecbench: {name}: " in captured.err
    assert not (folder / name).exists()


def test_fuse_optimize_refuses_a_too_fine_step_before_reading_a_run(folder, capsys):
    # the count of weightings was checked once every run was read: a bad run was said first
    (folder / "c.run").write_text("t1 Q0 d2\n")  # not a run: three fields
    args = [*OPTIMIZE, "--folds", "2", "--method", "combsum", "--step", "0.0001", "-o", "o.run"]
    err = _refused(args, capsys, 1, "--step 0.0001 over 3 runs makes 50,015,001 weightings")
    assert "c.run" not in err, err
