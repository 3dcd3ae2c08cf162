"""Every command that scores runs says, in score's words, that a run's topics the qrels
lack were left out (of its means, its tests, its orderings) and that the qrels hold
negative grades (read as unjudged): compare, power, agree, leaderboard and benchmark said
neither (trecbench.evaluation.flag_warnings holds the one wording)."""

from __future__ import annotations

import json

import pytest

import trecbench
from trecbench.cli import run

# t1 has a negative grade; run a holds t9, which the qrels lack
QRELS = "t1 0 d1 1\nt1 0 d2 0\nt1 0 d3 -1\nt2 0 d1 1\nt2 0 d4 2\nt3 0 d2 1\nt3 0 d5 0\n"
RUN_A = "t1 Q0 d1 1 3 a\nt1 Q0 d2 2 2 a\nt2 Q0 d4 1 3 a\nt2 Q0 d1 2 2 a\nt3 Q0 d2 1 3 a\n"
RUN_A += "t9 Q0 d2 1 3 a\n"
RUN_B = "t1 Q0 d2 1 3 b\nt1 Q0 d1 2 2 b\nt2 Q0 d1 1 3 b\nt2 Q0 d4 2 2 b\nt3 Q0 d5 1 3 b\n"
RUN_B += "t3 Q0 d2 2 2 b\n"

NEGATIVE = "1 qrels topic has negative grades (treated as unjudged): t1"
LEFT_OUT = "a: 1 run topic is not in the qrels (ignored, also with -c): t9"


@pytest.fixture
def folder(tmp_path):
    """The qrels, the two runs, a leaderboard suite and a benchmark configuration of them."""
    (tmp_path / "q.qrels").write_text(QRELS)
    (tmp_path / "a.run").write_text(RUN_A)
    (tmp_path / "b.run").write_text(RUN_B)
    (tmp_path / "suite.toml").write_text(
        'measures = ["map"]\nsystems = ["a", "b"]\n[collections.c]\nqrels = "q.qrels"\n'
        'runs = "{system}.run"\n'
    )
    (tmp_path / "bench.toml").write_text(
        'name = "t"\nqrels = "q.qrels"\nmeasures = ["map"]\n[modes.a]\nrun = "a.run"\n'
        '[modes.b]\nrun = "b.run"\n[statistics]\nsamples = 100\n'
    )
    return tmp_path


def _warned(capsys) -> list[str]:
    """What the command said as warnings on stderr, in order."""
    prefix = "trecbench: warning: "
    err = capsys.readouterr().err.splitlines()
    return [line.removeprefix(prefix) for line in err if line.startswith(prefix)]


COMMANDS = {
    "score": (["score", "-m", "map", "{q}", "{a}", "{b}"], ""),
    "compare": (["compare", "-m", "map", "--quiet", "{q}", "{a}", "{b}"], ""),
    "power": (["power", "-m", "map", "--quiet", "{q}", "{a}", "{b}"], ""),
    "agree": (["agree", "-m", "map", "-m", "P@5", "--quiet", "{q}", "{a}", "{b}"], ""),
    "leaderboard": (["leaderboard", "--quiet", "{suite}"], "collection c: "),
    "benchmark": (["benchmark", "--quiet", "{bench}", "-o", "{out}"], ""),
}


@pytest.mark.parametrize("command", COMMANDS)
def test_each_command_says_score_s_two_warnings_once(folder, capsys, command):
    args, where = COMMANDS[command]
    paths = {"q": "q.qrels", "a": "a.run", "b": "b.run", "suite": "suite.toml"}
    paths |= {"bench": "bench.toml", "out": "out"}
    args = [arg.format(**{key: str(folder / name) for key, name in paths.items()}) for arg in args]
    assert run(args) == 0
    assert _warned(capsys) == [where + NEGATIVE, where + LEFT_OUT]


@pytest.mark.parametrize("command", ["score", "compare"])
def test_a_topic_in_another_normalization_form_is_said_so(folder, capsys, command):
    # a run written on macOS (NFD) against NFC qrels: "1 run topic is not in the qrels:
    # café" and "1 qrels topic is not in the run: café", and nothing of why
    composed, decomposed = "caf\u00e9", "cafe\u0301"
    (folder / "q.qrels").write_text(QRELS.replace("t2 ", f"{composed} "), encoding="utf-8")
    (folder / "a.run").write_text(RUN_A.replace("t2 ", f"{decomposed} "), encoding="utf-8")
    q, a, b = (str(folder / name) for name in ("q.qrels", "a.run", "b.run"))
    assert run([command, "-m", "map", "--quiet", q, a, b]) == 0
    other = (
        f"a: 1 run topic matches a qrels topic only in another Unicode normalization form "
        f"(NFC, NFD), not as bytes (as trec_eval compares ids): {decomposed}"
    )
    left_out = f"a: 2 run topics are not in the qrels (ignored, also with -c): {decomposed}, t9"
    assert _warned(capsys)[1:3] == [left_out, other]


def test_a_run_wholly_in_another_normalization_form_is_said_so(folder, capsys):
    # every run topic NFD, the qrels NFC: no topic in common, and the refusal (exit 7)
    # quoted "the run's 'café'; the qrels' 'café'" without a word of why
    composed, decomposed = "caf\u00e9", "cafe\u0301"
    (folder / "q.qrels").write_text(f"{composed} 0 d1 1\n", encoding="utf-8")
    (folder / "a.run").write_text(f"{decomposed} Q0 d1 1 2 a\n", encoding="utf-8")
    assert run(["score", "-m", "map", str(folder / "q.qrels"), str(folder / "a.run")]) == 7
    said = (
        f"the run's '{decomposed}' is the qrels' '{composed}' in another Unicode normalization "
        "form (NFD, NFC): ids are compared as bytes)"
    )
    assert capsys.readouterr().err.rstrip("\n").endswith(said)


def test_the_api_results_carry_them(folder):
    q, a, b = (str(folder / name) for name in ("q.qrels", "a.run", "b.run"))
    said = [NEGATIVE, LEFT_OUT]
    comparison = trecbench.compare(q, [a, b], ["map"], samples=100)
    assert comparison.warnings == said and comparison.report()["warnings"] == said
    assert list(trecbench.power(q, a, [b], ["map"]).warnings) == said
    assert list(trecbench.agree(q, [a, b], ["map", "P@5"]).warnings) == said
    board = trecbench.leaderboard(folder / "suite.toml")
    in_c = [f"collection c: {line}" for line in said]
    assert board.warnings == in_c and board.to_json()["warnings"] == in_c
    # none of them is an input warning too: the command would say it twice
    for result in (comparison, board):
        assert not set(result.input_warnings) & set(result.warnings)
    bench = trecbench.run_benchmark(folder / "bench.toml")
    assert bench.comparison.warnings == said
    bench.write(folder / "out")
    assert json.loads((folder / "out" / "BenchmarkReport.json").read_text())["warnings"] == said


def test_several_qrels_each_name_theirs(folder, capsys):
    # compare --run-qrels and agree --qrels-b read two sets: "the qrels" is which one
    (folder / "p.qrels").write_text(QRELS.replace(" -1\n", " 0\n"))  # no negative grade
    q, p, a, b = (str(folder / name) for name in ("q.qrels", "p.qrels", "a.run", "b.run"))
    args = ["compare", "-m", "map", "--quiet", "--run-qrels", a, q, "--run-qrels", b, p]
    assert run(args) == 0
    assert _warned(capsys) == [f"{q}: {NEGATIVE}", f"{q}: {LEFT_OUT}"]
    assert run(["agree", "-m", "map", "-m", "P@5", "--quiet", q, a, b, "--qrels-b", p]) == 0
    said = [f"{q}: {NEGATIVE}", f"{q}: {LEFT_OUT}", f"{p}: {LEFT_OUT}"]
    assert _warned(capsys) == said
    # one file as both sets: each line once
    assert run(["agree", "-m", "map", "-m", "P@5", "--quiet", q, a, b, "--qrels-b", q]) == 0
    assert _warned(capsys) == said[:2]


def test_a_leaderboard_stratum_says_its_own_topics(folder, capsys):
    # two collections of one evaluation: each says the flagged topics of its stratum
    queries = {"t1": {"g": "x"}, "t2": {"g": "y"}, "t3": {"g": "y"}, "t9": {"g": "y"}}
    sidecar = {"format": "trecbench-sidecar", "version": 3}
    sidecar["strata"] = {"fields": ["g"], "queries": queries}
    (folder / "s.json").write_text(json.dumps(sidecar))
    collections = "".join(
        f'[collections.{g}]\nqrels = "q.qrels"\nruns = "{{system}}.run"\nstrata = "s.json"\n'
        f'where = {{ g = "{g}" }}\n'
        for g in "xy"
    )
    suite = folder / "strata.toml"
    suite.write_text('measures = ["map"]\nsystems = ["a", "b"]\n' + collections)
    assert run(["leaderboard", "--quiet", str(suite)]) == 0
    assert _warned(capsys) == [f"collection x: {NEGATIVE}", f"collection y: {LEFT_OUT}"]
